/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the firmware's printf core (firmware/lib/printf.c).
 * Where the C library agrees on the result, outputs are compared with the
 * host's snprintf, so the expectations are not just our own reading.
 */
#include <glib.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/printf.h"

/*
 * Formats with both implementations and compares text and return value.
 * A plain function rather than a macro: it carries no format attribute,
 * so the compiler accepts the odd flag combinations tested with it.
 */
static void check_like_libc(const char *fmt, ...)
{
    char ours[256], libc[256];
    va_list ap, ap2;
    int n_ours, n_libc;

    va_start(ap, fmt);
    va_copy(ap2, ap);
    n_ours = kvsnprintf(ours, sizeof(ours), fmt, ap);
    n_libc = vsnprintf(libc, sizeof(libc), fmt, ap2);
    va_end(ap2);
    va_end(ap);
    g_assert_cmpstr(ours, ==, libc);
    g_assert_cmpint(n_ours, ==, n_libc);
}

/* Same, against a fixed expectation, also without format checking. */
static void check_unchecked(const char *expect, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    g_assert_cmpstr(buf, ==, expect);
    g_assert_cmpint(n, ==, (int)strlen(expect));
}

#define CHECK(expect, ...) do { \
        char buf_[256]; \
        int n_ = ksnprintf(buf_, sizeof(buf_), __VA_ARGS__); \
        g_assert_cmpstr(buf_, ==, expect); \
        g_assert_cmpint(n_, ==, (int)strlen(expect)); \
    } while (0)

static void test_integers(void)
{
    CHECK("42", "%d", 42);
    CHECK("-42", "%d", -42);
    CHECK("-2147483648", "%d", INT32_MIN);
    CHECK("-9223372036854775808", "%lld", (long long)INT64_MIN);
    CHECK("4294967295", "%u", 0xffffffffu);
    CHECK("18446744073709551615", "%llu", 0xffffffffffffffffull);
    CHECK("18446744073709551615", "%lu", 0xfffffffffffffffful);
    CHECK("deadbeef", "%x", 0xdeadbeefu);
    CHECK("DEADBEEF", "%X", 0xdeadbeefu);
    CHECK("123456789abcdef0", "%lx", 0x123456789abcdef0ul);
    CHECK("ff", "%hhx", 0x1ff);
    CHECK("ffff", "%hx", 0xfffff);
    CHECK("17", "%o", 15);
    CHECK("0", "%x", 0);
    CHECK("12345", "%zu", (size_t)12345);
    check_like_libc("%i %d %u", -1, 0, 7u);
    check_like_libc("%+d %+d % d % d", 5, -5, 5, -5);
    check_like_libc("%#x %#X %#o %#x", 255u, 255u, 8u, 0u);
    check_like_libc("%jd %td", (intmax_t)-3, (ptrdiff_t)-4);
}

static void test_width_and_padding(void)
{
    CHECK("   42", "%5d", 42);
    CHECK("00042", "%05d", 42);
    CHECK("42   |", "%-5d|", 42);
    CHECK("-0042", "%05d", -42);
    CHECK("0x00ff", "%#06x", 0xffu);
    CHECK("00000000deadbeef", "%016lx", 0xdeadbeeful);
    CHECK("42", "%1d", 42);
    CHECK("   ab", "%5s", "ab");
    CHECK("ab   |", "%-5s|", "ab");
    CHECK("    x", "%5c", 'x');
    CHECK("x    |", "%-5c|", 'x');
    CHECK("   42", "%*d", 5, 42);
    CHECK("42   |", "%*d|", -5, 42);
    check_like_libc("%-05d|", 42);          /* '-' overrides '0' */
    check_like_libc("%08.3d|", 42);         /* precision disables '0' */
    check_like_libc("%.0d|%.0x|", 0, 0u);   /* no digits for zero */
    check_like_libc("%.5d|%-8.5x|", -42, 0xabu);
    check_like_libc("%+08d| % 8d|", 42, 42);
}

static void test_strings_chars_pointers(void)
{
    CHECK("hello world", "%s %s", "hello", "world");
    CHECK("hel", "%.3s", "hello");
    CHECK("he", "%.*s", 2, "hello");
    check_unchecked("(null)", "%s", (char *)NULL);
    CHECK("a", "%c", 'a');
    CHECK("0x1000", "%p", (void *)0x1000);
    CHECK("0xffffffff80000000", "%p", (void *)0xffffffff80000000ul);
    CHECK("100%", "%d%%", 100);
    CHECK("%", "%%");
    CHECK("plain", "plain");
}

static void test_unknown_conversion(void)
{
    /* Shown verbatim so mistakes are visible; arguments not consumed. */
    check_unchecked("%q 5", "%q %d", 5);
    check_unchecked("end %", "end %");
    check_unchecked("w %-5", "w %-5");
}

static void test_truncation(void)
{
    char buf[8];
    int n;

    memset(buf, 'X', sizeof(buf));
    n = ksnprintf(buf, sizeof(buf), "%s", "0123456789");
    g_assert_cmpint(n, ==, 10);         /* the length it would have had */
    g_assert_cmpstr(buf, ==, "0123456");

    memset(buf, 'X', sizeof(buf));
    n = ksnprintf(buf, 4, "%d", 123456);
    g_assert_cmpint(n, ==, 6);
    g_assert_cmpstr(buf, ==, "123");
    g_assert_cmpint(buf[4], ==, 'X');   /* nothing written past size */

    memset(buf, 'X', sizeof(buf));
    n = ksnprintf(buf, 1, "abc");
    g_assert_cmpint(n, ==, 3);
    g_assert_cmpint(buf[0], ==, '\0');
    g_assert_cmpint(buf[1], ==, 'X');

    memset(buf, 'X', sizeof(buf));
    n = ksnprintf(buf, 0, "abc");
    g_assert_cmpint(n, ==, 3);
    g_assert_cmpint(buf[0], ==, 'X');   /* size 0: untouched */

    n = ksnprintf(NULL, 0, "%08x", 1u);
    g_assert_cmpint(n, ==, 8);

    /* Exactly fitting: size - 1 characters and the NUL. */
    n = ksnprintf(buf, sizeof(buf), "%7s", "x");
    g_assert_cmpint(n, ==, 7);
    g_assert_cmpstr(buf, ==, "      x");
}

struct count_sink {
    struct fmt_sink sink;
    GString *out;
};

static void count_put(struct fmt_sink *sink, char c)
{
    g_string_append_c(((struct count_sink *)sink)->out, c);
}

static int format_to_sink(struct count_sink *s, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kformat(&s->sink, fmt, ap);
    va_end(ap);
    return n;
}

static void test_sink(void)
{
    struct count_sink s = { .sink = { .put = count_put },
                            .out = g_string_new(NULL) };
    int n = format_to_sink(&s, "[%4d|%-3s]", 7, "ab");

    g_assert_cmpstr(s.out->str, ==, "[   7|ab ]");
    g_assert_cmpint(n, ==, (int)s.out->len);
    g_string_free(s.out, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/printf/integers", test_integers);
    g_test_add_func("/printf/width-padding", test_width_and_padding);
    g_test_add_func("/printf/strings-chars-pointers",
                    test_strings_chars_pointers);
    g_test_add_func("/printf/unknown-conversion", test_unknown_conversion);
    g_test_add_func("/printf/truncation", test_truncation);
    g_test_add_func("/printf/sink", test_sink);
    return g_test_run();
}
