/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device (DXGDEVICE): what a process creates contexts, allocations and
 * sync objects on.
 */
#ifndef FW_KERNEL_KDEVICE_H
#define FW_KERNEL_KDEVICE_H

#include <stdbool.h>

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

#endif /* FW_KERNEL_KDEVICE_H */
