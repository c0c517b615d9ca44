//! `scenario-engine report RESULTS [--html FILE] [--markdown FILE] [--axes a,b]`: summarises a
//! pipeline run (JSONL) or a bot-suite result (`test --json`) as terminal tables, and optionally
//! as a self-contained HTML page and a Markdown file. Exit codes: 0 ok, 2 unreadable or invalid
//! input (with file and line), 3 an output file could not be written.

use std::path::{Path, PathBuf};

use reports::load::{Results, load};
use reports::pipeline::{self, PipelineOptions};
use reports::render;
use reports::terminal;

use crate::error::{CliError, CommandResult, Outcome};
use reports::display_name;
use reports::suite;

/// Flags of `report`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A pipeline output (JSONL) or a suite result (`test --json`).
    pub results: PathBuf,
    /// Write a self-contained HTML report to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Write a Markdown report to this file.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// The two parameters of the acceptance heatmap, `rows,columns` (pipeline runs).
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub axes: Option<Vec<String>>,
    /// Accept threshold (0–10) to draw; default: inferred from the records' decisions.
    #[arg(long, value_name = "SCORE", value_parser = super::accept_threshold)]
    pub threshold: Option<f64>,
}

/// Runs the command.
///
/// # Errors
/// Invalid flags or input (exit 2), or an output file that cannot be rendered or written (exit 3).
pub(crate) fn execute(args: Args) -> CommandResult {
    let axes = match args.axes.as_deref() {
        None => None,
        Some([a, b]) => Some((a.clone(), b.clone())),
        Some(_) => {
            return Err(CliError::invalid(
                "--axes takes exactly two parameter names, e.g. topic,cs_ratio",
            ));
        }
    };
    if args.threshold.is_some_and(|t| !(0.0..=10.0).contains(&t)) {
        return Err(CliError::invalid("--threshold must be between 0 and 10"));
    }
    let results = load(&args.results).map_err(CliError::invalid)?;
    let source = display_name(&args.results);
    let outputs = match results {
        Results::Pipeline(run) => {
            let options = PipelineOptions {
                threshold: args.threshold,
                axes,
            };
            let collected = pipeline::collect(&run, &options).map_err(CliError::invalid)?;
            let report = pipeline::build(&source, &collected);
            out!("{}", terminal::pipeline(&report));
            (
                args.html.map(|p| (p, render::pipeline_html(&report))),
                args.markdown
                    .map(|p| (p, render::pipeline_markdown(&report))),
            )
        }
        Results::Failures(path) => {
            let tally = runlog::FailureTally::read(&path).map_err(CliError::invalid)?;
            let view = reports::failures::FailuresView::alone(&tally, &source);
            out!(
                "{source}: an errors file: {} failed scenario(s); `report` on the run's output \
                 file shows them beside its records, with the yield over the scenarios tried",
                view.failed
            );
            out!("{}", terminal::failures(&view));
            if args.html.is_some() || args.markdown.is_some() {
                return Err(CliError::invalid(
                    "--html and --markdown report a run's output file (with its failures), not \
                     an errors file alone",
                ));
            }
            (None, None)
        }
        Results::Suite(result) => {
            let report = suite::build(&source, &result);
            out!("{}", terminal::suite(&report));
            (
                args.html.map(|p| (p, render::suite_html(&report))),
                args.markdown.map(|p| (p, render::suite_markdown(&report))),
            )
        }
    };
    for (path, rendered) in [outputs.0, outputs.1].into_iter().flatten() {
        write(&path, rendered)?;
    }
    Ok(Outcome::Success)
}

/// Writes a rendered report to `path`, saying so.
pub(super) fn write(
    path: &Path,
    rendered: Result<String, render::RenderError>,
) -> Result<(), CliError> {
    let text = rendered.map_err(CliError::run)?;
    std::fs::write(path, text).map_err(|e| CliError::write(path, e))?;
    errln!("wrote {}", path.display());
    Ok(())
}
