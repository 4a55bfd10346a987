/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's timeline: the host-side event log (off by default),
 * every event of a scripted sequence (submit, preempt, resume, retire,
 * fault, reset) with its exact virtual time and arguments, the bound and
 * the drop counter, guest markers, the x-copro-timeline and
 * x-copro-timeline-set commands (their schema, since/max/clear/file, the
 * errors), and that device reset, migration, unplug and exit keep working
 * with the log on.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "qobject/qbool.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "qobject/qlist.h"
#include "qobject/qstring.h"
#include "copro-qtest.h"

#define RING        0x0000          /* engine 0 ring, 16 entries */
#define SAVE        0x2000          /* save area */
#define BUF_A       0x10000         /* WORK buffer */
#define BUF_B       0x11000         /* NOP buffer */
#define PKT_NS      100             /* packet-ns, default */
#define SLICE_NS    100000          /* arbitration-ns, default */
/* ctx-state-size 256 KiB at copy-bw 8 GiB/s, rounded down */
#define SWITCH_NS   (262144ULL * 1000000000ULL / (8ULL << 30))

/* x-copro-timeline with @args ("" or "'since': 3, ..."); unref the result */
static QDict *tl_read(Copro *c, const char *args)
{
    g_autofree char *json = g_strdup_printf("{ %s }", args);
    QObject *arg = qobject_from_json(json, &error_abort);
    QDict *rsp = qtest_qmp(c->qts, "{ 'execute': 'x-copro-timeline', "
                           "'arguments': %p }", arg);

    g_assert_true(qdict_haskey(rsp, "return"));
    return rsp;
}

static QDict *tl_ret(QDict *rsp)
{
    return qdict_get_qdict(rsp, "return");
}

static QList *tl_events(QDict *rsp)
{
    return qdict_get_qlist(tl_ret(rsp), "events");
}

/* The answer to a command that must fail. */
static void tl_fails(QDict *rsp)
{
    g_assert_true(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
}

static void tl_set(Copro *c, bool on, uint32_t capacity)
{
    if (capacity) {
        qtest_qmp_assert_success(c->qts, "{ 'execute': "
                                 "'x-copro-timeline-set', 'arguments': "
                                 "{ 'enable': %i, 'capacity': %u } }",
                                 on, capacity);
    } else {
        qtest_qmp_assert_success(c->qts, "{ 'execute': "
                                 "'x-copro-timeline-set', 'arguments': "
                                 "{ 'enable': %i } }", on);
    }
}

/*
 * One expected event: @time NOW for the time check_events() is given,
 * @engine and @context -1 when the event must have none; @args the exact
 * JSON object of its arguments.
 */
#define NOW (-1)

typedef struct Want {
    const char *kind;
    const char *source;
    int64_t time;
    int engine;
    int64_t context;
    const char *args;
} Want;

static void check_event(QDict *ev, const Want *w, uint64_t seq,
                        int64_t now)
{
    QObject *want_args = qobject_from_json(w->args, &error_abort);
    g_autoptr(GString) got = qobject_to_json(qdict_get(ev, "args"));

    g_test_message("event %" PRIu64 ": %s at %" PRIu64 " %s", seq,
                   qdict_get_str(ev, "kind"),
                   copro_qdict_u64(ev, "time-ns"), got->str);
    g_assert_cmpuint(copro_qdict_u64(ev, "seq"), ==, seq);
    g_assert_cmpstr(qdict_get_str(ev, "kind"), ==, w->kind);
    g_assert_cmpstr(qdict_get_str(ev, "source"), ==, w->source);
    g_assert_cmpint(copro_qdict_u64(ev, "time-ns"), ==,
                    w->time == NOW ? now : w->time);
    if (w->engine < 0) {
        g_assert_false(qdict_haskey(ev, "engine"));
    } else {
        g_assert_cmpint(qdict_get_int(ev, "engine"), ==, w->engine);
    }
    if (w->context < 0) {
        g_assert_false(qdict_haskey(ev, "context"));
    } else {
        g_assert_cmpint(qdict_get_int(ev, "context"), ==, w->context);
    }
    if (!qobject_is_equal(want_args, qdict_get(ev, "args"))) {
        g_test_message("want args %s", w->args);
        g_assert_not_reached();
    }
    qobject_unref(want_args);
}

/* Events from @rsp, starting at seq @first, are exactly @want. */
static void check_events_at(QDict *rsp, uint64_t first, const Want *want,
                            size_t n, int64_t now)
{
    QList *evs = tl_events(rsp);
    const QListEntry *le;
    size_t i = 0;

    QLIST_FOREACH_ENTRY(evs, le) {
        g_assert_cmpuint(i, <, n);
        check_event(qobject_to(QDict, qlist_entry_obj(le)), &want[i],
                    first + i, now);
        i++;
    }
    g_assert_cmpuint(i, ==, n);
}

static void check_events(QDict *rsp, uint64_t first, const Want *want,
                         size_t n)
{
    check_events_at(rsp, first, want, n, NOW);
}

static void put_work(Copro *c, uint64_t at, uint64_t ns)
{
    g_autoptr(GArray) b = copro_buf_new();

    copro_pkt_work(b, ns);
    copro_buf_put(c, at, b);
}

static void submit(Copro *c, uint64_t buf, uint32_t len, uint64_t fence,
                   uint32_t ctx, uint32_t flags)
{
    struct copro_submit_desc d = copro_desc(buf, len, fence, ctx, flags);

    d.save_addr = SAVE;
    copro_submit_desc(c, 0, &d);
}

static void mark(Copro *c, uint32_t kind, uint32_t engine, uint32_t ctx,
                 uint64_t a0, uint64_t a1)
{
    wr64(c, COPRO_REG_MARK_ARG0, a0);
    wr64(c, COPRO_REG_MARK_ARG1, a1);
    wr64(c, COPRO_REG_MARK, COPRO_MARK(kind, engine, ctx));
}

/* Off by default: nothing is recorded, markers included. */
static void test_off(void)
{
    QDict *rsp;
    Copro c;

    copro_boot(&c, "-M q35", "timing=instant");
    copro_ring_setup(&c, 0, RING, 16);
    put_work(&c, BUF_A, 1000);
    submit(&c, BUF_A, 12, 1, 1, 0);
    copro_run(&c, 0);
    mark(&c, COPRO_MARK_QUEUE, 0, 1, 2, 3);
    rsp = tl_read(&c, "");
    g_assert_false(qdict_get_bool(tl_ret(rsp), "enabled"));
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "capacity"), ==, 0);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "next-seq"), ==, 0);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "dropped"), ==, 0);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "engines"), ==, 2);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "refresh"), ==, 60);
    g_assert_true(qlist_empty(tl_events(rsp)));
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/*
 * A scripted run with modelled time: a 1 ms WORK buffer is preempted
 * mid-command (a buffer queued behind it is dropped), resumed and retires;
 * an injected fault halts the next buffer and an engine reset clears it.
 * Every event, its time to the ns and its arguments.
 */
static void test_sequence(void)
{
    int64_t t0, t1, t2, t3;
    QDict *rsp;
    Copro c;

    copro_boot(&c, "-M q35", "timeline=256,x-fault-injection=on");
    copro_ring_setup(&c, 0, RING, 16);
    put_work(&c, BUF_A, 1000000);
    vram_w32(&c, BUF_B, COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1));

    t0 = copro_time(&c);
    submit(&c, BUF_A, 12, 1, 7, 0);
    copro_run_until_busy(&c, 0);
    /* queued behind it: the preemption drops it */
    copro_clock_to(&c, t0 + 150000);
    submit(&c, BUF_B, 4, 9, 9, 0);
    /* WORK slices end at t0 + 100 + k * 100 us; request between two */
    copro_clock_to(&c, t0 + 250000);
    ewr64(&c, 0, COPRO_ENG_PREEMPT_REQ, 50);
    copro_clock_to(&c, t0 + 400000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 50);

    t1 = copro_time(&c);
    submit(&c, BUF_A, 12, 2, 7, COPRO_SUBMIT_RESUME);
    copro_clock_to(&c, t1 + 1000000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 2);

    t2 = copro_time(&c);
    ewr32(&c, 0, COPRO_ENG_INJECT, COPRO_INJECT_FAULT_NEXT);
    submit(&c, BUF_B, 4, 3, 8, 0);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    copro_clock_to(&c, t2 + 1000);
    t3 = copro_time(&c);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    mark(&c, COPRO_MARK_TDR, 0, 8, COPRO_MARK_TDR_RESET, 3);

    {
        g_autofree char *saved = g_strdup_printf(
            "{ \"preempt-fence\": 50, \"fence\": 1, \"offset\": 0, "
            "\"dropped\": 1, \"latency-ns\": %llu }",
            PKT_NS + 3 * SLICE_NS + SWITCH_NS - 250000);
        g_autofree char *fault = g_strdup_printf(
            "{ \"fault\": \"injected fault\", \"code\": %d, "
            "\"address\": %d, \"offset\": 0, \"fence\": 3 }",
            COPRO_FAULT_INJECTED, BUF_B);
        const Want want[] = {
            { "device-reset", "device", 0, -1, -1, "{}" },
            { "doorbell", "engine", t0, 0, -1,
              "{ \"head\": 0, \"tail\": 1 }" },
            { "start", "engine", t0, 0, 7, "{ \"fence\": 1, "
              "\"paging\": false, \"resume\": false, \"slot\": 0 }" },
            /* rung while fence 1 runs: it carries that context */
            { "doorbell", "engine", t0 + 150000, 0, 7,
              "{ \"head\": 1, \"tail\": 2 }" },
            { "preempt-request", "engine", t0 + 250000, 0, 7,
              "{ \"preempt-fence\": 50, \"fence\": 1 }" },
            /* the end of the slice running at the request + the save */
            { "preempt-saved", "engine",
              t0 + PKT_NS + 3 * SLICE_NS + SWITCH_NS, 0, 7, saved },
            { "doorbell", "engine", t1, 0, -1,
              "{ \"head\": 2, \"tail\": 3 }" },
            { "start", "engine", t1, 0, 7, "{ \"fence\": 2, "
              "\"paging\": false, \"resume\": true, \"slot\": 2 }" },
            { "resume", "engine", t1, 0, 7,
              "{ \"fence\": 2, \"offset\": 0, \"progress\": 300000 }" },
            /* restore, then the 700 us of WORK left */
            { "retire", "engine", t1 + SWITCH_NS + 700000, 0, 7,
              "{ \"fence\": 2, \"paging\": false, \"bytes\": 0 }" },
            { "doorbell", "engine", t2, 0, -1,
              "{ \"head\": 3, \"tail\": 4 }" },
            { "start", "engine", t2, 0, 8, "{ \"fence\": 3, "
              "\"paging\": false, \"resume\": false, \"slot\": 3 }" },
            { "fault", "engine", t2, 0, 8, fault },
            { "reset", "engine", t3, 0, 8,
              "{ \"aborted-fence\": 3, \"completed-fence\": 2 }" },
            { "tdr", "guest", t3, 0, 8,
              "{ \"step\": \"reset\", \"fence\": 3 }" },
        };

        rsp = tl_read(&c, "");
        g_assert_true(qdict_get_bool(tl_ret(rsp), "enabled"));
        g_assert_cmpint(qdict_get_int(tl_ret(rsp), "capacity"), ==, 256);
        g_assert_cmpint(qdict_get_int(tl_ret(rsp), "next-seq"), ==,
                        ARRAY_SIZE(want));
        g_assert_cmpint(qdict_get_int(tl_ret(rsp), "gpu-time-ns"), ==, t3);
        check_events(rsp, 0, want, ARRAY_SIZE(want));
        qobject_unref(rsp);
    }
    copro_shutdown(&c);
}

/* A full log drops the oldest events and counts them; since/max/clear. */
static void test_bound(void)
{
    QDict *rsp;
    Copro c;
    Want want[8];
    int64_t t;

    copro_boot(&c, "-M q35", "timeline=8");
    t = copro_time(&c);
    for (unsigned i = 0; i < 20; i++) {
        mark(&c, COPRO_MARK_QUEUE, COPRO_MARK_NO_ENGINE, 5, i, 100 + i);
    }
    /* seq 0 is the device reset at power-on; markers 1..20 */
    rsp = tl_read(&c, "");
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "next-seq"), ==, 21);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "dropped"), ==, 13);
    for (unsigned i = 0; i < 8; i++) {
        want[i] = (Want) { "queue", "guest", NOW, -1, 5,
                           g_strdup_printf("{ \"buffer\": %u, "
                                           "\"bytes\": %u }",
                                           12 + i, 112 + i) };
    }
    check_events_at(rsp, 13, want, 8, t);
    qobject_unref(rsp);

    rsp = tl_read(&c, "'since': 18");
    check_events_at(rsp, 18, want + 5, 3, t);
    qobject_unref(rsp);
    rsp = tl_read(&c, "'since': 2, 'max': 2");
    check_events_at(rsp, 13, want, 2, t);
    qobject_unref(rsp);
    rsp = tl_read(&c, "'since': 21");
    check_events_at(rsp, 21, want, 0, t);
    qobject_unref(rsp);

    /* clear: returns what it read, then the log is empty */
    rsp = tl_read(&c, "'since': 19, 'clear': true");
    check_events_at(rsp, 19, want + 6, 2, t);
    qobject_unref(rsp);
    rsp = tl_read(&c, "");
    check_events_at(rsp, 21, want, 0, t);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "next-seq"), ==, 21);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "dropped"), ==, 0);
    qobject_unref(rsp);
    for (unsigned i = 0; i < 8; i++) {
        g_free((char *)want[i].args);
    }

    /* numbering goes on after a clear */
    mark(&c, COPRO_MARK_HOLD, 1, 9, 0, 0);
    rsp = tl_read(&c, "");
    want[0] = (Want) { "hold", "guest", NOW, 1, 9, "{}" };
    check_events_at(rsp, 21, want, 1, t);
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/* Every marker kind, its named arguments; bad markers are not recorded. */
static void test_markers(void)
{
    static const Want want[] = {
        { "queue", "guest", NOW, 0, 1, "{ \"buffer\": 10, \"bytes\": 64 }" },
        { "elect", "guest", NOW, 0, 1, "{ \"buffer\": 10, \"priority\": 4 }" },
        { "prepare-start", "guest", NOW, 0, 1, "{ \"buffer\": 10 }" },
        { "prepare-end", "guest", NOW, 0, 1, "{ \"buffer\": 10 }" },
        { "unstage", "guest", NOW, 0, 1, "{ \"buffer\": 10 }" },
        { "ring", "guest", NOW, 0, 1, "{ \"buffer\": 10, \"fence\": 3 }" },
        { "done", "guest", NOW, 0, 1, "{ \"buffer\": 10, \"status\": -7 }" },
        { "preempt-decision", "guest", NOW, 1, 0,
          "{ \"reason\": \"quantum\", \"preempt-fence\": 4 }" },
        { "paging-built", "guest", NOW, 1, 0,
          "{ \"buffer\": 11, \"bytes\": 65536 }" },
        { "present", "guest", NOW, -1, 2,
          "{ \"frame\": 5, \"surface\": 1048576 }" },
        { "deadline-miss", "guest", NOW, -1, 2,
          "{ \"frame\": 6, \"late-ns\": 1500 }" },
        { "tdr", "guest", NOW, 0, 3,
          "{ \"step\": \"device-reset\", \"fence\": 0 }" },
        { "boost", "guest", NOW, 0, 3, "{ \"priority\": 5 }" },
        { "unboost", "guest", NOW, 0, 3, "{}" },
        { "hold", "guest", NOW, 0, 3, "{}" },
        { "release", "guest", NOW, 0, 3, "{}" },
        /* a reason the device does not know keeps its number */
        { "preempt-decision", "guest", NOW, 0, 0,
          "{ \"reason\": 9, \"preempt-fence\": 1 }" },
        { "present", "guest", NOW, -1, 0xfffffff0u,
          "{ \"frame\": 18446744073709551615, \"surface\": 1 }" },
    };
    QDict *rsp;
    Copro c;

    copro_boot(&c, "-M q35", "timeline=64");
    mark(&c, COPRO_MARK_QUEUE, 0, 1, 10, 64);
    mark(&c, COPRO_MARK_ELECT, 0, 1, 10, 4);
    mark(&c, COPRO_MARK_PREPARE_START, 0, 1, 10, 0);
    mark(&c, COPRO_MARK_PREPARE_END, 0, 1, 10, 0);
    mark(&c, COPRO_MARK_UNSTAGE, 0, 1, 10, 0);
    mark(&c, COPRO_MARK_RING, 0, 1, 10, 3);
    mark(&c, COPRO_MARK_DONE, 0, 1, 10, (uint64_t)-7);
    mark(&c, COPRO_MARK_PREEMPT, 1, 0, COPRO_MARK_REASON_QUANTUM, 4);
    mark(&c, COPRO_MARK_PAGING, 1, 0, 11, 65536);
    mark(&c, COPRO_MARK_PRESENT, COPRO_MARK_NO_ENGINE, 2, 5, 1 << 20);
    mark(&c, COPRO_MARK_DEADLINE_MISS, COPRO_MARK_NO_ENGINE, 2, 6, 1500);
    mark(&c, COPRO_MARK_TDR, 0, 3, COPRO_MARK_TDR_DEVICE_RESET, 0);
    mark(&c, COPRO_MARK_BOOST, 0, 3, 5, 0);
    mark(&c, COPRO_MARK_UNBOOST, 0, 3, 0, 0);
    mark(&c, COPRO_MARK_HOLD, 0, 3, 0, 0);
    mark(&c, COPRO_MARK_RELEASE, 0, 3, 0, 0);
    mark(&c, COPRO_MARK_PREEMPT, 0, 0, 9, 1);

    /* refused: no kind, unknown kind, reserved bits, no such engine */
    mark(&c, 0, 0, 0, 0, 0);
    mark(&c, COPRO_MARK_LAST + 1, 0, 0, 0, 0);
    wr64(&c, COPRO_REG_MARK, COPRO_MARK(COPRO_MARK_HOLD, 0, 0) |
         (1ull << 24));
    mark(&c, COPRO_MARK_HOLD, 2, 0, 0, 0);

    /* a 4-byte driver: the lower half waits for the upper one */
    wr64(&c, COPRO_REG_MARK_ARG0, UINT64_MAX);
    wr32(&c, COPRO_REG_MARK_ARG1, 1);
    wr32(&c, COPRO_REG_MARK_ARG1 + 4, 0);
    wr32(&c, COPRO_REG_MARK,
         (uint32_t)COPRO_MARK(COPRO_MARK_PRESENT, COPRO_MARK_NO_ENGINE, 0));
    g_assert_cmpuint(rd64(&c, COPRO_REG_MARK_ARG0), ==, UINT64_MAX);
    g_assert_cmpuint(rd64(&c, COPRO_REG_MARK_ARG1), ==, 1);
    g_assert_cmpuint(rd64(&c, COPRO_REG_MARK), ==, 0);      /* WO */
    rsp = tl_read(&c, "'since': 1");
    g_assert_cmpuint(qlist_size(tl_events(rsp)), ==, ARRAY_SIZE(want) - 1);
    qobject_unref(rsp);
    wr32(&c, COPRO_REG_MARK + 4, 0xfffffff0u);

    rsp = tl_read(&c, "'since': 1");
    check_events_at(rsp, 1, want, ARRAY_SIZE(want), copro_time(&c));
    qobject_unref(rsp);

    /* a filter: the others' sequence numbers are skipped */
    rsp = tl_read(&c, "'kinds': [ 'present', 'tdr' ], 'since': 11");
    {
        QList *evs = tl_events(rsp);
        const uint64_t seqs[] = { 12, 18 };
        const QListEntry *le;
        unsigned i = 0;

        g_assert_cmpuint(qlist_size(evs), ==, 2);
        QLIST_FOREACH_ENTRY(evs, le) {
            QDict *ev = qobject_to(QDict, qlist_entry_obj(le));

            g_assert_cmpuint(copro_qdict_u64(ev, "seq"), ==, seqs[i]);
            check_event(ev, &want[seqs[i] - 1], seqs[i], copro_time(&c));
            i++;
        }
    }
    qobject_unref(rsp);
    tl_fails(qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline', "
                       "'arguments': { 'kinds': [ 'nosuch' ] } }"));

    /* a device reset clears the registers, not the log */
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'system_reset' }");
    g_assert_cmpuint(rd64(&c, COPRO_REG_MARK_ARG0), ==, 0);
    rsp = tl_read(&c, "");
    g_assert_cmpuint(qlist_size(tl_events(rsp)), ==, ARRAY_SIZE(want) + 2);
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/* The members of a QAPI object type in query-qmp-schema's answer. */
static char *schema_members(QList *schema, const char *type)
{
    const QListEntry *le, *me;
    GString *names = g_string_new("");

    QLIST_FOREACH_ENTRY(schema, le) {
        QDict *t = qobject_to(QDict, qlist_entry_obj(le));

        if (strcmp(qdict_get_str(t, "name"), type)) {
            continue;
        }
        g_assert_cmpstr(qdict_get_str(t, "meta-type"), ==, "object");
        QLIST_FOREACH_ENTRY(qdict_get_qlist(t, "members"), me) {
            QDict *m = qobject_to(QDict, qlist_entry_obj(me));

            g_string_append_printf(names, "%s%s ",
                                   qdict_haskey(m, "default") ? "*" : "",
                                   qdict_get_str(m, "name"));
        }
    }
    return g_string_free(names, false);
}

static QDict *schema_find(QList *schema, const char *name)
{
    const QListEntry *le;

    QLIST_FOREACH_ENTRY(schema, le) {
        QDict *t = qobject_to(QDict, qlist_entry_obj(le));

        if (!strcmp(qdict_get_str(t, "name"), name)) {
            return t;
        }
    }
    return NULL;
}

/* The commands' schema as QEMU introspects it. */
static void test_schema(void)
{
    QDict *rsp, *cmd;
    QList *schema;
    g_autofree char *args = NULL, *ret = NULL, *set = NULL;
    const QListEntry *le;
    Copro c;

    copro_boot(&c, "-M q35", "");
    rsp = qtest_qmp(c.qts, "{ 'execute': 'query-qmp-schema' }");
    schema = qdict_get_qlist(rsp, "return");

    cmd = schema_find(schema, "x-copro-timeline");
    g_assert_nonnull(cmd);
    g_assert_cmpstr(qdict_get_str(cmd, "meta-type"), ==, "command");
    args = schema_members(schema, qdict_get_str(cmd, "arg-type"));
    g_assert_cmpstr(args, ==, "*device *since *max *kinds *clear *file ");
    ret = schema_members(schema, qdict_get_str(cmd, "ret-type"));
    g_assert_cmpstr(ret, ==, "path enabled capacity engines refresh "
                    "gpu-time-ns next-seq dropped events ");
    QLIST_FOREACH_ENTRY(qdict_get_qlist(cmd, "features"), le) {
        g_assert_cmpstr(qstring_get_str(qobject_to(QString,
                                                   qlist_entry_obj(le))),
                        ==, "unstable");
    }

    cmd = schema_find(schema, "x-copro-timeline-set");
    g_assert_nonnull(cmd);
    set = schema_members(schema, qdict_get_str(cmd, "arg-type"));
    g_assert_cmpstr(set, ==, "*device enable *capacity ");
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/* The event object of the schema, through a real event. */
static void test_event_schema(void)
{
    QDict *rsp, *cmd, *ev;
    QList *schema;
    g_autofree char *members = NULL;
    const char *events_type = NULL;
    const QListEntry *le;
    Copro c;

    copro_boot(&c, "-M q35", "timeline=4");
    rsp = qtest_qmp(c.qts, "{ 'execute': 'query-qmp-schema' }");
    schema = qdict_get_qlist(rsp, "return");
    cmd = schema_find(schema, "x-copro-timeline");
    QLIST_FOREACH_ENTRY(qdict_get_qlist(schema_find(schema,
                            qdict_get_str(cmd, "ret-type")), "members"), le) {
        QDict *m = qobject_to(QDict, qlist_entry_obj(le));

        if (!strcmp(qdict_get_str(m, "name"), "events")) {
            events_type = qdict_get_str(m, "type");
        }
    }
    g_assert_nonnull(events_type);
    /* an array type: its element type is the event */
    ev = schema_find(schema, events_type);
    g_assert_cmpstr(qdict_get_str(ev, "meta-type"), ==, "array");
    members = schema_members(schema, qdict_get_str(ev, "element-type"));
    g_assert_cmpstr(members, ==, "seq time-ns kind source *engine *context "
                    "args ");
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/* x-copro-timeline-set; device names; the errors. */
static void test_control(void)
{
    QDict *rsp;
    Copro c;

    copro_boot(&c, "-M q35", "id=gpu0");
    tl_fails(qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline', "
                       "'arguments': { 'device': 'nosuch' } }"));
    tl_fails(qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline-set', "
                       "'arguments': { 'enable': true, 'capacity': 0 } }"));
    tl_fails(qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline-set', "
                       "'arguments': { 'enable': true, "
                       "'capacity': 4194305 } }"));
    tl_fails(qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline', "
                       "'arguments': { 'file': '/nonexistent/dir/x' } }"));

    /* default capacity: 65536 when the property is 0 */
    tl_set(&c, true, 0);
    rsp = tl_read(&c, "'device': 'gpu0'");
    g_assert_true(qdict_get_bool(tl_ret(rsp), "enabled"));
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "capacity"), ==, 65536);
    qobject_unref(rsp);
    mark(&c, COPRO_MARK_HOLD, 0, 1, 0, 0);
    /* off: the events stay, new ones are not recorded */
    tl_set(&c, false, 0);
    mark(&c, COPRO_MARK_RELEASE, 0, 1, 0, 0);
    rsp = tl_read(&c, "'device': '/machine/peripheral/gpu0'");
    g_assert_false(qdict_get_bool(tl_ret(rsp), "enabled"));
    g_assert_cmpuint(qlist_size(tl_events(rsp)), ==, 1);
    qobject_unref(rsp);
    /* on again with the same capacity: same log */
    tl_set(&c, true, 65536);
    mark(&c, COPRO_MARK_RELEASE, 0, 1, 0, 0);
    rsp = tl_read(&c, "");
    g_assert_cmpuint(qlist_size(tl_events(rsp)), ==, 2);
    qobject_unref(rsp);
    /* another capacity: a new, empty log; numbering goes on */
    tl_set(&c, true, 16);
    rsp = tl_read(&c, "");
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "capacity"), ==, 16);
    g_assert_cmpuint(qlist_size(tl_events(rsp)), ==, 0);
    g_assert_cmpint(qdict_get_int(tl_ret(rsp), "next-seq"), ==, 2);
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/* Two devices: one must be named. */
static void test_two_devices(void)
{
    QTestState *qts = qtest_init("-M q35 -nodefaults "
                                 "-device copro,id=a,timeline=4 "
                                 "-device copro,id=b");
    QDict *rsp;

    rsp = qtest_qmp(qts, "{ 'execute': 'x-copro-timeline' }");
    g_assert_true(qdict_haskey(rsp, "error"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{ 'execute': 'x-copro-timeline', 'arguments': "
                    "{ 'device': 'a' } }");
    g_assert_true(qdict_get_bool(qdict_get_qdict(rsp, "return"),
                                 "enabled"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{ 'execute': 'x-copro-timeline', 'arguments': "
                    "{ 'device': 'b' } }");
    g_assert_false(qdict_get_bool(qdict_get_qdict(rsp, "return"),
                                  "enabled"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

/* Read a file written by the device, as a QDict. */
static QDict *load_json(const char *path)
{
    g_autofree char *text = NULL;
    QObject *obj;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    obj = qobject_from_json(text, &error_abort);
    return qobject_to(QDict, obj);
}

/* 'file': the same object as the command returns, events included. */
static void test_file(void)
{
    g_autofree char *path = g_strdup_printf("%s/copro-tl-%d.json",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *args = g_strdup_printf("'file': '%s', 'since': 2",
                                            path);
    QDict *rsp, *direct, *file;
    Copro c;

    copro_boot(&c, "-M q35", "timeline=64,timing=instant");
    copro_ring_setup(&c, 0, RING, 16);
    put_work(&c, BUF_A, 1000);
    for (unsigned i = 1; i <= 3; i++) {
        submit(&c, BUF_A, 12, i, i, 0);
        copro_run(&c, 0);
    }
    direct = tl_read(&c, "'since': 2");
    rsp = tl_read(&c, args);
    g_assert_true(qlist_empty(tl_events(rsp)));
    file = load_json(path);
    unlink(path);
    /* the same but for the clock at reading */
    qdict_del(tl_ret(direct), "gpu-time-ns");
    qdict_del(file, "gpu-time-ns");
    g_assert_cmpuint(qlist_size(qdict_get_qlist(file, "events")), ==, 8);
    g_assert_true(qobject_is_equal(QOBJECT(tl_ret(direct)), QOBJECT(file)));
    qobject_unref(rsp);
    qobject_unref(direct);
    qobject_unref(file);
    copro_shutdown(&c);
}

static const char *run_status(Copro *c)
{
    QDict *rsp = qtest_qmp(c->qts, "{ 'execute': 'query-status' }");
    const char *st = qdict_get_str(qdict_get_qdict(rsp, "return"), "status");
    static char buf[32];

    g_strlcpy(buf, st, sizeof(buf));
    qobject_unref(rsp);
    return buf;
}

static void stop_at_fails(Copro *c, const char *args, const char *why)
{
    g_autofree char *json = g_strdup_printf("{ %s }", args);
    QObject *a = qobject_from_json(json, &error_abort);
    QDict *rsp = qtest_qmp(c->qts, "{ 'execute': 'x-copro-stop-at', "
                           "'arguments': %p }", a);

    g_assert_true(qdict_haskey(rsp, "error"));
    g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"),
                                          "desc"), why));
    qobject_unref(rsp);
}

/*
 * x-copro-stop-at: the VM stops (STOP event, status paused) at the
 * count-th event of a kind, or when the device clock reaches a time, and
 * not before; bad arguments are refused with a reason.
 */
static void test_stop_at(void)
{
    g_autofree char *past = NULL;
    int64_t t;
    Copro c;

    copro_boot(&c, "-M q35", "");
    stop_at_fails(&c, "", "either 'kind' or 'time-ns'");
    stop_at_fails(&c, "'kind': 'queue', 'time-ns': 1", "either");
    stop_at_fails(&c, "'kind': 'queue'", "the timeline is off");
    tl_set(&c, true, 64);
    stop_at_fails(&c, "'kind': 'no-such-kind'", "unknown timeline event");
    stop_at_fails(&c, "'kind': 'queue', 'count': 0", "at least 1");
    past = g_strdup_printf("'time-ns': %" PRId64, copro_time(&c));
    stop_at_fails(&c, past, "is not after the device clock");

    qtest_qmp_assert_success(c.qts, "{ 'execute': 'x-copro-stop-at', "
                             "'arguments': { 'kind': 'queue', "
                             "'count': 3 } }");
    mark(&c, COPRO_MARK_QUEUE, COPRO_MARK_NO_ENGINE, 5, 1, 1);
    mark(&c, COPRO_MARK_QUEUE, COPRO_MARK_NO_ENGINE, 5, 2, 2);
    mark(&c, COPRO_MARK_HOLD, 1, 9, 0, 0);
    g_assert_cmpstr(run_status(&c), ==, "running");
    mark(&c, COPRO_MARK_QUEUE, COPRO_MARK_NO_ENGINE, 5, 3, 3);
    qtest_qmp_eventwait(c.qts, "STOP");
    g_assert_cmpstr(run_status(&c), ==, "paused");
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'cont' }");
    /* one-shot: the next one does not stop */
    mark(&c, COPRO_MARK_QUEUE, COPRO_MARK_NO_ENGINE, 5, 4, 4);
    g_assert_cmpstr(run_status(&c), ==, "running");

    t = copro_time(&c);
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'x-copro-stop-at', "
                             "'arguments': { 'time-ns': %" PRId64 " } }",
                             t + 5000);
    copro_clock_to(&c, t + 4999);
    g_assert_cmpstr(run_status(&c), ==, "running");
    copro_clock_to(&c, t + 5000);
    qtest_qmp_eventwait(c.qts, "STOP");
    g_assert_cmpstr(run_status(&c), ==, "paused");
    g_assert_cmpint(copro_time(&c), ==, t + 5000);
    copro_shutdown(&c);
}

/* x-timeline-file: written at exit, and at unplug. */
static void test_exit_file(void)
{
    g_autofree char *path = g_strdup_printf("%s/copro-tl-exit-%d.json",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *opts = g_strdup_printf("id=c1,timeline=16,"
                                            "x-timeline-file=%s", path);
    QDict *file;
    QList *evs;
    Copro c;

    unlink(path);
    copro_boot(&c, "-M q35", opts);
    mark(&c, COPRO_MARK_PRESENT, COPRO_MARK_NO_ENGINE, 3, 1, 2);
    copro_shutdown(&c);
    file = load_json(path);
    unlink(path);
    evs = qdict_get_qlist(file, "events");
    g_assert_cmpuint(qlist_size(evs), ==, 2);
    g_assert_cmpstr(qdict_get_str(qobject_to(QDict, qlist_peek(evs)),
                                  "kind"), ==, "device-reset");
    qobject_unref(file);

    /* unplugged: written then, and QEMU goes on */
    copro_boot(&c, "-M pc", opts);
    mark(&c, COPRO_MARK_PRESENT, COPRO_MARK_NO_ENGINE, 3, 1, 2);
    qpci_unplug_acpi_device_test(c.qts, "c1", COPRO_SLOT);
    file = load_json(path);
    unlink(path);
    g_assert_cmpuint(qlist_size(qdict_get_qlist(file, "events")), ==, 2);
    qobject_unref(file);
    tl_fails(qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline' }"));
    qtest_clock_step(c.qts, 1000000);
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&c);
}

static void wait_migrated(QTestState *qts)
{
    for (int i = 0; i < 1000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *st = ret ? qdict_get_try_str(ret, "status") : NULL;
        bool done = st && !strcmp(st, "completed");

        g_assert_cmpstr(st ? st : "", !=, "failed");
        qobject_unref(rsp);
        if (done) {
            return;
        }
        g_usleep(10 * 1000);
    }
    g_assert_not_reached();
}

/*
 * Migration with the log on in the middle of a buffer: the log is not
 * migrated (the destination has its own) and both go on recording.
 */
static void test_migration(void)
{
    g_autofree char *file = g_strdup_printf("%s/copro-tl-mig-%d.bin",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    int64_t t0, t_mig;
    QDict *rsp;
    Copro src, dst;

    copro_boot(&src, "-M q35", "timeline=64");
    copro_ring_setup(&src, 0, RING, 16);
    put_work(&src, BUF_A, 1000000);
    t0 = copro_time(&src);
    submit(&src, BUF_A, 12, 1, 4, 0);
    copro_run_until_busy(&src, 0);
    copro_clock_to(&src, t0 + 250000);
    t_mig = copro_time(&src);
    qtest_qmp_assert_success(src.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    wait_migrated(src.qts);
    rsp = tl_read(&src, "");
    g_assert_cmpuint(qlist_size(tl_events(rsp)), ==, 3);
    qobject_unref(rsp);

    memset(&dst, 0, sizeof(dst));
    dst.qs = qtest_pc_boot("-M q35 -nodefaults -device copro,addr=%d.0,"
                           "timeline=64 -incoming defer", COPRO_SLOT);
    dst.qts = dst.qs->qts;
    dst.dev = qpci_device_find(dst.qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    g_assert_nonnull(dst.dev);
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    wait_migrated(dst.qts);
    dst.mmio = src.mmio;
    dst.vram = src.vram;
    copro_shutdown(&src);
    unlink(file);
    qtest_clock_set(dst.qts, t_mig);
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'cont' }");
    copro_clock_to(&dst, t_mig + 1000000);
    g_assert_cmpuint(erd64(&dst, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);

    /*
     * The destination's own log: its power-on reset, then the retire, on
     * time; its start was not seen, so what it moved is not known.
     */
    {
        const Want want[] = {
            { "device-reset", "device", 0, -1, -1, "{}" },
            { "retire", "engine", t0 + PKT_NS + 1000000, 0, 4,
              "{ \"fence\": 1, \"paging\": false }" },
        };

        rsp = tl_read(&dst, "");
        check_events(rsp, 0, want, ARRAY_SIZE(want));
        qobject_unref(rsp);
    }
    copro_shutdown(&dst);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    qtest_add_func("/copro/timeline/off", test_off);
    qtest_add_func("/copro/timeline/sequence", test_sequence);
    qtest_add_func("/copro/timeline/bound", test_bound);
    qtest_add_func("/copro/timeline/markers", test_markers);
    qtest_add_func("/copro/timeline/schema", test_schema);
    qtest_add_func("/copro/timeline/event-schema", test_event_schema);
    qtest_add_func("/copro/timeline/control", test_control);
    qtest_add_func("/copro/timeline/two-devices", test_two_devices);
    qtest_add_func("/copro/timeline/file", test_file);
    qtest_add_func("/copro/timeline/stop-at", test_stop_at);
    qtest_add_func("/copro/timeline/exit-file", test_exit_file);
    qtest_add_func("/copro/timeline/migration", test_migration);
    return g_test_run();
}
