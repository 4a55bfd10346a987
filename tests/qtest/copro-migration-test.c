/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro migration: the state is saved while engine 0 is in the
 * middle of a COPY (a step charged, its effect pending) and engine 1 is
 * blocked in a WAIT, loaded into a fresh QEMU, and the work completes
 * there with memory, fences and timestamps identical to an uninterrupted
 * run.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "copro-qtest.h"

#define RING0       0x0000
#define RING1       0x1000
#define WB0         0x2000          /* fence write-back, engine 0 */
#define FLAG        0x2100          /* engine 0 signals engine 1 here */
#define TS          0x2200          /* timestamps */
#define BUF0        0x10000
#define BUF1        0x20000
#define DATA        (1 * MiB)
#define OUT         (8 * MiB)
#define OUT_SIZE    (8 * MiB)

static const char *const machine = "-M q35";

/* Fill DATA with a pattern and queue the workload on both engines. */
static void start_workload(Copro *c)
{
    g_autoptr(GArray) b0 = copro_buf_new();
    g_autoptr(GArray) b1 = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(2 * MiB);

    for (size_t i = 0; i < 2 * MiB; i++) {
        src[i] = (i * 13) ^ (i >> 11);
    }
    vram_write(c, DATA, src, 2 * MiB);
    copro_ring_setup(c, 0, RING0, 16);
    copro_ring_setup(c, 1, RING1, 16);
    ewr64(c, 0, COPRO_ENG_FENCE_WB, WB0 | COPRO_FENCE_WB_ENABLE);

    copro_pkt_fill(b0, OUT, MiB, 0x3c3c3c3c);
    copro_pkt_timestamp(b0, TS);
    copro_pkt_copy(b0, OUT + MiB, DATA, 2 * MiB);
    copro_pkt_timestamp(b0, TS + 8);
    copro_pkt_set_target(b0, 0, OUT + 4 * MiB, 2048, 512, 256,
                         COPRO_FMT_XRGB8888);
    copro_pkt_rect(b0, 0, 3, 7, 400, 200, 0x00c0ffee);
    copro_pkt_fence(b0, FLAG, 1, 0);
    copro_buf_put(c, BUF0, b0);

    copro_pkt_wait(b1, FLAG, 1);
    copro_pkt_timestamp(b1, TS + 16);
    copro_pkt_copy(b1, OUT + 6 * MiB, OUT + MiB, 512 * KiB);
    copro_buf_put(c, BUF1, b1);

    copro_submit(c, 1, BUF1, b1->len * 4, 0x101, 2, 0);
    copro_submit(c, 0, BUF0, b0->len * 4, 0x100, 1, 0);
}

static void wait_done(Copro *c)
{
    for (int i = 0; i < 1000; i++) {
        if (erd64(c, 0, COPRO_ENG_COMPLETED_FENCE) == 0x100 &&
            erd64(c, 1, COPRO_ENG_COMPLETED_FENCE) == 0x101) {
            return;
        }
        qtest_clock_step(c->qts, 10 * 1000);
    }
    g_assert_not_reached();
}

static void wait_migration(QTestState *qts, const char *cmd)
{
    for (int i = 0; i < 10000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': %s }", cmd);
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = ret && qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "";
        bool done = !strcmp(status, "completed");

        g_assert_cmpstr(status, !=, "failed");
        qobject_unref(rsp);
        if (done) {
            return;
        }
        g_usleep(10 * 1000);
    }
    g_assert_not_reached();
}

/*
 * Migrate @src (then shut down) into a new QEMU, @dst, through a file, and
 * let @dst run on from the source's virtual time.
 */
static void copro_migrate(Copro *src, Copro *dst)
{
    g_autofree char *file = g_strdup_printf("%s/copro-mig-%d.bin",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    int64_t t_mig = copro_time(src);
    QDict *rsp;

    rsp = qtest_qmp(src->qts, "{ 'execute': 'migrate', 'arguments': "
                    "{ 'uri': %s } }", uri);
    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    wait_migration(src->qts, "query-migrate");

    memset(dst, 0, sizeof(*dst));
    dst->qs = qtest_pc_boot("%s -nodefaults -device copro,addr=%d.0 "
                            "-incoming defer", machine, COPRO_SLOT);
    dst->qts = dst->qs->qts;
    dst->dev = qpci_device_find(dst->qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    g_assert_nonnull(dst->dev);
    rsp = qtest_qmp(dst->qts, "{ 'execute': 'migrate-incoming', "
                    "'arguments': { 'uri': %s } }", uri);
    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    wait_migration(dst->qts, "query-migrate");
    /* BARs and memory decoding came with the device state */
    dst->mmio = src->mmio;
    dst->vram = src->vram;
    copro_shutdown(src);
    unlink(file);

    /*
     * Under -accel qtest the virtual clock is the test's and is not
     * migrated: continue it from where the source stopped.
     */
    qtest_clock_set(dst->qts, t_mig);
    qtest_qmp_assert_success(dst->qts, "{ 'execute': 'cont' }");
}

static void test_migrate_mid_buffer(void)
{
    g_autofree uint8_t *ref = g_malloc(OUT_SIZE);
    g_autofree uint8_t *got = g_malloc(OUT_SIZE);
    uint64_t ref_ts[3], got_ts[3];
    Copro src, dst, c;

    /* reference: uninterrupted */
    copro_boot(&c, machine, "");
    start_workload(&c);
    wait_done(&c);
    vram_read(&c, OUT, ref, OUT_SIZE);
    vram_read(&c, TS, ref_ts, sizeof(ref_ts));
    copro_shutdown(&c);

    /* source: stop in the middle of the COPY, engine 1 blocked */
    copro_boot(&src, machine, "");
    start_workload(&src);
    copro_run_until_busy(&src, 0);
    qtest_clock_step(src.qts, 100 * 1000);
    g_assert_cmpuint(erd32(&src, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_BUSY);
    g_assert_cmpuint(erd32(&src, 1, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    g_assert_cmphex(vram_r64(&src, TS), !=, 0);        /* after the FILL */
    g_assert_cmphex(vram_r64(&src, TS + 8), ==, 0);    /* COPY unfinished */
    copro_migrate(&src, &dst);
    g_assert_cmpuint(erd32(&dst, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_BUSY);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_CURRENT_FENCE), ==, 0x100);
    g_assert_cmpuint(erd32(&dst, 1, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    wait_done(&dst);
    vram_read(&dst, OUT, got, OUT_SIZE);
    vram_read(&dst, TS, got_ts, sizeof(got_ts));
    g_assert_cmpmem(got, OUT_SIZE, ref, OUT_SIZE);
    g_assert_cmpmem(got_ts, sizeof(got_ts), ref_ts, sizeof(ref_ts));
    g_assert_cmphex(vram_r64(&dst, WB0), ==, 0x100);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_SUBMISSIONS), ==, 1);
    g_assert_cmpuint(erd64(&dst, 1, COPRO_ENG_STAT_SUBMISSIONS), ==, 1);
    copro_shutdown(&dst);
}

/*
 * A preemption request pending when the state is saved completes on the
 * destination at the same arbitration point, with the latency counted from
 * the request on the source; the saved context then resumes there.
 */
static void test_migrate_preempt_pending(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    const int64_t pkt = 100, slice = 100 * 1000;
    struct copro_submit_desc d;
    Copro src, dst;
    int64_t t0;

    copro_boot(&src, machine, "");
    copro_ring_setup(&src, 0, RING0, 16);
    copro_pkt_work(b, 1000 * 1000);
    copro_pkt_fill(b, OUT, 4096, 0x99999999);
    copro_buf_put(&src, BUF0, b);
    d = copro_desc(BUF0, b->len * 4, 7, 3, 0);
    d.save_addr = TS + 0x100;
    t0 = copro_time(&src);
    copro_submit_desc(&src, 0, &d);
    copro_run_until_busy(&src, 0);
    qtest_clock_set(src.qts, t0 + 250 * 1000);
    ewr64(&src, 0, COPRO_ENG_PREEMPT_REQ, 0x55);
    g_assert_cmpuint(erd64(&src, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 0);

    copro_migrate(&src, &dst);
    qtest_clock_set(dst.qts, t0 + pkt + 3 * slice - 1);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 0);
    qtest_clock_set(dst.qts, t0 + pkt + 3 * slice);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 1);
    g_assert_cmphex(erd64(&dst, 0, COPRO_ENG_PREEMPT_FENCE), ==, 0x55);
    g_assert_cmphex(erd64(&dst, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 7);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==,
                     pkt + 3 * slice - 250 * 1000);
    g_assert_true(rd64(&dst, COPRO_REG_INT_STATUS) &
                  COPRO_INT_ENG(0, COPRO_INT_PREEMPTED));

    /* resume the saved context on the destination */
    d.fence = 8;
    d.flags = COPRO_SUBMIT_RESUME;
    copro_submit_desc(&dst, 0, &d);
    for (int i = 0; i < 100 &&
         erd64(&dst, 0, COPRO_ENG_COMPLETED_FENCE) != 8; i++) {
        qtest_clock_step(dst.qts, 100 * 1000);
    }
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_COMPLETED_FENCE), ==, 8);
    g_assert_cmphex(vram_r32(&dst, OUT + 4092), ==, 0x99999999);
    /* the WORK ran once in all: 1 ms plus two packet costs plus the FILL */
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_BUSY_NS), <, 1100 * 1000);
    copro_shutdown(&dst);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    qtest_add_func("/copro/migration/mid-buffer", test_migrate_mid_buffer);
    qtest_add_func("/copro/migration/preempt-pending",
                   test_migrate_preempt_pending);
    return g_test_run();
}
