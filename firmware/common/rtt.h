/*
 * SEGGER RTT up buffer 0 for the test firmware (common/rtt.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TIGRIS_RTT_H
#define TIGRIS_RTT_H
#include <stddef.h>

/* Set up `_SEGGER_RTT` with one up and one down buffer; the ID is written last. */
void rtt_init(void);
/* Copy `n` bytes to up buffer 0, waiting while it is full (blocking mode). */
void rtt_write_bytes(const void *data, size_t n);
/* rtt_write_bytes of a NUL-terminated string. */
void rtt_write(const char *s);

#endif
