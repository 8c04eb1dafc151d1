/* idle (tigris-sim, GPL-2.0-or-later): prints that its work is done, then waits in WAITI 0 (Xtensa
 * ISA Reference Manual, WAITI) with no interrupt enabled, as firmware that never exits ends up:
 * nothing can ever wake the core, so the run ends as "idle" (exit code 122), not as a fault. */
#include <stdio.h>

int main(void)
{
    printf("idle: work done, sleeping\n");
    for (;;)
        __asm__ volatile("waiti 0" ::: "memory");
}
