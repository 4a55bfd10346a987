/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_workload.h"

#include <stdlib.h>
#include <string.h>

#include "sim_host.h"

#define US  1000ull
#define MS  1000000ull

/* The copy engine's buffers get their time from FILLs of a scratch area
 * this large (a FILL of 4 MiB takes 244 us at 16 GiB/s). */
#define SCRATCH_BYTES   (4u << 20)

uint64_t wl_pkt_ns(const struct workload *w, const struct wl_pkt *p)
{
    uint64_t chunks, ns = w->gpu.packet_ns;

    switch (p->op) {
    case COPRO_OP_WORK:
        return ns + p->arg;
    case COPRO_OP_FILL:
        chunks = p->arg / SIM_CHUNK_BYTES;
        ns += chunks * (SIM_CHUNK_BYTES * 1000000000ull / w->gpu.fill_bw);
        return ns + (p->arg % SIM_CHUNK_BYTES) * 1000000000ull /
                    w->gpu.fill_bw;
    default:
        return ns;
    }
}

uint64_t wl_buf_ns(const struct workload *w, const struct wl_buf *b)
{
    struct wl_pkt check = { .op = COPRO_OP_FILL, .arg = b->check_bytes };
    uint64_t ns = wl_pkt_ns(w, &check) + w->gpu.packet_ns;  /* + FENCE */

    for (unsigned i = 0; i < b->npkt; i++) {
        ns += wl_pkt_ns(w, &b->pkt[i]);
    }
    return ns;
}

static uint64_t pick(uint64_t *r, const uint64_t *v, unsigned n)
{
    return v[sim_rand(r) % n];
}

static bool chance(uint64_t *r, unsigned percent)
{
    return sim_rand(r) % 100 < percent;
}

/* A buffer's packets: about target_ns of work for its engine. */
static void make_packets(struct workload *w, uint64_t *r, struct wl_buf *b,
                         uint64_t target_ns, bool copy_engine)
{
    unsigned n = (unsigned)sim_rand_range(r, 1, WL_MAX_PKT);
    uint64_t left = target_ns;

    b->npkt = 0;
    for (unsigned i = 0; i < n; i++) {
        struct wl_pkt *p = &b->pkt[b->npkt++];
        uint64_t share = i + 1 == n ? left : left / 2;
        unsigned kind = sim_rand(r) % 10;

        if (kind == 0) {
            p->op = COPRO_OP_NOP;
            p->arg = sim_rand_range(r, 1, 4);
        } else if (kind == 1) {
            p->op = COPRO_OP_TIMESTAMP;
        } else if (copy_engine || kind == 2) {
            uint64_t bytes = share * w->gpu.fill_bw / 1000000000ull;

            p->op = COPRO_OP_FILL;
            bytes &= ~3ull;
            if (bytes > SCRATCH_BYTES) {
                bytes = SCRATCH_BYTES;
            }
            p->arg = bytes ? bytes : 4;
            left -= share < left ? share : left;
        } else {
            p->op = COPRO_OP_WORK;
            p->arg = share;
            left -= share;
        }
    }
    b->check_bytes = 4 * (uint32_t)sim_rand_range(r, 1, 256);
}

/* Inserts op keeping time order (stable: after ops at the same time). */
static void add_op(struct workload *w, struct wl_op op)
{
    unsigned i = w->nop;

    if (w->nop == WL_MAX_OP) {
        return;
    }
    while (i > 0 && w->op[i - 1].at > op.at) {
        w->op[i] = w->op[i - 1];
        i--;
    }
    w->op[i] = op;
    w->nop++;
}

/* Ctx j's buffers wait, one by one, on ctx i's (i < j: no cycle): buffer
 * m of j for the signal ctx i gives after its buffer m, as a tile pass
 * waits for its scene's geometry. */
static void pair_waits(struct workload *w, const uint16_t *first_buf,
                       const uint64_t *submit_at, unsigned i, unsigned j)
{
    unsigned nbi = first_buf[i + 1] - first_buf[i];
    unsigned nbj = first_buf[j + 1] - first_buf[j];
    unsigned n = nbi < nbj ? nbi : nbj;
    uint16_t sync = (uint16_t)w->nsync;

    if (w->nsync == WL_MAX_SYNC || w->nop + 2 * n > WL_MAX_OP) {
        return;
    }
    w->nsync++;
    for (unsigned m = 0; m < n; m++) {
        uint64_t tj = submit_at[first_buf[j] + m];

        add_op(w, (struct wl_op){ .at = tj ? tj - 1 : 0, .kind = WL_WAIT,
                                  .ctx = (uint16_t)j, .sync = sync,
                                  .value = m + 1 });
        add_op(w, (struct wl_op){ .at = submit_at[first_buf[i] + m],
                                  .kind = WL_SIGNAL, .ctx = (uint16_t)i,
                                  .sync = sync, .value = m + 1 });
        w->nwait++;
    }
}

/*
 * Devices, drawn from a generator of their own (the rest of a seed's
 * workload stays what it was): a context shares its device with one or
 * two later ones, on another engine first when there is one; the second
 * often waits frame by frame on the first one's signal (a geometry and
 * tile pair); and a hang or fault often lands on the device (on the
 * signaller half the time), so that its loss takes the others with it.
 */
static void make_devices(struct workload *w, const uint16_t *first_buf,
                         const uint64_t *submit_at)
{
    uint64_t r = (w->seed * 0x9e3779b97f4a7c15ull) ^ 0xde71ce5ull;

    if (w->nctx < 2 || !chance(&r, 70)) {
        return;
    }
    for (unsigned i = 0; i < w->nctx; i++) {
        unsigned member[3] = { i }, n = 1;
        unsigned want = (unsigned)sim_rand_range(&r, 2, 3);
        uint8_t dev = (uint8_t)(w->ndevices + 1);

        if (w->ctx[i].device || !chance(&r, 60)) {
            continue;
        }
        w->ctx[i].device = dev;
        for (unsigned pass = 0; pass < 2; pass++) {
            for (unsigned j = i + 1; j < w->nctx && n < want; j++) {
                bool other = w->ctx[j].engine != w->ctx[i].engine;

                if (!w->ctx[j].device && other == !pass &&
                    chance(&r, 70)) {
                    w->ctx[j].device = dev;
                    member[n++] = j;
                }
            }
        }
        if (n < 2) {
            w->ctx[i].device = 0;
            continue;
        }
        w->ndevices++;
        /* mostly across engines, as the geometry and tile engines are
         * (on one engine the lent level of priority inheritance has
         * corners of its own, which the other waits exercise) */
        if (chance(&r, w->ctx[member[1]].engine != w->ctx[i].engine
                       ? 70 : 15)) {
            pair_waits(w, first_buf, submit_at, i, member[1]);
        }
        if (chance(&r, 25)) {
            unsigned c = chance(&r, 50) ? i
                         : member[sim_rand(&r) % n];
            unsigned nb = first_buf[c + 1] - first_buf[c];
            struct wl_buf *b = &w->buf[first_buf[c] +
                                       (unsigned)(sim_rand(&r) % nb)];

            if (b->hang_pkt < 0 && b->fault_pkt < 0) {
                if (chance(&r, 50)) {
                    b->fault_pkt = (int8_t)(sim_rand(&r) % (b->npkt + 1));
                    w->nfault++;
                } else {
                    b->hang_pkt = (int8_t)(sim_rand(&r) % (b->npkt + 1));
                    w->nhang++;
                }
            }
        }
    }
}

void wl_generate(struct workload *w, uint64_t seed)
{
    static const uint64_t rings[] = { 4, 8, 16, 64 };
    uint64_t r = seed * 0x2545f4914f6cdd1dull + 1;
    uint64_t horizon;
    uint16_t first_buf[WL_MAX_CTX + 1];
    uint64_t submit_at[WL_MAX_BUF];

    memset(w, 0, sizeof(*w));
    w->seed = seed;
    sim_rand(&r);

    /* the GPU */
    sim_gpu_config_default(&w->gpu);
    w->gpu.engines = chance(&r, 60) ? 1 : 2;
    w->gpu.preemption = (unsigned)(sim_rand(&r) % 4);
    w->gpu.ring_entries = (uint32_t)pick(&r, rings, 4);
    w->gpu.upcall_ns = chance(&r, 50) ? 0 : sim_rand_range(&r, 1, 5 * US);
    w->gpu.ctx_state_size = chance(&r, 20) ? 0 : 256 * 1024;
    w->gpu.mem_size = 8 << 20;

    /* the scheduler */
    vidsch_config_default(&w->vs);
    w->vs.policy = (enum vidsch_policy)(sim_rand(&r) % 3);
    w->vs.quantum_ns = sim_rand_range(&r, 200 * US, 3 * MS);
    w->vs.aging_ns = sim_rand_range(&r, 4 * MS, 30 * MS);
    w->vs.ring_depth = chance(&r, 50) ? 0 : (unsigned)sim_rand_range(&r, 1, 3);
    w->vs.tdr_timeout_ns = 25 * MS;
    w->vs.tdr_grace_ns = sim_rand_range(&r, 2 * MS, 8 * MS);
    w->vs.tdr_limit = (unsigned)sim_rand_range(&r, 1, 3);
    w->vs.tdr_window_ns = 200 * MS;
    w->vs.sync_poll_ns = 1 * MS;
    w->vs.max_contexts = WL_MAX_CTX;
    w->vs.max_buffers = 512;
    w->prep_ns = chance(&r, 20) ? 0 : sim_rand_range(&r, 1 * US, 40 * US);
    w->prep_jitter_ns = chance(&r, 50) ? 0 : sim_rand_range(&r, 1, 20 * US);

    /* the applications */
    w->nctx = (unsigned)(chance(&r, 10) ? sim_rand_range(&r, 13, 24)
                                        : sim_rand_range(&r, 1, 12));
    horizon = sim_rand_range(&r, 2 * MS, 40 * MS);
    for (unsigned c = 0; c < w->nctx; c++) {
        unsigned nb = (unsigned)sim_rand_range(&r, 1, 10);
        unsigned pattern = (unsigned)(sim_rand(&r) % 3);
        uint64_t t = sim_rand_range(&r, 0, horizon / 2);
        uint64_t period = sim_rand_range(&r, 200 * US, 8 * MS);
        uint64_t len_ns = sim_rand_range(&r, 5 * US, 2 * MS);

        w->ctx[c].engine = (uint8_t)(w->gpu.engines > 1 && chance(&r, 30));
        w->ctx[c].prio = (uint8_t)(sim_rand(&r) % VIDSCH_PRIO_COUNT);
        first_buf[c] = (uint16_t)w->nbuf;
        for (unsigned i = 0; i < nb && w->nbuf < WL_MAX_BUF - 8; i++) {
            struct wl_buf *b = &w->buf[w->nbuf];
            uint64_t ns = chance(&r, 70) ? len_ns
                          : sim_rand_range(&r, 5 * US, 2500 * US);

            b->ctx = (uint16_t)c;
            b->engine = w->ctx[c].engine;
            b->hang_pkt = b->fault_pkt = -1;
            make_packets(w, &r, b, ns, b->engine == COPRO_ENGINE_COPY);
            submit_at[w->nbuf] = t;
            add_op(w, (struct wl_op){ .at = t, .kind = WL_SUBMIT,
                                      .ctx = (uint16_t)c,
                                      .buf = (uint16_t)w->nbuf });
            w->nbuf++;
            switch (pattern) {
            case 0:     /* a burst */
                t += sim_rand_range(&r, 0, 50 * US);
                break;
            case 1:     /* spread out */
                t += sim_rand_range(&r, 0, horizon / 4);
                break;
            default:    /* periodic, a frame at a time */
                t += period;
                break;
            }
        }
    }
    first_buf[w->nctx] = (uint16_t)w->nbuf;

    /* waits: context j's later buffers wait for a sync object that a
     * context i < j (or the CPU) signals: no cycle, so no deadlock */
    if (w->nctx > 1 && chance(&r, 30)) {
        w->nsync = (unsigned)sim_rand_range(&r, 1, 3);
        for (unsigned k = 0; k < w->nsync; k++) {
            unsigned j = (unsigned)sim_rand_range(&r, 1, w->nctx - 1);
            unsigned i = (unsigned)sim_rand_range(&r, 0, j - 1);
            unsigned nbj = first_buf[j + 1] - first_buf[j];
            unsigned nbi = first_buf[i + 1] - first_buf[i];
            unsigned bj = first_buf[j] + (unsigned)(sim_rand(&r) % nbj);
            unsigned bi = first_buf[i] + (unsigned)(sim_rand(&r) % nbi);

            /* the wait goes in just before buffer bj is submitted */
            add_op(w, (struct wl_op){ .at = submit_at[bj] ? submit_at[bj] - 1
                                                          : 0,
                                      .kind = WL_WAIT, .ctx = (uint16_t)j,
                                      .sync = (uint16_t)k, .value = 1 });
            if (chance(&r, 75)) {
                add_op(w, (struct wl_op){ .at = submit_at[bi],
                                          .kind = WL_SIGNAL,
                                          .ctx = (uint16_t)i,
                                          .sync = (uint16_t)k, .value = 1 });
            } else {
                add_op(w, (struct wl_op){
                    .at = sim_rand_range(&r, 0, horizon),
                    .kind = WL_CPU_SIGNAL, .sync = (uint16_t)k, .value = 1 });
            }
            w->nwait++;
        }
    }

    /* paging buffers (never preempted, first after a stop) */
    if (chance(&r, 25)) {
        unsigned n = (unsigned)sim_rand_range(&r, 1, 4);

        for (unsigned k = 0; k < n && w->nbuf < WL_MAX_BUF; k++) {
            struct wl_buf *b = &w->buf[w->nbuf];

            b->ctx = WL_PAGING;
            b->engine = (uint8_t)(sim_rand(&r) % w->gpu.engines);
            b->hang_pkt = b->fault_pkt = -1;
            make_packets(w, &r, b, sim_rand_range(&r, 1 * US, 300 * US),
                         true);
            add_op(w, (struct wl_op){ .at = sim_rand_range(&r, 0, horizon),
                                      .kind = WL_PAGING_SUBMIT,
                                      .buf = (uint16_t)w->nbuf });
            w->nbuf++;
            w->npaging++;
        }
    }

    /* injected hangs and faults (render and copy buffers, not paging) */
    if (chance(&r, 15)) {
        w->nhang = (unsigned)sim_rand_range(&r, 1, 3);
        for (unsigned k = 0; k < w->nhang; k++) {
            struct wl_buf *b = &w->buf[sim_rand(&r) % first_buf[w->nctx]];

            b->hang_pkt = (int8_t)(sim_rand(&r) % (b->npkt + 1));
        }
    }
    if (chance(&r, 10)) {
        w->nfault = (unsigned)sim_rand_range(&r, 1, 2);
        for (unsigned k = 0; k < w->nfault; k++) {
            struct wl_buf *b = &w->buf[sim_rand(&r) % first_buf[w->nctx]];

            b->fault_pkt = (int8_t)(sim_rand(&r) % (b->npkt + 1));
        }
    }

    make_devices(w, first_buf, submit_at);

    for (unsigned i = 0; i < w->nbuf; i++) {
        uint64_t ns = wl_buf_ns(w, &w->buf[i]);

        if (w->buf[i].ctx == WL_PAGING && ns > w->max_paging_ns) {
            w->max_paging_ns = ns;
        }
        if (ns > w->max_buf_ns) {
            w->max_buf_ns = ns;
        }
        for (unsigned k = 0; k < w->buf[i].npkt; k++) {
            uint64_t p = wl_pkt_ns(w, &w->buf[i].pkt[k]);

            if (p > w->max_pkt_ns) {
                w->max_pkt_ns = p;
            }
        }
    }
}

void wl_describe(const struct workload *w, FILE *f)
{
    static const char *const gran[] = {
        "none", "dma-buffer", "command", "mid-command",
    };

    fprintf(f, "# workload %llu: %u engine(s), preempt=%s, ring %u, "
            "policy=%s quantum=%lluus aging=%llums depth=%u tdr_limit=%u, "
            "prep %llu+%lluns, upcall %lluns, ctx-state %llu\n",
            (unsigned long long)w->seed, w->gpu.engines,
            gran[w->gpu.preemption], w->gpu.ring_entries,
            vidsch_policy_name(w->vs.policy),
            (unsigned long long)(w->vs.quantum_ns / US),
            (unsigned long long)(w->vs.aging_ns / MS), w->vs.ring_depth,
            w->vs.tdr_limit, (unsigned long long)w->prep_ns,
            (unsigned long long)w->prep_jitter_ns,
            (unsigned long long)w->gpu.upcall_ns,
            (unsigned long long)w->gpu.ctx_state_size);
    fprintf(f, "#   %u contexts, %u buffers (%u paging), %u waits, %u hangs, "
            "%u faults, %u devices of several contexts, longest buffer "
            "%lluus\n", w->nctx, w->nbuf, w->npaging, w->nwait, w->nhang,
            w->nfault, w->ndevices,
            (unsigned long long)(w->max_buf_ns / US));
    for (unsigned c = 0; c < w->nctx; c++) {
        fprintf(f, "#   ctx %u (id %u): engine %u %s device %u\n", c, c + 1,
                w->ctx[c].engine, vidsch_priority_name(w->ctx[c].prio),
                w->ctx[c].device);
    }
}
