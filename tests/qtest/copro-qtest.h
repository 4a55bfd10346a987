/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by copro's qtests: boot a machine with the device, map
 * its BARs, access registers and VRAM, and observe interrupts.
 */
#ifndef COPRO_QTEST_H
#define COPRO_QTEST_H

#include "qemu/bswap.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "qobject/qnum.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "hw/pci/pci_regs.h"
#include "copro/copro_regs.h"
#include "copro/copro_cmd.h"
#include "copro/copro_tiler.h"

#define COPRO_SLOT 4

typedef struct Copro {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar mmio;
    QPCIBar vram;
    uint64_t mmio_size;
    uint64_t vram_size;
} Copro;

/*
 * Boot @machine ("-M q35 ...") with a copro in slot COPRO_SLOT configured
 * by @devopts ("" or "vram=128M,..."), map BAR0 and BAR2, enable the
 * function (memory decoding and bus mastering).
 */
static inline void copro_boot(Copro *c, const char *machine,
                              const char *devopts)
{
    memset(c, 0, sizeof(*c));
    c->qs = qtest_pc_boot("%s -nodefaults -device copro,addr=%d.0%s%s",
                          machine, COPRO_SLOT, *devopts ? "," : "",
                          devopts);
    c->qts = c->qs->qts;
    c->dev = qpci_device_find(c->qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    g_assert_nonnull(c->dev);
    c->mmio = qpci_iomap(c->dev, COPRO_BAR_MMIO, &c->mmio_size);
    c->vram = qpci_iomap(c->dev, COPRO_BAR_VRAM, &c->vram_size);
    qpci_device_enable(c->dev);
}

static inline void copro_shutdown(Copro *c)
{
    g_free(c->dev);
    qtest_shutdown(c->qs);
}

static inline uint32_t rd32(Copro *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->mmio, off);
}

static inline uint64_t rd64(Copro *c, uint64_t off)
{
    return qpci_io_readq(c->dev, c->mmio, off);
}

static inline void wr32(Copro *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->mmio, off, v);
}

static inline void wr64(Copro *c, uint64_t off, uint64_t v)
{
    qpci_io_writeq(c->dev, c->mmio, off, v);
}

static inline uint32_t erd32(Copro *c, unsigned e, uint64_t reg)
{
    return rd32(c, COPRO_ENG_BASE(e) + reg);
}

static inline uint64_t erd64(Copro *c, unsigned e, uint64_t reg)
{
    return rd64(c, COPRO_ENG_BASE(e) + reg);
}

static inline void ewr32(Copro *c, unsigned e, uint64_t reg, uint32_t v)
{
    wr32(c, COPRO_ENG_BASE(e) + reg, v);
}

static inline void ewr64(Copro *c, unsigned e, uint64_t reg, uint64_t v)
{
    wr64(c, COPRO_ENG_BASE(e) + reg, v);
}

/* VRAM through BAR2; offsets are GPU addresses in [0, vram). */
static inline void vram_write(Copro *c, uint64_t off, const void *buf,
                              size_t len)
{
    qpci_memwrite(c->dev, c->vram, off, buf, len);
}

static inline void vram_read(Copro *c, uint64_t off, void *buf, size_t len)
{
    qpci_memread(c->dev, c->vram, off, buf, len);
}

static inline void vram_w32(Copro *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->vram, off, v);
}

static inline uint32_t vram_r32(Copro *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->vram, off);
}

static inline void vram_w64(Copro *c, uint64_t off, uint64_t v)
{
    qpci_io_writeq(c->dev, c->vram, off, v);
}

static inline uint64_t vram_r64(Copro *c, uint64_t off)
{
    return qpci_io_readq(c->dev, c->vram, off);
}

/*
 * MSI-X: point table entry @vec at guest RAM (@addr) with @data, so a
 * message shows up as a memory write that the test can read.
 */
static inline void copro_msix_route(Copro *c, unsigned vec, uint64_t addr,
                                    uint32_t data)
{
    uint64_t entry = c->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_LOWER_ADDR, addr & 0xffffffff);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

/* INTx as the PCI core sees it: the Interrupt Status bit. */
static inline bool copro_intx_status(Copro *c)
{
    return qpci_config_readw(c->dev, PCI_STATUS) & PCI_STATUS_INTERRUPT;
}

/*
 * Command processor helpers: DMA buffers are built on the host as a GArray
 * of dwords (host order), then copied to VRAM little-endian.
 */

static inline GArray *copro_buf_new(void)
{
    return g_array_new(false, false, sizeof(uint32_t));
}

static inline void copro_buf_dw(GArray *b, uint32_t v)
{
    g_array_append_val(b, v);
}

static inline void copro_buf_qw(GArray *b, uint64_t v)
{
    copro_buf_dw(b, (uint32_t)v);
    copro_buf_dw(b, v >> 32);
}

/* Length of the buffer in bytes. */
static inline uint32_t copro_buf_bytes(GArray *b)
{
    return b->len * 4;
}

/* Copy @b to VRAM at @addr; returns its length in bytes. */
static inline uint32_t copro_buf_put(Copro *c, uint64_t addr, GArray *b)
{
    g_autofree uint32_t *le = g_new(uint32_t, MAX(b->len, 1));

    for (guint i = 0; i < b->len; i++) {
        le[i] = cpu_to_le32(g_array_index(b, uint32_t, i));
    }
    if (b->len) {
        vram_write(c, addr, le, b->len * 4);
    }
    return b->len * 4;
}

/* NOP of @ndw dwords; the payload is filled with @junk, never decoded. */
static inline void copro_pkt_nop(GArray *b, uint32_t ndw, uint32_t junk)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_NOP, 0, ndw));
    for (uint32_t i = 1; i < ndw; i++) {
        copro_buf_dw(b, junk);
    }
}

static inline void copro_pkt_timestamp(GArray *b, uint64_t addr)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0,
                                  COPRO_LEN_TIMESTAMP));
    copro_buf_qw(b, addr);
}

static inline void copro_pkt_interrupt(GArray *b, uint32_t data)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_INTERRUPT, 0,
                                  COPRO_LEN_INTERRUPT));
    copro_buf_dw(b, data);
}

static inline void copro_pkt_fence(GArray *b, uint64_t addr, uint64_t value,
                                   uint32_t flags)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_FENCE, flags, COPRO_LEN_FENCE));
    copro_buf_qw(b, addr);
    copro_buf_qw(b, value);
}

static inline void copro_pkt_wait(GArray *b, uint64_t addr, uint64_t value)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_WAIT, 0, COPRO_LEN_WAIT));
    copro_buf_qw(b, addr);
    copro_buf_qw(b, value);
}

static inline void copro_pkt_copy(GArray *b, uint64_t dst, uint64_t src,
                                  uint64_t size)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY));
    copro_buf_qw(b, dst);
    copro_buf_qw(b, src);
    copro_buf_qw(b, size);
}

static inline void copro_pkt_fill(GArray *b, uint64_t dst, uint64_t size,
                                  uint32_t pattern)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL));
    copro_buf_qw(b, dst);
    copro_buf_qw(b, size);
    copro_buf_dw(b, pattern);
}

static inline void copro_pkt_set_target(GArray *b, unsigned slot,
                                        uint64_t addr, uint32_t pitch,
                                        uint32_t width, uint32_t height,
                                        uint32_t format)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_SET_TARGET, slot,
                                  COPRO_LEN_SET_TARGET));
    copro_buf_qw(b, addr);
    copro_buf_dw(b, pitch);
    copro_buf_dw(b, width);
    copro_buf_dw(b, height);
    copro_buf_dw(b, format);
}

static inline void copro_pkt_rect(GArray *b, unsigned slot, uint32_t x,
                                  uint32_t y, uint32_t w, uint32_t h,
                                  uint32_t colour)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_RECT, slot, COPRO_LEN_RECT));
    copro_buf_dw(b, x);
    copro_buf_dw(b, y);
    copro_buf_dw(b, w);
    copro_buf_dw(b, h);
    copro_buf_dw(b, colour);
}

static inline void copro_pkt_work(GArray *b, uint64_t ns)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK));
    copro_buf_qw(b, ns);
}

/* Give engine @e a ring of @entries descriptors at GPU address @base. */
/* the tiling path's packets (copro_tiler.h) */
static inline void copro_pkt_scene_begin(GArray *b, unsigned slot,
                                         uint32_t flags, uint64_t pb,
                                         uint32_t size, uint32_t clear)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, slot | flags,
                                  COPRO_LEN_SCENE_BEGIN));
    copro_buf_qw(b, pb);
    copro_buf_dw(b, size);
    copro_buf_dw(b, clear);
}

static inline void copro_pkt_bin_rect(GArray *b, uint32_t x, uint32_t y,
                                      uint32_t w, uint32_t h, uint32_t colour)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_BIN_RECT, 0, COPRO_LEN_BIN_RECT));
    copro_buf_dw(b, x);
    copro_buf_dw(b, y);
    copro_buf_dw(b, w);
    copro_buf_dw(b, h);
    copro_buf_dw(b, colour);
}

static inline void copro_pkt_bin_blit(GArray *b, uint64_t src,
                                      uint32_t pitch, uint32_t x, uint32_t y,
                                      uint32_t w, uint32_t h)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_BIN_BLIT, 0, COPRO_LEN_BIN_BLIT));
    copro_buf_qw(b, src);
    copro_buf_dw(b, pitch);
    copro_buf_dw(b, COPRO_BLIT_XY(x, y));
    copro_buf_dw(b, COPRO_BLIT_XY(w, h));
}

static inline void copro_pkt_scene_end(GArray *b)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_SCENE_END, 0,
                                  COPRO_LEN_SCENE_END));
}

static inline void copro_pkt_tile_render(GArray *b, unsigned slot,
                                         uint32_t flags, uint64_t pb,
                                         uint32_t tiles)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_TILE_RENDER, slot | flags,
                                  COPRO_LEN_TILE_RENDER));
    copro_buf_qw(b, pb);
    copro_buf_dw(b, tiles);
}

static inline void copro_ring_setup(Copro *c, unsigned e, uint64_t base,
                                    uint32_t entries)
{
    ewr64(c, e, COPRO_ENG_RING_BASE, base);
    ewr32(c, e, COPRO_ENG_RING_SIZE, entries);
}

static inline struct copro_submit_desc copro_desc(uint64_t dma_addr,
                                                  uint32_t dma_len,
                                                  uint64_t fence,
                                                  uint32_t context,
                                                  uint32_t flags)
{
    return (struct copro_submit_desc) {
        .dma_addr = dma_addr,
        .dma_len = dma_len,
        .flags = flags,
        .fence = fence,
        .context = context,
    };
}

/* Write descriptor @d (host order) to VRAM at @at, little-endian. */
static inline void copro_desc_put(Copro *c, uint64_t at,
                                  const struct copro_submit_desc *d)
{
    struct copro_submit_desc le = {
        .dma_addr = cpu_to_le64(d->dma_addr),
        .dma_len = cpu_to_le32(d->dma_len),
        .flags = cpu_to_le32(d->flags),
        .fence = cpu_to_le64(d->fence),
        .context = cpu_to_le32(d->context),
        .reserved0 = cpu_to_le32(d->reserved0),
        .save_addr = cpu_to_le64(d->save_addr),
        .reserved1 = { cpu_to_le64(d->reserved1[0]),
                       cpu_to_le64(d->reserved1[1]),
                       cpu_to_le64(d->reserved1[2]) },
    };

    vram_write(c, at, &le, sizeof(le));
}

/* Write @d into entry @slot of engine @e's ring, without a doorbell. */
static inline void copro_queue(Copro *c, unsigned e, uint32_t slot,
                               const struct copro_submit_desc *d)
{
    uint64_t base = erd64(c, e, COPRO_ENG_RING_BASE);

    copro_desc_put(c, base + (uint64_t)slot * COPRO_DESC_SIZE, d);
}

/* Put @d at the ring tail of engine @e and ring the doorbell. */
static inline void copro_submit_desc(Copro *c, unsigned e,
                                     const struct copro_submit_desc *d)
{
    uint32_t size = erd32(c, e, COPRO_ENG_RING_SIZE);
    uint32_t tail = erd32(c, e, COPRO_ENG_RING_TAIL);

    g_assert_cmpuint(size, !=, 0);
    copro_queue(c, e, tail, d);
    ewr32(c, e, COPRO_ENG_RING_TAIL, (tail + 1) & (size - 1));
}

static inline void copro_submit(Copro *c, unsigned e, uint64_t dma_addr,
                                uint32_t dma_len, uint64_t fence,
                                uint32_t context, uint32_t flags)
{
    struct copro_submit_desc d = copro_desc(dma_addr, dma_len, fence,
                                            context, flags);

    copro_submit_desc(c, e, &d);
}

/* The device clock (QEMU_CLOCK_VIRTUAL), ns. */
static inline int64_t copro_time(Copro *c)
{
    return rd64(c, COPRO_REG_GPU_TIME);
}

/*
 * Advance virtual time to exactly @t (not before now). Timers due on the
 * way run at their deadlines; bottom halves they schedule run when the
 * main loop next gets control, that is before the next qtest command.
 */
static inline void copro_clock_to(Copro *c, int64_t t)
{
    g_assert_cmpint(qtest_clock_set(c->qts, t), ==, t);
}

/*
 * Let engine @e run until it has fetched everything and gone idle, or has
 * halted, without advancing virtual time (timing=instant, or work that is
 * already due). The engine runs from a bottom half that the main loop
 * dispatches between qtest commands (and reschedules after each slice), so
 * it is the register reads here that let it make progress. Returns the
 * final state.
 */
static inline uint32_t copro_run(Copro *c, unsigned e)
{
    for (unsigned i = 0; i < 1000000; i++) {
        uint32_t head = erd32(c, e, COPRO_ENG_RING_HEAD);
        uint32_t tail = erd32(c, e, COPRO_ENG_RING_TAIL);
        uint32_t state = erd32(c, e, COPRO_ENG_STATE);

        if (state == COPRO_ENG_STATE_HALTED ||
            (state == COPRO_ENG_STATE_IDLE && head == tail)) {
            return state;
        }
    }
    g_assert_not_reached();
}

/* x-query-copro: the only device's data; unref *rsp when done. */
static inline QDict *copro_query(Copro *c, QDict **rsp)
{
    QList *devs;

    *rsp = qtest_qmp(c->qts, "{'execute': 'x-query-copro'}");
    devs = qdict_get_qlist(*rsp, "return");
    g_assert_nonnull(devs);
    g_assert_cmpuint(qlist_size(devs), ==, 1);
    return qobject_to(QDict, qlist_peek(devs));
}

/* A uint64 member of a QMP answer (qdict_get_int() stops at INT64_MAX). */
static inline uint64_t copro_qdict_u64(QDict *d, const char *key)
{
    QNum *n = qobject_to(QNum, qdict_get(d, key));

    g_assert_nonnull(n);
    return qnum_get_uint(n);
}

/* Engine @e of a device from copro_query(). */
static inline QDict *copro_query_engine(QDict *dev, unsigned e)
{
    const QListEntry *le;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(dev, "engines"), le) {
        QDict *eng = qobject_to(QDict, qlist_entry_obj(le));

        if (qdict_get_int(eng, "index") == e) {
            return eng;
        }
    }
    g_assert_not_reached();
}

/* Statistics of context @ctx from copro_query(), NULL if not listed. */
static inline QDict *copro_query_context(QDict *dev, uint32_t ctx)
{
    const QListEntry *le;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(dev, "contexts"), le) {
        QDict *cd = qobject_to(QDict, qlist_entry_obj(le));

        if (qdict_get_int(cd, "context") == ctx) {
            return cd;
        }
    }
    return NULL;
}

/*
 * GPU memory (GART aperture, per-context page tables): helpers shared by
 * copro-mmu-test and copro-bench.
 */

static inline void copro_pkt_copy_pte(GArray *b, uint64_t dst, uint64_t src,
                                      uint32_t count)
{
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE));
    copro_buf_qw(b, dst);
    copro_buf_qw(b, src);
    copro_buf_dw(b, count);
}

/* Place the GART at VRAM offset @table with @entries entries, all invalid. */
static inline void copro_gart_setup(Copro *c, uint64_t table,
                                    uint32_t entries)
{
    g_autofree uint64_t *zero = g_new0(uint64_t, MAX(entries, 1));

    vram_write(c, table, zero, (size_t)entries * 8);
    wr64(c, COPRO_REG_GART_BASE, table);
    wr32(c, COPRO_REG_GART_ENTRIES, entries);
}

/* GART entry @idx of the table at @table: aperture page -> @gpa. */
static inline void copro_gart_map(Copro *c, uint64_t table, uint32_t idx,
                                  uint64_t gpa, bool writable)
{
    vram_w64(c, table + (uint64_t)idx * 8, (gpa & COPRO_GART_ADDR_MASK) |
             COPRO_GART_VALID | (writable ? COPRO_GART_WRITABLE : 0));
}

/* Invalidate GART entries [first, first + count); count 0: all. */
static inline void copro_gart_inval(Copro *c, uint32_t first, uint32_t count)
{
    wr32(c, COPRO_REG_GART_INVAL_FIRST, first);
    wr32(c, COPRO_REG_GART_INVAL, count);
}

/* GPU address of aperture page @idx. */
static inline uint64_t copro_aperture(uint32_t idx)
{
    return COPRO_APERTURE_BASE + (uint64_t)idx * COPRO_GPU_PAGE_SIZE;
}

/*
 * Let engine @e's bottom half load its submission: poll without advancing
 * virtual time until the engine has left IDLE (or has nothing queued).
 */
static inline uint32_t copro_run_until_busy(Copro *c, unsigned e)
{
    for (unsigned i = 0; i < 100000; i++) {
        uint32_t state = erd32(c, e, COPRO_ENG_STATE);

        if (state != COPRO_ENG_STATE_IDLE ||
            erd32(c, e, COPRO_ENG_RING_HEAD) ==
            erd32(c, e, COPRO_ENG_RING_TAIL)) {
            return state;
        }
    }
    g_assert_not_reached();
}

/*
 * Poll query-migrate on @qts until the migration has completed (true) or
 * failed (false).
 */
static inline bool copro_migration_wait(QTestState *qts)
{
    for (int i = 0; i < 10000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = ret && qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "";
        bool done = !strcmp(status, "completed");
        bool failed = !strcmp(status, "failed");

        qobject_unref(rsp);
        if (done || failed) {
            return done;
        }
        g_usleep(10 * 1000);
    }
    g_assert_not_reached();
}

/*
 * Migrate @src (then shut down) into a new QEMU, @dst, booted with
 * @machine and the device options @devopts ("" or "a=b,..." as the
 * source's), through a file, and let @dst run on from the source's
 * virtual time.
 */
static inline void copro_migrate_to(Copro *src, Copro *dst,
                                    const char *machine,
                                    const char *devopts)
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
    g_assert_true(copro_migration_wait(src->qts));

    memset(dst, 0, sizeof(*dst));
    dst->qs = qtest_pc_boot("%s -nodefaults -device copro,addr=%d.0%s%s "
                            "-incoming defer", machine, COPRO_SLOT,
                            *devopts ? "," : "", devopts);
    dst->qts = dst->qs->qts;
    dst->dev = qpci_device_find(dst->qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    g_assert_nonnull(dst->dev);
    rsp = qtest_qmp(dst->qts, "{ 'execute': 'migrate-incoming', "
                    "'arguments': { 'uri': %s } }", uri);
    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    g_assert_true(copro_migration_wait(dst->qts));
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

#endif /* COPRO_QTEST_H */
