//! Running a suite: each scenario run is a fresh conversation with a fresh bot from the
//! [`BotFactory`]; steps are sent in order, each under the scenario's turn timeout. A bot error or
//! timeout becomes a failed turn (and stops the conversation), never a pass. The transcript is then
//! scored with `scoring::expect::evaluate` (after the optional LLM judge answered its questions)
//! and a `ScoreCard` under the suite's policy. A judge question that got no answer adds a failed
//! critical `judgeError` check (the text rules never silently stand in for the judge). Scenarios run concurrently, bounded by
//! [`RunOptions::concurrency`]; results keep the suite's order.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use futures::StreamExt;

use scoring::expect::{
    CustomVerdicts, JudgeQuestion, custom_requests, evaluate_with, judge_questions,
};
use scoring::transcript::{BotTurn, Transcript};
use scoring::{
    Check, Interrupted, JudgeTally, RunResult, ScenarioReport, ScenarioResult, ScoreCard,
    ScorePolicy, SuiteResult,
};

use super::{Suite, SuiteScenario};
use crate::bot::judge::{JudgeAnswers, LlmJudge};
use crate::bot::{Bot, BotError};
use crate::checks::CheckRunner;

/// Makes a fresh bot for one run of one scenario.
pub trait BotFactory: Send + Sync {
    /// A bot for a new conversation of `scenario`.
    ///
    /// # Errors
    /// A [`BotError`] when the bot cannot be built (recorded as the run's failure).
    fn create(&self, scenario: &SuiteScenario) -> Result<Box<dyn Bot>, BotError>;
}

impl<F> BotFactory for F
where
    F: Fn(&SuiteScenario) -> Result<Box<dyn Bot>, BotError> + Send + Sync,
{
    fn create(&self, scenario: &SuiteScenario) -> Result<Box<dyn Bot>, BotError> {
        self(scenario)
    }
}

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Runs per scenario (≥ 1); more than one measures flakiness.
    pub repeat: u32,
    /// Scenarios in flight at once (≥ 1).
    pub concurrency: usize,
    /// Which scenarios run.
    pub selection: Selection,
    /// Overrides the suite's strict mode.
    pub strict: Option<bool>,
    /// Overrides the suite's threshold.
    pub threshold: Option<u32>,
    /// Ask this judge the askFor/warn/reject questions.
    pub judge: Option<LlmJudge>,
    /// What the user's own checks (`command`, `llmRubric`, `similar`) need; `None` runs
    /// commands in the suite's folder and fails the model-backed checks for want of a model.
    pub checks: Option<CheckRunner>,
    /// Cancelled: start no further run; the runs in flight finish (each is bounded by its
    /// turn timeouts) and the result is marked interrupted.
    pub stop: CancellationToken,
    /// Cancelled: the runs in flight are abandoned too (their bots dropped, processes killed).
    pub abort: CancellationToken,
    /// Counts of finished runs, for a progress display.
    pub progress: Arc<SuiteProgress>,
}

/// Finished runs so far, shared with a progress display.
#[derive(Debug, Default)]
pub struct SuiteProgress {
    /// Runs planned (selected scenarios × repeat).
    pub planned: AtomicU64,
    /// Runs finished.
    pub done: AtomicU64,
    /// Finished runs that passed.
    pub passed: AtomicU64,
    /// Finished runs that failed (bot errors included).
    pub failed: AtomicU64,
    /// Finished runs whose bot failed to answer (a `botError`) or could not be reached.
    pub errors: AtomicU64,
}

impl SuiteProgress {
    /// A reading for a progress display.
    #[must_use]
    pub fn reading(&self) -> stdx::progress::Reading {
        stdx::progress::Reading {
            done: self.done.load(Ordering::Relaxed),
            total: self.planned.load(Ordering::Relaxed),
            counts: vec![
                ("passing", self.passed.load(Ordering::Relaxed)),
                ("failing", self.failed.load(Ordering::Relaxed)),
                ("bot errors", self.errors.load(Ordering::Relaxed)),
            ],
            ..stdx::progress::Reading::default()
        }
    }

    fn finished(&self, run: &RunResult) {
        self.done.fetch_add(1, Ordering::Relaxed);
        if run.report.card.passed() {
            self.passed.fetch_add(1, Ordering::Relaxed);
        } else {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        let bot_error = run.unreachable.is_some()
            || run
                .report
                .card
                .checks()
                .iter()
                .any(|c| !c.passed && c.path.starts_with("bot"));
        if bot_error {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            repeat: 1,
            concurrency: 4,
            selection: Selection::default(),
            strict: None,
            threshold: None,
            judge: None,
            checks: None,
            stop: CancellationToken::new(),
            abort: CancellationToken::new(),
            progress: Arc::default(),
        }
    }
}

/// Which scenarios of a suite run: those matching any of the patterns (all without any), and of
/// those, only the ids listed when a list is given (`test --only-failed`).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Patterns (see [`SuiteScenario::matches`]); a scenario matching any of them is selected.
    pub patterns: Vec<String>,
    /// Only these scenario ids, when set.
    pub only: Option<std::collections::BTreeSet<String>>,
}

impl Selection {
    /// The selected scenarios of `suite`, in suite order.
    #[must_use]
    pub fn of<'s>(&self, suite: &'s Suite) -> Vec<&'s SuiteScenario> {
        suite
            .scenarios
            .iter()
            .filter(|s| self.patterns.is_empty() || self.patterns.iter().any(|p| s.matches(p)))
            .filter(|s| self.only.as_ref().is_none_or(|ids| ids.contains(&s.id)))
            .collect()
    }
}

/// Runs the selected scenarios of `suite`, `opts.repeat` times each. When `opts.stop` is
/// cancelled no further run starts (and `opts.abort` drops the runs in flight): the result holds
/// the runs that finished, and [`SuiteResult::interrupted`] says what was not run.
pub async fn run_suite(suite: &Suite, factory: &dyn BotFactory, opts: &RunOptions) -> SuiteResult {
    let policy = ScorePolicy {
        threshold: opts.threshold.unwrap_or(suite.defaults.threshold),
        strict: opts.strict.unwrap_or(suite.defaults.strict),
        ..ScorePolicy::default()
    };
    let selected = opts.selection.of(suite);
    let repeat = opts.repeat.max(1);
    let jobs = selected
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..repeat).map(move |r| (i, r, *s)));
    let policy = &policy;
    let checks = opts
        .checks
        .clone()
        .unwrap_or_else(|| CheckRunner::without_model(super::suite_folder(&suite.path)));
    let checks = &checks;
    let planned = selected.len() as u64 * u64::from(repeat);
    opts.progress.planned.store(planned, Ordering::Relaxed);
    let stop = &opts.stop;
    let mut runs = futures::stream::iter(jobs)
        // No run starts once the stop is asked; those in flight go on.
        .take_while(|_| std::future::ready(!stop.is_cancelled()))
        .map(|(i, r, scenario)| async move {
            (
                i,
                r,
                run_scenario_with(scenario, factory, policy, opts.judge.as_ref(), Some(checks))
                    .await,
            )
        })
        .buffer_unordered(opts.concurrency.max(1));
    let mut done: Vec<(usize, u32, RunResult)> = Vec::new();
    loop {
        let next = tokio::select! {
            next = runs.next() => next,
            () = opts.abort.cancelled() => None,
        };
        let Some(finished) = next else { break };
        opts.progress.finished(&finished.2);
        done.push(finished);
    }
    drop(runs);
    done.sort_by_key(|(i, r, _)| (*i, *r));
    let interrupted = (done.len() as u64) < planned;
    let mut scenarios: Vec<ScenarioResult> = selected
        .iter()
        .map(|s| ScenarioResult {
            id: s.id.clone(),
            name: s.name.clone(),
            category: s.category.as_str().to_owned(),
            tags: s.tags.clone(),
            expected_outcome: s.script.as_ref().and_then(|sc| sc.expect_outcome),
            runs: Vec::new(),
        })
        .collect();
    let runs_done = done.len() as u64;
    for (i, _, run) in done {
        if let Some(s) = scenarios.get_mut(i) {
            s.runs.push(run);
        }
    }
    // A scenario with no finished run is not a failed one: it was not run.
    let (scenarios, not_run): (Vec<ScenarioResult>, Vec<ScenarioResult>) =
        scenarios.into_iter().partition(|s| !s.runs.is_empty());
    let interrupted = interrupted.then(|| Interrupted {
        runs_done,
        runs_planned: planned,
        not_run: not_run.into_iter().map(|s| s.id).collect(),
    });
    tracing::info!(suite = %suite.name, scenarios = scenarios.len(), repeat, interrupted = interrupted.is_some(), "suite run finished");
    SuiteResult {
        suite: suite.name.clone(),
        repeat,
        scenarios,
        interrupted,
    }
}

/// Plays one scenario once with a fresh bot and scores it. The user's own checks are not
/// evaluated (they fail as such); [`run_scenario_with`] evaluates them.
pub async fn run_scenario(
    scenario: &SuiteScenario,
    factory: &dyn BotFactory,
    policy: &ScorePolicy,
    judge: Option<&LlmJudge>,
) -> RunResult {
    run_scenario_with(scenario, factory, policy, judge, None).await
}

/// [`run_scenario`], evaluating the user's own checks with `checks`.
pub async fn run_scenario_with(
    scenario: &SuiteScenario,
    factory: &dyn BotFactory,
    policy: &ScorePolicy,
    judge: Option<&LlmJudge>,
    checks: Option<&CheckRunner>,
) -> RunResult {
    let mut transcript = Transcript::default();
    let mut unreachable = None;
    match factory.create(scenario) {
        Ok(mut bot) => {
            for step in &scenario.steps {
                let (turn, not_reached) =
                    play_turn(bot.as_mut(), &transcript, step, scenario).await;
                let failed = turn.error.is_some();
                unreachable = unreachable.or(not_reached);
                transcript.push(step.clone(), turn);
                if failed {
                    // Later steps would answer a conversation the bot never held; they are
                    // reported as "not reached" by the checks that target them.
                    break;
                }
            }
        }
        Err(e) => {
            unreachable = e.unreachable().map(str::to_owned);
            let first = scenario.steps.first().cloned().unwrap_or_default();
            transcript.push(
                first,
                BotTurn::failed(format!("the bot could not be started: {e}")),
            );
        }
    }
    let questions = judge.map(|_| judge_questions(&scenario.expectations, &transcript));
    let answers = match (judge, &questions) {
        (Some(judge), Some(questions)) if !questions.is_empty() => judge.answer(questions).await,
        _ => JudgeAnswers::default(),
    };
    let requests = custom_requests(&scenario.expectations, &transcript);
    let (custom, spend) = match checks {
        Some(runner) if !requests.is_empty() => {
            runner.answer(scenario, &transcript, &requests).await
        }
        _ => Default::default(),
    };
    let mut checks = evaluate_with(
        &scenario.expectations,
        &transcript,
        &answers.verdicts,
        &custom,
    );
    let questions = questions.unwrap_or_default();
    if !verdict_is_independent(
        &scenario.expectations,
        &transcript,
        &answers,
        &custom,
        policy,
    ) {
        checks.extend(judge_error(&questions, &answers));
    } else if !answers.failures.is_empty() {
        tracing::info!(
            scenario = %scenario.id,
            "judge left questions unanswered whose answers cannot change the verdict"
        );
    }
    let tally = JudgeTally {
        asked: questions.len() as u64,
        answered: answers.verdicts.0.len() as u64,
        first_error: answers.failures.first().map(|(_, reason)| reason.clone()),
    };
    let card = ScoreCard::new(checks, policy);
    tracing::debug!(scenario = %scenario.id, score = card.score(), passed = card.passed(), "scenario scored");
    let report = ScenarioReport::new(
        &scenario.id,
        &scenario.name,
        scenario.category.as_str(),
        card,
    );
    RunResult {
        transcript,
        report,
        judge: tally,
        unreachable,
        checks: spend,
    }
}

/// Whether the scenario's pass/fail is the same whatever the judge would have answered to the
/// questions it left unanswered (e.g. a question inside an `any` whose other branch holds):
/// every combination of answers is tried, up to 6 unanswered questions (more count as
/// dependent). Then a judge failure cannot have decided the verdict and is not an error.
fn verdict_is_independent(
    exp: &scoring::expect::Expectations,
    transcript: &Transcript,
    answers: &JudgeAnswers,
    custom: &CustomVerdicts,
    policy: &ScorePolicy,
) -> bool {
    const MAX_TRIED: usize = 6;
    let failed: Vec<&str> = answers.failures.iter().map(|(id, _)| id.as_str()).collect();
    if failed.is_empty() {
        return true;
    }
    if failed.len() > MAX_TRIED {
        return false;
    }
    let outcome = |mask: usize| {
        let mut verdicts = answers.verdicts.clone();
        for (bit, id) in failed.iter().enumerate() {
            verdicts.0.insert(
                (*id).to_owned(),
                scoring::expect::JudgeVerdict {
                    holds: mask & (1 << bit) != 0,
                    reason: "assumed".to_owned(),
                },
            );
        }
        ScoreCard::new(evaluate_with(exp, transcript, &verdicts, custom), policy).passed()
    };
    let first = outcome(0);
    (1..1usize << failed.len()).all(|mask| outcome(mask) == first)
}

/// The failed critical `judgeError` check of a run whose judge left questions unanswered: the
/// checks it was asked about were decided by the text rules instead, which must not pass the
/// scenario.
fn judge_error(questions: &[JudgeQuestion], answers: &JudgeAnswers) -> Option<Check> {
    let (first_id, first_reason) = answers.failures.first()?;
    let kind = questions
        .iter()
        .find(|q| &q.id == first_id)
        .map_or(scoring::CheckKind::ShouldAskFor, |q| q.kind);
    let ids: Vec<&str> = answers.failures.iter().map(|(id, _)| id.as_str()).collect();
    Some(
        Check::fail(
            kind,
            "judgeError",
            format!(
                "judge unavailable: {first_reason} (no verdict for {}); the text rules' verdicts \
                 for these checks are not trusted",
                ids.join(", ")
            ),
        )
        .critical()
        .at("judge"),
    )
}

/// One turn, and why the bot could not be reached when that is why it failed.
async fn play_turn(
    bot: &mut dyn Bot,
    transcript: &Transcript,
    message: &str,
    scenario: &SuiteScenario,
) -> (BotTurn, Option<String>) {
    let started = Instant::now();
    let outcome =
        tokio::time::timeout(scenario.turn_timeout, bot.turn(&transcript.turns, message)).await;
    let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match outcome {
        Ok(Ok(mut turn)) => {
            turn.latency_ms = elapsed;
            (turn, None)
        }
        Ok(Err(e)) => {
            tracing::warn!(scenario = %scenario.id, error = %e, "bot turn failed");
            let turn = BotTurn {
                latency_ms: elapsed,
                ..BotTurn::failed(e.to_string())
            };
            (turn, e.unreachable().map(str::to_owned))
        }
        Err(_) => {
            tracing::warn!(scenario = %scenario.id, "bot turn timed out");
            let turn = BotTurn {
                latency_ms: elapsed,
                ..BotTurn::failed(format!(
                    "timed out after {} ms",
                    scenario.turn_timeout.as_millis()
                ))
            };
            (turn, None)
        }
    }
}
