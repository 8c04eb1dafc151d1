/*
 * fault_bad_address: loads from 0x70000000, which is unmapped on every board
 * here (a BusFault, escalated to HardFault; the default handler spins).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    printf("fault_bad_address: reading 0x70000000\n");
    uint32_t v = *(volatile uint32_t *)(uintptr_t)0x70000000u;
    printf("fault_bad_address: UNEXPECTED: read 0x%08" PRIX32 "\n", v);
    return 1;
}
