/*
 * svc: supervisor calls.  SVC_Handler finds the exception stack frame (MSP
 * or PSP from EXC_RETURN bit 2), reads the SVC number from the immediate of
 * the `svc` instruction before the stacked return address, records it and
 * the caller's r0, and returns r0 + 1 in the stacked r0.
 * Stack frame layout: r0, r1, r2, r3, r12, lr, pc, xPSR (ARMv7-M ARM B1.5.6).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include "cortexm.h"

static volatile uint32_t svc_number;
static volatile uint32_t svc_r0;
static volatile uint32_t svc_calls;
static volatile uint32_t svc_ipsr;

void svc_dispatch(uint32_t *frame)
{
    const uint8_t *ret = (const uint8_t *)(uintptr_t)frame[6];
    svc_number = ret[-2];              /* SVC #imm8: low byte of the 16-bit opcode */
    svc_r0 = frame[0];
    svc_ipsr = get_ipsr();             /* 11 = SVCall */
    svc_calls++;
    frame[0] = frame[0] + 1u;
}

/* Thumb-1 only, so it assembles for the Cortex-M0+ too.  LR still holds
 * EXC_RETURN when svc_dispatch returns, which performs the exception return. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile(
        "movs   r0, #4          \n"
        "mov    r1, lr          \n"
        "tst    r0, r1          \n"
        "beq    1f              \n"
        "mrs    r0, psp         \n"
        "b      2f              \n"
        "1: mrs r0, msp         \n"
        "2: ldr r1, 3f          \n"
        "bx     r1              \n"
        ".p2align 2             \n"
        "3: .word svc_dispatch  \n");
}

static uint32_t do_svc5(uint32_t arg)
{
    register uint32_t r0 __asm__("r0") = arg;
    __asm__ volatile("svc #5" : "+r"(r0) : : "memory");
    return r0;
}

static uint32_t do_svc42(uint32_t arg)
{
    register uint32_t r0 __asm__("r0") = arg;
    __asm__ volatile("svc #42" : "+r"(r0) : : "memory");
    return r0;
}

int main(void)
{
    uint32_t r = do_svc5(0x1234u);
    printf("svc: number=%" PRIu32 " r0=0x%04" PRIX32 " returned=0x%04" PRIX32 " ipsr=%" PRIu32
           " calls=%" PRIu32 "\n", svc_number, svc_r0, r, svc_ipsr, svc_calls);
    r = do_svc42(7u);
    printf("svc: number=%" PRIu32 " r0=0x%04" PRIX32 " returned=0x%04" PRIX32 " ipsr=%" PRIu32
           " calls=%" PRIu32 "\n", svc_number, svc_r0, r, svc_ipsr, svc_calls);
    return 0;
}
