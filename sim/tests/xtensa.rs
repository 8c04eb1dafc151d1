//! End-to-end tests of Xtensa firmware (ESP32-S3, ESP32, ESP8266) built by `firmware/build.sh`.

mod common;

use common::{elf, host_output, root, run, sim, temp_path};

/// (board, ABI suffixes built for it): call0 everywhere, windowed on the LX6/LX7 boards.
const BOARDS: [(&str, &[&str]); 3] = [
    ("esp32s3", &["", "-windowed"]),
    ("esp32", &["", "-windowed"]),
    ("esp8266", &[""]),
];
const PROGRAMS: [&str; 8] = [
    "sort",
    "crc32",
    "recursion",
    "demo",
    "exit_code",
    "matmul",
    "strings_float",
    "softfloat_check",
];

#[test]
fn programs_print_what_the_host_prints_on_every_esp_board_and_abi() {
    for program in PROGRAMS {
        let expected = host_output(program);
        let want_code = if program == "exit_code" { 42 } else { 0 };
        for (board, abis) in BOARDS {
            for abi in abis {
                let (code, r, _) = run(board, &elf(board, &format!("{program}{abi}")), &[]);
                assert_eq!(
                    r["console"].as_str().unwrap(),
                    expected,
                    "{program}{abi} on {board}"
                );
                assert_eq!(code, want_code, "{program}{abi} on {board}");
                assert_eq!(r["outcome"]["kind"], "exited");
                assert!(r["board"]["core"].as_str().unwrap().starts_with("xtensa"));
                assert!(
                    r["totals"]["cycles"].as_u64().unwrap()
                        > r["totals"]["instructions"].as_u64().unwrap() / 2
                );
            }
        }
    }
}

/// recursion.c under the windowed ABI spills and refills register windows thousands of times; the
/// profiler still closes every frame (main's inclusive time covers the run).
#[test]
fn window_overflow_heavy_recursion_runs_and_profiles() {
    for board in ["esp32s3", "esp32"] {
        let (code, r, _) = run(board, &elf(board, "recursion-windowed"), &[]);
        assert_eq!(code, 0, "{board}");
        let f = r["functions"].as_array().unwrap();
        let find = |n: &str| {
            f.iter()
                .find(|x| x["name"] == n)
                .unwrap_or_else(|| panic!("{board}: no {n} in the profile"))
        };
        let total = r["totals"]["cycles"].as_u64().unwrap();
        let main_incl = find("main")["inclusive_cycles"].as_u64().unwrap();
        assert!(
            main_incl > total * 9 / 10,
            "{board}: main inclusive {main_incl} of {total}"
        );
        assert!(
            find("fib")["calls"].as_u64().unwrap() > 1000,
            "{board}: fib calls"
        );
    }
}

/// Run without the mask ROM, so that exceptions reach the reset VECBASE in the (then empty) ROM.
fn fault(board: &str, program: &str) -> (serde_json::Value, String) {
    let (code, r, _) = run(board, &elf(board, program), &["--no-rom"]);
    assert_eq!(code, 125, "{program} on {board}: exit code");
    assert_eq!(r["outcome"]["kind"], "fault");
    let f = r["fault"].clone();
    let text = serde_json::to_string(&f).unwrap();
    (f, text)
}

#[test]
fn faults_name_kind_pc_symbol_and_instruction() {
    for (board, abis) in BOARDS {
        for abi in abis {
            let (f, t) = fault(board, &format!("fault_illegal{abi}"));
            assert_eq!(f["kind"], "undefined instruction", "{board}{abi}: {t}");
            assert!(
                f["location"].as_str().unwrap().starts_with("run_illegal"),
                "{t}"
            );
            assert_eq!(f["instruction"], "ill", "{t}");
            assert!(
                f["message"]
                    .as_str()
                    .unwrap()
                    .contains("IllegalInstruction"),
                "{t}"
            );

            let program = format!("fault_bad_address{abi}");
            if board == "esp8266" {
                let (f, t) = fault(board, &program);
                assert_eq!(f["kind"], "bad write", "{board}{abi}: {t}");
                assert_eq!(f["address"], 0x1000_0000u32, "{t}");
                assert!(f["location"].as_str().unwrap().starts_with("poke"), "{t}");
                assert!(
                    f["instruction"].as_str().unwrap().starts_with("s32i"),
                    "{t}"
                );
                assert!(f["message"].as_str().unwrap().contains("0x10000000"), "{t}");
                common::assert_fault_source(
                    &f,
                    "firmware/xtensa/faults/fault_bad_address.c",
                    "store_word",
                    "poke",
                );
            } else {
                // The ESP32 and ESP32-S3 buses drop a store no device claims (board `unmapped_writes`).
                let (code, r, _) = run(board, &elf(board, &program), &[]);
                assert_eq!(code, 0, "{program} on {board}");
                assert!(
                    r["console"]
                        .as_str()
                        .unwrap()
                        .contains("fault_bad_address: still running"),
                    "{r}"
                );
                let notes = r["notes"].to_string();
                assert!(
                    notes.contains("1 stores went to addresses no memory or device covers")
                        && notes.contains("0x10000000"),
                    "{notes}"
                );
            }
        }
    }
    for board in ["esp32s3", "esp32"] {
        let (f, t) = fault(board, "fault_window-windowed");
        assert_eq!(f["kind"], "unhandled exception", "{board}: {t}");
        assert!(f["location"].as_str().unwrap().starts_with("depth"), "{t}");
        let m = f["message"].as_str().unwrap();
        assert!(
            m.contains("WindowOverflow") && m.contains("no handler"),
            "{t}"
        );
        assert!(
            f["instruction"].as_str().is_some_and(|i| !i.is_empty()),
            "{t}"
        );
    }
}

/// Every Xtensa ELF built (`firmware/build/<board>/`, both ABIs) and the shipped ESP32-S3 examples,
/// with the board each is built for.
fn xtensa_firmware() -> Vec<(&'static str, String)> {
    let mut all = Vec::new();
    for (board, _) in BOARDS {
        let dir = root().join("firmware/build").join(board);
        let mut elfs: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}: run `bash firmware/build.sh`", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "elf"))
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        assert!(!elfs.is_empty(), "no firmware in {}", dir.display());
        elfs.sort();
        all.extend(elfs.into_iter().map(|e| (board, e)));
    }
    for example in ["esp32s3-demo", "esp32s3-tigris"] {
        let path = root().join(format!("examples/{example}.elf"));
        all.push(("esp32s3", path.to_string_lossy().into_owned()));
    }
    all
}

/// `tigris-sim run` of `elf` with `extra` arguments: (exit code, stdout, the report's bytes).
fn run_raw(board: &str, elf: &str, extra: &[&str]) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let report = temp_path("report.json");
    let report_s = report.to_string_lossy().into_owned();
    let mut args = vec![
        "run", "--quiet", "--board", board, elf, "--report", &report_s,
    ];
    args.extend_from_slice(extra);
    let out = sim(&args);
    let bytes = std::fs::read(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    (out.status.code(), out.stdout, bytes)
}

/// The block compiler is exact: every Xtensa firmware gives the same exit code, console and
/// byte-identical report with hot blocks compiled as interpreted (`--no-block-compiler`), run whole
/// and cut short by an instruction and a cycle limit (which end runs inside compiled code's reach).
#[test]
fn compiled_and_interpreted_runs_give_byte_identical_reports() {
    let limits: [&[&str]; 3] = [
        &[],
        &["--max-instructions", "1000003"],
        &["--max-cycles", "777777"],
    ];
    for (board, elf) in xtensa_firmware() {
        for limit in limits {
            let compiled = run_raw(board, &elf, limit);
            let interpreted = run_raw(board, &elf, &[limit, &["--no-block-compiler"]].concat());
            assert!(
                !compiled.2.is_empty(),
                "{elf} on {board} {limit:?}: no report"
            );
            assert!(
                compiled == interpreted,
                "{elf} on {board} {limit:?}: compiled and interpreted runs differ"
            );
        }
    }
}

#[test]
fn arm_elf_on_an_xtensa_board_is_refused_clearly() {
    let arm = root().join("examples/mps2-an386-demo.elf");
    let out = sim(&["run", "--board", "esp32s3", arm.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ELF for ARM") && err.contains("xtensa-lx7") && err.contains("Xtensa ELF"),
        "{err}"
    );
}

#[test]
fn shipped_esp32s3_example_runs() {
    let out = sim(&["run", "--board", "esp32s3", "examples/esp32s3-demo.elf"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("demo: total=0x8EEDA650"), "{stdout}");
}

/// `ets_printf` at its ESP32-S3 ROM address: emulated without the ROM, the ROM's own with it; the
/// same text (formats, register and stack arguments) either way.
#[test]
fn rom_ets_printf_is_emulated_or_runs_in_the_rom() {
    let expected =
        "rom_printf: -42 7 0x0000beef [   ab|3   |Z] done\nrom_printf: many 1 2 3 4 5 6 7 8\n";
    let (code, r, _) = run(
        "esp32s3",
        &elf("esp32s3", "rom_printf-windowed"),
        &["--no-rom"],
    );
    assert_eq!((code, r["console"].as_str().unwrap()), (0, expected));
    if !common::rom_available("esp32s3_rev0_rom.elf") {
        eprintln!(
            "skipped the real-ROM half: esp32s3_rev0_rom.elf not found (see docs/esp-idf.md)"
        );
        return;
    }
    let (code, r, _) = run("esp32s3", &elf("esp32s3", "rom_printf-windowed"), &[]);
    // The ROM's character sink sends a newline as CR LF, as the chip's UART shows it.
    assert_eq!(
        (code, r["console"].as_str().unwrap()),
        (0, expected.replace('\n', "\r\n").as_str())
    );
    let rom = common::function(&r, "ets_printf");
    assert!(
        rom["inclusive_instructions"].as_u64().unwrap() > 1000,
        "the ROM's printf ran: {rom}"
    );
}

/// A timer-group alarm interrupts the core through the interrupt matrix: TIMG0 timer 0's alarm
/// auto-reloads every 1 ms (1000 counts of APB / 80), its level source is routed to CPU interrupt
/// 1, the firmware's kernel-vector handler counts and re-arms, and WAITI sleeps in between. Five
/// interrupts take 5 ms of simulated time, on both chips.
#[test]
fn timer_group_alarms_interrupt_the_core_on_time() {
    for board in ["esp32s3", "esp32"] {
        let (code, r, _) = run(
            board,
            &elf(board, "timer_alarm-windowed"),
            &["--max-cycles", "50000000"],
        );
        assert_eq!(
            code, 5,
            "{board}: five interrupts counted: {}",
            r["outcome"]
        );
        let handler = r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "tg_level1_interrupt")
            .unwrap_or_else(|| panic!("{board}: the handler is not in the profile"));
        assert_eq!(handler["calls"], 5, "{board}: {handler}");
        let ms = r["totals"]["seconds"].as_f64().unwrap() * 1e3;
        assert!((5.0..5.01).contains(&ms), "{board}: {ms} ms");
    }
}

/// The timer group's watchdog: stage 0 (10 ms) raises its status, stage 1 (5 ms later) resets the
/// system; three feeds 4 ms apart restart it, and a write while its registers are locked does not
/// switch it off. The run ends with the watchdog's reset 12 + 10 + 5 = 27 ms after the start.
#[test]
fn the_timer_group_watchdog_resets_the_chip_when_it_is_no_longer_fed() {
    // The engine and the report agree on how a watchdog's reset is told from a software one.
    assert_eq!(
        tigris_memmodels::periph::WATCHDOG_RESET,
        tigris_traces::WATCHDOG_RESET
    );
    for board in ["esp32s3", "esp32"] {
        let (code, r, _) = run(
            board,
            &elf(board, "watchdog-windowed"),
            &["--max-cycles", "100000000"],
        );
        assert_eq!(code, 123, "{board}: {}", r["outcome"]);
        assert_eq!(
            r["outcome"]["by"], "watchdog TIMG1.WDTCONFIG0, stage 1 timed out: reset the system",
            "{board}"
        );
        let ms = r["totals"]["seconds"].as_f64().unwrap() * 1e3;
        assert!((27.0..27.01).contains(&ms), "{board}: {ms} ms");
    }
}

/// UART0's interrupt source: with TXFIFO_EMPTY enabled the UART interrupts while its FIFO is
/// empty; the firmware's handler sends a byte per interrupt and switches the interrupt off after
/// the third, on both chips.
#[test]
fn uart_transmit_interrupts_reach_the_core() {
    for board in ["esp32s3", "esp32"] {
        let (code, r, _) = run(
            board,
            &elf(board, "uart_irq-windowed"),
            &["--max-cycles", "10000000"],
        );
        assert_eq!(code, 3, "{board}: {}", r["outcome"]);
        assert_eq!(r["console"], "UUU", "{board}");
        let handler = r["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "uart_level1_interrupt")
            .unwrap_or_else(|| panic!("{board}: the handler is not in the profile"));
        assert_eq!(handler["calls"], 3, "{board}: {handler}");
    }
}

/// Every instruction macro of firmware/calibration/xtensa_lx6_prelude.S (which assembles the ESP-DSP
/// kernels of scripts/accuracy.sh) executed on the ISS and compared with the same operation in C: a
/// wrong encoding or a wrong ISS operation prints a FAILED line and exits 1.
#[test]
fn the_esp_dsp_prelude_macros_agree_with_c_on_the_lx6_and_lx7() {
    for board in ["esp32", "esp32s3"] {
        let (code, r, _) = run(board, &elf(board, "lx6_prelude_check"), &[]);
        let console = r["console"].as_str().unwrap();
        assert_eq!(code, 0, "{board}: {console}");
        assert!(!console.contains("FAILED"), "{board}: {console}");
        assert!(
            console.contains("prelude checks") && console.ends_with("ok\n"),
            "{board}: {console}"
        );
    }
}

/// The ESP-DSP PIE prelude (firmware/calibration/xtensa_pie_prelude.S, which assembles the ESP32-S3
/// kernels of scripts/accuracy.sh) is what gen_pie_prelude.py makes of cores/src/xtensa/pie.rs's
/// opcode table, and each of its macros, executed once on the esp32s3 board, is decoded by the ISS
/// as the instruction the macro's instance names (its `PIE-CHECK:` comment): a wrong field gives
/// another mnemonic or operand. The kernels' results are checked against C by the suite itself.
#[test]
fn the_pie_prelude_is_generated_from_the_opcode_table_and_decodes_as_written() {
    let cal = root().join("firmware/calibration");
    let out = temp_path("pie-prelude");
    std::fs::create_dir_all(&out).unwrap();
    let made = std::process::Command::new("python3")
        .arg(cal.join("gen_pie_prelude.py"))
        .arg(&out)
        .output()
        .expect("run python3");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    for file in ["xtensa_pie_prelude.S", "pie_prelude_check.S"] {
        assert!(
            std::fs::read(out.join(file)).unwrap() == std::fs::read(cal.join(file)).unwrap(),
            "{file} differs from what gen_pie_prelude.py generates"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
    let check = std::fs::read_to_string(cal.join("pie_prelude_check.S")).unwrap();
    let want: Vec<&str> = check
        .split("PIE-CHECK: ")
        .skip(1)
        .map(|rest| rest.split(" */").next().unwrap().trim())
        .collect();
    let run = sim(&[
        "run",
        "--board",
        "esp32s3",
        "--summary",
        "none",
        "--trace-instructions",
        &elf("esp32s3", "pie_prelude_check"),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    // Trace lines: `insn N PC location TEXT a0=...`; the prelude's own words are the PIE ones and
    // the core instructions it adds (rur/wur of PIE's user registers, sext).
    let trace = String::from_utf8_lossy(&run.stderr);
    let got: Vec<String> = trace
        .lines()
        .filter_map(|l| l.strip_prefix("insn"))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let end = fields.iter().position(|f| f.starts_with("a0="))?;
            Some(fields.get(3..end)?.join(" "))
        })
        .filter(|text| {
            ["ee.", "ld.qr", "st.qr", "mv.qr", "rur.", "wur.", "sext "]
                .iter()
                .any(|p| text.starts_with(p))
        })
        .collect();
    assert!(want.len() >= 60, "{} instances", want.len());
    assert_eq!(got, want, "the ISS's decoding of the prelude's words");
}
