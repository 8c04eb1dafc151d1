//! `tigris-sim`: run MCU firmware on an emulated core and print a cycle-approximate profile.

mod bench;
mod bench_memory;
mod check;
mod compare;
mod coredump;
mod defmt;
mod flash_image;
mod gdb;
mod hle;
mod lines;
mod live;
mod machine;
mod profiler;
mod rom;
mod rp2040_rom;
mod rtt;
mod semihost;
mod summary;
mod sweep;
mod tensor_views;
mod tigris;
mod views;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;
use tigris::whatif::{PlanFile, WhatIf};
use tigris_sim::{dwarf, elf, unwind};
use tigris_traces::Report;

/// Exit code for bad input: unreadable or invalid ELF, board or options.
const EXIT_INPUT: u8 = 2;
/// Exit code when --max-cycles, --max-instructions or --timeout stopped the run.
const EXIT_LIMIT: u8 = 124;
/// Exit code when the firmware faulted.
const EXIT_FAULT: u8 = 125;
/// The firmware reset the chip by software (after an ESP-IDF panic, or `esp_restart`).
const EXIT_RESET: u8 = 123;
/// The core went to sleep (WFI/WAITI) with nothing that could ever wake it.
const EXIT_IDLE: u8 = 122;
/// A stop condition failed: `--fail-on` text, `--expect-timeout`, or `--expect` text never printed.
const EXIT_CONDITION_FAILED: u8 = 1;

#[derive(Parser)]
#[command(
    name = "tigris-sim",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("TIGRIS_SIM_COMMIT"), ")"),
    about = "Cycle-approximate MCU firmware simulator and profiler"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a firmware ELF and print its profile.
    Run(Box<RunArgs>),
    /// List the built-in boards, or show every parameter of one.
    Boards {
        #[command(subcommand)]
        action: Option<BoardsAction>,
        /// List the boards as JSON: name, summary, core, clock_hz, default.
        #[arg(long)]
        json: bool,
    },
    /// Measure simulation speed: MIPS with profiling next to Unicorn running the same firmware bare.
    Bench {
        /// Firmware to run (default: the shipped example).
        elf: Option<String>,
        #[arg(long, default_value = tigris_targets::DEFAULT_BOARD)]
        board: String,
        /// Complete runs of the firmware per engine, taking turns (the median counts).
        #[arg(long, default_value_t = 5)]
        repeat: u32,
        /// Without an ELF: only the demo, not the long workload (seconds per run).
        #[arg(long, conflicts_with_all = ["elf", "memory"])]
        short: bool,
        /// Print the figures as JSON on stdout (`{"runs": [...]}`, see docs/bench.md); the text goes to stderr.
        #[arg(long, conflicts_with = "memory")]
        json: bool,
        /// Instead: the memory models' cost, each program with its board's models and with flat memory.
        #[arg(long, conflicts_with_all = ["elf", "board"])]
        memory: bool,
    },
    /// CI gate: compare a report with budgets; exit 1 when one is exceeded.
    Check(check::CheckArgs),
    /// Two reports side by side: totals, regions, TiGrIS stages and tiles, top functions.
    Compare(compare::CompareArgs),
    /// Plots, Perfetto trace or folded stacks of a recorded report.
    Export(views::ExportArgs),
    /// Replay a recorded report in the terminal view.
    Tui {
        /// A report written by `tigris-sim run --report`.
        report: String,
    },
    /// Run a firmware over a grid of TiGrIS plans, boards, arenas and board parameters, in parallel.
    Sweep(Box<sweep::SweepArgs>),
    /// Read TiGrIS .tgrs execution plans (schema 1-10).
    Plan {
        #[command(subcommand)]
        action: tigris::plan::PlanCommand,
    },
    /// Print a shell completion script (e.g. `tigris-sim completions bash > /etc/bash_completion.d/tigris-sim`).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff; `tigris-sim man | man -l -`).
    Man,
}

#[derive(Subcommand)]
enum BoardsAction {
    /// Print every parameter of a board (built-in name or .toml path).
    Show {
        name: String,
        /// Change a parameter, as for `run` (repeatable): the values shown are the effective ones.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SummaryStyle {
    Text,
    None,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Firmware ELF file, or on the ESP boards a flash image (`esptool merge-bin`: bootloader,
    /// partition table and app), which boots through the chip's mask ROM.
    elf: String,
    /// ELF files whose symbols name the code of a flash image (the app's, the bootloader's;
    /// repeatable); their segments are not loaded.
    #[arg(long, value_name = "ELF")]
    symbols: Vec<String>,
    /// Built-in board name or path to a board .toml file.
    #[arg(long, default_value = tigris_targets::DEFAULT_BOARD)]
    board: String,
    /// Change a board parameter for this run (repeatable), keys as in the board file, a region's
    /// prefixed by its name: `--set flash.wait_states=3 --set core.clock_hz=84000000`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the report as JSON to this file (`-`: stdout; the console and the summary then go to stderr).
    #[arg(long, value_name = "FILE.json")]
    report: Option<String>,
    /// Stop after this many simulated cycles.
    #[arg(long, default_value_t = 10_000_000_000)]
    max_cycles: u64,
    /// Stop after this many instructions.
    #[arg(long, default_value_t = u64::MAX, hide_default_value = true)]
    max_instructions: u64,
    /// Stop after this many seconds of wall-clock time.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    timeout: Option<Duration>,
    /// Pass (exit 0) when the console prints TEXT; the run fails (exit 1) when it ends without.
    #[arg(long, value_name = "TEXT")]
    expect: Option<String>,
    /// With --expect: fail (exit 1) when TEXT has not appeared after this much simulated time
    /// (`500ms`, `2s`, `100us`; a bare number is seconds).
    #[arg(long, value_name = "TIME", requires = "expect", value_parser = parse_sim_time)]
    expect_timeout: Option<f64>,
    /// Fail (exit 1) when the console prints TEXT (repeatable).
    #[arg(long, value_name = "TEXT")]
    fail_on: Vec<String>,
    /// Pass (exit 0) when the core first enters this function.
    #[arg(long, value_name = "SYMBOL")]
    stop_at: Option<String>,
    /// Pass (exit 0) after this many simulated cycles (unlike --max-cycles, a limit that fails).
    #[arg(long, value_name = "N")]
    until_cycles: Option<u64>,
    /// TiGrIS what-if: hand the firmware's tigris_plan_load this plan instead of its own (written
    /// over it, or into free memory of the same region when larger).
    #[arg(long, value_name = "FILE.tgrs")]
    plan: Option<String>,
    /// TiGrIS what-if: hand tigris_mem_init a fast arena of this size (`6144`, `6K`); a larger one
    /// than the firmware's grows into free memory of its region.
    #[arg(long, value_name = "SIZE", value_parser = parse_arena_size)]
    fast_arena: Option<u32>,
    /// TiGrIS what-if: hand tigris_mem_init a slow arena of this size, as for --fast-arena.
    #[arg(long, value_name = "SIZE", value_parser = parse_arena_size)]
    slow_arena: Option<u32>,
    /// Start at this function instead of the vector table's reset handler.
    #[arg(long, value_name = "SYMBOL")]
    entry: Option<String>,
    /// Let semihosting open, read and write host files.
    #[arg(long)]
    allow_host_fs: bool,
    /// Count every data access, also to memory that costs nothing (zero-wait SRAM). Slower on
    /// Cortex-M: Unicorn then takes its slow path for every load and store.
    #[arg(long)]
    memory_stats: bool,
    /// Profile per source line (from DWARF) too: the summary lists the hottest lines, the report
    /// holds them all. Slower: every basic block is then followed.
    #[arg(long)]
    lines: bool,
    /// Tensor views to attribute data traffic to, tile by tile (TOML: docs/views.md).
    #[arg(long, value_name = "FILE.toml")]
    views: Option<String>,
    /// A row-major tensor view in one line (repeatable): NAME@AT:DTYPE:SHAPE[:AXES[:TILE]], e.g.
    /// `a@matrix_a:int8:32x64:m,k:m=8` (AT: a symbol, `symbol+offset` or an address).
    #[arg(long, value_name = "VIEW")]
    view: Vec<String>,
    /// A tensor view of every TiGrIS activation the runtime places in the slow arena (axes n, h,
    /// w, c; tiles of one tile band); a views file re-tiles one with `tigris = "TENSOR"`.
    #[arg(long)]
    tigris_views: bool,
    /// How backtraces (faults, limits, stops) are found: `auto` unwinds the machine state through
    /// the ELF's DWARF call-frame information where it has it, else follows the calls seen since
    /// reset; `cfi` only unwinds; `calls` only follows.
    #[arg(long, value_enum, default_value_t = machine::Unwind::Auto)]
    unwind: machine::Unwind,
    /// The chip's mask-ROM ELF (Espressif chips), instead of searching for it (TIGRIS_SIM_ROM_DIR,
    /// the ESP-IDF tools folder, the `espflash` crate in the cargo registry).
    #[arg(long, value_name = "FILE", conflicts_with = "no_rom")]
    rom: Option<String>,
    /// Run without the chip's mask ROM: `ets_printf` is emulated, other calls into the ROM fault.
    #[arg(long)]
    no_rom: bool,
    /// Stop the run when the firmware polls a peripheral register without progress (otherwise a
    /// warning names the register and the code polling it).
    #[arg(long)]
    strict_mmio: bool,
    /// Print every peripheral register access (cycle, address, register, value) on stderr.
    #[arg(long)]
    trace_mmio: bool,
    /// Xtensa: interpret every block instead of compiling hot ones to host code (the reference
    /// engine: the same results, slower; docs/xtensa.md).
    #[arg(long)]
    no_block_compiler: bool,
    /// Run one instruction at a time and print each (cycle, PC, symbol, instruction, registers) on
    /// stderr. Slow: for short runs and bring-up.
    #[arg(long)]
    trace_instructions: bool,
    /// Do not stream the firmware's console output while it runs.
    #[arg(long)]
    quiet: bool,
    /// The summary printed after the run: `text` (default) or `none` (with `--quiet`, the run
    /// prints nothing; the exit code and the report files carry the result).
    #[arg(long, value_enum, default_value_t = SummaryStyle::Text)]
    summary: SummaryStyle,
    /// Functions to list in the text summary.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Show the live terminal view while the firmware runs (plain output when stdout is not a terminal).
    #[arg(long)]
    tui: bool,
    /// Fill the writable RAM with this byte before loading the image (default 0), and on
    /// Cortex-M r0-r12 at reset with it repeated, to see what depends on memory or registers the
    /// firmware never initialised.
    #[arg(long, value_name = "BYTE", value_parser = parse_byte)]
    fill_ram: Option<u8>,
    /// Cortex-M: when the run ends, write the core's registers and RAM as a probe-rs core dump
    /// (MessagePack, probe-rs's `CoreDump`) to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "tui")]
    core_dump: Option<String>,
    /// With --tui: pause before the first slice, to step through the run (`n`: next tile).
    #[arg(long, requires = "tui")]
    paused: bool,
    /// Serve the GDB remote protocol on [ADDR:]PORT (address 127.0.0.1 unless given; port 0
    /// picks a free one) and wait for a debugger before the first instruction (docs/debugging.md).
    #[arg(long, value_name = "[ADDR:]PORT", value_parser = gdb::parse_address, conflicts_with = "tui")]
    gdb: Option<std::net::SocketAddr>,
    /// With --gdb: run at once and let a debugger attach whenever it connects.
    #[arg(long, requires = "gdb")]
    gdb_continue: bool,
    #[command(flatten)]
    outputs: views::ViewOutputs,
}

impl RunArgs {
    /// Whether an output goes to stdout (`-`): the console and the summary then go to stderr.
    fn stdout_taken(&self) -> bool {
        self.report.as_deref() == Some(views::STDOUT) || self.outputs.uses_stdout()
    }
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a closed stdout (`tigris-sim boards | head`) turns every print into a
    // panic; with the default action the process ends quietly, as other command-line tools do.
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; it only resets a signal action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run(*args),
        Command::Boards { action: None, json } => {
            let mut list = Vec::new();
            for name in tigris_targets::builtin_names() {
                let b = tigris_targets::load(name)?;
                if !json {
                    println!("{:<12} {}", name, b.summary);
                }
                list.push(serde_json::json!({
                    "name": name, "summary": b.summary, "core": b.core.kind.name(),
                    "clock_hz": b.core.clock_hz, "default": name == tigris_targets::DEFAULT_BOARD,
                }));
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Boards {
            action: Some(BoardsAction::Show { name, set }),
            ..
        } => {
            let b = tigris_targets::load_with(&name, &set)?;
            print!("{}", summary::board_details(&b));
            match rom::find(&b, None)? {
                Some(Ok(path)) => println!("mask ROM: {}", path.display()),
                Some(Err(search)) => println!("mask ROM: not found; {}", search.describe()),
                None => {}
            }
            if !b.peripherals.is_empty() {
                let names: Vec<&str> = b.peripherals.iter().map(|p| p.name.as_str()).collect();
                println!("peripherals modelled: {}", names.join(", "));
            }
            if let Some(c) = &b.second_core {
                println!(
                    "second core: PRID 0x{:04X}, started by its clock bit {} of 0x{:08x}, reset bit {} of 0x{:08x}, stall bit {} of 0x{:08x}",
                    c.prid, c.clock.bit, c.clock.register, c.reset.bit, c.reset.register, c.stall.bit, c.stall.register
                );
                if !c.sw_stall.is_empty() {
                    let fields: Vec<String> = c
                        .sw_stall
                        .iter()
                        .map(|f| {
                            format!(
                                "bits {}-{} of 0x{:08x} = {:#x}",
                                f.shift,
                                f.shift + f.bits - 1,
                                f.register,
                                f.value
                            )
                        })
                        .collect();
                    println!(
                        "second core: stalled by software while {}",
                        fields.join(" and ")
                    );
                }
            }
            if let Some(m) = &b.mmu {
                let windows: Vec<String> = m
                    .windows
                    .iter()
                    .map(|w| {
                        format!(
                            "0x{:08x} (entries {}-{})",
                            w.base,
                            w.first,
                            w.first + w.entries - 1
                        )
                    })
                    .collect();
                println!(
                    "cache MMU: {} entries of {} at 0x{:08x}, windows {}; flash chip {}",
                    m.entries,
                    tigris_targets::format_size(m.page as u64),
                    m.table,
                    windows.join(", "),
                    tigris_targets::format_size(m.flash_size as u64)
                );
            }
            if let Some(f) = &b.flash_boot {
                println!(
                    "boots flash images: the ROM loads the bootloader from flash offset 0x{:x} (chip ID {})",
                    f.bootloader, f.chip_id
                );
            }
            if b.boot_stack_used > 0 {
                println!(
                    "direct boot: the app starts {} bytes below the ROM's boot stack top, under the bootloader's frames",
                    b.boot_stack_used
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            memory: true,
            repeat,
            ..
        } => {
            bench_memory::run(repeat)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            elf,
            board,
            repeat,
            json,
            short,
            ..
        } => {
            bench::run(elf.as_deref(), &board, repeat, json, short)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(args) => check::run(args),
        Command::Sweep(args) => sweep::run(*args),
        Command::Compare(args) => compare::run(args),
        Command::Export(args) => {
            views::export(args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Tui { report } => {
            let report = views::load_report(&report)?;
            if !std::io::stdout().is_terminal() {
                anyhow::bail!("the terminal view needs a terminal: stdout is not one");
            }
            tigris_tui::replay(report).context("terminal view")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Plan { action } => {
            tigris::plan::run(action)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "tigris-sim", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let cmd = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(cmd)
                .render(&mut std::io::stdout())
                .context("manual page")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run(args: RunArgs) -> Result<ExitCode> {
    let board = tigris_targets::load_with(&args.board, &args.set)?;
    let report_path = args.report.as_deref().map(|p| ("--report", p));
    args.outputs
        .check(&report_path.into_iter().collect::<Vec<_>>())?;
    let tui = args.tui && std::io::stdout().is_terminal();
    if args.tui && !tui {
        eprintln!("note: --tui needs a terminal on stdout; printing the report instead");
    }
    let report = if tui {
        run_with_tui(&args, board)?
    } else {
        run_plain(&args, board)?
    };
    // Each output is written on its own; one that fails is named on stderr and the others, the
    // summary and the firmware's exit code stand (docs/report.md).
    let (_, mut failed) = args.outputs.write(&report);
    if let Some(path) = &args.report {
        if let Err(e) = views::write_text(path, &report.to_json()) {
            failed.push(e);
        }
    }
    for e in &failed {
        eprintln!("error: {e:#}");
    }
    // A closed pipe (e.g. `| head`) is not an error worth a panic.
    let summary = match args.summary {
        SummaryStyle::Text => summary::text(&report, args.top),
        SummaryStyle::None => String::new(),
    };
    let _ = if args.stdout_taken() {
        std::io::Write::write_all(&mut std::io::stderr(), summary.as_bytes())
    } else {
        std::io::Write::write_all(&mut std::io::stdout(), summary.as_bytes())
    };
    // With --expect, only the text passes a run (an exit with code 0 before it does not).
    let expected = matches!(
        &report.outcome,
        tigris_traces::Outcome::Condition {
            condition: tigris_traces::Condition::Expect,
            ..
        }
    );
    let code = match exit_code(&report.outcome) {
        0 if args.expect.is_some() && !expected => EXIT_CONDITION_FAILED,
        code => code,
    };
    Ok(ExitCode::from(code))
}

/// The process exit code of `run` for a run's outcome.
pub(crate) fn exit_code(outcome: &tigris_traces::Outcome) -> u8 {
    match outcome {
        tigris_traces::Outcome::Exited { code } => (*code & 0xFF) as u8,
        tigris_traces::Outcome::Limit { .. } => EXIT_LIMIT,
        tigris_traces::Outcome::Fault => EXIT_FAULT,
        tigris_traces::Outcome::Reset { .. } => EXIT_RESET,
        tigris_traces::Outcome::Idle { .. } => EXIT_IDLE,
        tigris_traces::Outcome::Condition { passed: true, .. } => 0,
        tigris_traces::Outcome::Condition { passed: false, .. } => EXIT_CONDITION_FAILED,
    }
}

/// Simulated time: a number with `s`, `ms`, `us` or `ns` (seconds without a unit).
fn parse_sim_time(s: &str) -> Result<f64, String> {
    let (number, scale) = [("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)]
        .iter()
        .find_map(|&(unit, scale)| s.strip_suffix(unit).map(|n| (n, scale)))
        .unwrap_or((s, 1.0));
    match number.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v * scale),
        _ => Err(format!(
            "`{s}` is not a simulated time (a positive number with s, ms, us or ns: `500ms`)"
        )),
    }
}

/// A wall-clock limit in seconds: positive, and no longer than a timer can wait.
fn parse_timeout(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t.is_finite() => Duration::try_from_secs_f64(t).map_err(|_| {
            format!("`{s}`: too large (the most a timer can wait is about 1.8e19 seconds)")
        }),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// An arena size: 1 byte to 4 GiB - 1, in any unit `tigris_targets::parse_size` reads.
fn parse_arena_size(s: &str) -> Result<u32> {
    match tigris_targets::parse_size(s)? {
        0 => anyhow::bail!("`{s}`: an arena needs at least one byte"),
        n => {
            u32::try_from(n).with_context(|| format!("`{s}` is larger than a 32-bit address space"))
        }
    }
}

/// A byte in decimal or 0x-prefixed hex.
fn parse_byte(s: &str) -> Result<u8, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("`{s}` is not a byte (0-255 or 0x00-0xff)"))
}

fn load_options(args: &RunArgs) -> Result<machine::LoadOptions> {
    let what_if = WhatIf {
        plan: args.plan.as_deref().map(PlanFile::read).transpose()?,
        fast_arena: args.fast_arena,
        slow_arena: args.slow_arena,
    };
    Ok(machine::LoadOptions {
        entry: args.entry.clone(),
        memory_stats: args.memory_stats,
        rom: args.rom.clone(),
        no_rom: args.no_rom,
        strict_mmio: args.strict_mmio,
        trace_mmio: args.trace_mmio,
        fill_ram: args.fill_ram,
        symbols: args.symbols.clone(),
        what_if,
        unwind: args.unwind,
        views_file: args.views.clone(),
        views: args.view.clone(),
        tigris_views: args.tigris_views,
        no_block_compiler: args.no_block_compiler,
    })
}

fn run_options(
    args: &RunArgs,
    live_console: Option<Box<dyn std::io::Write + Send>>,
) -> machine::RunOptions {
    machine::RunOptions {
        max_cycles: args.max_cycles,
        max_instructions: args.max_instructions,
        timeout: args.timeout,
        allow_host_fs: args.allow_host_fs,
        live_console,
        trace_instructions: args.trace_instructions,
        line_profile: args.lines,
        conditions: machine::StopConditions {
            expect: args.expect.clone(),
            expect_timeout: args.expect_timeout,
            fail_on: args.fail_on.clone(),
            stop_at: args.stop_at.clone(),
            until_cycles: args.until_cycles,
        },
        debugger: None,
    }
}

/// Console output streamed to stdout, progress on stderr when it is a terminal.
fn run_plain(args: &RunArgs, board: tigris_targets::Board) -> Result<Report> {
    let clock_hz = board.core.clock_hz;
    let mut machine = machine::Machine::load(&args.elf, board, &load_options(args)?)?;
    let line = live::ProgressLine::default();
    let console: Option<Box<dyn std::io::Write + Send>> = if args.quiet {
        None
    } else {
        Some(Box::new(live::ConsoleOut(
            line.clone(),
            args.stdout_taken(),
        )))
    };
    let mut progress = std::io::stderr()
        .is_terminal()
        .then(|| live::ProgressMonitor::new(line, clock_hz));
    let mut options = run_options(args, console);
    if let Some(address) = args.gdb {
        options.debugger = Some(gdb::listen(address, !args.gdb_continue, &machine.board)?);
    }
    let report = machine.run(
        options,
        progress.as_mut().map(|p| p as &mut dyn machine::RunMonitor),
    )?;
    if let Some(path) = &args.core_dump {
        coredump::CoreDump::capture(machine.core.as_ref(), &machine.board)?.write(path)?;
    }
    Ok(report)
}

/// The simulation on its own thread (the core lives there), the terminal view on this one.
fn run_with_tui(args: &RunArgs, board: tigris_targets::Board) -> Result<Report> {
    let (update_tx, update_rx) = std::sync::mpsc::channel();
    let (command_tx, command_rx) = std::sync::mpsc::channel();
    let (elf, load, paused) = (args.elf.clone(), load_options(args)?, args.paused);
    let options = run_options(args, None);
    let simulation = std::thread::spawn(move || {
        let result = machine::Machine::load(&elf, board, &load).and_then(|mut m| {
            let mut monitor = live::TuiMonitor::new(update_tx.clone(), command_rx, paused);
            m.run(options, Some(&mut monitor))
        });
        let _ = update_tx.send(match &result {
            Ok(report) => tigris_tui::Update::Finished(Box::new(report.clone())),
            Err(e) => tigris_tui::Update::Failed(format!("{e:#}")),
        });
        result
    });
    let shown = tigris_tui::live(update_rx, command_tx.clone());
    // Whatever the view did, the simulation must end before the report is used.
    let _ = command_tx.send(tigris_tui::Command::Quit);
    let report = simulation
        .join()
        .map_err(|_| anyhow::anyhow!("the simulation thread panicked"))??;
    shown.context("terminal view")?;
    Ok(report)
}
