//! The online back end: each call goes to one [`ChatModel`] as soon as its machine asks for it.
//!
//! [`run_online`] drives the runs with [`crate::driver::drive`] on an [`OnlineBackend`].
//! Scenarios are pulled lazily from an iterator (never materialised), skipping ids the checkpoint
//! already holds; at most `scenarios_in_flight` run at once, so memory is bounded by that number
//! whatever the size of the space. The four judges of an attempt are issued together, each call
//! as its own task so the transport's work spreads over the runtime's threads. The real request
//! limit is the transport's (`Limits.max_in_flight`): running a few more scenarios than that
//! keeps the limiter saturated. Outcomes go through a channel to the single writer.
//!
//! Stopping follows the driver's policy: on the first Ctrl-C (`RunControl::stop`), a fatal
//! error (bad credentials, budget) or the spend reaching the budget no new scenario starts, and
//! the ones in flight finish and are written; `RunControl::abort` (second Ctrl-C) drops in-flight
//! scenarios after flushing what was written.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use llm_client::{ChatModel, ChatRequest, ChatResponse, LlmError, Usage};
use scenarios::Scenario;

use crate::driver::{Backend, Dispatch, Policy, Progress, Reply, Slot, drive};
use crate::key::CallKey;
use crate::machine::{Pipeline, RunOutcome};
use crate::sink::{Checkpoint, SinkConfig, SinkError, SinkReport, spawn_writer};

/// Live counters of a run, shared with the progress display.
#[derive(Debug, Default)]
pub struct RunStats {
    /// Scenarios skipped because the checkpoint had them.
    pub skipped: AtomicU64,
    /// Scenarios started.
    pub started: AtomicU64,
    /// Scenarios written to the output (accepted or not).
    pub finished: AtomicU64,
    /// Of those, accepted.
    pub accepted: AtomicU64,
    /// Scenarios written to the errors file.
    pub failed: AtomicU64,
    /// Calls answered (cache hits included).
    pub calls: AtomicU64,
    /// Calls served from the cache.
    pub cache_hits: AtomicU64,
    /// Calls that failed after the transport's retries.
    pub call_errors: AtomicU64,
    /// Prompt tokens (paid calls).
    pub prompt_tokens: AtomicU64,
    /// Completion tokens (paid calls).
    pub completion_tokens: AtomicU64,
    /// Spend in USD, as the bits of an `f64` (so it can be an atomic and sums as records do).
    cost_usd_bits: AtomicU64,
    /// Paid replies with no known price (the model is not in the price table): their cost is
    /// not in the spend, and `--budget` cannot count it.
    pub unpriced: AtomicU64,
}

impl RunStats {
    /// Spend so far in USD.
    #[must_use]
    pub fn cost_usd(&self) -> f64 {
        f64::from_bits(self.cost_usd_bits.load(Ordering::Relaxed))
    }

    /// Adds a spend, saturating: a server's absurd token counts must not wrap the totals
    /// (records saturate the same way, so the summary and `--budget` agree with them).
    fn add_spend(&self, usage: Usage, cost_usd: Option<f64>) {
        let add = |counter: &AtomicU64, n: u64| {
            // The closure always returns Some, so fetch_update cannot fail.
            let _ = counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_add(n))
            });
        };
        add(&self.prompt_tokens, usage.prompt_tokens);
        add(&self.completion_tokens, usage.completion_tokens);
        let cost = cost_usd
            .filter(|c| c.is_finite() && *c > 0.0)
            .unwrap_or(0.0);
        if cost > 0.0 {
            // The closure always returns Some, so fetch_update cannot fail.
            let _ = self
                .cost_usd_bits
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                    Some((f64::from_bits(bits) + cost).to_bits())
                });
        }
        add(&self.unpriced, u64::from(cost_usd.is_none()));
    }

    /// Counts one reply a machine absorbs: every mode counts through here, once per reply.
    pub fn count_reply(&self, reply: &Result<ChatResponse, LlmError>) {
        match reply {
            Ok(resp) => {
                self.calls.fetch_add(1, Ordering::Relaxed);
                if resp.cached {
                    self.cache_hits.fetch_add(1, Ordering::Relaxed);
                } else {
                    self.add_spend(resp.usage, resp.cost_usd);
                }
            }
            Err(err) => {
                self.call_errors.fetch_add(1, Ordering::Relaxed);
                // Invalid output after repairs was generated, and paid for: the budget and
                // the summary count it.
                if let Some((usage, cost)) = err.spent() {
                    self.add_spend(usage, cost);
                }
            }
        }
    }
}

/// Stop signals from outside (the CLI wires Ctrl-C to them).
#[derive(Debug, Clone, Default)]
pub struct RunControl {
    /// Stop dispatching; finish and write what is in flight.
    pub stop: CancellationToken,
    /// Drop in-flight scenarios; the writer still flushes what it has.
    pub abort: CancellationToken,
}

/// How the executor runs.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// Scenarios in flight at once (the CLI uses `--concurrency`).
    pub scenarios_in_flight: usize,
    /// Stop dispatching once the spend reaches this many USD.
    pub budget_usd: Option<f64>,
    /// The output file and its sync policy.
    pub sink: SinkConfig,
}

/// Why dispatching ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// Every selected scenario was dispatched.
    Completed,
    /// `RunControl::stop` (first Ctrl-C).
    Interrupted,
    /// `RunControl::abort` (second Ctrl-C): in-flight scenarios were dropped.
    Aborted,
    /// A fatal error (e.g. bad credentials) from one scenario's call.
    Fatal(String),
    /// The spend reached the budget.
    Budget,
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// Why dispatching ended.
    pub stop: StopReason,
    /// What the writer wrote.
    pub sink: SinkReport,
    /// Ids skipped because they were already in the output.
    pub skipped: u64,
}

impl RunReport {
    /// The run's counters as plain numbers, for its closing summary.
    #[must_use]
    pub fn totals(
        &self,
        stats: &RunStats,
        provider: &str,
        ratio_judge: runlog::RatioJudgeMode,
    ) -> runlog::RunTotals {
        use std::sync::atomic::Ordering::Relaxed;
        runlog::RunTotals {
            records: self.sink.records,
            failures: self.sink.failures,
            skipped: self.skipped,
            stop: format!("{:?}", self.stop),
            calls: stats.calls.load(Relaxed),
            cache_hits: stats.cache_hits.load(Relaxed),
            call_errors: stats.call_errors.load(Relaxed),
            prompt_tokens: stats.prompt_tokens.load(Relaxed),
            completion_tokens: stats.completion_tokens.load(Relaxed),
            cost_usd: stats.cost_usd(),
            unpriced: stats.unpriced.load(Relaxed),
            provider: provider.to_owned(),
            ratio_judge: ratio_judge.name(),
        }
    }
}

/// A run that could not proceed.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The output or errors file failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
}

/// Answers each call at once with a [`ChatModel`], each in its own task (see the module docs).
pub struct OnlineBackend {
    model: Arc<dyn ChatModel>,
    scenarios_in_flight: usize,
    tasks: JoinSet<Reply>,
    /// Which call each task answers, so a task that panics still answers its machine.
    running: HashMap<tokio::task::Id, (Slot, CallKey)>,
}

impl std::fmt::Debug for OnlineBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineBackend")
            .field("scenarios_in_flight", &self.scenarios_in_flight)
            .field("calls_in_flight", &self.tasks.len())
            .finish_non_exhaustive()
    }
}

impl OnlineBackend {
    /// A back end sending to `model`, `scenarios_in_flight` scenarios at once.
    #[must_use]
    pub fn new(model: Arc<dyn ChatModel>, scenarios_in_flight: usize) -> Self {
        Self {
            model,
            scenarios_in_flight: scenarios_in_flight.max(1),
            tasks: JoinSet::new(),
            running: HashMap::new(),
        }
    }

    /// Sends one call now.
    pub(crate) fn send(&mut self, slot: Slot, key: CallKey, request: ChatRequest) {
        let model = self.model.clone();
        let task_key = key.clone();
        let handle = self.tasks.spawn(async move {
            let result = model.chat(request).await;
            Reply {
                slot,
                key: task_key,
                result,
                replayed: false,
            }
        });
        self.running.insert(handle.id(), (slot, key));
    }

    /// Waits for the next answered call; `None` when none is in flight.
    pub(crate) async fn next_reply(&mut self) -> Option<Reply> {
        let joined = self.tasks.join_next_with_id().await?;
        Some(match joined {
            Ok((id, reply)) => {
                self.running.remove(&id);
                reply
            }
            Err(e) => {
                // A panicking call is a bug; its scenario fails and is retried next run.
                tracing::error!(error = %e, "a call's task ended abnormally");
                let (slot, key) = self.running.remove(&e.id()).unwrap_or((
                    Slot(u64::MAX),
                    CallKey::new("", 0, runlog::AgentKind::Generator),
                ));
                Reply {
                    slot,
                    key,
                    result: Err(LlmError::Protocol(format!(
                        "the call ended abnormally: {e}"
                    ))),
                    replayed: false,
                }
            }
        })
    }

    /// Drops every call in flight.
    pub(crate) fn abort_all(&mut self) {
        self.tasks.abort_all();
        self.running.clear();
    }
}

impl<T> Backend<T> for OnlineBackend {
    type Error = std::convert::Infallible;

    fn capacity(&self) -> usize {
        self.scenarios_in_flight
    }

    fn submit(&mut self, calls: Vec<Dispatch>) -> Result<(), Self::Error> {
        for Dispatch { slot, call } in calls {
            self.send(slot, call.key, call.request);
        }
        Ok(())
    }

    async fn next(&mut self, _dispatching: bool) -> Result<Progress, Self::Error> {
        let Some(first) = self.next_reply().await else {
            return Ok(Progress::Idle);
        };
        Ok(Progress::Replies(vec![first]))
    }

    fn abort(&mut self) {
        self.abort_all();
    }
}

/// The scenarios not yet in the checkpoint, counting the others as skipped.
pub(crate) fn not_done<'a, I>(
    scenarios: I,
    done: &'a std::collections::HashSet<String>,
    stats: &'a RunStats,
) -> impl Iterator<Item = (Scenario, ())> + 'a
where
    I: IntoIterator<Item = Scenario>,
    I::IntoIter: 'a,
{
    scenarios.into_iter().filter_map(move |s| {
        if done.contains(&s.id) {
            stats.skipped.fetch_add(1, Ordering::Relaxed);
            None
        } else {
            Some((s, ()))
        }
    })
}

/// Runs `scenarios` through the pipeline, writing one record each (see the module docs).
/// `checkpoint` comes from [`crate::sink::open_checkpoint`] on the same output file.
///
/// # Errors
/// When the output or errors file fails.
pub async fn run_online<I>(
    model: Arc<dyn ChatModel>,
    pipeline: Arc<Pipeline>,
    scenarios: I,
    checkpoint: Checkpoint,
    options: ExecutorOptions,
    control: RunControl,
    stats: Arc<RunStats>,
) -> Result<RunReport, ExecutorError>
where
    I: IntoIterator<Item = Scenario>,
{
    let slots = options.scenarios_in_flight.max(1);
    let (mut tx, rx) = mpsc::channel::<RunOutcome>(slots * 2);
    let writer = spawn_writer(options.sink.clone(), checkpoint.previous_failures, rx)?;
    let done = checkpoint.done;
    let mut backend = OnlineBackend::new(model, slots);
    let policy = Policy {
        budget_usd: options.budget_usd,
    };
    let stop = match drive(
        &mut backend,
        &pipeline,
        not_done(scenarios, &done, &stats),
        &policy,
        &control,
        &stats,
        &mut tx,
    )
    .await
    {
        Ok(stop) => stop,
        Err(never) => match never {},
    };
    drop(tx);
    let sink = writer.finish().await?;
    Ok(RunReport {
        stop,
        sink,
        skipped: stats.skipped.load(Ordering::Relaxed),
    })
}
