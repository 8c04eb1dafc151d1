//! `tigris-sim check`: the CI gate. Reads a report, compares it with budgets from the command line and
//! a limits file (docs/ci.md), prints every limit with its measured value, optionally writes JUnit XML.

use crate::summary::{label_width, thousands};
use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::fmt::Write;
use std::process::ExitCode;
use tigris_targets::Size;
use tigris_traces::{Outcome, Report, TigrisFigures, TigrisStage};

/// Exit code when a limit is exceeded (2, bad input, is main's).
const EXIT_FAIL: u8 = 1;
/// Origin of the whole-run limits given as options, in error messages.
const CLI: &str = "command line";

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Report written by `tigris-sim run --report`.
    report: String,
    /// Most simulated cycles of the whole run.
    #[arg(long, value_name = "N")]
    max_cycles: Option<u64>,
    /// Most simulated milliseconds of the whole run (at the clocks the core ran at).
    #[arg(long, value_name = "MS")]
    max_ms: Option<f64>,
    /// Most memory stall cycles of the whole run.
    #[arg(long, value_name = "N")]
    max_stall_cycles: Option<u64>,
    /// Largest TiGrIS fast-arena peak (the runtime's, over all stages): 4096, 232K, 1M.
    #[arg(long, value_name = "SIZE")]
    max_fast_peak: Option<String>,
    /// Most TiGrIS slow-arena bytes read plus written on the bus.
    #[arg(long, value_name = "SIZE")]
    max_slow_bytes: Option<String>,
    /// Largest share of the TiGrIS inference's cycles spent on halo rows (0.05 = 5%).
    #[arg(long, value_name = "FRACTION")]
    max_halo_share: Option<f64>,
    /// Per-stage (and whole-run) limits in TOML: `[run]` and `[[stage]]` tables (docs/ci.md).
    #[arg(long, value_name = "FILE.toml")]
    limits: Option<String>,
    /// Also write the results as JUnit XML, one testcase per limit.
    #[arg(long, value_name = "FILE.xml")]
    junit: Option<String>,
    /// Print the results as JSON (`[{name, measured, budget, pass}]`) instead of the table.
    #[arg(long)]
    json: bool,
}

/// One set of budgets: the whole run (`[run]`, command line) or one `[[stage]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Only in `[[stage]]`: the stage index (a chain is named by its head) and, optionally, its path.
    stage: Option<u16>,
    path: Option<String>,
    max_cycles: Option<u64>,
    max_ms: Option<f64>,
    max_stall_cycles: Option<u64>,
    max_fast_peak: Option<Size>,
    max_slow_bytes: Option<Size>,
    max_halo_share: Option<f64>,
}

impl Limits {
    fn is_empty(&self) -> bool {
        self.max_cycles.is_none()
            && self.max_ms.is_none()
            && self.max_stall_cycles.is_none()
            && self.max_fast_peak.is_none()
            && self.max_slow_bytes.is_none()
            && self.max_halo_share.is_none()
    }

    /// Each budget of `self`, else `other`'s.
    fn or(self, other: &Limits) -> Limits {
        Limits {
            stage: None,
            path: None,
            max_cycles: self.max_cycles.or(other.max_cycles),
            max_ms: self.max_ms.or(other.max_ms),
            max_stall_cycles: self.max_stall_cycles.or(other.max_stall_cycles),
            max_fast_peak: self.max_fast_peak.or(other.max_fast_peak),
            max_slow_bytes: self.max_slow_bytes.or(other.max_slow_bytes),
            max_halo_share: self.max_halo_share.or(other.max_halo_share),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    run: Option<toml::Spanned<Limits>>,
    #[serde(default)]
    stage: Vec<toml::Spanned<Limits>>,
}

/// The result of one limit.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Verdict {
    pub name: String,
    pub measured: String,
    pub budget: String,
    pub pass: bool,
}

/// A limit applied to the whole run or to the stage entries of one stage index.
struct Scope<'a> {
    label: String,
    stages: Option<Vec<&'a TigrisStage>>,
    /// Where the limit came from, for errors: `FILE:LINE` or `command line`.
    origin: String,
}

/// The time the halo costs: its share of the load copies plus the rows recomputed, over the cycles.
pub fn halo_share(f: &TigrisFigures) -> f64 {
    (f.halo_load_cycles + f.recompute_cycles) as f64 / f.cycles.max(1) as f64
}

fn bytes(n: u64) -> String {
    format!("{} B", thousands(n))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Budgets given as floats must be finite and not negative.
fn check_real(origin: &str, key: &str, v: Option<f64>) -> Result<()> {
    match v {
        Some(x) if !(x.is_finite() && x >= 0.0) => {
            bail!("{origin}: {key} must be a non-negative number, not {x}")
        }
        _ => Ok(()),
    }
}

/// Evaluate one set of limits on a scope, appending a verdict per limit.
fn evaluate(r: &Report, scope: &Scope, l: &Limits, out: &mut Vec<Verdict>) -> Result<()> {
    check_real(&scope.origin, "max_ms", l.max_ms)?;
    check_real(&scope.origin, "max_halo_share", l.max_halo_share)?;
    let tigris = |key: &str| -> Result<&tigris_traces::TigrisProfile> {
        let key = if scope.origin == CLI {
            format!("--{}", key.replace('_', "-"))
        } else {
            key.to_string()
        };
        r.tigris.as_ref().ok_or_else(|| {
            anyhow!("{}: {key} is a TiGrIS limit, but the report has no `tigris` object (the firmware did not run the TiGrIS runtime)", scope.origin)
        })
    };
    // Over several entries of a stage (several inferences) the worst one counts.
    let stage_max = |f: &dyn Fn(&TigrisStage) -> f64| {
        scope
            .stages
            .as_ref()
            .map(|s| s.iter().map(|st| f(st)).fold(0.0, f64::max))
    };
    let stage_stalls =
        |s: &TigrisStage| s.figures.stalls.iter().map(|c| c.cycles).sum::<u64>() as f64;
    let ms_per_cycle = 1e3 / r.board.clock_hz as f64;
    let mut push = |what: &str, measured: f64, budget: f64, show: &dyn Fn(f64) -> String| {
        out.push(Verdict {
            name: format!("{}{what}", scope.label),
            measured: show(measured),
            budget: show(budget),
            pass: measured <= budget,
        });
    };
    // Whole-run TiGrIS figures say so; a stage's label already does.
    let t = if scope.stages.is_some() {
        ""
    } else {
        "TiGrIS "
    };
    let count = |v: f64| thousands(v as u64);
    let size = |v: f64| bytes(v as u64);
    if let Some(b) = l.max_cycles {
        let m = stage_max(&|s| s.figures.cycles as f64).unwrap_or(r.totals.cycles as f64);
        push("cycles", m, b as f64, &count);
    }
    if let Some(b) = l.max_ms {
        let m = stage_max(&|s| s.figures.cycles as f64 * ms_per_cycle)
            .unwrap_or(r.totals.seconds * 1e3);
        push("simulated ms", m, b, &|v| format!("{v:.3} ms"));
    }
    if let Some(b) = l.max_stall_cycles {
        let m = stage_max(&stage_stalls).unwrap_or(r.totals.stall_cycles as f64);
        push("memory stall cycles", m, b as f64, &count);
    }
    if let Some(Size(b)) = l.max_fast_peak {
        let m = stage_max(&|s| s.figures.fast_peak as f64).map_or_else(
            || tigris("max_fast_peak").map(|t| t.total.fast_peak as f64),
            Ok,
        )?;
        push(&format!("{t}fast peak"), m, b as f64, &size);
    }
    if let Some(Size(b)) = l.max_slow_bytes {
        let slow = |f: &TigrisFigures| (f.slow_read_bytes + f.slow_write_bytes) as f64;
        let m = stage_max(&|s| slow(&s.figures))
            .map_or_else(|| tigris("max_slow_bytes").map(|t| slow(&t.total)), Ok)?;
        push(
            &format!("{t}slow bytes (read + written)"),
            m,
            b as f64,
            &size,
        );
    }
    if let Some(b) = l.max_halo_share {
        let m = stage_max(&|s| halo_share(&s.figures)).map_or_else(
            || tigris("max_halo_share").map(|t| halo_share(&t.total)),
            Ok,
        )?;
        push(&format!("{t}halo share"), m, b, &|v| {
            format!("{:.2}%", v * 100.0)
        });
    }
    Ok(())
}

/// Every verdict for a report: the run's outcome, the whole-run budgets (`cli`, which wins over the
/// file's `[run]`), then each `[[stage]]` of the limits file (`limits`: its name and text).
pub fn verdicts(r: &Report, cli: Limits, limits: Option<(&str, &str)>) -> Result<Vec<Verdict>> {
    let file: Option<LimitsFile> = limits
        .map(|(name, text)| {
            toml::from_str(text).map_err(|e| {
                let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
                anyhow!(
                    "{name}:{line}: {}",
                    e.message().trim().replace("unknown field", "unknown key")
                )
            })
        })
        .transpose()?;
    let mut run = cli;
    let mut run_origin = CLI.to_string();
    if let (Some(spanned), Some((name, text))) =
        (file.as_ref().and_then(|f| f.run.as_ref()), limits)
    {
        let l = spanned.get_ref();
        let origin = format!("{name}:{}", line_of(text, spanned.span().start));
        if l.stage.is_some() || l.path.is_some() {
            bail!("{origin}: `stage` and `path` belong in a [[stage]] table, not in [run]");
        }
        run_origin = if run.is_empty() {
            origin
        } else {
            format!("command line and {origin}")
        };
        run = run.or(l);
    }
    let stages = file.as_ref().map_or(&[][..], |f| &f.stage[..]);
    if run.is_empty() && stages.is_empty() {
        bail!("no limits given: use --max-cycles, --max-ms, --max-stall-cycles, --max-fast-peak, --max-slow-bytes, --max-halo-share or --limits FILE.toml");
    }

    // A budget on a run that did not finish cleanly would pass on partial figures.
    // An idle end is complete: the firmware had nothing left to do.
    let clean = r.outcome.succeeded() || matches!(r.outcome, Outcome::Idle { .. });
    let mut out = vec![Verdict {
        name: "run outcome".into(),
        measured: r.outcome.brief(),
        budget: "a clean end".into(),
        pass: clean,
    }];
    evaluate(
        r,
        &Scope {
            label: String::new(),
            stages: None,
            origin: run_origin,
        },
        &run,
        &mut out,
    )?;

    for spanned in stages {
        let (name, text) = limits.expect("stages come from a limits file");
        let origin = format!("{name}:{}", line_of(text, spanned.span().start));
        let l = spanned.get_ref();
        let index = l
            .stage
            .ok_or_else(|| anyhow!("{origin}: a [[stage]] needs `stage = INDEX`"))?;
        if l.is_empty() {
            bail!("{origin}: the [[stage]] of stage {index} sets no limit");
        }
        let t = r.tigris.as_ref().ok_or_else(|| {
            anyhow!("{origin}: a limit for stage {index}, but the report has no `tigris` object (the firmware did not run the TiGrIS runtime)")
        })?;
        let matching: Vec<&TigrisStage> = t
            .stages
            .iter()
            .filter(|s| s.stage == index && !matches!(&l.path, Some(p) if *p != s.path))
            .collect();
        if matching.is_empty() {
            let have: Vec<String> = t
                .stages
                .iter()
                .map(|s| format!("{} {}", s.stage, s.path))
                .collect();
            let path = l
                .path
                .as_ref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            bail!(
                "{origin}: stage {index}{path} is not in the report (its stages: {})",
                have.join(", ")
            );
        }
        let label = format!("stage {index} {} ", matching[0].path);
        evaluate(
            r,
            &Scope {
                label,
                stages: Some(matching),
                origin,
            },
            l,
            &mut out,
        )?;
    }
    Ok(out)
}

/// The table printed on stdout.
pub fn text(r: &Report, verdicts: &[Verdict]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "tigris-sim check: {} on {}",
        r.firmware.file, r.board.name
    );
    let w = label_width(verdicts.iter().map(|v| v.name.len()), 5);
    let _ = writeln!(
        o,
        "  {:<w$}  {:>20}  {:>20}  result",
        "limit", "measured", "budget"
    );
    for v in verdicts {
        let _ = writeln!(
            o,
            "  {:<w$}  {:>20}  {:>20}  {}",
            v.name,
            v.measured,
            v.budget,
            if v.pass { "PASS" } else { "FAIL" }
        );
    }
    let failed = verdicts.iter().filter(|v| !v.pass).count();
    let _ = writeln!(
        o,
        "{} limits: {} passed, {failed} failed",
        verdicts.len(),
        verdicts.len() - failed
    );
    o
}

fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => o.push('?'),
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one testsuite, one testcase per limit, a `<failure>` for each limit exceeded.
pub fn junit(r: &Report, verdicts: &[Verdict]) -> String {
    let failed = verdicts.iter().filter(|v| !v.pass).count();
    let suite = xml_escape(&format!(
        "tigris-sim check: {} on {}",
        r.firmware.file, r.board.name
    ));
    let class = xml_escape(&format!("tigris-sim.{}", r.firmware.file));
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        o,
        "<testsuites name=\"tigris-sim check\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">",
        verdicts.len()
    );
    let _ = writeln!(o, "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">", verdicts.len());
    for v in verdicts {
        let name = xml_escape(&v.name);
        if v.pass {
            let _ = writeln!(o, "    <testcase classname=\"{class}\" name=\"{name}\"/>");
        } else {
            let msg = xml_escape(&format!(
                "{}: measured {}, budget {}",
                v.name, v.measured, v.budget
            ));
            let _ = writeln!(o, "    <testcase classname=\"{class}\" name=\"{name}\">");
            let _ = writeln!(
                o,
                "      <failure message=\"{msg}\" type=\"budget\">{msg}</failure>"
            );
            let _ = writeln!(o, "    </testcase>");
        }
    }
    o.push_str("  </testsuite>\n</testsuites>\n");
    o
}

/// `tigris-sim check`: 0 when every limit passes, 1 when one fails; errors (bad input) are main's 2.
pub fn run(args: CheckArgs) -> Result<ExitCode> {
    let report = crate::views::load_report(&args.report)?;
    let limits = match &args.limits {
        Some(path) => Some((
            path.as_str(),
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read limits file {path}"))?,
        )),
        None => None,
    };
    let size = |opt: &Option<String>, option: &str| -> Result<Option<Size>> {
        opt.as_deref()
            .map(|t| {
                tigris_targets::parse_size(t)
                    .map(Size)
                    .with_context(|| format!("--{option}"))
            })
            .transpose()
    };
    let cli = Limits {
        max_cycles: args.max_cycles,
        max_ms: args.max_ms,
        max_stall_cycles: args.max_stall_cycles,
        max_fast_peak: size(&args.max_fast_peak, "max-fast-peak")?,
        max_slow_bytes: size(&args.max_slow_bytes, "max-slow-bytes")?,
        max_halo_share: args.max_halo_share,
        ..Limits::default()
    };
    let verdicts = verdicts(&report, cli, limits.as_ref().map(|(p, t)| (*p, t.as_str())))?;
    if let Some(path) = &args.junit {
        std::fs::write(path, junit(&report, &verdicts))
            .with_context(|| format!("cannot write {path}"))?;
    }
    let shown = if args.json {
        serde_json::to_string_pretty(&verdicts)? + "\n"
    } else {
        text(&report, &verdicts)
    };
    let _ = std::io::Write::write_all(&mut std::io::stdout(), shown.as_bytes());
    Ok(if verdicts.iter().all(|v| v.pass) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAIL)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tigris_traces::testing::*;
    use tigris_traces::*;

    /// Figures of `cycles` with a fast peak and `slow` bytes each way; 1% of the cycles stalled on psram,
    /// 5% loaded the halo.
    fn arena_figures(cycles: u64, fast_peak: u32, slow: u64) -> TigrisFigures {
        TigrisFigures {
            fast_peak,
            slow_read_bytes: slow,
            slow_write_bytes: slow,
            stalls: vec![RegionCycles {
                region: "psram".into(),
                cycles: cycles / 100,
            }],
            halo_load_cycles: cycles / 20,
            ..figures(cycles)
        }
    }

    /// 2.4 M cycles (10 ms at 240 MHz); stages 0 (normal, twice: two inferences) and 3 (tiled, 4 tiles).
    pub(crate) fn sample() -> Report {
        let tiles = (0..4)
            .map(|index| tile(index, 0, arena_figures(250_000, 6144, 0)))
            .collect();
        let stages = vec![
            stage(0, "normal", 0, arena_figures(100_000, 4096, 1024), vec![]),
            stage(3, "tiled", 0, arena_figures(1_000_000, 6144, 8192), tiles),
            stage(0, "normal", 0, arena_figures(120_000, 5120, 1024), vec![]),
        ];
        let run = report(240_000_000, 2_400_000);
        Report {
            firmware: Firmware {
                sha256: "ab".repeat(32),
                ..run.firmware
            },
            board: BoardInfo {
                name: "esp32s3".into(),
                core: "xtensa-lx7".into(),
                ..run.board
            },
            totals: Totals {
                instructions: 2_000_000,
                cpi: 1.2,
                stall_cycles: 5_000,
                ..run.totals
            },
            functions: vec![
                function("conv", 2_000_000, 2_000_000, 1),
                function("main", 400_000, 400_000, 1),
            ],
            regions: vec![
                region("sram1", "sram"),
                RegionProfile {
                    stall_cycles: 5_000,
                    ..region("psram", "sram")
                },
            ],
            tigris: Some(TigrisProfile {
                runs: 2,
                events: 40,
                total: arena_figures(1_220_000, 6144, 10240),
                ..tigris(stages, vec![])
            }),
            ..run
        }
    }

    fn cli() -> Limits {
        Limits::default()
    }

    fn check(r: &Report, cli: Limits, file: Option<&str>) -> Result<Vec<Verdict>> {
        verdicts(r, cli, file.map(|t| ("limits.toml", t)))
    }

    fn failed(v: &[Verdict]) -> Vec<&str> {
        v.iter()
            .filter(|v| !v.pass)
            .map(|v| v.name.as_str())
            .collect()
    }

    #[test]
    fn whole_run_budgets_pass_at_the_limit_and_fail_above() {
        let r = sample();
        let at = Limits {
            max_cycles: Some(2_400_000),
            max_ms: Some(10.0),
            max_stall_cycles: Some(5_000),
            max_fast_peak: Some(Size(6144)),
            max_slow_bytes: Some(Size(20480)),
            max_halo_share: Some(0.05),
            ..cli()
        };
        let v = check(&r, at, None).unwrap();
        assert_eq!(v.len(), 7, "{v:?}");
        assert!(v.iter().all(|v| v.pass), "{v:?}");
        assert_eq!(
            (v[1].measured.as_str(), v[1].budget.as_str()),
            ("2,400,000", "2,400,000")
        );
        let over = Limits {
            max_cycles: Some(2_399_999),
            max_fast_peak: Some(Size(6143)),
            max_slow_bytes: Some(Size(20479)),
            ..cli()
        };
        let v = check(&r, over, None).unwrap();
        assert_eq!(
            failed(&v),
            [
                "cycles",
                "TiGrIS fast peak",
                "TiGrIS slow bytes (read + written)"
            ]
        );
    }

    #[test]
    fn a_run_that_did_not_exit_cleanly_fails() {
        let mut r = sample();
        r.outcome = Outcome::Fault;
        let v = check(
            &r,
            Limits {
                max_cycles: Some(u64::MAX),
                ..cli()
            },
            None,
        )
        .unwrap();
        assert_eq!(failed(&v), ["run outcome"]);
        assert_eq!(v[0].measured, "faulted");
    }

    #[test]
    fn stage_limits_take_the_worst_entry_of_the_stage() {
        let file = "[[stage]]\nstage = 0\nmax_cycles = 110_000\nmax_fast_peak = \"5K\"\n\n[[stage]]\nstage = 3\npath = \"tiled\"\nmax_halo_share = 0.04\nmax_stall_cycles = 10000\nmax_ms = 4.2\n";
        let v = check(&sample(), cli(), Some(file)).unwrap();
        let names: Vec<&str> = v.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "run outcome",
                "stage 0 normal cycles",
                "stage 0 normal fast peak",
                "stage 3 tiled simulated ms",
                "stage 3 tiled memory stall cycles",
                "stage 3 tiled halo share"
            ]
        );
        // Stage 0 ran 100,000 then 120,000 cycles; 1 M cycles at 240 MHz are 4.167 ms; the halo took 5%.
        assert_eq!(
            failed(&v),
            ["stage 0 normal cycles", "stage 3 tiled halo share"]
        );
        assert_eq!(v[1].measured, "120,000");
        assert_eq!(v[3].measured, "4.167 ms");
    }

    #[test]
    fn the_command_line_wins_over_the_file() {
        let file = "[run]\nmax_cycles = 1\nmax_ms = 100\n";
        let v = check(
            &sample(),
            Limits {
                max_cycles: Some(3_000_000),
                ..cli()
            },
            Some(file),
        )
        .unwrap();
        assert!(v.iter().all(|v| v.pass), "{v:?}");
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn bad_limits_files_name_the_file_line_and_key() {
        let r = sample();
        let err = |file: &str| check(&r, cli(), Some(file)).unwrap_err().to_string();
        assert_eq!(
            err("[run]\nmax_ms = 3\n\n[[stage]]\nstage = 3\nmax_cylces = 4\n"),
            "limits.toml:6: unknown key `max_cylces`, expected one of `stage`, `path`, `max_cycles`, `max_ms`, `max_stall_cycles`, `max_fast_peak`, `max_slow_bytes`, `max_halo_share`"
        );
        assert_eq!(
            err("[[stage]]\nstage = 3\nmax_fast_peak = \"64Q\"\n"),
            "limits.toml:3: `64Q` is not a size: `Q` after the number is not a unit (K, KiB, KB, M, MiB, MB, G, GiB, GB, B); examples: 4096, \"16K\", \"4MiB\""
        );
        assert_eq!(
            err("\n[[stage]]\nmax_ms = 1\n"),
            "limits.toml:2: a [[stage]] needs `stage = INDEX`"
        );
        assert_eq!(
            err("[[stage]]\nstage = 3\n"),
            "limits.toml:1: the [[stage]] of stage 3 sets no limit"
        );
        assert_eq!(
            err("[run]\nstage = 1\n"),
            "limits.toml:1: `stage` and `path` belong in a [[stage]] table, not in [run]"
        );
        assert_eq!(
            err("[run]\nmax_halo_share = -0.1\n"),
            "limits.toml:1: max_halo_share must be a non-negative number, not -0.1"
        );
        assert_eq!(
            err("[[stage]]\nstage = 3\npath = \"chain\"\nmax_ms = 1\n"),
            "limits.toml:1: stage 3 (chain) is not in the report (its stages: 0 normal, 3 tiled, 0 normal)"
        );
        assert!(err("").starts_with("no limits given"));
    }

    #[test]
    fn tigris_limits_need_a_tigris_object() {
        let mut r = sample();
        r.tigris = None;
        let e = check(
            &r,
            Limits {
                max_fast_peak: Some(Size(1)),
                ..cli()
            },
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("command line: --max-fast-peak is a TiGrIS limit, but the report has no `tigris` object"), "{e}");
        let e = check(&r, cli(), Some("[[stage]]\nstage = 0\nmax_cycles = 1\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "limits.toml:1: a limit for stage 0, but the report has no `tigris` object"
            ),
            "{e}"
        );
        // Limits that need no TiGrIS figures still work.
        assert!(check(
            &r,
            Limits {
                max_ms: Some(11.0),
                ..cli()
            },
            None
        )
        .is_ok());
    }

    #[test]
    fn junit_has_one_testcase_per_limit_and_escapes() {
        let mut r = sample();
        r.firmware.file = "a<b>&\"c'.elf".into();
        let v = check(
            &r,
            Limits {
                max_cycles: Some(1),
                max_ms: Some(100.0),
                ..cli()
            },
            None,
        )
        .unwrap();
        let x = junit(&r, &v);
        assert!(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tigris-sim check\" tests=\"3\" failures=\"1\""), "{x}");
        assert_eq!(x.matches("<testcase ").count(), 3);
        assert_eq!(x.matches("<failure ").count(), 1);
        assert!(
            x.contains("classname=\"tigris-sim.a&lt;b&gt;&amp;&quot;c&apos;.elf\""),
            "{x}"
        );
        assert!(
            x.contains("message=\"cycles: measured 2,400,000, budget 1\""),
            "{x}"
        );
        assert_eq!(xml_escape("x\u{1}y\tz"), "x?y\tz");
    }

    #[test]
    fn text_lists_every_limit_with_its_result() {
        let r = sample();
        let t = text(
            &r,
            &check(
                &r,
                Limits {
                    max_cycles: Some(1),
                    ..cli()
                },
                None,
            )
            .unwrap(),
        );
        assert!(
            t.contains("cycles") && t.contains("2,400,000") && t.contains("FAIL"),
            "{t}"
        );
        assert!(t.ends_with("2 limits: 1 passed, 1 failed\n"), "{t}");
    }

    /// Review D3: a stage path longer than a format width can be (65,535) is printed whole, and
    /// the other rows keep a readable width.
    #[test]
    fn a_huge_stage_path_does_not_stretch_or_break_the_table() {
        let mut r = sample();
        let path = "x".repeat(70_001);
        r.tigris.as_mut().unwrap().stages[1].path = path.clone();
        let file = format!("[[stage]]\nstage = 3\npath = \"{path}\"\nmax_ms = 100\n");
        let t = text(&r, &check(&r, cli(), Some(&file)).unwrap());
        assert!(
            t.contains(&format!("stage 3 {path} simulated ms")),
            "{}",
            &t[..200]
        );
        let outcome = t.lines().find(|l| l.contains("run outcome")).unwrap();
        assert!(outcome.len() < 200, "{outcome}");
    }
}
