// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-run: submit FILL, COPY, RECT and WORK streams and check their
 * results on the CPU.
 *
 *   copro-run [-e ENGINE] [-p low|normal|high] [-n COUNT] OP...
 *     fill:BYTES:PATTERN   FILL a buffer, check every word
 *     copy:BYTES           FILL a source, COPY it, compare
 *     rect:W:H:COLOUR      RECT on an XRGB8888 target, check every pixel
 *     work:NS              WORK, timed by TIMESTAMPs (device ns)
 *
 * Each OP is one job, COUNT times; prints one line per OP and "N passed,
 * N failed". Exit status 1 if a result was wrong or a submit failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcopro.h"
#include "copro/copro_cmd.h"

static struct copro_dev d;

static int words(const void *p, uint64_t bytes, uint32_t v)
{
    const uint32_t *w = p;

    for (uint64_t i = 0; i < bytes / 4; i++) {
        if (w[i] != v) {
            return 0;
        }
    }
    return 1;
}

static int op(uint32_t ctx, uint32_t engine, const char *spec, int iter)
{
    struct copro_bo a = { 0 }, b = { 0 }, ts = { 0 };
    struct copro_cmd c;
    unsigned long long x = 0, y = 0, z = 0;
    int ok = 0, ret;
    uint64_t t0 = copro_gpu_time(&d);

    copro_cmd_init(&c);
    if (copro_bo_new(&d, 4096, &ts) || copro_bo_map(&d, &ts)) {
        return 0;
    }
    if (sscanf(spec, "fill:%llu:%lli", &x, &y) == 2) {
        x &= ~3ull;
        if (copro_bo_new(&d, x, &a) || copro_bo_map(&d, &a)) {
            goto out;
        }
        copro_cmd_fill(&c, &a, 0, x, y + iter);
        ret = copro_run(&d, ctx, engine, &c);
        ok = !ret && words(a.map, x, y + iter);
    } else if (sscanf(spec, "copy:%llu", &x) == 1) {
        x &= ~3ull;
        if (copro_bo_new(&d, x, &a) || copro_bo_map(&d, &a) ||
            copro_bo_new(&d, x, &b) || copro_bo_map(&d, &b)) {
            goto out;
        }
        for (uint64_t i = 0; i < x / 4; i++) {
            ((uint32_t *)a.map)[i] = i * 2654435761u + iter;
        }
        copro_cmd_copy(&c, &b, 0, &a, 0, x);
        ret = copro_run(&d, ctx, engine, &c);
        ok = !ret && !memcmp(a.map, b.map, x);
    } else if (sscanf(spec, "rect:%llu:%llu:%lli", &x, &y, &z) == 3) {
        if (x > 4096 || y > 4096 || !x || !y ||
            copro_bo_new(&d, x * y * 4, &a) || copro_bo_map(&d, &a)) {
            goto out;
        }
        copro_cmd_target(&c, 0, &a, 0, x * 4, x, y, COPRO_FMT_XRGB8888);
        copro_cmd_rect(&c, 0, 0, 0, x, y, z);
        ret = copro_run(&d, ctx, engine, &c);
        ok = !ret && words(a.map, x * y * 4, z);
    } else if (sscanf(spec, "work:%llu", &x) == 1) {
        uint64_t *t = ts.map;

        copro_cmd_timestamp(&c, &ts, 0);
        copro_cmd_work(&c, x);
        copro_cmd_timestamp(&c, &ts, 8);
        ret = copro_run(&d, ctx, engine, &c);
        ok = !ret && t[1] - t[0] >= x;
    } else {
        fprintf(stderr, "copro-run: %s: not an operation\n", spec);
        goto out;
    }
    printf("%s %s: %s (%" PRIu64 " ns of device time, submit to done)\n",
           ok ? "ok" : "FAILED", spec, ok ? "right" : "wrong or refused",
           copro_gpu_time(&d) - t0);
out:
    copro_cmd_fini(&c);
    copro_bo_free(&d, &a);
    copro_bo_free(&d, &b);
    copro_bo_free(&d, &ts);
    return ok;
}

int main(int argc, char **argv)
{
    uint32_t engine = 0, prio = COPRO_CTX_PRIORITY_NORMAL, ctx;
    int count = 1, opt, pass = 0, fail = 0;

    while ((opt = getopt(argc, argv, "e:p:n:")) != -1) {
        switch (opt) {
        case 'e':
            engine = atoi(optarg);
            break;
        case 'p':
            prio = !strcmp(optarg, "low") ? COPRO_CTX_PRIORITY_LOW :
                   !strcmp(optarg, "high") ? COPRO_CTX_PRIORITY_HIGH :
                   COPRO_CTX_PRIORITY_NORMAL;
            break;
        case 'n':
            count = atoi(optarg);
            break;
        default:
            return 2;
        }
    }
    if (optind == argc) {
        fprintf(stderr, "usage: copro-run [-e ENGINE] [-p low|normal|high] "
                "[-n COUNT] fill:BYTES:PATTERN|copy:BYTES|rect:W:H:COLOUR|"
                "work:NS ...\n");
        return 2;
    }
    if (copro_dev_open(&d, NULL) || copro_ctx_new(&d, prio, &ctx)) {
        fprintf(stderr, "copro-run: no device or context: %s\n",
                strerror(errno));
        return 1;
    }
    for (int i = 0; i < count; i++) {
        for (int j = optind; j < argc; j++) {
            if (op(ctx, engine, argv[j], i)) {
                pass++;
            } else {
                fail++;
            }
        }
    }
    printf("%d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
