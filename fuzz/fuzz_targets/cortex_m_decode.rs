//! Any Thumb bytes decode and price on every Cortex-M core without a panic, whether capstone
//! takes them as instructions or not.
#![no_main]
use tigris_cores::cortex_m::timing::price_code;
use tigris_targets::CoreKind;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    for kind in [
        CoreKind::CortexM0Plus,
        CoreKind::CortexM3,
        CoreKind::CortexM4,
        CoreKind::CortexM7,
        CoreKind::CortexM33,
    ] {
        let priced = price_code(kind, bytes, 0x100).expect("capstone sets up for every core");
        assert!(priced.iter().all(|(_, cycles)| *cycles < 1000), "{priced:?}");
    }
});
