//! Report files of any content: read or refused with a message, never a panic.
#![no_main]
libfuzzer_sys::fuzz_target!(|text: &str| {
    let _ = tigris_traces::Report::from_json(text);
});
