//! The schema-10 tile summary: what schema 10 no longer stores in a tile plan, re-derived from the
//! stage's shapes and ops as `tigris inspect` does.
//!
//! Sources: tigris-ml 0.12.1 `tigris/emitters/binary/reader.py` `_tile_summary`; checked against
//! `tigris inspect --json` on compiled schema-10 plans.

use super::format::{op_is, ATTR_LSTM, ATTR_TRANSPOSE_PERM, RF_OPS, TENSOR_LINEAR};
use super::model::{Op, Stage, Tensor, TilePlan};
use super::predict::PLANNER_ALIGN;

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
/// not stored, see [`Plan::predictions`](super::model::Plan::predictions) for our estimate.
pub(super) fn derive_v10_summary(tp: &mut TilePlan, stage: &Stage, tensors: &[Tensor], ops: &[Op]) {
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
