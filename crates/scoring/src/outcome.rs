//! A suite checking itself (`scenario-engine test --self-check`): run with its scripted bot, every
//! scenario must get the outcome its script declares (`expect_outcome: pass|fail`). A script of
//! good behaviour that fails, or of bad behaviour that passes, means the suite's checks do not
//! say what its author meant; a scenario without a declared outcome cannot be checked and is
//! reported too.

use std::fmt;

use serde::Serialize;

use crate::suite_result::{Expected, ScenarioResult, SuiteResult};

/// A scenario whose verdict differs from the outcome its script declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutcomeMismatch {
    /// Scenario id.
    pub id: String,
    /// What the script declares (`None`: nothing, so the scenario cannot be checked).
    pub expected: Option<Expected>,
    /// Runs that passed.
    pub passed_runs: usize,
    /// Runs made.
    pub runs: usize,
    /// Why the verdict run failed (empty when every run passed).
    pub reasons: Vec<String>,
}

impl fmt::Display for OutcomeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let got = if self.passed_runs == self.runs {
            "passed".to_owned()
        } else if self.passed_runs == 0 {
            "failed".to_owned()
        } else {
            format!("passed {}/{} runs", self.passed_runs, self.runs)
        };
        match self.expected {
            None => write!(
                f,
                "{}: declares no expect_outcome (it {got}); add `script: {{expect_outcome: pass|fail}}`",
                self.id
            ),
            Some(Expected::Pass) => write!(
                f,
                "{}: expect_outcome is pass, but it {got}: {}",
                self.id,
                self.reasons.join("; ")
            ),
            Some(Expected::Fail) => write!(
                f,
                "{}: expect_outcome is fail, but it {got}: its checks do not catch the scripted behaviour",
                self.id
            ),
        }
    }
}

impl SuiteResult {
    /// The scenarios whose verdict differs from their declared `expect_outcome` (every run must
    /// pass for `pass` and fail for `fail`), and those that declare none, in suite order.
    #[must_use]
    pub fn outcome_mismatches(&self) -> Vec<OutcomeMismatch> {
        self.scenarios.iter().filter_map(mismatch).collect()
    }
}

fn mismatch(s: &ScenarioResult) -> Option<OutcomeMismatch> {
    let passed_runs = s.passed_runs();
    let runs = s.runs.len();
    let matches = match s.expected_outcome {
        Some(Expected::Pass) => runs > 0 && passed_runs == runs,
        Some(Expected::Fail) => runs > 0 && passed_runs == 0,
        None => false,
    };
    (!matches).then(|| OutcomeMismatch {
        id: s.id.clone(),
        expected: s.expected_outcome,
        passed_runs,
        runs,
        reasons: s
            .verdict_run()
            .map(|r| {
                r.report
                    .card
                    .reasons()
                    .iter()
                    .map(ToString::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    })
}
