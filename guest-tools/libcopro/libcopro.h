/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libcopro: copro's render uapi over libdrm (guest-tools/linux/uapi).
 * Buffers, contexts, command streams built with buffer handles (never
 * GPU addresses: the kernel patches them), submission with sync objects,
 * waits. Every call returns 0 or a negative errno.
 */
#ifndef LIBCOPRO_H
#define LIBCOPRO_H

#include <stddef.h>
#include <stdint.h>

#include "copro_drm.h"

struct copro_dev {
    int fd;
    uint32_t engines;
    uint32_t preempt_caps;
};

struct copro_bo {
    uint32_t handle;
    uint64_t size;
    void *map;                  /* after copro_bo_map */
};

/* a command stream and its buffer list */
struct copro_cmd {
    uint32_t *dw;
    uint32_t n, cap;
    struct drm_copro_bo_ref bos[COPRO_SUBMIT_MAX_BOS];
    uint32_t nbo;
    int err;                    /* a builder call failed (-ENOSPC) */
};

/* what a submission waits for and signals (optional) */
struct copro_submit_opts {
    const struct drm_copro_sync *in;
    uint32_t nin;
    const struct drm_copro_sync *out;
    uint32_t nout;
    int *fence_fd;              /* non-NULL: a sync_file's fd here */
    uint32_t *bad_offset;       /* the refused packet's byte offset */
};

int copro_dev_open(struct copro_dev *d, const char *path);
void copro_dev_close(struct copro_dev *d);
int copro_param(struct copro_dev *d, uint32_t param, uint64_t *value);
uint64_t copro_gpu_time(struct copro_dev *d);

int copro_bo_new(struct copro_dev *d, uint64_t size, struct copro_bo *bo);
/* flags: COPRO_GEM_GTT for a buffer in guest memory (the GART) */
int copro_bo_new_flags(struct copro_dev *d, uint64_t size, uint32_t flags,
                       struct copro_bo *bo);
int copro_bo_map(struct copro_dev *d, struct copro_bo *bo);
/* PRIME: a dma-buf of the buffer (O_RDWR, close-on-exec), and a handle
 * in this file for a dma-buf (its size from GEM_INFO) */
int copro_bo_export(struct copro_dev *d, const struct copro_bo *bo, int *fd);
int copro_bo_import(struct copro_dev *d, int fd, struct copro_bo *bo);
void copro_bo_free(struct copro_dev *d, struct copro_bo *bo);

int copro_ctx_new(struct copro_dev *d, uint32_t priority, uint32_t *ctx);
int copro_ctx_free(struct copro_dev *d, uint32_t ctx);
int copro_ctx_query(struct copro_dev *d, uint32_t ctx,
                    struct drm_copro_ctx_query *q);

void copro_cmd_init(struct copro_cmd *c);
void copro_cmd_reset(struct copro_cmd *c);
void copro_cmd_fini(struct copro_cmd *c);
/* the list index of @bo (added, or upgraded to writable) */
uint32_t copro_cmd_bo(struct copro_cmd *c, const struct copro_bo *bo,
                      int write);
void copro_cmd_raw(struct copro_cmd *c, const uint32_t *dw, uint32_t n);
void copro_cmd_nop(struct copro_cmd *c);
void copro_cmd_fill(struct copro_cmd *c, const struct copro_bo *bo,
                    uint32_t off, uint64_t size, uint32_t pattern);
void copro_cmd_copy(struct copro_cmd *c, const struct copro_bo *dst,
                    uint32_t doff, const struct copro_bo *src, uint32_t soff,
                    uint64_t size);
void copro_cmd_target(struct copro_cmd *c, uint32_t slot,
                      const struct copro_bo *bo, uint32_t off, uint32_t pitch,
                      uint32_t width, uint32_t height, uint32_t format);
void copro_cmd_rect(struct copro_cmd *c, uint32_t slot, uint32_t x,
                    uint32_t y, uint32_t w, uint32_t h, uint32_t colour);
void copro_cmd_work(struct copro_cmd *c, uint64_t ns);
void copro_cmd_timestamp(struct copro_cmd *c, const struct copro_bo *bo,
                         uint32_t off);
void copro_cmd_fence(struct copro_cmd *c, const struct copro_bo *bo,
                     uint32_t off, uint64_t value);
void copro_cmd_wait(struct copro_cmd *c, const struct copro_bo *bo,
                    uint32_t off, uint64_t value);

int copro_submit(struct copro_dev *d, uint32_t ctx, uint32_t engine,
                 const struct copro_cmd *c,
                 const struct copro_submit_opts *o);
/* submit and wait for it (a binary sync object of its own) */
int copro_run(struct copro_dev *d, uint32_t ctx, uint32_t engine,
              const struct copro_cmd *c);

/*
 * GPU VMs (DRM_IOCTL_COPRO_VM_BIND): a context on the file's VM runs
 * command buffers named by GPU VA; the *_va builders put VAs in packets
 * (the stream is then copied into a mapped buffer and submitted by VA).
 */
int copro_ctx_new_vm(struct copro_dev *d, uint32_t priority, uint32_t *ctx);
int copro_vm_bind(struct copro_dev *d, const struct drm_copro_vm_bind_op *ops,
                  uint32_t n, uint32_t *failed_op);
/* COPRO_VM_BIND_ASYNC: after @in, signalling @out */
int copro_vm_bind_async(struct copro_dev *d,
                        const struct drm_copro_vm_bind_op *ops, uint32_t n,
                        const struct drm_copro_sync *in, uint32_t nin,
                        const struct drm_copro_sync *out, uint32_t nout,
                        uint32_t *failed_op);
int copro_vm_map(struct copro_dev *d, const struct copro_bo *bo,
                 uint64_t bo_offset, uint64_t va, uint64_t range,
                 uint32_t flags);
int copro_vm_unmap(struct copro_dev *d, uint64_t va, uint64_t range);
int copro_submit_va(struct copro_dev *d, uint32_t ctx, uint32_t engine,
                    uint64_t va, uint32_t size,
                    const struct copro_submit_opts *o);
void copro_cmd_fill_va(struct copro_cmd *c, uint64_t va, uint64_t size,
                       uint32_t pattern);
void copro_cmd_copy_va(struct copro_cmd *c, uint64_t dst, uint64_t src,
                       uint64_t size);
void copro_cmd_target_va(struct copro_cmd *c, uint32_t slot, uint64_t va,
                         uint32_t pitch, uint32_t width, uint32_t height,
                         uint32_t format);

int copro_syncobj_new(struct copro_dev *d, uint32_t *h);
void copro_syncobj_free(struct copro_dev *d, uint32_t h);
/* wait for @point (0: binary) at most timeout_ns (relative); -ETIME */
int copro_syncobj_wait(struct copro_dev *d, uint32_t h, uint64_t point,
                       int64_t timeout_ns);
/* a sync object shared between files (processes): an fd of it
 * (close-on-exec), and a handle in this file for such an fd */
int copro_syncobj_export(struct copro_dev *d, uint32_t h, int *fd);
int copro_syncobj_import(struct copro_dev *d, int fd, uint32_t *h);
/* a sync_file's status: 1 signalled, 0 pending, < 0 its error */
int copro_fence_status(int fd);

#endif
