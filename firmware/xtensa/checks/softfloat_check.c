/*
 * softfloat_check: IEEE 754 binary32/binary64 arithmetic, conversions, comparisons, sqrt and
 * decimal conversions (printf %e/%g/%f, strtod) on deterministic inputs, checked two ways:
 *  - PASS/FAIL lines for results whose bit patterns follow from the IEEE 754 rules by hand;
 *  - per-operation hashes of the result bits over ~1000 pseudo-random operand pairs (random bit
 *    patterns, subnormals, huge and tiny values, values near 1, signed zeros, infinities, NaNs).
 * Built for the host too (firmware/build.sh): its output is the expected output, so a hash that
 * differs names the operation that rounds differently from the host's hardware. NaN results are
 * hashed as one value (their payload and sign depend on operand order, which compilers may swap).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng = 0x9E3779B9u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double bitsd(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static uint32_t gen32(void)
{
    static const uint32_t special[] = { 0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 1,
                                        0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x3F800000u, 0xBF800000u,
                                        0x3F7FFFFFu, 0x4B000000u, 0x3F800001u };
    uint32_t r = next(), x = next();
    switch (r % 8) {
    case 0: return x;
    case 1: return (x & 0x807FFFFFu) | ((r >> 8) % 8) << 23;            /* subnormal and tiny */
    case 2: return (x & 0x807FFFFFu) | (0xF8u + (r >> 8) % 7) << 23;    /* huge */
    case 3: return (x & 0x80000000u) | ((r >> 8) & 7) | 127u << 23;     /* near 1 */
    case 4: return special[(r >> 8) % (sizeof special / sizeof special[0])];
    case 5: return (x & 0x80FFFFFFu) | (120u + (r >> 8) % 16) << 23;
    case 6: return x & 0xFFFFF000u;                                     /* short significands */
    default: return (x & 0x807FFFFFu) | (100u + (r >> 8) % 50) << 23;
    }
}

static uint64_t gen64(void)
{
    static const uint64_t special[] = { 0, 0x8000000000000000ull, 0x7FF0000000000000ull,
                                        0xFFF0000000000000ull, 0x7FF8000000000000ull, 1,
                                        0x800FFFFFFFFFFFFFull, 0x0010000000000000ull,
                                        0x7FEFFFFFFFFFFFFFull, 0x3FF0000000000000ull,
                                        0xBFF0000000000000ull, 0x3FEFFFFFFFFFFFFFull };
    uint32_t r = next();
    uint64_t x = (uint64_t)next() << 32 | next();
    switch (r % 8) {
    case 0: return x;
    case 1: return (x & 0x800FFFFFFFFFFFFFull) | (uint64_t)((r >> 8) % 8) << 52;
    case 2: return (x & 0x800FFFFFFFFFFFFFull) | (uint64_t)(0x7F8u + (r >> 8) % 7) << 52;
    case 3: return (x & 0x8000000000000000ull) | ((r >> 8) & 7) | 1023ull << 52;
    case 4: return special[(r >> 8) % (sizeof special / sizeof special[0])];
    case 5: return (x & 0x801FFFFFFFFFFFFFull) | (uint64_t)(1015u + (r >> 8) % 16) << 52;
    case 6: return x & 0xFFFFFFFFFF000000ull;
    default: return (x & 0x800FFFFFFFFFFFFFull) | (uint64_t)(900u + (r >> 8) % 250) << 52;
    }
}

/* FNV-1a over 32-bit words; NaNs hash as one value */
static void mix(uint32_t *h, uint32_t v) { *h = (*h ^ v) * 16777619u; }
static void mix32(uint32_t *h, float f) { mix(h, f != f ? 0x7FC00000u : fbits(f)); }
static void mix64(uint32_t *h, double d)
{
    uint64_t u = d != d ? 0x7FF8000000000000ull : dbits(d);
    mix(h, (uint32_t)u);
    mix(h, (uint32_t)(u >> 32));
}

static int failures;
static void check(const char *what, int ok)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
}

#define N 1000

static void hashes(void)
{
    enum { ADD, SUB, MUL, DIV, SQRT, CMP, CVT, NOPS };
    static const char *const names[NOPS] = { "add", "sub", "mul", "div", "sqrt", "compare", "convert" };
    uint32_t h32[NOPS], h64[NOPS];
    for (int i = 0; i < NOPS; i++)
        h32[i] = h64[i] = 2166136261u;
    for (int i = 0; i < N; i++) {
        float a = bitsf(gen32()), b = bitsf(gen32());
        mix32(&h32[ADD], a + b);
        mix32(&h32[SUB], a - b);
        mix32(&h32[MUL], a * b);
        mix32(&h32[DIV], a / b);
        mix32(&h32[SQRT], sqrtf(a));
        mix(&h32[CMP], (uint32_t)((a < b) | (a <= b) << 1 | (a > b) << 2 | (a >= b) << 3 | (a == b) << 4 |
                                  (a != b) << 5 | (a != a) << 6));
        mix64(&h32[CVT], (double)a);
        if (a == a && fabsf(a) < 2.0e9f)
            mix(&h32[CVT], (uint32_t)(int32_t)a);
        int32_t n = (int32_t)next() >> (next() % 32);
        mix32(&h32[CVT], (float)n);
        mix32(&h32[CVT], (float)(uint32_t)n);

        double x = bitsd(gen64()), y = bitsd(gen64());
        mix64(&h64[ADD], x + y);
        mix64(&h64[SUB], x - y);
        mix64(&h64[MUL], x * y);
        mix64(&h64[DIV], x / y);
        mix64(&h64[SQRT], sqrt(x));
        mix(&h64[CMP], (uint32_t)((x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 |
                                  (x != y) << 5 | (x != x) << 6));
        mix32(&h64[CVT], (float)x);
        if (x == x && fabs(x) < 2.0e9)
            mix(&h64[CVT], (uint32_t)(int32_t)x);
        mix64(&h64[CVT], (double)n);
        mix64(&h64[CVT], (double)(uint32_t)n);
    }
    for (int i = 0; i < NOPS; i++)
        printf("hash float  %-8s %d ops: 0x%08" PRIX32 "\n", names[i], N, h32[i]);
    for (int i = 0; i < NOPS; i++)
        printf("hash double %-8s %d ops: 0x%08" PRIX32 "\n", names[i], N, h64[i]);
}

/* printf %.17g of random finite doubles read back with strtod gives the same bits (17 significant
 * digits identify a binary64); the printed text is hashed too, and so are %e %f %g of them. */
static void decimal(void)
{
    uint32_t htext = 2166136261u;
    int same = 0, total = 0;
    char buf[64];
    for (int i = 0; i < 200; i++) {
        double x = bitsd(gen64());
        if (x != x || x - x != 0.0)
            continue;
        total++;
        int n = snprintf(buf, sizeof buf, "%.17g", x);
        for (int k = 0; k < n; k++)
            mix(&htext, (unsigned char)buf[k]);
        same += dbits(strtod(buf, NULL)) == dbits(x);
        n = snprintf(buf, sizeof buf, "%.6e|%.3g|%.2f", x, x, fabs(x) < 1e30 ? x : 0.0);
        for (int k = 0; k < n; k++)
            mix(&htext, (unsigned char)buf[k]);
        float f = (float)x;
        if (f - f == 0.0f) {
            snprintf(buf, sizeof buf, "%.9g", (double)f);
            same += fbits(strtof(buf, NULL)) == fbits(f);
            total++;
        }
    }
    printf("decimal: %d of %d round trips exact, text hash 0x%08" PRIX32 "\n", same, total, htext);
}

static void rules(void)
{
    volatile float f1 = 0.1f, f2 = 0.2f, fz = 0.0f, fbig = 3.0e38f, fmin = 1.17549435e-38f;
    volatile double d1 = 0.1, d2 = 0.2, dz = 0.0, dbig = 1.0e308, three = 3.0;
    /* 0.1f = 0x3DCCCCCD, 0.2f = 0x3E4CCCCD; the exact sum 0x3E99999A.0 (after alignment) is representable */
    check("0.1f + 0.2f = 0x3E99999A", fbits(f1 + f2) == 0x3E99999Au);
    /* binary64: 0.1 + 0.2 = 0.30000000000000004 (0x3FD3333333333334), one ulp above 0.3 */
    check("0.1 + 0.2 = 0x3FD3333333333334", dbits(d1 + d2) == 0x3FD3333333333334ull);
    check("1/3 = 0x3FD5555555555555 (round down)", dbits(1.0 / three) == 0x3FD5555555555555ull);
    check("2/3 = 0x3FE5555555555555 (round down)", dbits(2.0 / three) == 0x3FE5555555555555ull);
    check("x - x = +0", dbits(d1 - d1) == 0);
    check("-0 + -0 = -0", dbits(-dz + -dz) == 0x8000000000000000ull);
    check("-0 * 5 = -0", fbits(-fz * 5.0f) == 0x80000000u);
    check("1e308 * 10 = +inf", dbits(dbig * 10.0) == 0x7FF0000000000000ull);
    check("3e38f * 2 = +inf", fbits(fbig * 2.0f) == 0x7F800000u);
    check("1/0 = +inf, -1/0 = -inf", dbits(1.0 / dz) == 0x7FF0000000000000ull && dbits(-1.0 / dz) == 0xFFF0000000000000ull);
    check("0/0 is NaN", (dz / dz) != (dz / dz));
    check("inf - inf is NaN", (1.0 / dz - 1.0 / dz) != (1.0 / dz - 1.0 / dz));
    check("FLT_MIN / 4 = 0x00200000 (exact subnormal)", fbits(fmin / 4.0f) == 0x00200000u);
    /* 2^-149 * 0.5 is a tie between 0 and 2^-149: to even gives +0; * 0.75 rounds up to 2^-149 */
    check("2^-149 * 0.5 = +0, * 0.75 = 2^-149", fbits(bitsf(1) * 0.5f) == 0 && fbits(bitsf(1) * 0.75f) == 1);
    /* 1 + 2^-24 is a tie between 1 and 1 + 2^-23: to even gives 1; 1 + 3*2^-24 gives 1 + 2^-22 */
    check("1 + 2^-24 = 1, 1 + 3*2^-24 = 1 + 2^-22 (ties to even)",
          fbits(1.0f + bitsf(0x33800000u)) == 0x3F800000u && fbits(1.0f + bitsf(0x34400000u)) == 0x3F800002u);
    check("sqrt(2) = 0x3FF6A09E667F3BCD", dbits(sqrt(2.0 * (d1 * 10.0))) == 0x3FF6A09E667F3BCDull);
    check("sqrtf(2) = 0x3FB504F3", fbits(sqrtf(2.0f * (f1 * 10.0f))) == 0x3FB504F3u);
    check("sqrt(-1) is NaN, sqrt(-0) = -0", sqrt(-three) != sqrt(-three) && dbits(sqrt(-dz)) == 0x8000000000000000ull);
    check("(float)0.1 = 0x3DCCCCCD", fbits((float)d1) == 0x3DCCCCCDu);
    check("(int)-2.9 = -2, (int)2.9f = 2", (int)(-2.9 * (d1 * 10.0)) == -2 && (int)(2.9f * (f1 * 10.0f)) == 2);
    check("(double)16777217 = 16777217, (float)16777217 = 16777216",
          (double)(int32_t)(16777217 * (int)(d1 * 10.0)) == 16777217.0 && fbits((float)(int32_t)(16777217 * (int)(d1 * 10.0))) == 0x4B800000u);
    check("NaN compares unordered", !(dz / dz < 1.0) && !(dz / dz >= 1.0) && (dz / dz != dz / dz));
    check("strtod(\"2.2250738585072011e-308\") = 0x000FFFFFFFFFFFFF",
          dbits(strtod("2.2250738585072011e-308", NULL)) == 0x000FFFFFFFFFFFFFull);
    check("strtod(\"4.9e-324\") = 1, strtod(\"2.4e-324\") = 0",
          dbits(strtod("4.9e-324", NULL)) == 1 && dbits(strtod("2.4e-324", NULL)) == 0);
    /* 9007199254740993 = 2^53 + 1 is a tie: to even gives 2^53 */
    check("strtod(\"9007199254740993\") = 2^53", dbits(strtod("9007199254740993", NULL)) == 0x4340000000000000ull);
    char buf[64];
    snprintf(buf, sizeof buf, "%.0f %.0f %.0f %.1f %.2f", 0.5, 1.5, 2.5, 0.25, 1.005);
    /* ties of the exact binary values: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 0.25 -> 0.2;
       1.005 is 1.00499999999999989... in binary64 -> 1.00 */
    check("printf rounds exact binary values to nearest even: \"0 2 2 0.2 1.00\"", !strcmp(buf, "0 2 2 0.2 1.00"));
    snprintf(buf, sizeof buf, "%g %g %g %e", 100000.0, 1000000.0, 0.0001, 0.0);
    check("%g/%e forms: \"100000 1e+06 0.0001 0.000000e+00\"", !strcmp(buf, "100000 1e+06 0.0001 0.000000e+00"));
}

int main(void)
{
    printf("softfloat_check: IEEE 754 arithmetic and decimal conversion\n");
    rules();
    hashes();
    decimal();
    printf("softfloat_check: %d failures\n", failures);
    return failures != 0;
}
