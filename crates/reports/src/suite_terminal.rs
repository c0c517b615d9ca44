//! A suite's results as `scenario-engine test` shows them in a terminal: each scenario's report
//! in the seed's format, the summary table, and the totals line.

use std::fmt::Write as _;

use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use scoring::report::render_text;
use scoring::{ScenarioFigures, SuiteFigures, SuiteResult};

use crate::pipeline::pct;

/// The report of each scenario: its first failing run (or its first run), in the seed's format.
///
/// # Errors
/// A report template that does not render.
pub fn scenario_reports(
    result: &SuiteResult,
    figures: &SuiteFigures,
) -> Result<String, scoring::report::ReportError> {
    let mut out = String::new();
    for (s, f) in result.scenarios.iter().zip(&figures.scenarios) {
        let Some(run) = s.verdict_run() else {
            continue;
        };
        out.push_str(&render_text(&run.report)?);
        if result.repeat > 1 {
            let _ = writeln!(out, "Runs: {}/{} passed", f.runs.passed_runs, f.runs.runs);
            if !f.flipping.is_empty() {
                let _ = writeln!(out, "Flaky checks: {}", flips(f));
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The flipping checks of a scenario: name, place in the expectation tree, failed runs.
#[must_use]
pub fn flips(f: &ScenarioFigures) -> String {
    let runs = f.runs.runs;
    f.flipping
        .iter()
        .map(|c| format!("{} at {} (failed {}/{runs})", c.name, c.path, c.failed_runs))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One row per scenario. With `--repeat`, the verdict run's failed checks, the pass rate
/// (passed runs / N), the min and median shown score over the runs, and the flipping checks.
#[must_use]
pub fn summary_table(figures: &SuiteFigures) -> String {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    let repeated = figures.repeat > 1;
    let mut header = vec!["scenario", "category", "result"];
    if repeated {
        header.extend(["pass rate", "min score", "median score"]);
    } else {
        header.push("score");
    }
    header.push("failed checks");
    if repeated {
        header.push("flipping checks");
    }
    table.set_header(header);
    let shown = |score: Option<f64>| score.map_or_else(|| "-".to_owned(), |s| s.to_string());
    for f in &figures.scenarios {
        let mut row = vec![
            f.id.clone(),
            f.category.clone(),
            if f.passed { "PASS" } else { "FAIL" }.to_owned(),
        ];
        if repeated {
            row.push(format!(
                "{}/{} ({})",
                f.runs.passed_runs,
                f.runs.runs,
                pct(f.runs.pass_rate())
            ));
            row.push(shown(f.runs.min_score().map(f64::from)));
            row.push(shown(f.runs.median_score()));
        } else {
            row.push(shown(f.score.map(f64::from)));
        }
        row.push(f.failed_checks().count().to_string());
        if repeated {
            row.push(flips(f));
        }
        table.add_row(row);
    }
    table.to_string()
}

/// `P/T scenarios passed (F failed)`, and how many verdicts were unsure — decided by a text
/// rule's guess and marked low confidence — with how to decide them.
#[must_use]
pub fn totals_line(figures: &SuiteFigures) -> String {
    let passed = figures.passed();
    let total = passed + figures.failed();
    let mut line = format!(
        "{passed}/{total} scenarios passed ({} failed)",
        total - passed
    );
    let s = &figures.summary;
    if s.low_confidence > 0 {
        let _ = write!(
            line,
            "; {} of {} verdicts unsure (a text rule's guess decided, marked low confidence): \
             decide them with `--judge llm`, or have the bot send `signals`",
            s.low_confidence, s.checks
        );
    }
    let spend = &figures.check_spend;
    if !spend.is_empty() {
        let _ = write!(
            line,
            "; checks' model calls: {} ({} from the cache), cost {}",
            spend.calls,
            spend.cached,
            runlog::money::spend(spend.cost_usd, spend.unpriced)
        );
    }
    line
}
