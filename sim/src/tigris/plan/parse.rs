//! `.tgrs` bytes to a checked [`Plan`]: magic, version and size, the section directory, table bounds,
//! every record resolved through the index, shape and string pools, and the cross-reference checks
//! `tigris inspect` makes, so both accept and refuse the same plans.
//!
//! Sources: tigris-ml 0.12.1 `tigris/emitters/binary/reader.py` `read_binary_plan()` and tigris-runtime
//! test/dump_plan.c and include/tigris.h (parsing checks); checked against the behaviour of
//! `tigris inspect --json` of tigris-ml 0.12.1. Schema 1: tigris-ml 0.3.1
//! `tigris/emitters/binary/reader.py` `read_binary_plan()` and `writer.py`, raws-labs/tigris-runtime
//! `src/tigris_loader.c` `tigris_plan_load()` at commit 555e105; checked against `read_binary_plan()`
//! of tigris-ml 0.3.1 (that release has no `inspect` command).

use super::format::{
    DIR_ENTRY_SIZE, HEADER_SIZE, MAGIC, MAX_SCHEMA, MIN_SCHEMA, NONE16, OP_ATTRIBUTE_SIZE, OP_SIZE,
    OP_SIZE_V1, QUANT_PARAM_SIZE, SCHEMA_QUANT_PAGES, SCHEMA_STAGE_FLAGS, SCHEMA_STAGE_TABLE,
    SCHEMA_TILE_AXIS, SCHEMA_V10, SCHEMA_WIDE_SPATIAL, STAGE_SIZE, STATE_ENTRY_SIZE,
    STRICT_ATTRIBUTE_KINDS, SUBGRAPH_ENTRY_SIZE, TENSOR_SIZE, TILE_PLAN_SIZE_V10,
    TILE_PLAN_SIZE_V9, WEIGHT_BLOCK_SIZE, WEIGHT_ENTRY_SIZE,
};
use super::model::{
    Header, Op, OpAttribute, Plan, QuantParam, Spatial, Stage, StateEntry, Subgraph, Tensor,
    TilePlan, TilePlanV10, Weight, WeightBlock,
};
use super::reader::{invalid, Fields, PlanError, Reader, Result, Section, SectionSpan};
use super::summary::derive_v10_summary;

impl Plan {
    /// Parse a whole `.tgrs` file held in memory.
    pub(crate) fn parse(data: &[u8]) -> Result<Plan> {
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
            (Section::Ops, header.num_ops, op_size(version), "op table"),
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

fn op_size(version: u32) -> u64 {
    if version >= SCHEMA_WIDE_SPATIAL {
        OP_SIZE
    } else {
        OP_SIZE_V1
    }
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
    let size = op_size(h.version);
    // Schema 1 stores pads and dilations in one byte each, later schemas in two.
    let wide = h.version >= SCHEMA_WIDE_SPATIAL;
    (0..h.num_ops as u64)
        .map(|i| {
            let what = || format!("op {i} (record at offset {})", b + i * size);
            let mut f = r.record(Section::Ops, b, i, size, &what)?;
            let (name_str, op_type, n_in, n_out, stage_byte, in_off, out_off) =
                (f.u32(), f.u8(), f.u8(), f.u8(), f.u8(), f.u16(), f.u16());
            let (kernel_h, kernel_w, stride_h, stride_w) = (f.u8(), f.u8(), f.u8(), f.u8());
            let mut small = || if wide { f.u16() } else { f.u8() as u16 };
            let (pad_top, pad_bottom, pad_left, pad_right, dilation_h, dilation_w) =
                (small(), small(), small(), small(), small(), small());
            let spatial = Spatial {
                kernel_h,
                kernel_w,
                stride_h,
                stride_w,
                pad_top,
                pad_bottom,
                pad_left,
                pad_right,
                dilation_h,
                dilation_w,
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
            // Schema 1: the last field is reserved (written 0), not flags.
            let flags = if h.version >= SCHEMA_STAGE_FLAGS {
                flags
            } else {
                0
            };
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
            // v1-v4 wrote 0 in the axis byte (a pad) and meant rows.
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
    let paged = h.version >= SCHEMA_QUANT_PAGES;
    if paged && (span.end - pool) & 3 != 0 {
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
                // Schemas 1 and 2 had no pages; later, arrays live at page*65536 + offset elements.
                let page_base = if paged { page as u64 * 65536 } else { 0 };
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
