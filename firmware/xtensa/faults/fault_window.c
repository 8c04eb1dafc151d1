/* Xtensa fault test (tigris-sim, GPL-2.0-or-later): deep windowed-ABI recursion built with
 * -DNO_VECBASE, so the first window overflow goes to the reset VECBASE in the (unloaded) mask ROM. */
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) static uint32_t depth(uint32_t n)
{
    volatile uint32_t local[4] = { n, n + 1, n + 2, n + 3 };
    return n == 0 ? local[1] : depth(n - 1) + local[3];
}

int main(void)
{
    printf("fault_window: recursing without window handlers\n");
    printf("fault_window: %u\n", (unsigned)depth(40));
    return 0;
}
