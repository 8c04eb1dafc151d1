//! Any instruction bytes decode and disassemble on every Xtensa configuration without a panic.
#![no_main]
use tigris_cores::xtensa::{config::XtensaConfig, decode::decode, disasm::disasm_word};

libfuzzer_sys::fuzz_target!(|bytes: [u8; 8]| {
    let word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let pc = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    for cfg in [
        XtensaConfig::esp32s3(),
        XtensaConfig::esp32(),
        XtensaConfig::esp8266(),
    ] {
        let _ = decode(word, pc, &cfg);
        let _ = disasm_word(word, pc, &cfg);
    }
});
