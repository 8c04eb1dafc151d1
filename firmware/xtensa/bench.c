/* ISS integration test program (tigris-sim, GPL-2.0-or-later).
 * Built for Xtensa by cores/src/xtensa/tests.rs (call0 and windowed ABI) and for the host,
 * whose output is the expected checksum. Uses only fixed-width types so both agree. */
#include <stdint.h>

#ifndef HOST
/* The Debian LX106 libgcc has no integer division helpers (see firmware/xtensa/README.md). */
static uint32_t udivmod(uint32_t n, uint32_t d, uint32_t *rem) {
    uint32_t q = 0, r = 0;
    for (int i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) { r -= d; q |= 1u << i; }
    }
    *rem = r;
    return q;
}
uint32_t __udivsi3(uint32_t n, uint32_t d) { uint32_t r; return udivmod(n, d, &r); }
uint32_t __umodsi3(uint32_t n, uint32_t d) { uint32_t r; udivmod(n, d, &r); return r; }
int32_t __divsi3(int32_t n, int32_t d) {
    uint32_t r, q = udivmod(n < 0 ? -(uint32_t)n : (uint32_t)n, d < 0 ? -(uint32_t)d : (uint32_t)d, &r);
    return ((n < 0) != (d < 0)) ? -(int32_t)q : (int32_t)q;
}
int32_t __modsi3(int32_t n, int32_t d) {
    uint32_t r;
    udivmod(n < 0 ? -(uint32_t)n : (uint32_t)n, d < 0 ? -(uint32_t)d : (uint32_t)d, &r);
    return n < 0 ? -(int32_t)r : (int32_t)r;
}
void *memcpy(void *dst, const void *src, unsigned int n) {
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (n--) *d++ = *s++;
    return dst;
}
#endif

static uint32_t crc32(const uint8_t *p, int n) {
    uint32_t c = 0xFFFFFFFFu;
    for (int i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    return ~c;
}

static void sort(int32_t *v, int n) {
    for (int i = 1; i < n; i++) {
        int32_t x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
}

static int32_t fib(int32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Deep, wide frames: exercises window spills under the windowed ABI. */
static int32_t ack(int32_t depth, int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f) {
    volatile int32_t local[6] = {a, b, c, d, e, f};
    if (depth == 0) return a + b * 3 + c * 5 + d * 7 + e * 11 + f * 13;
    return ack(depth - 1, local[1], local[2], local[3], local[4], local[5], local[0] + depth) ^ (depth * 0x9E3779B9u);
}

struct item { uint16_t a; int8_t b; uint32_t c; };

static uint8_t buf[512];
static int32_t arr[64];
static struct item items[16];
volatile uint32_t sink;

uint32_t run_all(void) {
    uint32_t h = 0;
    for (int i = 0; i < 512; i++) buf[i] = (uint8_t)(i * 7 + (i >> 3));
    h ^= crc32(buf, 512);
    uint32_t x = 12345;
    for (int i = 0; i < 64; i++) { x = x * 1103515245u + 12345u; arr[i] = (int32_t)(x >> 8) - (1 << 22); }
    sort(arr, 64);
    for (int i = 0; i < 64; i++) h = h * 31 + (uint32_t)arr[i];
    h += (uint32_t)fib(17);
    h ^= (uint32_t)ack(40, 1, 2, 3, 4, 5, 6);
    for (int i = 0; i < 16; i++) { items[i].a = (uint16_t)(i * 1000); items[i].b = (int8_t)(-i * 9); items[i].c = h >> i; }
    for (int i = 0; i < 16; i++) h += items[i].a + items[i].b + (items[i].c % 1000u) + (uint32_t)((int32_t)items[i].b / 3);
    int64_t acc = 0;
    for (int i = 0; i < 64; i++) acc += (int64_t)(int32_t)((uint32_t)arr[i] * (uint32_t)(arr[63 - i] | 1)) << (i & 7);
    h ^= (uint32_t)acc ^ (uint32_t)(acc >> 32);
    uint32_t m = 0;
    for (int i = 1; i < 200; i++) m += (h >> (i & 15)) / (uint32_t)i + (uint32_t)((int32_t)(m ^ h) % (int32_t)(i | 1));
    h += m;
    sink = h;
    return h;
}

#ifdef HOST
#include <stdio.h>
int main(void) { printf("%u\n", run_all()); return 0; }
#endif
