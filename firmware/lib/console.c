/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/console.h"

#include "lib/printf.h"
#include "lib/serial.h"

static void serial_sink_put(struct fmt_sink *sink, char c)
{
    (void)sink;
    serial_putc(c);
}

int kvprintf(const char *fmt, va_list ap)
{
    struct fmt_sink sink = { .put = serial_sink_put };

    return kformat(&sink, fmt, ap);
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}
