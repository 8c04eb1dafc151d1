//! Debugger support (`--gdb`) of the Xtensa backend: breakpoints share the ISS's breakpoint set
//! with the emulation traps (a trap wins where both sit), watchpoints are the memory system's stop
//! watches, which end the run at the next block boundary, and registers are named as in the Xtensa
//! ISA Reference Manual's special and user register tables (S2 libisa numbers).

use super::backend::XtensaBackend;
use crate::{CoreError, Stop, WatchKind, Watchpoint};
use tigris_memmodels::StopWatch;

/// Special registers by name: (name, RSR/WSR number) (S2 libisa).
const SPECIAL_REGISTERS: &[(&str, u32)] = &[
    ("lbeg", 0),
    ("lend", 1),
    ("lcount", 2),
    ("sar", 3),
    ("br", 4),
    ("litbase", 5),
    ("scompare1", 12),
    ("acclo", 16),
    ("acchi", 17),
    ("m0", 32),
    ("m1", 33),
    ("m2", 34),
    ("m3", 35),
    ("windowbase", 72),
    ("windowstart", 73),
    ("configid0", 176),
    ("configid1", 208),
    ("ps", 230),
    ("vecbase", 231),
    ("exccause", 232),
    ("debugcause", 233),
    ("ccount", 234),
    ("prid", 235),
    ("excvaddr", 238),
];

/// User registers by name: (name, RUR/WUR number) (S2 libisa).
const USER_REGISTERS: &[(&str, u32)] = &[("threadptr", 231), ("fcr", 232), ("fsr", 233)];

/// A register a debugger names, as the ISS holds it.
enum Named {
    Pc,
    /// a<n> counted from the current window (n < 64: beyond a15 the rest of the physical file).
    Address(u32),
    Float(usize),
    Special(u32),
    User(u32),
}

fn named(name: &str) -> Option<Named> {
    let numbered = |prefix: &str| name.strip_prefix(prefix)?.parse::<u32>().ok();
    if name == "pc" {
        return Some(Named::Pc);
    }
    if let Some(n) = numbered("a").filter(|&n| n < 64) {
        return Some(Named::Address(n));
    }
    if let Some(n) = numbered("f").filter(|&n| n < 16) {
        return Some(Named::Float(n as usize));
    }
    let find = |table: &[(&str, u32)]| table.iter().find(|(n, _)| *n == name).map(|r| r.1);
    find(SPECIAL_REGISTERS)
        .map(Named::Special)
        .or_else(|| find(USER_REGISTERS).map(Named::User))
}

/// The register a debugger names, of `cpu`.
fn register_of(cpu: &super::cpu::Cpu, name: &str) -> Option<u32> {
    Some(match named(name)? {
        Named::Pc => cpu.pc,
        Named::Address(n) if n < 16 || cpu.cfg.windowed => cpu.ar(n),
        Named::Address(_) => return None,
        Named::Float(n) => cpu.fr[n],
        Named::Special(sr) => cpu.read_sr(sr),
        Named::User(ur) => cpu.read_ur(ur),
    })
}

impl XtensaBackend {
    pub(super) fn debug_register_value(&self, name: &str) -> Option<u32> {
        register_of(&self.iss.cpu, name)
    }

    /// A register of core `core` (0: the one this backend runs first, 1: the second core).
    pub(super) fn core_register_value(&self, core: usize, name: &str) -> Option<u32> {
        match core {
            0 => self.debug_register_value(name),
            1 => register_of(&self.second_cpu()?.cpu, name),
            _ => None,
        }
    }

    pub(super) fn write_debug_register(&mut self, name: &str, value: u32) -> Result<(), CoreError> {
        let unknown = || CoreError::Engine(format!("no register `{name}` on this core"));
        let cpu = &mut self.iss.cpu;
        match named(name).ok_or_else(unknown)? {
            Named::Pc => cpu.pc = value,
            Named::Address(n) if n < 16 || cpu.cfg.windowed => cpu.set_ar(n, value),
            Named::Address(_) => return Err(unknown()),
            Named::Float(n) => cpu.fr[n] = value,
            Named::Special(sr) => cpu.write_sr(sr, value),
            Named::User(ur) => cpu.write_ur(ur, value),
        }
        Ok(())
    }

    /// Make the ISS stop at the traps and the debugger's breakpoints, and nowhere else.
    pub(super) fn replace_breakpoints(&mut self, addrs: &[u32]) {
        let old = std::mem::take(&mut self.debug_breakpoints);
        for a in old.iter().filter(|a| !self.traps.contains(a)) {
            self.iss.remove_breakpoint(*a);
        }
        for &a in addrs {
            self.iss.add_breakpoint(a);
            self.debug_breakpoints.insert(a);
        }
    }

    pub(super) fn replace_watchpoints(&mut self, watches: &[Watchpoint]) {
        let stops: Vec<StopWatch> = watches
            .iter()
            .map(|w| StopWatch {
                start: w.addr,
                len: w.len,
                reads: w.kind != WatchKind::Write,
                writes: w.kind != WatchKind::Read,
            })
            .collect();
        self.bus.mem.set_stop_watches(&stops);
    }

    /// The stop for an ISS breakpoint at `pc`: the emulation's trap, or the debugger's.
    pub(super) fn breakpoint_stop(&self, pc: u32) -> Stop {
        match self.traps.contains(&pc) || !self.debug_breakpoints.contains(&pc) {
            true => Stop::Trap { pc },
            false => Stop::Breakpoint { pc },
        }
    }

    /// The stop for a bus request: a watchpoint's, if one saw an access.
    pub(super) fn watchpoint_stop(&mut self) -> Option<Stop> {
        let hit = self.bus.mem.take_stop_hit()?;
        Some(Stop::Watchpoint {
            pc: self.iss.cpu.pc,
            addr: hit.addr,
            write: hit.write,
        })
    }
}
