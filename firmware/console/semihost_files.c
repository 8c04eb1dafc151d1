/*
 * semihost_files: asks the host, through semihosting, to create, write and
 * remove a file, and prints what each request returned. tigris-sim refuses
 * host file access (result -1) unless it runs with --allow-host-fs.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Parameter blocks per Arm "Semihosting for AArch32 and AArch64":
 *   SYS_OPEN  {name, mode, strlen(name)}  mode 4 = "w"; returns a handle or -1
 *   SYS_WRITE {handle, buffer, length}    returns the bytes NOT written
 *   SYS_CLOSE {handle}                     returns 0 or -1
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "semihost.h"

#define SYS_CLOSE 0x02u

/* An absolute path so the result does not depend on the simulator's working directory. */
static const char path[] = "/tmp/tigris-semihost-files.txt";
static const char text[] = "written by firmware through semihosting\n";

int main(void)
{
    uint32_t open_block[3] = {(uint32_t)(uintptr_t)path, 4u, (uint32_t)strlen(path)};
    int32_t handle = (int32_t)semihost_call(SYS_OPEN, open_block);
    printf("open: %" PRId32 "\n", handle);
    if (handle >= 0) {
        uint32_t write_block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)text, (uint32_t)strlen(text)};
        printf("write: %" PRIu32 " bytes left\n", semihost_call(SYS_WRITE, write_block));
        uint32_t close_block[1] = {(uint32_t)handle};
        printf("close: %" PRId32 "\n", (int32_t)semihost_call(SYS_CLOSE, close_block));
    }
    return 0;
}
