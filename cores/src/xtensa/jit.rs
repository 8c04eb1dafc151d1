//! Block compiler: hot plain-path blocks translated to host code with Cranelift.
//!
//! The interpreter (`exec.rs`) stays the reference; this module only ever runs a block the way the
//! plain path would, and leaves it where the plain path would leave it, so results are exactly the
//! interpreter's:
//! - A block is compiled once the run loop has sent it down the plain path `COMPILE_AFTER` times
//!   (counted per decoded block, so the moment does not depend on time or threads), and only if
//!   every instruction is one `Translator::insn` knows; any other block stays interpreted for good.
//! - Compiled code enters at the block's start with the run loop's start-of-block work done. At an
//!   exit it goes on into the compiled code of the next block itself (a tail call through the
//!   exit's `LinkCell`) when the run loop would run that block next, plainly, with nothing in
//!   between but telling the hooks of its start (the checks of `Cpu::enters_plainly` and
//!   `Cpu::runs_plainly`; where the hooks must hear of it, as after a call or return, the enters
//!   call-out tells them as the run loop would). An exit to a computed PC (a return, an indirect
//!   jump or call) goes on where it leaves for the PC its cell was last linked for. Anywhere else
//!   it returns to the run loop, which links the exit once it went on into compiled code from
//!   there. Results do not depend on how far compiled code got before returning (as for the
//!   interpreter's plain path, see `exec.rs`).
//! - The between-block checks are made inline against bounds read once (the run's instruction
//!   bound, the timer stop, the quiet range) while no call-out has run since the last full check:
//!   compiled code itself changes nothing those checks read but the counters. A call-out that may
//!   change more sets `JitEnv::insn_limit` to 0, so the next check is the goes-on call-out's full one.
//!   Within a region the bounds hold the rest: where the quiet range does not hold the region's PCs,
//!   or the run loop would not run a block exits go on to plainly, the limit read is 0.
//! - A function holds a region: the hot block and the blocks on the short loops through it
//!   (`BlockCache::region`). An exit to the start of one of them goes on within the function (after
//!   the same checks as a linked exit), so a loop runs with its registers and counters in SSA
//!   values (Cranelift variables): a<0..15> and SAR are loaded where first used, or at the entry
//!   for the blocks exits go on to, the counters added up per exit and stored where the function is
//!   left or calls out. At an exit the registers written are stored back and the counters advanced
//!   by the exit's `Insn::idx` + 1 and `Insn::cum_cost` (plus the taken-branch penalty), as
//!   `exec_block` does.
//! - A data access to memory that costs nothing is made inline where the bus offers a `DataView`
//!   (`EspBus`): the same page-table lookup, bounds, memory and traffic counters as
//!   `EspBus::read_at`/`write_at`. Anything else (priced or MMIO memory, a store into a chunk code
//!   was decoded from, a misaligned access on a core that raises for it, a run whose accesses are
//!   watched) calls out to the generic bus (`Cpu::try_load`/`try_store` with the same `now`), so
//!   pricing, profiling owners, watches and code-write detection behave as in the interpreter;
//!   a fault is dispatched by the interpreter's own `Cpu::data_fault`. Calls and returns tell the
//!   hooks through call-outs; at an untaken branch the superblock goes on only where the plain path
//!   would (`Cpu::continues_plainly_at`).
//!
//! Call-outs are reached through the `JitEnv` the run passes, so compiled code is the same whatever
//! bus and hooks run it.

use std::cell::UnsafeCell;
use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Block, Inst, InstBuilder, MemFlagsData, SigRef, Signature, Value,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{isa::CallConv, Context};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;

use super::backend::{Accesses, PageMap};
use super::bus::{DataView, XtensaBus};
use super::cpu::{Cpu, StopReason, XtensaHooks, PS_CALLINC, PS_CALLINC_SHIFT};
use super::decode::{Insn, Op, AR_R, AR_S, AR_T, B4CONST, B4CONSTU};
use super::exec::{DataFault, RunBounds, SR_CCOUNT};
use super::isa;

/// Plain-path runs of a block before it is compiled: the lower, the more blocks are compiled that
/// run too rarely to repay it (the 9 M-instruction demos ran 20 % (esp8266) and 13 % (esp32s3)
/// faster at 20,000 than at 5,000, and slower still at 50); the 0.9 G-instruction workloads run
/// as fast either way (docs/xtensa.md, Speed).
pub(super) const COMPILE_AFTER: u32 = 20_000;

/// Most blocks compiled into one function (`BlockCache::region`): loops of up to this many blocks
/// run without leaving compiled code's registers. Measured (docs/xtensa.md, Speed): 2 and 3 gave the
/// long workloads the same gain (9-12 %), 3 cost the short demos more compile time; 8 blocks (any
/// successor, not only loops) was slower than 2 on both.
pub(super) const REGION_BLOCKS: usize = 2;

/// A block whose region holds more than one block is compiled after `REGION_DELAY` times as many
/// plain runs as one compiled alone: only long runs repay the larger function's compile time (the
/// 9 M-instruction demos ran 26-28 % slower compiling such regions at `COMPILE_AFTER`; a 1 G
/// instruction run loses well under 1 % interpreting the loop 80,000 more times).
pub(super) const REGION_DELAY: u32 = 5;

/// A block joins another's region once it has run plainly `COMPILE_AFTER / REGION_WARMTH` times
/// (a loop's rarer paths are in, code run once is not).
pub(super) const REGION_WARMTH: u32 = 16;

/// Compiled code of a block, a function of Cranelift's tail-call convention (which Rust cannot
/// call: `EnterFn` does) taking `(cpu: *mut Cpu, env: *mut JitEnv)` and returning 1 when the run
/// stops for `Cpu::stop`, else 0 (go on at `Cpu::pc`).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(super) struct BlockFn(std::ptr::NonNull<u8>);

/// The compiled entry from Rust into a `BlockFn`: `enter(code, cpu, env)` is `code(cpu, env)`.
type EnterFn = unsafe extern "C" fn(code: BlockFn, cpu: *mut Cpu, env: *mut JitEnv) -> u32;

/// Where an exit goes on: the compiled code of the block at `pc`, once the run loop went on into
/// it from this exit (`JitEnv::link`), with what the run loop checks of that block before running
/// it plainly (`Cpu::runs_plainly`; being compiled, it has no `BLK_*` flags). An exit to a known
/// PC links only that PC's code; an exit to a computed one (`indirect`: a return, an indirect jump
/// or call) the code of the last PC it was linked for, used when it leaves for that PC again.
/// Owned by the `Compiler` whose code reads it.
#[repr(C)]
pub(super) struct LinkCell {
    code: Option<BlockFn>,
    pc: u32,
    bytes: u32,
    max_pane: u8,
    indirect: bool,
}

/// What compiled code reaches outside `Cpu`: the call-outs for the bus and hooks of the run, and
/// what they need.
#[repr(C)]
pub(super) struct JitEnv {
    callouts: &'static Callouts,
    cpu: *mut Cpu,
    bus: *mut (),
    hooks: *mut (),
    run: RunBounds,
    generation: u64,
    /// The instruction count below which compiled code may go on without the full between-block
    /// check: the run's plain-path bound, or 0 after a call-out that may have changed what that
    /// check reads beyond the counters (the bus, the hooks), so that the next check is the full one.
    insn_limit: u64,
    /// `XtensaHooks::quiet_range` when compiled code was entered (it holds until a call-out).
    quiet: (u32, u32),
    /// The cell of the exit that returned for want of a link, or null.
    pending: *mut LinkCell,
    /// Who the bus charges memory traffic to (the run loop's, kept up to date by `enters`).
    pub(super) owner: usize,
    fault_seen: Option<DataFault>,
    enter: EnterFn,
}

/// The call-outs of compiled code, monomorphised for a bus and hooks (`CalloutsFor`).
#[repr(C)]
struct Callouts {
    /// Loads of 1, 2 and 4 bytes (one call-out per size, so the bus's code is specialised for
    /// it): the value, or bit 32 set when it faulted (the fault kept in `fault_seen`).
    load: [extern "C" fn(*mut JitEnv, u32) -> u64; 3],
    /// Stores of the low 1, 2 and 4 bytes of a value: 0, or 1 when it faulted (kept in `fault_seen`).
    store: [extern "C" fn(*mut JitEnv, u32, u32) -> u32; 3],
    /// Dispatch `fault` for the instruction at a PC (the registers stored back): 1 when the run stops.
    fault: extern "C" fn(*mut JitEnv, u32) -> u32,
    /// At an untaken branch with (instructions, cycles) of the block so far, whether the plain path
    /// would go on to the next PC: 1 if so.
    goes_on: extern "C" fn(*mut JitEnv, u32, u32, u32) -> u32,
    /// At an exit to the compiled code of a block that runs plainly (`Cpu::pc` and the counters
    /// stored): 1 if the run loop would run it next after telling the hooks (done), else 0.
    enters: extern "C" fn(*mut JitEnv) -> u32,
    /// `XtensaHooks::call(from, return_to, to, window)`.
    call: extern "C" fn(*mut JitEnv, u32, u32, u32, u32),
    /// `XtensaHooks::ret(from, to)`.
    ret: extern "C" fn(*mut JitEnv, u32, u32),
    /// ENTRY a<s>, frame at a PC, in a block naming panes up to a limit (`Cpu::entry`, the
    /// registers stored back): 0 to go on in the new window, else `LEAVE` or `LEAVE_AND_STOP`.
    entry: extern "C" fn(*mut JitEnv, u32, u32, u32, u32) -> u32,
    /// RETW at a PC (`Cpu::retw`, the registers stored back): the return address, or bit 32 set
    /// and `LEAVE` or `LEAVE_AND_STOP` in the low bits.
    retw: extern "C" fn(*mut JitEnv, u32) -> u64,
}

/// The `Callouts` for bus `B` and hooks `H`, one static table per pair (a block's entry then
/// stores no function pointers).
struct CalloutsFor<B, H>(std::marker::PhantomData<(B, H)>);

impl<B: XtensaBus, H: XtensaHooks> CalloutsFor<B, H> {
    const TABLE: &'static Callouts = &Callouts {
        load: [load::<B, H, 1>, load::<B, H, 2>, load::<B, H, 4>],
        store: [store::<B, H, 1>, store::<B, H, 2>, store::<B, H, 4>],
        fault: fault::<B, H>,
        goes_on: goes_on::<B, H>,
        enters: enters::<B, H>,
        call: call::<B, H>,
        ret: ret::<B, H>,
        entry: entry::<B, H>,
        retw: retw::<B, H>,
    };
}

impl JitEnv {
    /// The environment for running code of `compiler` with bus `B` and hooks `H`; `run` and
    /// `generation` as for the plain path (`exec.rs`, `BlockLimits`).
    pub(super) fn new<B: XtensaBus, H: XtensaHooks>(
        compiler: &Compiler,
        run: RunBounds,
        generation: u64,
        owner: usize,
    ) -> JitEnv {
        JitEnv {
            callouts: CalloutsFor::<B, H>::TABLE,
            cpu: std::ptr::null_mut(),
            bus: std::ptr::null_mut(),
            hooks: std::ptr::null_mut(),
            run,
            generation,
            insn_limit: 0,
            quiet: (0, 0),
            pending: std::ptr::null_mut(),
            owner,
            fault_seen: None,
            enter: compiler.enter,
        }
    }

    /// Run compiled `code` on `cpu` with `bus` and `hooks` (those `new` was made for), with the
    /// between-block checks done; it goes on through linked exits. Returns whether the run stops
    /// for `cpu.stop`.
    pub(super) fn run<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        code: BlockFn,
        cpu: &mut Cpu,
        bus: &mut B,
        hooks: &mut H,
    ) -> bool {
        debug_assert!(std::ptr::eq(self.callouts, CalloutsFor::<B, H>::TABLE));
        self.checked(hooks);
        self.pending = std::ptr::null_mut();
        let cpu: *mut Cpu = cpu;
        (self.cpu, self.bus, self.hooks) = (cpu, (bus as *mut B).cast(), (hooks as *mut H).cast());
        // SAFETY: `code` was compiled by `Compiler::compile` for blocks of this core, `enter` by the
        // same compiler; the code accesses `Cpu` within its fields, `bus` through `data` (its own
        // view, valid while `bus` is borrowed), its link cells (owned by its compiler, which lives
        // as long as the code) and everything else through the call-outs, which are those for this
        // `B` and `H`; `cpu`, `bus` and `hooks` are exclusive borrows not used during the call.
        unsafe { (self.enter)(code, cpu, self) != 0 }
    }

    /// After a full between-block check passed: the bounds compiled code checks against until
    /// its next call-out (everything the check read is as compiled code finds it now).
    fn checked<H: XtensaHooks>(&mut self, hooks: &H) {
        self.quiet = hooks.quiet_range();
        self.insn_limit = self.run.plain_insn_end();
    }

    /// The run loop went on from the last `run`'s exit into `code`, the compiled code of the block
    /// at `pc` of `bytes` bytes naming panes up to `max_pane`: if that exit returned for want of a
    /// link, link it there.
    pub(super) fn link(&mut self, code: BlockFn, pc: u32, bytes: u32, max_pane: u8) {
        if self.pending.is_null() {
            return;
        }
        // SAFETY: `pending` is a cell of the compiler whose code just ran, which is alive (its
        // code is about to run again) and not running.
        let cell = unsafe { &mut *self.pending };
        if cell.indirect || cell.pc == pc {
            (cell.code, cell.pc, cell.bytes, cell.max_pane) = (Some(code), pc, bytes, max_pane);
        }
        self.pending = std::ptr::null_mut();
    }
}

/// The parts of `env` a call-out works on.
///
/// # Safety
/// `env` must be the `JitEnv` that `JitEnv::run` made for `B` and `H`, during that call.
unsafe fn parts<'a, B, H>(env: *mut JitEnv) -> (&'a mut JitEnv, &'a mut Cpu, &'a mut B, &'a mut H) {
    // SAFETY: as the caller guarantees; the four are distinct objects.
    unsafe {
        let env = &mut *env;
        let (cpu, bus, hooks) = (
            &mut *env.cpu,
            &mut *env.bus.cast::<B>(),
            &mut *env.hooks.cast::<H>(),
        );
        (env, cpu, bus, hooks)
    }
}

extern "C" fn load<B: XtensaBus, H: XtensaHooks, const SIZE: u32>(
    env: *mut JitEnv,
    addr: u32,
) -> u64 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, cpu, bus, _) = unsafe { parts::<B, H>(env) };
    env.insn_limit = 0;
    match cpu.try_load(bus, addr, SIZE) {
        Ok(v) => v as u64,
        Err(f) => {
            env.fault_seen = Some(f);
            1 << 32
        }
    }
}

extern "C" fn store<B: XtensaBus, H: XtensaHooks, const SIZE: u32>(
    env: *mut JitEnv,
    addr: u32,
    value: u32,
) -> u32 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, cpu, bus, _) = unsafe { parts::<B, H>(env) };
    env.insn_limit = 0;
    match cpu.try_store(bus, addr, SIZE, value) {
        Ok(()) => 0,
        Err(f) => {
            env.fault_seen = Some(f);
            1
        }
    }
}

extern "C" fn fault<B: XtensaBus, H: XtensaHooks>(env: *mut JitEnv, pc: u32) -> u32 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, cpu, _, hooks) = unsafe { parts::<B, H>(env) };
    let Some(f) = env.fault_seen.take() else {
        return 0;
    };
    cpu.stop = cpu.data_fault(hooks, f, pc);
    cpu.stop.is_some() as u32
}

extern "C" fn goes_on<B: XtensaBus, H: XtensaHooks>(
    env: *mut JitEnv,
    insns: u32,
    cycles: u32,
    next: u32,
) -> u32 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, cpu, bus, hooks) = unsafe { parts::<B, H>(env) };
    let goes_on = cpu.continues_plainly_at(
        bus,
        hooks,
        env.run,
        env.generation,
        insns as u64,
        cycles as u64,
        next,
    );
    if goes_on {
        env.checked(hooks);
    }
    goes_on as u32
}

extern "C" fn enters<B: XtensaBus, H: XtensaHooks>(env: *mut JitEnv) -> u32 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, cpu, bus, hooks) = unsafe { parts::<B, H>(env) };
    if !cpu.enters_plainly(bus, hooks, env.run, env.generation, &mut env.owner) {
        return 0;
    }
    env.checked(hooks);
    1
}

extern "C" fn call<B: XtensaBus, H: XtensaHooks>(
    env: *mut JitEnv,
    from: u32,
    return_to: u32,
    to: u32,
    window: u32,
) {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, _, _, hooks) = unsafe { parts::<B, H>(env) };
    env.insn_limit = 0;
    hooks.call(from, return_to, to, window);
}

extern "C" fn ret<B: XtensaBus, H: XtensaHooks>(env: *mut JitEnv, from: u32, to: u32) {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, _, _, hooks) = unsafe { parts::<B, H>(env) };
    env.insn_limit = 0;
    hooks.ret(from, to);
}

/// A windowed call-out's answer: leave the block after the instruction (the run goes on at `Cpu::pc`).
const LEAVE: u32 = 1;
/// Leave the block after the instruction and stop the run for `Cpu::stop`.
const LEAVE_AND_STOP: u32 = 2;

/// `LEAVE` or `LEAVE_AND_STOP` for leaving the block with `stop`.
fn leave_for(cpu: &mut Cpu, stop: Option<StopReason>) -> u32 {
    if stop.is_some() {
        cpu.stop = stop;
        LEAVE_AND_STOP
    } else {
        LEAVE
    }
}

extern "C" fn entry<B: XtensaBus, H: XtensaHooks>(
    env: *mut JitEnv,
    s: u32,
    frame: u32,
    pc: u32,
    max_pane: u32,
) -> u32 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (_, cpu, _, hooks) = unsafe { parts::<B, H>(env) };
    match cpu.entry(hooks, s as u8, frame, pc) {
        // The block goes on in the new window unless it names panes now out of reach (`exec_block`).
        Ok(()) if max_pane > cpu.win_limit as u32 => {
            cpu.pc = pc.wrapping_add(3);
            LEAVE
        }
        Ok(()) => 0,
        Err(stop) => leave_for(cpu, stop),
    }
}

extern "C" fn retw<B: XtensaBus, H: XtensaHooks>(env: *mut JitEnv, pc: u32) -> u64 {
    // SAFETY: only compiled code calls this, with the `env` it was given (`JitEnv::run`).
    let (env, cpu, _, hooks) = unsafe { parts::<B, H>(env) };
    env.insn_limit = 0;
    match cpu.retw(hooks, pc) {
        Ok(target) => target as u64,
        Err(stop) => (1 << 32) | leave_for(cpu, stop) as u64,
    }
}

/// Cranelift and the code it made for one block cache generation (dropped with it: `Drop`).
pub(super) struct Compiler {
    module: Option<JITModule>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    /// The taken-branch penalty of the core (`Cpu::t_taken`).
    t_taken: u64,
    /// The core has LITBASE (L32R reads it at run time).
    litbase: bool,
    /// The core raises LoadStoreAlignment for misaligned accesses (`Cpu::align_exc`).
    align_exc: bool,
    /// The core has windows or zero-overhead loops: the run loop checks a block's panes and LEND
    /// before running it plainly (`Xtensa::run`).
    checks_panes: bool,
    /// The entry from Rust into compiled code.
    enter: EnterFn,
    /// The link cells of the exits compiled so far (read by the code, so never moved or dropped
    /// before it is).
    cells: LinkCells,
    /// The bus's view its code was compiled for (`serves`).
    data: Option<DataView>,
    /// What compiled code reads and writes data through (its addresses are constants in it): the
    /// bus's view, or `no_data`'s when the bus offers none.
    view: DataView,
    /// The view compiled code runs with when the bus offers none (kept: `view` may point into it).
    _no_data: NoData,
}

/// A `DataView` whose page table maps every page to an entry that sends every access to the
/// call-outs: compiled code then needs no test for a missing view.
struct NoData {
    view: DataView,
    /// What `view` points to (the table lazily backed by the host: zeros).
    _pages: Box<[u8]>,
    _page_maps: Box<[PageMap]>,
}

impl NoData {
    fn new() -> NoData {
        let pages = vec![0u8; 1 << 20].into_boxed_slice();
        let mut page_maps = vec![PageMap::default(); 256].into_boxed_slice();
        NoData {
            view: DataView {
                pages: pages.as_ptr(),
                page_maps: page_maps.as_mut_ptr(),
                ram: std::ptr::null_mut(),
                code: std::ptr::null(),
            },
            _pages: pages,
            _page_maps: page_maps,
        }
    }
}

/// Link cells, each boxed: compiled code holds their addresses, which must not change when the
/// vector grows.
#[allow(clippy::vec_box)]
type LinkCells = Vec<Box<UnsafeCell<LinkCell>>>;

/// `JitEnv::run`'s entry: a function of the host's C convention that calls a `BlockFn` of the
/// tail-call convention and returns its answer.
fn compile_enter(module: &mut JITModule, ctx: &mut Context) -> Result<EnterFn, String> {
    let (ptr, conv) = (
        module.target_config().pointer_type(),
        module.target_config().default_call_conv,
    );
    ctx.func.signature = signature(conv, &[ptr, ptr, ptr], Some(types::I32));
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let [code, cpu, env] = b.block_params(entry) else {
            unreachable!("three parameters")
        };
        let (code, cpu, env) = (*code, *cpu, *env);
        let sig = b.import_signature(block_signature(ptr));
        let call = b.ins().call_indirect(sig, code, &[cpu, env]);
        let answer = b.inst_results(call)[0];
        b.ins().return_(&[answer]);
        b.finalize(module.target_config());
    }
    let id = module
        .declare_anonymous_function(&ctx.func.signature)
        .map_err(|e| e.to_string())?;
    let defined = module.define_function(id, ctx);
    module.clear_context(ctx);
    defined.map_err(|e| e.to_string())?;
    module.finalize_definitions().map_err(|e| e.to_string())?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was just compiled with `EnterFn`'s signature in the C convention.
    Ok(unsafe { std::mem::transmute::<*const u8, EnterFn>(code) })
}

/// The signature of a `BlockFn`.
fn block_signature(ptr: types::Type) -> Signature {
    signature(CallConv::Tail, &[ptr, ptr], Some(types::I32))
}

impl Compiler {
    /// A compiler for the host, or why there is none (the core then interprets everything).
    /// `data`: the view of the bus the code will run with.
    pub(super) fn new(cpu: &Cpu, data: Option<DataView>) -> Result<Compiler, String> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
        // The translator's output is checked by the tests that compare it with the interpreter;
        // checking every function again while a run goes costs compile time.
        flags
            .set("enable_verifier", "false")
            .map_err(|e| e.to_string())?;
        // Cranelift's tail calls (linked exits) need frame pointers.
        flags
            .set("preserve_frame_pointers", "true")
            .map_err(|e| e.to_string())?;
        let isa = cranelift_native::builder()
            .map_err(|e| format!("no Cranelift back end for this host: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())?;
        if isa.pointer_type() != types::I64 || cfg!(target_endian = "big") {
            // The inline data path indexes with 64-bit offsets and reads little-endian words.
            return Err("the block compiler needs a 64-bit little-endian host".into());
        }
        let mut module = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        let mut ctx = module.make_context();
        let enter = compile_enter(&mut module, &mut ctx)?;
        let no_data = NoData::new();
        Ok(Compiler {
            ctx,
            module: Some(module),
            fctx: FunctionBuilderContext::new(),
            t_taken: cpu.t_taken,
            litbase: cpu.cfg.litbase,
            align_exc: cpu.align_exc,
            checks_panes: cpu.cfg.windowed || cpu.cfg.loops,
            enter,
            cells: Vec::new(),
            data,
            view: data.unwrap_or(no_data.view),
            _no_data: no_data,
        })
    }

    /// Whether its code may run with a bus whose view is `data` (the one it was compiled for).
    pub(super) fn serves(&self, data: Option<DataView>) -> bool {
        self.data == data
    }

    /// Compile the region `blocks` (plain-path blocks, the first the function's entry) into one
    /// function, or `None` when the first holds an instruction left to the interpreter. An exit
    /// to the start of a block of the region goes on within the function, with the registers and
    /// counters kept in SSA values; blocks after the first that the translator cannot handle are
    /// left out of the region.
    pub(super) fn compile(&mut self, blocks: &[RegionBlock]) -> Option<BlockFn> {
        let all_compile = |blk: &RegionBlock| {
            blk.code
                .iter()
                .enumerate()
                .all(|(k, i)| compiles(i, k, blk.pc))
        };
        if !all_compile(blocks.first()?) {
            return None;
        }
        let region: Vec<RegionBlock> = blocks
            .iter()
            .enumerate()
            .filter(|&(k, blk)| k == 0 || all_compile(blk))
            .map(|(_, blk)| *blk)
            .collect();
        let mut kept = region
            .iter()
            .flat_map(|blk| blk.code)
            .fold(0, |m, i| m | named_regs(i));
        // Translate again, keeping more registers, while the translator met writes of others.
        let config = self.module.as_ref()?.target_config();
        let cells = self.cells.len();
        loop {
            match self.translate(&region, kept, config) {
                Ok(()) => break,
                Err(missed) => {
                    kept |= missed;
                    self.ctx.func.clear();
                    self.cells.truncate(cells);
                }
            }
        }
        let module = self.module.as_mut()?;
        let id = module
            .declare_anonymous_function(&self.ctx.func.signature)
            .ok()?;
        let defined = module.define_function(id, &mut self.ctx);
        module.clear_context(&mut self.ctx);
        defined.ok()?;
        module.finalize_definitions().ok()?;
        std::ptr::NonNull::new(module.get_finalized_function(id).cast_mut()).map(BlockFn)
    }

    /// Build the function of `region` in `ctx`, keeping the registers of `kept` in SSA values, or
    /// the registers written that were not kept.
    fn translate(
        &mut self,
        region: &[RegionBlock],
        kept: u32,
        config: TargetFrontendConfig,
    ) -> Result<(), u32> {
        let (ptr, conv) = (config.pointer_type(), config.default_call_conv);
        self.ctx.func.signature = block_signature(ptr);
        let sigs = CalloutSigs::new(conv, ptr);
        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let (cpu, env) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let sigs = sigs.import(&mut b);
        let vars = std::array::from_fn(|i| b.declare_var(var_type(i)));
        let targeted = |pc| region.iter().any(|blk| blk.exits().any(|to| to == pc));
        let ret = b.create_block();
        b.append_block_param(ret, types::I32);
        let heads: Vec<Head> = region
            .iter()
            .map(|blk| Head {
                pc: blk.pc,
                block: b.create_block(),
                bytes: blk.bytes,
                max_pane: blk.max_pane,
                targeted: targeted(blk.pc),
            })
            .collect();
        let entry_kept = kept
            & region
                .iter()
                .zip(&heads)
                .filter(|(_, head)| head.targeted)
                .flat_map(|(blk, _)| blk.code)
                .fold(0, |m, i| m | named_regs(i));
        let mut tr = Translator {
            b,
            cpu,
            env,
            ptr,
            sigs,
            vars,
            kept,
            entry_kept,
            defined: 0,
            written: 0,
            missed: 0,
            dirty: 0,
            stores: Vec::new(),
            heads,
            ret,
            view: self.view,
            span: (
                region.iter().map(|blk| blk.pc).min().unwrap_or(0),
                region
                    .iter()
                    .map(|blk| blk.pc.wrapping_add(blk.bytes))
                    .max()
                    .unwrap_or(0),
            ),
            pc0: region[0].pc,
            max_pane: 0,
            t_taken: self.t_taken,
            litbase: self.litbase,
            align_exc: self.align_exc,
            checks_panes: self.checks_panes,
            cells: &mut self.cells,
        };
        // What the blocks that exits go on to find defined (`at_head`); others load where needed.
        let at_head = entry_kept | COUNTERS | BOUNDS;
        if tr.heads[0].targeted {
            tr.reload(entry_kept | COUNTERS);
            tr.bounds();
        }
        let first = tr.heads[0].block;
        tr.b.ins().jump(first, &[]);
        for (k, blk) in region.iter().enumerate() {
            let head = tr.heads[k];
            tr.b.switch_to_block(head.block);
            (tr.pc0, tr.max_pane) = (blk.pc, blk.max_pane);
            // Where exits go on, registers the entry loads may have been changed.
            tr.dirty = if head.targeted { entry_kept } else { 0 };
            tr.defined = if head.targeted { at_head } else { 0 };
            tr.block(blk);
        }
        for head in &tr.heads {
            tr.b.seal_block(head.block);
        }
        tr.b.switch_to_block(tr.ret);
        tr.b.seal_block(tr.ret);
        let answer = tr.b.block_params(tr.ret)[0];
        tr.b.ins().return_(&[answer]);
        let (written, missed, stores) = (tr.written, tr.missed, std::mem::take(&mut tr.stores));
        tr.b.finalize(config);
        if missed != 0 {
            return Err(missed);
        }
        // Exits store back every kept register that a path to them may have changed; those of
        // registers nothing writes are dropped.
        for (i, store) in stores {
            if written & (1 << i) == 0 {
                self.ctx.func.layout.remove_inst(store);
            }
        }
        Ok(())
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the compiler is dropped with the block cache that held its code
            // (`BlockCache::flush`), so none of its functions runs or is called again.
            unsafe { module.free_memory() };
        }
    }
}

/// Whether instruction `k` of the plain-path block at `pc0` is one the translator handles.
fn compiles(insn: &Insn, k: usize, pc0: u32) -> bool {
    use Op::*;
    match insn.op {
        // `j .` at a block's start waits for an interrupt (`exec_block`): the interpreter's.
        J => !(k == 0 && insn.imm == pc0),
        Rsr => insn.imm == SR_CCOUNT,
        And | Or | Xor | Add | AddN | Addx2 | Addx4 | Addx8 | Sub | Subx2 | Subx4 | Subx8 | Neg
        | Abs | Addi | Addmi | AddiN | Movi | MoviN | MovN | Salt | Saltu | Moveqz | Movnez
        | Movltz | Movgez | Min | Max | Minu | Maxu | Sext | Clamps | Nsa | Nsau | Slli | Srai
        | Srli | Extui | Ssr | Ssl | Ssa8l | Ssa8b | Ssai | Src | Srl | Sra | Sll | Mul16u
        | Mul16s | Mull | Muluh | Mulsh | L8ui | L16ui | L16si | L32i | L32iN | L32ai | L32e
        | S8i | S16i | S32i | S32iN | S32ri | S32e | S32nb | L32r | Beqz | BeqzN | Bnez | BnezN
        | Bltz | Bgez | Beqi | Bnei | Blti | Bgei | Bltui | Bgeui | Beq | Bne | Blt | Bge
        | Bltu | Bgeu | Bany | Bnone | Ball | Bnall | Bbc | Bbs | Bbci | Bbsi | Jx | Call0
        | Callx0 | Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 | Ret | RetN | Retw
        | RetwN | Entry | Isync | Rsync | Esync | Dsync | Excw | Memw | Extw | Nop | NopN => true,
        _ => false,
    }
}

/// The registers (bit i: a<i>, bit `SAR`) `insn` reads or writes, as far as the translator's
/// region needs to know which to keep in SSA values (one it missed costs a second translation).
fn named_regs(insn: &Insn) -> u32 {
    use Op::*;
    let fields = [(AR_R, insn.r), (AR_S, insn.s), (AR_T, insn.t)]
        .iter()
        .filter(|&&(bit, _)| insn.arm & bit != 0)
        .fold(0, |m, &(_, n)| m | 1 << n);
    // CALL0/CALLX0 write a0, RET reads it; CALLn/CALLXn write a<4n> (the table's window increment).
    let calls = match insn.op {
        Call0 | Callx0 | Ret | RetN => 1,
        op => match isa::row(op).win {
            0 => 0,
            n => 1 << (4 * n),
        },
    };
    let sar = match insn.op {
        Ssr | Ssl | Ssa8l | Ssa8b | Ssai | Src | Srl | Sra | Sll => 1 << SAR,
        _ => 0,
    };
    fields | calls | sar
}

fn signature(conv: CallConv, params: &[types::Type], ret: Option<types::Type>) -> Signature {
    let mut sig = Signature::new(conv);
    sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
    sig.returns.extend(ret.map(AbiParam::new));
    sig
}

/// Signatures of the `JitEnv` call-outs, as declared and as imported into a function.
struct CalloutSigs<S> {
    /// Not a call-out's: a `BlockFn`'s, for the tail call of a linked exit.
    block: S,
    load: S,
    store: S,
    fault: S,
    goes_on: S,
    enters: S,
    call: S,
    ret: S,
    entry: S,
    retw: S,
}

impl CalloutSigs<Signature> {
    fn new(conv: CallConv, ptr: types::Type) -> Self {
        let i32 = types::I32;
        CalloutSigs {
            block: block_signature(ptr),
            load: signature(conv, &[ptr, i32], Some(types::I64)),
            store: signature(conv, &[ptr, i32, i32], Some(i32)),
            fault: signature(conv, &[ptr, i32], Some(i32)),
            goes_on: signature(conv, &[ptr, i32, i32, i32], Some(i32)),
            enters: signature(conv, &[ptr], Some(i32)),
            call: signature(conv, &[ptr, i32, i32, i32, i32], None),
            ret: signature(conv, &[ptr, i32, i32], None),
            entry: signature(conv, &[ptr, i32, i32, i32, i32], Some(i32)),
            retw: signature(conv, &[ptr, i32], Some(types::I64)),
        }
    }

    fn import(self, b: &mut FunctionBuilder) -> CalloutSigs<SigRef> {
        CalloutSigs {
            block: b.import_signature(self.block),
            load: b.import_signature(self.load),
            store: b.import_signature(self.store),
            fault: b.import_signature(self.fault),
            goes_on: b.import_signature(self.goes_on),
            enters: b.import_signature(self.enters),
            call: b.import_signature(self.call),
            ret: b.import_signature(self.ret),
            entry: b.import_signature(self.entry),
            retw: b.import_signature(self.retw),
        }
    }
}

/// Index of SAR among the values `Translator` keeps (after a0..a15).
const SAR: usize = 16;

/// Byte offset of a `Cpu` field, for loads and stores in compiled code.
macro_rules! cpu_field {
    ($f:ident) => {
        offset_of!(Cpu, $f) as i32
    };
}

/// A plain-path block of a compiled region: where it starts, its instructions (without the end
/// marker), the code it covers and the highest pane it names.
#[derive(Clone, Copy)]
pub(super) struct RegionBlock<'c> {
    pub(super) pc: u32,
    pub(super) code: &'c [Insn],
    pub(super) bytes: u32,
    pub(super) max_pane: u8,
}

impl RegionBlock<'_> {
    /// The known PCs the block may leave for: taken branches, jumps and the fall-through at its
    /// end (calls, returns and indirect jumps leave for the run loop).
    pub(super) fn exits(&self) -> impl Iterator<Item = u32> + '_ {
        let taken = self
            .code
            .iter()
            .filter(|insn| insn.is_conditional_branch() || insn.op == Op::J)
            .map(|insn| insn.imm);
        let last = self.code.last();
        let falls = last.is_some_and(|i| !i.ends_block() || i.is_conditional_branch());
        taken.chain(falls.then(|| self.pc.wrapping_add(self.bytes)))
    }
}

/// A block of the region as a branch target inside the function.
#[derive(Clone, Copy)]
struct Head {
    pc: u32,
    block: Block,
    bytes: u32,
    max_pane: u8,
    /// Some exit of the region goes on here (else only the function's entry does).
    targeted: bool,
}

/// Translation of a region (one or more blocks) into the function being built.
struct Translator<'a> {
    b: FunctionBuilder<'a>,
    cpu: Value,
    env: Value,
    ptr: types::Type,
    sigs: CalloutSigs<SigRef>,
    /// a0..a15 and SAR (`SAR`), the instruction and cycle counters as of the start of the current
    /// block, and the bounds the between-block checks compare them with (`bounds`).
    vars: [Variable; 20],
    /// Registers kept in `vars`; others are read from `Cpu`.
    kept: u32,
    /// Kept registers loaded at the function's entry: those the blocks that exits go on to name.
    /// The others are loaded where first used (`defined`) and stored back before such an exit.
    entry_kept: u32,
    /// `vars` defined on the current path (the others are loaded where needed: `var`).
    defined: u32,
    /// Registers written anywhere (their stores at exits stay, the others' are dropped).
    written: u32,
    /// Registers written that are not `kept`: the region is translated again keeping them.
    missed: u32,
    /// Registers that may differ from `Cpu`'s on the current path (stored back at exits).
    dirty: u32,
    /// The stores of exits, by register, so that those of registers never written can be dropped.
    stores: Vec<(usize, Inst)>,
    /// The region's blocks, the first the function's entry.
    heads: Vec<Head>,
    /// The PCs of the region's blocks, `[start, end)`.
    span: (u32, u32),
    /// The function's one return, of its block parameter (one epilogue for every exit).
    ret: Block,
    /// The data view, whose addresses are constants in the code.
    view: DataView,
    /// The block being translated.
    pc0: u32,
    max_pane: u8,
    t_taken: u64,
    litbase: bool,
    align_exc: bool,
    checks_panes: bool,
    cells: &'a mut LinkCells,
}

/// Indices of the instruction and cycle counters among `Translator::vars`.
const INSNS: usize = 17;
const CYCLES: usize = 18;
/// Index of the instruction bound for going on within the region without a call-out
/// (`Translator::bounds`).
const INSN_LIMIT: usize = 19;
const COUNTERS: u32 = 1 << INSNS | 1 << CYCLES;
/// What a call-out may change of what compiled code keeps.
const BOUNDS: u32 = 1 << INSN_LIMIT;

/// Byte offset in `Cpu` of a0..a15, SAR and the counters (`Translator::vars`).
fn var_field(i: usize) -> i32 {
    match i {
        SAR => cpu_field!(sar),
        INSNS => cpu_field!(insns),
        CYCLES => cpu_field!(cycles),
        _ => cpu_field!(ar) + 4 * i as i32,
    }
}

fn var_type(i: usize) -> types::Type {
    match i {
        INSNS..=INSN_LIMIT => types::I64,
        _ => types::I32,
    }
}

impl Translator<'_> {
    fn flags() -> MemFlagsData {
        MemFlagsData::trusted()
    }

    /// A field of `JitEnv` that holds while compiled code runs (the call-outs, the run's bounds):
    /// loaded once where several uses share it.
    fn env_const(&mut self, ty: types::Type, offset: usize) -> Value {
        let flags = Self::flags().with_readonly();
        self.b.ins().load(ty, flags, self.env, offset as i32)
    }

    fn imm(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i64)
    }

    /// What compiled code may do without a call-out until the next one: go on at a block start
    /// while the instruction counter stays below `INSN_LIMIT` (`JitEnv::insn_limit`) and the
    /// cycle counter below `Cpu::cycle_stop` (read where compared: a load costs no more than a
    /// register kept for it across a loop), where the hooks need not hear of it (the quiet range,
    /// `JitEnv::quiet`).
    fn bounds(&mut self) {
        let (start, width) = self.quiet_range();
        let limit = self.b.ins().load(
            types::I64,
            Self::flags(),
            self.env,
            offset_of!(JitEnv, insn_limit) as i32,
        );
        // Going on within the span needs no other check while the hooks need not hear of its PCs
        // (the quiet range holds the span) and the run loop would run the blocks exits go on to
        // plainly (`refuses`: only call-outs change what that reads); else the limit is 0, which
        // sends every such exit to the full check.
        let (lo, hi) = (self.imm(self.span.0), self.imm(self.span.1.wrapping_sub(1)));
        let (lo, hi) = (self.b.ins().isub(lo, start), self.b.ins().isub(hi, start));
        let lo = self.b.ins().icmp(IntCC::UnsignedLessThan, lo, width);
        let hi = self.b.ins().icmp(IntCC::UnsignedLessThan, hi, width);
        let mut plain = self.b.ins().band(lo, hi);
        if self.checks_panes {
            for head in self.heads.clone().iter().filter(|h| h.targeted) {
                let pc = self.imm(head.pc);
                let (bytes, max_pane) = (self.imm(head.bytes), self.imm(head.max_pane as u32));
                let refused = self.refuses(pc, bytes, max_pane);
                let runs = self.b.ins().bxor_imm_u(refused, 1);
                plain = self.b.ins().band(plain, runs);
            }
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        let limit = self.b.ins().select(plain, limit, zero);
        self.b.def_var(self.vars[INSN_LIMIT], limit);
        self.defined |= BOUNDS;
    }

    /// The quiet range (`JitEnv::quiet`) as its start and width.
    fn quiet_range(&mut self) -> (Value, Value) {
        let quiet = offset_of!(JitEnv, quiet) as i32;
        let start = self
            .b
            .ins()
            .load(types::I32, Self::flags(), self.env, quiet);
        let end = self
            .b
            .ins()
            .load(types::I32, Self::flags(), self.env, quiet + 4);
        (start, self.b.ins().isub(end, start))
    }

    /// The cycle counter's bound (`bounds`).
    fn cycle_limit(&mut self) -> Value {
        self.load_cpu(types::I64, cpu_field!(cycle_stop))
    }

    /// Whether `pc` is in the quiet range.
    fn quiet(&mut self, pc: u32) -> Value {
        let (start, width) = self.quiet_range();
        let pc = self.imm(pc);
        let past = self.b.ins().isub(pc, start);
        self.b.ins().icmp(IntCC::UnsignedLessThan, past, width)
    }

    /// Load what `vars` keeps (`mask` of a0..a15 and SAR, and the counters) from `Cpu`.
    fn reload(&mut self, mask: u32) {
        for i in 0..=CYCLES {
            if mask & (1 << i) != 0 {
                let v = self.load_cpu(var_type(i), var_field(i));
                self.b.def_var(self.vars[i], v);
            }
        }
        self.defined |= mask;
    }

    /// The value of `vars[i]` on the current path, loaded (or for the bounds, worked out) where
    /// the path has none yet.
    fn var(&mut self, i: usize) -> Value {
        if self.defined & (1 << i) == 0 {
            if i >= INSN_LIMIT {
                self.bounds();
            } else {
                self.reload(1 << i);
            }
        }
        self.b.use_var(self.vars[i])
    }

    /// a<i> (i < 16) or SAR (`SAR`).
    fn get(&mut self, i: usize) -> Value {
        if self.kept & (1 << i) != 0 {
            self.var(i)
        } else {
            // Nothing in the region writes it (else it would be kept): `Cpu` holds it.
            self.load_cpu(types::I32, var_field(i))
        }
    }

    fn set(&mut self, i: usize, v: Value) {
        if self.kept & (1 << i) != 0 {
            self.b.def_var(self.vars[i], v);
            self.defined |= 1 << i;
            self.written |= 1 << i;
            self.dirty |= 1 << i;
        } else {
            self.missed |= 1 << i;
        }
    }

    /// The counters as of the start of the current block.
    fn counters(&mut self) -> (Value, Value) {
        (self.var(INSNS), self.var(CYCLES))
    }

    fn load_cpu(&mut self, ty: types::Type, offset: i32) -> Value {
        self.b.ins().load(ty, Self::flags(), self.cpu, offset)
    }

    fn store_cpu(&mut self, v: Value, offset: i32) {
        self.b.ins().store(Self::flags(), v, self.cpu, offset);
    }

    /// Leave the block: store back what was written, set `Cpu::pc` to `pc` (unless the exit set it
    /// already), add `insns` and `cycles` to the counters and return 0 (the run goes on).
    fn leave(&mut self, pc: Option<Value>, insns: u32, cycles: u64) {
        self.store_back();
        if let Some(pc) = pc {
            self.store_cpu(pc, cpu_field!(pc));
        }
        self.count(insns, cycles);
        let zero = self.imm(0);
        self.b.ins().jump(self.ret, &[zero.into()]);
    }

    fn store_back(&mut self) {
        for i in 0..=SAR {
            if self.dirty & (1 << i) != 0 {
                let v = self.b.use_var(self.vars[i]);
                let store = self.b.ins().store(Self::flags(), v, self.cpu, var_field(i));
                self.stores.push((i, store));
            }
        }
    }

    /// Store back what was written: a call-out is about to rotate the window.
    fn spill(&mut self) {
        self.store_back();
        self.dirty = 0;
    }

    /// After a call-out that rotated the window: a0..a15 are the new window's, loaded again where
    /// used, or here for those the function's entry loads.
    fn rotated(&mut self) {
        self.reload(self.entry_kept & 0xFFFF);
        self.defined = (self.defined & !0xFFFF) | (self.entry_kept & 0xFFFF);
    }

    /// Leave the block after `insn`, whose call-out left `Cpu::pc` set and answered `answer`
    /// (`LEAVE` or `LEAVE_AND_STOP`), with the registers stored back.
    fn leave_after_callout(&mut self, insn: &Insn, answer: Value) {
        self.count(insn.idx as u32 + 1, insn.cum_cost as u64);
        let stops = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, answer, LEAVE_AND_STOP as i64);
        let stops = self.b.ins().uextend(types::I32, stops);
        self.b.ins().jump(self.ret, &[stops.into()]);
    }

    /// The counters with `insns` and `cycles` added.
    fn counted(&mut self, insns: u32, cycles: u64) -> (Value, Value) {
        let (i, c) = self.counters();
        (
            self.b.ins().iadd_imm_s(i, insns as i64),
            self.b.ins().iadd_imm_s(c, cycles as i64),
        )
    }

    /// Store the counters with `insns` and `cycles` added (an exit).
    fn count(&mut self, insns: u32, cycles: u64) {
        let (i, c) = self.counted(insns, cycles);
        self.store_cpu(i, cpu_field!(insns));
        self.store_cpu(c, cpu_field!(cycles));
    }

    /// Where `cond` holds, leave the block as `exit` does; translation goes on where it does not.
    fn side_exit(&mut self, cond: Value, exit: impl FnOnce(&mut Self)) {
        let (out, on) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(cond, out, &[], on, &[]);
        self.b.switch_to_block(out);
        self.b.seal_block(out);
        let (dirty, defined) = (self.dirty, self.defined);
        exit(self);
        (self.dirty, self.defined) = (dirty, defined);
        self.b.switch_to_block(on);
        self.b.seal_block(on);
    }

    /// Call the call-out at `offset` in `Callouts`, with `Cpu`'s counters those of the block's
    /// start, as the interpreter has them (they are read again after: a call-out may add stalls).
    /// `zeroes_limit`: the call-out sets `JitEnv::insn_limit` to 0, so that the bounds after it
    /// need no reading (`bounds` would find 0).
    fn callout(
        &mut self,
        offset: usize,
        sig: SigRef,
        args: &[Value],
        zeroes_limit: bool,
    ) -> Option<Value> {
        // Where the path has the counters, `Cpu`'s may be behind (exits within the region).
        let had = self.defined & (COUNTERS | BOUNDS);
        if had & COUNTERS != 0 {
            self.count(0, 0);
        }
        let table = self.env_const(self.ptr, offset_of!(JitEnv, callouts));
        let readonly = Self::flags().with_readonly();
        let f = self.b.ins().load(self.ptr, readonly, table, offset as i32);
        let mut all = vec![self.env];
        all.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sig, f, &all);
        let answer = self.b.inst_results(call).first().copied();
        // What the path had is read again at once: paths that did not call out may meet this
        // one (and there `Cpu`'s counters may be behind).
        self.defined &= !(COUNTERS | BOUNDS);
        self.reload(had & COUNTERS);
        if had & BOUNDS != 0 {
            if zeroes_limit {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.b.def_var(self.vars[INSN_LIMIT], zero);
                self.defined |= BOUNDS;
            } else {
                self.bounds();
            }
        }
        answer
    }

    /// Leave after a data access of `insn` (at `pc`) that faulted: dispatch the fault as the
    /// interpreter does (`mem!` in `exec_block`), counting the instruction.
    fn fault_exit(&mut self, insn: &Insn, pc: u32) {
        self.store_back();
        let pc = self.imm(pc);
        let stopped = self
            .callout(offset_of!(Callouts, fault), self.sigs.fault, &[pc], false)
            .expect("the fault call-out returns");
        self.count(insn.idx as u32 + 1, insn.cum_cost as u64);
        self.b.ins().jump(self.ret, &[stopped.into()]);
    }

    /// Offset in `JitEnv` of the call-out for accesses of `size` bytes among those at `field`.
    fn sized(field: usize, size: u32) -> usize {
        field + size.trailing_zeros() as usize * size_of::<extern "C" fn()>()
    }

    /// Go to `slow` where `cond` holds; translation goes on where it does not.
    fn unless(&mut self, cond: Value, slow: Block) {
        let on = self.b.create_block();
        self.b.ins().brif(cond, slow, &[], on, &[]);
        self.b.switch_to_block(on);
        self.b.seal_block(on);
    }

    /// The inline data path (`DataView`) of an access of `size` bytes at `addr`, going to `slow`
    /// wherever `EspBus::read_at`/`write_at` would not take their fast path or the access would
    /// raise: the host address of the bytes, with the access counted in its mapping's traffic.
    fn plain_access(&mut self, addr: Value, size: u32, write: bool, slow: Block) -> Value {
        let (ptr, flags) = (self.ptr, Self::flags());
        let pages = self.b.ins().iconst(ptr, self.view.pages as i64);
        if self.align_exc && size > 1 {
            let misaligned = self.b.ins().band_imm_s(addr, size as i64 - 1);
            self.unless(misaligned, slow);
        }
        // The page's mapping: `EspBus::pages`, then `EspBus::page_maps`.
        let page = self.b.ins().ushr_imm_u(addr, 12);
        let page = self.b.ins().uextend(ptr, page);
        let at = self.b.ins().iadd(pages, page);
        let e = self.b.ins().uload8(types::I32, flags, at, 0);
        let e = self.b.ins().uextend(ptr, e);
        let e = self.b.ins().imul_imm_s(e, size_of::<PageMap>() as i64);
        let maps = self.b.ins().iconst(ptr, self.view.page_maps as i64);
        let m = self.b.ins().iadd(maps, e);
        let field = |f: usize| f as i32;
        let start = self
            .b
            .ins()
            .load(types::I32, flags, m, field(offset_of!(PageMap, start)));
        let end_field = if write {
            offset_of!(PageMap, plain_write_end)
        } else {
            offset_of!(PageMap, plain_read_end)
        };
        let end = self.b.ins().load(types::I32, flags, m, field(end_field));
        let off = self.b.ins().isub(addr, start);
        let beyond = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, off, end);
        self.unless(beyond, slow);
        // The bytes: `EspBus::ram[base + off..][..4]`, inside the buffer (`DataView`).
        let base = self
            .b
            .ins()
            .load(types::I32, flags, m, field(offset_of!(PageMap, base)));
        let (base, off) = (
            self.b.ins().uextend(ptr, base),
            self.b.ins().uextend(ptr, off),
        );
        let at = self.b.ins().iadd(base, off);
        if write {
            // A store into a chunk instructions were decoded from: `EspBus::code_written`.
            let chunk = self.b.ins().ushr_imm_u(at, 8);
            let word = self.b.ins().ushr_imm_u(chunk, 6);
            let word = self.b.ins().ishl_imm_u(word, 3);
            let code = self.b.ins().iconst(ptr, self.view.code as i64);
            let word = self.b.ins().iadd(code, word);
            let bits = self.b.ins().load(types::I64, flags, word, 0);
            let bit = self.b.ins().band_imm_s(chunk, 63);
            let bits = self.b.ins().ushr(bits, bit);
            let holds_code = self.b.ins().band_imm_s(bits, 1);
            self.unless(holds_code, slow);
        }
        // The access's counter (`EspBus::data_access`).
        let counter = offset_of!(PageMap, accesses) + 8 * Accesses::index(size, write);
        let v = self.b.ins().load(types::I64, flags, m, field(counter));
        let v = self.b.ins().iadd_imm_s(v, 1);
        self.b.ins().store(flags, v, m, field(counter));
        let ram = self.b.ins().iconst(ptr, self.view.ram as i64);
        self.b.ins().iadd(ram, at)
    }

    fn load(&mut self, insn: &Insn, pc: u32, addr: Value, size: u32) -> Value {
        let (slow, done) = (self.b.create_block(), self.b.create_block());
        let value = self.b.append_block_param(done, types::I32);
        let host = self.plain_access(addr, size, false, slow);
        let flags = Self::flags();
        let v = match size {
            1 => self.b.ins().uload8(types::I32, flags, host, 0),
            2 => self.b.ins().uload16(types::I32, flags, host, 0),
            _ => self.b.ins().load(types::I32, flags, host, 0),
        };
        self.b.ins().jump(done, &[v.into()]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let callout = Self::sized(offset_of!(Callouts, load), size);
        let r = self
            .callout(callout, self.sigs.load, &[addr], true)
            .expect("the load call-out returns");
        let failed = self.b.ins().ushr_imm_u(r, 32);
        self.side_exit(failed, |t| t.fault_exit(insn, pc));
        let v = self.b.ins().ireduce(types::I32, r);
        self.b.ins().jump(done, &[v.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        value
    }

    fn store(&mut self, insn: &Insn, pc: u32, addr: Value, size: u32, v: Value) {
        let (slow, done) = (self.b.create_block(), self.b.create_block());
        let host = self.plain_access(addr, size, true, slow);
        let flags = Self::flags();
        match size {
            1 => self.b.ins().istore8(flags, v, host, 0),
            2 => self.b.ins().istore16(flags, v, host, 0),
            _ => self.b.ins().store(flags, v, host, 0),
        };
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let callout = Self::sized(offset_of!(Callouts, store), size);
        let failed = self
            .callout(callout, self.sigs.store, &[addr, v], true)
            .expect("the store call-out returns");
        self.side_exit(failed, |t| t.fault_exit(insn, pc));
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
    }

    /// a<s> + imm, the address of a load or store.
    fn address(&mut self, insn: &Insn) -> Value {
        let s = self.get(insn.s as usize);
        self.b.ins().iadd_imm_s(s, insn.imm as i32 as i64)
    }

    /// Leave for the computed PC `target` after `insn` (a return, an indirect jump or call), going
    /// on into the compiled code linked there (`link_exit`).
    fn jump(&mut self, insn: &Insn, target: Value) {
        let cycles = insn.cum_cost as u64 + self.t_taken;
        self.store_back();
        self.store_cpu(target, cpu_field!(pc));
        self.count(insn.idx as u32 + 1, cycles);
        self.link_exit(0, None, Some(target));
    }

    /// Leave for the callee `target` after the call `insn`: linked as a jump to a known PC where
    /// the call names one (CALL0, CALLn), else as one to a computed PC.
    fn call_to(&mut self, insn: &Insn, target: Value) {
        if insn.arm & AR_S != 0 {
            self.jump(insn, target)
        } else {
            self.jump_to(insn, insn.imm)
        }
    }

    /// Leave for the known PC `target` after `insn`, a taken branch or jump, linked.
    fn jump_to(&mut self, insn: &Insn, target: u32) {
        let cycles = insn.cum_cost as u64 + self.t_taken;
        self.leave_linked(target, insn.idx as u32 + 1, cycles);
    }

    /// Whether the run loop would not run the block at `pc` of `bytes` bytes naming panes up to
    /// `max_pane` plainly (`Cpu::runs_plainly`): a pane out of reach or LEND inside it.
    fn refuses(&mut self, pc: Value, bytes: Value, max_pane: Value) -> Value {
        let limit = self
            .b
            .ins()
            .uload8(types::I32, Self::flags(), self.cpu, cpu_field!(win_limit));
        let beyond = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThan, max_pane, limit);
        let lend = self.load_cpu(types::I32, cpu_field!(lend));
        let into = self.b.ins().isub(lend, pc);
        let into = self.b.ins().iadd_imm_s(into, -1);
        let ends_inside = self.b.ins().icmp(IntCC::UnsignedLessThan, into, bytes);
        self.b.ins().bor(beyond, ends_inside)
    }

    /// Go on to the block of the region at `head` after `insns` and `cycles` more of the current
    /// block, where the run loop would run it next, plainly, with nothing in between; else leave
    /// for it.
    fn go_within(&mut self, head: Head, insns: u32, cycles: u64) {
        let (again, full, out) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // Within the bounds the block runs plainly (`bounds`).
        self.branch_within(insns, cycles, again, &[], full);
        self.b.switch_to_block(full);
        self.b.seal_block(full);
        let go = self.goes_on_callout(insns, cycles, head.pc);
        if self.checks_panes {
            let on = self.b.create_block();
            self.b.ins().brif(go, on, &[], out, &[]);
            self.b.switch_to_block(on);
            self.b.seal_block(on);
            let (bytes, max_pane) = (self.imm(head.bytes), self.imm(head.max_pane as u32));
            let pc = self.imm(head.pc);
            let refused = self.refuses(pc, bytes, max_pane);
            self.b.ins().brif(refused, out, &[], again, &[]);
        } else {
            self.b.ins().brif(go, again, &[], out, &[]);
        }
        self.b.switch_to_block(again);
        self.b.seal_block(again);
        // There, registers the entry does not load are read from `Cpu`; those it loads, defined.
        let missing = self.entry_kept & !self.defined;
        self.reload(missing);
        let own = self.dirty & !self.entry_kept;
        let dirty = std::mem::replace(&mut self.dirty, own);
        self.store_back();
        self.dirty = dirty;
        let (i, c) = self.counted(insns, cycles);
        self.b.def_var(self.vars[INSNS], i);
        self.b.def_var(self.vars[CYCLES], c);
        self.b.ins().jump(head.block, &[]);
        self.b.switch_to_block(out);
        self.b.seal_block(out);
        let pc = self.imm(head.pc);
        self.leave(Some(pc), insns, cycles);
    }

    /// Branch to `yes` (with `args`) where the counters with `insns` and `cycles` added stay within
    /// their bounds (`bounds`), else to `no`.
    fn branch_within(
        &mut self,
        insns: u32,
        cycles: u64,
        yes: Block,
        args: &[cranelift_codegen::ir::BlockArg],
        no: Block,
    ) {
        let (budget, time) = self.bound_checks(insns, cycles);
        let second = self.b.create_block();
        self.b.ins().brif(budget, second, &[], no, &[]);
        self.b.switch_to_block(second);
        self.b.seal_block(second);
        self.b.ins().brif(time, yes, args, no, &[]);
    }

    /// Whether the instruction and the cycle counter with `insns` and `cycles` added stay below
    /// their bounds (`bounds`), as `i8` truth values.
    fn bound_checks(&mut self, insns: u32, cycles: u64) -> (Value, Value) {
        let (done_insns, done_cycles) = self.counted(insns, cycles);
        let (insn_limit, cycle_limit) = (self.var(INSN_LIMIT), self.cycle_limit());
        let budget = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThan, done_insns, insn_limit);
        let time = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThan, done_cycles, cycle_limit);
        (budget, time)
    }

    /// Whether the counters with `insns` and `cycles` added stay within their bounds (`bounds`),
    /// as an `i8` truth value.
    fn within(&mut self, insns: u32, cycles: u64) -> Value {
        let (budget, time) = self.bound_checks(insns, cycles);
        self.b.ins().band(budget, time)
    }

    /// Whether the run would go on plainly at `next`, a PC of the region's span, after `insns`
    /// and `cycles` more of the current block (`Cpu::continues_plainly_at`), as an `i8` truth
    /// value: yes within the bounds (`bounds`), else as the goes-on call-out finds.
    fn goes_on(&mut self, insns: u32, cycles: u64, next: u32) -> Value {
        debug_assert!(next.wrapping_sub(self.span.0) < self.span.1.wrapping_sub(self.span.0));
        let (full, done) = (self.b.create_block(), self.b.create_block());
        let answer = self.b.append_block_param(done, types::I8);
        let yes = self.b.ins().iconst(types::I8, 1);
        self.branch_within(insns, cycles, done, &[yes.into()], full);
        self.b.switch_to_block(full);
        self.b.seal_block(full);
        let go = self.goes_on_callout(insns, cycles, next);
        self.b.ins().jump(done, &[go.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        answer
    }

    /// The goes-on call-out's answer for `next` after `insns` and `cycles` more of the current
    /// block, as an `i8` truth value.
    fn goes_on_callout(&mut self, insns: u32, cycles: u64, next: u32) -> Value {
        let next = self.imm(next);
        let args = [self.imm(insns), self.imm(cycles as u32), next];
        let go = self
            .callout(
                offset_of!(Callouts, goes_on),
                self.sigs.goes_on,
                &args,
                false,
            )
            .expect("the goes-on call-out returns");
        self.b.ins().ireduce(types::I8, go)
    }

    /// `leave` for the known PC `target`, going on within the function where the region holds the
    /// block there (`go_within`), else into the compiled code linked there (`link_exit`).
    fn leave_linked(&mut self, target: u32, insns: u32, cycles: u64) {
        if let Some(&head) = self.heads.iter().find(|h| h.pc == target) {
            return self.go_within(head, insns, cycles);
        }
        // Within the bounds and the quiet range the run loop would only go on there.
        let within = self.within(insns, cycles);
        let quiet = self.quiet(target);
        let plainly = self.b.ins().band(within, quiet);
        self.store_back();
        let pc = self.imm(target);
        self.store_cpu(pc, cpu_field!(pc));
        self.count(insns, cycles);
        self.link_exit(target, Some(plainly), None);
    }

    /// The end of an exit that stored back the registers, `Cpu::pc` (`target`, if computed, else
    /// the known `pc`) and the counters: go on into the compiled code the exit's new `LinkCell`
    /// links, where the run loop would run it next, plainly, doing nothing else but telling the
    /// hooks of it: without a call-out where `plainly` (an `i8` truth value) says so, else as the
    /// enters call-out finds. Else return to the run loop, which links the cell once it goes on
    /// into compiled code from there.
    fn link_exit(&mut self, pc: u32, plainly: Option<Value>, target: Option<Value>) {
        let (ptr, flags) = (self.ptr, Self::flags());
        let cell = Box::new(UnsafeCell::new(LinkCell {
            code: None,
            pc,
            bytes: 0,
            max_pane: 0,
            indirect: target.is_some(),
        }));
        let cell_at = self.b.ins().iconst(ptr, cell.get() as i64);
        self.cells.push(cell);
        let (unlinked, out) = (self.b.create_block(), self.b.create_block());
        let (linked, tail, full) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let code = self
            .b
            .ins()
            .load(ptr, flags, cell_at, offset_of!(LinkCell, code) as i32);
        let mut found = self.b.ins().icmp_imm_s(IntCC::NotEqual, code, 0);
        if let Some(target) = target {
            let at = self
                .b
                .ins()
                .load(types::I32, flags, cell_at, offset_of!(LinkCell, pc) as i32);
            let same = self.b.ins().icmp(IntCC::Equal, at, target);
            found = self.b.ins().band(found, same);
        }
        self.b.ins().brif(found, linked, &[], unlinked, &[]);
        self.b.switch_to_block(linked);
        self.b.seal_block(linked);
        if self.checks_panes {
            // `Cpu::runs_plainly`: the block's panes within reach, LEND not inside it.
            let max_pane = self.b.ins().uload8(
                types::I32,
                flags,
                cell_at,
                offset_of!(LinkCell, max_pane) as i32,
            );
            let bytes = self.b.ins().load(
                types::I32,
                flags,
                cell_at,
                offset_of!(LinkCell, bytes) as i32,
            );
            let pc = target.unwrap_or_else(|| self.imm(pc));
            let refused = self.refuses(pc, bytes, max_pane);
            let go = self.b.create_block();
            self.b.ins().brif(refused, out, &[], go, &[]);
            self.b.switch_to_block(go);
            self.b.seal_block(go);
        }
        match plainly {
            Some(plainly) => self.b.ins().brif(plainly, tail, &[], full, &[]),
            None => self.b.ins().jump(full, &[]),
        };
        self.b.switch_to_block(full);
        self.b.seal_block(full);
        // The counters are stored, and nothing is read after the call-out.
        self.defined &= !(COUNTERS | BOUNDS);
        let enters = self
            .callout(offset_of!(Callouts, enters), self.sigs.enters, &[], false)
            .expect("the enters call-out returns");
        self.b.ins().brif(enters, tail, &[], out, &[]);
        self.b.switch_to_block(tail);
        self.b.seal_block(tail);
        self.b
            .ins()
            .return_call_indirect(self.sigs.block, code, &[self.cpu, self.env]);
        self.b.switch_to_block(unlinked);
        self.b.seal_block(unlinked);
        self.b
            .ins()
            .store(flags, cell_at, self.env, offset_of!(JitEnv, pending) as i32);
        let zero = self.imm(0);
        self.b.ins().jump(self.ret, &[zero.into()]);
        self.b.switch_to_block(out);
        self.b.seal_block(out);
        let zero = self.imm(0);
        self.b.ins().jump(self.ret, &[zero.into()]);
    }

    /// A conditional branch on `cond` (an `icmp` result); `last`: the block's last instruction.
    fn branch(&mut self, insn: &Insn, cond: Value, next: u32, last: bool) {
        self.side_exit(cond, |t| t.jump_to(insn, insn.imm));
        if last {
            // The end of the block follows, which leaves for `next` as a refusal here would.
            return;
        }
        let (n, c, at) = (insn.idx as u32 + 1, insn.cum_cost as u64, next);
        let goes_on = self.goes_on(n, c, at);
        let stops = self.b.ins().icmp_imm_s(IntCC::Equal, goes_on, 0);
        self.side_exit(stops, |t| {
            let next = t.imm(at);
            t.leave(Some(next), n, c)
        });
    }

    fn call_hook(&mut self, pc: u32, next: u32, target: Value, window: u32) {
        let (from, ret, window) = (self.imm(pc), self.imm(next), self.imm(window));
        self.callout(
            offset_of!(Callouts, call),
            self.sigs.call,
            &[from, ret, target, window],
            true,
        );
    }
    /// Translate the instructions of `blk` from its head.
    fn block(&mut self, blk: &RegionBlock) {
        let last = blk.code.len() - 1;
        for (k, insn) in blk.code.iter().enumerate() {
            if !self.insn(insn, k == last) {
                return;
            }
        }
        // Fell through the end of the block (`block_end_marker`).
        let insn = &blk.code[last];
        self.leave_linked(
            blk.pc.wrapping_add(blk.bytes),
            insn.idx as u32 + 1,
            insn.cum_cost as u64,
        );
    }
    /// Translate `insn` (`last`: the block's last instruction). Returns whether the block goes on
    /// after it (false after an unconditional exit).
    fn insn(&mut self, insn: &Insn, last: bool) -> bool {
        use Op::*;
        let pc = self.pc0.wrapping_add(insn.off as u32);
        let next = pc.wrapping_add(insn.len as u32);
        let (r, s, t) = (insn.r as usize, insn.s as usize, insn.t as usize);
        macro_rules! ins {
            () => {
                self.b.ins()
            };
        }
        macro_rules! alu {
            ($dst:expr, |$x:ident, $y:ident| $e:expr) => {{
                let ($x, $y) = (self.get(s), self.get(t));
                let v = $e;
                self.set($dst, v);
            }};
        }
        macro_rules! alu_shifted {
            ($k:expr, $op:ident) => {
                alu!(r, |x, y| {
                    let x = ins!().ishl_imm_u(x, $k);
                    ins!().$op(x, y)
                })
            };
        }
        macro_rules! movc {
            ($cc:expr) => {{
                let (cond, src, old) = (self.get(t), self.get(s), self.get(r));
                let c = ins!().icmp_imm_s($cc, cond, 0);
                let v = ins!().select(c, src, old);
                self.set(r, v);
            }};
        }
        macro_rules! br {
            ($cc:expr, $x:expr, $y:expr) => {{
                let c = ins!().icmp($cc, $x, $y);
                self.branch(insn, c, next, last);
            }};
        }
        macro_rules! bri {
            ($cc:expr, $k:expr) => {{
                let x = self.get(s);
                let k = self.imm($k as u32);
                br!($cc, x, k)
            }};
        }
        // a<s> & mask compared with 0 (`bits`: `IntCC::Equal` for "none set").
        macro_rules! brbits {
            ($cc:expr, $mask:expr) => {{
                let m = $mask;
                let x = self.get(s);
                let v = ins!().band(x, m);
                let zero = self.imm(0);
                br!($cc, v, zero)
            }};
        }
        macro_rules! wide {
            // A 64-bit shift right of `hi:lo` by SAR, truncated (SRC, SRL, SRA, SLL).
            ($hi:expr, $lo:expr, $shr:ident) => {{
                let (hi, lo): (Option<Value>, Value) = ($hi, $lo);
                let sar = self.get(SAR);
                let sar = ins!().uextend(types::I64, sar);
                let v = match hi {
                    Some(hi) => {
                        let (hi, lo) = (
                            ins!().uextend(types::I64, hi),
                            ins!().uextend(types::I64, lo),
                        );
                        let hi = ins!().ishl_imm_u(hi, 32);
                        ins!().bor(hi, lo)
                    }
                    None => lo,
                };
                let v = ins!().$shr(v, sar);
                let v = ins!().ireduce(types::I32, v);
                self.set(r, v);
            }};
        }
        match insn.op {
            And => alu!(r, |x, y| ins!().band(x, y)),
            Or => alu!(r, |x, y| ins!().bor(x, y)),
            Xor => alu!(r, |x, y| ins!().bxor(x, y)),
            Add | AddN => alu!(r, |x, y| ins!().iadd(x, y)),
            Addx2 => alu_shifted!(1, iadd),
            Addx4 => alu_shifted!(2, iadd),
            Addx8 => alu_shifted!(3, iadd),
            Sub => alu!(r, |x, y| ins!().isub(x, y)),
            Subx2 => alu_shifted!(1, isub),
            Subx4 => alu_shifted!(2, isub),
            Subx8 => alu_shifted!(3, isub),
            Neg => {
                let v = self.get(t);
                let v = ins!().ineg(v);
                self.set(r, v)
            }
            Abs => {
                let v = self.get(t);
                let v = ins!().iabs(v);
                self.set(r, v)
            }
            Addi | Addmi => {
                let v = self.get(s);
                let v = ins!().iadd_imm_s(v, insn.imm as i32 as i64);
                self.set(t, v)
            }
            AddiN => {
                let v = self.get(s);
                let v = ins!().iadd_imm_s(v, insn.imm as i32 as i64);
                self.set(r, v)
            }
            Movi => {
                let v = self.imm(insn.imm);
                self.set(t, v)
            }
            MoviN => {
                let v = self.imm(insn.imm);
                self.set(s, v)
            }
            MovN => {
                let v = self.get(s);
                self.set(t, v)
            }
            Salt | Saltu => {
                let cc = if insn.op == Salt {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                alu!(r, |x, y| {
                    let c = ins!().icmp(cc, x, y);
                    ins!().uextend(types::I32, c)
                })
            }
            Moveqz => movc!(IntCC::Equal),
            Movnez => movc!(IntCC::NotEqual),
            Movltz => movc!(IntCC::SignedLessThan),
            Movgez => movc!(IntCC::SignedGreaterThanOrEqual),
            Min => alu!(r, |x, y| ins!().smin(x, y)),
            Max => alu!(r, |x, y| ins!().smax(x, y)),
            Minu => alu!(r, |x, y| ins!().umin(x, y)),
            Maxu => alu!(r, |x, y| ins!().umax(x, y)),
            Sext => {
                // Sign-extend from bit t + 7 (exec.rs).
                let sh = 31 - (insn.t as i64 + 7);
                let v = self.get(s);
                let v = ins!().ishl_imm_u(v, sh);
                let v = ins!().sshr_imm_u(v, sh);
                self.set(r, v)
            }
            Clamps => {
                let bit = insn.t as u32 + 7;
                let (lo, hi) = (self.imm((-(1i32 << bit)) as u32), self.imm((1 << bit) - 1));
                let v = self.get(s);
                let v = ins!().smin(v, hi);
                let v = ins!().smax(v, lo);
                self.set(r, v)
            }
            Nsa => {
                // Leading bits equal to the sign, less one: clz(x or !x) − 1 (31 for 0 and −1).
                let v = self.get(s);
                let neg = ins!().icmp_imm_s(IntCC::SignedLessThan, v, 0);
                let inv = ins!().bnot(v);
                let x = ins!().select(neg, inv, v);
                let n = ins!().clz(x);
                let n = ins!().iadd_imm_s(n, -1);
                self.set(t, n)
            }
            Nsau => {
                let v = self.get(s);
                let n = ins!().clz(v);
                self.set(t, n)
            }
            Slli => {
                // (a<s> as u64) << imm, truncated: 0 from a shift of 32 on (exec.rs).
                let v = self.get(s);
                let v = if insn.imm < 32 {
                    ins!().ishl_imm_u(v, insn.imm as i64)
                } else {
                    self.imm(0)
                };
                self.set(r, v)
            }
            Srai => {
                let v = self.get(t);
                let v = ins!().sshr_imm_u(v, insn.imm as i64);
                self.set(r, v)
            }
            Srli => {
                let v = self.get(t);
                let v = ins!().ushr_imm_u(v, insn.imm as i64);
                self.set(r, v)
            }
            Extui => {
                let (sh, w) = (insn.imm & 0xFF, insn.imm >> 8);
                let v = self.get(t);
                let v = ins!().ushr_imm_u(v, sh as i64);
                let v = ins!().band_imm_s(v, ((1u64 << w) - 1) as i64);
                self.set(r, v)
            }
            Ssr | Ssl | Ssa8l | Ssa8b => {
                let v = self.get(s);
                let v = match insn.op {
                    Ssr | Ssl => ins!().band_imm_s(v, 31),
                    _ => {
                        let v = ins!().band_imm_s(v, 3);
                        ins!().ishl_imm_u(v, 3)
                    }
                };
                let v = if matches!(insn.op, Ssl | Ssa8b) {
                    let k = self.imm(32);
                    ins!().isub(k, v)
                } else {
                    v
                };
                self.set(SAR, v)
            }
            Ssai => {
                let v = self.imm(insn.imm);
                self.set(SAR, v)
            }
            Src => {
                let (hi, lo) = (self.get(s), self.get(t));
                wide!(Some(hi), lo, ushr)
            }
            Srl => {
                let lo = self.get(t);
                let lo = ins!().uextend(types::I64, lo);
                wide!(None, lo, ushr)
            }
            Sra => {
                let lo = self.get(t);
                let lo = ins!().sextend(types::I64, lo);
                wide!(None, lo, sshr)
            }
            Sll => {
                let (hi, zero) = (self.get(s), self.imm(0));
                wide!(Some(hi), zero, ushr)
            }
            Mul16u => alu!(r, |x, y| {
                let x = ins!().band_imm_s(x, 0xFFFF);
                let y = ins!().band_imm_s(y, 0xFFFF);
                ins!().imul(x, y)
            }),
            Mul16s => alu!(r, |x, y| {
                let x = ins!().ireduce(types::I16, x);
                let y = ins!().ireduce(types::I16, y);
                let x = ins!().sextend(types::I32, x);
                let y = ins!().sextend(types::I32, y);
                ins!().imul(x, y)
            }),
            Mull => alu!(r, |x, y| ins!().imul(x, y)),
            Muluh => alu!(r, |x, y| ins!().umulhi(x, y)),
            Mulsh => alu!(r, |x, y| ins!().smulhi(x, y)),
            L8ui | L16ui | L16si | L32i | L32iN | L32ai | L32e => {
                let size = match insn.op {
                    L8ui => 1,
                    L16ui | L16si => 2,
                    _ => 4,
                };
                let addr = self.address(insn);
                let v = self.load(insn, pc, addr, size);
                let v = if insn.op == L16si {
                    let h = ins!().ireduce(types::I16, v);
                    ins!().sextend(types::I32, h)
                } else {
                    v
                };
                self.set(t, v)
            }
            S8i | S16i | S32i | S32iN | S32ri | S32e | S32nb => {
                let size = match insn.op {
                    S8i => 1,
                    S16i => 2,
                    _ => 4,
                };
                let addr = self.address(insn);
                let v = self.get(t);
                self.store(insn, pc, addr, size, v)
            }
            L32r => {
                // The block holds the address without LITBASE (exec.rs `build_block`); with
                // LITBASE[0] set it is (LITBASE & ~0xFFF) + offset (`Cpu::litbase_address`).
                let plain = self.imm(insn.imm);
                let addr = if self.litbase {
                    let offset = insn.imm.wrapping_sub(pc.wrapping_add(3) & !3);
                    let litbase = self.load_cpu(types::I32, cpu_field!(litbase));
                    let base = ins!().band_imm_s(litbase, 0xFFFF_F000u32 as i32 as i64);
                    let based = ins!().iadd_imm_s(base, offset as i32 as i64);
                    let on = ins!().band_imm_s(litbase, 1);
                    ins!().select(on, based, plain)
                } else {
                    plain
                };
                let v = self.load(insn, pc, addr, 4);
                self.set(t, v)
            }
            Beqz | BeqzN => bri!(IntCC::Equal, 0),
            Bnez | BnezN => bri!(IntCC::NotEqual, 0),
            Bltz => bri!(IntCC::SignedLessThan, 0),
            Bgez => bri!(IntCC::SignedGreaterThanOrEqual, 0),
            Beqi => bri!(IntCC::Equal, B4CONST[r]),
            Bnei => bri!(IntCC::NotEqual, B4CONST[r]),
            Blti => bri!(IntCC::SignedLessThan, B4CONST[r]),
            Bgei => bri!(IntCC::SignedGreaterThanOrEqual, B4CONST[r]),
            Bltui => bri!(IntCC::UnsignedLessThan, B4CONSTU[r]),
            Bgeui => bri!(IntCC::UnsignedGreaterThanOrEqual, B4CONSTU[r]),
            Beq | Bne | Blt | Bge | Bltu | Bgeu => {
                let cc = match insn.op {
                    Beq => IntCC::Equal,
                    Bne => IntCC::NotEqual,
                    Blt => IntCC::SignedLessThan,
                    Bge => IntCC::SignedGreaterThanOrEqual,
                    Bltu => IntCC::UnsignedLessThan,
                    _ => IntCC::UnsignedGreaterThanOrEqual,
                };
                let (x, y) = (self.get(s), self.get(t));
                br!(cc, x, y)
            }
            Bany | Bnone => {
                let y = self.get(t);
                let cc = if insn.op == Bany {
                    IntCC::NotEqual
                } else {
                    IntCC::Equal
                };
                brbits!(cc, y)
            }
            Ball | Bnall => {
                let (x, y) = (self.get(s), self.get(t));
                let v = ins!().band(x, y);
                let cc = if insn.op == Ball {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                br!(cc, v, y)
            }
            Bbc | Bbs => {
                let bit = self.get(t);
                let bit = ins!().band_imm_s(bit, 31);
                let one = self.imm(1);
                let mask = ins!().ishl(one, bit);
                let cc = if insn.op == Bbc {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                brbits!(cc, mask)
            }
            Bbci | Bbsi => {
                let bit = ((insn.r as u32 & 1) << 4) | insn.t as u32;
                let mask = self.imm(1 << bit);
                let cc = if insn.op == Bbci {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                brbits!(cc, mask)
            }
            J => {
                self.jump_to(insn, insn.imm);
                return false;
            }
            Jx => {
                let target = self.get(s);
                self.jump(insn, target);
                return false;
            }
            Call0 | Callx0 => {
                let target = if insn.op == Call0 {
                    self.imm(insn.imm)
                } else {
                    self.get(s)
                };
                let ret = self.imm(next);
                self.set(0, ret);
                self.call_hook(pc, next, target, 0);
                self.call_to(insn, target);
                return false;
            }
            Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                // a<4n> = n << 30 | (PC + 3)[29:0]; PS.CALLINC = n (exec.rs, S3 QEMU).
                let n = isa::row(insn.op).win as u32;
                let target = if insn.arm & AR_S != 0 {
                    self.get(s)
                } else {
                    self.imm(insn.imm)
                };
                let ret = self.imm((n << 30) | (next & 0x3FFF_FFFF));
                self.set(4 * n as usize, ret);
                let ps = self.load_cpu(types::I32, cpu_field!(ps));
                let ps = ins!().band_imm_s(ps, !PS_CALLINC as i32 as i64);
                let ps = ins!().bor_imm_s(ps, (n << PS_CALLINC_SHIFT) as i64);
                self.store_cpu(ps, cpu_field!(ps));
                self.call_hook(pc, next, target, 4 * n);
                self.call_to(insn, target);
                return false;
            }
            Ret | RetN => {
                let (from, target) = (self.imm(pc), self.get(0));
                self.callout(
                    offset_of!(Callouts, ret),
                    self.sigs.ret,
                    &[from, target],
                    true,
                );
                self.jump(insn, target);
                return false;
            }
            Entry => {
                self.spill();
                let args = [
                    self.imm(insn.s as u32),
                    self.imm(insn.imm),
                    self.imm(pc),
                    self.imm(self.max_pane as u32),
                ];
                let answer = self
                    .callout(offset_of!(Callouts, entry), self.sigs.entry, &args, false)
                    .expect("the ENTRY call-out returns");
                self.side_exit(answer, |t| t.leave_after_callout(insn, answer));
                // The block goes on in the new window.
                self.rotated();
            }
            Retw | RetwN => {
                self.spill();
                let from = self.imm(pc);
                let answer = self
                    .callout(offset_of!(Callouts, retw), self.sigs.retw, &[from], true)
                    .expect("the RETW call-out returns");
                let left = ins!().ushr_imm_u(answer, 32);
                let low = ins!().ireduce(types::I32, answer);
                self.side_exit(left, |t| t.leave_after_callout(insn, low));
                self.jump(insn, low);
                return false;
            }
            Rsr => {
                // CCOUNT at this instruction (exec.rs): the counters are those at the block's start.
                let (_, cycles) = self.counters();
                let at = ins!().iadd_imm_s(cycles, insn.cum_cost as i64);
                let at = ins!().ireduce(types::I32, at);
                let off = self.load_cpu(types::I32, cpu_field!(ccount_off));
                let v = ins!().iadd(at, off);
                self.set(t, v)
            }
            Isync | Rsync | Esync | Dsync | Excw | Memw | Extw | Nop | NopN => {}
            op => unreachable!("{op:?} is not compiled (`compiles`)"),
        }
        true
    }
}

/// The compile state of a decoded block (`BlockCache`'s, by block index).
#[derive(Clone, Copy)]
pub(super) enum JitState {
    /// Run plainly this many times so far.
    Warming(u32),
    /// Hot, but its region has more than one block: compiled once it has run plainly
    /// `COMPILE_AFTER × REGION_DELAY` times (counting on from `Warming`).
    Waiting(u32),
    Compiled(BlockFn),
    /// Holds an instruction left to the interpreter (or compiling is off).
    Interpreted,
}

/// Slot of the direct-mapped table beside `BlockCache::fast`: the compile state of its block.
#[derive(Clone, Copy)]
pub(super) struct JitSlot {
    pub(super) code: Option<BlockFn>,
    /// Index of the block in `BlockCache::blocks`.
    pub(super) block: u32,
    /// The block is left to the interpreter for good (the plain path goes on into it without
    /// counting, `BlockCache::interprets`).
    pub(super) interpreted: bool,
}

impl JitSlot {
    pub(super) const EMPTY: JitSlot = JitSlot {
        code: None,
        block: 0,
        interpreted: true,
    };

    /// The slot of block `block` in state `state`.
    pub(super) fn of(block: u32, state: JitState) -> JitSlot {
        JitSlot {
            code: match state {
                JitState::Compiled(code) => Some(code),
                _ => None,
            },
            block,
            interpreted: matches!(state, JitState::Interpreted),
        }
    }
}
