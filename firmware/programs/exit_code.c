/*
 * exit_code: prints one line and returns 42, to check that the exit code
 * reaches the simulator (SYS_EXIT_EXTENDED) and the host shell.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

int main(void)
{
    printf("exit_code: returning 42\n");
    return 42;
}
