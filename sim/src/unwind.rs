//! Backtraces unwound from the machine state alone: the DWARF call-frame information of the ELF
//! (`.debug_frame`, `.eh_frame`, read with gimli), the Cortex-M exception frames the hardware
//! stacks, and the Xtensa windowed ABI's register windows and base save areas.
//!
//! Unlike the profiler's shadow call stack, this needs no history: it stays exact when the firmware
//! switches stacks (an RTOS task switch), jumps out of calls (longjmp) or the run did not start
//! from reset.

use crate::dwarf::{section_bytes, Reader};
use gimli::{
    BaseAddresses, CfaRule, CieOrFde, DebugFrame, EhFrame, FrameDescriptionEntry, Register,
    RegisterRule, UnwindContext, UnwindSection, UnwindTableRow,
};
use goblin::elf::Elf;

/// The registers an unwinder tracks: the 16 general registers (Cortex-M r0-r15, Xtensa a0-a15 of
/// the frame's window), numbered as DWARF numbers them on both ISAs.
type Registers = [Option<u32>; 16];

const ARM_SP: usize = 13;
const ARM_LR: usize = 14;
const XTENSA_A0: usize = 0;
const XTENSA_SP: usize = 1;

/// The state an unwinder reads: registers by the debugger's names (`Core::debug_register`), and
/// memory. Kept apart from the core so that the unwinder can be tested and fuzzed alone.
pub trait MachineState {
    fn pc(&self) -> u32;
    fn register(&self, name: &str) -> Option<u32>;
    /// `buf.len()` bytes at `addr`, or `None` where memory is not mapped.
    fn read(&self, addr: u32, buf: &mut [u8]) -> Option<()>;
    /// The start of the function (ELF symbol) containing `pc`.
    fn function_start(&self, pc: u32) -> Option<u32>;

    fn read_u32(&self, addr: u32) -> Option<u32> {
        let mut word = [0; 4];
        self.read(addr, &mut word)?;
        Some(u32::from_le_bytes(word))
    }

    /// Whether the function containing `pc` begins with a windowed ENTRY (Xtensa ISA Reference
    /// Manual, ENTRY: BRI12 format, op0 = 6, n = 3, m = 0, so its first byte is 0x36).
    fn in_windowed_function(&self, pc: u32) -> bool {
        let mut first = [0];
        self.function_start(pc)
            .and_then(|start| self.read(start, &mut first))
            .is_some()
            && first[0] == 0x36
    }
}

/// The instruction set, and so how frames link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    CortexM,
    /// Xtensa with register windows: a windowed function's frame links through a0 and the window.
    XtensaWindowed,
    /// Xtensa without them (LX106): every frame through the call-frame information.
    XtensaCall0,
}

/// One frame of a backtrace, innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Where the frame is: the PC for the innermost frame and for a frame an exception preempted
    /// (it resumes there); a return address otherwise.
    pub pc: u32,
    /// How the frame was left: `None` for the innermost, `Some(None)` for a call, `Some(Some(n))`
    /// when exception number `n`'s entry preempted it (Cortex-M).
    pub left_by: Option<Option<u32>>,
}

impl Frame {
    /// Whether `pc` is a return address (the call instruction is just before it).
    pub fn is_return_address(&self) -> bool {
        self.left_by == Some(None)
    }
}

/// The ELF's call-frame information (none at all by default: the Xtensa windowed ABI and the
/// Cortex-M exception frames unwind without it).
#[derive(Default)]
pub struct CallFrames {
    debug_frame: Option<DebugFrame<Reader>>,
    eh_frame: Option<(EhFrame<Reader>, BaseAddresses)>,
}

impl std::fmt::Debug for CallFrames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallFrames")
    }
}

/// Frames a backtrace goes through at most (a corrupt stack that links to itself ends here).
const MAX_FRAMES: usize = 64;

impl CallFrames {
    /// The ELF's `.debug_frame` and `.eh_frame`, or `None` when it has neither.
    pub fn load(elf: &Elf, bytes: &[u8]) -> Option<CallFrames> {
        let mut debug_frame = section_bytes(elf, bytes, ".debug_frame").map(DebugFrame::from);
        if let Some(d) = debug_frame.as_mut() {
            d.set_address_size(4);
        }
        let eh_frame = elf
            .section_headers
            .iter()
            .find(|sh| elf.shdr_strtab.get_at(sh.sh_name) == Some(".eh_frame"))
            .and_then(|sh| {
                let data = section_bytes(elf, bytes, ".eh_frame")?;
                let mut section = EhFrame::from(data);
                section.set_address_size(4);
                Some((section, BaseAddresses::default().set_eh_frame(sh.sh_addr)))
            });
        (debug_frame.is_some() || eh_frame.is_some()).then_some(CallFrames {
            debug_frame,
            eh_frame,
        })
    }

    /// Whether an entry covers `pc`.
    pub fn covers(&self, pc: u32) -> bool {
        self.row(pc, |_, _| ()).is_some()
    }

    /// The rule row at `pc`, handed to `f`: the CFA rule, and the rule the row states for a
    /// register (`None` when it states none).
    fn row<T>(
        &self,
        pc: u32,
        f: impl FnOnce(&CfaRule<usize>, &dyn Fn(u16) -> Option<RegisterRule<usize>>) -> T,
    ) -> Option<T> {
        let address = u64::from(pc);
        let row = self
            .debug_frame
            .as_ref()
            .and_then(|section| latest_row(section, &BaseAddresses::default(), address))
            .or_else(|| {
                let (section, bases) = self.eh_frame.as_ref()?;
                latest_row(section, bases, address)
            })?;
        let stated = |r: u16| {
            row.registers()
                .find(|(register, _)| *register == Register(r))
                .map(|(_, rule)| rule.clone())
        };
        Some(f(row.cfa(), &stated))
    }

    /// The backtrace of the machine's current state, innermost first. Frames end where neither
    /// call-frame information nor the ABI tells where the caller is (the reset handler, a ROM
    /// function, a corrupt stack).
    pub fn unwind(&self, isa: Isa, state: &dyn MachineState) -> Vec<Frame> {
        let mut regs: Registers = [None; 16];
        let prefix = if isa == Isa::CortexM { "r" } else { "a" };
        for (n, r) in regs.iter_mut().enumerate() {
            *r = state.register(&format!("{prefix}{n}"));
        }
        if isa == Isa::CortexM {
            regs[ARM_SP] = state.register("sp");
            regs[ARM_LR] = state.register("lr");
        }
        let mut frames = vec![Frame {
            pc: state.pc(),
            left_by: None,
        }];
        let mut window = Window::of(isa, state);
        // Cortex-M: the exception whose handler the frame being unwound runs in (its IPSR).
        let mut ipsr = state.register("xpsr").map_or(0, |x| x & 0x1FF);
        while frames.len() < MAX_FRAMES {
            let here = frames.last().unwrap().clone();
            let sp = regs[if isa == Isa::CortexM {
                ARM_SP
            } else {
                XTENSA_SP
            }];
            let next = match isa {
                Isa::XtensaWindowed if state.in_windowed_function(here.pc) => {
                    window.caller(&mut regs, &here, state)
                }
                Isa::CortexM => self
                    .cfi_step(&mut regs, &here, ARM_SP, ARM_LR, state)
                    // An EXC_RETURN value returns from a handler (IPSR ≠ 0); in thread mode, a
                    // link register of that form (0xFFFFFFFF out of reset) ends the stack.
                    .and_then(|ra| match (ra >> 24 == 0xFF, ipsr != 0) {
                        (true, false) => None,
                        (true, true) => {
                            let (pc, preempted_ipsr) = exception_return(&mut regs, ra, state)?;
                            let handler = std::mem::replace(&mut ipsr, preempted_ipsr);
                            Some((pc, Some(handler)))
                        }
                        (false, _) => Some((ra & !1, None)),
                    }),
                _ => self
                    .cfi_step(&mut regs, &here, XTENSA_SP, XTENSA_A0, state)
                    .map(|ra| (ra, None)),
            };
            let Some((pc, exception)) = next.filter(|&(pc, _)| pc != 0) else {
                break;
            };
            let frame = Frame {
                pc,
                left_by: Some(exception),
            };
            // A frame that links to itself (a corrupt or self-referencing stack) ends the trace.
            let new_sp = regs[if isa == Isa::CortexM {
                ARM_SP
            } else {
                XTENSA_SP
            }];
            if frame == here && new_sp == sp {
                break;
            }
            frames.push(frame);
        }
        frames
    }

    /// One step through the call-frame information: the caller's registers in `regs`, and the
    /// return address. The innermost frame without an entry is taken for a leaf that has not
    /// moved its stack pointer (its return address still in the link register), as gdb and
    /// probe-rs do; an outer one ends the backtrace.
    fn cfi_step(
        &self,
        regs: &mut Registers,
        here: &Frame,
        sp: usize,
        ra: usize,
        state: &dyn MachineState,
    ) -> Option<u32> {
        // A return address may follow a call that never returns, at the end of its function.
        let lookup = if here.is_return_address() {
            here.pc.wrapping_sub(1)
        } else {
            here.pc
        };
        let stepped = self.row(lookup, |cfa, rule| {
            let cfa = match *cfa {
                CfaRule::RegisterAndOffset { register, offset } => {
                    let base = (*regs.get(usize::from(register.0))?)?;
                    base.wrapping_add(offset as u32)
                }
                CfaRule::Expression(_) => return None,
            };
            let before = *regs;
            for (n, r) in regs.iter_mut().enumerate() {
                // A register the row states nothing for keeps its value: callee-saved code that
                // never touched it (GCC writes no same-value rules). One it states undefined has
                // none: for the return address, the end of the stack (`.cfi_undefined lr` in a
                // reset handler).
                *r = match rule(n as u16) {
                    None | Some(RegisterRule::SameValue) => before[n],
                    Some(RegisterRule::Offset(o)) => state.read_u32(cfa.wrapping_add(o as u32)),
                    Some(RegisterRule::ValOffset(o)) => Some(cfa.wrapping_add(o as u32)),
                    Some(RegisterRule::Register(from)) => *before.get(usize::from(from.0))?,
                    Some(_) => None,
                };
            }
            regs[sp] = Some(cfa);
            Some(())
        });
        match stepped {
            Some(step) => step?,
            None if !here.is_return_address() => {}
            None => return None,
        }
        regs[ra]
    }
}

/// The rule row at `address` of the entry covering it that starts last. Linkers leave the entries
/// of the functions `--gc-sections` dropped in place, relocated to address 0 with their old lengths,
/// so an address can lie in several; the function really there is the one that starts nearest.
fn latest_row<S: UnwindSection<Reader>>(
    section: &S,
    bases: &BaseAddresses,
    address: u64,
) -> Option<UnwindTableRow<usize>> {
    let mut entries = section.entries(bases);
    let mut best: Option<FrameDescriptionEntry<Reader>> = None;
    while let Ok(Some(entry)) = entries.next() {
        let CieOrFde::Fde(partial) = entry else {
            continue;
        };
        let Ok(fde) = partial.parse(S::cie_from_offset) else {
            continue;
        };
        if fde.contains(address)
            && best
                .as_ref()
                .is_none_or(|b| fde.initial_address() > b.initial_address())
        {
            best = Some(fde);
        }
    }
    let mut ctx = UnwindContext::new();
    best?
        .unwind_info_for_address(section, bases, &mut ctx, address)
        .ok()
        .cloned()
}

/// The caller of a Cortex-M exception handler that returns with `exc_return`, and the IPSR of the
/// code it preempted: the frame the hardware stacked on entry (ARMv7-M ARM B1.5.6, B1.5.8; ARMv8-M
/// ARM B3.19): r0-r3, r12, LR, the return address and xPSR, on the process stack when EXC_RETURN
/// bit 2 says so, else where the handler's stack pointer was on entry; FP state beyond them when
/// bit 4 is clear, and a padding word when the entry aligned the stack (stacked xPSR bit 9).
fn exception_return(
    regs: &mut Registers,
    exc_return: u32,
    state: &dyn MachineState,
) -> Option<(u32, u32)> {
    let frame = if exc_return & 0b100 != 0 {
        state.register("psp")?
    } else {
        regs[ARM_SP]?
    };
    let word = |i: u32| state.read_u32(frame.wrapping_add(4 * i));
    for (i, r) in [0, 1, 2, 3, 12, ARM_LR].into_iter().enumerate() {
        regs[r] = word(i as u32);
    }
    let pc = word(6)?;
    let xpsr = word(7)?;
    let size = if exc_return & 0b1_0000 == 0 {
        0x68
    } else {
        0x20
    };
    let pad = if xpsr & (1 << 9) != 0 { 4 } else { 0 };
    regs[ARM_SP] = Some(frame.wrapping_add(size + pad));
    Some((pc & !1, xpsr & 0x1FF))
}

/// Where an Xtensa windowed unwind is in the register file.
struct Window {
    base: u32,
    start: u32,
    /// Register windows (4 registers each) the unwound frames rotated back.
    back: u32,
    live: bool,
}

impl Window {
    fn of(isa: Isa, state: &dyn MachineState) -> Window {
        Window {
            base: state.register("windowbase").unwrap_or(0),
            start: state.register("windowstart").unwrap_or(0),
            back: 0,
            live: isa == Isa::XtensaWindowed,
        }
    }

    /// The caller of a windowed frame (Xtensa ISA Reference Manual, "Windowed Register Option" and
    /// "Windowed Procedure-Call Protocol"): CALLn put the return address in the callee's a0 with
    /// the window increment n/4 in its top two bits; the caller's a0-a3 are in the register file
    /// while its window is live (WINDOWSTART bit set), else the window-overflow handler saved them in
    /// the base save area, the 16 bytes below the callee's stack pointer. On a function's ENTRY the
    /// window has not rotated yet: PS.CALLINC holds the increment and a(4n) the return address.
    fn caller(
        &mut self,
        regs: &mut Registers,
        here: &Frame,
        state: &dyn MachineState,
    ) -> Option<(u32, Option<u32>)> {
        if here.left_by.is_none() && state.function_start(here.pc) == Some(here.pc) {
            let inc = (state.register("ps")? >> 16) & 3;
            let ra = regs[(4 * inc) as usize]?;
            return Some((windowed_pc(ra, here.pc), None));
        }
        let (a0, sp) = (regs[XTENSA_A0]?, regs[XTENSA_SP]?);
        let inc = a0 >> 30;
        if inc == 0 {
            return None;
        }
        self.back += inc;
        let caller_base = self.base.wrapping_sub(self.back) & 15;
        self.live &= self.back < 16 && self.start & (1 << caller_base) != 0;
        let rotated = 4 * inc as usize;
        let mut caller: Registers = [None; 16];
        // The caller's registers from a(4·inc) on are the callee's from a0.
        caller[rotated..].copy_from_slice(&regs[..16 - rotated]);
        for (n, r) in caller.iter_mut().take(4).enumerate() {
            *r = if self.live {
                let relative = (64 - 4 * self.back + n as u32) % 64;
                state.register(&format!("a{relative}"))
            } else {
                state.read_u32(sp.wrapping_sub(16 - 4 * n as u32))
            };
        }
        *regs = caller;
        Some((windowed_pc(a0, here.pc), None))
    }
}

/// A windowed return address: the low 30 bits of a0, the top two of the PC's region.
fn windowed_pc(a0: u32, pc: u32) -> u32 {
    (a0 & 0x3FFF_FFFF) | (pc & 0xC000_0000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A machine state of registers and words, every function windowed.
    struct Fake {
        pc: u32,
        registers: HashMap<&'static str, u32>,
        memory: HashMap<u32, u32>,
    }

    impl MachineState for Fake {
        fn pc(&self) -> u32 {
            self.pc
        }
        fn register(&self, name: &str) -> Option<u32> {
            self.registers.get(name).copied()
        }
        fn read(&self, addr: u32, buf: &mut [u8]) -> Option<()> {
            let word = self.memory.get(&addr)?;
            buf.copy_from_slice(&word.to_le_bytes()[..buf.len()]);
            Some(())
        }
        fn function_start(&self, _pc: u32) -> Option<u32> {
            Some(0x4000_0000)
        }
    }

    /// A machine state whose every register and word is noise from `seed`.
    struct Noise {
        seed: u64,
        windowed: bool,
    }

    impl Noise {
        fn word(&self, at: u64) -> u32 {
            let mut x = self.seed ^ at.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 31;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (x ^ (x >> 29)) as u32
        }
    }

    impl MachineState for Noise {
        fn pc(&self) -> u32 {
            self.word(1 << 40)
        }
        fn register(&self, name: &str) -> Option<u32> {
            let at = name.bytes().fold(1u64 << 41, |h, b| {
                h.wrapping_mul(131).wrapping_add(u64::from(b))
            });
            Some(self.word(at))
        }
        fn read(&self, addr: u32, buf: &mut [u8]) -> Option<()> {
            for (i, b) in buf.iter_mut().enumerate() {
                let at = addr.wrapping_add(i as u32);
                // Every function starts with ENTRY when the state is windowed.
                *b = match self.windowed && at & 0xFF == 0 {
                    true => 0x36,
                    false => self.word(u64::from(at)) as u8,
                };
            }
            Some(())
        }
        fn function_start(&self, pc: u32) -> Option<u32> {
            self.windowed.then_some(pc & !0xFF)
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Whatever the registers and the stack hold, unwinding ends within its frame limit.
        #[test]
        fn any_machine_state_unwinds_to_an_end(seed: u64, windowed: bool) {
            let state = Noise { seed, windowed };
            for isa in [Isa::CortexM, Isa::XtensaWindowed, Isa::XtensaCall0] {
                let frames = CallFrames::default().unwind(isa, &state);
                proptest::prop_assert!(!frames.is_empty() && frames.len() <= MAX_FRAMES);
            }
        }
    }

    #[test]
    fn a_stack_that_links_to_itself_ends_the_backtrace() {
        // A windowed frame whose caller's spilled a0/a1 (below its own SP) are its own.
        let sp = 0x3FC0_0100;
        let a0 = 0x8000_0010; // CALL8 back into the same function
        let mut memory = HashMap::from([(sp - 16, a0), (sp - 12, sp), (0x4000_0000, 0x36)]);
        memory.insert(0x4000_0010, 0);
        let state = Fake {
            pc: 0x4000_0010,
            registers: HashMap::from([
                ("a0", a0),
                ("a1", sp),
                ("windowbase", 0),
                ("windowstart", 1),
            ]),
            memory,
        };
        let frames = CallFrames::default().unwind(Isa::XtensaWindowed, &state);
        assert!(frames.len() <= 2, "{frames:?}");
    }

    #[test]
    fn a_cortex_m_leaf_without_entries_returns_through_its_link_register_once() {
        let state = Fake {
            pc: 0x100,
            registers: HashMap::from([("sp", 0x2000_0000), ("lr", 0x201), ("xpsr", 0)]),
            memory: HashMap::new(),
        };
        let frames = CallFrames::default().unwind(Isa::CortexM, &state);
        let pcs: Vec<u32> = frames.iter().map(|f| f.pc).collect();
        // The caller at 0x200 has no entry either: the trace ends there.
        assert_eq!(pcs, [0x100, 0x200]);
        assert!(frames[1].is_return_address());
    }
}
