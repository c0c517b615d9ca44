//! Chat-model transport for the engine.
//!
//! Every model call goes through a [`ChatModel`]. Providers (OpenAI-compatible, Azure OpenAI,
//! Anthropic Messages) translate [`ChatRequest`]/[`ChatResponse`] to their wire formats; the
//! cross-cutting behaviour (structured output negotiation and repair, retries, rate limits,
//! caching, recording, usage and cost) lives in [`Client`], the production implementation.
//! [`Replay`] serves recorded exchanges offline.
//!
//! ```
//! use std::sync::Arc;
//! use llm_client::{ChatModel, ChatRequest, Client, ClientConfig, Message};
//!
//! // A local OpenAI-compatible server (Ollama, vLLM, llama.cpp …); no key needed.
//! let mut cfg = ClientConfig::openai_compatible("http://127.0.0.1:11434/v1");
//! cfg.provider.api_key_env = "MY_LOCAL_KEY".into();
//! cfg.limits.max_in_flight = 8;
//! let client: Arc<dyn ChatModel> = Arc::new(Client::new(cfg)?);
//!
//! // Code written against the trait works with the client, a replay, or a test double.
//! fn ask(model: &dyn ChatModel, question: &str) -> impl Future<Output = Result<String, llm_client::LlmError>> {
//!     let fut = model.chat(ChatRequest::new("llama3.1", vec![Message::user(question)]));
//!     async move { Ok(fut.await?.content) }
//! }
//! let _pending = ask(client.as_ref(), "Hello?"); // not awaited: no request is made here
//! # Ok::<(), llm_client::LlmError>(())
//! ```

pub mod batch;
mod cache;
mod client;
mod config;
mod error;
mod fleet;
pub mod gbnf;
mod limits;
#[cfg(feature = "local-llm")]
pub mod local;

/// Sequence slots the embedded model (`local-llm`) serves at once by default: two per core, from
/// 2 to 8. On a CPU one decode step costs about the same for one sequence as for a few (the
/// weights are read once per step), so a few slots multiply throughput; beyond that the step
/// grows with the slots. Outside the feature so settings can show it without the model.
#[must_use]
pub fn default_local_slots() -> u32 {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    u32::try_from(cores.saturating_mul(2).clamp(2, 8)).unwrap_or(8)
}
mod modes;
mod price;
mod provider;
mod record;
mod retry;
mod stats;
mod structured;
mod tokens;
mod types;

pub use batch::{
    BatchClient, BatchConfig, BatchItem, BatchResults, BatchState, BatchStatus, ItemReply,
    ItemResult,
};
pub use cache::{cache_key, canonical_json, replay_key};
pub use client::Client;
pub use client::embeddings::{EmbeddingRequest, EmbeddingResponse};
pub use config::{ClientConfig, FleetPolicy, Limits, ProviderConfig, ProviderKind, RetryPolicy};
pub use error::LlmError;
pub use fleet::{EndpointStats, preferred_endpoint};
pub use price::{ModelPrice, PriceTable};
pub use record::{Exchange, Recording, Replay};
pub use stats::{ClientStats, ModelStats};
pub use stdx::progress::TransportTally;
pub use structured::{StructuredMode, coerce_to_schema, parse_tolerant, strict_schema};
pub use tokens::{count_prompt_tokens, count_tokens};
pub use types::*;

use futures::future::BoxFuture;

/// A chat model: one request in, one response out.
///
/// Object safe, so the engine can hold an `Arc<dyn ChatModel>` chosen at run time.
pub trait ChatModel: Send + Sync {
    /// Answers one request.
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>>;

    /// Embeds texts (an OpenAI-compatible `/embeddings` endpoint). A model that serves none
    /// answers [`LlmError::Config`], the default.
    fn embed(&self, req: EmbeddingRequest) -> BoxFuture<'_, Result<EmbeddingResponse, LlmError>> {
        let model = req.model;
        Box::pin(async move {
            Err(LlmError::Config(format!(
                "this model client serves no embeddings (asked for {model:?})"
            )))
        })
    }

    /// A cheap check, before the first paid call, that the model answers at all (for
    /// [`Client`]: each endpoint's model list, else a one-token call of `model`). The default
    /// (a model in this process) has nothing to check.
    ///
    /// # Errors
    /// [`LlmError::Unavailable`] naming the endpoints when none answers, [`LlmError::Auth`] for
    /// refused credentials.
    fn preflight<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Result<(), LlmError>> {
        let _ = model;
        Box::pin(async { Ok(()) })
    }

    /// The retries, rate limits, cooldowns and pauses so far, for a progress display; `None`
    /// for a model with no transport.
    fn transport(&self) -> Option<TransportTally> {
        None
    }
}

impl<T: ChatModel + ?Sized> ChatModel for std::sync::Arc<T> {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        (**self).chat(req)
    }

    fn embed(&self, req: EmbeddingRequest) -> BoxFuture<'_, Result<EmbeddingResponse, LlmError>> {
        (**self).embed(req)
    }

    fn preflight<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Result<(), LlmError>> {
        (**self).preflight(model)
    }

    fn transport(&self) -> Option<TransportTally> {
        (**self).transport()
    }
}

/// The JSON Schema of a duration setting as `stdx::duration_serde` reads it: milliseconds, or a
/// string with units (`"500ms"`, `"2s"`, `"6m0s"`).
#[cfg(feature = "schema")]
#[must_use]
pub fn duration_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "Milliseconds, or a duration with units: \"500ms\", \"2s\", \"6m0s\".",
        "type": ["integer", "string"],
        "minimum": 0
    })
}
