/*
 * clock_tree: brings the board's clock tree up the way its vendor's reference manual prescribes
 * (oscillator, voltage scaling, flash wait states, PLL to full speed, system clock switch, each
 * step waiting for its ready bit), then the console UART (clock, pins, baud rate, enable), prints
 * what the hardware reported at each step, waits until the last byte has left and exits through
 * semihosting. No printf: the text goes only to the UART.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every wait polls a ready bit with a bound (TIMEOUT polls): the first bit that never comes is
 * reported ("timeout waiting for ...", later waits are skipped) and the program exits with status 1,
 * so a model that lost a ready bit fails loudly instead of spinning.
 *
 * Register addresses and bits: the reference manual named at each board's section below.
 */
#include <stdint.h>
#include "semihost.h"

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
/* Polls before a wait gives up: at 5 or more cycles a poll, over 40 ms at 480 MHz, twenty times
 * the longest start-up these boards' data give (HSE, 2 ms). */
#define TIMEOUT 4000000u

static void uart_putc(char c);

static void puts_(const char *s)
{
    while (*s)
        uart_putc(*s++);
}

__attribute__((unused)) static void put_dec(uint32_t v)
{
    char buf[11];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        uart_putc(buf[--n]);
}

__attribute__((unused)) static void put_hex(uint32_t v)
{
    puts_("0x");
    for (int i = 28; i >= 0; i -= 4)
        uart_putc("0123456789abcdef"[(v >> i) & 0xFu]);
}

/* Failures are found before the UART runs too: they are kept and printed once it does. */
static const char *failed;

/* Wait until (REG(addr) & mask) == want; on a timeout remember `what` and return 0. */
static int wait_bits(uint32_t addr, uint32_t mask, uint32_t want, const char *what)
{
    if (failed) /* one missed ready bit is enough: report it without more timeouts */
        return 0;
    for (uint32_t n = 0; n < TIMEOUT; n++)
        if ((REG(addr) & mask) == want)
            return 1;
    if (!failed)
        failed = what;
    return 0;
}

static void finish(void);

/* The STM32 USARTs' transmit side, the same on every family but for the register names: wait for
 * TXE (status bit 7) before each byte, for TC (bit 6) at the end (RM0090 §30.6.1 USART_SR; RM0433
 * and RM0456 USART_ISR). */
#define STM32_USART_IO(status, tx)                                                                   \
    static void uart_putc(char c)                                                                  \
    {                                                                                              \
        wait_bits(status, 1u << 7, 1u << 7, "USART TXE");                                          \
        REG(tx) = (uint8_t)c;                                                                      \
    }                                                                                              \
    static void uart_flush(void) { wait_bits(status, 1u << 6, 1u << 6, "USART TC"); }

/* ------------------------------------------------------------------------------------------ */
#if defined(BOARD_STM32F407VG) || defined(BOARD_STM32F411RE) || defined(BOARD_STM32F446RE)
/*
 * STM32F4: RM0090 (F405/407) §7.3 RCC, §5.4 PWR, §3.9 FLASH; RM0383 (F411) §6.3, §5.4, §3.8;
 * RM0390 (F446) §6.3, §5.4, §3.8. The sequence of RM0090 §7.2 / STM32Cube SystemClock_Config:
 * HSE on, PWR clock on and voltage scale, (F446: over-drive on, switch to it), flash latency
 * (read back), PLL from HSE, PLL on, bus prescalers, SW = PLL, wait SWS = PLL. USART2 (PA2, AF7)
 * is the console on the Discovery and Nucleo boards.
 */
#define RCC 0x40023800u
#define RCC_CR (RCC + 0x00u)
#define RCC_PLLCFGR (RCC + 0x04u)
#define RCC_CFGR (RCC + 0x08u)
#define RCC_AHB1ENR (RCC + 0x30u)
#define RCC_APB1ENR (RCC + 0x40u)
#define PWR_CR 0x40007000u
#define PWR_CSR 0x40007004u
#define FLASH_ACR 0x40023C00u
#define GPIOA 0x40020000u
#define USART2 0x40004400u
#define USART_SR (USART2 + 0x00u)
#define USART_DR (USART2 + 0x04u)
#define USART_BRR (USART2 + 0x08u)
#define USART_CR1 (USART2 + 0x0Cu)

#if defined(BOARD_STM32F407VG)
/* 8 MHz crystal (STM32F4DISCOVERY); /8 = 1 MHz, x336 = 336 MHz VCO, /2 = 168 MHz, /7 = 48 MHz. */
#define BOARD_NAME "stm32f407vg"
#define HSE_BITS (1u << 16)
#define PLLM 8u
#define PLLN 336u
#define PLLQ 7u
#define SYSCLK 168000000u
#define LATENCY 5u     /* RM0090 Table 10: 5 WS for 150-168 MHz at 2.7-3.6 V */
#define VOS (1u << 14) /* scale 1 */
#define PPRE1 5u       /* APB1 = HCLK/4 = 42 MHz (max 42) */
#define PPRE2 4u       /* APB2 = HCLK/2 = 84 MHz */
#define APB1 42000000u
#elif defined(BOARD_STM32F411RE)
/* 8 MHz from the ST-LINK's MCO (HSE bypass, Nucleo); /8, x200 = 200 MHz VCO, /2 = 100 MHz. */
#define BOARD_NAME "stm32f411re"
#define HSE_BITS ((1u << 16) | (1u << 18))
#define PLLM 8u
#define PLLN 200u
#define PLLQ 4u
#define SYSCLK 100000000u
#define LATENCY 3u     /* RM0383 Table 5: 3 WS for 90-100 MHz at 2.7-3.6 V */
#define VOS (3u << 14) /* scale 1 */
#define PPRE1 4u       /* APB1 = HCLK/2 = 50 MHz (max 50) */
#define PPRE2 0u
#define APB1 50000000u
#else
/* 8 MHz MCO bypass (Nucleo); /4 = 2 MHz, x180 = 360 MHz VCO, /2 = 180 MHz (needs over-drive). */
#define BOARD_NAME "stm32f446re"
#define HSE_BITS ((1u << 16) | (1u << 18))
#define PLLM 4u
#define PLLN 180u
#define PLLQ 8u
#define SYSCLK 180000000u
#define LATENCY 5u     /* RM0390 Table 5: 5 WS for 150-180 MHz at 2.7-3.6 V */
#define VOS (3u << 14) /* scale 1 */
#define PPRE1 5u       /* APB1 = HCLK/4 = 45 MHz (max 45) */
#define PPRE2 4u       /* APB2 = HCLK/2 = 90 MHz */
#define APB1 45000000u
#endif

static uint32_t latency_read;

static void clock_init(void)
{
    REG(RCC_CR) |= HSE_BITS;
    wait_bits(RCC_CR, 1u << 17, 1u << 17, "HSERDY");
    REG(RCC_APB1ENR) |= 1u << 28; /* PWREN */
    REG(PWR_CR) = (REG(PWR_CR) & ~(3u << 14)) | VOS;
#if defined(BOARD_STM32F446RE)
    /* RM0390 §5.1.4: over-drive before raising HCLK above 168 MHz. */
    REG(PWR_CR) |= 1u << 16; /* ODEN */
    wait_bits(PWR_CSR, 1u << 16, 1u << 16, "ODRDY");
    REG(PWR_CR) |= 1u << 17; /* ODSWEN */
    wait_bits(PWR_CSR, 1u << 17, 1u << 17, "ODSWRDY");
#endif
    /* Flash: prefetch, instruction and data caches, wait states; read back before going faster. */
    REG(FLASH_ACR) = (1u << 8) | (1u << 9) | (1u << 10) | LATENCY;
    latency_read = REG(FLASH_ACR) & 0xFu;
    if (latency_read != LATENCY && !failed)
        failed = "FLASH_ACR.LATENCY read-back";
    REG(RCC_PLLCFGR) = PLLM | (PLLN << 6) | (0u << 16) /* P = 2 */ | (1u << 22) /* HSE */ |
                       (PLLQ << 24);
    REG(RCC_CR) |= 1u << 24; /* PLLON */
    wait_bits(RCC_CR, 1u << 25, 1u << 25, "PLLRDY");
    wait_bits(PWR_CSR, 1u << 14, 1u << 14, "VOSRDY");
    REG(RCC_CFGR) = (PPRE1 << 10) | (PPRE2 << 13) | 2u; /* SW = PLL */
    wait_bits(RCC_CFGR, 0xCu, 0x8u, "SWS = PLL");
}

static void uart_init(void)
{
    REG(RCC_AHB1ENR) |= 1u << 0;  /* GPIOAEN */
    REG(RCC_APB1ENR) |= 1u << 17; /* USART2EN */
    REG(GPIOA + 0x00u) = (REG(GPIOA + 0x00u) & ~(3u << 4)) | (2u << 4); /* PA2 alternate */
    REG(GPIOA + 0x20u) = (REG(GPIOA + 0x20u) & ~(0xFu << 8)) | (7u << 8); /* AF7 = USART2 */
    /* 16x oversampling: USARTDIV = APB1 / (16 x 115200), in 12.4 fixed point. */
    REG(USART_BRR) = (APB1 + 115200u / 2u) / 115200u;
    REG(USART_CR1) = (1u << 13) | (1u << 3); /* UE, TE */
}

STM32_USART_IO(USART_SR, USART_DR)

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " PLL ");
    put_dec(SYSCLK);
    puts_(" Hz, SWS=");
    put_dec((REG(RCC_CFGR) >> 2) & 3u);
    puts_(" FLASH_ACR.LATENCY=");
    put_dec(latency_read);
    puts_(" RCC_CR=");
    put_hex(REG(RCC_CR) & 0x0F0F0003u);
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_STM32H753)
/*
 * STM32H753: RM0433 §8.7 RCC, §6.8 PWR, §4.9 FLASH, SYSCFG PWRCR (§12). The sequence of RM0433
 * §6.8.x / STM32Cube: supply from the LDO (PWR_CR3), wait ACTVOSRDY; VOS1 then over-drive (VOS0,
 * SYSCFG_PWRCR.ODEN, rev V) for 480 MHz, wait VOSRDY; HSE (8 MHz MCO, bypass) on; PLL1 from HSE:
 * /1, x120 = 960 MHz VCO, /2 = 480 MHz; flash 4 WS, WRHIGHFREQ 2 for a 240 MHz AXI clock (read
 * back); HPRE /2, D1PPRE, D2PPRE1/2, D3PPRE /2; SW = PLL1, wait SWS. USART3 (PD8, AF7) is the
 * Nucleo-H753ZI's virtual COM port.
 */
#define BOARD_NAME "stm32h753"
#define RCC 0x58024400u
#define RCC_CR (RCC + 0x00u)
#define RCC_CFGR (RCC + 0x10u)
#define RCC_D1CFGR (RCC + 0x18u)
#define RCC_D2CFGR (RCC + 0x1Cu)
#define RCC_D3CFGR (RCC + 0x20u)
#define RCC_PLLCKSELR (RCC + 0x28u)
#define RCC_PLLCFGR (RCC + 0x2Cu)
#define RCC_PLL1DIVR (RCC + 0x30u)
#define RCC_AHB4ENR (RCC + 0xE0u)
#define RCC_APB1LENR (RCC + 0xE8u)
#define RCC_APB4ENR (RCC + 0xF4u)
#define PWR_CSR1 0x58024804u
#define PWR_CR3 0x5802480Cu
#define PWR_D3CR 0x58024818u
#define SYSCFG_PWRCR 0x5800042Cu
#define FLASH_ACR 0x52002000u
#define GPIOD 0x58020C00u
#define USART3 0x40004800u
#define USART_CR1 (USART3 + 0x00u)
#define USART_BRR (USART3 + 0x0Cu)
#define USART_ISR (USART3 + 0x1Cu)
#define USART_TDR (USART3 + 0x28u)
#define SYSCLK 480000000u
#define LATENCY 4u
#define APB1 120000000u

static uint32_t latency_read;

static void clock_init(void)
{
    REG(PWR_CR3) = (REG(PWR_CR3) & ~0x7u) | (1u << 1); /* LDOEN only (SCUEN, BYPASS cleared) */
    wait_bits(PWR_CSR1, 1u << 13, 1u << 13, "ACTVOSRDY");
    REG(PWR_D3CR) = (REG(PWR_D3CR) & ~(3u << 14)) | (3u << 14); /* VOS1 */
    wait_bits(PWR_D3CR, 1u << 13, 1u << 13, "VOSRDY (VOS1)");
    REG(RCC_APB4ENR) |= 1u << 1; /* SYSCFGEN */
    REG(SYSCFG_PWRCR) |= 1u;     /* ODEN: VOS0 */
    wait_bits(PWR_D3CR, 1u << 13, 1u << 13, "VOSRDY (VOS0)");
    REG(RCC_CR) |= (1u << 16) | (1u << 18); /* HSEON, HSEBYP */
    wait_bits(RCC_CR, 1u << 17, 1u << 17, "HSERDY");
    REG(RCC_PLLCKSELR) = (2u << 0) /* HSE */ | (1u << 4) /* DIVM1 = 1 */;
    REG(RCC_PLLCFGR) = (1u << 16) /* DIVP1EN */ | (3u << 2) /* PLL1RGE 8-16 MHz */;
    REG(RCC_PLL1DIVR) = (120u - 1u) | ((2u - 1u) << 9) | ((4u - 1u) << 16) | ((2u - 1u) << 24);
    REG(RCC_CR) |= 1u << 24; /* PLL1ON */
    wait_bits(RCC_CR, 1u << 25, 1u << 25, "PLL1RDY");
    REG(FLASH_ACR) = LATENCY | (2u << 4);
    latency_read = REG(FLASH_ACR) & 0xFu;
    if (latency_read != LATENCY && !failed)
        failed = "FLASH_ACR.LATENCY read-back";
    REG(RCC_D1CFGR) = (8u << 0) /* HPRE /2 */ | (4u << 4) /* D1PPRE /2 */;
    REG(RCC_D2CFGR) = (4u << 4) | (4u << 8); /* D2PPRE1, D2PPRE2 /2 */
    REG(RCC_D3CFGR) = 4u << 4;               /* D3PPRE /2 */
    REG(RCC_CFGR) = (REG(RCC_CFGR) & ~7u) | 3u; /* SW = PLL1 */
    wait_bits(RCC_CFGR, 7u << 3, 3u << 3, "SWS = PLL1");
}

static void uart_init(void)
{
    REG(RCC_AHB4ENR) |= 1u << 3;   /* GPIODEN */
    REG(RCC_APB1LENR) |= 1u << 18; /* USART3EN */
    REG(GPIOD + 0x00u) = (REG(GPIOD + 0x00u) & ~(3u << 16)) | (2u << 16); /* PD8 alternate */
    REG(GPIOD + 0x24u) = (REG(GPIOD + 0x24u) & ~0xFu) | 7u;              /* AF7 */
    REG(USART_BRR) = (APB1 + 115200u / 2u) / 115200u;
    REG(USART_CR1) = (1u << 3) | (1u << 0); /* TE, UE */
    /* The transmitter acknowledges TE (HAL_UART_Init's UART_CheckIdleState waits for it too). */
    wait_bits(USART_ISR, 1u << 21, 1u << 21, "USART ISR.TEACK");
}

STM32_USART_IO(USART_ISR, USART_TDR)

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " PLL1 ");
    put_dec(SYSCLK);
    puts_(" Hz, SWS=");
    put_dec((REG(RCC_CFGR) >> 3) & 7u);
    puts_(" FLASH_ACR.LATENCY=");
    put_dec(latency_read);
    puts_(" RCC_CR=");
    put_hex(REG(RCC_CR) & 0x3F030005u);
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_STM32U585)
/*
 * STM32U585: RM0456 §11.8 RCC, §10.10 PWR, §7.9 FLASH. The sequence of RM0456 §10.5 / STM32Cube:
 * PWR clock on, SMPS supply (PWR_CR3.REGSEL, wait SVMSR.REGS), range 1 and the EPOD booster
 * (wait VOSRDY, BOOSTRDY), flash 4 WS for 160 MHz in range 1 (read back), PLL1 from MSIS 4 MHz:
 * /1, x80 = 320 MHz VCO, /2 = 160 MHz; SW = PLL1, wait SWS. USART1 (PA9, AF7) is the
 * B-U585I-IOT02A's ST-LINK virtual COM port.
 */
#define BOARD_NAME "stm32u585"
#define RCC 0x46020C00u
#define RCC_CR (RCC + 0x00u)
#define RCC_CFGR1 (RCC + 0x1Cu)
#define RCC_PLL1CFGR (RCC + 0x28u)
#define RCC_PLL1DIVR (RCC + 0x34u)
#define RCC_AHB2ENR1 (RCC + 0x8Cu)
#define RCC_AHB3ENR (RCC + 0x94u)
#define RCC_APB2ENR (RCC + 0xA4u)
#define PWR_CR3 0x46020808u
#define PWR_VOSR 0x4602080Cu
#define PWR_SVMSR 0x4602083Cu
#define FLASH_ACR 0x40022000u
#define GPIOA 0x42020000u
#define USART1 0x40013800u
#define USART_CR1 (USART1 + 0x00u)
#define USART_BRR (USART1 + 0x0Cu)
#define USART_ISR (USART1 + 0x1Cu)
#define USART_TDR (USART1 + 0x28u)
#define SYSCLK 160000000u
#define LATENCY 4u

static uint32_t latency_read;

static void clock_init(void)
{
    REG(RCC_AHB3ENR) |= 1u << 2;  /* PWREN */
    REG(PWR_CR3) |= 1u << 1;      /* REGSEL: SMPS */
    wait_bits(PWR_SVMSR, 1u << 1, 1u << 1, "SVMSR.REGS");
    REG(PWR_VOSR) = (REG(PWR_VOSR) & ~(3u << 16)) | (3u << 16) | (1u << 18); /* range 1, BOOSTEN */
    wait_bits(PWR_VOSR, 1u << 15, 1u << 15, "VOSRDY");
    wait_bits(PWR_VOSR, 1u << 14, 1u << 14, "BOOSTRDY");
    REG(FLASH_ACR) = (REG(FLASH_ACR) & ~0xFu) | LATENCY;
    latency_read = REG(FLASH_ACR) & 0xFu;
    if (latency_read != LATENCY && !failed)
        failed = "FLASH_ACR.LATENCY read-back";
    REG(RCC_PLL1CFGR) = 1u /* MSIS */ | (0u << 2) /* 4-8 MHz */ | (0u << 8) /* M = 1 */ |
                        (1u << 18) /* PLL1REN */;
    REG(RCC_PLL1DIVR) = (80u - 1u) | ((2u - 1u) << 9) | ((2u - 1u) << 16) | ((2u - 1u) << 24);
    REG(RCC_CR) |= 1u << 24; /* PLL1ON */
    wait_bits(RCC_CR, 1u << 25, 1u << 25, "PLL1RDY");
    REG(RCC_CFGR1) = (REG(RCC_CFGR1) & ~3u) | 3u; /* SW = PLL1 */
    wait_bits(RCC_CFGR1, 3u << 2, 3u << 2, "SWS = PLL1");
}

static void uart_init(void)
{
    REG(RCC_AHB2ENR1) |= 1u << 0; /* GPIOAEN */
    REG(RCC_APB2ENR) |= 1u << 14; /* USART1EN */
    REG(GPIOA + 0x00u) = (REG(GPIOA + 0x00u) & ~(3u << 18)) | (2u << 18); /* PA9 alternate */
    REG(GPIOA + 0x24u) = (REG(GPIOA + 0x24u) & ~(0xFu << 4)) | (7u << 4); /* AF7 */
    REG(USART_BRR) = (SYSCLK + 115200u / 2u) / 115200u; /* PCLK2 = SYSCLK */
    REG(USART_CR1) = (1u << 3) | (1u << 0);             /* TE, UE */
    /* The transmitter acknowledges TE (HAL_UART_Init's UART_CheckIdleState waits for it too). */
    wait_bits(USART_ISR, 1u << 21, 1u << 21, "USART ISR.TEACK");
}

STM32_USART_IO(USART_ISR, USART_TDR)

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " PLL1 ");
    put_dec(SYSCLK);
    puts_(" Hz, SWS=");
    put_dec((REG(RCC_CFGR1) >> 2) & 3u);
    puts_(" FLASH_ACR.LATENCY=");
    put_dec(latency_read);
    puts_(" RCC_CR=");
    put_hex(REG(RCC_CR) & 0x03000005u);
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_ATSAMD51P19A)
/*
 * ATSAMD51: DS60001507 §13 clock system, §14 GCLK, §15 MCLK, §25 NVMCTRL, §28 OSCCTRL, §34 SERCOM
 * USART. The DFLL48M runs from reset; GCLK5 = DFLL/24 = 2 MHz is the DPLL0 reference, DPLL0 x60 =
 * 120 MHz (wait SYNCBUSY, then LOCK and CLKRDY), GCLK0 (the CPU clock) switched to DPLL0, flash wait
 * states by NVMCTRL.CTRLA.AUTOWS (set at reset). SERCOM0 runs from GCLK1 = DFLL 48 MHz.
 */
#define BOARD_NAME "atsamd51p19a"
#define MCLK 0x40000800u
#define MCLK_CPUDIV (MCLK + 0x05u)
#define MCLK_APBAMASK (MCLK + 0x14u)
#define OSCCTRL 0x40001000u
#define DPLL0CTRLA (OSCCTRL + 0x30u)
#define DPLL0RATIO (OSCCTRL + 0x34u)
#define DPLL0CTRLB (OSCCTRL + 0x38u)
#define DPLL0SYNCBUSY (OSCCTRL + 0x3Cu)
#define DPLL0STATUS (OSCCTRL + 0x40u)
#define GCLK 0x40001C00u
#define GCLK_SYNCBUSY (GCLK + 0x04u)
#define GCLK_GENCTRL(n) (GCLK + 0x20u + 4u * (n))
#define GCLK_PCHCTRL(m) (GCLK + 0x80u + 4u * (m))
#define NVMCTRL_CTRLA 0x41004000u
#define SERCOM0 0x40003000u
#define USART_CTRLA (SERCOM0 + 0x00u)
#define USART_CTRLB (SERCOM0 + 0x04u)
#define USART_BAUD (SERCOM0 + 0x0Cu)
#define USART_INTFLAG (SERCOM0 + 0x18u)
#define USART_SYNCBUSY (SERCOM0 + 0x1Cu)
#define USART_DATA (SERCOM0 + 0x28u)
#define SYSCLK 120000000u
#define GEN_SRC_DFLL 6u
#define GEN_SRC_DPLL0 7u
#define GENEN (1u << 8)
#define CHEN (1u << 6)

static void clock_init(void)
{
    REG(GCLK_GENCTRL(5)) = GEN_SRC_DFLL | GENEN | (24u << 16);
    wait_bits(GCLK_SYNCBUSY, 1u << (2 + 5), 0, "GCLK SYNCBUSY.GENCTRL5");
    REG(GCLK_PCHCTRL(1)) = 5u | CHEN; /* OSCCTRL_FDPLL0 reference from GCLK5 */
    wait_bits(GCLK_PCHCTRL(1), CHEN, CHEN, "GCLK PCHCTRL1.CHEN");
    REG(DPLL0RATIO) = 60u - 1u;
    wait_bits(DPLL0SYNCBUSY, 1u << 2, 0, "DPLL0SYNCBUSY.DPLLRATIO");
    REG(DPLL0CTRLB) = (0u << 5) /* REFCLK = GCLK */ | (1u << 11) /* LBYPASS */;
    REG(DPLL0CTRLA) = 1u << 1; /* ENABLE */
    wait_bits(DPLL0SYNCBUSY, 1u << 1, 0, "DPLL0SYNCBUSY.ENABLE");
    wait_bits(DPLL0STATUS, 3u, 3u, "DPLL0STATUS.LOCK and CLKRDY");
    *(volatile uint8_t *)MCLK_CPUDIV = 1u;
    REG(GCLK_GENCTRL(0)) = GEN_SRC_DPLL0 | GENEN | (1u << 9) /* IDC */;
    wait_bits(GCLK_SYNCBUSY, 1u << 2, 0, "GCLK SYNCBUSY.GENCTRL0");
    REG(GCLK_GENCTRL(1)) = GEN_SRC_DFLL | GENEN;
    wait_bits(GCLK_SYNCBUSY, 1u << 3, 0, "GCLK SYNCBUSY.GENCTRL1");
}

static void uart_init(void)
{
    REG(MCLK_APBAMASK) |= 1u << 12;    /* SERCOM0 */
    REG(GCLK_PCHCTRL(7)) = 1u | CHEN;  /* SERCOM0_CORE from GCLK1 */
    wait_bits(GCLK_PCHCTRL(7), CHEN, CHEN, "GCLK PCHCTRL7.CHEN");
    REG(USART_CTRLA) = 1u;             /* SWRST */
    wait_bits(USART_SYNCBUSY, 1u, 0, "SERCOM0 SYNCBUSY.SWRST");
    REG(USART_CTRLA) = (1u << 2) /* MODE: internal clock */ | (1u << 30) /* DORD: LSB first */;
    REG(USART_CTRLB) = 1u << 16;       /* TXEN */
    wait_bits(USART_SYNCBUSY, 1u << 2, 0, "SERCOM0 SYNCBUSY.CTRLB");
    /* Arithmetic baud: 65536 x (1 - 16 x 115200 / 48 MHz). */
    REG(USART_BAUD) = 65536u - (uint32_t)((65536ull * 16u * 115200u) / 48000000u);
    REG(USART_CTRLA) |= 1u << 1;       /* ENABLE */
    wait_bits(USART_SYNCBUSY, 1u << 1, 0, "SERCOM0 SYNCBUSY.ENABLE");
}

static void uart_putc(char c)
{
    wait_bits(USART_INTFLAG, 1u, 1u, "SERCOM0 INTFLAG.DRE");
    REG(USART_DATA) = (uint8_t)c;
}

static void uart_flush(void)
{
    wait_bits(USART_INTFLAG, 2u, 2u, "SERCOM0 INTFLAG.TXC");
}

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " DPLL0 ");
    put_dec(SYSCLK);
    puts_(" Hz, GENCTRL0.SRC=");
    put_dec(REG(GCLK_GENCTRL(0)) & 0xFu);
    puts_(" DPLL0STATUS=");
    put_hex(REG(DPLL0STATUS));
    puts_(" NVMCTRL.AUTOWS=");
    put_dec((REG(NVMCTRL_CTRLA) >> 2) & 1u);
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_ATSAM3X8E)
/*
 * ATSAM3X8E (Arduino Due): Atmel datasheet 11057 §18 EEFC, §27 clock generator, §28 PMC, §34 UART.
 * The PMC's programming sequence, in the order of the Due's SystemInit: flash wait states first
 * (FWS = 4 in both EEFCs, read back), the 12 MHz crystal on (MOSCXTST = 8 x 8 slow clocks, wait
 * MOSCXTS), MAINCK = crystal (wait MOSCSELS, then MAINFRDY for the measured frequency), MCK =
 * MAINCK, PLLA = 12 MHz x (MULA 13 + 1) / DIVA 1 = 168 MHz (wait LOCKA), PRES = /2 while still on
 * MAINCK, then CSS = PLLA: 84 MHz, waiting MCKRDY after each MCKR write. The watchdog, running
 * from reset, is disabled first as Arduino's init() does. UART: its peripheral clock (PID 8),
 * PA8/PA9 to peripheral A, 115200 baud from MCK, TXEN; TXRDY before each byte, TXEMPTY at the end.
 */
#define BOARD_NAME "atsam3x8e"
#define PMC 0x400E0600u
#define PMC_PCER0 (PMC + 0x10u)
#define PMC_PCSR0 (PMC + 0x18u)
#define CKGR_MOR (PMC + 0x20u)
#define CKGR_MCFR (PMC + 0x24u)
#define CKGR_PLLAR (PMC + 0x28u)
#define PMC_MCKR (PMC + 0x30u)
#define PMC_SR (PMC + 0x68u)
#define EEFC_FMR(bank) (0x400E0A00u + 0x200u * (bank))
#define UART 0x400E0800u
#define UART_CR (UART + 0x00u)
#define UART_MR (UART + 0x04u)
#define UART_IDR (UART + 0x0Cu)
#define UART_SR (UART + 0x14u)
#define UART_THR (UART + 0x1Cu)
#define UART_BRGR (UART + 0x20u)
#define PIOA 0x400E0E00u
#define PIO_PDR (PIOA + 0x04u)
#define PIO_ABSR (PIOA + 0x70u)
#define WDT_MR 0x400E1A54u
#define SYSCLK 84000000u
#define FWS 4u
#define MOR_KEY (0x37u << 16)
#define MOSCXTEN (1u << 0)
#define MOSCRCEN (1u << 3)
#define MOSCSEL (1u << 24)
#define MAINFRDY (1u << 16)
#define SR_MOSCXTS (1u << 0)
#define SR_LOCKA (1u << 1)
#define SR_MCKRDY (1u << 3)
#define SR_MOSCSELS (1u << 16)
#define MCKR_CSS_MAIN 1u
#define MCKR_CSS_PLLA 2u
#define MCKR_PRES_2 (1u << 4)
#define ID_UART 8u
#define UART_PINS ((1u << 8) | (1u << 9)) /* PA8 URXD, PA9 UTXD */

static uint32_t fws_read[2];
static uint32_t mainf;

static void mckr_switch(uint32_t mckr, const char *what)
{
    REG(PMC_MCKR) = mckr;
    wait_bits(PMC_SR, SR_MCKRDY, SR_MCKRDY, what);
}

static void clock_init(void)
{
    static const char *const fws_what[2] = {"EEFC0_FMR.FWS read-back", "EEFC1_FMR.FWS read-back"};
    const uint32_t mor = MOR_KEY | (8u << 8) /* MOSCXTST */ | MOSCRCEN | MOSCXTEN;

    REG(WDT_MR) = 1u << 15; /* WDDIS */
    for (uint32_t bank = 0; bank < 2; bank++) {
        REG(EEFC_FMR(bank)) = FWS << 8;
        fws_read[bank] = (REG(EEFC_FMR(bank)) >> 8) & 0xFu;
        if (fws_read[bank] != FWS && !failed)
            failed = fws_what[bank];
    }
    REG(CKGR_MOR) = mor;
    wait_bits(PMC_SR, SR_MOSCXTS, SR_MOSCXTS, "MOSCXTS");
    REG(CKGR_MOR) = mor | MOSCSEL;
    wait_bits(PMC_SR, SR_MOSCSELS, SR_MOSCSELS, "MOSCSELS");
    wait_bits(CKGR_MCFR, MAINFRDY, MAINFRDY, "CKGR_MCFR.MAINFRDY");
    mainf = REG(CKGR_MCFR) & 0xFFFFu;
    mckr_switch((REG(PMC_MCKR) & ~3u) | MCKR_CSS_MAIN, "MCKRDY (CSS = MAINCK)");
    REG(CKGR_PLLAR) = (1u << 29) /* ONE */ | (13u << 16) /* MULA */ | (0x3Fu << 8) /* PLLACOUNT */ |
                      1u /* DIVA */;
    wait_bits(PMC_SR, SR_LOCKA, SR_LOCKA, "LOCKA");
    mckr_switch(MCKR_PRES_2 | MCKR_CSS_MAIN, "MCKRDY (PRES = /2)");
    mckr_switch(MCKR_PRES_2 | MCKR_CSS_PLLA, "MCKRDY (CSS = PLLA)");
}

static void uart_init(void)
{
    REG(PMC_PCER0) = 1u << ID_UART;
    wait_bits(PMC_PCSR0, 1u << ID_UART, 1u << ID_UART, "PMC_PCSR0.PID8 (UART clock)");
    REG(PIO_PDR) = UART_PINS;
    REG(PIO_ABSR) &= ~UART_PINS;
    REG(UART_CR) = (1u << 2) | (1u << 3) | (1u << 5) | (1u << 7); /* RSTRX, RSTTX, RXDIS, TXDIS */
    REG(UART_MR) = 4u << 9;                                        /* PAR: no parity */
    REG(UART_BRGR) = (SYSCLK + 8u * 115200u) / (16u * 115200u);    /* CD = MCK / (16 x baud) */
    REG(UART_IDR) = 0xFFFFFFFFu;
    REG(UART_CR) = (1u << 4) | (1u << 6); /* RXEN, TXEN */
}

static void uart_putc(char c)
{
    wait_bits(UART_SR, 1u << 1, 1u << 1, "UART_SR.TXRDY");
    REG(UART_THR) = (uint8_t)c;
}

static void uart_flush(void)
{
    wait_bits(UART_SR, 1u << 9, 1u << 9, "UART_SR.TXEMPTY");
}

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " PLLA ");
    put_dec(SYSCLK);
    puts_(" Hz, PMC_MCKR=");
    put_hex(REG(PMC_MCKR));
    puts_(" PMC_SR=");
    put_hex(REG(PMC_SR));
    puts_(" MAINF=");
    put_dec(mainf);
    puts_(" EEFC_FMR.FWS=");
    put_dec(fws_read[0]);
    puts_(",");
    put_dec(fws_read[1]);
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_NRF52833) || defined(BOARD_NRF52840)
/*
 * nRF52833/nRF52840: nRF52833 PS §6.4 CLOCK, §6.33 UART (the nRF52840 PS has the same registers at
 * the same addresses). No PLL and no flash wait states to set: the clock tree is HFXO (start
 * task, wait HFCLKSTARTED, HFCLKSTAT shows the crystal running) and LFXO (LFCLKSRC = Xtal, start,
 * wait LFCLKSTARTED). UART0 sends from TXD, each byte confirmed by EVENTS_TXDRDY.
 */
#if defined(BOARD_NRF52833)
#define BOARD_NAME "nrf52833"
#else
#define BOARD_NAME "nrf52840"
#endif
#define CLOCK 0x40000000u
#define TASKS_HFCLKSTART (CLOCK + 0x000u)
#define TASKS_LFCLKSTART (CLOCK + 0x008u)
#define EVENTS_HFCLKSTARTED (CLOCK + 0x100u)
#define EVENTS_LFCLKSTARTED (CLOCK + 0x104u)
#define HFCLKSTAT (CLOCK + 0x40Cu)
#define LFCLKSTAT (CLOCK + 0x418u)
#define LFCLKSRC (CLOCK + 0x518u)
#define UART0 0x40002000u
#define UART_TASKS_STARTTX (UART0 + 0x008u)
#define UART_EVENTS_TXDRDY (UART0 + 0x11Cu)
#define UART_ENABLE (UART0 + 0x500u)
#define UART_PSELTXD (UART0 + 0x50Cu)
#define UART_TXD (UART0 + 0x51Cu)
#define UART_BAUDRATE (UART0 + 0x524u)

static void clock_init(void)
{
    REG(EVENTS_HFCLKSTARTED) = 0;
    REG(TASKS_HFCLKSTART) = 1;
    wait_bits(EVENTS_HFCLKSTARTED, 1u, 1u, "EVENTS_HFCLKSTARTED");
    wait_bits(HFCLKSTAT, 0x10001u, 0x10001u, "HFCLKSTAT = Xtal running");
    REG(LFCLKSRC) = 1u; /* Xtal */
    REG(EVENTS_LFCLKSTARTED) = 0;
    REG(TASKS_LFCLKSTART) = 1;
    wait_bits(EVENTS_LFCLKSTARTED, 1u, 1u, "EVENTS_LFCLKSTARTED");
}

static void uart_init(void)
{
    REG(UART_PSELTXD) = 6u;           /* P0.06, the DK's VCOM TX */
    REG(UART_BAUDRATE) = 0x01D7E000u; /* 115200 baud */
    REG(UART_ENABLE) = 4u;
    REG(UART_TASKS_STARTTX) = 1u;
}

static void uart_putc(char c)
{
    REG(UART_EVENTS_TXDRDY) = 0;
    REG(UART_TXD) = (uint8_t)c;
    wait_bits(UART_EVENTS_TXDRDY, 1u, 1u, "UART0 EVENTS_TXDRDY");
}

static void uart_flush(void)
{
}

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " HFXO 64000000 Hz, HFCLKSTAT=");
    put_hex(REG(HFCLKSTAT));
    puts_(" LFCLKSTAT=");
    put_hex(REG(LFCLKSTAT));
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_RP2040) || defined(BOARD_RP2350)
/*
 * RP2040: datasheet §2.14 RESETS, §2.15 CLOCKS, §2.16 XOSC, §2.18 PLL, §4.2 UART (PL011); the
 * RP2350 has the same blocks at other bases and other reset bits (RP2350 datasheet: address map,
 * RESETS, CLOCKS, XOSC, PLL, UART). The sequence of RP2040 §2.15.6 / the Pico SDK's clocks_init:
 * XOSC (12 MHz crystal) on, wait STABLE; clk_ref from XOSC; PLL_SYS out of reset, FBDIV 125
 * (1500 MHz VCO), power up, wait LOCK, post dividers 6 x 2 = 125 MHz (RP2040) or 5 x 2 = 150 MHz
 * (RP2350); clk_sys from the PLL through the aux mux, wait SELECTED; clk_peri on; UART0 out of
 * reset, 115200 baud, enable. Bits are set and cleared through the atomic register aliases
 * (RP2040 §2.1.2, RP2350 §2.1.3: +0x2000 set, +0x3000 clear), as the SDK's hw_set_bits and
 * hw_clear_bits do.
 */
#if defined(BOARD_RP2040)
#define BOARD_NAME "rp2040"
#define CLOCKS 0x40008000u
#define RESETS 0x4000C000u
#define IO_BANK0 0x40014000u
#define XOSC 0x40024000u
#define PLL_SYS 0x40028000u
#define UART0 0x40034000u
#define SYSCLK 125000000u
#define POSTDIV1 6u
#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_PLL_SYS (1u << 12)
#define RESET_UART0 (1u << 22)
#else
#define BOARD_NAME "rp2350"
#define CLOCKS 0x40010000u
#define RESETS 0x40020000u
#define IO_BANK0 0x40028000u
#define XOSC 0x40048000u
#define PLL_SYS 0x40050000u
#define UART0 0x40070000u
#define SYSCLK 150000000u
#define POSTDIV1 5u
#define RESET_IO_BANK0 (1u << 6)
#define RESET_PADS_BANK0 (1u << 9)
#define RESET_PLL_SYS (1u << 14)
#define RESET_UART0 (1u << 26)
#endif
#define CLK_REF_CTRL (CLOCKS + 0x30u)
#define CLK_REF_SELECTED (CLOCKS + 0x38u)
#define CLK_SYS_CTRL (CLOCKS + 0x3Cu)
#define CLK_SYS_SELECTED (CLOCKS + 0x44u)
#define CLK_PERI_CTRL (CLOCKS + 0x48u)
#define RESETS_RESET (RESETS + 0x0u)
#define RESETS_DONE (RESETS + 0x8u)
#define XOSC_CTRL (XOSC + 0x0u)
#define XOSC_STATUS (XOSC + 0x4u)
#define XOSC_STARTUP (XOSC + 0xCu)
#define PLL_CS (PLL_SYS + 0x0u)
#define PLL_PWR (PLL_SYS + 0x4u)
#define PLL_FBDIV (PLL_SYS + 0x8u)
#define PLL_PRIM (PLL_SYS + 0xCu)
#define IO_BANK0_GPIO0_CTRL (IO_BANK0 + 0x4u)
#define UART_DR (UART0 + 0x00u)
#define UART_FR (UART0 + 0x18u)
#define UART_IBRD (UART0 + 0x24u)
#define UART_FBRD (UART0 + 0x28u)
#define UART_LCR_H (UART0 + 0x2Cu)
#define UART_CR (UART0 + 0x30u)
#define SET_BITS(addr) REG((addr) + 0x2000u)
#define CLEAR_BITS(addr) REG((addr) + 0x3000u)

static void unreset(uint32_t mask, const char *what)
{
    CLEAR_BITS(RESETS_RESET) = mask;
    wait_bits(RESETS_DONE, mask, mask, what);
}

static void clock_init(void)
{
    REG(XOSC_CTRL) = 0xAA0u; /* FREQ_RANGE 1-15 MHz */
    REG(XOSC_STARTUP) = 47u; /* (12 MHz x 1 ms) / 256 */
    REG(XOSC_CTRL) = (0xFABu << 12) | 0xAA0u; /* ENABLE */
    wait_bits(XOSC_STATUS, 1u << 31, 1u << 31, "XOSC STATUS.STABLE");
    REG(CLK_REF_CTRL) = 2u; /* SRC = xosc_clksrc */
    wait_bits(CLK_REF_SELECTED, 7u, 1u << 2, "CLK_REF_SELECTED = XOSC");
    unreset(RESET_PLL_SYS, "RESET_DONE.PLL_SYS");
    REG(PLL_FBDIV) = 125u;
    CLEAR_BITS(PLL_PWR) = (1u << 0) | (1u << 5); /* PD, VCOPD off */
    wait_bits(PLL_CS, 1u << 31, 1u << 31, "PLL_SYS CS.LOCK");
    REG(PLL_PRIM) = (POSTDIV1 << 16) | (2u << 12);
    CLEAR_BITS(PLL_PWR) = 1u << 3; /* POSTDIVPD off */
    REG(CLK_SYS_CTRL) = (0u << 5) /* AUXSRC = pll_sys */ | 1u /* SRC = aux */;
    wait_bits(CLK_SYS_SELECTED, 3u, 1u << 1, "CLK_SYS_SELECTED = aux");
    SET_BITS(CLK_PERI_CTRL) = 1u << 11; /* ENABLE, AUXSRC = clk_sys (its reset value, 0) */
}

static void uart_init(void)
{
    unreset(RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_UART0, "RESET_DONE.UART0");
    REG(IO_BANK0_GPIO0_CTRL) = 2u; /* GPIO0 = UART0 TX */
    /* Baud divisor = clk_peri / (16 x 115200): integer part, then the fraction in 64ths. */
    REG(UART_IBRD) = SYSCLK / (16u * 115200u);
    REG(UART_FBRD) = (SYSCLK % (16u * 115200u)) * 64u / (16u * 115200u);
    REG(UART_LCR_H) = (3u << 5) | (1u << 4); /* 8 bits, FIFOs on */
    REG(UART_CR) = (1u << 8) | 1u;           /* TXE, UARTEN */
}

static void uart_putc(char c)
{
    wait_bits(UART_FR, 1u << 5, 0, "UART0 FR.TXFF clear");
    REG(UART_DR) = (uint8_t)c;
}

static void uart_flush(void)
{
    wait_bits(UART_FR, 1u << 3, 0, "UART0 FR.BUSY clear");
}

static void report(void)
{
    puts_("clock_tree: " BOARD_NAME " PLL_SYS ");
    put_dec(SYSCLK);
    puts_(" Hz, CLK_SYS_SELECTED=");
    put_hex(REG(CLK_SYS_SELECTED));
    puts_(" PLL_SYS.CS=");
    put_hex(REG(PLL_CS));
    puts_(" PLL_SYS.PWR=");
    put_hex(REG(PLL_PWR));
    puts_(" CLK_PERI_CTRL=");
    put_hex(REG(CLK_PERI_CTRL));
    puts_("\n");
}

/* ------------------------------------------------------------------------------------------ */
/* ------------------------------------------------------------------------------------------ */
#elif defined(BOARD_MPS2_AN386) || defined(BOARD_MPS2_AN500)
/* Arm MPS2 FPGA images: fixed clocks (no clock tree); CMSDK APB UART0 at 0x40004000 (Arm DDI 0479
 * "APB UART": DATA +0, STATE +4 bit 0 TX full, CTRL +8 bit 0 TX enable, BAUDDIV +0x10). */
#if defined(BOARD_MPS2_AN386)
#define BOARD_NAME "mps2-an386"
#else
#define BOARD_NAME "mps2-an500"
#endif
#define UART0 0x40004000u
static void clock_init(void) {}
static void uart_init(void)
{
    REG(UART0 + 0x10u) = 16u;
    REG(UART0 + 0x8u) |= 1u;
}
static void uart_putc(char c)
{
    wait_bits(UART0 + 0x4u, 1u, 0, "UART0 STATE.TXFULL clear");
    REG(UART0) = (uint8_t)c;
}
static void uart_flush(void) {}
static void report(void) { puts_("clock_tree: " BOARD_NAME " (fixed FPGA clocks)\n"); }

#else
#error "clock_tree: no clock tree for this board"
#endif

static void finish(void)
{
    if (failed) {
        puts_("clock_tree: timeout waiting for ");
        puts_(failed);
        puts_("\n");
    } else {
        puts_("clock_tree: every ready bit seen\n");
    }
    uart_flush();
    semihost_exit(failed ? 1 : 0);
}

int main(void)
{
    clock_init();
    uart_init();
    report();
    finish();
}
