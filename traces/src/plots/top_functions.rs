//! `top_functions`: the functions with the most self cycles, with their inclusive cycles around them.

use super::bars::{Arrangement, BarSeries, HorizontalBars};
use super::style::{self, Chart, Figure, Panel};
use super::tile_cycles::share_note;
use super::units::label;
use crate::{FunctionProfile, Report};

/// Functions shown.
pub const TOP: usize = 12;
/// Characters of a function name kept on the axis.
pub const NAME_CHARS: usize = 40;

/// The `count` functions with the most self cycles, most first (ties by address, as in the report).
pub fn top(functions: &[FunctionProfile], count: usize) -> Vec<&FunctionProfile> {
    let mut sorted: Vec<&FunctionProfile> = functions.iter().collect();
    sorted.sort_by(|a, b| {
        b.self_cycles
            .cmp(&a.self_cycles)
            .then(a.address.cmp(&b.address))
    });
    sorted.truncate(count);
    sorted
}

pub fn figure(report: &Report) -> Option<Figure> {
    let functions = top(&report.functions, TOP);
    if functions.is_empty() {
        return None;
    }
    let bars = HorizontalBars {
        caption: None,
        categories: functions
            .iter()
            .map(|function| label(&function.name, NAME_CHARS))
            .collect(),
        series: vec![
            BarSeries::uniform(
                Some("inclusive cycles (callees included)".to_string()),
                style::lighter(style::color(0), 0.6),
                functions
                    .iter()
                    .map(|function| Some(function.inclusive_cycles))
                    .collect(),
            ),
            BarSeries::uniform(
                Some("self cycles".to_string()),
                style::color(0),
                functions
                    .iter()
                    .map(|function| Some(function.self_cycles))
                    .collect(),
            ),
        ],
        arrangement: Arrangement::Nested,
        notes: functions
            .iter()
            .map(|function| {
                format!(
                    "self {}",
                    share_note(function.self_cycles, report.totals.cycles)
                )
            })
            .collect(),
        x_name: "cycles".to_string(),
    };
    Some(Figure {
        height: style::height_for_rows(bars.categories.len()),
        title: format!("Top {} functions by self cycles", functions.len()),
        subtitle: style::run_summary(report),
        panels: vec![Panel {
            weight: 1,
            chart: Chart::Bars(bars),
        }],
    })
}
