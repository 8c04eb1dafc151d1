//! Cortex-M exceptions as the core takes them (issue 12): faults taken by the firmware's own
//! handlers, a tail-chaining interrupt storm, and the third-party STM32U585 firmware that nests
//! HardFault inside SVCall.

mod common;

use common::{elf, root, run};
use std::path::PathBuf;

/// A third-party fixture from `../shared/fixtures/cortex-m/` beside the repository, or None (with
/// a note) when a clone has no such folder.
fn fixture(name: &str) -> Option<String> {
    let p: PathBuf = root().join("../shared/fixtures/cortex-m").join(name);
    if p.exists() {
        Some(p.to_string_lossy().into_owned())
    } else {
        eprintln!("skipped: fixture absent: {}", p.display());
        None
    }
}

/// Each fault kind is taken by the firmware's handler as the architecture says: as itself with its
/// CFSR bit on ARMv7-M/ARMv8-M (SHCSR enables), as HardFault with no status registers on ARMv6-M.
#[test]
fn every_fault_kind_is_taken_by_the_firmware_handler() {
    let v7 = [
        "fault_kinds: undefined exception=6 cfsr=0x00010000 bfar=0x00000000",
        "fault_kinds: invstate exception=6 cfsr=0x00020000 bfar=0x00000000",
        "fault_kinds: divide_by_zero exception=6 cfsr=0x02000000 bfar=0x00000000",
        "fault_kinds: bus exception=5 cfsr=0x00008200 bfar=0x70000000",
        // BFAR keeps its last value once BFARVALID is cleared (ARMv7-M ARM B3.2.18).
        // UNALIGNED is CFSR bit 24 (B3.2.15); without UNALIGN_TRP the word load is performed.
        "fault_kinds: unaligned (not loaded) exception=6 cfsr=0x01000000 bfar=0x70000000",
        "fault_kinds: unaligned without UNALIGN_TRP loaded 0x88112233",
        "fault_kinds: unaligned_ldm exception=6 cfsr=0x01000000 bfar=0x70000000",
        "fault_kinds: execute_never exception=4 cfsr=0x00000001 bfar=0x70000000",
    ];
    let v6 = [
        "fault_kinds: undefined exception=3 cfsr=0x00000000 bfar=0x00000000",
        "fault_kinds: invstate exception=3 cfsr=0x00000000 bfar=0x00000000",
        "fault_kinds: bus exception=3 cfsr=0x00000000 bfar=0x00000000",
        "fault_kinds: unaligned (not loaded) exception=3 cfsr=0x00000000 bfar=0x00000000",
        "fault_kinds: unaligned_ldm exception=3 cfsr=0x00000000 bfar=0x00000000",
        "fault_kinds: execute_never exception=3 cfsr=0x00000000 bfar=0x00000000",
    ];
    for (board, want) in [
        ("mps2-an386", &v7[..]),
        ("stm32h753", &v7[..]),
        ("rp2350", &v7[..]),
        ("atsam3x8e", &v7[..]),
        ("rp2040", &v6[..]),
    ] {
        let (code, r, _) = run(board, &elf(board, "fault_kinds"), &[]);
        let console = r["console"].as_str().unwrap();
        assert_eq!(code, 0, "{board}: {console}");
        let lines: Vec<&str> = console.lines().collect();
        assert_eq!(lines, want, "{board}");
    }
}

/// Review D1: SysTick every 1000 cycles pends PendSV, which tail-chains after it, for 1 G cycles.
/// The profiler's stack never gets deeper than main and one handler, so memory stays flat.
#[test]
fn a_tail_chaining_interrupt_storm_keeps_the_call_stack_flat() {
    let (code, r, _) = run(
        "mps2-an386",
        &elf("mps2-an386", "storm"),
        &["--max-cycles", "1000000000"],
    );
    assert_eq!(code, 124, "{}", r["outcome"]);
    let stacks: Vec<&str> = r["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stack"].as_str().unwrap())
        .collect();
    let in_handlers: Vec<&str> = stacks
        .iter()
        .copied()
        .filter(|s| s.contains("SysTick_Handler") || s.contains("PendSV_Handler"))
        .collect();
    assert_eq!(
        in_handlers,
        [
            "Reset_Handler;main;PendSV_Handler",
            "Reset_Handler;main;SysTick_Handler"
        ],
        "{stacks:#?}"
    );
    let calls = |name: &str| {
        r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .map(|f| f["calls"].as_u64().unwrap())
    };
    // One SysTick and one tail-chained PendSV per 1000 cycles.
    let (ticks, chained) = (
        calls("SysTick_Handler").unwrap(),
        calls("PendSV_Handler").unwrap(),
    );
    assert!((999_000..=1_000_000).contains(&ticks), "{ticks}");
    assert!(
        chained == ticks || chained + 1 == ticks,
        "{chained} vs {ticks}"
    );
}

/// probe-rs's STM32U585 firmware: main → … → SVCall → svc_inner stores to 0xFFFFFFF0 → BusFault,
/// escalated to HardFault (not enabled in SHCSR) → `loop { nop() }`.
#[test]
fn stm32u585_takes_hardfault_inside_svcall_and_reports_the_spinning_handler() {
    let Some(fw) = fixture("stm32u585_nested_exceptions.elf") else {
        return;
    };
    let (code, r, _) = run("stm32u585", &fw, &[]);
    assert_eq!(code, 125);
    let f = &r["fault"];
    assert_eq!(f["kind"], "bad write");
    assert_eq!(f["address"].as_u64(), Some(0xFFFF_FFF0));
    assert!(
        f["location"].as_str().unwrap().starts_with("svc_inner"),
        "{f}"
    );
    let message = f["message"].as_str().unwrap();
    assert!(
        message.starts_with("HardFault handler spinning at "),
        "{message}"
    );
    assert!(
        message.contains("PRECISERR BFARVALID, BFAR 0xfffffff0") && message.contains("FORCED"),
        "{message}"
    );
    let bt = common::backtrace(f);
    let at = |needle: &str| {
        bt.iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {bt:#?}"))
    };
    let hardfault =
        at("svc_inner+0x10 at src/bin/nested_exceptions.rs:66 (exception frame: HardFault)");
    let svcall = at("(exception frame: SVCall)");
    let main = at(" main+");
    // The fixture is Rust: its names are shown demangled, the report keeps the linker symbol.
    let rust_main =
        at("nested_exceptions::__cortex_m_rt_main+0x6 at src/bin/nested_exceptions.rs:87");
    assert!(svcall < rust_main && rust_main < main, "{bt:#?}");
    let function = common::function(&r, "nested_exceptions::__cortex_m_rt_main");
    let symbol = function["symbol"].as_str().unwrap();
    assert!(
        symbol.starts_with("_ZN17nested_exceptions18__cortex_m_rt_main17h"),
        "{symbol}"
    );
    assert!(
        at("hf_inner") < hardfault && hardfault < svcall && svcall < main,
        "{bt:#?}"
    );
}

/// FPv5-D16 on the Cortex-M7: add, sub, mul, div, fma, sqrt, conversions, compares and the four
/// rounding modes give the host's bits exactly (`firmware/fpu/double_fp.c`).
#[test]
fn m7_double_precision_matches_the_host_bit_for_bit() {
    let want = std::fs::read_to_string(root().join("firmware/build/host/double_fp.out")).unwrap();
    for board in ["stm32h753", "mps2-an500"] {
        let (code, r, _) = run(board, &elf(board, "double_fp"), &[]);
        assert_eq!(code, 0, "{board}: {}", r["outcome"]);
        assert_eq!(r["console"].as_str().unwrap(), want, "{board}");
    }
}

/// `--entry FUNC` starts at a function; its return ends the run with its return value.
#[test]
fn entry_function_return_ends_the_run_with_its_value() {
    let (code, r, _) = run(
        "mps2-an386",
        &elf("mps2-an386", "entry_return"),
        &["--entry", "answer"],
    );
    assert_eq!(code, 42, "{}", r["outcome"]);
    assert_eq!(r["outcome"]["kind"], "exited");
    assert!(
        r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "times"),
        "{}",
        r["functions"]
    );
    // Without --entry the same image runs its reset handler and main.
    let (code, _, _) = run("mps2-an386", &elf("mps2-an386", "entry_return"), &[]);
    assert_eq!(code, 1);
}

/// An image whose vector table has no section name and whose ELF entry is the table itself starts
/// from the table at VTOR's reset value, 0.
#[test]
fn a_vector_table_without_a_name_is_found_at_vtors_reset_value() {
    let (code, r, _) = run(
        "mps2-an386",
        &elf("mps2-an386", "exit_code_unnamed_vectors"),
        &[],
    );
    assert_eq!(code, 42, "{}", r["outcome"]);
    let entry = r["firmware"]["entry"].as_u64().unwrap();
    assert!(
        entry != 0 && entry < 0x400,
        "started at 0x{entry:x}, the reset vector, not at the table"
    );
}

/// SEGGER RTT: the simulator reads the up buffer as a probe does and advances RdOff, so a firmware
/// whose buffer is smaller than its text (blocking mode) finishes.
#[test]
fn segger_rtt_reaches_the_console() {
    let want = "console_rtt: hello over SEGGER RTT\n\
                console_rtt: a line longer than the 64-byte up buffer, so the firmware waits for the reader\n\
                console_rtt: done\n";
    for board in ["mps2-an386", "stm32f446re", "rp2040", "stm32h753"] {
        let (code, r, _) = run(board, &elf(board, "console_rtt"), &[]);
        assert_eq!(code, 0, "{board}: {}", r["outcome"]);
        assert_eq!(r["console"].as_str().unwrap(), want, "{board}");
    }
}

/// The CRC-32 (IEEE 802.3, reflected, as zlib's) the defmt firmware logs.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = u32::MAX;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// defmt over RTT: frames of an interned-string index and arguments (rzCOBS-encoded, 0-delimited),
/// more of them than the 64-byte up buffer holds, so the firmware waits for the reader and frames
/// arrive in pieces; the simulator decodes them with `defmt-decoder` from the ELF's `.defmt`
/// table, as defmt-print shows them.
#[test]
fn defmt_over_rtt_is_decoded_with_the_elfs_table() {
    let text = b"The quick brown fox jumps over the lazy dog";
    let mut want = String::from("console_defmt: hello from defmt over RTT\n");
    let mut n = 1;
    loop {
        want += &format!("INFO crc32 of {n} bytes is {:#x}\n", crc32(&text[..n]));
        if n == text.len() {
            break;
        }
        n = (n * 2).min(text.len());
    }
    want += "WARN -42 below zero, 200 of 1000, ratio 0.2\nERROR runs: 8 0xffffffff 0x77777777\n";
    for board in ["mps2-an386", "stm32f446re", "rp2040", "stm32h753"] {
        let (code, r, _) = run(board, &elf(board, "console_defmt"), &[]);
        assert_eq!(code, 0, "{board}: {}", r["outcome"]);
        assert_eq!(r["console"].as_str().unwrap(), want, "{board}");
    }
}

/// The RP2040 boot ROM's function table, as the Pico SDK and rp2040-hal use it (datasheet
/// §2.8.3): magic and version at 0x10, `rom_table_lookup` by two-character code, the bit and
/// memory functions it finds; an unknown code looks up as 0.
#[test]
fn rp2040_boot_rom_functions_are_looked_up_and_served() {
    let (code, r, _) = run("rp2040", &elf("rp2040", "rp2040_rom"), &[]);
    let console = r["console"].as_str().unwrap();
    assert_eq!(code, 0, "{console}");
    let want = format!(
        "rp2040_rom: magic Mu 1 version 3\n\
         rp2040_rom: popcount32(0xF0F0F0F1)={} clz32(0x00010000)={} ctz32(0x00010000)={} reverse32(1)=0x{:08x}\n\
         rp2040_rom: memcpy44 -> 1 2 3 4 returned dest 1\n\
         rp2040_rom: memset4 -> 0xabababab 0xabababab 3\n\
         rp2040_rom: unknown code looks up as 0\n",
        0xF0F0_F0F1u32.count_ones(),
        0x0001_0000u32.leading_zeros(),
        0x0001_0000u32.trailing_zeros(),
        1u32.reverse_bits()
    );
    assert_eq!(console, want);
}
