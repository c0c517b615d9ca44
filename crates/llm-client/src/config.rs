//! Client configuration: which provider to talk to, how to retry, which limits to respect.
//!
//! Every struct here is `Default` and deserializes with `#[serde(default)]`, so a settings file
//! only names what it changes. Durations are written either as an integer number of
//! **milliseconds** (`read_timeout = 120000`) or as a string with a unit (`"500ms"`, `"30s"`,
//! `"2m"`, `"1h"`; units may be combined: `"1m30s"`). No API key is ever part of the
//! configuration: only the *name* of the environment variable that holds it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::price::PriceTable;
use crate::structured::StructuredMode;

/// The wire protocol of the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// OpenAI Chat Completions and every server that imitates it (vLLM, Ollama, llama.cpp,
    /// LM Studio, OpenRouter).
    #[default]
    #[serde(rename = "openai")]
    OpenAi,
    /// Azure OpenAI: deployment in the path, `api-version` query, `api-key` header.
    Azure,
    /// Anthropic Messages API.
    Anthropic,
}

impl ProviderKind {
    /// The name used in configuration files and cache keys.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Azure => "azure",
            Self::Anthropic => "anthropic",
        }
    }
}

/// Where and how to reach the model endpoint.
///
/// `Debug` redacts the values of headers whose names look like credentials.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProviderConfig {
    /// Wire protocol.
    pub kind: ProviderKind,
    /// Base URL up to and including the API version segment, e.g. `https://api.openai.com/v1`,
    /// `http://localhost:11434/v1`; for Azure the resource URL `https://NAME.openai.azure.com`.
    pub base_url: String,
    /// More OpenAI-compatible servers of the same models beside `base_url` (a fleet of vLLM or
    /// llama.cpp servers sharing the key and the model names): requests are spread over all of
    /// them with per-key affinity and failover (see [`FleetPolicy`]). Empty: one endpoint.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_base_urls: Vec<String>,
    /// Name of the environment variable holding the API key. A missing or empty variable is
    /// fine for local servers: no credential header is sent then.
    pub api_key_env: String,
    /// Azure `api-version` query value, or the `anthropic-version` header for Anthropic.
    pub api_version: Option<String>,
    /// Azure deployment name; defaults to the request's model.
    pub deployment: Option<String>,
    /// Extra headers sent with every request (e.g. OpenRouter's `HTTP-Referer`). Values are
    /// treated as secrets in recordings when the name looks like a credential.
    pub headers: BTreeMap<String, String>,
    /// TCP/TLS connect timeout.
    #[serde(with = "stdx::duration_serde")]
    pub connect_timeout: Duration,
    /// Maximum time between two reads of the response.
    #[serde(with = "stdx::duration_serde")]
    pub read_timeout: Duration,
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Configured headers may carry keys (e.g. a gateway token); never print those values.
        let headers: BTreeMap<&str, &str> = self
            .headers
            .iter()
            .map(|(k, v)| {
                let shown = if crate::record::is_secret_header(k) {
                    "[redacted]"
                } else {
                    v.as_str()
                };
                (k.as_str(), shown)
            })
            .collect();
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("extra_base_urls", &self.extra_base_urls)
            .field("api_key_env", &self.api_key_env)
            .field("api_version", &self.api_version)
            .field("deployment", &self.deployment)
            .field("headers", &headers)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .finish()
    }
}

impl Default for ProviderConfig {
    fn default() -> Self {
        Self {
            kind: ProviderKind::OpenAi,
            base_url: "https://api.openai.com/v1".to_owned(),
            extra_base_urls: Vec::new(),
            api_key_env: "OPENAI_API_KEY".to_owned(),
            api_version: None,
            deployment: None,
            headers: BTreeMap::new(),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(120),
        }
    }
}

impl ProviderConfig {
    /// Every endpoint: `base_url`, then `extra_base_urls`.
    pub fn base_urls(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.base_url.as_str())
            .chain(self.extra_base_urls.iter().map(String::as_str))
    }
}

/// How a client treats an endpoint that fails.
///
/// In a fleet ([`ProviderConfig::extra_base_urls`]) a failed endpoint cools down for `cooldown`,
/// doubling with every failure in a row up to `max_cooldown`, and is health-checked (`GET
/// {base}/models`, else `{base without /v1}/health`, else a one-token call, each within
/// `health_timeout`) before it gets traffic again.
///
/// The circuit breaker, for one endpoint or many: after `trip_after` connection failures,
/// timeouts or 5xx in a row (counted over every request of the client, whatever the caller),
/// the endpoint leaves the rotation until a health check passes. When no endpoint is left, every
/// request waits while the endpoints are checked every `probe_every`; if none passes within
/// `probe_for`, the requests (and every later one) fail with [`crate::LlmError::Unavailable`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FleetPolicy {
    /// The first cooldown of an endpoint that failed.
    #[serde(with = "stdx::duration_serde")]
    pub cooldown: Duration,
    /// The longest cooldown.
    #[serde(with = "stdx::duration_serde")]
    pub max_cooldown: Duration,
    /// Time allowed to each health-check request.
    #[serde(with = "stdx::duration_serde")]
    pub health_timeout: Duration,
    /// Connection failures, timeouts or 5xx in a row that take an endpoint out of the
    /// rotation; 0 never does.
    pub trip_after: u32,
    /// How long requests wait, with no endpoint left, for a health check to pass.
    #[serde(with = "stdx::duration_serde")]
    pub probe_for: Duration,
    /// How often an endpoint out of the rotation is checked.
    #[serde(with = "stdx::duration_serde")]
    pub probe_every: Duration,
    /// How long a call waits for its reply before its endpoint gets a liveness probe (`GET
    /// {base}/models` within `health_timeout`, any HTTP status an answer); an endpoint that
    /// does not answer is hung and leaves the rotation, its calls given up as connection
    /// failures. One that answers (a slow model) is left alone. Zero: never probed.
    #[serde(with = "stdx::duration_serde")]
    pub liveness_after: Duration,
}

impl Default for FleetPolicy {
    fn default() -> Self {
        Self {
            cooldown: Duration::from_secs(1),
            max_cooldown: Duration::from_secs(60),
            health_timeout: Duration::from_secs(5),
            trip_after: 5,
            probe_for: Duration::from_secs(25),
            probe_every: Duration::from_secs(1),
            liveness_after: Duration::from_secs(10),
        }
    }
}

/// Retry budget and backoff shape for transient failures (429, 5xx, timeouts, connect errors).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
// A typo (`max_retry`) is an error, not a silently kept default.
#[serde(default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Retries after the first attempt; 0 disables retrying.
    pub max_retries: u32,
    /// First backoff ceiling; doubles per attempt (full jitter picks a delay below the ceiling).
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::duration_schema"))]
    pub base_delay: Duration,
    /// Upper bound of the computed backoff. A server's `Retry-After` may ask for longer and is
    /// honoured up to [`RetryPolicy::max_server_delay`].
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "crate::duration_schema"))]
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// The longest server-requested wait (`Retry-After`, `x-ratelimit-reset-*`) that is honoured;
    /// anything longer is clamped so a misconfigured server cannot park a run for hours.
    #[must_use]
    pub fn max_server_delay(&self) -> Duration {
        self.max_delay.max(Duration::from_secs(120))
    }
}

/// Eight retries with full-jitter backoff capped at 10 s (issue 27, measured in BENCHMARKS.md):
/// against a server failing half its calls at random, four retries (one call in 32 failing all
/// its tries) lost 22% of a 240-scenario run's scenarios; eight (one in 512) lose about 1%,
/// for the same calls and wall time per written scenario. A call that is never answered waits
/// about 20 s in all before it fails, and a dead endpoint is the circuit breaker's to notice,
/// not the retries'.
impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 8,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(10),
        }
    }
}

/// Client-side limits shared by every task using the same [`crate::Client`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Requests in flight at once (at least 1).
    pub max_in_flight: usize,
    /// Requests per minute, if limited.
    pub rpm: Option<u32>,
    /// Tokens per minute (prompt + max completion reserved before a call), if limited.
    pub tpm: Option<u64>,
    /// AIMD concurrency: halve the in-flight window on a 429, grow it by one after
    /// [`Limits::adaptive_step`] successes, never above `max_in_flight`.
    pub adaptive: bool,
    /// Successes needed to grow the adaptive window by one.
    pub adaptive_step: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_in_flight: 16,
            rpm: None,
            tpm: None,
            adaptive: false,
            adaptive_step: 8,
        }
    }
}

/// Everything a [`crate::Client`] needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientConfig {
    /// Endpoint and credentials source.
    pub provider: ProviderConfig,
    /// Transient-failure retries.
    pub retry: RetryPolicy,
    /// Shared concurrency, RPM and TPM limits.
    pub limits: Limits,
    /// Cooldowns and health checks of a client with several endpoints.
    pub fleet: FleetPolicy,
    /// On-disk response cache directory; `None` disables caching.
    pub cache_dir: Option<PathBuf>,
    /// With a cache: a journal of the responses stored for requests with an affinity (a
    /// scenario id), appended as they arrive and read back into the cache when a client starts,
    /// for a task whose cache folder does not outlive it (see the `cache` module). `None`: none.
    pub cache_journal: Option<PathBuf>,
    /// USD prices per model.
    pub prices: PriceTable,
    /// Repair requests allowed per call when structured output is broken or invalid.
    pub max_repairs: u32,
    /// When set, every real exchange is written there as a fixture (credentials redacted).
    pub record_dir: Option<PathBuf>,
    /// Forces one structured-output mode (no negotiation, no fallback); `None` is `auto`: try
    /// the provider's best mode and fall back when the server rejects it.
    pub structured_mode: Option<StructuredMode>,
    /// Where the modes learnt per endpoint and model are remembered across runs (a small JSON
    /// file, written atomically); `None` keeps them for this client's lifetime only.
    pub modes_file: Option<PathBuf>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            provider: ProviderConfig::default(),
            retry: RetryPolicy::default(),
            limits: Limits::default(),
            fleet: FleetPolicy::default(),
            cache_dir: None,
            cache_journal: None,
            prices: PriceTable::default(),
            max_repairs: 1,
            record_dir: None,
            structured_mode: None,
            modes_file: None,
        }
    }
}

impl ClientConfig {
    /// An OpenAI-compatible configuration for `base_url` with defaults for everything else.
    #[must_use]
    pub fn openai_compatible(base_url: impl Into<String>) -> Self {
        let mut cfg = Self::default();
        cfg.provider.base_url = base_url.into();
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_credential_headers() {
        let mut cfg = ClientConfig::default();
        cfg.provider
            .headers
            .insert("X-Gateway-Token".into(), "gw-secret-991".into());
        cfg.provider
            .headers
            .insert("HTTP-Referer".into(), "https://example.org".into());
        let debug = format!("{cfg:?}");
        assert!(!debug.contains("gw-secret-991"), "{debug}");
        assert!(debug.contains("https://example.org"), "{debug}");
    }

    #[test]
    fn config_fills_defaults_and_reads_kinds() {
        let cfg: ClientConfig = serde_json::from_value(serde_json::json!({
            "provider": {"kind": "azure", "base_url": "https://x.openai.azure.com", "read_timeout": "45s"},
            "retry": {"base_delay": 250},
            "limits": {"tpm": 30000}
        }))
        .expect("valid config");
        assert_eq!(cfg.provider.kind, ProviderKind::Azure);
        assert_eq!(cfg.provider.read_timeout, Duration::from_secs(45));
        assert_eq!(cfg.provider.connect_timeout, Duration::from_secs(10));
        assert_eq!(cfg.provider.api_key_env, "OPENAI_API_KEY");
        assert_eq!(cfg.retry.base_delay, Duration::from_millis(250));
        assert_eq!(cfg.retry.max_retries, 8);
        assert_eq!(cfg.limits.tpm, Some(30000));
        assert_eq!(cfg.max_repairs, 1);
        let kinds: Vec<ProviderKind> =
            serde_json::from_str(r#"["openai","azure","anthropic"]"#).expect("kinds");
        assert_eq!(
            kinds,
            [
                ProviderKind::OpenAi,
                ProviderKind::Azure,
                ProviderKind::Anthropic
            ]
        );
    }
}
