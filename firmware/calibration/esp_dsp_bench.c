/* ESP-DSP's ESP32 benchmark, rebuilt around Espressif's own hand-written LX6 kernels (*_ae32.S,
 * assembled from SRC_DIR/esp-dsp by scripts/accuracy.sh), under the conditions of the published
 * figures (docs/accuracy.md, "ESP-DSP on the ESP32"):
 * - arguments and sizes of test/prepare_csv_benchmarks.c: three 16-byte aligned buffers of
 *   2 x 1024 floats, FIR of 256 coefficients over 1024 samples (decimating by 4: 256 outputs),
 *   FFT twiddle tables for CONFIG_DSP_MAX_FFT_SIZE = 4096 (Kconfig default), 16x16 matrices;
 * - code in IRAM and data in DRAM (test/linker.lf maps the library and the test `noflash`; the
 *   buffers and tables come from the heap, internal DRAM);
 * - each kernel called twice, then once more between two CCOUNT reads (test/report.inc
 *   REPORT_BENCHMARK_CSV), that last call printed.
 * Before the benchmark, each float kernel's result is checked against C on known inputs, so a
 * wrong encoding in xtensa_lx6_prelude.S fails the run (exit 1) instead of timing wrong code. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t tg_time_call(void *fn, const uint32_t args[7]);

/* ESP-DSP's entry points (prototypes in its modules/<module>/include headers), called through
 * tg_time_call. */
extern char dsps_dotprod_f32_ae32[], dsps_dotprode_f32_ae32[], dsps_dotprod_s16_ae32[],
    dsps_fir_f32_ae32[], dsps_fird_f32_ae32[], dsps_fft2r_fc32_ae32_[], dsps_fft4r_fc32_ae32_[],
    dsps_fft2r_sc16_ae32_[], dsps_biquad_f32_ae32[], dspm_mult_f32_ae32[], dspm_mult_s16_ae32[],
    dspm_mult_3x3x1_f32_ae32[], dspm_mult_3x3x3_f32_ae32[], dspm_mult_4x4x1_f32_ae32[],
    dspm_mult_4x4x4_f32_ae32[];

/* fir_f32_t of modules/fir/include/dsps_fir.h: the kernels read it by these offsets. */
typedef struct {
    float *coeffs;
    float *delay;
    int N;
    int pos;
    int decim;
    int16_t use_delay;
} fir_t;

#define TEST_SIZE 1024
#define MAX_FFT 4096
static float data1[TEST_SIZE * 2] __attribute__((aligned(16)));
static float data2[TEST_SIZE * 2] __attribute__((aligned(16)));
static float data3[TEST_SIZE * 2] __attribute__((aligned(16)));
/* Twiddle tables as dsps_fft2r_init_fc32 / _sc16 / dsps_fft4r_init_fc32 allocate them. */
static float w2r_fc32[MAX_FFT] __attribute__((aligned(16)));
static int16_t w2r_sc16[MAX_FFT] __attribute__((aligned(16)));
static float w4r_fc32[MAX_FFT * 4] __attribute__((aligned(16)));
#define W4R_SIZE (MAX_FFT * 2)

static int failures;

#define A(p) ((uint32_t)(uintptr_t)(p))

static uint32_t call(void *fn, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4,
                     uint32_t a5, uint32_t a6) {
    const uint32_t args[7] = {a0, a1, a2, a3, a4, a5, a6};
    return tg_time_call(fn, args);
}

/* REPORT_BENCHMARK_CSV: a warm-up call, one more, then the timed one. */
static void bench(const char *name, int size, void *fn, uint32_t a0, uint32_t a1, uint32_t a2,
                  uint32_t a3, uint32_t a4, uint32_t a5, uint32_t a6) {
    call(fn, a0, a1, a2, a3, a4, a5, a6);
    call(fn, a0, a1, a2, a3, a4, a5, a6);
    uint32_t cycles = call(fn, a0, a1, a2, a3, a4, a5, a6);
    printf("dsp %s %d %lu\n", name, size, (unsigned long)cycles);
}

static void check(const char *what, int ok) {
    if (!ok) {
        printf("check %s FAILED\n", what);
        failures++;
    }
}

static int near(float got, float want) { return fabsf(got - want) <= 1e-4f * (1.0f + fabsf(want)); }

static void fill(void) {
    for (int i = 0; i < TEST_SIZE * 2; i++) {
        data1[i] = (float)(i % 7 - 3) * 0.25f;
        data2[i] = (float)(i % 5 - 2) * 0.5f;
        data3[i] = 0.0f;
    }
}

/* Bit reversal of n complex values, as dsps_bit_rev_fc32 orders the radix-2 tables. */
static void bit_rev_fc32(float *w, int n) {
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            float re = w[2 * i], im = w[2 * i + 1];
            w[2 * i] = w[2 * j];
            w[2 * i + 1] = w[2 * j + 1];
            w[2 * j] = re;
            w[2 * j + 1] = im;
        }
    }
}

static void tables(void) {
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < MAX_FFT / 2; i++) { /* dsps_gen_w_r2_fc32 / _sc16, then bit reversal */
        w2r_fc32[2 * i] = (float)cos(2 * pi * i / MAX_FFT);
        w2r_fc32[2 * i + 1] = (float)sin(2 * pi * i / MAX_FFT);
    }
    bit_rev_fc32(w2r_fc32, MAX_FFT / 2);
    for (int i = 0; i < MAX_FFT; i++) w2r_sc16[i] = (int16_t)(w2r_fc32[i] * 32767.0f);
    for (int i = 0; i < W4R_SIZE; i++) { /* dsps_fft4r_init_fc32 */
        w4r_fc32[2 * i] = (float)cos(2 * pi * i / W4R_SIZE);
        w4r_fc32[2 * i + 1] = (float)sin(2 * pi * i / W4R_SIZE);
    }
}

static void check_kernels(void) {
    float want, out;
    fill();
    want = 0;
    for (int i = 0; i < 256; i++) want += data1[i] * data2[i];
    call(dsps_dotprod_f32_ae32, A(data1), A(data2), A(&out), 256, 0, 0, 0);
    check("dsps_dotprod_f32", near(out, want));
    want = 0;
    for (int i = 0; i < 64; i++) want += data1[3 * i] * data2[2 * i];
    call(dsps_dotprode_f32_ae32, A(data1), A(data2), A(&out), 64, 3, 2, 0);
    check("dsps_dotprode_f32", near(out, want));

    static const struct { const char *name; void *fn; int m, n, k; } mults[] = {
        {"dspm_mult_3x3x1_f32", dspm_mult_3x3x1_f32_ae32, 3, 3, 1},
        {"dspm_mult_3x3x3_f32", dspm_mult_3x3x3_f32_ae32, 3, 3, 3},
        {"dspm_mult_4x4x1_f32", dspm_mult_4x4x1_f32_ae32, 4, 4, 1},
        {"dspm_mult_4x4x4_f32", dspm_mult_4x4x4_f32_ae32, 4, 4, 4},
        {"dspm_mult_f32", dspm_mult_f32_ae32, 16, 16, 16},
    };
    for (unsigned t = 0; t < sizeof mults / sizeof mults[0]; t++) {
        int m = mults[t].m, n = mults[t].n, k = mults[t].k, ok = 1;
        memset(data3, 0, sizeof data3);
        call(mults[t].fn, A(data1), A(data2), A(data3), m, n, k, 0);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < k; j++) {
                float acc = 0;
                for (int s = 0; s < n; s++) acc += data1[i * n + s] * data2[s * k + j];
                ok &= near(data3[i * k + j], acc);
            }
        check(mults[t].name, ok);
    }

    /* Q15 kernels, as dsps_dotprod_s16_ansi / dspm_mult_s16_ansi compute with shift 0:
     * (0x7fff + sum of products) >> 15. */
    int16_t *s1 = (int16_t *)data1, *s2 = (int16_t *)data2, *s3 = (int16_t *)data3, got;
    for (int i = 0; i < 512; i++) {
        s1[i] = (int16_t)((i * 977) % 20011 - 10005);
        s2[i] = (int16_t)((i * 641) % 16383 - 8191);
    }
    long long acc = 0x7fff;
    for (int i = 0; i < 256; i++) acc += (int32_t)s1[i] * s2[i];
    call(dsps_dotprod_s16_ae32, A(s1), A(s2), A(&got), 256, 0, 0, 0);
    check("dsps_dotprod_s16", got == (int16_t)(acc >> 15));
    call(dspm_mult_s16_ae32, A(s1), A(s2), A(s3), 16, 16, 16, 0);
    int ok = 1;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            acc = 0x7fff;
            for (int s = 0; s < 16; s++) acc += (int32_t)s1[i * 16 + s] * s2[s * 16 + j];
            ok &= s3[i * 16 + j] == (int16_t)(acc >> 15);
        }
    check("dspm_mult_s16", ok);

    /* Q15 FFT of an impulse of 16384 at sample 1: each of the six stages halves, so bin k is
     * 256 e^(-2 pi i k / 64), found at the bit-reversed index of k (within the stages' rounding). */
    memset(s1, 0, 128 * sizeof(int16_t));
    s1[2] = 16384;
    call(dsps_fft2r_sc16_ae32_, A(s1), 64, A(w2r_sc16), 0, 0, 0, 0);
    ok = 1;
    for (int i = 0; i < 64; i++) {
        int k = 0;
        for (int b = 0; b < 6; b++) k |= ((i >> b) & 1) << (5 - b);
        double phase = 2 * 3.14159265358979323846 * k / 64;
        int re = (int)floor(256 * cos(phase) + 0.5), im = (int)floor(-256 * sin(phase) + 0.5);
        ok &= abs(s1[2 * i] - re) <= 3 && abs(s1[2 * i + 1] - im) <= 3;
    }
    check("dsps_fft2r_sc16", ok);
    fill();

    /* FIR and decimating FIR (by 4), 8 outputs from an empty delay line: output i, after
     * (i + 1) * decim inputs, is sum_j c[N - 1 - j] x[(i + 1) * decim - 1 - j] as
     * dsps_fir_f32_ansi / dsps_fird_f32_ansi compute it (coefficients in reverse order). */
    for (int decim = 1; decim <= 4; decim += 3) {
        fir_t fir = {data1, data3, 256, 0, decim, 0};
        memset(data3, 0, 260 * sizeof(float));
        float y[8];
        call(decim == 1 ? (void *)dsps_fir_f32_ae32 : (void *)dsps_fird_f32_ae32, A(&fir), A(data2),
             A(y), 8, 0, 0, 0);
        ok = 1;
        for (int i = 0; i < 8; i++) {
            int last = (i + 1) * decim - 1;
            float acc = 0;
            for (int j = 0; j <= last; j++) acc += data1[255 - j] * data2[last - j];
            ok &= near(y[i], acc);
        }
        check(decim == 1 ? "dsps_fir_f32" : "dsps_fird_f32", ok);
    }

    /* Biquad (direct form II): y = b0 d + b1 w0 + b2 w1, d = x - a1 w0 - a2 w1. */
    float coef[5] = {0.25f, 0.5f, 0.25f, -0.5f, 0.125f}, w[2] = {0, 0}, wc[2] = {0, 0};
    call(dsps_biquad_f32_ae32, A(data1), A(data3), 16, A(coef), A(w), 0, 0);
    ok = 1;
    for (int i = 0; i < 16; i++) {
        float d = data1[i] - coef[3] * wc[0] - coef[4] * wc[1];
        float out_i = coef[0] * d + coef[1] * wc[0] + coef[2] * wc[1];
        wc[1] = wc[0];
        wc[0] = d;
        ok &= near(data3[i], out_i);
    }
    check("dsps_biquad_f32", ok);

    /* FFTs of an impulse at sample 1: every bin has magnitude 1, whatever the output order. */
    for (int r = 0; r < 2; r++) {
        memset(data1, 0, 128 * sizeof(float));
        data1[2] = 1.0f;
        if (r == 0) call(dsps_fft2r_fc32_ae32_, A(data1), 64, A(w2r_fc32), 0, 0, 0, 0);
        else call(dsps_fft4r_fc32_ae32_, A(data1), 64, A(w4r_fc32), W4R_SIZE, 0, 0, 0);
        ok = 1;
        for (int i = 0; i < 64; i++) ok &= near(data1[2 * i] * data1[2 * i] + data1[2 * i + 1] * data1[2 * i + 1], 1.0f);
        check(r == 0 ? "dsps_fft2r_fc32" : "dsps_fft4r_fc32", ok);
    }
}

int main(void) {
    __asm__ volatile("wsr %0, cpenable\n\trsync" ::"a"(1)); /* the FPU is coprocessor 0 */
    tables();
    check_kernels();
    fill();

    fir_t fir1 = {data1, data2, 256, 0, 1, 0}; /* dsps_fir_init_f32(&fir1, data1, data2, 256) */
    fir_t fir2 = {data1, data2, 256, 0, 4, 0}; /* dsps_fird_init_f32(&fir2, data1, data2, 256, 4) */
    float coeffs[5] = {0.0675f, 0.1349f, 0.0675f, -1.1430f, 0.4128f}; /* a low-pass biquad */

    bench("dsps_dotprod_f32", 256, dsps_dotprod_f32_ae32, A(data1), A(data2), A(data3), 256, 0, 0, 0);
    bench("dsps_dotprode_f32", 256, dsps_dotprode_f32_ae32, A(data1), A(data2), A(data3), 256, 1, 1, 0);
    bench("dsps_dotprod_s16", 256, dsps_dotprod_s16_ae32, A(data1), A(data2), A(data3), 256, 0, 0, 0);
    bench("dsps_fir_f32", 1024, dsps_fir_f32_ae32, A(&fir1), A(data1), A(data2), 1024, 0, 0, 0);
    bench("dsps_fird_f32", 1024, dsps_fird_f32_ae32, A(&fir2), A(data1), A(data2), 1024 / 4, 0, 0, 0);
    for (int n = 64; n <= 1024; n *= 2)
        bench("dsps_fft2r_fc32", n, dsps_fft2r_fc32_ae32_, A(data1), n, A(w2r_fc32), 0, 0, 0, 0);
    for (int n = 64; n <= 1024; n *= 4)
        bench("dsps_fft4r_fc32", n, dsps_fft4r_fc32_ae32_, A(data1), n, A(w4r_fc32), W4R_SIZE, 0, 0, 0);
    for (int n = 64; n <= 1024; n *= 2)
        bench("dsps_fft2r_sc16", n, dsps_fft2r_sc16_ae32_, A(data1), n, A(w2r_sc16), 0, 0, 0, 0);
    bench("dsps_biquad_f32", 1024, dsps_biquad_f32_ae32, A(data1), A(data2), 1024, A(coeffs), A(data3), 0, 0);
    bench("dspm_mult_f32", 16, dspm_mult_f32_ae32, A(data1), A(data2), A(data3), 16, 16, 16, 0);
    bench("dspm_mult_s16", 16, dspm_mult_s16_ae32, A(data1), A(data2), A(data3), 16, 16, 16, 0);
    bench("dspm_mult_3x3x1_f32", 3, dspm_mult_3x3x1_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    bench("dspm_mult_3x3x3_f32", 3, dspm_mult_3x3x3_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    bench("dspm_mult_4x4x1_f32", 4, dspm_mult_4x4x1_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    bench("dspm_mult_4x4x4_f32", 4, dspm_mult_4x4x4_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    return failures != 0;
}
