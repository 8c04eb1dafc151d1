/*
 * console_itm: writes a text byte by byte to ITM stimulus port 0, then exits
 * through semihosting.  No printf and no semihosting output.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ITM registers (ARMv7-M ARM, appendix "ITM"; Cortex-M4 TRM):
 *   ITM_STIM0 0xE0000000  a 32-bit read returns bit 0 = 1 when the port can
 *                         accept data; a byte write sends one byte
 *   ITM_TER   0xE0000E00  bit 0 enables stimulus port 0
 *   ITM_TCR   0xE0000E80  bit 0 ITMENA
 *   ITM_LAR   0xE0000FB0  write 0xC5ACCE55 to unlock the other registers
 *   DEMCR     0xE000EDFC  bit 24 TRCENA must be set for the ITM to work
 * A debugger normally enables the ITM; this firmware does it itself so it
 * is self-contained.
 */
#include <stdint.h>
#include "semihost.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define ITM_STIM0   REG(0xE0000000u)
#define ITM_STIM0_8 (*(volatile uint8_t *)(uintptr_t)0xE0000000u)
#define ITM_TER     REG(0xE0000E00u)
#define ITM_TCR     REG(0xE0000E80u)
#define ITM_LAR     REG(0xE0000FB0u)
#define DEMCR       REG(0xE000EDFCu)

static void itm_putc(char c)
{
    while ((ITM_STIM0 & 1u) == 0u)
        ;
    ITM_STIM0_8 = (uint8_t)c;
}

static void itm_puts(const char *s)
{
    while (*s)
        itm_putc(*s++);
}

int main(void)
{
    DEMCR |= 1u << 24;            /* TRCENA */
    ITM_LAR = 0xC5ACCE55u;
    ITM_TCR |= 1u;                /* ITMENA */
    ITM_TER |= 1u;                /* stimulus port 0 */
    itm_puts("console_itm: hello from ITM port 0\n");
    for (char c = 'a'; c <= 'z'; c++)
        itm_putc(c);
    itm_puts("\nconsole_itm: done\n");
    semihost_exit(0);
}
