//! `scenario-engine run --batch` end to end against the fake Batch API: the run completes in
//! waves and its records have the fields of an online run's.

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
        .args(["--base-url", base_url, "--model", "fake-model"])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY", "--no-cache"])
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
