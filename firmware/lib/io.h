/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Port I/O, MMIO accessors and the few privileged instructions the
 * firmware needs. Everything is static inline so the compiler can fold
 * constant ports and offsets.
 *
 * MMIO accessors go through volatile pointers so every access is emitted
 * exactly once with the requested width: device registers care about both.
 * The "memory" clobbers keep the compiler from moving ordinary memory
 * accesses across a device access (x86 keeps stores ordered with UC/MMIO
 * accesses, so no fence instruction is needed on top).
 */
#ifndef FW_LIB_IO_H
#define FW_LIB_IO_H

#include <stdint.h>

/* The CPU's time-stamp counter (under -icount: virtual, deterministic). */
static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outw(uint16_t port, uint16_t v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port) : "memory");
    return v;
}

static inline uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port) : "memory");
    return v;
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port) : "memory");
    return v;
}

static inline uint8_t mmio_read8(const volatile void *base, uint64_t off)
{
    return *(const volatile uint8_t *)((uintptr_t)base + off);
}

static inline uint32_t mmio_read32(const volatile void *base, uint64_t off)
{
    return *(const volatile uint32_t *)((uintptr_t)base + off);
}

static inline uint64_t mmio_read64(const volatile void *base, uint64_t off)
{
    return *(const volatile uint64_t *)((uintptr_t)base + off);
}

static inline void mmio_write8(volatile void *base, uint64_t off, uint8_t v)
{
    *(volatile uint8_t *)((uintptr_t)base + off) = v;
}

static inline void mmio_write32(volatile void *base, uint64_t off, uint32_t v)
{
    *(volatile uint32_t *)((uintptr_t)base + off) = v;
}

static inline void mmio_write64(volatile void *base, uint64_t off, uint64_t v)
{
    *(volatile uint64_t *)((uintptr_t)base + off) = v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
                     "d"((uint32_t)(v >> 32)) : "memory");
}

static inline uint64_t read_cr2(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}

static inline void irq_enable(void)
{
    __asm__ volatile("sti" : : : "memory");
}

static inline void irq_disable(void)
{
    __asm__ volatile("cli" : : : "memory");
}

/*
 * Enable interrupts and halt until the next one. "sti" only takes effect
 * after the following instruction, so an interrupt that became pending
 * while interrupts were off still wakes the hlt: no lost-wakeup window.
 * Returns with interrupts disabled again, ready for the caller to recheck
 * its condition.
 */
static inline void irq_wait_and_disable(void)
{
    __asm__ volatile("sti; hlt; cli" : : : "memory");
}

/*
 * Lets an interrupt that is pending in, then disables them again: "sti"
 * takes effect after the "nop", so a pending interrupt is taken there.
 */
static inline void irq_window(void)
{
    __asm__ volatile("sti; nop; cli" : : : "memory");
}

static inline void cpu_relax(void)
{
    __asm__ volatile("pause" : : : "memory");
}

#endif /* FW_LIB_IO_H */
