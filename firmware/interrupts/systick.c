/*
 * systick: SysTick interrupt every 10000 cycles (LOAD = 9999, CSR = 7:
 * processor clock, interrupt, enable); main sleeps with WFI until the
 * handler has counted 10 ticks, stops the timer and prints the tick count,
 * the exception number seen in the handler and (ARMv7-M) DWT_CYCCNT, which
 * should be a little over 100000.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include "cortexm.h"

static volatile uint32_t ticks;
static volatile uint32_t handler_ipsr;

void SysTick_Handler(void)
{
    handler_ipsr = get_ipsr();         /* 15 = SysTick */
    ticks++;
}

int main(void)
{
#if !defined(CORE_CORTEX_M0PLUS)
    cyccnt_start();
#endif
    SYST_RVR = 9999u;
    SYST_CVR = 0;
    SYST_CSR = 7u;                     /* CLKSOURCE | TICKINT | ENABLE */
    while (ticks < 10u)
        wfi();
    SYST_CSR = 0;
#if !defined(CORE_CORTEX_M0PLUS)
    uint32_t cyc = DWT_CYCCNT;
#endif
    printf("systick: ticks=%" PRIu32 " ipsr=%" PRIu32 "\n", ticks, handler_ipsr);
#if !defined(CORE_CORTEX_M0PLUS)
    printf("systick: cyccnt=%" PRIu32 "\n", cyc);
#endif
    return 0;
}
