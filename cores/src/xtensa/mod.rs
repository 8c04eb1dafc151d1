//! Xtensa instruction-set simulator for the ESP32-S3 (LX7), ESP32 (LX6) and ESP8266 (LX106) cores.
//!
//! - [`config`]: option sets of the three cores ([`XtensaConfig::esp32s3`], `esp32`, `esp8266`).
//! - [`decode`] / [`disasm`]: decoder into a compact [`Insn`] and objdump-style text, both reading
//!   the core ISA table of `isa` (a row per opcode: encoding, operands, gate, cost, block end).
//! - [`cpu`]: architectural state, special registers, XEA2 exception/interrupt dispatch.
//! - [`exec`]: block-cached execution engine ([`Xtensa::run`]).
//! - [`backend`]: [`XtensaBackend`], the ISS behind the simulator's `Core` trait on a board's memory map.
//! - [`pie`]: the ESP32-S3 PIE SIMD extension (coprocessor 3): state, decoder table, semantics.
//! - [`bus`]: the memory trait the simulator implements ([`XtensaBus`]) and a flat test memory.
//!
//! Facts (encodings, semantics, timing assumptions) come from these primary sources; comments name them
//! by tag. [Q] marks behaviour taken from QEMU rather than a hardware specification, [U] a fact that is
//! unverified or inferred.
//! - S1: Tensilica `core-isa.h` of each core, espressif/xtensa-overlays @dd1cf19
//!   (`xtensa_{esp32s3,esp32,esp8266}/newlib/newlib/libc/sys/xtensa/include/xtensa/config/core-isa.h`).
//! - S2: the GNU binutils libisa tables of the same overlays (`xtensa_<chip>/binutils/bfd/xtensa-modules.c`).
//! - S3: QEMU `target/xtensa/` (translate.c, win_helper.c, exc_helper.c, fpu_helper.c, cpu.h) [Q].
//! - S4: the ESP32-S3 PIE translator of Espressif's QEMU (`tie_ops[]`, with `cpu_esp32s3.h`) [Q].
//! - S5: ESP-IDF `components/esp_rom/esp32s3/ld/*.ld`, `components/soc/esp32s3/include/soc/soc.h`,
//!   `components/xtensa/esp32s3/include/xtensa/config/tie.h`.
//! - S7: espressif/esp-nn @d45b843, `src/**/*_esp32s3.S`.
//! - S8: GCC `gcc/config/xtensa/xtensa.md` pipeline reservations (the compiler's latency model).
//! - S9: espressif/llvm-project `llvm/lib/Target/Xtensa/XtensaS3DSPInstrInfo.td`, `XtensaInstrInfo.td`.
//! - S10: ESP32-S3 Technical Reference Manual, ESP32 Technical Reference Manual, esp8266-wiki "Memory Map".
//! - S11: ESP-IDF's standard window vector handlers (`_WindowOverflow4` … `_WindowUnderflow12`).
//!
//! ```
//! use tigris_cores::xtensa::{FlatMemory, NoHooks, StopReason, Xtensa, XtensaConfig};
//!
//! let mut mem = FlatMemory::new(); // or the simulator's own `XtensaBus`
//! mem.add_region(0x4000_0000, 0x1000, true);
//! // movi a2, 5 (RRI8: 22 a0 05); simcall (00 51 00)
//! mem.load(0x4000_0000, &[0x22, 0xa0, 0x05, 0x00, 0x51, 0x00]);
//! let mut core = Xtensa::new(XtensaConfig::esp32s3());
//! core.cpu.pc = 0x4000_0000;
//! match core.run(&mut mem, &mut NoHooks, u64::MAX, 1_000_000) {
//!     // Semihosting: the request is in a2 (the simulator answers and resumes).
//!     StopReason::Simcall { pc, args } => assert_eq!((pc, args[0]), (0x4000_0003, 5)),
//!     other => panic!("stopped: {other:?} after {} cycles", core.cpu.cycles),
//! }
//! ```
//!
//! Engine notes (details at the top of [`exec`]): instructions are decoded once into blocks (ending
//! at control flow, special-register writes and exceptions, at most 64 instructions) cached by start
//! PC, looked up through a direct-mapped table that holds the block descriptors (no hashing on the
//! hot path); the cache is flushed when `XtensaBus::code_generation` changes or on `invalidate*`.
//! Interrupts, timers, bus stalls and cycle budgets are checked between blocks; instruction budgets
//! are exact. Most blocks take the plain path, which goes on from block to block itself (through
//! untaken branches within a superblock, into the target after a taken branch or jump) for as long
//! as the run loop would have nothing else to do; breakpoints, priced fetch, per-instruction window
//! checks (blocks that name a pane beyond the current limit), LEND inside a block and budget cuts
//! take the general path. Register windows are kept rotated in `Cpu::ar` (a<i> is `ar[i]`); cores
//! without the windowed-register option and zero-overhead loops run a variant without that code.
//! Whether a block's fetch is priced (`XtensaBus::fetch_priced`) is decided once at decode.
//! Hot plain-path blocks are compiled to host code with Cranelift (`jit`), exactly as the
//! interpreter runs them; `Xtensa::set_block_compiler(false)` interprets everything.
//! [`EspBus`] finds the mapping of an access through a table of 4 KiB pages (one load) and counts
//! accesses that cost nothing per mapping, handing the counts to the memory system when the
//! charged owner changes and at the end of each run; [`XtensaBackend`] leaves plain jumps within
//! the observer's `quiet_jumps` range unreported (the profiler's current function), so the observer
//! runs at calls, returns and function changes.

pub mod backend;
pub mod bus;
pub mod config;
pub mod cpu;
mod debug;
pub mod decode;
pub mod disasm;
pub mod exec;
mod isa;
mod jit;
pub mod pie;
mod pipeline;

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod pie_tests;
#[cfg(test)]
mod tests;

pub use backend::{EspBus, XtensaBackend};
pub use bus::{BusFault, FlatMemory, XtensaBus};
pub use config::{XtensaConfig, XtensaCore, XtensaTiming};
pub use cpu::{cause, AccessKind, Cpu, NoHooks, StopReason, XtensaHooks};
pub use decode::{decode, Insn, Op};
pub use disasm::{disasm, disasm_word};
pub use exec::Xtensa;
pub use pie::PieState;
