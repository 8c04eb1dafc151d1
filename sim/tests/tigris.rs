//! TiGrIS profiling end to end: the reference runtime (firmware/tigris) runs in each execution mode on
//! an ESP32-S3 (call0 and windowed code) and on Cortex-M boards, and the report's per-stage and per-tile
//! breakdown equals the figures worked by hand from the tiling formulas in firmware/tigris/README.md.

mod common;

use common::{elf, host_output, rom_available, run};
use serde_json::Value;

/// Where each reference build runs: (board, program suffix). `-idf` is the windowed build in
/// ESP-IDF's layout (code in flash behind the cache MMU, entry `call_start_cpu0`, a banner through
/// the ROM's `ets_printf`), which needs the mask ROM.
const BUILDS: &[(&str, &str)] = &[
    ("esp32s3", ""),
    ("esp32s3", "-windowed"),
    ("esp32s3", "-idf"),
    ("stm32h753", ""),
    ("mps2-an386", ""),
];

/// Expected figures of one mode (firmware/tigris/README.md, "Expected figures").
struct Expected {
    mode: &'static str,
    events: u64,
    /// (stage, path, tiles) in execution order.
    stages: &'static [(u64, &'static str, usize)],
    load_bytes: u64,
    spill_bytes: u64,
    moved_bytes: u64,
    halo_rows: u64,
    recomputed_rows: u64,
    fast_peak: u64,
    /// Input rows of each tile of the tiled or chained stage.
    tile_rows: &'static [[i64; 2]],
}

const MODES: &[Expected] = &[
    Expected {
        mode: "normal",
        events: 23,
        stages: &[(0, "normal", 0), (1, "normal", 0)],
        load_bytes: 8192,
        spill_bytes: 20480,
        moved_bytes: 0,
        halo_rows: 0,
        recomputed_rows: 0,
        fast_peak: 20480,
        tile_rows: &[],
    },
    Expected {
        mode: "tiled",
        events: 59,
        stages: &[
            (0, "normal", 0),
            (1, "normal", 0),
            (2, "normal", 0),
            (3, "tiled", 4),
        ],
        // 4096 + 1024 + 4096 + (1408 + 1536 + 1536 + 384): the tiles re-read 6 halo rows of 128 B.
        load_bytes: 14080,
        spill_bytes: 25600,
        moved_bytes: 0,
        halo_rows: 6,
        recomputed_rows: 0,
        fast_peak: 8192,
        tile_rows: &[[0, 11], [9, 21], [19, 31], [29, 32]],
    },
    Expected {
        mode: "chain",
        events: 108,
        stages: &[(0, "chain", 8)],
        // 2 × 896 + 6 × 1280: every inner boundary re-reads 12 input rows (84 in all) and recomputes
        // 6 + 4 + 2 rows of the intermediates.
        load_bytes: 9472,
        spill_bytes: 16384,
        moved_bytes: 0,
        halo_rows: 84,
        recomputed_rows: 84,
        fast_peak: 5440,
        tile_rows: &[
            [0, 14],
            [2, 22],
            [10, 30],
            [18, 38],
            [26, 46],
            [34, 54],
            [42, 62],
            [50, 64],
        ],
    },
    Expected {
        mode: "chain_lb",
        events: 87,
        stages: &[(0, "chain", 8)],
        // Line buffering keeps the overlap rows: each input row is loaded once; 21 rolls move 4032 B.
        load_bytes: 4096,
        spill_bytes: 16384,
        moved_bytes: 4032,
        halo_rows: 0,
        recomputed_rows: 0,
        fast_peak: 4704,
        tile_rows: &[
            [0, 14],
            [14, 22],
            [22, 30],
            [30, 38],
            [38, 46],
            [46, 54],
            [54, 62],
            [62, 64],
        ],
    },
];

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The builds that can run here: `-idf` only when the ESP32-S3's mask ROM was found (said once).
fn builds() -> Vec<(&'static str, &'static str)> {
    let rom = rom_available("esp32s3_rev0_rom.elf");
    if !rom {
        eprintln!("skipped the ESP-IDF-layout builds: the mask-ROM ELF esp32s3_rev0_rom.elf was not found");
    }
    BUILDS
        .iter()
        .copied()
        .filter(|&(_, suffix)| rom || suffix != "-idf")
        .collect()
}

/// The console the ESP-IDF-layout build prints before the program's own output (the ROM's
/// `ets_printf` sends `\n` as CR LF).
const IDF_BANNER: &str =
    "tigris: ESP-IDF layout, call_start_cpu0, printing through the ROM's ets_printf\r\n";

fn profile(board: &str, suffix: &str, mode: &str) -> Value {
    let fw = elf(board, &format!("tigris_{mode}{suffix}"));
    let (code, report, _) = run(board, &fw, &[]);
    assert_eq!(code, 0, "{board} {mode}{suffix}: {}", report["console"]);
    let banner = if suffix == "-idf" { IDF_BANNER } else { "" };
    assert_eq!(
        report["console"].as_str().unwrap(),
        format!("{banner}{}", host_output(&format!("tigris_{mode}"))),
        "{board} {mode}{suffix}: console"
    );
    report["tigris"].clone()
}

#[test]
fn every_mode_breaks_down_as_the_tiling_formulas_predict() {
    for (board, suffix) in builds() {
        for x in MODES {
            let t = profile(board, suffix, x.mode);
            let what = format!("{board} {}{suffix}", x.mode);
            assert_eq!(t["findings"], serde_json::json!([]), "{what}: findings");
            assert_eq!(
                (u(&t["runs"]), u(&t["events"])),
                (1, x.events),
                "{what}: runs and events"
            );
            let stages = t["stages"].as_array().unwrap();
            let got: Vec<(u64, &str, usize)> = stages
                .iter()
                .map(|s| {
                    (
                        u(&s["stage"]),
                        s["path"].as_str().unwrap(),
                        s["tiles"].as_array().unwrap().len(),
                    )
                })
                .collect();
            assert_eq!(got, x.stages, "{what}: stages");
            let total = &t["total"];
            let figures = [
                "load_bytes",
                "spill_bytes",
                "moved_bytes",
                "halo_rows",
                "recomputed_rows",
                "fast_peak",
            ]
            .map(|k| u(&total[k]));
            assert_eq!(
                figures,
                [
                    x.load_bytes,
                    x.spill_bytes,
                    x.moved_bytes,
                    x.halo_rows,
                    x.recomputed_rows,
                    x.fast_peak
                ],
                "{what}: load, spill, moved, halo rows, recomputed rows, fast peak"
            );
            // The bus agrees with the runtime: every slow-arena byte read is a load, every byte written
            // a spill, and the highest fast-arena byte written is the runtime's peak occupancy.
            assert_eq!(
                u(&total["slow_read_bytes"]),
                x.load_bytes,
                "{what}: slow reads on the bus"
            );
            assert_eq!(
                u(&total["slow_write_bytes"]),
                x.spill_bytes,
                "{what}: slow writes on the bus"
            );
            assert_eq!(
                u(&total["fast_peak_bus"]),
                x.fast_peak,
                "{what}: fast high-water on the bus"
            );
            // The slow arena's peak: the runtime's largest occupancy, and the highest byte written on
            // the bus, which is the top of the last tensor the runtime placed there.
            let slow_used = t["timeline"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| u(&e["slow_used"]))
                .max()
                .unwrap();
            assert_eq!(
                (u(&total["slow_peak"]), u(&total["slow_peak_bus"])),
                (slow_used, slow_used),
                "{what}: slow peak, runtime and bus"
            );
            // Slow-arena reads mapped back to tensor rows show the same halo re-reads as the tile rows.
            assert_eq!(
                u(&total["halo_rows_bus"]),
                x.halo_rows,
                "{what}: halo rows re-read on the bus"
            );
            if let Some(tiled) = stages
                .iter()
                .find(|s| !s["tiles"].as_array().unwrap().is_empty())
            {
                let rows: Vec<[i64; 2]> = tiled["tiles"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| {
                        [
                            t["rows"][0].as_i64().unwrap(),
                            t["rows"][1].as_i64().unwrap(),
                        ]
                    })
                    .collect();
                assert_eq!(rows, x.tile_rows, "{what}: tile input rows");
            }
            // The stages and the time outside them add up to the run.
            let staged: u64 = stages.iter().map(|s| u(&s["cycles"])).sum();
            assert_eq!(
                staged,
                u(&total["cycles"]),
                "{what}: stage cycles sum to the total"
            );
        }
    }
}

/// Inner tiles of the same shape cost the same (within 1 %: cache and PSRAM state differ a little), and
/// the halo costs time: recomputing rows costs what line buffering saves.
#[test]
fn tile_cycles_are_consistent_and_the_halo_costs_time() {
    for (board, suffix) in builds() {
        let chain = profile(board, suffix, "chain");
        let lb = profile(board, suffix, "chain_lb");
        let tiles = |t: &Value| -> Vec<u64> {
            t["stages"][0]["tiles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| u(&x["cycles"]))
                .collect()
        };
        for (name, t) in [("chain", &chain), ("chain_lb", &lb)] {
            let inner = &tiles(t)[1..7];
            let (lo, hi) = (*inner.iter().min().unwrap(), *inner.iter().max().unwrap());
            assert!(
                hi - lo <= hi / 100,
                "{board}{suffix} {name}: inner tiles {inner:?} differ by more than 1 %"
            );
        }
        let (c, l) = (&chain["total"], &lb["total"]);
        assert!(
            u(&c["recompute_cycles"]) > 0 && u(&l["recompute_cycles"]) == 0,
            "{board}{suffix}: recompute cycles"
        );
        let saved = u(&c["cycles"]) - u(&l["cycles"]);
        let recompute = u(&c["recompute_cycles"]);
        // The rows a line buffer rolls instead of recomputing are what it saves, less the rolls and the
        // loads it avoids: within 25 % of the recompute cycles.
        assert!(
            saved.abs_diff(recompute) <= recompute / 4,
            "{board}{suffix}: saved {saved} vs recompute {recompute}"
        );
        // In the 1D tiled stage, the tiles that re-read halo rows take longer than the first (same output rows).
        let tiled = profile(board, suffix, "tiled");
        let t = tiles(&serde_json::json!({"stages": [tiled["stages"][3].clone()]}));
        assert!(t[1] > t[0] && t[2] > t[0], "{board}{suffix}: tiled {t:?}");
    }
}

/// The same firmware gives the same TiGrIS breakdown, byte for byte.
#[test]
fn reports_are_deterministic() {
    let fw = elf("esp32s3", "tigris_chain");
    let a = run("esp32s3", &fw, &[]).1;
    let b = run("esp32s3", &fw, &[]).1;
    assert_eq!(a, b);
}

/// A run the cycle limit stops inside a tiled stage says that stage is incomplete instead of
/// finding its tile count and halo wrong against the plan; the stages before it are checked.
#[test]
fn a_run_cut_by_a_limit_marks_its_last_stage_incomplete() {
    let (_, r, _) = run(
        "esp32s3",
        &elf("esp32s3", "tigris_tiled-windowed"),
        &["--max-cycles", "10000000"],
    );
    assert_eq!(r["outcome"]["limit"], "max_cycles", "{}", r["outcome"]);
    let stages = r["tigris"]["stages"].as_array().unwrap();
    let last = stages.last().unwrap();
    assert_eq!(
        (&last["path"], last["tiles"].as_array().unwrap().len()),
        (&Value::from("tiled"), 2)
    );
    let findings: Vec<&str> = r["tigris"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert_eq!(
        findings,
        ["stage 3: incomplete run (stopped by the max_cycles limit after 2 tiles): its tiles and halo are not checked against the plan"]
    );
}

/// A stripped TiGrIS ELF is named as the reason there is no breakdown (not a missing trace sink),
/// and the report says its profile cannot name functions.
#[test]
fn a_stripped_elf_is_named_as_the_reason() {
    let stripped = std::env::temp_dir().join(format!("tigris-stripped-{}.elf", std::process::id()));
    let status = std::process::Command::new("xtensa-lx106-elf-objcopy")
        .args(["--strip-all", "examples/esp32s3-tigris.elf"])
        .arg(&stripped)
        .current_dir(common::root())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("skipped: xtensa-lx106-elf-objcopy (binutils-xtensa-lx106) is not installed");
        return;
    }
    let (code, r, _) = run("esp32s3", &stripped.to_string_lossy(), &[]);
    std::fs::remove_file(&stripped).ok();
    assert_eq!(code, 0);
    let findings = r["tigris"]["findings"].to_string();
    assert!(
        findings.contains("the ELF has no function symbols (stripped)"),
        "{findings}"
    );
    assert!(!findings.contains("registered no trace sink"), "{findings}");
    let notes = r["notes"].to_string();
    assert!(notes.contains("no function symbols (stripped)"), "{notes}");
}
