//! Smoke tests of the embedded local model against the real GGUF (feature `local-llm`).
//!
//! They need the model file, so they are `#[ignore]`d: run them with
//! `SCENARIO_ENGINE_MODEL=$(cargo xtask fetch-model) cargo test -p llm-client --features local-llm
//! --test local_smoke -- --ignored`. When asked to run without `SCENARIO_ENGINE_MODEL` they fail
//! with that instruction rather than pass vacuously. Replies are decoded greedily, with small token
//! caps, so a run takes seconds.

#![cfg(feature = "local-llm")]

use std::sync::Arc;

use llm_client::local::{LocalConfig, LocalModel};

/// The variable naming the GGUF file this test loads (`cargo xtask fetch-model` prints it).
const MODEL_PATH_ENV: &str = "SCENARIO_ENGINE_MODEL";
use llm_client::{ChatModel, ChatRequest, FinishReason, LlmError, Message, OutputSchema};
use serde_json::{Value, json};

const JUDGE_PROMPT: &str = include_str!("local_judge_prompt.txt");

fn model(max_tokens_cap: u32) -> LocalModel {
    model_with(max_tokens_cap, |_| {})
}

fn model_with(max_tokens_cap: u32, tune: impl FnOnce(&mut LocalConfig)) -> LocalModel {
    // `RUST_LOG=llm_client=info` with `--nocapture` shows the provider's timing events
    // (tokens/s, prompt and generation time) that BENCHMARKS.md quotes.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let path = std::env::var_os(MODEL_PATH_ENV).unwrap_or_else(|| {
        panic!("{MODEL_PATH_ENV} must name the GGUF file: run `cargo xtask fetch-model` and export its output")
    });
    let mut config = LocalConfig {
        n_ctx: 2048,
        max_tokens_cap,
        ..LocalConfig::new(path)
    };
    tune(&mut config);
    LocalModel::load(config).unwrap_or_else(|e| panic!("loading the local model: {e}"))
}

fn judge_schema() -> OutputSchema {
    OutputSchema {
        name: "fluency_output".into(),
        schema: std::sync::Arc::new(json!({
            "type": "object",
            "properties": {
                "fluency_score": {"type": "number", "minimum": 0, "maximum": 10},
                "summary": {"type": "string"}
            },
            "required": ["fluency_score", "summary"],
            "additionalProperties": false
        })),
        strict: true,
    }
}

fn judge_request(max_tokens: u32) -> ChatRequest {
    let mut req = ChatRequest::new(
        "ignored-by-the-local-provider",
        vec![
            Message::system("You are a careful linguist. Answer with JSON only."),
            Message::user(JUDGE_PROMPT),
        ],
    );
    req.max_tokens = Some(max_tokens);
    req.temperature = Some(0.0);
    req.output_schema = Some(judge_schema());
    req
}

fn assert_valid(json: &Value, schema: &Value) {
    let validator = jsonschema::validator_for(schema).expect("test schema compiles");
    let errors: Vec<String> = validator.iter_errors(json).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{json} violates the schema: {errors:?}");
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn a_judge_request_gets_schema_valid_json_and_real_token_counts() {
    let model = model(512);
    let resp = model
        .chat(judge_request(120))
        .await
        .expect("the judge call succeeds");

    let json = resp
        .json
        .as_ref()
        .expect("structured output is returned parsed");
    assert_valid(json, &judge_schema().schema);
    assert_eq!(
        serde_json::from_str::<Value>(&resp.content).ok().as_ref(),
        Some(json),
        "content is the raw JSON"
    );
    assert_eq!(
        resp.finish_reason,
        FinishReason::Stop,
        "the grammar ends the object before the cap"
    );
    assert_eq!(resp.model, "SmolLM2-135M-Instruct.Q4_1");
    // Free, not unpriced: the run's summary must not ask for a price.
    assert_eq!(resp.cost_usd, Some(0.0));

    assert!(
        !resp.usage.estimated,
        "counts come from the model's tokenizer"
    );
    // The prompt is judge-sized; the chat template adds a few tokens around it.
    let prompt_alone = model.count_tokens(JUDGE_PROMPT) as u64;
    assert!(
        resp.usage.prompt_tokens > prompt_alone,
        "{} vs {prompt_alone}",
        resp.usage.prompt_tokens
    );
    assert!(
        (1..=120).contains(&resp.usage.completion_tokens),
        "{:?}",
        resp.usage
    );
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn the_token_cap_bounds_the_reply_and_a_cut_json_is_invalid_output() {
    // The provider cap wins over the request's larger max_tokens.
    let model = model(6);
    match model.chat(judge_request(120)).await {
        Err(LlmError::InvalidOutput {
            reason,
            repairs: 0,
            raw,
            usage,
            cost_usd,
        }) => {
            assert_eq!(
                usage.completion_tokens, 6,
                "the cut reply's tokens are counted"
            );
            assert_eq!(cost_usd, Some(0.0), "a local reply is free, not unpriced");
            assert!(reason.contains("token cap"), "{reason}");
            assert!(
                raw.starts_with('{'),
                "the grammar still shaped the start: {raw:?}"
            );
        }
        other => panic!("expected a cut reply to be InvalidOutput, got {other:?}"),
    }
}

/// Every construct of `gbnf`'s grammars is parsed by llama.cpp's grammar parser, and the model's
/// replies under them hold to the schema (the recogniser in `tests/gbnf.rs` checks the grammars'
/// meaning; this checks that llama.cpp reads them the same way).
#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn grammars_of_every_construct_are_parsed_by_llama_cpp_and_hold() {
    let model = model(160);
    let schemas = [
        // Optional properties, added keys other than the named ones (a character class with
        // escapes), a listed integer range, a bounded string.
        json!({"type": "object", "properties": {
            "a-]": {"type": "integer", "minimum": -2, "maximum": 12},
            "b": {"type": "string", "minLength": 2, "maxLength": 12}},
            "additionalProperties": {"type": "boolean"}}),
        // A bounded array of a union, a tuple, a type list, const and enum.
        json!({"type": "object", "properties": {
            "items": {"type": "array", "minItems": 2, "maxItems": 3,
                      "items": {"anyOf": [{"type": "integer", "minimum": 0}, {"enum": ["x", "y"]}]}},
            "pair": {"type": "array", "prefixItems": [{"const": "k"}, {"type": ["number", "null"]}]}},
            "required": ["items", "pair"], "additionalProperties": false}),
        // Recursion through a `$ref`, and merged `allOf` objects.
        json!({"$defs": {"node": {"type": "object", "properties": {
                "v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}},
                "required": ["v", "next"], "additionalProperties": false}},
               "allOf": [{"$ref": "#/$defs/node"}, {"properties": {"w": {"type": "boolean"}}, "required": ["w"]}]}),
    ];
    for (i, schema) in schemas.into_iter().enumerate() {
        let mut req = ChatRequest::new(
            "ignored-by-the-local-provider",
            vec![Message::user("Write one small JSON value.")],
        );
        req.max_tokens = Some(160);
        req.temperature = Some(0.0);
        req.output_schema = Some(OutputSchema {
            name: format!("shape_{i}"),
            schema: Arc::new(schema.clone()),
            strict: true,
        });
        match model.chat(req).await {
            Ok(resp) => assert_valid(resp.json.as_ref().expect("parsed"), &schema),
            // A reply cut by the cap is allowed; a grammar llama.cpp refused is not.
            Err(LlmError::InvalidOutput { reason, raw, .. }) if reason.contains("token cap") => {
                assert!(raw.starts_with(['{', '[']), "schema {i}: {raw:?}");
            }
            Err(e) => panic!("schema {i} ({schema}): {e}"),
        }
    }
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn concurrent_callers_share_one_model_and_all_get_answers() {
    let model: Arc<dyn ChatModel> = Arc::new(model(16));
    let ask = |question: &str| {
        let model = Arc::clone(&model);
        let mut req = ChatRequest::new("local", vec![Message::user(question)]);
        req.max_tokens = Some(8);
        async move { model.chat(req).await }
    };
    let (a, b, c) = tokio::join!(
        ask("Say hello."),
        ask("Name a colour."),
        ask("Count to three.")
    );
    for resp in [a, b, c] {
        let resp = resp.expect("every queued call is answered");
        assert!(resp.json.is_none(), "no schema, no json");
        assert!(!resp.content.is_empty());
        assert!(
            (1..=8).contains(&resp.usage.completion_tokens),
            "{:?}",
            resp.usage
        );
        if resp.usage.completion_tokens == 8 {
            assert_eq!(resp.finish_reason, FinishReason::Length);
        }
    }
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn greedy_decoding_is_deterministic() {
    let model = model(16);
    let mut req = ChatRequest::new("local", vec![Message::user("Write one word.")]);
    req.max_tokens = Some(6);
    let first = model.chat(req.clone()).await.expect("first call");
    let second = model.chat(req).await.expect("second call");
    assert_eq!(first.content, second.content);
    assert_eq!(first.usage, second.usage);
}

/// The mixed work of the batching test: four judges sharing the long prompt and differing only
/// at the end (as a scenario's four judges do), free text, and seeded temperature sampling.
fn mixed_requests() -> Vec<ChatRequest> {
    let mut requests = Vec::new();
    for aspect in ["fluency", "naturalness", "the switching ratio", "tense"] {
        let mut req = judge_request(48);
        req.messages
            .push(Message::user(format!("Judge {aspect} only.")));
        requests.push(req);
    }
    for (question, temperature) in [
        ("Name three colours.", None),
        ("Write one sentence about rain.", Some(0.8)),
    ] {
        let mut req = ChatRequest::new("local", vec![Message::user(question)]);
        req.max_tokens = Some(24);
        req.temperature = temperature;
        req.seed = Some(7);
        requests.push(req);
    }
    requests
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn batched_replies_equal_serialised_replies_and_grammars_hold() {
    // (a) one slot, no prefix reuse, one request at a time: the reference.
    let serial = model_with(64, |c| {
        c.slots = Some(1);
        c.prefix_reuse = false;
    });
    let mut expected = Vec::new();
    for req in mixed_requests() {
        expected.push(outcome(serial.chat(req).await));
    }
    assert_eq!(serial.stats().reused_prompt_tokens, 0);
    assert_eq!(serial.stats().most_sequences_in_a_step, 1);

    // (b) several slots, with and without prefix reuse, everything at once, twice (the second
    // round also finds the prompts cached in idle slots).
    for (slots, reuse) in [(4, true), (3, false)] {
        let batched: Arc<dyn ChatModel> = Arc::new(model_with(64, |c| {
            c.slots = Some(slots);
            c.prefix_reuse = reuse;
        }));
        for round in 0..2 {
            let replies = futures::future::join_all(
                mixed_requests().into_iter().map(|req| batched.chat(req)),
            )
            .await;
            for (i, (got, want)) in replies.into_iter().zip(&expected).enumerate() {
                assert_eq!(
                    &outcome(got),
                    want,
                    "{slots} slots, reuse {reuse}, round {round}, request {i}"
                );
            }
        }
    }
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn a_prefix_a_slot_gives_up_is_kept_in_a_spare_and_reused_with_the_same_replies() {
    // Two prompt families on one slot: a judge, then another long prompt that overwrites the
    // judge's cells, then the judge again (as the pipeline's six prompt families do on few slots).
    let requests = || {
        let mut first = judge_request(24);
        first.messages.push(Message::user("Judge fluency only."));
        let mut other = ChatRequest::new(
            "local",
            vec![Message::user(format!(
                "Summarise this in one sentence.\n{JUDGE_PROMPT}"
            ))],
        );
        other.max_tokens = Some(16);
        let mut again = judge_request(24);
        again.messages.push(Message::user("Judge the tense only."));
        [first, other, again]
    };
    let serial = model_with(64, |c| {
        c.slots = Some(1);
        c.prefix_reuse = false;
    });
    let reused = model_with(64, |c| c.slots = Some(1));
    for (i, req) in requests().into_iter().enumerate() {
        let want = outcome(serial.chat(req.clone()).await);
        let got = outcome(reused.chat(req).await);
        assert_eq!(got, want, "request {i}");
    }
    let stats = reused.stats();
    assert_eq!(stats.spared_prefixes, 1, "{stats:?}");
    // The judge's second call found its prompt in the spare: all of it but the ending.
    let shared = reused.count_tokens(JUDGE_PROMPT) as u64;
    assert!(
        stats.reused_prompt_tokens >= shared,
        "{stats:?}, shared prompt {shared} tokens"
    );
}

/// What a test compares of a reply: the text, tokens and finish reason, or the raw text of a
/// reply the schema check refused (a judge cut at the token cap); the judges' JSON is checked
/// against the schema on the way.
fn outcome(result: Result<llm_client::ChatResponse, LlmError>) -> String {
    match result {
        Ok(resp) => {
            if let Some(json) = &resp.json {
                assert_valid(json, &judge_schema().schema);
            }
            format!(
                "ok {:?} {:?} {:?}",
                resp.content, resp.usage, resp.finish_reason
            )
        }
        Err(LlmError::InvalidOutput { raw, .. }) => format!("invalid {raw:?}"),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[tokio::test]
#[ignore = "needs the GGUF model: set SCENARIO_ENGINE_MODEL and pass --ignored"]
async fn judges_sharing_a_prompt_decode_it_once_and_share_decode_steps() {
    let model = Arc::new(model_with(64, |c| c.slots = Some(4)));
    let replies = futures::future::join_all(
        mixed_requests()
            .into_iter()
            .take(4)
            .map(|req| model.chat(req)),
    )
    .await;
    assert!(replies.iter().all(Result::is_ok), "{replies:?}");
    let stats = model.stats();
    assert_eq!(stats.answered, 4);
    // The three later judges reuse the shared prompt: all but its last few tokens.
    let shared = model.count_tokens(JUDGE_PROMPT) as u64;
    assert!(
        stats.reused_prompt_tokens >= 3 * shared,
        "{stats:?}, shared prompt {shared} tokens"
    );
    assert!(stats.most_sequences_in_a_step >= 2, "{stats:?}");
    assert!(stats.decode_steps < stats.completion_tokens, "{stats:?}");
}
