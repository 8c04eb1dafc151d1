//! The text views: the run summary printed after a run and the board listing.

use std::fmt::Write;
use tigris_memmodels::MemorySystem;
use tigris_targets::{format_size, Board, RegionKind, WritePolicy};
use tigris_traces::{Outcome, Report};

/// 1234567 -> "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn duration(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.3} us", seconds * 1e6)
    }
}

/// The concise summary printed on stdout after a run.
pub fn text(r: &Report, top: usize) -> String {
    let mut o = String::new();
    let t = &r.totals;
    let _ = writeln!(o, "\n== tigris-sim: {} on {} ({} @ {} MHz)", r.firmware.file, r.board.name, r.board.core, r.board.clock_hz as f64 / 1e6);
    let end = match &r.outcome {
        Outcome::Exited { code } => format!("exited with code {code}"),
        Outcome::Limit { limit, pc, location, .. } => format!(
            "stopped by the {} limit at 0x{pc:08x} {}",
            limit.replace('_', "-"),
            location.as_deref().unwrap_or("(no symbol)")
        ),
        Outcome::Fault => "FAULT".to_string(),
    };
    let _ = writeln!(
        o,
        "{end}: {} cycles = {} at {} MHz, {} instructions, CPI {:.3}, {} memory stall cycles",
        thousands(t.cycles),
        duration(t.seconds),
        r.board.clock_hz as f64 / 1e6,
        thousands(t.instructions),
        t.cpi,
        thousands(t.stall_cycles)
    );
    if let Outcome::Limit { backtrace, .. } = &r.outcome {
        let _ = writeln!(o, "  backtrace (the firmware may be in a runaway loop):");
        for line in backtrace {
            let _ = writeln!(o, "    {line}");
        }
    }
    if let Some(f) = &r.fault {
        let _ = writeln!(o, "\nfault: {} at 0x{:08x} {}", f.kind, f.pc, f.location.as_deref().unwrap_or("(no symbol)"));
        if let Some(i) = &f.instruction {
            let _ = writeln!(o, "  instruction: {i}");
        }
        if let Some(a) = f.address {
            let _ = writeln!(o, "  address:     0x{a:08x}");
        }
        let _ = writeln!(o, "  {}", f.message);
        let _ = writeln!(o, "  backtrace:");
        for line in &f.backtrace {
            let _ = writeln!(o, "    {line}");
        }
        let regs: Vec<String> = f.registers.iter().map(|(n, v)| format!("{n}=0x{v:08x}")).collect();
        for chunk in regs.chunks(6) {
            let _ = writeln!(o, "  {}", chunk.join(" "));
        }
    }
    let count = |v: Option<u64>| v.map(thousands).unwrap_or_else(|| "-".into());
    let busy: Vec<_> = r
        .regions
        .iter()
        .filter(|g| g.reads.unwrap_or(0) + g.writes.unwrap_or(0) + g.fetches + g.stall_cycles > 0)
        .collect();
    let _ = writeln!(o, "\nmemory regions:");
    if busy.is_empty() {
        let _ = writeln!(o, "  no access cost anything (all code and data in zero-wait-state memory)");
    } else {
        let _ = writeln!(o, "  {:<12} {:>12} {:>12} {:>12} {:>12} {:>12}", "region", "reads", "writes", "bytes read", "bytes written", "stall cycles");
    }
    for g in busy {
        let _ = writeln!(
            o,
            "  {:<12} {:>12} {:>12} {:>12} {:>12} {:>12}",
            g.name,
            count(g.reads),
            count(g.writes),
            count(g.read_bytes),
            count(g.write_bytes),
            thousands(g.stall_cycles)
        );
    }
    if r.regions.iter().any(|g| g.reads.is_none() && g.kind != "mmio") {
        let _ = writeln!(o, "  (traffic to memory that costs nothing is not counted: --memory-stats counts it)");
    }
    let used: Vec<_> = r.caches.iter().filter(|c| c.hits + c.misses > 0).collect();
    if !used.is_empty() {
        let _ = writeln!(o, "\ncaches:");
        let _ = writeln!(o, "  {:<12} {:>12} {:>12} {:>8} {:>12} {:>12}", "cache", "hits", "misses", "miss%", "write-backs", "stall cycles");
    }
    for c in used {
        let _ = writeln!(
            o,
            "  {:<12} {:>12} {:>12} {:>7.2}% {:>12} {:>12}",
            c.name,
            thousands(c.hits),
            thousands(c.misses),
            100.0 * c.misses as f64 / (c.hits + c.misses) as f64,
            thousands(c.writebacks),
            thousands(c.stall_cycles)
        );
    }
    let _ = writeln!(o, "\ntop functions by self cycles:");
    let _ = writeln!(
        o,
        "  {:>6} {:>14} {:>14} {:>12} {:>10}  function",
        "self%", "self cycles", "incl. cycles", "mem. stalls", "calls"
    );
    for f in r.functions.iter().take(top) {
        let share = if t.cycles > 0 { 100.0 * f.self_cycles as f64 / t.cycles as f64 } else { 0.0 };
        let stalls: u64 = f.memory.iter().map(|m| m.stall_cycles).sum();
        let _ = writeln!(
            o,
            "  {:>5.1}% {:>14} {:>14} {:>12} {:>10}  {}",
            share,
            thousands(f.self_cycles),
            thousands(f.inclusive_cycles),
            thousands(stalls),
            thousands(f.calls),
            f.name
        );
    }
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}

/// Megabytes (10^6 bytes) per second of `bytes` every `cycles` core cycles.
fn megabytes_per_second(bytes: u32, cycles: u32, clock_hz: u64) -> f64 {
    bytes as f64 * clock_hz as f64 / cycles.max(1) as f64 / 1e6
}

/// Every parameter of a board, and the costs the memory models derive from them, for `boards show`.
pub fn board_details(b: &Board) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} ({})\n  {}", b.name, b.origin, b.summary);
    let _ = writeln!(o, "core: {}  clock {} Hz  fpu {}", b.core.kind.name(), b.core.clock_hz, b.core.fpu);
    if let Some(v) = b.vector_table {
        let _ = writeln!(o, "vector table: 0x{v:08x}");
    }
    let _ = writeln!(o, "memory map:\n{}", b.memory_map().trim_end());
    if !b.caches.is_empty() {
        let _ = writeln!(o, "caches:");
    }
    for c in &b.caches {
        let _ = writeln!(
            o,
            "  {}: {}, {}-way, {}-byte lines ({} sets), {}, {} replacement, hit +{} cycles",
            c.name,
            format_size(c.size as u64),
            c.ways,
            c.line_bytes,
            c.sets(),
            c.write_policy.name(),
            c.replacement.name(),
            c.hit_cycles
        );
    }
    let _ = writeln!(o, "region timing (core cycles; see docs/memory-models.md):");
    let mem = MemorySystem::new(b);
    for (r, m) in b.regions.iter().zip(&mem.regions) {
        if r.kind == RegionKind::Mmio {
            continue;
        }
        let _ = write!(o, "  {}: ", r.name);
        match r.spi {
            Some(s) => {
                let _ = write!(
                    o,
                    "{} {} at {} MHz: command {} + address {} + dummy {} (write {}) + cs {} clocks",
                    s.mode.name(),
                    if s.ddr { "DDR" } else { "STR" },
                    s.clock_hz as f64 / 1e6,
                    s.command_clocks,
                    s.address_clocks,
                    s.read_dummy_clocks,
                    s.write_dummy_clocks,
                    s.cs_clocks
                );
            }
            None => {
                let _ = write!(
                    o,
                    "wait states {} read / {} write, {}-byte bus at {} MHz, prefetch {}",
                    r.read_wait_states,
                    r.write_wait_states,
                    r.bus_bytes,
                    r.bus_clock_hz as f64 / 1e6,
                    r.prefetch
                );
            }
        }
        for (label, cache) in [("icache", r.icache), ("dcache", r.dcache)] {
            if let Some(c) = cache {
                let _ = write!(o, ", {label} {}", b.caches[c].name);
            }
        }
        o.push('\n');
        let _ = write!(o, "      4-byte access {} read", m.transfer_cycles(4, false));
        if r.access.write {
            let _ = write!(o, " / {} write", m.transfer_cycles(4, true));
        }
        if let Some(c) = r.dcache.or(r.icache) {
            let line = b.caches[c].line_bytes;
            let fill = m.transfer_cycles(line, false);
            let _ = write!(o, "; {line}-byte line fill {fill}: streaming read {:.1} MB/s", megabytes_per_second(line, fill, b.core.clock_hz));
            if r.access.write && r.dcache.is_some_and(|d| b.caches[d].write_policy == WritePolicy::WriteBack) {
                let back = m.transfer_cycles(line, true);
                let _ = write!(
                    o,
                    "; write-back {back}: streaming write {:.1} MB/s",
                    megabytes_per_second(line, fill + back, b.core.clock_hz)
                );
            }
        }
        o.push('\n');
    }
    if let Some(u) = b.console.uart {
        let _ = write!(o, "console UART: data 0x{:08x}", u.data);
        if let Some(s) = u.status {
            let _ = write!(o, ", status 0x{s:08x} reads 0x{:x}", u.status_ready);
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_separators() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(1234567), "1,234,567");
        assert_eq!(super::thousands(100), "100");
    }
}
