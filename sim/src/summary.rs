//! The text views: the run summary printed after a run and the board listing.

use std::fmt::Write;
use tigris_memmodels::MemorySystem;
use tigris_targets::{format_size, Board, RegionKind, WritePolicy};
use tigris_traces::{
    BreakdownSource, Limit, Outcome, Report, TensorViewProfile, TigrisFigures, TigrisProfile,
};

/// 1234567 -> "1,234,567".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The widest label column a table pads to. A longer label (a 70,000-character function name)
/// overflows its own row only: the other rows stay readable, and the width stays far below the
/// `u16::MAX` that `{:w$}` accepts (a wider one panics).
const MAX_LABEL_WIDTH: usize = 100;

/// The width of a table's label column: its longest label, at least `min`, at most
/// [`MAX_LABEL_WIDTH`].
pub fn label_width(labels: impl Iterator<Item = usize>, min: usize) -> usize {
    labels.max().unwrap_or(0).max(min).min(MAX_LABEL_WIDTH)
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

/// How a run ended, as the summary's first line says it ("exited with code 0", "FAULT", ...).
pub fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Exited { code } => format!("exited with code {code}"),
        Outcome::Limit {
            limit,
            pc,
            location,
            ..
        } => {
            let by = if *limit == Limit::Stopped {
                "from the live view".to_string()
            } else {
                format!("by the {} limit", limit.name().replace('_', "-"))
            };
            format!(
                "stopped {by} at 0x{pc:08x} {}",
                location.as_deref().unwrap_or("(no symbol)")
            )
        }
        Outcome::Fault => "FAULT".to_string(),
        Outcome::Idle { pc, location, .. } => format!(
            "idle (asleep, nothing can wake the core) at 0x{pc:08x} {}",
            location.as_deref().unwrap_or("(no symbol)")
        ),
        Outcome::Condition {
            detail,
            passed,
            pc,
            location,
            ..
        } => format!(
            "{} ({detail}) at 0x{pc:08x} {}",
            if *passed { "PASSED" } else { "FAILED" },
            location.as_deref().unwrap_or("(no symbol)")
        ),
        Outcome::Reset {
            by, pc, location, ..
        } => format!(
            "{} at 0x{pc:08x} {}",
            tigris_traces::reset_cause(by),
            location.as_deref().unwrap_or("(no symbol)")
        ),
    }
}

/// The concise summary printed on stdout after a run.
pub fn text(r: &Report, top: usize) -> String {
    let mut o = String::new();
    let t = &r.totals;
    let settings = r.board.settings_text();
    let _ = writeln!(
        o,
        "\n== tigris-sim: {} on {}{settings} ({} @ {} MHz)",
        r.firmware.file,
        r.board.name,
        r.board.core,
        r.board.clock_hz as f64 / 1e6
    );
    let end = outcome_text(&r.outcome);
    let mhz = |hz: u64| hz as f64 / 1e6;
    let clocks = if r.board.clock_changes.is_empty() {
        format!("at {} MHz", mhz(r.board.clock_hz))
    } else {
        let last = r
            .board
            .clock_changes
            .last()
            .map_or(r.board.clock_hz, |c| c.hz);
        format!(
            "at {} MHz first, {} MHz last ({} clock switches)",
            mhz(r.board.clock_hz),
            mhz(last),
            r.board.clock_changes.len()
        )
    };
    let _ = writeln!(
        o,
        "{end}: {} cycles = {} {clocks}, {} instructions, CPI {:.3}, {} memory stall cycles",
        thousands(t.cycles),
        duration(t.seconds),
        thousands(t.instructions),
        t.cpi,
        thousands(t.stall_cycles)
    );
    if !r.board.clock_changes.is_empty() {
        let steps: Vec<String> = r
            .board
            .clock_changes
            .iter()
            .map(|c| format!("{} MHz at cycle {}", mhz(c.hz), thousands(c.cycle)))
            .collect();
        let _ = writeln!(
            o,
            "core clock (the firmware's clock registers): {} MHz, then {}",
            mhz(r.board.clock_hz),
            steps.join(", ")
        );
    }
    let shown = match &r.outcome {
        Outcome::Limit {
            backtrace, limit, ..
        } if *limit == Limit::Stopped => Some((backtrace, "")),
        Outcome::Limit { backtrace, .. } => {
            Some((backtrace, " (the firmware may be in a runaway loop)"))
        }
        Outcome::Reset { backtrace, .. }
        | Outcome::Idle { backtrace, .. }
        | Outcome::Condition { backtrace, .. } => Some((backtrace, "")),
        Outcome::Exited { .. } | Outcome::Fault => None,
    };
    if let Some(panic) = &r.panic {
        let _ = writeln!(o, "  the firmware panicked: {panic}");
    }
    if let Some((backtrace, why)) = shown {
        let _ = writeln!(o, "  backtrace{why}:");
        for line in backtrace {
            let _ = writeln!(o, "    {line}");
        }
    }
    if let Some(f) = &r.fault {
        let _ = writeln!(
            o,
            "\nfault: {} at 0x{:08x} {}",
            f.kind,
            f.pc,
            f.location.as_deref().unwrap_or("(no symbol)")
        );
        if let Some(i) = &f.instruction {
            let _ = writeln!(o, "  instruction: {i}");
        }
        if let Some(line) = &f.source {
            let _ = writeln!(o, "  source:      {line}");
        }
        if let Some(a) = f.address {
            let _ = writeln!(o, "  address:     0x{a:08x}");
        }
        let _ = writeln!(o, "  {}", f.message);
        let _ = writeln!(o, "  backtrace:");
        for line in &f.backtrace {
            let _ = writeln!(o, "    {line}");
        }
        let regs: Vec<String> = f
            .registers
            .iter()
            .map(|(n, v)| format!("{n}=0x{v:08x}"))
            .collect();
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
        let _ = writeln!(
            o,
            "  no access cost anything (all code and data in zero-wait-state memory)"
        );
    } else {
        let _ = writeln!(
            o,
            "  {:<12} {:>12} {:>12} {:>12} {:>12} {:>12}",
            "region", "reads", "writes", "bytes read", "bytes written", "stall cycles"
        );
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
    if r.regions
        .iter()
        .any(|g| g.reads.is_none() && g.kind != "mmio")
    {
        let _ = writeln!(
            o,
            "  (traffic to memory that costs nothing is not counted: --memory-stats counts it)"
        );
    }
    let used: Vec<_> = r.caches.iter().filter(|c| c.hits + c.misses > 0).collect();
    if !used.is_empty() {
        let _ = writeln!(o, "\ncaches:");
        let _ = writeln!(
            o,
            "  {:<12} {:>12} {:>12} {:>8} {:>12} {:>12}",
            "cache", "hits", "misses", "miss%", "write-backs", "stall cycles"
        );
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
        let share = percent(f.self_cycles, t.cycles);
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
    if !r.lines.is_empty() {
        let _ = writeln!(o, "\nhot source lines:");
        let _ = writeln!(
            o,
            "  {:>6} {:>14} {:>14}  line",
            "self%", "cycles", "instructions"
        );
        for l in r.lines.iter().take(top) {
            let at = l.location.as_deref().unwrap_or("(no line information)");
            let _ = writeln!(
                o,
                "  {:>5.1}% {:>14} {:>14}  {at} {}",
                percent(l.cycles, t.cycles),
                thousands(l.cycles),
                thousands(l.instructions),
                l.function
            );
        }
    }
    for c in &r.other_cores {
        other_core(&mut o, c, top);
    }
    if let Some(t) = &r.tigris {
        tigris_table(&mut o, t, r.totals.cycles.max(1));
    }
    for v in &r.views {
        view_table(&mut o, v);
    }
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}

/// `part` as a percentage of `whole` (0 when `whole` is).
fn percent(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        100.0 * part as f64 / whole as f64
    } else {
        0.0
    }
}

/// Bytes as `1,234 B` below 10 KiB, else KiB with one decimal.
pub fn bytes(n: u64) -> String {
    if n < 10 * 1024 {
        format!("{} B", thousands(n))
    } else {
        format!("{:.1} KiB", n as f64 / 1024.0)
    }
}

/// Most tiles listed per stage; the rest are summed in one line.
const TILES_LISTED: usize = 12;

/// The TiGrIS table's columns and their widths, as `tigris_row` fills them (docs/report.md
/// defines each).
const TIGRIS_COLUMNS: [(&str, usize); 14] = [
    ("stage", 16),
    ("tiles", 5),
    ("cycles", 12),
    ("share", 6),
    ("mem stall", 10),
    ("fast peak", 9),
    ("bus peak", 9),
    ("loaded", 9),
    ("spilled", 9),
    ("slow rd", 9),
    ("slow wr", 9),
    ("halo", 5),
    ("recomp", 6),
    ("halo%", 6),
];

fn tigris_row(o: &mut String, label: &str, f: &TigrisFigures, tiles: &str, run_cycles: u64) {
    let stalls: u64 = f.stalls.iter().map(|s| s.cycles).sum();
    let halo = f.halo_load_cycles + f.recompute_cycles;
    let _ = writeln!(
        o,
        "  {label:<16} {tiles:>5} {:>12} {:>5.1}% {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>5} {:>6} {:>5.1}%",
        thousands(f.cycles),
        100.0 * f.cycles as f64 / run_cycles as f64,
        thousands(stalls),
        bytes(f.fast_peak as u64),
        bytes(f.fast_peak_bus as u64),
        bytes(f.load_bytes),
        bytes(f.spill_bytes),
        bytes(f.slow_read_bytes),
        bytes(f.slow_write_bytes),
        f.halo_rows,
        f.recomputed_rows,
        100.0 * halo as f64 / f.cycles.max(1) as f64
    );
}

/// The per-stage and per-tile table of a TiGrIS run.
/// Another core's totals and its top functions (a flat profile: self figures only).
fn other_core(o: &mut String, c: &tigris_traces::CoreProfile, top: usize) {
    let _ = writeln!(
        o,
        "\ncore PRID 0x{:04X}: {} cycles, {} instructions, {} idle (WAITI), now at 0x{:08x} {}",
        c.prid,
        thousands(c.cycles),
        thousands(c.instructions),
        thousands(c.idle_cycles),
        c.pc,
        c.location.as_deref().unwrap_or("(no symbol)")
    );
    let _ = writeln!(
        o,
        "  {:>6} {:>14} {:>14}  function",
        "self%", "self cycles", "self insns"
    );
    for f in c.functions.iter().take(top) {
        let share = 100.0 * f.self_cycles as f64 / c.cycles.max(1) as f64;
        let _ = writeln!(
            o,
            "  {:>5.1}% {:>14} {:>14}  {}",
            share,
            thousands(f.self_cycles),
            thousands(f.self_instructions),
            f.name
        );
    }
}

fn tigris_table(o: &mut String, t: &TigrisProfile, run_cycles: u64) {
    let _ = write!(o, "\nTiGrIS: {} inference(s), ", t.runs);
    match t.breakdown {
        Some(BreakdownSource::Derived) => {
            o.push_str("no trace events: breakdown derived from the runtime's calls")
        }
        _ => {
            let _ = write!(o, "{} trace events", t.events);
        }
    }
    if let Some(p) = &t.plan {
        let _ = write!(o, "; plan at 0x{:08x} ({} bytes", p.address, p.bytes);
        if let Some(v) = p.schema {
            let _ = write!(o, ", schema {v}");
        }
        if let Some(b) = p.budget {
            let _ = write!(o, ", budget {}", bytes(b as u64));
        }
        o.push(')');
    }
    o.push('\n');
    if let Some(a) = &t.arenas {
        let _ = writeln!(
            o,
            "  fast arena 0x{:08x} {} ({}), slow arena 0x{:08x} {} ({})",
            a.fast_base,
            bytes(a.fast_size as u64),
            a.fast_region.as_deref().unwrap_or("outside memory"),
            a.slow_base,
            bytes(a.slow_size as u64),
            a.slow_region.as_deref().unwrap_or("outside memory")
        );
        let total = &t.total;
        let _ = writeln!(
            o,
            "  peaks: fast {} (bus {}), slow {} (bus {})",
            bytes(total.fast_peak as u64),
            bytes(total.fast_peak_bus as u64),
            bytes(total.slow_peak as u64),
            bytes(total.slow_peak_bus as u64)
        );
    }
    if !t.stages.is_empty() {
        o.push(' ');
        for (i, (name, width)) in TIGRIS_COLUMNS.iter().enumerate() {
            let _ = match i {
                0 => write!(o, " {name:<width$}"),
                _ => write!(o, " {name:>width$}"),
            };
        }
        o.push('\n');
    }
    for s in &t.stages {
        let label = format!("{} {}", s.stage, s.path);
        let tiles = if s.tiles.is_empty() {
            String::new()
        } else {
            s.tiles.len().to_string()
        };
        tigris_row(o, &label, &s.figures, &tiles, run_cycles);
        if let Some(p) = &s.predicted {
            let _ = write!(o, "    plan: {}", p.execution);
            if p.execution != "untiled" {
                let _ = write!(
                    o,
                    ", {} tiles of {} rows, halo {}, receptive field {}",
                    p.tiles, p.tile_height, p.halo, p.receptive_field
                );
            }
            let _ = write!(o, ", peak {}", bytes(p.peak_bytes));
            if p.overhead_bytes > 0 {
                let _ = write!(o, ", overhead {}", bytes(p.overhead_bytes));
            }
            if p.line_buffered {
                o.push_str(", line-buffered");
            }
            let _ = writeln!(o, "; ops: {}", s.op_names.join(", "));
        }
        for tile in s.tiles.iter().take(TILES_LISTED) {
            let label = format!("  tile {} [{},{})", tile.index, tile.rows[0], tile.rows[1]);
            tigris_row(o, &label, &tile.figures, "", run_cycles);
        }
        if s.tiles.len() > TILES_LISTED {
            let _ = writeln!(o, "    ... {} more tiles", s.tiles.len() - TILES_LISTED);
        }
    }
    if !t.stages.is_empty() || t.total.slow_read_bytes + t.total.slow_write_bytes > 0 {
        tigris_row(o, "total", &t.total, "", run_cycles);
    }
    for f in &t.findings {
        let _ = writeln!(o, "  finding: {f}");
    }
}

/// A tensor view: its totals, then its tiles in first-touch order (never-touched tiles last).
fn view_table(o: &mut String, v: &TensorViewProfile) {
    let shape: Vec<String> = v.shape.iter().map(u64::to_string).collect();
    let _ = writeln!(
        o,
        "\nview {}: {} [{}] ({}) at 0x{:08x} in {}, {}, {}",
        v.name,
        v.dtype,
        shape.join(", "),
        v.axes.join(", "),
        v.address,
        v.region,
        bytes(v.bytes),
        v.layout
    );
    let _ = writeln!(
        o,
        "  read {} in {} accesses ({} distinct, re-read x{:.2}), written {} in {} accesses, {} touched; {} stall cycles",
        bytes(v.read_bytes),
        thousands(v.reads),
        bytes(v.distinct_read_bytes),
        v.reread_factor,
        bytes(v.write_bytes),
        thousands(v.writes),
        bytes(v.distinct_bytes),
        thousands(v.stall_cycles)
    );
    if v.padding_read_bytes + v.padding_write_bytes > 0 {
        let _ = writeln!(
            o,
            "  padding: {} read, {} written",
            bytes(v.padding_read_bytes),
            bytes(v.padding_write_bytes)
        );
    }
    // Tile coordinates are in the view's order (its permute), so the header is too.
    let tiles: Vec<String> = v
        .order
        .iter()
        .filter_map(|a| {
            let k = v.axes.iter().position(|x| x == a)?;
            Some(format!("{a}={}", v.tile[k]))
        })
        .collect();
    let _ = writeln!(
        o,
        "  {:<20} {:>10} {:>10} {:>10} {:>14} {:>14}",
        format!("tile ({})", tiles.join(", ")),
        "read",
        "written",
        "stalls",
        "first cycle",
        "last cycle"
    );
    let untouched = (0..v.tiles.len() as u64).filter(|t| !v.first_touch.contains(t));
    let listed = v.first_touch.iter().copied().chain(untouched);
    let cycle = |c: Option<u64>| c.map_or("-".to_string(), thousands);
    for t in listed.take(TILES_LISTED) {
        let tile = &v.tiles[t as usize];
        let at: Vec<String> = tile.tile.iter().map(u64::to_string).collect();
        let _ = writeln!(
            o,
            "  {:<20} {:>10} {:>10} {:>10} {:>14} {:>14}",
            format!("{t} [{}]", at.join(", ")),
            bytes(tile.read_bytes),
            bytes(tile.write_bytes),
            thousands(tile.stall_cycles),
            cycle(tile.first_cycle),
            cycle(tile.last_cycle)
        );
    }
    if v.tiles.len() > TILES_LISTED {
        let _ = writeln!(o, "    ... {} more tiles", v.tiles.len() - TILES_LISTED);
    }
}

/// Megabytes (10^6 bytes) per second of `bytes` every `cycles` core cycles.
fn megabytes_per_second(bytes: u32, cycles: u32, clock_hz: u64) -> f64 {
    bytes as f64 * clock_hz as f64 / cycles.max(1) as f64 / 1e6
}

/// Every parameter of a board, and the costs the memory models derive from them, for `boards show`.
pub fn board_details(b: &Board) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} ({})\n  {}", b.name, b.origin, b.summary);
    let _ = writeln!(
        o,
        "core: {}  clock {} Hz  fpu {}",
        b.core.kind.name(),
        b.core.clock_hz,
        b.core.fpu
    );
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
            "  {}: {}, {}-way, {}-byte lines ({} sets), {}{}, {} replacement, hit +{} cycles",
            c.name,
            format_size(c.size as u64),
            c.ways,
            c.line_bytes,
            c.sets(),
            c.write_policy.name(),
            if c.writeback_buffer {
                " (write-back buffer)"
            } else {
                ""
            },
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
                    "{} {} at {} MHz: command {} + address {} + dummy {} (write {}) + cs {} clocks + controller {} ns",
                    s.mode.name(),
                    if s.ddr { "DDR" } else { "STR" },
                    s.clock_hz as f64 / 1e6,
                    s.command_clocks,
                    s.address_clocks,
                    s.read_dummy_clocks,
                    s.write_dummy_clocks,
                    s.cs_clocks,
                    s.controller_ns
                );
            }
            None => {
                let _ = write!(
                    o,
                    "wait states {} read / {} write, {}-byte reads in {}-byte beats at {} MHz, prefetch {}",
                    r.read_wait_states,
                    r.write_wait_states,
                    r.bus_bytes,
                    r.beat_bytes,
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
        let _ = write!(
            o,
            "      4-byte access {} read",
            m.transfer_cycles(4, false)
        );
        if r.access.write {
            let _ = write!(o, " / {} write", m.transfer_cycles(4, true));
        }
        if let Some(c) = r.dcache.or(r.icache) {
            let line = b.caches[c].line_bytes;
            let fill = m.transfer_cycles(line, false);
            let _ = write!(
                o,
                "; {line}-byte line fill {fill}: streaming read {:.1} MB/s",
                megabytes_per_second(line, fill, b.core.clock_hz)
            );
            if r.access.write
                && r.dcache
                    .is_some_and(|d| b.caches[d].write_policy == WritePolicy::WriteBack)
            {
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
    /// Every column of the TiGrIS table has a row of its own in docs/report.md.
    #[test]
    fn every_tigris_column_is_documented() {
        let doc = include_str!("../../docs/report.md");
        let missing: Vec<&str> = super::TIGRIS_COLUMNS
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| !doc.contains(&format!("\n| `{name}` |")))
            .collect();
        assert!(missing.is_empty(), "not in docs/report.md: {missing:?}");
    }

    /// The header is the columns, each as wide as `tigris_row` prints it.
    #[test]
    fn the_tigris_header_lines_up_with_its_rows() {
        use tigris_traces::testing::{figures, stage, tigris};
        let mut o = String::new();
        let t = tigris(
            vec![stage(0, "tiled", 0, figures(100), Vec::new())],
            Vec::new(),
        );
        super::tigris_table(&mut o, &t, 100);
        let header = o.lines().find(|l| l.contains("bus peak")).unwrap();
        let row = o.lines().find(|l| l.contains("0 tiled")).unwrap();
        assert_eq!(
            header.chars().count(),
            row.chars().count(),
            "{header}\n{row}"
        );
        for (name, _) in super::TIGRIS_COLUMNS {
            assert!(header.contains(name), "{header}");
        }
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(1234567), "1,234,567");
        assert_eq!(super::thousands(100), "100");
    }
}
