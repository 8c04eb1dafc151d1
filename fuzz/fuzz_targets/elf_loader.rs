//! Any bytes given as a firmware ELF load or are refused with a message on a Cortex-M and an
//! Xtensa board, and a loaded image's symbols (and their DWARF lines and call-frame entries) can be
//! looked up, without a panic.
#![no_main]
use tigris_sim::elf::{parse, SymbolMap};

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    for board in ["mps2-an386", "esp32s3"] {
        let board = tigris_targets::load(board).expect("a built-in board");
        let Ok(firmware) = parse("fuzz.elf", bytes, &board) else {
            continue;
        };
        let symbols = SymbolMap::of(&firmware);
        for addr in [firmware.entry, 0, u32::MAX] {
            let _ = symbols.describe(addr);
            let _ = symbols.source(addr);
            if let Some(call_frames) = &firmware.call_frames {
                let _ = call_frames.covers(addr);
            }
        }
    }
});
