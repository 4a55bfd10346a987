/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Process exit (kapi_process_exit, kapi.h): what the kernel takes back
 * when a process ends or is killed, and when its record may be reused.
 * Internal to kernel/.
 */
#ifndef FW_KERNEL_KEXIT_H
#define FW_KERNEL_KEXIT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ktables.h"

struct kernel;
struct kproc;
struct kdevice;

/* An id (1..255) no live process has; 0 if all are taken. Ids are
 * handed out round-robin, so a dead process's handle values name
 * nothing in the next process for as long as possible. */
uint8_t kexit_new_proc_id(struct kernel *k);

/* The reaper's part: frees the records of exited processes that hold
 * nothing any more (every quota back to 0: kquota_empty). */
void kexit_reap(struct kernel *k);

/* Remembers that the handle h of p was opened (a shared object) on dev:
 * destroying dev closes it (kapi_destroy_device). */
void kexit_note_open(struct kproc *p, uint32_t h, struct kdevice *dev);
/* The device h was opened on, NULL if it was created, not opened. */
struct kdevice *kexit_opened_on(const struct kproc *p, uint32_t h);
/* h is closed: what was noted for it goes (its value comes back after
 * 1024 generations of its slot, for another object). */
void kexit_handle_gone(struct kproc *p, uint32_t h);

/* Locks are counted per handle (kapi_lock, a delivered lock wait: +1;
 * kapi_unlock: -1) so that closing the handle, or the process's exit,
 * gives back the locks taken through it: nobody pins an allocation for
 * ever against the others. take returns the count and clears it. */
void kexit_note_lock(struct kproc *p, uint32_t h, int delta);
unsigned kexit_take_locks(struct kproc *p, uint32_t h);

/*
 * What the kernel holds right now in every table and pool: records in
 * use, handles, the kernel's VRAM, vidmm's VRAM and aperture, the page
 * pool, the scheduler, and what every table of kernel/ktables.h holds
 * (tables[i] for its i-th entry). A process that came and went must
 * leave it exactly as it was (tests/unit/test-kernel-exit.c, the lifetimes
 * scenario).
 */
struct kernel_census {
    unsigned procs, devices, contexts, allocs, syncs, buffers, waits;
    unsigned handles, presents, seg_blocks;
    uint64_t seg_bytes, vm_vram, vm_aperture, pool_free;
    bool sched_idle;
    uint64_t tables[KTABLES_MAX];
};

void kernel_census(const struct kernel *k, struct kernel_census *c);
/* The first field where a and b differ ("" if none), for reports. */
const char *kernel_census_diff(const struct kernel_census *a,
                               const struct kernel_census *b);

/* The exit of p (kapi_process_exit's work): DDI_EINVAL if it exited. */
int kexit_process(struct kproc *p);

#endif /* FW_KERNEL_KEXIT_H */
