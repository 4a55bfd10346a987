/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/hog.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

_Static_assert(offsetof(struct hog, f) == 0, "frameapp first");

static uint32_t block_pattern(unsigned k)
{
    return (0x01010101u * (0x30u + k)) ^ 0x00ff00ffu;
}

uint32_t hog_cmd_bytes(const struct hog_config *cfg)
{
    uint64_t nwork = cfg->work_packet_ns ?
                     cfg->hog_ns / cfg->work_packet_ns + 1 : 1;
    uint64_t bytes = nwork * COPRO_LEN_WORK * 4 +
                     HOG_BLOCKS * COPRO_LEN_FILL * 4 +
                     (COPRO_LEN_COPY + 2 * COPRO_LEN_TIMESTAMP) * 4 + 64;

    return bytes > COPRO_DMA_MAX ? COPRO_DMA_MAX : (uint32_t)bytes;
}

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct hog *h = (struct hog *)f;
    uint64_t nwork = h->cfg.hog_ns / h->cfg.work_packet_ns;
    uint64_t rest = h->cfg.hog_ns % h->cfg.work_packet_ns;
    uint64_t per_block = nwork / HOG_BLOCKS ? nwork / HOG_BLOCKS : 1;
    unsigned k = 0;

    (void)n;
    for (uint64_t w = 0; w < nwork; w++) {
        umd_work(b, h->cfg.work_packet_ns);
        if ((w + 1) % per_block == 0 && k < HOG_BLOCKS) {
            umd_fill(b, h->hblocks, (uint64_t)k * HOG_BLOCK_BYTES,
                     HOG_BLOCK_BYTES, block_pattern(k));
            k++;
        }
    }
    if (rest) {
        umd_work(b, rest);
    }
    for (; k < HOG_BLOCKS; k++) {
        umd_fill(b, h->hblocks, (uint64_t)k * HOG_BLOCK_BYTES,
                 HOG_BLOCK_BYTES, block_pattern(k));
    }
    umd_copy(b, h->hcopy, 0, h->hblocks, 0,
             (uint64_t)HOG_BLOCKS * HOG_BLOCK_BYTES);
    return true;
}

static void done(struct frameapp *f, uint64_t n)
{
    struct hog *h = (struct hog *)f;
    unsigned s = n % FRAMEAPP_SLOTS;

    if (!h->first_done_ns && f->rec[2 * s + 1] > f->t0) {
        h->first_done_ns = f->rec[2 * s + 1] - f->t0;
    }
}

static uint64_t count_bad(volatile const uint32_t *w)
{
    uint64_t bad = 0;

    for (unsigned k = 0; k < HOG_BLOCKS; k++) {
        for (unsigned i = 0; i < HOG_BLOCK_BYTES / 4; i++) {
            bad += w[k * HOG_BLOCK_BYTES / 4 + i] != block_pattern(k);
        }
    }
    return bad;
}

static void check(struct app *a, struct report *r)
{
    struct hog *h = (struct hog *)a;
    volatile void *blocks = NULL, *copy = NULL;
    uint64_t bad_blocks, bad_copy;
    int st = kapi_lock(a->proc, h->hblocks, KAPI_LOCK_DONOTWAIT, &blocks);

    if (st == DDI_OK) {
        st = kapi_lock(a->proc, h->hcopy, KAPI_LOCK_DONOTWAIT, &copy);
    }
    if (!report(r, st == DDI_OK, "%s: outputs locked once drained (%s)",
                a->name, ddi_status_name(st))) {
        return;
    }
    if (a->completed == 0) {
        report(r, false, "%s: no buffer completed (%lu submitted)", a->name,
               a->submitted);
        return;
    }
    bad_blocks = count_bad(blocks);
    bad_copy = count_bad(copy);
    kapi_unlock(a->proc, h->hblocks);
    kapi_unlock(a->proc, h->hcopy);
    report(r, bad_blocks == 0 && bad_copy == 0 &&
           a->completed == a->submitted, "%s: %lu of %lu buffers of %lu ms "
           "completed; FILL blocks (%lu words wrong) and their COPY (%lu) "
           "as expected", a->name, a->completed, a->submitted,
           h->cfg.hog_ns / 1000000, bad_blocks, bad_copy);
}

static const struct app_ops hog_ops = {
    .start = frameapp_start,
    .stop = frameapp_stop,
    .check = check,
};

int hog_init(struct hog *h, struct kernel *k, const char *name,
             const struct hog_config *cfg, uint32_t *cmd, uint32_t cmd_bytes)
{
    struct frameapp_config fc = {
        .period_ns = 0, .deadline_ns = 0, .depth = 1,
        .max_frames = cfg->max_buffers,
    };
    struct app *a = &h->f.app;
    int st;

    h->cfg = *cfg;
    if (!h->cfg.work_packet_ns) {
        h->cfg.work_packet_ns = 1000000;
    }
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, cfg->prio, &hog_ops);
    if (st == DDI_OK) {
        st = frameapp_init(&h->f, &fc, build, done, cmd, cmd_bytes);
    }
    if (st != DDI_OK) {
        return st;
    }
    h->hblocks = app_alloc(a, HOG_BLOCKS * HOG_BLOCK_BYTES, true);
    h->hcopy = app_alloc(a, HOG_BLOCKS * HOG_BLOCK_BYTES, true);
    return h->hblocks && h->hcopy ? DDI_OK : a->fail_status;
}
