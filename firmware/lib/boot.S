/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boot: the multiboot-1 entry in 32-bit protected mode, the switch to long
 * mode, and the call into 64-bit C (fw_start in start.c).
 *
 * The whole image is a 64-bit ELF; the build rewraps it as elf32-i386
 * because QEMU's multiboot loader refuses x86-64 ELFs. With header flags 0
 * QEMU loads the ELF program headers itself, so the header needs no load
 * addresses. It only has to sit in the first 8 KiB of the file, which the
 * linker script guarantees by putting .multiboot first.
 *
 * Memory: an identity map of the first 4 GiB with 2 MiB pages. PCI BARs
 * (our MMIO registers, the VRAM aperture, the MSI-X table) as well as the
 * LAPIC and IOAPIC live just below 4 GiB, so the map must reach that far.
 */

#define MB_MAGIC        0x1badb002
#define MB_FLAGS        0

#define CR0_PG          (1 << 31)
#define CR4_PAE         (1 << 5)
#define MSR_EFER        0xc0000080
#define EFER_LME        (1 << 8)

#define PTE_P           (1 << 0)
#define PTE_RW          (1 << 1)
#define PTE_PWT         (1 << 3)
#define PTE_PCD         (1 << 4)
#define PTE_PS          (1 << 7)    /* 2 MiB page in a page directory */

/* Selectors in boot_gdt below */
#define KERNEL_CS       0x08
#define KERNEL_DS       0x10

#define BOOT_STACK_SIZE 0x4000

    .section .multiboot, "a"
    .balign 4
multiboot_header:
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)

    .section .text.boot, "ax"
    .code32
    .globl start
start:
    cli
    cld
    /* Multiboot: eax = magic, ebx = info pointer. Keep them in the
     * registers that become the first two C arguments (edi, esi). */
    mov %eax, %edi
    mov %ebx, %esi

    /* Zero .bss (the page tables, the stack and C statics live there).
     * QEMU's ELF loader zero-fills too, but a bootloader need not. */
    mov $__bss_start, %edx
1:  cmp $__bss_end, %edx
    jae 2f
    movb $0, (%edx)
    inc %edx
    jmp 1b
2:
    mov $boot_stack_top, %esp

    /* PML4[0] -> PDPT; PDPT[0..3] -> four page directories. */
    mov $boot_pdpt, %eax
    or $(PTE_P | PTE_RW), %eax
    mov %eax, boot_pml4

    xor %ecx, %ecx
3:  mov %ecx, %eax
    shl $12, %eax
    add $boot_pd, %eax
    or $(PTE_P | PTE_RW), %eax
    mov %eax, boot_pdpt(, %ecx, 8)
    inc %ecx
    cmp $4, %ecx
    jb 3b

    /* 2048 entries of 2 MiB: entry i maps physical i << 21. The top GiB
     * is the PCI/APIC hole, mapped uncached like real firmware would
     * (TCG ignores cache attributes, hardware does not). High dwords are
     * already zero from the .bss clear. */
    xor %ecx, %ecx
4:  mov %ecx, %eax
    shl $21, %eax
    or $(PTE_P | PTE_RW | PTE_PS), %eax
    cmp $1536, %ecx
    jb 5f
    or $(PTE_PCD | PTE_PWT), %eax
5:  mov %eax, boot_pd(, %ecx, 8)
    inc %ecx
    cmp $2048, %ecx
    jb 4b

    /* Long mode: PAE, CR3, EFER.LME, then paging on. */
    mov %cr4, %eax
    or $CR4_PAE, %eax
    mov %eax, %cr4

    mov $boot_pml4, %eax
    mov %eax, %cr3

    mov $MSR_EFER, %ecx
    rdmsr
    or $EFER_LME, %eax
    wrmsr

    mov %cr0, %eax
    or $CR0_PG, %eax
    mov %eax, %cr0

    lgdt boot_gdt_desc
    ljmp $KERNEL_CS, $start64

    .code64
start64:
    mov $KERNEL_DS, %eax
    mov %eax, %ds
    mov %eax, %es
    mov %eax, %ss
    mov %eax, %fs
    mov %eax, %gs
    mov $boot_stack_top, %rsp
    /* The upper halves of registers are undefined after the mode switch:
     * zero-extend the two arguments explicitly. */
    mov %edi, %edi
    mov %esi, %esi
    call fw_start
    /* fw_start does not return; if it ever does, stop here. */
6:  cli
    hlt
    jmp 6b

    .section .rodata
    .balign 8
boot_gdt:
    .quad 0                         /* null */
    .quad 0x00af9a000000ffff        /* 0x08: 64-bit code, DPL 0 */
    .quad 0x00cf92000000ffff        /* 0x10: data, DPL 0 */
boot_gdt_end:

    .balign 8
boot_gdt_desc:
    .word boot_gdt_end - boot_gdt - 1
    .quad boot_gdt                  /* lgdt in 32-bit mode reads 4 bytes */

    .section .bss
    .balign 4096
boot_pml4:
    .skip 4096
boot_pdpt:
    .skip 4096
boot_pd:
    .skip 4 * 4096
boot_stack:
    .skip BOOT_STACK_SIZE
boot_stack_top:

    .section .note.GNU-stack, "", @progbits
