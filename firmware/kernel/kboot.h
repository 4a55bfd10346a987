/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bringing the OS up on a copro device: find and map it, set up its
 * interrupt (MSI-X, MSI or INTx: irq= on the command line), start the
 * miniport (rings, its DDI), hand the VRAM it does not use to the kernel
 * as the segment, give the scheduler its storage from free RAM, start
 * the kernel and wire the ISR to the kernel's DPC queue (WDDM's
 * DxgkDdiStartDevice and DxgkCbQueueDpc). The one place that knows both
 * the kernel and the copro driver. With a display asked for (display
 * below), it also takes over the device's display block (kmd/
 * copro_display, attached to the miniport's DDI) and has the kernel set
 * display source 0's mode.
 *
 * Command-line options read here (decimal numbers):
 *   irq=auto|msix|msi|intx
 *   policy=fifo|priority|quantum     scheduling policy
 *   quantum_us=N                     quantum policy's turn
 *   aging_ms=N                       starvation boost after this long
 *   tdr_ms=N, tdr_grace_ms=N         watchdog timeout and grace
 *   serial_prepare                   prepare only once the engine idles
 *   fight_kib=N                      eviction fighting's threshold (1024;
 *                                    0: not even detected)
 *   fight_factor=N                   turns while fighting last N quanta
 *                                    (4; 1: detected, not avoided)
 *   irq_demand=0|1                   hardware mode: completion interrupts
 *                                    only while someone waits (1, default)
 *   vidmm=0|1                        1 (default, with an aperture): vidmm
 *                                    manages applications' allocations
 *   pool_mib=N                       backing store for vidmm (96)
 *   kernel_vram_kib=N                VRAM the kernel keeps for itself
 *                                    (default 1/8 of the OS's, >= 2 MiB)
 *
 * With vidmm, the GPU's aperture is set up (GART, the kmd's pager behind
 * the DDI's build_paging_buffer) and a page pool carved from free RAM is
 * the backing store of applications' allocations: they may add up to
 * more than VRAM. Without an aperture (or vidmm=0) every allocation has
 * fixed placement in VRAM, as before vidmm.
 */
#ifndef FW_KERNEL_KBOOT_H
#define FW_KERNEL_KBOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "kmd/copro.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_ddi.h"
#include "kmd/copro_hwq.h"
#include "kmd/copro_display.h"
#include "kmd/copro_gart.h"
#include "kmd/copro_gpuva.h"
#include "kmd/copro_pager.h"
#include "lib/page_alloc.h"
#include "lib/page_pool.h"
#include "lib/report.h"
#include "lib/scenario.h"

#define KBOOT_RING_ENTRIES  64
/* GART entries: 32 MiB of aperture, enough for what is mapped at once
 * (temporary ranges of transfers, allocations living there); its table
 * costs 64 KiB of VRAM. */
#define KBOOT_GART_ENTRIES  8192u
#define KBOOT_POOL_MIB      96u
#define KBOOT_KERNEL_VRAM_MIN   (2ull << 20)

struct kboot {
    struct copro dev;
    struct copro_cp cp;
    struct copro_ddi ddi;
    struct copro_display disp;
    struct kitem dpc;           /* the miniport's DPC in the kernel queue */
    struct page_alloc ram;
    /* vidmm's side (paging true): the aperture and the backing store */
    bool paging;
    struct copro_gart gart;
    struct copro_pager pager;
    struct page_pool pool;
    /* GPU-VA mode (kernel/kgpuva.h): set gpuva_vram before kboot_start
     * (0: off); it is taken from the kernel's part of VRAM, and the
     * aperture is split between vidmm and GPU-VA mode */
    uint64_t gpuva_vram;
    struct copro_gpuva gpuva;
    /* hardware scheduling (sched.hwsched) */
    struct copro_hwq hwq;
    struct kernel k;
    struct vidsch_config sched;
    /* Set before kboot_start: display source 0's mode, XRGB8888 (0 x 0:
     * no display; the device's display block stays untouched). */
    struct {
        uint32_t width, height;
    } display;
};

/*
 * Reads the scheduler options above into cfg, on top of what cfg holds
 * (start from vidsch_config_default and a scenario's own defaults).
 * False, having reported why, for a bad value.
 */
bool kboot_sched_options(struct report *r, const char *cmdline,
                         struct vidsch_config *cfg);

/*
 * Brings everything up with scheduler configuration cfg, reporting each
 * step as a check. False (reported) if the OS cannot run.
 */
bool kboot_start(struct kboot *b, struct report *r,
                 const struct boot_info *boot,
                 const struct vidsch_config *cfg);

/*
 * Measurements for scenarios, read from the device (its own accounting,
 * not the scheduler's): engine e's busy time (STAT_BUSY_NS), and the
 * interrupts taken.
 */
uint64_t kboot_engine_busy_ns(const struct kboot *b, unsigned e);
/* Bytes engine e's packets read and wrote in GPU memory
 * (STAT_MEM_READ, STAT_MEM_WRITE: COPY, FILL, RECT, tile loads and
 * stores, parameter buffers); 0 for an engine the device lacks. */
void kboot_engine_mem_bytes(const struct kboot *b, unsigned e,
                            uint64_t *read, uint64_t *write);
uint64_t kboot_interrupts(const struct kboot *b);

#endif /* FW_KERNEL_KBOOT_H */
