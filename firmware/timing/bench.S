/*
 * tigris-sim timing benchmarks that run on every Cortex-M profile
 * (Thumb-1 / ARMv6-M encodings only, so the same file assembles for the
 * Cortex-M0+ and for v7-M/v8-M).  See bench_frame.inc for the frame and the
 * register use; the driver is timing.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Predictions quoted from:
 *   M4  = Cortex-M4 TRM (Arm DDI 0439D) instruction table, §3.3.1 (written "section 2a" below)
 *   M0+ = Cortex-M0+ cycle counts (DDI 0484, §3.3), "section 2c" below
 *   M7  = measurements on an STM32H743 (no Arm table exists), "section 2d" below
 * Counts assume zero wait states: code and data in 0-wait memory.
 */
#include "bench_frame.inc"

/* -------------------------------------------------------------- empty
 * No instruction between the two counter reads: the measurement overhead
 * that the driver subtracts from every other benchmark. */
        BENCH_FUNC empty
        BENCH_START
        BENCH_END empty

/* -------------------------------------------------------- ldr_independent
 * 32 x `ldr rX, [r0, #off]`, rX cycling r1..r4, off = 0, 4, ..., 124.  No
 * load uses a previous load's result for its address.
 * M4: LDR is 2 cycles, but a load followed by a load/store that does not
 *     use its destination for the address pipelines, removing one cycle
 *     (§2a "Pipelined loads"): about 32 + 1 = 33 cycles.  §2b: pipelining
 *     only within one memory block (all loads here hit the same buffer).
 * M0+: 2 cycles each, no pipelining: 64.
 * M7: two loads can dual-issue if they hit different DTCM/D-cache banks
 *     (even/odd words, §2d): about 16-32.
 * count = 32 */
        .macro  LDR4 off
        ldr.n   r1, [r0, #(\off + 0)]
        ldr.n   r2, [r0, #(\off + 4)]
        ldr.n   r3, [r0, #(\off + 8)]
        ldr.n   r4, [r0, #(\off + 12)]
        .endm

        BENCH_FUNC ldr_independent
        BENCH_START
        .irp    off, 0, 16, 32, 48, 64, 80, 96, 112
        LDR4    \off
        .endr
        BENCH_END ldr_independent

/* -------------------------------------------------------- ldr_dependent
 * Pointer chase: 32 x `ldr r0, [r0]`; buf[0] holds the address of buf, so
 * r0 stays the same, but every load needs the previous load's result as
 * its address.
 * M4: no pipelining, 2 cycles each (§2a): 64.  §2b notes that load/store
 *     addresses are needed a cycle earlier than ALU operands, so real
 *     silicon may show 3 each (96).
 * M0+: 2 each, "no load to use latency" (§2c): 64.
 * M7: load-to-use latency limits it (§2d: word loads consumable by the
 *     late ALU the next cycle; an address needs the early stage): ~2-3 each.
 * count = 32 */
        BENCH_FUNC ldr_dependent
        BENCH_START
        .rept   32
        ldr.n   r0, [r0]
        .endr
        BENCH_END ldr_dependent

/* -------------------------------------------------------- branch_taken
 * 32 x `b 1f; 1:` - an unconditional branch to the next instruction.
 * M4: B = 1 + P, P = 1..3 pipeline refill (§2a): 64-128.
 * M0+: B = 2 (2-stage pipeline; §2c lists taken B<cc> = 2): 64.
 * M7: predicted branches can be folded; measured mispredict ~8 (§2d).
 * count = 32 */
        BENCH_FUNC branch_taken
        BENCH_START
        .rept   32
        b.n     1f
1:
        .endr
        BENCH_END branch_taken

/* -------------------------------------------------------- bcond_taken
 * `cmp r0, r0` (Z = 1, before the start read), then 32 x `beq 1f; 1:`.
 * M4: taken B<cc> = 1 + P (§2a): 64-128.  M0+: 2 each (§2c): 64.
 * count = 32 */
        BENCH_FUNC bcond_taken
        cmp     r0, r0
        BENCH_START
        .rept   32
        beq.n   1f
1:
        .endr
        BENCH_END bcond_taken

/* -------------------------------------------------------- bcond_not_taken
 * `cmp r0, r0` (Z = 1), then 32 x `bne 1f; 1:`: never taken, falls through.
 * M4: not-taken B<cc> = 1 (§2a): 32.  M0+: 1 (§2c): 32.
 * count = 32 */
        BENCH_FUNC bcond_not_taken
        cmp     r0, r0
        BENCH_START
        .rept   32
        bne.n   1f
1:
        .endr
        BENCH_END bcond_not_taken

/* -------------------------------------------------------- nop
 * 64 x `nop` (16-bit NOP hint 0xBF00).
 * M4: 1 each (§2a): 64 (the architecture allows NOPs to be removed from the
 *     pipeline, but M4 executes them).  M0+: 1 each: 64.  M7: dual-issue,
 *     ~32.
 * count = 64 */
        BENCH_FUNC nop
        BENCH_START
        .rept   64
        nop
        .endr
        BENCH_END nop

/* -------------------------------------------------------- mul
 * r0 = 3, r1..r4 = 1..4 (set before the start read); 32 x `muls rX, r0, rX`
 * with rX cycling r1..r4, so no MULS needs the result of the one before it.
 * M4: MUL = 1 cycle (§2a): 32.  M0+: single-cycle multiplier on RP2040
 * (§2c): 32.  M7: +1 result latency only (§2d), independent: ~16-32.
 * count = 32 */
        BENCH_FUNC mul
        movs    r0, #3
        movs    r1, #1
        movs    r2, #2
        movs    r3, #3
        movs    r4, #4
        BENCH_START
        .rept   8
        muls    r1, r0, r1
        muls    r2, r0, r2
        muls    r3, r0, r3
        muls    r4, r0, r4
        .endr
        BENCH_END mul
