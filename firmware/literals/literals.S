/*
 * tigris-sim literal-load microbenchmark kernels (Xtensa, call0 ABI): the same loop linked once into
 * internal RAM and once into the flash instruction window, to show that L32R literals of
 * flash-resident code are served by the cache after the first line fill (firmware/literals/litbench.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * uint32_t lit_loop_<where>(uint32_t n): n iterations, each loading the 8 literals of one 32-byte
 * line (aligned, just before the code, as a compiler's literal pool) with L32R and adding them up.
 * The code starts on the next line, so only the loads touch the literal line.
 */
    .macro LIT_LOOP name, section
    .section \section, "ax"
    .align 32
\name\()_pool:
    .word 0x00000101, 0x00000202, 0x00000303, 0x00000404
    .word 0x00000505, 0x00000606, 0x00000707, 0x00000808
    .align 4
    .global \name
    .type \name, @function
\name:
    movi a3, 0
1:  l32r a4, \name\()_pool
    add a3, a3, a4
    l32r a4, \name\()_pool + 4
    add a3, a3, a4
    l32r a4, \name\()_pool + 8
    add a3, a3, a4
    l32r a4, \name\()_pool + 12
    add a3, a3, a4
    l32r a4, \name\()_pool + 16
    add a3, a3, a4
    l32r a4, \name\()_pool + 20
    add a3, a3, a4
    l32r a4, \name\()_pool + 24
    add a3, a3, a4
    l32r a4, \name\()_pool + 28
    add a3, a3, a4
    addi a2, a2, -1
    bnez a2, 1b
    mov a2, a3
    ret
    .size \name, . - \name
    .endm

    LIT_LOOP lit_loop_iram, .text.lit_loop_iram
    LIT_LOOP lit_loop_flash, .flash.text
