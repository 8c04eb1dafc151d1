//! Debugger support (`--gdb`): breakpoints are code hooks on exactly their addresses, watchpoints
//! data hooks on their ranges, a single step one instruction of Unicorn's count. Nothing is written
//! into the code and nothing is charged: the block hook charges a whole block when it starts, so a
//! stop inside a block leaves that block charged and the rest of it resumes without a second charge
//! (`State::resume_in_block`), before any exception is taken (which the whole run takes only at a
//! block boundary).

use super::{clear_stale_it_state, engine, fp_register, gp_register, CortexM, Pending, State};
use crate::{CoreError, WatchKind, Watchpoint};
use unicorn_engine::{HookType, MemType, RegisterARM, Unicorn};

/// Hooks a debugger installed, to remove when it changes them.
#[derive(Default)]
pub(super) struct DebugHooks {
    breakpoints: Vec<unicorn_engine::UcHookId>,
    watchpoints: Vec<unicorn_engine::UcHookId>,
    /// The next `run` executes one instruction.
    pub(super) stepping: bool,
}

/// Where the debugger stopped, seen from the block being executed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum StopPlace {
    /// Before the instruction at a breakpoint: its block is charged (the block hook runs first).
    Breakpoint,
    /// After the access a watchpoint saw: the block is charged unless the stop fell on its start.
    Watchpoint,
    /// After a single step: charged unless the block hook stopped the run before charging it.
    Step,
}

impl CortexM<'_> {
    pub(super) fn replace_breakpoints(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        for id in std::mem::take(&mut self.debug.breakpoints) {
            self.uc
                .remove_hook(id)
                .map_err(engine("removing a breakpoint"))?;
        }
        for &addr in addrs {
            let at = (addr & !1) as u64;
            let id = self
                .uc
                .add_code_hook(at, at, breakpoint_reached)
                .map_err(engine("breakpoint hook"))?;
            self.debug.breakpoints.push(id);
        }
        // Blocks translated before carry no call to the new hooks.
        self.uc
            .ctl_flush_tb()
            .map_err(engine("flushing translations"))
    }

    pub(super) fn replace_watchpoints(&mut self, watches: &[Watchpoint]) -> Result<(), CoreError> {
        for id in std::mem::take(&mut self.debug.watchpoints) {
            self.uc
                .remove_hook(id)
                .map_err(engine("removing a watchpoint"))?;
        }
        if watches.iter().any(|w| w.len > 0) {
            self.end_data_redirect()?;
        }
        for w in watches.iter().filter(|w| w.len > 0) {
            let (kind, first, last) = (w.kind, w.addr as u64, w.addr as u64 + w.len as u64 - 1);
            let types = match kind {
                WatchKind::Read => HookType::MEM_READ,
                WatchKind::Write => HookType::MEM_WRITE,
                WatchKind::Access => HookType::MEM_READ | HookType::MEM_WRITE,
            };
            let id = self
                .uc
                .add_mem_hook(types, first, last, move |uc, ty, addr, _, _| {
                    watched_access(uc, addr as u32, ty == MemType::WRITE);
                    true
                })
                .map_err(engine("watchpoint hook"))?;
            self.debug.watchpoints.push(id);
        }
        // Loads and stores of blocks translated before take the fast path, which calls no hook.
        self.uc
            .ctl_flush_tb()
            .map_err(engine("flushing translations"))
    }

    /// After a debugger stop at `pc`: when the block `pc` is in was charged already, its rest runs
    /// without its block hook.
    pub(super) fn resume_after_stop(&mut self, pc: u32, place: StopPlace) {
        let st = self.uc.get_data_mut();
        let start = st.current_block;
        let charged = match place {
            StopPlace::Breakpoint => true,
            StopPlace::Watchpoint => pc > start && pc <= st.block_last,
            StopPlace::Step => pc >= start && pc <= st.block_last,
        };
        if charged {
            st.resume_in_block = Some(pc);
        }
        if place == StopPlace::Breakpoint {
            st.breakpoint_resume = Some(pc);
        }
    }

    /// The Unicorn register behind a debugger's register name (see `Core::debug_register`).
    pub(super) fn named_register(&self, name: &str) -> Option<RegisterARM> {
        let numbered = |prefix: &str| name.strip_prefix(prefix)?.parse::<usize>().ok();
        if let Some(n) = numbered("r").filter(|&n| n <= 12) {
            return Some(gp_register(n));
        }
        if let Some(n) = numbered("s").filter(|&n| n < 32 && self.fpu) {
            return Some(fp_register(n));
        }
        Some(match name {
            "sp" => RegisterARM::SP,
            "lr" => RegisterARM::LR,
            "pc" => RegisterARM::PC,
            "xpsr" => RegisterARM::XPSR,
            "msp" => RegisterARM::MSP,
            "psp" => RegisterARM::PSP,
            "primask" => RegisterARM::PRIMASK,
            "basepri" => RegisterARM::BASEPRI,
            "faultmask" => RegisterARM::FAULTMASK,
            "control" => RegisterARM::CONTROL,
            "fpscr" if self.fpu => RegisterARM::FPSCR,
            _ => return None,
        })
    }
}

/// Code hook of a breakpoint: stop before the instruction, unless the run resumes from it.
fn breakpoint_reached(uc: &mut Unicorn<State>, addr: u64, _size: u32) {
    let addr = addr as u32;
    let st = uc.get_data_mut();
    if st.breakpoint_resume.take() == Some(addr) || st.pending != Pending::None {
        return;
    }
    st.pending = Pending::Breakpoint { pc: addr };
    let _ = uc.reg_write(RegisterARM::PC, (addr | 1) as u64);
    let _ = uc.emu_stop();
}

/// Data hook of a watchpoint: the access completes, the run stops after it.
fn watched_access(uc: &mut Unicorn<State>, addr: u32, write: bool) {
    clear_stale_it_state(uc);
    let st = uc.get_data_mut();
    if st.pending == Pending::None {
        st.pending = Pending::Watch { addr, write };
        let _ = uc.emu_stop();
    }
}
