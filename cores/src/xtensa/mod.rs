//! Xtensa instruction-set simulator for the ESP32-S3 (LX7), ESP32 (LX6) and ESP8266 (LX106) cores.
//!
//! - [`config`]: option sets of the three cores ([`XtensaConfig::esp32s3`], `esp32`, `esp8266`).
//! - [`decode`] / [`disasm`]: decoder into a compact [`Insn`] and objdump-style text.
//! - [`cpu`]: architectural state, special registers, XEA2 exception/interrupt dispatch.
//! - [`exec`]: block-cached execution engine ([`Xtensa::run`]).
//! - [`bus`]: the memory trait the simulator implements ([`XtensaBus`]) and a flat test memory.
//!
//! Facts (encodings, semantics, timing assumptions) come from `facts/xtensa.md`; comments cite its sections.

pub mod bus;
pub mod config;
pub mod cpu;
pub mod decode;
pub mod disasm;
pub mod exec;

#[cfg(test)]
mod tests;

pub use bus::{BusFault, FlatMemory, XtensaBus};
pub use config::{XtensaConfig, XtensaCore, XtensaTiming};
pub use cpu::{cause, AccessKind, Cpu, NoHooks, StopReason, XtensaHooks};
pub use decode::{decode, Insn, Op};
pub use disasm::{disasm, disasm_word};
pub use exec::Xtensa;
