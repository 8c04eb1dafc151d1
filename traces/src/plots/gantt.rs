//! `gantt`: TiGrIS stages (rows) and their tiles (adjacent bars) on a time axis.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::rows::{self, row_y, RowFrame, ROW_FILL};
use super::style::{self, Chart, DrawResult, Figure, Panel, CHAR_WIDTH};
use super::units::{label, significant, TimeScale};
use crate::Report;

/// A span on the time axis, in the chart's time unit.
pub struct Span {
    pub start: f64,
    pub end: f64,
}

pub struct StageRow {
    pub label: String,
    pub span: Span,
    pub tiles: Vec<(u16, Span)>,
}

pub struct Gantt {
    pub time: TimeScale,
    pub stages: Vec<StageRow>,
}

pub fn figure(report: &Report) -> Option<Figure> {
    let tigris = report.tigris.as_ref()?;
    if tigris.stages.is_empty() {
        return None;
    }
    let time = TimeScale::new(report.board.clock_hz);
    let span = |start: u64, cycles: u64| Span {
        start: time.at(start),
        end: time.at(start.saturating_add(cycles)),
    };
    let stages = tigris
        .stages
        .iter()
        .map(|stage| StageRow {
            label: format!("stage {} ({})", stage.stage, label(&stage.path, 16)),
            span: span(stage.start_cycle, stage.figures.cycles),
            tiles: stage
                .tiles
                .iter()
                .map(|tile| (tile.index, span(tile.start_cycle, tile.figures.cycles)))
                .collect(),
        })
        .collect::<Vec<_>>();
    Some(Figure {
        height: style::height_for_rows(stages.len()),
        title: "TiGrIS stages and tiles over time".to_string(),
        subtitle: style::run_summary(report),
        panels: vec![Panel {
            weight: 1,
            chart: Chart::Gantt(Gantt { time, stages }),
        }],
    })
}

impl Gantt {
    fn note(&self, stage: &StageRow) -> String {
        let duration = format!(
            "{} {}",
            significant(stage.span.end - stage.span.start),
            self.time.unit()
        );
        match stage.tiles.len() {
            0 => duration,
            1 => format!("{duration}, 1 tile"),
            tiles => format!("{duration}, {tiles} tiles"),
        }
    }

    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let labels: Vec<String> = self
            .stages
            .iter()
            .map(|stage| stage.label.clone())
            .collect();
        let notes: Vec<String> = self.stages.iter().map(|stage| self.note(stage)).collect();
        let spans = self.stages.iter().map(|stage| &stage.span);
        let x_start = spans
            .clone()
            .map(|span| span.start)
            .fold(f64::INFINITY, f64::min);
        let x_end = spans.map(|span| span.end).fold(0.0, f64::max);
        let frame = RowFrame {
            caption: None,
            labels: &labels,
            x_start: if x_start.is_finite() { x_start } else { 0.0 },
            x_end,
            longest_note: notes
                .iter()
                .map(|note| note.chars().count())
                .max()
                .unwrap_or(0),
            legend_entries: 0,
            x_desc: self.time.axis_label(),
        };
        let mut chart = frame.build(area)?;
        let half = ROW_FILL / 2.0;
        let tile_half = half * 0.75;
        for (row, stage) in self.stages.iter().enumerate() {
            let y = row_y(&chart, row);
            let color = style::color(row);
            // A tiled stage is a pale span with its tiles on it; an untiled one is a solid bar.
            let stage_color = if stage.tiles.is_empty() {
                color
            } else {
                style::lighter(color, 0.75)
            };
            chart.draw_series([Rectangle::new(
                [(stage.span.start, y - half), (stage.span.end, y + half)],
                stage_color.filled(),
            )])?;
            for (ordinal, (index, tile)) in stage.tiles.iter().enumerate() {
                let shade = if ordinal % 2 == 0 {
                    color
                } else {
                    style::lighter(color, 0.4)
                };
                chart.draw_series([Rectangle::new(
                    [(tile.start, y - tile_half), (tile.end, y + tile_half)],
                    shade.filled(),
                )])?;
                label_tile(&chart, *index, tile, y)?;
            }
        }
        let ends = self.stages.iter().map(|stage| stage.span.end);
        rows::draw_notes(
            &chart,
            ends.zip(&notes)
                .enumerate()
                .map(|(row, (end, note))| (row_y(&chart, row), end, note.as_str())),
        )
    }
}

/// Names a tile inside its bar when the name fits.
fn label_tile<DB: DrawingBackend>(
    chart: &rows::RowChart<DB>,
    index: u16,
    tile: &Span,
    y: f64,
) -> DrawResult<DB> {
    let name = format!("t{index}");
    let width = chart.backend_coord(&(tile.end, y)).0 - chart.backend_coord(&(tile.start, y)).0;
    if width < (name.len() as u32 * CHAR_WIDTH + 6) as i32 {
        return Ok(());
    }
    let centre = ((tile.start + tile.end) / 2.0, y);
    let style = style::text_style()
        .color(&WHITE)
        .pos(Pos::new(HPos::Center, VPos::Center));
    chart.plotting_area().draw(&Text::new(name, centre, style))
}
