//! `scenario-engine diff BEFORE AFTER [--fail-on regression] [--markdown FILE]
//! [--min-score-delta X]`: compares two pipeline runs or two suite results scenario by scenario
//! and prints the regressions, improvements, flipped checks and new/missing scenarios. Exit
//! codes: 0 (also with regressions unless `--fail-on regression`), 1 regressions with
//! `--fail-on regression`, 2 unreadable, invalid or mismatched input, 3 the Markdown file could
//! not be written.

use std::path::PathBuf;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};

use crate::exit;
use crate::report::diff::diff;
use crate::report::display_name;
use crate::report::load::load;
use crate::report::render::{DiffView, diff_markdown};

/// Flags of `diff`.
#[derive(Debug, clap::Args)]
pub struct Args {
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
pub enum FailOn {
    /// Any regression.
    Regression,
}

/// Runs the command; returns the exit code.
pub fn execute(args: Args) -> u8 {
    if args
        .min_score_delta
        .is_some_and(|d| !d.is_finite() || d < 0.0)
    {
        eprintln!("error: --min-score-delta must be a non-negative number");
        return exit::INVALID_INPUT;
    }
    let (before, after) = match (load(&args.before), load(&args.after)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let d = match diff(&before, &after, args.min_score_delta) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let view = DiffView::new(
        &d,
        &display_name(&args.before),
        &display_name(&args.after),
        args.min_score_delta,
    );
    out!("{}", terminal(&view));
    if let Some(path) = &args.markdown {
        let code = super::report::write(path, diff_markdown(&view));
        if code != exit::OK {
            return code;
        }
    }
    if args.fail_on.is_some() && d.has_regressions() {
        exit::FAILED
    } else {
        exit::OK
    }
}

/// The terminal form: a headline, the regressions table, then the other sections that have rows.
fn terminal(v: &DiffView) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} → {} ({}): {} matched, {} {}, mean score {}, {} new, {} missing",
        v.before,
        v.after,
        v.kind,
        v.matched,
        v.ok_word,
        v.ok_line,
        v.mean_line,
        v.new_total,
        v.missing_total
    );
    let rows = |title: &str, rows: &[crate::report::render::DiffRow], total: usize, last: &str| {
        let mut t = Table::new();
        t.load_style(UTF8_FULL_CONDENSED);
        t.set_header(vec!["scenario", "before", "after", "Δ", last]);
        for r in rows {
            t.add_row(vec![
                r.id.clone(),
                r.before.clone(),
                r.after.clone(),
                r.delta.clone(),
                if last == "why" {
                    r.note.clone()
                } else {
                    r.decision.clone()
                },
            ]);
        }
        format!("\n{title} ({total})\n{t}\n")
    };
    if v.regressions.is_empty() {
        out.push_str("no regressions\n");
    } else {
        out.push_str(&rows(
            "Regressions",
            &v.regressions,
            v.regressed_total,
            "why",
        ));
    }
    if !v.improvements.is_empty() {
        out.push_str(&rows(
            "Improvements",
            &v.improvements,
            v.improved_total,
            "decision",
        ));
    }
    if !v.flips.is_empty() {
        let mut t = Table::new();
        t.load_style(UTF8_FULL_CONDENSED);
        t.set_header(vec!["scenario", "check", ""]);
        for (id, check, change) in &v.flips {
            t.add_row(vec![id.clone(), check.clone(), change.clone()]);
        }
        let _ = writeln!(out, "\nChecks that flipped ({})\n{t}", v.flips.len());
    }
    if !v.other_changes.is_empty() {
        out.push_str(&rows(
            "Other score changes",
            &v.other_changes,
            v.other_total,
            "decision",
        ));
    }
    if !v.new.is_empty() {
        let _ = writeln!(out, "\nnew: {}", v.new.join(", "));
    }
    if !v.missing.is_empty() {
        let _ = writeln!(out, "\nmissing: {}", v.missing.join(", "));
    }
    if v.not_shown > 0 {
        let _ = writeln!(
            out,
            "\n{} more row(s) not listed (each list keeps its first rows by id)",
            v.not_shown
        );
    }
    out
}
