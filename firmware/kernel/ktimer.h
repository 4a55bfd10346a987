/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's timer list: any number of one-shot timers multiplexed onto
 * the single LAPIC one-shot timer (WDDM's KeSetTimer on a DPC). The list
 * is kept sorted by due time; timers due at the same time fire in the
 * order they were armed. The event loop (kernel/kevents.c) fires the due
 * ones and programs the LAPIC for the earliest of the rest.
 *
 * Timers are intrusive: the owner embeds a struct ktimer and the list
 * never allocates. Times are GPU-clock ns (the kernel's clock).
 *
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-kevents.c).
 */
#ifndef FW_KERNEL_KTIMER_H
#define FW_KERNEL_KTIMER_H

#include <stdbool.h>
#include <stdint.h>

struct ktimer;
typedef void (*ktimer_fn)(void *arg, uint64_t now);

struct ktimer {
    uint64_t when;
    ktimer_fn fn;
    void *arg;
    struct ktimer *next;
    uint8_t armed;      /* non-zero: on the list (a byte, not a bool: it
                           is the application's memory, and whatever an
                           uninitialised one holds must be a value) */
    uint32_t owner;     /* the process (kapi_process_id) that armed it
                           through kapi_timer_arm; 0: the kernel's */
};

struct ktimer_list {
    struct ktimer *head;    /* earliest first */
    unsigned count;
    uint64_t now;           /* the clock as the event loop last read it
                               (ktimer_set_now): no timer is armed
                               earlier */
};

void ktimer_list_init(struct ktimer_list *l);

/* Sets up a timer that is not armed. */
void ktimer_init(struct ktimer *t, ktimer_fn fn, void *arg);

/*
 * Arms t to fire at when; an armed timer is moved (re-arming replaces).
 * A time already past counts as now (the list's clock): t goes behind
 * every timer already due, whatever time it asks for. Otherwise a timer
 * armed in the past and re-armed at once from its callback stayed the
 * earliest for ever and no other due timer fired (issue 26 item 5: an
 * application's timer at 0 starved vidsch's quantum, aging and watchdog
 * timer).
 */
void ktimer_arm(struct ktimer_list *l, struct ktimer *t, uint64_t when);

/* The event loop's clock reading: due times before it are clamped to it.
 * It never goes back. */
void ktimer_set_now(struct ktimer_list *l, uint64_t now);

/* Disarms t; nothing happens if it is not armed. */
void ktimer_cancel(struct ktimer_list *l, struct ktimer *t);

/* The earliest due time in *when; false if no timer is armed. */
bool ktimer_next(const struct ktimer_list *l, uint64_t *when);

/* Removes and returns the earliest timer if it is due at now (when <=
 * now), disarmed; NULL otherwise. The caller runs t->fn. */
struct ktimer *ktimer_pop_due(struct ktimer_list *l, uint64_t now);

/* The armed timers of owner (struct ktimer.owner), counted or cancelled:
 * the per-process timer quota and the disarming at a process's exit. */
unsigned ktimer_count_owned(const struct ktimer_list *l, uint32_t owner);
void ktimer_cancel_owned(struct ktimer_list *l, uint32_t owner);

#endif /* FW_KERNEL_KTIMER_H */
