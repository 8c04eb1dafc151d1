//! `arena`: TiGrIS fast-arena occupancy over time, against the plan's budget and the arena's size.

use super::style::{self, Chart, Figure, Panel};
use super::timechart::{Band, Level, Quantity, Step, StepSeries, TimePanel};
use super::units::{Scale, TimeScale};
use crate::Report;

pub fn figure(report: &Report) -> Option<Figure> {
    let tigris = report.tigris.as_ref()?;
    let events = &tigris.timeline;
    let last = events.last()?;
    let time = TimeScale::new(report.board.clock_hz);
    // The occupancy a trace event reports holds until the next event.
    let steps: Vec<Step> = events
        .iter()
        .zip(
            events
                .iter()
                .skip(1)
                .map(|next| next.cycle)
                .chain([last.cycle]),
        )
        .map(|(event, until)| Step {
            start: time.at(event.cycle),
            end: time.at(until.max(event.cycle)),
            value: event.fast_used as f64,
        })
        .collect();
    let peak = events
        .iter()
        .map(|event| event.fast_used)
        .max()
        .unwrap_or(0) as f64;

    let budget = tigris.plan.as_ref().and_then(|plan| plan.budget);
    let arena_size = tigris.arenas.as_ref().map(|arenas| arenas.fast_size);
    let describe = |name: &str, bytes: u32| {
        format!(
            "{name} ({})",
            Scale::bytes(bytes as f64).format(bytes as f64)
        )
    };
    let levels = match (budget, arena_size) {
        (Some(budget), Some(size)) if budget == size => {
            vec![Level {
                label: describe("plan budget = arena size", budget),
                color: style::color(3),
                value: budget as f64,
            }]
        }
        _ => [("plan budget", budget, 3), ("arena size", arena_size, 4)]
            .into_iter()
            .filter_map(|(name, bytes, color)| {
                bytes.map(|bytes| Level {
                    label: describe(name, bytes),
                    color: style::color(color),
                    value: bytes as f64,
                })
            })
            .collect(),
    };

    let bands = tigris
        .stages
        .iter()
        .map(|stage| Band {
            label: format!("stage {}", stage.stage),
            start: time.at(stage.start_cycle),
            end: time.at(stage.start_cycle.saturating_add(stage.figures.cycles)),
        })
        .collect();
    let run_end = report.totals.cycles.max(last.cycle);
    let panel = TimePanel {
        caption: None,
        time,
        x_end: time.at(run_end),
        y_name: "fast arena in use".to_string(),
        quantity: Quantity::Bytes,
        series: vec![StepSeries {
            label: format!(
                "in use, as the runtime reports it (peak {})",
                Scale::bytes(peak).format(peak)
            ),
            color: style::color(0),
            steps,
        }],
        levels,
        bands,
    };
    Some(Figure {
        height: style::HEIGHT,
        title: "TiGrIS fast-arena use over time".to_string(),
        subtitle: style::run_summary(report),
        panels: vec![Panel {
            weight: 1,
            chart: Chart::Time(panel),
        }],
    })
}
