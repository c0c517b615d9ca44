//! The batch back end: answers the calls of every
//! [`ScenarioRun`](super::machine::ScenarioRun) of a run in waves of provider batches;
//! [`run_batch`] drives the runs with [`super::driver::drive`] on a [`BatchBackend`], so budget,
//! fatal errors and reply counting follow the same policy as online runs.
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
//! once every scenario is written. A run stopped by the budget, a fatal error or Ctrl-C submits
//! no further wave and keeps the state, so a later run (with a larger budget) resumes it.

use std::collections::{BTreeMap, HashMap, HashSet};
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

use super::driver::{Backend, Dispatch, Policy, Progress, Reply, Slot, drive};
use super::estimate::Estimate;
use super::executor::{RunControl, RunReport, RunStats, StopReason, not_done};
use super::key::CallKey;
use super::machine::{AgentCall, Pipeline, RunOutcome};
use super::sink::{Checkpoint, SinkConfig, SinkError, spawn_writer};

/// The run-state file next to an output file: `<out>.batch-state.json`.
#[must_use]
pub fn batch_state_path(out: &Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(std::ffi::OsStr::to_os_string)
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
    /// Stop submitting waves once the spend reaches this many USD (the driver's policy).
    pub budget_usd: Option<f64>,
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
            budget_usd: None,
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
    Ok {
        response: Box<ChatResponse>,
    },
    InvalidOutput {
        reason: String,
        raw: String,
    },
    Rejected {
        status: u16,
        message: String,
    },
    Failed {
        message: String,
        attempts: u32,
        /// The HTTP status of a server error (its message is then the server's own).
        #[serde(default)]
        status: u16,
    },
}

impl StoredReply {
    fn from_result(result: Result<ChatResponse, LlmError>, attempts: u32) -> Self {
        match result {
            Ok(response) => Self::Ok {
                response: Box::new(response),
            },
            Err(LlmError::InvalidOutput { reason, raw, .. }) => Self::InvalidOutput { reason, raw },
            Err(LlmError::Rejected { status, message }) => Self::Rejected { status, message },
            // The server's own status and message: the batch's submissions are the attempts.
            Err(LlmError::Server {
                status, message, ..
            }) => Self::Failed {
                message,
                attempts,
                status,
            },
            Err(other) => Self::Failed {
                message: other.to_string(),
                attempts,
                status: 0,
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
            Self::Failed {
                message,
                attempts,
                status,
            } => Err(LlmError::Server {
                status: *status,
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
    /// Every call key handed out, by key (its text form, see [`CallKey`]).
    calls: BTreeMap<CallKey, CallState>,
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

/// The call key of a custom id `key#submission`.
fn key_of(custom_id: &str) -> Option<CallKey> {
    let key = custom_id.rsplit_once('#').map_or(custom_id, |(k, _)| k);
    match key.parse() {
        Ok(key) => Some(key),
        Err(e) => {
            tracing::warn!(custom_id, error = %e, "a batch item with a foreign custom id");
            None
        }
    }
}

/// Answers calls through provider batches, in waves (see the module docs).
pub struct BatchBackend<'c> {
    client: &'c BatchClient,
    max_item_submissions: u32,
    stop_after_waves: Option<u32>,
    control: RunControl,
    state: RunState,
    state_path: PathBuf,
    /// Calls handed out by a machine and not yet answered, by key.
    waiting: BTreeMap<CallKey, (Slot, AgentCall)>,
    /// Replies known without a batch (stored in the state, or requests that cannot be encoded).
    ready: Vec<Reply>,
    submitted_here: u32,
}

impl std::fmt::Debug for BatchBackend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchBackend")
            .field("state_path", &self.state_path)
            .field("waiting", &self.waiting.len())
            .field("batches", &self.state.batches.len())
            .finish_non_exhaustive()
    }
}

impl<'c> BatchBackend<'c> {
    /// A back end on `client`, resuming the state file of `options` when there is one; calls of
    /// scenarios in `done` (already written) are forgotten.
    ///
    /// # Errors
    /// When the state file cannot be read.
    pub fn open(
        client: &'c BatchClient,
        options: &BatchOptions,
        control: RunControl,
        done: &HashSet<String>,
    ) -> Result<Self, BatchError> {
        let mut state = RunState::load(&options.state_path)?;
        // Calls of scenarios already written are of no further use.
        state.calls.retain(|_, c| !done.contains(&c.scenario));
        if !state.batches.is_empty() || !state.calls.is_empty() {
            tracing::info!(
                batches = state.batches.len(),
                calls = state.calls.len(),
                "resuming a batch run"
            );
        }
        Ok(Self {
            client,
            max_item_submissions: options.max_item_submissions,
            stop_after_waves: options.stop_after_waves,
            control,
            state,
            state_path: options.state_path.clone(),
            waiting: BTreeMap::new(),
            ready: Vec::new(),
            submitted_here: 0,
        })
    }

    fn save(&self) -> Result<(), BatchError> {
        self.state.save(&self.state_path)
    }

    /// Moves the stored replies of `keys` from `waiting` to `ready`; `replayed` when they were
    /// stored by an earlier process.
    fn answer_stored(&mut self, keys: &[CallKey], replayed: bool) {
        for key in keys {
            let Some(CallStatus::Answered { reply }) = self.state.calls.get(key).map(|c| &c.status)
            else {
                continue;
            };
            let result = reply.to_result();
            if let Some((slot, _)) = self.waiting.remove(key) {
                self.ready.push(Reply {
                    slot,
                    key: key.clone(),
                    result,
                    replayed,
                });
            }
        }
    }

    /// Submits every waiting call as one wave (split at the provider's limits), saving the state
    /// after every batch so a crash never forgets a submitted one. `Some` when the provider
    /// refused a batch (the batches submitted before it stay in the state).
    async fn submit_wave(&mut self) -> Result<Option<LlmError>, BatchError> {
        let keys: Vec<CallKey> = self.waiting.keys().cloned().collect();
        self.state.waves += 1;
        let wave = self.state.waves;
        let mut lines: Vec<(String, String)> = Vec::with_capacity(keys.len());
        let mut unencodable = Vec::new();
        for key in &keys {
            let Some((_, call)) = self.waiting.get(key) else {
                continue;
            };
            let submissions = self.state.calls.get(key).map_or(0, |c| c.submissions);
            let custom_id = format!("{key}#{}", submissions + 1);
            let item = BatchItem {
                custom_id: custom_id.clone(),
                request: call.request.clone(),
            };
            match self.client.encode_line(&item) {
                Ok(line) => lines.push((custom_id, line)),
                Err(e) => {
                    // Cannot be encoded now, cannot be later: the machine gets the error.
                    tracing::error!(call = %key, error = %e, "request not encodable");
                    self.state.calls.insert(
                        key.clone(),
                        CallState {
                            scenario: key.scenario.clone(),
                            submissions,
                            status: CallStatus::Answered {
                                reply: StoredReply::from_result(Err(e), submissions),
                            },
                        },
                    );
                    unencodable.push(key.clone());
                }
            }
        }
        self.answer_stored(&unencodable, false);
        let cfg = self.client.batch_config();
        let chunks = split_batches(lines, |(_, l)| l.len(), cfg.max_requests, cfg.max_bytes);
        tracing::info!(
            wave,
            calls = keys.len(),
            batches = chunks.len(),
            "submitting a wave"
        );
        for chunk in chunks {
            let text: Vec<String> = chunk.iter().map(|(_, l)| l.clone()).collect();
            let status = match self.client.submit(&text).await {
                Ok(status) => status,
                Err(e) => {
                    self.save()?;
                    return Ok(Some(e));
                }
            };
            let custom_ids: Vec<String> = chunk.into_iter().map(|(id, _)| id).collect();
            for key in custom_ids.iter().filter_map(|id| key_of(id)) {
                let entry = self
                    .state
                    .calls
                    .entry(key)
                    .or_insert_with_key(|key| CallState {
                        scenario: key.scenario.clone(),
                        submissions: 0,
                        status: CallStatus::Resubmit,
                    });
                entry.submissions += 1;
                entry.status = CallStatus::InBatch {
                    batch: status.id.clone(),
                };
            }
            self.state
                .batches
                .insert(status.id.clone(), SubmittedBatch { wave, custom_ids });
            self.save()?;
        }
        Ok(None)
    }

    /// Polls batch `batch_id` until it ends, then stores its replies and makes them ready.
    /// `Some` when the run must stop (Ctrl-C or a provider failure); the batch stays in the
    /// state then.
    async fn collect(&mut self, batch_id: &str) -> Result<Option<StopReason>, BatchError> {
        let client = self.client;
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
                () = self.control.stop.cancelled() => return Ok(Some(StopReason::Interrupted)),
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
        let Some(batch) = self.state.batches.get(batch_id).cloned() else {
            return Ok(None);
        };
        let requests: HashMap<String, ChatRequest> = batch
            .custom_ids
            .iter()
            .filter_map(|id| {
                let (_, call) = self.waiting.get(&key_of(id)?)?;
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
            let Some(key) = key_of(&item.custom_id) else {
                continue;
            };
            let Some(call) = self.state.calls.get_mut(&key) else {
                continue;
            };
            let submissions = call.submissions;
            match item.reply {
                ItemReply::Answered(mut result) => {
                    if let Ok(resp) = &mut result {
                        // Resubmissions are the batch form of transport retries.
                        resp.retries = submissions.saturating_sub(1);
                    }
                    call.status = CallStatus::Answered {
                        reply: StoredReply::from_result(result, submissions),
                    };
                    answered.push(key);
                }
                ItemReply::Retryable(e) if submissions < self.max_item_submissions => {
                    tracing::info!(call = %key, submissions, error = %e, "batch item failed; resubmitting next wave");
                    call.status = CallStatus::Resubmit;
                }
                ItemReply::Retryable(e) => {
                    tracing::warn!(call = %key, submissions, error = %e, "batch item failed; no submissions left");
                    call.status = CallStatus::Answered {
                        reply: StoredReply::from_result(Err(e), submissions),
                    };
                    answered.push(key);
                }
            }
        }
        self.state.batches.remove(batch_id);
        self.answer_stored(&answered, false);
        self.save()?;
        Ok(None)
    }
}

impl Backend<()> for BatchBackend<'_> {
    type Error = BatchError;

    /// Every scenario is live at once: a wave holds every call the machines wait for.
    fn capacity(&self) -> usize {
        usize::MAX
    }

    fn submit(&mut self, calls: Vec<Dispatch>) -> Result<(), BatchError> {
        let mut stored = Vec::new();
        for Dispatch { slot, call } in calls {
            if matches!(
                self.state.calls.get(&call.key).map(|c| &c.status),
                Some(CallStatus::Answered { .. })
            ) {
                // Replay: the reply came in an earlier process.
                stored.push(call.key.clone());
            }
            self.waiting.insert(call.key.clone(), (slot, call));
        }
        self.answer_stored(&stored, true);
        Ok(())
    }

    async fn next(&mut self, dispatching: bool) -> Result<Progress, BatchError> {
        if !self.ready.is_empty() {
            return Ok(Progress::Replies(std::mem::take(&mut self.ready)));
        }
        // Collect every batch in flight (from this process or an earlier one) first.
        if let Some(batch_id) = self.state.batches.keys().next().cloned() {
            if self.control.stop.is_cancelled() {
                return Ok(Progress::Halt(StopReason::Interrupted));
            }
            if let Some(stop) = self.collect(&batch_id).await? {
                return Ok(Progress::Halt(stop));
            }
            return Ok(Progress::Replies(std::mem::take(&mut self.ready)));
        }
        if !dispatching || self.waiting.is_empty() {
            self.save()?;
            return Ok(Progress::Idle);
        }
        if let Some(e) = self.submit_wave().await? {
            tracing::error!(error = %e, "submitting a wave failed");
            return Ok(Progress::Halt(StopReason::Fatal(e.to_string())));
        }
        self.submitted_here += 1;
        if self.stop_after_waves == Some(self.submitted_here) {
            tracing::info!(
                waves = self.submitted_here,
                "stopping with batches in flight"
            );
            return Ok(Progress::Halt(StopReason::Interrupted));
        }
        Ok(Progress::Replies(std::mem::take(&mut self.ready)))
    }

    fn finished(&mut self, slot: Slot, _scenario: &str) {
        // Replies of a failed scenario's other calls are no longer awaited.
        self.waiting.retain(|_, (s, _)| *s != slot);
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
    let done = checkpoint.done;
    let mut backend = BatchBackend::open(client, &options, control.clone(), &done)?;
    // Every scenario is live at once, so ids are unique by construction here.
    let mut seen = HashSet::new();
    let jobs = not_done(scenarios, &done, &stats).filter(|(s, ())| seen.insert(s.id.clone()));
    let (mut tx, rx) = mpsc::channel::<RunOutcome>(256);
    let writer = spawn_writer(options.sink.clone(), checkpoint.previous_failures, rx)?;
    let policy = Policy {
        budget_usd: options.budget_usd,
    };
    let result = drive(
        &mut backend,
        &pipeline,
        jobs,
        &policy,
        &control,
        &stats,
        &mut tx,
    )
    .await;
    drop(tx);
    let saved = backend.save();
    let sink = writer.finish().await?;
    let stop = result?;
    saved?;
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
        skipped: stats.skipped.load(Ordering::Relaxed),
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

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::Value;

    #[test]
    fn state_round_trips_and_is_replaced_atomically() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl.batch-state.json");
        let mut state = RunState {
            waves: 2,
            ..RunState::default()
        };
        state.calls.insert(
            "s:0:generator".parse().expect("key"),
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
            "s:0:fluency".parse().expect("key"),
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
        let reply = match &back.calls[&"s:0:generator".parse::<CallKey>().expect("key")].status {
            CallStatus::Answered { reply } => reply.to_result(),
            other => panic!("unexpected {other:?}"),
        };
        assert!(matches!(reply, Err(LlmError::InvalidOutput { .. })));
        assert_eq!(
            back.calls[&"s:0:fluency".parse::<CallKey>().expect("key")].submissions,
            2
        );
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
    fn a_state_file_written_before_call_keys_were_typed_still_loads() {
        // As the string-keyed version wrote it.
        let old = r#"{"waves":3,"calls":{
            "ab:cd:1:fluency~2":{"scenario":"ab:cd","submissions":1,"status":"in_batch","batch":"batch_9"},
            "ab:cd:0:generator":{"scenario":"ab:cd","submissions":2,"status":"answered",
                "reply":{"kind":"rejected","status":400,"message":"no"}}},
            "batches":{"batch_9":{"wave":3,"custom_ids":["ab:cd:1:fluency~2#1"]}}}"#;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.jsonl.batch-state.json");
        std::fs::write(&path, old).expect("write");
        let state = RunState::load(&path).expect("an old state loads");
        let keys: Vec<String> = state.calls.keys().map(ToString::to_string).collect();
        assert_eq!(keys, ["ab:cd:0:generator", "ab:cd:1:fluency~2"]);
        let retried = CallKey::new("ab:cd", 1, crate::pipeline::AgentKind::Fluency).with_try(2);
        assert_eq!(state.calls[&retried].submissions, 1);
        assert_eq!(
            key_of(&state.batches["batch_9"].custom_ids[0]),
            Some(retried)
        );
        // And it is written back in the same text form.
        state.save(&path).expect("save");
        let back: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        assert!(back["calls"].get("ab:cd:1:fluency~2").is_some(), "{back}");
    }

    #[test]
    fn custom_ids_map_back_to_call_keys() {
        assert_eq!(
            key_of("abc:1:fluency~2#3"),
            Some(CallKey::new("abc", 1, crate::pipeline::AgentKind::Fluency).with_try(2))
        );
        assert_eq!(
            key_of("abc:0:generator").map(|k| k.to_string()).as_deref(),
            Some("abc:0:generator")
        );
        assert_eq!(key_of("not-a-key#1"), None);
        assert_eq!(
            batch_state_path(Path::new("/tmp/x/out.jsonl")),
            Path::new("/tmp/x/out.jsonl.batch-state.json")
        );
    }
}
