//! TiGrIS integration: the `.tgrs` plan reader, tensor addressing, the runtime observer that breaks
//! an inference down by stage, tile and op (from trace events, or derived from the runtime's calls), and what-if runs with another plan or other arenas
//! (sources: tigris-ml 0.12.1 and tigris-runtime files named in each module; Hurray Format
//! Specification "Memory Layout" and "Tiled / Blocked Layout" for tensors).

mod derive;
pub mod layout;
pub mod plan;
pub mod runtime;
pub mod whatif;
