/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: what the parts of one engine's command processor share
 * (copro-engine.c: the loop, submissions, faults, registers;
 * copro-packet.c: the packets, through their table of operations;
 * copro-batch.c: quiet-period batching; copro-engine-state.c: its
 * migration). Not for the rest of the device, which uses copro.h.
 *
 * Copyright (c) 2026 The copro authors
 */
#ifndef HW_COPRO_ENGINE_INTERNAL_H
#define HW_COPRO_ENGINE_INTERNAL_H

#include "qemu/units.h"
#include "qemu/timer.h"
#include "qemu/bswap.h"
#include "copro.h"

#define COPRO_CHUNK_BYTES   (64 * KiB)      /* COPY/FILL/RECT step size */
#define COPRO_WAIT_POLL_NS  (20 * SCALE_US) /* WAIT re-check period */

static inline bool copro_modelled(CoproEngine *e)
{
    return e->dev->timing == COPRO_TIMING_MODELLED;
}

/* the 64-bit field of packet @p at dword @i (low dword first) */
static inline uint64_t dw64(const CoproPacket *p, unsigned i)
{
    return p->dw[i] | ((uint64_t)p->dw[i + 1] << 32);
}

/* an access for the current submission, in its context's address space */
static inline bool copro_mem_read(CoproEngine *e, uint64_t addr, void *buf,
                                  uint64_t len)
{
    return copro_mem_access(e, false, addr, buf, len, false);
}

static inline bool copro_mem_write(CoproEngine *e, uint64_t addr,
                                   const void *buf, uint64_t len)
{
    return copro_mem_access(e, false, addr, (void *)buf, len, true);
}

static inline bool copro_mem_write64(CoproEngine *e, uint64_t addr,
                                     uint64_t val)
{
    uint64_t le = cpu_to_le64(val);

    return copro_mem_write(e, addr, &le, sizeof(le));
}

static inline bool copro_mem_read64(CoproEngine *e, uint64_t addr,
                                    uint64_t *val)
{
    uint64_t le;

    if (!copro_mem_read(e, addr, &le, sizeof(le))) {
        return false;
    }
    *val = le64_to_cpu(le);
    return true;
}

/* copro-packet.c */
bool copro_packet_op_in_range(uint32_t op);
bool copro_packet_fetch(CoproEngine *e);
uint64_t copro_packet_step_cost(CoproEngine *e);
StepResult copro_packet_exec_step(CoproEngine *e);

/* copro-batch.c: quiet-period batching (*horizon < 0: not computed yet) */
bool copro_batch_step(CoproEngine *e, int64_t real, int64_t *horizon,
                      unsigned *batched);
bool copro_batch_catch_up(CoproEngine *e, int64_t now, int64_t real);
int64_t copro_wait_poll_at(CoproEngine *e, int64_t now, int64_t real,
                           int64_t *horizon);

#endif /* HW_COPRO_ENGINE_INTERNAL_H */
