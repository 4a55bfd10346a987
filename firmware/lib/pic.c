/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/pic.h"

#include "lib/io.h"

#define PIC1_DATA   0x21
#define PIC2_DATA   0xa1

void pic_disable(void)
{
    outb(PIC1_DATA, 0xff);
    outb(PIC2_DATA, 0xff);
}
