//! Execution engine: decoded-block cache, run loop and instruction semantics.
//!
//! Semantics: fact sheet xtensa.md §2.7 (core), §2.4 (MAC16), §3.2 (dispatch), §3.3 (windows),
//! §3.4 (zero-overhead loops). Timing: §5.1 suggestion (named parameters in `XtensaTiming`).
//!
//! Speed notes (host instructions per guest instruction are what counts; docs/xtensa.md "Speed"):
//! - Between blocks the run loop tests everything that can stop the run or redirect the core
//!   (code written, timers, pending interrupts, WAITI, budgets) in one combined condition; the rare
//!   work behind it is out of line (`Cpu::between_blocks`), in the same order as before.
//! - The direct-mapped block table holds the block descriptors themselves (16 bytes), read in place.
//! - Instruction and cycle counts are not maintained per instruction: every cached instruction knows
//!   its index and the cumulative cost of its block up to itself (`Insn::idx`, `Insn::cum_cost`), so
//!   an exit adds both once. Likewise its PC is `block start + Insn::off`, computed only where used,
//!   and operands are read from the instruction where used.
//! - Register windows cost nothing per access: `Cpu::ar` is kept rotated to the current window.
//! - A block runs in segments cut where a fall-through reaches LEND, so no instruction tests LEND.
//! - Cores without windows and zero-overhead loops (LX106) run a variant without that code.

use std::collections::{HashMap, HashSet};

use super::bus::{BusFault, XtensaBus};
use super::config::XtensaConfig;
use super::cpu::*;
use super::decode::{decode, mac_fields, Insn, Op};

/// Longest decoded block.
const MAX_BLOCK: usize = 64;
const FAST_SLOTS: usize = 4096;

/// Descriptor of a decoded block; its instructions are `BlockCache::insns[start..start + n]`.
#[derive(Clone, Copy)]
struct Block {
    /// Start PC (`u32::MAX` marks an empty slot of the fast table).
    pc: u32,
    start: u32,
    /// Bytes of code the block covers (at most `MAX_BLOCK` × 4).
    bytes: u16,
    /// Number of instructions (at most `MAX_BLOCK`).
    n: u8,
    /// Highest AR pane named by any instruction of the block (window-overflow pre-check).
    max_pane: u8,
    /// `BLK_*` bits.
    flags: u8,
}

/// A breakpoint is set at the block's start.
const BLK_BP: u8 = 1;
/// `XtensaBus::fetch_priced` of the start PC: `block_fetch` is called only when set.
const BLK_FETCH: u8 = 2;

const EMPTY_SLOT: Block = Block { pc: u32::MAX, start: 0, bytes: 0, n: 0, max_pane: 0, flags: 0 };

struct BlockCache {
    map: HashMap<u32, u32>,
    blocks: Vec<Block>,
    insns: Vec<Insn>,
    /// Direct-mapped by PC: the hot path needs no hashing and touches one cache line per lookup.
    fast: Box<[Block; FAST_SLOTS]>,
    generation: u64,
}

impl BlockCache {
    fn new() -> Self {
        BlockCache {
            map: HashMap::new(),
            blocks: Vec::new(),
            insns: Vec::new(),
            fast: Box::new([EMPTY_SLOT; FAST_SLOTS]),
            generation: 0,
        }
    }

    fn flush(&mut self) {
        self.map.clear();
        self.blocks.clear();
        self.insns.clear();
        self.fast.fill(EMPTY_SLOT);
    }

    #[inline(always)]
    fn slot(pc: u32) -> usize {
        ((pc ^ (pc >> 12)) as usize) & (FAST_SLOTS - 1)
    }

    /// Put the block at `pc` into fast-table slot `slot`, decoding it if it is not cached.
    #[cold]
    #[inline(never)]
    fn fill<B: XtensaBus>(
        &mut self,
        slot: usize,
        pc: u32,
        bps: &HashSet<u32>,
        cfg: &XtensaConfig,
        bus: &mut B,
    ) -> Result<(), BusFault> {
        let i = match self.map.get(&pc) {
            Some(&i) => i,
            None => build_block(self, bps, cfg, bus, pc)?,
        };
        self.fast[slot] = self.blocks[i as usize];
        Ok(())
    }
}

/// What the between-blocks checks decided.
enum Between {
    /// Execute the block at `cpu.pc`.
    Go,
    /// Time was skipped while waiting: check again.
    Again,
    Stop(StopReason),
}

/// An Xtensa core with its decoded-block cache.
pub struct Xtensa {
    /// Architectural state and counters.
    pub cpu: Cpu,
    cache: BlockCache,
    breakpoints: HashSet<u32>,
    bp_resume: Option<u32>,
}

impl Xtensa {
    /// A core in its reset state.
    pub fn new(cfg: XtensaConfig) -> Self {
        Xtensa { cpu: Cpu::new(cfg), cache: BlockCache::new(), breakpoints: HashSet::new(), bp_resume: None }
    }

    /// Reset the architectural state (keeps breakpoints and policies).
    pub fn reset(&mut self) {
        let cfg = self.cpu.cfg.clone();
        let (soe, sode, bs, bfe) = (
            self.cpu.stop_on_exception,
            self.cpu.stop_on_double_exception,
            self.cpu.break_stops,
            self.cpu.bus_fault_exceptions,
        );
        self.cpu = Cpu::new(cfg);
        self.cpu.stop_on_exception = soe;
        self.cpu.stop_on_double_exception = sode;
        self.cpu.break_stops = bs;
        self.cpu.bus_fault_exceptions = bfe;
        self.cache.flush();
    }

    /// Drop all decoded blocks (call after writing code memory behind the bus's back).
    pub fn invalidate_all(&mut self) {
        self.cache.flush();
    }

    /// Drop decoded blocks that may overlap `[addr, addr + len)` (currently: all blocks).
    pub fn invalidate(&mut self, addr: u32, len: u32) {
        let _ = (addr, len);
        self.cache.flush();
    }

    /// Stop `run` with `StopReason::Breakpoint` before executing `addr` (e.g. for HLE of ROM calls).
    pub fn add_breakpoint(&mut self, addr: u32) {
        if self.breakpoints.insert(addr) {
            self.cache.flush();
        }
    }

    pub fn remove_breakpoint(&mut self, addr: u32) {
        if self.breakpoints.remove(&addr) {
            self.cache.flush();
        }
    }

    /// Execute one instruction (or take one pending interrupt).
    pub fn step<B: XtensaBus>(&mut self, bus: &mut B) -> StopReason {
        self.run(bus, &mut NoHooks, 1, u64::MAX)
    }

    /// Run until a stop event, `max_insns` more instructions or `max_cycles` more cycles
    /// (checked at block boundaries for cycles; instructions are exact).
    pub fn run<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        max_insns: u64,
        max_cycles: u64,
    ) -> StopReason {
        // The LX106 variant drops window arithmetic and the LEND test; the general one serves every
        // configuration (without windows WINDOWBASE stays 0 and no pane is ever out of reach).
        if !self.cpu.cfg.windowed && !self.cpu.cfg.loops {
            self.run_loop::<B, H, false, false>(bus, hooks, max_insns, max_cycles)
        } else {
            self.run_loop::<B, H, true, true>(bus, hooks, max_insns, max_cycles)
        }
    }

    #[inline(always)]
    fn run_loop<B: XtensaBus, H: XtensaHooks, const WIN: bool, const LOOPS: bool>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        max_insns: u64,
        max_cycles: u64,
    ) -> StopReason {
        let insn_end = self.cpu.insns.saturating_add(max_insns);
        let cycle_end = self.cpu.cycles.saturating_add(max_cycles);
        self.cpu.set_run_end(cycle_end);
        let mut bp_skip = self.bp_resume.take();
        let mut mem_owner = hooks.memory_owner();
        bus.set_owner(mem_owner);
        loop {
            let cpu = &mut self.cpu;
            let g = bus.code_generation();
            cpu.cycles += bus.take_stall_cycles();
            // One test for everything that can happen between blocks (non-short-circuit `|`: one
            // branch); when none applies, the checks behind it would all fall through.
            if (g != self.cache.generation)
                | cpu.irq_check
                | cpu.waiting
                | (cpu.insns >= insn_end)
                | (cpu.cycles >= cpu.cycle_stop)
            {
                if g != self.cache.generation {
                    self.cache.flush();
                    self.cache.generation = g;
                }
                match self.cpu.between_blocks(hooks, insn_end, cycle_end) {
                    Between::Go => {}
                    Between::Again => continue,
                    Between::Stop(stop) => return stop,
                }
            }
            let pc = self.cpu.pc;
            // Block lookup: the direct-mapped table; on a miss the map, then the decoder.
            let slot = BlockCache::slot(pc);
            if self.cache.fast[slot].pc != pc {
                if let Err(f) = self.cache.fill(slot, pc, &self.breakpoints, &self.cpu.cfg, bus) {
                    let cpu = &mut self.cpu;
                    if cpu.bus_fault_exceptions && cpu.ps & PS_EXCM == 0 {
                        if let Some(stop) = cpu.raise_exception(hooks, cause::INSTR_FETCH_ERROR, pc, Some(f.addr)) {
                            return stop;
                        }
                        continue;
                    }
                    return StopReason::BusFault { pc, addr: f.addr, kind: AccessKind::Fetch };
                }
            }
            let blk = &self.cache.fast[slot];
            if blk.flags & BLK_BP != 0 && bp_skip != Some(pc) {
                self.bp_resume = Some(pc);
                return StopReason::Breakpoint { pc };
            }
            bp_skip = None;
            let cpu = &mut self.cpu;
            hooks.block_start(pc, cpu.cycles, cpu.insns);
            // Memory traffic from here on is charged to whoever the observer says runs this block
            // (it changes only when the observer was told of a block).
            let owner = hooks.memory_owner();
            if owner != mem_owner {
                mem_owner = owner;
                bus.set_owner(owner);
            }
            if blk.flags & BLK_FETCH != 0 {
                bus.block_fetch(pc, blk.bytes as u32);
            }
            let n = (blk.n as u64).min(insn_end - cpu.insns) as usize;
            let start = blk.start as usize;
            let insns = &self.cache.insns[start..start + n];
            let lim = BlockLimits {
                insn_end,
                cycle_limit: cpu.cycle_stop,
                generation: self.cache.generation,
                max_pane: blk.max_pane,
                bytes: blk.bytes as u32,
                fetch: blk.flags & BLK_FETCH != 0,
            };
            let stopped = if WIN && blk.max_pane > cpu.win_limit {
                cpu.exec_block::<B, H, true, WIN, LOOPS>(bus, hooks, insns, pc, lim)
            } else {
                cpu.exec_block::<B, H, false, WIN, LOOPS>(bus, hooks, insns, pc, lim)
            };
            if stopped {
                if let Some(stop) = cpu.stop.take() {
                    return stop;
                }
            }
        }
    }
}

impl Cpu {
    /// The between-blocks work of the run loop, in its order: timers, interrupts, WAITI, budgets.
    #[cold]
    #[inline(never)]
    fn between_blocks<H: XtensaHooks>(&mut self, hooks: &mut H, insn_end: u64, cycle_end: u64) -> Between {
        if self.cycles >= self.next_timer {
            self.fire_timers();
        }
        if self.irq_check {
            if let Some(stop) = self.check_interrupts(hooks) {
                return Between::Stop(stop);
            }
        }
        if self.waiting {
            return match self.wake_cycle() {
                Some(c) => {
                    if c > cycle_end {
                        let skip = cycle_end.saturating_sub(self.cycles);
                        self.cycles += skip;
                        self.idle_cycles += skip;
                        return Between::Stop(StopReason::CycleLimit { pc: self.pc });
                    }
                    let skip = c.saturating_sub(self.cycles);
                    self.cycles += skip;
                    self.idle_cycles += skip;
                    Between::Again
                }
                None => Between::Stop(StopReason::WaitI { pc: self.pc, level: self.ps & PS_INTLEVEL }),
            };
        }
        if self.insns >= insn_end {
            return Between::Stop(StopReason::InsnLimit { pc: self.pc });
        }
        if self.cycles >= cycle_end {
            return Between::Stop(StopReason::CycleLimit { pc: self.pc });
        }
        Between::Go
    }
}

/// Bounds within which `exec_block` may re-run a zero-overhead loop body without returning.
#[derive(Clone, Copy)]
pub(crate) struct BlockLimits {
    insn_end: u64,
    /// The cycle budget's end or the next timer match, whichever comes first (as at block entry).
    cycle_limit: u64,
    generation: u64,
    max_pane: u8,
    bytes: u32,
    fetch: bool,
}

/// Decode the block starting at `pc` into the cache.
fn build_block<B: XtensaBus>(
    cache: &mut BlockCache,
    bps: &HashSet<u32>,
    cfg: &XtensaConfig,
    bus: &mut B,
    pc: u32,
) -> Result<u32, BusFault> {
    let start = cache.insns.len();
    let mut p = pc;
    loop {
        let w = match bus.fetch(p) {
            Ok(w) => w,
            Err(f) => {
                if p == pc {
                    return Err(f);
                }
                break;
            }
        };
        let mut insn = decode(w, p, cfg);
        insn.cost = static_cost(&insn, cfg).min(255) as u8;
        if insn.op == Op::L32r {
            // The literal's address without LITBASE is fixed: ((PC + 3) & ~3) + offset.
            insn.imm = (p.wrapping_add(3) & !3).wrapping_add(insn.imm);
        }
        // The engine indexes `Cpu::ar` with these fields unmasked (PIE keeps a table index in `r`).
        debug_assert!(insn.op == Op::Ee || (insn.r | insn.s | insn.t) < 16);
        cache.insns.push(insn);
        p = p.wrapping_add(insn.len as u32);
        if insn.op == Op::Illegal || insn.ends_block() || cache.insns.len() - start >= MAX_BLOCK || bps.contains(&p)
        {
            break;
        }
    }
    // Load-use interlock: a load whose AR result the next instruction names (§5.1 / S8 model).
    let end = cache.insns.len();
    for i in start..end.saturating_sub(1) {
        let (a, b) = (cache.insns[i], cache.insns[i + 1]);
        if a.is_ar_load() && b.names_ar(a.t) {
            cache.insns[i].cost = cache.insns[i].cost.saturating_add(cfg.timing.load_use as u8);
        }
    }
    // Positions within the block (at most 64 instructions of at most 4 bytes, each cost < 256).
    let mut cum = 0u16;
    let mut off = 0u32;
    for (k, insn) in cache.insns[start..end].iter_mut().enumerate() {
        cum += insn.cost as u16;
        insn.cum_cost = cum;
        insn.idx = k as u8;
        insn.off = off as u8;
        off += insn.len as u32;
    }
    let idx = cache.blocks.len() as u32;
    let max_pane = cache.insns[start..end].iter().map(|i| i.pane).max().unwrap_or(0);
    let bytes = p.wrapping_sub(pc);
    debug_assert_eq!(bytes, off);
    let mut flags = 0;
    if bps.contains(&pc) {
        flags |= BLK_BP;
    }
    if bus.fetch_priced(pc) {
        flags |= BLK_FETCH;
    }
    let n = (end - start) as u8;
    cache.blocks.push(Block { pc, start: start as u32, bytes: bytes as u16, n, max_pane, flags });
    cache.map.insert(pc, idx);
    Ok(idx)
}

/// Index of the instruction of `insns` (a block starting at `pc0`) that LEND follows, i.e. where a
/// fall-through reaches LEND; `NO_LEND` when none does.
#[cold]
#[inline(never)]
fn lend_index(insns: &[Insn], pc0: u32, lend: u32) -> u8 {
    let off = lend.wrapping_sub(pc0);
    insns.iter().find(|i| i.off as u32 + i.len as u32 == off).map_or(NO_LEND, |i| i.idx)
}

/// `lend_index` when no instruction of the block is followed by LEND (no index reaches 255).
const NO_LEND: u8 = u8::MAX;

fn static_cost(insn: &Insn, cfg: &XtensaConfig) -> u32 {
    use Op::*;
    let t = &cfg.timing;
    t.base
        + match insn.op {
            Mul16u | Mul16s | Mull | Muluh | Mulsh => t.mul,
            UmulAa | MulAa | MulaAa | MulsAa | MulAd | MulaAd | MulsAd | MulDa | MulaDa | MulsDa | MulDd
            | MulaDd | MulsDd | MulaDaLdinc | MulaDaLddec | MulaDdLdinc | MulaDdLddec => t.mul,
            Quou | Quos | Remu | Rems => t.div,
            AddS | SubS | MulS | MaddS | MsubS | RoundS | TruncS | FloorS | CeilS | FloatS | UfloatS
            | UtruncS => t.fp,
            _ => 0,
        }
}

#[inline(always)]
fn half(v: u32, hi: bool, signed: bool) -> i64 {
    let h = if hi { v >> 16 } else { v & 0xFFFF };
    if signed {
        h as u16 as i16 as i64
    } else {
        h as i64
    }
}

#[inline(always)]
fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// Float → int conversions of ROUND/TRUNC/FLOOR/CEIL/UTRUNC.S: saturating, NaN → max [Q].
fn f2i(x: f32, mode: u8) -> u32 {
    if x.is_nan() {
        return i32::MAX as u32;
    }
    let y = match mode {
        0 => x.round_ties_even(),
        1 => x.trunc(),
        2 => x.floor(),
        _ => x.ceil(),
    };
    (y as i32) as u32
}

impl Cpu {
    #[inline(always)]
    pub(crate) fn load<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        addr: u32,
        size: u32,
        pc: u32,
    ) -> Result<u32, Option<StopReason>> {
        if self.align_exc && addr & (size - 1) != 0 {
            return Err(self.raise_exception(hooks, cause::LOAD_STORE_ALIGNMENT, pc, Some(addr)));
        }
        match bus.read(addr, size) {
            Ok(v) => Ok(v),
            Err(f) => Err(self.bus_fault(hooks, pc, f, AccessKind::Read)),
        }
    }

    #[inline(always)]
    pub(crate) fn store<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        addr: u32,
        size: u32,
        v: u32,
        pc: u32,
    ) -> Result<(), Option<StopReason>> {
        if self.align_exc && addr & (size - 1) != 0 {
            return Err(self.raise_exception(hooks, cause::LOAD_STORE_ALIGNMENT, pc, Some(addr)));
        }
        match bus.write(addr, size, v) {
            Ok(()) => Ok(()),
            Err(f) => Err(self.bus_fault(hooks, pc, f, AccessKind::Write)),
        }
    }

    #[cold]
    fn bus_fault<H: XtensaHooks>(&mut self, hooks: &mut H, pc: u32, f: BusFault, kind: AccessKind) -> Option<StopReason> {
        if self.bus_fault_exceptions {
            self.raise_exception(hooks, cause::LOAD_STORE_ERROR, pc, Some(f.addr))
        } else {
            self.pc = pc;
            Some(StopReason::BusFault { pc, addr: f.addr, kind })
        }
    }

    /// At LEND on fall-through: whether the zero-overhead loop goes back (LCOUNT ≠ 0 outside an
    /// exception), decrementing LCOUNT when it does. Out of line: rare outside loop bodies.
    #[inline(never)]
    fn loop_back(&mut self) -> bool {
        if self.lcount != 0 && self.ps & PS_EXCM == 0 {
            self.lcount -= 1;
            true
        } else {
            false
        }
    }

    #[inline(always)]
    fn take(&mut self, target: u32) {
        self.pc = target;
        self.cycles += self.t_taken;
    }

    #[inline(always)]
    fn mac(&mut self, x: u32, y: u32, h: u32, kind: u8) {
        // h: 0 LL, 1 HL, 2 LH, 3 HH; first letter = first source (§2.4)
        let signed = kind != 0;
        let p = half(x, h & 1 != 0, signed) * half(y, h & 2 != 0, signed);
        let acc = self.acc as i64;
        let v = match kind {
            0 | 1 => p,
            2 => acc.wrapping_add(p),
            _ => acc.wrapping_sub(p),
        };
        self.acc = (v as u64) & 0xFF_FFFF_FFFF;
    }

    #[inline(always)]
    fn fp_enabled<H: XtensaHooks>(&mut self, hooks: &mut H, pc: u32) -> Result<(), Option<StopReason>> {
        if self.cpenable & 1 == 0 {
            Err(self.raise_exception(hooks, cause::COPROCESSOR0_DISABLED, pc, None))
        } else {
            Ok(())
        }
    }

    #[inline(always)]
    fn setb(&mut self, b: u8, v: bool) {
        self.br = (self.br & !(1 << b)) | ((v as u32) << b);
    }

    #[inline(always)]
    fn getb(&self, b: u8) -> bool {
        self.br & (1 << b) != 0
    }

    /// Execute (a prefix of) the decoded block starting at `pc0`; `insns` are its instructions up
    /// to the instruction budget. Sets `self.pc` for the next block and adds the instructions and
    /// their static cycles to the counters. Returns true when the run must stop, with the reason in
    /// `self.stop` (a flag is cheaper to pass back than the reason itself on every block).
    /// `WCHK`: the block names a pane above the current window limit, so check each instruction.
    /// `WIN`: the core has the windowed-register option (without it, those instructions are never
    /// decoded and their code is left out).
    /// `LOOPS`: zero-overhead loops may be active (blocks are cut at LEND).
    #[inline(always)]
    pub(crate) fn exec_block<B: XtensaBus, H: XtensaHooks, const WCHK: bool, const WIN: bool, const LOOPS: bool>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        insns: &[Insn],
        pc0: u32,
        lim: BlockLimits,
    ) -> bool {
        use Op::*;
        // The counters are brought up to date when the block (or a loop pass) is left, from the last
        // instruction executed (`Insn::idx`, `Insn::cum_cost`); out-of-line instructions see them
        // current for their duration.
        // Index of the instruction after which a fall-through reaches LEND, if LEND lies within this
        // block, else `NO_LEND` (a segment ends there).
        let lend_at = |insns: &[Insn], lend: u32| {
            if LOOPS && lend.wrapping_sub(pc0).wrapping_sub(1) < lim.bytes {
                lend_index(insns, pc0, lend)
            } else {
                NO_LEND
            }
        };
        let mut lend_idx = lend_at(insns, self.lend);
        let (stopped, end_n, end_cyc): (bool, u32, u32) = 'ex: {
        // The block runs in segments that end where a fall-through reaches LEND (or at the block's
        // end), so that no instruction pays for the LEND test: `insns[from..to]` is the segment.
        let mut from = 0;
        'seg: loop {
        let mut to = if lend_idx != NO_LEND && lend_idx as usize >= from {
            lend_idx as usize + 1
        } else {
            insns.len()
        };
        for insn in &insns[from..to] {
            // Operands and addresses are read or computed where an instruction uses them: binding
            // them up front costs every instruction the loads and adds.
            macro_rules! pc {
                () => {
                    pc0.wrapping_add(insn.off as u32)
                };
            }
            macro_rules! next {
                () => {
                    pc!().wrapping_add(insn.len as u32)
                };
            }
            if WCHK && insn.pane > self.win_limit {
                // Before the instruction: it does not count.
                self.window_overflow(hooks, pc!());
                break 'ex (false, insn.idx as u32, insn.cum_cost as u32 - insn.cost as u32);
            }
            // Leave the block after this instruction.
            macro_rules! exit {
                ($stop:expr) => {{
                    let stop: Option<StopReason> = $stop;
                    let stopped = stop.is_some();
                    if stopped {
                        self.stop = stop;
                    }
                    break 'ex (stopped, insn.idx as u32 + 1, insn.cum_cost as u32)
                }};
            }
            // Rare instructions run out of line, with the counters current while they run (taken
            // back afterwards: the exit adds the whole pass). Wrapping: a BREAK that stops takes
            // itself back too, so the counters may dip below their value at entry until the exit.
            macro_rules! out_of_line {
                ($call:expr) => {{
                    let (n, c) = (insn.idx as u64 + 1, insn.cum_cost as u64);
                    self.insns += n;
                    self.cycles += c;
                    let flow = $call;
                    self.insns = self.insns.wrapping_sub(n);
                    self.cycles = self.cycles.wrapping_sub(c);
                    match flow {
                        Flow::Next => lend_moved!(lend_at(insns, self.lend)),
                        Flow::Exit(x) => exit!(x),
                    }
                }};
            }
            // LEND may have moved into or within this block: end the segment after this
            // instruction, so that the next one is cut at the new LEND.
            macro_rules! lend_moved {
                ($new:expr) => {{
                    let new = $new;
                    if new != lend_idx {
                        lend_idx = new;
                        to = insn.idx as usize + 1;
                        break;
                    }
                }};
            }
            macro_rules! mm {
                ($e:expr) => {
                    match $e {
                        Ok(v) => v,
                        Err(stop) => exit!(stop),
                    }
                };
            }
            // a<r>, a<s>, a<t> of the instruction (a `u8` index into `Cpu::ar`: no bounds check), or
            // a<i> for a register number i below 16.
            macro_rules! a {
                (r) => { self.ar[insn.r as usize] };
                (s) => { self.ar[insn.s as usize] };
                (t) => { self.ar[insn.t as usize] };
                ($i:expr) => {
                    self.ar[((($i) as u32) & 15) as usize]
                };
            }
            macro_rules! sa {
                (r, $v:expr) => {{ let v: u32 = $v; self.ar[insn.r as usize] = v }};
                (s, $v:expr) => {{ let v: u32 = $v; self.ar[insn.s as usize] = v }};
                (t, $v:expr) => {{ let v: u32 = $v; self.ar[insn.t as usize] = v }};
                ($i:expr, $v:expr) => {{
                    let v: u32 = $v;
                    self.ar[((($i) as u32) & 15) as usize] = v
                }};
            }
            macro_rules! br {
                ($cond:expr) => {{
                    if $cond {
                        self.take(insn.imm);
                        exit!(None);
                    }
                }};
            }
            macro_rules! exc {
                ($c:expr) => {
                    exit!(self.raise_exception(hooks, $c, pc!(), None))
                };
            }
            match insn.op {
                Illegal | Ill | IllN => exc!(cause::ILLEGAL),
                // ---- ALU ----
                And => sa!(r, a!(s) & a!(t)),
                Or => sa!(r, a!(s) | a!(t)),
                Xor => sa!(r, a!(s) ^ a!(t)),
                Add | AddN => sa!(r, a!(s).wrapping_add(a!(t))),
                Addx2 => sa!(r, (a!(s) << 1).wrapping_add(a!(t))),
                Addx4 => sa!(r, (a!(s) << 2).wrapping_add(a!(t))),
                Addx8 => sa!(r, (a!(s) << 3).wrapping_add(a!(t))),
                Sub => sa!(r, a!(s).wrapping_sub(a!(t))),
                Subx2 => sa!(r, (a!(s) << 1).wrapping_sub(a!(t))),
                Subx4 => sa!(r, (a!(s) << 2).wrapping_sub(a!(t))),
                Subx8 => sa!(r, (a!(s) << 3).wrapping_sub(a!(t))),
                Neg => sa!(r, a!(t).wrapping_neg()),
                Abs => sa!(r, (a!(t) as i32).wrapping_abs() as u32),
                Addi => sa!(t, a!(s).wrapping_add(insn.imm)),
                Addmi => sa!(t, a!(s).wrapping_add(insn.imm)),
                AddiN => sa!(r, a!(s).wrapping_add(insn.imm)),
                Movi => sa!(t, insn.imm),
                MoviN => sa!(s, insn.imm),
                MovN => sa!(t, a!(s)),
                Salt => sa!(r, ((a!(s) as i32) < (a!(t) as i32)) as u32),
                Saltu => sa!(r, (a!(s) < a!(t)) as u32),
                Moveqz => {
                    if a!(t) == 0 {
                        sa!(r, a!(s))
                    }
                }
                Movnez => {
                    if a!(t) != 0 {
                        sa!(r, a!(s))
                    }
                }
                Movltz => {
                    if (a!(t) as i32) < 0 {
                        sa!(r, a!(s))
                    }
                }
                Movgez => {
                    if (a!(t) as i32) >= 0 {
                        sa!(r, a!(s))
                    }
                }
                Movf => {
                    if !self.getb(insn.t) {
                        sa!(r, a!(s))
                    }
                }
                Movt => {
                    if self.getb(insn.t) {
                        sa!(r, a!(s))
                    }
                }
                Min => sa!(r, (a!(s) as i32).min(a!(t) as i32) as u32),
                Max => sa!(r, (a!(s) as i32).max(a!(t) as i32) as u32),
                Minu => sa!(r, a!(s).min(a!(t))),
                Maxu => sa!(r, a!(s).max(a!(t))),
                Sext => {
                    // sign-extend from bit b = t + 7 (§2.2, §2.7)
                    let sh = 31 - ((insn.t as u32) + 7);
                    sa!(r, (((a!(s) << sh) as i32) >> sh) as u32)
                }
                Clamps => {
                    let b = (insn.t as u32) + 7;
                    let lo = -(1i64 << b);
                    let hi = (1i64 << b) - 1;
                    sa!(r, ((a!(s) as i32 as i64).clamp(lo, hi)) as i32 as u32)
                }
                Nsa => {
                    // redundant sign bits; 31 for 0 and −1 (§2.7)
                    let v = a!(s);
                    let x = if (v as i32) < 0 { !v } else { v };
                    sa!(t, if x == 0 { 31 } else { x.leading_zeros() - 1 })
                }
                Nsau => sa!(t, a!(s).leading_zeros()),
                // ---- shifts (§2.7 "Shifts and SAR") ----
                Slli => sa!(r, ((a!(s) as u64) << insn.imm) as u32),
                Srai => sa!(r, ((a!(t) as i32) >> insn.imm) as u32),
                Srli => sa!(r, a!(t) >> insn.imm),
                Extui => {
                    let sh = insn.imm & 0xFF;
                    let w = insn.imm >> 8;
                    let mask = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
                    sa!(r, ((a!(t) as u64 >> sh) as u32) & mask)
                }
                Ssr => self.sar = a!(s) & 31,
                Ssl => self.sar = 32 - (a!(s) & 31),
                Ssa8l => self.sar = (a!(s) & 3) * 8,
                Ssa8b => self.sar = 32 - (a!(s) & 3) * 8,
                Ssai => self.sar = insn.imm,
                Src => {
                    let v = ((a!(s) as u64) << 32) | a!(t) as u64;
                    sa!(r, (v >> self.sar) as u32)
                }
                Srl => sa!(r, ((a!(t) as u64) >> self.sar) as u32),
                Sra => sa!(r, ((a!(t) as i32 as i64) >> self.sar) as u32),
                Sll => sa!(r, (((a!(s) as u64) << 32) >> self.sar) as u32),
                // ---- multiply / divide ----
                Mul16u => sa!(r, (a!(s) & 0xFFFF) * (a!(t) & 0xFFFF)),
                Mul16s => sa!(r, ((a!(s) as i16 as i32) * (a!(t) as i16 as i32)) as u32),
                Mull => sa!(r, a!(s).wrapping_mul(a!(t))),
                Muluh => sa!(r, ((a!(s) as u64 * a!(t) as u64) >> 32) as u32),
                Mulsh => sa!(r, ((a!(s) as i32 as i64 * a!(t) as i32 as i64) >> 32) as u32),
                Quou | Quos | Remu | Rems => {
                    let (x, y) = (a!(s), a!(t));
                    if y == 0 {
                        exc!(cause::DIVIDE_BY_ZERO);
                    }
                    // QUOS(−2^31, −1) = −2^31, REMS = 0 (§2.7) — wrapping ops give exactly that.
                    let v = match insn.op {
                        Quou => x / y,
                        Remu => x % y,
                        Quos => (x as i32).wrapping_div(y as i32) as u32,
                        _ => (x as i32).wrapping_rem(y as i32) as u32,
                    };
                    sa!(r, v)
                }
                // ---- loads / stores ----
                L8ui => {
                    let v = mm!(self.load(bus, hooks, a!(s).wrapping_add(insn.imm), 1, pc!()));
                    sa!(t, v)
                }
                L16ui => {
                    let v = mm!(self.load(bus, hooks, a!(s).wrapping_add(insn.imm), 2, pc!()));
                    sa!(t, v)
                }
                L16si => {
                    let v = mm!(self.load(bus, hooks, a!(s).wrapping_add(insn.imm), 2, pc!()));
                    sa!(t, v as u16 as i16 as i32 as u32)
                }
                L32i | L32iN | L32ai | L32e => {
                    let v = mm!(self.load(bus, hooks, a!(s).wrapping_add(insn.imm), 4, pc!()));
                    sa!(t, v)
                }
                S8i => mm!(self.store(bus, hooks, a!(s).wrapping_add(insn.imm), 1, a!(t), pc!())),
                S16i => mm!(self.store(bus, hooks, a!(s).wrapping_add(insn.imm), 2, a!(t), pc!())),
                S32i | S32iN | S32ri | S32e | S32nb => {
                    mm!(self.store(bus, hooks, a!(s).wrapping_add(insn.imm), 4, a!(t), pc!()))
                }
                L32r => {
                    // §2.2: ((PC + 3) & ~3) + offset, or (LITBASE & ~0xFFF) + offset when LITBASE[0] = 1.
                    // The block holds the first sum (see `build_block`).
                    let addr = if self.litbase & 1 != 0 {
                        let offset = insn.imm.wrapping_sub(pc!().wrapping_add(3) & !3);
                        (self.litbase & 0xFFFF_F000).wrapping_add(offset)
                    } else {
                        insn.imm
                    };
                    let v = mm!(self.load(bus, hooks, addr, 4, pc!()));
                    sa!(t, v)
                }
                S32c1i => {
                    // §2.7: old = mem; if old == SCOMPARE1 store at; at = old
                    let addr = a!(s).wrapping_add(insn.imm);
                    let old = mm!(self.load(bus, hooks, addr, 4, pc!()));
                    if old == self.scompare1 {
                        mm!(self.store(bus, hooks, addr, 4, a!(t), pc!()));
                    }
                    sa!(t, old)
                }
                // ---- branches ----
                Beqz | BeqzN => br!(a!(s) == 0),
                Bnez | BnezN => br!(a!(s) != 0),
                Bltz => br!((a!(s) as i32) < 0),
                Bgez => br!((a!(s) as i32) >= 0),
                Beqi => br!(a!(s) as i32 == super::decode::B4CONST[(insn.r as u32) as usize]),
                Bnei => br!(a!(s) as i32 != super::decode::B4CONST[(insn.r as u32) as usize]),
                Blti => br!((a!(s) as i32) < super::decode::B4CONST[(insn.r as u32) as usize]),
                Bgei => br!((a!(s) as i32) >= super::decode::B4CONST[(insn.r as u32) as usize]),
                Bltui => br!(a!(s) < super::decode::B4CONSTU[(insn.r as u32) as usize]),
                Bgeui => br!(a!(s) >= super::decode::B4CONSTU[(insn.r as u32) as usize]),
                Beq => br!(a!(s) == a!(t)),
                Bne => br!(a!(s) != a!(t)),
                Blt => br!((a!(s) as i32) < (a!(t) as i32)),
                Bge => br!((a!(s) as i32) >= (a!(t) as i32)),
                Bltu => br!(a!(s) < a!(t)),
                Bgeu => br!(a!(s) >= a!(t)),
                Bany => br!(a!(s) & a!(t) != 0),
                Bnone => br!(a!(s) & a!(t) == 0),
                Ball => br!(a!(s) & a!(t) == a!(t)),
                Bnall => br!(a!(s) & a!(t) != a!(t)),
                Bbc => br!(a!(s) & (1 << (a!(t) & 31)) == 0),
                Bbs => br!(a!(s) & (1 << (a!(t) & 31)) != 0),
                Bbci => br!(a!(s) & (1 << ((((insn.r as u32) & 1) << 4) | (insn.t as u32))) == 0),
                Bbsi => br!(a!(s) & (1 << ((((insn.r as u32) & 1) << 4) | (insn.t as u32))) != 0),
                Bf => br!(!self.getb(insn.s)),
                Bt => br!(self.getb(insn.s)),
                J => {
                    self.take(insn.imm);
                    // `j .` as a block of its own: the core spins and can only leave through an
                    // interrupt, so wait for one as WAITI does (time jumps to the next timer
                    // interrupt; none possible: a stop).
                    if insn.imm == pc0 && insn.idx == 0 {
                        self.waiting = true;
                    }
                    exit!(None);
                }
                Jx => {
                    let tgt = a!(s);
                    self.take(tgt);
                    exit!(None);
                }
                // ---- calls / returns ----
                Call0 => {
                    sa!(0, next!());
                    hooks.call(pc!(), insn.imm, 0);
                    self.take(insn.imm);
                    exit!(None);
                }
                Callx0 => {
                    let tgt = a!(s);
                    sa!(0, next!());
                    hooks.call(pc!(), tgt, 0);
                    self.take(tgt);
                    exit!(None);
                }
                Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                    if !WIN {
                        // Never decoded without the windowed-register option (keeps the code out).
                        exc!(cause::ILLEGAL);
                    }
                    // §3.3: target first; a[4n] = n<<30 | (PC+3)[29:0]; PS.CALLINC = n
                    let (n, tgt) = match insn.op {
                        Call4 => (1, insn.imm),
                        Call8 => (2, insn.imm),
                        Call12 => (3, insn.imm),
                        Callx4 => (1, a!(s)),
                        Callx8 => (2, a!(s)),
                        _ => (3, a!(s)),
                    };
                    sa!(4 * n, (n << 30) | (next!() & 0x3FFF_FFFF));
                    self.ps = (self.ps & !PS_CALLINC) | (n << PS_CALLINC_SHIFT);
                    hooks.call(pc!(), tgt, 4 * n);
                    self.take(tgt);
                    exit!(None);
                }
                Ret | RetN => {
                    let tgt = a!(0);
                    hooks.ret(pc!(), tgt);
                    self.take(tgt);
                    exit!(None);
                }
                Retw | RetwN => {
                    if !WIN {
                        // Never decoded without the windowed-register option (keeps the code out).
                        exc!(cause::ILLEGAL);
                    }
                    let a0 = a!(0);
                    let n = a0 >> 30;
                    if n == 0 {
                        exc!(cause::ILLEGAL); // [Q]
                    }
                    let caller = self.wb.wrapping_sub(n) & 15;
                    if self.ws & (1 << caller) == 0 {
                        self.window_underflow(hooks, pc!(), n);
                        exit!(None);
                    }
                    let tgt = (pc!() & 0xC000_0000) | (a0 & 0x3FFF_FFFF);
                    self.ws &= !(1 << self.wb);
                    self.set_wb(caller);
                    self.update_win_limit();
                    hooks.ret(pc!(), tgt);
                    self.take(tgt);
                    exit!(None);
                }
                Entry => {
                    if !WIN {
                        // Never decoded without the windowed-register option (keeps the code out).
                        exc!(cause::ILLEGAL);
                    }
                    // §3.3 ENTRY
                    if self.ps & PS_WOE == 0 || (insn.s as u32) > 3 {
                        exc!(cause::ILLEGAL);
                    }
                    let callinc = (self.ps & PS_CALLINC) >> PS_CALLINC_SHIFT;
                    if callinc as u8 > self.win_limit {
                        self.window_overflow(hooks, pc!());
                        exit!(None);
                    }
                    let v = a!(s).wrapping_sub(insn.imm);
                    sa!(4 * callinc + ((insn.s as u32) & 3), v);
                    self.set_wb(self.wb + callinc);
                    self.ws |= 1 << self.wb;
                    self.update_win_limit();
                    // The block continues in the new window unless it names panes now out of reach.
                    if !WCHK && lim.max_pane > self.win_limit {
                        self.pc = next!();
                        exit!(None);
                    }
                }
                Movsp => {
                    if !WIN {
                        // Never decoded without the windowed-register option (keeps the code out).
                        exc!(cause::ILLEGAL);
                    }
                    // Alloca if WS[WB−1..WB−3] are all clear (§3.3)
                    let rot = ((self.ws | (self.ws << 16)) >> self.wb) & 0xFFFF;
                    if self.cfg.windowed && rot & 0xE000 == 0 {
                        exc!(cause::ALLOCA);
                    }
                    sa!(t, a!(s))
                }
                Rotw => {
                    if !WIN {
                        // Never decoded without the windowed-register option (keeps the code out).
                        exc!(cause::ILLEGAL);
                    }
                    self.set_wb(self.wb.wrapping_add(insn.imm));
                    self.update_win_limit();
                }
                Rfwo | Rfwu => {
                    if !WIN {
                        // Never decoded without the windowed-register option (keeps the code out).
                        exc!(cause::ILLEGAL);
                    }
                    if insn.op == Rfwo {
                        self.ws &= !(1 << self.wb);
                    } else {
                        self.ws |= 1 << self.wb;
                    }
                    let owb = (self.ps & PS_OWB) >> PS_OWB_SHIFT;
                    self.ps &= !PS_EXCM;
                    self.set_wb(owb);
                    self.ps_changed();
                    self.pc = self.epc[1];
                    self.cycles += self.t_taken;
                    hooks.exception_return(pc!(), self.pc);
                    exit!(None);
                }
                // ---- zero-overhead loops (§3.4) ----
                Loop | Loopnez | Loopgtz => {
                    let v = a!(s);
                    self.lbeg = next!();
                    self.lend = insn.imm;
                    self.lcount = v.wrapping_sub(1);
                    let skip = match insn.op {
                        Loopnez => v == 0,
                        Loopgtz => (v as i32) <= 0,
                        _ => false,
                    };
                    if skip {
                        self.take(insn.imm);
                        exit!(None);
                    }
                    lend_moved!(lend_at(insns, insn.imm));
                }
                Isync | Rsync | Esync | Dsync | Excw | Memw | Extw | Nop | NopN => {}
                Ee => out_of_line!(self.exec_pie(bus, hooks, insn, pc!())),
                // Every other op by name, not `_`: an exhaustive match lets the dispatch table cover
                // the whole enum with no range check per instruction.
                Rfe | Rfde | Rfi | Break | Syscall | Simcall | Rsil | Waiti | Any4 | All4 | Any8 | All8 | Rer
                | Wer | Ritlb0 | Iitlb | Pitlb | Witlb | Ritlb1 | Rdtlb0 | Idtlb | Pdtlb | Wdtlb | Rdtlb1 | Xsr
                | Andb | Andbc | Orb | Orbc | Xorb | Rsr | Wsr | Rur | Wur | Lsx | Lsxp | Ssx | Ssxp | AddS | SubS
                | MulS | MaddS | MsubS | MaddnS | DivnS | RoundS | TruncS | FloorS | CeilS | FloatS | UfloatS
                | UtruncS | MovS | AbsS | ConstS | Rfr | Wfr | NegS | Div0S | Recip0S | Sqrt0S | Rsqrt0S | Nexp01S
                | MksadjS | MkdadjS | AddexpS | AddexpmS | UnS | OeqS | UeqS | OltS | UltS | OleS | UleS | MoveqzS
                | MovnezS | MovltzS | MovgezS | MovfS | MovtS | Lsi | Ssi | Lsip | Ssip | UmulAa | MulAa | MulaAa
                | MulsAa | MulAd | MulaAd | MulsAd | MulDa | MulaDa | MulsDa | MulDd | MulaDd | MulsDd
                | MulaDaLdinc | MulaDaLddec | MulaDdLdinc | MulaDdLddec | Ldinc | Lddec | BreakN => {
                    out_of_line!(self.exec_slow(bus, hooks, insn, pc!(), next!()))
                }
            }
        }
        // Zero-overhead loop-back on fall-through (§3.4): `insns[to - 1]` is followed by LEND.
        if lend_idx as usize + 1 == to && self.loop_back() {
            let insn = &insns[to - 1];
            // The pass ends here: count it.
            self.insns += insn.idx as u64 + 1;
            self.cycles += insn.cum_cost as u64;
            // Stay in this block when the loop body starts here and no event can be due.
            if self.lbeg == pc0
                && !self.irq_check
                && lim.max_pane <= self.win_limit
                && self.insns + insns.len() as u64 <= lim.insn_end
                && self.cycles < lim.cycle_limit
                && bus.code_generation() == lim.generation
            {
                hooks.block_start(pc0, self.cycles, self.insns);
                if lim.fetch {
                    bus.block_fetch(pc0, lim.bytes);
                }
                from = 0;
                continue 'seg;
            }
            self.pc = self.lbeg;
            break 'ex (false, 0, 0);
        }
        if to == insns.len() {
            break 'seg;
        }
        from = to;
        }
        // Fell through the end of the (possibly budget-truncated) block.
        match insns.last() {
            Some(last) => {
                self.pc = pc0.wrapping_add(last.off as u32 + last.len as u32);
                (false, last.idx as u32 + 1, last.cum_cost as u32)
            }
            None => {
                self.pc = pc0;
                (false, 0, 0)
            }
        }
        };
        self.insns = self.insns.wrapping_add(end_n as u64);
        self.cycles = self.cycles.wrapping_add(end_cyc as u64);
        stopped
    }
}

/// Result of an out-of-line instruction.
pub(crate) enum Flow {
    Next,
    Exit(Option<StopReason>),
}

impl Cpu {
    /// Special registers, exceptions, booleans, MAC16 and FPU: executed out of line to keep the
    /// hot loop small.
    #[inline(never)]
    fn exec_slow<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        insn: &Insn,
        pc: u32,
        next: u32,
    ) -> Flow {
        use Op::*;
        let (r, s, t) = (insn.r as u32, insn.s as u32, insn.t as u32);
        let imm = insn.imm;
        macro_rules! a {
            ($i:expr) => {
                self.ar(($i) as u32)
            };
        }
        macro_rules! ms {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(stop) => return Flow::Exit(stop),
                }
            };
        }
        macro_rules! exc {
            ($c:expr) => {
                return Flow::Exit(self.raise_exception(hooks, $c, pc, None))
            };
        }
        macro_rules! fpchk {
            () => {
                ms!(self.fp_enabled(hooks, pc))
            };
        }
        let _ = next;
        match insn.op {
                // ---- special registers ----
                Rsr => {
                    let v = self.read_sr(imm);
                    self.set_ar(t, v)
                }
                Wsr => {
                    let v = a!(t);
                    self.write_sr(imm, v);
                }
                Xsr => {
                    let old = self.read_sr(imm);
                    let v = a!(t);
                    self.write_sr(imm, v);
                    self.set_ar(t, old)
                }
                Rur | Wur => {
                    // FCR/FSR need CP0; the PIE URs CP3 except GPIO_OUT (§2.7, §4.1).
                    if imm == 232 || imm == 233 {
                        fpchk!();
                    } else if super::pie::ur_is_cp3(imm) && self.cpenable & (1 << 3) == 0 {
                        exc!(cause::COPROCESSOR0_DISABLED + 3);
                    }
                    if insn.op == Rur {
                        let v = self.read_ur(imm);
                        self.set_ar(r, v)
                    } else {
                        let v = a!(t);
                        self.write_ur(imm, v)
                    }
                }
                // ---- ESP32-S3 PIE (§4) ----
                Ee => return self.exec_pie(bus, hooks, insn, pc),
                Rsil => {
                    // §2.7: at = PS, then PS.INTLEVEL = n
                    let old = self.ps;
                    self.ps = (self.ps & !PS_INTLEVEL) | s;
                    self.set_ar(t, old);
                    self.ps_changed();
                }
                Waiti => {
                    self.ps = (self.ps & !PS_INTLEVEL) | s;
                    self.ps_changed();
                    self.waiting = true;
                    self.pc = next;
                    return Flow::Exit(None);
                }
                Rfe => {
                    self.ps &= !PS_EXCM;
                    self.ps_changed();
                    self.pc = self.epc[1];
                    self.cycles += self.t_taken;
                    hooks.exception_return(pc, self.pc);
                    return Flow::Exit(None);
                }
                Rfde => {
                    self.pc = self.depc;
                    self.cycles += self.t_taken;
                    hooks.exception_return(pc, self.pc);
                    return Flow::Exit(None);
                }
                Rfi => {
                    let n = s as usize;
                    if n < 2 || n > self.cfg.nmi_level as usize {
                        exc!(cause::ILLEGAL);
                    }
                    let v = self.eps[n];
                    self.set_ps(v);
                    self.pc = self.epc[n];
                    self.cycles += self.t_taken;
                    hooks.exception_return(pc, self.pc);
                    return Flow::Exit(None);
                }
                Syscall => exc!(cause::SYSCALL),
                Simcall => {
                    self.pc = next;
                    let args = [a!(2), a!(3), a!(4), a!(5), a!(6)];
                    return Flow::Exit(Some(StopReason::Simcall { pc, args }));
                }
                Break | BreakN => {
                    if self.break_stops {
                        self.pc = pc;
                        self.insns -= 1;
                        self.cycles -= insn.cost as u64;
                        return Flow::Exit(Some(StopReason::Break { pc, s: insn.s, t: insn.t, len: insn.len }));
                    }
                    let dl = self.cfg.debug_level;
                    if self.cintlevel() < dl {
                        // §2.7: DEBUGCAUSE BI/BN, EPC/EPS[debug level], PS.INTLEVEL = level, EXCM = 1
                        self.debugcause = if insn.op == Break { 0x8 } else { 0x10 };
                        self.epc[dl as usize] = pc;
                        self.eps[dl as usize] = self.ps;
                        self.ps = (self.ps & !PS_INTLEVEL) | dl | PS_EXCM;
                        self.ps_changed();
                        self.pc = self.vecbase.wrapping_add(self.cfg.vec.level[dl as usize]);
                        hooks.exception(64 + dl, pc, self.pc);
                        return Flow::Exit(None);
                    }
                }
                Rer => self.set_ar(t, 0),
                Wer => {}
                Witlb | Wdtlb => {
                    let reg = (a!(s) >> 29) as usize;
                    let v = (a!(t) & 0xF) as u8;
                    if insn.op == Witlb {
                        self.itlb_attr[reg] = v
                    } else {
                        self.dtlb_attr[reg] = v
                    }
                }
                Ritlb0 | Rdtlb0 | Pitlb | Pdtlb => self.set_ar(t, a!(s) & 0xE000_0000),
                Ritlb1 | Rdtlb1 => {
                    let reg = (a!(s) >> 29) as usize;
                    let v = if insn.op == Ritlb1 { self.itlb_attr[reg] } else { self.dtlb_attr[reg] };
                    self.set_ar(t, (a!(s) & 0xE000_0000) | v as u32)
                }
                Iitlb | Idtlb => {}
                // ---- booleans ----
                Andb => self.setb(insn.r, self.getb(insn.s) & self.getb(insn.t)),
                Andbc => self.setb(insn.r, self.getb(insn.s) & !self.getb(insn.t)),
                Orb => self.setb(insn.r, self.getb(insn.s) | self.getb(insn.t)),
                Orbc => self.setb(insn.r, self.getb(insn.s) | !self.getb(insn.t)),
                Xorb => self.setb(insn.r, self.getb(insn.s) ^ self.getb(insn.t)),
                Any4 => self.setb(insn.t, (self.br >> s) & 0xF != 0),
                All4 => self.setb(insn.t, (self.br >> s) & 0xF == 0xF),
                Any8 => self.setb(insn.t, (self.br >> s) & 0xFF != 0),
                All8 => self.setb(insn.t, (self.br >> s) & 0xFF == 0xFF),
                // ---- MAC16 (§2.4) ----
                UmulAa | MulAa | MulaAa | MulsAa | MulAd | MulaAd | MulsAd | MulDa | MulaDa | MulsDa | MulDd
                | MulaDd | MulsDd | MulaDaLdinc | MulaDaLddec | MulaDdLdinc | MulaDdLddec | Ldinc | Lddec => {
                    let (h, mx, my, mw) = mac_fields(imm);
                    let (x, y, kind) = match insn.op {
                        UmulAa => (a!(s), a!(t), 0),
                        MulAa => (a!(s), a!(t), 1),
                        MulaAa => (a!(s), a!(t), 2),
                        MulsAa => (a!(s), a!(t), 3),
                        MulAd => (a!(s), self.m[my], 1),
                        MulaAd => (a!(s), self.m[my], 2),
                        MulsAd => (a!(s), self.m[my], 3),
                        MulDa => (self.m[mx], a!(t), 1),
                        MulaDa | MulaDaLdinc | MulaDaLddec => (self.m[mx], a!(t), 2),
                        MulsDa => (self.m[mx], a!(t), 3),
                        MulDd => (self.m[mx], self.m[my], 1),
                        MulaDd | MulaDdLdinc | MulaDdLddec => (self.m[mx], self.m[my], 2),
                        MulsDd => (self.m[mx], self.m[my], 3),
                        _ => (0, 0, 255),
                    };
                    if kind != 255 {
                        self.mac(x, y, h, kind);
                    }
                    match insn.op {
                        MulaDaLdinc | MulaDdLdinc | Ldinc | MulaDaLddec | MulaDdLddec | Lddec => {
                            let inc = matches!(insn.op, MulaDaLdinc | MulaDdLdinc | Ldinc);
                            let p = if inc { a!(s).wrapping_add(4) } else { a!(s).wrapping_sub(4) };
                            let v = ms!(self.load(bus, hooks, p, 4, pc));
                            self.set_ar(s, p);
                            self.m[mw] = v;
                        }
                        _ => {}
                    }
                }
                // ---- FPU (coprocessor 0, §2.7 "FP") ----
                Lsi | Lsip | Lsx | Lsxp => {
                    fpchk!();
                    let (addr, upd, fr) = match insn.op {
                        Lsi => (a!(s).wrapping_add(imm), None, t),
                        Lsip => (a!(s), Some(a!(s).wrapping_add(imm)), t),
                        Lsx => (a!(s).wrapping_add(a!(t)), None, r),
                        _ => (a!(s), Some(a!(s).wrapping_add(a!(t))), r),
                    };
                    let v = ms!(self.load(bus, hooks, addr, 4, pc));
                    self.fr[fr as usize] = v;
                    if let Some(u) = upd {
                        self.set_ar(s, u);
                    }
                }
                Ssi | Ssip | Ssx | Ssxp => {
                    fpchk!();
                    let (addr, upd, fr) = match insn.op {
                        Ssi => (a!(s).wrapping_add(imm), None, t),
                        Ssip => (a!(s), Some(a!(s).wrapping_add(imm)), t),
                        Ssx => (a!(s).wrapping_add(a!(t)), None, r),
                        _ => (a!(s), Some(a!(s).wrapping_add(a!(t))), r),
                    };
                    let v = self.fr[fr as usize];
                    ms!(self.store(bus, hooks, addr, 4, v, pc));
                    if let Some(u) = upd {
                        self.set_ar(s, u);
                    }
                }
                AddS | SubS | MulS | MaddS | MsubS => {
                    fpchk!();
                    let (x, y, z) = (f(self.fr[s as usize]), f(self.fr[t as usize]), f(self.fr[r as usize]));
                    let v = match insn.op {
                        AddS => x + y,
                        SubS => x - y,
                        MulS => x * y,
                        MaddS => x.mul_add(y, z),
                        _ => (-x).mul_add(y, z),
                    };
                    self.fr[r as usize] = v.to_bits();
                }
                MaddnS | DivnS | Div0S | Nexp01S | Sqrt0S | AddexpS => {
                    // no-ops as in QEMU [Q] (§2.7 "division and square-root helpers")
                    fpchk!();
                }
                AddexpmS | MovS => {
                    fpchk!();
                    self.fr[r as usize] = self.fr[s as usize];
                }
                MkdadjS => {
                    fpchk!();
                    self.fr[r as usize] = (f(self.fr[s as usize]) / f(self.fr[r as usize])).to_bits();
                }
                MksadjS => {
                    fpchk!();
                    self.fr[r as usize] = f(self.fr[s as usize]).sqrt().to_bits();
                }
                Recip0S => {
                    // seed approximated by the exact reciprocal [U]
                    fpchk!();
                    self.fr[r as usize] = (1.0 / f(self.fr[s as usize])).to_bits();
                }
                Rsqrt0S => {
                    fpchk!();
                    self.fr[r as usize] = (1.0 / f(self.fr[s as usize]).sqrt()).to_bits();
                }
                AbsS => {
                    fpchk!();
                    self.fr[r as usize] = self.fr[s as usize] & 0x7FFF_FFFF;
                }
                NegS => {
                    fpchk!();
                    self.fr[r as usize] = self.fr[s as usize] ^ 0x8000_0000;
                }
                ConstS => {
                    fpchk!();
                    // k = 0..3 → 0.0, 1.0, 2.0, 0.5 [Q]
                    let v: f32 = match s {
                        1 => 1.0,
                        2 => 2.0,
                        3 => 0.5,
                        _ => 0.0,
                    };
                    self.fr[r as usize] = v.to_bits();
                }
                Rfr => {
                    fpchk!();
                    let v = self.fr[s as usize];
                    self.set_ar(r, v)
                }
                Wfr => {
                    fpchk!();
                    self.fr[r as usize] = a!(s);
                }
                RoundS | TruncS | FloorS | CeilS | UtruncS => {
                    fpchk!();
                    let x = f(self.fr[s as usize]) * (1u32 << t) as f32;
                    let v = match insn.op {
                        RoundS => f2i(x, 0),
                        TruncS => f2i(x, 1),
                        FloorS => f2i(x, 2),
                        CeilS => f2i(x, 3),
                        _ => {
                            if x.is_nan() {
                                u32::MAX
                            } else {
                                x.trunc() as u32
                            }
                        }
                    };
                    self.set_ar(r, v)
                }
                FloatS | UfloatS => {
                    fpchk!();
                    let v = a!(s);
                    let x = if insn.op == FloatS { v as i32 as f32 } else { v as f32 };
                    self.fr[r as usize] = (x * f32::powi(2.0, -(t as i32))).to_bits();
                }
                UnS | OeqS | UeqS | OltS | UltS | OleS | UleS => {
                    fpchk!();
                    let (x, y) = (f(self.fr[s as usize]), f(self.fr[t as usize]));
                    let un = x.is_nan() || y.is_nan();
                    let v = match insn.op {
                        UnS => un,
                        OeqS => x == y,
                        UeqS => un || x == y,
                        OltS => x < y,
                        UltS => un || x < y,
                        OleS => x <= y,
                        _ => un || x <= y,
                    };
                    self.setb(insn.r, v);
                }
                MoveqzS | MovnezS | MovltzS | MovgezS | MovfS | MovtS => {
                    fpchk!();
                    let c = match insn.op {
                        MoveqzS => a!(t) == 0,
                        MovnezS => a!(t) != 0,
                        MovltzS => (a!(t) as i32) < 0,
                        MovgezS => (a!(t) as i32) >= 0,
                        MovfS => !self.getb(insn.t),
                        _ => self.getb(insn.t),
                    };
                    if c {
                        self.fr[r as usize] = self.fr[s as usize];
                    }
                }
                _ => unreachable!("fast-path op {:?} in exec_slow", insn.op),
        }
        Flow::Next
    }
}
