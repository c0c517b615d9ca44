//! Validation of expectations while deserializing: what cannot be evaluated is an error, with a
//! message that says how to fix it.

use scoring::expect::{CheckSpec, Expect, Expectations, TurnSel};
use serde_json::json;

fn parse(v: serde_json::Value) -> Result<Expectations, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

fn err(v: serde_json::Value) -> String {
    parse(v.clone()).expect_err(&format!("{v} should be rejected"))
}

#[test]
fn unknown_checks_suggest_the_right_name() {
    assert!(err(json!({"expectedFuntion": "x"})).contains("did you mean `expectedFunction`?"));
    assert!(err(json!({"shouldcontain": ["x"]})).contains("did you mean `shouldContain`?"));
    assert!(err(json!({"frobnicate": 1})).contains("unknown check `frobnicate`"));
}

#[test]
fn fields_beside_a_logical_operator_are_rejected() {
    assert!(
        err(json!({"any": [{"expectedFunction": "a"}], "shouldContain": ["x"]}))
            .contains("beside `any`")
    );
    assert!(
        err(json!({"critical": true, "not": {"expectedFunction": "a"}}))
            .contains("beside `critical`")
    );
}

#[test]
fn empty_and_malformed_expectations_are_rejected() {
    assert!(err(json!({"any": []})).contains("at least one branch"));
    assert!(err(json!({"all": []})).contains("at least one branch"));
    assert!(err(json!({})).contains("no check declared"));
    assert!(err(json!({"turn": 2})).contains("no check declared"));
    assert!(err(json!({"shouldContain": []})).contains("at least one item"));
    assert!(err(json!({"shouldContain": ["  "]})).contains("must not be blank"));
    assert!(err(json!({"responseType": "action!"})).contains("unknown response type"));
    assert!(err(json!({"turn": 0, "shouldContain": ["x"]})).contains("turn number from 1"));
    assert!(err(json!({"turn": "first", "shouldContain": ["x"]})).contains("`last` or `any`"));
    assert!(err(json!({"expectedParams": {}})).contains("at least one parameter"));
    assert!(
        err(json!({"expectedParams": {"amount": {"gte": "ten"}}}))
            .contains("expectedParams.amount: `gte` needs a number")
    );
    assert!(err(json!({"expectedParams": {"amount": {"lesser": 1}}})).contains("unknown operator"));
    assert!(err(json!({"expectedParams": {"amount": {"between": [10, 1]}}})).contains("reversed"));
    assert!(
        err(json!({"customValidator": {"path": "plan/0", "op": "exists"}}))
            .contains("JSON pointer")
    );
    assert!(
        err(json!({"customValidator": {"path": "/text", "op": "gt"}})).contains("needs a `value`")
    );
    assert!(
        err(json!({"customValidator": {"path": "/text", "op": "eq", "value": 1, "code": "x"}}))
            .contains("unknown field")
    );
    assert!(
        err(json!({"shouldMention": [{"topic": "fee", "synonym": ["x"]}]}))
            .contains("unknown field")
    );
    assert!(err(json!({"shouldReject": "yes"})).contains("invalid type"));
}

#[test]
fn valid_expectations_keep_order_and_modifiers() {
    // From text, so the written order is kept (json! objects are key-sorted).
    let e: Result<Expectations, _> = serde_json::from_str(
        r#"{"shouldContain": "fee", "expectedFunction": " send_money ", "turn": "last",
            "critical": true, "weight": 4,
            "shouldMention": ["fee", {"topic": "limit", "synonyms": ["cap"]}]}"#,
    );
    let e = e.expect("valid");
    let Expect::Checks(set) = &e.root else {
        panic!("a check mapping")
    };
    assert_eq!(set.turn, Some(TurnSel::Last));
    assert_eq!(set.critical, Some(true));
    assert_eq!(set.weight, Some(4));
    assert!(matches!(&set.checks[0], CheckSpec::ShouldContain(items) if items == &["fee"]));
    assert!(matches!(&set.checks[1], CheckSpec::ExpectedFunction(f) if f == "send_money"));
    assert_eq!(e.declared_checks(), 4);
}

#[test]
fn per_step_turns_do_not_override_explicit_ones() {
    let e = parse(json!({"all": [{"shouldContain": ["a"]}, {"turn": 1, "shouldContain": ["b"]}]}))
        .expect("valid");
    let Expect::All(items) = e.root.at_turn(TurnSel::Index(2)) else {
        panic!("all")
    };
    let turns: Vec<Option<TurnSel>> = items
        .iter()
        .map(|i| match i {
            Expect::Checks(set) => set.turn,
            _ => None,
        })
        .collect();
    assert_eq!(turns, [Some(TurnSel::Index(2)), Some(TurnSel::Index(1))]);
}
