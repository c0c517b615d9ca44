//! A client with several endpoints against fake servers: affinity per key, failover from a dead
//! endpoint, a returning server health-checked back in, and a cache shared by any order of URLs.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::Duration;

use common::fast_config;
use fixtures::{FakeConfig, FakeServer};
use llm_client::{ChatModel, ChatRequest, Client, ClientConfig, Message};

/// A request of `key`'s `call`-th call, carrying `key` as its affinity.
fn keyed_request(key: &str, call: u32) -> ChatRequest {
    ChatRequest {
        affinity: Some(key.to_owned()),
        ..ChatRequest::new(
            "fake-model",
            vec![Message::user(format!("[{key}] call {call}: say hello."))],
        )
    }
}

/// The key a recorded request was sent for (`[key]` at the start of its user message).
fn key_of(body: &serde_json::Value) -> Option<String> {
    let text = body.pointer("/messages/0/content")?.as_str()?;
    let rest = text.strip_prefix('[')?;
    Some(rest[..rest.find(']')?].to_owned())
}

fn fleet_config(urls: &[String]) -> ClientConfig {
    let mut cfg = fast_config(&urls[0]);
    cfg.provider.extra_base_urls = urls[1..].to_vec();
    cfg
}

/// An address nothing listens on (bound, then released).
fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

async fn servers(n: usize) -> Vec<FakeServer> {
    let mut out = Vec::new();
    for seed in 0..n {
        out.push(
            FakeServer::start(FakeConfig::default().with_seed(seed as u64))
                .await
                .expect("fake server"),
        );
    }
    out
}

#[tokio::test]
async fn every_call_of_a_key_reaches_one_server_and_keys_spread_over_all() {
    let fakes = servers(3).await;
    let urls: Vec<String> = fakes.iter().map(FakeServer::base_url).collect();
    let client = Client::new(fleet_config(&urls)).expect("client");
    let keys: Vec<String> = (0..30).map(|i| format!("scenario-{i:02}")).collect();
    for call in 0..3 {
        for key in &keys {
            client
                .chat(keyed_request(key, call))
                .await
                .expect("answered");
        }
    }
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let mut seen_on: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, fake) in fakes.iter().enumerate() {
        let requests = fake.requests();
        assert!(!requests.is_empty(), "server {i} got nothing");
        for r in requests {
            let key = key_of(&r.body).expect("a keyed request");
            seen_on.entry(key).or_default().insert(i);
        }
    }
    assert_eq!(seen_on.len(), keys.len());
    for (key, on) in &seen_on {
        let expected = llm_client::preferred_endpoint(key, &refs).expect("an endpoint");
        assert_eq!(
            on,
            &BTreeSet::from([expected]),
            "{key} went to {on:?}, not only to its preferred endpoint {expected}"
        );
    }
    let stats = client.stats();
    assert_eq!(stats.endpoints.len(), 3);
    assert_eq!(
        stats.endpoints.iter().map(|e| e.requests).sum::<u64>(),
        90,
        "{stats:?}"
    );
    assert!(
        stats
            .endpoints
            .iter()
            .all(|e| e.failures == 0 && !e.cooling)
    );
}

#[tokio::test]
async fn a_dead_endpoint_is_cooled_down_and_its_keys_fail_over() {
    let fakes = servers(2).await;
    let mut urls: Vec<String> = fakes.iter().map(FakeServer::base_url).collect();
    urls.insert(1, format!("http://{}/v1", free_addr()));
    let mut cfg = fleet_config(&urls);
    // Long enough that the dead endpoint is not checked again during the test.
    cfg.fleet.cooldown = Duration::from_secs(600);
    let client = Client::new(cfg).expect("client");
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let keys: Vec<String> = (0..30).map(|i| format!("scenario-{i:02}")).collect();
    assert!(
        keys.iter()
            .any(|k| llm_client::preferred_endpoint(k, &refs) == Some(1)),
        "some key prefers the dead endpoint"
    );
    for call in 0..2 {
        for key in &keys {
            let reply = client.chat(keyed_request(key, call)).await;
            assert!(reply.is_ok(), "{key}: {reply:?}");
        }
    }
    let stats = client.stats();
    let dead = &stats.endpoints[1];
    assert_eq!(
        (dead.requests, dead.failures, dead.cooldowns),
        (1, 1, 1),
        "one request found it dead; none went there while it cooled: {stats:?}"
    );
    assert!(dead.cooling);
    assert_eq!(stats.failed_calls, 0);
    // Keys of the live endpoints never moved.
    for (i, fake) in [(0, &fakes[0]), (2, &fakes[1])] {
        for r in fake.requests() {
            let key = key_of(&r.body).expect("keyed");
            let preferred = llm_client::preferred_endpoint(&key, &refs);
            assert!(
                preferred == Some(i) || preferred == Some(1),
                "{key} (prefers {preferred:?}) reached endpoint {i}"
            );
        }
    }
}

#[tokio::test]
async fn a_server_that_comes_back_is_health_checked_back_in() {
    let live = FakeServer::start(FakeConfig::default())
        .await
        .expect("fake server");
    let addr = free_addr();
    let urls = vec![live.base_url(), format!("http://{addr}/v1")];
    let mut cfg = fleet_config(&urls);
    cfg.fleet.cooldown = Duration::from_millis(1);
    let client = Client::new(cfg).expect("client");
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let key = (0..)
        .map(|i| format!("scenario-{i}"))
        .find(|k| llm_client::preferred_endpoint(k, &refs) == Some(1))
        .expect("a key preferring the second endpoint");

    client
        .chat(keyed_request(&key, 0))
        .await
        .expect("failed over to the live server");
    assert!(client.stats().endpoints[1].cooling);
    assert_eq!(live.stats().completions, 1);

    let back = FakeServer::start_on(addr, FakeConfig::default())
        .await
        .expect("the server comes back on its port");
    // Let the 1 ms cooldown end; the next request then runs the health check itself.
    tokio::time::sleep(Duration::from_millis(20)).await;
    client
        .chat(keyed_request(&key, 1))
        .await
        .expect("answered by the returning server");
    let stats = back.stats();
    assert_eq!(stats.by_route.get("/v1/models"), Some(&1), "{stats:?}");
    assert_eq!(stats.completions, 1, "the key is back on its server");
    let endpoint = &client.stats().endpoints[1];
    // The check that passed; an earlier one may have found the port still closed.
    assert!(endpoint.health_checks >= 1, "{endpoint:?}");
    assert!(!endpoint.cooling);
    assert_eq!(live.stats().completions, 1);
}

#[tokio::test]
async fn the_cache_key_does_not_depend_on_the_order_of_the_urls() {
    let fakes = servers(2).await;
    let urls: Vec<String> = fakes.iter().map(FakeServer::base_url).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cfg = fleet_config(&urls);
    cfg.cache_dir = Some(dir.path().to_path_buf());
    let first = Client::new(cfg.clone()).expect("client");
    let answered = first.chat(keyed_request("s", 0)).await.expect("answered");
    assert!(!answered.cached);
    cfg.provider.base_url = urls[1].clone();
    cfg.provider.extra_base_urls = vec![format!("{}/", urls[0])];
    let reordered = Client::new(cfg).expect("client");
    let hit = reordered
        .chat(ChatRequest {
            affinity: Some("another key".into()),
            ..keyed_request("s", 0)
        })
        .await
        .expect("answered");
    assert!(hit.cached, "same fleet, same request: a cache hit");
    assert_eq!(hit.content, answered.content);
}

/// A server that serves one request at a time (llama-cpp-python): its model list waits behind
/// the generations queued before it, longer than `health_timeout`, but its web server still
/// answers `/health` (a 404). Calls queued past `liveness_after` get probes; the probe's second
/// route shows the server alive, so every call is answered and none is given up as hung (CI of
/// stop 36: the real llama-cpp-python run stopped with "is not answering" after 40 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_busy_with_one_request_at_a_time_is_not_taken_for_hung() {
    let busy = FakeServer::start(
        FakeConfig::default()
            .one_at_a_time()
            .with_latency(Duration::from_millis(300)),
    )
    .await
    .expect("fake server");
    let mut cfg = fast_config(&busy.base_url());
    cfg.fleet.liveness_after = Duration::from_millis(100);
    cfg.fleet.health_timeout = Duration::from_millis(150);
    cfg.retry.max_retries = 0;
    let client = Client::new(cfg).expect("client");
    let calls = (0..4).map(|i| client.chat(keyed_request(&format!("k{i}"), 0)));
    for answer in futures::future::join_all(calls).await {
        answer.expect("a busy server's call is answered, not given up");
    }
    let stats = busy.stats();
    assert_eq!(stats.completions, 4, "{stats:?}");
    assert_eq!(client.stats().retries, 0);
    // The probes ran, and the model list alone would have found the server silent.
    assert!(
        stats.by_route.get("unmatched").is_some_and(|&n| n >= 1),
        "a /health probe was sent: {stats:?}"
    );
}

/// A hung server answers no route at all, `/health` included: the same probe finds it hung
/// and the call is given up as a connection failure long before its read timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_answers_neither_probe_route() {
    let hung = FakeServer::start(FakeConfig::default().with_hang_after(0))
        .await
        .expect("fake server");
    let mut cfg = fast_config(&hung.base_url());
    cfg.fleet.liveness_after = Duration::from_millis(100);
    cfg.fleet.health_timeout = Duration::from_millis(150);
    cfg.fleet.probe_for = Duration::from_millis(50);
    cfg.retry.max_retries = 0;
    let client = Client::new(cfg).expect("client");
    let answer = tokio::time::timeout(Duration::from_secs(20), client.chat(keyed_request("k", 0)))
        .await
        .expect("given up long before the read timeout");
    let error = answer
        .expect_err("a hung server answers nothing")
        .to_string();
    assert!(error.contains("is not answering"), "{error}");
}
