/*
 * tigris-sim calibration: CoreMark's timing and init hooks for tigris-sim's Cortex-M boards.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * start_time/stop_time read a cycle counter, as the published runs read a timer around the same
 * call (core_main.c: start_time() just before iterate(), stop_time() just after):
 *   - ARMv7-M (Cortex-M4, M7): DWT_CYCCNT (ARMv7-M ARM C1.8.8, 0xE0001004), enabled through
 *     DEMCR.TRCENA and DWT_CTRL.CYCCNTENA; the Cortex-M7 DWT is unlocked first through DWT_LAR
 *     (Cortex-M7 TRM, CoreSight lock access);
 *   - ARMv6-M (Cortex-M0+, COREMARK_SYSTICK): it has no cycle counter, so SysTick (ARMv6-M ARM
 *     B3.3) counts core cycles down from 0xFFFFFF and its interrupt counts the wraps (one every
 *     16.8 M cycles; the published Pico run read the 1 MHz TIMER instead, an equivalent clock);
 *   - Xtensa (COREMARK_CCOUNT): CCOUNT (the published ESP32 runs read Arduino's millis()).
 * stop_time prints "coremark cycles N iterations I"; scripts/accuracy.sh divides.
 */
#include <stdio.h>

#include "coremark.h"

#if !defined(ITERATIONS) || !defined(CLOCK_HZ)
#error "build with -DITERATIONS=N -DCLOCK_HZ=F"
#endif

volatile ee_s32 seed1_volatile = 0x0;   /* the performance run's seeds (CoreMark README.md) */
volatile ee_s32 seed2_volatile = 0x0;
volatile ee_s32 seed3_volatile = 0x66;
volatile ee_s32 seed4_volatile = ITERATIONS;
volatile ee_s32 seed5_volatile = 0;

ee_u32 default_num_contexts = 1;

#define REG(a) (*(volatile uint32_t *)(a))

#ifdef COREMARK_SYSTICK
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
static volatile uint32_t systick_wraps;

void SysTick_Handler(void)
{
    systick_wraps++;
}

static uint64_t cycles_now(void)
{
    uint32_t wraps, value;
    do {
        wraps = systick_wraps;
        value = SYST_CVR;
    } while (wraps != systick_wraps);
    return ((uint64_t)wraps << 24) + (0xFFFFFFu - value);
}

static void counter_init(void)
{
    SYST_CSR = 0;
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 7u;   /* ENABLE, TICKINT, CLKSOURCE = processor clock */
}
#elif defined(COREMARK_CCOUNT)
/* Xtensa: CCOUNT counts core clocks (Xtensa ISA RM, special register 234); a run stays below 2^32
 * cycles (scripts/accuracy.sh picks ITERATIONS). */
static uint64_t cycles_now(void)
{
    uint32_t c;
    __asm__ volatile("rsr %0, ccount" : "=a"(c));
    return c;
}

static void counter_init(void)
{
}
#else
#define DEMCR REG(0xE000EDFCu)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CYCCNT REG(0xE0001004u)
#define DWT_LAR REG(0xE0001FB0u)
static uint64_t cycles_now(void)
{
    return DWT_CYCCNT;   /* runs stay below 2^32 cycles (scripts/accuracy.sh picks ITERATIONS) */
}

static void counter_init(void)
{
    DEMCR |= 1u << 24;   /* TRCENA */
    DWT_LAR = 0xC5ACCE55u;
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;      /* CYCCNTENA */
}
#endif

static uint64_t start_cycles, elapsed_cycles;

void start_time(void)
{
    start_cycles = cycles_now();
}

void stop_time(void)
{
    elapsed_cycles = cycles_now() - start_cycles;
    /* newlib-nano's printf has no %llu: the runs stay below 2^32 cycles (scripts/accuracy.sh). */
    if (elapsed_cycles >> 32)
        printf("coremark cycles overflow\n");
    else
        printf("coremark cycles %lu iterations %lu\n", (unsigned long)elapsed_cycles,
               (unsigned long)ITERATIONS);
}

CORE_TICKS get_time(void)
{
    return (CORE_TICKS)elapsed_cycles;
}

/* Whole seconds at the simulated clock (HAS_FLOAT is 0); CoreMark prints its "run for at least
 * 10 s" notice for shorter runs, which these are: the cells compare cycles per iteration. */
secs_ret time_in_secs(CORE_TICKS ticks)
{
    return ticks / (CLOCK_HZ);
}

void portable_init(core_portable *p, int *argc, char *argv[])
{
    (void)argc;
    (void)argv;
    counter_init();
    p->portable_id = 1;
}

void portable_fini(core_portable *p)
{
    p->portable_id = 0;
}
