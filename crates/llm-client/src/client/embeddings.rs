//! Embeddings through an OpenAI-compatible `POST {base}/embeddings`, with the client's
//! cross-cutting behaviour: the response cache (keyed like chat requests: endpoint, model and
//! inputs), the in-flight and RPM limits, retries of 408/429/5xx and connection failures with
//! the same backoff, usage and cost in the run's statistics, and redacted errors. A reply that is
//! not one finite vector per input, all of one length, is a protocol error, never a guess.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Client, elapsed_ms, endpoint_of, lossy_snippet};
use crate::cache::canonical_json;
use crate::retry::{backoff, server_delay};
use crate::stats::bump;
use crate::{LlmError, ProviderKind, Usage, provider};

/// Texts to embed with one model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddingRequest {
    /// The embedding model.
    pub model: String,
    /// The texts, one vector each.
    pub input: Vec<String>,
}

/// One vector per input text, in input order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct EmbeddingResponse {
    /// The model that answered.
    pub model: String,
    /// The vectors, in the order of [`EmbeddingRequest::input`].
    pub embeddings: Vec<Vec<f32>>,
    /// Tokens the server counted (prompt only).
    pub usage: Usage,
    /// Cost under the client's price table (`None` when the model is not priced; 0 when cached).
    pub cost_usd: Option<f64>,
    /// Answered from the response cache.
    #[serde(default)]
    pub cached: bool,
}

impl Client {
    pub(super) async fn embed_call(
        &self,
        req: EmbeddingRequest,
    ) -> Result<EmbeddingResponse, LlmError> {
        if self.cfg.provider.kind != ProviderKind::OpenAi {
            return Err(LlmError::Config(format!(
                "embeddings need an OpenAI-compatible endpoint (provider {} has none here)",
                self.cfg.provider.kind.as_str()
            )));
        }
        bump(&self.stats.calls);
        let started = Instant::now();
        let key = self.cache.as_ref().map(|_| {
            let identity = json!({
                "embeddings": req,
                "base_url": self.identity.trim_end_matches('/'),
            });
            blake3::hash(canonical_json(&identity).as_bytes())
                .to_hex()
                .to_string()
        });
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            if let Some(mut hit) = cache.get_any::<EmbeddingResponse>(key).await {
                bump(&self.stats.cache_hits);
                hit.cached = true;
                hit.cost_usd = Some(0.0);
                return Ok(hit);
            }
            bump(&self.stats.cache_misses);
        }
        let mut resp = match self.embed_send(&req).await {
            Ok(resp) => resp,
            Err(e) => {
                bump(&self.stats.failed_calls);
                tracing::warn!(model = %req.model, error = %e, "embedding call failed");
                return Err(e);
            }
        };
        resp.cost_usd = self.cfg.prices.cost(&req.model, &resp.usage);
        self.stats
            .record_spend(&req.model, resp.usage, resp.cost_usd, true);
        if let (Some(cache), Some(key)) = (&self.cache, &key)
            && let Err(e) = cache.put_any(key, &resp).await
        {
            tracing::warn!(error = %e, "embeddings not cached");
        }
        tracing::debug!(
            model = %req.model,
            texts = req.input.len(),
            latency_ms = elapsed_ms(started),
            "embedding call done"
        );
        Ok(resp)
    }

    async fn embed_send(&self, req: &EmbeddingRequest) -> Result<EmbeddingResponse, LlmError> {
        let body = serde_json::to_vec(&json!({"model": req.model, "input": req.input}))
            .map_err(|e| LlmError::Protocol(format!("encoding request: {e}")))?;
        let policy = &self.cfg.retry;
        let mut retries = 0u32;
        loop {
            let slot = self.admit().await;
            let (endpoint, epoch) = self.route(None, &req.model).await?;
            let url = provider::endpoint_url(self.fleet.base_url(endpoint), "embeddings", None);
            bump(&self.stats.http_requests);
            let rb = self
                .http
                .post(&url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .headers(self.extra_headers.clone())
                .body(body.clone());
            let outcome = self.authorize(rb).send().await;
            drop(slot);
            let attempts = retries + 1;
            let (hint, error) = match outcome {
                Ok(reply) => {
                    let status = reply.status().as_u16();
                    let headers = reply.headers().clone();
                    let bytes = reply
                        .bytes()
                        .await
                        .map_or_else(|_| Vec::new(), |b| b.to_vec());
                    if (200..300).contains(&status) {
                        self.fleet.succeeded(endpoint, epoch);
                        return self.parse_embeddings(req, &bytes);
                    }
                    let message =
                        self.scrub(provider::error_message(&String::from_utf8_lossy(&bytes)));
                    let hint = server_delay(&headers, std::time::SystemTime::now())
                        .map(|d| d.min(policy.max_server_delay()));
                    let error = match status {
                        401 | 403 => {
                            return Err(LlmError::Auth {
                                status,
                                endpoint: endpoint_of(&url),
                                env_var: self.cfg.provider.api_key_env.clone(),
                            });
                        }
                        429 => {
                            bump(&self.stats.rate_limited);
                            LlmError::RateLimited {
                                attempts,
                                retry_after: hint,
                            }
                        }
                        408 => LlmError::Timeout { attempts },
                        500..=599 => LlmError::Server {
                            status,
                            attempts,
                            message,
                        },
                        _ => return Err(LlmError::Rejected { status, message }),
                    };
                    (hint, error)
                }
                Err(e) => (None, self.transport_error(&e, attempts)),
            };
            self.cool_down(endpoint, epoch, &error);
            if retries >= policy.max_retries {
                return Err(error);
            }
            let delay = hint.unwrap_or_else(|| backoff(policy, retries));
            retries += 1;
            bump(&self.stats.retries);
            tracing::warn!(url = %endpoint_of(&url), retry = retries, error = %error, "retrying embeddings");
            tokio::time::sleep(delay).await;
        }
    }

    fn parse_embeddings(
        &self,
        req: &EmbeddingRequest,
        bytes: &[u8],
    ) -> Result<EmbeddingResponse, LlmError> {
        let bad = |why: String| LlmError::Protocol(self.scrub(why));
        let value: Value = serde_json::from_slice(bytes).map_err(|e| {
            bad(format!(
                "embeddings reply is not JSON ({e}): {}",
                lossy_snippet(bytes)
            ))
        })?;
        let data = value
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("embeddings reply has no `data` list".to_owned()))?;
        let mut out: Vec<Option<Vec<f32>>> = vec![None; req.input.len()];
        for (position, item) in data.iter().enumerate() {
            let index = item
                .get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .unwrap_or(position);
            let vector: Option<Vec<f32>> = item
                .get("embedding")
                .and_then(Value::as_array)
                .and_then(|xs| {
                    xs.iter()
                        .map(|x| x.as_f64().map(|f| f as f32).filter(|f| f.is_finite()))
                        .collect()
                });
            let vector =
                vector.ok_or_else(|| bad(format!("embedding {index} is not a list of numbers")))?;
            match out.get_mut(index) {
                Some(slot @ None) => *slot = Some(vector),
                _ => return Err(bad(format!("embedding index {index} is out of place"))),
            }
        }
        let embeddings: Vec<Vec<f32>> = out
            .into_iter()
            .collect::<Option<_>>()
            .ok_or_else(|| bad(format!("expected {} embeddings", req.input.len())))?;
        if embeddings
            .iter()
            .any(|v| v.is_empty() || v.len() != embeddings[0].len())
        {
            return Err(bad("embeddings of different lengths".to_owned()));
        }
        let usage = Usage {
            prompt_tokens: value
                .pointer("/usage/prompt_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            completion_tokens: 0,
            estimated: value.pointer("/usage/prompt_tokens").is_none(),
        };
        Ok(EmbeddingResponse {
            model: value
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or(&req.model)
                .to_owned(),
            embeddings,
            usage,
            cost_usd: None,
            cached: false,
        })
    }
}
