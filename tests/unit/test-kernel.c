/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the kernel and its application API (firmware/kernel/)
 * with the real scheduler (vidsch) over a fake GPU that implements the
 * DDI: one executable, its tests by concern in test-kernel-*.c, what
 * they share in test-kernel.h (the fake GPU: test-kernel-fake.c; an
 * application's view: test-kernel-fixture.c).
 *
 * The tests share one kernel, each starting it afresh; they run in the
 * order registered here (the paths of `test-kernel -l`).
 */
#include "test-kernel.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    kernel_tests_objects();
    kernel_tests_isolation();
    kernel_tests_display();
    kernel_tests_gpuva();
    kernel_tests_quota();
    kernel_tests_exit();
    kernel_tests_scene();
    kernel_tests_ident();
    kernel_tests_attack();
    return g_test_run();
}
