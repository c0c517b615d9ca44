//! Shared helpers of the integration tests: a judge-style schema and fast-retry configs.
#![allow(
    dead_code,
    reason = "each test binary and example uses a different subset of these helpers"
)]

use std::time::Duration;

use llm_client::{ChatRequest, ClientConfig, Message, OutputSchema, ProviderKind};
use serde_json::{Value, json};

/// A judge verdict schema with a bounded score, like the pipeline's.
pub(crate) fn verdict_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "fluency_score": {"type": "number", "minimum": 0, "maximum": 10},
            "reason": {"type": "string"}
        },
        "required": ["fluency_score", "reason"]
    })
}

/// A structured judge request; `n` varies the prompt so requests differ.
pub(crate) fn verdict_request(n: u32) -> ChatRequest {
    let mut req = ChatRequest::new(
        "gpt-4o-mini",
        vec![
            Message::system("You judge code-switched sentences."),
            Message::user(format!(
                "Rate sentence {n}: 'Vamos a la playa, it is so hot today.'"
            )),
        ],
    );
    req.temperature = Some(0.0);
    req.max_tokens = Some(200);
    req.output_schema = Some(OutputSchema {
        name: "verdict".into(),
        schema: std::sync::Arc::new(verdict_schema()),
        strict: true,
    });
    req
}

/// A plain text request.
pub(crate) fn text_request(n: u32) -> ChatRequest {
    ChatRequest::new(
        "gpt-4o-mini",
        vec![Message::user(format!("Say hello number {n}."))],
    )
}

/// A config for `base_url` with millisecond backoff so retry tests stay fast, and an env var
/// name no test environment sets.
pub(crate) fn fast_config(base_url: &str) -> ClientConfig {
    let mut cfg = ClientConfig::openai_compatible(base_url);
    cfg.provider.api_key_env = "LLM_CLIENT_TEST_KEY_THAT_IS_NEVER_SET".into();
    cfg.provider.kind = ProviderKind::OpenAi;
    cfg.retry.base_delay = Duration::from_millis(5);
    cfg.retry.max_delay = Duration::from_millis(20);
    cfg
}

/// The requests whose recordings ship in `fixtures/recordings/` (see the `record_fixtures`
/// example): a structured judge call (recorded with a retry and a repair), a plain text call and
/// a second structured call.
pub(crate) fn replay_fixture_requests() -> Vec<ChatRequest> {
    vec![
        verdict_request(100),
        text_request(100),
        verdict_request(101),
    ]
}
