/*
 * fault_busy_loop: a loop that never ends but is not a branch to itself: it
 * increments a volatile counter in memory forever.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>

static volatile uint32_t counter;

int main(void)
{
    printf("fault_busy_loop: counting forever\n");
    for (;;)
        counter++;
}
