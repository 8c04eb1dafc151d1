/*
 * tigris-sim test firmware: the few core registers and intrinsics the
 * interrupt and fault programs use (our own definitions, not CMSIS).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Addresses: ARMv7-M Architecture Reference Manual (DDI 0403) B3.2 (System
 * Control Space), B3.3 (SysTick), B3.4 (NVIC), C1.8 (DWT); the ARMv6-M ARM
 * (DDI 0419) has the same SCB/SysTick/NVIC addresses.
 */
#ifndef TIGRIS_CORTEXM_H
#define TIGRIS_CORTEXM_H

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define SYST_CSR    REG(0xE000E010u)   /* SysTick control and status */
#define SYST_RVR    REG(0xE000E014u)   /* SysTick reload value       */
#define SYST_CVR    REG(0xE000E018u)   /* SysTick current value      */
#define NVIC_ISER0  REG(0xE000E100u)   /* IRQ 0-31 set-enable        */
#define NVIC_ISPR0  REG(0xE000E200u)   /* IRQ 0-31 set-pending       */
#define SCB_ICSR    REG(0xE000ED04u)   /* interrupt control & state  */
#define SCB_VTOR    REG(0xE000ED08u)   /* vector table offset        */
#define DEMCR       REG(0xE000EDFCu)   /* debug exception & monitor  */
#define DWT_CTRL    REG(0xE0001000u)
#define DWT_CYCCNT  REG(0xE0001004u)
#define DWT_LAR     REG(0xE0001FB0u)

#define ICSR_PENDSVSET (1u << 28)

static inline void dsb(void) { __asm__ volatile("dsb" ::: "memory"); }
static inline void isb(void) { __asm__ volatile("isb" ::: "memory"); }
static inline void wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void disable_irq(void) { __asm__ volatile("cpsid i" ::: "memory"); }
static inline void enable_irq(void) { __asm__ volatile("cpsie i" ::: "memory"); }

static inline uint32_t get_ipsr(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, ipsr" : "=r"(v));
    return v;
}

/* Start DWT_CYCCNT from 0 (ARMv7-M only; the Cortex-M0+ has no cycle counter). */
static inline void cyccnt_start(void)
{
    DEMCR |= 1u << 24;                 /* TRCENA */
#if defined(CORE_CORTEX_M7)
    DWT_LAR = 0xC5ACCE55u;             /* Cortex-M7: unlock the DWT */
#endif
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;                    /* CYCCNTENA */
}

#endif
