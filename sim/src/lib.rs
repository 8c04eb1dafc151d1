//! The parts of `tigris-sim` that read the user's input files on their own, as a library: the ELF
//! loader and the DWARF reader it uses. The binary (`main.rs`) uses them from here, and the
//! cargo-fuzz targets in `fuzz/` call them directly.

pub mod dwarf;
pub mod elf;
