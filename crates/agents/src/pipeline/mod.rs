//! The code-switching data pipeline: generator, four judges and refiner over each scenario.
//!
//! - [`audit`]: judge reliability, re-judging recorded batches K times (spread, flip rate).
//! - [`agent`]: the six roles and their per-agent model settings.
//! - [`outputs`]: what each agent answers (typed structs, strict-mode JSON schemas, local checks).
//! - [`prompts`]: the minijinja templates in `prompts/*.j2`, overridable per agent.
//! - [`machine`]: [`ScenarioRun`], one scenario as a pure state machine (no I/O, no awaits).
//! - [`measure`]: the deterministic code-switching measurement given to the ratio judge.
//! - [`record`]: the JSONL record of a scenario (versioned, with its run settings), its tolerant
//!   streaming reader, and the errors-file record.
//! - [`figures`]: a run's report figures folded from its records, one at a time.
//! - [`sink`]: the output file as checkpoint (resume, torn-line repair) and its single writer.
//! - [`executor`]: the online executor driving many runs concurrently against a `ChatModel`.
//! - [`batch`]: the batch executor driving every run in waves of provider batches, resumable.
//! - [`estimate`]: calls, tokens and cost of a run before it starts.

pub mod agent;
pub mod audit;
pub mod batch;
pub mod estimate;
pub mod executor;
pub mod figures;
pub mod machine;
pub mod measure;
pub mod outputs;
pub mod prompts;
pub mod record;
pub mod sink;

pub use agent::{AgentKind, AgentSet, AgentSettings};
pub use audit::{
    AuditError, AuditItem, AuditOptions, AuditReport, FailureKind, FlipRate, JudgeSummary,
    RepeatFailure, RepeatScores, ScenarioAudit, ScenarioSpread, Spread, rejudge, summarise,
};
pub use batch::{BatchError, BatchOptions, BatchPlan, batch_state_path, plan_batch, run_batch};
pub use estimate::{Assumptions, Estimate, estimate, render_estimate};
pub use executor::{
    ExecutorError, ExecutorOptions, RunControl, RunReport, RunStats, StopReason, run_online,
};
pub use machine::{
    AgentCall, Pipeline, PipelineSettings, RatioJudgeMode, RunOutcome, ScenarioRun, SettingsError,
};
pub use record::{AttemptRecord, FailureRecord, ScenarioRecord};
pub use sink::{Checkpoint, SinkConfig, errors_path, open_checkpoint};
