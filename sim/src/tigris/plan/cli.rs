//! The `tigris-sim plan` subcommand.

use super::model::Plan;

/// `tigris-sim plan ...`
#[derive(clap::Subcommand)]
pub(crate) enum PlanCommand {
    /// Decode a TiGrIS .tgrs plan (schema 1-10): header, tensors, stages with ops and tiling, and
    /// what the planner predicted. Exit code 2 when the file is not a valid plan.
    Inspect {
        /// The .tgrs plan file.
        file: String,
        /// Print the decoded plan as JSON (layout in docs/tigris.md).
        #[arg(long)]
        json: bool,
    },
}

/// Run a `plan` subcommand; an error (bad file) makes the binary exit with code 2.
pub(crate) fn run(cmd: PlanCommand) -> anyhow::Result<()> {
    match cmd {
        PlanCommand::Inspect { file, json } => {
            let data =
                std::fs::read(&file).map_err(|e| anyhow::anyhow!("cannot read {file}: {e}"))?;
            let plan = Plan::parse(&data)
                .map_err(|e| anyhow::anyhow!("{file}: invalid TiGrIS plan: {e}"))?;
            let text = if json {
                let mut s = serde_json::to_string_pretty(&plan.to_json()?)?;
                s.push('\n');
                s
            } else {
                let shown = std::path::Path::new(&file)
                    .file_name()
                    .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
                plan.to_text(&shown)
            };
            // A closed pipe (`| head`) is not worth a panic.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
            Ok(())
        }
    }
}
