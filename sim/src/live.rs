//! Watching a run while it goes: the live TUI's side of the simulation thread, and the progress
//! line on stderr. Both are run monitors: they look, wait or stop, and never change the report.

use crate::machine::{Control, RunMonitor, Tick};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tigris_traces::Report;
use tigris_tui::{Command, Status, Update};

/// Wall-clock time between two updates of a view.
const TUI_PERIOD: Duration = Duration::from_millis(100);
const PROGRESS_PERIOD: Duration = Duration::from_millis(250);
/// Runs shorter than this show no progress line (it would only flicker).
const PROGRESS_AFTER: Duration = Duration::from_millis(500);

/// Least running time a speed is measured over: a step between two pauses can be a few
/// microseconds, too short for a rate that means anything.
const SPEED_WINDOW: Duration = Duration::from_millis(250);

/// Simulated MIPS over the latest stretch of at least `SPEED_WINDOW` of running time (wall-clock
/// time the run was not paused); until one has passed, since the start.
struct Speed {
    /// Running time and instructions where the current stretch began.
    since: Duration,
    instructions: u64,
    /// The rate over the latest full stretch.
    mips: Option<f64>,
}

impl Speed {
    fn new() -> Self {
        Speed {
            since: Duration::ZERO,
            instructions: 0,
            mips: None,
        }
    }

    fn update(&mut self, running: Duration, instructions: u64) -> f64 {
        let stretch = running.saturating_sub(self.since);
        let rate = if stretch.is_zero() {
            0.0
        } else {
            instructions.saturating_sub(self.instructions) as f64 / stretch.as_secs_f64() / 1e6
        };
        if stretch >= SPEED_WINDOW {
            self.mips = Some(rate);
            self.since = running;
            self.instructions = instructions;
        }
        self.mips.unwrap_or(rate)
    }
}

/// The simulation thread's end of the live TUI.
pub struct TuiMonitor {
    updates: Sender<Update>,
    commands: Receiver<Command>,
    started: Instant,
    /// Wall-clock time spent waiting for the view while paused: not part of the run's wall time.
    paused: Duration,
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
            paused: Duration::ZERO,
            last_sent: None,
            speed: Speed::new(),
            step_to: None,
            pause_next: start_paused,
        }
    }

    fn send(&mut self, at: &Tick, live: &mut dyn FnMut() -> Report, paused: bool) {
        let report = live();
        let running = self.started.elapsed().saturating_sub(self.paused);
        let status = Status {
            wall_seconds: running.as_secs_f64(),
            mips: self.speed.update(running, at.instructions),
            paused,
            current_stack: report
                .timeline
                .as_ref()
                .and_then(|t| t.samples.last())
                .map(|s| s.stack.clone())
                .unwrap_or_default(),
        };
        // A view that has gone away is not an error of the run.
        let _ = self.updates.send(Update::Progress {
            report: Box::new(report),
            status,
        });
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
            let waiting = Instant::now();
            let command = self.commands.recv();
            self.paused += waiting.elapsed();
            let Ok(command) = command else {
                return Control::Stop;
            };
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
        ProgressMonitor {
            line,
            clock_hz,
            started: Instant::now(),
            last_drawn: Instant::now(),
            speed: Speed::new(),
        }
    }
}

impl RunMonitor for ProgressMonitor {
    fn tick(&mut self, at: &Tick, _live: &mut dyn FnMut() -> Report) -> Control {
        if self.started.elapsed() >= PROGRESS_AFTER && self.last_drawn.elapsed() >= PROGRESS_PERIOD
        {
            let mips = self.speed.update(self.started.elapsed(), at.instructions);
            let ms = at.cycles as f64 * 1e3 / self.clock_hz as f64;
            eprint!(
                "\r\x1b[K  {:.1} M cycles, {ms:.3} ms simulated, {mips:.0} MIPS",
                at.cycles as f64 / 1e6
            );
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
/// The firmware's console, streamed to stdout, or to stderr (`true`) when stdout carries an
/// output such as `--report -`.
pub struct ConsoleOut(pub ProgressLine, pub bool);

impl Write for ConsoleOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.clear();
        if self.1 {
            std::io::stderr().write(buf)
        } else {
            std::io::stdout().write(buf)
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.1 {
            std::io::stderr().flush()
        } else {
            std::io::stdout().flush()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    fn tick(cycles: u64, event: Option<&'static str>) -> Tick {
        Tick {
            cycles,
            instructions: cycles,
            tigris_event: event,
        }
    }

    /// A report whose cycle count says which tick built it.
    fn snapshot(cycles: u64) -> impl FnMut() -> Report {
        move || {
            let mut r = crate::check::tests::sample();
            r.totals.cycles = cycles;
            r
        }
    }

    /// The newest update (a slow machine may see more periodic ones): (cycles, paused).
    fn newest(updates: &Receiver<Update>) -> (u64, bool) {
        match updates.try_iter().last() {
            Some(Update::Progress { report, status }) => (report.totals.cycles, status.paused),
            other => panic!("expected progress, got {other:?}"),
        }
    }

    #[test]
    fn stepping_pauses_at_the_next_tile_then_stage_and_quit_stops() {
        let (update_tx, updates) = channel();
        let (commands, command_rx) = channel();
        let mut monitor = TuiMonitor::new(update_tx, command_rx, false);
        assert_eq!(
            monitor.tick(&tick(1, None), &mut snapshot(1)),
            Control::Continue
        );
        assert_eq!(newest(&updates), (1, false), "the first tick shows the run");
        // The view: each time the run pauses, the next command of its script.
        let script_sender = commands.clone();
        let view = std::thread::spawn(move || {
            let mut script = [Command::StepStage, Command::Quit].into_iter();
            let mut paused_at = Vec::new();
            for update in updates {
                if let Update::Progress { report, status } = update {
                    if status.paused {
                        paused_at.push(report.totals.cycles);
                        if let Some(command) = script.next() {
                            script_sender.send(command).unwrap();
                        }
                    }
                }
            }
            paused_at
        });
        commands.send(Command::StepTile).unwrap();
        assert_eq!(
            monitor.tick(&tick(2, Some("op")), &mut snapshot(2)),
            Control::Continue,
            "an OP does not end a tile"
        );
        assert_eq!(
            monitor.tick(&tick(3, Some("tile_begin")), &mut snapshot(3)),
            Control::Continue
        );
        assert_eq!(
            monitor.tick(&tick(4, Some("tile_begin")), &mut snapshot(4)),
            Control::Continue,
            "stepping to a stage"
        );
        assert_eq!(
            monitor.tick(&tick(5, Some("stage_begin")), &mut snapshot(5)),
            Control::Stop
        );
        drop(monitor);
        assert_eq!(view.join().unwrap(), [3, 5]);
    }

    #[test]
    fn a_paused_start_waits_and_a_vanished_view_stops_the_run() {
        let (update_tx, updates) = channel();
        let (commands, command_rx) = channel();
        let mut monitor = TuiMonitor::new(update_tx, command_rx, true);
        // The view: resumes once it has seen the paused start.
        let view = std::thread::spawn(move || {
            let seen = match updates.recv().unwrap() {
                Update::Progress { status, .. } => status.paused,
                _ => false,
            };
            commands.send(Command::Resume).unwrap();
            (seen, commands)
        });
        assert_eq!(
            monitor.tick(&tick(1, None), &mut snapshot(1)),
            Control::Continue
        );
        let (seen_paused, commands) = view.join().unwrap();
        assert!(seen_paused, "the view saw the paused start");
        commands.send(Command::Pause).unwrap();
        drop(commands);
        assert_eq!(
            monitor.tick(&tick(2, None), &mut snapshot(2)),
            Control::Stop
        );
    }
    #[test]
    fn speed_is_measured_over_a_quarter_second_of_running_at_least() {
        let ms = Duration::from_millis;
        let mut speed = Speed::new();
        assert_eq!(speed.update(Duration::ZERO, 0), 0.0, "nothing ran yet");
        // Before a full window: the rate since the start.
        assert_eq!(speed.update(ms(10), 1_000_000), 100.0);
        assert_eq!(speed.update(ms(20), 3_000_000), 150.0);
        // A full window: its own rate, and the next window starts there.
        assert_eq!(speed.update(ms(250), 26_000_000), 104.0);
        // A short step between two pauses changes nothing.
        assert_eq!(speed.update(ms(260), 27_000_000), 104.0);
        assert_eq!(speed.update(ms(500), 38_500_000), 50.0);
    }

    #[test]
    fn time_paused_is_not_wall_time() {
        let (update_tx, updates) = channel();
        let (commands, command_rx) = channel();
        let mut monitor = TuiMonitor::new(update_tx, command_rx, true);
        const WAIT: Duration = Duration::from_millis(600);
        // The view: resumes a while after it has seen the paused start.
        let view = std::thread::spawn(move || {
            updates.recv().unwrap();
            std::thread::sleep(WAIT);
            commands.send(Command::Resume).unwrap();
            updates
        });
        monitor.tick(&tick(1, None), &mut snapshot(1));
        let updates = view.join().unwrap();
        // The resumed run reports at once: the last report is older than the view's period.
        match updates.try_iter().last() {
            Some(Update::Progress { status, .. }) => {
                assert!(!status.paused);
                assert!(status.wall_seconds < WAIT.as_secs_f64() / 2.0, "{status:?}");
            }
            other => panic!("expected progress, got {other:?}"),
        }
    }
}
