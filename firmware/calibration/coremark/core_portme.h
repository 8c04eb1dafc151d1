/*
 * tigris-sim calibration: the platform header EEMBC CoreMark's sources include
 * (coremark.h includes "core_portme.h"), written for tigris-sim's Cortex-M boards.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * CoreMark's porting rules (its README.md, "Porting") ask a port for the data
 * types, the seed and memory methods and four timing functions. This one keeps
 * CoreMark's own defaults wherever the published ports it is compared with kept
 * them: seeds from volatile variables, the 2000-byte performance data set on the
 * stack (MEM_STACK, as the Pico port), one context. Timing counts core cycles
 * (core_portme.c) and prints them, so a cell compares cycles per iteration.
 */
#ifndef CORE_PORTME_H
#define CORE_PORTME_H

#include <stddef.h>
#include <stdint.h>

#define HAS_FLOAT 0   /* Iterations/Sec is printed from cycles by core_portme.c instead */
#define HAS_TIME_H 0
#define USE_CLOCK 0
#define HAS_STDIO 1
#define HAS_PRINTF 1

#ifndef COMPILER_VERSION
#define COMPILER_VERSION "GCC" __VERSION__
#endif
#ifndef COMPILER_FLAGS
#define COMPILER_FLAGS "see scripts/accuracy.sh"
#endif
#define MEM_LOCATION "STACK"

typedef int16_t ee_s16;
typedef uint16_t ee_u16;
typedef int32_t ee_s32;
typedef float ee_f32;
typedef uint8_t ee_u8;
typedef uint32_t ee_u32;
typedef ee_u32 ee_ptr_int;
typedef size_t ee_size_t;

#define align_mem(x) (void *)(4 + (((ee_ptr_int)(x)-1) & ~3))

typedef ee_u32 CORE_TICKS;

#define SEED_METHOD SEED_VOLATILE
#define MEM_METHOD MEM_STACK
#define MULTITHREAD 1
#define USE_PTHREAD 0
#define USE_FORK 0
#define USE_SOCKET 0
#define MAIN_HAS_NOARGC 1
#define MAIN_HAS_NORETURN 0

extern ee_u32 default_num_contexts;

typedef struct CORE_PORTABLE_S {
    ee_u8 portable_id;
} core_portable;

void portable_init(core_portable *p, int *argc, char *argv[]);
void portable_fini(core_portable *p);

#if !defined(PROFILE_RUN) && !defined(PERFORMANCE_RUN) && !defined(VALIDATION_RUN)
#if (TOTAL_DATA_SIZE == 1200)
#define PROFILE_RUN 1
#elif (TOTAL_DATA_SIZE == 2000)
#define PERFORMANCE_RUN 1
#else
#define VALIDATION_RUN 1
#endif
#endif

#endif /* CORE_PORTME_H */
