//! A bot-test suite's results: one [`SuiteResult`] per run of `scenario-engine test`, with each
//! scenario's runs (transcript and scored report) and what the LLM judge was asked. It is the
//! bot-test log: written as JSON, read back by `report` and `diff`, rendered as JUnit
//! ([`crate::report::junit`]) and folded into figures ([`crate::suite_figures`]); the runner that
//! produces it lives in the `bottest` crate.

use serde::{Deserialize, Serialize};

use crate::summary::{FlippingCheck, RepeatSummary};
use crate::transcript::Transcript;
use crate::{Check, ScenarioReport};

/// The outcome a scripted scenario is expected to have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expected {
    /// Every run should pass.
    Pass,
    /// Every run should fail (the script is bad behaviour the checks must catch).
    Fail,
}

/// One run of one scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    /// What was said.
    pub transcript: Transcript,
    /// The scored verdict.
    pub report: ScenarioReport,
    /// What the LLM judge was asked in this run and how many it answered (absent without a
    /// judge, or when it had nothing to ask).
    #[serde(default, skip_serializing_if = "JudgeTally::is_empty")]
    pub judge: JudgeTally,
    /// Why the bot could not be reached in this run (connection refused, no such host or
    /// program), when that ended it: the run says nothing about the bot, and `test` exits 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
    /// What the user's own checks cost in this run: model calls of `llmRubric` and `similar`,
    /// how many the response cache answered, their cost (absent when none was made).
    #[serde(default, skip_serializing_if = "CheckSpend::is_empty")]
    pub checks: CheckSpend,
}

/// Model calls made by the checks of a run (`llmRubric`, `similar`) and what they cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckSpend {
    /// Calls made (a cached answer counts as a call, and in `cached`).
    pub calls: u64,
    /// Calls the response cache answered (free).
    pub cached: u64,
    /// Cost of the priced calls, in USD.
    pub cost_usd: f64,
    /// Calls whose model has no price: the cost is a lower bound.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced: u64,
    /// Calls that got no answer (their checks failed as not evaluated).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed: u64,
    /// Why the first of them got none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CheckSpend {
    /// True when no call was made (answered or not).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.calls == 0 && self.failed == 0
    }

    /// Adds another run's spend.
    pub fn add(&mut self, other: &CheckSpend) {
        self.calls += other.calls;
        self.cached += other.cached;
        self.cost_usd += other.cost_usd;
        self.unpriced += other.unpriced;
        self.failed += other.failed;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
    }

    /// Counts a call that got no answer.
    pub fn record_failure(&mut self, reason: &str) {
        self.failed += 1;
        if self.first_error.is_none() {
            self.first_error = Some(reason.to_owned());
        }
    }

    /// Counts one call: cached or not, and its cost when priced.
    pub fn record(&mut self, cached: bool, cost_usd: Option<f64>) {
        self.calls += 1;
        if cached {
            self.cached += 1;
        }
        match cost_usd {
            Some(c) => self.cost_usd += c,
            None if cached => {}
            None => self.unpriced += 1,
        }
    }
}

/// Questions put to the LLM judge and what came back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeTally {
    /// Questions asked.
    pub asked: u64,
    /// Questions answered with a verdict.
    pub answered: u64,
    /// Why the first unanswered question got no verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

impl JudgeTally {
    /// True when nothing was asked.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.asked == 0
    }

    /// Adds another tally (the first error stays the first).
    pub fn add(&mut self, other: &JudgeTally) {
        self.asked += other.asked;
        self.answered += other.answered;
        if self.first_error.is_none() {
            self.first_error.clone_from(&other.first_error);
        }
    }
}

/// All runs of one scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// Scenario id.
    pub id: String,
    /// Scenario name.
    pub name: String,
    /// Category name.
    pub category: String,
    /// Tags.
    pub tags: Vec<String>,
    /// The outcome the scenario's script declares, when run scripted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_outcome: Option<Expected>,
    /// One entry per repeat.
    pub runs: Vec<RunResult>,
}

impl ScenarioResult {
    /// Passed when every run passed.
    #[must_use]
    pub fn passed(&self) -> bool {
        !self.runs.is_empty() && self.runs.iter().all(|r| r.report.card.passed())
    }

    /// The run that decides the scenario's verdict: the first failing run, else the first run.
    #[must_use]
    pub fn verdict_run(&self) -> Option<&RunResult> {
        self.runs
            .iter()
            .find(|r| !r.report.card.passed())
            .or_else(|| self.runs.first())
    }

    /// Runs that passed.
    #[must_use]
    pub fn passed_runs(&self) -> usize {
        self.runs.iter().filter(|r| r.report.card.passed()).count()
    }

    /// Its runs summarised: pass rate, score spread, flipping checks (by tree position).
    #[must_use]
    pub fn repeat_summary(&self) -> RepeatSummary {
        let mut summary = RepeatSummary::default();
        for run in &self.runs {
            summary.add(&run.report);
        }
        summary
    }

    /// The checks that passed in some runs and failed in others, keyed by their position in the
    /// expectation tree (see [`RepeatSummary`]).
    #[must_use]
    pub fn flipping_checks(&self) -> Vec<FlippingCheck> {
        self.repeat_summary().flipping()
    }

    /// Whether some run's bot failed to answer (a `botError` check failed).
    #[must_use]
    pub fn bot_error(&self) -> Option<&Check> {
        self.runs
            .iter()
            .flat_map(|r| r.report.card.checks())
            .find(|c| !c.passed && is_bot_error(c))
    }
}

/// A `botError` check: by its path (`bot…`), or by its name in results written before paths.
fn is_bot_error(check: &Check) -> bool {
    check.path == "bot"
        || check.path.starts_with("bot.")
        || (check.path.is_empty() && check.name.starts_with("botError"))
}

impl ScenarioResult {
    /// The first failed `judgeError` check of its runs.
    #[must_use]
    pub fn judge_error(&self) -> Option<&Check> {
        self.runs
            .iter()
            .flat_map(|r| r.report.card.checks())
            .find(|c| !c.passed && c.path == "judge")
    }
}

/// The outcome of a whole suite.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SuiteResult {
    /// Suite name.
    pub suite: String,
    /// Runs per scenario.
    pub repeat: u32,
    /// One entry per selected scenario that ran, in suite order.
    pub scenarios: Vec<ScenarioResult>,
    /// Set when the run was stopped (Ctrl-C) before every run was done: the result is partial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
}

/// What an interrupted suite run did not do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupted {
    /// Runs finished (over every scenario and repeat).
    pub runs_done: u64,
    /// Runs planned.
    pub runs_planned: u64,
    /// Selected scenarios with no finished run (not in `scenarios`).
    pub not_run: Vec<String>,
}

impl SuiteResult {
    /// True when every scenario passed every run.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.scenarios.iter().all(ScenarioResult::passed)
    }

    /// What the LLM judge was asked over the whole suite and how much it answered.
    #[must_use]
    pub fn judge_tally(&self) -> JudgeTally {
        let mut tally = JudgeTally::default();
        for run in self.scenarios.iter().flat_map(|s| &s.runs) {
            tally.add(&run.judge);
        }
        tally
    }

    /// Why the bot could not be reached, when some run could not reach it: the first reason and
    /// how many runs it ended.
    #[must_use]
    pub fn bot_unreachable(&self) -> Option<(String, usize)> {
        let mut runs = self
            .scenarios
            .iter()
            .flat_map(|s| &s.runs)
            .filter_map(|r| r.unreachable.as_ref());
        let first = runs.next()?.clone();
        Some((first, 1 + runs.count()))
    }

    /// Why the model of the checks (`llmRubric`, `similar`) could not be reached, when they
    /// called it and got no answer at all.
    #[must_use]
    pub fn check_model_unreachable(&self) -> Option<String> {
        let mut spend = CheckSpend::default();
        for run in self.scenarios.iter().flat_map(|s| &s.runs) {
            spend.add(&run.checks);
        }
        (spend.calls == 0 && spend.failed > 0)
            .then(|| spend.first_error.unwrap_or_else(|| "no answer".to_owned()))
    }

    /// Why the judge could not be reached, when it was asked questions and answered none.
    #[must_use]
    pub fn judge_unreachable(&self) -> Option<String> {
        let tally = self.judge_tally();
        (tally.asked > 0 && tally.answered == 0)
            .then(|| tally.first_error.unwrap_or_else(|| "no answer".to_owned()))
    }
}
