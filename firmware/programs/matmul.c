/*
 * matmul: int32, int8 (q7, int32 accumulate, requantised) and float matrix
 * multiplication.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Floats: build with -ffp-contract=off everywhere so no compiler fuses a*b+c
 * into an FMA on one target and not on another; the summation order is fixed,
 * so IEEE single precision gives bit-identical results on every target.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static uint32_t lcg_state = 0x2545F491u;

static uint32_t lcg_next(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state >> 8;     /* 24 usable bits */
}

/* uniform integer in [lo, hi] */
static int32_t rand_range(int32_t lo, int32_t hi)
{
    return lo + (int32_t)(lcg_next() % (uint32_t)(hi - lo + 1));
}

static uint32_t mix(uint32_t h, uint32_t v)
{
    h ^= v;
    h *= 0x01000193u;
    return h ^ (h >> 15);
}

/* ---------------------------------------------------------------- int32 */
#define M1 20
#define K1 24
#define N1 16
static int32_t A32[M1][K1], B32[K1][N1], C32[M1][N1];

static void matmul_s32(void)
{
    for (int i = 0; i < M1; i++)
        for (int j = 0; j < N1; j++) {
            int32_t acc = 0;
            for (int k = 0; k < K1; k++)
                acc += A32[i][k] * B32[k][j];       /* |acc| < 24*1000*1000 */
            C32[i][j] = acc;
        }
}

/* ---------------------------------------------------------------- int8 */
#define M2 24
#define K2 32
#define N2 20
static int8_t A8[M2][K2], B8[K2][N2], C8[M2][N2];
static int32_t ACC8[M2][N2];
static int32_t bias8[N2];

/* Round-to-nearest (ties away from zero) division by 2^shift, then clamp to
 * int8; written without shifting negative numbers. */
static int8_t requant(int32_t acc, int shift)
{
    int32_t half = (int32_t)1 << (shift - 1);
    int32_t q = acc >= 0 ? (acc + half) / ((int32_t)1 << shift)
                         : -((-acc + half) / ((int32_t)1 << shift));
    if (q > 127) q = 127;
    if (q < -128) q = -128;
    return (int8_t)q;
}

static void matmul_q7(int shift)
{
    for (int i = 0; i < M2; i++)
        for (int j = 0; j < N2; j++) {
            int32_t acc = bias8[j];
            for (int k = 0; k < K2; k++)
                acc += (int32_t)A8[i][k] * (int32_t)B8[k][j];
            ACC8[i][j] = acc;
            C8[i][j] = requant(acc, shift);
        }
}

/* ---------------------------------------------------------------- float */
#define NF 12
static float AF[NF][NF], BF[NF][NF], CF[NF][NF];

static void matmul_f32(void)
{
    for (int i = 0; i < NF; i++)
        for (int j = 0; j < NF; j++) {
            float acc = 0.0f;
            for (int k = 0; k < NF; k++) {
                float p = AF[i][k] * BF[k][j];
                acc = acc + p;
            }
            CF[i][j] = acc;
        }
}

int main(void)
{
    printf("matmul: int32 %dx%d * %dx%d\n", M1, K1, K1, N1);
    for (int i = 0; i < M1; i++)
        for (int k = 0; k < K1; k++)
            A32[i][k] = rand_range(-1000, 1000);
    for (int k = 0; k < K1; k++)
        for (int j = 0; j < N1; j++)
            B32[k][j] = rand_range(-1000, 1000);
    matmul_s32();
    uint32_t h = 0x811C9DC5u;
    int32_t trace = 0;
    for (int i = 0; i < M1; i++)
        for (int j = 0; j < N1; j++)
            h = mix(h, (uint32_t)C32[i][j]);
    for (int i = 0; i < N1; i++)
        trace += C32[i][i];
    printf("int32: C[0][0]=%" PRId32 " C[7][3]=%" PRId32 " C[19][15]=%" PRId32
           " trace=%" PRId32 " hash=0x%08" PRIX32 "\n",
           C32[0][0], C32[7][3], C32[M1 - 1][N1 - 1], trace, h);

    printf("matmul: q7 %dx%d * %dx%d, int32 accumulate\n", M2, K2, K2, N2);
    for (int i = 0; i < M2; i++)
        for (int k = 0; k < K2; k++)
            A8[i][k] = (int8_t)rand_range(-128, 127);
    for (int k = 0; k < K2; k++)
        for (int j = 0; j < N2; j++)
            B8[k][j] = (int8_t)rand_range(-128, 127);
    for (int j = 0; j < N2; j++)
        bias8[j] = rand_range(-4000, 4000);
    for (int shift = 7; shift <= 11; shift += 2) {
        matmul_q7(shift);
        uint32_t ha = 0x811C9DC5u, hq = 0x811C9DC5u;
        int32_t sat = 0, sum = 0;
        for (int i = 0; i < M2; i++)
            for (int j = 0; j < N2; j++) {
                ha = mix(ha, (uint32_t)ACC8[i][j]);
                hq = mix(hq, (uint32_t)(uint8_t)C8[i][j]);
                sum += C8[i][j];
                if (C8[i][j] == 127 || C8[i][j] == -128)
                    sat++;
            }
        printf("q7 shift=%d: acc[0][0]=%" PRId32 " acc[23][19]=%" PRId32
               " out[0][0..4]=%d,%d,%d,%d,%d sum=%" PRId32 " saturated=%" PRId32
               " acc_hash=0x%08" PRIX32 " out_hash=0x%08" PRIX32 "\n",
               shift, ACC8[0][0], ACC8[M2 - 1][N2 - 1], C8[0][0], C8[0][1], C8[0][2],
               C8[0][3], C8[0][4], sum, sat, ha, hq);
    }

    printf("matmul: float %dx%d\n", NF, NF);
    for (int i = 0; i < NF; i++)
        for (int k = 0; k < NF; k++)
            AF[i][k] = (float)rand_range(-1000, 1000) / 1000.0f;
    for (int k = 0; k < NF; k++)
        for (int j = 0; j < NF; j++)
            BF[k][j] = (float)rand_range(-1000, 1000) / 256.0f;
    matmul_f32();
    float ftrace = 0.0f, fsum = 0.0f;
    for (int i = 0; i < NF; i++) {
        ftrace = ftrace + CF[i][i];
        for (int j = 0; j < NF; j++)
            fsum = fsum + CF[i][j];
    }
    for (int i = 0; i < 3; i++)
        printf("f32 row %d: %.4f %.4f %.4f %.4f\n", i, (double)CF[i][0], (double)CF[i][1],
               (double)CF[i][2], (double)CF[i][NF - 1]);
    /* Squaring: C = C * C, twice, for larger magnitudes. */
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < NF; i++)
            for (int j = 0; j < NF; j++) {
                AF[i][j] = CF[i][j] / 8.0f;
                BF[i][j] = CF[i][j] / 8.0f;
            }
        matmul_f32();
        printf("f32 square %d: C[0][0]=%.4f C[5][6]=%.4f C[11][11]=%.4f\n", r + 1,
               (double)CF[0][0], (double)CF[5][6], (double)CF[NF - 1][NF - 1]);
    }
    printf("f32: trace0=%.4f sum0=%.4f\n", (double)ftrace, (double)fsum);
    return 0;
}
