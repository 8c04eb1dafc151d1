/*
 * storm: a timer-interrupt storm that never ends. SysTick fires every 1000 cycles; its handler
 * pends PendSV, which has the same priority and so runs tail-chained right after it (ARMv7-M ARM
 * B1.5.12: no return to main in between). main sleeps forever. Run it to a cycle limit: the
 * profiler's call stack must stay three frames deep (Reset_Handler, main, the handler).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include "cortexm.h"

static volatile uint32_t ticks;
static volatile uint32_t chained;

void SysTick_Handler(void)
{
    ticks++;
    SCB_ICSR = ICSR_PENDSVSET;
}

void PendSV_Handler(void)
{
    chained++;
}

int main(void)
{
    printf("storm: SysTick every 1000 cycles, PendSV tail-chained\n");
    SYST_RVR = 999;
    SYST_CVR = 0;
    SYST_CSR = 7;
    for (;;)
        wfi();
}
