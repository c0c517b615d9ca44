//! Structured-output negotiation against servers that refuse a mode the way real ones do
//! (llama-cpp-python: a 500 naming `response_format`; a proxy: a 500 naming nothing), forced
//! modes, and modes remembered across clients through the modes file.

use crate::common;

use common::{fast_config, verdict_request};
use fixtures::{FakeConfig, FakeServer, RejectStyle};
use llm_client::{ChatModel, Client, LlmError, StructuredMode};

fn formats(fake: &FakeServer) -> Vec<String> {
    fake.requests()
        .iter()
        .map(|r| {
            if r.body.get("tool_choice").is_some() {
                "tool".to_owned()
            } else {
                r.body
                    .pointer("/response_format/type")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("prompt")
                    .to_owned()
            }
        })
        .collect()
}

#[tokio::test]
async fn a_500_naming_response_format_falls_back_at_once_without_retries() {
    let fake = FakeServer::start(
        FakeConfig::default()
            .rejecting_json_schema()
            .rejecting_with(RejectStyle::ServerError),
    )
    .await
    .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client.chat(verdict_request(1)).await.expect("fallback");
    assert!(resp.json.is_some());
    assert_eq!(resp.retries, 0);
    assert_eq!(formats(&fake), ["json_schema", "json_object"]);
    let stats = client.stats();
    assert_eq!((stats.retries, stats.fallbacks), (0, 1));
    assert_eq!(
        client.structured_mode("gpt-4o-mini"),
        Some(StructuredMode::JsonObject)
    );
}

#[tokio::test]
async fn an_opaque_500_on_first_use_probes_the_next_mode() {
    let fake = FakeServer::start(
        FakeConfig::default()
            .rejecting_json_schema()
            .rejecting_json_object()
            .rejecting_with(RejectStyle::OpaqueServerError),
    )
    .await
    .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client.chat(verdict_request(1)).await.expect("probe");
    assert!(resp.json.is_some());
    // Each refused mode was tried twice (a probe absorbs one passing 500), then abandoned.
    assert_eq!(
        formats(&fake),
        [
            "json_schema",
            "json_schema",
            "json_object",
            "json_object",
            "tool"
        ]
    );
    assert_eq!(client.stats().retries, 2, "one retry per probed mode");
    // Once a mode is settled, a 500 is an outage again: retried, not a reason to move on.
    client.chat(verdict_request(2)).await.expect("second call");
    assert_eq!(formats(&fake).last().map(String::as_str), Some("tool"));
}

#[tokio::test]
async fn a_forced_mode_is_used_from_the_first_call_and_never_falls_back() {
    for mode in StructuredMode::ALL {
        let fake = FakeServer::start(FakeConfig::default())
            .await
            .expect("fake server");
        let mut cfg = fast_config(&fake.base_url());
        cfg.structured_mode = Some(mode);
        let client = Client::new(cfg).expect("client");
        let resp = client.chat(verdict_request(1)).await.expect("forced mode");
        assert!(resp.json.is_some(), "{mode:?}");
        assert_eq!(formats(&fake), [mode.as_str()], "{mode:?}");
    }

    let fake = FakeServer::start(FakeConfig::default().rejecting_json_schema())
        .await
        .expect("fake server");
    let mut cfg = fast_config(&fake.base_url());
    cfg.structured_mode = Some(StructuredMode::JsonSchema);
    let client = Client::new(cfg).expect("client");
    let err = client.chat(verdict_request(1)).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Rejected { status: 400, .. }),
        "{err}"
    );
    assert_eq!(formats(&fake), ["json_schema"], "no fallback when forced");
}

#[tokio::test]
async fn a_stated_rejection_is_remembered_across_clients_through_the_modes_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let modes_file = dir.path().join("structured-modes.json");
    let fake = FakeServer::start(
        FakeConfig::default()
            .rejecting_json_schema()
            .rejecting_with(RejectStyle::ServerError),
    )
    .await
    .expect("fake server");
    for _ in 0..2 {
        let mut cfg = fast_config(&fake.base_url());
        cfg.modes_file = Some(modes_file.clone());
        let client = Client::new(cfg).expect("client");
        client.chat(verdict_request(1)).await.expect("call");
    }
    // The second client went straight to json_object: one rejection in all.
    assert_eq!(
        formats(&fake),
        ["json_schema", "json_object", "json_object"]
    );
    let text = std::fs::read_to_string(&modes_file).expect("modes file");
    assert!(text.contains("\"json_object\""), "{text}");
}
