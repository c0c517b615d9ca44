//! Every figure a suite report shows, computed from a [`SuiteResult`] as typed, unformatted
//! values: pass/fail overall and per category, the mean shown score, the checks that fail most
//! (aggregates through `crate::summary::SuiteSummary`), and per scenario its verdict, the run
//! that decided it, and its repeat figures (pass rate, min/median score, flipping checks, through
//! `crate::summary::RepeatSummary`). `scenario-engine test` and `scenario-engine report` lay
//! these out as tables, HTML and Markdown; nothing here formats a number.
//!
//! A scenario run several times is judged by its first failing run (else its first run), as
//! [`ScenarioResult::verdict_run`] says.

use serde::Serialize;

use crate::Check;
use crate::summary::{FailedCheck, FlippingCheck, PassFail, RepeatSummary, SuiteSummary};

use crate::suite_result::{CheckSpend, RunResult, ScenarioResult, SuiteResult};

/// The figures of one suite result.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteFigures {
    /// Suite name.
    pub suite: String,
    /// Runs per scenario.
    pub repeat: u32,
    /// Aggregates over the scenarios' verdict runs.
    pub summary: SuiteSummary,
    /// One entry per scenario, in suite order.
    pub scenarios: Vec<ScenarioFigures>,
    /// Model calls of the user's own checks over every run (`llmRubric`, `similar`), and
    /// their cost.
    pub check_spend: CheckSpend,
}

/// The figures of one scenario.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioFigures {
    /// Scenario id.
    pub id: String,
    /// Human name.
    pub name: String,
    /// Category.
    pub category: String,
    /// Every run passed.
    pub passed: bool,
    /// The verdict run's score, `None` when the visibility rule hides it (fewer than 3 counted
    /// checks).
    pub score: Option<u32>,
    /// Why the verdict run failed (empty when it passed).
    pub reasons: Vec<String>,
    /// The verdict run's checks.
    pub checks: Vec<Check>,
    /// Whether the bot failed to answer in some run (a failed `botError` check).
    pub bot_error: bool,
    /// Its runs: pass rate, score spread.
    pub runs: RepeatSummary,
    /// Checks whose verdict changed between runs, by tree position.
    pub flipping: Vec<FlippingCheck>,
}

impl ScenarioFigures {
    /// The checks of the verdict run that failed.
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.passed)
    }
}

/// Pass/fail of one category, with its pass rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryFigures {
    /// Category name.
    pub name: String,
    /// Scenarios passed and failed.
    pub counts: PassFail,
    /// passed / (passed + failed).
    pub pass_rate: Option<f64>,
}

impl SuiteFigures {
    /// The figures of `result`.
    #[must_use]
    pub fn of(result: &SuiteResult) -> Self {
        let mut summary = SuiteSummary::default();
        let mut scenarios = Vec::with_capacity(result.scenarios.len());
        let mut check_spend = CheckSpend::default();
        for s in &result.scenarios {
            for run in &s.runs {
                check_spend.add(&run.checks);
            }
            let Some(run) = s.verdict_run() else {
                continue;
            };
            summary.add(&run.report);
            scenarios.push(scenario(s, run));
        }
        Self {
            suite: result.suite.clone(),
            repeat: result.repeat,
            summary,
            scenarios,
            check_spend,
        }
    }

    /// Scenarios passed.
    #[must_use]
    pub fn passed(&self) -> u64 {
        self.summary.total.passed
    }

    /// Scenarios failed.
    #[must_use]
    pub fn failed(&self) -> u64 {
        self.summary.total.failed
    }

    /// passed / scenarios, `None` without scenarios.
    #[must_use]
    pub fn pass_rate(&self) -> Option<f64> {
        self.summary.pass_rate()
    }

    /// The mean score over scenarios whose score is shown.
    #[must_use]
    pub fn mean_score(&self) -> Option<f64> {
        self.summary.score.mean()
    }

    /// Pass/fail per category, by category name.
    #[must_use]
    pub fn categories(&self) -> Vec<CategoryFigures> {
        self.summary
            .categories
            .iter()
            .map(|(name, counts)| CategoryFigures {
                name: name.clone(),
                counts: *counts,
                pass_rate: rate(counts.passed, counts.passed + counts.failed),
            })
            .collect()
    }

    /// The `k` checks that failed most, most first.
    #[must_use]
    pub fn most_failed(&self, k: usize) -> Vec<FailedCheck> {
        self.summary.most_failed(k)
    }

    /// The failed scenarios, in suite order.
    pub fn failures(&self) -> impl Iterator<Item = &ScenarioFigures> {
        self.scenarios.iter().filter(|s| !s.passed)
    }
}

fn scenario(s: &ScenarioResult, run: &RunResult) -> ScenarioFigures {
    let card = &run.report.card;
    let runs = s.repeat_summary();
    ScenarioFigures {
        id: s.id.clone(),
        name: s.name.clone(),
        category: s.category.clone(),
        passed: s.passed(),
        score: card.show_score().then(|| card.score()),
        reasons: card.reasons().iter().map(ToString::to_string).collect(),
        checks: card.checks().to_vec(),
        bot_error: s.bot_error().is_some(),
        flipping: runs.flipping(),
        runs,
    }
}

fn rate(part: u64, whole: u64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^53
    (whole > 0).then(|| part as f64 / whole as f64)
}
