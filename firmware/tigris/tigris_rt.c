/*
 * tigris_rt.c: plan loader, memory pools and executor of the reference firmware's TiGrIS runtime.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Our own implementation of the behaviour the TiGrIS runtime documents (trace events, executor behaviour, the .tgrs plan),
 * simplified where firmware/tigris/README.md says so:
 *  - both pools are bump allocators; nothing is freed inside a stage (no compaction, no slow
 *    overflow); the fast pool is reset at every stage end (tiled / unbuffered chain: every tile
 *    end); the slow pool is never reset (every stage output gets fresh slow space);
 *  - a 1D tiled stage uses the plan's tile_height (output rows per tile) as it is: no re-solve;
 *  - a chain uses the head's chain_tile_h as it is; a LINE_BUFFERED chain keeps the rows the next
 *    tile needs again in each band (a MOVE per band and tile) instead of recomputing them.
 */
#include "tigris_rt.h"

#include <string.h>

/* --------------------------------------------------------------------------- helpers */
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint32_t align_up(uint32_t n) { return (n + TIGRIS_TENSOR_ALIGN - 1u) & ~(TIGRIS_TENSOR_ALIGN - 1u); }

uint16_t tigris_plan_index(const tigris_plan_t *plan, uint32_t element)
{
    return element < plan->index_count ? rd16(plan->index_pool + 2u * element) : (uint16_t)TIGRIS_NONE16;
}

int32_t tigris_plan_dim(const tigris_plan_t *plan, uint16_t tensor, uint32_t axis)
{
    const tigris_tensor_t *t = &plan->tensors[tensor];
    if (axis >= t->ndim)
        return 1;
    return (int32_t)rd32(plan->shape_pool + 4u * ((uint32_t)t->shape_off + axis));
}

const char *tigris_plan_string(const tigris_plan_t *plan, uint32_t offset)
{
    return offset < plan->strings_size ? plan->strings + offset : "";
}

const void *tigris_plan_weight(const tigris_plan_t *plan, uint16_t weight_idx, uint32_t *size)
{
    if (weight_idx >= plan->num_weights)
        return NULL;
    const tigris_weight_entry_t *e = &plan->weights[weight_idx];
    if (size)
        *size = e->size_bytes;
    return plan->weight_blob + e->offset;
}

uint16_t tigris_plan_model_input(const tigris_plan_t *plan, uint32_t k)
{
    return tigris_plan_index(plan, (uint32_t)plan->model_io_off + k);
}

uint16_t tigris_plan_model_output(const tigris_plan_t *plan, uint32_t k)
{
    return tigris_plan_index(plan, (uint32_t)plan->model_io_off + plan->num_model_inputs + k);
}

/* --------------------------------------------------------------------------- loader */
#define SEC_TYPES 14   /* known section types 1..13 */

static int check_tensor(const tigris_plan_t *p, uint16_t t)
{
    const tigris_tensor_t *r = &p->tensors[t];
    if (r->name_str >= p->strings_size || r->dtype != TIGRIS_DTYPE_INT8 || r->ndim != 4 ||
        (uint32_t)r->shape_off + 4u > p->shape_count)
        return TIGRIS_ERR_BAD_TENSOR;
    uint32_t n = 1;
    for (uint32_t a = 0; a < 4; a++) {
        int32_t d = tigris_plan_dim(p, t, a);
        if (d < 1 || d > 4096)
            return TIGRIS_ERR_BAD_TENSOR;
        n *= (uint32_t)d;
    }
    if (tigris_plan_dim(p, t, 0) != 1 || n != r->size_bytes)
        return TIGRIS_ERR_BAD_TENSOR;
    return TIGRIS_OK;
}

static int check_op(const tigris_plan_t *p, uint16_t k)
{
    const tigris_op_t *o = &p->ops[k];
    if (o->name_str >= p->strings_size || o->num_inputs != 1 || o->num_outputs != 1 ||
        (uint32_t)o->inputs_off + 1u > p->index_count || (uint32_t)o->outputs_off + 1u > p->index_count)
        return TIGRIS_ERR_BAD_OPERATOR;
    uint16_t in = tigris_plan_index(p, o->inputs_off), out = tigris_plan_index(p, o->outputs_off);
    if (in >= p->num_tensors || out >= p->num_tensors || in == out)
        return TIGRIS_ERR_BAD_OPERATOR;
    if (o->op_type != TIGRIS_OP_CONV && o->op_type != TIGRIS_OP_MAX_POOL)
        return TIGRIS_ERR_BAD_OPERATOR;
    if (o->kernel_h < 1 || o->kernel_w < 1 || o->stride_h < 1 || o->stride_w < 1 ||
        o->dilation_h != 1 || o->dilation_w != 1 || o->group != 1 || o->pad_top >= o->kernel_h ||
        o->pad_bottom >= o->kernel_h || o->pad_left >= o->kernel_w || o->pad_right >= o->kernel_w)
        return TIGRIS_ERR_BAD_OPERATOR;
    int32_t h = tigris_plan_dim(p, in, 1), w = tigris_plan_dim(p, in, 2), c = tigris_plan_dim(p, in, 3);
    int32_t ho = tigris_plan_dim(p, out, 1), wo = tigris_plan_dim(p, out, 2), co = tigris_plan_dim(p, out, 3);
    if (ho != (h + o->pad_top + o->pad_bottom - o->kernel_h) / o->stride_h + 1 ||
        wo != (w + o->pad_left + o->pad_right - o->kernel_w) / o->stride_w + 1)
        return TIGRIS_ERR_BAD_OPERATOR;
    if (o->op_type == TIGRIS_OP_MAX_POOL)
        return co == c ? TIGRIS_OK : TIGRIS_ERR_BAD_OPERATOR;
    uint32_t wsz = 0, bsz = 0;
    if (!tigris_plan_weight(p, o->weight_idx, &wsz) || !tigris_plan_weight(p, o->bias_idx, &bsz) ||
        wsz != (uint32_t)(co * o->kernel_h * o->kernel_w * c) || bsz != 4u * (uint32_t)co ||
        ((p->weights[o->bias_idx].offset + (uintptr_t)p->weight_blob) & 3u) != 0)
        return TIGRIS_ERR_BAD_OPERATOR;
    return TIGRIS_OK;
}

static int check_list(const tigris_plan_t *p, uint32_t off, uint32_t count, uint32_t limit)
{
    if (off + count > p->index_count)
        return 0;
    for (uint32_t i = 0; i < count; i++)
        if (tigris_plan_index(p, off + i) >= limit)
            return 0;
    return 1;
}

int tigris_plan_load(const void *buf, size_t len, tigris_plan_t *plan)
{
    if (!buf || !plan)
        return TIGRIS_ERR_NULL;
    memset(plan, 0, sizeof *plan);
    const uint8_t *b = buf;
    if (len < sizeof(tigris_file_header_t))
        return TIGRIS_ERR_TOO_SMALL;
    if (memcmp(b, "TGRS", 4) != 0)
        return TIGRIS_ERR_BAD_MAGIC;
    const tigris_file_header_t *h = buf;
    if (h->version < TIGRIS_SCHEMA_MIN || h->version > TIGRIS_SCHEMA_MAX)
        return TIGRIS_ERR_BAD_VERSION;
    if (h->file_size != len || len > 0x7FFFFFFFu)
        return TIGRIS_ERR_BAD_SIZE;
    uint32_t size = (uint32_t)len;

    /* section directory: (type, offset) pairs up to type 0 */
    uint32_t sec[SEC_TYPES] = {0};
    uint32_t d = h->section_dir_off, nsec = 0;
    for (;; d += 8u) {
        if (d < sizeof(tigris_file_header_t) || d + 8u > size || nsec > SEC_TYPES)
            return TIGRIS_ERR_BAD_SECTION;
        uint32_t type = rd32(b + d), off = rd32(b + d + 4u);
        if (type == 0)
            break;
        if (type >= SEC_TYPES || sec[type] != 0 || off < sizeof(tigris_file_header_t) ||
            off >= size || (off & 15u) != 0)
            return TIGRIS_ERR_BAD_SECTION;
        sec[type] = off;
        nsec++;
    }
    uint32_t dir_end = d + 8u;
    uint32_t end[SEC_TYPES] = {0};
    for (uint32_t t = 1; t < SEC_TYPES; t++) {
        if (!sec[t])
            continue;
        if (sec[t] < dir_end && sec[t] + 8u > h->section_dir_off)
            return TIGRIS_ERR_BAD_SECTION;        /* overlaps the directory */
        end[t] = size;                            /* up to the next section or the end */
        for (uint32_t u = 1; u < SEC_TYPES; u++)
            if (sec[u] > sec[t] && sec[u] < end[t])
                end[t] = sec[u];
    }
#define SECSIZE(t) (end[t] - sec[t])
    if (!sec[1] || !sec[2] || !sec[5] || !sec[6] || !sec[7] || (h->num_stages && !sec[3]) ||
        (h->num_tile_plans && !sec[4]) || (h->num_weights && !sec[8]))
        return TIGRIS_ERR_MISSING_SEC;
    if (sec[10] || sec[12] || sec[13] || h->num_model_inputs != 1 || h->num_model_outputs < 1)
        return TIGRIS_ERR_LIMITS;                 /* compressed weights, state, subgraphs */
    if (h->num_tensors > TIGRIS_MAX_TENSORS || h->num_tensors == 0 || h->num_ops == 0 ||
        h->num_stages == 0)
        return TIGRIS_ERR_LIMITS;
    if ((uint32_t)h->num_tensors * 16u > SECSIZE(1) || (uint32_t)h->num_ops * sizeof(tigris_op_t) > SECSIZE(2) ||
        (uint32_t)h->num_stages * 28u > SECSIZE(3) ||
        (h->num_tile_plans && (uint32_t)h->num_tile_plans * 24u > SECSIZE(4)))
        return TIGRIS_ERR_BAD_SECTION;

    plan->base = b;
    plan->size = size;
    plan->version = h->version;
    plan->header = h;
    plan->tensors = (const tigris_tensor_t *)(b + sec[1]);
    plan->ops = (const tigris_op_t *)(b + sec[2]);
    plan->stages = (const tigris_stage_t *)(b + sec[3]);
    plan->tile_plans = h->num_tile_plans ? (const tigris_tile_plan_t *)(b + sec[4]) : NULL;
    plan->index_pool = b + sec[5];
    plan->index_count = SECSIZE(5) / 2u;
    plan->shape_pool = b + sec[6];
    plan->shape_count = SECSIZE(6) / 4u;
    plan->strings = (const char *)(b + sec[7]);
    plan->strings_size = SECSIZE(7);
    if (plan->strings_size == 0 || plan->strings[plan->strings_size - 1u] != '\0')
        return TIGRIS_ERR_BAD_SECTION;            /* every string ends inside the section */
    if (h->num_weights) {
        /* entry table, then the blob at the next 16-byte boundary */
        uint32_t table = 12u * h->num_weights, blob = (sec[8] + table + 15u) & ~15u;
        if (blob > end[8])
            return TIGRIS_ERR_BAD_SECTION;
        plan->weights = (const tigris_weight_entry_t *)(b + sec[8]);
        plan->weight_blob = b + blob;
        plan->weight_blob_size = end[8] - blob;
        for (uint32_t i = 0; i < h->num_weights; i++) {
            const tigris_weight_entry_t *e = &plan->weights[i];
            if (e->offset > plan->weight_blob_size || e->size_bytes > plan->weight_blob_size - e->offset)
                return TIGRIS_ERR_BAD_SECTION;
        }
    }
    plan->num_tensors = h->num_tensors;
    plan->num_ops = h->num_ops;
    plan->num_stages = h->num_stages;
    plan->num_tile_plans = h->num_tile_plans;
    plan->num_weights = h->num_weights;
    plan->model_io_off = h->model_io_off;
    plan->num_model_inputs = h->num_model_inputs;
    plan->num_model_outputs = h->num_model_outputs;
    plan->budget = h->budget;

    int rc = TIGRIS_OK;
    if (h->model_name_str >= plan->strings_size ||
        !check_list(plan, h->model_io_off, (uint32_t)h->num_model_inputs + h->num_model_outputs,
                    h->num_tensors))
        rc = TIGRIS_ERR_BAD_SECTION;
    for (uint16_t t = 0; rc == TIGRIS_OK && t < h->num_tensors; t++)
        rc = check_tensor(plan, t);
    for (uint16_t k = 0; rc == TIGRIS_OK && k < h->num_ops; k++)
        rc = check_op(plan, k);
    for (uint16_t s = 0; rc == TIGRIS_OK && s < h->num_stages; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        if (st->ops_count == 0 || !check_list(plan, st->ops_off, st->ops_count, h->num_ops) ||
            !check_list(plan, st->inputs_off, st->inputs_count, h->num_tensors) ||
            !check_list(plan, st->outputs_off, st->outputs_count, h->num_tensors) ||
            (st->tile_plan_idx != TIGRIS_NONE16 && st->tile_plan_idx >= h->num_tile_plans) ||
            (st->chain_id != TIGRIS_NONE16 &&
             (st->chain_id > s || st->chain_len < 2 || (uint32_t)st->chain_id + st->chain_len > h->num_stages)))
            rc = TIGRIS_ERR_BAD_STAGE;
    }
    if (rc != TIGRIS_OK)
        memset(plan, 0, sizeof *plan);
    return rc;
#undef SECSIZE
}

/* --------------------------------------------------------------------------- memory */
void tigris_mem_init(tigris_mem_t *mem, void **tensor_ptrs, uint16_t num_tensors, void *fast_buf,
                     size_t fast_size, void *slow_buf, size_t slow_size)
{
    memset(mem, 0, sizeof *mem);
    for (uint16_t i = 0; i < num_tensors; i++)
        tensor_ptrs[i] = NULL;
    uintptr_t f = ((uintptr_t)fast_buf + TIGRIS_TENSOR_ALIGN - 1u) & ~(uintptr_t)(TIGRIS_TENSOR_ALIGN - 1u);
    uintptr_t s = ((uintptr_t)slow_buf + TIGRIS_TENSOR_ALIGN - 1u) & ~(uintptr_t)(TIGRIS_TENSOR_ALIGN - 1u);
    size_t fcut = f - (uintptr_t)fast_buf, scut = s - (uintptr_t)slow_buf;
    mem->fast_base = (uint8_t *)f;
    mem->fast_size = fast_size > fcut ? (uint32_t)(fast_size - fcut) : 0u;
    mem->slow_base = (uint8_t *)s;
    mem->slow_size = slow_size > scut ? (uint32_t)(slow_size - scut) : 0u;
    mem->tensor_ptrs = tensor_ptrs;
    mem->num_tensors = num_tensors;
    mem->cur_stage = (uint16_t)TIGRIS_NONE16;
    mem->cur_path = TIGRIS_PATH_NORMAL;
}

#ifndef TIGRIS_NO_TRACE
void tigris_mem_set_trace(tigris_mem_t *mem, tigris_trace_fn fn, void *ctx)
{
    mem->trace_fn = fn;
    mem->trace_ctx = fn ? ctx : NULL;
}

__attribute__((noinline)) void tigris_trace_emit(tigris_mem_t *mem, tigris_trace_event_t *event)
{
    event->path = mem->cur_path;
    event->pad0 = 0;
    event->stage = mem->cur_stage;
    event->pad1 = 0;
    event->col0 = -1;
    event->col1 = -1;
    event->fast_used = mem->fast_used;
    event->slow_used = mem->slow_used;
    if (mem->trace_fn)
        mem->trace_fn(event, mem->trace_ctx);
}

static void emit(tigris_mem_t *m, uint8_t kind, uint8_t pool, uint16_t tensor, uint16_t op,
                 uint32_t offset, uint32_t src_offset, uint32_t bytes, int32_t row0, int32_t row1)
{
    tigris_trace_event_t e;
    e.kind = kind;
    e.pool = pool;
    e.tensor = tensor;
    e.op = op;
    e.offset = offset;
    e.src_offset = src_offset;
    e.bytes = bytes;
    e.row0 = row0;
    e.row1 = row1;
    tigris_trace_emit(m, &e);
}
#else
/* No trace API: the executor's work is unchanged, only the events are gone. */
static void emit(tigris_mem_t *m, uint8_t kind, uint8_t pool, uint16_t tensor, uint16_t op,
                 uint32_t offset, uint32_t src_offset, uint32_t bytes, int32_t row0, int32_t row1)
{
    (void)m, (void)kind, (void)pool, (void)tensor, (void)op, (void)offset, (void)src_offset, (void)bytes,
        (void)row0, (void)row1;
}
#endif

static int fast_alloc(tigris_mem_t *m, uint32_t bytes, uint32_t *off)
{
    uint32_t a = align_up(bytes);
    if (a > m->fast_size - m->fast_used)
        return TIGRIS_EXEC_ERR_OOM;
    *off = m->fast_used;
    m->fast_used += a;
    if (m->fast_used > m->fast_peak)
        m->fast_peak = m->fast_used;
    return TIGRIS_OK;
}

static int slow_alloc(tigris_mem_t *m, uint32_t bytes, uint32_t *off)
{
    uint32_t a = align_up(bytes);
    if (a > m->slow_size - m->slow_used)
        return TIGRIS_EXEC_ERR_OOM;
    *off = m->slow_used;
    m->slow_used += a;
    if (m->slow_used > m->slow_peak)
        m->slow_peak = m->slow_used;
    return TIGRIS_OK;
}

static void fast_reset(tigris_mem_t *m)
{
    uint32_t released = m->fast_used - m->fast_reserved;
    m->fast_used = m->fast_reserved;
    emit(m, TIGRIS_TRACE_RESET, TIGRIS_POOL_FAST, (uint16_t)TIGRIS_NONE16, (uint16_t)TIGRIS_NONE16,
         m->fast_reserved, 0, released, -1, -1);
}

static void *place_slow(tigris_mem_t *mem, uint16_t tensor, size_t bytes)
{
    uint32_t off;
    if (tensor >= mem->num_tensors || bytes > 0x7FFFFFFFu || slow_alloc(mem, (uint32_t)bytes, &off))
        return NULL;
    mem->tensor_ptrs[tensor] = mem->slow_base + off;
    emit(mem, TIGRIS_TRACE_ALLOC, TIGRIS_POOL_SLOW, tensor, (uint16_t)TIGRIS_NONE16, off, 0,
         (uint32_t)bytes, -1, -1);
    return mem->tensor_ptrs[tensor];
}

#ifdef TIGRIS_SCHEMA_1
int tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor, uint32_t bytes)
{
    return place_slow(mem, tensor, bytes) ? TIGRIS_OK : TIGRIS_EXEC_ERR_OOM;
}
#else
void *tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor, size_t bytes)
{
    return place_slow(mem, tensor, bytes);
}
#endif

/* --------------------------------------------------------------------------- executor */
typedef struct {          /* one tensor of a banded run (tiled stage or chain) */
    int32_t h, rb;        /* height, bytes per row */
    int32_t base, rows;   /* the buffer holds rows [base, base + rows) */
    int32_t cap;          /* capacity in rows (line-buffered chains) */
    int32_t hi;           /* line buffer: rows produced so far are [.., hi) */
    int32_t need0, need1; /* rows this tile needs */
    int32_t new0;         /* first row this tile produces (need0 unless line-buffered) */
    int32_t skip;         /* nothing to produce in this tile */
    uint32_t off;         /* buffer offset in the fast pool */
    uint16_t tensor, op;  /* op = the op producing this tensor (band 0: none) */
} band_t;

typedef struct {
    const tigris_plan_t *plan;
    tigris_mem_t *mem;
    tigris_kernel_fn kernel;
    void *user;
    tigris_exec_stats_t *st;
    uint32_t home[TIGRIS_MAX_TENSORS];   /* slow offset + 1, 0 = not in the slow pool */
    uint32_t foff[TIGRIS_MAX_TENSORS];   /* fast offset while in_fast */
    uint8_t in_fast[TIGRIS_MAX_TENSORS];
    band_t band[TIGRIS_MAX_BAND_OPS + 1u];
    uint32_t nband;                      /* bands = ops + 1 */
} exec_t;

_Static_assert(sizeof(exec_t) <= TIGRIS_EXECUTOR_WORKSPACE_BYTES, "workspace size");

static uint32_t tbytes(const exec_t *x, uint16_t t) { return x->plan->tensors[t].size_bytes; }

static uint16_t op_in(const exec_t *x, uint16_t k) { return tigris_plan_index(x->plan, x->plan->ops[k].inputs_off); }

static uint16_t op_out(const exec_t *x, uint16_t k) { return tigris_plan_index(x->plan, x->plan->ops[k].outputs_off); }

static void begin_stage(exec_t *x, uint16_t stage, uint8_t path)
{
    x->mem->cur_stage = stage;
    x->mem->cur_path = path;
    emit(x->mem, TIGRIS_TRACE_STAGE_BEGIN, TIGRIS_POOL_NONE, (uint16_t)TIGRIS_NONE16,
         (uint16_t)TIGRIS_NONE16, 0, 0, 0, -1, -1);
}

static void end_stage(exec_t *x)
{
    /* tensors leave the fast pool: pointers back to their slow home (or none) */
    for (uint16_t t = 0; t < x->plan->num_tensors; t++) {
        x->in_fast[t] = 0;
        x->mem->tensor_ptrs[t] = x->home[t] ? x->mem->slow_base + (x->home[t] - 1u) : NULL;
    }
    emit(x->mem, TIGRIS_TRACE_STAGE_END, TIGRIS_POOL_NONE, (uint16_t)TIGRIS_NONE16,
         (uint16_t)TIGRIS_NONE16, 0, 0, 0, -1, -1);
    x->mem->cur_stage = (uint16_t)TIGRIS_NONE16;
}

static int place_output_slow(exec_t *x, uint16_t t)
{
    uint32_t off;
    if (slow_alloc(x->mem, tbytes(x, t), &off))
        return TIGRIS_EXEC_ERR_OOM;
    x->home[t] = off + 1u;
    /* as tigris_mem_alloc_slow does: the table says where the tensor lives until it is brought in */
    x->mem->tensor_ptrs[t] = x->mem->slow_base + off;
    emit(x->mem, TIGRIS_TRACE_ALLOC, TIGRIS_POOL_SLOW, t, (uint16_t)TIGRIS_NONE16, off, 0,
         tbytes(x, t), -1, -1);
    return TIGRIS_OK;
}

static int call_kernel(exec_t *x, uint16_t k, uint16_t out_t, uint32_t out_off, uint32_t bytes,
                       int32_t row0, int32_t row1)
{
    emit(x->mem, TIGRIS_TRACE_OP, TIGRIS_POOL_FAST, out_t, k, out_off, 0, bytes, row0, row1);
    return x->kernel(x->plan, &x->plan->ops[k], k, x->mem, x->user) < 0 ? TIGRIS_EXEC_ERR_KERNEL : TIGRIS_OK;
}

/* Normal path: whole stage inputs into the fast pool, every op, outputs back to slow. */
static int run_normal(exec_t *x, uint16_t s)
{
    const tigris_plan_t *p = x->plan;
    const tigris_stage_t *st = &p->stages[s];
    tigris_mem_t *m = x->mem;
    int rc;
    begin_stage(x, s, TIGRIS_PATH_NORMAL);
    for (uint16_t i = 0; i < st->outputs_count; i++)
        if ((rc = place_output_slow(x, tigris_plan_index(p, (uint32_t)st->outputs_off + i))))
            return rc;
    for (uint16_t i = 0; i < st->inputs_count; i++) {
        uint16_t t = tigris_plan_index(p, (uint32_t)st->inputs_off + i);
        uint32_t off, n = tbytes(x, t);
        if (!x->home[t])
            return TIGRIS_EXEC_ERR_INPUT;
        if (fast_alloc(m, n, &off))
            return TIGRIS_EXEC_ERR_OOM;
        emit(m, TIGRIS_TRACE_ALLOC, TIGRIS_POOL_FAST, t, (uint16_t)TIGRIS_NONE16, off, 0, n, -1, -1);
        memcpy(m->fast_base + off, m->slow_base + (x->home[t] - 1u), n);
        x->st->loads_bytes += n;
        emit(m, TIGRIS_TRACE_LOAD, TIGRIS_POOL_FAST, t, (uint16_t)TIGRIS_NONE16, off, x->home[t] - 1u,
             n, -1, -1);
        x->foff[t] = off;
        x->in_fast[t] = 1;
        m->tensor_ptrs[t] = m->fast_base + off;
    }
    for (uint16_t i = 0; i < st->ops_count; i++) {
        uint16_t k = tigris_plan_index(p, (uint32_t)st->ops_off + i);
        uint16_t in = op_in(x, k), out = op_out(x, k);
        uint32_t off, n = tbytes(x, out);
        if (!x->in_fast[in])
            return TIGRIS_ERR_BAD_STAGE;          /* op input neither loaded nor produced */
        if (!x->in_fast[out]) {
            if (fast_alloc(m, n, &off))
                return TIGRIS_EXEC_ERR_OOM;
            emit(m, TIGRIS_TRACE_ALLOC, TIGRIS_POOL_FAST, out, (uint16_t)TIGRIS_NONE16, off, 0, n, -1, -1);
            x->foff[out] = off;
            x->in_fast[out] = 1;
            m->tensor_ptrs[out] = m->fast_base + off;
        }
        m->tile.active = 0;
        m->tile.in_row0 = 0;
        m->tile.in_rows = tigris_plan_dim(p, in, 1);
        m->tile.out_row0 = 0;
        m->tile.out_start = 0;
        m->tile.out_end = tigris_plan_dim(p, out, 1);
        if ((rc = call_kernel(x, k, out, x->foff[out], n, -1, -1)))
            return rc;
    }
    for (uint16_t i = 0; i < st->outputs_count; i++) {
        uint16_t t = tigris_plan_index(p, (uint32_t)st->outputs_off + i);
        uint32_t n = tbytes(x, t);
        if (!x->in_fast[t])
            return TIGRIS_ERR_BAD_STAGE;
        memcpy(m->slow_base + (x->home[t] - 1u), m->fast_base + x->foff[t], n);
        x->st->spills_bytes += n;
        emit(m, TIGRIS_TRACE_SPILL, TIGRIS_POOL_SLOW, t, (uint16_t)TIGRIS_NONE16, x->home[t] - 1u,
             x->foff[t], n, -1, -1);
    }
    fast_reset(m);
    end_stage(x);
    x->st->stages_normal++;
    return TIGRIS_OK;
}

/* Rows of each band for tile `tile`: walk back from the output rows [o0, o1) of the last op.
 * Unbuffered: every band needs the full input range of its consumer's rows.  Line-buffered: a
 * band produces only the rows not produced before (from hi on); its consumer's needs start at the
 * rows the consumer's *new* rows read. */
static void band_rows(exec_t *x, int32_t o0, int32_t o1, int lb)
{
    uint32_t m = x->nband - 1u;
    band_t *out = &x->band[m];
    out->need0 = o0;
    out->need1 = o1;
    out->new0 = o0;
    out->skip = o0 >= o1;
    for (uint32_t k = m; k-- > 0;) {
        band_t *b = &x->band[k], *nx = &x->band[k + 1u];
        const tigris_op_t *op = &x->plan->ops[nx->op];
        if (nx->skip) {
            b->skip = 1;
            continue;
        }
        int32_t r0 = nx->new0 * op->stride_h - op->pad_top;
        int32_t r1 = (nx->need1 - 1) * op->stride_h - op->pad_top + op->kernel_h;
        b->need0 = r0 < 0 ? 0 : r0;
        b->need1 = r1 > b->h ? b->h : r1;
        b->new0 = lb && b->hi > b->need0 ? b->hi : b->need0;
        if (b->new0 > b->need1)
            b->new0 = b->need1;
        b->skip = 0;
    }
}

static int run_band_op(exec_t *x, uint32_t k)
{
    band_t *in = &x->band[k - 1u], *b = &x->band[k];
    tigris_mem_t *m = x->mem;
    int32_t n = b->need1 - b->new0;
    if (n <= 0)
        return TIGRIS_OK;                         /* nothing new in this band */
    if (b->new0 != b->base + b->rows || b->rows + n > b->cap)
        return TIGRIS_ERR_BAD_STAGE;
    m->tensor_ptrs[in->tensor] = m->fast_base + in->off;
    m->tensor_ptrs[b->tensor] = m->fast_base + b->off;
    m->tile.active = 1;
    m->tile.in_row0 = in->base;
    m->tile.in_rows = in->rows;
    m->tile.out_row0 = b->base;
    m->tile.out_start = b->new0;
    m->tile.out_end = b->need1;
    uint32_t dst = b->off + (uint32_t)((b->new0 - b->base) * b->rb);
    int rc = call_kernel(x, b->op, b->tensor, dst, (uint32_t)(n * b->rb), b->new0, b->need1);
    b->rows += n;
    b->hi = b->need1;
    return rc;
}

/* Keep the rows of band k this tile needs again: move them to the buffer start. */
static int roll_band(exec_t *x, uint32_t k)
{
    band_t *b = &x->band[k];
    tigris_mem_t *m = x->mem;
    int32_t keep1 = b->hi < b->need1 ? b->hi : b->need1;
    int32_t keep = keep1 - b->need0;
    if (keep <= 0) {
        b->base = b->new0;
        b->rows = 0;
        return TIGRIS_OK;
    }
    if (b->need0 < b->base || keep1 > b->base + b->rows)
        return TIGRIS_ERR_BAD_STAGE;              /* the rows are gone */
    if (b->need0 != b->base) {
        uint32_t src = b->off + (uint32_t)((b->need0 - b->base) * b->rb);
        memmove(m->fast_base + b->off, m->fast_base + src, (size_t)(keep * b->rb));
        emit(m, TIGRIS_TRACE_MOVE, TIGRIS_POOL_FAST, b->tensor, (uint16_t)TIGRIS_NONE16, b->off, src,
             (uint32_t)(keep * b->rb), b->need0, keep1);
    }
    b->base = b->need0;
    b->rows = keep;
    return TIGRIS_OK;
}

/* Tiled stage (path 1) or chain (path 7): the ops of stages first..first+count-1 form one line
 * X0 -op0-> X1 -op1-> ... -> Xm; each tile produces tile_h output rows of Xm. */
static int run_banded(exec_t *x, uint16_t first, uint16_t count, uint32_t tile_h, int lb,
                      uint8_t path, uint32_t expect_tiles)
{
    const tigris_plan_t *p = x->plan;
    tigris_mem_t *m = x->mem;
    int rc;
    uint32_t nb = 0;
    for (uint16_t s = first; s < first + count; s++) {
        const tigris_stage_t *st = &p->stages[s];
        if (st->inputs_count != 1 || st->outputs_count != 1)
            return TIGRIS_ERR_BAD_STAGE;
        for (uint16_t i = 0; i < st->ops_count; i++) {
            uint16_t k = tigris_plan_index(p, (uint32_t)st->ops_off + i);
            if (nb == 0) {
                if (op_in(x, k) != tigris_plan_index(p, st->inputs_off))
                    return TIGRIS_ERR_BAD_STAGE;
                x->band[nb].tensor = op_in(x, k);
                x->band[nb].op = (uint16_t)TIGRIS_NONE16;
                nb++;
            }
            if (nb > TIGRIS_MAX_BAND_OPS || op_in(x, k) != x->band[nb - 1u].tensor)
                return TIGRIS_ERR_BAD_STAGE;      /* not a line of ops */
            x->band[nb].tensor = op_out(x, k);
            x->band[nb].op = k;
            nb++;
        }
        if (x->band[nb - 1u].tensor != tigris_plan_index(p, st->outputs_off))
            return TIGRIS_ERR_BAD_STAGE;          /* stage output is not its last op's */
    }
    x->nband = nb;
    uint32_t mlast = nb - 1u;
    for (uint32_t k = 0; k < nb; k++) {
        band_t *b = &x->band[k];
        b->h = tigris_plan_dim(p, b->tensor, 1);
        b->rb = tigris_plan_dim(p, b->tensor, 2) * tigris_plan_dim(p, b->tensor, 3);
        b->hi = 0;
        b->cap = 0;
        b->base = 0;
        b->rows = 0;
    }
    uint16_t in_t = x->band[0].tensor, out_t = x->band[mlast].tensor;
    int32_t H = x->band[mlast].h;
    uint32_t ntiles = ((uint32_t)H + tile_h - 1u) / tile_h;
    if (tile_h == 0 || (expect_tiles && ntiles != expect_tiles))
        return TIGRIS_ERR_BAD_STAGE;
    if (!x->home[in_t])
        return TIGRIS_EXEC_ERR_INPUT;

    begin_stage(x, first, path);
    if ((rc = place_output_slow(x, out_t)))
        return rc;
    if (lb) {
        /* line buffers: the largest band of any tile, allocated once for the whole chain */
        for (uint32_t t = 0; t < ntiles; t++) {
            int32_t o0 = (int32_t)(t * tile_h), o1 = o0 + (int32_t)tile_h > H ? H : o0 + (int32_t)tile_h;
            band_rows(x, o0, o1, 1);
            for (uint32_t k = 0; k < nb; k++) {
                band_t *b = &x->band[k];
                if (!b->skip && b->need1 - b->need0 > b->cap)
                    b->cap = b->need1 - b->need0;
                if (!b->skip)
                    b->hi = b->need1;
            }
        }
        for (uint32_t k = 0; k < nb; k++) {
            band_t *b = &x->band[k];
            uint32_t n = (uint32_t)(b->cap * b->rb);
            b->hi = 0;
            if (fast_alloc(m, n, &b->off))
                return TIGRIS_EXEC_ERR_OOM;
            emit(m, TIGRIS_TRACE_ALLOC, TIGRIS_POOL_FAST, b->tensor, (uint16_t)TIGRIS_NONE16, b->off, 0,
                 n, -1, -1);
        }
    }
    for (uint32_t t = 0; t < ntiles; t++) {
        int32_t o0 = (int32_t)(t * tile_h), o1 = o0 + (int32_t)tile_h > H ? H : o0 + (int32_t)tile_h;
        band_rows(x, o0, o1, lb);
        band_t *b0 = &x->band[0];
        emit(m, TIGRIS_TRACE_TILE_BEGIN, TIGRIS_POOL_NONE, in_t, (uint16_t)t, 0, 0, 0,
             b0->skip ? b0->hi : b0->need0, b0->skip ? b0->hi : b0->need1);
        x->st->total_tiles++;
        for (uint32_t k = 0; k < nb; k++) {
            band_t *b = &x->band[k];
            if (b->skip)
                continue;
            if (lb) {
                if (k < mlast && (rc = roll_band(x, k)))
                    return rc;
                if (k == mlast) {
                    b->base = b->new0;
                    b->rows = 0;
                }
            } else {
                /* a fresh band for this tile's rows */
                b->cap = b->need1 - b->need0;
                b->base = b->need0;
                b->rows = 0;
                uint32_t n = (uint32_t)(b->cap * b->rb);
                if (fast_alloc(m, n, &b->off))
                    return TIGRIS_EXEC_ERR_OOM;
                emit(m, TIGRIS_TRACE_ALLOC, TIGRIS_POOL_FAST, b->tensor, (uint16_t)TIGRIS_NONE16,
                     b->off, 0, n, b->need0, b->need1);
            }
            if (k == 0) {
                int32_t n = b->need1 - b->new0;
                if (n > 0) {
                    uint32_t dst = b->off + (uint32_t)((b->new0 - b->base) * b->rb);
                    uint32_t src = x->home[in_t] - 1u + (uint32_t)(b->new0 * b->rb);
                    uint32_t bytes = (uint32_t)(n * b->rb);
                    if (b->rows + n > b->cap)
                        return TIGRIS_ERR_BAD_STAGE;
                    memcpy(m->fast_base + dst, m->slow_base + src, bytes);
                    x->st->loads_bytes += bytes;
                    emit(m, TIGRIS_TRACE_LOAD, TIGRIS_POOL_FAST, in_t, (uint16_t)TIGRIS_NONE16, dst, src,
                         bytes, b->new0, b->need1);
                    b->rows += n;
                    b->hi = b->need1;
                }
            } else if ((rc = run_band_op(x, k))) {
                return rc;
            }
        }
        band_t *bo = &x->band[mlast];
        uint32_t bytes = (uint32_t)((o1 - o0) * bo->rb);
        uint32_t dst = x->home[out_t] - 1u + (uint32_t)(o0 * bo->rb);
        memcpy(m->slow_base + dst, m->fast_base + bo->off, bytes);
        x->st->spills_bytes += bytes;
        emit(m, TIGRIS_TRACE_SPILL, TIGRIS_POOL_SLOW, out_t, (uint16_t)TIGRIS_NONE16, dst, bo->off, bytes,
             o0, o1);
        if (!lb)
            fast_reset(m);
    }
    if (lb)
        fast_reset(m);
    end_stage(x);
    return TIGRIS_OK;
}

static int run_plan(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel, void *user_ctx,
                    tigris_exec_stats_t *stats, void *ws, size_t ws_size)
{
    if (!plan || !plan->base || !mem || !kernel || !ws || ws_size < sizeof(exec_t) ||
        ((uintptr_t)ws & 7u) != 0 || mem->num_tensors < plan->num_tensors)
        return TIGRIS_EXEC_ERR_ARGS;
    exec_t *x = ws;
    tigris_exec_stats_t local;
    memset(x, 0, sizeof *x);
    x->plan = plan;
    x->mem = mem;
    x->kernel = kernel;
    x->user = user_ctx;
    x->st = stats ? stats : &local;
    memset(x->st, 0, sizeof *x->st);
    /* where the caller put the model inputs: the slow pool */
    for (uint16_t t = 0; t < plan->num_tensors; t++) {
        uint8_t *q = mem->tensor_ptrs[t];
        if (q && q >= mem->slow_base && q < mem->slow_base + mem->slow_used)
            x->home[t] = (uint32_t)(q - mem->slow_base) + 1u;
        else if (q)
            return TIGRIS_EXEC_ERR_INPUT;
    }
    for (uint32_t i = 0; i < plan->num_model_inputs; i++)
        if (!x->home[tigris_plan_model_input(plan, i)])
            return TIGRIS_EXEC_ERR_INPUT;

    int rc = TIGRIS_OK;
    for (uint16_t s = 0; rc == TIGRIS_OK && s < plan->num_stages;) {
        const tigris_stage_t *st = &plan->stages[s];
        if (st->chain_id != TIGRIS_NONE16) {
            uint16_t n = st->chain_len;
            if (st->chain_id != s || st->chain_tile_h == 0)
                return TIGRIS_ERR_BAD_STAGE;
            for (uint16_t j = 1; j < n; j++)
                if (plan->stages[s + j].chain_id != s)
                    return TIGRIS_ERR_BAD_STAGE;
            rc = run_banded(x, s, n, st->chain_tile_h, (st->flags & TIGRIS_STAGE_FLAG_LINE_BUFFERED) != 0,
                            TIGRIS_PATH_CHAIN, 0);
            x->st->stages_chain += n;
            s = (uint16_t)(s + n);
        } else if (st->tile_plan_idx != TIGRIS_NONE16 && plan->tile_plans[st->tile_plan_idx].tileable) {
            const tigris_tile_plan_t *tp = &plan->tile_plans[st->tile_plan_idx];
            if (tp->axis != TIGRIS_TILE_AXIS_HEIGHT || tp->tile_height == 0)
                return TIGRIS_ERR_BAD_STAGE;      /* only 1D height tiles here */
            rc = run_banded(x, s, 1, tp->tile_height, 0, TIGRIS_PATH_TILED, tp->num_tiles);
            x->st->stages_tiled++;
            s++;
        } else {
            rc = run_normal(x, s);
            s++;
        }
    }
    x->st->slow_peak = mem->slow_peak;
    mem->tile.active = 0;
    if (rc != TIGRIS_OK)
        mem->cur_stage = (uint16_t)TIGRIS_NONE16;
    return rc;
}

#ifdef TIGRIS_SCHEMA_1
int tigris_run(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel, void *user_ctx,
               tigris_exec_stats_t *stats)
{
    static uint64_t workspace[TIGRIS_EXECUTOR_WORKSPACE_BYTES / 8u];
    return run_plan(plan, mem, kernel, user_ctx, stats, workspace, sizeof workspace);
}
#else
int tigris_run_with_workspace_buffer(const tigris_plan_t *plan, tigris_mem_t *mem,
                                     tigris_kernel_fn kernel, void *user_ctx,
                                     tigris_exec_stats_t *stats, void *ws, size_t ws_size)
{
    return run_plan(plan, mem, kernel, user_ctx, stats, ws, ws_size);
}
#endif
