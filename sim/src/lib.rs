//! The parts of `tigris-sim` that read the user's input files on their own, as a library: the ELF
//! loader, the DWARF reader it uses and the unwinder over the ELF's call-frame information. The binary (`main.rs`) uses them from here, and the
//! cargo-fuzz targets in `fuzz/` call them directly.

pub mod dwarf;
pub mod elf;
pub mod unwind;
