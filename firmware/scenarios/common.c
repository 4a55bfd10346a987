/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "scenarios/common.h"

#include "lib/cmdline.h"
#include "lib/idt.h"

#define COPRO_VECTOR_BASE   IRQ_VEC_DEVICE_BASE

bool scenario_bringup(struct report *r, const struct boot_info *boot,
                      struct copro *dev, struct copro_cp *cp,
                      uint32_t ring_entries)
{
    enum copro_irq_mode mode = COPRO_IRQ_AUTO;
    const char *err;
    char arg[16];

    if (cmdline_get(boot->cmdline, "irq", arg, sizeof(arg)) &&
        !copro_irq_mode_parse(arg, &mode)) {
        return report(r, false, "unknown irq= mode \"%s\" (auto, msix, msi, "
                      "intx)", arg);
    }
    if (!report(r, copro_find(dev), "copro device found")) {
        return false;
    }
    err = copro_map(dev);
    if (!report(r, err == NULL, "BARs mapped%s%s", err ? ": " : "",
                err ? err : "")) {
        return false;
    }
    copro_read_info(dev);
    err = copro_info_validate(&dev->info);
    if (!report(r, err == NULL, "identity: %u engines, %lu MiB VRAM%s%s",
                dev->info.num_engines, dev->info.vram_size / MIB,
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    if (!report(r, dev->info.caps & COPRO_CAP_CMD_PROCESSOR,
                "device has the command processor (caps %#x)",
                dev->info.caps)) {
        return false;
    }
    err = copro_irq_setup(dev, mode, COPRO_VECTOR_BASE);
    if (!report(r, err == NULL, "interrupts: %s requested, using %s%s%s",
                copro_irq_mode_name(mode), copro_irq_mode_name(dev->irq_mode),
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    err = copro_cp_init(cp, dev, ring_entries);
    return report(r, err == NULL, "driver up: %u engines, %u-entry rings%s%s",
                  cp->num_engines, ring_entries, err ? ": " : "",
                  err ? err : "");
}

bool check_bytes(struct report *r, const char *what,
                 const volatile uint8_t *got, const uint8_t *want, size_t n)
{
    size_t bad = 0, first = 0;
    uint8_t g = 0, w = 0;

    for (size_t i = 0; i < n; i++) {
        uint8_t v = got[i];
        if (v != want[i]) {
            if (!bad) {
                first = i;
                g = v;
                w = want[i];
            }
            bad++;
        }
    }
    if (bad) {
        return report(r, false, "%s: %zu of %zu bytes differ, first at +%#zx "
                      "(got %#04x, expected %#04x)", what, bad, n, first, g,
                      w);
    }
    return report(r, true, "%s: all %zu bytes as expected", what, n);
}

void engine_stats_read(struct copro_cp *cp, unsigned e,
                       struct engine_stats *s)
{
    uint32_t base = COPRO_ENG_BASE(e);

    s->busy_ns = copro_read64(cp->dev, base + COPRO_ENG_STAT_BUSY_NS);
    s->submissions = copro_read64(cp->dev, base + COPRO_ENG_STAT_SUBMISSIONS);
    s->packets = copro_read64(cp->dev, base + COPRO_ENG_STAT_PACKETS);
    s->bytes = copro_read64(cp->dev, base + COPRO_ENG_STAT_BYTES);
    s->faults = copro_read64(cp->dev, base + COPRO_ENG_STAT_FAULTS);
}

bool check_fence_wait(struct report *r, struct copro_cp *cp, unsigned e,
                      uint64_t fence, enum copro_wait_result want,
                      const char *what)
{
    uint64_t waited = 0;
    enum copro_wait_result got;

    if (fence == 0) {
        return report(r, false, "%s: submission on engine %u refused", what,
                      e);
    }
    got = copro_cp_wait_fence(cp, e, fence, FENCE_TIMEOUT_NS, &waited);
    return report(r, got == want, "%s: engine %u fence %lu %s after %lu ns "
                  "(expected %s)", what, e, fence, copro_wait_result_name(got),
                  waited, copro_wait_result_name(want));
}
