/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inflight: how many processes can hold DMA buffers in flight at once,
 * measured, per DMA buffer placement (dmabuf=kernel|aperture|vram) and
 * working set (issue 29).
 *
 * First the three memory applications of `oversubscribe` (apps/memapp.h)
 * run for duration_ms with working sets of percent % of the VRAM vidmm
 * manages, so that VRAM, the aperture and the backing store hold what an
 * oversubscribed desktop holds. Then processes are added one at a time;
 * each creates a device, a context and two sync objects, queues a GPU
 * wait on the first (nothing signals it yet) and submits probe_bufs
 * buffers of probe_bytes behind it: they stay submitted and not retired,
 * held by the kernel in whatever each placement costs (a block of the
 * kernel's segment, or a vidmm allocation's backing pages). Processes
 * are added until the kernel refuses one (a table full, a quota, a pool:
 * the refusing call and its code are reported) or max_procs is reached.
 * A process whose later buffer is throttled (DDI_EBUSY: its share of a
 * pool) still counts: it holds what it got.
 *
 * Then every gate is signalled from the CPU and each held buffer must
 * run and retire (a GPU signal after the last one) within drain_ms:
 * nothing held is lost.
 *
 * Command line: irq=..., dmabuf=, percent= (200), duration_ms= (100),
 * probe_bufs= (2: a frame on the GPU and the next queued), probe_bytes=
 * (2048: a memapp frame's command buffer), max_procs= (64), drain_ms=
 * (2000), the scheduler options.
 */
#include <stdint.h>

#include "apps/memapp.h"
#include "kernel/kloop.h"
#include "kernel/kquota.h"
#include "kernel/ktimer.h"
#include "lib/console.h"
#include "scenarios/os_common.h"
#include "umd/umd.h"

#define NAPPS       3
#define MAX_PROBES  64
#define MAX_BYTES   65536u

struct probe {
    struct kproc *p;
    uint32_t hdev, hctx, hgate, hdone;
    unsigned held;              /* buffers in flight */
};

/* What refused the first process that could hold nothing. */
struct refusal {
    const char *what;           /* NULL: max_procs reached */
    int status;
    unsigned at;                /* its index */
    const char *pool;           /* the quota pool that refused a charge
                                   in that call, NULL if none did */
    int pool_status;            /* DDI_EQUOTA or DDI_ENOMEM */
};

static struct os_scenario s;
static struct memapp apps[NAPPS];
static const char *const names[NAPPS] = { "mem-a", "mem-b", "mem-c" };
static struct probe probes[MAX_PROBES];
static uint32_t cmd[MAX_BYTES / 4];

/* As oversubscribe: NAPPS apps adding up to about percent of segment. */
static uint64_t alloc_size(uint64_t segment, uint64_t percent,
                           unsigned nallocs)
{
    uint64_t each = segment / 100 * percent / (NAPPS * (uint64_t)nallocs);
    uint64_t stripes = (each + MEMAPP_STRIPE / 2) / MEMAPP_STRIPE;

    return (stripes ? stripes : 1) * MEMAPP_STRIPE;
}

/* A buffer of bytes: 1 us of WORK, then NOPs (the rest of a frame's
 * commands, which cost the same wherever the buffer lives). */
static int submit_one(struct probe *pr, uint32_t bytes)
{
    struct umd_cmdbuf b;
    struct kapi_render_args a;

    umd_init(&b, cmd, sizeof(cmd));
    umd_work(&b, 1000);
    while (umd_ok(&b) && umd_bytes(&b) + 8 <= bytes) {
        uint32_t left = (bytes - umd_bytes(&b)) / 4;

        umd_nop(&b, left > 256 ? 256 : left);
    }
    if (!umd_ok(&b)) {
        return DDI_EINVAL;
    }
    a = (struct kapi_render_args){ .cmd = umd_words(&b),
                                   .cmd_bytes = umd_bytes(&b) };
    return kapi_render(pr->p, pr->hctx, &a);
}

/* One process holding up to nbufs buffers behind its gate. DDI_OK with
 * pr->held >= 1, or the refusing call in *what. */
static int add_probe(struct kernel *k, struct probe *pr, unsigned nbufs,
                     uint32_t bytes, const char **what)
{
    int st;

    *what = "process_create";
    pr->p = kapi_process_create(k, "probe");
    if (!pr->p) {
        return DDI_ENOMEM;
    }
    *what = "create_device";
    st = kapi_create_device(pr->p, &pr->hdev);
    if (st == DDI_OK) {
        *what = "create_context";
        st = kapi_create_context(pr->p, pr->hdev, COPRO_ENGINE_RENDER,
                                 VIDSCH_PRIO_NORMAL, &pr->hctx);
    }
    if (st == DDI_OK) {
        *what = "create_sync";
        st = kapi_create_sync(pr->p, pr->hdev, 0, &pr->hgate);
    }
    if (st == DDI_OK) {
        st = kapi_create_sync(pr->p, pr->hdev, 0, &pr->hdone);
    }
    if (st == DDI_OK) {
        *what = "wait_gpu";
        st = kapi_wait_gpu(pr->p, pr->hctx, pr->hgate, 1);
    }
    for (unsigned i = 0; st == DDI_OK && i < nbufs; i++) {
        *what = "render";
        st = submit_one(pr, bytes);
        if (st == DDI_OK) {
            pr->held++;
        } else if (pr->held) {
            st = DDI_OK;        /* throttled or out: holds what it got */
            break;
        }
    }
    if (st == DDI_OK) {
        *what = "signal_gpu";
        st = kapi_signal_gpu(pr->p, pr->hctx, pr->hdone, 1);
    }
    return st;
}

struct drain {
    unsigned n;
    bool late;
    struct ktimer t;
};

static void drain_late(void *arg, uint64_t now)
{
    (void)now;
    ((struct drain *)arg)->late = true;
}

static bool drained(void *arg)
{
    struct drain *d = arg;

    if (d->late) {
        return true;
    }
    for (unsigned i = 0; i < d->n; i++) {
        uint64_t v = 0;

        if (kapi_sync_value(probes[i].p, probes[i].hdone, &v) == DDI_OK &&
            v < 1) {
            return false;
        }
    }
    return true;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 100, percent = 200, nbufs = 2, bytes = 2048,
             max_procs = MAX_PROBES, drain_ms = 2000;
    struct kernel *k = &s.boot.k;
    struct refusal why = { .what = NULL, .status = DDI_OK };
    struct drain d = { 0 };
    unsigned held = 0, done = 0, errors = 0;
    uint64_t kseg_before = 0, kseg_after = 0;

    kprintf("inflight: processes holding DMA buffers in flight until the "
            "kernel refuses one\n");
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "percent", &percent) &&
        os_option(&s, boot, "probe_bufs", &nbufs) &&
        os_option(&s, boot, "probe_bytes", &bytes) &&
        os_option(&s, boot, "max_procs", &max_procs) &&
        os_option(&s, boot, "drain_ms", &drain_ms) &&
        report(&s.r, percent >= 10 && percent <= 400 && nbufs >= 1 &&
               nbufs <= 64 && bytes >= 64 && bytes <= MAX_BYTES &&
               max_procs >= 1 && max_procs <= MAX_PROBES,
               "options: percent=%lu (10..400), probe_bufs=%lu (1..64), "
               "probe_bytes=%lu (64..%u), max_procs=%lu (1..%u)", percent,
               nbufs, bytes, MAX_BYTES, max_procs, MAX_PROBES) &&
        os_boot(&s, boot, NULL)) {
        uint64_t seg_bytes = kernel_app_vram_bytes(k);

        for (unsigned i = 0; i < NAPPS; i++) {
            struct memapp_config mc;
            int st;

            memapp_config_default(&mc);
            mc.tag = (uint8_t)(0x41 + i);
            mc.nallocs = 12;            /* as oversubscribe's defaults */
            mc.per_frame = 4;
            mc.alloc_bytes = alloc_size(seg_bytes, percent, mc.nallocs);
            st = memapp_init(&apps[i], k, names[i], &mc);
            report(&s.r, st == DDI_OK, "%s: %u allocations of %lu KiB (%s)",
                   names[i], mc.nallocs, mc.alloc_bytes >> 10,
                   ddi_status_name(st));
            os_add_app(&s, memapp_app(&apps[i]));
        }
        os_run(&s, duration_ms * MS, 5000 * MS);

        kseg_before = k->seg.used_bytes;
        for (; d.n < max_procs; d.n++) {
            uint64_t denials = k->stats.quota_denials;
            int st = add_probe(k, &probes[d.n], (unsigned)nbufs,
                               (uint32_t)bytes, &why.what);

            if (st != DDI_OK) {
                why.status = st;
                why.at = d.n;
                if (k->stats.quota_denials != denials) {
                    why.pool = kquota_kind_name(k->stats.quota_last_kind);
                    why.pool_status = k->stats.quota_last_status;
                }
                if (probes[d.n].p) {
                    kapi_process_exit(probes[d.n].p);
                }
                break;
            }
            held += probes[d.n].held;
        }
        if (d.n == max_procs) {
            why.what = NULL;
        }
        kseg_after = k->seg.used_bytes;
        kprintf("in flight: %u processes holding %u buffers of %lu bytes; "
                "the kernel's segment %lu -> %lu bytes; refused: %s (%s)"
                "%s%s%s%s\n", d.n, held, bytes, kseg_before, kseg_after,
                why.what ? why.what : "none, max_procs reached",
                ddi_status_name(why.status),
                why.pool ? ", the pool of " : "", why.pool ? why.pool : "",
                why.pool ? ": " : "",
                why.pool ? ddi_status_name(why.pool_status) : "");
        report(&s.r, d.n > 0, "at least one process held a buffer in "
               "flight (%u)", d.n);

        /* let them all go: every held buffer runs and retires */
        for (unsigned i = 0; i < d.n; i++) {
            kapi_signal_cpu(probes[i].p, probes[i].hgate, 1);
        }
        ktimer_init(&d.t, drain_late, &d);
        ktimer_arm(&k->ev.timers, &d.t, kernel_now(k) + drain_ms * MS);
        kernel_run(k, drained, &d);
        ktimer_cancel(&k->ev.timers, &d.t);
        for (unsigned i = 0; i < d.n; i++) {
            uint64_t v = 0;

            if (kapi_sync_value(probes[i].p, probes[i].hdone, &v) == DDI_OK &&
                v >= 1) {
                done++;
            }
            if (kapi_context_error(probes[i].p, probes[i].hctx) != DDI_OK) {
                errors++;
            }
            kapi_process_exit(probes[i].p);
        }
        report(&s.r, done == d.n && errors == 0, "released: %u of %u "
               "processes' buffers ran and retired, %u contexts in error "
               "(limit %lu ms)", done, d.n, errors, drain_ms);
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"inflight\",\"percent\":%lu,"
            "\"probe_bufs\":%lu,\"probe_bytes\":%lu,\"procs\":%u,"
            "\"buffers\":%u,\"refused_by\":\"%s\",\"refused_status\":\"%s\","
            "\"refused_pool\":\"%s\",\"refused_pool_status\":\"%s\","
            "\"kseg_held\":%lu,\"max_procs\":%lu",
            percent, nbufs, bytes, d.n, held,
            why.what ? why.what : "max_procs", ddi_status_name(why.status),
            why.pool ? why.pool : "",
            why.pool ? ddi_status_name(why.pool_status) : "",
            kseg_after > kseg_before ? kseg_after - kseg_before : 0,
            max_procs);
    os_print_dmabuf_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
