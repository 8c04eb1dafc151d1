//! Real third-party ESP32 / ESP32-S3 / ESP8266 firmware (`../shared/fixtures/`), the ESP32 chips on
//! their mask ROM: each test says it skipped when the fixture or the ROM ELF is absent.

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
        let main = common::function(&r, "main");
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

/// esp8266-hal's blinky arms FRC1 for 500 ms periods (load 156,250 at 80 MHz / 256), waits on its
/// interrupt status, and toggles GPIO2 through GPIO_IN / OUT_W1TS / OUT_W1TC: in 1.25 s the pin
/// is set at start, cleared at 0.5 s and set again at 1.0 s, and the report says so.
#[test]
fn esp8266_blinky_toggles_its_pin_on_the_frc1_period() {
    let Some(elf) = fixture("esp8266/esp8266-hal-blinky.elf") else {
        return;
    };
    let (code, r, _) = run("esp8266", &elf, &["--max-cycles", "100000000"]);
    assert_eq!(code, 124);
    let notes: Vec<&str> = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    let gpio = notes
        .iter()
        .find(|n| n.starts_with("GPIO.OUT changed"))
        .unwrap_or_else(|| panic!("no GPIO record in {notes:?}"));
    assert!(
        gpio.starts_with("GPIO.OUT changed 3 times (bits 0x00000004 toggled; 0x00000004 at 0.027 ms, 0x00000000 at 500.041 ms, 0x00000004 at 1000.041 ms"),
        "{gpio}"
    );
    assert!(
        notes.contains(&"FRC1.CTRL expired 2 times (latest period 500.000 ms)"),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("polls")),
        "waiting on a running timer is not a poll without progress: {notes:?}"
    );
}

/// ESP-IDF start-up on the ESP32-S3 (the esp-coredump test app, built for quad PSRAM): through
/// the ROM's cache routines, the flash and PSRAM ID reads over SPI1 and the PSRAM driver, to the
/// APP CPU's start on the second core. The default board's PSRAM follows the driver: the quad
/// driver's first command fits a quad chip in place of the octal one, and the report says so.
#[test]
fn esp_idf_s3_start_up_finds_its_quad_psram() {
    let Some(elf) = inputs("esp32s3/idf-coredump-test.elf", "esp32s3_rev0_rom.elf") else {
        return;
    };
    let (_, r, _) = run("esp32s3", &elf, &["--max-cycles", "20000000"]);
    let console = r["console"].as_str().unwrap();
    for line in [
        "cpu_start: Multicore app",
        "esp_psram: Found 8MB PSRAM device",
        "cpu_start: Pro cpu up.",
        "cpu_start: Starting app cpu",
        // The APP CPU ran the ROM's reset path to `call_start_cpu1`, which reports it is up.
        "cpu_start: App cpu up.",
    ] {
        assert!(console.contains(line), "{line:?} missing from {console}");
    }
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("the second core (PRID 0xABAB) ran"),
        "{notes}"
    );
    assert!(
        notes.contains("a quad PSRAM chip took the place of the board's octal one"),
        "{notes}"
    );
    assert!(!console.contains("RTC_XTAL_FREQ_REG"), "{console}");
    // With the octal part fixed, the quad driver's ID read gets no answer (0xFFFFFF), as on a
    // chip with octal PSRAM; naming the quad part fits it without a note.
    let (_, r, _) = run(
        "esp32s3",
        &elf,
        &["--set", "psram.mode=octal", "--max-cycles", "20000000"],
    );
    let console = r["console"].as_str().unwrap();
    assert!(
        console.contains("PSRAM ID read error: 0x00ffffff"),
        "{console}"
    );
    let (_, r, _) = run(
        "esp32s3",
        &elf,
        &["--set", "psram.mode=quad", "--max-cycles", "20000000"],
    );
    assert!(r["console"]
        .as_str()
        .unwrap()
        .contains("esp_psram: Found 8MB PSRAM device"));
    assert!(
        !r["notes"].to_string().contains("took the place"),
        "{}",
        r["notes"]
    );
}

/// The esp-coredump test app, start to end: ESP-IDF start-up (heap regions, the flash chip's ID
/// over SPI1, the UART core-dump set-up), FreeRTOS on both cores (tasks switch through the
/// cross-core interrupt; on the ESP32-S3 the tick comes from SYSTIMER alarms), `app_main`, whose
/// console hook calls `abort()`: the panic handler's text and backtrace, the core dump on UART and
/// the software reset that ends the run. The PyPI `esp-coredump` loader must accept the dump
/// (checksum and app SHA-256) and find the crashed task `main` stopped in `panic_abort` and the
/// system's tasks beside it, as on the chip (`tasks`: the ones the app has besides `main`).
/// How a test boots the app: directly from its ELF, or from a flash image through the ROM and
/// the bootloader (the ELF then names the code).
#[derive(Clone, Copy)]
enum Boot<'a> {
    Elf,
    FlashImage(&'a str),
}

fn panics_and_prints_a_core_dump(
    board: &str,
    elf: &str,
    boot: Boot,
    lines: &[&str],
    tasks: &[&str],
) {
    let mut args = vec!["--max-cycles", "1000000000"];
    let firmware = match boot {
        Boot::Elf => elf,
        Boot::FlashImage(image) => {
            args.extend(["--symbols", elf]);
            image
        }
    };
    let (code, r, _) = run(board, firmware, &args);
    assert_eq!(
        code, 123,
        "{board}: the run ends at the software reset: {}",
        r["outcome"]
    );
    assert_eq!(r["outcome"]["kind"], "reset", "{}", r["outcome"]);
    assert!(
        r["outcome"]["by"]
            .as_str()
            .unwrap()
            .starts_with("RTC_CNTL.OPTIONS0"),
        "{}",
        r["outcome"]
    );
    let console = r["console"].as_str().unwrap();
    for line in lines.iter().chain(&[
        "main_task: Calling app_main()",
        "Backtrace: 0x",
        "================= CORE DUMP START =================",
        "================= CORE DUMP END =================",
    ]) {
        assert!(
            console.contains(line),
            "{board}: {line:?} missing from {console}"
        );
    }
    // ESP-IDF selects 160 MHz (esp_clk_init) and the core follows; its log's millisecond stamps
    // (CCOUNT, then esp_timer on the timer peripheral) agree with simulated time: the last one,
    // just before the reset, is within a few milliseconds of the run's end.
    let changes = r["board"]["clock_changes"].as_array().unwrap();
    assert!(
        changes.iter().any(|c| c["hz"] == 160_000_000),
        "{board}: {changes:?}"
    );
    let last_stamp: f64 = console
        .rsplit("I (")
        .next()
        .and_then(|t| t.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{board}: no log stamp in {console}"));
    let ms = r["totals"]["seconds"].as_f64().unwrap() * 1e3;
    // After the last stamp the core dump prints (~20 KB, unstamped) through the ROM's printf:
    // a few ms when it feeds UART0 only; booted through the ROM, the ROM's console switches also
    // send every byte to the USB-Serial-JTAG console, which takes ~27 ms at 160 MHz (the
    // inclusive cycles of `ets_write_char` in that run).
    let printing_ms = match boot {
        Boot::Elf => 5.0,
        Boot::FlashImage(_) => 30.0,
    };
    assert!(
        (last_stamp..last_stamp + printing_ms).contains(&ms),
        "{board}: the log says {last_stamp} ms, the run ended at {ms} ms"
    );
    let function = |name: &str| {
        r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} not profiled"))["address"]
            .as_u64()
            .unwrap()
    };
    // abort() names its caller's return address: inside the app's console hook.
    let panic = r["panic"].as_str().expect("the panic is in the report");
    let at = panic
        .strip_prefix("abort() was called at PC 0x")
        .and_then(|t| t.split_whitespace().next())
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .unwrap_or_else(|| panic!("{panic}"));
    let hook = function("fail_once");
    assert!(
        (hook..hook + 0x40).contains(&at),
        "{panic}: fail_once at 0x{hook:x}"
    );
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("the second core (PRID 0xABAB) ran"),
        "{notes}"
    );
    // The APP CPU's own profile: it ran ESP-IDF's start-up for it and its idle task.
    let app = &r["other_cores"][0];
    assert_eq!(app["prid"], 0xABAB, "{app}");
    let ran = |name: &str| {
        app["functions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == name && f["self_cycles"].as_u64().unwrap() > 0)
    };
    assert!(
        ran("call_start_cpu1") && ran("esp_cpu_wait_for_intr"),
        "{app}"
    );
    let share: u64 = app["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["self_cycles"].as_u64().unwrap())
        .sum();
    assert_eq!(
        share,
        app["cycles"].as_u64().unwrap(),
        "every cycle is someone's: {app}"
    );

    let Some(dump) = common::esp_coredump_tasks(console, elf) else {
        return;
    };
    let task = |name: &str| {
        dump.lines()
            .find(|l| l.split_whitespace().nth(2) == Some(name))
            .unwrap_or_else(|| panic!("{board}: no task {name} in {dump}"))
            .to_string()
    };
    for name in ["IDLE0", "IDLE1", "ipc0", "ipc1", "esp_timer"]
        .iter()
        .chain(tasks)
    {
        task(name);
    }
    let pc = task("main")
        .split("pc=0x")
        .nth(1)
        .and_then(|t| u64::from_str_radix(&t[..8], 16).ok())
        .unwrap();
    let abort_at = function("panic_abort");
    assert!(
        (abort_at..abort_at + 0x40).contains(&pc),
        "{board}: main stopped in panic_abort (0x{abort_at:x}): {dump}"
    );
    // The ELF-format dump (ESP32) also names the crashed task and its exception.
    if let Some(crashed) = dump.lines().find_map(|l| l.strip_prefix("crashed ")) {
        assert!(
            task("main").contains(crashed.trim()),
            "main crashed: {dump}"
        );
        assert!(dump.contains("exccause 29"), "StoreProhibited: {dump}");
        assert!(dump.contains("excvaddr 0x00000000"), "{dump}");
    }
}

#[test]
fn esp_idf_esp32_panics_and_prints_a_core_dump_esp_coredump_accepts() {
    let Some(elf) = inputs("esp32/idf-coredump-test.elf", "esp32_rev300_rom.elf") else {
        return;
    };
    let lines = [
        "cpu_start: Pro cpu start user code",
        "heap_init: At 3FFB2D60 len 0002D2A0 (180 KiB): DRAM",
        "spi_flash: detected chip: gd",
        "esp_core_dump_uart: Init core dump to UART",
        "main_task: Started on CPU0",
    ];
    panics_and_prints_a_core_dump("esp32", &elf, Boot::Elf, &lines, &[]);
}

/// The ESP32-S3 build keeps its stack in external RAM and uses RTC fast memory as heap: PSRAM is
/// found, tested and added to the heap, and the dump holds the tasks on both.
#[test]
fn esp_idf_s3_panics_and_prints_a_core_dump_esp_coredump_accepts() {
    let Some(elf) = inputs("esp32s3/idf-coredump-test.elf", "esp32s3_rev0_rom.elf") else {
        return;
    };
    let lines = [
        "esp_psram: Found 8MB PSRAM device",
        "esp_psram: SPI SRAM memory test OK",
        "heap_init: At 600FE010 len 00001FD8 (7 KiB): RTCRAM",
        "esp_psram: Adding pool of 8192K of PSRAM memory to heap allocator",
        "app_start: Starting scheduler on CPU1",
    ];
    panics_and_prints_a_core_dump("esp32s3", &elf, Boot::Elf, &lines, &["rtc_fast", "ext_ram"]);
}

/// A flash image made here from each chip's app (`scripts/esp_flash_image.py`: esptool elf2image
/// and merge-bin, the ESP-IDF bootloader the `espflash` crate ships, ESP-IDF's default partition
/// table) boots as on the chip: the ROM's reset path loads the bootloader (the ESP32-S3's checks
/// its SHA-256 on the SHA accelerator), the bootloader reads the partition table over the MMU,
/// loads and verifies the app and starts it; from there the run is the app's as above.
#[test]
fn esp_idf_apps_boot_from_a_flash_image_through_the_rom_and_the_bootloader() {
    for (board, elf, rom, banner, lines, tasks) in [
        (
            "esp32s3",
            "esp32s3/idf-coredump-test.elf",
            "esp32s3_rev0_rom.elf",
            "rst:0x1 (POWERON),boot:0x8 (SPI_FAST_FLASH_BOOT)",
            &[
                "esp_psram: SPI SRAM memory test OK",
                "app_start: Starting scheduler on CPU1",
            ][..],
            &["rtc_fast", "ext_ram"][..],
        ),
        (
            "esp32",
            "esp32/idf-coredump-test.elf",
            "esp32_rev300_rom.elf",
            "rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)",
            &[
                "heap_init: At 3FFB2D60 len 0002D2A0 (180 KiB): DRAM",
                "main_task: Started on CPU0",
            ][..],
            &[][..],
        ),
    ] {
        let Some(elf) = inputs(elf, rom) else {
            continue;
        };
        let Some(image) = common::flash_image(board, &elf) else {
            return;
        };
        let boot = [
            banner,
            "2nd stage bootloader",
            "boot:  2 factory          factory app      00 00 00010000 00100000",
            "boot: Loaded app from partition at offset 0x10000",
        ];
        let lines: Vec<&str> = boot.iter().chain(lines).copied().collect();
        let path = image.to_string_lossy().into_owned();
        panics_and_prints_a_core_dump(board, &elf, Boot::FlashImage(&path), &lines, tasks);
        let _ = std::fs::remove_file(&image);
    }
}
