/* Software floating point for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later).
 *
 * The LX106 compiler has no FPU and Debian's libgcc for it lacks most soft-float helpers (and what it
 * has is call0 code, unusable from windowed-ABI firmware), so the helpers GCC calls are written here in
 * plain integer C: IEEE 754 binary32 ("sf") and binary64 ("df") add, sub, mul, div, negation,
 * comparisons, conversions, plus sqrt (used by math.c) and the 64-bit integer helpers GCC calls
 * (__muldi3, __udivdi3, ...).
 *
 * Rules followed (IEEE 754-2008):
 *  - every result is the exact result rounded to the destination format, round to nearest, ties to
 *    even (§4.3.1); overflow rounds to infinity (§7.4), underflow gives the rounded subnormal (§7.5);
 *  - an exact zero sum is +0, except that (-0) + (-0) = -0 (§6.3); a product or quotient's sign is
 *    the XOR of the operands' signs, also for zeros and infinities (§6.3);
 *  - invalid operations (inf - inf, 0 * inf, 0/0, inf/inf, sqrt of a negative number) give a quiet
 *    NaN (§7.2); an operation with a NaN operand returns a NaN (§6.2).
 * NaN choices follow x86 SSE, the host the expected outputs come from (so glibc prints the same
 * "nan"/"-nan"): invalid operations give the "default NaN" with the sign bit set (0xFFC00000,
 * 0xFFF8000000000000); otherwise the first NaN operand is returned, quieted.
 * Float to integer conversion truncates toward zero (C11 6.3.1.4); out of range gives 0x80000000
 * (x86's "integer indefinite"; undefined in C).
 *
 * Internal convention: a value under rounding is (sign, e, sig) with the significand's leading one at
 * bit 30 (binary32) or bit 62 (binary64), i.e. 7 or 10 extra bits below the fraction, whose lowest bit
 * is a sticky bit (set if any nonzero bit was shifted out): value = sig * 2^(e - bias - 30|62).
 *
 * With -DTG_HOST_TEST the file builds on a host with the operations exported as tg_* bit-pattern
 * functions, to compare them with the host's hardware (see firmware/xtensa/libc/README.md). */
#include <stdint.h>

#define F32_SIGN 0x80000000u
#define F32_INF 0x7F800000u
#define F32_DEFAULT_NAN 0xFFC00000u
#define F32_QUIET 0x00400000u
#define F64_SIGN 0x8000000000000000ull
#define F64_INF 0x7FF0000000000000ull
#define F64_DEFAULT_NAN 0xFFF8000000000000ull
#define F64_QUIET 0x0008000000000000ull
#define F64_FRAC 0x000FFFFFFFFFFFFFull

#define IS_NAN32(x) (((x) & 0x7FFFFFFFu) > F32_INF)
#define IS_NAN64(x) (((x) & ~F64_SIGN) > F64_INF)

/* ---------------------------------------------------------------- integer helpers */

static int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }   /* NSAU on Xtensa */
static int clz64(uint64_t x)
{
    uint32_t hi = (uint32_t)(x >> 32);
    return hi ? clz32(hi) : 32 + clz32((uint32_t)x);
}

/* 32 x 32 -> 64-bit product from 16-bit pieces (LX106 has MULL but no MULUH; a 64-bit C
 * multiplication would call __muldi3). */
static uint64_t mul_u32(uint32_t a, uint32_t b)
{
    uint32_t al = a & 0xFFFF, ah = a >> 16, bl = b & 0xFFFF, bh = b >> 16;
    uint32_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint32_t mid = lh + (ll >> 16);                  /* < 2^32: (2^16-1)^2 + 2^16-1 */
    uint32_t mid2 = hl + (mid & 0xFFFF);             /* < 2^32 likewise */
    uint32_t lo = (mid2 << 16) | (ll & 0xFFFF);
    uint32_t hi = hh + (mid >> 16) + (mid2 >> 16);
    return ((uint64_t)hi << 32) | lo;
}

/* 64 x 64 -> 128-bit product as hi:lo. */
static void mul_u64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint32_t al = (uint32_t)a, ah = (uint32_t)(a >> 32), bl = (uint32_t)b, bh = (uint32_t)(b >> 32);
    uint64_t ll = mul_u32(al, bl), lh = mul_u32(al, bh), hl = mul_u32(ah, bl), hh = mul_u32(ah, bh);
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;   /* < 3 * 2^32 */
    *lo = (mid << 32) | (uint32_t)ll;
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static uint32_t shr32_sticky(uint32_t x, int n)
{
    if (n <= 0)
        return x;
    if (n >= 32)
        return x != 0;
    return (x >> n) | ((x << (32 - n)) != 0);
}

static uint64_t shr64_sticky(uint64_t x, int n)
{
    if (n <= 0)
        return x;
    if (n >= 64)
        return x != 0;
    return (x >> n) | ((x << (64 - n)) != 0);
}

/* Integer square root, bit by bit: feeds the `pairs` bit pairs of m (from the top) and then
 * `extra` zero pairs; returns floor(sqrt(m * 4^extra)) and sets *inexact if the remainder is not 0.
 * Each step keeps rem = N - root^2 for the input N read so far; trying root' = 2 root + 1 gives
 * rem' = 4 rem + next - (4 root + 1). rem <= 2 root, so rem fits while root < 2^61. */
static uint64_t isqrt_bits(uint64_t m, int pairs, int extra, int *inexact)
{
    uint64_t root = 0, rem = 0;
    for (int i = pairs + extra - 1; i >= 0; i--) {
        uint64_t next = i >= extra ? (m >> (2 * (i - extra))) & 3 : 0;
        rem = (rem << 2) | next;
        uint64_t trial = (root << 2) | 1;
        if (rem >= trial) {
            rem -= trial;
            root = (root << 1) | 1;
        } else {
            root <<= 1;
        }
    }
    *inexact = rem != 0;
    return root;
}

/* ---------------------------------------------------------------- binary32 */

/* Round (sign, e, sig) to binary32; sig's leading one is at bit 30 when e > 0. */
static uint32_t pack32(uint32_t sign, int e, uint32_t sig)
{
    if (e >= 0xFF)
        return sign | F32_INF;
    if (e <= 0) {                       /* subnormal: scale of exponent 1, no implicit bit */
        sig = shr32_sticky(sig, 1 - e);
        e = 0;
    }
    uint32_t rest = sig & 0x7F;         /* bit 6 is the half-ulp bit */
    sig >>= 7;
    if (rest > 0x40 || (rest == 0x40 && (sig & 1))) {
        sig++;
        if (sig == 0x1000000u) {        /* carry out of the significand */
            sig = 0x800000u;
            e++;
            if (e >= 0xFF)
                return sign | F32_INF;
        } else if (e == 0 && sig == 0x800000u) {
            e = 1;                      /* largest subnormal rounded up to the smallest normal */
        }
    }
    if (e == 0)
        return sign | sig;
    return sign | ((uint32_t)e << 23) | (sig & 0x7FFFFF);
}

static uint32_t nan32(uint32_t a, uint32_t b)
{
    return (IS_NAN32(a) ? a : b) | F32_QUIET;
}

/* Significand with the implicit bit, subnormals normalized: m in [2^23, 2^24), *e adjusted. */
static uint32_t norm32(uint32_t x, int *e)
{
    uint32_t m = x & 0x7FFFFF;
    *e = (x >> 23) & 0xFF;
    if (*e)
        return m | 0x800000;
    int s = clz32(m) - 8;
    *e = 1 - s;
    return m << s;
}

/* a + (b with its sign flipped if neg) */
static uint32_t add32(uint32_t a, uint32_t b, uint32_t neg)
{
    if (IS_NAN32(a) || IS_NAN32(b))
        return nan32(a, b);
    b ^= neg;
    uint32_t sa = a & F32_SIGN, sb = b & F32_SIGN;
    int ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF;
    if (ea == 0xFF || eb == 0xFF) {
        if (ea == 0xFF && eb == 0xFF && sa != sb)
            return F32_DEFAULT_NAN;     /* inf - inf */
        return ea == 0xFF ? a : b;
    }
    uint32_t ma = a & 0x7FFFFF, mb = b & 0x7FFFFF;
    if (ea) ma |= 0x800000; else ea = 1;
    if (eb) mb |= 0x800000; else eb = 1;
    ma <<= 6;                           /* leading one at bit 29: the sum stays below bit 31 */
    mb <<= 6;
    int e;
    if (ea >= eb) {
        e = ea;
        mb = shr32_sticky(mb, ea - eb);
    } else {
        e = eb;
        ma = shr32_sticky(ma, eb - ea);
    }
    uint32_t sign, sig;
    if (sa == sb) {
        sign = sa;
        sig = ma + mb;
    } else if (ma >= mb) {
        sign = sa;
        sig = ma - mb;
    } else {
        sign = sb;
        sig = mb - ma;
    }
    if (sig == 0)
        return sa == sb ? sa : 0;       /* exact zero: +0 in round to nearest, -0 + -0 = -0 */
    e += 1;                             /* sig * 2^(e-127-29) = sig * 2^((e+1)-127-30) */
    int s = clz32(sig) - 1;             /* normalize to bit 30; exact (only zeros come in) */
    sig <<= s;
    e -= s;
    return pack32(sign, e, sig);
}

static uint32_t mul32(uint32_t a, uint32_t b)
{
    if (IS_NAN32(a) || IS_NAN32(b))
        return nan32(a, b);
    uint32_t sign = (a ^ b) & F32_SIGN;
    uint32_t aa = a & 0x7FFFFFFF, ab = b & 0x7FFFFFFF;
    if (aa == F32_INF || ab == F32_INF) {
        if (aa == 0 || ab == 0)
            return F32_DEFAULT_NAN;     /* 0 * inf */
        return sign | F32_INF;
    }
    if (aa == 0 || ab == 0)
        return sign;
    int ea, eb;
    uint32_t ma = norm32(a, &ea), mb = norm32(b, &eb);
    uint64_t p = mul_u32(ma, mb);       /* in [2^46, 2^48) */
    int e = ea + eb - 127;              /* p * 2^(ea+eb-300) = (p / 2^16) * 2^(e-157) */
    uint32_t sig;
    if (p >> 47) {
        sig = (uint32_t)(p >> 17) | ((p & 0x1FFFF) != 0);
        e++;
    } else {
        sig = (uint32_t)(p >> 16) | ((p & 0xFFFF) != 0);
    }
    return pack32(sign, e, sig);
}

static uint32_t div32(uint32_t a, uint32_t b)
{
    if (IS_NAN32(a) || IS_NAN32(b))
        return nan32(a, b);
    uint32_t sign = (a ^ b) & F32_SIGN;
    uint32_t aa = a & 0x7FFFFFFF, ab = b & 0x7FFFFFFF;
    if (aa == F32_INF)
        return ab == F32_INF ? F32_DEFAULT_NAN : sign | F32_INF;
    if (ab == F32_INF)
        return sign;
    if (ab == 0)
        return aa == 0 ? F32_DEFAULT_NAN : sign | F32_INF;   /* 0/0 invalid, x/0 = inf */
    if (aa == 0)
        return sign;
    int ea, eb;
    uint32_t ma = norm32(a, &ea), mb = norm32(b, &eb);
    int e = ea - eb + 127;
    if (ma < mb) {                      /* make the quotient lie in [1, 2) */
        ma <<= 1;
        e--;
    }
    uint32_t q = 0, r = ma;
    for (int i = 0; i < 31; i++) {      /* 31 quotient bits: leading one at bit 30 */
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1;
        }
        r <<= 1;
    }
    return pack32(sign, e, q | (r != 0));
}

static uint32_t sqrt32(uint32_t a)
{
    if (IS_NAN32(a))
        return a | F32_QUIET;
    if ((a & 0x7FFFFFFF) == 0)
        return a;                       /* sqrt(+-0) = +-0 */
    if (a & F32_SIGN)
        return F32_DEFAULT_NAN;
    if (a == F32_INF)
        return a;
    int e;
    uint32_t m = norm32(a, &e) << 1;    /* [2^24, 2^25); a = m * 2^(u - 24), u = e - 127 */
    int u = e - 127;
    if ((u - 24) & 1) {                 /* make the exponent even: m in [2^24, 2^26) */
        m <<= 1;
        u--;
    }
    int inexact;
    uint32_t root = (uint32_t)isqrt_bits(m, 13, 17, &inexact);   /* [2^29, 2^30) */
    /* sqrt(a) = root * 2^-17 * 2^((u-24)/2) = (root << 1) * 2^(e' - 157), e' = u/2 + 127 */
    return pack32(0, u / 2 + 127, (root << 1) | inexact);
}

/* -1, 0, 1, or `unordered` if either is a NaN */
static int cmp32(uint32_t a, uint32_t b, int unordered)
{
    if (IS_NAN32(a) || IS_NAN32(b))
        return unordered;
    if (((a | b) & 0x7FFFFFFF) == 0)
        return 0;                       /* +0 == -0 */
    int32_t ka = (a & F32_SIGN) ? -(int32_t)(a & 0x7FFFFFFF) : (int32_t)a;   /* monotonic keys */
    int32_t kb = (b & F32_SIGN) ? -(int32_t)(b & 0x7FFFFFFF) : (int32_t)b;
    return (ka > kb) - (ka < kb);
}

static uint32_t from_u32_32(uint32_t u, uint32_t sign)
{
    if (u == 0)
        return sign;
    int s = clz32(u);
    uint32_t t = u << s;                /* leading one at bit 31 */
    return pack32(sign, 158 - s, (t >> 1) | (t & 1));
}

static uint32_t from_u64_32(uint64_t u, uint32_t sign)
{
    if (u == 0)
        return sign;
    int s = clz64(u);
    uint64_t t = u << s;                /* leading one at bit 63 */
    return pack32(sign, 190 - s, (uint32_t)(t >> 33) | ((t & 0x1FFFFFFFFull) != 0));
}

/* truncation toward zero of |a| as an unsigned 64-bit integer, *over if it does not fit 64 bits */
static uint64_t trunc32_mag(uint32_t a, int *over)
{
    int e = (a >> 23) & 0xFF;
    *over = 0;
    if (e == 0xFF) {
        *over = 1;
        return 0;
    }
    if (e < 127)
        return 0;
    uint64_t m = (a & 0x7FFFFF) | 0x800000;
    int sh = e - 150;
    if (sh >= 41) {
        *over = 1;
        return 0;
    }
    return sh >= 0 ? m << sh : m >> -sh;
}

/* ---------------------------------------------------------------- binary64 */

/* Round (sign, e, sig) to binary64; sig's leading one is at bit 62 when e > 0. */
static uint64_t pack64(uint64_t sign, int e, uint64_t sig)
{
    if (e >= 0x7FF)
        return sign | F64_INF;
    if (e <= 0) {
        sig = shr64_sticky(sig, 1 - e);
        e = 0;
    }
    uint32_t rest = (uint32_t)sig & 0x3FF;   /* bit 9 is the half-ulp bit */
    sig >>= 10;
    if (rest > 0x200 || (rest == 0x200 && (sig & 1))) {
        sig++;
        if (sig == (1ull << 53)) {
            sig = 1ull << 52;
            e++;
            if (e >= 0x7FF)
                return sign | F64_INF;
        } else if (e == 0 && sig == (1ull << 52)) {
            e = 1;
        }
    }
    if (e == 0)
        return sign | sig;
    return sign | ((uint64_t)e << 52) | (sig & F64_FRAC);
}

static uint64_t nan64(uint64_t a, uint64_t b)
{
    return (IS_NAN64(a) ? a : b) | F64_QUIET;
}

static uint64_t norm64(uint64_t x, int *e)
{
    uint64_t m = x & F64_FRAC;
    *e = (int)((x >> 52) & 0x7FF);
    if (*e)
        return m | (1ull << 52);
    int s = clz64(m) - 11;
    *e = 1 - s;
    return m << s;
}

static uint64_t add64(uint64_t a, uint64_t b, uint64_t neg)
{
    if (IS_NAN64(a) || IS_NAN64(b))
        return nan64(a, b);
    b ^= neg;
    uint64_t sa = a & F64_SIGN, sb = b & F64_SIGN;
    int ea = (int)((a >> 52) & 0x7FF), eb = (int)((b >> 52) & 0x7FF);
    if (ea == 0x7FF || eb == 0x7FF) {
        if (ea == 0x7FF && eb == 0x7FF && sa != sb)
            return F64_DEFAULT_NAN;
        return ea == 0x7FF ? a : b;
    }
    uint64_t ma = a & F64_FRAC, mb = b & F64_FRAC;
    if (ea) ma |= 1ull << 52; else ea = 1;
    if (eb) mb |= 1ull << 52; else eb = 1;
    ma <<= 9;                           /* leading one at bit 61 */
    mb <<= 9;
    int e;
    if (ea >= eb) {
        e = ea;
        mb = shr64_sticky(mb, ea - eb);
    } else {
        e = eb;
        ma = shr64_sticky(ma, eb - ea);
    }
    uint64_t sign, sig;
    if (sa == sb) {
        sign = sa;
        sig = ma + mb;
    } else if (ma >= mb) {
        sign = sa;
        sig = ma - mb;
    } else {
        sign = sb;
        sig = mb - ma;
    }
    if (sig == 0)
        return sa == sb ? sa : 0;
    e += 1;
    int s = clz64(sig) - 1;
    sig <<= s;
    e -= s;
    return pack64(sign, e, sig);
}

static uint64_t mul64(uint64_t a, uint64_t b)
{
    if (IS_NAN64(a) || IS_NAN64(b))
        return nan64(a, b);
    uint64_t sign = (a ^ b) & F64_SIGN;
    uint64_t aa = a & ~F64_SIGN, ab = b & ~F64_SIGN;
    if (aa == F64_INF || ab == F64_INF) {
        if (aa == 0 || ab == 0)
            return F64_DEFAULT_NAN;
        return sign | F64_INF;
    }
    if (aa == 0 || ab == 0)
        return sign;
    int ea, eb;
    uint64_t ma = norm64(a, &ea), mb = norm64(b, &eb), hi, lo;
    mul_u64(ma, mb, &hi, &lo);          /* product in [2^104, 2^106) */
    int e = ea + eb - 1023;             /* (product / 2^42) * 2^(e - 1085) */
    uint64_t sig;
    if (hi >> 41) {
        sig = (hi << 21) | (lo >> 43) | ((lo & ((1ull << 43) - 1)) != 0);
        e++;
    } else {
        sig = (hi << 22) | (lo >> 42) | ((lo & ((1ull << 42) - 1)) != 0);
    }
    return pack64(sign, e, sig);
}

static uint64_t div64(uint64_t a, uint64_t b)
{
    if (IS_NAN64(a) || IS_NAN64(b))
        return nan64(a, b);
    uint64_t sign = (a ^ b) & F64_SIGN;
    uint64_t aa = a & ~F64_SIGN, ab = b & ~F64_SIGN;
    if (aa == F64_INF)
        return ab == F64_INF ? F64_DEFAULT_NAN : sign | F64_INF;
    if (ab == F64_INF)
        return sign;
    if (ab == 0)
        return aa == 0 ? F64_DEFAULT_NAN : sign | F64_INF;
    if (aa == 0)
        return sign;
    int ea, eb;
    uint64_t ma = norm64(a, &ea), mb = norm64(b, &eb);
    int e = ea - eb + 1023;
    if (ma < mb) {
        ma <<= 1;
        e--;
    }
    uint64_t q = 0, r = ma;
    for (int i = 0; i < 63; i++) {      /* 63 quotient bits: leading one at bit 62 */
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1;
        }
        r <<= 1;
    }
    return pack64(sign, e, q | (r != 0));
}

static uint64_t sqrt64(uint64_t a)
{
    if (IS_NAN64(a))
        return a | F64_QUIET;
    if ((a & ~F64_SIGN) == 0)
        return a;
    if (a & F64_SIGN)
        return F64_DEFAULT_NAN;
    if (a == F64_INF)
        return a;
    int e;
    uint64_t m = norm64(a, &e);         /* [2^52, 2^53); a = m * 2^(u - 52) */
    int u = e - 1023;
    if (u & 1) {                        /* even exponent: m in [2^52, 2^54) */
        m <<= 1;
        u--;
    }
    int inexact;
    uint64_t root = isqrt_bits(m, 27, 29, &inexact);   /* floor(sqrt(m) * 2^29), [2^55, 2^56) */
    /* sqrt(a) = root * 2^-29 * 2^((u-52)/2) = (root << 7) * 2^(e' - 1085), e' = u/2 + 1023 */
    return pack64(0, u / 2 + 1023, (root << 7) | inexact);
}

static int cmp64(uint64_t a, uint64_t b, int unordered)
{
    if (IS_NAN64(a) || IS_NAN64(b))
        return unordered;
    if (((a | b) & ~F64_SIGN) == 0)
        return 0;
    int64_t ka = (a & F64_SIGN) ? -(int64_t)(a & ~F64_SIGN) : (int64_t)a;
    int64_t kb = (b & F64_SIGN) ? -(int64_t)(b & ~F64_SIGN) : (int64_t)b;
    return (ka > kb) - (ka < kb);
}

static uint64_t from_u64_64(uint64_t u, uint64_t sign)
{
    if (u == 0)
        return sign;
    int s = clz64(u);
    uint64_t t = u << s;                /* leading one at bit 63 */
    return pack64(sign, 1086 - s, (t >> 1) | (t & 1));
}

static uint64_t trunc64_mag(uint64_t a, int *over)
{
    int e = (int)((a >> 52) & 0x7FF);
    *over = 0;
    if (e == 0x7FF) {
        *over = 1;
        return 0;
    }
    if (e < 1023)
        return 0;
    uint64_t m = (a & F64_FRAC) | (1ull << 52);
    int sh = e - 1075;
    if (sh >= 12) {
        *over = 1;
        return 0;
    }
    return sh >= 0 ? m << sh : m >> -sh;
}

static uint64_t extend32(uint32_t a)
{
    uint64_t sign = (uint64_t)(a & F32_SIGN) << 32;
    int e = (a >> 23) & 0xFF;
    uint64_t m = a & 0x7FFFFF;
    if (e == 0xFF)
        return sign | F64_INF | (m << 29) | (m ? F64_QUIET : 0);
    if (e == 0) {
        if (m == 0)
            return sign;
        uint32_t n = norm32(a, &e);
        m = n & 0x7FFFFF;
    }
    return sign | ((uint64_t)(e - 127 + 1023) << 52) | (m << 29);   /* exact */
}

static uint32_t trunc64to32(uint64_t a)
{
    uint32_t sign = (uint32_t)(a >> 32) & F32_SIGN;
    int e = (int)((a >> 52) & 0x7FF);
    uint64_t m = a & F64_FRAC;
    if (e == 0x7FF)
        return sign | F32_INF | (uint32_t)(m >> 29) | (m ? F32_QUIET : 0);
    if (e == 0 && m == 0)
        return sign;
    if (e == 0)                          /* binary64 subnormals are far below the binary32 range */
        return pack32(sign, -200, 1);
    m |= 1ull << 52;                     /* 53 bits -> leading one at bit 30 */
    return pack32(sign, e - 1023 + 127, (uint32_t)(m >> 22) | ((m & 0x3FFFFF) != 0));
}

/* ---------------------------------------------------------------- 64-bit integer helpers */

static uint64_t udivmod64(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0, r = 0;
    if (d == 0) {
        *rem = n;
        return ~0ull;
    }
    if ((n >> 32) == 0 && (d >> 32) == 0) {   /* the common small case */
        uint32_t q32 = (uint32_t)n / (uint32_t)d;
        *rem = (uint32_t)n - q32 * (uint32_t)d;
        return q32;
    }
    int top = 63 - clz64(n);
    for (int i = top; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= 1ull << i;
        }
    }
    *rem = r;
    return q;
}

/* ---------------------------------------------------------------- exported entry points */
#ifdef TG_HOST_TEST
uint32_t tg_add32(uint32_t a, uint32_t b) { return add32(a, b, 0); }
uint32_t tg_sub32(uint32_t a, uint32_t b) { return add32(a, b, F32_SIGN); }
uint32_t tg_mul32(uint32_t a, uint32_t b) { return mul32(a, b); }
uint32_t tg_div32(uint32_t a, uint32_t b) { return div32(a, b); }
uint32_t tg_sqrt32(uint32_t a) { return sqrt32(a); }
int tg_cmp32(uint32_t a, uint32_t b) { return cmp32(a, b, 2); }
uint64_t tg_add64(uint64_t a, uint64_t b) { return add64(a, b, 0); }
uint64_t tg_sub64(uint64_t a, uint64_t b) { return add64(a, b, F64_SIGN); }
uint64_t tg_mul64(uint64_t a, uint64_t b) { return mul64(a, b); }
uint64_t tg_div64(uint64_t a, uint64_t b) { return div64(a, b); }
uint64_t tg_sqrt64(uint64_t a) { return sqrt64(a); }
int tg_cmp64(uint64_t a, uint64_t b) { return cmp64(a, b, 2); }
uint64_t tg_extend(uint32_t a) { return extend32(a); }
uint32_t tg_trunc(uint64_t a) { return trunc64to32(a); }
uint32_t tg_i32_to_f32(int32_t i) { return i < 0 ? from_u32_32(0u - (uint32_t)i, F32_SIGN) : from_u32_32((uint32_t)i, 0); }
uint64_t tg_i32_to_f64(int32_t i) { return i < 0 ? from_u64_64(0u - (uint32_t)i, F64_SIGN) : from_u64_64((uint32_t)i, 0); }
uint32_t tg_u64_to_f32(uint64_t u) { return from_u64_32(u, 0); }
uint64_t tg_u64_to_f64(uint64_t u) { return from_u64_64(u, 0); }
int32_t tg_f32_to_i32(uint32_t a) { int o; uint64_t m = trunc32_mag(a, &o); if (o || m > 0x80000000u || (m == 0x80000000u && !(a & F32_SIGN))) return INT32_MIN; return (a & F32_SIGN) ? -(int32_t)(m - 1) - 1 : (int32_t)m; }
int32_t tg_f64_to_i32(uint64_t a) { int o; uint64_t m = trunc64_mag(a, &o); if (o || m > 0x80000000u || (m == 0x80000000u && !(a & F64_SIGN))) return INT32_MIN; return (a & F64_SIGN) ? -(int32_t)(m - 1) - 1 : (int32_t)m; }
uint64_t tg_udiv64(uint64_t n, uint64_t d) { uint64_t r; return udivmod64(n, d, &r); }
uint64_t tg_umod64(uint64_t n, uint64_t d) { uint64_t r; udivmod64(n, d, &r); return r; }
uint64_t tg_mul64lo(uint64_t a, uint64_t b) { uint64_t hi, lo; mul_u64(a, b, &hi, &lo); return lo; }
#else

typedef union { float f; uint32_t u; } f32bits;
typedef union { double d; uint64_t u; } f64bits;
static uint32_t U(float f) { f32bits x; x.f = f; return x.u; }
static float F(uint32_t u) { f32bits x; x.u = u; return x.f; }
static uint64_t UD(double d) { f64bits x; x.d = d; return x.u; }
static double D(uint64_t u) { f64bits x; x.u = u; return x.d; }

float __addsf3(float a, float b) { return F(add32(U(a), U(b), 0)); }
float __subsf3(float a, float b) { return F(add32(U(a), U(b), F32_SIGN)); }
float __mulsf3(float a, float b) { return F(mul32(U(a), U(b))); }
float __divsf3(float a, float b) { return F(div32(U(a), U(b))); }
float __negsf2(float a) { return F(U(a) ^ F32_SIGN); }
double __adddf3(double a, double b) { return D(add64(UD(a), UD(b), 0)); }
double __subdf3(double a, double b) { return D(add64(UD(a), UD(b), F64_SIGN)); }
double __muldf3(double a, double b) { return D(mul64(UD(a), UD(b))); }
double __divdf3(double a, double b) { return D(div64(UD(a), UD(b))); }
double __negdf2(double a) { return D(UD(a) ^ F64_SIGN); }
float sqrtf(float a) { return F(sqrt32(U(a))); }
double sqrt(double a) { return D(sqrt64(UD(a))); }

/* Comparisons, as libgcc defines them: eq/ne return 0 iff equal; lt < 0, le <= 0, gt > 0, ge >= 0
 * iff the relation holds (so a NaN must give the answer that makes the relation false). */
int __eqsf2(float a, float b) { return cmp32(U(a), U(b), 1); }
int __nesf2(float a, float b) { return cmp32(U(a), U(b), 1); }
int __ltsf2(float a, float b) { return cmp32(U(a), U(b), 1); }
int __lesf2(float a, float b) { return cmp32(U(a), U(b), 1); }
int __gtsf2(float a, float b) { return cmp32(U(a), U(b), -1); }
int __gesf2(float a, float b) { return cmp32(U(a), U(b), -1); }
int __cmpsf2(float a, float b) { return cmp32(U(a), U(b), 1); }
int __unordsf2(float a, float b) { return IS_NAN32(U(a)) || IS_NAN32(U(b)); }
int __eqdf2(double a, double b) { return cmp64(UD(a), UD(b), 1); }
int __nedf2(double a, double b) { return cmp64(UD(a), UD(b), 1); }
int __ltdf2(double a, double b) { return cmp64(UD(a), UD(b), 1); }
int __ledf2(double a, double b) { return cmp64(UD(a), UD(b), 1); }
int __gtdf2(double a, double b) { return cmp64(UD(a), UD(b), -1); }
int __gedf2(double a, double b) { return cmp64(UD(a), UD(b), -1); }
int __cmpdf2(double a, double b) { return cmp64(UD(a), UD(b), 1); }
int __unorddf2(double a, double b) { return IS_NAN64(UD(a)) || IS_NAN64(UD(b)); }

/* Conversions */
double __extendsfdf2(float a) { return D(extend32(U(a))); }
float __truncdfsf2(double a) { return F(trunc64to32(UD(a))); }
float __floatsisf(int32_t i) { return F(i < 0 ? from_u32_32(0u - (uint32_t)i, F32_SIGN) : from_u32_32((uint32_t)i, 0)); }
float __floatunsisf(uint32_t u) { return F(from_u32_32(u, 0)); }
float __floatdisf(int64_t i) { return F(i < 0 ? from_u64_32(0ull - (uint64_t)i, F32_SIGN) : from_u64_32((uint64_t)i, 0)); }
float __floatundisf(uint64_t u) { return F(from_u64_32(u, 0)); }
double __floatsidf(int32_t i) { return D(i < 0 ? from_u64_64(0u - (uint32_t)i, F64_SIGN) : from_u64_64((uint32_t)i, 0)); }
double __floatunsidf(uint32_t u) { return D(from_u64_64(u, 0)); }
double __floatdidf(int64_t i) { return D(i < 0 ? from_u64_64(0ull - (uint64_t)i, F64_SIGN) : from_u64_64((uint64_t)i, 0)); }
double __floatundidf(uint64_t u) { return D(from_u64_64(u, 0)); }

static int32_t to_i32(uint64_t mag, int over, int neg)
{
    if (over || mag > 0x80000000u || (mag == 0x80000000u && !neg))
        return INT32_MIN;
    return neg ? -(int32_t)(mag - 1) - 1 : (int32_t)mag;
}
static int64_t to_i64(uint64_t mag, int over, int neg)
{
    if (over || mag > 0x8000000000000000ull || (mag == 0x8000000000000000ull && !neg))
        return INT64_MIN;
    return neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
}
int32_t __fixsfsi(float a) { int o; uint64_t m = trunc32_mag(U(a), &o); return to_i32(m, o, U(a) >> 31); }
int32_t __fixdfsi(double a) { int o; uint64_t m = trunc64_mag(UD(a), &o); return to_i32(m, o, UD(a) >> 63); }
int64_t __fixsfdi(float a) { int o; uint64_t m = trunc32_mag(U(a), &o); return to_i64(m, o, U(a) >> 31); }
int64_t __fixdfdi(double a) { int o; uint64_t m = trunc64_mag(UD(a), &o); return to_i64(m, o, UD(a) >> 63); }
/* unsigned: negative inputs (undefined in C) wrap like the signed conversion */
uint32_t __fixunssfsi(float a) { int o; uint64_t m = trunc32_mag(U(a), &o); return (U(a) >> 31) ? (uint32_t)to_i32(m, o, 1) : (o || m >> 32) ? 0 : (uint32_t)m; }
uint32_t __fixunsdfsi(double a) { int o; uint64_t m = trunc64_mag(UD(a), &o); return (UD(a) >> 63) ? (uint32_t)to_i32(m, o, 1) : (o || m >> 32) ? 0 : (uint32_t)m; }
uint64_t __fixunssfdi(float a) { int o; uint64_t m = trunc32_mag(U(a), &o); return (U(a) >> 31) ? (uint64_t)to_i64(m, o, 1) : o ? 0 : m; }
uint64_t __fixunsdfdi(double a) { int o; uint64_t m = trunc64_mag(UD(a), &o); return (UD(a) >> 63) ? (uint64_t)to_i64(m, o, 1) : o ? 0 : m; }

/* 64-bit integer arithmetic */
uint64_t __muldi3(uint64_t a, uint64_t b) { uint64_t hi, lo; mul_u64(a, b, &hi, &lo); return lo; }
uint64_t __udivdi3(uint64_t n, uint64_t d) { uint64_t r; return udivmod64(n, d, &r); }
uint64_t __umoddi3(uint64_t n, uint64_t d) { uint64_t r; udivmod64(n, d, &r); return r; }
int64_t __divdi3(int64_t n, int64_t d)
{
    uint64_t r, q = udivmod64(n < 0 ? 0ull - (uint64_t)n : (uint64_t)n, d < 0 ? 0ull - (uint64_t)d : (uint64_t)d, &r);
    return ((n < 0) != (d < 0)) ? (int64_t)(0ull - q) : (int64_t)q;
}
int64_t __moddi3(int64_t n, int64_t d)
{
    uint64_t r;
    udivmod64(n < 0 ? 0ull - (uint64_t)n : (uint64_t)n, d < 0 ? 0ull - (uint64_t)d : (uint64_t)d, &r);
    return n < 0 ? (int64_t)(0ull - r) : (int64_t)r;
}
#endif

/* Shared with decimal.c (strtod rounds through the same packing). */
uint32_t __tg_pack32(uint32_t sign, int e, uint32_t sig) { return pack32(sign, e, sig); }
uint64_t __tg_pack64(uint64_t sign, int e, uint64_t sig) { return pack64(sign, e, sig); }
uint64_t __tg_mul_u32(uint32_t a, uint32_t b) { return mul_u32(a, b); }
