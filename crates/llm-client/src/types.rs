//! The provider-neutral request and response values every model call uses.
//!
//! These types are the contract between the engine and the transport: the agents crate builds
//! `ChatRequest`s and reads `ChatResponse`s; providers translate them to and from their wire formats.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The instructions of the conversation.
    System,
    /// The human (or the simulated user) speaking.
    User,
    /// The model's reply.
    Assistant,
    /// The result of a tool call, answering `tool_call_id`.
    Tool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// The text (empty for an assistant message that only calls tools).
    pub content: String,
    /// Tool calls made by the assistant in this message (empty for other roles).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the id of the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    #[must_use]
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    #[must_use]
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    #[must_use]
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
    #[must_use]
    /// A message with any role and no tool calls.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// Function name the model calls it by.
    pub name: String,
    #[serde(default)]
    /// What the tool does, shown to the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// A call of a tool that the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned call id (generated when the server sends none).
    pub id: String,
    /// Name of the called tool.
    pub name: String,
    /// Parsed arguments (an object); unparseable arguments are kept as a JSON string value.
    pub arguments: Value,
}

/// How the model should use the declared tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    #[default]
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// Force a call of this function.
    Function(String),
}

/// A JSON Schema the reply must follow (structured output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputSchema {
    /// Name sent to the provider (`[a-zA-Z0-9_-]`, as OpenAI requires).
    pub name: String,
    /// The JSON Schema; local validation always uses it as written. Shared: every request of
    /// one agent carries the same schema, and a parsed schema is kilobytes in memory.
    pub schema: std::sync::Arc<Value>,
    /// Ask for strict enforcement where the provider supports it.
    #[serde(default = "default_true")]
    pub strict: bool,
}

fn default_true() -> bool {
    true
}

/// One chat completion request, provider neutral.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChatRequest {
    /// Model name as the endpoint knows it.
    pub model: String,
    /// The conversation so far.
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Sampling temperature.
    pub temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Completion token limit.
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Sampling seed, where the provider supports it.
    pub seed: Option<u64>,
    /// When set, the reply must be JSON following this schema; `ChatResponse::json` holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<OutputSchema>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Tools the model may call.
    pub tools: Vec<ToolDef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// How the model should use `tools`.
    pub tool_choice: Option<ToolChoice>,
    /// Provider-specific fields merged into the wire request as they are.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra: serde_json::Map<String, Value>,
    /// Skip the response cache for this call (e.g. judge-reliability audits).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_cache: bool,
    /// Requests with the same key go to the same endpoint of a client with several (the
    /// pipeline passes the scenario id, so a server's prompt-prefix cache is reused). Only
    /// steers routing: never sent, recorded or part of a cache key.
    #[serde(skip)]
    pub affinity: Option<String>,
}

impl ChatRequest {
    #[must_use]
    /// A request for `model` with `messages` and defaults for everything else.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            model: model.into(),
            messages,
            ..Self::default()
        }
    }
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: u64,
    /// Tokens of the completion.
    pub completion_tokens: u64,
    /// True when the counts are a local (tiktoken) estimate because the server sent no `usage`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    #[must_use]
    /// Prompt plus completion tokens (saturating: the counts come from the server).
    pub fn total(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// Why generation stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    #[default]
    /// The model finished its answer.
    Stop,
    /// The token limit cut the answer.
    Length,
    /// The model asked for tool calls.
    ToolCalls,
    /// A provider filter withheld content.
    ContentFilter,
    /// Any other provider reason, verbatim.
    Other(String),
}

/// A repair or coercion applied to a model's reply to make it valid, recorded for the output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coercion {
    /// JSON pointer of the value changed ("" for the whole reply).
    pub path: String,
    /// What was done and why, e.g. `"8" read as 8`, `stripped ```json fence`,
    /// `repair request after: /fluency_score: "high" is not of type "number"`.
    pub reason: String,
}

/// The answer to one `ChatRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChatResponse {
    /// The model that answered (as the server named it, else the requested one).
    pub model: String,
    /// Text content of the reply (the raw JSON text for structured output).
    pub content: String,
    /// The parsed and schema-validated JSON when the request had an `output_schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Tool calls the model asked for (not the synthetic call used for structured output).
    pub tool_calls: Vec<ToolCall>,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Token counts (reported by the server or estimated).
    pub usage: Usage,
    /// Wall time of the call including retries, in milliseconds.
    pub latency_ms: u64,
    /// Retries spent on transport errors (429, 5xx, timeouts) for this call.
    #[serde(default)]
    pub retries: u32,
    /// Extra requests spent repairing the reply (broken JSON / schema violation).
    #[serde(default)]
    pub repairs: u32,
    /// Coercions applied to reach a valid reply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coercions: Vec<Coercion>,
    /// Served from the response cache (no request was made, nothing was paid).
    #[serde(default)]
    pub cached: bool,
    /// Cost in USD from the price table, when the model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl ChatResponse {
    #[must_use]
    /// `latency_ms` as a `Duration`.
    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_total_saturates_on_absurd_server_counts() {
        let usage = Usage {
            prompt_tokens: u64::MAX,
            completion_tokens: 7,
            estimated: false,
        };
        assert_eq!(usage.total(), u64::MAX);
    }
}
