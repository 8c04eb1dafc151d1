/*
 * TiGrIS reference firmware: runs one plan (tigris_<mode>_plan.h, made by make_plans.py) with the
 * runtime of tigris_rt.c and prints its counters, trace summary, tiles, peaks and output CRC.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Build with -DTIGRIS_PLAN_HEADER='"tigris_<mode>_plan.h"' and one of -DHOST, -DBOARD_ESP32S3,
 * -DBOARD_STM32H753, -DBOARD_MPS2_AN386.  The fast arena is .bss (fast SRAM: ESP32-S3 internal
 * DRAM, STM32H753 DTCM, MPS2 SSRAM2&3), the slow arena the board's slow memory (ESP32-S3 PSRAM
 * `.psram`, STM32H753 SRAM1-3 `.sram123`, MPS2 PSRAM `.psram`), a static array on the host.
 * The console output is the same on every target and on the host (no addresses, no times).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tigris_rt.h"

#if defined(HOST)
#define PLAN_SECTION
#define SLOW_SECTION
#elif defined(BOARD_ESP32S3)
#define PLAN_SECTION __attribute__((section(".flash.rodata")))   /* flash, DBus 0x3C000000 */
#define SLOW_SECTION __attribute__((section(".psram")))          /* PSRAM 0x3D000000 */
#elif defined(BOARD_STM32H753)
#define PLAN_SECTION                                              /* .rodata: flash */
#define SLOW_SECTION __attribute__((section(".sram123")))        /* SRAM1-3 0x30000000 */
#elif defined(BOARD_STM32F446RE)
#define PLAN_SECTION                                              /* .rodata: flash, behind the ART */
#define SLOW_SECTION                                              /* .bss: SRAM (no second RAM) */
#elif defined(BOARD_MPS2_AN386)
#define PLAN_SECTION                                              /* .rodata: SSRAM1 */
#define SLOW_SECTION __attribute__((section(".psram")))          /* PSRAM 0x21000000 */
#else
#error "no arena placement for this board"
#endif

#define TIGRIS_PLAN_ATTRS PLAN_SECTION __attribute__((aligned(16)))
#include TIGRIS_PLAN_HEADER

const uint32_t g_tigris_plan_len = TIGRIS_PLAN_BYTES;
uint8_t tigris_fast_arena[TIGRIS_PLAN_FAST_ARENA_BYTES] __attribute__((aligned(16)));
uint8_t tigris_slow_arena[TIGRIS_PLAN_SLOW_ARENA_BYTES] SLOW_SECTION __attribute__((aligned(16)));
void *tigris_tensor_ptrs[TIGRIS_PLAN_NUM_TENSORS];
#ifndef TIGRIS_SCHEMA_1
uint8_t tigris_workspace[TIGRIS_EXECUTOR_WORKSPACE_BYTES] __attribute__((aligned(16)));
#endif

#define NOINLINE __attribute__((noinline, noclone))

/* ----------------------------------------------------------------------------- trace sink */
#ifndef TIGRIS_NO_TRACE /* the sink and what it records exist only with the trace API */
static const char *const kind_names[TIGRIS_TRACE_KINDS + 1] = {
    "?", "STAGE_BEGIN", "STAGE_END", "TILE_BEGIN", "LOAD", "SPILL", "ALLOC", "RESET", "MOVE",
    "WEIGHTS", "OP", "COPY"};

#define MAX_TILES 64
#define MAX_UNITS 16

typedef struct {
    uint16_t stage, tile;
    int32_t row0, row1, out0, out1;
    uint32_t load, spill, move, ops, op_rows, fast_max;
} tile_rec_t;

typedef struct {
    uint16_t stage;
    uint8_t path;
    uint32_t tiles, load, spill, move, ops, op_rows, fast_max, slow_end;
} unit_rec_t;

typedef struct {
    uint32_t count[TIGRIS_TRACE_KINDS + 1];
    uint32_t bytes[TIGRIS_TRACE_KINDS + 1];
    uint32_t fast_max, slow_max;
    uint32_t ntiles, nunits, lost;
    int in_unit, in_tile;
    uint32_t anomalies;       /* events that break the nesting rules */
    tile_rec_t tiles[MAX_TILES];
    unit_rec_t units[MAX_UNITS];
} sink_ctx_t;

static sink_ctx_t sink;

#ifdef HOST
#include <stdlib.h>
static FILE *event_log;   /* host only: every event, one line each, when TIGRIS_EVENTS is set */

static void log_event(const tigris_trace_event_t *e)
{
    fprintf(event_log, "ev %s pool=%u path=%u stage=%u tensor=%u op=%u offset=%" PRIu32 " src_offset=%" PRIu32
            " bytes=%" PRIu32 " rows=[%" PRId32 ",%" PRId32 ") fast_used=%" PRIu32 " slow_used=%" PRIu32 "\n",
            e->kind >= 1 && e->kind <= TIGRIS_TRACE_KINDS ? kind_names[e->kind] : "?", e->pool, e->path,
            e->stage, e->tensor, e->op, e->offset, e->src_offset, e->bytes, e->row0, e->row1, e->fast_used,
            e->slow_used);
}
#endif

/* The trace sink registered with tigris_mem_set_trace: counts and sums per kind, one record per
 * execution unit (stage or chain) and per tile. */
NOINLINE void trace_sink(const tigris_trace_event_t *e, void *ctx)
{
    sink_ctx_t *c = ctx;
#ifdef HOST
    if (event_log)
        log_event(e);
#endif
    if (e->kind >= 1 && e->kind <= TIGRIS_TRACE_KINDS) {
        c->count[e->kind]++;
        c->bytes[e->kind] += e->bytes;
    } else {
        c->anomalies++;
    }
    if (e->fast_used > c->fast_max)
        c->fast_max = e->fast_used;
    if (e->slow_used > c->slow_max)
        c->slow_max = e->slow_used;
    unit_rec_t *u = c->in_unit ? &c->units[c->nunits - 1u] : NULL;
    tile_rec_t *t = c->in_tile ? &c->tiles[c->ntiles - 1u] : NULL;
    switch (e->kind) {
    case TIGRIS_TRACE_STAGE_BEGIN:
        if (c->in_unit || c->nunits >= MAX_UNITS) {
            c->anomalies++;
            return;
        }
        u = &c->units[c->nunits++];
        memset(u, 0, sizeof *u);
        u->stage = e->stage;
        u->path = e->path;
        c->in_unit = 1;
        break;
    case TIGRIS_TRACE_STAGE_END:
        if (!u || u->stage != e->stage)
            c->anomalies++;
        else
            u->slow_end = e->slow_used;
        c->in_unit = 0;
        c->in_tile = 0;
        return;
    case TIGRIS_TRACE_TILE_BEGIN:
        if (!u) {
            c->anomalies++;
            return;
        }
        u->tiles++;
        c->in_tile = 0;
        if (c->ntiles >= MAX_TILES) {
            c->lost++;
            return;
        }
        t = &c->tiles[c->ntiles++];
        memset(t, 0, sizeof *t);
        t->stage = e->stage;
        t->tile = e->op;
        t->row0 = e->row0;
        t->row1 = e->row1;
        t->out0 = -1;
        t->out1 = -1;
        t->fast_max = e->fast_used;
        c->in_tile = 1;
        break;
    default:
        if (e->kind != TIGRIS_TRACE_ALLOC && !u)
            c->anomalies++;           /* only the input placement happens outside a stage */
        break;
    }
    if (u && e->fast_used > u->fast_max)
        u->fast_max = e->fast_used;
    if (t && e->fast_used > t->fast_max)
        t->fast_max = e->fast_used;
    uint32_t rows = e->row1 > e->row0 ? (uint32_t)(e->row1 - e->row0) : 0u;
    switch (e->kind) {
    case TIGRIS_TRACE_LOAD:
        if (u) u->load += e->bytes;
        if (t) t->load += e->bytes;
        break;
    case TIGRIS_TRACE_SPILL:
        if (u) u->spill += e->bytes;
        if (t) {
            t->spill += e->bytes;
            if (t->out0 < 0 || e->row0 < t->out0)
                t->out0 = e->row0;
            if (e->row1 > t->out1)
                t->out1 = e->row1;
        }
        break;
    case TIGRIS_TRACE_MOVE:
        if (u) u->move += e->bytes;
        if (t) t->move += e->bytes;
        break;
    case TIGRIS_TRACE_OP:
        if (u) {
            u->ops++;
            u->op_rows += rows;
        }
        if (t) {
            t->ops++;
            t->op_rows += rows;
        }
        break;
    default:
        break;
    }
}
#endif /* TIGRIS_NO_TRACE */

/* ----------------------------------------------------------------------------- data */
static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256u; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : (c >> 1);
        crc_table[i] = c;
    }
}

static NOINLINE uint32_t crc32_bytes(const void *data, uint32_t n)
{
    const uint8_t *p = data;
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

static uint32_t rng_state;

static int32_t rand_range(int32_t lo, int32_t hi)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (int32_t)((rng_state >> 8) % (uint32_t)(hi - lo + 1));
}

/* the input image (make_plans.py's make_input() computes the same) */
static NOINLINE void make_input(int8_t *dst, int32_t h, int32_t w, int32_t c)
{
    rng_state = 0x00C0FFEEu;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            for (int32_t ch = 0; ch < c; ch++) {
                int32_t v = ((x * 5 + y * 3) & 0xFF) - 128 + rand_range(-24, 24);
                dst[(y * w + x) * c + ch] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
            }
}

static void print_shape(const char *label, const tigris_plan_t *plan, uint16_t t)
{
    printf(" %s=%s:%" PRId32 "x%" PRId32 "x%" PRId32 "x%" PRId32, label,
           tigris_plan_string(plan, plan->tensors[t].name_str), tigris_plan_dim(plan, t, 0),
           tigris_plan_dim(plan, t, 1), tigris_plan_dim(plan, t, 2), tigris_plan_dim(plan, t, 3));
}

#ifdef HOST
/* Host only: the model computed op by op on whole tensors with the same kernels, outside the
 * executor; the tiled / chained run must give the same bytes. */
static int8_t host_tensors[TIGRIS_PLAN_NUM_TENSORS][65536];

static uint32_t host_whole_model_crc(const tigris_plan_t *plan, uint16_t in_t, uint16_t out_t)
{
    tigris_mem_t m;
    void *ptrs[TIGRIS_PLAN_NUM_TENSORS];
    memset(&m, 0, sizeof m);
    m.tensor_ptrs = ptrs;
    for (uint16_t t = 0; t < plan->num_tensors; t++)
        ptrs[t] = host_tensors[t];
    make_input(host_tensors[in_t], tigris_plan_dim(plan, in_t, 1), tigris_plan_dim(plan, in_t, 2),
               tigris_plan_dim(plan, in_t, 3));
    for (uint16_t k = 0; k < plan->num_ops; k++) {
        const tigris_op_t *op = &plan->ops[k];
        uint16_t it = tigris_plan_index(plan, op->inputs_off), ot = tigris_plan_index(plan, op->outputs_off);
        m.tile.in_row0 = 0;
        m.tile.in_rows = tigris_plan_dim(plan, it, 1);
        m.tile.out_row0 = 0;
        m.tile.out_start = 0;
        m.tile.out_end = tigris_plan_dim(plan, ot, 1);
        if (tigris_ref_kernel(plan, op, k, &m, NULL) != 0)
            return 0;
    }
    return crc32_bytes(host_tensors[out_t], plan->tensors[out_t].size_bytes);
}
#endif

/* ----------------------------------------------------------------------------- main */
int main(void)
{
    static tigris_plan_t plan;
    static tigris_mem_t mem;
    static tigris_exec_stats_t stats;
    const char *name = TIGRIS_PLAN_NAME;

    crc_init();
#ifdef HOST
    if (getenv("TIGRIS_EVENTS"))
        event_log = stderr;
#endif
    int rc = tigris_plan_load(g_tigris_plan, g_tigris_plan_len, &plan);
    if (rc != TIGRIS_OK) {
        printf("%s: tigris_plan_load failed: %d\n", name, rc);
        return 1;
    }
    uint16_t in_t = tigris_plan_model_input(&plan, 0), out_t = tigris_plan_model_output(&plan, 0);
    printf("%s: model=%s", name, tigris_plan_string(&plan, plan.header->model_name_str));
    print_shape("input", &plan, in_t);
    print_shape("output", &plan, out_t);
    printf("\n");
    printf("plan schema=%" PRIu32 " bytes=%" PRIu32 " crc32=0x%08" PRIX32 " tensors=%u ops=%u stages=%u"
           " tile_plans=%u weights=%u budget=%" PRIu32 "\n",
           plan.version, plan.size, crc32_bytes(plan.base, plan.size), plan.num_tensors,
           plan.num_ops, plan.num_stages, plan.num_tile_plans, plan.num_weights, plan.budget);
    for (uint16_t s = 0; s < plan.num_stages; s++) {
        const tigris_stage_t *st = &plan.stages[s];
        printf("plan stage=%u ops=", s);
        for (uint16_t i = 0; i < st->ops_count; i++) {
            uint16_t k = tigris_plan_index(&plan, (uint32_t)st->ops_off + i);
            printf("%s%s", i ? "," : "", tigris_plan_string(&plan, plan.ops[k].name_str));
        }
        printf(" peak=%" PRIu32, st->peak_bytes);
        if (st->tile_plan_idx != TIGRIS_NONE16) {
            const tigris_tile_plan_t *tp = &plan.tile_plans[st->tile_plan_idx];
            printf(" tile_height=%u num_tiles=%u halo=%u rf=%u height=%u tiled_peak=%" PRIu32
                   " overhead=%" PRIu32, tp->tile_height, tp->num_tiles, tp->halo, tp->receptive_field,
                   tp->original_height, tp->tiled_peak_bytes, tp->overhead_bytes);
        }
        if (st->chain_id != TIGRIS_NONE16)
            printf(" chain_id=%u chain_len=%u", st->chain_id, st->chain_len);
        if (st->chain_tile_h)
            printf(" chain_tile_h=%u line_buffered=%u", st->chain_tile_h,
                   (unsigned)(st->flags & TIGRIS_STAGE_FLAG_LINE_BUFFERED));
        printf("\n");
    }

    tigris_mem_init(&mem, tigris_tensor_ptrs, TIGRIS_PLAN_NUM_TENSORS, tigris_fast_arena,
                    sizeof tigris_fast_arena, tigris_slow_arena, sizeof tigris_slow_arena);
    printf("arenas fast=%" PRIu32 " slow=%" PRIu32 " align=%u\n", mem.fast_size, mem.slow_size,
           (unsigned)TIGRIS_TENSOR_ALIGN);
#ifndef TIGRIS_NO_TRACE
    tigris_mem_set_trace(&mem, trace_sink, &sink);
#endif
#ifdef TIGRIS_SCHEMA_1
    int8_t *input = tigris_mem_alloc_slow(&mem, in_t, plan.tensors[in_t].size_bytes) == TIGRIS_OK
                        ? mem.tensor_ptrs[in_t]
                        : NULL;
#else
    int8_t *input = tigris_mem_alloc_slow(&mem, in_t, plan.tensors[in_t].size_bytes);
#endif
    if (!input) {
        printf("%s: no slow memory for the input\n", name);
        return 1;
    }
    make_input(input, tigris_plan_dim(&plan, in_t, 1), tigris_plan_dim(&plan, in_t, 2),
               tigris_plan_dim(&plan, in_t, 3));
#ifdef TIGRIS_SCHEMA_1
    rc = tigris_run(&plan, &mem, tigris_ref_kernel, NULL, &stats);
#else
    rc = tigris_run_with_workspace_buffer(&plan, &mem, tigris_ref_kernel, NULL, &stats,
                                          tigris_workspace, sizeof tigris_workspace);
#endif
#ifndef TIGRIS_NO_TRACE
    tigris_mem_set_trace(&mem, NULL, NULL);
#endif
    if (rc != TIGRIS_OK) {
        printf("%s: the run failed: %d\n", name, rc);
        return 1;
    }

    printf("stats stages_normal=%" PRIu32 " stages_tiled=%" PRIu32 " stages_chain=%" PRIu32
           " total_tiles=%" PRIu32 " loads_bytes=%" PRIu32 " spills_bytes=%" PRIu32 " slow_peak=%" PRIu32
           " slow_overflow_count=%" PRIu32 " slow_overflow_bytes=%" PRIu32 " compactions=%" PRIu32
           " weight_bytes=%" PRIu32 " copy_bytes=%" PRIu32 "\n",
           stats.stages_normal, stats.stages_tiled, stats.stages_chain, stats.total_tiles,
           stats.loads_bytes, stats.spills_bytes, stats.slow_peak, stats.slow_overflow_count,
           stats.slow_overflow_bytes, stats.compactions, stats.weight_bytes, stats.copy_bytes);
#ifndef TIGRIS_NO_TRACE
    for (int k = 1; k <= TIGRIS_TRACE_KINDS; k++)
        printf("events kind=%s n=%" PRIu32 " bytes=%" PRIu32 "\n", kind_names[k], sink.count[k],
               sink.bytes[k]);
    for (uint32_t i = 0; i < sink.nunits; i++) {
        const unit_rec_t *u = &sink.units[i];
        printf("unit stage=%u path=%u tiles=%" PRIu32 " load=%" PRIu32 " spill=%" PRIu32 " move=%" PRIu32
               " ops=%" PRIu32 " op_rows=%" PRIu32 " fast_peak=%" PRIu32 " slow_used=%" PRIu32 "\n",
               u->stage, u->path, u->tiles, u->load, u->spill, u->move, u->ops, u->op_rows, u->fast_max,
               u->slow_end);
    }
    for (uint32_t i = 0; i < sink.ntiles; i++) {
        const tile_rec_t *t = &sink.tiles[i];
        printf("tile stage=%u tile=%u rows=[%" PRId32 ",%" PRId32 ") out=[%" PRId32 ",%" PRId32 ")\n",
               t->stage, t->tile, t->row0, t->row1, t->out0, t->out1);
        printf("tile_io stage=%u tile=%u load=%" PRIu32 " spill=%" PRIu32 " move=%" PRIu32 " ops=%" PRIu32
               " op_rows=%" PRIu32 " fast_peak=%" PRIu32 "\n",
               t->stage, t->tile, t->load, t->spill, t->move, t->ops, t->op_rows, t->fast_max);
    }
    printf("peaks fast=%" PRIu32 " slow=%" PRIu32 " trace_fast_max=%" PRIu32 " trace_slow_max=%" PRIu32 "\n",
           mem.fast_peak, mem.slow_peak, sink.fast_max, sink.slow_max);
#else
    printf("peaks fast=%" PRIu32 " slow=%" PRIu32 " (no trace API)\n", mem.fast_peak, mem.slow_peak);
#endif

    const int8_t *out = mem.tensor_ptrs[out_t];
    uint32_t n = plan.tensors[out_t].size_bytes, nonzero = 0;
    int32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        nonzero += out[i] != 0;
        sum += out[i];
    }
    uint32_t crc = crc32_bytes(out, n);
    printf("output tensor=%u bytes=%" PRIu32 " crc32=0x%08" PRIX32 " nonzero=%" PRIu32 " sum=%" PRId32
           " reference=%s\n", out_t, n, crc, nonzero, sum,
           crc == TIGRIS_REFERENCE_OUTPUT_CRC32 ? "match" : "MISMATCH");

#ifndef TIGRIS_NO_TRACE
    /* the invariants a TiGrIS trace keeps (the TiGrIS runtime's documented counters) */
    int ok = sink.bytes[TIGRIS_TRACE_LOAD] == stats.loads_bytes &&
             sink.bytes[TIGRIS_TRACE_SPILL] == stats.spills_bytes &&
             sink.count[TIGRIS_TRACE_TILE_BEGIN] == stats.total_tiles &&
             sink.fast_max == mem.fast_peak && sink.slow_max == stats.slow_peak &&
             sink.anomalies == 0 && sink.lost == 0 && !sink.in_unit;
    printf("check trace=%s\n", ok ? "ok" : "MISMATCH");
#else
    int ok = 1;
#endif
#ifdef HOST
    uint32_t whole = host_whole_model_crc(&plan, in_t, out_t);
    if (whole != crc) {
        fprintf(stderr, "%s: whole-tensor run gives crc32 0x%08" PRIX32 ", the executor 0x%08" PRIX32 "\n",
                name, whole, crc);
        return 3;
    }
#endif
    return ok && crc == TIGRIS_REFERENCE_OUTPUT_CRC32 ? 0 : 2;
}
