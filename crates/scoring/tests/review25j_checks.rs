//! Break-it review 25j, the checks beside the text rules, each failing before:
//! - a `customValidator` on a call's function name compared it caselessly, so
//!   `{path: /plan/0/function, op: eq, value: send_money}` held on a `SEND_MONEY` call that
//!   `expectedFunction` rejects (finding 8);
//! - one needle listed many times loaded as that many checks (finding 5), and numbering the
//!   checks of one mapping took time quadratic in their number.

use crate::support::all_pass;
use scoring::expect::{Expectations, JudgeVerdicts, evaluate};
use scoring::transcript::{BotTurn, PlanStep, Transcript};
use serde_json::json;

fn one_call(function: &str) -> Transcript {
    let mut t = Transcript::default();
    t.push(
        "Send 5 USD to Bob",
        BotTurn {
            text: "Sent.".into(),
            plan: vec![PlanStep {
                agent: String::new(),
                function: function.into(),
                params: serde_json::Map::new(),
            }],
            ..BotTurn::default()
        },
    );
    t
}

#[test]
fn a_validator_on_a_function_name_compares_it_exactly() {
    let shouting = one_call("SEND_MONEY");
    let exact = one_call("send_money");
    for (predicate, on_exact) in [
        (
            json!({"path": "/plan/0/function", "op": "eq", "value": "send_money"}),
            true,
        ),
        (
            json!({"path": "/plan/*/function", "op": "eq", "value": "send_money", "quantifier": "some"}),
            true,
        ),
        (
            json!({"path": "/plan/0/function", "op": "in", "value": ["send_money", "pay"]}),
            true,
        ),
        (
            json!({"path": "/plan/0/function", "op": "contains", "value": "send"}),
            true,
        ),
        (
            json!({"path": "/plan/0/function", "op": "ne", "value": "send_money"}),
            false,
        ),
        (
            json!({"path": "/plan/0/function", "op": "notIn", "value": ["send_money"]}),
            false,
        ),
    ] {
        let expect = json!({"customValidator": predicate});
        assert_eq!(
            all_pass(&expect, &exact),
            on_exact,
            "{expect} on send_money"
        );
        // SEND_MONEY is another function, as `expectedFunction` says.
        assert_eq!(
            all_pass(&expect, &shouting),
            !on_exact,
            "{expect} on SEND_MONEY"
        );
    }
    assert!(!all_pass(
        &json!({"expectedFunction": "send_money"}),
        &shouting
    ));
    // Surrounding whitespace is ignored, as every call check ignores it.
    let padded = one_call(" send_money ");
    let expect =
        json!({"customValidator": {"path": "/plan/0/function", "op": "eq", "value": "send_money"}});
    assert!(all_pass(&expect, &padded));
    // Other text paths stay caseless.
    let expect = json!({"customValidator": {"path": "/text", "op": "eq", "value": "SENT."}});
    assert!(all_pass(&expect, &exact));
}

#[test]
fn a_needle_listed_twice_is_a_load_error() {
    for (expect, twice) in [
        (json!({"shouldContain": ["ok", "fee", "ok"]}), "\"ok\""),
        (
            json!({"shouldNotContain": ["hunter2", "HUNTER2"]}),
            "\"HUNTER2\"",
        ),
        (
            json!({"shouldContain": ["late fee", "late  fee"]}),
            "\"late  fee\"",
        ),
        (
            json!({"shouldWarn": ["late fee", {"topic": "Late fee", "synonyms": ["penalty"]}]}),
            "\"Late fee\"",
        ),
    ] {
        let err = serde_json::from_value::<Expectations>(expect.clone())
            .expect_err("a needle twice")
            .to_string();
        assert!(
            err.contains(&format!("lists {twice} twice")),
            "{expect}: {err}"
        );
        assert!(err.contains("write it once"), "{expect}: {err}");
    }
    serde_json::from_value::<Expectations>(json!({"shouldContain": ["ok", "okay"]}))
        .expect("two needles");
}

#[test]
fn many_checks_of_one_mapping_are_numbered_in_order() {
    let needles: Vec<String> = (0..20_000).map(|i| format!("n{i}")).collect();
    let e: Expectations =
        serde_json::from_value(json!({"shouldContain": needles, "shouldReject": false}))
            .expect("valid");
    let mut t = one_call("send_money");
    t.turns[0].1.text = "n7 n19999".into();
    let checks = evaluate(&e, &t, &JudgeVerdicts::default());
    assert_eq!(checks.len(), 20_001);
    assert_eq!(checks[0].path, "expect.shouldContain[0]");
    assert_eq!(checks[19_999].path, "expect.shouldContain[19999]");
    assert!(checks[7].passed && checks[19_999].passed && !checks[8].passed);
    let reject = checks
        .iter()
        .find(|c| c.name.contains("shouldReject"))
        .expect("one");
    assert_eq!(reject.path, "expect.shouldReject");
}
