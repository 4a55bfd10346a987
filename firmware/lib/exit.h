/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ending the run: QEMU's isa-debug-exit device (-device
 * isa-debug-exit,iobase=0xf4,iosize=0x04). Writing code to port 0xf4 makes
 * QEMU exit with status (code << 1) | 1, so the host sees 1 for success (0)
 * and 3 for failure (1). Status 0 can then only mean the guest never got
 * here (a triple fault with -no-reboot): the runner treats it as a crash.
 */
#ifndef FW_LIB_EXIT_H
#define FW_LIB_EXIT_H

#define FW_EXIT_SUCCESS     0   /* QEMU status 1 */
#define FW_EXIT_FAILURE     1   /* QEMU status 3 */
#define FW_EXIT_ABORT       63  /* QEMU status 127: internal error */

_Noreturn void fw_exit(int code);

#endif /* FW_LIB_EXIT_H */
