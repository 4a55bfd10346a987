/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Back-pressure on work in flight [the wait inside D3DKMTRender and
 * D3DKMTSubmitCommand while a context's queue is full; drm_sched's
 * credits].
 *
 * Queueing work on a context (kapi_render, kapi_signal_gpu,
 * kapi_wait_gpu, kapi_wait_paging) takes from pools that the process's
 * own work in flight holds and gives back as it retires: DMA-buffer
 * records, the DMA-buffer copies' memory (the kernel's segment, or a
 * GPU-VA process's arena), the scheduler's GPU signal and wait slots. A
 * limit there is a throttle, not an error: in WDDM the submitting thread
 * waits until one of its context's buffers retires. Applications here
 * are state machines whose calls never block, so the wait is split the
 * way kapi_lock (DDI_EBUSY) and kapi_lock_wait (a callback) split a
 * blocking lock: the call queues nothing and returns DDI_EBUSY, and
 * kapi_wait_throttle runs a callback once some of the process's work
 * retired; the application then calls again.
 *
 * Only a process that waiting cannot help is refused for good: one with
 * nothing in flight of its own (no DMA buffer, no pending GPU signal or
 * wait) gets the pool's code (DDI_EQUOTA or DDI_ENOMEM), since no
 * retirement of its own will ever make room. Waiting never takes from
 * another process: the waiter holds one CPU-wait slot (its quota) and
 * nothing of the throttled pools, and only its own retirements wake it.
 */
#ifndef FW_KERNEL_KTHROTTLE_H
#define FW_KERNEL_KTHROTTLE_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct kproc;
struct kwait;

/* p's GPU signals and waits pending in vidsch (on its live contexts). */
unsigned kthrottle_gpu_syncs(const struct kernel *k, const struct kproc *p);

/* True when p has work in flight whose retirement gives back what a
 * throttled call needs: a DMA buffer, or a pending GPU signal or wait. */
bool kthrottle_in_flight(const struct kernel *k, const struct kproc *p);

/* What a call that queues work answers when a work-in-flight pool
 * refused it with st (DDI_EQUOTA, DDI_ENOMEM): DDI_EBUSY (wait, then
 * call again) while p has work in flight, st itself otherwise. Any other
 * st is returned as it is. */
int kthrottle_refused(struct kernel *k, struct kproc *p, int st);

/* Fills w (a wait slot of p's) as a throttle wait: over once p's work in
 * flight has moved since now (kthrottle_ready). */
void kthrottle_wait_init(struct kernel *k, struct kproc *p, struct kwait *w);

/* True when throttle wait w is over: a DMA buffer of its process
 * retired, one of its GPU signals or waits completed, or nothing of it
 * is in flight any more (the call then answers for good). */
bool kthrottle_ready(const struct kernel *k, const struct kwait *w);

#endif /* FW_KERNEL_KTHROTTLE_H */
