/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seeded random workloads for the property tests: a GPU (engines,
 * preemption granularity, ring size, upcall latency), a scheduler
 * configuration (policy, quantum, aging, ring depth, TDR limits), a
 * preparation cost, and applications: contexts with priorities whose
 * buffers (real copro packets: WORK, FILL, TIMESTAMP, NOP, then a FILL
 * and a FENCE the checker verifies) arrive in bursts, spread out or
 * periodically; GPU waits on sync objects signalled by other contexts
 * or by the CPU; paging buffers; injected hangs and faults. Contexts are
 * grouped into devices [WDDM's DXGDEVICE: a process's contexts, lost
 * together]: some devices have contexts on several engines, one of them
 * waiting frame by frame on a sibling's signal (the tiled game's
 * geometry and tile pair), and a hang or fault often lands on a device
 * of several contexts.
 *
 * The same seed gives the same workload (and, the simulator being
 * deterministic, the same run).
 */
#ifndef TESTS_SIM_SIM_WORKLOAD_H
#define TESTS_SIM_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_gpu.h"
#include "vidsch/vidsch.h"

#define WL_MAX_CTX      32
#define WL_MAX_BUF      256
#define WL_MAX_OP       (WL_MAX_BUF + 64)
#define WL_MAX_SYNC     8
#define WL_MAX_PKT      6
#define WL_PAGING       0xffff      /* wl_buf.ctx of a paging buffer */

enum wl_op_kind {
    WL_SUBMIT,          /* ctx submits buf */
    WL_PAGING_SUBMIT,   /* buf goes to engine's paging queue */
    WL_WAIT,            /* ctx's later buffers wait for sync >= value */
    WL_SIGNAL,          /* ctx signals sync = value after its buffers */
    WL_CPU_SIGNAL,      /* the CPU writes sync = value */
};

struct wl_op {
    uint64_t at;
    uint8_t kind;
    uint16_t ctx, buf, sync;
    uint64_t value;
};

struct wl_pkt {
    uint8_t op;         /* COPRO_OP_WORK, FILL, TIMESTAMP, NOP */
    uint64_t arg;       /* WORK: ns; FILL: bytes; NOP: dwords */
};

struct wl_buf {
    uint16_t ctx;       /* WL_PAGING for paging buffers */
    uint8_t engine;
    uint8_t npkt;
    struct wl_pkt pkt[WL_MAX_PKT];
    int8_t hang_pkt;    /* packet index an injected hang stops at, or -1 */
    int8_t fault_pkt;   /* packet index an injected fault hits, or -1 */
    uint32_t check_bytes;   /* the checked FILL at its end */
};

struct wl_ctx {
    uint8_t engine;
    uint8_t prio;
    uint8_t device;     /* 1..: its device (vidsch_ctx_set_device); 0:
                           a device of its own */
};

struct workload {
    uint64_t seed;
    struct sim_gpu_config gpu;
    struct vidsch_config vs;
    uint64_t prep_ns, prep_jitter_ns;
    unsigned nctx, nbuf, nop, nsync;
    struct wl_ctx ctx[WL_MAX_CTX];
    struct wl_buf buf[WL_MAX_BUF];
    struct wl_op op[WL_MAX_OP];     /* in time order */
    /* derived, for the checkers' bounds */
    uint64_t max_buf_ns;        /* longest buffer, modelled */
    uint64_t max_pkt_ns;        /* longest packet */
    uint64_t max_paging_ns;
    unsigned npaging, nhang, nfault, nwait;
    unsigned ndevices;          /* devices of two contexts or more */
};

void wl_generate(struct workload *w, uint64_t seed);

/* Modelled duration of one packet or one whole buffer on the device. */
uint64_t wl_pkt_ns(const struct workload *w, const struct wl_pkt *p);
uint64_t wl_buf_ns(const struct workload *w, const struct wl_buf *b);

/* A summary for failure reports. */
void wl_describe(const struct workload *w, FILE *f);

#endif /* TESTS_SIM_SIM_WORKLOAD_H */
