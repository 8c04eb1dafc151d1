//! `tigris-sim`: run MCU firmware on an emulated core and print a cycle-approximate profile.

mod bench;
mod bench_memory;
mod check;
mod compare;
mod elf;
mod hle;
mod machine;
mod profiler;
mod semihost;
mod summary;
mod tigris;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

/// Exit code for bad input: unreadable or invalid ELF, board or options.
const EXIT_INPUT: u8 = 2;
/// Exit code when --max-cycles, --max-instructions or --timeout stopped the run.
const EXIT_LIMIT: u8 = 124;
/// Exit code when the firmware faulted.
const EXIT_FAULT: u8 = 125;

#[derive(Parser)]
#[command(name = "tigris-sim", version, about = "Cycle-approximate MCU firmware simulator and profiler")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a firmware ELF and print its profile.
    Run(RunArgs),
    /// List the built-in boards, or show every parameter of one.
    Boards {
        #[command(subcommand)]
        action: Option<BoardsAction>,
    },
    /// Measure simulation speed: MIPS with profiling next to Unicorn running the same firmware bare.
    Bench {
        /// Firmware to run (default: the shipped example).
        elf: Option<String>,
        #[arg(long, default_value = tigris_targets::DEFAULT_BOARD)]
        board: String,
        /// Complete runs of the firmware per measurement (the fastest counts).
        #[arg(long, default_value_t = 15)]
        repeat: u32,
        /// Instead: the memory models' cost, each program with its board's models and with flat memory.
        #[arg(long, conflicts_with_all = ["elf", "board"])]
        memory: bool,
    },
    /// CI gate: compare a report with budgets; exit 1 when one is exceeded.
    Check(check::CheckArgs),
    /// Two reports side by side: totals, regions, TiGrIS stages and tiles, top functions.
    Compare(compare::CompareArgs),
    /// Read TiGrIS .tgrs execution plans (schema 2-10).
    Plan {
        #[command(subcommand)]
        action: tigris::plan::PlanCommand,
    },
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

#[derive(clap::Args)]
struct RunArgs {
    /// Firmware ELF file.
    elf: String,
    /// Built-in board name or path to a board .toml file.
    #[arg(long, default_value = tigris_targets::DEFAULT_BOARD)]
    board: String,
    /// Change a board parameter for this run (repeatable), keys as in the board file, a region's
    /// prefixed by its name: `--set flash.wait_states=3 --set core.clock_hz=84000000`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE.json")]
    report: Option<String>,
    /// Stop after this many simulated cycles.
    #[arg(long, default_value_t = 10_000_000_000)]
    max_cycles: u64,
    /// Stop after this many instructions.
    #[arg(long, default_value_t = u64::MAX, hide_default_value = true)]
    max_instructions: u64,
    /// Stop after this many seconds of wall-clock time.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
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
    /// Do not stream the firmware's console output while it runs.
    #[arg(long)]
    quiet: bool,
    /// Functions to list in the text summary.
    #[arg(long, default_value_t = 10)]
    top: usize,
}

fn main() -> ExitCode {
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
        Command::Run(args) => run(args),
        Command::Boards { action: None } => {
            for name in tigris_targets::builtin_names() {
                let b = tigris_targets::load(name)?;
                println!("{:<12} {}", name, b.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Boards { action: Some(BoardsAction::Show { name, set }) } => {
            let b = tigris_targets::load_with(&name, &set)?;
            print!("{}", summary::board_details(&b));
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { memory: true, repeat, .. } => {
            bench_memory::run(repeat)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { elf, board, repeat, .. } => {
            bench::run(elf.as_deref(), &board, repeat)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(args) => check::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Plan { action } => {
            tigris::plan::run(action)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run(args: RunArgs) -> Result<ExitCode> {
    let board = tigris_targets::load_with(&args.board, &args.set)?;
    if let Some(t) = args.timeout {
        if !(t > 0.0 && t.is_finite()) {
            anyhow::bail!("--timeout must be a positive number of seconds, not {t}");
        }
    }
    let mut machine = machine::Machine::load(&args.elf, board, args.entry.as_deref(), args.memory_stats)?;
    let live: Option<Box<dyn std::io::Write>> = if args.quiet { None } else { Some(Box::new(std::io::stdout())) };
    let opts = machine::RunOptions {
        max_cycles: args.max_cycles,
        max_instructions: args.max_instructions,
        timeout: args.timeout.map(Duration::from_secs_f64),
        allow_host_fs: args.allow_host_fs,
        live_console: live,
    };
    let report = machine.run(opts, None)?;
    if let Some(path) = &args.report {
        std::fs::write(path, report.to_json()).map_err(|e| anyhow::anyhow!("cannot write report {path}: {e}"))?;
    }
    // A closed pipe (e.g. `| head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout(), summary::text(&report, args.top).as_bytes());
    Ok(match &report.outcome {
        tigris_traces::Outcome::Exited { code } => ExitCode::from((*code & 0xFF) as u8),
        tigris_traces::Outcome::Limit { .. } => ExitCode::from(EXIT_LIMIT),
        tigris_traces::Outcome::Fault => ExitCode::from(EXIT_FAULT),
    })
}
