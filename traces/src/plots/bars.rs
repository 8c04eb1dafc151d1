//! Horizontal bar charts of cycles: one row per category (top to bottom), one or more series.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::rows::{self, row_y, RowFrame, ROW_FILL};
use super::style::{self, DrawResult};
use super::units::Scale;

pub struct BarSeries {
    /// Name in the legend; `None` for a chart with one series and nothing to tell apart.
    pub label: Option<String>,
    /// Colour of each category's bar.
    pub colors: Vec<RGBColor>,
    /// Cycles per category; `None` draws no bar.
    pub values: Vec<Option<u64>>,
}

impl BarSeries {
    pub fn uniform(label: Option<String>, color: RGBColor, values: Vec<Option<u64>>) -> Self {
        BarSeries {
            label,
            colors: vec![color; values.len()],
            values,
        }
    }
}

/// How several series share a row.
#[derive(Clone, Copy, PartialEq)]
pub enum Arrangement {
    /// Thinner bars one above the other (the first series on top).
    SideBySide,
    /// Each later series narrower and drawn over the earlier ones (e.g. self inside inclusive).
    Nested,
}

pub struct HorizontalBars {
    pub caption: Option<String>,
    /// Row names, top to bottom.
    pub categories: Vec<String>,
    pub series: Vec<BarSeries>,
    pub arrangement: Arrangement,
    /// Text after each row's longest bar (empty for none).
    pub notes: Vec<String>,
    /// What the bars measure, for the x-axis description; the unit is added.
    pub x_name: String,
}

impl HorizontalBars {
    /// Bar `series` of a row as (bottom, top) offsets from the row's centre.
    fn bar_extent(&self, series: usize) -> (f64, f64) {
        let count = self.series.len().max(1) as f64;
        match self.arrangement {
            Arrangement::SideBySide => {
                let height = ROW_FILL / count;
                let top = ROW_FILL / 2.0 - series as f64 * height;
                (top - height, top)
            }
            Arrangement::Nested => {
                let half = ROW_FILL / 2.0 * (1.0 - 0.45 * series as f64 / count);
                (-half, half)
            }
        }
    }

    /// The longest bar of each row.
    fn row_ends(&self) -> Vec<u64> {
        (0..self.categories.len())
            .map(|row| {
                self.series
                    .iter()
                    .filter_map(|series| series.values.get(row).copied().flatten())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let row_ends = self.row_ends();
        let largest = row_ends.iter().copied().max().unwrap_or(0) as f64;
        let scale = Scale::cycles(largest);
        let frame = RowFrame {
            caption: self.caption.as_deref(),
            labels: &self.categories,
            x_start: 0.0,
            x_end: scale.of(largest),
            longest_note: self
                .notes
                .iter()
                .map(|note| note.chars().count())
                .max()
                .unwrap_or(0),
            legend_entries: self
                .series
                .iter()
                .filter(|series| series.label.is_some())
                .count(),
            x_desc: format!("{} ({})", self.x_name, scale.name),
        };
        let mut chart = frame.build(area)?;

        for (index, series) in self.series.iter().enumerate() {
            let (low, high) = self.bar_extent(index);
            let bars: Vec<_> = series
                .values
                .iter()
                .zip(&series.colors)
                .enumerate()
                .filter_map(|(row, (value, color))| {
                    let y = row_y(&chart, row);
                    value.map(|cycles| {
                        Rectangle::new(
                            [(0.0, y + low), (scale.of(cycles as f64), y + high)],
                            color.filled(),
                        )
                    })
                })
                .collect();
            let drawn = chart.draw_series(bars)?;
            if let (Some(label), Some(&color)) = (&series.label, series.colors.first()) {
                drawn.label(label).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled())
                });
            }
        }
        let notes = self.notes.iter().zip(&row_ends).enumerate();
        rows::draw_notes(
            &chart,
            notes.map(|(row, (note, &end))| {
                (row_y(&chart, row), scale.of(end as f64), note.as_str())
            }),
        )?;
        if frame.legend_entries > 0 {
            style::draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        }
        Ok(())
    }
}
