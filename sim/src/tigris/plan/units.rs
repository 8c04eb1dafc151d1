//! How a runtime walks a plan, for deriving its breakdown from its calls when it has no trace API:
//! the execution units (a stage, or a whole chain run at its head) and, for a unit run in bands of
//! rows, the rows of every tensor a tile needs and computes. The row arithmetic is the receptive field
//! of each op (TiGrIS documentation, "Tiling": a band of output rows needs the input rows its kernel
//! windows cover, clipped to the tensor) walked back from the tile's output rows, as the runtime does.

use super::format::STAGE_LINE_BUFFERED;
use super::model::Plan;
use super::predict::Execution;

/// What the runtime runs as one piece: a stage, or a chain from its head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// The stage (a chain's head) the unit is reported under.
    pub(crate) head: u16,
    pub(crate) execution: Execution,
    /// A chain that keeps rows between tiles instead of computing them again.
    pub(crate) line_buffered: bool,
    /// The ops in execution order.
    pub(crate) ops: Vec<u16>,
    /// The tensors the ops form a line of when the unit runs in bands: its input, then each op's
    /// output (empty when the ops are not a line of one input and one output each).
    pub(crate) bands: Vec<u16>,
}

/// Rows of one band tensor in one tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct BandRows {
    /// Rows `[need0, need1)` the tile needs of the tensor.
    pub(crate) need: [i32; 2],
    /// First row the tile computes (or loads): `need[0]`, or past the rows a line buffer kept.
    pub(crate) new0: i32,
    /// Nothing of this tensor is needed in the tile.
    pub(crate) skip: bool,
}

impl Plan {
    /// The units in execution order: every stage, the members of a chain folded into its head.
    pub(crate) fn units(&self) -> Vec<Unit> {
        let mut units = Vec::new();
        let mut s = 0;
        while s < self.stages.len() {
            let stage = &self.stages[s];
            let execution = self.prediction(s).execution;
            let len = match execution {
                Execution::ChainHead => (stage.chain_len as usize).clamp(1, self.stages.len() - s),
                _ => 1,
            };
            let ops: Vec<u16> = self.stages[s..s + len]
                .iter()
                .flat_map(|st| st.ops.iter().copied())
                .collect();
            units.push(Unit {
                head: s as u16,
                execution,
                line_buffered: execution == Execution::ChainHead
                    && stage.flags & STAGE_LINE_BUFFERED != 0,
                bands: self.line_of(&ops),
                ops,
            });
            s += len;
        }
        units
    }

    /// The tensors `ops` pass along when each has one activation input, the previous op's output.
    fn line_of(&self, ops: &[u16]) -> Vec<u16> {
        let mut bands = Vec::new();
        for &k in ops {
            let Some(op) = self.ops.get(k as usize) else {
                return Vec::new();
            };
            let (&[input], &[output]) = (op.inputs.as_slice(), op.outputs.as_slice()) else {
                return Vec::new();
            };
            match bands.last() {
                None => bands.push(input),
                Some(&last) if last == input => {}
                Some(_) => return Vec::new(),
            }
            bands.push(output);
        }
        bands
    }

    /// The first output of op `op`.
    pub(crate) fn op_output(&self, op: u16) -> Option<u16> {
        self.ops.get(op as usize)?.outputs.first().copied()
    }

    /// Height and bytes per row of a tensor whose rows are contiguous (one batch, rows on the
    /// tiled axis).
    pub(crate) fn tensor_rows(&self, tensor: u16) -> Option<(i32, u32)> {
        let t = self.tensors.get(tensor as usize)?;
        let axis = t.row_axis()?;
        let height = *t.shape.get(axis)?;
        let outer: i64 = t.shape[..axis].iter().map(|&d| d as i64).product();
        if height <= 0 || outer != 1 || t.size_bytes % height as u32 != 0 {
            return None;
        }
        Some((height, t.size_bytes / height as u32))
    }

    /// The rows of every band of `unit` in the tile that produces output rows `out`; `produced`
    /// holds, per band, the rows produced so far (`[.., hi)`, line buffers only) and is advanced.
    pub(crate) fn band_rows(
        &self,
        unit: &Unit,
        out: [i32; 2],
        produced: &mut [i32],
    ) -> Vec<BandRows> {
        let n = unit.bands.len();
        let mut rows = vec![BandRows::default(); n];
        if n < 2 || produced.len() != n {
            return rows;
        }
        rows[n - 1] = BandRows {
            need: out,
            new0: out[0],
            skip: out[0] >= out[1],
        };
        for k in (0..n - 1).rev() {
            let consumer = rows[k + 1];
            if consumer.skip {
                rows[k].skip = true;
                continue;
            }
            let height = self.tensor_rows(unit.bands[k]).map_or(i32::MAX, |(h, _)| h);
            let sp = &self.ops[unit.ops[k] as usize].spatial;
            let stride = sp.stride_h.max(1) as i32;
            let pad = sp.pad_top as i32;
            let r0 = consumer.new0 * stride - pad;
            let r1 = (consumer.need[1] - 1) * stride - pad + sp.eff_kh() as i32;
            let need = [r0.max(0), r1.min(height)];
            let kept = if unit.line_buffered { produced[k] } else { 0 };
            rows[k] = BandRows {
                need,
                new0: kept.max(need[0]).min(need[1]),
                skip: false,
            };
        }
        for (hi, r) in produced.iter_mut().zip(&rows) {
            if !r.skip && r.need[1] > r.new0 {
                *hi = r.need[1];
            }
        }
        rows
    }
}
