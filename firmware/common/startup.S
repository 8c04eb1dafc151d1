/*
 * tigris-sim test firmware: vector table and reset handler for every
 * Cortex-M board in firmware/boards/.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Written as Thumb-1 (ARMv6-M) code only, so the same file assembles for the
 * Cortex-M0+ (RP2040) and for the ARMv7-M / ARMv8-M mainline cores.
 *
 * Vector table layout (ARMv7-M ARM, B1.5.3 "The vector table"; ARMv6-M ARM
 * B1.5.2): word 0 = initial SP, word 1 = reset vector, then the system
 * exceptions 2..15, then external interrupts 0..N-1.  We provide 32 external
 * interrupt entries (16 + 32 = 48 words = 192 bytes).  Every handler is a weak
 * symbol of its own that spins on `b .`, so a simulator that stops on a
 * branch-to-self can name the exception from the symbol.
 *
 * Build flags:
 *   -DZERO_IRQ5_VECTOR  leave the vector-table entry of external IRQ 5 as 0
 *                       (used only by faults/fault_unhandled_irq).
 */
        .syntax unified
        .thumb

/* ---------------------------------------------------------------- vectors */
        .section .isr_vector, "a", %progbits
        .p2align 2
        .global __isr_vector
        .type   __isr_vector, %object
__isr_vector:
        .word   __StackTop              /*  0: initial main stack pointer   */
        .word   Reset_Handler           /*  1: reset                        */
        .word   NMI_Handler             /*  2: NMI                          */
        .word   HardFault_Handler       /*  3: HardFault                    */
        .word   MemManage_Handler       /*  4: MemManage (v7-M/v8-M)        */
        .word   BusFault_Handler        /*  5: BusFault  (v7-M/v8-M)        */
        .word   UsageFault_Handler      /*  6: UsageFault (v7-M/v8-M)       */
        .word   0                       /*  7: reserved (SecureFault v8-M)  */
        .word   0                       /*  8: reserved                     */
        .word   0                       /*  9: reserved                     */
        .word   0                       /* 10: reserved                     */
        .word   SVC_Handler             /* 11: SVCall                       */
        .word   DebugMon_Handler        /* 12: DebugMonitor                 */
        .word   0                       /* 13: reserved                     */
        .word   PendSV_Handler          /* 14: PendSV                       */
        .word   SysTick_Handler         /* 15: SysTick                      */
        /* external interrupts 0..31 */
        .word   IRQ0_Handler,  IRQ1_Handler,  IRQ2_Handler,  IRQ3_Handler
#ifdef ZERO_IRQ5_VECTOR
        .word   IRQ4_Handler,  0 /* IRQ5 deliberately empty */, IRQ6_Handler,  IRQ7_Handler
#else
        .word   IRQ4_Handler,  IRQ5_Handler,  IRQ6_Handler,  IRQ7_Handler
#endif
        .word   IRQ8_Handler,  IRQ9_Handler,  IRQ10_Handler, IRQ11_Handler
        .word   IRQ12_Handler, IRQ13_Handler, IRQ14_Handler, IRQ15_Handler
        .word   IRQ16_Handler, IRQ17_Handler, IRQ18_Handler, IRQ19_Handler
        .word   IRQ20_Handler, IRQ21_Handler, IRQ22_Handler, IRQ23_Handler
        .word   IRQ24_Handler, IRQ25_Handler, IRQ26_Handler, IRQ27_Handler
        .word   IRQ28_Handler, IRQ29_Handler, IRQ30_Handler, IRQ31_Handler
        .size   __isr_vector, . - __isr_vector

/* ---------------------------------------------------------------- reset */
        .section .text.Reset_Handler, "ax", %progbits
        .p2align 2
        .global Reset_Handler
        .type   Reset_Handler, %function
        .thumb_func
Reset_Handler:
        /* The core loads SP from vector word 0; set it again so that a
         * loader that jumps to the entry point directly also works. */
        ldr     r0, =__StackTop
        mov     sp, r0

        /* Copy initialised data (.data, including .ramfunc code) from its
         * load address in the code region to its run address in RAM.
         * The linker script keeps start, end and load address 4-aligned. */
        ldr     r0, =__data_load
        ldr     r1, =__data_start
        ldr     r2, =__data_end
1:      cmp     r1, r2
        bhs     2f
        ldr     r3, [r0]
        str     r3, [r1]
        adds    r0, r0, #4
        adds    r1, r1, #4
        b       1b
2:
        /* Zero .bss (4-aligned start and end). */
        ldr     r1, =__bss_start
        ldr     r2, =__bss_end
        movs    r3, #0
3:      cmp     r1, r2
        bhs     4f
        str     r3, [r1]
        adds    r1, r1, #4
        b       3b
4:
#if defined(__ARM_FP)
        /* Enable CP10 and CP11 (the FPU) with full access: CPACR is at
         * 0xE000ED88, bits [23:20] (ARMv7-M ARM B3.2.20).  DSB/ISB make the
         * new setting visible before the first floating-point instruction. */
        ldr     r0, =0xE000ED88
        ldr     r1, [r0]
        ldr     r2, =(0xF << 20)
        orrs    r1, r1, r2
        str     r1, [r0]
        dsb
        isb
#endif
        bl      __libc_init_array       /* C constructors, if any */
        bl      main
        bl      exit                    /* flushes stdio, then _exit()     */
5:      b       5b
        .pool
        .size   Reset_Handler, . - Reset_Handler

/* ---------------------------------------------------------- default handlers
 * Each one is weak and spins on itself (`b .`). */
        .macro  def_handler name
        .section .text.\name, "ax", %progbits
        .p2align 1
        .weak   \name
        .type   \name, %function
        .thumb_func
\name:
        b       .
        .size   \name, . - \name
        .endm

        def_handler NMI_Handler
        def_handler HardFault_Handler
        def_handler MemManage_Handler
        def_handler BusFault_Handler
        def_handler UsageFault_Handler
        def_handler SVC_Handler
        def_handler DebugMon_Handler
        def_handler PendSV_Handler
        def_handler SysTick_Handler
        .irp    n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        def_handler IRQ\n\()_Handler
        .endr
