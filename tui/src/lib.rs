//! The terminal view of a run: live while the simulator works in the background, or replayed from a
//! recorded report. It reads only the report schema (tigris-traces).

mod app;
mod draw;
mod format;
mod snapshot;
#[cfg(test)]
mod tests;

use app::App;
use crossterm::event::{self, Event, KeyEventKind};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io;
use std::panic::{self, PanicHookInfo};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tigris_traces::Report;

/// What the simulation thread tells the view.
#[derive(Debug, Clone)]
pub enum Update {
    /// The run so far (its outcome is the `running` limit) and how the simulation goes.
    Progress { report: Box<Report>, status: Status },
    /// The run ended; the final report.
    Finished(Box<Report>),
    /// The simulator stopped with an error (not a firmware fault: those are in the report).
    Failed(String),
}

/// Live figures that are not part of a report (wall-clock based, so never written to one).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    /// Wall-clock seconds the run has been running (time paused left out).
    pub wall_seconds: f64,
    /// Simulated million instructions per wall-clock second of running, recently.
    pub mips: f64,
    /// The simulation waits for a command.
    pub paused: bool,
    /// Call stack now, outermost first, `;`-separated.
    pub current_stack: String,
}

/// What the view asks the simulation thread to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Pause,
    Resume,
    /// Run to the next TiGrIS tile (or stage) start, then pause.
    StepTile,
    StepStage,
    /// End the run now.
    Quit,
}

/// How long the view waits for a key before it looks at the updates again.
const POLL: Duration = Duration::from_millis(50);
/// How long a live view waits for the final report after asking the run to stop.
const QUIT_WAIT: Duration = Duration::from_secs(2);

/// Show a run live until the user quits; `updates` ends (disconnects) after `Finished` or `Failed`.
pub fn live(updates: Receiver<Update>, commands: Sender<Command>) -> io::Result<()> {
    run(&mut App::live(commands), Some(updates))
}

/// Replay a recorded run.
pub fn replay(report: Report) -> io::Result<()> {
    run(&mut App::replay(report), None)
}

/// The event loop: take the simulation's updates, redraw when something changed, apply keys.
fn run(app: &mut App, mut updates: Option<Receiver<Update>>) -> io::Result<()> {
    let session = TerminalSession::start()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let mut last_tick = Instant::now();
    let mut quit_deadline = None;
    let mut dirty = true;
    loop {
        if session.panicked() {
            return Err(io::Error::other("a panic ended the view"));
        }
        if let Some(receiver) = &updates {
            loop {
                match receiver.try_recv() {
                    Ok(update) => app.apply(update),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        app.disconnected();
                        updates = None;
                        break;
                    }
                }
                dirty = true;
            }
        }
        let now = Instant::now();
        app.advance(now - last_tick);
        last_tick = now;
        if app.quit {
            let deadline = *quit_deadline.get_or_insert(now + QUIT_WAIT);
            if app.should_exit() || now >= deadline {
                return Ok(());
            }
        }
        if dirty || app.is_playing() {
            terminal.draw(|frame| draw::draw(frame, app))?;
            dirty = false;
        }
        if event::poll(POLL)? {
            match event::read()? {
                Event::Key(key) if key.kind == KeyEventKind::Press => app.handle_key(key),
                // A resize needs only a redraw: drawing lays the screen out for the terminal's size.
                _ => {}
            }
            dirty = true;
        }
    }
}

/// Raw mode, the alternate screen and a hidden cursor while the view runs; the terminal as it was
/// afterwards, on an error and on a panic (the hook restores it before the panic message prints).
struct TerminalSession {
    /// Still to be restored.
    active: Arc<AtomicBool>,
    previous_hook: Option<Arc<PanicHook>>,
}

type PanicHook = dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static;

impl TerminalSession {
    fn start() -> io::Result<Self> {
        terminal::enable_raw_mode()?;
        let active = Arc::new(AtomicBool::new(true));
        let previous_hook: Arc<PanicHook> = Arc::from(panic::take_hook());
        let session = TerminalSession {
            active: active.clone(),
            previous_hook: Some(previous_hook.clone()),
        };
        panic::set_hook(Box::new(move |info| {
            restore(&active);
            previous_hook(info);
        }));
        execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)?;
        Ok(session)
    }

    /// A panic (in any thread) restored the terminal: the view cannot draw any more.
    fn panicked(&self) -> bool {
        !self.active.load(Ordering::SeqCst)
    }
}

impl Drop for TerminalSession {
    fn drop(&mut self) {
        restore(&self.active);
        if let Some(previous_hook) = self.previous_hook.take() {
            panic::set_hook(Box::new(move |info| previous_hook(info)));
        }
    }
}

/// Give the terminal back, once.
fn restore(active: &AtomicBool) {
    if active.swap(false, Ordering::SeqCst) {
        // Nothing better to do if the terminal refuses: the process is leaving the view anyway.
        let _ = terminal::disable_raw_mode();
        let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
    }
}
