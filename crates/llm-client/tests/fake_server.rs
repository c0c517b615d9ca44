//! End-to-end behaviour of `Client` against the workspace's fake OpenAI-compatible server.

use crate::common;

use std::sync::Arc;

use common::{fast_config, text_request, verdict_request};
use fixtures::{FakeConfig, FakeServer, Fault};
use llm_client::{ChatModel, Client, LlmError, ProviderKind, Replay, StructuredMode};

fn response_format_type(body: &serde_json::Value) -> Option<&str> {
    body.pointer("/response_format/type")
        .and_then(serde_json::Value::as_str)
}

#[tokio::test]
async fn rejected_json_schema_falls_back_and_the_mode_is_remembered() {
    let fake = FakeServer::start(FakeConfig::default().rejecting_json_schema())
        .await
        .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");

    let first = client
        .chat(verdict_request(1))
        .await
        .expect("fallback succeeds");
    let json = first.json.expect("validated json");
    assert!(json["fluency_score"].is_number(), "{json}");
    assert_eq!(
        client.structured_mode("gpt-4o-mini"),
        Some(StructuredMode::JsonObject)
    );

    client.chat(verdict_request(2)).await.expect("second call");
    let formats: Vec<Option<String>> = fake
        .requests()
        .iter()
        .map(|r| response_format_type(&r.body).map(str::to_owned))
        .collect();
    // The second call goes straight to the mode that worked.
    assert_eq!(
        formats,
        [
            Some("json_schema".to_owned()),
            Some("json_object".to_owned()),
            Some("json_object".to_owned())
        ]
    );
    assert_eq!(client.stats().fallbacks, 1);
    assert_eq!(fake.stats().status_count(400), 1);
}

#[tokio::test]
async fn both_response_formats_rejected_falls_back_to_a_forced_tool_call() {
    let fake = FakeServer::start(
        FakeConfig::default()
            .rejecting_json_schema()
            .rejecting_json_object(),
    )
    .await
    .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client
        .chat(verdict_request(1))
        .await
        .expect("tool-call fallback succeeds");
    assert!(resp.json.is_some());
    assert!(
        resp.tool_calls.is_empty(),
        "the synthetic tool call is not reported as a tool call"
    );
    assert_eq!(
        client.structured_mode("gpt-4o-mini"),
        Some(StructuredMode::ToolCall)
    );
    let last = fake.requests().pop().expect("requests recorded");
    assert_eq!(
        last.body
            .pointer("/tool_choice/function/name")
            .and_then(|v| v.as_str()),
        Some("verdict")
    );
    assert_eq!(client.stats().fallbacks, 2);
}

#[tokio::test]
async fn rate_limit_with_retry_after_is_waited_out() {
    let fake = FakeServer::start(FakeConfig::default().with_script([Fault::RateLimited {
        retry_after_secs: 1,
    }]))
    .await
    .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client
        .chat(text_request(1))
        .await
        .expect("succeeds after the wait");
    assert_eq!(resp.retries, 1);
    let stats = client.stats();
    assert_eq!(
        (stats.rate_limited, stats.retries, stats.http_requests),
        (1, 1, 2)
    );
    assert_eq!(fake.stats().status_count(429), 1);
    assert_eq!(fake.stats().status_count(200), 1);
}

#[tokio::test]
async fn rate_limits_while_probing_the_mode_get_the_whole_retry_budget() {
    // A fresh client probes the structured mode with one retry for a 5xx; rate limits say
    // nothing about the mode, so three in a row are waited out like any others.
    let fake = FakeServer::start(FakeConfig::default().with_script(
        [Fault::RateLimited {
            retry_after_secs: 0,
        }; 3],
    ))
    .await
    .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client
        .chat(verdict_request(1))
        .await
        .expect("the fourth attempt succeeds");
    assert_eq!(resp.retries, 3);
    assert_eq!(fake.stats().status_count(429), 3);
    assert!(resp.json.is_some());
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed_or_exhaust_the_budget() {
    let fake = FakeServer::start(
        FakeConfig::default().with_script([Fault::ServerError, Fault::ServerError]),
    )
    .await
    .expect("fake server");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client
        .chat(text_request(1))
        .await
        .expect("third attempt succeeds");
    assert_eq!(resp.retries, 2);
    assert_eq!(fake.stats().status_count(500), 2);

    let fake = FakeServer::start(FakeConfig::default().with_script([Fault::ServerError; 3]))
        .await
        .expect("fake");
    let mut cfg = fast_config(&fake.base_url());
    cfg.retry.max_retries = 2;
    let client = Client::new(cfg).expect("client");
    let err = client
        .chat(text_request(1))
        .await
        .expect_err("budget spent");
    assert!(
        matches!(
            err,
            LlmError::Server {
                status: 500,
                attempts: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.is_fatal());
}

#[tokio::test]
async fn timeouts_are_retried() {
    let cfg = FakeConfig::default()
        .with_script([Fault::Timeout])
        .with_hang(std::time::Duration::from_secs(5));
    let fake = FakeServer::start(cfg).await.expect("fake server");
    let mut cfg = fast_config(&fake.base_url());
    cfg.provider.read_timeout = std::time::Duration::from_millis(200);
    let client = Client::new(cfg).expect("client");
    let resp = client.chat(text_request(1)).await.expect("retry succeeds");
    assert_eq!(resp.retries, 1);
}

#[tokio::test]
async fn unauthorized_stops_at_once_naming_the_env_var_not_the_key() {
    let fake = FakeServer::start(FakeConfig::default().with_api_key("right-key"))
        .await
        .expect("fake server");
    let client = Client::with_api_key(fast_config(&fake.base_url()), "sk-wrong-key-0123456789")
        .expect("client");
    let err = client.chat(text_request(1)).await.expect_err("401");
    assert!(err.is_fatal());
    assert!(matches!(err, LlmError::Auth { status: 401, .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("LLM_CLIENT_TEST_KEY_THAT_IS_NEVER_SET"),
        "{message}"
    );
    assert!(
        !message.contains("sk-wrong-key-0123456789") && !format!("{err:?}").contains("sk-wrong"),
        "{message}"
    );
    assert_eq!(fake.stats().total_requests, 1, "no retry on 401");
}

#[tokio::test]
async fn broken_json_is_repaired() {
    let fake = FakeServer::start(FakeConfig::default().with_script([Fault::BrokenJson]))
        .await
        .expect("fake");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client.chat(verdict_request(1)).await.expect("repaired");
    assert_eq!(resp.repairs, 1);
    assert!(resp.json.is_some());
    assert!(resp.coercions.iter().any(|c| {
        c.reason
            .starts_with("repair request after: reply is not valid JSON")
    }));
    // The repair request quotes the problem back to the model.
    let repair = fake.requests().pop().expect("repair request");
    let last_user = repair
        .body
        .pointer("/messages")
        .and_then(|m| m.as_array())
        .and_then(|m| m.last())
        .cloned();
    let text = last_user
        .and_then(|m| m["content"].as_str().map(str::to_owned))
        .unwrap_or_default();
    assert!(text.contains("not valid JSON"), "{text}");
    assert_eq!(client.stats().repairs, 1);
}

#[tokio::test]
async fn schema_violation_is_reported_after_the_bounded_repair() {
    let script = [
        Fault::SchemaViolation,
        Fault::SchemaViolation,
        Fault::SchemaViolation,
    ];
    let fake = FakeServer::start(FakeConfig::default().with_script(script))
        .await
        .expect("fake");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let err = client
        .chat(verdict_request(1))
        .await
        .expect_err("still invalid after one repair");
    match &err {
        LlmError::InvalidOutput {
            reason,
            repairs,
            usage,
            ..
        } => {
            assert_eq!(*repairs, 1);
            assert!(reason.starts_with("schema violation:"), "{reason}");
            // Both replies were generated: the error carries their tokens, and the client's
            // totals count them.
            assert!(usage.completion_tokens > 0, "{usage:?}");
            let stats = client.stats();
            assert_eq!(
                (stats.prompt_tokens, stats.completion_tokens),
                (usage.prompt_tokens, usage.completion_tokens)
            );
        }
        other => panic!("expected InvalidOutput, got {other:?}"),
    }
    assert_eq!(
        fake.stats().total_requests,
        2,
        "max_repairs = 1 bounds the requests"
    );
}

#[tokio::test]
async fn cache_hit_makes_no_request_and_errors_are_not_cached() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeServer::start(FakeConfig::default().with_script([Fault::ServerError]))
        .await
        .expect("fake");
    let mut cfg = fast_config(&fake.base_url());
    cfg.cache_dir = Some(dir.path().to_path_buf());
    cfg.retry.max_retries = 0;
    // A forced mode: no first-use probe, so the scripted 500 is the call's error.
    cfg.structured_mode = Some(StructuredMode::JsonSchema);
    let client = Client::new(cfg).expect("client");

    client
        .chat(verdict_request(1))
        .await
        .expect_err("scripted 500, no retries");
    let fresh = client
        .chat(verdict_request(1))
        .await
        .expect("error was not cached");
    assert!(!fresh.cached);
    let hit = client.chat(verdict_request(1)).await.expect("cache hit");
    assert!(hit.cached);
    assert_eq!(hit.cost_usd, Some(0.0));
    assert_eq!(hit.json, fresh.json);
    assert_eq!(fake.stats().total_requests, 2);

    let mut bypass = verdict_request(1);
    bypass.no_cache = true;
    assert!(!client.chat(bypass).await.expect("bypass").cached);
    assert_eq!(fake.stats().total_requests, 3);
    let stats = client.stats();
    assert_eq!((stats.cache_hits, stats.cache_misses), (1, 2));
}

#[tokio::test]
async fn tpm_limit_spaces_concurrent_requests() {
    let fake = FakeServer::start(FakeConfig::default())
        .await
        .expect("fake");
    let mut cfg = fast_config(&fake.base_url());
    // 6,000 tokens per minute = 100 per second. Each call reserves its prompt + 2,000, so two
    // calls fit in the first minute's burst and the third must wait for the refill.
    cfg.limits.tpm = Some(6_000);
    let client = Arc::new(Client::new(cfg).expect("client"));
    let calls = (0..3).map(|n| {
        let mut req = text_request(n);
        req.max_tokens = Some(2_000);
        client.chat(req)
    });
    for r in futures::future::join_all(calls).await {
        r.expect("every call succeeds");
    }
    let stats = client.stats();
    assert_eq!(stats.tpm_waits, 1, "exactly the third reservation waited");
    assert_eq!(fake.stats().total_requests, 3);
}

#[tokio::test]
async fn missing_usage_is_estimated_and_priced() {
    let fake = FakeServer::start(FakeConfig::default().without_usage())
        .await
        .expect("fake");
    let client = Client::new(fast_config(&fake.base_url())).expect("client");
    let resp = client.chat(text_request(1)).await.expect("ok");
    assert!(resp.usage.estimated);
    assert!(
        resp.usage.prompt_tokens > 0 && resp.usage.completion_tokens > 0,
        "{:?}",
        resp.usage
    );
    assert!(
        resp.cost_usd.is_some_and(|c| c > 0.0),
        "gpt-4o-mini is priced"
    );
    let stats = client.stats();
    assert_eq!(stats.estimated_prompt_tokens, resp.usage.prompt_tokens);
    assert!(stats.cost_usd > 0.0);
    assert_eq!(stats.by_model.values().map(|m| m.calls).sum::<u64>(), 1);
}

#[tokio::test]
async fn azure_and_anthropic_routes_and_headers() {
    let fake = FakeServer::start(FakeConfig::default().with_api_key("az-key-1234"))
        .await
        .expect("fake");
    let mut cfg = fast_config(&fake.root_url());
    cfg.provider.kind = ProviderKind::Azure;
    cfg.provider.deployment = Some("judge-4o".into());
    let azure = Client::with_api_key(cfg, "az-key-1234").expect("client");
    azure.chat(verdict_request(1)).await.expect("azure call");
    let req = fake.requests().pop().expect("recorded");
    assert!(
        req.path
            .starts_with("/openai/deployments/judge-4o/chat/completions?api-version="),
        "{}",
        req.path
    );
    assert!(req.header("api-key").is_some() && req.header("authorization").is_none());

    let mut cfg = fast_config(&fake.base_url());
    cfg.provider.kind = ProviderKind::Anthropic;
    let anthropic = Client::with_api_key(cfg, "az-key-1234").expect("client");
    let resp = anthropic
        .chat(verdict_request(2))
        .await
        .expect("anthropic call");
    assert!(resp.json.is_some(), "structured output through tool_use");
    assert!(
        !resp.usage.estimated,
        "input_tokens/output_tokens were read"
    );
    let req = fake.requests().pop().expect("recorded");
    assert_eq!(req.path, "/v1/messages");
    assert!(req.header("x-api-key").is_some());
    assert!(req.body.get("system").is_some(), "system prompt split out");
}

#[tokio::test]
async fn recorded_exchanges_replay_offline() {
    let record_dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeServer::start(FakeConfig::default().with_script([Fault::ServerError]))
        .await
        .expect("fake");
    let mut cfg = fast_config(&fake.base_url());
    cfg.record_dir = Some(record_dir.path().to_path_buf());
    let client = Client::new(cfg).expect("client");
    let live_structured = client.chat(verdict_request(1)).await.expect("live");
    let live_text = client.chat(text_request(1)).await.expect("live");
    drop(fake);

    let replay = Replay::from_dir(record_dir.path()).expect("recordings load");
    assert_eq!(replay.len(), 2);
    assert_eq!(
        replay.chat(verdict_request(1)).await.expect("replayed"),
        live_structured
    );
    assert_eq!(
        replay.chat(text_request(1)).await.expect("replayed"),
        live_text
    );
    assert!(matches!(
        replay.chat(text_request(9)).await,
        Err(LlmError::Config(_))
    ));
    let text = std::fs::read_to_string(
        std::fs::read_dir(record_dir.path())
            .expect("dir")
            .flatten()
            .map(|e| e.path())
            .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"status\": 500")))
            .expect("the structured call's recording holds the failed attempt too"),
    )
    .expect("read");
    assert!(text.contains("\"exchanges\""));
}
