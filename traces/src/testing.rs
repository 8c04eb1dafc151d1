//! Builders of small synthetic reports, shared by the tests of this crate, the TUI and the simulator.
//! Whatever a builder is not given is zero, empty or absent, so a test sets only the fields it is
//! about, with struct-update syntax: `TigrisEvent { fast_used: 7680, ..event(2000, "load") }`.

use crate::*;

/// A run of `cycles` cycles at `clock_hz` (two cycles an instruction) that exited with code 0:
/// `fw.elf` on a Cortex-M4 `testboard`, with no functions, regions, TiGrIS or timeline.
pub fn report(clock_hz: u64, cycles: u64) -> Report {
    Report {
        schema: SCHEMA.into(),
        schema_version: SCHEMA_VERSION,
        tool: Tool {
            name: "tigris-sim".into(),
            version: "0".into(),
        },
        firmware: Firmware {
            file: "fw.elf".into(),
            sha256: String::new(),
            entry: 0,
            initial_sp: 0,
        },
        board: BoardInfo {
            name: "testboard".into(),
            core: "cortex-m4".into(),
            clock_hz,
            clock_changes: Vec::new(),
            settings: Vec::new(),
        },
        outcome: Outcome::Exited { code: 0 },
        totals: Totals {
            cycles,
            instructions: cycles / 2,
            cpi: 2.0,
            seconds: cycles as f64 / clock_hz as f64,
            stall_cycles: 0,
        },
        console: String::new(),
        functions: Vec::new(),
        regions: Vec::new(),
        caches: Vec::new(),
        tigris: None,
        stacks: Vec::new(),
        timeline: None,
        fault: None,
        other_cores: Vec::new(),
        lines: Vec::new(),
        views: Vec::new(),
        panic: None,
        notes: Vec::new(),
    }
}

/// A region at address 0 whose data accesses were not watched, with no traffic.
pub fn region(name: &str, kind: &str) -> RegionProfile {
    RegionProfile {
        name: name.into(),
        kind: kind.into(),
        base: 0,
        size: 0,
        reads: None,
        writes: None,
        read_bytes: None,
        write_bytes: None,
        fetches: 0,
        stall_cycles: 0,
        icache_hits: 0,
        icache_misses: 0,
        dcache_hits: 0,
        dcache_misses: 0,
        writebacks: 0,
    }
}

/// A function at address 0 with no instruction counts and no memory traffic.
pub fn function(
    name: &str,
    self_cycles: u64,
    inclusive_cycles: u64,
    calls: u64,
) -> FunctionProfile {
    FunctionProfile {
        name: name.into(),
        symbol: None,
        address: 0,
        source: None,
        calls,
        self_cycles,
        inclusive_cycles,
        self_instructions: 0,
        inclusive_instructions: 0,
        memory: Vec::new(),
    }
}

/// A timeline sample (two cycles an instruction, as in `report`); per region, the bytes read and
/// written so far and no stall cycles.
pub fn sample(cycle: u64, stack: &str, read_bytes: &[u64], write_bytes: &[u64]) -> Sample {
    Sample {
        cycle,
        instructions: cycle / 2,
        read_bytes: read_bytes.to_vec(),
        write_bytes: write_bytes.to_vec(),
        stall_cycles: vec![0; read_bytes.len()],
        stack: stack.into(),
        other_cores: Vec::new(),
        views: Vec::new(),
    }
}

/// Figures of a tile, stage or run that took `cycles` and nothing else.
pub fn figures(cycles: u64) -> TigrisFigures {
    TigrisFigures {
        cycles,
        ..Default::default()
    }
}

/// A tile with no input or output rows.
pub fn tile(index: u16, start_cycle: u64, figures: TigrisFigures) -> TigrisTile {
    TigrisTile {
        index,
        start_cycle,
        rows: [0, 0],
        out_rows: None,
        figures,
    }
}

/// A stage with no op names and no prediction.
pub fn stage(
    stage: u16,
    path: &str,
    start_cycle: u64,
    figures: TigrisFigures,
    tiles: Vec<TigrisTile>,
) -> TigrisStage {
    TigrisStage {
        stage,
        path: path.into(),
        start_cycle,
        op_names: Vec::new(),
        predicted: None,
        figures,
        tiles,
    }
}

/// A trace event outside any stage, with empty arenas and no slow-arena traffic.
pub fn event(cycle: u64, kind: &str) -> TigrisEvent {
    TigrisEvent {
        cycle,
        kind: kind.into(),
        stage: None,
        tile: None,
        op: None,
        tensor: None,
        bytes: 0,
        rows: None,
        fast_used: 0,
        slow_used: 0,
        slow_read_bytes: 0,
        slow_write_bytes: 0,
    }
}

/// One inference that ran `stages` and captured `timeline`, without plan or arenas; its total is
/// the sum of the stages' cycles.
pub fn tigris(stages: Vec<TigrisStage>, timeline: Vec<TigrisEvent>) -> TigrisProfile {
    TigrisProfile {
        plan: None,
        arenas: None,
        sink: None,
        runs: 1,
        events: timeline.len() as u64,
        total: figures(stages.iter().map(|stage| stage.figures.cycles).sum()),
        stages,
        findings: Vec::new(),
        timeline,
        breakdown: Some(BreakdownSource::TraceEvents),
    }
}

/// A plan read without error, of `budget` fast-arena bytes.
pub fn plan(budget: u32) -> TigrisPlanInfo {
    TigrisPlanInfo {
        address: 0,
        bytes: 0,
        schema: None,
        model: None,
        budget: Some(budget),
        error: None,
    }
}

/// A fast arena of `fast_size` bytes in `fast_region` and a slow one in `psram`, both at address 0.
pub fn arenas(fast_region: &str, fast_size: u32) -> TigrisArenas {
    TigrisArenas {
        fast_base: 0,
        fast_size,
        slow_base: 0,
        slow_size: 0,
        fast_region: Some(fast_region.into()),
        slow_region: Some("psram".into()),
    }
}

/// A row-major int8 view `name` of [rows, columns] bytes in `sram`, tiled one tile per element,
/// with `read_bytes[i]` bytes read from tile i (first touched in tile order) and nothing written.
pub fn tensor_view(name: &str, rows: u64, columns: u64, read_bytes: &[u64]) -> TensorViewProfile {
    let tiles = (0..rows * columns)
        .map(|t| ViewTile {
            tile: vec![t / columns, t % columns],
            elements: 1,
            read_bytes: read_bytes.get(t as usize).copied().unwrap_or(0),
            write_bytes: 0,
            stall_cycles: 0,
            first_cycle: None,
            last_cycle: None,
        })
        .collect::<Vec<_>>();
    TensorViewProfile {
        name: name.into(),
        address: 0x2000_0000,
        bytes: rows * columns,
        region: "sram".into(),
        dtype: "int8".into(),
        shape: vec![rows, columns],
        axes: vec!["h".into(), "w".into()],
        layout: "row-major".into(),
        tile: vec![1, 1],
        order: vec!["h".into(), "w".into()],
        grid: vec![rows, columns],
        heatmap: Some(["h".into(), "w".into()]),
        reads: read_bytes.iter().sum(),
        writes: 0,
        read_bytes: read_bytes.iter().sum(),
        write_bytes: 0,
        distinct_bytes: read_bytes.iter().filter(|&&b| b > 0).count() as u64,
        distinct_read_bytes: read_bytes.iter().filter(|&&b| b > 0).count() as u64,
        reread_factor: 1.0,
        padding_read_bytes: 0,
        padding_write_bytes: 0,
        stall_cycles: 0,
        widths: Vec::new(),
        first_touch: (0..read_bytes.len() as u64)
            .filter(|&t| read_bytes[t as usize] > 0)
            .collect(),
        tiles,
    }
}
