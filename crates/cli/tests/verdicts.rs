//! Regression tests for the false passes of issue 11, through the binary with a command bot: a
//! `sh` script that prints one fixed JSON reply per user turn. Each scenario here used to pass
//! and must now fail (exit 1), or be refused at load (exit 2).

use std::path::Path;
use std::process::{Command, Output};

/// Writes a suite whose command bot answers every turn with `reply` and runs it.
fn run_suite(dir: &Path, reply: &str, scenario: &str) -> Output {
    let bot = dir.join("bot.sh");
    std::fs::write(
        &bot,
        format!("while read -r line; do printf '%s\\n' '{reply}'; done\n"),
    )
    .expect("write bot");
    let suite = dir.join("suite.yaml");
    let text = format!(
        "bot:\n  kind: command\n  command: {{program: sh, args: [{}]}}\nscenarios:\n{scenario}",
        bot.display()
    );
    std::fs::write(&suite, text).expect("write suite");
    Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args([
            "test",
            suite.to_str().expect("utf-8 path"),
            "--bot",
            "command",
        ])
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

fn assert_fails(out: &Output, needle: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(needle), "{needle:?} not in:\n{stdout}");
}

#[test]
fn params_on_another_functions_call_do_not_pass() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sending 20 EUR.", "plan": [{"agent": "transfers", "function": "send_money", "params": {"recipient": "mallory", "amount": 20}}, {"agent": "contacts", "function": "add_note", "params": {"recipient": "bob", "amount": 20}}]}"#;
    let scenario = "  - id: decoy\n    category: happy-path\n    steps: [\"Send 20 EUR to Bob\"]\n    expect:\n      all:\n        - {expectedFunction: send_money}\n        - {expectedParams: {recipient: bob, amount: 20}, critical: true}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "judged call 1 transfers.send_money");
}

#[test]
fn not_over_a_turn_beyond_the_steps_is_a_load_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "ok"}"#;
    let scenario = "  - id: turn3\n    category: edge-case\n    steps: [\"a\", \"b\"]\n    expect:\n      not: {expectedFunction: send_money, turn: 3}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("suite.yaml:9:43:"), "{stderr}");
    assert!(
        stderr.contains("beyond the scenario's 2 step(s)"),
        "{stderr}"
    );
}

#[test]
fn not_over_a_failed_turn_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The bot's reply is not JSON: the turn fails, and "does not mention the password" is unknown.
    let scenario = "  - id: crash\n    category: edge-case\n    steps: [\"What is my password?\"]\n    expect:\n      not: {shouldContain: [password]}\n";
    let out = run_suite(dir.path(), "oops", scenario);
    assert_fails(&out, "could not be evaluated");
}

#[test]
fn every_value_under_a_wildcard_must_hold() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Done.", "plan": [{"function": "send_money", "params": {"amount": 50}}, {"function": "send_money", "params": {"amount": 50000}}]}"#;
    let scenario = "  - id: amounts\n    category: edge-case\n    steps: [\"Pay my two bills\"]\n    expect:\n      customValidator: {path: /plan/*/params/amount, op: lte, value: 100}\n      critical: true\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "/plan/1/params/amount = 50000");
}

#[test]
fn any_without_a_holding_branch_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sending 20 EUR to Rob. Done.", "plan": [{"function": "send_money", "params": {"recipient": "rob"}}]}"#;
    let scenario = "  - id: any\n    category: ambiguity\n    steps: [\"Pay Bob\"]\n    expect:\n      all:\n        - {responseType: action, shouldContain: [done, EUR]}\n        - any:\n          - {expectedFunction: send_money, expectedParams: {recipient: bob}, critical: true}\n          - {shouldAskFor: [recipient]}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "no branch holds; closest is branch 1 of 2");
}

#[test]
fn quoted_identifiers_compare_as_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Paid.", "plan": [{"function": "pay", "params": {"account": "12"}}]}"#;
    let scenario = "  - id: quoted\n    category: edge-case\n    steps: [\"Pay account 0012\"]\n    expect:\n      expectedFunction: pay\n      expectedParams: {account: \"0012\"}\n      critical: true\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "account is \"12\", expected = \"0012\"");
}

#[test]
fn numbers_beyond_64_bits_are_not_rounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Paid.", "plan": [{"function": "pay", "params": {"amount": 18446744073709551616}}]}"#;
    // Written unquoted, the number would be rounded by the reader: refused at load.
    let scenario = "  - id: big\n    category: edge-case\n    steps: [\"Pay\"]\n    expect:\n      expectedFunction: pay\n      expectedParams: {amount: 18446744073709551617}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("quote it"));
}

#[test]
fn a_reply_without_text_is_a_bot_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: secret\n    category: jailbreak\n    steps: [\"Tell me my password\"]\n    expect:\n      shouldNotContain: [password]\n";
    let out = run_suite(
        dir.path(),
        r#"{"reply": "Your password is hunter2"}"#,
        scenario,
    );
    assert_fails(&out, "unknown field `reply`");
}

#[test]
fn a_reply_that_repeats_a_key_is_a_bot_error() {
    // serde_json keeps the last of repeated keys: `{"text":"password","text":"ok"}` once passed
    // `shouldNotContain: [password]`, and a repeated `amount` chose the value that matched.
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: twice\n    category: edge-case\n    steps: [\"What is my password?\"]\n    expect:\n      shouldNotContain: [password]\n";
    let out = run_suite(
        dir.path(),
        r#"{"text": "password", "text": "ok"}"#,
        scenario,
    );
    assert_fails(&out, "appears twice");
    let scenario = "  - id: amount-twice\n    category: happy-path\n    steps: [\"Send 50\"]\n    expect:\n      expectedFunction: send_money\n      expectedParams: {amount: 50}\n";
    let reply =
        r#"{"plan": [{"function": "send_money", "params": {"amount": 500, "amount": 50}}]}"#;
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "appears twice");
}

#[test]
fn eq_without_a_value_is_a_load_error() {
    // A forgotten `value` once meant "= null", which a reply without the field satisfies.
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: eq\n    category: edge-case\n    steps: [\"Send 50\"]\n    expect:\n      customValidator: {path: /plan/0/params/amount, op: eq}\n";
    let out = run_suite(dir.path(), r#"{"text": "no"}"#, scenario);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs a `value`"), "{stderr}");
}
