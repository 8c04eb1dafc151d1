//! Sizes, colours and the frame shared by every plot: a figure is a title, a subtitle naming the run,
//! and panels stacked from top to bottom.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::bars::HorizontalBars;
use super::gantt::Gantt;
use super::pareto::Scatter;
use super::timechart::TimePanel;
use super::units::{format_hz, label, significant, Scale, TimeScale};
use super::view_heatmap::Heatmap;
use crate::Report;

/// Width of every plot and height of the plots over time, in pixels.
pub const WIDTH: u32 = 1024;
pub const HEIGHT: u32 = 640;

/// Height of a figure with one row chart of `rows` rows: up to 48 pixels a row, at most `HEIGHT`.
pub fn height_for_rows(rows: usize) -> u32 {
    (180 + 48 * rows.min(HEIGHT as usize) as u32).clamp(240, HEIGHT)
}

/// Font sizes in plotters' pixel units; the PNG font draws 14-19 at scale 1 and 20-31 at scale 2.
const TITLE_SIZE: f64 = 26.0;
const TEXT_SIZE: f64 = 15.0;
const AXIS_DESC_SIZE: f64 = 17.0;
/// Space around a chart, more on the right where the last x tick label sticks out.
pub const MARGIN: u32 = 12;
pub const MARGIN_RIGHT: u32 = 28;
/// Height of the x tick labels and axis description under a chart.
pub const X_LABEL_AREA: u32 = 50;
/// Height of a chart's caption.
pub const CAPTION_HEIGHT: u32 = 30;

/// Width of one character of tick-label text in pixels (PNG font at scale 1, SVG sans-serif at 12 px).
pub const CHAR_WIDTH: u32 = 7;

/// Distinct colours for series, in the order series are given them.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

pub fn color(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// `color` mixed with white: `amount` 0 keeps it, 1 gives white.
pub fn lighter(color: RGBColor, amount: f64) -> RGBColor {
    let mix = |c: u8| (c as f64 + (255.0 - c as f64) * amount).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

pub const INK: RGBColor = RGBColor(40, 40, 40);

pub fn text_style() -> TextStyle<'static> {
    ("sans-serif", TEXT_SIZE).into_font().color(&INK)
}

pub fn axis_desc_style() -> TextStyle<'static> {
    ("sans-serif", AXIS_DESC_SIZE).into_font().color(&INK)
}

pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A whole plot: what `write_plots` writes to one NAME.svg and NAME.png.
pub struct Figure {
    /// Canvas height in pixels (the width is `WIDTH`).
    pub height: u32,
    pub title: String,
    pub subtitle: String,
    pub panels: Vec<Panel>,
}

/// One chart of a figure; `weight` is its share of the figure's height.
pub struct Panel {
    pub weight: u32,
    pub chart: Chart,
}

pub enum Chart {
    Time(TimePanel),
    Bars(HorizontalBars),
    Gantt(Gantt),
    Scatter(Scatter),
    Heatmap(Heatmap),
}

impl Figure {
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        root.fill(&WHITE)?;
        let area = root.titled(
            &self.title,
            ("sans-serif", TITLE_SIZE).into_font().color(&BLACK),
        )?;
        let area = area.titled(&self.subtitle, text_style().color(&RGBColor(90, 90, 90)))?;
        let total_weight = self
            .panels
            .iter()
            .map(|panel| panel.weight as i64)
            .sum::<i64>()
            .max(1);
        let height = area.dim_in_pixel().1 as i64;
        let mut above = 0;
        let mut breaks = Vec::new();
        for panel in self.panels.iter().take(self.panels.len().saturating_sub(1)) {
            above += panel.weight as i64;
            breaks.push((height * above / total_weight) as i32);
        }
        let parts = area.split_by_breakpoints(Vec::<i32>::new(), breaks);
        for (panel, part) in self.panels.iter().zip(&parts) {
            match &panel.chart {
                Chart::Time(chart) => chart.draw(part)?,
                Chart::Bars(chart) => chart.draw(part)?,
                Chart::Gantt(chart) => chart.draw(part)?,
                Chart::Scatter(chart) => chart.draw(part)?,
                Chart::Heatmap(chart) => chart.draw(part)?,
            }
        }
        Ok(())
    }
}

/// The line under every title: which firmware ran on which board, and how long it took.
pub fn run_summary(report: &Report) -> String {
    let cycles = Scale::cycles(report.totals.cycles as f64).format(report.totals.cycles as f64);
    let duration = if report.board.clock_hz > 0 {
        format!(
            "{} ms, {cycles}",
            significant(TimeScale::new(report.board.clock_hz).at(report.totals.cycles))
        )
    } else {
        cycles
    };
    format!(
        "{} on {} ({} at {}): {duration} simulated",
        label(&report.firmware.file, 48),
        label(&report.board.name, 32),
        label(&report.board.core, 24),
        format_hz(report.board.clock_hz),
    )
}

/// Mesh style shared by the charts: light grid, tick labels and axis descriptions in our sizes.
pub fn configure_mesh<'a, 'b, X, Y, DB>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> plotters::chart::MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged + plotters::coord::ranged1d::ValueFormatter<X::ValueType>,
    Y: Ranged + plotters::coord::ranged1d::ValueFormatter<Y::ValueType>,
    DB: DrawingBackend,
{
    let mut mesh = chart.configure_mesh();
    mesh.label_style(text_style())
        .axis_desc_style(axis_desc_style())
        .bold_line_style(RGBColor(225, 225, 225))
        .max_light_lines(0)
        .axis_style(RGBColor(120, 120, 120));
    mesh
}

/// Pixels of the legend box for `entries` series.
pub fn legend_height(entries: usize) -> u32 {
    entries as u32 * 20 + 24
}

/// The legend of the series that have labels, at `position` inside the plot.
pub fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> DrawResult<DB> {
    chart
        .configure_series_labels()
        .position(position)
        .margin(8)
        .label_font(text_style())
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(180, 180, 180))
        .draw()
}
