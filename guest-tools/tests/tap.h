/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TAP output of the guest tests (copro-kmstest, copro-rendertest): one
 * "ok N - ..." or "not ok N - ..." line per check, then the plan and the
 * closing "N passed, N failed" line.
 */
#ifndef COPRO_GUEST_TAP_H
#define COPRO_GUEST_TAP_H

#include <stdbool.h>

/* Print one check's line; returns ok. */
bool check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the plan and the totals; returns the exit status (1 if any failed). */
int done(void);

#endif
