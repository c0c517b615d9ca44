//! The online executor: drives many [`ScenarioRun`]s concurrently against one [`ChatModel`].
//!
//! Scenarios are pulled lazily from an iterator (never materialised), skipping ids the checkpoint
//! already holds; at most `scenarios_in_flight` run at once, so memory is bounded by that number
//! whatever the size of the space. The four judges of an attempt are issued together. The real
//! request limit is the transport's (`Limits.max_in_flight`): running a few more scenarios than
//! that keeps the limiter saturated. Outcomes go through a channel to the single writer.
//!
//! Dispatch stops (in-flight scenarios finish and are written) on the first Ctrl-C
//! (`RunControl::stop`), on a fatal error (bad credentials, budget) and when the spend reaches the
//! budget; `RunControl::abort` (second Ctrl-C) drops in-flight scenarios after flushing what was
//! written.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::join_all;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use llm_client::{ChatModel, ChatResponse, LlmError};
use scenarios::Scenario;

use super::machine::{Pipeline, RunOutcome, ScenarioRun};
use super::sink::{Checkpoint, SinkConfig, SinkError, SinkReport, spawn_writer};

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
    /// Spend in nano-USD (integer, so it can be an atomic).
    pub cost_nano_usd: AtomicU64,
}

impl RunStats {
    /// Spend so far in USD.
    #[must_use]
    pub fn cost_usd(&self) -> f64 {
        self.cost_nano_usd.load(Ordering::Relaxed) as f64 / 1e9
    }

    fn on_reply(&self, reply: &Result<ChatResponse, LlmError>) {
        match reply {
            Ok(resp) => {
                self.calls.fetch_add(1, Ordering::Relaxed);
                if resp.cached {
                    self.cache_hits.fetch_add(1, Ordering::Relaxed);
                } else {
                    self.prompt_tokens
                        .fetch_add(resp.usage.prompt_tokens, Ordering::Relaxed);
                    self.completion_tokens
                        .fetch_add(resp.usage.completion_tokens, Ordering::Relaxed);
                    let nano = (resp.cost_usd.unwrap_or(0.0).max(0.0) * 1e9).round() as u64;
                    self.cost_nano_usd.fetch_add(nano, Ordering::Relaxed);
                }
            }
            Err(_) => {
                self.call_errors.fetch_add(1, Ordering::Relaxed);
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

/// A run that could not proceed.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The output or errors file failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
}

/// Runs `scenarios` through the pipeline, writing one record each (see the module docs).
/// `checkpoint` comes from [`super::sink::open_checkpoint`] on the same output file.
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
    let (tx, rx) = mpsc::channel::<RunOutcome>(slots * 2);
    let writer = spawn_writer(options.sink.clone(), checkpoint.previous_failures, rx)?;
    let done = checkpoint.done;
    let mut scenarios = scenarios.into_iter();
    let mut tasks: JoinSet<RunOutcome> = JoinSet::new();
    let mut stop: Option<StopReason> = None;
    let mut exhausted = false;
    let mut writer_gone = false;

    loop {
        // Fill free slots unless something asked us to stop.
        while stop.is_none() && !exhausted && tasks.len() < slots {
            if control.stop.is_cancelled() {
                stop = Some(StopReason::Interrupted);
                break;
            }
            match scenarios.next() {
                Some(s) if done.contains(&s.id) => {
                    stats.skipped.fetch_add(1, Ordering::Relaxed);
                }
                Some(s) => {
                    stats.started.fetch_add(1, Ordering::Relaxed);
                    tasks.spawn(drive(model.clone(), pipeline.clone(), s, stats.clone()));
                }
                None => exhausted = true,
            }
        }
        if tasks.is_empty() {
            break;
        }
        let joined = tokio::select! {
            biased;
            () = control.abort.cancelled() => {
                tracing::warn!(in_flight = tasks.len(), "aborted: dropping scenarios in flight");
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                stop = Some(StopReason::Aborted);
                break;
            }
            () = control.stop.cancelled(), if stop.is_none() => {
                stop = Some(StopReason::Interrupted);
                continue;
            }
            joined = tasks.join_next() => joined,
        };
        let outcome = match joined {
            Some(Ok(outcome)) => outcome,
            Some(Err(e)) => {
                // A panicking scenario is a bug; the others go on and its id is retried next run.
                tracing::error!(error = %e, "a scenario task ended abnormally");
                continue;
            }
            None => break,
        };
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
                if f.fatal && stop.is_none() {
                    tracing::error!(reason = %f.reason, "fatal error: no new scenarios are started");
                    stop = Some(StopReason::Fatal(f.reason.clone()));
                }
            }
        }
        if let Some(budget) = options.budget_usd
            && stop.is_none()
            && stats.cost_usd() >= budget
        {
            tracing::warn!(
                budget,
                spent = stats.cost_usd(),
                "budget reached: no new scenarios are started"
            );
            stop = Some(StopReason::Budget);
        }
        if !writer_gone && tx.send(outcome).await.is_err() {
            // The writer died (its error is returned below); keep nothing more in flight.
            writer_gone = true;
            stop.get_or_insert(StopReason::Interrupted);
            tasks.abort_all();
        }
    }
    drop(tx);
    let sink = writer.finish().await?;
    Ok(RunReport {
        stop: stop.unwrap_or(StopReason::Completed),
        sink,
        skipped: stats.skipped.load(Ordering::Relaxed),
    })
}

/// One scenario from start to outcome: issue the pending calls together, absorb, repeat.
async fn drive(
    model: Arc<dyn ChatModel>,
    pipeline: Arc<Pipeline>,
    scenario: Scenario,
    stats: Arc<RunStats>,
) -> RunOutcome {
    let mut run = ScenarioRun::new(pipeline, scenario);
    while !run.is_done() {
        let calls = run.pending();
        if calls.is_empty() {
            break;
        }
        let replies = join_all(calls.into_iter().map(|call| {
            let model = &model;
            async move { (call.key, model.chat(call.request).await) }
        }))
        .await;
        for (key, reply) in replies {
            stats.on_reply(&reply);
            if let Err(e) = run.absorb(&key, reply) {
                tracing::error!(error = %e, "reply for an unknown call");
            }
        }
    }
    run.finish()
}
