/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm's cost on the GPU model (make bench), in virtual time: the same
 * workload (two contexts, buffers that fill pages of 1 to 3 allocations
 * and work 200 us) with working sets of 50%, 110%, 150% and 200% of
 * VRAM; throughput (buffers per second of GPU time, mean over seeds)
 * relative to the 50% run, which never pages. Measurements, never
 * assertions.
 *
 *   bench-vidmm [--seeds=N]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_vidmm.h"

int main(int argc, char **argv)
{
    static const unsigned ws[] = { 50, 110, 150, 200 };
    static struct sim_host host;
    unsigned seeds = 10;
    double base = 0;

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--seeds=", 8)) {
            seeds = (unsigned)strtoul(argv[i] + 8, NULL, 0);
        }
    }
    svm_host_init(&host);
    printf("%-12s %14s %12s %12s %14s %10s\n", "working set", "buffers/s",
           "relative", "evictions", "MiB moved", "paging");
    for (unsigned w = 0; w < sizeof(ws) / sizeof(ws[0]); w++) {
        double tput = 0, ev = 0, moved = 0, pg = 0;

        for (unsigned s = 1; s <= seeds; s++) {
            struct svm_config c = { .seed = s, .ws_pct = ws[w],
                                    .buffers = 40, .work_ns = 200000 };
            struct svm_result r;

            if (!svm_run(&host, &c, &r)) {
                printf("seed %u ws %u%%: %s\n", s, ws[w], r.msg);
                return 1;
            }
            tput += (double)r.buffers * 1e9 / (double)r.gpu_ns;
            ev += (double)r.evictions;
            moved += (double)r.bytes_moved / (1 << 20);
            pg += (double)r.paging_buffers;
        }
        tput /= seeds;
        if (!base) {
            base = tput;
        }
        printf("%10u%% %14.0f %12.3f %12.1f %14.2f %10.1f\n", ws[w], tput,
               tput / base, ev / seeds, moved / seeds, pg / seeds);
    }
    return 0;
}
