//! `scenario-engine run --batch` end to end against the fake Batch API: the run completes in
//! waves and its records have the fields of an online run's; `--budget` stops it as it stops an
//! online run, and a later run resumes it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use fixtures::{BatchItemFault, FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

const CONFIG: &str = "name: batch-test
language_pairs:
  - {first_language: Spanish, second_language: English}
axes:
  topic: [business, health, sports]
  cs_ratio: [\"30%\", \"50%\"]
seed: 7
";

async fn run(config: &Path, out: &Path, base_url: &str, extra: &[&str]) -> Output {
    run_model(config, out, base_url, "fake-model", extra).await
}

async fn run_model(
    config: &Path,
    out: &Path,
    base_url: &str,
    model: &str,
    extra: &[&str],
) -> Output {
    run_with_cache(config, out, base_url, model, false, extra).await
}

/// `run` against `base_url` with the response cache on or off, every other flag as [`run`].
async fn run_with_cache(
    config: &Path,
    out: &Path,
    base_url: &str,
    model: &str,
    cache: bool,
    extra: &[&str],
) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") {
            cmd.env_remove(key);
        }
    }
    cmd.arg("run")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--base-url", base_url, "--model", model])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .args(if cache { &[][..] } else { &["--no-cache"][..] })
        .args(extra)
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .kill_on_drop(true)
        .output()
        .await
        .expect("the binary runs")
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("output exists")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn fields(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("object").keys().cloned().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_batch_completes_with_online_shaped_records() {
    let cfg = FakeConfig::default()
        .with_seed(4)
        .with_batch_delay(Duration::from_millis(30))
        .with_batch_script([BatchItemFault::Expired]);
    let server = FakeServer::start(cfg).await.expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, CONFIG).expect("config");

    let batch_out = dir.path().join("batch.jsonl");
    let o = run(&config, &batch_out, &server.base_url(), &["--batch"]).await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("6 written, 0 failed"), "{stderr}");
    assert!(
        !dir.path().join("batch.jsonl.batch-state.json").exists(),
        "the state is removed at the end"
    );
    // Every chat request went through the Batch API, none online.
    let stats = server.stats();
    assert_eq!(stats.by_route.get(fixtures::ROUTE_CHAT), None, "{stats:?}");
    let inputs = server.batch_inputs();
    assert!(
        inputs.iter().any(|i| i.custom_id.ends_with("#2")),
        "the expired item was resubmitted"
    );

    let online_out = dir.path().join("online.jsonl");
    let o = run(&config, &online_out, &server.base_url(), &[]).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let batch = records(&batch_out);
    let online = records(&online_out);
    assert_eq!(batch.len(), 6);
    let ids = |r: &[Value]| -> BTreeSet<String> {
        r.iter()
            .map(|v| v["id"].as_str().expect("id").to_owned())
            .collect()
    };
    assert_eq!(ids(&batch), ids(&online));
    for b in &batch {
        let o = online
            .iter()
            .find(|o| o["id"] == b["id"])
            .expect("same id online");
        assert_eq!(fields(b), fields(o), "record {}", b["id"]);
        assert_eq!(b["data_generation_result"], o["data_generation_result"]);
    }
}

/// The spend `run` reports on its summary line (`cost $X`).
/// The "Batch API" section of `plan --json --batch CONFIG`.
fn batch_plan(config: &Path) -> Value {
    let plan = std::process::Command::new(BIN)
        .args(["plan", "--json", "--batch"])
        .arg(config)
        .output()
        .expect("the binary runs");
    let plan: Value = serde_json::from_slice(&plan.stdout).expect("JSON plan");
    plan["sections"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["title"] == "Batch API"))
        .map(|s| s["data"].clone())
        .expect("a batch section")
}

fn reported_cost(stderr: &str) -> f64 {
    let after = stderr
        .split("cost $")
        .nth(1)
        .expect("a cost on the summary line");
    let number: String = after
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.parse().expect("a number")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_batch_stops_at_the_budget_and_resumes_later() {
    let server = FakeServer::start(
        FakeConfig::default()
            .with_seed(4)
            .with_batch_delay(Duration::from_millis(30)),
    )
    .await
    .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    // A priced model, and every scenario refined to the end (no judge gives all tens): the real
    // spend is well above the estimate, which assumes few refinements.
    std::fs::write(
        &config,
        format!("{CONFIG}run:\n  model: gpt-4o\n  max_refinements: 8\n  threshold: 10\n"),
    )
    .expect("config");
    let estimate = batch_plan(&config)["online_cost_usd"]
        .as_f64()
        .expect("a priced estimate");
    // Above the estimate, so the run starts; below what the run would spend.
    let budget = estimate * 1.2;
    let budget_arg = format!("{budget}");

    let out = dir.path().join("budget.jsonl");
    let o = run_model(
        &config,
        &out,
        &server.base_url(),
        "gpt-4o",
        &["--batch", "--budget", &budget_arg],
    )
    .await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(3),
        "a budget stop is a run failure: {stderr}"
    );
    assert!(stderr.contains("stop: the budget was reached"), "{stderr}");
    let spent = reported_cost(&stderr);
    let submitted = server.batch_inputs().len();
    assert!(
        spent >= budget,
        "stopped at ${spent} before the budget ${budget}"
    );
    // The overshoot is what was in flight when the spend crossed the budget: at most one wave
    // (here a wave of 24 judge calls is about an eighth of the budget).
    assert!(
        spent < budget * 1.25,
        "${spent} is far past the budget ${budget}"
    );
    // Once the spend reached the budget no wave was submitted: what was in flight was the
    // overshoot, far less than the run's total.
    let written: f64 = std::fs::read_to_string(&out)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("JSON line")["cost_usd"]
                .as_f64()
                .expect("cost")
        })
        .sum();
    assert!(
        written <= spent + 1e-12,
        "records cost no more than the run spent"
    );
    assert!(
        dir.path().join("budget.jsonl.batch-state.json").exists(),
        "the state is kept for a later run"
    );

    // Without a budget the same output resumes and completes, submitting only new waves.
    let o = run_model(&config, &out, &server.base_url(), "gpt-4o", &["--batch"]).await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert_eq!(records(&out).len(), 6);
    assert!(
        server.batch_inputs().len() > submitted,
        "the resumed run submitted more calls"
    );
    assert!(
        reported_cost(&stderr) > 0.0,
        "the budget stop left paid work undone"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_run_checks_its_budget_at_the_batch_price() {
    // A budget between the batch and the online estimate was refused before the run started:
    // the check priced a batch run at the online rate.
    let server = FakeServer::start(FakeConfig::default().with_seed(5))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, format!("{CONFIG}run:\n  model: gpt-4o\n")).expect("config");
    let batch = batch_plan(&config);
    let online = batch["online_cost_usd"].as_f64().expect("online estimate");
    let at_batch_price = batch["batch_cost_usd"].as_f64().expect("batch estimate");
    assert!(at_batch_price < online, "{batch}");
    let budget = format!("{}", (online + at_batch_price) / 2.0);
    let out = dir.path().join("priced.jsonl");
    let o = run_model(
        &config,
        &out,
        &server.base_url(),
        "gpt-4o",
        &["--batch", "--budget", &budget],
    )
    .await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("exceeds the budget"), "{stderr}");
    // The same budget online is above the estimate: refused before anything is spent.
    let o = run_model(
        &config,
        &dir.path().join("online.jsonl"),
        &server.base_url(),
        "gpt-4o",
        &["--budget", &budget],
    )
    .await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("at the online price"), "{stderr}");
}

#[test]
fn plan_batch_shows_waves_and_the_batch_price() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(
        &config,
        format!("{CONFIG}run:\n  model: gpt-4o-mini\n  max_refinements: 2\n"),
    )
    .expect("config");
    let o = std::process::Command::new(BIN)
        .args(["plan", "--json", "--batch"])
        .arg(&config)
        .output()
        .expect("the binary runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let plan: Value = serde_json::from_slice(&o.stdout).expect("JSON plan");
    let sections = plan["sections"].as_array().expect("sections");
    assert_eq!(sections[0]["title"], "Estimate (online)");
    let section = sections
        .iter()
        .find(|s| s["title"] == "Batch API")
        .expect("a Batch API section");
    assert_eq!(section["data"]["max_waves"], 6);
    let online = section["data"]["online_cost_usd"].as_f64().expect("priced");
    let batch = section["data"]["batch_cost_usd"].as_f64().expect("priced");
    assert!(
        online > 0.0 && (batch - online / 2.0).abs() < 1e-12,
        "{section}"
    );
}

/// A server answering 500 naming `response_format` to `json_schema`: every scenario used to
/// fail ("server error 0 after 3 attempts: server error 500 after 1 attempt"); the batch items
/// it rejects now come back in the next wave in the next mode, as online negotiation does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_batch_falls_back_to_the_next_structured_mode() {
    let cfg = FakeConfig::default()
        .with_seed(4)
        .with_batch_delay(Duration::from_millis(30))
        .rejecting_json_schema()
        .rejecting_with(fixtures::RejectStyle::ServerError);
    let server = FakeServer::start(cfg).await.expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, CONFIG).expect("config");
    let out = dir.path().join("batch.jsonl");
    let o = run(&config, &out, &server.base_url(), &["--batch"]).await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("6 written, 0 failed"), "{stderr}");
    let recs = records(&out);
    assert_eq!(recs.len(), 6);
    assert!(recs.iter().all(|r| r["score"].is_number()), "scored");
    assert!(!stderr.contains("server error 0"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_run_killed_at_any_moment_submits_no_call_twice() {
    let server = FakeServer::start(
        FakeConfig::default()
            .with_seed(8)
            .with_batch_delay(Duration::from_millis(120)),
    )
    .await
    .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    // A window of two scenarios: waves mix judges of earlier scenarios with new generations.
    std::fs::write(&config, format!("{CONFIG}run:\n  batch_window: 2\n")).expect("config");
    let out = dir.path().join("killed.jsonl");
    // SIGKILL at spread offsets: while polling, between waves, while writing records, at start.
    for offset_ms in [15u64, 60, 110, 170, 240, 320, 410, 510] {
        let mut cmd = tokio::process::Command::new(BIN);
        for (key, _) in std::env::vars() {
            if key.starts_with("SCENARIO_ENGINE") {
                cmd.env_remove(key);
            }
        }
        let mut child = cmd
            .arg("run")
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .args(["--base-url", &server.base_url(), "--model", "fake-model"])
            .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY", "--no-cache"])
            .arg("--batch")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn");
        tokio::time::sleep(Duration::from_millis(offset_ms)).await;
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
    let o = run(&config, &out, &server.base_url(), &["--batch"]).await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let ids: Vec<String> = records(&out)
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (6, 6), "every scenario once");
    let mut per_key: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
    for input in server.batch_inputs() {
        let key = input
            .custom_id
            .rsplit_once('#')
            .map_or(input.custom_id.clone(), |(k, _)| k.to_owned());
        *per_key.entry(key).or_default() += 1;
    }
    let twice: Vec<_> = per_key.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "submitted twice: {twice:?}");
    assert!(!dir.path().join("killed.jsonl.batch-state.json").exists());
}

/// `run` with the response cache on (no `--no-cache`), every other flag as [`run`].
async fn run_cached(config: &Path, out: &Path, base_url: &str, extra: &[&str]) -> Output {
    run_with_cache(config, out, base_url, "fake-model", true, extra).await
}

/// Issue 27: a batch run whose sample included an earlier online run's scenarios submitted
/// those items again (paid twice). Now the batch answers from the response cache what it can
/// and submits only the rest; its own replies go into the cache, so a later run pays nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_run_answers_from_the_response_cache_and_fills_it() {
    let cfg = FakeConfig::default()
        .with_seed(4)
        .with_batch_delay(Duration::from_millis(30));
    let server = FakeServer::start(cfg).await.expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, CONFIG).expect("config");

    // An online run of the first three scenarios, cached.
    let online = dir.path().join("online.jsonl");
    let o = run_cached(&config, &online, &server.base_url(), &["--limit", "3"]).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let known: BTreeSet<String> = records(&online)
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(known.len(), 3);

    // The whole grid in a batch: the three are answered from the cache, never submitted.
    let batch = dir.path().join("batch.jsonl");
    let o = run_cached(&config, &batch, &server.base_url(), &["--batch"]).await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("6 written, 0 failed"), "{stderr}");
    let submitted: BTreeSet<String> = server
        .batch_inputs()
        .iter()
        .map(|i| i.custom_id.split(':').next().expect("scenario").to_owned())
        .collect();
    assert_eq!(submitted.len(), 3, "{submitted:?}");
    assert!(submitted.is_disjoint(&known), "{submitted:?} vs {known:?}");
    let by_id = |path: &Path| -> std::collections::BTreeMap<String, Value> {
        records(path)
            .into_iter()
            .map(|r| (r["id"].as_str().expect("id").to_owned(), r))
            .collect()
    };
    let (online, batch) = (by_id(&online), by_id(&batch));
    for (id, r) in &online {
        assert_eq!(
            batch[id]["data_generation_result"],
            r["data_generation_result"]
        );
        assert!(batch[id]["cache_hits"].as_u64() > Some(0), "{}", batch[id]);
    }

    // The batch's own replies were cached: an online run of the whole grid calls nothing.
    let chat_before = server.stats().by_route.get(fixtures::ROUTE_CHAT).copied();
    let again = dir.path().join("again.jsonl");
    let o = run_cached(&config, &again, &server.base_url(), &[]).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        server.stats().by_route.get(fixtures::ROUTE_CHAT).copied(),
        chat_before,
        "every call was a cache hit"
    );
}
