/*
 * idle: prints that its work is done, then sleeps in WFI with no interrupt
 * enabled, as firmware that never exits ends up: nothing can ever wake the
 * core, so the run ends as "idle" (exit code 122), not as a fault.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include "cortexm.h"

int main(void)
{
    printf("idle: work done, sleeping\n");
    for (;;)
        wfi();
}
