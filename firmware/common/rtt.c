/*
 * SEGGER RTT, as a debug probe reads it. The control block `_SEGGER_RTT` follows SEGGER_RTT.h
 * (`SEGGER_RTT_CB`): ID "SEGGER RTT", one up and one down buffer. The up buffer is 64 bytes, in
 * blocking mode (SEGGER_RTT_MODE_BLOCK_IF_FIFO_FULL, Flags = 2): the firmware waits until the
 * reader advances RdOff. The ID is written last, as SEGGER_RTT_Init does, so a reader never sees
 * half a block.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <string.h>
#include "rtt.h"

struct rtt_buffer {
    const char *name;
    char *buffer;
    uint32_t size;
    volatile uint32_t wr_off;
    volatile uint32_t rd_off;
    uint32_t flags;
};

struct rtt_control_block {
    char id[16];
    int32_t max_up_buffers;
    int32_t max_down_buffers;
    struct rtt_buffer up[1];
    struct rtt_buffer down[1];
};

struct rtt_control_block _SEGGER_RTT;
static char up_buffer[64];
static char down_buffer[16];

void rtt_init(void)
{
    _SEGGER_RTT.max_up_buffers = 1;
    _SEGGER_RTT.max_down_buffers = 1;
    _SEGGER_RTT.up[0] = (struct rtt_buffer){"Terminal", up_buffer, sizeof up_buffer, 0, 0, 2};
    _SEGGER_RTT.down[0] = (struct rtt_buffer){"Terminal", down_buffer, sizeof down_buffer, 0, 0, 2};
    __asm__ volatile("" ::: "memory");
    memcpy(_SEGGER_RTT.id, "SEGGER RTT", 11);
}

void rtt_write_bytes(const void *data, size_t n)
{
    const char *p = data;
    struct rtt_buffer *up = &_SEGGER_RTT.up[0];
    for (; n; n--, p++) {
        uint32_t next = (up->wr_off + 1) % up->size;
        while (next == up->rd_off) {
            /* full: wait for the probe */
        }
        up->buffer[up->wr_off] = *p;
        __asm__ volatile("dmb" ::: "memory");
        up->wr_off = next;
    }
}

void rtt_write(const char *s)
{
    rtt_write_bytes(s, strlen(s));
}
