//! The view's state: the report, the live run or the replay cursor, and what the user looks at
//! (zoom, scroll, selection, help). Keys and updates change it; drawing only reads it.

use crate::snapshot::{Item, Snapshot};
use crate::{Command, Status, Update};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::mpsc::Sender;
use std::time::Duration;
use tigris_traces::Report;

/// Zoom levels halve the window each; 2^16 keeps a few hundred cycles on screen for long runs.
const MAX_ZOOM: u32 = 16;
/// A playing replay crosses the timeline's window in this many wall-clock seconds.
const PLAY_SECONDS_PER_WINDOW: f64 = 10.0;

pub struct App {
    /// The live run so far (`None` until the first update), or the recorded run.
    pub report: Option<Report>,
    pub mode: Mode,
    pub view: View,
    pub help: bool,
    /// The user asked to leave.
    pub quit: bool,
}

pub enum Mode {
    Live(Live),
    Replay(Replay),
}

pub struct Live {
    commands: Sender<Command>,
    pub run: Run,
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    Running,
    Finished,
    Failed(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replay {
    /// The cycle the run is shown at.
    pub cursor: u64,
    pub playing: bool,
}

/// The stretch of the run the timeline shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: u64,
    pub span: u64,
}

/// What the user looks at on the timeline.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct View {
    /// The window is the run's extent divided by 2^zoom.
    pub zoom: u32,
    /// Start of a window the user scrolled into the past; `None` follows the shown cycle (the run's end
    /// live, the cursor in replay) at the window's right edge.
    pub pinned_start: Option<u64>,
    pub selected: Option<Item>,
    /// Live, the window stops following the run where the selection would leave it: set by
    /// selecting, cleared when the user scrolls (then the user chose what to look at).
    pub keep_selected: bool,
    /// The tensor view shown in place of the hot functions (`v`), by its index in the report.
    pub tensor_view: Option<usize>,
}

impl View {
    pub fn window(&self, snapshot: &Snapshot) -> Window {
        let (first, end) = snapshot.extent();
        let span = ((end - first) >> self.zoom).max(1);
        let start = self
            .pinned_start
            .unwrap_or_else(|| snapshot.cursor.saturating_sub(span));
        Window {
            start: start.clamp(first, end - span),
            span,
        }
    }

    /// Start the window at `start` if that stays in the past; a window that reaches the shown cycle
    /// (or starts after it) follows it instead.
    fn pin(&mut self, snapshot: &Snapshot, start: u64) {
        self.pinned_start = Some(start);
        let window = self.window(snapshot);
        if window.start + window.span >= snapshot.cursor {
            self.pinned_start = None;
        }
    }

    /// The user moves the window: to `start`, or (`None`) to follow the shown cycle. From then on
    /// the window stays where the user put it, selection or not.
    fn move_to(&mut self, snapshot: &Snapshot, start: Option<u64>) {
        self.keep_selected = false;
        match start {
            Some(start) => self.pin(snapshot, start),
            None => self.pinned_start = None,
        }
    }

    /// Keep the current window if it lies before the shown cycle, else follow it.
    fn settle(&mut self, snapshot: &Snapshot) {
        if let Some(start) = self.pinned_start {
            self.pin(snapshot, start);
        }
    }

    /// Stop following the run where the selection's start would leave the window at the left (a
    /// pinned window stays where it is).
    fn keep_selection(&mut self, snapshot: &Snapshot) {
        let following = self.keep_selected && self.pinned_start.is_none();
        let selected = self.selected.filter(|_| following);
        let Some((start, _)) = selected.and_then(|item| snapshot.span(item)) else {
            return;
        };
        if start < self.window(snapshot).start {
            self.pin(snapshot, start);
        }
    }

    fn scroll(&mut self, snapshot: &Snapshot, forward: bool) {
        let window = self.window(snapshot);
        let step = (window.span / 4).max(1);
        let start = if forward {
            window.start.saturating_add(step)
        } else {
            window.start.saturating_sub(step)
        };
        self.move_to(snapshot, Some(start));
    }

    /// Zoom around the selection, or the middle of a window scrolled into the past; a following
    /// window keeps following.
    fn zoom(&mut self, snapshot: &Snapshot, zoom_in: bool) {
        let old = self.window(snapshot);
        self.zoom = if zoom_in {
            (self.zoom + 1).min(MAX_ZOOM)
        } else {
            self.zoom.saturating_sub(1)
        };
        let selected_middle = self
            .selected
            .and_then(|item| snapshot.span(item))
            .map(|(s, e)| s + (e - s) / 2);
        let centre = match (selected_middle, self.pinned_start) {
            (Some(middle), _) => middle,
            (None, Some(_)) => old.start + old.span / 2,
            (None, None) => return,
        };
        let span = self.window(snapshot).span;
        self.pin(snapshot, centre.saturating_sub(span / 2));
    }

    /// Select the next (`step` 1) or previous (-1) item, wrapping; the first or last when none is.
    fn select(&mut self, snapshot: &Snapshot, step: isize) {
        let items = snapshot.items();
        if items.is_empty() {
            return;
        }
        let count = items.len() as isize;
        let position = self
            .selected
            .and_then(|selected| items.iter().position(|&item| item == selected));
        let next = match position {
            Some(position) => (position as isize + step).rem_euclid(count),
            None if step > 0 => 0,
            None => count - 1,
        };
        self.show(snapshot, items[next as usize]);
    }

    /// Select `item` and scroll so that it is on screen.
    fn show(&mut self, snapshot: &Snapshot, item: Item) {
        self.selected = Some(item);
        self.keep_selected = true;
        let window = self.window(snapshot);
        if let Some((start, end)) = snapshot.span(item) {
            if start < window.start || end > window.start + window.span {
                let middle = start + (end - start) / 2;
                self.pin(snapshot, middle.saturating_sub(window.span / 2));
            }
        }
    }
}

impl App {
    pub fn live(commands: Sender<Command>) -> Self {
        let live = Live {
            commands,
            run: Run::Running,
            status: Status::default(),
        };
        App {
            report: None,
            mode: Mode::Live(live),
            view: View::default(),
            help: false,
            quit: false,
        }
    }

    /// A replay starts at the end: the whole run at once.
    pub fn replay(report: Report) -> Self {
        let replay = Replay {
            cursor: report.totals.cycles,
            playing: false,
        };
        App {
            report: Some(report),
            mode: Mode::Replay(replay),
            view: View::default(),
            help: false,
            quit: false,
        }
    }

    pub fn snapshot(&self) -> Option<Snapshot<'_>> {
        Some(snapshot_of(self.report.as_ref()?, &self.mode))
    }

    pub fn apply(&mut self, update: Update) {
        let Mode::Live(live) = &mut self.mode else {
            return;
        };
        match update {
            Update::Progress { report, status } if live.run == Run::Running => {
                self.report = Some(*report);
                live.status = status;
            }
            // A late progress report never replaces the final one.
            Update::Progress { .. } => {}
            Update::Finished(report) => {
                self.report = Some(*report);
                live.run = Run::Finished;
                live.status.paused = false;
            }
            Update::Failed(message) => live.run = Run::Failed(message),
        }
        if let Some(report) = &self.report {
            let snapshot = snapshot_of(report, &self.mode);
            self.view.settle(&snapshot);
            // The run's end moves on by itself; the selection stays in view until the user scrolls.
            self.view.keep_selection(&snapshot);
        }
    }

    /// The simulation thread dropped its end of the channel.
    pub fn disconnected(&mut self) {
        if let Mode::Live(live) = &mut self.mode {
            if live.run == Run::Running {
                live.run = Run::Failed("the simulation ended without a final report".into());
            }
        }
    }

    /// Whether the view can close now: the user asked to, and a live run has ended.
    pub fn should_exit(&self) -> bool {
        self.quit && !matches!(&self.mode, Mode::Live(live) if live.run == Run::Running)
    }

    pub fn is_playing(&self) -> bool {
        matches!(self.mode, Mode::Replay(Replay { playing: true, .. }))
    }

    /// Move a playing replay's cursor on by `elapsed` wall-clock time.
    pub fn advance(&mut self, elapsed: Duration) {
        let (Mode::Replay(replay), Some(report)) = (&mut self.mode, &self.report) else {
            return;
        };
        if !replay.playing {
            return;
        }
        let span = self
            .view
            .window(&Snapshot {
                report,
                cursor: replay.cursor,
            })
            .span;
        let step = (span as f64 * elapsed.as_secs_f64() / PLAY_SECONDS_PER_WINDOW) as u64;
        let cursor = replay
            .cursor
            .saturating_add(step.max(1))
            .min(report.totals.cycles);
        replay.playing = cursor < report.totals.cycles;
        replay.cursor = cursor;
        self.view.settle(&Snapshot { report, cursor });
    }

    pub fn handle_key(&mut self, key: KeyEvent) {
        let interrupt =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            _ if interrupt => self.request_quit(),
            KeyCode::Char('q') => self.request_quit(),
            KeyCode::Esc if self.help => self.help = false,
            KeyCode::Esc => self.request_quit(),
            KeyCode::Char('?') => self.help = !self.help,
            code => self.handle_view_key(code),
        }
    }

    fn request_quit(&mut self) {
        if let Mode::Live(live) = &self.mode {
            if live.run == Run::Running && !self.quit {
                // The run answers with its final report; a thread already gone has nothing to stop.
                let _ = live.commands.send(Command::Quit);
            }
        }
        self.quit = true;
    }

    fn handle_view_key(&mut self, code: KeyCode) {
        let Some(report) = &self.report else { return };
        let snapshot = snapshot_of(report, &self.mode);
        let view = &mut self.view;
        match code {
            KeyCode::Char('+') | KeyCode::Char('=') => view.zoom(&snapshot, true),
            KeyCode::Char('-') => view.zoom(&snapshot, false),
            KeyCode::Left => view.scroll(&snapshot, false),
            KeyCode::Right => view.scroll(&snapshot, true),
            KeyCode::Down | KeyCode::Tab => view.select(&snapshot, 1),
            KeyCode::Up | KeyCode::BackTab => view.select(&snapshot, -1),
            KeyCode::Char('v') => {
                // The hot functions, then each view in turn, then the hot functions again.
                let next = view.tensor_view.map_or(0, |k| k + 1);
                view.tensor_view = (next < report.views.len()).then_some(next);
            }
            _ => match &mut self.mode {
                Mode::Live(live) => live_key(live, view, &snapshot, code),
                Mode::Replay(replay) => replay_key(replay, view, report, code),
            },
        }
    }
}

fn snapshot_of<'a>(report: &'a Report, mode: &Mode) -> Snapshot<'a> {
    match mode {
        Mode::Live(_) => Snapshot::at_end(report),
        Mode::Replay(replay) => Snapshot {
            report,
            cursor: replay.cursor,
        },
    }
}

/// Keys that drive the simulation.
fn live_key(live: &Live, view: &mut View, snapshot: &Snapshot, code: KeyCode) {
    let command = match code {
        KeyCode::Char(' ') if live.status.paused => Command::Resume,
        KeyCode::Char(' ') => Command::Pause,
        KeyCode::Char('n') => Command::StepTile,
        KeyCode::Char('N') | KeyCode::Char('s') => Command::StepStage,
        KeyCode::Home => return view.move_to(snapshot, Some(0)),
        KeyCode::End => return view.move_to(snapshot, None),
        _ => return,
    };
    if live.run == Run::Running {
        // A thread already gone shows as a failed run when the channel reports it.
        let _ = live.commands.send(command);
    }
}

/// Keys that move the replay cursor.
fn replay_key(replay: &mut Replay, view: &mut View, report: &Report, code: KeyCode) {
    let end = report.totals.cycles;
    let snapshot = Snapshot {
        report,
        cursor: replay.cursor,
    };
    let (cursor, select) = match code {
        KeyCode::Char(' ') => {
            replay.playing = !replay.playing;
            // Playing from the end starts over.
            (
                if replay.playing && replay.cursor >= end {
                    0
                } else {
                    replay.cursor
                },
                false,
            )
        }
        KeyCode::Char('n') => (
            snapshot.next_start(true, false).unwrap_or(replay.cursor),
            true,
        ),
        KeyCode::Char('p') => (snapshot.next_start(false, false).unwrap_or(0), true),
        KeyCode::Char('N') | KeyCode::Char('s') => (
            snapshot.next_start(true, true).unwrap_or(replay.cursor),
            true,
        ),
        KeyCode::Char('P') => (snapshot.next_start(false, true).unwrap_or(0), true),
        KeyCode::Home => (0, false),
        KeyCode::End => (end, false),
        _ => return,
    };
    replay.cursor = cursor.min(end);
    if select {
        replay.playing = false;
    }
    let moved = Snapshot {
        report,
        cursor: replay.cursor,
    };
    view.settle(&moved);
    // A jump to a tile or stage selects it, so its figures show.
    if let Some(item) = moved.items().last().filter(|_| select) {
        view.show(&moved, *item);
    }
}
