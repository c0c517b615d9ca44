//! A judge the config declares beside the four (`run.judges`), end to end against the fake
//! OpenAI server: `fixtures/configs/toxicity-judge.yaml` declares `toxicity` (weight 1), and
//! its score must reach every place a judge's score goes — the record's `scores`, its attempts
//! (refinements are judged again), the weighted score, `plan`'s estimate, `report`, `diff`,
//! `audit-judges` and `export` — never dropped. A judge declared without a score field is a
//! located error (exit 2). And a config that asks for grounding (`use_tools: true`) with no
//! tool server says so up front and in every record.

use std::path::{Path, PathBuf};
use std::process::Output;

use fixtures::{FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/configs")
        .join(name)
}

/// The binary with a clean settings environment and fast retries.
fn command(args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") || key.starts_with("OPENAI_") {
            cmd.env_remove(key);
        }
    }
    cmd.args(args)
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "5")
        .kill_on_drop(true);
    cmd
}

async fn output(args: &[&str]) -> Output {
    command(args).output().await.expect("the binary runs")
}

/// `run CONFIG --out OUT` on the fake server.
async fn run(config: &Path, out: &Path, base_url: &str) -> Output {
    let (config, out) = (path(config), path(out));
    output(&[
        "run",
        config,
        "--out",
        out,
        "--base-url",
        base_url,
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--model",
        "fake-model",
    ])
    .await
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn records(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out)
        .expect("output exists")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// The four built-in weights of the fixture config and toxicity's.
const WEIGHTS: [(&str, f64); 5] = [
    ("fluency", 0.30),
    ("naturalness", 0.25),
    ("cs_ratio", 0.20),
    ("socio_cultural", 0.25),
    ("toxicity", 1.0),
];

/// Each attempt (and so the record) carries toxicity's reply and score, and its weighted score
/// is the formula over the five judges.
fn check_record(r: &Value) {
    for a in r["attempts"].as_array().expect("attempts") {
        let toxicity = &a["judge_results"]["toxicity"];
        let score = toxicity["toxicity_score"].as_f64().expect("toxicity score");
        assert!((0.0..=10.0).contains(&score), "{toxicity}");
        assert!(toxicity["reason"].is_string(), "{toxicity}");
        assert_eq!(a["scores"]["toxicity"].as_f64(), Some(score), "{a}");
        let (sum, weights) = WEIGHTS.iter().fold((0.0, 0.0), |(s, w), (name, weight)| {
            let judge = a["scores"][*name].as_f64().expect("every judge's score");
            (s + weight * judge, w + weight)
        });
        let weighted = a["score"].as_f64().expect("score");
        assert!(
            (weighted - sum / weights).abs() < 1e-9,
            "attempt score {weighted} is not the five judges' weighted mean {}",
            sum / weights
        );
    }
    assert!(r["scores"]["toxicity"].is_number(), "{r}");
    assert!(r["judge_results"]["toxicity"].is_object(), "{r}");
    assert_eq!(
        r["run_settings"]["weights"]["toxicity"].as_f64(),
        Some(1.0),
        "{r}"
    );
    assert!(r["models"]["toxicity"].is_string(), "{r}");
    assert!(r["prompt_hashes"]["toxicity"].is_string(), "{r}");
    assert!(
        r["summary"]
            .as_str()
            .is_some_and(|s| s.contains("toxicity ")),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifth_judge_is_in_records_estimate_report_diff_audit_and_export() {
    let server = FakeServer::start(FakeConfig::default().with_seed(3))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = fixture("toxicity-judge.yaml");

    // `plan`'s estimate counts toxicity's calls.
    let plan = output(&["plan", path(&config), "--json"]).await;
    assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
    let plan: Value = serde_json::from_slice(&plan.stdout).expect("plan JSON");
    let estimate = plan["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .find(|s| {
            s["title"]
                .as_str()
                .is_some_and(|t| t.starts_with("Estimate"))
        })
        .expect("an estimate section");
    let agents: Vec<&str> = estimate["data"]["models"][0]["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(agents.contains(&"toxicity"), "{agents:?}");
    // 4 scenarios × (generator + 5 judges × (1 + r) + r refinements), r = 0.3 by default.
    assert_eq!(estimate["data"]["calls"].as_u64(), Some(31), "{estimate}");

    let before = dir.path().join("before.jsonl");
    let o = run(&config, &before, &server.base_url()).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let recs = records(&before);
    assert_eq!(recs.len(), 4);
    recs.iter().for_each(check_record);
    assert!(
        recs.iter().any(|r| r["refine_count"].as_u64() > Some(0)),
        "some scenario is refined, and its refinement judged by toxicity again"
    );

    // The report's judge table has a toxicity row.
    let markdown = dir.path().join("report.md");
    let o = output(&["report", path(&before), "--markdown", path(&markdown)]).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let report = std::fs::read_to_string(&markdown).expect("markdown written");
    assert!(report.contains("| toxicity |"), "{report}");
    assert!(text(&o.stdout).contains("toxicity"), "{}", text(&o.stdout));

    // `diff` against a run without the fifth judge shows its mean on the side that has it.
    let plain = dir.path().join("plain.jsonl");
    let o = run(&fixture("example.yaml"), &plain, &server.base_url()).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = output(&["diff", path(&plain), path(&before)]).await;
    let diff = text(&o.stdout);
    assert!(
        diff.lines()
            .any(|l| l.starts_with("judge means") && l.contains("toxicity - → ")),
        "{diff}"
    );

    // `audit-judges` re-judges with the config's judges: toxicity among them.
    let audit = dir.path().join("audit.json");
    let o = output(&[
        "audit-judges",
        path(&before),
        "--config",
        path(&config),
        "--base-url",
        &server.base_url(),
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--model",
        "fake-model",
        "--repeat",
        "2",
        "--sample",
        "2",
        "--json",
        path(&audit),
    ])
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let audit: Value =
        serde_json::from_str(&std::fs::read_to_string(&audit).expect("audit written"))
            .expect("audit JSON");
    let judges: Vec<&str> = audit["judges"]
        .as_array()
        .expect("judges")
        .iter()
        .filter_map(|j| j["judge"].as_str())
        .collect();
    assert!(judges.contains(&"toxicity"), "{audit}");

    // The dataset rows carry every judge's score and toxicity's feedback.
    let dataset = dir.path().join("dataset");
    let o = output(&[
        "export",
        path(&before),
        "--out",
        path(&dataset),
        "--format",
        "jsonl",
        "--include",
        "rejected,duplicates",
    ])
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut rows = 0;
    for entry in std::fs::read_dir(dataset.join("data")).expect("data folder") {
        let file = entry.expect("entry").path();
        for line in std::fs::read_to_string(&file).expect("split").lines() {
            let row: Value = serde_json::from_str(line).expect("row JSON");
            let scores: Value =
                serde_json::from_str(row["judge_scores"].as_str().expect("judge_scores text"))
                    .expect("judge_scores JSON");
            assert!(scores["toxicity"].is_number(), "{row}");
            let feedback: Value =
                serde_json::from_str(row["judge_feedback"].as_str().expect("feedback text"))
                    .expect("judge_feedback JSON");
            assert!(feedback["toxicity"]["reason"].is_string(), "{row}");
            rows += 1;
        }
    }
    assert!(rows > 0, "the export wrote rows");
    // The card named "four LLM judges" and left `judge_scores` out of its column list.
    let card = std::fs::read_to_string(dataset.join("README.md")).expect("card");
    assert!(
        card.contains(
            "scored by 5 LLM judges\n(fluency, naturalness, code-switching ratio, \
             socio-cultural fit, toxicity)"
        ),
        "{card}"
    );
    assert!(!card.contains("four LLM judges"), "{card}");
    assert!(
        card.contains("`judge_scores` (every judge's score"),
        "{card}"
    );
}

#[tokio::test]
async fn a_judge_without_a_score_field_is_a_located_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("no-score-field.yaml");
    let text_of = std::fs::read_to_string(fixture("toxicity-judge.yaml")).expect("fixture");
    let without = text_of.replace("      score_field: toxicity_score\n", "");
    assert_ne!(without, text_of, "the fixture declares a score field");
    std::fs::write(&config, &without).expect("written");
    let out = dir.path().join("never.jsonl");
    for args in [
        vec!["plan", path(&config)],
        vec!["run", path(&config), "--out", path(&out)],
    ] {
        let command = args[0];
        let o = output(&args).await;
        assert_eq!(o.status.code(), Some(2), "{command}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        let line = without
            .lines()
            .position(|l| l.trim_start().starts_with("toxicity:"))
            .expect("the judge's key")
            + 1;
        assert!(
            err.contains(&format!(
                "no-score-field.yaml:{line}:5: error: `judges.toxicity.score_field` is missing"
            )),
            "{command}: {err}"
        );
        assert!(err.contains("hint: add e.g. `score_field:"), "{err}");
    }
    assert!(!out.exists(), "nothing was run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn use_tools_without_a_tool_server_is_said_up_front_and_in_every_record() {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = fixture("switchlingua.yaml");
    let notice = "generation is NOT grounded";

    let plan = output(&["plan", path(&config)]).await;
    assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
    let shown = text(&plan.stdout);
    assert_eq!(shown.matches(notice).count(), 1, "{shown}");
    assert!(
        shown.lines().next().is_some_and(|l| l.contains(notice)),
        "said first, before the plan's header: {shown}"
    );

    let out = dir.path().join("sl.jsonl");
    let o = output(&[
        "run",
        path(&config),
        "--out",
        path(&out),
        "--base-url",
        &server.base_url(),
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--model",
        "fake-model",
        "--limit",
        "3",
    ])
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert_eq!(err.matches(notice).count(), 1, "said once: {err}");
    assert!(
        err.lines().next().is_some_and(|l| l.contains(notice)),
        "{err}"
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 3);
    for r in &recs {
        assert_eq!(
            r["grounding"].as_str(),
            Some("none: no tool server configured"),
            "{r}"
        );
    }

    // The exported rows and card say the texts were not grounded (they said nothing).
    let dataset = dir.path().join("ds");
    let o = output(&[
        "export",
        path(&out),
        "--out",
        path(&dataset),
        "--format",
        "jsonl",
        "--include",
        "rejected",
    ])
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let card = std::fs::read_to_string(dataset.join("README.md")).expect("card");
    assert!(card.contains("**Not grounded**: 3 row(s)"), "{card}");
    let mut rows = 0;
    for entry in std::fs::read_dir(dataset.join("data")).expect("data folder") {
        let file = entry.expect("entry").path();
        for line in std::fs::read_to_string(&file).expect("split").lines() {
            let row: Value = serde_json::from_str(line).expect("row JSON");
            assert_eq!(
                row["grounding"].as_str(),
                Some("none: no tool server configured"),
                "{row}"
            );
            rows += 1;
        }
    }
    assert_eq!(rows, 3);

    // A config that does not ask for grounding hears nothing of it, and its records carry no
    // `grounding`.
    let plain = output(&["plan", path(&fixture("example.yaml"))]).await;
    assert!(!text(&plain.stdout).contains(notice));
}

/// The fixture with `from` replaced by `to`, written as `dir/name`.
fn variant(dir: &Path, name: &str, from: &str, to: &str) -> (PathBuf, String) {
    let original = std::fs::read_to_string(fixture("toxicity-judge.yaml")).expect("fixture");
    let changed = original.replacen(from, to, 1);
    assert_ne!(changed, original, "the fixture holds {from:?}");
    let config = dir.join(name);
    std::fs::write(&config, &changed).expect("written");
    (config, changed)
}

/// The 1-based line of the first line of `yaml` that begins (indented) with `start`.
fn line_of(yaml: &str, start: &str) -> usize {
    yaml.lines()
        .position(|l| l.trim_start().starts_with(start))
        .expect("the key")
        + 1
}

/// `plan` and `run` both refuse `config` with exit 2 and `located` (file:line:col and
/// message) in their error, and run nothing.
async fn refused_by_plan_and_run(config: &Path, located: &str) {
    let out = config.with_extension("jsonl");
    for args in [
        vec!["plan", path(config)],
        vec!["run", path(config), "--out", path(&out)],
    ] {
        let o = output(&args).await;
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", args[0]);
        assert!(err.contains(located), "{}: {err}", args[0]);
        assert!(err.contains("hint: "), "{}: {err}", args[0]);
    }
    assert!(!out.exists(), "nothing was run");
}

/// A judge named after a shared prompt part (`judge_texts`, `judge_intro`, `judge_context`,
/// `cs_guide`) replaced that part in every built-in prompt, and the run accepted scenarios
/// whose judges never saw the texts. The name is refused at its line.
#[tokio::test]
async fn a_judge_named_after_a_shared_prompt_part_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    for part in ["judge_texts", "judge_intro", "judge_context", "cs_guide"] {
        let name = format!("{part}.yaml");
        let (config, yaml) = variant(
            dir.path(),
            &name,
            "    toxicity:\n",
            &format!("    {part}:\n"),
        );
        let line = line_of(&yaml, &format!("{part}:"));
        refused_by_plan_and_run(
            &config,
            &format!(
                "{name}:{line}:5: error: `judges.{part}` is the name of the built-in prompt part"
            ),
        )
        .await;
    }
}

/// `prompt_file: /dev/zero` was read until memory ran out; a FIFO hung. Only a regular file of
/// at most 256 KiB is read.
#[tokio::test]
async fn a_prompt_file_that_is_no_regular_file_or_too_big_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = dir.path().join("big.j2");
    std::fs::write(&big, "{{ instances }}".repeat(20_000)).expect("written");
    for (i, (file, why)) in [
        ("/dev/zero", "it is not a regular file"),
        (path(&big), "it is larger than 256 KiB"),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("file{i}.yaml");
        let original = std::fs::read_to_string(fixture("toxicity-judge.yaml")).expect("fixture");
        let start = original.find("      prompt: |").expect("the prompt");
        let end = original
            .find("      score_field:")
            .expect("the score field");
        let yaml = format!(
            "{}      prompt_file: {file}\n{}",
            &original[..start],
            &original[end..]
        );
        let config = dir.path().join(&name);
        std::fs::write(&config, &yaml).expect("written");
        let line = line_of(&yaml, "prompt_file:");
        refused_by_plan_and_run(
            &config,
            &format!("{name}:{line}:7: error: `judges.toxicity.prompt_file` names {file}, which cannot be read ({why}"),
        )
        .await;
    }
}

/// `plan` passed `{% include 'nope' %}` (exit 0) and `run` failed without a location; a
/// prompt that never shows the texts was accepted. Both are refused at the prompt's line.
#[tokio::test]
async fn a_missing_include_and_a_prompt_without_the_texts_are_refused_at_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (config, yaml) = variant(
        dir.path(),
        "include.yaml",
        "{% include \"judge_texts\" %}",
        "{% include \"judge_texts\" %}{% include 'nope' %}",
    );
    let line = line_of(&yaml, "prompt:");
    refused_by_plan_and_run(
        &config,
        &format!("include.yaml:{line}:7: error: `judges.toxicity.prompt` includes a template that does not exist"),
    )
    .await;
    let (config, _) = variant(
        dir.path(),
        "blind.yaml",
        "{% include \"judge_texts\" %}",
        "",
    );
    refused_by_plan_and_run(
        &config,
        &format!("blind.yaml:{line}:7: error: `judges.toxicity.prompt` never shows the texts"),
    )
    .await;
}

/// Resuming after an edit of a declared judge's prompt mixed two prompts under one name in
/// one file: it is refused as a weight change is, naming the record's line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_with_another_judge_prompt_is_refused() {
    let server = FakeServer::start(FakeConfig::default().with_seed(5))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("res.jsonl");
    let o = run(&fixture("toxicity-judge.yaml"), &out, &server.base_url()).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let written = std::fs::read_to_string(&out).expect("records");
    let first = written.lines().next().expect("a record");
    std::fs::write(&out, format!("{first}\n")).expect("one record kept");
    let (edited, _) = variant(
        dir.path(),
        "edited.yaml",
        "nothing toxic.",
        "nothing toxic at all.",
    );
    let o = run(&edited, &out, &server.base_url()).await;
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}:1: this record was judged with another `toxicity` prompt",
            out.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("hint: run with the prompt the file was written with"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&out)
            .expect("records")
            .lines()
            .count(),
        1,
        "nothing was added"
    );
}

/// `audit-judges` re-judged records written with `toxicity` at weight 1 under a config with
/// weight 3 (or without the judge) and computed flips as if the rules were the same. It now
/// says so first, naming the judge set and the weights.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_judges_says_when_the_config_s_rules_differ_from_the_records() {
    let server = FakeServer::start(FakeConfig::default().with_seed(4))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("res.jsonl");
    let o = run(&fixture("toxicity-judge.yaml"), &out, &server.base_url()).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (heavier, _) = variant(
        dir.path(),
        "w3.yaml",
        "      weight: 1\n",
        "      weight: 3\n",
    );
    let audit = |config: PathBuf| {
        let (out, url) = (out.clone(), server.base_url());
        async move {
            let args = [
                "audit-judges",
                path(&out),
                "--config",
                path(&config),
                "--repeat",
                "2",
                "--sample",
                "2",
                "--base-url",
                &url,
                "--api-key-env",
                "SCENARIO_ENGINE_TEST_NO_KEY",
                "--model",
                "fake-model",
            ];
            text(&output(&args).await.stderr)
        }
    };
    let err = audit(heavier).await;
    let warning = err
        .lines()
        .find(|l| l.contains("decided under other rules"))
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert!(
        warning.contains("\"toxicity\": 1.0} (records) vs"),
        "{warning}"
    );
    assert!(warning.contains("\"toxicity\": 3.0} (config)"), "{warning}");
    let same = audit(fixture("toxicity-judge.yaml")).await;
    assert!(!same.contains("other rules"), "{same}");
    let without = audit(fixture("example.yaml")).await;
    assert!(
        without.contains("judges only in the records: toxicity"),
        "{without}"
    );
}

/// The fifth judge through the provider's Batch API (`run --batch`, docs/cli.md): its calls go
/// in the batches beside the four built-in judges', and its scores reach every record as in an
/// online run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifth_judge_runs_through_run_batch_with_its_scores_in_records() {
    let server = FakeServer::start(
        FakeConfig::default()
            .with_seed(3)
            .with_batch_delay(std::time::Duration::from_millis(20)),
    )
    .await
    .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("batch.jsonl");
    let o = output(&[
        "run",
        path(&fixture("toxicity-judge.yaml")),
        "--out",
        path(&out),
        "--base-url",
        &server.base_url(),
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--model",
        "fake-model",
        "--no-cache",
        "--batch",
    ])
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stats = server.stats();
    assert_eq!(
        stats.by_route.get(fixtures::ROUTE_CHAT),
        None,
        "no online call: {stats:?}"
    );
    let toxicity_items = server
        .batch_inputs()
        .iter()
        .filter(|i| i.custom_id.contains(":toxicity"))
        .count();
    assert!(
        toxicity_items >= 4,
        "one toxicity call per judged attempt at least"
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 4);
    recs.iter().for_each(check_record);
}
