/*
 * fault_task_switch: main starts a task on a stack of its own the way an RTOS
 * does (PendSV points the process stack pointer at a stack that holds an
 * exception frame and returns into it in thread mode, ARMv7-M ARM B1.5.6,
 * B1.5.8); the task calls two levels deep and loads from 0x70000000, unmapped
 * on every board here (BusFault, escalated to HardFault). The task's stack
 * holds no trace of main, so its backtrace, unwound from the machine state,
 * lists the task's frames only, as a debugger shows them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include "cortexm.h"

static uint32_t task_stack[256] __attribute__((aligned(8)));
uint32_t *task_sp;

__attribute__((noinline)) static uint32_t task_leaf(uintptr_t address)
{
    return *(volatile uint32_t *)address + 1; /* the faulting load */
}

__attribute__((noinline)) static uint32_t task_middle(uintptr_t address)
{
    return task_leaf(address) * 3;
}

__attribute__((noreturn)) static void task(void)
{
    printf("fault_task_switch: the task runs on its own stack\n");
    printf("fault_task_switch: UNEXPECTED: read %u\n", (unsigned)task_middle(0x70000000u));
    for (;;) {
    }
}

__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile("ldr r0, =task_sp\n"
                     "ldr r0, [r0]\n"
                     "msr psp, r0\n"
                     "ldr r0, =0xFFFFFFFD\n" /* EXC_RETURN: thread mode, process stack, basic frame */
                     "bx r0\n"
                     ".ltorg\n");
}

int main(void)
{
    uint32_t *frame = &task_stack[256 - 8]; /* r0-r3, r12, lr, pc, xPSR */
    frame[5] = 0;                           /* lr: the task never returns */
    frame[6] = (uint32_t)(uintptr_t)task & ~1u;
    frame[7] = 1u << 24; /* xPSR.T */
    task_sp = frame;
    printf("fault_task_switch: switching to the task\n");
    SCB_ICSR = ICSR_PENDSVSET;
    dsb();
    isb();
    printf("fault_task_switch: UNEXPECTED: main resumed\n");
    return 1;
}
