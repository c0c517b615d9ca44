//! Typed errors of the transport; `is_retryable` and `is_fatal` drive retries and run aborts.

use std::time::Duration;

use crate::types::Usage;

/// Everything a model call can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// 401/403: the credentials are wrong; the whole run must stop. Names the env var, never the key.
    #[error("authentication failed ({status}) at {endpoint}: check the API key in ${env_var}")]
    Auth {
        /// HTTP status (401 or 403).
        status: u16,
        /// URL without query string.
        endpoint: String,
        /// Name of the environment variable the key came from.
        env_var: String,
    },
    /// 400/404/422 and other non-retryable client errors.
    #[error("request rejected ({status}): {message}")]
    Rejected {
        /// HTTP status.
        status: u16,
        /// The server's message, with any echoed key scrubbed.
        message: String,
    },
    /// 429 after the retry budget was spent.
    #[error("rate limited after {attempts} attempts")]
    RateLimited {
        /// Requests made, including the first.
        attempts: u32,
        /// The wait the server asked for last, if it said.
        retry_after: Option<Duration>,
    },
    /// 5xx after the retry budget was spent.
    #[error("server error{} after {attempts} attempts: {message}", status_text(*.status))]
    Server {
        /// HTTP status of the last attempt.
        status: u16,
        /// Requests made, including the first.
        attempts: u32,
        /// The server's last message.
        message: String,
    },
    /// Connect or read timeouts (or 408) after the retry budget was spent.
    #[error("timed out after {attempts} attempts")]
    Timeout {
        /// Requests made, including the first.
        attempts: u32,
    },
    /// Connection errors after the retry budget was spent.
    #[error("connection failed after {attempts} attempts: {message}")]
    Connect {
        /// Requests made, including the first.
        attempts: u32,
        /// The transport error and its causes.
        message: String,
    },
    /// The reply could not be made valid JSON for the schema within the repair bound.
    #[error("invalid model output after {repairs} repair(s): {reason}")]
    InvalidOutput {
        /// The parser's or validator's message for the last reply.
        reason: String,
        /// Repair requests made.
        repairs: u32,
        /// The last reply as received.
        raw: String,
        /// Tokens of every reply behind this error (the first and each repair's): they were
        /// generated, and paid for, even though none was usable.
        usage: Usage,
        /// What `usage` cost at the configured prices, when they are known.
        cost_usd: Option<f64>,
    },
    /// The provider's reply was not the expected wire format.
    #[error("malformed provider response: {0}")]
    Protocol(String),
    /// The configured spending budget is reached.
    #[error("budget of ${budget_usd:.2} reached")]
    BudgetExceeded {
        /// The configured budget.
        budget_usd: f64,
    },
    /// The provider or model is not configured / available.
    #[error("configuration: {0}")]
    Config(String),
    /// The run was cancelled while the call was pending.
    #[error("cancelled")]
    Cancelled,
    /// No endpoint answers: each left the rotation after failures in a row and no health check
    /// passed within the breaker's probing time (or the preflight found none answering). The
    /// request was not answered, and was not paid for: its work is still to do.
    #[error("no endpoint answers: {endpoints} ({reason})")]
    Unavailable {
        /// The endpoints, credentials redacted, comma-separated.
        endpoints: String,
        /// The last failure seen, in words.
        reason: String,
    },
    /// The response cache or the recorder failed.
    #[error("cache: {0}")]
    Cache(String),
}

impl LlmError {
    /// Errors after which continuing the run is pointless (bad credentials, budget).
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            Self::Auth { .. } | Self::BudgetExceeded { .. } | Self::Config(_)
        )
    }

    /// The tokens and cost of replies that were generated but ended in this error (invalid
    /// output after repairs), so that runs count what they spent; `None` for errors no reply
    /// was paid for.
    #[must_use]
    pub fn spent(&self) -> Option<(Usage, Option<f64>)> {
        match self {
            Self::InvalidOutput {
                usage, cost_usd, ..
            } => Some((*usage, *cost_usd)),
            _ => None,
        }
    }

    /// Transport failures worth another try: rate limits, server errors, timeouts, connection
    /// failures.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. }
                | Self::Server { .. }
                | Self::Timeout { .. }
                | Self::Connect { .. }
        )
    }
}

/// ` 500` for an HTTP status; nothing for 0 (no status: a batch item that expired, went
/// missing or failed without one).
fn status_text(status: u16) -> String {
    if status == 0 {
        String::new()
    } else {
        format!(" {status}")
    }
}
