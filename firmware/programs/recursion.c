/*
 * recursion: Fibonacci, Ackermann, towers of Hanoi, recursive merge sort and
 * a deliberately deep non-tail recursion that exercises the stack.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Stack use: the deepest part is deep_sum() at depth DEEP (1000 frames of a
 * few dozen bytes: ~40-60 KiB), which fits in the smallest board RAM here
 * (128 KiB on stm32f446re and the stm32h753 DTCM).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define DEEP 1000
#define MS_N 1024

static uint32_t calls;

static uint32_t fib(uint32_t n)
{
    calls++;
    return n < 2u ? n : fib(n - 1u) + fib(n - 2u);
}

static uint32_t ack(uint32_t m, uint32_t n)
{
    calls++;
    if (m == 0u)
        return n + 1u;
    if (n == 0u)
        return ack(m - 1u, 1u);
    return ack(m - 1u, ack(m, n - 1u));
}

/* Moves n discs from peg `from` to peg `to`; counts moves and hashes the
 * sequence of moves so that the order is checked, not just the count. */
static uint32_t hanoi_moves;
static uint32_t hanoi_hash;

static void hanoi(uint32_t n, uint32_t from, uint32_t to, uint32_t via)
{
    if (n == 0u)
        return;
    calls++;
    hanoi(n - 1u, from, via, to);
    hanoi_moves++;
    hanoi_hash = (hanoi_hash * 31u) ^ (from * 3u + to) ^ (n << 4);
    hanoi(n - 1u, via, to, from);
}

static int32_t ms_data[MS_N];
static int32_t ms_tmp[MS_N];
static uint32_t max_depth_seen;

static void merge_sort(int32_t *a, int32_t *tmp, uint32_t n, uint32_t depth)
{
    calls++;
    if (depth > max_depth_seen)
        max_depth_seen = depth;
    if (n < 2u)
        return;
    uint32_t h = n / 2u;
    merge_sort(a, tmp, h, depth + 1u);
    merge_sort(a + h, tmp + h, n - h, depth + 1u);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    for (k = 0; k < n; k++)
        a[k] = tmp[k];
}

/* Non-tail recursion with a small local array whose contents are used after
 * the recursive call returns, so each level keeps a real stack frame. */
static uint32_t __attribute__((noinline)) deep_sum(uint32_t n, uint32_t seed)
{
    volatile uint32_t local[4];
    calls++;
    local[0] = seed;
    local[1] = seed ^ n;
    local[2] = seed + n;
    local[3] = n * 2654435761u;
    if (n == 0u)
        return seed;
    uint32_t below = deep_sum(n - 1u, seed * 1664525u + 1013904223u);
    return ((below << 3) | (below >> 29)) ^ local[0] ^ local[1] ^ (local[2] + local[3]);
}

int main(void)
{
    printf("recursion: fib, ackermann, hanoi, merge sort, deep recursion\n");
    for (uint32_t n = 10; n <= 22; n += 4) {
        calls = 0;
        uint32_t f = fib(n);
        printf("fib(%" PRIu32 ")=%" PRIu32 " calls=%" PRIu32 "\n", n, f, calls);
    }
    static const uint32_t ack_args[][2] = { {0, 5}, {1, 5}, {2, 3}, {2, 10}, {3, 3}, {3, 4} };
    for (uint32_t i = 0; i < sizeof ack_args / sizeof ack_args[0]; i++) {
        calls = 0;
        uint32_t a = ack(ack_args[i][0], ack_args[i][1]);
        printf("ack(%" PRIu32 ",%" PRIu32 ")=%" PRIu32 " calls=%" PRIu32 "\n",
               ack_args[i][0], ack_args[i][1], a, calls);
    }
    for (uint32_t n = 1; n <= 16; n += 5) {
        calls = 0;
        hanoi_moves = 0;
        hanoi_hash = 0;
        hanoi(n, 0, 2, 1);
        printf("hanoi(%" PRIu32 "): moves=%" PRIu32 " hash=0x%08" PRIX32 "\n", n, hanoi_moves, hanoi_hash);
    }

    uint32_t s = 0x9E3779B9u;
    for (uint32_t i = 0; i < MS_N; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        ms_data[i] = (int32_t)(s % 100000u) - 50000;
    }
    calls = 0;
    max_depth_seen = 0;
    merge_sort(ms_data, ms_tmp, MS_N, 0);
    int sorted = 1;
    uint32_t h = 0;
    for (uint32_t i = 0; i < MS_N; i++) {
        if (i > 0 && ms_data[i - 1] > ms_data[i])
            sorted = 0;
        h = h * 33u + (uint32_t)ms_data[i];
    }
    printf("mergesort(%d): sorted=%d calls=%" PRIu32 " depth=%" PRIu32 " min=%" PRId32
           " max=%" PRId32 " hash=0x%08" PRIX32 "\n", MS_N, sorted, calls, max_depth_seen,
           ms_data[0], ms_data[MS_N - 1], h);

    calls = 0;
    uint32_t d = deep_sum(DEEP, 12345u);
    printf("deep_sum(%d)=0x%08" PRIX32 " calls=%" PRIu32 "\n", DEEP, d, calls);
    return 0;
}
