//! `tigris-sim sweep`: one firmware run over a grid of TiGrIS plans, boards, arena sizes and board
//! parameters, the points in parallel on every core, and `sweep merge` to join the slices of a sharded
//! sweep (docs/sweep.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use tigris_traces::sweep::{
    Shard, Sweep, SweepAxis, SweepFile, SweepPoint, SweepTigris, SWEEP_SCHEMA, SWEEP_SCHEMA_VERSION,
};
use tigris_traces::Report;

use crate::machine::{LoadOptions, Machine, RunOptions};
use crate::summary::{bytes, label_width, thousands};
use crate::tigris::whatif::{PlanFile, WhatIf};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    action: Option<SweepAction>,
    /// Firmware ELF that runs the TiGrIS runtime (or any firmware, for a grid of boards and parameters).
    #[arg(required = true)]
    elf: Option<String>,
    /// Boards to run on: built-in names or .toml files (comma-separated or repeated).
    #[arg(long = "board", value_delimiter = ',', default_value = tigris_targets::DEFAULT_BOARD)]
    boards: Vec<String>,
    /// Plans to hand the firmware's tigris_plan_load, one grid value each (without: its own plan).
    #[arg(long, num_args = 1.., value_name = "FILE.tgrs")]
    plans: Vec<String>,
    /// A model to compile into one plan per --budgets value with the TiGrIS compiler.
    #[arg(long, value_name = "MODEL", requires = "budgets")]
    model: Option<String>,
    /// Fast-memory budgets to compile --model for (`-m` of `tigris compile`: `8K,16K`).
    #[arg(long, value_delimiter = ',', requires = "model", value_parser = parse_budget)]
    budgets: Vec<String>,
    /// The TiGrIS compiler to run for --model.
    #[arg(long, default_value = "tigris", value_name = "PROGRAM")]
    compiler: String,
    /// An extra option for `tigris compile` (repeatable: `--compile-arg=--xip`).
    #[arg(long = "compile-arg", value_name = "ARG", allow_hyphen_values = true)]
    compile_args: Vec<String>,
    /// A board parameter and its values, one grid axis per key (repeatable):
    /// `--set psram.clock_mhz=40,80 --set psram.mode=quad,octal`.
    #[arg(long = "set", value_name = "KEY=V1,V2")]
    set: Vec<String>,
    /// Fast-arena sizes to hand tigris_mem_init (comma-separated). Without: the arena a handed plan
    /// needs (its budget, and its LZ4 reserve), else the firmware's own.
    #[arg(long, value_delimiter = ',', value_parser = crate::parse_arena_size, value_name = "SIZE")]
    fast_arena: Vec<u32>,
    /// Slow-arena sizes to hand tigris_mem_init (comma-separated; without: the firmware's).
    #[arg(long, value_delimiter = ',', value_parser = crate::parse_arena_size, value_name = "SIZE")]
    slow_arena: Vec<u32>,
    /// Write sweep.json, sweep.csv and pareto.svg/.png here (a shard: sweep-K-of-N.json only).
    #[arg(long, value_name = "DIR")]
    out: Option<String>,
    /// Run only slice K of N of the grid (points whose index is K-1 modulo N); `sweep merge` joins
    /// the slices' JSON into the whole sweep's.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Points run at once (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Stop each point after this many simulated cycles.
    #[arg(long, default_value_t = 10_000_000_000)]
    max_cycles: u64,
    /// Stop each point after this many seconds of wall-clock time (such a point is not deterministic).
    #[arg(long, value_name = "SECONDS", value_parser = crate::parse_timeout)]
    timeout: Option<Duration>,
}

#[derive(clap::Subcommand)]
enum SweepAction {
    /// Join the JSON of the shards of one sweep (`--shard 1/N` ... `--shard N/N`) into the whole sweep.
    Merge {
        #[arg(required = true, value_name = "SHARD.json")]
        shards: Vec<String>,
        /// Write sweep.json, sweep.csv and pareto.svg/.png here.
        #[arg(long, value_name = "DIR")]
        out: Option<String>,
    },
}

fn parse_budget(s: &str) -> Result<String> {
    match tigris_targets::parse_size(s)? {
        0 => bail!("`{s}`: a budget needs at least one byte"),
        _ => Ok(s.to_string()),
    }
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("`{s}` is not a shard K/N (1 <= K <= N, e.g. 2/4)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count) = (
        k.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if index == 0 || index > count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

pub fn run(args: SweepArgs) -> Result<ExitCode> {
    if let Some(SweepAction::Merge { shards, out }) = &args.action {
        let sweep = merge(shards)?;
        return finish(&sweep, out.as_deref());
    }
    let elf = args.elf.as_deref().context("sweep needs a firmware ELF")?;
    let firmware = SweepFile {
        name: file_name(elf),
        sha256: sha256_of(elf)?,
    };
    let scratch = Scratch::new(args.out.as_deref())?;
    let grid = Grid::new(&args, &scratch)?;
    let selected: Vec<usize> = (0..grid.total())
        .filter(|&i| args.shard.is_none_or(|s| s.holds(i)))
        .collect();
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting the sweep's threads")?;
    let bar = ProgressBar::new(selected.len() as u64).with_style(
        ProgressStyle::with_template("sweep {bar:30} {pos}/{len} points, {elapsed} ({eta} left)")
            .expect("a valid progress template"),
    );
    let limits = (args.max_cycles, args.timeout);
    let points: Vec<SweepPoint> = pool.install(|| {
        selected
            .par_iter()
            .map(|&index| {
                let point = grid.run_point(index, elf, limits);
                bar.inc(1);
                point
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut sweep = Sweep {
        schema: SWEEP_SCHEMA.to_string(),
        schema_version: SWEEP_SCHEMA_VERSION,
        tool: crate::machine::tool(),
        firmware,
        plans: grid.plan_files(),
        axes: grid.axes(),
        points_total: grid.total(),
        max_cycles: args.max_cycles,
        shard: args.shard,
        points,
        findings: Vec::new(),
    };
    if sweep.shard.is_none() {
        sweep.findings = planner_findings(&sweep);
    }
    finish(&sweep, args.out.as_deref())
}

/// Print the table, write the files; exit 0 when every point ran to a clean end, else 1.
fn finish(sweep: &Sweep, out: Option<&str>) -> Result<ExitCode> {
    print!("{}", table(sweep));
    if let Some(dir) = out {
        let dir = Path::new(dir);
        std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
        let mut written = Vec::new();
        match sweep.shard {
            Some(s) => {
                let path = dir.join(format!("sweep-{}-of-{}.json", s.index, s.count));
                crate::views::write_text(&path.to_string_lossy(), &sweep.to_json())?;
                written.push(path);
            }
            None => {
                for (name, text) in [
                    ("sweep.json", sweep.to_json()),
                    ("sweep.csv", sweep.to_csv()),
                ] {
                    let path = dir.join(name);
                    crate::views::write_text(&path.to_string_lossy(), &text)?;
                    written.push(path);
                }
                let plot = tigris_traces::plots::write_pareto_plot(sweep, &dir.join("pareto"))?;
                written.extend(plot.unwrap_or_default());
            }
        }
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        eprintln!("wrote {}", names.join(", "));
    }
    let clean = sweep.points.iter().all(|p| p.exit_code == 0);
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_CONDITION_FAILED)
    })
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

fn sha256_of(path: &str) -> Result<String> {
    let data = std::fs::read(path).with_context(|| path.to_string())?;
    Ok(format!("{:x}", Sha256::digest(&data)))
}

/// Where compiled plans go: `DIR/plans` under --out, else a directory of this process removed at the end.
struct Scratch {
    dir: PathBuf,
    remove: bool,
}

impl Scratch {
    fn new(out: Option<&str>) -> Result<Scratch> {
        let (dir, remove) = match out {
            Some(out) => (Path::new(out).join("plans"), false),
            None => (
                std::env::temp_dir().join(format!("tigris-sim-sweep-{}", std::process::id())),
                true,
            ),
        };
        Ok(Scratch { dir, remove })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A plan value of the grid: none (the firmware's own) or a file.
struct GridPlan {
    label: String,
    file: Option<PlanFile>,
}

/// What a point hands tigris_mem_init as its fast arena.
#[derive(Clone, Copy)]
enum FastArena {
    Firmwares,
    /// The plan's budget and LZ4 reserve: a budget sweep sweeps the arena with it.
    PlansNeed,
    Size(u32),
}

struct Grid {
    boards: Vec<String>,
    plans: Vec<GridPlan>,
    fast: Vec<FastArena>,
    slow: Vec<Option<u32>>,
    /// Board parameters: key, values.
    sets: Vec<(String, Vec<String>)>,
}

impl Grid {
    /// The grid of `args`; every board with every parameter value is loaded once, so that a bad name
    /// or value is refused before anything runs.
    fn new(args: &SweepArgs, scratch: &Scratch) -> Result<Grid> {
        let mut plans = Vec::new();
        for path in &args.plans {
            plans.push(GridPlan {
                label: path.clone(),
                file: Some(PlanFile::read(path)?),
            });
        }
        if let Some(model) = &args.model {
            for budget in &args.budgets {
                plans.push(compile(args, model, budget, scratch)?);
            }
        }
        if plans.is_empty() {
            plans.push(GridPlan {
                label: "firmware's".to_string(),
                file: None,
            });
        }
        let fast = match (&args.fast_arena[..], plans[0].file.is_some()) {
            ([], false) => vec![FastArena::Firmwares],
            ([], true) => vec![FastArena::PlansNeed],
            (sizes, _) => sizes.iter().map(|&s| FastArena::Size(s)).collect(),
        };
        let slow = match &args.slow_arena[..] {
            [] => vec![None],
            sizes => sizes.iter().map(|&s| Some(s)).collect(),
        };
        let mut sets: Vec<(String, Vec<String>)> = Vec::new();
        for item in &args.set {
            let Some((key, values)) = item.split_once('=') else {
                bail!("--set {item}: expected KEY=VALUE[,VALUE...]");
            };
            if sets.iter().any(|(k, _)| k == key) {
                bail!("--set {key} is given twice: list all its values in one --set {key}=V1,V2");
            }
            let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
            if values.iter().any(String::is_empty) {
                bail!("--set {item}: an empty value");
            }
            sets.push((key.to_string(), values));
        }
        let grid = Grid {
            boards: args.boards.clone(),
            plans,
            fast,
            slow,
            sets,
        };
        grid.check_boards()?;
        Ok(grid)
    }

    fn check_boards(&self) -> Result<()> {
        for board in &self.boards {
            let mut combination = vec![0; self.sets.len()];
            loop {
                let sets = self.set_arguments(&combination);
                tigris_targets::load_with(board, &sets)
                    .with_context(|| format!("--board {board}"))?;
                // The next combination of values, the last key fastest.
                let Some(k) = (0..combination.len())
                    .rev()
                    .find(|&k| combination[k] + 1 < self.sets[k].1.len())
                else {
                    break;
                };
                combination[k] += 1;
                combination[k + 1..].fill(0);
            }
        }
        Ok(())
    }

    fn set_arguments(&self, values: &[usize]) -> Vec<String> {
        self.sets
            .iter()
            .zip(values)
            .map(|((key, vals), &v)| format!("{key}={}", vals[v]))
            .collect()
    }

    /// Length of each axis, in the order of `axes`.
    fn lengths(&self) -> Vec<usize> {
        let mut lengths = vec![
            self.boards.len(),
            self.plans.len(),
            self.fast.len(),
            self.slow.len(),
        ];
        lengths.extend(self.sets.iter().map(|(_, v)| v.len()));
        lengths
    }

    fn total(&self) -> usize {
        self.lengths().iter().product()
    }

    /// The value index on each axis of point `index` (mixed radix, the last axis fastest).
    fn coordinates(&self, index: usize) -> Vec<usize> {
        let mut rest = index;
        let mut coordinates: Vec<usize> = self
            .lengths()
            .iter()
            .rev()
            .map(|&n| {
                let c = rest % n;
                rest /= n;
                c
            })
            .collect();
        coordinates.reverse();
        coordinates
    }

    fn axes(&self) -> Vec<SweepAxis> {
        let arena = |size: u32| tigris_targets::format_size(size as u64);
        let mut axes = vec![
            SweepAxis {
                name: "board".into(),
                values: self.boards.clone(),
            },
            SweepAxis {
                name: "plan".into(),
                values: self.plans.iter().map(|p| p.label.clone()).collect(),
            },
            SweepAxis {
                name: "fast_arena".into(),
                values: self
                    .fast
                    .iter()
                    .map(|f| match f {
                        FastArena::Firmwares => "firmware's".to_string(),
                        FastArena::PlansNeed => "plan's".to_string(),
                        FastArena::Size(s) => arena(*s),
                    })
                    .collect(),
            },
            SweepAxis {
                name: "slow_arena".into(),
                values: self
                    .slow
                    .iter()
                    .map(|s| s.map_or("firmware's".to_string(), arena))
                    .collect(),
            },
        ];
        axes.extend(self.sets.iter().map(|(key, values)| SweepAxis {
            name: key.clone(),
            values: values.clone(),
        }));
        axes
    }

    fn plan_files(&self) -> Vec<SweepFile> {
        self.plans
            .iter()
            .filter_map(|p| {
                let file = p.file.as_ref()?;
                Some(SweepFile {
                    name: p.label.clone(),
                    sha256: format!("{:x}", Sha256::digest(&file.bytes)),
                })
            })
            .collect()
    }

    fn run_point(
        &self,
        index: usize,
        elf: &str,
        (max_cycles, timeout): (u64, Option<Duration>),
    ) -> SweepPoint {
        let c = self.coordinates(index);
        let axes = self.axes();
        let values: Vec<String> = axes
            .iter()
            .zip(&c)
            .map(|(a, &v)| a.values[v].clone())
            .collect();
        let plan = &self.plans[c[1]];
        let fast_arena = match self.fast[c[2]] {
            FastArena::Firmwares => None,
            FastArena::PlansNeed => plan
                .file
                .as_ref()
                .and_then(|f| u32::try_from(f.fast_arena_bytes()).ok())
                .filter(|&b| b > 0),
            FastArena::Size(size) => Some(size),
        };
        let what_if = WhatIf {
            plan: plan.file.clone(),
            fast_arena,
            slow_arena: self.slow[c[3]],
        };
        let board = &self.boards[c[0]];
        let sets = self.set_arguments(&c[4..]);
        let result = tigris_targets::load_with(board, &sets)
            .map_err(anyhow::Error::from)
            .and_then(|board| {
                let load = LoadOptions {
                    what_if,
                    ..LoadOptions::default()
                };
                let mut machine = Machine::load(elf, board, &load)?;
                machine.run(
                    RunOptions {
                        max_cycles,
                        timeout,
                        ..RunOptions::default()
                    },
                    None,
                )
            });
        match result {
            Ok(report) => measured_point(index, values, &report),
            Err(e) => SweepPoint {
                index,
                values,
                outcome: format!("refused: {e:#}"),
                exit_code: crate::EXIT_INPUT,
                clock_hz: 0,
                cycles: 0,
                instructions: 0,
                stall_cycles: 0,
                tigris: None,
            },
        }
    }
}

/// `tigris compile MODEL -m BUDGET -o DIR/STEM-BUDGET.tgrs`, and the plan it wrote.
fn compile(args: &SweepArgs, model: &str, budget: &str, scratch: &Scratch) -> Result<GridPlan> {
    std::fs::create_dir_all(&scratch.dir).with_context(|| format!("{}", scratch.dir.display()))?;
    let stem = Path::new(model)
        .file_stem()
        .map_or_else(|| "model".to_string(), |s| s.to_string_lossy().into_owned());
    let out = scratch.dir.join(format!("{stem}-{budget}.tgrs"));
    let mut command = Command::new(&args.compiler);
    command
        .arg("compile")
        .arg(model)
        .args(["-m", budget])
        .args(&args.compile_args)
        .arg("-o")
        .arg(&out);
    let shown = format!(
        "{} compile {model} -m {budget}{}",
        args.compiler,
        args.compile_args
            .iter()
            .map(|a| format!(" {a}"))
            .collect::<String>()
    );
    let output = command.output().with_context(|| {
        format!(
            "cannot run `{}` (the TiGrIS compiler: `pip install tigris-ml`)",
            args.compiler
        )
    })?;
    if !output.status.success() {
        let text = String::from_utf8_lossy(&output.stderr);
        let text = if text.trim().is_empty() {
            String::from_utf8_lossy(&output.stdout)
        } else {
            text
        };
        bail!("`{shown}` failed ({}): {}", output.status, text.trim());
    }
    let file = PlanFile::read(&out.to_string_lossy())
        .with_context(|| format!("the plan `{shown}` wrote"))?;
    Ok(GridPlan {
        label: format!("{} -m {budget}", file_name(model)),
        file: Some(file),
    })
}

fn measured_point(index: usize, values: Vec<String>, report: &Report) -> SweepPoint {
    let tigris = report.tigris.as_ref().map(|t| {
        let total = &t.total;
        let predictions: Vec<_> = t
            .stages
            .iter()
            .filter_map(|s| s.predicted.as_ref())
            .collect();
        SweepTigris {
            budget: t.plan.as_ref().and_then(|p| p.budget),
            fast_arena: t.arenas.as_ref().map(|a| a.fast_size),
            slow_arena: t.arenas.as_ref().map(|a| a.slow_size),
            cycles: total.cycles,
            fast_peak: total.fast_peak.max(total.fast_peak_bus),
            slow_peak: total.slow_peak.max(total.slow_peak_bus),
            slow_read_bytes: total.slow_read_bytes,
            slow_write_bytes: total.slow_write_bytes,
            halo_cycles: total.halo_load_cycles + total.recompute_cycles,
            halo_bytes: total.halo_bytes,
            predicted_peak: predictions.iter().map(|p| p.peak_bytes).max(),
            predicted_overhead: (!predictions.is_empty())
                .then(|| predictions.iter().map(|p| p.overhead_bytes).sum()),
            events: t.events,
            findings: t.findings.clone(),
        }
    });
    let exit_code = crate::exit_code(&report.outcome);
    let mut outcome = crate::summary::outcome_text(&report.outcome);
    // What a failed firmware said last is usually why it failed.
    if let (true, Some(last)) = (
        exit_code != 0,
        report.console.lines().rev().find(|l| !l.trim().is_empty()),
    ) {
        outcome.push_str(&format!("; its console last printed: {}", last.trim()));
    }
    SweepPoint {
        index,
        values,
        outcome,
        exit_code,
        clock_hz: report.board.clock_hz,
        cycles: report.totals.cycles,
        instructions: report.totals.instructions,
        stall_cycles: report.totals.stall_cycles,
        tigris,
    }
}

/// Join shards: the same sweep (every field but the shard and the points equal), every slice once.
fn merge(paths: &[String]) -> Result<Sweep> {
    let mut shards = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).with_context(|| path.clone())?;
        let sweep: Sweep =
            serde_json::from_str(&text).with_context(|| format!("{path}: not a sweep document"))?;
        if sweep.schema != SWEEP_SCHEMA || sweep.schema_version != SWEEP_SCHEMA_VERSION {
            bail!(
                "{path}: a {} document of version {}, not {SWEEP_SCHEMA} {SWEEP_SCHEMA_VERSION}",
                sweep.schema,
                sweep.schema_version
            );
        }
        let Some(shard) = sweep.shard else {
            bail!("{path}: a whole sweep, not a shard (written by sweep --shard K/N)");
        };
        shards.push((path, shard, sweep));
    }
    let (first_path, first_shard, first) = &shards[0];
    let header = |s: &Sweep| Sweep {
        shard: None,
        points: Vec::new(),
        ..s.clone()
    };
    let mut seen = BTreeMap::new();
    let mut points = Vec::new();
    for (path, shard, sweep) in &shards {
        if header(sweep) != header(first) || shard.count != first_shard.count {
            bail!("{path} and {first_path} are shards of different sweeps (firmware, plans, grid, limits or tool differ)");
        }
        if let Some(other) = seen.insert(shard.index, path) {
            bail!(
                "{path} and {other} are both shard {}/{}",
                shard.index,
                shard.count
            );
        }
        for p in &sweep.points {
            if !shard.holds(p.index) || p.index >= first.points_total {
                bail!(
                    "{path}: point {} does not belong to shard {}/{}",
                    p.index,
                    shard.index,
                    shard.count
                );
            }
        }
        points.extend(sweep.points.iter().cloned());
    }
    let missing: Vec<String> = (1..=first_shard.count)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{}", first_shard.count))
        .collect();
    if !missing.is_empty() {
        bail!("shards missing: {}", missing.join(", "));
    }
    points.sort_by_key(|p| p.index);
    if points.len() != first.points_total {
        bail!(
            "the shards hold {} points of the sweep's {}",
            points.len(),
            first.points_total
        );
    }
    let mut sweep = Sweep {
        points,
        ..header(first)
    };
    sweep.findings = planner_findings(&sweep);
    Ok(sweep)
}

/// Where two measured points that differ only in their plan are ranked one way by the planner's
/// predictions and the other way by the run: fast-arena peak against the predicted peak, halo bytes
/// against the predicted overhead.
fn planner_findings(sweep: &Sweep) -> Vec<String> {
    let Some(plan_axis) = sweep.axes.iter().position(|a| a.name == "plan") else {
        return Vec::new();
    };
    let mut groups: BTreeMap<Vec<&str>, Vec<&SweepPoint>> = BTreeMap::new();
    for p in sweep.points.iter().filter(|p| p.measured()) {
        let mut others: Vec<&str> = p.values.iter().map(String::as_str).collect();
        others.remove(plan_axis);
        groups.entry(others).or_default().push(p);
    }
    type Figure = fn(&SweepTigris) -> Option<(u64, u64)>;
    let checks: [(&str, &str, Figure); 2] = [
        ("fast-arena peak", "peak", |t| {
            Some((t.predicted_peak?, t.fast_peak as u64))
        }),
        ("halo bytes", "overhead", |t| {
            Some((t.predicted_overhead?, t.halo_bytes))
        }),
    ];
    let mut findings = Vec::new();
    for (others, points) in &groups {
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                for (what, predicted, figure) in &checks {
                    let (Some((pa, ma)), Some((pb, mb))) = (
                        a.tigris.as_ref().and_then(figure),
                        b.tigris.as_ref().and_then(figure),
                    ) else {
                        continue;
                    };
                    if pa.cmp(&pb) != ma.cmp(&mb) && pa != pb && ma != mb {
                        let setting: Vec<String> = sweep
                            .axes
                            .iter()
                            .filter(|axis| axis.name != "plan")
                            .zip(others.iter())
                            .filter(|(axis, _)| axis.values.len() > 1)
                            .map(|(axis, value)| format!("{} {value}", axis.name))
                            .collect();
                        let (a_plan, b_plan) = (&a.values[plan_axis], &b.values[plan_axis]);
                        findings.push(format!(
                            "the planner ranks `{a_plan}` and `{b_plan}` one way on {what}, the run the other: predicted \
                             {predicted} {} vs {}, measured {} vs {} (points #{} and #{}{})",
                            thousands(pa),
                            thousands(pb),
                            thousands(ma),
                            thousands(mb),
                            a.index,
                            b.index,
                            if setting.is_empty() { String::new() } else { format!("; {}", setting.join(", ")) }
                        ));
                    }
                }
            }
        }
    }
    findings
}

/// The sweep as a table: the axes that vary, then the figures; fixed axes in the heading.
fn table(sweep: &Sweep) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let varying: Vec<usize> = (0..sweep.axes.len())
        .filter(|&a| sweep.axes[a].values.len() > 1)
        .collect();
    let fixed: Vec<String> = sweep
        .axes
        .iter()
        .filter(|a| a.values.len() == 1)
        .map(|a| format!("{} {}", a.name, a.values[0]))
        .collect();
    let slice = sweep.shard.map_or(String::new(), |s| {
        format!(" (shard {}/{})", s.index, s.count)
    });
    let _ = writeln!(
        o,
        "== tigris-sim sweep: {}, {} of {} points{slice}; {}",
        sweep.firmware.name,
        sweep.points.len(),
        sweep.points_total,
        fixed.join(", ")
    );
    let front = sweep.pareto_front();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["#".to_string()];
    header.extend(varying.iter().map(|&a| sweep.axes[a].name.clone()));
    header.extend(
        [
            "exit",
            "latency ms",
            "fast arena",
            "fast peak",
            "predicted",
            "slow traffic",
            "stall",
            "halo",
            "pareto",
        ]
        .map(String::from),
    );
    rows.push(header);
    let mut notes = Vec::new();
    for p in &sweep.points {
        let mut row = vec![p.index.to_string()];
        row.extend(varying.iter().map(|&a| p.values[a].clone()));
        row.push(p.exit_code.to_string());
        // A failed run's figures are not the configuration's: dashes, the figures stay in the files.
        let t = p.tigris.as_ref().filter(|_| p.exit_code == 0);
        let size = |v: Option<u64>| v.map_or("-".to_string(), bytes);
        let share = |v: f64, known: bool| match known {
            true => format!("{:.1}%", 100.0 * v),
            false => "-".to_string(),
        };
        row.extend([
            p.latency_seconds()
                .filter(|_| p.exit_code == 0)
                .map_or("-".into(), |s| format!("{:.3}", s * 1e3)),
            size(t.and_then(|t| t.fast_arena).map(u64::from)),
            size(t.map(|t| t.fast_peak as u64)),
            size(t.and_then(|t| t.predicted_peak)),
            size(t.map(|t| t.slow_read_bytes + t.slow_write_bytes)),
            share(p.stall_share(), p.exit_code == 0),
            share(p.halo_share(), t.is_some()),
            if front.contains(&p.index) { "*" } else { "" }.to_string(),
        ]);
        if p.exit_code != 0 {
            notes.push(format!("  #{}: {}", p.index, p.outcome));
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| label_width(rows.iter().map(|r| r[c].chars().count()), 0))
        .collect();
    let text_columns = 1 + varying.len();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, &w))| {
                if (1..text_columns).contains(&c) {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        let _ = writeln!(o, "  {}", cells.join("  ").trim_end());
    }
    for note in &notes {
        let _ = writeln!(o, "{note}");
    }
    for finding in &sweep.findings {
        let _ = writeln!(o, "  finding: {finding}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 70,000-character axis value (a plan label) pads to the capped width instead of panicking
    /// in `{:w$}`; the other rows stay readable.
    #[test]
    fn table_caps_column_widths_for_a_huge_cell() {
        let huge = "p".repeat(70_000);
        let point = |index: usize, plan: &str| SweepPoint {
            index,
            values: vec![plan.to_string()],
            outcome: "exit 0".to_string(),
            exit_code: 0,
            clock_hz: 1_000_000,
            cycles: 1_000,
            instructions: 900,
            stall_cycles: 100,
            tigris: None,
        };
        let sweep = Sweep {
            schema: SWEEP_SCHEMA.to_string(),
            schema_version: SWEEP_SCHEMA_VERSION,
            tool: crate::machine::tool(),
            firmware: SweepFile {
                name: "fw.elf".to_string(),
                sha256: String::new(),
            },
            plans: Vec::new(),
            axes: vec![SweepAxis {
                name: "plan".to_string(),
                values: vec![huge.clone(), "small".to_string()],
            }],
            points_total: 2,
            max_cycles: 0,
            shard: None,
            points: vec![point(0, &huge), point(1, "small")],
            findings: Vec::new(),
        };
        let text = table(&sweep);
        assert!(text.contains(&huge));
        let small = text.lines().find(|l| l.contains("small")).unwrap();
        assert!(small.len() < 400, "{small}");
    }
}
