//! A chart of quantities over simulated time: step lines, horizontal reference levels and shaded
//! spans (stages).

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{
    self, DrawResult, CAPTION_HEIGHT, CHAR_WIDTH, MARGIN, MARGIN_RIGHT, X_LABEL_AREA,
};
use super::units::{axis_end, tick, Scale, TimeScale};

/// A value holding from `start` to `end` (x in the panel's time unit).
pub struct Step {
    pub start: f64,
    pub end: f64,
    pub value: f64,
}

pub struct StepSeries {
    pub label: String,
    pub color: RGBColor,
    pub steps: Vec<Step>,
}

/// A horizontal line across the whole panel (a budget, a capacity).
pub struct Level {
    pub label: String,
    pub color: RGBColor,
    pub value: f64,
}

/// A shaded time span with a name (a stage).
pub struct Band {
    pub label: String,
    pub start: f64,
    pub end: f64,
}

/// What the y axis shows: bytes, or bytes per time unit.
#[derive(Clone, Copy, PartialEq)]
pub enum Quantity {
    Bytes,
    BytesPerTime,
}

pub struct TimePanel {
    pub caption: Option<String>,
    pub time: TimeScale,
    /// Right end of the x axis (the left end is 0).
    pub x_end: f64,
    /// What is measured, for the y-axis description; the unit is added.
    pub y_name: String,
    pub quantity: Quantity,
    pub series: Vec<StepSeries>,
    pub levels: Vec<Level>,
    pub bands: Vec<Band>,
}

/// Width of the y tick labels and the (rotated) axis description.
const Y_LABEL_AREA: u32 = 64;

type TimeChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

impl TimePanel {
    fn largest(&self) -> f64 {
        let steps = self
            .series
            .iter()
            .flat_map(|series| series.steps.iter().map(|step| step.value));
        steps
            .chain(self.levels.iter().map(|level| level.value))
            .fold(0.0, f64::max)
    }

    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let largest = self.largest();
        let scale = Scale::bytes(largest);
        let unit = match self.quantity {
            Quantity::Bytes => scale.name.to_string(),
            Quantity::BytesPerTime => format!("{} per {}", scale.name, self.time.unit()),
        };
        // Headroom above the data for the legend, so that it covers no line.
        let legend_rows = self.series.len() + self.levels.len();
        let caption_height = if self.caption.is_some() {
            CAPTION_HEIGHT
        } else {
            0
        };
        let plot_height = area
            .dim_in_pixel()
            .1
            .saturating_sub(X_LABEL_AREA + 2 * MARGIN + caption_height)
            .max(40);
        let legend_share = (style::legend_height(legend_rows) as f64 / plot_height as f64).min(0.6);
        let y_end = axis_end(scale.of(largest)) / (1.0 - legend_share);
        let x_end = if self.x_end.is_finite() && self.x_end > 0.0 {
            self.x_end
        } else {
            1.0
        };

        let mut builder = ChartBuilder::on(area);
        builder
            .margin(MARGIN)
            .margin_right(MARGIN_RIGHT)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA);
        if let Some(caption) = &self.caption {
            builder.caption(caption, style::axis_desc_style());
        }
        let mut chart = builder.build_cartesian_2d(0.0..x_end, 0.0..y_end)?;
        self.draw_bands(&mut chart, y_end)?;
        style::configure_mesh(&mut chart)
            .x_desc(self.time.axis_label())
            .y_desc(format!("{} ({unit})", self.y_name))
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()?;
        for level in &self.levels {
            let line = vec![(0.0, scale.of(level.value)), (x_end, scale.of(level.value))];
            let line_style = level.color.stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new(line, 10, 6, line_style))?
                .label(&level.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line_style));
        }
        for series in &self.series {
            let points = series.steps.iter().flat_map(|step| {
                [
                    (step.start, scale.of(step.value)),
                    (step.end, scale.of(step.value)),
                ]
            });
            let line_style = series.color.stroke_width(2);
            chart
                .draw_series(LineSeries::new(points, line_style))?
                .label(&series.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line_style));
        }
        if legend_rows > 0 {
            style::draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    }

    /// Alternating shades, each labelled at its top left when the label fits inside.
    fn draw_bands<DB: DrawingBackend>(
        &self,
        chart: &mut TimeChart<DB>,
        y_end: f64,
    ) -> DrawResult<DB> {
        let shades = [RGBColor(236, 242, 250), RGBColor(250, 244, 232)];
        for (index, band) in self.bands.iter().enumerate() {
            let shade = shades[index % shades.len()];
            chart.draw_series([Rectangle::new(
                [(band.start, 0.0), (band.end, y_end)],
                shade.filled(),
            )])?;
            let left = chart.backend_coord(&(band.start, y_end));
            let right = chart.backend_coord(&(band.end, y_end));
            let label_width = band.label.chars().count() as i32 * CHAR_WIDTH as i32 + 8;
            if right.0 - left.0 >= label_width {
                let label = Text::new(band.label.clone(), (4, 4), style::text_style());
                chart
                    .plotting_area()
                    .draw(&(EmptyElement::at((band.start, y_end)) + label))?;
            }
        }
        Ok(())
    }
}
