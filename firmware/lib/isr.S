/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interrupt entry stubs. The CPU pushes an error code for some exceptions
 * only; the stubs for all other vectors push a zero so every frame has the
 * same layout (struct irq_frame in idt.h). Then the vector number, then
 * the general registers, and idt_dispatch(frame) in C.
 *
 * Stack alignment: in 64-bit mode the CPU aligns RSP to 16 before pushing
 * its 5-quadword frame; with error code, vector and 15 registers that is
 * 22 quadwords, so RSP is 16-aligned at the call, as the ABI requires.
 */


    .code64
    .section .text

.macro isr_stub vec
    .balign 16
isr_stub_\vec:
    .if !((\vec == 8) || ((\vec >= 10) && (\vec <= 14)) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30))
    pushq $0
    .endif
    pushq $\vec
    jmp isr_common
.endm

.altmacro
.macro isr_stub_n n
    isr_stub %n
.endm
.macro isr_addr_n n
    .quad isr_stub_\n
.endm

    .set i, 0
    .rept 256
    isr_stub_n %i
    .set i, i + 1
    .endr

isr_common:
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    mov %rsp, %rdi
    cld                         /* the C ABI expects DF clear */
    call idt_dispatch
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
    add $16, %rsp               /* vector and error code */
    iretq

    /* Stub addresses, read by idt_init() to fill the gates. */
    .section .rodata
    .balign 8
    .globl isr_stub_table
isr_stub_table:
    .set i, 0
    .rept 256
    isr_addr_n %i
    .set i, i + 1
    .endr

    .section .note.GNU-stack, "", @progbits
