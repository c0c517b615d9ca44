//! Agent prompting and the code-switching data pipeline: for each scenario of a config, a
//! generator writes a batch of code-switched texts, four judges score it in parallel, a weighted
//! score and a deterministic gate accept it or send it to a refiner, and one record is written.
//!
//! - [`agent`]: the six roles and their per-agent model settings.
//! - [`outputs`]: what each agent answers (typed structs, strict-mode JSON schemas, local checks).
//! - [`prompts`]: the minijinja templates in `prompts/*.j2`, overridable per agent.
//! - [`judges`]: the judges a config declares beside the four (`run.judges`), checked at load.
//! - [`grounding`]: whether scenarios ask for grounding (`use_tools`), and the notice and record
//!   field that say it is not done.
//! - [`key`]: [`CallKey`], the typed name of one call (`scenario_id:attempt:agent[~try]`), and
//!   [`Agent`], who a call asks (a role or a declared judge).
//! - [`machine`]: [`ScenarioRun`], one scenario as a pure state machine (no I/O, no awaits).
//! - [`measure`]: the deterministic code-switching measurement given to the ratio judge.
//! - [`gate`]: the accept gate's decision from a measurement.
//! - [`sink`]: the output file as checkpoint (resume, torn-line repair) and its single writer.
//! - [`driver`]: the one loop driving many runs on a back end, with one policy for budget,
//!   fatal errors and reply counting; it owns the run's counters ([`RunStats`]).
//! - [`executor`]: the online back end (calls sent at once to a `ChatModel`) and [`run_online`].
//! - [`batch`]: the batch back end (waves of provider batches, resumable) and [`run_batch`].
//! - [`mod@estimate`]: calls, tokens and cost of a run before it starts; [`plan`]: what a config
//!   expands to and what it would cost.
//! - [`audit`]: judge reliability, re-judging recorded batches K times (spread, flip rate).
//! - [`run`]: one run into one output, in the one order every front end follows ([`OutputRun`]).
//! - [`settings`]: a run's settings (layered defaults → config → the application's environment
//!   and flags) and the rules that choose the model provider.
//!
//! The record it writes is the `runlog` crate's; reports, datasets and task runs read it there
//! without this crate.

pub mod agent;
pub mod audit;
pub mod batch;
pub mod driver;
pub mod estimate;
pub mod executor;
pub mod gate;
pub mod grounding;
pub mod judges;
pub mod key;
pub mod machine;
pub mod measure;
pub mod outputs;
pub mod plan;
pub mod prompts;
pub mod run;
#[cfg(feature = "schema")]
pub mod schema;
pub mod settings;
pub mod sink;

pub use agent::{AgentSet, AgentSettings, PerAgent};
pub use audit::{
    AuditError, AuditItem, AuditOptions, AuditReport, FailureKind, FlipRate, JudgeSummary,
    RepeatFailure, RepeatScores, ReplayBackend, ScenarioAudit, ScenarioSpread, Spread, rejudge,
    summarise,
};
pub use batch::{
    BatchBackend, BatchError, BatchOptions, BatchPlan, batch_state_path, plan_batch, run_batch,
};
pub use driver::{
    Backend, Dispatch, Outcomes, Policy, Progress, Reply, RunControl, RunReport, RunStats, Slot,
    StopReason, drive,
};
pub use estimate::{Assumptions, Estimate, ModelCost, estimate, render_estimate};
pub use executor::{ExecutorError, ExecutorOptions, OnlineBackend, run_online};
pub use key::{Agent, CallKey, CallKeyError};
pub use machine::{AgentCall, Pipeline, PipelineSettings, RunOutcome, ScenarioRun, SettingsError};
pub use run::{BudgetCheck, OutputRun, RunError, RunShape};
pub use sink::{Checkpoint, SinkConfig, WrittenIds, errors_path, open_checkpoint};
