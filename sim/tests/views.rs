//! The report views end to end: real reports written by `tigris-sim run` (TiGrIS tiled, chain and
//! line-buffered chain, and the memory benchmark without TiGrIS), gated by `tigris-sim check` (exit
//! codes, limits files, JUnit XML, bad input) and set side by side by `tigris-sim compare`.

mod common;

use common::{elf, sim};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A new scratch file in the temp directory: tests run in parallel and may write the same report.
fn scratch(name: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let p: PathBuf =
        std::env::temp_dir().join(format!("tigris-views-{}-{n}-{name}", std::process::id()));
    p.to_string_lossy().into_owned()
}

/// Run an ESP32-S3 program with `--report`; the report's path and its JSON.
fn report(program: &str) -> (String, Value) {
    let path = scratch(&format!("{program}.json"));
    let out = sim(&[
        "run",
        "--quiet",
        &elf("esp32s3", program),
        "--report",
        &path,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, json)
}

/// `tigris-sim ARGS...`: (exit code, stdout, stderr).
fn tool(args: &[&str]) -> (i32, String, String) {
    let out = sim(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(name: &str, text: &str) -> String {
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The line of `text` whose first word(s) are `label`.
fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in\n{text}"))
}

/// Minimal XML well-formedness: every element closed in order, attributes quoted, entities known.
fn assert_well_formed(xml: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        .expect("XML declaration");
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..]
                .find(';')
                .map(|e| i + e + 1)
                .expect("unterminated entity")];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity),
                "entity {entity}"
            );
        }
        let end = start + rest[start..].find('>').expect("unclosed tag");
        let tag = &rest[start + 1..end];
        assert!(
            !tag.contains('<') && tag.matches('"').count() & 1 == 0,
            "bad tag <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
        rest = &rest[end + 1..];
    }
    assert!(
        stack.is_empty() && rest.trim().is_empty(),
        "unclosed {stack:?}"
    );
}

#[test]
fn check_passes_at_the_measured_figures_and_fails_below_them() {
    let (path, r) = report("tigris_tiled");
    let cycles = r["totals"]["cycles"].as_u64().unwrap();
    let ms = r["totals"]["seconds"].as_f64().unwrap() * 1e3;
    let t = &r["tigris"]["total"];
    let peak = t["fast_peak"].as_u64().unwrap();
    let slow = t["slow_read_bytes"].as_u64().unwrap() + t["slow_write_bytes"].as_u64().unwrap();
    let stalls = r["totals"]["stall_cycles"].as_u64().unwrap();
    assert_eq!(peak, 8192, "the tiled model's fast arena is 8 KiB");

    let (code, out, err) = tool(&[
        "check",
        &path,
        "--max-cycles",
        &cycles.to_string(),
        "--max-ms",
        &format!("{:.3}", ms + 0.001),
        "--max-fast-peak",
        "8K",
        "--max-slow-bytes",
        &slow.to_string(),
        "--max-stall-cycles",
        &stalls.to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with("6 limits: 6 passed, 0 failed\n"), "{out}");
    assert!(line(&out, "TiGrIS fast peak").contains("8,192 B"), "{out}");

    let (code, out, _) = tool(&[
        "check",
        &path,
        "--max-cycles",
        &(cycles - 1).to_string(),
        "--max-fast-peak",
        "232K",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(line(&out, "cycles").ends_with("FAIL"), "{out}");
    assert!(line(&out, "TiGrIS fast peak").ends_with("PASS"), "{out}");
    let (code, out, _) = tool(&["check", &path, "--max-ms", &format!("{:.3}", ms - 1.0)]);
    assert_eq!(code, 1, "{out}");
    assert!(line(&out, "simulated ms").ends_with("FAIL"), "{out}");
    // The same verdict as JSON, the exit code unchanged.
    let (code, out, _) = tool(&[
        "check",
        &path,
        "--max-ms",
        &format!("{:.3}", ms - 1.0),
        "--json",
    ]);
    let verdicts: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 1, "{out}");
    let ms_verdict = verdicts
        .iter()
        .find(|v| v["name"] == "simulated ms")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(ms_verdict["pass"], false, "{out}");
    assert!(verdicts
        .iter()
        .any(|v| v["name"] == "run outcome" && v["pass"] == true));
}

#[test]
fn limits_file_per_stage_and_junit() {
    let (path, _) = report("tigris_tiled");
    // Stage 3 is tiled in 4 tiles with a 6,656-byte fast peak; stage 1 moves 5,120 slow bytes.
    let limits = write(
        "tiled.toml",
        "# the tiled model's budgets\n[run]\nmax_ms = 1000\n\n[[stage]]\nstage = 3\npath = \"tiled\"\nmax_fast_peak = \"7K\"\nmax_halo_share = 0.05\n\n[[stage]]\nstage = 1\nmax_slow_bytes = \"4K\"\n",
    );
    let junit = scratch("junit.xml");
    let (code, out, err) = tool(&["check", &path, "--limits", &limits, "--junit", &junit]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        line(&out, "stage 3 tiled fast peak").contains("6,656 B")
            && line(&out, "stage 3 tiled fast peak").ends_with("PASS"),
        "{out}"
    );
    assert!(
        line(&out, "stage 3 tiled halo share").ends_with("PASS"),
        "{out}"
    );
    assert!(
        line(&out, "stage 1 normal slow bytes").contains("5,120 B")
            && line(&out, "stage 1 normal slow bytes").ends_with("FAIL"),
        "{out}"
    );
    assert!(out.ends_with("5 limits: 4 passed, 1 failed\n"), "{out}");

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_well_formed(&xml);
    assert_eq!(xml.matches("<testcase ").count(), 5, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(
        xml.contains("<testsuites name=\"tigris-sim check\" tests=\"5\" failures=\"1\""),
        "{xml}"
    );
    assert!(xml.contains("message=\"stage 1 normal slow bytes (read + written): measured 5,120 B, budget 4,096 B\""), "{xml}");

    // Relaxed, every limit passes and the JUnit file says so.
    let relaxed = write(
        "relaxed.toml",
        "[[stage]]\nstage = 1\nmax_slow_bytes = 5120\n",
    );
    let (code, out, _) = tool(&["check", &path, "--limits", &relaxed, "--junit", &junit]);
    assert_eq!(code, 0, "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_well_formed(&xml);
    assert_eq!(
        (
            xml.matches("<testcase ").count(),
            xml.matches("<failure ").count()
        ),
        (2, 0),
        "{xml}"
    );
}

#[test]
fn check_refuses_bad_input_with_exit_code_2() {
    let (tiled, _) = report("tigris_tiled");
    let (chain, _) = report("tigris_chain");
    let (membench, r) = report("membench");
    assert!(r["tigris"].is_null(), "membench runs no TiGrIS model");
    let unknown = write(
        "unknown.toml",
        "[run]\nmax_ms = 100\n\n[[stage]]\nstage = 3\nmax_fast_peek = \"8K\"\n",
    );
    let missing_stage = write("missing.toml", "[[stage]]\nstage = 3\nmax_cycles = 1\n");
    let foreign = write(
        "foreign.json",
        "{\"schema\": \"something-else\", \"schema_version\": 1}",
    );
    let cases: &[(&[&str], String)] = &[
        (
            &["check", &membench, "--max-fast-peak", "232K"],
            "--max-fast-peak is a TiGrIS limit, but the report has no `tigris` object".into(),
        ),
        (
            &["check", &membench, "--max-slow-bytes", "1M"],
            "--max-slow-bytes is a TiGrIS limit".into(),
        ),
        (
            &["check", &tiled, "--max-fast-peak", "232Q"],
            "--max-fast-peak: `232Q` is not a size".into(),
        ),
        (
            &["check", &tiled, "--max-ms", "fast"],
            "invalid value 'fast' for '--max-ms <MS>'".into(),
        ),
        (
            &["check", &tiled, "--limits", &unknown],
            format!("{unknown}:6: unknown key `max_fast_peek`"),
        ),
        (
            &["check", &chain, "--limits", &missing_stage],
            format!("{missing_stage}:1: stage 3 is not in the report (its stages: 0 chain)"),
        ),
        (
            &["check", &foreign, "--max-ms", "1"],
            "not a tigris-sim-report file".into(),
        ),
        (
            &["check", "/nonexistent/report.json", "--max-ms", "1"],
            "cannot read report /nonexistent/report.json".into(),
        ),
        (&["check", &tiled], "no limits given".into()),
        (
            &["compare", &tiled, &foreign],
            "not a tigris-sim-report file".into(),
        ),
    ];
    for (args, message) in cases {
        let (code, out, err) = tool(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains(message.as_str()),
            "{args:?}: expected `{message}` in: {err}"
        );
    }
    // Limits that need no TiGrIS figures apply to any report.
    let (code, out, _) = tool(&[
        "check",
        &membench,
        "--max-ms",
        "1000",
        "--max-stall-cycles",
        "100000000",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn compare_shows_what_line_buffering_saves() {
    let (chain, a) = report("tigris_chain");
    let (lb, b) = report("tigris_chain_lb");
    let (code, out, err) = tool(&["compare", &chain, &lb]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "note: different firmware (sha256 differs): tigris_chain.elf and tigris_chain_lb.elf"
        ),
        "{out}"
    );
    assert!(!out.contains("different boards"), "{out}");

    let (ca, cb) = (
        a["totals"]["cycles"].as_u64().unwrap(),
        b["totals"]["cycles"].as_u64().unwrap(),
    );
    assert!(
        cb < ca,
        "the line-buffered chain recomputes no rows: {cb} vs {ca}"
    );
    let saved = ca - cb;
    let pct = 100.0 * (cb as f64 - ca as f64) / ca as f64;
    let thousands = |n: u64| {
        let digits: Vec<char> = n.to_string().chars().rev().collect();
        digits
            .chunks(3)
            .map(|c| c.iter().rev().collect::<String>())
            .rev()
            .collect::<Vec<_>>()
            .join(",")
    };
    assert!(
        out.contains(&format!(
            "B is faster: {} fewer cycles ({pct:+.1}%)",
            thousands(saved)
        )),
        "{out}"
    );
    let cycles = line(&out, "cycles");
    assert!(
        cycles.contains(&thousands(ca)) && cycles.contains(&format!("-{}", thousands(saved))),
        "{out}"
    );
    assert!(cycles.ends_with(&format!("{pct:+.1}%")), "{out}");

    // The chain recomputes and re-reads halo rows; the line-buffered chain does neither.
    let halo = line(&out, "stage 0 chain halo share");
    assert!(halo.contains(" 0.00%") && halo.contains(" -"), "{out}");
    let loaded = line(&out, "stage 0 chain loaded");
    assert!(
        loaded.contains("9,472 B") && loaded.contains("4,096 B") && loaded.contains("-5,376 B"),
        "{out}"
    );
    for tile in 0..8 {
        line(&out, &format!("stage 0 chain tile {tile} cycles"));
    }
    assert!(line(&out, "tigris_conv2d_s8").contains('-'), "{out}");
    assert!(out.contains("\nself cycles by function"), "{out}");
}

#[test]
fn compare_with_a_run_without_tigris() {
    let (tiled, _) = report("tigris_tiled");
    let (membench, _) = report("membench");
    let (code, out, _) = tool(&["compare", &tiled, &membench, "--top", "3"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("TiGrIS: only run A ran the TiGrIS runtime"),
        "{out}"
    );
    assert!(out.contains("B is slower"), "{out}");
    assert!(line(&out, "psram").contains('+'), "{out}");
}

/// A fenced block of docs/ci.md: the text between "```LANG" and the closing fence.
fn ci_block(page: &str, lang: &str) -> String {
    let start = page
        .find(&format!("```{lang}\n"))
        .unwrap_or_else(|| panic!("no {lang} block in docs/ci.md"))
        + lang.len()
        + 4;
    page[start..start + page[start..].find("```").unwrap()].to_string()
}

/// The arguments of the job's `tigris-sim SUBCOMMAND` step, continuation lines joined.
fn ci_step(yaml: &str, subcommand: &str) -> Vec<String> {
    let command = yaml.replace("\\\n", " ");
    let line = line(
        &command,
        &format!("target/release/tigris-sim {subcommand} "),
    );
    line.split_whitespace()
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_ci_page_is_true() {
    let page = std::fs::read_to_string(common::root().join("docs/ci.md")).unwrap();
    let limits = write("tigris-limits.toml", &ci_block(&page, "toml"));
    let yaml = ci_block(&page, "yaml");
    let (report, junit, plots, trace) = (
        scratch("report.json"),
        scratch("junit.xml"),
        scratch("plots"),
        scratch("trace.json"),
    );
    let local = |args: Vec<String>| -> Vec<String> {
        args.into_iter()
            .map(|a| match a.as_str() {
                "out/report.json" => report.clone(),
                "out/junit.xml" => junit.clone(),
                "out/plots" => plots.clone(),
                "out/trace.json" => trace.clone(),
                "ci/tigris-limits.toml" => limits.clone(),
                _ => a,
            })
            .collect()
    };
    let run = local(ci_step(&yaml, "run"));
    let (code, _, err) = tool(&run.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{run:?}: {err}");
    assert!(
        std::path::Path::new(&plots).join("arena.png").exists()
            && std::path::Path::new(&trace).exists(),
        "{run:?}"
    );
    let check = local(ci_step(&yaml, "check"));
    let (code, out, err) = tool(&check.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{check:?}: {out}{err}");
    assert_well_formed(&std::fs::read_to_string(&junit).unwrap());

    // The page's example output: the same limits, in the same order, all passing.
    let shown = &page[page.find("    tigris-sim check: tigris_tiled.elf").unwrap()..];
    let shown: Vec<&str> = shown
        .lines()
        .take_while(|l| l.starts_with("    "))
        .collect();
    let limits = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.ends_with("PASS") || l.ends_with("FAIL"))
            .map(|l| {
                l.split("  ")
                    .find(|w| !w.is_empty())
                    .unwrap()
                    .trim()
                    .to_string()
            })
            .collect()
    };
    let printed: Vec<&str> = out.lines().collect();
    assert_eq!(limits(&shown), limits(&printed), "{out}");
    assert_eq!(shown.last().unwrap().trim(), *printed.last().unwrap());
}

/// X slices of one track of a trace: (start, end) in microseconds, in file order.
fn slices(events: &[Value], tid: u64) -> Vec<(f64, f64, String)> {
    events
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == tid)
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (
                ts,
                ts + e["dur"].as_f64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Slices of a track are disjoint or nested, as trace viewers need them.
fn assert_nested(track: &[(f64, f64, String)]) {
    const EPS: f64 = 1e-6;
    for a in track {
        for b in track {
            let disjoint = a.1 <= b.0 + EPS || b.1 <= a.0 + EPS;
            let nested =
                (a.0 >= b.0 - EPS && a.1 <= b.1 + EPS) || (b.0 >= a.0 - EPS && b.1 <= a.1 + EPS);
            assert!(disjoint || nested, "{a:?} and {b:?} overlap");
        }
    }
}

#[test]
fn perfetto_trace_and_folded_stacks_of_a_tiled_run() {
    let (trace, folded) = (scratch("trace.json"), scratch("folded.txt"));
    let path = scratch("tiled.json");
    let elf = elf("esp32s3", "tigris_tiled");
    let (code, _, err) = tool(&[
        "run",
        "--quiet",
        &elf,
        "--report",
        &path,
        "--perfetto",
        &trace,
        "--folded",
        &folded,
    ]);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    let events = serde_json::from_str::<Value>(&text).unwrap()["traceEvents"]
        .as_array()
        .unwrap()
        .clone();
    let track = |name: &str| {
        let meta = events
            .iter()
            .find(|e| e["name"] == "thread_name" && e["args"]["name"] == name)
            .unwrap();
        slices(&events, meta["tid"].as_u64().unwrap())
    };
    let (stages, tiles, ops, functions) = (
        track("TiGrIS stages"),
        track("TiGrIS tiles"),
        track("TiGrIS kernel calls"),
        track("functions (sampled stacks)"),
    );
    for t in [&stages, &tiles, &ops, &functions] {
        assert_nested(t);
    }
    let stage_count = report["tigris"]["stages"].as_array().unwrap().len();
    let tile_count: usize = report["tigris"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tiles"].as_array().unwrap().len())
        .sum();
    assert_eq!((stages.len(), tiles.len()), (stage_count, tile_count));
    assert_eq!(
        ops.len() as u64,
        report["tigris"]["total"]["ops"].as_u64().unwrap()
    );
    for tile in &tiles {
        assert!(
            stages
                .iter()
                .any(|s| s.0 <= tile.0 + 1e-6 && tile.1 <= s.1 + 1e-6),
            "{tile:?} outside every stage"
        );
    }
    // Simulated microseconds at 240 MHz.
    let first = &report["tigris"]["stages"][0];
    assert!((stages[0].0 - first["start_cycle"].as_f64().unwrap() / 240.0).abs() < 1e-6);
    let fast: Vec<u64> = events
        .iter()
        .filter(|e| e["name"] == "fast arena used (bytes)")
        .map(|e| e["args"]["fast_used"].as_u64().unwrap())
        .collect();
    assert_eq!(
        fast.len() as u64,
        report["tigris"]["events"].as_u64().unwrap()
    );
    assert_eq!(
        fast.iter().max().copied(),
        report["tigris"]["total"]["fast_peak"].as_u64()
    );
    assert!(
        functions.iter().any(|f| f.2 == "main"),
        "main on the sampled function track"
    );
    assert!(events
        .iter()
        .any(|e| e["name"] == "psram traffic (bytes so far)"));

    // Folded stacks: exact, so every cycle of the run is on some path; frames name their source.
    let lines = std::fs::read_to_string(&folded).unwrap();
    assert!(
        lines.contains("tigris_conv2d_s8 (firmware/tigris/tigris_kernels.c:"),
        "{lines}"
    );
    let total: u64 = lines
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, report["totals"]["cycles"].as_u64().unwrap());
    assert!(
        lines.lines().any(|l| l.starts_with("_start (")
            && l.contains(";main (")
            && l.contains(";tigris_run")),
        "{lines}"
    );

    // The same files from the recorded report.
    let (trace2, folded2) = (scratch("trace2.json"), scratch("folded2.txt"));
    let (code, out, err) = tool(&["export", &path, "--perfetto", &trace2, "--folded", &folded2]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read(&trace2).unwrap(), text.as_bytes());
    assert_eq!(std::fs::read_to_string(&folded2).unwrap(), lines);
}

#[test]
fn export_and_tui_refuse_bad_input() {
    let (code, _, err) = tool(&[
        "export",
        "/nonexistent/report.json",
        "--folded",
        "/dev/null",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read report /nonexistent/report.json"),
        "{err}"
    );
    let truncated = write(
        "truncated.json",
        "{\"schema\": \"tigris-sim-report\", \"schema_version\": 1, \"tool\": {",
    );
    let (code, _, err) = tool(&["export", &truncated, "--folded", "/dev/null"]);
    assert_eq!(code, 2);
    assert!(err.contains("truncated.json: not valid JSON"), "{err}");
    let (path, _) = report("demo");
    let (code, _, err) = tool(&["export", &path]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to export"), "{err}");
    let (code, _, err) = tool(&["tui", &path]);
    assert_eq!(code, 2, "stdout is a pipe here");
    assert!(err.contains("needs a terminal"), "{err}");
}

fn files_in(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn plots_of_a_run_equal_the_plots_of_its_report() {
    let (path, dir) = (scratch("tiled.json"), scratch("plots"));
    let (code, _, err) = tool(&[
        "run",
        "--quiet",
        &elf("esp32s3", "tigris_tiled"),
        "--report",
        &path,
        "--plots",
        &dir,
    ]);
    assert_eq!(code, 0, "{err}");
    let names = files_in(&dir);
    let plots = [
        "arena",
        "gantt",
        "slow_traffic",
        "tile_cycles",
        "top_functions",
    ];
    let expected: Vec<String> = plots
        .iter()
        .flat_map(|p| [format!("{p}.png"), format!("{p}.svg")])
        .collect();
    assert_eq!(names, expected);
    for name in &names {
        let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
        if name.ends_with(".png") {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}");
        } else {
            let svg = String::from_utf8(bytes).unwrap();
            assert!(
                svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
                "{name}"
            );
        }
    }
    let arena = std::fs::read_to_string(format!("{dir}/arena.svg")).unwrap();
    assert!(
        arena.contains("fast-arena use over time") && arena.contains("budget"),
        "arena plot titles and budget line"
    );

    let again = scratch("plots-again");
    let (code, out, err) = tool(&["export", &path, "--plots", &again]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out.lines().count(),
        names.len(),
        "export names every file it wrote: {out}"
    );
    for name in &names {
        assert_eq!(
            std::fs::read(format!("{dir}/{name}")).unwrap(),
            std::fs::read(format!("{again}/{name}")).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn compare_draws_two_runs_side_by_side() {
    let (a, _) = report("tigris_chain");
    let (b, _) = report("tigris_chain_lb");
    let stem = scratch("compare");
    let (code, out, err) = tool(&["compare", &a, &b, "--plot", &stem]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("wrote {stem}.svg")) && out.contains(&format!("wrote {stem}.png")),
        "{out}"
    );
    let svg = std::fs::read_to_string(format!("{stem}.svg")).unwrap();
    assert!(
        svg.contains("stage 0 (chain)") && svg.contains("stage 0 tile 7"),
        "the compare plot names the stages and tiles"
    );
    let (code, _, err) = tool(&["compare", &a, &b, "--plot", "/dev/null/compare"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot write plot /dev/null"), "{err}");
}

/// `-` sends the report (or the Perfetto trace, the folded stacks) to stdout, and the console and
/// the summary to stderr; output paths that cannot be written are refused before the run; an
/// output that fails after the run is named on stderr while the others, the summary and the
/// firmware's exit code stand.
#[test]
fn outputs_go_to_stdout_are_checked_first_and_a_late_failure_keeps_the_run() {
    let demo = "examples/mps2-an386-demo.elf";
    let out = sim(&["run", "--board", "mps2-an386", demo, "--report", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let report = tigris_traces::Report::from_json(&String::from_utf8_lossy(&out.stdout))
        .expect("stdout holds the report alone");
    assert!(String::from_utf8_lossy(&out.stderr).contains("== tigris-sim:"));
    assert!(!report.console.is_empty());
    let out = sim(&[
        "run",
        "--board",
        "mps2-an386",
        demo,
        "--folded",
        "-",
        "--quiet",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout)
        .lines()
        .all(|l| l.rsplit_once(' ').is_some()));
    for (args, message) in [
        (
            vec!["--report", "/nonexistent/dir/r.json"],
            "the folder /nonexistent/dir does not exist",
        ),
        (
            vec!["--perfetto", "/tmp"],
            "--perfetto /tmp: is a directory",
        ),
        (
            vec!["--report", "-", "--folded", "-"],
            "cannot both write to stdout",
        ),
    ] {
        let mut all = vec!["run", "--board", "mps2-an386", demo];
        all.extend(args);
        let out = sim(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(message) && !err.contains("== tigris-sim"),
            "{err}"
        );
    }
    let folded = std::env::temp_dir().join("tigris-late-failure.folded");
    let out = sim(&[
        "run",
        "--board",
        "mps2-an386",
        demo,
        "--report",
        "/dev/full",
        "--folded",
        &folded.to_string_lossy(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: cannot write /dev/full"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("== tigris-sim:"));
    assert!(std::fs::metadata(&folded).is_ok_and(|m| m.len() > 0));
}
