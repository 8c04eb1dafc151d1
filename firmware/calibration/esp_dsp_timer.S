/* uint32_t tg_time_call(void *fn, const uint32_t args[7]): CCOUNT cycles of one windowed call of
 * fn with up to seven word arguments, read as ESP-DSP's REPORT_BENCHMARK_CSV reads them
 * (test/report.inc: CCOUNT just before the call, just after it returns). The arguments are in
 * a10..a15 and the seventh at the caller's stack pointer (windowed ABI) before the first read, so
 * the window holds the call instruction and the callee only. The board's harness calls with CALL8;
 * CALLX8 here (the LX106 assembler cannot encode a CALL8 to another object): both are one
 * instruction and a taken jump. */
    .include "xtensa_lx6_prelude.S"

    .text
    .align  4
    .global tg_time_call
    .type   tg_time_call, @function
tg_time_call:
    entry   a1, 32
    l32i    a4, a3, 24
    s32i    a4, a1, 0
    l32i    a10, a3, 0
    l32i    a11, a3, 4
    l32i    a12, a3, 8
    l32i    a13, a3, 12
    l32i    a14, a3, 16
    l32i    a15, a3, 20
    rsr     a5, ccount
    callx8  a2
    rsr     a6, ccount
    sub     a2, a6, a5
    retw
    .size   tg_time_call, . - tg_time_call
