/*
 * console_uart: writes a text byte by byte to the board's UART transmit
 * register, polling the "ready" flag, then exits through semihosting.
 * No printf and no semihosting output: the text appears only on the UART.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * mps2-an386: CMSDK APB UART0 at 0x40004000 (AN386 memory map; QEMU
 *   hw/arm/mps2.c).  Registers (Arm Cortex-M System Design Kit TRM,
 *   DDI 0479, "APB UART"): DATA +0x0, STATE +0x4 (bit 0 TX buffer full),
 *   CTRL +0x8 (bit 0 TX enable), BAUDDIV +0x10 (minimum 16).
 * stm32f446re: USART2 at 0x40004400 (RM0390 memory map; on the Nucleo its
 *   TX pin goes to the ST-LINK virtual COM port).  SR +0x0 (bit 7 TXE,
 *   bit 6 TC), DR +0x4, BRR +0x8, CR1 +0x0C (bit 13 UE, bit 3 TE)
 *   (RM0390 "USART registers").  Clock and GPIO set-up are not done: the
 *   simulator's console device only needs the register protocol.
 */
#include <stdint.h>
#include "semihost.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#if defined(BOARD_MPS2_AN386)
#define UART_BASE     0x40004000u
#define UART_DATA     REG(UART_BASE + 0x0u)
#define UART_STATE    REG(UART_BASE + 0x4u)
#define UART_CTRL     REG(UART_BASE + 0x8u)
#define UART_BAUDDIV  REG(UART_BASE + 0x10u)

static void uart_init(void)
{
    UART_BAUDDIV = 16u;           /* smallest legal divider */
    UART_CTRL |= 1u;              /* TX enable */
}

static void uart_putc(char c)
{
    while (UART_STATE & 1u)       /* TX buffer full */
        ;
    UART_DATA = (uint8_t)c;
}

#elif defined(BOARD_STM32F446RE)
#define USART_BASE    0x40004400u
#define USART_SR      REG(USART_BASE + 0x0u)
#define USART_DR      REG(USART_BASE + 0x4u)
#define USART_BRR     REG(USART_BASE + 0x8u)
#define USART_CR1     REG(USART_BASE + 0xCu)

static void uart_init(void)
{
    USART_BRR = 0x8Bu;            /* 115200 baud from the 16 MHz reset clock */
    USART_CR1 |= (1u << 13) | (1u << 3);   /* UE, TE */
}

static void uart_putc(char c)
{
    while (!(USART_SR & (1u << 7)))        /* wait for TXE */
        ;
    USART_DR = (uint8_t)c;
}

#else
#error "console_uart: no UART for this board"
#endif

static void uart_puts(const char *s)
{
    while (*s)
        uart_putc(*s++);
}

int main(void)
{
    uart_init();
    uart_puts("console_uart: hello from the UART\n");
    for (char c = '0'; c <= '9'; c++)
        uart_putc(c);
    uart_puts("\nconsole_uart: done\n");
    /* Wait until the last byte has left the transmitter, then stop. */
#if defined(BOARD_STM32F446RE)
    while (!(USART_SR & (1u << 6)))        /* TC */
        ;
#endif
    semihost_exit(0);
}
