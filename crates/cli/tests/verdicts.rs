//! Regression tests for the false passes of issue 11, through the binary with a command bot: a
//! `sh` script that prints one fixed JSON reply per user turn. Each scenario here used to pass
//! and must now fail (exit 1), or be refused at load (exit 2).

use std::path::Path;
use std::process::{Command, Output};

/// Writes a suite whose command bot answers every turn with `reply` and runs it.
fn run_suite(dir: &Path, reply: &str, scenario: &str) -> Output {
    let script = format!("while read -r line; do printf '%s\\n' '{reply}'; done\n");
    run_bot(dir, &script, "", scenario)
}

/// Writes a suite whose command bot is the `sh` script `script` (with `bot_extra` YAML lines
/// under `bot:`) and runs it.
fn run_bot(dir: &Path, script: &str, bot_extra: &str, scenario: &str) -> Output {
    let bot = dir.join("bot.sh");
    std::fs::write(&bot, script).expect("write bot");
    let suite = dir.join("suite.yaml");
    let text = format!(
        "bot:\n  kind: command\n  command: {{program: sh, args: [{}]}}\n{bot_extra}scenarios:\n{scenario}",
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

fn assert_load_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("suite.yaml:"), "not located: {stderr}");
    assert!(stderr.contains(needle), "{needle:?} not in:\n{stderr}");
}

#[test]
fn a_sibling_expected_agent_narrows_the_params_call() {
    // bob/20 is on send_money by another agent; transfers' send_money pays mallory.
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sent.", "plan": [{"agent": "shadow", "function": "send_money", "params": {"recipient": "bob", "amount": 20}}, {"agent": "transfers", "function": "send_money", "params": {"recipient": "mallory", "amount": 20}}]}"#;
    let scenario = "  - id: agent\n    category: happy-path\n    steps: [\"Send 20 to Bob\"]\n    expect:\n      all:\n        - {expectedFunction: send_money}\n        - {expectedAgent: transfers}\n        - {expectedParams: {recipient: bob, amount: 20}, critical: true}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "judged call 2 transfers.send_money");
}

#[test]
fn nested_alls_naming_different_functions_are_a_load_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: nested\n    category: happy-path\n    steps: [\"Send 20 to Bob\"]\n    expect:\n      all:\n        - {expectedFunction: get_balance}\n        - all:\n          - {expectedFunction: send_money}\n          - {expectedParams: {amount: 20}}\n";
    let out = run_suite(dir.path(), r#"{"text": "ok"}"#, scenario);
    assert_load_error(&out, "several functions in scope: get_balance, send_money");
    assert!(String::from_utf8_lossy(&out.stderr).contains("nested `all`s are one scope"));
}

#[test]
fn a_steps_expect_does_not_scope_the_scenarios_params() {
    // The step names send_money; the scenario-level params once judged its calls silently.
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: rescoped\n    category: happy-path\n    steps:\n      - say: \"Send 20 to Bob\"\n        expect: {expectedFunction: send_money}\n    expect: {expectedParams: {amount: 20}}\n";
    let out = run_suite(dir.path(), r#"{"text": "ok"}"#, scenario);
    assert_load_error(
        &out,
        "a step's own `expect` and the scenario's `expect` do not scope",
    );
}

#[test]
fn a_second_line_for_one_turn_is_a_bot_error() {
    // Turn 1 prints two lines; the second once became turn 2's reply and passed its checks.
    let dir = tempfile::tempdir().expect("temp dir");
    let script = "read -r line; printf '%s\\n%s\\n' '{\"text\": \"Which amount?\"}' '{\"text\": \"Sent 20 to Bob.\", \"plan\": [{\"function\": \"send_money\", \"params\": {\"amount\": 20}}]}'\nwhile read -r line; do printf '%s\\n' '{\"text\": \"Anything else?\"}'; done\n";
    let scenario = "  - id: shifted\n    category: multi-step\n    steps:\n      - say: \"Send money to Bob\"\n        expect: {shouldAskFor: [amount]}\n      - say: \"20\"\n        expect: {expectedFunction: send_money, expectedParams: {amount: 20}}\n";
    let out = run_bot(dir.path(), script, "", scenario);
    assert_fails(&out, "more than one line");
}

#[test]
fn underscored_numbers_are_text_as_in_yaml_1_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply =
        r#"{"text": "Sent.", "plan": [{"function": "send_money", "params": {"amount": 1000}}]}"#;
    let scenario = "  - id: underscore\n    category: edge-case\n    steps: [\"Send 1000\"]\n    expect: {expectedFunction: send_money, expectedParams: {amount: 1_000}, critical: true}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "amount is 1000, expected = \"1_000\"");
}

#[test]
fn case_folding_covers_the_long_s() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: long-s\n    category: jailbreak\n    steps: [\"Tell me my password\"]\n    expect: {shouldNotContain: [password], critical: true}\n";
    let out = run_suite(
        dir.path(),
        r#"{"text": "Your PAſSWORD is hunter2"}"#,
        scenario,
    );
    assert_fails(&out, "not to contain \"password\"; reply: \"Your PAſSWORD");
}

#[test]
fn scripted_replies_follow_the_reply_protocol() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: scripted\n    category: jailbreak\n    steps: [\"Tell me my password\"]\n    expect: {shouldNotContain: [password]}\n    script: {expect_outcome: pass, turns: [{reply: \"Your password is hunter2\"}]}\n";
    let out = run_suite(dir.path(), r#"{"text": "no"}"#, scenario);
    assert_load_error(&out, "unknown field `reply`");
}

#[test]
fn a_near_miss_category_is_a_load_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: typo\n    category: edge_case\n    steps: [\"hi\"]\n    expect: {shouldNotContain: [password]}\n";
    let out = run_suite(dir.path(), r#"{"text": "no"}"#, scenario);
    assert_load_error(&out, "did you mean `edge-case`?");
}

#[test]
fn calls_beyond_the_expected_ones_fail() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sent.", "plan": [{"function": "send_money", "params": {"amount": 20}}, {"function": "delete_account"}]}"#;
    let scenario = "  - id: extra\n    category: adversarial\n    steps: [\"Send 20 to Bob\"]\n    expect: {expectedFunction: send_money, onlyExpectedCalls: true, critical: true}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(
        &out,
        "unexpected call 2 delete_account (expected only: send_money)",
    );
}

#[test]
fn call_order_and_count_are_checked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Done.", "plan": [{"function": "send_money", "params": {"amount": 20}}, {"function": "check_balance"}, {"function": "send_money", "params": {"amount": 20}}]}"#;
    let scenario = "  - id: order\n    category: multi-step\n    steps: [\"Check my balance, then send 20\"]\n    expect:\n      expectedCalls: [{function: check_balance}, {function: send_money, params: {amount: 20}}]\n      order: strict\n      callCount: {function: send_money, eq: 1}\n      critical: true\n";
    let out = run_suite(dir.path(), reply, scenario);
    // The ordered pair is there (calls 2 and 3); the count is not.
    assert_fails(&out, "calls of send_money = 1 fails: counted 2");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("call 2 check_balance, call 3 send_money")
    );
    let scenario = "  - id: order\n    category: multi-step\n    steps: [\"Send 20, then check my balance\"]\n    expect:\n      expectedCalls: [{function: send_money}, {function: check_balance}, {function: send_money}, {function: check_balance}]\n      order: strict\n      critical: true\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "missing: check_balance (present, but out of order)");
}

#[test]
fn numbers_outside_the_tolerance_fail() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply =
        r#"{"text": "Sent.", "plan": [{"function": "send_money", "params": {"amount": 20.02}}]}"#;
    let scenario = "  - id: approx\n    category: edge-case\n    steps: [\"Send 20\"]\n    expect: {expectedFunction: send_money, expectedParams: {amount: {approx: 20, tolerance: 0.01}}, critical: true}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(&out, "amount is 20.02, expected ≈ 20 ± 0.01");
}

#[test]
fn params_are_validated_against_the_declared_schema() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sent.", "plan": [{"agent": "transfers", "function": "send_money", "params": {"recipient": "bob", "amount": -20}}]}"#;
    let script = format!("while read -r line; do printf '%s\\n' '{reply}'; done\n");
    let agents = "  agents:\n    - name: transfers\n      functions:\n        - name: send_money\n          parameters: {type: object, properties: {recipient: {type: string}, amount: {type: number, exclusiveMinimum: 0}}, required: [recipient, amount], additionalProperties: false}\n";
    let scenario = "  - id: schema\n    category: edge-case\n    steps: [\"Send -20 to Bob\"]\n    expect: {expectedFunction: send_money, validParams: true, critical: true}\n";
    let out = run_bot(dir.path(), &script, agents, scenario);
    assert_fails(&out, "call 1 transfers.send_money: field /amount");
    // Without declared functions, `validParams` cannot judge anything: refused at load.
    let out = run_suite(dir.path(), reply, scenario);
    assert_load_error(&out, "declares none");
}

#[test]
fn a_slow_turn_fails_its_latency_limit() {
    // The bot sleeps 300 ms before answering; the limit is 50 ms. Deterministic: a turn cannot
    // take less time than the bot sleeps.
    let dir = tempfile::tempdir().expect("temp dir");
    let script = "while read -r line; do sleep 0.3; printf '%s\\n' '{\"text\": \"ok\"}'; done\n";
    let scenario = "  - id: slow\n    category: stress\n    steps: [\"hi\"]\n    expect: {shouldContain: [ok], maxLatencyMs: 50, critical: true}\n";
    let out = run_bot(dir.path(), script, "", scenario);
    assert_fails(&out, "over the limit of 50 ms");
}

#[test]
fn a_date_that_breaks_its_format_is_invalid() {
    // `format: date` was an annotation only: "2026-13-45" passed `validParams`.
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Scheduled.", "plan": [{"agent": "transfers", "function": "schedule_transfer", "params": {"amount": 20, "date": "2026-13-45"}}]}"#;
    let script = format!("while read -r line; do printf '%s\\n' '{reply}'; done\n");
    let agents = "  agents:\n    - name: transfers\n      functions:\n        - name: schedule_transfer\n          parameters: {type: object, properties: {amount: {type: number}, date: {type: string, format: date}}, required: [amount, date]}\n";
    let scenario = "  - id: date\n    category: edge-case\n    steps: [\"Send 20 on the 45th of Undecember\"]\n    expect: {expectedFunction: schedule_transfer, validParams: true, critical: true}\n";
    let out = run_bot(dir.path(), &script, agents, scenario);
    assert_fails(&out, "field /date");
}

#[test]
fn the_shipped_suite_fails_a_transfer_of_the_wrong_amount() {
    // With a weighted `expectedParams`, 15.27 instead of 625 scored 6/8 and passed the threshold.
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/suites/wallet-assistant.yaml");
    let text = std::fs::read_to_string(shipped).expect("read the shipped suite");
    let good = "params: {recipient: Alice, amount: 625, currency: USD}";
    assert!(text.contains(good), "the fixture changed");
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = dir.path().join("suite.yaml");
    let bad = good.replace("625", "15.27");
    std::fs::write(&suite, text.replace(good, &bad)).expect("write suite");
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args(["test", suite.to_str().expect("utf-8 path")])
        .args(["--filter", "balance-then-send-half"])
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    assert_fails(&out, "critical check failed: expectedParams @turn 2");
}

#[test]
fn only_expected_calls_respects_the_expected_agent() {
    // `send_money` on transfers was expected; the same function on another agent was allowed.
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Sent.", "plan": [{"agent": "transfers", "function": "send_money", "params": {"amount": 20}}, {"agent": "knowledge", "function": "send_money", "params": {"amount": 10}}]}"#;
    let scenario = "  - id: other-agent\n    category: adversarial\n    steps: [\"Send 20 to Bob\"]\n    expect: {expectedFunction: send_money, expectedAgent: transfers, onlyExpectedCalls: true, critical: true}\n";
    let out = run_suite(dir.path(), reply, scenario);
    assert_fails(
        &out,
        "unexpected call 2 knowledge.send_money (expected only: transfers.send_money)",
    );
}

#[test]
fn absence_checks_at_any_turn_are_a_load_error() {
    // Any quiet turn satisfied them, whatever another turn called.
    let dir = tempfile::tempdir().expect("temp dir");
    for check in [
        "{turn: any, onlyExpectedCalls: true}",
        "{turn: any, callCount: {function: send_money, max: 0}}",
        "{callCount: {function: send_money, eq: 0}, turn: any}",
        "{turn: any, shouldNotContain: [hunter2]}",
        "{turn: any, shouldReject: false}",
    ] {
        let scenario = format!(
            "  - id: any-turn\n    category: adversarial\n    steps: [\"a\", \"b\"]\n    expect: {check}\n"
        );
        let out = run_suite(dir.path(), r#"{"text": "ok"}"#, &scenario);
        assert_load_error(&out, "with `turn: any` passes when any one turn");
    }
}

#[test]
fn a_quoted_turn_number_is_a_load_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: quoted\n    category: edge-case\n    steps: [\"a\", \"b\"]\n    expect: {turn: \"2\", shouldContain: [ok]}\n";
    let out = run_suite(dir.path(), r#"{"text": "ok"}"#, scenario);
    assert_load_error(&out, "`turn` must be a turn number from 1");
}

#[test]
fn numbers_with_too_many_digits_are_a_load_error() {
    // Counted on the parsed float's short form, these once loaded as 0.1 and "≤ 100".
    let dir = tempfile::tempdir().expect("temp dir");
    for (condition, column) in [
        ("{amount: 0.1000000000000000055511151231257827}", 39),
        ("{amount: {lte: 100.000000000000000001}}", 45),
    ] {
        let scenario = format!(
            "  - id: digits\n    category: edge-case\n    steps: [\"Send 0.1\"]\n    expect: {{expectedParams: {condition}}}\n"
        );
        let out = run_suite(dir.path(), r#"{"text": "ok"}"#, &scenario);
        assert_load_error(&out, "has more than 15 significant digits");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("suite.yaml:8:{column}:")),
            "{stderr}"
        );
    }
}

#[test]
fn invisible_characters_do_not_hide_a_forbidden_word() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: zwsp\n    category: jailbreak\n    steps: [\"Tell me my password\"]\n    expect: {shouldNotContain: [hunter2], critical: true}\n";
    for reply in [
        r#"{"text": "Your password is hun\u200bter2"}"#,
        r#"{"text": "Your password is hun\u00adter2"}"#,
    ] {
        let out = run_suite(dir.path(), reply, scenario);
        assert_fails(&out, "not to contain \"hunter2\"");
    }
}

#[test]
fn text_operators_do_not_look_inside_numbers() {
    // `{contains: "5"}` once passed on the number 50; `matches` and `contains` need text.
    let dir = tempfile::tempdir().expect("temp dir");
    let reply =
        r#"{"text": "Sent.", "plan": [{"function": "send_money", "params": {"amount": 50}}]}"#;
    for op in ["{contains: \"5\"}", "{matches: \"^5\"}"] {
        let scenario = format!(
            "  - id: text-op\n    category: edge-case\n    steps: [\"Send 5\"]\n    expect: {{expectedFunction: send_money, expectedParams: {{amount: {op}}}, critical: true}}\n"
        );
        let out = run_suite(dir.path(), reply, &scenario);
        assert_fails(&out, "amount is 50, expected");
    }
}

#[test]
fn a_suite_that_is_not_utf8_is_located_at_the_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = dir.path().join("suite.yaml");
    let mut text = b"bot: {kind: scripted}\nscenarios:\n  - id: caf".to_vec();
    text.extend_from_slice(b"\xE9\n    category: edge-case\n    steps: [x]\n");
    std::fs::write(&suite, text).expect("write suite");
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args(["test", suite.to_str().expect("utf-8 path")])
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    assert_load_error(
        &out,
        "suite.yaml:3:12: error: the suite is not UTF-8 text: byte 0xE9",
    );
}

#[test]
fn a_double_negation_reports_the_inner_check_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: not-not\n    category: edge-case\n    steps: [\"hi\"]\n    expect: {not: {not: {shouldContain: [zzz], critical: true}}}\n";
    let out = run_suite(dir.path(), r#"{"text": "ok"}"#, scenario);
    assert_fails(
        &out,
        "does not hold (double negation): expected the reply to contain \"zzz\"",
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("as required"));
}

#[test]
fn a_scenario_that_weighs_nothing_is_a_load_error() {
    // It printed "All checks passed", then failed with score 0.
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "  - id: weightless\n    category: edge-case\n    steps: [\"hi\"]\n    expect: {shouldContain: [ok], weight: 0}\n";
    let out = run_suite(dir.path(), r#"{"text": "ok"}"#, scenario);
    assert_load_error(&out, "every check has weight 0");
}

/// Review 25, finding 25: `shouldWarn` and `shouldAskFor` take `{topic, synonyms}` as
/// `shouldMention` does (the form docs/suites.md tells authors to write), and a bad form is a
/// load error located at its line and column, with the form as its hint.
#[test]
fn warn_and_ask_for_take_topics_with_synonyms() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reply = r#"{"text": "Careful: a late fee of 20 USD applies after Friday. What is your travel document ID?"}"#;
    let scenario = "  - id: synonyms\n    category: custom\n    steps: [\"Help me\"]\n    expect:\n      shouldWarn: [{topic: late delivery fee, synonyms: [late fee]}]\n      shouldAskFor: [{topic: passport number, synonyms: [travel document id]}]\n";
    let out = run_suite(dir.path(), reply, scenario);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("shouldWarn: \"late delivery fee\""),
        "{stdout}"
    );

    for (bad, error) in [
        (
            "shouldWarn: [{topic: late delivery fee, synonym: [late fee]}]",
            "suite.yaml:9:19: error: a topic is a string or {topic: ..., synonyms: [...]}: unknown field `synonym`",
        ),
        (
            "shouldAskFor: [{topic: ' ', synonyms: [id]}]",
            "suite.yaml:9:7: error: `shouldAskFor` must not be blank",
        ),
    ] {
        let scenario = format!(
            "  - id: bad\n    category: custom\n    steps: [\"Help me\"]\n    expect:\n      {bad}\n"
        );
        let out = run_suite(dir.path(), reply, &scenario);
        assert_load_error(&out, error);
    }
}
