/* Entry and window vectors for windowed-ABI test firmware (ESP32 / ESP32-S3 ISS configs).
 * Handlers follow the Xtensa ISA Reference Manual's window overflow/underflow handlers
 * (Windowed Register Option). */
    .include "windowed_prelude.S"

    .section .vectors, "ax"
    .global _vectors
_vectors:
    .org 0x000              /* WindowOverflow4: a0..a3 -> [a5-16 .. a5-4] */
    s32e a0, a5, -16
    s32e a1, a5, -12
    s32e a2, a5, -8
    s32e a3, a5, -4
    rfwo
    .org 0x040              /* WindowUnderflow4 */
    l32e a0, a5, -16
    l32e a1, a5, -12
    l32e a2, a5, -8
    l32e a3, a5, -4
    rfwu
    .org 0x080              /* WindowOverflow8: caller SP from [a1-12]; a4..a7 -> [sp-32 .. sp-20] */
    s32e a0, a9, -16
    l32e a0, a1, -12
    s32e a1, a9, -12
    s32e a2, a9, -8
    s32e a3, a9, -4
    s32e a4, a0, -32
    s32e a5, a0, -28
    s32e a6, a0, -24
    s32e a7, a0, -20
    rfwo
    .org 0x0C0              /* WindowUnderflow8 */
    l32e a1, a9, -12
    l32e a0, a9, -16
    l32e a7, a1, -12
    l32e a2, a9, -8
    l32e a4, a7, -32
    l32e a3, a9, -4
    l32e a5, a7, -28
    l32e a6, a7, -24
    l32e a7, a7, -20
    rfwu
    .org 0x100              /* WindowOverflow12: a4..a11 -> [sp-48 .. sp-20] */
    s32e a0, a13, -16
    l32e a0, a1, -12
    s32e a1, a13, -12
    s32e a2, a13, -8
    s32e a3, a13, -4
    s32e a4, a0, -48
    s32e a5, a0, -44
    s32e a6, a0, -40
    s32e a7, a0, -36
    s32e a8, a0, -32
    s32e a9, a0, -28
    s32e a10, a0, -24
    s32e a11, a0, -20
    rfwo
    .org 0x140              /* WindowUnderflow12 */
    l32e a1, a13, -12
    l32e a0, a13, -16
    l32e a11, a1, -12
    l32e a2, a13, -8
    l32e a4, a11, -48
    l32e a5, a11, -44
    l32e a6, a11, -40
    l32e a7, a11, -36
    l32e a8, a11, -32
    l32e a9, a11, -28
    l32e a10, a11, -24
    l32e a3, a13, -4
    l32e a11, a11, -20
    rfwu
    .org 0x300              /* Kernel / user / double exception vectors: stop */
#ifdef KERNEL_HANDLER       /* -DKERNEL_HANDLER=symbol: the program takes level-1 interrupts there */
    j       KERNEL_HANDLER
#else
    break 15, 15
#endif
    .org 0x340
    break 15, 15
    .org 0x3C0
    break 15, 15
    .org 0x400

    .section .text.start, "ax"
#ifdef IDF_ENTRY
/* -DIDF_ENTRY: entered as an ESP-IDF app is, at `call_start_cpu0` on the stack the boot loader hands
 * over (a1), on the chip's mask ROM: a banner through the ROM's own ets_printf (its address comes
 * from the link, --defsym), then the program. */
    .section .rodata.banner, "a"
banner:
    .asciz "tigris: ESP-IDF layout, call_start_cpu0, printing through the ROM's ets_printf\n"
    .section .text.start, "ax"
    .global call_start_cpu0
    .type   call_start_cpu0, @function
    .literal_position
    .align 4
call_start_cpu0:
#endif
    .global _start
    .type   _start, @function
    .literal_position
    .align 4
_start:
#ifndef NO_VECBASE          /* -DNO_VECBASE: leave VECBASE at reset (fault test: no window handlers) */
    movi    a0, _vectors
    wsr     a0, vecbase
#endif
#ifdef IDF_ENTRY
    addi    a2, a1, 48              /* "caller SP" slot of the bottom frame, for OF8/OF12 */
#else
    movi    a1, _stack_top
    movi    a2, _stack_top + 48     /* "caller SP" slot of the bottom frame, for OF8/OF12 */
#endif
    addi    a3, a1, -12
    s32i    a2, a3, 0
    movi    a0, 0x40000             /* PS.WOE = 1, EXCM = 0, INTLEVEL = 0 */
    wsr     a0, ps
    rsync
#ifdef IDF_ENTRY
    movi    a10, banner
    call8   ets_printf
#endif
    call8   run_all
    mov     a2, a10
    break   1, 15
    .size   _start, . - _start
