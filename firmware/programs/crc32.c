/*
 * crc32: bitwise and table-driven CRC-32, and two CRC-16 variants.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * CRC parameters (Rocksoft model names; check value = CRC of "123456789"):
 *   CRC-32 (ISO-HDLC): reflected poly 0xEDB88320, init/xorout 0xFFFFFFFF, check 0xCBF43926
 *   CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, check 0x29B1
 *   CRC-16/ARC: reflected poly 0xA001, init 0, check 0xBB3D
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t crc32_bitwise(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

static uint32_t crc32_table[256];

static void crc32_make_table(void)
{
    for (uint32_t i = 0; i < 256u; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : (c >> 1);
        crc32_table[i] = c;
    }
}

static uint32_t crc32_update_table(uint32_t crc, const uint8_t *p, uint32_t n)
{
    crc ^= 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++)
        crc = crc32_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

static uint16_t crc16_ccitt_false(const uint8_t *p, uint32_t n)
{
    uint16_t crc = 0xFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        crc = (uint16_t)(crc ^ (uint16_t)((uint16_t)p[i] << 8));
        for (int k = 0; k < 8; k++)
            crc = (crc & 0x8000u) ? (uint16_t)((uint16_t)(crc << 1) ^ 0x1021u)
                                  : (uint16_t)(crc << 1);
    }
    return crc;
}

static uint16_t crc16_arc(const uint8_t *p, uint32_t n)
{
    uint16_t crc = 0;
    for (uint32_t i = 0; i < n; i++) {
        crc = (uint16_t)(crc ^ p[i]);
        for (int k = 0; k < 8; k++)
            crc = (crc & 1u) ? (uint16_t)((crc >> 1) ^ 0xA001u) : (uint16_t)(crc >> 1);
    }
    return crc;
}

static uint8_t buf_random[1024];
static uint8_t buf_zero[4096];
static uint8_t buf_ramp[256];

static void report(const char *name, const uint8_t *p, uint32_t n)
{
    uint32_t a = crc32_bitwise(p, n);
    uint32_t b = crc32_update_table(0, p, n);
    /* Same CRC in uneven chunks: exercises the update chaining. */
    uint32_t c = 0;
    uint32_t off = 0, step = 1;
    while (off < n) {
        uint32_t len = n - off < step ? n - off : step;
        c = crc32_update_table(c, p + off, len);
        off += len;
        step = step * 2u + 1u;
    }
    printf("%-10s len=%4" PRIu32 " crc32=0x%08" PRIX32 " table=%s chunked=%s crc16ccitt=0x%04X crc16arc=0x%04X\n",
           name, n, a, a == b ? "ok" : "MISMATCH", a == c ? "ok" : "MISMATCH",
           (unsigned)crc16_ccitt_false(p, n), (unsigned)crc16_arc(p, n));
}

int main(void)
{
    static const char check[] = "123456789";
    static const char fox[] = "The quick brown fox jumps over the lazy dog";

    crc32_make_table();
    printf("crc32: table[1]=0x%08" PRIX32 " table[128]=0x%08" PRIX32 " table[255]=0x%08" PRIX32 "\n",
           crc32_table[1], crc32_table[128], crc32_table[255]);

    uint32_t state = 0xDEADBEEFu;
    for (uint32_t i = 0; i < sizeof buf_random; i++) {
        state ^= state << 13;      /* xorshift32 */
        state ^= state >> 17;
        state ^= state << 5;
        buf_random[i] = (uint8_t)(state >> 24);
    }
    for (uint32_t i = 0; i < sizeof buf_ramp; i++)
        buf_ramp[i] = (uint8_t)i;

    report("check", (const uint8_t *)check, (uint32_t)strlen(check));
    report("fox", (const uint8_t *)fox, (uint32_t)strlen(fox));
    report("empty", (const uint8_t *)check, 0);
    report("random1k", buf_random, (uint32_t)sizeof buf_random);
    report("zero4k", buf_zero, (uint32_t)sizeof buf_zero);
    report("ramp256", buf_ramp, (uint32_t)sizeof buf_ramp);

    int ok = crc32_bitwise((const uint8_t *)check, 9) == 0xCBF43926u &&
             crc16_ccitt_false((const uint8_t *)check, 9) == 0x29B1u &&
             crc16_arc((const uint8_t *)check, 9) == 0xBB3Du;
    printf("crc32: check values %s\n", ok ? "ok" : "WRONG");
    return 0;
}
