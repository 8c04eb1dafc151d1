//! CPU backends behind one interface: Cortex-M on Unicorn (`cortex_m`), Xtensa on our own ISS (`xtensa`).
//!
//! A core runs firmware, counts simulated cycles (its own cost model plus the stalls the memory
//! models of `tigris_memmodels` charge) and reports control flow to an [`ExecObserver`] so that a
//! profiler above it can attribute time. It knows nothing of TiGrIS, reports or the command line.

#[cfg(feature = "cortex-m")]
pub mod cortex_m;
pub mod flat;
pub mod xtensa;

use tigris_memmodels::MemorySystem;

/// How control arrived at the start of a basic block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Fall-through or a branch within the program (including tail calls).
    Jump,
    /// The previous block ended with a call; `return_to` is where the callee returns.
    Call { return_to: u32 },
    /// The previous block ended with a return instruction.
    Return,
    /// Exception entry (interrupt, SVC, ...) with its exception number.
    ExceptionEntry { number: u32 },
    /// Return from an exception handler.
    ExceptionReturn,
    /// The handler that just ended is followed at once by the handler of exception `number`, without
    /// returning to the code both preempted (Cortex-M tail-chaining).
    TailChain { number: u32 },
}

/// Receives one event per executed basic block. `cycles` and `instructions` are the core's totals
/// *before* the block runs, so a profiler attributes the difference since the last event to the code
/// that was running.
pub trait ExecObserver {
    fn block(&mut self, pc: u32, flow: Flow, cycles: u64, instructions: u64);
    /// Addresses `[start, end)` where a block reached by `Flow::Jump` would change nothing but the
    /// totals since the last event, which the next event carries as well: a core may leave such
    /// blocks unreported. Asked again after every reported block. Default: report every block.
    fn quiet_jumps(&self) -> (u32, u32) {
        (1, 0)
    }
    /// Who the memory traffic of the reported block and the blocks after it (until the next reported
    /// one) is charged to: an index of the observer's choosing (the profiler's function index), passed
    /// to `MemorySystem::set_owner`. Asked after every reported block.
    fn memory_owner(&self) -> usize {
        0
    }
    /// `block`, then `quiet_jumps` and `memory_owner`: all a core asks of a reported block, in one
    /// dynamic call (the two questions are then static calls into the implementation).
    fn report_block(
        &mut self,
        pc: u32,
        flow: Flow,
        cycles: u64,
        instructions: u64,
    ) -> ((u32, u32), usize) {
        self.block(pc, flow, cycles, instructions);
        (self.quiet_jumps(), self.memory_owner())
    }
}

/// A core of the chip besides the one the run's observer profiles.
#[derive(Debug, Clone)]
pub struct OtherCore {
    /// Its PRID (processor ID register).
    pub prid: u32,
    pub cycles: u64,
    pub instructions: u64,
    /// Cycles it waited for an interrupt (WAITI).
    pub idle_cycles: u64,
    /// Where it is now.
    pub pc: u32,
    /// Its flat profile (`FlatProfile::counts`, by the functions given to `profile_other_cores`).
    pub counts: Vec<(u64, u64)>,
}

/// An observer that ignores everything (used for raw-speed comparisons).
pub struct NoObserver;

impl ExecObserver for NoObserver {
    fn block(&mut self, _: u32, _: Flow, _: u64, _: u64) {}
    /// Nothing is watched: no plain jump needs reporting.
    fn quiet_jumps(&self) -> (u32, u32) {
        (0, u32::MAX)
    }
}

/// Where execution starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub pc: u32,
    pub sp: u32,
    /// Where the exception vectors are, when the firmware image says (Cortex-M VTOR).
    pub vector_table: Option<u32>,
    /// Started at a function (`--entry`) rather than at reset: its return ends the run with
    /// [`Stop::Returned`].
    pub return_ends_run: bool,
}

/// Limits of one `run` call; the core stops at the first block boundary past either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub cycles: u64,
    pub instructions: u64,
}

/// What kind of fault the firmware ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Read from an address with no memory.
    BadRead,
    /// Write to an address with no memory or to read-only memory.
    BadWrite,
    /// Instruction fetch from an address with no executable memory.
    BadFetch,
    UndefinedInstruction,
    /// An exception or interrupt was taken whose vector is not usable.
    UnhandledException,
    /// The core can never make progress again (spin on itself or sleep with no event source).
    EndlessLoop,
    /// A breakpoint instruction that is not a semihosting request.
    Breakpoint,
    /// Unaligned access on a core that faults on it, or another usage fault.
    UsageFault,
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::BadRead => "bad read",
            FaultKind::BadWrite => "bad write",
            FaultKind::BadFetch => "bad instruction fetch",
            FaultKind::UndefinedInstruction => "undefined instruction",
            FaultKind::UnhandledException => "unhandled exception",
            FaultKind::EndlessLoop => "endless loop",
            FaultKind::Breakpoint => "breakpoint",
            FaultKind::UsageFault => "usage fault",
        }
    }
}

/// A firmware fault: a result to report, not a simulator error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// Address of the faulting instruction.
    pub pc: u32,
    /// Data address involved, if any.
    pub address: Option<u32>,
    pub detail: String,
}

/// Why `run` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The budget of this call was used up; call `run` again to continue.
    Budget,
    /// A semihosting request in the core's convention ([`Core::semihosting_abi`]): Cortex-M
    /// `BKPT 0xAB` with the operation in register 0 and the argument in register 1, or Xtensa
    /// `SIMCALL` with the call number in a2 and arguments in a3..a5. Answer it with
    /// [`Core::finish_semihosting`].
    Semihosting,
    /// Execution reached an address registered with [`Core::set_traps`], before running it (a call
    /// the simulator emulates at high level). Complete it with [`Core::return_from_call`].
    Trap {
        pc: u32,
    },
    Fault(Fault),
    /// The function the run started at (see [`Entry::return_ends_run`]) returned `value`.
    Returned {
        value: u32,
    },
    /// The firmware reset the chip or a core by software (`by`: the register and bits written);
    /// on the chip it would start again from its ROM.
    Reset {
        by: String,
    },
    /// The core sleeps (WFI/WFE, WAITI) at `pc` and no enabled interrupt source can ever wake it:
    /// the firmware has nothing left to do. Not a fault: firmware that never exits ends this way.
    Idle {
        pc: u32,
        detail: String,
    },
    /// Execution reached an address set with [`Core::set_breakpoints`], before running it.
    Breakpoint {
        pc: u32,
    },
    /// An instruction accessed memory watched with [`Core::set_watchpoints`]; the core stops at the
    /// next block boundary, `pc`.
    Watchpoint {
        pc: u32,
        /// The first address accessed inside the watched range.
        addr: u32,
        write: bool,
    },
}

/// Which data accesses a debugger's watchpoint stops at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchKind {
    Read,
    Write,
    Access,
}

impl WatchKind {
    pub fn matches(self, write: bool) -> bool {
        match self {
            WatchKind::Read => !write,
            WatchKind::Write => write,
            WatchKind::Access => true,
        }
    }
}

/// A debugger's watchpoint: `len` bytes from `addr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchpoint {
    pub addr: u32,
    pub len: u32,
    pub kind: WatchKind,
}

/// The calling convention of a core's semihosting requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemihostingAbi {
    /// Arm semihosting v2.0: operation in r0, parameter (block pointer) in r1, result in r0.
    Arm,
    /// Xtensa ISS / QEMU `SIMCALL`: call number in a2, arguments in a3..a5, result in a2, errno in a3.
    XtensaSimcall,
}

/// Simulator-side failure of a core (not a firmware fault).
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{0}")]
    Engine(String),
    /// Unicorn, the Cortex-M engine, refused what the backend was doing (`what`); its error code
    /// is the source.
    #[cfg(feature = "cortex-m")]
    #[error("{what}")]
    Unicorn {
        what: String,
        #[source]
        source: unicorn_engine::uc_error,
    },
    /// Capstone, the Cortex-M disassembler, could not be set up for the core.
    #[cfg(feature = "cortex-m")]
    #[error("setting up the disassembler")]
    Capstone(#[from] capstone::Error),
    #[error("memory at 0x{addr:08x} (+{len} bytes) is not mapped")]
    Unmapped { addr: u32, len: usize },
}

/// One CPU backend.
pub trait Core {
    /// Copy bytes into simulated memory (loading, semihosting replies).
    fn write_memory(&mut self, addr: u32, data: &[u8]) -> Result<(), CoreError>;
    fn read_memory(&self, addr: u32, buf: &mut [u8]) -> Result<(), CoreError>;
    /// Put `image` on the board's flash chip from offset 0 (a flash image the chip boots from).
    fn load_flash(&mut self, _image: &[u8]) -> Result<(), CoreError> {
        Err(CoreError::Engine(
            "this core's board has no flash chip behind an MMU to boot a flash image from".into(),
        ))
    }
    /// Where the core starts out of reset, when that is fixed (the mask ROM's reset vector).
    fn reset_vector(&self) -> Option<u32> {
        None
    }
    /// Put the core in its reset state and start at `entry`.
    fn reset(&mut self, entry: Entry) -> Result<(), CoreError>;
    /// Run until a stop event or the budget is used up.
    fn run(&mut self, budget: Budget, observer: &mut dyn ExecObserver) -> Result<Stop, CoreError>;
    /// Complete a semihosting request: put `result` in register 0 and step past the request.
    fn finish_semihosting(&mut self, result: u32) -> Result<(), CoreError>;
    fn pc(&self) -> u32;
    /// General register `n` (r0-r15 on Cortex-M).
    fn register(&self, n: usize) -> u32;
    /// Name and value of every register worth showing in a fault report.
    fn registers(&self) -> Vec<(&'static str, u32)>;
    fn cycles(&self) -> u64;
    fn instructions(&self) -> u64;
    /// Memory models with their counters.
    fn memory(&self) -> &MemorySystem;
    /// The same, to add watches (a core counts every access only to regions whose
    /// `traffic_counted` is set).
    fn memory_mut(&mut self) -> &mut MemorySystem;
    /// Console bytes the firmware wrote to devices (UART, ITM) since the last call.
    fn take_console(&mut self) -> Vec<u8>;
    /// What the core noticed since the last call that is worth a warning but is no fault (a poll of
    /// a peripheral register without progress): the PC it concerns and the text.
    fn take_warnings(&mut self) -> Vec<(u32, String)> {
        Vec::new()
    }
    /// Run the function at `addr` with `args` to its return, before the firmware starts (the ROM
    /// calls a chip's boot code makes before it hands over), on the stack at `sp`, within
    /// `max_instructions`. Returns its return value; registers other than memory are left as reset.
    fn call_function(
        &mut self,
        addr: u32,
        _args: &[u32],
        _sp: u32,
        _max_instructions: u64,
    ) -> Result<u32, CoreError> {
        Err(CoreError::Engine(format!(
            "this core cannot call the function at 0x{addr:08x} before the start"
        )))
    }
    /// Notes on the whole run so far for the report (accesses the core let through, ...).
    /// Each switch of the core clock the firmware made: (core cycle, new clock in Hz).
    fn clock_changes(&self) -> Vec<(u64, u64)> {
        Vec::new()
    }

    fn run_notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Profile the chip's other cores (the run's observer sees the first) over the functions
    /// starting at `starts` (sorted), their memory traffic charged to owner `owner`.
    fn profile_other_cores(&mut self, _starts: &[u32], _owner: usize) {}
    /// The other cores' profiles so far, if they ran.
    fn other_cores(&self) -> Vec<OtherCore> {
        Vec::new()
    }
    /// Disassembly of the instruction at `addr`, if it can be read and decoded.
    fn disassemble(&self, addr: u32) -> Option<String>;
    /// The length in bytes of the instruction at `addr`, if it can be read.
    fn instruction_length(&self, addr: u32) -> Option<u32>;

    /// The cores a debugger can look at: 2 on a dual-core chip (its second core as GDB thread 2).
    fn core_count(&self) -> usize {
        1
    }
    /// Register `name` (as [`Core::debug_register`] names it) of core `core`, 0 being the core the
    /// run and its profile follow.
    fn core_register(&self, core: usize, name: &str) -> Option<u32> {
        (core == 0).then(|| self.debug_register(name)).flatten()
    }

    /// Convention of the requests behind [`Stop::Semihosting`].
    fn semihosting_abi(&self) -> SemihostingAbi {
        SemihostingAbi::Arm
    }
    /// Write general register `n` (semihosting replies that return more than one value).
    fn set_register(&mut self, n: usize, _value: u32) -> Result<(), CoreError> {
        Err(CoreError::Engine(format!(
            "this core does not support writing register {n} from the simulator"
        )))
    }
    /// The stack pointer (r13 on Cortex-M).
    fn stack_pointer(&self) -> u32 {
        self.register(13)
    }
    /// Where the call stopped at a trap on its callee's first instruction returns to, when the core
    /// can tell (observers that time a whole call trap this address too).
    fn return_address(&self) -> Option<u32> {
        None
    }
    /// The exceptions being handled now, innermost first: the exception's name and the return address
    /// its frame holds, where the code it preempted resumes (backtraces through exception frames).
    fn exception_frames(&self) -> Vec<(String, u32)> {
        Vec::new()
    }
    /// Bytes of the call instruction that precedes a return address (backtraces).
    fn call_instruction_bytes(&self) -> u32 {
        2
    }
    /// Stop with [`Stop::Trap`] whenever execution reaches one of `addrs`.
    fn set_traps(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        if addrs.is_empty() {
            return Ok(());
        }
        Err(CoreError::Engine(
            "this core does not support high-level emulation traps".into(),
        ))
    }
    /// Debugger: stop with [`Stop::Breakpoint`] before the instruction at any of `addrs` (the whole
    /// set; empty clears it). The code and its cycle costs stay as they are.
    fn set_breakpoints(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        match addrs.is_empty() {
            true => Ok(()),
            false => Err(CoreError::Engine(
                "this core does not support breakpoints".into(),
            )),
        }
    }
    /// Debugger: stop with [`Stop::Watchpoint`] after a data access inside one of `watches` (the
    /// whole set). Watching changes no cycle count.
    fn set_watchpoints(&mut self, watches: &[Watchpoint]) -> Result<(), CoreError> {
        match watches.is_empty() {
            true => Ok(()),
            false => Err(CoreError::Engine(
                "this core does not support watchpoints".into(),
            )),
        }
    }
    /// Debugger: run exactly one instruction (or enter one pending exception); [`Stop::Budget`]
    /// when nothing else stopped it. The cycles are those the instruction costs in a whole run.
    fn step(&mut self, _observer: &mut dyn ExecObserver) -> Result<Stop, CoreError> {
        Err(CoreError::Engine("this core cannot single-step".into()))
    }
    /// Debugger: any register by its lower-case architectural name (Cortex-M `r0`..`r12`, `sp`,
    /// `lr`, `pc`, `xpsr`, `s0`..`s31`, `fpscr`, `msp`, `psp`, `primask`, `basepri`, `faultmask`,
    /// `control`; Xtensa `pc`, `a0`..`a63` counted from the current window, special and user
    /// registers by name); None for one the core does not have.
    fn debug_register(&self, _name: &str) -> Option<u32> {
        None
    }
    /// Debugger: write a register named as for [`Core::debug_register`].
    fn set_debug_register(&mut self, name: &str, _value: u32) -> Result<(), CoreError> {
        Err(CoreError::Engine(format!(
            "register `{name}` cannot be written"
        )))
    }
    /// Argument `i` (0-based) of the call stopped at a trap, in the core's calling convention.
    fn call_argument(&self, i: u32) -> u32 {
        self.register(i as usize)
    }
    /// Word `i` of the call's stack-passed arguments (after the register arguments).
    fn stack_argument(&self, i: u32) -> Result<u32, CoreError> {
        let mut b = [0u8; 4];
        self.read_memory(self.stack_pointer().wrapping_add(4 * i), &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    /// Word arguments passed in registers: r0-r3 (AAPCS 6.5); Xtensa overrides with six.
    fn register_arguments(&self) -> u32 {
        4
    }
    /// Word argument `i` of the call stopped at a trap: a register or the caller's stack.
    fn argument(&self, i: u32) -> Result<u32, CoreError> {
        match i.checked_sub(self.register_arguments()) {
            None => Ok(self.call_argument(i)),
            Some(on_stack) => self.stack_argument(on_stack),
        }
    }
    /// Change register argument `i` of the call stopped at a trap (it then runs with the new value).
    fn set_call_argument(&mut self, i: u32, value: u32) -> Result<(), CoreError> {
        self.set_register(i as usize, value)
    }
    /// Change word argument `i` of the call stopped at a trap, in its register or on the stack.
    fn set_argument(&mut self, i: u32, value: u32) -> Result<(), CoreError> {
        match i.checked_sub(self.register_arguments()) {
            None => self.set_call_argument(i, value),
            Some(on_stack) => self.write_memory(
                self.stack_pointer().wrapping_add(4 * on_stack),
                &value.to_le_bytes(),
            ),
        }
    }
    /// Complete the call stopped at a trap without running it: return `value` to the caller and
    /// charge `cycles` for the emulated function.
    fn return_from_call(&mut self, _value: u32, _cycles: u64) -> Result<(), CoreError> {
        Err(CoreError::Engine(
            "this core does not support high-level emulation traps".into(),
        ))
    }
}
