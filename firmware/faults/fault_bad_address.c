/*
 * fault_bad_address: loads from 0x70000000, which is unmapped on every board
 * here (a BusFault, escalated to HardFault; the default handler spins). The
 * load is an inlined helper, so the diagnostic shows it and main (DWARF).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static inline __attribute__((always_inline)) uint32_t load_word(uintptr_t address)
{
    return *(volatile uint32_t *)address; /* the faulting load */
}

int main(void)
{
    printf("fault_bad_address: reading 0x70000000\n");
    uint32_t v = load_word(0x70000000u); /* the inlined call */
    printf("fault_bad_address: UNEXPECTED: read 0x%08" PRIX32 "\n", v);
    return 1;
}
