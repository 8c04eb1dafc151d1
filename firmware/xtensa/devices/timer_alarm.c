/* Timer-group alarm interrupts (tigris-sim, GPL-2.0-or-later). TIMG0 timer 0 counts APB 80 MHz / 80
 * = 1 MHz; its alarm at 1000 counts auto-reloads the count, so it fires every 1 ms. The interrupt
 * matrix routes the timer's level source to CPU interrupt 1 (level 1); the handler (below, entered
 * from the kernel exception vector, start_windowed.S -DKERNEL_HANDLER) counts, clears the raw
 * status and re-arms the alarm. The program sleeps in WAITI until five interrupts came and returns
 * their count (the exit code). Register facts: ESP32-S3 TRM §12 (TIMG) and §9 (interrupt matrix), ESP32 TRM §18 and
 * §7; source numbers: ESP-IDF components/soc/<chip>/include/soc/interrupts.h. */
#include "level1.h"

#if defined(BOARD_ESP32)
#define TIMG0 0x3FF5F000
#define INT_ENA (TIMG0 + 0x98)
#define INT_CLR (TIMG0 + 0xA4)
#define TIMER_MAP (0x3FF00104 + 4 * 14) /* DPORT PRO map of TG0_T0_LEVEL (source 14) */
#else
#define TIMG0 0x6001F000
#define INT_ENA (TIMG0 + 0x70)
#define INT_CLR (TIMG0 + 0x7C)
#define TIMER_MAP (0x600C2000 + 4 * 50) /* core 0 map of TG0_T0_LEVEL (source 50) */
#endif
#define T0CONFIG (TIMG0 + 0x00)
#define T0ALARMLO (TIMG0 + 0x10)
#define T0ALARMHI (TIMG0 + 0x14)
#define T0LOADLO (TIMG0 + 0x18)
#define T0LOADHI (TIMG0 + 0x1C)
#define T0LOAD (TIMG0 + 0x20)
/* T0CONFIG: EN (bit 31), INCREASE (30), AUTORELOAD (29), DIVIDER = 80 (bits 28:13); ALARM_EN (10).
 * Plain numbers: the handler's assembly uses them too. */
#define CONFIG 0xE00A0000
#define ALARM_EN 0x400
#define CPU_INTERRUPT 1
#define WANTED 5

/* Count, clear the status, re-arm. */
LEVEL1_HANDLER(tg_level1_interrupt,
               "    movi    a3, " XSTR(INT_CLR) "\n"
               "    movi    a4, 1\n"
               "    s32i    a4, a3, 0\n"
               "    movi    a3, " XSTR(T0CONFIG) "\n"
               "    movi    a4, " XSTR(CONFIG) " + " XSTR(ALARM_EN) "\n"
               "    s32i    a4, a3, 0\n");

int main(void)
{
    REG(TIMER_MAP) = CPU_INTERRUPT;
    REG(T0LOADLO) = 0;
    REG(T0LOADHI) = 0;
    REG(T0LOAD) = 1;
    REG(T0ALARMLO) = 1000;
    REG(T0ALARMHI) = 0;
    REG(INT_ENA) = 1;
    REG(T0CONFIG) = CONFIG | ALARM_EN;
    uint32_t count = sleep_until_interrupts(CPU_INTERRUPT, WANTED);
    REG(T0CONFIG) = 0;
    return (int)count;
}
