/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Order statistics of latency samples: median, p99, max. Pure C,
 * host-tested (tests/unit/test-stats.c).
 */
#ifndef FW_LIB_STATS_H
#define FW_LIB_STATS_H

#include <stdint.h>

/* Sorts v ascending, in place (insertion sort: the firmware's sample sets
 * are at most a few hundred long). */
void stats_sort_u64(uint64_t *v, unsigned n);

/* The nearest-rank percentile (1..100) of sorted v: the smallest sample
 * such that at least pct % of the samples are <= it. 0 if n == 0. */
uint64_t stats_percentile(const uint64_t *sorted, unsigned n, unsigned pct);

#endif /* FW_LIB_STATS_H */
