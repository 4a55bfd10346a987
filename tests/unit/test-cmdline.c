/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host tests for kernel command line parsing (firmware/lib/cmdline.c). */
#include <glib.h>
#include <string.h>

#include "lib/cmdline.h"

static void test_get(void)
{
    /* QEMU's multiboot loader puts the kernel file name first. */
    const char *line = "/build/firmware/demo.elf irq=intx  verbose\tseed=42";
    char buf[16];

    g_assert_true(cmdline_get(line, "irq", buf, sizeof(buf)));
    g_assert_cmpstr(buf, ==, "intx");
    g_assert_true(cmdline_get(line, "seed", buf, sizeof(buf)));
    g_assert_cmpstr(buf, ==, "42");
    g_assert_false(cmdline_get(line, "ir", buf, sizeof(buf)));
    g_assert_false(cmdline_get(line, "verbose", buf, sizeof(buf)));
    g_assert_false(cmdline_get(line, "irqx", buf, sizeof(buf)));
    g_assert_false(cmdline_get(NULL, "irq", buf, sizeof(buf)));
    g_assert_false(cmdline_get("", "irq", buf, sizeof(buf)));
}

static void test_last_wins_and_empty(void)
{
    char buf[16];

    g_assert_true(cmdline_get("irq=msix irq=intx", "irq", buf, sizeof(buf)));
    g_assert_cmpstr(buf, ==, "intx");
    g_assert_true(cmdline_get("irq=", "irq", buf, sizeof(buf)));
    g_assert_cmpstr(buf, ==, "");
    g_assert_true(cmdline_get("a=b=c", "a", buf, sizeof(buf)));
    g_assert_cmpstr(buf, ==, "b=c");
}

static void test_truncation(void)
{
    char buf[4];

    memset(buf, 'X', sizeof(buf));
    g_assert_true(cmdline_get("k=abcdef", "k", buf, sizeof(buf)));
    g_assert_cmpstr(buf, ==, "abc");
    g_assert_true(cmdline_get("k=abcdef", "k", buf, 0));    /* no write */
}

static void test_flags(void)
{
    g_assert_true(cmdline_has_flag("x.elf verbose", "verbose"));
    g_assert_false(cmdline_has_flag("x.elf verbose", "verb"));
    g_assert_false(cmdline_has_flag("x.elf verbosely", "verbose"));
    g_assert_false(cmdline_has_flag("verbose=1", "verbose"));
    g_assert_false(cmdline_has_flag(NULL, "verbose"));
}

static void test_get_u64(void)
{
    uint64_t v = 7;

    g_assert_cmpint(cmdline_get_u64("x.elf hog_ms=10000 n=0", "hog_ms", &v),
                    ==, 1);
    g_assert_cmpuint(v, ==, 10000);
    g_assert_cmpint(cmdline_get_u64("x.elf n=0", "n", &v), ==, 1);
    g_assert_cmpuint(v, ==, 0);
    /* absent: the default stays */
    v = 42;
    g_assert_cmpint(cmdline_get_u64("x.elf n=1", "hog_ms", &v), ==, 0);
    g_assert_cmpuint(v, ==, 42);
    g_assert_cmpint(cmdline_get_u64("x.elf n=12x", "n", &v), ==, -1);
    g_assert_cmpint(cmdline_get_u64("x.elf n=", "n", &v), ==, -1);
    g_assert_cmpint(cmdline_get_u64("x.elf n=-1", "n", &v), ==, -1);
    g_assert_cmpint(cmdline_get_u64("x.elf n=18446744073709551615", "n", &v),
                    ==, 1);
    g_assert_cmpuint(v, ==, UINT64_MAX);
    g_assert_cmpint(cmdline_get_u64("x.elf n=18446744073709551616", "n", &v),
                    ==, -1);
    g_assert_cmpuint(v, ==, UINT64_MAX);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cmdline/get", test_get);
    g_test_add_func("/cmdline/last-wins-and-empty", test_last_wins_and_empty);
    g_test_add_func("/cmdline/truncation", test_truncation);
    g_test_add_func("/cmdline/flags", test_flags);
    g_test_add_func("/cmdline/get-u64", test_get_u64);
    return g_test_run();
}
