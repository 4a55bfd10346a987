/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: a preemptible GPU-like coprocessor
 *
 * PCI function, reset and migration. The register file and interrupts
 * are copro-regs.c; the command processor (rings, packets, fences) is
 * copro-engine.c; the programming model is docs/specs/copro.rst and the
 * register ABI is include/copro/copro_regs.h.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qemu/bitops.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/core/qdev-prop-internal.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "copro.h"
#include "trace.h"

#define COPRO_PCIE_CAP_OFFSET 0x80

int64_t copro_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * Does DMA to bus addresses [addr, addr + len) touch one of the device's
 * own BARs? The engines refuse such DMA as a fault: it would reach the
 * device's registers (or VRAM) from the middle of a step.
 */
bool copro_dma_hits_self(CoproState *s, dma_addr_t addr, dma_addr_t len)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    for (int bar = 0; bar < PCI_NUM_REGIONS; bar++) {
        pcibus_t base = pci_get_bar_addr(pdev, bar);
        pcibus_t size = pdev->io_regions[bar].size;

        if (size && base != PCI_BAR_UNMAPPED &&
            addr < base + size && base < addr + len) {
            return true;
        }
    }
    return false;
}

/*
 * Lifecycle
 */

static bool copro_check_props(CoproState *s, Error **errp)
{
    if (s->num_engines < 1 || s->num_engines > COPRO_MAX_ENGINES) {
        error_setg(errp, "copro: engines=%" PRIu32 " is out of range "
                   "(1 to %d)", s->num_engines, COPRO_MAX_ENGINES);
        return false;
    }
    if (s->vram_size < COPRO_VRAM_MIN || s->vram_size > COPRO_VRAM_MAX ||
        !is_power_of_2(s->vram_size)) {
        error_setg(errp, "copro: vram=%" PRIu64 " bytes is not a power of "
                   "two between %u MiB and %llu GiB", s->vram_size,
                   COPRO_VRAM_MIN / (unsigned)MiB,
                   COPRO_VRAM_MAX / GiB);
        return false;
    }
    if (s->timing == COPRO_TIMING_MODELLED &&
        (!s->copy_bw || !s->fill_bw || !s->pixel_rate)) {
        error_setg(errp, "copro: copy-bw, fill-bw and pixel-rate must be "
                   "non-zero");
        return false;
    }
    if (s->aperture_size > COPRO_APERTURE_MAX ||
        (s->aperture_size & (COPRO_GPU_PAGE_SIZE - 1))) {
        error_setg(errp, "copro: aperture=%" PRIu64 " bytes is not a "
                   "multiple of 4 KiB up to %llu GiB", s->aperture_size,
                   COPRO_APERTURE_MAX / GiB);
        return false;
    }
    if (!s->slice_packets) {
        error_setg(errp, "copro: x-slice-packets must be non-zero");
        return false;
    }
    /* the engine clock is 64-bit ns: bounded costs cannot wrap it */
    if (s->packet_ns > COPRO_PACKET_NS_MAX) {
        error_setg(errp, "copro: packet-ns=%" PRIu64 " is above the limit "
                   "of %llu ns (1 s)", s->packet_ns, COPRO_PACKET_NS_MAX);
        return false;
    }
    if (s->arbitration_ns < COPRO_ARBITRATION_NS_MIN ||
        s->arbitration_ns > COPRO_ARBITRATION_NS_MAX) {
        error_setg(errp, "copro: arbitration-ns=%" PRIu64 " is out of "
                   "range (%llu to %llu ns)", s->arbitration_ns,
                   COPRO_ARBITRATION_NS_MIN, COPRO_ARBITRATION_NS_MAX);
        return false;
    }
    if (s->refresh < 1 || s->refresh > COPRO_DISP_REFRESH_MAX) {
        error_setg(errp, "copro: refresh=%" PRIu32 " Hz is out of range "
                   "(1 to %d)", s->refresh, COPRO_DISP_REFRESH_MAX);
        return false;
    }
    if (s->ctx_state_size > COPRO_CTX_STATE_MAX) {
        error_setg(errp, "copro: ctx-state-size=%" PRIu64 " bytes is above "
                   "the limit of %llu GiB", s->ctx_state_size,
                   COPRO_CTX_STATE_MAX / GiB);
        return false;
    }
    return copro_tiler_check_props(s, errp);
}

static bool copro_init_irqs(CoproState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    Error *err = NULL;
    int ret;

    pci_config_set_interrupt_pin(pdev->config, 1);

    if (s->msi_enabled_prop) {
        ret = msi_init(pdev, 0, 1, true, false, &err);
        if (ret == -ENOTSUP) {
            /* the platform has no MSI: INTx still works */
            warn_report_err(err);
            err = NULL;
        } else if (ret < 0) {
            error_propagate(errp, err);
            return false;
        }
    }
    if (s->msix_enabled_prop) {
        unsigned nvec = s->num_engines + 1;

        ret = msix_init_exclusive_bar(pdev, nvec, COPRO_BAR_MSIX, &err);
        if (ret == -ENOTSUP) {
            warn_report_err(err);
            s->msix_enabled_prop = false;
        } else if (ret < 0) {
            error_propagate(errp, err);
            return false;
        } else {
            for (unsigned v = 0; v < nvec; v++) {
                msix_vector_use(pdev, v);
            }
        }
    }
    return true;
}

/*
 * Engines go on with what they were doing when the VM starts running (after
 * an incoming migration, loadvm or cont), not while the state is loading:
 * their DMA must not touch guest memory before the VM owns it.
 */
static void copro_vm_state_change(void *opaque, bool running,
                                  RunState state)
{
    CoproState *s = opaque;

    if (!running) {
        return;
    }
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_vm_start(&s->engines[i]);
    }
}

static void copro_fini_irqs(CoproState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (s->msix_enabled_prop && msix_present(pdev)) {
        msix_unuse_all_vectors(pdev);
        msix_uninit_exclusive_bar(pdev);
    }
    msi_uninit(pdev);
}

/*
 * Everything that can refuse the device (properties, capabilities,
 * interrupts, the VRAM allocation, the timeline) comes before anything
 * that cannot, and a refusal undoes what was done: a management stack
 * retries device_add at the same address, and a VRAM block left
 * registered under that address's name would abort QEMU then.
 */
static void copro_realize(PCIDevice *pdev, Error **errp)
{
    CoproState *s = COPRO(pdev);
    ERRP_GUARD();

    if (!copro_check_props(s, errp)) {
        return;
    }

    pci_config_set_revision(pdev->config, COPRO_PCI_REVISION);

    if (pci_bus_is_express(pci_get_bus(pdev))) {
        if (pcie_endpoint_cap_init(pdev, COPRO_PCIE_CAP_OFFSET) < 0) {
            error_setg(errp, "copro: cannot add the PCIe capability");
            return;
        }
    } else {
        pdev->cap_present &= ~QEMU_PCI_CAP_EXPRESS;
    }

    if (!copro_init_irqs(s, errp)) {
        copro_fini_irqs(s);
        return;
    }
    if (!memory_region_init_ram(&s->vram, OBJECT(s), "copro-vram",
                                s->vram_size, errp)) {
        copro_fini_irqs(s);
        return;
    }
    if (!copro_tl_realize(s, errp)) {
        copro_tl_unrealize(s);
        vmstate_unregister_ram(&s->vram, DEVICE(s));
        copro_fini_irqs(s);
        return;
    }
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);

    memory_region_init_io(&s->mmio, OBJECT(s), &copro_mmio_ops, s,
                          "copro-mmio", COPRO_MMIO_SIZE);
    pci_register_bar(pdev, COPRO_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    pci_register_bar(pdev, COPRO_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_PREFETCH |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->vram);

    copro_display_init(s);
    copro_tiler_init(s);
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_init(s, i);
    }
    copro_hws_init(s);
    s->vmstate_change = qdev_add_vm_change_state_handler(DEVICE(s),
                                                         copro_vm_state_change,
                                                         s);
}

static void copro_exit(PCIDevice *pdev)
{
    CoproState *s = COPRO(pdev);

    g_clear_pointer(&s->vmstate_change, qemu_del_vm_change_state_handler);
    copro_tl_unrealize(s);
    copro_display_fini(s);
    copro_hws_fini(s);
    copro_tiler_fini(s);
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_fini(&s->engines[i]);
    }
    copro_fini_irqs(s);
    /*
     * The VRAM block goes when the last reference to the device does
     * (later, after RCU); its migration name must go now, so that a
     * device added at the same address right away can take it.
     */
    vmstate_unregister_ram(&s->vram, DEVICE(s));
}

static void copro_instance_init(Object *obj)
{
    PCIDevice *pdev = PCI_DEVICE(obj);

    /* dropped in realize when the device is not on an Express bus */
    pdev->cap_present |= QEMU_PCI_CAP_EXPRESS;
}

/*
 * Reset returns every register to its power-on value and cancels the work
 * of all engines (their timers and bottom halves). VRAM contents survive,
 * as on real boards. The PCI core lowers INTx and resets MSI/MSI-X.
 */
static void copro_reset_hold(Object *obj, ResetType type)
{
    CoproState *s = COPRO(obj);

    s->scratch = 0;
    s->int_status = 0;
    s->int_mask = 0;
    s->int_test_data = 0;
    memset(s->ctx_stats, 0, sizeof(s->ctx_stats));
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_reset(&s->engines[i]);
    }
    copro_hws_reset(s);
    copro_mmu_reset(s);
    copro_display_reset(s);
    copro_tl_reset(s);
    copro_tiler_reset(s);
    copro_update_intx(s);
}

static int copro_post_load(void *opaque, int version_id)
{
    CoproState *s = opaque;

    for (unsigned i = 0; i < s->num_engines; i++) {
        if (!copro_engine_post_load(&s->engines[i])) {
            error_report("copro: engine %u: inconsistent migrated state", i);
            return -EINVAL;
        }
    }
    return 0;
}

static const VMStateDescription vmstate_copro = {
    .name = "copro",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = copro_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, CoproState),
        VMSTATE_MSIX(parent_obj, CoproState),
        VMSTATE_UINT32(scratch, CoproState),
        VMSTATE_UINT64(int_status, CoproState),
        VMSTATE_UINT64(int_mask, CoproState),
        VMSTATE_UINT32(int_test_data, CoproState),
        /* only the engines that exist: the others have no timer */
        VMSTATE_UINT32_EQUAL(num_engines, CoproState, NULL),
        VMSTATE_STRUCT_VARRAY_UINT32(engines, CoproState, num_engines, 1,
                                     vmstate_copro_engine, CoproEngine),
        VMSTATE_STRUCT_ARRAY(ctx_stats, CoproState, COPRO_CTX_STATS, 1,
                             vmstate_copro_ctx_stat, CoproCtxStat),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_copro_mmu,
        &vmstate_copro_display,
        &vmstate_copro_hws,
        &vmstate_copro_tiler,
        NULL
    },
};

static const QEnumLookup copro_timing_lookup = {
    .array = (const char *const[]) {
        [COPRO_TIMING_MODELLED] = "modelled",
        [COPRO_TIMING_INSTANT] = "instant",
    },
    .size = 2,
};

static const PropertyInfo copro_prop_timing = {
    .type = "CoproTiming",
    .description = "modelled/instant",
    .enum_table = &copro_timing_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

static const QEnumLookup copro_preempt_lookup = {
    .array = (const char *const[]) {
        [COPRO_PREEMPT_NONE] = "none",
        [COPRO_PREEMPT_DMA_BUFFER] = "dma-buffer",
        [COPRO_PREEMPT_COMMAND] = "command",
        [COPRO_PREEMPT_MID_COMMAND] = "mid-command",
    },
    .size = 4,
};

static const PropertyInfo copro_prop_preempt = {
    .type = "CoproPreempt",
    .description = "none/dma-buffer/command/mid-command",
    .enum_table = &copro_preempt_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

static const Property copro_properties[] = {
    DEFINE_PROP_SIZE("vram", CoproState, vram_size, COPRO_VRAM_DEFAULT),
    DEFINE_PROP_UINT32("engines", CoproState, num_engines, 2),
    DEFINE_PROP_BOOL("msix", CoproState, msix_enabled_prop, true),
    DEFINE_PROP_BOOL("msi", CoproState, msi_enabled_prop, true),
    DEFINE_PROP_UNSIGNED("timing", CoproState, timing,
                         COPRO_TIMING_MODELLED, copro_prop_timing,
                         uint32_t),
    DEFINE_PROP_UINT64("packet-ns", CoproState, packet_ns, 100),
    DEFINE_PROP_UINT64("copy-bw", CoproState, copy_bw, 8 * GiB),
    DEFINE_PROP_UINT64("fill-bw", CoproState, fill_bw, 16 * GiB),
    DEFINE_PROP_SIZE("aperture", CoproState, aperture_size,
                     COPRO_APERTURE_DEFAULT),
    DEFINE_PROP_UINT64("pixel-rate", CoproState, pixel_rate, 4000000000ULL),
    DEFINE_PROP_UINT32("x-slice-packets", CoproState, slice_packets, 256),
    DEFINE_PROP_BOOL("x-batch", CoproState, batch, true),
    DEFINE_PROP_UINT64("arbitration-ns", CoproState, arbitration_ns,
                       COPRO_ARBITRATION_NS_DEFAULT),
    DEFINE_PROP_SIZE("ctx-state-size", CoproState, ctx_state_size,
                     COPRO_CTX_STATE_DEFAULT),
    DEFINE_PROP_UNSIGNED("preempt", CoproState, preempt,
                         COPRO_PREEMPT_MID_COMMAND, copro_prop_preempt,
                         uint32_t),
    DEFINE_PROP_BOOL("x-fault-injection", CoproState, fault_injection,
                     false),
    DEFINE_PROP_UINT32("refresh", CoproState, refresh,
                       COPRO_DISP_REFRESH_DEFAULT),
    DEFINE_PROP_UINT32("timeline", CoproState, timeline, 0),
    DEFINE_PROP_STRING("x-timeline-file", CoproState, timeline_file),
    DEFINE_PROP_BOOL("hwsched", CoproState, hwsched, true),
    DEFINE_PROP_UINT32("tile-size", CoproState, tiler.tile_size,
                       COPRO_TILE_SIZE_DEFAULT),
    DEFINE_PROP_UINT64("tile-ns", CoproState, tiler.tile_ns, 200),
};

static const struct {
    const char *name;
    const char *text;
} copro_prop_docs[] = {
    { "vram", "VRAM size behind BAR2: a power of two, 4 MiB to 4 GiB" },
    { "engines", "number of engines, 1 to 4: engine 0 renders, engine 1 "
      "copies/pages" },
    { "msix", "offer MSI-X, one vector per engine plus one for device "
      "events" },
    { "msi", "offer single-vector MSI" },
    { "timing", "modelled: packets take virtual time per the cost model; "
      "instant: run as fast as the host can" },
    { "packet-ns", "modelled cost of fetching and decoding one packet, "
      "in ns" },
    { "copy-bw", "modelled COPY bandwidth in bytes per second" },
    { "fill-bw", "modelled FILL bandwidth in bytes per second" },
    { "pixel-rate", "modelled RECT fill rate in pixels per second" },
    { "aperture", "GART aperture size (multiple of 4 KiB, 0 = none)" },
    { "x-slice-packets", "packets an engine executes per main-loop slice "
      "before yielding" },
    { "arbitration-ns", "mid-command arbitration interval: WORK runs in "
      "slices of this many virtual ns (1 us to 10 ms)" },
    { "ctx-state-size", "modelled context state a preemption saves and a "
      "resume restores, in bytes, moved at copy-bw (0: switches are "
      "free)" },
    { "preempt", "preemption granularity: none (legacy, never interrupts "
      "a buffer), dma-buffer, command (between packets), mid-command "
      "(inside long packets)" },
    { "x-fault-injection", "enable the per-engine INJECT register (hang, "
      "forced fault, dropped interrupt) for testing recovery" },
    { "refresh", "display refresh rate in Hz (vsync period 1e9 / refresh "
      "ns on the virtual clock), 1 to 1000" },
    { "timeline", "record a host-side timeline of this many events (the "
      "oldest dropped when full; 0: off, QMP x-copro-timeline-set turns it "
      "on later)" },
    { "x-timeline-file", "at exit (a guest shutdown too), write the "
      "timeline to this file as x-copro-timeline returns it" },
    { "hwsched", "hardware scheduling: hardware queues with doorbells "
      "(BAR1), per-engine run lists, the device's scheduler and its log" },
    { "tile-size", "tiler: pixels per side of a square tile, a power of "
      "two from 8 to 256" },
    { "tile-ns", "tiler: modelled fixed cost of rendering one tile, in ns "
      "(up to 1 s)" },
};

static void copro_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = copro_realize;
    k->exit = copro_exit;
    k->vendor_id = COPRO_PCI_VENDOR_ID;
    k->device_id = COPRO_PCI_DEVICE_ID;
    k->revision = COPRO_PCI_REVISION;
    k->class_id = COPRO_PCI_CLASS;
    rc->phases.hold = copro_reset_hold;
    dc->vmsd = &vmstate_copro;
    dc->desc = "copro preemptible GPU-like coprocessor";
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
    device_class_set_props(dc, copro_properties);
    for (size_t i = 0; i < ARRAY_SIZE(copro_prop_docs); i++) {
        object_class_property_set_description(klass, copro_prop_docs[i].name,
                                              copro_prop_docs[i].text);
    }
}

static const TypeInfo copro_info = {
    .name = TYPE_COPRO,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(CoproState),
    .instance_init = copro_instance_init,
    .class_init = copro_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void copro_register_types(void)
{
    type_register_static(&copro_info);
    copro_monitor_register();
}

type_init(copro_register_types)
