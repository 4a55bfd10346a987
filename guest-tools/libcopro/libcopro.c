// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libcopro: see libcopro.h.
 */
#include "libcopro.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "copro/copro_cmd.h"

static int io(struct copro_dev *d, unsigned long req, void *arg)
{
    return drmIoctl(d->fd, req, arg) ? -errno : 0;
}

int copro_dev_open(struct copro_dev *d, const char *path)
{
    static const char *const paths[] = {
        "/dev/dri/renderD128", "/dev/dri/card0",
    };
    drmVersionPtr v;

    memset(d, 0, sizeof(*d));
    d->fd = -1;
    for (unsigned i = 0; i < 2 && d->fd < 0; i++) {
        const char *p = path ? path : paths[i];

        d->fd = open(p, O_RDWR | O_CLOEXEC);
        if (d->fd < 0) {
            continue;
        }
        v = drmGetVersion(d->fd);
        if (!v || strcmp(v->name, "copro")) {
            close(d->fd);
            d->fd = -1;
        }
        drmFreeVersion(v);
        if (path) {
            break;
        }
    }
    if (d->fd < 0) {
        return -ENODEV;
    }
    uint64_t val = 0;
    copro_param(d, COPRO_PARAM_NUM_ENGINES, &val);
    d->engines = val;
    copro_param(d, COPRO_PARAM_PREEMPT_CAPS, &val);
    d->preempt_caps = val;
    return 0;
}

void copro_dev_close(struct copro_dev *d)
{
    if (d->fd >= 0) {
        close(d->fd);
    }
    d->fd = -1;
}

int copro_param(struct copro_dev *d, uint32_t param, uint64_t *value)
{
    struct drm_copro_get_param a = { .param = param };
    int ret = io(d, DRM_IOCTL_COPRO_GET_PARAM, &a);

    *value = a.value;
    return ret;
}

uint64_t copro_gpu_time(struct copro_dev *d)
{
    uint64_t t = 0;

    copro_param(d, COPRO_PARAM_GPU_TIME, &t);
    return t;
}

int copro_bo_new(struct copro_dev *d, uint64_t size, struct copro_bo *bo)
{
    return copro_bo_new_flags(d, size, 0, bo);
}

int copro_bo_new_flags(struct copro_dev *d, uint64_t size, uint32_t flags,
                       struct copro_bo *bo)
{
    struct drm_copro_gem_create a = { .size = size, .flags = flags };
    int ret = io(d, DRM_IOCTL_COPRO_GEM_CREATE, &a);

    memset(bo, 0, sizeof(*bo));
    if (ret) {
        return ret;
    }
    bo->handle = a.handle;
    bo->size = (size + 4095) & ~4095ull;
    return 0;
}

int copro_bo_export(struct copro_dev *d, const struct copro_bo *bo, int *fd)
{
    return drmPrimeHandleToFD(d->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR, fd)
           ? -errno : 0;
}

int copro_bo_import(struct copro_dev *d, int fd, struct copro_bo *bo)
{
    struct drm_copro_gem_info a = { 0 };
    int ret;

    memset(bo, 0, sizeof(*bo));
    if (drmPrimeFDToHandle(d->fd, fd, &bo->handle)) {
        return -errno;
    }
    a.handle = bo->handle;
    ret = io(d, DRM_IOCTL_COPRO_GEM_INFO, &a);
    if (ret) {
        return ret;
    }
    bo->size = a.size;
    return 0;
}

int copro_bo_map(struct copro_dev *d, struct copro_bo *bo)
{
    struct drm_copro_gem_info a = { .handle = bo->handle };
    void *p;
    int ret = io(d, DRM_IOCTL_COPRO_GEM_INFO, &a);

    if (ret) {
        return ret;
    }
    p = mmap(NULL, a.size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
             a.mmap_offset);
    if (p == MAP_FAILED) {
        return -errno;
    }
    bo->map = p;
    bo->size = a.size;
    return 0;
}

void copro_bo_free(struct copro_dev *d, struct copro_bo *bo)
{
    struct drm_gem_close a = { .handle = bo->handle };

    if (bo->map) {
        munmap(bo->map, bo->size);
    }
    if (bo->handle) {
        io(d, DRM_IOCTL_GEM_CLOSE, &a);
    }
    memset(bo, 0, sizeof(*bo));
}

int copro_ctx_new(struct copro_dev *d, uint32_t priority, uint32_t *ctx)
{
    struct drm_copro_ctx_create a = { .priority = priority };
    int ret = io(d, DRM_IOCTL_COPRO_CTX_CREATE, &a);

    *ctx = a.handle;
    return ret;
}

int copro_ctx_free(struct copro_dev *d, uint32_t ctx)
{
    struct drm_copro_ctx_destroy a = { .handle = ctx };

    return io(d, DRM_IOCTL_COPRO_CTX_DESTROY, &a);
}

int copro_ctx_query(struct copro_dev *d, uint32_t ctx,
                    struct drm_copro_ctx_query *q)
{
    memset(q, 0, sizeof(*q));
    q->handle = ctx;
    return io(d, DRM_IOCTL_COPRO_CTX_QUERY, q);
}

void copro_cmd_init(struct copro_cmd *c)
{
    memset(c, 0, sizeof(*c));
}

void copro_cmd_reset(struct copro_cmd *c)
{
    c->n = 0;
    c->nbo = 0;
    c->err = 0;
}

void copro_cmd_fini(struct copro_cmd *c)
{
    free(c->dw);
    memset(c, 0, sizeof(*c));
}

uint32_t copro_cmd_bo(struct copro_cmd *c, const struct copro_bo *bo,
                      int write)
{
    uint32_t i;

    for (i = 0; i < c->nbo; i++) {
        if (c->bos[i].handle == bo->handle) {
            break;
        }
    }
    if (i == c->nbo) {
        if (c->nbo == COPRO_SUBMIT_MAX_BOS) {
            c->err = -ENOSPC;
            return 0;
        }
        c->bos[c->nbo++] = (struct drm_copro_bo_ref){ .handle = bo->handle };
    }
    if (write) {
        c->bos[i].flags |= COPRO_BO_WRITE;
    }
    return i;
}

void copro_cmd_raw(struct copro_cmd *c, const uint32_t *dw, uint32_t n)
{
    if (c->n + n > c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 256;
        uint32_t *p;

        while (cap < c->n + n) {
            cap *= 2;
        }
        p = realloc(c->dw, cap * 4);
        if (!p) {
            c->err = -ENOMEM;
            return;
        }
        c->dw = p;
        c->cap = cap;
    }
    memcpy(c->dw + c->n, dw, n * 4);
    c->n += n;
}

#define LO(v) ((uint32_t)(v))
#define HI(v) ((uint32_t)((uint64_t)(v) >> 32))

static uint64_t addr(struct copro_cmd *c, const struct copro_bo *bo,
                     uint32_t off, int write)
{
    return COPRO_ADDR(copro_cmd_bo(c, bo, write), off);
}

void copro_cmd_nop(struct copro_cmd *c)
{
    uint32_t p[] = { COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1) };

    copro_cmd_raw(c, p, 1);
}

void copro_cmd_fill(struct copro_cmd *c, const struct copro_bo *bo,
                    uint32_t off, uint64_t size, uint32_t pattern)
{
    uint64_t a = addr(c, bo, off, 1);
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL), LO(a), HI(a),
        LO(size), HI(size), pattern,
    };

    copro_cmd_raw(c, p, COPRO_LEN_FILL);
}

void copro_cmd_copy(struct copro_cmd *c, const struct copro_bo *dst,
                    uint32_t doff, const struct copro_bo *src, uint32_t soff,
                    uint64_t size)
{
    uint64_t s = addr(c, src, soff, 0);
    uint64_t a = addr(c, dst, doff, 1);
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY), LO(a), HI(a),
        LO(s), HI(s), LO(size), HI(size),
    };

    copro_cmd_raw(c, p, COPRO_LEN_COPY);
}

void copro_cmd_target(struct copro_cmd *c, uint32_t slot,
                      const struct copro_bo *bo, uint32_t off, uint32_t pitch,
                      uint32_t width, uint32_t height, uint32_t format)
{
    uint64_t a = addr(c, bo, off, 1);
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_SET_TARGET, slot, COPRO_LEN_SET_TARGET),
        LO(a), HI(a), pitch, width, height, format,
    };

    copro_cmd_raw(c, p, COPRO_LEN_SET_TARGET);
}

void copro_cmd_rect(struct copro_cmd *c, uint32_t slot, uint32_t x,
                    uint32_t y, uint32_t w, uint32_t h, uint32_t colour)
{
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_RECT, slot, COPRO_LEN_RECT), x, y, w, h,
        colour,
    };

    copro_cmd_raw(c, p, COPRO_LEN_RECT);
}

void copro_cmd_work(struct copro_cmd *c, uint64_t ns)
{
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK), LO(ns), HI(ns),
    };

    copro_cmd_raw(c, p, COPRO_LEN_WORK);
}

void copro_cmd_timestamp(struct copro_cmd *c, const struct copro_bo *bo,
                         uint32_t off)
{
    uint64_t a = addr(c, bo, off, 1);
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0, COPRO_LEN_TIMESTAMP), LO(a),
        HI(a),
    };

    copro_cmd_raw(c, p, COPRO_LEN_TIMESTAMP);
}

void copro_cmd_fence(struct copro_cmd *c, const struct copro_bo *bo,
                     uint32_t off, uint64_t value)
{
    uint64_t a = addr(c, bo, off, 1);
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_FENCE, 0, COPRO_LEN_FENCE), LO(a), HI(a),
        LO(value), HI(value),
    };

    copro_cmd_raw(c, p, COPRO_LEN_FENCE);
}

void copro_cmd_wait(struct copro_cmd *c, const struct copro_bo *bo,
                    uint32_t off, uint64_t value)
{
    uint64_t a = addr(c, bo, off, 0);
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_WAIT, 0, COPRO_LEN_WAIT), LO(a), HI(a),
        LO(value), HI(value),
    };

    copro_cmd_raw(c, p, COPRO_LEN_WAIT);
}

static int submit(struct copro_dev *d, struct drm_copro_submit *a,
                  const struct copro_submit_opts *o)
{
    int ret;

    if (o) {
        a->in_syncs = (uintptr_t)o->in;
        a->in_sync_count = o->nin;
        a->out_syncs = (uintptr_t)o->out;
        a->out_sync_count = o->nout;
        if (o->fence_fd) {
            a->flags |= COPRO_SUBMIT_FENCE_FD_OUT;
        }
    }
    ret = io(d, DRM_IOCTL_COPRO_SUBMIT, a);
    if (o && o->bad_offset) {
        *o->bad_offset = a->bad_offset;
    }
    if (!ret && o && o->fence_fd) {
        *o->fence_fd = a->fence_fd;
    }
    return ret;
}

int copro_submit(struct copro_dev *d, uint32_t ctx, uint32_t engine,
                 const struct copro_cmd *c,
                 const struct copro_submit_opts *o)
{
    struct drm_copro_submit a = {
        .ctx = ctx,
        .engine = engine,
        .cmds = (uintptr_t)c->dw,
        .cmds_size = c->n * 4,
        .bo_count = c->nbo,
        .bos = (uintptr_t)c->bos,
    };

    if (c->err) {
        return c->err;
    }
    return submit(d, &a, o);
}

int copro_submit_va(struct copro_dev *d, uint32_t ctx, uint32_t engine,
                    uint64_t va, uint32_t size,
                    const struct copro_submit_opts *o)
{
    struct drm_copro_submit a = {
        .ctx = ctx,
        .engine = engine,
        .cmds = va,
        .cmds_size = size,
        .flags = COPRO_SUBMIT_VA,
    };

    return submit(d, &a, o);
}

int copro_ctx_new_vm(struct copro_dev *d, uint32_t priority, uint32_t *ctx)
{
    struct drm_copro_ctx_create a = {
        .priority = priority,
        .flags = COPRO_CTX_CREATE_VM,
    };
    int ret = io(d, DRM_IOCTL_COPRO_CTX_CREATE, &a);

    *ctx = a.handle;
    return ret;
}

int copro_vm_bind(struct copro_dev *d, const struct drm_copro_vm_bind_op *ops,
                  uint32_t n, uint32_t *failed_op)
{
    struct drm_copro_vm_bind a = {
        .ops = (uintptr_t)ops,
        .op_count = n,
    };
    int ret = io(d, DRM_IOCTL_COPRO_VM_BIND, &a);

    if (failed_op) {
        *failed_op = a.failed_op;
    }
    return ret;
}

int copro_vm_bind_async(struct copro_dev *d,
                        const struct drm_copro_vm_bind_op *ops, uint32_t n,
                        const struct drm_copro_sync *in, uint32_t nin,
                        const struct drm_copro_sync *out, uint32_t nout,
                        uint32_t *failed_op)
{
    struct drm_copro_vm_bind a = {
        .ops = (uintptr_t)ops,
        .op_count = n,
        .flags = COPRO_VM_BIND_ASYNC,
        .in_syncs = (uintptr_t)in,
        .in_sync_count = nin,
        .out_syncs = (uintptr_t)out,
        .out_sync_count = nout,
    };
    int ret = io(d, DRM_IOCTL_COPRO_VM_BIND, &a);

    if (failed_op) {
        *failed_op = a.failed_op;
    }
    return ret;
}

int copro_vm_map(struct copro_dev *d, const struct copro_bo *bo,
                 uint64_t bo_offset, uint64_t va, uint64_t range,
                 uint32_t flags)
{
    struct drm_copro_vm_bind_op op = {
        .op = COPRO_VM_BIND_OP_MAP,
        .flags = flags,
        .handle = bo->handle,
        .bo_offset = bo_offset,
        .va = va,
        .range = range,
    };

    return copro_vm_bind(d, &op, 1, NULL);
}

int copro_vm_unmap(struct copro_dev *d, uint64_t va, uint64_t range)
{
    struct drm_copro_vm_bind_op op = {
        .op = COPRO_VM_BIND_OP_UNMAP,
        .va = va,
        .range = range,
    };

    return copro_vm_bind(d, &op, 1, NULL);
}

void copro_cmd_fill_va(struct copro_cmd *c, uint64_t va, uint64_t size,
                       uint32_t pattern)
{
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL), LO(va), HI(va),
        LO(size), HI(size), pattern,
    };

    copro_cmd_raw(c, p, COPRO_LEN_FILL);
}

void copro_cmd_copy_va(struct copro_cmd *c, uint64_t dst, uint64_t src,
                       uint64_t size)
{
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY), LO(dst), HI(dst),
        LO(src), HI(src), LO(size), HI(size),
    };

    copro_cmd_raw(c, p, COPRO_LEN_COPY);
}

void copro_cmd_target_va(struct copro_cmd *c, uint32_t slot, uint64_t va,
                         uint32_t pitch, uint32_t width, uint32_t height,
                         uint32_t format)
{
    uint32_t p[] = {
        COPRO_PKT_HDR(COPRO_OP_SET_TARGET, slot, COPRO_LEN_SET_TARGET),
        LO(va), HI(va), pitch, width, height, format,
    };

    copro_cmd_raw(c, p, COPRO_LEN_SET_TARGET);
}

int copro_run(struct copro_dev *d, uint32_t ctx, uint32_t engine,
              const struct copro_cmd *c)
{
    struct drm_copro_sync out = { 0 };
    struct copro_submit_opts o = { .out = &out, .nout = 1 };
    int ret = copro_syncobj_new(d, &out.handle);

    if (ret) {
        return ret;
    }
    ret = copro_submit(d, ctx, engine, c, &o);
    if (!ret) {
        ret = copro_syncobj_wait(d, out.handle, 0, INT64_MAX);
    }
    copro_syncobj_free(d, out.handle);
    return ret;
}

int copro_syncobj_new(struct copro_dev *d, uint32_t *h)
{
    return drmSyncobjCreate(d->fd, 0, h) ? -errno : 0;
}

void copro_syncobj_free(struct copro_dev *d, uint32_t h)
{
    drmSyncobjDestroy(d->fd, h);
}

int copro_syncobj_wait(struct copro_dev *d, uint32_t h, uint64_t point,
                       int64_t timeout_ns)
{
    struct timespec ts;
    int64_t abs;
    int ret;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    abs = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    abs = timeout_ns > INT64_MAX - abs ? INT64_MAX : abs + timeout_ns;
    ret = drmSyncobjTimelineWait(d->fd, &h, &point, 1, abs,
                                 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
                                 NULL);
    return ret ? -errno : 0;
}

int copro_syncobj_export(struct copro_dev *d, uint32_t h, int *fd)
{
    return drmSyncobjHandleToFD(d->fd, h, fd) ? -errno : 0;
}

int copro_syncobj_import(struct copro_dev *d, int fd, uint32_t *h)
{
    return drmSyncobjFDToHandle(d->fd, fd, h) ? -errno : 0;
}

int copro_fence_status(int fd)
{
    struct sync_file_info info;

    memset(&info, 0, sizeof(info));
    if (ioctl(fd, SYNC_IOC_FILE_INFO, &info)) {
        return -errno;
    }
    return info.status;
}
