/*
 * tigris-sim timing benchmark: instruction fetch from flash vs SRAM
 * (stm32f446re).  See bench_frame.inc for the frame; the driver is timing.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The same straight-line sequence of 512 x `adds r1, #1` (16-bit, 1 KiB of
 * code) is assembled twice:
 *   bench_flash_fetch_flash   in .text (flash at 0x08000000, fetched over
 *                             the I-code bus)
 *   bench_flash_fetch_sram    in .ramfunc, which the linker script places
 *                             in .data: the reset handler copies it to SRAM
 *                             (0x2000xxxx) and it is fetched over the
 *                             System bus; call it through a pointer (the
 *                             symbol already has bit 0 set as a Thumb
 *                             function)
 *   bench_empty_sram          the empty frame, also in SRAM, for the
 *                             overhead of the SRAM copy
 * Each ADDS is 1 cycle with zero wait states (§2a): 512.  From flash, the
 * STM32F4 reads 128 bits (8 ADDS) per access; with N wait states and no
 * prefetch/ART each line costs ~N+1 cycles more than it delivers, the
 * prefetch buffer and ART I-cache (64 lines x 128 bits, §2f) hide that.
 * At reset the F446 runs from the 16 MHz HSI with 0 wait states and the
 * ART/prefetch disabled (FLASH_ACR = 0); this firmware does not change it.
 * The driver runs each of these once (cold).
 * count = 512
 */
#include "bench_frame.inc"

        .macro  ADDS512
        .rept   512
        adds    r1, #1
        .endr
        .endm

        BENCH_FUNC flash_fetch_flash
        movs    r1, #0
        BENCH_START
        ADDS512
        BENCH_END flash_fetch_flash

        BENCH_FUNC flash_fetch_sram, .ramfunc
        movs    r1, #0
        BENCH_START
        ADDS512
        BENCH_END flash_fetch_sram

        BENCH_FUNC empty_sram, .ramfunc
        BENCH_START
        BENCH_END empty_sram
