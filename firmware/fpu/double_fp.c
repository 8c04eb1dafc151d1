/*
 * double_fp: IEEE 754 double precision as the Cortex-M7's FPv5-D16 computes it (vadd/vsub/vmul/
 * vdiv/vfma/vsqrt.f64, vcvt between f64, f32 and integers, vcmp with NaN, the four FPSCR rounding
 * modes). Every result is printed as its bit pattern, so the firmware matches the same C built for
 * the host bit for bit. Operands are volatile and -frounding-math keeps the compiler from folding
 * anything at build time.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Rounding modes: FPSCR.RMode (bits 23:22) on the Cortex-M (ARMv7-M ARM A2.5.3: 0 nearest,
 * 1 towards +inf, 2 towards -inf, 3 towards zero; newlib has no fenv.h modes for it), fesetround on
 * the host. */
enum { NEAREST, UPWARD, DOWNWARD, TOWARDZERO };
#if defined(__arm__)
static void set_rounding(unsigned mode)
{
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    fpscr = (fpscr & ~(3u << 22)) | (mode << 22);
    __asm__ volatile("vmsr fpscr, %0" : : "r"(fpscr) : "memory");
}
#else
#include <fenv.h>
static void set_rounding(unsigned mode)
{
    static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    fesetround(modes[mode]);
}
#endif

static void show(const char *what, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    printf("%-12s %08" PRIx32 "%08" PRIx32 "\n", what, (uint32_t)(u >> 32), (uint32_t)u);
}

static void show_f(const char *what, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    printf("%-12s %08" PRIx32 "\n", what, u);
}

static volatile double a = 1.0 / 3.0, b = 2.718281828459045, c = -1.0e-300, big = 1.0e308;
static volatile double third_bits = 0.1, nan_v, zero = 0.0;
static volatile float fl = 3.14159274f;
static volatile int32_t si = -123456789;
static volatile uint32_t ui = 4000000000u;

static void arithmetic(const char *mode)
{
    printf("mode %s\n", mode);
    show("add", a + b);
    show("sub", a - b);
    show("mul", a * b);
    show("div", b / a);
    show("div_tiny", c / big);
    show("fma", fma(a, b, c));
    show("fma_exact", fma(a, 3.0, -1.0));
    show("sqrt", sqrt(b));
    show("overflow", big * 10.0);
    show_f("to_float", (float)a);
    printf("%-12s %" PRId32 "\n", "to_int", (int32_t)(b * -1000.5));
}

int main(void)
{
    nan_v = zero / zero;
    arithmetic("nearest");
    show("from_float", (double)fl);
    show("from_int", (double)si);
    show("from_uint", (double)ui);
    printf("%-12s %" PRIu32 "\n", "to_uint", (uint32_t)(b * 1.0e9));
    printf("%-12s %d %d %d %d\n", "compare", a < b, a == a, nan_v == nan_v, nan_v < a);
    printf("%-12s %d\n", "isnan", isnan(nan_v + a) != 0);
    static const char *const names[] = {"nearest", "upward", "downward", "towardzero"};
    for (unsigned mode = UPWARD; mode <= TOWARDZERO; mode++) {
        set_rounding(mode);
        arithmetic(names[mode]);
    }
    set_rounding(NEAREST);
    return 0;
}
