//! `scenario-engine diff BEFORE AFTER [--fail-on regression] [--markdown FILE]
//! [--min-score-delta X]`: compares two pipeline runs or two suite results scenario by scenario
//! and prints the regressions, improvements, flipped checks and new/missing scenarios. Exit
//! codes: 0 (also with regressions unless `--fail-on regression`), 1 regressions with
//! `--fail-on regression`, 2 unreadable, invalid or mismatched input, 3 the Markdown file could
//! not be written.

use std::path::PathBuf;

use reports::diff::diff;
use reports::load::load;
use reports::render::{DiffView, diff_markdown};
use reports::terminal;

use crate::error::{CliError, CommandResult, Outcome};
use reports::display_name;

/// Flags of `diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The earlier results (pipeline JSONL or suite JSON).
    pub before: PathBuf,
    /// The later results, of the same kind.
    pub after: PathBuf,
    /// Exit 1 when the comparison finds a regression.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Write the comparison as Markdown (for a pull-request comment) to this file.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Count a score drop larger than this as a regression (0–10 for runs, 0–100 for suites).
    #[arg(long)]
    pub min_score_delta: Option<f64>,
}

/// `--fail-on`: what makes `diff` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FailOn {
    /// Any regression.
    Regression,
}

/// Runs the command.
///
/// # Errors
/// Unreadable, invalid or mismatched input (exit 2), or a Markdown file that cannot be written
/// (exit 3). Regressions under `--fail-on regression` are [`Outcome::Failed`].
pub(crate) fn execute(args: Args) -> CommandResult {
    if args
        .min_score_delta
        .is_some_and(|d| !d.is_finite() || d < 0.0)
    {
        return Err(CliError::invalid(
            "--min-score-delta must be a non-negative number",
        ));
    }
    let before = load(&args.before).map_err(CliError::invalid)?;
    let after = load(&args.after).map_err(CliError::invalid)?;
    let d = diff(&before, &after, args.min_score_delta).map_err(CliError::invalid)?;
    let view = DiffView::new(
        &d,
        &display_name(&args.before),
        &display_name(&args.after),
        args.min_score_delta,
    );
    out!("{}", terminal::diff(&view));
    if let Some(path) = &args.markdown {
        super::report::write(path, diff_markdown(&view))?;
    }
    if args.fail_on.is_some() && d.has_regressions() {
        Ok(Outcome::Failed)
    } else {
        Ok(Outcome::Success)
    }
}
