//! Helpers shared by the end-to-end tests: the built firmware and the real binary.

// Each test file uses a part of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Path of `firmware/build/<board>/<program>.elf`; fails with how to build it when missing.
pub fn elf(board: &str, program: &str) -> String {
    let p = root()
        .join("firmware/build")
        .join(board)
        .join(format!("{program}.elf"));
    assert!(
        p.exists(),
        "{} is missing: run `bash firmware/build.sh` first (the README's test command does)",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

/// Expected console output of a portable program: the host build's stdout.
pub fn host_output(program: &str) -> String {
    std::fs::read_to_string(
        root()
            .join("firmware/build/host")
            .join(format!("{program}.out")),
    )
    .unwrap()
}

pub fn sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tigris-sim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tigris-sim")
}

/// A temporary file of its own for `name`: the tests of one process run in parallel threads, so
/// the process id alone does not keep their files apart.
pub fn temp_path(name: &str) -> PathBuf {
    static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("tigris-test-{}-{n}-{name}", std::process::id()))
}

/// `tigris-sim run --quiet --board BOARD ELF EXTRA...` with a report: (exit code, report, stdout).
pub fn run(board: &str, elf: &str, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let stem = Path::new(elf)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let report = temp_path(&format!("{board}-{stem}.json"));
    let report_s = report.to_string_lossy().into_owned();
    let mut args = vec![
        "run", "--quiet", "--board", board, elf, "--report", &report_s,
    ];
    args.extend_from_slice(extra);
    let out = sim(&args);
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
        panic!(
            "no report for {elf}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let _ = std::fs::remove_file(&report);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_str(&text).unwrap(),
        stdout,
    )
}

// Each test file includes this module; not all of them use every helper.
#[allow(dead_code)]
/// Whether the simulator finds the mask-ROM ELF `name` (as `boards show` reports it).
pub fn rom_available(name: &str) -> bool {
    let board = if name.starts_with("esp32s3") {
        "esp32s3"
    } else {
        "esp32"
    };
    let out = sim(&["boards", "show", board]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.starts_with("mask ROM: /") && l.ends_with(name))
}

#[allow(dead_code)]
/// A third-party firmware fixture from `../shared/fixtures/` beside the checkout, or None (with a
/// message saying the test is skipped) when that folder or the file is absent.
pub fn fixture(path: &str) -> Option<String> {
    let p = root().join("../shared/fixtures").join(path);
    if p.is_file() {
        return Some(p.to_string_lossy().into_owned());
    }
    eprintln!(
        "skipped: fixture {} is absent (third-party firmware lives in ../shared/fixtures/)",
        p.display()
    );
    None
}

#[allow(dead_code)]
/// A flash image of the ESP app `elf` for `board`, made as an ESP-IDF project flashes it
/// (`scripts/esp_flash_image.py`: the bootloader the `espflash` crate ships, ESP-IDF's default
/// partition table, `esptool elf2image`); None (said) when esptool or the bootloader is absent.
/// The caller removes the file.
pub fn flash_image(board: &str, elf: &str) -> Option<PathBuf> {
    let image = temp_path(&format!("flash-{board}.bin"));
    let made = Command::new("python3")
        .arg(root().join("scripts/esp_flash_image.py"))
        .args([board, elf])
        .arg(&image)
        .output()
        .expect("run python3");
    if made.status.code() == Some(3) {
        eprintln!("skipped: {}", String::from_utf8_lossy(&made.stderr).trim());
        return None;
    }
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    Some(image)
}

/// The tasks of the ESP-IDF UART core dump in `console`, as `scripts/esp_coredump_tasks.py` lists
/// them after the PyPI `esp-coredump` loader accepted the dump against `elf`; `None` (said) when
/// that package is not installed. A dump the loader refuses fails the test.
pub fn esp_coredump_tasks(console: &str, elf: &str) -> Option<String> {
    let have = Command::new("python3")
        .args(["-c", "import esp_coredump"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("skipped the core-dump check: the PyPI package esp-coredump is not installed");
        return None;
    }
    let log = temp_path("coredump.log");
    std::fs::write(&log, console).unwrap();
    let out = Command::new("python3")
        .arg(root().join("scripts/esp_coredump_tasks.py"))
        .arg(&log)
        .arg(elf)
        .output()
        .expect("run python3");
    let _ = std::fs::remove_file(&log);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "esp-coredump refused the dump: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(text)
}

#[allow(dead_code)]
/// `file:line` of the first line of `file` (relative to the checkout) containing `marker`: where a
/// diagnostic built from DWARF must point.
pub fn source_line(file: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("{file} has no line with {marker:?}"));
    format!("{file}:{}", line + 1)
}

#[allow(dead_code)]
/// The report's profile entry of the function `name`; panics when it did not run.
pub fn function<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let functions = report["functions"].as_array().unwrap();
    let found = functions.iter().find(|f| f["name"] == name);
    found.unwrap_or_else(|| panic!("{name} is not in the profile"))
}

#[allow(dead_code)]
/// The frames of a fault's (or an outcome's) backtrace, innermost first.
pub fn backtrace(fault: &serde_json::Value) -> Vec<&str> {
    let frames = fault["backtrace"].as_array().unwrap().iter();
    frames.map(|l| l.as_str().unwrap()).collect()
}

#[allow(dead_code)]
/// Checks that a fault's diagnostic points at the faulting line of `file` (marked `the faulting`)
/// inside the inlined `helper`, and that the backtrace then shows `caller` at the call site (marked
/// `the inlined call`), from the firmware's DWARF.
pub fn assert_fault_source(fault: &serde_json::Value, file: &str, helper: &str, caller: &str) {
    let faulting = source_line(file, "the faulting");
    let call = source_line(file, "the inlined call");
    assert_eq!(fault["source"].as_str(), Some(faulting.as_str()), "{fault}");
    let backtrace = backtrace(fault);
    let inlined = backtrace
        .iter()
        .position(|l| l.contains(&format!(" {helper} at {faulting} (inlined)")))
        .unwrap_or_else(|| panic!("no inlined {helper} frame: {backtrace:#?}"));
    let outer = backtrace[inlined + 1];
    assert!(
        outer.contains(&format!(" {caller}")) && outer.contains(&format!(" at {call}")),
        "{backtrace:#?}"
    );
}
