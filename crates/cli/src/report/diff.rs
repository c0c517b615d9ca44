//! Run-vs-run comparison: matches the scenarios of two results files of the same kind by id and
//! lists score deltas, accept/pass decisions that changed, checks that flipped (suites), and
//! scenarios new in or missing from the second file. A [`Regression`] is a decision that got
//! worse (accepted→rejected, passed→failed) or, when a minimum delta is set, a score drop larger
//! than it. Pure: the command decides what to print and which exit code follows.

use std::collections::BTreeMap;

use agents::suite::SuiteResult;
use serde::Serialize;

use super::load::{Results, ResultsKind, RunRecord};
use super::suite::verdict_run;

/// Why two files cannot be compared.
#[derive(Debug, thiserror::Error)]
#[error("cannot compare a {before} with a {after}")]
pub struct KindMismatch {
    /// Kind of the first file.
    pub before: &'static str,
    /// Kind of the second file.
    pub after: &'static str,
}

/// A check whose outcome differs between the two runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckFlip {
    /// The check's display name.
    pub name: String,
    /// Passed before.
    pub before: bool,
    /// Passed after.
    pub after: bool,
}

/// One scenario present in both files whose score, decision or checks changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// Scenario id.
    pub id: String,
    /// Score before (0–10 for pipelines, 0–100 for suites).
    pub before_score: f64,
    /// Score after.
    pub after_score: f64,
    /// after − before.
    pub delta: f64,
    /// Accepted/passed before.
    pub before_ok: bool,
    /// Accepted/passed after.
    pub after_ok: bool,
    /// Checks that flipped (suites only).
    pub flips: Vec<CheckFlip>,
}

impl Change {
    /// The decision changed.
    #[must_use]
    pub fn decision_changed(&self) -> bool {
        self.before_ok != self.after_ok
    }
}

/// What made a scenario a regression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegressionKind {
    /// Pipeline: accepted before, rejected after.
    Rejected,
    /// Suite: passed before, failed after.
    Failed,
    /// The score fell by more than the minimum delta.
    ScoreDrop,
}

impl RegressionKind {
    /// How the kind reads in reports.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Self::Rejected => "accepted → rejected",
            Self::Failed => "passed → failed",
            Self::ScoreDrop => "score drop",
        }
    }
}

/// A scenario that got worse.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// Scenario id.
    pub id: String,
    /// Why it counts.
    pub kind: RegressionKind,
    /// Score change.
    pub delta: f64,
}

/// The comparison of two results files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// The kind of both files.
    pub kind: &'static str,
    /// Scenarios in both files.
    pub matched: usize,
    /// Matched scenarios whose score, decision or checks changed, by id.
    pub changes: Vec<Change>,
    /// Scenarios only in the second file.
    pub new: Vec<String>,
    /// Scenarios only in the first file.
    pub missing: Vec<String>,
    /// Regressions, by id (a scenario may appear once per kind).
    pub regressions: Vec<Regression>,
    /// Accepted/passed scenarios before and after, over all scenarios of each file.
    pub ok_before: usize,
    /// See `ok_before`.
    pub ok_after: usize,
    /// Scenarios in each file.
    pub total_before: usize,
    /// See `total_before`.
    pub total_after: usize,
    /// Mean score over matched scenarios, before and after.
    pub mean_before: Option<f64>,
    /// See `mean_before`.
    pub mean_after: Option<f64>,
}

impl Diff {
    /// Matched scenarios whose decision improved (rejected→accepted, failed→passed).
    #[must_use]
    pub fn improvements(&self) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|c| !c.before_ok && c.after_ok)
            .collect()
    }
}

/// Scores below this are rounding noise, not changes.
const EPSILON: f64 = 1e-9;

/// The facts compared for one scenario.
struct Entry {
    score: f64,
    ok: bool,
    checks: Vec<(String, bool)>,
}

/// Compares `before` with `after`. `min_score_delta`, when set, makes a score drop larger than
/// it a regression.
///
/// # Errors
/// [`KindMismatch`] when one file is a pipeline run and the other a suite result.
pub fn diff(
    before: &Results,
    after: &Results,
    min_score_delta: Option<f64>,
) -> Result<Diff, KindMismatch> {
    let (a, b) = match (before, after) {
        (Results::Pipeline(a), Results::Pipeline(b)) => (pipeline_entries(a), pipeline_entries(b)),
        (Results::Suite(a), Results::Suite(b)) => (suite_entries(a), suite_entries(b)),
        _ => {
            return Err(KindMismatch {
                before: before.kind().name(),
                after: after.kind().name(),
            });
        }
    };
    let decision_kind = match before.kind() {
        ResultsKind::Pipeline => RegressionKind::Rejected,
        ResultsKind::Suite => RegressionKind::Failed,
    };
    let mut changes = Vec::new();
    let mut regressions = Vec::new();
    let mut matched = 0;
    let (mut sum_before, mut sum_after) = (0.0, 0.0);
    for (id, old) in &a {
        let Some(new) = b.get(id) else { continue };
        matched += 1;
        sum_before += old.score;
        sum_after += new.score;
        let delta = new.score - old.score;
        let flips = check_flips(&old.checks, &new.checks);
        if old.ok && !new.ok {
            regressions.push(Regression {
                id: id.clone(),
                kind: decision_kind,
                delta,
            });
        }
        if min_score_delta.is_some_and(|min| -delta > min + EPSILON) {
            regressions.push(Regression {
                id: id.clone(),
                kind: RegressionKind::ScoreDrop,
                delta,
            });
        }
        if delta.abs() > EPSILON || old.ok != new.ok || !flips.is_empty() {
            changes.push(Change {
                id: id.clone(),
                before_score: old.score,
                after_score: new.score,
                delta,
                before_ok: old.ok,
                after_ok: new.ok,
                flips,
            });
        }
    }
    #[allow(clippy::cast_precision_loss)] // scenario counts far below 2^53
    let mean = |sum: f64| (matched > 0).then(|| sum / matched as f64);
    let result = Diff {
        kind: before.kind().name(),
        matched,
        changes,
        new: b
            .keys()
            .filter(|id| !a.contains_key(*id))
            .cloned()
            .collect(),
        missing: a
            .keys()
            .filter(|id| !b.contains_key(*id))
            .cloned()
            .collect(),
        regressions,
        ok_before: a.values().filter(|e| e.ok).count(),
        ok_after: b.values().filter(|e| e.ok).count(),
        total_before: a.len(),
        total_after: b.len(),
        mean_before: mean(sum_before),
        mean_after: mean(sum_after),
    };
    tracing::debug!(
        matched,
        changes = result.changes.len(),
        regressions = result.regressions.len(),
        "diff computed"
    );
    Ok(result)
}

fn pipeline_entries(records: &[RunRecord]) -> BTreeMap<String, Entry> {
    // A resumed run may hold an id twice; the last line is the newest result.
    records
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                Entry {
                    score: r.score,
                    ok: r.accepted,
                    checks: Vec::new(),
                },
            )
        })
        .collect()
}

fn suite_entries(result: &SuiteResult) -> BTreeMap<String, Entry> {
    result
        .scenarios
        .iter()
        .filter_map(|s| {
            let run = verdict_run(s)?;
            let card = &run.report.card;
            Some((
                s.id.clone(),
                Entry {
                    score: f64::from(card.score()),
                    ok: s.passed(),
                    checks: card
                        .checks()
                        .iter()
                        .map(|c| (c.name.clone(), c.passed))
                        .collect(),
                },
            ))
        })
        .collect()
}

/// Checks matched by name and occurrence (a card may hold two checks of the same name), so
/// the n-th `shouldContain: "fee"` before is compared with the n-th after.
fn check_flips(before: &[(String, bool)], after: &[(String, bool)]) -> Vec<CheckFlip> {
    let keyed = |checks: &[(String, bool)]| -> BTreeMap<(String, usize), bool> {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        checks
            .iter()
            .map(|(name, passed)| {
                let n = seen.entry(name).or_default();
                *n += 1;
                ((name.clone(), *n), *passed)
            })
            .collect()
    };
    let (a, b) = (keyed(before), keyed(after));
    a.iter()
        .filter_map(|(key, &was)| {
            let &now = b.get(key)?;
            (was != now).then(|| CheckFlip {
                name: key.0.clone(),
                before: was,
                after: now,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(id: &str, score: f64, accepted: bool) -> RunRecord {
        RunRecord::from_value(&json!({"id": id, "score": score, "accepted": accepted}), 1)
            .expect("valid")
    }

    #[test]
    fn pipeline_diff_finds_decisions_drops_new_and_missing() {
        let before = Results::Pipeline(vec![
            rec("a", 8.5, true),
            rec("b", 9.0, true),
            rec("c", 6.0, false),
            rec("gone", 7.0, false),
        ]);
        let after = Results::Pipeline(vec![
            rec("a", 7.5, false),
            rec("b", 8.1, true),
            rec("c", 8.2, true),
            rec("fresh", 9.0, true),
        ]);
        let d = diff(&before, &after, Some(0.5)).expect("same kind");
        assert_eq!(d.matched, 3);
        assert_eq!(d.new, ["fresh"]);
        assert_eq!(d.missing, ["gone"]);
        let regs: Vec<(&str, RegressionKind)> = d
            .regressions
            .iter()
            .map(|r| (r.id.as_str(), r.kind))
            .collect();
        assert_eq!(
            regs,
            [
                ("a", RegressionKind::Rejected),
                ("a", RegressionKind::ScoreDrop),
                ("b", RegressionKind::ScoreDrop),
            ]
        );
        assert_eq!(d.improvements().len(), 1);
        // Without a minimum delta only decisions count.
        let d = diff(&before, &after, None).expect("same kind");
        assert_eq!(d.regressions.len(), 1);
    }

    #[test]
    fn a_drop_equal_to_the_delta_is_not_a_regression() {
        let before = Results::Pipeline(vec![rec("a", 9.0, true)]);
        let after = Results::Pipeline(vec![rec("a", 8.5, true)]);
        assert!(
            diff(&before, &after, Some(0.5))
                .expect("ok")
                .regressions
                .is_empty()
        );
    }

    #[test]
    fn kinds_must_match() {
        let suite: SuiteResult =
            serde_json::from_value(json!({"suite": "s", "repeat": 1, "scenarios": []}))
                .expect("valid suite");
        let err =
            diff(&Results::Pipeline(vec![]), &Results::Suite(suite), None).expect_err("mismatch");
        assert_eq!(
            err.to_string(),
            "cannot compare a pipeline run with a bot suite"
        );
    }

    #[test]
    fn checks_flip_by_name_and_occurrence() {
        let before = [
            ("x".to_owned(), true),
            ("x".to_owned(), false),
            ("y".to_owned(), true),
        ];
        let after = [
            ("x".to_owned(), true),
            ("x".to_owned(), true),
            ("z".to_owned(), false),
        ];
        assert_eq!(
            check_flips(&before, &after),
            [CheckFlip {
                name: "x".into(),
                before: false,
                after: true
            }]
        );
    }
}
