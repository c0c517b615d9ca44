//! Run-wide usage accounting of one client, updated lock-free by every task.
//!
//! Counters are atomics; the per-model breakdown sits behind a mutex that is held only for the
//! few additions of one finished call. [`ClientStats`] is the plain snapshot callers read.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::{ChatResponse, Usage};

/// Totals for one model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelStats {
    /// Calls answered by the endpoint (cache hits count only in [`ClientStats::cache_hits`]).
    pub calls: u64,
    /// Prompt tokens (reported or estimated).
    pub prompt_tokens: u64,
    /// Completion tokens (reported or estimated).
    pub completion_tokens: u64,
    /// USD spent on this model.
    pub cost_usd: f64,
}

/// A snapshot of a client's counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientStats {
    /// `chat` calls started (including cache hits).
    pub calls: u64,
    /// Calls that ended in an error.
    pub failed_calls: u64,
    /// HTTP requests sent (first attempts, retries, repairs and fallbacks).
    pub http_requests: u64,
    /// Transport retries (429, 5xx, timeouts, connection errors).
    pub retries: u64,
    /// 429 responses received.
    pub rate_limited: u64,
    /// Repair requests for broken or schema-violating structured output.
    pub repairs: u64,
    /// Structured-output mode fallbacks (a server rejected a mode).
    pub fallbacks: u64,
    /// Calls served from the response cache.
    pub cache_hits: u64,
    /// Cacheable calls not found in the cache.
    pub cache_misses: u64,
    /// Prompt tokens paid for (reported by servers or estimated; cache hits add nothing).
    pub prompt_tokens: u64,
    /// Completion tokens, reported by servers or estimated.
    pub completion_tokens: u64,
    /// The part of `prompt_tokens` that is a local estimate.
    pub estimated_prompt_tokens: u64,
    /// The part of `completion_tokens` that is a local estimate.
    pub estimated_completion_tokens: u64,
    /// USD spent (priced models only).
    pub cost_usd: f64,
    /// Requests that waited for the RPM bucket.
    pub rpm_waits: u64,
    /// Requests that waited for the TPM bucket.
    pub tpm_waits: u64,
    /// Current size of the in-flight window (changes only with adaptive limits).
    pub in_flight_limit: usize,
    /// Per-model breakdown.
    pub by_model: BTreeMap<String, ModelStats>,
    /// Per-endpoint counters of a client with several endpoints (empty with one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<crate::EndpointStats>,
}

/// The live counters behind [`ClientStats`].
#[derive(Debug, Default)]
pub(crate) struct StatsCell {
    pub calls: AtomicU64,
    pub failed_calls: AtomicU64,
    pub http_requests: AtomicU64,
    pub retries: AtomicU64,
    pub rate_limited: AtomicU64,
    pub repairs: AtomicU64,
    pub fallbacks: AtomicU64,
    pub cache_hits: AtomicU64,
    pub cache_misses: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    estimated_prompt_tokens: AtomicU64,
    estimated_completion_tokens: AtomicU64,
    /// f64 bits, updated with a CAS loop.
    cost_usd_bits: AtomicU64,
    by_model: Mutex<BTreeMap<String, ModelStats>>,
}

/// Adds one to a counter.
pub(crate) fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl StatsCell {
    /// Accounts a finished call's usage and cost.
    pub(crate) fn record_response(&self, resp: &ChatResponse) {
        self.record_spend(&resp.model, resp.usage, resp.cost_usd, true);
    }

    /// Counts tokens and cost that were generated for `model`: by a call that answered, or by
    /// one that ended in invalid output after its repairs (`answered` false: not a call of the
    /// model's, but paid for all the same).
    pub(crate) fn record_spend(&self, model: &str, u: Usage, cost: Option<f64>, answered: bool) {
        self.prompt_tokens
            .fetch_add(u.prompt_tokens, Ordering::Relaxed);
        self.completion_tokens
            .fetch_add(u.completion_tokens, Ordering::Relaxed);
        if u.estimated {
            self.estimated_prompt_tokens
                .fetch_add(u.prompt_tokens, Ordering::Relaxed);
            self.estimated_completion_tokens
                .fetch_add(u.completion_tokens, Ordering::Relaxed);
        }
        let cost = cost.unwrap_or(0.0);
        if cost != 0.0 {
            // The closure always returns Some, so fetch_update cannot fail.
            let _ = self
                .cost_usd_bits
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                    Some((f64::from_bits(bits) + cost).to_bits())
                });
        }
        let mut by_model = self
            .by_model
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let m = by_model.entry(model.to_owned()).or_default();
        m.calls += u64::from(answered);
        // Saturating: token counts come from the server and may be absurd.
        m.prompt_tokens = m.prompt_tokens.saturating_add(u.prompt_tokens);
        m.completion_tokens = m.completion_tokens.saturating_add(u.completion_tokens);
        m.cost_usd += cost;
    }

    /// A consistent-enough snapshot (each counter is read atomically; the set is not).
    pub(crate) fn snapshot(&self) -> ClientStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        ClientStats {
            calls: get(&self.calls),
            failed_calls: get(&self.failed_calls),
            http_requests: get(&self.http_requests),
            retries: get(&self.retries),
            rate_limited: get(&self.rate_limited),
            repairs: get(&self.repairs),
            fallbacks: get(&self.fallbacks),
            cache_hits: get(&self.cache_hits),
            cache_misses: get(&self.cache_misses),
            prompt_tokens: get(&self.prompt_tokens),
            completion_tokens: get(&self.completion_tokens),
            estimated_prompt_tokens: get(&self.estimated_prompt_tokens),
            estimated_completion_tokens: get(&self.estimated_completion_tokens),
            cost_usd: f64::from_bits(get(&self.cost_usd_bits)),
            rpm_waits: 0,
            tpm_waits: 0,
            in_flight_limit: 0,
            endpoints: Vec::new(),
            by_model: self
                .by_model
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
        }
    }
}
