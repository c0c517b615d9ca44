//! Weighted checks, score cards and their reports; bot-test expectations and text rules; judge
//! weighting; run summaries. (Code-switching measurement is the `codeswitch` crate.)
//!
//! The crate is pure: it does no I/O and never prints. It turns evaluated [`Check`]s into a
//! [`ScoreCard`] (weighted score, the seed's ≥ 3-checks visibility rule, threshold, critical checks,
//! strict mode), renders a [`ScenarioReport`] as text, Markdown or JSON ([`report`]), weights the
//! data pipeline's judge scores ([`JudgeWeights`]) and aggregates runs ([`summary`]).
//!
//! The seed's worked example: function ✓ (weight 3), type ✓ (2), contains ✗ (1) → 500/6 → 83.
//!
//! ```
//! use scoring::{Check, CheckKind, ScenarioReport, ScoreCard, ScorePolicy, report};
//!
//! let checks = vec![
//!     Check::pass(CheckKind::ExpectedFunction, "expectedFunction", "called transfer"),
//!     Check::pass(CheckKind::ResponseType, "responseType", "expected action, got action"),
//!     Check::fail(CheckKind::ShouldContain, "shouldContain: \"fee\"", "reply does not contain \"fee\""),
//! ];
//! let card = ScoreCard::new(checks, &ScorePolicy::default());
//! assert_eq!(card.score(), 83);
//! assert!(card.passed()); // 83 ≥ the default threshold 70
//!
//! let text = report::render_text(&ScenarioReport::new("t1", "Send 5 DOT", "happy-path", card))?;
//! assert!(text.contains("[SCORE] 83/100 (3 checks)\n"));
//! assert!(text.contains("  ✗ shouldContain: \"fee\": reply does not contain \"fee\"\n"));
//! # Ok::<(), scoring::report::ReportError>(())
//! ```

pub mod card;
pub mod check;
pub mod expect;
pub mod judge;
pub mod outcome;
pub mod report;
pub mod suite_figures;
pub mod suite_result;
pub mod summary;
pub mod transcript;

pub use card::{FailReason, ScoreCard, ScorePolicy};
pub use check::{Check, CheckKind};
pub use judge::{Judge, JudgeName, JudgeScores, JudgeWeights, UnknownJudge, WeightError};
pub use outcome::OutcomeMismatch;
pub use report::{ReportFormat, ScenarioReport};
pub use suite_figures::{CategoryFigures, ScenarioFigures, SuiteFigures};
pub use suite_result::{
    CheckSpend, Expected, Interrupted, JudgeTally, RunResult, ScenarioResult, SuiteResult,
};
pub use summary::{RecordFacts, RunSummary, SuiteSummary};
