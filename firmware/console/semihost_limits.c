/*
 * semihost_limits: semihosting requests whose lengths run far past memory, one per function, each
 * started with `--entry NAME` (no C library needed). The simulator must check a request's range
 * before it allocates for it: each ends the run as a bad-pointer fault, not by exhausting host
 * memory (reliability review D5). system_call asks the host to run a command, which is always
 * refused (its note must not blame a missing --allow-host-fs).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Parameter blocks per Arm "Semihosting for AArch32 and AArch64":
 *   SYS_OPEN   {name, mode, strlen(name)}   SYS_WRITE {handle, buffer, length}
 *   SYS_READ   {handle, buffer, length}     SYS_SYSTEM {command, strlen(command)}
 */
#include <stdint.h>
#include "semihost.h"

#define SYS_READ   0x06u
#define SYS_SYSTEM 0x12u

static char buffer[16];
static const char zero[] = "/dev/zero";
static const char command[] = "true";

int32_t write_huge(void)
{
    uint32_t block[3] = {1u, (uint32_t)(uintptr_t)buffer, 0x7fffffffu};
    return (int32_t)semihost_call(SYS_WRITE, block);
}

int32_t open_huge(void)
{
    uint32_t block[3] = {(uint32_t)(uintptr_t)zero, 0u, 0xffffffffu};
    return (int32_t)semihost_call(SYS_OPEN, block);
}

/* Reads /dev/zero (run with --allow-host-fs) into a 16-byte buffer, asking for 2 GiB. */
int32_t read_huge(void)
{
    uint32_t open_block[3] = {(uint32_t)(uintptr_t)zero, 0u, sizeof zero - 1};
    int32_t handle = (int32_t)semihost_call(SYS_OPEN, open_block);
    if (handle < 0)
        return 1;
    uint32_t block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buffer, 0x7fffffffu};
    return (int32_t)semihost_call(SYS_READ, block);
}

/* SYS_SYSTEM answers -1: the run exits with 0 when it did. */
int32_t system_call(void)
{
    uint32_t block[2] = {(uint32_t)(uintptr_t)command, sizeof command - 1};
    return (int32_t)semihost_call(SYS_SYSTEM, block) + 1;
}

/* Reached from main, so that --gc-sections keeps them for --entry. */
int32_t (*const volatile entries[])(void) = {write_huge, open_huge, read_huge, system_call};

int main(void)
{
    return entries[0] != 0;
}
