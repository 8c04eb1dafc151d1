//! Reader for TiGrIS `.tgrs` execution plans, schema 1 to 10, and `tigris-sim plan inspect`.
//!
//! The format facts come from tigris-ml 0.12.1 `tigris/emitters/binary/` (writer.py, reader.py, defs.py)
//! and tigris-runtime include/tigris.h (header, section directory, record layouts, parsing checks) and
//! from tigris-ml 0.12.1 `tigris/analysis/partition_spatial.py` (planner formulas); they were checked
//! against the tigris-ml 0.12.1 package:
//! `tigris/schema/tigris-plan-v10.json` (op-type codes, attribute kinds, record sizes, tile-plan v10
//! field offsets), `tigris/emitters/binary/defs.py` (struct formats) and the behaviour of
//! `tigris inspect --json` on the package's schema-compatibility plans and on plans it compiled.
//! Schema 1 (32-byte ops with one-byte pads and dilations, no quant pages, no stage flags) comes from
//! tigris-ml 0.3.1 `tigris/emitters/binary/` (defs.py, writer.py, reader.py) and raws-labs/tigris-runtime
//! `include/tigris.h` and `src/tigris_loader.c` (commit 555e105), checked against `read_binary_plan()`
//! of tigris-ml 0.3.1 on plans that release compiled.
//! Nothing here is copied from tigris-ml or tigris-runtime; the code is our own.
//!
//! The parser never panics on any input: every read is bounds-checked against the section it belongs
//! to, and every failure is a [`PlanError`](reader::PlanError) that names the field, section and byte
//! offset.
//!
//! - `format`: magic, record sizes, schema milestones, flags and the code tables (op types, attribute
//!   kinds, data types);
//! - `reader`: the errors, the section directory's types and the bounds-checked byte access;
//! - `model`: the decoded plan;
//! - `parse`: `.tgrs` bytes to a checked [`Plan`];
//! - `summary`: the schema-10 tile summary re-derived from shapes and ops;
//! - `predict`: what the planner predicted per stage and what the runtime needs;
//! - `json`, `text`: the two views of `plan inspect`;
//! - `units`: the units a runtime runs and their rows per tile, for the derived breakdown;
//! - `cli`: the `plan` subcommand.

mod cli;
mod format;
mod json;
mod model;
mod parse;
mod predict;
mod reader;
mod summary;
#[cfg(test)]
mod tests;
mod text;
mod units;

pub(crate) use cli::{run, PlanCommand};
pub(crate) use format::{MAX_SCHEMA, MIN_SCHEMA};
pub(crate) use model::Plan;
pub(crate) use predict::Execution;
pub(crate) use units::Unit;
