/*
 * fault_endless_loop: disables interrupts and spins on a branch to itself
 * (`b .`): a program that never finishes and never changes state.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include "cortexm.h"

int main(void)
{
    printf("fault_endless_loop: spinning with interrupts disabled\n");
    disable_irq();
    for (;;) {
    }
}
