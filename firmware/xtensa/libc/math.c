/* A small libm for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later).
 *
 * Double precision, written for accuracy of about one unit in the last place over the ranges the
 * firmware uses (not correctly rounded, unlike sqrt, which is exact: softfloat.c). Methods:
 *  - exp: x = k ln2 + r with |r| <= ln2/2 (ln2 split into a 32-bit head, so k * head is exact, and a
 *    tail), e^r by its Taylor series to r^14 (|r|^15/15! < 2^-61), times 2^k;
 *  - log: x = 2^k m with m in [sqrt(2)/2, sqrt(2)); with f = m - 1 and s = f / (2 + f),
 *    log(m) = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ..., arranged as f - (f^2/2 - s (f^2/2 + R)) with
 *    R = 2s^2/3 + 2s^4/5 + ... (since 2s = f - s f), so the exact f dominates;
 *  - sin, cos, tan: x = n pi/2 + r, |r| <= pi/4, pi/2 in three 33-bit parts (n * part exact for
 *    |n| < 2^20, i.e. |x| < 1.6e6; beyond that the reduction loses accuracy, and above 1e9 it only
 *    keeps the result in [-1, 1]), then the Taylor series of
 *    sin to r^17 and cos to r^18 (terms beyond are below 2^-60);
 *  - atan, atan2: atan(t) = pi/2 - atan(1/t) for t > 1, atan(t) = pi/6 + atan((t sqrt3 - 1)/(sqrt3 + t))
 *    for t > tan(pi/12), then the series t - t^3/3 + ... to t^31 (|t| <= 0.268); special cases of atan2
 *    as C11 F.10.1.4;
 *  - pow: special cases as C11 F.10.4.4; y = 0.5 is sqrt; integral |y| <= 64 by repeated squaring;
 *    otherwise exp(y log x) (relative error about |y log x| * 2^-53: tens of ulps for large results);
 *  - floor, ceil, trunc, fabs: exact, on the bits;
 *  - float functions: the double function rounded to float.
 * Constants: hex literals of the correctly rounded values (computed with 80-digit decimal
 * arithmetic); the Taylor coefficients 1/n! are folded by the compiler from exact expressions. */
#include <math.h>
#include <stdint.h>

typedef union { double d; uint64_t u; } dbits;
static uint64_t bits_of(double x) { dbits b; b.d = x; return b.u; }
static double from_bits(uint64_t u) { dbits b; b.u = u; return b.d; }

#define SIGN 0x8000000000000000ull
#define DEFAULT_NAN 0xFFF8000000000000ull   /* what an invalid operation gives on x86 (softfloat.c) */

static const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;
static const double INV_LN2 = 0x1.71547652b82fep+0;
static const double PIO2_1 = 0x1.921fb54400000p+0, PIO2_2 = 0x1.0b4611a600000p-34,
                    PIO2_3 = 0x1.3198a2e037073p-69;
static const double TWO_OVER_PI = 0x1.45f306dc9c883p-1;
static const double PI = 0x1.921fb54442d18p+1, PI_LO = 0x1.1a62633145c07p-53;
static const double PI_2 = 0x1.921fb54442d18p+0, PI_2_LO = 0x1.1a62633145c07p-54;
static const double PI_4 = 0x1.921fb54442d18p-1;
static const double PI_6 = 0x1.0c152382d7366p-1, PI_6_LO = -0x1.ee6913347c2a6p-55;
static const double SQRT3 = 0x1.bb67ae8584caap+0, TAN_PI_12 = 0x1.126145e9ecd56p-2;
static const double SQRT2 = 0x1.6a09e667f3bcdp+0;
static const double LOG10_E = 0x1.bcb7b1526e50ep-2;

static int is_nan(double x) { return (bits_of(x) & ~SIGN) > 0x7FF0000000000000ull; }
static int is_inf(double x) { return (bits_of(x) & ~SIGN) == 0x7FF0000000000000ull; }

double fabs(double x) { return from_bits(bits_of(x) & ~SIGN); }
float fabsf(float x) { return (float)fabs(x); }

/* x * 2^k, one rounding */
static double scale2(double x, int k)
{
    if (k > 1023) {
        x *= from_bits(0x7FE0000000000000ull);   /* 2^1023 */
        k -= 1023;
        if (k > 1023)
            k = 1023;
    } else if (k < -1022) {
        x *= from_bits(0x0010000000000000ull);   /* 2^-1022, exact for the normal x used here */
        k += 1022;
        if (k < -1022) {
            x *= from_bits(0x0010000000000000ull);
            k += 1022;
            if (k < -1022)
                k = -1022;
        }
    }
    return x * from_bits((uint64_t)(k + 1023) << 52);
}

double ldexp(double x, int k) { return scale2(x, k); }

static double floor_ceil(double x, int up)
{
    uint64_t b = bits_of(x);
    int e = (int)((b >> 52) & 0x7FF) - 1023;
    if (e >= 52)
        return is_nan(x) ? x + x : x;   /* integral, or inf, or NaN (quieted) */
    int neg = (int)(b >> 63);
    if (e < 0) {                        /* |x| < 1 */
        if ((b & ~SIGN) == 0)
            return x;
        if (neg)
            return up ? from_bits(SIGN) : -1.0;
        return up ? 1.0 : 0.0;
    }
    uint64_t mask = 0x000FFFFFFFFFFFFFull >> e;
    if ((b & mask) == 0)
        return x;
    if (neg != up)                      /* round the magnitude up: one unit at 2^0, carries are fine */
        b += (1ull << 52) >> e;
    return from_bits(b & ~mask);
}

double floor(double x) { return floor_ceil(x, 0); }
double ceil(double x) { return floor_ceil(x, 1); }
double trunc(double x) { return bits_of(x) >> 63 ? ceil(x) : floor(x); }
double round(double x)                  /* half away from zero */
{
    double t = trunc(x);
    if (fabs(x - t) >= 0.5)
        t += bits_of(x) >> 63 ? -1.0 : 1.0;
    return t;
}
float floorf(float x) { return (float)floor(x); }
float ceilf(float x) { return (float)ceil(x); }
float truncf(float x) { return (float)trunc(x); }
float roundf(float x) { return (float)round(x); }

double fmod(double x, double y)         /* exact: repeated subtraction of y * 2^j */
{
    if (is_nan(x) || is_nan(y) || is_inf(x) || y == 0.0)
        return from_bits(DEFAULT_NAN);
    double ax = fabs(x), ay = fabs(y);
    if (is_inf(y) || ax < ay)
        return x;
    while (ax >= ay) {
        double t = ay;
        while (t <= ax * 0.5)           /* largest y * 2^j <= ax; each step is exact */
            t *= 2.0;
        ax -= t;                        /* exact (Sterbenz: t <= ax < 2t) */
    }
    return bits_of(x) >> 63 ? -ax : ax;
}

/* ---------------------------------------------------------------- exp, log */

double exp(double x)
{
    if (is_nan(x))
        return x + x;
    if (x > 709.782712893384)
        return from_bits(0x7FF0000000000000ull);
    if (x < -745.1332191019412)
        return 0.0;
    double kd = x * INV_LN2;
    int k = (int)(kd < 0 ? kd - 0.5 : kd + 0.5);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    double p = 1.0 / 87178291200.0;     /* 1/14! */
    p = p * r + 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    return scale2(1.0 + r * p, k);
}

double log(double x)
{
    uint64_t b = bits_of(x);
    if (is_nan(x))
        return x + x;
    if ((b & ~SIGN) == 0)
        return from_bits(0xFFF0000000000000ull);   /* -inf (pole) */
    if (b >> 63)
        return from_bits(DEFAULT_NAN);
    if (is_inf(x))
        return x;
    int k = 0;
    if ((b >> 52) == 0) {               /* subnormal */
        x *= 0x1p54;
        b = bits_of(x);
        k = -54;
    }
    k += (int)(b >> 52) - 1023;
    double m = from_bits((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);   /* [1, 2) */
    if (m > SQRT2) {
        m *= 0.5;
        k++;
    }
    double f = m - 1.0;                 /* exact */
    double s = f / (2.0 + f), z = s * s;
    double R = 2.0 / 23.0;
    R = R * z + 2.0 / 21.0;
    R = R * z + 2.0 / 19.0;
    R = R * z + 2.0 / 17.0;
    R = R * z + 2.0 / 15.0;
    R = R * z + 2.0 / 13.0;
    R = R * z + 2.0 / 11.0;
    R = R * z + 2.0 / 9.0;
    R = R * z + 2.0 / 7.0;
    R = R * z + 2.0 / 5.0;
    R = R * z + 2.0 / 3.0;
    R *= z;
    double hfsq = 0.5 * f * f;
    double lm = f - (hfsq - s * (hfsq + R));
    return k * LN2_HI + (lm + k * LN2_LO);
}

double log10(double x) { return log(x) * LOG10_E; }
double log2(double x) { return log(x) * INV_LN2; }
float expf(float x) { return (float)exp(x); }
float logf(float x) { return (float)log(x); }
float log10f(float x) { return (float)log10(x); }

/* ---------------------------------------------------------------- sin, cos, tan */

/* x - n pi/2 with |result| <= about pi/4; *n gets n. */
static double reduce_pio2(double x, int *n)
{
    if (fabs(x) > 1e9)                  /* crude: only keeps the result in range, not accurate */
        x = fmod(x, 4.0 * PI_2);
    double t = x * TWO_OVER_PI;
    int k = (int)(t < 0 ? t - 0.5 : t + 0.5);
    *n = k;
    return ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
}

static double sin_kernel(double r)      /* |r| <= pi/4 */
{
    double z = r * r;
    double p = -1.0 / 355687428096000.0;   /* -1/17! */
    p = p * z + 1.0 / 1307674368000.0;
    p = p * z - 1.0 / 6227020800.0;
    p = p * z + 1.0 / 39916800.0;
    p = p * z - 1.0 / 362880.0;
    p = p * z + 1.0 / 5040.0;
    p = p * z - 1.0 / 120.0;
    p = p * z + 1.0 / 6.0;
    return r - r * z * p;
}

static double cos_kernel(double r)
{
    double z = r * r;
    double q = 1.0 / 6402373705728000.0;   /* 1/18! */
    q = q * z - 1.0 / 20922789888000.0;
    q = q * z + 1.0 / 87178291200.0;
    q = q * z - 1.0 / 479001600.0;
    q = q * z + 1.0 / 3628800.0;
    q = q * z - 1.0 / 40320.0;
    q = q * z + 1.0 / 720.0;
    q = q * z - 1.0 / 24.0;             /* cos r = 1 - z/2 - z^2 q */
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) - z * z * q);   /* 1 - hz with its rounding error added back */
}

double sin(double x)
{
    if (is_nan(x) || is_inf(x))
        return is_nan(x) ? x + x : from_bits(DEFAULT_NAN);
    if (x == 0.0)
        return x;                       /* sin(+-0) = +-0 */
    if (fabs(x) < PI_4)
        return sin_kernel(x);
    int n;
    double r = reduce_pio2(x, &n);
    switch (n & 3) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
    }
}

double cos(double x)
{
    if (is_nan(x) || is_inf(x))
        return is_nan(x) ? x + x : from_bits(DEFAULT_NAN);
    if (fabs(x) < PI_4)
        return cos_kernel(x);
    int n;
    double r = reduce_pio2(x, &n);
    switch (n & 3) {
    case 0: return cos_kernel(r);
    case 1: return -sin_kernel(r);
    case 2: return -cos_kernel(r);
    default: return sin_kernel(r);
    }
}

double tan(double x)
{
    if (is_nan(x) || is_inf(x))
        return is_nan(x) ? x + x : from_bits(DEFAULT_NAN);
    int n = 0;
    double r = fabs(x) < PI_4 ? x : reduce_pio2(x, &n);
    double s = sin_kernel(r), c = cos_kernel(r);
    return (n & 1) ? -c / s : s / c;
}

float sinf(float x) { return (float)sin(x); }
float cosf(float x) { return (float)cos(x); }
float tanf(float x) { return (float)tan(x); }

/* ---------------------------------------------------------------- atan, atan2, asin, acos */

/* atan(num / den) for 0 <= num, 0 < den (or num > 0), both finite */
static double atan_ratio(double num, double den)
{
    int inv = num > den;
    double t = inv ? den / num : num / den;   /* [0, 1] */
    double base = 0.0, base_lo = 0.0;
    if (t > TAN_PI_12) {
        t = (t * SQRT3 - 1.0) / (SQRT3 + t);
        base = PI_6;
        base_lo = PI_6_LO;
    }
    double z = t * t;
    double p = -1.0 / 31.0;
    p = p * z + 1.0 / 29.0;
    p = p * z - 1.0 / 27.0;
    p = p * z + 1.0 / 25.0;
    p = p * z - 1.0 / 23.0;
    p = p * z + 1.0 / 21.0;
    p = p * z - 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z - 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z - 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z - 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z - 1.0 / 3.0;
    double a = base + (t + (t * z * p + base_lo));
    if (inv)
        a = PI_2 - a + PI_2_LO;
    return a;
}

double atan(double x)
{
    if (is_nan(x))
        return x + x;
    double a = is_inf(x) ? PI_2 : atan_ratio(fabs(x), 1.0);
    return bits_of(x) >> 63 ? -a : a;
}

double atan2(double y, double x)
{
    if (is_nan(x) || is_nan(y))
        return x + y;
    int ys = (int)(bits_of(y) >> 63), xs = (int)(bits_of(x) >> 63);
    double a;
    if (y == 0.0)
        a = xs ? PI : 0.0;
    else if (is_inf(y))
        a = is_inf(x) ? (xs ? 3.0 * PI_4 : PI_4) : PI_2;
    else if (is_inf(x))
        a = xs ? PI : 0.0;
    else if (x == 0.0)
        a = PI_2;
    else {
        a = atan_ratio(fabs(y), fabs(x));
        if (xs)
            a = (PI - a) + PI_LO;
    }
    return ys ? -a : a;
}

double asin(double x)
{
    if (is_nan(x) || fabs(x) > 1.0)
        return is_nan(x) ? x + x : from_bits(DEFAULT_NAN);
    return atan2(x, sqrt((1.0 - x) * (1.0 + x)));
}

double acos(double x)
{
    if (is_nan(x) || fabs(x) > 1.0)
        return is_nan(x) ? x + x : from_bits(DEFAULT_NAN);
    return atan2(sqrt((1.0 - x) * (1.0 + x)), x);
}

float atanf(float x) { return (float)atan(x); }
float atan2f(float y, float x) { return (float)atan2(y, x); }
float asinf(float x) { return (float)asin(x); }
float acosf(float x) { return (float)acos(x); }

/* ---------------------------------------------------------------- pow */

/* 0: not an integer, 1: odd integer, 2: even integer */
static int int_kind(double y)
{
    uint64_t b = bits_of(y);
    int e = (int)((b >> 52) & 0x7FF) - 1023;
    if (e < 0)
        return (b & ~SIGN) == 0 ? 2 : 0;
    if (e > 52)
        return 2;
    uint64_t frac = b & (0x000FFFFFFFFFFFFFull >> e);
    if (e < 52 && frac)
        return 0;
    if (e == 0)
        return 1;                       /* +-1 */
    return ((b >> (52 - e)) & 1) ? 1 : 2;
}

double pow(double x, double y)
{
    if (y == 0.0 || x == 1.0)
        return 1.0;
    if (is_nan(x) || is_nan(y))
        return x + y;
    int yk = int_kind(y), xs = (int)(bits_of(x) >> 63), yneg = (int)(bits_of(y) >> 63);
    double inf = from_bits(0x7FF0000000000000ull);
    if (x == 0.0) {
        double r = yneg ? inf : 0.0;
        return (xs && yk == 1) ? -r : r;
    }
    if (is_inf(y)) {
        double ax = fabs(x);
        if (ax == 1.0)
            return 1.0;
        return ((ax < 1.0) == yneg) ? inf : 0.0;
    }
    if (is_inf(x)) {
        double r = yneg ? 0.0 : inf;
        return (xs && yk == 1) ? -r : r;
    }
    if (xs && yk == 0)
        return from_bits(DEFAULT_NAN);  /* negative base, non-integral exponent */
    double ax = fabs(x), r;
    if (y == 0.5) {
        r = sqrt(ax);
    } else if (yk && fabs(y) <= 64.0) {
        int n = (int)fabs(y);
        double b = ax;
        r = 1.0;
        while (n) {
            if (n & 1)
                r *= b;
            b *= b;
            n >>= 1;
        }
        if (yneg)
            r = 1.0 / r;
    } else {
        r = exp(y * log(ax));
    }
    return (xs && yk == 1) ? -r : r;
}

float powf(float x, float y) { return (float)pow(x, y); }
