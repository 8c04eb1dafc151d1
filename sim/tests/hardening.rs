//! Regression tests of issue 16 (hardening and polish) that run the binary as a user does: inputs
//! that once panicked, hung or exhausted memory, diagnostics that named the wrong place, and the
//! files a checkout ships.

mod common;

use common::{elf, root, run, sim, temp_path};
use std::process::{Command, Output};

/// `tigris-sim ARGS` with the address space limited to `megabytes` (`ulimit -v`): an allocation of
/// gigabytes aborts the process instead of succeeding on a large machine.
fn sim_limited(megabytes: u64, args: &[&str]) -> Output {
    let mut script = format!("ulimit -v {} && exec \"$0\"", megabytes * 1024);
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${{{i}}}\""));
    }
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_tigris-sim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tigris-sim")
}

/// Review D5: semihosting requests whose lengths run far past memory (a 2 GiB write, a 4 GiB
/// file name, a 2 GiB read into a 16-byte buffer) end the run as a bad-pointer fault before
/// anything is allocated for them, even under a memory limit that a 2 GiB buffer would exceed.
#[test]
fn semihosting_lengths_past_memory_fault_without_allocating() {
    let fw = elf("mps2-an386", "semihost_limits");
    for (entry, len) in [
        ("write_huge", "+2147483647 bytes"),
        ("open_huge", "+4294967295 bytes"),
        ("read_huge", "+2147483647 bytes"),
    ] {
        let report = temp_path(&format!("{entry}.json"));
        let out = sim_limited(
            1500,
            &[
                "run",
                "--quiet",
                "--board",
                "mps2-an386",
                &fw,
                "--entry",
                entry,
                "--allow-host-fs",
                "--report",
                &report.to_string_lossy(),
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{entry}: {err}");
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let _ = std::fs::remove_file(&report);
        let message = r["fault"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("semihosting request with a bad pointer: memory at 0x")
                && message.ends_with(&format!("({len}) is not mapped")),
            "{entry}: {message}"
        );
    }
}

/// Review D9: SYS_SYSTEM is refused with --allow-host-fs too, and its note says why (host
/// commands are never run) instead of asking for the flag that was given.
#[test]
fn sys_system_refusal_says_why_with_allow_host_fs() {
    let fw = elf("mps2-an386", "semihost_limits");
    for extra in [&["--allow-host-fs"][..], &[]] {
        let mut args = vec!["--entry", "system_call"];
        args.extend_from_slice(extra);
        let (code, r, _) = run("mps2-an386", &fw, &args);
        assert_eq!(code, 0, "SYS_SYSTEM answered -1: {}", r["outcome"]);
        let notes: Vec<&str> = r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(
            notes,
            ["semihosting SYS_SYSTEM refused: the firmware may not run host commands (--allow-host-fs allows files only)"],
            "{extra:?}"
        );
    }
}

/// Review D8: a BLX to a Thumb function's address with bit 0 clear is INVSTATE at that branch,
/// not an undefined instruction at its target; a BLX to 0xFFFFFFFF is reported at the branch,
/// and the backtrace goes through the function that branched, main and the reset handler.
#[test]
fn wrong_interworking_branches_are_reported_at_the_branch() {
    let fw = elf("mps2-an386", "fault_branches");
    let (code, r, _) = run("mps2-an386", &fw, &["--entry", "bx_even"]);
    assert_eq!(code, 125);
    let f = &r["fault"];
    assert_eq!(f["kind"], "usage fault", "{f}");
    assert!(
        f["location"].as_str().unwrap().starts_with("bx_even+0x")
            && f["instruction"].as_str().unwrap().starts_with("blx")
            && f["message"].as_str().unwrap().contains("with bit 0 clear")
            && f["message"].as_str().unwrap().contains("(INVSTATE)"),
        "{f}"
    );

    let (code, r, _) = run("mps2-an386", &fw, &[]);
    assert_eq!(code, 125);
    let f = &r["fault"];
    assert_eq!(f["kind"], "bad instruction fetch", "{f}");
    assert!(
        f["location"]
            .as_str()
            .unwrap()
            .starts_with("bx_minus_one+0x")
            && f["instruction"].as_str().unwrap().starts_with("blx"),
        "{f}"
    );
    let frames: Vec<&str> = f["backtrace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let position = |name: &str| {
        frames
            .iter()
            .position(|l| l.contains(&format!(" {name}+0x")))
            .unwrap_or_else(|| panic!("no {name} in {frames:#?}"))
    };
    assert!(
        position("bx_minus_one") < position("main") && position("main") < position("Reset_Handler"),
        "{frames:#?}"
    );
}

/// A copy of `elf` with `edits` (file offset, bytes) applied, in a file of its own.
fn patched(elf: &str, edits: &[(usize, &[u8])]) -> String {
    let mut bytes = std::fs::read(elf).unwrap();
    for (at, data) in edits {
        bytes[*at..*at + data.len()].copy_from_slice(data);
    }
    let path = temp_path("patched.elf");
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

/// The file offset of function `name` of an ELF (through its PT_LOAD segment).
fn file_offset_of(elf: &str, name: &str) -> usize {
    let bytes = std::fs::read(elf).unwrap();
    let e = goblin::elf::Elf::parse(&bytes).unwrap();
    let addr = e
        .syms
        .iter()
        .find(|s| e.strtab.get_at(s.st_name) == Some(name))
        .unwrap()
        .st_value;
    let ph = e
        .program_headers
        .iter()
        .find(|p| {
            p.p_type == goblin::elf::program_header::PT_LOAD
                && (p.p_vaddr..p.p_vaddr + p.p_filesz).contains(&addr)
        })
        .unwrap();
    (ph.p_offset + addr - ph.p_vaddr) as usize
}

/// Review D0: on Xtensa, execution at 0xFFFFFFFF faults at once like any unmapped fetch: an ELF
/// entry there (no panic), and `movi.n a2, -1; jx a2` in main under --max-instructions (once a
/// hang that grew memory by 650 MB/s).
#[test]
fn xtensa_execution_at_the_last_address_faults_at_once() {
    let exit_code = elf("esp32s3", "exit_code");
    let entry = patched(&exit_code, &[(24, &0xFFFF_FFFFu32.to_le_bytes())]);
    let (code, r, _) = run("esp32s3", &entry, &["--no-rom"]);
    assert_eq!(code, 125, "{}", r["outcome"]);
    assert_eq!(r["fault"]["kind"], "bad instruction fetch");
    assert_eq!(r["fault"]["pc"], 0xFFFF_FFFFu32);
    // With the mask ROM, its start-up calls refuse the entry: an input error, not a panic.
    let out = sim_limited(4000, &["run", "--board", "esp32s3", &entry]);
    assert!(matches!(out.status.code(), Some(2 | 125)), "{out:?}");

    let main = file_offset_of(&exit_code, "main");
    let jump = patched(&exit_code, &[(main, &[0x7c, 0xf2, 0xa0, 0x02, 0x00])]);
    for limit in [
        &["--max-instructions", "100"][..],
        &["--max-cycles", "1000000"],
        &[],
    ] {
        let mut args = vec![
            "run",
            "--quiet",
            "--board",
            "esp32s3",
            &jump,
            "--timeout",
            "20",
        ];
        args.extend_from_slice(limit);
        let out = sim_limited(4000, &args);
        assert_eq!(out.status.code(), Some(125), "{limit:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("fault: bad instruction fetch at 0xffffffff"),
            "{limit:?}: {out:?}"
        );
    }
    for p in [entry, jump] {
        let _ = std::fs::remove_file(p);
    }
}

/// firmware/README: "the ELFs do not depend on where the repository is checked out". Every ELF
/// the build wrote names its sources relative to the checkout, assembler sources and the
/// compilation directory included.
#[test]
fn rebuilt_firmware_does_not_name_the_checkout() {
    let checkout = root().canonicalize().unwrap();
    let needle = checkout.to_string_lossy().into_owned();
    let mut elves = Vec::new();
    let mut dirs = vec![root().join("firmware/build")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "elf") {
                elves.push(p);
            }
        }
    }
    assert!(
        elves.len() > 100,
        "{} ELFs: run firmware/build.sh",
        elves.len()
    );
    let naming: Vec<_> = elves
        .iter()
        .filter(|p| {
            let bytes = std::fs::read(p).unwrap();
            bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        })
        .collect();
    assert!(
        naming.is_empty(),
        "{} name {needle}: {naming:#?}",
        naming.len()
    );
}

/// The files a clone ships cite no path of a build machine and no file beside the repository
/// (fact sheets, DESIGN.md): only the optional third-party fixtures that tests skip without.
#[test]
fn shipped_files_cite_nothing_outside_the_repository() {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        eprintln!("skipped: not a git checkout");
        return;
    };
    let mut found = Vec::new();
    for file in out.stdout.split(|&b| b == 0).filter(|f| !f.is_empty()) {
        let file = String::from_utf8_lossy(file).into_owned();
        let Ok(text) = std::fs::read_to_string(root().join(&file)) else {
            continue; // binary files (ELFs, plans) carry no citations
        };
        for (n, line) in text.lines().enumerate() {
            let outside = [
                "/work/",
                "/home/",
                "/root/",
                "/Users/",
                "shared/facts",
                "shared/DESIGN",
                "fact sheet",
            ]
            .iter()
            .any(|p| line.contains(p));
            if outside && file != "sim/tests/hardening.rs" {
                found.push(format!("{file}:{}: {line}", n + 1));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The --set overrides a run had are recorded in its report (and so in every view of it).
#[test]
fn set_overrides_are_recorded_in_the_report() {
    let (code, r, _) = run(
        "stm32f446re",
        &elf("stm32f446re", "exit_code"),
        &[
            "--set",
            "core.clock_hz=84000000",
            "--set",
            "flash.wait_states=1",
        ],
    );
    assert_eq!(code, 42);
    assert_eq!(
        r["board"]["settings"],
        serde_json::json!(["core.clock_hz=84000000", "flash.wait_states=1"])
    );
    assert_eq!(r["board"]["clock_hz"], 84_000_000);
}

/// `compare --plot ... | head`: a closed stdout ends compare quietly too, not with a panic.
#[test]
fn compare_with_a_closed_stdout_ends_quietly() {
    let (_, r, _) = run("mps2-an386", "examples/mps2-an386-demo.elf", &[]);
    let report = temp_path("closed.json");
    std::fs::write(&report, r.to_string()).unwrap();
    let report = report.to_string_lossy().into_owned();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_tigris-sim"))
        .args(["compare", &report, &report])
        .stdout(writer)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&report);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && out.status.code() != Some(101),
        "{err}"
    );
}

/// Guard rails: every member crate takes the workspace's lints (so `cargo clippy -- -D warnings`
/// holds all of them to the same rules), `rustfmt.toml` is at the root, and the suite's script runs
/// the formatter and clippy with warnings as errors.
#[test]
fn every_crate_takes_the_workspace_lints_and_the_suite_checks_them() {
    let manifest = |dir: &str| -> toml::Table {
        let path = root().join(dir).join("Cargo.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        text.parse()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let workspace = manifest(".");
    let lints = &workspace["workspace"]["lints"];
    assert!(lints.get("rust").is_some() && lints.get("clippy").is_some());
    let members = workspace["workspace"]["members"].as_array().unwrap();
    assert!(!members.is_empty());
    for member in members {
        let member = member.as_str().unwrap();
        let lints = manifest(member).get("lints").cloned();
        assert_eq!(
            lints.and_then(|l| l.get("workspace").and_then(|w| w.as_bool())),
            Some(true),
            "{member}/Cargo.toml lacks `[lints] workspace = true`"
        );
    }
    assert!(root().join("rustfmt.toml").is_file());
    let script = std::fs::read_to_string(root().join("scripts/test.sh")).unwrap();
    for command in [
        "cargo fmt --all -- --check",
        "cargo clippy --workspace --all-targets --quiet -- -D warnings",
    ] {
        assert!(
            script.contains(command),
            "scripts/test.sh does not run `{command}`"
        );
    }
}

/// fuzz/: every target file is a `[[bin]]` of the fuzz crate, and every input the suite's
/// property tests mutate has a target for longer campaigns (ELFs, board files, plans, reports,
/// both decoders).
#[test]
fn every_parser_and_decoder_has_a_fuzz_target() {
    let manifest: toml::Table = std::fs::read_to_string(root().join("fuzz/Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let mut bins: Vec<(String, String)> = manifest["bin"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let field = |k: &str| b[k].as_str().unwrap().to_string();
            (field("name"), field("path"))
        })
        .collect();
    bins.sort();
    let mut files: Vec<String> = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| format!("fuzz_targets/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    let mut paths: Vec<String> = bins.iter().map(|(_, path)| path.clone()).collect();
    paths.sort();
    assert_eq!(paths, files);
    for target in [
        "elf_loader",
        "board_file",
        "plan_reader",
        "report_json",
        "xtensa_decode",
        "cortex_m_decode",
    ] {
        assert!(bins.iter().any(|(name, _)| name == target), "{target}");
    }
}

/// The README's quick start shows what `tigris-sim run examples/esp32s3-tigris.elf` prints: every line
/// of its example output (the `...` lines aside) is in the real output, figures included.
#[test]
fn the_quick_start_output_in_the_readme_is_what_the_example_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let shown: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("    == tigris-sim: esp32s3-tigris.elf"))
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .filter(|l| l.trim() != "...")
        .collect();
    assert!(
        shown.len() >= 8,
        "the README's quick-start output: {shown:?}"
    );
    let out = sim(&["run", "examples/esp32s3-tigris.elf"]);
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    let printed: Vec<&str> = printed.lines().collect();
    for line in shown {
        assert!(
            printed.contains(&line),
            "README.md shows a line the example does not print:\n{line}"
        );
    }
}

/// `--summary none` leaves the console output alone on stdout; with `--quiet` nothing is printed.
#[test]
fn summary_none_prints_no_summary() {
    let example = "examples/esp32s3-tigris.elf";
    let out = sim(&["run", example, "--summary", "none"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("reference=match"), "the console: {text}");
    assert!(!text.contains("== tigris-sim"), "a summary: {text}");
    let quiet = sim(&["run", example, "--quiet", "--summary", "none"]);
    assert!(quiet.status.success());
    assert!(
        quiet.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stdout)
    );
}
