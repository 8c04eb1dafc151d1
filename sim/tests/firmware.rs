//! End-to-end tests: the real binary on the firmware built by `firmware/build.sh`.

mod common;

use common::{assert_fault_source, elf, host_output, root, run, sim};

const BOARDS: [&str; 8] = [
    "mps2-an386",
    "mps2-an500",
    "stm32f446re",
    "stm32h753",
    "nrf52840",
    "rp2040",
    "rp2350",
    "atsam3x8e",
];

#[test]
fn portable_programs_print_what_the_host_prints_on_every_board() {
    for program in [
        "sort",
        "crc32",
        "matmul",
        "recursion",
        "strings_float",
        "demo",
        "exit_code",
    ] {
        let expected = host_output(program);
        let want_code = if program == "exit_code" { 42 } else { 0 };
        for board in BOARDS {
            let (code, r, _) = run(board, &elf(board, program), &[]);
            assert_eq!(
                r["console"].as_str().unwrap(),
                expected,
                "{program} on {board}"
            );
            assert_eq!(code, want_code, "{program} on {board}");
            assert_eq!(r["outcome"]["kind"], "exited");
            assert!(
                r["totals"]["cycles"].as_u64().unwrap() > 0
                    && r["totals"]["instructions"].as_u64().unwrap() > 0
            );
        }
    }
}

/// BENCH lines: name -> cycles.
fn benches(board: &str) -> std::collections::HashMap<String, i64> {
    let (code, r, _) = run(board, &elf(board, "timing"), &[]);
    assert_eq!(code, 0);
    r["console"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 4 && f[0] == "BENCH").then(|| (f[1].to_string(), f[2].parse().unwrap()))
        })
        .collect()
}

/// Each `(benchmark, cycles the facts give, tolerance)` against the measured BENCH lines.
fn assert_benches(board: &str, expected: &[(&str, i64, i64)]) {
    let b = benches(board);
    for &(name, cycles, tolerance) in expected {
        let got = b[name];
        assert!(
            (got - cycles).abs() <= tolerance,
            "{board} {name}: measured {got} cycles, the facts give {cycles} (tolerance {tolerance})"
        );
    }
}

/// Cortex-M4 TRM r0p1 §3.3.1 Table 3-1 and §3.3.2: pipelined loads 1 cycle after the first (2), dependent
/// loads 2, taken branch 1+P with P=1 to a 16-bit target (jnk0le/random "pipeline cycle test":
/// a taken branch is 2 cycles on an STM32F407), untaken conditional 1, UDIV 2 + one per 3.2
/// quotient bits (100/7: 4, 0xFFFFFFFF/3: 12), NOP 1, MUL 1. Tolerance: 2 cycles per 32
/// instructions, for the frame around each sequence.
#[test]
fn cortex_m4_microbenchmarks_follow_the_trm() {
    for board in ["mps2-an386", "stm32f446re"] {
        assert_benches(
            board,
            &[
                ("ldr_independent", 33, 2),
                ("ldr_dependent", 64, 2),
                ("branch_taken", 64, 2),
                ("bcond_taken", 64, 2),
                ("bcond_not_taken", 32, 2),
                ("udiv_small", 128, 2),
                ("udiv_large", 384, 2),
                ("nop", 64, 1),
                ("mul", 32, 1),
            ],
        );
    }
}

/// M3/M4 pipeline mechanisms (firmware/timing/bench_pipe.S): a load used by the next instruction
/// is 2 + 1 (TRM Table 3-1); MACs chain on the accumulator every cycle; a branch landing on a 32-bit
/// instruction at an odd halfword refills one cycle more, and a run of three such instructions
/// costs one extra cycle (compendium.i-0.nl "Instruction alignment: rules"); neighbouring loads
/// pipeline only inside one memory block (jnk0le/random "pipeline cycle test"): on the STM32F446
/// the table is in flash and `buf` in SRAM, on the MPS2 both are in one SRAM.
#[test]
fn cortex_m4_pipeline_mechanisms() {
    for (board, two_blocks) in [("mps2-an386", 33), ("stm32f446re", 64)] {
        assert_benches(
            board,
            &[
                ("alu_pairs", 64, 1),
                ("ldr_use", 96, 2),
                ("ldrb_use", 96, 2),
                ("mac_chain", 32, 1),
                ("mac_after_load", 48, 2),
                ("branch_pairs", 112, 2),
                ("branch_unaligned", 112, 2),
                ("wide_unaligned", 48, 1),
                ("ldr_two_blocks", two_blocks, 2),
            ],
        );
    }
}

/// Cortex-M7 dual issue and result latencies (jnk0le/random "pipeline cycle test"
/// doc/cortex_m7.md, STM32H743), on the zero-wait MPS2 AN500: independent neighbours issue two a
/// cycle (ALU pairs, NOPs, loads to different banks, a branch with the instruction before it); a
/// word load feeds the ALU the next cycle but an address two cycles later (pointer chase 2 each);
/// a byte load one cycle later still; a MAC multiplicand two cycles after its load, while MACs
/// chain on the accumulator every cycle.
#[test]
fn cortex_m7_dual_issue_and_latencies() {
    assert_benches(
        "mps2-an500",
        &[
            ("alu_pairs", 32, 1),
            ("nop", 32, 1),
            ("ldr_independent", 16, 1),
            ("ldr_dependent", 64, 2),
            ("ldr_use", 33, 2),
            ("ldrb_use", 65, 2),
            ("mac_chain", 32, 1),
            ("mac_after_load", 31, 2),
            ("branch_pairs", 32, 1),
        ],
    );
}

/// Constants in flash on the STM32F446 are read through the ART data cache (8 lines of 128 bits):
/// four lines read again and again hit (33, pipelined loads); 32 lines cycled through miss every
/// time, each costing the flash's wait states (5 at 180 MHz: 33 + 32 x 5). The figures move as the
/// mechanism says with `--set`: 2 wait states, 32 x 2; 60 MHz, 1 wait state from the latency
/// table; a 64-line data cache holds all 32 lines and hits.
#[test]
fn flash_constants_through_the_art_data_cache_on_stm32f446re() {
    let board = "stm32f446re";
    let with = |set: &[&str]| {
        let (code, r, _) = run(board, &elf(board, "timing"), set);
        assert_eq!(code, 0);
        let line = |name: &str| -> i64 {
            r["console"]
                .as_str()
                .unwrap()
                .lines()
                .find_map(|l| l.strip_prefix(&format!("BENCH {name} ")))
                .and_then(|l| l.split_whitespace().next())
                .unwrap()
                .parse()
                .unwrap()
        };
        (line("flash_dcache_hit"), line("flash_dcache_miss"))
    };
    let near = |got: i64, want: i64| (got - want).abs() <= 2;
    let (hit, miss) = with(&[]);
    assert!(near(hit, 33) && near(miss, 193), "{hit} {miss}");
    let (hit, miss) = with(&["--set", "flash.wait_states=2"]);
    assert!(near(hit, 33) && near(miss, 97), "{hit} {miss}");
    let (_, miss) = with(&["--set", "core.clock_hz=60000000"]);
    assert!(near(miss, 65), "{miss}");
    let (_, miss) = with(&[
        "--set",
        "art_dcache.size=1024",
        "--set",
        "art_dcache.ways=64",
    ]);
    assert!(near(miss, 33), "{miss}");
}

/// Cortex-M0+ TRM (Arm DDI 0484) cycle counts: loads 2 cycles, no pipelining; B 2; B<cc> 2 taken, 1 untaken.
#[test]
fn cortex_m0plus_microbenchmarks_follow_the_facts() {
    assert_benches(
        "rp2040",
        &[
            ("ldr_independent", 64, 2),
            ("ldr_dependent", 64, 2),
            ("branch_taken", 64, 2),
            ("bcond_taken", 64, 2),
            ("bcond_not_taken", 32, 2),
            ("nop", 64, 1),
        ],
    );
}

/// 512 straight-line 16-bit instructions from flash with 5 wait states: the prefetch buffer hides
/// every 16-byte line, since 8 cycles of work per line exceed 5 + 1, and the first line of the
/// sequence follows the frame's line sequentially, so flash costs what SRAM costs (+-2).
#[test]
fn flash_wait_states_and_prefetch_on_stm32f446re() {
    assert_benches(
        "stm32f446re",
        &[("flash_fetch_sram", 512, 2), ("flash_fetch_flash", 512, 2)],
    );
}

/// The same firmware with the board's flash at 5 wait states and, through --set, at 0: all the
/// difference is flash stall cycles, and without wait states there are none.
#[test]
fn flash_wait_states_cost_exactly_their_stalls() {
    let fw = elf("stm32f446re", "demo");
    let (_, slow, _) = run("stm32f446re", &fw, &[]);
    let (_, fast, _) = run("stm32f446re", &fw, &["--set", "flash.wait_states=0"]);
    let stalls = slow["regions"][0]["stall_cycles"].as_u64().unwrap();
    assert!(stalls > 0);
    assert_eq!(fast["totals"]["stall_cycles"].as_u64(), Some(0));
    let cycles = |r: &serde_json::Value| r["totals"]["cycles"].as_u64().unwrap();
    assert_eq!(cycles(&slow) - cycles(&fast), stalls);
}

#[test]
fn systick_interrupts_wake_wfi_and_the_cycle_counter_agrees() {
    for board in ["mps2-an386", "stm32f446re", "rp2040"] {
        let (code, r, _) = run(board, &elf(board, "systick"), &[]);
        let console = r["console"].as_str().unwrap();
        assert_eq!(code, 0, "{board}: {console}");
        assert!(
            console.contains("systick: ticks=10 ipsr=15"),
            "{board}: {console}"
        );
        if let Some(line) = console.lines().find(|l| l.starts_with("systick: cyccnt=")) {
            let cyc: u64 = line["systick: cyccnt=".len()..].trim().parse().unwrap();
            // 10 periods of LOAD+1 = 10000 cycles, plus the few instructions around them.
            assert!((100_000..100_200).contains(&cyc), "{board}: cyccnt {cyc}");
        }
    }
}

#[test]
fn svc_and_pendsv_handlers_run_with_their_exception_number() {
    for board in ["mps2-an386", "rp2040"] {
        let (_, r, _) = run(board, &elf(board, "svc"), &[]);
        assert!(r["console"]
            .as_str()
            .unwrap()
            .contains("svc: number=5 r0=0x1234 returned=0x1235 ipsr=11 calls=1"));
        let (_, r, _) = run(board, &elf(board, "pendsv"), &[]);
        assert!(r["console"]
            .as_str()
            .unwrap()
            .contains("pendsv: round 2 handler_ran=2 ipsr=14"));
    }
}

#[test]
fn uart_and_itm_reach_the_console() {
    for board in ["mps2-an386", "stm32f446re"] {
        let (_, r, _) = run(board, &elf(board, "console_uart"), &[]);
        assert!(
            r["console"]
                .as_str()
                .unwrap()
                .contains("console_uart: hello from the UART"),
            "{board}"
        );
        let (_, r, _) = run(board, &elf(board, "console_itm"), &[]);
        assert!(
            r["console"]
                .as_str()
                .unwrap()
                .contains("console_itm: hello from ITM port 0"),
            "{board}"
        );
    }
}

#[test]
fn faults_are_reported_with_kind_location_and_backtrace() {
    let cases = [
        ("fault_bad_address", "bad read", Some(0x7000_0000u64)),
        ("fault_undefined", "undefined instruction", None),
        ("fault_stack_overflow", "stack overflow", None),
        ("fault_unhandled_irq", "unhandled exception", Some(0x54)),
        ("fault_endless_loop", "endless loop", None),
    ];
    for (program, kind, address) in cases {
        let (code, r, stdout) = run("mps2-an386", &elf("mps2-an386", program), &[]);
        assert_eq!(code, 125, "{program}");
        let f = &r["fault"];
        assert_eq!(f["kind"], kind, "{program}: {f}");
        assert!(
            f["location"].as_str().is_some_and(|l| !l.is_empty()),
            "{program}: {f}"
        );
        assert!(!f["backtrace"].as_array().unwrap().is_empty());
        if let Some(a) = address {
            assert_eq!(f["address"].as_u64(), Some(a), "{program}");
        }
        assert!(
            stdout.contains(&format!("fault: {kind}")),
            "{program}: {stdout}"
        );
    }
}

/// DWARF: the diagnostic names the faulting line inside an inlined helper, and the backtrace shows
/// the helper as an inlined frame above the function it was inlined into.
#[test]
fn a_fault_shows_its_source_line_through_an_inlined_function() {
    let board = "mps2-an386";
    let (code, r, stdout) = run(board, &elf(board, "fault_bad_address"), &[]);
    assert_eq!(code, 125);
    assert_fault_source(
        &r["fault"],
        "firmware/faults/fault_bad_address.c",
        "load_word",
        "main+0x",
    );
    assert!(
        stdout.contains("  source:      firmware/faults/fault_bad_address.c:"),
        "{stdout}"
    );
}

#[test]
fn limits_stop_a_busy_loop_with_their_own_exit_code() {
    let (code, r, _) = run(
        "mps2-an386",
        &elf("mps2-an386", "fault_busy_loop"),
        &["--max-cycles", "1000000"],
    );
    assert_eq!(code, 124);
    assert_eq!(r["outcome"]["limit"], "max_cycles");
    assert!(
        r["outcome"]["location"]
            .as_str()
            .unwrap()
            .starts_with("main"),
        "{}",
        r["outcome"]
    );
    assert!(!r["outcome"]["backtrace"].as_array().unwrap().is_empty());
    let (code, r, _) = run(
        "mps2-an386",
        &elf("mps2-an386", "fault_busy_loop"),
        &["--max-instructions", "50000"],
    );
    assert_eq!(code, 124);
    assert_eq!(r["outcome"]["limit"], "max_instructions");
}

#[test]
fn reports_are_byte_identical_across_runs() {
    let dir = std::env::temp_dir();
    let a = dir.join("tigris-det-a.json");
    let b = dir.join("tigris-det-b.json");
    for p in [&a, &b] {
        let out = sim(&[
            "run",
            "--quiet",
            "--board",
            "mps2-an386",
            "examples/mps2-an386-demo.elf",
            "--report",
            &p.to_string_lossy(),
        ]);
        assert!(out.status.success());
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn profile_attributes_cycles_to_functions() {
    let (_, r, stdout) = run("mps2-an386", &elf("mps2-an386", "crc32"), &[]);
    let total = r["totals"]["cycles"].as_u64().unwrap();
    let funcs = r["functions"].as_array().unwrap();
    let self_sum: u64 = funcs
        .iter()
        .map(|f| f["self_cycles"].as_u64().unwrap())
        .sum();
    assert_eq!(self_sum, total, "self cycles add up to the total");
    let main = funcs.iter().find(|f| f["name"] == "main").unwrap();
    assert!(main["inclusive_cycles"].as_u64().unwrap() > total * 9 / 10);
    // A slice boundary (here: the CPACR write in the reset handler) must not run a block twice.
    let reset = funcs.iter().find(|f| f["name"] == "Reset_Handler").unwrap();
    assert_eq!(
        (reset["calls"].as_u64(), main["calls"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(reset["inclusive_cycles"].as_u64(), Some(total));
    assert!(funcs
        .iter()
        .any(|f| f["name"] == "crc32_bitwise" && f["calls"].as_u64().unwrap() >= 6));
    assert!(stdout.contains("top functions by self cycles"));
}

fn expect_input_error(args: &[&str], needle: &str) {
    let out = sim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected `{needle}` in: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_gets_a_clear_error() {
    let dir = std::env::temp_dir();
    let empty = dir.join("tigris-empty.elf");
    std::fs::write(&empty, b"").unwrap();
    let junk = dir.join("tigris-junk.elf");
    std::fs::write(&junk, b"hello, not an elf").unwrap();
    let demo = std::fs::read(root().join("examples/mps2-an386-demo.elf")).unwrap();
    let truncated = dir.join("tigris-truncated.elf");
    std::fs::write(&truncated, &demo[..demo.len() / 3]).unwrap();
    let board = dir.join("tigris-bad-board.toml");
    std::fs::write(
        &board,
        "name = \"x\"\nsummary = \"s\"\n[core]\nkind = \"cortex-m4\"\nclock_hz = 10\nspeed = 3\n",
    )
    .unwrap();
    expect_input_error(
        &["run", "/nonexistent/fw.elf"],
        "cannot read firmware /nonexistent/fw.elf",
    );
    expect_input_error(&["run", &empty.to_string_lossy()], "the file is empty");
    expect_input_error(&["run", &junk.to_string_lossy()], "not an ELF file");
    expect_input_error(&["run", &truncated.to_string_lossy()], "truncated");
    expect_input_error(&["run", "/bin/true"], "ELF for x86-64");
    expect_input_error(
        &["run", "--board", "rp2040", "examples/mps2-an386-demo.elf"],
        "does not fit in the memory of board `rp2040`: no region holds 0x00004000",
    );
    expect_input_error(
        &["run", "--board", "nosuch", "examples/mps2-an386-demo.elf"],
        "unknown board `nosuch`",
    );
    // Past what a Duration holds: an error, not a panic (reliability review D4).
    expect_input_error(
        &[
            "run",
            "--board",
            "mps2-an386",
            "examples/mps2-an386-demo.elf",
            "--timeout",
            "1e20",
        ],
        "`1e20`: too large",
    );
    expect_input_error(
        &[
            "run",
            "--board",
            &board.to_string_lossy(),
            "examples/mps2-an386-demo.elf",
        ],
        "speed",
    );
    expect_input_error(
        &[
            "run",
            "--board",
            "mps2-an386",
            "--entry",
            "no_such_fn",
            "examples/mps2-an386-demo.elf",
        ],
        "no function symbol",
    );
    // The default board is the ESP32-S3: an ARM ELF given without --board is named as the mismatch.
    expect_input_error(&["run", "examples/mps2-an386-demo.elf"], "esp32s3");
}

#[test]
fn boards_lists_and_shows() {
    let out = sim(&["boards"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for b in BOARDS {
        assert!(text.contains(b), "{text}");
    }
    // The same list as JSON, the default board marked.
    let out = sim(&["boards", "--json"]);
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.len(), text.lines().count());
    let default: Vec<&serde_json::Value> = list.iter().filter(|b| b["default"] == true).collect();
    assert_eq!(
        (default.len(), &default[0]["name"], &default[0]["core"]),
        (
            1,
            &serde_json::json!("esp32s3"),
            &serde_json::json!("xtensa-lx7")
        )
    );
    let out = sim(&["boards", "show", "stm32f446re"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("wait states 5 read") && text.contains("180000000"),
        "{text}"
    );
    // The effective values after --set, and the costs derived from them: 84 MHz needs 2 wait states
    // (RM0390 table); octal PSRAM at 80 MHz under 240 MHz fills a 32-byte line in 35 clocks (chip
    // select included) = 105 cycles, + 25 ns of controller latency = 6 cycles.
    let out = sim(&[
        "boards",
        "show",
        "stm32f446re",
        "--set",
        "core.clock_hz=84000000",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("wait states 2 read") && text.contains("16-byte line fill 3"),
        "{text}"
    );
    let out = sim(&["boards", "show", "esp32s3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("psram: octal DDR at 80 MHz") && text.contains("32-byte line fill 111:"),
        "{text}"
    );
    assert!(
        text.contains("second core: PRID 0xABAB, started by its clock bit 1 of 0x600c0000")
            && text.contains(
                "cache MMU: 512 entries of 64 KiB at 0x600c5000, windows 0x3c000000 (entries 0-511), 0x42000000 (entries 0-511); flash chip 16 MiB"
            )
            && text.contains("boots flash images: the ROM loads the bootloader from flash offset 0x0 (chip ID 9)")
            && text.contains("second core: stalled by software while bits 0-1 of 0x60008000 = 0x2 and bits 20-25 of 0x600080bc = 0x21")
            && text.contains("direct boot: the app starts 992 bytes below the ROM's boot stack top"),
        "{text}"
    );
    let out = sim(&[
        "boards",
        "show",
        "esp32s3",
        "--set",
        "psram.mode=quad",
        "--set",
        "psram.clock_mhz=40",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("psram: quad STR at 40 MHz") && text.contains("32-byte line fill 474:"),
        "{text}"
    );
}

#[test]
fn semihosting_touches_host_files_only_when_allowed() {
    let file = std::path::Path::new("/tmp/tigris-semihost-files.txt");
    let _ = std::fs::remove_file(file);
    let fw = elf("mps2-an386", "semihost_files");
    let (code, r, _) = run("mps2-an386", &fw, &[]);
    assert_eq!(code, 0);
    assert_eq!(r["console"], "open: -1\n");
    assert!(
        r["notes"][0].as_str().unwrap().contains("refused"),
        "{}",
        r["notes"]
    );
    assert!(!file.exists(), "a refused open must not create the file");
    let (_, r, _) = run("mps2-an386", &fw, &["--allow-host-fs"]);
    assert_eq!(r["console"], "open: 3\nwrite: 0 bytes left\nclose: 0\n");
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        "written by firmware through semihosting\n"
    );
    let _ = std::fs::remove_file(file);
}

/// A closed stdout (`tigris-sim boards | head`) ends the process quietly, not with a panic
/// (reliability review: every command that prints).
#[test]
fn a_closed_stdout_ends_quietly() {
    for args in [&["boards"][..], &["boards", "show", "esp32s3"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tigris-sim"))
            .args(args)
            .stdout(writer)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && out.status.code() != Some(101),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
}

/// `--version` names the commit the binary was built from (`unknown` outside a git checkout).
#[test]
fn version_names_the_commit() {
    let out = sim(&["--version"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let commit = text
        .trim()
        .strip_prefix(concat!(
            "tigris-sim ",
            env!("CARGO_PKG_VERSION"),
            " (commit "
        ))
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{text}"
    );
}

/// Shell completions for every shell clap_complete knows, and a manual page.
#[test]
fn completions_and_manual_page_are_printed() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = sim(&["completions", shell]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("tigris-sim") && text.contains("boards"),
            "{shell}: {text}"
        );
    }
    let out = sim(&["man"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(".TH tigris-sim 1") && text.contains("compare"),
        "{text}"
    );
    let out = sim(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `tigris-sim bench ARGS` run from outside the checkout; its stdout, once it succeeded.
fn bench_from_elsewhere(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tigris-sim"))
        .arg("bench")
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `bench` finds the shipped example from any directory (the checkout the binary was built in).
#[test]
fn bench_runs_from_any_directory() {
    let text = bench_from_elsewhere(&["--repeat", "1", "--short"]);
    assert!(
        text.contains("bench on esp32s3")
            && text.contains("esp32s3/demo-windowed.elf: ")
            && text.contains("tigris-sim run")
            && text.contains("MIPS"),
        "{text}"
    );
}

/// `bench --memory` finds the shipped example and the built firmware from any directory too.
#[test]
fn bench_memory_runs_from_any_directory() {
    let text = bench_from_elsewhere(&["--memory", "--repeat", "1"]);
    assert!(!text.contains("not built"), "{text}");
    assert_eq!(text.matches(" MIPS (").count(), 10, "{text}");
}
