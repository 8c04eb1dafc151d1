//! Execution engine: decoded-block cache, run loop and instruction semantics.
//!
//! Semantics: S3 QEMU translate.c (core; the ALU semantics are as QEMU implements them, no Xtensa ISA
//! manual was checked), S2 libisa and S3 (MAC16), S3 exc_helper.c (dispatch), S3 win_helper.c /
//! translate.c (windows), S3 translate.c (zero-overhead loops); source tags in the `xtensa` module docs.
//! Timing: an ASSUMPTION, no public LX6/LX7 cycle table (named parameters in `XtensaTiming`).
//!
//! Speed notes (host instructions per guest instruction are what counts; docs/xtensa.md "Speed"):
//! - Two paths run blocks. The plain path serves blocks that run whole with nothing else to do: no
//!   breakpoint, unpriced fetch, every pane they name in reach, LEND outside, the instruction
//!   budget not near its end (`Cpu::runs_plainly`). The general path does the rest: breakpoints,
//!   fetch pricing, budget cuts, pane checks per instruction, segments cut at LEND (so that no
//!   instruction tests LEND), zero-overhead loop-backs within the block.
//! - Between blocks the run loop tests everything that can stop the run or redirect the core
//!   (code written, timers, pending interrupts, WAITI, budgets) in one combined condition; the rare
//!   work behind it is out of line (`Cpu::between_blocks`), in the same order as before.
//! - The plain path seldom returns to the run loop: after a taken branch or jump it does the run
//!   loop's work itself and goes on into the target block when the run loop would run it plainly
//!   with nothing else in between (`Cpu::chains_to`); and a decoded block is a superblock that runs
//!   on through untaken conditional branches into the blocks after them, with the same check at
//!   each (`Block`, `Cpu::runs_on_plainly`). Whatever the check finds, the block leaves there and
//!   the run loop carries on as it would have, so results do not depend on how far the plain path
//!   got.
//! - The direct-mapped block table holds the block descriptors themselves (16 bytes), read in place.
//! - Instruction and cycle counts are not maintained per instruction: every cached instruction knows
//!   its index and the cumulative cost of its block up to itself (`Insn::idx`, `Insn::cum_cost`), so
//!   an exit adds both once. Likewise its PC is `block start + Insn::off`, computed only where used,
//!   and operands are read from the instruction where used.
//! - The plain path walks a block up to the marker that ends it, without bounds tests
//!   (`block_end_marker`).
//! - Register windows cost nothing per access: `Cpu::ar` is kept rotated to the current window, and
//!   sits at the start of `Cpu` and `Xtensa` (no offset to add).
//! - Cores without windows and zero-overhead loops (LX106) run a variant without that code.
//! - Values that only rare instructions need are worked out where they are used, out of line
//!   (`Here::plain`, `Cpu::litbase_address`, `Cpu::data_fault`): inline, the compiler computes them
//!   ahead for every block and keeps them on the stack.
//! - Hot plain-path blocks are compiled to host code (`jit.rs`): the run loop counts a block's
//!   plain runs (the plain path counts those it goes on into, `BlockCache::interprets`), compiles
//!   it at `COMPILE_AFTER`, and from then on runs its code, going on from compiled block to compiled
//!   block where the plain path would (`BlockCache::chained`).

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use super::bus::{BusFault, DataView, XtensaBus};
use super::config::XtensaConfig;
use super::cpu::*;
use super::decode::{decode, mac_fields, Insn, Op};
use super::isa::Class;
use super::jit::{
    BlockFn, Compiler, JitEnv, JitSlot, JitState, RegionBlock, COMPILE_AFTER, REGION_BLOCKS,
    REGION_DELAY, REGION_WARMTH,
};

/// Longest decoded block.
const MAX_BLOCK: usize = 64;
/// The CCOUNT special register's number (S2 libisa special register table).
pub(super) const SR_CCOUNT: u32 = 234;
const FAST_SLOTS: usize = 4096;

/// Descriptor of a decoded block; its instructions are `BlockCache::insns[start..start + n]`, followed
/// by its end marker (`block_end_marker`).
///
/// The block is a superblock: its head is the block the run loop meets at `pc` (it ends at control
/// flow, at a breakpoint or after `MAX_BLOCK` instructions); when the head ends in a conditional
/// branch, the blocks the run loop would meet after it if it is not taken may follow (see
/// `continues_plainly`). The plain path runs through them, checking at each untaken branch what
/// the run loop would check before the next block; the general path runs the head only.
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
    /// Instructions and bytes of the head.
    head_n: u8,
    head_bytes: u16,
}

/// A breakpoint is set at the block's start.
const BLK_BP: u8 = 1;
/// `XtensaBus::fetch_priced` of the start PC: `block_fetch` is called only when set.
const BLK_FETCH: u8 = 2;

/// A fast-table slot with no block: its `pc` is one that never maps to the slot, so no lookup
/// matches it (`BlockCache::empty`).
const EMPTY_SLOT: Block = Block {
    pc: u32::MAX,
    start: 0,
    bytes: 0,
    n: 0,
    max_pane: 0,
    flags: 0,
    head_n: 0,
    head_bytes: 0,
};

struct BlockCache {
    map: HashMap<u32, u32>,
    blocks: Vec<Block>,
    insns: Vec<Insn>,
    /// Direct-mapped by PC: the hot path needs no hashing and touches one cache line per lookup.
    fast: Box<[Block; FAST_SLOTS]>,
    generation: u64,
    /// Compile hot blocks (`jit.rs`); off, every block is interpreted.
    compiling: bool,
    /// Plain-path runs of a block before it is compiled (`COMPILE_AFTER`; tests lower it).
    compile_after: u32,
    /// The same for a block whose region holds more than one block (`REGION_DELAY`).
    region_compile_after: u32,
    /// Compile state of each block of `blocks`, and of the block in each slot of `fast`.
    /// (A `Cell`: the plain path counts runs of the blocks it goes on into, `interprets`.)
    jit: Vec<Cell<JitState>>,
    jit_slots: Box<[JitSlot; FAST_SLOTS]>,
    /// Made when the first block is compiled; dropped, with all compiled code, by `flush`.
    compiler: Option<Compiler>,
    /// The view of the bus the run goes on with (`serve`).
    data: Option<DataView>,
}

impl BlockCache {
    fn new() -> Self {
        let mut cache = BlockCache {
            map: HashMap::new(),
            blocks: Vec::new(),
            insns: Vec::new(),
            fast: Box::new([EMPTY_SLOT; FAST_SLOTS]),
            generation: 0,
            compiling: true,
            compile_after: COMPILE_AFTER,
            region_compile_after: COMPILE_AFTER * REGION_DELAY,
            jit: Vec::new(),
            jit_slots: Box::new([JitSlot::EMPTY; FAST_SLOTS]),
            compiler: None,
            data: None,
        };
        cache.flush();
        cache
    }

    /// Forget every block. `u32::MAX` marks the empty fast-table slots except its own slot, where
    /// the address below it (which maps elsewhere) does: a fetch at 0xFFFFFFFF then finds no block
    /// and is fetched, and faults, like any other.
    fn flush(&mut self) {
        self.map.clear();
        self.blocks.clear();
        self.insns.clear();
        self.fast.fill(EMPTY_SLOT);
        self.jit.clear();
        self.jit_slots.fill(JitSlot::EMPTY);
        self.compiler = None;
        let own = Self::slot(u32::MAX);
        debug_assert_ne!(Self::slot(u32::MAX - 1), own);
        self.fast[own].pc = u32::MAX - 1;
    }

    /// The instructions of `blk`.
    #[inline(always)]
    fn body(&self, blk: &Block) -> &[Insn] {
        let start = blk.start as usize;
        &self.insns[start..start + blk.n as usize]
    }

    /// The instructions of `blk` with its end marker, as the plain path runs them.
    #[inline(always)]
    fn plain_code(&self, blk: &Block) -> &[Insn] {
        let start = blk.start as usize;
        &self.insns[start..start + blk.n as usize + 1]
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
        self.jit_slots[slot] = JitSlot::of(i, self.jit[i as usize].get());
        Ok(())
    }

    /// The compiled code of the block in fast-table slot `slot`, which the run loop is about to
    /// run plainly: counts the run and compiles the block when it has become hot.
    #[inline(always)]
    fn compiled(&mut self, slot: usize, cpu: &Cpu) -> Option<BlockFn> {
        let js = self.jit_slots[slot];
        if js.interpreted {
            return None;
        }
        js.code.or_else(|| self.warm(slot, cpu))
    }

    /// Run with a bus whose view is `data` from now on: code compiled for another view (whose
    /// addresses it holds: the bus moved, or watches came or went) is forgotten with the blocks.
    fn serve(&mut self, data: Option<DataView>) {
        if self.compiler.as_ref().is_some_and(|c| !c.serves(data)) {
            self.flush();
        }
        self.data = data;
    }

    /// After a compiled block, the compiled code of the block at `cpu.pc`, and the block, when the
    /// run loop would run it next, plainly, with nothing else to do but tell the hooks of it (done
    /// here: `Cpu::enters_plainly`): compiled blocks go on into each other as the plain path does
    /// into the blocks it interprets.
    #[inline(always)]
    fn chained<B: XtensaBus, H: XtensaHooks, const WIN: bool, const LOOPS: bool>(
        &self,
        cpu: &mut Cpu,
        bus: &mut B,
        hooks: &mut H,
        run: RunBounds,
        owner: &mut usize,
    ) -> Option<(BlockFn, &Block)> {
        let pc = cpu.pc;
        let slot = Self::slot(pc);
        let code = self.jit_slots[slot].code?;
        let blk = &self.fast[slot];
        let go = blk.pc == pc
            && cpu.runs_plainly::<WIN, LOOPS>(blk)
            && cpu.enters_plainly(bus, hooks, run, self.generation, owner);
        go.then_some((code, blk))
    }

    /// Whether the plain path may go on into the block in fast-table slot `slot` itself, which it
    /// is about to: a block interpreted for good, or one not yet hot, whose run it counts. Compiled
    /// blocks and a block about to become hot are left to the run loop (`compiled`).
    #[inline(always)]
    fn interprets(&self, slot: usize) -> bool {
        let js = &self.jit_slots[slot];
        js.interpreted || (js.code.is_none() && self.warms(js.block as usize))
    }

    /// `interprets` for a block not compiled yet: counts the run unless it would make it hot.
    #[inline(never)]
    fn warms(&self, i: usize) -> bool {
        match self.jit[i].get() {
            JitState::Warming(n) if n + 1 < self.compile_after => {
                self.jit[i].set(JitState::Warming(n + 1));
                true
            }
            JitState::Waiting(n) if n + 1 < self.region_compile_after => {
                self.jit[i].set(JitState::Waiting(n + 1));
                true
            }
            _ => false,
        }
    }

    /// `compiled` for a block not compiled yet.
    #[cold]
    #[inline(never)]
    fn warm(&mut self, slot: usize, cpu: &Cpu) -> Option<BlockFn> {
        let i = self.jit_slots[slot].block as usize;
        let state = match self.jit[i].get() {
            JitState::Warming(n) if n + 1 < self.compile_after => JitState::Warming(n + 1),
            JitState::Waiting(n) if n + 1 < self.region_compile_after => JitState::Waiting(n + 1),
            JitState::Warming(_) => self.compile(i, cpu, false),
            JitState::Waiting(_) => self.compile(i, cpu, true),
            other => other,
        };
        self.jit[i].set(state);
        self.jit_slots[slot] = JitSlot::of(i as u32, state);
        self.jit_slots[slot].code
    }

    /// Compile block `i`, with the blocks of its region (`region`): its new compile state. A
    /// region of more than one block costs more to compile, so it waits (`REGION_DELAY`) unless
    /// it `waited` already.
    fn compile(&mut self, i: usize, cpu: &Cpu, waited: bool) -> JitState {
        let region = self.region(i);
        if region.len() > 1 && !waited {
            return JitState::Waiting(self.compile_after);
        }
        if self.compiler.is_none() {
            // Without a back end for this host, every block is interpreted (with the same results).
            self.compiler = Compiler::new(cpu, self.data).ok();
        }
        // Out of the cache while it reads the cache's blocks.
        let mut compiler = self.compiler.take();
        let blocks: Vec<RegionBlock> = region.iter().map(|&k| self.region_block(k)).collect();
        let code = compiler.as_mut().and_then(|c| c.compile(&blocks));
        self.compiler = compiler;
        code.map_or(JitState::Interpreted, JitState::Compiled)
    }

    /// Block `k` as the block compiler takes it.
    fn region_block(&self, k: usize) -> RegionBlock<'_> {
        let blk = &self.blocks[k];
        RegionBlock {
            pc: blk.pc,
            code: self.body(blk),
            bytes: blk.bytes as u32,
            max_pane: blk.max_pane,
        }
    }

    /// Block `i` and the blocks on the loops through it: those from which known exits (taken
    /// branches, jumps, the fall-through at the end) lead back to it within `REGION_BLOCKS`
    /// blocks, each of which has run plainly often enough to be worth compiling with it
    /// (`REGION_WARMTH`). Compiled code goes round such a loop without leaving its function, the
    /// registers in SSA values; blocks that only lead away are left to their own code, which keeps
    /// functions small (larger regions measured slower: compile time and register pressure).
    fn region(&self, i: usize) -> Vec<usize> {
        let mut region = vec![i];
        let mut path = vec![i];
        self.loops_back(&mut path, &mut region);
        region
    }

    /// Extend `path` (from the region's head) by each warm successor of its last block; add the
    /// blocks of every path that comes back to the head to `region`.
    fn loops_back(&self, path: &mut Vec<usize>, region: &mut Vec<usize>) {
        let blk = self.region_block(*path.last().expect("a path starts at the head"));
        for pc in blk.exits() {
            let Some(&k) = self.map.get(&pc) else {
                continue;
            };
            let k = k as usize;
            if k == path[0] {
                for &b in path.iter() {
                    if !region.contains(&b) && region.len() < REGION_BLOCKS {
                        region.push(b);
                    }
                }
            } else if path.len() < REGION_BLOCKS && !path.contains(&k) && self.joins_region(k) {
                path.push(k);
                self.loops_back(path, region);
                path.pop();
            }
        }
    }

    /// Whether block `k` has run plainly often enough to join a region.
    fn joins_region(&self, k: usize) -> bool {
        match self.jit[k].get() {
            JitState::Warming(n) => n >= self.compile_after / REGION_WARMTH,
            JitState::Waiting(_) | JitState::Compiled(_) => true,
            JitState::Interpreted => false,
        }
    }
}

/// Charge memory traffic from here on to whoever the hooks say runs the block (they were told of
/// it, so the owner may have changed from `current`). Returns the owner.
#[inline(always)]
fn charge_owner<B: XtensaBus, H: XtensaHooks>(bus: &mut B, hooks: &H, current: usize) -> usize {
    let owner = hooks.memory_owner();
    if owner != current {
        bus.set_owner(owner);
    }
    owner
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
// C layout with `cpu` first, so that its registers start at the core's own address (see `Cpu`).
#[repr(C)]
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
        Xtensa {
            cpu: Cpu::new(cfg),
            cache: BlockCache::new(),
            breakpoints: HashSet::new(),
            bp_resume: None,
        }
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

    /// Compile hot blocks to host code (on by default; `jit.rs`), or interpret every block (the
    /// reference: the results are the same either way).
    pub fn set_block_compiler(&mut self, on: bool) {
        self.cache.compiling = on;
        self.cache.flush();
    }

    /// Compile a block after `runs` plain-path runs instead of `COMPILE_AFTER`, and a region of
    /// several blocks as soon, so that short test programs reach compiled code and regions.
    #[cfg(test)]
    pub(super) fn set_compile_after(&mut self, runs: u32) {
        self.cache.compile_after = runs;
        self.cache.region_compile_after = runs;
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
        let run = RunBounds {
            insn_end,
            plain_insn_end: insn_end.saturating_sub(MAX_BLOCK as u64),
        };
        let mut bp_skip = self.bp_resume.take();
        let mut mem_owner = hooks.memory_owner();
        // Watches and observers are set between runs, so the view holds for the whole run.
        self.cache.serve(bus.data_view());
        bus.set_owner(mem_owner);
        'blocks: loop {
            let cpu = &mut self.cpu;
            let mut near_insn_end = false;
            cpu.cycles += bus.take_stall_cycles();
            // One test for everything that can happen between blocks; when none applies, the
            // checks behind it would all fall through. Near the end of the instruction budget it
            // holds on every block: `between_blocks` then stops the run when the budget is used up.
            if cpu.between_blocks_pending(bus, run, self.cache.generation, 0, 0) {
                let (g, epoch) = (bus.code_generation(), bus.interrupt_epoch());
                if g != self.cache.generation {
                    self.cache.flush();
                    self.cache.generation = g;
                }
                if epoch != self.cpu.external_epoch {
                    if let Some(stop) = self.cpu.take_external_lines(bus, epoch) {
                        return stop;
                    }
                }
                match self.cpu.between_blocks(hooks, insn_end, cycle_end) {
                    Between::Go => near_insn_end = self.cpu.insns >= run.plain_insn_end,
                    Between::Again => continue,
                    Between::Stop(stop) => return stop,
                }
            }
            let pc = self.cpu.pc;
            // Block lookup: the direct-mapped table; on a miss the map, then the decoder.
            let slot = BlockCache::slot(pc);
            if self.cache.fast[slot].pc != pc {
                if let Err(f) = self
                    .cache
                    .fill(slot, pc, &self.breakpoints, &self.cpu.cfg, bus)
                {
                    let cpu = &mut self.cpu;
                    let prohibited = cpu.illegal_regions(&cpu.itlb_attr) & (1 << (pc >> 29)) != 0;
                    if (prohibited || cpu.bus_fault_exceptions) && cpu.ps & PS_EXCM == 0 {
                        let cause = if prohibited {
                            cause::INSTR_FETCH_PROHIBITED
                        } else {
                            cause::INSTR_FETCH_ERROR
                        };
                        if let Some(stop) = cpu.raise_exception(hooks, cause, pc, Some(f.addr)) {
                            return stop;
                        }
                        continue;
                    }
                    return StopReason::BusFault {
                        pc,
                        addr: f.addr,
                        kind: AccessKind::Fetch,
                    };
                }
            }
            let blk = &self.cache.fast[slot];
            let cpu = &mut self.cpu;
            // The plain path serves blocks that fit in the budget and need none of the general
            // path's work (`Cpu::runs_plainly`).
            let plain = !near_insn_end & cpu.runs_plainly::<WIN, LOOPS>(blk);
            let stop = if plain {
                bp_skip = None;
                if hooks.block_start(pc, cpu.cycles, cpu.insns) {
                    mem_owner = charge_owner(bus, hooks, mem_owner);
                }
                if let Some(mut code) = self.cache.compiled(slot, &self.cpu) {
                    let compiler = self.cache.compiler.as_ref().expect("code has its compiler");
                    let mut env =
                        JitEnv::new::<B, H>(compiler, run, self.cache.generation, mem_owner);
                    let stops = loop {
                        if env.run(code, &mut self.cpu, bus, hooks) {
                            break true;
                        }
                        let cpu = &mut self.cpu;
                        let owner = &mut env.owner;
                        match self
                            .cache
                            .chained::<B, H, WIN, LOOPS>(cpu, bus, hooks, run, owner)
                        {
                            Some((next, blk)) => {
                                env.link(next, cpu.pc, blk.bytes as u32, blk.max_pane);
                                code = next
                            }
                            None => break false,
                        }
                    };
                    mem_owner = env.owner;
                    if !stops {
                        continue 'blocks;
                    }
                    self.cpu.stop.take()
                } else {
                    let cpu = &mut self.cpu;
                    let blk = &self.cache.fast[slot];
                    let code = self.cache.plain_code(blk);
                    let lim = blk.limits(run, blk.bytes, cpu.cycle_stop, self.cache.generation);
                    match cpu.exec_block::<B, H, true, WIN, LOOPS>(
                        bus,
                        hooks,
                        &self.cache,
                        code,
                        lim,
                        Segments::PLAIN,
                    ) {
                        BlockExit::Next => continue,
                        BlockExit::Stop => cpu.stop.take(),
                        BlockExit::Resume(at) => {
                            let slot = BlockCache::slot(at.pc0);
                            self.general_block::<B, H, WIN, LOOPS>(
                                bus,
                                hooks,
                                slot,
                                run,
                                Some(at),
                                &mut bp_skip,
                                &mut mem_owner,
                            )
                        }
                    }
                }
            } else {
                self.general_block::<B, H, WIN, LOOPS>(
                    bus,
                    hooks,
                    slot,
                    run,
                    None,
                    &mut bp_skip,
                    &mut mem_owner,
                )
            };
            if let Some(stop) = stop {
                return stop;
            }
        }
    }

    /// Run the head of the block in fast-table slot `slot` the general way: a breakpoint at its
    /// start, the fetch priced, the instruction budget cut into it, panes checked per instruction,
    /// segments cut at LEND. `resume`: where the plain path handed the block over (its start-of-block
    /// work is done).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn general_block<B: XtensaBus, H: XtensaHooks, const WIN: bool, const LOOPS: bool>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        slot: usize,
        run: RunBounds,
        resume: Option<Resume>,
        bp_skip: &mut Option<u32>,
        mem_owner: &mut usize,
    ) -> Option<StopReason> {
        let blk = self.cache.fast[slot];
        let pc = blk.pc;
        if resume.is_none() {
            if blk.flags & BLK_BP != 0 && *bp_skip != Some(pc) {
                self.bp_resume = Some(pc);
                return Some(StopReason::Breakpoint { pc });
            }
            *bp_skip = None;
            if hooks.block_start(pc, self.cpu.cycles, self.cpu.insns) {
                *mem_owner = charge_owner(bus, hooks, *mem_owner);
            }
            if blk.flags & BLK_FETCH != 0 {
                bus.block_fetch(pc, blk.bytes as u32, self.cpu.cycles);
            }
        }
        let cpu = &mut self.cpu;
        let n = (blk.head_n as u64).min(run.insn_end - cpu.insns) as usize;
        let insns = &self.cache.insns[blk.start as usize..][..n];
        let lim = blk.limits(run, blk.head_bytes, cpu.cycle_stop, self.cache.generation);
        let segments = match resume {
            None => Segments {
                wchk: WIN && blk.max_pane > cpu.win_limit,
                lend_idx: lend_at::<LOOPS>(insns, pc, lim.bytes, cpu.lend),
                resume_to: None,
            },
            // The plain path ran the block so far without pane checks: it found them not needed.
            Some(at) => Segments {
                wchk: false,
                lend_idx: at.lend_idx,
                resume_to: Some(at.to),
            },
        };
        let exit = cpu.exec_block::<B, H, false, WIN, LOOPS>(
            bus,
            hooks,
            &self.cache,
            insns,
            lim,
            segments,
        );
        // A zero-overhead loop pass may have told the hooks of the block again: charge what follows
        // as the run loop would from the next block on (nothing touches memory before it).
        *mem_owner = charge_owner(bus, hooks, *mem_owner);
        match exit {
            BlockExit::Stop => cpu.stop.take(),
            BlockExit::Next | BlockExit::Resume(_) => None,
        }
    }
}

impl Cpu {
    /// The bus's interrupt state changed (it is at `epoch`): drive the lines it gives, or stop
    /// when it asks to.
    #[cold]
    #[inline(never)]
    fn take_external_lines<B: XtensaBus>(&mut self, bus: &mut B, epoch: u64) -> Option<StopReason> {
        // Seen only once no stop is asked for: the lines are driven when the run resumes.
        if bus.stop_requested() {
            return Some(StopReason::BusRequest { pc: self.pc });
        }
        self.external_epoch = epoch;
        self.drive_external_lines(bus.interrupt_lines());
        None
    }

    /// The between-blocks work of the run loop, in its order: timers, interrupts, WAITI, budgets.
    #[cold]
    #[inline(never)]
    fn between_blocks<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        insn_end: u64,
        cycle_end: u64,
    ) -> Between {
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
                None if self.external_wake => {
                    // Idle until something outside may have raised a line: the run's end.
                    let skip = cycle_end.saturating_sub(self.cycles);
                    self.cycles += skip;
                    self.idle_cycles += skip;
                    Between::Stop(StopReason::CycleLimit { pc: self.pc })
                }
                None => Between::Stop(StopReason::WaitI {
                    pc: self.pc,
                    level: self.ps & PS_INTLEVEL,
                }),
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

/// The instruction budget of one `Xtensa::run`.
#[derive(Clone, Copy)]
pub(super) struct RunBounds {
    insn_end: u64,
    /// Below this count every block fits in the budget whole (the plain path needs no cut).
    plain_insn_end: u64,
}

impl RunBounds {
    pub(super) fn plain_insn_end(&self) -> u64 {
        self.plain_insn_end
    }
}

/// What `exec_block` checks beyond the instructions: the bounds within which the general path may
/// re-run a zero-overhead loop body, and the plain path go on into another block, without returning
/// to the run loop. The plain path reads only `run` and `generation`, which hold for every block it
/// goes on into.
#[derive(Clone, Copy)]
struct BlockLimits {
    /// The block's start PC.
    pc0: u32,
    run: RunBounds,
    /// The cycle budget's end or the next timer match, whichever comes first (as at block entry).
    cycle_limit: u64,
    /// `BlockCache::generation` the block was found in.
    generation: u64,
    max_pane: u8,
    /// Bytes of the code run: the whole block on the plain path, its head on the general one.
    bytes: u32,
    fetch: bool,
}

impl Block {
    /// The limits of the block, running `bytes` of it.
    #[inline(always)]
    fn limits(&self, run: RunBounds, bytes: u16, cycle_limit: u64, generation: u64) -> BlockLimits {
        BlockLimits {
            pc0: self.pc,
            run,
            cycle_limit,
            generation,
            max_pane: self.max_pane,
            bytes: bytes as u32,
            fetch: self.flags & BLK_FETCH != 0,
        }
    }
}

/// What rare instructions need of the block running (see `here!` in `exec_block`).
struct Here<'a> {
    insns: &'a [Insn],
    pc0: u32,
    bytes: u32,
    max_pane: u8,
}

impl<'a> Here<'a> {
    /// The plain block at `pc0`, looked up again (out of line, so that nothing of it is worked out
    /// ahead for every block, see `here!` in `exec_block`).
    #[cold]
    #[inline(never)]
    fn plain(cache: &'a BlockCache, pc0: u32) -> Here<'a> {
        let blk = &cache.fast[BlockCache::slot(pc0)];
        Here {
            insns: cache.body(blk),
            pc0,
            bytes: blk.bytes as u32,
            max_pane: blk.max_pane,
        }
    }

    /// `lend_at` of the block with LEND at `lend`.
    #[inline(always)]
    fn lend_at<const LOOPS: bool>(&self, lend: u32) -> u8 {
        lend_at::<LOOPS>(self.insns, self.pc0, self.bytes, lend)
    }
}

/// How `exec_block` enters a block on the general path.
#[derive(Clone, Copy)]
struct Segments {
    /// The block names a pane above the window limit: check each instruction.
    wchk: bool,
    /// `lend_at` of the block.
    lend_idx: u8,
    /// Resume after the segment that ended at this index (`BlockExit::Resume`).
    resume_to: Option<u8>,
}

impl Segments {
    /// The plain path: panes all in reach, LEND outside the block.
    const PLAIN: Segments = Segments {
        wchk: false,
        lend_idx: NO_LEND,
        resume_to: None,
    };
}

/// Where the plain path handed a block over to the general one: LEND moved into the block, so the
/// segment ended after instruction `to - 1` and the next one is cut at `lend_idx`.
#[derive(Clone, Copy)]
struct Resume {
    /// Start PC of the block.
    pc0: u32,
    to: u8,
    lend_idx: u8,
}

/// How `exec_block` left its block.
enum BlockExit {
    /// Run the block at `Cpu::pc` next.
    Next,
    /// Stop the run for `Cpu::stop`.
    Stop,
    /// Continue the block on the general path (the counters are not yet brought up to date).
    Resume(Resume),
}

/// Decode the block starting at `pc` into the cache: the block the run loop would meet at `pc` (its
/// head), followed, where the plain path may run on through an untaken conditional branch, by the
/// blocks it would meet after it (see `Block`).
fn build_block<B: XtensaBus>(
    cache: &mut BlockCache,
    bps: &HashSet<u32>,
    cfg: &XtensaConfig,
    bus: &mut B,
    pc: u32,
) -> Result<u32, BusFault> {
    let start = cache.insns.len();
    let mut end = decode_run(cache, bps, cfg, bus, pc)?;
    let (head_n, head_bytes) = (
        (cache.insns.len() - start) as u8,
        end.wrapping_sub(pc) as u16,
    );
    let max_pane = cache.insns[start..]
        .iter()
        .map(|i| i.pane)
        .max()
        .unwrap_or(0);
    let mut flags = 0;
    if bps.contains(&pc) {
        flags |= BLK_BP;
    }
    if bus.fetch_priced(pc) {
        flags |= BLK_FETCH;
    }
    // Blocks that take the general path run their head only, so only plain ones grow.
    while flags == 0 && cache.insns.last().is_some_and(Insn::is_conditional_branch) {
        if bps.contains(&end) || bus.fetch_priced(end) {
            break;
        }
        let run_start = cache.insns.len();
        let Ok(run_end) = decode_run(cache, bps, cfg, bus, end) else {
            break;
        };
        let run = &cache.insns[run_start..];
        if !continues_plainly(run, cache.insns.len() - start, max_pane, end, cfg) {
            cache.insns.truncate(run_start);
            break;
        }
        end = run_end;
    }
    // Positions within the block (at most 64 instructions of at most 4 bytes, each cost < 256).
    let mut cum = 0u16;
    let mut off = 0u32;
    for (k, insn) in cache.insns[start..].iter_mut().enumerate() {
        cum += insn.cost as u16;
        insn.cum_cost = cum;
        insn.idx = k as u8;
        insn.off = off as u8;
        off += insn.len as u32;
    }
    let bytes = end.wrapping_sub(pc);
    debug_assert_eq!(bytes, off);
    let idx = cache.blocks.len() as u32;
    let n = (cache.insns.len() - start) as u8;
    cache.insns.push(block_end_marker(n, cum, bytes));
    cache.blocks.push(Block {
        pc,
        start: start as u32,
        bytes: bytes as u16,
        n,
        max_pane,
        flags,
        head_n,
        head_bytes,
    });
    // Only blocks that may run plainly can be compiled.
    cache.jit.push(Cell::new(if cache.compiling && flags == 0 {
        JitState::Warming(0)
    } else {
        JitState::Interpreted
    }));
    cache.map.insert(pc, idx);
    Ok(idx)
}

/// What follows the instructions of a block: the end of the block on the plain path (`exec_block`),
/// an instruction of length 0 (no decoded instruction has that length) saying what falling through
/// the `n` instructions amounts to: their count, their cost and the `bytes` to the next PC.
fn block_end_marker(n: u8, cost: u16, bytes: u32) -> Insn {
    Insn {
        idx: n,
        cum_cost: cost,
        imm: bytes,
        ..Insn::illegal(0)
    }
}

/// Decode the block the run loop would meet at `pc` on its own onto `cache.insns` (all but the
/// positions within the block). Returns the address after it.
fn decode_run<B: XtensaBus>(
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
        if insn.op == Op::Illegal
            || insn.ends_block()
            || cache.insns.len() - start >= MAX_BLOCK
            || bps.contains(&p)
        {
            break;
        }
    }
    // A breakpoint ends the block, not the pipeline: the instruction before it pays for the
    // wait of the one at the breakpoint as without it.
    let next = if bps.contains(&p) {
        bus.fetch(p).ok().map(|w| decode(w, p, cfg))
    } else {
        None
    };
    let body = loop_body(&cache.insns[start..], pc, cfg, bus);
    super::pipeline::add_interlocks(&mut cache.insns[start..], next, body, &cfg.timing);
    Ok(p)
}

/// When the run `insns` at `pc` starts a zero-overhead loop body (a LOOP* right before `pc` whose
/// LEND follows one of them), the number of instructions up to LEND.
fn loop_body<B: XtensaBus>(
    insns: &[Insn],
    pc: u32,
    cfg: &XtensaConfig,
    bus: &mut B,
) -> Option<usize> {
    if !cfg.loops {
        return None;
    }
    let at = pc.wrapping_sub(3);
    let lp = decode(bus.fetch(at).ok()?, at, cfg);
    if !matches!(lp.op, Op::Loop | Op::Loopnez | Op::Loopgtz) {
        return None;
    }
    let mut end = pc;
    insns
        .iter()
        .position(|i| {
            end = end.wrapping_add(i.len as u32);
            end == lp.imm
        })
        .map(|k| k + 1)
}

/// Whether the plain path may run on into `run`, the block the run loop would meet at `pc` after an
/// untaken branch, as part of a block of `n` instructions (`run` included) whose head names panes up
/// to `head_pane`. The plain path checks at the branch what the run loop would check before `run`
/// (see the `br!` macro of `exec_block`); what it cannot check there, the run must not need:
/// - a length in reach of the positions (`Insn::idx`, `Insn::off`);
/// - no `j .` at its start (it waits only as the first instruction of a block);
/// - with windows: all its panes in reach whenever the head's are, and no ENTRY (which compares the
///   head's panes with the new window);
/// - with zero-overhead loops: no LEND move at its end (the general path resumes within the head).
fn continues_plainly(run: &[Insn], n: usize, head_pane: u8, pc: u32, cfg: &XtensaConfig) -> bool {
    let spins = run[0].op == Op::J && run[0].imm == pc;
    let windows_ok = !cfg.windowed || run.iter().all(|i| i.pane <= head_pane && i.op != Op::Entry);
    let lend_ok = !cfg.loops || !run.last().is_some_and(Insn::may_move_lend);
    n <= MAX_BLOCK && !spins && windows_ok && lend_ok
}

/// Index of the instruction of `insns` (a block starting at `pc0`) that LEND follows, i.e. where a
/// fall-through reaches LEND; `NO_LEND` when none does.
#[cold]
#[inline(never)]
fn lend_index(insns: &[Insn], pc0: u32, lend: u32) -> u8 {
    let off = lend.wrapping_sub(pc0);
    insns
        .iter()
        .find(|i| i.off as u32 + i.len as u32 == off)
        .map_or(NO_LEND, |i| i.idx)
}

/// `lend_index` when no instruction of the block is followed by LEND (no index reaches 255).
const NO_LEND: u8 = u8::MAX;

/// Whether LEND lies within the `bytes` bytes of code at `pc0` or at their end (where a
/// fall-through may reach it).
#[inline(always)]
fn lend_within(pc0: u32, bytes: u32, lend: u32) -> bool {
    lend.wrapping_sub(pc0).wrapping_sub(1) < bytes
}

/// Index of the instruction of `insns` (a block of `bytes` bytes at `pc0`) after which a
/// fall-through reaches LEND, `NO_LEND` when none does or zero-overhead loops are off.
#[inline(always)]
fn lend_at<const LOOPS: bool>(insns: &[Insn], pc0: u32, bytes: u32, lend: u32) -> u8 {
    if LOOPS && lend_within(pc0, bytes, lend) {
        lend_index(insns, pc0, lend)
    } else {
        NO_LEND
    }
}

/// Cost of an instruction before interlocks and memory: the base cost plus its class's extra.
fn static_cost(insn: &Insn, cfg: &XtensaConfig) -> u32 {
    let t = &cfg.timing;
    t.base
        + match super::isa::row(insn.op).class {
            Class::Mul => t.mul,
            Class::Div => t.div,
            Class::Alu | Class::Load => 0,
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
    /// Data load of `size` bytes at `addr`, or the fault it raises (`data_fault` dispatches it).
    #[inline(always)]
    pub(super) fn try_load<B: XtensaBus>(
        &mut self,
        bus: &mut B,
        addr: u32,
        size: u32,
    ) -> Result<u32, DataFault> {
        if self.align_exc && addr & (size - 1) != 0 {
            return Err(DataFault::Misaligned { addr });
        }
        bus.read_at(addr, size, self.cycles)
            .map_err(|f| DataFault::Bus(f, AccessKind::Read))
    }

    /// Data store of the low `size` bytes of `v` at `addr`, or the fault it raises.
    #[inline(always)]
    pub(super) fn try_store<B: XtensaBus>(
        &mut self,
        bus: &mut B,
        addr: u32,
        size: u32,
        v: u32,
    ) -> Result<(), DataFault> {
        if self.align_exc && addr & (size - 1) != 0 {
            return Err(DataFault::Misaligned { addr });
        }
        bus.write_at(addr, size, v, self.cycles)
            .map_err(|f| DataFault::Bus(f, AccessKind::Write))
    }

    /// `try_load` with its fault dispatched for the instruction at `pc`.
    #[inline(always)]
    pub(crate) fn load<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        addr: u32,
        size: u32,
        pc: u32,
    ) -> Result<u32, Option<StopReason>> {
        self.try_load(bus, addr, size)
            .map_err(|f| self.data_fault(hooks, f, pc))
    }

    /// `try_store` with its fault dispatched for the instruction at `pc`.
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
        self.try_store(bus, addr, size, v)
            .map_err(|f| self.data_fault(hooks, f, pc))
    }

    /// Dispatch the fault of a data access by the instruction at `pc`: the alignment exception, a
    /// LoadStoreError or a stop (see `bus_fault_exceptions`).
    #[cold]
    #[inline(never)]
    pub(super) fn data_fault<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        fault: DataFault,
        pc: u32,
    ) -> Option<StopReason> {
        match fault {
            DataFault::Misaligned { addr } => {
                self.raise_exception(hooks, cause::LOAD_STORE_ALIGNMENT, pc, Some(addr))
            }
            DataFault::Bus(f, kind) => self.bus_fault(hooks, pc, f, kind),
        }
    }

    #[cold]
    fn bus_fault<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        pc: u32,
        f: BusFault,
        kind: AccessKind,
    ) -> Option<StopReason> {
        if self.illegal_regions(&self.dtlb_attr) & (1 << (f.addr >> 29)) != 0 {
            // Region protection refuses the access whatever is behind it.
            let cause = match kind {
                AccessKind::Write => cause::STORE_PROHIBITED,
                _ => cause::LOAD_PROHIBITED,
            };
            self.raise_exception(hooks, cause, pc, Some(f.addr))
        } else if self.bus_fault_exceptions {
            self.raise_exception(hooks, cause::LOAD_STORE_ERROR, pc, Some(f.addr))
        } else {
            self.pc = pc;
            Some(StopReason::BusFault {
                pc,
                addr: f.addr,
                kind,
            })
        }
    }

    /// On the plain path, leaving the block after `insn` (with the taken-branch penalty `taken`)
    /// for `next`: the work the run loop would do before the block at `next`, and whether it leaves
    /// nothing else to do, so that the plain path may go on into that block on the spot. Bus stalls
    /// are taken into the cycle count; the events the run loop tests for, the instruction budget
    /// nearing its end, or hooks that want to hear of the block make the block leave here, for the
    /// run loop to carry on as it would have. The hooks' `block_start` left out does nothing, and
    /// the owner of memory traffic changes only when it does something. What else the run loop
    /// checks, the caller makes sure of: `chains_to` for the target of a taken branch or jump,
    /// `continues_plainly` for the next block of a superblock: its panes are in reach as the
    /// head's are (ENTRY, the only instruction that changes the window and lets the block go on,
    /// leaves when they are not), and LEND, outside the superblock when it started, has not moved
    /// (the instructions that move it end their block, and no such block is continued).
    #[inline(always)]
    fn runs_on_plainly<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        lim: &BlockLimits,
        insn: &Insn,
        taken: u64,
        next: u32,
    ) -> bool {
        let cycles = insn.cum_cost as u64 + taken;
        self.continues_plainly_at(
            bus,
            hooks,
            lim.run,
            lim.generation,
            insn.idx as u64 + 1,
            cycles,
            next,
        )
    }

    /// `runs_on_plainly` for a block found in cache generation `generation`, leaving after
    /// `insns` instructions and `cycles` cycles of its own (also for compiled blocks, `jit.rs`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn continues_plainly_at<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        run: RunBounds,
        generation: u64,
        insns: u64,
        cycles: u64,
        next: u32,
    ) -> bool {
        self.cycles += bus.take_stall_cycles();
        // The counters as the run loop would see them (the block adds its own when it is left).
        !self.between_blocks_pending(bus, run, generation, insns, cycles)
            && hooks.skips_block_start(next)
    }

    /// Whether the run loop has anything to do between blocks but find the next one, after
    /// `insns` and `cycles` more than the counters (stalls taken): one test (non-short-circuit
    /// `|`: one branch).
    #[inline(always)]
    fn between_blocks_pending<B: XtensaBus>(
        &self,
        bus: &B,
        run: RunBounds,
        generation: u64,
        insns: u64,
        cycles: u64,
    ) -> bool {
        (bus.code_generation() != generation)
            | (bus.interrupt_epoch() != self.external_epoch)
            | self.irq_check
            | self.waiting
            | (self.insns + insns >= run.plain_insn_end)
            | (self.cycles + cycles >= self.cycle_stop)
    }

    /// Between blocks, with the block at `Cpu::pc` known to run plainly (`runs_plainly`): whether
    /// the run loop would run it next with nothing to do first but tell the hooks of its start,
    /// which is done here as the run loop does it (charging memory traffic to `owner`, as it
    /// stands). Compiled code goes on into compiled code through this where the hooks must hear
    /// of the block (after a call or a return).
    #[inline(always)]
    pub(super) fn enters_plainly<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        run: RunBounds,
        generation: u64,
        owner: &mut usize,
    ) -> bool {
        self.cycles += bus.take_stall_cycles();
        if self.between_blocks_pending(bus, run, generation, 0, 0) {
            return false;
        }
        if hooks.block_start(self.pc, self.cycles, self.insns) {
            *owner = charge_owner(bus, hooks, *owner);
        }
        true
    }

    /// On the plain path, leaving the block after `insn` for `target` (a taken branch or jump):
    /// whether the run loop would find the block at `target` in the fast table and run it plainly
    /// next, doing nothing else in between (`runs_on_plainly`); if so, the counters have the pass
    /// through the block added, as its exit would, and the block's slot is returned.
    #[inline(always)]
    fn chains_to<B: XtensaBus, H: XtensaHooks, const WIN: bool, const LOOPS: bool>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        cache: &BlockCache,
        lim: &BlockLimits,
        insn: &Insn,
        target: u32,
    ) -> Option<usize> {
        if !self.runs_on_plainly(bus, hooks, lim, insn, self.t_taken, target) {
            return None;
        }
        let slot = BlockCache::slot(target);
        let blk = &cache.fast[slot];
        // Last: `interprets` counts the run it allows.
        if blk.pc != target || !self.runs_plainly::<WIN, LOOPS>(blk) || !cache.interprets(slot) {
            return None;
        }
        self.insns += insn.idx as u64 + 1;
        self.cycles += insn.cum_cost as u64 + self.t_taken;
        Some(slot)
    }

    /// Whether the run loop runs `blk` (at `Cpu::pc`) on the plain path, given that the whole block
    /// fits in the instruction budget: no breakpoint and unpriced fetch, every pane it names in
    /// reach and no LEND inside; the rest go the general way.
    #[inline(always)]
    fn runs_plainly<const WIN: bool, const LOOPS: bool>(&self, blk: &Block) -> bool {
        (blk.flags == 0)
            & !(WIN && blk.max_pane > self.win_limit)
            & !(LOOPS && lend_within(blk.pc, blk.bytes as u32, self.lend))
    }

    /// The literal address of L32R at `pc` with LITBASE enabled, from `imm`, its address without (S2
    /// libisa: ((PC + 3) & ~3) + offset; S3 QEMU: (LITBASE & ~0xFFF) + offset when LITBASE[0] = 1). Out
    /// of line: rare, and inline its arithmetic gets worked out ahead for every block.
    #[cold]
    #[inline(never)]
    fn litbase_address(&self, imm: u32, pc: u32) -> u32 {
        let offset = imm.wrapping_sub(pc.wrapping_add(3) & !3);
        (self.litbase & 0xFFFF_F000).wrapping_add(offset)
    }

    /// RETW/RETW.N at `pc` (S3 QEMU win_helper.c): the return address, the hooks told; or the
    /// block is left after it for the reason given (an exception raised, or a stop).
    #[inline(always)]
    pub(super) fn retw<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        pc: u32,
    ) -> Result<u32, Option<StopReason>> {
        let a0 = self.ar[0];
        let n = a0 >> 30;
        if n == 0 {
            return Err(self.raise_exception(hooks, cause::ILLEGAL, pc, None)); // [Q]
        }
        let caller = self.wb.wrapping_sub(n) & 15;
        if self.ws & (1 << caller) == 0 {
            self.window_underflow(hooks, pc, n);
            return Err(None);
        }
        let tgt = (pc & 0xC000_0000) | (a0 & 0x3FFF_FFFF);
        self.ws &= !(1 << self.wb);
        self.set_wb(caller);
        self.update_win_limit();
        hooks.ret(pc, tgt);
        Ok(tgt)
    }

    /// ENTRY a<s>, `frame` at `pc` (S3 QEMU win_helper.c): the window moved on; or the block is left
    /// after it for the reason given (an exception raised, or a stop).
    #[inline(always)]
    pub(super) fn entry<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        s: u8,
        frame: u32,
        pc: u32,
    ) -> Result<(), Option<StopReason>> {
        if self.ps & PS_WOE == 0 || s > 3 {
            return Err(self.raise_exception(hooks, cause::ILLEGAL, pc, None));
        }
        let callinc = (self.ps & PS_CALLINC) >> PS_CALLINC_SHIFT;
        if callinc as u8 > self.win_limit {
            self.window_overflow(hooks, pc);
            return Err(None);
        }
        self.ar[(4 * callinc + (s as u32 & 3)) as usize] = self.ar[s as usize].wrapping_sub(frame);
        self.set_wb(self.wb + callinc);
        self.ws |= 1 << self.wb;
        self.update_win_limit();
        Ok(())
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
    fn mac(&mut self, x: u32, y: u32, h: u32, kind: u8) {
        // h: 0 LL, 1 HL, 2 LH, 3 HH; first letter = first source (S2 libisa)
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
    fn fp_enabled<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        pc: u32,
    ) -> Result<(), Option<StopReason>> {
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

    /// Execute (a prefix of) the decoded block starting at `lim.pc0`; `insns` are its instructions
    /// up to the instruction budget (on the plain path all of them and the end marker). Sets
    /// `self.pc` for the next block and adds the instructions and their static cycles to the
    /// counters. On `BlockExit::Stop` the reason is in `self.stop` (a flag is cheaper to pass back
    /// than the reason itself on every block).
    /// `PLAIN`: the plain path (see `Cpu::runs_plainly`), which may go on into further blocks (see
    /// `jump!` and `br!`); should LEND move into a block, it goes on along the general path
    /// (`BlockExit::Resume`). Otherwise `segments` says how to enter the block.
    /// `WIN`: the core has the windowed-register option (without it, those instructions are never
    /// decoded and their code is left out).
    /// `LOOPS`: zero-overhead loops may be active (blocks are cut at LEND).
    #[inline(always)]
    fn exec_block<
        B: XtensaBus,
        H: XtensaHooks,
        const PLAIN: bool,
        const WIN: bool,
        const LOOPS: bool,
    >(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        cache: &BlockCache,
        insns: &[Insn],
        lim: BlockLimits,
        segments: Segments,
    ) -> BlockExit {
        use Op::*;
        // On the plain path `insns` ends with the block's end marker; `code` keeps it.
        let code = insns;
        let insns = if PLAIN { &code[..code.len() - 1] } else { code };
        let mut pc0 = lim.pc0;
        // The counters are brought up to date when the block (or a loop pass) is left, from the last
        // instruction executed (`Insn::idx`, `Insn::cum_cost`); out-of-line instructions see them
        // current for their duration.
        let wchk = WIN && segments.wchk;
        // Index of the instruction after which a fall-through reaches LEND, if LEND lies within this
        // block, else `NO_LEND` (a segment ends there).
        let mut lend_idx = segments.lend_idx;
        let (stopped, end_n, end_cyc): (bool, u32, u64) = 'ex: {
            // The block runs in segments that end where a fall-through reaches LEND (or at the block's
            // end), so that no instruction pays for the LEND test: `insns[from..to]` is the segment. A
            // resumed block enters where its segment ended.
            let mut from = 0;
            let mut to = segments.resume_to.map_or(0, |to| to as usize);
            let mut resumed = segments.resume_to.is_some();
            'seg: loop {
                if !resumed {
                    to = if !PLAIN && lend_idx != NO_LEND && lend_idx as usize >= from {
                        lend_idx as usize + 1
                    } else {
                        insns.len()
                    };
                    let mut segment = insns[from..to].iter();
                    let mut plain_at = code.as_ptr();
                    loop {
                        let insn: &Insn = if PLAIN {
                            // The plain path walks the block up to its end marker without testing for the end
                            // of the slice (two host instructions per instruction): the marker leaves the loop,
                            // every other instruction moves on to the next or leaves (`jump!` may move on to
                            // the start of another block's code), so the walk stays within the code of a
                            // block (`BlockCache::plain_code`), which ends with the marker.
                            // SAFETY: `plain_at` points into the code of a block, as just argued.
                            unsafe { &*plain_at }
                        } else {
                            match segment.next() {
                                Some(insn) => insn,
                                None => break,
                            }
                        };
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
                        if wchk && insn.pane > self.win_limit {
                            // Before the instruction: it does not count.
                            self.window_overflow(hooks, pc!());
                            break 'ex (
                                false,
                                insn.idx as u32,
                                insn.cum_cost as u64 - insn.cost as u64,
                            );
                        }
                        // Leave the block after this instruction.
                        macro_rules! exit {
                            ($stop:expr) => {{
                                let stop: Option<StopReason> = $stop;
                                let stopped = stop.is_some();
                                if stopped {
                                    self.stop = stop;
                                }
                                break 'ex (stopped, insn.idx as u32 + 1, insn.cum_cost as u64);
                            }};
                        }
                        // The block running now as far as rare instructions need it: on the plain path
                        // `jump!` may have moved on from the one `lim` and `insns` describe.
                        macro_rules! here {
                            () => {
                                if PLAIN {
                                    Here::plain(cache, pc0)
                                } else {
                                    Here {
                                        insns,
                                        pc0,
                                        bytes: lim.bytes,
                                        max_pane: lim.max_pane,
                                    }
                                }
                            };
                        }
                        // Leave the block for `target` after this instruction, a taken branch or jump. The plain
                        // path goes on into the block at `target` on the spot when the run loop would run it
                        // plainly next (the pass is counted as a block exit would).
                        macro_rules! jump {
                ($target:expr) => {{
                    let target: u32 = $target;
                    if PLAIN {
                        // What else the plain path needs of the block it is in, it looks up by
                        // `pc0` again (`here!`), rather than carrying it along.
                        if let Some(next) = self.chains_to::<B, H, WIN, LOOPS>(bus, hooks, cache, &lim, insn, target) {
                            pc0 = target;
                            plain_at = cache.plain_code(&cache.fast[next]).as_ptr();
                            continue;
                        }
                    }
                    self.pc = target;
                    break 'ex (false, insn.idx as u32 + 1, insn.cum_cost as u64 + self.t_taken)
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
                                    Flow::Next => lend_moved!(here!().lend_at::<LOOPS>(self.lend)),
                                    Flow::Exit(x) => exit!(x),
                                }
                            }};
                        }
                        // LEND may have moved into or within this block: end the segment after this
                        // instruction, so that the next one is cut at the new LEND (on the general path).
                        macro_rules! lend_moved {
                            ($new:expr) => {{
                                let new = $new;
                                if new != lend_idx {
                                    if PLAIN {
                                        return BlockExit::Resume(Resume {
                                            pc0,
                                            to: insn.idx + 1,
                                            lend_idx: new,
                                        });
                                    }
                                    lend_idx = new;
                                    to = insn.idx as usize + 1;
                                    break;
                                }
                            }};
                        }
                        // The value of a data access, or leave the block with the fault it raised.
                        macro_rules! mem {
                            ($e:expr) => {
                                match $e {
                                    Ok(v) => v,
                                    Err(fault) => exit!(self.data_fault(hooks, fault, pc!())),
                                }
                            };
                        }
                        // a<r>, a<s>, a<t> of the instruction (a `u8` index into `Cpu::ar`: no bounds check), or
                        // a<i> for a register number i below 16.
                        macro_rules! a {
                            (r) => {
                                self.ar[insn.r as usize]
                            };
                            (s) => {
                                self.ar[insn.s as usize]
                            };
                            (t) => {
                                self.ar[insn.t as usize]
                            };
                            ($i:expr) => {
                                self.ar[((($i) as u32) & 15) as usize]
                            };
                        }
                        macro_rules! sa {
                            (r, $v:expr) => {{
                                let v: u32 = $v;
                                self.ar[insn.r as usize] = v
                            }};
                            (s, $v:expr) => {{
                                let v: u32 = $v;
                                self.ar[insn.s as usize] = v
                            }};
                            (t, $v:expr) => {{
                                let v: u32 = $v;
                                self.ar[insn.t as usize] = v
                            }};
                            ($i:expr, $v:expr) => {{
                                let v: u32 = $v;
                                self.ar[((($i) as u32) & 15) as usize] = v
                            }};
                        }
                        macro_rules! br {
                ($cond:expr) => {{
                    if $cond {
                        jump!(insn.imm);
                    }
                    // Not taken on the plain path: the next block of the superblock (see `Block`)
                    // or its end follows here.
                    if PLAIN && !self.runs_on_plainly(bus, hooks, &lim, insn, 0, next!()) {
                        self.pc = next!();
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
                            // The end marker of a block on the plain path (see `block_end_marker`).
                            Illegal if PLAIN && insn.len == 0 => {
                                self.pc = pc0.wrapping_add(insn.imm);
                                break 'ex (false, insn.idx as u32, insn.cum_cost as u64);
                            }
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
                                // sign-extend from bit b = t + 7 (S2 libisa)
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
                                // redundant sign bits; 31 for 0 and −1 (S3 QEMU translate.c)
                                let v = a!(s);
                                let x = if (v as i32) < 0 { !v } else { v };
                                sa!(t, if x == 0 { 31 } else { x.leading_zeros() - 1 })
                            }
                            Nsau => sa!(t, a!(s).leading_zeros()),
                            // ---- shifts (S3 QEMU translate.c) ----
                            Slli => sa!(r, ((a!(s) as u64) << insn.imm) as u32),
                            Srai => sa!(r, ((a!(t) as i32) >> insn.imm) as u32),
                            Srli => sa!(r, a!(t) >> insn.imm),
                            Extui => {
                                // imm = shift | width << 8 with shift < 32 and width 1..=16 (the decoder's).
                                let (sh, w) = (insn.imm & 0xFF, insn.imm >> 8);
                                sa!(r, (a!(t) >> sh) & ((1u32 << w) - 1))
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
                            Mul16s => {
                                sa!(r, ((a!(s) as i16 as i32) * (a!(t) as i16 as i32)) as u32)
                            }
                            Mull => sa!(r, a!(s).wrapping_mul(a!(t))),
                            Muluh => sa!(r, ((a!(s) as u64 * a!(t) as u64) >> 32) as u32),
                            Mulsh => sa!(
                                r,
                                ((a!(s) as i32 as i64 * a!(t) as i32 as i64) >> 32) as u32
                            ),
                            Quou | Quos | Remu | Rems => {
                                let (x, y) = (a!(s), a!(t));
                                if y == 0 {
                                    exc!(cause::DIVIDE_BY_ZERO);
                                }
                                // QUOS(−2^31, −1) = −2^31, REMS = 0 [U] — wrapping ops give exactly that.
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
                                let v = mem!(self.try_load(bus, a!(s).wrapping_add(insn.imm), 1));
                                sa!(t, v)
                            }
                            L16ui => {
                                let v = mem!(self.try_load(bus, a!(s).wrapping_add(insn.imm), 2));
                                sa!(t, v)
                            }
                            L16si => {
                                let v = mem!(self.try_load(bus, a!(s).wrapping_add(insn.imm), 2));
                                sa!(t, v as u16 as i16 as i32 as u32)
                            }
                            L32i | L32iN | L32ai | L32e => {
                                let v = mem!(self.try_load(bus, a!(s).wrapping_add(insn.imm), 4));
                                sa!(t, v)
                            }
                            S8i => {
                                mem!(self.try_store(bus, a!(s).wrapping_add(insn.imm), 1, a!(t)))
                            }
                            S16i => {
                                mem!(self.try_store(bus, a!(s).wrapping_add(insn.imm), 2, a!(t)))
                            }
                            S32i | S32iN | S32ri | S32e | S32nb => {
                                mem!(self.try_store(bus, a!(s).wrapping_add(insn.imm), 4, a!(t)))
                            }
                            L32r => {
                                // The block holds the address without LITBASE (see `build_block`).
                                let addr = if self.litbase & 1 != 0 {
                                    self.litbase_address(insn.imm, pc!())
                                } else {
                                    insn.imm
                                };
                                let v = mem!(self.try_load(bus, addr, 4));
                                sa!(t, v)
                            }
                            S32c1i => {
                                // S3 QEMU translate.c: old = mem; if old == SCOMPARE1 store at; at = old
                                let addr = a!(s).wrapping_add(insn.imm);
                                let old = mem!(self.try_load(bus, addr, 4));
                                if old == self.scompare1 {
                                    mem!(self.try_store(bus, addr, 4, a!(t)));
                                }
                                sa!(t, old)
                            }
                            // ---- branches ----
                            Beqz | BeqzN => br!(a!(s) == 0),
                            Bnez | BnezN => br!(a!(s) != 0),
                            Bltz => br!((a!(s) as i32) < 0),
                            Bgez => br!((a!(s) as i32) >= 0),
                            Beqi => {
                                br!(a!(s) as i32
                                    == super::decode::B4CONST[(insn.r as u32) as usize])
                            }
                            Bnei => {
                                br!(a!(s) as i32
                                    != super::decode::B4CONST[(insn.r as u32) as usize])
                            }
                            Blti => {
                                br!((a!(s) as i32)
                                    < super::decode::B4CONST[(insn.r as u32) as usize])
                            }
                            Bgei => {
                                br!((a!(s) as i32)
                                    >= super::decode::B4CONST[(insn.r as u32) as usize])
                            }
                            Bltui => br!(a!(s) < super::decode::B4CONSTU[(insn.r as u32) as usize]),
                            Bgeui => {
                                br!(a!(s) >= super::decode::B4CONSTU[(insn.r as u32) as usize])
                            }
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
                            Bbci => br!(a!(s)
                                & (1 << ((((insn.r as u32) & 1) << 4) | (insn.t as u32)))
                                == 0),
                            Bbsi => br!(a!(s)
                                & (1 << ((((insn.r as u32) & 1) << 4) | (insn.t as u32)))
                                != 0),
                            Bf => br!(!self.getb(insn.s)),
                            Bt => br!(self.getb(insn.s)),
                            J => {
                                // `j .` as a block of its own: the core spins and can only leave through an
                                // interrupt, so wait for one as WAITI does (time jumps to the next timer
                                // interrupt; none possible: a stop).
                                if insn.imm == pc0 && insn.idx == 0 {
                                    self.waiting = true;
                                }
                                jump!(insn.imm);
                            }
                            Jx => {
                                let tgt = a!(s);
                                jump!(tgt);
                            }
                            // ---- calls / returns ----
                            Call0 => {
                                sa!(0, next!());
                                hooks.call(pc!(), next!(), insn.imm, 0);
                                jump!(insn.imm);
                            }
                            Callx0 => {
                                let tgt = a!(s);
                                sa!(0, next!());
                                hooks.call(pc!(), next!(), tgt, 0);
                                jump!(tgt);
                            }
                            Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                                if !WIN {
                                    // Never decoded without the windowed-register option (keeps the code out).
                                    exc!(cause::ILLEGAL);
                                }
                                // S3 QEMU: target first; a[4n] = n<<30 | (PC+3)[29:0]; PS.CALLINC = n
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
                                hooks.call(pc!(), next!(), tgt, 4 * n);
                                jump!(tgt);
                            }
                            Ret | RetN => {
                                let tgt = a!(0);
                                hooks.ret(pc!(), tgt);
                                jump!(tgt);
                            }
                            Retw | RetwN => {
                                if !WIN {
                                    // Never decoded without the windowed-register option (keeps the code out).
                                    exc!(cause::ILLEGAL);
                                }
                                match self.retw(hooks, pc!()) {
                                    Ok(tgt) => jump!(tgt),
                                    Err(stop) => exit!(stop),
                                }
                            }
                            Entry => {
                                if !WIN {
                                    // Never decoded without the windowed-register option (keeps the code out).
                                    exc!(cause::ILLEGAL);
                                }
                                if let Err(stop) = self.entry(hooks, insn.s, insn.imm, pc!()) {
                                    exit!(stop);
                                }
                                // The block continues in the new window unless it names panes now out of reach.
                                if !wchk && here!().max_pane > self.win_limit {
                                    self.pc = next!();
                                    exit!(None);
                                }
                            }
                            Movsp => {
                                if !WIN {
                                    // Never decoded without the windowed-register option (keeps the code out).
                                    exc!(cause::ILLEGAL);
                                }
                                // Alloca if WS[WB−1..WB−3] are all clear (S3 QEMU)
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
                            // ---- zero-overhead loops (S3 QEMU) ----
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
                                    jump!(insn.imm);
                                }
                                lend_moved!(here!().lend_at::<LOOPS>(insn.imm));
                            }
                            Isync | Rsync | Esync | Dsync | Excw | Memw | Extw | Nop | NopN => {}
                            // CCOUNT at this instruction, without leaving the block: delay loops
                            // (`ets_delay_us`) read it in a three-instruction loop.
                            Rsr if insn.imm == SR_CCOUNT => {
                                let at = self.cycles.wrapping_add(insn.cum_cost as u64);
                                sa!(t, (at as u32).wrapping_add(self.ccount_off))
                            }
                            Ee => out_of_line!(self.exec_pie(bus, hooks, insn, pc!())),
                            // Every other op by name, not `_`: an exhaustive match lets the dispatch table cover
                            // the whole enum with no range check per instruction.
                            Rfe | Rfde | Rfi | Break | Syscall | Simcall | Rsil | Waiti | Any4
                            | All4 | Any8 | All8 | Rer | Wer | Ritlb0 | Iitlb | Pitlb | Witlb
                            | Ritlb1 | Rdtlb0 | Idtlb | Pdtlb | Wdtlb | Rdtlb1 | Xsr | Andb
                            | Andbc | Orb | Orbc | Xorb | Rsr | Wsr | Rur | Wur | Lsx | Lsxp
                            | Ssx | Ssxp | AddS | SubS | MulS | MaddS | MsubS | MaddnS | DivnS
                            | RoundS | TruncS | FloorS | CeilS | FloatS | UfloatS | UtruncS
                            | MovS | AbsS | ConstS | Rfr | Wfr | NegS | Div0S | Recip0S
                            | Sqrt0S | Rsqrt0S | Nexp01S | MksadjS | MkdadjS | AddexpS
                            | AddexpmS | UnS | OeqS | UeqS | OltS | UltS | OleS | UleS
                            | MoveqzS | MovnezS | MovltzS | MovgezS | MovfS | MovtS | Lsi | Ssi
                            | Lsip | Ssip | UmulAa | MulAa | MulaAa | MulsAa | MulAd | MulaAd
                            | MulsAd | MulDa | MulaDa | MulsDa | MulDd | MulaDd | MulsDd
                            | MulaDaLdinc | MulaDaLddec | MulaDdLdinc | MulaDdLddec | Ldinc
                            | Lddec | BreakN => {
                                out_of_line!(self.exec_slow(bus, hooks, insn, pc!(), next!()))
                            }
                        }
                        if PLAIN {
                            plain_at = plain_at.wrapping_add(1);
                        }
                    }
                }
                resumed = false;
                if PLAIN {
                    break 'seg;
                }
                // Zero-overhead loop-back on fall-through (S3 QEMU): `insns[to - 1]` is followed by LEND.
                if lend_idx as usize + 1 == to && self.loop_back() {
                    let insn = &insns[to - 1];
                    // The pass ends here: count it.
                    self.insns += insn.idx as u64 + 1;
                    self.cycles += insn.cum_cost as u64;
                    // Stay in this block when the loop body starts here and no event can be due.
                    if self.lbeg == pc0
                        && !self.irq_check
                        && lim.max_pane <= self.win_limit
                        && self.insns + insns.len() as u64 <= lim.run.insn_end
                        && self.cycles < lim.cycle_limit
                        && bus.code_generation() == lim.generation
                    {
                        // Memory traffic stays charged as it was until the block is left (`general_block`).
                        let _ = hooks.block_start(pc0, self.cycles, self.insns);
                        if lim.fetch {
                            bus.block_fetch(pc0, lim.bytes, self.cycles);
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
                    (false, last.idx as u32 + 1, last.cum_cost as u64)
                }
                None => {
                    self.pc = pc0;
                    (false, 0, 0)
                }
            }
        };
        self.insns = self.insns.wrapping_add(end_n as u64);
        self.cycles = self.cycles.wrapping_add(end_cyc);
        if stopped {
            BlockExit::Stop
        } else {
            BlockExit::Next
        }
    }
}

/// Why a data access failed.
#[derive(Clone, Copy)]
pub(super) enum DataFault {
    /// Not aligned to its size, on a core that raises the alignment exception.
    Misaligned {
        addr: u32,
    },
    Bus(BusFault, AccessKind),
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
                // FCR/FSR need CP0; the PIE URs CP3 except GPIO_OUT (S2 libisa, S5 tie.h).
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
            // ---- ESP32-S3 PIE (pie.rs: S2 libisa, S4) ----
            Ee => return self.exec_pie(bus, hooks, insn, pc),
            Rsil => {
                // S3 QEMU translate.c: at = PS, then PS.INTLEVEL = n
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
                    return Flow::Exit(Some(StopReason::Break {
                        pc,
                        s: insn.s,
                        t: insn.t,
                        len: insn.len,
                    }));
                }
                let dl = self.cfg.debug_level;
                if self.cintlevel() < dl {
                    // S3 QEMU [Q]: DEBUGCAUSE BI/BN, EPC/EPS[debug level], PS.INTLEVEL = level, EXCM = 1
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
                    self.dtlb_attr[reg] = v;
                    bus.set_illegal_regions(self.illegal_regions(&self.dtlb_attr));
                }
            }
            Ritlb0 | Rdtlb0 | Pitlb | Pdtlb => self.set_ar(t, a!(s) & 0xE000_0000),
            Ritlb1 | Rdtlb1 => {
                let reg = (a!(s) >> 29) as usize;
                let v = if insn.op == Ritlb1 {
                    self.itlb_attr[reg]
                } else {
                    self.dtlb_attr[reg]
                };
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
            // ---- MAC16 (S2 libisa; semantics as in S3 QEMU) ----
            UmulAa | MulAa | MulaAa | MulsAa | MulAd | MulaAd | MulsAd | MulDa | MulaDa
            | MulsDa | MulDd | MulaDd | MulsDd | MulaDaLdinc | MulaDaLddec | MulaDdLdinc
            | MulaDdLddec | Ldinc | Lddec => {
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
                        let p = if inc {
                            a!(s).wrapping_add(4)
                        } else {
                            a!(s).wrapping_sub(4)
                        };
                        let v = ms!(self.load(bus, hooks, p, 4, pc));
                        self.set_ar(s, p);
                        self.m[mw] = v;
                    }
                    _ => {}
                }
            }
            // ---- FPU (coprocessor 0, S3 QEMU [Q]) ----
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
                let (x, y, z) = (
                    f(self.fr[s as usize]),
                    f(self.fr[t as usize]),
                    f(self.fr[r as usize]),
                );
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
                // no-ops as in QEMU [Q] (S3: the division and square-root helpers)
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
                let x = if insn.op == FloatS {
                    v as i32 as f32
                } else {
                    v as f32
                };
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
