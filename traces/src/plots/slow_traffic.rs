//! `slow_traffic`: bytes moved to and from slow memory over time, as average rates per interval: the
//! TiGrIS slow arena from the runtime's trace events, and every region that is not SRAM (PSRAM,
//! flash, ROM) from the timeline samples.

use super::style::{self, Chart, Figure, Panel};
use super::timechart::{Quantity, Step, StepSeries, TimePanel};
use super::units::{label, Scale, TimeScale};
use crate::{Report, Timeline};

/// Most intervals the trace events are binned into; longer runs get wider intervals.
const MAX_BINS: u64 = 4096;
/// Intervals of a run without timeline samples.
const DEFAULT_BINS: u64 = 256;

pub fn figure(report: &Report) -> Option<Figure> {
    let time = TimeScale::new(report.board.clock_hz);
    let run_end = run_end(report);
    let panels: Vec<Panel> = [
        tigris_panel(report, time, run_end),
        region_panel(report, time, run_end),
    ]
    .into_iter()
    .flatten()
    .map(|panel| Panel {
        weight: 1,
        chart: Chart::Time(panel),
    })
    .collect();
    if panels.is_empty() {
        return None;
    }
    Some(Figure {
        height: style::HEIGHT,
        title: "Slow-memory traffic over time".to_string(),
        subtitle: style::run_summary(report),
        panels,
    })
}

fn run_end(report: &Report) -> u64 {
    let last_event = report
        .tigris
        .as_ref()
        .and_then(|tigris| tigris.timeline.last())
        .map_or(0, |event| event.cycle);
    let last_sample = report
        .timeline
        .as_ref()
        .and_then(|timeline| timeline.samples.last())
        .map_or(0, |sample| sample.cycle);
    report.totals.cycles.max(last_event).max(last_sample)
}

fn series_label(name: &str, bytes: u64) -> String {
    format!(
        "{name} ({} in all)",
        Scale::bytes(bytes as f64).format(bytes as f64)
    )
}

/// The slow arena's reads and writes per interval (the sampling interval when the report has one), from
/// the running totals of the trace events.
fn tigris_panel(report: &Report, time: TimeScale, run_end: u64) -> Option<TimePanel> {
    let tigris = report.tigris.as_ref()?;
    let events = &tigris.timeline;
    let interval = report
        .timeline
        .as_ref()
        .map(|timeline| timeline.interval_cycles)
        .filter(|&cycles| cycles > 0)
        .unwrap_or(run_end / DEFAULT_BINS)
        .max(run_end.div_ceil(MAX_BINS))
        .max(1);
    let directions = [
        (
            "slow-arena reads",
            events
                .iter()
                .map(|event| (event.cycle, event.slow_read_bytes))
                .collect::<Vec<_>>(),
            0,
        ),
        (
            "slow-arena writes",
            events
                .iter()
                .map(|event| (event.cycle, event.slow_write_bytes))
                .collect(),
            1,
        ),
    ];
    let series: Vec<StepSeries> = directions
        .into_iter()
        .filter_map(|(name, totals, color)| {
            let bytes = totals.iter().map(|&(_, total)| total).max().unwrap_or(0);
            (bytes > 0).then(|| StepSeries {
                label: series_label(name, bytes),
                color: style::color(color),
                steps: binned_rates(&totals, interval, run_end, time),
            })
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    let region = tigris
        .arenas
        .as_ref()
        .and_then(|arenas| arenas.slow_region.as_deref())
        .unwrap_or("slow memory");
    Some(traffic_panel(
        format!(
            "TiGrIS slow arena ({}) from trace events, averaged over {}-cycle intervals",
            label(region, 24),
            interval
        ),
        time,
        run_end,
        series,
    ))
}

/// Rates per interval of a counter known at some cycles: (cycle, running total). The runtime reports a
/// load or spill right after its copy, so the bytes a counter gained since the previous event go to
/// the interval of the event that shows them.
pub(super) fn binned_rates(
    totals: &[(u64, u64)],
    interval: u64,
    run_end: u64,
    time: TimeScale,
) -> Vec<Step> {
    let bins = run_end.div_ceil(interval).max(1);
    let mut bytes = vec![0.0; bins as usize];
    let mut before = 0;
    for &(cycle, total) in totals {
        // A counter that went down was restarted; it adds nothing until it grows again.
        bytes[(cycle / interval).min(bins - 1) as usize] += total.saturating_sub(before) as f64;
        before = total;
    }
    bytes
        .iter()
        .enumerate()
        .map(|(bin, &moved)| {
            let start = bin as u64 * interval;
            let end = start
                .saturating_add(interval)
                .min(run_end.max(start.saturating_add(1)));
            Step {
                start: time.at(start),
                end: time.at(end),
                value: moved / time.at(end - start),
            }
        })
        .collect()
}

/// Regions whose kind is not SRAM (nor MMIO, which is no memory): bytes read and written per sample.
fn region_panel(report: &Report, time: TimeScale, run_end: u64) -> Option<TimePanel> {
    let timeline = report.timeline.as_ref()?;
    let mut series = Vec::new();
    for (index, region) in report.regions.iter().enumerate() {
        let kind = region.kind.to_ascii_lowercase();
        if kind == "sram" || kind == "mmio" || kind.contains("tcm") {
            continue;
        }
        for (direction, read) in [("read", true), ("written", false)] {
            let totals = sample_totals(timeline, index, read);
            let bytes = totals.iter().map(|&(_, total)| total).max().unwrap_or(0);
            if bytes > 0 {
                series.push(StepSeries {
                    label: series_label(&format!("{} {direction}", label(&region.name, 24)), bytes),
                    color: style::color(series.len()),
                    steps: sample_rates(&totals, time),
                });
            }
        }
    }
    if series.is_empty() {
        return None;
    }
    Some(traffic_panel(
        format!(
            "Memory regions other than SRAM, from timeline samples ({} cycles apart)",
            timeline.interval_cycles
        ),
        time,
        run_end,
        series,
    ))
}

/// A panel of traffic rates over the whole run.
fn traffic_panel(
    caption: String,
    time: TimeScale,
    run_end: u64,
    series: Vec<StepSeries>,
) -> TimePanel {
    TimePanel {
        caption: Some(caption),
        time,
        x_end: time.at(run_end),
        y_name: "traffic".to_string(),
        quantity: Quantity::BytesPerTime,
        series,
        levels: Vec::new(),
        bands: Vec::new(),
    }
}

/// (cycle, running total) of one region's bytes read or written, from reset.
fn sample_totals(timeline: &Timeline, region: usize, read: bool) -> Vec<(u64, u64)> {
    let samples = timeline.samples.iter().map(|sample| {
        let totals = if read {
            &sample.read_bytes
        } else {
            &sample.write_bytes
        };
        (sample.cycle, totals.get(region).copied().unwrap_or(0))
    });
    [(0, 0)].into_iter().chain(samples).collect()
}

/// The average rate between consecutive samples.
pub(super) fn sample_rates(totals: &[(u64, u64)], time: TimeScale) -> Vec<Step> {
    totals
        .windows(2)
        .filter(|pair| pair[1].0 > pair[0].0)
        .map(|pair| {
            let (start, before) = pair[0];
            let (end, after) = pair[1];
            Step {
                start: time.at(start),
                end: time.at(end),
                value: after.saturating_sub(before) as f64 / time.at(end - start),
            }
        })
        .collect()
}
