/*
 * pendsv: main pends PendSV by writing ICSR.PENDSVSET (0xE000ED04 bit 28);
 * the handler runs as soon as the write takes effect (DSB; ISB), records
 * the exception number it sees and counts; main prints both.  Done twice.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include "cortexm.h"

static volatile uint32_t pendsv_count;
static volatile uint32_t pendsv_ipsr;
static volatile uint32_t seen_in_main;

void PendSV_Handler(void)
{
    pendsv_ipsr = get_ipsr();          /* 14 = PendSV */
    pendsv_count++;
}

int main(void)
{
    for (int i = 1; i <= 2; i++) {
        SCB_ICSR = ICSR_PENDSVSET;
        dsb();
        isb();
        seen_in_main = pendsv_count;   /* the handler has already run here */
        printf("pendsv: round %d handler_ran=%" PRIu32 " ipsr=%" PRIu32 "\n",
               i, seen_in_main, pendsv_ipsr);
    }
    return 0;
}
