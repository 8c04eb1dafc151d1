/* Minimal C library for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later).
 * Output and exit go through SIMCALL (Xtensa ISS semihosting: a2 = call number, a3.. = arguments,
 * numbers from Linux arch/xtensa/platforms/iss/include/platform/simcall-iss.h: exit 1, write 4).
 * printf supports the flags - + space # 0, width and precision (also *), the length modifiers
 * h, hh, l, z, L and the conversions d i u x X o c s p % f F e E g G (floating point: decimal.c).
 * The Debian LX106 libgcc has no 32-bit division helpers, so they are here too; soft float is in
 * softfloat.c, libm in math.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMC_EXIT 1
#define SIMC_WRITE 4

static int simcall(int nr, int a, int b, int c)
{
    register int a2 __asm__("a2") = nr;
    register int a3 __asm__("a3") = a;
    register int a4 __asm__("a4") = b;
    register int a5 __asm__("a5") = c;
    __asm__ volatile("simcall" : "+r"(a2), "+r"(a3) : "r"(a4), "r"(a5) : "memory");
    return a2;
}

void exit(int code)
{
    for (;;)
        simcall(SIMC_EXIT, code, 0, 0);
}

int main(void);

/* Entered from start_call0.S / start_windowed.S. */
uint32_t run_all(void)
{
    exit(main());
}

/* ---- 32-bit division (restoring shift-subtract) ---- */
static uint32_t udivmod(uint32_t n, uint32_t d, uint32_t *rem)
{
    uint32_t q = 0, r = 0;
    for (int i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d) {
            r -= d;
            q |= 1u << i;
        }
    }
    *rem = r;
    return q;
}
uint32_t __udivsi3(uint32_t n, uint32_t d) { uint32_t r; return udivmod(n, d, &r); }
uint32_t __umodsi3(uint32_t n, uint32_t d) { uint32_t r; udivmod(n, d, &r); return r; }
int32_t __divsi3(int32_t n, int32_t d)
{
    uint32_t r, q = udivmod(n < 0 ? 0u - (uint32_t)n : (uint32_t)n, d < 0 ? 0u - (uint32_t)d : (uint32_t)d, &r);
    return ((n < 0) != (d < 0)) ? (int32_t)(0u - q) : (int32_t)q;
}
int32_t __modsi3(int32_t n, int32_t d)
{
    uint32_t r;
    udivmod(n < 0 ? 0u - (uint32_t)n : (uint32_t)n, d < 0 ? 0u - (uint32_t)d : (uint32_t)d, &r);
    return n < 0 ? (int32_t)(0u - r) : (int32_t)r;
}

/* ---- memory and strings ---- */
void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}
void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}
void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}
int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}
size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}
int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}
int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            break;
    }
    return 0;
}
char *strcpy(char *dst, const char *src)
{
    char *d = dst;
    while ((*d++ = *src++))
        ;
    return dst;
}
char *strncpy(char *dst, const char *src, size_t n)   /* pads with NULs up to n (C11 7.24.2.4) */
{
    size_t i = 0;
    for (; i < n && src[i]; i++)
        dst[i] = src[i];
    for (; i < n; i++)
        dst[i] = '\0';
    return dst;
}
char *strcat(char *dst, const char *src)
{
    strcpy(dst + strlen(dst), src);
    return dst;
}
char *strncat(char *dst, const char *src, size_t n)
{
    char *d = dst + strlen(dst);
    while (n-- && *src)
        *d++ = *src++;
    *d = '\0';
    return dst;
}
char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}
char *strrchr(const char *s, int c)
{
    const char *r = NULL;
    for (;; s++) {
        if (*s == (char)c)
            r = s;
        if (!*s)
            return (char *)r;
    }
}
char *strstr(const char *h, const char *n)
{
    size_t len = strlen(n);
    for (; *h; h++)
        if (!strncmp(h, n, len))
            return (char *)h;
    return len ? NULL : (char *)h;
}
void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    for (; n; n--, p++)
        if (*p == (unsigned char)c)
            return (void *)p;
    return NULL;
}

/* ---- stdlib ---- */
int abs(int v) { return v < 0 ? -v : v; }
long labs(long v) { return v < 0 ? -v : v; }

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* strtol/strtoul (C11 7.22.1.4): space, sign, 0x/0X for base 16 or 0, leading 0 = octal for base 0.
 * Returns the magnitude (saturated at ULONG_MAX with *over set); no digits: *end = s, 0. */
static unsigned long parse_ul(const char *s, char **end, int base, int *neg, int *over)
{
    const char *p = s;
    *neg = *over = 0;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    if (*p == '-' || *p == '+')
        *neg = *p++ == '-';
    if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 0x20) == 'x' && digit_value(p[2]) < 16) {
        p += 2;
        base = 16;
    } else if (base == 0) {
        base = p[0] == '0' ? 8 : 10;
    }
    unsigned long v = 0, lim = 0xFFFFFFFFu / (unsigned)base, limd = 0xFFFFFFFFu % (unsigned)base;
    const char *start = p;
    int d;
    for (; (d = digit_value(*p)) < base; p++) {
        if (v > lim || (v == lim && (unsigned)d > limd))
            *over = 1;
        else
            v = v * (unsigned)base + (unsigned)d;
    }
    if (p == start) {
        if (end)
            *end = (char *)s;
        return 0;
    }
    if (end)
        *end = (char *)p;
    return *over ? 0xFFFFFFFFu : v;
}

long strtol(const char *s, char **end, int base)
{
    int neg, over;
    unsigned long m = parse_ul(s, end, base, &neg, &over);
    if (neg)
        return m > 0x80000000u ? (long)-2147483647 - 1 : (long)(0u - m);
    return m > 0x7FFFFFFFu ? 2147483647L : (long)m;
}

unsigned long strtoul(const char *s, char **end, int base)
{
    int neg, over;
    unsigned long m = parse_ul(s, end, base, &neg, &over);
    return (neg && !over) ? 0u - m : m;
}

int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
long atol(const char *s) { return strtol(s, NULL, 10); }

uint64_t __tg_strtofp(const char *s, char **end, int dbl);
double strtod(const char *s, char **end)
{
    union { double d; uint64_t u; } v;
    v.u = __tg_strtofp(s, end, 1);
    return v.d;
}
float strtof(const char *s, char **end)
{
    union { float f; uint32_t u; } v;
    v.u = (uint32_t)__tg_strtofp(s, end, 0);
    return v.f;
}
double atof(const char *s) { return strtod(s, NULL); }

/* qsort: heapsort (in place, O(n log n); C11 7.22.5.2 does not ask for stability). */
static void swap_bytes(unsigned char *a, unsigned char *b, size_t n)
{
    while (n--) {
        unsigned char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

static void sift_down(unsigned char *base, size_t root, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
            child++;
        if (cmp(base + root * size, base + child * size) >= 0)
            return;
        swap_bytes(base + root * size, base + child * size, size);
        root = child;
    }
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    unsigned char *b = base;
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(b, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        swap_bytes(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}

/* ---- formatting ---- */
#define TG_FP_BUF (400 + 330)   /* decimal.c: TG_FP_MAXPREC + 330 */
int __tg_fmt_fp(char *out, uint64_t bits, int conv, int prec, int flags, int *sign_len);

struct out {
    char *buf;
    size_t size, len;
};

static void emit(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void pad(struct out *o, char c, int n)
{
    while (n-- > 0)
        emit(o, c);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            emit(&o, *fmt);
            continue;
        }
        int left = 0, plus = 0, space = 0, alt = 0, zero = 0, width = 0, prec = -1, lng = 0;
        for (;; fmt++) {
            char f = fmt[1];
            if (f == '-') left = 1;
            else if (f == '+') plus = 1;
            else if (f == ' ') space = 1;
            else if (f == '#') alt = 1;
            else if (f == '0') zero = 1;
            else break;
        }
        fmt++;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) left = 1, width = -width;
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    prec = prec * 10 + (*fmt++ - '0');
            }
        }
        while (*fmt == 'h' || *fmt == 'l' || *fmt == 'z' || *fmt == 'L') {
            if (*fmt == 'l') lng++;
            fmt++;
        }
        (void)lng;
        char c = *fmt;
        if (!c)
            break;
        if (c == 'c') {
            if (!left) pad(&o, ' ', width - 1);
            emit(&o, (char)va_arg(ap, int));
            if (left) pad(&o, ' ', width - 1);
            continue;
        }
        if (c == 's') {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            int n = 0;
            while (s[n] && (prec < 0 || n < prec))
                n++;
            if (!left) pad(&o, ' ', width - n);
            for (int i = 0; i < n; i++)
                emit(&o, s[i]);
            if (left) pad(&o, ' ', width - n);
            continue;
        }
        if (c == '%') {
            emit(&o, '%');
            continue;
        }
        if (c == 'f' || c == 'F' || c == 'e' || c == 'E' || c == 'g' || c == 'G') {
            union { double d; uint64_t u; } v;
            v.d = va_arg(ap, double);
            char fb[TG_FP_BUF];
            int sign_len;
            int n = __tg_fmt_fp(fb, v.u, c, prec, (plus ? 1 : 0) | (space ? 2 : 0) | (alt ? 4 : 0), &sign_len);
            int zpad = zero && !left && ((v.u >> 52) & 0x7FF) != 0x7FF;   /* no 0 flag for inf/nan */
            if (!left && !zpad)
                pad(&o, ' ', width - n);
            for (int i = 0; i < sign_len; i++)
                emit(&o, fb[i]);
            if (zpad)
                pad(&o, '0', width - n);
            for (int i = sign_len; i < n; i++)
                emit(&o, fb[i]);
            if (left)
                pad(&o, ' ', width - n);
            continue;
        }
        unsigned base = 10, upper = 0, neg = 0;
        uint32_t v;
        const char *prefix = "";
        if (c == 'd' || c == 'i') {
            int32_t s = va_arg(ap, int32_t);
            neg = s < 0;
            v = neg ? 0u - (uint32_t)s : (uint32_t)s;
            prefix = neg ? "-" : plus ? "+" : space ? " " : "";
        } else {
            v = va_arg(ap, uint32_t);
            if (c == 'x' || c == 'p') base = 16;
            else if (c == 'X') base = 16, upper = 1;
            else if (c == 'o') base = 8;
            if (c == 'p') prefix = "0x";
            else if (alt && base == 16 && v) prefix = upper ? "0X" : "0x";
            else if (alt && base == 8) prefix = "0";
        }
        char digits[12];
        int n = 0;
        do {
            uint32_t d = v % base;
            digits[n++] = (char)(d < 10 ? '0' + d : (upper ? 'A' : 'a') + d - 10);
            v /= base;
        } while (v);
        if (prec == 0 && n == 1 && digits[0] == '0')
            n = 0;
        int zeros = prec > n ? prec - n : 0;
        int plen = (int)strlen(prefix);
        if (prefix[0] == '0' && base == 8 && zeros)
            plen = 0, prefix = "";
        int total = plen + zeros + n;
        if (zero && !left && prec < 0) {
            zeros += width - total > 0 ? width - total : 0;
            total = plen + zeros + n;
        }
        if (!left) pad(&o, ' ', width - total);
        for (const char *p = prefix; *p; p++)
            emit(&o, *p);
        pad(&o, '0', zeros);
        while (n)
            emit(&o, digits[--n]);
        if (left) pad(&o, ' ', width - total);
    }
    if (o.size)
        o.buf[o.len < o.size ? o.len : o.size - 1] = '\0';
    return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

static void write_out(const char *s, int n)
{
    if (n > 0)
        simcall(SIMC_WRITE, 1, (int)(intptr_t)s, n);
}

int printf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    write_out(buf, n < (int)sizeof buf ? n : (int)sizeof buf - 1);
    return n;
}

int putchar(int c)
{
    char ch = (char)c;
    write_out(&ch, 1);
    return c;
}

int puts(const char *s)
{
    write_out(s, (int)strlen(s));
    write_out("\n", 1);
    return 1;
}
