//! What-if runs (docs/tigris.md, "What-if runs"): `run --plan` hands the firmware's
//! `tigris_plan_load` another plan, `--fast-arena`/`--slow-arena` hand `tigris_mem_init` other arenas.
//! A what-if run of one reference firmware must break down like the firmware built with that plan
//! and those arenas.

mod common;

use common::{elf, root, run, sim};
use serde_json::Value;

fn plan(mode: &str) -> String {
    root()
        .join(format!("firmware/tigris/plans/tigris_{mode}.tgrs"))
        .to_string_lossy()
        .into_owned()
}

/// The TiGrIS section with every absolute cycle made relative to the inference's first stage: a
/// firmware built with a smaller fast arena clears less `.bss` at start-up, so its inference starts
/// earlier by that much; everything from the first stage on must be the same.
fn from_first_stage(report: &Value) -> Value {
    let mut t = report["tigris"].clone();
    let start = t["stages"][0]["start_cycle"].as_u64().unwrap();
    let shift = |v: &mut Value| *v = Value::from(v.as_u64().unwrap() - start);
    for stage in t["stages"].as_array_mut().unwrap() {
        shift(&mut stage["start_cycle"]);
        for tile in stage["tiles"].as_array_mut().unwrap() {
            shift(&mut tile["start_cycle"]);
        }
    }
    for event in t["timeline"].as_array_mut().unwrap() {
        if event["cycle"].as_u64().unwrap() >= start {
            shift(&mut event["cycle"]);
        } else {
            event["cycle"] = Value::from(0);
        }
    }
    t
}

fn console_ends_well(console: &str, what: &str) {
    for line in [
        "crc32=0xD5E2CAB6 nonzero=7617 sum=632759 reference=match",
        "check trace=ok",
    ] {
        assert!(console.contains(line), "{what}: no `{line}` in\n{console}");
    }
}

#[test]
fn another_plan_breaks_down_like_the_firmware_built_with_it() {
    // The tiled firmware (fast arena 8192) given the chain plan and the chain firmware's arena (6144).
    for (board, program) in [
        ("stm32h753", "tigris_{}"),
        ("mps2-an386", "tigris_{}"),
        ("esp32s3", "tigris_{}"),
        ("esp32s3", "tigris_{}-windowed"),
    ] {
        let built = elf(board, &program.replace("{}", "chain"));
        let tiled = elf(board, &program.replace("{}", "tiled"));
        let (code, expected, _) = run(board, &built, &[]);
        assert_eq!(code, 0, "{built}");
        let chain = plan("chain");
        let (code, what_if, _) = run(board, &tiled, &["--plan", &chain, "--fast-arena", "6144"]);
        assert_eq!(code, 0, "{tiled} --plan {chain}");
        let what = format!("{board} {tiled} --plan {chain}");
        console_ends_well(what_if["console"].as_str().unwrap(), &what);
        assert_eq!(what_if["tigris"]["plan"]["model"], "tigris_chain", "{what}");
        assert_eq!(
            from_first_stage(&what_if),
            from_first_stage(&expected),
            "{what}"
        );
        let notes = what_if["notes"].to_string();
        assert!(
            notes.contains("tigris_plan_load was handed this plan (1680 bytes at 0x")
                && notes.contains("in place of the firmware's 1744 bytes")
                && notes.contains("a fast arena of 6144 bytes"),
            "{what}: {notes}"
        );
        if board == "esp32s3" {
            // Its start-up does not clear the fast arena: the whole section is the built firmware's.
            assert_eq!(what_if["tigris"], expected["tigris"], "{what}");
        }
    }
}

#[test]
fn a_larger_plan_goes_to_free_memory_of_its_region() {
    // The normal firmware's plan is 1648 bytes; the tiled plan (1744) is placed in free flash.
    let board = "stm32h753";
    let (_, expected, _) = run(board, &elf(board, "tigris_tiled"), &[]);
    let tiled = plan("tiled");
    let (code, what_if, _) = run(
        board,
        &elf(board, "tigris_normal"),
        &["--plan", &tiled, "--fast-arena", "8K"],
    );
    assert_eq!(code, 0);
    console_ends_well(what_if["console"].as_str().unwrap(), "normal --plan tiled");
    let findings = what_if["tigris"]["findings"].to_string();
    assert!(
        findings.contains("is larger than the firmware's 1648 bytes")
            && findings.contains("in free memory of region `flash`"),
        "{findings}"
    );
    let address = what_if["tigris"]["plan"]["address"].as_u64().unwrap();
    assert!(
        address > expected["tigris"]["plan"]["address"].as_u64().unwrap(),
        "the plan moved past the image: 0x{address:x}"
    );
    // The same work; the plan's other address puts its lines in other cache sets (the stm32h753's
    // flash is behind the L1 caches), so cycles may differ by a little, bytes not at all.
    let (got, want) = (&what_if["tigris"]["total"], &expected["tigris"]["total"]);
    for key in [
        "load_bytes",
        "spill_bytes",
        "slow_read_bytes",
        "slow_write_bytes",
        "halo_rows",
        "fast_peak",
    ] {
        assert_eq!(got[key], want[key], "{key}");
    }
    let (got, want) = (
        got["cycles"].as_f64().unwrap(),
        want["cycles"].as_f64().unwrap(),
    );
    assert!((got - want).abs() / want < 1e-3, "cycles {got} vs {want}");
}

#[test]
fn arenas_shrink_and_grow_into_free_memory_or_are_refused() {
    let board = "stm32h753";
    let tiled = elf(board, "tigris_tiled");
    // The slow arena is alone in its section: it grows in place, and the run says so.
    let (code, report, _) = run(board, &tiled, &["--slow-arena", "64K"]);
    assert_eq!(code, 0);
    assert_eq!(report["tigris"]["arenas"]["slow_size"], 65536);
    assert!(report["tigris"]["findings"]
        .to_string()
        .contains("the slow arena grew to 65536 bytes in place"));
    // The fast arena shares DTCM with the stack and the heap: growing it is refused, naming why.
    let out = sim(&[
        "run",
        "--quiet",
        "--board",
        board,
        &tiled,
        "--fast-arena",
        "16K",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--fast-arena 16384") && stderr.contains("region `dtcm` holds the stack"),
        "{stderr}"
    );
    // Below what the plan needs, the runtime itself refuses the stage: a result, not an error.
    let (code, report, _) = run(board, &tiled, &["--fast-arena", "4K"]);
    let console = report["console"].as_str().unwrap();
    assert_ne!(code, 0, "{console}");
    assert!(report["notes"]
        .to_string()
        .contains("below the plan's fast budget of 8192 bytes"));
}

#[test]
fn bad_what_if_input_is_refused_before_the_run() {
    let tiled = elf("stm32h753", "tigris_tiled");
    let demo = elf("mps2-an386", "demo");
    let missing = root().join("no-such-plan.tgrs");
    let missing = missing.to_string_lossy();
    for (board, firmware, args, expect) in [
        ("stm32h753", &tiled, vec!["--plan", &*missing], "--plan"),
        (
            "stm32h753",
            &tiled,
            vec!["--plan", &*tiled],
            "not a plan this simulator reads",
        ),
        (
            "mps2-an386",
            &demo,
            vec!["--fast-arena", "8K"],
            "does not run the TiGrIS runtime",
        ),
        (
            "stm32h753",
            &tiled,
            vec!["--fast-arena", "0"],
            "at least one byte",
        ),
        (
            "stm32h753",
            &tiled,
            vec!["--slow-arena", "5G"],
            "32-bit address space",
        ),
        (
            "stm32h753",
            &tiled,
            vec!["--slow-arena", "8BK"],
            "not a size",
        ),
    ] {
        let mut argv = vec!["run", "--quiet", "--board", board, firmware.as_str()];
        argv.extend(&args);
        let out = sim(&argv);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
    }
}
