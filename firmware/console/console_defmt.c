/*
 * console_defmt: log frames in defmt's wire format over SEGGER RTT (common/rtt.c), as a Rust
 * firmware with defmt and defmt-rtt sends them: each frame is the interned string's index (u16,
 * little-endian; the table is in console/defmt_table.S) and its arguments (little-endian, at their
 * sizes; f32 as IEEE 754 bits), rzCOBS-encoded and ended by a 0x00 byte. The host decodes them
 * with the table in the ELF. Then exits with code 0 through semihosting.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * rzCOBS (reverse zero-compressing COBS; the decoder reads a frame from its end): the message is
 * cut, front to back, into blocks, each written as its data bytes followed by a header byte:
 *   - 7 bytes of which at least one is zero: the non-zero bytes, then a header 0x01-0x7F whose
 *     bit j is set when byte j of the block is zero (a block past the message end is padded
 *     with zeros, which the decoder then gives as trailing zeros the frame decoder ignores);
 *   - a run of 7-133 non-zero bytes and the zero after it: the run, then 0x80 | (length - 7);
 *   - 134 non-zero bytes: the bytes, then 0xFF.
 */
#include <stdint.h>
#include <string.h>
#include "rtt.h"

extern const uint32_t defmt_ids[];
enum { HELLO, CRC, WARN, ZEROS };

static uint8_t msg[64];
static unsigned msg_len;

static void put(const void *p, unsigned n)
{
    memcpy(msg + msg_len, p, n);
    msg_len += n;
}

static void begin(unsigned id)
{
    uint16_t index = (uint16_t)defmt_ids[id];
    msg_len = 0;
    put(&index, 2);
}

static void end(void)
{
    uint8_t out[2 * sizeof msg + 2];
    unsigned o = 0, p = 0;
    while (p < msg_len) {
        unsigned run = 0;
        while (p + run < msg_len && msg[p + run] != 0 && run < 134)
            run++;
        if (run < 7) {
            uint8_t header = 0;
            for (unsigned j = 0; j < 7; j++) {
                if (p + j < msg_len && msg[p + j] != 0)
                    out[o++] = msg[p + j];
                else
                    header |= (uint8_t)(1u << j);
            }
            out[o++] = header;
            p += 7;
        } else if (run == 134) {
            memcpy(out + o, msg + p, run);
            o += run;
            out[o++] = 0xFF;
            p += run;
        } else {
            memcpy(out + o, msg + p, run);
            o += run;
            out[o++] = (uint8_t)(0x80u | (run - 7));
            p += run + 1; /* the zero after the run (or the end of the message) */
        }
    }
    out[o++] = 0x00;
    rtt_write_bytes(out, o);
}

static uint32_t crc32(const uint8_t *data, unsigned n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned i = 0; i < n; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1u));
    }
    return ~crc;
}

int main(void)
{
    static const char text[] = "The quick brown fox jumps over the lazy dog";
    rtt_init();

    begin(HELLO);
    end();

    /* The CRC of each prefix of 1, 2, 4, ... bytes and of the whole text: more bytes than the
     * 64-byte up buffer holds, so the firmware waits for the reader and frames arrive in pieces. */
    for (uint32_t n = 1;; n = n * 2 < sizeof text - 1 ? n * 2 : sizeof text - 1) {
        uint32_t crc = crc32((const uint8_t *)text, n);
        begin(CRC);
        put(&n, 4);
        put(&crc, 4);
        end();
        if (n == sizeof text - 1)
            break;
    }

    int32_t below = -42;
    uint8_t part = 200;
    uint16_t whole = 1000;
    float ratio = 0.2f;
    begin(WARN);
    put(&below, 4);
    put(&part, 1);
    put(&whole, 2);
    put(&ratio, 4);
    end();

    /* A frame with long runs of zero and non-zero bytes, for the other two block kinds. */
    uint32_t zeros = 8, ones = 0xFFFFFFFFu, sevens = 0x77777777u;
    begin(ZEROS);
    put(&zeros, 4);
    put(&ones, 4);
    put(&sevens, 4);
    end();
    return 0;
}
