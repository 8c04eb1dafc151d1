//! Tensor views (`run --views FILE`, `--view`): name any buffer with axes and a layout, and see the
//! data traffic inside it tile by tile (docs/views.md).

mod activations;
pub mod spec;
mod track;

use anyhow::{Context, Result};
use tigris_memmodels::MemorySystem;
use tigris_targets::Board;
use tigris_traces as traces;

use crate::elf::Symbol;
pub use activations::ActivationViews;
pub use spec::{TigrisRequest, ViewSpec};
pub use track::ViewTracker;

/// What `--views FILE` and each `--view` declared.
pub struct Declared {
    /// Views placed now, checked together.
    pub views: Vec<ViewSpec>,
    /// Views of TiGrIS activations, placed when the runtime places them.
    pub tigris: Vec<TigrisRequest>,
    /// Notes on views that overlap.
    pub overlaps: Vec<String>,
}

/// The views of `--views FILE` and of each `--view`.
pub fn load(
    file: Option<&str>,
    short: &[String],
    symbols: &[Symbol],
    board: &Board,
) -> Result<Declared> {
    let (mut views, mut tigris) = (Vec::new(), Vec::new());
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read views file {path}"))?;
        (views, tigris) = spec::parse_file(path, &text, symbols, board)?;
    }
    for (i, arg) in short.iter().enumerate() {
        views.push(spec::parse_short(arg, i, symbols, board)?);
    }
    let overlaps = spec::check_set(&views)?;
    Ok(Declared {
        views,
        tigris,
        overlaps,
    })
}

/// Watch the views' bytes from now on: every data access there is attributed.
pub fn observe(memory: &mut MemorySystem, views: Vec<ViewSpec>) {
    if views.is_empty() {
        return;
    }
    let tracker = ViewTracker::new(views);
    memory.observe(tracker.ranges(), Box::new(tracker));
}

/// Watch one more view from now on (a TiGrIS activation the runtime just placed).
pub fn add(memory: &mut MemorySystem, spec: ViewSpec) {
    let (start, end) = (spec.base, u64::from(spec.base) + spec.bytes);
    match memory
        .observer_mut()
        .and_then(|o| o.as_any_mut().downcast_mut::<ViewTracker>())
    {
        Some(tracker) => {
            tracker.add(spec);
            memory.observe_range(start, end);
        }
        None => observe(memory, vec![spec]),
    }
}

/// Whether a view is named `name`.
pub fn has_view(memory: &MemorySystem, name: &str) -> bool {
    tracker(memory).is_some_and(|t| t.names().any(|n| n == name))
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
