//! Evaluation of expectations against transcripts: the seed's worked example through the score
//! card, every check's pass and fail message, logical operators, critical/strict, turn targeting,
//! bot errors, signals vs rules vs judge verdicts.

use scoring::expect::{Expectations, JudgeVerdict, JudgeVerdicts, evaluate, judge_questions};
use scoring::transcript::{BotTurn, PlanStep, ResponseType, Signals, Transcript};
use scoring::{Check, CheckKind, ScoreCard, ScorePolicy};
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

fn one_turn(turn: BotTurn) -> Transcript {
    let mut t = Transcript::default();
    t.push("Send 50 USD to Alice", turn);
    t
}

fn send_turn() -> BotTurn {
    BotTurn {
        text: "Sending 50 USD to Alice.".into(),
        plan: vec![step(
            "transfers",
            "send_money",
            json!({"recipient": "Alice", "amount": 50}),
        )],
        ..BotTurn::default()
    }
}

fn by_kind(checks: &[Check], kind: CheckKind) -> &Check {
    checks
        .iter()
        .find(|c| c.kind == kind)
        .expect("a check of this kind")
}

fn eval(e: &Expectations, t: &Transcript) -> Vec<Check> {
    evaluate(e, t, &JudgeVerdicts::default())
}

#[test]
fn seed_worked_example_scores_83_through_the_card() {
    let e = exp(
        json!({"expectedFunction": "send_money", "responseType": "action", "shouldContain": ["fee"]}),
    );
    let checks = eval(&e, &one_turn(send_turn()));
    let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["expectedFunction", "responseType", "shouldContain: \"fee\""]
    );
    assert_eq!(
        checks.iter().map(|c| c.weight).collect::<Vec<_>>(),
        [3, 2, 1]
    );
    let card = ScoreCard::new(checks, &ScorePolicy::default());
    assert_eq!(card.score(), 83);
    assert!(card.show_score());
    assert!(card.passed());
}

#[test]
fn fewer_than_three_checks_hide_the_score() {
    let e = exp(json!({"expectedFunction": "send_money", "shouldContain": ["fee"]}));
    let card = ScoreCard::new(eval(&e, &one_turn(send_turn())), &ScorePolicy::default());
    assert!(!card.show_score());
    assert!(!card.all_checks_passed());
}

/// Every check kind, once passing and once failing, with its message: the Check Details lines.
#[test]
fn every_check_has_a_pass_and_a_fail_message() {
    let good = one_turn(BotTurn {
        text:
            "Sending 50 USD to Alice. Careful: a 1% fee applies. How much would you like to send next?"
                .into(),
        plan: vec![step(
            "transfers",
            "send_money",
            json!({"recipient": "Alice", "amount": 50}),
        )],
        outcome: Some(json!({"status": "ok"})),
        ..BotTurn::default()
    });
    let bad = one_turn(BotTurn::text(
        "I'm sorry, but I can't help with that password.",
    ));
    let e = exp(json!({
        "expectedFunction": "send_money",
        "responseType": "action",
        "expectedAgent": "transfers",
        "expectedParams": {"amount": 50, "recipient": "alice"},
        "shouldAskFor": ["amount"],
        "shouldWarn": ["fee"],
        "shouldReject": false,
        "customValidator": {"path": "/outcome/status", "op": "eq", "value": "ok"},
        "shouldContain": ["fee"],
        "shouldNotContain": ["password"],
        "shouldMention": [{"topic": "fee"}]
    }));
    // Sorted by name: json! objects may or may not keep key order depending on serde_json features.
    let render = |checks: Vec<Check>| {
        let mut lines: Vec<String> = checks
            .iter()
            .map(|c| {
                format!(
                    "{} {} (w{}): {}",
                    if c.passed { "✓" } else { "✗" },
                    c.name,
                    c.weight,
                    c.message
                )
            })
            .collect();
        lines.sort();
        lines.join("\n")
    };
    let passing = eval(&e, &good);
    assert!(
        passing.iter().all(|c| c.passed),
        "{}",
        render(passing.clone())
    );
    let failing = eval(&e, &bad);
    assert!(
        failing.iter().all(|c| !c.passed),
        "{}",
        render(failing.clone())
    );
    insta::assert_snapshot!(
        "check_messages",
        format!("{}\n---\n{}", render(passing), render(failing))
    );
}

#[test]
fn params_need_every_key_on_the_same_call() {
    let t = one_turn(BotTurn {
        plan: vec![
            step(
                "transfers",
                "send_money",
                json!({"recipient": "alice", "amount": 10}),
            ),
            step(
                "transfers",
                "send_money",
                json!({"recipient": "bob", "amount": 50}),
            ),
        ],
        ..BotTurn::default()
    });
    let split = exp(json!({"expectedParams": {"recipient": "alice", "amount": 50}}));
    let checks = eval(&split, &t);
    assert!(
        !checks[0].passed,
        "keys satisfied by different calls must not pass"
    );
    let same = exp(json!({"expectedParams": {"recipient": "bob", "amount": 50.0}}));
    assert!(eval(&same, &t)[0].passed);
}

#[test]
fn params_compare_exactly() {
    let t = one_turn(BotTurn {
        plan: vec![step("t", "send", json!({"amount": 10, "memo": null}))],
        ..BotTurn::default()
    });
    assert!(!eval(&exp(json!({"expectedParams": {"amount": 1}})), &t)[0].passed);
    assert!(!eval(&exp(json!({"expectedParams": {"amount": "1"}})), &t)[0].passed);
    assert!(eval(&exp(json!({"expectedParams": {"memo": null}})), &t)[0].passed);
    assert!(
        eval(&exp(json!({"expectedParams": {"currency": null}})), &t)[0].passed,
        "absent = null"
    );
    assert!(!eval(&exp(json!({"expectedParams": {"amount": null}})), &t)[0].passed);
    // `contains` and `matches` are text operators: the number 10 is not text containing "1".
    for op in [json!({"contains": "1"}), json!({"matches": "^1"})] {
        assert!(!eval(&exp(json!({"expectedParams": {"amount": op}})), &t)[0].passed);
    }
}

#[test]
fn params_are_scoped_to_the_declared_function() {
    let t = one_turn(BotTurn {
        plan: vec![
            step("balances", "get_balance", json!({"amount": 50})),
            step("transfers", "send_money", json!({"amount": 5})),
        ],
        ..BotTurn::default()
    });
    let e = exp(json!({"expectedFunction": "send_money", "expectedParams": {"amount": 50}}));
    let checks = eval(&e, &t);
    assert!(checks[0].passed);
    assert!(!checks[1].passed, "{}", checks[1].message);
}

#[test]
fn any_is_scored_as_its_best_branch() {
    let e = exp(json!({"any": [
        {"expectedFunction": "get_balance", "expectedAgent": "balances", "responseType": "text"},
        {"expectedFunction": "send_money"}
    ]}));
    let checks = eval(&e, &one_turn(send_turn()));
    assert_eq!(checks.len(), 1);
    assert!(checks[0].passed);
    assert!(checks[0].message.contains("branch 2 of 2"));
    assert_eq!(ScoreCard::new(checks, &ScorePolicy::default()).score(), 100);
}

#[test]
fn all_keeps_every_check_and_not_inverts() {
    let e = exp(json!({"all": [
        {"expectedFunction": "send_money"},
        {"not": {"shouldContain": ["error"]}},
        {"not": {"expectedFunction": "send_money", "expectedAgent": "transfers"}}
    ]}));
    let checks = eval(&e, &one_turn(send_turn()));
    assert_eq!(checks.len(), 3);
    assert!(checks[0].passed);
    assert_eq!(checks[1].name, "not shouldContain: \"error\"");
    assert!(checks[1].passed);
    // json! objects are key-sorted (YAML keeps the written order), so either order may appear.
    assert!(checks[2].name.starts_with("not (") && checks[2].name.contains("expectedAgent"));
    assert!(
        !checks[2].passed,
        "both inner checks held, so the negation fails"
    );
}

#[test]
fn critical_and_strict_fail_a_high_score() {
    let e = exp(json!({"all": [
        {"expectedFunction": "send_money", "responseType": "action"},
        {"expectedParams": {"recipient": "bob"}, "critical": true}
    ]}));
    let checks = eval(&e, &one_turn(send_turn()));
    assert!(checks[2].critical);
    let card = ScoreCard::new(checks, &ScorePolicy::default());
    assert_eq!(card.score(), 71);
    assert!(!card.passed(), "a failed critical check fails the scenario");

    let soft = exp(
        json!({"expectedFunction": "send_money", "responseType": "action", "shouldContain": ["fee"]}),
    );
    let strict = ScorePolicy {
        strict: true,
        ..ScorePolicy::default()
    };
    let card = ScoreCard::new(eval(&soft, &one_turn(send_turn())), &strict);
    assert_eq!(card.score(), 83);
    assert!(!card.passed(), "strict mode fails on any failed check");
}

#[test]
fn weights_come_from_the_check_then_the_suite_then_the_seed() {
    let mut e = exp(json!({"all": [
        {"shouldContain": ["USD"], "weight": 5},
        {"shouldMention": ["alice"]},
        {"expectedFunction": "send_money"}
    ]}));
    e.defaults.weights.insert(CheckKind::ShouldMention, 4);
    e.defaults.critical.insert(CheckKind::ExpectedFunction);
    let checks = eval(&e, &one_turn(send_turn()));
    assert_eq!(
        checks.iter().map(|c| c.weight).collect::<Vec<_>>(),
        [5, 4, 3]
    );
    assert!(checks[2].critical);
}

#[test]
fn turns_can_be_targeted() {
    let mut t = Transcript::default();
    t.push(
        "Send money to Alice",
        BotTurn::text("How much would you like to send?"),
    );
    t.push("50 USD", send_turn());
    let e = exp(json!({"all": [
        {"turn": 1, "responseType": "clarification", "shouldAskFor": ["amount"]},
        {"expectedFunction": "send_money"},
        {"turn": "any", "shouldContain": ["how much"]},
        {"turn": 3, "shouldContain": ["done"]}
    ]}));
    let checks = eval(&e, &t);
    let summary: Vec<(&str, bool)> = checks.iter().map(|c| (c.name.as_str(), c.passed)).collect();
    assert_eq!(
        summary,
        [
            ("responseType @turn 1", true),
            ("shouldAskFor: \"amount\" @turn 1", true),
            ("expectedFunction", true),
            ("shouldContain: \"how much\" @any turn", true),
            ("shouldContain: \"done\" @turn 3", false),
        ]
    );
    assert!(checks[4].message.contains("turn 3 was not reached"));
}

#[test]
fn a_bot_error_is_never_a_pass() {
    let t = one_turn(BotTurn::failed("timed out after 100 ms"));
    let e = exp(json!({"shouldNotContain": ["error"], "shouldReject": false}));
    let checks = eval(&e, &t);
    assert!(checks.iter().all(|c| !c.passed), "{checks:?}");
    let error_check = checks.last().expect("a bot error check");
    assert!(error_check.critical);
    assert!(error_check.message.contains("timed out after 100 ms"));
    assert!(!ScoreCard::new(checks, &ScorePolicy::default()).passed());
}

#[test]
fn signals_override_rules_and_say_so() {
    let turn = BotTurn {
        text: "How much would you like to send?".into(),
        signals: Signals {
            asks_for: vec!["recipient".into()],
            warnings: vec![],
            rejected: Some(false),
            present: true,
        },
        ..BotTurn::default()
    };
    let e = exp(json!({"shouldAskFor": ["amount", "recipient"], "shouldReject": false}));
    let checks = eval(&e, &one_turn(turn));
    assert!(
        !checks[0].passed,
        "the signal says the bot asks only for the recipient"
    );
    assert!(
        checks[0]
            .message
            .contains("(signal: asks_for [\"recipient\"])")
    );
    assert!(checks[1].passed);
    assert!(checks[2].message.contains("signal: rejected = false"));
}

#[test]
fn keyword_rules_handle_the_known_misjudgements() {
    let ask = one_turn(BotTurn::text("How much would you like to send?"));
    let checks = eval(
        &exp(json!({"shouldAskFor": ["amount"], "responseType": "clarification"})),
        &ask,
    );
    assert!(checks.iter().all(|c| c.passed), "{checks:?}");
    assert!(
        by_kind(&checks, CheckKind::ShouldAskFor)
            .message
            .contains("(rule:")
    );

    let no_charge = one_turn(BotTurn::text("Done. You won't be charged for this."));
    let checks = eval(
        &exp(json!({"shouldReject": false, "responseType": "text"})),
        &no_charge,
    );
    assert!(checks.iter().all(|c| c.passed), "{checks:?}");
}

#[test]
fn judge_verdicts_decide_when_given_and_questions_match_them() {
    // Every rule is unsure about this reply, so the judge is asked all three. (The warning rule
    // reads a warning whose only mention of the fee is negated, "waived": a reasoned doubt,
    // which no classifier settles, whatever its bands.)
    let reply =
        "Sorry, I am unable to find it. Warning: the fee was waived today. Which one do you mean?";
    let t = one_turn(BotTurn::text(reply));
    let e = exp(json!({"shouldAskFor": ["amount"], "shouldWarn": ["fee"], "shouldReject": true}));
    let questions = judge_questions(&e, &t);
    let mut ids: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "shouldAskFor:amount@1",
            "shouldReject@1",
            "shouldWarn:fee@1"
        ]
    );
    assert!(questions.iter().all(|q| q.reply == reply && q.turn == 1));
    let mut verdicts = JudgeVerdicts::default();
    verdicts.0.insert(
        "shouldAskFor:amount@1".into(),
        JudgeVerdict {
            holds: true,
            reason: "asks for the sum".into(),
        },
    );
    let checks = evaluate(&e, &t, &verdicts);
    let ask = by_kind(&checks, CheckKind::ShouldAskFor);
    assert!(ask.passed);
    assert!(ask.message.contains("llm judge: asks for the sum"));
    assert!(!ask.low_confidence, "the judge decided");
    let warn = by_kind(&checks, CheckKind::ShouldWarn);
    assert!(
        warn.message.contains("warns without naming"),
        "no verdict: the unsure rule decides: {}",
        warn.message
    );
    // A reasoned doubt: unsure, and the rule's guess (no warning) decides.
    assert!(!warn.passed && warn.low_confidence, "{warn:?}");
    let reject = by_kind(&checks, CheckKind::ShouldReject);
    // Unsure, and the reply asks something ("Which one do you mean?"): guess no.
    assert!(!reject.passed && reject.low_confidence, "{reject:?}");
    assert!(reject.message.contains("decided no"), "{}", reject.message);
}

#[test]
fn the_judge_is_asked_only_what_the_rules_are_unsure_about() {
    let sure = one_turn(BotTurn::text(
        "I can't help with that. Warning: a 1% fee applies to every transfer.",
    ));
    let e = exp(json!({"shouldWarn": ["fee"], "shouldReject": true}));
    assert_eq!(judge_questions(&e, &sure), Vec::new());
    let asks = one_turn(BotTurn::text("How much would you like to send?"));
    let ask = exp(json!({"shouldAskFor": ["amount"]}));
    assert_eq!(judge_questions(&ask, &asks), Vec::new());
    assert!(eval(&ask, &asks)[0].passed && !eval(&ask, &asks)[0].low_confidence);
    let checks = eval(&e, &sure);
    assert!(
        checks.iter().all(|c| c.passed && !c.low_confidence),
        "{checks:?}"
    );
    let json = serde_json::to_value(&checks[0]).expect("a check serializes");
    assert!(
        json.get("low_confidence").is_none(),
        "only written when true: {json}"
    );
    let unsure = one_turn(BotTurn::text("There is a 1% fee."));
    let ids: Vec<String> = judge_questions(&exp(json!({"shouldWarn": ["fee"]})), &unsure)
        .into_iter()
        .map(|q| q.id)
        .collect();
    assert_eq!(ids, ["shouldWarn:fee@1"]);
    let checks = eval(&exp(json!({"shouldWarn": ["fee"]})), &unsure);
    assert!(checks[0].passed && checks[0].low_confidence);
    let json = serde_json::to_value(&checks[0]).expect("a check serializes");
    assert_eq!(json["low_confidence"], json!(true));
}

#[test]
fn response_type_declared_by_the_bot_wins() {
    let turn = BotTurn {
        response_type: Some(ResponseType::Error),
        ..BotTurn::text("Oops")
    };
    let checks = eval(&exp(json!({"responseType": "error"})), &one_turn(turn));
    assert!(checks[0].passed);
    assert!(checks[0].message.contains("declared by the bot"));
}

#[test]
fn custom_validators_read_the_outcome_and_wildcards() {
    let turn = BotTurn {
        plan: vec![
            step("t", "send", json!({"amount": 5})),
            step("t", "send", json!({"amount": 500})),
        ],
        outcome: Some(json!({"status": "executed", "fee": 0.5})),
        ..BotTurn::default()
    };
    let t = one_turn(turn);
    let e = exp(json!({"customValidator": [
        {"path": "/outcome/fee", "op": "lte", "value": 1},
        {"path": "/plan/*/params/amount", "op": "gt", "value": 100, "quantifier": "some", "description": "some call above 100"},
        {"path": "/plan/2", "op": "absent"},
        {"path": "/outcome/status", "op": "in", "value": ["failed"]}
    ]}));
    let checks = eval(&e, &t);
    assert_eq!(
        checks.iter().map(|c| c.passed).collect::<Vec<_>>(),
        [true, true, true, false]
    );
    assert_eq!(checks[1].name, "customValidator: \"some call above 100\"");
    assert!(checks[3].message.contains("\"executed\""));
}

#[test]
fn an_inferred_response_type_resting_on_an_unsure_refusal_is_low_confidence() {
    // Failing to find is not refusing, but "I'm afraid" leans that way: unsure, guess yes.
    let unsure = one_turn(BotTurn::text(
        "I can't find any booking under that name, I'm afraid.",
    ));
    let checks = eval(&exp(json!({"responseType": "rejection"})), &unsure);
    assert!(checks[0].passed && checks[0].low_confidence, "{checks:?}");
    assert!(
        checks[0].message.contains("decided yes"),
        "{}",
        checks[0].message
    );
    let sure = one_turn(BotTurn::text("How much would you like to send?"));
    let checks = eval(&exp(json!({"responseType": "clarification"})), &sure);
    assert!(checks[0].passed && !checks[0].low_confidence, "{checks:?}");
}
