//! `tile_cycles`: cycles of every TiGrIS tile, grouped by stage; an untiled stage is one bar.

use super::bars::{Arrangement, BarSeries, HorizontalBars};
use super::style::{self, Chart, Figure, Panel};
use super::units::Scale;
use crate::Report;

pub fn figure(report: &Report) -> Option<Figure> {
    let tigris = report.tigris.as_ref()?;
    if tigris.stages.is_empty() {
        return None;
    }
    let mut categories = Vec::new();
    let mut colors = Vec::new();
    let mut values = Vec::new();
    // Stages alternate colours so that their groups of tiles stand apart.
    for (ordinal, stage) in tigris.stages.iter().enumerate() {
        let color = style::color(ordinal % 2);
        if stage.tiles.is_empty() {
            categories.push(format!("stage {}", stage.stage));
            colors.push(color);
            values.push(stage.figures.cycles);
        }
        for tile in &stage.tiles {
            categories.push(format!("stage {} tile {}", stage.stage, tile.index));
            colors.push(color);
            values.push(tile.figures.cycles);
        }
    }
    let inference = tigris
        .stages
        .iter()
        .fold(0u64, |sum, stage| sum.saturating_add(stage.figures.cycles));
    let notes = values
        .iter()
        .map(|&cycles| share_note(cycles, inference))
        .collect();
    let bars = HorizontalBars {
        caption: Some("right of each bar: its cycles and their share of all stages".to_string()),
        categories,
        series: vec![BarSeries {
            label: None,
            colors,
            values: values.into_iter().map(Some).collect(),
        }],
        arrangement: Arrangement::SideBySide,
        notes,
        x_name: "cycles".to_string(),
    };
    Some(Figure {
        height: style::height_for_rows(bars.categories.len()),
        title: "Cycles per TiGrIS tile, by stage".to_string(),
        subtitle: style::run_summary(report),
        panels: vec![Panel {
            weight: 1,
            chart: Chart::Bars(bars),
        }],
    })
}

/// "3.49 Mcycles, 31%": the bar's value and its share of `whole`.
pub fn share_note(cycles: u64, whole: u64) -> String {
    let value = Scale::cycles(cycles as f64).format(cycles as f64);
    if whole == 0 {
        value
    } else {
        format!("{value}, {:.1}%", cycles as f64 * 100.0 / whole as f64)
    }
}
