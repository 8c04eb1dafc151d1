//! The TiGrIS breakdown without trace events: the reference runtime built without its trace API
//! (firmware/tigris/README.md), in the current generation (`tigris_<mode>-notrace.elf`, schema 9) and
//! in the public runtime's (`tigris_<mode>-v1.elf`: schema 1, `tigris_run`, its `tigris_mem_t`), gets
//! its per-stage and per-tile table derived from the runtime's own calls, and that table agrees with
//! the traced build's: the same stages, paths, tiles and rows, every byte figure equal, and every
//! tile's cycles within 1 %.

mod common;

use common::{elf, run};
use serde_json::Value;

const BOARDS: &[&str] = &["esp32s3", "stm32h753", "mps2-an386"];
/// (program suffix, plan schema, modes): the flavours built without trace; the first has every mode.
const FLAVOURS: &[(&str, u64, &[&str])] = &[
    ("-notrace", 9, &["normal", "tiled", "chain", "chain_lb"]),
    // Schema 1 has no stage flags, so no line-buffered chain.
    ("-v1", 1, &["normal", "tiled", "chain"]),
];

/// Figures that count bytes, rows or ops: equal in both tables.
const EXACT: &[&str] = &[
    "load_bytes",
    "spill_bytes",
    "moved_bytes",
    "slow_read_bytes",
    "slow_write_bytes",
    "halo_rows",
    "halo_rows_bus",
    "halo_bytes",
    "recomputed_rows",
    "fast_peak",
    "fast_peak_bus",
    "slow_peak",
    "slow_peak_bus",
    "ops",
];

fn tigris(board: &str, program: &str) -> Value {
    let (code, report, _) = run(board, &elf(board, program), &[]);
    assert_eq!(code, 0, "{board} {program}");
    report["tigris"].clone()
}

/// `derived` against `traced` for one stage or tile, named `what`; the cycle ratio is returned.
fn compare(traced: &Value, derived: &Value, what: &str) -> f64 {
    for key in EXACT {
        assert_eq!(traced[key], derived[key], "{what}: {key}");
    }
    let (t, d) = (
        traced["cycles"].as_f64().unwrap(),
        derived["cycles"].as_f64().unwrap(),
    );
    assert!(t > 0.0, "{what}: no cycles");
    (d - t).abs() / t
}

#[test]
fn the_table_derived_without_trace_events_matches_the_traced_one() {
    let mut worst: f64 = 0.0;
    for board in BOARDS {
        for mode in FLAVOURS[0].2 {
            let traced = tigris(board, &format!("tigris_{mode}"));
            for (suffix, schema, _) in FLAVOURS.iter().filter(|f| f.2.contains(mode)) {
                let derived = tigris(board, &format!("tigris_{mode}{suffix}"));
                let what = format!("{board} {mode}{suffix}");
                assert_eq!(derived["plan"]["schema"], *schema, "{what}");
                assert_eq!(traced["breakdown"], "trace_events", "{what}");
                assert_eq!(derived["breakdown"], "derived", "{what}");
                assert_eq!(derived["events"], 0, "{what}: the build has no trace API");
                assert_eq!(derived["sink"], Value::Null, "{what}");
                let (ts, ds) = (
                    traced["stages"].as_array().unwrap(),
                    derived["stages"].as_array().unwrap(),
                );
                assert!(!ts.is_empty(), "{what}");
                assert_eq!(ts.len(), ds.len(), "{what}: stages");
                for (t, d) in ts.iter().zip(ds) {
                    let stage = format!("{what} stage {}", t["stage"]);
                    assert_eq!(t["stage"], d["stage"], "{stage}");
                    assert_eq!(t["path"], d["path"], "{stage}");
                    compare(t, d, &stage);
                    let (tt, dt) = (
                        t["tiles"].as_array().unwrap(),
                        d["tiles"].as_array().unwrap(),
                    );
                    assert_eq!(tt.len(), dt.len(), "{stage}: tiles");
                    for (x, y) in tt.iter().zip(dt) {
                        let tile = format!("{stage} tile {}", x["index"]);
                        assert_eq!(x["index"], y["index"], "{tile}");
                        assert_eq!(x["rows"], y["rows"], "{tile}: input rows");
                        assert_eq!(x["out_rows"], y["out_rows"], "{tile}: output rows");
                        let off = compare(x, y, &tile);
                        assert!(
                            off < 0.01,
                            "{tile}: cycles {} traced, {} derived",
                            x["cycles"],
                            y["cycles"]
                        );
                        worst = worst.max(off);
                    }
                }
                compare(
                    &traced["total"],
                    &derived["total"],
                    &format!("{what} total"),
                );
                // No finding says the breakdown is missing.
                let findings = derived["findings"].to_string();
                assert!(!findings.contains("no per-stage"), "{what}: {findings}");
            }
        }
    }
    eprintln!("largest per-tile cycle difference: {:.3} %", worst * 100.0);
}

/// The text report says where the table came from.
#[test]
fn the_summary_says_the_table_is_derived() {
    let out = common::sim(&[
        "run",
        "--board",
        "esp32s3",
        &elf("esp32s3", "tigris_tiled-notrace"),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no trace events: breakdown derived from the runtime's calls"),
        "{text}"
    );
    assert!(text.contains("tile 3 [29,32)"), "{text}");
}
