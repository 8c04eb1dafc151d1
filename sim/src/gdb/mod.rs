//! `--gdb`: a GDB remote serial protocol stub (the `gdbstub` crate) on a TCP port.
//!
//! The protocol runs on a thread of its own; the simulation stays where it runs and, whenever it
//! stops for the debugger (`machine::Debugger`), serves the protocol thread's requests on the
//! stopped core over a channel. So nothing of the machine crosses threads, and the run loop decides
//! alone where slices end. Breakpoints and watchpoints are the core's own stops (no BKPT written into
//! the code), so the code bytes and every cycle count stay as they are without the debugger.

mod layout;
mod target;

use crate::machine::{DebugAction, DebugEvent, DebugStop, Debugger};
use anyhow::{Context, Result};
use layout::Layout;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;
use tigris_cores::{Core, Watchpoint};

/// How long the end of a run waits for the debugger to be told of it.
const EXIT_NOTICE_WAIT: Duration = Duration::from_secs(5);

/// What the protocol thread asks of the stopped simulation.
enum Request {
    /// The registers of a core (0: the one the run follows; 1: a dual-core chip's second core).
    ReadRegisters(usize),
    /// A register of a core by its index in the layout.
    ReadRegister(usize, usize),
    /// Writes go to the core the run follows.
    WriteRegisters(Vec<Option<u64>>),
    WriteRegister(usize, u64),
    ReadMemory(u32, usize),
    WriteMemory(u32, Vec<u8>),
    SetBreakpoints(Vec<u32>),
    SetWatchpoints(Vec<Watchpoint>),
    /// `monitor cycles`, `monitor report`, `monitor reset`.
    Monitor(MonitorCommand),
    Resume(DebugAction),
    /// The debugger has been told the run ended.
    ExitSeen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MonitorCommand {
    Cycles,
    Report,
    Reset,
}

/// What the simulation tells the protocol thread.
enum Notice {
    Stopped(DebugStop),
    Finished(u8),
    Registers(Vec<Option<u64>>),
    Register(Option<u64>),
    /// Bytes read from the start of a memory request (fewer where memory ends).
    Memory(Vec<u8>),
    Done(Result<(), String>),
    Text(String),
}

/// `--gdb [ADDR:]PORT`: the address to listen on (default address 127.0.0.1).
pub fn parse_address(s: &str) -> Result<SocketAddr, String> {
    let full = match s.rsplit_once(':') {
        Some(("", port)) => format!("127.0.0.1:{port}"),
        Some(_) => s.to_string(),
        None => format!("127.0.0.1:{s}"),
    };
    full.parse().map_err(|_| {
        format!("`{s}` is not an address to listen on (PORT, :PORT or ADDRESS:PORT, e.g. :3333 or 0.0.0.0:3333)")
    })
}

/// Listen on `address`, say so on stderr, and return the simulation's end of the debugger.
/// `wait`: the run waits for a debugger before its first instruction; otherwise it runs and one
/// attaches whenever it connects.
pub fn listen(
    address: SocketAddr,
    wait: bool,
    board: &tigris_targets::Board,
) -> Result<Box<dyn Debugger + Send>> {
    let listener = TcpListener::bind(address)
        .with_context(|| format!("--gdb {address}: cannot listen there"))?;
    let bound = listener
        .local_addr()
        .context("--gdb: the listening address")?;
    let what = if wait {
        "waiting for"
    } else {
        "running; listening for"
    };
    eprintln!("gdb: {what} a debugger on {bound}");
    let (requests, requests_rx) = channel();
    let (notices, notices_rx) = channel();
    let link = Link {
        interrupt: Arc::new(AtomicBool::new(false)),
        attached: Arc::new(AtomicBool::new(false)),
    };
    let cores = 1 + usize::from(board.second_core.is_some());
    let protocol =
        target::Session::new(Layout::of(board), cores, requests, notices_rx, link.clone());
    std::thread::spawn(move || serve_clients(listener, protocol, wait));
    Ok(Box::new(SimulationEnd {
        layout: Layout::of(board),
        requests: requests_rx,
        notices,
        link,
        wait,
    }))
}

/// Flags both ends share.
#[derive(Clone)]
struct Link {
    /// The debugger asks for a stop (Ctrl-C, or a client attaching to a running simulation).
    interrupt: Arc<AtomicBool>,
    /// A client is connected.
    attached: Arc<AtomicBool>,
}

/// Accept one client after another until the simulation ends.
fn serve_clients(listener: TcpListener, mut session: target::Session, wait: bool) {
    let mut first = true;
    loop {
        let Ok((stream, peer)) = listener.accept() else {
            return;
        };
        eprintln!("gdb: debugger attached from {peer}");
        let ended = match session.attach(stream, wait && first) {
            Ok(ended) => ended,
            Err(e) => {
                eprintln!("gdb: {e}");
                false
            }
        };
        first = false;
        if ended {
            return;
        }
        eprintln!("gdb: debugger detached; the run goes on");
    }
}

/// The simulation's end: serves requests while the run is stopped.
struct SimulationEnd {
    layout: Layout,
    requests: Receiver<Request>,
    notices: Sender<Notice>,
    link: Link,
    wait: bool,
}

impl SimulationEnd {
    fn send(&self, notice: Notice) {
        // The protocol thread gone (it only ends with the process): nothing to tell.
        let _ = self.notices.send(notice);
    }

    /// Answer requests until one resumes the run or needs the run loop.
    fn serve(&mut self, core: &mut dyn Core) -> DebugAction {
        loop {
            let Ok(request) = self.requests.recv() else {
                return DebugAction::Continue;
            };
            let notice = match request {
                Request::ReadRegisters(which) => Notice::Registers(
                    (0..self.layout.regs.len())
                        .map(|i| self.layout.read(core, which, i))
                        .collect(),
                ),
                Request::ReadRegister(which, i) => {
                    Notice::Register(self.layout.read(core, which, i))
                }
                Request::WriteRegisters(values) => Notice::Done(
                    values
                        .iter()
                        .enumerate()
                        .filter_map(|(i, v)| Some((i, (*v)?)))
                        .try_for_each(|(i, v)| self.layout.write(core, i, v)),
                ),
                Request::WriteRegister(i, v) => Notice::Done(self.layout.write(core, i, v)),
                Request::ReadMemory(addr, len) => Notice::Memory(read_memory(core, addr, len)),
                Request::WriteMemory(addr, bytes) => {
                    Notice::Done(core.write_memory(addr, &bytes).map_err(|e| e.to_string()))
                }
                Request::SetBreakpoints(addrs) => {
                    Notice::Done(core.set_breakpoints(&addrs).map_err(|e| e.to_string()))
                }
                Request::SetWatchpoints(watches) => {
                    Notice::Done(core.set_watchpoints(&watches).map_err(|e| e.to_string()))
                }
                Request::Monitor(MonitorCommand::Cycles) => Notice::Text(format!(
                    "cycles: {}\ninstructions: {}\npc: 0x{:08x}\n",
                    core.cycles(),
                    core.instructions(),
                    core.pc()
                )),
                Request::Monitor(MonitorCommand::Report) => return DebugAction::Report,
                Request::Monitor(MonitorCommand::Reset) => return DebugAction::Restart,
                Request::Resume(action) => return action,
                Request::ExitSeen => continue,
            };
            self.send(notice);
        }
    }
}

/// `len` bytes from `addr`, or as many as are readable from its start.
fn read_memory(core: &dyn Core, addr: u32, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    if core.read_memory(addr, &mut buf).is_ok() {
        return buf;
    }
    let readable = (0..len)
        .take_while(|&i| {
            let at = addr.wrapping_add(i as u32);
            core.read_memory(at, &mut buf[i..i + 1]).is_ok()
        })
        .count();
    buf.truncate(readable);
    buf
}

impl Debugger for SimulationEnd {
    fn stopped(&mut self, event: DebugEvent, core: &mut dyn Core) -> DebugAction {
        match event {
            DebugEvent::Stopped(DebugStop::Start) if !self.wait => return DebugAction::Continue,
            // A stop asked for by a client that has gone since: nobody to tell.
            DebugEvent::Stopped(_) if !self.link.attached.load(Ordering::SeqCst) && !self.wait => {
                return DebugAction::Continue
            }
            DebugEvent::Stopped(stop) => self.send(Notice::Stopped(stop)),
            DebugEvent::Report(report) => {
                self.send(Notice::Text(crate::summary::text(&report, 10)))
            }
            DebugEvent::Restarted(result) => self.send(Notice::Done(result)),
        }
        // Only the first client is waited for.
        self.wait = false;
        self.serve(core)
    }

    fn wants_stop(&mut self) -> bool {
        self.link.interrupt.swap(false, Ordering::SeqCst)
    }

    fn finished(&mut self, exit_code: u8) {
        if !self.link.attached.load(Ordering::SeqCst) {
            return;
        }
        self.send(Notice::Finished(exit_code));
        // The process must not end before the debugger has heard of it.
        let deadline = std::time::Instant::now() + EXIT_NOTICE_WAIT;
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.requests.recv_timeout(left) {
                Ok(Request::ExitSeen)
                | Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
                Ok(_) => self.send(Notice::Done(Err("the run has ended".into()))),
            }
        }
    }
}

/// Whether `stream` has a byte to read now (Ctrl-C while the target runs), without blocking.
fn has_input(stream: &TcpStream) -> std::io::Result<bool> {
    stream.set_nonblocking(true)?;
    let peeked = stream.peek(&mut [0u8]);
    stream.set_nonblocking(false)?;
    match peeked {
        Ok(0) => Err(std::io::ErrorKind::UnexpectedEof.into()),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_default_to_the_loopback() {
        assert_eq!(
            parse_address(":3333").unwrap().to_string(),
            "127.0.0.1:3333"
        );
        assert_eq!(parse_address("3333").unwrap().to_string(), "127.0.0.1:3333");
        assert_eq!(
            parse_address("0.0.0.0:1234").unwrap().to_string(),
            "0.0.0.0:1234"
        );
        assert!(parse_address("host:port").is_err());
        assert!(parse_address(":99999").is_err());
    }
}
