/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sync object (a monitored fence): its value in the kernel's segment,
 * seen by the CPU and the GPU.
 */
#ifndef FW_KERNEL_KSYNC_H
#define FW_KERNEL_KSYNC_H

#include <stdbool.h>
#include <stdint.h>

struct kdevice;
struct kproc;

struct ksync {
    bool used;
    bool zombie;            /* handle gone; storage kept until the
                               device's contexts are (vidsch may still
                               hold the address) */
    struct kdevice *dev;    /* the creator's */
    uint64_t gpu;
    volatile uint64_t *cpu;
    unsigned refs;          /* handles naming it, in any process */
    uint32_t shared_name;   /* 0 if never shared */
    bool abandoned;         /* its creator exited (or was reset): its
                               value is UINT64_MAX for good, and calls
                               and CPU waits on it by others return
                               DDI_EABANDONED, started before or after */
    uint64_t high;          /* the highest value a signal was accepted
                               with (monitored fences never go back) */
    uint32_t devs;          /* bit i: devices[i] held a handle to it (its
                               contexts may wait on or signal it) */
};

/* A new sync object of p on dev with value initial, and its handle
 * (kapi_create_sync's work). */
int ksync_create(struct kproc *p, struct kdevice *dev, uint64_t initial,
                 uint32_t *hsync);
/* p's handle hsync to s goes (its waits fail); s goes once no process
 * has it open (kapi_destroy_sync). */
void ksync_close(struct kproc *p, uint32_t hsync, struct ksync *s);

#endif /* FW_KERNEL_KSYNC_H */
