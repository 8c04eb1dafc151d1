//! The report as a Chrome trace-event JSON file, which ui.perfetto.dev and chrome://tracing open.
//! Format: the Trace Event Format (Google, "Trace Event Format" document): complete events
//! (`ph: "X"`, `ts`/`dur` in microseconds), counters (`ph: "C"`), instant events (`ph: "i"`) and
//! metadata (`ph: "M"`) naming the process and its threads. Time is simulated time.
//!
//! Tracks (threads of one process): TiGrIS stages, tiles, kernel calls and arena transfers, each
//! with slices that never overlap; functions from the timeline's sampled call stacks (a function's
//! slice runs from the first sample that sees it on the stack to the first that does not, so calls
//! shorter than the sample interval are missed or stretched); counters for arena occupancy and
//! slow-arena bus traffic, each non-SRAM region's traffic and each tensor view's.

use crate::{Report, TigrisFigures};
use serde_json::{json, Value};

const PID: u32 = 1;

/// Threads of the trace, in display order.
#[derive(Clone, Copy)]
enum Track {
    Stages = 1,
    Tiles,
    Ops,
    Transfers,
    Functions,
}

impl Track {
    const ALL: [(Track, &'static str); 5] = [
        (Track::Stages, "TiGrIS stages"),
        (Track::Tiles, "TiGrIS tiles"),
        (Track::Ops, "TiGrIS kernel calls"),
        (Track::Transfers, "TiGrIS arena transfers"),
        (Track::Functions, "functions (sampled stacks)"),
    ];
}

/// Simulated microseconds at a core cycle, at the clocks the core ran at.
struct Clock<'a>(&'a crate::BoardInfo);

impl Clock<'_> {
    fn us(&self, cycle: u64) -> f64 {
        self.0.seconds(cycle) * 1e6
    }
}

fn slice(track: Track, name: String, clock: &Clock, start: u64, cycles: u64, args: Value) -> Value {
    slice_on(track as u32, name, clock, start, cycles, args)
}

/// A slice on the track with id `tid`.
fn slice_on(tid: u32, name: String, clock: &Clock, start: u64, cycles: u64, args: Value) -> Value {
    let ts = clock.us(start);
    json!({"ph": "X", "pid": PID, "tid": tid, "name": name, "ts": ts,
           "dur": clock.us(start + cycles) - ts, "args": args})
}

fn counter(name: &str, clock: &Clock, at: u64, values: Value) -> Value {
    json!({"ph": "C", "pid": PID, "name": name, "ts": clock.us(at), "args": values})
}

fn figures_args(f: &TigrisFigures) -> Value {
    json!({
        "cycles": f.cycles, "instructions": f.instructions, "fast_peak": f.fast_peak,
        "load_bytes": f.load_bytes, "spill_bytes": f.spill_bytes, "slow_read_bytes": f.slow_read_bytes,
        "slow_write_bytes": f.slow_write_bytes, "slow_stall_cycles": f.slow_stall_cycles,
        "halo_rows": f.halo_rows, "halo_bytes": f.halo_bytes, "recomputed_rows": f.recomputed_rows,
        "recompute_cycles": f.recompute_cycles, "ops": f.ops,
    })
}

/// The trace of a report, as JSON text.
pub fn trace_json(report: &Report) -> String {
    let clock = Clock(&report.board);
    let mut events = vec![json!({"ph": "M", "pid": PID, "name": "process_name",
        "args": {"name": format!("{} on {}", report.firmware.file, report.board.name)}})];
    for (track, name) in Track::ALL {
        events.push(json!({"ph": "M", "pid": PID, "tid": track as u32, "name": "thread_name", "args": {"name": name}}));
        events.push(
            json!({"ph": "M", "pid": PID, "tid": track as u32, "name": "thread_sort_index",
            "args": {"sort_index": track as u32}}),
        );
    }
    tigris_events(report, &clock, &mut events);
    function_slices(report, &clock, &mut events);
    other_core_slices(report, &clock, &mut events);
    region_counters(report, &clock, &mut events);
    view_counters(report, &clock, &mut events);
    let mut text = serde_json::to_string(&json!({"displayTimeUnit": "ns", "traceEvents": events}))
        .expect("a trace always serialises");
    text.push('\n');
    text
}

fn tigris_events(report: &Report, clock: &Clock, events: &mut Vec<Value>) {
    let Some(t) = &report.tigris else { return };
    for s in &t.stages {
        let name = format!("stage {} ({})", s.stage, s.path);
        let mut args = figures_args(&s.figures);
        args["ops"] = json!(s.op_names.join(", "));
        events.push(slice(
            Track::Stages,
            name,
            clock,
            s.start_cycle,
            s.figures.cycles,
            args,
        ));
        for tile in &s.tiles {
            let mut args = figures_args(&tile.figures);
            args["input_rows"] = json!(format!("{}..{}", tile.rows[0], tile.rows[1]));
            let name = format!("stage {} tile {}", s.stage, tile.index);
            events.push(slice(
                Track::Tiles,
                name,
                clock,
                tile.start_cycle,
                tile.figures.cycles,
                args,
            ));
        }
    }
    let op_name = |stage: Option<u16>, op: u16| {
        let names = stage
            .and_then(|st| t.stages.iter().find(|s| s.stage == st))
            .map(|s| &s.op_names);
        format!(
            "op {op}{}",
            names
                .and_then(|n| n.get(op as usize))
                .map(|n| format!(" {n}"))
                .unwrap_or_default()
        )
    };
    for (i, e) in t.timeline.iter().enumerate() {
        let rows = e.rows.map(|r| format!("{}..{}", r[0], r[1]));
        match e.kind.as_str() {
            // A kernel runs from its OP event to the next event (docs/tigris.md).
            "op" => {
                let end = t.timeline.get(i + 1).map(|n| n.cycle).unwrap_or(e.cycle);
                let name = e.op.map(|op| op_name(e.stage, op)).unwrap_or("op".into());
                let args = json!({"stage": e.stage, "tile": e.tile, "tensor": e.tensor, "rows": rows});
                events.push(slice(Track::Ops, name, clock, e.cycle, end.saturating_sub(e.cycle), args));
            }
            "load" | "spill" | "move" | "weights" | "copy" => events.push(json!({
                "ph": "i", "s": "t", "pid": PID, "tid": Track::Transfers as u32, "ts": clock.us(e.cycle),
                "name": format!("{} {} B", e.kind, e.bytes),
                "args": {"stage": e.stage, "tile": e.tile, "tensor": e.tensor, "bytes": e.bytes, "rows": rows},
            })),
            _ => {}
        }
        events.push(counter(
            "fast arena used (bytes)",
            clock,
            e.cycle,
            json!({"fast_used": e.fast_used}),
        ));
        events.push(counter(
            "slow arena used (bytes)",
            clock,
            e.cycle,
            json!({"slow_used": e.slow_used}),
        ));
        events.push(counter(
            "slow arena bus traffic (bytes so far)",
            clock,
            e.cycle,
            json!({"read": e.slow_read_bytes, "written": e.slow_write_bytes}),
        ));
    }
}

/// Nested slices from the sampled call stacks: a frame stays open while consecutive samples share it.
fn function_slices(report: &Report, clock: &Clock, events: &mut Vec<Value>) {
    let Some(timeline) = &report.timeline else {
        return;
    };
    // Each function's slice carries where its code is, when DWARF said.
    let sources = report.function_sources();
    let mut open: Vec<(&str, u64)> = Vec::new();
    let close_from =
        |open: &mut Vec<(&str, u64)>, depth: usize, at: u64, events: &mut Vec<Value>| {
            // Innermost first, so each slice ends before its parent.
            while open.len() > depth {
                let (name, start) = open.pop().expect("longer than depth");
                let args = match sources.get(name) {
                    Some(source) => json!({ "source": source }),
                    None => json!({}),
                };
                events.push(slice(
                    Track::Functions,
                    name.to_string(),
                    clock,
                    start,
                    at.saturating_sub(start),
                    args,
                ));
            }
        };
    for sample in &timeline.samples {
        let frames: Vec<&str> = sample.stack.split(';').filter(|f| !f.is_empty()).collect();
        let shared = open
            .iter()
            .zip(&frames)
            .take_while(|((name, _), frame)| name == *frame)
            .count();
        close_from(&mut open, shared, sample.cycle, events);
        open.extend(frames[shared..].iter().map(|f| (*f, sample.cycle)));
    }
    let end = timeline.samples.last().map(|s| s.cycle).unwrap_or(0);
    close_from(&mut open, 0, end, events);
}

/// Track ids of the other cores follow the named tracks.
const OTHER_CORE_TRACKS: u32 = 100;

/// The chip's other cores, one track each: the function each sample found it in, as slices from
/// one sample to the next where it stays, and its idle share between samples as a counter.
fn other_core_slices(report: &Report, clock: &Clock, events: &mut Vec<Value>) {
    let Some(timeline) = &report.timeline else {
        return;
    };
    let mut prids: Vec<u32> = Vec::new();
    for s in &timeline.samples {
        for c in &s.other_cores {
            if !prids.contains(&c.prid) {
                prids.push(c.prid);
            }
        }
    }
    for (k, prid) in prids.iter().enumerate() {
        let tid = OTHER_CORE_TRACKS + k as u32;
        events.push(
            json!({"ph": "M", "pid": PID, "tid": tid, "name": "thread_name",
            "args": {"name": format!("core PRID 0x{prid:04X} (sampled functions)")}}),
        );
        events.push(
            json!({"ph": "M", "pid": PID, "tid": tid, "name": "thread_sort_index",
            "args": {"sort_index": tid}}),
        );
        let at = |s: &crate::Sample| s.other_cores.iter().find(|c| c.prid == *prid).cloned();
        let mut open: Option<(String, u64)> = None;
        let mut last: Option<(u64, u64)> = None;
        for s in &timeline.samples {
            let Some(c) = at(s) else { continue };
            if open.as_ref().is_some_and(|(f, _)| *f != c.function) {
                let (f, start) = open.take().expect("checked above");
                events.push(slice_on(tid, f, clock, start, s.cycle - start, json!({})));
            }
            open.get_or_insert((c.function.clone(), s.cycle));
            if let Some((cycle, idle)) = last {
                let share =
                    (c.idle_cycles - idle) as f64 / s.cycle.saturating_sub(cycle).max(1) as f64;
                events.push(counter(
                    &format!("core PRID 0x{prid:04X} idle share"),
                    clock,
                    s.cycle,
                    json!({"idle": share.min(1.0)}),
                ));
            }
            last = Some((s.cycle, c.idle_cycles));
        }
        if let (Some((f, start)), Some(end)) = (open, timeline.samples.last().map(|s| s.cycle)) {
            events.push(slice_on(tid, f, clock, start, end - start, json!({})));
        }
    }
}

/// Counters of each non-SRAM region's bytes so far, from the timeline samples.
fn region_counters(report: &Report, clock: &Clock, events: &mut Vec<Value>) {
    let Some(timeline) = &report.timeline else {
        return;
    };
    for (i, region) in report.regions.iter().enumerate() {
        let moved = |s: &crate::Sample| {
            s.read_bytes.get(i).copied().unwrap_or(0) + s.write_bytes.get(i).copied().unwrap_or(0)
        };
        if region.kind == "sram" || timeline.samples.last().is_none_or(|s| moved(s) == 0) {
            continue;
        }
        let name = format!("{} traffic (bytes so far)", region.name);
        for s in &timeline.samples {
            let (read, written) = (
                s.read_bytes.get(i).copied().unwrap_or(0),
                s.write_bytes.get(i).copied().unwrap_or(0),
            );
            events.push(counter(
                &name,
                clock,
                s.cycle,
                json!({"read": read, "written": written}),
            ));
        }
    }
}

/// Counters of each tensor view's bytes so far (docs/views.md), from the timeline samples.
fn view_counters(report: &Report, clock: &Clock, events: &mut Vec<Value>) {
    let Some(timeline) = &report.timeline else {
        return;
    };
    for (i, view) in report.views.iter().enumerate() {
        let name = format!("view {} traffic (bytes so far)", view.name);
        for s in &timeline.samples {
            let [read, written] = s.views.get(i).copied().unwrap_or_default();
            events.push(counter(
                &name,
                clock,
                s.cycle,
                json!({"read": read, "written": written}),
            ));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::*;
    use crate::{Sample, StackProfile, TigrisEvent, TigrisStage, Timeline};

    /// A sample at `cycle` with `stack`; psram (region 1) has read 4096 bytes once the run is past 6000 cycles.
    fn traffic_sample(cycle: u64, stack: &str) -> Sample {
        let psram_read = if cycle > 6000 { 4096 } else { 0 };
        sample(cycle, stack, &[cycle, psram_read], &[0, 0])
    }

    /// A 240 MHz run of 7200 cycles: stage 0 untiled (0..2400), stage 3 tiled in two tiles (2400..7200).
    pub(crate) fn report_with_tigris() -> Report {
        let tiles = vec![
            tile(0, 2400, figures(2400)),
            tile(
                1,
                4800,
                TigrisFigures {
                    halo_rows: 2,
                    ..figures(2400)
                },
            ),
        ];
        let stages = vec![
            TigrisStage {
                op_names: vec!["pool".into()],
                ..stage(0, "normal", 0, figures(2400), vec![])
            },
            TigrisStage {
                op_names: vec!["conv3".into()],
                ..stage(3, "tiled", 2400, figures(4800), tiles)
            },
        ];
        let timeline = vec![
            TigrisEvent {
                stage: Some(0),
                ..event(0, "stage_begin")
            },
            TigrisEvent {
                stage: Some(0),
                bytes: 512,
                fast_used: 1024,
                ..event(600, "load")
            },
            TigrisEvent {
                stage: Some(3),
                tile: Some(0),
                op: Some(0),
                fast_used: 3072,
                ..event(3000, "op")
            },
            TigrisEvent {
                stage: Some(3),
                tile: Some(0),
                fast_used: 1024,
                ..event(4200, "stage_end")
            },
        ];
        Report {
            regions: vec![region("sram", "sram"), region("psram", "psram")],
            tigris: Some(tigris(stages, timeline)),
            stacks: vec![
                StackProfile {
                    stack: "main".into(),
                    cycles: 200,
                    instructions: 100,
                },
                StackProfile {
                    stack: "main;conv".into(),
                    cycles: 7000,
                    instructions: 3500,
                },
                StackProfile {
                    stack: "main;idle".into(),
                    cycles: 0,
                    instructions: 0,
                },
            ],
            timeline: Some(Timeline {
                interval_cycles: 6000,
                samples: vec![traffic_sample(0, "main"), traffic_sample(7200, "main")],
            }),
            ..report(240_000_000, 7200)
        }
    }

    fn parsed(report: &Report) -> Vec<Value> {
        let v: Value = serde_json::from_str(&trace_json(report)).unwrap();
        v["traceEvents"].as_array().unwrap().clone()
    }

    fn on_track(events: &[Value], track: Track) -> Vec<&Value> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == track as u32)
            .collect()
    }

    #[test]
    fn stages_tiles_and_kernel_calls_become_slices_in_simulated_microseconds() {
        let report = report_with_tigris();
        let events = parsed(&report);
        let stages = on_track(&events, Track::Stages);
        assert_eq!(stages.len(), 2);
        // 240 MHz: 2400 cycles are 10 us.
        assert_eq!(
            (
                stages[1]["name"].as_str(),
                stages[1]["ts"].as_f64(),
                stages[1]["dur"].as_f64()
            ),
            (Some("stage 3 (tiled)"), Some(10.0), Some(20.0))
        );
        let tiles = on_track(&events, Track::Tiles);
        assert_eq!(
            tiles
                .iter()
                .map(|t| t["name"].as_str().unwrap())
                .collect::<Vec<_>>(),
            ["stage 3 tile 0", "stage 3 tile 1"]
        );
        assert_eq!(tiles[1]["args"]["halo_rows"], 2);
        let ops = on_track(&events, Track::Ops);
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0]["name"], "op 0 conv3");
        assert_eq!(
            ops[0]["dur"].as_f64(),
            Some(5.0),
            "the kernel runs to the next event"
        );
        let loads: Vec<_> = events.iter().filter(|e| e["ph"] == "i").collect();
        assert_eq!(loads[0]["name"], "load 512 B");
        let fast: Vec<u64> = events
            .iter()
            .filter(|e| e["name"] == "fast arena used (bytes)")
            .map(|e| e["args"]["fast_used"].as_u64().unwrap())
            .collect();
        assert_eq!(fast, [0, 1024, 3072, 1024]);
    }

    #[test]
    fn sampled_stacks_become_nested_function_slices() {
        let mut report = report_with_tigris();
        let t = report.timeline.as_mut().unwrap();
        t.samples = vec![
            traffic_sample(0, "main"),
            traffic_sample(100, "main;conv"),
            traffic_sample(200, "main;conv;mac"),
            traffic_sample(300, "main;pool"),
            traffic_sample(400, "main"),
        ];
        let mut conv = function("conv", 200, 200, 1);
        conv.source = Some("model.c:42".into());
        report.functions = vec![conv];
        let events = parsed(&report);
        let args: Vec<&Value> = on_track(&events, Track::Functions)
            .iter()
            .map(|e| &e["args"])
            .collect();
        assert_eq!(args[1], &json!({"source": "model.c:42"}), "conv's slice");
        assert_eq!(args[0], &json!({}), "mac has no line");
        let slices: Vec<(String, f64, f64)> = on_track(&events, Track::Functions)
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["ts"].as_f64().unwrap() * 240.0,
                    e["dur"].as_f64().unwrap() * 240.0,
                )
            })
            .collect();
        let cycles = |v: f64| v.round();
        let got: Vec<(String, f64, f64)> = slices
            .into_iter()
            .map(|(n, s, d)| (n, cycles(s), cycles(d)))
            .collect();
        assert_eq!(
            got,
            [
                ("mac".into(), 200.0, 100.0),
                ("conv".into(), 100.0, 200.0),
                ("pool".into(), 300.0, 100.0),
                ("main".into(), 0.0, 400.0)
            ]
        );
    }

    /// Another core's sampled functions become slices on its own track, its idle time a share.
    #[test]
    fn other_cores_get_a_track_of_sampled_functions() {
        let mut report = report_with_tigris();
        let t = report.timeline.as_mut().unwrap();
        let at = |cycle: u64, function: &str, idle: u64| {
            let mut s = traffic_sample(cycle, "main");
            s.other_cores = vec![crate::OtherCoreSample {
                prid: 0xABAB,
                instructions: cycle / 2,
                idle_cycles: idle,
                function: function.into(),
            }];
            s
        };
        t.samples = vec![at(0, "start", 0), at(240, "start", 0), at(480, "idle", 240)];
        let events = parsed(&report);
        let track: Vec<&Value> = events.iter().filter(|e| e["tid"] == 100).collect();
        assert!(track.iter().any(|e| e["name"] == "thread_name"
            && e["args"]["name"] == "core PRID 0xABAB (sampled functions)"));
        let slices: Vec<(&str, f64, f64)> = track
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| {
                (
                    e["name"].as_str().unwrap(),
                    e["ts"].as_f64().unwrap(),
                    e["dur"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(slices, [("start", 0.0, 2.0), ("idle", 2.0, 0.0)]);
        let idle: Vec<f64> = events
            .iter()
            .filter(|e| e["name"] == "core PRID 0xABAB idle share")
            .map(|e| e["args"]["idle"].as_f64().unwrap())
            .collect();
        assert_eq!(idle, [0.0, 1.0]);
    }

    #[test]
    fn regions_beyond_sram_get_traffic_counters() {
        let report = report_with_tigris();
        let events = parsed(&report);
        let psram: Vec<_> = events
            .iter()
            .filter(|e| e["name"] == "psram traffic (bytes so far)")
            .collect();
        assert_eq!(psram.len(), 2);
        assert_eq!(psram[1]["args"]["read"], 4096);
        assert!(
            !events
                .iter()
                .any(|e| e["name"] == "sram traffic (bytes so far)"),
            "SRAM is not a slow memory"
        );
    }

    #[test]
    fn each_tensor_view_gets_a_traffic_counter() {
        let mut report = report_with_tigris();
        report.views = vec![tensor_view("x", 1, 2, &[3, 4])];
        let timeline = report.timeline.as_mut().unwrap();
        for (k, s) in timeline.samples.iter_mut().enumerate() {
            s.views = vec![[7 * k as u64, 0]];
        }
        let events = parsed(&report);
        let reads: Vec<&Value> = events
            .iter()
            .filter(|e| e["name"] == "view x traffic (bytes so far)")
            .map(|e| &e["args"]["read"])
            .collect();
        assert_eq!(reads, [&json!(0), &json!(7)]);
    }

    #[test]
    fn a_report_without_tigris_or_timeline_still_gives_a_valid_trace() {
        let mut report = report_with_tigris();
        report.tigris = None;
        report.timeline = None;
        let events = parsed(&report);
        assert!(events.iter().all(|e| e["ph"] == "M"));
        assert_eq!(trace_json(&report), trace_json(&report), "deterministic");
    }
}
