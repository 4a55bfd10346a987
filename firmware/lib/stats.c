/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/stats.h"

void stats_sort_u64(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = v[i];
        unsigned j = i;

        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

uint64_t stats_percentile(const uint64_t *sorted, unsigned n, unsigned pct)
{
    uint64_t rank;

    if (n == 0) {
        return 0;
    }
    if (pct == 0) {
        pct = 1;
    }
    if (pct > 100) {
        pct = 100;
    }
    rank = ((uint64_t)pct * n + 99) / 100;     /* ceil(pct/100 * n) */
    return sorted[rank ? rank - 1 : 0];
}
