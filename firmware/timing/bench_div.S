/*
 * tigris-sim timing benchmarks for the hardware divider (ARMv7-M and
 * ARMv8-M mainline only: the Cortex-M0+ has no UDIV).  See bench_frame.inc for
 * the frame; the driver is timing.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * 32 x `udiv r3, r1, r2` (32-bit encoding, word aligned).  The divisions
 * are independent: none reads r3.
 * M4: SDIV/UDIV take 2 to 12 cycles, "early termination, operand
 * dependent" (Cortex-M4 TRM, Arm DDI 0439D, §3.3.1).  The divider retires
 * several quotient bits per cycle and stops early when the quotient is
 * short, so:
 *   udiv_small: 100 / 7 = 14 (4-bit quotient) -> near the minimum, ~2-3 each
 *   udiv_large: 0xFFFFFFFF / 3 = 0x55555555 (31-bit quotient) -> near the
 *               maximum, ~12 each
 * count = 32 each
 */
#include "bench_frame.inc"

#if !defined(__ARM_ARCH_ISA_THUMB) || __ARM_ARCH_ISA_THUMB < 2
#error "bench_div.S needs a core with UDIV (ARMv7-M or ARMv8-M mainline)"
#endif

        BENCH_FUNC udiv_small
        movs    r1, #100
        movs    r2, #7
        BENCH_START
        .rept   32
        udiv    r3, r1, r2
        .endr
        BENCH_END udiv_small

        BENCH_FUNC udiv_large
        movs    r1, #0
        mvns    r1, r1                  /* r1 = 0xFFFFFFFF */
        movs    r2, #3
        BENCH_START
        .rept   32
        udiv    r3, r1, r2
        .endr
        BENCH_END udiv_large
