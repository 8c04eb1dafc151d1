//! Backtraces unwound from the machine state (DWARF call-frame information, Cortex-M exception
//! frames, Xtensa register windows and base save areas) against the calls the profiler saw since
//! reset: the same frames where both can know them, and only the unwound ones where a firmware
//! switched to a stack of its own.

mod common;
use common::*;

/// The backtrace of how the run ended: the fault's, or the outcome's (a stop, a limit).
fn ending_backtrace(report: &serde_json::Value) -> Vec<String> {
    let fault = &report["fault"];
    let from = if fault.is_object() {
        fault
    } else {
        &report["outcome"]
    };
    backtrace(from).into_iter().map(str::to_string).collect()
}

/// The backtrace of `elf` on `board` with `--unwind MODE`, for each mode.
fn backtraces(board: &str, elf: &str, modes: &[&str]) -> Vec<Vec<String>> {
    modes
        .iter()
        .map(|mode| {
            let (_, report, _) = run(board, elf, &["--unwind", mode, "--max-cycles", "50000000"]);
            ending_backtrace(&report)
        })
        .collect()
}

/// Functions of a backtrace, one per line: the name after the address, without `+0xoff`.
fn functions(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| {
            let name = l.split(' ').nth(2).unwrap_or("");
            name.split('+').next().unwrap()
        })
        .collect()
}

#[test]
fn third_party_firmware_unwinds_from_its_call_frame_information_as_it_ran() {
    // probe-rs's unwind test images stop at a breakpoint deep in a call chain; the STM32U585 one in
    // a handler that two nested exceptions entered. Rust (cortex-m-rt) and C (Atmel start-up).
    let images = [
        ("cortex-m/RP2040_full_unwind.elf", "rp2040", 10),
        ("cortex-m/nRF52833_xxAA_full_unwind.elf", "nrf52833", 10),
        ("cortex-m/atsamd51p19a.elf", "atsamd51p19a", 4),
        ("cortex-m/stm32u585_nested_exceptions.elf", "stm32u585", 15),
    ];
    for (path, board, frames) in images {
        let Some(elf) = fixture(path) else { continue };
        let [unwound, observed] = backtraces(board, &elf, &["cfi", "calls"])
            .try_into()
            .unwrap();
        assert_eq!(unwound, observed, "{path}");
        assert_eq!(unwound.len(), frames, "{path}: {unwound:#?}");
        let outermost = functions(&unwound).last().copied().unwrap();
        assert!(outermost.starts_with("Reset"), "{path}: {unwound:#?}");
    }
    if let Some(elf) = fixture("cortex-m/stm32u585_nested_exceptions.elf") {
        let unwound = &backtraces("stm32u585", &elf, &["cfi"])[0];
        let through: Vec<&String> = unwound
            .iter()
            .filter(|l| l.contains("(exception frame:"))
            .collect();
        assert_eq!(through.len(), 2, "{unwound:#?}");
        assert!(
            through[0].contains("svc_inner")
                && through[0].ends_with("(exception frame: HardFault)")
        );
        assert!(
            through[1].contains("level_c") && through[1].ends_with("(exception frame: SVCall)")
        );
    }
}

#[test]
fn a_task_on_a_stack_of_its_own_unwinds_to_the_task_alone() {
    let elf = elf("mps2-an386", "fault_task_switch");
    let [auto, cfi] = backtraces("mps2-an386", &elf, &["auto", "cfi"])
        .try_into()
        .unwrap();
    assert_eq!(auto, cfi);
    assert_eq!(
        functions(&cfi),
        [
            "HardFault_Handler",
            "task_leaf.constprop.0",
            "task_middle.constprop.0",
            "task"
        ],
        "{cfi:#?}"
    );
    assert!(cfi[1].ends_with("(exception frame: HardFault)"), "{cfi:#?}");
    // main switched to the task and never resumes: it is on no stack the task's frames link to.
    assert!(!cfi
        .iter()
        .any(|l| l.contains(" main") || l.contains("Reset_Handler")));
}

#[test]
fn frames_spilled_from_the_register_windows_unwind_as_they_were_called() {
    // 13 nested calls of `descend` under main: more windowed frames than the register file holds,
    // so the older ones are read back from their base save areas; call0 builds unwind through
    // the call-frame information alone.
    for (board, program) in [
        ("esp32s3", "fault_deep-windowed"),
        ("esp32", "fault_deep-windowed"),
        ("esp32s3", "fault_deep"),
        ("esp8266", "fault_deep"),
    ] {
        let elf = elf(board, program);
        let [unwound, observed] = backtraces(board, &elf, &["cfi", "calls"])
            .try_into()
            .unwrap();
        assert_eq!(unwound, observed, "{board} {program}");
        let names = functions(&unwound);
        assert_eq!(
            names.iter().filter(|&&n| n == "descend").count(),
            13,
            "{unwound:#?}"
        );
        assert_eq!(names[13..], ["main", "run_all", "_start"], "{unwound:#?}");
    }
}

#[test]
fn register_windows_unwind_without_call_frame_information() {
    // A stripped ELF keeps its symbols but no DWARF: `auto` then follows the calls the profiler
    // saw, and `cfi` still unwinds every windowed frame through the register windows alone.
    let elf = elf("esp32s3", "fault_deep-windowed");
    let stripped = temp_path("fault_deep-stripped.elf");
    let status = std::process::Command::new("xtensa-lx106-elf-objcopy")
        .args(["--strip-debug", &elf, stripped.to_str().unwrap()])
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("skipped: xtensa-lx106-elf-objcopy is not installed");
        return;
    }
    let stripped_s = stripped.to_string_lossy().into_owned();
    let modes = ["auto", "cfi", "calls"];
    let [auto, cfi, calls] = backtraces("esp32s3", &stripped_s, &modes)
        .try_into()
        .unwrap();
    let _ = std::fs::remove_file(&stripped);
    assert_eq!(auto, calls);
    assert_eq!(cfi, calls);
    assert_eq!(
        functions(&cfi).iter().filter(|&&n| n == "descend").count(),
        13
    );
}
