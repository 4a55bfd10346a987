/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every command-processor scenario does before and after its own
 * work: bring the device and the driver up (reporting each step), compare
 * memory byte for byte, snapshot engine statistics.
 */
#ifndef FW_SCENARIOS_COMMON_H
#define FW_SCENARIOS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmd/copro.h"
#include "kmd/copro_cp.h"
#include "lib/report.h"
#include "lib/scenario.h"

#define MIB                 ((uint64_t)1 << 20)
#define MS                  ((uint64_t)1000000)     /* ns */
#define US                  ((uint64_t)1000)        /* ns */

/* Fence waits: generous, the whole run is bounded by the runner anyway. */
#define FENCE_TIMEOUT_NS    (1000 * MS)

/*
 * Parses irq= from the command line (auto, msix, msi, intx), finds and
 * maps the device, validates its identity, sets up interrupts and the
 * driver with rings of ring_entries. Reports each step; returns false
 * (having reported why) if the scenario cannot go on.
 */
bool scenario_bringup(struct report *r, const struct boot_info *boot,
                      struct copro *dev, struct copro_cp *cp,
                      uint32_t ring_entries);

/*
 * Compares n bytes of VRAM against the expected image and reports one
 * check: how many bytes differ and the first difference.
 */
bool check_bytes(struct report *r, const char *what,
                 const volatile uint8_t *got, const uint8_t *want, size_t n);

/* Engine statistics registers, read at one moment. */
struct engine_stats {
    uint64_t busy_ns;
    uint64_t submissions;
    uint64_t packets;
    uint64_t bytes;
    uint64_t faults;
};

void engine_stats_read(struct copro_cp *cp, unsigned e,
                       struct engine_stats *s);

/* Reads 64 bits the engine wrote to VRAM. */
static inline uint64_t vram_read64(struct copro_cp *cp, uint64_t gpu)
{
    return *(const volatile uint64_t *)copro_cp_cpu_ptr(cp, gpu);
}

static inline void vram_write64(struct copro_cp *cp, uint64_t gpu,
                                uint64_t v)
{
    *(volatile uint64_t *)copro_cp_cpu_ptr(cp, gpu) = v;
}

/* Wait for fence and report the outcome as one check. */
bool check_fence_wait(struct report *r, struct copro_cp *cp, unsigned e,
                      uint64_t fence, enum copro_wait_result want,
                      const char *what);

#endif /* FW_SCENARIOS_COMMON_H */
