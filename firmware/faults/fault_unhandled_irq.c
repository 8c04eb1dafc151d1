/*
 * fault_unhandled_irq: enables external IRQ 5 (NVIC ISER0 0xE000E100) and
 * pends it (NVIC ISPR0 0xE000E200) while its vector-table entry is 0: this
 * program is linked with a startup built with -DZERO_IRQ5_VECTOR.  Taking
 * the interrupt loads PC = 0 with the Thumb bit clear: an INVSTATE
 * UsageFault, escalated to HardFault.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include "cortexm.h"

int main(void)
{
    printf("fault_unhandled_irq: pending IRQ 5 with an empty vector\n");
    enable_irq();
    NVIC_ISER0 = 1u << 5;
    NVIC_ISPR0 = 1u << 5;
    dsb();
    isb();
    printf("fault_unhandled_irq: UNEXPECTED: IRQ 5 did not fault\n");
    return 1;
}
