/*
 * tigris-sim literal-load microbenchmark (ESP32-S3, ESP32): times the L32R loop of literals.S from
 * internal RAM and from the flash instruction window with CCOUNT, cold (first call) and warm.
 * One line per measurement:
 *
 *   litbench <iram|flash> run=<cold|warm> n=<iterations> cycles=<n> sum=<n>
 *
 * The sum is n x 0x2424 (the eight literals added up); a wrong sum ends the program with exit code 1.
 * sim/tests/memory.rs compares the cycles and the per-function cache counters with the equations of
 * docs/memory-models.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

uint32_t lit_loop_iram(uint32_t n);
uint32_t lit_loop_flash(uint32_t n);

static inline uint32_t ccount(void)
{
    uint32_t v;
    __asm__ volatile("rsr.ccount %0" : "=a"(v));
    return v;
}

static int measure(const char *where, uint32_t (*kernel)(uint32_t), const char *run, uint32_t n)
{
    uint32_t t0 = ccount();
    uint32_t sum = kernel(n);
    uint32_t t1 = ccount();
    printf("litbench %s run=%s n=%" PRIu32 " cycles=%" PRIu32 " sum=%" PRIu32 "\n", where, run, n,
           t1 - t0, sum);
    return sum == n * 0x2424u ? 0 : 1;
}

int main(void)
{
    int bad = 0;
    static const struct {
        const char *where;
        uint32_t (*kernel)(uint32_t);
    } kernels[] = {{"iram", lit_loop_iram}, {"flash", lit_loop_flash}};
    for (unsigned k = 0; k < 2; k++) {
        bad |= measure(kernels[k].where, kernels[k].kernel, "cold", 100);
        bad |= measure(kernels[k].where, kernels[k].kernel, "warm", 100);
        bad |= measure(kernels[k].where, kernels[k].kernel, "warm", 1000);
    }
    printf("litbench done\n");
    return bad;
}
