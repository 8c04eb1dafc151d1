/*
 * console_rtt: console output over SEGGER RTT (common/rtt.c: a 64-byte up buffer in blocking
 * mode, smaller than the second line, so the firmware waits for the reader). Then exits with
 * code 0 through semihosting.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "rtt.h"

int main(void)
{
    rtt_init();
    rtt_write("console_rtt: hello over SEGGER RTT\n");
    rtt_write("console_rtt: a line longer than the 64-byte up buffer, so the firmware waits for the reader\n");
    rtt_write("console_rtt: done\n");
    return 0;
}
