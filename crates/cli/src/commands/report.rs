//! `scenario-engine report RESULTS [--html FILE] [--markdown FILE] [--axes a,b]`: summarises a
//! pipeline run (JSONL) or a bot-suite result (`test --json`) as terminal tables, and optionally
//! as a self-contained HTML page and a Markdown file. Exit codes: 0 ok, 2 unreadable or invalid
//! input (with file and line), 3 an output file could not be written.

use std::path::{Path, PathBuf};

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};

use crate::exit;
use crate::report::load::{Results, load};
use crate::report::pipeline::{PipelineOptions, PipelineReport};
use crate::report::suite::SuiteReport;
use crate::report::{display_name, pipeline, render, suite};

/// Flags of `report`.
#[derive(Debug, clap::Args)]
pub struct Args {
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

/// Runs the command; returns the exit code.
pub fn execute(args: Args) -> u8 {
    let axes = match args.axes.as_deref() {
        None => None,
        Some([a, b]) => Some((a.clone(), b.clone())),
        Some(_) => {
            eprintln!("error: --axes takes exactly two parameter names, e.g. topic,cs_ratio");
            return exit::INVALID_INPUT;
        }
    };
    if args.threshold.is_some_and(|t| !(0.0..=10.0).contains(&t)) {
        eprintln!("error: --threshold must be between 0 and 10");
        return exit::INVALID_INPUT;
    }
    let results = match load(&args.results) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let source = display_name(&args.results);
    let outputs = match results {
        Results::Pipeline(run) => {
            let options = PipelineOptions {
                threshold: args.threshold,
                axes,
            };
            let report = match pipeline::collect(&run, &options) {
                Ok((figures, heatmap)) => pipeline::build(&source, &figures, heatmap.as_ref()),
                Err(e) => {
                    eprintln!("error: {e}");
                    return exit::INVALID_INPUT;
                }
            };
            out!("{}", pipeline_tables(&report));
            (
                args.html.map(|p| (p, render::pipeline_html(&report))),
                args.markdown
                    .map(|p| (p, render::pipeline_markdown(&report))),
            )
        }
        Results::Suite(result) => {
            let report = suite::build(&source, &result);
            out!("{}", suite_tables(&report));
            (
                args.html.map(|p| (p, render::suite_html(&report))),
                args.markdown.map(|p| (p, render::suite_markdown(&report))),
            )
        }
    };
    for (path, rendered) in [outputs.0, outputs.1].into_iter().flatten() {
        let code = write(&path, rendered);
        if code != exit::OK {
            return code;
        }
    }
    exit::OK
}

/// Writes a rendered report to `path`, saying so; exit code of the outcome.
pub(super) fn write(path: &Path, rendered: Result<String, render::RenderError>) -> u8 {
    let text = match rendered {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::RUN_FAILURE;
        }
    };
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return exit::RUN_FAILURE;
    }
    eprintln!("wrote {}", path.display());
    exit::OK
}

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header.to_vec());
    t
}

/// The terminal form of a pipeline report: totals, then one table per figure.
fn pipeline_tables(r: &PipelineReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let t = &r.totals;
    let _ = writeln!(
        out,
        "{}: {}/{} accepted ({}) at threshold {} ({}); mean score {}, mean refinements {}; {} + {} tokens, {}",
        r.source,
        t.accepted,
        t.records,
        t.acceptance,
        r.threshold,
        r.threshold_note,
        t.mean_score,
        t.mean_refinements,
        t.prompt_tokens,
        t.completion_tokens,
        t.cost
    );
    if !r.fixed.is_empty() {
        let _ = writeln!(out, "fixed: {}", r.fixed.join(", "));
    }
    let mut hist = table(&["score", "records", ""]);
    for b in &r.histogram {
        hist.add_row(vec![
            b.range.clone(),
            b.count.to_string(),
            if b.accepted { "≥ threshold" } else { "" }.to_owned(),
        ]);
    }
    let mut outcomes = table(&["accepted at", "records", "share"]);
    for o in &r.outcomes {
        outcomes.add_row(vec![
            o.outcome.clone(),
            o.count.to_string(),
            o.share.clone(),
        ]);
    }
    let mut judges = table(&["judge", "n", "mean", "min", "max"]);
    for j in &r.judges {
        judges.add_row(vec![
            j.name.clone(),
            j.count.to_string(),
            j.mean.clone(),
            j.min.clone(),
            j.max.clone(),
        ]);
    }
    let mut params = table(&[
        "parameter",
        "value",
        "records",
        "accepted",
        "rate",
        "mean score",
    ]);
    for p in &r.params {
        for v in &p.values {
            params.add_row(vec![
                p.name.clone(),
                v.value.clone(),
                v.records.to_string(),
                v.accepted.to_string(),
                v.rate.clone(),
                v.mean_score.clone(),
            ]);
        }
    }
    let _ = writeln!(out, "\nFinal scores\n{hist}\n\nRefine outcomes\n{outcomes}");
    let _ = writeln!(
        out,
        "\nJudges\n{judges}\n\nAcceptance by parameter value\n{params}"
    );
    if let Some(h) = &r.heatmap {
        let mut header = vec![format!("{} \\ {}", h.rows_axis, h.cols_axis)];
        header.extend(h.cols.iter().cloned());
        let mut heat = Table::new();
        heat.load_style(UTF8_FULL_CONDENSED);
        heat.set_header(header);
        for (row, cells) in &h.rows {
            let mut line = vec![row.clone()];
            line.extend(
                cells
                    .iter()
                    .map(|c| format!("{} ({}/{})", c.rate, c.accepted, c.records)),
            );
            heat.add_row(line);
        }
        let _ = writeln!(
            out,
            "\nAcceptance {} × {}\n{heat}",
            h.rows_axis, h.cols_axis
        );
    }
    if let Some(ratio) = &r.ratio {
        let mut t = table(&[
            "target",
            "records",
            "measured",
            "mean",
            "min",
            "max",
            "mean error",
        ]);
        for row in &ratio.rows {
            t.add_row(vec![
                row.target.clone(),
                row.records.to_string(),
                row.measured.to_string(),
                row.mean.clone(),
                row.min.clone(),
                row.max.clone(),
                row.mean_error.clone(),
            ]);
        }
        let _ = writeln!(out, "\nMeasured vs target code-switching ratio\n{t}");
    }
    let mut cost = table(&["agent", "model", "scenarios"]);
    for a in &r.cost.agents {
        cost.add_row(vec![
            a.agent.clone(),
            a.models.clone(),
            a.scenarios.to_string(),
        ]);
    }
    let _ = writeln!(
        out,
        "\nModels by agent\n{cost}\nper scenario: {} tokens, {}; per accepted scenario: {}",
        r.cost.tokens_per_scenario, r.cost.cost_per_scenario, r.cost.cost_per_accepted
    );
    let mut worst = table(&["scenario", "score", "accepted", "refinements", "parameters"]);
    for w in &r.worst {
        worst.add_row(vec![
            w.id.clone(),
            w.score.clone(),
            if w.accepted { "yes" } else { "no" }.to_owned(),
            w.refine_count.to_string(),
            w.params.join(", "),
        ]);
    }
    let _ = writeln!(out, "\nLowest-scoring scenarios\n{worst}");
    out
}

/// The terminal form of a suite report.
fn suite_tables(r: &SuiteReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}): {}/{} passed ({}), mean shown score {}",
        r.suite,
        r.source,
        r.passed,
        r.passed + r.failed,
        r.pass_rate,
        r.mean_score
    );
    let mut cats = table(&["category", "passed", "failed", "pass rate"]);
    for c in &r.categories {
        cats.add_row(vec![
            c.name.clone(),
            c.passed.to_string(),
            c.failed.to_string(),
            c.rate.clone(),
        ]);
    }
    let mut checks = table(&["check", "failures"]);
    for c in &r.most_failed {
        checks.add_row(vec![c.name.clone(), c.failures.to_string()]);
    }
    let mut failed = table(&["scenario", "category", "score", "why"]);
    for f in &r.failures {
        failed.add_row(vec![
            f.id.clone(),
            f.category.clone(),
            f.score.clone(),
            f.reasons.join("; "),
        ]);
    }
    let _ = writeln!(
        out,
        "\nPass/fail by category\n{cats}\n\nChecks that fail most\n{checks}\n\nFailed scenarios\n{failed}"
    );
    out
}
