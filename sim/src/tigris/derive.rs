//! The per-stage and per-tile breakdown of a runtime that delivers no trace events (the public
//! tigris-runtime, which has no trace API, or any runtime built without a sink), derived from its own
//! calls. While `tigris_run*` runs, the observer traps the kernel callback the run was given (one call
//! per op: `tigris_kernel_fn`, tigris-runtime include/tigris_executor.h) and the C library's copy
//! functions called by the executor itself (the loads, spills and row moves of
//! tigris-runtime src/tigris_mem.c are `memcpy`/`memmove` calls), each timed from its entry to its
//! return. A copy from the slow arena into the fast one is a load, the other way a spill, inside the
//! fast arena a move; the tensor is the one whose slow-arena address (the runtime's own tensor table,
//! handed to `tigris_mem_init`) holds the copied bytes. The plan says which unit (stage or chain) each
//! op belongs to; a unit's ops starting over is a new tile; the rows of a tile follow from the rows it
//! spills and the plan's op geometry ([`Plan::band_rows`]). The result is the event stream a traced
//! runtime would have delivered, so both breakdowns are computed alike.

use tigris_cores::{Core, CoreError};

use super::plan::{Execution, Plan, Unit};
use super::runtime::{kind, Captured, Snapshot, TraceEvent};

/// Copy functions: C99 7.21.2.1 and 7.21.2.2 (`memcpy`, `memmove`) and the ARM run-time ABI's
/// (ARM IHI 0043, "Memory copying, clearing, and setting"), all `(dest, src, n)`.
pub(super) const COPY_FUNCTIONS: &[&str] = &[
    "memcpy",
    "memmove",
    "__aeabi_memcpy",
    "__aeabi_memcpy4",
    "__aeabi_memcpy8",
    "__aeabi_memmove",
    "__aeabi_memmove4",
    "__aeabi_memmove8",
];

/// Kind of the internal event that marks where a copy began (never reported).
pub(super) const COPY_BEGIN: u8 = 0;
/// `tigris_trace_event_t` pool codes (tigris-runtime include/tigris_trace.h).
const POOL_FAST: u8 = 0;
const POOL_SLOW: u8 = 1;
const POOL_NONE: u8 = 0xFF;
/// Path codes of the stages (tigris-runtime include/tigris_trace.h).
const PATH_NORMAL: u8 = 0;
const PATH_TILED: u8 = 1;
const PATH_CHAIN: u8 = 7;
const NONE16: u16 = u16::MAX;
/// Largest tensor table read at every copy.
const MAX_TABLE: u16 = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CopyKind {
    Load,
    Spill,
    Move,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Copy {
    kind: CopyKind,
    tensor: Option<u16>,
    offset: u32,
    src_offset: u32,
    bytes: u32,
    /// Rows of the tensor copied, when its rows are contiguous.
    rows: Option<[i32; 2]>,
}

#[derive(Debug, Clone, Copy)]
enum What {
    Kernel { op: u16 },
    CopyBegin(Copy),
    CopyEnd,
}

/// One observed call, with the machine and the runtime's bump counters at that moment.
#[derive(Debug, Clone)]
pub(super) struct Seen {
    what: What,
    at: Snapshot,
    fast_used: u32,
    slow_used: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Frame {
    Run,
    Kernel,
    Copy,
}

/// A trapped call that has not returned yet.
#[derive(Debug, Clone, Copy)]
struct Pending {
    return_to: u32,
    sp: u32,
    frame: Frame,
}

/// The arenas and where the runtime keeps its state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Memory {
    pub(super) fast: (u32, u32),
    pub(super) slow: (u32, u32),
    /// `tensor_ptrs` and its length, as handed to `tigris_mem_init`.
    pub(super) table: u32,
    pub(super) tensors: u16,
}

impl Memory {
    fn in_fast(&self, a: u32) -> bool {
        a.wrapping_sub(self.fast.0) < self.fast.1
    }
    fn in_slow(&self, a: u32) -> bool {
        a.wrapping_sub(self.slow.0) < self.slow.1
    }
}

/// What the observer learnt of a run without trace events.
pub(super) struct Derivation {
    memory: Memory,
    /// Addresses of the runtime's `fast_used` and `slow_used` bump counters.
    counters: [Option<u32>; 2],
    pending: Vec<Pending>,
    /// Last slow-arena address seen in the tensor table, per tensor.
    homes: Vec<Option<u32>>,
    pub(super) seen: Vec<Seen>,
    units: Vec<Unit>,
    /// Unit and op position of the latest kernel call.
    last_kernel: Option<(Option<usize>, Option<usize>)>,
    /// The latest record as the trace event it stands for (`stage_begin`, `tile_begin`, `op`,
    /// `load`, ...): the live view steps by these.
    pub(super) last_kind: Option<&'static str>,
}

impl Derivation {
    /// At the start of a run of `plan`: `mem` is the run's `tigris_mem_t`, already initialised.
    pub(super) fn new(core: &dyn Core, plan: &Plan, memory: Memory, mem: u32) -> Derivation {
        Derivation {
            counters: find_counters(core, mem, &memory),
            homes: vec![None; memory.tensors.min(MAX_TABLE) as usize],
            memory,
            pending: Vec::new(),
            seen: Vec::new(),
            units: plan.units(),
            last_kernel: None,
            last_kind: None,
        }
    }

    /// Carry what earlier runs of the same firmware recorded.
    pub(super) fn continue_from(&mut self, earlier: Derivation) {
        self.seen = earlier.seen;
        self.last_kernel = earlier.last_kernel;
    }

    /// Whether the bump counters were found (else the fast and slow peaks come from the bus only).
    pub(super) fn has_counters(&self) -> bool {
        self.counters.iter().all(Option::is_some)
    }

    /// A trapped call is the executor's own: made inside a run, not from a kernel or a copy.
    pub(super) fn by_executor(&self) -> bool {
        self.pending.last().map(|p| p.frame) == Some(Frame::Run)
    }

    /// Time the call stopped at its entry until it returns to `return_to`.
    pub(super) fn push(&mut self, frame: Frame, return_to: u32, sp: u32) {
        self.pending.push(Pending {
            return_to,
            sp,
            frame,
        });
    }

    /// Execution reached `pc` with stack pointer `sp`: the frame of the call that returned there.
    pub(super) fn returned(&mut self, pc: u32, sp: u32) -> Option<Frame> {
        let top = self.pending.last()?;
        (top.return_to == pc && top.sp == sp).then(|| self.pending.pop().expect("a top").frame)
    }

    fn counter(&self, core: &dyn Core, k: usize) -> u32 {
        self.counters[k]
            .and_then(|a| read_word(core, a).ok())
            .unwrap_or(0)
    }

    fn record(&mut self, core: &dyn Core, what: What, at: Snapshot) {
        let (fast_used, slow_used) = (self.counter(core, 0), self.counter(core, 1));
        self.seen.push(Seen {
            what,
            at,
            fast_used,
            slow_used,
        });
    }

    pub(super) fn kernel(&mut self, core: &dyn Core, op: u16, at: Snapshot) {
        let unit = self.units.iter().position(|u| u.ops.contains(&op));
        let pos = unit.and_then(|u| self.units[u].ops.iter().position(|&k| k == op));
        self.last_kind = Some(match self.last_kernel {
            Some((u, _)) if u != unit => "stage_begin",
            None => "stage_begin",
            Some((_, p)) if pos <= p => "tile_begin",
            Some(_) => "op",
        });
        self.last_kernel = Some((unit, pos));
        self.record(core, What::Kernel { op }, at);
    }

    pub(super) fn copy_end(&mut self, core: &dyn Core, at: Snapshot) {
        self.record(core, What::CopyEnd, at);
    }

    /// What a copy `(dst, src, bytes)` called by the executor does, when it moves arena bytes;
    /// also the tensors newly seen in the slow arena, with their offsets.
    pub(super) fn classify(
        &mut self,
        core: &dyn Core,
        plan: &Plan,
        [dst, src, bytes]: [u32; 3],
    ) -> Option<(Copy, Vec<(u16, u32)>)> {
        let m = self.memory;
        let kind = match (
            m.in_slow(src),
            m.in_fast(src),
            m.in_slow(dst),
            m.in_fast(dst),
        ) {
            (true, _, _, true) => CopyKind::Load,
            (_, true, true, _) => CopyKind::Spill,
            (_, true, _, true) => CopyKind::Move,
            _ => return None,
        };
        let (table, placed) = self.refresh_homes(core);
        let (tensor, at) = match kind {
            CopyKind::Load => (self.home_of(plan, src), src),
            CopyKind::Spill => (self.home_of(plan, dst), dst),
            CopyKind::Move => (table.iter().position(|&p| p == dst).map(|t| t as u16), dst),
        };
        let rows = match (kind, tensor) {
            (CopyKind::Move, _) | (_, None) => None,
            (_, Some(t)) => {
                let home = self.homes[t as usize].expect("a home holds the tensor");
                plan.tensor_rows(t).map(|(_, rb)| {
                    let first = at - home;
                    [(first / rb) as i32, (first + bytes).div_ceil(rb) as i32]
                })
            }
        };
        let (offset, src_offset) = match kind {
            CopyKind::Load => (dst - m.fast.0, src - m.slow.0),
            CopyKind::Spill => (dst - m.slow.0, src - m.fast.0),
            CopyKind::Move => (dst - m.fast.0, src - m.fast.0),
        };
        let copy = Copy {
            kind,
            tensor,
            offset,
            src_offset,
            bytes,
            rows,
        };
        Some((copy, placed))
    }

    /// The copy `classify` described begins.
    pub(super) fn copy_begin(&mut self, core: &dyn Core, copy: Copy, at: Snapshot) {
        self.last_kind = Some(match copy.kind {
            CopyKind::Load => "load",
            CopyKind::Spill => "spill",
            CopyKind::Move => "move",
        });
        self.record(core, What::CopyBegin(copy), at);
    }

    /// Read the tensor table; remember every tensor it places in the slow arena. Returns the table
    /// and the tensors whose slow address is new.
    fn refresh_homes(&mut self, core: &dyn Core) -> (Vec<u32>, Vec<(u16, u32)>) {
        let n = self.homes.len();
        let mut raw = vec![0u8; 4 * n];
        if core.read_memory(self.memory.table, &mut raw).is_err() {
            return (Vec::new(), Vec::new());
        }
        let table: Vec<u32> = raw
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let mut placed = Vec::new();
        for (t, &p) in table.iter().enumerate() {
            if self.memory.in_slow(p) && self.homes[t] != Some(p) {
                self.homes[t] = Some(p);
                placed.push((t as u16, p - self.memory.slow.0));
            }
        }
        (table, placed)
    }

    /// The tensor whose slow-arena bytes hold `addr`.
    fn home_of(&self, plan: &Plan, addr: u32) -> Option<u16> {
        self.homes.iter().enumerate().find_map(|(t, h)| {
            let size = plan.tensors.get(t)?.size_bytes;
            h.filter(|&h| addr.wrapping_sub(h) < size).map(|_| t as u16)
        })
    }
}

fn read_word(core: &dyn Core, addr: u32) -> Result<u32, CoreError> {
    let mut b = [0u8; 4];
    core.read_memory(addr, &mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// The bump counters of `tigris_mem_t`: both runtime generations keep each arena as a base
/// pointer, its capacity and its bump offset, in that order (tigris-runtime include/tigris_mem.h;
/// firmware/tigris/tigris_rt.h), so each is the word two after the one holding the (aligned) base.
fn find_counters(core: &dyn Core, mem: u32, m: &Memory) -> [Option<u32>; 2] {
    const WORDS: u32 = 32;
    let words: Vec<u32> = (0..WORDS)
        .map_while(|i| read_word(core, mem + 4 * i).ok())
        .collect();
    let find = |(base, size): (u32, u32)| {
        words.windows(3).position(|w| {
            w[0].wrapping_sub(base) < 64 && w[1] <= size && w[1] + 64 >= size && w[2] <= w[1]
        })
    };
    [m.fast, m.slow].map(|arena| find(arena).map(|i| mem + 4 * (i as u32 + 2)))
}

/// The trace events a traced runtime would have delivered for what was seen.
pub(super) fn events(plan: &Plan, seen: &[Seen]) -> Vec<Captured> {
    let units = plan.units();
    let unit_of = |op: u16| units.iter().position(|u| u.ops.contains(&op));
    let kernel_unit: Vec<Option<usize>> = seen
        .iter()
        .map(|s| match s.what {
            What::Kernel { op } => unit_of(op),
            _ => None,
        })
        .collect();
    // A spill belongs with the kernels before it, everything else with the kernels after it.
    let attribution = attribute(seen, &kernel_unit);
    let mut out = Vec::new();
    let mut i = 0;
    while i < seen.len() {
        let Some(u) = attribution[i] else {
            i += 1;
            continue;
        };
        let end = (i..seen.len())
            .find(|&j| attribution[j].is_some_and(|v| v != u))
            .unwrap_or(seen.len());
        unit_events(plan, &units[u], &seen[i..end], &mut out);
        i = end;
    }
    out
}

/// For every record, the value of the kernel call it goes with (`per_kernel`: a value at each
/// kernel record): a kernel's own; a spill's is the kernel's before it, a load's or move's the
/// kernel's after it (the other side when there is none); a copy's end goes with its begin.
fn attribute<T: std::marker::Copy>(seen: &[Seen], per_kernel: &[Option<T>]) -> Vec<Option<T>> {
    let n = seen.len();
    let (mut before, mut after) = (vec![None; n], vec![None; n]);
    let mut last = None;
    for i in 0..n {
        last = per_kernel[i].or(last);
        before[i] = last;
    }
    last = None;
    for i in (0..n).rev() {
        last = per_kernel[i].or(last);
        after[i] = last;
    }
    let mut value = vec![None; n];
    for i in 0..n {
        value[i] = match seen[i].what {
            What::Kernel { .. } => per_kernel[i],
            What::CopyBegin(c) if c.kind == CopyKind::Spill => before[i].or(after[i]),
            What::CopyBegin(_) => after[i].or(before[i]),
            What::CopyEnd => i.checked_sub(1).and_then(|p| value[p]),
        };
    }
    value
}

fn event(kind: u8, pool: u8, stage: u16, s: &Seen) -> TraceEvent {
    TraceEvent {
        kind,
        pool,
        path: 0,
        stage,
        tensor: NONE16,
        op: NONE16,
        offset: 0,
        src_offset: 0,
        bytes: 0,
        rows: [-1, -1],
        cols: [-1, -1],
        fast_used: s.fast_used,
        slow_used: s.slow_used,
    }
}

/// The events of one unit's records.
fn unit_events(plan: &Plan, unit: &Unit, seen: &[Seen], out: &mut Vec<Captured>) {
    let tiles = tile_of(unit, seen);
    let tile_count = tiles.iter().max().map_or(0, |t| t + 1);
    let banded =
        matches!(unit.execution, Execution::Tiled | Execution::ChainHead) || tile_count > 1;
    let path = match unit.execution {
        Execution::ChainHead => PATH_CHAIN,
        _ if banded => PATH_TILED,
        _ => PATH_NORMAL,
    };
    let rows = if banded {
        tile_rows(plan, unit, seen, &tiles, tile_count)
    } else {
        Vec::new()
    };
    let push = |out: &mut Vec<Captured>, mut event: TraceEvent, s: &Seen| {
        event.path = path;
        out.push(Captured {
            event,
            at: s.at.clone(),
        });
    };
    let stage = unit.head;
    push(
        out,
        event(kind::STAGE_BEGIN, POOL_NONE, stage, &seen[0]),
        &seen[0],
    );
    let mut begin: Option<Copy> = None;
    for (i, s) in seen.iter().enumerate() {
        if banded && (i == 0 || tiles[i] != tiles[i - 1]) {
            let mut e = event(kind::TILE_BEGIN, POOL_NONE, stage, s);
            e.tensor = unit.bands.first().copied().unwrap_or(NONE16);
            e.op = tiles[i] as u16;
            if let Some((input, _)) = rows.get(tiles[i]) {
                e.rows = *input;
            }
            push(out, e, s);
        }
        match s.what {
            What::Kernel { op } => {
                let mut e = event(kind::OP, POOL_FAST, stage, s);
                e.op = op;
                let output = plan.op_output(op);
                e.tensor = output.unwrap_or(NONE16);
                let band = unit.ops.iter().position(|&k| k == op).map(|p| p + 1);
                let computed = band.and_then(|b| rows.get(tiles[i])?.1.get(b).copied());
                match (computed, output.and_then(|t| plan.tensor_rows(t))) {
                    (Some(r), Some((_, rb))) => {
                        e.rows = r;
                        e.bytes = (r[1] - r[0]).max(0) as u32 * rb;
                    }
                    _ => e.bytes = output.map_or(0, |t| plan.tensors[t as usize].size_bytes),
                }
                push(out, e, s);
            }
            What::CopyBegin(c) => {
                begin = Some(c);
                push(out, event(COPY_BEGIN, POOL_NONE, stage, s), s);
            }
            What::CopyEnd => {
                let Some(c) = begin.take() else { continue };
                let (k, pool) = match c.kind {
                    CopyKind::Load => (kind::LOAD, POOL_FAST),
                    CopyKind::Spill => (kind::SPILL, POOL_SLOW),
                    CopyKind::Move => (kind::MOVE, POOL_FAST),
                };
                let mut e = event(k, pool, stage, s);
                e.tensor = c.tensor.unwrap_or(NONE16);
                e.offset = c.offset;
                e.src_offset = c.src_offset;
                e.bytes = c.bytes;
                if let (true, Some(r)) = (banded, c.rows) {
                    e.rows = r;
                }
                push(out, e, s);
            }
        }
    }
    let last = seen.last().expect("a unit has records");
    push(out, event(kind::STAGE_END, POOL_NONE, stage, last), last);
}

/// The tile of every record: the unit's ops starting over begins a tile; the other records go
/// with a kernel call as [`attribute`] says.
fn tile_of(unit: &Unit, seen: &[Seen]) -> Vec<usize> {
    let n = seen.len();
    let mut kernel_tile = vec![None; n];
    let (mut tile, mut last) = (0usize, None);
    for (i, s) in seen.iter().enumerate() {
        if let What::Kernel { op } = s.what {
            let pos = unit.ops.iter().position(|&k| k == op);
            if last.is_some() && pos <= last {
                tile += 1;
            }
            last = pos;
            kernel_tile[i] = Some(tile);
        }
    }
    attribute(seen, &kernel_tile)
        .into_iter()
        .map(|t| t.unwrap_or(0))
        .collect()
}

/// Per tile: the input rows it needs (as TILE_BEGIN reports them) and the rows of every band it
/// computes, from the output rows it spilled.
fn tile_rows(
    plan: &Plan,
    unit: &Unit,
    seen: &[Seen],
    tiles: &[usize],
    count: usize,
) -> Vec<([i32; 2], Vec<[i32; 2]>)> {
    let output = unit.bands.last().copied();
    let mut produced = vec![0; unit.bands.len()];
    (0..count)
        .map(|t| {
            let out = seen
                .iter()
                .zip(tiles)
                .filter(|(_, &k)| k == t)
                .filter_map(|(s, _)| match s.what {
                    What::CopyBegin(c) if c.kind == CopyKind::Spill && c.tensor == output => c.rows,
                    _ => None,
                })
                .reduce(|a, b| [a[0].min(b[0]), a[1].max(b[1])]);
            let Some(out) = out else {
                return ([-1, -1], Vec::new());
            };
            let kept = produced.first().copied().unwrap_or(0);
            let bands = plan.band_rows(unit, out, &mut produced);
            let input = match bands.first() {
                Some(b) if b.skip => [kept, kept],
                Some(b) => b.need,
                None => [-1, -1],
            };
            (input, bands.iter().map(|b| [b.new0, b.need[1]]).collect())
        })
        .collect()
}
