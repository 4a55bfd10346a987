/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test reporting in the kvm-unit-tests line format, which
 * scripts/run-firmware.sh turns into TAP:
 *
 *   PASS: <msg>        FAIL: <msg>        SKIP: <msg>
 *   SUMMARY: N tests, M unexpected failures[, K skipped]
 *
 * A scenario owns one struct report and passes it around; nothing here is
 * global, so a scenario could keep several (per phase, say).
 */
#ifndef FW_LIB_REPORT_H
#define FW_LIB_REPORT_H

#include <stdbool.h>

struct report {
    unsigned tests;
    unsigned failures;
    unsigned skipped;
};

/* Records one check. Returns pass, so callers can chain on the result. */
bool report(struct report *r, bool pass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void report_skip(struct report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Informational line, not a check (becomes a TAP comment). */
void report_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints SUMMARY and returns the exit code for fw_exit(). */
int report_summary(const struct report *r);

#endif /* FW_LIB_REPORT_H */
