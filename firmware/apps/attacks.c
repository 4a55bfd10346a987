/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/attacks.h"

#include "ddi/ddi.h"

void attacks_add(struct attacks *t, const char *what, int want)
{
    if (t->n < ATTACKS_MAX) {
        t->list[t->n++] = (struct attack){ .what = what, .want = want };
    }
}

void attacks_try_next(struct attacks *t, int (*attempt)(void *arg,
                                                        unsigned i),
                      void *arg)
{
    struct attack *c;

    if (!t->n) {
        return;
    }
    c = &t->list[t->next];
    c->last = attempt(arg, t->next);
    c->runs++;
    c->wrong += c->last != c->want;
    t->next = (t->next + 1) % t->n;
}

void attacks_report(const struct attacks *t, struct report *r,
                    const char *app)
{
    for (unsigned i = 0; i < t->n; i++) {
        const struct attack *c = &t->list[i];

        report(r, c->runs > 0 && c->wrong == 0, "%s: %s refused with %s "
               "(%u attempts, %u answered otherwise, last %s)", app,
               c->what, ddi_status_name(c->want), c->runs, c->wrong,
               ddi_status_name(c->last));
    }
}
