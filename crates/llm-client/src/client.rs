//! [`Client`]: the production [`ChatModel`], composing provider wire formats with structured
//! output negotiation and repair, retries, shared limits, the response cache, recording and
//! usage accounting.
//!
//! One `Client` is meant to be shared (`Arc<Client>`) by every task of a run, because the limits,
//! the remembered structured-output modes and the statistics are only meaningful run-wide.
//! The API key is read once at construction, kept in a type whose `Debug` prints nothing, sent
//! only as a header, and scrubbed from every server message before it reaches an error or a log.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::Instant;
use tracing::Instrument as _;

pub(crate) mod embeddings;

use crate::cache::{DiskCache, cache_key, replay_key};
use crate::fleet::{Fleet, Pick};
use crate::limits::{Concurrency, TokenBucket};
use crate::modes::ModeMemory;
use crate::provider::{self, Parsed, WireRequest};
use crate::record::{Exchange, Recorder, Recording, is_secret_header};
use crate::retry::{backoff, server_delay};
use crate::stats::{ClientStats, StatsCell, bump};
use crate::structured::{StructuredMode, Validators, coerce_to_schema, parse_tolerant};
use crate::tokens::{count_prompt_tokens, count_tokens};
use crate::{
    ChatModel, ChatRequest, ChatResponse, ClientConfig, Coercion, FinishReason, LlmError, Message,
    OutputSchema, ProviderKind, Usage,
};

const REPAIR_PROMPT: &str = include_str!("../prompts/repair.txt");
/// Completion budget assumed for TPM reservations when the request sets no `max_tokens`.
const DEFAULT_COMPLETION_RESERVE: u64 = 1024;
const REDACTED: &str = "[redacted]";
/// How often a call waiting on a slow endpoint looks whether a liveness probe found it hung.
const LIVENESS_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// An API key; `Debug` never shows it.
struct ApiKey(String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// The production chat client. See the [crate docs](crate) for an example.
pub struct Client {
    cfg: ClientConfig,
    http: reqwest::Client,
    api_key: Option<ApiKey>,
    /// Configured extra headers, validated once.
    extra_headers: HeaderMap,
    window: Arc<Concurrency>,
    rpm: Option<TokenBucket>,
    tpm: Option<TokenBucket>,
    cache: Option<DiskCache>,
    recorder: Option<Recorder>,
    /// Structured mode that worked per (endpoint or fleet, model).
    modes: ModeMemory,
    /// The endpoints (one, or a fleet) and their health.
    fleet: Fleet,
    /// The fleet's order-independent identity: what cache keys and remembered modes name.
    identity: String,
    validators: Validators,
    stats: StatsCell,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("provider", &self.cfg.provider.kind)
            .field("base_url", &self.cfg.provider.base_url)
            .field("api_key_env", &self.cfg.provider.api_key_env)
            .field("api_key", &self.api_key)
            .finish_non_exhaustive()
    }
}

/// What one HTTP attempt produced.
struct RawReply {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// A successful logical request (after retries).
struct Answer {
    parsed: Parsed,
    retries: u32,
    usage: Usage,
}

impl Client {
    /// Builds a client, reading the API key from the environment variable named in the config
    /// (absent or empty means "no credentials", which local servers accept).
    ///
    /// # Errors
    /// [`LlmError::Config`] for an invalid base URL, header or HTTP client setup.
    pub fn new(cfg: ClientConfig) -> Result<Self, LlmError> {
        let key = std::env::var(&cfg.provider.api_key_env)
            .ok()
            .filter(|k| !k.trim().is_empty());
        Self::build(cfg, key)
    }

    /// Builds a client with an explicit API key instead of reading the environment (for callers
    /// that obtain keys elsewhere, and for tests). Errors still name `api_key_env`.
    ///
    /// # Errors
    /// As [`Client::new`].
    pub fn with_api_key(cfg: ClientConfig, key: impl Into<String>) -> Result<Self, LlmError> {
        let key: String = key.into();
        Self::build(cfg, (!key.trim().is_empty()).then_some(key))
    }

    fn build(cfg: ClientConfig, key: Option<String>) -> Result<Self, LlmError> {
        let base_urls = check_base_urls(&cfg, key.is_some())?;
        let mut extra_headers = HeaderMap::new();
        for (name, value) in &cfg.provider.headers {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| LlmError::Config(format!("invalid header name {name:?}")))?;
            // The value may be a secret: the error names the header only.
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| LlmError::Config(format!("invalid value for header {name:?}")))?;
            value.set_sensitive(is_secret_header(name));
            extra_headers.insert(header, value);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.provider.connect_timeout)
            .read_timeout(cfg.provider.read_timeout)
            .pool_max_idle_per_host(cfg.limits.max_in_flight.max(1))
            .build()
            .map_err(|e| LlmError::Config(format!("HTTP client: {e}")))?;
        let limits = &cfg.limits;
        tracing::debug!(
            provider = cfg.provider.kind.as_str(),
            base_url = %stdx::redact_url(&cfg.provider.base_url),
            has_key = key.is_some(),
            "llm client ready"
        );
        let fleet = Fleet::new(&base_urls, cfg.fleet.clone(), limits.max_in_flight);
        Ok(Self {
            identity: fleet.identity(),
            fleet,
            window: Concurrency::new(limits.max_in_flight, limits.adaptive, limits.adaptive_step),
            rpm: limits.rpm.map(|n| TokenBucket::per_minute(u64::from(n))),
            tpm: limits.tpm.map(TokenBucket::per_minute),
            cache: cfg.cache_dir.clone().map(|dir| match &cfg.cache_journal {
                Some(journal) => DiskCache::with_journal(dir, journal),
                None => DiskCache::new(dir),
            }),
            recorder: cfg.record_dir.clone().map(Recorder::new),
            api_key: key.map(ApiKey),
            extra_headers,
            http,
            modes: ModeMemory::load(cfg.modes_file.clone()),
            validators: Validators::default(),
            stats: StatsCell::default(),
            cfg,
        })
    }

    /// The configuration this client was built with.
    #[must_use]
    pub fn config(&self) -> &ClientConfig {
        &self.cfg
    }

    /// A snapshot of the run-wide counters.
    #[must_use]
    pub fn stats(&self) -> ClientStats {
        let mut s = self.stats.snapshot();
        s.rpm_waits = self.rpm.as_ref().map_or(0, TokenBucket::waits);
        s.tpm_waits = self.tpm.as_ref().map_or(0, TokenBucket::waits);
        s.in_flight_limit = self.window.limit();
        s.endpoints = self.fleet.stats();
        s
    }

    /// The structured-output mode remembered for `model` on this client's endpoint, if a call
    /// has settled one.
    #[must_use]
    pub fn structured_mode(&self, model: &str) -> Option<StructuredMode> {
        self.modes.get(&self.identity, model)
    }

    /// Replaces every occurrence of the API key in server-provided text.
    fn scrub(&self, text: String) -> String {
        let text = stdx::redact_urls_in(&text);
        match &self.api_key {
            Some(ApiKey(k)) if k.len() >= 4 && text.contains(k.as_str()) => {
                text.replace(k.as_str(), REDACTED)
            }
            _ => text,
        }
    }

    async fn call(&self, req: ChatRequest) -> Result<ChatResponse, LlmError> {
        bump(&self.stats.calls);
        let started = Instant::now();
        let key = match &self.cache {
            Some(_) if !req.no_cache => {
                Some(cache_key(&self.identity, self.cfg.provider.kind, &req))
            }
            _ => None,
        };
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            if let Some(mut hit) = cache.get(key).await {
                bump(&self.stats.cache_hits);
                tracing::debug!(model = %req.model, "cache hit");
                hit.cached = true;
                hit.cost_usd = Some(0.0);
                hit.retries = 0;
                hit.repairs = 0;
                hit.latency_ms = elapsed_ms(started);
                return Ok(hit);
            }
            bump(&self.stats.cache_misses);
        }
        let mut exchanges = Vec::new();
        let log = self.recorder.as_ref().map(|_| &mut exchanges);
        let result = match &req.output_schema {
            Some(schema) => self.structured(&req, schema, log).await,
            None => self.plain(&req, log).await,
        };
        let mut resp = match result {
            Ok(resp) => resp,
            Err(mut e) => {
                bump(&self.stats.failed_calls);
                if let LlmError::InvalidOutput {
                    usage, cost_usd, ..
                } = &mut e
                {
                    *cost_usd = self.cfg.prices.cost(&req.model, usage);
                    self.stats
                        .record_spend(&req.model, *usage, *cost_usd, false);
                }
                // The caller decides what a failed call means (a scenario's failure, a stop):
                // not a warning of the transport's.
                tracing::debug!(model = %req.model, error = %e, "model call failed");
                return Err(e);
            }
        };
        resp.latency_ms = elapsed_ms(started);
        resp.cost_usd = self
            .cfg
            .prices
            .cost(&req.model, &resp.usage)
            .or_else(|| self.cfg.prices.cost(&resp.model, &resp.usage));
        self.stats.record_response(&resp);
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            // A cache that cannot be written must not fail a call that already succeeded (and paid).
            if let Err(e) = cache.put(key, &resp, req.affinity.as_deref()).await {
                tracing::warn!(error = %e, "response not cached");
            }
        }
        if let Some(recorder) = &self.recorder {
            let recording = Recording {
                key: replay_key(&req),
                request: req.clone(),
                exchanges,
                response: resp.clone(),
            };
            if let Err(e) = recorder.write(&recording).await {
                tracing::warn!(error = %e, "exchange not recorded");
            }
        }
        tracing::debug!(
            model = %resp.model,
            prompt_tokens = resp.usage.prompt_tokens,
            completion_tokens = resp.usage.completion_tokens,
            estimated = resp.usage.estimated,
            retries = resp.retries,
            repairs = resp.repairs,
            latency_ms = resp.latency_ms,
            "model call done"
        );
        Ok(resp)
    }

    async fn plain(
        &self,
        req: &ChatRequest,
        log: Option<&mut Vec<Exchange>>,
    ) -> Result<ChatResponse, LlmError> {
        let wire = provider::build(&self.cfg.provider, req, None);
        let answer = self
            .send(req, &req.messages, &wire, log, self.cfg.retry.max_retries)
            .await?;
        Ok(ChatResponse {
            model: answer.parsed.model.unwrap_or_else(|| req.model.clone()),
            content: answer.parsed.content,
            json: None,
            tool_calls: answer.parsed.tool_calls,
            finish_reason: answer.parsed.finish_reason,
            usage: answer.usage,
            retries: answer.retries,
            ..ChatResponse::default()
        })
    }

    /// Structured output: negotiate a wire mode, then parse, coerce, validate and repair.
    async fn structured(
        &self,
        req: &ChatRequest,
        schema: &OutputSchema,
        mut log: Option<&mut Vec<Exchange>>,
    ) -> Result<ChatResponse, LlmError> {
        // Modes are remembered per fleet: its servers serve the same models the same way.
        let base_url = &self.identity;
        let forced = self.cfg.structured_mode;
        let remembered = self.modes.get(base_url, &req.model);
        let mut mode = forced
            .or(remembered)
            .unwrap_or_else(|| provider::initial_mode(self.cfg.provider.kind));
        // Nothing is known of this endpoint yet: the first try of a mode is a probe, and an
        // opaque 5xx to it, twice (a server that cannot serve a mode may answer 500 naming
        // nothing), moves on to the next mode instead of spending the whole retry budget on a
        // request that cannot work.
        let probing = forced.is_none() && remembered.is_none();
        let mut lesson: Option<(String, bool)> = None;
        let mut answer = loop {
            let wire = provider::build(&self.cfg.provider, req, Some(mode));
            // One retry absorbs a passing hiccup; a second 500 in a row on first use is taken
            // as the server's answer to the mode.
            let retries = if probing && mode.next().is_some() {
                self.cfg.retry.max_retries.min(1)
            } else {
                self.cfg.retry.max_retries
            };
            match self
                .send(
                    req,
                    &wire_messages(req, &wire),
                    &wire,
                    log.as_deref_mut(),
                    retries,
                )
                .await
            {
                Ok(answer) => break answer,
                Err(LlmError::Rejected { status, message })
                    if forced.is_none() && provider::rejects_structured_mode(status, &message) =>
                {
                    let Some(next) = mode.next() else {
                        return Err(LlmError::Rejected { status, message });
                    };
                    bump(&self.stats.fallbacks);
                    tracing::info!(model = %req.model, mode = mode.as_str(), next = next.as_str(), status, reason = %message, "structured mode rejected, falling back");
                    lesson = Some((
                        format!("{} rejected ({status}): {message}", mode.as_str()),
                        true,
                    ));
                    mode = next;
                }
                Err(LlmError::Server {
                    status, message, ..
                }) if probing && mode.next().is_some() => {
                    let next = mode.next().unwrap_or(StructuredMode::Prompt);
                    bump(&self.stats.fallbacks);
                    // Not a warning: a flaky server's 500 makes this happen without anything
                    // for a person to do, and the lesson is kept for this run only.
                    tracing::info!(model = %req.model, mode = mode.as_str(), next = next.as_str(), status, reason = %message, "first structured request failed with a server error, trying the next mode");
                    // An opaque 5xx may be an outage, not a verdict on the mode: kept for this
                    // run only, never written to the modes file.
                    lesson = Some((
                        format!(
                            "{} failed ({status}) on first use: {message}",
                            mode.as_str()
                        ),
                        false,
                    ));
                    mode = next;
                }
                Err(e) => return Err(e),
            }
        };
        if let Some((reason, persist)) = lesson {
            self.modes
                .learn(base_url, &req.model, mode, &reason, persist);
        } else if forced.is_none() && remembered.is_none() {
            self.modes
                .learn(base_url, &req.model, mode, "accepted on first use", false);
        }
        let mut usage = answer.usage;
        let mut retries = answer.retries;
        let mut repairs = 0u32;
        let mut conversation = req.messages.clone();
        let mut repair_notes = Vec::new();
        loop {
            let (text, other_calls) = structured_text(&answer.parsed, schema, mode);
            let finish = &answer.parsed.finish_reason;
            match self
                .interpret(&text, schema)
                .map_err(|reason| cut_short(reason, finish))
            {
                Ok((json, mut coercions)) => {
                    repair_notes.append(&mut coercions);
                    let finish_reason = match answer.parsed.finish_reason {
                        // Our own forced tool call is the answer, not a request to run a tool.
                        FinishReason::ToolCalls
                            if mode == StructuredMode::ToolCall && other_calls.is_empty() =>
                        {
                            FinishReason::Stop
                        }
                        other => other,
                    };
                    return Ok(ChatResponse {
                        model: answer.parsed.model.unwrap_or_else(|| req.model.clone()),
                        content: text,
                        json: Some(json),
                        tool_calls: other_calls,
                        finish_reason,
                        usage,
                        retries,
                        repairs,
                        coercions: repair_notes,
                        ..ChatResponse::default()
                    });
                }
                Err(reason) if repairs >= self.cfg.max_repairs => {
                    return Err(LlmError::InvalidOutput {
                        reason,
                        repairs,
                        raw: text,
                        usage,
                        cost_usd: None,
                    });
                }
                Err(reason) => {
                    repairs += 1;
                    bump(&self.stats.repairs);
                    tracing::info!(model = %req.model, repairs, %reason, "structured reply invalid, asking for a repair");
                    repair_notes.push(Coercion {
                        path: String::new(),
                        reason: format!("repair request after: {reason}"),
                    });
                    conversation.push(Message::assistant(text.clone()));
                    conversation.push(Message::user(
                        REPAIR_PROMPT.replace("{reason}", &reason).trim_end(),
                    ));
                    let mut repair_req = req.clone();
                    repair_req.messages.clone_from(&conversation);
                    let wire = provider::build(&self.cfg.provider, &repair_req, Some(mode));
                    answer = match self
                        .send(
                            &repair_req,
                            &wire_messages(&repair_req, &wire),
                            &wire,
                            log.as_deref_mut(),
                            self.cfg.retry.max_retries,
                        )
                        .await
                    {
                        Ok(answer) => answer,
                        // The replies so far were paid for: a repair request that fails for
                        // the transport ends the call as invalid output with their usage (a
                        // fatal error still stops the run).
                        Err(e) if !e.is_fatal() => {
                            return Err(LlmError::InvalidOutput {
                                reason: format!("{reason}; the repair request failed: {e}"),
                                repairs,
                                raw: text,
                                usage,
                                cost_usd: None,
                            });
                        }
                        Err(e) => return Err(e),
                    };
                    usage = Usage {
                        // Saturating: a buggy server's usage must not panic the client.
                        prompt_tokens: usage
                            .prompt_tokens
                            .saturating_add(answer.usage.prompt_tokens),
                        completion_tokens: usage
                            .completion_tokens
                            .saturating_add(answer.usage.completion_tokens),
                        estimated: usage.estimated || answer.usage.estimated,
                    };
                    retries += answer.retries;
                }
            }
        }
    }

    /// Parses, coerces and validates one reply against the caller's original schema.
    fn interpret(
        &self,
        text: &str,
        schema: &OutputSchema,
    ) -> Result<(Value, Vec<Coercion>), String> {
        let (mut value, mut coercions) = parse_tolerant(text)?;
        coercions.extend(coerce_to_schema(&mut value, &schema.schema));
        self.validators
            .validate(&schema.schema, &value)
            .map_err(|e| format!("schema violation: {e}"))?;
        Ok((value, coercions))
    }

    /// One logical request with retries and limits. `prompt` is what the estimate counts;
    /// `server_retries` bounds the retries after a 5xx (a mode probe allows one); other
    /// transient errors get the policy's whole budget.
    async fn send(
        &self,
        req: &ChatRequest,
        prompt: &[Message],
        wire: &WireRequest,
        mut log: Option<&mut Vec<Exchange>>,
        server_retries: u32,
    ) -> Result<Answer, LlmError> {
        let structured = req.output_schema.is_some();
        let body = serde_json::to_vec(&wire.body)
            .map_err(|e| LlmError::Protocol(format!("encoding request: {e}")))?;
        let prompt_estimate = if self.tpm.is_some() {
            count_prompt_tokens(prompt)
        } else {
            0
        };
        let reserve =
            prompt_estimate + req.max_tokens.map_or(DEFAULT_COMPLETION_RESERVE, u64::from);
        let policy = &self.cfg.retry;
        let mut retries = 0u32;
        let mut waited_out = false;
        loop {
            let slot = self.admit().await;
            let reserved = match &self.tpm {
                Some(tpm) => tpm.acquire(reserve).await,
                None => 0,
            };
            let (endpoint, epoch) = match self.route(req.affinity.as_deref(), &req.model).await {
                Ok(routed) => routed,
                Err(e) => {
                    self.refund(reserved);
                    return Err(e);
                }
            };
            let url = self.url_for(endpoint, wire);
            let in_flight = self.fleet.begin(endpoint);
            bump(&self.stats.http_requests);
            let outcome = tokio::select! {
                outcome = self.attempt(&url, wire, body.clone()) => Ok(outcome),
                hung = self.watch(endpoint) => Err(hung),
            };
            drop(in_flight);
            drop(slot);
            if matches!(outcome, Ok(Ok(_))) {
                // Any HTTP reply shows the endpoint alive: a busy server that serves one
                // request at a time (llama-cpp-python) is not probed while its replies come.
                self.fleet.answered(endpoint, std::time::Instant::now());
            }
            let outcome = match outcome {
                Ok(outcome) => outcome,
                Err(message) => {
                    // The endpoint is hung: this attempt is a connection failure, retried
                    // elsewhere or after the breaker's pause (never a failed call by itself).
                    self.refund(reserved);
                    let error = LlmError::Connect {
                        attempts: retries + 1,
                        message,
                    };
                    self.cool_down(endpoint, epoch, &error);
                    if retries >= policy.max_retries {
                        return Err(error);
                    }
                    retries += 1;
                    bump(&self.stats.retries);
                    continue;
                }
            };
            if let Some(log) = log.as_deref_mut() {
                log.push(self.exchange(&url, wire, &outcome));
            }
            match &outcome {
                Ok(reply) if !matches!(reply.status, 408 | 429 | 500..=599) => {
                    self.fleet.succeeded(endpoint, epoch);
                }
                _ => {}
            }
            let attempts = retries + 1;
            let (delay_hint, error) = match outcome {
                Ok(reply) if (200..300).contains(&reply.status) => {
                    let parsed = serde_json::from_slice::<Value>(&reply.body)
                        .map_err(|e| {
                            LlmError::Protocol(self.scrub(format!(
                                "reply is not JSON ({e}): {}",
                                lossy_snippet(&reply.body)
                            )))
                        })
                        .and_then(|value| provider::parse(self.cfg.provider.kind, &value));
                    let parsed = match parsed {
                        Ok(parsed) => parsed,
                        Err(e) => {
                            // Nothing usable came back; the reservation would only slow others.
                            self.refund(reserved);
                            return Err(e);
                        }
                    };
                    let usage = parsed
                        .usage
                        .unwrap_or_else(|| estimate_usage(prompt, &parsed));
                    if let Some(tpm) = &self.tpm {
                        let used = i64::try_from(usage.total()).unwrap_or(i64::MAX);
                        tpm.adjust(
                            i64::try_from(reserved)
                                .unwrap_or(i64::MAX)
                                .saturating_sub(used),
                        );
                    }
                    self.window.on_success();
                    return Ok(Answer {
                        parsed,
                        retries,
                        usage,
                    });
                }
                Ok(reply) => {
                    self.refund(reserved);
                    let message = self.scrub(provider::error_message(&String::from_utf8_lossy(
                        &reply.body,
                    )));
                    let hint = server_delay(&reply.headers, SystemTime::now())
                        .map(|d| d.min(policy.max_server_delay()));
                    match reply.status {
                        401 | 403 => {
                            return Err(LlmError::Auth {
                                status: reply.status,
                                endpoint: endpoint_of(&url),
                                env_var: self.cfg.provider.api_key_env.clone(),
                            });
                        }
                        429 => {
                            bump(&self.stats.rate_limited);
                            self.window.on_rate_limited();
                            (
                                hint,
                                LlmError::RateLimited {
                                    attempts,
                                    retry_after: hint,
                                },
                            )
                        }
                        408 => (hint, LlmError::Timeout { attempts }),
                        // A server that cannot serve the structured-output mode it was asked
                        // for says so in a 5xx (llama-cpp-python): a verdict, not an outage.
                        status @ 500..=599
                            if structured && provider::names_structured_feature(&message) =>
                        {
                            self.fleet.succeeded(endpoint, epoch);
                            return Err(LlmError::Rejected { status, message });
                        }
                        status @ 500..=599 => (
                            hint,
                            LlmError::Server {
                                status,
                                attempts,
                                message,
                            },
                        ),
                        status => return Err(LlmError::Rejected { status, message }),
                    }
                }
                Err(e) => {
                    self.refund(reserved);
                    (None, self.transport_error(&e, attempts))
                }
            };
            // The endpoint is cooled down (in a fleet), so the retry goes elsewhere; the breaker
            // counts what is not a rate limit.
            self.cool_down(endpoint, epoch, &error);
            // A probe's small budget is for 5xx only: a rate limit, a timeout or a refused
            // connection says nothing about the mode and gets the whole budget.
            let limit = match error {
                LlmError::Server { .. } => server_retries,
                _ => policy.max_retries,
            };
            if retries >= limit {
                // The breaker took the endpoint out with this failure: the request waits for a
                // health check (and gets one more try, or ends as `Unavailable`, which leaves
                // its work to do) instead of failing on an outage; once per request, so a
                // server that answers checks but fails every call still ends its calls.
                if !waited_out && self.fleet.is_out(endpoint) {
                    waited_out = true;
                    continue;
                }
                return Err(error);
            }
            // Another healthy endpoint can take the retry at once; the wait is for this one.
            let delay = if self.fleet.has_other_healthy(endpoint) {
                std::time::Duration::ZERO
            } else {
                delay_hint.unwrap_or_else(|| backoff(policy, retries))
            };
            retries += 1;
            bump(&self.stats.retries);
            // Counted for the progress display (`ChatModel::transport`), not a warning: a retry
            // is the transport doing its job.
            tracing::debug!(url = %endpoint_of(&url), retry = retries, delay_ms = delay.as_millis() as u64, error = %error, "retrying");
            tokio::time::sleep(delay).await;
        }
    }

    /// Watches a call in flight to endpoint `index`: once it has waited `liveness_after`, the
    /// endpoint gets a liveness probe (one at a time per endpoint, shared by its calls); returns
    /// why the call is given up when a probe finds the endpoint hung, and never while the
    /// endpoint answers probes (a slow model is left alone).
    async fn watch(&self, index: usize) -> String {
        let every = self.cfg.fleet.liveness_after;
        if every.is_zero() {
            return std::future::pending().await;
        }
        let started = std::time::Instant::now();
        let hangs = self.fleet.hangs(index);
        tokio::time::sleep(every).await;
        let poll = every.min(LIVENESS_POLL);
        loop {
            if self.fleet.hangs(index) != hangs {
                return self.hung_message(index, every);
            }
            if self.fleet.claim_liveness(index, std::time::Instant::now()) {
                let answered = self.liveness_probe(index).await;
                let message = self.hung_message(index, every);
                self.fleet.liveness(
                    index,
                    answered,
                    std::time::Instant::now(),
                    started,
                    &message,
                );
                if !answered {
                    return message;
                }
            }
            tokio::time::sleep(poll).await;
        }
    }

    fn hung_message(&self, index: usize, waited: std::time::Duration) -> String {
        format!(
            "{} is not answering: a call waited {waited:?} with no reply from it, and neither its model list nor its health route answered within {:?}",
            endpoint_of(self.fleet.base_url(index)),
            self.cfg.fleet.health_timeout
        )
    }

    /// A health route's `GET`, as the preflight and the liveness probe both send it: the health
    /// timeout, the endpoint's extra headers and its key.
    fn health_get(&self, url: &str) -> reqwest::RequestBuilder {
        self.authorize(
            self.http
                .get(url)
                .timeout(self.cfg.fleet.health_timeout)
                .headers(self.extra_headers.clone()),
        )
    }

    /// Whether endpoint `index` answers at all within `health_timeout`: `GET {base}/models` or
    /// `GET {root}/health`, asked together. Any HTTP status from either is an answer (the server
    /// is alive); only silence or a broken connection from both is not. The second route matters
    /// for a server that queues its model list behind the generation in progress
    /// (llama-cpp-python): its web server still answers `/health`, if only with a 404.
    async fn liveness_probe(&self, index: usize) -> bool {
        let [models, health] = health_urls(self.fleet.base_url(index));
        let models = self.answers(&models);
        let health = self.answers(&health);
        tokio::pin!(models, health);
        tokio::select! {
            true = &mut models => true,
            true = &mut health => true,
            else => false,
        }
    }

    /// Whether `GET url` gets any HTTP reply within `health_timeout`.
    async fn answers(&self, url: &str) -> bool {
        match self.health_get(url).send().await {
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(url = %endpoint_of(url), error = %self.scrub(error_chain(&e)), "liveness probe got no answer");
                false
            }
        }
    }

    /// The error of an attempt that got no HTTP reply.
    fn transport_error(&self, e: &reqwest::Error, attempts: u32) -> LlmError {
        if e.is_timeout() {
            LlmError::Timeout { attempts }
        } else {
            LlmError::Connect {
                attempts,
                message: self.scrub(error_chain(e)),
            }
        }
    }

    /// Records a failed attempt on `endpoint` (a fleet cools it down).
    fn cool_down(&self, endpoint: usize, epoch: u64, error: &LlmError) {
        self.fleet.failed(
            endpoint,
            epoch,
            std::time::Instant::now(),
            &error.to_string(),
            matches!(error, LlmError::RateLimited { .. }),
        );
    }

    /// A place in the in-flight window, after the RPM limit let one more request go.
    async fn admit(&self) -> crate::limits::Slot {
        let slot = self.window.acquire().await;
        if let Some(rpm) = &self.rpm {
            rpm.acquire(1).await;
        }
        slot
    }

    fn refund(&self, reserved: u64) {
        if let Some(tpm) = &self.tpm {
            tpm.adjust(i64::try_from(reserved).unwrap_or(i64::MAX));
        }
    }

    /// The endpoint a request goes to, with its state epoch; runs the health checks that fall
    /// due on the way (never more than one per endpoint at a time), and waits while every
    /// endpoint is out of the rotation (the circuit breaker, see [`crate::fleet`]).
    ///
    /// # Errors
    /// [`LlmError::Unavailable`] once no endpoint has answered a check within `probe_for`.
    async fn route(&self, affinity: Option<&str>, model: &str) -> Result<(usize, u64), LlmError> {
        loop {
            match self.fleet.pick(affinity, std::time::Instant::now()) {
                Pick::Send { index, epoch } => return Ok((index, epoch)),
                Pick::Check { index } => {
                    let check = self.health_check(index, model).await;
                    if let EndpointCheck::Down(reason) = &check {
                        tracing::debug!(endpoint = %stdx::redact_url(self.fleet.base_url(index)), %reason, "health check failed");
                    }
                    let passed = !matches!(check, EndpointCheck::Down(_));
                    self.fleet.checked(index, passed, std::time::Instant::now());
                }
                Pick::Wait { until } => {
                    tokio::time::sleep_until(Instant::from_std(until)).await;
                }
                Pick::Down { reason } => {
                    return Err(LlmError::Unavailable {
                        endpoints: self.fleet.redacted_urls(),
                        reason,
                    });
                }
            }
        }
    }

    /// Whether endpoint `index` answers: `GET {base}/models`, else `{base without /v1}/health`
    /// (llama.cpp's server), a 2xx from either passing; where neither route is served (a 4xx
    /// other than 401/403), a one-token call of `model`, which passes with any answer but a
    /// 5xx, a 408 or a refused key. A refused connection or a timeout fails at once.
    async fn health_check(&self, index: usize, model: &str) -> EndpointCheck {
        let base = self.fleet.base_url(index);
        let mut server_error = None;
        for url in health_urls(base) {
            match self.health_get(&url).send().await {
                Ok(resp) if resp.status().is_success() => return EndpointCheck::Up,
                Ok(resp) => match resp.status().as_u16() {
                    status @ (401 | 403) => return EndpointCheck::Auth(status),
                    status @ (408 | 500..=599) => {
                        server_error = Some(format!("{} answered {status}", endpoint_of(&url)));
                    }
                    status => {
                        tracing::debug!(url = %endpoint_of(&url), status, "health route not served");
                    }
                },
                Err(e) => return EndpointCheck::Down(self.scrub(error_chain(&e))),
            }
        }
        if let Some(reason) = server_error {
            return EndpointCheck::Down(reason);
        }
        self.one_token_check(index, model).await
    }

    /// A one-token call of `model` at endpoint `index`, for a server that serves neither a
    /// model list nor a health route (it costs a few prompt tokens).
    async fn one_token_check(&self, index: usize, model: &str) -> EndpointCheck {
        let mut req = ChatRequest::new(model, vec![Message::user("ping")]);
        req.max_tokens = Some(1);
        req.no_cache = true;
        let wire = provider::build(&self.cfg.provider, &req, None);
        let body = match serde_json::to_vec(&wire.body) {
            Ok(body) => body,
            Err(e) => return EndpointCheck::Down(format!("encoding the check: {e}")),
        };
        let url = self.url_for(index, &wire);
        bump(&self.stats.http_requests);
        let attempt = tokio::time::timeout(
            self.cfg.fleet.health_timeout,
            self.attempt(&url, &wire, body),
        )
        .await;
        match attempt {
            Err(_) => EndpointCheck::Down(format!(
                "{} did not answer within {:?}",
                endpoint_of(&url),
                self.cfg.fleet.health_timeout
            )),
            Ok(Err(e)) => EndpointCheck::Down(self.scrub(error_chain(&e))),
            Ok(Ok(reply)) => match reply.status {
                status @ (401 | 403) => EndpointCheck::Auth(status),
                status @ (408 | 500..=599) => {
                    EndpointCheck::Down(format!("{} answered {status}", endpoint_of(&url)))
                }
                _ => EndpointCheck::Up,
            },
        }
    }

    /// Checks every endpoint before the first paid call (see [`ChatModel::preflight`]): an
    /// endpoint that does not answer starts out of the rotation (a warning names it), and the
    /// preflight fails when none answers.
    ///
    /// # Errors
    /// [`LlmError::Unavailable`] when no endpoint answers; [`LlmError::Auth`] when one refuses
    /// the key.
    pub async fn check_endpoints(&self, model: &str) -> Result<(), LlmError> {
        let mut down = Vec::new();
        for index in 0..self.fleet.len() {
            let base = self.fleet.base_url(index);
            match self.health_check(index, model).await {
                EndpointCheck::Up => {}
                EndpointCheck::Auth(status) => {
                    return Err(LlmError::Auth {
                        status,
                        endpoint: endpoint_of(base),
                        env_var: self.cfg.provider.api_key_env.clone(),
                    });
                }
                EndpointCheck::Down(reason) => down.push((index, reason)),
            }
        }
        if down.len() == self.fleet.len() {
            let reason = down.pop().map(|(_, r)| r).unwrap_or_default();
            return Err(LlmError::Unavailable {
                endpoints: self.fleet.redacted_urls(),
                reason,
            });
        }
        let now = std::time::Instant::now();
        for (index, reason) in down {
            tracing::warn!(endpoint = %stdx::redact_url(self.fleet.base_url(index)), %reason, "endpoint does not answer; it starts out of the rotation");
            self.fleet.take_out(index, now, &reason);
        }
        Ok(())
    }

    /// The retries, rate limits, cooldowns and breaker pauses so far.
    #[must_use]
    pub fn tally(&self) -> crate::TransportTally {
        use std::sync::atomic::Ordering::Relaxed;
        let (trips, pauses) = self.fleet.breaker_counts();
        crate::TransportTally {
            retries: self.stats.retries.load(Relaxed),
            rate_limited: self.stats.rate_limited.load(Relaxed),
            cooldowns: self.fleet.stats().iter().map(|e| e.cooldowns).sum(),
            trips,
            pauses,
            paused: self.fleet.paused(),
        }
    }

    /// The URL of `wire` at endpoint `index` (a fleet is OpenAI-compatible: one path).
    fn url_for(&self, index: usize, wire: &WireRequest) -> String {
        if self.fleet.len() == 1 {
            wire.url.clone()
        } else {
            provider::endpoint_url(self.fleet.base_url(index), provider::OPENAI_CHAT_PATH, None)
        }
    }

    /// Adds the API key header, marked sensitive.
    fn authorize(&self, mut rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if let Some(ApiKey(key)) = &self.api_key {
            let (name, value) = match self.cfg.provider.kind {
                ProviderKind::OpenAi => ("authorization", format!("Bearer {key}")),
                ProviderKind::Azure => ("api-key", key.clone()),
                ProviderKind::Anthropic => ("x-api-key", key.clone()),
            };
            if let Ok(mut value) = HeaderValue::from_str(&value) {
                value.set_sensitive(true);
                rb = rb.header(name, value);
            }
        }
        rb
    }

    /// Sends one HTTP request with credentials.
    async fn attempt(
        &self,
        url: &str,
        wire: &WireRequest,
        body: Vec<u8>,
    ) -> Result<RawReply, reqwest::Error> {
        let mut rb = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .headers(self.extra_headers.clone())
            .body(body);
        for (name, value) in &wire.headers {
            rb = rb.header(*name, value);
        }
        let resp = self.authorize(rb).send().await?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.bytes().await?.to_vec();
        Ok(RawReply {
            status,
            headers,
            body,
        })
    }

    /// The recorded form of one attempt, with credentials redacted.
    fn exchange(
        &self,
        url: &str,
        wire: &WireRequest,
        outcome: &Result<RawReply, reqwest::Error>,
    ) -> Exchange {
        let mut headers = BTreeMap::new();
        headers.insert("content-type".to_owned(), "application/json".to_owned());
        for (name, value) in &self.cfg.provider.headers {
            let shown = if is_secret_header(name) {
                REDACTED.to_owned()
            } else {
                value.clone()
            };
            headers.insert(name.to_ascii_lowercase(), shown);
        }
        for (name, value) in &wire.headers {
            headers.insert((*name).to_owned(), value.clone());
        }
        if self.api_key.is_some() {
            let name = match self.cfg.provider.kind {
                ProviderKind::OpenAi => "authorization",
                ProviderKind::Azure => "api-key",
                ProviderKind::Anthropic => "x-api-key",
            };
            headers.insert(name.to_owned(), REDACTED.to_owned());
        }
        let (status, response) = match outcome {
            Ok(reply) => {
                let text = self.scrub(String::from_utf8_lossy(&reply.body).into_owned());
                (
                    Some(reply.status),
                    serde_json::from_str(&text).unwrap_or(Value::String(text)),
                )
            }
            Err(e) => (None, Value::String(self.scrub(error_chain(e)))),
        };
        let request = serde_json::from_str(&self.scrub(wire.body.to_string()))
            .unwrap_or_else(|_| wire.body.clone());
        Exchange {
            url: url.to_owned(),
            headers,
            request,
            status,
            response,
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // The end of a run: what each endpoint of a fleet did.
        for e in self.fleet.stats() {
            tracing::info!(
                endpoint = %e.base_url,
                requests = e.requests,
                failures = e.failures,
                cooldowns = e.cooldowns,
                health_checks = e.health_checks,
                "endpoint totals"
            );
        }
    }
}

/// Every base URL of `cfg`, checked: each parses, none twice, several only for an
/// OpenAI-compatible provider, no `user:password@` beside an API key.
fn check_base_urls(cfg: &ClientConfig, has_key: bool) -> Result<Vec<String>, LlmError> {
    let urls: Vec<String> = cfg.provider.base_urls().map(str::to_owned).collect();
    if urls.len() > 1 && cfg.provider.kind != ProviderKind::OpenAi {
        return Err(LlmError::Config(format!(
            "several base URLs are a fleet of OpenAI-compatible servers (vLLM, llama.cpp); \
             provider {} takes one",
            cfg.provider.kind.as_str()
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    for base_url in &urls {
        let url = reqwest::Url::parse(base_url).map_err(|e| {
            LlmError::Config(format!(
                "invalid base URL {:?}: {e}",
                stdx::redact_url(base_url)
            ))
        })?;
        if !seen.insert(crate::fleet::normalize(base_url)) {
            return Err(LlmError::Config(format!(
                "the base URL {} is given twice",
                stdx::redact_url(base_url)
            )));
        }
        // The URL's `user:password@` becomes HTTP basic authentication, which takes the
        // `Authorization` header the API key needs: with both, the key would silently never
        // be sent.
        if has_key && (!url.username().is_empty() || url.password().is_some()) {
            return Err(LlmError::Config(format!(
                "the base URL {} carries user:password@ credentials and ${} holds an API key; \
                 both would need the Authorization header, so the key would never be sent: \
                 keep one (drop the credentials from the URL, or unset the key variable)",
                stdx::redact_url(base_url),
                cfg.provider.api_key_env
            )));
        }
    }
    Ok(urls)
}

/// The health-check URLs of an endpoint: `{base}/models`, then `{base without /v1}/health`.
fn health_urls(base_url: &str) -> [String; 2] {
    let (base, query) = match base_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (base_url, None),
    };
    let base = base.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base);
    let root = match query {
        Some(q) => format!("{root}?{q}"),
        None => root.to_owned(),
    };
    [
        provider::endpoint_url(base_url, "models", None),
        provider::endpoint_url(&root, "health", None),
    ]
}

impl ChatModel for Client {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        let span = tracing::debug_span!("llm_call", model = %req.model, provider = self.cfg.provider.kind.as_str());
        Box::pin(self.call(req).instrument(span))
    }

    fn embed(
        &self,
        req: embeddings::EmbeddingRequest,
    ) -> BoxFuture<'_, Result<embeddings::EmbeddingResponse, LlmError>> {
        let span = tracing::debug_span!("llm_embed", model = %req.model);
        Box::pin(self.embed_call(req).instrument(span))
    }
    fn preflight<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Result<(), LlmError>> {
        Box::pin(self.check_endpoints(model))
    }

    fn transport(&self) -> Option<crate::TransportTally> {
        Some(self.tally())
    }
}

/// What a health check found.
enum EndpointCheck {
    /// The endpoint answers.
    Up,
    /// It refused the key (401/403): not an outage, a configuration to fix.
    Auth(u16),
    /// It does not answer, and why.
    Down(String),
}

/// The messages a wire request actually carries (with any schema instruction), for estimates.
fn wire_messages(req: &ChatRequest, wire: &WireRequest) -> Vec<Message> {
    // The schema instruction is part of the prompt the server counts; approximate it by adding
    // the serialized schema as one more message when the body has grown beyond the messages.
    match (&req.output_schema, wire.body.get("response_format")) {
        (Some(schema), None) if !wire.body.get("tools").is_some_and(Value::is_array) => {
            let mut m = req.messages.clone();
            m.push(Message::system(schema.schema.to_string()));
            m
        }
        _ => req.messages.clone(),
    }
}

/// The JSON text of a structured reply and the tool calls that are not our synthetic one.
pub(crate) fn structured_text(
    parsed: &Parsed,
    schema: &OutputSchema,
    mode: StructuredMode,
) -> (String, Vec<crate::ToolCall>) {
    if mode == StructuredMode::ToolCall {
        let idx = parsed
            .tool_calls
            .iter()
            .position(|c| c.name == schema.name)
            .or_else(|| (parsed.tool_calls.len() == 1).then_some(0));
        if let Some(idx) = idx {
            let mut others = parsed.tool_calls.clone();
            let call = others.remove(idx);
            let text = match call.arguments {
                Value::String(s) => s,
                other => other.to_string(),
            };
            return (text, others);
        }
    }
    (parsed.content.clone(), parsed.tool_calls.clone())
}

pub(crate) fn estimate_usage(prompt: &[Message], parsed: &Parsed) -> Usage {
    let completion = count_tokens(&parsed.content)
        + parsed
            .tool_calls
            .iter()
            .map(|c| count_tokens(&c.arguments.to_string()))
            .sum::<u64>();
    Usage {
        prompt_tokens: count_prompt_tokens(prompt),
        completion_tokens: completion,
        estimated: true,
    }
}

/// Scheme, host and path of a URL, without the query string or user information.
fn endpoint_of(url: &str) -> String {
    stdx::redact_url(url.split('?').next().unwrap_or(url))
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn lossy_snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.into_owned(),
    }
}

/// The error with its sources, because reqwest's top-level message hides the cause.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// An invalid structured reply's reason, saying so when the server cut the reply at its token
/// limit (`finish_reason: "length"`): the JSON was not wrong, it was unfinished, and the repair
/// request then asks for a shorter answer rather than for other JSON.
fn cut_short(reason: String, finish: &FinishReason) -> String {
    if *finish == FinishReason::Length {
        format!(
            "the reply was cut at max_tokens before the JSON was complete ({reason}); answer shorter"
        )
    } else {
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_cut_at_the_token_limit_says_so() {
        let cut = cut_short("EOF while parsing a string".into(), &FinishReason::Length);
        assert!(cut.starts_with("the reply was cut at max_tokens"), "{cut}");
        assert!(cut.contains("EOF while parsing a string"), "{cut}");
        let whole = cut_short("schema violation: x".into(), &FinishReason::Stop);
        assert_eq!(whole, "schema violation: x");
    }

    #[test]
    fn client_is_shareable_and_debug_hides_the_key() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Client>();
        let client = Client::with_api_key(
            ClientConfig::openai_compatible("http://127.0.0.1:9/v1"),
            "sk-secret-123",
        )
        .expect("valid config");
        let debug = format!("{client:?}");
        assert!(!debug.contains("sk-secret-123"), "{debug}");
        assert!(debug.contains("[redacted]"), "{debug}");
    }

    #[test]
    fn invalid_config_is_reported_without_values() {
        let mut cfg = ClientConfig::openai_compatible("not a url");
        assert!(matches!(Client::new(cfg.clone()), Err(LlmError::Config(_))));
        cfg.provider.base_url = "http://localhost:1/v1".into();
        cfg.provider
            .headers
            .insert("x-api-key".into(), "bad\nsecret".into());
        let err = Client::new(cfg).expect_err("bad header value").to_string();
        assert!(!err.contains("secret"), "{err}");
    }

    #[test]
    fn url_credentials_and_an_api_key_are_refused_together() {
        let cfg = ClientConfig::openai_compatible("http://alice:PASSW0RD@127.0.0.1:1/v1");
        let err = Client::with_api_key(cfg.clone(), "sk-SEKRET").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("user:password@"), "{text}");
        assert!(
            !text.contains("PASSW0RD") && !text.contains("SEKRET"),
            "{text}"
        );
        Client::with_api_key(cfg, "").expect("URL credentials alone are basic auth");
    }

    #[test]
    fn several_base_urls_are_checked() {
        let mut cfg = ClientConfig::openai_compatible("http://127.0.0.1:9/v1");
        cfg.provider.extra_base_urls = vec!["http://127.0.0.2:9/v1".into()];
        Client::new(cfg.clone()).expect("two distinct endpoints");
        cfg.provider.extra_base_urls = vec!["http://127.0.0.1:9/v1/".into()];
        let err = Client::new(cfg.clone()).unwrap_err().to_string();
        assert!(err.contains("given twice"), "{err}");
        cfg.provider.extra_base_urls = vec!["http://k:SECRET@h/v1".into()];
        let err = Client::with_api_key(cfg.clone(), "sk-1")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("user:password@") && !err.contains("SECRET"),
            "{err}"
        );
        cfg.provider.extra_base_urls = vec!["http://127.0.0.2:9/v1".into()];
        cfg.provider.kind = ProviderKind::Anthropic;
        let err = Client::new(cfg).unwrap_err().to_string();
        assert!(err.contains("provider anthropic takes one"), "{err}");
    }

    #[test]
    fn health_urls_try_models_then_the_server_root() {
        assert_eq!(
            health_urls("http://h:8080/v1/"),
            ["http://h:8080/v1/models", "http://h:8080/health"]
        );
        assert_eq!(
            health_urls("http://h/v1?key=k"),
            ["http://h/v1/models?key=k", "http://h/health?key=k"]
        );
        assert_eq!(
            health_urls("http://h/api"),
            ["http://h/api/models", "http://h/api/health"]
        );
    }

    #[test]
    fn endpoint_drops_the_query() {
        assert_eq!(
            endpoint_of("https://r/openai/deployments/d/chat/completions?api-version=1"),
            "https://r/openai/deployments/d/chat/completions"
        );
    }
}
