//! `tigris-sim bench`: simulated MIPS with the cycle model, memory models and profiler on (the
//! `tigris-sim run` path), next to a reference emulator running the same firmware. Not a test: the
//! figures depend on the machine.
//!
//! - Cortex-M boards: Unicorn running the firmware with no per-block work (only its semihosting
//!   answered), in the same process. One extra run counts its instructions and reads its exit code,
//!   which must match the simulator's.
//! - Xtensa boards: `qemu-system-xtensa` (`-M sim -semihosting`, each core configuration it offers)
//!   running the same ELF as a child process. QEMU counts no instructions, so its MIPS are our
//!   instruction count of the same program over its time; a configuration counts as working only
//!   when it exits with the firmware's exit code and prints the same console output.
//!
//! Every figure is CPU time (this process's own, or the child's from `getrusage`), which a busy
//! machine disturbs far less than wall-clock time; the engines take turns run by run, and each
//! figure is the median of the runs with their range.

use crate::machine::{Machine, RunOptions};
use anyhow::{bail, Result};
use serde::Serialize;
use std::io::{IsTerminal, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tigris_cores::cortex_m::CortexM;
use tigris_cores::Core;
use tigris_traces::Outcome;

/// The shipped examples, run when the board's own builds are absent.
const SHIPPED_EXAMPLES: &[(&str, &str)] = &[
    ("mps2-an386", "examples/mps2-an386-demo.elf"),
    ("esp32s3", "examples/esp32s3-demo.elf"),
];

/// The default programs: the demo (milliseconds) and `bench_long` (the demo 100 times: seconds,
/// so start-up costs vanish), windowed-ABI builds where the board has them.
const DEFAULT_PROGRAMS: &[&str] = &["demo", "bench_long"];

/// CPU seconds used so far by this process (all its threads) or by its waited-for children.
#[cfg(unix)]
pub(crate) fn cpu_seconds(children: bool) -> f64 {
    let who = if children {
        libc::RUSAGE_CHILDREN
    } else {
        libc::RUSAGE_SELF
    };
    // SAFETY: rusage is plain old data, valid all zero.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes the struct it is given.
    unsafe { libc::getrusage(who, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Without getrusage: wall-clock seconds since the first call (the output says so).
#[cfg(not(unix))]
pub(crate) fn cpu_seconds(_children: bool) -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// What the figures measure, for the output.
pub(crate) const CLOCK: &str = if cfg!(unix) {
    "CPU time"
} else {
    "wall-clock time (no getrusage here)"
};

/// The seconds of repeated runs of one engine on one program.
#[derive(Default)]
pub(crate) struct Series(Vec<f64>);

impl Series {
    pub(crate) fn push(&mut self, seconds: f64) {
        self.0.push(seconds);
    }

    /// (median, fastest, slowest) seconds.
    pub(crate) fn summary(&self) -> (f64, f64, f64) {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        (median, v[0], v[n - 1])
    }
}

/// One line of `bench --json`.
#[derive(Serialize)]
struct Figure {
    engine: &'static str,
    /// QEMU's core configuration (`-cpu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu: Option<String>,
    board: String,
    program: String,
    instructions: u64,
    cpu_seconds: f64,
    mips: f64,
    /// MIPS of the slowest and the fastest run.
    range: [f64; 2],
}

impl Figure {
    fn new(engine: &'static str, run: &Program, board: &str, series: &Series) -> Self {
        let (median, fastest, slowest) = series.summary();
        let mips = |t: f64| run.reference.instructions as f64 / t / 1e6;
        Figure {
            engine,
            cpu: None,
            board: board.to_string(),
            program: run.name.clone(),
            instructions: run.reference.instructions,
            cpu_seconds: median,
            mips: mips(median),
            range: [mips(slowest), mips(fastest)],
        }
    }

    fn line(&self, label: &str) -> String {
        format!(
            "  {label:<44} {:>8.1} MIPS  {:>9.3} s   (runs {:.1}..{:.1} MIPS)",
            self.mips, self.cpu_seconds, self.range[0], self.range[1]
        )
    }
}

/// What a complete run of the firmware printed and how it ended.
struct Reference {
    instructions: u64,
    console: String,
    exit_code: Option<i32>,
}

/// A program to measure: its path, a short name for the output, and what the simulator made of it.
struct Program {
    path: String,
    name: String,
    reference: Reference,
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

/// The first `count` default programs found for `board`, and a note for each one that is not built.
fn default_programs(board: &str, count: usize) -> (Vec<String>, Vec<String>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for program in &DEFAULT_PROGRAMS[..count] {
        let builds = [
            format!("firmware/build/{board}/{program}-windowed.elf"),
            format!("firmware/build/{board}/{program}.elf"),
        ];
        let shipped = SHIPPED_EXAMPLES
            .iter()
            .filter(|(b, _)| *program == "demo" && *b == board)
            .map(|(_, p)| p.to_string());
        match builds
            .into_iter()
            .chain(shipped)
            .find_map(|p| shipped_example(&p).ok())
        {
            Some(p) => found.push(p),
            None => missing.push(format!(
                "{program}: firmware/build/{board}/{program}.elf is not built (bash firmware/build.sh)"
            )),
        }
    }
    (found, missing)
}

/// Output of the bench: text on stdout, or with `--json` the figures on stdout and the text on
/// stderr (so the progress stays visible).
struct Out {
    json: bool,
}

impl Out {
    fn say(&self, line: &str) {
        if self.json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }

    /// Progress on a terminal, overwritten by the next line.
    fn progress(&self, what: &str) {
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[K{what}");
            let _ = std::io::stderr().flush();
        }
    }

    fn progress_done(&self) {
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[K");
        }
    }
}

/// `elf`: the firmware given on the command line, if any; `repeat` paired runs per engine.
pub fn run(elf: Option<&str>, board: &str, repeat: u32, json: bool, short: bool) -> Result<()> {
    let repeat = repeat.max(1);
    let out = Out { json };
    let cortex_m = tigris_targets::load(board)?.core.kind.is_cortex_m();
    let (paths, missing) = match elf {
        Some(e) => (vec![e.to_string()], Vec::new()),
        None => default_programs(board, if short { 1 } else { DEFAULT_PROGRAMS.len() }),
    };
    if paths.is_empty() {
        bail!(
            "no program to run on {board}: {} (or name an ELF)",
            missing.join("; ")
        );
    }
    out.say(&format!(
        "bench on {board}: {repeat} runs per engine taking turns; {CLOCK}, median (range of the runs)"
    ));
    for m in &missing {
        out.say(&format!("  skipped {m}"));
    }
    let mut figures = Vec::new();
    for path in paths {
        let program = reference_run(&path, board)?;
        let exit = match program.reference.exit_code {
            Some(c) => format!("exit code {c}"),
            None => "no semihosting exit".to_string(),
        };
        out.say(&format!(
            "{}: {} instructions, {exit}",
            program.path, program.reference.instructions
        ));
        if cortex_m {
            figures.extend(cortex_m_figures(&program, board, repeat, &out)?);
        } else {
            figures.extend(xtensa_figures(&program, board, repeat, &out)?);
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "runs": figures }))?
        );
    }
    Ok(())
}

/// The real run path (`tigris-sim run`: timing, memory models, profiler, report) once, the ELF
/// loaded outside the timed part; its CPU seconds and what it printed.
fn timed_report_run(path: &str, board: &str) -> Result<(f64, Reference)> {
    let mut m = Machine::load(path, tigris_targets::load(board)?, &Default::default())?;
    let start = cpu_seconds(false);
    let report = m.run(RunOptions::default(), None)?;
    let seconds = cpu_seconds(false) - start;
    let exit_code = match report.outcome {
        Outcome::Exited { code } => Some(code),
        _ => None,
    };
    let reference = Reference {
        instructions: report.totals.instructions,
        console: report.console,
        exit_code,
    };
    Ok((seconds, reference))
}

fn reference_run(path: &str, board: &str) -> Result<Program> {
    let (_, reference) = timed_report_run(path, board)?;
    let name = std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string());
    Ok(Program {
        path: path.to_string(),
        name,
        reference,
    })
}

/// One run of the simulator, which must do what the reference run did.
fn simulator_run(program: &Program, board: &str) -> Result<f64> {
    let (seconds, again) = timed_report_run(&program.path, board)?;
    if again.instructions != program.reference.instructions {
        bail!(
            "{}: the simulator ran {} instructions, then {}: the run is not deterministic",
            program.path,
            program.reference.instructions,
            again.instructions
        );
    }
    Ok(seconds)
}

// ---------------------------------------------------------------- Cortex-M

/// A bare Unicorn machine with the firmware loaded, ready to run from its entry.
fn bare_machine(path: &str, board: &str) -> Result<CortexM<'static>> {
    let m = Machine::load(path, tigris_targets::load(board)?, &Default::default())?;
    let mut raw = CortexM::bare(&m.board)?;
    for s in &m.firmware.segments {
        let mut image = s.data.clone();
        image.resize(s.mem_size as usize, 0);
        raw.write_memory(s.addr, &image)?;
    }
    raw.reset(m.entry)?;
    Ok(raw)
}

/// Check that bare Unicorn runs what the simulator ran: instruction count and exit code.
fn check_unicorn(program: &Program, board: &str) -> Result<()> {
    let mut raw = bare_machine(&program.path, board)?;
    let run = raw.run_bare(true)?;
    let exit = match run.exit {
        Some((op, arg)) => crate::semihost::arm_exit_code(&raw, op, arg)?,
        None => None,
    };
    let instructions = run.instructions.unwrap_or(0);
    if exit != program.reference.exit_code || instructions != program.reference.instructions {
        bail!(
            "{}: bare Unicorn ran {instructions} instructions and ended with exit code {exit:?}, the simulator {} and {:?}: the baseline did not run the same program",
            program.path,
            program.reference.instructions,
            program.reference.exit_code
        );
    }
    Ok(())
}

fn cortex_m_figures(program: &Program, board: &str, repeat: u32, out: &Out) -> Result<Vec<Figure>> {
    check_unicorn(program, board)?;
    let (mut unicorn, mut simulator) = (Series::default(), Series::default());
    for i in 0..repeat {
        out.progress(&format!("{}: run {}/{repeat}", program.name, i + 1));
        let mut raw = bare_machine(&program.path, board)?;
        let start = cpu_seconds(false);
        raw.run_bare(false)?;
        unicorn.push(cpu_seconds(false) - start);
        simulator.push(simulator_run(program, board)?);
    }
    out.progress_done();
    let unicorn = Figure::new("unicorn", program, board, &unicorn);
    let simulator = Figure::new("tigris-sim", program, board, &simulator);
    out.say(&unicorn.line("unicorn, no hooks (same instructions, exit)"));
    out.say(&simulator.line("tigris-sim run (cycles, memory, profiler)"));
    out.say(&format!(
        "  tigris-sim / unicorn: {:.2}",
        simulator.mips / unicorn.mips
    ));
    Ok(vec![unicorn, simulator])
}

// ---------------------------------------------------------------- Xtensa

fn xtensa_figures(program: &Program, board: &str, repeat: u32, out: &Out) -> Result<Vec<Figure>> {
    let configurations = qemu_configurations(program, board, out)?;
    let mut simulator = Series::default();
    let mut qemu: Vec<Series> = configurations.iter().map(|_| Series::default()).collect();
    for i in 0..repeat {
        out.progress(&format!("{}: run {}/{repeat}", program.name, i + 1));
        simulator.push(simulator_run(program, board)?);
        for (c, series) in configurations.iter().zip(&mut qemu) {
            series.push(qemu_run(c, program)?);
        }
    }
    out.progress_done();
    let ours = Figure::new("tigris-sim", program, board, &simulator);
    out.say(&ours.line("tigris-sim run (timing, memory, profiler)"));
    let mut figures = Vec::new();
    for (c, series) in configurations.iter().zip(&qemu) {
        let mut f = Figure::new("qemu", program, board, series);
        f.cpu = Some(c.cpu.clone());
        out.say(&f.line(&format!("qemu -cpu {} (no timing)", c.cpu)));
        let (startup, ..) = c.startup.summary();
        if startup < f.cpu_seconds {
            out.say(&format!(
                "    of which QEMU's start-up and tear-down alone {:.3} s; without them {:.1} MIPS",
                startup,
                program.reference.instructions as f64 / (f.cpu_seconds - startup) / 1e6
            ));
        }
        out.say(&format!(
            "  tigris-sim / qemu -cpu {}: {:.2}",
            c.cpu,
            ours.mips / f.mips
        ));
        figures.push(f);
    }
    figures.insert(0, ours);
    Ok(figures)
}

// ---------------------------------------------------------------- QEMU

const QEMU: &str = "qemu-system-xtensa";

/// Run `qemu-system-xtensa` with `args`, feeding `stdin`; its exit status, stdout and CPU seconds
/// (None when it could not be started or did not finish within `timeout`, in which case it is
/// killed).
fn qemu_output(
    args: &[&str],
    stdin: &str,
    timeout: Duration,
) -> Option<(std::process::ExitStatus, Vec<u8>, f64)> {
    let (start, cpu_start) = (Instant::now(), cpu_seconds(true));
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
            let t = cpu_seconds(true) - cpu_start;
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

/// A QEMU core configuration that runs the program as the simulator does.
struct QemuConfiguration {
    cpu: String,
    args: Vec<String>,
    /// CPU seconds of QEMU doing nothing (`-S`, monitor `quit`): its start-up and tear-down,
    /// included in every run.
    startup: Series,
}

/// How long a QEMU run may take: it is not expected to be much slower than the simulator.
const QEMU_LIMIT: Duration = Duration::from_secs(60);

/// The core configurations of the installed QEMU that run `program` with its exit code and
/// console output; the others are listed with the reason.
fn qemu_configurations(
    program: &Program,
    board: &str,
    out: &Out,
) -> Result<Vec<QemuConfiguration>> {
    let Some(version) = qemu_version() else {
        out.say(&format!(
            "  {QEMU}: not installed (Debian: apt-get install qemu-system-misc)"
        ));
        return Ok(Vec::new());
    };
    out.say(&format!("  {version}: -M sim -semihosting, the ELF loaded with -device loader (which sets the entry); CPU time of the whole process, start-up included; MIPS = our instruction count / that time"));
    let segments = {
        let m = Machine::load(
            &program.path,
            tigris_targets::load(board)?,
            &Default::default(),
        )?;
        m.firmware
            .segments
            .iter()
            .map(|s| (s.addr as u64, s.addr as u64 + s.mem_size.max(1) as u64 - 1))
            .collect::<Vec<_>>()
    };
    let loader = format!("loader,file={},cpu-num=0", program.path);
    let mut working = Vec::new();
    for cpu in qemu_cpus() {
        let Some(memory) = qemu_memory(&cpu) else {
            out.say(&format!(
                "    -cpu {cpu:<18} cannot: QEMU did not start with this core"
            ));
            continue;
        };
        let uncovered = segments
            .iter()
            .find(|(a, b)| !memory.iter().any(|(s, e, _)| *s <= *a && *b <= *e));
        if let Some((a, b)) = uncovered {
            out.say(&format!("    -cpu {cpu:<18} cannot: its sim machine has no memory at 0x{a:08x}..0x{b:08x} (a segment of the ELF)"));
            continue;
        }
        let args: Vec<String> = [
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
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        let mut configuration = QemuConfiguration {
            cpu: cpu.clone(),
            args,
            startup: Series::default(),
        };
        match qemu_check(&configuration, program) {
            Err(why) => out.say(&format!("    -cpu {cpu:<18} does not work: {why}")),
            Ok(_) => {
                out.say(&format!(
                    "    -cpu {cpu:<18} works: same exit code and console output"
                ));
                configuration.startup = qemu_startup(&cpu)?;
                working.push(configuration);
            }
        }
    }
    if working.is_empty() && board != "esp8266" {
        out.say("    no configuration of this QEMU runs this ELF; an ESP8266 (LX106, call0) build of the same");
        out.say("    program runs on -cpu lx106: e.g. tigris-sim bench --board esp8266");
    }
    Ok(working)
}

/// One run of `configuration`: does it end as the simulator's run did? Its CPU seconds if so.
fn qemu_check(configuration: &QemuConfiguration, program: &Program) -> Result<f64, String> {
    let args: Vec<&str> = configuration.args.iter().map(String::as_str).collect();
    let Some((status, console, seconds)) = qemu_output(&args, "", QEMU_LIMIT) else {
        return Err(format!(
            "did not exit within {} s (killed)",
            QEMU_LIMIT.as_secs()
        ));
    };
    if status.code() != program.reference.exit_code {
        let code = status
            .code()
            .map(|c| c.to_string())
            .unwrap_or_else(|| "none (signal)".into());
        return Err(format!(
            "exited with status {code}, the firmware's is not that"
        ));
    }
    if String::from_utf8_lossy(&console) != program.reference.console {
        return Err("exited, but its console output differs from the simulator's".into());
    }
    Ok(seconds)
}

/// One timed run of a configuration that worked before.
fn qemu_run(configuration: &QemuConfiguration, program: &Program) -> Result<f64> {
    qemu_check(configuration, program)
        .map_err(|why| anyhow::anyhow!("{QEMU} -cpu {}: {why}", configuration.cpu))
}

/// CPU seconds of QEMU doing nothing, over a few runs.
fn qemu_startup(cpu: &str) -> Result<Series> {
    let args = [
        "-M", "sim", "-cpu", cpu, "-S", "-display", "none", "-serial", "none", "-monitor", "stdio",
    ];
    let mut series = Series::default();
    for _ in 0..5 {
        match qemu_output(&args, "quit\n", Duration::from_secs(20)) {
            Some((_, _, t)) => series.push(t),
            None => bail!("{QEMU} -cpu {cpu} -S did not quit within 20 s"),
        }
    }
    Ok(series)
}
