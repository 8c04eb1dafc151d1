/*
 * gemm_tiled: C[M,N] = A[M,K] * B[K,N] in BM x BN x BK blocks, the test firmware of tensor views
 * (docs/views.md, sim/tests/tensor_views.rs).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A is int8 row-major, B int8 column-major (element (k, n) at n*K + k), C int32 tiled: BM x BN
 * tiles in row-major tile order, each tile row-major inside, in the board's PSRAM (`.psram`:
 * neither loaded nor zeroed, so the only stores to C are the kernel's).
 *
 * The loop order fixes every count: for each column block jb, for each row block ib, the kernel
 * copies each A block (ib, kb) and B block (kb, jb) once into local buffers, multiplies there, and
 * stores the C tile (ib, jb) once. So every A element is read N/BN times, every B element M/BM
 * times, each C tile is written once, never read, and the tiles are first touched column block
 * by column block: (0,0), (1,0), (2,0), (3,0), (0,1), ...
 *
 * The result is checked without reading C or re-reading A and B: the kernel sums a weighted
 * checksum of the values it stores, and the reference recomputes it from the functions that
 * filled A and B.
 */
#include <stdint.h>
#include <stdio.h>

#define M 32
#define N 48
#define K 64
#define BM 8
#define BN 16
#define BK 16

int8_t matrix_a[M * K] __attribute__((aligned(16)));
int8_t matrix_b[K * N] __attribute__((aligned(16)));
int32_t matrix_c[M * N] __attribute__((section(".psram"), aligned(64)));

static int8_t a_value(int i, int k) { return (int8_t)((i * 7 + k * 3) % 17 - 8); }
static int8_t b_value(int k, int n) { return (int8_t)((k * 5 + n * 11) % 13 - 6); }
static uint32_t weight(int i, int j) { return (uint32_t)(i * N + j) * 2654435761u + 1u; }

static uint32_t gemm(void)
{
    int8_t a_blk[BM][BK], b_blk[BN][BK];
    int32_t acc[BM][BN];
    uint32_t checksum = 0;
    for (int jb = 0; jb < N / BN; jb++)
        for (int ib = 0; ib < M / BM; ib++) {
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < BN; j++)
                    acc[i][j] = 0;
            for (int kb = 0; kb < K / BK; kb++) {
                for (int i = 0; i < BM; i++)
                    for (int k = 0; k < BK; k++)
                        a_blk[i][k] = matrix_a[(ib * BM + i) * K + kb * BK + k];
                for (int j = 0; j < BN; j++)
                    for (int k = 0; k < BK; k++)
                        b_blk[j][k] = matrix_b[(jb * BN + j) * K + kb * BK + k];
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++) {
                        int32_t s = acc[i][j];
                        for (int k = 0; k < BK; k++)
                            s += a_blk[i][k] * b_blk[j][k];
                        acc[i][j] = s;
                    }
            }
            int32_t *tile = &matrix_c[(ib * (N / BN) + jb) * BM * BN];
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < BN; j++) {
                    tile[i * BN + j] = acc[i][j];
                    checksum += (uint32_t)acc[i][j] * weight(ib * BM + i, jb * BN + j);
                }
        }
    return checksum;
}

static uint32_t reference(void)
{
    uint32_t checksum = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int32_t s = 0;
            for (int k = 0; k < K; k++)
                s += a_value(i, k) * b_value(k, j);
            checksum += (uint32_t)s * weight(i, j);
        }
    return checksum;
}

int main(void)
{
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            matrix_a[i * K + k] = a_value(i, k);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            matrix_b[n * K + k] = b_value(k, n);
    uint32_t got = gemm(), want = reference();
    printf("gemm %dx%dx%d in %dx%dx%d blocks: checksum %08lx, %s\n", M, N, K, BM, BN, BK,
           (unsigned long)got, got == want ? "ok" : "WRONG");
    return got == want ? 0 : 1;
}
