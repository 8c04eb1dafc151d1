/*
 * tigris_rt.h: a small TiGrIS-compatible runtime for the reference firmware of tigris-sim.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Our own code.  It has the names and signatures of the TiGrIS runtime entry points a profiler
 * hooks (tigris_plan_load, tigris_mem_init, tigris_mem_set_trace,
 * tigris_run_with_workspace_buffer), reads real .tgrs plans (schema 9; the subset described in
 * firmware/tigris/README.md) and emits the 48-byte trace events of the TiGrIS trace ABI
 * (the TiGrIS runtime's documented trace sink and executor).  C99 plus GCC's packed attribute; the
 * _Static_asserts need C11 (every build here uses gnu11/c11).
 */
#ifndef TIGRIS_RT_H
#define TIGRIS_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* -DTIGRIS_SCHEMA_1: the generation of the public tigris-runtime (raws-labs/tigris-runtime,
 * include/tigris.h, tigris_mem.h, tigris_executor.h): schema-1 plans (32-byte ops, one-byte pads and
 * dilations, tile axis 0 = height, no stage flags), the entry point tigris_run(plan, mem, kernel,
 * user_ctx, stats), tigris_mem_t in that runtime's field order, tigris_mem_alloc_slow returning an
 * error code, and no trace API. */
#ifdef TIGRIS_SCHEMA_1
#ifndef TIGRIS_NO_TRACE
#define TIGRIS_NO_TRACE
#endif
#endif

#define TIGRIS_TENSOR_ALIGN 16u          /* bump allocations in both pools, bytes */
#ifdef TIGRIS_SCHEMA_1
#define TIGRIS_SCHEMA_MIN 1u
#define TIGRIS_SCHEMA_MAX 1u
#else
#define TIGRIS_SCHEMA_MIN 5u             /* stage table authoritative, 24-byte tile plans */
#define TIGRIS_SCHEMA_MAX 9u
#endif

/* build limits: the loader refuses bigger plans */
#define TIGRIS_MAX_TENSORS 32u
#define TIGRIS_MAX_BAND_OPS 16u          /* ops of one tiled stage or one chain */

/* ------------------------------------------------------------------------- errors */
enum {
    TIGRIS_OK = 0,
    TIGRIS_ERR_NULL = -1,        /* null argument */
    TIGRIS_ERR_TOO_SMALL = -2,   /* buffer shorter than the header */
    TIGRIS_ERR_BAD_MAGIC = -3,
    TIGRIS_ERR_BAD_VERSION = -4, /* schema outside TIGRIS_SCHEMA_MIN..MAX */
    TIGRIS_ERR_BAD_SIZE = -5,    /* file_size != buffer length */
    TIGRIS_ERR_BAD_SECTION = -6, /* directory entry or table outside the file */
    TIGRIS_ERR_MISSING_SEC = -7, /* required section absent */
    TIGRIS_ERR_LIMITS = -9,      /* plan exceeds the build limits above */
    TIGRIS_ERR_BAD_TENSOR = -10, /* tensor record not executable here */
    TIGRIS_ERR_BAD_OPERATOR = -11,
    TIGRIS_ERR_BAD_STAGE = -12,  /* stage / chain / tile plan inconsistent */
    TIGRIS_EXEC_ERR_ARGS = -20,  /* bad run arguments, workspace too small */
    TIGRIS_EXEC_ERR_OOM = -21,   /* fast or slow pool exhausted */
    TIGRIS_EXEC_ERR_INPUT = -22, /* a model input is not in the slow pool */
    TIGRIS_EXEC_ERR_KERNEL = -23 /* the kernel callback failed */
};

/* ------------------------------------------------------------------------- plan records
 * Packed, little-endian, as in the file (the .tgrs plan layout tigris-ml 0.12.1 writes). */
#define TIGRIS_PACKED __attribute__((packed))

typedef struct TIGRIS_PACKED {
    uint8_t magic[4];
    uint32_t version;
    uint32_t file_size;
    uint32_t section_dir_off;
    uint16_t num_tensors;
    uint16_t num_ops;
    uint16_t num_stages;
    uint16_t num_tile_plans;
    uint32_t budget;
    uint32_t peak;
    uint32_t model_name_str;
    uint16_t model_io_off;
    uint8_t num_model_inputs;
    uint8_t num_model_outputs;
    uint16_t num_weights;
    uint16_t num_quant_params;
    uint32_t flags;
} tigris_file_header_t;

typedef struct TIGRIS_PACKED {
    uint32_t name_str;
    uint32_t size_bytes;
    uint16_t shape_off;
    uint8_t ndim;
    uint8_t dtype;
    uint8_t flags;
    uint16_t quant_param_idx;
    uint8_t iface_dtype;
} tigris_tensor_t;

typedef struct TIGRIS_PACKED {
    uint32_t name_str;
    uint8_t op_type;
    uint8_t num_inputs;
    uint8_t num_outputs;
    uint8_t stage_hint;
    uint16_t inputs_off;
    uint16_t outputs_off;
    uint8_t kernel_h, kernel_w, stride_h, stride_w;
#ifdef TIGRIS_SCHEMA_1
    uint8_t pad_top, pad_bottom, pad_left, pad_right;
    uint8_t dilation_h, dilation_w;
#else
    uint16_t pad_top, pad_bottom, pad_left, pad_right;
    uint16_t dilation_h, dilation_w;
#endif
    uint16_t group;
    uint16_t weight_idx;
    uint16_t bias_idx;
    uint8_t fused_act;
    int8_t act_min;
    int8_t act_max;
    uint8_t pad_;
} tigris_op_t;

typedef struct TIGRIS_PACKED {
    uint32_t peak_bytes;
    uint16_t ops_off, ops_count;
    uint16_t inputs_off, inputs_count;
    uint16_t outputs_off, outputs_count;
    uint16_t tile_plan_idx;
    uint16_t pad_;
    uint16_t chain_id;
    uint16_t chain_len;
    uint16_t chain_tile_h;
    uint16_t flags;
} tigris_stage_t;

typedef struct TIGRIS_PACKED {
    uint8_t tileable;
    uint8_t axis;
    uint16_t tile_height;
    uint16_t num_tiles;
    uint16_t halo;
    uint16_t receptive_field;
    uint16_t original_height;
    uint32_t tiled_peak_bytes;
    uint32_t overhead_bytes;
    uint16_t tile_width;
    uint16_t flags;
} tigris_tile_plan_t;

typedef struct TIGRIS_PACKED {
    uint32_t name_str;
    uint32_t offset;
    uint32_t size_bytes;
} tigris_weight_entry_t;

_Static_assert(sizeof(tigris_file_header_t) == 48, "tgrs header");
_Static_assert(sizeof(tigris_tensor_t) == 16, "tgrs tensor");
#ifdef TIGRIS_SCHEMA_1
_Static_assert(sizeof(tigris_op_t) == 32, "tgrs op (schema 1)");
#else
_Static_assert(sizeof(tigris_op_t) == 38, "tgrs op");
#endif
_Static_assert(sizeof(tigris_stage_t) == 28, "tgrs stage");
_Static_assert(sizeof(tigris_tile_plan_t) == 24, "tgrs tile plan (schema <= 9)");
_Static_assert(sizeof(tigris_weight_entry_t) == 12, "tgrs weight entry");

#define TIGRIS_OP_CONV 1
#define TIGRIS_OP_MAX_POOL 5
#define TIGRIS_ACT_NONE 0
#define TIGRIS_ACT_RELU 1
#define TIGRIS_DTYPE_INT8 3
#define TIGRIS_NONE16 0xFFFFu
#define TIGRIS_TENSOR_MODEL_INPUT 0x02u
#define TIGRIS_TENSOR_MODEL_OUTPUT 0x04u
#ifdef TIGRIS_SCHEMA_1
#define TIGRIS_TILE_AXIS_HEIGHT 0u       /* schemas 1-4 write 0 for the height axis */
#else
#define TIGRIS_TILE_AXIS_HEIGHT 1u
#endif
#define TIGRIS_STAGE_FLAG_LINE_BUFFERED 0x0001u

/* A loaded plan: pointers into the caller's buffer (zero copy; keep the buffer alive). */
typedef struct {
    const uint8_t *base;
    uint32_t size;
    uint32_t version;
    const tigris_file_header_t *header;
    const tigris_tensor_t *tensors;
    const tigris_op_t *ops;
    const tigris_stage_t *stages;
    const tigris_tile_plan_t *tile_plans;
    const uint8_t *index_pool;           /* uint16 elements (read with tigris_plan_index) */
    const uint8_t *shape_pool;           /* int32 elements (tigris_plan_dim) */
    const char *strings;
    const tigris_weight_entry_t *weights;
    const uint8_t *weight_blob;
    uint32_t index_count, shape_count, strings_size, weight_blob_size;
    uint16_t num_tensors, num_ops, num_stages, num_tile_plans, num_weights;
    uint16_t model_io_off;
    uint8_t num_model_inputs, num_model_outputs;
    uint32_t budget;
} tigris_plan_t;

/* ------------------------------------------------------------------------- trace ABI */
enum {
    TIGRIS_TRACE_STAGE_BEGIN = 1,
    TIGRIS_TRACE_STAGE_END = 2,
    TIGRIS_TRACE_TILE_BEGIN = 3,
    TIGRIS_TRACE_LOAD = 4,
    TIGRIS_TRACE_SPILL = 5,
    TIGRIS_TRACE_ALLOC = 6,
    TIGRIS_TRACE_RESET = 7,
    TIGRIS_TRACE_MOVE = 8,
    TIGRIS_TRACE_WEIGHTS = 9,
    TIGRIS_TRACE_OP = 10,
    TIGRIS_TRACE_COPY = 11
};
#define TIGRIS_TRACE_KINDS 11

enum {
    TIGRIS_PATH_NORMAL = 0,
    TIGRIS_PATH_TILED = 1,
    TIGRIS_PATH_TILED_2D = 2,
    TIGRIS_PATH_BY_INPUT = 3,
    TIGRIS_PATH_TRANSPOSE = 4,
    TIGRIS_PATH_ROWS = 5,
    TIGRIS_PATH_RESHAPE = 6,
    TIGRIS_PATH_CHAIN = 7,
    TIGRIS_PATH_CONTROL = 8
};

#define TIGRIS_POOL_FAST 0u
#define TIGRIS_POOL_SLOW 1u
#define TIGRIS_POOL_NONE 0xFFu

typedef struct {
    uint8_t kind;        /*  0 TIGRIS_TRACE_* */
    uint8_t pool;        /*  1 destination pool: 0 fast, 1 slow, 0xFF none */
    uint8_t path;        /*  2 TIGRIS_PATH_* of the current stage */
    uint8_t pad0;        /*  3 */
    uint16_t stage;      /*  4 stage index (chain: its head), 0xFFFF outside stages */
    uint16_t tensor;     /*  6 tensor index, 0xFFFF none */
    uint16_t op;         /*  8 op index (OP), tile index (TILE_BEGIN), else 0xFFFF */
    uint16_t pad1;       /* 10 */
    uint32_t offset;     /* 12 destination byte offset in its pool */
    uint32_t src_offset; /* 16 source byte offset (LOAD: slow, SPILL: fast, MOVE: fast) */
    uint32_t bytes;      /* 20 bytes moved / allocated / released */
    int32_t row0;        /* 24 rows [row0, row1) of the tensor, -1 = whole */
    int32_t row1;        /* 28 */
    int32_t col0;        /* 32 columns: always -1 (no 2D tiles here) */
    int32_t col1;        /* 36 */
    uint32_t fast_used;  /* 40 fast pool occupancy after the event */
    uint32_t slow_used;  /* 44 slow pool occupancy after the event */
} tigris_trace_event_t;

_Static_assert(sizeof(tigris_trace_event_t) == 48, "trace event size");
_Static_assert(offsetof(tigris_trace_event_t, kind) == 0, "kind");
_Static_assert(offsetof(tigris_trace_event_t, pool) == 1, "pool");
_Static_assert(offsetof(tigris_trace_event_t, path) == 2, "path");
_Static_assert(offsetof(tigris_trace_event_t, stage) == 4, "stage");
_Static_assert(offsetof(tigris_trace_event_t, tensor) == 6, "tensor");
_Static_assert(offsetof(tigris_trace_event_t, op) == 8, "op");
_Static_assert(offsetof(tigris_trace_event_t, offset) == 12, "offset");
_Static_assert(offsetof(tigris_trace_event_t, src_offset) == 16, "src_offset");
_Static_assert(offsetof(tigris_trace_event_t, bytes) == 20, "bytes");
_Static_assert(offsetof(tigris_trace_event_t, row0) == 24, "row0");
_Static_assert(offsetof(tigris_trace_event_t, row1) == 28, "row1");
_Static_assert(offsetof(tigris_trace_event_t, col0) == 32, "col0");
_Static_assert(offsetof(tigris_trace_event_t, col1) == 36, "col1");
_Static_assert(offsetof(tigris_trace_event_t, fast_used) == 40, "fast_used");
_Static_assert(offsetof(tigris_trace_event_t, slow_used) == 44, "slow_used");

typedef void (*tigris_trace_fn)(const tigris_trace_event_t *event, void *ctx);

/* ------------------------------------------------------------------------- memory */
/* Geometry of the current kernel call, set by the executor before every call.  Rows are tensor
 * rows (height axis of NHWC); the buffers hold contiguous row ranges. */
typedef struct {
    int32_t active;      /* 1: banded call (tiled stage or chain), 0: whole tensors */
    int32_t in_row0;     /* tensor row at the start of the input buffer */
    int32_t in_rows;     /* rows the input buffer holds */
    int32_t out_row0;    /* tensor row at the start of the output buffer */
    int32_t out_start;   /* rows to compute: [out_start, out_end) */
    int32_t out_end;
} tigris_tile_ctx_t;

#ifdef TIGRIS_SCHEMA_1
/* The public runtime's field order (tigris-runtime include/tigris_mem.h) up to slow_used, then what
 * this executor keeps besides. */
typedef struct {
    void **tensor_ptrs;          /* one per tensor: where it lives now, or NULL */
    uint16_t num_tensors;
    uint8_t *fast_base;
    uint32_t fast_size;
    uint32_t fast_used;
    uint32_t fast_reserved;      /* prefix that survives resets (no weight blocks here: 0) */
    uint32_t fast_peak;
    uint8_t *slow_base;
    uint32_t slow_size;
    uint32_t slow_used;
    uint32_t slow_peak;
    uint16_t cur_stage;          /* stage being run (chain: head), 0xFFFF outside */
    uint8_t cur_path;            /* TIGRIS_PATH_* of cur_stage */
    uint8_t pad_;
    tigris_tile_ctx_t tile;
} tigris_mem_t;

#if UINTPTR_MAX == 0xFFFFFFFFu
_Static_assert(offsetof(tigris_mem_t, fast_base) == 8, "mem.fast_base");
_Static_assert(offsetof(tigris_mem_t, fast_used) == 16, "mem.fast_used");
_Static_assert(offsetof(tigris_mem_t, slow_base) == 28, "mem.slow_base");
_Static_assert(offsetof(tigris_mem_t, slow_used) == 36, "mem.slow_used");
#endif
#else
typedef struct {
    uint8_t *fast_base;
    uint32_t fast_size;
    uint32_t fast_used;
    uint32_t fast_peak;
    uint32_t fast_reserved;      /* prefix that survives resets (no weight blocks here: 0) */
    uint8_t *slow_base;
    uint32_t slow_size;
    uint32_t slow_used;
    uint32_t slow_peak;
    void **tensor_ptrs;          /* one per tensor: where it lives now, or NULL */
    uint16_t num_tensors;
    uint16_t cur_stage;          /* stage being run (chain: head), 0xFFFF outside */
    uint8_t cur_path;            /* TIGRIS_PATH_* of cur_stage */
    uint8_t pad_[3];
    tigris_trace_fn trace_fn;
    void *trace_ctx;
    tigris_tile_ctx_t tile;
} tigris_mem_t;

#if UINTPTR_MAX == 0xFFFFFFFFu
/* 32-bit targets (every firmware build): the layout firmware/tigris/README.md documents */
_Static_assert(offsetof(tigris_mem_t, fast_used) == 8, "mem.fast_used");
_Static_assert(offsetof(tigris_mem_t, slow_base) == 20, "mem.slow_base");
_Static_assert(offsetof(tigris_mem_t, slow_used) == 28, "mem.slow_used");
_Static_assert(offsetof(tigris_mem_t, tensor_ptrs) == 36, "mem.tensor_ptrs");
_Static_assert(offsetof(tigris_mem_t, cur_stage) == 42, "mem.cur_stage");
_Static_assert(offsetof(tigris_mem_t, trace_fn) == 48, "mem.trace_fn");
_Static_assert(offsetof(tigris_mem_t, trace_ctx) == 52, "mem.trace_ctx");
_Static_assert(offsetof(tigris_mem_t, tile) == 56, "mem.tile");
_Static_assert(sizeof(tigris_mem_t) == 80, "mem size");
#endif
#endif /* TIGRIS_SCHEMA_1 */

/* ------------------------------------------------------------------------- executor */
typedef struct {
    uint32_t stages_normal;      /* stages run on the normal path */
    uint32_t stages_tiled;       /* stages run 1D tiled */
    uint32_t stages_chain;       /* stages run inside chains (members, not chains) */
    uint32_t total_tiles;        /* = number of TILE_BEGIN events */
    uint32_t slow_overflow_count;
    uint32_t slow_overflow_bytes;
    uint32_t loads_bytes;        /* slow -> fast, = sum of LOAD bytes */
    uint32_t spills_bytes;       /* fast -> slow, = sum of SPILL bytes */
    uint32_t compactions;
    uint32_t slow_peak;          /* = mem->slow_peak at the end of the run */
    uint32_t weight_bytes;       /* decompressed weight blocks (none here) */
    uint32_t copy_bytes;         /* state / control-flow copies (none here) */
} tigris_exec_stats_t;

_Static_assert(sizeof(tigris_exec_stats_t) == 48, "stats size");

typedef int (*tigris_kernel_fn)(const tigris_plan_t *plan, const tigris_op_t *op,
                                uint16_t op_index, tigris_mem_t *mem, void *user_ctx);

/* Executor workspace needed by tigris_run_with_workspace_buffer (any plan within the limits). */
#define TIGRIS_EXECUTOR_WORKSPACE_BYTES 1536u

/* ------------------------------------------------------------------------- API */
int tigris_plan_load(const void *buf, size_t len, tigris_plan_t *plan);
void tigris_mem_init(tigris_mem_t *mem, void **tensor_ptrs, uint16_t num_tensors, void *fast_buf,
                     size_t fast_size, void *slow_buf, size_t slow_size);
#ifndef TIGRIS_NO_TRACE
/* Built with -DTIGRIS_NO_TRACE the runtime has no trace API, like the public tigris-runtime: a
 * profiler then derives the breakdown from the executor's calls (docs/tigris.md, "Without trace events"). */
void tigris_mem_set_trace(tigris_mem_t *mem, tigris_trace_fn fn, void *ctx);
#endif
#ifdef TIGRIS_SCHEMA_1
/* Place a model input (or any tensor) in the slow pool and set tensor_ptrs[tensor]: 0 or an error. */
int tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor, uint32_t bytes);
/* One inference; the executor's workspace is the runtime's own. */
int tigris_run(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel, void *user_ctx,
               tigris_exec_stats_t *stats);
#else
/* Place a model input (or any tensor) in the slow pool: ALLOC event, tensor_ptrs[tensor] set. */
void *tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor, size_t bytes);
int tigris_run_with_workspace_buffer(const tigris_plan_t *plan, tigris_mem_t *mem,
                                     tigris_kernel_fn kernel, void *user_ctx,
                                     tigris_exec_stats_t *stats, void *ws, size_t ws_size);
#endif
/* Every event goes through here (fills stage, path and occupancy from mem, calls the sink). */
#ifndef TIGRIS_NO_TRACE
void tigris_trace_emit(tigris_mem_t *mem, tigris_trace_event_t *event);
#endif

/* plan accessors (bounds were checked by the loader) */
uint16_t tigris_plan_index(const tigris_plan_t *plan, uint32_t element);
int32_t tigris_plan_dim(const tigris_plan_t *plan, uint16_t tensor, uint32_t axis);
const char *tigris_plan_string(const tigris_plan_t *plan, uint32_t offset);
const void *tigris_plan_weight(const tigris_plan_t *plan, uint16_t weight_idx, uint32_t *size);
uint16_t tigris_plan_model_input(const tigris_plan_t *plan, uint32_t k);
uint16_t tigris_plan_model_output(const tigris_plan_t *plan, uint32_t k);

/* The reference int8 kernels (tigris_kernels.c): Conv (+ReLU) and MaxPool, NHWC; the dispatcher
 * is a tigris_kernel_fn. */
int tigris_conv2d_s8(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem);
int tigris_maxpool2d_s8(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem);
int tigris_ref_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                      tigris_mem_t *mem, void *user_ctx);

#ifdef __cplusplus
}
#endif
#endif
