//! Watching a run while it goes: the live TUI's side of the simulation thread, and the progress
//! line on stderr. Both are run monitors: they look, wait or stop, and never change the report.

use crate::machine::{Control, RunMonitor, Tick};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};
use tigris_traces::Report;
use tigris_tui::{Command, Status, Update};

/// Wall-clock time between two updates of a view.
const TUI_PERIOD: Duration = Duration::from_millis(100);
const PROGRESS_PERIOD: Duration = Duration::from_millis(250);
/// Runs shorter than this show no progress line (it would only flicker).
const PROGRESS_AFTER: Duration = Duration::from_millis(500);

/// Simulated MIPS between two looks at the run.
struct Speed {
    since: Instant,
    instructions: u64,
    mips: f64,
}

impl Speed {
    fn new() -> Self {
        Speed { since: Instant::now(), instructions: 0, mips: 0.0 }
    }

    fn update(&mut self, instructions: u64) -> f64 {
        let wall = self.since.elapsed().as_secs_f64();
        if wall > 0.0 {
            self.mips = (instructions - self.instructions) as f64 / wall / 1e6;
        }
        self.since = Instant::now();
        self.instructions = instructions;
        self.mips
    }
}

/// The simulation thread's end of the live TUI.
pub struct TuiMonitor {
    updates: Sender<Update>,
    commands: Receiver<Command>,
    started: Instant,
    last_sent: Option<Instant>,
    speed: Speed,
    /// Pause when an event of one of these kinds arrives.
    step_to: Option<&'static [&'static str]>,
    /// Pause at the next tick (`--paused`: the run waits for the view before it starts).
    pause_next: bool,
}

impl TuiMonitor {
    pub fn new(updates: Sender<Update>, commands: Receiver<Command>, start_paused: bool) -> Self {
        TuiMonitor {
            updates,
            commands,
            started: Instant::now(),
            last_sent: None,
            speed: Speed::new(),
            step_to: None,
            pause_next: start_paused,
        }
    }

    fn send(&mut self, at: &Tick, live: &mut dyn FnMut() -> Report, paused: bool) {
        let report = live();
        let status = Status {
            wall_seconds: self.started.elapsed().as_secs_f64(),
            mips: self.speed.update(at.instructions),
            paused,
            current_stack: report.timeline.as_ref().and_then(|t| t.samples.last()).map(|s| s.stack.clone()).unwrap_or_default(),
        };
        // A view that has gone away is not an error of the run.
        let _ = self.updates.send(Update::Progress { report: Box::new(report), status });
        self.last_sent = Some(Instant::now());
    }

    /// Apply a command; `None` means the run should stop.
    fn obey(&mut self, command: Command, paused: &mut bool) -> Option<()> {
        match command {
            Command::Pause => *paused = true,
            Command::Resume => *paused = false,
            Command::StepTile => {
                // A new stage also ends the tile before it (untiled stages have no TILE_BEGIN).
                self.step_to = Some(&["tile_begin", "stage_begin"]);
                *paused = false;
            }
            Command::StepStage => {
                self.step_to = Some(&["stage_begin"]);
                *paused = false;
            }
            Command::Quit => return None,
        }
        Some(())
    }
}

impl RunMonitor for TuiMonitor {
    fn tick(&mut self, at: &Tick, live: &mut dyn FnMut() -> Report) -> Control {
        let mut paused = std::mem::take(&mut self.pause_next);
        while let Ok(command) = self.commands.try_recv() {
            if self.obey(command, &mut paused).is_none() {
                return Control::Stop;
            }
        }
        if let (Some(kinds), Some(kind)) = (self.step_to, at.tigris_event) {
            if kinds.contains(&kind) {
                self.step_to = None;
                paused = true;
            }
        }
        while paused {
            self.send(at, live, true);
            // Wait for the view; a view that has gone away means stop.
            let Ok(command) = self.commands.recv() else { return Control::Stop };
            if self.obey(command, &mut paused).is_none() {
                return Control::Stop;
            }
        }
        if self.last_sent.is_none_or(|t| t.elapsed() >= TUI_PERIOD) {
            self.send(at, live, false);
        }
        Control::Continue
    }
}

/// Whether a progress line is on the terminal now, shared with the console writer so that the
/// firmware's output starts on a clean line.
#[derive(Clone, Default)]
pub struct ProgressLine(Arc<AtomicBool>);

impl ProgressLine {
    fn clear(&self) {
        if self.0.swap(false, Ordering::Relaxed) {
            eprint!("\r\x1b[K");
        }
    }
}

/// Cycles, simulated time and speed on stderr, redrawn in place.
pub struct ProgressMonitor {
    line: ProgressLine,
    clock_hz: u64,
    started: Instant,
    last_drawn: Instant,
    speed: Speed,
}

impl ProgressMonitor {
    pub fn new(line: ProgressLine, clock_hz: u64) -> Self {
        ProgressMonitor { line, clock_hz, started: Instant::now(), last_drawn: Instant::now(), speed: Speed::new() }
    }
}

impl RunMonitor for ProgressMonitor {
    fn tick(&mut self, at: &Tick, _live: &mut dyn FnMut() -> Report) -> Control {
        if self.started.elapsed() >= PROGRESS_AFTER && self.last_drawn.elapsed() >= PROGRESS_PERIOD {
            let mips = self.speed.update(at.instructions);
            let ms = at.cycles as f64 * 1e3 / self.clock_hz as f64;
            eprint!("\r\x1b[K  {:.1} M cycles, {ms:.3} ms simulated, {mips:.0} MIPS", at.cycles as f64 / 1e6);
            self.line.0.store(true, Ordering::Relaxed);
            self.last_drawn = Instant::now();
        }
        Control::Continue
    }
}

impl Drop for ProgressMonitor {
    fn drop(&mut self) {
        self.line.clear();
    }
}

/// Stdout for the firmware's console that first clears a progress line.
pub struct ConsoleOut(pub ProgressLine);

impl Write for ConsoleOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.clear();
        std::io::stdout().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stdout().flush()
    }
}
