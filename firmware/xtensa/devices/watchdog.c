/* The timer group's main-system watchdog (tigris-sim, GPL-2.0-or-later). TIMG1's MWDT counts APB
 * 80 MHz / 40000 = 2 kHz (0.5 ms a tick): stage 0 (20 ticks, 10 ms) raises its interrupt status,
 * stage 1 (10 ticks, 5 ms more) resets the system. The program feeds it three times, 4 ms apart,
 * locks its registers again and tries to switch it off (the locked write is ignored), then waits
 * for stage 0's status bit and spins until stage 1 resets the chip: 12 + 10 + 5 = 27 ms after the
 * start, give or take the set-up. Register facts: ESP32-S3 TRM §13 and ESP32 TRM §19 (watchdog
 * timers), offsets as ESP-IDF's timer_group_reg.h. */
#include <stdint.h>

#if defined(BOARD_ESP32)
#define TIMG1 0x3FF60000
#define INT_RAW (TIMG1 + 0x9C)
#else
#define TIMG1 0x60020000
#define INT_RAW (TIMG1 + 0x74)
#endif
#define WDTCONFIG0 (TIMG1 + 0x48)
#define WDTCONFIG1 (TIMG1 + 0x4C)
#define WDTCONFIG2 (TIMG1 + 0x50)
#define WDTCONFIG3 (TIMG1 + 0x54)
#define WDTFEED (TIMG1 + 0x60)
#define WDTWPROTECT (TIMG1 + 0x64)
#define WKEY 0x50D83AA1u
#define WDT_EN (1u << 31)
#define STG0_INTERRUPT (1u << 29)
#define STG1_RESET_SYSTEM (3u << 27)
#define WDT_INT (1u << 2)
#define CYCLES_PER_MS 240000u /* the boards' 240 MHz core clock */

#define REG(a) (*(volatile uint32_t *)(a))

volatile uint32_t stage0_at;

static uint32_t ccount(void)
{
    uint32_t c;
    __asm__ volatile("rsr %0, ccount" : "=r"(c));
    return c;
}

static void wait_ms(uint32_t ms)
{
    uint32_t start = ccount();
    while (ccount() - start < ms * CYCLES_PER_MS) {
    }
}

int main(void)
{
    REG(WDTWPROTECT) = WKEY;
    REG(WDTCONFIG1) = 40000u << 16;
    REG(WDTCONFIG2) = 20;
    REG(WDTCONFIG3) = 10;
    REG(WDTCONFIG0) = WDT_EN | STG0_INTERRUPT | STG1_RESET_SYSTEM;
    for (int i = 0; i < 3; i++) {
        wait_ms(4);
        REG(WDTFEED) = 1;
    }
    REG(WDTWPROTECT) = 0;
    REG(WDTCONFIG0) = 0; /* locked: ignored */
    while (!(REG(INT_RAW) & WDT_INT)) {
    }
    stage0_at = ccount();
    for (;;) {
    }
}
