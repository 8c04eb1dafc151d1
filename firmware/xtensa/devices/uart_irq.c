/* UART0 transmit interrupts (tigris-sim, GPL-2.0-or-later). The interrupt matrix routes UART0's
 * level source to CPU interrupt 1; with TXFIFO_EMPTY enabled in INT_ENA the UART interrupts while
 * its FIFO is empty, as a driver that refills the FIFO from its buffer uses it. The handler
 * (entered from the kernel exception vector, start_windowed.S -DKERNEL_HANDLER) writes one byte
 * per interrupt and disables the interrupt after the third; the program sleeps in WAITI until
 * then and returns the count (the exit code). Register facts: ESP32-S3 TRM §26 (UART) and §9
 * (interrupt matrix), ESP32 TRM §13 and §7; source numbers: ESP-IDF soc/<chip>/interrupts.h. */
#include "level1.h"

#if defined(BOARD_ESP32)
#define UART0 0x3FF40000
#define UART_MAP (0x3FF00104 + 4 * 34) /* DPORT PRO map of UART0 (source 34) */
#else
#define UART0 0x60000000
#define UART_MAP (0x600C2000 + 4 * 27) /* core 0 map of UART0 (source 27) */
#endif
#define FIFO (UART0 + 0x00)
#define INT_ENA (UART0 + 0x0C)
#define TXFIFO_EMPTY 2
#define CPU_INTERRUPT 1
#define WANTED 3

/* Send 'U'; at the WANTED-th interrupt (the count is in a4) switch the interrupt off. */
LEVEL1_HANDLER(uart_level1_interrupt,
               "    movi    a3, " XSTR(FIFO) "\n"
               "    movi    a4, 'U'\n"
               "    s32i    a4, a3, 0\n"
               "    movi    a3, irq_count\n"
               "    l32i    a4, a3, 0\n"
               "    bnei    a4, " XSTR(WANTED) ", 1f\n"
               "    movi    a3, " XSTR(INT_ENA) "\n"
               "    movi    a4, 0\n"
               "    s32i    a4, a3, 0\n"
               "1:\n");

int main(void)
{
    REG(UART_MAP) = CPU_INTERRUPT;
    REG(INT_ENA) = TXFIFO_EMPTY;
    return (int)sleep_until_interrupts(CPU_INTERRUPT, WANTED);
}
