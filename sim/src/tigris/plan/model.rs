//! The decoded plan: header, tensors, ops and their attributes, stages, tile plans, weights, quant
//! params, weight blocks, state and subgraphs, with the small accessors the views and the runtime
//! observer use.
//!
//! Sources: tigris-ml 0.12.1 `tigris/emitters/binary/defs.py` and reader.py (record fields),
//! tigris-runtime include/tigris.h (record layouts).

use super::format::{
    op_type_name, Elem, ATTRIBUTE_KINDS, FLAG_XIP, SCHEMA_IFACE_DTYPE, SCHEMA_LAYOUT,
    TENSOR_CONSTANT, TENSOR_LINEAR, TENSOR_MODEL_INPUT, TENSOR_MODEL_OUTPUT, TENSOR_STATE,
    TILE_BAND_ON_COLUMNS,
};
use super::reader::SectionSpan;
use serde::Serialize;

/// The 48-byte header (tigris-ml 0.12.1 emitters/binary/defs.py and reader.py).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Header {
    pub(crate) version: u32,
    pub(super) file_size: u32,
    pub(super) section_dir_off: u32,
    pub(super) num_tensors: u16,
    pub(super) num_ops: u16,
    pub(super) num_stages: u16,
    pub(super) num_tile_plans: u16,
    /// Fast activation budget the plan was compiled for (`-m` less any LZ4 reserve).
    pub(crate) budget: u32,
    /// Peak of the whole model run as one untiled stage.
    pub(super) peak: u32,
    #[serde(skip)]
    pub(super) model_name_str: u32,
    pub(super) model_io_off: u16,
    pub(super) num_model_inputs: u8,
    pub(super) num_model_outputs: u8,
    pub(super) num_weights: u16,
    pub(super) num_quant_params: u16,
    pub(super) flags: u32,
}

impl Header {
    pub(super) fn xip(&self) -> bool {
        self.flags & FLAG_XIP != 0
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Tensor {
    pub(super) name: String,
    pub(crate) size_bytes: u32,
    /// As stored: channels-last (NHWC, NLC) unless the linear flag says model order.
    pub(crate) shape: Vec<i32>,
    /// ONNX data-type code.
    #[serde(rename = "dtype_code")]
    pub(super) dtype: u8,
    pub(super) flags: u8,
    pub(super) quant_param: Option<u16>,
    /// Declared boundary dtype (schema 6+), 0 = same as `dtype`.
    #[serde(rename = "iface_dtype_code")]
    pub(super) iface_dtype: u8,
}

impl Tensor {
    /// Index of the tiled (row) axis in the stored shape: H of NHWC, L of NLC, H of a model-order NCHW.
    pub(crate) fn row_axis(&self) -> Option<usize> {
        match (self.shape.len(), self.flags & TENSOR_LINEAR != 0) {
            (4, true) => Some(2),
            (3, true) => Some(1),
            (3 | 4, false) => Some(1),
            _ => None,
        }
    }
    /// The element type's name in the Hurray element-type table, from the ONNX data-type code
    /// (onnx.proto `TensorProto.DataType`).
    pub(crate) fn dtype_name(&self) -> Option<&'static str> {
        Some(match self.dtype {
            1 => "float32",
            2 => "uint8",
            3 => "int8",
            4 => "uint16",
            5 => "int16",
            6 => "int32",
            7 => "int64",
            9 => "bool",
            10 => "float16",
            11 => "float64",
            12 => "uint32",
            13 => "uint64",
            16 => "bfloat16",
            _ => return None,
        })
    }
    /// Rows along the tile axis.
    pub(super) fn rows(&self) -> Option<u32> {
        self.row_axis()
            .and_then(|a| self.shape.get(a))
            .and_then(|r| u32::try_from(*r).ok())
    }
    /// Bytes of one row along the tile axis.
    pub(super) fn row_bytes(&self) -> Option<u64> {
        self.rows()
            .filter(|r| *r > 0)
            .map(|r| self.size_bytes as u64 / r as u64)
    }
    pub(super) fn layout(&self, version: u32) -> &'static str {
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
    pub(super) fn interface_dtype(&self, version: u32) -> u8 {
        if self.iface_dtype != 0 && version >= SCHEMA_IFACE_DTYPE {
            self.iface_dtype
        } else {
            self.dtype
        }
    }
    pub(super) fn flag_names(&self) -> Vec<&'static str> {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub(super) struct Spatial {
    pub(super) kernel_h: u8,
    pub(super) kernel_w: u8,
    pub(super) stride_h: u8,
    pub(super) stride_w: u8,
    pub(super) pad_top: u16,
    pub(super) pad_bottom: u16,
    pub(super) pad_left: u16,
    pub(super) pad_right: u16,
    pub(super) dilation_h: u16,
    pub(super) dilation_w: u16,
    pub(super) group: u16,
}

impl Spatial {
    /// Effective kernel height, dilation folded in: (k-1)*d + 1.
    pub(super) fn eff_kh(&self) -> u64 {
        (self.kernel_h as u64).saturating_sub(1) * (self.dilation_h.max(1) as u64) + 1
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct OpAttribute {
    pub(super) kind: u8,
    pub(super) data: Vec<u8>,
}

/// A decoded attribute value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(super) enum AttrValues {
    Ints(Vec<i64>),
    #[serde(serialize_with = "super::json::floats")]
    Floats(Vec<f32>),
    Bytes(Vec<u8>),
}

impl OpAttribute {
    pub(super) fn name(&self) -> String {
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
    pub(super) fn values(&self) -> AttrValues {
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
    pub(super) fn elem_size(&self) -> usize {
        match self.elem() {
            Some(Elem::U8) | None => 1,
            Some(Elem::U16) => 2,
            Some(Elem::I32 | Elem::F32) => 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Op {
    pub(crate) name: String,
    /// Code of `op_types` in the v10 schema JSON; see [`op_type_name`].
    #[serde(rename = "type_code")]
    pub(super) op_type: u8,
    pub(super) inputs: Vec<u16>,
    pub(super) outputs: Vec<u16>,
    /// The op record's own stage byte (authoritative before schema 5, a low-byte hint after).
    pub(super) stage_byte: u8,
    /// The stage that runs the op: from the stage table (schema 5+), else the stage byte.
    pub(super) stage: u16,
    pub(super) spatial: Spatial,
    pub(super) weight: Option<u16>,
    pub(super) bias: Option<u16>,
    /// 0 none, 1 Relu, 2 Relu6.
    pub(super) fused_act: u8,
    pub(super) act_min: i8,
    pub(super) act_max: i8,
    #[serde(skip)]
    pub(super) attributes: Vec<OpAttribute>,
}

impl Op {
    pub(super) fn type_name(&self) -> String {
        op_type_name(self.op_type)
    }
    pub(super) fn fused_activation(&self) -> String {
        match self.fused_act {
            0 => "none".into(),
            1 => "Relu".into(),
            2 => "Relu6".into(),
            n => format!("unknown({n})"),
        }
    }
    pub(super) fn attribute(&self, kind: u8) -> Option<&OpAttribute> {
        self.attributes.iter().find(|a| a.kind == kind)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Stage {
    /// Untiled peak of the stage.
    pub(crate) peak_bytes: u32,
    pub(crate) ops: Vec<u16>,
    pub(super) inputs: Vec<u16>,
    pub(super) outputs: Vec<u16>,
    pub(super) tile_plan: Option<u16>,
    /// Head stage of the chain this stage belongs to.
    pub(super) chain_id: Option<u16>,
    /// Stages in that chain (0: not chained).
    pub(crate) chain_len: u16,
    /// On the head: most output rows of the chain's last stage per tile.
    pub(super) chain_tile_h: u16,
    pub(super) flags: u16,
}

impl Stage {
    pub(crate) fn in_chain(&self) -> bool {
        self.chain_id.is_some() && self.chain_len >= 2
    }
}

/// Raw fields of a schema-10 tile plan (32 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub(super) struct TilePlanV10 {
    pub(super) input_band_extent: u32,
    pub(super) output_band_extent: u32,
    pub(super) output_width_extent: u32,
    pub(super) input_channel_group: u32,
    pub(super) input_spatial_interval: u32,
    pub(super) output_linear_segment: u32,
}

/// A tile plan. Schema ≤ 9 stores every field; schema 10 stores the band extents (in `v10`) and the
/// summary fields are re-derived from the stage's shapes and ops (see [`derive_v10_summary`](super::summary::derive_v10_summary)).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub(super) struct TilePlan {
    pub(super) tileable: bool,
    /// 0 none, 1 height/length, 2 width (reserved), 3 height and width (2D).
    pub(super) axis: u8,
    pub(super) flags: u16,
    pub(super) tile_height: u32,
    pub(super) tile_width: u32,
    pub(super) num_tiles: u32,
    pub(super) halo: u32,
    pub(super) receptive_field: u32,
    pub(super) original_height: u32,
    pub(super) tiled_peak_bytes: u32,
    pub(super) overhead_bytes: u32,
    #[serde(flatten)]
    pub(super) v10: Option<TilePlanV10>,
}

impl TilePlan {
    pub(super) fn band_on_columns(&self) -> bool {
        self.flags & TILE_BAND_ON_COLUMNS != 0
    }
}

pub(super) fn axis_name(axis: u8) -> &'static str {
    match axis {
        0 => "none",
        1 => "height",
        2 => "width",
        3 => "height+width",
        _ => "unknown",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct Weight {
    pub(super) name: String,
    /// Offset inside the weight blob.
    pub(super) offset: u32,
    pub(super) size_bytes: u32,
    /// Absolute plan offset of the blob (after the entry table).
    pub(super) blob_base: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct QuantParam {
    #[serde(serialize_with = "super::json::float")]
    pub(super) scale: f32,
    pub(super) zero_point: i32,
    pub(super) num_channels: u16,
    pub(super) multiplier_off: u16,
    pub(super) shift_off: u16,
    pub(super) page: u16,
    /// Per-channel requantisation (only when `num_channels > 1`).
    pub(super) multipliers: Vec<i32>,
    pub(super) shifts: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct WeightBlock {
    pub(super) stage: u16,
    pub(super) first_weight: u16,
    pub(super) num_weights: u16,
    pub(super) blob_offset: u32,
    pub(super) compressed_size: u32,
    pub(super) uncompressed_size: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct StateEntry {
    pub(super) input: u16,
    pub(super) output: Option<u16>,
    pub(super) offset: u32,
    pub(super) size_bytes: u32,
    /// Section-relative offset of the initial value (`size_bytes` long).
    #[serde(rename = "initial_offset")]
    pub(super) initial: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct Subgraph {
    pub(super) first_stage: u16,
    pub(super) num_stages: u16,
    pub(super) inputs: Vec<u16>,
    pub(super) outputs: Vec<u16>,
}

/// A parsed plan. Indices in every list refer to the plan's own tables and were checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    pub(crate) header: Header,
    pub(super) sections: Vec<SectionSpan>,
    pub(crate) model_name: String,
    pub(crate) tensors: Vec<Tensor>,
    pub(crate) ops: Vec<Op>,
    pub(crate) stages: Vec<Stage>,
    pub(super) tile_plans: Vec<TilePlan>,
    pub(super) weights: Vec<Weight>,
    pub(super) quant_params: Vec<QuantParam>,
    /// 0 none, 1 LZ4 (0 also when the plan has no weight-block section).
    pub(super) weight_compression: u16,
    pub(super) weight_blocks: Vec<WeightBlock>,
    pub(super) state_bytes: u32,
    pub(super) state: Vec<StateEntry>,
    pub(super) subgraphs: Vec<Subgraph>,
    pub(super) model_inputs: Vec<u16>,
    pub(super) model_outputs: Vec<u16>,
}
