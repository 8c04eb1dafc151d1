//! Property tests: board files, chip files, `--set` overrides and sizes, mutated at random, give a
//! result or an error, never a panic (bounded cases; longer campaigns belong to a fuzzer).

use super::*;
use proptest::prelude::*;

/// `text` with each `(position, byte)` edit applied (positions wrap around the text).
fn mutated(text: &str, edits: &[(usize, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(at, b) in edits {
        let i = at % bytes.len();
        bytes[i] = b;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mutated_board_files_never_panic(
        board in 0..BUILTIN.len(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
    ) {
        let _ = parse(&mutated(BUILTIN[board].1, &edits), "fuzz.toml");
    }

    #[test]
    fn mutated_chip_files_never_panic(
        chip in 0..periph::builtin_peripheral_files().len(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6),
    ) {
        let name = periph::builtin_peripheral_files()[chip];
        let text = periph::builtin_peripheral_text(name).expect("a built-in chip file");
        let _ = periph::parse_peripherals(&mutated(text, &edits), "fuzz.toml", &[]);
    }

    #[test]
    fn overrides_never_panic(key in "[a-z_0-9.]{1,24}", value in "\\PC{0,16}") {
        let _ = load_with("esp32s3", &[format!("{key}={value}")]);
        let _ = load_with("stm32f446re", &[format!("{key}={value}")]);
    }

    #[test]
    fn sizes_never_panic(text in "\\PC{0,16}") {
        let _ = parse_size(&text);
    }
}
