/* Xtensa fault test (tigris-sim, GPL-2.0-or-later): executes ILL (encoding 0x000000, Xtensa ISA Reference Manual, ILL). */
#include <stdio.h>

__attribute__((noinline)) static void run_illegal(void)
{
    __asm__ volatile(".byte 0x00, 0x00, 0x00");
}

int main(void)
{
    printf("fault_illegal: executing ILL\n");
    run_illegal();
    printf("fault_illegal: still running\n");
    return 0;
}
