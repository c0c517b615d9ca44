//! Typed errors of the transport; `is_retryable` and `is_fatal` drive retries and run aborts.

use std::time::Duration;

/// Everything a model call can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// 401/403: the credentials are wrong; the whole run must stop. Names the env var, never the key.
    #[error("authentication failed ({status}) at {endpoint}: check the API key in ${env_var}")]
    Auth {
        status: u16,
        endpoint: String,
        env_var: String,
    },
    /// 400/404/422 and other non-retryable client errors.
    #[error("request rejected ({status}): {message}")]
    Rejected { status: u16, message: String },
    /// 429 after the retry budget was spent.
    #[error("rate limited after {attempts} attempts")]
    RateLimited {
        attempts: u32,
        retry_after: Option<Duration>,
    },
    /// 5xx after the retry budget was spent.
    #[error("server error {status} after {attempts} attempts: {message}")]
    Server {
        status: u16,
        attempts: u32,
        message: String,
    },
    #[error("timed out after {attempts} attempts")]
    Timeout { attempts: u32 },
    #[error("connection failed after {attempts} attempts: {message}")]
    Connect { attempts: u32, message: String },
    /// The reply could not be made valid JSON for the schema within the repair bound.
    #[error("invalid model output after {repairs} repair(s): {reason}")]
    InvalidOutput {
        reason: String,
        repairs: u32,
        raw: String,
    },
    /// The provider's reply was not the expected wire format.
    #[error("malformed provider response: {0}")]
    Protocol(String),
    /// The configured spending budget is reached.
    #[error("budget of ${budget_usd:.2} reached")]
    BudgetExceeded { budget_usd: f64 },
    /// The provider or model is not configured / available.
    #[error("configuration: {0}")]
    Config(String),
    #[error("cancelled")]
    Cancelled,
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
}
