//! The batch back end: answers the calls of every
//! [`ScenarioRun`](crate::machine::ScenarioRun) of a run in waves of provider batches;
//! [`run_batch`] drives the runs with [`crate::driver::drive`] on a [`BatchBackend`], so budget,
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
//! call key is never in two live batches.
//!
//! At full scale (hundreds of thousands of scenarios) memory is bounded by the window, not by
//! the run:
//!
//! - **A window of live scenarios** ([`BatchOptions::window`], default
//!   [`DEFAULT_BATCH_WINDOW`]): a scenario is admitted when one leaves, so a wave holds the
//!   judge calls of earlier scenarios beside the generations of new ones. (A resumed run admits
//!   past the window until every scenario with calls in the state is back, so no stored reply
//!   is stranded.)
//! - **Finished scenarios leave the state** once the writer has made their outcome durable
//!   ([`crate::sink::WrittenIds`]): a crash never loses both a record and the replies that
//!   rebuild it. The state file is then the window's size, and is deleted once every scenario
//!   is written.
//! - **Waves are encoded a batch file at a time**, each at most the client's `max_bytes`.
//! - A batch holding calls of scenarios this process has not admitted yet (a resumed run)
//!   keeps their result lines unread in the state until those scenarios are admitted.
//!
//! **Batch creation is idempotent.** Before creating a batch the state records the intent
//! (wave, file number, custom ids) and the batch is created with metadata naming the run (a
//! random id kept in the state), the wave and the file. A run that finds an intent on resume
//! (it was killed between creating a batch and recording it) looks the batch up by that
//! metadata: found, it is polled as any other; not found, it was never created and its calls go
//! into the next wave. A lookup that fails stops the run (exit 1) rather than risk paying twice.
//! So a kill at any moment submits no call twice.
//!
//! A run stopped by the budget, a fatal error or Ctrl-C submits no further wave and keeps the
//! state, so a later run (with a larger budget) resumes it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use llm_client::{
    BatchClient, BatchConfig, BatchItem, BatchState, BatchStatus, ChatRequest, ChatResponse,
    ClientConfig, ItemReply, LlmError, Usage,
};
use scenarios::Scenario;

use crate::driver::{Backend, Dispatch, Policy, Progress, Reply, Slot, drive};
use crate::driver::{RunControl, RunReport, RunStats, StopReason};
use crate::estimate::Estimate;
use crate::executor::not_done;
use crate::key::CallKey;
use crate::machine::{AgentCall, Pipeline, RunOutcome};
use crate::sink::{Checkpoint, SinkConfig, SinkError, WrittenIds, spawn_writer};

/// The metadata key naming the run that created a batch.
const RUN_TAG: &str = "scenario_engine_run";

/// Scenarios live at once in a batch run by default (see the module docs): the first wave
/// holds this many generations, and memory is bounded by it.
pub const DEFAULT_BATCH_WINDOW: usize = 2_000;

/// The run-state file next to an output file: `<out>.batch-state.json`.
#[must_use]
pub fn batch_state_path(out: &Path) -> PathBuf {
    stdx::beside(out, ".batch-state.json")
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
    /// Scenarios live at once (default [`DEFAULT_BATCH_WINDOW`]; at least 1).
    pub window: usize,
    /// The tool server that grounds scenarios with `use_tools: true` ([`Policy::grounder`]).
    /// A scenario still in a batch when its process stopped is grounded again when it is
    /// admitted again (an article fetched anew); a written one never is.
    pub grounder: Option<Arc<crate::grounding::Grounder>>,
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
            window: DEFAULT_BATCH_WINDOW,
            grounder: None,
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
    /// The batch being created when the previous run stopped could not be looked up.
    #[error(transparent)]
    Recovery(#[from] RecoveryError),
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
        /// What the invalid reply cost (absent in state written before it was kept).
        #[serde(default)]
        usage: Usage,
        #[serde(default)]
        cost_usd: Option<f64>,
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
            Err(LlmError::InvalidOutput {
                reason,
                raw,
                usage,
                cost_usd,
                ..
            }) => Self::InvalidOutput {
                reason,
                raw,
                usage,
                cost_usd,
            },
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
            Self::InvalidOutput {
                reason,
                raw,
                usage,
                cost_usd,
            } => Err(LlmError::InvalidOutput {
                reason: reason.clone(),
                repairs: 0,
                raw: raw.clone(),
                usage: *usage,
                cost_usd: *cost_usd,
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
    /// Answered in a batch collected before this process took up the scenario: the result
    /// line, read once the call's request is known again.
    Unread { line: String },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CallState {
    scenario: String,
    /// Submissions so far; submission n used the custom id `key#n`.
    submissions: u32,
    /// A hash of the request last submitted ([`fingerprint`]): a resumed run whose request
    /// differs (another model, prompt or setting) asks again instead of replaying the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request: Option<String>,
    #[serde(flatten)]
    status: CallStatus,
}

/// A short hash of everything a request asks (model, messages, sampling, schema, tools).
fn fingerprint(request: &ChatRequest) -> String {
    let bytes = serde_json::to_vec(request).unwrap_or_default();
    blake3::hash(&bytes).to_hex()[..16].to_owned()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SubmittedBatch {
    wave: u32,
    custom_ids: Vec<String>,
}

/// A batch about to be created: recorded before the provider is asked, so a crash between
/// the two is recovered by a lookup instead of a second batch.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Intent {
    wave: u32,
    /// The batch file's number within its wave.
    file: u32,
    custom_ids: Vec<String>,
}

/// The run state saved to `<out>.batch-state.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct RunState {
    /// A random id naming this run in its batches' metadata (set when the state is created).
    #[serde(default)]
    run_id: String,
    /// Waves submitted so far (over every process of the run).
    waves: u32,
    /// A batch being created (see [`Intent`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    intent: Option<Intent>,
    /// Every call key handed out, by key (its text form, see [`CallKey`]).
    calls: BTreeMap<CallKey, CallState>,
    /// Batches submitted and not yet collected, by batch id.
    batches: BTreeMap<String, SubmittedBatch>,
}

impl RunState {
    fn load(path: &Path) -> Result<Self, BatchError> {
        let mut state: Self = match std::fs::File::open(path) {
            Ok(file) => serde_json::from_reader(std::io::BufReader::new(file))
                .map_err(|e| state_error(path, &e))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::default(),
            Err(e) => return Err(state_error(path, &e)),
        };
        if state.run_id.is_empty() {
            state.run_id = new_run_id(path);
        }
        Ok(state)
    }

    /// Atomic replace: a crash leaves the old state or the new one, never a torn file. Streamed:
    /// the state is never held twice in memory.
    fn save(&self, path: &Path) -> Result<(), BatchError> {
        stdx::write_atomic(path, |w| {
            let mut w = std::io::BufWriter::new(w);
            serde_json::to_writer(&mut w, self).map_err(std::io::Error::other)?;
            w.flush()
        })
        .map_err(|e| state_error(path, &e))
    }

    /// The metadata of batch file `file` of wave `wave`.
    fn tag(&self, wave: u32, file: u32) -> BTreeMap<String, String> {
        [
            (RUN_TAG, self.run_id.clone()),
            ("scenario_engine_wave", wave.to_string()),
            ("scenario_engine_file", file.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// Records that `batch` holds `custom_ids` (submission `n` of each call, as the id says).
    fn record_batch(&mut self, batch: &str, wave: u32, custom_ids: Vec<String>) {
        for id in &custom_ids {
            let Some(key) = key_of(id) else {
                continue;
            };
            let n = id
                .rsplit_once('#')
                .and_then(|(_, n)| n.parse::<u32>().ok())
                .unwrap_or(1);
            let entry = self.calls.entry(key).or_insert_with_key(|key| CallState {
                scenario: key.scenario.clone(),
                submissions: 0,
                request: None,
                status: CallStatus::Resubmit,
            });
            entry.submissions = entry.submissions.max(n);
            entry.status = CallStatus::InBatch {
                batch: batch.to_owned(),
            };
        }
        self.batches
            .insert(batch.to_owned(), SubmittedBatch { wave, custom_ids });
    }
}

/// A run id unlikely to repeat: a hash of the state file's path, the process and the time.
fn new_run_id(path: &Path) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{}|{}|{nanos}", path.display(), std::process::id());
    blake3::hash(seed.as_bytes()).to_hex()[..16].to_owned()
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
    window: usize,
    control: RunControl,
    state: RunState,
    state_path: PathBuf,
    /// Scenarios whose outcome the writer made durable: their calls leave the state.
    written: WrittenIds,
    /// Scenarios with calls in the state that this process has not taken up yet.
    unadmitted: HashSet<String>,
    /// Calls handed out by a machine and not yet answered, by key.
    waiting: BTreeMap<CallKey, (Slot, AgentCall)>,
    /// Replies known without a batch (stored in the state, or requests that cannot be encoded).
    ready: Vec<Reply>,
    /// Calls new to the state, not yet looked up in the response cache.
    uncached: Vec<CallKey>,
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

/// Why a run could not tell whether the batch it was creating when it stopped exists.
#[derive(Debug, thiserror::Error)]
#[error(
    "could not look up the batch being created when the previous run stopped (wave {wave}): \
     {source}\nhint: nothing was resubmitted; run again once the provider answers"
)]
pub struct RecoveryError {
    /// The wave of the batch.
    pub wave: u32,
    /// The lookup's failure.
    pub source: LlmError,
}

impl<'c> BatchBackend<'c> {
    /// A back end on `client`, resuming the state file of `options` when there is one; calls of
    /// scenarios in `done` (already written) are forgotten, and so are those of scenarios
    /// `written` reports durable later. Call [`BatchBackend::recover`] before driving it.
    ///
    /// # Errors
    /// When the state file cannot be read.
    pub fn open(
        client: &'c BatchClient,
        options: &BatchOptions,
        control: RunControl,
        done: &HashSet<String>,
        written: WrittenIds,
    ) -> Result<Self, BatchError> {
        let mut state = RunState::load(&options.state_path)?;
        // Calls of scenarios already written are of no further use.
        state.calls.retain(|_, c| !done.contains(&c.scenario));
        let unadmitted: HashSet<String> =
            state.calls.values().map(|c| c.scenario.clone()).collect();
        if !state.batches.is_empty() || !state.calls.is_empty() {
            tracing::info!(
                batches = state.batches.len(),
                calls = state.calls.len(),
                scenarios = unadmitted.len(),
                "resuming a batch run"
            );
        }
        Ok(Self {
            client,
            max_item_submissions: options.max_item_submissions,
            stop_after_waves: options.stop_after_waves,
            window: options.window.max(1),
            control,
            state,
            state_path: options.state_path.clone(),
            written,
            unadmitted,
            waiting: BTreeMap::new(),
            ready: Vec::new(),
            uncached: Vec::new(),
            submitted_here: 0,
        })
    }

    /// Settles a batch the previous process was creating when it stopped: found by its
    /// metadata, it is polled like any other; not found, it was never created.
    ///
    /// # Errors
    /// [`BatchError::Recovery`] when the provider cannot be asked (nothing is resubmitted then),
    /// or the state file cannot be written.
    pub async fn recover(&mut self) -> Result<(), BatchError> {
        let Some(intent) = self.state.intent.clone() else {
            return Ok(());
        };
        let tag = self.state.tag(intent.wave, intent.file);
        match self.client.find_batch(&tag).await {
            Ok(Some(status)) => {
                tracing::info!(batch = %status.id, wave = intent.wave, "found the batch created just before the previous run stopped; polling it");
                self.state
                    .record_batch(&status.id, intent.wave, intent.custom_ids);
            }
            Ok(None) => tracing::info!(
                wave = intent.wave,
                "the batch being created when the previous run stopped does not exist; its calls go into the next wave"
            ),
            Err(source) => {
                return Err(BatchError::Recovery(RecoveryError {
                    wave: intent.wave,
                    source,
                }));
            }
        }
        self.state.intent = None;
        self.save()
    }

    /// Nothing left to resume: no call, batch or intent in the state.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.state.calls.is_empty() && self.state.batches.is_empty() && self.state.intent.is_none()
    }

    /// Saves the state, first forgetting the scenarios whose outcome is durable.
    fn save(&mut self) -> Result<(), BatchError> {
        let durable = self.written.take();
        if !durable.is_empty() {
            let durable: HashSet<String> = durable.into_iter().collect();
            self.state
                .calls
                .retain(|_, c| !durable.contains(&c.scenario));
        }
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

    /// Answers the waiting calls new to this run from the response cache (what an online run or
    /// an earlier batch already paid for): they are never submitted. A hit is a cache hit like
    /// the online client's: no cost, counted as cached.
    async fn answer_from_cache(&mut self) {
        for key in std::mem::take(&mut self.uncached) {
            let Some((_, call)) = self.waiting.get(&key) else {
                continue;
            };
            if self.state.calls.contains_key(&key) {
                continue;
            }
            if let Some(hit) = self.client.cached(&call.request).await
                && let Some((slot, _)) = self.waiting.remove(&key)
            {
                self.ready.push(Reply {
                    slot,
                    key,
                    result: Ok(hit),
                    replayed: false,
                });
            }
        }
    }

    /// Stores a batch item's reply; true when the call is answered (else it is resubmitted in
    /// the next wave).
    fn settle(&mut self, key: &CallKey, reply: ItemReply) -> bool {
        let max = self.max_item_submissions;
        let Some(call) = self.state.calls.get_mut(key) else {
            return false;
        };
        let submissions = call.submissions;
        match reply {
            ItemReply::Answered(mut result) => {
                if let Ok(resp) = &mut result {
                    // Resubmissions are the batch form of transport retries.
                    resp.retries = submissions.saturating_sub(1);
                }
                call.status = CallStatus::Answered {
                    reply: StoredReply::from_result(result, submissions),
                };
                true
            }
            ItemReply::Retryable(e) if submissions < max => {
                tracing::info!(call = %key, submissions, error = %e, "batch item failed; resubmitting next wave");
                call.status = CallStatus::Resubmit;
                false
            }
            ItemReply::Retryable(e) => {
                tracing::warn!(call = %key, submissions, error = %e, "batch item failed; no submissions left");
                call.status = CallStatus::Answered {
                    reply: StoredReply::from_result(Err(e), submissions),
                };
                true
            }
        }
    }

    /// Submits every waiting call as one wave, a batch file at a time (each within the
    /// client's limits). `Some` when the provider refused a batch (the batches submitted before
    /// it stay in the state; the one refused stays an intent, looked up by the next run).
    async fn submit_wave(&mut self) -> Result<Option<LlmError>, BatchError> {
        let keys: Vec<CallKey> = self.waiting.keys().cloned().collect();
        self.state.waves += 1;
        let wave = self.state.waves;
        let (max_requests, max_bytes) = {
            let cfg = self.client.batch_config();
            (cfg.max_requests, cfg.max_bytes)
        };
        tracing::info!(wave, calls = keys.len(), "submitting a wave");
        let mut file: Vec<(String, String)> = Vec::new();
        let mut bytes = 0usize;
        let mut files = 0u32;
        let mut unencodable = Vec::new();
        let mut refused = None;
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
            let line = match self.client.encode_line(&item) {
                Ok(line) => line,
                Err(e) => {
                    // Cannot be encoded now, cannot be later: the machine gets the error.
                    tracing::error!(call = %key, error = %e, "request not encodable");
                    self.state.calls.insert(
                        key.clone(),
                        CallState {
                            scenario: key.scenario.clone(),
                            submissions,
                            request: None,
                            status: CallStatus::Answered {
                                reply: StoredReply::from_result(Err(e), submissions),
                            },
                        },
                    );
                    unencodable.push(key.clone());
                    continue;
                }
            };
            if !file.is_empty()
                && (file.len() >= max_requests || bytes + line.len() + 1 > max_bytes)
            {
                refused = self
                    .submit_file(wave, files, std::mem::take(&mut file))
                    .await?;
                if refused.is_some() {
                    break;
                }
                files += 1;
                bytes = 0;
            }
            bytes += line.len() + 1;
            file.push((custom_id, line));
        }
        if refused.is_none() && !file.is_empty() {
            refused = self.submit_file(wave, files, file).await?;
        }
        self.answer_stored(&unencodable, false);
        Ok(refused)
    }

    /// Creates one batch of `file` (custom id, line), recording the intent first and the batch
    /// once the provider has it.
    async fn submit_file(
        &mut self,
        wave: u32,
        number: u32,
        file: Vec<(String, String)>,
    ) -> Result<Option<LlmError>, BatchError> {
        let (custom_ids, lines): (Vec<String>, Vec<String>) = file.into_iter().unzip();
        self.state.intent = Some(Intent {
            wave,
            file: number,
            custom_ids: custom_ids.clone(),
        });
        self.save()?;
        let tag = self.state.tag(wave, number);
        match self.client.submit(&lines, &tag).await {
            Ok(status) => {
                self.state.intent = None;
                let keys: Vec<CallKey> = custom_ids.iter().filter_map(|id| key_of(id)).collect();
                self.state.record_batch(&status.id, wave, custom_ids);
                for key in keys {
                    if let (Some((_, call)), Some(state)) =
                        (self.waiting.get(&key), self.state.calls.get_mut(&key))
                    {
                        state.request = Some(fingerprint(&call.request));
                    }
                }
                self.save()?;
                Ok(None)
            }
            // Whether the provider created it is unknown: the intent stays for the next run.
            Err(e) => Ok(Some(e)),
        }
    }

    /// Polls batch `batch_id` until it ends, then stores its replies and makes them ready.
    /// `Some` when the run must stop (Ctrl-C or a provider failure); the batch stays in the
    /// state then.
    async fn collect(&mut self, batch_id: &str) -> Result<Option<StopReason>, BatchError> {
        let client = self.client;
        let status = match self.poll(batch_id).await {
            Ok(status) => status,
            Err(stop) => return Ok(Some(stop)),
        };
        // A batch tagged by another run is not ours, whatever its id (a provider that reused
        // the id after a restart): its replies answer other requests.
        if let Some(run) = status.metadata.get(RUN_TAG)
            && *run != self.state.run_id
        {
            return Ok(Some(StopReason::Fatal(format!(
                "batch {batch_id} belongs to another run ({RUN_TAG} {run}, this run's {}): the \
                 provider reused its id. Delete {} to ask its calls again (they are paid again)",
                self.state.run_id,
                self.state_path.display()
            ))));
        }
        if status.status == BatchState::Failed {
            tracing::warn!(
                batch = batch_id,
                "the batch failed as a whole; its calls are resubmitted"
            );
        }
        let Some(batch) = self.state.batches.get(batch_id).cloned() else {
            return Ok(None);
        };
        let in_this_batch =
            |c: &CallState| matches!(&c.status, CallStatus::InBatch { batch } if batch == batch_id);
        let requests: HashMap<String, &ChatRequest> = batch
            .custom_ids
            .iter()
            .filter_map(|id| {
                let key = key_of(id)?;
                // A call asked again since (its request changed) is not this batch's any more.
                let mine = self.state.calls.get(&key).is_some_and(in_this_batch);
                let (_, call) = self.waiting.get(&key).filter(|_| mine)?;
                Some((id.clone(), &call.request))
            })
            .collect();
        let results = match client.results(&status, &requests).await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(batch = batch_id, error = %e, "downloading batch results failed");
                return Ok(Some(StopReason::Fatal(e.to_string())));
            }
        };
        drop(requests);
        let mut answered = Vec::with_capacity(results.items.len());
        for item in results.items {
            let Some(key) = key_of(&item.custom_id) else {
                continue;
            };
            if self.settle(&key, item.reply) {
                answered.push(key);
            }
        }
        // Calls of scenarios not taken up yet: their lines wait, unread, for their requests.
        for (id, line) in results.unclaimed {
            if let Some(call) = key_of(&id).and_then(|k| self.state.calls.get_mut(&k))
                && in_this_batch(call)
            {
                call.status = CallStatus::Unread { line };
            }
        }
        // Calls in neither file (and not taken up) go into a later wave.
        for id in &batch.custom_ids {
            if let Some(call) = key_of(id).and_then(|k| self.state.calls.get_mut(&k))
                && in_this_batch(call)
            {
                call.status = CallStatus::Resubmit;
            }
        }
        self.state.batches.remove(batch_id);
        // Paid replies go into the response cache before they leave `waiting` (their requests).
        for key in &answered {
            if let (Some((_, call)), Some(CallStatus::Answered { reply })) = (
                self.waiting.get(key),
                self.state.calls.get(key).map(|c| &c.status),
            ) && let Ok(resp) = reply.to_result()
            {
                client.remember(&call.request, &resp).await;
            }
        }
        self.answer_stored(&answered, false);
        self.save()?;
        Ok(None)
    }

    /// Polls batch `batch_id` until it is terminal; `Err` with why the run must stop.
    async fn poll(&self, batch_id: &str) -> Result<BatchStatus, StopReason> {
        let client = self.client;
        let max_wait = client.batch_config().poll_interval;
        let mut wait = client.batch_config().first_poll.min(max_wait);
        loop {
            match client.status(batch_id).await {
                Ok(s) if s.status.is_terminal() => return Ok(s),
                Ok(s) => tracing::debug!(batch = batch_id, status = ?s.status, "batch running"),
                Err(LlmError::Rejected {
                    status: 404,
                    message,
                }) => {
                    tracing::error!(batch = batch_id, %message, "the provider does not know this batch");
                    return Err(StopReason::Fatal(format!(
                        "the provider does not know batch {batch_id} ({message}): it was created \
                         with another API key or project, or deleted. Run with the key that \
                         created it, or delete {} to ask its calls again (they are paid again)",
                        self.state_path.display()
                    )));
                }
                Err(e) => {
                    tracing::error!(batch = batch_id, error = %e, "polling a batch failed");
                    return Err(StopReason::Fatal(e.to_string()));
                }
            }
            tokio::select! {
                () = self.control.stop.cancelled() => return Err(StopReason::Interrupted),
                () = tokio::time::sleep(wait) => {}
            }
            wait = wait.saturating_mul(2).min(max_wait);
        }
    }
}

impl Backend<()> for BatchBackend<'_> {
    type Error = BatchError;

    /// The window; unbounded while scenarios with calls in the state (a resumed run) are not
    /// all taken up again, so none of their stored replies is stranded.
    fn capacity(&self) -> usize {
        if self.unadmitted.is_empty() {
            self.window
        } else {
            usize::MAX
        }
    }

    fn submit(&mut self, calls: Vec<Dispatch>) -> Result<(), BatchError> {
        let mut stored = Vec::new();
        let mut read_now = Vec::new();
        for Dispatch { slot, call } in calls {
            if !self.unadmitted.is_empty() {
                self.unadmitted.remove(&call.key.scenario);
            }
            if let Some(state) = self.state.calls.get_mut(&call.key)
                && let Some(known) = &state.request
                && *known != fingerprint(&call.request)
            {
                // Another model, prompt or setting than the one submitted: its reply (stored or
                // in flight) answers another question. Asked again in the next wave.
                tracing::warn!(call = %call.key, "the request changed since it was submitted; asking again");
                state.request = None;
                state.status = CallStatus::Resubmit;
            }
            match self.state.calls.get(&call.key).map(|c| &c.status) {
                // Replay: the reply came in an earlier process.
                Some(CallStatus::Answered { .. }) => stored.push(call.key.clone()),
                Some(CallStatus::Unread { line }) => {
                    let reply = self.client.read_result_line(line, &call.request);
                    read_now.push((call.key.clone(), reply));
                }
                // Never submitted: the response cache may know it (`next` looks).
                None => self.uncached.push(call.key.clone()),
                _ => {}
            }
            self.waiting.insert(call.key.clone(), (slot, call));
        }
        self.answer_stored(&stored, true);
        // Collected by this process but not read until now: counted as this process's replies.
        let mut answered = Vec::new();
        for (key, reply) in read_now {
            if self.settle(&key, reply) {
                answered.push(key);
            }
        }
        self.answer_stored(&answered, false);
        Ok(())
    }

    async fn next(&mut self, dispatching: bool) -> Result<Progress, BatchError> {
        self.answer_from_cache().await;
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
/// module docs). `checkpoint` comes from [`crate::sink::open_checkpoint`] on the same output
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
    let written = WrittenIds::default();
    let mut backend =
        BatchBackend::open(client, &options, control.clone(), &done, written.clone())?;
    backend.recover().await?;
    // A scenario id twice in the selection would share call keys: the first one runs.
    let mut seen = HashSet::new();
    let jobs = not_done(scenarios, &done, &stats).filter(|(s, ())| seen.insert(s.id.clone()));
    let (mut tx, rx) = mpsc::channel::<RunOutcome>(256);
    let sink = SinkConfig {
        written: Some(written),
        ..options.sink.clone()
    };
    let writer = spawn_writer(sink, checkpoint.previous_failures, rx)?;
    let policy = Policy {
        budget_usd: options.budget_usd,
        grounder: options.grounder.clone(),
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
    // The writer's last sync makes the last outcomes durable: the state saved after it no
    // longer holds their calls.
    let sink = writer.finish().await;
    let saved = backend.save();
    let sink = sink?;
    let stop = result?;
    saved?;
    if stop == StopReason::Completed && backend.is_empty() {
        // Every scenario is written: the state has nothing left to resume.
        if let Err(e) = std::fs::remove_file(&options.state_path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(error = %e, "could not remove the batch state file");
        }
    } else if stop == StopReason::Completed {
        // Calls of scenarios outside this run's selection (an earlier run chose more): kept
        // for the run that takes them up again.
        tracing::info!(
            path = %options.state_path.display(),
            "the batch state keeps calls of scenarios this run did not select"
        );
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
            c.map_or_else(|| "unknown (unpriced model)".to_owned(), runlog::money::usd)
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
                request: None,
                status: CallStatus::Answered {
                    reply: StoredReply::InvalidOutput {
                        reason: "bad".into(),
                        raw: "{".into(),
                        usage: Usage::default(),
                        cost_usd: None,
                    },
                },
            },
        );
        state.calls.insert(
            "s:0:fluency".parse().expect("key"),
            CallState {
                scenario: "s".into(),
                submissions: 2,
                request: None,
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
        let mut estimate = crate::estimate::Estimate {
            scenarios: 1,
            refinements_per_scenario: 0.0,
            calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost_usd: Some(10.0),
            unpriced_models: Vec::new(),
            models: Vec::new(),
            sampled: 0,
            assumptions: crate::Assumptions::default(),
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
        let retried = CallKey::new("ab:cd", 1, runlog::AgentKind::Fluency).with_try(2);
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
            Some(CallKey::new("abc", 1, runlog::AgentKind::Fluency).with_try(2))
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
