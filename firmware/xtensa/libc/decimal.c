/* Exact binary <-> decimal conversion for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later).
 *
 * printf's %f %e %g and strtod/strtof work on big integers, so their results are exact:
 *  - formatting: a finite double is m * 2^e exactly (m, e integers). Its decimal digits are generated
 *    from the fraction R/S (R = m * 2^max(e,0), S = 2^max(-e,0), one of them scaled by a power of ten so
 *    that 1 <= R/S < 10), one digit at a time (digit = floor(R/S), R = 10 (R - digit S)), and the
 *    last printed digit is rounded to nearest, ties to even, by comparing the exact remainder with
 *    half a unit (C11 7.21.6.1 leaves the rounding to the implementation; glibc rounds the exact
 *    binary value in the current rounding mode, by default to nearest-even, which this reproduces);
 *  - parsing: the decimal string is D * 10^E exactly (D an integer of its significant digits); the
 *    quotient N/M (N = D * 10^max(E,0), M = 10^max(-E,0)) is normalized into [1, 2) by a power of two
 *    and its binary expansion taken bit by bit, with a sticky bit for a nonzero remainder, then rounded
 *    once to binary64 or binary32 (round to nearest, ties to even: IEEE 754-2008 §5.12.2 asks for
 *    correct rounding of conversions from decimal character sequences).
 * Limits: at most 120 significant digits of a decimal input are kept; further digits only act as a
 * sticky "nonzero tail" (exact unless a binary halfway point has more than 120 digits). Precision in
 * printf is clamped to TG_FP_MAXPREC. */
#include <stdint.h>
#include <stddef.h>

#ifdef TG_HOST_TEST
#define TG(name) tg_##name
#else
#define TG(name) __tg_##name
#endif

uint32_t __tg_pack32(uint32_t sign, int e, uint32_t sig);
uint64_t __tg_pack64(uint64_t sign, int e, uint64_t sig);

#define TG_FP_MAXPREC 400
#define BIG_WORDS 56                    /* 1792 bits: printf needs ~1090, strtod ~1510 (see below) */
#define MAX_DIGITS 120

typedef struct {
    int n;                              /* words in use; w[n-1] != 0 unless n == 0 */
    uint32_t w[BIG_WORDS];
} big;

static void big_set(big *b, uint64_t v)
{
    b->n = 0;
    while (v) {
        b->w[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static void big_copy(big *d, const big *s)
{
    d->n = s->n;
    for (int i = 0; i < s->n; i++)
        d->w[i] = s->w[i];
}

static int clz64(uint64_t x)
{
    uint32_t hi = (uint32_t)(x >> 32);
    return hi ? __builtin_clz(hi) : 32 + __builtin_clz((uint32_t)x);
}

/* w * q for q < 2^16: low word returned, high word (< 2^16) in *hi (two 32-bit MULLs, no call) */
static uint32_t mul_w16(uint32_t w, uint32_t q, uint32_t *hi)
{
    uint32_t lo = (w & 0xFFFF) * q, mid = (w >> 16) * q;
    uint32_t low = lo + (mid << 16);
    *hi = (mid >> 16) + (low < lo);
    return low;
}

static void big_mul_add(big *b, uint32_t m, uint32_t add)   /* b = b * m + add, m < 2^16 */
{
    uint32_t carry = add;
    for (int i = 0; i < b->n; i++) {
        uint32_t hi, lo = mul_w16(b->w[i], m, &hi);
        uint32_t t = lo + carry;
        carry = hi + (t < lo);
        b->w[i] = t;
    }
    if (carry && b->n < BIG_WORDS)
        b->w[b->n++] = carry;
}

static void big_shl(big *b, int bits);

static void big_mul_pow10(big *b, int k)   /* 10^k = 5^k * 2^k; 5^6 = 15625 < 2^16 per pass */
{
    static const uint16_t p5[6] = { 1, 5, 25, 125, 625, 3125 };
    int j = k;
    for (; j >= 6; j -= 6)
        big_mul_add(b, 15625, 0);
    if (j > 0)
        big_mul_add(b, p5[j], 0);
    big_shl(b, k);
}

static void big_shl(big *b, int bits)
{
    if (b->n == 0 || bits <= 0)
        return;
    int words = bits / 32, sh = bits % 32;
    int n = b->n + words + 1;
    if (n > BIG_WORDS)
        n = BIG_WORDS;
    for (int i = n - 1; i >= 0; i--) {
        int src = i - words;
        uint32_t hi = src >= 0 && src < b->n ? b->w[src] : 0;
        uint32_t lo = src - 1 >= 0 && src - 1 < b->n ? b->w[src - 1] : 0;
        b->w[i] = sh ? (hi << sh) | (lo >> (32 - sh)) : hi;
    }
    b->n = n;
    while (b->n && b->w[b->n - 1] == 0)
        b->n--;
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n)
        return a->n > b->n ? 1 : -1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] > b->w[i] ? 1 : -1;
    return 0;
}

static void big_sub(big *a, const big *b)   /* a -= b, a >= b */
{
    uint32_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        uint32_t bi = i < b->n ? b->w[i] : 0;
        uint32_t d = a->w[i] - bi - borrow;
        borrow = (a->w[i] < bi) || (a->w[i] - bi < borrow);
        a->w[i] = d;
    }
    while (a->n && a->w[a->n - 1] == 0)
        a->n--;
}

static void big_submul(big *a, const big *b, uint32_t q)   /* a -= q * b, q < 2^16, result >= 0 */
{
    uint32_t carry = 0, borrow = 0;
    for (int i = 0; i < a->n; i++) {
        uint32_t hi = 0, lo = i < b->n ? mul_w16(b->w[i], q, &hi) : 0;
        uint32_t t = lo + carry;
        carry = hi + (t < lo);
        uint32_t d = a->w[i] - t - borrow;
        borrow = (a->w[i] < t) || (a->w[i] - t < borrow);
        a->w[i] = d;
    }
    while (a->n && a->w[a->n - 1] == 0)
        a->n--;
}

/* floor(N / M) for N < 2^16 M, M normalized (top word >= 2^31); N becomes N mod M. The estimate
 * from N's top two words over M's top word + 1 is at most 2 below the quotient (the ignored lower
 * words change the ratio by less than 2^-31 relative), so a few subtractions finish it. */
static uint32_t big_quot(big *N, const big *M)
{
    int n = M->n;
    uint64_t top = ((uint64_t)(N->n > n ? N->w[n] : 0) << 32) | (N->n >= n ? N->w[n - 1] : 0);
    uint64_t d = (uint64_t)M->w[n - 1] + 1;
    uint32_t q = 0;
    for (int i = 15; i >= 0; i--) {     /* top / d, 16 quotient bits */
        if (top >= d << i) {
            top -= d << i;
            q |= 1u << i;
        }
    }
    if (q)
        big_submul(N, M, q);
    while (big_cmp(N, M) >= 0) {
        big_sub(N, M);
        q++;
    }
    return q;
}

static int big_bitlen(const big *b)
{
    return b->n ? 32 * b->n - __builtin_clz(b->w[b->n - 1]) : 0;
}

/* ---------------------------------------------------------------- binary64 -> decimal digits */

/* Digits of |x| (x finite and nonzero, given by its bits) rounded to nearest-even: if fixed, down to
 * the digit of 10^-prec; otherwise prec (>= 1) significant digits. Writes the digits (ASCII) to dig,
 * returns their number (0 if a fixed-point result rounds to zero) and the decimal exponent of the first
 * digit in *dexp. Sizes: R and S stay below 10 * 2^1078 (~1082 bits). */
static int digits(uint64_t bits, int fixed, int prec, char *dig, int *dexp)
{
    uint64_t m = bits & 0x000FFFFFFFFFFFFFull;
    int be = (int)((bits >> 52) & 0x7FF);
    int e2;
    if (be) {
        m |= 1ull << 52;
        e2 = be - 1075;
    } else {
        e2 = -1074;
    }
    big R, S, T;
    big_set(&R, m);
    big_set(&S, 1);
    if (e2 >= 0)
        big_shl(&R, e2);
    else
        big_shl(&S, -e2);
    /* floor(log2 x) * log10(2), log10(2) ~ 78913 / 2^18 (slightly less): k is the decimal exponent or
     * one below it; the loops below settle it. */
    int lb = 63 - clz64(m) + e2;
    int k = (lb * 78913) >> 18;        /* arithmetic shift: floor for negative values too */
    if (k >= 0)
        big_mul_pow10(&S, k);
    else
        big_mul_pow10(&R, -k);
    for (;;) {                          /* R/S < 10 */
        big_copy(&T, &S);
        big_mul_add(&T, 10, 0);
        if (big_cmp(&R, &T) < 0)
            break;
        big_copy(&S, &T);
        k++;
    }
    while (big_cmp(&R, &S) < 0) {       /* R/S >= 1 */
        big_mul_add(&R, 10, 0);
        k--;
    }
    int norm = __builtin_clz(S.w[S.n - 1]);   /* top word of S >= 2^31 for big_quot */
    big_shl(&S, norm);
    big_shl(&R, norm);
    int n = fixed ? k + 1 + prec : prec;
    if (n < 0) {                        /* below half a unit of the last printed digit */
        *dexp = k;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        dig[i] = (char)('0' + big_quot(&R, &S));
        big_mul_add(&R, 10, 0);
    }
    /* R/S is now ten times the remainder in units of the last digit: compare it with 5 */
    big_copy(&T, &S);
    big_mul_add(&T, 5, 0);
    int c = big_cmp(&R, &T);
    int up = c > 0 || (c == 0 && n > 0 && ((dig[n - 1] - '0') & 1));
    if (up) {
        int i = n - 1;
        while (i >= 0 && dig[i] == '9')
            dig[i--] = '0';
        if (i >= 0) {
            dig[i]++;
        } else {                        /* 99..9 -> 100..0: one more digit in front */
            dig[0] = '1';
            if (fixed) {                /* the last digit keeps its position */
                if (n > 0)
                    dig[n] = '0';
                n++;
            }
            k++;
        }
    }
    *dexp = k;
    return n;
}

#define FL_PLUS 1
#define FL_SPACE 2
#define FL_ALT 4

/* Formats the double with bits `bits` for conversion conv (f F e E g G) and precision prec (< 0:
 * default 6) into out, sign included, no field width padding. Returns the length; *body is set to
 * the length of the sign (zero padding goes after it; none for inf and nan).
 * out needs TG_FP_MAXPREC + 330 bytes. */
int TG(fmt_fp)(char *out, uint64_t bits, int conv, int prec, int flags, int *body)
{
    char *p = out;
    int upper = conv >= 'A' && conv <= 'Z';
    int c = conv | 0x20;
    if (bits >> 63)
        *p++ = '-';
    else if (flags & FL_PLUS)
        *p++ = '+';
    else if (flags & FL_SPACE)
        *p++ = ' ';
    *body = (int)(p - out);
    if (((bits >> 52) & 0x7FF) == 0x7FF) {   /* C11 7.21.6.1: inf / nan (INF / NAN for F E G) */
        const char *s = (bits & 0x000FFFFFFFFFFFFFull) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
        while (*s)
            *p++ = *s++;
        return (int)(p - out);
    }
    if (prec < 0)
        prec = 6;
    if (prec > TG_FP_MAXPREC)
        prec = TG_FP_MAXPREC;
    int zero = (bits << 1) == 0;
    char dig[TG_FP_MAXPREC + 330];
    int n = 0, k = 0, alt = flags & FL_ALT, strip = 0;
    int exp_form = c == 'e';
    if (c == 'g') {
        /* C11 7.21.6.1: P = prec (1 if 0); X = exponent as for %e with precision P - 1; if P > X >= -4
         * use %f with precision P - 1 - X, else %e with P - 1; trailing zeros go unless '#'. */
        int P = prec ? prec : 1;
        if (!zero)
            n = digits(bits, 0, P, dig, &k);
        if (P > k && k >= -4) {
            prec = P - 1 - k;
        } else {
            prec = P - 1;
            exp_form = 1;
        }
        strip = !alt;
    } else if (!zero) {
        n = digits(bits, !exp_form, exp_form ? prec + 1 : prec, dig, &k);
    }
    if (zero)
        k = 0;
    char *start = p;
    if (exp_form) {
        *p++ = n > 0 ? dig[0] : '0';
        if (prec > 0 || alt)
            *p++ = '.';
        for (int i = 1; i <= prec; i++)
            *p++ = i < n ? dig[i] : '0';
    } else {
        /* digit of 10^pos is dig[k - pos] when 0 <= k - pos < n, else 0 */
        for (int pos = k > 0 ? k : 0; pos >= 0; pos--)
            *p++ = (k - pos >= 0 && k - pos < n) ? dig[k - pos] : '0';
        if (prec > 0 || alt)
            *p++ = '.';
        for (int pos = -1; pos >= -prec; pos--)
            *p++ = (k - pos >= 0 && k - pos < n) ? dig[k - pos] : '0';
    }
    if (strip) {
        char *dot = start;
        while (dot < p && *dot != '.')
            dot++;
        if (dot < p) {
            while (p > dot + 1 && p[-1] == '0')
                p--;
            if (p == dot + 1)
                p--;
        }
    }
    if (exp_form) {                     /* exponent: at least two digits */
        int x = zero ? 0 : k;
        *p++ = upper ? 'E' : 'e';
        *p++ = x < 0 ? '-' : '+';
        if (x < 0)
            x = -x;
        if (x >= 100)
            *p++ = (char)('0' + x / 100);
        *p++ = (char)('0' + x / 10 % 10);
        *p++ = (char)('0' + x % 10);
    }
    return (int)(p - out);
}

/* ---------------------------------------------------------------- decimal -> binary64 / binary32 */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int match_word(const char *s, const char *w)   /* case-insensitive prefix */
{
    int i = 0;
    for (; w[i]; i++)
        if (lower((unsigned char)s[i]) != w[i])
            return 0;
    return i;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static long exponent_part(const char **pp, int marker)   /* [eEpP][+-]digits, or 0 */
{
    const char *q = *pp;
    if (lower((unsigned char)*q) != marker)
        return 0;
    q++;
    int neg = 0;
    if (*q == '-' || *q == '+')
        neg = *q++ == '-';
    if (*q < '0' || *q > '9')
        return 0;
    long x = 0;
    for (; *q >= '0' && *q <= '9'; q++)
        if (x < 100000)
            x = x * 10 + (*q - '0');
    *pp = q;
    return neg ? -x : x;
}

/* Hexadecimal significand after "0x" (C11 7.22.1.3): the bits without the sign, or ~0 if no hex digit
 * follows (then only the "0" is a number). Up to 15 hex digits are kept, the rest is sticky. */
static uint64_t hexfloat(const char *q, char **end, int dbl)
{
    uint64_t h = 0;
    long be = 0;
    int any = 0, sticky = 0, v;
    for (; (v = hexval((unsigned char)*q)) >= 0; q++) {
        any = 1;
        if (h >> 58) {
            be += 4;
            sticky |= v != 0;
        } else {
            h = h * 16 + (uint64_t)v;
        }
    }
    if (*q == '.') {
        const char *r = q + 1;
        for (; (v = hexval((unsigned char)*r)) >= 0; r++) {
            any = 1;
            if (h >> 58) {
                sticky |= v != 0;
            } else {
                h = h * 16 + (uint64_t)v;
                be -= 4;
            }
        }
        if (any)
            q = r;
    }
    if (!any)
        return ~0ull;
    be += exponent_part(&q, 'p');
    if (end)
        *end = (char *)q;
    if (h == 0)
        return 0;
    if (be > 5000)
        be = 5000;
    if (be < -5000)
        be = -5000;
    int s = clz64(h);
    h <<= s;                            /* value = h * 2^(be - s), leading one at bit 63 */
    if (dbl)
        return __tg_pack64(0, (int)be - s + 1086, (h >> 1) | (h & 1) | (uint64_t)sticky);
    return __tg_pack32(0, (int)be - s + 190, (uint32_t)(h >> 33) | ((h & 0x1FFFFFFFFull) != 0) | (uint32_t)sticky);
}

/* strtod / strtof core: returns the bits of the result (binary32 in the low half if !dbl). */
uint64_t TG(strtofp)(const char *s, char **end, int dbl)
{
    const char *p = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    uint64_t sign = 0;
    if (*p == '-' || *p == '+')
        sign = *p++ == '-';
    uint64_t inf = dbl ? 0x7FF0000000000000ull : 0x7F800000u;
    uint64_t nan = dbl ? 0x7FF8000000000000ull : 0x7FC00000u;
    uint64_t sbit = sign ? (dbl ? 0x8000000000000000ull : 0x80000000u) : 0;
    int w;
    if ((w = match_word(p, "inf"))) {
        p += w;
        if ((w = match_word(p, "inity")))
            p += w;
        if (end)
            *end = (char *)p;
        return sbit | inf;
    }
    if ((w = match_word(p, "nan"))) {
        p += w;
        if (*p == '(') {                /* nan(n-char-sequence) */
            const char *q = p + 1;
            while ((*q >= '0' && *q <= '9') || (lower(*q) >= 'a' && lower(*q) <= 'z') || *q == '_')
                q++;
            if (*q == ')')
                p = q + 1;
        }
        if (end)
            *end = (char *)p;
        return sbit | nan;
    }
    if (p[0] == '0' && lower((unsigned char)p[1]) == 'x') {
        uint64_t r = hexfloat(p + 2, end, dbl);
        if (r != ~0ull)
            return sbit | r;
    }
    char dig[MAX_DIGITS + 1];
    int nd = 0, any = 0, sticky = 0;
    long dexp = 0;                      /* value = 0.dig... * 10^? : D * 10^(dexp) below */
    for (; *p >= '0' && *p <= '9'; p++) {
        any = 1;
        if (nd == 0 && *p == '0')
            continue;                   /* leading zero */
        if (nd < MAX_DIGITS)
            dig[nd++] = *p;
        else {
            dexp++;
            sticky |= *p != '0';
        }
    }
    if (*p == '.') {
        const char *q = p + 1;
        int frac_any = 0;
        for (; *q >= '0' && *q <= '9'; q++) {
            frac_any = 1;
            if (nd == 0 && *q == '0') {
                dexp--;
                continue;
            }
            if (nd < MAX_DIGITS) {
                dig[nd++] = *q;
                dexp--;
            } else {
                sticky |= *q != '0';
            }
        }
        if (any || frac_any) {
            any = 1;
            p = q;
        }
    }
    if (!any) {                         /* no number: nothing consumed */
        if (end)
            *end = (char *)s;
        return 0;
    }
    dexp += exponent_part(&p, 'e');
    if (end)
        *end = (char *)p;
    if (nd == 0)
        return sbit;                    /* zero */
    if (sticky) {                       /* dropped nonzero digits: a 1 just below the kept ones */
        dig[nd++] = '1';
        dexp--;
    }
    long t = dexp + nd;                 /* value in [10^(t-1), 10^t) */
    if (t > 310)
        return sbit | inf;
    if (t < -330)
        return sbit;                    /* below 10^-330, under half the smallest subnormal */
    big N, M;
    big_set(&N, 0);
    for (int i = 0; i < nd; i++)
        big_mul_add(&N, 10, (uint32_t)(dig[i] - '0'));
    big_set(&M, 1);
    /* sizes: N <= 10^310 (1030 bits) or N <= 10^121 and M <= 10^451 (1499 bits), plus 2 bits */
    if (dexp >= 0)
        big_mul_pow10(&N, (int)dexp);
    else
        big_mul_pow10(&M, (int)-dexp);
    int be = big_bitlen(&N) - big_bitlen(&M);
    if (be > 0)
        big_shl(&M, be);
    else
        big_shl(&N, -be);
    if (big_cmp(&N, &M) < 0) {          /* N/M in [1, 2) */
        big_shl(&N, 1);
        be--;
    }
    int norm = __builtin_clz(M.w[M.n - 1]);   /* top word of M >= 2^31 for big_quot */
    big_shl(&M, norm);
    big_shl(&N, norm);
    big_sub(&N, &M);                    /* the integer bit, 1 */
    uint64_t q = 1;
    int bits = dbl ? 62 : 30;           /* fraction bits: leading one at bit 62 / 30 as pack expects */
    for (; bits > 0; bits -= 16) {
        int b = bits < 16 ? bits : 16;
        big_shl(&N, b);
        q = (q << b) | big_quot(&N, &M);
    }
    q |= N.n != 0;
    if (dbl)
        return __tg_pack64(sbit, be + 1023, q);
    return __tg_pack32((uint32_t)sbit, be + 127, (uint32_t)q);
}
