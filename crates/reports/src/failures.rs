//! The failed scenarios of a run, as every report shows them: the yield over the scenarios
//! attempted (records plus current failures), and why they failed, by agent and cause, read
//! from the run's errors file (`runlog::failure`).

use runlog::FailureTally;
use serde::Serialize;

/// A reason longer than this is cut in tables (the errors file keeps it whole).
const EXAMPLE_CHARS: usize = 120;

/// One row of the "why scenarios failed" table.
#[derive(Debug, Clone, Serialize)]
pub struct FailureRowView {
    /// The agent whose call failed, a declared judge's name included (`–` when the scenario
    /// failed outside a call).
    pub agent: String,
    /// The cause, in words.
    pub cause: String,
    /// Failed scenarios.
    pub scenarios: u64,
    /// One of their reasons.
    pub example: String,
}

/// A run's failures and what they do to its yield.
#[derive(Debug, Clone, Serialize)]
pub struct FailuresView {
    /// Scenarios with a record.
    pub records: u64,
    /// Scenarios failed now (not done by a later resume).
    pub failed: u64,
    /// Records plus failures: every scenario the run tried.
    pub attempted: u64,
    /// Accepted records.
    pub accepted: u64,
    /// `accepted/attempted (share)`: the share of tried scenarios that became accepted data.
    pub yield_text: String,
    /// The errors file's name.
    pub errors_file: String,
    /// Its lines that were not failure records.
    pub unreadable: u64,
    /// By agent and cause, most frequent first.
    pub rows: Vec<FailureRowView>,
}

impl FailuresView {
    /// Lays out `tally` (the run's failures, less the scenarios that have a record) beside the
    /// run's `records` and `accepted` counts.
    #[must_use]
    pub fn new(tally: &FailureTally, records: u64, accepted: u64, errors_file: &str) -> Self {
        let failed = tally.failed();
        let attempted = records + failed;
        Self {
            records,
            failed,
            attempted,
            accepted,
            yield_text: format!(
                "{accepted}/{attempted} ({})",
                pct(share(accepted, attempted))
            ),
            errors_file: errors_file.to_owned(),
            unreadable: tally.unreadable(),
            rows: tally
                .rows()
                .into_iter()
                .map(|r| FailureRowView {
                    agent: match (r.agent, r.judge) {
                        (Some(agent), _) => agent.to_string(),
                        (None, Some(judge)) => judge,
                        (None, None) => "–".to_owned(),
                    },
                    cause: r.cause.label().to_owned(),
                    scenarios: r.scenarios,
                    example: cut(&r.example),
                })
                .collect(),
        }
    }

    /// The failures of an errors file read alone: the run's records are not known, so neither
    /// are the scenarios tried (`attempted` is 0) nor the yield.
    #[must_use]
    pub fn alone(tally: &FailureTally, errors_file: &str) -> Self {
        let mut view = Self::new(tally, 0, 0, errors_file);
        view.attempted = 0;
        "unknown without the run's output file".clone_into(&mut view.yield_text);
        view
    }

    /// Whether there is anything to show (failures, or an errors file with unreadable lines).
    #[must_use]
    pub fn any(&self) -> bool {
        self.failed > 0 || self.unreadable > 0
    }

    /// The yield sentence every report prints when scenarios failed.
    #[must_use]
    pub fn sentence(&self) -> String {
        format!(
            "yield {} of the scenarios tried: {} written, {} failed (see {})",
            self.yield_text, self.records, self.failed, self.errors_file
        )
    }
}

/// A share as a whole percentage, as every report prints it (`-` for none).
fn pct(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0))
}

fn share(part: u64, whole: u64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^53
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn cut(reason: &str) -> String {
    if reason.chars().count() <= EXAMPLE_CHARS {
        return reason.to_owned();
    }
    let mut out: String = reason.chars().take(EXAMPLE_CHARS - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use runlog::record::CallTotals;
    use runlog::{AgentKind, FailureRecord};

    #[test]
    fn the_yield_counts_failures_as_tried() {
        let mut tally = FailureTally::default();
        for id in ["a", "b"] {
            tally.add(&FailureRecord {
                id: id.into(),
                index: 0,
                params: std::collections::BTreeMap::new(),
                reason: format!(
                    "generator: rate limited after 5 attempts {}",
                    "x".repeat(200)
                ),
                agent: Some(AgentKind::Generator),
                judge: None,
                fatal: false,
                totals: CallTotals::default(),
            });
        }
        let v = FailuresView::new(&tally, 6, 3, "out.jsonl.errors.jsonl");
        assert_eq!((v.attempted, v.failed), (8, 2));
        assert_eq!(v.yield_text, "3/8 (38%)");
        assert_eq!(v.rows.len(), 1);
        assert_eq!(v.rows[0].cause, "rate limited (429)");
        assert_eq!(v.rows[0].example.chars().count(), EXAMPLE_CHARS);
        assert!(
            v.sentence().contains("6 written, 2 failed"),
            "{}",
            v.sentence()
        );
    }
}
