//! Reader for TiGrIS `.tgrs` execution plans, schema 2 to 10, and `tigris-sim plan inspect`.
//!
//! The format facts come from tigris-ml 0.12.1 `tigris/emitters/binary/` (writer.py, reader.py, defs.py)
//! and tigris-runtime include/tigris.h (header, section directory, record layouts, parsing checks) and
//! from tigris-ml 0.12.1 `tigris/analysis/partition_spatial.py` (planner formulas); they were checked
//! against the tigris-ml 0.12.1 package:
//! `tigris/schema/tigris-plan-v10.json` (op-type codes, attribute kinds, record sizes, tile-plan v10
//! field offsets), `tigris/emitters/binary/defs.py` (struct formats) and the behaviour of
//! `tigris inspect --json` on the package's schema-compatibility plans and on plans it compiled.
//! Nothing here is copied from tigris-ml or tigris-runtime; the code is our own.
//!
//! The parser never panics on any input: every read is bounds-checked against the section it belongs
//! to, and every failure is a [`PlanError`] that names the field, section and byte offset.

use serde_json::{json, Value};
use std::fmt::Write as _;

/// `TGRS` at offset 0.
pub const MAGIC: [u8; 4] = *b"TGRS";
/// Oldest and newest schema this reader knows (the runtime 0.12 accepts the same range).
pub const MIN_SCHEMA: u32 = 2;
pub const MAX_SCHEMA: u32 = 10;

const HEADER_SIZE: u64 = 48;
const DIR_ENTRY_SIZE: u64 = 8;
const TENSOR_SIZE: u64 = 16;
const OP_SIZE: u64 = 38;
const STAGE_SIZE: u64 = 28;
const TILE_PLAN_SIZE_V9: u64 = 24;
const TILE_PLAN_SIZE_V10: u64 = 32;
const WEIGHT_ENTRY_SIZE: u64 = 12;
const QUANT_PARAM_SIZE: u64 = 16;
const WEIGHT_BLOCK_SIZE: u64 = 20;
const OP_ATTRIBUTE_SIZE: u64 = 8;
const STATE_ENTRY_SIZE: u64 = 16;
const SUBGRAPH_ENTRY_SIZE: u64 = 12;

/// "No index" in u16 reference fields (weight, bias, quant param, tile plan, chain head, state output).
const NONE16: u16 = 0xFFFF;

/// Schema where the tile-plan axis byte became meaningful (v2-v4 wrote 0 for "height").
const SCHEMA_TILE_AXIS: u32 = 5;
/// Schema from which the stage table, not the op's stage byte, assigns ops to stages.
const SCHEMA_STAGE_TABLE: u32 = 5;
/// Schema from which a tensor's `iface_dtype` byte is meaningful.
const SCHEMA_IFACE_DTYPE: u32 = 6;
/// Schema from which tensors say whether they are channels-last or in model order.
const SCHEMA_LAYOUT: u32 = 7;
/// Schema with 32-byte tile plans, state and subgraphs.
const SCHEMA_V10: u32 = 10;

/// Header flag: weights are read in place from flash (XIP).
pub const FLAG_XIP: u32 = 0x01;
/// Tensor flags (tigris-ml 0.12.1 emitters/binary/defs.py; tigris-runtime include/tigris.h).
pub const TENSOR_CONSTANT: u8 = 0x01;
pub const TENSOR_MODEL_INPUT: u8 = 0x02;
pub const TENSOR_MODEL_OUTPUT: u8 = 0x04;
pub const TENSOR_LINEAR: u8 = 0x08;
pub const TENSOR_STATE: u8 = 0x10;
/// Stage flag on a chain head: overlap rows are kept in a line buffer instead of recomputed.
pub const STAGE_LINE_BUFFERED: u16 = 0x01;
/// Tile-plan flag (schema 9+): a layout conversion's band runs along the columns.
pub const TILE_BAND_ON_COLUMNS: u16 = 0x01;
/// The compiler's cost model aligns every allocation to 32 bytes (tigris-ml 0.12.1 emitters/codegen.py
/// `_PLAN_TENSOR_ALIGN`).
const PLANNER_ALIGN: u64 = 32;
/// The runtime's default build limits (tigris-runtime include/tigris_config.h).
const DEFAULT_LIMITS: [(&str, u32); 5] = [
    ("TIGRIS_MAX_TENSORS", 512),
    ("TIGRIS_MAX_STAGE_INPUTS", 16),
    ("TIGRIS_MAX_STAGE_OUTPUTS", 16),
    ("TIGRIS_MAX_CHAIN_STAGES", 16),
    ("TIGRIS_MAX_SPATIAL_OPS_PER_STAGE", 8),
];

/// Op-type names by code, from `op_types` in tigris-ml 0.12.1 `tigris/schema/tigris-plan-v10.json`
/// (92 entries, codes 1 to 92, stable across the v4-v10 schema files). Index = code.
const OP_TYPES: [&str; 93] = [
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
pub fn op_type_name(code: u8) -> String {
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
const RF_OPS: [&str; 6] = [
    "Conv",
    "Conv1D",
    "DepthwiseConv",
    "MaxPool",
    "AveragePool",
    "L2Pool",
];
/// Ops the chain executor composes into (eff_kh, stride) per member stage.
const CHAIN_SPATIAL_OPS: [&str; 5] = ["Conv", "DepthwiseConv", "MaxPool", "AveragePool", "L2Pool"];

fn op_is(op: &Op, names: &[&str]) -> bool {
    names.iter().any(|n| op_code(n) == op.op_type)
}

/// How an attribute payload is laid out, by kind code (`op_attribute_types` in the v10 schema JSON;
/// element types from the comments of `defs.py`). `None`: mixed or opaque, kept as bytes.
#[derive(Clone, Copy)]
enum Elem {
    U8,
    U16,
    I32,
    F32,
}

const ATTRIBUTE_KINDS: [(u8, &str, Option<Elem>); 20] = [
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
const STRICT_ATTRIBUTE_KINDS: [u8; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const ATTR_TRANSPOSE_PERM: u8 = 1;
const ATTR_LSTM: u8 = 16;

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

pub fn dtype_name(code: u8) -> String {
    DTYPES
        .get(code as usize)
        .map_or_else(|| format!("unknown({code})"), |s| (*s).to_string())
}

// ---------------------------------------------------------------------------------------------------
// Errors

/// Everything that can be wrong with a plan. Messages name the field or section and the byte offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("not a TiGrIS plan: magic at offset 0 is {found:02x?}, expected \"TGRS\"")]
    BadMagic { found: Vec<u8> },
    #[error("plan is {len} bytes, shorter than its 48-byte header")]
    TooShort { len: usize },
    #[error("unsupported schema version {version} (header offset 4); this reader knows {MIN_SCHEMA} to {MAX_SCHEMA}")]
    UnsupportedVersion { version: u32 },
    #[error("header file_size (offset 8) says {header} bytes, the plan has {actual}: truncated or padded")]
    FileSizeMismatch { header: u32, actual: usize },
    #[error("section directory offset {offset} (header offset 12) lies inside the 48-byte header")]
    DirectoryInHeader { offset: u32 },
    #[error("section directory starting at offset {offset} has no type-0 end entry before the end of the plan")]
    NoDirectoryEnd { offset: u32 },
    #[error("unknown section type {kind} in the directory entry at offset {at}")]
    UnknownSection { kind: u32, at: u64 },
    #[error("section {name} (type {kind}) listed twice; second entry at offset {at}")]
    DuplicateSection {
        name: &'static str,
        kind: u32,
        at: u64,
    },
    #[error("section {name} starts at offset {offset}, past the end of the {len}-byte plan")]
    SectionPastEnd {
        name: &'static str,
        offset: u32,
        len: usize,
    },
    #[error("section {name} starts at offset {offset}, inside the header or the section directory (which ends at {dir_end})")]
    SectionOverlapsDirectory {
        name: &'static str,
        offset: u32,
        dir_end: u64,
    },
    #[error("required section {name} (type {kind}) is missing")]
    MissingSection { name: &'static str, kind: u32 },
    #[error(
        "{what} needs bytes {start}..{end}, outside section {section} ({sec_start}..{sec_end})"
    )]
    OutOfSection {
        what: String,
        section: &'static str,
        start: u64,
        end: u64,
        sec_start: u64,
        sec_end: u64,
    },
    #[error("{what}: the string at offset {offset} of section strings has no NUL before the section ends")]
    UnterminatedString { what: String, offset: u32 },
    #[error("{what}: the string at offset {offset} of section strings is not UTF-8")]
    BadString { what: String, offset: u32 },
    #[error("{what} refers to {target} {index}, but the plan has {count}")]
    BadReference {
        what: String,
        target: &'static str,
        index: u32,
        count: usize,
    },
    #[error("{what}: {reason}")]
    Invalid { what: String, reason: String },
}

type Result<T> = std::result::Result<T, PlanError>;

fn invalid(what: impl Into<String>, reason: impl Into<String>) -> PlanError {
    PlanError::Invalid {
        what: what.into(),
        reason: reason.into(),
    }
}

// ---------------------------------------------------------------------------------------------------
// Sections and byte access

/// Section types of the directory (tigris-ml 0.12.1 emitters/binary/reader.py; `section_types` of the v10
/// schema JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Tensors = 1,
    Ops = 2,
    Stages = 3,
    TilePlans = 4,
    IndexPool = 5,
    ShapePool = 6,
    Strings = 7,
    Weights = 8,
    QuantParams = 9,
    WeightBlocks = 10,
    OpAttributes = 11,
    State = 12,
    Subgraphs = 13,
}

const SECTIONS: [Section; 13] = [
    Section::Tensors,
    Section::Ops,
    Section::Stages,
    Section::TilePlans,
    Section::IndexPool,
    Section::ShapePool,
    Section::Strings,
    Section::Weights,
    Section::QuantParams,
    Section::WeightBlocks,
    Section::OpAttributes,
    Section::State,
    Section::Subgraphs,
];

impl Section {
    fn from_code(code: u32) -> Option<Section> {
        SECTIONS.iter().copied().find(|s| *s as u32 == code)
    }
    pub fn name(self) -> &'static str {
        match self {
            Section::Tensors => "tensors",
            Section::Ops => "ops",
            Section::Stages => "stages",
            Section::TilePlans => "tile_plans",
            Section::IndexPool => "index_pool",
            Section::ShapePool => "shape_pool",
            Section::Strings => "strings",
            Section::Weights => "weights",
            Section::QuantParams => "quant_params",
            Section::WeightBlocks => "weight_blocks",
            Section::OpAttributes => "op_attributes",
            Section::State => "state",
            Section::Subgraphs => "subgraphs",
        }
    }
}

/// Where a section lies: from its directory offset to the next larger section offset, or to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionSpan {
    pub section: Section,
    pub start: u64,
    pub end: u64,
}

/// Little-endian field reader over one record that was already bounds-checked; a read past the
/// slice yields 0 instead of panicking (cannot happen for the record sizes used here).
struct Fields<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    fn new(b: &'a [u8]) -> Self {
        Fields { b, pos: 0 }
    }
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(s) = self.b.get(self.pos..self.pos + N) {
            out.copy_from_slice(s);
        }
        self.pos += N;
        out
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn i8(&mut self) -> i8 {
        self.take::<1>()[0] as i8
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    fn f32(&mut self) -> f32 {
        f32::from_le_bytes(self.take())
    }
}

struct Reader<'a> {
    data: &'a [u8],
    spans: Vec<SectionSpan>,
}

impl<'a> Reader<'a> {
    fn span(&self, s: Section) -> Option<SectionSpan> {
        self.spans.iter().copied().find(|x| x.section == s)
    }

    /// Bytes `start..start+len` of the plan, which must lie inside section `s`.
    fn bytes(
        &self,
        s: Section,
        start: u64,
        len: u64,
        what: &dyn Fn() -> String,
    ) -> Result<&'a [u8]> {
        let Some(span) = self.span(s) else {
            return Err(PlanError::MissingSection {
                name: s.name(),
                kind: s as u32,
            });
        };
        let end = start.saturating_add(len);
        if start < span.start || end > span.end {
            return Err(PlanError::OutOfSection {
                what: what(),
                section: s.name(),
                start,
                end,
                sec_start: span.start,
                sec_end: span.end,
            });
        }
        self.data
            .get(start as usize..end as usize)
            .ok_or_else(|| PlanError::OutOfSection {
                what: what(),
                section: s.name(),
                start,
                end,
                sec_start: span.start,
                sec_end: span.end,
            })
    }

    /// Record `index` of a table of `size`-byte records at the start of section `s` (or at `base`).
    fn record(
        &self,
        s: Section,
        base: u64,
        index: u64,
        size: u64,
        what: &dyn Fn() -> String,
    ) -> Result<Fields<'a>> {
        Ok(Fields::new(self.bytes(
            s,
            base + index * size,
            size,
            what,
        )?))
    }

    fn string(&self, offset: u32, what: &dyn Fn() -> String) -> Result<String> {
        let span = self
            .span(Section::Strings)
            .ok_or(PlanError::MissingSection {
                name: "strings",
                kind: 7,
            })?;
        let start = span.start + offset as u64;
        let tail = self.bytes(
            Section::Strings,
            start,
            span.end.saturating_sub(start).max(1),
            what,
        )?;
        let Some(nul) = tail.iter().position(|b| *b == 0) else {
            return Err(PlanError::UnterminatedString {
                what: what(),
                offset,
            });
        };
        String::from_utf8(tail[..nul].to_vec()).map_err(|_| PlanError::BadString {
            what: what(),
            offset,
        })
    }

    /// `count` u16 elements of the index pool from element `offset`.
    fn indices(&self, offset: u16, count: u64, what: &dyn Fn() -> String) -> Result<Vec<u16>> {
        let base = self.span(Section::IndexPool).map_or(0, |s| s.start);
        let b = self.bytes(
            Section::IndexPool,
            base + offset as u64 * 2,
            count * 2,
            what,
        )?;
        Ok(b.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    /// `ndim` i32 elements of the shape pool from element `offset`.
    fn shape(&self, offset: u16, ndim: u8, what: &dyn Fn() -> String) -> Result<Vec<i32>> {
        let base = self.span(Section::ShapePool).map_or(0, |s| s.start);
        let b = self.bytes(
            Section::ShapePool,
            base + offset as u64 * 4,
            ndim as u64 * 4,
            what,
        )?;
        Ok(b.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

// ---------------------------------------------------------------------------------------------------
// The decoded plan

/// The 48-byte header (tigris-ml 0.12.1 emitters/binary/defs.py and reader.py).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub file_size: u32,
    pub section_dir_off: u32,
    pub num_tensors: u16,
    pub num_ops: u16,
    pub num_stages: u16,
    pub num_tile_plans: u16,
    /// Fast activation budget the plan was compiled for (`-m` less any LZ4 reserve).
    pub budget: u32,
    /// Peak of the whole model run as one untiled stage.
    pub peak: u32,
    pub model_name_str: u32,
    pub model_io_off: u16,
    pub num_model_inputs: u8,
    pub num_model_outputs: u8,
    pub num_weights: u16,
    pub num_quant_params: u16,
    pub flags: u32,
}

impl Header {
    pub fn xip(&self) -> bool {
        self.flags & FLAG_XIP != 0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    pub name: String,
    pub size_bytes: u32,
    /// As stored: channels-last (NHWC, NLC) unless the linear flag says model order.
    pub shape: Vec<i32>,
    /// ONNX data-type code.
    pub dtype: u8,
    pub flags: u8,
    pub quant_param: Option<u16>,
    /// Declared boundary dtype (schema 6+), 0 = same as `dtype`.
    pub iface_dtype: u8,
}

impl Tensor {
    /// Index of the tiled (row) axis in the stored shape: H of NHWC, L of NLC, H of a model-order NCHW.
    pub fn row_axis(&self) -> Option<usize> {
        match (self.shape.len(), self.flags & TENSOR_LINEAR != 0) {
            (4, true) => Some(2),
            (3, true) => Some(1),
            (3 | 4, false) => Some(1),
            _ => None,
        }
    }
    /// Rows along the tile axis.
    pub fn rows(&self) -> Option<u32> {
        self.row_axis()
            .and_then(|a| self.shape.get(a))
            .and_then(|r| u32::try_from(*r).ok())
    }
    /// Bytes of one row along the tile axis.
    pub fn row_bytes(&self) -> Option<u64> {
        self.rows()
            .filter(|r| *r > 0)
            .map(|r| self.size_bytes as u64 / r as u64)
    }
    pub fn layout(&self, version: u32) -> &'static str {
        if version < SCHEMA_LAYOUT {
            "unspecified"
        } else if self.flags & TENSOR_LINEAR != 0 {
            "model order"
        } else {
            match self.shape.len() {
                4 => "NHWC",
                3 => "NLC",
                _ => "model order",
            }
        }
    }
    pub fn interface_dtype(&self, version: u32) -> u8 {
        if self.iface_dtype != 0 && version >= SCHEMA_IFACE_DTYPE {
            self.iface_dtype
        } else {
            self.dtype
        }
    }
    pub fn flag_names(&self) -> Vec<&'static str> {
        [
            (TENSOR_CONSTANT, "constant"),
            (TENSOR_MODEL_INPUT, "model_input"),
            (TENSOR_MODEL_OUTPUT, "model_output"),
            (TENSOR_LINEAR, "linear"),
            (TENSOR_STATE, "state"),
        ]
        .iter()
        .filter(|(bit, _)| self.flags & bit != 0)
        .map(|(_, n)| *n)
        .collect()
    }
}

/// The 18-byte spatial block of an op record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spatial {
    pub kernel_h: u8,
    pub kernel_w: u8,
    pub stride_h: u8,
    pub stride_w: u8,
    pub pad_top: u16,
    pub pad_bottom: u16,
    pub pad_left: u16,
    pub pad_right: u16,
    pub dilation_h: u16,
    pub dilation_w: u16,
    pub group: u16,
}

impl Spatial {
    /// Effective kernel height, dilation folded in: (k-1)*d + 1.
    pub fn eff_kh(&self) -> u64 {
        (self.kernel_h as u64).saturating_sub(1) * (self.dilation_h.max(1) as u64) + 1
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct OpAttribute {
    pub kind: u8,
    pub data: Vec<u8>,
}

/// A decoded attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValues {
    Ints(Vec<i64>),
    Floats(Vec<f32>),
    Bytes(Vec<u8>),
}

impl OpAttribute {
    pub fn name(&self) -> String {
        ATTRIBUTE_KINDS
            .iter()
            .find(|k| k.0 == self.kind)
            .map_or_else(|| format!("unknown({})", self.kind), |k| k.1.to_string())
    }
    fn elem(&self) -> Option<Elem> {
        ATTRIBUTE_KINDS
            .iter()
            .find(|k| k.0 == self.kind)
            .and_then(|k| k.2)
    }
    /// The payload as numbers when the kind has one element type and the length fits it, else bytes.
    pub fn values(&self) -> AttrValues {
        let d = &self.data;
        match self.elem() {
            Some(Elem::U8) => AttrValues::Ints(d.iter().map(|b| *b as i64).collect()),
            Some(Elem::U16) if d.chunks_exact(2).remainder().is_empty() => AttrValues::Ints(
                d.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]) as i64)
                    .collect(),
            ),
            Some(Elem::I32) if d.chunks_exact(4).remainder().is_empty() => AttrValues::Ints(
                d.chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64)
                    .collect(),
            ),
            Some(Elem::F32) if d.chunks_exact(4).remainder().is_empty() => AttrValues::Floats(
                d.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            _ => AttrValues::Bytes(d.clone()),
        }
    }
    fn elem_size(&self) -> usize {
        match self.elem() {
            Some(Elem::U8) | None => 1,
            Some(Elem::U16) => 2,
            Some(Elem::I32 | Elem::F32) => 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub name: String,
    /// Code of `op_types` in the v10 schema JSON; see [`op_type_name`].
    pub op_type: u8,
    pub inputs: Vec<u16>,
    pub outputs: Vec<u16>,
    /// The op record's own stage byte (authoritative before schema 5, a low-byte hint after).
    pub stage_byte: u8,
    /// The stage that runs the op: from the stage table (schema 5+), else the stage byte.
    pub stage: u16,
    pub spatial: Spatial,
    pub weight: Option<u16>,
    pub bias: Option<u16>,
    /// 0 none, 1 Relu, 2 Relu6.
    pub fused_act: u8,
    pub act_min: i8,
    pub act_max: i8,
    pub attributes: Vec<OpAttribute>,
}

impl Op {
    pub fn type_name(&self) -> String {
        op_type_name(self.op_type)
    }
    pub fn fused_activation(&self) -> String {
        match self.fused_act {
            0 => "none".into(),
            1 => "Relu".into(),
            2 => "Relu6".into(),
            n => format!("unknown({n})"),
        }
    }
    fn attribute(&self, kind: u8) -> Option<&OpAttribute> {
        self.attributes.iter().find(|a| a.kind == kind)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// Untiled peak of the stage.
    pub peak_bytes: u32,
    pub ops: Vec<u16>,
    pub inputs: Vec<u16>,
    pub outputs: Vec<u16>,
    pub tile_plan: Option<u16>,
    /// Head stage of the chain this stage belongs to.
    pub chain_id: Option<u16>,
    /// Stages in that chain (0: not chained).
    pub chain_len: u16,
    /// On the head: most output rows of the chain's last stage per tile.
    pub chain_tile_h: u16,
    pub flags: u16,
}

impl Stage {
    pub fn in_chain(&self) -> bool {
        self.chain_id.is_some() && self.chain_len >= 2
    }
}

/// Raw fields of a schema-10 tile plan (32 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TilePlanV10 {
    pub input_band_extent: u32,
    pub output_band_extent: u32,
    pub output_width_extent: u32,
    pub input_channel_group: u32,
    pub input_spatial_interval: u32,
    pub output_linear_segment: u32,
}

/// A tile plan. Schema ≤ 9 stores every field; schema 10 stores the band extents (in `v10`) and the
/// summary fields are re-derived from the stage's shapes and ops (see [`derive_v10_summary`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TilePlan {
    pub tileable: bool,
    /// 0 none, 1 height/length, 2 width (reserved), 3 height and width (2D).
    pub axis: u8,
    pub flags: u16,
    pub tile_height: u32,
    pub tile_width: u32,
    pub num_tiles: u32,
    pub halo: u32,
    pub receptive_field: u32,
    pub original_height: u32,
    pub tiled_peak_bytes: u32,
    pub overhead_bytes: u32,
    pub v10: Option<TilePlanV10>,
}

impl TilePlan {
    pub fn band_on_columns(&self) -> bool {
        self.flags & TILE_BAND_ON_COLUMNS != 0
    }
}

pub fn axis_name(axis: u8) -> &'static str {
    match axis {
        0 => "none",
        1 => "height",
        2 => "width",
        3 => "height+width",
        _ => "unknown",
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weight {
    pub name: String,
    /// Offset inside the weight blob.
    pub offset: u32,
    pub size_bytes: u32,
    /// Absolute plan offset of the blob (after the entry table).
    pub blob_base: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuantParam {
    pub scale: f32,
    pub zero_point: i32,
    pub num_channels: u16,
    pub multiplier_off: u16,
    pub shift_off: u16,
    pub page: u16,
    /// Per-channel requantisation (only when `num_channels > 1`).
    pub multipliers: Vec<i32>,
    pub shifts: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightBlock {
    pub stage: u16,
    pub first_weight: u16,
    pub num_weights: u16,
    pub blob_offset: u32,
    pub compressed_size: u32,
    pub uncompressed_size: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateEntry {
    pub input: u16,
    pub output: Option<u16>,
    pub offset: u32,
    pub size_bytes: u32,
    /// Section-relative offset of the initial value (`size_bytes` long).
    pub initial: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subgraph {
    pub first_stage: u16,
    pub num_stages: u16,
    pub inputs: Vec<u16>,
    pub outputs: Vec<u16>,
}

/// A parsed plan. Indices in every list refer to the plan's own tables and were checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub header: Header,
    pub sections: Vec<SectionSpan>,
    pub model_name: String,
    pub tensors: Vec<Tensor>,
    pub ops: Vec<Op>,
    pub stages: Vec<Stage>,
    pub tile_plans: Vec<TilePlan>,
    pub weights: Vec<Weight>,
    pub quant_params: Vec<QuantParam>,
    /// 0 none, 1 LZ4 (0 also when the plan has no weight-block section).
    pub weight_compression: u16,
    pub weight_blocks: Vec<WeightBlock>,
    pub state_bytes: u32,
    pub state: Vec<StateEntry>,
    pub subgraphs: Vec<Subgraph>,
    pub model_inputs: Vec<u16>,
    pub model_outputs: Vec<u16>,
}

// ---------------------------------------------------------------------------------------------------
// Parsing (after tigris-ml 0.12.1 emitters/binary/reader.py `read_binary_plan()` and tigris-runtime
// test/dump_plan.c)

impl Plan {
    /// Parse a whole `.tgrs` file held in memory.
    pub fn parse(data: &[u8]) -> Result<Plan> {
        // 1. Magic, version, size.
        if data.len() < 4 && MAGIC.starts_with(data) {
            return Err(PlanError::TooShort { len: data.len() });
        }
        if data.len() < 4 || data[..4] != MAGIC {
            return Err(PlanError::BadMagic {
                found: data.iter().take(4).copied().collect(),
            });
        }
        if (data.len() as u64) < HEADER_SIZE {
            return Err(PlanError::TooShort { len: data.len() });
        }
        let header = parse_header(data);
        if !(MIN_SCHEMA..=MAX_SCHEMA).contains(&header.version) {
            return Err(PlanError::UnsupportedVersion {
                version: header.version,
            });
        }
        if header.file_size as usize != data.len() {
            return Err(PlanError::FileSizeMismatch {
                header: header.file_size,
                actual: data.len(),
            });
        }
        let version = header.version;

        // 2. Section directory.
        let spans = parse_directory(data, &header)?;
        let r = Reader { data, spans };
        let mut required = vec![
            Section::Tensors,
            Section::Ops,
            Section::IndexPool,
            Section::ShapePool,
            Section::Strings,
        ];
        for (count, s) in [
            (header.num_stages, Section::Stages),
            (header.num_tile_plans, Section::TilePlans),
            (header.num_weights, Section::Weights),
            (header.num_quant_params, Section::QuantParams),
        ] {
            if count > 0 {
                required.push(s);
            }
        }
        for s in required {
            if r.span(s).is_none() {
                return Err(PlanError::MissingSection {
                    name: s.name(),
                    kind: s as u32,
                });
            }
        }

        // 3. Table bounds.
        let tile_size = if version >= SCHEMA_V10 {
            TILE_PLAN_SIZE_V10
        } else {
            TILE_PLAN_SIZE_V9
        };
        for (s, count, size, what) in [
            (
                Section::Tensors,
                header.num_tensors,
                TENSOR_SIZE,
                "tensor table",
            ),
            (Section::Ops, header.num_ops, OP_SIZE, "op table"),
            (
                Section::Stages,
                header.num_stages,
                STAGE_SIZE,
                "stage table",
            ),
            (
                Section::TilePlans,
                header.num_tile_plans,
                tile_size,
                "tile-plan table",
            ),
            (
                Section::Weights,
                header.num_weights,
                WEIGHT_ENTRY_SIZE,
                "weight entry table",
            ),
        ] {
            if count > 0 {
                let base = r.span(s).map_or(0, |x| x.start);
                let describe = || format!("{what} ({count} records of {size} bytes)");
                r.bytes(s, base, count as u64 * size, &describe)?;
            }
        }

        // 4. Records, resolved through the pools.
        let model_name = r.string(header.model_name_str, &|| {
            "header model_name_str (offset 32)".into()
        })?;
        let tensors = parse_tensors(&r, &header)?;
        let mut ops = parse_ops(&r, &header)?;
        let stages = parse_stages(&r, &header)?;
        // 5. Schema 5+: the stage table assigns ops to stages.
        if version >= SCHEMA_STAGE_TABLE {
            for (si, st) in stages.iter().enumerate() {
                for &oi in &st.ops {
                    if let Some(op) = ops.get_mut(oi as usize) {
                        op.stage = si as u16;
                    }
                }
            }
        }
        // 6. Tile plans by schema.
        let mut tile_plans = parse_tile_plans(&r, &header)?;
        let weights = parse_weights(&r, &header)?;
        let quant_params = parse_quant(&r, &header)?;
        let (weight_compression, weight_blocks) = parse_weight_blocks(&r)?;
        let attributes = parse_attributes(&r)?;
        let subgraphs = parse_subgraphs(&r)?;
        let (state_bytes, state) = parse_state(&r)?;
        // 7. Model I/O.
        let n_in = header.num_model_inputs as usize;
        let io = r.indices(
            header.model_io_off,
            n_in as u64 + header.num_model_outputs as u64,
            &|| {
                format!(
                    "model inputs/outputs (header model_io_off {} at offset 36)",
                    header.model_io_off
                )
            },
        )?;
        let (model_inputs, model_outputs) = (io[..n_in].to_vec(), io[n_in..].to_vec());

        for a in attributes {
            let n = ops.len();
            let Some(op) = ops.get_mut(a.0 as usize) else {
                return Err(PlanError::BadReference {
                    what: format!("op attribute {}", a.1),
                    target: "op",
                    index: a.0 as u32,
                    count: n,
                });
            };
            op.attributes.push(a.2);
        }

        let mut plan = Plan {
            header,
            sections: r.spans.clone(),
            model_name,
            tensors,
            ops,
            stages,
            tile_plans: Vec::new(),
            weights,
            quant_params,
            weight_compression,
            weight_blocks,
            state_bytes,
            state,
            subgraphs,
            model_inputs,
            model_outputs,
        };
        plan.validate(&tile_plans)?;
        if version >= SCHEMA_V10 {
            for st in &plan.stages {
                if let Some(tp) = st.tile_plan.and_then(|i| tile_plans.get_mut(i as usize)) {
                    derive_v10_summary(tp, st, &plan.tensors, &plan.ops);
                }
            }
        }
        plan.tile_plans = tile_plans;
        Ok(plan)
    }

    /// Cross-references: every index names an existing entry, stages partition the ops, chains are
    /// consistent (the checks `tigris inspect` makes, so both accept and refuse the same plans).
    fn validate(&self, tile_plans: &[TilePlan]) -> Result<()> {
        let nt = self.tensors.len();
        let tensor = |what: &dyn Fn() -> String, i: u16| -> Result<()> {
            if (i as usize) < nt {
                Ok(())
            } else {
                Err(PlanError::BadReference {
                    what: what(),
                    target: "tensor",
                    index: i as u32,
                    count: nt,
                })
            }
        };
        for &i in &self.model_inputs {
            tensor(&|| "model input".into(), i)?;
        }
        for &i in &self.model_outputs {
            tensor(&|| "model output".into(), i)?;
        }
        for (ti, t) in self.tensors.iter().enumerate() {
            if let Some(q) = t.quant_param {
                if q as usize >= self.quant_params.len() {
                    return Err(PlanError::BadReference {
                        what: format!("tensor {ti} quant_param_idx"),
                        target: "quant param",
                        index: q as u32,
                        count: self.quant_params.len(),
                    });
                }
            }
        }
        for (oi, op) in self.ops.iter().enumerate() {
            for &i in op.inputs.iter().chain(&op.outputs) {
                tensor(&|| format!("op {oi} ({})", op.name), i)?;
            }
            for (w, field) in [(op.weight, "weight_idx"), (op.bias, "bias_idx")] {
                if let Some(w) = w {
                    if w as usize >= self.weights.len() {
                        return Err(PlanError::BadReference {
                            what: format!("op {oi} {field}"),
                            target: "weight",
                            index: w as u32,
                            count: self.weights.len(),
                        });
                    }
                }
            }
            for a in &op.attributes {
                if STRICT_ATTRIBUTE_KINDS.contains(&a.kind)
                    && !a.data.chunks_exact(a.elem_size()).remainder().is_empty()
                {
                    return Err(invalid(
                        format!("op {oi} attribute {}", a.name()),
                        format!(
                            "{} bytes is not a whole number of {}-byte values",
                            a.data.len(),
                            a.elem_size()
                        ),
                    ));
                }
            }
        }
        let ns = self.stages.len();
        let mut owner = vec![None::<usize>; self.ops.len()];
        for (si, st) in self.stages.iter().enumerate() {
            for &oi in &st.ops {
                let Some(slot) = owner.get_mut(oi as usize) else {
                    return Err(PlanError::BadReference {
                        what: format!("stage {si} op list"),
                        target: "op",
                        index: oi as u32,
                        count: self.ops.len(),
                    });
                };
                if let Some(first) = slot {
                    return Err(invalid(
                        format!("stage {si} op list"),
                        format!("op {oi} already belongs to stage {first}"),
                    ));
                }
                *slot = Some(si);
            }
            for &i in st.inputs.iter().chain(&st.outputs) {
                tensor(&|| format!("stage {si} inputs/outputs"), i)?;
            }
            if let Some(tp) = st.tile_plan {
                if tp as usize >= tile_plans.len() {
                    return Err(PlanError::BadReference {
                        what: format!("stage {si} tile_plan_idx"),
                        target: "tile plan",
                        index: tp as u32,
                        count: tile_plans.len(),
                    });
                }
            }
            if let Some(head) = st.chain_id {
                let what = || {
                    format!(
                        "stage {si} chain (chain_id {head}, chain_len {})",
                        st.chain_len
                    )
                };
                if head as usize >= ns {
                    return Err(PlanError::BadReference {
                        what: what(),
                        target: "stage",
                        index: head as u32,
                        count: ns,
                    });
                }
                if head as usize + st.chain_len as usize > ns {
                    return Err(invalid(
                        what(),
                        format!("the chain runs past the {ns}-stage table"),
                    ));
                }
            }
            if st.chain_len > 0 {
                let what = || {
                    format!(
                        "stage {si} chain (chain_id {:?}, chain_len {})",
                        st.chain_id, st.chain_len
                    )
                };
                let Some(head) = st.chain_id else {
                    return Err(invalid(what(), "chained stage without a head"));
                };
                let head = head as usize;
                if !(head <= si && si < head + st.chain_len as usize) {
                    return Err(invalid(what(), "the stage is not inside its own chain"));
                }
                let head_len = self.stages.get(head).map_or(0, |h| h.chain_len);
                if head_len != st.chain_len {
                    return Err(invalid(
                        what(),
                        format!("the head stage {head} says chain_len {head_len}"),
                    ));
                }
            }
        }
        if ns > 0 {
            if let Some(oi) = owner.iter().position(Option::is_none) {
                return Err(invalid(
                    "stage table",
                    format!("op {oi} belongs to no stage"),
                ));
            }
        }
        for (bi, b) in self.weight_blocks.iter().enumerate() {
            if b.stage as usize >= ns {
                return Err(PlanError::BadReference {
                    what: format!("weight block {bi} stage_idx"),
                    target: "stage",
                    index: b.stage as u32,
                    count: ns,
                });
            }
            if b.first_weight as usize + b.num_weights as usize > self.weights.len() {
                return Err(invalid(
                    format!("weight block {bi}"),
                    format!(
                        "weights {}..{} run past the {}-entry weight table",
                        b.first_weight,
                        b.first_weight as usize + b.num_weights as usize,
                        self.weights.len()
                    ),
                ));
            }
        }
        for (ei, e) in self.state.iter().enumerate() {
            tensor(&|| format!("state entry {ei} input"), e.input)?;
            if let Some(o) = e.output {
                tensor(&|| format!("state entry {ei} output"), o)?;
            }
        }
        Ok(())
    }
}

fn parse_header(data: &[u8]) -> Header {
    let mut f = Fields::new(&data[..HEADER_SIZE as usize]);
    let _magic: [u8; 4] = f.take();
    Header {
        version: f.u32(),
        file_size: f.u32(),
        section_dir_off: f.u32(),
        num_tensors: f.u16(),
        num_ops: f.u16(),
        num_stages: f.u16(),
        num_tile_plans: f.u16(),
        budget: f.u32(),
        peak: f.u32(),
        model_name_str: f.u32(),
        model_io_off: f.u16(),
        num_model_inputs: f.u8(),
        num_model_outputs: f.u8(),
        num_weights: f.u16(),
        num_quant_params: f.u16(),
        flags: f.u32(),
    }
}

fn parse_directory(data: &[u8], h: &Header) -> Result<Vec<SectionSpan>> {
    let len = data.len() as u64;
    if (h.section_dir_off as u64) < HEADER_SIZE {
        return Err(PlanError::DirectoryInHeader {
            offset: h.section_dir_off,
        });
    }
    let mut at = h.section_dir_off as u64;
    let mut found: Vec<(Section, u32)> = Vec::new();
    let dir_end = loop {
        let Some(entry) = data.get(at as usize..(at + DIR_ENTRY_SIZE) as usize) else {
            return Err(PlanError::NoDirectoryEnd {
                offset: h.section_dir_off,
            });
        };
        let mut f = Fields::new(entry);
        let (kind, offset) = (f.u32(), f.u32());
        if kind == 0 {
            break at + DIR_ENTRY_SIZE;
        }
        let Some(s) = Section::from_code(kind) else {
            return Err(PlanError::UnknownSection { kind, at });
        };
        if found.iter().any(|(x, _)| *x == s) {
            return Err(PlanError::DuplicateSection {
                name: s.name(),
                kind,
                at,
            });
        }
        if offset as u64 > len {
            return Err(PlanError::SectionPastEnd {
                name: s.name(),
                offset,
                len: data.len(),
            });
        }
        found.push((s, offset));
        at += DIR_ENTRY_SIZE;
    };
    for &(s, offset) in &found {
        if (offset as u64) < dir_end {
            return Err(PlanError::SectionOverlapsDirectory {
                name: s.name(),
                offset,
                dir_end,
            });
        }
    }
    Ok(found
        .iter()
        .map(|&(s, offset)| {
            let start = offset as u64;
            let end = found
                .iter()
                .map(|x| x.1 as u64)
                .filter(|o| *o > start)
                .min()
                .unwrap_or(len);
            SectionSpan {
                section: s,
                start,
                end,
            }
        })
        .collect())
}

fn base(r: &Reader, s: Section) -> u64 {
    r.span(s).map_or(0, |x| x.start)
}

fn opt(v: u16) -> Option<u16> {
    (v != NONE16).then_some(v)
}

fn parse_tensors(r: &Reader, h: &Header) -> Result<Vec<Tensor>> {
    let b = base(r, Section::Tensors);
    (0..h.num_tensors as u64)
        .map(|i| {
            let what = || format!("tensor {i} (record at offset {})", b + i * TENSOR_SIZE);
            let mut f = r.record(Section::Tensors, b, i, TENSOR_SIZE, &what)?;
            let (name_str, size_bytes, shape_off, ndim) = (f.u32(), f.u32(), f.u16(), f.u8());
            let (dtype, flags, qp, iface_dtype) = (f.u8(), f.u8(), f.u16(), f.u8());
            Ok(Tensor {
                name: r.string(name_str, &|| format!("{} name", what()))?,
                size_bytes,
                shape: r.shape(shape_off, ndim, &|| {
                    format!("{} shape (shape_off {shape_off}, ndim {ndim})", what())
                })?,
                dtype,
                flags,
                quant_param: opt(qp),
                iface_dtype,
            })
        })
        .collect()
}

fn parse_ops(r: &Reader, h: &Header) -> Result<Vec<Op>> {
    let b = base(r, Section::Ops);
    (0..h.num_ops as u64)
        .map(|i| {
            let what = || format!("op {i} (record at offset {})", b + i * OP_SIZE);
            let mut f = r.record(Section::Ops, b, i, OP_SIZE, &what)?;
            let (name_str, op_type, n_in, n_out, stage_byte, in_off, out_off) =
                (f.u32(), f.u8(), f.u8(), f.u8(), f.u8(), f.u16(), f.u16());
            let spatial = Spatial {
                kernel_h: f.u8(),
                kernel_w: f.u8(),
                stride_h: f.u8(),
                stride_w: f.u8(),
                pad_top: f.u16(),
                pad_bottom: f.u16(),
                pad_left: f.u16(),
                pad_right: f.u16(),
                dilation_h: f.u16(),
                dilation_w: f.u16(),
                group: f.u16(),
            };
            let (weight, bias, fused_act, act_min, act_max) =
                (f.u16(), f.u16(), f.u8(), f.i8(), f.i8());
            Ok(Op {
                name: r.string(name_str, &|| format!("{} name", what()))?,
                op_type,
                inputs: r.indices(in_off, n_in as u64, &|| {
                    format!("{} inputs (offset {in_off}, count {n_in})", what())
                })?,
                outputs: r.indices(out_off, n_out as u64, &|| {
                    format!("{} outputs (offset {out_off}, count {n_out})", what())
                })?,
                stage_byte,
                stage: stage_byte as u16,
                spatial,
                weight: opt(weight),
                bias: opt(bias),
                fused_act,
                act_min,
                act_max,
                attributes: Vec::new(),
            })
        })
        .collect()
}

fn parse_stages(r: &Reader, h: &Header) -> Result<Vec<Stage>> {
    let b = base(r, Section::Stages);
    (0..h.num_stages as u64)
        .map(|i| {
            let what = || format!("stage {i} (record at offset {})", b + i * STAGE_SIZE);
            let mut f = r.record(Section::Stages, b, i, STAGE_SIZE, &what)?;
            let peak_bytes = f.u32();
            let (ops_off, ops_n, in_off, in_n, out_off, out_n) =
                (f.u16(), f.u16(), f.u16(), f.u16(), f.u16(), f.u16());
            let (tile, _pad, chain_id, chain_len, chain_tile_h, flags) =
                (f.u16(), f.u16(), f.u16(), f.u16(), f.u16(), f.u16());
            Ok(Stage {
                peak_bytes,
                ops: r.indices(ops_off, ops_n as u64, &|| {
                    format!("{} ops (offset {ops_off}, count {ops_n})", what())
                })?,
                inputs: r.indices(in_off, in_n as u64, &|| {
                    format!("{} inputs (offset {in_off}, count {in_n})", what())
                })?,
                outputs: r.indices(out_off, out_n as u64, &|| {
                    format!("{} outputs (offset {out_off}, count {out_n})", what())
                })?,
                tile_plan: opt(tile),
                chain_id: opt(chain_id),
                chain_len,
                chain_tile_h,
                flags,
            })
        })
        .collect()
}

fn parse_tile_plans(r: &Reader, h: &Header) -> Result<Vec<TilePlan>> {
    let b = base(r, Section::TilePlans);
    let v10 = h.version >= SCHEMA_V10;
    let size = if v10 {
        TILE_PLAN_SIZE_V10
    } else {
        TILE_PLAN_SIZE_V9
    };
    (0..h.num_tile_plans as u64)
        .map(|i| {
            let what = || format!("tile plan {i} (record at offset {})", b + i * size);
            let mut f = r.record(Section::TilePlans, b, i, size, &what)?;
            if v10 {
                let (tileable, axis, flags) = (f.u8() != 0, f.u8(), f.u16());
                let raw = TilePlanV10 {
                    input_band_extent: f.u32(),
                    output_band_extent: f.u32(),
                    output_width_extent: f.u32(),
                    input_channel_group: f.u32(),
                    input_spatial_interval: f.u32(),
                    output_linear_segment: f.u32(),
                };
                let tiled_peak_bytes = f.u32();
                // Summary fields are filled by derive_v10_summary for the stage that uses the plan.
                return Ok(TilePlan {
                    tileable,
                    axis,
                    flags,
                    tiled_peak_bytes,
                    v10: Some(raw),
                    ..TilePlan::default()
                });
            }
            let (tileable, axis_byte, tile_height, num_tiles, halo, rf, orig) = (
                f.u8() != 0,
                f.u8(),
                f.u16(),
                f.u16(),
                f.u16(),
                f.u16(),
                f.u16(),
            );
            let (tiled_peak_bytes, overhead_bytes, tile_width, flags) =
                (f.u32(), f.u32(), f.u16(), f.u16());
            // v2-v4 wrote 0 in the axis byte and meant rows.
            let axis = if h.version >= SCHEMA_TILE_AXIS {
                axis_byte
            } else {
                u8::from(tileable)
            };
            Ok(TilePlan {
                tileable,
                axis,
                flags,
                tile_height: tile_height as u32,
                // Only the 2D (HW) axis uses the width field.
                tile_width: if axis == 3 { tile_width as u32 } else { 0 },
                num_tiles: num_tiles as u32,
                halo: halo as u32,
                receptive_field: rf as u32,
                original_height: orig as u32,
                tiled_peak_bytes,
                overhead_bytes,
                v10: None,
            })
        })
        .collect()
}

fn parse_weights(r: &Reader, h: &Header) -> Result<Vec<Weight>> {
    if h.num_weights == 0 {
        return Ok(Vec::new());
    }
    let b = base(r, Section::Weights);
    let blob_base = b + h.num_weights as u64 * WEIGHT_ENTRY_SIZE;
    let compressed = r.span(Section::WeightBlocks).is_some();
    (0..h.num_weights as u64)
        .map(|i| {
            let what = || format!("weight {i} (entry at offset {})", b + i * WEIGHT_ENTRY_SIZE);
            let mut f = r.record(Section::Weights, b, i, WEIGHT_ENTRY_SIZE, &what)?;
            let (name_str, offset, size_bytes) = (f.u32(), f.u32(), f.u32());
            // With weight blocks the data lives in the compressed blobs, not in this section.
            if !compressed {
                r.bytes(
                    Section::Weights,
                    blob_base + offset as u64,
                    size_bytes as u64,
                    &|| format!("{} data (blob offset {offset}, {size_bytes} bytes)", what()),
                )?;
            }
            Ok(Weight {
                name: r.string(name_str, &|| format!("{} name", what()))?,
                offset,
                size_bytes,
                blob_base,
            })
        })
        .collect()
}

fn parse_quant(r: &Reader, h: &Header) -> Result<Vec<QuantParam>> {
    let Some(span) = r.span(Section::QuantParams) else {
        return Ok(Vec::new());
    };
    let s = Section::QuantParams;
    let mut f = Fields::new(r.bytes(s, span.start, 4, &|| "quant-param section header".into())?);
    let (count, _reserved) = (f.u16(), f.u16());
    if count != h.num_quant_params {
        return Err(invalid(
            format!("quant-param section header (offset {})", span.start),
            format!(
                "count {count} differs from the header's num_quant_params {}",
                h.num_quant_params
            ),
        ));
    }
    let entries = span.start + 4;
    r.bytes(s, entries, count as u64 * QUANT_PARAM_SIZE, &|| {
        format!("quant-param table ({count} entries)")
    })?;
    let pool = entries + count as u64 * QUANT_PARAM_SIZE;
    if h.version != 2 && (span.end - pool) & 3 != 0 {
        return Err(invalid(
            format!("quant-param data pool (offset {pool})"),
            format!(
                "{} bytes is not a whole number of i32 values",
                span.end - pool
            ),
        ));
    }
    (0..count as u64)
        .map(|i| {
            let what = || {
                format!(
                    "quant param {i} (entry at offset {})",
                    entries + i * QUANT_PARAM_SIZE
                )
            };
            let mut f = r.record(s, entries, i, QUANT_PARAM_SIZE, &what)?;
            let (scale, zero_point, num_channels) = (f.f32(), f.i32(), f.u16());
            let (multiplier_off, shift_off, page) = (f.u16(), f.u16(), f.u16());
            let mut q = QuantParam {
                scale,
                zero_point,
                num_channels,
                multiplier_off,
                shift_off,
                page,
                multipliers: Vec::new(),
                shifts: Vec::new(),
            };
            if num_channels > 1 {
                // Schema 2 had no pages; later, arrays live at page*65536 + offset elements.
                let page_base = if h.version == 2 {
                    0
                } else {
                    page as u64 * 65536
                };
                let read = |off: u16, field: &str| -> Result<Vec<i32>> {
                    let b = r.bytes(
                        s,
                        pool + (page_base + off as u64) * 4,
                        num_channels as u64 * 4,
                        &|| {
                            format!(
                                "{} per-channel {field} (element {off}, page {page})",
                                what()
                            )
                        },
                    )?;
                    Ok(b.chunks_exact(4)
                        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect())
                };
                q.multipliers = read(multiplier_off, "multipliers")?;
                q.shifts = read(shift_off, "shifts")?;
            }
            Ok(q)
        })
        .collect()
}

fn parse_weight_blocks(r: &Reader) -> Result<(u16, Vec<WeightBlock>)> {
    let Some(span) = r.span(Section::WeightBlocks) else {
        return Ok((0, Vec::new()));
    };
    let s = Section::WeightBlocks;
    let mut f = Fields::new(r.bytes(s, span.start, 4, &|| "weight-block section header".into())?);
    let (count, compression) = (f.u16(), f.u16());
    if compression > 1 {
        return Err(invalid(
            format!("weight-block section header (offset {})", span.start),
            format!("unknown compression {compression} (0 none, 1 LZ4)"),
        ));
    }
    let entries = span.start + 4;
    r.bytes(s, entries, count as u64 * WEIGHT_BLOCK_SIZE, &|| {
        format!("weight-block table ({count} entries)")
    })?;
    let blobs = entries + count as u64 * WEIGHT_BLOCK_SIZE;
    let blocks = (0..count as u64)
        .map(|i| {
            let what = || {
                format!(
                    "weight block {i} (entry at offset {})",
                    entries + i * WEIGHT_BLOCK_SIZE
                )
            };
            let mut f = r.record(s, entries, i, WEIGHT_BLOCK_SIZE, &what)?;
            let (stage, first_weight, num_weights, _pad) = (f.u16(), f.u16(), f.u16(), f.u16());
            let (blob_offset, compressed_size, uncompressed_size) = (f.u32(), f.u32(), f.u32());
            r.bytes(
                s,
                blobs + blob_offset as u64,
                compressed_size as u64,
                &|| {
                    format!(
                        "{} data (blob offset {blob_offset}, {compressed_size} bytes)",
                        what()
                    )
                },
            )?;
            Ok(WeightBlock {
                stage,
                first_weight,
                num_weights,
                blob_offset,
                compressed_size,
                uncompressed_size,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((compression, blocks))
}

/// (op index, entry index, attribute) triples in section order.
fn parse_attributes(r: &Reader) -> Result<Vec<(u16, usize, OpAttribute)>> {
    let Some(span) = r.span(Section::OpAttributes) else {
        return Ok(Vec::new());
    };
    let s = Section::OpAttributes;
    let mut f = Fields::new(r.bytes(s, span.start, 4, &|| "op-attribute section header".into())?);
    let count = f.u16();
    let entries = span.start + 4;
    r.bytes(s, entries, count as u64 * OP_ATTRIBUTE_SIZE, &|| {
        format!("op-attribute table ({count} entries)")
    })?;
    let payload = entries + count as u64 * OP_ATTRIBUTE_SIZE;
    (0..count as u64)
        .map(|i| {
            let what = || {
                format!(
                    "op attribute {i} (entry at offset {})",
                    entries + i * OP_ATTRIBUTE_SIZE
                )
            };
            let mut f = r.record(s, entries, i, OP_ATTRIBUTE_SIZE, &what)?;
            let (op, kind, len, off) = (f.u16(), f.u8(), f.u8(), f.u32());
            let data = r.bytes(s, payload + off as u64, len as u64, &|| {
                format!("{} payload (offset {off}, {len} bytes)", what())
            })?;
            Ok((
                op,
                i as usize,
                OpAttribute {
                    kind,
                    data: data.to_vec(),
                },
            ))
        })
        .collect()
}

fn parse_subgraphs(r: &Reader) -> Result<Vec<Subgraph>> {
    let Some(span) = r.span(Section::Subgraphs) else {
        return Ok(Vec::new());
    };
    let s = Section::Subgraphs;
    let count = Fields::new(r.bytes(s, span.start, 4, &|| "subgraph section header".into())?).u16();
    let entries = span.start + 4;
    r.bytes(s, entries, count as u64 * SUBGRAPH_ENTRY_SIZE, &|| {
        format!("subgraph table ({count} entries)")
    })?;
    (0..count as u64)
        .map(|i| {
            let what = || {
                format!(
                    "subgraph {i} (entry at offset {})",
                    entries + i * SUBGRAPH_ENTRY_SIZE
                )
            };
            let mut f = r.record(s, entries, i, SUBGRAPH_ENTRY_SIZE, &what)?;
            let (first_stage, num_stages, in_off, in_n, out_off, out_n) =
                (f.u16(), f.u16(), f.u16(), f.u16(), f.u16(), f.u16());
            Ok(Subgraph {
                first_stage,
                num_stages,
                inputs: r.indices(in_off, in_n as u64, &|| format!("{} inputs", what()))?,
                outputs: r.indices(out_off, out_n as u64, &|| format!("{} outputs", what()))?,
            })
        })
        .collect()
}

fn parse_state(r: &Reader) -> Result<(u32, Vec<StateEntry>)> {
    let Some(span) = r.span(Section::State) else {
        return Ok((0, Vec::new()));
    };
    let s = Section::State;
    let mut f = Fields::new(r.bytes(s, span.start, 8, &|| "state section header".into())?);
    let (count, _reserved, bytes) = (f.u16(), f.u16(), f.u32());
    let entries = span.start + 8;
    r.bytes(s, entries, count as u64 * STATE_ENTRY_SIZE, &|| {
        format!("state table ({count} entries)")
    })?;
    let list = (0..count as u64)
        .map(|i| {
            let what = || {
                format!(
                    "state entry {i} (at offset {})",
                    entries + i * STATE_ENTRY_SIZE
                )
            };
            let mut f = r.record(s, entries, i, STATE_ENTRY_SIZE, &what)?;
            let (input, output, offset, size_bytes, initial) =
                (f.u16(), f.u16(), f.u32(), f.u32(), f.u32());
            r.bytes(s, span.start + initial as u64, size_bytes as u64, &|| {
                format!(
                    "{} initial value (offset {initial}, {size_bytes} bytes)",
                    what()
                )
            })?;
            Ok(StateEntry {
                input,
                output: opt(output),
                offset,
                size_bytes,
                initial,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((bytes, list))
}

// ---------------------------------------------------------------------------------------------------
// Schema-10 tile summary

/// Python-style index: negative counts from the end.
fn py_get(v: &[i32], i: i64) -> Option<i64> {
    let n = v.len() as i64;
    let j = if i < 0 { i + n } else { i };
    (0..n).contains(&j).then(|| v[j as usize] as i64)
}

/// Product of `v[from..to]` with Python slice bounds (negative from the end, clamped).
fn py_prod(v: &[i32], from: i64, to: i64) -> i64 {
    let n = v.len() as i64;
    let clamp = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) };
    let (a, b) = (clamp(from), clamp(to));
    v.iter()
        .take(b.max(0) as usize)
        .skip(a as usize)
        .fold(1i64, |p, x| p.saturating_mul(*x as i64))
}

fn ceil_div(a: i64, b: i64) -> i64 {
    if b == 0 {
        0
    } else {
        a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0)
    }
}

fn to_u32(v: i64) -> u32 {
    u32::try_from(v.max(0)).unwrap_or(u32::MAX)
}

/// Re-derive what schema 10 no longer stores (tile height and width, tile count, original extent,
/// receptive field, halo) from the stage's first input and output shapes and its ops, as
/// `tigris inspect` does (after tigris-ml 0.12.1 `emitters/binary/reader.py` `_tile_summary`;
/// checked against `tigris inspect --json` on compiled schema-10 plans). Overhead bytes stay 0: they are
/// not stored, see [`Plan::predictions`] for our estimate.
pub fn derive_v10_summary(tp: &mut TilePlan, stage: &Stage, tensors: &[Tensor], ops: &[Op]) {
    let Some(raw) = tp.v10 else { return };
    let mut extent = if raw.input_band_extent != 0 {
        raw.input_band_extent
    } else {
        raw.output_band_extent
    } as i64;
    let (mut total, mut rf, mut jump) = (0i64, 1i64, 1i64);
    let stage_ops: Vec<&Op> = stage
        .ops
        .iter()
        .filter_map(|&i| ops.get(i as usize))
        .collect();
    let first_in = stage.inputs.first().and_then(|&i| tensors.get(i as usize));
    let first_out = stage.outputs.first().and_then(|&i| tensors.get(i as usize));
    let single = |names: &[&str]| stage_ops.len() == 1 && op_is(stage_ops[0], names);
    if let (true, Some(src), Some(dst)) = (tp.tileable, first_in, first_out) {
        let (a, b) = (&src.shape, &dst.shape);
        total = if a.len() > 2 {
            py_get(a, 1)
        } else {
            py_get(a, 0)
        }
        .unwrap_or(0);
        // Receptive field walked forward: each kernel adds (eff_k - 1) times the stride so far.
        for op in &stage_ops {
            if op_is(op, &RF_OPS) {
                let sp = op.spatial;
                rf = rf.saturating_add(
                    (sp.kernel_h as i64 - 1)
                        .saturating_mul(sp.dilation_h.max(1) as i64)
                        .saturating_mul(jump),
                );
                jump = jump.saturating_mul(sp.stride_h as i64);
            }
        }
        if single(&["Svdf", "Lstm"]) {
            // Recurrent ops band by batch, or by time when an LSTM is time-major on a rank-3 input.
            let time_major = stage_ops[0]
                .attribute(ATTR_LSTM)
                .and_then(|a| a.data.get(..4))
                .is_some_and(|d| i32::from_le_bytes([d[0], d[1], d[2], d[3]]) != 0);
            total = py_get(a, i64::from(time_major && a.len() == 3)).unwrap_or(0);
        } else if raw.output_band_extent != 0 {
            total = py_get(b, 1).unwrap_or(0);
        } else if single(&["Reshape", "Flatten"]) {
            // Banded reshape: the first axis pair where both sides split the same outer/inner products.
            let own = [src, dst]
                .iter()
                .all(|t| t.shape.len() <= 2 || t.flags & TENSOR_LINEAR != 0);
            let first_not_one = |s: &[i32]| s.iter().position(|n| *n != 1).unwrap_or(0) as i64;
            let mut candidates = Vec::new();
            if own {
                candidates.push((a.len() as i64 - 2, b.len() as i64 - 2));
            }
            candidates.push((1, 1));
            candidates.push((first_not_one(a), first_not_one(b)));
            for (ia, ib) in candidates {
                if ia >= a.len() as i64 || ib >= b.len() as i64 {
                    continue;
                }
                let Some(ea) = py_get(a, ia) else { continue };
                let n = a.len().max(b.len()) as i64;
                if ea > 1
                    && py_prod(a, 0, ia) == py_prod(b, 0, ib)
                    && py_prod(a, ia, n) == py_prod(b, ib, n)
                {
                    total = ea;
                    break;
                }
            }
        } else if single(&["Transpose"]) {
            let perm: Vec<i64> = stage_ops[0]
                .attribute(ATTR_TRANSPOSE_PERM)
                .map(|a| a.data.iter().map(|b| *b as i64).collect())
                .unwrap_or_default();
            if raw.input_band_extent != 0 {
                total = perm
                    .iter()
                    .enumerate()
                    .filter(|(i, p)| *i as i64 == **p)
                    .filter_map(|(i, _)| py_get(a, i as i64))
                    .max()
                    .unwrap_or(0);
            }
            // Two adjacent axis groups [start, split) and [split, end) swapped, outer axes in place:
            // the band runs over one of the groups (the last such reading wins).
            let n = a.len();
            for start in 0..n {
                for split in start + 1..n {
                    for end in split + 1..=n {
                        let swapped: Vec<i64> = (0..start)
                            .chain(split..end)
                            .chain(start..split)
                            .chain(end..n)
                            .map(|x| x as i64)
                            .collect();
                        if swapped == perm {
                            let (lo, hi) = if tp.band_on_columns() {
                                (split, end)
                            } else {
                                (start, split)
                            };
                            total = py_prod(a, lo as i64, hi as i64);
                        }
                    }
                }
            }
            // The band is the largest count of rows whose two 32-byte aligned buffers fit the peak.
            let per_row = if total != 0 {
                (src.size_bytes as i64).div_euclid(total)
            } else {
                0
            };
            let (mut lo, mut hi) = if raw.input_band_extent == 0 {
                (1, total)
            } else {
                (1, 0)
            };
            extent = raw.input_band_extent as i64;
            while lo <= hi {
                let mid = lo + (hi - lo) / 2;
                let need =
                    align_up_i(mid.saturating_mul(per_row), PLANNER_ALIGN as i64).saturating_mul(2);
                if need <= tp.tiled_peak_bytes as i64 {
                    extent = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
        } else if a.len() >= 3 && src.flags & TENSOR_LINEAR != 0 {
            total = py_get(a, -2).unwrap_or(0);
        }
    }
    let mut count = if extent != 0 {
        ceil_div(total, extent)
    } else {
        0
    };
    if raw.input_channel_group != 0 && raw.input_spatial_interval != 0 {
        if let Some(src) = first_in {
            // Grouped global reduction: batch x channel groups x spatial intervals.
            let s = &src.shape;
            let dim = |i: usize| s.get(i).map_or(0, |v| *v as i64);
            count = dim(0)
                .saturating_mul(ceil_div(dim(3), raw.input_channel_group as i64))
                .saturating_mul(ceil_div(
                    dim(1).saturating_mul(dim(2)),
                    raw.input_spatial_interval as i64,
                ));
            total = dim(1).saturating_mul(dim(2));
        }
    }
    if raw.output_width_extent != 0 {
        if let Some(dst) = first_out {
            let width = dst.shape.get(2).map_or(0, |v| *v as i64);
            count = count.saturating_mul(ceil_div(width, raw.output_width_extent as i64));
        }
    }
    tp.tile_height = to_u32(extent);
    tp.tile_width = raw.output_width_extent;
    tp.original_height = to_u32(total);
    tp.num_tiles = to_u32(count);
    tp.receptive_field = to_u32(rf);
    tp.halo = to_u32(rf.saturating_sub(1));
    tp.overhead_bytes = 0;
}

fn align_up_i(x: i64, a: i64) -> i64 {
    (x.div_euclid(a) * a).saturating_add(if x.rem_euclid(a) != 0 { a } else { 0 })
}

fn align_up(x: u64) -> u64 {
    x.div_ceil(PLANNER_ALIGN).saturating_mul(PLANNER_ALIGN)
}

// ---------------------------------------------------------------------------------------------------
// What the planner predicted

/// How a stage runs according to the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// Loaded, run and spilled whole.
    Untiled,
    /// Cut into tiles by its own tile plan.
    Tiled,
    /// First stage of a fused chain: the chain's tile loop is reported here.
    ChainHead,
    /// A later stage of a chain, run inside its head's tile loop.
    ChainMember,
}

impl Execution {
    pub fn name(self) -> &'static str {
        match self {
            Execution::Untiled => "untiled",
            Execution::Tiled => "tiled",
            Execution::ChainHead => "chain head",
            Execution::ChainMember => "chain member",
        }
    }
}

/// A chain as the planner solved it (tigris-ml 0.12.1 analysis/partition_spatial.py `detect_chains`,
/// `solve_chain_tile_height`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainPrediction {
    pub head: u16,
    pub len: u16,
    /// This stage's position in the chain (0 = head).
    pub position: u16,
    /// Most output rows of the last member per tile (the runtime may only shrink it).
    pub tile_h: u16,
    pub line_buffered: bool,
    /// Rows of the last member's output.
    pub output_rows: u32,
    /// Rows of the chain input per tile, back-propagated from `tile_h`.
    pub input_rows_per_tile: u32,
    /// Composed over every member: receptive field and stride on the chain input.
    pub receptive_field: u32,
    pub stride: u32,
    /// Fast bytes of one tile at `tile_h` (chain input tile plus every op output tile, each 32-byte
    /// aligned) and at `tile_h + 1`: the planner picked the largest height within its budget.
    pub tile_bytes: u64,
    pub next_height_bytes: u64,
}

/// What the planner predicted for one stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prediction {
    pub execution: Execution,
    pub axis: u8,
    pub tiles: u32,
    /// Rows per tile (for chains: output rows of the last member per tile).
    pub tile_height: u32,
    pub tile_width: u32,
    pub halo: u32,
    pub receptive_field: u32,
    /// Extent of the tiled axis.
    pub original_height: u32,
    /// Fast bytes of one tile (stored for tile plans; estimated for chains).
    pub tiled_peak_bytes: u64,
    /// Bytes of halo rows re-read over all tiles.
    pub overhead_bytes: u64,
    /// True when `overhead_bytes` is our estimate (schema 10 no longer stores it).
    pub overhead_estimated: bool,
    /// Grouped global reduction (schema 10): channels per group and positions per interval, else 0.
    pub channel_group: u32,
    pub spatial_interval: u32,
    pub chain: Option<ChainPrediction>,
}

/// What the runtime needs to run the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirements {
    /// Budget plus the largest weight-decompression buffer.
    pub fast_arena_bytes: u64,
    pub decompression_bytes: u64,
    pub state_bytes: u32,
    /// (limit name, value this plan needs, runtime default).
    pub build_limits: Vec<(&'static str, u32, u32)>,
}

impl Plan {
    pub fn tensor_name(&self, i: u16) -> String {
        match self.tensors.get(i as usize) {
            Some(t) if !t.name.is_empty() => t.name.clone(),
            _ => format!("tensor {i}"),
        }
    }

    fn tensor(&self, i: u16) -> Option<&Tensor> {
        self.tensors.get(i as usize)
    }

    /// (eff_kh, stride) of a stage's spatial ops composed in order, (1, 1) when it has none.
    fn stage_spatial(&self, st: &Stage) -> (u64, u64) {
        st.ops
            .iter()
            .filter_map(|&i| self.ops.get(i as usize))
            .filter(|op| op_is(op, &CHAIN_SPATIAL_OPS))
            .fold((1, 1), |(eff, stride): (u64, u64), op| {
                let grown = (op.spatial.eff_kh() - 1).saturating_mul(stride);
                (
                    eff.saturating_add(grown),
                    stride.saturating_mul(op.spatial.stride_h.max(1) as u64),
                )
            })
    }

    /// Rows of each member's input and output per tile when the last member outputs `out_h` rows.
    fn chain_heights(&self, members: &[&Stage], out_h: u64) -> Vec<(u64, u64)> {
        let mut h = out_h;
        let mut rows: Vec<(u64, u64)> = members
            .iter()
            .rev()
            .map(|st| {
                let (eff, stride) = self.stage_spatial(st);
                let in_h = h
                    .saturating_mul(stride)
                    .saturating_add(eff.saturating_sub(stride));
                let pair = (in_h, h);
                h = in_h;
                pair
            })
            .collect();
        rows.reverse();
        rows
    }

    /// Fast bytes of one chain tile: the chain input tile plus every rank-4 op output tile, heights
    /// walked forward through each spatial op, each allocation 32-byte aligned.
    fn chain_tile_bytes(&self, members: &[&Stage], out_h: u64) -> u64 {
        let heights = self.chain_heights(members, out_h);
        let band = |t: &Tensor, rows: u64| -> u64 {
            if t.shape.len() == 4 {
                align_up(t.row_bytes().unwrap_or(0).saturating_mul(rows))
            } else {
                0
            }
        };
        let mut total = 0;
        if let (Some(first), Some(&(in_h, _))) = (members.first(), heights.first()) {
            total += first
                .inputs
                .iter()
                .filter_map(|&i| self.tensor(i))
                .map(|t| band(t, in_h))
                .sum::<u64>();
        }
        for (st, &(in_h, _)) in members.iter().zip(&heights) {
            let mut h = in_h;
            for op in st.ops.iter().filter_map(|&i| self.ops.get(i as usize)) {
                if op_is(op, &CHAIN_SPATIAL_OPS) {
                    let s = op.spatial.stride_h.max(1) as u64;
                    h = h.saturating_sub(op.spatial.eff_kh().saturating_sub(s)) / s;
                }
                total += op
                    .outputs
                    .iter()
                    .filter_map(|&i| self.tensor(i))
                    .map(|t| band(t, h))
                    .sum::<u64>();
            }
        }
        total
    }

    fn chain_prediction(&self, index: usize) -> Option<ChainPrediction> {
        let st = self.stages.get(index)?;
        if !st.in_chain() {
            return None;
        }
        let head = st.chain_id? as usize;
        let head_stage = self.stages.get(head)?;
        let members: Vec<&Stage> = self
            .stages
            .get(head..head + st.chain_len as usize)?
            .iter()
            .collect();
        let last = members.last()?;
        let output_rows = last
            .outputs
            .first()
            .and_then(|&i| self.tensor(i))
            .and_then(Tensor::rows)
            .unwrap_or(0);
        let tile_h = head_stage.chain_tile_h;
        let heights = self.chain_heights(&members, tile_h as u64);
        let (mut rf, mut stride) = (1u64, 1u64);
        for m in &members {
            let (eff, s) = self.stage_spatial(m);
            rf = rf.saturating_add((eff - 1).saturating_mul(stride));
            stride = stride.saturating_mul(s);
        }
        Some(ChainPrediction {
            head: head as u16,
            len: st.chain_len,
            position: (index - head) as u16,
            tile_h,
            line_buffered: head_stage.flags & STAGE_LINE_BUFFERED != 0,
            output_rows,
            input_rows_per_tile: heights
                .first()
                .map_or(0, |h| u32::try_from(h.0).unwrap_or(u32::MAX)),
            receptive_field: u32::try_from(rf).unwrap_or(u32::MAX),
            stride: u32::try_from(stride).unwrap_or(u32::MAX),
            tile_bytes: self.chain_tile_bytes(&members, tile_h as u64),
            next_height_bytes: self.chain_tile_bytes(&members, tile_h as u64 + 1),
        })
    }

    /// One prediction per stage, in stage order.
    pub fn predictions(&self) -> Vec<Prediction> {
        (0..self.stages.len()).map(|i| self.prediction(i)).collect()
    }

    pub fn prediction(&self, index: usize) -> Prediction {
        let mut p = Prediction {
            execution: Execution::Untiled,
            axis: 0,
            tiles: 1,
            tile_height: 0,
            tile_width: 0,
            halo: 0,
            receptive_field: 0,
            original_height: 0,
            tiled_peak_bytes: 0,
            overhead_bytes: 0,
            overhead_estimated: false,
            channel_group: 0,
            spatial_interval: 0,
            chain: None,
        };
        let Some(st) = self.stages.get(index) else {
            return p;
        };
        if let Some(c) = self.chain_prediction(index) {
            p.execution = if c.position == 0 {
                Execution::ChainHead
            } else {
                Execution::ChainMember
            };
            p.axis = 1;
            if c.position == 0 {
                p.tiles = if c.tile_h > 0 {
                    c.output_rows.div_ceil(c.tile_h as u32)
                } else {
                    0
                };
                p.tile_height = c.tile_h as u32;
                p.receptive_field = c.receptive_field;
                p.halo = c.receptive_field.saturating_sub(1);
                p.original_height = c.output_rows;
                p.tiled_peak_bytes = c.tile_bytes;
            } else {
                p.tiles = 0;
            }
            p.chain = Some(c);
            return p;
        }
        let Some(tp) = st.tile_plan.and_then(|i| self.tile_plans.get(i as usize)) else {
            return p;
        };
        if !tp.tileable {
            return p;
        }
        p.execution = Execution::Tiled;
        p.axis = tp.axis;
        p.tiles = tp.num_tiles;
        p.tile_height = tp.tile_height;
        p.tile_width = tp.tile_width;
        p.halo = tp.halo;
        p.receptive_field = tp.receptive_field;
        p.original_height = tp.original_height;
        p.tiled_peak_bytes = tp.tiled_peak_bytes as u64;
        p.overhead_bytes = tp.overhead_bytes as u64;
        if let Some(r) = tp
            .v10
            .filter(|r| r.input_channel_group > 0 && r.input_spatial_interval > 0)
        {
            (p.channel_group, p.spatial_interval) =
                (r.input_channel_group, r.input_spatial_interval);
        }
        if tp.v10.is_some() && tp.axis == 1 && tp.halo > 0 && tp.original_height > 0 {
            // Schema 10 dropped the stored figure; the planner's own estimate is the halo rows of the
            // first rank-3/4 stage input, once per tile boundary (tigris-ml 0.12.1
            // analysis/partition_spatial.py `_estimate_halo_bytes`), which matches every
            // stored schema-9 value of the 1D tile plans we compared.
            let input = st
                .inputs
                .iter()
                .filter_map(|&i| self.tensor(i))
                .find(|t| matches!(t.shape.len(), 3 | 4));
            if let Some(t) = input {
                let per_halo = t.size_bytes as u64 * tp.halo as u64 / tp.original_height as u64;
                p.overhead_bytes = per_halo * (tp.num_tiles.saturating_sub(1)) as u64;
                p.overhead_estimated = true;
            }
        }
        p
    }

    /// Fast arena, decompression buffer, state and build limits the plan needs.
    pub fn requirements(&self) -> Requirements {
        let blocks: Vec<&WeightBlock> = self
            .weight_blocks
            .iter()
            .filter(|b| b.compressed_size > 0)
            .collect();
        let mut decompression = blocks
            .iter()
            .map(|b| align_up(b.uncompressed_size as u64))
            .max()
            .unwrap_or(0);
        let (mut max_chain, mut max_spatial) = (0u32, 0u32);
        for (i, st) in self.stages.iter().enumerate() {
            if st.chain_len < 2 || st.chain_id != Some(i as u16) {
                continue;
            }
            let members = i..i + st.chain_len as usize;
            // A chain decompresses the first block of every member before its first tile.
            let mut seen = Vec::new();
            let mut sum = 0;
            for b in &blocks {
                if members.contains(&(b.stage as usize)) && !seen.contains(&b.stage) {
                    seen.push(b.stage);
                    sum += align_up(b.uncompressed_size as u64);
                }
            }
            decompression = decompression.max(sum);
            max_chain = max_chain.max(st.chain_len as u32);
            for m in self.stages.get(members).unwrap_or(&[]) {
                let spatial = m
                    .ops
                    .iter()
                    .filter_map(|&o| self.ops.get(o as usize))
                    .filter(|op| op_is(op, &CHAIN_SPATIAL_OPS))
                    .count();
                max_spatial = max_spatial.max(spatial as u32);
            }
        }
        let needed = [
            self.tensors.len() as u32,
            self.stages
                .iter()
                .map(|s| s.inputs.len() as u32)
                .max()
                .unwrap_or(0),
            self.stages
                .iter()
                .map(|s| s.outputs.len() as u32)
                .max()
                .unwrap_or(0),
            max_chain,
            max_spatial,
        ];
        Requirements {
            fast_arena_bytes: self.header.budget as u64 + decompression,
            decompression_bytes: decompression,
            state_bytes: self.state_bytes,
            build_limits: DEFAULT_LIMITS
                .iter()
                .zip(needed)
                .map(|(&(n, d), v)| (n, v, d))
                .collect(),
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// JSON and text views

fn float(v: f32) -> Value {
    if v.is_finite() {
        json!(v as f64)
    } else if v.is_nan() {
        json!("nan")
    } else if v > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

fn opt_json(v: Option<u16>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

impl Plan {
    /// The whole decoded plan plus the planner's predictions, as one JSON object
    /// (documented in docs/tigris.md, "Plan reader").
    pub fn to_json(&self) -> Value {
        let h = &self.header;
        let v = h.version;
        let tensors: Vec<Value> = self
            .tensors
            .iter()
            .enumerate()
            .map(|(i, t)| {
                json!({
                    "index": i, "name": t.name, "size_bytes": t.size_bytes, "shape": t.shape,
                    "dtype": dtype_name(t.dtype), "dtype_code": t.dtype,
                    "interface_dtype": dtype_name(t.interface_dtype(v)), "iface_dtype_code": t.iface_dtype,
                    "flags": t.flags, "flag_names": t.flag_names(), "layout": t.layout(v),
                    "quant_param": opt_json(t.quant_param),
                })
            })
            .collect();
        let ops: Vec<Value> = self
            .ops
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let s = o.spatial;
                let attributes: Vec<Value> = o
                    .attributes
                    .iter()
                    .map(|a| {
                        let values = match a.values() {
                            AttrValues::Ints(x) => json!(x),
                            AttrValues::Floats(x) => Value::Array(x.into_iter().map(float).collect()),
                            AttrValues::Bytes(x) => json!(x),
                        };
                        json!({"kind": a.name(), "code": a.kind, "values": values, "bytes": a.data})
                    })
                    .collect();
                json!({
                    "index": i, "name": o.name, "type": o.type_name(), "type_code": o.op_type,
                    "stage": o.stage, "stage_byte": o.stage_byte, "inputs": o.inputs, "outputs": o.outputs,
                    "spatial": {
                        "kernel_h": s.kernel_h, "kernel_w": s.kernel_w, "stride_h": s.stride_h,
                        "stride_w": s.stride_w, "pad_top": s.pad_top, "pad_bottom": s.pad_bottom,
                        "pad_left": s.pad_left, "pad_right": s.pad_right, "dilation_h": s.dilation_h,
                        "dilation_w": s.dilation_w, "group": s.group,
                    },
                    "weight": opt_json(o.weight), "bias": opt_json(o.bias),
                    "fused_activation": o.fused_activation(), "fused_act": o.fused_act,
                    "act_min": o.act_min, "act_max": o.act_max, "attributes": attributes,
                })
            })
            .collect();
        let predictions = self.predictions();
        let stages: Vec<Value> = self
            .stages
            .iter()
            .zip(&predictions)
            .enumerate()
            .map(|(i, (s, p))| {
                json!({
                    "index": i, "peak_bytes": s.peak_bytes, "ops": s.ops, "inputs": s.inputs,
                    "outputs": s.outputs, "tile_plan": opt_json(s.tile_plan), "chain_id": opt_json(s.chain_id),
                    "chain_len": s.chain_len, "chain_tile_h": s.chain_tile_h, "flags": s.flags,
                    "line_buffered": s.flags & STAGE_LINE_BUFFERED != 0,
                    "prediction": prediction_json(p),
                })
            })
            .collect();
        let tile_plans: Vec<Value> = self
            .tile_plans
            .iter()
            .map(|t| {
                let mut o = json!({
                    "tileable": t.tileable, "axis": t.axis, "axis_name": axis_name(t.axis), "flags": t.flags,
                    "band_on_columns": t.band_on_columns(), "tile_height": t.tile_height,
                    "tile_width": t.tile_width, "num_tiles": t.num_tiles, "halo": t.halo,
                    "receptive_field": t.receptive_field, "original_height": t.original_height,
                    "tiled_peak_bytes": t.tiled_peak_bytes, "overhead_bytes": t.overhead_bytes,
                    "record": if t.v10.is_some() { "v10" } else { "v9" },
                });
                if let (Some(r), Some(m)) = (t.v10, o.as_object_mut()) {
                    m.insert("input_band_extent".into(), json!(r.input_band_extent));
                    m.insert("output_band_extent".into(), json!(r.output_band_extent));
                    m.insert("output_width_extent".into(), json!(r.output_width_extent));
                    m.insert("input_channel_group".into(), json!(r.input_channel_group));
                    m.insert("input_spatial_interval".into(), json!(r.input_spatial_interval));
                    m.insert("output_linear_segment".into(), json!(r.output_linear_segment));
                }
                o
            })
            .collect();
        let req = self.requirements();
        json!({
            "format": "tgrs",
            "schema": v,
            "file_size": h.file_size,
            "model_name": self.model_name,
            "header": {
                "version": v, "file_size": h.file_size, "section_dir_off": h.section_dir_off,
                "num_tensors": h.num_tensors, "num_ops": h.num_ops, "num_stages": h.num_stages,
                "num_tile_plans": h.num_tile_plans, "budget": h.budget, "peak": h.peak,
                "model_io_off": h.model_io_off, "num_model_inputs": h.num_model_inputs,
                "num_model_outputs": h.num_model_outputs, "num_weights": h.num_weights,
                "num_quant_params": h.num_quant_params, "flags": h.flags, "xip": h.xip(),
            },
            "sections": self.sections.iter().map(|s| json!({
                "type": s.section as u32, "name": s.section.name(), "offset": s.start, "end": s.end,
            })).collect::<Vec<_>>(),
            "model_inputs": self.model_inputs,
            "model_outputs": self.model_outputs,
            "tensors": tensors,
            "ops": ops,
            "stages": stages,
            "tile_plans": tile_plans,
            "weights": self.weights.iter().map(|w| json!({
                "name": w.name, "offset": w.offset, "size_bytes": w.size_bytes, "blob_base": w.blob_base,
            })).collect::<Vec<_>>(),
            "quant_params": self.quant_params.iter().map(|q| json!({
                "scale": float(q.scale), "zero_point": q.zero_point, "num_channels": q.num_channels,
                "multiplier_off": q.multiplier_off, "shift_off": q.shift_off, "page": q.page,
                "multipliers": q.multipliers, "shifts": q.shifts,
            })).collect::<Vec<_>>(),
            "weight_blocks": {
                "compression": match self.weight_compression { 1 => "lz4", _ => "none" },
                "compression_code": self.weight_compression,
                "blocks": self.weight_blocks.iter().map(|b| json!({
                    "stage": b.stage, "first_weight": b.first_weight, "num_weights": b.num_weights,
                    "blob_offset": b.blob_offset, "compressed_size": b.compressed_size,
                    "uncompressed_size": b.uncompressed_size,
                })).collect::<Vec<_>>(),
            },
            "state": {
                "bytes": self.state_bytes,
                "entries": self.state.iter().map(|e| json!({
                    "input": e.input, "output": opt_json(e.output), "offset": e.offset,
                    "size_bytes": e.size_bytes, "initial_offset": e.initial,
                })).collect::<Vec<_>>(),
            },
            "subgraphs": self.subgraphs.iter().map(|g| json!({
                "first_stage": g.first_stage, "num_stages": g.num_stages, "inputs": g.inputs, "outputs": g.outputs,
            })).collect::<Vec<_>>(),
            "requirements": {
                "fast_arena_bytes": req.fast_arena_bytes,
                "decompression_bytes": req.decompression_bytes,
                "state_bytes": req.state_bytes,
                "build_limits": req.build_limits.iter().map(|(n, v, d)| json!({"name": n, "needed": v, "default": d}))
                    .collect::<Vec<_>>(),
            },
        })
    }

    /// A readable summary: header, I/O, tensors, stages with their ops and tiling, ops.
    pub fn to_text(&self, file: &str) -> String {
        let h = &self.header;
        let v = h.version;
        let mut o = String::new();
        let weights: u64 = self.weights.iter().map(|w| w.size_bytes as u64).sum();
        let name = if self.model_name.is_empty() {
            String::new()
        } else {
            format!(", model \"{}\"", self.model_name)
        };
        let _ = writeln!(
            o,
            "{file}: TiGrIS plan, schema {v}{name}, {}",
            human(h.file_size as u64)
        );
        let _ = writeln!(
            o,
            "budget {} fast, unscheduled peak {}, weights {} ({}, {})",
            human(h.budget as u64),
            human(h.peak as u64),
            human(weights),
            if h.xip() {
                "read in place (XIP)"
            } else {
                "loaded by stage"
            },
            if self.weight_compression == 1 {
                "LZ4"
            } else {
                "uncompressed"
            },
        );
        let req = self.requirements();
        let _ = write!(o, "fast arena {}", human(req.fast_arena_bytes));
        if req.decompression_bytes > 0 {
            let _ = write!(
                o,
                " (incl. {} decompressed weights)",
                human(req.decompression_bytes)
            );
        }
        if self.state_bytes > 0 {
            let _ = write!(o, ", state {}", human(self.state_bytes as u64));
        }
        let _ = writeln!(o);
        for (label, list) in [
            ("input", &self.model_inputs),
            ("output", &self.model_outputs),
        ] {
            for &i in list {
                if let Some(t) = self.tensor(i) {
                    let _ = writeln!(
                        o,
                        "  {label:<6} {:<3} {:<24} {} {} ({}, stored {})",
                        i,
                        self.tensor_name(i),
                        dims(&t.shape),
                        dtype_name(t.interface_dtype(v)),
                        t.layout(v),
                        dtype_name(t.dtype)
                    );
                }
            }
        }

        let _ = writeln!(o, "\nstages");
        for (i, st) in self.stages.iter().enumerate() {
            let p = self.prediction(i);
            let _ = writeln!(
                o,
                "  stage {i:<3} peak {:>10}  {}",
                human(st.peak_bytes as u64),
                tiling_text(&p)
            );
            for &oi in &st.ops {
                if let Some(op) = self.ops.get(oi as usize) {
                    let ins: Vec<String> = op.inputs.iter().map(|&t| self.tensor_name(t)).collect();
                    let outs: Vec<String> =
                        op.outputs.iter().map(|&t| self.tensor_name(t)).collect();
                    let _ = writeln!(
                        o,
                        "    op {oi:<3} {:<18} {:<20} {} -> {}",
                        op.type_name(),
                        if op.name.is_empty() {
                            "(unnamed)"
                        } else {
                            &op.name
                        },
                        ins.join(", "),
                        outs.join(", ")
                    );
                }
            }
        }
        if self.stages.is_empty() {
            let _ = writeln!(o, "  (none)");
        }

        let _ = writeln!(o, "\ntensors");
        let _ = writeln!(
            o,
            "  {:>3}  {:<28} {:<8} {:<16} {:>10}  {:<11} {:<5} flags",
            "id", "name", "dtype", "shape", "bytes", "layout", "quant"
        );
        for (i, t) in self.tensors.iter().enumerate() {
            let line = format!(
                "  {:>3}  {:<28} {:<8} {:<16} {:>10}  {:<11} {:<5} {}",
                i,
                self.tensor_name(i as u16),
                dtype_name(t.dtype),
                dims(&t.shape),
                t.size_bytes,
                t.layout(v),
                t.quant_param.map_or("-".to_string(), |q| q.to_string()),
                t.flag_names().join(",")
            );
            let _ = writeln!(o, "{}", line.trim_end());
        }

        let _ = writeln!(o, "\nops");
        for (i, op) in self.ops.iter().enumerate() {
            let s = op.spatial;
            let name = if op.name.is_empty() {
                "(unnamed)"
            } else {
                &op.name
            };
            let mut line = format!(
                "  {:>3}  stage {:<3} {:<18} {:<20}",
                i,
                op.stage,
                op.type_name(),
                name
            );
            if s.kernel_h > 0 {
                let _ = write!(
                    line,
                    " k {}x{} s {}x{} pad {},{},{},{} dil {}x{} group {}",
                    s.kernel_h,
                    s.kernel_w,
                    s.stride_h,
                    s.stride_w,
                    s.pad_top,
                    s.pad_bottom,
                    s.pad_left,
                    s.pad_right,
                    s.dilation_h,
                    s.dilation_w,
                    s.group
                );
            }
            if op.fused_act != 0 {
                let _ = write!(line, " +{}", op.fused_activation());
            }
            for (label, w) in [("weight", op.weight), ("bias", op.bias)] {
                if let Some(w) = w.and_then(|w| self.weights.get(w as usize)) {
                    let _ = write!(line, " {label} {}", human(w.size_bytes as u64));
                }
            }
            for a in &op.attributes {
                let _ = write!(line, " {}={}", a.name(), attr_text(a));
            }
            let _ = writeln!(o, "{}", line.trim_end());
        }
        if !self.weight_blocks.is_empty() {
            let _ = writeln!(
                o,
                "\nweight blocks ({})",
                if self.weight_compression == 1 {
                    "LZ4"
                } else {
                    "stored"
                }
            );
            for b in &self.weight_blocks {
                let _ = writeln!(
                    o,
                    "  stage {:<3} weights {}..{}  {} -> {}",
                    b.stage,
                    b.first_weight,
                    b.first_weight as u32 + b.num_weights as u32,
                    human(b.compressed_size as u64),
                    human(b.uncompressed_size as u64)
                );
            }
        }
        if !self.state.is_empty() {
            let _ = writeln!(o, "\nstate ({})", human(self.state_bytes as u64));
            for e in &self.state {
                let out = e.output.map_or("-".to_string(), |t| self.tensor_name(t));
                let _ = writeln!(
                    o,
                    "  {} -> {}  offset {} size {}",
                    self.tensor_name(e.input),
                    out,
                    e.offset,
                    e.size_bytes
                );
            }
        }
        if !self.subgraphs.is_empty() {
            let _ = writeln!(o, "\nsubgraphs");
            for (i, g) in self.subgraphs.iter().enumerate() {
                let stages = match g.num_stages {
                    0 => "no stages".to_string(),
                    1 => format!("stage {}", g.first_stage),
                    n => format!(
                        "stages {}-{}",
                        g.first_stage,
                        g.first_stage as u32 + n as u32 - 1
                    ),
                };
                let names = |l: &[u16]| {
                    l.iter()
                        .map(|&t| self.tensor_name(t))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(
                    o,
                    "  {i}{}: {stages}, inputs [{}], outputs [{}]",
                    if i == 0 { " (main)" } else { "" },
                    names(&g.inputs),
                    names(&g.outputs)
                );
            }
        }
        o
    }
}

fn prediction_json(p: &Prediction) -> Value {
    json!({
        "execution": p.execution.name(), "axis": p.axis, "tiles": p.tiles, "tile_height": p.tile_height,
        "tile_width": p.tile_width, "halo": p.halo, "receptive_field": p.receptive_field,
        "original_height": p.original_height, "tiled_peak_bytes": p.tiled_peak_bytes,
        "overhead_bytes": p.overhead_bytes, "overhead_estimated": p.overhead_estimated,
        "channel_group": p.channel_group, "spatial_interval": p.spatial_interval,
        "chain": p.chain.as_ref().map(|c| json!({
            "head": c.head, "len": c.len, "position": c.position, "tile_h": c.tile_h,
            "line_buffered": c.line_buffered, "output_rows": c.output_rows,
            "input_rows_per_tile": c.input_rows_per_tile, "receptive_field": c.receptive_field,
            "stride": c.stride, "tile_bytes": c.tile_bytes, "next_height_bytes": c.next_height_bytes,
        })),
    })
}

fn tiling_text(p: &Prediction) -> String {
    match (p.execution, &p.chain) {
        (Execution::ChainHead, Some(c)) => format!(
            "chain of {} (stages {}-{}), {} tiles of {} output rows ({} input rows), rf {}, {}, ~{} per tile",
            c.len,
            c.head,
            c.head as u32 + c.len as u32 - 1,
            p.tiles,
            c.tile_h,
            c.input_rows_per_tile,
            c.receptive_field,
            if c.line_buffered { "line buffered" } else { "recomputes overlap" },
            human(c.tile_bytes)
        ),
        (Execution::ChainMember, Some(c)) => format!("in chain of stage {} (member {})", c.head, c.position),
        (Execution::Tiled, _) => {
            let shape = if p.channel_group > 0 {
                format!(
                    "{} tiles: channel groups of {} x intervals of {} over {} positions",
                    p.tiles, p.channel_group, p.spatial_interval, p.original_height
                )
            } else if p.axis == 3 {
                format!(
                    "{} tiles of {}x{} (rows x cols) over {} rows",
                    p.tiles, p.tile_height, p.tile_width, p.original_height
                )
            } else {
                format!("{} tiles of {} over {} rows", p.tiles, p.tile_height, p.original_height)
            };
            format!(
                "{shape} ({}), halo {}, rf {}, tiled peak {}, overhead {}{}",
                axis_name(p.axis),
                p.halo,
                p.receptive_field,
                human(p.tiled_peak_bytes),
                human(p.overhead_bytes),
                if p.overhead_estimated { " (estimated)" } else { "" }
            )
        }
        _ => "untiled".to_string(),
    }
}

fn attr_text(a: &OpAttribute) -> String {
    match a.values() {
        AttrValues::Ints(v) => format!("{v:?}"),
        AttrValues::Floats(v) => format!("{v:?}"),
        AttrValues::Bytes(v) => format!("{} bytes", v.len()),
    }
}

fn dims(shape: &[i32]) -> String {
    if shape.is_empty() {
        "scalar".into()
    } else {
        shape
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join("x")
    }
}

fn human(b: u64) -> String {
    if b < 1024 {
        format!("{b} B")
    } else if b < 1024 * 1024 {
        format!("{:.2} KiB", b as f64 / 1024.0)
    } else {
        format!("{:.2} MiB", b as f64 / (1024.0 * 1024.0))
    }
}

// ---------------------------------------------------------------------------------------------------
// CLI

/// `tigris-sim plan ...`
#[derive(clap::Subcommand)]
pub enum PlanCommand {
    /// Decode a TiGrIS .tgrs plan (schema 2-10): header, tensors, stages with ops and tiling, and
    /// what the planner predicted. Exit code 2 when the file is not a valid plan.
    Inspect {
        /// The .tgrs plan file.
        file: String,
        /// Print the decoded plan as JSON (layout in docs/tigris.md).
        #[arg(long)]
        json: bool,
    },
}

/// Run a `plan` subcommand; an error (bad file) makes the binary exit with code 2.
pub fn run(cmd: PlanCommand) -> anyhow::Result<()> {
    match cmd {
        PlanCommand::Inspect { file, json } => {
            let data =
                std::fs::read(&file).map_err(|e| anyhow::anyhow!("cannot read {file}: {e}"))?;
            let plan = Plan::parse(&data)
                .map_err(|e| anyhow::anyhow!("{file}: invalid TiGrIS plan: {e}"))?;
            let text = if json {
                let mut s = serde_json::to_string_pretty(&plan.to_json())?;
                s.push('\n');
                s
            } else {
                let shown = std::path::Path::new(&file)
                    .file_name()
                    .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
                plan.to_text(&shown)
            };
            // A closed pipe (`| head`) is not worth a panic.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A hand-built plan: one 3x3 conv over a 1x4x4x1 float tensor, one stage with one tile plan,
    // one weight. Sections are laid out after the header and directory, 16-byte aligned.

    struct Hdr {
        version: u32,
        num_tensors: u16,
        num_ops: u16,
        num_stages: u16,
        num_tile_plans: u16,
        num_weights: u16,
        num_quant: u16,
        model_io_off: u16,
        dir_off: Option<u32>,
    }

    fn hdr(version: u32) -> Hdr {
        Hdr {
            version,
            num_tensors: 2,
            num_ops: 1,
            num_stages: 1,
            num_tile_plans: 1,
            num_weights: 1,
            num_quant: 0,
            model_io_off: 5,
            dir_off: None,
        }
    }

    fn le16(v: &[u16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn le32(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn tensor(name: u32, size: u32, shape_off: u16, flags: u8) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(name.to_le_bytes());
        r.extend(size.to_le_bytes());
        r.extend(shape_off.to_le_bytes());
        r.extend([4, 1, flags]); // ndim, dtype f32, flags
        r.extend(NONE16.to_le_bytes());
        r.push(0);
        r
    }

    fn conv_op() -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(12u32.to_le_bytes()); // "conv"
        r.extend([1, 1, 1, 0]); // Conv, 1 input, 1 output, stage 0
        r.extend(le16(&[0, 1])); // inputs at 0, outputs at 1
        r.extend([3, 3, 1, 1]);
        r.extend(le16(&[1, 1, 1, 1, 1, 1, 1])); // pads, dilations, group
        r.extend(le16(&[0, NONE16])); // weight 0, no bias
        r.extend([1, 0x80, 0x7F, 0]); // fused relu, act range
        assert_eq!(r.len() as u64, OP_SIZE);
        r
    }

    fn stage(tile: u16, chain_id: u16, chain_len: u16) -> Vec<u8> {
        let mut r = 128u32.to_le_bytes().to_vec();
        r.extend(le16(&[
            2, 1, 3, 1, 4, 1, tile, 0, chain_id, chain_len, 0, 0,
        ]));
        r
    }

    fn tile_plan(version: u32) -> Vec<u8> {
        if version >= 10 {
            let mut r = vec![1, 1, 0, 0];
            r.extend(le32(&[2, 0, 0, 0, 0, 0, 100]));
            r
        } else {
            let mut r = vec![1, if version >= 5 { 1 } else { 0 }];
            r.extend(le16(&[2, 2, 2, 3, 4]));
            r.extend(le32(&[100, 32]));
            r.extend(le16(&[0, 0]));
            r
        }
    }

    fn sections(version: u32) -> Vec<(u32, Vec<u8>)> {
        let strings = b"\0model\0in\0out\0conv\0w\0".to_vec(); // 0 "", 1 model, 7 in, 10 out, 14 conv, 19 w
        let mut tensors = tensor(7, 64, 0, TENSOR_MODEL_INPUT);
        tensors.extend(tensor(10, 64, 4, TENSOR_MODEL_OUTPUT));
        // tensor names: patch conv op name offset to 14
        let mut op = conv_op();
        op[..4].copy_from_slice(&14u32.to_le_bytes());
        let mut weights = 19u32.to_le_bytes().to_vec();
        weights.extend(0u32.to_le_bytes());
        weights.extend(36u32.to_le_bytes());
        weights.extend([0u8; 36]);
        vec![
            (1, tensors),
            (2, op),
            (3, stage(0, NONE16, 0)),
            (4, tile_plan(version)),
            (5, le16(&[0, 1, 0, 0, 1, 0, 1])),
            (6, le32(&[1, 4, 4, 1, 1, 4, 4, 1])),
            (7, strings),
            (8, weights),
        ]
    }

    fn build(h: &Hdr, secs: &[(u32, Vec<u8>)]) -> Vec<u8> {
        let dir_off = h.dir_off.unwrap_or(48);
        let mut body_start = 48 + (secs.len() as u64 + 1) * 8;
        body_start = body_start.div_ceil(16) * 16;
        let mut dir = Vec::new();
        let mut body = Vec::new();
        for (kind, data) in secs {
            let off = body_start + body.len() as u64;
            dir.extend(kind.to_le_bytes());
            dir.extend((off as u32).to_le_bytes());
            body.extend(data);
            while body.len() % 16 != 0 {
                body.push(0);
            }
        }
        dir.extend([0u8; 8]);
        let mut out = Vec::new();
        out.extend(MAGIC);
        out.extend(h.version.to_le_bytes());
        out.extend(0u32.to_le_bytes()); // file size, patched below
        out.extend(dir_off.to_le_bytes());
        out.extend(le16(&[
            h.num_tensors,
            h.num_ops,
            h.num_stages,
            h.num_tile_plans,
        ]));
        out.extend(1024u32.to_le_bytes());
        out.extend(128u32.to_le_bytes());
        out.extend(1u32.to_le_bytes()); // "model"
        out.extend(h.model_io_off.to_le_bytes());
        out.extend([1, 1]);
        out.extend(le16(&[h.num_weights, h.num_quant]));
        out.extend(0u32.to_le_bytes());
        assert_eq!(out.len(), 48);
        out.extend(dir);
        out.resize(body_start as usize, 0);
        out.extend(body);
        let n = out.len() as u32;
        out[8..12].copy_from_slice(&n.to_le_bytes());
        out
    }

    fn good(version: u32) -> Vec<u8> {
        build(&hdr(version), &sections(version))
    }

    /// Absolute offset of section `kind` in a built plan.
    fn sec(buf: &[u8], kind: u32) -> usize {
        let mut at = u32::from_le_bytes(buf[12..16].try_into().unwrap()) as usize;
        loop {
            let k = u32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
            assert_ne!(k, 0, "section {kind} not in the plan");
            if k == kind {
                return u32::from_le_bytes(buf[at + 4..at + 8].try_into().unwrap()) as usize;
            }
            at += 8;
        }
    }

    fn put16(buf: &mut [u8], at: usize, v: u16) {
        buf[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }

    fn put32(buf: &mut [u8], at: usize, v: u32) {
        buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn err(buf: &[u8]) -> PlanError {
        match Plan::parse(buf) {
            Ok(_) => panic!("a bad plan was accepted"),
            Err(e) => e,
        }
    }

    fn with_section(version: u32, kind: u32, data: Vec<u8>) -> Vec<u8> {
        let mut s = sections(version);
        s.retain(|x| x.0 != kind);
        s.push((kind, data));
        build(&hdr(version), &s)
    }

    #[test]
    fn a_hand_built_plan_reads_back() {
        for v in MIN_SCHEMA..=MAX_SCHEMA {
            let p = Plan::parse(&good(v)).unwrap_or_else(|e| panic!("schema {v}: {e}"));
            assert_eq!(p.header.version, v);
            assert_eq!(p.model_name, "model");
            assert_eq!(p.tensors[0].name, "in");
            assert_eq!(p.tensors[1].shape, vec![1, 4, 4, 1]);
            assert_eq!(p.ops[0].type_name(), "Conv");
            assert_eq!(p.ops[0].name, "conv");
            assert_eq!(p.ops[0].fused_activation(), "Relu");
            assert_eq!((p.ops[0].act_min, p.ops[0].act_max), (-128, 127));
            assert_eq!(p.ops[0].weight, Some(0));
            assert_eq!(p.ops[0].bias, None);
            assert_eq!(p.stages[0].tile_plan, Some(0));
            assert_eq!(
                (p.model_inputs.clone(), p.model_outputs.clone()),
                (vec![0], vec![1])
            );
            assert_eq!(p.weights[0].size_bytes, 36);
            let t = &p.tile_plans[0];
            // Schema 10 derives what 9 stores; both describe the same 2 tiles of 2 rows, rf 3, halo 2.
            assert_eq!(
                (t.tileable, t.axis, t.tile_height, t.num_tiles),
                (true, 1, 2, 2),
                "schema {v}"
            );
            assert_eq!(
                (t.halo, t.receptive_field, t.original_height),
                (2, 3, 4),
                "schema {v}"
            );
            assert_eq!(t.v10.is_some(), v >= 10);
            let pred = p.prediction(0);
            assert_eq!(pred.execution, Execution::Tiled);
            assert_eq!(pred.tiles, 2);
            if v >= 10 {
                // 64 bytes over 4 rows: 2 halo rows = 32 bytes, once per tile boundary.
                assert_eq!((pred.overhead_bytes, pred.overhead_estimated), (32, true));
            } else {
                assert_eq!((pred.overhead_bytes, pred.overhead_estimated), (32, false));
            }
            let text = p.to_text("x.tgrs");
            assert!(
                text.contains("2 tiles of 2 over 4 rows (height), halo 2, rf 3"),
                "{text}"
            );
            let j = p.to_json();
            assert_eq!(j["schema"], v);
            assert_eq!(j["ops"][0]["type"], "Conv");
        }
    }

    #[test]
    fn op_type_table_matches_the_v10_schema_codes() {
        assert_eq!(OP_TYPES.len(), 93);
        assert_eq!(op_type_name(1), "Conv");
        assert_eq!(op_type_name(32), "Conv1D");
        assert_eq!(op_type_name(34), "Erf");
        assert_eq!(op_type_name(91), "Dequantize");
        assert_eq!(op_type_name(92), "Gelu");
        assert_eq!(op_type_name(0), "unknown(0)");
        assert_eq!(op_type_name(93), "unknown(93)");
        let mut names: Vec<&str> = OP_TYPES[1..].to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 92, "names are unique");
    }

    #[test]
    fn schema_2_to_4_tile_axis_and_op_stage_byte() {
        let mut b = good(4);
        // The op's stage byte is authoritative before schema 5.
        let o = sec(&b, 2);
        b[o + 7] = 3;
        let p = Plan::parse(&b).unwrap();
        assert_eq!(p.tile_plans[0].axis, 1, "v4 wrote 0 for a height tile plan");
        assert_eq!(p.ops[0].stage, 3);
        let mut b = good(5);
        let o = sec(&b, 2);
        b[o + 7] = 3;
        let p = Plan::parse(&b).unwrap();
        assert_eq!(
            (p.ops[0].stage, p.ops[0].stage_byte),
            (0, 3),
            "v5+: the stage table decides"
        );
    }

    #[test]
    fn bad_magic() {
        let mut b = good(9);
        b[0] = b'X';
        assert!(matches!(err(&b), PlanError::BadMagic { .. }));
        assert!(matches!(err(b"\x7fELF"), PlanError::BadMagic { .. }));
        assert!(err(b"PK\x03\x04 a zip")
            .to_string()
            .contains("not a TiGrIS plan"));
    }

    #[test]
    fn too_short() {
        assert_eq!(err(b""), PlanError::TooShort { len: 0 });
        assert_eq!(err(b"TG"), PlanError::TooShort { len: 2 });
        let b = good(9);
        assert_eq!(err(&b[..47]), PlanError::TooShort { len: 47 });
    }

    #[test]
    fn unknown_schema() {
        for v in [0, 1, 11, 0xFFFF_FFFF] {
            let mut b = good(9);
            put32(&mut b, 4, v);
            assert_eq!(err(&b), PlanError::UnsupportedVersion { version: v });
        }
        let mut b = good(9);
        put32(&mut b, 4, 11);
        assert!(err(&b).to_string().contains("schema version 11"));
    }

    #[test]
    fn truncated_or_padded_file() {
        let b = good(9);
        let e = err(&b[..b.len() - 1]);
        assert!(matches!(e, PlanError::FileSizeMismatch { .. }), "{e}");
        assert!(e.to_string().contains("file_size"));
        let mut p = b.clone();
        p.push(0);
        assert!(matches!(err(&p), PlanError::FileSizeMismatch { .. }));
    }

    #[test]
    fn directory_errors() {
        let mut h = hdr(9);
        h.dir_off = Some(16);
        assert_eq!(
            err(&build(&h, &sections(9))),
            PlanError::DirectoryInHeader { offset: 16 }
        );

        // Directory at the very end: no room for the end entry.
        let mut b = good(9);
        let n = b.len() as u32;
        put32(&mut b, 12, n - 4);
        assert!(matches!(err(&b), PlanError::NoDirectoryEnd { .. }));

        let mut s = sections(9);
        s.push((14, vec![0; 4]));
        assert!(matches!(
            err(&build(&hdr(9), &s)),
            PlanError::UnknownSection { kind: 14, .. }
        ));

        let mut s = sections(9);
        s.push((7, b"\0".to_vec()));
        assert!(matches!(
            err(&build(&hdr(9), &s)),
            PlanError::DuplicateSection {
                name: "strings",
                ..
            }
        ));

        let mut b = good(9);
        let len = b.len() as u32;
        put32(&mut b, 48 + 4, len + 1); // first entry: tensors
        assert!(matches!(
            err(&b),
            PlanError::SectionPastEnd {
                name: "tensors",
                ..
            }
        ));

        let mut b = good(9);
        put32(&mut b, 48 + 4, 40); // tensors inside the header
        assert!(matches!(
            err(&b),
            PlanError::SectionOverlapsDirectory {
                name: "tensors",
                ..
            }
        ));
    }

    #[test]
    fn missing_sections() {
        for (kind, name) in [
            (1, "tensors"),
            (2, "ops"),
            (5, "index_pool"),
            (6, "shape_pool"),
            (7, "strings"),
            (3, "stages"),
            (4, "tile_plans"),
            (8, "weights"),
        ] {
            let mut s = sections(9);
            s.retain(|x| x.0 != kind);
            assert_eq!(
                err(&build(&hdr(9), &s)),
                PlanError::MissingSection { name, kind },
                "{name}"
            );
        }
        // Without stages, tile plans or weights they are not needed.
        let mut h = hdr(9);
        (h.num_stages, h.num_tile_plans, h.num_weights) = (0, 0, 0);
        let mut s = sections(9);
        s.retain(|x| ![3, 4, 8].contains(&x.0));
        s[1].1[30..32].copy_from_slice(&NONE16.to_le_bytes()); // the op's weight
        let p = Plan::parse(&build(&h, &s)).unwrap();
        assert!(p.stages.is_empty() && p.weights.is_empty());
    }

    #[test]
    fn tables_longer_than_their_sections() {
        for (field, name) in [
            (16, "tensors"),
            (18, "ops"),
            (20, "stages"),
            (22, "tile_plans"),
        ] {
            let mut b = good(9);
            put16(&mut b, field, 200);
            let e = err(&b);
            assert!(
                matches!(&e, PlanError::OutOfSection { section, .. } if *section == name),
                "{name}: {e}"
            );
        }
        // Two 24-byte tile plans (48 bytes) fit schema 9 but not schema 10's 32-byte records.
        let mut two = tile_plan(9);
        two.extend(tile_plan(9));
        let mut h = hdr(9);
        h.num_tile_plans = 2;
        let mut s = sections(9);
        s[3].1 = two;
        assert!(Plan::parse(&build(&h, &s)).is_ok());
        h.version = 10;
        assert!(matches!(
            err(&build(&h, &s)),
            PlanError::OutOfSection {
                section: "tile_plans",
                ..
            }
        ));
        let mut b = good(9);
        put16(&mut b, 40, 50);
        assert!(matches!(
            err(&b),
            PlanError::OutOfSection {
                section: "weights",
                ..
            }
        ));
    }

    #[test]
    fn out_of_range_offsets() {
        // String offset past the strings section.
        let mut b = good(9);
        put32(&mut b, 32, 5000);
        let e = err(&b);
        assert!(
            matches!(
                e,
                PlanError::OutOfSection {
                    section: "strings",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("model_name_str"));
        // Shape offset past the shape pool.
        let mut b = good(9);
        let t = sec(&b, 1);
        put16(&mut b, t + 8, 1000);
        let e = err(&b);
        assert!(
            matches!(
                e,
                PlanError::OutOfSection {
                    section: "shape_pool",
                    ..
                }
            ) && e.to_string().contains("tensor 0"),
            "{e}"
        );
        // Index-pool offsets: op inputs, stage ops, model I/O.
        let mut b = good(9);
        let o = sec(&b, 2);
        put16(&mut b, o + 8, 4000);
        assert!(matches!(
            err(&b),
            PlanError::OutOfSection {
                section: "index_pool",
                ..
            }
        ));
        let mut b = good(9);
        let s = sec(&b, 3);
        put16(&mut b, s + 4, 4000);
        assert!(err(&b).to_string().contains("stage 0"));
        let mut h = hdr(9);
        h.model_io_off = 4000;
        let e = err(&build(&h, &sections(9)));
        assert!(e.to_string().contains("model_io_off"), "{e}");
        // Weight data past its section.
        let mut b = good(9);
        let w = sec(&b, 8);
        put32(&mut b, w + 8, 100_000);
        assert!(matches!(
            err(&b),
            PlanError::OutOfSection {
                section: "weights",
                ..
            }
        ));
    }

    #[test]
    fn bad_strings() {
        // The strings section fills whole 16-byte units and its last string ("w…", the weight's
        // name) has no NUL before the next section starts.
        let mut strings = b"\0model\0in\0out\0conv\0w".to_vec();
        strings.resize(32, b'x');
        let e = err(&with_section(9, 7, strings));
        assert!(
            matches!(e, PlanError::UnterminatedString { offset: 19, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("weight 0"), "{e}");
        let b = with_section(9, 7, b"\0model\0\xff\xfe\0out\0conv\0w\0".to_vec());
        assert!(matches!(err(&b), PlanError::BadString { offset: 7, .. }));
    }

    #[test]
    fn bad_references() {
        let mut b = good(9);
        let o = sec(&b, 5);
        put16(&mut b, o, 9); // op input -> tensor 9
        assert!(matches!(
            err(&b),
            PlanError::BadReference {
                target: "tensor",
                index: 9,
                ..
            }
        ));
        let mut b = good(9);
        let o = sec(&b, 2);
        put16(&mut b, o + 30, 5); // weight 5
        assert!(matches!(
            err(&b),
            PlanError::BadReference {
                target: "weight",
                index: 5,
                ..
            }
        ));
        let mut b = good(9);
        let s = sec(&b, 3);
        put16(&mut b, s + 16, 3); // tile plan 3
        assert!(matches!(
            err(&b),
            PlanError::BadReference {
                target: "tile plan",
                index: 3,
                ..
            }
        ));
        let mut b = good(9);
        let t = sec(&b, 1);
        put16(&mut b, t + 13, 0); // quant param 0 of none
        assert!(matches!(
            err(&b),
            PlanError::BadReference {
                target: "quant param",
                ..
            }
        ));
        let mut b = good(9);
        let i = sec(&b, 5);
        put16(&mut b, i + 2 * 5, 7); // model input -> tensor 7
        assert!(matches!(
            err(&b),
            PlanError::BadReference {
                target: "tensor",
                index: 7,
                ..
            }
        ));
    }

    #[test]
    fn stage_table_must_partition_the_ops() {
        // The stage lists op 0 twice.
        let mut s = sections(9);
        s[4].1 = le16(&[0, 1, 0, 0, 1, 0, 1]);
        let mut st = 128u32.to_le_bytes().to_vec();
        st.extend(le16(&[2, 2, 3, 1, 4, 1, 0, 0, NONE16, 0, 0, 0]));
        s[2].1 = st; // ops at index-pool 2..4 = [0, 0]
        let e = err(&build(&hdr(9), &s));
        assert!(e.to_string().contains("already belongs"), "{e}");
        // No stage runs the op.
        let mut s = sections(9);
        let mut st = 128u32.to_le_bytes().to_vec();
        st.extend(le16(&[2, 0, 3, 1, 4, 1, 0, 0, NONE16, 0, 0, 0]));
        s[2].1 = st;
        assert!(err(&build(&hdr(9), &s))
            .to_string()
            .contains("belongs to no stage"));
        // The stage lists op 5.
        let mut b = good(9);
        let i = sec(&b, 5);
        put16(&mut b, i + 4, 5);
        assert!(matches!(
            err(&b),
            PlanError::BadReference {
                target: "op",
                index: 5,
                ..
            }
        ));
    }

    #[test]
    fn chains_must_be_consistent() {
        for (chain_id, chain_len, want) in [
            (7, 0, "refers to stage 7"),
            (0, 2, "past the 1-stage table"),
            (NONE16, 1, "without a head"),
        ] {
            let mut s = sections(9);
            s[2].1 = stage(0, chain_id, chain_len);
            let e = err(&build(&hdr(9), &s));
            assert!(e.to_string().contains(want), "{e}");
        }
    }

    #[test]
    fn optional_sections_are_bounds_checked() {
        // Quant params: count differs from the header.
        let mut q = le16(&[1, 0]);
        q.extend(1.0f32.to_le_bytes());
        q.extend(le32(&[0]));
        q.extend(le16(&[1, 0, 0, 0]));
        let b = with_section(9, 9, q.clone());
        assert!(err(&b).to_string().contains("num_quant_params"));
        // Per-channel arrays beyond the section.
        let mut h = hdr(9);
        h.num_quant = 1;
        let mut q2 = le16(&[1, 0]);
        q2.extend(1.0f32.to_le_bytes());
        q2.extend(le32(&[0]));
        q2.extend(le16(&[4, 0, 100, 0]));
        let mut s = sections(9);
        s.push((9, q2));
        assert!(matches!(
            err(&build(&h, &s)),
            PlanError::OutOfSection {
                section: "quant_params",
                ..
            }
        ));
        let mut s = sections(9);
        s.push((9, q));
        assert!(Plan::parse(&build(&h, &s)).is_ok());
        // Weight blocks: unknown compression, blob past the section.
        let b = with_section(9, 10, le16(&[0, 7]));
        assert!(err(&b).to_string().contains("compression 7"));
        let mut wb = le16(&[1, 1, 0, 0, 1, 0]);
        wb.extend(le32(&[0, 5000, 36]));
        assert!(matches!(
            err(&with_section(9, 10, wb)),
            PlanError::OutOfSection {
                section: "weight_blocks",
                ..
            }
        ));
        // Op attributes: payload past the section, wrong size for its kind, unknown op.
        let mut a = le16(&[1, 0, 0]);
        a.extend([1, 200]);
        a.extend(le32(&[0]));
        assert!(matches!(
            err(&with_section(9, 11, a)),
            PlanError::OutOfSection {
                section: "op_attributes",
                ..
            }
        ));
        let mut a = le16(&[1, 0, 0]);
        a.extend([2, 3]); // epsilon is an f32: 3 bytes is wrong
        a.extend(le32(&[0]));
        a.extend([0, 0, 0]);
        assert!(err(&with_section(9, 11, a)).to_string().contains("epsilon"));
        let mut a = le16(&[1, 0, 4]);
        a.extend([1, 1]);
        a.extend(le32(&[0]));
        a.push(0);
        assert!(matches!(
            err(&with_section(9, 11, a)),
            PlanError::BadReference {
                target: "op",
                index: 4,
                ..
            }
        ));
        // State: initial value past the section; subgraph lists past the index pool.
        let mut st = le16(&[1, 0]);
        st.extend(le32(&[64]));
        st.extend(le16(&[0, NONE16]));
        st.extend(le32(&[0, 64, 24]));
        assert!(matches!(
            err(&with_section(10, 12, st)),
            PlanError::OutOfSection {
                section: "state",
                ..
            }
        ));
        let mut sg = le16(&[1, 0]);
        sg.extend(le16(&[0, 1, 900, 1, 0, 1]));
        assert!(matches!(
            err(&with_section(10, 13, sg)),
            PlanError::OutOfSection {
                section: "index_pool",
                ..
            }
        ));
        // Headers of optional sections that do not fit: an empty section last ends with the plan.
        for (kind, name) in [
            (9, "quant_params"),
            (10, "weight_blocks"),
            (11, "op_attributes"),
            (12, "state"),
            (13, "subgraphs"),
        ] {
            let mut s = sections(10);
            s.push((kind, vec![]));
            let e = err(&build(&hdr(10), &s));
            assert!(
                matches!(&e, PlanError::OutOfSection { section, .. } if *section == name),
                "{name}: {e}"
            );
        }
    }

    #[test]
    fn schema_10_state_and_subgraphs() {
        let mut st = le16(&[1, 0]);
        st.extend(le32(&[64]));
        st.extend(le16(&[0, 1]));
        st.extend(le32(&[0, 64, 24]));
        st.extend([7u8; 64]);
        let mut s = sections(10);
        s.push((12, st));
        let mut sg = le16(&[1, 0]);
        sg.extend(le16(&[0, 1, 3, 1, 4, 1]));
        s.push((13, sg));
        let p = Plan::parse(&build(&hdr(10), &s)).unwrap();
        assert_eq!(p.state_bytes, 64);
        assert_eq!(
            p.state[0],
            StateEntry {
                input: 0,
                output: Some(1),
                offset: 0,
                size_bytes: 64,
                initial: 24
            }
        );
        assert_eq!(
            p.subgraphs[0],
            Subgraph {
                first_stage: 0,
                num_stages: 1,
                inputs: vec![0],
                outputs: vec![1]
            }
        );
        assert_eq!(p.requirements().state_bytes, 64);
    }

    /// Every byte changed three ways and every truncation (with file_size patched to match, so the
    /// deeper checks run) must give Ok or Err, never a panic.
    fn no_panic_on_any_corruption(buf: &[u8]) {
        for i in 0..buf.len() {
            for v in [0x00, 0xFF, buf[i].wrapping_add(1)] {
                let mut b = buf.to_vec();
                b[i] = v;
                let _ = Plan::parse(&b).map(|p| (p.to_json(), p.to_text("x"), p.predictions()));
            }
        }
        for n in 0..buf.len() {
            let mut b = buf[..n].to_vec();
            if n >= 12 {
                let len = n as u32;
                b[8..12].copy_from_slice(&len.to_le_bytes());
            }
            // Cutting padding or unread blob bytes can leave a valid plan: only no panic is required.
            let _ = Plan::parse(&b);
        }
    }

    #[test]
    fn corrupted_hand_built_plans_never_panic() {
        for v in [2, 4, 9, 10] {
            no_panic_on_any_corruption(&good(v));
        }
    }

    #[test]
    fn corrupted_tigris_fixtures_never_panic() {
        let fixtures: [&[u8]; 9] = [
            include_bytes!("../../tests/tigris/fixtures/schema_compat/schema-v2-linear.tgrs"),
            include_bytes!("../../tests/tigris/fixtures/schema_compat/schema-v3-qdq-conv.tgrs"),
            include_bytes!("../../tests/tigris/fixtures/schema_compat/schema-v4-transpose.tgrs"),
            include_bytes!("../../tests/tigris/fixtures/schema_compat/schema-v5-conv1d-axis.tgrs"),
            include_bytes!(
                "../../tests/tigris/fixtures/schema_compat/schema-v6-interface-dtype.tgrs"
            ),
            include_bytes!(
                "../../tests/tigris/fixtures/schema_compat/schema-v7-tensor-layout.tgrs"
            ),
            include_bytes!("../../tests/tigris/fixtures/schema_compat/schema-v8-layer-norm.tgrs"),
            include_bytes!(
                "../../tests/tigris/fixtures/schema_compat/schema-v9-binary-requant.tgrs"
            ),
            include_bytes!("../../tests/tigris/fixtures/schema_compat/schema-v10-state.tgrs"),
        ];
        for (i, f) in fixtures.iter().enumerate() {
            let p = Plan::parse(f).unwrap_or_else(|e| panic!("fixture {i}: {e}"));
            assert_eq!(p.header.version, i as u32 + 2);
            no_panic_on_any_corruption(f);
        }
    }
}
