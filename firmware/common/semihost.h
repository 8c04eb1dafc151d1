/*
 * tigris-sim test firmware: ARM semihosting calls.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Operation numbers and the exit reason code follow Arm's "Semihosting for
 * AArch32 and AArch64" specification (SYS_OPEN 0x01, SYS_WRITE 0x05,
 * SYS_EXIT 0x18, SYS_EXIT_EXTENDED 0x20, ADP_Stopped_ApplicationExit
 * 0x20026).  On M-profile the trap instruction is `bkpt 0xab` with the
 * operation in r0 and the parameter (usually a pointer to a block of words)
 * in r1; the result comes back in r0.
 */
#ifndef TIGRIS_SEMIHOST_H
#define TIGRIS_SEMIHOST_H

#include <stdint.h>

#define SYS_OPEN           0x01u
#define SYS_WRITE          0x05u
#define SYS_EXIT           0x18u
#define SYS_EXIT_EXTENDED  0x20u
#define ADP_Stopped_ApplicationExit 0x20026u

static inline uint32_t semihost_call(uint32_t op, const void *param)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = param;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

/* Stop the program with an exit code (SYS_EXIT_EXTENDED). */
void semihost_exit(int code) __attribute__((noreturn));

#endif
