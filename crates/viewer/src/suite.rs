//! A suite result's scenarios as the viewer shows them: filtered by Failures / Passes / Errors /
//! Flaky / Low-confidence, each scenario's runs with their checks, transcripts and tool calls,
//! and each check's verdict across the `--repeat` runs.

use scoring::{Check, ScenarioResult, SuiteResult};
use serde::Serialize;

/// The suite filters.
pub const FILTERS: [&str; 6] = [
    "all",
    "failures",
    "passes",
    "errors",
    "flaky",
    "low-confidence",
];

/// A scenario's row in the list.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioRow {
    /// Position in the suite result (its address).
    pub index: usize,
    /// Scenario id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Category.
    pub category: String,
    /// Passed every run.
    pub passed: bool,
    /// `passed/runs`.
    pub runs: String,
    /// The verdict run's score, formatted.
    pub score: String,
    /// A bot or judge error.
    pub error: bool,
    /// Runs disagree.
    pub flaky: bool,
    /// A low-confidence check decided.
    pub low_confidence: bool,
    /// Why it failed (the verdict run's failed checks).
    pub why: String,
}

/// Whether a scenario had a bot or judge error, or an unreachable bot.
#[must_use]
pub fn has_error(s: &ScenarioResult) -> bool {
    s.bot_error().is_some()
        || s.judge_error().is_some()
        || s.runs.iter().any(|r| r.unreachable.is_some())
}

/// Whether a scenario's runs disagree (some passed, some failed, or a check flipped).
#[must_use]
pub fn is_flaky(s: &ScenarioResult) -> bool {
    let passed = s.passed_runs();
    (passed > 0 && passed < s.runs.len()) || !s.flipping_checks().is_empty()
}

fn low_confidence(s: &ScenarioResult) -> bool {
    s.runs
        .iter()
        .flat_map(|r| r.report.card.checks())
        .any(|c| c.low_confidence)
}

/// The rows of `result` that `filter` keeps (an unknown filter keeps all).
#[must_use]
pub fn rows(result: &SuiteResult, filter: &str) -> Vec<ScenarioRow> {
    result
        .scenarios
        .iter()
        .enumerate()
        .map(|(index, s)| {
            let verdict = s.verdict_run();
            ScenarioRow {
                index,
                id: s.id.clone(),
                name: s.name.clone(),
                category: s.category.clone(),
                passed: s.passed(),
                runs: format!("{}/{}", s.passed_runs(), s.runs.len()),
                score: verdict.map_or_else(|| "–".into(), |r| r.report.card.score().to_string()),
                error: has_error(s),
                flaky: is_flaky(s),
                low_confidence: low_confidence(s),
                why: verdict
                    .map(|r| {
                        r.report
                            .card
                            .checks()
                            .iter()
                            .filter(|c| !c.passed)
                            .map(|c| crate::table::cut(&format!("{}: {}", c.name, c.message)))
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .unwrap_or_default(),
            }
        })
        .filter(|row| match filter {
            "failures" => !row.passed,
            "passes" => row.passed,
            "errors" => row.error,
            "flaky" => row.flaky,
            "low-confidence" => row.low_confidence,
            _ => true,
        })
        .collect()
}

/// A check's verdicts across runs.
#[derive(Debug, Clone, Serialize)]
pub struct CheckHistory {
    /// The check's name.
    pub name: String,
    /// Per run: `✓` or `✗`, or `·` when the run has no such check.
    pub runs: Vec<&'static str>,
}

/// Each check's verdict in each run, by its path and name (its identity across runs).
#[must_use]
pub fn history(s: &ScenarioResult) -> Vec<CheckHistory> {
    let key = |c: &Check| format!("{} {}", c.path, c.name);
    let mut names: Vec<(String, String)> = Vec::new();
    for run in &s.runs {
        for c in run.report.card.checks() {
            if !names.iter().any(|(k, _)| *k == key(c)) {
                names.push((key(c), c.name.clone()));
            }
        }
    }
    names
        .into_iter()
        .map(|(k, name)| CheckHistory {
            name,
            runs: s
                .runs
                .iter()
                .map(
                    |run| match run.report.card.checks().iter().find(|c| key(c) == k) {
                        Some(c) if c.passed => "✓",
                        Some(_) => "✗",
                        None => "·",
                    },
                )
                .collect(),
        })
        .collect()
}
