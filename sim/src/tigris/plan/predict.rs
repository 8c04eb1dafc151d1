//! What the planner predicted for each stage (untiled, tiled, chain head or member; tiles, halo,
//! receptive field, tile bytes, halo overhead) and what the runtime needs to run the plan.
//!
//! Sources: tigris-ml 0.12.1 `tigris/analysis/partition_spatial.py` (`detect_chains`,
//! `solve_chain_tile_height`, `_estimate_halo_bytes`), `tigris/emitters/codegen.py`
//! (`_PLAN_TENSOR_ALIGN`); tigris-runtime include/tigris_config.h (default build limits).

use super::format::{op_is, CHAIN_SPATIAL_OPS, STAGE_LINE_BUFFERED};
use super::model::{Plan, Stage, Tensor, WeightBlock};
use serde::Serialize;

/// The compiler's cost model aligns every allocation to 32 bytes (tigris-ml 0.12.1 emitters/codegen.py
/// `_PLAN_TENSOR_ALIGN`).
pub(super) const PLANNER_ALIGN: u64 = 32;
/// The runtime's default build limits (tigris-runtime include/tigris_config.h).
const DEFAULT_LIMITS: [(&str, u32); 5] = [
    ("TIGRIS_MAX_TENSORS", 512),
    ("TIGRIS_MAX_STAGE_INPUTS", 16),
    ("TIGRIS_MAX_STAGE_OUTPUTS", 16),
    ("TIGRIS_MAX_CHAIN_STAGES", 16),
    ("TIGRIS_MAX_SPATIAL_OPS_PER_STAGE", 8),
];

/// How a stage runs according to the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Execution {
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
    pub(crate) fn name(self) -> &'static str {
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ChainPrediction {
    pub(super) head: u16,
    pub(super) len: u16,
    /// This stage's position in the chain (0 = head).
    pub(super) position: u16,
    /// Most output rows of the last member per tile (the runtime may only shrink it).
    pub(super) tile_h: u16,
    pub(crate) line_buffered: bool,
    /// Rows of the last member's output.
    pub(super) output_rows: u32,
    /// Rows of the chain input per tile, back-propagated from `tile_h`.
    pub(super) input_rows_per_tile: u32,
    /// Composed over every member: receptive field and stride on the chain input.
    pub(super) receptive_field: u32,
    pub(super) stride: u32,
    /// Fast bytes of one tile at `tile_h` (chain input tile plus every op output tile, each 32-byte
    /// aligned) and at `tile_h + 1`: the planner picked the largest height within its budget.
    pub(super) tile_bytes: u64,
    pub(super) next_height_bytes: u64,
}

/// What the planner predicted for one stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Prediction {
    pub(crate) execution: Execution,
    pub(crate) axis: u8,
    pub(crate) tiles: u32,
    /// Rows per tile (for chains: output rows of the last member per tile).
    pub(crate) tile_height: u32,
    pub(super) tile_width: u32,
    pub(crate) halo: u32,
    pub(crate) receptive_field: u32,
    /// Extent of the tiled axis.
    pub(super) original_height: u32,
    /// Fast bytes of one tile (stored for tile plans; estimated for chains).
    pub(crate) tiled_peak_bytes: u64,
    /// Bytes of halo rows re-read over all tiles.
    pub(crate) overhead_bytes: u64,
    /// True when `overhead_bytes` is our estimate (schema 10 no longer stores it).
    pub(super) overhead_estimated: bool,
    /// Grouped global reduction (schema 10): channels per group and positions per interval, else 0.
    pub(super) channel_group: u32,
    pub(super) spatial_interval: u32,
    pub(crate) chain: Option<ChainPrediction>,
}

/// What the runtime needs to run the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Requirements {
    /// Budget plus the largest weight-decompression buffer.
    pub(crate) fast_arena_bytes: u64,
    pub(super) decompression_bytes: u64,
    pub(super) state_bytes: u32,
    pub(super) build_limits: Vec<BuildLimit>,
}

/// A compile-time limit of the runtime (a `TIGRIS_MAX_*` macro).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct BuildLimit {
    pub(super) name: &'static str,
    /// What this plan needs.
    pub(super) needed: u32,
    /// The runtime's default.
    pub(super) default: u32,
}

impl Plan {
    pub(crate) fn tensor_name(&self, i: u16) -> String {
        match self.tensors.get(i as usize) {
            Some(t) if !t.name.is_empty() => t.name.clone(),
            _ => format!("tensor {i}"),
        }
    }

    pub(super) fn tensor(&self, i: u16) -> Option<&Tensor> {
        self.tensors.get(i as usize)
    }

    /// Rows of one tile band of tensor `i`: the tile height of the first stage tiled by rows that
    /// reads or writes it.
    pub(crate) fn tile_band_rows(&self, i: u16) -> Option<u32> {
        self.stages
            .iter()
            .filter(|st| st.inputs.contains(&i) || st.outputs.contains(&i))
            .filter_map(|st| self.tile_plans.get(st.tile_plan? as usize))
            .find(|tp| tp.tileable && tp.axis == 1 && tp.tile_height > 0)
            .map(|tp| tp.tile_height)
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
    pub(super) fn predictions(&self) -> Vec<Prediction> {
        (0..self.stages.len()).map(|i| self.prediction(i)).collect()
    }

    pub(crate) fn prediction(&self, index: usize) -> Prediction {
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
    pub(crate) fn requirements(&self) -> Requirements {
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
                .map(|(&(name, default), needed)| BuildLimit {
                    name,
                    needed,
                    default,
                })
                .collect(),
        }
    }
}

fn align_up(x: u64) -> u64 {
    x.div_ceil(PLANNER_ALIGN).saturating_mul(PLANNER_ALIGN)
}
