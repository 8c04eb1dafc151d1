/*
 * demo: the quick-start example.  A tiny int8 convolutional network
 * (conv2d 3x3 + ReLU, max-pool 2x2, conv2d 3x3 + ReLU, max-pool 2x2, dense)
 * classifies four synthetic 16x16 images and prints the class, the scores'
 * extremes and a CRC-32 of every layer's output.  About 4.4 million
 * instructions on a Cortex-M4 (-O2), 7.9 million on a Cortex-M0+.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Tensors are int8, height x width x channels (HWC), zero padding of 1 for
 * the convolutions; accumulators are int32; requantisation divides by a
 * power of two with rounding (no shifts of negative numbers) and clamps to
 * [0, 127], which is the ReLU.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define IN_H 16
#define IN_W 16
#define C1 8             /* conv1 output channels */
#define C2 16            /* conv2 output channels */
#define NCLASS 10
#define NIMG 4

#define NOINLINE __attribute__((noinline, noclone))   /* keep one symbol per kernel for the profiler */

static uint32_t rng = 0x1234ABCDu;

static int32_t rand_range(int32_t lo, int32_t hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (int32_t)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

/* weights (generated once at start-up, deterministic) */
static int8_t w1[C1][3][3][1];
static int32_t b1[C1];
static int8_t w2[C2][3][3][C1];
static int32_t b2[C2];
static int8_t wd[NCLASS][4 * 4 * C2];
static int32_t bd[NCLASS];

/* activations */
static int8_t img[IN_H][IN_W][1];
static int8_t a1[IN_H][IN_W][C1];
static int8_t p1[IN_H / 2][IN_W / 2][C1];
static int8_t a2[IN_H / 2][IN_W / 2][C2];
static int8_t p2[IN_H / 4][IN_W / 4][C2];
static int32_t scores[NCLASS];

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256u; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : (c >> 1);
        crc_table[i] = c;
    }
}

static NOINLINE uint32_t crc32_bytes(uint32_t crc, const void *data, uint32_t n)
{
    const uint8_t *p = data;
    crc ^= 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

static int8_t requant_relu(int32_t acc, int shift)
{
    if (acc <= 0)
        return 0;
    int32_t q = (acc + ((int32_t)1 << (shift - 1))) / ((int32_t)1 << shift);
    return (int8_t)(q > 127 ? 127 : q);
}

/* Generic 3x3 convolution, stride 1, zero padding 1, HWC layout. */
static NOINLINE void conv2d_3x3_s8_relu(const int8_t *in, int h, int w, int cin,
                                        const int8_t *wt, const int32_t *bias, int cout,
                                        int shift, int8_t *out)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int co = 0; co < cout; co++) {
                int32_t acc = bias[co];
                const int8_t *wk = wt + co * 9 * cin;
                for (int ky = 0; ky < 3; ky++) {
                    int iy = y + ky - 1;
                    if (iy < 0 || iy >= h)
                        continue;
                    for (int kx = 0; kx < 3; kx++) {
                        int ix = x + kx - 1;
                        if (ix < 0 || ix >= w)
                            continue;
                        const int8_t *px = in + (iy * w + ix) * cin;
                        const int8_t *wp = wk + (ky * 3 + kx) * cin;
                        for (int ci = 0; ci < cin; ci++)
                            acc += (int32_t)px[ci] * (int32_t)wp[ci];
                    }
                }
                out[(y * w + x) * cout + co] = requant_relu(acc, shift);
            }
}

static NOINLINE void maxpool2x2_s8(const int8_t *in, int h, int w, int c, int8_t *out)
{
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++)
            for (int ch = 0; ch < c; ch++) {
                int8_t m = in[((2 * y) * w + 2 * x) * c + ch];
                int8_t v;
                v = in[((2 * y) * w + 2 * x + 1) * c + ch];     if (v > m) m = v;
                v = in[((2 * y + 1) * w + 2 * x) * c + ch];     if (v > m) m = v;
                v = in[((2 * y + 1) * w + 2 * x + 1) * c + ch]; if (v > m) m = v;
                out[(y * (w / 2) + x) * c + ch] = m;
            }
}

static NOINLINE void dense_s8(const int8_t *in, int n, const int8_t *wt, const int32_t *bias,
                              int nout, int32_t *out)
{
    for (int o = 0; o < nout; o++) {
        int32_t acc = bias[o];
        for (int i = 0; i < n; i++)
            acc += (int32_t)in[i] * (int32_t)wt[o * n + i];
        out[o] = acc;
    }
}

static NOINLINE void make_input(int kind)
{
    for (int y = 0; y < IN_H; y++)
        for (int x = 0; x < IN_W; x++) {
            int32_t v;
            int dx = 2 * x - 15, dy = 2 * y - 15;          /* centred, odd: never 0 */
            int r2 = dx * dx + dy * dy;
            switch (kind) {
            case 0:  v = (x >= 6 && x <= 9) ? 100 : -20; break;          /* vertical bar */
            case 1:  v = (y >= 6 && y <= 9) ? 100 : -20; break;          /* horizontal bar */
            case 2:  v = (x - y <= 1 && y - x <= 1) ? 110 : -30; break;  /* diagonal */
            default: v = (r2 >= 80 && r2 <= 180) ? 120 : -10; break;     /* ring */
            }
            v += rand_range(-12, 12);
            img[y][x][0] = (int8_t)v;
        }
}

static void init_weights(void)
{
    for (int co = 0; co < C1; co++) {
        for (int k = 0; k < 9; k++)
            w1[co][k / 3][k % 3][0] = (int8_t)rand_range(-24, 24);
        b1[co] = rand_range(-200, 200);
    }
    /* Make two conv1 filters real edge detectors (vertical / horizontal). */
    for (int k = 0; k < 3; k++) {
        w1[0][k][0][0] = -20; w1[0][k][1][0] = 0; w1[0][k][2][0] = 20;
        w1[1][0][k][0] = -20; w1[1][1][k][0] = 0; w1[1][2][k][0] = 20;
    }
    for (int co = 0; co < C2; co++) {
        for (int k = 0; k < 9; k++)
            for (int ci = 0; ci < C1; ci++)
                w2[co][k / 3][k % 3][ci] = (int8_t)rand_range(-16, 16);
        b2[co] = rand_range(-500, 500);
    }
    for (int o = 0; o < NCLASS; o++) {
        for (int i = 0; i < 4 * 4 * C2; i++)
            wd[o][i] = (int8_t)rand_range(-12, 12);
        bd[o] = rand_range(-1000, 1000);
    }
}

int main(void)
{
    static const char *const names[NIMG] = { "vertical", "horizontal", "diagonal", "ring" };
    uint32_t total = 0;

    printf("demo: int8 CNN 16x16x1 -> conv3x3(8)+relu -> pool -> conv3x3(16)+relu -> pool -> dense(10)\n");
    crc_init();
    init_weights();
    printf("weights crc32=0x%08" PRIX32 "\n",
           crc32_bytes(crc32_bytes(crc32_bytes(0, w1, sizeof w1), w2, sizeof w2), wd, sizeof wd));

    for (int n = 0; n < NIMG; n++) {
        make_input(n);
        conv2d_3x3_s8_relu(&img[0][0][0], IN_H, IN_W, 1, &w1[0][0][0][0], b1, C1, 5, &a1[0][0][0]);
        maxpool2x2_s8(&a1[0][0][0], IN_H, IN_W, C1, &p1[0][0][0]);
        conv2d_3x3_s8_relu(&p1[0][0][0], IN_H / 2, IN_W / 2, C1, &w2[0][0][0][0], b2, C2, 7,
                           &a2[0][0][0]);
        maxpool2x2_s8(&a2[0][0][0], IN_H / 2, IN_W / 2, C2, &p2[0][0][0]);
        dense_s8(&p2[0][0][0], 4 * 4 * C2, &wd[0][0], bd, NCLASS, scores);

        int best = 0, worst = 0;
        for (int i = 1; i < NCLASS; i++) {
            if (scores[i] > scores[best]) best = i;
            if (scores[i] < scores[worst]) worst = i;
        }
        int active = 0;
        for (int i = 0; i < 4 * 4 * C2; i++)
            active += (&p2[0][0][0])[i] != 0;
        /* CRC of every layer's output; scores as little-endian bytes so the
         * value does not depend on the host's byte order. */
        uint32_t c = crc32_bytes(0, a1, sizeof a1);
        c = crc32_bytes(c, p1, sizeof p1);
        c = crc32_bytes(c, a2, sizeof a2);
        c = crc32_bytes(c, p2, sizeof p2);
        for (int i = 0; i < NCLASS; i++) {
            uint32_t u = (uint32_t)scores[i];
            uint8_t le[4] = { (uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24) };
            c = crc32_bytes(c, le, 4);
        }
        uint8_t cb[4] = { (uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16), (uint8_t)(c >> 24) };
        total = crc32_bytes(total, cb, 4);
        printf("image %d (%-10s): class=%d score=%" PRId32 " min=%" PRId32 " active=%d/256 crc32=0x%08" PRIX32 "\n",
               n, names[n], best, scores[best], scores[worst], active, c);
    }
    printf("demo: total=0x%08" PRIX32 "\n", total);
    return 0;
}
