//! The protocol thread's side: a `gdbstub` target that forwards every request to the stopped
//! simulation and waits for its answer.

use super::layout::Layout;
use super::{has_input, Link, MonitorCommand, Notice, Request};
use crate::machine::{DebugAction, DebugStop};
use gdbstub::arch::{Arch, RegId, Registers};
use gdbstub::common::Signal;
use gdbstub::common::Tid;
use gdbstub::conn::ConnectionExt;
use gdbstub::outputln;
use gdbstub::stub::run_blocking::{self, BlockingEventLoop, WaitForStopReasonError};
use gdbstub::stub::{DisconnectReason, GdbStub, MultiThreadStopReason};
use gdbstub::target::ext::base::multithread::{
    MultiThreadBase, MultiThreadResume, MultiThreadResumeOps, MultiThreadSchedulerLocking,
    MultiThreadSchedulerLockingOps, MultiThreadSingleStep, MultiThreadSingleStepOps,
};
use gdbstub::target::ext::base::single_register_access::{
    SingleRegisterAccess, SingleRegisterAccessOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps,
    SwBreakpoint, SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::monitor_cmd::{ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::ext::target_description_xml_override::{
    TargetDescriptionXmlOverride, TargetDescriptionXmlOverrideOps,
};
use gdbstub::target::{Target, TargetError, TargetResult};
use std::collections::BTreeMap;
use std::net::TcpStream;
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;
use tigris_cores::Watchpoint;

/// How often a running target looks at the connection for a Ctrl-C.
const INPUT_POLL: Duration = Duration::from_millis(20);

/// The simulator's architecture for `gdbstub`: registers travel as the bytes of the board's
/// layout (`Layout`), which the target description names.
pub enum SimArch {}

impl Arch for SimArch {
    type Usize = u32;
    type Registers = RawRegisters;
    type BreakpointKind = usize;
    type RegId = RawRegId;
}

/// A 'g' packet: bytes of the layout's registers in order (None: unavailable).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RawRegisters {
    pc: u32,
    bytes: Vec<Option<u8>>,
}

impl Registers for RawRegisters {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        self.bytes.iter().for_each(|b| write_byte(*b));
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        self.bytes = bytes.iter().copied().map(Some).collect();
        Ok(())
    }
}

/// A register by its number in the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRegId(usize);

impl RegId for RawRegId {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        Some((RawRegId(id), None))
    }
}

/// Which kind of breakpoint gdb set at an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BreakpointKind {
    Software,
    Hardware,
}

/// One client's view of the simulation, kept from client to client.
pub struct Session {
    layout: Layout,
    /// Cores shown as threads: thread 1 is the core the run follows, thread 2 a dual-core chip's
    /// second core.
    cores: usize,
    requests: Sender<Request>,
    notices: Receiver<Notice>,
    link: Link,
    breakpoints: BTreeMap<u32, BreakpointKind>,
    watchpoints: Vec<Watchpoint>,
    /// How the client resumed the target, to pass on when `gdbstub` waits for the stop.
    resume: Option<DebugAction>,
    running: bool,
}

/// Where the simulation went while a request waited.
const GONE: &str = "the simulation has ended";

impl Session {
    pub fn new(
        layout: Layout,
        cores: usize,
        requests: Sender<Request>,
        notices: Receiver<Notice>,
        link: Link,
    ) -> Self {
        Session {
            layout,
            cores,
            requests,
            notices,
            link,
            breakpoints: BTreeMap::new(),
            watchpoints: Vec::new(),
            resume: None,
            running: true,
        }
    }

    /// Serve one client on `stream`. `at_start`: the simulation waits for it before its first
    /// instruction; otherwise it runs and is stopped for it. True when the run ended meanwhile.
    pub fn attach(&mut self, stream: TcpStream, at_start: bool) -> Result<bool, String> {
        self.link.attached.store(true, Ordering::SeqCst);
        if !at_start {
            self.link.interrupt.store(true, Ordering::SeqCst);
        }
        if !self.wait_for_stop()? {
            self.link.attached.store(false, Ordering::SeqCst);
            return Ok(true);
        }
        let result = GdbStub::new(stream).run_blocking::<EventLoop>(self);
        let ended = match result {
            Ok(DisconnectReason::TargetExited(_) | DisconnectReason::TargetTerminated(_)) => {
                let _ = self.requests.send(Request::ExitSeen);
                true
            }
            Ok(DisconnectReason::Kill) => {
                let _ = self.requests.send(Request::Resume(DebugAction::End));
                true
            }
            Ok(DisconnectReason::Disconnect) => !self.release()?,
            Err(e) => {
                eprintln!("gdb: the connection failed: {e}");
                !self.release()?
            }
        };
        self.link.attached.store(false, Ordering::SeqCst);
        Ok(ended)
    }

    /// Wait until the simulation stops; false when it ended instead.
    fn wait_for_stop(&mut self) -> Result<bool, String> {
        loop {
            match self.notices.recv().map_err(|_| GONE.to_string())? {
                Notice::Stopped(_) => {
                    self.running = false;
                    return Ok(true);
                }
                Notice::Finished(_) => return Ok(false),
                _ => {}
            }
        }
    }

    /// The client has gone: take its breakpoints away and let the run go on. False when the run
    /// ended before it could be stopped.
    fn release(&mut self) -> Result<bool, String> {
        if self.running {
            self.link.interrupt.store(true, Ordering::SeqCst);
            if !self.wait_for_stop()? {
                return Ok(false);
            }
        }
        self.breakpoints.clear();
        self.watchpoints.clear();
        self.done(Request::SetBreakpoints(Vec::new()))?;
        self.done(Request::SetWatchpoints(Vec::new()))?;
        self.link.attached.store(false, Ordering::SeqCst);
        self.requests
            .send(Request::Resume(DebugAction::Continue))
            .map_err(|_| GONE.to_string())?;
        self.running = true;
        Ok(true)
    }

    /// Ask the stopped simulation and wait for its answer.
    fn ask(&mut self, request: Request) -> Result<Notice, String> {
        self.requests.send(request).map_err(|_| GONE.to_string())?;
        self.notices.recv().map_err(|_| GONE.to_string())
    }

    fn done(&mut self, request: Request) -> Result<(), String> {
        match self.ask(request)? {
            Notice::Done(result) => result,
            _ => Err("the simulation answered something else".into()),
        }
    }

    fn text(&mut self, request: Request) -> Result<String, String> {
        match self.ask(request)? {
            Notice::Text(t) => Ok(t),
            Notice::Done(Err(e)) => Err(e),
            Notice::Done(Ok(())) => Ok(String::new()),
            _ => Err("the simulation answered something else".into()),
        }
    }

    fn update_breakpoints(&mut self) -> Result<(), String> {
        let addrs = self.breakpoints.keys().copied().collect();
        self.done(Request::SetBreakpoints(addrs))
    }

    fn update_watchpoints(&mut self) -> Result<(), String> {
        let watches = self.watchpoints.clone();
        self.done(Request::SetWatchpoints(watches))
    }

    fn add_breakpoint(&mut self, addr: u32, kind: BreakpointKind) -> TargetResult<bool, Self> {
        // Thumb addresses may carry bit 0.
        self.breakpoints.insert(addr & !1, kind);
        self.update_breakpoints().map_err(TargetError::Fatal)?;
        Ok(true)
    }

    fn remove_breakpoint(&mut self, addr: u32) -> TargetResult<bool, Self> {
        let removed = self.breakpoints.remove(&(addr & !1)).is_some();
        self.update_breakpoints().map_err(TargetError::Fatal)?;
        Ok(removed)
    }

    /// The stop `gdbstub` reports for the simulation's: the core the run follows (thread 1) stops;
    /// a second core stops with it.
    fn stop_reason(&self, stop: DebugStop) -> MultiThreadStopReason<u32> {
        match stop {
            DebugStop::Start => MultiThreadStopReason::SignalWithThread {
                tid: FIRST_CORE,
                signal: Signal::SIGTRAP,
            },
            DebugStop::Step => MultiThreadStopReason::DoneStep,
            DebugStop::Breakpoint { pc } => match self.breakpoints.get(&pc) {
                Some(BreakpointKind::Hardware) => MultiThreadStopReason::HwBreak(FIRST_CORE),
                _ => MultiThreadStopReason::SwBreak(FIRST_CORE),
            },
            DebugStop::Watchpoint { addr, write } => {
                let watched = self
                    .watchpoints
                    .iter()
                    .find(|w| addr.wrapping_sub(w.addr) < w.len)
                    .map(|w| w.kind);
                let kind = match (watched, write) {
                    (Some(tigris_cores::WatchKind::Access), _) => WatchKind::ReadWrite,
                    (_, true) => WatchKind::Write,
                    (_, false) => WatchKind::Read,
                };
                MultiThreadStopReason::Watch {
                    tid: FIRST_CORE,
                    kind,
                    addr,
                }
            }
            DebugStop::Interrupted => MultiThreadStopReason::SignalWithThread {
                tid: FIRST_CORE,
                signal: Signal::SIGINT,
            },
        }
    }
}

/// Thread 1: the core the run follows.
const FIRST_CORE: Tid = Tid::MIN;

/// The core behind a thread: thread 1 is core 0.
fn core_of(tid: Tid) -> usize {
    tid.get() - 1
}

fn fatal<T>(e: String) -> TargetResult<T, Session> {
    Err(TargetError::Fatal(e))
}

impl Target for Session {
    type Arch = SimArch;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, SimArch, String> {
        BaseOps::MultiThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }

    fn support_target_description_xml_override(
        &mut self,
    ) -> Option<TargetDescriptionXmlOverrideOps<'_, Self>> {
        Some(self)
    }
}

impl MultiThreadBase for Session {
    fn read_registers(&mut self, regs: &mut RawRegisters, tid: Tid) -> TargetResult<(), Self> {
        let Notice::Registers(values) = self
            .ask(Request::ReadRegisters(core_of(tid)))
            .map_err(TargetError::Fatal)?
        else {
            return fatal("the simulation answered something else".into());
        };
        regs.pc = values
            .get(self.layout.pc_index())
            .copied()
            .flatten()
            .unwrap_or(0) as u32;
        regs.bytes = self
            .layout
            .regs
            .iter()
            .zip(&values)
            .flat_map(|(r, v)| {
                let bytes = v.map(u64::to_le_bytes);
                (0..r.bits as usize / 8).map(move |i| bytes.map(|b| b[i]))
            })
            .collect();
        Ok(())
    }

    fn write_registers(&mut self, regs: &RawRegisters, tid: Tid) -> TargetResult<(), Self> {
        // The second core's registers are shown, not written.
        if tid != FIRST_CORE {
            return Err(TargetError::NonFatal);
        }
        let mut bytes = regs.bytes.iter();
        let values = self
            .layout
            .regs
            .iter()
            .map(|r| {
                let mut v = [0u8; 8];
                for b in v.iter_mut().take(r.bits as usize / 8) {
                    *b = (*bytes.next()?)?;
                }
                Some(u64::from_le_bytes(v))
            })
            .collect();
        self.done(Request::WriteRegisters(values))
            .map_err(|_| TargetError::NonFatal)
    }

    fn support_single_register_access(&mut self) -> Option<SingleRegisterAccessOps<'_, Tid, Self>> {
        Some(self)
    }

    /// Memory is the chip's, the same from every core.
    fn read_addrs(&mut self, start: u32, data: &mut [u8], _: Tid) -> TargetResult<usize, Self> {
        match self.ask(Request::ReadMemory(start, data.len())) {
            Ok(Notice::Memory(bytes)) if !bytes.is_empty() => {
                data[..bytes.len()].copy_from_slice(&bytes);
                Ok(bytes.len())
            }
            Ok(_) => Err(TargetError::NonFatal),
            Err(e) => fatal(e),
        }
    }

    fn write_addrs(&mut self, start: u32, data: &[u8], _: Tid) -> TargetResult<(), Self> {
        self.done(Request::WriteMemory(start, data.to_vec()))
            .map_err(|_| TargetError::NonFatal)
    }

    fn list_active_threads(
        &mut self,
        thread_is_active: &mut dyn FnMut(Tid),
    ) -> Result<(), Self::Error> {
        (1..=self.cores)
            .filter_map(Tid::new)
            .for_each(thread_is_active);
        Ok(())
    }

    fn support_resume(&mut self) -> Option<MultiThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl SingleRegisterAccess<Tid> for Session {
    fn read_register(
        &mut self,
        tid: Tid,
        id: RawRegId,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        let Some(reg) = self.layout.regs.get(id.0) else {
            return Err(TargetError::NonFatal);
        };
        let size = reg.bits as usize / 8;
        let value = match self.ask(Request::ReadRegister(core_of(tid), id.0)) {
            // A register the core lacks reads as zero ('p' replies carry no size to mark it).
            Ok(Notice::Register(v)) => v.unwrap_or(0),
            Ok(_) => return Err(TargetError::NonFatal),
            Err(e) => return fatal(e),
        };
        let bytes = value.to_le_bytes();
        let out = buf.get_mut(..size).ok_or(TargetError::NonFatal)?;
        out.copy_from_slice(&bytes[..size]);
        Ok(size)
    }

    fn write_register(&mut self, tid: Tid, id: RawRegId, val: &[u8]) -> TargetResult<(), Self> {
        if tid != FIRST_CORE {
            return Err(TargetError::NonFatal);
        }
        let mut v = [0u8; 8];
        let n = val.len().min(8);
        v[..n].copy_from_slice(&val[..n]);
        self.done(Request::WriteRegister(id.0, u64::from_le_bytes(v)))
            .map_err(|_| TargetError::NonFatal)
    }
}

/// Both cores run and stop together (the simulation interleaves them), whichever thread gdb
/// resumes; a step steps the core the run follows, the second runs along.
impl MultiThreadResume for Session {
    fn resume(&mut self) -> Result<(), String> {
        if self.resume.is_none() {
            self.resume = Some(DebugAction::Continue);
        }
        Ok(())
    }

    fn clear_resume_actions(&mut self) -> Result<(), String> {
        self.resume = None;
        Ok(())
    }

    fn set_resume_action_continue(&mut self, _: Tid, _: Option<Signal>) -> Result<(), String> {
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<MultiThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    fn support_scheduler_locking(&mut self) -> Option<MultiThreadSchedulerLockingOps<'_, Self>> {
        Some(self)
    }
}

/// gdb locks the scheduler while it steps over a line (`next`): the second core still runs along,
/// as the simulation interleaves the cores (docs/debugging.md).
impl MultiThreadSchedulerLocking for Session {
    fn set_resume_action_scheduler_lock(&mut self) -> Result<(), String> {
        Ok(())
    }
}

impl MultiThreadSingleStep for Session {
    fn set_resume_action_step(&mut self, _: Tid, _: Option<Signal>) -> Result<(), String> {
        self.resume = Some(DebugAction::Step);
        Ok(())
    }
}

impl Breakpoints for Session {
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

/// Software breakpoints too are the core's own stops: nothing is written into the code.
impl SwBreakpoint for Session {
    fn add_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        self.add_breakpoint(addr, BreakpointKind::Software)
    }

    fn remove_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_breakpoint(addr)
    }
}

impl HwBreakpoint for Session {
    fn add_hw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        self.add_breakpoint(addr, BreakpointKind::Hardware)
    }

    fn remove_hw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        self.remove_breakpoint(addr)
    }
}

fn watch_kind(kind: WatchKind) -> tigris_cores::WatchKind {
    match kind {
        WatchKind::Write => tigris_cores::WatchKind::Write,
        WatchKind::Read => tigris_cores::WatchKind::Read,
        WatchKind::ReadWrite => tigris_cores::WatchKind::Access,
    }
}

impl HwWatchpoint for Session {
    fn add_hw_watchpoint(
        &mut self,
        addr: u32,
        len: u32,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        self.watchpoints.push(Watchpoint {
            addr,
            len,
            kind: watch_kind(kind),
        });
        self.update_watchpoints().map_err(TargetError::Fatal)?;
        Ok(true)
    }

    fn remove_hw_watchpoint(
        &mut self,
        addr: u32,
        len: u32,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        let gone = Watchpoint {
            addr,
            len,
            kind: watch_kind(kind),
        };
        let Some(i) = self.watchpoints.iter().position(|w| *w == gone) else {
            return Ok(false);
        };
        self.watchpoints.remove(i);
        self.update_watchpoints().map_err(TargetError::Fatal)?;
        Ok(true)
    }
}

const MONITOR_HELP: &str = "monitor commands:
  cycles   simulated cycles and instructions so far, and the PC
  report   the summary of the run so far (as printed at its end)
  reset    load the image again and restart at the entry (the counters go on)
  help     this list";

impl MonitorCmd for Session {
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), String> {
        let command = match String::from_utf8_lossy(cmd).trim() {
            "cycles" => MonitorCommand::Cycles,
            "report" => MonitorCommand::Report,
            "reset" => MonitorCommand::Reset,
            "help" | "" => {
                outputln!(out, "{MONITOR_HELP}");
                return Ok(());
            }
            other => {
                outputln!(out, "unknown monitor command `{other}`\n{MONITOR_HELP}");
                return Ok(());
            }
        };
        match self.text(Request::Monitor(command)) {
            Ok(text) if command == MonitorCommand::Reset => {
                outputln!(out, "{text}restarted at the entry");
            }
            Ok(text) => outputln!(out, "{}", text.trim_end()),
            Err(e) if e == GONE => return Err(e),
            Err(e) => outputln!(out, "monitor {}: {e}", String::from_utf8_lossy(cmd).trim()),
        }
        Ok(())
    }
}

impl TargetDescriptionXmlOverride for Session {
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::NonFatal);
        }
        let xml = self.layout.xml.as_bytes();
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(xml.len());
        let n = (xml.len() - start).min(length).min(buf.len());
        buf[..n].copy_from_slice(&xml[start..start + n]);
        Ok(n)
    }
}

/// Runs the simulation between the client's resume and the next stop, watching for Ctrl-C.
enum EventLoop {}

impl BlockingEventLoop for EventLoop {
    type Target = Session;
    type Connection = TcpStream;
    type StopReason = MultiThreadStopReason<u32>;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut Session,
        conn: &mut TcpStream,
    ) -> Result<
        run_blocking::Event<MultiThreadStopReason<u32>>,
        WaitForStopReasonError<String, std::io::Error>,
    > {
        if let Some(action) = target.resume.take() {
            target
                .requests
                .send(Request::Resume(action))
                .map_err(|_| WaitForStopReasonError::Target(GONE.to_string()))?;
            target.running = true;
        }
        loop {
            match target.notices.recv_timeout(INPUT_POLL) {
                Ok(Notice::Stopped(stop)) => {
                    target.running = false;
                    let reason = target.stop_reason(stop);
                    return Ok(run_blocking::Event::TargetStopped(reason));
                }
                Ok(Notice::Finished(code)) => {
                    target.running = false;
                    let exited = MultiThreadStopReason::Exited(code);
                    return Ok(run_blocking::Event::TargetStopped(exited));
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    if has_input(conn).map_err(WaitForStopReasonError::Connection)? {
                        let byte = ConnectionExt::read(conn)
                            .map_err(WaitForStopReasonError::Connection)?;
                        return Ok(run_blocking::Event::IncomingData(byte));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(WaitForStopReasonError::Target(GONE.to_string()))
                }
            }
        }
    }

    /// The simulation stops at its next look at the debugger and reports it as a SIGINT stop.
    fn on_interrupt(target: &mut Session) -> Result<Option<MultiThreadStopReason<u32>>, String> {
        target.link.interrupt.store(true, Ordering::SeqCst);
        Ok(None)
    }
}
