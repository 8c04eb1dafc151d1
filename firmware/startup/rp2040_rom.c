/*
 * rp2040_rom: calls the RP2040 boot ROM's helpers as the Pico SDK does (RP2040 datasheet §2.8.3):
 * checks the magic at 0x10, looks each function up with rom_table_lookup (the halfword pointers
 * at 0x14 and 0x18) by its two-character code, calls it and prints the result; an unknown code
 * looks up as 0. The simulator serves the table (sim/src/rp2040_rom.rs).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef void *(*lookup_fn)(const uint16_t *table, uint32_t code);

/* An address near 0 the compiler cannot see as a constant (GCC takes such pointers for null
 * offsets and warns on every access). */
static inline uintptr_t rom(uintptr_t a)
{
    __asm__("" : "+r"(a));
    return a;
}
#define ROM_HWORD(addr) ((uintptr_t)*(const volatile uint16_t *)rom(addr))
#define CODE(c1, c2) ((uint32_t)(c1) | (uint32_t)(c2) << 8)

static void *rom_func(uint32_t code)
{
    lookup_fn lookup = (lookup_fn)ROM_HWORD(0x18);
    return lookup((const uint16_t *)ROM_HWORD(0x14), code);
}

int main(void)
{
    const volatile uint8_t *magic = (const volatile uint8_t *)rom(0x10);
    printf("rp2040_rom: magic %c%c %u version %u\n", magic[0], magic[1], magic[2], magic[3]);

    uint32_t (*popcount32)(uint32_t) = rom_func(CODE('P', '3'));
    uint32_t (*clz32)(uint32_t) = rom_func(CODE('L', '3'));
    uint32_t (*ctz32)(uint32_t) = rom_func(CODE('T', '3'));
    uint32_t (*reverse32)(uint32_t) = rom_func(CODE('R', '3'));
    printf("rp2040_rom: popcount32(0xF0F0F0F1)=%" PRIu32 " clz32(0x00010000)=%" PRIu32
           " ctz32(0x00010000)=%" PRIu32 " reverse32(1)=0x%08" PRIx32 "\n",
           popcount32(0xF0F0F0F1u), clz32(0x00010000u), ctz32(0x00010000u), reverse32(1u));

    static uint32_t src[4] = {1, 2, 3, 4}, dst[4];
    void *(*memcpy44)(uint32_t *, const uint32_t *, uint32_t) = rom_func(CODE('C', '4'));
    void *(*memset4)(uint32_t *, uint8_t, uint32_t) = rom_func(CODE('S', '4'));
    void *ret = memcpy44(dst, src, sizeof src);
    printf("rp2040_rom: memcpy44 -> %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 " returned dest %d\n",
           dst[0], dst[1], dst[2], dst[3], ret == (void *)dst);
    memset4(dst, 0xAB, 8);
    printf("rp2040_rom: memset4 -> 0x%08" PRIx32 " 0x%08" PRIx32 " %" PRIu32 "\n", dst[0], dst[1], dst[2]);
    printf("rp2040_rom: unknown code looks up as %p\n", rom_func(CODE('Z', 'Z')));
    return 0;
}
