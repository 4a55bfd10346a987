/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the display block (scanout, flip on vsync, cursor plane) and its
 * QEMU graphic console. Device-internal; the guest ABI is the DISP_ and
 * CURSOR_ registers of include/copro/copro_regs.h.
 */
#ifndef HW_COPRO_DISPLAY_H
#define HW_COPRO_DISPLAY_H

#include "qemu/timer.h"

struct CoproState;

/* what the console shows when there is no valid geometry */
#define COPRO_BLACK_WIDTH   640
#define COPRO_BLACK_HEIGHT  480

/* A surface as the display shows it: the checked, applied geometry. */
typedef struct CoproScanout {
    uint64_t addr;
    uint32_t pitch;
    uint32_t width;
    uint32_t height;
    uint32_t format;
} CoproScanout;

/* What the console surface currently holds (host side, not migrated). */
typedef enum CoproViewKind {
    COPRO_VIEW_NONE,        /* nothing built yet: next update rebuilds */
    COPRO_VIEW_BLACK,       /* display off or in error */
    COPRO_VIEW_SHARED,      /* XRGB8888 in VRAM, no cursor: VRAM itself */
    COPRO_VIEW_CONVERTED,   /* a private XRGB8888 copy */
} CoproViewKind;

typedef struct CoproView {
    CoproViewKind kind;
    CoproScanout sc;        /* SHARED, CONVERTED: the primary plane */
    uint32_t width;         /* the console surface: the mode's size */
    uint32_t height;
    bool primary;           /* CONVERTED: the primary plane is on */
    int32_t plane_x;        /* CONVERTED: where it sits in the mode */
    int32_t plane_y;
    uint32_t background;    /* CONVERTED: XRGB8888 where nothing covers */
} CoproView;

typedef struct CoproDisplay {
    /* staged mode registers; CONTROL.ENABLE commits them */
    uint32_t control;
    CoproScanout staged;
    uint32_t staged_mode_size;      /* MODE_SIZE */
    uint32_t staged_plane_pos;      /* PLANE_POS */
    uint32_t staged_background;     /* BACKGROUND */

    /*
     * Applied state: the committed geometry with the address last applied
     * (by a commit or a flip). It has passed the surface check while
     * active; after a refusal it holds the refused surface.
     */
    bool active;            /* STATUS.ACTIVE: scanning out */
    bool error;             /* STATUS.ERROR: black, surface refused */
    CoproScanout mode;      /* the primary plane */
    uint32_t mode_size;     /* committed MODE_SIZE (0: the primary's) */
    uint32_t plane_pos;     /* committed PLANE_POS */
    uint32_t background;    /* committed BACKGROUND */
    uint64_t flip_req;      /* FLIP as written so far (low half) */
    uint64_t flip_async_req; /* FLIP_ASYNC as written so far */
    bool flip_pending;
    uint64_t flip_addr;

    /*
     * vsync: number k after epoch is due at epoch + k * 1e9 / refresh
     * (rounded down). The epoch is the enabling time, advanced by one
     * second every refresh vsyncs so that k stays small; exact, as
     * refresh vsyncs take exactly one second.
     */
    int64_t epoch;
    uint64_t index;
    uint64_t vsync_count;
    int64_t vsync_time;

    /* latches and counters */
    uint64_t flip_done_addr;
    uint64_t flip_done_vsync;
    uint64_t flips;
    uint64_t flips_replaced;
    uint32_t err_code;
    uint64_t err_addr;
    uint64_t errors;

    /* cursor plane: registers take effect at once */
    uint32_t cursor_control;
    uint32_t cursor_pos;
    uint64_t cursor_addr;

    /* frame CRC (pipe CRC): latched at each vsync while enabled */
    uint32_t crc_control;
    uint32_t crc;
    uint64_t crc_vsync;

    QEMUTimer *timer;
    QemuConsole *con;
    CoproView view;
    /* where the cursor was drawn in a converted view (to erase it) */
    bool cursor_drawn;
    int32_t cursor_drawn_x;
    int32_t cursor_drawn_y;
    uint64_t cursor_drawn_addr;
    bool dma_warned;        /* aperture read failure logged for view */
    uint8_t *src_row;       /* one source row read through the GART */
    uint32_t *plane_row;    /* one primary row before it is clipped */
} CoproDisplay;

void copro_display_init(struct CoproState *s);
void copro_display_fini(struct CoproState *s);
void copro_display_reset(struct CoproState *s);
uint64_t copro_display_read(struct CoproState *s, hwaddr reg);
void copro_display_write(struct CoproState *s, hwaddr reg, uint64_t val,
                         uint64_t mask);
const char *copro_display_error_name(uint32_t code);
struct CoproInfo;
void copro_display_info(struct CoproState *s, struct CoproInfo *info);
void copro_display_hmp(Monitor *mon, struct CoproInfo *d);
extern const VMStateDescription vmstate_copro_display;

/* The mode's size: MODE_SIZE as committed, else the primary's. */
uint32_t copro_display_mode_width(const CoproDisplay *d);
uint32_t copro_display_mode_height(const CoproDisplay *d);
bool copro_display_primary_on(const CoproDisplay *d);

/* copro-display-console.c: what the console shows */
bool copro_cursor_on(struct CoproState *s);
uint32_t copro_display_frame_crc(struct CoproState *s);
extern const struct GraphicHwOps copro_display_ops;

#endif /* HW_COPRO_DISPLAY_H */
