//! `pareto`: a sweep's points as inference latency against fast-arena peak, coloured by slow-arena
//! traffic, with the Pareto front (points nothing beats on both) joined by a line and every point
//! labelled with its index in the sweep table.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{self, Chart, DrawResult, Figure, Panel, MARGIN, MARGIN_RIGHT, X_LABEL_AREA};
use super::units::{label, tick, Scale};
use crate::sweep::Sweep;

/// Slow-traffic colour bands, light (little traffic) to dark (much).
const BANDS: [RGBColor; 4] = [
    RGBColor(253, 174, 97),
    RGBColor(244, 109, 67),
    RGBColor(190, 30, 45),
    RGBColor(103, 0, 31),
];

pub struct Scatter {
    /// (sweep index, fast peak in bytes, latency in ms, slow traffic in bytes), measured points only.
    points: Vec<(usize, f64, f64, u64)>,
    /// Indexes of the front, in order of rising fast peak.
    front: Vec<usize>,
}

/// A point label: the grid cell it stands for, where it is drawn, the indexes it names.
struct Spot {
    cell: (i64, i64),
    at: (f64, f64),
    text: String,
}

pub fn figure(sweep: &Sweep) -> Option<Figure> {
    let points: Vec<(usize, f64, f64, u64)> = sweep
        .points
        .iter()
        .filter(|p| p.measured())
        .filter_map(|p| {
            let peak = p.tigris.as_ref()?.fast_peak as f64;
            Some((p.index, peak, p.latency_seconds()? * 1e3, p.slow_traffic()))
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let mut front = sweep.pareto_front();
    let peak_of = |i: &usize| points.iter().find(|p| p.0 == *i).map_or(0.0, |p| p.1);
    front.sort_by(|a, b| peak_of(a).total_cmp(&peak_of(b)).then(a.cmp(b)));
    Some(Figure {
        height: style::HEIGHT,
        title: "Sweep: latency against fast-arena peak".to_string(),
        subtitle: format!(
            "{}: {} of {} points measured, {} on the Pareto front",
            label(&sweep.firmware.name, 48),
            points.len(),
            sweep.points.len(),
            front.len()
        ),
        panels: vec![Panel {
            weight: 1,
            chart: Chart::Scatter(Scatter { points, front }),
        }],
    })
}

impl Scatter {
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let peaks = self.points.iter().map(|p| p.1);
        let bytes = Scale::bytes(peaks.clone().fold(0.0, f64::max));
        let x = span(peaks.map(|v| bytes.of(v)));
        let y = span(self.points.iter().map(|p| p.2));
        let mut chart = ChartBuilder::on(area)
            .margin(MARGIN)
            .margin_right(MARGIN_RIGHT)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(70)
            .build_cartesian_2d(x.clone(), y.clone())?;
        style::configure_mesh(&mut chart)
            .x_desc(format!("fast-arena peak ({})", bytes.name))
            .y_desc("inference latency (ms)")
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()?;

        let front: Vec<(f64, f64)> = self
            .front
            .iter()
            .filter_map(|i| self.points.iter().find(|p| p.0 == *i))
            .map(|p| (bytes.of(p.1), p.2))
            .collect();
        chart
            .draw_series(LineSeries::new(front, style::INK.stroke_width(1)))?
            .label("Pareto front")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], style::INK));

        let most_traffic = self.points.iter().map(|p| p.3).max().unwrap_or(0);
        let band_of = |traffic: u64| {
            if most_traffic == 0 {
                0
            } else {
                ((traffic as u128 * BANDS.len() as u128) / (most_traffic as u128 + 1)) as usize
            }
        };
        let traffic_scale = Scale::bytes(most_traffic as f64);
        for (band, color) in BANDS.iter().enumerate() {
            let members: Vec<_> = self
                .points
                .iter()
                .filter(|p| band_of(p.3) == band)
                .collect();
            if members.is_empty() {
                continue;
            }
            let (low, high) = (
                members.iter().map(|p| p.3).min().unwrap_or(0),
                members.iter().map(|p| p.3).max().unwrap_or(0),
            );
            let color = *color;
            chart
                .draw_series(
                    members
                        .iter()
                        .map(|p| Circle::new((bytes.of(p.1), p.2), 6, color.filled())),
                )?
                .label(if low == high {
                    format!("slow traffic {}", traffic_scale.format(low as f64))
                } else {
                    format!(
                        "slow traffic {} to {}",
                        traffic_scale.format(low as f64),
                        traffic_scale.format(high as f64)
                    )
                })
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, color.filled()));
        }
        // One label per spot, up and right of its dots so that they stay visible: points within a
        // fortieth of both axes' spans share it ("#2 #3").
        let mut spots: Vec<Spot> = Vec::new();
        for p in &self.points {
            let at = (bytes.of(p.1), p.2);
            let cell = (
                ((at.0 - x.start) / (x.end - x.start) * 40.0).round() as i64,
                ((at.1 - y.start) / (y.end - y.start) * 40.0).round() as i64,
            );
            match spots.iter_mut().find(|spot| spot.cell == cell) {
                Some(spot) => spot.text.push_str(&format!(" #{}", p.0)),
                None => spots.push(Spot {
                    cell,
                    at,
                    text: format!("#{}", p.0),
                }),
            }
        }
        chart.draw_series(spots.into_iter().map(|spot| {
            EmptyElement::at(spot.at) + Text::new(spot.text, (8, -18), style::text_style())
        }))?;
        style::draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}

/// An axis range around `values` with a tenth of their span (or of their size, when they are all
/// equal) as room on both sides, never below zero.
fn span(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !(low.is_finite() && high.is_finite()) {
        return 0.0..1.0;
    }
    let room = match high - low {
        d if d > 0.0 => d / 10.0,
        _ if high > 0.0 => high / 10.0,
        _ => 1.0,
    };
    (low - room).max(0.0)..high + room
}
