//! Real third-party ESP32 / ESP32-S3 firmware (`../shared/fixtures/`), run on the chip's mask ROM:
//! each test says it skipped when the fixture or the ROM ELF is absent.

mod common;

use common::{fixture, rom_available, run};

/// Host-side guard: the fixture and the board's ROM are both there.
fn inputs(path: &str, rom: &str) -> Option<String> {
    let elf = fixture(path)?;
    if !rom_available(rom) {
        eprintln!("skipped {path}: the mask-ROM ELF {rom} was not found (see docs/esp-idf.md)");
        return None;
    }
    Some(elf)
}

/// The esp-generate template prints `Hello world!` and then busy-waits 500 ms on the chip's timer
/// (SYSTIMER on the ESP32-S3, the timer group's 64-bit LACT timer on the ESP32): in 1.25 s of
/// simulated time it prints at 0, 0.5 and 1.0 s, and the run ends at the cycle limit.
#[test]
fn esp_hal_hello_prints_at_the_template_period() {
    for (board, path, rom) in [
        (
            "esp32s3",
            "esp32s3/esp-hal-hello.elf",
            "esp32s3_rev0_rom.elf",
        ),
        ("esp32", "esp32/esp-hal-hello.elf", "esp32_rev300_rom.elf"),
    ] {
        let Some(elf) = inputs(path, rom) else {
            continue;
        };
        let cycles = (1.25 * 240e6) as u64;
        let (code, r, _) = run(board, &elf, &["--max-cycles", &cycles.to_string()]);
        assert_eq!(code, 124, "{board}: the run ends at the limit");
        assert_eq!(r["outcome"]["limit"], "max_cycles", "{board}");
        let console = r["console"].as_str().unwrap();
        assert_eq!(
            console.matches("Hello world!").count(),
            3,
            "{board}: {console}"
        );
        let main = r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "main")
            .expect("main profiled");
        assert!(
            main["inclusive_cycles"].as_u64().unwrap() > cycles * 9 / 10,
            "{board}: main runs the loop"
        );
    }
}

/// Without the ROM the first ROM call is a clear error naming the function.
#[test]
fn a_rom_call_without_the_rom_names_the_function() {
    let Some(elf) = fixture("esp32s3/esp-hal-hello.elf") else {
        return;
    };
    let (code, r, _) = run("esp32s3", &elf, &["--no-rom"]);
    assert_eq!(code, 125);
    let m = r["fault"]["message"].as_str().unwrap();
    assert!(
        m.contains("the firmware called the ROM function `") && m.contains("--no-rom"),
        "{m}"
    );
}
