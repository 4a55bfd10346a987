/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the display block
 *
 * One scanout (a CRTC) with flip on vsync through MMIO, as WDDM's
 * FlipOnVSyncMmIo display engines: the driver writes the next surface
 * address to FLIP, and it takes effect at the next vertical sync, which
 * runs on QEMU's virtual clock at the "refresh" rate. A cursor plane
 * (64 x 64 ARGB8888 in VRAM) is blended over the scanout.
 *
 * This file holds the registers, the mode, vsync and flips, the
 * lifecycle and migration; what the console shows (and the frame CRC,
 * which is computed from it) is copro-display-console.c.
 *
 * The programming model is docs/specs/copro.rst, "Display".
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/host-utils.h"
#include "qapi/error.h"
#include "qapi/qapi-types-copro.h"
#include "migration/vmstate.h"
#include "monitor/monitor.h"
#include "system/dma.h"
#include "ui/console.h"
#include "copro.h"
#include "trace.h"

static int64_t copro_display_deadline(CoproState *s, uint64_t k)
{
    return s->display.epoch +
           (int64_t)muldiv64(k, NANOSECONDS_PER_SECOND, s->refresh);
}

const char *copro_display_error_name(uint32_t code)
{
    switch (code) {
    case COPRO_DISP_ERR_NONE:
        return "none";
    case COPRO_DISP_ERR_FORMAT:
        return "bad format";
    case COPRO_DISP_ERR_SIZE:
        return "bad size";
    case COPRO_DISP_ERR_PITCH:
        return "bad pitch";
    case COPRO_DISP_ERR_ADDRESS:
        return "outside VRAM and the aperture";
    case COPRO_DISP_ERR_CURSOR:
        return "cursor image outside VRAM";
    default:
        return "?";
    }
}

/*
 * The surface check: every surface the display is about to show goes
 * through it. Returns COPRO_DISP_ERR_NONE or why it is refused.
 */
static uint32_t copro_display_check(CoproState *s, const CoproScanout *sc)
{
    uint32_t bpp = copro_fmt_bpp(sc->format);
    uint64_t extent, off;

    if (!bpp) {
        return COPRO_DISP_ERR_FORMAT;
    }
    if (!sc->width || !sc->height || sc->width > COPRO_DISP_MAX_DIM ||
        sc->height > COPRO_DISP_MAX_DIM) {
        return COPRO_DISP_ERR_SIZE;
    }
    if (sc->pitch < sc->width * bpp || (sc->pitch & 3) ||
        sc->pitch > COPRO_DISP_MAX_PITCH) {
        return COPRO_DISP_ERR_PITCH;
    }
    extent = (uint64_t)sc->pitch * (sc->height - 1) + sc->width * bpp;
    if (sc->addr & 3) {
        return COPRO_DISP_ERR_ADDRESS;
    }
    if (sc->addr < s->vram_size) {
        return extent <= s->vram_size - sc->addr ? COPRO_DISP_ERR_NONE
                                                 : COPRO_DISP_ERR_ADDRESS;
    }
    if (sc->addr < COPRO_APERTURE_BASE) {
        return COPRO_DISP_ERR_ADDRESS;
    }
    off = sc->addr - COPRO_APERTURE_BASE;
    if (off >= s->aperture_size || extent > s->aperture_size - off) {
        return COPRO_DISP_ERR_ADDRESS;
    }
    return COPRO_DISP_ERR_NONE;
}

uint32_t copro_display_mode_width(const CoproDisplay *d)
{
    return d->mode_size ? COPRO_DISP_SIZE_W(d->mode_size) : d->mode.width;
}

uint32_t copro_display_mode_height(const CoproDisplay *d)
{
    return d->mode_size ? COPRO_DISP_SIZE_H(d->mode_size) : d->mode.height;
}

bool copro_display_primary_on(const CoproDisplay *d)
{
    return !(d->control & COPRO_DISP_CTL_PRIMARY_OFF);
}

/*
 * The committed layout: a MODE_SIZE other than 0 must be a size, and with
 * the primary plane off there must be one (there is no primary to take
 * it from). The primary itself may lie partly or wholly outside the mode:
 * it is clipped.
 */
static uint32_t copro_display_check_layout(const CoproDisplay *d)
{
    uint32_t w = COPRO_DISP_SIZE_W(d->mode_size);
    uint32_t h = COPRO_DISP_SIZE_H(d->mode_size);

    if (!d->mode_size) {
        return copro_display_primary_on(d) ? COPRO_DISP_ERR_NONE
                                           : COPRO_DISP_ERR_SIZE;
    }
    if (!w || !h || w > COPRO_DISP_MAX_DIM || h > COPRO_DISP_MAX_DIM) {
        return COPRO_DISP_ERR_SIZE;
    }
    return COPRO_DISP_ERR_NONE;
}

static bool copro_cursor_addr_ok(CoproState *s, uint64_t addr)
{
    return !(addr & 3) && s->vram_size >= COPRO_CURSOR_BYTES &&
           addr <= s->vram_size - COPRO_CURSOR_BYTES;
}

static void copro_display_refuse(CoproState *s, uint32_t code, uint64_t addr,
                                 const char *what)
{
    CoproDisplay *d = &s->display;

    d->err_code = code;
    d->err_addr = addr;
    d->errors++;
    qemu_log_mask(LOG_GUEST_ERROR, "copro: display: %s at 0x%" PRIx64
                  " refused: %s\n", what, addr,
                  copro_display_error_name(code));
    trace_copro_disp_error(code, addr);
}

/*
 * Show @sc: check it, and either scan it out or go black with the reason
 * latched. Returns false (the caller raises DISPLAY_ERROR) on refusal.
 */
static bool copro_display_apply(CoproState *s, const CoproScanout *sc,
                                const char *what)
{
    CoproDisplay *d = &s->display;
    uint32_t err = copro_display_check_layout(d);

    if (!err && copro_display_primary_on(d)) {
        err = copro_display_check(s, sc);
    }

    d->mode = *sc;
    d->active = err == COPRO_DISP_ERR_NONE;
    d->error = !d->active;
    if (err) {
        copro_display_refuse(s, err, sc->addr, what);
        return false;
    }
    trace_copro_disp_scanout(sc->addr, sc->width, sc->height, sc->pitch,
                             sc->format);
    return true;
}

/*
 * Vertical sync: a pending flip takes effect, then VSYNC (and FLIP_DONE
 * or DISPLAY_ERROR) are raised together. The timer is guarded as the
 * engine timer is: an MSI-X message aimed at the device's own registers
 * is refused by the memory core instead of re-entering it.
 */
static void copro_display_vsync(void *opaque)
{
    CoproState *s = opaque;
    CoproDisplay *d = &s->display;
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool was_engaged = guard->engaged_in_io;
    uint64_t causes = COPRO_INT_DEV_VSYNC;
    int64_t next;

    guard->engaged_in_io = true;
    d->index++;
    d->vsync_count++;
    d->vsync_time = copro_display_deadline(s, d->index);
    if (d->flip_pending) {
        CoproScanout sc = d->mode;

        d->flip_pending = false;
        sc.addr = d->flip_addr;
        if (copro_display_apply(s, &sc, "flip")) {
            d->flips++;
            d->flip_done_addr = sc.addr;
            d->flip_done_vsync = d->vsync_count;
            causes |= COPRO_INT_DEV_FLIP_DONE;
        } else {
            causes |= COPRO_INT_DEV_DISPLAY_ERROR;
        }
    }
    if (d->crc_control & COPRO_DISP_CRC_CTL_ENABLE) {
        d->crc = copro_display_frame_crc(s);
        d->crc_vsync = d->vsync_count;
    }
    /* refresh vsyncs are exactly one second: keep index below refresh */
    if (d->index >= s->refresh) {
        d->epoch += NANOSECONDS_PER_SECOND;
        d->index -= s->refresh;
    }
    next = copro_display_deadline(s, d->index + 1);
    if (next <= copro_now_ns() - NANOSECONDS_PER_SECOND) {
        /* only a doctored migration stream gets here: resynchronise */
        d->epoch = copro_now_ns();
        d->index = 0;
        next = copro_display_deadline(s, 1);
    }
    timer_mod(d->timer, next);
    trace_copro_disp_vsync(d->vsync_count, d->vsync_time, causes);
    copro_tl_device(s, COPRO_TL_VSYNC, d->vsync_count, 0);
    if (causes & COPRO_INT_DEV_FLIP_DONE) {
        copro_tl_device(s, COPRO_TL_FLIP_DONE, d->flip_done_addr,
                        d->flip_done_vsync);
    }
    /* hardware queues: the frame's GPU times, budgets start again */
    causes |= copro_hws_vsync(s, d->vsync_count);
    copro_raise_irq(s, causes);
    guard->engaged_in_io = was_engaged;
}

static void copro_display_start(CoproState *s)
{
    CoproDisplay *d = &s->display;

    d->epoch = copro_now_ns();
    d->index = 0;
    timer_mod(d->timer, copro_display_deadline(s, 1));
}

static void copro_display_control(CoproState *s, uint32_t val)
{
    CoproDisplay *d = &s->display;

    if (val & ~COPRO_DISP_CTL_MASK) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: display: reserved CONTROL "
                      "bits 0x%x ignored\n", val & ~COPRO_DISP_CTL_MASK);
    }
    trace_copro_disp_control(val & COPRO_DISP_CTL_MASK);
    if (!(val & COPRO_DISP_CTL_ENABLE)) {
        d->control = 0;
        d->active = false;
        d->error = false;
        d->flip_pending = false;
        timer_del(d->timer);
        return;
    }
    if (!(d->control & COPRO_DISP_CTL_ENABLE)) {
        copro_display_start(s);
    }
    d->control = val & COPRO_DISP_CTL_MASK;
    d->mode_size = d->staged_mode_size;
    d->plane_pos = d->staged_plane_pos;
    d->background = d->staged_background & 0xffffff;
    if (!copro_display_primary_on(d) && d->flip_pending) {
        /* no primary plane to flip: the flip never completes */
        d->flip_pending = false;
    }
    if (!copro_display_apply(s, &d->staged, "mode")) {
        copro_raise_irq(s, COPRO_INT_DEV_DISPLAY_ERROR);
    }
}

/*
 * A 64-bit register written whole, or low half then high half: the high
 * half makes the request. Returns true when @latch holds a request.
 */
static bool copro_display_latch64(uint64_t *latch, uint64_t val,
                                  uint64_t mask)
{
    *latch = (*latch & ~mask) | (val & mask);
    return mask >> 32;
}

/* Whether a flip can be taken now; logs why not. */
static bool copro_display_flip_ok(CoproState *s, const char *reg,
                                  uint64_t addr)
{
    CoproDisplay *d = &s->display;

    if (!(d->control & COPRO_DISP_CTL_ENABLE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: display: %s to 0x%" PRIx64
                      " while the display is off, ignored\n", reg, addr);
        return false;
    }
    if (!copro_display_primary_on(d)) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: display: %s to 0x%" PRIx64
                      " while the primary plane is off, ignored\n", reg,
                      addr);
        return false;
    }
    return true;
}

static void copro_display_flip(CoproState *s, uint64_t val, uint64_t mask)
{
    CoproDisplay *d = &s->display;

    if (!copro_display_latch64(&d->flip_req, val, mask) ||
        !copro_display_flip_ok(s, "FLIP", d->flip_req)) {
        return;
    }
    trace_copro_disp_flip(d->flip_req, d->flip_pending);
    copro_tl_device(s, COPRO_TL_FLIP, d->flip_req, d->flip_pending);
    if (d->flip_pending) {
        d->flips_replaced++;
    }
    d->flip_pending = true;
    d->flip_addr = d->flip_req;
}

/*
 * An asynchronous (tearing) flip: the surface is checked and shown at
 * once, not at the next vsync, and FLIP_DONE is raised at once. A flip
 * pending for the next vsync is replaced by it.
 */
static void copro_display_flip_async(CoproState *s, uint64_t val,
                                     uint64_t mask)
{
    CoproDisplay *d = &s->display;
    CoproScanout sc = d->mode;

    if (!copro_display_latch64(&d->flip_async_req, val, mask) ||
        !copro_display_flip_ok(s, "FLIP_ASYNC", d->flip_async_req)) {
        return;
    }
    trace_copro_disp_flip_async(d->flip_async_req, d->flip_pending);
    copro_tl_device(s, COPRO_TL_FLIP, d->flip_async_req, d->flip_pending);
    if (d->flip_pending) {
        d->flip_pending = false;
        d->flips_replaced++;
    }
    sc.addr = d->flip_async_req;
    if (!copro_display_apply(s, &sc, "asynchronous flip")) {
        copro_raise_irq(s, COPRO_INT_DEV_DISPLAY_ERROR);
        return;
    }
    d->flips++;
    d->flip_done_addr = sc.addr;
    d->flip_done_vsync = d->vsync_count;
    copro_tl_device(s, COPRO_TL_FLIP_DONE, d->flip_done_addr,
                    d->flip_done_vsync);
    copro_raise_irq(s, COPRO_INT_DEV_FLIP_DONE);
}

uint64_t copro_display_read(CoproState *s, hwaddr reg)
{
    CoproDisplay *d = &s->display;

    switch (reg) {
    case COPRO_REG_DISP_CONTROL:
        return d->control;
    case COPRO_REG_DISP_STATUS:
        return (d->active ? COPRO_DISP_STS_ACTIVE : 0) |
               (d->flip_pending ? COPRO_DISP_STS_FLIP_PENDING : 0) |
               (d->error ? COPRO_DISP_STS_ERROR : 0);
    case COPRO_REG_DISP_SURFACE:
        return d->staged.addr;
    case COPRO_REG_DISP_PITCH:
        return d->staged.pitch;
    case COPRO_REG_DISP_WIDTH:
        return d->staged.width;
    case COPRO_REG_DISP_HEIGHT:
        return d->staged.height;
    case COPRO_REG_DISP_FORMAT:
        return d->staged.format;
    case COPRO_REG_DISP_FLIP:
        return d->flip_pending ? d->flip_addr | COPRO_DISP_FLIP_PENDING : 0;
    case COPRO_REG_DISP_SCANOUT:
        return d->mode.addr;
    case COPRO_REG_DISP_VSYNC_COUNT:
        return d->vsync_count;
    case COPRO_REG_DISP_VSYNC_TIME:
        return d->vsync_time;
    case COPRO_REG_DISP_FLIP_ADDR:
        return d->flip_done_addr;
    case COPRO_REG_DISP_FLIP_VSYNC:
        return d->flip_done_vsync;
    case COPRO_REG_DISP_FLIPS:
        return d->flips;
    case COPRO_REG_DISP_FLIPS_REPLACED:
        return d->flips_replaced;
    case COPRO_REG_DISP_PERIOD_NS:
        return NANOSECONDS_PER_SECOND / s->refresh;
    case COPRO_REG_DISP_REFRESH:
        return s->refresh;
    case COPRO_REG_DISP_ERROR:
        return d->err_code;
    case COPRO_REG_DISP_ERROR_ADDR:
        return d->err_addr;
    case COPRO_REG_CURSOR_CONTROL:
        return d->cursor_control;
    case COPRO_REG_CURSOR_POS:
        return d->cursor_pos;
    case COPRO_REG_CURSOR_SURFACE:
        return d->cursor_addr;
    case COPRO_REG_DISP_CRC_CONTROL:
        return d->crc_control;
    case COPRO_REG_DISP_CRC:
        return d->crc;
    case COPRO_REG_DISP_CRC_VSYNC:
        return d->crc_vsync;
    case COPRO_REG_DISP_MODE_SIZE:
        return d->staged_mode_size;
    case COPRO_REG_DISP_PLANE_POS:
        return d->staged_plane_pos;
    case COPRO_REG_DISP_BACKGROUND:
        return d->staged_background;
    default:
        return 0;
    }
}

/* val/mask are already shifted to the register's bit positions. */
void copro_display_write(CoproState *s, hwaddr reg, uint64_t val,
                         uint64_t mask)
{
    CoproDisplay *d = &s->display;
    uint64_t v;

    switch (reg) {
    case COPRO_REG_DISP_CONTROL:
        copro_display_control(s, val);
        break;
    case COPRO_REG_DISP_SURFACE:
        d->staged.addr = (d->staged.addr & ~mask) | (val & mask);
        break;
    case COPRO_REG_DISP_PITCH:
        d->staged.pitch = val;
        break;
    case COPRO_REG_DISP_WIDTH:
        d->staged.width = val;
        break;
    case COPRO_REG_DISP_HEIGHT:
        d->staged.height = val;
        break;
    case COPRO_REG_DISP_FORMAT:
        d->staged.format = val;
        break;
    case COPRO_REG_DISP_FLIP:
        copro_display_flip(s, val, mask);
        break;
    case COPRO_REG_DISP_FLIP_ASYNC:
        copro_display_flip_async(s, val, mask);
        break;
    case COPRO_REG_DISP_MODE_SIZE:
        d->staged_mode_size = val;
        break;
    case COPRO_REG_DISP_PLANE_POS:
        d->staged_plane_pos = val;
        break;
    case COPRO_REG_DISP_BACKGROUND:
        d->staged_background = val;
        break;
    case COPRO_REG_CURSOR_CONTROL:
        if (val & ~COPRO_CURSOR_CTL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: display: reserved "
                          "CURSOR_CONTROL bits 0x%" PRIx64 " ignored\n",
                          val & ~(uint64_t)COPRO_CURSOR_CTL_ENABLE);
        }
        d->cursor_control = val & COPRO_CURSOR_CTL_ENABLE;
        trace_copro_disp_cursor(d->cursor_control, d->cursor_pos,
                                d->cursor_addr);
        break;
    case COPRO_REG_CURSOR_POS:
        d->cursor_pos = val;
        trace_copro_disp_cursor(d->cursor_control, d->cursor_pos,
                                d->cursor_addr);
        break;
    case COPRO_REG_CURSOR_SURFACE:
        v = (d->cursor_addr & ~mask) | (val & mask);
        if (!copro_cursor_addr_ok(s, v)) {
            copro_display_refuse(s, COPRO_DISP_ERR_CURSOR, v, "cursor");
            copro_raise_irq(s, COPRO_INT_DEV_DISPLAY_ERROR);
            break;
        }
        d->cursor_addr = v;
        trace_copro_disp_cursor(d->cursor_control, d->cursor_pos,
                                d->cursor_addr);
        break;
    case COPRO_REG_DISP_CRC_CONTROL:
        if (val & ~COPRO_DISP_CRC_CTL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: display: reserved "
                          "DISP_CRC_CONTROL bits 0x%" PRIx64 " ignored\n",
                          val & ~(uint64_t)COPRO_DISP_CRC_CTL_ENABLE);
        }
        d->crc_control = val & COPRO_DISP_CRC_CTL_ENABLE;
        break;
    case COPRO_REG_DISP_CRC:
    case COPRO_REG_DISP_CRC_VSYNC:
        /* read-only: the register table refuses writes first */
        break;
    default:
        g_assert_not_reached();
    }
}

/*
 * Lifecycle
 */

/* After VRAM exists; the refresh property was checked with the others. */
void copro_display_init(CoproState *s)
{
    CoproDisplay *d = &s->display;

    d->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, copro_display_vsync, s);
    d->src_row = g_malloc(COPRO_DISP_MAX_DIM * 4);
    d->plane_row = g_new(uint32_t, COPRO_DISP_MAX_DIM);
    /* the engines mark what they write (memory_region_set_dirty) */
    memory_region_set_log(&s->vram, true, DIRTY_MEMORY_VGA);
    d->con = graphic_console_init(DEVICE(s), 0, &copro_display_ops, s);
}

void copro_display_fini(CoproState *s)
{
    CoproDisplay *d = &s->display;

    if (d->con) {
        graphic_console_close(d->con);
        d->con = NULL;
    }
    if (d->timer) {
        timer_free(d->timer);
        d->timer = NULL;
    }
    g_clear_pointer(&d->src_row, g_free);
    g_clear_pointer(&d->plane_row, g_free);
}

/* Display off, every register at its reset value; the console goes black. */
void copro_display_reset(CoproState *s)
{
    CoproDisplay *d = &s->display;

    if (d->timer) {
        timer_del(d->timer);
    }
    d->control = 0;
    memset(&d->staged, 0, sizeof(d->staged));
    memset(&d->mode, 0, sizeof(d->mode));
    d->staged_mode_size = 0;
    d->staged_plane_pos = 0;
    d->staged_background = 0;
    d->mode_size = 0;
    d->plane_pos = 0;
    d->background = 0;
    d->flip_async_req = 0;
    d->active = false;
    d->error = false;
    d->flip_req = 0;
    d->flip_pending = false;
    d->flip_addr = 0;
    d->epoch = 0;
    d->index = 0;
    d->vsync_count = 0;
    d->vsync_time = 0;
    d->flip_done_addr = 0;
    d->flip_done_vsync = 0;
    d->flips = 0;
    d->flips_replaced = 0;
    d->err_code = 0;
    d->err_addr = 0;
    d->errors = 0;
    d->cursor_control = 0;
    d->cursor_pos = 0;
    d->cursor_addr = 0;
    d->crc_control = 0;
    d->crc = 0;
    d->crc_vsync = 0;
    d->view.kind = COPRO_VIEW_NONE;
}

/*
 * Monitor
 */

void copro_display_info(CoproState *s, CoproInfo *info)
{
    CoproDisplay *d = &s->display;
    CoproDisplayInfo *di = g_new0(CoproDisplayInfo, 1);

    di->enabled = d->control & COPRO_DISP_CTL_ENABLE;
    di->primary = copro_display_primary_on(d);
    di->mode_width = copro_display_mode_width(d);
    di->mode_height = copro_display_mode_height(d);
    di->plane_x = COPRO_DISP_POS_X(d->plane_pos);
    di->plane_y = COPRO_DISP_POS_Y(d->plane_pos);
    di->background = d->background;
    di->active = d->active;
    di->error = g_strdup(copro_display_error_name(d->error ? d->err_code
                                                           : 0));
    di->scanout = d->mode.addr;
    di->width = d->mode.width;
    di->height = d->mode.height;
    di->pitch = d->mode.pitch;
    di->format = d->mode.format;
    di->flip_pending = d->flip_pending;
    di->pending_address = d->flip_pending ? d->flip_addr : 0;
    di->refresh = s->refresh;
    di->vsyncs = d->vsync_count;
    di->last_vsync_ns = d->vsync_time;
    di->flips = d->flips;
    di->flips_replaced = d->flips_replaced;
    di->errors = d->errors;
    di->cursor = copro_cursor_on(s);
    di->cursor_x = COPRO_CURSOR_POS_X(d->cursor_pos);
    di->cursor_y = COPRO_CURSOR_POS_Y(d->cursor_pos);
    di->cursor_address = d->cursor_addr;
    info->display = di;
}

void copro_display_hmp(Monitor *mon, CoproInfo *info)
{
    CoproDisplayInfo *d = info->display;

    monitor_printf(mon, "  display: %s, %s", d->enabled ? "on" : "off",
                   d->active ? "scanning out" : "black");
    if (strcmp(d->error, "none")) {
        monitor_printf(mon, " (surface refused: %s)", d->error);
    }
    monitor_printf(mon, ", %u Hz\n", d->refresh);
    monitor_printf(mon, "    mode %ux%u, background 0x%06x\n",
                   d->mode_width, d->mode_height, d->background);
    monitor_printf(mon, "    primary %s at (%" PRId64 ", %" PRId64 "): "
                   "scanout 0x%" PRIx64 " %ux%u pitch %u format %u"
                   ", flip %s", d->primary ? "on" : "off", d->plane_x,
                   d->plane_y, d->scanout, d->width, d->height, d->pitch,
                   d->format, d->flip_pending ? "pending to" : "idle");
    if (d->flip_pending) {
        monitor_printf(mon, " 0x%" PRIx64, d->pending_address);
    }
    monitor_printf(mon, "\n    vsyncs %" PRIu64 " (last at %" PRIu64
                   " ns), flips %" PRIu64 ", replaced %" PRIu64
                   ", errors %" PRIu64 "\n", d->vsyncs, d->last_vsync_ns,
                   d->flips, d->flips_replaced, d->errors);
    monitor_printf(mon, "    cursor %s at (%" PRId64 ", %" PRId64
                   "), image 0x%" PRIx64 "\n", d->cursor ? "on" : "off",
                   d->cursor_x, d->cursor_y, d->cursor_address);
}

/*
 * Migration. The destination checks everything that bounds a VRAM access
 * or the vsync arithmetic before it trusts the stream.
 */

static bool copro_display_needed(void *opaque)
{
    return true;
}

static int copro_display_post_load(void *opaque, int version_id)
{
    CoproState *s = opaque;
    CoproDisplay *d = &s->display;
    bool on = d->control & COPRO_DISP_CTL_ENABLE;

    if ((d->control & ~COPRO_DISP_CTL_MASK) ||
        (!on && d->control) ||
        (d->cursor_control & ~COPRO_CURSOR_CTL_ENABLE) ||
        (d->active && d->error) ||
        (!on && (d->active || d->error || d->flip_pending)) ||
        (d->active && copro_display_check_layout(d)) ||
        (d->active && copro_display_primary_on(d) &&
         copro_display_check(s, &d->mode)) ||
        (d->flip_pending && !copro_display_primary_on(d)) ||
        (d->background >> 24) ||
        !copro_cursor_addr_ok(s, d->cursor_addr) ||
        d->err_code > COPRO_DISP_ERR_CURSOR ||
        d->index >= s->refresh || d->epoch < 0 ||
        d->epoch > INT64_MAX / 2) {
        error_report("copro: display: inconsistent migrated state");
        return -EINVAL;
    }
    d->view.kind = COPRO_VIEW_NONE;
    if (on) {
        timer_mod(d->timer, copro_display_deadline(s, d->index + 1));
    } else {
        timer_del(d->timer);
    }
    return 0;
}

/* the frame CRC: only in streams of a guest that turned it on */
static bool copro_display_crc_needed(void *opaque)
{
    CoproState *s = opaque;

    return s->display.crc_control || s->display.crc_vsync;
}

static int copro_display_crc_post_load(void *opaque, int version_id)
{
    CoproState *s = opaque;

    if (s->display.crc_control & ~COPRO_DISP_CRC_CTL_ENABLE ||
        s->display.crc_vsync > s->display.vsync_count) {
        error_report("copro: display: inconsistent migrated CRC state");
        return -EINVAL;
    }
    return 0;
}

static const VMStateDescription vmstate_copro_display_crc = {
    .name = "copro/display/crc",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_display_crc_needed,
    .post_load = copro_display_crc_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(display.crc_control, CoproState),
        VMSTATE_UINT32(display.crc, CoproState),
        VMSTATE_UINT64(display.crc_vsync, CoproState),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The layout of planes in the mode (mode size, primary position and off,
 * background, an asynchronous flip's low half): only in streams of a
 * guest that used it. The display's post_load checks it with the rest.
 */
static bool copro_display_layout_needed(void *opaque)
{
    CoproState *s = opaque;
    CoproDisplay *d = &s->display;

    return d->staged_mode_size || d->staged_plane_pos ||
           d->staged_background || d->mode_size || d->plane_pos ||
           d->background || d->flip_async_req ||
           (d->control & COPRO_DISP_CTL_PRIMARY_OFF);
}

static const VMStateDescription vmstate_copro_display_layout = {
    .name = "copro/display/layout",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_display_layout_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(display.staged_mode_size, CoproState),
        VMSTATE_UINT32(display.staged_plane_pos, CoproState),
        VMSTATE_UINT32(display.staged_background, CoproState),
        VMSTATE_UINT32(display.mode_size, CoproState),
        VMSTATE_UINT32(display.plane_pos, CoproState),
        VMSTATE_UINT32(display.background, CoproState),
        VMSTATE_UINT64(display.flip_async_req, CoproState),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_copro_scanout = {
    .name = "copro/scanout",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, CoproScanout),
        VMSTATE_UINT32(pitch, CoproScanout),
        VMSTATE_UINT32(width, CoproScanout),
        VMSTATE_UINT32(height, CoproScanout),
        VMSTATE_UINT32(format, CoproScanout),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_copro_display = {
    .name = "copro/display",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_display_needed,
    .post_load = copro_display_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(refresh, CoproState, NULL),
        VMSTATE_UINT32(display.control, CoproState),
        VMSTATE_STRUCT(display.staged, CoproState, 1, vmstate_copro_scanout,
                       CoproScanout),
        VMSTATE_BOOL(display.active, CoproState),
        VMSTATE_BOOL(display.error, CoproState),
        VMSTATE_STRUCT(display.mode, CoproState, 1, vmstate_copro_scanout,
                       CoproScanout),
        VMSTATE_UINT64(display.flip_req, CoproState),
        VMSTATE_BOOL(display.flip_pending, CoproState),
        VMSTATE_UINT64(display.flip_addr, CoproState),
        VMSTATE_INT64(display.epoch, CoproState),
        VMSTATE_UINT64(display.index, CoproState),
        VMSTATE_UINT64(display.vsync_count, CoproState),
        VMSTATE_INT64(display.vsync_time, CoproState),
        VMSTATE_UINT64(display.flip_done_addr, CoproState),
        VMSTATE_UINT64(display.flip_done_vsync, CoproState),
        VMSTATE_UINT64(display.flips, CoproState),
        VMSTATE_UINT64(display.flips_replaced, CoproState),
        VMSTATE_UINT32(display.err_code, CoproState),
        VMSTATE_UINT64(display.err_addr, CoproState),
        VMSTATE_UINT64(display.errors, CoproState),
        VMSTATE_UINT32(display.cursor_control, CoproState),
        VMSTATE_UINT32(display.cursor_pos, CoproState),
        VMSTATE_UINT64(display.cursor_addr, CoproState),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_copro_display_crc,
        &vmstate_copro_display_layout,
        NULL
    },
};
