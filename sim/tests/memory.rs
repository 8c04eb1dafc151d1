//! The memory models are self-consistent and explainable: the microbenchmark firmware
//! (firmware/membench) runs on each board, and what the simulator charges each kernel equals what the
//! equations of docs/memory-models.md predict for that access pattern. The predictions are computed
//! here from the board parameters, independently of the models' code.

mod common;

use common::{elf, run};
use serde_json::Value;
use tigris_targets::Board;

/// One measurement line of the firmware: `membench <kernel> <target> bytes=.. start=.. cycles=.. run=..`.
#[derive(Debug)]
struct Measurement {
    kernel: String,
    target: String,
    bytes: u64,
    cycles: u64,
    cold: bool,
    accesses: u64,
}

fn measurements(console: &str) -> Vec<Measurement> {
    let field = |words: &[&str], key: &str| -> Option<String> {
        words
            .iter()
            .find_map(|w| w.strip_prefix(&format!("{key}=")).map(String::from))
    };
    console
        .lines()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            if words.first() != Some(&"membench")
                || words.len() < 4
                || words[1] == "region"
                || words[1] == "board"
            {
                return None;
            }
            Some(Measurement {
                kernel: words[1].into(),
                target: words[2].into(),
                bytes: field(&words, "bytes")?.parse().ok()?,
                cycles: field(&words, "cycles")?.parse().ok()?,
                cold: field(&words, "run")? == "cold",
                accesses: field(&words, "accesses")?.parse().ok()?,
            })
        })
        .collect()
}

/// Core cycles of one read (or write) transaction of `bytes` from `region`: the transfer-time equation
/// (a serial memory's phases at its clock plus the controller's fixed latency).
fn transfer(board: &Board, region: &str, bytes: u32, write: bool) -> u64 {
    let r = board.regions.iter().find(|r| r.name == region).unwrap();
    let f = board.core.clock_hz;
    match r.spi {
        Some(s) => {
            let dummy = if write {
                s.write_dummy_clocks
            } else {
                s.read_dummy_clocks
            };
            let lanes = s.mode.lines() * if s.ddr { 2 } else { 1 };
            let clocks = (s.cs_clocks
                + s.command_clocks
                + s.address_clocks
                + dummy
                + (bytes * 8).div_ceil(lanes)) as u64;
            (clocks * f).div_ceil(s.clock_hz) + (s.controller_ns as u64 * f).div_ceil(1_000_000_000)
        }
        None => {
            let ws = if write {
                r.write_wait_states
            } else {
                r.read_wait_states
            } as u64;
            let beats = bytes.min(r.bus_bytes).div_ceil(r.beat_bytes) as u64;
            (bytes as u64).div_ceil(r.bus_bytes as u64) * (ws + beats) * f.div_ceil(r.bus_clock_hz)
        }
    }
}

fn memory_row<'a>(report: &'a Value, function: &str, region: &str) -> Option<&'a Value> {
    let f = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == function)?;
    f["memory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["region"] == region)
}

/// Lines a cold measurement brings into the cache: every line of a sequential range; one per access for
/// strided reads and pointer chasing (steps of 64 bytes, at least one line).
fn lines_touched(m: &Measurement, line: u64) -> u64 {
    match m.kernel.as_str() {
        "seq_read" | "seq_write" => m.bytes / line,
        _ => m.accesses,
    }
}

/// Check every kernel of `regions` (regions with a D-cache) on `board`.
fn check_board(board_name: &str, regions: &[&str]) {
    check_board_with(board_name, &[], regions);
}

/// As `check_board`, with the board changed by `settings` (`--set KEY=VALUE`).
fn check_board_with(board_name: &str, settings: &[&str], regions: &[&str]) {
    let owned: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let board = tigris_targets::load_with(board_name, &owned).unwrap();
    let extra: Vec<&str> = settings.iter().flat_map(|s| ["--set", s]).collect();
    let (code, report, _) = run(board_name, &elf(board_name, "membench"), &extra);
    assert_eq!(code, 0, "{}", report["console"]);
    let console = report["console"].as_str().unwrap();
    assert!(console.contains("membench done"), "{console}");
    let all = measurements(console);
    let (mut checked, mut expected) = (0, 0);
    for &region in regions {
        let r = board.regions.iter().find(|r| r.name == region).unwrap();
        let cache = &board.caches[r.dcache.expect("a cached region")];
        let line = cache.line_bytes as u64;
        let cache_lines = (cache.size / cache.line_bytes) as u64;
        // Read-only regions have no store kernel; every region has a copy to another region.
        expected += if r.access.write { 5 } else { 4 };
        let fill = transfer(&board, region, cache.line_bytes, false) - 1;
        let writeback = transfer(&board, region, cache.line_bytes, true);
        for kernel in ["seq_read", "seq_write", "stride_read", "chase"] {
            let runs: Vec<&Measurement> = all
                .iter()
                .filter(|m| m.kernel == kernel && m.target == region)
                .collect();
            if runs.is_empty() {
                continue;
            }
            // Each cold run follows an eviction sweep, so every line it touches misses; the warm run
            // repeats the range just touched and hits, unless the range is larger than the cache (LRU
            // over a sweep then keeps none of it).
            let misses: u64 = runs
                .iter()
                .map(|m| lines_touched(m, line))
                .zip(&runs)
                .filter(|(lines, m)| m.cold || *lines > cache_lines)
                .map(|(lines, _)| lines)
                .sum();
            // A sequential store sweep in a write-back cache that was left full of clean lines evicts
            // its own dirty lines once it has written more lines than the cache holds.
            let writebacks: u64 = match (kernel, cache.write_policy) {
                ("seq_write", tigris_targets::WritePolicy::WriteBack) => runs
                    .iter()
                    .filter(|m| m.cold)
                    .map(|m| lines_touched(m, line).saturating_sub(cache_lines))
                    .sum(),
                _ => 0,
            };
            let function = format!("{kernel}_{region}");
            let row = memory_row(&report, &function, region)
                .unwrap_or_else(|| panic!("{board_name}: no {region} row for {function}"));
            let what = format!("{board_name} {function}");
            assert_eq!(row["dcache_misses"], misses, "{what}: misses");
            assert_eq!(row["writebacks"], writebacks, "{what}: write-backs");
            // Where the kernels' own code lives in the region, its fetch stalls are in the row too.
            if row["fetches"] == 0 {
                let stall = row["stall_cycles"].as_u64().unwrap();
                let serialised = misses * fill + writebacks * writeback;
                if cache.writeback_buffer && writebacks > 0 {
                    // The fills wait only for what is left of the buffered write-back when they
                    // start: some of it hides behind the stores between two misses, never all.
                    assert!(
                        stall >= misses * fill && stall < serialised,
                        "{what}: stall cycles {stall} not in [{}, {serialised})",
                        misses * fill
                    );
                } else {
                    assert_eq!(stall, serialised, "{what}: stall cycles");
                }
            }
            checked += 1;
        }
        // Copies from this region to another of the board: each source line misses once per cold run
        // (and per warm run larger than the cache).
        let copies: Vec<&Measurement> = all
            .iter()
            .filter(|m| {
                m.kernel == "copy"
                    && m.target.starts_with(&format!("{region}_to_"))
                    && m.target != format!("{region}_to_{region}")
            })
            .collect();
        assert!(
            copies.iter().any(|m| m.cold),
            "{board_name}: no cold copy from {region}"
        );
        for m in copies.iter().filter(|m| m.cold) {
            let function = format!("copy_{}", m.target);
            let missed_lines: u64 = copies
                .iter()
                .filter(|c| c.target == m.target && (c.cold || c.bytes / line > cache_lines))
                .map(|c| c.bytes / line)
                .sum();
            let row = memory_row(&report, &function, region).unwrap();
            assert_eq!(
                row["dcache_misses"], missed_lines,
                "{board_name} {function}: source misses"
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked, expected,
        "{board_name}: every kernel of every region was measured"
    );
}

#[test]
fn esp32s3_psram_and_flash_rodata_follow_the_equations() {
    check_board("esp32s3", &["psram", "flash_drom"]);
}

#[test]
fn esp32_psram_and_flash_rodata_follow_the_equations() {
    check_board("esp32", &["psram", "flash_drom"]);
}

#[test]
fn rp2040_and_rp2350_xip_follow_the_equations() {
    check_board("rp2040", &["xip"]);
    check_board("rp2350", &["xip"]);
}

#[test]
fn stm32h753_l1_cached_memory_follows_the_equations() {
    check_board("stm32h753", &["axi_sram", "sram123", "flash"]);
}

#[test]
fn stm32f446re_art_data_cache_and_esp8266_flash_cache_follow_the_equations() {
    check_board("stm32f446re", &["flash"]);
    check_board("esp8266", &["flash_irom"]);
}

/// The measured cycles of one cold sequential read differ from the same kernel over zero-wait SRAM by
/// exactly the line fills: the stall is in the firmware's own cycle counter too.
#[test]
fn firmware_cycle_counter_sees_the_line_fills() {
    let board = tigris_targets::load("esp32s3").unwrap();
    let (_, report, _) = run("esp32s3", &elf("esp32s3", "membench"), &[]);
    let all = measurements(report["console"].as_str().unwrap());
    let cycles = |target: &str, bytes: u64| {
        all.iter()
            .find(|m| m.kernel == "seq_read" && m.target == target && m.bytes == bytes && m.cold)
            .unwrap()
            .cycles
    };
    for (region, bytes) in [("psram", 16384), ("flash_drom", 65536)] {
        let fill = transfer(&board, region, 32, false) - 1;
        assert_eq!(
            cycles(region, bytes) - cycles("sram1", bytes),
            bytes / 32 * fill,
            "{region} {bytes}"
        );
    }
    // Streaming bandwidth from the equation: octal PSRAM at 80 MHz under a 240 MHz core fills a
    // 32-byte line in 4 + 1 + 2 + 9 + 16 + 3 = 35 SPI clocks = 105 cycles, plus the controller's
    // 25 ns = 6 cycles: 32 B × 240 MHz / 111 = 69.2 MB/s.
    assert_eq!(transfer(&board, "psram", 32, false), 111);
    let quad = tigris_targets::load_with(
        "esp32s3",
        &["psram.mode=quad".into(), "psram.clock_mhz=40".into()],
    )
    .unwrap();
    // Quad at 40 MHz: 2 + 6 + 6 + 64 = 78 clocks of 6 cycles, plus 6 (no chip-select time: the
    // quad default).
    assert_eq!(transfer(&quad, "psram", 32, false), 474);
}

/// What-if settings move the PSRAM line fills as the transfer equation says, and every kernel still
/// follows it: a slower SPI clock stretches every phase, a longer line lengthens the data phase and
/// halves the misses of a sequential read, and without the controller latency a fill is its phases.
#[test]
fn esp32s3_psram_what_if_settings_follow_the_equations() {
    let fill = |settings: &[&str]| {
        let owned: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
        let board = tigris_targets::load_with("esp32s3", &owned).unwrap();
        let line = board
            .caches
            .iter()
            .find(|c| c.name == "dcache")
            .unwrap()
            .line_bytes;
        transfer(&board, "psram", line, false)
    };
    // 35 clocks of 3 cycles + 6; of 6 cycles + 6; 4 + 1 + 2 + 9 + 32 + 3 = 51 clocks of 3 + 6; 105.
    assert_eq!(fill(&[]), 111);
    assert_eq!(fill(&["psram.clock_mhz=40"]), 216);
    assert_eq!(fill(&["dcache.line_bytes=64"]), 159);
    assert_eq!(fill(&["psram.controller_ns=0"]), 105);
    for settings in [
        &["psram.clock_mhz=40"][..],
        &["dcache.line_bytes=64"],
        &["psram.controller_ns=0", "dcache.writeback_buffer=false"],
    ] {
        check_board_with("esp32s3", settings, &["psram"]);
    }
}

/// `litbench <iram|flash> run=.. n=.. cycles=..` lines of firmware/literals/litbench.c.
fn litbench_cycles(console: &str, place: &str, run: &str, n: u32) -> u64 {
    let prefix = format!("litbench {place} run={run} n={n} cycles=");
    let line = console
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in {console}"));
    line[prefix.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// L32R literals of code in the flash instruction window go through the cache that serves the
/// window (the ESP32-S3 ICache, the ESP32's one cache): the literal line misses once, when first
/// loaded, and every later load hits, so warm flash-resident code costs exactly what the same code
/// costs from IRAM (margin 0: a hit costs the caches' `hit_cycles`, 0 on both boards). The cold call
/// pays one line fill per code line fetched and one for the literal line.
#[test]
fn flash_literals_hit_the_cache_after_the_first_line_fill() {
    for board_name in ["esp32s3", "esp32"] {
        let board = tigris_targets::load(board_name).unwrap();
        let (code, report, _) = run(board_name, &elf(board_name, "litbench"), &[]);
        let console = report["console"].as_str().unwrap();
        assert_eq!(code, 0, "{board_name}: {console}");
        for n in [100, 1000] {
            assert_eq!(
                litbench_cycles(console, "flash", "warm", n),
                litbench_cycles(console, "iram", "warm", n),
                "{board_name}: warm flash code costs what it costs in IRAM (n={n})"
            );
        }
        let row = memory_row(&report, "lit_loop_flash", "flash_irom").unwrap();
        // 8 literal loads per iteration, 100 + 100 + 1000 iterations: all but the first hit.
        assert_eq!(row["reads"], 8 * 1200, "{board_name}: literal loads");
        assert_eq!(row["dcache_misses"], 1, "{board_name}: the literal line");
        let code_lines = row["icache_misses"].as_u64().unwrap();
        assert_eq!(code_lines, 2, "{board_name}: the loop's two code lines");
        let line = board.caches[board
            .regions
            .iter()
            .find(|r| r.name == "flash_irom")
            .unwrap()
            .icache
            .unwrap()]
        .line_bytes;
        let fill = transfer(&board, "flash_irom", line, false) - 1;
        assert_eq!(
            litbench_cycles(console, "flash", "cold", 100)
                - litbench_cycles(console, "iram", "cold", 100),
            (code_lines + 1) * fill,
            "{board_name}: the cold call's line fills"
        );
    }
}

/// The Cortex-M7 and M33 reach priced memory through device copies of it rather than data hooks
/// (docs/memory-models.md, "Counters"); `--memory-stats` hooks every region instead. Both ways must
/// charge the same cycles and count the same traffic in the priced regions: an M7 with flash behind
/// its D-cache, an M33 with XIP flash behind its cache, both reading doubles (8-byte loads) there.
#[test]
fn redirected_data_accesses_are_priced_and_counted_as_hooked_ones() {
    for (board, program) in [("stm32h753", "matmul"), ("rp2350", "strings_float")] {
        let elf = elf(board, program);
        let (code, redirected, _) = run(board, &elf, &[]);
        let (hooked_code, hooked, _) = run(board, &elf, &["--memory-stats"]);
        assert_eq!((code, hooked_code), (0, 0), "{board} {program}");
        assert_eq!(redirected["totals"], hooked["totals"], "{board} {program}");
        let priced: Vec<&Value> = redirected["regions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !r["reads"].is_null())
            .collect();
        assert!(
            priced.iter().any(|r| r["reads"].as_u64() > Some(0)),
            "{board} {program}: no priced data read to compare"
        );
        for region in priced {
            let same = hooked["regions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == region["name"])
                .unwrap();
            assert_eq!(region, same, "{board} {program}");
        }
    }
}
