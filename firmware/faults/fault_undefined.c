/*
 * fault_undefined: executes the permanently undefined instruction UDF #0
 * (Thumb encoding 0xDE00): a UsageFault (UNDEFINSTR), escalated to HardFault.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

int main(void)
{
    printf("fault_undefined: executing udf #0\n");
    __asm__ volatile(".inst.n 0xde00" ::: "memory");
    printf("fault_undefined: UNEXPECTED: continued\n");
    return 1;
}
