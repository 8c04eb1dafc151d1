//! The JSON view of `plan inspect --json`: the whole decoded plan plus the planner's predictions and
//! requirements (layout documented in docs/tigris.md, "Plan reader"; `sim/tests/plan.rs` compares it
//! with `tigris inspect --json` of tigris-ml 0.12.1).
//!
//! Serialized with serde: the model types derive `Serialize` for their own fields (renamed or skipped
//! where the JSON says otherwise), and the views here add the index and the derived names of each
//! object. The result goes through [`Value`], whose map keeps keys sorted, so every object lists its
//! keys in alphabetical order whatever the order of the fields.

use super::format::{dtype_name, STAGE_LINE_BUFFERED};
use super::model::{
    axis_name, AttrValues, Header, Op, OpAttribute, Plan, QuantParam, Stage, StateEntry, Subgraph,
    Tensor, TilePlan, Weight, WeightBlock,
};
use super::predict::{Execution, Prediction, Requirements};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// An f32 as a JSON number, or "nan", "inf", "-inf" where JSON has no number for it.
pub(super) fn float<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v as f64)
    } else if v.is_nan() {
        s.serialize_str("nan")
    } else if *v > 0.0 {
        s.serialize_str("inf")
    } else {
        s.serialize_str("-inf")
    }
}

/// A list of f32, each as [`float`] writes it.
pub(super) fn floats<S: Serializer>(v: &[f32], s: S) -> Result<S::Ok, S::Error> {
    struct Float(f32);
    impl Serialize for Float {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            float(&self.0, s)
        }
    }
    s.collect_seq(v.iter().map(|x| Float(*x)))
}

impl Serialize for Execution {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[derive(Serialize)]
struct PlanJson<'a> {
    format: &'static str,
    schema: u32,
    file_size: u32,
    model_name: &'a str,
    header: HeaderJson<'a>,
    sections: Vec<SectionJson>,
    model_inputs: &'a [u16],
    model_outputs: &'a [u16],
    tensors: Vec<TensorJson<'a>>,
    ops: Vec<OpJson<'a>>,
    stages: Vec<StageJson<'a>>,
    tile_plans: Vec<TilePlanJson<'a>>,
    weights: &'a [Weight],
    quant_params: &'a [QuantParam],
    weight_blocks: WeightBlocksJson<'a>,
    state: StateJson<'a>,
    subgraphs: &'a [Subgraph],
    requirements: Requirements,
}

#[derive(Serialize)]
struct HeaderJson<'a> {
    #[serde(flatten)]
    header: &'a Header,
    xip: bool,
}

#[derive(Serialize)]
struct SectionJson {
    #[serde(rename = "type")]
    kind: u32,
    name: &'static str,
    offset: u64,
    end: u64,
}

#[derive(Serialize)]
struct TensorJson<'a> {
    index: usize,
    #[serde(flatten)]
    tensor: &'a Tensor,
    dtype: String,
    interface_dtype: String,
    flag_names: Vec<&'static str>,
    layout: &'static str,
}

#[derive(Serialize)]
struct OpJson<'a> {
    index: usize,
    #[serde(flatten)]
    op: &'a Op,
    #[serde(rename = "type")]
    type_name: String,
    fused_activation: String,
    attributes: Vec<AttributeJson<'a>>,
}

#[derive(Serialize)]
struct AttributeJson<'a> {
    kind: String,
    code: u8,
    values: AttrValues,
    bytes: &'a [u8],
}

impl<'a> AttributeJson<'a> {
    fn new(a: &'a OpAttribute) -> Self {
        AttributeJson {
            kind: a.name(),
            code: a.kind,
            values: a.values(),
            bytes: &a.data,
        }
    }
}

#[derive(Serialize)]
struct StageJson<'a> {
    index: usize,
    #[serde(flatten)]
    stage: &'a Stage,
    line_buffered: bool,
    prediction: Prediction,
}

#[derive(Serialize)]
struct TilePlanJson<'a> {
    #[serde(flatten)]
    plan: &'a TilePlan,
    axis_name: &'static str,
    band_on_columns: bool,
    record: &'static str,
}

#[derive(Serialize)]
struct WeightBlocksJson<'a> {
    compression: &'static str,
    compression_code: u16,
    blocks: &'a [WeightBlock],
}

#[derive(Serialize)]
struct StateJson<'a> {
    bytes: u32,
    entries: &'a [StateEntry],
}

impl Plan {
    /// The whole decoded plan plus the planner's predictions, as one JSON object
    /// (documented in docs/tigris.md, "Plan reader").
    pub(super) fn to_json(&self) -> serde_json::Result<Value> {
        let h = &self.header;
        let v = h.version;
        let view = PlanJson {
            format: "tgrs",
            schema: v,
            file_size: h.file_size,
            model_name: &self.model_name,
            header: HeaderJson {
                header: h,
                xip: h.xip(),
            },
            sections: self
                .sections
                .iter()
                .map(|s| SectionJson {
                    kind: s.section as u32,
                    name: s.section.name(),
                    offset: s.start,
                    end: s.end,
                })
                .collect(),
            model_inputs: &self.model_inputs,
            model_outputs: &self.model_outputs,
            tensors: self
                .tensors
                .iter()
                .enumerate()
                .map(|(index, t)| TensorJson {
                    index,
                    tensor: t,
                    dtype: dtype_name(t.dtype),
                    interface_dtype: dtype_name(t.interface_dtype(v)),
                    flag_names: t.flag_names(),
                    layout: t.layout(v),
                })
                .collect(),
            ops: self
                .ops
                .iter()
                .enumerate()
                .map(|(index, o)| OpJson {
                    index,
                    op: o,
                    type_name: o.type_name(),
                    fused_activation: o.fused_activation(),
                    attributes: o.attributes.iter().map(AttributeJson::new).collect(),
                })
                .collect(),
            stages: self
                .stages
                .iter()
                .zip(self.predictions())
                .enumerate()
                .map(|(index, (s, prediction))| StageJson {
                    index,
                    stage: s,
                    line_buffered: s.flags & STAGE_LINE_BUFFERED != 0,
                    prediction,
                })
                .collect(),
            tile_plans: self
                .tile_plans
                .iter()
                .map(|t| TilePlanJson {
                    plan: t,
                    axis_name: axis_name(t.axis),
                    band_on_columns: t.band_on_columns(),
                    record: if t.v10.is_some() { "v10" } else { "v9" },
                })
                .collect(),
            weights: &self.weights,
            quant_params: &self.quant_params,
            weight_blocks: WeightBlocksJson {
                compression: match self.weight_compression {
                    1 => "lz4",
                    _ => "none",
                },
                compression_code: self.weight_compression,
                blocks: &self.weight_blocks,
            },
            state: StateJson {
                bytes: self.state_bytes,
                entries: &self.state,
            },
            subgraphs: &self.subgraphs,
            requirements: self.requirements(),
        };
        serde_json::to_value(view)
    }
}
