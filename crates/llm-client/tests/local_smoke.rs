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
    // `RUST_LOG=llm_client=info` with `--nocapture` shows the provider's timing events
    // (tokens/s, prompt and generation time) that BENCHMARKS.md quotes.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let path = std::env::var_os(MODEL_PATH_ENV).unwrap_or_else(|| {
        panic!("{MODEL_PATH_ENV} must name the GGUF file: run `cargo xtask fetch-model` and export its output")
    });
    let config = LocalConfig {
        n_ctx: 2048,
        max_tokens_cap,
        ..LocalConfig::new(path)
    };
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
        }) => {
            assert!(reason.contains("token cap"), "{reason}");
            assert!(
                raw.starts_with('{'),
                "the grammar still shaped the start: {raw:?}"
            );
        }
        other => panic!("expected a cut reply to be InvalidOutput, got {other:?}"),
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
