//! The JSON view of `plan inspect --json`: the whole decoded plan plus the planner's predictions and
//! requirements (layout documented in docs/tigris.md, "Plan reader"; `sim/tests/plan.rs` compares it
//! with `tigris inspect --json` of tigris-ml 0.12.1).

use super::format::{dtype_name, STAGE_LINE_BUFFERED};
use super::model::{axis_name, AttrValues, Plan};
use super::predict::Prediction;
use serde_json::{json, Value};

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
    pub(super) fn to_json(&self) -> Value {
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
