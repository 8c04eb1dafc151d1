/*
 * tigris-sim timing benchmarks of pipeline and flash-interface mechanisms
 * (ARMv7-M: the M3/M4 and M7 boards).  See bench_frame.inc for the frame;
 * the driver is timing.c.  The expected cycles, per mechanism and source,
 * are in sim/tests/firmware.rs and docs/cycle-model.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * r5 holds the address of `pipe_table` (512 bytes of .rodata: flash on the
 * STM32 boards) for the benchmarks that read it; it is loaded before the
 * start read.
 */
#include "bench_frame.inc"

        .section .rodata.pipe_table, "a", %progbits
        .p2align 4
pipe_table:
        .rept   128
        .word   0x5a5a5a5a
        .endr

/* -------------------------------------------------------- alu_pairs
 * 64 x `add.w`, alternating r1 and r2: neighbours independent.
 * M7: two per cycle (32).  M4: one per cycle (64).  count = 64 */
        BENCH_FUNC alu_pairs
        BENCH_START
        .rept   32
        add.w   r1, r1, #1
        add.w   r2, r2, #1
        .endr
        BENCH_END alu_pairs

/* -------------------------------------------------------- ldr_use
 * 32 x (`ldr.w r1, [r0]`; `add.w r2, r2, r1`): a word load used at once.
 * M7: the ALU takes a word load the next cycle and the next load pairs with
 * the add: 33.  M4: 2 + 1 each: 96.  count = 64 */
        BENCH_FUNC ldr_use
        BENCH_START
        .rept   32
        ldr.w   r1, [r0]
        add.w   r2, r2, r1
        .endr
        BENCH_END ldr_use

/* -------------------------------------------------------- ldrb_use
 * The same with `ldrb.w`: on the M7 a byte load has one more cycle of
 * result latency: 65.  M4: 96.  count = 64 */
        BENCH_FUNC ldrb_use
        BENCH_START
        .rept   32
        ldrb.w  r1, [r0]
        add.w   r2, r2, r1
        .endr
        BENCH_END ldrb_use

/* -------------------------------------------------------- mac_chain
 * 32 x `smlabb r1, r2, r3, r1`: each MAC accumulates the previous result.
 * M7: the accumulator is read a stage late, so they chain every cycle: 32.
 * M4: 1 each: 32.  count = 32 */
        BENCH_FUNC mac_chain
        BENCH_START
        .rept   32
        smlabb  r1, r2, r3, r1
        .endr
        BENCH_END mac_chain

/* -------------------------------------------------------- mac_after_load
 * 16 x (`ldr.w r2, [r0]`; `smlabb r1, r2, r3, r1`): a MAC multiplies a
 * word just loaded.  M7: a multiplicand is read a cycle early, 2 cycles
 * after the load, and the next load pairs with the MAC: 31.
 * M4: 2 + 1 each: 48.  count = 32 */
        BENCH_FUNC mac_after_load
        BENCH_START
        .rept   16
        ldr.w   r2, [r0]
        smlabb  r1, r2, r3, r1
        .endr
        BENCH_END mac_after_load

/* -------------------------------------------------------- branch_pairs
 * 32 x (`add.w r1, r1, #1`; `b.n 1f`; 1:): a predicted branch after an
 * independent instruction.  M7: the branch issues with the add: 32.
 * M4: 1 + 2 each, and every other branch lands on an add.w at an odd
 * halfword (6 bytes a unit), one more refill cycle: 112.  count = 64 */
        BENCH_FUNC branch_pairs
        BENCH_START
        .rept   32
        add.w   r1, r1, #1
        b.n     1f
1:
        .endr
        BENCH_END branch_pairs

/* -------------------------------------------------------- branch_unaligned
 * 32 x (`b.n 1f`; 1: `add.w r1, r1, #1`), 6 bytes each from a word
 * boundary: every other branch lands on a 32-bit instruction at an odd
 * halfword.  M4: 32 x (2 + 1) + 16 extra refill cycles = 112.
 * count = 64 */
        BENCH_FUNC branch_unaligned
        BENCH_START
        .rept   32
        b.n     1f
1:
        add.w   r1, r1, #1
        .endr
        BENCH_END branch_unaligned

/* -------------------------------------------------------- wide_unaligned
 * 8 x (`nop`; 3 x `add.w` on odd halfwords; `nop`), 16 bytes each from a
 * word boundary.  M4: a run of three unaligned 32-bit instructions costs
 * one more cycle: 8 x 6 = 48.  count = 40 */
        BENCH_FUNC wide_unaligned
        BENCH_START
        .rept   8
        nop
        add.w   r1, r1, #1
        add.w   r2, r2, #1
        add.w   r3, r3, #1
        nop
        .endr
        BENCH_END wide_unaligned

/* -------------------------------------------------------- ldr_two_blocks
 * 16 x (`ldr r1, [r0]`; `ldr r2, [r5]`): loads alternating between SRAM
 * (buf) and the table.  M4: neighbouring loads pipeline only inside one
 * memory block, so on the STM32F446 (table in flash) each is 2: 64; where
 * both are in one memory (mps2) they pipeline: 33.  count = 32 */
        BENCH_FUNC ldr_two_blocks
        ldr     r5, =pipe_table
        BENCH_START
        .rept   16
        ldr     r1, [r0]
        ldr     r2, [r5]
        .endr
        BENCH_END ldr_two_blocks

/* -------------------------------------------------------- flash_dcache_hit
 * 32 x `ldr.w r1, [r5, #16*(k mod 4)]`: four 16-byte lines of the table.
 * On the STM32F446 they and the literal pool's line fit the ART data cache
 * (8 x 128 bits): the warm run hits every time, pipelined loads: 33.
 * count = 32 */
        BENCH_FUNC flash_dcache_hit
        ldr     r5, =pipe_table
        BENCH_START
        .irp    k, 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3
        ldr.w   r1, [r5, #(16 * \k)]
        .endr
        BENCH_END flash_dcache_hit

/* -------------------------------------------------------- flash_dcache_miss
 * 32 x `ldr.w r1, [r5, #16*k]`, k = 0..31: 32 lines, four times the ART
 * data cache, so with LRU the warm run misses every time.  STM32F446 at
 * 5 wait states: 33 + 32 x 5 = 193.  count = 32 */
        BENCH_FUNC flash_dcache_miss
        ldr     r5, =pipe_table
        BENCH_START
        .irp    k, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
        ldr.w   r1, [r5, #(16 * \k)]
        .endr
        BENCH_END flash_dcache_miss
