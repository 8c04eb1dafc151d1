//! Small reports for the exporters' tests.

use crate::*;

/// A sample at `cycle` with `stack`; psram (region 1) has read 4096 bytes once the run is past 6000 cycles.
pub fn sample(cycle: u64, stack: &str) -> Sample {
    let psram_read = if cycle > 6000 { 4096 } else { 0 };
    Sample {
        cycle,
        instructions: cycle / 2,
        read_bytes: vec![cycle, psram_read],
        write_bytes: vec![0, 0],
        stall_cycles: vec![0, 0],
        stack: stack.into(),
    }
}

fn region(name: &str, kind: &str) -> RegionProfile {
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

fn event(cycle: u64, kind: &str, stage: u16, tile: Option<u16>, bytes: u32, fast_used: u32) -> TigrisEvent {
    TigrisEvent {
        cycle,
        kind: kind.into(),
        stage: Some(stage),
        tile,
        op: (kind == "op").then_some(0),
        tensor: None,
        bytes,
        rows: None,
        fast_used,
        slow_used: 4096,
        slow_read_bytes: cycle,
        slow_write_bytes: 0,
    }
}

fn figures(cycles: u64) -> TigrisFigures {
    TigrisFigures { cycles, ..Default::default() }
}

/// A 240 MHz run of 7200 cycles: stage 0 untiled (0..2400), stage 3 tiled in two tiles (2400..7200).
pub fn report_with_tigris() -> Report {
    let tile = |index: u16, start_cycle: u64, halo_rows: u64| TigrisTile {
        index,
        start_cycle,
        rows: [0, 10],
        out_rows: None,
        figures: TigrisFigures { halo_rows, ..figures(2400) },
    };
    let stage = |stage: u16, path: &str, start_cycle: u64, cycles: u64, tiles: Vec<TigrisTile>, op: &str| TigrisStage {
        stage,
        path: path.into(),
        start_cycle,
        op_names: vec![op.into()],
        predicted: None,
        figures: figures(cycles),
        tiles,
    };
    Report {
        schema: SCHEMA.into(),
        schema_version: SCHEMA_VERSION,
        tool: Tool { name: "tigris-sim".into(), version: "0".into() },
        firmware: Firmware { file: "fw.elf".into(), sha256: String::new(), entry: 0, initial_sp: 0 },
        board: BoardInfo { name: "esp32s3".into(), core: "xtensa-lx7".into(), clock_hz: 240_000_000 },
        outcome: Outcome::Exited { code: 0 },
        totals: Totals { cycles: 7200, instructions: 3600, cpi: 2.0, seconds: 3e-5, stall_cycles: 0 },
        console: String::new(),
        functions: vec![],
        regions: vec![region("sram", "sram"), region("psram", "psram")],
        caches: vec![],
        tigris: Some(TigrisProfile {
            plan: None,
            arenas: None,
            sink: None,
            runs: 1,
            events: 4,
            stages: vec![
                stage(0, "normal", 0, 2400, vec![], "pool"),
                stage(3, "tiled", 2400, 4800, vec![tile(0, 2400, 0), tile(1, 4800, 2)], "conv3"),
            ],
            total: figures(7200),
            findings: vec![],
            timeline: vec![
                event(0, "stage_begin", 0, None, 0, 0),
                event(600, "load", 0, None, 512, 1024),
                event(3000, "op", 3, Some(0), 0, 3072),
                event(4200, "stage_end", 3, Some(0), 0, 1024),
            ],
        }),
        stacks: vec![
            StackProfile { stack: "main".into(), cycles: 200, instructions: 100 },
            StackProfile { stack: "main;conv".into(), cycles: 7000, instructions: 3500 },
            StackProfile { stack: "main;idle".into(), cycles: 0, instructions: 0 },
        ],
        timeline: Some(Timeline { interval_cycles: 6000, samples: vec![sample(0, "main"), sample(7200, "main")] }),
        fault: None,
        notes: vec![],
    }
}
