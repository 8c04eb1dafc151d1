//! Architectural state of an Xtensa core, special registers, exception and interrupt dispatch (XEA2).
//!
//! Behaviour follows S2 libisa (SR/UR numbers), S3 QEMU cpu.h (PS layout), S3 QEMU translate.c
//! (semantics), S3 exc_helper.c (XEA2 dispatch) and S3 win_helper.c / translate.c (register windows);
//! the source tags are listed in the `xtensa` module docs.

use super::config::XtensaConfig;

/// PS fields (S3 QEMU cpu.h).
pub const PS_INTLEVEL: u32 = 0xF;
pub const PS_EXCM: u32 = 1 << 4;
pub const PS_UM: u32 = 1 << 5;
pub const PS_RING: u32 = 3 << 6;
pub const PS_OWB_SHIFT: u32 = 8;
pub const PS_OWB: u32 = 0xF << PS_OWB_SHIFT;
pub const PS_CALLINC_SHIFT: u32 = 16;
pub const PS_CALLINC: u32 = 3 << PS_CALLINC_SHIFT;
pub const PS_WOE: u32 = 1 << 18;
const PS_WRITABLE: u32 = PS_INTLEVEL | PS_EXCM | PS_UM | PS_RING | PS_OWB | PS_CALLINC | PS_WOE;

/// EXCCAUSE values (S3 QEMU cpu.h).
pub mod cause {
    pub const ILLEGAL: u32 = 0;
    pub const SYSCALL: u32 = 1;
    pub const INSTR_FETCH_ERROR: u32 = 2;
    pub const LOAD_STORE_ERROR: u32 = 3;
    pub const LEVEL1_INTERRUPT: u32 = 4;
    pub const ALLOCA: u32 = 5;
    pub const DIVIDE_BY_ZERO: u32 = 6;
    pub const PRIVILEGED: u32 = 8;
    pub const LOAD_STORE_ALIGNMENT: u32 = 9;
    pub const INSTR_FETCH_PROHIBITED: u32 = 20;
    pub const LOAD_PROHIBITED: u32 = 28;
    pub const STORE_PROHIBITED: u32 = 29;
    /// Coprocessor n disabled = COPROCESSOR0_DISABLED + n.
    pub const COPROCESSOR0_DISABLED: u32 = 32;
}

/// Kind of a memory access that faulted on the bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Fetch,
    Read,
    Write,
}

/// Why `run` returned. `pc` is the address of the next instruction to execute unless stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The instruction budget was used up.
    InsnLimit { pc: u32 },
    /// The cycle budget was used up.
    CycleLimit { pc: u32 },
    /// A breakpoint address (see `Xtensa::add_breakpoint`) is about to execute. Resuming executes it.
    Breakpoint { pc: u32 },
    /// BREAK / BREAK.N with `break_stops` set; `pc` is the BREAK itself (resume at `pc + len`).
    Break { pc: u32, s: u8, t: u8, len: u8 },
    /// SIMCALL: `pc` is the SIMCALL itself; the core has already advanced to `pc + 3`.
    /// `args` are a2..a6 (a2 = call number). Write the result with `set_ar(2, ..)` and resume.
    Simcall { pc: u32, args: [u32; 5] },
    /// WAITI with no interrupt that could wake the core (no enabled CCOMPARE). Resuming keeps waiting
    /// unless an interrupt was raised meanwhile.
    WaitI { pc: u32, level: u32 },
    /// An exception whose cause is in `stop_on_exception` (not dispatched; `pc` is the faulting insn).
    Exception {
        cause: u32,
        pc: u32,
        vaddr: u32,
        double: bool,
    },
    /// A bus fault (when `bus_fault_exceptions` is false). `pc` is the faulting instruction.
    BusFault {
        pc: u32,
        addr: u32,
        kind: AccessKind,
    },
    /// The bus asked the core to stop (`XtensaBus::stop_requested`: a peripheral event the
    /// simulator handles, such as a software reset).
    BusRequest { pc: u32 },
}

impl StopReason {
    /// The program counter carried by the stop reason.
    pub fn pc(&self) -> u32 {
        match *self {
            StopReason::InsnLimit { pc }
            | StopReason::CycleLimit { pc }
            | StopReason::Breakpoint { pc }
            | StopReason::Break { pc, .. }
            | StopReason::Simcall { pc, .. }
            | StopReason::WaitI { pc, .. }
            | StopReason::Exception { pc, .. }
            | StopReason::BusFault { pc, .. }
            | StopReason::BusRequest { pc } => pc,
        }
    }
}

/// Notifications for profilers. All methods default to no-ops and are monomorphised away.
pub trait XtensaHooks {
    /// A decoded block starts executing at `pc` (also after a zero-overhead loop-back);
    /// `cycles` and `insns` are the totals before it. Returns whether the hooks took note of it
    /// (only then may `memory_owner` change).
    #[inline(always)]
    fn block_start(&mut self, _pc: u32, _cycles: u64, _insns: u64) -> bool {
        false
    }
    /// Whether `block_start(pc, ..)` would do nothing now, so that the core may leave it out (it
    /// then runs a block on within the one before, see `exec.rs`). Override with `block_start`.
    #[inline(always)]
    fn skips_block_start(&self, _pc: u32) -> bool {
        false
    }
    /// PCs `[start, end)` at which `skips_block_start` holds until the next call of a hook (an
    /// empty range claims nothing). Compiled code goes on into another block itself only there.
    #[inline(always)]
    fn quiet_range(&self) -> (u32, u32) {
        (0, 0)
    }
    /// Who memory traffic is charged to from this block on (see `ExecObserver::memory_owner`); asked
    /// when a run starts and after `block_start` took note of a block.
    #[inline(always)]
    fn memory_owner(&self) -> usize {
        0
    }
    /// CALL0/CALLn/CALLX* at `from`, returning to `return_to`: `window` is 0 (CALL0 ABI), 4, 8 or 12.
    #[inline(always)]
    fn call(&mut self, _from: u32, _return_to: u32, _to: u32, _window: u32) {}
    /// RET/RET.N/RETW/RETW.N that completed (not the underflow exception).
    #[inline(always)]
    fn ret(&mut self, _from: u32, _to: u32) {}
    /// An exception or interrupt was dispatched to a vector (`cause` = EXCCAUSE, 4 for level-1
    /// interrupts, 64 + level for high-priority interrupts, 96 + vector offset for window exceptions).
    #[inline(always)]
    fn exception(&mut self, _cause: u32, _pc: u32, _vector: u32) {}
    /// RFE/RFDE/RFI/RFWO/RFWU at `from` resumes at `to`.
    #[inline(always)]
    fn exception_return(&mut self, _from: u32, _to: u32) {}
}

/// Hooks that do nothing.
pub struct NoHooks;
impl XtensaHooks for NoHooks {
    #[inline(always)]
    fn skips_block_start(&self, _pc: u32) -> bool {
        true
    }
    #[inline(always)]
    fn quiet_range(&self) -> (u32, u32) {
        (0, u32::MAX)
    }
}

/// Architectural state plus counters. Register accessors honour the current window.
// C layout with `ar` first: the engine addresses a register at the `Cpu`'s own address plus 4 ×
// its number, with no offset to add (one host instruction fewer in many instructions; `Xtensa`
// puts its `Cpu` first likewise).
#[repr(C)]
pub struct Cpu {
    /// Address registers as seen from the current window: `ar[k]` (k < 64) is physical
    /// AR[(WINDOWBASE × 4 + k) mod 64], so a<i> is `ar[i]` (the first 16 used without windows).
    /// Rotated when WINDOWBASE changes (calls and returns, a few hundred host instructions at most),
    /// which keeps the window arithmetic out of every register access. The 192 entries past the 64
    /// registers are never used: they let the engine index with an instruction's `u8` register field
    /// without a mask or bounds check (the decoder keeps those fields below 16).
    pub(crate) ar: [u32; 256],
    pub cfg: XtensaConfig,
    pub pc: u32,
    pub(crate) wb: u32,
    pub(crate) wbase: u32,
    pub(crate) ws: u32,
    /// Highest pane (0..3) accessible without a window overflow (S3 QEMU win_helper.c), 3 when checks
    /// are off.
    pub(crate) win_limit: u8,
    pub sar: u32,
    pub lbeg: u32,
    pub lend: u32,
    pub lcount: u32,
    pub(crate) ps: u32,
    pub epc: [u32; 8],
    pub eps: [u32; 8],
    pub excsave: [u32; 8],
    pub exccause: u32,
    pub excvaddr: u32,
    pub depc: u32,
    pub vecbase: u32,
    pub(crate) ccount_off: u32,
    pub(crate) ccompare: [u32; 3],
    pub(crate) timer_next: [u64; 3],
    pub(crate) next_timer: u64,
    /// End of the cycle budget of the current (or last) `Xtensa::run`.
    pub(crate) run_end: u64,
    /// `min(next_timer, run_end)`: the run loop's one cycle test between blocks. Kept current by
    /// everything that changes either.
    pub(crate) cycle_stop: u64,
    pub(crate) interrupt: u32,
    pub(crate) intenable: u32,
    pub cpenable: u32,
    pub scompare1: u32,
    pub atomctl: u32,
    pub memctl: u32,
    pub threadptr: u32,
    pub litbase: u32,
    /// Boolean registers b0..b15.
    pub br: u32,
    /// FP registers f0..f15 (raw IEEE single bits).
    pub fr: [u32; 16],
    pub fcr: u32,
    pub fsr: u32,
    /// MAC16 accumulator (40 bits) and M0..M3.
    pub acc: u64,
    pub m: [u32; 4],
    /// ESP32-S3 PIE state (coprocessor 3; S2 libisa states, S5 tie.h, S4); unused on the other cores.
    pub pie: super::pie::PieState,
    pub misc: [u32; 4],
    pub ibreakenable: u32,
    pub ibreaka: [u32; 2],
    pub dbreaka: [u32; 2],
    pub dbreakc: [u32; 2],
    pub debugcause: u32,
    pub icount: u32,
    pub icountlevel: u32,
    pub ddr: u32,
    pub eraccess: u32,
    pub prid: u32,
    /// Region-protection attributes set by WITLB/WDTLB (8 × 512 MB), recorded but not enforced.
    pub itlb_attr: [u8; 8],
    pub dtlb_attr: [u8; 8],
    /// Executed instructions and elapsed cycles (including idle cycles and bus stalls).
    pub insns: u64,
    pub cycles: u64,
    /// Cycles skipped while waiting in WAITI.
    pub idle_cycles: u64,
    pub(crate) waiting: bool,
    /// Why the last block stopped the run (see `Cpu::exec_block`).
    pub(crate) stop: Option<StopReason>,
    pub(crate) irq_check: bool,
    /// The bus's interrupt epoch when its lines were last taken, and those lines.
    pub(crate) external_epoch: u64,
    pub(crate) external_lines: u32,
    /// Something outside the core (a peripheral alarm, the other core) may raise an interrupt line
    /// during this run: a WAITI with no timer to wake it idles to the end of the run instead of
    /// stopping it (set by the machine before each run).
    pub external_wake: bool,
    /// Exception causes (bit n = EXCCAUSE n) that stop `run` instead of being dispatched.
    pub stop_on_exception: u64,
    /// Stop instead of dispatching a double exception.
    pub stop_on_double_exception: bool,
    /// BREAK/BREAK.N stop `run` (debugger attached) instead of raising the debug interrupt.
    pub break_stops: bool,
    /// Bus faults raise InstructionFetchError / LoadStoreError instead of stopping `run`.
    pub bus_fault_exceptions: bool,
    // Hot-path copies of configuration values.
    pub(crate) align_exc: bool,
    pub(crate) t_taken: u64,
    pub(crate) nmi_mask: u32,
    /// The ESP32's vendor TIE state: EXPSTATE (UR 230), F64R_LO, F64R_HI, F64S (UR 234-236), held
    /// so that context switches save and restore them (their instructions are not modelled).
    pub vendor_ur: [u32; 4],
}

impl Cpu {
    /// A core in its reset state (S3 QEMU [Q]: WB = 0, WS = 1, PS = 0x1F, VECBASE reset value).
    pub fn new(cfg: XtensaConfig) -> Cpu {
        let esp8266 = cfg.core == super::config::XtensaCore::Esp8266;
        let mut c = Cpu {
            ar: [0; 256],
            pc: cfg.reset_vector,
            wb: 0,
            wbase: 0,
            ws: 1,
            win_limit: 3,
            sar: 0,
            lbeg: 0,
            lend: 0,
            lcount: 0,
            ps: 0x1F,
            epc: [0; 8],
            eps: [0; 8],
            excsave: [0; 8],
            exccause: 0,
            excvaddr: 0,
            depc: 0,
            vecbase: cfg.vecbase_reset,
            ccount_off: 0,
            ccompare: [0; 3],
            timer_next: [u64::MAX; 3],
            next_timer: u64::MAX,
            run_end: u64::MAX,
            cycle_stop: u64::MAX,
            interrupt: 0,
            intenable: 0,
            cpenable: 0,
            scompare1: 0,
            atomctl: 0x28,
            memctl: 0,
            threadptr: 0,
            litbase: 0,
            br: 0,
            fr: [0; 16],
            fcr: 0,
            fsr: 0,
            vendor_ur: [0; 4],
            acc: 0,
            m: [0; 4],
            pie: Default::default(),
            misc: [0; 4],
            ibreakenable: 0,
            ibreaka: [0; 2],
            dbreaka: [0; 2],
            dbreakc: [0; 2],
            debugcause: 0,
            icount: 0,
            icountlevel: 0,
            ddr: 0,
            eraccess: 0,
            prid: if esp8266 { 0 } else { 0xCDCD },
            itlb_attr: [2; 8],
            dtlb_attr: [2; 8],
            insns: 0,
            cycles: 0,
            idle_cycles: 0,
            waiting: false,
            stop: None,
            irq_check: true,
            external_epoch: u64::MAX,
            external_lines: 0,
            external_wake: false,
            stop_on_exception: 0,
            stop_on_double_exception: false,
            break_stops: true,
            bus_fault_exceptions: false,
            align_exc: cfg.unaligned_exception,
            t_taken: cfg.timing.taken_branch as u64,
            nmi_mask: cfg.level_mask(cfg.nmi_level),
            cfg,
        };
        c.update_timers();
        c.update_win_limit();
        c
    }

    // ---- registers ----

    /// Read a<i> in the current window.
    #[inline(always)]
    pub fn ar(&self, i: u32) -> u32 {
        self.ar[(i & 63) as usize]
    }

    /// Write a<i> in the current window.
    #[inline(always)]
    pub fn set_ar(&mut self, i: u32, v: u32) {
        self.ar[(i & 63) as usize] = v;
    }

    /// Physical register file (AR0..AR63).
    pub fn physical_ar(&self) -> [u32; 64] {
        let mut p = [0; 64];
        for (k, v) in self.ar[..64].iter().enumerate() {
            p[(self.wbase as usize + k) & 63] = *v;
        }
        p
    }

    pub fn windowbase(&self) -> u32 {
        self.wb
    }

    pub fn windowstart(&self) -> u32 {
        self.ws
    }

    pub fn ps(&self) -> u32 {
        self.ps
    }

    /// Write PS (as WSR.PS does).
    pub fn set_ps(&mut self, v: u32) {
        self.ps = v & PS_WRITABLE;
        self.ps_changed();
    }

    pub fn set_windowbase(&mut self, wb: u32) {
        self.set_wb(wb);
        self.update_win_limit();
    }

    pub fn set_windowstart(&mut self, ws: u32) {
        self.ws = ws & 0xFFFF;
        self.update_win_limit();
    }

    /// Window increment of the call that reached the current PC (PS.CALLINC; 0 without windows).
    fn hle_callinc(&self) -> u32 {
        if self.cfg.windowed {
            (self.ps & PS_CALLINC) >> PS_CALLINC_SHIFT
        } else {
            0
        }
    }

    /// Argument `i` of a call trapped at the callee's first instruction, before its ENTRY
    /// (follows from the CALLn window semantics, S3 QEMU translate.c): the caller's a(4n+2+i) with
    /// n = PS.CALLINC; a(2+i) for CALL0-ABI code.
    pub fn call_arg(&self, i: u32) -> u32 {
        self.ar(4 * self.hle_callinc() + 2 + i)
    }

    /// Change argument `i` of a trapped call (the register [`Self::call_arg`] reads).
    pub fn set_call_arg(&mut self, i: u32, value: u32) {
        self.set_ar(4 * self.hle_callinc() + 2 + i, value);
    }

    /// Complete a trapped call without running it (high-level emulation; CALLn/RETW window semantics, S3):
    /// the result goes to a(4n+2) and PC = (PC & 0xC0000000) | (a(4n) & 0x3FFFFFFF); WINDOWBASE/WINDOWSTART
    /// unchanged. For CALL0-ABI code this is a2 = value, PC = a0. Add the stub's cost to `cycles` yourself.
    pub fn hle_return(&mut self, value: u32) {
        let n = self.hle_callinc();
        self.set_ar(4 * n + 2, value);
        self.pc = self.hle_return_address();
    }

    /// Where the call trapped at the callee's first instruction returns to: the caller's a(4n) with
    /// the window increment in its top two bits replaced by the PC's (CALLn and RETW, Xtensa ISA Reference Manual);
    /// a0 for CALL0-ABI code.
    pub fn hle_return_address(&self) -> u32 {
        let n = self.hle_callinc();
        let ra = self.ar(4 * n);
        if n == 0 {
            ra
        } else {
            (self.pc & 0xC000_0000) | (ra & 0x3FFF_FFFF)
        }
    }

    /// Current CCOUNT.
    #[inline]
    pub fn ccount(&self) -> u32 {
        (self.cycles as u32).wrapping_add(self.ccount_off)
    }

    /// Pending interrupt lines (INTERRUPT SR).
    pub fn interrupt(&self) -> u32 {
        self.interrupt
    }

    pub fn intenable(&self) -> u32 {
        self.intenable
    }

    /// Drive an interrupt line from outside (peripherals through the SoC interrupt matrix).
    /// Level lines follow `level`; edge lines are latched on `true` and cleared by INTCLEAR.
    pub fn set_irq_line(&mut self, line: u32, level: bool) {
        if line >= 32 {
            return;
        }
        let bit = 1u32 << line;
        if level {
            self.interrupt |= bit;
        } else if self.cfg.int_edge_mask & bit == 0 {
            self.interrupt &= !bit;
        }
        self.irq_check = true;
    }

    /// Bit r set: the 512 MB region r has the Region Protection Option's illegal access mode (15)
    /// in `attrs` (Xtensa ISA Reference Manual, Region Protection Option: an access there raises
    /// InstFetchProhibited, LoadProhibited or StoreProhibited). Only regions whose access reached
    /// nothing are checked: the chips map no memory into the regions their firmware protects.
    pub(crate) fn illegal_regions(&self, attrs: &[u8; 8]) -> u8 {
        if !self.cfg.region_protection {
            return 0;
        }
        attrs
            .iter()
            .enumerate()
            .fold(0, |acc, (r, &a)| acc | (((a == 15) as u8) << r))
    }

    /// Lines driven from outside now at `lines`: level lines follow them, edge lines latch on a
    /// rising edge.
    pub(crate) fn drive_external_lines(&mut self, lines: u32) {
        let mut changed = lines ^ self.external_lines;
        self.external_lines = lines;
        while changed != 0 {
            let line = changed.trailing_zeros();
            self.set_irq_line(line, lines & (1 << line) != 0);
            changed &= changed - 1;
        }
    }

    #[inline]
    pub(crate) fn set_wb(&mut self, wb: u32) {
        self.wb = wb & 15;
        let wbase = if self.cfg.windowed { self.wb * 4 } else { 0 };
        // Keep `ar[k]` = AR[wbase + k]: rotate by the change of the window base.
        let d = (wbase.wrapping_sub(self.wbase) & 63) as usize;
        if d != 0 {
            self.ar[..64].rotate_left(d);
        }
        self.wbase = wbase;
    }

    /// Recompute the window-overflow limit (S3 QEMU win_helper.c / translate.c).
    #[inline]
    pub(crate) fn update_win_limit(&mut self) {
        if !self.cfg.windowed || self.ps & PS_WOE == 0 || self.ps & PS_EXCM != 0 {
            self.win_limit = 3;
            return;
        }
        let rot = ((self.ws | (self.ws << 16)) >> self.wb) & 0xFFFF; // bit k = WS[WB + k]
        self.win_limit = if rot & 2 != 0 {
            0
        } else if rot & 4 != 0 {
            1
        } else if rot & 8 != 0 {
            2
        } else {
            3
        };
    }

    #[inline]
    pub(crate) fn ps_changed(&mut self) {
        self.update_win_limit();
        // A lower level can only unmask something when a line is pending.
        self.irq_check |= self.interrupt != 0;
    }

    /// CINTLEVEL = max(PS.INTLEVEL, PS.EXCM ? EXCM_LEVEL : 0) (S3 QEMU exc_helper.c).
    #[inline]
    pub fn cintlevel(&self) -> u32 {
        let il = self.ps & PS_INTLEVEL;
        if self.ps & PS_EXCM != 0 {
            il.max(self.cfg.excm_level)
        } else {
            il
        }
    }

    // ---- timers (S3 QEMU) ----

    /// Recompute when each CCOMPARE next matches CCOUNT.
    pub(crate) fn update_timers(&mut self) {
        let now = self.ccount();
        let mut next = u64::MAX;
        for n in 0..self.cfg.num_timers() {
            let mut d = self.ccompare[n].wrapping_sub(now) as u64;
            if d == 0 {
                d = 1 << 32;
            }
            self.timer_next[n] = self.cycles + d;
            next = next.min(self.timer_next[n]);
        }
        self.set_next_timer(next);
    }

    #[inline]
    fn set_next_timer(&mut self, next: u64) {
        self.next_timer = next;
        self.cycle_stop = next.min(self.run_end);
    }

    /// Start of a run whose cycle budget ends at `end`.
    #[inline]
    pub(crate) fn set_run_end(&mut self, end: u64) {
        self.run_end = end;
        self.cycle_stop = self.next_timer.min(end);
    }

    /// Raise the interrupt lines of timers whose match cycle has passed.
    pub(crate) fn fire_timers(&mut self) {
        let mut next = u64::MAX;
        for n in 0..self.cfg.num_timers() {
            while self.timer_next[n] <= self.cycles {
                self.interrupt |= 1 << self.cfg.timer_irq[n];
                self.irq_check = true;
                self.timer_next[n] += 1 << 32;
            }
            next = next.min(self.timer_next[n]);
        }
        self.set_next_timer(next);
    }

    /// Earliest cycle at which an enabled timer interrupt above the current level fires.
    pub(crate) fn wake_cycle(&self) -> Option<u64> {
        let cint = self.cintlevel();
        let mut best: Option<u64> = None;
        for n in 0..self.cfg.num_timers() {
            let line = self.cfg.timer_irq[n] as u32;
            let lvl = self.cfg.int_level[line as usize] as u32;
            if self.intenable & (1 << line) != 0 && (lvl > cint || lvl == self.cfg.nmi_level) {
                let c = self.timer_next[n];
                best = Some(best.map_or(c, |b: u64| b.min(c)));
            }
        }
        best
    }

    // ---- exceptions and interrupts (S3 QEMU exc_helper.c) ----

    /// Raise a general exception for the instruction at `pc`. Returns a stop reason when the cause is
    /// configured to stop.
    pub fn raise_exception<H: XtensaHooks>(
        &mut self,
        hooks: &mut H,
        cause: u32,
        pc: u32,
        vaddr: Option<u32>,
    ) -> Option<StopReason> {
        let double = self.ps & PS_EXCM != 0;
        if (cause < 64 && self.stop_on_exception & (1u64 << cause) != 0)
            || (double && self.stop_on_double_exception)
        {
            self.pc = pc;
            return Some(StopReason::Exception {
                cause,
                pc,
                vaddr: vaddr.unwrap_or(0),
                double,
            });
        }
        self.exccause = cause;
        if let Some(v) = vaddr {
            self.excvaddr = v;
        }
        let off = if double {
            self.depc = pc;
            self.cfg.vec.double
        } else {
            self.epc[1] = pc;
            if self.ps & PS_UM != 0 {
                self.cfg.vec.user
            } else {
                self.cfg.vec.kernel
            }
        };
        self.ps |= PS_EXCM;
        self.pc = self.vecbase.wrapping_add(off);
        self.cycles += self.cfg.timing.exception as u64;
        self.ps_changed();
        hooks.exception(cause, pc, self.pc);
        None
    }

    /// Take the highest pending enabled interrupt if its level exceeds CINTLEVEL (S3 QEMU exc_helper.c).
    pub(crate) fn check_interrupts<H: XtensaHooks>(&mut self, hooks: &mut H) -> Option<StopReason> {
        self.irq_check = false;
        let nmi_mask = self.nmi_mask;
        let pend = (self.interrupt & self.intenable) | (self.interrupt & nmi_mask);
        if pend == 0 {
            return None;
        }
        let mut lvl = 0u32;
        let mut p = pend;
        while p != 0 {
            let i = p.trailing_zeros();
            lvl = lvl.max(self.cfg.int_level[i as usize] as u32);
            p &= p - 1;
        }
        if lvl <= self.cintlevel() && lvl != self.cfg.nmi_level {
            return None;
        }
        self.waiting = false;
        let pc = self.pc;
        if lvl == 1 {
            return self.raise_exception(hooks, cause::LEVEL1_INTERRUPT, pc, None);
        }
        self.epc[lvl as usize] = pc;
        self.eps[lvl as usize] = self.ps;
        self.ps = (self.ps & !PS_INTLEVEL) | lvl | PS_EXCM;
        self.pc = self.vecbase.wrapping_add(self.cfg.vec.level[lvl as usize]);
        if lvl == self.cfg.nmi_level {
            self.interrupt &= !nmi_mask;
        }
        self.cycles += self.cfg.timing.exception as u64;
        self.ps_changed();
        hooks.exception(64 + lvl, pc, self.pc);
        None
    }

    /// Window overflow exception for the instruction at `pc` (S3 QEMU win_helper.c).
    pub(crate) fn window_overflow<H: XtensaHooks>(&mut self, hooks: &mut H, pc: u32) {
        let bit = |ws: u32, k: u32| ws & (1 << (k & 15)) != 0;
        let mut d = 1;
        while d < 4 && !bit(self.ws, self.wb + d) {
            d += 1;
        }
        let f = (self.wb + d) & 15;
        let mut e = 1;
        while e < 16 && !bit(self.ws, f + e) {
            e += 1;
        }
        let off = match e {
            1 => self.cfg.vec.window_overflow4,
            2 => self.cfg.vec.window_overflow8,
            _ => self.cfg.vec.window_overflow12,
        };
        self.ps = (self.ps & !PS_OWB) | (self.wb << PS_OWB_SHIFT) | PS_EXCM;
        self.set_wb(f);
        self.epc[1] = pc;
        self.pc = self.vecbase.wrapping_add(off);
        self.cycles += self.cfg.timing.exception as u64;
        self.ps_changed();
        hooks.exception(96 + off, pc, self.pc);
    }

    /// Window underflow exception raised by RETW at `pc` returning `n` panes (S3 QEMU win_helper.c).
    pub(crate) fn window_underflow<H: XtensaHooks>(&mut self, hooks: &mut H, pc: u32, n: u32) {
        let off = match n {
            1 => self.cfg.vec.window_underflow4,
            2 => self.cfg.vec.window_underflow8,
            _ => self.cfg.vec.window_underflow12,
        };
        self.ps = (self.ps & !PS_OWB) | (self.wb << PS_OWB_SHIFT) | PS_EXCM;
        self.set_wb(self.wb.wrapping_sub(n));
        self.epc[1] = pc;
        self.pc = self.vecbase.wrapping_add(off);
        self.cycles += self.cfg.timing.exception as u64;
        self.ps_changed();
        hooks.exception(96 + off, pc, self.pc);
    }

    // ---- special registers (S2 libisa) ----

    /// RSR semantics. Unknown numbers read 0 (the decoder rejects SRs the core lacks).
    pub fn read_sr(&self, sr: u32) -> u32 {
        match sr {
            0 => self.lbeg,
            1 => self.lend,
            2 => self.lcount,
            3 => self.sar,
            4 => self.br,
            5 => self.litbase,
            12 => self.scompare1,
            16 => self.acc as u32,
            // ACCHI reads back sign-extended from 8 bits [Q] (S3 QEMU)
            17 => ((self.acc >> 32) as u8 as i8) as i32 as u32,
            32..=35 => self.m[(sr - 32) as usize],
            72 => self.wb,
            73 => self.ws,
            95 => self.eraccess,
            96 => self.ibreakenable,
            97 => self.memctl,
            99 => self.atomctl,
            104 => self.ddr,
            128 | 129 => self.ibreaka[(sr - 128) as usize],
            144 | 145 => self.dbreaka[(sr - 144) as usize],
            160 | 161 => self.dbreakc[(sr - 160) as usize],
            177..=183 => self.epc[(sr - 176) as usize],
            192 => self.depc,
            194..=199 => self.eps[(sr - 192) as usize],
            209..=215 => self.excsave[(sr - 208) as usize],
            224 => self.cpenable,
            226 => self.interrupt,
            228 => self.intenable,
            230 => self.ps,
            231 => self.vecbase,
            232 => self.exccause,
            233 => self.debugcause,
            234 => self.ccount(),
            235 => self.prid,
            236 => self.icount,
            237 => self.icountlevel,
            238 => self.excvaddr,
            240..=242 => self.ccompare[(sr - 240) as usize],
            244..=247 => self.misc[(sr - 244) as usize],
            _ => 0,
        }
    }

    /// WSR semantics (INTSET at 226, INTCLEAR at 227, CCOMPARE writes clear their line).
    pub fn write_sr(&mut self, sr: u32, v: u32) {
        match sr {
            0 => self.lbeg = v,
            1 => self.lend = v,
            2 => self.lcount = v,
            3 => self.sar = v & 63,
            4 => self.br = v & 0xFFFF,
            5 => self.litbase = v & 0xFFFF_F001,
            12 => self.scompare1 = v,
            16 => self.acc = (self.acc & 0xFF_0000_0000) | v as u64,
            17 => self.acc = (self.acc & 0xFFFF_FFFF) | (((v & 0xFF) as u64) << 32),
            32..=35 => self.m[(sr - 32) as usize] = v,
            72 => {
                self.set_wb(v);
                self.update_win_limit();
            }
            73 => {
                self.ws = v & 0xFFFF;
                self.update_win_limit();
            }
            95 => self.eraccess = v,
            96 => self.ibreakenable = v,
            97 => self.memctl = v,
            99 => self.atomctl = v,
            104 => self.ddr = v,
            128 | 129 => self.ibreaka[(sr - 128) as usize] = v,
            144 | 145 => self.dbreaka[(sr - 144) as usize] = v,
            160 | 161 => self.dbreakc[(sr - 160) as usize] = v,
            177..=183 => self.epc[(sr - 176) as usize] = v,
            192 => self.depc = v,
            194..=199 => self.eps[(sr - 192) as usize] = v,
            209..=215 => self.excsave[(sr - 208) as usize] = v,
            224 => self.cpenable = v & 0xFF,
            226 => {
                self.interrupt |= v & self.cfg.int_sw_mask;
                self.irq_check = true;
            }
            227 => {
                self.interrupt &= !(v & (self.cfg.int_edge_mask | self.cfg.int_sw_mask));
                self.irq_check = true;
            }
            228 => {
                self.intenable = v;
                self.irq_check = true;
            }
            230 => self.set_ps(v),
            231 => self.vecbase = v,
            232 => self.exccause = v,
            233 => self.debugcause = v,
            234 => {
                self.ccount_off = v.wrapping_sub(self.cycles as u32);
                self.update_timers();
            }
            236 => self.icount = v,
            237 => self.icountlevel = v & 0xF,
            238 => self.excvaddr = v,
            240..=242 => {
                let n = (sr - 240) as usize;
                self.ccompare[n] = v;
                self.interrupt &= !(1 << self.cfg.timer_irq[n]);
                self.update_timers();
            }
            244..=247 => self.misc[(sr - 244) as usize] = v,
            _ => {}
        }
    }

    /// RUR semantics (S2 libisa UR table; UR 0–18 are the PIE state, S5 tie.h).
    pub fn read_ur(&self, ur: u32) -> u32 {
        match ur {
            0..=18 => self.pie.read_ur(ur),
            231 => self.threadptr,
            232 => self.fcr,
            233 => self.fsr,
            230 => self.vendor_ur[0],
            234..=236 => self.vendor_ur[(ur - 233) as usize],
            _ => 0,
        }
    }

    /// WUR semantics. FCR keeps bits [6:0] and FSR the flag bits 0xF80 (S3 QEMU fpu_helper.c [Q]).
    pub fn write_ur(&mut self, ur: u32, v: u32) {
        match ur {
            0..=18 => self.pie.write_ur(ur, v),
            231 => self.threadptr = v,
            232 => self.fcr = v & 0x7F,
            233 => self.fsr = v & 0xF80,
            230 => self.vendor_ur[0] = v,
            234..=236 => self.vendor_ur[(ur - 233) as usize] = v,
            _ => {}
        }
    }
}
