//! The driver: one loop that moves every [`ScenarioRun`] of a run between its state machine and
//! a [`Backend`], with one policy for outcomes, whatever answers the calls.
//!
//! The loop: admit scenarios while the back end has room ([`Backend::capacity`]) and nothing
//! asked to stop; hand every call the machines want to the back end ([`Backend::submit`]); wait
//! for replies ([`Backend::next`]); count each reply, give it to its machine, and write every
//! machine that is done with no call outstanding. The back ends only decide *how* calls get
//! answered:
//!
//! - online ([`crate::executor::OnlineBackend`]): each call sent at once to a `ChatModel`;
//!   capacity is the number of scenarios in flight, so memory is bounded by it;
//! - batch ([`crate::batch::BatchBackend`]): calls gathered into waves of provider batches, with
//!   a resumable state file; every scenario is live at once;
//! - replay ([`crate::audit::ReplayBackend`]): a recorded batch stands in for the generator and
//!   the judges are asked again (the audit).
//!
//! The policy ([`Policy`]) is the same for all of them:
//! - every reply a provider gives this process is counted once in [`RunStats`]
//!   ([`RunStats::count_reply`]), whatever the back end; replayed replies (a batch state file's,
//!   the audit's recorded batch) are absorbed but not counted again;
//! - the spend reaching the budget stops the run ([`StopReason::Budget`]) — unless no scenario
//!   was left unstarted, when the run completed (the calls in flight overspent) — checked before every
//!   admission and after every reply;
//! - a fatal failure (bad credentials, budget at the provider) stops it ([`StopReason::Fatal`]);
//! - Ctrl-C (`RunControl::stop`) stops it; `RunControl::abort` drops what is in flight.
//!
//! Stopping means no new work starts: no scenario is admitted, and the back end starts nothing
//! new (online: calls of scenarios already running still go out so they finish; batch: no new
//! wave is submitted, batches in flight are collected and unfinished scenarios stay in the state
//! file for the next run). Retries are the transport's (online) or the batch back end's
//! resubmissions, and the machine's own asking again for invalid replies.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use llm_client::{ChatResponse, LlmError, Usage};
use scenarios::Scenario;
use tokio_util::sync::CancellationToken;

use crate::key::CallKey;
use crate::machine::{AgentCall, Pipeline, RunOutcome, ScenarioRun};
use crate::sink::SinkReport;

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

    /// Spend so far and the calls behind it: (USD, calls).
    #[must_use]
    pub fn spent(&self) -> (f64, u64) {
        (self.cost_usd(), self.calls.load(Ordering::Relaxed))
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

    /// A reading for a progress display (`stdx::progress`): of `total` selected scenarios,
    /// `elapsed` since the start, with what the model's transport absorbed.
    #[must_use]
    pub fn reading(
        &self,
        total: u64,
        transport: Option<llm_client::TransportTally>,
        elapsed: std::time::Duration,
    ) -> stdx::progress::Reading {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let failed = get(&self.failed);
        let done = get(&self.finished) + failed;
        stdx::progress::Reading {
            done,
            total: total.saturating_sub(get(&self.skipped)),
            counts: vec![("accepted", get(&self.accepted)), ("failed", failed)],
            tokens: get(&self.prompt_tokens) + get(&self.completion_tokens),
            tok_per_s: get(&self.completion_tokens) as f64 / elapsed.as_secs_f64().max(1e-3),
            cost: runlog::money::spend(self.cost_usd(), get(&self.unpriced)),
            transport: transport.unwrap_or_default(),
        }
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

/// Why dispatching ended. `Display` says it in words (what a run's summary prints).
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
    /// No endpoint answers ([`LlmError::Unavailable`]): the scenarios that met it were left
    /// unwritten, pending for the next run, not failed.
    Unavailable(String),
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Completed => f.write_str("completed"),
            Self::Interrupted => f.write_str("interrupted (no new scenario was started)"),
            Self::Aborted => f.write_str("aborted (the scenarios in flight were dropped)"),
            Self::Fatal(reason) => write!(f, "a fatal error: {reason}"),
            Self::Budget => f.write_str("the budget was reached"),
            Self::Unavailable(reason) => write!(
                f,
                "{reason}; the scenarios not written are still to do: run again to resume"
            ),
        }
    }
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
    /// Why the run ended, in words; a run that wrote no record never says "completed".
    #[must_use]
    pub fn stop_words(&self) -> String {
        match (&self.stop, self.sink.records, self.sink.failures) {
            (StopReason::Completed, 0, 0) => "nothing left to run".to_owned(),
            (StopReason::Completed, 0, _) => "every scenario failed".to_owned(),
            (StopReason::Completed, _, 0) => "completed".to_owned(),
            (StopReason::Completed, _, n) => format!("completed, {n} scenario(s) failed"),
            (other, _, _) => other.to_string(),
        }
    }

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
            stop: self.stop_words(),
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

/// A live scenario in the driver; never reused within a run, so a late reply cannot reach
/// another scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub u64);

/// A call handed to a back end: the machine's call and the slot of its scenario.
#[derive(Debug, Clone)]
pub struct Dispatch {
    /// Whose call it is.
    pub slot: Slot,
    /// The call.
    pub call: AgentCall,
}

/// A call's result, handed back by a back end.
#[derive(Debug)]
pub struct Reply {
    /// Whose call it was.
    pub slot: Slot,
    /// The call's key.
    pub key: CallKey,
    /// The model's reply or the transport's error.
    pub result: Result<ChatResponse, LlmError>,
    /// Not a provider's answer in this process: a reply stored by an earlier process (batch
    /// resume) or a recorded one (audit). The machine absorbs it; the run's counters and spend
    /// do not count it again.
    pub replayed: bool,
}

/// What a back end's wait produced.
#[derive(Debug)]
pub enum Progress {
    /// Replies to absorb (possibly none, when the back end only advanced its own state).
    Replies(Vec<Reply>),
    /// Nothing is outstanding and nothing will arrive without new calls or dispatching.
    Idle,
    /// The back end cannot go on (a provider failure, Ctrl-C while polling, a wave limit).
    Halt(StopReason),
}

/// How calls get answered (see the module docs). `T` is the caller's tag of a scenario (the
/// audit's item and repeat; `()` for a run).
pub trait Backend<T> {
    /// A failure that ends the run (e.g. the batch state file cannot be written).
    type Error;

    /// Scenarios live at once.
    fn capacity(&self) -> usize;

    /// A scenario was admitted in `slot`.
    fn admitted(&mut self, _slot: Slot, _tag: &T) {}

    /// Takes calls to answer; answers may come from the next [`Backend::next`].
    ///
    /// # Errors
    /// When the back end's own state fails.
    fn submit(&mut self, calls: Vec<Dispatch>) -> Result<(), Self::Error>;

    /// Waits for replies. `dispatching` is false once the run stops: start nothing new.
    fn next(&mut self, dispatching: bool) -> impl Future<Output = Result<Progress, Self::Error>>;

    /// The scenario in `slot` was written; its calls are of no further use.
    fn finished(&mut self, _slot: Slot, _scenario: &str) {}

    /// Drops everything in flight (second Ctrl-C).
    fn abort(&mut self) {}
}

/// Where outcomes go: the output writer for a run, a list for the audit.
pub trait Outcomes<T> {
    /// Takes one outcome; false when the receiver is gone (the run then stops).
    fn deliver(&mut self, tag: T, outcome: RunOutcome) -> impl Future<Output = bool>;
}

impl Outcomes<()> for tokio::sync::mpsc::Sender<RunOutcome> {
    async fn deliver(&mut self, (): (), outcome: RunOutcome) -> bool {
        self.send(outcome).await.is_ok()
    }
}

impl<T> Outcomes<T> for Vec<(T, RunOutcome)> {
    async fn deliver(&mut self, tag: T, outcome: RunOutcome) -> bool {
        self.push((tag, outcome));
        true
    }
}

/// The outcome policy shared by every back end (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Stop once the spend reaches this many USD.
    pub budget_usd: Option<f64>,
    /// The tool server that grounds scenarios with `use_tools: true`, when one is configured
    /// (each such scenario is grounded as it is admitted; a server that is down fails its
    /// scenario as fatal, which stops the run).
    pub grounder: Option<Arc<crate::grounding::Grounder>>,
}

impl Policy {
    /// Why the run must stop after this spend, if it must.
    #[must_use]
    pub fn over_budget(&self, stats: &RunStats) -> Option<StopReason> {
        let budget = self.budget_usd?;
        let spent = stats.cost_usd();
        (spent >= budget).then(|| {
            tracing::warn!(budget, spent, "budget reached: no new work is started");
            StopReason::Budget
        })
    }

    /// Counts a written outcome; why the run must stop after it, if it must.
    #[must_use]
    pub fn on_outcome(&self, outcome: &RunOutcome, stats: &RunStats) -> Option<StopReason> {
        match outcome {
            RunOutcome::Finished(r) => {
                stats.finished.fetch_add(1, Ordering::Relaxed);
                if r.accepted {
                    stats.accepted.fetch_add(1, Ordering::Relaxed);
                }
                None
            }
            RunOutcome::Failed(f) => {
                stats.failed.fetch_add(1, Ordering::Relaxed);
                // Counted in the progress and the summary, and kept in the errors file: one
                // line per failure buried the progress of large runs.
                tracing::info!(scenario = %f.id, reason = %f.reason, "scenario failed");
                f.fatal.then(|| {
                    tracing::error!(reason = %f.reason, "fatal error: no new work is started");
                    StopReason::Fatal(f.reason.clone())
                })
            }
        }
    }
}

struct Live<T> {
    run: ScenarioRun,
    tag: T,
}

/// Runs `jobs` (scenario and tag) through the pipeline on `backend` until every job is written
/// or the run stops; returns why it ended. Outcomes go to `outcomes` in the order the scenarios
/// finish.
///
/// # Errors
/// The back end's own failures.
pub async fn drive<T, B, I, O>(
    backend: &mut B,
    pipeline: &Arc<Pipeline>,
    jobs: I,
    policy: &Policy,
    control: &RunControl,
    stats: &RunStats,
    outcomes: &mut O,
) -> Result<StopReason, B::Error>
where
    B: Backend<T>,
    I: IntoIterator<Item = (Scenario, T)>,
    O: Outcomes<T>,
{
    let mut jobs = jobs.into_iter().peekable();
    let mut live: BTreeMap<Slot, Live<T>> = BTreeMap::new();
    let mut next_slot = 0u64;
    let mut touched: Vec<Slot> = Vec::new();
    let mut stop: Option<StopReason> = None;
    let mut exhausted = false;
    // A scenario taken from `jobs` but never admitted (a stop while it was grounded).
    let mut left_to_do = false;
    loop {
        if stop.is_none() && control.stop.is_cancelled() {
            stop = Some(StopReason::Interrupted);
        }
        if stop.is_none() {
            stop = policy.over_budget(stats);
        }
        while stop.is_none() && !exhausted && live.len() < backend.capacity().max(1) {
            let Some((scenario, tag)) = jobs.next() else {
                exhausted = true;
                break;
            };
            let grounded = match &policy.grounder {
                Some(g) if crate::grounding::asks_for_tools(&scenario.params) => {
                    // A stop asked for while the tool server is asked (a slow or hung server
                    // waits out its timeout) stops at once: the scenario is left to do.
                    tokio::select! {
                        grounded = g.ground(&scenario.params) => Some(grounded),
                        () = control.stop.cancelled() => {
                            tracing::info!(scenario = %scenario.id, "stop asked for while its article was fetched: the scenario is left to do");
                            left_to_do = true;
                            stop = Some(StopReason::Interrupted);
                            break;
                        }
                    }
                }
                _ => None,
            };
            stats.started.fetch_add(1, Ordering::Relaxed);
            let slot = Slot(next_slot);
            next_slot += 1;
            backend.admitted(slot, &tag);
            let run = match grounded {
                Some(grounded) => {
                    // A server that is down admits no further scenario: they are left to do,
                    // not failed (this one's failure stops the run as fatal).
                    if let crate::grounding::Grounded::Failed {
                        reason,
                        server_down: true,
                    } = &grounded
                    {
                        stop.get_or_insert_with(|| StopReason::Fatal(reason.clone()));
                    }
                    ScenarioRun::grounded(pipeline.clone(), scenario, grounded)
                }
                None => ScenarioRun::new(pipeline.clone(), scenario),
            };
            live.insert(slot, Live { run, tag });
            touched.push(slot);
        }
        // Hand out what the touched machines ask for, and write the ones that are done.
        let mut calls = Vec::new();
        let mut freed = false;
        touched.sort_unstable();
        touched.dedup();
        for slot in touched.drain(..) {
            let Some(l) = live.get_mut(&slot) else {
                continue;
            };
            calls.extend(
                l.run
                    .pending()
                    .into_iter()
                    .map(|call| Dispatch { slot, call }),
            );
            if l.run.is_done() && l.run.awaiting() == 0 {
                let Some(l) = live.remove(&slot) else {
                    continue;
                };
                backend.finished(slot, &l.run.scenario().id);
                let outcome = l.run.finish();
                if let Some(reason) = policy.on_outcome(&outcome, stats) {
                    stop.get_or_insert(reason);
                }
                if !outcomes.deliver(l.tag, outcome).await {
                    tracing::error!("the output writer stopped; its error is reported at the end");
                    stop.get_or_insert(StopReason::Interrupted);
                    backend.abort();
                    return Ok(stop.unwrap_or(StopReason::Interrupted));
                }
                freed = true;
            }
        }
        if !calls.is_empty() {
            backend.submit(calls)?;
        }
        if freed && stop.is_none() && !exhausted {
            continue;
        }
        if live.is_empty() && (exhausted || stop.is_some()) {
            break;
        }
        let progress = tokio::select! {
            biased;
            () = control.abort.cancelled() => {
                tracing::warn!(in_flight = live.len(), "aborted: dropping scenarios in flight");
                backend.abort();
                return Ok(StopReason::Aborted);
            }
            () = control.stop.cancelled(), if stop.is_none() => continue,
            progress = backend.next(stop.is_none()) => progress?,
        };
        match progress {
            Progress::Replies(replies) => {
                for reply in replies {
                    // No endpoint answers: the scenario is not failed, it is still to do. It is
                    // dropped unwritten (a later reply of its finds no slot) and the run stops.
                    if let Err(LlmError::Unavailable { endpoints, reason }) = &reply.result {
                        live.remove(&reply.slot);
                        stop.get_or_insert_with(|| {
                            StopReason::Unavailable(format!(
                                "no endpoint answers: {endpoints} ({reason})"
                            ))
                        });
                        continue;
                    }
                    if !reply.replayed {
                        stats.count_reply(&reply.result);
                    }
                    let Some(l) = live.get_mut(&reply.slot) else {
                        continue;
                    };
                    if let Err(e) = l.run.absorb(&reply.key, reply.result) {
                        tracing::error!(error = %e, "reply for an unknown call");
                    }
                    touched.push(reply.slot);
                }
                if stop.is_none() {
                    stop = policy.over_budget(stats);
                }
            }
            Progress::Idle if stop.is_some() => break,
            Progress::Idle => {
                // A machine neither done nor waiting would be a machine bug; end it as a
                // failure rather than loop forever.
                tracing::error!(
                    scenarios = live.len(),
                    "scenarios with no call outstanding; ending them"
                );
                for (slot, l) in std::mem::take(&mut live) {
                    backend.finished(slot, &l.run.scenario().id);
                    let outcome = l.run.finish();
                    if let Some(reason) = policy.on_outcome(&outcome, stats) {
                        stop.get_or_insert(reason);
                    }
                    if !outcomes.deliver(l.tag, outcome).await {
                        stop.get_or_insert(StopReason::Interrupted);
                        return Ok(stop.unwrap_or(StopReason::Interrupted));
                    }
                }
            }
            // The first reason to stop is the one reported.
            Progress::Halt(reason) => return Ok(stop.unwrap_or(reason)),
        }
    }
    // The budget reached by the calls of the last scenarios in flight, with none left to start,
    // stopped nothing: every scenario was written (the overspend is in the run's stats).
    // Likewise a stop asked for (Ctrl-C) once the last scenario had started: it was finished
    // and written like the others, so the run is complete.
    if live.is_empty() && jobs.peek().is_none() && !left_to_do {
        match stop {
            Some(StopReason::Budget) => {
                tracing::info!(
                    "the budget was reached by the last scenarios in flight; none was left"
                );
                stop = None;
            }
            Some(StopReason::Interrupted) => {
                tracing::info!("stop asked for after the last scenario started; none was left");
                stop = None;
            }
            _ => {}
        }
    }
    Ok(stop.unwrap_or(StopReason::Completed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(stop: StopReason, records: u64, failures: u64) -> RunReport {
        RunReport {
            stop,
            sink: SinkReport {
                records,
                failures,
                carried_failures: 0,
            },
            skipped: 0,
        }
    }

    /// "240 failed … stop: Completed" and `Fatal("generator: …")`: a run that wrote nothing
    /// said it completed, and a stop was shown in Rust's debug formatting.
    #[test]
    fn a_stop_is_said_in_words_and_a_run_that_wrote_nothing_never_completed() {
        assert_eq!(
            report(StopReason::Completed, 3, 0).stop_words(),
            "completed"
        );
        assert_eq!(
            report(StopReason::Completed, 3, 2).stop_words(),
            "completed, 2 scenario(s) failed"
        );
        assert_eq!(
            report(StopReason::Completed, 0, 240).stop_words(),
            "every scenario failed"
        );
        assert_eq!(
            report(StopReason::Completed, 0, 0).stop_words(),
            "nothing left to run"
        );
        let fatal = report(StopReason::Fatal("generator: bad key".into()), 0, 1);
        assert_eq!(fatal.stop_words(), "a fatal error: generator: bad key");
        for stop in [
            StopReason::Interrupted,
            StopReason::Aborted,
            StopReason::Budget,
            StopReason::Unavailable("no endpoint answers: http://h/v1 (refused)".into()),
        ] {
            let words = report(stop.clone(), 0, 0).stop_words();
            assert!(
                !words.contains("completed") && !words.contains(&format!("{stop:?}")),
                "{words}"
            );
        }
    }
}
