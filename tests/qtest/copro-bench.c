/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro emulation throughput benchmark (make bench). Not a test: it asserts
 * nothing about speed, it measures and prints.
 *
 * With timing=instant the engines run as fast as the host can. Host time is
 * measured around a submission, from the doorbell to the completed fence
 * (polled through the qtest socket), and compared with host memcpy measured
 * in the same process, so the ratio means something on a noisy machine.
 *
 * Then the cost of the timeline (docs/specs/copro.rst, "Timeline"): the
 * same NOP and COPY buffers, and batches of one-packet submissions (where
 * the log records the most per unit of work: a start and a retire each),
 * with the log off and on in turn in this one QEMU (QMP
 * x-copro-timeline-set), best of several interleaved runs each.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "copro-qtest.h"

#define RING        0x0
#define RING_SIZE   16
#define BUF         0x10000
#define WB          0x8000
#define SUB_RING    (56 * MiB)      /* engine 1: batches of submissions */
#define SUB_RING_SIZE 4096
#define TL_RUNS     15              /* pairs of runs, log off and on */
#define COPY_PKTS   (40 * MiB)      /* the timeline bench's COPY packets */

/* where copy_rate() puts its packets */
static uint64_t copy_pkts = BUF;

static uint64_t fence_seq;
static unsigned poll_us = 200;      /* between looks at a running buffer */

/* Submit one buffer on engine 0 and return host seconds until it retires. */
static double run_buffer(Copro *c, uint64_t addr, uint32_t len)
{
    struct copro_submit_desc d = {
        .dma_addr = cpu_to_le64(addr),
        .dma_len = cpu_to_le32(len),
        .fence = cpu_to_le64(++fence_seq),
        .flags = cpu_to_le32(COPRO_SUBMIT_NO_IRQ),
    };
    uint32_t tail = erd32(c, 0, COPRO_ENG_RING_TAIL);
    int64_t t0, t1;

    vram_write(c, RING + tail * COPRO_DESC_SIZE, &d, sizeof(d));
    t0 = g_get_monotonic_time();
    ewr32(c, 0, COPRO_ENG_RING_TAIL, (tail + 1) % RING_SIZE);
    while (erd64(c, 0, COPRO_ENG_COMPLETED_FENCE) != fence_seq) {
        g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), !=,
                         COPRO_ENG_STATE_HALTED);
        g_usleep(poll_us);
    }
    t1 = g_get_monotonic_time();
    return (t1 - t0) / 1e6;
}

/*
 * CPU time of QEMU's main thread, ns: under -accel qtest the engines run
 * there (bottom halves). On a shared machine it measures the emulation's
 * work where host time measures its neighbours too.
 */
static int64_t qemu_cpu_ns(Copro *c)
{
    pid_t pid = qtest_pid(c->qts);
    g_autofree char *path = g_strdup_printf("/proc/%d/task/%d/schedstat",
                                            pid, pid);
    g_autofree char *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return g_ascii_strtoll(text, NULL, 10);
}

/*
 * Host memcpy over the same volume and pattern as the device COPY bench:
 * @reps copies of @size bytes back and forth between two buffers, timed
 * as a whole.
 */
static double host_memcpy_rate(size_t size, int reps)
{
    g_autofree uint8_t *a = g_malloc(size);
    g_autofree uint8_t *b = g_malloc(size);
    int64_t t0;
    double s;

    memset(a, 0x5a, size);
    memset(b, 0xa5, size);
    t0 = g_get_monotonic_time();
    for (int r = 0; r < reps; r++) {
        memcpy(r & 1 ? a : b, r & 1 ? b : a, size);
    }
    s = (g_get_monotonic_time() - t0) / 1e6;
    /* keep the copies observable */
    g_assert_cmpuint(a[size / 2] ^ b[size / 3], <=, 0xff);
    return (double)size * reps / s;
}

#define NPKT (COPRO_DMA_MAX / 4)      /* NOPs in the largest buffer */

static void put_nops(Copro *c)
{
    g_autofree uint32_t *buf = g_new(uint32_t, NPKT);

    for (uint32_t i = 0; i < NPKT; i++) {
        buf[i] = cpu_to_le32(COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1));
    }
    vram_write(c, BUF, buf, NPKT * 4);
    run_buffer(c, BUF, 4096);       /* warm up */
}

static void bench_packets(Copro *c)
{
    double s;

    put_nops(c);
    s = run_buffer(c, BUF, NPKT * 4);
    printf("packets: %u NOP packets in %.3f s: %.2f Mpackets/s "
           "(host time, timing=instant)\n", NPKT, s, NPKT / s / 1e6);
}

/*
 * Batches of SUB_RING_SIZE - 1 submissions of one NOP each on engine 1
 * (its ring filled by bench_timeline), a doorbell per batch: submissions
 * retired per second.
 */
static double submission_rate(Copro *c)
{
    const uint32_t n = SUB_RING_SIZE - 1, batches = 16;
    uint64_t done = erd64(c, 1, COPRO_ENG_STAT_SUBMISSIONS);
    uint32_t tail = erd32(c, 1, COPRO_ENG_RING_TAIL);
    int64_t t0 = g_get_monotonic_time();

    for (uint32_t b = 0; b < batches; b++) {
        tail = (tail + n) % SUB_RING_SIZE;
        ewr32(c, 1, COPRO_ENG_RING_TAIL, tail);
        done += n;
        while (erd64(c, 1, COPRO_ENG_STAT_SUBMISSIONS) < done) {
            g_assert_cmpuint(erd32(c, 1, COPRO_ENG_STATE), !=,
                             COPRO_ENG_STATE_HALTED);
            g_usleep(poll_us);
        }
    }
    return batches * n / ((g_get_monotonic_time() - t0) / 1e6);
}

static void timeline_set(Copro *c, bool on)
{
    qtest_qmp_assert_success(c->qts, "{ 'execute': 'x-copro-timeline-set', "
                             "'arguments': { 'enable': %i } }", on);
}

/*
 * A buffer of @reps COPY packets of @size bytes, alternating direction
 * between @src and @dst, at copy_pkts; returns its length in bytes.
 */
static uint32_t copy_put(Copro *c, uint64_t src, uint64_t dst, uint64_t size,
                         int reps)
{
    uint32_t pkt[COPRO_LEN_COPY];

    for (int r = 0; r < reps; r++) {
        uint64_t from = r & 1 ? dst : src, to = r & 1 ? src : dst;

        pkt[0] = cpu_to_le32(COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY));
        pkt[1] = cpu_to_le32(to);
        pkt[2] = cpu_to_le32(to >> 32);
        pkt[3] = cpu_to_le32(from);
        pkt[4] = cpu_to_le32(from >> 32);
        pkt[5] = cpu_to_le32(size);
        pkt[6] = cpu_to_le32(size >> 32);
        vram_write(c, copy_pkts + r * sizeof(pkt), pkt, sizeof(pkt));
    }
    return reps * sizeof(pkt);
}

/* COPY as copy_put() says, timed: bytes per second. */
static double copy_rate(Copro *c, uint64_t src, uint64_t dst, uint64_t size,
                        int reps)
{
    uint32_t len = copy_put(c, src, dst, size, reps);

    /*
     * Once untimed: the first touch of each destination page costs a host
     * page fault and zeroing, which host memcpy (on memset buffers) does
     * not pay either.
     */
    run_buffer(c, copy_pkts, len);
    return size * reps / run_buffer(c, copy_pkts, len);
}

/*
 * COPY src/dst in VRAM, then between VRAM and the aperture: guest RAM of
 * @size bytes mapped page by page through the GART (at VRAM 48 MiB), so
 * every 4 KiB is a translation and a pci_dma_* access.
 */
static void bench_copy(Copro *c, uint64_t size, int reps, double memcpy_bps)
{
    const uint64_t gart = 48 * MiB;
    uint32_t pages = size / COPRO_GPU_PAGE_SIZE;
    uint64_t total = size * reps, gpa;
    double bps, abps;

    bps = copy_rate(c, 16 * MiB, 32 * MiB, size, reps);
    printf("copy: VRAM->VRAM %" PRIu64 " MiB in %.3f s: %.0f MB/s; "
           "host memcpy %.0f MB/s; ratio %.3f\n", total / MiB, total / bps,
           bps / 1e6, memcpy_bps / 1e6, bps / memcpy_bps);

    gpa = guest_alloc(&c->qs->alloc, size);
    copro_gart_setup(c, gart, pages);
    for (uint32_t i = 0; i < pages; i++) {
        copro_gart_map(c, gart, i, gpa + (uint64_t)i * COPRO_GPU_PAGE_SIZE,
                       true);
    }
    abps = copy_rate(c, 16 * MiB, COPRO_APERTURE_BASE, size, reps);
    printf("copy: VRAM<->aperture (guest RAM via GART) %" PRIu64
           " MiB in %.3f s: %.0f MB/s; ratio to VRAM->VRAM %.3f; "
           "host memcpy ratio %.3f\n", total / MiB, total / abps,
           abps / 1e6, abps / bps, abps / memcpy_bps);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One measure of bench_timeline: its time in host and QEMU CPU seconds. */
static void timeline_measure(Copro *c, int i, uint32_t copy_len,
                             double *host_s, double *cpu_s)
{
    int64_t t0 = qemu_cpu_ns(c);

    switch (i) {
    case 0:
        *host_s = run_buffer(c, BUF, NPKT * 4);
        break;
    case 1:
        *host_s = run_buffer(c, copy_pkts, copy_len);
        break;
    default:
        *host_s = 16.0 * (SUB_RING_SIZE - 1) / submission_rate(c);
        break;
    }
    *cpu_s = (qemu_cpu_ns(c) - t0) / 1e9;
}

/*
 * The timeline's cost. Each measure is taken with the log off and on back
 * to back (in turns: off-on, then on-off), TL_RUNS pairs after a warm-up
 * pair, and each pair gives a ratio: on a machine shared with other work
 * the speed drifts by tens of percent within seconds, and only a pair
 * taken within a fraction of a second sees the same machine. Rates are
 * per second of QEMU's CPU time (other processes' load changes host time
 * most) and per host second; the median ratio with the range of the
 * pairs'.
 */
static void bench_timeline(Copro *c)
{
    static const char *const what[] = {
        "NOP packets/s", "COPY VRAM->VRAM bytes/s",
        "submissions/s (1 NOP each)",
    };
    g_autofree struct copro_submit_desc *ring =
        g_new0(struct copro_submit_desc, SUB_RING_SIZE);
    const uint64_t copy_size = 8 * MiB;
    const int copy_reps = 64;
    const double units[3] = {
        NPKT, (double)copy_size * copy_reps, 16.0 * (SUB_RING_SIZE - 1),
    };
    double host[2][TL_RUNS], cpu[2][TL_RUNS];
    double rc[TL_RUNS], rh[TL_RUNS];
    uint32_t copy_len;
    QDict *rsp;

    /* clear of the NOP buffer, the aperture bench's GART and ring */
    copy_pkts = COPY_PKTS;
    poll_us = 2000;     /* the polls cost QEMU CPU time too: few */
    put_nops(c);
    copy_len = copy_put(c, 17 * MiB, 26 * MiB, copy_size, copy_reps);
    for (uint32_t i = 0; i < SUB_RING_SIZE; i++) {
        ring[i].dma_addr = cpu_to_le64(BUF);
        ring[i].dma_len = cpu_to_le32(4);
        ring[i].fence = cpu_to_le64(1);
        ring[i].flags = cpu_to_le32(COPRO_SUBMIT_NO_IRQ);
    }
    vram_write(c, SUB_RING, ring, SUB_RING_SIZE * sizeof(*ring));
    copro_ring_setup(c, 1, SUB_RING, SUB_RING_SIZE);

    printf("timeline: the log off and on, %d pairs of runs taken back to "
           "back (timing=instant)\n", TL_RUNS);
    for (int i = 0; i < 3; i++) {
        double lo = 1e9, hi = 0;

        for (int run = -1; run < TL_RUNS; run++) {
            for (int k = 0; k < 2; k++) {
                int on = (run & 1) ? !k : k;
                double h, u;

                timeline_set(c, on);
                timeline_measure(c, i, copy_len, &h, &u);
                if (run >= 0) {
                    host[on][run] = units[i] / h;
                    cpu[on][run] = units[i] / u;
                }
            }
            if (run >= 0) {
                rc[run] = cpu[1][run] / cpu[0][run];
                rh[run] = host[1][run] / host[0][run];
                lo = MIN(lo, rc[run]);
                hi = MAX(hi, rc[run]);
            }
        }
        printf("timeline: %-27s per QEMU CPU s: off %9.4g on %9.4g, "
               "on/off %.3f (pairs %.2f..%.2f); per host s: off %9.4g "
               "on %9.4g, on/off %.3f\n", what[i],
               median(cpu[0], TL_RUNS), median(cpu[1], TL_RUNS),
               median(rc, TL_RUNS), lo, hi, median(host[0], TL_RUNS),
               median(host[1], TL_RUNS), median(rh, TL_RUNS));
    }
    rsp = qtest_qmp(c->qts, "{ 'execute': 'x-copro-timeline', "
                    "'arguments': { 'max': 0 } }");
    printf("timeline: the log recorded %" PRIu64 " events (%" PRIu64
           " dropped as it wrapped at 65536)\n",
           qdict_get_int(qdict_get_qdict(rsp, "return"), "next-seq"),
           qdict_get_int(qdict_get_qdict(rsp, "return"), "dropped"));
    qobject_unref(rsp);
}

int main(int argc, char **argv)
{
    Copro c;
    double memcpy_bps;

    g_test_init(&argc, &argv, NULL);
    copro_boot(&c, "-M q35", "timing=instant");
    ewr64(&c, 0, COPRO_ENG_RING_BASE, RING);
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, RING_SIZE);

    printf("copro emulation throughput (one run; host time)\n");
    bench_packets(&c);
    memcpy_bps = host_memcpy_rate(16 * MiB, 64);
    bench_copy(&c, 16 * MiB, 64, memcpy_bps);
    bench_timeline(&c);
    copro_shutdown(&c);
    return 0;
}
