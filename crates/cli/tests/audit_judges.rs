//! `scenario-engine audit-judges` end to end against the fake OpenAI server, on the fixture run
//! `fixtures/runs/pipeline-before.jsonl` and the config it was produced with. The fake server is
//! deterministic per request body, so `--vary-seed` (the repeat number in the body) is what makes
//! repeats differ; the assertions are on structure, call counts and the consistency of the
//! flip-rate figures (the maths itself is unit-tested with hand-built inputs in the library).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use fixtures::{FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");
const JUDGES: [&str; 4] = ["fluency", "naturalness", "cs_ratio", "socio_cultural"];

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn run_file() -> PathBuf {
    fixture("runs/pipeline-before.jsonl")
}

fn fixture_ids() -> BTreeSet<String> {
    std::fs::read_to_string(run_file())
        .expect("fixture run")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .collect()
}

/// Runs the command with a clean settings environment and fast retries.
async fn audit(results: &Path, base_url: &str, extra: &[&str]) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") || key.starts_with("OPENAI_") {
            cmd.env_remove(key);
        }
    }
    cmd.arg("audit-judges")
        .arg(results)
        .arg("--config")
        .arg(fixture("configs/example.yaml"))
        .args(["--base-url", base_url, "--model", "fake-model"])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .args(extra)
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "1")
        .kill_on_drop(true)
        .output()
        .await
        .expect("the binary runs")
}

fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("json written")).expect("JSON")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test]
async fn spreads_and_flip_rates_are_reported_for_a_seeded_sample() {
    let server = FakeServer::start(FakeConfig::default().with_seed(11))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("audit.json");
    let json_arg = json.to_str().expect("utf-8 path");
    let args = [
        "--repeat",
        "3",
        "--sample",
        "5",
        "--seed",
        "1",
        "--vary-seed",
        "--json",
        json_arg,
    ];
    let out = audit(&run_file(), &server.base_url(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Hybrid ratio judge (the config's default): four judge calls per repeat, none cached, no
    // generator or refiner call, and each repeat sent its own seed.
    let requests = server.requests();
    assert_eq!(server.stats().completions, 5 * 3 * 4);
    let seeds: BTreeSet<u64> = requests
        .iter()
        .filter_map(|r| r.body["seed"].as_u64())
        .collect();
    assert_eq!(seeds, BTreeSet::from([0, 1, 2]));
    assert!(requests.iter().all(|r| {
        let schema = r.body.to_string();
        !schema.contains("generator_output") && !schema.contains("refiner_output")
    }));

    let r = report(&json);
    assert_eq!(r["repeats"], 3);
    assert_eq!(r["threshold"], 8.0);
    let scenarios = r["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios.len(), 5);
    let known = fixture_ids();
    let mut flipped = 0;
    let mut near = (0, 0);
    for s in scenarios {
        let id = s["id"].as_str().expect("id");
        assert!(known.contains(id), "{id} is a fixture record");
        let repeat_scores: Vec<f64> = s["repeat_scores"]
            .as_array()
            .expect("repeat scores")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        assert_eq!(repeat_scores.len(), 3);
        let accepts = repeat_scores.iter().filter(|v| **v >= 8.0).count();
        assert_eq!(s["accepts"].as_u64(), Some(accepts as u64));
        let is_flip = accepts > 0 && accepts < 3;
        assert_eq!(s["flipped"].as_bool(), Some(is_flip));
        flipped += usize::from(is_flip);
        let original = s["original_score"].as_f64().expect("original");
        let is_near = (original - 8.0).abs() <= 0.5;
        assert_eq!(s["near_threshold"].as_bool(), Some(is_near));
        if is_near {
            near.0 += 1;
            near.1 += usize::from(is_flip);
        }
        for judge in JUDGES {
            let sp = &s["judges"][judge];
            assert_eq!(sp["n"], 3, "{judge} of {id}");
            let (min, max) = (
                sp["min"].as_f64().expect("min"),
                sp["max"].as_f64().expect("max"),
            );
            let mean = sp["mean"].as_f64().expect("mean");
            assert!(min <= mean && mean <= max && (0.0..=10.0).contains(&min) && max <= 10.0);
        }
    }
    assert_eq!(r["flip_overall"]["scenarios"], 5);
    assert_eq!(r["flip_overall"]["flipped"].as_u64(), Some(flipped as u64));
    assert_eq!(
        r["flip_near_threshold"]["scenarios"].as_u64(),
        Some(near.0 as u64)
    );
    assert_eq!(
        r["flip_near_threshold"]["flipped"].as_u64(),
        Some(near.1 as u64)
    );
    let names: Vec<&str> = r["judges"]
        .as_array()
        .expect("judges")
        .iter()
        .filter_map(|j| j["judge"].as_str())
        .collect();
    assert_eq!(names, JUDGES);
    // The seed changes the fake replies, so some judge must have moved between repeats.
    let moved = r["judges"]
        .as_array()
        .expect("judges")
        .iter()
        .any(|j| j["max_range"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(moved, "no spread at all with a seed per repeat: {r}");

    let stdout = String::from_utf8_lossy(&out.stdout);
    for judge in JUDGES {
        assert!(stdout.contains(&format!("judge {judge}:")), "{stdout}");
    }
    assert!(stdout.contains("flip rate:"), "{stdout}");

    // The same seed picks the same records.
    let again = dir.path().join("again.json");
    let mut args2 = args;
    args2[8] = again.to_str().expect("utf-8 path");
    let out = audit(&run_file(), &server.base_url(), &args2).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ids = |v: &Value| -> Vec<String> {
        v["scenarios"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s["id"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(ids(&report(&again)), ids(&r));
    server.shutdown().await;
}

#[tokio::test]
async fn measured_ratio_judge_makes_no_ratio_call_and_has_no_spread() {
    let server = FakeServer::start(FakeConfig::default().with_seed(3))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("audit.json");
    let args = [
        "--repeat",
        "2",
        "--sample",
        "4",
        "--vary-seed",
        "--ratio-judge",
        "measured",
        "--json",
        json.to_str().expect("utf-8 path"),
    ];
    let out = audit(&run_file(), &server.base_url(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ratio_calls = server
        .requests()
        .iter()
        .filter(|r| r.body.to_string().contains("cs_ratio_output"))
        .count();
    assert_eq!(ratio_calls, 0);
    assert_eq!(server.stats().completions, 4 * 2 * 3);
    let r = report(&json);
    for s in r["scenarios"].as_array().expect("scenarios") {
        let ratio = &s["judges"]["cs_ratio"];
        assert_eq!(ratio["n"], 2);
        assert_eq!(ratio["std_dev"], 0.0, "{s}");
        assert_eq!(ratio["min"], ratio["max"], "{s}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn bad_input_exits_2_without_calling_the_provider() {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let url = server.base_url();
    let one = audit(&run_file(), &url, &["--repeat", "1"]).await;
    assert_eq!(one.status.code(), Some(2), "{}", stderr(&one));
    let suite = audit(&fixture("runs/suite-before.json"), &url, &[]).await;
    assert_eq!(suite.status.code(), Some(2), "{}", stderr(&suite));
    assert!(stderr(&suite).contains("bot-suite"), "{}", stderr(&suite));
    let missing = audit(&fixture("runs/no-such-run.jsonl"), &url, &[]).await;
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    let bad_flag = audit(&run_file(), &url, &["--threshold", "11"]).await;
    assert_eq!(bad_flag.status.code(), Some(2), "{}", stderr(&bad_flag));
    assert_eq!(server.stats().completions, 0);
    server.shutdown().await;
}

#[tokio::test]
async fn a_provider_failure_exits_3() {
    let server = FakeServer::start(FakeConfig::default().with_api_key("secret"))
        .await
        .expect("server");
    let out = audit(
        &run_file(),
        &server.base_url(),
        &["--repeat", "2", "--sample", "2"],
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("failed at the provider"),
        "{}",
        stderr(&out)
    );
    server.shutdown().await;
}
