// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-info: the device and driver state, as a user sees it: the
 * driver's version, the device's parameters (GET_PARAM), this client's
 * fdinfo, and (as root) the driver's engine state from debugfs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "libcopro.h"

static void cat(const char *path, const char *prefix)
{
    char line[512];
    FILE *f = fopen(path, "r");

    if (!f) {
        return;
    }
    while (fgets(line, sizeof(line), f)) {
        if (!prefix || !strncmp(line, prefix, strlen(prefix))) {
            printf("  %s", line);
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {
        "none", "dma-buffer", "command", "mid-command",
    };
    static const struct { uint32_t p; const char *name; } params[] = {
        { COPRO_PARAM_NUM_ENGINES, "engines" },
        { COPRO_PARAM_VRAM_SIZE, "vram_bytes" },
        { COPRO_PARAM_GPU_TIME, "gpu_time_ns" },
        { COPRO_PARAM_CTX_SWITCH_NS, "ctx_switch_ns" },
        { COPRO_PARAM_JOB_TIMEOUT_MS, "job_timeout_ms" },
    };
    struct copro_dev d;
    drmVersionPtr v;
    char path[64];
    int ret = copro_dev_open(&d, argc > 1 ? argv[1] : NULL);

    if (ret) {
        fprintf(stderr, "copro-info: no copro DRM device (%s)\n",
                strerror(-ret));
        return 1;
    }
    v = drmGetVersion(d.fd);
    printf("driver: %s %d.%d.%d (%s)\n", v->name, v->version_major,
           v->version_minor, v->version_patchlevel, v->desc);
    drmFreeVersion(v);
    for (unsigned i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
        uint64_t val = 0;

        copro_param(&d, params[i].p, &val);
        printf("%s: %" PRIu64 "\n", params[i].name, val);
    }
    printf("preemption: %s\n",
           d.preempt_caps < 4 ? modes[d.preempt_caps] : "?");
    printf("fdinfo:\n");
    snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", d.fd);
    cat(path, "drm-");
    printf("engines (debugfs):\n");
    cat("/sys/kernel/debug/dri/0/copro_engines", NULL);
    copro_dev_close(&d);
    return 0;
}
