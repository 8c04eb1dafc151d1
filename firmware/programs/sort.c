/*
 * sort: quicksort and insertion sort of pseudo-random integers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Portable: the same file runs on the host (expected output) and on every
 * board.  Only fixed-width integer types; no undefined behaviour.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 400

static uint32_t lcg_state;

static uint32_t lcg_next(void)
{
    /* Numerical Recipes LCG constants; arithmetic is modulo 2^32. */
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state;
}

static int32_t data[N];
static int32_t work_q[N];
static int32_t work_i[N];

static uint32_t cmp_count;
static uint32_t move_count;

static void swap32(int32_t *a, int32_t *b)
{
    int32_t t = *a;
    *a = *b;
    *b = t;
    move_count += 3u;
}

/* Hoare-partition quicksort, median-of-three pivot, recursion on the smaller
 * half and iteration on the larger one; small slices are left to insertion. */
static void insertion_sort(int32_t *a, int32_t n)
{
    for (int32_t i = 1; i < n; i++) {
        int32_t v = a[i];
        int32_t j = i - 1;
        while (j >= 0) {
            cmp_count++;
            if (a[j] <= v)
                break;
            a[j + 1] = a[j];
            move_count++;
            j--;
        }
        a[j + 1] = v;
        move_count++;
    }
}

static void quick_sort(int32_t *a, int32_t lo, int32_t hi)
{
    while (hi - lo > 8) {
        int32_t mid = lo + (hi - lo) / 2;
        cmp_count += 3u;
        if (a[mid] < a[lo]) swap32(&a[mid], &a[lo]);
        if (a[hi] < a[lo]) swap32(&a[hi], &a[lo]);
        if (a[hi] < a[mid]) swap32(&a[hi], &a[mid]);
        int32_t pivot = a[mid];
        int32_t i = lo - 1, j = hi + 1;
        for (;;) {
            do { i++; cmp_count++; } while (a[i] < pivot);
            do { j--; cmp_count++; } while (a[j] > pivot);
            if (i >= j)
                break;
            swap32(&a[i], &a[j]);
        }
        if (j - lo < hi - j) {
            quick_sort(a, lo, j);
            lo = j + 1;
        } else {
            quick_sort(a, j + 1, hi);
            hi = j;
        }
    }
    insertion_sort(a + lo, hi - lo + 1);
}

static uint32_t checksum(const int32_t *a, int32_t n)
{
    uint32_t s = 0;
    for (int32_t i = 0; i < n; i++)
        s = (s ^ (uint32_t)a[i]) * 16777619u + (uint32_t)i;   /* FNV-style mix */
    return s;
}

static int is_sorted(const int32_t *a, int32_t n)
{
    for (int32_t i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}

static void show(const char *name, const int32_t *a, int32_t n)
{
    printf("%s: first", name);
    for (int32_t i = 0; i < 5; i++)
        printf(" %" PRId32, a[i]);
    printf(" | median %" PRId32 " | last", a[n / 2]);
    for (int32_t i = n - 5; i < n; i++)
        printf(" %" PRId32, a[i]);
    printf("\n");
}

static void run(const char *label, uint32_t seed, int32_t n, uint32_t modulus)
{
    lcg_state = seed;
    for (int32_t i = 0; i < n; i++) {
        uint32_t r = lcg_next() >> 8;                 /* 24 random bits */
        data[i] = (int32_t)(r % modulus) - (int32_t)(modulus / 2u);
    }
    printf("[%s] n=%" PRId32 " seed=0x%08" PRIX32 " input checksum=0x%08" PRIX32 "\n",
           label, n, seed, checksum(data, n));

    memcpy(work_q, data, (size_t)n * sizeof data[0]);
    cmp_count = move_count = 0;
    quick_sort(work_q, 0, n - 1);
    printf("quicksort: sorted=%d compares=%" PRIu32 " moves=%" PRIu32 " checksum=0x%08" PRIX32 "\n",
           is_sorted(work_q, n), cmp_count, move_count, checksum(work_q, n));

    memcpy(work_i, data, (size_t)n * sizeof data[0]);
    cmp_count = move_count = 0;
    insertion_sort(work_i, n);
    printf("insertion: sorted=%d compares=%" PRIu32 " moves=%" PRIu32 " checksum=0x%08" PRIX32 "\n",
           is_sorted(work_i, n), cmp_count, move_count, checksum(work_i, n));

    printf("agree=%d\n", memcmp(work_q, work_i, (size_t)n * sizeof data[0]) == 0);
    show("sorted", work_q, n);
}

int main(void)
{
    printf("sort: quicksort vs insertion sort\n");
    run("wide", 0x12345678u, N, 2000001u);
    run("duplicates", 0xCAFEF00Du, 300, 50u);
    run("small", 7u, 37, 1000u);
    /* Already sorted and reverse-sorted input. */
    for (int32_t i = 0; i < N; i++)
        work_q[i] = i * 3 - 500;
    cmp_count = move_count = 0;
    quick_sort(work_q, 0, N - 1);
    printf("[presorted] compares=%" PRIu32 " moves=%" PRIu32 " checksum=0x%08" PRIX32 "\n",
           cmp_count, move_count, checksum(work_q, N));
    for (int32_t i = 0; i < N; i++)
        work_q[i] = 500 - i * 3;
    cmp_count = move_count = 0;
    quick_sort(work_q, 0, N - 1);
    printf("[reversed] sorted=%d compares=%" PRIu32 " moves=%" PRIu32 " checksum=0x%08" PRIX32 "\n",
           is_sorted(work_q, N), cmp_count, move_count, checksum(work_q, N));
    printf("sort: done\n");
    return 0;
}
