//! Board files and chip files of any content: parsed or refused, never a panic.
#![no_main]
libfuzzer_sys::fuzz_target!(|text: &str| {
    let _ = tigris_targets::parse(text, "fuzz.toml");
    let _ = tigris_targets::periph::parse_peripherals(text, "fuzz.toml", &[]);
});
