/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's command processor: rings, packets, fences, faults,
 * interrupts per engine and the modelled time.
 */
#include "qemu/osdep.h"
#include "copro-qtest.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    return g_test_run();
}
