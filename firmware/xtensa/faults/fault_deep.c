/* Xtensa fault test (tigris-sim, GPL-2.0-or-later): 12 calls deep, more frames than the 64-entry
 * register file holds windows for (the oldest are spilled to their base save areas by the window
 * overflow handlers), then ILL (encoding 0x000000, Xtensa ISA Reference Manual, ILL). The result
 * is combined with XOR after each call, so GCC cannot turn the recursion into a loop. */
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) static uint32_t descend(uint32_t n)
{
    volatile uint32_t local = n;
    if (n == 0) {
        __asm__ volatile(".byte 0x00, 0x00, 0x00");
    }
    uint32_t below = n == 0 ? 0 : descend(n - 1);
    return below ^ local;
}

int main(void)
{
    printf("fault_deep: descending\n");
    printf("fault_deep: still running: %u\n", (unsigned)descend(12));
    return 0;
}
