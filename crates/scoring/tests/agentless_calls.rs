//! A call that names no agent may be on any agent (review 25i, finding 8). Every check that names
//! an agent — `expectedFunction` with `expectedAgent`, `expectedCalls` with an `agent`,
//! `expectedParams` scoped to an agent, `onlyExpectedCalls` — fails only low-confidence where an
//! agent-less call may be the agent's, so `not: {…}` over it passes low-confidence, never surely.
//! Calls that name another agent keep the sure verdicts. Likewise a parameter that passes `ne`
//! or `notIn` only by look-alike letters (review 25j) passes low-confidence.

use scoring::expect::{Expectations, JudgeVerdicts, evaluate};
use scoring::transcript::{BotTurn, PlanStep, Transcript};
use serde_json::{Value, json};

fn call(agent: &str, function: &str, params: Value) -> PlanStep {
    PlanStep {
        agent: agent.into(),
        function: function.into(),
        params: params.as_object().cloned().unwrap_or_default(),
    }
}

/// Whether `expect` passes on a one-turn transcript of `plan`, and whether every check is sure.
fn outcome(expect: Value, plan: Vec<PlanStep>) -> (bool, bool) {
    let e: Expectations = serde_json::from_value(expect.clone()).expect("valid expectations");
    let mut t = Transcript::default();
    t.push(
        "Send 5 USD to Bob",
        BotTurn {
            text: "Sent.".into(),
            plan,
            ..BotTurn::default()
        },
    );
    let checks = evaluate(&e, &t, &JudgeVerdicts::default());
    assert!(!checks.is_empty(), "{expect}");
    (
        checks.iter().all(|c| c.passed),
        checks.iter().all(|c| !c.low_confidence),
    )
}

/// One call of `send_money` that names no agent.
fn agentless_plan() -> Vec<PlanStep> {
    vec![call(
        "",
        "send_money",
        json!({"recipient": "bob", "amount": 5}),
    )]
}

#[test]
fn negated_agent_checks_over_an_agentless_call_pass_unsure() {
    for expect in [
        // c11, c13, c121, c120
        json!({"all": [{"expectedFunction": "send_money"}, {"not": {"expectedAgent": "payouts"}}]}),
        json!({"not": {"expectedFunction": "send_money", "expectedAgent": "payouts"}}),
        json!({"not": {"all": [{"expectedFunction": "send_money"}, {"expectedAgent": "payouts"}]}}),
        json!({"not": {"expectedCalls": [{"function": "send_money", "agent": "payouts"}]}}),
        json!({"not": {"expectedCalls": [{"function": "send_money", "agent": "payouts"}],
                        "order": "strict"}}),
    ] {
        let (passed, sure) = outcome(expect.clone(), agentless_plan());
        assert!(passed && !sure, "{expect}: passed {passed}, sure {sure}");
    }
}

#[test]
fn agent_checks_that_an_agentless_call_may_meet_fail_unsure() {
    for expect in [
        json!({"expectedFunction": "send_money", "expectedAgent": "payouts"}),
        json!({"expectedCalls": [{"function": "send_money", "agent": "payouts"}]}),
        json!({"expectedCalls": [{"function": "send_money", "agent": "payouts",
                                  "params": {"recipient": "bob"}}]}),
    ] {
        let (passed, sure) = outcome(expect.clone(), agentless_plan());
        assert!(!passed && !sure, "{expect}: passed {passed}, sure {sure}");
    }
}

/// c122: the agent scopes `expectedParams` to `transfers`' calls, and an agent-less call pays
/// Mallory 500: "no call pays Mallory" cannot be sure.
#[test]
fn params_scoped_to_an_agent_doubt_an_agentless_call_that_meets_them() {
    let plan = || {
        vec![
            call(
                "transfers",
                "send_money",
                json!({"recipient": "bob", "amount": 5}),
            ),
            call(
                "",
                "send_money",
                json!({"recipient": "mallory", "amount": 500}),
            ),
        ]
    };
    let expect = json!({"all": [
        {"expectedFunction": "send_money", "expectedAgent": "transfers"},
        {"not": {"expectedParams": {"recipient": "mallory"}}}
    ]});
    let (passed, sure) = outcome(expect.clone(), plan());
    assert!(!sure, "{expect}: passed {passed}, sure {sure}");
    // The agent-less call does not pay Carol: the negation stays sure.
    let expect = json!({"all": [
        {"expectedFunction": "send_money", "expectedAgent": "transfers"},
        {"not": {"expectedParams": {"recipient": "carol"}}}
    ]});
    assert_eq!(outcome(expect, plan()), (true, true));
}

#[test]
fn only_expected_calls_doubts_an_agentless_call_of_an_expected_function() {
    let expect = json!({"expectedCalls": [{"function": "send_money", "agent": "transfers"}],
                        "onlyExpectedCalls": true});
    let plan = vec![
        call("transfers", "send_money", json!({"recipient": "bob"})),
        call("", "send_money", json!({"recipient": "bob"})),
    ];
    let (passed, sure) = outcome(expect.clone(), plan);
    assert!(!passed && !sure, "{expect}: passed {passed}, sure {sure}");
    // An agent-less call of a function nobody expected is surely unexpected.
    let plan = vec![
        call("transfers", "send_money", json!({"recipient": "bob"})),
        call("", "delete_account", json!({})),
    ];
    assert_eq!(outcome(expect, plan), (false, true));
}

#[test]
fn calls_on_another_agent_keep_sure_verdicts() {
    let other = || vec![call("transfers", "send_money", json!({"recipient": "bob"}))];
    for expect in [
        json!({"not": {"expectedFunction": "send_money", "expectedAgent": "payouts"}}),
        json!({"not": {"expectedCalls": [{"function": "send_money", "agent": "payouts"}]}}),
        json!({"all": [{"expectedFunction": "send_money"}, {"not": {"expectedAgent": "payouts"}}]}),
    ] {
        assert_eq!(outcome(expect.clone(), other()), (true, true), "{expect}");
    }
    assert_eq!(
        outcome(
            json!({"expectedFunction": "send_money", "expectedAgent": "payouts"}),
            other()
        ),
        (false, true)
    );
}

/// Review 25j: `notIn: [mallory]` passed, sure, on "mаllory" with a Cyrillic `а`, which a reader
/// sees as the excluded name. The pass is now low-confidence; another name stays sure.
#[test]
fn an_excluded_value_written_with_look_alike_letters_is_no_sure_pass() {
    let expect = || {
        json!({"expectedFunction": "send_money",
               "expectedParams": {"recipient": {"notIn": ["mallory"]}}})
    };
    let plan = |who: &str| vec![call("transfers", "send_money", json!({"recipient": who}))];
    let (passed, sure) = outcome(expect(), plan("m\u{0430}llory"));
    assert!(passed && !sure, "passed {passed}, sure {sure}");
    assert_eq!(outcome(expect(), plan("bob")), (true, true));
    let ne = json!({"expectedFunction": "send_money",
                    "expectedParams": {"recipient": {"ne": "mallory"}}});
    let (passed, sure) = outcome(ne, plan("m\u{0430}llory"));
    assert!(passed && !sure, "passed {passed}, sure {sure}");
}
