//! `tigris-sim bench`: simulated MIPS with the cycle model and profiler on, next to a reference
//! emulator running the same firmware. Not a test: the figures depend on the machine.
//!
//! - Cortex-M boards: Unicorn running the firmware with no per-block work (only its semihosting
//!   answered), measured in the same process.
//! - Xtensa boards: `qemu-system-xtensa` (`-M sim -semihosting`, each core configuration it offers)
//!   running the same ELF, timed from process start to exit. QEMU counts no instructions, so its MIPS
//!   are our instruction count of the same program divided by its time. A configuration counts as
//!   working only when it exits with the firmware's exit code and prints the same console output.

use crate::elf::SymbolMap;
use crate::machine::{Machine, RunOptions};
use crate::profiler::Profiler;
use anyhow::Result;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tigris_cores::cortex_m::CortexM;
use tigris_cores::{Core, NoObserver};
use tigris_traces::Outcome;

pub const DEFAULT_ELF: &str = "examples/mps2-an386-demo.elf";
/// The shipped example for Xtensa boards.
pub const DEFAULT_XTENSA_ELF: &str = "examples/esp32s3-demo.elf";

/// Seconds of one complete run of the firmware on the simulator, and its instruction count.
fn timed_run(path: &str, board: &str, profiled: bool) -> Result<(f64, u64)> {
    let mut m = Machine::load(path, tigris_targets::load(board)?, &Default::default())?;
    let symbols = SymbolMap::new(&m.firmware.symbols);
    let mut profiler = Profiler::new(&symbols);
    let start = Instant::now();
    if profiled {
        m.run_raw(u64::MAX, &mut profiler)?;
    } else {
        m.run_raw(u64::MAX, &mut NoObserver)?;
    }
    Ok((start.elapsed().as_secs_f64(), m.core.instructions()))
}

/// Seconds of one complete run on Unicorn with no hooks but semihosting.
fn timed_unicorn(path: &str, board: &str) -> Result<f64> {
    let m = Machine::load(path, tigris_targets::load(board)?, &Default::default())?;
    let mut raw = CortexM::bare(&m.board)?;
    for s in &m.firmware.segments {
        let mut image = s.data.clone();
        image.resize(s.mem_size as usize, 0);
        raw.write_memory(s.addr, &image)?;
    }
    raw.reset(m.entry)?;
    let start = Instant::now();
    raw.run_bare()?;
    Ok(start.elapsed().as_secs_f64())
}

/// A shipped example or built firmware (`examples/...`, `firmware/build/...`, relative to the
/// checkout): from the current directory, else from the checkout the binary was built from
/// (wherever its target directory is).
pub(crate) fn shipped_example(relative: &str) -> Result<String> {
    if std::path::Path::new(relative).exists() {
        return Ok(relative.to_string());
    }
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match checkout.join(relative).canonicalize() {
        Ok(p) => Ok(p.display().to_string()),
        Err(_) => anyhow::bail!(
            "the shipped example {relative} is neither under the current directory nor in the checkout this binary was built from: run from the checkout or name an ELF"
        ),
    }
}

/// `elf`: the firmware given on the command line, if any.
pub fn run(elf: Option<&str>, board: &str, repeat: u32) -> Result<()> {
    let repeat = repeat.max(1);
    if !tigris_targets::load(board)?.core.kind.is_cortex_m() {
        let path = match elf {
            Some(e) => e.to_string(),
            None => shipped_example(DEFAULT_XTENSA_ELF)?,
        };
        return run_xtensa(&path, board, repeat);
    }
    let path = match elf {
        Some(e) => e.to_string(),
        None => shipped_example(DEFAULT_ELF)?,
    };
    let path = path.as_str();
    // The three kinds of run take turns, so a slow moment of the machine hits them alike; the
    // fastest run of each kind counts.
    let (mut t_raw, mut t_model, mut t_prof, mut n) = (f64::MAX, f64::MAX, f64::MAX, 0);
    for _ in 0..repeat {
        t_raw = t_raw.min(timed_unicorn(path, board)?);
        let (t, count) = timed_run(path, board, false)?;
        t_model = t_model.min(t);
        n = count;
        t_prof = t_prof.min(timed_run(path, board, true)?.0);
    }
    let mips = |t: f64| n as f64 / t / 1e6;
    println!("{path} on {board}: {n} instructions per run, fastest of {repeat} runs each");
    println!("  unicorn, no hooks:            {:>8.1} MIPS", mips(t_raw));
    println!(
        "  tigris-sim, cycle model:      {:>8.1} MIPS",
        mips(t_model)
    );
    println!("  tigris-sim, model + profiler: {:>8.1} MIPS", mips(t_prof));
    println!(
        "  ratio profiled / unicorn:     {:>8.2}  (target: at least 0.5)",
        t_raw / t_prof
    );
    Ok(())
}

/// What a complete run of the firmware printed and how it ended.
struct Reference {
    instructions: u64,
    console: String,
    exit_code: Option<i32>,
    /// What `tigris-sim run` exits with for this run (the firmware's code, or the limit's, ...).
    process_code: u8,
}

/// The real run path (`tigris-sim run`: timing, memory models, profiler, report), fastest of `repeat`
/// runs; the ELF is loaded outside the timed part.
fn timed_report_runs(path: &str, board: &str, repeat: u32) -> Result<(f64, Reference)> {
    let mut best = f64::MAX;
    let mut reference = None;
    for _ in 0..repeat {
        let mut m = Machine::load(path, tigris_targets::load(board)?, &Default::default())?;
        let opts = RunOptions::default();
        let start = Instant::now();
        let report = m.run(opts, None)?;
        best = best.min(start.elapsed().as_secs_f64());
        let exit_code = match report.outcome {
            Outcome::Exited { code } => Some(code),
            _ => None,
        };
        reference = Some(Reference {
            instructions: report.totals.instructions,
            console: report.console,
            exit_code,
            process_code: crate::exit_code(&report.outcome),
        });
    }
    Ok((best, reference.expect("at least one run")))
}

/// The fastest of `repeat` runs of this very binary as `tigris-sim run --quiet`, timed from process
/// start to exit like QEMU below.
fn timed_process(path: &str, board: &str, repeat: u32, code: u8) -> Option<f64> {
    let exe = std::env::current_exe().ok()?;
    let mut best = f64::MAX;
    for _ in 0..repeat {
        let start = Instant::now();
        let status = Command::new(&exe)
            .args(["run", "--quiet", "--board", board, path])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        let t = start.elapsed().as_secs_f64();
        if status.code() != Some(code as i32) {
            return None;
        }
        best = best.min(t);
    }
    Some(best)
}

fn run_xtensa(path: &str, board: &str, repeat: u32) -> Result<()> {
    let (t_run, reference) = timed_report_runs(path, board, repeat)?;
    let n = reference.instructions;
    let mips = |t: f64| n as f64 / t / 1e6;
    let exit = match reference.exit_code {
        Some(c) => format!("exit code {c}"),
        None => "no semihosting exit".to_string(),
    };
    println!("{path} on {board}: {n} instructions per run ({exit}), fastest of {repeat} runs each");
    println!("  tigris-sim, timing + memory models + profiler (run loop, ELF loaded before):");
    println!("    {:>8.1} MIPS  ({:.1} ms)", mips(t_run), t_run * 1e3);
    match timed_process(path, board, repeat, reference.process_code) {
        Some(t) => {
            println!("  tigris-sim run --quiet, process start to exit (loading, report):");
            println!("    {:>8.1} MIPS  ({:.1} ms)", mips(t), t * 1e3);
        }
        None => println!("  tigris-sim run --quiet as a process: could not run it"),
    }
    qemu_section(path, board, repeat, &reference)?;
    Ok(())
}

// ---------------------------------------------------------------- QEMU

const QEMU: &str = "qemu-system-xtensa";

/// Run `qemu-system-xtensa` with `args`, feeding `stdin`; its stdout and exit status (None when it
/// could not be started or did not finish within `timeout`, in which case it is killed).
fn qemu_output(
    args: &[&str],
    stdin: &str,
    timeout: Duration,
) -> Option<(std::process::ExitStatus, Vec<u8>, f64)> {
    let start = Instant::now();
    let mut child = Command::new(QEMU)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(stdin.as_bytes());
    }
    // Read stdout on a thread so a chatty guest cannot block on a full pipe while we wait.
    let mut out = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let t = start.elapsed().as_secs_f64();
            let buf = reader.join().unwrap_or_default();
            return Some((status, buf, t));
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            let _ = reader.join();
            return None;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// QEMU's version line, or None when it is not installed.
fn qemu_version() -> Option<String> {
    let out = Command::new(QEMU)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().next().unwrap_or("").trim().to_string())
}

/// The core configurations (`-cpu help`), in QEMU's order.
fn qemu_cpus() -> Vec<String> {
    let Ok(out) = Command::new(QEMU)
        .args(["-cpu", "help"])
        .stdin(Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip_while(|l| !l.starts_with("Available CPUs"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Memory ranges `[start, end]` of the `sim` machine with core `cpu` (`info mtree` on the monitor,
/// before any guest code runs).
fn qemu_memory(cpu: &str) -> Option<Vec<(u64, u64, String)>> {
    let args = [
        "-M", "sim", "-cpu", cpu, "-S", "-display", "none", "-serial", "none", "-monitor", "stdio",
    ];
    let (_, out, _) = qemu_output(&args, "info mtree\nquit\n", Duration::from_secs(20))?;
    let text = String::from_utf8_lossy(&out);
    let mut ranges = Vec::new();
    let mut in_memory = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("address-space:") {
            in_memory = l == "address-space: memory";
            continue;
        }
        if !in_memory || !l.contains("(prio") || !l.contains(", ram)") {
            continue;
        }
        let Some((span, rest)) = l.split_once(' ') else {
            continue;
        };
        let Some((a, b)) = span.split_once('-') else {
            continue;
        };
        let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) else {
            continue;
        };
        let name = rest.rsplit(": ").next().unwrap_or("").trim().to_string();
        ranges.push((a, b, name));
    }
    Some(ranges)
}

/// Time from process start to exit of QEMU doing nothing (`-S`, monitor `quit`): its start-up and
/// tear-down, included in every run below.
fn qemu_startup(cpu: &str, repeat: u32) -> Option<f64> {
    let args = [
        "-M", "sim", "-cpu", cpu, "-S", "-display", "none", "-serial", "none", "-monitor", "stdio",
    ];
    let mut best = f64::MAX;
    for _ in 0..repeat {
        let (_, _, t) = qemu_output(&args, "quit\n", Duration::from_secs(20))?;
        best = best.min(t);
    }
    Some(best)
}

fn qemu_section(path: &str, board: &str, repeat: u32, reference: &Reference) -> Result<()> {
    let Some(version) = qemu_version() else {
        println!("  {QEMU}: not installed (Debian: apt-get install qemu-system-misc)");
        return Ok(());
    };
    let n = reference.instructions;
    let mips = |t: f64| n as f64 / t / 1e6;
    println!("  {version}: -M sim -semihosting, the ELF loaded with -device loader (which sets the entry),");
    println!(
        "    timed from process start to exit, so QEMU's start-up and tear-down are included;"
    );
    println!("    MIPS = our instruction count / that time. Core configurations:");
    let segments = {
        let m = Machine::load(path, tigris_targets::load(board)?, &Default::default())?;
        m.firmware
            .segments
            .iter()
            .map(|s| (s.addr as u64, s.addr as u64 + s.mem_size.max(1) as u64 - 1))
            .collect::<Vec<_>>()
    };
    let loader = format!("loader,file={path},cpu-num=0");
    let mut any = false;
    for cpu in qemu_cpus() {
        let Some(memory) = qemu_memory(&cpu) else {
            println!("    {cpu:<18} cannot: QEMU did not start with this core");
            continue;
        };
        let uncovered = segments
            .iter()
            .find(|(a, b)| !memory.iter().any(|(s, e, _)| *s <= *a && *b <= *e))
            .copied();
        if let Some((a, b)) = uncovered {
            println!("    {cpu:<18} cannot: its sim machine has no memory at 0x{a:08x}..0x{b:08x} (a segment of the ELF)");
            continue;
        }
        // A generous limit: QEMU is not expected to be much slower than the simulator.
        let limit = Duration::from_secs(30);
        let args = [
            "-M",
            "sim",
            "-cpu",
            &cpu,
            "-semihosting",
            "-display",
            "none",
            "-serial",
            "none",
            "-monitor",
            "none",
            "-device",
            &loader,
        ];
        let mut best = f64::MAX;
        let mut verdict = None;
        for _ in 0..repeat {
            match qemu_output(&args, "", limit) {
                None => {
                    verdict = Some(format!(
                        "did not exit within {} s (killed)",
                        limit.as_secs()
                    ));
                    break;
                }
                Some((status, out, t)) => {
                    let console = String::from_utf8_lossy(&out);
                    if status.code() != reference.exit_code {
                        let code = status
                            .code()
                            .map(|c| c.to_string())
                            .unwrap_or_else(|| "none (signal)".into());
                        verdict = Some(format!(
                            "exited with status {code}, the firmware's is not that"
                        ));
                        break;
                    }
                    if console != reference.console {
                        verdict = Some(
                            "exited, but its console output differs from the simulator's".into(),
                        );
                        break;
                    }
                    best = best.min(t);
                }
            }
        }
        if let Some(v) = verdict {
            println!("    {cpu:<18} does not work: {v}");
            continue;
        }
        any = true;
        print!(
            "    {cpu:<18} works:  {:>8.1} MIPS  ({:.1} ms",
            mips(best),
            best * 1e3
        );
        match qemu_startup(&cpu, repeat) {
            Some(s) if s < best => println!(
                "; start-up and tear-down alone {:.1} ms, without them {:.1} MIPS)",
                s * 1e3,
                mips(best - s)
            ),
            _ => println!(")"),
        }
    }
    if !any {
        println!("    no configuration of this QEMU runs this ELF; an ESP8266 (LX106, call0) build of the same");
        println!("    program runs on -cpu lx106: e.g. tigris-sim bench --board esp8266 firmware/build/esp8266/demo.elf");
    }
    Ok(())
}
