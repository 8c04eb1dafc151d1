/* Executes every instruction xtensa_lx6_prelude.S encodes and compares its effect with the same
 * operation computed in C (IEEE single precision in our soft float, integers as the host computes
 * them): a wrong field in a macro gives another instruction, other operands or an illegal
 * instruction, and fails here. Prints one FAILED line per mismatch and `prelude checks N ok`;
 * exits 1 on any failure. Built and run by scripts/accuracy.sh before the ESP-DSP cells. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

static void expect(const char *what, uint32_t got, uint32_t want) {
    checks++;
    if (got != want) {
        printf("FAILED %s: got 0x%08lx, want 0x%08lx\n", what, (unsigned long)got, (unsigned long)want);
        failures++;
    }
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- MAC16: every kind, operand form and half on operands whose four half products differ. */
#define X 0x80037FFDu /* high half -32765, low half 32765 */
#define Y 0x0005FFF9u /* high half 5, low half -7 */
#define ACC_LO 0x12345678u
#define ACC_HI 0xFFFFFFFEu /* ACCHI holds bits 39:32, sign-extended when read */

static void expect_acc(const char *mn, uint32_t lo, uint32_t hi, int kind, int h) {
    /* kind 0 UMUL (unsigned halves), 1 MUL, 2 MULA, 3 MULS; h 0 LL, 1 HL, 2 LH, 3 HH. */
    uint32_t xs = (h & 1) ? X >> 16 : X & 0xFFFF, ys = (h & 2) ? Y >> 16 : Y & 0xFFFF;
    int64_t p = kind == 0 ? (int64_t)xs * ys : (int64_t)(int16_t)xs * (int16_t)ys;
    int64_t acc0 = (int64_t)((uint64_t)(int8_t)ACC_HI << 32 | ACC_LO);
    int64_t acc = kind < 2 ? p : kind == 2 ? acc0 + p : acc0 - p;
    char what[48];
    snprintf(what, sizeof what, "%s acclo", mn);
    expect(what, lo, (uint32_t)acc);
    snprintf(what, sizeof what, "%s acchi", mn);
    expect(what, hi, (uint32_t)(int32_t)(int8_t)(acc >> 32));
}

/* m0 = m2 = X, m1 = m3 = Y; the instruction's operands pick one of each. */
#define MAC(mn, ops, kind, h)                                                                     \
    do {                                                                                          \
        uint32_t lo, hi;                                                                          \
        __asm__ volatile("wsr %2, acclo\n\twsr %3, acchi\n\twsr %4, m0\n\twsr %5, m1\n\t"        \
                         "wsr %4, m2\n\twsr %5, m3\n\t" mn " " ops "\n\t"                         \
                         "rsr %0, acclo\n\trsr %1, acchi"                                         \
                         : "=&a"(lo), "=&a"(hi)                                                   \
                         : "a"(ACC_LO), "a"(ACC_HI), "a"(X), "a"(Y));                            \
        expect_acc(mn, lo, hi, kind, h);                                                          \
    } while (0)

#define MAC_FORMS(hs, h)                                                                          \
    do {                                                                                          \
        MAC("umul.aa." hs, "%4, %5", 0, h);                                                       \
        MAC("mul.aa." hs, "%4, %5", 1, h);                                                        \
        MAC("mula.aa." hs, "%4, %5", 2, h);                                                       \
        MAC("muls.aa." hs, "%4, %5", 3, h);                                                       \
        MAC("mul.ad." hs, "%4, m3", 1, h);                                                        \
        MAC("mula.ad." hs, "%4, m3", 2, h);                                                       \
        MAC("muls.ad." hs, "%4, m3", 3, h);                                                       \
        MAC("mul.da." hs, "m0, %5", 1, h);                                                        \
        MAC("mula.da." hs, "m0, %5", 2, h);                                                       \
        MAC("muls.da." hs, "m0, %5", 3, h);                                                       \
        MAC("mul.dd." hs, "m0, m3", 1, h);                                                        \
        MAC("mula.dd." hs, "m0, m3", 2, h);                                                       \
        MAC("muls.dd." hs, "m0, m3", 3, h);                                                       \
    } while (0)

static uint32_t words[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};

/* Loads and MAC with a load: `mw` receives the word after (LDINC) or before (LDDEC) the pointer,
 * and the pointer moves by 4. */
#define MAC_LD(mn, ops, mw, kind, h, inc)                                                         \
    do {                                                                                          \
        uint32_t lo, hi, m, *p = &words[1];                                                       \
        __asm__ volatile("wsr %4, acclo\n\twsr %5, acchi\n\twsr %6, m0\n\twsr %7, m1\n\t"        \
                         "wsr %6, m2\n\twsr %7, m3\n\t" mn " " ops "\n\t"                         \
                         "rsr %0, acclo\n\trsr %1, acchi\n\trsr %2, " mw                          \
                         : "=&a"(lo), "=&a"(hi), "=&a"(m), "+a"(p)                                \
                         : "a"(ACC_LO), "a"(ACC_HI), "a"(X), "a"(Y));                            \
        if (kind >= 0) expect_acc(mn, lo, hi, kind, h);                                           \
        expect(mn " pointer", (uint32_t)(uintptr_t)p,                                             \
               (uint32_t)(uintptr_t)(inc ? &words[2] : &words[0]));                               \
        expect(mn " loaded", m, inc ? words[2] : words[0]);                                       \
    } while (0)

#define MAC_LD_FORMS(hs, h)                                                                       \
    do {                                                                                          \
        MAC_LD("mula.dd." hs ".ldinc", "m1, %3, m0, m3", "m1", 2, h, 1);                          \
        MAC_LD("mula.dd." hs ".lddec", "m2, %3, m0, m3", "m2", 2, h, 0);                          \
        MAC_LD("mula.da." hs ".ldinc", "m3, %3, m0, %7", "m3", 2, h, 1);                          \
        MAC_LD("mula.da." hs ".lddec", "m1, %3, m0, %7", "m1", 2, h, 0);                          \
    } while (0)

static void check_mac16(void) {
    MAC_FORMS("ll", 0);
    MAC_FORMS("hl", 1);
    MAC_FORMS("lh", 2);
    MAC_FORMS("hh", 3);
    MAC_LD_FORMS("ll", 0);
    MAC_LD_FORMS("hl", 1);
    MAC_LD_FORMS("lh", 2);
    MAC_LD_FORMS("hh", 3);
    MAC_LD("ldinc", "m2, %3", "m2", -1, 0, 1);
    MAC_LD("lddec", "m1, %3", "m1", -1, 0, 0);
}

/* ---- FPU: arithmetic with distinct operand registers (fr = f2, fs = f0, ft = f1), so a swapped
 * field gives another result; exact operands, so fused and unfused multiply-add agree. */
#define FP3(mn, a, b, acc, want)                                                                  \
    do {                                                                                          \
        uint32_t r;                                                                               \
        __asm__ volatile("wfr f0, %1\n\twfr f1, %2\n\twfr f2, %3\n\t" mn " f2, f0, f1\n\t"       \
                         "rfr %0, f2"                                                             \
                         : "=a"(r)                                                                \
                         : "a"(bits(a)), "a"(bits(b)), "a"(bits(acc)));                          \
        expect(mn, r, bits(want));                                                                \
    } while (0)
#define FP1(mn, a, want)                                                                          \
    do {                                                                                          \
        uint32_t r;                                                                               \
        __asm__ volatile("wfr f5, %1\n\t" mn " f9, f5\n\trfr %0, f9" : "=a"(r) : "a"(bits(a)));  \
        expect(mn, r, bits(want));                                                                \
    } while (0)
#define CONST(k, want)                                                                            \
    do {                                                                                          \
        uint32_t r;                                                                               \
        __asm__ volatile("const.s f7, " #k "\n\trfr %0, f7" : "=a"(r));                          \
        expect("const.s " #k, r, bits(want));                                                     \
    } while (0)

static void check_fpu(void) {
    volatile float a = 1.5f, b = 2.25f, c = 0.5f;
    FP3("add.s", a, b, c, a + b);
    FP3("sub.s", a, b, c, a - b);
    FP3("mul.s", a, b, c, a * b);
    FP3("madd.s", a, b, c, c + a * b);
    FP3("msub.s", a, b, c, c - a * b);
    FP1("mov.s", -a, -a);
    FP1("abs.s", -a, a);
    FP1("neg.s", a, -a);
    CONST(0, 0.0f);
    CONST(1, 1.0f);
    CONST(2, 2.0f);
    CONST(3, 0.5f);

    /* Loads and stores: immediate, immediate with post-increment, indexed, indexed with
     * post-increment (the pointer moves by the offset / the index after the access). */
    float buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float *p = buf;
    uint32_t r0, r1;
    __asm__ volatile("lsi f3, %2, 8\n\trfr %0, f3\n\tssi f3, %2, 28" : "=a"(r0), "+a"(p) : "a"(p));
    expect("lsi", r0, bits(3.0f));
    expect("ssi", bits(buf[7]), bits(3.0f));
    __asm__ volatile("lsip f4, %1, 12\n\trfr %0, f4" : "=a"(r0), "+a"(p));
    expect("lsip value", r0, bits(1.0f));
    expect("lsip pointer", (uint32_t)(uintptr_t)p, (uint32_t)(uintptr_t)&buf[3]);
    __asm__ volatile("wfr f6, %1\n\tssip f6, %0, 8" : "+a"(p) : "a"(bits(9.0f)));
    expect("ssip value", bits(buf[3]), bits(9.0f));
    expect("ssip pointer", (uint32_t)(uintptr_t)p, (uint32_t)(uintptr_t)&buf[5]);
    p = buf;
    __asm__ volatile("lsx f8, %2, %3\n\trfr %0, f8\n\tssx f8, %2, %4\n\tmov %1, %2"
                     : "=a"(r0), "=a"(r1)
                     : "a"(p), "a"(4), "a"(24));
    expect("lsx", r0, bits(2.0f));
    expect("ssx", bits(buf[6]), bits(2.0f));
    __asm__ volatile("lsxp f10, %1, %2\n\trfr %0, f10" : "=a"(r0), "+a"(p) : "a"(8));
    expect("lsxp value", r0, bits(1.0f));
    expect("lsxp pointer", (uint32_t)(uintptr_t)p, (uint32_t)(uintptr_t)&buf[2]);
    __asm__ volatile("wfr f11, %1\n\tssxp f11, %0, %2" : "+a"(p) : "a"(bits(-4.0f)), "a"(-8));
    expect("ssxp value", bits(buf[2]), bits(-4.0f));
    expect("ssxp pointer", (uint32_t)(uintptr_t)p, (uint32_t)(uintptr_t)&buf[0]);
    (void)r1;
}

/* ---- Zero-overhead loops: iterations of a one-instruction body, and LCOUNT after a loop that ran
 * (a skipped one leaves count - 1 there). */
#define LOOP(mn, count, want)                                                                     \
    do {                                                                                          \
        uint32_t n, lc;                                                                           \
        __asm__ volatile("movi %0, 0\n\t" mn " %2, 1f\n\taddi %0, %0, 1\n1:\n\trsr %1, lcount"   \
                         : "=&a"(n), "=a"(lc)                                                     \
                         : "a"(count));                                                           \
        expect(mn " " #count " iterations", n, want);                                             \
        if ((int)(count) > 0) expect(mn " " #count " lcount", lc, 0);                             \
    } while (0)

static void check_loops(void) {
    LOOP("loop", 5, 5);
    LOOP("loopnez", 7, 7);
    LOOP("loopnez", 0, 0);
    LOOP("loopgtz", 3, 3);
    LOOP("loopgtz", -3, 0);
}

/* ---- Special registers: SAR through RSR/WSR/XSR (checked by SRL), CCOUNT advancing. */
static void check_sr(void) {
    uint32_t old, now = 9, shifted;
    __asm__ volatile("wsr %2, sar\n\tsrl %1, %3\n\txsr %0, sar\n\trsr %0, sar"
                     : "+a"(now), "=&a"(shifted)
                     : "a"(5), "a"(0x80u));
    expect("wsr sar (srl)", shifted, 0x80u >> 5);
    expect("xsr sar", now, 9);
    __asm__ volatile("rsr %0, ccount\n\tnop\n\tnop\n\trsr %1, ccount" : "=&a"(old), "=a"(now));
    expect("rsr ccount advances", now - old >= 2, 1);
}

int main(void) {
    __asm__ volatile("wsr %0, cpenable\n\trsync" ::"a"(1)); /* the FPU is coprocessor 0 */
    check_mac16();
    check_fpu();
    check_loops();
    check_sr();
    printf("prelude checks %d %s\n", checks, failures ? "FAILED" : "ok");
    return failures != 0;
}
