//! The blocking side of the local provider: the process-wide llama.cpp backend, the loaded model
//! and one generation (render the chat, decode the prompt, sample under the grammar, stop).
//!
//! Sampling under a grammar follows llama.cpp's `common_sampler`: the token is chosen by the
//! ordinary chain (repetition penalty, then greedy or temperature sampling) over the raw logits,
//! and only that one token is checked against the grammar. Masking the whole vocabulary (49k
//! tokens for SmolLM2) with the grammar at every step cost about eight times the decode itself;
//! the check of one token is cheap, and tiny models mostly pick a token the grammar allows. When
//! the grammar rejects it, the step is resampled with the grammar applied to every candidate
//! first. Under greedy decoding the result is the same token either way (the unconstrained
//! argmax, when allowed, is also the constrained one); under temperature sampling the
//! distribution differs slightly from full masking, as it does in llama.cpp.
//!
//! Everything here runs on a blocking thread; nothing is async. The `gate` mutex serialises
//! generations because a llama.cpp context is created from the shared model for each call, and
//! creating contexts from one model concurrently is unsound in llama.cpp (it mutates the model).

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

use super::{LocalConfig, LocalError, grammar_for_schema};
use crate::{ChatRequest, FinishReason, LlmError, Message, Role};

/// Tokens decoded per `llama_decode` call while reading the prompt.
const PROMPT_BATCH: usize = 512;

/// How many recent tokens the repetition penalty looks at.
const PENALTY_WINDOW: i32 = 64;

/// llama.cpp allows one backend per process; it lives as long as the process.
static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

fn backend() -> Result<&'static LlamaBackend, LocalError> {
    BACKEND
        .get_or_init(|| {
            // Before init, so load-time chatter goes to `tracing` instead of stderr (a library
            // never prints).
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LocalError::Backend(e.clone()))
}

/// A loaded model and what is needed to prompt it.
pub(super) struct Engine {
    model: LlamaModel,
    template: LlamaChatTemplate,
    config: LocalConfig,
    name: String,
    /// Context window actually used (the configured one capped at the training context).
    n_ctx: u32,
    threads: i32,
    gate: Mutex<()>,
}

/// What one generation produced, with its timings.
pub(super) struct Generation {
    pub(super) text: String,
    pub(super) finish: FinishReason,
    pub(super) prompt_tokens: u64,
    pub(super) completion_tokens: u64,
    /// Time spent waiting for the model to be free.
    pub(super) queued_ms: u64,
    /// Time to read the prompt (context creation included).
    pub(super) prompt_ms: u64,
    /// Time spent sampling and decoding the reply.
    pub(super) generate_ms: u64,
}

impl Generation {
    /// Generated tokens per second of generation time (0 when nothing was generated).
    pub(super) fn tokens_per_second(&self) -> f64 {
        if self.generate_ms == 0 {
            return 0.0;
        }
        // Both values are far below 2^52, so the conversions are exact.
        self.completion_tokens as f64 * 1000.0 / self.generate_ms as f64
    }
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn inference(what: &str, e: impl std::fmt::Display) -> LlmError {
    LlmError::Protocol(format!("local model: {what}: {e}"))
}

impl Engine {
    pub(super) fn load(config: LocalConfig) -> Result<Self, LocalError> {
        if !config.model_path.is_file() {
            return Err(LocalError::ModelNotFound {
                path: config.model_path,
            });
        }
        let backend = backend()?;
        let started = Instant::now();
        let model =
            LlamaModel::load_from_file(backend, &config.model_path, &LlamaModelParams::default())
                .map_err(|e| LocalError::Load {
                path: config.model_path.clone(),
                reason: e.to_string(),
            })?;
        let template = match &config.chat_template {
            Some(name) => LlamaChatTemplate::new(name)
                .map_err(|e| LocalError::Template(format!("template name {name:?}: {e}")))?,
            None => model.chat_template(None).map_err(|e| {
                LocalError::Template(format!(
                    "{} has no usable embedded chat template ({e}); name a llama.cpp built-in one \
                     such as \"chatml\" or \"gemma\"",
                    config.model_path.display()
                ))
            })?,
        };
        // Apply the template once now: an unknown template should fail the load, not every call.
        let probe = LlamaChatMessage::new("user".into(), "hi".into())
            .map_err(|e| LocalError::Template(e.to_string()))?;
        model.apply_chat_template(&template, &[probe], true).map_err(|e| {
            LocalError::Template(format!(
                "llama.cpp cannot apply the chat template ({e}); name a built-in one such as \"chatml\""
            ))
        })?;
        let n_ctx = config.n_ctx.clamp(1, model.n_ctx_train().max(1));
        let threads = config
            .threads
            .map_or_else(
                || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
                |t| t as usize,
            )
            .clamp(1, 256);
        let name = config
            .model_path
            .file_stem()
            .map_or_else(|| "local".to_owned(), |s| s.to_string_lossy().into_owned());
        tracing::info!(
            model = %name,
            path = %config.model_path.display(),
            params = model.n_params(),
            n_ctx,
            threads,
            load_ms = elapsed_ms(started),
            "local model loaded"
        );
        Ok(Self {
            model,
            template,
            n_ctx,
            threads: i32::try_from(threads).unwrap_or(1),
            name,
            config,
            gate: Mutex::new(()),
        })
    }

    pub(super) fn name(&self) -> &str {
        &self.name
    }

    pub(super) fn config(&self) -> &LocalConfig {
        &self.config
    }

    pub(super) fn count_tokens(&self, text: &str) -> usize {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), false, false)
            .len()
    }

    /// Renders the conversation with the chat template, ending with the assistant's turn opened.
    fn render(&self, messages: &[Message]) -> Result<String, LlmError> {
        let chat = messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::System => "system",
                    Role::User => "user",
                    Role::Assistant => "assistant",
                    Role::Tool => "tool",
                };
                let mut content = m.content.clone();
                // Earlier tool calls are shown to the model as the JSON it would have written.
                if !m.tool_calls.is_empty() {
                    let calls: Vec<_> = m
                        .tool_calls
                        .iter()
                        .map(|c| serde_json::json!({"name": c.name, "arguments": c.arguments}))
                        .collect();
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    content.push_str(&serde_json::json!({ "tool_calls": calls }).to_string());
                }
                // C strings end at NUL; a stray one in model or user text must not fail the call.
                content.retain(|c| c != '\0');
                LlamaChatMessage::new(role.to_owned(), content).map_err(|e| LlmError::Rejected {
                    status: 400,
                    message: format!("local model: message: {e}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| inference("chat template", e))
    }

    /// Builds the samplers: the grammar of the request's schema (if any), kept apart, and the
    /// chain of the repetition penalty, then greedy decoding, or temperature plus seeded sampling
    /// when the request asks for it.
    fn sampler(&self, req: &ChatRequest) -> Result<Samplers, LlmError> {
        let grammar = match &req.output_schema {
            Some(schema) => {
                let grammar = grammar_for_schema(&integer_bounded_numbers(&schema.schema))?;
                Some(
                    LlamaSampler::grammar(&self.model, &grammar, "root").map_err(|e| {
                        LlmError::Rejected {
                            status: 422,
                            message: format!(
                                "local model: grammar for schema {:?}: {e}",
                                schema.name
                            ),
                        }
                    })?,
                )
            }
            None => None,
        };
        let mut chain = Vec::with_capacity(3);
        let penalty = self.config.repeat_penalty;
        if penalty.is_finite() && penalty > 0.0 && (penalty - 1.0).abs() > f32::EPSILON {
            chain.push(LlamaSampler::penalties(
                self.model.n_vocab(),
                PENALTY_WINDOW,
                penalty,
                0.0,
                0.0,
            ));
        }
        match req.temperature {
            Some(t) if t > 0.0 => {
                let seed = req.seed.unwrap_or(self.config.seed);
                // llama.cpp seeds are 32-bit; fold the high half in so distinct u64 seeds differ.
                let seed32 = (seed ^ (seed >> 32)) as u32;
                chain.push(LlamaSampler::temp(t));
                chain.push(LlamaSampler::dist(seed32));
            }
            _ => chain.push(LlamaSampler::greedy()),
        }
        Ok(Samplers {
            grammar,
            chain: LlamaSampler::chain_simple(chain),
            resampled: 0,
        })
    }

    /// Runs one request to completion (or to the token cap, or until `cancelled` is set).
    pub(super) fn generate(
        &self,
        req: &ChatRequest,
        cancelled: &AtomicBool,
    ) -> Result<Generation, LlmError> {
        let prompt = self.render(&req.messages)?;
        let mut sampler = self.sampler(req)?;
        let vocab = self.model.vocab();
        let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        let n_prompt = tokens.len();
        let n_ctx = self.n_ctx as usize;
        if n_prompt == 0 || n_prompt >= n_ctx {
            return Err(LlmError::Rejected {
                status: 400,
                message: format!(
                    "local model: the prompt has {n_prompt} tokens; the context window holds {n_ctx}"
                ),
            });
        }
        let requested = req.max_tokens.unwrap_or(self.config.max_tokens_cap);
        let max_new = (requested.min(self.config.max_tokens_cap) as usize).min(n_ctx - n_prompt);

        let queued = Instant::now();
        let _gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        let queued_ms = elapsed_ms(queued);
        if cancelled.load(Ordering::Relaxed) {
            return Err(LlmError::Cancelled);
        }

        let started = Instant::now();
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.n_ctx))
            .with_n_batch(PROMPT_BATCH as u32)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let mut ctx = self
            .model
            .new_context(backend().map_err(LlmError::from)?, params)
            .map_err(|e| inference("context", e))?;
        let mut batch = LlamaBatch::new(PROMPT_BATCH, 1);
        for (chunk_index, chunk) in tokens.chunks(PROMPT_BATCH).enumerate() {
            batch.clear();
            for (i, token) in chunk.iter().enumerate() {
                let pos = chunk_index * PROMPT_BATCH + i;
                // Logits are needed only after the prompt's last token.
                batch
                    .add(*token, pos_i32(pos)?, &[0], pos + 1 == n_prompt)
                    .map_err(|e| inference("batch", e))?;
            }
            ctx.decode(&mut batch)
                .map_err(|e| inference("decode prompt", e))?;
        }
        let prompt_ms = elapsed_ms(started);

        let started = Instant::now();
        let mut bytes = Vec::new();
        let mut generated = 0_usize;
        let mut pos = n_prompt;
        let finish = loop {
            if generated >= max_new {
                break FinishReason::Length;
            }
            if cancelled.load(Ordering::Relaxed) {
                return Err(LlmError::Cancelled);
            }
            let token = sampler.next(&ctx, batch.n_tokens() - 1)?;
            if vocab.is_eog(token) {
                break FinishReason::Stop;
            }
            vocab.token_to_piece_into(token, &mut bytes, false, None);
            generated += 1;
            if generated >= max_new {
                // No need to decode a token nothing will follow.
                break FinishReason::Length;
            }
            batch.clear();
            batch
                .add(token, pos_i32(pos)?, &[0], true)
                .map_err(|e| inference("batch", e))?;
            pos += 1;
            ctx.decode(&mut batch).map_err(|e| inference("decode", e))?;
        };
        tracing::debug!(
            generated,
            resampled = sampler.resampled,
            "grammar rejected the unconstrained choice this many times"
        );
        Ok(Generation {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            finish,
            prompt_tokens: n_prompt as u64,
            completion_tokens: generated as u64,
            queued_ms,
            prompt_ms,
            generate_ms: elapsed_ms(started),
        })
    }
}

/// The samplers of one generation (see the module docs for why the grammar is not in the chain).
struct Samplers {
    /// The request's schema as a grammar; `None` for free text.
    grammar: Option<LlamaSampler>,
    /// Penalty, then greedy or temperature sampling.
    chain: LlamaSampler,
    /// Steps where the grammar rejected the chain's choice and the step was resampled.
    resampled: u64,
}

impl Samplers {
    /// Chooses the next token from the logits of batch position `idx` and accepts it into the
    /// grammar and the chain, each exactly once (accepting twice corrupts the grammar's stacks).
    fn next(&mut self, ctx: &LlamaContext<'_>, idx: i32) -> Result<LlamaToken, LlmError> {
        let mut candidates = ctx.token_data_array_ith(idx);
        candidates.apply_sampler(&mut self.chain);
        let mut token = selected(&candidates)?;
        if let Some(grammar) = &mut self.grammar {
            // The grammar sets a forbidden candidate's logit to -inf (an end-of-generation token
            // too, until the JSON is complete).
            let mut single =
                LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 1.0, 0.0)], false);
            single.apply_sampler(grammar);
            let allowed = single.data.first().is_some_and(|d| d.logit().is_finite());
            if !allowed {
                self.resampled += 1;
                let mut candidates = ctx.token_data_array_ith(idx);
                candidates.apply_sampler(grammar);
                candidates.apply_sampler(&mut self.chain);
                token = selected(&candidates)?;
            }
            grammar.try_accept(token).map_err(|e| {
                inference("grammar", format!("token {} not accepted: {e:?}", token.0))
            })?;
        }
        self.chain.accept(token);
        Ok(token)
    }
}

fn selected(candidates: &LlamaTokenDataArray) -> Result<LlamaToken, LlmError> {
    candidates
        .selected_token()
        .ok_or_else(|| inference("sampling", "the sampler chose no token"))
}

/// The schema the grammar is built from: every `"type": "number"` with integral `minimum` and
/// `maximum` at least 2 apart (judge scores, 0–10) becomes an integer in that range.
///
/// llama.cpp's converter enforces bounds on integers only; on numbers it allows any digits, and
/// SmolLM2 then writes `10.52` or `49786` for a 0–10 score, which validation rejects and the
/// scenario fails. Whole scores lose nothing a tiny model could express. Narrower ranges (a 0–1
/// ratio) keep their fractions and rely on validation. Only the grammar sees this schema; the
/// reply is still validated against the request's own.
fn integer_bounded_numbers(schema: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match schema {
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> = map
                .iter()
                .map(|(k, v)| (k.clone(), integer_bounded_numbers(v)))
                .collect();
            let integral = |key: &str| {
                map.get(key)
                    .and_then(Value::as_f64)
                    .filter(|x| x.fract() == 0.0 && x.abs() < 1e9)
            };
            if map.get("type").and_then(Value::as_str) == Some("number")
                && let (Some(lo), Some(hi)) = (integral("minimum"), integral("maximum"))
                && hi - lo >= 2.0
            {
                // Exact: both are integral and below 1e9.
                out.insert("type".into(), "integer".into());
                out.insert("minimum".into(), Value::from(lo as i64));
                out.insert("maximum".into(), Value::from(hi as i64));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(integer_bounded_numbers).collect()),
        other => other.clone(),
    }
}

fn pos_i32(pos: usize) -> Result<i32, LlmError> {
    i32::try_from(pos)
        .map_err(|_| inference("position", format!("{pos} does not fit llama.cpp's i32")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wide_integral_number_ranges_become_integers_for_the_grammar() {
        let schema = json!({"type": "object", "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 10.0},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1},
            "half": {"type": "number", "minimum": 0.5, "maximum": 10},
            "free": {"type": "number"},
            "list": {"type": "array", "items": {"type": "number", "minimum": 1, "maximum": 5}}
        }});
        let g = integer_bounded_numbers(&schema);
        let p = &g["properties"];
        assert_eq!(
            p["score"],
            json!({"type": "integer", "minimum": 0, "maximum": 10})
        );
        assert_eq!(p["ratio"], schema["properties"]["ratio"]);
        assert_eq!(p["half"], schema["properties"]["half"]);
        assert_eq!(p["free"], schema["properties"]["free"]);
        assert_eq!(p["list"]["items"]["type"], "integer");
    }

    #[test]
    fn the_bounded_grammar_converts() {
        let schema = json!({"type": "object", "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 10}}, "required": ["score"]});
        let grammar = grammar_for_schema(&integer_bounded_numbers(&schema)).expect("converts");
        assert!(
            grammar.contains("\"10\""),
            "a range rule for 0–10: {grammar}"
        );
    }
}
