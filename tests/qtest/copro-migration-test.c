/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro migration: the state is saved while engine 0 is in the
 * middle of a COPY (a step charged, its effect pending) and engine 1 is
 * blocked in a WAIT, loaded into a fresh QEMU, and the work completes
 * there with memory, fences and timestamps identical to an uninterrupted
 * run.
 *
 * One program past a thousand lines: every migration case needs the same
 * two-QEMU harness (save here, load into a fresh QEMU, compare with an
 * uninterrupted run) and the doctored streams that must be refused.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "copro-qtest.h"
#include "copro/copro_hwsched.h"

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

/* Migrate @src into a new QEMU @dst with the same device (copro-qtest.h) */
static void copro_migrate(Copro *src, Copro *dst)
{
    copro_migrate_to(src, dst, machine, "");
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
    const int64_t pkt = 100, slice = 100 * 1000, save = 30517;
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
    /* the arbitration point, then saving the default 256 KiB of context
     * state at 8 GiB/s */
    qtest_clock_set(dst.qts, t0 + pkt + 3 * slice + save - 1);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 0);
    qtest_clock_set(dst.qts, t0 + pkt + 3 * slice + save);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 1);
    g_assert_cmphex(erd64(&dst, 0, COPRO_ENG_PREEMPT_FENCE), ==, 0x55);
    g_assert_cmphex(erd64(&dst, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 7);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==,
                     pkt + 3 * slice + save - 250 * 1000);
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

/*
 * Hostile migration streams. The engine state is found in a saved stream
 * by a marker written to engine 0's FENCE_WB, and fields are patched at
 * their offsets from it (the order of vmstate_copro_engine's fields;
 * integers are big-endian on the wire, bools one byte).
 */
/* bit 0 clear: write-back stays off */
#define MARKER          0xc0de5a5a12345670ull
#define AT_RING_SIZE    (-12)
#define AT_RING_TAIL    (-4)
#define AT_ACTIVE       12
#define AT_DMA_ADDR     13
#define AT_DMA_LEN      21
#define AT_FENCE        29
#define AT_PC           49
#define AT_IN_PACKET    53
#define AT_STEP_PENDING 54
#define AT_CUR_OFFSET   55
#define AT_CUR_HDR      59
#define AT_CUR_DW(i)    (63 + 4 * (i))
#define AT_RECT_W       103
#define AT_RECT_H       107
#define AT_RECT_ROWS    111
#define AT_TARGET0      115
#define AT_STATE        8
#define AT_CURSOR       (AT_TARGET0 + COPRO_TARGET_SLOTS * 24)
#define AT_FAULT_KIND   (AT_CURSOR + 20)
#define AT_ENGINE_END   (AT_CURSOR + 177)   /* after the timer */

typedef struct Stream {
    gchar *data;
    gsize len;
    gsize marker;
} Stream;

static void put_be32(Stream *st, int at, uint32_t v)
{
    stl_be_p(st->data + st->marker + at, v);
}

static void put_be64(Stream *st, int at, uint64_t v)
{
    stq_be_p(st->data + st->marker + at, v);
}

static void put_u8(Stream *st, int at, uint8_t v)
{
    st->data[st->marker + at] = v;
}

/*
 * Boot a source with @devopts, let @prepare set it up, save its state to
 * a file and read the file back with the marker located.
 */
static void save_stream(const char *devopts, void (*prepare)(Copro *c),
                        Stream *st, char **file)
{
    g_autofree char *uri = NULL;
    g_autoptr(GError) err = NULL;
    uint8_t want[8];
    Copro src;
    QDict *rsp;

    *file = g_strdup_printf("%s/copro-stream-%d.bin", g_get_tmp_dir(),
                            getpid());
    uri = g_strdup_printf("file:%s", *file);
    copro_boot(&src, machine, devopts);
    copro_ring_setup(&src, 0, RING0, 16);
    ewr64(&src, 0, COPRO_ENG_FENCE_WB, MARKER);
    if (prepare) {
        prepare(&src);
    }
    rsp = qtest_qmp(src.qts, "{ 'execute': 'migrate', 'arguments': "
                    "{ 'uri': %s } }", uri);
    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    g_assert_true(copro_migration_wait(src.qts));
    copro_shutdown(&src);

    g_assert_true(g_file_get_contents(*file, &st->data, &st->len, &err));
    stq_be_p(want, MARKER);
    st->marker = 0;
    for (gsize i = 0; i + 8 <= st->len; i++) {
        if (!memcmp(st->data + i, want, 8)) {
            g_assert_cmpuint(st->marker, ==, 0);   /* exactly once */
            st->marker = i;
        }
    }
    g_assert_cmpuint(st->marker, >, 12);
    /* the layout is what the offsets assume */
    g_assert_cmphex(ldl_be_p(st->data + st->marker + AT_RING_SIZE), ==, 16);
}

/*
 * Start a destination (@extra: more QEMU arguments), load @st into it and
 * return whether the load succeeded. A refused stream leaves the
 * destination running (exit-on-error off), so a crash shows as a failure.
 */
static bool load_stream(Copro *dst, const char *file, Stream *st,
                        const char *devopts, const char *extra)
{
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autoptr(GError) err = NULL;
    QDict *rsp;

    g_assert_true(g_file_set_contents(file, st->data, st->len, &err));
    memset(dst, 0, sizeof(*dst));
    dst->qs = qtest_pc_boot("%s -nodefaults -device copro,addr=%d.0%s%s "
                            "-incoming defer %s", machine, COPRO_SLOT,
                            *devopts ? "," : "", devopts, extra);
    dst->qts = dst->qs->qts;
    dst->dev = qpci_device_find(dst->qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    g_assert_nonnull(dst->dev);
    rsp = qtest_qmp(dst->qts, "{ 'execute': 'migrate-incoming', "
                    "'arguments': { 'uri': %s, 'exit-on-error': false } }",
                    uri);
    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    return copro_migration_wait(dst->qts);
}

/* A field patched into a saved stream: @width bytes at @at, big-endian. */
typedef struct StreamPatch {
    int at, width;
    uint64_t val;
} StreamPatch;

/* Each of @bad, patched alone into @orig, is refused by a destination
 * that stays alive. */
static void refuse_patched(const char *file, Stream *st, const Stream *orig,
                           const StreamPatch *bad, size_t n)
{
    Copro dst;

    for (size_t i = 0; i < n; i++) {
        memcpy(st->data, orig->data, orig->len);
        if (bad[i].width == 1) {
            put_u8(st, bad[i].at, bad[i].val);
        } else if (bad[i].width == 8) {
            put_be64(st, bad[i].at, bad[i].val);
        } else {
            put_be32(st, bad[i].at, bad[i].val);
        }
        g_assert_false(load_stream(&dst, file, st, "", ""));
        qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
        copro_shutdown(&dst);
    }
}

/* A submission loaded, its first packet state patched in by the caller. */
static void patch_active(Stream *st, uint32_t hdr)
{
    put_u8(st, AT_ACTIVE, 1);
    put_be64(st, AT_DMA_ADDR, BUF0);
    put_be32(st, AT_DMA_LEN, 64);
    put_be64(st, AT_FENCE, 0x77);
    put_be32(st, AT_PC, 0);
    put_be32(st, AT_CUR_OFFSET, 0);
    put_be32(st, AT_CUR_HDR, hdr);
}

static void put_nop_buffer(Copro *c)
{
    g_autoptr(GArray) b = copro_buf_new();

    copro_pkt_nop(b, 16, 0);
    copro_buf_put(c, BUF0, b);
}

/*
 * Regression: every state from which the engine would execute the current
 * packet is checked on load. These used to pass because the packet was
 * only checked with in_packet set, yet a charged step (step_pending) is
 * executed too: opcode 0xff reached g_assert_not_reached(), a stored RECT
 * width overflowed the 64 KiB bounce buffer, SET_TARGET slot 0xff wrote
 * past targets[]. The same patching with a valid packet loads and runs.
 */
static void test_migrate_hostile_stream(void)
{
    g_autofree char *file = NULL;
    Stream st, orig;
    Copro dst;

    save_stream("", put_nop_buffer, &orig, &file);
    st = orig;
    st.data = g_memdup2(orig.data, orig.len);

    /* control: a NOP with its step charged, valid in every field */
    patch_active(&st, COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1));
    put_u8(&st, AT_IN_PACKET, 1);
    put_u8(&st, AT_STEP_PENDING, 1);
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    dst.mmio = (QPCIBar) { 0 };
    copro_shutdown(&dst);

    /* an unknown opcode with a step charged */
    memcpy(st.data, orig.data, orig.len);
    patch_active(&st, COPRO_PKT_HDR(0xff, 0, 1));
    put_u8(&st, AT_STEP_PENDING, 1);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);

    /* a RECT whose stored clipped width is far beyond any surface */
    memcpy(st.data, orig.data, orig.len);
    patch_active(&st, COPRO_PKT_HDR(COPRO_OP_RECT, 0, COPRO_LEN_RECT));
    put_u8(&st, AT_STEP_PENDING, 1);
    put_be32(&st, AT_CUR_DW(2), 16);
    put_be32(&st, AT_CUR_DW(3), 1);
    put_be32(&st, AT_RECT_W, 0x100000);
    put_be32(&st, AT_RECT_H, 1);
    put_be32(&st, AT_RECT_ROWS, 1);
    put_be64(&st, AT_TARGET0, OUT);
    put_be32(&st, AT_TARGET0 + 8, 4096);
    put_be32(&st, AT_TARGET0 + 12, 16);
    put_be32(&st, AT_TARGET0 + 16, 16);
    put_be32(&st, AT_TARGET0 + 20, COPRO_FMT_XRGB8888);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);

    /* SET_TARGET to slot 0xff */
    memcpy(st.data, orig.data, orig.len);
    patch_active(&st, COPRO_PKT_HDR(COPRO_OP_SET_TARGET, 0xff,
                                    COPRO_LEN_SET_TARGET));
    put_u8(&st, AT_STEP_PENDING, 1);
    put_be32(&st, AT_CUR_DW(2), 4096);
    put_be32(&st, AT_CUR_DW(3), 16);
    put_be32(&st, AT_CUR_DW(4), 16);
    put_be32(&st, AT_CUR_DW(5), COPRO_FMT_XRGB8888);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);

    unlink(file);
    g_free(st.data);
    g_free(orig.data);
}

/* Insert engine 0's copro/engine/batch subsection (fault_irq_due set). */
static void insert_batch_subsection(Stream *st)
{
    static const char name[] = "copro/engine/batch";
    GByteArray *b = g_byte_array_new();
    gsize at = st->marker + AT_ENGINE_END;
    uint8_t head[2] = { 0x05, sizeof(name) - 1 };   /* QEMU_VM_SUBSECTION */
    uint8_t ver[4], due = 1;

    stl_be_p(ver, 1);
    g_byte_array_append(b, (guint8 *)st->data, at);
    g_byte_array_append(b, head, 2);
    g_byte_array_append(b, (const guint8 *)name, sizeof(name) - 1);
    g_byte_array_append(b, ver, 4);
    g_byte_array_append(b, &due, 1);
    g_byte_array_append(b, (guint8 *)st->data + at, st->len - at);
    g_free(st->data);
    st->len = b->len;
    st->data = (gchar *)g_byte_array_free(b, FALSE);
}

/*
 * A fault latched by a step run ahead of its time (quiet-period batching,
 * under -icount) keeps its interrupt due in the copro/engine/batch
 * subsection. Loaded on a halted engine with a fault latched, the
 * interrupt comes once the VM runs; anything else is refused.
 */
static void test_migrate_batch_fault(void)
{
    g_autofree char *file = NULL;
    Stream st, orig;
    Copro dst;

    save_stream("", NULL, &orig, &file);
    g_assert_cmpuint(ldq_be_p(orig.data + orig.marker + AT_CURSOR), ==, 0);
    st = orig;

    /* control: halted on a translation fault, its interrupt due */
    st.data = g_memdup2(orig.data, orig.len);
    put_be32(&st, AT_STATE, COPRO_ENG_STATE_HALTED);
    put_be32(&st, AT_FAULT_KIND, COPRO_FAULT_TRANSLATION);
    insert_batch_subsection(&st);
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    dst.mmio = qpci_iomap(dst.dev, COPRO_BAR_MMIO, NULL);
    qtest_clock_step(dst.qts, 1000);
    g_assert_cmphex(rd64(&dst, COPRO_REG_INT_STATUS) &
                    COPRO_INT_ENGINE_MASK(0), ==,
                    (uint64_t)COPRO_INT_FAULT << COPRO_INT_ENGINE_SHIFT(0));
    g_assert_cmpuint(erd32(&dst, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_TRANSLATION);
    copro_shutdown(&dst);
    g_free(st.data);

    /* the same report due on an engine that is not halted */
    st.data = g_memdup2(orig.data, orig.len);
    st.len = orig.len;
    put_be32(&st, AT_FAULT_KIND, COPRO_FAULT_TRANSLATION);
    insert_batch_subsection(&st);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);
    g_free(st.data);

    /* halted without a fault to report */
    st.data = g_memdup2(orig.data, orig.len);
    st.len = orig.len;
    put_be32(&st, AT_STATE, COPRO_ENG_STATE_HALTED);
    insert_batch_subsection(&st);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);
    g_free(st.data);

    unlink(file);
    g_free(orig.data);
}

/* A FILL queued on engine 0's ring, doorbell not rung. */
static void queue_fill(Copro *c)
{
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_submit_desc d;

    copro_pkt_fill(b, OUT, 4096, 0x5a5a5a5a);
    copro_buf_put(c, BUF0, b);
    d = copro_desc(BUF0, b->len * 4, 0x42, 1, 0);
    copro_queue(c, 0, 0, &d);
}

/*
 * Regression: an engine with work must not start while the state loads
 * (its DMA would touch guest memory before the VM owns it), only when the
 * VM runs. The stream says engine 0 has one entry queued (tail 1); the
 * destination is started paused (-S).
 */
static void test_migrate_no_dma_before_run(void)
{
    g_autofree char *file = NULL;
    Stream st;
    Copro dst;

    save_stream("timing=instant", queue_fill, &st, &file);
    put_be32(&st, AT_RING_TAIL, 1);
    g_assert_true(load_stream(&dst, file, &st, "timing=instant", "-S"));
    dst.mmio = qpci_iomap(dst.dev, COPRO_BAR_MMIO, NULL);
    dst.vram = qpci_iomap(dst.dev, COPRO_BAR_VRAM, NULL);
    for (int i = 0; i < 100; i++) {
        g_assert_cmpuint(erd32(&dst, 0, COPRO_ENG_RING_HEAD), ==, 0);
    }
    g_assert_cmphex(vram_r32(&dst, OUT), ==, 0);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'cont' }");
    copro_run(&dst, 0);
    g_assert_cmpuint(erd32(&dst, 0, COPRO_ENG_FAULT_KIND), ==, 0);
    g_assert_cmpuint(copro_run(&dst, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0x42);
    g_assert_cmphex(vram_r32(&dst, OUT + 4092), ==, 0x5a5a5a5a);
    copro_shutdown(&dst);
    unlink(file);
    g_free(st.data);
}

/*
 * A scene's tile pass on engine 0, stopped with a tile's render step
 * charged (odd progress: planned, not yet drawn).
 */
#define TILER_PB    (2 * MiB)
#define TILER_TGT   (4 * MiB)

static void start_tile_pass(Copro *c)
{
    g_autoptr(GArray) b = copro_buf_new();

    copro_pkt_set_target(b, 0, TILER_TGT, 1024, 256, 128,
                         COPRO_FMT_XRGB8888);
    copro_pkt_scene_begin(b, 0, COPRO_SCENE_CLEAR, TILER_PB, 65536, 0x10);
    copro_pkt_bin_rect(b, 3, 5, 200, 100, 0x00ff00ff);
    copro_pkt_scene_end(b);
    copro_pkt_tile_render(b, 0, 0, TILER_PB, 32);
    copro_buf_put(c, BUF0, b);
    copro_submit(c, 0, BUF0, b->len * 4, 0x90, 1, 0);
    copro_run_until_busy(c, 0);
    for (int i = 0; i < 1000; i++) {
        QDict *rsp;

        qtest_clock_step(c->qts, 100);
        if (rd64(c, COPRO_REG_TILER_STAT_TILES) >= 3) {
            break;
        }
        rsp = qtest_qmp(c->qts, "{ 'execute': 'query-status' }");
        qobject_unref(rsp);
    }
    g_assert_cmpuint(rd64(c, COPRO_REG_TILER_STAT_TILES), <, 32);
    g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
}

/* The offset of engine 0's copro/engine/tiler fields in @st. */
static gsize tiler_fields(Stream *st)
{
    static const char name[] = "copro/engine/tiler";

    for (gsize i = st->marker; i + sizeof(name) < st->len; i++) {
        if (!memcmp(st->data + i, name, sizeof(name) - 1)) {
            return i + sizeof(name) - 1 + 4;    /* past the version */
        }
    }
    g_assert_not_reached();
}

/*
 * The tiler's migrated state is checked on load: a misaligned scene, a
 * tile price that could wrap the engine clock, a scene size beyond any
 * target and a tile pass's progress beyond its tiles are refused; the
 * unpatched stream loads and finishes the pass.
 */
static void test_migrate_hostile_tiler(void)
{
    g_autofree char *file = NULL;
    Stream st, orig;
    gsize at;
    Copro dst;

    save_stream("", start_tile_pass, &orig, &file);
    at = tiler_fields(&orig) - orig.marker;
    st = orig;
    st.data = g_memdup2(orig.data, orig.len);
    g_assert_cmphex(ldq_be_p(st.data + st.marker + at), ==, 0);
    g_assert_cmpuint(ldq_be_p(st.data + st.marker + at + 20), >, 0);

    /* control */
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    dst.mmio = (QPCIBar) { 0 };
    copro_shutdown(&dst);

    put_be64(&st, at, TILER_PB + 4);            /* scene */
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);

    memcpy(st.data, orig.data, orig.len);
    put_be64(&st, at + 20, UINT64_MAX);         /* tile_cost */
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);

    memcpy(st.data, orig.data, orig.len);
    put_be32(&st, at + 12, 0x100000);           /* scene_w */
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);

    memcpy(st.data, orig.data, orig.len);
    put_be64(&st, AT_CUR_DW(6), 2 * 32 + 1);    /* cur.progress */
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);

    unlink(file);
    g_free(st.data);
    g_free(orig.data);
}

/*
 * Engine 0 held after a TILER_OOM stop: a parameter buffer with room for
 * one full-target primitive, and two of them.
 */
#define HOLD_SAVE   0x3000

static void start_oom_hold(Copro *c)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint32_t tiles = 8 * 4;
    struct copro_submit_desc d;

    copro_pkt_set_target(b, 0, TILER_TGT, 1024, 256, 128,
                         COPRO_FMT_XRGB8888);
    copro_pkt_scene_begin(b, 0, 0, TILER_PB, copro_scene_heap_start(tiles) +
                          COPRO_PRIM_NEED(tiles), 0);
    copro_pkt_bin_rect(b, 0, 0, 256, 128, 1);
    copro_pkt_bin_rect(b, 0, 0, 256, 128, 2);
    copro_pkt_scene_end(b);
    copro_buf_put(c, BUF0, b);
    d = copro_desc(BUF0, b->len * 4, 0x91, 1, 0);
    d.save_addr = HOLD_SAVE;
    copro_submit_desc(c, 0, &d);
    for (int i = 0; i < 1000 && erd32(c, 0, COPRO_ENG_STATE) !=
                                COPRO_ENG_STATE_HELD; i++) {
        qtest_clock_step(c->qts, 1000);
    }
    g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_HELD);
}

/*
 * The hold after an OOM stop is checked on load: a held engine that is
 * halted, or that has a ring submission loaded, cannot be; the unpatched
 * stream loads and holds.
 */
static void test_migrate_hostile_hold(void)
{
    g_autofree char *file = NULL;
    Stream st, orig;
    Copro dst;

    save_stream("", start_oom_hold, &orig, &file);
    st = orig;
    st.data = g_memdup2(orig.data, orig.len);

    /* control */
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    dst.mmio = qpci_iomap(dst.dev, COPRO_BAR_MMIO, NULL);
    g_assert_cmpuint(erd32(&dst, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HELD);
    copro_shutdown(&dst);

    put_be32(&st, AT_STATE, COPRO_ENG_STATE_HALTED);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);

    memcpy(st.data, orig.data, orig.len);
    put_u8(&st, AT_ACTIVE, 1);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);

    unlink(file);
    g_free(st.data);
    g_free(orig.data);
}

/*
 * Hardware scheduling in a hostile stream: subsection "copro/hwsched" is
 * found by its name; offsets follow vmstate_copro_hws's fields (64 bytes
 * of registers, 64 queue records of 211 bytes, then the engines).
 */
#define HWS_DESC        0x40000
#define HWS_SLOT        5
#define AT_HWS_LOG_SIZE 16
#define AT_HWQ(k)       (64 + 211 * (k))
#define AT_HWQ_MAPPED   0
#define AT_HWQ_DESC     5
#define AT_HWQ_RING_SIZE 21
#define AT_HWQ_STATE    61
#define AT_HWQ_WAIT_SINCE 167
#define AT_HWS_ENG0     AT_HWQ(COPRO_HWQ_MAX)
#define AT_RL_ACTIVE_COUNT (AT_HWS_ENG0 + 20)
#define AT_RL_ACTIVE0   (AT_HWS_ENG0 + 24)
/* after active[64], pending, pending_count, pend[64], pend_q[64] */
#define AT_RL_CURRENT   (AT_RL_ACTIVE0 + 256 + 1 + 4 + 64 * 32 + 64 * 211)
/* current, switching, switch_reason, switch_time, then run_start */
#define AT_RL_RUN_START (AT_RL_CURRENT + 17)

/* Queue HWS_SLOT mapped on engine 0, idle. */
static void prepare_hws(Copro *c)
{
    struct copro_hwq_desc d = {
        .magic = cpu_to_le32(COPRO_HWQ_MAGIC),
        .version = cpu_to_le32(COPRO_HWQ_VERSION),
        .ring_base = cpu_to_le64(0x41000),
        .ring_size = cpu_to_le32(16),
        .context = cpu_to_le32(3),
        .save_addr = cpu_to_le64(0x42000),
    };
    struct copro_runlist_entry r = {
        .desc_addr = cpu_to_le64(HWS_DESC),
        .queue = cpu_to_le32(HWS_SLOT),
        .band = cpu_to_le32(COPRO_BAND_NORMAL),
        .quantum_ns = cpu_to_le32(100000),
    };

    vram_write(c, HWS_DESC, &d, sizeof(d));
    vram_write(c, 0x43000, &r, sizeof(r));
    wr64(c, COPRO_RL_BASE(0) + COPRO_RL_ADDR, 0x43000);
    wr32(c, COPRO_RL_BASE(0) + COPRO_RL_COUNT, 1);
    wr32(c, COPRO_RL_BASE(0) + COPRO_RL_COMMIT, 1);
    g_assert_cmpuint(rd32(c, COPRO_RL_BASE(0) + COPRO_RL_ACTIVE), ==, 1);
}

/*
 * Every index and state of the hardware-scheduling state a stream could
 * corrupt is checked on load: a slot beyond the 64, a list longer than
 * 64, a running queue that is not listed, a listed queue that is not
 * mapped, a ring size the device would mask with, a log size that is not
 * a power of two. The unpatched stream loads (and keeps the queue).
 */
static void test_migrate_hwsched_stream(void)
{
    g_autofree char *file = NULL;
    static const char name[] = "copro/hwsched";
    static const StreamPatch bad[] = {
        { AT_RL_ACTIVE0, 4, COPRO_HWQ_MAX + 136 },
        { AT_RL_ACTIVE_COUNT, 4, COPRO_RUNLIST_MAX + 1 },
        { AT_RL_CURRENT, 4, 7 },
        { AT_HWQ(HWS_SLOT) + AT_HWQ_MAPPED, 1, 0 },
        { AT_HWQ(HWS_SLOT) + AT_HWQ_RING_SIZE, 4, 3 },
        /* a state beyond the last; OOM_WAIT with nothing saved */
        { AT_HWQ(HWS_SLOT) + AT_HWQ_STATE, 4, COPRO_HWQ_STATE_OOM_WAIT + 1 },
        { AT_HWQ(HWS_SLOT) + AT_HWQ_STATE, 4, COPRO_HWQ_STATE_OOM_WAIT },
        { AT_HWS_LOG_SIZE, 4, 3 },
        /* times the scheduler computes with must not overflow */
        { AT_HWQ(HWS_SLOT) + AT_HWQ_WAIT_SINCE, 8, ~0ull },
        { AT_RL_RUN_START, 8, INT64_MAX },
    };
    Stream st, orig;
    Copro dst;
    gsize at = 0;

    save_stream("", prepare_hws, &orig, &file);
    for (gsize i = 0; i + sizeof(name) <= orig.len; i++) {
        if (orig.data[i] == sizeof(name) - 1 &&
            !memcmp(orig.data + i + 1, name, sizeof(name) - 1)) {
            g_assert_cmpuint(at, ==, 0);
            at = i + sizeof(name) + 4;      /* after name and version */
        }
    }
    g_assert_cmpuint(at, >, 0);
    /* the layout is what the offsets assume */
    g_assert_cmpuint(orig.data[at + AT_HWQ(HWS_SLOT) + AT_HWQ_MAPPED], ==, 1);
    g_assert_cmphex(ldq_be_p(orig.data + at + AT_HWQ(HWS_SLOT) +
                             AT_HWQ_DESC), ==, HWS_DESC);
    g_assert_cmpuint(ldl_be_p(orig.data + at + AT_RL_ACTIVE_COUNT), ==, 1);
    g_assert_cmpuint(ldl_be_p(orig.data + at + AT_RL_ACTIVE0), ==, HWS_SLOT);
    g_assert_cmphex((uint32_t)ldl_be_p(orig.data + at + AT_RL_CURRENT), ==,
                    COPRO_HWQ_NONE);
    g_assert_cmpuint(ldq_be_p(orig.data + at + AT_RL_RUN_START), ==, 0);
    g_assert_cmpuint(ldq_be_p(orig.data + at + AT_HWQ(HWS_SLOT) +
                              AT_HWQ_WAIT_SINCE), ==, 0);

    st = orig;
    st.marker = at;
    st.data = g_memdup2(orig.data, orig.len);
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    dst.mmio = qpci_iomap(dst.dev, COPRO_BAR_MMIO, NULL);
    g_assert_cmpuint(rd32(&dst, COPRO_RL_BASE(0) + COPRO_RL_ACTIVE), ==, 1);
    copro_shutdown(&dst);

    refuse_patched(file, &st, &orig, bad, G_N_ELEMENTS(bad));
    unlink(file);
    g_free(st.data);
    g_free(orig.data);
}

/*
 * Migration while the device saves a queue it switches out by itself
 * (issue 25): queues 1 and 2, both NORMAL with a 150 us quantum, each
 * given WORK(1 ms), with the default context state (a 30,517 ns save). At
 * 215 us queue 1's quantum has ended and its save is in progress; at
 * 700 us the save after a resume is. The state migrates (the destination
 * used to refuse it: "engine 0: inconsistent migrated state") and the
 * run ends exactly as the uninterrupted one: log, descriptors, fences.
 */
#define MQ_DESC(q)      (0x50000 + (uint64_t)(q) * COPRO_HWQ_DESC_SIZE)
#define MQ_RING(q)      (0x51000 + (uint64_t)(q) * 0x1000)
#define MQ_SAVE(q)      (0x54000 + (uint64_t)(q) * COPRO_SAVE_SIZE)
#define MQ_PROG(q)      (0x55000 + (uint64_t)(q) * 8)
#define MQ_RL           0x56000
#define MQ_LOG          0x57000
#define MQ_LOG_SIZE     128
#define MQ_BUF(q)       (0x60000 + (uint64_t)(q) * 0x1000)
#define MQ_QUANTUM      150000

static void mq_queue(Copro *c, uint32_t q, uint32_t i)
{
    struct copro_hwq_desc d = {
        .magic = cpu_to_le32(COPRO_HWQ_MAGIC),
        .version = cpu_to_le32(COPRO_HWQ_VERSION),
        .ring_base = cpu_to_le64(MQ_RING(q)),
        .ring_size = cpu_to_le32(16),
        .context = cpu_to_le32(10 + q),
        .save_addr = cpu_to_le64(MQ_SAVE(q)),
        .progress_addr = cpu_to_le64(MQ_PROG(q)),
    };
    struct copro_runlist_entry r = {
        .desc_addr = cpu_to_le64(MQ_DESC(q)),
        .queue = cpu_to_le32(q),
        .band = cpu_to_le32(COPRO_BAND_NORMAL),
        .quantum_ns = cpu_to_le32(MQ_QUANTUM),
    };

    vram_write(c, MQ_DESC(q), &d, sizeof(d));
    vram_write(c, MQ_RL + i * COPRO_RUNLIST_ENTRY_SIZE, &r, sizeof(r));
}

static void mq_submit(Copro *c, QPCIBar db, uint32_t q, uint64_t fence)
{
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_submit_desc d;
    uint32_t len;

    copro_pkt_work(b, 1000000);
    len = copro_buf_put(c, MQ_BUF(q), b);
    d = copro_desc(MQ_BUF(q), len, fence, 10 + q, 0);
    copro_desc_put(c, MQ_RING(q), &d);
    qpci_io_writel(c->dev, db, (uint64_t)q * COPRO_DOORBELL_STRIDE +
                   COPRO_DOORBELL_TAIL, 1);
}

/* Two NORMAL queues with work on engine 0; returns the start time. */
static int64_t mq_start(Copro *c)
{
    QPCIBar db = qpci_iomap(c->dev, COPRO_BAR_DOORBELL, NULL);

    wr64(c, COPRO_REG_HWS_LOG_ADDR, MQ_LOG);
    wr32(c, COPRO_REG_HWS_LOG_SIZE, MQ_LOG_SIZE);
    mq_queue(c, 1, 0);
    mq_queue(c, 2, 1);
    wr64(c, COPRO_RL_BASE(0) + COPRO_RL_ADDR, MQ_RL);
    wr32(c, COPRO_RL_BASE(0) + COPRO_RL_COUNT, 2);
    wr32(c, COPRO_RL_BASE(0) + COPRO_RL_COMMIT, 1);
    g_assert_cmpuint(rd32(c, COPRO_RL_BASE(0) + COPRO_RL_ACTIVE), ==, 2);
    mq_submit(c, db, 1, 11);
    mq_submit(c, db, 2, 21);
    return copro_time(c);
}

typedef struct MqRun {
    uint8_t log[MQ_LOG_SIZE * COPRO_SLOG_ENTRY_SIZE];
    uint32_t wptr;
    uint8_t desc[2][COPRO_HWQ_DESC_SIZE];
    uint64_t prog[2];
} MqRun;

static void mq_run(MqRun *r, int64_t mig_at)
{
    Copro c;
    int64_t t0;

    copro_boot(&c, machine, "");
    t0 = mq_start(&c);
    if (mig_at) {
        Copro dst;

        copro_clock_to(&c, t0 + mig_at);
        copro_migrate_to(&c, &dst, machine, "");
        c = dst;
    }
    copro_clock_to(&c, t0 + 3000000);
    r->wptr = rd32(&c, COPRO_REG_HWS_LOG_WPTR);
    g_assert_cmpuint(r->wptr, <, MQ_LOG_SIZE);
    vram_read(&c, MQ_LOG, r->log, sizeof(r->log));
    for (uint32_t q = 1; q <= 2; q++) {
        vram_read(&c, MQ_DESC(q), r->desc[q - 1], COPRO_HWQ_DESC_SIZE);
        r->prog[q - 1] = vram_r64(&c, MQ_PROG(q));
    }
    copro_shutdown(&c);
}

static void test_migrate_hws_mid_switch(void)
{
    g_autofree MqRun *ref = g_new0(MqRun, 1);
    g_autofree MqRun *got = g_new0(MqRun, 1);
    static const int64_t at[] = { 215000, 700000 };

    mq_run(ref, 0);
    g_assert_cmpuint(ref->prog[0], ==, 11);
    g_assert_cmpuint(ref->prog[1], ==, 21);
    for (size_t i = 0; i < G_N_ELEMENTS(at); i++) {
        memset(got, 0, sizeof(*got));
        mq_run(got, at[i]);
        g_assert_cmpuint(got->wptr, ==, ref->wptr);
        g_assert_cmpmem(got->log, sizeof(got->log), ref->log,
                        sizeof(ref->log));
        g_assert_cmpmem(got->desc, sizeof(got->desc), ref->desc,
                        sizeof(ref->desc));
        g_assert_cmpmem(got->prog, sizeof(got->prog), ref->prog,
                        sizeof(ref->prog));
    }
}

/* The source of the hostile mid-switch streams: saving queue 1. */
static void prepare_hws_switching(Copro *c)
{
    int64_t t0 = mq_start(c);

    copro_clock_to(c, t0 + 215000);
}

/*
 * A switch in progress is checked on load: its reason must be one the
 * device decides (not 0, EMPTY, RESET, ERROR, TILER_OOM, nor unknown), it
 * was decided after the queue went on the engine, and an engine saving a
 * queue's context needs that switch (or a PREEMPT_REQ) behind it.
 */
static void test_migrate_hws_switch_stream(void)
{
    g_autofree char *file = NULL;
    static const char name[] = "copro/hwsched";
    static const StreamPatch bad[] = {
        { AT_RL_CURRENT + 5, 4, 0 },
        { AT_RL_CURRENT + 5, 4, COPRO_SLOG_OUT_EMPTY },
        { AT_RL_CURRENT + 5, 4, COPRO_SLOG_OUT_RESET },
        { AT_RL_CURRENT + 5, 4, COPRO_SLOG_OUT_ERROR },
        { AT_RL_CURRENT + 5, 4, COPRO_SLOG_OUT_TILER_OOM },
        { AT_RL_CURRENT + 5, 4, 77 },
        /* decided before the switch-in */
        { AT_RL_RUN_START, 8, 1000000000000ull },
        { AT_RL_CURRENT + 4, 1, 0 },        /* a save with no switch */
    };
    Stream st, orig;
    Copro dst;
    gsize at = 0;

    save_stream("", prepare_hws_switching, &orig, &file);
    for (gsize i = 0; i + sizeof(name) <= orig.len; i++) {
        if (orig.data[i] == sizeof(name) - 1 &&
            !memcmp(orig.data + i + 1, name, sizeof(name) - 1)) {
            g_assert_cmpuint(at, ==, 0);
            at = i + sizeof(name) + 4;      /* after name and version */
        }
    }
    g_assert_cmpuint(at, >, 0);
    /* the layout is what the offsets assume: queue 1 switching, QUANTUM */
    g_assert_cmpuint(ldl_be_p(orig.data + at + AT_RL_CURRENT), ==, 1);
    g_assert_cmpuint(orig.data[at + AT_RL_CURRENT + 4], ==, 1);
    g_assert_cmpuint(ldl_be_p(orig.data + at + AT_RL_CURRENT + 5), ==,
                     COPRO_SLOG_OUT_QUANTUM);

    st = orig;
    st.marker = at;
    st.data = g_memdup2(orig.data, orig.len);
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);

    refuse_patched(file, &st, &orig, bad, G_N_ELEMENTS(bad));
    unlink(file);
    g_free(st.data);
    g_free(orig.data);
}

/* Queue 1 alone on engine 0, 10 us quanta, 500 us into 1 ms of work. */
static void prepare_hws_lone(Copro *c)
{
    QPCIBar db = qpci_iomap(c->dev, COPRO_BAR_DOORBELL, NULL);
    struct copro_runlist_entry r;
    int64_t t0;

    mq_queue(c, 1, 0);
    vram_read(c, MQ_RL, &r, sizeof(r));
    r.quantum_ns = cpu_to_le32(10000);
    vram_write(c, MQ_RL, &r, sizeof(r));
    wr64(c, COPRO_RL_BASE(0) + COPRO_RL_ADDR, MQ_RL);
    wr32(c, COPRO_RL_BASE(0) + COPRO_RL_COUNT, 1);
    wr32(c, COPRO_RL_BASE(0) + COPRO_RL_COMMIT, 1);
    t0 = copro_time(c);
    mq_submit(c, db, 1, 11);
    copro_clock_to(c, t0 + 500000);
}

/*
 * Subsection copro/hwsched/quantum (where a lone queue's present quantum
 * began) is checked on load: a time the scheduler could overflow with, or
 * a quantum that began before its run, is refused. The unpatched stream
 * loads and the run ends there.
 */
static void test_migrate_hws_quantum_stream(void)
{
    g_autofree char *file = NULL;
    static const char name[] = "copro/hwsched/quantum";
    static const char hws[] = "copro/hwsched";
    Stream st, orig;
    Copro dst;
    gsize at = 0, hat = 0;

    save_stream("", prepare_hws_lone, &orig, &file);
    for (gsize i = 0; i + sizeof(name) <= orig.len; i++) {
        if (orig.data[i] == sizeof(name) - 1 &&
            !memcmp(orig.data + i + 1, name, sizeof(name) - 1)) {
            g_assert_cmpuint(at, ==, 0);
            at = i + sizeof(name) + 4;      /* after name and version */
        }
        if (orig.data[i] == sizeof(hws) - 1 &&
            !memcmp(orig.data + i + 1, hws, sizeof(hws) - 1)) {
            hat = i + sizeof(hws) + 4;
        }
    }
    /* a new quantum began after the switch-in: the subsection is sent */
    g_assert_cmpuint(at, >, 0);
    g_assert_cmpuint(hat, >, 0);
    g_assert_cmpuint(ldl_be_p(orig.data + hat + AT_RL_CURRENT), ==, 1);
    g_assert_cmpint((int64_t)ldq_be_p(orig.data + at), >,
                    (int64_t)ldq_be_p(orig.data + hat + AT_RL_RUN_START));

    st = orig;
    st.marker = at;
    st.data = g_memdup2(orig.data, orig.len);
    g_assert_true(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);

    put_be64(&st, 0, INT64_MAX);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);
    put_be64(&st, 0, -5);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    copro_shutdown(&dst);
    /* the run began after its quantum */
    memcpy(st.data, orig.data, orig.len);
    st.marker = hat;
    put_be64(&st, AT_RL_RUN_START, ldq_be_p(orig.data + at) + 1);
    g_assert_false(load_stream(&dst, file, &st, "", ""));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);
    unlink(file);
    g_free(st.data);
    g_free(orig.data);
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
    qtest_add_func("/copro/migration/hostile-stream",
                   test_migrate_hostile_stream);
    qtest_add_func("/copro/migration/no-dma-before-run",
                   test_migrate_no_dma_before_run);
    qtest_add_func("/copro/migration/batch-fault", test_migrate_batch_fault);
    qtest_add_func("/copro/migration/hostile-hold",
                   test_migrate_hostile_hold);
    qtest_add_func("/copro/migration/hostile-tiler",
                   test_migrate_hostile_tiler);
    qtest_add_func("/copro/migration/hwsched-stream",
                   test_migrate_hwsched_stream);
    qtest_add_func("/copro/migration/hws-mid-switch",
                   test_migrate_hws_mid_switch);
    qtest_add_func("/copro/migration/hws-switch-stream",
                   test_migrate_hws_switch_stream);
    qtest_add_func("/copro/migration/hws-quantum-stream",
                   test_migrate_hws_quantum_stream);
    return g_test_run();
}
