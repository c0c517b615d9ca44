//! Continuous batching: one long-lived llama.cpp context with several sequence slots, driven by
//! one thread, as llama.cpp's own server does with `--parallel N`.
//!
//! Requests ([`Job`]s) arrive on a channel and a free slot takes the oldest waiting one. Each
//! step is one `llama_decode`: either the next token of **every** generating sequence at once (the
//! weights are read once for all of them, which is where batching pays on a CPU), or the next
//! chunk of one sequence's prompt; the two alternate while both kinds of work wait. Each sequence
//! has its own samplers (penalty, greedy or seeded sampling, grammar); a finished sequence
//! answers its caller and frees its slot at once.
//!
//! **Prefix reuse.** A slot keeps the tokens whose KV cells it holds after its request ends (at
//! most `n_ctx` tokens per slot, the memory the context was sized for). A new request takes the
//! free slot sharing the longest prefix with its prompt, or copies the cells of the sequence that
//! shares the most (`llama_memory_seq_cp`), and decodes only the rest. Before a new request
//! overwrites a slot's cells, the slot is copied to a **spare** sequence (at most
//! [`MAX_SPARES`]) when at least [`SPARE_MIN`] of its tokens are held by no other sequence and
//! that is more than the spare it replaces holds alone (see `keep_in_spare`): the pipeline has
//! six prompt families (a generator, four judges, a refiner), each beginning with instructions
//! every scenario shares, more than the slots alone keep. When a slot is still reading a prompt that shares a long prefix with a waiting request
//! (a scenario's four judges arrive together), the request waits until that prefix is decoded
//! instead of decoding it a second time.
//!
//! **The same reply, batched or not.** At temperature 0 a request's reply does not depend on the
//! other requests being served, nor on what was reused. llama.cpp's results depend on the shape
//! of the computation, so the shape is fixed: each slot has its own KV stream (not a unified
//! cache, where a sequence's cells interleave with others' and sums run in another order), so
//! its cells sit at the same places as in a context of its own; flash attention is off (its CPU
//! kernel changes algorithm with the number of queries); the build disables llamafile's sgemm
//! (`.cargo/config.toml`), whose kernels differ from ggml's for one row and for several; and a
//! prompt chunk never has a single token unless the whole prompt is one token (a one-row product
//! takes another kernel), so at least two prompt tokens are always decoded. The smoke test
//! `batched_replies_equal_serialised_replies_and_grammars_hold` checks it on the real model.
//!
//! The KV cache holds `(slots + spares) × n_ctx` cells and every sequence holds at most `n_ctx`
//! tokens (the prompt plus its capped reply), so no sequence can run out of cells; memory is
//! bounded by sequences × context, not by the number of requests waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

use super::engine::{Generation, Shared, elapsed_ms, inference};
use crate::{FinishReason, LlmError};

/// Prompt tokens decoded per `llama_decode` call at most.
pub(super) const PROMPT_CHUNK: usize = 512;

/// Spare sequences at most (see the module docs).
pub(super) const MAX_SPARES: usize = 4;

/// A slot's cells are copied to a spare before a new request overwrites them when at least this
/// many of its tokens are held by no other sequence.
const SPARE_MIN: usize = 64;

/// A waiting request is held back for a slot that is still reading a prompt sharing at least
/// this many more tokens with it than any decoded prefix does.
const WAIT_FOR_PREFIX: usize = 32;

/// How a job samples.
pub(super) struct Sampling {
    /// GBNF grammar of the output schema, if any.
    pub(super) grammar: Option<(String, String)>,
    /// `Some(t)` with `t > 0`: temperature sampling with `seed`; otherwise greedy.
    pub(super) temperature: Option<f32>,
    pub(super) seed: u64,
}

/// One request for the scheduler.
pub(super) struct Job {
    pub(super) prompt: Vec<LlamaToken>,
    pub(super) max_new: usize,
    pub(super) sampling: Sampling,
    pub(super) cancelled: Arc<AtomicBool>,
    pub(super) enqueued: Instant,
    pub(super) reply: tokio::sync::oneshot::Sender<Result<Generation, LlmError>>,
}

/// A request being served by a slot.
struct Active {
    job: Job,
    samplers: Samplers,
    /// Prompt tokens whose KV cells are in the slot (reused or decoded).
    n_past: usize,
    /// Prompt tokens reused from the prefix cache.
    reused: usize,
    /// The sampled token still to be decoded, while generating.
    pending: Option<LlamaToken>,
    /// Index of this sequence's logits in the batch just decoded.
    logits_at: Option<i32>,
    bytes: Vec<u8>,
    generated: usize,
    queued_ms: u64,
    admitted: Instant,
    first_token: Option<Instant>,
}

/// A sequence of the context.
struct Slot {
    seq: i32,
    /// The tokens whose KV cells this sequence holds, in position order.
    cached: Vec<LlamaToken>,
    active: Option<Active>,
    /// When the slot last finished a request (least recently used is evicted first).
    last_used: u64,
}

impl Slot {
    fn new(i: usize) -> Self {
        Self {
            seq: i32::try_from(i).unwrap_or(i32::MAX),
            cached: Vec::new(),
            active: None,
            last_used: 0,
        }
    }
}

/// Prompt tokens that may come from the cache: all but the last two (see the module docs).
fn reusable(prompt: &[LlamaToken]) -> usize {
    prompt.len().saturating_sub(2)
}

/// The next prompt chunk when `remaining` tokens are left: never leaves a single token for later.
fn chunk_len(remaining: usize) -> usize {
    let chunk = remaining.min(PROMPT_CHUNK);
    if remaining - chunk == 1 {
        chunk - 1
    } else {
        chunk
    }
}

fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Serves jobs on `ctx` until every sender of `jobs` is gone and no request is left.
pub(super) fn run(shared: &Arc<Shared>, ctx: &mut LlamaContext<'_>, jobs: &Receiver<Job>) {
    let mut state = Scheduler {
        shared,
        slots: (0..shared.slots).map(Slot::new).collect(),
        spares: (shared.slots..shared.slots + shared.spares())
            .map(Slot::new)
            .collect(),
        waiting: std::collections::VecDeque::new(),
        clock: 0,
        batch: LlamaBatch::new(PROMPT_CHUNK.max(shared.slots), 1),
        prompt_turn: true,
    };
    loop {
        let idle = state.slots.iter().all(|s| s.active.is_none()) && state.waiting.is_empty();
        if idle {
            match jobs.recv() {
                Ok(job) => state.waiting.push_back(job),
                Err(_) => {
                    let totals = shared.stats.snapshot();
                    tracing::info!(?totals, "local model totals");
                    return;
                }
            }
        }
        while let Ok(job) = jobs.try_recv() {
            state.waiting.push_back(job);
        }
        state.drop_cancelled();
        state.admit(ctx);
        state.step(ctx);
    }
}

struct Scheduler<'s> {
    shared: &'s Arc<Shared>,
    slots: Vec<Slot>,
    /// Sequences that only keep prefixes a slot was about to overwrite (never active).
    spares: Vec<Slot>,
    waiting: std::collections::VecDeque<Job>,
    clock: u64,
    batch: LlamaBatch<'static>,
    /// Whether the next step reads a prompt chunk (when generation waits too, they alternate).
    prompt_turn: bool,
}

impl Scheduler<'_> {
    /// Answers cancelled requests (waiting or active) and frees their slots; the KV cells a
    /// cancelled sequence decoded stay valid and stay cached.
    fn drop_cancelled(&mut self) {
        // A waiting request's caller is gone; nobody reads an answer.
        self.waiting
            .retain(|job| !job.cancelled.load(Ordering::Relaxed));
        for slot in &mut self.slots {
            if slot
                .active
                .as_ref()
                .is_some_and(|a| a.job.cancelled.load(Ordering::Relaxed))
                && let Some(active) = slot.active.take()
            {
                // The decoded tokens stay cached; a pending token was never decoded.
                let _ = active.job.reply.send(Err(LlmError::Cancelled));
            }
        }
    }

    /// Moves waiting jobs into free slots, reusing the longest cached prefix.
    fn admit(&mut self, ctx: &mut LlamaContext<'_>) {
        let mut i = 0;
        while i < self.waiting.len() {
            if !self.slots.iter().any(|s| s.active.is_none()) {
                return;
            }
            let prompt = &self.waiting[i].prompt;
            let reusable = reusable(prompt);
            let reuse = self.shared.config.prefix_reuse;
            // The longest decoded prefix anywhere, and the longest one still being read.
            let (src, best) = if reuse {
                self.slots
                    .iter()
                    .chain(&self.spares)
                    .map(|s| (s.seq, common_prefix(&s.cached, prompt).min(reusable)))
                    .max_by_key(|&(_, n)| n)
                    .unwrap_or((0, 0))
            } else {
                (0, 0)
            };
            let coming = if reuse {
                self.slots
                    .iter()
                    .filter_map(|s| s.active.as_ref())
                    .filter(|a| a.n_past < a.job.prompt.len())
                    .map(|a| common_prefix(&a.job.prompt, prompt).min(reusable))
                    .max()
                    .unwrap_or(0)
            } else {
                0
            };
            if coming >= best + WAIT_FOR_PREFIX {
                i += 1;
                continue;
            }
            let Some(job) = self.waiting.remove(i) else {
                return;
            };
            self.start(ctx, job, src, best);
        }
    }

    /// Puts `job` in the free slot that keeps the most of `best` tokens from slot `src`.
    fn start(&mut self, ctx: &mut LlamaContext<'_>, job: Job, src: i32, best: usize) {
        let reusable = if self.shared.config.prefix_reuse {
            reusable(&job.prompt)
        } else {
            0
        };
        // Prefer the free slot already holding the most of the prompt, then the least recently
        // used one (so useful prefixes stay cached longest).
        let Some(dest) = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.active.is_none())
            .max_by_key(|(_, s)| {
                (
                    common_prefix(&s.cached, &job.prompt).min(reusable),
                    std::cmp::Reverse(s.last_used),
                )
            })
            .map(|(i, _)| i)
        else {
            self.waiting.push_front(job);
            return;
        };
        let own = common_prefix(&self.slots[dest].cached, &job.prompt).min(reusable);
        let seq = self.slots[dest].seq;
        let used = if best > own && src != seq { src } else { seq };
        if reusable > 0 {
            self.keep_in_spare(ctx, dest, own, used);
        }
        if let Some(spare) = self.spares.iter_mut().find(|s| s.seq == used) {
            spare.last_used = self.clock;
        }
        let kept = if best > own && src != seq {
            // Between streams llama.cpp copies whole sequences only: copy, then cut the tail.
            let _ = ctx.clear_kv_cache_seq(Some(seq_u32(seq)), None, None);
            let _ = ctx.copy_kv_cache_seq(src, seq, None, None);
            keep_prefix(ctx, seq, best)
        } else {
            keep_prefix(ctx, seq, own)
        };
        let slot = &mut self.slots[dest];
        slot.cached = job.prompt[..kept].to_vec();
        let samplers = match self.shared.samplers(&job.sampling) {
            Ok(s) => s,
            Err(e) => {
                let _ = job.reply.send(Err(e));
                return;
            }
        };
        let queued_ms = elapsed_ms(job.enqueued);
        tracing::debug!(
            seq,
            reused = kept,
            prompt = job.prompt.len(),
            "local slot admitted"
        );
        slot.active = Some(Active {
            job,
            samplers,
            n_past: kept,
            reused: kept,
            pending: None,
            logits_at: None,
            bytes: Vec::new(),
            generated: 0,
            queued_ms,
            admitted: Instant::now(),
            first_token: None,
        });
    }

    /// Before slot `dest` keeps only `own` of its cached tokens, copies its cells to a spare
    /// when that keeps more than it drops. A sequence's worth is the part of its tokens no other
    /// sequence holds: the slot's must be at least [`SPARE_MIN`], and more than that of the spare
    /// it replaces, the one worth least (then least recently used; never `source`, which the new
    /// request is about to read). A spare holding the same instructions with other texts is worth
    /// only its texts, so the spares keep different prompt families rather than copies of one.
    fn keep_in_spare(&mut self, ctx: &mut LlamaContext<'_>, dest: usize, own: usize, source: i32) {
        let content = &self.slots[dest].cached;
        let held = self.held_elsewhere(content, self.slots[dest].seq).max(own);
        let worth = content.len().saturating_sub(held);
        if worth < SPARE_MIN {
            return;
        }
        // What losing a spare would drop: its tokens that no other sequence (the slot's content
        // included, once copied) holds.
        let spares = &self.spares;
        let loss = |k: usize| {
            spares[k].cached.len() - self.held_elsewhere(&spares[k].cached, spares[k].seq)
        };
        let Some((victim, lost)) = (0..spares.len())
            .filter(|&k| spares[k].seq != source)
            .map(|k| (k, loss(k)))
            .min_by_key(|&(k, lost)| (lost, spares[k].last_used))
        else {
            return;
        };
        if worth <= lost {
            return;
        }
        let spare = &mut self.spares[victim];
        let _ = ctx.clear_kv_cache_seq(Some(seq_u32(spare.seq)), None, None);
        spare.last_used = self.clock;
        match ctx.copy_kv_cache_seq(self.slots[dest].seq, spare.seq, None, None) {
            Ok(()) => {
                spare.cached.clone_from(&self.slots[dest].cached);
                let stats = &self.shared.stats;
                stats.spared_prefixes.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => spare.cached.clear(),
        }
    }

    /// The longest prefix of `cells` that a sequence other than `seq` (slot or spare) holds.
    fn held_elsewhere(&self, cells: &[LlamaToken], seq: i32) -> usize {
        self.slots
            .iter()
            .chain(&self.spares)
            .filter(|s| s.seq != seq)
            .map(|s| common_prefix(&s.cached, cells))
            .max()
            .unwrap_or(0)
    }

    /// One `llama_decode` over every active sequence, then sampling.
    fn step(&mut self, ctx: &mut LlamaContext<'_>) {
        let started = Instant::now();
        let (sequences, prompt_step) = match self.fill_batch() {
            Ok(step) => step,
            Err(e) => {
                self.fail_all(ctx, &e);
                return;
            }
        };
        if sequences == 0 {
            return;
        }
        if let Err(e) = ctx.decode(&mut self.batch) {
            self.fail_all(ctx, &inference("decode", e));
            return;
        }
        let stats = &self.shared.stats;
        stats.decode_steps.fetch_add(1, Ordering::Relaxed);
        stats
            .most_sequences_in_a_step
            .fetch_max(sequences, Ordering::Relaxed);
        // A GPU decodes asynchronously: wait for it here, so the sampling time below is the
        // choosing of tokens and not the decode.
        ctx.synchronize();
        let vocab = self.shared.model.vocab();
        let sampling = Instant::now();
        for slot in &mut self.slots {
            let Some(active) = &mut slot.active else {
                continue;
            };
            let Some(idx) = active.logits_at.take() else {
                continue;
            };
            if active.first_token.is_none() {
                active.first_token = Some(Instant::now());
            }
            let token = match active.samplers.next(ctx, idx) {
                Ok(t) => t,
                Err(e) => {
                    finish(slot, Err(e), &mut self.clock);
                    continue;
                }
            };
            let done = if vocab.is_eog(token) {
                Some(FinishReason::Stop)
            } else {
                vocab.token_to_piece_into(token, &mut active.bytes, false, None);
                active.generated += 1;
                // No need to decode a token nothing will follow.
                (active.generated >= active.job.max_new).then_some(FinishReason::Length)
            };
            match done {
                Some(reason) => {
                    let generation = active.generation(reason);
                    stats.answered.fetch_add(1, Ordering::Relaxed);
                    stats
                        .prompt_tokens
                        .fetch_add(generation.prompt_tokens, Ordering::Relaxed);
                    stats
                        .reused_prompt_tokens
                        .fetch_add(generation.reused_prompt_tokens, Ordering::Relaxed);
                    stats
                        .completion_tokens
                        .fetch_add(generation.completion_tokens, Ordering::Relaxed);
                    finish(slot, Ok(generation), &mut self.clock);
                }
                None => active.pending = Some(token),
            }
        }
        let micros =
            |since: Instant| u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
        stats
            .sampling_us
            .fetch_add(micros(sampling), Ordering::Relaxed);
        let us = micros(started);
        if prompt_step {
            stats.prompt_steps_us.fetch_add(us, Ordering::Relaxed);
        } else {
            stats.generation_steps.fetch_add(1, Ordering::Relaxed);
            stats.generation_steps_us.fetch_add(us, Ordering::Relaxed);
        }
    }

    /// The next batch: the next token of every generating sequence, or the next prompt chunk of
    /// the longest-waiting sequence still reading its prompt (alternating when both wait).
    /// Returns how many sequences the batch advances and whether it reads a prompt chunk.
    fn fill_batch(&mut self) -> Result<(u64, bool), LlmError> {
        self.batch.clear();
        let generating = self
            .slots
            .iter()
            .any(|s| s.active.as_ref().is_some_and(|a| a.pending.is_some()));
        let reading = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.active.as_ref().map(|a| (i, a)))
            .filter(|(_, a)| a.n_past < a.job.prompt.len())
            .min_by_key(|(_, a)| a.admitted)
            .map(|(i, _)| i);
        let prompt_step = match reading {
            Some(_) if !generating => true,
            Some(_) => {
                self.prompt_turn = !self.prompt_turn;
                !self.prompt_turn
            }
            None => false,
        };
        if prompt_step && let Some(i) = reading {
            let slot = &mut self.slots[i];
            if let Some(active) = &mut slot.active {
                let prompt_len = active.job.prompt.len();
                let end = active.n_past + chunk_len(prompt_len - active.n_past);
                for pos in active.n_past..end {
                    let last = pos + 1 == prompt_len;
                    if last {
                        active.logits_at = Some(self.batch.n_tokens());
                    }
                    let token = active.job.prompt[pos];
                    self.batch
                        .add(token, pos_i32(pos)?, &[slot.seq], last)
                        .map_err(|e| inference("batch", e))?;
                    slot.cached.push(token);
                }
                active.n_past = end;
            }
            return Ok((1, true));
        }
        let mut sequences = 0;
        for slot in &mut self.slots {
            let Some(active) = &mut slot.active else {
                continue;
            };
            if let Some(token) = active.pending.take() {
                let pos = slot.cached.len();
                active.logits_at = Some(self.batch.n_tokens());
                self.batch
                    .add(token, pos_i32(pos)?, &[slot.seq], true)
                    .map_err(|e| inference("batch", e))?;
                slot.cached.push(token);
                sequences += 1;
            }
        }
        Ok((sequences, false))
    }

    /// A decode failed: every active request gets the error and its slot's cells are dropped
    /// (their state is unknown).
    fn fail_all(&mut self, ctx: &mut LlamaContext<'_>, error: &LlmError) {
        tracing::warn!(%error, "local model: a decode step failed; its requests fail");
        for slot in &mut self.slots {
            if slot.active.is_some() {
                let _ = ctx.clear_kv_cache_seq(Some(seq_u32(slot.seq)), None, None);
                slot.cached.clear();
                finish(slot, Err(error.clone()), &mut self.clock);
            }
        }
    }
}

/// Drops sequence `seq`'s cells from position `n` on and returns `n`; when llama.cpp cannot cut
/// there, drops them all and returns 0.
fn keep_prefix(ctx: &mut LlamaContext<'_>, seq: i32, n: usize) -> usize {
    let cut = ctx.clear_kv_cache_seq(Some(seq_u32(seq)), u32::try_from(n).ok(), None);
    if matches!(cut, Ok(true)) {
        n
    } else {
        let _ = ctx.clear_kv_cache_seq(Some(seq_u32(seq)), None, None);
        0
    }
}

/// Answers the slot's request and frees the slot; its cached tokens stay for reuse.
fn finish(slot: &mut Slot, result: Result<Generation, LlmError>, clock: &mut u64) {
    if let Some(active) = slot.active.take() {
        *clock += 1;
        slot.last_used = *clock;
        let _ = active.job.reply.send(result);
    }
}

impl Active {
    fn generation(&mut self, finish: FinishReason) -> Generation {
        let first = self.first_token.unwrap_or(self.admitted);
        Generation {
            text: String::from_utf8_lossy(&self.bytes).into_owned(),
            finish,
            prompt_tokens: self.job.prompt.len() as u64,
            reused_prompt_tokens: self.reused as u64,
            completion_tokens: self.generated as u64,
            queued_ms: self.queued_ms,
            prompt_ms: u64::try_from(first.duration_since(self.admitted).as_millis())
                .unwrap_or(u64::MAX),
            generate_ms: elapsed_ms(first),
            resampled: self.samplers.resampled,
        }
    }
}

fn seq_u32(seq: i32) -> u32 {
    u32::try_from(seq).unwrap_or(0)
}

fn pos_i32(pos: usize) -> Result<i32, LlmError> {
    i32::try_from(pos)
        .map_err(|_| inference("position", format!("{pos} does not fit llama.cpp's i32")))
}

/// The samplers of one generation (see the engine's docs for why the grammar is not in the
/// chain).
pub(super) struct Samplers {
    /// The request's schema as a grammar; `None` for free text.
    pub(super) grammar: Option<LlamaSampler>,
    /// The repetition penalty, if any.
    pub(super) penalty: Option<Penalty>,
    /// The logits of the step being sampled, penalized (reused across steps).
    pub(super) scratch: Vec<f32>,
    /// Greedy, or temperature plus seeded sampling.
    pub(super) pick: LlamaSampler,
    /// Whether `pick` is greedy (the grammar's fallback can then walk the best candidates).
    pub(super) greedy: bool,
    /// Steps where the grammar rejected the first choice and the step was resampled.
    pub(super) resampled: u64,
}

/// Candidates a greedy step checks one by one, best first, when the grammar rejected the best
/// one, before masking the whole vocabulary.
const GREEDY_WALK: usize = 64;

impl Samplers {
    /// Chooses the next token from the logits of batch position `idx` and accepts it into the
    /// grammar and the other samplers, each exactly once (accepting twice corrupts the grammar's
    /// stacks).
    ///
    /// The logits are copied once and penalized by token id; a greedy step is an argmax over
    /// them (llama.cpp's greedy sampler: the first of equal maxima). Only a step the grammar
    /// refuses, or a sampled (non-greedy) one, builds the 49k-entry candidate array llama.cpp's
    /// samplers work on. Building it, and llama.cpp's penalty sampler looking every entry up in
    /// a hash map, cost about 1.3 ms a token: on a GPU, more than the decode step itself.
    fn next(&mut self, ctx: &LlamaContext<'_>, idx: i32) -> Result<LlamaToken, LlmError> {
        self.scratch.clear();
        self.scratch.extend_from_slice(ctx.get_logits_ith(idx));
        if let Some(penalty) = &self.penalty {
            penalty.apply(&mut self.scratch);
        }
        let candidates = |logits: &[f32]| {
            LlamaTokenDataArray::new(
                (0_i32..)
                    .zip(logits)
                    .map(|(id, &logit)| LlamaTokenData::new(LlamaToken(id), logit, 0.0))
                    .collect(),
                false,
            )
        };
        let mut token = if self.greedy {
            argmax(&self.scratch)
                .ok_or_else(|| inference("sampling", "the model returned no logits"))?
        } else {
            let mut all = candidates(&self.scratch);
            all.apply_sampler(&mut self.pick);
            selected(&all)?
        };
        if let Some(grammar) = &mut self.grammar
            && !allows(grammar, token)
        {
            self.resampled += 1;
            let all = candidates(&self.scratch);
            // Greedy under a grammar is the best candidate the grammar allows: walk the best few
            // (the same token full masking would pick, ties going to the lower id, as llama.cpp's
            // greedy sampler breaks them), and mask everything only if none is.
            token = match self
                .greedy
                .then(|| best_allowed(&all.data, grammar))
                .flatten()
            {
                Some(t) => t,
                None => {
                    let mut all = all;
                    all.apply_sampler(grammar);
                    all.apply_sampler(&mut self.pick);
                    let chosen = selected(&all)?;
                    // llama.cpp aborts the process when its grammar is given a token it refuses
                    // (an exception across the FFI): when it allows none, the call fails.
                    if !allows(grammar, chosen) {
                        return Err(inference("grammar", "the grammar allows no token here"));
                    }
                    chosen
                }
            };
        }
        // Every token reaching here is one the grammar allows (checked above).
        if let Some(grammar) = &mut self.grammar {
            grammar.accept(token);
        }
        if let Some(penalty) = &mut self.penalty {
            penalty.accept(token);
        }
        self.pick.accept(token);
        Ok(token)
    }
}

/// llama.cpp's greedy choice: the index of the first of the largest values (`None` when empty).
fn argmax(logits: &[f32]) -> Option<LlamaToken> {
    let mut best = 0;
    for (i, &logit) in logits.iter().enumerate().skip(1) {
        if logit > logits[best] {
            best = i;
        }
    }
    (!logits.is_empty()).then(|| LlamaToken(i32::try_from(best).unwrap_or(i32::MAX)))
}

/// The repetition penalty of llama.cpp's `penalties` sampler with frequency and presence
/// penalties 0 (the only kind the engine asks for): a token among the last `window` generated
/// has its logit divided by `repeat` (multiplied when not positive). Applied by token id to the
/// few tokens of the window; the values are those llama.cpp computes.
pub(super) struct Penalty {
    repeat: f32,
    window: usize,
    recent: std::collections::VecDeque<LlamaToken>,
    counts: std::collections::HashMap<LlamaToken, u32>,
}

impl Penalty {
    pub(super) fn new(repeat: f32, window: usize) -> Self {
        Self {
            repeat,
            window,
            recent: std::collections::VecDeque::with_capacity(window),
            counts: std::collections::HashMap::new(),
        }
    }

    /// Penalizes, in `logits` indexed by token id, every token of the window.
    fn apply(&self, logits: &mut [f32]) {
        for token in self.counts.keys() {
            if let Some(logit) = usize::try_from(token.0)
                .ok()
                .and_then(|i| logits.get_mut(i))
            {
                if *logit <= 0.0 {
                    *logit *= self.repeat;
                } else {
                    *logit /= self.repeat;
                }
            }
        }
    }

    /// Adds a generated token to the window, dropping the oldest when it is full.
    fn accept(&mut self, token: LlamaToken) {
        if self.window == 0 {
            return;
        }
        *self.counts.entry(token).or_insert(0) += 1;
        if self.recent.len() >= self.window
            && let Some(old) = self.recent.pop_front()
            && let Some(n) = self.counts.get_mut(&old)
        {
            *n -= 1;
            if *n == 0 {
                self.counts.remove(&old);
            }
        }
        self.recent.push_back(token);
    }
}

/// Whether the grammar allows `token` next (it sets a forbidden candidate's logit to -inf; an
/// end-of-generation token too, until the JSON is complete).
fn allows(grammar: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut single = LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 1.0, 0.0)], false);
    single.apply_sampler(grammar);
    single.data.first().is_some_and(|d| d.logit().is_finite())
}

/// The highest-logit candidate among the best [`GREEDY_WALK`] that the grammar allows.
fn best_allowed(data: &[LlamaTokenData], grammar: &mut LlamaSampler) -> Option<LlamaToken> {
    let better = |a: &LlamaTokenData, b: &LlamaTokenData| {
        b.logit()
            .total_cmp(&a.logit())
            .then_with(|| a.id().0.cmp(&b.id().0))
    };
    let mut best: Vec<&LlamaTokenData> = data.iter().collect();
    let k = GREEDY_WALK.min(best.len());
    if k == 0 {
        return None;
    }
    best.select_nth_unstable_by(k - 1, |a, b| better(a, b));
    best.truncate(k);
    best.sort_by(|a, b| better(a, b));
    best.into_iter()
        .map(LlamaTokenData::id)
        .find(|&t| allows(grammar, t))
}

fn selected(candidates: &LlamaTokenDataArray) -> Result<LlamaToken, LlmError> {
    candidates
        .selected_token()
        .ok_or_else(|| inference("sampling", "the sampler chose no token"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_prefix_stops_at_the_first_difference() {
        let t = |v: &[i32]| v.iter().map(|&x| LlamaToken(x)).collect::<Vec<_>>();
        assert_eq!(common_prefix(&t(&[1, 2, 3]), &t(&[1, 2, 4])), 2);
        assert_eq!(common_prefix(&t(&[1, 2]), &t(&[1, 2, 3])), 2);
        assert_eq!(common_prefix(&t(&[]), &t(&[1])), 0);
    }

    /// Our penalty and argmax against llama.cpp's own `penalties` and `greedy` samplers (what
    /// the engine used before): the same penalized logits, bit for bit, and the same token,
    /// over windows that fill, evict and repeat tokens, with ties, zeros and negative logits.
    #[test]
    fn the_penalized_argmax_matches_llama_cpps_penalty_and_greedy_samplers() {
        let n_vocab = 3000_usize;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut penalized = 0;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..60 {
            let repeat = [1.2_f32, 0.8, 1.5][round % 3];
            let window = [64_usize, 3, 1][round % 3];
            let mut ours = Penalty::new(repeat, window);
            let mut theirs = LlamaSampler::penalties(
                i32::try_from(n_vocab).expect("small"),
                i32::try_from(window).expect("small"),
                repeat,
                0.0,
                0.0,
            );
            for step in 0..150 {
                let logits: Vec<f32> = (0..n_vocab)
                    .map(|_| match next() % 8 {
                        0 => 0.0,
                        1 => -0.0,
                        2 => 9.25,
                        3 => -3.5,
                        r => {
                            (r as f32 - 5.0)
                                * f32::from(u16::try_from(next() % 1000).expect("small"))
                                / 100.0
                        }
                    })
                    .collect();
                let mut mine = logits.clone();
                ours.apply(&mut mine);
                penalized += mine
                    .iter()
                    .zip(&logits)
                    .filter(|(a, b)| a.to_bits() != b.to_bits())
                    .count();
                let mut array = LlamaTokenDataArray::new(
                    (0_i32..)
                        .zip(&logits)
                        .map(|(id, &l)| LlamaTokenData::new(LlamaToken(id), l, 0.0))
                        .collect(),
                    false,
                );
                array.apply_sampler(&mut theirs);
                array.apply_sampler(&mut LlamaSampler::greedy());
                for (i, d) in array.data.iter().enumerate() {
                    assert_eq!(d.id().0, i32::try_from(i).expect("small"));
                    assert_eq!(
                        d.logit().to_bits(),
                        mine[i].to_bits(),
                        "round {round} step {step} token {i}"
                    );
                }
                let token = argmax(&mine).expect("logits");
                assert_eq!(
                    Some(token),
                    array.selected_token(),
                    "round {round} step {step}"
                );
                // Mostly the chosen token, sometimes a few recent ones again: the window repeats.
                let accepted = if next() % 4 == 0 {
                    LlamaToken(i32::try_from(next() % 8).expect("small"))
                } else {
                    token
                };
                ours.accept(accepted);
                theirs.accept(accepted);
            }
        }
        assert!(penalized > 1000, "the windows penalized {penalized} logits");
        assert_eq!(argmax(&[]), None);
        assert_eq!(argmax(&[1.0, 3.0, 3.0, f32::NAN]), Some(LlamaToken(1)));
    }

    #[test]
    fn a_prompt_chunk_never_leaves_a_single_token() {
        assert_eq!(chunk_len(1), 1);
        assert_eq!(chunk_len(2), 2);
        assert_eq!(chunk_len(PROMPT_CHUNK), PROMPT_CHUNK);
        assert_eq!(chunk_len(PROMPT_CHUNK + 1), PROMPT_CHUNK - 1);
        assert_eq!(chunk_len(PROMPT_CHUNK + 2), PROMPT_CHUNK);
        assert_eq!(chunk_len(3 * PROMPT_CHUNK), PROMPT_CHUNK);
        let t: Vec<_> = (0..5).map(LlamaToken).collect();
        assert_eq!(reusable(&t), 3);
        assert_eq!(reusable(&t[..1]), 0);
    }
}
