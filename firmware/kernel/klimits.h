/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sizes of the kernel's tables and pools (kernel.h's struct kernel
 * holds them), and the alignment of its allocations.
 */
#ifndef FW_KERNEL_KLIMITS_H
#define FW_KERNEL_KLIMITS_H

#include <stdint.h>

#define KERNEL_MAX_PROCS        16
#define KERNEL_MAX_DEVICES      24
#define KERNEL_MAX_CONTEXTS     32
#define KERNEL_MAX_ALLOCS       160
#define KERNEL_MAX_SYNCS        64
#define KERNEL_MAX_BUFFERS      96      /* DMA buffers in flight */
/* The scheduler's buffer table also holds pending GPU signals and waits. */
#define KERNEL_SCHED_BUFFERS    (2 * KERNEL_MAX_BUFFERS)
#define KERNEL_MAX_WAITS        128     /* CPU waits and lock waits */
/* A lock wait's bound (kapi_lock_wait): GPU time after which a lock still
 * held back by buffers in flight is answered DDI_ETIMEOUT. */
#define KERNEL_LOCK_WAIT_NS     250000000ull
#define KERNEL_MAX_SHARED       32
_Static_assert(KERNEL_MAX_DEVICES <= 32, "ksync.devs is a 32-bit set");
#define KERNEL_PROC_HANDLES     96
#define KERNEL_SEGMENT_BLOCKS   512
#define KERNEL_TRACE            512     /* scheduler decisions kept */
#define KERNEL_MAX_PAGING       8       /* paging buffers in flight */
/* freed pageable DMA buffers still moved by paging buffers in flight:
 * at most every move of each of them (DDI_MAX_PAGING_OPS a buffer) */
#define KDMA_DYING_MAX          (KERNEL_MAX_PAGING * DDI_MAX_PAGING_OPS)
/* One paging buffer's packets: DDI_MAX_PAGING_OPS operations of a few
 * packets each fit with room to spare. */
#define KERNEL_PAGING_BYTES     8192u

/* Alignment of every allocation: enough for any packet's needs (8 for
 * fences) and a cache line so objects never share one. */
#define KERNEL_ALLOC_ALIGN      64

#endif /* FW_KERNEL_KLIMITS_H */
