//! `tigris-sim compare`: two reports side by side (totals, regions, TiGrIS stages and tiles, top
//! functions), each figure with the difference B − A and its percentage of A.

use crate::check::halo_share;
use crate::summary::{label_width, thousands};
use crate::views::load_report;
use anyhow::Result;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fmt::Write;
use std::process::ExitCode;
use tigris_traces::{Report, TigrisFigures, TigrisStage};

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The first report (A, the baseline).
    a: String,
    /// The second report (B); differences are B − A.
    b: String,
    /// Functions to compare: the union of each run's top N by self cycles.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Also draw the comparison into STEM.svg and STEM.png.
    #[arg(long, value_name = "STEM")]
    plot: Option<String>,
    /// Print the comparison as JSON (`lines`: the verdict and notes; `sections`: titled rows of
    /// `label`, `a`, `b`, `difference`, `percent`) instead of text.
    #[arg(long)]
    json: bool,
}

/// The comparison as it is written: its text, and the same as data (lines outside the tables,
/// and each table's rows).
#[derive(Default)]
pub struct Comparison {
    pub text: String,
    partial: String,
    lines: Vec<String>,
    sections: Vec<Value>,
}

impl Write for Comparison {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.text.push_str(s);
        for c in s.chars() {
            if c == '\n' {
                let line = std::mem::take(&mut self.partial);
                if !line.trim().is_empty() {
                    self.lines.push(line.trim().to_string());
                }
            } else {
                self.partial.push(c);
            }
        }
        Ok(())
    }
}

impl Comparison {
    pub fn json(&self) -> Value {
        json!({"lines": self.lines, "sections": self.sections})
    }
}

/// How a figure is printed and how its difference reads.
#[derive(Clone, Copy)]
enum Kind {
    Count,
    Bytes,
    Ms,
    Cpi,
    /// A fraction shown as a percentage; its difference is in percentage points.
    Share,
}

struct Row {
    label: String,
    kind: Kind,
    a: Option<f64>,
    b: Option<f64>,
}

fn row(label: impl Into<String>, kind: Kind, a: Option<f64>, b: Option<f64>) -> Row {
    Row {
        label: label.into(),
        kind,
        a,
        b,
    }
}

fn value(kind: Kind, v: f64) -> String {
    match kind {
        Kind::Count => thousands(v as u64),
        Kind::Bytes => format!("{} B", thousands(v as u64)),
        Kind::Ms => format!("{v:.3} ms"),
        Kind::Cpi => format!("{v:.3}"),
        Kind::Share => format!("{:.2}%", v * 100.0),
    }
}

fn difference(kind: Kind, d: f64) -> String {
    let sign = if d < 0.0 { "-" } else { "+" };
    match kind {
        Kind::Share => format!("{sign}{:.2} pp", d.abs() * 100.0),
        _ => format!("{sign}{}", value(kind, d.abs())),
    }
}

/// The rows of one section as a table; a figure absent from one run shows as `-`.
fn table(out: &mut Comparison, title: &str, rows: &[Row]) {
    if rows.is_empty() {
        return;
    }
    let percent = |r: &Row| match (r.a, r.b) {
        (Some(a), Some(b)) if a != 0.0 && !matches!(r.kind, Kind::Share) => {
            Some(100.0 * (b - a) / a)
        }
        _ => None,
    };
    out.sections.push(json!({
        "title": title,
        "rows": rows.iter().map(|r| json!({
            "label": r.label, "a": r.a, "b": r.b,
            "difference": r.a.zip(r.b).map(|(a, b)| b - a), "percent": percent(r),
        })).collect::<Vec<_>>(),
    }));
    let o = &mut out.text;
    let w = label_width(rows.iter().map(|r| r.label.len()), title.len());
    let _ = writeln!(
        o,
        "\n{title:<w$}  {:>16}  {:>16}  {:>16}  {:>8}",
        "A", "B", "B - A", "diff%"
    );
    for r in rows {
        let show = |v: Option<f64>| v.map_or("-".to_string(), |v| value(r.kind, v));
        let (diff, pct) = match (r.a, r.b) {
            (Some(a), Some(b)) => {
                let pct = match r.kind {
                    Kind::Share => String::new(),
                    _ if a == 0.0 => (if b == 0.0 { "0.0%" } else { "new" }).to_string(),
                    _ => format!("{:+.1}%", 100.0 * (b - a) / a),
                };
                (difference(r.kind, b - a), pct)
            }
            _ => (String::new(), String::new()),
        };
        let _ = writeln!(
            o,
            "  {:<w$}{:>16}  {:>16}  {:>16}  {:>8}",
            r.label,
            show(r.a),
            show(r.b),
            diff,
            pct,
            w = w
        );
    }
}

fn stage_rows(prefix: &str, a: Option<&TigrisFigures>, b: Option<&TigrisFigures>) -> Vec<Row> {
    let get = |f: Option<&TigrisFigures>, g: &dyn Fn(&TigrisFigures) -> f64| f.map(g);
    vec![
        row(
            format!("{prefix} cycles"),
            Kind::Count,
            get(a, &|f| f.cycles as f64),
            get(b, &|f| f.cycles as f64),
        ),
        row(
            format!("{prefix} fast peak"),
            Kind::Bytes,
            get(a, &|f| f.fast_peak as f64),
            get(b, &|f| f.fast_peak as f64),
        ),
        row(
            format!("{prefix} loaded"),
            Kind::Bytes,
            get(a, &|f| f.load_bytes as f64),
            get(b, &|f| f.load_bytes as f64),
        ),
        row(
            format!("{prefix} spilled"),
            Kind::Bytes,
            get(a, &|f| f.spill_bytes as f64),
            get(b, &|f| f.spill_bytes as f64),
        ),
        row(
            format!("{prefix} halo share"),
            Kind::Share,
            get(a, &halo_share),
            get(b, &halo_share),
        ),
    ]
}

/// Stage entries keyed by (stage, path, occurrence): several inferences repeat a stage.
fn keyed(stages: &[TigrisStage]) -> Vec<((u16, &str, usize), &TigrisStage)> {
    let mut seen: HashMap<(u16, &str), usize> = HashMap::new();
    stages
        .iter()
        .map(|s| {
            let n = seen.entry((s.stage, s.path.as_str())).or_default();
            *n += 1;
            ((s.stage, s.path.as_str(), *n), s)
        })
        .collect()
}

/// The TiGrIS section: total, stages matched by index and path, their tiles where indices match.
fn tigris(o: &mut Comparison, a: &Report, b: &Report) {
    let (ta, tb) = match (&a.tigris, &b.tigris) {
        (None, None) => return,
        (Some(ta), Some(tb)) => (ta, tb),
        (ta, _) => {
            let _ = writeln!(
                o,
                "\nTiGrIS: only run {} ran the TiGrIS runtime",
                if ta.is_some() { "A" } else { "B" }
            );
            return;
        }
    };
    let mut rows = stage_rows("total", Some(&ta.total), Some(&tb.total));
    let (ka, kb) = (keyed(&ta.stages), keyed(&tb.stages));
    let mut notes = Vec::new();
    let name = |(stage, path, n): (u16, &str, usize)| {
        if n > 1 {
            format!("stage {stage} {path} #{n}")
        } else {
            format!("stage {stage} {path}")
        }
    };
    for (key, sa) in &ka {
        let Some((_, sb)) = kb.iter().find(|(k, _)| k == key) else {
            notes.push(format!("{} only in A", name(*key)));
            continue;
        };
        rows.extend(stage_rows(
            &name(*key),
            Some(&sa.figures),
            Some(&sb.figures),
        ));
        for t in &sa.tiles {
            if let Some(u) = sb.tiles.iter().find(|u| u.index == t.index) {
                rows.extend(stage_rows(
                    &format!("{} tile {}", name(*key), t.index),
                    Some(&t.figures),
                    Some(&u.figures),
                ));
            }
        }
        if sa.tiles.len() != sb.tiles.len() {
            notes.push(format!(
                "{}: {} tiles in A, {} in B (tiles compared by index)",
                name(*key),
                sa.tiles.len(),
                sb.tiles.len()
            ));
        }
    }
    for (key, _) in kb.iter().filter(|(k, _)| !ka.iter().any(|(j, _)| j == k)) {
        notes.push(format!("{} only in B", name(*key)));
    }
    table(o, "TiGrIS", &rows);
    for n in notes {
        let _ = writeln!(o, "  note: {n}");
    }
}

/// The whole comparison, as text and data.
pub fn compare(a: &Report, b: &Report, top: usize) -> Comparison {
    let mut o = Comparison::default();
    for (tag, r) in [("A", a), ("B", b)] {
        let sha = r.firmware.sha256.get(..12).unwrap_or(&r.firmware.sha256);
        let _ = writeln!(
            o,
            "{tag}: {} (sha256 {sha}) on {}{} ({} @ {} MHz), {}",
            r.firmware.file,
            r.board.name,
            r.board.settings_text(),
            r.board.core,
            r.board.clock_hz as f64 / 1e6,
            r.outcome.brief()
        );
    }
    if a.board.settings != b.board.settings {
        let _ = writeln!(o, "note: the board settings (--set) differ");
    }
    if a.firmware.sha256 != b.firmware.sha256 {
        let _ = writeln!(
            o,
            "note: different firmware (sha256 differs): {} and {}",
            a.firmware.file, b.firmware.file
        );
    }
    if a.board.name != b.board.name {
        let _ = writeln!(
            o,
            "note: different boards: {} and {}",
            a.board.name, b.board.name
        );
    } else if a.board.clock_hz != b.board.clock_hz {
        let _ = writeln!(
            o,
            "note: same board at different clocks: {} and {} Hz",
            a.board.clock_hz, b.board.clock_hz
        );
    }
    let (ca, cb) = (a.totals.cycles, b.totals.cycles);
    // Cycles rank runs at one clock; at different clocks the simulated time does.
    let same_clock = a.board.clock_hz == b.board.clock_hz
        && a.board.clock_changes.is_empty()
        && b.board.clock_changes.is_empty();
    let (verdict, pct) = if same_clock {
        let verdict = match cb.cmp(&ca) {
            std::cmp::Ordering::Less => format!("B is faster: {} fewer cycles", thousands(ca - cb)),
            std::cmp::Ordering::Greater => {
                format!("B is slower: {} more cycles", thousands(cb - ca))
            }
            std::cmp::Ordering::Equal => "B takes as many cycles as A".to_string(),
        };
        (
            verdict,
            (ca > 0).then(|| 100.0 * (cb as f64 - ca as f64) / ca as f64),
        )
    } else {
        let (ta, tb) = (a.totals.seconds * 1e3, b.totals.seconds * 1e3);
        let verdict = match tb.total_cmp(&ta) {
            std::cmp::Ordering::Less => {
                format!("B is faster: {:.3} ms less simulated time", ta - tb)
            }
            std::cmp::Ordering::Greater => {
                format!("B is slower: {:.3} ms more simulated time", tb - ta)
            }
            std::cmp::Ordering::Equal => "B takes as much simulated time as A".to_string(),
        };
        (verdict, (ta > 0.0).then(|| 100.0 * (tb - ta) / ta))
    };
    let pct = pct.map(|p| format!(" ({p:+.1}%)")).unwrap_or_default();
    let _ = writeln!(o, "{verdict}{pct}");

    let (ta, tb) = (&a.totals, &b.totals);
    let f = |v: u64| Some(v as f64);
    table(
        &mut o,
        "totals",
        &[
            row("cycles", Kind::Count, f(ta.cycles), f(tb.cycles)),
            row(
                "simulated time",
                Kind::Ms,
                Some(ta.seconds * 1e3),
                Some(tb.seconds * 1e3),
            ),
            row(
                "instructions",
                Kind::Count,
                f(ta.instructions),
                f(tb.instructions),
            ),
            row("CPI", Kind::Cpi, Some(ta.cpi), Some(tb.cpi)),
            row(
                "memory stall cycles",
                Kind::Count,
                f(ta.stall_cycles),
                f(tb.stall_cycles),
            ),
        ],
    );

    // Regions by name, A's order then B's others; regions that stalled in neither run are left out.
    let stall = |r: &Report, name: &str| {
        r.regions
            .iter()
            .find(|g| g.name == name)
            .map(|g| g.stall_cycles as f64)
    };
    let mut names: Vec<&str> = a.regions.iter().map(|g| g.name.as_str()).collect();
    names.extend(
        b.regions
            .iter()
            .map(|g| g.name.as_str())
            .filter(|n| !a.regions.iter().any(|g| g.name == *n)),
    );
    let regions: Vec<Row> = names
        .into_iter()
        .map(|n| row(n, Kind::Count, stall(a, n), stall(b, n)))
        .filter(|r| r.a.unwrap_or(0.0) > 0.0 || r.b.unwrap_or(0.0) > 0.0)
        .collect();
    table(&mut o, "stall cycles by region", &regions);

    tigris(&mut o, a, b);

    // Functions by name: the union of both top lists (a report lists them by self cycles), the larger
    // self cycles first.
    let self_cycles = |r: &Report, name: &str| {
        r.functions
            .iter()
            .find(|g| g.name == name)
            .map(|g| g.self_cycles as f64)
    };
    let mut names: Vec<&str> = Vec::new();
    for g in a
        .functions
        .iter()
        .take(top)
        .chain(b.functions.iter().take(top))
    {
        if !names.contains(&g.name.as_str()) {
            names.push(&g.name);
        }
    }
    let mut functions: Vec<Row> = names
        .into_iter()
        .map(|n| row(n, Kind::Count, self_cycles(a, n), self_cycles(b, n)))
        .collect();
    let larger = |r: &Row| r.a.unwrap_or(0.0).max(r.b.unwrap_or(0.0));
    functions.sort_by(|x, y| larger(y).total_cmp(&larger(x)));
    table(&mut o, "self cycles by function", &functions);
    o
}

pub fn run(args: CompareArgs) -> Result<ExitCode> {
    let (a, b) = (load_report(&args.a)?, load_report(&args.b)?);
    let c = compare(&a, &b, args.top);
    let shown = if args.json {
        serde_json::to_string_pretty(&c.json())? + "\n"
    } else {
        c.text
    };
    let _ = std::io::Write::write_all(&mut std::io::stdout(), shown.as_bytes());
    if let Some(stem) = &args.plot {
        let name = |path: &str| {
            std::path::Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let (label_a, label_b) = (
            format!("A: {}", name(&args.a)),
            format!("B: {}", name(&args.b)),
        );
        for file in tigris_traces::plots::write_compare_plot(
            &a,
            &b,
            (&label_a, &label_b),
            std::path::Path::new(stem),
        )? {
            println!("wrote {}", file.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tests::sample;

    #[test]
    fn the_same_run_shows_no_difference_and_no_note() {
        let r = sample();
        let t = compare(&r, &r, 10).text;
        assert!(!t.contains("note:"), "{t}");
        assert!(t.contains("B takes as many cycles as A"), "{t}");
        assert!(t.contains("  cycles") && t.contains("+0.0%"), "{t}");
    }

    #[test]
    fn different_clocks_rank_by_simulated_time_and_json_has_the_rows() {
        let a = sample();
        let mut b = sample();
        b.board.clock_hz = a.board.clock_hz * 2;
        b.totals.seconds = a.totals.seconds / 2.0;
        b.board.settings = vec!["core.clock_hz=480000000".into()];
        let c = compare(&a, &b, 10);
        assert!(
            c.text.contains("B is faster:") && c.text.contains("ms less simulated time"),
            "{}",
            c.text
        );
        assert!(
            c.text.contains("--set core.clock_hz=480000000 (")
                && c.text.contains("note: the board settings (--set) differ"),
            "{}",
            c.text
        );
        let j = c.json();
        assert!(j["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().starts_with("B is faster")));
        let totals = &j["sections"][0];
        assert_eq!(totals["title"], "totals");
        let time = totals["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == "simulated time")
            .unwrap();
        assert_eq!(time["percent"], -50.0);
    }

    #[test]
    fn differences_notes_and_unmatched_entries() {
        let a = sample();
        let mut b = sample();
        b.firmware.sha256 = "cd".repeat(32);
        b.board.name = "stm32h753".into();
        b.totals.cycles = 1_800_000;
        b.functions[1].name = "other".into();
        let tb = b.tigris.as_mut().unwrap();
        tb.stages[1].figures.cycles = 750_000;
        tb.stages[1].tiles.truncate(3);
        tb.stages.remove(2);
        let t = compare(&a, &b, 10).text;
        assert!(
            t.contains("note: different firmware (sha256 differs)"),
            "{t}"
        );
        assert!(
            t.contains("note: different boards: esp32s3 and stm32h753"),
            "{t}"
        );
        assert!(
            t.contains("B is faster: 600,000 fewer cycles (-25.0%)"),
            "{t}"
        );
        let line = |label: &str| {
            t.lines()
                .find(|l| l.trim_start().starts_with(label))
                .unwrap_or_else(|| panic!("no {label} in {t}"))
                .to_string()
        };
        assert!(
            line("stage 3 tiled cycles")
                .ends_with("1,000,000           750,000          -250,000    -25.0%"),
            "{t}"
        );
        assert!(line("stage 3 tiled halo share").contains("5.00%"), "{t}");
        assert!(
            line("stage 3 tiled tile 2 cycles").contains("250,000"),
            "{t}"
        );
        assert!(!t.contains("tile 3 cycles"), "{t}");
        assert!(
            t.contains("note: stage 3 tiled: 4 tiles in A, 3 in B"),
            "{t}"
        );
        assert!(t.contains("note: stage 0 normal #2 only in A"), "{t}");
        // Functions are matched by name; one missing from a run shows `-`.
        assert!(line("main").contains("400,000                 -"), "{t}");
        assert!(line("other").contains("-           400,000"), "{t}");
        assert!(line("psram").contains("5,000"), "{t}");
        assert!(
            !t.contains("sram1"),
            "regions that stalled in neither run are left out: {t}"
        );
    }

    /// Review D2: a label longer than a format width can be (65,535: a 70,001-character C
    /// function) is printed whole, and the other rows keep a readable width.
    #[test]
    fn a_huge_function_name_does_not_stretch_or_break_the_table() {
        let mut a = sample();
        let name = "f".repeat(70_001);
        a.functions[0].name = name.clone();
        let t = compare(&a, &a, 10).text;
        assert!(t.lines().any(|l| l.trim_start().starts_with(&name)));
        let cycles = t
            .lines()
            .find(|l| l.trim_start().starts_with("cycles"))
            .unwrap();
        assert!(cycles.len() < 200, "{cycles}");
    }

    #[test]
    fn a_run_without_tigris_is_said() {
        let a = sample();
        let mut b = sample();
        b.tigris = None;
        assert!(compare(&a, &b, 10)
            .text
            .contains("TiGrIS: only run A ran the TiGrIS runtime"));
    }
}
