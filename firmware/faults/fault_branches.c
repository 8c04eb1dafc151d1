/*
 * fault_branches: wrong interworking branches. main calls bx_minus_one; bx_even is started with
 * `--entry bx_even`. bx_even branches to a Thumb function's address with bit 0 clear: an INVSTATE
 * UsageFault at that branch on hardware (ARMv7-M ARM A7.7.20 BX, B1.4.2 EPSR.T). bx_minus_one
 * branches to 0xFFFFFFFF: a fetch fault, to be reported at the branch's target with the branch's
 * function in the backtrace (reliability review D8).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>

__attribute__((noinline)) int32_t seven(void)
{
    return 7;
}

__attribute__((noinline)) int32_t bx_even(void)
{
    register uint32_t target = (uint32_t)(uintptr_t)&seven & ~1u;
    __asm__ volatile("blx %0" : : "r"(target) : "r0", "r1", "r2", "r3", "lr", "memory");
    return 1;
}

__attribute__((noinline)) int32_t bx_minus_one(void)
{
    register uint32_t target = 0xffffffffu;
    __asm__ volatile("blx %0" : : "r"(target) : "r0", "r1", "r2", "r3", "lr", "memory");
    return 1;
}

/* Reached from main, so that --gc-sections keeps it for --entry. */
int32_t (*const volatile entries[])(void) = {bx_even};

int main(void)
{
    return bx_minus_one() + (entries[0] != 0);
}
