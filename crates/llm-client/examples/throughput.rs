//! Client overhead and throughput against the in-process fake server.
//!
//! Run with `cargo run --release -p llm-client --example throughput [-- CALLS]`.
//!
//! (a) 0 ms server latency: calls/s, and CPU time per call split by thread. The fake server runs
//!     on its own runtime whose threads are named `fake-server`; the client runs on threads named
//!     `client`. CPU comes from `/proc/self/task/*/stat` (utime + stime, in clock ticks of 10 ms),
//!     so the client's share is measured without the server's.
//! (b) 50 ms server latency with 64 requests in flight: calls/s against the ideal 64 / 0.05 s =
//!     1,280 calls/s.
//!
//! Linux only (reads `/proc`). Prints a small report on stdout; an example may print.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fixtures::{FakeConfig, FakeServer};
use llm_client::{ChatModel, ChatRequest, Client, ClientConfig, Message, OutputSchema};
use serde_json::json;

/// Linux's USER_HZ; `/proc/*/stat` CPU times are in these ticks on every mainstream kernel.
const TICKS_PER_SEC: f64 = 100.0;

/// CPU seconds used so far by this process's threads whose name starts with `prefix`.
fn thread_cpu_secs(prefix: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut ticks = 0u64;
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.trim_end().starts_with(prefix) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        ticks += field(11) + field(12);
    }
    #[expect(clippy::cast_precision_loss, reason = "tick counts are small")]
    let secs = ticks as f64 / TICKS_PER_SEC;
    secs
}

fn request(i: usize, structured: bool) -> ChatRequest {
    let mut req = ChatRequest::new(
        "gpt-4o-mini",
        vec![
            Message::system("You judge code-switched sentences."),
            Message::user(format!(
                "Rate sentence {i}: 'Vamos a la playa, it is so hot.'"
            )),
        ],
    );
    req.max_tokens = Some(200);
    if structured {
        req.output_schema = Some(OutputSchema {
            name: "verdict".into(),
            schema: std::sync::Arc::new(json!({"type": "object", "properties": {
                "fluency_score": {"type": "number", "minimum": 0, "maximum": 10}, "reason": {"type": "string"}},
                "required": ["fluency_score", "reason"]})),
            strict: true,
        });
    }
    req
}

/// Runs `calls` calls with at most `in_flight` at once; returns (wall seconds, client CPU s, server CPU s).
fn run(
    client_rt: &tokio::runtime::Runtime,
    client: &Arc<Client>,
    calls: usize,
    structured: bool,
) -> (f64, f64, f64) {
    let (c0, s0) = (thread_cpu_secs("client"), thread_cpu_secs("fake-server"));
    let started = Instant::now();
    client_rt.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for i in 0..calls {
            let client = Arc::clone(client);
            set.spawn(async move { client.chat(request(i, structured)).await });
        }
        let mut failures = 0usize;
        while let Some(done) = set.join_next().await {
            if !matches!(done, Ok(Ok(_))) {
                failures += 1;
            }
        }
        assert_eq!(failures, 0, "benchmark calls must all succeed");
    });
    let wall = started.elapsed().as_secs_f64();
    (
        wall,
        thread_cpu_secs("client") - c0,
        thread_cpu_secs("fake-server") - s0,
    )
}

/// Calls/s of 64 loops posting a fixed body with plain reqwest: what the server and the machine
/// allow without any of this crate's work, to tell client overhead from environment limits.
#[expect(clippy::cast_precision_loss, reason = "call counts are small")]
fn bare_reqwest_rate(
    rt: &tokio::runtime::Runtime,
    base_url: &str,
    loops: usize,
    calls: usize,
) -> f64 {
    let http = reqwest::Client::new();
    let url = format!("{base_url}/chat/completions");
    let body = serde_json::to_vec(&json!({"model": "gpt-4o-mini", "max_tokens": 200,
        "messages": [{"role": "user", "content": "Rate sentence 1: 'Vamos a la playa, it is so hot.'"}]}))
    .unwrap_or_default();
    let started = Instant::now();
    rt.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..loops {
            let (http, url, body) = (http.clone(), url.clone(), body.clone());
            set.spawn(async move {
                for _ in 0..calls / loops {
                    let sent = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body.clone())
                        .send()
                        .await;
                    if let Ok(resp) = sent {
                        let _ = resp.bytes().await;
                    }
                }
            });
        }
        while set.join_next().await.is_some() {}
    });
    (calls / loops * loops) as f64 / started.elapsed().as_secs_f64()
}

fn client_for(base_url: String, in_flight: usize) -> Arc<Client> {
    let mut cfg = ClientConfig::openai_compatible(base_url);
    cfg.provider.api_key_env = "THROUGHPUT_BENCH_NO_KEY".into();
    cfg.limits.max_in_flight = in_flight;
    Arc::new(Client::new(cfg).unwrap_or_else(|e| panic!("client config: {e}")))
}

#[expect(clippy::cast_precision_loss, reason = "call counts are small")]
fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("client")
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));

    // (a) zero latency.
    let fast = FakeServer::spawn_background(FakeConfig::default())
        .unwrap_or_else(|e| panic!("fake server: {e}"));
    for structured in [false, true] {
        let client = client_for(fast.base_url(), 16);
        run(&client_rt, &client, 500, structured); // warm-up: connections, validator cache
        let (wall, client_cpu, server_cpu) = run(&client_rt, &client, calls, structured);
        println!(
            "(a) 0 ms latency, {} requests, 16 in flight: {calls} calls in {wall:.2} s = {:.0} calls/s; \
             client CPU {:.1} µs/call, fake server CPU {:.1} µs/call",
            if structured { "structured" } else { "text" },
            calls as f64 / wall,
            client_cpu / calls as f64 * 1e6,
            server_cpu / calls as f64 * 1e6,
        );
    }
    drop(fast);

    // (b) 50 ms latency, 64 in flight.
    let slow =
        FakeServer::spawn_background(FakeConfig::default().with_latency(Duration::from_millis(50)))
            .unwrap_or_else(|e| panic!("fake server: {e}"));
    let client = client_for(slow.base_url(), 64);
    run(&client_rt, &client, 256, false);
    let n = 6_400;
    let (wall, _, _) = run(&client_rt, &client, n, false);
    let rate = n as f64 / wall;
    let baseline = bare_reqwest_rate(&client_rt, &slow.base_url(), 64, n);
    println!(
        "(b) baseline: bare reqwest, 64 loops, same server: {baseline:.0} calls/s ({:.1}% of ideal)",
        baseline / 1280.0 * 100.0
    );
    println!(
        "(b) 50 ms latency, 64 in flight: {n} calls in {wall:.2} s = {rate:.0} calls/s ({:.1}% of the ideal 1,280/s)",
        rate / 1280.0 * 100.0
    );
}
