//! The run log: what a code-switching run writes and everything that reads it agrees on.
//!
//! - [`record`]: the versioned JSONL record of one scenario ([`ScenarioRecord`]) and the
//!   errors-file record ([`FailureRecord`]), their tolerant streaming reader, the id index, and
//!   the merge of several outputs into one.
//! - [`vocab`]: the words records are written in — agent roles, the ratio judge's mode, which
//!   attempt is kept, the gate's settings and verdict.
//! - [`failure`]: why scenarios failed — each errors-file reason's cause, and the failures of a
//!   run counted by agent and cause.
//! - [`lock`]: one writer per output file (an advisory lock with its holder's host and pid).
//! - [`summary`]: a finished run's summary, read back from its output and errors files.
//! - [`money`]: one way to show US dollars; [`totals`]: a finished run's counters.
//!
//! It depends on neither the pipeline's state machine nor the model transport (no `tokio`, no
//! HTTP), so a reader of records — reports, dataset export, task runs, a user's own script in
//! Rust — pays only for `serde_json`.

pub mod failure;
pub mod lock;
pub mod money;
pub mod record;
pub mod summary;
pub mod totals;
pub mod vocab;

pub use failure::{FailureCause, FailureTally};
pub use lock::{LockError, OutputLock};
pub use record::{
    AttemptRecord, CallTotals, CoercionNote, FailureRecord, Grounding, GroundingArticle,
    RecordSettings, ScenarioRecord, UsageTotals,
};
pub use totals::RunTotals;
pub use vocab::{AgentKind, GateSettings, GateUndecided, GateVerdict, Keep, RatioJudgeMode};
