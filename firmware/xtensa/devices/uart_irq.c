/* UART0 transmit interrupts (tigris-sim, GPL-2.0-or-later). The interrupt matrix routes UART0's
 * level source to CPU interrupt 1; with TXFIFO_EMPTY enabled in INT_ENA the UART interrupts while
 * its FIFO is empty, as a driver that refills the FIFO from its buffer uses it. The handler
 * (entered from the kernel exception vector, start_windowed.S -DKERNEL_HANDLER) writes one byte
 * per interrupt and disables the interrupt after the third; the program sleeps in WAITI until
 * then and returns the count (the exit code). Register facts: ESP32-S3 TRM §26 (UART) and §9
 * (interrupt matrix), ESP32 TRM §13 and §7; source numbers: ESP-IDF soc/<chip>/interrupts.h. */
#include <stdint.h>

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

#define REG(a) (*(volatile uint32_t *)(a))
#define STR(x) #x
#define XSTR(x) STR(x)

volatile uint32_t irq_count;
uint32_t irq_saved[3];

/* Level-1 interrupt through the kernel vector: save a2-a4, send 'U', count, and at WANTED switch
 * the interrupt off; restore, return. */
__asm__(
    "    .section .text.uart_level1_interrupt, \"ax\"\n"
    "    .global uart_level1_interrupt\n"
    "    .type   uart_level1_interrupt, @function\n"
    "    .literal_position\n"
    "    .align 4\n"
    "uart_level1_interrupt:\n"
    "    wsr     a2, excsave1\n"
    "    movi    a2, irq_saved\n"
    "    s32i    a3, a2, 0\n"
    "    s32i    a4, a2, 4\n"
    "    movi    a3, " XSTR(FIFO) "\n"
    "    movi    a4, 'U'\n"
    "    s32i    a4, a3, 0\n"
    "    movi    a3, irq_count\n"
    "    l32i    a4, a3, 0\n"
    "    addi    a4, a4, 1\n"
    "    s32i    a4, a3, 0\n"
    "    bnei    a4, " XSTR(WANTED) ", 1f\n"
    "    movi    a3, " XSTR(INT_ENA) "\n"
    "    movi    a4, 0\n"
    "    s32i    a4, a3, 0\n"
    "1:  memw\n"
    "    l32i    a3, a2, 0\n"
    "    l32i    a4, a2, 4\n"
    "    rsr     a2, excsave1\n"
    "    rfe\n"
    "    .size   uart_level1_interrupt, . - uart_level1_interrupt\n");

int main(void)
{
    REG(UART_MAP) = CPU_INTERRUPT;
    REG(INT_ENA) = TXFIFO_EMPTY;
    uint32_t enable = 1u << CPU_INTERRUPT;
    __asm__ volatile("wsr %0, intenable\n rsync" : : "r"(enable));
    while (irq_count < WANTED)
        __asm__ volatile("waiti 0");
    return (int)irq_count;
}
