/*
 * entry_return: a function to start at with `--entry answer` (no reset handler, no C library set-up):
 * its return ends the run with its value, 42. main is there for the reset path and returns 1.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>

__attribute__((noinline)) int32_t times(volatile int32_t *a, int32_t b)
{
    return *a * b;
}

int32_t answer(void)
{
    volatile int32_t six = 6;
    return times(&six, 7);
}

int main(void)
{
    return 1;
}
