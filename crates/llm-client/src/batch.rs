//! The OpenAI Batch API: submit many chat requests as one file, poll, read the replies back.
//!
//! [`BatchClient`] owns the provider side of batch mode and nothing else: it encodes requests as
//! JSONL lines with a `custom_id` (the body is built by the same wire code as online calls, in
//! the forced structured-output mode, else the one remembered for the endpoint and model in the
//! online client's modes file, else the provider's first), uploads the file to `/v1/files`
//! (`purpose=batch`), creates the batch on `/v1/batches` (`completion_window: 24h`), reads its
//! status, and downloads the output and error files through `/v1/files/{id}/content`. Replies
//! are parsed, coerced and schema-validated by the same functions as online replies; a batch
//! cannot hold a conversation, so there is no repair round: an invalid reply is
//! [`LlmError::InvalidOutput`] and the caller decides whether to ask again. An item the server
//! rejects for its structured mode (as online negotiation recognises it) comes back retryable
//! and the mode after it is learnt (and written to the modes file), so the next wave asks in it. Which scenario a
//! request belongs to, waves and resuming are the caller's business (the agents crate).
//!
//! Only the OpenAI provider kind is supported: Azure and Anthropic batch APIs differ in routes
//! and file formats.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::client::{estimate_usage, structured_text};
use crate::modes::ModeMemory;
use crate::provider;
use crate::retry::backoff;
use crate::structured::{StructuredMode, Validators, coerce_to_schema, parse_tolerant};
use crate::{ChatRequest, ChatResponse, ClientConfig, FinishReason, LlmError, ProviderKind};

/// The provider's per-file limit on requests.
pub const MAX_BATCH_REQUESTS: usize = 50_000;
/// The provider's per-file limit on bytes.
pub const MAX_BATCH_BYTES: usize = 200 * 1024 * 1024;
/// Bytes per batch file by default: below the provider's limit, so that a wave's file, which
/// is held in memory while it is uploaded, keeps the run's memory small; a wave larger than this
/// is simply several batches, which the provider runs side by side.
pub const DEFAULT_BATCH_BYTES: usize = 8 * 1024 * 1024;

/// How batches are submitted and priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BatchConfig {
    /// Factor applied to the online price table (the provider charges half for batches).
    pub price_factor: f64,
    /// Longest wait between two status polls of a running batch.
    #[serde(with = "stdx::duration_serde")]
    pub poll_interval: Duration,
    /// First wait between polls; it doubles up to `poll_interval`, so short batches are
    /// noticed quickly and long ones are not polled needlessly.
    #[serde(with = "stdx::duration_serde")]
    pub first_poll: Duration,
    /// `completion_window` sent when creating a batch.
    pub completion_window: String,
    /// Most requests per batch file (at most [`MAX_BATCH_REQUESTS`]).
    pub max_requests: usize,
    /// Most bytes per batch file (at most [`MAX_BATCH_BYTES`]; default [`DEFAULT_BATCH_BYTES`]).
    pub max_bytes: usize,
}

impl Default for BatchConfig {
    fn default() -> Self {
        Self {
            price_factor: 0.5,
            poll_interval: Duration::from_secs(30),
            first_poll: Duration::from_millis(50),
            completion_window: "24h".to_owned(),
            max_requests: MAX_BATCH_REQUESTS,
            max_bytes: DEFAULT_BATCH_BYTES,
        }
    }
}

/// The lifecycle state of a batch, as the provider names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchState {
    /// The input file is being checked.
    Validating,
    /// The input file was refused; no request ran.
    Failed,
    /// Requests are running.
    InProgress,
    /// Output files are being written.
    Finalizing,
    /// Done; output and error files are ready.
    Completed,
    /// The completion window passed; finished requests are in the output file.
    Expired,
    /// Being cancelled.
    Cancelling,
    /// Cancelled; finished requests are in the output file.
    Cancelled,
}

impl BatchState {
    /// True when the batch will not change any more.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::Failed | Self::Completed | Self::Expired | Self::Cancelled
        )
    }
}

/// What the provider says about one batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchStatus {
    /// Batch id (`batch_…`).
    pub id: String,
    /// Lifecycle state.
    pub status: BatchState,
    /// The uploaded input file.
    #[serde(default)]
    pub input_file_id: Option<String>,
    /// Replies (status 200 and other statuses the model endpoint returned).
    #[serde(default)]
    pub output_file_id: Option<String>,
    /// Requests that failed or expired.
    #[serde(default)]
    pub error_file_id: Option<String>,
    /// The tag the batch was created with ([`BatchClient::submit`]), if any.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
}

/// A page of `GET /v1/batches`.
#[derive(Debug, Deserialize)]
struct BatchPage {
    #[serde(default)]
    data: Vec<BatchStatus>,
    #[serde(default)]
    has_more: bool,
}

/// Pages of `GET /v1/batches` (100 batches each) [`BatchClient::find_batch`] reads at most:
/// the account's 5,000 newest batches. A batch created by a crashed run is among the newest.
pub const FIND_MAX_PAGES: usize = 50;

/// One request of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchItem {
    /// Unique within the batch; the caller maps it back to its call.
    pub custom_id: String,
    /// The request, as it would be sent online.
    pub request: ChatRequest,
}

/// What became of one request of a finished batch.
#[derive(Debug)]
pub enum ItemReply {
    /// A final answer: a valid reply, or an error asking again will not fix at the transport
    /// (a rejected request, or invalid output, which the caller may re-ask with a new prompt).
    Answered(Result<ChatResponse, LlmError>),
    /// A transient failure (server error, rate limit, expiry, missing from the files): the same
    /// request may be submitted again.
    Retryable(LlmError),
}

/// A request's custom id with what became of it.
#[derive(Debug)]
pub struct ItemResult {
    /// The request's `custom_id`.
    pub custom_id: String,
    /// Its reply.
    pub reply: ItemReply,
}

/// What a terminal batch's files said.
#[derive(Debug, Default)]
pub struct BatchResults {
    /// One per `custom_id` the caller asked about.
    pub items: Vec<ItemResult>,
    /// Result lines (`custom_id`, the line) for ids the caller did not ask about: the calls of
    /// scenarios a resumed run has not taken up yet; read them later with
    /// [`BatchClient::read_result_line`].
    pub unclaimed: Vec<(String, String)>,
}

/// An API key; `Debug` never shows it.
struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The Batch API client. See the module docs.
pub struct BatchClient {
    cfg: ClientConfig,
    batch: BatchConfig,
    http: reqwest::Client,
    api_key: Option<Secret>,
    /// `/v1/chat/completions`-style path written into every line.
    line_url: String,
    validators: Validators,
    /// The structured modes learnt per endpoint and model (the online client's file).
    modes: ModeMemory,
    /// The mode the latest lines for each model were encoded in: the mode a rejection rejects.
    encoded: Mutex<HashMap<String, StructuredMode>>,
    /// The response cache the online client uses (same directory, same keys): a batch answers
    /// what an online run (or an earlier batch) already paid for, and feeds it in turn.
    cache: Option<crate::cache::DiskCache>,
}

impl fmt::Debug for BatchClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchClient")
            .field("base_url", &self.cfg.provider.base_url)
            .field("api_key", &self.api_key)
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

/// Refuses a configuration with several base URLs: a batch lives at one provider, which holds
/// its files and its results.
///
/// # Errors
/// [`LlmError::Config`] when `cfg` names more than one endpoint.
pub fn check_one_endpoint(cfg: &ClientConfig) -> Result<(), LlmError> {
    if cfg.provider.extra_base_urls.is_empty() {
        Ok(())
    } else {
        Err(LlmError::Config(
            "the Batch API talks to one provider: give one base URL with --batch (several are \
             for online runs over a fleet of servers)"
                .to_owned(),
        ))
    }
}

impl BatchClient {
    /// Builds a client, reading the API key from the configured environment variable.
    ///
    /// # Errors
    /// [`LlmError::Config`] for a provider other than OpenAI, several base URLs
    /// ([`check_one_endpoint`]), an invalid base URL or limits above the provider's.
    pub fn new(cfg: ClientConfig, batch: BatchConfig) -> Result<Self, LlmError> {
        let key = std::env::var(&cfg.provider.api_key_env)
            .ok()
            .filter(|k| !k.trim().is_empty());
        Self::build(cfg, batch, key)
    }

    /// Builds a client with an explicit API key (empty means none).
    ///
    /// # Errors
    /// As [`BatchClient::new`].
    pub fn with_api_key(
        cfg: ClientConfig,
        batch: BatchConfig,
        key: impl Into<String>,
    ) -> Result<Self, LlmError> {
        let key: String = key.into();
        Self::build(cfg, batch, (!key.trim().is_empty()).then_some(key))
    }

    fn build(cfg: ClientConfig, batch: BatchConfig, key: Option<String>) -> Result<Self, LlmError> {
        check_one_endpoint(&cfg)?;
        if cfg.provider.kind != ProviderKind::OpenAi {
            return Err(LlmError::Config(format!(
                "batch mode supports the openai provider only, not {}",
                cfg.provider.kind.as_str()
            )));
        }
        if batch.max_requests == 0
            || batch.max_requests > MAX_BATCH_REQUESTS
            || batch.max_bytes == 0
            || batch.max_bytes > MAX_BATCH_BYTES
        {
            return Err(LlmError::Config(format!(
                "batch limits must be within 1..={MAX_BATCH_REQUESTS} requests and 1..={MAX_BATCH_BYTES} bytes"
            )));
        }
        let probe = ChatRequest::new("probe", Vec::new());
        let wire = provider::build(&cfg.provider, &probe, None);
        let url = reqwest::Url::parse(&wire.url).map_err(|e| {
            LlmError::Config(format!(
                "invalid base URL {:?}: {e}",
                stdx::redact_url(&cfg.provider.base_url)
            ))
        })?;
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.provider.connect_timeout)
            .read_timeout(cfg.provider.read_timeout)
            .build()
            .map_err(|e| LlmError::Config(format!("HTTP client: {e}")))?;
        Ok(Self {
            line_url: url.path().to_owned(),
            http,
            api_key: key.map(Secret),
            validators: Validators::default(),
            modes: ModeMemory::load(cfg.modes_file.clone()),
            encoded: Mutex::new(HashMap::new()),
            cache: cfg.cache_dir.clone().map(crate::cache::DiskCache::new),
            batch,
            cfg,
        })
    }

    /// The cache key of `req`: the online client's for the same single endpoint.
    fn cache_key(&self, req: &ChatRequest) -> Option<String> {
        (self.cache.is_some() && !req.no_cache).then(|| {
            crate::cache::cache_key(
                crate::fleet::normalize(&self.cfg.provider.base_url),
                self.cfg.provider.kind,
                req,
            )
        })
    }

    /// The cached reply to `req` (an online run's or an earlier batch's), marked cached and
    /// free, or `None` when the cache is off, bypassed for the request, or has no entry.
    pub async fn cached(&self, req: &ChatRequest) -> Option<ChatResponse> {
        let (cache, key) = (self.cache.as_ref()?, self.cache_key(req)?);
        let mut hit = cache.get(&key).await?;
        tracing::debug!(model = %req.model, "batch call answered from the response cache");
        hit.cached = true;
        hit.cost_usd = Some(0.0);
        hit.retries = 0;
        hit.repairs = 0;
        hit.latency_ms = 0;
        Some(hit)
    }

    /// Stores a batch item's reply in the response cache (when it is on), so a later run — online
    /// or batch — does not pay for the same request again. A cache that cannot be written is a
    /// warning, never a failed call.
    pub async fn remember(&self, req: &ChatRequest, resp: &ChatResponse) {
        if resp.cached {
            return;
        }
        if let (Some(cache), Some(key)) = (self.cache.as_ref(), self.cache_key(req))
            && let Err(e) = cache.put(&key, resp, None).await
        {
            tracing::warn!(error = %e, "batch reply not cached");
        }
    }

    /// The batch settings.
    #[must_use]
    pub fn batch_config(&self) -> &BatchConfig {
        &self.batch
    }

    /// The structured mode of requests to `model`: the forced one, else the one remembered for
    /// this endpoint and model (learnt online or by an earlier wave), else the provider's first.
    #[must_use]
    pub fn mode_for(&self, model: &str) -> StructuredMode {
        self.cfg
            .structured_mode
            .or_else(|| self.modes.get(&self.cfg.provider.base_url, model))
            .unwrap_or_else(|| provider::initial_mode(self.cfg.provider.kind))
    }

    /// The mode requests to `model` were sent in: the latest encoding's, else (lines encoded by
    /// an earlier process) the current one, kept so that every reply of one batch reads alike.
    fn encoded_mode(&self, model: &str) -> StructuredMode {
        *self
            .encoded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(model.to_owned())
            .or_insert_with(|| self.mode_for(model))
    }

    /// The JSONL line (without newline) submitting `item`: the online wire body under `body`.
    ///
    /// # Errors
    /// [`LlmError::Protocol`] when the body cannot be encoded.
    pub fn encode_line(&self, item: &BatchItem) -> Result<String, LlmError> {
        let mode = self.mode_for(&item.request.model);
        self.encoded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(item.request.model.clone(), mode);
        let wire = provider::build(&self.cfg.provider, &item.request, Some(mode));
        let line = json!({
            "custom_id": item.custom_id,
            "method": "POST",
            "url": self.line_url,
            "body": wire.body,
        });
        serde_json::to_string(&line)
            .map_err(|e| LlmError::Protocol(format!("encoding a batch line: {e}")))
    }

    /// Uploads `lines` as one file and creates a batch over it, tagged with `metadata` (at most
    /// 16 pairs, as OpenAI allows) so that [`BatchClient::find_batch`] can find it again.
    ///
    /// # Errors
    /// Transport errors after the retry policy, or [`LlmError::Protocol`] for replies without
    /// the expected ids.
    pub async fn submit(
        &self,
        lines: &[String],
        metadata: &BTreeMap<String, String>,
    ) -> Result<BatchStatus, LlmError> {
        // The boundary is a hash of the lines: it cannot occur in them. The body is built
        // once and shared by every retry (a batch file is up to `max_bytes`).
        let mut hasher = blake3::Hasher::new();
        let mut content_len = 0usize;
        for line in lines {
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
            content_len += line.len() + 1;
        }
        let boundary = format!("scenario-engine-{}", &hasher.finalize().to_hex()[..32]);
        let body = multipart_body(&boundary, lines, content_len);
        let file = self
            .send(
                reqwest::Method::POST,
                "files",
                Some((format!("multipart/form-data; boundary={boundary}"), body)),
            )
            .await?;
        let file: Value = json_of(&file)?;
        let file_id = file
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| LlmError::Protocol(format!("file upload without an id: {file}")))?;
        let mut create = json!({
            "input_file_id": file_id,
            "endpoint": self.line_url,
            "completion_window": self.batch.completion_window,
        });
        if !metadata.is_empty() {
            create["metadata"] = json!(metadata);
        }
        let status = self
            .create_batch(bytes::Bytes::from(create.to_string()), metadata)
            .await?;
        tracing::info!(batch = %status.id, requests = lines.len(), bytes = content_len, "batch submitted");
        Ok(status)
    }

    /// `POST /v1/batches`, never twice for one tag: a transient failure may hide a batch the
    /// provider did create, so before each retry the tagged batch is looked up first.
    async fn create_batch(
        &self,
        body: bytes::Bytes,
        tag: &BTreeMap<String, String>,
    ) -> Result<BatchStatus, LlmError> {
        let policy = &self.cfg.retry;
        let mut retries = 0u32;
        loop {
            let body = Some(("application/json".to_owned(), body.clone()));
            match self
                .send_with_retries(reqwest::Method::POST, "batches", body, 0)
                .await
            {
                Ok(created) => {
                    return serde_json::from_slice(&created)
                        .map_err(|e| LlmError::Protocol(format!("batch creation reply: {e}")));
                }
                Err(e) if e.is_transient() && retries < policy.max_retries => {
                    if !tag.is_empty()
                        && let Some(found) = self.find_batch(tag).await?
                    {
                        tracing::info!(batch = %found.id, error = %e, "the batch was created despite the error");
                        return Ok(found);
                    }
                    let delay = backoff(policy, retries);
                    retries += 1;
                    tracing::warn!(retry = retries, error = %e, "creating a batch failed, retrying");
                    tokio::time::sleep(delay).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The newest batch whose metadata holds every pair of `tag`, among the account's
    /// [`FIND_MAX_PAGES`] newest pages of batches: how a run that crashed between creating a
    /// batch and recording it finds that batch instead of creating it again.
    ///
    /// # Errors
    /// Transport errors after the retry policy, or an unreadable page.
    pub async fn find_batch(
        &self,
        tag: &BTreeMap<String, String>,
    ) -> Result<Option<BatchStatus>, LlmError> {
        let mut after: Option<String> = None;
        for _ in 0..FIND_MAX_PAGES {
            let path = match &after {
                Some(id) => format!("batches?limit=100&after={id}"),
                None => "batches?limit=100".to_owned(),
            };
            let raw = self.send(reqwest::Method::GET, &path, None).await?;
            let page: BatchPage = serde_json::from_slice(&raw)
                .map_err(|e| LlmError::Protocol(format!("batch list: {e}")))?;
            if let Some(found) = page
                .data
                .iter()
                .find(|b| tag.iter().all(|(k, v)| b.metadata.get(k) == Some(v)))
            {
                return Ok(Some(found.clone()));
            }
            match page.data.last() {
                Some(last) if page.has_more => after = Some(last.id.clone()),
                _ => return Ok(None),
            }
        }
        tracing::warn!(
            pages = FIND_MAX_PAGES,
            "no tagged batch among the newest batches; assuming it was never created"
        );
        Ok(None)
    }

    /// The current status of batch `id`.
    ///
    /// # Errors
    /// Transport errors after the retry policy, or an unreadable reply.
    pub async fn status(&self, id: &str) -> Result<BatchStatus, LlmError> {
        let raw = self
            .send(reqwest::Method::GET, &format!("batches/{id}"), None)
            .await?;
        serde_json::from_slice(&raw).map_err(|e| LlmError::Protocol(format!("batch status: {e}")))
    }

    /// Reads the replies of a terminal batch. `requests` maps every `custom_id` the caller
    /// wants a reply for to its request (for schema validation and usage estimates); such an id
    /// that appears in neither file comes back as [`ItemReply::Retryable`]. Lines of other ids
    /// come back unread in [`BatchResults::unclaimed`].
    ///
    /// # Errors
    /// When a file cannot be downloaded (transport errors after the retry policy).
    pub async fn results(
        &self,
        status: &BatchStatus,
        requests: &HashMap<String, &ChatRequest>,
    ) -> Result<BatchResults, LlmError> {
        let mut seen: BTreeMap<String, ItemReply> = BTreeMap::new();
        let mut unclaimed = Vec::new();
        for file in [&status.output_file_id, &status.error_file_id]
            .into_iter()
            .flatten()
        {
            let raw = self
                .send(reqwest::Method::GET, &format!("files/{file}/content"), None)
                .await?;
            for line in String::from_utf8_lossy(&raw).lines() {
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Value>(line) {
                    Ok(v) => {
                        let Some(id) = v.get("custom_id").and_then(Value::as_str) else {
                            tracing::warn!(batch = %status.id, "a result line without custom_id");
                            continue;
                        };
                        match requests.get(id) {
                            Some(request) => {
                                seen.insert(id.to_owned(), self.read_line(&v, request));
                            }
                            None => unclaimed.push((id.to_owned(), line.to_owned())),
                        }
                    }
                    Err(e) => {
                        tracing::warn!(batch = %status.id, error = %e, "an unreadable result line");
                    }
                }
            }
        }
        let why = match status.status {
            BatchState::Failed => "the batch failed validation",
            BatchState::Expired => "the batch expired before this request ran",
            BatchState::Cancelled => "the batch was cancelled before this request ran",
            _ => "the request is missing from the batch's result files",
        };
        let mut items: Vec<ItemResult> = Vec::with_capacity(requests.len());
        for id in requests.keys() {
            let reply = seen.remove(id).unwrap_or_else(|| {
                ItemReply::Retryable(LlmError::Server {
                    status: 0,
                    attempts: 1,
                    message: why.to_owned(),
                })
            });
            items.push(ItemResult {
                custom_id: id.clone(),
                reply,
            });
        }
        Ok(BatchResults { items, unclaimed })
    }

    /// A result line kept unread ([`BatchResults::unclaimed`]), read now that its request is
    /// known.
    #[must_use]
    pub fn read_result_line(&self, line: &str, request: &ChatRequest) -> ItemReply {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => self.read_line(&v, request),
            Err(e) => ItemReply::Retryable(LlmError::Protocol(format!(
                "an unreadable stored result line: {e}"
            ))),
        }
    }

    /// One line of an output or error file.
    fn read_line(&self, line: &Value, request: &ChatRequest) -> ItemReply {
        if let Some(err) = line.get("error").filter(|e| !e.is_null()) {
            let code = err.get("code").and_then(Value::as_str).unwrap_or("error");
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message");
            return ItemReply::Retryable(LlmError::Server {
                status: 0,
                attempts: 1,
                message: format!("{code}: {message}"),
            });
        }
        let response = line.get("response").unwrap_or(&Value::Null);
        let status = response
            .get("status_code")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(0);
        let body = response.get("body").unwrap_or(&Value::Null);
        if status != 200 {
            let message = provider::error_message(&body.to_string());
            if request.output_schema.is_some()
                && self.cfg.structured_mode.is_none()
                && provider::rejects_structured_mode(status, &message)
                && let Some(next) = self.encoded_mode(&request.model).next()
            {
                // Negotiation, batch style: the next wave asks in the next mode.
                tracing::warn!(model = %request.model, mode = next.as_str(), %message, "the server rejected the structured mode; the next wave uses the next one");
                // Once per rejected mode, however many items of the batch were rejected.
                if self.mode_for(&request.model) != next {
                    self.modes.learn(
                        &self.cfg.provider.base_url,
                        &request.model,
                        next,
                        &format!("batch item answered {status}: {message}"),
                        true,
                    );
                }
                return ItemReply::Retryable(LlmError::Server {
                    status,
                    attempts: 1,
                    message,
                });
            }
            return match status {
                429 => ItemReply::Retryable(LlmError::RateLimited {
                    attempts: 1,
                    retry_after: None,
                }),
                408 => ItemReply::Retryable(LlmError::Timeout { attempts: 1 }),
                400..=499 => ItemReply::Answered(Err(LlmError::Rejected { status, message })),
                _ => ItemReply::Retryable(LlmError::Server {
                    status,
                    attempts: 1,
                    message,
                }),
            };
        }
        ItemReply::Answered(self.read_reply(body, request))
    }

    /// A 200 body: parsed and, for structured requests, validated as online.
    fn read_reply(&self, body: &Value, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let parsed = provider::parse(self.cfg.provider.kind, body)?;
        let usage = parsed
            .usage
            .unwrap_or_else(|| estimate_usage(&req.messages, &parsed));
        let model = parsed.model.clone().unwrap_or_else(|| req.model.clone());
        let cost_usd = self
            .cfg
            .prices
            .cost(&req.model, &usage)
            .or_else(|| self.cfg.prices.cost(&model, &usage))
            .map(|c| c * self.batch.price_factor);
        let Some(schema) = &req.output_schema else {
            return Ok(ChatResponse {
                model,
                content: parsed.content,
                tool_calls: parsed.tool_calls,
                finish_reason: parsed.finish_reason,
                usage,
                cost_usd,
                ..ChatResponse::default()
            });
        };
        let mode = self.encoded_mode(&req.model);
        let (text, other_calls) = structured_text(&parsed, schema, mode);
        let interpreted = parse_tolerant(&text).and_then(|(mut value, mut coercions)| {
            coercions.extend(coerce_to_schema(&mut value, &schema.schema));
            self.validators
                .validate(&schema.schema, &value)
                .map_err(|e| format!("schema violation: {e}"))?;
            Ok((value, coercions))
        });
        match interpreted {
            Ok((json, coercions)) => Ok(ChatResponse {
                model,
                content: text,
                json: Some(json),
                tool_calls: other_calls,
                finish_reason: match parsed.finish_reason {
                    FinishReason::ToolCalls => FinishReason::Stop,
                    other => other,
                },
                usage,
                coercions,
                cost_usd,
                ..ChatResponse::default()
            }),
            Err(reason) => Err(LlmError::InvalidOutput {
                reason,
                repairs: 0,
                raw: text,
                usage,
                cost_usd,
            }),
        }
    }

    /// One API request with the retry policy for transient failures; the body on success.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(String, bytes::Bytes)>,
    ) -> Result<Vec<u8>, LlmError> {
        self.send_with_retries(method, path, body, self.cfg.retry.max_retries)
            .await
    }

    /// [`Self::send`] with at most `max_retries` retries.
    async fn send_with_retries(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(String, bytes::Bytes)>,
        max_retries: u32,
    ) -> Result<Vec<u8>, LlmError> {
        let (path, query) = path
            .split_once('?')
            .map_or((path, None), |(p, q)| (p, Some(q)));
        let url = provider::endpoint_url(&self.cfg.provider.base_url, path, query);
        let policy = &self.cfg.retry;
        let mut retries = 0u32;
        loop {
            let mut rb = self.http.request(method.clone(), &url);
            if let Some((content_type, bytes)) = &body {
                rb = rb
                    .header(reqwest::header::CONTENT_TYPE, content_type)
                    .body(bytes.clone());
            }
            if let Some(Secret(key)) = &self.api_key
                && let Ok(mut value) =
                    reqwest::header::HeaderValue::from_str(&format!("Bearer {key}"))
            {
                value.set_sensitive(true);
                rb = rb.header(reqwest::header::AUTHORIZATION, value);
            }
            let attempts = retries + 1;
            let error = match rb.send().await {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let bytes = resp.bytes().await.map_err(|e| LlmError::Connect {
                        attempts,
                        message: e.to_string(),
                    })?;
                    if (200..300).contains(&status) {
                        return Ok(bytes.to_vec());
                    }
                    let message =
                        self.scrub(provider::error_message(&String::from_utf8_lossy(&bytes)));
                    match status {
                        401 | 403 => {
                            return Err(LlmError::Auth {
                                status,
                                endpoint: url.clone(),
                                env_var: self.cfg.provider.api_key_env.clone(),
                            });
                        }
                        429 => LlmError::RateLimited {
                            attempts,
                            retry_after: None,
                        },
                        500..=599 => LlmError::Server {
                            status,
                            attempts,
                            message,
                        },
                        _ => return Err(LlmError::Rejected { status, message }),
                    }
                }
                Err(e) if e.is_timeout() => LlmError::Timeout { attempts },
                Err(e) => LlmError::Connect {
                    attempts,
                    message: self.scrub(e.to_string()),
                },
            };
            if retries >= max_retries {
                return Err(error);
            }
            let delay = backoff(policy, retries);
            retries += 1;
            tracing::warn!(url = %stdx::redact_url(&url), retry = retries, error = %error, "batch API call failed, retrying");
            tokio::time::sleep(delay).await;
        }
    }

    fn scrub(&self, text: String) -> String {
        let text = stdx::redact_urls_in(&text);
        match &self.api_key {
            Some(Secret(k)) if k.len() >= 4 && text.contains(k.as_str()) => {
                text.replace(k.as_str(), "[redacted]")
            }
            _ => text,
        }
    }
}

/// Splits items into batches of at most `max_requests` items and `max_bytes` bytes (`size` of
/// each item, plus its newline); an item larger than `max_bytes` alone gets a batch of its own
/// (the provider will refuse it, and that failure is reported per item).
#[must_use]
pub fn split_batches<T>(
    items: Vec<T>,
    size: impl Fn(&T) -> usize,
    max_requests: usize,
    max_bytes: usize,
) -> Vec<Vec<T>> {
    let mut batches: Vec<Vec<T>> = Vec::new();
    let mut current: Vec<T> = Vec::new();
    let mut bytes = 0usize;
    for item in items {
        let n = size(&item) + 1;
        if !current.is_empty() && (current.len() >= max_requests || bytes + n > max_bytes) {
            batches.push(std::mem::take(&mut current));
            bytes = 0;
        }
        bytes += n;
        current.push(item);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// A `multipart/form-data` body with `purpose=batch` and the JSONL file (hand-built: two fixed
/// parts do not justify another HTTP feature).
fn multipart_body(boundary: &str, lines: &[String], content_len: usize) -> bytes::Bytes {
    let mut body = Vec::with_capacity(content_len + 512);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"batch.jsonl\"\r\n\
             Content-Type: application/jsonl\r\n\r\n"
        )
        .as_bytes(),
    );
    for line in lines {
        body.extend_from_slice(line.as_bytes());
        body.push(b'\n');
    }
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    bytes::Bytes::from(body)
}

fn json_of(raw: &[u8]) -> Result<Value, LlmError> {
    serde_json::from_slice(raw).map_err(|e| LlmError::Protocol(format!("reply is not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_split_at_the_request_and_byte_limits() {
        let items: Vec<usize> = vec![10; 7];
        let by_count = split_batches(items.clone(), |n| *n, 3, 1000);
        assert_eq!(by_count.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 1]);
        // 11 bytes per line: two fit in 25 bytes, a third does not.
        let by_bytes = split_batches(items, |n| *n, 100, 25);
        assert_eq!(
            by_bytes.iter().map(Vec::len).collect::<Vec<_>>(),
            [2, 2, 2, 1]
        );
        let oversized = split_batches(vec![50, 1], |n| *n, 100, 25);
        assert_eq!(oversized, vec![vec![50], vec![1]]);
    }

    #[test]
    fn lines_carry_the_online_body_and_a_relative_url() {
        let client = BatchClient::with_api_key(
            ClientConfig::openai_compatible("http://127.0.0.1:9/v1"),
            BatchConfig::default(),
            "",
        )
        .expect("client");
        let mut request = ChatRequest::new("m", vec![crate::Message::user("hi")]);
        request.output_schema = Some(crate::OutputSchema {
            name: "answer".into(),
            schema: std::sync::Arc::new(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            ),
            strict: true,
        });
        let line = client
            .encode_line(&BatchItem {
                custom_id: "s:0:generator".into(),
                request: request.clone(),
            })
            .expect("line");
        let v: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(v["url"], "/v1/chat/completions");
        assert_eq!(v["custom_id"], "s:0:generator");
        let online = provider::build(
            &client.cfg.provider,
            &request,
            Some(provider::initial_mode(ProviderKind::OpenAi)),
        );
        assert_eq!(v["body"], online.body);
    }

    #[test]
    fn only_the_openai_provider_is_accepted() {
        let mut cfg = ClientConfig::openai_compatible("http://127.0.0.1:9");
        cfg.provider.kind = ProviderKind::Anthropic;
        let err = BatchClient::with_api_key(cfg, BatchConfig::default(), "").expect_err("refused");
        assert!(matches!(err, LlmError::Config(_)), "{err}");
    }
}
