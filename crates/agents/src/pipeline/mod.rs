//! The code-switching data pipeline: generator, four judges and refiner over each scenario.
//!
//! - [`audit`]: judge reliability, re-judging recorded batches K times (spread, flip rate) on
//!   the replay back end.
//! - [`agent`]: the six roles and their per-agent model settings.
//! - [`outputs`]: what each agent answers (typed structs, strict-mode JSON schemas, local checks).
//! - [`prompts`]: the minijinja templates in `prompts/*.j2`, overridable per agent.
//! - [`key`]: [`CallKey`], the typed name of one call (`scenario_id:attempt:agent[~try]`).
//! - [`machine`]: [`ScenarioRun`], one scenario as a pure state machine (no I/O, no awaits).
//! - [`measure`]: the deterministic code-switching measurement given to the ratio judge.
//! - [`record`]: the JSONL record of a scenario (versioned, with its run settings), its tolerant
//!   streaming reader, and the errors-file record.
//! - [`figures`]: a run's report figures folded from its records, one at a time.
//! - [`sink`]: the output file as checkpoint (resume, torn-line repair) and its single writer.
//! - [`driver`]: the one loop driving many runs on a back end, with one policy for budget,
//!   fatal errors and reply counting.
//! - [`executor`]: the online back end (calls sent at once to a `ChatModel`) and [`run_online`].
//! - [`batch`]: the batch back end (waves of provider batches, resumable) and [`run_batch`].
//! - [`mod@estimate`]: calls, tokens and cost of a run before it starts.

pub mod agent;
pub mod audit;
pub mod batch;
pub mod driver;
pub mod estimate;
pub mod executor;
pub mod figures;
pub mod gate;
pub mod key;
pub mod lock;
pub mod machine;
pub mod measure;
pub mod outputs;
pub mod prompts;
pub mod record;
pub mod sink;

pub use agent::{AgentKind, AgentSet, AgentSettings, PerAgent};
pub use audit::{
    AuditError, AuditItem, AuditOptions, AuditReport, FailureKind, FlipRate, JudgeSummary,
    RepeatFailure, RepeatScores, ReplayBackend, ScenarioAudit, ScenarioSpread, Spread, rejudge,
    summarise,
};
pub use batch::{
    BatchBackend, BatchError, BatchOptions, BatchPlan, batch_state_path, plan_batch, run_batch,
};
pub use driver::{Backend, Dispatch, Outcomes, Policy, Progress, Reply, Slot, drive};
pub use estimate::{Assumptions, Estimate, estimate, render_estimate};
pub use executor::{
    ExecutorError, ExecutorOptions, OnlineBackend, RunControl, RunReport, RunStats, StopReason,
    run_online,
};
pub use gate::{GateSettings, GateVerdict};
pub use key::{CallKey, CallKeyError};
pub use lock::{LockError, OutputLock};
pub use machine::{
    AgentCall, Pipeline, PipelineSettings, RatioJudgeMode, RunOutcome, ScenarioRun, SettingsError,
};
pub use record::{AttemptRecord, FailureRecord, ScenarioRecord};
pub use sink::{Checkpoint, SinkConfig, WrittenIds, errors_path, open_checkpoint};
