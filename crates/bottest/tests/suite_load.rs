//! Suite loading errors come out located (`file:line:col`) and say what to fix.

use std::path::Path;

use bottest::suite::parse_suite;

fn load_err(yaml: &str) -> String {
    parse_suite(Path::new("suite.yaml"), yaml)
        .expect_err("invalid suite")
        .to_string()
}

const HEAD: &str = "scenarios:\n  - id: a\n    category: happy-path\n    steps: [hi]\n";

#[test]
fn unknown_checks_are_located_with_a_suggestion() {
    let err = load_err(&format!("{HEAD}    expect:\n      shouldContian: [x]\n"));
    assert!(err.starts_with("suite.yaml:6:"), "{err}");
    assert!(err.contains("did you mean `shouldContain`?"), "{err}");
}

#[test]
fn fields_beside_logical_operators_are_located() {
    let err = load_err(&format!(
        "{HEAD}    expect:\n      any:\n        - {{shouldContain: [x]}}\n      shouldReject: true\n"
    ));
    assert!(err.starts_with("suite.yaml:"), "{err}");
    assert!(err.contains("beside `any`"), "{err}");
}

#[test]
fn malformed_operators_and_categories_are_located() {
    let err = load_err(&format!(
        "{HEAD}    expect:\n      expectedParams: {{amount: {{gte: ten}}}}\n"
    ));
    assert!(err.contains("`gte` needs a number"), "{err}");
    assert!(err.starts_with("suite.yaml:6:"), "{err}");
    // A near miss of a known category is a typo; anything else is a free-form category.
    let err = load_err(
        "scenarios:\n  - id: a\n    category: happy_path\n    steps: [hi]\n    expect: {shouldReject: true}\n",
    );
    assert!(err.starts_with("suite.yaml:3:"), "{err}");
    assert!(err.contains("did you mean `happy-path`?"), "{err}");
    let suite = parse_suite(
        Path::new("suite.yaml"),
        "scenarios:\n  - id: a\n    category: billing\n    steps: [hi]\n    expect: {shouldReject: true}\n",
    )
    .expect("a free-form category loads");
    assert_eq!(suite.scenarios[0].category.as_str(), "billing");
    assert!(!suite.scenarios[0].category.is_known());
    let err =
        load_err("scenarios:\n  - id: a\n    steps: [hi]\n    expect: {shouldReject: true}\n");
    assert!(
        err.contains("needs a `category`: one of happy-path"),
        "{err}"
    );
}

#[test]
fn semantic_errors_point_at_the_scenario() {
    let dup = format!(
        "{HEAD}    expect: {{shouldReject: true}}\n{}",
        HEAD.replacen("scenarios:\n", "", 1)
    );
    let err = load_err(&format!("{dup}    expect: {{shouldReject: true}}\n"));
    assert!(err.contains("duplicate scenario id `a`"), "{err}");
    assert!(err.starts_with("suite.yaml:6:"), "{err}");
    let err = load_err(HEAD);
    assert!(err.contains("declares no expectation"), "{err}");
    let err = load_err(&format!(
        "{HEAD}    expect: {{shouldReject: true}}\n    script: {{turns: [{{text: a}}, {{text: b}}]}}\n"
    ));
    assert!(err.contains("the script has 2 turns for 1 steps"), "{err}");
    let err = load_err(
        "scenarios:\n  - template: {id: t, category: custom, steps: [x], expect: {shouldReject: true}}\n",
    );
    assert!(err.contains("needs a `grid`"), "{err}");
    let err = load_err(
        "scenarios:\n  - template: {id: t, category: custom, steps: ['{{ nope }}'], expect: {shouldReject: true}}\n    grid: {n: [1]}\n",
    );
    assert!(err.contains("undefined"), "{err}");
}

#[test]
fn templates_expand_with_typed_values_and_per_step_turns() {
    let suite = parse_suite(
        Path::new("suite.yaml"),
        "scenarios:\n  - template:\n      id: t\n      category: edge-case\n      steps:\n        - say: 'send {{ n }}'\n          expect: {expectedParams: {amount: '{{ n }}'}}\n    grid: {n: [1, 2]}\n",
    )
    .expect("valid suite");
    assert_eq!(suite.scenarios.len(), 2);
    assert_eq!(suite.scenarios[0].steps, ["send 1"]);
    assert!(suite.scenarios[0].id.starts_with("t-"));
    assert_eq!(suite.scenarios[1].params["n"], 2);
    assert_ne!(suite.scenarios[0].id, suite.scenarios[1].id);
}

#[test]
fn the_users_own_checks_are_validated_where_written() {
    // A typo'd key inside a check is named, at its line.
    let err = load_err(&format!(
        "{HEAD}    expect:\n      command:\n        run: [python3, c.py]\n        timeout: 5\n"
    ));
    assert!(err.starts_with("suite.yaml:"), "{err}");
    assert!(err.contains("timeout"), "{err}");
    assert!(err.contains("timeoutMs"), "{err}");
    let line: usize = err
        .split(':')
        .nth(1)
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    assert!((6..=8).contains(&line), "{err}");
    let err = load_err(&format!(
        "{HEAD}    expect:\n      similar: {{to: [hello], treshold: 0.8}}\n"
    ));
    assert!(err.starts_with("suite.yaml:6:"), "{err}");
    assert!(err.contains("treshold"), "{err}");
    let err = load_err(&format!(
        "{HEAD}    expect:\n      llmRubric: {{rubrik: polite}}\n"
    ));
    assert!(err.starts_with("suite.yaml:6:"), "{err}");
    assert!(err.contains("rubrik"), "{err}");
    // Values out of range, and a check name typo with its suggestion.
    for (yaml, wanted) in [
        ("similar: {to: [hello], threshold: 1.5}", "in (0, 1]"),
        (
            "similar: {to: [], threshold: 0.5}",
            "at least one reference",
        ),
        ("command: {run: []}", "needs a program"),
        ("command: {run: [python3], timeoutMs: 0}", "at least 1"),
        ("llmRubric: \"  \"", "blank"),
        ("llmRubrik: polite", "did you mean `llmRubric`?"),
    ] {
        let err = load_err(&format!("{HEAD}    expect:\n      {yaml}\n"));
        assert!(err.starts_with("suite.yaml:6:"), "{yaml}: {err}");
        assert!(err.contains(wanted), "{yaml}: {err}");
    }
}

/// Review 25b, #16: `turn: last` in a step's own `expect` judged the conversation's last turn,
/// so a leak at step 1 passed. A step's own `expect` looks at its own turn only.
#[test]
fn a_step_expect_that_names_another_turn_is_located() {
    for (check, turn) in [
        ("shouldNotContain: [hunter2]", "last"),
        ("shouldContain: [fee]", "any"),
        ("shouldContain: [fee]", "2"),
    ] {
        let err = load_err(&format!(
            "scenarios:\n  - id: a\n    category: custom\n    steps:\n      - say: one\n        expect: {{{check}, turn: {turn}}}\n      - two\n"
        ));
        assert!(err.starts_with("suite.yaml:6:"), "{turn}: {err}");
        assert!(err.contains("step 1's own `expect` names `turn`"), "{err}");
        assert!(err.contains("scenario's `expect`"), "{err}");
    }
    // Its own number is what it means anyway.
    let ok = "scenarios:\n  - id: a\n    category: custom\n    steps:\n      - say: one\n        expect: {shouldNotContain: [hunter2], turn: 1}\n      - two\n";
    parse_suite(Path::new("suite.yaml"), ok).expect("turn 1 in step 1 is its own turn");
}

/// Review 25i's hostile files h97, m04 and h94: a file that declares YAML 1.1 (where `yes` is a
/// boolean), a number with a leading zero (octal in 1.1, decimal in 1.2) and an id with a line
/// break (which printed a row of its own in the report) are each a located error with a hint.
#[test]
fn yaml_versions_leading_zeros_and_control_ids_are_refused() {
    let body = format!("{HEAD}    expect: {{expectedParams: {{confirm: yes}}}}\n");
    let err = load_err(&format!("%YAML 1.1\n---\n{body}"));
    assert!(err.starts_with("suite.yaml:1:1:"), "{err}");
    assert!(err.contains("declares YAML 1.1"), "{err}");
    assert!(err.contains("remove the `%YAML` line"), "{err}");
    parse_suite(Path::new("suite.yaml"), &format!("%YAML 1.2\n---\n{body}"))
        .expect("YAML 1.2 is the version the reader follows");

    let err = load_err(&format!(
        "defaults: {{threshold: 070}}\n{HEAD}    expect: {{shouldReject: true}}\n"
    ));
    assert!(err.starts_with("suite.yaml:1:23:"), "{err}");
    assert!(
        err.contains("`070` is a number with a leading zero"),
        "{err}"
    );
    assert!(err.contains("without the leading zero"), "{err}");
    // Review 25j: a threshold that is no whole number says the score's range, with a hint.
    for bad in ["1e999", ".nan", "70.5", "-1"] {
        let err = load_err(&format!(
            "defaults: {{threshold: {bad}}}\n{HEAD}    expect: {{shouldReject: true}}\n"
        ));
        assert!(err.contains("a whole number from 0 to 100"), "{bad}: {err}");
        assert!(err.contains("e.g. `threshold: 70`"), "{bad}: {err}");
    }
    // ... and so does a weight, in a mapping or in the defaults' table.
    for bad in ["-1", ".nan", "1e308", "2.5"] {
        for text in [
            format!("{HEAD}    expect: {{shouldReject: true, weight: {bad}}}\n"),
            format!(
                "defaults: {{weights: {{shouldReject: {bad}}}}}\n{HEAD}    expect: {{shouldReject: true}}\n"
            ),
        ] {
            let err = load_err(&text);
            assert!(err.contains("a whole number from 0 to"), "{bad}: {err}");
            assert!(err.contains("without a sign, a fraction"), "{bad}: {err}");
        }
    }
    let suite = parse_suite(
        Path::new("suite.yaml"),
        &format!("defaults: {{threshold: 70}}\n{HEAD}    expect: {{shouldReject: true}}\n"),
    )
    .expect("a plain number loads");
    assert_eq!(suite.defaults.threshold, 70);

    for id in [
        r#""s1\n[PASS] fake""#,
        r#""a\tb""#,
        r#""a\u0085b""#,
        r#""s\u200B1""#,
        r#""a\u202Eb""#,
    ] {
        let err = load_err(&format!(
            "scenarios:\n  - id: {id}\n    category: custom\n    steps: [hi]\n    expect: {{shouldReject: true}}\n"
        ));
        assert!(err.starts_with("suite.yaml:2:"), "{id}: {err}");
        assert!(
            err.contains("holds a control or invisible character"),
            "{id}: {err}"
        );
        assert!(err.contains("visible characters only"), "{id}: {err}");
    }
}

/// Review 25l, #9, #12, #13: a tagged number in `expectedParams` is held to the rules of an
/// untagged one (`!!float "1e-400"` underflows, `!!float "1e400"` overflows, `!!int "0050"` has a
/// leading zero), each a located error with a hint in a parameter value's terms, not a weight's.
#[test]
fn tagged_numbers_in_expected_params_follow_the_untagged_rules() {
    let params = |value: &str| {
        load_err(&format!(
            "{HEAD}    expect: {{expectedFunction: f, expectedParams: {{amount: {value}}}}}\n"
        ))
    };
    for (value, column, message, hint) in [
        (
            "{gte: !!float \"1e-400\"}",
            74,
            "the number 1e-400 is too small for a 64-bit float",
            "hint: quote it",
        ),
        (
            "!!float \"1e-400\"",
            68,
            "the number 1e-400 is too small for a 64-bit float",
            "hint: quote it",
        ),
        (
            "{lte: !!float \"1e400\"}",
            74,
            "the number 1e400 is too large for a 64-bit float",
            "hint: quote it",
        ),
        (
            "{lte: 1e400}",
            66,
            "the number 1e400 is too large for a 64-bit float",
            "hint: quote it",
        ),
        (
            "!!int \"0050\"",
            66,
            "`0050` is a number with a leading zero",
            "hint: write it without the leading zero",
        ),
        (
            "!!int '-0050'",
            66,
            "`-0050` is a number with a leading zero",
            "hint: write it without the leading zero",
        ),
        (
            "!!int \"fifty\"",
            66,
            "`!!int \"fifty\"` cannot be read as a whole number here",
            "hint: write the number without the tag",
        ),
    ] {
        let err = params(value);
        assert!(
            err.starts_with(&format!("suite.yaml:5:{column}: error: ")),
            "{value}: {err}"
        );
        assert!(err.contains(message), "{value}: {err}");
        assert!(err.contains(hint), "{value}: {err}");
        assert!(!err.contains("18446744073709551615"), "{value}: {err}");
    }
    let suite = parse_suite(
        Path::new("suite.yaml"),
        &format!(
            "{HEAD}    expect: {{expectedFunction: f, expectedParams: {{amount: !!int \"50\", memo: !!str 1e-400}}}}\n"
        ),
    )
    .expect("a tagged whole number and tagged text load");
    assert_eq!(suite.scenarios.len(), 1);
}

/// Review 25l, #10: two `<<` merge keys in one `expect` loaded, and the first merge's checks
/// were lost. A duplicate key, as any other, at the second one.
#[test]
fn two_merge_keys_in_one_mapping_are_a_duplicate_key() {
    let err = load_err(&format!(
        "{HEAD}    expect:\n      <<: {{shouldContain: [alpha]}}\n      <<: {{shouldContain: [omega]}}\n"
    ));
    assert!(
        err.starts_with("suite.yaml:7:7: error: duplicate key `<<`"),
        "{err}"
    );
    assert!(err.contains("hint: write each key once"), "{err}");
    let suite = parse_suite(
        Path::new("suite.yaml"),
        &format!(
            "{HEAD}    expect:\n      <<: [{{shouldContain: [alpha]}}, {{shouldReject: false}}]\n"
        ),
    )
    .expect("one merge key with a list loads");
    assert_eq!(suite.scenarios[0].expectations.declared_checks(), 2);
}
