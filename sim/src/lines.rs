//! The per-source-line profile (`run --lines`): the profiler's straight-line runs of code, split
//! into their instructions, each instruction's share of its run's cycles given to the source line
//! DWARF names for it (the innermost, inlined, frame's).

use crate::elf::SymbolMap;
use std::collections::{BTreeMap, HashMap};
use tigris_cores::Core;
use tigris_traces as traces;

/// The cycles and instructions of each source line that ran, highest cycles first. `segments` are
/// (first PC, instructions, cycles, times run), as `Profiler::segments` gives them.
pub fn profile(
    segments: &[(u32, u32, u64, u64)],
    symbols: &SymbolMap,
    core: &dyn Core,
) -> Vec<traces::SourceLine> {
    // (function, file:line) -> (cycles, instructions); a BTreeMap keeps ties in a stable order.
    let mut lines: BTreeMap<(String, Option<String>), (u64, u64)> = BTreeMap::new();
    let mut line_of: HashMap<u32, (String, Option<String>)> = HashMap::new();
    for &(pc, n, cycles, runs) in segments {
        let addresses = instructions_from(pc, n, symbols, core);
        // Each instruction of the run gets an equal share of its cycles; the remainder goes to the
        // first ones, so the shares add up to the run's cycles exactly.
        let count = addresses.len() as u64;
        let (share, rest) = (cycles / count, cycles % count);
        for (i, (addr, executed)) in addresses.into_iter().enumerate() {
            let key = line_of
                .entry(addr)
                .or_insert_with(|| line_at(addr, symbols))
                .clone();
            let entry = lines.entry(key).or_default();
            entry.0 += share + u64::from((i as u64) < rest);
            entry.1 += executed * runs;
        }
    }
    let mut out: Vec<traces::SourceLine> = lines
        .into_iter()
        .map(
            |((function, location), (cycles, instructions))| traces::SourceLine {
                location,
                function,
                cycles,
                instructions,
            },
        )
        .collect();
    out.sort_by_key(|l| std::cmp::Reverse(l.cycles));
    out
}

/// The addresses of the `n` instructions a straight-line run from `pc` executed, each with how many
/// of the run's instructions it stands for. The walk stays inside the function `pc` is in: should a
/// run not be straight-line after all (code the core did not report a block for), the instructions
/// it cannot place count on the last one it could.
fn instructions_from(pc: u32, n: u32, symbols: &SymbolMap, core: &dyn Core) -> Vec<(u32, u64)> {
    let end = symbols.lookup(pc).map_or(u32::MAX, |f| symbols.range(f).1);
    let mut out = Vec::new();
    let mut addr = pc;
    for left in (1..=u64::from(n)).rev() {
        let next = core
            .instruction_length(addr)
            .and_then(|len| addr.checked_add(len))
            .filter(|&next| next < end);
        match next {
            Some(next) if left > 1 => {
                out.push((addr, 1));
                addr = next;
            }
            _ => {
                out.push((addr, left));
                break;
            }
        }
    }
    out
}

/// The function and `file:line` of the instruction at `addr`: DWARF's innermost frame, else the
/// symbol (no line).
fn line_at(addr: u32, symbols: &SymbolMap) -> (String, Option<String>) {
    let frames = symbols.source(addr);
    let symbol = || {
        symbols
            .lookup(addr)
            .map_or("(no symbol)".to_string(), |f| symbols.get(f).name.clone())
    };
    match frames.first() {
        Some(f) => (
            f.function.clone().unwrap_or_else(symbol),
            f.location.clone(),
        ),
        None => (symbol(), None),
    }
}
