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

/// Core cycles of one read (or write) transaction of `bytes` from `region`: the transfer-time equation.
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
            (clocks * f).div_ceil(s.clock_hz)
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
    let board = tigris_targets::load(board_name).unwrap();
    let (code, report, _) = run(board_name, &elf(board_name, "membench"), &[]);
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
                assert_eq!(
                    row["stall_cycles"],
                    misses * fill + writebacks * writeback,
                    "{what}: stall cycles"
                );
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
    // 32-byte line in 28 SPI clocks = 84 cycles: 32 B × 240 MHz / 84 = 91.4 MB/s.
    assert_eq!(transfer(&board, "psram", 32, false), 84);
    let quad = tigris_targets::load_with(
        "esp32s3",
        &["psram.mode=quad".into(), "psram.clock_mhz=40".into()],
    )
    .unwrap();
    assert_eq!(transfer(&quad, "psram", 32, false), 468);
}
