//! `tigris-sim bench`: simulated MIPS with the cycle model and profiler on, next to Unicorn running the
//! same firmware with no per-block work (only its semihosting answered), measured in the same
//! process. Not a test: the figures depend on the machine.

use crate::elf::SymbolMap;
use crate::machine::Machine;
use crate::profiler::Profiler;
use anyhow::Result;
use std::time::Instant;
use tigris_cores::cortex_m::CortexM;
use tigris_cores::{Core, NoObserver};

pub const DEFAULT_ELF: &str = "examples/mps2-an386-demo.elf";

/// Seconds of the fastest of `repeat` complete runs of the firmware (the least disturbed by the rest
/// of the machine), and the instructions of one run.
fn timed_runs(path: &str, board: &str, repeat: u32, profiled: bool) -> Result<(f64, u64)> {
    let mut best = f64::MAX;
    let mut instructions = 0;
    for _ in 0..repeat {
        let mut m = Machine::load(path, tigris_targets::load(board)?, None, false)?;
        let symbols = SymbolMap::new(&m.firmware.symbols);
        let mut profiler = Profiler::new(&symbols);
        let start = Instant::now();
        if profiled {
            m.run_raw(u64::MAX, &mut profiler)?;
        } else {
            m.run_raw(u64::MAX, &mut NoObserver)?;
        }
        best = best.min(start.elapsed().as_secs_f64());
        instructions = m.core.instructions();
    }
    Ok((best, instructions))
}

fn timed_unicorn(path: &str, board: &str, repeat: u32) -> Result<f64> {
    let mut best = f64::MAX;
    for _ in 0..repeat {
        let m = Machine::load(path, tigris_targets::load(board)?, None, false)?;
        let mut raw = CortexM::bare(&m.board).map_err(|e| anyhow::anyhow!("{e}"))?;
        for s in &m.firmware.segments {
            let mut image = s.data.clone();
            image.resize(s.mem_size as usize, 0);
            raw.write_memory(s.addr, &image).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        raw.reset(m.entry).map_err(|e| anyhow::anyhow!("{e}"))?;
        let start = Instant::now();
        raw.run_bare().map_err(|e| anyhow::anyhow!("{e}"))?;
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok(best)
}

pub fn run(path: &str, board: &str, repeat: u32) -> Result<()> {
    let t_raw = timed_unicorn(path, board, repeat)?;
    let (t_model, n) = timed_runs(path, board, repeat, false)?;
    let (t_prof, _) = timed_runs(path, board, repeat, true)?;
    let mips = |t: f64| n as f64 / t / 1e6;
    println!("{path} on {board}: {n} instructions per run, fastest of {repeat} runs each");
    println!("  unicorn, no hooks:            {:>8.1} MIPS", mips(t_raw));
    println!("  tigris-sim, cycle model:      {:>8.1} MIPS", mips(t_model));
    println!("  tigris-sim, model + profiler: {:>8.1} MIPS", mips(t_prof));
    println!("  ratio profiled / unicorn:     {:>8.2}  (target: at least 0.5)", t_raw / t_prof);
    Ok(())
}
