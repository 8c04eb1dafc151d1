//! The result of `tigris-sim sweep`: a grid of runs of one firmware (docs/sweep.md), its CSV view and the
//! latency / fast-arena Pareto front. A sharded sweep writes the same document holding its slice of the
//! points; merging the slices gives the document of the unsharded sweep, byte for byte.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::Tool;

pub const SWEEP_SCHEMA: &str = "tigris-sim-sweep";
pub const SWEEP_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sweep {
    pub schema: String,
    pub schema_version: u32,
    pub tool: Tool,
    /// The firmware every point ran: its file name (not the path, so that machines with other
    /// checkouts merge) and SHA-256.
    pub firmware: SweepFile,
    /// Plans handed to the firmware (`--plans`, or compiled from `--model`), by label.
    pub plans: Vec<SweepFile>,
    /// The grid: each axis' values, the last axis varying fastest; point `i` is the mixed-radix
    /// number `i` over the axes' lengths.
    pub axes: Vec<SweepAxis>,
    /// Points of the whole grid (a shard holds fewer).
    pub points_total: usize,
    /// Limits every point ran with.
    pub max_cycles: u64,
    /// Which slice of the grid this document holds; absent for a whole sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// In grid order.
    pub points: Vec<SweepPoint>,
    /// Where the planner's ranking of two points disagrees with the measured one (whole sweeps only).
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepFile {
    pub name: String,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepAxis {
    /// `board`, `plan`, `fast_arena`, `slow_arena`, or a board parameter (`psram.clock_mhz`).
    pub name: String,
    pub values: Vec<String>,
}

/// Slice `index` (1-based) of `count`: the points whose grid index is `index - 1` modulo `count`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn holds(&self, point: usize) -> bool {
        point % self.count == self.index - 1
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepPoint {
    pub index: usize,
    /// One value per axis.
    pub values: Vec<String>,
    /// How the run ended (as the report's summary line says it), or why it could not run.
    pub outcome: String,
    /// The run's exit code as `tigris-sim run` gives it (2: refused, the point did not run).
    pub exit_code: u8,
    pub clock_hz: u64,
    pub cycles: u64,
    pub instructions: u64,
    pub stall_cycles: u64,
    /// The TiGrIS figures, when the firmware ran the TiGrIS runtime.
    pub tigris: Option<SweepTigris>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepTigris {
    /// The plan's fast budget.
    pub budget: Option<u32>,
    /// The arenas `tigris_mem_init` got.
    pub fast_arena: Option<u32>,
    pub slow_arena: Option<u32>,
    /// Cycles of the inference (every stage).
    pub cycles: u64,
    /// Fast-arena peak: the larger of the runtime's occupancy and the highest byte written on the bus.
    pub fast_peak: u32,
    /// Slow-arena peak, the same way.
    pub slow_peak: u32,
    pub slow_read_bytes: u64,
    pub slow_write_bytes: u64,
    /// Cycles of loads repeated for halo rows and of rows recomputed.
    pub halo_cycles: u64,
    pub halo_bytes: u64,
    /// The planner's predictions: the largest stage or tile peak, and the sum of the halo overheads.
    pub predicted_peak: Option<u64>,
    pub predicted_overhead: Option<u64>,
    /// Trace events captured (0: the figures are the bus's alone).
    pub events: u64,
    /// Findings of the run's TiGrIS section.
    pub findings: Vec<String>,
}

impl SweepPoint {
    /// Inference latency in seconds: the TiGrIS stages when there are some, else the whole run.
    pub fn latency_seconds(&self) -> Option<f64> {
        let cycles = match &self.tigris {
            Some(t) if t.cycles > 0 => t.cycles,
            _ => self.cycles,
        };
        (self.clock_hz > 0 && cycles > 0).then(|| cycles as f64 / self.clock_hz as f64)
    }

    pub fn slow_traffic(&self) -> u64 {
        self.tigris
            .as_ref()
            .map_or(0, |t| t.slow_read_bytes + t.slow_write_bytes)
    }

    /// Share of the run's cycles spent waiting on memory.
    pub fn stall_share(&self) -> f64 {
        share(self.stall_cycles, self.cycles)
    }

    /// Share of the inference's cycles spent on halo rows (loaded again or recomputed).
    pub fn halo_share(&self) -> f64 {
        self.tigris
            .as_ref()
            .map_or(0.0, |t| share(t.halo_cycles, t.cycles))
    }

    /// Whether the point ran to a clean end with figures to compare.
    pub fn measured(&self) -> bool {
        self.exit_code == 0 && self.latency_seconds().is_some()
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

impl Sweep {
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a sweep serialises");
        text.push('\n');
        text
    }

    /// Indexes of the points no other measured point beats on both latency and fast-arena peak (lower is
    /// better on both; ties keep both), in grid order.
    pub fn pareto_front(&self) -> Vec<usize> {
        let key = |p: &SweepPoint| {
            let peak = p.tigris.as_ref().map_or(0, |t| t.fast_peak);
            (p.latency_seconds().unwrap_or(f64::INFINITY), peak)
        };
        let measured: Vec<&SweepPoint> = self.points.iter().filter(|p| p.measured()).collect();
        measured
            .iter()
            .filter(|p| {
                let (latency, peak) = key(p);
                !measured.iter().any(|q| {
                    let (l, k) = key(q);
                    l <= latency && k <= peak && (l < latency || k < peak)
                })
            })
            .map(|p| p.index)
            .collect()
    }

    /// One line per point: the axes' values, then the figures (docs/sweep.md names each column).
    pub fn to_csv(&self) -> String {
        let front = self.pareto_front();
        let mut out = String::new();
        let mut header: Vec<String> = vec!["point".into()];
        header.extend(self.axes.iter().map(|a| csv_field(&a.name)));
        header.extend(
            [
                "exit_code",
                "outcome",
                "cycles",
                "instructions",
                "latency_ms",
                "stall_share",
                "budget",
                "fast_arena",
                "slow_arena",
                "fast_peak",
                "predicted_peak",
                "slow_peak",
                "slow_read_bytes",
                "slow_write_bytes",
                "halo_share",
                "halo_bytes",
                "predicted_overhead",
                "pareto",
            ]
            .map(String::from),
        );
        let _ = writeln!(out, "{}", header.join(","));
        let optional = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
        for p in &self.points {
            let t = p.tigris.as_ref();
            let mut row: Vec<String> = vec![p.index.to_string()];
            row.extend(p.values.iter().map(|v| csv_field(v)));
            row.extend([
                p.exit_code.to_string(),
                csv_field(&p.outcome),
                p.cycles.to_string(),
                p.instructions.to_string(),
                p.latency_seconds()
                    .map_or(String::new(), |s| format!("{:.6}", s * 1e3)),
                format!("{:.6}", p.stall_share()),
                optional(t.and_then(|t| t.budget).map(u64::from)),
                optional(t.and_then(|t| t.fast_arena).map(u64::from)),
                optional(t.and_then(|t| t.slow_arena).map(u64::from)),
                optional(t.map(|t| u64::from(t.fast_peak))),
                optional(t.and_then(|t| t.predicted_peak)),
                optional(t.map(|t| u64::from(t.slow_peak))),
                optional(t.map(|t| t.slow_read_bytes)),
                optional(t.map(|t| t.slow_write_bytes)),
                format!("{:.6}", p.halo_share()),
                optional(t.map(|t| t.halo_bytes)),
                optional(t.and_then(|t| t.predicted_overhead)),
                front.contains(&p.index).to_string(),
            ]);
            let _ = writeln!(out, "{}", row.join(","));
        }
        out
    }
}

/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(index: usize, latency_cycles: u64, peak: u32, exit_code: u8) -> SweepPoint {
        SweepPoint {
            index,
            values: vec![format!("v{index}")],
            outcome: "exited with code 0".into(),
            exit_code,
            clock_hz: 1_000_000,
            cycles: latency_cycles + 10,
            instructions: 1,
            stall_cycles: 0,
            tigris: Some(SweepTigris {
                budget: None,
                fast_arena: None,
                slow_arena: None,
                cycles: latency_cycles,
                fast_peak: peak,
                slow_peak: 0,
                slow_read_bytes: 0,
                slow_write_bytes: 0,
                halo_cycles: 0,
                halo_bytes: 0,
                predicted_peak: None,
                predicted_overhead: None,
                events: 0,
                findings: Vec::new(),
            }),
        }
    }

    fn sweep(points: Vec<SweepPoint>) -> Sweep {
        Sweep {
            schema: SWEEP_SCHEMA.into(),
            schema_version: SWEEP_SCHEMA_VERSION,
            tool: Tool {
                name: "t".into(),
                version: "0".into(),
            },
            firmware: SweepFile {
                name: "fw.elf".into(),
                sha256: String::new(),
            },
            plans: Vec::new(),
            axes: vec![SweepAxis {
                name: "plan, \"x\"".into(),
                values: Vec::new(),
            }],
            points_total: points.len(),
            max_cycles: 1,
            shard: None,
            points,
            findings: Vec::new(),
        }
    }

    #[test]
    fn the_front_keeps_points_nothing_beats_on_both_and_skips_failed_runs() {
        let s = sweep(vec![
            point(0, 100, 8000, 0), // fastest
            point(1, 200, 4000, 0), // smallest
            point(2, 250, 6000, 0), // beaten by 1 on both
            point(3, 150, 6000, 0), // between: on the front
            point(4, 10, 100, 1),   // failed: not measured
            point(5, 150, 6000, 0), // a tie with 3 stays
        ]);
        assert_eq!(s.pareto_front(), vec![0, 1, 3, 5]);
    }

    #[test]
    fn csv_quotes_fields_and_has_one_row_per_point() {
        let csv = sweep(vec![point(0, 100, 8000, 0)]).to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("point,\"plan, \"\"x\"\"\",exit_code,"));
        assert!(lines[1].starts_with("0,v0,0,exited with code 0,110,1,0.100000,"));
        assert!(lines[1].ends_with(",true"));
        assert_eq!(
            lines[0].split(',').count() - 1,
            lines[1].split(',').count(),
            "the quoted header field holds one comma"
        );
    }

    #[test]
    fn shards_split_the_grid_without_overlap() {
        let shards = [
            Shard { index: 1, count: 3 },
            Shard { index: 2, count: 3 },
            Shard { index: 3, count: 3 },
        ];
        for point in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.holds(point)).count(), 1);
        }
    }
}
