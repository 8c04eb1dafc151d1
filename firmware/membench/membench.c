/*
 * tigris-sim memory microbenchmarks: sequential, strided and dependent (pointer-chasing) loads,
 * sequential stores and word copies, per memory region of a board, timed with the core's cycle
 * counter. The tests of the memory models compare the printed cycles (and the per-function
 * profile: every kernel is its own function whose name says what it does and where) with the
 * models' equations.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Built by firmware/build.sh for mps2-an386, stm32f446re, stm32h753, rp2040, rp2350 (Cortex-M,
 * newlib over semihosting) and esp32s3, esp32, esp8266 (Xtensa call0, firmware/xtensa/libc).
 * firmware/README.md ("Memory microbenchmarks") describes the regions, the address layout and
 * the output; in short, one line per measurement:
 *
 *   membench <kernel> <target> bytes=<n> start=0x<addr> cycles=<n> run=<cold|warm> fresh=<0|1> accesses=<n>
 *            [ stride=<n>]                   (stride_read)
 *            [ dst=0x<addr> dst_fresh=<0|1>] (copy; start is the source)
 *
 * Kernels (R, S, D = region names of targets/boards/<board>.toml):
 *   seq_read_R(p, words)               sum of `words` consecutive 32-bit loads
 *   seq_write_R(p, words)              `words` consecutive 32-bit stores (writable regions)
 *   stride_read_R(p, count, stride)    `count` 32-bit loads `stride` bytes apart
 *   chase_R(p, steps)                  `steps` dependent loads: each word loaded is the byte offset
 *                                      (from p) of the next; chain nodes are 64 bytes apart
 *   copy_S_to_D(dst, src, words)       word copy (every source region to every writable region)
 *   evict_R(p, bytes)                  not a measurement: reads R's eviction area (see below)
 *
 * Every cold measurement starts from a known cache state: evict_all() first reads the eviction
 * area of every cached region of the board (2x the largest cache in front of it, one load per
 * 8 bytes), so whatever earlier kernels left (including dirty lines of a write-back cache) is
 * replaced by clean lines of addresses no kernel measures; then the kernel runs on a range that
 * no earlier kernel touched (`fresh=1`) as long as the region's buffer has room.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#define KiB 1024u

/* ================================================================ cycle counter */
#if defined(__XTENSA__)
/* CCOUNT (special register 234) counts core cycles on every Xtensa core with the timer option. */
#define COUNTER_NAME "ccount"
static inline void counter_init(void) {}
static inline uint32_t counter_now(void)
{
    uint32_t v;
    __asm__ volatile("rsr.ccount %0" : "=a"(v));
    return v;
}
static inline uint32_t counter_diff(uint32_t t0, uint32_t t1) { return t1 - t0; }

#elif defined(__ARM_ARCH_6M__)
/* Cortex-M0+ (rp2040) has no DWT: SysTick counts the processor clock down from 0xFFFFFF
 * (ARMv6-M ARM B3.3): SYST_RVR 0xE000E014 = 0xFFFFFF, SYST_CSR 0xE000E010 = 5 (CLKSOURCE =
 * processor clock, ENABLE, no interrupt), read SYST_CVR 0xE000E018. 24 bits: every measured
 * call is far below 2^24 cycles. */
#define COUNTER_NAME "systick"
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
static inline void counter_init(void)
{
    SYST_CSR = 0;
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 5u;
}
static inline uint32_t counter_now(void) { return SYST_CVR; }
static inline uint32_t counter_diff(uint32_t t0, uint32_t t1) { return (t0 - t1) & 0xFFFFFFu; }

#else
/* DWT_CYCCNT 0xE0001004 (ARMv7-M ARM C1.8): DEMCR 0xE000EDFC bit 24 (TRCENA), DWT_CTRL
 * 0xE0001000 bit 0 (CYCCNTENA); the Cortex-M7 DWT is locked until DWT_LAR = 0xC5ACCE55. */
#define COUNTER_NAME "dwt"
#define DEMCR      (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL   (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define DWT_LAR    (*(volatile uint32_t *)0xE0001FB0u)
static inline void counter_init(void)
{
    DEMCR |= 1u << 24;
#if defined(CORE_CORTEX_M7)
    DWT_LAR = 0xC5ACCE55u;
#endif
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;
}
static inline uint32_t counter_now(void) { return DWT_CYCCNT; }
static inline uint32_t counter_diff(uint32_t t0, uint32_t t1) { return t1 - t0; }
#endif

/* ================================================================ kernels */
/* noipa: never inlined, cloned or folded with an identical function (seq_read_sram and
 * seq_read_flash compile to the same code; -fipa-icf would otherwise make one an alias of the
 * other and the profiler could not tell them apart). On the RP2040/RP2350 one XIP cache serves
 * instruction fetch and data reads, so the kernels and the timing wrappers run from SRAM
 * (.ramfunc, copied there by the reset handler) and only the measured data goes through it. */
#if defined(BOARD_RP2040) || defined(BOARD_RP2350)
#define KERNEL __attribute__((noipa, long_call, section(".ramfunc")))
#define KERNELS_IN "sram"
#else
#define KERNEL __attribute__((noipa))
#define KERNELS_IN "code"
#endif

#define STRIDE_BYTES 64u   /* stride_read: one load per 64 bytes (>= every line size modelled) */
#define NODE_BYTES   64u   /* chase: chain nodes 64 bytes apart */
#define EVICT_STEP   8u    /* evict: one load per 8 bytes (the smallest line, RP2040 XIP) */

typedef uint32_t (*read_fn)(const volatile uint32_t *p, uint32_t n);
typedef void (*write_fn)(volatile uint32_t *p, uint32_t n);
typedef uint32_t (*stride_fn)(const volatile uint32_t *p, uint32_t count, uint32_t stride_bytes);
typedef void (*copy_fn)(volatile uint32_t *dst, const volatile uint32_t *src, uint32_t words);

#define DEF_READ_KERNELS(R)                                                                        \
    KERNEL uint32_t seq_read_##R(const volatile uint32_t *p, uint32_t words)                       \
    {                                                                                              \
        uint32_t s = 0;                                                                            \
        for (uint32_t i = 0; i < words; i++)                                                       \
            s += p[i];                                                                             \
        return s;                                                                                  \
    }                                                                                              \
    KERNEL uint32_t stride_read_##R(const volatile uint32_t *p, uint32_t count, uint32_t stride_bytes) \
    {                                                                                              \
        const volatile uint8_t *b = (const volatile uint8_t *)p;                                   \
        uint32_t s = 0;                                                                            \
        for (uint32_t i = 0; i < count; i++) {                                                     \
            s += *(const volatile uint32_t *)b;                                                    \
            b += stride_bytes;                                                                     \
        }                                                                                          \
        return s;                                                                                  \
    }                                                                                              \
    KERNEL uint32_t chase_##R(const volatile uint32_t *p, uint32_t steps)                          \
    {                                                                                              \
        uint32_t off = 0;                                                                          \
        while (steps--)                                                                            \
            off = *(const volatile uint32_t *)((const volatile uint8_t *)p + off);                 \
        return off;                                                                                \
    }                                                                                              \
    KERNEL uint32_t evict_##R(const volatile uint32_t *p, uint32_t bytes)                          \
    {                                                                                              \
        uint32_t s = 0;                                                                            \
        for (uint32_t i = 0; i < bytes / 4u; i += EVICT_STEP / 4u)                                 \
            s += p[i];                                                                             \
        return s;                                                                                  \
    }

#define DEF_WRITE_KERNEL(R)                                                                        \
    KERNEL void seq_write_##R(volatile uint32_t *p, uint32_t words)                                \
    {                                                                                              \
        for (uint32_t i = 0; i < words; i++)                                                       \
            p[i] = i;                                                                              \
    }

#define DEF_COPY(S, D)                                                                             \
    KERNEL void copy_##S##_to_##D(volatile uint32_t *dst, const volatile uint32_t *src, uint32_t words) \
    {                                                                                              \
        for (uint32_t i = 0; i < words; i++)                                                       \
            dst[i] = src[i];                                                                       \
    }

/* The call overhead every measurement includes (printed as `membench empty none ...`). */
KERNEL uint32_t membench_empty(const volatile uint32_t *p, uint32_t n)
{
    (void)p;
    return n;
}

/* Timing wrappers: counter, one indirect call, counter. */
KERNEL uint32_t time_read(read_fn f, const volatile uint32_t *p, uint32_t n, uint32_t *result)
{
    uint32_t t0 = counter_now();
    uint32_t r = f(p, n);
    uint32_t t1 = counter_now();
    *result = r;
    return counter_diff(t0, t1);
}

KERNEL uint32_t time_write(write_fn f, volatile uint32_t *p, uint32_t n)
{
    uint32_t t0 = counter_now();
    f(p, n);
    uint32_t t1 = counter_now();
    return counter_diff(t0, t1);
}

KERNEL uint32_t time_stride(stride_fn f, const volatile uint32_t *p, uint32_t count, uint32_t stride,
                            uint32_t *result)
{
    uint32_t t0 = counter_now();
    uint32_t r = f(p, count, stride);
    uint32_t t1 = counter_now();
    *result = r;
    return counter_diff(t0, t1);
}

KERNEL uint32_t time_copy(copy_fn f, volatile uint32_t *dst, const volatile uint32_t *src, uint32_t n)
{
    uint32_t t0 = counter_now();
    f(dst, src, n);
    uint32_t t1 = counter_now();
    return counter_diff(t0, t1);
}

/* ================================================================ pointer-chase chains */
/* A chain of n nodes (n a power of two >= 16) NODE_BYTES apart: node k's first word holds the
 * byte offset of node next(k) = (A k + C) mod n, a full-period LCG (Hull-Dobell: C odd, A - 1 a
 * multiple of 4), so one pass of n steps from offset 0 visits every node once and ends at 0.
 * Consecutive nodes are at least 64 bytes apart. The same formula builds the chains in RAM at
 * run time (chase_setup) and the precomputed const tables below. */
#define CH_A(n) (4u * ((n) * 3u / 20u) + 1u)
#define CH_C(n) (2u * ((n) / 3u) + 1u)
#define CH_NEXT(n, k) ((CH_A(n) * (k) + CH_C(n)) % (n))
#define CH_E(n, k) [(NODE_BYTES / 4u) * (k)] = CH_NEXT(n, k) * NODE_BYTES,
#define CH_4(n, k) CH_E(n, 4u * (k)) CH_E(n, 4u * (k) + 1u) CH_E(n, 4u * (k) + 2u) CH_E(n, 4u * (k) + 3u)
#define CH_16(n, k) CH_4(n, 4u * (k)) CH_4(n, 4u * (k) + 1u) CH_4(n, 4u * (k) + 2u) CH_4(n, 4u * (k) + 3u)
#define CH_64(n, k) CH_16(n, 4u * (k)) CH_16(n, 4u * (k) + 1u) CH_16(n, 4u * (k) + 2u) CH_16(n, 4u * (k) + 3u)
#define CH_256(n, k) CH_64(n, 4u * (k)) CH_64(n, 4u * (k) + 1u) CH_64(n, 4u * (k) + 2u) CH_64(n, 4u * (k) + 3u)
#define CH_1024(n, k) CH_256(n, 4u * (k)) CH_256(n, 4u * (k) + 1u) CH_256(n, 4u * (k) + 2u) CH_256(n, 4u * (k) + 3u)
#define CH_4096(n, k) CH_1024(n, 4u * (k)) CH_1024(n, 4u * (k) + 1u) CH_1024(n, 4u * (k) + 2u) CH_1024(n, 4u * (k) + 3u)

__attribute__((noinline)) void chase_setup(volatile uint32_t *p, uint32_t nodes)
{
    uint32_t a = CH_A(nodes), c = CH_C(nodes);
    for (uint32_t k = 0; k < nodes; k++)
        p[(NODE_BYTES / 4u) * k] = ((a * k + c) & (nodes - 1u)) * NODE_BYTES;
}

/* ================================================================ regions */
/* Sizes of every kernel: 1, 16 and 64 KiB; chase also 256 KiB. Each is clamped to the region's
 * `max` (`chase_max`), a size equal to the previous clamped one is skipped. */
static const uint32_t sizes[] = {1u * KiB, 16u * KiB, 64u * KiB, 256u * KiB};
#define N_SIZES      3u
#define N_CHASE      4u
#define SIZES_SUM    (81u * KiB)            /* 1 + 16 + 64 KiB: one kernel's fresh bytes */

/* Const data: a marker in word 0 keeps the array in a loaded section (never .bss). */
#define MARK 0x4D454D42u                     /* "MEMB" */
#if defined(__XTENSA__)
/* Xtensa: const data goes to the flash data window (.flash.rodata in the board's linker script). */
#define CONST_DATA __attribute__((section(".flash.rodata"), aligned(64)))
#else
#define CONST_DATA __attribute__((aligned(64)))   /* .rodata, in the code region (flash/XIP) */
#endif

/* A read-only region R: R_data holds the fresh ranges of its seq_read, stride_read and every
 * copy from R (n_dst = number of writable regions), R_evict its eviction area. */
#define CONST_BUFFERS(R, n_dst)                                                                    \
    static const uint32_t R##_data[(2u + (n_dst)) * SIZES_SUM / 4u] CONST_DATA = {MARK};
#define CONST_EVICT(R, bytes) static const uint32_t R##_evict[(bytes) / 4u] CONST_DATA = {MARK};
#define CHASE_TABLES_64K(R)                                                                        \
    static const uint32_t R##_chase_1k[1u * KiB / 4u] CONST_DATA = {CH_16(16u, 0u)};               \
    static const uint32_t R##_chase_16k[16u * KiB / 4u] CONST_DATA = {CH_256(256u, 0u)};           \
    static const uint32_t R##_chase_64k[64u * KiB / 4u] CONST_DATA = {CH_1024(1024u, 0u)};
#define CHASE_TABLES_256K(R)                                                                       \
    CHASE_TABLES_64K(R)                                                                            \
    static const uint32_t R##_chase_256k[256u * KiB / 4u] CONST_DATA = {CH_4096(4096u, 0u)};
#define CHASE_LIST_64K(R) static const uint32_t *const R##_chase[] = {R##_chase_1k, R##_chase_16k, R##_chase_64k};
#define CHASE_LIST_256K(R)                                                                         \
    static const uint32_t *const R##_chase[] = {R##_chase_1k, R##_chase_16k, R##_chase_64k, R##_chase_256k};

struct region {
    const char *name;
    const volatile uint32_t *buf;  /* fresh ranges come from [buf, buf + bytes) */
    uint32_t bytes;
    const volatile uint32_t *evict; /* eviction area (evict_bytes = 0: none) */
    uint32_t evict_bytes;
    const uint32_t *const *chase_tab; /* read-only region: precomputed chains, one per size */
    uint32_t chase_max;              /* read-only: the largest table; RAM: computed */
    read_fn seq_read;
    stride_fn stride_read;
    read_fn chase;
    read_fn evict_fn;
    write_fn seq_write;              /* NULL: read-only region */
};

struct copy {
    uint8_t src, dst;
    copy_fn fn;
    const char *name;
};

#define RO_REGION(R, evict_ptr, evict_bytes, chase_max)                                            \
    {#R, R##_data, sizeof R##_data, evict_ptr, evict_bytes, R##_chase, chase_max,                  \
     seq_read_##R, stride_read_##R, chase_##R, evict_##R, 0}
/* A writable region R with buffer `buf`; its last evict_bytes form the eviction area. */
#define RW_REGION(R, buf, evict_bytes)                                                             \
    {#R, buf, sizeof buf - (evict_bytes), buf + (sizeof buf - (evict_bytes)) / 4u, evict_bytes, 0, 0, \
     seq_read_##R, stride_read_##R, chase_##R, evict_##R, seq_write_##R}
#define COPY_ENTRY(S, D) {S##_i, D##_i, copy_##S##_to_##D, #S "_to_" #D},
#define DEF_RO(R) DEF_READ_KERNELS(R)
#define DEF_RW(R) DEF_READ_KERNELS(R) DEF_WRITE_KERNEL(R)

/* ================================================================ boards */
/* Per board: RO(X)/RW(X) list the regions (read-only first), COPIES(X) every ordered pair
 * (source any region, destination any writable region, the same region included). */
#if defined(BOARD_STM32F446RE)
#define BOARD_NAME "stm32f446re"
#define RO(X) X(flash)
#define RW(X) X(sram)
#define COPIES(X) X(flash, sram) X(sram, sram)
enum { flash_i, sram_i };
RO(DEF_RO)
RW(DEF_RW)
COPIES(DEF_COPY)
/* flash 512 KiB: (2+1) x 81 KiB data + 81 KiB of chains + 4 KiB eviction area (the ART data
 * cache is 8 x 16 bytes) fit next to the code; no 256 KiB chain. SRAM 128 KiB: 96 KiB buffer. */
CONST_BUFFERS(flash, 1)
CONST_EVICT(flash, 4u * KiB)
CHASE_TABLES_64K(flash)
CHASE_LIST_64K(flash)
static uint32_t sram_buf[96u * KiB / 4u] __attribute__((aligned(64)));
static const struct region regions[] = {
    RO_REGION(flash, flash_evict, sizeof flash_evict, 64u * KiB),
    RW_REGION(sram, sram_buf, 0u),
};

#elif defined(BOARD_STM32H753)
#define BOARD_NAME "stm32h753"
#define RO(X) X(flash)
#define RW(X) X(dtcm) X(axi_sram) X(sram123)
#define COPIES(X)                                                                                  \
    X(flash, dtcm) X(flash, axi_sram) X(flash, sram123)                                            \
    X(dtcm, dtcm) X(dtcm, axi_sram) X(dtcm, sram123)                                               \
    X(axi_sram, dtcm) X(axi_sram, axi_sram) X(axi_sram, sram123)                                   \
    X(sram123, dtcm) X(sram123, axi_sram) X(sram123, sram123)
enum { flash_i, dtcm_i, axi_sram_i, sram123_i };
RO(DEF_RO)
RW(DEF_RW)
COPIES(DEF_COPY)
/* L1 D-cache 16 KiB in front of flash, AXI SRAM and SRAM1-3: 32 KiB eviction areas. DTCM (the
 * default RAM, uncached) 128 KiB: 96 KiB buffer. AXI SRAM: all 512 KiB (.axisram, NOLOAD);
 * SRAM1-3: all 288 KiB (.sram123, NOLOAD). */
CONST_BUFFERS(flash, 3)
CONST_EVICT(flash, 32u * KiB)
CHASE_TABLES_256K(flash)
CHASE_LIST_256K(flash)
static uint32_t dtcm_buf[96u * KiB / 4u] __attribute__((aligned(64)));
static uint32_t axi_sram_buf[512u * KiB / 4u] __attribute__((section(".axisram"), aligned(64)));
static uint32_t sram123_buf[288u * KiB / 4u] __attribute__((section(".sram123"), aligned(64)));
static const struct region regions[] = {
    RO_REGION(flash, flash_evict, sizeof flash_evict, 256u * KiB),
    RW_REGION(dtcm, dtcm_buf, 0u),
    RW_REGION(axi_sram, axi_sram_buf, 32u * KiB),
    RW_REGION(sram123, sram123_buf, 32u * KiB),
};

#elif defined(BOARD_RP2040) || defined(BOARD_RP2350)
#if defined(BOARD_RP2040)
#define BOARD_NAME "rp2040"
#define SRAM_BUF_BYTES (192u * KiB)   /* of 264 KiB */
#else
#define BOARD_NAME "rp2350"
#define SRAM_BUF_BYTES (448u * KiB)   /* of 520 KiB */
#endif
#define RO(X) X(xip)
#define RW(X) X(sram)
#define COPIES(X) X(xip, sram) X(sram, sram)
enum { xip_i, sram_i };
RO(DEF_RO)
RW(DEF_RW)
COPIES(DEF_COPY)
/* XIP cache 16 KiB (2-way, 8-byte lines): 32 KiB eviction area in flash. */
CONST_BUFFERS(xip, 1)
CONST_EVICT(xip, 32u * KiB)
CHASE_TABLES_256K(xip)
CHASE_LIST_256K(xip)
static uint32_t sram_buf[SRAM_BUF_BYTES / 4u] __attribute__((aligned(64)));
static const struct region regions[] = {
    RO_REGION(xip, xip_evict, sizeof xip_evict, 256u * KiB),
    RW_REGION(sram, sram_buf, 0u),
};

#elif defined(BOARD_MPS2_AN386)
#define BOARD_NAME "mps2-an386"
#define RO(X) X(ssram1)
#define RW(X) X(ssram23) X(blockram) X(psram)
#define COPIES(X)                                                                                  \
    X(ssram1, ssram23) X(ssram1, blockram) X(ssram1, psram)                                        \
    X(ssram23, ssram23) X(ssram23, blockram) X(ssram23, psram)                                     \
    X(blockram, ssram23) X(blockram, blockram) X(blockram, psram)                                  \
    X(psram, ssram23) X(psram, blockram) X(psram, psram)
enum { ssram1_i, ssram23_i, blockram_i, psram_i };
RO(DEF_RO)
RW(DEF_RW)
COPIES(DEF_COPY)
/* No caches (QEMU's model prices nothing): no eviction areas. ssram1 is the code memory (its
 * const data); ssram23 the default RAM (1 MiB buffer of 4 MiB); blockram all 16 KiB (.blockram,
 * NOLOAD); psram 2 MiB of 16 MiB (.psram, NOLOAD). */
CONST_BUFFERS(ssram1, 3)
CHASE_TABLES_256K(ssram1)
CHASE_LIST_256K(ssram1)
static uint32_t ssram23_buf[1024u * KiB / 4u] __attribute__((aligned(64)));
static uint32_t blockram_buf[16u * KiB / 4u] __attribute__((section(".blockram"), aligned(64)));
static uint32_t psram_buf[2048u * KiB / 4u] __attribute__((section(".psram"), aligned(64)));
static const struct region regions[] = {
    RO_REGION(ssram1, 0, 0u, 256u * KiB),
    RW_REGION(ssram23, ssram23_buf, 0u),
    RW_REGION(blockram, blockram_buf, 0u),
    RW_REGION(psram, psram_buf, 0u),
};

#elif defined(BOARD_ESP32S3) || defined(BOARD_ESP32)
#if defined(BOARD_ESP32S3)
#define BOARD_NAME "esp32s3"
#define DRAM sram1                    /* SRAM1 data view: the default .bss (256 KiB at 0x3FCA8000) */
#define DRAM_BUF_BYTES (192u * KiB)
#else
#define BOARD_NAME "esp32"
#define DRAM sram2_dram               /* SRAM2: the default .bss (192 KiB at 0x3FFB0000) */
#define DRAM_BUF_BYTES (128u * KiB)
#endif
#define RO_(X, D) X(flash_drom)
#define RW_(X, D) X(D) X(psram)
#define RO(X) RO_(X, DRAM)
#define RW(X) RW_(X, DRAM)
#define COPIES_(X, D)                                                                              \
    X(flash_drom, D) X(flash_drom, psram)                                                          \
    X(D, D) X(D, psram)                                                                            \
    X(psram, D) X(psram, psram)
#define COPIES(X) COPIES_(X, DRAM)
#define IDX_(R) R##_i
#define IDX(R) IDX_(R)
enum { flash_drom_i, IDX(DRAM), psram_i };
RO(DEF_RO)
RW(DEF_RW)
COPIES(DEF_COPY)
/* Flash and PSRAM share one data cache (ESP32-S3 DCache 32 KiB, ESP32 cache 32 KiB): 64 KiB
 * eviction areas in each. PSRAM: 2 MiB buffer (.psram, NOLOAD). */
CONST_BUFFERS(flash_drom, 2)
CONST_EVICT(flash_drom, 64u * KiB)
CHASE_TABLES_256K(flash_drom)
CHASE_LIST_256K(flash_drom)
static uint32_t dram_buf[DRAM_BUF_BYTES / 4u] __attribute__((aligned(64)));
static uint32_t psram_buf[2048u * KiB / 4u] __attribute__((section(".psram"), aligned(64)));
#define RW_REGION_(R, buf, ev) RW_REGION(R, buf, ev)
static const struct region regions[] = {
    RO_REGION(flash_drom, flash_drom_evict, sizeof flash_drom_evict, 256u * KiB),
    RW_REGION_(DRAM, dram_buf, 0u),
    RW_REGION(psram, psram_buf, 64u * KiB),
};

#elif defined(BOARD_ESP8266)
#define BOARD_NAME "esp8266"
#define RO(X) X(flash_irom)
#define RW(X) X(dram)
#define COPIES(X) X(flash_irom, dram) X(dram, dram)
enum { flash_irom_i, dram_i };
RO(DEF_RO)
RW(DEF_RW)
COPIES(DEF_COPY)
/* The flash window at 0x40200000 is read with 32-bit loads only (the only width it supports);
 * its 16 KiB cache gets a 32 KiB eviction area. DRAM 80 KiB: 48 KiB buffer. */
CONST_BUFFERS(flash_irom, 1)
CONST_EVICT(flash_irom, 32u * KiB)
CHASE_TABLES_256K(flash_irom)
CHASE_LIST_256K(flash_irom)
static uint32_t dram_buf[48u * KiB / 4u] __attribute__((aligned(64)));
static const struct region regions[] = {
    RO_REGION(flash_irom, flash_irom_evict, sizeof flash_irom_evict, 256u * KiB),
    RW_REGION(dram, dram_buf, 0u),
};

#else
#error "membench: unknown board (build.sh passes -DBOARD_<NAME>)"
#endif

static const struct copy copies[] = {COPIES(COPY_ENTRY)};

#define N_REGIONS (sizeof regions / sizeof regions[0])
#define N_COPIES (sizeof copies / sizeof copies[0])

/* Per-region allocation state: next free offset, and the high-water mark (a range is fresh when
 * it starts at or above it, i.e. no earlier range overlapped it). */
static uint32_t next_off[N_REGIONS], hwm[N_REGIONS];
static uint32_t max_bytes[N_REGIONS], chase_max[N_REGIONS];
static volatile uint32_t sink;

static uint32_t pow2_floor(uint32_t x)
{
    uint32_t p = 1;
    while (p <= x / 2u)
        p *= 2u;
    return p;
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* The next `bytes` of region r's buffer (64-byte aligned; wraps to the start when full). */
static const volatile uint32_t *take(unsigned r, uint32_t bytes, int *fresh)
{
    if (next_off[r] + bytes > regions[r].bytes)
        next_off[r] = 0;
    uint32_t off = next_off[r];
    next_off[r] = off + bytes;
    *fresh = off >= hwm[r];
    if (next_off[r] > hwm[r])
        hwm[r] = next_off[r];
    return regions[r].buf + off / 4u;
}

static void evict_all(void)
{
    for (unsigned r = 0; r < N_REGIONS; r++)
        if (regions[r].evict_bytes)
            sink += regions[r].evict_fn(regions[r].evict, regions[r].evict_bytes);
}

static uint32_t addr(const volatile void *p) { return (uint32_t)(uintptr_t)p; }

/* ================================================================ measurements */
enum kernel { K_SEQ_READ, K_SEQ_WRITE, K_STRIDE_READ, K_CHASE, K_COPY };
static const char *const kernel_names[] = {"seq_read", "seq_write", "stride_read", "chase", "copy"};
static int errors;

/* One timed call of kernel k on [a, a + bytes) (copy: from a to b). */
static uint32_t run_once(enum kernel k, const struct region *r, const struct copy *cp,
                         const volatile uint32_t *a, const volatile uint32_t *b, uint32_t bytes,
                         uint32_t *result)
{
    *result = 0;
    switch (k) {
    case K_SEQ_READ:
        return time_read(r->seq_read, a, bytes / 4u, result);
    case K_SEQ_WRITE:
        return time_write(r->seq_write, (volatile uint32_t *)(uintptr_t)a, bytes / 4u);
    case K_STRIDE_READ:
        return time_stride(r->stride_read, a, bytes / STRIDE_BYTES, STRIDE_BYTES, result);
    case K_CHASE:
        return time_read(r->chase, a, bytes / NODE_BYTES, result);
    case K_COPY:
        return time_copy(cp->fn, (volatile uint32_t *)(uintptr_t)b, a, bytes / 4u);
    }
    return 0;
}

static uint32_t accesses(enum kernel k, uint32_t bytes)
{
    return k == K_STRIDE_READ ? bytes / STRIDE_BYTES : k == K_CHASE ? bytes / NODE_BYTES : bytes / 4u;
}

static void print_line(enum kernel k, const char *target, uint32_t bytes, const volatile uint32_t *a,
                       const volatile uint32_t *b, uint32_t cycles, int warm, int fresh, int dst_fresh)
{
    printf("membench %s %s bytes=%" PRIu32 " start=0x%08" PRIx32 " cycles=%" PRIu32
           " run=%s fresh=%d accesses=%" PRIu32,
           kernel_names[k], target, bytes, addr(a), cycles, warm ? "warm" : "cold", fresh,
           accesses(k, bytes));
    if (k == K_STRIDE_READ)
        printf(" stride=%" PRIu32, (uint32_t)STRIDE_BYTES);
    if (k == K_COPY)
        printf(" dst=0x%08" PRIx32 " dst_fresh=%d", addr(b), dst_fresh);
    printf("\n");
}

/* Kernel k on region si (copy: pair cp) at every size: cold on a fresh range after evict_all(),
 * and for the first size a second (warm) call on the same range right after the cold one. */
static void measure(enum kernel k, unsigned si, const struct copy *cp)
{
    const struct region *r = &regions[si];
    const char *target = cp ? cp->name : r->name;
    uint32_t limit = k == K_CHASE ? chase_max[si] : max_bytes[si];
    if (cp)
        limit = min_u32(max_bytes[cp->src], max_bytes[cp->dst]);
    unsigned n = k == K_CHASE ? N_CHASE : N_SIZES;
    uint32_t prev = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t bytes = min_u32(sizes[i], limit);
        if (bytes == prev)
            continue;
        prev = bytes;
        const volatile uint32_t *a, *b = 0;
        int fresh = 1, fresh_b = 1;
        if (k == K_CHASE && r->chase_tab) {
            a = r->chase_tab[i];   /* the table of exactly this size (chase_max = the largest) */
        } else {
            a = take(si, bytes, &fresh);
            if (k == K_CHASE)
                chase_setup((volatile uint32_t *)(uintptr_t)a, bytes / NODE_BYTES);
            if (cp)
                b = take(cp->dst, bytes, &fresh_b);
        }
        uint32_t res_cold, res_warm = 0, warm = 0;
        evict_all();
        uint32_t cold = run_once(k, r, cp, a, b, bytes, &res_cold);
        if (i == 0)
            warm = run_once(k, r, cp, a, b, bytes, &res_warm);
        sink += res_cold + res_warm;
        if (k == K_CHASE && (res_cold != 0 || res_warm != 0)) {
            printf("membench error chase %s bytes=%" PRIu32 ": the chain did not return to 0\n", target, bytes);
            errors++;
        }
        print_line(k, target, bytes, a, b, cold, 0, fresh, fresh_b);
        if (i == 0)
            print_line(k, target, bytes, a, b, warm, 1, 0, 0);
    }
}

int main(void)
{
    counter_init();
    printf("membench board %s counter=%s kernels_in=%s\n", BOARD_NAME, COUNTER_NAME, KERNELS_IN);
    for (unsigned r = 0; r < N_REGIONS; r++) {
        const struct region *g = &regions[r];
        if (g->chase_tab) {
            max_bytes[r] = 64u * KiB;
            chase_max[r] = g->chase_max;
        } else {
            max_bytes[r] = pow2_floor(min_u32(64u * KiB, g->bytes / 2u));
            chase_max[r] = pow2_floor(min_u32(256u * KiB, g->bytes));
        }
        printf("membench region %s kind=%s buf=0x%08" PRIx32 " bytes=%" PRIu32 " evict=0x%08" PRIx32
               " evict_bytes=%" PRIu32 " max=%" PRIu32 " chase_max=%" PRIu32 "\n",
               g->name, g->seq_write ? "rw" : "ro", addr(g->buf), g->bytes,
               g->evict_bytes ? addr(g->evict) : (uint32_t)0, g->evict_bytes, max_bytes[r], chase_max[r]);
    }

    uint32_t res, c;
    time_read(membench_empty, 0, 0, &res);   /* warm up */
    c = time_read(membench_empty, 0, 0, &res);
    printf("membench empty none bytes=0 start=0x00000000 cycles=%" PRIu32 " run=warm fresh=0 accesses=0\n", c);

    for (unsigned r = 0; r < N_REGIONS; r++) {
        measure(K_SEQ_READ, r, 0);
        if (regions[r].seq_write)
            measure(K_SEQ_WRITE, r, 0);
        measure(K_STRIDE_READ, r, 0);
        measure(K_CHASE, r, 0);
    }
    for (unsigned i = 0; i < N_COPIES; i++)
        measure(K_COPY, copies[i].src, &copies[i]);

    if (errors) {
        printf("membench failed: %d errors\n", errors);
        return 1;
    }
    printf("membench done\n");
    return 0;
}
