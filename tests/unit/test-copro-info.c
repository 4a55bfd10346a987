/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host tests for the pure half of the copro driver (kmd/copro_info.c). */
#include <glib.h>

#include <copro/copro_regs.h>

#include "kmd/copro_info.h"

static struct copro_info good_info(void)
{
    return (struct copro_info){
        .id = COPRO_ID_MAGIC,
        .version = COPRO_VERSION,
        .caps = COPRO_CAP_CMD_PROCESSOR | COPRO_CAP_MSIX,
        .num_engines = 2,
        .vram_size = COPRO_VRAM_DEFAULT,
        .msix_vectors = 3,
    };
}

static void test_validate(void)
{
    struct copro_info i = good_info();

    g_assert_null(copro_info_validate(&i));

    i = good_info();
    i.id = 0xffffffff;      /* what an absent device reads as */
    g_assert_nonnull(copro_info_validate(&i));

    i = good_info();
    i.version = (COPRO_VERSION_MAJOR + 1) << 16;
    g_assert_nonnull(copro_info_validate(&i));

    i = good_info();
    i.version = COPRO_VERSION + 5;      /* newer minor: fine */
    g_assert_null(copro_info_validate(&i));

    i = good_info();
    i.num_engines = 0;
    g_assert_nonnull(copro_info_validate(&i));
    i.num_engines = COPRO_MAX_ENGINES + 1;
    g_assert_nonnull(copro_info_validate(&i));

    i = good_info();
    i.vram_size = 48u << 20;            /* not a power of two */
    g_assert_nonnull(copro_info_validate(&i));
    i.vram_size = COPRO_VRAM_MIN / 2;
    g_assert_nonnull(copro_info_validate(&i));

    i = good_info();
    i.msix_vectors = 2;                 /* must be engines + 1 */
    g_assert_nonnull(copro_info_validate(&i));
    i.caps &= ~COPRO_CAP_MSIX;          /* ...only if MSI-X is there */
    g_assert_null(copro_info_validate(&i));
}

static void test_caps_format(void)
{
    char buf[128];
    char small[8];

    copro_caps_format(COPRO_CAP_CMD_PROCESSOR | COPRO_CAP_MSIX, buf,
                      sizeof(buf));
    g_assert_cmpstr(buf, ==, "cmd-processor,msix");
    copro_caps_format(0, buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "none");
    copro_caps_format(COPRO_CAP_GART | (1u << 20), buf, sizeof(buf));
    g_assert_cmpstr(buf, ==, "gart,0x100000");
    copro_caps_format(COPRO_CAP_CMD_PROCESSOR | COPRO_CAP_GART, small,
                      sizeof(small));
    g_assert_cmpstr(small, ==, "cmd-pro");  /* truncated, terminated */
}

static void test_names(void)
{
    enum copro_irq_mode m;

    g_assert_cmpstr(copro_preempt_name(COPRO_PREEMPT_MID_COMMAND), ==,
                    "mid-command");
    g_assert_cmpstr(copro_preempt_name(99), ==, "unknown");

    g_assert_true(copro_irq_mode_parse("msix", &m));
    g_assert_cmpint(m, ==, COPRO_IRQ_MSIX);
    g_assert_true(copro_irq_mode_parse("intx", &m));
    g_assert_cmpint(m, ==, COPRO_IRQ_INTX);
    g_assert_true(copro_irq_mode_parse("msi", &m));
    g_assert_cmpint(m, ==, COPRO_IRQ_MSI);
    g_assert_true(copro_irq_mode_parse("auto", &m));
    g_assert_cmpint(m, ==, COPRO_IRQ_AUTO);
    g_assert_false(copro_irq_mode_parse("ms", &m));
    g_assert_false(copro_irq_mode_parse("msixx", &m));
    g_assert_false(copro_irq_mode_parse("", &m));
    g_assert_cmpstr(copro_irq_mode_name(COPRO_IRQ_MSIX), ==, "msix");
}

static void test_msix_entry_causes(void)
{
    g_assert_cmphex(copro_msix_entry_causes(0, 2), ==,
                    COPRO_INT_ENGINE_MASK(0));
    g_assert_cmphex(copro_msix_entry_causes(1, 2), ==,
                    COPRO_INT_ENGINE_MASK(1));
    g_assert_cmphex(copro_msix_entry_causes(2, 2), ==, COPRO_INT_DEV_ALL);
    g_assert_cmphex(copro_msix_entry_causes(3, 2), ==, 0);
    g_assert_cmphex(copro_msix_entry_causes(COPRO_MSIX_VEC_DEVICE(4), 4), ==,
                    COPRO_INT_DEV_ALL);
    /* the test interrupt goes to the device vector */
    g_assert_true(copro_msix_entry_causes(COPRO_MSIX_VEC_DEVICE(2), 2) &
                  COPRO_INT_DEV_TEST);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-info/validate", test_validate);
    g_test_add_func("/copro-info/caps-format", test_caps_format);
    g_test_add_func("/copro-info/names", test_names);
    g_test_add_func("/copro-info/msix-entry-causes", test_msix_entry_causes);
    return g_test_run();
}
