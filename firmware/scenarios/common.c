/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "scenarios/common.h"

#include "kmd/copro_bringup.h"
#include "lib/idt.h"

#define COPRO_VECTOR_BASE   IRQ_VEC_DEVICE_BASE

bool scenario_bringup(struct report *r, const struct boot_info *boot,
                      struct copro *dev, struct copro_cp *cp,
                      uint32_t ring_entries)
{
    return copro_bringup(r, boot->cmdline, COPRO_VECTOR_BASE, dev, cp,
                         ring_entries);
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
