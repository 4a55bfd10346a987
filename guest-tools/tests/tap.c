// SPDX-License-Identifier: GPL-2.0-or-later
/* TAP output of the guest tests: see tap.h. */
#include <stdarg.h>
#include <stdio.h>

#include "tap.h"

static int tap_n, tap_failed;

bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tap_failed += !ok;
	return ok;
}

int done(void)
{
	printf("1..%d\n%d passed, %d failed\n", tap_n, tap_n - tap_failed,
	       tap_failed);
	return tap_failed ? 1 : 0;
}
