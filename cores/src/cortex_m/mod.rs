//! Cortex-M on Unicorn: Thumb M-class execution, a minimal NVIC with exception entry and return
//! performed here (Unicorn does neither for M-profile), SysTick/DWT counting simulated cycles, and the
//! cycle model of `timing` applied per basic block.
//!
//! Hot path: one block hook per executed block (cached block costs), a memory hook only on the ranges
//! of real memory that price accesses, installed at their first access (see `install_hooks`), and a
//! code hook only on divide and sleep instructions found in the ELF.

mod align;
mod debug;
mod exceptions;
mod ppb;
pub mod timing;

use crate::{
    Budget, Core, CoreError, Entry, ExecObserver, Fault, FaultKind, Flow, Stop, Watchpoint,
};
use capstone::Capstone;
use debug::StopPlace;
use exceptions::ActiveException;
use ppb::Ppb;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{HashMap, HashSet};
use tigris_memmodels::periph::Peripherals;
use tigris_memmodels::MemorySystem;
use tigris_targets::{Access, Board, CoreKind, RegionKind};
use timing::{Class, DataRead, Decoded};
use unicorn_engine::{
    uc_error, Arch, HookType, MemType, Mode, Prot, RegisterARM, TlbEntry, TlbType, Unicorn,
};

/// EXC_RETURN values live at the top of the address space; a branch there ends a handler.
const EXC_RETURN_MIN: u32 = 0xFFFF_FF00;
/// LR at reset (ARMv7-M ARM B1.5.5: "UNKNOWN"; 0xFFFFFFFF as the Arm cores leave it): a return
/// there from the function a run started at ends the run.
const RESET_LR: u32 = 0xFFFF_FFFF;
/// Unicorn's exception numbers seen by the interrupt hook (QEMU target/arm/cpu.h EXCP_*).
const EXCP_UDEF: u32 = 1;
const EXCP_SWI: u32 = 2;
const EXCP_PREFETCH_ABORT: u32 = 3;
const EXCP_DATA_ABORT: u32 = 4;
const EXCP_BKPT: u32 = 7;
const EXCP_EXCEPTION_EXIT: u32 = 8;
const EXCP_NOCP: u32 = 17;
const EXCP_INVSTATE: u32 = 18;
const EXCP_UNALIGNED: u32 = 22;

/// `emu_start`'s end address, which no Thumb PC ever equals: with 0, code running at address 0
/// (a vector table at 0, a call into an empty boot ROM) would stop before its first instruction, and
/// the run loop would restart it there forever.
const NO_UNTIL: u64 = u64::MAX;

/// Unicorn's buffer for translated code. QEMU reserves 1 GiB on a 64-bit host and keeps what a run
/// filled resident; when this much is full, it drops every translation and translates again as code
/// runs, which changes nothing the firmware or the hooks see.
const TRANSLATION_BUFFER_BYTES: u32 = 32 << 20;

/// Most machine states a fault handler's loop is compared against before the watch starts over.
const SPIN_WATCH_STATES: usize = 64;

/// The firmware's executable ranges and whether to count every memory access (see `CortexM::new`).
type CodeToHook<'c> = (&'c [(u32, Vec<u8>)], bool);

/// Slots of `Blocks::recent`: a power of two; ample for the hot loops of firmware.
const RECENT_BLOCKS: usize = 4096;

/// Blocks by start address, with a direct-mapped table of the recently run ones in front of the
/// map: the block hook finds its block there with one compare, and the map is searched on a miss.
struct Blocks {
    all: Vec<Block>,
    index: FxHashMap<u32, u32>,
    /// (start address, index into `all`); an odd address, which no Thumb block starts at, when empty.
    recent: Box<[(u32, u32)]>,
}

impl Blocks {
    fn new() -> Self {
        Blocks {
            all: Vec::new(),
            index: FxHashMap::default(),
            recent: vec![(1, 0); RECENT_BLOCKS].into_boxed_slice(),
        }
    }

    /// Index of the block at `addr`, remembered in the recent table.
    #[inline(always)]
    fn find(&mut self, addr: u32) -> Option<usize> {
        let slot = &mut self.recent[(addr as usize >> 1) & (RECENT_BLOCKS - 1)];
        if slot.0 == addr {
            return Some(slot.1 as usize);
        }
        let i = *self.index.get(&addr)?;
        *slot = (addr, i);
        Some(i as usize)
    }

    fn get(&self, addr: u32) -> Option<&Block> {
        self.index.get(&addr).map(|&i| &self.all[i as usize])
    }

    fn insert(&mut self, addr: u32, block: Block) {
        self.index.insert(addr, self.all.len() as u32);
        self.all.push(block);
    }
}

/// The instruction-fetch units of a block whose region prices fetch.
struct Fetch {
    region: usize,
    /// (unit address, the I-cache entry it was in when last fetched: `MemorySystem::fetch_at`).
    units: Vec<(u32, u32)>,
    /// Cycles into the block when each unit is first needed.
    offsets: Vec<u32>,
    /// `MemorySystem::fetch_hits`'s memo of when the units were last all in the I-cache.
    resident: u64,
}

/// How the previous block ended, for the dynamic terms of the next one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BlockEnd {
    Plain,
    Call,
    Return,
    /// Conditional branch at `addr`: taken when the next block is not the fall-through. When its
    /// target *is* the fall-through, the flags decide: `cond` is its condition code.
    Conditional {
        addr: u32,
        cond: Option<timing::Condition>,
    },
}

/// Costs of one basic block, computed once.
struct Block {
    insns: u32,
    cycles: u32,
    /// (instruction address, cycles of the block before it) for cycle-accurate counter reads.
    prefix: Vec<(u32, u32)>,
    end: BlockEnd,
    fallthrough: u32,
    /// Its fetch units, when fetch from its region can stall.
    fetch: Option<Fetch>,
    /// A single-instruction branch to itself: firmware idling or stuck.
    spins: bool,
    /// Address of its last instruction (the branch that leaves it).
    last: u32,
    /// Any instruction of it loads or stores (stack pushes included).
    touches_memory: bool,
    /// (address, base register) of the block's memory instructions with a base register.
    memory_insns: Vec<(u32, u8)>,
    /// M3/M4: (first, second) addresses of neighbouring loads priced as pipelined, which they are
    /// only when both reach the same memory block (checked by the data hook).
    pipelined_loads: Vec<(u32, u32)>,
    /// With pipelined loads: the block's instructions that read memory, in order, and what they
    /// read (`reading_instruction`).
    reads: Vec<(u32, DataRead)>,
    /// Its last instruction always changes the PC (branch, return, load or write to the PC).
    jumps: bool,
    /// M3/M4: it starts with a 32-bit instruction on an odd halfword, one more refill cycle when a
    /// branch lands on it.
    unaligned_wide_entry: bool,
}

/// Why the hooks asked Unicorn to stop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pending {
    None,
    /// Budget or the next timer event reached.
    Deadline,
    Semihosting,
    Svc,
    ExceptionReturn,
    /// Sleeping (WFI/WFE) or spinning on `b .`, at this PC.
    Idle {
        pc: u32,
    },
    /// Execution reached a trap address (before the block there runs).
    Trap {
        pc: u32,
    },
    Fault(FaultKind, u32),
    /// A UsageFault the engine raised, with its CFSR bit.
    Usage(u32),
    /// `--strict-mmio`: a poll of this peripheral address without progress.
    Poll(u32),
    /// A debugger's breakpoint, before the instruction at `pc`.
    Breakpoint {
        pc: u32,
    },
    /// A debugger's watchpoint saw an access to `addr`.
    Watch {
        addr: u32,
        write: bool,
    },
}

/// Everything the Unicorn hooks read and write.
struct State {
    kind: CoreKind,
    cs: Capstone,
    cycles: u64,
    instructions: u64,
    /// Cycle count at the start of the current block and stalls charged inside it.
    block_start_cycles: u64,
    block_stalls: u64,
    /// Cycle at which the last priced instruction-fetch unit arrived.
    last_unit_arrival: u64,
    current_block: u32,
    /// Last instruction of the current block and of the block before it (where a branch was).
    block_last: u32,
    prev_block_last: u32,
    deadline_cycles: u64,
    deadline_insns: u64,
    blocks: Blocks,
    prev_end: BlockEnd,
    prev_fallthrough: u32,
    /// The previous block ended with an instruction that always changes the PC.
    prev_jumps: bool,
    /// M3/M4: the current block has loads priced as pipelined (`Block::pipelined_loads`).
    block_pipelines: bool,
    /// M3/M4: a pipelined pair's first load reached this region and the second load (at this
    /// address) has not been seen yet: the pair was charged its saved cycle until it is.
    pipe_pending: Option<(u32, usize)>,
    /// M3/M4, data through device copies: the index in `Block::reads` from which the next device read
    /// is looked for, and the bytes the last one found reads (`reading_instruction`).
    read_cursor: usize,
    last_read: (u32, u32),
    /// Where the previous device read of the block ended.
    read_end: u32,
    /// Flow to report with the next block (exception entry/return set it).
    next_flow: Option<Flow>,
    /// 2-bit branch predictor counters (M7).
    predictor: Vec<u8>,
    mem: MemorySystem,
    ppb: Ppb,
    uart: Option<tigris_targets::UartSpec>,
    /// What was written to device-page addresses no peripheral register models.
    device_store: HashMap<u32, u32>,
    /// The board's peripheral register blocks.
    periph: Peripherals,
    strict_mmio: bool,
    trace_mmio: bool,
    console: Vec<u8>,
    pending: Pending,
    observer: Option<*mut dyn ExecObserver>,
    /// The observer's `quiet_jumps` range: plain jumps into it are not reported.
    quiet: (u32, u32),
    /// System-register accesses so far in the current block.
    ppb_accesses_in_block: usize,
    /// Addresses with a divide/sleep code hook.
    hooked: HashSet<u32>,
    /// Whether every instruction is hooked for the unaligned-access check (`align`), installed
    /// once the firmware sets CCR.UNALIGN_TRP; and each address's decoded load/store form.
    align_hooked: bool,
    mem_ops: FxHashMap<u32, Option<align::MemOp>>,
    /// Region index of each watched address range, for fetch pricing.
    fetch_regions: Vec<(u32, u32, usize)>,
    /// Addresses where execution stops with `Stop::Trap` (see `Core::set_traps`), and the trap just
    /// reported, which the resumed run passes once.
    traps: FxHashSet<u32>,
    trap_resume: Option<u32>,
    /// Ranges `(start, end_inclusive, region)` of the regions that price data accesses, whose loads
    /// and stores reach them through device callbacks at `DATA_ALIAS` (`CortexM::redirect_data_accesses`).
    redirected: Vec<(u32, u32, usize)>,
    /// Emulation resumes at this address inside a block already charged: its block hook is skipped once.
    resume_in_block: Option<u32>,
    /// The debugger's breakpoint the run resumes from, which it passes once.
    breakpoint_resume: Option<u32>,
    /// While a fault handler runs: the (block address, register file) states seen since its last
    /// block that accessed memory (see `watch_fault_handler`).
    spin_watch: Option<Vec<(u32, [u32; 17])>>,
}

/// How a `CortexM::run_bare` run ended.
#[derive(Debug, Clone, Copy)]
pub struct BareRun {
    /// The semihosting exit call it stopped at: operation (R0) and argument (R1); None when it
    /// stopped for another exception.
    pub exit: Option<(u32, u32)>,
    /// Instructions executed, when they were counted.
    pub instructions: Option<u64>,
}

/// Instructions in a run of Thumb code: a first halfword 0b11101, 0b11110 or 0b11111 in its top
/// five bits starts a 32-bit instruction (ARMv7-M ARM A5.1).
fn thumb_instructions(code: &[u8]) -> u64 {
    let (mut at, mut n) = (0, 0);
    while at + 1 < code.len() {
        let top = code[at + 1] >> 3;
        at += if top >= 0b11101 { 4 } else { 2 };
        n += 1;
    }
    n
}

pub struct CortexM<'a> {
    uc: Unicorn<'a, State>,
    kind: CoreKind,
    active: Vec<ActiveException>,
    /// Host memory behind every region, kept alive for Unicorn (regions with aliases share it).
    _backing: Vec<Box<[u8]>>,
    fpu: bool,
    /// A return to the reset LR (0xFFFFFFFF) ends the run: started with `--entry`.
    return_ends_run: bool,
    debug: debug::DebugHooks,
}

/// A Unicorn error while the backend was doing `what`, kept as the source.
fn engine(what: &str) -> impl FnOnce(uc_error) -> CoreError + '_ {
    move |source| CoreError::Unicorn {
        what: what.to_string(),
        source,
    }
}

/// Size Unicorn's translation-code buffer, before the engine is first used (which allocates it).
/// The crate has no wrapper for this control (unicorn.h `uc_ctl_set_tcg_buffer_size`).
fn set_translation_buffer(uc: &mut Unicorn<State>, bytes: u32) -> Result<(), uc_error> {
    use unicorn_engine::ControlType;
    let write = ControlType(ControlType::TCG_BUFFER_SIZE.0 | ControlType::IO_WRITE.0);
    // SAFETY: a valid engine handle; TCG_BUFFER_SIZE takes one uint32_t argument.
    unsafe { unicorn_engine::uc_ctl(uc.get_handle(), write, bytes) }.into()
}

fn page_align(size: u64) -> u64 {
    size.div_ceil(0x1000) * 0x1000
}

impl State {
    /// Per-block work: charge the block, apply the dynamic terms of the previous one, report flow.
    #[inline]
    /// `flags` is the APSR when the previous block ended with a branch to its own fall-through.
    fn on_block(&mut self, addr: u32, flags: Option<u32>) -> bool {
        let Some(index) = self.blocks.find(addr) else {
            return false;
        };
        let block = &mut self.blocks.all[index];
        // A stop requested here takes effect before the block runs (Unicorn checks for an exit
        // request right after the block hook), so decide it before charging anything: the block is
        // charged when emulation resumes and the hook runs again.
        if block.spins {
            self.pending = Pending::Idle { pc: addr };
            return true;
        }
        // `is_empty` first: should `contains` not be inlined, the call would cost every block.
        if self.trap_resume.take() != Some(addr)
            && !self.traps.is_empty()
            && self.traps.contains(&addr)
        {
            self.pending = Pending::Trap { pc: addr };
            return true;
        }
        if self.cycles >= self.deadline_cycles || self.instructions >= self.deadline_insns {
            self.pending = Pending::Deadline;
            return true;
        }
        // Dynamic term of the previous block's conditional branch.
        let mut extra = 0u64;
        let mut flow = Flow::Jump;
        let mut branched = self.prev_jumps;
        match self.prev_end {
            BlockEnd::Conditional { addr: branch, cond } => {
                let taken = match (cond, flags) {
                    (Some(c), Some(apsr)) => c.holds(apsr),
                    _ => addr != self.prev_fallthrough,
                };
                branched = taken;
                if self.kind == CoreKind::CortexM7 {
                    let slot = &mut self.predictor[(branch as usize >> 1) & 1023];
                    let predicted_taken = *slot >= 2;
                    if predicted_taken != taken {
                        extra += timing::M7_MISPREDICT as u64;
                    }
                    *slot = if taken {
                        (*slot + 1).min(3)
                    } else {
                        slot.saturating_sub(1)
                    };
                } else if taken {
                    extra += timing::BRANCH_REFILL as u64;
                }
            }
            BlockEnd::Call => {
                flow = Flow::Call {
                    return_to: self.prev_fallthrough,
                }
            }
            BlockEnd::Return => flow = Flow::Return,
            BlockEnd::Plain => {}
        }
        if let Some(f) = self.next_flow.take() {
            flow = f;
        }
        if branched && block.unaligned_wide_entry {
            extra += 1;
        }
        self.cycles += extra;
        let quiet = flow == Flow::Jump && addr >= self.quiet.0 && addr < self.quiet.1;
        if let (Some(obs), false) = (self.observer, quiet) {
            // SAFETY: set by `run` for the duration of `emu_start` only; hooks run inside it.
            let (quiet, owner) =
                unsafe { (*obs).report_block(addr, flow, self.cycles, self.instructions) };
            self.quiet = quiet;
            self.mem.set_owner(owner);
        }
        self.block_start_cycles = self.cycles;
        self.block_stalls = 0;
        self.current_block = addr;
        self.prev_block_last = self.block_last;
        self.block_last = block.last;
        self.ppb_accesses_in_block = 0;
        self.cycles += block.cycles as u64;
        self.instructions += block.insns as u64;
        self.prev_end = block.end;
        self.prev_fallthrough = block.fallthrough;
        self.prev_jumps = block.jumps;
        self.block_pipelines = !block.pipelined_loads.is_empty();
        self.pipe_pending = None;
        self.read_cursor = 0;
        self.last_read = (0, 0);
        self.read_end = 0;
        if let Some(f) = &mut block.fetch {
            let mut stall = 0u64;
            if let Some(hit) = self.mem.fetch_hits(f.region, &f.units, &mut f.resident) {
                // As the loop below: all hits, the last unit needed after the others' hit time.
                let (n, last) = (f.units.len() as u64, f.offsets[f.units.len() - 1] as u64);
                stall = n * hit as u64;
                self.last_unit_arrival = self.block_start_cycles + last + stall;
            } else {
                for ((unit, slot), &offset) in f.units.iter_mut().zip(&f.offsets) {
                    // Cycles since the previous unit arrived, across block boundaries, for the
                    // prefetcher.
                    let needed_at = self.block_start_cycles + offset as u64 + stall;
                    let since = needed_at
                        .saturating_sub(self.last_unit_arrival)
                        .min(u32::MAX as u64) as u32;
                    let s = self.mem.fetch_at(f.region, *unit, since, slot) as u64;
                    stall += s;
                    self.last_unit_arrival = needed_at + s;
                }
            }
            self.cycles += stall;
            self.block_stalls += stall;
        }
        true
    }

    /// Cycle count at the instruction at `pc` inside the current block.
    fn cycles_at(&self, pc: u32) -> u64 {
        let Some(block) = self.blocks.get(self.current_block) else {
            return self.cycles;
        };
        let before = match block.prefix.binary_search_by_key(&pc, |p| p.0) {
            Ok(i) => block.prefix[i].1,
            Err(_) => block.cycles,
        };
        self.block_start_cycles + before as u64 + self.block_stalls
    }

    fn build_block(&mut self, addr: u32, code: &[u8]) -> Block {
        let insns = self.cs.disasm_all(code, addr as u64).ok();
        let decoded: Vec<Decoded> = insns
            .iter()
            .flat_map(|list| list.iter())
            .map(|i| timing::decode(&self.cs, i))
            .collect();
        let mut cycles = 0u32;
        let mut prefix = Vec::with_capacity(decoded.len());
        for (d, c) in decoded.iter().zip(timing::block_costs(self.kind, &decoded)) {
            prefix.push((d.addr, cycles));
            let unknown_divide = d.class == Class::Div && !self.hooked.contains(&d.addr);
            cycles += c + if unknown_divide {
                timing::DIV_UNKNOWN_OPERANDS - 2
            } else {
                0
            };
        }
        let pipelined_loads = if pairs_loads(self.kind) {
            decoded
                .windows(2)
                .filter(|w| timing::m4_load_pipelines(&w[1], Some(&w[0])))
                .map(|w| (w[0].addr, w[1].addr))
                .collect()
        } else {
            Vec::new()
        };
        let last = decoded.last();
        let end = match last {
            Some(d) if d.is_call => BlockEnd::Call,
            Some(d) if d.is_return => BlockEnd::Return,
            Some(d) if d.class == Class::CondBranch => BlockEnd::Conditional {
                addr: d.addr,
                cond: timing::branch_to_next(d)
                    .then(|| timing::Condition::of(&d.text))
                    .flatten(),
            },
            _ => BlockEnd::Plain,
        };
        let spins = decoded.len() == 1
            && decoded[0].class == Class::Branch
            && !decoded[0].is_call
            && decoded[0].text.ends_with(&format!("#0x{addr:x}"));
        let fetch = self
            .fetch_regions
            .iter()
            .find(|(lo, hi, _)| addr >= *lo && addr <= *hi)
            .map(|r| r.2)
            .filter(|&r| self.mem.regions[r].prices_fetch())
            .map(|region| {
                let unit = self.mem.regions[region].fetch_unit();
                let mut f = Fetch {
                    region,
                    units: Vec::new(),
                    offsets: Vec::new(),
                    resident: tigris_memmodels::NOT_RESIDENT,
                };
                for (d, &(_, before)) in decoded.iter().zip(&prefix) {
                    let u = d.addr & !(unit - 1);
                    if f.units.last().map(|l| l.0) != Some(u) {
                        f.units.push((u, tigris_memmodels::NO_SLOT));
                        f.offsets.push(before);
                    }
                }
                f
            });
        let size = code.len() as u32;
        let memory_insns = decoded
            .iter()
            .filter(|d| {
                matches!(
                    d.class,
                    Class::Load
                        | Class::Store
                        | Class::LoadStoreDouble
                        | Class::Multiple(_)
                        | Class::FpLoad { .. }
                        | Class::FpMultiple { .. }
                )
            })
            .filter_map(|d| Some((d.addr, d.base?)))
            .collect();
        let touches_memory = decoded.iter().any(|d| {
            matches!(
                d.class,
                Class::Load
                    | Class::Store
                    | Class::LoadStoreDouble
                    | Class::Multiple(_)
                    | Class::FpLoad { .. }
                    | Class::FpMultiple { .. }
            )
        });
        Block {
            jumps: last.is_some_and(|d| d.writes_pc && d.class != Class::CondBranch),
            unaligned_wide_entry: timing::unaligned_wide_target(self.kind, decoded.first()),
            reads: if pipelined_loads.is_empty() {
                Vec::new()
            } else {
                decoded
                    .iter()
                    .filter_map(|d| Some((d.addr, d.data_read?)))
                    .collect()
            },
            pipelined_loads,
            touches_memory,
            last: decoded.last().map(|d| d.addr).unwrap_or(addr),
            memory_insns,
            insns: decoded.len() as u32,
            cycles,
            prefix,
            end,
            fallthrough: addr + size,
            fetch,
            spins,
        }
    }
}

impl<'a> CortexM<'a> {
    /// Build the core for `board`, with its memory mapped and hooks installed. `code_ranges` are the
    /// executable bytes of the firmware (address, bytes), scanned once for divide and sleep sites.
    /// `count_all_memory` hooks every region to count its traffic, also where accesses cost nothing
    /// (slower).
    pub fn new(
        board: &Board,
        code_ranges: &[(u32, Vec<u8>)],
        count_all_memory: bool,
    ) -> Result<Self, CoreError> {
        Self::build(board, Some((code_ranges, count_all_memory)))
    }

    fn build(board: &Board, code: Option<CodeToHook>) -> Result<Self, CoreError> {
        let kind = board.core.kind;
        let (model, cpuid, v6m) = match kind {
            CoreKind::CortexM0Plus => (unicorn_engine::ArmCpuModel::CORTEX_M0, 0x410C_C601, true),
            CoreKind::CortexM3 => (unicorn_engine::ArmCpuModel::CORTEX_M3, 0x412F_C231, false),
            CoreKind::CortexM4 => (unicorn_engine::ArmCpuModel::CORTEX_M4, 0x410F_C241, false),
            CoreKind::CortexM7 => (unicorn_engine::ArmCpuModel::CORTEX_M7, 0x411F_C272, false),
            CoreKind::CortexM33 => (unicorn_engine::ArmCpuModel::CORTEX_M33, 0x410F_D213, false),
            other => {
                return Err(CoreError::Engine(format!(
                    "{} is not a Cortex-M core",
                    other.name()
                )))
            }
        };
        let cs = timing::disassembler(kind)?;
        let mem = MemorySystem::new(board);
        let fetch_regions = mem.watched_ranges();
        let state = State {
            kind,
            cs,
            cycles: 0,
            instructions: 0,
            block_start_cycles: 0,
            block_stalls: 0,
            last_unit_arrival: 0,
            current_block: 0,
            block_last: 0,
            prev_block_last: 0,
            deadline_cycles: u64::MAX,
            deadline_insns: u64::MAX,
            blocks: Blocks::new(),
            prev_end: BlockEnd::Plain,
            prev_fallthrough: 0,
            prev_jumps: false,
            block_pipelines: false,
            pipe_pending: None,
            read_cursor: 0,
            last_read: (0, 0),
            read_end: 0,
            next_flow: None,
            predictor: vec![1; 1024],
            mem,
            ppb: Ppb::new(cpuid, v6m, board.core.priority_bits),
            uart: board.console.uart,
            device_store: HashMap::new(),
            periph: Peripherals::new(&board.peripherals, board.core.clock_hz),
            strict_mmio: false,
            trace_mmio: false,
            console: Vec::new(),
            pending: Pending::None,
            observer: None,
            quiet: (1, 0),
            hooked: HashSet::new(),
            align_hooked: false,
            mem_ops: FxHashMap::default(),
            ppb_accesses_in_block: 0,
            fetch_regions,
            traps: FxHashSet::default(),
            trap_resume: None,
            redirected: Vec::new(),
            resume_in_block: None,
            breakpoint_resume: None,
            spin_watch: None,
        };
        // Not `Mode::MCLASS`: with it Unicorn ignores the CPU model and always builds a Cortex-M33
        // (unicorn-engine 2.1.5 qemu/target/arm/cpu.c `cpu_arm_init`), which has a single-precision
        // FPU and the ARMv8-M instruction set on every board. The model sets ARM_FEATURE_M itself.
        let mut uc =
            Unicorn::new_with_data(Arch::ARM, Mode::THUMB, state).map_err(engine("unicorn"))?;
        uc.ctl_set_cpu_model(model as i32)
            .map_err(engine("cpu model"))?;
        set_translation_buffer(&mut uc, TRANSLATION_BUFFER_BYTES)
            .map_err(engine("translation buffer size"))?;
        let mut core = CortexM {
            uc,
            kind,
            active: Vec::new(),
            _backing: Vec::new(),
            fpu: board.core.fpu,
            return_ends_run: false,
            debug: debug::DebugHooks::default(),
        };
        core.map_memory(board)?;
        if let Some((ranges, count_all)) = code {
            core.install_hooks(ranges, count_all)?;
        }
        Ok(core)
    }

    /// The same machine with no cycle model, no profiling and no memory pricing: no hooks until
    /// `run_bare` adds the one that answers semihosting. The speed benchmark's reference.
    pub fn bare(board: &Board) -> Result<Self, CoreError> {
        Self::build(board, None)
    }

    /// Run a `bare` machine until the firmware exits or stops. Semihosting calls are answered with
    /// success (nothing is printed) and the exit call stops the run. With `count`, a block hook
    /// also counts the instructions executed (Thumb-2 widths from the first halfword, ARMv7-M ARM
    /// A5.1), so a benchmark can check the reference ran what the simulator ran; timed runs go
    /// without it.
    pub fn run_bare(&mut self, count: bool) -> Result<BareRun, CoreError> {
        use std::cell::{Cell, RefCell};
        use std::rc::Rc;
        let exit = Rc::new(Cell::new(None));
        let exit_seen = exit.clone();
        let mut hooks = vec![self
            .uc
            .add_intr_hook(move |uc, intno| {
                let op = uc.reg_read(RegisterARM::R0).unwrap_or(0);
                if intno != EXCP_BKPT || op == 0x18 || op == 0x20 {
                    if intno == EXCP_BKPT {
                        let argument = uc.reg_read(RegisterARM::R1).unwrap_or(0) as u32;
                        exit_seen.set(Some((op as u32, argument)));
                    }
                    let _ = uc.emu_stop();
                    return;
                }
                let pc = uc.reg_read(RegisterARM::PC).unwrap_or(0);
                let _ = uc.reg_write(RegisterARM::R0, 0);
                let _ = uc.reg_write(RegisterARM::PC, (pc + 2) | 1);
            })
            .map_err(engine("interrupt hook"))?];
        let executed = Rc::new(Cell::new(0u64));
        if count {
            let (total, widths) = (executed.clone(), RefCell::new(FxHashMap::default()));
            hooks.push(
                self.uc
                    .add_block_hook(1, 0, move |uc, addr, size| {
                        let mut widths = widths.borrow_mut();
                        let n = *widths.entry((addr, size)).or_insert_with(|| {
                            let mut code = vec![0u8; size as usize];
                            let _ = uc.mem_read(addr, &mut code);
                            thumb_instructions(&code)
                        });
                        total.set(total.get() + n);
                    })
                    .map_err(engine("block hook"))?,
            );
        }
        let pc = self.pc();
        let result = self
            .uc
            .emu_start((pc | 1) as u64, NO_UNTIL, 0, 0)
            .map_err(engine("bare run"));
        for h in hooks {
            let _ = self.uc.remove_hook(h);
        }
        result?;
        Ok(BareRun {
            exit: exit.get(),
            instructions: count.then(|| executed.get()),
        })
    }

    /// Map every region of `board`.
    fn map_memory(&mut self, board: &Board) -> Result<(), CoreError> {
        let devices = device_pages(board);
        for r in &board.regions {
            let size = page_align(r.size as u64);
            // Loading writes through Unicorn's API, which ignores protections.
            let prot = prot_of(r.access);
            if r.kind == RegionKind::Mmio {
                // Peripheral space: plain storage, except the pages of the board's peripheral
                // blocks and its console UART. Not executable: the default memory map makes
                // peripheral and device space execute-never (ARMv7-M ARM B3.1), so a fetch there
                // is a MemManage fault.
                let prot = Prot(Prot::READ.0 | Prot::WRITE.0);
                let mut start = r.base as u64;
                let end = r.base as u64 + size;
                let (region_start, region_end) = (start, end);
                for &(base, len) in devices
                    .iter()
                    .filter(|d| d.0 as u64 >= region_start && (d.0 as u64) < region_end)
                {
                    if base as u64 > start {
                        self.uc
                            .mem_map(start, base as u64 - start, prot)
                            .map_err(engine("map"))?;
                    }
                    self.map_device(base, len)?;
                    start = base as u64 + len as u64;
                }
                if end > start {
                    self.uc
                        .mem_map(start, end - start, prot)
                        .map_err(engine("map"))?;
                }
                continue;
            }
            let mut backing = vec![0u8; size as usize].into_boxed_slice();
            let ptr = backing.as_mut_ptr() as *mut std::ffi::c_void;
            for base in std::iter::once(r.base).chain(r.aliases.iter().copied()) {
                // SAFETY: `backing` lives as long as the core (kept in `_backing`) and is never moved.
                unsafe { self.uc.mem_map_ptr(base as u64, size, prot, ptr) }.map_err(|source| {
                    CoreError::Unicorn {
                        what: format!("mapping region `{}` at 0x{base:08x}", r.name),
                        source,
                    }
                })?;
            }
            self._backing.push(backing);
        }
        // The system registers are device callbacks, which Unicorn calls without the PC; see
        // `ppb_access_cycles` for how the accessing instruction is found.
        self.uc
            .mmio_map(
                ppb::PPB_BASE as u64,
                ppb::PPB_SIZE as u64,
                Some(|uc: &mut Unicorn<State>, offset: u64, _size: usize| {
                    clear_stale_it_state(uc);
                    let now = ppb_access_cycles(uc);
                    uc.get_data_mut()
                        .ppb
                        .read(ppb::PPB_BASE + offset as u32, now) as u64
                }),
                Some(
                    |uc: &mut Unicorn<State>, offset: u64, size: usize, value: u64| {
                        clear_stale_it_state(uc);
                        let now = ppb_access_cycles(uc);
                        let st = uc.get_data_mut();
                        st.ppb
                            .write(ppb::PPB_BASE + offset as u32, size, value as u32, now);
                        // A write may pend an exception or change the timer: re-check at the next block.
                        st.deadline_cycles = 0;
                    },
                ),
            )
            .map_err(engine("map PPB"))?;
        Ok(())
    }

    /// Pages `[base, base + len)` of peripheral space answered by the peripheral engine (board data,
    /// `tigris_memmodels::periph`) and the console UART; other addresses there read back what was
    /// written.
    fn map_device(&mut self, base: u32, len: u32) -> Result<(), CoreError> {
        self.uc
            .mmio_map(
                base as u64,
                len as u64,
                Some(move |uc: &mut Unicorn<State>, offset: u64, size: usize| {
                    clear_stale_it_state(uc);
                    device_read(uc, base + offset as u32, size as u32) as u64
                }),
                Some(
                    move |uc: &mut Unicorn<State>, offset: u64, size: usize, value: u64| {
                        clear_stale_it_state(uc);
                        device_write(
                            uc.get_data_mut(),
                            base + offset as u32,
                            size as u32,
                            value as u32,
                        );
                    },
                ),
            )
            .map_err(engine("map peripherals"))
    }

    /// Stop at a poll of a peripheral register without progress (`--strict-mmio`).
    pub fn set_strict_mmio(&mut self, strict: bool) {
        self.uc.get_data_mut().strict_mmio = strict;
    }

    /// Print every access to a modelled peripheral page on stderr (`--trace-mmio`).
    pub fn set_trace_mmio(&mut self, trace: bool) {
        self.uc.get_data_mut().trace_mmio = trace;
    }

    fn install_hooks(
        &mut self,
        code_ranges: &[(u32, Vec<u8>)],
        count_all_memory: bool,
    ) -> Result<(), CoreError> {
        self.uc
            .add_block_hook(1, 0, |uc, addr, size| {
                let addr = addr as u32;
                let st = uc.get_data();
                if st.resume_in_block.is_some() && resumes_in_block(uc, addr) {
                    return;
                }
                let flags = matches!(
                    uc.get_data().prev_end,
                    BlockEnd::Conditional { cond: Some(_), .. }
                )
                .then(|| uc.reg_read(RegisterARM::APSR).unwrap_or(0) as u32);
                if !uc.get_data_mut().on_block(addr, flags) {
                    let code = uc
                        .mem_read_as_vec(addr as u64, size as usize)
                        .unwrap_or_default();
                    let st = uc.get_data_mut();
                    let block = st.build_block(addr, &code);
                    st.blocks.insert(addr, block);
                    st.on_block(addr, flags);
                }
                if uc.get_data().spin_watch.is_some() && uc.get_data().pending == Pending::None {
                    watch_fault_handler(uc, addr);
                }
                if uc.get_data().pending != Pending::None {
                    let _ = uc.emu_stop();
                }
            })
            .map_err(engine("block hook"))?;
        // Any data hook sends every load and store through Unicorn's slow path, and each hooked access
        // costs a state sync: hook only regions that price accesses, unless asked to count them all.
        let ranges: Vec<_> = {
            let st = self.uc.get_data_mut();
            for r in st.mem.regions.iter_mut() {
                r.traffic_counted = count_all_memory || r.prices_data();
            }
            let mem = &st.mem;
            mem.watched_ranges()
                .into_iter()
                .filter(|r| mem.regions[r.2].traffic_counted)
                .collect()
        };
        // And the slow path is global: one hooked region slows down code that never touches it. So
        // unless every access is to be counted, the priced ranges are reached through device copies
        // instead (`redirect_data_accesses`).
        self.uc
            .add_tlb_hook(1, 0, |uc, page, ty| {
                Some(tlb_entry(&uc.get_data().redirected, page, ty))
            })
            .map_err(engine("TLB hook"))?;
        self.uc
            .ctl_set_tlb_type(TlbType::VIRTUAL)
            .map_err(engine("virtual TLB"))?;
        if !count_all_memory {
            self.redirect_data_accesses(&ranges)?;
        } else {
            self.hook_data_accesses(&ranges)?;
        }
        // A memory hook anywhere on a page keeps Unicorn from ever clearing the page's "not dirty"
        // mark, which sends every store there through its slow path: with data on the fast path,
        // the fault hook leaves out the memory where no data access can fault.
        let mapped = self.uc.mem_regions().map_err(engine("memory map"))?;
        let faultless: Vec<_> = mapped
            .iter()
            .filter(|m| m.perms == Prot::ALL.0)
            .map(|m| (m.begin, m.end))
            .collect();
        for (lo, hi) in gaps(faultless) {
            self.uc
                .add_mem_hook(
                    HookType::MEM_UNMAPPED | HookType::MEM_PROT,
                    lo,
                    hi,
                    on_bad_access,
                )
                .map_err(engine("fault hook"))?;
        }
        self.uc
            .add_intr_hook(|uc, intno| {
                let pc = uc.reg_read(RegisterARM::PC).unwrap_or(0) as u32;
                let st = uc.get_data_mut();
                st.pending = match intno {
                    // A fetch from an EXC_RETURN value: the engine's own view of handler mode
                    // decides whether it calls that an exception exit or a prefetch abort.
                    _ if pc >= EXC_RETURN_MIN => Pending::ExceptionReturn,
                    EXCP_PREFETCH_ABORT => Pending::Fault(FaultKind::BadFetch, pc),
                    EXCP_DATA_ABORT => Pending::Fault(FaultKind::BadRead, 0),
                    EXCP_BKPT => Pending::Semihosting,
                    EXCP_SWI => Pending::Svc,
                    EXCP_EXCEPTION_EXIT => Pending::ExceptionReturn,
                    EXCP_UDEF => Pending::Usage(exceptions::UNDEFINSTR),
                    EXCP_INVSTATE => Pending::Usage(exceptions::INVSTATE),
                    EXCP_NOCP => Pending::Usage(exceptions::NOCP),
                    EXCP_UNALIGNED => Pending::Usage(exceptions::UNALIGNED),
                    _ => Pending::Fault(FaultKind::UndefinedInstruction, intno),
                };
                let _ = uc.emu_stop();
            })
            .map_err(engine("interrupt hook"))?;
        self.hook_special_instructions(code_ranges)
    }

    /// Price every data access in `ranges` `(start, end_inclusive, region)`. Each Unicorn data
    /// hook costs every load and store of the run a step through Unicorn's list of them, so ranges
    /// with only unmapped space between them share one hook: a load there faults before any read
    /// hook runs, and a store, which meets the hook first, is left to fault as without it.
    fn hook_data_accesses(&mut self, ranges: &[(u32, u32, usize)]) -> Result<(), CoreError> {
        let mapped = self.uc.mem_regions().map_err(engine("memory map"))?;
        let mut sorted = ranges.to_vec();
        sorted.sort_unstable();
        let mut groups: Vec<Vec<(u32, u32, usize)>> = Vec::new();
        for range in sorted {
            let joins = groups.last().is_some_and(|group| {
                let gap = (group[group.len() - 1].1 as u64 + 1, range.0 as u64);
                !mapped.iter().any(|m| m.begin < gap.1 && m.end >= gap.0)
            });
            match groups.last_mut() {
                Some(group) if joins => group.push(range),
                _ => groups.push(vec![range]),
            }
        }
        for group in groups {
            let (lo, hi) = (group[0].0, group[group.len() - 1].1);
            self.uc
                .add_mem_hook(
                    HookType::MEM_READ | HookType::MEM_WRITE,
                    lo as u64,
                    hi as u64,
                    move |uc, ty, addr, size, _| {
                        let addr = addr as u32;
                        if let Some(&(_, _, region)) =
                            group.iter().find(|r| addr >= r.0 && addr <= r.1)
                        {
                            price_data_access(uc, region, addr, size as u32, ty == MemType::WRITE);
                        }
                        true
                    },
                )
                .map_err(engine("memory hook"))?;
        }
        Ok(())
    }

    /// Send the loads and stores to the priced `ranges` `(start, end_inclusive, region)` to device
    /// callbacks that price them, leaving every other access on Unicorn's fast path (a data hook
    /// would send them all through its slow path). With the engine's software TLB in virtual mode
    /// a page can map to different places for data and for code: data accesses to a priced range
    /// go to its copy at `DATA_ALIAS` (a device), instruction fetches to the memory itself. A
    /// device callback has no PC, which only paired-load pricing needs (`pairs_loads`).
    fn redirect_data_accesses(&mut self, ranges: &[(u32, u32, usize)]) -> Result<(), CoreError> {
        for &(lo, hi, region) in ranges {
            let access = self.uc.get_data().mem.regions[region].spec.access;
            let read = move |uc: &mut Unicorn<State>, offset: u64, size: usize| {
                let addr = lo + offset as u32;
                let mut bytes = [0u8; 8];
                let _ = uc.mem_read(addr as u64, &mut bytes[..size]);
                let pipe = match uc.get_data().block_pipelines {
                    true => match reading_instruction(uc, addr, size as u32) {
                        Reader::Same => 0,
                        Reader::At(pc) => pipelined_load_stall(uc.get_data_mut(), pc, region),
                    },
                    false => 0,
                };
                charge_data_access(uc.get_data_mut(), region, addr, size as u32, false, pipe);
                u64::from_le_bytes(bytes)
            };
            let write = move |uc: &mut Unicorn<State>, offset: u64, size: usize, value: u64| {
                let addr = lo + offset as u32;
                charge_data_access(uc.get_data_mut(), region, addr, size as u32, true, 0);
                let _ = uc.mem_write(addr as u64, &value.to_le_bytes()[..size]);
            };
            self.uc
                .mmio_map(
                    DATA_ALIAS + lo as u64,
                    page_align(hi as u64 - lo as u64 + 1),
                    access.read.then_some(read),
                    access.write.then_some(write),
                )
                .map_err(engine("mapping priced data"))?;
        }
        self.uc.get_data_mut().redirected = ranges.to_vec();
        self.uc.ctl_flush_tlb().map_err(engine("flushing the TLB"))
    }

    /// Hook the priced ranges again instead of redirecting them (a watchpoint's data hook sees
    /// addresses as the engine's TLB maps them, so redirected accesses would pass it unseen).
    fn end_data_redirect(&mut self) -> Result<(), CoreError> {
        let ranges = std::mem::take(&mut self.uc.get_data_mut().redirected);
        if ranges.is_empty() {
            return Ok(());
        }
        self.uc
            .ctl_flush_tlb()
            .map_err(engine("flushing the TLB"))?;
        self.hook_data_accesses(&ranges)?;
        self.uc
            .ctl_flush_tb()
            .map_err(engine("flushing translations"))
    }

    /// Find divide and sleep instructions in the firmware's code and hook exactly those addresses:
    /// divides get their operand-dependent cost, sleeps end the slice so time can jump ahead.
    /// The scan matches encodings at every halfword (ARMv7-M ARM: SDIV/UDIV encoding T1, WFI/WFE
    /// encodings T1 and T2) instead of disassembling linearly, which literal pools can desynchronise;
    /// a match inside data or inside another instruction is harmless because it never executes.
    fn hook_special_instructions(
        &mut self,
        code_ranges: &[(u32, Vec<u8>)],
    ) -> Result<(), CoreError> {
        let mut divides = Vec::new();
        let mut sleeps = Vec::new();
        for (base, bytes) in code_ranges {
            let half = |i: usize| {
                bytes
                    .get(i..i + 2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
            };
            for offset in (0..bytes.len().saturating_sub(1)).step_by(2) {
                let addr = base + offset as u32;
                let (Some(h1), h2) = (half(offset), half(offset + 2)) else {
                    continue;
                };
                if h1 == 0xBF30
                    || h1 == 0xBF20
                    || (h1 == 0xF3AF && matches!(h2, Some(0x8003 | 0x8002)))
                {
                    sleeps.push(addr);
                }
                if let Some(h2) = h2 {
                    let signed = h1 & 0xFFF0 == 0xFB90;
                    if (signed || h1 & 0xFFF0 == 0xFBB0) && h2 & 0xF0F0 == 0xF0F0 {
                        divides.push((addr, Some(((h1 & 0xF) as u8, (h2 & 0xF) as u8)), signed));
                    }
                }
            }
        }
        for (addr, operands, signed) in divides {
            let Some((n, m)) = operands else { continue };
            self.uc.get_data_mut().hooked.insert(addr);
            let (rn, rm) = (gp_register(n as usize), gp_register(m as usize));
            self.uc
                .add_code_hook(addr as u64, addr as u64, move |uc, _, _| {
                    let dividend = uc.reg_read(rn).unwrap_or(0) as u32;
                    let divisor = uc.reg_read(rm).unwrap_or(0) as u32;
                    if divisor == 0 && uc.get_data().ppb.ccr & ppb::CCR_DIV_0_TRP != 0 {
                        // DIVBYZERO UsageFault (ARMv7-M ARM B3.2.8): the divide does not execute.
                        uc.get_data_mut().pending = Pending::Usage(exceptions::DIVBYZERO);
                        let _ = uc.reg_write(RegisterARM::PC, (addr | 1) as u64);
                        let _ = uc.emu_stop();
                        return;
                    }
                    let extra = timing::divide_cycles(dividend, divisor, signed) as u64 - 2;
                    let st = uc.get_data_mut();
                    st.cycles += extra;
                    st.block_stalls += extra;
                })
                .map_err(engine("divide hook"))?;
        }
        for addr in sleeps {
            self.uc
                .add_code_hook(addr as u64, addr as u64, move |uc, _, _| {
                    // Step over the sleep ourselves: Unicorn would halt the CPU and stay halted.
                    uc.get_data_mut().pending = Pending::Idle { pc: addr };
                    let _ = uc.reg_write(RegisterARM::PC, ((addr + 2) | 1) as u64);
                    let _ = uc.emu_stop();
                })
                .map_err(engine("sleep hook"))?;
        }
        Ok(())
    }

    fn reg(&self, r: RegisterARM) -> u32 {
        self.uc.reg_read(r).unwrap_or(0) as u32
    }

    fn set_reg(&mut self, r: RegisterARM, v: u32) -> Result<(), CoreError> {
        self.uc
            .reg_write(r, v as u64)
            .map_err(engine("register write"))
    }

    fn read_u32(&self, addr: u32) -> Option<u32> {
        let mut b = [0u8; 4];
        self.uc.mem_read(addr as u64, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }

    /// Current execution priority: the most urgent active exception, or PRIMASK's boost.
    fn execution_priority(&self) -> i32 {
        let st = self.uc.get_data();
        let mut prio = self
            .active
            .iter()
            .map(|a| st.ppb.priority_of(a.number))
            .min()
            .unwrap_or(256);
        if self.reg(RegisterARM::PRIMASK) & 1 != 0 {
            prio = prio.min(0);
        }
        if self.reg(RegisterARM::FAULTMASK) & 1 != 0 {
            prio = prio.min(-1);
        }
        let basepri = self.reg(RegisterARM::BASEPRI) as i32;
        if basepri != 0 {
            prio = prio.min(basepri);
        }
        prio
    }

    /// The pending exception that preempts the current context, if any.
    fn exception_to_take(&self) -> Option<u32> {
        let st = self.uc.get_data();
        let n = st.ppb.most_urgent_pending()?;
        (st.ppb.priority_of(n) < self.execution_priority()).then_some(n)
    }

    fn fault(&self, kind: FaultKind, pc: u32, address: Option<u32>, detail: String) -> Stop {
        Stop::Fault(Fault {
            kind,
            pc,
            address,
            detail,
        })
    }
}

/// A fetch, load or store that the memory map refuses (Unicorn's unmapped and protection hooks).
fn on_bad_access(
    uc: &mut Unicorn<State>,
    ty: MemType,
    addr: u64,
    size: usize,
    _value: i64,
) -> bool {
    let addr = addr as u32;
    // A refused access to a redirected range (at its device copy or, for a store to read-only
    // memory, at the memory itself: `tlb_entry`), priced as a data hook would have priced it.
    let redirected = uc
        .get_data()
        .redirected
        .iter()
        .find(|r| addr >= r.0 && addr <= r.1);
    if let (Some(&(_, _, region)), MemType::READ_PROT | MemType::WRITE_PROT) = (redirected, ty) {
        price_data_access(uc, region, addr, size as u32, ty == MemType::WRITE_PROT);
    }
    let st = uc.get_data_mut();
    st.pending = match ty {
        MemType::FETCH_UNMAPPED | MemType::FETCH_PROT if addr >= EXC_RETURN_MIN => {
            Pending::ExceptionReturn
        }
        MemType::FETCH_UNMAPPED | MemType::FETCH_PROT => Pending::Fault(FaultKind::BadFetch, addr),
        MemType::READ_UNMAPPED | MemType::READ_PROT => Pending::Fault(FaultKind::BadRead, addr),
        _ => Pending::Fault(FaultKind::BadWrite, addr),
    };
    false
}

/// Cycle count at the system-register access now happening, exact to the instruction. Unicorn gives
/// device callbacks no PC, but the registers are current: the k-th access in a block is made by the
/// k-th memory instruction of the block whose base register points into the system-register space
/// (a basic block runs straight through). When none matches, the end of the block is used.
fn ppb_access_cycles(uc: &mut Unicorn<State>) -> u64 {
    let st = uc.get_data();
    let Some(block) = st.blocks.get(st.current_block) else {
        return st.cycles;
    };
    let wanted = st.ppb_accesses_in_block;
    let candidates: Vec<(u32, u8)> = block.memory_insns.clone();
    let in_ppb =
        |v: u64| (ppb::PPB_BASE as u64..(ppb::PPB_BASE + ppb::PPB_SIZE) as u64).contains(&v);
    let pc = candidates
        .into_iter()
        .filter(|&(_, base)| in_ppb(uc.reg_read(gp_register(base as usize)).unwrap_or(0)))
        .nth(wanted)
        .map(|(pc, _)| pc);
    let st = uc.get_data_mut();
    st.ppb_accesses_in_block += 1;
    match pc {
        Some(pc) => st.cycles_at(pc),
        None => st.cycles,
    }
}

/// Unicorn syncs the CPU state before calling a memory hook, which also restores the IT-block bits
/// of the current instruction into the CPU, while the translated block assumes they stay zero until
/// it exits (it writes the right value itself then). Left as they are, the stale bits make the next
/// block execute as if inside an IT block (unicorn-engine issue #2309). Writing EPSR with only the
/// Thumb bit restores what the translated code expects.
fn clear_stale_it_state(uc: &mut Unicorn<State>) {
    let _ = uc.reg_write(RegisterARM::EPSR, 1 << 24);
}

/// Whether emulation resumed at `addr` inside a block the debugger stopped in, which is charged
/// already (its block hook is skipped once, `State::resume_in_block`).
#[cold]
fn resumes_in_block(uc: &mut Unicorn<State>, addr: u32) -> bool {
    uc.get_data_mut().resume_in_block.take() == Some(addr)
}

/// A fault handler that loops without progress (`loop { nop() }` calls a function, so it is no
/// branch to itself): a block entered again with the same registers, with no block in between that
/// accesses memory, is a machine in the same state — it can never leave the loop.
#[cold]
fn watch_fault_handler(uc: &mut Unicorn<State>, addr: u32) {
    let touches_memory = uc
        .get_data()
        .blocks
        .get(addr)
        .is_none_or(|b| b.touches_memory);
    if touches_memory {
        uc.get_data_mut().spin_watch = Some(Vec::new());
        return;
    }
    let mut regs = [0u32; 17];
    for (i, r) in regs.iter_mut().take(16).enumerate() {
        *r = uc.reg_read(gp_register(i)).unwrap_or(0) as u32;
    }
    regs[16] = uc.reg_read(RegisterARM::XPSR).unwrap_or(0) as u32;
    let st = uc.get_data_mut();
    let Some(seen) = st.spin_watch.as_mut() else {
        return;
    };
    if seen.contains(&(addr, regs)) {
        st.pending = Pending::Idle { pc: addr };
    } else {
        if seen.len() >= SPIN_WATCH_STATES {
            seen.clear();
        }
        seen.push((addr, regs));
    }
}

/// Runs of 4 KiB pages `(base, length)` that hold a peripheral block of the board (at its base,
/// aliases or atomic windows) or its console UART, in address order.
fn device_pages(board: &Board) -> Vec<(u32, u32)> {
    let mut pages = std::collections::BTreeSet::new();
    if let Some(u) = board.console.uart {
        pages.insert(u.data & !0xFFF);
    }
    for b in &board.peripherals {
        for base in b.windows() {
            let end = base as u64 + b.size as u64;
            let mut p = (base & !0xFFF) as u64;
            while p < end {
                pages.insert(p as u32);
                p += 0x1000;
            }
        }
    }
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for p in pages {
        match runs.last_mut() {
            Some((base, len)) if *base as u64 + *len as u64 == p as u64 => *len += 0x1000,
            _ => runs.push((p, 0x1000)),
        }
    }
    runs
}

/// A read from a device page: the peripheral engine's register, the console UART's status, or what
/// was last written there.
fn device_read(uc: &mut Unicorn<State>, addr: u32, size: u32) -> u32 {
    let st = uc.get_data_mut();
    let now = st.cycles;
    let value = match st.periph.read(addr, size, now) {
        Some(v) => {
            if st.strict_mmio && st.periph.has_polls() && st.pending == Pending::None {
                st.pending = Pending::Poll(addr);
                let _ = uc.emu_stop();
            }
            v
        }
        None => match st.uart {
            Some(u) if u.status == Some(addr) => u.status_ready,
            _ => st.device_store.get(&addr).copied().unwrap_or(0),
        },
    };
    let st = uc.get_data();
    if st.trace_mmio {
        st.periph.trace(now, false, size, addr, value);
    }
    value
}

fn device_write(st: &mut State, addr: u32, size: u32, value: u32) {
    let now = st.cycles;
    if st.trace_mmio {
        st.periph.trace(now, true, size, addr, value);
    }
    if st.periph.write(addr, size, value, now) {
        st.console.append(&mut st.periph.console);
        return;
    }
    match st.uart {
        Some(u) if u.data == addr => st.console.push(value as u8),
        _ => {
            st.device_store.insert(addr, value);
        }
    }
}

/// The data hook's work: charge one access to `region`.
#[inline]
fn price_data_access(uc: &mut Unicorn<State>, region: usize, addr: u32, size: u32, write: bool) {
    clear_stale_it_state(uc);
    let pipe = if uc.get_data().block_pipelines && !write {
        let pc = uc.reg_read(RegisterARM::PC).unwrap_or(0) as u32;
        pipelined_load_stall(uc.get_data_mut(), pc, region)
    } else {
        0
    };
    charge_data_access(uc.get_data_mut(), region, addr, size, write, pipe);
}

/// Charge a data access to `region` at the current cycle, plus `pipe` cycles of load pairing. An
/// 8-byte access (VLDR.64, VSTR.64) is charged as the two 4-byte accesses it makes on a 32-bit
/// bus (the ARMv7-M and ARMv8-M buses are 32 bits wide; the engine also dispatches it to a device
/// as two), so a redirected access (`CortexM::redirect_data_accesses`) counts as a hooked one.
/// ASSUMPTION for the Cortex-M7, whose AXI master is 64 bits wide.
fn charge_data_access(st: &mut State, region: usize, addr: u32, size: u32, write: bool, pipe: u64) {
    let (unit, parts) = if size == 8 { (4, 2) } else { (size, 1) };
    let mut stall = 0;
    for part in 0..parts {
        st.mem.set_now(st.cycles + stall);
        stall += st.mem.data_access(region, addr + part * unit, unit, write) as u64;
    }
    stall += pipe;
    st.cycles += stall;
    st.block_stalls += stall;
}

/// Physical address of the device copy of a redirected range: `DATA_ALIAS + address`, above the
/// 4 GiB a Cortex-M can address, so no guest address reaches it but through the TLB hook.
const DATA_ALIAS: u64 = 1 << 32;

/// The engine's TLB entry (virtual mode, set by `CortexM::install_hooks`) for an access of type
/// `ty` to the page at `page`: loads from and stores to a redirected range go to its device
/// copy (whose missing callbacks fault where the region refuses them, at an address that truncates
/// to the guest's). Every other access maps the page to itself and leaves the permission checks to
/// the engine's memory map. On a page with a redirected range the entry allows only the kind of
/// access it was made for, so that the other kinds miss and come back here. Elsewhere an entry made
/// for data is not executable: the engine then sends only a page's first store through its slow
/// path (to find translated code), not every one; translating code there marks the page again.
fn tlb_entry(redirected: &[(u32, u32, usize)], page: u64, ty: MemType) -> TlbEntry {
    // Ranges start on a page boundary: the engine maps nothing else.
    let here = page as u32;
    let redirect = redirected.iter().any(|r| here >= r.0 && here <= r.1);
    let (paddr, perms) = match (redirect, ty) {
        (true, MemType::READ) => (DATA_ALIAS + page, Prot::READ),
        (true, MemType::WRITE) => (DATA_ALIAS + page, Prot::WRITE),
        (true, _) => (page, Prot::EXEC),
        (false, MemType::READ | MemType::WRITE) => (page, Prot(Prot::READ.0 | Prot::WRITE.0)),
        (false, _) => (page, Prot::ALL),
    };
    TlbEntry { paddr, perms }
}

/// The address ranges (inclusive) of the 64-bit address space outside `ranges` (inclusive).
fn gaps(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.sort_unstable();
    let mut out = Vec::new();
    let mut next = Some(0u64);
    for (lo, hi) in ranges {
        match next {
            Some(from) if from < lo => out.push((from, lo - 1)),
            _ => {}
        }
        next = next.max(hi.checked_add(1)).filter(|_| hi != u64::MAX);
    }
    if let Some(from) = next {
        out.push((from, u64::MAX));
    }
    out
}

/// Which instruction of the current block makes a device read of `size` bytes at `addr`.
enum Reader {
    /// The instruction at this address (`u32::MAX`: none that reads memory).
    At(u32),
    /// The instruction of the previous device read, read on where that one ended: a later part of
    /// an access the engine split (misaligned, 8 bytes) or of a multiple load.
    Same,
}

/// The instruction making the device read at `addr` now (`CortexM::redirect_data_accesses`), for the
/// M3/M4 paired-load rule, which needs the PC that device callbacks are not given. The registers
/// are current, though: the reading instruction's address recomputed from them is the one read
/// (`DataRead::range`), and the instructions before it that read a device are behind the cursor.
/// The first instruction from the cursor on whose range covers the read is taken: exact unless an
/// earlier instruction read undevised memory and its address registers were then rewritten to point
/// at this very read (ASSUMPTION: rare enough; it moves one paired-load cycle).
fn reading_instruction(uc: &mut Unicorn<State>, addr: u32, size: u32) -> Reader {
    let covers = |(start, end): (u32, u32)| addr < end && start < addr.wrapping_add(size);
    let st = uc.get_data_mut();
    let continues = addr == st.read_end && covers(st.last_read);
    st.read_end = addr.wrapping_add(size);
    if continues {
        return Reader::Same;
    }
    // One instruction at a time (`DataRead` is a copy): the registers are read through the engine
    // the block list lives in.
    let mut i = uc.get_data().read_cursor;
    loop {
        let st = uc.get_data();
        let Some(&(pc, read)) = st
            .blocks
            .get(st.current_block)
            .and_then(|block| block.reads.get(i))
        else {
            break;
        };
        let range = read.range(pc, |r| {
            uc.reg_read(gp_register(r as usize)).unwrap_or(0) as u32
        });
        if covers(range) {
            let st = uc.get_data_mut();
            st.read_cursor = i + 1;
            st.last_read = range;
            return Reader::At(pc);
        }
        i += 1;
    }
    Reader::At(u32::MAX)
}

/// Whether the core prices pipelined load pairs, which needs the PC of each priced load
/// (`pipelined_load_stall`).
fn pairs_loads(kind: CoreKind) -> bool {
    matches!(kind, CoreKind::CortexM3 | CoreKind::CortexM4)
}

/// M3/M4 loads pipeline only when both reach the same memory block (jnk0le/random "pipeline cycle
/// test" doc/cortex_m3m4.md, STM32F103 and STM32F407: not SRAM1 with SRAM2 or CCM). The block prices
/// its pairs as pipelined; here a load at `pc` from a priced region charges the cycle back for a
/// pair whose other load went elsewhere. Every unpriced region counts as one block (ASSUMPTION:
/// their loads are not seen). Returns the cycles to charge, or to take back (the second load found
/// in the same region as the first, which charged it).
fn pipelined_load_stall(st: &mut State, pc: u32, region: usize) -> u64 {
    let Some(block) = st.blocks.get(st.current_block) else {
        return 0;
    };
    let second_of = block.pipelined_loads.iter().any(|p| p.1 == pc);
    let next = block
        .pipelined_loads
        .iter()
        .find(|p| p.0 == pc)
        .map(|p| p.1);
    let mut stall = 0i64;
    match st.pipe_pending.take() {
        Some((want, r)) if want == pc => stall -= i64::from(r == region),
        _ if second_of => stall += 1,
        _ => {}
    }
    if let Some(second) = next {
        stall += 1;
        st.pipe_pending = Some((second, region));
    }
    // A refund follows the charge of the same pair inside this block.
    if stall < 0 {
        st.cycles -= 1;
        st.block_stalls -= 1;
        return 0;
    }
    stall as u64
}

fn prot_of(access: Access) -> Prot {
    let mut prot = 0;
    if access.read {
        prot |= Prot::READ.0;
    }
    if access.write {
        prot |= Prot::WRITE.0;
    }
    if access.execute {
        prot |= Prot::EXEC.0;
    }
    Prot(prot)
}

fn gp_register(n: usize) -> RegisterARM {
    use RegisterARM::*;
    [
        R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, SP, LR, PC,
    ][n]
}

fn fp_register(n: usize) -> RegisterARM {
    use RegisterARM::*;
    [
        S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10, S11, S12, S13, S14, S15, S16, S17, S18, S19,
        S20, S21, S22, S23, S24, S25, S26, S27, S28, S29, S30, S31,
    ][n]
}

/// Name of an exception number for diagnostics.
pub fn exception_name(number: u32) -> String {
    match number {
        2 => "NMI".into(),
        3 => "HardFault".into(),
        4 => "MemManage".into(),
        5 => "BusFault".into(),
        6 => "UsageFault".into(),
        11 => "SVCall".into(),
        12 => "DebugMonitor".into(),
        14 => "PendSV".into(),
        15 => "SysTick".into(),
        n if n >= 16 => format!("IRQ {}", n - 16),
        n => format!("exception {n}"),
    }
}

impl Core for CortexM<'_> {
    fn write_memory(&mut self, addr: u32, data: &[u8]) -> Result<(), CoreError> {
        self.uc
            .mem_write(addr as u64, data)
            .map_err(|_| CoreError::Unmapped {
                addr,
                len: data.len(),
            })
    }

    fn read_memory(&self, addr: u32, buf: &mut [u8]) -> Result<(), CoreError> {
        self.uc
            .mem_read(addr as u64, buf)
            .map_err(|_| CoreError::Unmapped {
                addr,
                len: buf.len(),
            })
    }

    fn reset(&mut self, entry: Entry) -> Result<(), CoreError> {
        // VTOR as the boot code before the firmware would have left it.
        if let Some(table) = entry.vector_table {
            self.uc.get_data_mut().ppb.vtor = table;
        }
        self.return_ends_run = entry.return_ends_run;
        self.set_reg(RegisterARM::SP, entry.sp)?;
        self.set_reg(RegisterARM::LR, RESET_LR)?;
        self.set_reg(RegisterARM::PC, entry.pc & !1)?;
        Ok(())
    }

    fn run(&mut self, budget: Budget, observer: &mut dyn ExecObserver) -> Result<Stop, CoreError> {
        let end_cycles = self.cycles().saturating_add(budget.cycles);
        let end_insns = self.instructions().saturating_add(budget.instructions);
        let obs: *mut (dyn ExecObserver + '_) = observer;
        // SAFETY: erase the borrow's lifetime; the pointer is cleared before this function returns and
        // only the hooks, which run inside `emu_start` below, dereference it.
        let obs: *mut dyn ExecObserver = unsafe { std::mem::transmute(obs) };
        let st = self.uc.get_data_mut();
        st.observer = Some(obs);
        // SAFETY: as above, the observer outlives this call.
        st.quiet = unsafe { (*obs).quiet_jumps() };
        // SAFETY: as above.
        st.mem.set_owner(unsafe { (*obs).memory_owner() });
        let result = self.run_slices(end_cycles, end_insns);
        self.uc.get_data_mut().observer = None;
        result
    }

    fn set_breakpoints(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        self.replace_breakpoints(addrs)
    }

    fn set_watchpoints(&mut self, watches: &[Watchpoint]) -> Result<(), CoreError> {
        self.replace_watchpoints(watches)
    }

    fn step(&mut self, observer: &mut dyn ExecObserver) -> Result<Stop, CoreError> {
        self.debug.stepping = true;
        let unlimited = Budget {
            cycles: u64::MAX,
            instructions: u64::MAX,
        };
        let stop = self.run(unlimited, observer);
        self.debug.stepping = false;
        stop
    }

    fn debug_register(&self, name: &str) -> Option<u32> {
        self.named_register(name).map(|r| self.reg(r))
    }

    fn set_debug_register(&mut self, name: &str, value: u32) -> Result<(), CoreError> {
        let r = self
            .named_register(name)
            .ok_or_else(|| CoreError::Engine(format!("no register `{name}` on this core")))?;
        // A PC written by the debugger starts a new block there.
        if r == RegisterARM::PC {
            self.uc.get_data_mut().resume_in_block = None;
        }
        self.set_reg(r, value)
    }

    /// LR (AAPCS 5.3.1), unless it holds an EXC_RETURN value (ARMv7-M ARM B1.5.8).
    fn return_address(&self) -> Option<u32> {
        let lr = self.reg(RegisterARM::LR);
        (lr < 0xF000_0000).then_some(lr & !1)
    }

    fn set_traps(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        // Thumb function addresses carry bit 0; blocks start at the halfword.
        self.uc
            .get_data_mut()
            .traps
            .extend(addrs.iter().map(|a| a & !1));
        Ok(())
    }

    /// An emulated function returns: r0 = `value`, PC = LR (AAPCS), `cycles` charged; the
    /// profiler sees a return.
    fn return_from_call(&mut self, value: u32, cycles: u64) -> Result<(), CoreError> {
        let lr = self.reg(RegisterARM::LR);
        self.set_reg(RegisterARM::R0, value)?;
        self.set_reg(RegisterARM::PC, lr & !1)?;
        let st = self.uc.get_data_mut();
        st.cycles += cycles;
        st.next_flow = Some(Flow::Return);
        Ok(())
    }

    fn finish_semihosting(&mut self, result: u32) -> Result<(), CoreError> {
        self.set_reg(RegisterARM::R0, result)?;
        let pc = self.pc();
        self.set_reg(RegisterARM::PC, pc + 2)
    }

    fn pc(&self) -> u32 {
        self.reg(RegisterARM::PC)
    }

    fn register(&self, n: usize) -> u32 {
        self.reg(gp_register(n))
    }

    fn set_register(&mut self, n: usize, value: u32) -> Result<(), CoreError> {
        if n > 15 {
            return Err(CoreError::Engine(format!(
                "register {n}: Cortex-M general registers are r0-r15"
            )));
        }
        self.set_reg(gp_register(n), value)
    }

    fn registers(&self) -> Vec<(&'static str, u32)> {
        const NAMES: [&str; 16] = [
            "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp",
            "lr", "pc",
        ];
        let mut v: Vec<(&'static str, u32)> = NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, self.register(i)))
            .collect();
        v.push(("xpsr", self.reg(RegisterARM::XPSR)));
        v
    }

    fn cycles(&self) -> u64 {
        self.uc.get_data().cycles
    }

    fn exception_frames(&self) -> Vec<(String, u32)> {
        self.active
            .iter()
            .rev()
            .map(|a| (exception_name(a.number), a.stacked_pc))
            .collect()
    }

    fn instructions(&self) -> u64 {
        self.uc.get_data().instructions
    }

    fn memory(&self) -> &MemorySystem {
        &self.uc.get_data().mem
    }

    fn memory_mut(&mut self) -> &mut MemorySystem {
        &mut self.uc.get_data_mut().mem
    }

    fn take_warnings(&mut self) -> Vec<(u32, String)> {
        let pc = self.pc();
        let st = self.uc.get_data_mut();
        let what = if st.strict_mmio { "stopped: " } else { "" };
        st.periph
            .take_polls()
            .into_iter()
            .map(|p| {
                let text = format!(
                    "{what}the firmware polls {} (0x{:08x}) without progress: {} reads in a row gave 0x{:08x} with no peripheral write in between",
                    p.register, p.addr, tigris_memmodels::periph::POLL_LIMIT, p.value
                );
                (pc, text)
            })
            .collect()
    }

    fn take_console(&mut self) -> Vec<u8> {
        let st = self.uc.get_data_mut();
        let mut out = std::mem::take(&mut st.console);
        out.append(&mut st.ppb.console);
        out
    }

    fn instruction_length(&self, addr: u32) -> Option<u32> {
        let mut b = [0u8; 2];
        self.uc.mem_read(addr as u64, &mut b).ok()?;
        // ARMv7-M ARM A5.1: a halfword whose bits [15:11] are 0b11101, 0b11110 or 0b11111 is the
        // first of a 32-bit Thumb instruction; every other is a 16-bit instruction.
        let wide = matches!(u16::from_le_bytes(b) >> 11, 0b11101..=0b11111);
        Some(if wide { 4 } else { 2 })
    }

    fn disassemble(&self, addr: u32) -> Option<String> {
        let mut b = [0u8; 4];
        self.uc.mem_read(addr as u64, &mut b).ok()?;
        let st = self.uc.get_data();
        let list = st.cs.disasm_count(&b, addr as u64, 1).ok()?;
        let insn = list.iter().next()?;
        Some(
            format!("{} {}", insn.mnemonic()?, insn.op_str().unwrap_or(""))
                .trim()
                .to_string(),
        )
    }
}

impl CortexM<'_> {
    /// The run loop around `emu_start`: take exceptions, sleep until timer events, stop on budget.
    /// CCR.UNALIGN_TRP was set (ARMv7-M and ARMv8-M Mainline; ARMv6-M traps in the engine
    /// already): check every load and store's address before it executes from now on.
    fn hook_alignment_checks(&mut self) -> Result<(), CoreError> {
        self.uc.get_data_mut().align_hooked = true;
        self.uc
            .add_code_hook(1, 0, |uc, addr, size| {
                let addr = addr as u32;
                let op = match uc.get_data().mem_ops.get(&addr) {
                    Some(op) => *op,
                    None => {
                        let mut code = vec![0u8; size as usize];
                        let _ = uc.mem_read(addr as u64, &mut code);
                        let st = uc.get_data_mut();
                        let op = align::decode(&st.cs, &code, addr);
                        st.mem_ops.insert(addr, op);
                        op
                    }
                };
                let Some(op) = op else { return };
                let ea = align::address(&op, addr, |r| {
                    uc.reg_read(gp_register(r as usize)).unwrap_or(0) as u32
                });
                let trp = uc.get_data().ppb.ccr & ppb::CCR_UNALIGN_TRP != 0;
                if align::faults(&op, ea, trp) {
                    // UNALIGNED UsageFault (ARMv7-M ARM B3.2.15): the access does not happen.
                    uc.get_data_mut().pending = Pending::Usage(exceptions::UNALIGNED);
                    let _ = uc.reg_write(RegisterARM::PC, (addr | 1) as u64);
                    let _ = uc.emu_stop();
                }
            })
            .map_err(engine("alignment hook"))?;
        // Blocks translated so far run without the hook.
        self.uc
            .ctl_flush_tb()
            .map_err(engine("flushing translations"))
    }

    fn run_slices(&mut self, end_cycles: u64, end_insns: u64) -> Result<Stop, CoreError> {
        loop {
            let st = self.uc.get_data();
            if !st.align_hooked && !st.ppb.v6m && st.ppb.ccr & ppb::CCR_UNALIGN_TRP != 0 {
                self.hook_alignment_checks()?;
            }
            let now = self.cycles();
            self.uc.get_data_mut().ppb.advance(now);
            // Inside a block a debugger stopped in, exceptions wait for its end, as without a stop.
            let mid_block = self.uc.get_data().resume_in_block.is_some();
            let exception = self.exception_to_take();
            if let (Some(n), false) = (exception, mid_block) {
                if let Some(stop) = self.take_exception(n)? {
                    return Ok(stop);
                }
            }
            if self.cycles() >= end_cycles || self.instructions() >= end_insns {
                return Ok(Stop::Budget);
            }
            let st = self.uc.get_data_mut();
            let timer = st.ppb.next_systick_event(st.cycles).unwrap_or(u64::MAX);
            st.deadline_cycles = match (exception, mid_block) {
                (Some(_), true) => 0,
                _ => end_cycles.min(timer),
            };
            st.deadline_insns = end_insns;
            st.pending = Pending::None;
            let pc = self.pc();
            let count = usize::from(self.debug.stepping);
            let result = self.uc.emu_start((pc | 1) as u64, NO_UNTIL, 0, count);
            let pending = std::mem::replace(&mut self.uc.get_data_mut().pending, Pending::None);
            let pc = self.pc();
            let stepped = self.debug.stepping && pending == Pending::None && result.is_ok();
            match (pending, result) {
                (Pending::ExceptionReturn, _) => {
                    if let Some(stop) = self.return_from_exception()? {
                        return Ok(stop);
                    }
                }
                (Pending::Semihosting, _) => {
                    let imm = self.read_u16(pc).map(|h| h & 0xFF);
                    if imm != Some(0xAB) {
                        return Ok(self.fault(
                            FaultKind::Breakpoint,
                            pc,
                            None,
                            format!("BKPT #{:#x} outside a debugger", imm.unwrap_or(0)),
                        ));
                    }
                    return Ok(Stop::Semihosting);
                }
                (Pending::Svc, _) => {
                    // SVC is synchronous: it must preempt now or it escalates (ARMv7-M B1.5.4).
                    let prio = self.uc.get_data().ppb.priority_of(ppb::EXC_SVCALL);
                    if prio >= self.execution_priority() {
                        let cause = Fault {
                            kind: FaultKind::UnhandledException,
                            pc: pc.wrapping_sub(2),
                            address: None,
                            detail: "SVC executed where it cannot preempt (priority masked or inside a handler of equal priority)".into(),
                        };
                        if let Some(stop) = self.take_fault(cause, ppb::EXC_HARDFAULT, 0, pc)? {
                            return Ok(stop);
                        }
                        continue;
                    }
                    self.uc.get_data_mut().ppb.set_pending(ppb::EXC_SVCALL);
                }
                (Pending::Idle { pc: at }, _) => {
                    if let Some(stop) = self.idle(at)? {
                        return Ok(stop);
                    }
                }
                (Pending::Trap { pc: at }, _) => {
                    self.uc.get_data_mut().trap_resume = Some(at);
                    return Ok(Stop::Trap { pc: at });
                }
                (Pending::Breakpoint { pc: at }, _) => {
                    self.resume_after_stop(at, StopPlace::Breakpoint);
                    return Ok(Stop::Breakpoint { pc: at });
                }
                (Pending::Watch { addr, write }, _) => {
                    self.resume_after_stop(pc, StopPlace::Watchpoint);
                    return Ok(Stop::Watchpoint { pc, addr, write });
                }
                (Pending::Fault(kind, addr), _) => {
                    if let Some(stop) = self.memory_fault(kind, pc, addr)? {
                        return Ok(stop);
                    }
                }
                (Pending::Poll(addr), _) => {
                    let register = self.uc.get_data().periph.register_name(addr);
                    let insn = self
                        .disassemble(pc)
                        .map(|t| format!(" (`{t}`)"))
                        .unwrap_or_default();
                    let detail = format!(
                        "--strict-mmio: the firmware polls {register} (0x{addr:08x}) without progress{insn}: the register never changes here; the peripheral behaviour it waits for is not modelled"
                    );
                    return Ok(self.fault(FaultKind::EndlessLoop, pc, Some(addr), detail));
                }
                (Pending::Usage(status), _) => {
                    if let Some(stop) = self.usage_fault(status, pc)? {
                        return Ok(stop);
                    }
                }
                (Pending::Deadline | Pending::None, Ok(())) => {}
                (_, Err(e)) => {
                    let stop = if pc >= EXC_RETURN_MIN {
                        self.return_from_exception()?
                    } else {
                        match e {
                            uc_error::INSN_INVALID | uc_error::EXCEPTION => {
                                self.usage_fault(exceptions::UNDEFINSTR, pc)?
                            }
                            uc_error::READ_UNMAPPED | uc_error::READ_PROT => {
                                self.memory_fault(FaultKind::BadRead, pc, pc)?
                            }
                            uc_error::WRITE_UNMAPPED | uc_error::WRITE_PROT => {
                                self.memory_fault(FaultKind::BadWrite, pc, pc)?
                            }
                            uc_error::FETCH_UNMAPPED | uc_error::FETCH_PROT => {
                                self.memory_fault(FaultKind::BadFetch, pc, pc)?
                            }
                            source => {
                                return Err(CoreError::Unicorn {
                                    what: format!("unicorn stopped at 0x{pc:08x}"),
                                    source,
                                })
                            }
                        }
                    };
                    if let Some(stop) = stop {
                        return Ok(stop);
                    }
                }
            }
            if self.debug.stepping {
                if stepped {
                    self.resume_after_stop(pc, StopPlace::Step);
                }
                return Ok(Stop::Budget);
            }
        }
    }

    /// A bus error or an access to execute-never memory (`addr`) by the instruction at `pc`: a
    /// precise BusFault (PRECISERR with BFAR; stores too, where a write buffer could make the chip's
    /// imprecise), an instruction-fetch BusFault (IBUSERR), or a MemManage fault (IACCVIOL) for a
    /// fetch from a region the default memory map makes execute-never (ARMv7-M ARM B3.1: Peripheral
    /// 0x40000000-0x5FFFFFFF, Device 0xA0000000-0xDFFFFFFF, System 0xE0000000 up).
    fn memory_fault(
        &mut self,
        kind: FaultKind,
        pc: u32,
        addr: u32,
    ) -> Result<Option<Stop>, CoreError> {
        let fetch = kind == FaultKind::BadFetch;
        let pc = if fetch { addr } else { pc };
        let detail = self.describe_fault(kind, pc, Some(addr));
        let cause = Fault {
            kind,
            pc,
            address: Some(addr),
            detail,
        };
        let execute_never = (0x4000_0000..0x6000_0000).contains(&addr) || addr >= 0xA000_0000;
        match (fetch, execute_never) {
            (true, true) => self.take_fault(cause, ppb::EXC_MEMMANAGE, exceptions::IACCVIOL, addr),
            (true, false) => self.take_fault(cause, ppb::EXC_BUSFAULT, exceptions::IBUSERR, addr),
            (false, _) => self.take_fault(cause, ppb::EXC_BUSFAULT, exceptions::PRECISERR, pc),
        }
    }

    /// A UsageFault with CFSR bit `status` at `pc`. INVSTATE is raised at the target of the
    /// interworking branch that cleared the Thumb bit, so the report names that branch.
    fn usage_fault(&mut self, status: u32, pc: u32) -> Result<Option<Stop>, CoreError> {
        // The engine calls an instruction it meets in Arm state undefined: that is INVSTATE.
        let arm_state = self.reg(RegisterARM::XPSR) & (1 << 24) == 0;
        let status = if status == exceptions::UNDEFINSTR && arm_state {
            exceptions::INVSTATE
        } else {
            status
        };
        let (kind, at, detail) = if status == exceptions::INVSTATE {
            let st = self.uc.get_data();
            let branch = if st.current_block == pc {
                st.prev_block_last
            } else {
                st.block_last
            };
            let detail = format!(
                "branch at 0x{branch:08x} to 0x{pc:08x} with bit 0 clear: Arm state, which an M-profile core does not have (INVSTATE)"
            );
            (FaultKind::UsageFault, branch, detail)
        } else if status == exceptions::UNDEFINSTR {
            (
                FaultKind::UndefinedInstruction,
                pc,
                self.describe_fault(FaultKind::UndefinedInstruction, pc, None),
            )
        } else {
            (
                FaultKind::UsageFault,
                pc,
                self.describe_fault(FaultKind::UsageFault, pc, None),
            )
        };
        let cause = Fault {
            kind,
            pc: at,
            address: None,
            detail,
        };
        self.take_fault(cause, ppb::EXC_USAGEFAULT, status, pc)
    }

    fn read_u16(&self, addr: u32) -> Option<u16> {
        let mut b = [0u8; 2];
        self.uc.mem_read(addr as u64, &mut b).ok()?;
        Some(u16::from_le_bytes(b))
    }

    fn describe_fault(&self, kind: FaultKind, pc: u32, address: Option<u32>) -> String {
        let insn = self
            .disassemble(pc)
            .map(|t| format!(" (`{t}`)"))
            .unwrap_or_default();
        match (kind, address) {
            (FaultKind::BadRead, Some(a)) => {
                format!("read from 0x{a:08x}, which no memory region of the board covers{insn}")
            }
            (FaultKind::BadWrite, Some(a)) => {
                format!("write to 0x{a:08x}, which is unmapped or read-only{insn}")
            }
            (FaultKind::BadFetch, Some(a)) => {
                format!("instruction fetch from 0x{a:08x}, which is not executable memory")
            }
            (FaultKind::UndefinedInstruction, _) => {
                format!("undefined or unsupported instruction at 0x{pc:08x}{insn}")
            }
            _ => format!("{} at 0x{pc:08x}{insn}", kind.name()),
        }
    }

    /// The core sleeps (WFI) or spins on itself at `pc`: jump to the next timer event, or report an
    /// endless loop when nothing can ever wake it.
    fn idle(&mut self, pc: u32) -> Result<Option<Stop>, CoreError> {
        // The sleep hook already stepped over WFI/WFE; a spin stays on its branch.
        let sleeping = self.disassemble(pc).is_some_and(|t| t.starts_with("wf"));
        if !sleeping {
            if let Some(f) = self.fault_handler_spinning(pc) {
                return Ok(Some(Stop::Fault(f)));
            }
        }
        if self.exception_to_take().is_some() {
            return Ok(None);
        }
        let now = self.cycles();
        let masked = self.reg(RegisterARM::PRIMASK) & 1 != 0;
        let next = self.uc.get_data().ppb.next_systick_event(now);
        match next {
            Some(t) if self.uc.get_data().ppb.has_event_source() && !masked => {
                self.uc.get_data_mut().cycles = t.max(now);
                Ok(None)
            }
            _ => {
                let what = if sleeping {
                    "sleeps (WFI/WFE)"
                } else {
                    "branches to itself"
                };
                let detail = format!("the core {what} at 0x{pc:08x} and no enabled interrupt source can ever wake it");
                Ok(Some(if sleeping {
                    Stop::Idle { pc, detail }
                } else {
                    self.fault(FaultKind::EndlessLoop, pc, None, detail)
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, NoObserver};
    use tigris_memmodels::RegionCounters;

    #[test]
    fn gaps_cover_the_address_space_outside_the_ranges() {
        assert_eq!(gaps(vec![]), vec![(0, u64::MAX)]);
        assert_eq!(
            gaps(vec![(0x2000_0000, 0x2000_FFFF), (0, 0xFFF)]),
            vec![(0x1000, 0x1FFF_FFFF), (0x2001_0000, u64::MAX)]
        );
        assert_eq!(gaps(vec![(0x10, u64::MAX)]), vec![(0, 0xF)]);
    }

    #[test]
    fn redirected_pages_send_data_to_the_device_copy_and_fetches_to_memory() {
        let redirected = [(0x0800_0000, 0x0807_FFFF, 1)];
        let entry = |page, ty| {
            let e = tlb_entry(&redirected, page, ty);
            (e.paddr, e.perms)
        };
        assert_eq!(
            entry(0x0800_1000, MemType::READ),
            (DATA_ALIAS + 0x0800_1000, Prot::READ)
        );
        assert_eq!(
            entry(0x0800_1000, MemType::WRITE),
            (DATA_ALIAS + 0x0800_1000, Prot::WRITE)
        );
        assert_eq!(
            entry(0x0800_1000, MemType::FETCH),
            (0x0800_1000, Prot::EXEC)
        );
        // Elsewhere: data entries never allow fetch, fetch entries allow everything.
        let rw = Prot(Prot::READ.0 | Prot::WRITE.0);
        assert_eq!(entry(0x2000_0000, MemType::WRITE), (0x2000_0000, rw));
        assert_eq!(entry(0x0808_0000, MemType::FETCH), (0x0808_0000, Prot::ALL));
    }

    /// A Unicorn failure keeps Unicorn's error code as the source (issue 16: one error style per
    /// layer, no source flattened into a string): here a second mapping over the flash.
    #[test]
    fn unicorn_errors_keep_their_code_as_the_source() {
        let board = tigris_targets::load("stm32f446re").unwrap();
        let mut core = CortexM::new(&board, &[], false).unwrap();
        let e = core
            .uc
            .mem_map(0x0800_0000, 0x1000, Prot::ALL)
            .map_err(engine("mapping the flash again"))
            .unwrap_err();
        assert_eq!(e.to_string(), "mapping the flash again");
        let source = std::error::Error::source(&e).expect("the Unicorn error");
        assert_eq!(source.downcast_ref::<uc_error>(), Some(&uc_error::MAP));
        assert!(source.to_string().contains("UC_ERR_MAP"), "{source}");
    }

    /// Thumb code at `at` on the STM32F446RE, whose flash prices loads (ART data cache) and holds
    /// 1..8 at 0x0800_0800. What a report shows of the run, registers 6 and 7 included.
    fn run(
        code: &[u8],
        at: u32,
        count_all_memory: bool,
    ) -> (Stop, u64, u64, RegionCounters, u32, u32) {
        let board = tigris_targets::load("stm32f446re").unwrap();
        let mut core = CortexM::new(&board, &[(at, code.to_vec())], count_all_memory).unwrap();
        core.write_memory(at, code).unwrap();
        core.write_memory(0x0800_0800, &[1, 2, 3, 4, 5, 6, 7, 8])
            .unwrap();
        core.reset(Entry {
            pc: at,
            sp: 0x2000_8000,
            vector_table: None,
            return_ends_run: false,
        })
        .unwrap();
        let stop = core
            .run(
                Budget {
                    cycles: 1 << 20,
                    instructions: 1 << 20,
                },
                &mut NoObserver,
            )
            .unwrap();
        let flash = core
            .memory()
            .regions
            .iter()
            .find(|r| r.spec.name == "flash")
            .unwrap()
            .counters;
        (
            stop,
            core.cycles(),
            core.instructions(),
            flash,
            core.register(6),
            core.register(7),
        )
    }

    /// Flash loads through its device copy price exactly what data hooks (`count_all_memory`)
    /// price, the M4's paired loads included.
    #[test]
    fn device_copies_price_what_data_hooks_price() {
        // r1 = 0x2000_1000, r2 = 0x0800_0800, r0 = 3; loop: SRAM load and store, then, in the first
        // iteration only, a flash load inside an IT block and, in every iteration, one from the
        // same page in the same block (paired with it, or with the SRAM store's neighbour).
        //   ldr r1, [pc, #28]; mov.w r2, #0x08000800; movs r0, #3
        //   loop: ldr r3, [r1]; adds r3, #1; str r3, [r1]; cmp r0, #3; it eq; ldreq r6, [r2]
        //         ldr r7, [r2, #4]; str r3, [r1, #4]; subs r0, #1; bne loop
        //   movs r0, #0x18; bkpt 0xab; .word 0x20001000
        let code = [
            0x07, 0x49, 0x4f, 0xf0, 0x08, 0x22, 0x03, 0x20, 0x0b, 0x68, 0x01, 0x33, 0x0b, 0x60,
            0x03, 0x28, 0x08, 0xbf, 0x16, 0x68, 0x57, 0x68, 0x4b, 0x60, 0x01, 0x38, 0xf5, 0xd1,
            0x18, 0x20, 0xab, 0xbe, 0x00, 0x10, 0x00, 0x20,
        ];
        let redirected = run(&code, 0x2000_0000, false);
        assert_eq!(redirected, run(&code, 0x2000_0000, true));
        assert_eq!(redirected.0, Stop::Semihosting);
        assert_eq!(redirected.3.traffic.reads, 4);
        assert_eq!((redirected.4, redirected.5), (0x0403_0201, 0x0807_0605));
    }

    /// M4 load pairs across SRAM and flash cost their cycle, a pair within flash does not: the same
    /// through the device copy, which has no PC to find the pairs by, as through data hooks.
    #[test]
    fn paired_loads_through_device_copies_cost_what_they_cost_through_hooks() {
        //   ldr r1, [pc, #16]; mov.w r2, #0x08000800
        //   ldr r3, [r1]; ldr r6, [r2]; ldr r7, [r2, #4]; ldr r4, [r1, #4]   (three pairs)
        //   movs r0, #0x18; bkpt 0xab; nop; .word 0x20001000
        let code = [
            0x04, 0x49, 0x4f, 0xf0, 0x08, 0x22, 0x0b, 0x68, 0x16, 0x68, 0x57, 0x68, 0x4c, 0x68,
            0x18, 0x20, 0xab, 0xbe, 0x00, 0xbf, 0x00, 0x10, 0x00, 0x20,
        ];
        let redirected = run(&code, 0x2000_0000, false);
        assert_eq!(redirected, run(&code, 0x2000_0000, true));
        assert_eq!(redirected.3.traffic.reads, 2);
        assert_eq!((redirected.4, redirected.5), (0x0403_0201, 0x0807_0605));
        // The same loads with the flash pair's loads apart: each flash load then pairs with SRAM.
        let mut apart = code;
        apart[8..12].copy_from_slice(&[0x00, 0xbf, 0x16, 0x68]);
        let split = run(&apart, 0x2000_0000, false);
        assert_eq!(split, run(&apart, 0x2000_0000, true));
    }

    /// Literal loads from the page the block itself runs from reach the device copy too.
    #[test]
    fn literal_loads_from_the_running_page_are_priced() {
        // movs r0, #0x18; ldr r6, [pc, #4]; ldr r7, [pc, #4]; bkpt 0xab; .word 0x11111111, 0x22222222
        let code = [
            0x18, 0x20, 0x01, 0x4e, 0x01, 0x4f, 0xab, 0xbe, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22,
            0x22, 0x22,
        ];
        let redirected = run(&code, 0x0800_0000, false);
        assert_eq!(redirected, run(&code, 0x0800_0000, true));
        assert_eq!(redirected.3.traffic.reads, 2);
        assert_eq!((redirected.4, redirected.5), (0x1111_1111, 0x2222_2222));
    }

    /// A store to read-only flash is a fault, priced as the data hook prices it.
    #[test]
    fn store_to_read_only_flash_faults_as_with_hooks() {
        // mov.w r2, #0x08000800; movs r3, #1; str r3, [r2]; ldr r6, [r2]; bkpt 0xab
        let code = [
            0x4f, 0xf0, 0x08, 0x22, 0x01, 0x23, 0x13, 0x60, 0x16, 0x68, 0xab, 0xbe,
        ];
        let redirected = run(&code, 0x2000_0000, false);
        assert_eq!(redirected, run(&code, 0x2000_0000, true));
        assert!(matches!(
            redirected.0,
            Stop::Fault(Fault {
                kind: FaultKind::BadWrite,
                address: Some(0x0800_0800),
                ..
            })
        ));
        assert_eq!(redirected.3.traffic.writes, 1);
    }
}
