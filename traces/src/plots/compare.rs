//! The compare plot: two runs side by side, per TiGrIS stage and tile when both ran TiGrIS, else
//! their totals and their top functions.

use super::bars::{Arrangement, BarSeries, HorizontalBars};
use super::style::{self, Chart, Figure, Panel};
use super::top_functions::{top, NAME_CHARS, TOP};
use super::units::{format_hz, label, significant, TimeScale};
use crate::{Report, TigrisStage};

/// Characters of a run's name kept in the legend and the title.
const RUN_NAME_CHARS: usize = 24;

/// Cycles of one row in the first and the second run (`None` where a run has no such row).
type Pair = (Option<u64>, Option<u64>);

pub fn figure(a: &Report, b: &Report, labels: (&str, &str)) -> Figure {
    let names = (
        label(labels.0, RUN_NAME_CHARS),
        label(labels.1, RUN_NAME_CHARS),
    );
    let subtitle = format!("{}: {};  {}: {}", names.0, brief(a), names.1, brief(b));
    if !stages(a).is_empty() && !stages(b).is_empty() {
        let bars = stage_bars(a, b, &names);
        Figure {
            height: style::height_for_rows(bars.categories.len()),
            title: format!(
                "Cycles per TiGrIS stage and tile: {} vs {}",
                names.0, names.1
            ),
            subtitle,
            panels: vec![Panel {
                weight: 1,
                chart: Chart::Bars(bars),
            }],
        }
    } else {
        let totals = paired_bars(
            vec!["whole run".to_string()],
            vec![(Some(a.totals.cycles), Some(b.totals.cycles))],
            &names,
            false,
        );
        Figure {
            height: style::HEIGHT,
            title: format!("Total cycles and top functions: {} vs {}", names.0, names.1),
            subtitle,
            panels: vec![
                Panel {
                    weight: 1,
                    chart: Chart::Bars(HorizontalBars {
                        x_name: "total cycles".to_string(),
                        ..totals
                    }),
                },
                Panel {
                    weight: 3,
                    chart: Chart::Bars(function_bars(a, b, &names)),
                },
            ],
        }
    }
}

fn stages(report: &Report) -> &[TigrisStage] {
    report.tigris.as_ref().map_or(&[], |tigris| &tigris.stages)
}

fn numbered(stages: &[TigrisStage], number: u16) -> Option<&TigrisStage> {
    stages.iter().find(|stage| stage.stage == number)
}

/// "fw.elf on esp32s3 at 240 MHz, 76.3 ms".
fn brief(report: &Report) -> String {
    let duration = if report.board.clock_hz > 0 {
        format!(
            "{} ms",
            significant(TimeScale::new(report.board.clock_hz).at(report.totals.cycles))
        )
    } else {
        format!("{} cycles", report.totals.cycles)
    };
    format!(
        "{} on {} at {}, {duration}",
        label(&report.firmware.file, 32),
        label(&report.board.name, 20),
        format_hz(report.board.clock_hz)
    )
}

/// Bars of the two runs per row, each row noting how much the second changed from the first.
fn paired_bars(
    categories: Vec<String>,
    values: Vec<Pair>,
    names: &(String, String),
    legend: bool,
) -> HorizontalBars {
    let notes = values
        .iter()
        .map(|pair| match *pair {
            (Some(first), Some(second)) if first > 0 => format!(
                "{:+.1}%",
                (second as f64 - first as f64) * 100.0 / first as f64
            ),
            (Some(_), None) => format!("only in {}", names.0),
            (None, Some(_)) => format!("only in {}", names.1),
            _ => String::new(),
        })
        .collect();
    let series = |name: &String, color, pick: fn(&Pair) -> Option<u64>| {
        BarSeries::uniform(
            legend.then(|| name.clone()),
            style::color(color),
            values.iter().map(pick).collect(),
        )
    };
    HorizontalBars {
        caption: None,
        series: vec![
            series(&names.0, 0, |pair| pair.0),
            series(&names.1, 1, |pair| pair.1),
        ],
        categories,
        arrangement: Arrangement::SideBySide,
        notes,
        x_name: "cycles".to_string(),
    }
}

/// The whole run, then one row per stage (matched by stage number) and, under it, one per tile either
/// run has.
fn stage_bars(a: &Report, b: &Report, names: &(String, String)) -> HorizontalBars {
    let (first, second) = (stages(a), stages(b));
    let mut numbers: Vec<u16> = first.iter().map(|stage| stage.stage).collect();
    numbers.extend(
        second
            .iter()
            .map(|stage| stage.stage)
            .filter(|number| !first.iter().any(|stage| stage.stage == *number)),
    );
    let mut categories = vec!["whole run".to_string()];
    let mut values = vec![(Some(a.totals.cycles), Some(b.totals.cycles))];
    for number in numbers {
        let pair = (numbered(first, number), numbered(second, number));
        let path = pair.0.or(pair.1).map_or("", |stage| stage.path.as_str());
        categories.push(format!("stage {number} ({})", label(path, 16)));
        values.push((
            pair.0.map(|stage| stage.figures.cycles),
            pair.1.map(|stage| stage.figures.cycles),
        ));
        let mut tiles: Vec<u16> = [pair.0, pair.1]
            .iter()
            .flatten()
            .flat_map(|stage| stage.tiles.iter().map(|tile| tile.index))
            .collect();
        tiles.sort_unstable();
        tiles.dedup();
        let tile_cycles = |stage: Option<&TigrisStage>, index| {
            stage
                .and_then(|stage| stage.tiles.iter().find(|tile| tile.index == index))
                .map(|tile| tile.figures.cycles)
        };
        for index in tiles {
            categories.push(format!("stage {number} tile {index}"));
            values.push((tile_cycles(pair.0, index), tile_cycles(pair.1, index)));
        }
    }
    HorizontalBars {
        caption: Some(format!(
            "right of each row: change from {} to {}",
            names.0, names.1
        )),
        ..paired_bars(categories, values, names, true)
    }
}

/// The functions with the most self cycles in either run, by the larger of their two figures.
fn function_bars(a: &Report, b: &Report, names: &(String, String)) -> HorizontalBars {
    let self_cycles = |report: &Report, name: &str| {
        report
            .functions
            .iter()
            .find(|function| function.name == name)
            .map(|function| function.self_cycles)
    };
    let mut functions: Vec<&str> = Vec::new();
    for function in top(&a.functions, TOP)
        .into_iter()
        .chain(top(&b.functions, TOP))
    {
        if !functions.contains(&function.name.as_str()) {
            functions.push(&function.name);
        }
    }
    let larger = |name: &str| self_cycles(a, name).max(self_cycles(b, name));
    functions.sort_by_key(|name| std::cmp::Reverse(larger(name)));
    functions.truncate(TOP);
    let values = functions
        .iter()
        .map(|name| (self_cycles(a, name), self_cycles(b, name)))
        .collect();
    let categories = functions
        .iter()
        .map(|name| label(name, NAME_CHARS))
        .collect();
    HorizontalBars {
        caption: Some(format!(
            "self cycles of the top functions; right of each row: change from {} to {}",
            names.0, names.1
        )),
        x_name: "self cycles".to_string(),
        ..paired_bars(categories, values, names, true)
    }
}
