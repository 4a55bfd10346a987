/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: GPU memory management
 *
 * The GPU physical address space is VRAM at [0, vram) and the aperture at
 * [COPRO_APERTURE_BASE, COPRO_APERTURE_BASE + aperture). Every 4 KiB page
 * of the aperture translates through the GART, a table of 64-bit entries
 * in VRAM, to a guest-physical page that the device reaches with
 * pci_dma_*() (so an IOMMU applies).
 *
 * A context whose entry in the context table is valid has its own GPU
 * virtual address space: a 3-level page table (39-bit VA, 4 KiB tables of
 * 512 entries, level 0 the leaf; a level-1 entry may point to a table of
 * 32 64 KiB pages) maps it onto the physical space. Other contexts use the
 * physical space directly.
 *
 * Each engine caches leaf translations (GART entries and context leaf
 * entries) in a direct-mapped translation cache; changes to the tables
 * take effect after an invalidation register write, a COPY_PTE packet or
 * a device reset. Failed translations are returned to the engine as a
 * CoproMemFault, which halts it (copro-engine.c).
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "exec/memory.h"
#include "hw/pci/pci_device.h"
#include "migration/vmstate.h"
#include "monitor/monitor.h"
#include "qapi/qapi-types-copro.h"
#include "copro.h"
#include "trace.h"

#define PAGE_BITS       12
#define PAGE_SIZE_4K    (1ull << PAGE_BITS)
#define PAGE_MASK_4K    (PAGE_SIZE_4K - 1)
#define LEVEL_CTX_TABLE 3   /* FAULT_INFO level of the context table */

static uint32_t fault_info(bool is_write, bool prot, bool virt, unsigned lvl)
{
    return (is_write ? COPRO_FAULT_INFO_WRITE : 0) |
           (prot ? COPRO_FAULT_INFO_PROTECTION : 0) |
           (virt ? COPRO_FAULT_INFO_VIRTUAL : 0) |
           (lvl << COPRO_FAULT_INFO_LEVEL_SHIFT);
}

static void set_fault(CoproMemFault *f, uint32_t kind, uint64_t addr,
                      uint32_t info)
{
    f->kind = kind;
    f->addr = addr;
    f->info = info;
}

/* A 64-bit table entry in VRAM; false if it lies outside VRAM. */
static bool vram_ldq(CoproState *s, uint64_t off, uint64_t *val)
{
    if (off > s->vram_size - 8 || (off & 7)) {
        return false;
    }
    *val = ldq_le_p(s->vram_ptr + off);
    return true;
}

/*
 * Translation cache
 */

static unsigned tlb_set(uint64_t page, uint32_t context)
{
    /* consecutive pages use distinct sets; so do 512 KiB strides */
    return (page ^ (page >> 7) ^ (page >> 14) ^ (page >> 21) ^ context) %
           COPRO_TLB_SETS;
}

static void tlb_flush(CoproTlbEntry *t)
{
    for (unsigned i = 0; i < COPRO_TLB_SETS; i++) {
        t[i].valid = 0;
    }
}

void copro_mmu_flush(CoproState *s)
{
    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        tlb_flush(s->mmu.tlb[i].gart);
        tlb_flush(s->mmu.tlb[i].va);
    }
    trace_copro_mmu_inval("all", 0, 0);
}

static void copro_gart_inval(CoproState *s, uint64_t first, uint64_t count)
{
    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        CoproTlbEntry *t = s->mmu.tlb[i].gart;

        for (unsigned j = 0; j < COPRO_TLB_SETS; j++) {
            if (!count || (t[j].page >= first && t[j].page - first < count)) {
                t[j].valid = 0;
            }
        }
    }
    trace_copro_mmu_inval("gart", first, count);
}

static void copro_vm_inval(CoproState *s, uint32_t context)
{
    if (context == COPRO_VM_INVAL_ALL) {
        copro_mmu_flush(s);
        return;
    }
    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        CoproTlbEntry *t = s->mmu.tlb[i].va;

        for (unsigned j = 0; j < COPRO_TLB_SETS; j++) {
            if (t[j].context == context) {
                t[j].valid = 0;
            }
        }
    }
    trace_copro_mmu_inval("context", context, 1);
}

static CoproTlbEntry *tlb_lookup(CoproEngine *e, bool va, uint64_t page,
                                 uint32_t context)
{
    CoproTlb *tlb = &e->dev->mmu.tlb[e->index];
    CoproTlbEntry *t = va ? &tlb->va[tlb_set(page, context)]
                          : &tlb->gart[tlb_set(page, 0)];

    if (t->valid && t->page == page && (!va || t->context == context)) {
        tlb->hits++;
        return t;
    }
    tlb->misses++;
    return NULL;
}

static void tlb_fill(CoproEngine *e, bool va, uint64_t page,
                     uint32_t context, uint64_t target, bool writable)
{
    CoproTlb *tlb = &e->dev->mmu.tlb[e->index];
    CoproTlbEntry *t = va ? &tlb->va[tlb_set(page, context)]
                          : &tlb->gart[tlb_set(page, 0)];

    t->valid = 1;
    t->page = page;
    t->context = va ? context : 0;
    t->target = target;
    t->writable = writable;
}

/*
 * Physical GPU addresses
 */

/*
 * Translate GPU physical address @pa. On success *guest says whether
 * *out is a guest-physical address (aperture) or a VRAM offset, and *span
 * how many bytes from @pa translate contiguously. @fa is the address to
 * report on a fault (the address the packet used), @virt whether it is a
 * context VA.
 */
static bool copro_xlate_phys(CoproEngine *e, uint64_t pa, bool is_write,
                             uint64_t fa, bool virt, bool *guest,
                             uint64_t *out, uint64_t *span, CoproMemFault *f)
{
    CoproState *s = e->dev;
    uint64_t idx, ent, target;
    bool writable;
    CoproTlbEntry *t;

    if (pa < s->vram_size) {
        *guest = false;
        *out = pa;
        *span = s->vram_size - pa;
        return true;
    }
    if (pa < COPRO_APERTURE_BASE ||
        pa - COPRO_APERTURE_BASE >= s->aperture_size) {
        set_fault(f, COPRO_FAULT_TRANSLATION, fa,
                  fault_info(is_write, false, virt, 0));
        return false;
    }
    idx = (pa - COPRO_APERTURE_BASE) >> PAGE_BITS;
    t = tlb_lookup(e, false, idx, 0);
    if (t) {
        target = t->target;
        writable = t->writable;
    } else {
        if (idx >= s->mmu.gart_entries) {
            set_fault(f, COPRO_FAULT_GART, fa,
                      fault_info(is_write, false, virt, 0));
            return false;
        }
        if (!vram_ldq(s, copro_gpu_addr_add(s->mmu.gart_base, idx * 8),
                      &ent)) {
            set_fault(f, COPRO_FAULT_TABLE, fa,
                      fault_info(is_write, false, virt, 0));
            return false;
        }
        if (!(ent & COPRO_GART_VALID)) {
            set_fault(f, COPRO_FAULT_GART, fa,
                      fault_info(is_write, false, virt, 0));
            return false;
        }
        target = ent & COPRO_GART_ADDR_MASK;
        writable = ent & COPRO_GART_WRITABLE;
        tlb_fill(e, false, idx, 0, target, writable);
    }
    if (is_write && !writable) {
        set_fault(f, COPRO_FAULT_GART, fa,
                  fault_info(is_write, true, virt, 0));
        return false;
    }
    *guest = true;
    *out = target | (pa & PAGE_MASK_4K);
    *span = PAGE_SIZE_4K - (pa & PAGE_MASK_4K);
    return true;
}

/*
 * Context address spaces
 */

/*
 * Root table of @context: returns 1 with *root when the context has its
 * own address space, 0 when it uses the physical one, -1 when the context
 * table entry lies outside VRAM.
 */
static int copro_ctx_root(CoproState *s, uint32_t context, uint64_t *root)
{
    uint64_t ent;

    if (context >= s->mmu.ctx_size) {
        return 0;
    }
    if (!vram_ldq(s, copro_gpu_addr_add(s->mmu.ctx_base,
                                        (uint64_t)context * 8), &ent)) {
        return -1;
    }
    if (!(ent & COPRO_CTX_VALID)) {
        return 0;
    }
    *root = ent & COPRO_CTX_ROOT_MASK;
    return 1;
}

/* Walk the page table at @root for @va: *pa is the GPU physical address. */
static bool copro_walk(CoproEngine *e, uint64_t root, uint64_t va,
                       bool is_write, uint64_t *pa, bool *writable,
                       CoproMemFault *f)
{
    CoproState *s = e->dev;
    uint64_t table = root, ent = 0, base;
    unsigned shift = 30;

    if (va >> COPRO_VA_BITS) {
        set_fault(f, COPRO_FAULT_PAGE, va,
                  fault_info(is_write, false, true, COPRO_PT_LEVELS - 1));
        return false;
    }
    for (int level = COPRO_PT_LEVELS - 1; level >= 0; level--) {
        unsigned idx = (va >> shift) & (COPRO_PT_ENTRIES - 1);

        if (!vram_ldq(s, table + idx * 8, &ent)) {
            set_fault(f, COPRO_FAULT_TABLE, va,
                      fault_info(is_write, false, true, level));
            return false;
        }
        if (!(ent & COPRO_PTE_VALID)) {
            set_fault(f, COPRO_FAULT_PAGE, va,
                      fault_info(is_write, false, true, level));
            return false;
        }
        if (level == 1 && (ent & COPRO_PTE_64K)) {
            /* a leaf table of 32 64 KiB pages */
            table = ent & COPRO_PTE_ADDR_MASK;
            idx = (va >> 16) & 31;
            if (!vram_ldq(s, table + idx * 8, &ent)) {
                set_fault(f, COPRO_FAULT_TABLE, va,
                          fault_info(is_write, false, true, 0));
                return false;
            }
            if (!(ent & COPRO_PTE_VALID)) {
                set_fault(f, COPRO_FAULT_PAGE, va,
                          fault_info(is_write, false, true, 0));
                return false;
            }
            shift = 16;
            break;
        }
        if (level) {
            table = ent & COPRO_PTE_ADDR_MASK;
            shift -= 9;
        }
    }
    base = ent & COPRO_PTE_ADDR_MASK & ~((1ull << shift) - 1);
    if (ent & COPRO_PTE_APERTURE) {
        base += COPRO_APERTURE_BASE;
    }
    *pa = base + (va & ((1ull << shift) - 1) & ~PAGE_MASK_4K);
    *writable = ent & COPRO_PTE_WRITABLE;
    return true;
}

/* Translate one context VA to a GPU physical address (cached). */
static bool copro_xlate_va(CoproEngine *e, uint32_t context, uint64_t root,
                           uint64_t va, bool is_write, uint64_t *pa,
                           CoproMemFault *f)
{
    uint64_t page = va >> PAGE_BITS;
    CoproTlbEntry *t = tlb_lookup(e, true, page, context);
    uint64_t target;
    bool writable;

    if (t) {
        target = t->target;
        writable = t->writable;
    } else {
        if (!copro_walk(e, root, va, is_write, &target, &writable, f)) {
            return false;
        }
        tlb_fill(e, true, page, context, target, writable);
    }
    if (is_write && !writable) {
        set_fault(f, COPRO_FAULT_PAGE, va, fault_info(is_write, true, true, 0));
        return false;
    }
    *pa = target | (va & PAGE_MASK_4K);
    return true;
}

/*
 * Accesses
 */

static void copro_mmu_note_fault(CoproEngine *e, const CoproMemFault *f)
{
    CoproMmuFault *lf = &e->dev->mmu.last_fault;

    lf->valid = 1;
    lf->engine = e->index;
    lf->kind = f->kind;
    lf->addr = f->addr;
    lf->info = f->info;
    lf->context = e->active ? e->desc.context : 0;
    lf->fence = e->active ? e->desc.fence : 0;
    e->dev->mmu.nfaults++;
    trace_copro_mmu_fault(e->index, f->kind, f->addr, f->info, lf->context);
}

bool copro_mmu_rw(CoproEngine *e, bool physical, uint64_t addr, void *buf,
                  uint64_t len, bool is_write, CoproMemFault *f)
{
    return copro_mmu_rw_ctx(e, physical || !e->active,
                            e->active ? e->desc.context : 0, addr, buf, len,
                            is_write, f);
}

/*
 * An access in @context's address space (unless @physical) on behalf of
 * engine @e, whatever the engine has loaded: the hardware scheduler
 * re-checks the WAIT of a queue that is not on the engine.
 */
bool copro_mmu_rw_ctx(CoproEngine *e, bool physical, uint32_t context,
                      uint64_t addr, void *buf, uint64_t len, bool is_write,
                      CoproMemFault *f)
{
    CoproState *s = e->dev;
    uint8_t *p = buf;
    uint64_t root = 0;
    bool virt = false;

    if (!physical) {
        int r = copro_ctx_root(s, context, &root);

        if (r < 0) {
            set_fault(f, COPRO_FAULT_TABLE, addr,
                      fault_info(is_write, false, true, LEVEL_CTX_TABLE));
            copro_mmu_note_fault(e, f);
            return false;
        }
        virt = r > 0;
    }

    while (len) {
        uint64_t pa = addr, out, span, n;
        bool guest;

        if (virt) {
            if (!copro_xlate_va(e, context, root, addr, is_write, &pa, f)) {
                copro_mmu_note_fault(e, f);
                return false;
            }
        }
        if (!copro_xlate_phys(e, pa, is_write, addr, virt, &guest, &out,
                              &span, f)) {
            copro_mmu_note_fault(e, f);
            return false;
        }
        if (virt) {
            span = MIN(span, PAGE_SIZE_4K - (addr & PAGE_MASK_4K));
        }
        n = MIN(len, span);
        if (guest) {
            MemTxResult r = MEMTX_ACCESS_ERROR;

            /* DMA onto the device's own BARs would re-enter it mid-step */
            if (copro_dma_hits_self(s, out, n)) {
                qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: DMA to bus "
                              "address 0x%" PRIx64 " hits the device's own "
                              "BARs, refused\n", e->index, out);
            } else {
                r = pci_dma_rw(PCI_DEVICE(s), out, p, n,
                               is_write ? DMA_DIRECTION_FROM_DEVICE
                                        : DMA_DIRECTION_TO_DEVICE,
                               MEMTXATTRS_UNSPECIFIED);
            }
            if (r != MEMTX_OK) {
                set_fault(f, COPRO_FAULT_DMA, addr,
                          fault_info(is_write, false, virt, 0));
                copro_mmu_note_fault(e, f);
                return false;
            }
        } else if (is_write) {
            memcpy(s->vram_ptr + out, p, n);
            /* device writes must reach migration's dirty log */
            memory_region_set_dirty(&s->vram, out, n);
        } else {
            memcpy(p, s->vram_ptr + out, n);
        }
        p += n;
        addr += n;
        len -= n;
    }
    return true;
}

/*
 * Recovery: CONTROL.RETRY on an engine halted by a memory fault clears the
 * fault and restarts the step that faulted (the fetch of the ring entry or
 * packet, or the packet step, which had not advanced its progress).
 */
void copro_engine_retry(CoproEngine *e)
{
    if (e->state != COPRO_ENG_STATE_HALTED ||
        !COPRO_FAULT_IS_RETRYABLE(e->fault_kind)) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: RETRY without a "
                      "memory fault latched, ignored\n", e->index);
        return;
    }
    trace_copro_engine_retry(e->index, e->fault_kind, e->fault_addr);
    copro_tl_engine(e, COPRO_TL_RETRY);
    e->fault_kind = COPRO_FAULT_NONE;
    e->fault_offset = 0;
    e->fault_addr = 0;
    e->fault_fence = 0;
    e->fault_context = 0;
    e->fault_info = 0;
    e->state = COPRO_ENG_STATE_BUSY;
    copro_engine_kick(e);
}

/*
 * Registers
 */

uint64_t copro_mmu_read(CoproState *s, hwaddr reg)
{
    switch (reg) {
    case COPRO_REG_GART_BASE:
        return s->mmu.gart_base;
    case COPRO_REG_GART_ENTRIES:
        return s->mmu.gart_entries;
    case COPRO_REG_GART_INVAL_FIRST:
        return s->mmu.gart_inval_first;
    case COPRO_REG_CTX_TABLE_BASE:
        return s->mmu.ctx_base;
    case COPRO_REG_CTX_TABLE_SIZE:
        return s->mmu.ctx_size;
    default:
        return 0;
    }
}

void copro_mmu_write(CoproState *s, hwaddr reg, uint64_t val, uint64_t mask)
{
    switch (reg) {
    case COPRO_REG_GART_BASE:
        val = (s->mmu.gart_base & ~mask) | (val & mask);
        if (val & PAGE_MASK_4K) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: GART base 0x%" PRIx64
                          " not 4 KiB-aligned, low bits dropped\n", val);
        }
        s->mmu.gart_base = val & ~PAGE_MASK_4K;
        copro_gart_inval(s, 0, 0);
        break;
    case COPRO_REG_GART_ENTRIES:
        if (val > s->aperture_size >> PAGE_BITS) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: %" PRIu64 " GART entries "
                          "exceed the aperture (%" PRIu64 " pages), "
                          "ignored\n", val, s->aperture_size >> PAGE_BITS);
            return;
        }
        s->mmu.gart_entries = val;
        copro_gart_inval(s, 0, 0);
        break;
    case COPRO_REG_GART_INVAL_FIRST:
        s->mmu.gart_inval_first = val;
        break;
    case COPRO_REG_GART_INVAL:
        copro_gart_inval(s, s->mmu.gart_inval_first, (uint32_t)val);
        break;
    case COPRO_REG_CTX_TABLE_BASE:
        val = (s->mmu.ctx_base & ~mask) | (val & mask);
        if (val & 7) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: context table base 0x%"
                          PRIx64 " not 8-aligned, low bits dropped\n", val);
        }
        s->mmu.ctx_base = val & ~7ull;
        copro_vm_inval(s, COPRO_VM_INVAL_ALL);
        break;
    case COPRO_REG_CTX_TABLE_SIZE:
        if (val > COPRO_CTX_TABLE_MAX) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: context table of %" PRIu64
                          " entries is too big, ignored\n", val);
            return;
        }
        s->mmu.ctx_size = val;
        copro_vm_inval(s, COPRO_VM_INVAL_ALL);
        break;
    case COPRO_REG_VM_INVAL:
        copro_vm_inval(s, val);
        break;
    default:
        g_assert_not_reached();
    }
}

uint64_t copro_mmu_engine_stat(CoproEngine *e, hwaddr reg)
{
    CoproTlb *tlb = &e->dev->mmu.tlb[e->index];

    return reg == COPRO_ENG_STAT_TLB_HITS ? tlb->hits : tlb->misses;
}

/* Valid GART entries (for the monitor: scans the table in VRAM). */
uint64_t copro_mmu_gart_valid(CoproState *s)
{
    uint64_t n = 0, ent;

    for (uint64_t i = 0; i < s->mmu.gart_entries; i++) {
        if (!vram_ldq(s, s->mmu.gart_base + i * 8, &ent)) {
            break;
        }
        n += ent & COPRO_GART_VALID;
    }
    return n;
}

/* x-query-copro: GART, context table and the last fault. */
/*
 * The bus address of aperture offset @ap_off through the GART, uncached
 * (the display reads through here, without a translation cache). False
 * when the page is beyond GART_ENTRIES, its entry lies outside VRAM or is
 * not valid.
 */
bool copro_gart_lookup(CoproState *s, uint64_t ap_off, uint64_t *bus)
{
    uint64_t idx = ap_off >> PAGE_BITS, ent;

    if (ap_off >= s->aperture_size || idx >= s->mmu.gart_entries ||
        !vram_ldq(s, copro_gpu_addr_add(s->mmu.gart_base, idx * 8), &ent) ||
        !(ent & COPRO_GART_VALID)) {
        return false;
    }
    *bus = (ent & COPRO_GART_ADDR_MASK) | (ap_off & PAGE_MASK_4K);
    return true;
}

void copro_mmu_info(CoproState *s, CoproInfo *info)
{
    CoproAddressSpaceInfoList **tail = &info->address_spaces;
    CoproMmuFault *lf = &s->mmu.last_fault;

    info->aperture_size = s->aperture_size;
    info->gart_base = s->mmu.gart_base;
    info->gart_entries = s->mmu.gart_entries;
    info->gart_valid = copro_mmu_gart_valid(s);
    info->context_table_base = s->mmu.ctx_base;
    info->context_table_size = s->mmu.ctx_size;
    info->mmu_faults = s->mmu.nfaults;
    for (uint32_t i = 0; i < s->mmu.ctx_size; i++) {
        CoproAddressSpaceInfo *as;
        uint64_t root;

        if (copro_ctx_root(s, i, &root) <= 0) {
            continue;
        }
        as = g_new0(CoproAddressSpaceInfo, 1);
        as->context = i;
        as->root = root;
        QAPI_LIST_APPEND(tail, as);
    }
    if (lf->valid) {
        CoproFaultInfo *fi = g_new0(CoproFaultInfo, 1);

        fi->engine = lf->engine;
        fi->kind = lf->kind;
        fi->fault = g_strdup(copro_fault_name(lf->kind));
        fi->address = lf->addr;
        fi->context = lf->context;
        fi->fence = lf->fence;
        fi->level = COPRO_FAULT_INFO_LEVEL(lf->info);
        fi->write = lf->info & COPRO_FAULT_INFO_WRITE;
        fi->protection = lf->info & COPRO_FAULT_INFO_PROTECTION;
        fi->virtual_address = lf->info & COPRO_FAULT_INFO_VIRTUAL;
        info->last_fault = fi;
    }
}

/* info copro: the part about GPU memory. */
void copro_mmu_hmp(Monitor *mon, CoproInfo *d)
{
    monitor_printf(mon, "  aperture %" PRIu64 " MiB at 0x%llx; GART: %u "
                   "entries at 0x%" PRIx64 ", %" PRIu64 " valid\n",
                   d->aperture_size >> 20, COPRO_APERTURE_BASE,
                   d->gart_entries, d->gart_base, d->gart_valid);
    monitor_printf(mon, "  context table: %u entries at 0x%" PRIx64 "\n",
                   d->context_table_size, d->context_table_base);
    for (CoproAddressSpaceInfoList *l = d->address_spaces; l; l = l->next) {
        monitor_printf(mon, "    context %u: page table root 0x%" PRIx64
                       "\n", l->value->context, l->value->root);
    }
    if (d->last_fault) {
        CoproFaultInfo *f = d->last_fault;

        monitor_printf(mon, "  last memory fault (%u in all): engine %u, "
                       "%s at 0x%" PRIx64 ", context %u, fence %" PRIu64
                       ", level %u, %s, %s%s\n", d->mmu_faults, f->engine,
                       f->fault, f->address, f->context, f->fence, f->level,
                       f->write ? "write" : "read",
                       f->protection ? "write-protect" : "not present",
                       f->virtual_address ? ", virtual" : "");
    }
}

/* Power-on state; statistics included. */
void copro_mmu_reset(CoproState *s)
{
    memset(&s->mmu, 0, sizeof(s->mmu));
}

static bool copro_mmu_valid(void *opaque, int version_id)
{
    CoproState *s = opaque;

    return s->mmu.gart_entries <= s->aperture_size >> PAGE_BITS &&
           s->mmu.ctx_size <= COPRO_CTX_TABLE_MAX &&
           s->mmu.last_fault.engine < COPRO_MAX_ENGINES;
}

static const VMStateDescription vmstate_copro_tlb_entry = {
    .name = "copro/tlb-entry",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(page, CoproTlbEntry),
        VMSTATE_UINT64(target, CoproTlbEntry),
        VMSTATE_UINT32(context, CoproTlbEntry),
        VMSTATE_UINT8(valid, CoproTlbEntry),
        VMSTATE_UINT8(writable, CoproTlbEntry),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_copro_tlb = {
    .name = "copro/tlb",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(gart, CoproTlb, COPRO_TLB_SETS, 1,
                             vmstate_copro_tlb_entry, CoproTlbEntry),
        VMSTATE_STRUCT_ARRAY(va, CoproTlb, COPRO_TLB_SETS, 1,
                             vmstate_copro_tlb_entry, CoproTlbEntry),
        VMSTATE_UINT64(hits, CoproTlb),
        VMSTATE_UINT64(misses, CoproTlb),
        VMSTATE_END_OF_LIST()
    },
};

static bool copro_mmu_needed(void *opaque)
{
    return true;
}

const VMStateDescription vmstate_copro_mmu = {
    .name = "copro/mmu",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_mmu_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(mmu.gart_base, CoproState),
        VMSTATE_UINT32(mmu.gart_entries, CoproState),
        VMSTATE_UINT32(mmu.gart_inval_first, CoproState),
        VMSTATE_UINT64(mmu.ctx_base, CoproState),
        VMSTATE_UINT32(mmu.ctx_size, CoproState),
        VMSTATE_UINT32(mmu.nfaults, CoproState),
        VMSTATE_UINT32(mmu.last_fault.valid, CoproState),
        VMSTATE_UINT32(mmu.last_fault.engine, CoproState),
        VMSTATE_UINT32(mmu.last_fault.kind, CoproState),
        VMSTATE_UINT32(mmu.last_fault.context, CoproState),
        VMSTATE_UINT32(mmu.last_fault.info, CoproState),
        VMSTATE_UINT64(mmu.last_fault.addr, CoproState),
        VMSTATE_UINT64(mmu.last_fault.fence, CoproState),
        VMSTATE_STRUCT_ARRAY(mmu.tlb, CoproState, COPRO_MAX_ENGINES, 1,
                             vmstate_copro_tlb, CoproTlb),
        VMSTATE_VALIDATE("mmu state in range", copro_mmu_valid),
        VMSTATE_END_OF_LIST()
    },
};
