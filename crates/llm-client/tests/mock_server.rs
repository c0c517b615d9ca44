//! Behaviours the fake server cannot produce, against tiny axum mocks with canned replies:
//! loosely formatted scores, servers that echo credentials, and odd-but-real reply shapes.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use common::{fast_config, text_request, verdict_request};
use llm_client::{ChatModel, Client, Coercion, LlmError};
use serde_json::{Value, json};

/// Serves the canned `(status, body)` replies in order (the last one repeats) and counts calls.
async fn mock(replies: Vec<(u16, Value)>) -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    let replies = Arc::new(replies);
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move || {
            let i = seen.fetch_add(1, Ordering::SeqCst);
            let replies = Arc::clone(&replies);
            async move {
                let (status, body) = replies[i.min(replies.len() - 1)].clone();
                (
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    axum::Json(body),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), count)
}

fn completion(content: Value) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
}

#[tokio::test]
async fn score_written_as_a_number_text_is_coerced_and_recorded() {
    let reply = "```json\n{\"fluency_score\": \" 8 \", \"reason\": \"natural switch\"}\n```";
    let (base, count) = mock(vec![(200, completion(json!(reply)))]).await;
    let client = Client::new(fast_config(&base)).expect("client");
    let resp = client
        .chat(verdict_request(1))
        .await
        .expect("coerced, no repair needed");
    assert_eq!(
        resp.json,
        Some(json!({"fluency_score": 8, "reason": "natural switch"}))
    );
    assert_eq!(resp.repairs, 0);
    assert_eq!(
        resp.coercions,
        [
            Coercion {
                path: String::new(),
                reason: "stripped ```json fence".into()
            },
            Coercion {
                path: "/fluency_score".into(),
                reason: "\" 8 \" read as 8".into()
            },
        ]
    );
    assert_eq!(resp.content, reply, "content keeps the raw reply");
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

/// `"5/5"` (full marks) was read as 5 and `"3/4"` as 3: a fraction is no number, so the reply
/// is invalid and asked again with the validator's reason.
#[tokio::test]
async fn a_score_written_as_a_fraction_is_invalid_and_asked_again() {
    for fraction in ["5/5", "3/4", "8/10"] {
        let bad = completion(json!(format!(
            "{{\"fluency_score\": \"{fraction}\", \"reason\": \"x\"}}"
        )));
        let good = completion(json!("{\"fluency_score\": 10, \"reason\": \"x\"}"));
        let (base, count) = mock(vec![(200, bad), (200, good)]).await;
        let client = Client::new(fast_config(&base)).expect("client");
        let resp = client.chat(verdict_request(1)).await.expect("repaired");
        assert_eq!(
            resp.json.as_ref().map(|j| j["fluency_score"].clone()),
            Some(json!(10))
        );
        assert_eq!(resp.repairs, 1, "{fraction}");
        let note = &resp.coercions[0].reason;
        assert!(
            note.starts_with("repair request after: schema violation: /fluency_score:")
                && note.contains(fraction),
            "{fraction}: {note}"
        );
        assert_eq!(count.load(Ordering::SeqCst), 2);
    }
}

#[tokio::test]
async fn out_of_range_score_gets_one_repair_quoting_the_validator() {
    let bad = completion(json!("{\"fluency_score\": 42, \"reason\": \"x\"}"));
    let good = completion(json!("{\"fluency_score\": 7.5, \"reason\": \"x\"}"));
    let (base, count) = mock(vec![(200, bad), (200, good)]).await;
    let client = Client::new(fast_config(&base)).expect("client");
    let resp = client.chat(verdict_request(1)).await.expect("repaired");
    assert_eq!(
        resp.json.as_ref().map(|j| j["fluency_score"].clone()),
        Some(json!(7.5))
    );
    assert_eq!(resp.repairs, 1);
    let note = &resp.coercions[0].reason;
    assert!(
        note.starts_with("repair request after: schema violation: /fluency_score:"),
        "{note}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn echoed_keys_are_scrubbed_from_errors() {
    const KEY: &str = "sk-echo-7d1e0b55aa";
    let body = json!({"error": {"message": format!("model not found for key {KEY}")}});
    let (base, count) = mock(vec![(404, body)]).await;
    let client = Client::with_api_key(fast_config(&base), KEY).expect("client");
    let err = client.chat(text_request(1)).await.expect_err("404");
    assert!(
        matches!(err, LlmError::Rejected { status: 404, .. }),
        "{err:?}"
    );
    assert!(!err.to_string().contains(KEY), "{err}");
    assert!(err.to_string().contains("[redacted]"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 1, "404 is never retried");
}

#[tokio::test]
async fn tool_calls_with_null_content_and_object_arguments() {
    let body = json!({"choices": [{"message": {"content": null, "tool_calls": [
        {"function": {"name": "lookup", "arguments": {"q": "playa"}}}]}, "finish_reason": "tool_calls"}]});
    let (base, _) = mock(vec![(200, body)]).await;
    let client = Client::new(fast_config(&base)).expect("client");
    let resp = client.chat(text_request(1)).await.expect("ok");
    assert_eq!(resp.content, "");
    assert_eq!(resp.tool_calls.len(), 1);
    assert_eq!(resp.tool_calls[0].arguments, json!({"q": "playa"}));
    assert!(resp.usage.estimated, "no usage in the reply");
}

#[tokio::test]
async fn non_json_success_body_is_a_protocol_error() {
    let (base, _) = mock(vec![(200, json!("<html>proxy error</html>"))]).await;
    let client = Client::new(fast_config(&base)).expect("client");
    let err = client
        .chat(text_request(1))
        .await
        .expect_err("not a completion");
    assert!(matches!(err, LlmError::Protocol(_)), "{err:?}");
}
