//! Tensor views (`run --views FILE`, `--view`): name any buffer with axes and a layout, and see the
//! data traffic inside it tile by tile (docs/views.md).

pub mod spec;
mod track;

use anyhow::{Context, Result};
use tigris_memmodels::MemorySystem;
use tigris_targets::Board;
use tigris_traces as traces;

use crate::elf::Symbol;
pub use spec::ViewSpec;
pub use track::ViewTracker;

/// The views of `--views FILE` and of each `--view`, checked together; with the notes on views
/// that overlap.
pub fn load(
    file: Option<&str>,
    short: &[String],
    symbols: &[Symbol],
    board: &Board,
) -> Result<(Vec<ViewSpec>, Vec<String>)> {
    let mut views = Vec::new();
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read views file {path}"))?;
        views = spec::parse_file(path, &text, symbols, board)?;
    }
    for (i, arg) in short.iter().enumerate() {
        views.push(spec::parse_short(arg, i, symbols, board)?);
    }
    let overlaps = spec::check_set(&views)?;
    Ok((views, overlaps))
}

/// Watch the views' bytes from now on: every data access there is attributed.
pub fn observe(memory: &mut MemorySystem, views: Vec<ViewSpec>) {
    if views.is_empty() {
        return;
    }
    let tracker = ViewTracker::new(views);
    memory.observe(tracker.ranges(), Box::new(tracker));
}

/// The views' profiles so far (none when no view was declared).
pub fn profiles(memory: &MemorySystem) -> Vec<traces::TensorViewProfile> {
    tracker(memory)
        .map(ViewTracker::profiles)
        .unwrap_or_default()
}

/// Bytes read and written in each view so far, for the timeline.
pub fn traffic(memory: &MemorySystem) -> Vec<[u64; 2]> {
    tracker(memory)
        .map(ViewTracker::traffic)
        .unwrap_or_default()
}

fn tracker(memory: &MemorySystem) -> Option<&ViewTracker> {
    memory
        .observer()
        .and_then(|o| o.as_any().downcast_ref::<ViewTracker>())
}
