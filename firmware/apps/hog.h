/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hog: a low-priority application (BELOW_NORMAL or IDLE) whose one
 * buffer is seconds of WORK, in packets of work_packet_ns with a FILL of
 * one of 16 blocks after every 16th of them, then a COPY of all the
 * blocks and the end timestamp. Buffers follow each other (max_buffers,
 * 0: until stopped). Checked by content: the blocks and their copy hold
 * the patterns, which shows a preempted-and-resumed buffer neither lost
 * nor repeated a step.
 */
#ifndef FW_APPS_HOG_H
#define FW_APPS_HOG_H

#include <stdint.h>

#include "apps/frameapp.h"

#define HOG_BLOCKS          16
#define HOG_BLOCK_BYTES     4096u

struct hog_config {
    enum vidsch_priority prio;
    uint64_t hog_ns;            /* WORK per buffer */
    uint64_t work_packet_ns;
    uint64_t max_buffers;       /* 0: until stopped */
};

struct hog {
    struct frameapp f;          /* first */
    struct hog_config cfg;
    uint32_t hblocks, hcopy;
    uint64_t first_done_ns;     /* end of the first buffer - start, 0 */
    uint32_t *cmd;
    uint32_t cmd_bytes;
};

/* cmd: storage for the command buffer, hog_cmd_bytes(cfg) bytes. */
uint32_t hog_cmd_bytes(const struct hog_config *cfg);
int hog_init(struct hog *h, struct kernel *k, const char *name,
             const struct hog_config *cfg, uint32_t *cmd, uint32_t cmd_bytes);

static inline struct app *hog_app(struct hog *h)
{
    return &h->f.app;
}

#endif /* FW_APPS_HOG_H */
