//! End-to-end tests of `scenario-engine test`: the example suite with the scripted bot (expected
//! pass/fail, exit code, report snapshot, JSON and JUnit files), against the fake OpenAI server
//! with `--bot llm`, and invalid input; a closed stdout, `--repeat` flips by tree position,
//! JUnit errors and transcripts, `--self-check`, and a judge that cannot be reached.

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
    // The scenario whose bot errored is an <error>, the other failed ones <failure>s.
    assert_eq!(stats.errors, 1);
    assert_eq!(stats.failures + stats.errors, failing);
    assert!(xml.contains(&format!(
        "tests=\"{}\" failures=\"{}\" errors=\"1\"",
        scenarios.len(),
        failing - 1
    )));
    assert!(xml.contains("type=\"BotError\""), "{xml}");
    // Every testcase carries its transcript.
    assert_eq!(stats.system_outs, scenarios.len());
    assert!(xml.contains("[turn 1] user: Send 50 USD to Alice"), "{xml}");
    assert!(
        xml.contains("[turn 1] bot error: HTTP 500 from the bot backend"),
        "{xml}"
    );
}

/// Writes `suite.yaml` in `dir` and returns its path.
fn write_suite(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("suite.yaml");
    std::fs::write(&path, text).expect("write suite");
    path
}

/// Runs `scenario-engine ARGS` with a stdout whose reader is already gone.
fn run_with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.wait_with_output().expect("it ends")
}

/// `test … | head -1`: the CI files are written before anything is printed, and the run ends
/// with its own exit code, quietly (it used to panic with exit 101 and write neither file).
#[test]
fn a_closed_stdout_ends_quietly_with_the_exit_code_and_the_ci_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("results.json");
    let junit = dir.path().join("junit.xml");
    let suite = suite();
    let out = run_with_closed_stdout(&[
        "test",
        suite.to_str().expect("utf-8 path"),
        "--json",
        json.to_str().expect("utf-8 path"),
        "--junit",
        junit.to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("valid JSON");
    assert!(
        results["scenarios"]
            .as_array()
            .is_some_and(|s| s.len() >= 25)
    );
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    check_well_formed(&xml).unwrap_or_else(|e| panic!("malformed JUnit: {e}"));

    // Every command prints through the same guard.
    let passing = run_with_closed_stdout(&[
        "test",
        suite.to_str().expect("utf-8 path"),
        "--filter",
        "send-basic",
    ]);
    assert_eq!(passing.status.code(), Some(0));
    let config =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/configs/switchlingua.yaml");
    let plan = run_with_closed_stdout(&["plan", config.to_str().expect("utf-8 path")]);
    assert_eq!(
        plan.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    assert!(
        plan.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/suite-before.json");
    let report = run_with_closed_stdout(&["report", runs.to_str().expect("utf-8 path")]);
    assert_eq!(report.status.code(), Some(0));
    assert!(
        report.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
}

/// A deterministic bot never flips, even when two checks share a name (flips used to be keyed
/// by name, so `responseType: action` passing beside `responseType: text` failing was "flaky").
#[test]
fn repeat_with_a_deterministic_bot_shows_no_flips() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = write_suite(
        dir.path(),
        "bot: {kind: scripted}\nscenarios:\n  - id: twins\n    category: happy-path\n    steps: [\"Send 5 USD to Bob\"]\n    expect:\n      all:\n        - {responseType: action}\n        - {responseType: text}\n        - {shouldContain: [bob]}\n    script:\n      expect_outcome: fail\n      turns:\n        - text: \"Sending 5 USD to Bob.\"\n          plan: [{agent: transfers, function: send_money, params: {recipient: Bob, amount: 5}}]\n",
    );
    let out = run(&[suite.to_str().expect("utf-8 path"), "--repeat", "3"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    assert!(stdout.contains("Runs: 0/3 passed"), "{stdout}");
    assert!(!stdout.contains("Flaky checks"), "{stdout}");
    // The summary row: pass rate, min and median score (60 in every run: 2 + 1 of 5 weight
    // points), no flipping check.
    let row = stdout
        .lines()
        .find(|l| l.contains("twins") && l.contains("FAIL"))
        .unwrap_or_else(|| panic!("no summary row:\n{stdout}"));
    let cells: Vec<&str> = row.split(['│', '┆']).map(str::trim).collect();
    assert_eq!(
        cells[1..cells.len() - 1],
        [
            "twins",
            "happy-path",
            "FAIL",
            "0/3 (0%)",
            "60",
            "60",
            "1",
            ""
        ],
        "{row}"
    );
}

/// A bot that answers differently from run to run: the flipping check is named with its place
/// in the expectation tree, and the row gives the pass rate and min/median score.
#[test]
fn repeat_names_the_flipping_check_by_tree_position() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bot = dir.path().join("bot.sh");
    // Every other conversation mentions the fee (the counter file counts conversations).
    std::fs::write(
        &bot,
        format!(
            "n=$(cat {count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count}\n\
             while read -r line; do\n\
               if [ $((n % 2)) -eq 0 ]; then printf '%s\\n' '{{\"text\": \"Sent. A fee applies.\"}}';\n\
               else printf '%s\\n' '{{\"text\": \"Sent.\"}}'; fi\n\
             done\n",
            count = dir.path().join("count").display()
        ),
    )
    .expect("write bot");
    let suite = write_suite(
        dir.path(),
        &format!(
            "bot:\n  kind: command\n  command: {{program: sh, args: [{}]}}\nscenarios:\n  - id: fee\n    category: happy-path\n    steps: [\"Send 5 USD to Bob\"]\n    expect:\n      shouldContain: [fee]\n      shouldNotContain: [password, secret]\n",
            bot.display()
        ),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args(["test", suite.to_str().expect("utf-8 path"), "--repeat", "4"])
        // One conversation at a time, so the counter alternates.
        .env("SCENARIO_ENGINE__CONCURRENCY", "1")
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout
            .contains("Flaky checks: shouldContain: \"fee\" at expect.shouldContain (failed 2/4)"),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|l| l.contains("│ fee"))
        .unwrap_or_else(|| panic!("no summary row:\n{stdout}"));
    let cells: Vec<&str> = row.split(['│', '┆']).map(str::trim).collect();
    assert_eq!(cells[4..7], ["2/4 (50%)", "67", "83.5"], "{row}");
}

/// JUnit: a transcript longer than the cap is cut, and the file stays well-formed.
#[test]
fn junit_system_out_is_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let long = "blah <&> ".repeat(10_000);
    let suite = write_suite(
        dir.path(),
        &format!(
            "bot: {{kind: scripted}}\nscenarios:\n  - id: long\n    category: happy-path\n    steps: [\"hi\"]\n    expect: {{shouldContain: [blah]}}\n    script: {{turns: [{{text: \"{long}\"}}]}}\n"
        ),
    );
    let junit = dir.path().join("junit.xml");
    let out = run(&[
        suite.to_str().expect("utf-8 path"),
        "--junit",
        junit.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    let stats = check_well_formed(&xml).unwrap_or_else(|e| panic!("malformed JUnit: {e}"));
    assert_eq!((stats.system_outs, stats.failures, stats.errors), (1, 0, 0));
    assert!(
        xml.contains("[transcript cut at"),
        "{}",
        &xml[xml.len() - 300..]
    );
    assert!(xml.len() < 40_000, "{} bytes", xml.len());
}

/// `--self-check`: the example suite gets every declared outcome (exit 0, although some of its
/// scenarios fail, as meant); a suite whose script contradicts its checks exits 1 naming it, and
/// so does a scenario that declares no outcome.
#[test]
fn self_check_verifies_every_declared_outcome() {
    let suite = suite();
    let out = run(&[suite.to_str().expect("utf-8 path"), "--self-check"]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("scenarios got the outcome their script declares"),
        "{stdout}"
    );
    assert!(!stdout.contains("mismatch"), "{stdout}");

    let dir = tempfile::tempdir().expect("temp dir");
    let bad = write_suite(
        dir.path(),
        "bot: {kind: command, command: {program: \"false\"}}\nscenarios:\n  - id: wrong-claim\n    category: happy-path\n    steps: [\"hi\"]\n    expect: {shouldContain: [fee]}\n    script: {expect_outcome: pass, turns: [{text: \"no charge\"}]}\n  - id: caught\n    category: happy-path\n    steps: [\"hi\"]\n    expect: {shouldContain: [fee]}\n    script: {expect_outcome: fail, turns: [{text: \"no charge\"}]}\n  - id: undeclared\n    category: happy-path\n    steps: [\"hi\"]\n    expect: {shouldContain: [fee]}\n    script: {turns: [{text: \"a fee applies\"}]}\n",
    );
    // The scripted bot runs, whatever the suite's own bot is.
    let out = run(&[bad.to_str().expect("utf-8 path"), "--self-check"]);
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("mismatch: wrong-claim: expect_outcome is pass, but it failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("mismatch: undeclared: declares no expect_outcome"),
        "{stdout}"
    );
    assert!(!stdout.contains("mismatch: caught"), "{stdout}");
    assert!(stdout.contains("self-check: 1/3 scenarios"), "{stdout}");
    // `--self-check` runs the scripted bot: another bot is a contradiction.
    let out = run(&[
        bad.to_str().expect("utf-8 path"),
        "--self-check",
        "--bot",
        "llm",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// A suite whose one scenario the text rules are unsure about ("There is a 1% fee." states a
/// cost without a warning cue), so `--judge llm` asks the judge.
const JUDGED_SUITE: &str = "bot: {kind: scripted}\nscenarios:\n  - id: fee\n    category: ambiguity\n    steps: [\"Send money to Bob\"]\n    expect: {shouldWarn: [fee], shouldNotContain: [password]}\n    script: {expect_outcome: pass, turns: [{text: \"There is a 1% fee.\"}]}\n";

/// `--judge llm` with a judge that cannot be reached: never the text rules' silent verdict and
/// exit 0 (as it used to be), but a failed critical `judgeError` check and exit 3.
#[test]
fn an_unreachable_judge_is_a_run_failure_not_a_silent_fallback() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = write_suite(dir.path(), JUDGED_SUITE);
    let json = dir.path().join("results.json");
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args([
            "test",
            suite.to_str().expect("utf-8 path"),
            "--judge",
            "llm",
            "--base-url",
            &format!("http://127.0.0.1:{port}/v1"),
            "--model",
            "judge-model",
            "--api-key-env",
            "SCENARIO_ENGINE_TEST_NO_KEY",
            "--json",
            json.to_str().expect("utf-8 path"),
        ])
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "0")
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("error: the judge could not be reached"),
        "{stderr}"
    );
    assert!(stdout.contains("judge unavailable"), "{stdout}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("valid JSON");
    let run = &results["scenarios"][0]["runs"][0];
    assert_eq!(run["report"]["passed"], false, "{run}");
    assert_eq!(run["judge"]["asked"], 1, "{run}");
    assert_eq!(run["judge"]["answered"], 0, "{run}");
    let checks = run["report"]["checks"].as_array().expect("checks");
    assert!(
        checks
            .iter()
            .any(|c| c["name"] == "judgeError" && c["passed"] == false && c["critical"] == true),
        "{checks:?}"
    );
}

/// A judge that errors on one question (a 500, no retries) and answers the others: that
/// scenario fails with the reason (a JUnit `<error type="JudgeError">`), and the run is a failed
/// test (exit 1), not a run failure.
#[test]
fn a_judge_error_fails_the_check_with_its_reason() {
    let server = FakeServer::spawn_background(FakeConfig {
        script: vec![fixtures::Fault::ServerError],
        ..FakeConfig::default()
    })
    .expect("fake server starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("junit.xml");
    let suite = write_suite(
        dir.path(),
        &format!(
            "{JUDGED_SUITE}  - id: fee-again\n    category: ambiguity\n    steps: [\"Send money to Bob\"]\n    expect: {{shouldWarn: [fee]}}\n    script: {{turns: [{{text: \"There is a 1% fee.\"}}]}}\n"
        ),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args([
            "test",
            suite.to_str().expect("utf-8 path"),
            "--judge",
            "llm",
            "--base-url",
            &server.base_url(),
            "--model",
            "fake-model",
            "--api-key-env",
            "SCENARIO_ENGINE_TEST_NO_KEY",
            // Forced: no first-use probe of the structured mode absorbs the scripted 500.
            "--structured-mode",
            "json_schema",
            "--junit",
            junit.to_str().expect("utf-8 path"),
        ])
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "0")
        .env("SCENARIO_ENGINE__CONCURRENCY", "1")
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("judge unavailable"), "{stdout}");
    assert!(
        stdout.contains("critical check failed: judgeError"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    let stats = check_well_formed(&xml).unwrap_or_else(|e| panic!("malformed JUnit: {e}"));
    assert!(stats.errors >= 1, "{xml}");
    assert!(xml.contains("type=\"JudgeError\""), "{xml}");
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
    errors: usize,
    system_outs: usize,
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
        errors: 0,
        system_outs: 0,
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
            "error" => stats.errors += 1,
            "system-out" => stats.system_outs += 1,
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

/// CI files go through a symbolic link to its target (the link stays), and a device is written
/// in place, never replaced by a plain file: `/dev/full` is a write failure (exit 3).
#[cfg(unix)]
#[test]
fn ci_files_follow_links_and_never_replace_a_device() {
    let dir = tempfile::tempdir().expect("temp dir");
    let real = dir.path().join("real/results.json");
    std::fs::create_dir_all(real.parent().expect("parent")).expect("dir");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let suite = suite();
    let out = run(&[
        suite.to_str().expect("utf-8 path"),
        "--json",
        link.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the suite has failing scenarios"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&real).expect("target written"))
            .expect("JSON");
    assert!(written["scenarios"].is_array());

    if std::path::Path::new("/dev/full").exists() {
        let out = run(&[suite.to_str().expect("utf-8 path"), "--junit", "/dev/full"]);
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        assert!(
            !std::fs::metadata("/dev/full").expect("device").is_file(),
            "the device node is still a device"
        );
    }
}

/// A judge error on a question whose answer cannot change the verdict (a `shouldWarn` inside an
/// `any` whose first branch already holds) does not fail the scenario: no `judgeError` check.
#[test]
fn a_judge_error_that_cannot_change_the_verdict_is_not_a_failure() {
    let server = FakeServer::spawn_background(FakeConfig {
        script: vec![fixtures::Fault::ServerError],
        ..FakeConfig::default()
    })
    .expect("fake server starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("results.json");
    let suite = write_suite(
        dir.path(),
        "bot: {kind: scripted}\nscenarios:\n  - id: inany\n    category: edge-case\n    steps: [\"x\"]\n    expect: {any: [{shouldContain: [percent]}, {shouldWarn: [fee]}]}\n    script: {turns: [{text: \"There is a 1 percent fee.\"}]}\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args([
            "test",
            suite.to_str().expect("utf-8 path"),
            "--judge",
            "llm",
            "--base-url",
            &server.base_url(),
            "--model",
            "fake-model",
            "--api-key-env",
            "SCENARIO_ENGINE_TEST_NO_KEY",
            "--structured-mode",
            "json_schema",
            "--json",
            json.to_str().expect("utf-8 path"),
        ])
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "0")
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("valid JSON");
    let run = &results["scenarios"][0]["runs"][0];
    assert_eq!(run["judge"]["asked"], 1, "{run}\n{stdout}");
    assert_eq!(run["judge"]["answered"], 0, "{run}");
    assert_eq!(run["report"]["passed"], true, "{run}\n{stdout}");
    let checks = run["report"]["checks"].as_array().expect("checks");
    assert!(
        !checks.iter().any(|c| c["name"] == "judgeError"),
        "{checks:?}"
    );
}

/// A two-scenario suite against an HTTP bot at `url`.
fn http_suite(dir: &Path, url: &str) -> PathBuf {
    write_suite(
        dir,
        &format!(
            "name: http-bot
bot:
  kind: http
  http: {{url: \"{url}\", reply: {{text: /text}}}}
scenarios:
  - id: hello
    category: happy-path
    steps: [\"Hi\"]
    expect: {{shouldContain: [hello]}}
  - id: bye
    category: happy-path
    steps: [\"Bye\"]
    expect: {{shouldContain: [bye]}}
"
        ),
    )
}

/// Issue 29: an HTTP bot on a closed port gave "0/2 passed", exit 1 — the same as a failing
/// test. A bot that cannot be reached is a run failure (exit 3), saying so, with the CI files
/// written; a bot that answers badly (HTTP 500) stays a failing test (exit 1).
#[test]
fn an_unreachable_bot_exits_3_and_a_bot_answering_500_is_a_failing_test() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let suite = http_suite(dir.path(), &format!("http://127.0.0.1:{port}/chat"));
    let junit = dir.path().join("junit.xml");
    let out = run(&[
        suite.to_str().expect("utf-8"),
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the bot could not be reached (2 run(s))"),
        "{stderr}"
    );
    assert!(junit.exists(), "the CI files are written first");

    // A server that answers 500 to everything: the bot was reached and answered badly.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        use std::io::{Read as _, Write as _};
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\nconnection: close\r\n\r\noops",
            );
        }
    });
    let suite = http_suite(dir.path(), &format!("http://{addr}/chat"));
    let out = run(&[suite.to_str().expect("utf-8")]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 29: `--only-failed PREVIOUS.json` reruns exactly the failed (and errored) scenarios of
/// an earlier result; `--filter` is repeatable and comma-separated, with globs.
#[test]
fn only_failed_reruns_exactly_the_failed_set_and_filters_combine() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = suite();
    let path = suite.to_str().expect("utf-8");
    let json = dir.path().join("first.json");
    let out = run(&[path, "--json", json.to_str().expect("utf-8")]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the example suite has failing scenarios"
    );
    let first: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid");
    let failed: std::collections::BTreeSet<String> = first["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| {
            s["runs"].as_array().expect("runs").iter().any(|r| {
                r["report"]["passed"] == false
                    || r["report"]["checks"]
                        .as_array()
                        .expect("checks")
                        .iter()
                        .any(|c| c["passed"] == false)
            })
        })
        .map(|s| s["id"].as_str().expect("id").to_owned())
        .collect();
    assert!(!failed.is_empty());
    let second = dir.path().join("second.json");
    let out = run(&[
        path,
        "--only-failed",
        json.to_str().expect("utf-8"),
        "--json",
        second.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let rerun: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&second).expect("json")).expect("valid");
    let ids: std::collections::BTreeSet<String> = rerun["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(ids, failed);

    // Repeated and comma-separated filters select the union; a glob matches a whole field.
    let listed = |args: &[&str]| -> Vec<String> {
        let out = run(&[&[path, "--dry-run"], args].concat());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().next().expect("id").to_owned())
            .collect()
    };
    let both = listed(&["--filter", "send-basic", "--filter", "balance-check"]);
    assert_eq!(both, ["send-basic", "balance-check"]);
    assert_eq!(listed(&["--filter", "send-basic,balance-check"]), both);
    assert!(
        listed(&["--filter", "send-*"])
            .iter()
            .all(|id| id.starts_with("send-"))
    );
    // Nothing selected: exit 2, naming the selection.
    let out = run(&[path, "--filter", "no-such-*"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--filter no-such-*"));
}

/// Review 25l, #11: `--only-failed` left out a scenario that passed on its score (71, above its
/// threshold of 70) with a failed check. Every scenario with a failed check in any run is re-run.
#[test]
fn only_failed_reruns_a_passed_scenario_with_a_failed_check() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = write_suite(
        dir.path(),
        "bot: {kind: scripted}\nscenarios:\n  - id: passed-with-failed-check\n    category: custom\n    steps: [\"Send 50\"]\n    expect: {expectedFunction: send_money, expectedAgent: transfers, expectedParams: {amount: 50}}\n    script: {turns: [{text: ok, plan: [{function: send_money, agent: payouts, params: {amount: 50}}, {function: send_money, agent: transfers, params: {amount: 5000}}]}]}\n  - id: clean-fail\n    category: custom\n    steps: [x]\n    expect: {shouldContain: [zzz]}\n    script: {turns: [{text: ok}]}\n  - id: clean-pass\n    category: custom\n    steps: [x]\n    expect: {shouldContain: [ok]}\n    script: {turns: [{text: ok}]}\n",
    );
    let path = suite.to_str().expect("utf-8");
    let json = dir.path().join("first.json");
    let out = run(&[path, "--json", json.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "clean-fail fails");
    let first: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid");
    let report = &first["scenarios"][0]["runs"][0]["report"];
    assert_eq!(report["passed"], true, "{report}");
    assert_eq!(report["score"], 71, "{report}");
    let out = run(&[
        path,
        "--only-failed",
        json.to_str().expect("utf-8"),
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().expect("id").to_owned())
        .collect();
    assert_eq!(ids, ["passed-with-failed-check", "clean-fail"]);
}

/// Issue 29: an unwritable `--junit` path was found only after the whole (paid) suite had run.
/// It is checked before the first bot turn (exit 3, nothing run).
#[test]
fn an_unwritable_ci_file_stops_the_run_before_it_starts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = suite();
    // The CI file's path is a directory.
    let out = run(&[
        suite.to_str().expect("utf-8"),
        "--junit",
        dir.path().to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "no scenario ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    // `--threshold` points at the flag `test` has.
    let out = run(&[suite.to_str().expect("utf-8"), "--threshold", "80"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pass-score"));
}

/// Issue 29: SIGINT during `test --repeat 5 --junit … --json …` exited 130 with no output and no
/// files. Now, at any moment: no further run starts, the runs in flight finish, well-formed JSON
/// and JUnit files hold what finished, marked partial, and the exit code is 3. Ten trials at
/// different moments (a slow command bot keeps runs in flight).
#[test]
fn sigint_at_any_moment_leaves_partial_well_formed_files_and_exit_3() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bot = dir.path().join("slow.sh");
    let started = dir.path().join("started");
    // The bot marks that a run has begun (so the signal handler is installed by then).
    std::fs::write(
        &bot,
        format!(
            ": > {}\nwhile read -r line; do sleep 0.05; printf '%s\\n' '{{\"text\": \"A fee applies.\"}}'; done\n",
            started.display()
        ),
    )
    .expect("bot");
    let mut scenarios = String::new();
    for i in 0..6 {
        scenarios.push_str(&format!(
            "  - id: s{i}\n    category: happy-path\n    steps: [\"hi\", \"again\"]\n    expect: {{shouldContain: [fee]}}\n"
        ));
    }
    let suite = write_suite(
        dir.path(),
        &format!(
            "bot:\n  kind: command\n  command: {{program: sh, args: [{}]}}\nscenarios:\n{scenarios}",
            bot.display()
        ),
    );
    let mut partial = 0;
    for trial in 0..10u64 {
        let json = dir.path().join(format!("r{trial}.json"));
        let junit = dir.path().join(format!("r{trial}.xml"));
        let _ = std::fs::remove_file(&started);
        let child = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
            .args(["test", suite.to_str().expect("utf-8"), "--repeat", "5"])
            .args(["--json", json.to_str().expect("utf-8")])
            .args(["--junit", junit.to_str().expect("utf-8")])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        // Once the first bot is up (a bounded wait, not a timing assertion), then from at once to
        // well into the run (a whole run takes about 1.5 s).
        for _ in 0..600 {
            if started.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::thread::sleep(std::time::Duration::from_millis(trial * 80));
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        // Either the run had finished (0) or it was interrupted (3): never killed by the signal.
        assert!(
            matches!(code, Some(0 | 3)),
            "trial {trial}: {code:?} {stderr}"
        );
        let json_text = std::fs::read_to_string(&json)
            .unwrap_or_else(|e| panic!("trial {trial}: no JSON ({e}): {stderr}"));
        let value: serde_json::Value = serde_json::from_str(&json_text).expect("well-formed JSON");
        let xml = std::fs::read_to_string(&junit).expect("JUnit written");
        let stats = check_well_formed(&xml).unwrap_or_else(|e| panic!("trial {trial}: {e}\n{xml}"));
        if code == Some(3) {
            partial += 1;
            assert!(stderr.contains("interrupted:"), "{stderr}");
            let i = &value["interrupted"];
            assert!(
                i["runs_done"].as_u64() < i["runs_planned"].as_u64(),
                "{value}"
            );
            assert!(xml.contains("<property name=\"partial\""), "{xml}");
            let ran = value["scenarios"].as_array().expect("scenarios").len();
            let not_run = i["not_run"].as_array().expect("not_run").len();
            assert_eq!(ran + not_run, 6, "{value}");
            assert_eq!(
                stats.testcases, 6,
                "every scenario is a testcase, run or skipped"
            );
        } else {
            assert!(value.get("interrupted").is_none(), "{value}");
        }
    }
    assert!(partial >= 5, "most trials interrupt the run: {partial}/10");
}

/// Break-it findings (issue 29): `--json X --junit X` let one file overwrite the other; an
/// empty `--filter` (an unset shell variable) selected everything; `--only-failed` took another
/// suite's result. Each is refused, exit 2.
#[test]
fn ambiguous_selections_and_outputs_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = suite();
    let path = suite.to_str().expect("utf-8");
    let same = dir.path().join("same.out");
    let s = same.to_str().expect("utf-8");
    let out = run(&[path, "--json", s, "--junit", s]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the same file"));
    for empty in ["", ",,", "send-basic,"] {
        let out = run(&[path, "--filter", empty, "--dry-run"]);
        assert_eq!(out.status.code(), Some(2), "--filter {empty:?}");
    }
    let other = dir.path().join("other.json");
    std::fs::write(
        &other,
        r#"{"suite": "another-suite", "repeat": 1, "scenarios": []}"#,
    )
    .expect("write");
    let out = run(&[
        path,
        "--only-failed",
        other.to_str().expect("utf-8"),
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another-suite"));
}
