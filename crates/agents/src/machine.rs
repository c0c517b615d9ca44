//! `ScenarioRun`: one scenario's pass through the pipeline graph as a pure state machine.
//!
//! Stages: Generate → Judge (all four at once) → Decide → Refine → Judge → … → Done. The machine
//! never awaits: [`ScenarioRun::pending`] hands out the calls it needs next, each with a stable
//! [`CallKey`] (`scenario_id:attempt:agent`, a call asked again adds `~try`), and
//! [`ScenarioRun::absorb`] takes their replies in any order. The driver
//! ([`crate::driver`]) only moves requests and replies between the machines and a back end.
//!
//! Decisions kept here, so every executor behaves the same:
//! - A generator or refiner reply with fewer usable texts than `min_instances` (empty list,
//!   blank strings, wrong shape) is asked again, up to `max_write_tries` in all, with the reason
//!   in the prompt (which also makes the request differ from the cached one). A generator that
//!   never succeeds fails the scenario; a refiner that never succeeds keeps the last judged
//!   attempt (not accepted) and notes why.
//! - The refined batch replaces the text and all four judges run again on it.
//! - A judge's invalid reply (after the transport's repair round, or outside 0–10) is asked
//!   again, up to `max_write_tries` in all, with the reason at the end of the prompt (a
//!   deterministic server would repeat the same reply to the same request). A judge's transport
//!   error, or invalid replies beyond
//!   that bound, fail the scenario: it goes to the errors file and is retried by the next run.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use codeswitch::ScriptHint;
use llm_client::{ChatRequest, ChatResponse, LlmError, Message, OutputSchema};
use scenarios::Scenario;
use scoring::JudgeWeights;

use codeswitch::without_speaker_label;
use llm_client::Usage;
use runlog::record::{CallReply, UsageTotals};
use runlog::{AgentKind, GateSettings, Keep, RatioJudgeMode};

use crate::agent::{AgentSet, AgentSettings};
use crate::gate;
use crate::judges::UserJudge;
use crate::key::{Agent, CallKey};
use crate::measure::{BatchMeasurement, measure_batch, ratio_score, target_ratio};
use crate::outputs::{
    FluencyResult, NaturalnessResult, Observation, OutputError, RatioResult, RatioVerdict,
    SocioCulturalResult, output_schema, parse_fluency, parse_instances, parse_naturalness,
    parse_ratio, parse_socio_cultural,
};
use crate::prompts::{Feedback, JudgeVerdict, PromptContext, PromptError, Prompts, ScenarioFacts};
use runlog::record::{
    AttemptRecord, CallTotals, FailureRecord, RecordSettings, SCHEMA_VERSION, ScenarioRecord,
    flat_params,
};

/// Everything that shapes one scenario's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipelineSettings {
    /// Per-agent model settings and prompt overrides.
    pub agents: AgentSet,
    /// Judge weights (names fluency, naturalness, cs_ratio, socio_cultural, and the declared
    /// judges').
    pub weights: JudgeWeights,
    /// The judges the config declares beside the four (`run.judges`), asked with them.
    #[serde(default)]
    pub judges: Vec<UserJudge>,
    /// Accept at a weighted score ≥ this (default 8.0).
    pub threshold: f64,
    /// Refinements allowed after the first attempt (default 2).
    pub max_refinements: u32,
    /// Tries of a generator or refiner call before giving up on empty output (default 3).
    pub max_write_tries: u32,
    /// Fewest usable texts in a batch (default 3).
    pub min_instances: u32,
    /// Most texts asked for (default 5).
    pub max_instances: u32,
    /// How the ratio score is obtained.
    pub ratio_judge: RatioJudgeMode,
    /// Sampling seed sent with every request, when set.
    pub seed: Option<u64>,
    /// The deterministic accept gate (see [`crate::gate`]).
    #[serde(default)]
    pub gate: GateSettings,
    /// Which attempt a record keeps.
    #[serde(default)]
    pub keep: Keep,
    /// The tool server that grounds scenarios with `use_tools: true` (`run.tools`).
    #[serde(default)]
    pub tools: Option<crate::grounding::ToolsSettings>,
}

impl Default for PipelineSettings {
    fn default() -> Self {
        Self {
            agents: AgentSet::uniform("gpt-4o-mini"),
            weights: JudgeWeights::default(),
            judges: Vec::new(),
            threshold: 8.0,
            max_refinements: 2,
            max_write_tries: 3,
            min_instances: 3,
            max_instances: 5,
            ratio_judge: RatioJudgeMode::default(),
            seed: None,
            gate: GateSettings::default(),
            keep: Keep::default(),
            tools: None,
        }
    }
}

/// Settings that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A prompt override is unreadable or does not compile.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// The weights do not cover the four judges.
    #[error("weights: {0}")]
    Weights(#[from] scoring::WeightError),
    /// Another bad value, with the setting's name.
    #[error("{key}: {message}")]
    Invalid {
        /// Setting name.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// Compiled settings shared by every scenario of a run.
#[derive(Debug)]
pub struct Pipeline {
    settings: PipelineSettings,
    prompts: Prompts,
    /// Each agent's output schema, built once and shared by every request.
    schemas: Vec<(Agent, OutputSchema)>,
}

impl Pipeline {
    /// Checks the settings and compiles the prompts.
    pub fn new(settings: PipelineSettings) -> Result<Self, SettingsError> {
        let probe: scoring::JudgeScores = AgentKind::JUDGES
            .iter()
            .map(|j| scoring::JudgeName::from(j.weight_name()))
            .chain(settings.judges.iter().map(|j| j.name.clone()))
            .map(|name| (name, 10.0))
            .collect();
        if let Some(name) = settings
            .weights
            .0
            .keys()
            .find(|n| !probe.contains_key(n.as_str()))
        {
            return Err(SettingsError::Invalid {
                key: "weights",
                message: format!("`{name}` has a weight but is no judge of this run"),
            });
        }
        settings.weights.weighted_score(&probe)?;
        if !settings.threshold.is_finite() || !(0.0..=10.0).contains(&settings.threshold) {
            return Err(SettingsError::Invalid {
                key: "threshold",
                message: "must be within 0–10".into(),
            });
        }
        if settings.min_instances == 0 || settings.max_instances < settings.min_instances {
            return Err(SettingsError::Invalid {
                key: "min_instances",
                message: "need 1 ≤ min_instances ≤ max_instances".into(),
            });
        }
        if settings.max_write_tries == 0 {
            return Err(SettingsError::Invalid {
                key: "max_write_tries",
                message: "must be at least 1".into(),
            });
        }
        let templates: Vec<_> = settings
            .judges
            .iter()
            .map(UserJudge::declared_template)
            .collect();
        let prompts = Prompts::from_settings(&settings.agents, &templates)?;
        let schemas = AgentKind::ALL
            .iter()
            .map(|&a| {
                let schema = output_schema(a, settings.min_instances, settings.max_instances);
                (Agent::Role(a), schema)
            })
            .chain(settings.judges.iter().map(|j| {
                (
                    Agent::Judge(j.name.clone()),
                    crate::judges::output_schema(j),
                )
            }))
            .collect();
        Ok(Self {
            settings,
            prompts,
            schemas,
        })
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &PipelineSettings {
        &self.settings
    }

    /// The output schema of `agent`'s requests (its schema shared, not copied).
    #[must_use]
    pub fn schema(&self, agent: impl Into<Agent>) -> Option<OutputSchema> {
        let agent = agent.into();
        self.schemas
            .iter()
            .find(|(a, _)| *a == agent)
            .map(|(_, s)| s.clone())
    }

    /// How `agent` is called: a role's settings, or a declared judge's (`None` for a judge
    /// this run does not declare).
    #[must_use]
    pub fn agent_settings(&self, agent: &Agent) -> Option<&AgentSettings> {
        match agent {
            Agent::Role(kind) => Some(self.settings.agents.get(*kind)),
            Agent::Judge(name) => self
                .settings
                .judges
                .iter()
                .find(|j| j.name == *name)
                .map(|j| &j.settings),
        }
    }

    /// Every judge asked on each attempt: the four built-in ones (`cs_ratio` less when the
    /// ratio is only measured, which the machine decides per attempt) and the declared ones.
    pub(crate) fn judge_agents(&self) -> impl Iterator<Item = Agent> + '_ {
        AgentKind::JUDGES.into_iter().map(Agent::Role).chain(
            self.settings
                .judges
                .iter()
                .map(|j| Agent::Judge(j.name.clone())),
        )
    }

    /// The compiled prompts.
    #[must_use]
    pub fn prompts(&self) -> &Prompts {
        &self.prompts
    }

    /// Renders every agent's prompt once for `scenario`, with stand-in texts and verdicts, as a
    /// run would: a template that names a variable the context lacks, or includes a template
    /// that does not exist or itself, fails here — before any call is paid for — rather than
    /// in every scenario after its generator call. Every case a run can meet is rendered (a
    /// repeated try, unmeasurable texts, a gate refusal …); a branch on a parameter value only
    /// as `scenario` takes it.
    ///
    /// # Errors
    /// The first prompt that does not render.
    pub fn rehearse_prompts(self: &Arc<Self>, scenario: &Scenario) -> Result<(), PromptError> {
        ScenarioRun::new(Arc::clone(self), scenario.clone()).rehearse_prompts()
    }
}

/// The article prompts are rehearsed with (a template that reads `article` renders once with it
/// before any call).
fn stand_in_article() -> grounding::Article {
    grounding::Article {
        title: "A stand-in title".into(),
        source: "A stand-in source".into(),
        url: Some("https://example.invalid/article".into()),
        published: Some("2026-01-01".into()),
        text: "A stand-in article text.".into(),
        original_chars: 24,
        truncated: false,
    }
}

/// One model call the machine needs.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCall {
    /// Which call of which scenario (the agent is also [`CallKey::agent`]).
    pub key: CallKey,
    /// Which agent.
    pub agent: Agent,
    /// The rendered request.
    pub request: ChatRequest,
}

/// A reply the machine cannot place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no call with key `{0}` is awaited")]
pub struct UnknownCall(pub CallKey);

/// How a scenario ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// Judged to the end (accepted or not): a record for the output file.
    Finished(Box<ScenarioRecord>),
    /// Could not be completed: a record for the errors file.
    Failed(Box<FailureRecord>),
}

#[derive(Debug, Clone, PartialEq)]
enum Stage {
    Writing {
        agent: AgentKind,
        tries: u32,
    },
    Judging,
    Done {
        accepted: bool,
    },
    Failed {
        reason: String,
        agent: Option<Agent>,
        fatal: bool,
    },
}

/// The attempt being judged.
#[derive(Debug, Clone)]
struct Judging {
    number: u32,
    produced_by: AgentKind,
    instances: Vec<String>,
    measurement: Option<BatchMeasurement>,
    measured_score: Option<f64>,
    fluency: Option<FluencyResult>,
    naturalness: Option<NaturalnessResult>,
    ratio: Option<RatioVerdict>,
    socio: Option<SocioCulturalResult>,
    /// The declared judges' scores and replies, by name, as they arrive.
    declared: BTreeMap<scoring::JudgeName, (f64, Value)>,
    /// The tries each judge asked has spent, so an invalid reply can be asked again.
    tries: Vec<(Agent, u32)>,
}

/// One scenario's state machine. See the module docs.
#[derive(Debug)]
pub struct ScenarioRun {
    pipeline: Arc<Pipeline>,
    scenario: Scenario,
    first: String,
    second: String,
    /// What the `cs_ratio` share is counted in (`LanguagePair::ratio_unit`; "words" for a pair
    /// the measurement does not know).
    ratio_unit: String,
    cs_ratio: Option<String>,
    target: Option<f64>,
    /// The scenario's `script` parameter (native or romanized), when it has a valid one.
    script: Option<ScriptHint>,
    /// The scenario's `cs_type` parameter, for the gate.
    cs_type: Option<String>,
    /// The scenario asks for a multi-turn conversation (`conversation_type: multi-turn`): the
    /// texts are turns, measured without their speaker labels, and a language change between
    /// turns is a switch for the gate.
    multi_turn: bool,
    stage: Stage,
    outbox: Vec<AgentCall>,
    awaiting: Vec<CallKey>,
    current: Option<Judging>,
    attempts: Vec<AttemptRecord>,
    /// The typed measurement of the last judged attempt, for the refiner's prompt.
    last_measurement: Option<BatchMeasurement>,
    feedback: Option<Feedback>,
    refine_count: u32,
    totals: CallTotals,
    notes: Vec<String>,
    /// What the generation is grounded in, when the scenario asks for grounding.
    grounding: Option<runlog::Grounding>,
    /// The article the generator and refiner are grounded in.
    article: Option<Arc<grounding::Article>>,
}

impl ScenarioRun {
    /// Starts a scenario: the generator call is pending at once. A scenario without
    /// `first_language`/`second_language` fails immediately with that reason.
    #[must_use]
    pub fn new(pipeline: Arc<Pipeline>, scenario: Scenario) -> Self {
        let mut run = Self::unstarted(pipeline, scenario);
        if !run.is_done() {
            run.queue_write(AgentKind::Generator, 0, None);
        }
        run
    }

    /// A scenario with no call queued yet (failed when it lacks its languages).
    fn unstarted(pipeline: Arc<Pipeline>, scenario: Scenario) -> Self {
        let first = scenario.param_str("first_language").unwrap_or_default();
        let second = scenario.param_str("second_language").unwrap_or_default();
        let ratio_unit = crate::prompts::ratio_unit(&first, &second);
        let cs_ratio = scenario.param_str("cs_ratio");
        let target = cs_ratio.as_deref().and_then(target_ratio);
        let mut notes = Vec::new();
        let script = scenario.param_str("script").and_then(|s| {
            s.parse::<ScriptHint>()
                .map_err(|e| notes.push(format!("script parameter: {e}; measured as written")))
                .ok()
        });
        let cs_type = scenario.param_str("cs_type");
        let multi_turn = scenario
            .param_str("conversation_type")
            .is_some_and(|c| c.trim().to_lowercase().replace('_', "-") == "multi-turn");
        let mut run = Self {
            pipeline,
            scenario,
            first,
            second,
            ratio_unit,
            cs_ratio,
            target,
            script,
            cs_type,
            multi_turn,
            stage: Stage::Writing {
                agent: AgentKind::Generator,
                tries: 0,
            },
            outbox: Vec::new(),
            awaiting: Vec::new(),
            current: None,
            attempts: Vec::new(),
            last_measurement: None,
            feedback: None,
            refine_count: 0,
            totals: CallTotals::default(),
            notes,
            grounding: None,
            article: None,
        };
        run.grounding = crate::grounding::asks_for_tools(&run.scenario.params)
            .then(|| runlog::Grounding::None(crate::grounding::UNGROUNDED.to_owned()));
        if run.first.trim().is_empty() || run.second.trim().is_empty() {
            run.fail(
                "scenario lacks the parameters first_language and second_language".into(),
                None,
                false,
            );
        }
        run
    }

    /// Starts a scenario with what grounding gave it ([`crate::grounding::Grounder::ground`]):
    /// its generator and refiner are grounded in the article, which the record names; a failed
    /// grounding fails the scenario with its reason before any call (fatal when the tool server
    /// is down).
    #[must_use]
    pub fn grounded(
        pipeline: Arc<Pipeline>,
        scenario: Scenario,
        grounded: crate::grounding::Grounded,
    ) -> Self {
        let mut run = Self::unstarted(pipeline, scenario);
        if run.is_done() {
            return run;
        }
        match grounded {
            crate::grounding::Grounded::Article { article, tool } => {
                run.grounding = Some(crate::grounding::record_of(&article, &tool));
                run.article = Some(article);
                // Never rendered without the article: a prompt that reads `article.title`
                // unguarded is right for a grounded scenario.
                run.queue_write(AgentKind::Generator, 0, None);
            }
            crate::grounding::Grounded::Failed {
                reason,
                server_down,
            } => run.fail(reason, None, server_down),
        }
        run
    }

    /// The scenario.
    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Accounting of the calls absorbed so far.
    #[must_use]
    pub fn totals(&self) -> &CallTotals {
        &self.totals
    }

    /// The calls to make now. Each call is handed out once; an empty list while
    /// [`ScenarioRun::is_done`] is false means replies are still awaited.
    pub fn pending(&mut self) -> Vec<AgentCall> {
        std::mem::take(&mut self.outbox)
    }

    /// Keys handed out (or about to be) and not yet absorbed.
    #[must_use]
    pub fn awaiting(&self) -> usize {
        self.awaiting.len()
    }

    /// True once the scenario is accepted, rejected with its budget spent, or failed.
    #[must_use]
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done { .. } | Stage::Failed { .. })
    }

    /// Takes the reply to the call `key`. Replies arriving after the scenario failed (the other
    /// judges of the same attempt) are accounted and otherwise ignored.
    pub fn absorb(
        &mut self,
        key: &CallKey,
        reply: Result<ChatResponse, LlmError>,
    ) -> Result<(), UnknownCall> {
        let pos = self
            .awaiting
            .iter()
            .position(|k| k == key)
            .ok_or_else(|| UnknownCall(key.clone()))?;
        let agent = self.awaiting.swap_remove(pos).agent;
        let resp = match reply {
            Ok(resp) => {
                self.totals
                    .add_call(&key.to_string(), agent.name(), call_reply(&resp));
                resp
            }
            Err(err) => {
                if let Some((usage, cost)) = err.spent() {
                    self.totals.add_spend(usage_totals(usage), cost);
                    // Paid for, so the model is named (the one asked: no usable reply named it),
                    // also in the errors file of a scenario that fails for it.
                    if let Some(asked) = self.pipeline.agent_settings(&agent) {
                        self.totals
                            .models
                            .entry(agent.name().to_owned())
                            .or_insert_with(|| asked.model.clone());
                    }
                }
                if let LlmError::InvalidOutput { repairs, .. } = &err {
                    self.totals.repairs += repairs;
                }
                self.on_error(agent, err);
                return Ok(());
            }
        };
        if self.is_done() {
            return Ok(());
        }
        let Some(json) = resp
            .json
            .clone()
            .or_else(|| serde_json::from_str::<Value>(resp.content.trim()).ok())
        else {
            self.on_bad_output(agent.clone(), OutputError::NoJson { agent });
            return Ok(());
        };
        match agent {
            Agent::Role(kind) => self.absorb_role(kind, &json),
            Agent::Judge(name) => self.absorb_declared(name, &json),
        }
        if matches!(self.stage, Stage::Judging) {
            self.decide_if_judged();
        }
        Ok(())
    }

    /// A declared judge's reply: its verdict kept, or asked again.
    fn absorb_declared(&mut self, name: scoring::JudgeName, json: &Value) {
        let judge = self
            .pipeline
            .settings
            .judges
            .iter()
            .find(|j| j.name == name);
        match judge.map(|j| crate::judges::parse_reply(j, json)) {
            Some(Ok(verdict)) => self.with_current(|c| {
                c.declared.insert(name, verdict);
            }),
            Some(Err(e)) => self.on_bad_output(Agent::Judge(name), e),
            // A key is only awaited for a judge of this run.
            None => {}
        }
    }

    /// A role's reply: a batch written, or a built-in judge's verdict.
    fn absorb_role(&mut self, kind: AgentKind, json: &Value) {
        let agent = Agent::Role(kind);
        match kind {
            AgentKind::Generator | AgentKind::Refiner => {
                match parse_instances(kind, json, self.pipeline.settings.min_instances as usize) {
                    Ok(out) => {
                        if kind == AgentKind::Refiner {
                            self.refine_count += 1;
                        }
                        self.start_attempt(kind, out.instances);
                    }
                    Err(e) => self.on_bad_output(agent, e),
                }
            }
            AgentKind::Fluency => match parse_fluency(json) {
                Ok(r) => self.with_current(|c| c.fluency = Some(r)),
                Err(e) => self.on_bad_output(agent, e),
            },
            AgentKind::Naturalness => match parse_naturalness(json) {
                Ok(r) => self.with_current(|c| c.naturalness = Some(r)),
                Err(e) => self.on_bad_output(agent, e),
            },
            AgentKind::CsRatio => match parse_ratio(json) {
                Ok(r) => {
                    let hybrid = self.pipeline.settings.ratio_judge == RatioJudgeMode::Hybrid;
                    self.with_current(|c| {
                        let measured = c.measurement.as_ref().and_then(|m| m.embedded_ratio);
                        c.ratio = Some(RatioVerdict::from_judge(
                            r,
                            hybrid,
                            c.measured_score,
                            measured,
                        ));
                    });
                }
                Err(e) => self.on_bad_output(agent, e),
            },
            AgentKind::SocioCultural => match parse_socio_cultural(json) {
                Ok(r) => self.with_current(|c| c.socio = Some(r)),
                Err(e) => self.on_bad_output(agent, e),
            },
        }
    }

    /// Ends the run: the record, or the failure (also for a run stopped before it was done).
    #[must_use]
    pub fn finish(self) -> RunOutcome {
        match self.stage {
            Stage::Done { accepted } => self.record(accepted),
            Stage::Failed {
                ref reason,
                ref agent,
                fatal,
            } => {
                let (reason, agent) = (reason.clone(), agent.clone());
                self.failure(reason, agent, fatal)
            }
            _ => self.failure(
                "the run stopped before this scenario was done".into(),
                None,
                false,
            ),
        }
    }

    fn with_current(&mut self, f: impl FnOnce(&mut Judging)) {
        if let Some(c) = self.current.as_mut() {
            f(c);
        }
    }

    fn fail(&mut self, reason: String, agent: Option<Agent>, fatal: bool) {
        tracing::debug!(scenario = %self.scenario.id, %reason, "scenario failed");
        // Calls not handed out yet will never be answered: no longer awaited.
        for call in self.outbox.drain(..) {
            self.awaiting.retain(|k| *k != call.key);
        }
        self.stage = Stage::Failed {
            reason,
            agent,
            fatal,
        };
    }

    fn on_error(&mut self, agent: Agent, err: LlmError) {
        if self.is_done() {
            return;
        }
        // Invalid output after the transport's repairs is one more empty write for a writer:
        // asking again with the reason in the prompt may well succeed.
        if let LlmError::InvalidOutput { reason, .. } = &err {
            let reason = format!("invalid output: {reason}");
            match self.stage {
                Stage::Writing { .. } => self.retry_write(agent, reason),
                _ => self.retry_judge(agent, reason),
            }
            return;
        }
        let fatal = err.is_fatal();
        self.fail(format!("{agent}: {err}"), Some(agent), fatal);
    }

    fn on_bad_output(&mut self, agent: Agent, err: OutputError) {
        if matches!(self.stage, Stage::Writing { .. }) {
            self.retry_write(agent, err.to_string());
        } else {
            self.retry_judge(agent, err.to_string());
        }
    }

    /// Asks a judge again after an invalid reply, up to `max_write_tries` in all; then the
    /// scenario fails. The prompt is rendered again with `retry` and `retry_reason` (the built-in
    /// judges end with them): a deterministic server (the embedded model at temperature 0, any
    /// server with a fixed seed) would otherwise answer the same request with the same reply,
    /// paid for again and as invalid.
    fn retry_judge(&mut self, agent: Agent, reason: String) {
        let max = self.pipeline.settings.max_write_tries;
        // The next try's number and prompt, when a try is left for a judge this attempt asked.
        let next = self.current.as_ref().and_then(|c| {
            let retry = c.tries.iter().find(|(a, _)| *a == agent)?.1 + 1;
            (retry < max).then(|| {
                let reason = brief(&reason);
                let ctx = PromptContext {
                    retry,
                    retry_reason: Some(&reason),
                    article: self.article.as_deref(),
                    ..PromptContext::judge(self.facts(), &c.instances, c.measurement.as_ref())
                };
                (
                    retry,
                    c.number,
                    self.pipeline.prompts.render(agent.clone(), &ctx),
                )
            })
        });
        let Some((retry, number, prompt)) = next else {
            self.fail(format!("{agent}: {reason}"), Some(agent), false);
            return;
        };
        self.with_current(|c| {
            if let Some((_, tries)) = c.tries.iter_mut().find(|(a, _)| *a == agent) {
                *tries = retry;
            }
        });
        self.notes
            .push(format!("{agent} asked again after: {reason}"));
        let key = CallKey::new(self.scenario.id.clone(), number, agent).with_try(retry + 1);
        self.queue(key, prompt);
    }

    fn retry_write(&mut self, agent: Agent, reason: String) {
        let (Stage::Writing { tries, .. }, Some(agent)) = (&self.stage, agent.role()) else {
            return;
        };
        let tries = *tries;
        let next = tries + 1;
        if next < self.pipeline.settings.max_write_tries {
            self.notes
                .push(format!("{agent} try {} rejected: {reason}", tries + 1));
            self.queue_write(agent, next, Some(reason));
        } else if agent == AgentKind::Refiner && !self.attempts.is_empty() {
            self.notes.push(format!(
                "refinement gave up after {next} tries: {reason}; last attempt kept"
            ));
            self.stage = Stage::Done { accepted: false };
        } else {
            self.fail(
                format!("{agent} gave no usable batch in {next} tries: {reason}"),
                Some(agent.into()),
                false,
            );
        }
    }

    /// See [`Pipeline::rehearse_prompts`]. Every case a run can meet is rendered: a first and
    /// a repeated try; texts measured and texts that could not be; the ratio verdict this run's
    /// `ratio_judge` gives in each; a batch the gate passed and one it refused.
    fn rehearse_prompts(&self) -> Result<(), PromptError> {
        let prompts = &self.pipeline.prompts;
        let settings = &self.pipeline.settings;
        let texts: Vec<String> = (1..=settings.min_instances.max(1))
            .map(|i| format!("{} text {i}, with one {} word.", self.first, self.second))
            .collect();
        let measured = measure_batch(&texts, &self.first, &self.second, self.script).ok();
        let facts = self.facts();
        let render = |agent: Agent, ctx: &PromptContext<'_>, case: &str| {
            prompts
                .render(agent, ctx)
                .map(drop)
                .map_err(|e| PromptError::Rehearsal {
                    case: case.to_owned(),
                    source: Box::new(e),
                })
        };
        let tries = [
            (0, None, "a first try"),
            (1, Some("a stand-in reason"), "a try asked again"),
        ];
        // A scenario this run grounds has its article in every prompt (a stand-in here); one
        // it cannot ground has none, and a prompt that needs one says why there is none.
        let article = stand_in_article();
        let asks = crate::grounding::asks_for_tools(&self.scenario.params);
        let grounded = (asks && settings.tools.is_some()).then_some(&article);
        let why_none = if asks && grounded.is_none() {
            ", with `use_tools: true` but grounding not configured (no `run.tools`), so \
             `article` is none"
        } else {
            ""
        };
        for (retry, reason, case) in tries {
            let ctx = PromptContext {
                article: grounded,
                ..PromptContext::generator(facts, retry, reason)
            };
            render(
                AgentKind::Generator.into(),
                &ctx,
                &format!("{case}{why_none}"),
            )?;
        }
        let ctx = PromptContext {
            article: Some(&article),
            ..PromptContext::generator(facts, 0, None)
        };
        render(
            AgentKind::Generator.into(),
            &ctx,
            "a scenario grounded in an article",
        )?;
        let summary = || "a stand-in verdict".to_owned();
        for (measurement, case) in [
            (measured.as_ref(), "measured texts"),
            (None, "texts that could not be measured"),
        ] {
            for (retry, reason, try_case) in tries {
                let ctx = PromptContext {
                    retry,
                    retry_reason: reason,
                    article: grounded,
                    ..PromptContext::judge(facts, &texts, measurement)
                };
                for judge in self.pipeline.judge_agents() {
                    render(judge, &ctx, &format!("{case}, {try_case}{why_none}"))?;
                }
            }
            let share = measurement.and_then(|m| m.embedded_ratio);
            let cs_ratio = match (settings.ratio_judge, share, self.target) {
                (RatioJudgeMode::Measured, Some(share), Some(target)) => {
                    RatioVerdict::measured(5.0, share, target)
                }
                (mode, share, _) => RatioVerdict::from_judge(
                    RatioResult {
                        ratio_score: 5.0,
                        computed_ratio: 0.3,
                        notes: summary(),
                    },
                    mode == RatioJudgeMode::Hybrid,
                    share.map(|_| 5.0),
                    share,
                ),
            };
            for gate in [None, Some("no code switching was measured".to_owned())] {
                let feedback = Feedback {
                    fluency: FluencyResult {
                        fluency_score: 5.0,
                        errors: vec![summary()],
                        summary: summary(),
                    },
                    naturalness: NaturalnessResult {
                        naturalness_score: 5.0,
                        observations: vec![Observation {
                            sentence: 1,
                            note: summary(),
                        }],
                        summary: summary(),
                    },
                    cs_ratio: cs_ratio.clone(),
                    socio_cultural: SocioCulturalResult {
                        socio_cultural_score: 5.0,
                        issues: vec![summary()],
                        summary: summary(),
                    },
                    judges: settings
                        .judges
                        .iter()
                        .map(|j| {
                            let reason = j.reason_field.as_ref().map(|_| summary());
                            (j.name.to_string(), JudgeVerdict { score: 5.0, reason })
                        })
                        .collect(),
                    score: 5.0,
                    threshold: settings.threshold,
                    gate: gate.clone(),
                };
                let refused = if gate.is_some() {
                    ", refused by the gate"
                } else {
                    ""
                };
                for (retry, reason, try_case) in tries {
                    let ctx = PromptContext::refiner(
                        facts,
                        retry,
                        reason,
                        &texts,
                        measurement,
                        Some(&feedback),
                    );
                    let ctx = PromptContext {
                        article: grounded.or((retry == 0).then_some(&article)),
                        ..ctx
                    };
                    render(
                        AgentKind::Refiner.into(),
                        &ctx,
                        &format!("{case}{refused}, {try_case}"),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// What every prompt of this scenario is told about it.
    fn facts(&self) -> ScenarioFacts<'_> {
        let s = &self.pipeline.settings;
        ScenarioFacts {
            params: &self.scenario.params,
            first_language: &self.first,
            second_language: &self.second,
            ratio_unit: &self.ratio_unit,
            cs_ratio: self.cs_ratio.as_deref(),
            target_ratio: self.target,
            min_instances: s.min_instances,
            max_instances: s.max_instances,
        }
    }

    fn attempt_number(&self) -> u32 {
        u32::try_from(self.attempts.len()).unwrap_or(u32::MAX)
    }

    /// Queues the call `key` with the rendered prompt (`Err` with the reason when the prompt
    /// does not render).
    fn queue(&mut self, key: CallKey, prompt: Result<String, PromptError>) -> bool {
        let agent = key.agent.clone();
        let prompt = match prompt {
            Ok(p) => p,
            Err(e) => {
                self.fail(e.to_string(), Some(agent), false);
                return false;
            }
        };
        let s = &self.pipeline.settings;
        let Some(agent_settings) = self.pipeline.agent_settings(&agent) else {
            self.fail(
                format!("{agent} is no agent of this run"),
                Some(agent),
                false,
            );
            return false;
        };
        // Each sample of a scenario (`samples_per_scenario`) samples with its own seed, so the
        // samples differ even where the server is deterministic, and so do their cache keys.
        let sample = self
            .scenario
            .params
            .get(scenarios::SAMPLE_PARAM)
            .and_then(Value::as_u64);
        let seed = match sample {
            Some(k) => Some(s.seed.unwrap_or(0).wrapping_add(k)),
            None => s.seed,
        };
        let request = ChatRequest {
            temperature: agent_settings.temperature,
            max_tokens: agent_settings.max_tokens,
            seed,
            output_schema: self.pipeline.schema(agent.clone()),
            // Every call of a scenario to one server of a fleet: its prompt-prefix cache is warm.
            affinity: Some(self.scenario.id.clone()),
            ..ChatRequest::new(agent_settings.model.clone(), vec![Message::user(prompt)])
        };
        self.awaiting.push(key.clone());
        self.outbox.push(AgentCall {
            key,
            agent,
            request,
        });
        true
    }

    fn queue_write(&mut self, agent: AgentKind, tries: u32, reason: Option<String>) {
        self.stage = Stage::Writing { agent, tries };
        let reason = reason.as_deref().map(brief);
        let facts = self.facts();
        let ctx = match (agent, self.attempts.last()) {
            (AgentKind::Refiner, Some(last)) => PromptContext::refiner(
                facts,
                tries,
                reason.as_deref(),
                &last.data_generation_result,
                self.last_measurement.as_ref(),
                self.feedback.as_ref(),
            ),
            _ => PromptContext::generator(facts, tries, reason.as_deref()),
        };
        let ctx = PromptContext {
            article: self.article.as_deref(),
            ..ctx
        };
        let prompt = self.pipeline.prompts.render(agent, &ctx);
        let key = CallKey::new(self.scenario.id.clone(), self.attempt_number(), agent)
            .with_try(tries + 1);
        self.queue(key, prompt);
    }

    fn start_attempt(&mut self, produced_by: AgentKind, instances: Vec<String>) {
        let number = self.attempt_number();
        let measured: Vec<String> = if self.multi_turn {
            instances
                .iter()
                .map(|turn| without_speaker_label(turn).to_owned())
                .collect()
        } else {
            instances.clone()
        };
        let measurement = match measure_batch(&measured, &self.first, &self.second, self.script) {
            Ok(m) => {
                if let Some(why) = &m.status_reason {
                    self.notes.push(format!(
                        "attempt {number}: measurement {}: {why}; the ratio is scored by the LLM judge and the gate cannot fail the batch",
                        serde_json::to_value(m.status)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default()
                    ));
                }
                Some(m)
            }
            Err(e) => {
                self.notes
                    .push(format!("attempt {number}: no measurement: {e}"));
                None
            }
        };
        let measured_score = match (
            measurement.as_ref().and_then(|m| m.embedded_ratio),
            self.target,
        ) {
            (Some(measured), Some(target)) => Some(ratio_score(measured, target)),
            _ => None,
        };
        let mut judging = Judging {
            number: self.attempt_number(),
            produced_by,
            instances,
            measurement,
            measured_score,
            fluency: None,
            naturalness: None,
            ratio: None,
            socio: None,
            declared: BTreeMap::new(),
            tries: Vec::new(),
        };
        let mode = self.pipeline.settings.ratio_judge;
        let measured_only = mode == RatioJudgeMode::Measured && judging.measured_score.is_some();
        if measured_only {
            judging.ratio = measured_verdict(&judging, self.target);
        } else if mode == RatioJudgeMode::Measured {
            self.notes.push(format!(
                "attempt {}: no measurement or target for the ratio, the LLM ratio judge was asked",
                judging.number
            ));
        }
        let number = judging.number;
        let prompts: Vec<(Agent, Result<String, PromptError>)> = {
            let ctx = PromptContext {
                article: self.article.as_deref(),
                ..PromptContext::judge(
                    self.facts(),
                    &judging.instances,
                    judging.measurement.as_ref(),
                )
            };
            self.pipeline
                .judge_agents()
                .filter(|judge| !(*judge == AgentKind::CsRatio && measured_only))
                .map(|judge| {
                    let prompt = self.pipeline.prompts.render(judge.clone(), &ctx);
                    (judge, prompt)
                })
                .collect()
        };
        self.current = Some(judging);
        self.stage = Stage::Judging;
        for (judge, prompt) in prompts {
            let key = CallKey::new(self.scenario.id.clone(), number, judge.clone());
            if !self.queue(key, prompt) {
                return;
            }
            self.with_current(|c| c.tries.push((judge, 0)));
        }
    }

    fn decide_if_judged(&mut self) {
        let Some(c) = self.current.as_ref() else {
            return;
        };
        let (Some(fluency), Some(naturalness), Some(ratio), Some(socio)) =
            (&c.fluency, &c.naturalness, &c.ratio, &c.socio)
        else {
            return;
        };
        if c.declared.len() < self.pipeline.settings.judges.len() {
            return;
        }
        let scores: scoring::JudgeScores = [
            (AgentKind::Fluency, fluency.fluency_score),
            (AgentKind::Naturalness, naturalness.naturalness_score),
            (AgentKind::CsRatio, ratio.ratio_score),
            (AgentKind::SocioCultural, socio.socio_cultural_score),
        ]
        .into_iter()
        .map(|(k, v)| (scoring::JudgeName::from(k.weight_name()), v))
        .chain(
            c.declared
                .iter()
                .map(|(name, (score, _))| (name.clone(), *score)),
        )
        .collect();
        let score = match self.pipeline.settings.weights.weighted_score(&scores) {
            Ok(s) => s,
            Err(e) => {
                self.fail(format!("weighting the judge scores: {e}"), None, false);
                return;
            }
        };
        let threshold = self.pipeline.settings.threshold;
        let attempt = AttemptRecord {
            attempt: c.number,
            produced_by: c.produced_by,
            data_generation_result: c.instances.clone(),
            fluency_result: json!(fluency),
            naturalness_result: naturalness.to_record_value(),
            cs_ratio_result: ratio.to_record_value(),
            social_cultural_result: json!(socio),
            judge_results: declared_results(c),
            scores,
            score,
            measurement: c.measurement.as_ref().map(|m| m.json.clone()),
            gate: Some(gate::decide(
                self.pipeline.settings.gate,
                c.measurement.as_ref().map(|m| &m.measurement),
                self.cs_type.as_deref(),
                self.multi_turn,
            )),
        };
        let blocked = attempt
            .gate
            .as_ref()
            .is_some_and(runlog::GateVerdict::blocks);
        let gate_reason = attempt
            .gate
            .as_ref()
            .filter(|g| g.blocks())
            .map(|g| g.reason.clone());
        if let Some(why) = &gate_reason {
            self.notes.push(format!(
                "attempt {}: not accepted by the gate: {why}",
                attempt.attempt
            ));
        }
        self.attempts.push(attempt);
        if let Some(c) = self.current.take()
            && let (Some(fluency), Some(naturalness), Some(cs_ratio), Some(socio_cultural)) =
                (c.fluency, c.naturalness, c.ratio, c.socio)
        {
            self.last_measurement = c.measurement;
            let judges = declared_verdicts(&self.pipeline.settings.judges, &c.declared);
            self.feedback = Some(Feedback {
                fluency,
                naturalness,
                cs_ratio,
                socio_cultural,
                judges,
                score,
                threshold,
                gate: gate_reason,
            });
        }
        if score >= threshold && !blocked {
            self.stage = Stage::Done { accepted: true };
        } else if self.refine_count < self.pipeline.settings.max_refinements {
            self.queue_write(AgentKind::Refiner, 0, None);
        } else {
            self.stage = Stage::Done { accepted: false };
        }
    }

    fn record(self, accepted: bool) -> RunOutcome {
        let threshold = self.pipeline.settings.threshold;
        let acceptable = |a: &AttemptRecord| {
            a.score >= threshold && !a.gate.as_ref().is_some_and(runlog::GateVerdict::blocks)
        };
        let kept = match self.pipeline.settings.keep {
            Keep::Last => self.attempts.last(),
            Keep::Best => self.attempts.iter().max_by(|a, b| {
                (acceptable(a), a.score, a.attempt)
                    .partial_cmp(&(acceptable(b), b.score, b.attempt))
                    .unwrap_or(std::cmp::Ordering::Equal)
            }),
        };
        let Some(last) = kept.cloned() else {
            return self.failure("no attempt was judged".into(), None, false);
        };
        // The decision follows the kept attempt (with `last`, the run's own decision).
        let accepted = match self.pipeline.settings.keep {
            Keep::Last => accepted,
            Keep::Best => acceptable(&last),
        };
        let summary = summarise(&last, accepted, threshold);
        let mut models = BTreeMap::new();
        for agent in AgentKind::ALL {
            let configured = &self.pipeline.settings.agents.get(agent).model;
            let answered = self.totals.models.get(agent.name());
            if answered.is_some() || agent != AgentKind::Refiner || self.refine_count > 0 {
                models.insert(
                    agent.name().to_string(),
                    answered.unwrap_or(configured).clone(),
                );
            }
        }
        for judge in &self.pipeline.settings.judges {
            let name = judge.name.to_string();
            let answered = self.totals.models.get(&name);
            let model = answered.unwrap_or(&judge.settings.model).clone();
            models.insert(name, model);
        }
        let t = self.totals;
        RunOutcome::Finished(Box::new(ScenarioRecord {
            schema_version: SCHEMA_VERSION,
            run_settings: Some(RecordSettings::from(&self.pipeline.settings)),
            id: self.scenario.id.clone(),
            index: self.scenario.index,
            params: flat_params(&self.scenario.params),
            accepted,
            data_generation_result: last.data_generation_result,
            fluency_result: last.fluency_result,
            naturalness_result: last.naturalness_result,
            cs_ratio_result: last.cs_ratio_result,
            social_cultural_result: last.social_cultural_result,
            score: last.score,
            scores: last.scores,
            judge_results: last.judge_results,
            refine_count: self.refine_count,
            measurement: last.measurement,
            gate: last.gate,
            kept_attempt: Some(last.attempt),
            summary,
            prompt_hashes: self.pipeline.prompts.hashes().clone(),
            attempts: self.attempts,
            models,
            usage: t.usage,
            cost_usd: t.cost_usd,
            calls: t.calls,
            cache_hits: t.cache_hits,
            retries: t.retries,
            repairs: t.repairs,
            coercions: t.coercions,
            notes: self.notes,
            grounding: self.grounding,
        }))
    }

    fn failure(self, reason: String, agent: Option<Agent>, fatal: bool) -> RunOutcome {
        let (role, judge) = match agent {
            Some(Agent::Role(kind)) => (Some(kind), None),
            Some(Agent::Judge(name)) => (None, Some(name)),
            None => (None, None),
        };
        RunOutcome::Failed(Box::new(FailureRecord {
            id: self.scenario.id.clone(),
            index: self.scenario.index,
            params: self.scenario.params,
            reason,
            agent: role,
            judge,
            fatal,
            totals: self.totals,
        }))
    }
}

/// One paragraph on the kept attempt, composed from its judges' own summaries, the measurement
/// and the decision (no model call): the record's `summary`.
fn summarise(a: &AttemptRecord, accepted: bool, threshold: f64) -> String {
    let judge = |name: &str, result: &Value, key: &str| {
        let score = a
            .scores
            .get(name)
            // Two decimals at most: a measured ratio score is 8.598333… unrounded.
            .map_or_else(
                || "–".to_owned(),
                |s| format!("{}", (s * 100.0).round() / 100.0),
            );
        let text = result.get(key).and_then(Value::as_str).unwrap_or("").trim();
        if text.is_empty() {
            format!("{name} {score}/10")
        } else {
            format!("{name} {score}/10: {text}")
        }
    };
    let mut parts = vec![
        judge("fluency", &a.fluency_result, "summary"),
        judge("naturalness", &a.naturalness_result, "summary"),
        judge("cs_ratio", &a.cs_ratio_result, "notes"),
        judge("socio_cultural", &a.social_cultural_result, "summary"),
    ];
    // A declared judge's reply holds its score and, when it has one, its reason: the one text.
    for (name, reply) in &a.judge_results {
        let reason = reply
            .as_object()
            .and_then(|m| m.iter().find(|(_, v)| v.is_string()))
            .map_or("", |(k, _)| k.as_str());
        parts.push(judge(name, reply, reason));
    }
    if let Some(g) = a.gate.as_ref().filter(|g| g.passed == Some(false)) {
        parts.push(format!("gate: {}", g.reason));
    }
    let decision = if accepted { "accepted" } else { "not accepted" };
    format!(
        "{decision} (score {:.2}, threshold {threshold}) — {}",
        a.score,
        parts.join("; ")
    )
}

/// The declared judges' replies of an attempt, by name, as the record keeps them.
fn declared_results(c: &Judging) -> BTreeMap<String, Value> {
    c.declared
        .iter()
        .map(|(name, (_, reply))| (name.to_string(), reply.clone()))
        .collect()
}

/// The declared judges' verdicts, as the refiner is told them: score and reason.
fn declared_verdicts(
    judges: &[UserJudge],
    declared: &BTreeMap<scoring::JudgeName, (f64, Value)>,
) -> BTreeMap<String, JudgeVerdict> {
    judges
        .iter()
        .filter_map(|j| {
            let (score, reply) = declared.get(&j.name)?;
            let reason = j.reason_field.as_ref().and_then(|f| reply.get(f));
            let reason = reason.and_then(Value::as_str).map(str::to_owned);
            Some((
                j.name.to_string(),
                JudgeVerdict {
                    score: *score,
                    reason,
                },
            ))
        })
        .collect()
}

/// The measured verdict of an attempt, when it has a measured score and share.
fn measured_verdict(c: &Judging, target: Option<f64>) -> Option<RatioVerdict> {
    let score = c.measured_score?;
    let measured = c.measurement.as_ref().and_then(|m| m.embedded_ratio)?;
    Some(RatioVerdict::measured(
        score,
        measured,
        target.unwrap_or(f64::NAN),
    ))
}

/// Most characters of a rejection reason put in a prompt asked again: a validator's message can
/// quote the whole rejected value, which would bloat every later prompt.
const REASON_IN_PROMPT: usize = 300;

/// `reason` in at most [`REASON_IN_PROMPT`] characters, ending with `…` where it was cut.
fn brief(reason: &str) -> String {
    if reason.chars().count() <= REASON_IN_PROMPT {
        return reason.to_owned();
    }
    let end = reason
        .char_indices()
        .nth(REASON_IN_PROMPT - 1)
        .map_or(reason.len(), |(i, _)| i);
    format!("{}…", &reason[..end])
}

impl From<&PipelineSettings> for RecordSettings {
    fn from(s: &PipelineSettings) -> Self {
        Self {
            threshold: s.threshold,
            weights: s.weights.clone(),
            ratio_judge: s.ratio_judge,
            max_refinements: s.max_refinements,
            gate: s.gate,
            keep: s.keep,
        }
    }
}

/// The facts of one reply that a record's totals keep.
fn call_reply(resp: &ChatResponse) -> CallReply<'_> {
    CallReply {
        cached: resp.cached,
        usage: usage_totals(resp.usage),
        cost_usd: resp.cost_usd,
        retries: resp.retries,
        repairs: resp.repairs,
        coercions: resp
            .coercions
            .iter()
            .map(|c| (c.path.clone(), c.reason.clone()))
            .collect(),
        model: &resp.model,
    }
}

/// The transport's token counts as a record writes them.
fn usage_totals(usage: Usage) -> UsageTotals {
    UsageTotals {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        estimated: usage.estimated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_put_in_a_prompt_is_cut_at_a_character_boundary() {
        assert_eq!(brief("short"), "short");
        let long = "é".repeat(REASON_IN_PROMPT + 50);
        let cut = brief(&long);
        assert_eq!(cut.chars().count(), REASON_IN_PROMPT);
        assert!(cut.ends_with('…'));
        let exact = "x".repeat(REASON_IN_PROMPT);
        assert_eq!(brief(&exact), exact);
        let over = "x".repeat(REASON_IN_PROMPT + 1);
        assert_eq!(brief(&over).chars().count(), REASON_IN_PROMPT);
    }
}
