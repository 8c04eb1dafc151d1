//! The files a report is turned into (plots, Perfetto trace, folded stacks), for `run` and for
//! `export` of a recorded report.

use anyhow::{anyhow, Context, Result};
use tigris_traces::Report;

/// A recorded report, or an error naming the file.
pub fn load_report(path: &str) -> Result<Report> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read report {path}"))?;
    Report::from_json(&text).map_err(|e| anyhow!("{path}: {e}"))
}

#[derive(clap::Args, Default)]
pub struct ViewOutputs {
    /// Write the plots (SVG and PNG) into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<String>,
    /// Write a Chrome/Perfetto trace (open it in ui.perfetto.dev).
    #[arg(long, value_name = "FILE.json")]
    pub perfetto: Option<String>,
    /// Write folded stacks (`outer;inner cycles`) for flame-graph tools.
    #[arg(long, value_name = "FILE")]
    pub folded: Option<String>,
}

impl ViewOutputs {
    pub fn is_empty(&self) -> bool {
        self.plots.is_none() && self.perfetto.is_none() && self.folded.is_none()
    }

    /// Write every output asked for; returns the files written.
    pub fn write(&self, report: &Report) -> Result<Vec<String>> {
        let mut written = Vec::new();
        let write = |path: &str, text: String, written: &mut Vec<String>| -> Result<()> {
            std::fs::write(path, text).with_context(|| format!("cannot write {path}"))?;
            written.push(path.to_string());
            Ok(())
        };
        if let Some(dir) = &self.plots {
            let files = tigris_traces::plots::write_plots(report, std::path::Path::new(dir))?;
            written.extend(files.iter().map(|f| f.display().to_string()));
        }
        if let Some(path) = &self.perfetto {
            write(
                path,
                tigris_traces::perfetto::trace_json(report),
                &mut written,
            )?;
        }
        if let Some(path) = &self.folded {
            write(path, tigris_traces::folded::folded(report), &mut written)?;
        }
        Ok(written)
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
    let report = load_report(&args.report)?;
    for file in args.outputs.write(&report)? {
        println!("wrote {file}");
    }
    Ok(())
}
