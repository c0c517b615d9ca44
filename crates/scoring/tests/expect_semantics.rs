//! The decided semantics of docs/suites.md, one test per former false pass: scope of
//! expectedParams/expectedAgent, `*` quantifiers and empty selections, `any` without a holding
//! branch, `not` over a turn that was not answered, exact numbers and quoted values, and the
//! load-time problems of a tree.

use scoring::expect::{Expectations, JudgeVerdicts, PathStep, evaluate};
use scoring::transcript::{BotTurn, PlanStep, Transcript};
use scoring::{Check, ScoreCard, ScorePolicy};
use serde_json::json;

fn exp(v: serde_json::Value) -> Expectations {
    serde_json::from_value(v).expect("valid expectations")
}

fn step(agent: &str, function: &str, params: serde_json::Value) -> PlanStep {
    let serde_json::Value::Object(params) = params else {
        panic!("params must be an object")
    };
    PlanStep {
        agent: agent.into(),
        function: function.into(),
        params,
    }
}

fn plan_turn(plan: Vec<PlanStep>) -> Transcript {
    let mut t = Transcript::default();
    t.push(
        "Send 20 EUR to Bob",
        BotTurn {
            text: "Done.".into(),
            plan,
            ..BotTurn::default()
        },
    );
    t
}

fn eval(e: &Expectations, t: &Transcript) -> Vec<Check> {
    evaluate(e, t, &JudgeVerdicts::default())
}

fn passed(checks: &[Check]) -> bool {
    ScoreCard::new(checks.to_vec(), &ScorePolicy::default()).passed()
}

/// bob/20 on another function's call while send_money goes to someone else.
fn decoy_plan() -> Transcript {
    plan_turn(vec![
        step(
            "transfers",
            "send_money",
            json!({"recipient": "mallory", "amount": 20}),
        ),
        step(
            "contacts",
            "add_note",
            json!({"recipient": "bob", "amount": 20}),
        ),
    ])
}

#[test]
fn params_bind_to_the_function_of_the_enclosing_all() {
    let e = exp(json!({"all": [
        {"expectedFunction": "send_money"},
        {"expectedParams": {"recipient": "bob", "amount": 20}, "critical": true}
    ]}));
    let checks = eval(&e, &decoy_plan());
    let params = &checks[1];
    assert!(!params.passed, "{}", params.message);
    assert!(
        params.message.contains("call 1 transfers.send_money"),
        "the judged call is named: {}",
        params.message
    );
    assert!(!passed(&checks));
    // The same mapping binds too.
    let e = exp(json!({"expectedFunction": "send_money", "expectedAgent": "contacts"}));
    assert!(!eval(&e, &decoy_plan())[1].passed);
}

#[test]
fn agent_binds_like_params() {
    let e = exp(json!({"all": [
        {"expectedFunction": "send_money"},
        {"expectedAgent": "contacts"}
    ]}));
    let checks = eval(&e, &decoy_plan());
    assert!(!checks[1].passed, "{}", checks[1].message);
}

#[test]
fn without_any_function_named_params_match_any_call() {
    let e = exp(json!({"expectedParams": {"recipient": "bob", "amount": 20}}));
    let checks = eval(&e, &decoy_plan());
    assert!(checks[0].passed);
    assert!(checks[0].message.contains("call 2 contacts.add_note"));
    // A function named only under `not` does not scope anything.
    let e = exp(json!({"all": [
        {"not": {"expectedFunction": "delete_account"}},
        {"expectedParams": {"recipient": "bob"}}
    ]}));
    assert!(eval(&e, &decoy_plan()).iter().all(|c| c.passed));
}

#[test]
fn undecidable_scope_is_a_problem_and_never_a_pass() {
    // A function at another turn: nothing in scope at the last turn.
    let mut e = exp(json!({"all": [
        {"turn": 1, "expectedFunction": "send_money"},
        {"expectedParams": {"recipient": "bob"}}
    ]}));
    e.steps = Some(2);
    let problems = e.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].path,
        [
            PathStep::Key("all".into()),
            PathStep::Index(1),
            PathStep::Key("expectedParams".into())
        ]
    );
    assert!(
        problems[0]
            .hint
            .as_deref()
            .is_some_and(|h| h.contains("expectedFunction"))
    );
    let mut t = decoy_plan();
    t.push("again", decoy_plan().turns[0].1.clone());
    let checks = eval(&e, &t);
    assert!(!checks[1].passed);
    // `turn: last` and the last step's number are the same turn.
    let mut e = exp(json!({"all": [
        {"turn": 2, "expectedFunction": "send_money"},
        {"expectedParams": {"recipient": "mallory"}}
    ]}));
    e.steps = Some(2);
    assert!(e.problems().is_empty());
    assert!(eval(&e, &t).iter().all(|c| c.passed));
    // Several functions in scope.
    let e = exp(json!({"all": [
        {"expectedFunction": "send_money"},
        {"expectedFunction": "add_note"},
        {"expectedParams": {"recipient": "bob"}}
    ]}));
    assert!(e.problems()[0].message.contains("several functions"));
}

#[test]
fn turns_beyond_the_steps_are_problems() {
    let mut e = exp(json!({"not": {"shouldContain": ["done"], "turn": 3}}));
    e.steps = Some(2);
    let problems = e.problems();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .message
            .contains("beyond the scenario's 2 step(s)")
    );
    assert_eq!(problems[0].path.last(), Some(&PathStep::Key("turn".into())));
}

#[test]
fn not_over_an_unanswered_turn_fails() {
    let e = exp(json!({"not": {"expectedFunction": "send_money", "turn": 3}}));
    let mut t = plan_turn(Vec::new());
    t.push("again", BotTurn::text("ok"));
    let checks = eval(&e, &t);
    assert!(!checks[0].passed, "{}", checks[0].message);
    assert!(checks[0].message.contains("not reached"));

    let failed = {
        let mut t = Transcript::default();
        t.push("hi", BotTurn::failed("timed out after 10 ms"));
        t
    };
    let e = exp(json!({"not": {"shouldContain": ["password"]}}));
    assert!(!eval(&e, &failed)[0].passed);
    let e = exp(json!({"not": {"shouldContain": ["password"], "expectedFunction": "x"}}));
    assert!(!eval(&e, &failed)[0].passed);
}

#[test]
fn wildcards_mean_every_value_unless_some_is_asked() {
    let t = plan_turn(vec![
        step("t", "send_money", json!({"amount": 50})),
        step("t", "send_money", json!({"amount": 50000})),
    ]);
    let every = exp(
        json!({"customValidator": {"path": "/plan/*/params/amount", "op": "lte", "value": 100}}),
    );
    let checks = eval(&every, &t);
    assert!(!checks[0].passed);
    assert!(
        checks[0].message.contains("/plan/1/params/amount = 50000"),
        "{}",
        checks[0].message
    );
    let some = exp(
        json!({"customValidator": {"path": "/plan/*/params/amount", "op": "lte", "value": 100, "quantifier": "some"}}),
    );
    let checks = eval(&some, &t);
    assert!(checks[0].passed);
    assert_eq!(
        checks[0].name,
        "customValidator: \"some /plan/*/params/amount ≤ 100\""
    );
    // ne / notIn hold for every value or fail.
    let ne = exp(
        json!({"customValidator": {"path": "/plan/*/params/amount", "op": "notIn", "value": [50000]}}),
    );
    assert!(!eval(&ne, &t)[0].passed);
}

#[test]
fn an_empty_selection_fails_with_its_reason() {
    let t = plan_turn(Vec::new());
    let e = exp(
        json!({"customValidator": {"path": "/plan/*/params/amount", "op": "lte", "value": 100}}),
    );
    let checks = eval(&e, &t);
    assert!(!checks[0].passed);
    assert!(checks[0].message.contains("selects no value"));
    // A selected element lacking the rest of the path counts as missing.
    let t = plan_turn(vec![step("t", "f", json!({}))]);
    assert!(!eval(&e, &t)[0].passed);
}

#[test]
fn quantifiers_are_validated() {
    let err = serde_json::from_value::<Expectations>(
        json!({"customValidator": {"path": "/text", "op": "exists", "quantifier": "some"}}),
    )
    .expect_err("no wildcard");
    assert!(err.to_string().contains("applies to paths with a `*`"));
    let err = serde_json::from_value::<Expectations>(
        json!({"customValidator": {"path": "/plan/*", "op": "exists", "quantifier": "most"}}),
    )
    .expect_err("unknown quantifier");
    assert!(err.to_string().contains("`every` or `some`"));
}

#[test]
fn any_without_a_holding_branch_fails_and_keeps_criticality() {
    let t = plan_turn(vec![step(
        "transfers",
        "send_money",
        json!({"recipient": "rob", "amount": 20}),
    )]);
    let e = exp(json!({"all": [
        {"responseType": "action"},
        {"shouldNotContain": ["error"]},
        {"any": [
            {"expectedFunction": "send_money", "responseType": "action", "shouldContain": ["done"],
             "expectedParams": {"recipient": "bob"}, "critical": true},
            {"shouldAskFor": ["recipient"]}
        ]}
    ]}));
    let checks = eval(&e, &t);
    let any = checks.last().expect("the any check");
    assert!(!any.passed);
    assert!(
        any.critical,
        "the failed critical check of the closest branch stays critical"
    );
    assert!(
        any.message.contains("closest is branch 1 of 2"),
        "{}",
        any.message
    );
    assert!(any.message.contains("expectedParams"));
    assert!(!passed(&checks));

    // A holding branch is reported as it is.
    let e = exp(json!({"any": [
        {"shouldAskFor": ["recipient"]},
        {"expectedFunction": "send_money", "critical": true}
    ]}));
    let checks = eval(&e, &t);
    assert_eq!(checks.len(), 1);
    assert!(checks[0].passed && checks[0].critical);
    assert!(checks[0].message.contains("branch 2 of 2 holds"));
}

#[test]
fn quoted_values_compare_as_text_and_numbers_as_numbers() {
    let t = plan_turn(vec![step(
        "t",
        "pay",
        json!({"account": "12", "amount": "20.00"}),
    )]);
    let quoted = exp(json!({"expectedParams": {"account": "0012"}}));
    assert!(!eval(&quoted, &t)[0].passed);
    let number = exp(json!({"expectedParams": {"amount": 20}}));
    assert!(eval(&number, &t)[0].passed);
    let text = exp(json!({"expectedParams": {"amount": "20"}}));
    assert!(!eval(&text, &t)[0].passed);
}

/// The call checks pass on the plan they describe and fail naming what they judged.
#[test]
fn call_checks_pass_and_fail_on_what_they_judge() {
    let t = plan_turn(vec![
        step("accounts", "check_balance", json!({})),
        step(
            "transfers",
            "send_money",
            json!({"recipient": "bob", "amount": 20}),
        ),
    ]);
    let ok = exp(json!({
        "expectedFunction": "send_money",
        "onlyExpectedCalls": true,
        "expectedCalls": [{"function": "check_balance"}, {"function": "send_money", "agent": "transfers", "params": {"amount": {"approx": 20, "tolerance": 0}}}],
        "order": "strict",
        "callCount": [{"function": "send_money", "eq": 1}, {"min": 2, "max": 2}],
    }));
    let checks = eval(&ok, &t);
    assert!(checks.iter().all(|c| c.passed), "{checks:#?}");
    // `expectedFunction` names only send_money here: check_balance is an extra call.
    let only = exp(json!({"expectedFunction": "send_money", "onlyExpectedCalls": true}));
    let checks = eval(&only, &t);
    assert!(
        checks[1]
            .message
            .contains("unexpected call 1 accounts.check_balance"),
        "{checks:#?}"
    );
    // Reversed order: present, but out of order; in any order it holds.
    let calls = json!([{"function": "send_money"}, {"function": "check_balance"}]);
    let strict = exp(json!({"expectedCalls": calls, "order": "strict"}));
    assert!(eval(&strict, &t)[0].message.contains("out of order"));
    let any = exp(json!({"expectedCalls": calls}));
    assert!(eval(&any, &t)[0].passed);
    // Two entries for one function need two calls.
    let twice =
        exp(json!({"expectedCalls": [{"function": "send_money"}, {"function": "send_money"}]}));
    assert!(!eval(&twice, &t)[0].passed);
}

#[test]
fn call_checks_are_validated_when_read() {
    let err = |v: serde_json::Value| {
        serde_json::from_value::<Expectations>(v)
            .expect_err("invalid")
            .to_string()
    };
    assert!(
        err(json!({"shouldContain": ["x"], "order": "strict"}))
            .contains("applies to `expectedCalls`")
    );
    assert!(
        err(json!({"expectedCalls": [{"function": "f"}], "order": "sorted"}))
            .contains("`strict` or `any`")
    );
    assert!(err(json!({"expectedCalls": []})).contains("at least one call"));
    assert!(err(json!({"callCount": {"function": "f"}})).contains("needs `eq`, `min` or `max`"));
    assert!(err(json!({"callCount": {"eq": 1, "max": 2}})).contains("not both"));
    assert!(err(json!({"callCount": {"min": 3, "max": 2}})).contains("reversed"));
    assert!(err(json!({"onlyExpectedCalls": false})).contains("remove it"));
    assert!(err(json!({"maxLatencyMs": 0})).contains("at least 1"));
    assert!(err(json!({"expectedCalls": [{"function": "f", "args": {}}]})).contains("args"));
}

#[test]
fn valid_params_needs_declared_functions_and_a_call() {
    let mut e = exp(json!({"validParams": true}));
    assert!(e.problems()[0].message.contains("declares none"));
    e.functions = Some(
        scoring::expect::FunctionSchemas::compile([(
            "transfers".to_owned(),
            "send_money".to_owned(),
            json!({"type": "object", "required": ["amount"]}),
        )])
        .expect("compiles"),
    );
    assert!(e.problems().is_empty());
    let good = plan_turn(vec![step("transfers", "send_money", json!({"amount": 5}))]);
    let checked = &eval(&e, &good)[0];
    // Without the `schema` feature the parameters cannot be judged: a failure that says so.
    if cfg!(feature = "schema") {
        assert!(checked.passed, "{}", checked.message);
    } else {
        assert!(!checked.passed);
        assert!(
            checked.message.contains("feature `schema`"),
            "{}",
            checked.message
        );
    }
    let empty = plan_turn(Vec::new());
    assert!(eval(&e, &empty)[0].message.contains("no call to validate"));
}
