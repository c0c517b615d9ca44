//! Chat-model transport for the engine.
//!
//! Every model call goes through a [`ChatModel`]. Providers (OpenAI-compatible, Azure OpenAI,
//! Anthropic Messages) translate [`ChatRequest`]/[`ChatResponse`] to their wire formats; the
//! cross-cutting behaviour (structured output negotiation and repair, retries, rate limits,
//! caching, recording, usage and cost) wraps a provider as layers.

mod error;
mod types;

pub use error::LlmError;
pub use types::*;

use futures::future::BoxFuture;

/// A chat model: one request in, one response out.
///
/// Object safe, so the engine can hold an `Arc<dyn ChatModel>` chosen at run time.
pub trait ChatModel: Send + Sync {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>>;
}

impl<T: ChatModel + ?Sized> ChatModel for std::sync::Arc<T> {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        (**self).chat(req)
    }
}
