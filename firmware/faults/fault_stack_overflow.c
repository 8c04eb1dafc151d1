/*
 * fault_stack_overflow: unbounded recursion with a 1 KiB local array per
 * frame, until the stack pointer runs below the start of RAM (0x20000000 on
 * mps2-an386: about 4096 frames) and the next push faults.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>

#pragma GCC diagnostic ignored "-Winfinite-recursion"

static volatile uint32_t depth;

static __attribute__((noinline)) uint32_t dive(uint32_t n)
{
    volatile uint8_t big[1024];
    big[0] = (uint8_t)n;
    big[sizeof big - 1] = (uint8_t)(n >> 8);
    depth = n;
    /* Not a tail call: the result is used after the call returns. */
    return dive(n + 1u) + big[0] + big[sizeof big - 1];
}

int main(void)
{
    printf("fault_stack_overflow: recursing with 1 KiB frames\n");
    uint32_t r = dive(0);
    printf("fault_stack_overflow: UNEXPECTED: returned %u\n", (unsigned)r);
    return 1;
}
