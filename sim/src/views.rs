//! The files a report is turned into (plots, Perfetto trace, folded stacks), for `run` and for
//! `export` of a recorded report.

use anyhow::{Context, Result};
use tigris_traces::Report;

/// A recorded report, or an error naming the file.
pub fn load_report(path: &str) -> Result<Report> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read report {path}"))?;
    Report::from_json(&text).with_context(|| path.to_string())
}

#[derive(clap::Args, Default)]
pub struct ViewOutputs {
    /// Write the plots (SVG and PNG) into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<String>,
    /// Write a Chrome/Perfetto trace (open it in ui.perfetto.dev); `-`: stdout.
    #[arg(long, value_name = "FILE.json")]
    pub perfetto: Option<String>,
    /// Write folded stacks (`outer;inner cycles`) for flame-graph tools; `-`: stdout.
    #[arg(long, value_name = "FILE")]
    pub folded: Option<String>,
}

/// The path that means standard output.
pub const STDOUT: &str = "-";

/// Write `text` to the file at `path`, or to stdout for `-` (a closed pipe ends quietly).
pub fn write_text(path: &str, text: &str) -> Result<()> {
    if path == STDOUT {
        let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {path}"))
}

/// Refuse, before a run, output paths that cannot be written: a directory, a file in a folder
/// that does not exist, two outputs on stdout (`what` names the option).
pub fn check_paths<'a>(paths: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<()> {
    let mut on_stdout = None;
    for (what, path) in paths {
        if path == STDOUT {
            if let Some(first) = on_stdout.replace(what) {
                anyhow::bail!("{first} and {what} cannot both write to stdout (`-`)");
            }
            continue;
        }
        if std::path::Path::new(path).is_dir() {
            anyhow::bail!("{what} {path}: is a directory, not a file");
        }
        folder_exists(what, path)?;
    }
    Ok(())
}

/// Refuse `path` when the folder it is in does not exist (`what` names the option).
fn folder_exists(what: &str, path: &str) -> Result<()> {
    let parent = std::path::Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty());
    if let Some(d) = parent.filter(|d| !d.is_dir()) {
        anyhow::bail!("{what} {path}: the folder {} does not exist", d.display());
    }
    Ok(())
}

impl ViewOutputs {
    pub fn is_empty(&self) -> bool {
        self.plots.is_none() && self.perfetto.is_none() && self.folded.is_none()
    }

    /// The file outputs asked for: (option, path).
    pub fn files(&self) -> Vec<(&'static str, &str)> {
        [("--perfetto", &self.perfetto), ("--folded", &self.folded)]
            .into_iter()
            .filter_map(|(what, p)| Some((what, p.as_deref()?)))
            .collect()
    }

    /// Check the paths before a run (`check_paths`); the plots folder may be made, its parent
    /// must exist.
    pub fn check(&self, more: &[(&'static str, &str)]) -> Result<()> {
        if let Some(dir) = &self.plots {
            let p = std::path::Path::new(dir);
            if p.exists() && !p.is_dir() {
                anyhow::bail!("--plots {dir}: is a file, not a folder");
            }
            folder_exists("--plots", dir)?;
        }
        check_paths(more.iter().copied().chain(self.files()))
    }

    /// Whether an output goes to stdout (`-`).
    pub fn uses_stdout(&self) -> bool {
        self.files().iter().any(|(_, p)| *p == STDOUT)
    }

    /// Write every output asked for, each independently: the files written, and the errors of
    /// those that could not be.
    pub fn write(&self, report: &Report) -> (Vec<String>, Vec<anyhow::Error>) {
        let (mut written, mut failed) = (Vec::new(), Vec::new());
        if let Some(dir) = &self.plots {
            match tigris_traces::plots::write_plots(report, std::path::Path::new(dir)) {
                Ok(files) => written.extend(files.iter().map(|f| f.display().to_string())),
                Err(e) => failed.push(
                    anyhow::Error::new(e).context(format!("cannot write the plots into {dir}")),
                ),
            }
        }
        let texts = [
            (
                &self.perfetto,
                tigris_traces::perfetto::trace_json as fn(&Report) -> String,
            ),
            (&self.folded, tigris_traces::folded::folded),
        ];
        for (path, render) in texts {
            let Some(path) = path else { continue };
            match write_text(path, &render(report)) {
                Ok(()) if path != STDOUT => written.push(path.clone()),
                Ok(()) => {}
                Err(e) => failed.push(e),
            }
        }
        (written, failed)
    }
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// A report written by `tigris-sim run --report`.
    report: String,
    #[command(flatten)]
    outputs: ViewOutputs,
}

/// `tigris-sim export`: the views of a recorded run.
pub fn export(args: ExportArgs) -> Result<()> {
    if args.outputs.is_empty() {
        anyhow::bail!("nothing to export: give --plots DIR, --perfetto FILE and/or --folded FILE");
    }
    args.outputs.check(&[])?;
    let report = load_report(&args.report)?;
    let (written, mut failed) = args.outputs.write(&report);
    for file in written {
        if args.outputs.uses_stdout() {
            eprintln!("wrote {file}");
        } else {
            println!("wrote {file}");
        }
    }
    match failed.pop() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
