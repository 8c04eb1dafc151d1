//! Charts with one named row per category on the y axis (bars, Gantt): the row axis, the chart frame
//! and the notes written after each row's bars.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::{
    self, DrawResult, CAPTION_HEIGHT, CHAR_WIDTH, MARGIN, MARGIN_RIGHT, X_LABEL_AREA,
};
use super::units::tick;

/// Share of a row's height its bars take.
pub const ROW_FILL: f64 = 0.8;
/// Vertical pixels a row label needs; rows closer than this get every other label, and so on.
const LABEL_PITCH: u32 = 14;
/// Rows are no taller than this: a chart of few rows leaves the space below them empty.
const MAX_ROW_PITCH: u32 = 80;

pub type RowChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RowAxis>>;

/// The y axis of a row chart: `rows` rows from the top of `slots` (at least `rows`, more when rows would
/// get too tall), labels on every `every`-th row.
#[derive(Clone)]
pub struct RowAxis {
    rows: usize,
    slots: usize,
    every: usize,
}

impl RowAxis {
    /// Row `index` (0 at the top) on the y axis.
    pub fn y(&self, index: usize) -> f64 {
        self.slots.saturating_sub(index + 1) as f64
    }

    /// The row at `y`, if any.
    fn index_at(&self, y: f64) -> Option<usize> {
        let from_bottom = y.round();
        let index = self.slots as f64 - 1.0 - from_bottom;
        (from_bottom >= 0.0 && index >= 0.0 && index < self.rows as f64).then_some(index as usize)
    }
}

impl Ranged for RowAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let range = self.range();
        let share = (value - range.start) / (range.end - range.start);
        limit.0 + (share * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        (0..self.rows)
            .step_by(self.every)
            .map(|index| self.y(index))
            .collect()
    }

    fn range(&self) -> Range<f64> {
        -0.5..self.slots as f64 - 0.5
    }
}

/// The frame of a row chart.
pub struct RowFrame<'a> {
    pub caption: Option<&'a str>,
    /// Row names, top to bottom.
    pub labels: &'a [String],
    /// Range of the data on the x axis.
    pub x_start: f64,
    pub x_end: f64,
    /// Characters of the longest note, for which room is left right of the data.
    pub longest_note: usize,
    /// Series named in the legend, for which room is left under the rows.
    pub legend_entries: usize,
    pub x_desc: String,
}

impl RowFrame<'_> {
    fn y_axis(&self, plot_height: u32) -> RowAxis {
        let rows = self.labels.len();
        let capacity = (plot_height / LABEL_PITCH).max(1) as usize;
        // Empty rows at the bottom for the legend (lower right) to cover no bar: with `e` of them, rows
        // are plot_height / (rows + e) high, and e of them must hold the legend.
        let legend_height = if self.legend_entries == 0 {
            0.0
        } else {
            style::legend_height(self.legend_entries) as f64
        };
        let room = (plot_height as f64 - legend_height).max(1.0);
        let legend_rows = (legend_height * rows as f64 / room).ceil() as usize;
        let slots = (rows + legend_rows)
            .max((plot_height / MAX_ROW_PITCH) as usize)
            .max(1);
        RowAxis {
            rows,
            slots,
            every: rows.div_ceil(capacity).max(1),
        }
    }

    /// Builds the chart and draws its axes.
    pub fn build<'a, DB: DrawingBackend>(
        &self,
        area: &'a DrawingArea<DB, Shift>,
    ) -> Result<RowChart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
        let (area_width, area_height) = area.dim_in_pixel();
        let longest_label = self
            .labels
            .iter()
            .map(|label| label.chars().count())
            .max()
            .unwrap_or(0) as u32;
        let y_label_area = (longest_label * CHAR_WIDTH + 24).min(area_width * 45 / 100);
        let caption_height = if self.caption.is_some() {
            CAPTION_HEIGHT
        } else {
            0
        };
        let plot_width = area_width
            .saturating_sub(y_label_area + MARGIN + MARGIN_RIGHT)
            .max(40);
        let plot_height = area_height
            .saturating_sub(X_LABEL_AREA + 2 * MARGIN + caption_height)
            .max(20);
        let note_share =
            ((self.longest_note as u32 * CHAR_WIDTH + 16) as f64 / plot_width as f64).min(0.6);
        let data_width = if self.x_end > self.x_start {
            self.x_end - self.x_start
        } else {
            1.0
        };
        let x_end = self.x_start + data_width * 1.02 / (1.0 - note_share);

        let mut builder = ChartBuilder::on(area);
        builder
            .margin(MARGIN)
            .margin_right(MARGIN_RIGHT)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(y_label_area);
        if let Some(caption) = self.caption {
            builder.caption(caption, style::axis_desc_style());
        }
        let axis = self.y_axis(plot_height);
        let label_at = |y: &f64| {
            axis.index_at(*y)
                .map_or(String::new(), |index| self.labels[index].clone())
        };
        let mut chart = builder.build_cartesian_2d(self.x_start..x_end, axis.clone())?;
        style::configure_mesh(&mut chart)
            .disable_y_mesh()
            .x_desc(self.x_desc.as_str())
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&label_at)
            .draw()?;
        Ok(chart)
    }
}

/// The y position of row `index` (0 at the top).
pub fn row_y<DB: DrawingBackend>(chart: &RowChart<DB>, index: usize) -> f64 {
    chart.as_coord_spec().y_spec().y(index)
}

/// Writes each note just right of `x` in its row: (row y, x, note).
pub fn draw_notes<'n, DB: DrawingBackend>(
    chart: &RowChart<DB>,
    notes: impl IntoIterator<Item = (f64, f64, &'n str)>,
) -> DrawResult<DB> {
    let note_style = style::text_style().pos(Pos::new(HPos::Left, VPos::Center));
    for (y, x, note) in notes.into_iter().filter(|(_, _, note)| !note.is_empty()) {
        let text = Text::new(note.to_string(), (6, 0), note_style.clone());
        chart
            .plotting_area()
            .draw(&(EmptyElement::at((x, y)) + text))?;
    }
    Ok(())
}
