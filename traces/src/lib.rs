//! The report schema: the contract between the engine and every view (text, JSON, plots, TUI).
//! Documented field by field in docs/report.md. A report holds no wall-clock figures, so the same
//! firmware, board and options give byte-identical JSON.

use serde::{Deserialize, Serialize};

pub mod plots;

pub mod folded;
pub mod perfetto;
pub mod sweep;
/// Test support, not part of the interface: other crates' tests get it with the `testing` feature.
#[cfg(any(test, feature = "testing"))]
pub mod testing;

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod schema_docs;

/// Name of the schema, written into every report.
pub const SCHEMA: &str = "tigris-sim-report";
/// Version of the schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub schema: String,
    pub schema_version: u32,
    pub tool: Tool,
    pub firmware: Firmware,
    pub board: BoardInfo,
    pub outcome: Outcome,
    pub totals: Totals,
    pub console: String,
    pub functions: Vec<FunctionProfile>,
    pub regions: Vec<RegionProfile>,
    /// Caches of the board (added within version 1: absent in older reports).
    #[serde(default)]
    pub caches: Vec<CacheProfile>,
    /// The TiGrIS inference broken down by stage and tile, when the firmware runs the TiGrIS runtime.
    #[serde(default)]
    pub tigris: Option<TigrisProfile>,
    /// Self cycles per call path, exact (added within version 1).
    #[serde(default)]
    pub stacks: Vec<StackProfile>,
    /// The run sampled at regular cycle intervals (added within version 1).
    #[serde(default)]
    pub timeline: Option<Timeline>,
    pub fault: Option<FaultReport>,
    /// The chip's other cores (the ESP32-S3's and ESP32's APP CPU), when they ran (added within
    /// version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_cores: Vec<CoreProfile>,
    /// With `run --lines`: cycles and instructions per source line, highest first (added within
    /// version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<SourceLine>,
    /// With `run --views`: the data traffic inside each declared tensor view, by tile (added
    /// within version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<TensorViewProfile>,
    /// The firmware's own panic message, as its console printed it (ESP-IDF's panic handler, a
    /// Rust panic), when it printed one (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panic: Option<String>,
    /// Things the run refused or could not model (e.g. a semihosting file access without permission).
    pub notes: Vec<String>,
}

/// A core besides the profiled one: its totals and a flat profile (self figures per function, no
/// call graph; a function spans from its symbol to the next one).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CoreProfile {
    pub prid: u32,
    pub cycles: u64,
    pub instructions: u64,
    /// Cycles spent waiting for an interrupt (WAITI).
    pub idle_cycles: u64,
    /// Where the core was at the end of the run.
    pub pc: u32,
    pub location: Option<String>,
    /// By self cycles, highest first; code outside every function is `(unknown)`.
    pub functions: Vec<FlatFunction>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FlatFunction {
    pub name: String,
    pub address: u32,
    pub self_cycles: u64,
    pub self_instructions: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Firmware {
    /// File name as given on the command line (no directory, so reports compare across machines).
    pub file: String,
    pub sha256: String,
    pub entry: u32,
    pub initial_sp: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BoardInfo {
    pub name: String,
    pub core: String,
    /// The core clock at the start (the board's; the chip's reset clock when it booted from its
    /// mask ROM).
    pub clock_hz: u64,
    /// Each switch of the core clock the firmware made through the chip's clock registers (added
    /// within version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock_changes: Vec<ClockChange>,
    /// The `--set KEY=VALUE` overrides the board ran with, in order (added within version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<String>,
}

/// From core cycle `cycle` on, the core ran at `hz`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClockChange {
    pub cycle: u64,
    pub hz: u64,
}

impl BoardInfo {
    /// The overrides as they were given: ` --set KEY=VALUE` each (empty without any).
    pub fn settings_text(&self) -> String {
        self.settings
            .iter()
            .map(|s| format!(" --set {s}"))
            .collect()
    }

    /// Seconds that `cycles` core cycles from the start took, at the clocks the core ran at.
    pub fn seconds(&self, cycles: u64) -> f64 {
        let mut t = 0.0;
        let (mut at, mut hz) = (0u64, self.clock_hz);
        for c in self.clock_changes.iter().filter(|c| c.cycle < cycles) {
            t += c.cycle.saturating_sub(at) as f64 / hz as f64;
            (at, hz) = (c.cycle.max(at), c.hz);
        }
        t + cycles.saturating_sub(at) as f64 / hz as f64
    }
}

/// How `Outcome::Reset::by` starts for a reset a watchdog made (the rest names the watchdog and
/// its stage); any other `by` names the register a software reset wrote.
pub const WATCHDOG_RESET: &str = "watchdog ";

/// What reset the chip, from `Outcome::Reset::by`: "reset by software (REG (bits))" or "reset by
/// the watchdog BLOCK.REG, stage N timed out: ACTION".
pub fn reset_cause(by: &str) -> String {
    if by.starts_with(WATCHDOG_RESET) {
        format!("reset by the {by}")
    } else {
        format!("reset by software ({by})")
    }
}

/// What stopped a run that had not ended by itself.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// `--max-cycles`.
    MaxCycles,
    /// `--max-instructions`.
    MaxInstructions,
    /// `--timeout` (wall-clock).
    Timeout,
    /// The user quit the live view.
    Stopped,
    /// Not stopped yet: a live view's snapshot of a run in progress.
    Running,
}

impl Limit {
    /// The name in the report (`max_cycles`).
    pub fn name(self) -> &'static str {
        match self {
            Limit::MaxCycles => "max_cycles",
            Limit::MaxInstructions => "max_instructions",
            Limit::Timeout => "timeout",
            Limit::Stopped => "stopped",
            Limit::Running => "running",
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A stop condition of `tigris-sim run` (docs/ci.md).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// `--expect TEXT`: the console printed it.
    Expect,
    /// `--expect-timeout`: the text did not come in time.
    ExpectTimeout,
    /// `--fail-on TEXT`: the console printed it.
    FailOn,
    /// `--stop-at FUNCTION`: the core entered it.
    StopAt,
    /// `--until-cycles N`: the run reached the cycle.
    UntilCycles,
}

/// How the run ended.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The firmware exited through semihosting with this code.
    Exited { code: i32 },
    /// A limit stopped the run: `max_cycles`, `max_instructions` or `timeout`; where the firmware was
    /// (a runaway loop shows here).
    Limit {
        limit: Limit,
        pc: u32,
        location: Option<String>,
        backtrace: Vec<String>,
    },
    /// The firmware faulted; details in `fault`.
    Fault,
    /// The firmware reset the chip (or a core) by software, as ESP-IDF does after a panic or in
    /// `esp_restart` (`by` names the register and bits written), or a watchdog did (`by` starts
    /// with `WATCHDOG_RESET`); where the core was then.
    Reset {
        by: String,
        pc: u32,
        location: Option<String>,
        backtrace: Vec<String>,
    },
    /// The core slept (WFI/WFE, WAITI) with no enabled interrupt source that could ever wake it:
    /// the firmware had nothing left to do (`detail` says how it slept; added within version 1).
    Idle {
        detail: String,
        pc: u32,
        location: Option<String>,
        backtrace: Vec<String>,
    },
    /// A stop condition of the run ended it (added within version 1): `condition` is `expect`,
    /// `fail_on`, `stop_at`, `until_cycles` or `expect_timeout`; `detail` says what was met;
    /// `passed`: whether the run counts as a success.
    Condition {
        condition: Condition,
        detail: String,
        passed: bool,
        pc: u32,
        location: Option<String>,
        backtrace: Vec<String>,
    },
}

impl Outcome {
    /// How the run ended, in a few words (`check`, `compare`).
    pub fn brief(&self) -> String {
        match self {
            Outcome::Exited { code } => format!("exited with code {code}"),
            Outcome::Limit { limit, .. } => format!("stopped by the {limit} limit"),
            Outcome::Fault => "faulted".to_string(),
            Outcome::Reset { by, .. } => reset_cause(by),
            Outcome::Idle { .. } => "idle (asleep with nothing to wake the core)".to_string(),
            Outcome::Condition { detail, .. } => detail.clone(),
        }
    }

    /// Whether the run ended as a success: exit code 0, or a stop condition that passed.
    pub fn succeeded(&self) -> bool {
        matches!(
            self,
            Outcome::Exited { code: 0 } | Outcome::Condition { passed: true, .. }
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Totals {
    pub cycles: u64,
    pub instructions: u64,
    /// Cycles per instruction.
    pub cpi: f64,
    /// Simulated time at the core's clocks, in seconds.
    pub seconds: f64,
    /// Cycles the core waited on memory (all regions).
    pub stall_cycles: u64,
}

/// A declared tensor view (`run --views`, docs/views.md): the data accesses that fell in its
/// bytes, mapped through its layout to elements and tiles.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TensorViewProfile {
    pub name: String,
    /// The view's first byte and how many bytes its layout spans (padding included).
    pub address: u32,
    pub bytes: u64,
    /// The board region holding it.
    pub region: String,
    pub dtype: String,
    pub shape: Vec<u64>,
    pub axes: Vec<String>,
    /// The storage layout as declared (`row-major`, `tiled [8, 16] row-major/row-major`, ...).
    pub layout: String,
    /// Tile size per axis, in `axes` order.
    pub tile: Vec<u64>,
    /// The axes in the order tiles are numbered (row-major over them): `permute`, else `axes`.
    pub order: Vec<String>,
    /// Tiles per axis, in `order`.
    pub grid: Vec<u64>,
    /// The two axes of the heatmap plot (rows, columns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heatmap: Option<[String; 2]>,
    /// Accesses that touched the view, and their bytes inside it.
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Bytes of the view accessed at least once, and read at least once.
    pub distinct_bytes: u64,
    pub distinct_read_bytes: u64,
    /// `read_bytes` / `distinct_read_bytes`: how often each byte read was read (0 when none was).
    pub reread_factor: f64,
    /// Bytes read and written inside the view's span that hold no element (tile padding, gaps).
    pub padding_read_bytes: u64,
    pub padding_write_bytes: u64,
    /// Memory stall cycles of the accesses that touched the view.
    pub stall_cycles: u64,
    /// Accesses by width in bytes.
    pub widths: Vec<AccessWidth>,
    /// Every tile, by tile number.
    pub tiles: Vec<ViewTile>,
    /// Tile numbers in the order they were first accessed (tiles never accessed are absent).
    pub first_touch: Vec<u64>,
}

/// Accesses of one width to a view.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AccessWidth {
    pub bytes: u32,
    pub reads: u64,
    pub writes: u64,
}

/// One tile of a view: its place in the grid and its traffic.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ViewTile {
    /// Tile coordinates, in the view's `order`.
    pub tile: Vec<u64>,
    /// Elements of the view in the tile (fewer at the edges).
    pub elements: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Stall cycles of the accesses whose first byte in the view lies in this tile.
    pub stall_cycles: u64,
    /// Core cycles of the first and last access (on Cortex-M: of the block the access is in).
    pub first_cycle: Option<u64>,
    pub last_cycle: Option<u64>,
}

/// One source line of the per-line profile.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceLine {
    /// `file:line` from DWARF; `None` for code without line information (the function's total).
    pub location: Option<String>,
    /// The function the line belongs to (an inlined function's own name).
    pub function: String,
    pub cycles: u64,
    pub instructions: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FunctionProfile {
    /// The name users read (demangled).
    pub name: String,
    /// The linker symbol, when `name` is its demangled form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub address: u32,
    /// `file:line` of the function's first instruction, from DWARF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub calls: u64,
    pub self_cycles: u64,
    pub inclusive_cycles: u64,
    pub self_instructions: u64,
    pub inclusive_instructions: u64,
    /// What the function's own code did to each region it touched (self, not inclusive).
    #[serde(default)]
    pub memory: Vec<FunctionMemory>,
}

/// One function's traffic to one region; the figures of `RegionProfile`, restricted to the function.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FunctionMemory {
    pub region: String,
    /// `None` when the core did not watch this region (see `--memory-stats`).
    pub reads: Option<u64>,
    pub writes: Option<u64>,
    pub read_bytes: Option<u64>,
    pub write_bytes: Option<u64>,
    /// Instruction-fetch units requested from the region.
    pub fetches: u64,
    pub stall_cycles: u64,
    pub icache_misses: u64,
    pub dcache_misses: u64,
    pub writebacks: u64,
}

/// Cycles and instructions spent in one call path's innermost function (flame-graph input).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StackProfile {
    /// Function names, outermost first, separated by `;` (the folded-stack form).
    pub stack: String,
    pub cycles: u64,
    pub instructions: u64,
}

/// Samples taken between simulation slices, every `interval_cycles` (the last one when the run ends).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Timeline {
    /// Cycles between two samples; doubled (and every other sample dropped) whenever a run would keep
    /// more than `MAX_SAMPLES`.
    pub interval_cycles: u64,
    pub samples: Vec<Sample>,
}

/// Most samples a timeline keeps.
pub const MAX_SAMPLES: usize = 512;

/// The machine at one moment; figures are totals since reset.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    pub cycle: u64,
    pub instructions: u64,
    /// Per region, in the order of `Report::regions`: data bytes read and written (0 where the
    /// region's traffic is not counted) and memory stall cycles.
    pub read_bytes: Vec<u64>,
    pub write_bytes: Vec<u64>,
    pub stall_cycles: Vec<u64>,
    /// Call stack at the sample, outermost first, `;`-separated.
    pub stack: String,
    /// The chip's other cores at the sample (added within version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_cores: Vec<OtherCoreSample>,
    /// Per tensor view, in the order of `Report::views`: bytes read and written in it so far (added
    /// within version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<[u64; 2]>,
}

/// Where another core (the ESP chips' APP CPU) was at a sample, with its totals so far.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OtherCoreSample {
    pub prid: u32,
    pub instructions: u64,
    /// Cycles it has waited for an interrupt so far.
    pub idle_cycles: u64,
    /// The function its PC is in (`(no symbol)` outside every symbol).
    pub function: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheProfile {
    pub name: String,
    pub size: u32,
    pub ways: u32,
    pub line_bytes: u32,
    pub write_policy: String,
    pub replacement: String,
    pub hits: u64,
    pub misses: u64,
    pub writebacks: u64,
    /// Cycles the core waited on misses (line fills and write-backs) and hits of this cache.
    pub stall_cycles: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegionProfile {
    pub name: String,
    pub kind: String,
    pub base: u32,
    pub size: u32,
    /// Data accesses; `None` when the core did not watch this region (see `--memory-stats`).
    pub reads: Option<u64>,
    pub writes: Option<u64>,
    pub read_bytes: Option<u64>,
    pub write_bytes: Option<u64>,
    pub fetches: u64,
    pub stall_cycles: u64,
    pub icache_hits: u64,
    pub icache_misses: u64,
    pub dcache_hits: u64,
    pub dcache_misses: u64,
    /// Dirty lines of this region written back from a cache.
    #[serde(default)]
    pub writebacks: u64,
}

/// What the simulator saw of the TiGrIS runtime (docs/tigris.md defines every figure).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisProfile {
    /// Where the plan was found and what it says, when `tigris_plan_load` was seen.
    pub plan: Option<TigrisPlanInfo>,
    pub arenas: Option<TigrisArenas>,
    /// Address of the trace sink registered with `tigris_mem_set_trace`.
    pub sink: Option<u32>,
    /// Inferences started (`tigris_run*` calls) and trace events captured.
    pub runs: u64,
    pub events: u64,
    /// Per stage (a chain is one entry, named by its head stage), in execution order.
    pub stages: Vec<TigrisStage>,
    /// Sums over all stages.
    pub total: TigrisFigures,
    /// Disagreements between the runtime, the bus and the plan; problems with what the firmware passed.
    pub findings: Vec<String>,
    /// Every trace event as it arrived (added within version 1).
    #[serde(default)]
    pub timeline: Vec<TigrisEvent>,
    /// Where `stages` and `timeline` come from; absent when there is no breakdown (added within
    /// version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<BreakdownSource>,
}

/// Where a TiGrIS breakdown comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakdownSource {
    /// The runtime's trace events, delivered to the sink the firmware registered.
    TraceEvents,
    /// Derived from the runtime's own calls (its kernel callback and copies) and the plan: the
    /// runtime has no trace API or no sink was registered.
    Derived,
}

/// One runtime trace event with the machine's state when it arrived.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisEvent {
    pub cycle: u64,
    /// stage_begin, stage_end, tile_begin, load, spill, alloc, reset, move, weights, op, copy.
    pub kind: String,
    /// Stage of the event (a chain's head), `None` outside a stage.
    pub stage: Option<u16>,
    /// Tile of the stage the event belongs to, `None` before the first TILE_BEGIN of a stage.
    pub tile: Option<u16>,
    /// Op index (OP events).
    pub op: Option<u16>,
    pub tensor: Option<u16>,
    pub bytes: u32,
    /// Rows of the event (`[first, end)`), when it has some.
    pub rows: Option<[i32; 2]>,
    /// Arena occupancy the runtime reported.
    pub fast_used: u32,
    pub slow_used: u32,
    /// Slow-arena bytes read and written on the bus since the arenas were set up.
    pub slow_read_bytes: u64,
    pub slow_write_bytes: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisPlanInfo {
    pub address: u32,
    pub bytes: u32,
    pub schema: Option<u32>,
    pub model: Option<String>,
    pub budget: Option<u32>,
    /// Why the plan could not be read, if it could not.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisArenas {
    pub fast_base: u32,
    pub fast_size: u32,
    pub slow_base: u32,
    pub slow_size: u32,
    /// Regions of the board the arenas lie in.
    pub fast_region: Option<String>,
    pub slow_region: Option<String>,
}

/// The figures of a tile, a stage or the whole run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TigrisFigures {
    pub cycles: u64,
    pub instructions: u64,
    /// Memory stall cycles by region (non-zero only).
    pub stalls: Vec<RegionCycles>,
    /// Fast-arena peak: the runtime's occupancy (`fast_used` of the events) and the highest byte
    /// written on the bus, both from the arena base.
    pub fast_peak: u32,
    pub fast_peak_bus: u32,
    /// Slow-arena peak, the same two ways: the runtime's occupancy (`slow_used`) and the highest byte
    /// written on the bus, from the arena base (added within version 1).
    #[serde(default)]
    pub slow_peak: u32,
    #[serde(default)]
    pub slow_peak_bus: u32,
    /// Slow-to-fast loads and fast-to-slow spills the runtime reported.
    pub load_bytes: u64,
    pub spill_bytes: u64,
    /// Slow-arena traffic on the bus and the stall cycles it cost.
    pub slow_read_bytes: u64,
    pub slow_write_bytes: u64,
    pub slow_stall_cycles: u64,
    /// Cycles of the runtime's slow-to-fast and fast-to-slow copies (from the event before each LOAD
    /// or SPILL to the event itself).
    pub load_cycles: u64,
    pub spill_cycles: u64,
    /// Input rows loaded again because the previous tile loaded them too (halo), their bytes, and the
    /// share of the load cycles they took.
    pub halo_rows: u64,
    /// The same measured on the bus: rows of slow-arena tensors the tile read that the previous tile of
    /// the stage read too (reads mapped to tensor rows by their addresses).
    pub halo_rows_bus: u64,
    pub halo_bytes: u64,
    pub halo_load_cycles: u64,
    /// Output rows a kernel computed again because the previous tile computed them too (chains without
    /// line buffering), and the share of the kernels' cycles they took.
    pub recomputed_rows: u64,
    pub recompute_cycles: u64,
    /// Bytes rolled by line buffering or compaction (MOVE events).
    pub moved_bytes: u64,
    /// Kernel calls (OP events).
    pub ops: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RegionCycles {
    pub region: String,
    pub cycles: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisStage {
    pub stage: u16,
    /// Execution path: normal, tiled, tiled_2d, by_input, transpose, rows, reshape, chain, control.
    pub path: String,
    /// Simulated cycle at which the stage began.
    pub start_cycle: u64,
    /// Names of the plan's ops the stage (or chain) runs, when the plan could be read.
    pub op_names: Vec<String>,
    /// What the planner predicted for it.
    pub predicted: Option<TigrisPrediction>,
    #[serde(flatten)]
    pub figures: TigrisFigures,
    pub tiles: Vec<TigrisTile>,
}

/// The plan's prediction for a stage (for a chain: the head's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisPrediction {
    /// untiled, tiled, chain head or chain member.
    pub execution: String,
    pub tiles: u32,
    /// Output rows per tile (chains: of the last member).
    pub tile_height: u32,
    pub halo: u32,
    pub receptive_field: u32,
    /// Fast bytes of one tile, or of the whole stage when untiled.
    pub peak_bytes: u64,
    pub overhead_bytes: u64,
    pub line_buffered: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TigrisTile {
    pub index: u16,
    /// Simulated cycle at which the tile began (added within version 1).
    #[serde(default)]
    pub start_cycle: u64,
    /// Input rows loaded for the tile, halo included: `[first, end)`.
    pub rows: [i32; 2],
    /// Output rows spilled, when the tile spilled: `[first, end)`.
    pub out_rows: Option<[i32; 2]>,
    #[serde(flatten)]
    pub figures: TigrisFigures,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FaultReport {
    pub kind: String,
    pub pc: u32,
    /// `symbol+0xoffset` of the PC, when a symbol covers it.
    pub location: Option<String>,
    /// `file:line` of the PC from the ELF's DWARF (of the innermost inlined function there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub address: Option<u32>,
    pub instruction: Option<String>,
    pub message: String,
    /// Innermost first: `symbol+0xoffset (0xaddress)`.
    pub backtrace: Vec<String>,
    pub registers: Vec<(String, u32)>,
}

/// Why a text is not a report this version reads (the JSON parser's error as the source, shown
/// by `{:#}` in anyhow).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("not valid JSON")]
    NotJson(#[source] serde_json::Error),
    #[error("not a {SCHEMA} file (missing `schema`/`schema_version`)")]
    NotAReport,
    #[error(
        "report schema version {0} is not supported (this tool reads version {SCHEMA_VERSION})"
    )]
    Version(u64),
    #[error("malformed report")]
    Malformed(#[source] serde_json::Error),
}

/// A view's tiles summed over every axis but its two heatmap axes.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapCells {
    pub row_axis: String,
    pub column_axis: String,
    pub rows: usize,
    pub columns: usize,
    /// Bytes read and written per cell, row-major.
    pub read_bytes: Vec<u64>,
    pub write_bytes: Vec<u64>,
}

impl TensorViewProfile {
    /// The view's traffic over its heatmap axes (none for a view of fewer than two axes).
    pub fn heatmap_cells(&self) -> Option<HeatmapCells> {
        let [row_axis, column_axis] = self.heatmap.clone()?;
        let position = |axis: &str| self.order.iter().position(|a| a == axis);
        let (r, c) = (position(&row_axis)?, position(&column_axis)?);
        let (rows, columns) = (*self.grid.get(r)? as usize, *self.grid.get(c)? as usize);
        let mut read_bytes = vec![0u64; rows * columns];
        let mut write_bytes = vec![0u64; rows * columns];
        for tile in &self.tiles {
            let cell = tile.tile[r] as usize * columns + tile.tile[c] as usize;
            read_bytes[cell] += tile.read_bytes;
            write_bytes[cell] += tile.write_bytes;
        }
        Some(HeatmapCells {
            row_axis,
            column_axis,
            rows,
            columns,
            read_bytes,
            write_bytes,
        })
    }
}

impl Report {
    /// Where each function's code is (`file:line`, from DWARF), by name, for the functions that
    /// have it.
    pub fn function_sources(&self) -> std::collections::HashMap<&str, &str> {
        self.functions
            .iter()
            .filter_map(|f| Some((f.name.as_str(), f.source.as_deref()?)))
            .collect()
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a report always serialises");
        s.push('\n');
        s
    }

    /// Parse a report, rejecting other schemas and versions with a clear message.
    ///
    /// ```
    /// let err = tigris_traces::Report::from_json(r#"{"schema": "other"}"#).unwrap_err();
    /// assert!(err.to_string().starts_with("not a tigris-sim-report file"), "{err}");
    /// ```
    pub fn from_json(text: &str) -> Result<Report, ReportError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(ReportError::NotJson)?;
        let schema = value.get("schema").and_then(|v| v.as_str());
        match (schema, value.get("schema_version").and_then(|v| v.as_u64())) {
            (Some(SCHEMA), Some(v)) if v == SCHEMA_VERSION as u64 => {}
            (Some(SCHEMA), Some(v)) => return Err(ReportError::Version(v)),
            _ => return Err(ReportError::NotAReport),
        }
        serde_json::from_value(value).map_err(ReportError::Malformed)
    }
}
