//! The bot-suite report: pass/fail by category, the checks that fail most, and each failed
//! scenario's Check Details, laid out into one serializable [`SuiteReport`] (formatted numbers,
//! the chart) from the typed figures of `scoring::SuiteFigures`, which computes them. A
//! scenario run several times is judged by its first failing run, as `scenario-engine test`
//! prints it.

use scoring::{SuiteFigures, SuiteResult};
use serde::Serialize;

use super::chart::{BarSpec, Chart, bar_chart};
use super::pipeline::pct;

/// How many of the most-failed checks the report lists.
pub const MOST_FAILED_SHOWN: usize = 10;

/// Pass/fail of one category.
#[derive(Debug, Clone, Serialize)]
pub struct CategoryRow {
    /// Category name.
    pub name: String,
    /// Scenarios passed.
    pub passed: u64,
    /// Scenarios failed.
    pub failed: u64,
    /// Pass rate, formatted.
    pub rate: String,
}

/// A check that failed, with how often.
#[derive(Debug, Clone, Serialize)]
pub struct FailedCheckRow {
    /// The check's display name.
    pub name: String,
    /// Failures across the suite's scenarios.
    pub failures: u64,
}

/// One check line of a failed scenario.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRow {
    /// Passed or not.
    pub passed: bool,
    /// Display name.
    pub name: String,
    /// Effective weight.
    pub weight: u32,
    /// Critical check.
    pub critical: bool,
    /// What was found.
    pub message: String,
    /// Decided by an unsure text rule's guess.
    pub low_confidence: bool,
}

/// A check an unsure text rule decided, in any scenario (passed ones included).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LowConfidenceRow {
    /// Scenario id.
    pub id: String,
    /// Whether the scenario run passed.
    pub scenario_passed: bool,
    /// The check's display name.
    pub check: String,
    /// Whether the check passed.
    pub passed: bool,
    /// What was found.
    pub message: String,
}

/// A failed scenario in full.
#[derive(Debug, Clone, Serialize)]
pub struct FailedScenario {
    /// Scenario id.
    pub id: String,
    /// Human name.
    pub name: String,
    /// Category.
    pub category: String,
    /// Score (`83/100`), or `-` when hidden by the visibility rule.
    pub score: String,
    /// Why it failed.
    pub reasons: Vec<String>,
    /// Runs passed of runs made (`1/3`), when repeated.
    pub runs: String,
    /// Its checks.
    pub checks: Vec<CheckRow>,
}

/// Everything the suite report shows.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// The results file's name (no directory).
    pub source: String,
    /// Suite name.
    pub suite: String,
    /// Scenarios passed.
    pub passed: u64,
    /// Scenarios failed.
    pub failed: u64,
    /// Pass rate, formatted.
    pub pass_rate: String,
    /// Mean shown score, formatted.
    pub mean_score: String,
    /// Runs per scenario.
    pub repeat: u32,
    /// Per category.
    pub categories: Vec<CategoryRow>,
    /// Pass/fail by category chart (two bars per category).
    pub categories_chart: Chart,
    /// The checks that fail most, most first.
    pub most_failed: Vec<FailedCheckRow>,
    /// Failed scenarios, in suite order.
    pub failures: Vec<FailedScenario>,
    /// Every low-confidence check, of passed scenarios too, in suite order (once per distinct
    /// message when a scenario is repeated).
    pub low_confidence: Vec<LowConfidenceRow>,
}

/// The low-confidence checks of every run of `result`.
fn low_confidence(result: &SuiteResult) -> Vec<LowConfidenceRow> {
    let mut rows: Vec<LowConfidenceRow> = Vec::new();
    for s in &result.scenarios {
        for run in &s.runs {
            let card = &run.report.card;
            for c in card.checks().iter().filter(|c| c.low_confidence) {
                let row = LowConfidenceRow {
                    id: s.id.clone(),
                    scenario_passed: card.passed(),
                    check: c.name.clone(),
                    passed: c.passed,
                    message: c.message.clone(),
                };
                if !rows.contains(&row) {
                    rows.push(row);
                }
            }
        }
    }
    rows
}

/// Lays out the report of `result` read from the file named `source`: the figures are
/// `scoring::SuiteFigures`; this only formats them and draws the chart.
#[must_use]
pub fn build(source: &str, result: &SuiteResult) -> SuiteReport {
    let figures = SuiteFigures::of(result);
    let failures = figures
        .failures()
        .map(|f| FailedScenario {
            id: f.id.clone(),
            name: f.name.clone(),
            category: f.category.clone(),
            score: f
                .score
                .map_or_else(|| "-".to_owned(), |s| format!("{s}/100")),
            reasons: f.reasons.clone(),
            runs: if f.runs.runs > 1 {
                format!("{}/{}", f.runs.passed_runs, f.runs.runs)
            } else {
                String::new()
            },
            checks: f
                .checks
                .iter()
                .map(|c| CheckRow {
                    passed: c.passed,
                    name: c.name.clone(),
                    weight: c.weight,
                    critical: c.critical,
                    message: c.message.clone(),
                    low_confidence: c.low_confidence,
                })
                .collect(),
        })
        .collect();
    let categories: Vec<CategoryRow> = figures
        .categories()
        .into_iter()
        .map(|c| CategoryRow {
            name: c.name,
            passed: c.counts.passed,
            failed: c.counts.failed,
            rate: pct(c.pass_rate),
        })
        .collect();
    #[allow(clippy::cast_precision_loss)] // counts far below 2^53
    let bars: Vec<BarSpec> = categories
        .iter()
        .flat_map(|c| {
            [
                BarSpec {
                    label: c.name.clone(),
                    value: c.passed as f64,
                    class: "bar-ok",
                    tip: format!("{}: {} passed", c.name, c.passed),
                },
                BarSpec {
                    label: String::new(),
                    value: c.failed as f64,
                    class: "bar-bad",
                    tip: format!("{}: {} failed", c.name, c.failed),
                },
            ]
        })
        .collect();
    let mut categories_chart = bar_chart(
        "chart-categories",
        "Pass/fail by category",
        ("category (passed, failed)", "scenarios"),
        &bars,
        None,
    );
    // Each category label sits under its pair of bars, not under the first bar alone.
    let [left, _, right, _] = categories_chart.plot;
    #[allow(clippy::cast_precision_loss)]
    let pair = (right - left) / categories.len().max(1) as f64;
    for (i, label) in categories_chart.x_labels.iter_mut().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let x = left + pair * (i as f64 + 0.5);
        label.x = (x * 10.0).round() / 10.0;
    }
    SuiteReport {
        source: source.to_owned(),
        suite: figures.suite.clone(),
        passed: figures.passed(),
        failed: figures.failed(),
        pass_rate: pct(figures.pass_rate()),
        mean_score: figures
            .mean_score()
            .map_or_else(|| "-".to_owned(), |m| format!("{m:.1}")),
        repeat: figures.repeat,
        categories,
        categories_chart,
        most_failed: figures
            .most_failed(MOST_FAILED_SHOWN)
            .into_iter()
            .map(|f| FailedCheckRow {
                name: f.name,
                failures: f.failures,
            })
            .collect(),
        failures,
        low_confidence: low_confidence(result),
    }
}
