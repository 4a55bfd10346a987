/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/report.h"

#include <stdarg.h>

#include "lib/console.h"
#include "lib/exit.h"

static void report_line(const char *tag, const char *fmt, va_list ap)
{
    kprintf("%s: ", tag);
    kvprintf(fmt, ap);
    kprintf("\n");
}

bool report(struct report *r, bool pass, const char *fmt, ...)
{
    va_list ap;

    r->tests++;
    if (!pass) {
        r->failures++;
    }
    va_start(ap, fmt);
    report_line(pass ? "PASS" : "FAIL", fmt, ap);
    va_end(ap);
    return pass;
}

void report_skip(struct report *r, const char *fmt, ...)
{
    va_list ap;

    r->tests++;
    r->skipped++;
    va_start(ap, fmt);
    report_line("SKIP", fmt, ap);
    va_end(ap);
}

void report_info(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    kvprintf(fmt, ap);
    va_end(ap);
    kprintf("\n");
}

int report_summary(const struct report *r)
{
    kprintf("SUMMARY: %u tests, %u unexpected failures", r->tests,
            r->failures);
    if (r->skipped) {
        kprintf(", %u skipped", r->skipped);
    }
    kprintf("\n");
    return r->failures ? FW_EXIT_FAILURE : FW_EXIT_SUCCESS;
}
