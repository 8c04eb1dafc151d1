/*
 * tigris-sim timing benchmarks: driver.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Prints one line per benchmark:
 *     BENCH <name> <cycles> <count>
 * <cycles> is the cost of the measured sequence: the counter difference
 * minus that of the empty frame (`BENCH empty <cycles> 0` prints the raw
 * empty frame itself); <count> is the number of measured instructions.
 * Every benchmark is run twice and the second (warm) run is reported,
 * except flash_fetch_flash / flash_fetch_sram, which run once (cold).
 *
 * Cycle counter:
 *   DWT_CYCCNT 0xE0001004 (ARMv7-M ARM C1.8): enable trace with
 *   DEMCR 0xE000EDFC bit 24 (TRCENA), then DWT_CTRL 0xE0001000 bit 0
 *   (CYCCNTENA).  On the Cortex-M7 the DWT has a software lock: write
 *   0xC5ACCE55 to DWT_LAR 0xE0001FB0 first (CoreSight lock access).
 *   rp2040 (Cortex-M0+, no DWT): SysTick, SYST_RVR 0xE000E014 = 0xFFFFFF,
 *   SYST_CVR 0xE000E018 (counts down), SYST_CSR 0xE000E010 = 5
 *   (CLKSOURCE = processor clock, ENABLE, no interrupt) (ARMv6-M ARM B3.3).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define DEMCR      REG(0xE000EDFCu)
#define DWT_CTRL   REG(0xE0001000u)
#define DWT_CYCCNT REG(0xE0001004u)
#define DWT_LAR    REG(0xE0001FB0u)
#define SYST_CSR   REG(0xE000E010u)
#define SYST_RVR   REG(0xE000E014u)
#define SYST_CVR   REG(0xE000E018u)

#if defined(__ARM_ARCH_6M__)
#define USE_SYSTICK 1
#endif

typedef uint32_t (*bench_fn)(const volatile uint32_t *counter, uint32_t *buf);

#define DECL(name) uint32_t bench_##name(const volatile uint32_t *counter, uint32_t *buf)
DECL(empty);
DECL(ldr_independent);
DECL(ldr_dependent);
DECL(branch_taken);
DECL(bcond_taken);
DECL(bcond_not_taken);
DECL(nop);
DECL(mul);
#if __ARM_ARCH_ISA_THUMB >= 2
DECL(udiv_small);
DECL(udiv_large);
/* bench_pipe.S */
DECL(alu_pairs);
DECL(ldr_use);
DECL(ldrb_use);
DECL(mac_chain);
DECL(mac_after_load);
DECL(branch_pairs);
DECL(branch_unaligned);
DECL(wide_unaligned);
DECL(ldr_two_blocks);
DECL(flash_dcache_hit);
DECL(flash_dcache_miss);
#endif
#ifdef BOARD_STM32F446RE
DECL(flash_fetch_flash);
DECL(flash_fetch_sram);
DECL(empty_sram);
#endif

/* Data for the load benchmarks; buf[0] points to itself (pointer chase). */
static uint32_t buf[64] __attribute__((aligned(8)));

static const volatile uint32_t *counter_init(void)
{
#ifdef USE_SYSTICK
    SYST_CSR = 0;
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;                 /* any write clears it; reloads on the next tick */
    SYST_CSR = 5u;
    return &SYST_CVR;
#else
    DEMCR |= 1u << 24;            /* TRCENA */
#if defined(CORE_CORTEX_M7)      /* set by build.sh */
    DWT_LAR = 0xC5ACCE55u;        /* Cortex-M7: unlock the DWT */
#endif
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;               /* CYCCNTENA */
    return &DWT_CYCCNT;
#endif
}

static uint32_t to_cycles(uint32_t raw)
{
#ifdef USE_SYSTICK
    return (0u - raw) & 0xFFFFFFu;    /* start - end of a 24-bit down-counter */
#else
    return raw;
#endif
}

static const volatile uint32_t *cnt;

static uint32_t measure(bench_fn fn, int runs)
{
    uint32_t raw = 0;
    for (int i = 0; i < runs; i++)
        raw = fn(cnt, buf);
    return to_cycles(raw);
}

static void report(const char *name, uint32_t cycles, uint32_t overhead, uint32_t count)
{
    printf("BENCH %s %" PRId32 " %" PRIu32 "\n", name, (int32_t)(cycles - overhead), count);
}

struct bench {
    const char *name;
    bench_fn fn;
    uint32_t count;
};

static const struct bench benches[] = {
    { "ldr_independent", bench_ldr_independent, 32 },
    { "ldr_dependent", bench_ldr_dependent, 32 },
    { "branch_taken", bench_branch_taken, 32 },
    { "bcond_taken", bench_bcond_taken, 32 },
    { "bcond_not_taken", bench_bcond_not_taken, 32 },
#if __ARM_ARCH_ISA_THUMB >= 2
    { "udiv_small", bench_udiv_small, 32 },
    { "udiv_large", bench_udiv_large, 32 },
    { "alu_pairs", bench_alu_pairs, 64 },
    { "ldr_use", bench_ldr_use, 64 },
    { "ldrb_use", bench_ldrb_use, 64 },
    { "mac_chain", bench_mac_chain, 32 },
    { "mac_after_load", bench_mac_after_load, 32 },
    { "branch_pairs", bench_branch_pairs, 64 },
    { "branch_unaligned", bench_branch_unaligned, 64 },
    { "wide_unaligned", bench_wide_unaligned, 40 },
    { "ldr_two_blocks", bench_ldr_two_blocks, 32 },
    { "flash_dcache_hit", bench_flash_dcache_hit, 32 },
    { "flash_dcache_miss", bench_flash_dcache_miss, 32 },
#endif
    { "nop", bench_nop, 64 },
    { "mul", bench_mul, 32 },
};

int main(void)
{
    for (uint32_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
        buf[i] = 0x1000u + i;
    buf[0] = (uint32_t)(uintptr_t)buf;

    cnt = counter_init();
    uint32_t empty = measure(bench_empty, 2);
    report("empty", empty, 0, 0);
    for (uint32_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        report(benches[i].name, measure(benches[i].fn, 2), empty, benches[i].count);

#ifdef BOARD_STM32F446RE
    /* Called through volatile pointers: the SRAM copies are out of BL range
     * from flash, and the calls must not be inlined or reordered. */
    bench_fn volatile f_flash = bench_flash_fetch_flash;
    bench_fn volatile f_sram = bench_flash_fetch_sram;
    bench_fn volatile f_empty_sram = bench_empty_sram;
    uint32_t empty_sram = measure(f_empty_sram, 2);
    report("empty_sram", empty_sram, 0, 0);
    report("flash_fetch_flash", measure(f_flash, 1), empty, 512);
    report("flash_fetch_sram", measure(f_sram, 1), empty_sram, 512);
#endif
    return 0;
}
