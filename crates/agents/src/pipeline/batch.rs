//! The batch executor: drives every [`ScenarioRun`] of a run in waves of provider batches.
//!
//! A wave submits every call the machines are waiting for (all generations first; then all
//! judge calls of the batches that came back; then refinements and their re-judging …), split
//! at the provider's per-file limits, and waits for those batches; replies are absorbed by key
//! and the next wave is whatever the machines ask for next. Records go through the same sink as
//! online runs, and the machine builds them, so they have the same shape.
//!
//! Resuming rests on the machine being a pure function of its replies: the run state
//! (`<out>.batch-state.json`, written atomically after every submission and every collected
//! batch) stores, per call key, which batch holds it, how often it was submitted and its reply
//! once known. A resumed run rebuilds each unfinished scenario from scratch and replays the
//! stored replies, which regenerates exactly the calls still open; calls already in a batch are
//! polled for, never submitted again. Custom ids are `key#n` for the n-th submission, so a
//! failed or expired item can be resubmitted (up to `max_item_submissions` in all) while a
//! call key is never in two live batches. The state keeps the replies of finished scenarios
//! until the run ends (so a record lost in a crash is rebuilt without a call) and is deleted
//! once every scenario is written.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use llm_client::batch::split_batches;
use llm_client::{
    BatchClient, BatchConfig, BatchItem, BatchState, ChatRequest, ChatResponse, ClientConfig,
    ItemReply, LlmError,
};
use scenarios::Scenario;

use super::estimate::Estimate;
use super::executor::{RunControl, RunReport, RunStats, StopReason};
use super::machine::{AgentCall, Pipeline, RunOutcome, ScenarioRun};
use super::sink::{Checkpoint, SinkConfig, SinkError, spawn_writer};

/// The run-state file next to an output file: `<out>.batch-state.json`.
#[must_use]
pub fn batch_state_path(out: &Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".batch-state.json");
    out.with_file_name(name)
}

/// How the batch executor runs.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// The output file and its sync policy.
    pub sink: SinkConfig,
    /// The run-state file (default [`batch_state_path`] of the output).
    pub state_path: PathBuf,
    /// Submissions of one call in all, counting resubmissions of failed or expired items
    /// (default 3). A call still failing after that is handed to the machine as an error.
    pub max_item_submissions: u32,
    /// Return (as `Interrupted`) after submitting this many waves in this process, leaving the
    /// batches in flight: what a killed process leaves behind, for tests and `--waves`.
    pub stop_after_waves: Option<u32>,
}

impl BatchOptions {
    /// Defaults for the output file `out`.
    #[must_use]
    pub fn new(out: impl Into<PathBuf>) -> Self {
        let sink = SinkConfig::new(out);
        Self {
            state_path: batch_state_path(&sink.out),
            sink,
            max_item_submissions: 3,
            stop_after_waves: None,
        }
    }
}

/// A batch run that could not proceed.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The output or errors file failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The batch client could not be built (provider kind, URL, limits).
    #[error("batch client: {0}")]
    Client(#[from] LlmError),
    /// The run-state file could not be read or written.
    #[error("batch state {path}: {message}")]
    State {
        /// The state file.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// A stored reply: enough to hand the machine the same result again on resume.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum StoredReply {
    Ok { response: Box<ChatResponse> },
    InvalidOutput { reason: String, raw: String },
    Rejected { status: u16, message: String },
    Failed { message: String, attempts: u32 },
}

impl StoredReply {
    fn from_result(result: Result<ChatResponse, LlmError>, attempts: u32) -> Self {
        match result {
            Ok(response) => Self::Ok {
                response: Box::new(response),
            },
            Err(LlmError::InvalidOutput { reason, raw, .. }) => Self::InvalidOutput { reason, raw },
            Err(LlmError::Rejected { status, message }) => Self::Rejected { status, message },
            Err(other) => Self::Failed {
                message: other.to_string(),
                attempts,
            },
        }
    }

    fn to_result(&self) -> Result<ChatResponse, LlmError> {
        match self {
            Self::Ok { response } => Ok(response.as_ref().clone()),
            Self::InvalidOutput { reason, raw } => Err(LlmError::InvalidOutput {
                reason: reason.clone(),
                repairs: 0,
                raw: raw.clone(),
            }),
            Self::Rejected { status, message } => Err(LlmError::Rejected {
                status: *status,
                message: message.clone(),
            }),
            Self::Failed { message, attempts } => Err(LlmError::Server {
                status: 0,
                attempts: *attempts,
                message: message.clone(),
            }),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum CallStatus {
    /// In a batch not yet collected.
    InBatch { batch: String },
    /// A failed or expired item waiting for the next wave.
    Resubmit,
    /// Answered (or given up on).
    Answered { reply: StoredReply },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CallState {
    scenario: String,
    /// Submissions so far; submission n used the custom id `key#n`.
    submissions: u32,
    #[serde(flatten)]
    status: CallStatus,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SubmittedBatch {
    wave: u32,
    custom_ids: Vec<String>,
}

/// The run state saved to `<out>.batch-state.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct RunState {
    /// Waves submitted so far (over every process of the run).
    waves: u32,
    /// Every call key handed out, by key.
    calls: BTreeMap<String, CallState>,
    /// Batches submitted and not yet collected, by batch id.
    batches: BTreeMap<String, SubmittedBatch>,
}

impl RunState {
    fn load(path: &Path) -> Result<Self, BatchError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| state_error(path, &e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(state_error(path, &e)),
        }
    }

    /// Atomic replace: a crash leaves the old state or the new one, never a torn file.
    fn save(&self, path: &Path) -> Result<(), BatchError> {
        let bytes = serde_json::to_vec(self).map_err(|e| state_error(path, &e))?;
        llm_client::write_atomic(path, |w| w.write_all(&bytes)).map_err(|e| state_error(path, &e))
    }
}

fn state_error(path: &Path, e: &dyn std::fmt::Display) -> BatchError {
    BatchError::State {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

fn key_of(custom_id: &str) -> &str {
    custom_id.rsplit_once('#').map_or(custom_id, |(k, _)| k)
}

/// The executor's working set: live machines and the calls they wait for.
struct Waves {
    runs: BTreeMap<String, ScenarioRun>,
    /// Calls handed out by a machine and not yet absorbed, by key.
    waiting: BTreeMap<String, AgentCall>,
    state: RunState,
    state_path: PathBuf,
}

impl Waves {
    /// Takes the machine's pending calls: stored replies are absorbed at once (replay),
    /// the rest wait for a batch.
    fn advance(&mut self, id: &str) {
        let Some(run) = self.runs.get_mut(id) else {
            return;
        };
        loop {
            let calls = run.pending();
            if calls.is_empty() {
                break;
            }
            for call in calls {
                match self.state.calls.get(&call.key).map(|c| &c.status) {
                    Some(CallStatus::Answered { reply }) => {
                        if let Err(e) = run.absorb(&call.key, reply.to_result()) {
                            tracing::error!(error = %e, "replayed reply for an unknown call");
                        }
                    }
                    _ => {
                        self.waiting.insert(call.key.clone(), call);
                    }
                }
            }
        }
    }

    /// Calls to submit in the next wave: waiting, and not in a live batch.
    fn to_submit(&self) -> Vec<String> {
        self.waiting
            .keys()
            .filter(|k| {
                !matches!(
                    self.state.calls.get(*k).map(|c| &c.status),
                    Some(CallStatus::InBatch { .. })
                )
            })
            .cloned()
            .collect()
    }

    fn save(&self) -> Result<(), BatchError> {
        self.state.save(&self.state_path)
    }
}

/// Runs `scenarios` through the pipeline in provider batches, writing one record each (see the
/// module docs). `checkpoint` comes from [`super::sink::open_checkpoint`] on the same output
/// file; a state file from an earlier process is resumed.
///
/// # Errors
/// When the output, errors or state file fails. Provider failures stop the run with
/// [`StopReason::Fatal`] and leave the state for a later resume.
pub async fn run_batch<I>(
    client: &BatchClient,
    pipeline: Arc<Pipeline>,
    scenarios: I,
    checkpoint: Checkpoint,
    options: BatchOptions,
    control: RunControl,
    stats: Arc<RunStats>,
) -> Result<RunReport, BatchError>
where
    I: IntoIterator<Item = Scenario>,
{
    let mut state = RunState::load(&options.state_path)?;
    let done = checkpoint.done;
    // Calls of scenarios already written are of no further use.
    state.calls.retain(|_, c| !done.contains(&c.scenario));
    let resumed = !state.batches.is_empty() || !state.calls.is_empty();
    if resumed {
        tracing::info!(
            batches = state.batches.len(),
            calls = state.calls.len(),
            "resuming a batch run"
        );
    }
    let mut waves = Waves {
        runs: BTreeMap::new(),
        waiting: BTreeMap::new(),
        state,
        state_path: options.state_path.clone(),
    };
    for scenario in scenarios {
        if done.contains(&scenario.id) {
            stats.skipped.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        if waves.runs.contains_key(&scenario.id) {
            continue;
        }
        stats.started.fetch_add(1, Ordering::Relaxed);
        let id = scenario.id.clone();
        waves
            .runs
            .insert(id.clone(), ScenarioRun::new(pipeline.clone(), scenario));
        waves.advance(&id);
    }
    let skipped = stats.skipped.load(Ordering::Relaxed);

    let (tx, rx) = mpsc::channel::<RunOutcome>(256);
    let writer = spawn_writer(options.sink.clone(), checkpoint.previous_failures, rx)?;
    let result = drive(client, &mut waves, &options, &control, &stats, &tx).await;
    drop(tx);
    let sink = writer.finish().await?;
    let stop = result?;
    if stop == StopReason::Completed {
        // Every scenario is written: the state has nothing left to resume.
        if let Err(e) = std::fs::remove_file(&options.state_path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(error = %e, "could not remove the batch state file");
        }
    }
    Ok(RunReport {
        stop,
        sink,
        skipped,
    })
}

/// What a batch run is expected to take: waves and price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchPlan {
    /// Expected waves: generation and judging, plus two per refinement round that at least one
    /// scenario reaches (resubmission waves for failed items not counted).
    pub expected_waves: f64,
    /// Waves when some scenario uses every refinement.
    pub max_waves: u32,
    /// The online estimate's cost, when every model has a price.
    pub online_cost_usd: Option<f64>,
    /// The same calls at the batch price.
    pub batch_cost_usd: Option<f64>,
    /// Batch price as a share of the online price.
    pub price_factor: f64,
}

impl BatchPlan {
    /// Two lines for `plan --batch`.
    #[must_use]
    pub fn render(&self) -> String {
        let usd = |c: Option<f64>| {
            c.map_or_else(
                || "unknown (unpriced model)".to_owned(),
                |c| format!("${c:.2}"),
            )
        };
        format!(
            "  waves: {:.1} expected, {} at most\n  cost: {} at the batch price ({:.0}% of online {})",
            self.expected_waves,
            self.max_waves,
            usd(self.batch_cost_usd),
            self.price_factor * 100.0,
            usd(self.online_cost_usd),
        )
    }
}

/// Plans a batch run from the online estimate: round k of refinement happens when at least one
/// of the scenarios is refined k times, which for N scenarios has probability
/// `1 - (1 - rate^k)^N` (`rate` from the estimate's assumptions).
#[must_use]
pub fn plan_batch(estimate: &Estimate, max_refinements: u32, price_factor: f64) -> BatchPlan {
    let rate = estimate.assumptions.refine_rate.clamp(0.0, 1.0);
    let n = estimate.scenarios as f64;
    let rounds: f64 = (1..=max_refinements)
        .map(|k| 1.0 - (1.0 - rate.powi(i32::try_from(k).unwrap_or(i32::MAX))).powf(n))
        .sum();
    BatchPlan {
        expected_waves: if estimate.scenarios == 0 {
            0.0
        } else {
            2.0 + 2.0 * rounds
        },
        max_waves: 2 + 2 * max_refinements,
        online_cost_usd: estimate.cost_usd,
        batch_cost_usd: estimate.cost_usd.map(|c| c * price_factor),
        price_factor,
    }
}

/// [`run_batch`] with a client built from `cfg` and the default [`BatchConfig`] (half price,
/// provider limits, polls backing off to 30 s).
///
/// # Errors
/// As [`run_batch`], and [`BatchError::Client`] for a configuration batch mode cannot use.
pub async fn run_batch_with_config<I>(
    cfg: ClientConfig,
    pipeline: Arc<Pipeline>,
    scenarios: I,
    checkpoint: Checkpoint,
    options: BatchOptions,
    control: RunControl,
    stats: Arc<RunStats>,
) -> Result<RunReport, BatchError>
where
    I: IntoIterator<Item = Scenario>,
{
    let client = BatchClient::new(cfg, BatchConfig::default())?;
    run_batch(
        &client, pipeline, scenarios, checkpoint, options, control, stats,
    )
    .await
}

/// The wave loop; returns why it ended.
async fn drive(
    client: &BatchClient,
    waves: &mut Waves,
    options: &BatchOptions,
    control: &RunControl,
    stats: &RunStats,
    tx: &mpsc::Sender<RunOutcome>,
) -> Result<StopReason, BatchError> {
    let mut submitted_here = 0u32;
    loop {
        // Collect every batch in flight (from this process or an earlier one).
        let pending: Vec<String> = waves.state.batches.keys().cloned().collect();
        for batch_id in pending {
            match collect(client, waves, &batch_id, options, control, stats).await? {
                None => {}
                Some(stop) => {
                    emit_finished(waves, stats, tx).await;
                    waves.save()?;
                    return Ok(stop);
                }
            }
        }
        emit_finished(waves, stats, tx).await;
        waves.save()?;

        let keys = waves.to_submit();
        if keys.is_empty() {
            if !waves.runs.is_empty() {
                // A machine that is neither done nor waiting would be a machine bug; end it
                // as a failure rather than loop forever.
                tracing::error!(
                    scenarios = waves.runs.len(),
                    "scenarios with no call to make; ending them"
                );
                for (_, run) in std::mem::take(&mut waves.runs) {
                    send(run.finish(), stats, tx).await;
                }
            }
            return Ok(StopReason::Completed);
        }
        if control.stop.is_cancelled() || control.abort.is_cancelled() {
            return Ok(StopReason::Interrupted);
        }
        if let Some(e) = submit_wave(client, waves, &keys).await? {
            tracing::error!(error = %e, "submitting a wave failed");
            return Ok(StopReason::Fatal(e.to_string()));
        }
        submitted_here += 1;
        if options.stop_after_waves == Some(submitted_here) {
            tracing::info!(waves = submitted_here, "stopping with batches in flight");
            return Ok(StopReason::Interrupted);
        }
    }
}

/// Submits the calls `keys` as one wave (split at the provider's limits), saving the state
/// after every batch so a crash never forgets a submitted one. `Some` when the provider refused
/// a batch (the batches submitted before it stay in the state).
async fn submit_wave(
    client: &BatchClient,
    waves: &mut Waves,
    keys: &[String],
) -> Result<Option<LlmError>, BatchError> {
    waves.state.waves += 1;
    let wave = waves.state.waves;
    let mut lines: Vec<(String, String)> = Vec::with_capacity(keys.len());
    for key in keys {
        let Some(call) = waves.waiting.get(key) else {
            continue;
        };
        let submissions = waves.state.calls.get(key).map_or(0, |c| c.submissions);
        let custom_id = format!("{key}#{}", submissions + 1);
        let item = BatchItem {
            custom_id: custom_id.clone(),
            request: call.request.clone(),
        };
        match client.encode_line(&item) {
            Ok(line) => lines.push((custom_id, line)),
            Err(e) => {
                // Cannot be encoded now, cannot be later: the machine gets the error.
                tracing::error!(call = %key, error = %e, "request not encodable");
                let scenario = scenario_of(key).to_owned();
                waves.state.calls.insert(
                    key.clone(),
                    CallState {
                        scenario,
                        submissions,
                        status: CallStatus::Answered {
                            reply: StoredReply::from_result(Err(e), submissions),
                        },
                    },
                );
            }
        }
    }
    let cfg = client.batch_config();
    let chunks = split_batches(lines, |(_, l)| l.len(), cfg.max_requests, cfg.max_bytes);
    tracing::info!(
        wave,
        calls = keys.len(),
        batches = chunks.len(),
        "submitting a wave"
    );
    for chunk in chunks {
        let text: Vec<String> = chunk.iter().map(|(_, l)| l.clone()).collect();
        let status = match client.submit(&text).await {
            Ok(status) => status,
            Err(e) => {
                waves.save()?;
                return Ok(Some(e));
            }
        };
        let custom_ids: Vec<String> = chunk.into_iter().map(|(id, _)| id).collect();
        for custom_id in &custom_ids {
            let key = key_of(custom_id).to_owned();
            let scenario = scenario_of(&key).to_owned();
            let entry = waves.state.calls.entry(key).or_insert(CallState {
                scenario,
                submissions: 0,
                status: CallStatus::Resubmit,
            });
            entry.submissions += 1;
            entry.status = CallStatus::InBatch {
                batch: status.id.clone(),
            };
        }
        waves
            .state
            .batches
            .insert(status.id.clone(), SubmittedBatch { wave, custom_ids });
        waves.save()?;
    }
    // Calls that failed to encode were answered with an error: let their machines move on.
    let answered: Vec<String> = keys
        .iter()
        .filter(|k| {
            matches!(
                waves.state.calls.get(*k).map(|c| &c.status),
                Some(CallStatus::Answered { .. })
            )
        })
        .cloned()
        .collect();
    absorb_answered(waves, &answered);
    Ok(None)
}

/// The scenario id of a call key `scenario_id:attempt:agent[~try]`.
fn scenario_of(key: &str) -> &str {
    key.rsplitn(3, ':').last().unwrap_or(key)
}

/// Polls batch `batch_id` until it ends, then stores and absorbs its replies. `Some` when the
/// run must stop (Ctrl-C or a provider failure); the batch stays in the state then.
async fn collect(
    client: &BatchClient,
    waves: &mut Waves,
    batch_id: &str,
    options: &BatchOptions,
    control: &RunControl,
    stats: &RunStats,
) -> Result<Option<StopReason>, BatchError> {
    let max_wait = client.batch_config().poll_interval;
    let mut wait = client.batch_config().first_poll.min(max_wait);
    let status = loop {
        match client.status(batch_id).await {
            Ok(s) if s.status.is_terminal() => break s,
            Ok(s) => tracing::debug!(batch = batch_id, status = ?s.status, "batch running"),
            Err(e) => {
                tracing::error!(batch = batch_id, error = %e, "polling a batch failed");
                return Ok(Some(StopReason::Fatal(e.to_string())));
            }
        }
        tokio::select! {
            () = control.stop.cancelled() => return Ok(Some(StopReason::Interrupted)),
            () = control.abort.cancelled() => return Ok(Some(StopReason::Aborted)),
            () = tokio::time::sleep(wait) => {}
        }
        wait = wait.saturating_mul(2).min(max_wait);
    };
    if status.status == BatchState::Failed {
        tracing::warn!(
            batch = batch_id,
            "the batch failed as a whole; its calls are resubmitted"
        );
    }
    let Some(batch) = waves.state.batches.get(batch_id).cloned() else {
        return Ok(None);
    };
    let requests: HashMap<String, ChatRequest> = batch
        .custom_ids
        .iter()
        .filter_map(|id| {
            let call = waves.waiting.get(key_of(id))?;
            Some((id.clone(), call.request.clone()))
        })
        .collect();
    let results = match client.results(&status, &requests).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(batch = batch_id, error = %e, "downloading batch results failed");
            return Ok(Some(StopReason::Fatal(e.to_string())));
        }
    };
    let mut answered = Vec::with_capacity(results.len());
    for item in results {
        let key = key_of(&item.custom_id).to_owned();
        let Some(call) = waves.state.calls.get_mut(&key) else {
            continue;
        };
        let submissions = call.submissions;
        match item.reply {
            ItemReply::Answered(mut result) => {
                if let Ok(resp) = &mut result {
                    // Resubmissions are the batch form of transport retries.
                    resp.retries = submissions.saturating_sub(1);
                    count_reply(stats, resp);
                } else {
                    stats.call_errors.fetch_add(1, Ordering::Relaxed);
                }
                call.status = CallStatus::Answered {
                    reply: StoredReply::from_result(result, submissions),
                };
                answered.push(key);
            }
            ItemReply::Retryable(e) if submissions < options.max_item_submissions => {
                tracing::info!(call = %key, submissions, error = %e, "batch item failed; resubmitting next wave");
                call.status = CallStatus::Resubmit;
            }
            ItemReply::Retryable(e) => {
                tracing::warn!(call = %key, submissions, error = %e, "batch item failed; no submissions left");
                stats.call_errors.fetch_add(1, Ordering::Relaxed);
                call.status = CallStatus::Answered {
                    reply: StoredReply::from_result(Err(e), submissions),
                };
                answered.push(key);
            }
        }
    }
    waves.state.batches.remove(batch_id);
    absorb_answered(waves, &answered);
    Ok(None)
}

/// Hands stored replies of `keys` to their machines and takes the calls they ask for next.
fn absorb_answered(waves: &mut Waves, keys: &[String]) {
    let mut touched = Vec::new();
    for key in keys {
        let Some(call) = waves.waiting.remove(key) else {
            continue;
        };
        let Some(CallStatus::Answered { reply }) = waves.state.calls.get(key).map(|c| &c.status)
        else {
            continue;
        };
        let scenario = scenario_of(key).to_owned();
        if let Some(run) = waves.runs.get_mut(&scenario) {
            if let Err(e) = run.absorb(&call.key, reply.to_result()) {
                tracing::error!(error = %e, "reply for an unknown call");
            }
            touched.push(scenario);
        }
    }
    touched.dedup();
    for id in touched {
        waves.advance(&id);
    }
}

fn count_reply(stats: &RunStats, resp: &ChatResponse) {
    stats.calls.fetch_add(1, Ordering::Relaxed);
    stats
        .prompt_tokens
        .fetch_add(resp.usage.prompt_tokens, Ordering::Relaxed);
    stats
        .completion_tokens
        .fetch_add(resp.usage.completion_tokens, Ordering::Relaxed);
    let nano = (resp.cost_usd.unwrap_or(0.0).max(0.0) * 1e9).round() as u64;
    stats.cost_nano_usd.fetch_add(nano, Ordering::Relaxed);
}

/// Sends every finished machine's outcome to the writer.
async fn emit_finished(waves: &mut Waves, stats: &RunStats, tx: &mpsc::Sender<RunOutcome>) {
    let finished: Vec<String> = waves
        .runs
        .iter()
        .filter(|(_, r)| r.is_done())
        .map(|(id, _)| id.clone())
        .collect();
    for id in finished {
        if let Some(run) = waves.runs.remove(&id) {
            // Replies of a failed scenario's other calls are no longer awaited.
            waves.waiting.retain(|k, _| scenario_of(k) != id);
            send(run.finish(), stats, tx).await;
        }
    }
}

async fn send(outcome: RunOutcome, stats: &RunStats, tx: &mpsc::Sender<RunOutcome>) {
    match &outcome {
        RunOutcome::Finished(r) => {
            stats.finished.fetch_add(1, Ordering::Relaxed);
            if r.accepted {
                stats.accepted.fetch_add(1, Ordering::Relaxed);
            }
        }
        RunOutcome::Failed(f) => {
            stats.failed.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(scenario = %f.id, reason = %f.reason, "scenario failed");
        }
    }
    if tx.send(outcome).await.is_err() {
        tracing::error!("the output writer stopped; its error is reported at the end");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_is_replaced_atomically() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl.batch-state.json");
        let mut state = RunState {
            waves: 2,
            ..RunState::default()
        };
        state.calls.insert(
            "s:0:generator".into(),
            CallState {
                scenario: "s".into(),
                submissions: 1,
                status: CallStatus::Answered {
                    reply: StoredReply::InvalidOutput {
                        reason: "bad".into(),
                        raw: "{".into(),
                    },
                },
            },
        );
        state.calls.insert(
            "s:0:fluency".into(),
            CallState {
                scenario: "s".into(),
                submissions: 2,
                status: CallStatus::InBatch {
                    batch: "batch_1".into(),
                },
            },
        );
        state.save(&path).expect("save");
        assert!(!dir.path().join("out.jsonl.batch-state.json.tmp").exists());
        let back = RunState::load(&path).expect("load");
        assert_eq!(back.waves, 2);
        assert_eq!(back.calls.len(), 2);
        let reply = match &back.calls["s:0:generator"].status {
            CallStatus::Answered { reply } => reply.to_result(),
            other => panic!("unexpected {other:?}"),
        };
        assert!(matches!(reply, Err(LlmError::InvalidOutput { .. })));
        assert_eq!(back.calls["s:0:fluency"].submissions, 2);
    }

    #[test]
    fn batch_plan_counts_refinement_waves_and_halves_the_price() {
        let mut estimate = crate::pipeline::estimate::Estimate {
            scenarios: 1,
            refinements_per_scenario: 0.0,
            calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost_usd: Some(10.0),
            unpriced_models: Vec::new(),
            sampled: 0,
            assumptions: crate::pipeline::Assumptions::default(),
        };
        // One scenario, rate 0.3: rounds happen with 0.3 and 0.09.
        let one = plan_batch(&estimate, 2, 0.5);
        assert!((one.expected_waves - (2.0 + 2.0 * 0.39)).abs() < 1e-9);
        assert_eq!((one.max_waves, one.batch_cost_usd), (6, Some(5.0)));
        // Thousands of scenarios: some scenario needs every round.
        estimate.scenarios = 10_000;
        assert!((plan_batch(&estimate, 2, 0.5).expected_waves - 6.0).abs() < 1e-6);
    }

    #[test]
    fn custom_ids_map_back_to_call_keys() {
        assert_eq!(key_of("abc:1:fluency~2#3"), "abc:1:fluency~2");
        assert_eq!(key_of("abc:0:generator"), "abc:0:generator");
        assert_eq!(
            batch_state_path(Path::new("/tmp/x/out.jsonl")),
            Path::new("/tmp/x/out.jsonl.batch-state.json")
        );
    }
}
