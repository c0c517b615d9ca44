//! A finished run's counters as plain numbers: the driver fills them, reports render them, and
//! neither needs the other's types.

/// What a run did, for its closing summary.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunTotals {
    /// Records written by this run.
    pub records: u64,
    /// Scenarios that failed (written to the errors file).
    pub failures: u64,
    /// Scenarios skipped because the output already held them.
    pub skipped: u64,
    /// Why the run stopped, in words (`Completed`, `Interrupted`, `Budget`, …).
    pub stop: String,
    /// Model calls answered (cache hits included).
    pub calls: u64,
    /// Calls served by the response cache.
    pub cache_hits: u64,
    /// Calls that ended in an error.
    pub call_errors: u64,
    /// Prompt tokens paid for.
    pub prompt_tokens: u64,
    /// Completion tokens paid for.
    pub completion_tokens: u64,
    /// Spend in USD of the priced calls.
    pub cost_usd: f64,
    /// Paid calls whose model had no price.
    pub unpriced: u64,
    /// The provider, as shown to the user.
    pub provider: String,
    /// How the ratio judge scored (`measured`, `llm`, `hybrid`).
    pub ratio_judge: &'static str,
}
