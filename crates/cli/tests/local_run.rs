//! `scenario-engine run --provider local` end to end on the real embedded model (feature
//! `local-llm`): one scenario through generator, judges and the JSONL record.
//!
//! It needs the GGUF file, so it is `#[ignore]`d: run it with
//! `SCENARIO_ENGINE_MODEL=$(cargo xtask fetch-model) cargo test -p scenario-engine --features
//! local-llm --test local_run -- --ignored`. Asked to run without `SCENARIO_ENGINE_MODEL` it fails
//! with that instruction rather than passing vacuously. Token caps keep it to well under a minute
//! in a release build.

#![cfg(feature = "local-llm")]

use std::path::Path;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

#[test]
#[ignore = "needs the local model: SCENARIO_ENGINE_MODEL=$(cargo xtask fetch-model)"]
fn run_one_scenario_on_the_local_model() {
    let model = std::env::var_os("SCENARIO_ENGINE_MODEL").unwrap_or_else(|| {
        panic!("SCENARIO_ENGINE_MODEL must name the GGUF file: run `cargo xtask fetch-model` and export its output")
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("local.jsonl");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/configs/example.yaml");
    let mut cmd = std::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        // Settings from the developer's shell must not change what is tested; the model path
        // goes in as a flag.
        if key.starts_with("SCENARIO_ENGINE") || key.starts_with("OPENAI_") {
            cmd.env_remove(key);
        }
    }
    let output = cmd
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .args(["--provider", "local", "--model-path"])
        .arg(&model)
        .args([
            "--limit",
            "1",
            "--max-refinements",
            "0",
            "--ratio-judge",
            "measured",
            "--no-cache",
        ])
        .env("SCENARIO_ENGINE__LOCAL__MAX_TOKENS_CAP", "160")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("provider local"), "{stderr}");
    // The embedded model is free: no reply of it reads as unpriced.
    assert!(!stderr.contains("no price"), "{stderr}");
    assert!(!stderr.contains("+ unknown"), "{stderr}");
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("no output ({e}); exit {:?}\n{stderr}", output.status.code()));
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    assert_eq!(records.len(), 1, "{stderr}");
    let record = &records[0];
    let sentences = record["data_generation_result"]
        .as_array()
        .expect("generated sentences");
    assert!(
        sentences.iter().filter_map(Value::as_str).any(|s| s
            .chars()
            .filter(|c| c.is_alphabetic())
            .count()
            >= 10),
        "real text expected: {record}"
    );
    let scores = record["scores"].as_object().expect("judge scores");
    for judge in ["fluency", "naturalness", "socio_cultural"] {
        let score = scores.get(judge).and_then(Value::as_f64);
        assert!(
            score.is_some_and(|s| (0.0..=10.0).contains(&s)),
            "{judge} score in 0–10 expected: {record}"
        );
    }
    assert!(
        record["usage"]["completion_tokens"].as_u64().unwrap_or(0) > 0,
        "{record}"
    );
    assert_eq!(
        record["usage"]["estimated"],
        Value::Bool(false),
        "local token counts come from the model's tokenizer"
    );
}
