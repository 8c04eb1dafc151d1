//! Drawing the screen from the app's state; nothing here changes it.

use crate::app::{App, Mode, Run, Window};
use crate::format::{axis_ticks, bytes, frequency, percent, thousands, time};
use crate::snapshot::{BudgetSource, Item, Snapshot};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Gauge, Paragraph, Row, Sparkline, Table, Widget, Wrap};
use ratatui::Frame;
use std::cmp::Reverse;
use std::ops::Range;
use tigris_traces::{Limit, Outcome, Report, TensorViewProfile, TigrisFigures};
use unicode_width::UnicodeWidthChar;

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

/// Rows of the panel band under the timeline (gauge, traffic, selection) and least rows of the
/// bottom band (hot functions, console).
const MIDDLE_HEIGHT: u16 = 9;
const BOTTOM_MIN_HEIGHT: u16 = 6;
/// Width of the row labels left of the timeline (`S12 tiled_2d`).
const LABEL_WIDTH: u16 = 13;
/// Most lines of one stage row of the timeline (fewer when many stages share the panel).
const MAX_STAGE_HEIGHT: usize = 3;
/// Columns between two time-axis ticks, at least.
const TICK_SPACING: u16 = 16;

const SELECTED: Style = Style::new()
    .fg(Color::Black)
    .bg(Color::Yellow)
    .add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().fg(Color::DarkGray);
const ERROR: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
/// Backgrounds of functions on the call-stack chart, picked by a hash of the name.
const FUNCTION_COLOURS: [Color; 8] = [
    Color::Blue,
    Color::Green,
    Color::Magenta,
    Color::Cyan,
    Color::LightBlue,
    Color::LightGreen,
    Color::LightMagenta,
    Color::LightCyan,
];

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let message = format!(
            "terminal too small: need {MIN_WIDTH}x{MIN_HEIGHT}, have {}x{}",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(message).wrap(Wrap { trim: true }), area);
        return;
    }
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let snapshot = app.snapshot();
    frame.render_widget(
        header_line(app, snapshot.as_ref(), usize::from(header.width)),
        header,
    );
    match &snapshot {
        Some(snapshot) => draw_body(frame, body, app, snapshot),
        None => frame.render_widget(
            Paragraph::new("waiting for the simulator's first report").block(Block::bordered()),
            body,
        ),
    }
    frame.render_widget(footer_line(app, snapshot.as_ref(), footer.width), footer);
    if app.help {
        draw_help(frame, area, app);
    }
}

fn draw_body(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot) {
    let window = app.view.window(snapshot);
    let chart = Chart::new(snapshot);
    // Room for the chart's lines, borders and axis, within 45% of the screen, and at least 40% even
    // for a short chart: the timeline is what the view is for.
    let wanted = u16::try_from(chart.lines(snapshot))
        .unwrap_or(u16::MAX)
        .saturating_add(3);
    let most = area
        .height
        .saturating_sub(MIDDLE_HEIGHT + BOTTOM_MIN_HEIGHT);
    let share = |twentieths: u32| {
        u16::try_from(u32::from(area.height) * twentieths / 20).unwrap_or(u16::MAX)
    };
    let timeline_height = wanted.min(share(9)).max(share(8)).max(7).min(most);
    let [timeline, middle, bottom] = Layout::vertical([
        Constraint::Length(timeline_height),
        Constraint::Length(MIDDLE_HEIGHT),
        Constraint::Fill(1),
    ])
    .areas(area);
    draw_timeline(frame.buffer_mut(), timeline, app, snapshot, window, &chart);

    let [left, selection] = Layout::horizontal([Constraint::Percentage(50); 2]).areas(middle);
    let [fast, traffic] =
        Layout::vertical([Constraint::Length(4), Constraint::Fill(1)]).areas(left);
    draw_fast_arena(frame, fast, snapshot);
    draw_traffic(frame, traffic, snapshot, window);
    let whole_run = if snapshot.cursor < snapshot.report.totals.cycles {
        " (whole run)"
    } else {
        ""
    };
    draw_selection(frame, selection, app, snapshot, whole_run);

    let [hot, console] = Layout::horizontal([Constraint::Percentage(50); 2]).areas(bottom);
    let views = &snapshot.report.views;
    match app.view.tensor_view.and_then(|k| Some((k, views.get(k)?))) {
        Some((k, view)) => draw_tensor_view(frame, hot, view, (k, views.len()), whole_run),
        None => draw_hot_functions(frame, hot, snapshot.report, whole_run),
    }
    draw_console(frame, console, snapshot.report, whole_run);
}

/// The header, cut with an ellipsis to `width` columns.
fn header_line<'a>(app: &App, snapshot: Option<&Snapshot>, width: usize) -> Line<'a> {
    let (badge, colour) = match &app.mode {
        Mode::Live(live) => match &live.run {
            Run::Running if app.quit => ("STOPPING", Color::Yellow),
            Run::Running if live.status.paused => ("PAUSED", Color::Yellow),
            Run::Running => ("RUNNING", Color::Green),
            Run::Finished => ("FINISHED", Color::Blue),
            Run::Failed(_) => ("FAILED", Color::Red),
        },
        Mode::Replay(replay) if replay.playing => ("REPLAY \u{25b6}", Color::Magenta),
        Mode::Replay(_) => ("REPLAY \u{2016}", Color::Magenta),
    };
    let mut spans = vec![Span::styled(
        format!(" {badge} "),
        Style::new().fg(Color::Black).bg(colour).bold(),
    )];
    let Some(snapshot) = snapshot else {
        return Line::from(spans);
    };
    let report = snapshot.report;
    let board = &report.board;
    let clock = match board.clock_changes.last() {
        Some(_) => format!(
            "from {}, {} clock switches",
            frequency(board.clock_hz),
            board.clock_changes.len()
        ),
        None => frequency(board.clock_hz),
    };
    let mut details = Vec::new();
    match &app.mode {
        Mode::Live(live) => {
            if live.run == Run::Finished {
                details.push(outcome_text(report));
            }
            details.push(format!("{} cycles", thousands(report.totals.cycles)));
            details.push(snapshot.time_at(report.totals.cycles));
            if live.run == Run::Running {
                details.push(format!("{:.1} MIPS", live.status.mips));
                details.push(format!("{:.1} s wall", live.status.wall_seconds));
            }
        }
        Mode::Replay(replay) => {
            details.push(format!(
                "{} of {}",
                snapshot.time_at(replay.cursor),
                snapshot.time_at(report.totals.cycles)
            ));
            details.push(format!("cycle {}", thousands(replay.cursor)));
            details.push(outcome_text(report));
        }
    }
    details.push(format!(
        "{} ({}, {})",
        report.board.name, report.board.core, clock
    ));
    details.push(report.firmware.file.clone());
    let badge_width = spans[0].content.chars().count();
    spans.push(Span::raw(crate::format::fit(
        &format!(" {}", details.join(" \u{b7} ")),
        width.saturating_sub(badge_width),
    )));
    Line::from(spans)
}

/// How a run ended, in a few words.
fn outcome_text(report: &Report) -> String {
    let place = |location: &Option<String>, pc: u32| {
        location.clone().unwrap_or_else(|| format!("{pc:#010x}"))
    };
    match &report.outcome {
        Outcome::Exited { code } => format!("exited with code {code}"),
        Outcome::Limit {
            limit,
            pc,
            location,
            ..
        } if *limit == Limit::Stopped => {
            format!("stopped at {}", place(location, *pc))
        }
        Outcome::Limit {
            limit,
            pc,
            location,
            ..
        } => format!("{limit} limit at {}", place(location, *pc)),
        Outcome::Reset {
            by, pc, location, ..
        } => {
            format!(
                "{} at {}",
                tigris_traces::reset_cause(by),
                place(location, *pc)
            )
        }
        Outcome::Idle { pc, location, .. } => format!("idle at {}", place(location, *pc)),
        Outcome::Condition {
            detail,
            pc,
            location,
            ..
        } => format!("{detail} at {}", place(location, *pc)),
        Outcome::Fault => match &report.fault {
            Some(fault) => format!(
                "fault: {} at {}",
                fault.kind,
                place(&fault.location, fault.pc)
            ),
            None => "fault".into(),
        },
    }
}

/// The current function (innermost last), or what went wrong; the help and quit keys on the right.
fn footer_line<'a>(app: &App, snapshot: Option<&Snapshot>, width: u16) -> Line<'a> {
    const HINTS: &str = "  ? help  q quit ";
    let room = usize::from(width).saturating_sub(HINTS.len());
    let live = match &app.mode {
        Mode::Live(live) => Some(live),
        Mode::Replay(_) => None,
    };
    let fault = snapshot
        .and_then(|s| s.report.fault.as_ref())
        .filter(|_| live.is_none_or(|l| l.run == Run::Finished));
    let (text, style) = match (live.map(|l| &l.run), fault) {
        (Some(Run::Failed(message)), _) => (format!("simulator error: {message}"), ERROR),
        (_, Some(fault)) => (format!("fault: {}", fault.message), ERROR),
        _ => {
            let running =
                live.filter(|l| l.run == Run::Running && !l.status.current_stack.is_empty());
            let stack = match running {
                Some(live) => Some(live.status.current_stack.as_str()),
                None => snapshot.and_then(|s| s.sampled_stack()),
            };
            let frames = stack
                .map(|s| s.split(';').collect::<Vec<_>>().join(" \u{203a} "))
                .unwrap_or_default();
            (format!("in {frames}"), Style::new())
        }
    };
    let text = keep_tail(&text, room);
    let padding = room.saturating_sub(text.chars().count());
    Line::from(vec![
        Span::styled(text, style),
        Span::raw(" ".repeat(padding)),
        Span::styled(HINTS, DIM),
    ])
}

/// `1 stage`, `4 tiles`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// `text` cut to its last `width` characters (the innermost frames matter most), marked with `…`.
fn keep_tail(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - width + 1).collect();
    format!("\u{2026}{tail}")
}

/// What the timeline plots: stages and tiles, or the sampled call stack without TiGrIS stages.
enum Chart {
    Stages,
    /// Frames all samples share are left out (`prefix` of them); `depth` rows below.
    Stacks {
        prefix: usize,
        depth: usize,
    },
}

impl Chart {
    fn new(snapshot: &Snapshot) -> Self {
        if !snapshot.stages().is_empty() {
            return Chart::Stages;
        }
        let stacks: Vec<Vec<&str>> = snapshot
            .samples()
            .iter()
            .map(|s| s.stack.split(';').collect())
            .collect();
        let deepest = stacks.iter().map(Vec::len).max().unwrap_or(0);
        let first = stacks.first().cloned().unwrap_or_default();
        let shared = (0..first.len())
            .take_while(|&i| stacks.iter().all(|s| s.get(i) == first.get(i)))
            .count();
        // Keep at least the innermost level even when every sample is the same.
        let prefix = shared.min(deepest.saturating_sub(1));
        Chart::Stacks {
            prefix,
            depth: deepest - prefix,
        }
    }

    /// Lines the chart would like.
    fn lines(&self, snapshot: &Snapshot) -> usize {
        match self {
            Chart::Stages => snapshot.stages().len() * MAX_STAGE_HEIGHT,
            Chart::Stacks { depth, .. } => *depth,
        }
    }
}

/// Cycles of the window mapped onto columns `x .. x + width`.
struct Scale {
    window: Window,
    x: u16,
    width: u16,
}

impl Scale {
    /// Columns `[x0, x1)` that show cycles `[from, to)`, at least one when the interval meets the window.
    fn columns(&self, from: u64, to: u64) -> Option<(u16, u16)> {
        let Window { start, span } = self.window;
        let end = start + span;
        if self.width == 0 || from > end || to < start || (to == start && from < to) {
            return None;
        }
        let column = |cycle: u64, round_up: bool| {
            let scaled = u128::from(cycle.clamp(start, end) - start) * u128::from(self.width);
            let column = if round_up {
                scaled.div_ceil(u128::from(span))
            } else {
                scaled / u128::from(span)
            };
            column as u16
        };
        let x0 = column(from, false).min(self.width - 1);
        let x1 = column(to, true).clamp(x0 + 1, self.width);
        Some((self.x + x0, self.x + x1))
    }

    /// The cycle in the middle of column `column` (counted from the scale's left edge).
    fn cycle_at(&self, column: u16) -> u64 {
        let offset = u128::from(self.window.span) * (2 * u128::from(column) + 1)
            / (2 * u128::from(self.width.max(1)));
        self.window.start + offset as u64
    }
}

fn draw_timeline(
    buf: &mut Buffer,
    area: Rect,
    app: &App,
    snapshot: &Snapshot,
    window: Window,
    chart: &Chart,
) {
    let title = match chart {
        Chart::Stages => {
            let tiles: usize = snapshot
                .stages()
                .iter()
                .map(|s| snapshot.tiles(s).len())
                .sum();
            format!(
                " Timeline: {}, {} ",
                count(snapshot.stages().len(), "stage"),
                count(tiles, "tile")
            )
        }
        Chart::Stacks { .. } if snapshot.report.tigris.is_some() => {
            " Call stack over time (no TiGrIS stage yet) ".into()
        }
        Chart::Stacks { .. } => {
            " Call stack over time \u{2014} no TiGrIS runtime in this firmware ".into()
        }
    };
    let block = Block::bordered()
        .title(title)
        .title(Line::from(format!(" zoom {}x ", 1u64 << app.view.zoom)).right_aligned());
    let inner = block.inner(area);
    block.render(area, buf);
    let [rows, axis] = Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(inner);
    let label_width = LABEL_WIDTH.min(inner.width / 4);
    let scale = Scale {
        window,
        x: inner.x + label_width,
        width: inner.width - label_width,
    };
    match chart {
        Chart::Stages => draw_stage_rows(buf, rows, &scale, app, snapshot),
        Chart::Stacks { prefix, depth } => {
            draw_stack_rows(buf, rows, &scale, snapshot, *prefix, *depth)
        }
    }
    draw_axis(buf, axis, &scale, snapshot.clock_hz());
    // At the end the whole run shows: no cursor line to hide it.
    if let Mode::Replay(replay) = &app.mode {
        if replay.cursor < snapshot.report.totals.cycles {
            draw_cursor(buf, rows, axis, &scale, replay.cursor);
        }
    }
}

fn draw_stage_rows(buf: &mut Buffer, area: Rect, scale: &Scale, app: &App, snapshot: &Snapshot) {
    let stages = snapshot.stages();
    let height = (usize::from(area.height) / stages.len().max(1)).clamp(1, MAX_STAGE_HEIGHT);
    let visible = usize::from(area.height) / height;
    // Keep the selected stage on screen, else the latest.
    let latest = stages.len().saturating_sub(1);
    let focus = app
        .view
        .selected
        .map_or(latest, |item| item.stage.min(latest));
    let first = (focus + 1).saturating_sub(visible);
    for (row, (index, stage)) in stages
        .iter()
        .enumerate()
        .skip(first)
        .take(visible)
        .enumerate()
    {
        let top = area.y + (row * height) as u16;
        let y = top..top + height as u16;
        let label = format!("S{} {}", stage.stage, stage.path);
        let label_room = usize::from(area.width.min(LABEL_WIDTH)).saturating_sub(1);
        buf.set_stringn(area.x, middle(&y), label, label_room, Style::new().bold());
        let Some((start, end)) = snapshot.stage_span(index) else {
            continue;
        };
        let Some(columns) = scale.columns(start, end) else {
            continue;
        };
        let tiles = snapshot.tiles(stage);
        if tiles.is_empty() {
            let item = Item {
                stage: index,
                tile: None,
            };
            let name = if stage.op_names.is_empty() {
                stage.path.clone()
            } else {
                stage.op_names.join("+")
            };
            let labels = [
                format!("{name} {}", snapshot.duration(start, end)),
                name,
                format!("S{}", stage.stage),
            ];
            let (style, labels) = segment_look(app, item, Color::Green, Color::LightGreen, labels);
            paint(buf, y.clone(), columns, style, &labels);
            continue;
        }
        // The stage's own time (before its first tile, after its last) shows grey behind the tiles.
        paint(
            buf,
            y.clone(),
            columns,
            Style::new().bg(Color::DarkGray),
            &[],
        );
        for (position, tile) in tiles.iter().enumerate() {
            let Some((start, end)) = snapshot.tile_span(index, position) else {
                continue;
            };
            let Some(columns) = scale.columns(start, end) else {
                continue;
            };
            let item = Item {
                stage: index,
                tile: Some(position),
            };
            let labels = [
                format!("tile {} {}", tile.index, snapshot.duration(start, end)),
                format!("tile {}", tile.index),
                tile.index.to_string(),
            ];
            let (style, labels) = segment_look(app, item, Color::Blue, Color::Cyan, labels);
            paint(buf, y.clone(), columns, style, &labels);
        }
    }
}

/// Colours alternate between neighbours so that segments stay apart; the selection stands out in
/// colour and, for terminals without, in brackets.
fn segment_look(
    app: &App,
    item: Item,
    even: Color,
    odd: Color,
    labels: [String; 3],
) -> (Style, [String; 3]) {
    if app.view.selected == Some(item) {
        return (SELECTED, labels.map(|label| format!("[{label}]")));
    }
    let position = item.tile.unwrap_or(item.stage);
    let background = if position.is_multiple_of(2) {
        even
    } else {
        odd
    };
    let foreground = if background == Color::Blue {
        Color::White
    } else {
        Color::Black
    };
    (Style::new().fg(foreground).bg(background), labels)
}

/// Fill columns `[x0, x1)` of lines `lines` and write the first label that fits, centred. A thin
/// bar marks where the segment starts, so that neighbours stay apart without colours too.
fn paint(
    buf: &mut Buffer,
    lines: Range<u16>,
    (x0, x1): (u16, u16),
    style: Style,
    labels: &[String],
) {
    for y in lines.clone() {
        for x in x0..x1 {
            buf[(x, y)]
                .set_symbol(if x == x0 { "\u{258f}" } else { " " })
                .set_style(style);
        }
    }
    let width = usize::from(x1 - x0);
    if let Some(label) = labels.iter().find(|label| label.chars().count() <= width) {
        let indent = (width - label.chars().count()) / 2;
        buf.set_string(x0 + indent as u16, middle(&lines), label, style);
    }
}

fn middle(lines: &Range<u16>) -> u16 {
    lines.start + (lines.end - lines.start).saturating_sub(1) / 2
}

/// One row per call depth below the shared frames, each column the stack of the sample that covers it.
fn draw_stack_rows(
    buf: &mut Buffer,
    area: Rect,
    scale: &Scale,
    snapshot: &Snapshot,
    prefix: usize,
    depth: usize,
) {
    let samples = snapshot.samples();
    if samples.is_empty() {
        // One column in: the replay cursor at the window's start draws over the first column.
        buf.set_stringn(
            scale.x + 1,
            area.y,
            "no samples yet",
            usize::from(scale.width.saturating_sub(1)),
            DIM,
        );
        return;
    }
    let first = &samples[0].stack;
    let shared = first
        .split(';')
        .take(prefix)
        .collect::<Vec<_>>()
        .join(" \u{203a} ");
    buf.set_stringn(
        area.x,
        area.y,
        keep_tail(&shared, usize::from(LABEL_WIDTH - 1)),
        usize::from(scale.x - area.x),
        DIM,
    );
    // The sample taken at or after the column's cycle saw what ran during it.
    let columns: Vec<Vec<&str>> = (0..scale.width)
        .map(|column| {
            let cycle = scale.cycle_at(column);
            let sample = samples.get(samples.partition_point(|s| s.cycle < cycle));
            sample.map_or_else(Vec::new, |s| s.stack.split(';').skip(prefix).collect())
        })
        .collect();
    for row in 0..depth.min(usize::from(area.height)) {
        let y = area.y + row as u16;
        let mut column = 0;
        while column < columns.len() {
            let name = columns[column].get(row);
            let run = columns[column..]
                .iter()
                .take_while(|frames| frames.get(row) == name)
                .count();
            if let Some(name) = name {
                let style = Style::new().fg(Color::Black).bg(function_colour(name));
                let x0 = scale.x + column as u16;
                paint(
                    buf,
                    y..y + 1,
                    (x0, x0 + run as u16),
                    style,
                    &[name.to_string(), abbreviate(name, run)],
                );
            }
            column += run;
        }
    }
}

/// The head of `name`, marked with `…`, that fits a segment `width` columns wide beside its start
/// bar; nothing when too narrow for a useful head.
fn abbreviate(name: &str, width: usize) -> String {
    if width < 5 {
        return String::new();
    }
    let head: String = name.chars().take(width - 3).collect();
    format!("{head}\u{2026}")
}

fn function_colour(name: &str) -> Color {
    // FNV-1a: the same name gets the same colour on every frame and in every run.
    let hash = name.bytes().fold(0x811c_9dc5u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    });
    FUNCTION_COLOURS[hash as usize % FUNCTION_COLOURS.len()]
}

fn draw_axis(buf: &mut Buffer, area: Rect, scale: &Scale, clock_hz: u64) {
    let unit = if clock_hz == 0 { "cycles" } else { "time" };
    buf.set_stringn(area.x, area.y, unit, usize::from(scale.x - area.x), DIM);
    let Window { start, span } = scale.window;
    let least_gap =
        u64::try_from(u128::from(span) * u128::from(TICK_SPACING) / u128::from(scale.width.max(1)));
    let mut free_from = scale.x;
    for (cycle, label) in axis_ticks(start, span, least_gap.unwrap_or(u64::MAX), clock_hz) {
        let Some((x, _)) = scale.columns(cycle, cycle) else {
            continue;
        };
        let label = format!("\u{2502}{label}");
        let end = x + label.chars().count() as u16;
        if x >= free_from && end <= scale.x + scale.width {
            buf.set_string(x, area.y, label, DIM);
            free_from = end + 1;
        }
    }
}

/// The replay cursor: a yellow line down the chart, a mark on the axis.
fn draw_cursor(buf: &mut Buffer, rows: Rect, axis: Rect, scale: &Scale, cursor: u64) {
    let Some((x, _)) = scale.columns(cursor, cursor) else {
        return;
    };
    for y in rows.top()..rows.bottom() {
        buf[(x, y)].set_symbol("\u{2502}").set_fg(Color::Yellow);
    }
    buf[(x, axis.y)]
        .set_symbol("\u{25b2}")
        .set_fg(Color::Yellow);
}

fn draw_fast_arena(frame: &mut Frame, area: Rect, snapshot: &Snapshot) {
    let region = snapshot
        .report
        .tigris
        .as_ref()
        .and_then(|t| t.arenas.as_ref())
        .and_then(|a| a.fast_region.clone());
    let title = region.map_or(" Fast arena ".into(), |region| {
        format!(" Fast arena ({region}) ")
    });
    let block = Block::bordered().title(crate::format::fit(
        &title,
        usize::from(area.width.saturating_sub(2)),
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(fast) = snapshot.fast_arena() else {
        frame.render_widget(
            Paragraph::new("no TiGrIS arenas in this run").style(DIM),
            inner,
        );
        return;
    };
    let [gauge_row, peak_row] = Layout::vertical([Constraint::Length(1); 2]).areas(inner);
    let (used, peak) = (u64::from(fast.used), u64::from(fast.peak));
    let (gauge, peak_text) = match fast.budget {
        Some((budget, source)) => {
            let budget = u64::from(budget);
            let colour = if peak > budget {
                Color::Red
            } else {
                Color::Green
            };
            let label = format!(
                "{} of {} ({:.0}%)",
                bytes(used),
                bytes(budget),
                percent(used, budget)
            );
            let source = match source {
                BudgetSource::Plan => "plan budget",
                BudgetSource::ArenaSize => "arena size",
            };
            let peak_text = format!(
                "peak {} ({:.0}% of {source})",
                bytes(peak),
                percent(peak, budget)
            );
            let ratio = (used as f64 / budget.max(1) as f64).min(1.0);
            (
                Gauge::default()
                    .ratio(ratio)
                    .label(label)
                    .gauge_style(Style::new().fg(colour).bg(Color::Black)),
                peak_text,
            )
        }
        None => {
            let label = format!("{} used, budget unknown", bytes(used));
            (
                Gauge::default().ratio(0.0).label(label),
                format!("peak {}", bytes(peak)),
            )
        }
    };
    frame.render_widget(gauge, gauge_row);
    frame.render_widget(Paragraph::new(peak_text), peak_row);
}

fn draw_traffic(frame: &mut Frame, area: Rect, snapshot: &Snapshot, window: Window) {
    let Some(traffic) = snapshot.slow_traffic() else {
        let block = Block::bordered().title(" Slow memory traffic ");
        frame.render_widget(
            Paragraph::new("no slow memory on this board")
                .style(DIM)
                .block(block),
            area,
        );
        return;
    };
    let block = Block::bordered().title(crate::format::fit(
        &format!(" Slow memory traffic ({}) ", traffic.title),
        usize::from(area.width.saturating_sub(2)),
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [read_row, write_row, totals_row] =
        Layout::vertical([Constraint::Length(1); 3]).areas(inner);
    let label_width = 6;
    let bars_width = inner.width.saturating_sub(label_width);
    let (read, written) = traffic.per_column(window.start, window.span, bars_width);
    // One scale for both rows, so that their heights compare.
    let highest = read
        .iter()
        .chain(&written)
        .copied()
        .max()
        .unwrap_or(0)
        .max(1);
    for (row, label, values, colour) in [
        (read_row, "read", read, Color::Cyan),
        (write_row, "write", written, Color::Magenta),
    ] {
        let [label_area, bars] =
            Layout::horizontal([Constraint::Length(label_width), Constraint::Fill(1)]).areas(row);
        frame.render_widget(Paragraph::new(label).style(DIM), label_area);
        frame.render_widget(
            Sparkline::default()
                .data(&values)
                .max(highest)
                .style(Style::new().fg(colour)),
            bars,
        );
    }
    let (read_total, written_total) = traffic.at(snapshot.cursor);
    let totals = format!(
        "whole run {} read, {} written",
        bytes(read_total),
        bytes(written_total)
    );
    frame.render_widget(Paragraph::new(totals), totals_row);
}

/// The selected tile or stage, else the TiGrIS totals, else the run's totals.
fn draw_selection(frame: &mut Frame, area: Rect, app: &App, snapshot: &Snapshot, whole_run: &str) {
    let report = snapshot.report;
    let clock = snapshot.clock_hz();
    let budget = snapshot.budget().map(|(budget, _)| u64::from(budget));
    let selected = app.view.selected;
    let unfinished = selected.is_some_and(|item| snapshot.unfinished(item));
    // First in the title, so that a narrow panel's ellipsis does not hide it.
    let so_far = if unfinished { "so far: " } else { "" };
    let (title, lines) = match selected.and_then(|item| snapshot.resolve(item)) {
        Some((stage, Some(tile), figures)) => {
            let [first, end] = tile.rows;
            let title = format!(
                " {so_far}Tile {} of stage {} ({}), rows [{first},{end}) ",
                tile.index, stage.stage, stage.path
            );
            (title, figure_lines(figures, clock, budget, unfinished))
        }
        Some((stage, None, figures)) => (
            format!(" {so_far}Stage {} ({}) ", stage.stage, stage.path),
            figure_lines(figures, clock, budget, unfinished),
        ),
        None => match &report.tigris {
            Some(tigris) if !snapshot.stages().is_empty() => {
                let title = format!(" TiGrIS total{whole_run} (\u{2191}\u{2193} select a tile) ");
                (title, figure_lines(&tigris.total, clock, budget, false))
            }
            _ => (format!(" Run{whole_run} "), run_lines(report)),
        },
    };
    let title = crate::format::fit(&title, usize::from(area.width.saturating_sub(2)));
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

fn labelled<'a>(label: &'a str, value: String) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("{label:<10}"), DIM),
        Span::raw(value),
    ])
}

/// The figures of a tile, a stage or the total; an `unfinished` item's halo rows are known from its
/// start, their bytes and cycles only once it has loaded them.
fn figure_lines(
    figures: &TigrisFigures,
    clock_hz: u64,
    budget: Option<u64>,
    unfinished: bool,
) -> Vec<Line<'static>> {
    let fast_peak = u64::from(figures.fast_peak);
    let of_budget = budget.map_or(String::new(), |budget| {
        format!(" ({:.0}%)", percent(fast_peak, budget))
    });
    // The bus figure only when it tells something the runtime's does not.
    let bus_peak = u64::from(figures.fast_peak_bus);
    let bus = if bus_peak == fast_peak {
        String::new()
    } else {
        format!("  bus {}", bytes(bus_peak))
    };
    vec![
        labelled(
            "cycles",
            format!(
                "{}  {}",
                thousands(figures.cycles),
                time(figures.cycles, clock_hz)
            ),
        ),
        labelled("instr", thousands(figures.instructions)),
        labelled(
            "load",
            format!(
                "{}  spill {}",
                bytes(figures.load_bytes),
                bytes(figures.spill_bytes)
            ),
        ),
        labelled(
            "slow",
            format!(
                "{} rd  {} wr",
                bytes(figures.slow_read_bytes),
                bytes(figures.slow_write_bytes)
            ),
        ),
        labelled(
            "halo",
            if unfinished {
                format!("{} rows  (B, cyc pending)", figures.halo_rows)
            } else {
                format!(
                    "{} rows  {}  {} cyc",
                    figures.halo_rows,
                    bytes(figures.halo_bytes),
                    thousands(figures.halo_load_cycles)
                )
            },
        ),
        labelled(
            "recompute",
            format!(
                "{} rows  {} cyc",
                figures.recomputed_rows,
                thousands(figures.recompute_cycles)
            ),
        ),
        labelled("fast peak", format!("{}{of_budget}{bus}", bytes(fast_peak))),
    ]
}

fn run_lines(report: &Report) -> Vec<Line<'static>> {
    let totals = &report.totals;
    vec![
        labelled("cycles", thousands(totals.cycles)),
        labelled(
            "time",
            crate::format::seconds(report.board.seconds(totals.cycles)),
        ),
        labelled("instr", thousands(totals.instructions)),
        labelled("CPI", format!("{:.3}", totals.cpi)),
        labelled(
            "stalls",
            format!("{} cycles", thousands(totals.stall_cycles)),
        ),
    ]
}

fn draw_hot_functions(frame: &mut Frame, area: Rect, report: &Report, whole_run: &str) {
    let mut functions: Vec<_> = report.functions.iter().collect();
    functions.sort_by_key(|f| Reverse(f.self_cycles));
    // Self cycles sum to the run's cycles; the larger of the two keeps shares at most 100%.
    let total = report
        .totals
        .cycles
        .max(functions.iter().map(|f| f.self_cycles).sum());
    let rows = functions.iter().map(|f| {
        // The file and line of the function, from DWARF, dimmed after its name.
        let mut function = vec![Span::raw(f.name.clone())];
        if let Some(source) = &f.source {
            let file = source.rsplit('/').next().unwrap_or(source);
            function.push(Span::styled(format!("  {file}"), DIM));
        }
        Row::new([
            Line::raw(format!("{:5.1}%", percent(f.self_cycles, total))),
            Line::raw(thousands(f.calls)),
            Line::from(function),
        ])
    });
    let widths = [
        Constraint::Length(6),
        Constraint::Length(11),
        Constraint::Fill(1),
    ];
    let header = Row::new(["self", "calls", "function"]).style(DIM);
    let block = Block::bordered().title(format!(" Hot functions{whole_run} "));
    frame.render_widget(Table::new(rows, widths).header(header).block(block), area);
}

/// Shades of a heatmap cell, from no traffic to the view's busiest cell.
const SHADES: [char; 5] = ['\u{b7}', '\u{2591}', '\u{2592}', '\u{2593}', '\u{2588}'];

/// A tensor view: its totals, then its tiles' bytes moved over its two heatmap axes (other axes
/// summed) as shades, or, for a view of one axis, a line per tile.
fn draw_tensor_view(
    frame: &mut Frame,
    area: Rect,
    v: &TensorViewProfile,
    (k, count): (usize, usize),
    whole_run: &str,
) {
    let block =
        Block::bordered().title(format!(" View {} ({}/{count}){whole_run} ", v.name, k + 1));
    let inner = block.inner(area);
    let shape: Vec<String> = v.shape.iter().map(u64::to_string).collect();
    let mut lines = vec![
        Line::raw(format!(
            "{} [{}] in {}, {}",
            v.dtype,
            shape.join(", "),
            v.region,
            v.layout
        )),
        Line::raw(format!(
            "read {} (x{:.2}), written {}, {} stall cycles",
            bytes(v.read_bytes),
            v.reread_factor,
            bytes(v.write_bytes),
            thousands(v.stall_cycles)
        )),
    ];
    match v.heatmap_cells() {
        Some(h) => {
            let (rows, columns) = (h.rows, h.columns);
            let cells: Vec<u64> = h
                .read_bytes
                .iter()
                .zip(&h.write_bytes)
                .map(|(r, w)| r + w)
                .collect();
            let most = cells.iter().copied().max().unwrap_or(0).max(1);
            let label = format!("{:>4} ", "");
            lines.push(Line::styled(
                format!(
                    "{label}{} tiles across, {} down; {} busiest",
                    h.column_axis,
                    h.row_axis,
                    bytes(most)
                ),
                DIM,
            ));
            let fit = (usize::from(inner.width).saturating_sub(label.len())) / 2;
            for row in 0..rows {
                let shades: String = cells[row * columns..(row + 1) * columns]
                    .iter()
                    .take(fit)
                    .map(|&b| SHADES[((b * 4).div_ceil(most) as usize).min(4)])
                    .flat_map(|s| [s, s])
                    .collect();
                let more = if columns > fit { "\u{2026}" } else { "" };
                lines.push(Line::raw(format!("{row:>4} {shades}{more}")));
            }
        }
        None => {
            for (i, t) in v.tiles.iter().enumerate() {
                lines.push(Line::raw(format!(
                    "tile {i:>4}: read {}, written {}",
                    bytes(t.read_bytes),
                    bytes(t.write_bytes)
                )));
            }
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The newest lines of the console, wrapped at the panel's width as a terminal wraps them.
fn draw_console(frame: &mut Frame, area: Rect, report: &Report, whole_run: &str) {
    let block = Block::bordered().title(format!(" Console{whole_run} "));
    let inner = block.inner(area);
    let room = usize::from(inner.height);
    // From the newest line back, so that a long console costs only what shows.
    let mut rows = Vec::with_capacity(room);
    for line in report.console.lines().rev() {
        // Firmware output may hold control characters; the terminal must not interpret them.
        let clean: String = line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        rows.extend(wrap(&clean, usize::from(inner.width)).into_iter().rev());
        if rows.len() >= room {
            break;
        }
    }
    rows.truncate(room);
    let lines: Vec<Line> = rows.into_iter().rev().map(Line::raw).collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `text` cut into pieces of at most `width` columns (one, empty, for an empty text); a character
/// wider than the whole width gets a piece of its own.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut used = 0;
    for c in text.chars() {
        let columns = c.width().unwrap_or(0);
        if used + columns > width && used > 0 {
            pieces.push(std::mem::take(&mut piece));
            used = 0;
        }
        piece.push(c);
        used += columns;
    }
    pieces.push(piece);
    pieces
}

const LIVE_KEYS: &[(&str, &str)] = &[
    ("space", "pause / resume the simulation"),
    ("n", "run to the next tile (or stage), then pause"),
    ("N or s", "run to the next stage, then pause"),
    ("Home / End", "scroll to the first stage / follow the run"),
];
const REPLAY_KEYS: &[(&str, &str)] = &[
    (
        "space",
        "play / pause the cursor (from the start at the end)",
    ),
    ("n / p", "cursor to the next / previous tile or stage start"),
    ("N or s / P", "cursor to the next / previous stage start"),
    ("Home / End", "cursor to the start / end of the run"),
];
const VIEW_KEYS: &[(&str, &str)] = &[
    ("+ (=) / -", "zoom the timeline in / out"),
    ("\u{2190} / \u{2192}", "scroll the timeline back / forward"),
    (
        "\u{2193} Tab / \u{2191} Shift-Tab",
        "select the next / previous tile: its figures show",
    ),
    (
        "v",
        "show the next tensor view (--views) in place of the hot functions",
    ),
    ("?", "show / hide this help (Esc closes it too)"),
];

fn draw_help(frame: &mut Frame, area: Rect, app: &App) {
    let (title, keys, quit) = match app.mode {
        Mode::Live(_) => (
            " Keys: live run ",
            LIVE_KEYS,
            ("q, Esc, Ctrl-C", "quit (stops the simulation first)"),
        ),
        Mode::Replay(_) => (" Keys: replay ", REPLAY_KEYS, ("q, Esc, Ctrl-C", "quit")),
    };
    let entries: Vec<_> = keys.iter().chain(VIEW_KEYS).chain([&quit]).collect();
    let key_width = entries
        .iter()
        .map(|(key, _)| key.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let lines: Vec<Line> = entries
        .iter()
        .map(|(key, meaning)| {
            Line::from(vec![
                Span::styled(format!(" {key:<key_width$}"), Style::new().bold()),
                Span::raw(*meaning),
            ])
        })
        .collect();
    // As wide as the longest entry and the borders, within the screen.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0) + 2;
    let width = u16::try_from(widest).unwrap_or(u16::MAX).min(area.width);
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        popup,
    );
}
