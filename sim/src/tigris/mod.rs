//! TiGrIS integration: the `.tgrs` plan reader, tensor addressing, and the runtime observer that breaks
//! an inference down by stage, tile and op (facts: shared/facts/tigris.md, shared/facts/layouts.md).

pub mod layout;
pub mod plan;
pub mod runtime;
