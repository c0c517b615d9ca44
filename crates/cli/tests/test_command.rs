//! End-to-end tests of `scenario-engine test`: the example suite with the scripted bot (expected
//! pass/fail, exit code, report snapshot, JSON and JUnit files), against the fake OpenAI server
//! with `--bot llm`, and invalid input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fixtures::{FakeConfig, FakeServer};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/suites/wallet-assistant.yaml")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("test")
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

#[test]
fn scripted_suite_reports_expected_outcomes_and_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("results.json");
    let junit = dir.path().join("junit.xml");
    let suite = suite();
    let out = run(&[
        suite.to_str().expect("utf-8 path"),
        "--bot",
        "scripted",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--junit",
        junit.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    insta::assert_snapshot!("wallet_assistant_scripted", stdout);

    // Every scenario's verdict matches the outcome its script declares.
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("valid JSON");
    let scenarios = results["scenarios"].as_array().expect("scenarios array");
    assert!(scenarios.len() >= 25);
    for s in scenarios {
        let expected = s["expected_outcome"].as_str().expect("declared outcome");
        let passed = s["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .all(|r| r["report"]["passed"] == true);
        assert_eq!(passed, expected == "pass", "scenario {}", s["id"]);
    }

    let xml = std::fs::read_to_string(&junit).expect("junit written");
    let stats = check_well_formed(&xml).unwrap_or_else(|e| panic!("malformed JUnit: {e}\n{xml}"));
    assert_eq!(stats.testcases, scenarios.len());
    let failing = scenarios
        .iter()
        .filter(|s| s["expected_outcome"] == "fail")
        .count();
    assert_eq!(stats.failures, failing);
    assert!(xml.contains(&format!(
        "tests=\"{}\" failures=\"{failing}\"",
        scenarios.len()
    )));
}

#[test]
fn repeat_reports_pass_rates() {
    let suite = suite();
    let out = run(&[
        suite.to_str().expect("utf-8 path"),
        "--repeat",
        "2",
        "--filter",
        "jailbreak",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    assert!(stdout.contains("Runs: 2/2 passed"), "{stdout}");
    assert!(stdout.contains("Runs: 0/2 passed"), "{stdout}");
    assert!(stdout.contains("pass rate"));
    assert!(stdout.contains("1/2 scenarios passed"));
}

#[test]
fn passing_filter_exits_0_and_bad_flags_exit_2() {
    let suite = suite();
    let path = suite.to_str().expect("utf-8 path");
    let out = run(&[path, "--filter", "send-basic"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A pass score above 100 is invalid input (`--threshold` is the pipeline's 0–10 score).
    let out = run(&[path, "--filter", "send-basic", "--pass-score", "101"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn invalid_suites_exit_2_with_a_located_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "scenarios:\n  - id: a\n    category: happy-path\n    steps: [hi]\n    expect:\n      expectedFuntion: send\n",
    )
    .expect("write");
    let out = run(&[bad.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.yaml:6:"), "{stderr}");
    assert!(
        stderr.contains("did you mean `expectedFunction`?"),
        "{stderr}"
    );
    let out = run(&["does-not-exist.yaml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn llm_bot_runs_against_the_fake_server() {
    let server = FakeServer::spawn_background(FakeConfig::default()).expect("fake server starts");
    let suite = suite();
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("junit.xml");
    let out = run(&[
        suite.to_str().expect("utf-8 path"),
        "--bot",
        "llm",
        "--base-url",
        &server.base_url(),
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--junit",
        junit.to_str().expect("utf-8 path"),
    ]);
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "exit {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    assert!(stdout.contains("Check Details:"));
    assert!(stdout.contains("scenarios passed"));
    assert!(
        server.stats().total_requests > 0,
        "the bot called the server"
    );
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    check_well_formed(&xml).unwrap_or_else(|e| panic!("malformed JUnit: {e}"));
}

struct XmlStats {
    testcases: usize,
    failures: usize,
}

/// A minimal XML well-formedness check: balanced, properly nested tags, quoted attributes, known
/// entities only, no raw `<` or `&` in text. Counts testcases and failures on the way.
fn check_well_formed(xml: &str) -> Result<XmlStats, String> {
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .ok_or("no XML declaration")?;
    let mut stack: Vec<String> = Vec::new();
    let mut stats = XmlStats {
        testcases: 0,
        failures: 0,
    };
    let mut rest = body;
    while let Some(start) = rest.find(['<', '&']) {
        check_text(&rest[..start])?;
        rest = &rest[start..];
        if rest.starts_with('&') {
            let end = rest.find(';').ok_or("unterminated entity")?;
            if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&&rest[..=end]) {
                return Err(format!("unknown entity {}", &rest[..=end]));
            }
            rest = &rest[end + 1..];
            continue;
        }
        let end = rest.find('>').ok_or("unterminated tag")?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .ok_or_else(|| format!("closing </{name}> without opening"))?;
            if open != name {
                return Err(format!("</{name}> closes <{open}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().ok_or("empty tag")?.to_owned();
        check_attributes(&tag[name.len()..])?;
        match name.as_str() {
            "testcase" => stats.testcases += 1,
            "failure" => stats.failures += 1,
            _ => {}
        }
        if !self_closing {
            stack.push(name);
        }
    }
    check_text(rest)?;
    if !stack.is_empty() {
        return Err(format!("unclosed tags: {stack:?}"));
    }
    Ok(stats)
}

fn check_text(text: &str) -> Result<(), String> {
    if text.contains('>') && text.contains("]]>") {
        return Err("]]> in text".to_owned());
    }
    Ok(())
}

fn check_attributes(mut attrs: &str) -> Result<(), String> {
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return Ok(());
        }
        let eq = attrs
            .find('=')
            .ok_or_else(|| format!("attribute without value: {attrs}"))?;
        let value = attrs[eq + 1..]
            .strip_prefix('"')
            .ok_or("unquoted attribute")?;
        let close = value.find('"').ok_or("unterminated attribute")?;
        let raw = &value[..close];
        if raw.contains('<') {
            return Err(format!("raw < in attribute {raw}"));
        }
        for (i, _) in raw.match_indices('&') {
            let entity = &raw[i..raw[i..].find(';').map_or(raw.len(), |e| i + e + 1)];
            if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity) {
                return Err(format!("bad entity in attribute: {entity}"));
            }
        }
        attrs = &value[close + 1..];
    }
}
