/*
 * tigris-sim calibration: the board hooks Embench-IoT's support/main.c calls
 * (initialise_board, start_trigger, stop_trigger), written for tigris-sim.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Embench's reference measurement (its STM32F4-Discovery port) reads the
 * DWT cycle counter (ARMv7-M ARM C1.8.8, DWT_CYCCNT at 0xE0001004) when gdb
 * stops at start_trigger and at stop_trigger. These hooks read the same
 * counter at the same two points and print the difference, so the figure
 * counts the same instructions as the published one.
 */
#include <stdint.h>
#include <stdio.h>

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

static uint32_t start_cycles;

void initialise_board(void)
{
    DEMCR |= 1u << 24;   /* TRCENA: enable the DWT */
    DWT_CTRL |= 1u;      /* CYCCNTENA */
}

void __attribute__((noinline, used)) start_trigger(void)
{
    start_cycles = DWT_CYCCNT;
}

void __attribute__((noinline, used)) stop_trigger(void)
{
    uint32_t cycles = DWT_CYCCNT - start_cycles;
    printf("embench cycles %lu\n", (unsigned long)cycles);
}
