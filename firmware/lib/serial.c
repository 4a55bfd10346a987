/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/serial.h"

#include "lib/io.h"

#define COM1            0x3f8
#define UART_THR        0       /* transmit holding (DLAB=0) */
#define UART_DLL        0       /* divisor low (DLAB=1) */
#define UART_IER        1       /* interrupt enable (DLAB=0) */
#define UART_DLM        1       /* divisor high (DLAB=1) */
#define UART_FCR        2
#define UART_LCR        3
#define UART_MCR        4
#define UART_LSR        5
#define UART_LCR_8N1    0x03
#define UART_LCR_DLAB   0x80
#define UART_MCR_DTR_RTS 0x03
#define UART_LSR_THRE   0x20    /* transmit holding register empty */

/* Bound the THRE wait: with no UART present (-serial none) the status
 * register reads 0xff, and a broken one must not hang the firmware. */
#define THRE_SPIN_LIMIT 100000

void serial_init(void)
{
    outb(COM1 + UART_IER, 0);               /* polled: no UART interrupts */
    outb(COM1 + UART_LCR, UART_LCR_DLAB);
    outb(COM1 + UART_DLL, 1);               /* 115200 baud */
    outb(COM1 + UART_DLM, 0);
    outb(COM1 + UART_LCR, UART_LCR_8N1);
    outb(COM1 + UART_FCR, 0);               /* no FIFO: simplest polling */
    outb(COM1 + UART_MCR, UART_MCR_DTR_RTS);
}

static void serial_put_raw(char c)
{
    for (int i = 0; i < THRE_SPIN_LIMIT; i++) {
        if (inb(COM1 + UART_LSR) & UART_LSR_THRE) {
            break;
        }
        cpu_relax();
    }
    outb(COM1 + UART_THR, (uint8_t)c);
}

void serial_putc(char c)
{
    if (c == '\n') {
        serial_put_raw('\r');
    }
    serial_put_raw(c);
}

void serial_puts(const char *s)
{
    while (*s) {
        serial_putc(*s++);
    }
}
