//! The text view of `plan inspect`: header, model I/O, stages with their ops and tiling, tensors, ops,
//! weight blocks, state and subgraphs (our own layout).

use super::format::dtype_name;
use super::model::{axis_name, AttrValues, OpAttribute, Plan};
use super::predict::{Execution, Prediction};
use std::fmt::Write as _;

impl Plan {
    /// A readable summary: header, I/O, tensors, stages with their ops and tiling, ops.
    pub(super) fn to_text(&self, file: &str) -> String {
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
