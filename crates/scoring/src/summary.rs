//! Run summaries as plain data: [`RunSummary`] for the data pipeline's end-of-run summary (and
//! later its HTML report) and [`SuiteSummary`] for a bot test suite. Both are fed one record at a
//! time and keep only aggregates, so memory grows with the number of distinct parameter values
//! (or categories and check names), never with the number of records. Rendering them to tables,
//! Markdown or HTML is the CLI's job; everything here serializes with serde.

use crate::check::Check;
use crate::report::ScenarioReport;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Width of a score histogram bucket on the 0–10 judge scale.
pub const BUCKET_WIDTH: f64 = 0.5;

/// Number of histogram buckets: [0, 0.5), [0.5, 1), …, [9.5, 10] (10 falls in the last one).
pub const BUCKETS: usize = 20;

/// A running mean: count and sum. Serializes as `{ "count": n, "mean": m }` (`mean` null when empty).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Mean {
    count: u64,
    sum: f64,
}

impl Mean {
    /// Adds one observation.
    pub fn add(&mut self, value: f64) {
        self.count += 1;
        self.sum += value;
    }

    /// How many observations were added.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mean, or `None` before any observation.
    #[must_use]
    pub fn mean(&self) -> Option<f64> {
        // u64 → f64 loses precision only beyond 2^53 observations.
        #[allow(clippy::cast_precision_loss)]
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

impl Serialize for Mean {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Mean", 2)?;
        s.serialize_field("count", &self.count)?;
        s.serialize_field("mean", &self.mean())?;
        s.end()
    }
}

/// Counts of scores in [`BUCKETS`] buckets of [`BUCKET_WIDTH`] on 0–10, plus scores outside that
/// range (a judge that returned 12 is worth noticing, not clamping).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Histogram {
    /// `counts[i]` counts scores in [i·0.5, (i+1)·0.5); the last bucket includes 10.
    pub counts: [u64; BUCKETS],
    /// Scores below 0, above 10, or not finite.
    pub out_of_range: u64,
}

impl Histogram {
    /// Counts `score` in its bucket.
    pub fn add(&mut self, score: f64) {
        match bucket_of(score) {
            Some(i) => self.counts[i] += 1,
            None => self.out_of_range += 1,
        }
    }

    /// The bounds `[low, high)` of bucket `index` (the last one is closed at 10).
    #[must_use]
    pub fn bounds(index: usize) -> (f64, f64) {
        #[allow(clippy::cast_precision_loss)] // index < 20
        let low = index as f64 * BUCKET_WIDTH;
        (low, low + BUCKET_WIDTH)
    }
}

fn bucket_of(score: f64) -> Option<usize> {
    if !(0.0..=10.0).contains(&score) {
        return None;
    }
    // In range and finite, so the floor is 0..=20 and the cast is exact; 10 joins the last bucket.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let index = (score / BUCKET_WIDTH).floor() as usize;
    Some(index.min(BUCKETS - 1))
}

/// What the pipeline knows about one finished record, borrowed for [`RunSummary::add`].
#[derive(Debug, Clone, Copy)]
pub struct RecordFacts<'a> {
    /// The scenario's parameters (axis name → value).
    pub params: &'a BTreeMap<String, Value>,
    /// The final weighted judge score (0–10), if the record got that far.
    pub score: Option<f64>,
    /// Whether the record was accepted (score ≥ the accept threshold).
    pub accepted: bool,
    /// Whether the record failed (provider or parse error) instead of finishing.
    pub failed: bool,
    /// The final score of each judge (0–10).
    pub judge_scores: &'a crate::JudgeScores,
    /// How many refinement rounds the record went through.
    pub refine_count: u32,
}

/// Aggregates of one parameter value: how many records had it, how many were accepted, and
/// their mean score.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ValueStats {
    /// Records with this value.
    pub records: u64,
    /// Accepted records with this value.
    pub accepted: u64,
    /// Mean final score of the records with this value that have a score.
    pub score: Mean,
}

impl ValueStats {
    /// accepted / records, or `None` without records.
    #[must_use]
    pub fn acceptance_rate(&self) -> Option<f64> {
        ratio(self.accepted, self.records)
    }
}

/// One (parameter, value) pair and its aggregates, as returned by [`RunSummary::lowest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamValueStats {
    /// The parameter (axis) name.
    pub param: String,
    /// The value, as text (strings bare, anything else as compact JSON with sorted keys).
    pub value: String,
    /// Its aggregates.
    pub stats: ValueStats,
}

/// End-of-run summary of the data pipeline. Build with `default()`, feed with [`add`](Self::add).
///
/// ```
/// use scoring::summary::{RecordFacts, RunSummary};
/// use std::collections::BTreeMap;
/// let params = BTreeMap::from([("topic".to_owned(), serde_json::json!("travel"))]);
/// let judges = BTreeMap::from([("fluency".into(), 9.0)]);
/// let mut summary = RunSummary::default();
/// summary.add(&RecordFacts { params: &params, score: Some(8.5), accepted: true, failed: false, judge_scores: &judges, refine_count: 1 });
/// assert_eq!(summary.done, 1);
/// assert_eq!(summary.acceptance_rate(), Some(1.0));
/// assert_eq!(summary.lowest(1)[0].value, "travel");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunSummary {
    /// Records added, failed or not.
    pub done: u64,
    /// Accepted records.
    pub accepted: u64,
    /// Records that failed instead of finishing.
    pub failed: u64,
    /// Final scores of the records that have one.
    pub histogram: Histogram,
    /// Mean final score of the records that have one.
    pub score: Mean,
    /// Mean score per judge name, over records that have that judge's score.
    pub judges: BTreeMap<String, Mean>,
    /// Mean refine count over records that did not fail.
    pub refine_count: Mean,
    /// Parameter name → value text → aggregates.
    pub params: BTreeMap<String, BTreeMap<String, ValueStats>>,
}

impl RunSummary {
    /// Adds one record. A failed record counts in `done` and `failed` and in its parameter values'
    /// record counts (a value that makes records fail is worth seeing), but adds no score, judge
    /// or refine figures. Non-finite scores are left out of every mean and counted as out of range.
    pub fn add(&mut self, record: &RecordFacts<'_>) {
        self.done += 1;
        if record.failed {
            self.failed += 1;
        }
        if record.accepted {
            self.accepted += 1;
        }
        let score = record.score.filter(|s| s.is_finite());
        if let Some(s) = record.score {
            self.histogram.add(s);
        }
        if let Some(s) = score {
            self.score.add(s);
        }
        if !record.failed {
            self.refine_count.add(f64::from(record.refine_count));
            for (judge, &s) in record.judge_scores.iter().filter(|(_, s)| s.is_finite()) {
                // get_mut first so the common case does not allocate a key.
                match self.judges.get_mut(judge.as_str()) {
                    Some(mean) => mean.add(s),
                    None => {
                        let mut mean = Mean::default();
                        mean.add(s);
                        self.judges.insert(judge.to_string(), mean);
                    }
                }
            }
        }
        for (param, value) in record.params {
            let values = self.params.entry(param.clone()).or_default();
            let stats = values.entry(value_text(value)).or_default();
            stats.records += 1;
            if record.accepted {
                stats.accepted += 1;
            }
            if let Some(s) = score {
                stats.score.add(s);
            }
        }
        tracing::trace!(done = self.done, "summary record added");
    }

    /// accepted / done, or `None` before any record.
    #[must_use]
    pub fn acceptance_rate(&self) -> Option<f64> {
        ratio(self.accepted, self.done)
    }

    /// The `k` parameter values with the lowest mean score, worst first. Ties (and values without
    /// any score, which come last) are ordered by lower acceptance rate, then parameter name, then
    /// value text, so the result is deterministic.
    #[must_use]
    pub fn lowest(&self, k: usize) -> Vec<ParamValueStats> {
        let mut all: Vec<(&String, &String, &ValueStats)> = self
            .params
            .iter()
            .flat_map(|(param, values)| values.iter().map(move |(value, s)| (param, value, s)))
            .collect();
        all.sort_by(|a, b| {
            cmp_missing_last(a.2.score.mean(), b.2.score.mean())
                .then_with(|| cmp_missing_last(a.2.acceptance_rate(), b.2.acceptance_rate()))
                .then_with(|| a.0.cmp(b.0))
                .then_with(|| a.1.cmp(b.1))
        });
        all.into_iter()
            .take(k)
            .map(|(param, value, stats)| ParamValueStats {
                param: param.clone(),
                value: value.clone(),
                stats: stats.clone(),
            })
            .collect()
    }
}

/// Pass/fail counts of one category of scenarios.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PassFail {
    /// Scenarios that passed.
    pub passed: u64,
    /// Scenarios that failed.
    pub failed: u64,
}

/// How often one check (by name) failed across a suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedCheck {
    /// The check's display name (`expectedFunction`, `shouldContain: "fee"`, …).
    pub name: String,
    /// How many times it failed.
    pub failures: u64,
}

/// Summary of a bot test suite: pass/fail overall and per category, mean score, and how often
/// each check failed. Build with `default()`, feed with [`add`](Self::add).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SuiteSummary {
    /// Scenarios overall.
    pub total: PassFail,
    /// Category → pass/fail counts.
    pub categories: BTreeMap<String, PassFail>,
    /// Mean score over scenarios whose score is shown (≥ 3 counted checks).
    pub score: Mean,
    /// Check name → number of failures.
    pub check_failures: BTreeMap<String, u64>,
    /// Checks evaluated, over all scenarios.
    pub checks: u64,
    /// Of those, verdicts an unsure text rule's guess decided (marked low confidence): the ones
    /// `--judge llm` (or the bot's `signals`) would decide instead.
    pub low_confidence: u64,
}

impl SuiteSummary {
    /// Adds one scenario's report.
    pub fn add(&mut self, report: &ScenarioReport) {
        let card = &report.card;
        let category = self.categories.entry(report.category.clone()).or_default();
        if card.passed() {
            self.total.passed += 1;
            category.passed += 1;
        } else {
            self.total.failed += 1;
            category.failed += 1;
        }
        if card.show_score() {
            self.score.add(f64::from(card.score()));
        }
        for check in card.checks().iter().filter(|c| !c.passed) {
            *self.check_failures.entry(check.name.clone()).or_default() += 1;
        }
        self.checks += card.checks().len() as u64;
        self.low_confidence += card.checks().iter().filter(|c| c.low_confidence).count() as u64;
    }

    /// Share of the checks an unsure text rule decided, or `None` before any check.
    #[must_use]
    pub fn unsure_rate(&self) -> Option<f64> {
        ratio(self.low_confidence, self.checks)
    }

    /// passed / total, or `None` before any scenario.
    #[must_use]
    pub fn pass_rate(&self) -> Option<f64> {
        ratio(self.total.passed, self.total.passed + self.total.failed)
    }

    /// The `k` checks that failed most often, most first, ties by name.
    #[must_use]
    pub fn most_failed(&self, k: usize) -> Vec<FailedCheck> {
        let mut all: Vec<(&String, u64)> =
            self.check_failures.iter().map(|(n, c)| (n, *c)).collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        all.into_iter()
            .take(k)
            .map(|(name, failures)| FailedCheck {
                name: name.clone(),
                failures,
            })
            .collect()
    }
}

/// The runs of one scenario (`test --repeat N`): how many passed, the spread of their shown
/// scores, and the checks whose verdict changed between runs. Build with `default()`, feed each
/// run's report with [`add`](Self::add).
///
/// A check is identified by its place in the expectation tree ([`Check::path`]), never by its
/// display name (two checks may share one). Checks inside an `any` count as that `any`: which
/// branch held may change between runs without the verdict changing. A check that exists only
/// when something went wrong (a `botError`, a judge failure: their paths do not start with
/// `expect`) flips when some runs have it and others do not.
///
/// ```
/// use scoring::summary::RepeatSummary;
/// use scoring::{Check, CheckKind, ScenarioReport, ScoreCard, ScorePolicy};
/// let run = |passed: bool| {
///     let check = Check::new(CheckKind::ShouldContain, "shouldContain: \"fee\"", passed, "")
///         .at("expect.shouldContain");
///     ScenarioReport::new("s", "S", "happy-path", ScoreCard::new(vec![check], &ScorePolicy::default()))
/// };
/// let mut runs = RepeatSummary::default();
/// runs.add(&run(true));
/// runs.add(&run(false));
/// assert_eq!((runs.passed_runs, runs.runs), (1, 2));
/// assert_eq!(runs.flipping()[0].path, "expect.shouldContain");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RepeatSummary {
    /// Runs added.
    pub runs: u64,
    /// Runs that passed.
    pub passed_runs: u64,
    /// Shown scores (the ≥3-checks visibility rule) of the runs that have one, in run order.
    pub scores: Vec<u32>,
    /// Flip key → the check's verdicts over the runs.
    checks: BTreeMap<String, CheckVerdicts>,
}

/// How one check (by flip key) came out over the runs of a scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
struct CheckVerdicts {
    /// The display name it had in its first run.
    name: String,
    /// Runs in which it passed.
    passed: u64,
    /// Runs in which it failed.
    failed: u64,
    /// Whether it is outside the expectation tree (present only when something went wrong).
    out_of_tree: bool,
}

/// A check whose verdict changed between runs of one scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlippingCheck {
    /// Its place in the expectation tree (an `any` for checks inside one), or its name for
    /// results without paths.
    pub path: String,
    /// Its display name.
    pub name: String,
    /// Runs in which it failed.
    pub failed_runs: u64,
}

impl RepeatSummary {
    /// Adds one run of the scenario.
    pub fn add(&mut self, report: &ScenarioReport) {
        let card = &report.card;
        self.runs += 1;
        if card.passed() {
            self.passed_runs += 1;
        }
        if card.show_score() {
            self.scores.push(card.score());
        }
        // One verdict per key and run: a key fails in a run when any of its checks fails.
        let mut this_run: BTreeMap<String, (&str, bool, bool)> = BTreeMap::new();
        // `maxLatencyMs` measures the wall clock, which varies between runs of a deterministic
        // bot: it is never counted as a flip.
        for check in card
            .checks()
            .iter()
            .filter(|c| c.kind != crate::CheckKind::MaxLatencyMs)
        {
            let key = flip_key(check);
            let entry = this_run.entry(key).or_insert((
                check.name.as_str(),
                true,
                !check.path.is_empty() && !check.path.starts_with("expect"),
            ));
            entry.1 &= check.passed;
        }
        for (key, (name, passed, out_of_tree)) in this_run {
            let verdicts = self.checks.entry(key).or_insert_with(|| CheckVerdicts {
                name: name.to_owned(),
                out_of_tree,
                ..CheckVerdicts::default()
            });
            if passed {
                verdicts.passed += 1;
            } else {
                verdicts.failed += 1;
            }
        }
    }

    /// passed runs / runs, or `None` before any run.
    #[must_use]
    pub fn pass_rate(&self) -> Option<f64> {
        ratio(self.passed_runs, self.runs)
    }

    /// The lowest shown score, or `None` when no run shows one.
    #[must_use]
    pub fn min_score(&self) -> Option<u32> {
        self.scores.iter().min().copied()
    }

    /// The median shown score (the mean of the middle two for an even count), or `None` when
    /// no run shows one.
    #[must_use]
    pub fn median_score(&self) -> Option<f64> {
        let mut sorted = self.scores.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(f64::from(sorted[n / 2])),
            _ => Some((f64::from(sorted[n / 2 - 1]) + f64::from(sorted[n / 2])) / 2.0),
        }
    }

    /// The checks that passed in some runs and failed in others, in path order.
    #[must_use]
    pub fn flipping(&self) -> Vec<FlippingCheck> {
        self.checks
            .iter()
            .filter(|(_, v)| {
                (v.passed > 0 && v.failed > 0)
                    || (v.out_of_tree && v.failed > 0 && v.failed < self.runs)
            })
            .map(|(path, v)| FlippingCheck {
                path: path.clone(),
                name: v.name.clone(),
                failed_runs: v.failed,
            })
            .collect()
    }
}

/// The key a check's verdicts are compared under across runs: its path, cut at the outermost
/// `any` (`expect.all[1].any[0].shouldContain` → `expect.all[1].any`); its name when it has no
/// path (results written before paths existed).
fn flip_key(check: &Check) -> String {
    if check.path.is_empty() {
        return check.name.clone();
    }
    match check.path.find(".any") {
        Some(i) => format!("{}.any", &check.path[..i]),
        None => check.path.clone(),
    }
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)] // exact below 2^53 records
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn cmp_missing_last(a: Option<f64>, b: Option<f64>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.total_cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// A parameter value as a map key: strings bare (`travel`, not `"travel"`), anything else as
/// compact JSON with object keys sorted recursively, so the key does not depend on whether
/// serde_json's `preserve_order` feature is on somewhere in the build.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => canonical(other).to_string(),
    }
}

fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), canonical(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{ScoreCard, ScorePolicy};
    use crate::check::{Check, CheckKind};
    use serde_json::json;

    fn params(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn judges(pairs: &[(&str, f64)]) -> crate::JudgeScores {
        pairs.iter().map(|(k, v)| ((*k).into(), *v)).collect()
    }

    #[test]
    fn histogram_buckets_edges() {
        assert_eq!(bucket_of(0.0), Some(0));
        assert_eq!(bucket_of(0.49), Some(0));
        assert_eq!(bucket_of(0.5), Some(1));
        assert_eq!(bucket_of(8.475), Some(16));
        assert_eq!(bucket_of(9.99), Some(19));
        assert_eq!(bucket_of(10.0), Some(19));
        assert_eq!(bucket_of(-0.1), None);
        assert_eq!(bucket_of(10.1), None);
        assert_eq!(bucket_of(f64::NAN), None);
        assert_eq!(Histogram::bounds(16), (8.0, 8.5));
    }

    #[test]
    fn run_summary_counts_means_and_lowest() {
        let travel_en = params(&[("topic", json!("travel")), ("pair", json!("en-es"))]);
        let food_en = params(&[("topic", json!("food")), ("pair", json!("en-es"))]);
        let j = |f: f64| judges(&[("fluency", f), ("naturalness", 8.0)]);
        let mut summary = RunSummary::default();
        summary.add(&RecordFacts {
            params: &travel_en,
            score: Some(9.0),
            accepted: true,
            failed: false,
            judge_scores: &j(9.0),
            refine_count: 0,
        });
        summary.add(&RecordFacts {
            params: &food_en,
            score: Some(6.0),
            accepted: false,
            failed: false,
            judge_scores: &j(5.0),
            refine_count: 2,
        });
        summary.add(&RecordFacts {
            params: &food_en,
            score: None,
            accepted: false,
            failed: true,
            judge_scores: &BTreeMap::new(),
            refine_count: 7,
        });

        assert_eq!((summary.done, summary.accepted, summary.failed), (3, 1, 1));
        assert_eq!(summary.acceptance_rate(), Some(1.0 / 3.0));
        assert_eq!(summary.histogram.counts[18], 1);
        assert_eq!(summary.histogram.counts[12], 1);
        assert_eq!(summary.histogram.counts.iter().sum::<u64>(), 2);
        assert_eq!(summary.score.mean(), Some(7.5));
        assert_eq!(summary.judges["fluency"].mean(), Some(7.0));
        assert_eq!(summary.judges["naturalness"].count(), 2);
        // The failed record's refine count is not averaged in.
        assert_eq!(summary.refine_count.mean(), Some(1.0));

        let food = &summary.params["topic"]["food"];
        assert_eq!((food.records, food.accepted), (2, 0));
        assert_eq!(food.score.mean(), Some(6.0));

        let lowest = summary.lowest(2);
        assert_eq!(lowest.len(), 2);
        assert_eq!(
            (lowest[0].param.as_str(), lowest[0].value.as_str()),
            ("topic", "food")
        );
        assert_eq!(
            (lowest[1].param.as_str(), lowest[1].value.as_str()),
            ("pair", "en-es")
        );
        assert_eq!(summary.lowest(10).len(), 3);
    }

    #[test]
    fn values_without_scores_sort_last_and_ties_are_deterministic() {
        let a = params(&[("x", json!(1)), ("y", json!(1))]);
        let b = params(&[("z", json!("only-failed"))]);
        let mut summary = RunSummary::default();
        summary.add(&RecordFacts {
            params: &b,
            score: None,
            accepted: false,
            failed: true,
            judge_scores: &BTreeMap::new(),
            refine_count: 0,
        });
        summary.add(&RecordFacts {
            params: &a,
            score: Some(5.0),
            accepted: false,
            failed: false,
            judge_scores: &BTreeMap::new(),
            refine_count: 0,
        });
        let order: Vec<String> = summary.lowest(3).into_iter().map(|p| p.param).collect();
        assert_eq!(order, ["x", "y", "z"]);
    }

    #[test]
    fn object_values_are_keyed_canonically() {
        assert_eq!(
            value_text(&json!({"b": 1, "a": [true, null]})),
            r#"{"a":[true,null],"b":1}"#
        );
        assert_eq!(value_text(&json!("plain")), "plain");
        assert_eq!(value_text(&json!(2.5)), "2.5");
    }

    #[test]
    fn summaries_serialize_means_and_histograms() {
        let mut summary = RunSummary::default();
        summary.add(&RecordFacts {
            params: &params(&[("topic", json!("t"))]),
            score: Some(12.0),
            accepted: false,
            failed: false,
            judge_scores: &BTreeMap::new(),
            refine_count: 1,
        });
        let json = serde_json::to_value(&summary).expect("serializes");
        assert_eq!(json["histogram"]["out_of_range"], json!(1));
        assert_eq!(json["refine_count"], json!({"count": 1, "mean": 1.0}));
        assert_eq!(json["params"]["topic"]["t"]["records"], json!(1));
        assert_eq!(
            serde_json::to_value(Mean::default()).expect("serializes")["mean"],
            Value::Null
        );
    }

    #[test]
    fn suite_summary_counts_categories_and_failed_checks() {
        let policy = ScorePolicy::default();
        let fee = || Check::fail(CheckKind::ShouldContain, "shouldContain: \"fee\"", "absent");
        let func = |ok| Check::new(CheckKind::ExpectedFunction, "expectedFunction", ok, "m");
        let reports = [
            ScenarioReport::new(
                "a",
                "A",
                "happy-path",
                ScoreCard::new(vec![func(true), fee()], &policy),
            ),
            ScenarioReport::new(
                "b",
                "B",
                "happy-path",
                ScoreCard::new(vec![func(false), fee()], &policy),
            ),
            ScenarioReport::new(
                "c",
                "C",
                "adversarial",
                ScoreCard::new(vec![func(true), func(true), fee()], &policy),
            ),
        ];
        let mut suite = SuiteSummary::default();
        for r in &reports {
            suite.add(r);
        }
        assert_eq!(
            suite.total,
            PassFail {
                passed: 2,
                failed: 1
            }
        );
        assert_eq!(
            suite.categories["happy-path"],
            PassFail {
                passed: 1,
                failed: 1
            }
        );
        assert_eq!(
            suite.categories["adversarial"],
            PassFail {
                passed: 1,
                failed: 0
            }
        );
        assert_eq!(suite.pass_rate(), Some(2.0 / 3.0));
        // Only "c" has 3 counted checks: (3 + 3) / 7 → 86.
        assert_eq!(suite.score.mean(), Some(86.0));
        let most = suite.most_failed(5);
        assert_eq!(
            most,
            [
                FailedCheck {
                    name: "shouldContain: \"fee\"".into(),
                    failures: 3
                },
                FailedCheck {
                    name: "expectedFunction".into(),
                    failures: 1
                },
            ]
        );
        assert_eq!(suite.most_failed(1).len(), 1);
    }
}
