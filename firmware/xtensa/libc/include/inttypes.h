/* Minimal inttypes.h for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later).
 * int32_t is `int` on xtensa-lx106-elf (GCC's __INT32_TYPE__). */
#ifndef TIGRIS_XT_INTTYPES_H
#define TIGRIS_XT_INTTYPES_H
#include <stdint.h>
#define PRId32 "d"
#define PRIi32 "i"
#define PRIu32 "u"
#define PRIx32 "x"
#define PRIX32 "X"
#define PRId8 "d"
#define PRIu8 "u"
#define PRId16 "d"
#define PRIu16 "u"
#define PRIx16 "x"
#define PRIX16 "X"
#endif
