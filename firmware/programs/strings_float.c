/*
 * strings_float: C library string functions, number parsing and float/double
 * formatting (newlib on the boards, the host libc on the host), plus libm.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Values are chosen so that every printed digit is the same under any
 * correctly rounded printf; libm results are printed with fewer digits than
 * their precision so that a last-ulp difference between libm
 * implementations cannot show.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"   /* truncation is the point */
#endif

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int sign(int v)
{
    return (v > 0) - (v < 0);
}

static void strings(void)
{
    char buf[96];
    int n;

    n = snprintf(buf, sizeof buf, "[%5d|%-5d|%05d|%+d|%x|%X|%#x|%o|%c|%s|%.3s|%%]",
                 42, 42, 42, 42, 48879, 48879, 255, 8, 'Z', "str", "truncate");
    printf("snprintf: %s (%d chars)\n", buf, n);
    n = snprintf(buf, 12, "%s", "this string is longer than twelve");
    printf("snprintf truncated: \"%s\" returned %d, strlen %u\n", buf, n, (unsigned)strlen(buf));
    n = snprintf(buf, sizeof buf, "%" PRIu32 " %" PRId32 " %08" PRIX32, (uint32_t)4000000000u,
                 (int32_t)-2147483647 - 1, (uint32_t)0xBADC0DEu);
    printf("snprintf u32: %s (%d)\n", buf, n);

    static const char *const num[] = { "12345", "-0x1F", "0777", "zz", "  42abc", "+17", "-0", "2147483647" };
    static const int base[] = { 10, 0, 0, 36, 10, 10, 10, 10 };
    for (unsigned i = 0; i < sizeof num / sizeof num[0]; i++) {
        char *end;
        long v = strtol(num[i], &end, base[i]);
        printf("strtol(\"%s\", %d) = %ld, consumed %d\n", num[i], base[i], v, (int)(end - num[i]));
    }
    printf("strtoul(\"ffffffff\",16) = %lu\n", strtoul("ffffffff", NULL, 16));
    printf("atoi(\"-321\") = %d\n", atoi("-321"));

    printf("strlen: %u %u %u\n", (unsigned)strlen(""), (unsigned)strlen("abc"),
           (unsigned)strlen("The quick brown fox"));
    printf("strcmp: %d %d %d %d\n", sign(strcmp("abc", "abd")), sign(strcmp("abc", "abc")),
           sign(strcmp("b", "abc")), sign(strncmp("abcdef", "abcxyz", 3)));

    char dst[40];
    memset(dst, '.', sizeof dst);
    memcpy(dst, "Hello, world", 12);
    dst[20] = '\0';
    printf("memcpy/memset: \"%s\"\n", dst);
    memmove(dst + 2, dst, 10);          /* overlapping */
    printf("memmove: \"%s\"\n", dst);
    strcpy(dst, "needle in a haystack");
    const char *p = strstr(dst, "hay");
    const char *q = strchr(dst, 'i');
    const char *r = strrchr(dst, 'a');
    printf("strstr=%d strchr=%d strrchr=%d\n", (int)(p - dst), (int)(q - dst), (int)(r - dst));
    strncpy(dst, "abc", 6);
    strcat(dst, "-def");
    printf("strncpy/strcat: \"%s\" memcmp=%d\n", dst, sign(memcmp("abc", "abd", 3)));

    const char *words[] = { "pear", "apple", "fig", "banana", "cherry", "date", "kiwi", "grape" };
    qsort(words, sizeof words / sizeof words[0], sizeof words[0], cmp_str);
    printf("qsort words:");
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++)
        printf(" %s", words[i]);
    printf("\n");

    int32_t vals[24];
    uint32_t s = 2463534242u;
    for (unsigned i = 0; i < 24; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        vals[i] = (int32_t)(s % 2001u) - 1000;
    }
    qsort(vals, 24, sizeof vals[0], cmp_i32);
    printf("qsort ints:");
    for (unsigned i = 0; i < 24; i += 3)
        printf(" %" PRId32, vals[i]);
    printf("\n");
}

static void floats(void)
{
    static const double dv[] = { 0.0, 1.0, -2.5, 0.1, 1.0 / 3.0, 2.0 / 3.0, 3.14159265358979,
                                 123456.789, 1.0e-5, 6.02214076e23, -1.25e-10, 1048576.0 };
    for (unsigned i = 0; i < sizeof dv / sizeof dv[0]; i++)
        printf("d[%2u]: %%f=%f %%e=%e %%g=%g %%.3g=%.3g %%10.2f=[%10.2f]\n",
               i, dv[i], dv[i], dv[i], dv[i], dv[i]);

    static const float fv[] = { 0.5f, 0.1f, -7.75f, 3.14159265f, 1.0e-3f, 65504.0f, 16777216.0f };
    for (unsigned i = 0; i < sizeof fv / sizeof fv[0]; i++)
        printf("f[%u]: %.6f %.8e %g\n", i, (double)fv[i], (double)fv[i], (double)fv[i]);

    static const char *const dstr[] = { "3.14159", "-2.5e-3", "1e10", "0.1", "123.456e2", "  -0.000125xyz", "42" };
    for (unsigned i = 0; i < sizeof dstr / sizeof dstr[0]; i++) {
        char *end;
        double v = strtod(dstr[i], &end);
        printf("strtod(\"%s\") = %.6f = %e, consumed %d\n", dstr[i], v, v, (int)(end - dstr[i]));
    }
    printf("strtof(\"1.5\") = %.2f, atof(\"-8.25\") = %.3f\n", (double)strtof("1.5", NULL), atof("-8.25"));

    /* Float arithmetic: exact or correctly rounded operations only. */
    float acc = 0.0f;
    for (int i = 1; i <= 100; i++)
        acc = acc + 1.0f / (float)i;
    double dacc = 0.0;
    for (int i = 1; i <= 100; i++)
        dacc = dacc + 1.0 / ((double)i * (double)i);
    printf("harmonic(100) float=%.5f, sum 1/i^2 double=%.10f\n", (double)acc, dacc);
    printf("sqrtf(2)=%.6f sqrt(2)=%.12f sqrt(1e6)=%.1f\n", (double)sqrtf(2.0f), sqrt(2.0), sqrt(1.0e6));

    /* libm transcendental functions */
    printf("sin(0.5)=%.9f cos(0.5)=%.9f sin(pi/6)=%.9f\n", sin(0.5), cos(0.5), sin(3.14159265358979 / 6.0));
    printf("exp(1)=%.9f exp(-2.5)=%.9f log(10)=%.9f\n", exp(1.0), exp(-2.5), log(10.0));
    printf("pow(2,0.5)=%.9f atan2(1,2)=%.9f fabs(-3)=%.1f floor(-2.5)=%.1f ceil(2.1)=%.1f\n",
           pow(2.0, 0.5), atan2(1.0, 2.0), fabs(-3.0), floor(-2.5), ceil(2.1));
    printf("sinf(1)=%.5f expf(0.5)=%.5f logf(2)=%.5f\n", (double)sinf(1.0f), (double)expf(0.5f),
           (double)logf(2.0f));
    double y = 0.0;
    for (int i = 0; i < 32; i++)
        y += sin((double)i * 0.1) * exp(-(double)i * 0.05);
    printf("sum sin*exp = %.8f\n", y);
}

int main(void)
{
    printf("strings_float: string functions and formatting\n");
    strings();
    floats();
    printf("strings_float: done\n");
    return 0;
}
