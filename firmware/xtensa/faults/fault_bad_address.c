/* Xtensa fault test (tigris-sim, GPL-2.0-or-later): store to 0x10000000, unmapped on every ESP board. */
#include <stdint.h>
#include <stdio.h>

/* The store is an inlined helper, so the diagnostic shows it and the function it sits in (DWARF). */
static inline __attribute__((always_inline)) void store_word(volatile uint32_t *p, uint32_t v)
{
    *p = v; /* the faulting store */
}

__attribute__((noinline)) static void poke(volatile uint32_t *p)
{
    store_word(p, 0x12345678u); /* the inlined call */
}

int main(void)
{
    printf("fault_bad_address: writing to 0x10000000\n");
    poke((volatile uint32_t *)0x10000000u);
    printf("fault_bad_address: still running\n");
    return 0;
}
