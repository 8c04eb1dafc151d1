//! `tigris-sim bench --memory`: what the memory models cost in simulation speed. Each program runs on
//! its board as described, then on the same board with every region flat (no caches, no wait states,
//! no serial timing), so the difference is the price of the models alone. SRAM-only code must run as
//! fast in both; memory-heavy code pays for its cache lookups.

use crate::bench::{cpu_seconds, Series, CLOCK};
use anyhow::Result;

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
/// One run under the profiler: its CPU seconds, instructions and cycles.
fn timed(path: &str, board: &Board) -> Result<(f64, u64, u64)> {
    let mut m = Machine::load(path, board.clone(), &Default::default())?;
    let symbols = SymbolMap::new(&m.firmware.symbols);
    let mut profiler = Profiler::new(&symbols);
    let start = cpu_seconds(false);
    m.run_raw(u64::MAX, &mut profiler)?;
    Ok((
        cpu_seconds(false) - start,
        m.core.instructions(),
        m.core.cycles(),
    ))
}

pub fn run(repeat: u32) -> Result<()> {
    println!("memory models: MIPS with the board's models and with every region flat, {repeat} runs each taking turns; {CLOCK}, median");
    for &(board_name, relative, what) in CASES {
        let Ok(path) = crate::bench::shipped_example(relative) else {
            println!("  {board_name:<11} {relative}: not built (bash firmware/build.sh)");
            continue;
        };
        let path = path.as_str();
        let board = tigris_targets::load(board_name)?;
        let flat_board = flat(&board);
        let (mut modelled, mut plain) = (Series::default(), Series::default());
        let (mut instructions, mut cycles, mut flat_cycles) = (0, 0, 0);
        for _ in 0..repeat.max(1) {
            let (t, n, c) = timed(path, &board)?;
            modelled.push(t);
            (instructions, cycles) = (n, c);
            let (t, _, c) = timed(path, &flat_board)?;
            plain.push(t);
            flat_cycles = c;
        }
        let mips = |s: &Series| instructions as f64 / s.summary().0 / 1e6;
        let (modelled, plain) = (mips(&modelled), mips(&plain));
        println!("  {board_name:<11} {path}\n      {what}");
        println!(
            "      modelled {modelled:>7.1} MIPS ({cycles} cycles), flat {plain:>7.1} MIPS ({flat_cycles} cycles): ratio {:.2}",
            modelled / plain
        );
    }
    Ok(())
}
