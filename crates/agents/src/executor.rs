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
use std::sync::atomic::Ordering;

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use llm_client::{ChatModel, ChatRequest, LlmError};
use scenarios::Scenario;

use crate::driver::{
    Backend, Dispatch, Policy, Progress, Reply, RunControl, RunReport, RunStats, Slot, StopReason,
    drive,
};
use crate::key::CallKey;
use crate::machine::{Pipeline, RunOutcome};
use crate::sink::{Checkpoint, SinkConfig, SinkError, spawn_writer};

/// How the executor runs.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// Scenarios in flight at once (the CLI uses `--concurrency`).
    pub scenarios_in_flight: usize,
    /// Stop dispatching once the spend reaches this many USD.
    pub budget_usd: Option<f64>,
    /// The output file and its sync policy.
    pub sink: SinkConfig,
    /// The tool server that grounds scenarios with `use_tools: true` ([`Policy::grounder`]).
    pub grounder: Option<Arc<crate::grounding::Grounder>>,
}

/// A run that could not proceed.
#[derive(Debug, thiserror::Error)]
pub enum ExecutorError {
    /// The output or errors file failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
}

/// How often a stopping run looks whether the transport is paused.
const PAUSE_POLL: std::time::Duration = std::time::Duration::from_millis(100);

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

    async fn next(&mut self, dispatching: bool) -> Result<Progress, Self::Error> {
        if dispatching {
            let Some(first) = self.next_reply().await else {
                return Ok(Progress::Idle);
            };
            return Ok(Progress::Replies(vec![first]));
        }
        // A stop was asked for: the calls in flight are finished, unless the transport is
        // paused (no endpoint answers), where finishing would wait out the breaker's
        // `probe_for`; then they are dropped, their scenarios left to do.
        let model = self.model.clone();
        let paused = async move {
            while !model.transport().is_some_and(|t| t.paused) {
                tokio::time::sleep(PAUSE_POLL).await;
            }
        };
        tokio::select! {
            reply = self.next_reply() => Ok(reply.map_or(Progress::Idle, |r| Progress::Replies(vec![r]))),
            () = paused => {
                tracing::info!(in_flight = self.running.len(), "stopping while no endpoint answers: the calls in flight are dropped, their scenarios left to do");
                self.abort_all();
                Ok(Progress::Halt(StopReason::Interrupted))
            }
        }
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
        grounder: options.grounder.clone(),
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
