/* Xtensa fault test (tigris-sim, GPL-2.0-or-later): store to 0x10000000, unmapped on every ESP board. */
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) static void poke(volatile uint32_t *p)
{
    *p = 0x12345678u;
}

int main(void)
{
    printf("fault_bad_address: writing to 0x10000000\n");
    poke((volatile uint32_t *)0x10000000u);
    printf("fault_bad_address: still running\n");
    return 0;
}
