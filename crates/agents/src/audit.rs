//! Judge reliability: re-judging recorded batches K times and measuring how much the judges and
//! the accept decision move.
//!
//! This module owns the audit of a finished run: [`rejudge`] replays each sampled record's final
//! batch through the same [`ScenarioRun`](crate::machine::ScenarioRun) state machine and the
//! same driver ([`crate::driver::drive`]) the run used, on a [`ReplayBackend`] (the recorded
//! texts stand in for the generator's reply, and refinement is switched off), so the four judges
//! are rendered, sent, parsed and weighted exactly as in a run, the configured `ratio_judge` mode
//! included (measured mode makes no call and has zero spread by construction). Every judge call
//! skips the response cache, since a cached reply would hide all variation. [`summarise`] is the pure
//! aggregation: per judge and per scenario the mean, standard deviation and min/max spread, the
//! weighted score of each repeat, and the **flip rate**, the share of scenarios whose accept
//! decision (score ≥ threshold) changes across repeats, overall and near the threshold.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use llm_client::{ChatModel, ChatResponse, LlmError};
use scenarios::Scenario;

use crate::driver::{Backend, Dispatch, Policy, Progress, Reply, Slot, drive};
use crate::driver::{RunControl, RunStats, StopReason};
use crate::executor::OnlineBackend;
use crate::machine::{Pipeline, RunOutcome, SettingsError};
use crate::prompts::PromptError;
use runlog::AgentKind;
use runlog::record::ScenarioRecord;
pub use runlog::record::unflatten_params;

/// A scenario is "near the threshold" when its original score is within this many points of it.
pub const NEAR_THRESHOLD_MARGIN: f64 = 0.5;

/// The model name put on the synthetic generator reply that carries the recorded batch.
const RECORDED_MODEL: &str = "recorded-batch";

/// One record to re-judge: its scenario, the batch that was judged last, and the score it got.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditItem {
    /// The scenario (its id is the record's id).
    pub scenario: Scenario,
    /// The final texts of the record.
    pub texts: Vec<String>,
    /// The record's final weighted score.
    pub original_score: f64,
    /// The rules the record was decided under (`run_settings`; `None` in records written
    /// before them, or built by hand).
    pub settings: Option<runlog::RecordSettings>,
}

impl AuditItem {
    /// Builds an item from a record's parts; `flat_params` are the record's top-level parameters
    /// (see [`unflatten_params`]). The record's id is kept even if the parameters would hash to
    /// another one, so the audit reports the ids the user sees in the file.
    #[must_use]
    pub fn from_record(
        id: impl Into<String>,
        index: u64,
        flat_params: &BTreeMap<String, Value>,
        texts: Vec<String>,
        original_score: f64,
    ) -> Self {
        Self {
            scenario: Scenario {
                id: id.into(),
                index,
                params: unflatten_params(flat_params),
            },
            texts,
            original_score,
            settings: None,
        }
    }
}

/// Picks `n` of `len` positions, deterministically from `seed`, returned in ascending order
/// (file order). Every position gets a pseudo-random rank from a SplitMix64 hash of the seed and
/// the position, and the `n` lowest ranks win: the choice does not depend on the platform, and a
/// larger `n` with the same seed keeps the smaller sample's picks.
#[must_use]
pub fn sample_indices(len: usize, n: usize, seed: u64) -> Vec<usize> {
    let mut ranked: Vec<(u64, usize)> = (0..len)
        .map(|i| (splitmix64(seed ^ splitmix64(i as u64)), i))
        .collect();
    ranked.sort_unstable();
    let mut picked: Vec<usize> = ranked.into_iter().take(n).map(|(_, i)| i).collect();
    picked.sort_unstable();
    picked
}

/// The streaming form of [`sample_indices`]: offered records one at a time, it keeps exactly the
/// ones `sample_indices(total, n, seed)` would pick, holding at most `n` of them (the `n` lowest
/// ranks so far), so a sample of a huge file never loads the file.
#[derive(Debug)]
pub struct Sampler {
    n: usize,
    seed: u64,
    seen: usize,
    kept: std::collections::BinaryHeap<Ranked>,
}

#[derive(Debug)]
struct Ranked {
    rank: (u64, usize),
    item: AuditItem,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.rank == other.rank
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank.cmp(&other.rank)
    }
}

impl Sampler {
    /// A sampler of `n` records for `seed`.
    #[must_use]
    pub fn new(n: usize, seed: u64) -> Self {
        Self {
            n,
            seed,
            seen: 0,
            kept: std::collections::BinaryHeap::new(),
        }
    }

    /// Offers the next record of the file.
    pub fn offer(&mut self, record: &ScenarioRecord) {
        let position = self.seen;
        self.seen += 1;
        let rank = (
            splitmix64(self.seed ^ splitmix64(position as u64)),
            position,
        );
        if self.kept.len() == self.n && self.kept.peek().is_none_or(|top| top.rank < rank) {
            return;
        }
        self.kept.push(Ranked {
            rank,
            item: AuditItem {
                settings: record.run_settings.clone(),
                ..AuditItem::from_record(
                    record.id.clone(),
                    record.index,
                    &record.params,
                    record.data_generation_result.clone(),
                    record.score,
                )
            },
        });
        if self.kept.len() > self.n {
            self.kept.pop();
        }
    }

    /// The records offered so far.
    #[must_use]
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// The sample, in file order.
    #[must_use]
    pub fn finish(self) -> Vec<AuditItem> {
        let mut kept = self.kept.into_vec();
        kept.sort_by_key(|r| r.rank.1);
        kept.into_iter().map(|r| r.item).collect()
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How the audit calls the judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditOptions {
    /// Times each batch is judged (K).
    pub repeats: u32,
    /// Send `seed = configured seed (or 0) + repeat` with every call of a repeat, so a provider
    /// that is deterministic per request still samples differently per repeat. Off: every repeat
    /// sends the run's settings unchanged, which measures plain reproducibility.
    pub vary_seed: bool,
    /// Repeats (of any scenario) judged at once; the transport's own limits still apply.
    pub in_flight: usize,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            repeats: 3,
            vary_seed: false,
            in_flight: 8,
        }
    }
}

/// Why a repeat produced no scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The record cannot be replayed (missing language parameters, too few usable texts).
    Input,
    /// A judge call failed at the provider (after every retry: 5xx, 429, a timeout, a refusal).
    Provider,
    /// A judge's replies stayed invalid (a score outside 0–10, not a number, broken JSON) after
    /// every try: the model's fault, not the provider's.
    InvalidReply,
}

/// A repeat that produced no scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatFailure {
    /// 0-based repeat number.
    pub repeat: u32,
    /// Whose fault it was.
    pub kind: FailureKind,
    /// What went wrong.
    pub reason: String,
}

/// One repeat's judgement of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatScores {
    /// 0-based repeat number.
    pub repeat: u32,
    /// The four judge scores by weight name.
    pub scores: scoring::JudgeScores,
    /// The weighted score of this repeat.
    pub score: f64,
}

/// Every repeat of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioAudit {
    /// Scenario id.
    pub id: String,
    /// The record's final weighted score.
    pub original_score: f64,
    /// The repeats that were judged, in repeat order.
    pub repeats: Vec<RepeatScores>,
    /// The repeats that failed, in repeat order.
    pub failures: Vec<RepeatFailure>,
}

/// An audit that cannot start.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// K must be at least 1 (2 to see any spread).
    #[error("repeats must be at least 1")]
    NoRepeats,
    /// The pipeline settings, with refinement switched off, are invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A judge's prompt does not render (checked before any call, as `run` does).
    #[error(transparent)]
    Prompt(#[from] PromptError),
}

/// Re-judges every item `options.repeats` times (see the module docs); the result is in item
/// order. Failed repeats are recorded in [`ScenarioAudit::failures`], never returned as errors,
/// so one bad record or call does not lose the rest of the audit.
///
/// # Errors
/// [`AuditError`] when the options or the pipeline settings cannot run.
pub async fn rejudge(
    model: Arc<dyn ChatModel>,
    pipeline: &Pipeline,
    items: &[AuditItem],
    options: AuditOptions,
) -> Result<Vec<ScenarioAudit>, AuditError> {
    if options.repeats == 0 {
        return Err(AuditError::NoRepeats);
    }
    // The audit judges the recorded batch only: a low score must end the replay, not start a
    // refinement that would judge different texts.
    let mut settings = pipeline.settings().clone();
    settings.max_refinements = 0;
    let replay = Arc::new(Pipeline::new(settings)?);
    if let Some(first) = items.first() {
        replay.rehearse_prompts(&first.scenario)?;
    }
    let mut backend = ReplayBackend::new(model, items, options, replay.settings().seed);
    let jobs = items.iter().enumerate().flat_map(|(i, item)| {
        (0..options.repeats).map(move |repeat| (item.scenario.clone(), (i, repeat)))
    });
    let mut outcomes: Vec<((usize, u32), RunOutcome)> = Vec::new();
    let stats = RunStats::default();
    let stop = match drive(
        &mut backend,
        &replay,
        jobs,
        &Policy::default(),
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    {
        Ok(stop) => stop,
        Err(never) => match never {},
    };
    let mut audits: Vec<ScenarioAudit> = items
        .iter()
        .map(|item| ScenarioAudit {
            id: item.scenario.id.clone(),
            original_score: item.original_score,
            repeats: Vec::new(),
            failures: Vec::new(),
        })
        .collect();
    let mut judged: HashSet<(usize, u32)> = HashSet::new();
    for ((i, repeat), outcome) in outcomes {
        judged.insert((i, repeat));
        let Some(audit) = audits.get_mut(i) else {
            continue;
        };
        match repeat_result(outcome, repeat, backend.refused.contains(&(i, repeat))) {
            Ok(scores) => audit.repeats.push(scores),
            Err(failure) => {
                tracing::warn!(scenario = %audit.id, repeat = failure.repeat, reason = %failure.reason, "re-judging failed");
                audit.failures.push(failure);
            }
        }
    }
    if stop != StopReason::Completed {
        // A fatal error stopped the audit: the repeats never started say why.
        let reason = match &stop {
            StopReason::Fatal(reason) => format!("not judged: the audit stopped after {reason}"),
            other => format!("not judged: the audit stopped: {other}"),
        };
        for (i, audit) in audits.iter_mut().enumerate() {
            for repeat in (0..options.repeats).filter(|r| !judged.contains(&(i, *r))) {
                audit.failures.push(RepeatFailure {
                    repeat,
                    kind: FailureKind::Provider,
                    reason: reason.clone(),
                });
            }
        }
    }
    for audit in &mut audits {
        audit.repeats.sort_by_key(|r| r.repeat);
        audit.failures.sort_by_key(|f| f.repeat);
    }
    Ok(audits)
}

/// Why a replay cannot judge a record whose batch the machine rejected.
const REFUSED: &str =
    "the recorded batch has too few usable texts for the configured min_instances";

/// One repeat's outcome as scores or a failure; `refused` when the replay back end refused to
/// write a new batch (the recorded one was rejected).
fn repeat_result(
    outcome: RunOutcome,
    repeat: u32,
    refused: bool,
) -> Result<RepeatScores, RepeatFailure> {
    match outcome {
        RunOutcome::Finished(record) => {
            tracing::debug!(scenario = %record.id, repeat, score = record.score, "re-judged");
            Ok(RepeatScores {
                repeat,
                scores: record.scores,
                score: record.score,
            })
        }
        RunOutcome::Failed(failure) => {
            let (kind, reason) = match failure.agent {
                _ if refused => (FailureKind::Input, REFUSED.to_owned()),
                Some(agent) if agent.is_judge() => (judge_failure(&failure.reason), failure.reason),
                // A judge the config declares.
                None if failure.judge.is_some() => (judge_failure(&failure.reason), failure.reason),
                _ => (FailureKind::Input, failure.reason),
            };
            Err(RepeatFailure {
                repeat,
                kind,
                reason,
            })
        }
    }
}

/// A judge's failure: its replies stayed invalid, or the provider failed.
fn judge_failure(reason: &str) -> FailureKind {
    if runlog::FailureCause::of_reason(reason) == runlog::FailureCause::InvalidOutput {
        FailureKind::InvalidReply
    } else {
        FailureKind::Provider
    }
}

/// The line `audit-judges` begins with: how many records are re-judged, and first, when the
/// sampled records were decided under other rules than the config's (another judge set, other
/// weights, threshold or ratio judge), which, since the flips would then measure the change of
/// rules as well as the judges' noise.
#[must_use]
pub fn header(items: &[AuditItem], total: usize, repeats: u32, pipeline: &Pipeline) -> String {
    let current = runlog::RecordSettings::from(pipeline.settings());
    let line = format!(
        "re-judging {} of {total} record(s) × {repeats} repeat(s), ratio judge {}, cache off",
        items.len(),
        pipeline.settings().ratio_judge.name()
    );
    match rules_note(items, &current) {
        Some(note) => format!("{note}\n{line}"),
        None => line,
    }
}

/// How the sampled records' rules differ from `current`, in words; `None` when they match.
fn rules_note(items: &[AuditItem], current: &runlog::RecordSettings) -> Option<String> {
    let relevant = |d: &String| {
        ["threshold", "weights", "ratio_judge"]
            .iter()
            .any(|k| d.starts_with(k))
    };
    let differing: Vec<&runlog::RecordSettings> = items
        .iter()
        .filter_map(|i| i.settings.as_ref())
        .filter(|s| s.differences(current).iter().any(relevant))
        .collect();
    let first = differing.first()?;
    let mut parts: Vec<String> = Vec::new();
    let names = |w: &scoring::JudgeWeights| -> Vec<String> { w.0.keys().cloned().collect() };
    let (theirs, ours) = (names(&first.weights), names(&current.weights));
    let only_records: Vec<&str> = theirs
        .iter()
        .filter(|n| !ours.contains(n))
        .map(String::as_str)
        .collect();
    let only_config: Vec<&str> = ours
        .iter()
        .filter(|n| !theirs.contains(n))
        .map(String::as_str)
        .collect();
    if !only_records.is_empty() {
        parts.push(format!(
            "judges only in the records: {}",
            only_records.join(", ")
        ));
    }
    if !only_config.is_empty() {
        parts.push(format!(
            "judges only in the config: {}",
            only_config.join(", ")
        ));
    }
    parts.extend(
        first
            .differences(current)
            .into_iter()
            .filter(relevant)
            .map(|d| d.replacen(" vs ", " (records) vs ", 1) + " (config)"),
    );
    Some(format!(
        "warning: {} of {} sampled record(s) were decided under other rules than this config's: \
         {}; the re-judged scores follow the config's rules, so a flip may come from the change \
         of rules, not from the judges' noise",
        differing.len(),
        items.len(),
        parts.join("; ")
    ))
}

/// The replay back end of the audit: the generator's call is answered with the recorded batch,
/// the judges' calls go to the model uncached (with a seed per repeat when asked), and any
/// further writing (the machine rejected the recorded batch) is refused.
pub struct ReplayBackend<'a> {
    online: OnlineBackend,
    items: &'a [AuditItem],
    /// The seed sent with every call of repeat r: `base + r`, when the seed varies.
    seed: Option<u64>,
    /// Each live repeat's item and repeat number.
    tags: HashMap<Slot, (usize, u32)>,
    ready: Vec<Reply>,
    /// Repeats whose recorded batch the machine rejected.
    refused: HashSet<(usize, u32)>,
}

impl std::fmt::Debug for ReplayBackend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayBackend")
            .field("online", &self.online)
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

impl<'a> ReplayBackend<'a> {
    /// Replays `items` against `model`, `options.in_flight` repeats at once; `seed` is the
    /// run's configured seed.
    #[must_use]
    pub fn new(
        model: Arc<dyn ChatModel>,
        items: &'a [AuditItem],
        options: AuditOptions,
        seed: Option<u64>,
    ) -> Self {
        Self {
            online: OnlineBackend::new(model, options.in_flight),
            items,
            seed: options.vary_seed.then(|| seed.unwrap_or(0)),
            tags: HashMap::new(),
            ready: Vec::new(),
            refused: HashSet::new(),
        }
    }
}

impl Backend<(usize, u32)> for ReplayBackend<'_> {
    type Error = std::convert::Infallible;

    fn capacity(&self) -> usize {
        <OnlineBackend as Backend<()>>::capacity(&self.online)
    }

    fn admitted(&mut self, slot: Slot, tag: &(usize, u32)) {
        self.tags.insert(slot, *tag);
    }

    fn submit(&mut self, calls: Vec<Dispatch>) -> Result<(), Self::Error> {
        for Dispatch { slot, call } in calls {
            let tag = self.tags.get(&slot).copied();
            let texts = tag
                .and_then(|(i, _)| self.items.get(i))
                .map(|item| &item.texts);
            if call.agent.is_judge() {
                let mut request = call.request;
                request.no_cache = true;
                if let (Some(base), Some((_, repeat))) = (self.seed, tag) {
                    request.seed = Some(base.wrapping_add(u64::from(repeat)));
                }
                self.online.send(slot, call.key, request);
                continue;
            }
            let result = match texts {
                Some(texts) if call.agent == AgentKind::Generator && call.key.try_number == 1 => {
                    Ok(ChatResponse {
                        model: RECORDED_MODEL.to_string(),
                        json: Some(json!({ "instances": texts })),
                        ..ChatResponse::default()
                    })
                }
                _ => {
                    if let Some(tag) = tag {
                        self.refused.insert(tag);
                    }
                    Err(LlmError::Rejected {
                        status: 422,
                        message: REFUSED.to_owned(),
                    })
                }
            };
            // Not a provider's answer: absorbed, never counted as a call.
            self.ready.push(Reply {
                slot,
                key: call.key,
                result,
                replayed: true,
            });
        }
        Ok(())
    }

    async fn next(&mut self, _dispatching: bool) -> Result<Progress, Self::Error> {
        if !self.ready.is_empty() {
            return Ok(Progress::Replies(std::mem::take(&mut self.ready)));
        }
        Ok(match self.online.next_reply().await {
            Some(reply) => Progress::Replies(vec![reply]),
            None => Progress::Idle,
        })
    }

    fn finished(&mut self, slot: Slot, _scenario: &str) {
        self.tags.remove(&slot);
    }

    fn abort(&mut self) {
        self.online.abort_all();
        self.ready.clear();
    }
}

/// Mean, standard deviation and range of a set of scores.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for a single value): K repeats are
    /// a sample of what the judge could answer.
    pub std_dev: f64,
    /// Lowest value.
    pub min: f64,
    /// Highest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`, `None` when there are none (non-finite values are ignored).
    #[must_use]
    pub fn of(values: &[f64]) -> Option<Self> {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let n = finite.len();
        if n == 0 {
            return None;
        }
        let mean = finite.iter().sum::<f64>() / n as f64;
        let std_dev = if n > 1 {
            let ss: f64 = finite.iter().map(|v| (v - mean).powi(2)).sum();
            (ss / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
        let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Self {
            n,
            mean,
            std_dev,
            min,
            max,
        })
    }

    /// `max − min`.
    #[must_use]
    pub fn range(&self) -> f64 {
        self.max - self.min
    }
}

/// One scenario's spread across its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioSpread {
    /// Scenario id.
    pub id: String,
    /// The record's final weighted score.
    pub original_score: f64,
    /// Each judge's spread by weight name.
    pub judges: BTreeMap<String, Spread>,
    /// The weighted score of each judged repeat, in repeat order.
    pub repeat_scores: Vec<f64>,
    /// Spread of the weighted score (`None` when no repeat was judged).
    pub score: Option<Spread>,
    /// Repeats that reached the threshold.
    pub accepts: usize,
    /// The accept decision differs between at least two repeats.
    pub flipped: bool,
    /// The original score is within [`NEAR_THRESHOLD_MARGIN`] of the threshold.
    pub near_threshold: bool,
}

/// One judge's reliability over every audited scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeSummary {
    /// Weight name of the judge, or `score` for the weighted score.
    pub judge: String,
    /// Scenarios with at least one judged repeat.
    pub scenarios: usize,
    /// Mean over every judged repeat of every scenario.
    pub mean: f64,
    /// Mean of the per-scenario standard deviations (the typical repeat-to-repeat wobble).
    pub mean_std_dev: f64,
    /// Mean of the per-scenario ranges (max − min).
    pub mean_range: f64,
    /// The largest per-scenario range.
    pub max_range: f64,
}

/// How often the accept decision changed across repeats, in a group of scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FlipRate {
    /// Scenarios with at least two judged repeats (only those can flip).
    pub scenarios: usize,
    /// Of those, scenarios whose decision changed.
    pub flipped: usize,
}

impl FlipRate {
    /// `flipped / scenarios`, `None` for an empty group.
    #[must_use]
    pub fn rate(&self) -> Option<f64> {
        (self.scenarios > 0).then(|| self.flipped as f64 / self.scenarios as f64)
    }
}

/// Everything the audit found: the values behind the CLI's tables and `--json` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// Accept threshold the decisions were taken against.
    pub threshold: f64,
    /// Repeats asked per scenario (K).
    pub repeats: u32,
    /// Half-width of the "near the threshold" band.
    pub near_margin: f64,
    /// Per-scenario spreads, in input order.
    pub scenarios: Vec<ScenarioSpread>,
    /// Per-judge summaries, in record order (fluency, naturalness, cs_ratio, socio_cultural).
    pub judges: Vec<JudgeSummary>,
    /// The same summary for the weighted score.
    pub score: JudgeSummary,
    /// Flip rate over every scenario with two or more judged repeats.
    pub flip_overall: FlipRate,
    /// Flip rate over those whose original score is near the threshold.
    pub flip_near_threshold: FlipRate,
    /// Failed repeats by scenario id.
    pub failures: BTreeMap<String, Vec<RepeatFailure>>,
}

impl AuditReport {
    /// Why repeats failed at the judges, in words (provider failures and invalid replies
    /// counted apart, with the first reason of each); `None` when none did.
    #[must_use]
    pub fn judge_failures(&self) -> Option<String> {
        let said = |kind: FailureKind, what: &str| {
            let n = self.failure_count(kind);
            let first = self.failures.values().flatten().find(|f| f.kind == kind)?;
            Some(format!("{n} repeat(s) {what} (first: {})", first.reason))
        };
        let parts: Vec<String> = [
            said(FailureKind::Provider, "failed at the provider"),
            said(
                FailureKind::InvalidReply,
                "got judge replies that stayed invalid",
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Failed repeats of the given kind.
    #[must_use]
    pub fn failure_count(&self, kind: FailureKind) -> usize {
        self.failures
            .values()
            .flatten()
            .filter(|f| f.kind == kind)
            .count()
    }
}

/// Aggregates re-judged scenarios (pure; see the module docs). Judges are the ones that appear in
/// the repeats, in record order, any unknown extra name after them.
#[must_use]
pub fn summarise(audits: &[ScenarioAudit], threshold: f64, repeats: u32) -> AuditReport {
    let scenarios: Vec<ScenarioSpread> = audits
        .iter()
        .map(|a| scenario_spread(a, threshold))
        .collect();
    let mut names: Vec<String> = AgentKind::JUDGES
        .iter()
        .map(|j| j.weight_name().to_string())
        .filter(|name| scenarios.iter().any(|s| s.judges.contains_key(name)))
        .collect();
    for s in &scenarios {
        for name in s.judges.keys() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let judges = names
        .iter()
        .map(|name| {
            let per: Vec<(&Spread, f64)> = scenarios
                .iter()
                .filter_map(|s| s.judges.get(name).map(|sp| (sp, sp.mean * sp.n as f64)))
                .collect();
            summary_of(name, &per)
        })
        .collect();
    let per_score: Vec<(&Spread, f64)> = scenarios
        .iter()
        .filter_map(|s| s.score.as_ref().map(|sp| (sp, sp.mean * sp.n as f64)))
        .collect();
    let score = summary_of("score", &per_score);
    let mut flip_overall = FlipRate::default();
    let mut flip_near_threshold = FlipRate::default();
    for s in scenarios.iter().filter(|s| s.repeat_scores.len() >= 2) {
        flip_overall.scenarios += 1;
        flip_overall.flipped += usize::from(s.flipped);
        if s.near_threshold {
            flip_near_threshold.scenarios += 1;
            flip_near_threshold.flipped += usize::from(s.flipped);
        }
    }
    let failures = audits
        .iter()
        .filter(|a| !a.failures.is_empty())
        .map(|a| (a.id.clone(), a.failures.clone()))
        .collect();
    AuditReport {
        threshold,
        repeats,
        near_margin: NEAR_THRESHOLD_MARGIN,
        scenarios,
        judges,
        score,
        flip_overall,
        flip_near_threshold,
        failures,
    }
}

fn scenario_spread(audit: &ScenarioAudit, threshold: f64) -> ScenarioSpread {
    let mut by_judge: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in &audit.repeats {
        for (judge, score) in &r.scores {
            by_judge.entry(judge.to_string()).or_default().push(*score);
        }
    }
    let judges = by_judge
        .iter()
        .filter_map(|(judge, values)| Some((judge.clone(), Spread::of(values)?)))
        .collect();
    let repeat_scores: Vec<f64> = audit.repeats.iter().map(|r| r.score).collect();
    let accepts = repeat_scores.iter().filter(|s| **s >= threshold).count();
    ScenarioSpread {
        id: audit.id.clone(),
        original_score: audit.original_score,
        judges,
        score: Spread::of(&repeat_scores),
        accepts,
        flipped: accepts > 0 && accepts < repeat_scores.len(),
        near_threshold: (audit.original_score - threshold).abs() <= NEAR_THRESHOLD_MARGIN,
        repeat_scores,
    }
}

/// `per` holds each scenario's spread and the sum of its values (mean × n), so the overall mean
/// weighs every judged repeat equally even when scenarios have different numbers of repeats.
fn summary_of(name: &str, per: &[(&Spread, f64)]) -> JudgeSummary {
    let scenarios = per.len();
    let values: usize = per.iter().map(|(s, _)| s.n).sum();
    let mean_of = |f: &dyn Fn(&Spread) -> f64| {
        if scenarios == 0 {
            0.0
        } else {
            per.iter().map(|(s, _)| f(s)).sum::<f64>() / scenarios as f64
        }
    };
    JudgeSummary {
        judge: name.to_string(),
        scenarios,
        mean: if values == 0 {
            0.0
        } else {
            per.iter().map(|(_, sum)| sum).sum::<f64>() / values as f64
        },
        mean_std_dev: mean_of(&|s| s.std_dev),
        mean_range: mean_of(&|s| s.range()),
        max_range: per.iter().map(|(s, _)| s.range()).fold(0.0, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Mutex;

    use futures::future::BoxFuture;
    use llm_client::{ChatRequest, LlmError};

    use crate::machine::PipelineSettings;
    use runlog::RatioJudgeMode;

    fn repeat(repeat: u32, fluency: f64, score: f64) -> RepeatScores {
        RepeatScores {
            repeat,
            scores: BTreeMap::from([("fluency".into(), fluency), ("cs_ratio".into(), 7.0)]),
            score,
        }
    }

    fn audit(id: &str, original: f64, scores: &[f64]) -> ScenarioAudit {
        ScenarioAudit {
            id: id.to_string(),
            original_score: original,
            repeats: scores
                .iter()
                .enumerate()
                .map(|(i, s)| repeat(i as u32, *s, *s))
                .collect(),
            failures: Vec::new(),
        }
    }

    #[test]
    fn spread_uses_the_sample_standard_deviation() {
        let s = Spread::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).expect("values");
        assert_eq!((s.n, s.mean, s.min, s.max), (8, 5.0, 2.0, 9.0));
        assert!((s.std_dev - (32.0_f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.range(), 7.0);
        let one = Spread::of(&[3.5]).expect("one value");
        assert_eq!((one.std_dev, one.range()), (0.0, 0.0));
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[f64::NAN]), None);
    }

    #[test]
    fn flip_rate_counts_changed_decisions_overall_and_near_the_threshold() {
        let audits = [
            // Near (8.2), flips: 7.9 rejected, 8.1 accepted.
            audit("a", 8.2, &[7.9, 8.1, 8.0]),
            // Near (7.6), stable rejection.
            audit("b", 7.6, &[7.5, 7.7, 7.4]),
            // Far (9.5), flips despite being far: a wild judge.
            audit("c", 9.5, &[9.5, 7.0, 9.4]),
            // Far (3.0), stable.
            audit("d", 3.0, &[3.0, 3.0, 3.0]),
            // One repeat only: cannot flip, left out of both rates.
            audit("e", 8.0, &[8.0]),
        ];
        let report = summarise(&audits, 8.0, 3);
        assert_eq!(
            report.flip_overall,
            FlipRate {
                scenarios: 4,
                flipped: 2
            }
        );
        assert_eq!(report.flip_overall.rate(), Some(0.5));
        assert_eq!(
            report.flip_near_threshold,
            FlipRate {
                scenarios: 2,
                flipped: 1
            }
        );
        let flipped: Vec<&str> = report
            .scenarios
            .iter()
            .filter(|s| s.flipped)
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(flipped, ["a", "c"]);
        assert_eq!(report.scenarios[0].accepts, 2, "8.0 counts as accepted");
        assert!(report.scenarios[4].near_threshold && !report.scenarios[2].near_threshold);
        assert_eq!(FlipRate::default().rate(), None);
    }

    #[test]
    fn near_threshold_band_is_inclusive_at_half_a_point() {
        let report = summarise(&[audit("x", 7.5, &[7.0]), audit("y", 8.51, &[7.0])], 8.0, 1);
        assert!(report.scenarios[0].near_threshold);
        assert!(!report.scenarios[1].near_threshold);
    }

    #[test]
    fn judge_summaries_average_per_scenario_spreads() {
        let audits = [
            audit("a", 8.0, &[6.0, 8.0]),
            audit("b", 8.0, &[5.0, 5.0, 5.0, 5.0]),
        ];
        let report = summarise(&audits, 8.0, 4);
        let names: Vec<&str> = report.judges.iter().map(|j| j.judge.as_str()).collect();
        assert_eq!(names, ["fluency", "cs_ratio"], "record order");
        let fluency = &report.judges[0];
        // Six values: 6, 8, 5, 5, 5, 5 → mean 34/6.
        assert!((fluency.mean - 34.0 / 6.0).abs() < 1e-12);
        // Per-scenario std devs √2 and 0; ranges 2 and 0.
        assert!((fluency.mean_std_dev - 2.0_f64.sqrt() / 2.0).abs() < 1e-12);
        assert_eq!((fluency.mean_range, fluency.max_range), (1.0, 2.0));
        let ratio = &report.judges[1];
        assert_eq!(
            (ratio.mean, ratio.mean_std_dev, ratio.max_range),
            (7.0, 0.0, 0.0)
        );
        assert_eq!(report.score.scenarios, 2);
        assert_eq!(report.scenarios[0].repeat_scores, [6.0, 8.0]);
    }

    /// An invalid judge reply (score 42) was reported as "failed at the provider".
    #[test]
    fn an_invalid_judge_reply_is_not_a_provider_failure() {
        assert_eq!(
            judge_failure("toxicity: invalid output: score 42 is outside 0–10"),
            FailureKind::InvalidReply
        );
        assert_eq!(
            judge_failure("fluency: server error 500 after 9 attempts"),
            FailureKind::Provider
        );
        let mut a = audit("a", 8.0, &[8.0]);
        a.failures.push(RepeatFailure {
            repeat: 1,
            kind: FailureKind::InvalidReply,
            reason: "toxicity: score 42 is outside 0–10".into(),
        });
        let report = summarise(&[a], 8.0, 2);
        let said = report.judge_failures().expect("a failure");
        assert!(
            said.starts_with("1 repeat(s) got judge replies that stayed invalid"),
            "{said}"
        );
        assert!(!said.contains("provider"), "{said}");
    }

    #[test]
    fn failures_are_kept_by_scenario_and_kind() {
        let mut a = audit("a", 8.0, &[8.0, 7.0]);
        a.failures.push(RepeatFailure {
            repeat: 2,
            kind: FailureKind::Provider,
            reason: "fluency: 500".into(),
        });
        let report = summarise(&[a, audit("b", 8.0, &[])], 8.0, 3);
        assert_eq!(report.failure_count(FailureKind::Provider), 1);
        assert_eq!(report.failure_count(FailureKind::Input), 0);
        assert_eq!(report.scenarios[1].score, None);
        assert_eq!(report.flip_overall.scenarios, 1);
    }

    #[test]
    fn samples_are_deterministic_sorted_and_nested() {
        let a = sample_indices(20, 5, 7);
        assert_eq!(a, sample_indices(20, 5, 7));
        assert_eq!(a.len(), 5);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        let larger = sample_indices(20, 8, 7);
        assert!(a.iter().all(|i| larger.contains(i)));
        assert_ne!(a, sample_indices(20, 5, 8), "another seed, another sample");
        assert_eq!(sample_indices(3, 10, 1), [0, 1, 2]);
        assert!(sample_indices(0, 3, 1).is_empty());
    }

    #[test]
    fn the_streaming_sampler_picks_what_sample_indices_picks() {
        for (len, n, seed) in [(50, 7, 3), (5, 10, 1), (200, 1, 9), (0, 3, 2)] {
            let mut sampler = Sampler::new(n, seed);
            for i in 0..len {
                let record: ScenarioRecord = serde_json::from_value(
                    json!({"id": format!("r{i}"), "index": i, "score": 1.0, "accepted": false}),
                )
                .expect("record");
                sampler.offer(&record);
            }
            assert_eq!(sampler.seen(), len);
            let picked: Vec<usize> = sampler
                .finish()
                .iter()
                .map(|item| usize::try_from(item.scenario.index).expect("small"))
                .collect();
            assert_eq!(picked, sample_indices(len, n, seed), "{len} {n} {seed}");
        }
    }

    #[test]
    fn renamed_params_are_restored() {
        let flat = BTreeMap::from([
            ("param_score".to_string(), json!("x")),
            ("param_other".to_string(), json!(1)),
            ("topic".to_string(), json!("health")),
        ]);
        let params = unflatten_params(&flat);
        let keys: Vec<&str> = params.keys().map(String::as_str).collect();
        assert_eq!(keys, ["param_other", "score", "topic"]);
    }

    /// Answers every judge with a score that depends on the seed, records the requests.
    struct SeededJudges {
        requests: Mutex<Vec<ChatRequest>>,
    }

    impl ChatModel for SeededJudges {
        fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
            let score = 6.0 + req.seed.unwrap_or(0) as f64;
            let name = req
                .output_schema
                .as_ref()
                .map(|s| s.name.clone())
                .unwrap_or_default();
            if let Ok(mut log) = self.requests.lock() {
                log.push(req.clone());
            }
            let json = match name.as_str() {
                "fluency_output" => json!({"fluency_score": score, "errors": [], "summary": "ok"}),
                "naturalness_output" => {
                    json!({"naturalness_score": 8, "observations": [], "summary": "ok"})
                }
                "cs_ratio_output" => {
                    json!({"ratio_score": 8, "computed_ratio": 0.3, "notes": "ok"})
                }
                "socio_cultural_output" => {
                    json!({"socio_cultural_score": 8, "issues": [], "summary": "ok"})
                }
                other => json!({"unexpected": other}),
            };
            Box::pin(async move {
                Ok(ChatResponse {
                    model: req.model,
                    json: Some(json),
                    ..ChatResponse::default()
                })
            })
        }
    }

    fn item(first: &str) -> AuditItem {
        let params = BTreeMap::from([
            ("first_language".to_string(), json!(first)),
            ("second_language".to_string(), json!("English")),
            ("cs_ratio".to_string(), json!("30%")),
        ]);
        AuditItem::from_record(
            "s1",
            0,
            &params,
            vec![
                "Hola amigo, let's go.".into(),
                "Vamos al parque today.".into(),
                "Me gusta the weather.".into(),
            ],
            8.0,
        )
    }

    #[tokio::test]
    async fn rejudging_sends_only_judges_uncached_with_a_seed_per_repeat() {
        let model = Arc::new(SeededJudges {
            requests: Mutex::new(Vec::new()),
        });
        let pipeline = Pipeline::new(PipelineSettings {
            ratio_judge: RatioJudgeMode::Llm,
            ..PipelineSettings::default()
        })
        .expect("settings");
        let options = AuditOptions {
            repeats: 3,
            vary_seed: true,
            in_flight: 2,
        };
        let audits = rejudge(model.clone(), &pipeline, &[item("Spanish")], options)
            .await
            .expect("audit runs");
        let requests = model.requests.lock().expect("log").clone();
        assert_eq!(
            requests.len(),
            12,
            "four judges × three repeats, no refiner"
        );
        assert!(requests.iter().all(|r| r.no_cache));
        let mut seeds: Vec<u64> = requests.iter().filter_map(|r| r.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds, [0, 1, 2]);
        let a = &audits[0];
        assert!(a.failures.is_empty(), "{:?}", a.failures);
        let fluency: Vec<f64> = a.repeats.iter().map(|r| r.scores["fluency"]).collect();
        assert_eq!(fluency, [6.0, 7.0, 8.0]);
        // 0.30·f + 0.25·8 + 0.20·8 + 0.25·8 = 0.3·f + 5.6.
        for r in &a.repeats {
            assert!((r.score - (0.3 * r.scores["fluency"] + 5.6)).abs() < 1e-9);
        }
        let report = summarise(&audits, 8.0, 3);
        assert!(
            report.flip_overall.flipped == 1,
            "7.4, 7.7 rejected; 8.0 accepted"
        );
    }

    #[tokio::test]
    async fn a_record_that_cannot_be_replayed_fails_as_input() {
        let model = Arc::new(SeededJudges {
            requests: Mutex::new(Vec::new()),
        });
        let pipeline = Pipeline::new(PipelineSettings::default()).expect("settings");
        let mut short = item("Spanish");
        short.texts.truncate(1);
        let audits = rejudge(
            model.clone(),
            &pipeline,
            &[short, item("")],
            AuditOptions::default(),
        )
        .await
        .expect("audit runs");
        for a in &audits {
            assert_eq!(a.failures.len(), 3);
            assert!(a.failures.iter().all(|f| f.kind == FailureKind::Input));
        }
        assert!(
            model.requests.lock().expect("log").is_empty(),
            "no call made"
        );
        let err = rejudge(
            model,
            &pipeline,
            &[],
            AuditOptions {
                repeats: 0,
                ..AuditOptions::default()
            },
        )
        .await
        .expect_err("no repeats");
        assert!(matches!(err, AuditError::NoRepeats));
    }
}
