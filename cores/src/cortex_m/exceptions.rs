//! Exceptions as the core takes them: entry (basic or extended frame, ARMv7-M ARM B1.5.6-B1.5.7),
//! return (B1.5.8), tail-chaining (B1.5.12), and the synchronous faults — HardFault, MemManage,
//! BusFault, UsageFault — with their status registers (CFSR, HFSR, MMFAR, BFAR: B3.2.15-B3.2.18),
//! priority escalation (B1.5.4) and lockup (B1.5.15). The same frames serve ARMv8-M (the M33 runs in
//! Secure state, where the EXC_RETURN values of ARMv8-M ARM D1.2.95 have the same bits as
//! ARMv7-M's), and ARMv6-M (every fault is a HardFault, no status registers).

use super::ppb::{EXC_BUSFAULT, EXC_HARDFAULT, EXC_MEMMANAGE, EXC_USAGEFAULT};
use super::{exception_name, fp_register, timing, BlockEnd, CortexM};
use crate::{Core, CoreError, Fault, FaultKind, Flow, Stop};
use unicorn_engine::RegisterARM;

/// CFSR bits (ARMv7-M ARM B3.2.15): MMFSR.
pub(crate) const IACCVIOL: u32 = 1 << 0;
const MMARVALID: u32 = 1 << 7;
/// BFSR.
pub(crate) const IBUSERR: u32 = 1 << 8;
pub(crate) const PRECISERR: u32 = 1 << 9;
const STKERR: u32 = 1 << 12;
const BFARVALID: u32 = 1 << 15;
/// UFSR.
pub(crate) const UNDEFINSTR: u32 = 1 << 16;
pub(crate) const INVSTATE: u32 = 1 << 17;
pub(crate) const INVPC: u32 = 1 << 18;
pub(crate) const NOCP: u32 = 1 << 19;
pub(crate) const UNALIGNED: u32 = 1 << 24;
pub(crate) const DIVBYZERO: u32 = 1 << 25;
/// HFSR (B3.2.16).
const HFSR_FORCED: u32 = 1 << 30;
const HFSR_VECTTBL: u32 = 1 << 1;

/// CONTROL bits (B1.4.4): SPSEL (thread mode uses PSP), FPCA (FP context active).
const CONTROL_SPSEL: u32 = 1 << 1;
const CONTROL_FPCA: u32 = 1 << 2;
/// EXC_RETURN bits (B1.5.8): FType (0 = extended frame), return to thread mode, return to PSP.
const EXC_RETURN_BASIC_FRAME: u32 = 1 << 4;
const EXC_RETURN_THREAD: u32 = 1 << 3;
const EXC_RETURN_PSP: u32 = 1 << 2;
/// Basic frame: r0-r3, r12, lr, return address, xPSR. Extended frame: also s0-s15, FPSCR, a
/// reserved word (B1.5.7).
const BASIC_FRAME: u32 = 0x20;
const EXTENDED_FRAME: u32 = 0x68;

const CFSR_NAMES: [(u32, &str); 17] = [
    (IACCVIOL, "IACCVIOL"),
    (1 << 1, "DACCVIOL"),
    (1 << 3, "MUNSTKERR"),
    (1 << 4, "MSTKERR"),
    (MMARVALID, "MMARVALID"),
    (IBUSERR, "IBUSERR"),
    (PRECISERR, "PRECISERR"),
    (1 << 10, "IMPRECISERR"),
    (1 << 11, "UNSTKERR"),
    (STKERR, "STKERR"),
    (BFARVALID, "BFARVALID"),
    (UNDEFINSTR, "UNDEFINSTR"),
    (INVSTATE, "INVSTATE"),
    (INVPC, "INVPC"),
    (NOCP, "NOCP"),
    (UNALIGNED, "UNALIGNED"),
    (DIVBYZERO, "DIVBYZERO"),
];

/// An exception the core is handling; active exceptions nest.
pub(crate) struct ActiveException {
    pub number: u32,
    /// The return address in its stacked frame: where the code it preempted resumes.
    pub stacked_pc: u32,
    /// The fault that raised it, with its diagnosis, for the report when its handler never returns.
    pub cause: Option<Fault>,
}

/// The configurable fault an exception number is, with its SHCSR enable bit (B3.2.13).
fn enable_bit(exception: u32) -> Option<u32> {
    match exception {
        EXC_MEMMANAGE => Some(1 << 16),
        EXC_BUSFAULT => Some(1 << 17),
        EXC_USAGEFAULT => Some(1 << 18),
        _ => None,
    }
}

/// The set bits of a status register value by name, e.g. `PRECISERR BFARVALID`.
fn cfsr_bits(cfsr: u32) -> String {
    CFSR_NAMES
        .iter()
        .filter(|(b, _)| cfsr & b != 0)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(" ")
}

impl CortexM<'_> {
    /// The handler address of exception `number`, or why it cannot be entered: a vector that is not a
    /// Thumb address in executable memory.
    fn vector(&self, number: u32) -> Result<u32, String> {
        let vtor = self.uc.get_data().ppb.vtor;
        let at = vtor.wrapping_add(4 * number);
        let handler = self.read_u32(at).unwrap_or(0);
        if handler & 1 == 1 && self.uc.get_data().mem.region_of(handler & !1).is_some() {
            Ok(handler & !1)
        } else {
            Err(format!(
                "{} taken with vector 0x{handler:08x} at 0x{at:08x} (VTOR 0x{vtor:08x}), which is not a Thumb address in executable memory",
                exception_name(number)
            ))
        }
    }

    /// Take an asynchronous exception (interrupt, SysTick, PendSV, SVC) that preempts the code at the
    /// PC. A vector that cannot be entered is an INVSTATE UsageFault (bit 0 clear) or a BusFault on
    /// the vector fetch, taken as any fault.
    pub(super) fn take_exception(&mut self, number: u32) -> Result<Option<Stop>, CoreError> {
        let pc = self.pc();
        match self.vector(number) {
            Ok(handler) => Ok(self.enter(number, handler, pc, None)?.map(Stop::Fault)),
            Err(detail) => {
                let at = self.uc.get_data().ppb.vtor.wrapping_add(4 * number);
                self.uc.get_data_mut().ppb.clear_pending(number);
                let cause = Fault {
                    kind: FaultKind::UnhandledException,
                    pc,
                    address: Some(at),
                    detail,
                };
                self.take_fault(cause, EXC_USAGEFAULT, INVSTATE, pc)
            }
        }
    }

    /// Raise a synchronous fault of kind `exception` (MemManage, BusFault, UsageFault or HardFault)
    /// with the CFSR bits `status`; the frame returns to `return_pc`. It is taken through the
    /// firmware's vector table, escalated to HardFault when its handler is disabled or cannot
    /// preempt; a fault where even HardFault cannot preempt is a lockup, and a fault whose handler
    /// vector is unusable ends the run with the fault itself. Returns the stop that ends the run, if
    /// any.
    pub(super) fn take_fault(
        &mut self,
        cause: Fault,
        exception: u32,
        status: u32,
        return_pc: u32,
    ) -> Result<Option<Stop>, CoreError> {
        let priority = self.execution_priority();
        let st = self.uc.get_data_mut();
        let v6m = st.ppb.v6m;
        let enabled = enable_bit(exception).is_some_and(|b| st.ppb.shcsr & b != 0);
        let target = if !v6m && enabled && st.ppb.priority_of(exception) < priority {
            exception
        } else {
            EXC_HARDFAULT
        };
        let mut diagnosis = String::new();
        if !v6m {
            let mut status = status;
            match (exception, cause.address) {
                (EXC_MEMMANAGE, Some(a)) if status & IACCVIOL == 0 => {
                    status |= MMARVALID;
                    st.ppb.mmfar = a;
                }
                (EXC_BUSFAULT, Some(a)) if status & PRECISERR != 0 => {
                    status |= BFARVALID;
                    st.ppb.bfar = a;
                }
                _ => {}
            }
            st.ppb.cfsr |= status;
            if status != 0 {
                diagnosis = format!(
                    "{} (CFSR 0x{:08x}: {}",
                    exception_name(exception),
                    st.ppb.cfsr,
                    cfsr_bits(status)
                );
                if status & BFARVALID != 0 {
                    diagnosis += &format!(", BFAR 0x{:08x}", st.ppb.bfar);
                }
                if status & MMARVALID != 0 {
                    diagnosis += &format!(", MMFAR 0x{:08x}", st.ppb.mmfar);
                }
                diagnosis.push(')');
            }
            if target == EXC_HARDFAULT && exception != EXC_HARDFAULT {
                st.ppb.hfsr |= HFSR_FORCED;
                diagnosis += &format!(
                    " escalated to HardFault (HFSR 0x{:08x}: FORCED)",
                    st.ppb.hfsr
                );
            }
        } else {
            diagnosis = "HardFault (ARMv6-M takes every fault as HardFault)".into();
        }
        let cause = Fault {
            detail: format!("{}; {diagnosis}", cause.detail),
            ..cause
        };
        // HardFault has priority -1: a fault at -1 or above (in HardFault, NMI, or with FAULTMASK
        // set) cannot be taken (B1.5.15).
        if target == EXC_HARDFAULT && priority <= -1 {
            let within = self
                .active
                .last()
                .map(|a| exception_name(a.number))
                .unwrap_or_else(|| "FAULTMASK".into());
            let detail = format!(
                "{}; lockup: the core cannot take HardFault inside {within} (priority {priority})",
                cause.detail
            );
            return Ok(Some(Stop::Fault(Fault { detail, ..cause })));
        }
        match self.vector(target) {
            Ok(handler) => Ok(self
                .enter(target, handler, return_pc, Some(cause))?
                .map(Stop::Fault)),
            Err(why) => {
                if !v6m && target == EXC_HARDFAULT {
                    self.uc.get_data_mut().ppb.hfsr |= HFSR_VECTTBL;
                }
                let detail = format!("{}; no handler: {why}", cause.detail);
                Ok(Some(Stop::Fault(Fault { detail, ..cause })))
            }
        }
    }

    /// Exception entry: stack the frame (extended when an FP context is active) on the current stack,
    /// enter `handler` with LR = EXC_RETURN (ARMv7-M ARM B1.5.6). A stacking error is a lockup-like end
    /// of the run: the frame cannot be written (on the chip a derived STKERR fault).
    fn enter(
        &mut self,
        number: u32,
        handler: u32,
        return_pc: u32,
        cause: Option<Fault>,
    ) -> Result<Option<Fault>, CoreError> {
        let control = self.reg(RegisterARM::CONTROL);
        let thread_psp = self.active.is_empty() && control & CONTROL_SPSEL != 0;
        let extended = self.fpu && control & CONTROL_FPCA != 0;
        let size = if extended {
            EXTENDED_FRAME
        } else {
            BASIC_FRAME
        };
        let mut sp = self.reg(RegisterARM::SP);
        let mut xpsr = self.reg(RegisterARM::XPSR);
        if sp & 4 != 0 {
            sp = sp.wrapping_sub(4);
            xpsr |= 1 << 9; // stack realigned to 8 bytes (CCR.STKALIGN)
        }
        sp = sp.wrapping_sub(size);
        let mut frame = vec![
            self.reg(RegisterARM::R0),
            self.reg(RegisterARM::R1),
            self.reg(RegisterARM::R2),
            self.reg(RegisterARM::R3),
            self.reg(RegisterARM::R12),
            self.reg(RegisterARM::LR),
            return_pc & !1,
            xpsr | (1 << 24),
        ];
        if extended {
            // Written at entry: the values lazy state preservation (FPCCR.LSPEN) would write at the
            // handler's first FP instruction; the cycles of that deferred stacking are not charged.
            frame.extend((0..16).map(|i| self.uc.reg_read(fp_register(i)).unwrap_or(0) as u32));
            frame.push(self.uc.reg_read(RegisterARM::FPSCR).unwrap_or(0) as u32);
            frame.push(0);
        }
        let bytes: Vec<u8> = frame.iter().flat_map(|w| w.to_le_bytes()).collect();
        if self.uc.mem_write(sp as u64, &bytes).is_err() {
            let what = format!(
                "stacking the {} frame at 0x{sp:08x} hit unmapped memory (STKERR)",
                exception_name(number)
            );
            return Ok(Some(match cause {
                Some(c) => Fault {
                    detail: format!("{}; {what}", c.detail),
                    ..c
                },
                None => Fault {
                    kind: FaultKind::BadWrite,
                    pc: return_pc,
                    address: Some(sp),
                    detail: what,
                },
            }));
        }
        if cause.is_none() && !self.uc.get_data().ppb.v6m {
            // A fault raised by stacking sets STKERR; none here.
            self.uc.get_data_mut().ppb.cfsr &= !STKERR;
        }
        self.set_reg(RegisterARM::SP, sp)?;
        let mut control_now = control;
        if thread_psp {
            control_now &= !CONTROL_SPSEL; // handlers run on MSP
        }
        if extended {
            control_now &= !CONTROL_FPCA;
        }
        if control_now != control {
            self.set_reg(RegisterARM::CONTROL, control_now)?;
        }
        let mut exc_return = match (self.active.is_empty(), thread_psp) {
            (false, _) => 0xFFFF_FFF1,
            (true, true) => 0xFFFF_FFFD,
            (true, false) => 0xFFFF_FFF9,
        };
        if extended {
            exc_return &= !EXC_RETURN_BASIC_FRAME;
        }
        self.active.push(ActiveException {
            number,
            stacked_pc: return_pc & !1,
            cause,
        });
        self.set_reg(RegisterARM::LR, exc_return)?;
        self.start_handler(
            number,
            handler,
            Flow::ExceptionEntry { number },
            timing::exception_entry_cycles(self.kind),
        )?;
        Ok(None)
    }

    /// Watch for a fault handler that loops without progress while one runs (`watch_fault_handler`).
    fn update_spin_watch(&mut self) {
        let in_fault_handler = self.active.last().is_some_and(|a| a.cause.is_some());
        self.uc.get_data_mut().spin_watch = in_fault_handler.then(Vec::new);
    }

    fn start_handler(
        &mut self,
        number: u32,
        handler: u32,
        flow: Flow,
        cycles: u32,
    ) -> Result<(), CoreError> {
        self.update_spin_watch();
        self.set_reg(RegisterARM::IPSR, number)?;
        self.set_reg(RegisterARM::PC, handler)?;
        let st = self.uc.get_data_mut();
        st.ppb.clear_pending(number);
        st.cycles += cycles as u64;
        st.next_flow = Some(flow);
        st.prev_end = BlockEnd::Plain;
        Ok(())
    }

    /// Exception return through the EXC_RETURN value the PC holds (B1.5.8). A pending exception that
    /// would preempt the context returned to is tail-chained: entered at once without unstacking and
    /// stacking again (B1.5.12). In thread mode the value is an ordinary branch target in the
    /// execute-never system region: a MemManage fault (IACCVIOL), reported at the branch.
    pub(super) fn return_from_exception(&mut self) -> Result<Option<Stop>, CoreError> {
        let exc_return = self.pc() | 1;
        let Some(active) = self.active.pop() else {
            if self.return_ends_run && exc_return == super::RESET_LR {
                return Ok(Some(Stop::Returned {
                    value: self.reg(RegisterARM::R0),
                }));
            }
            let branch = self.uc.get_data().block_last;
            let target = exc_return & !1;
            let cause = Fault {
                kind: FaultKind::BadFetch,
                pc: branch,
                address: Some(target),
                detail: format!(
                    "branch at 0x{branch:08x} to 0x{exc_return:08x} in thread mode (an EXC_RETURN value returns only from a handler): instruction fetch from 0x{target:08x}, execute-never system space"
                ),
            };
            return self.take_fault(cause, EXC_MEMMANAGE, IACCVIOL, target);
        };
        if let Some(next) = self.exception_to_take() {
            if let Ok(handler) = self.vector(next) {
                self.active.push(ActiveException {
                    number: next,
                    stacked_pc: active.stacked_pc,
                    cause: None,
                });
                let cycles = timing::tail_chain_cycles(self.kind);
                self.start_handler(next, handler, Flow::TailChain { number: next }, cycles)?;
                return Ok(None);
            }
        }
        self.update_spin_watch();
        let resumed = self.active.last().map(|a| a.number).unwrap_or(0);
        let to_thread = exc_return & EXC_RETURN_THREAD != 0;
        if to_thread != (resumed == 0) {
            // Returning to thread mode with exceptions still active, or to handler mode with none.
            let pc = active.stacked_pc;
            self.active.push(active);
            let cause = Fault {
                kind: FaultKind::UsageFault,
                pc,
                address: None,
                detail: format!("exception return with EXC_RETURN 0x{exc_return:08x} that does not match the active exceptions (INVPC)"),
            };
            return self.take_fault(cause, EXC_USAGEFAULT, INVPC, exc_return);
        }
        self.set_reg(RegisterARM::IPSR, resumed)?;
        let mut control = self.reg(RegisterARM::CONTROL);
        if exc_return & EXC_RETURN_PSP != 0 {
            control |= CONTROL_SPSEL;
            self.set_reg(RegisterARM::CONTROL, control)?; // back to PSP
        }
        let sp = self.reg(RegisterARM::SP);
        let extended = exc_return & EXC_RETURN_BASIC_FRAME == 0;
        let size = if extended {
            EXTENDED_FRAME
        } else {
            BASIC_FRAME
        };
        let mut frame = vec![0u8; size as usize];
        if self.uc.mem_read(sp as u64, &mut frame).is_err() {
            return Ok(Some(Stop::Fault(Fault {
                kind: FaultKind::BadRead,
                pc: active.stacked_pc,
                address: Some(sp),
                detail: format!(
                    "exception return: the stacked frame at 0x{sp:08x} is not in memory (UNSTKERR)"
                ),
            })));
        }
        let w = |i: usize| u32::from_le_bytes(frame[i * 4..i * 4 + 4].try_into().unwrap());
        let xpsr = w(7);
        let realign = if xpsr & (1 << 9) != 0 { 4 } else { 0 };
        for (i, r) in [
            RegisterARM::R0,
            RegisterARM::R1,
            RegisterARM::R2,
            RegisterARM::R3,
            RegisterARM::R12,
            RegisterARM::LR,
        ]
        .into_iter()
        .enumerate()
        {
            self.set_reg(r, w(i))?;
        }
        if extended {
            for i in 0..16 {
                let _ = self.uc.reg_write(fp_register(i), w(8 + i) as u64);
            }
            let _ = self.uc.reg_write(RegisterARM::FPSCR, w(24) as u64);
            self.set_reg(RegisterARM::CONTROL, control | CONTROL_FPCA)?;
        }
        self.set_reg(RegisterARM::SP, sp.wrapping_add(size + realign))?;
        self.set_reg(RegisterARM::APSR, xpsr & 0xF80F_0000)?;
        self.set_reg(RegisterARM::PC, w(6) & !1)?;
        let kind = self.kind;
        let st = self.uc.get_data_mut();
        st.cycles += timing::exception_return_cycles(kind) as u64;
        st.next_flow = Some(Flow::ExceptionReturn);
        st.prev_end = BlockEnd::Plain;
        Ok(None)
    }

    /// The run ends in a fault handler that branches to itself: the diagnosis of the fault it
    /// handles, as "HardFault handler spinning".
    pub(super) fn fault_handler_spinning(&self, pc: u32) -> Option<Fault> {
        let a = self
            .active
            .last()
            .filter(|a| (EXC_HARDFAULT..=EXC_USAGEFAULT).contains(&a.number))?;
        let spinning = format!(
            "{} handler spinning at 0x{pc:08x}",
            exception_name(a.number)
        );
        Some(match &a.cause {
            Some(c) => Fault {
                detail: format!("{spinning}: {}", c.detail),
                ..c.clone()
            },
            None => Fault {
                kind: FaultKind::EndlessLoop,
                pc,
                address: None,
                detail: format!("{spinning} (pended by software)"),
            },
        })
    }
}
