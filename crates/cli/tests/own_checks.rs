//! `scenario-engine test` on the example suite of the user's own checks
//! (`fixtures/suites/own-checks.yaml`: a Python `command` check, an `llmRubric` and a `similar`
//! check) with its scripted bot against the fake server: every scenario gets its declared
//! outcome, the summary states the checks' model calls, the JSON and JUnit carry the judge's
//! reasoning, and a rerun is answered from the response cache (the server sees no new request).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fixtures::{FakeConfig, FakeServer, ROUTE_CHAT, judging::ROUTE_EMBEDDINGS};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/suites/own-checks.yaml")
}

fn run(server: &FakeServer, cache: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("test")
        .arg(suite())
        .args(["--base-url", &server.base_url()])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .args(extra)
        .env("SCENARIO_ENGINE__CACHE__DIR", cache)
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

#[test]
fn the_own_checks_suite_gets_its_declared_outcomes_and_reruns_from_the_cache() {
    let server = FakeServer::spawn_background(FakeConfig::default()).expect("fake server starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let out = run(&server, &cache, &["--self-check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("self-check: 2/2"), "{stdout}");
    let first = server.stats().by_route;
    assert_eq!(first.get(ROUTE_CHAT), Some(&2), "{first:?}");
    assert_eq!(first.get(ROUTE_EMBEDDINGS), Some(&2), "{first:?}");

    // The report run: answered from the cache, stated in the summary, reasoning in every file.
    let json = dir.path().join("result.json");
    let junit = dir.path().join("junit.xml");
    let out = run(
        &server,
        &cache,
        &[
            "--json",
            json.to_str().expect("utf-8"),
            "--junit",
            junit.to_str().expect("utf-8"),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(server.stats().by_route, first, "a rerun asks nothing new");
    assert!(
        stdout.contains("checks' model calls: 4 (4 from the cache), cost $0.00"),
        "{stdout}"
    );
    assert!(stdout.contains("judge: the reply has"), "{stdout}");
    assert!(
        stdout.contains("does not name the recipient 'Bob'"),
        "{stdout}"
    );
    let result = std::fs::read_to_string(&json).expect("json written");
    assert!(result.contains("judge: the reply has"), "{result}");
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(xml.contains("judge: the reply has"), "{xml}");
    assert!(xml.contains("cosine similarity"), "{xml}");
}

#[test]
fn a_typo_in_an_own_check_exits_2_located() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.yaml");
    std::fs::write(
        &path,
        "scenarios:\n  - id: a\n    category: custom\n    steps: [hi]\n    expect:\n      similar: {to: [hello], treshold: 0.8}\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("test")
        .arg(&path)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("s.yaml:6:"), "{stderr}");
    assert!(stderr.contains("treshold"), "{stderr}");
}

#[test]
fn an_unreachable_check_model_is_a_run_failure_not_a_pass() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("test")
        .arg(suite())
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1")])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .env("SCENARIO_ENGINE__CACHE__DIR", dir.path())
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "0")
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(stderr.contains("could not be reached"), "{stderr}");
    assert!(stdout.contains("0/2 scenarios passed"), "{stdout}");
    assert!(stdout.contains("could not be evaluated"), "{stdout}");
}

#[test]
fn a_suite_named_by_its_bare_file_name_runs_its_command_checks() {
    // `test own-checks.yaml` from the suite's folder: the command checks run in `.`.
    let server = FakeServer::spawn_background(FakeConfig::default()).expect("fake server starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("result.json");
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .current_dir(suite().parent().expect("a folder"))
        .args(["test", "own-checks.yaml", "--self-check", "--json"])
        .arg(&json)
        .args(["--base-url", &server.base_url()])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .env("SCENARIO_ENGINE__CACHE__DIR", dir.path())
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("self-check: 2/2"), "{stdout}");
    let result = std::fs::read_to_string(&json).expect("json written");
    assert!(!result.contains("cannot start"), "{result}");
    assert!(
        result.contains("does not name the recipient 'Bob'"),
        "the command check ran: {result}"
    );
}

#[test]
fn a_judge_answering_invalidly_is_a_failed_check_and_a_counted_call() {
    let server = FakeServer::spawn_background(FakeConfig {
        rate_schema_violation: 1.0,
        ..FakeConfig::default()
    })
    .expect("fake server starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.yaml");
    std::fs::write(
        &path,
        "bot: {kind: scripted, llm: {model: fake-model}}\nscenarios:\n  - id: a\n    category: custom\n    steps: [hi]\n    expect: {llmRubric: \"greets the user\"}\n    script: {turns: [{text: \"hello user\"}]}\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("test")
        .arg(&path)
        .args(["--base-url", &server.base_url()])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .env("SCENARIO_ENGINE__CACHE__DIR", dir.path().join("cache"))
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The model answered (invalidly): a failed check (exit 1), not an unreachable model (3).
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("could not be evaluated"), "{stdout}");
    assert!(stdout.contains("checks' model calls: 1"), "{stdout}");
}
