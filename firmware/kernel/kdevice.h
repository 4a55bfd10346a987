/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device (DXGDEVICE): what a process creates contexts, allocations and
 * sync objects on.
 */
#ifndef FW_KERNEL_KDEVICE_H
#define FW_KERNEL_KDEVICE_H

#include <stdbool.h>
#include <stdint.h>

struct kproc;

struct kdevice {
    bool used;
    bool removed;           /* TDR blamed one of its contexts */
    bool lost_told;         /* the process's lost callback ran */
    bool destroyed;         /* handle gone; freed once its contexts are */
    struct kproc *proc;
    unsigned contexts;      /* live context records, destroying ones too */
    bool gpuva;             /* GPU-VA mode: kernel/kgpuva.h */
};

/* A new device of p and its handle (kapi_create_device's work). */
int kdevice_create(struct kproc *p, uint32_t *hdevice);
/* The same in GPU-VA mode (kgpuva.h): its address space is set up. */
int kdevice_create_gpuva(struct kproc *p, uint32_t *hdevice);
/* Destroys dev, p's device by hdevice: its display use, the process's
 * contexts, allocations and sync objects on it (created or opened there),
 * the kernel's own contexts on it; the record goes once nothing names it
 * (kapi_destroy_device's work). */
void kdevice_destroy(struct kproc *p, uint32_t hdevice, struct kdevice *dev);

#endif /* FW_KERNEL_KDEVICE_H */
