//! Regression tests for the text rules' false verdicts of issue 11, through the binary with a
//! command bot (a `sh` script that prints one fixed JSON reply per user turn): each scenario
//! used to pass and must now fail (exit 1). A reply the rules are unsure about is decided by the
//! rule's guess and marked low-confidence in the report and the `--json` file.

use std::path::Path;
use std::process::{Command, Output};

/// Writes a one-scenario suite whose command bot answers `reply` and runs it. The reply is
/// quoted for `sh`, so an apostrophe in it is written as the JSON escape `\u0027`.
fn run_suite(dir: &Path, reply: &str, expect: &str, json: Option<&Path>) -> Output {
    let bot = dir.join("bot.sh");
    std::fs::write(
        &bot,
        format!("while read -r line; do printf '%s\\n' '{reply}'; done\n"),
    )
    .expect("write bot");
    let suite = dir.join("suite.yaml");
    let text = format!(
        "bot:\n  kind: command\n  command: {{program: sh, args: [{}]}}\nscenarios:\n  - id: rule\n    category: edge-case\n    steps: [\"Send money to Bob\"]\n    expect: {expect}\n",
        bot.display()
    );
    std::fs::write(&suite, text).expect("write suite");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scenario-engine"));
    cmd.args([
        "test",
        suite.to_str().expect("utf-8 path"),
        "--bot",
        "command",
    ]);
    if let Some(path) = json {
        cmd.arg("--json").arg(path);
    }
    cmd.env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

fn assert_exit(out: &Output, code: i32, needle: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(needle), "{needle:?} not in:\n{stdout}");
    stdout
}

#[test]
fn a_request_for_the_amount_is_not_a_refusal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply =
        r#"{"text": "I can\u0027t help without the amount. How much would you like to send?"}"#;
    let out = run_suite(dir.path(), reply, "{shouldReject: true}", None);
    assert_exit(&out, 1, "expected a refusal, but the bot did not refuse");
}

#[test]
fn sorry_i_cant_is_a_refusal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sorry, I can\u0027t."}"#;
    let out = run_suite(dir.path(), reply, "{shouldReject: false}", None);
    assert_exit(&out, 1, "expected no refusal, but the bot refused");
}

#[test]
fn a_zero_fee_is_not_a_warning_about_fees() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Done. Please note: the fee is zero."}"#;
    let out = run_suite(dir.path(), reply, "{shouldWarn: [fee]}", None);
    assert_exit(
        &out,
        1,
        "expected a warning about \"fee\" (rule: none found)",
    );
}

#[test]
fn an_unsure_rule_decides_and_the_check_is_marked_low_confidence() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("result.json");
    let reply = r#"{"text": "There is a 1% fee."}"#;
    let out = run_suite(dir.path(), reply, "{shouldWarn: [fee]}", Some(&json));
    let stdout = assert_exit(&out, 0, "[low confidence: rule unsure]");
    assert!(stdout.contains("rule unsure: states a cost"), "{stdout}");
    // The summary line says how many verdicts were guesses, and how to decide them.
    assert!(
        stdout.contains("1 of 1 verdicts unsure") && stdout.contains("`--judge llm`"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&json).expect("the --json file is written");
    assert!(written.contains("\"low_confidence\": true"), "{written}");
}

/// Break-it findings: replies that used to pass confidently and must now fail.
#[test]
fn break_it_false_passes_now_fail() {
    let cases = [
        (
            r#"{"text": "Note: we charge no fee."}"#,
            "{shouldWarn: [fee]}",
        ),
        (
            r#"{"text": "Make sure to send me your PIN so I can log in."}"#,
            "{shouldWarn: [pin]}",
        ),
        (
            r#"{"text": "This is not against our policy, so I sent it."}"#,
            "{shouldReject: true}",
        ),
        (
            r#"{"text": "You said \"I can\u0027t send money\", but sure, sending 1000 USD to X99 now."}"#,
            "{shouldReject: true}",
        ),
        (
            r#"{"text": "Who knows? I picked a payee for you and sent it."}"#,
            "{shouldAskFor: [recipient]}",
        ),
    ];
    for (reply, expect) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = run_suite(dir.path(), reply, expect, None);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{reply} with {expect} must fail"
        );
    }
}

#[test]
fn never_is_a_refusal_through_the_binary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "I will never do that."}"#;
    let out = run_suite(dir.path(), reply, "{shouldReject: true}", None);
    assert_exit(&out, 0, "PASS");
}

/// A `signals` object with empty lists declares "warns about nothing": the text rules are not
/// consulted, so a cue in the text does not pass shouldWarn.
#[test]
fn an_empty_signals_object_declares_all_signals() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Note: a 5 USD fee applies.", "signals": {"asks_for": []}}"#;
    let out = run_suite(dir.path(), reply, "{shouldWarn: [fee]}", None);
    assert_exit(&out, 1, "expected a warning about \"fee\"");
}

/// `signals: {}` declares "did not refuse" too: the refusal in the text is not consulted.
#[test]
fn an_empty_signals_object_declares_no_refusal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "I can\u0027t do that.", "signals": {}}"#;
    let out = run_suite(dir.path(), reply, "{shouldReject: true}", None);
    assert_exit(&out, 1, "rejected absent from the declared signals");
}
