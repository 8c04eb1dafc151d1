//! Stop conditions for CI (`--expect`, `--expect-timeout`, `--fail-on`, `--stop-at`,
//! `--until-cycles`) and the idle end, on both ISAs, through the real binary.

mod common;

use common::{elf, run, sim};

/// A Cortex-M and an Xtensa board with the demo, which prints a line per image.
const BOARDS: [&str; 2] = ["mps2-an386", "esp32s3"];

fn condition(report: &serde_json::Value) -> (&str, bool) {
    let o = &report["outcome"];
    assert_eq!(o["kind"], "condition", "{o}");
    (
        o["condition"].as_str().unwrap(),
        o["passed"].as_bool().unwrap(),
    )
}

fn console(report: &serde_json::Value) -> &str {
    report["console"].as_str().unwrap()
}

#[test]
fn expect_passes_when_the_text_appears_and_ends_the_run_there() {
    for board in BOARDS {
        let demo = elf(board, "demo");
        let (_, whole, _) = run(board, &demo, &[]);
        let (code, r, stdout) = run(board, &demo, &["--expect", "image 1"]);
        assert_eq!(code, 0, "{board}: {stdout}");
        assert_eq!(condition(&r), ("expect", true), "{board}");
        assert!(console(&r).contains("image 1"), "{board}");
        assert!(
            !console(&r).contains("image 3"),
            "{board}: ran on past the text"
        );
        let (cycles, total) = (&r["totals"]["cycles"], &whole["totals"]["cycles"]);
        assert!(
            cycles.as_u64() < total.as_u64(),
            "{board}: {cycles} vs {total}"
        );
        assert!(stdout.contains("PASSED (--expect: the console printed \"image 1\")"));
    }
}

#[test]
fn expect_fails_when_the_run_ends_without_the_text() {
    for board in BOARDS {
        let (code, r, _) = run(board, &elf(board, "demo"), &["--expect", "no such line"]);
        assert_eq!(code, 1, "{board}");
        assert_eq!(r["outcome"]["kind"], "exited", "{board}");
        let notes = r["notes"].to_string();
        assert!(
            notes.contains("--expect: the console never printed \\\"no such line\\\""),
            "{board}: {notes}"
        );
    }
}

#[test]
fn expect_timeout_fails_in_simulated_time() {
    for board in BOARDS {
        let (code, r, _) = run(
            board,
            &elf(board, "demo"),
            &["--expect", "no such line", "--expect-timeout", "1ms"],
        );
        assert_eq!(code, 1, "{board}");
        assert_eq!(condition(&r), ("expect_timeout", false), "{board}");
        let seconds = r["totals"]["seconds"].as_f64().unwrap();
        // Stopped at the first instruction boundary at or after 1 ms of simulated time.
        assert!(
            (0.001..0.001 + 1e-6).contains(&seconds),
            "{board}: {seconds}"
        );
    }
}

#[test]
fn fail_on_fails_at_the_first_of_its_texts() {
    for board in BOARDS {
        let (code, r, _) = run(
            board,
            &elf(board, "demo"),
            &["--fail-on", "image 2", "--fail-on", "weights"],
        );
        assert_eq!(code, 1, "{board}");
        assert_eq!(condition(&r), ("fail_on", false), "{board}");
        assert!(
            r["outcome"]["detail"]
                .as_str()
                .unwrap()
                .contains("\"weights\""),
            "{board}: {}",
            r["outcome"]
        );
    }
}

#[test]
fn stop_at_passes_at_the_first_entry_of_the_function() {
    for board in BOARDS {
        let (code, r, _) = run(board, &elf(board, "crc32"), &["--stop-at", "printf"]);
        assert_eq!(code, 0, "{board}");
        assert_eq!(condition(&r), ("stop_at", true), "{board}");
        // newlib's `printf` shares its address with `iprintf`, the name the profile keeps.
        let location = r["outcome"]["location"].as_str().unwrap();
        assert!(
            ["printf", "iprintf"].contains(&location),
            "{board}: {location}"
        );
        assert_eq!(
            console(&r),
            "",
            "{board}: stopped before the first printf printed"
        );
        let crc32 = elf(board, "crc32");
        let out = sim(&["run", &crc32, "--board", board, "--stop-at", "no_such_fn"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{board}: an unknown symbol is bad input"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--stop-at no_such_fn: no function symbol of that name in the ELF"),
            "{stderr}"
        );
    }
}

#[test]
fn until_cycles_passes_at_that_cycle() {
    for board in BOARDS {
        let (code, r, _) = run(board, &elf(board, "demo"), &["--until-cycles", "200000"]);
        assert_eq!(code, 0, "{board}");
        assert_eq!(condition(&r), ("until_cycles", true), "{board}");
        let cycles = r["totals"]["cycles"].as_u64().unwrap();
        // The run ends at the first instruction boundary at or after the cycle.
        assert!((200_000..200_100).contains(&cycles), "{board}: {cycles}");
    }
}

#[test]
fn sleeping_with_nothing_to_wake_the_core_ends_the_run_as_idle() {
    for board in ["mps2-an386", "rp2040", "esp32s3", "esp32", "esp8266"] {
        let (code, r, _) = run(board, &elf(board, "idle"), &[]);
        assert_eq!(code, 122, "{board}");
        let o = &r["outcome"];
        assert_eq!(o["kind"], "idle", "{board}: {o}");
        assert!(o["location"].as_str().unwrap().starts_with("main"), "{o}");
        assert!(console(&r).contains("idle: work done, sleeping"), "{board}");
        // --expect still passes when the text came before the core went to sleep.
        let (code, r, _) = run(board, &elf(board, "idle"), &["--expect", "work done"]);
        assert_eq!((code, condition(&r)), (0, ("expect", true)), "{board}");
    }
}
