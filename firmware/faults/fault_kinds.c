/*
 * fault_kinds: every fault kind the simulator raises, each taken by this firmware's own handler,
 * which records what the fault status registers say and returns past the faulting instruction.
 * ARMv7-M/ARMv8-M (M4, M7, M33): the configurable faults are enabled in SHCSR, so each is taken as
 * itself; ARMv6-M (M0+): every one is a HardFault, and the handler reads no status registers
 * (ARMv6-M has none). Faults: undefined instruction (UNDEFINSTR), interworking branch to an even
 * address (INVSTATE), divide by zero with CCR.DIV_0_TRP (DIVBYZERO, not on ARMv6-M), load from unmapped memory
 * (BusFault PRECISERR, BFAR), an unaligned word load with CCR.UNALIGN_TRP (UNALIGNED), and a fetch from the execute-never peripheral region (MemManage
 * IACCVIOL). References: ARMv7-M ARM B1.5.14 (fault behaviour), B3.2.8 (CCR), B3.2.13 (SHCSR),
 * B3.2.15 (CFSR), B3.2.18 (BFAR).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include "cortexm.h"

#define SCB_CCR   REG(0xE000ED14u)
#define SCB_SHCSR REG(0xE000ED24u)
#define SCB_CFSR  REG(0xE000ED28u)
#define SCB_HFSR  REG(0xE000ED2Cu)
#define SCB_BFAR  REG(0xE000ED38u)

static volatile uint32_t seen_exception, seen_cfsr, seen_bfar, return_to_caller;

/* Common handler body, called with the stacked frame: note the exception and its status, clear
 * the status, and resume past the faulting instruction (its length from its first halfword,
 * ARMv7-M ARM A5.1), or at the stacked LR after a call that faulted on its target. */
void fault_record(uint32_t *frame)
{
    seen_exception = get_ipsr();
#if !defined(CORE_CORTEX_M0PLUS)
    seen_cfsr = SCB_CFSR;
    seen_bfar = SCB_BFAR;
    SCB_CFSR = seen_cfsr;           /* write-one-to-clear */
    SCB_HFSR = SCB_HFSR;
#endif
    if (return_to_caller) {
        frame[6] = frame[5] & ~1u;
    } else {
        uint16_t first = *(const uint16_t *)(uintptr_t)frame[6];
        frame[6] += (first >> 11) >= 0x1D ? 4 : 2;
    }
    frame[7] |= 1u << 24;           /* Thumb state again (INVSTATE stacked it clear) */
    return_to_caller = 0;
}

/* Thumb-1 trampoline (assembles for the M0+ too): pick MSP or PSP by EXC_RETURN bit 2. */
__attribute__((naked)) void fault_entry(void)
{
    __asm__ volatile(
        "movs r0, #4\n"
        "mov r1, lr\n"
        "tst r0, r1\n"
        "beq 1f\n"
        "mrs r0, psp\n"
        "b 2f\n"
        "1: mrs r0, msp\n"
        "2: ldr r2, =fault_record\n"
        "push {r2, lr}\n"
        "blx r2\n"
        "pop {r2, pc}\n");
}

void HardFault_Handler(void) __attribute__((alias("fault_entry")));
void MemManage_Handler(void) __attribute__((alias("fault_entry")));
void BusFault_Handler(void) __attribute__((alias("fault_entry")));
void UsageFault_Handler(void) __attribute__((alias("fault_entry")));

static void report(const char *what)
{
    printf("fault_kinds: %s exception=%" PRIu32 " cfsr=0x%08" PRIx32 " bfar=0x%08" PRIx32 "\n",
           what, seen_exception, seen_cfsr, seen_bfar);
    seen_exception = seen_cfsr = seen_bfar = 0;
}

int main(void)
{
#if !defined(CORE_CORTEX_M0PLUS)
    SCB_SHCSR |= (1u << 16) | (1u << 17) | (1u << 18);  /* MEMFAULTENA BUSFAULTENA USGFAULTENA */
    SCB_CCR |= 1u << 4;                                  /* DIV_0_TRP */
#endif
    __asm__ volatile(".inst.n 0xde00" ::: "memory");       /* UDF #0 */
    report("undefined");

    __asm__ volatile("adr r0, 1f\n bx r0\n .align 2\n 1: nop" ::: "r0", "memory");
    report("invstate");

#if !defined(CORE_CORTEX_M0PLUS)
    static volatile uint32_t zero = 0, dividend = 7;
    __asm__ volatile("udiv %0, %1, %2" : "=r"(dividend) : "r"(dividend), "r"(zero) : "memory");
    report("divide_by_zero");
#endif

    (void)REG(0x70000000u);
    report("bus");

    /* A word load from an address that is not word-aligned: with CCR.UNALIGN_TRP (always on
     * ARMv6-M, ARMv6-M ARM A3.2.1) an UNALIGNED UsageFault (HardFault on ARMv6-M), and the
     * load does not happen (r0 keeps its value). */
#if !defined(CORE_CORTEX_M0PLUS)
    SCB_CCR |= 1u << 3;                                  /* UNALIGN_TRP */
    __asm__ volatile("dsb\n isb" ::: "memory");          /* as after any CCR change */
#endif
    static volatile uint32_t words[2] = {0x11223344u, 0x55667788u};
    uint32_t loaded = 0xA5A5A5A5u;
    __asm__ volatile("ldr %0, [%1]" : "+l"(loaded) : "l"((uintptr_t)words + 1u) : "memory");
    report(loaded == 0xA5A5A5A5u ? "unaligned (not loaded)" : "unaligned (LOADED)");
#if !defined(CORE_CORTEX_M0PLUS)
    SCB_CCR &= ~(1u << 3);
    __asm__ volatile("dsb\n isb" ::: "memory");
    __asm__ volatile("ldr %0, [%1]" : "+l"(loaded) : "l"((uintptr_t)words + 1u) : "memory");
    printf("fault_kinds: unaligned without UNALIGN_TRP loaded 0x%08" PRIx32 "\n", loaded);
#endif
    /* LDM needs a word-aligned address whatever UNALIGN_TRP says (ARMv7-M ARM A3.2.1). */
    __asm__ volatile("mov r1, %0\n ldmia r1!, {r2}" : : "l"((uintptr_t)words + 2u) : "r1", "r2", "memory");
    report("unaligned_ldm");

    return_to_caller = 1;
    ((void (*)(void))0x40000001u)();
    report("execute_never");
    return 0;
}
