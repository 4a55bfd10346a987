/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the device's scheduling log and its queues' write-backs
 * (include/copro/copro_hwsched.h) without trusting them: pure C, so the
 * host unit tests feed it hostile input (tests/unit/test-copro-hwlog.c).
 *
 * Everything here reads memory the device writes (GPU memory, mapped
 * into the CPU): a broken or hostile device may put anything there, and
 * the OS must neither crash nor blame the wrong queue because of it.
 */
#ifndef FW_KMD_COPRO_HWLOG_H
#define FW_KMD_COPRO_HWLOG_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_hwsched.h>

/* What the reader knows of the queues, to judge entries against. */
struct copro_hwlog_view {
    unsigned engines;               /* entries of other engines are bad */
    uint64_t mapped;                /* bit q: slot q is one of ours */
};

struct copro_hwlog_stats {
    uint64_t taken;                 /* entries handed on */
    uint64_t bad;                   /* dropped: kind, engine, band or queue
                                       out of range, or a queue not ours */
    uint64_t overrun;               /* dropped: WPTR more than a ring
                                       ahead of RPTR (lost or lying) */
};

/*
 * Copies the entries in [*rptr, wptr) of a log ring of size entries (a
 * power of two; entry i at i & (size - 1)) into out, at most max, keeping
 * only good ones, and advances *rptr past what it looked at. A wptr more
 * than size ahead of *rptr skips to the last size entries. Returns the
 * number copied.
 */
unsigned copro_hwlog_take(const volatile struct copro_sched_log_entry *ring,
                          uint32_t size, uint32_t *rptr, uint32_t wptr,
                          const struct copro_hwlog_view *v,
                          struct copro_sched_log_entry *out, unsigned max,
                          struct copro_hwlog_stats *st);

/* Is e an entry the OS can use (the checks copro_hwlog_take makes)? */
bool copro_hwlog_entry_ok(const struct copro_sched_log_entry *e,
                          const struct copro_hwlog_view *v);

/*
 * A queue's progress fence as the device wrote it: believed only if it
 * moves forward and does not pass the last fence submitted (a lying
 * device cannot retire work the OS never gave). Returns the value to
 * report, or 0 if nothing new (or not believable).
 */
uint64_t copro_hwlog_progress(uint64_t written, uint64_t reported,
                              uint64_t submitted);

#endif /* FW_KMD_COPRO_HWLOG_H */
