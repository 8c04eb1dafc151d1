//! The format's constants and code tables: magic, schema range and milestones, record sizes, flags,
//! op-type names, attribute kinds and ONNX data-type names.
//!
//! Sources: tigris-ml 0.12.1 `tigris/emitters/binary/` (writer.py, reader.py, defs.py: struct formats,
//! flags) and tigris-runtime include/tigris.h (header, record layouts), checked against
//! `tigris/schema/tigris-plan-v10.json` of the tigris-ml 0.12.1 package (op-type codes, attribute kinds,
//! record sizes). Schema 1: tigris-ml 0.3.1 (the last release writing it; 0.3.0 writes the same)
//! `tigris/emitters/binary/defs.py` and `writer.py` (`_pack_spatial_attrs`, `_build_ops`,
//! `_build_quant_params`), and raws-labs/tigris-runtime `include/tigris.h` at commit 555e105
//! (`TIGRIS_SCHEMA_VERSION 1`, `tigris_op_t` of 32 bytes with `tigris_spatial_attrs_t` of 12).

use super::model::Op;

/// `TGRS` at offset 0.
pub(super) const MAGIC: [u8; 4] = *b"TGRS";
/// Oldest and newest schema this reader knows: 1 (tigris-ml 0.3, the public tigris-runtime) and 2 to
/// 10 (what the runtime 0.12 accepts).
pub(crate) const MIN_SCHEMA: u32 = 1;
pub(crate) const MAX_SCHEMA: u32 = 10;

pub(super) const HEADER_SIZE: u64 = 48;
pub(super) const DIR_ENTRY_SIZE: u64 = 8;
pub(super) const TENSOR_SIZE: u64 = 16;
pub(super) const OP_SIZE: u64 = 38;
/// Schema 1 ops: 32 bytes, the spatial block's pads and dilations one byte each.
pub(super) const OP_SIZE_V1: u64 = 32;
pub(super) const STAGE_SIZE: u64 = 28;
pub(super) const TILE_PLAN_SIZE_V9: u64 = 24;
pub(super) const TILE_PLAN_SIZE_V10: u64 = 32;
pub(super) const WEIGHT_ENTRY_SIZE: u64 = 12;
pub(super) const QUANT_PARAM_SIZE: u64 = 16;
pub(super) const WEIGHT_BLOCK_SIZE: u64 = 20;
pub(super) const OP_ATTRIBUTE_SIZE: u64 = 8;
pub(super) const STATE_ENTRY_SIZE: u64 = 16;
pub(super) const SUBGRAPH_ENTRY_SIZE: u64 = 12;

/// "No index" in u16 reference fields (weight, bias, quant param, tile plan, chain head, state output).
pub(super) const NONE16: u16 = 0xFFFF;

/// Schema from which ops are 38 bytes with u16 pads and dilations (schema 1: 32 bytes, u8).
pub(super) const SCHEMA_WIDE_SPATIAL: u32 = 2;
/// Schema from which per-channel quant arrays are addressed by page (schemas 1 and 2: a pad field).
pub(super) const SCHEMA_QUANT_PAGES: u32 = 3;
/// Schema from which the stage record's last u16 holds flags (schema 1: reserved, written 0).
pub(super) const SCHEMA_STAGE_FLAGS: u32 = 2;
/// Schema where the tile-plan axis byte became meaningful (v1-v4 wrote 0 for "height").
pub(super) const SCHEMA_TILE_AXIS: u32 = 5;
/// Schema from which the stage table, not the op's stage byte, assigns ops to stages.
pub(super) const SCHEMA_STAGE_TABLE: u32 = 5;
/// Schema from which a tensor's `iface_dtype` byte is meaningful.
pub(super) const SCHEMA_IFACE_DTYPE: u32 = 6;
/// Schema from which tensors say whether they are channels-last or in model order.
pub(super) const SCHEMA_LAYOUT: u32 = 7;
/// Schema with 32-byte tile plans, state and subgraphs.
pub(super) const SCHEMA_V10: u32 = 10;

/// Header flag: weights are read in place from flash (XIP).
pub(super) const FLAG_XIP: u32 = 0x01;
/// Tensor flags (tigris-ml 0.12.1 emitters/binary/defs.py; tigris-runtime include/tigris.h).
pub(super) const TENSOR_CONSTANT: u8 = 0x01;
pub(super) const TENSOR_MODEL_INPUT: u8 = 0x02;
pub(super) const TENSOR_MODEL_OUTPUT: u8 = 0x04;
pub(super) const TENSOR_LINEAR: u8 = 0x08;
pub(super) const TENSOR_STATE: u8 = 0x10;
/// Stage flag on a chain head: overlap rows are kept in a line buffer instead of recomputed.
pub(super) const STAGE_LINE_BUFFERED: u16 = 0x01;
/// Tile-plan flag (schema 9+): a layout conversion's band runs along the columns.
pub(super) const TILE_BAND_ON_COLUMNS: u16 = 0x01;

/// Op-type names by code, from `op_types` in tigris-ml 0.12.1 `tigris/schema/tigris-plan-v10.json`
/// (92 entries, codes 1 to 92, stable across the v4-v10 schema files). Index = code.
pub(super) const OP_TYPES: [&str; 93] = [
    "",                      // 0: not used
    "Conv",                  // 1
    "DepthwiseConv",         // 2
    "Relu",                  // 3
    "Relu6",                 // 4
    "MaxPool",               // 5
    "AveragePool",           // 6
    "Add",                   // 7
    "Mul",                   // 8
    "Gemm",                  // 9
    "Softmax",               // 10
    "Clip",                  // 11
    "Sigmoid",               // 12
    "Concat",                // 13
    "Pad",                   // 14
    "GlobalAveragePool",     // 15
    "Flatten",               // 16
    "Reshape",               // 17
    "Sub",                   // 18
    "Div",                   // 19
    "Tanh",                  // 20
    "LeakyRelu",             // 21
    "BatchNormalization",    // 22
    "InstanceNormalization", // 23
    "ConvTranspose",         // 24
    "MatMul",                // 25
    "ReduceMean",            // 26
    "Squeeze",               // 27
    "Unsqueeze",             // 28
    "Transpose",             // 29
    "Resize",                // 30
    "GlobalMaxPool",         // 31
    "Conv1D",                // 32
    "LayerNormalization",    // 33
    "Erf",                   // 34
    "Split",                 // 35
    "ResizeLinear",          // 36
    "HardSwish",             // 37
    "Abs",                   // 38
    "Rsqrt",                 // 39
    "SquaredDifference",     // 40
    "Max",                   // 41
    "Min",                   // 42
    "Neg",                   // 43
    "Exp",                   // 44
    "Log",                   // 45
    "Sqrt",                  // 46
    "Square",                // 47
    "Floor",                 // 48
    "Ceil",                  // 49
    "Round",                 // 50
    "Sin",                   // 51
    "Cos",                   // 52
    "FloorDiv",              // 53
    "FloorMod",              // 54
    "PRelu",                 // 55
    "Elu",                   // 56
    "LogSoftmax",            // 57
    "L2Normalization",       // 58
    "L2Pool",                // 59
    "ReduceMax",             // 60
    "ReduceMin",             // 61
    "ReduceSum",             // 62
    "CumSum",                // 63
    "ArgMax",                // 64
    "ArgMin",                // 65
    "Gather",                // 66
    "GatherND",              // 67
    "StridedSlice",          // 68
    "MirrorPad",             // 69
    "ReverseV2",             // 70
    "EmbeddingLookup",       // 71
    "DynamicUpdateSlice",    // 72
    "Equal",                 // 73
    "Less",                  // 74
    "LessOrEqual",           // 75
    "Greater",               // 76
    "GreaterOrEqual",        // 77
    "And",                   // 78
    "Or",                    // 79
    "Not",                   // 80
    "Where",                 // 81
    "Cast",                  // 82
    "Sum",                   // 83
    "ReduceAll",             // 84
    "Svdf",                  // 85
    "Lstm",                  // 86
    "If",                    // 87
    "While",                 // 88
    "DetectionPostProcess",  // 89
    "Quantize",              // 90
    "Dequantize",            // 91
    "Gelu",                  // 92
];

/// Name of an op-type code, `unknown(N)` when the v10 schema has none.
pub(super) fn op_type_name(code: u8) -> String {
    match OP_TYPES.get(code as usize) {
        Some(name) if !name.is_empty() => (*name).to_string(),
        _ => format!("unknown({code})"),
    }
}

fn op_code(name: &str) -> u8 {
    OP_TYPES
        .iter()
        .position(|n| *n == name)
        .map_or(0, |i| i as u8)
}

/// Ops that grow the receptive field along the tile axis when a schema-10 tile plan is summarised.
pub(super) const RF_OPS: [&str; 6] = [
    "Conv",
    "Conv1D",
    "DepthwiseConv",
    "MaxPool",
    "AveragePool",
    "L2Pool",
];
/// Ops the chain executor composes into (eff_kh, stride) per member stage.
pub(super) const CHAIN_SPATIAL_OPS: [&str; 5] =
    ["Conv", "DepthwiseConv", "MaxPool", "AveragePool", "L2Pool"];

pub(super) fn op_is(op: &Op, names: &[&str]) -> bool {
    names.iter().any(|n| op_code(n) == op.op_type)
}

/// How an attribute payload is laid out, by kind code (`op_attribute_types` in the v10 schema JSON;
/// element types from the comments of `defs.py`). `None`: mixed or opaque, kept as bytes.
#[derive(Clone, Copy)]
pub(super) enum Elem {
    U8,
    U16,
    I32,
    F32,
}

pub(super) const ATTRIBUTE_KINDS: [(u8, &str, Option<Elem>); 20] = [
    (1, "transpose_perm", Some(Elem::U8)),
    (2, "epsilon", Some(Elem::F32)),
    (3, "alpha", Some(Elem::F32)),
    (4, "clip_bounds", Some(Elem::F32)),
    (5, "pads", Some(Elem::I32)),
    (6, "axes", Some(Elem::U8)),
    (7, "binary_requant", Some(Elem::I32)),
    (8, "pool_rounding", Some(Elem::U8)),
    (9, "constant_operand", Some(Elem::U8)),
    (10, "resize_scales", Some(Elem::F32)),
    (11, "cumsum_options", Some(Elem::U8)),
    (12, "movement", Some(Elem::I32)),
    (13, "comparison_requant", Some(Elem::I32)),
    (14, "constants", Some(Elem::U16)),
    (15, "svdf", None),
    (16, "lstm", None),
    (17, "subgraphs", Some(Elem::U16)),
    (18, "detection", None),
    (19, "gelu_approximate", Some(Elem::U8)),
    (20, "table_shape", Some(Elem::I32)),
];
/// Kinds whose payload size `tigris inspect` checks (and refuses when it is not a whole number of
/// elements); the reader refuses the same plans.
pub(super) const STRICT_ATTRIBUTE_KINDS: [u8; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
pub(super) const ATTR_TRANSPOSE_PERM: u8 = 1;
pub(super) const ATTR_LSTM: u8 = 16;

/// ONNX `TensorProto.DataType` names, lower case, float/double as float32/float64 (the names
/// `tigris inspect` prints). Index = code.
const DTYPES: [&str; 29] = [
    "undefined",
    "float32",
    "uint8",
    "int8",
    "uint16",
    "int16",
    "int32",
    "int64",
    "string",
    "bool",
    "float16",
    "float64",
    "uint32",
    "uint64",
    "complex64",
    "complex128",
    "bfloat16",
    "float8e4m3fn",
    "float8e4m3fnuz",
    "float8e5m2",
    "float8e5m2fnuz",
    "uint4",
    "int4",
    "float4e2m1",
    "float8e8m0",
    "uint2",
    "int2",
    "float6e2m3",
    "float6e3m2",
];

pub(super) fn dtype_name(code: u8) -> String {
    DTYPES
        .get(code as usize)
        .map_or_else(|| format!("unknown({code})"), |s| (*s).to_string())
}
