//! The blocking side of the local provider: the process-wide llama.cpp backend, the loaded model,
//! and the preparation of one request (render the chat, tokenize, choose the samplers) before it
//! goes to the scheduler thread (`scheduler`), which owns the one llama.cpp context.
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

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Sender, sync_channel};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;

use super::scheduler::{self, Job, PROMPT_CHUNK, Penalty, Samplers, Sampling};
use super::{LocalConfig, LocalError, grammar_for_schema};
use crate::{ChatRequest, FinishReason, LlmError, Message, Role};

/// How many recent tokens the repetition penalty looks at.
const PENALTY_WINDOW: usize = 64;

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

/// What the scheduler thread and the callers share: the model and how to run it.
pub(super) struct Shared {
    pub(super) model: LlamaModel,
    template: LlamaChatTemplate,
    pub(super) config: LocalConfig,
    name: String,
    /// Context window of one request (the configured one capped at the training context).
    n_ctx: u32,
    threads: i32,
    /// Sequence slots of the context.
    pub(super) slots: usize,
    /// Running totals of what the scheduler did.
    pub(super) stats: Counters,
}

/// Totals since the model was loaded, updated by the scheduler thread.
#[derive(Default)]
pub(super) struct Counters {
    pub(super) answered: AtomicU64,
    pub(super) prompt_tokens: AtomicU64,
    pub(super) reused_prompt_tokens: AtomicU64,
    pub(super) completion_tokens: AtomicU64,
    pub(super) decode_steps: AtomicU64,
    pub(super) most_sequences_in_a_step: AtomicU64,
    pub(super) spared_prefixes: AtomicU64,
    pub(super) prompt_steps_us: AtomicU64,
    pub(super) generation_steps: AtomicU64,
    pub(super) generation_steps_us: AtomicU64,
    pub(super) sampling_us: AtomicU64,
}

impl Counters {
    pub(super) fn snapshot(&self) -> super::LocalStats {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        super::LocalStats {
            answered: get(&self.answered),
            prompt_tokens: get(&self.prompt_tokens),
            reused_prompt_tokens: get(&self.reused_prompt_tokens),
            completion_tokens: get(&self.completion_tokens),
            decode_steps: get(&self.decode_steps),
            most_sequences_in_a_step: get(&self.most_sequences_in_a_step),
            spared_prefixes: get(&self.spared_prefixes),
            prompt_steps_ms: get(&self.prompt_steps_us) / 1000,
            generation_steps: get(&self.generation_steps),
            generation_steps_ms: get(&self.generation_steps_us) / 1000,
            sampling_ms: get(&self.sampling_us) / 1000,
        }
    }
}

/// A loaded model and the queue of its scheduler thread.
pub(super) struct Engine {
    shared: Arc<Shared>,
    /// `None` only while dropping.
    jobs: Option<Sender<Job>>,
    scheduler: Option<JoinHandle<()>>,
}

impl Drop for Engine {
    /// Closes the queue and waits for the scheduler thread to answer what it holds and free the
    /// context. Freeing it on that thread while the process exits races the CUDA runtime's own
    /// teardown (ggml aborts, exit code 134, seen on an H100); waiting here frees it first.
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.scheduler.take() {
            let _ = thread.join();
        }
    }
}

/// What one generation produced, with its timings.
pub(super) struct Generation {
    pub(super) text: String,
    pub(super) finish: FinishReason,
    pub(super) prompt_tokens: u64,
    /// Prompt tokens whose KV cells were reused from the prefix cache (not decoded again).
    pub(super) reused_prompt_tokens: u64,
    pub(super) completion_tokens: u64,
    /// Time spent waiting for a free slot.
    pub(super) queued_ms: u64,
    /// Time to read the prompt, in steps shared with the other slots.
    pub(super) prompt_ms: u64,
    /// Time spent sampling and decoding the reply, in steps shared with the other slots.
    pub(super) generate_ms: u64,
    /// Steps where the grammar rejected the unconstrained choice.
    pub(super) resampled: u64,
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

pub(super) fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

pub(super) fn inference(what: &str, e: impl std::fmt::Display) -> LlmError {
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
        // With a GPU build (`cuda`) every layer goes to the GPU when one is present.
        let gpu_layers = if backend.supports_gpu_offload() {
            u32::MAX
        } else {
            0
        };
        let params = LlamaModelParams::default().with_n_gpu_layers(gpu_layers);
        let model =
            LlamaModel::load_from_file(backend, &config.model_path, &params).map_err(|e| {
                LocalError::Load {
                    path: config.model_path.clone(),
                    reason: e.to_string(),
                }
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
        let slots = config
            .slots
            .unwrap_or_else(crate::default_local_slots)
            .clamp(1, 64) as usize;
        let name = config
            .model_path
            .file_stem()
            .map_or_else(|| "local".to_owned(), |s| s.to_string_lossy().into_owned());
        let shared = Arc::new(Shared {
            model,
            template,
            n_ctx,
            threads: i32::try_from(threads).unwrap_or(1),
            name,
            config,
            slots,
            stats: Counters::default(),
        });
        let (jobs, scheduler) = spawn_scheduler(&shared)?;
        tracing::info!(
            model = %shared.name,
            path = %shared.config.model_path.display(),
            params = shared.model.n_params(),
            n_ctx,
            slots,
            prefix_reuse = shared.config.prefix_reuse,
            threads,
            gpu_layers = if gpu_layers == 0 { 0 } else { shared.model.n_layer() },
            load_ms = elapsed_ms(started),
            "local model loaded"
        );
        Ok(Self {
            shared,
            jobs: Some(jobs),
            scheduler: Some(scheduler),
        })
    }

    pub(super) fn name(&self) -> &str {
        &self.shared.name
    }

    pub(super) fn config(&self) -> &LocalConfig {
        &self.shared.config
    }

    pub(super) fn slots(&self) -> usize {
        self.shared.slots
    }

    pub(super) fn stats(&self) -> super::LocalStats {
        self.shared.stats.snapshot()
    }

    pub(super) fn count_tokens(&self, text: &str) -> usize {
        self.shared
            .model
            .vocab()
            .tokenize(text.as_bytes(), false, false)
            .len()
    }

    /// Renders and tokenizes the request and queues it for a slot (blocking: tokenizing and the
    /// schema conversion take a few milliseconds). The answer comes on the returned channel.
    pub(super) fn submit(
        &self,
        req: &ChatRequest,
        cancelled: Arc<AtomicBool>,
    ) -> Result<tokio::sync::oneshot::Receiver<Result<Generation, LlmError>>, LlmError> {
        let shared = &self.shared;
        let prompt = shared.render(&req.messages)?;
        let tokens = shared.model.vocab().tokenize(prompt.as_bytes(), true, true);
        let n_prompt = tokens.len();
        let n_ctx = shared.n_ctx as usize;
        if n_prompt == 0 || n_prompt >= n_ctx {
            return Err(LlmError::Rejected {
                status: 400,
                message: format!(
                    "local model: the prompt has {n_prompt} tokens; the context window holds {n_ctx}"
                ),
            });
        }
        let requested = req.max_tokens.unwrap_or(shared.config.max_tokens_cap);
        // At least one token: a sequence ends after a sampled token.
        let max_new = (requested.min(shared.config.max_tokens_cap) as usize)
            .min(n_ctx - n_prompt)
            .max(1);
        let grammar = match &req.output_schema {
            // A tool's arguments keep their fractions (an amount of 12.75 within 0–10,000):
            // only agents' own schemas (judge scores) get whole-number ranges.
            Some(schema) if super::tools::is_tool_reply(schema) => {
                Some((grammar_for_schema(&schema.schema)?, schema.name.clone()))
            }
            Some(schema) => Some((
                grammar_for_schema(&integer_bounded_numbers(&schema.schema))?,
                schema.name.clone(),
            )),
            None => None,
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job = Job {
            prompt: tokens,
            max_new,
            sampling: Sampling {
                grammar,
                temperature: req.temperature,
                seed: req.seed.unwrap_or(shared.config.seed),
            },
            cancelled,
            enqueued: Instant::now(),
            reply,
        };
        self.jobs
            .as_ref()
            .and_then(|jobs| jobs.send(job).ok())
            .ok_or_else(|| inference("scheduler", "the inference thread has stopped"))?;
        Ok(answer)
    }
}

/// Starts the scheduler thread and waits until it has created its context (so a context that
/// cannot be created fails the load, not every call).
fn spawn_scheduler(shared: &Arc<Shared>) -> Result<(Sender<Job>, JoinHandle<()>), LocalError> {
    let (jobs, receiver) = std::sync::mpsc::channel::<Job>();
    let (ready, started) = sync_channel::<Result<(), String>>(1);
    let thread_shared = Arc::clone(shared);
    let thread = std::thread::Builder::new()
        .name("llama-scheduler".into())
        .spawn(move || {
            let mut ctx = match thread_shared.new_context() {
                Ok(ctx) => {
                    let _ = ready.send(Ok(()));
                    ctx
                }
                Err(e) => {
                    let _ = ready.send(Err(e.to_string()));
                    return;
                }
            };
            scheduler::run(&thread_shared, &mut ctx, &receiver);
        })
        .map_err(|e| LocalError::Backend(format!("cannot start the inference thread: {e}")))?;
    match started.recv() {
        Ok(Ok(())) => Ok((jobs, thread)),
        Ok(Err(e)) => Err(LocalError::Backend(e)),
        Err(_) => Err(LocalError::Backend(
            "the inference thread stopped while creating its context".into(),
        )),
    }
}

impl Shared {
    /// Spare sequences that only keep prefixes (see the scheduler's docs): none without prefix
    /// reuse, else as many as slots, at most [`scheduler::MAX_SPARES`].
    pub(super) fn spares(&self) -> usize {
        if self.config.prefix_reuse {
            self.slots.min(scheduler::MAX_SPARES)
        } else {
            0
        }
    }

    /// The one context: `slots + spares` sequences, each with its own KV stream of `n_ctx` cells.
    pub(super) fn new_context(&self) -> Result<LlamaContext<'_>, LlmError> {
        let streams = u32::try_from(self.slots + self.spares()).unwrap_or(1);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.n_ctx.saturating_mul(streams)))
            .with_n_batch(u32::try_from(PROMPT_CHUNK.max(self.slots)).unwrap_or(u32::MAX))
            .with_n_seq_max(streams)
            .with_kv_unified(false)
            // Off: see the scheduler's docs (llama.cpp's `LLAMA_FLASH_ATTN_TYPE_DISABLED`).
            .with_flash_attention_policy(0)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        self.model
            .new_context(backend().map_err(LlmError::from)?, params)
            .map_err(|e| inference("context", e))
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

    /// Builds the samplers of one job: its grammar (if any), kept apart, the repetition penalty,
    /// then greedy decoding, or temperature plus seeded sampling.
    pub(super) fn samplers(&self, sampling: &Sampling) -> Result<Samplers, LlmError> {
        let grammar = match &sampling.grammar {
            Some((grammar, name)) => Some(
                LlamaSampler::grammar(&self.model, grammar, "root").map_err(|e| {
                    LlmError::Rejected {
                        status: 422,
                        message: format!("local model: grammar for schema {name:?}: {e}"),
                    }
                })?,
            ),
            None => None,
        };
        let penalty = self.config.repeat_penalty;
        let penalty =
            (penalty.is_finite() && penalty > 0.0 && (penalty - 1.0).abs() > f32::EPSILON)
                .then(|| Penalty::new(penalty, PENALTY_WINDOW));
        let (pick, greedy) = match sampling.temperature {
            Some(t) if t > 0.0 => {
                let seed = sampling.seed;
                // llama.cpp seeds are 32-bit; fold the high half in so distinct u64 seeds differ.
                let seed32 = (seed ^ (seed >> 32)) as u32;
                (
                    LlamaSampler::chain_simple([LlamaSampler::temp(t), LlamaSampler::dist(seed32)]),
                    false,
                )
            }
            _ => (LlamaSampler::greedy(), true),
        };
        Ok(Samplers {
            grammar,
            penalty,
            scratch: Vec::new(),
            pick,
            greedy,
            resampled: 0,
        })
    }
}

/// The schema the grammar is built from: every `"type": "number"` with integral `minimum` and
/// `maximum` at least 2 apart (judge scores, 0–10) becomes an integer in that range.
///
/// The grammar (`crate::gbnf`) enforces bounds on integers only; on numbers it allows any digits, and
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
