/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hostile application's list of attacks (evil, intruder): each is tried
 * in turn, one per tick, and must be refused with its DDI_E* code every
 * time; the check reports each with its attempts and the last answer.
 */
#ifndef FW_APPS_ATTACKS_H
#define FW_APPS_ATTACKS_H

#include "lib/report.h"

#define ATTACKS_MAX 32

struct attack {
    const char *what;
    int want;               /* the DDI_E* code the kernel must return */
    unsigned runs, wrong;   /* attempts, and those answered otherwise */
    int last;               /* the last code it got */
};

struct attacks {
    unsigned next, n;
    struct attack list[ATTACKS_MAX];
};

/* Adds an attack; more than ATTACKS_MAX is a bug of the app (ignored). */
void attacks_add(struct attacks *t, const char *what, int want);

/* Tries the next attack: attempt(arg, i) makes attack i and returns the
 * code the kernel gave. */
void attacks_try_next(struct attacks *t, int (*attempt)(void *arg,
                                                        unsigned i),
                      void *arg);

/* One report line per attack: tried, and refused as wanted every time. */
void attacks_report(const struct attacks *t, struct report *r,
                    const char *app);

#endif
