/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workload: the copro OS's runner of workload files (docs/workloads.rst).
 * One generic image: tools/copro-workload turns a file into the command
 * line, and each client runs as its own process through the kernel API
 * (apps/wlclient.h), under whatever scheduler options the line carries
 * (policy=, quantum_us=, hwsched=1, ...; the preemption granularity is
 * the device's, -device copro,preempt=...).
 *
 * Command line: irq=..., duration_ms=, wn= (clients), wc0= ... wc<wn-1>=
 * (one client each, wlclient_parse's encoding), the scheduler options.
 * A line that does not describe a workload is refused whole: nothing
 * runs half-configured.
 *
 * Prints one "WORKLOAD {...}" line per client (the Linux runner's JSON
 * schema plus preemptions and deadline misses) and one "WORKLOAD-RUN
 * {...}" line: the policy, whether the device scheduled, the engine's
 * busy fraction and the bytes its packets moved while the clients ran.
 * Checks what must hold under any policy: every client ran without
 * failure and every job it submitted retired.
 */
#include <stdint.h>

#include "apps/wlclient.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "scenarios/os_common.h"

static struct os_scenario s;
static struct wlclient clients[OS_MAX_APPS];
static struct wlclient_config cfgs[OS_MAX_APPS];

/* The clients from the command line, or false (reported). */
static bool parse_clients(const struct boot_info *boot, unsigned *n)
{
    uint64_t wn = 0;

    if (!os_option(&s, boot, "wn", &wn)) {
        return false;
    }
    if (wn < 1 || wn > OS_MAX_APPS) {
        return report(&s.r, false, "command line: wn=%lu clients (1 to %u)",
                      wn, OS_MAX_APPS);
    }
    for (unsigned i = 0; i < wn; i++) {
        char key[8], val[128];

        ksnprintf(key, sizeof(key), "wc%u", i);
        if (!cmdline_get(boot->cmdline, key, val, sizeof(val))) {
            return report(&s.r, false, "command line: %s= is missing", key);
        }
        if (!wlclient_parse(val, &cfgs[i])) {
            return report(&s.r, false, "command line: %s=%s is not a "
                          "client (NAME:PRIO:JPC:KIND VALUE:SLEEP_US:SUBMIT:"
                          "PRESENT:START_MS:STOP_MS:CYCLES:WS_ALLOCS:"
                          "WS_BYTES:DEP)", key, val);
        }
        if (cfgs[i].depends_on == (int)i || cfgs[i].depends_on >= (int)wn) {
            return report(&s.r, false, "command line: %s: depends on client "
                          "%d, not another of the %lu", key,
                          cfgs[i].depends_on, wn);
        }
        for (unsigned j = 0; j < i; j++) {
            if (!strcmp(cfgs[j].name, cfgs[i].name)) {
                return report(&s.r, false, "command line: %s: %s names two "
                              "clients", key, cfgs[i].name);
            }
        }
    }
    *n = (unsigned)wn;
    return true;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 0, drain_ms = 30000;
    unsigned n = 0;

    kprintf("workload: a workload file's clients as processes\n");
    if (!os_option(&s, boot, "duration_ms", &duration_ms) ||
        !os_option(&s, boot, "drain_ms", &drain_ms) ||
        !parse_clients(boot, &n)) {
        return report_summary(&s.r);
    }
    if (duration_ms < 1 || duration_ms > 600000) {
        report(&s.r, false, "command line: duration_ms=%lu (1 to 600000)",
               duration_ms);
        return report_summary(&s.r);
    }
    for (unsigned i = 0; i < n; i++) {
        if (cfgs[i].stop_ns > duration_ms * MS) {
            report(&s.r, false, "command line: wc%u: stops after the run's "
                   "%lu ms", i, duration_ms);
            return report_summary(&s.r);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (cfgs[i].present) {
            /* the vsyncs that release presenting clients' cycles: display
             * source 0 with the kernel's black primary */
            s.boot.display.width = 640;
            s.boot.display.height = 480;
        }
    }
    if (!os_boot(&s, boot, NULL)) {
        return report_summary(&s.r);
    }
    for (unsigned i = 0; i < n; i++) {
        wlclient_init(&clients[i], &s.boot.k, &cfgs[i]);
        os_add_app(&s, wlclient_app(&clients[i]));
    }
    /* the launcher hands each dependent client the other's sync object */
    for (unsigned i = 0; i < n; i++) {
        if (cfgs[i].depends_on >= 0 && !wlclient_app(&clients[i])->fail_what) {
            wlclient_depend(&clients[i], &clients[cfgs[i].depends_on]);
        }
    }
    os_run(&s, duration_ms * MS, drain_ms * MS);
    os_print_table(&s);
    for (unsigned i = 0; i < n; i++) {
        wlclient_print_json(&clients[i]);
    }
    kprintf("WORKLOAD-RUN {\"os\":\"copro\",\"policy\":\"%s\",\"hwsched\":%u,"
            "\"quantum_us\":%lu,\"duration_ms\":%lu,\"busy_permille\":%u",
            vidsch_policy_name(s.sched.policy), s.sched.hwsched ? 1u : 0u,
            s.sched.quantum_ns / US, duration_ms, os_busy_permille(&s));
    os_print_mem_json(&s);
    kprintf("}\n");
    return report_summary(&s.r);
}
