//! Run-vs-run comparison: matches the scenarios of two results of the same kind by id and finds
//! score deltas, accept/pass decisions that changed, checks that flipped (suites), and scenarios
//! new in or missing from the second. A [`Regression`] is a decision that got worse
//! (accepted→rejected, passed→failed) or, when a minimum delta is set, a score drop larger than it.
//!
//! Pipeline runs are compared without holding either file: [`compare_runs`] keeps a compact index
//! of the first run (about 32 bytes per id, ids of 16 hex digits stored as numbers) and streams
//! the second against it; the rows listed are capped at [`ROWS_KEPT`] per kind while every count
//! stays exact. Suite results are small and compared in memory ([`compare_suites`]).

use std::collections::BTreeMap;

use serde::Serialize;

use runlog::RecordSettings;
use runlog::record::index::{IdKey, IdTexts};
use runlog::record::{Located, RecordError, ScenarioRecord};
use scoring::SuiteResult;

/// Rows kept per list (regressions, improvements, other changes, new, missing); beyond it only
/// the count grows.
pub const ROWS_KEPT: usize = 1000;

/// Scores closer than this are rounding noise, not changes.
const EPSILON: f64 = 1e-9;

/// What kind of results were compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ComparedKind {
    /// Data-pipeline runs (scores 0–10, accepted/rejected).
    Pipeline,
    /// Bot-suite results (scores 0–100, passed/failed).
    Suite,
}

/// A check whose outcome differs between the two results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckFlip {
    /// The check's display name.
    pub name: String,
    /// Passed before.
    pub before: bool,
    /// Passed after.
    pub after: bool,
}

/// One scenario present in both whose score, decision or checks changed.
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

/// How many rows of each list exist, kept or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct RowCounts {
    /// Scenarios with at least one regression.
    pub regressed: usize,
    /// Scenarios whose decision improved.
    pub improved: usize,
    /// Other changed scenarios.
    pub other: usize,
    /// Scenarios only in the second result.
    pub new: usize,
    /// Scenarios only in the first result.
    pub missing: usize,
}

/// The comparison of two results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// Each judge's mean score in either run, every record of it counted (pipeline runs; empty
    /// for suites): the four and any judge a run's config declared.
    pub judges: Vec<JudgeMeans>,
    /// How the two runs' accept rules differ (their first records' `run_settings`: judge set,
    /// weights, threshold, ratio judge, …), in words, `before` first; empty when they match or
    /// for suites. A regression may then come from the change of rules, not the texts.
    pub rules: Vec<String>,
    /// The kind of both.
    pub kind: ComparedKind,
    /// Scenarios in both.
    pub matched: usize,
    /// Kept changed scenarios, by id: every kept regression's and improvement's, and other
    /// changes up to [`ROWS_KEPT`].
    pub changes: Vec<Change>,
    /// Kept scenarios only in the second result, by id.
    pub new: Vec<String>,
    /// Kept scenarios only in the first result, by id.
    pub missing: Vec<String>,
    /// Kept regressions, by id (a scenario may appear once per kind).
    pub regressions: Vec<Regression>,
    /// The full size of each list.
    pub counts: RowCounts,
    /// Accepted/passed scenarios before and after, over all scenarios of each.
    pub ok_before: usize,
    /// See `ok_before`.
    pub ok_after: usize,
    /// Scenarios in each.
    pub total_before: usize,
    /// See `total_before`.
    pub total_after: usize,
    /// Mean score over matched scenarios, before and after.
    pub mean_before: Option<f64>,
    /// See `mean_before`.
    pub mean_after: Option<f64>,
    /// Scenarios failed now in each run (its errors file, less the scenarios with a record);
    /// always 0 for suites.
    pub failed_before: u64,
    /// See `failed_before`.
    pub failed_after: u64,
}

impl Diff {
    /// Kept matched scenarios whose decision improved (rejected→accepted, failed→passed).
    #[must_use]
    pub fn improvements(&self) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|c| !c.before_ok && c.after_ok)
            .collect()
    }

    /// True when any scenario regressed.
    #[must_use]
    pub fn has_regressions(&self) -> bool {
        self.counts.regressed > 0
    }
}

/// The facts compared for one scenario.
#[derive(Debug, Clone, Default)]
struct Facts {
    score: f64,
    ok: bool,
    checks: Vec<(String, bool)>,
}

/// Accumulates a [`Diff`] from scenarios visited in id order.
struct DiffBuilder {
    diff: Diff,
    decision_kind: RegressionKind,
    min_score_delta: Option<f64>,
    sum_before: f64,
    sum_after: f64,
}

impl DiffBuilder {
    fn new(kind: ComparedKind, min_score_delta: Option<f64>) -> Self {
        Self {
            diff: Diff {
                kind,
                matched: 0,
                changes: Vec::new(),
                new: Vec::new(),
                missing: Vec::new(),
                regressions: Vec::new(),
                counts: RowCounts::default(),
                ok_before: 0,
                ok_after: 0,
                total_before: 0,
                total_after: 0,
                mean_before: None,
                mean_after: None,
                judges: Vec::new(),
                rules: Vec::new(),
                failed_before: 0,
                failed_after: 0,
            },
            decision_kind: match kind {
                ComparedKind::Pipeline => RegressionKind::Rejected,
                ComparedKind::Suite => RegressionKind::Failed,
            },
            min_score_delta,
            sum_before: 0.0,
            sum_after: 0.0,
        }
    }

    fn matched(&mut self, id: &str, old: &Facts, new: &Facts) {
        let d = &mut self.diff;
        d.matched += 1;
        d.total_before += 1;
        d.total_after += 1;
        d.ok_before += usize::from(old.ok);
        d.ok_after += usize::from(new.ok);
        self.sum_before += old.score;
        self.sum_after += new.score;
        let delta = new.score - old.score;
        let flips = check_flips(&old.checks, &new.checks);
        let mut kinds = Vec::new();
        if old.ok && !new.ok {
            kinds.push(self.decision_kind);
        }
        if self
            .min_score_delta
            .is_some_and(|min| -delta > min + EPSILON)
        {
            kinds.push(RegressionKind::ScoreDrop);
        }
        if delta.abs() <= EPSILON && old.ok == new.ok && flips.is_empty() {
            return;
        }
        let counter = if !kinds.is_empty() {
            &mut d.counts.regressed
        } else if !old.ok && new.ok {
            &mut d.counts.improved
        } else {
            &mut d.counts.other
        };
        *counter += 1;
        if *counter > ROWS_KEPT {
            return;
        }
        d.regressions
            .extend(kinds.into_iter().map(|kind| Regression {
                id: id.to_owned(),
                kind,
                delta,
            }));
        d.changes.push(Change {
            id: id.to_owned(),
            before_score: old.score,
            after_score: new.score,
            delta,
            before_ok: old.ok,
            after_ok: new.ok,
            flips,
        });
    }

    fn only_before(&mut self, id: &str, ok: bool) {
        let d = &mut self.diff;
        d.total_before += 1;
        d.ok_before += usize::from(ok);
        d.counts.missing += 1;
        if d.counts.missing <= ROWS_KEPT {
            d.missing.push(id.to_owned());
        }
    }

    fn only_after(&mut self, id: &str, ok: bool) {
        let d = &mut self.diff;
        d.total_after += 1;
        d.ok_after += usize::from(ok);
        d.counts.new += 1;
        if d.counts.new <= ROWS_KEPT {
            d.new.push(id.to_owned());
        }
    }

    fn finish(mut self) -> Diff {
        #[allow(clippy::cast_precision_loss)] // scenario counts far below 2^53
        let mean = |sum: f64, n: usize| (n > 0).then(|| sum / n as f64);
        self.diff.mean_before = mean(self.sum_before, self.diff.matched);
        self.diff.mean_after = mean(self.sum_after, self.diff.matched);
        self.diff.new.sort();
        tracing::debug!(
            matched = self.diff.matched,
            regressed = self.diff.counts.regressed,
            "diff computed"
        );
        self.diff
    }
}

/// Compares two suite results; `min_score_delta`, when set, makes a score drop larger than it a
/// regression.
#[must_use]
pub fn compare_suites(
    before: &SuiteResult,
    after: &SuiteResult,
    min_score_delta: Option<f64>,
) -> Diff {
    let facts = |result: &SuiteResult| -> BTreeMap<String, Facts> {
        result
            .scenarios
            .iter()
            .filter_map(|s| {
                let card = &s.verdict_run()?.report.card;
                Some((
                    s.id.clone(),
                    Facts {
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
    };
    let (a, b) = (facts(before), facts(after));
    let mut builder = DiffBuilder::new(ComparedKind::Suite, min_score_delta);
    for (id, old) in &a {
        match b.get(id) {
            Some(new) => builder.matched(id, old, new),
            None => builder.only_before(id, old.ok),
        }
    }
    for (id, new) in b.iter().filter(|(id, _)| !a.contains_key(*id)) {
        builder.only_after(id, new.ok);
    }
    builder.finish()
}

/// Checks matched by name and occurrence (a card may hold two checks of the same name), so
/// the n-th `shouldContain: "fee"` before is compared with the n-th after.
fn check_flips(before: &[(String, bool)], after: &[(String, bool)]) -> Vec<CheckFlip> {
    if before.is_empty() || after.is_empty() {
        return Vec::new();
    }
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

const OK_BEFORE: u8 = 1;
const OK_AFTER: u8 = 2;
const MATCHED: u8 = 4;

/// One id of the first run (32 bytes).
#[derive(Debug, Clone, Copy)]
struct Slot {
    hex: u64,
    before: f64,
    after: f64,
    text: u32,
    flags: u8,
}

impl Slot {
    fn key(&self) -> IdKey {
        IdKey {
            hex: self.hex,
            text: self.text,
        }
    }
}

/// Sorts by id and keeps the last of each id (a resumed run may hold an id twice; the last line
/// is the newest result). The sort is stable, so "last" is file order.
fn sort_last_wins(ids: &IdTexts, slots: &mut Vec<Slot>) {
    slots.sort_by(|a, b| ids.cmp(a.key(), b.key()));
    slots.dedup_by(|next, kept| {
        let same = ids.cmp(next.key(), kept.key()).is_eq();
        if same {
            *kept = *next;
        }
        same
    });
}

/// One judge's mean score in the run before and the run after (`None`: that run has no score
/// of this judge, e.g. a judge only the later run's config declared).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeMeans {
    /// The judge's name (`fluency`, …, or a declared judge's).
    pub name: String,
    /// Mean over the records of the run before.
    pub before: Option<f64>,
    /// Mean over the records of the run after.
    pub after: Option<f64>,
}

/// Sums of each judge's scores over one run: (sum, count) by name.
type JudgeSums = BTreeMap<String, (f64, u64)>;

fn add_judges(sums: &mut JudgeSums, record: &ScenarioRecord) {
    for (name, score) in record.scores.iter().filter(|(_, s)| s.is_finite()) {
        let entry = sums.entry(name.to_string()).or_default();
        entry.0 += score;
        entry.1 += 1;
    }
}

fn judge_means(before: &JudgeSums, after: &JudgeSums) -> Vec<JudgeMeans> {
    #[allow(clippy::cast_precision_loss)] // record counts far below 2^53
    let mean = |sums: &JudgeSums, name: &str| sums.get(name).map(|(s, n)| s / *n as f64);
    let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| JudgeMeans {
            name: name.clone(),
            before: mean(before, name),
            after: mean(after, name),
        })
        .collect()
}

/// Compares two pipeline runs, each given as a stream of records; memory is the compact index
/// of `before` (and of the ids only in `after`) plus the kept rows.
///
/// # Errors
/// The first record error of either stream, with `0` for `before` and `1` for `after`.
pub fn compare_runs<B, A>(
    before: B,
    after: A,
    min_score_delta: Option<f64>,
) -> Result<Diff, (usize, RecordError)>
where
    B: IntoIterator<Item = Result<Located<ScenarioRecord>, RecordError>>,
    A: IntoIterator<Item = Result<Located<ScenarioRecord>, RecordError>>,
{
    let mut ids = IdTexts::default();
    let mut slots = Vec::new();
    let (mut judges_before, mut judges_after) = (JudgeSums::new(), JudgeSums::new());
    let (mut rules_before, mut rules_after) = (None, None);
    for item in before {
        let r = item.map_err(|e| (0, e))?.record;
        add_judges(&mut judges_before, &r);
        if rules_before.is_none() {
            rules_before.clone_from(&r.run_settings);
        }
        let key = ids.key(&r.id);
        slots.push(Slot {
            hex: key.hex,
            before: r.score,
            after: 0.0,
            text: key.text,
            flags: if r.accepted { OK_BEFORE } else { 0 },
        });
    }
    sort_last_wins(&ids, &mut slots);
    slots.shrink_to_fit();
    let mut only_after = Vec::new();
    for item in after {
        let r = item.map_err(|e| (1, e))?.record;
        add_judges(&mut judges_after, &r);
        if rules_after.is_none() {
            rules_after.clone_from(&r.run_settings);
        }
        match slots.binary_search_by(|s| ids.cmp_str(s.key(), &r.id)) {
            Ok(i) => {
                let slot = &mut slots[i];
                slot.after = r.score;
                slot.flags =
                    (slot.flags & OK_BEFORE) | MATCHED | if r.accepted { OK_AFTER } else { 0 };
            }
            Err(_) => {
                let key = ids.key(&r.id);
                only_after.push(Slot {
                    hex: key.hex,
                    before: 0.0,
                    after: r.score,
                    text: key.text,
                    flags: if r.accepted { OK_AFTER } else { 0 },
                });
            }
        }
    }
    sort_last_wins(&ids, &mut only_after);
    let mut builder = DiffBuilder::new(ComparedKind::Pipeline, min_score_delta);
    for slot in &slots {
        let id = ids.string(slot.key());
        if slot.flags & MATCHED == 0 {
            builder.only_before(&id, slot.flags & OK_BEFORE != 0);
            continue;
        }
        let old = Facts {
            score: slot.before,
            ok: slot.flags & OK_BEFORE != 0,
            checks: Vec::new(),
        };
        let new = Facts {
            score: slot.after,
            ok: slot.flags & OK_AFTER != 0,
            checks: Vec::new(),
        };
        builder.matched(&id, &old, &new);
    }
    for slot in &only_after {
        builder.only_after(&ids.string(slot.key()), slot.flags & OK_AFTER != 0);
    }
    let mut diff = builder.finish();
    diff.judges = judge_means(&judges_before, &judges_after);
    if let (Some(a), Some(b)) = (&rules_before, &rules_after) {
        diff.rules = rule_differences(a, b);
    }
    Ok(diff)
}

/// How `before`'s rules differ from `after`'s: the judges in one run only, then each setting.
fn rule_differences(before: &RecordSettings, after: &RecordSettings) -> Vec<String> {
    let mut out = Vec::new();
    let only = |a: &RecordSettings, b: &RecordSettings| -> Vec<String> {
        a.weights
            .0
            .keys()
            .filter(|k| !b.weights.0.contains_key(*k))
            .cloned()
            .collect()
    };
    for (names, which) in [
        (only(before, after), "the first run"),
        (only(after, before), "the second run"),
    ] {
        if !names.is_empty() {
            out.push(format!("judges only in {which}: {}", names.join(", ")));
        }
    }
    out.extend(before.differences(after));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use runlog::record::RecordReader;

    /// Two runs scored under other weights or thresholds were compared with no word of it:
    /// their regressions came partly from the rules.
    #[test]
    fn differing_rules_are_said() {
        let settings = |threshold: f64, tox: Option<f64>| {
            let mut weights: BTreeMap<String, f64> = scoring::JudgeWeights::default().0;
            if let Some(w) = tox {
                weights.insert("toxicity".into(), w);
            }
            json!({"threshold": threshold, "weights": weights, "ratio_judge": "hybrid",
                   "max_refinements": 1})
        };
        let line = |s: serde_json::Value| {
            json!({"id": "a", "score": 8.0, "accepted": true, "run_settings": s}).to_string() + "\n"
        };
        let diff_of = |a: String, b: String| {
            compare_runs(
                RecordReader::new(a.as_bytes()),
                RecordReader::new(b.as_bytes()),
                None,
            )
            .expect("compared")
        };
        let same = diff_of(
            line(settings(8.0, Some(1.0))),
            line(settings(8.0, Some(1.0))),
        );
        assert!(same.rules.is_empty(), "{:?}", same.rules);
        let d = diff_of(line(settings(8.0, Some(1.0))), line(settings(9.0, None)));
        assert_eq!(d.rules[0], "judges only in the first run: toxicity");
        assert!(
            d.rules.iter().any(|r| r == "threshold 8 vs 9"),
            "{:?}",
            d.rules
        );
        assert!(
            d.rules.iter().any(|r| r.starts_with("weights ")),
            "{:?}",
            d.rules
        );
        let view = crate::render::DiffView::new(&d, "a.jsonl", "b.jsonl", None);
        let md = crate::render::diff_markdown(&view).expect("markdown");
        let terminal = crate::terminal::diff(&view);
        let at = md
            .find("rules differ")
            .unwrap_or_else(|| panic!("said: {md}"));
        assert!(
            at < md.find("| mean score").expect("the table"),
            "near the top: {md}"
        );
        assert!(md.contains("threshold 8 vs 9"), "{md}");
        let second = terminal.lines().nth(1).unwrap_or_default();
        assert!(
            second.starts_with("rules differ"),
            "under the headline: {terminal}"
        );
        assert!(second.contains("threshold 8 vs 9"), "{terminal}");
    }
    use serde_json::json;

    fn run(records: &[(&str, f64, bool)]) -> String {
        records
            .iter()
            .map(|(id, score, accepted)| {
                json!({"id": id, "score": score, "accepted": accepted}).to_string() + "\n"
            })
            .collect()
    }

    fn compare(a: &str, b: &str, min: Option<f64>) -> Diff {
        compare_runs(
            RecordReader::new(a.as_bytes()),
            RecordReader::new(b.as_bytes()),
            min,
        )
        .expect("valid runs")
    }

    #[test]
    fn pipeline_diff_finds_decisions_drops_new_and_missing() {
        let before = run(&[
            ("a", 8.5, true),
            ("b", 9.0, true),
            ("c", 6.0, false),
            ("gone", 7.0, false),
        ]);
        let after = run(&[
            ("fresh", 9.0, true),
            ("a", 7.5, false),
            ("b", 8.1, true),
            ("c", 8.2, true),
        ]);
        let d = compare(&before, &after, Some(0.5));
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
        assert_eq!(
            (d.ok_before, d.ok_after, d.total_before, d.total_after),
            (2, 3, 4, 4)
        );
        let d = compare(&before, &after, None);
        assert_eq!(d.regressions.len(), 1);
    }

    #[test]
    fn a_drop_equal_to_the_delta_is_not_a_regression() {
        let d = compare(
            &run(&[("a", 9.0, true)]),
            &run(&[("a", 8.5, true)]),
            Some(0.5),
        );
        assert!(d.regressions.is_empty());
        assert!(!d.has_regressions());
    }

    #[test]
    fn the_last_line_of_an_id_wins_in_both_runs() {
        let before = run(&[("a", 9.0, true), ("a", 5.0, false)]);
        let after = run(&[
            ("a", 4.0, false),
            ("a", 9.0, true),
            ("n", 1.0, false),
            ("n", 9.0, true),
        ]);
        let d = compare(&before, &after, None);
        assert_eq!((d.matched, d.total_before, d.total_after), (1, 1, 2));
        assert_eq!(d.improvements().len(), 1);
        assert_eq!((d.new.len(), d.ok_after), (1, 2));
    }

    #[test]
    fn hex_and_text_ids_sort_as_strings_and_lists_are_capped_with_exact_counts() {
        let ids: Vec<String> = (0..ROWS_KEPT as u64 + 5)
            .map(|i| format!("{:016x}", i * 7919))
            .collect();
        let mut before: Vec<(&str, f64, bool)> =
            ids.iter().map(|id| (id.as_str(), 9.0, true)).collect();
        before.push(("zz-text", 9.0, true));
        before.push(("0-text", 9.0, true));
        let after: Vec<(&str, f64, bool)> =
            ids.iter().map(|id| (id.as_str(), 4.0, false)).collect();
        let d = compare(&run(&before), &run(&after), None);
        assert_eq!(d.counts.regressed, ROWS_KEPT + 5);
        assert_eq!(d.regressions.len(), ROWS_KEPT);
        assert_eq!(d.missing, ["0-text", "zz-text"]);
        let kept: Vec<&str> = d.changes.iter().map(|c| c.id.as_str()).collect();
        let mut sorted = kept.clone();
        sorted.sort_unstable();
        assert_eq!(kept, sorted);
        assert_eq!(kept[0], ids[0]);
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
