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
 * wrong encoding in xtensa_lx6_prelude.S fails the run (exit 1) instead of timing wrong code.
 *
 * Built with -DESP_DSP_AES3 for the ESP32-S3: every kernel ESP-IDF maps to its PIE version there
 * (the "#if ..._aes3_enabled" chains of ESP-DSP's headers with CONFIG_IDF_TARGET_ESP32S3) is called
 * in that version (*_aes3.S, assembled through xtensa_pie_prelude.S), the other six stay ae32; the
 * image dot products (dspi_dotprod_*, PIE only) are added with the arguments of
 * test/prepare_csv_benchmarks.c. */
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

#ifdef ESP_DSP_AES3
extern char dsps_dotprod_f32_aes3[], dsps_fir_f32_aes3[], dsps_fird_f32_aes3[], dsps_fft2r_fc32_aes3_[],
    dsps_fft4r_fc32_aes3_[], dsps_fft2r_sc16_aes3_[], dspm_mult_f32_aes3[], dspm_mult_s16_aes3[],
    dspi_dotprod_s8_aes3[], dspi_dotprod_off_s8_aes3[], dspi_dotprod_s16_aes3[], dspi_dotprod_off_s16_aes3[];
#define K_DOTPROD_F32 dsps_dotprod_f32_aes3
#define K_FIR_F32 dsps_fir_f32_aes3
#define K_FIRD_F32 dsps_fird_f32_aes3
#define K_FFT2R_FC32 dsps_fft2r_fc32_aes3_
#define K_FFT4R_FC32 dsps_fft4r_fc32_aes3_
#define K_FFT2R_SC16 dsps_fft2r_sc16_aes3_
#define K_MULT_F32 dspm_mult_f32_aes3
#define K_MULT_S16 dspm_mult_s16_aes3
/* dspm_mult.h on the ESP32-S3: dspm_mult_4x4x4_f32(A,B,C) is dspm_mult_f32_aes3(A,B,C, 4, 4, 4). */
#define K_MULT_4X4X4 dspm_mult_f32_aes3
#define MNK_4X4X4 4

/* What the aes3 kernels call from ESP-DSP's C code. dsps_fft2r_sc16_aes3_ checks its length with
 * dsp_is_power_of_two (common/misc/dsps_pwroftwo.cpp, the same expression) and that the tables
 * were initialised. The image dot products fall back to their ANSI C versions when the arguments
 * do not suit the PIE code; the published arguments do, so the fallbacks here only record that
 * they were reached, and the run fails. */
int dsp_is_power_of_two(int x) { return (x != 0) && ((x & (x - 1)) == 0); }
unsigned char dsps_fft2r_sc16_initialized = 1;
static int fallbacks;
int dspi_dotprod_s8_ansi(void) { fallbacks++; return 0; }
int dspi_dotprod_s16_ansi(void) { fallbacks++; return 0; }
int dspi_dotprod_off_s16_ansi(void) { fallbacks++; return 0; }

/* image2d_t of modules/common/include/dsp_types.h. */
typedef struct {
    void *data;
    int step_x, step_y, stride_x, stride_y, size_x, size_y;
} image_t;
#else
#define K_DOTPROD_F32 dsps_dotprod_f32_ae32
#define K_FIR_F32 dsps_fir_f32_ae32
#define K_FIRD_F32 dsps_fird_f32_ae32
#define K_FFT2R_FC32 dsps_fft2r_fc32_ae32_
#define K_FFT4R_FC32 dsps_fft4r_fc32_ae32_
#define K_FFT2R_SC16 dsps_fft2r_sc16_ae32_
#define K_MULT_F32 dspm_mult_f32_ae32
#define K_MULT_S16 dspm_mult_s16_ae32
#define K_MULT_4X4X4 dspm_mult_4x4x4_f32_ae32
#define MNK_4X4X4 0 /* the fixed-size kernel takes three arguments */
#endif

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
    call(K_DOTPROD_F32, A(data1), A(data2), A(&out), 256, 0, 0, 0);
    check("dsps_dotprod_f32", near(out, want));
    want = 0;
    for (int i = 0; i < 64; i++) want += data1[3 * i] * data2[2 * i];
    call(dsps_dotprode_f32_ae32, A(data1), A(data2), A(&out), 64, 3, 2, 0);
    check("dsps_dotprode_f32", near(out, want));

    static const struct { const char *name; void *fn; int m, n, k; } mults[] = {
        {"dspm_mult_3x3x1_f32", dspm_mult_3x3x1_f32_ae32, 3, 3, 1},
        {"dspm_mult_3x3x3_f32", dspm_mult_3x3x3_f32_ae32, 3, 3, 3},
        {"dspm_mult_4x4x1_f32", dspm_mult_4x4x1_f32_ae32, 4, 4, 1},
        {"dspm_mult_4x4x4_f32", K_MULT_4X4X4, 4, 4, 4},
        {"dspm_mult_f32", K_MULT_F32, 16, 16, 16},
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
    call(K_MULT_S16, A(s1), A(s2), A(s3), 16, 16, 16, 0);
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
    call(K_FFT2R_SC16, A(s1), 64, A(w2r_sc16), 0, 0, 0, 0);
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
        call(decim == 1 ? (void *)K_FIR_F32 : (void *)K_FIRD_F32, A(&fir), A(data2),
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
        if (r == 0) call(K_FFT2R_FC32, A(data1), 64, A(w2r_fc32), 0, 0, 0, 0);
        else call(K_FFT4R_FC32, A(data1), 64, A(w4r_fc32), W4R_SIZE, 0, 0, 0);
        ok = 1;
        for (int i = 0; i < 64; i++) ok &= near(data1[2 * i] * data1[2 * i] + data1[2 * i + 1] * data1[2 * i + 1], 1.0f);
        check(r == 0 ? "dsps_fft2r_fc32" : "dsps_fft4r_fc32", ok);
    }
}

#ifdef ESP_DSP_AES3
/* dspi_dotprod_{s8,s16}[_off]_ansi: sum over a count_x x count_y window of image x (filter +
 * offset), rounded and shifted right, stored in the element type (values here keep it in range). */
static int dspi_ref(const image_t *im, const image_t *f, int cx, int cy, int shift, int off, int s16) {
    long long acc = 0;
    for (int y = 0; y < cy; y++)
        for (int x = 0; x < cx; x++) {
            int i = y * im->stride_x * im->step_y + x * im->step_x, j = y * f->stride_x * f->step_y + x * f->step_x;
            int a = s16 ? ((int16_t *)im->data)[i] : ((int8_t *)im->data)[i];
            int b = s16 ? ((int16_t *)f->data)[j] : ((int8_t *)f->data)[j];
            acc += (long long)a * (b + off);
        }
    acc += 1 << (shift - 1);
    return (int)(acc >> shift);
}

/* The eight published image dot products: kernel, element size, image and filter strides, window. */
static const struct {
    const char *name;
    void *fn;
    int s16, istride, fstride, count, off;
} dspis[] = {
    {"dspi_dotprod_s8/u8", dspi_dotprod_s8_aes3, 0, 64, 16, 16, 0},
    {"dspi_dotprod_off_s8/u8", dspi_dotprod_off_s8_aes3, 0, 64, 16, 16, 10},
    {"dspi_dotprod_s8/u8", dspi_dotprod_s8_aes3, 0, 64, 64, 64, 0},
    {"dspi_dotprod_off_s8/u8", dspi_dotprod_off_s8_aes3, 0, 64, 64, 64, 10},
    {"dspi_dotprod_s16/u16", dspi_dotprod_s16_aes3, 1, 32, 8, 8, 0},
    {"dspi_dotprod_off_s16/u16", dspi_dotprod_off_s16_aes3, 1, 32, 8, 8, 10},
    {"dspi_dotprod_s16", dspi_dotprod_s16_aes3, 1, 32, 32, 32, 0},
    {"dspi_dotprod_off_s16/u16", dspi_dotprod_off_s16_aes3, 1, 32, 32, 32, 10},
};
#define NDSPI (int)(sizeof dspis / sizeof dspis[0])

static void check_dspi(void) {
    int8_t *b1 = (int8_t *)data1, *b2 = (int8_t *)data2;
    int16_t *h1 = (int16_t *)data1, *h2 = (int16_t *)data2;
    for (int i = 0; i < 64 * 64; i++) {
        b1[i] = (int8_t)(i % 13 - 6);
        b2[i] = (int8_t)(i % 11 - 5);
    }
    for (int i = 0; i < 32 * 32; i++) {
        h1[i + 2048] = (int16_t)((i * 37) % 601 - 300);
        h2[i + 2048] = (int16_t)((i * 53) % 401 - 200);
    }
    for (int t = 0; t < NDSPI; t++) {
        int s16 = dspis[t].s16, c = dspis[t].count, shift = s16 ? 12 : 8;
        void *d1 = s16 ? (void *)(h1 + 2048) : (void *)b1, *d2 = s16 ? (void *)(h2 + 2048) : (void *)b2;
        image_t im = {d1, 1, 1, dspis[t].istride, dspis[t].istride, dspis[t].istride, dspis[t].istride};
        image_t f = {d2, 1, 1, dspis[t].fstride, dspis[t].fstride, dspis[t].fstride, dspis[t].fstride};
        int16_t out = 0x5555;
        call(dspis[t].fn, A(&im), A(&f), A(&out), c, c, shift, dspis[t].off);
        int want = dspi_ref(&im, &f, c, c, shift, dspis[t].off, s16);
        int got = s16 ? out : (int8_t)out;
        if (got != (s16 ? (int16_t)want : (int8_t)want)) printf("check %s %d: got %d, want %d\n", dspis[t].name, c, got, want);
        check(dspis[t].name, got == (s16 ? (int16_t)want : (int8_t)want));
    }
    check("dspi fallbacks to ANSI C", fallbacks == 0);
}

/* test/prepare_csv_benchmarks.c: images {data1, 1, 1, stride, stride, stride, stride} and the
 * filter {data2, ...}, shift 1, offset 10, the result written over data2. */
static void bench_dspi(void) {
    for (int t = 0; t < NDSPI; t++) {
        int is = dspis[t].istride, fs = dspis[t].fstride, c = dspis[t].count;
        image_t im = {data1, 1, 1, is, is, is, is}, f = {data2, 1, 1, fs, fs, fs, fs};
        bench(dspis[t].name, c, dspis[t].fn, A(&im), A(&f), A(data2), c, c, 1, dspis[t].off);
    }
    if (fallbacks) {
        printf("check dspi fallbacks to ANSI C FAILED\n");
        failures++;
    }
}
#endif

int main(void) {
#ifdef ESP_DSP_AES3
    __asm__ volatile("wsr %0, cpenable\n\trsync" ::"a"(9)); /* the FPU (coprocessor 0) and PIE (3) */
#else
    __asm__ volatile("wsr %0, cpenable\n\trsync" ::"a"(1)); /* the FPU is coprocessor 0 */
#endif
    tables();
    check_kernels();
#ifdef ESP_DSP_AES3
    check_dspi();
#endif
    fill();

    fir_t fir1 = {data1, data2, 256, 0, 1, 0}; /* dsps_fir_init_f32(&fir1, data1, data2, 256) */
    fir_t fir2 = {data1, data2, 256, 0, 4, 0}; /* dsps_fird_init_f32(&fir2, data1, data2, 256, 4) */
    float coeffs[5] = {0.0675f, 0.1349f, 0.0675f, -1.1430f, 0.4128f}; /* a low-pass biquad */

    bench("dsps_dotprod_f32", 256, K_DOTPROD_F32, A(data1), A(data2), A(data3), 256, 0, 0, 0);
    bench("dsps_dotprode_f32", 256, dsps_dotprode_f32_ae32, A(data1), A(data2), A(data3), 256, 1, 1, 0);
    bench("dsps_dotprod_s16", 256, dsps_dotprod_s16_ae32, A(data1), A(data2), A(data3), 256, 0, 0, 0);
    bench("dsps_fir_f32", 1024, K_FIR_F32, A(&fir1), A(data1), A(data2), 1024, 0, 0, 0);
    bench("dsps_fird_f32", 1024, K_FIRD_F32, A(&fir2), A(data1), A(data2), 1024 / 4, 0, 0, 0);
    for (int n = 64; n <= 1024; n *= 2)
        bench("dsps_fft2r_fc32", n, K_FFT2R_FC32, A(data1), n, A(w2r_fc32), 0, 0, 0, 0);
    for (int n = 64; n <= 1024; n *= 4)
        bench("dsps_fft4r_fc32", n, K_FFT4R_FC32, A(data1), n, A(w4r_fc32), W4R_SIZE, 0, 0, 0);
    for (int n = 64; n <= 1024; n *= 2)
        bench("dsps_fft2r_sc16", n, K_FFT2R_SC16, A(data1), n, A(w2r_sc16), 0, 0, 0, 0);
    bench("dsps_biquad_f32", 1024, dsps_biquad_f32_ae32, A(data1), A(data2), 1024, A(coeffs), A(data3), 0, 0);
    bench("dspm_mult_f32", 16, K_MULT_F32, A(data1), A(data2), A(data3), 16, 16, 16, 0);
    bench("dspm_mult_s16", 16, K_MULT_S16, A(data1), A(data2), A(data3), 16, 16, 16, 0);
    bench("dspm_mult_3x3x1_f32", 3, dspm_mult_3x3x1_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    bench("dspm_mult_3x3x3_f32", 3, dspm_mult_3x3x3_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    bench("dspm_mult_4x4x1_f32", 4, dspm_mult_4x4x1_f32_ae32, A(data1), A(data2), A(data3), 0, 0, 0, 0);
    bench("dspm_mult_4x4x4_f32", 4, K_MULT_4X4X4, A(data1), A(data2), A(data3), MNK_4X4X4, MNK_4X4X4,
          MNK_4X4X4, 0);
#ifdef ESP_DSP_AES3
    bench_dspi();
#endif
    return failures != 0;
}
