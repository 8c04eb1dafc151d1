//! `tigris-sim bench --memory`: what the memory models cost in simulation speed. Each program runs on
//! its board as described, then on the same board with every region flat (no caches, no wait states,
//! no serial timing), so the difference is the price of the models alone. SRAM-only code must run as
//! fast in both; memory-heavy code pays for its cache lookups.

use anyhow::Result;
use std::time::Instant;

use crate::elf::SymbolMap;
use crate::machine::Machine;
use crate::profiler::Profiler;
use tigris_targets::Board;

/// (board, firmware, what it exercises)
const CASES: &[(&str, &str, &str)] = &[
    (
        "esp32s3",
        "examples/esp32s3-demo.elf",
        "SRAM-only code and data",
    ),
    (
        "esp32s3",
        "firmware/build/esp32s3/membench.elf",
        "memory kernels: PSRAM and flash through the DCache",
    ),
    (
        "stm32h753",
        "firmware/build/stm32h753/demo.elf",
        "DTCM data, code from flash through the L1 I-cache",
    ),
    (
        "stm32h753",
        "firmware/build/stm32h753/membench.elf",
        "memory kernels: AXI SRAM, SRAM1-3, flash through the L1 caches",
    ),
    (
        "mps2-an386",
        "examples/mps2-an386-demo.elf",
        "zero-wait-state SRAM only (nothing priced)",
    ),
];

/// The board with every region priced as zero-wait-state memory and no caches.
pub fn flat(board: &Board) -> Board {
    let mut b = board.clone();
    b.caches.clear();
    for r in &mut b.regions {
        (r.icache, r.dcache, r.spi, r.prefetch) = (None, None, None, false);
        (r.read_wait_states, r.write_wait_states, r.bus_clock_hz) = (0, 0, board.core.clock_hz);
    }
    b
}

/// Fastest of `repeat` profiled runs: (MIPS, simulated cycles).
fn fastest(path: &str, board: &Board, repeat: u32) -> Result<(f64, u64)> {
    let mut best = (0.0f64, 0);
    for _ in 0..repeat.max(1) {
        let mut m = Machine::load(path, board.clone(), &Default::default())?;
        let symbols = SymbolMap::new(&m.firmware.symbols);
        let mut profiler = Profiler::new(&symbols);
        let start = Instant::now();
        m.run_raw(u64::MAX, &mut profiler)?;
        let mips = m.core.instructions() as f64 / start.elapsed().as_secs_f64() / 1e6;
        if mips > best.0 {
            best = (mips, m.core.cycles());
        }
    }
    Ok(best)
}

pub fn run(repeat: u32) -> Result<()> {
    println!("memory models: MIPS with the board's models and with every region flat, fastest of {repeat} runs each");
    for &(board_name, relative, what) in CASES {
        let Ok(path) = crate::bench::shipped_example(relative) else {
            println!("  {board_name:<11} {relative}: not built (bash firmware/build.sh)");
            continue;
        };
        let path = path.as_str();
        let board = tigris_targets::load(board_name)?;
        let (modelled, cycles) = fastest(path, &board, repeat)?;
        let (plain, flat_cycles) = fastest(path, &flat(&board), repeat)?;
        println!("  {board_name:<11} {path}\n      {what}");
        println!(
            "      modelled {modelled:>7.1} MIPS ({cycles} cycles), flat {plain:>7.1} MIPS ({flat_cycles} cycles): ratio {:.2}",
            modelled / plain
        );
    }
    Ok(())
}
