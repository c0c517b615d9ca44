//! The embedded local model provider (cargo feature `local-llm`): a GGUF file run in-process by
//! llama.cpp, so the engine works with no API key, no GPU and no network.
//!
//! This module owns [`LocalConfig`] (what the CLI fills from settings), [`LocalModel`] (a
//! [`ChatModel`] over one loaded GGUF) and the rules that make a tiny model usable as a structured
//! agent: the request's JSON schema becomes a llama.cpp grammar that constrains sampling
//! ([`grammar_for_schema`]), output is capped, and the reply is still parsed and validated against
//! the schema like any other provider's (grammars do not enforce numeric bounds). Requests with
//! tools get the same treatment through a synthetic reply schema (see `tools`), so the model can
//! act as a bot. Token counts come from the model's own tokenizer, so `Usage::estimated` is false.
//!
//! Concurrency: one long-lived llama.cpp context serves several requests at once (continuous
//! batching over [`LocalConfig::slots`] sequence slots, one `llama_decode` per step for all of
//! them), and requests that share a prompt prefix with one decoded before reuse its KV cells
//! instead of reading it again (see `scheduler`). Inference runs on one dedicated thread; callers
//! may issue requests concurrently and more than the slots wait in a queue, whose time is
//! reported. At temperature 0 a request's reply does not depend on what else is being served.

mod engine;
mod grammar;
mod scheduler;
mod tools;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, Usage};

pub use grammar::grammar_for_schema;

/// How to load and run the local model. Every field but `model_path` has a default; where the
/// file comes from (environment variables, a cache directory) is the application's business.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalConfig {
    /// The GGUF file.
    pub model_path: PathBuf,
    /// A llama.cpp built-in chat template name ("chatml", "gemma", "llama3", …) used instead of
    /// the template embedded in the GGUF; required when the GGUF has none (Gemma 3 270M).
    pub chat_template: Option<String>,
    /// Context window in tokens (prompt plus reply); capped at the model's training context.
    pub n_ctx: u32,
    /// CPU threads for inference; `None` uses every available core.
    pub threads: Option<u32>,
    /// Upper bound on generated tokens, whatever the request's `max_tokens` asks for. Tiny models
    /// can loop, so this bounds the cost of every call.
    pub max_tokens_cap: u32,
    /// Sampling seed used when the request sets a temperature above zero but no seed.
    /// Temperature zero (or none) decodes greedily and ignores it.
    pub seed: u64,
    /// Penalty on tokens repeated within the last 64 (1.0 disables it). Small models otherwise
    /// repeat one phrase inside a JSON string until the token cap cuts the reply.
    pub repeat_penalty: f32,
    /// Sequences decoded together (continuous batching); `None`: [`crate::default_local_slots`]. The KV
    /// cache holds `slots × n_ctx` tokens, so memory grows with this, not with the requests.
    pub slots: Option<u32>,
    /// Reuse the KV cells of a prompt prefix another request already decoded (the four judges of
    /// an attempt begin with the same context and texts). Off only to measure it.
    pub prefix_reuse: bool,
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self {
            model_path: PathBuf::new(),
            chat_template: None,
            n_ctx: 4096,
            threads: None,
            max_tokens_cap: 512,
            seed: 0,
            repeat_penalty: 1.2,
            slots: None,
            prefix_reuse: true,
        }
    }
}

impl LocalConfig {
    /// Defaults with the given model file.
    #[must_use]
    pub fn new(model_path: impl Into<PathBuf>) -> Self {
        Self {
            model_path: model_path.into(),
            ..Self::default()
        }
    }
}

/// What the local model has done since it was loaded (answered requests only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LocalStats {
    /// Requests answered.
    pub answered: u64,
    /// Prompt tokens of those requests.
    pub prompt_tokens: u64,
    /// Of those, tokens whose KV cells were reused from the prefix cache instead of decoded.
    pub reused_prompt_tokens: u64,
    /// Tokens generated.
    pub completion_tokens: u64,
    /// `llama_decode` calls.
    pub decode_steps: u64,
    /// The most sequences one decode step advanced (1 when nothing ran concurrently).
    pub most_sequences_in_a_step: u64,
    /// Prefixes copied to a spare sequence before a slot's new request overwrote them.
    pub spared_prefixes: u64,
    /// Milliseconds spent in decode steps reading prompt chunks (sampling included). The step
    /// figures count every step, also those of requests cancelled before their answer, which
    /// the token counts above leave out.
    pub prompt_steps_ms: u64,
    /// Decode steps that generated tokens, and the milliseconds they took (sampling included):
    /// `completion_tokens / generation_steps` is the mean batch.
    pub generation_steps: u64,
    /// See `generation_steps`.
    pub generation_steps_ms: u64,
    /// Of the step figures above, the milliseconds spent choosing tokens from the logits
    /// (penalty, greedy or sampled choice, grammar) rather than in `llama_decode`.
    pub sampling_ms: u64,
}

/// Why the local model could not be loaded or used.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// The GGUF file does not exist.
    #[error("local model {} not found", path.display())]
    ModelNotFound {
        /// The path that was tried.
        path: PathBuf,
    },
    /// llama.cpp could not be initialised.
    #[error("llama.cpp backend: {0}")]
    Backend(String),
    /// llama.cpp refused the file.
    #[error("loading {}: {reason}", path.display())]
    Load {
        /// The GGUF file.
        path: PathBuf,
        /// llama.cpp's reason.
        reason: String,
    },
    /// No usable chat template (none embedded and none named, or one llama.cpp does not know).
    #[error("chat template: {0}")]
    Template(String),
    /// The JSON schema could not be turned into a grammar.
    #[error("JSON schema to grammar: {0}")]
    Grammar(String),
}

impl From<LocalError> for LlmError {
    fn from(e: LocalError) -> Self {
        match e {
            // A schema llama.cpp cannot compile is a problem of that request, not of the setup.
            LocalError::Grammar(reason) => LlmError::Rejected {
                status: 422,
                message: format!("local model: JSON schema to grammar: {reason}"),
            },
            other => LlmError::Config(other.to_string()),
        }
    }
}

/// A GGUF model loaded in-process, answering [`ChatRequest`]s. Cheap to clone (shared model).
#[derive(Clone)]
pub struct LocalModel {
    engine: Arc<engine::Engine>,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("name", &self.name())
            .field("config", self.config())
            .finish()
    }
}

impl LocalModel {
    /// Loads the GGUF file (once; clones share it) and checks its chat template.
    ///
    /// # Errors
    /// A missing file, a file llama.cpp cannot load, or no usable chat template.
    pub fn load(config: LocalConfig) -> Result<Self, LocalError> {
        Ok(Self {
            engine: Arc::new(engine::Engine::load(config)?),
        })
    }

    /// The model's name (the GGUF file stem), reported as `ChatResponse::model`.
    #[must_use]
    pub fn name(&self) -> &str {
        self.engine.name()
    }

    /// The configuration the model was loaded with.
    #[must_use]
    pub fn config(&self) -> &LocalConfig {
        self.engine.config()
    }

    /// The GGUF file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.engine.config().model_path
    }

    /// Sequence slots served at once.
    #[must_use]
    pub fn slots(&self) -> usize {
        self.engine.slots()
    }

    /// Totals since the model was loaded.
    #[must_use]
    pub fn stats(&self) -> LocalStats {
        self.engine.stats()
    }

    /// Number of tokens the model's tokenizer makes of `text` (no special tokens added).
    #[must_use]
    pub fn count_tokens(&self, text: &str) -> usize {
        self.engine.count_tokens(text)
    }
}

/// Sets the shared flag when the caller drops the future, so the blocking generation stops at
/// the next token instead of running to its cap for nobody.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl ChatModel for LocalModel {
    fn chat(&self, mut req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        let engine = Arc::clone(&self.engine);
        Box::pin(async move {
            let started = Instant::now();
            let tool_mode = tools::rewrite(&mut req);
            let cancelled = Arc::new(AtomicBool::new(false));
            let guard = CancelOnDrop(Arc::clone(&cancelled));
            let schema = req.output_schema.as_ref().map(|s| s.schema.clone());
            let answer = tokio::task::spawn_blocking(move || engine.submit(&req, cancelled))
                .await
                .map_err(|e| LlmError::Protocol(format!("local inference task failed: {e}")))??;
            let generation = answer.await.map_err(|_| {
                LlmError::Protocol("local model: the inference thread stopped".into())
            })??;
            // Generation is over, so the flag this sets is read by nobody.
            drop(guard);
            let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            let tokens_per_s = generation.tokens_per_second();
            tracing::info!(
                model = %self.name(),
                prompt_tokens = generation.prompt_tokens,
                reused_prompt_tokens = generation.reused_prompt_tokens,
                completion_tokens = generation.completion_tokens,
                queued_ms = generation.queued_ms,
                prompt_ms = generation.prompt_ms,
                generate_ms = generation.generate_ms,
                resampled = generation.resampled,
                tokens_per_s = format_args!("{tokens_per_s:.1}"),
                latency_ms,
                "local completion"
            );
            let usage = Usage {
                prompt_tokens: generation.prompt_tokens,
                completion_tokens: generation.completion_tokens,
                estimated: false,
            };
            let json = match &schema {
                Some(schema) => Some(parse_and_validate(
                    &generation.text,
                    schema,
                    &generation.finish,
                    usage,
                )?),
                None => None,
            };
            let (content, json, tool_calls, finish_reason) = match json {
                Some(reply) if tool_mode => {
                    let (text, calls, finish) = tools::split_reply(&reply);
                    (text, None, calls, finish)
                }
                json => (generation.text, json, Vec::new(), generation.finish),
            };
            Ok(ChatResponse {
                model: self.name().to_owned(),
                content,
                json,
                tool_calls,
                finish_reason,
                usage,
                // Free, not unpriced: the run's summary and progress ask for a price otherwise.
                cost_usd: Some(0.0),
                latency_ms,
                ..ChatResponse::default()
            })
        })
    }
}

/// Parses the reply and checks it against the request's schema; the grammar guarantees the
/// syntax only when generation was not cut short, and never the numeric bounds.
fn parse_and_validate(
    text: &str,
    schema: &Value,
    finish: &FinishReason,
    usage: Usage,
) -> Result<Value, LlmError> {
    let invalid = |reason: String| LlmError::InvalidOutput {
        reason,
        repairs: 0,
        raw: text.to_owned(),
        usage,
        // The embedded model costs nothing: free, not unpriced (which the summary flags).
        cost_usd: Some(0.0),
    };
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if *finish == FinishReason::Length {
            invalid(format!(
                "reply cut at the token cap before the JSON was complete ({e})"
            ))
        } else {
            invalid(format!("reply is not JSON: {e}"))
        }
    })?;
    let validator = crate::structured::compile(schema)
        .map_err(|e| invalid(format!("the output schema itself is invalid: {e}")))?;
    let errors = crate::structured::schema_errors(&validator, &value);
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(invalid(errors.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn judge_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "fluency_score": {"type": "number", "minimum": 0, "maximum": 10},
                "summary": {"type": "string"}
            },
            "required": ["fluency_score", "summary"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_valid_reply_is_returned_parsed() {
        let v = parse_and_validate(
            r#"{"fluency_score": 7, "summary": "ok"}"#,
            &judge_schema(),
            &FinishReason::Stop,
            Usage::default(),
        );
        assert_eq!(v.ok(), Some(json!({"fluency_score": 7, "summary": "ok"})));
    }

    #[test]
    fn out_of_range_numbers_are_invalid_output_with_the_path() {
        let text = r#"{"fluency_score": 1e15, "summary": "ok"}"#;
        let usage = Usage {
            prompt_tokens: 40,
            completion_tokens: 9,
            estimated: false,
        };
        match parse_and_validate(text, &judge_schema(), &FinishReason::Stop, usage) {
            Err(LlmError::InvalidOutput {
                reason,
                repairs: 0,
                raw,
                usage: spent,
                ..
            }) => {
                assert_eq!(
                    spent, usage,
                    "the tokens of an invalid reply are still counted"
                );
                assert!(reason.starts_with("/fluency_score: "), "{reason}");
                assert_eq!(raw, text);
            }
            other => panic!("expected InvalidOutput, got {other:?}"),
        }
    }

    #[test]
    fn a_truncated_reply_says_it_hit_the_cap() {
        match parse_and_validate(
            r#"{"fluency_score": 7, "summ"#,
            &judge_schema(),
            &FinishReason::Length,
            Usage::default(),
        ) {
            Err(LlmError::InvalidOutput { reason, .. }) => {
                assert!(reason.contains("token cap"), "{reason}");
            }
            other => panic!("expected InvalidOutput, got {other:?}"),
        }
    }

    #[test]
    fn config_reads_partial_settings_and_rejects_unknown_keys() {
        let cfg: LocalConfig =
            serde_json::from_value(json!({"model_path": "/m.gguf", "chat_template": "gemma"}))
                .expect("valid settings");
        assert_eq!(cfg.model_path, PathBuf::from("/m.gguf"));
        assert_eq!(cfg.chat_template.as_deref(), Some("gemma"));
        assert_eq!(cfg.max_tokens_cap, LocalConfig::default().max_tokens_cap);
        assert!(serde_json::from_value::<LocalConfig>(json!({"model": "x"})).is_err());
    }

    #[test]
    fn a_missing_file_is_a_configuration_error_naming_the_file() {
        let err = LocalModel::load(LocalConfig::new("/nonexistent/model.gguf"))
            .expect_err("no such file");
        assert!(matches!(err, LocalError::ModelNotFound { .. }));
        let llm: LlmError = err.into();
        assert!(llm.is_fatal());
        assert!(llm.to_string().contains("/nonexistent/model.gguf"), "{llm}");
    }
}
