/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro emulation throughput benchmark (make bench). Not a test: it asserts
 * nothing about speed, it measures and prints.
 *
 * With timing=instant the engines run as fast as the host can. Host time is
 * measured around a submission, from the doorbell to the completed fence
 * (polled through the qtest socket), and compared with host memcpy measured
 * in the same process, so the ratio means something on a noisy machine.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "copro-qtest.h"

#define RING        0x0
#define RING_SIZE   16
#define BUF         0x10000
#define WB          0x8000

static uint64_t fence_seq;

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
        g_usleep(200);
    }
    t1 = g_get_monotonic_time();
    return (t1 - t0) / 1e6;
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

static void bench_packets(Copro *c)
{
    const uint32_t npkt = COPRO_DMA_MAX / 4;    /* largest buffer */
    g_autofree uint32_t *buf = g_new(uint32_t, npkt);
    double s;

    for (uint32_t i = 0; i < npkt; i++) {
        buf[i] = cpu_to_le32(COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1));
    }
    vram_write(c, BUF, buf, npkt * 4);
    run_buffer(c, BUF, 4096);       /* warm up */
    s = run_buffer(c, BUF, npkt * 4);
    printf("packets: %u NOP packets in %.3f s: %.2f Mpackets/s "
           "(host time, timing=instant)\n", npkt, s, npkt / s / 1e6);
}

/*
 * COPY of @size bytes, @reps times in one buffer, alternating direction
 * between @src and @dst; returns bytes per second.
 */
static double copy_rate(Copro *c, uint64_t src, uint64_t dst, uint64_t size,
                        int reps)
{
    uint32_t pkt[COPRO_LEN_COPY];
    uint64_t total = size * reps;

    for (int r = 0; r < reps; r++) {
        uint64_t from = r & 1 ? dst : src, to = r & 1 ? src : dst;

        pkt[0] = cpu_to_le32(COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY));
        pkt[1] = cpu_to_le32(to);
        pkt[2] = cpu_to_le32(to >> 32);
        pkt[3] = cpu_to_le32(from);
        pkt[4] = cpu_to_le32(from >> 32);
        pkt[5] = cpu_to_le32(size);
        pkt[6] = cpu_to_le32(size >> 32);
        vram_write(c, BUF + r * sizeof(pkt), pkt, sizeof(pkt));
    }
    /*
     * Once untimed: the first touch of each destination page costs a host
     * page fault and zeroing, which host memcpy (on memset buffers) does
     * not pay either.
     */
    run_buffer(c, BUF, reps * sizeof(pkt));
    return total / run_buffer(c, BUF, reps * sizeof(pkt));
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
    copro_shutdown(&c);
    return 0;
}
