//! Every check knows its place in the expectation tree (`Check::path`), and the runs of one
//! scenario are compared by that place (`RepeatSummary`): two checks sharing a name are never
//! mixed up, an `any` counts as one check whichever branch held, and a check that exists only when
//! something went wrong (a bot error) flips when some runs have it.

use scoring::expect::{Expectations, JudgeVerdicts, evaluate};
use scoring::summary::RepeatSummary;
use scoring::transcript::{BotTurn, Transcript};
use scoring::{Check, ScenarioReport, ScoreCard, ScorePolicy};
use serde_json::json;

fn exp(v: serde_json::Value) -> Expectations {
    serde_json::from_value(v).expect("valid expectations")
}

fn reply(text: &str) -> Transcript {
    let mut t = Transcript::default();
    t.push(
        "hi",
        BotTurn {
            text: text.into(),
            ..BotTurn::default()
        },
    );
    t
}

fn paths(checks: &[Check]) -> Vec<(&str, &str)> {
    checks
        .iter()
        .map(|c| (c.path.as_str(), c.name.as_str()))
        .collect()
}

fn report(checks: Vec<Check>) -> ScenarioReport {
    ScenarioReport::new(
        "s",
        "S",
        "custom",
        ScoreCard::new(checks, &ScorePolicy::default()),
    )
}

#[test]
fn leaves_combinators_and_bot_errors_have_paths() {
    let e = exp(json!({"all": [
        {"shouldContain": ["fee", "usd"], "responseType": "text"},
        {"not": {"shouldContain": ["password"]}},
        {"any": [{"shouldContain": ["nope"]}, {"shouldMention": [{"topic": "fee"}]}]},
    ]}));
    let checks = evaluate(
        &e,
        &reply("A fee of 1 USD applies."),
        &JudgeVerdicts::default(),
    );
    assert_eq!(
        paths(&checks),
        [
            ("expect.all[0].responseType", "responseType"),
            ("expect.all[0].shouldContain[0]", "shouldContain: \"fee\""),
            ("expect.all[0].shouldContain[1]", "shouldContain: \"usd\""),
            ("expect.all[1].not", "not shouldContain: \"password\""),
            (
                "expect.all[2].any[1].shouldMention",
                "shouldMention: \"fee\""
            ),
        ]
    );

    // An `any` with no holding branch is one check at the `any` itself.
    let e = exp(json!({"any": [{"shouldContain": ["nope"]}, {"shouldContain": ["never"]}]}));
    let checks = evaluate(&e, &reply("hello"), &JudgeVerdicts::default());
    assert_eq!(paths(&checks), [("expect.any", "any (2 branches)")]);

    // A turn the bot could not answer adds a check outside the tree.
    let mut t = Transcript::default();
    t.push("hi", BotTurn::failed("HTTP 500"));
    let checks = evaluate(
        &exp(json!({"shouldContain": ["x"]})),
        &t,
        &JudgeVerdicts::default(),
    );
    assert_eq!(
        paths(&checks),
        [
            ("expect.shouldContain", "shouldContain: \"x\""),
            ("bot.turn[1]", "botError @turn 1")
        ]
    );
}

#[test]
fn a_deterministic_bot_never_flips_even_with_shared_names() {
    // Two checks named `responseType`: one holds, one fails, in every run.
    let e = exp(json!({"all": [{"responseType": "text"}, {"responseType": "action"}]}));
    let mut runs = RepeatSummary::default();
    for _ in 0..3 {
        runs.add(&report(evaluate(
            &e,
            &reply("hello"),
            &JudgeVerdicts::default(),
        )));
    }
    assert!(runs.flipping().is_empty(), "{:?}", runs.flipping());
    assert_eq!((runs.passed_runs, runs.runs), (0, 3));
}

#[test]
fn flips_are_keyed_by_path_and_an_any_counts_once() {
    let e = exp(json!({"all": [
        {"shouldContain": ["fee"]},
        {"any": [{"shouldContain": ["usd"]}, {"shouldContain": ["eur"]}]},
        {"shouldNotContain": ["password"]},
    ]}));
    let mut runs = RepeatSummary::default();
    // Branch 1 holds, then branch 2 (no flip), then neither (a flip); `fee` flips too.
    for text in ["fee in usd", "fee in eur", "no charge"] {
        runs.add(&report(evaluate(
            &e,
            &reply(text),
            &JudgeVerdicts::default(),
        )));
    }
    let flips: Vec<(String, u64)> = runs
        .flipping()
        .into_iter()
        .map(|f| (f.path, f.failed_runs))
        .collect();
    assert_eq!(
        flips,
        [
            ("expect.all[0].shouldContain".to_owned(), 1),
            ("expect.all[1].any".to_owned(), 1)
        ]
    );
}

#[test]
fn a_bot_error_in_some_runs_is_a_flip() {
    let e = exp(json!({"shouldContain": ["hello"], "shouldNotContain": ["x", "y"]}));
    let mut failed = Transcript::default();
    failed.push("hi", BotTurn::failed("timed out"));
    let mut runs = RepeatSummary::default();
    runs.add(&report(evaluate(
        &e,
        &reply("hello"),
        &JudgeVerdicts::default(),
    )));
    runs.add(&report(evaluate(&e, &failed, &JudgeVerdicts::default())));
    let flips: Vec<String> = runs.flipping().into_iter().map(|f| f.path).collect();
    assert!(flips.contains(&"bot.turn[1]".to_owned()), "{flips:?}");
    assert!(
        flips.contains(&"expect.shouldContain".to_owned()),
        "{flips:?}"
    );
}

#[test]
fn min_and_median_score_over_shown_scores() {
    let e = exp(json!({"shouldContain": ["a", "b", "c", "d"]}));
    let mut runs = RepeatSummary::default();
    assert_eq!((runs.min_score(), runs.median_score()), (None, None));
    for text in ["a b c d", "a", "a b", "a b c"] {
        runs.add(&report(evaluate(
            &e,
            &reply(text),
            &JudgeVerdicts::default(),
        )));
    }
    // Scores 100, 25, 50, 75.
    assert_eq!(runs.scores, [100, 25, 50, 75]);
    assert_eq!(runs.min_score(), Some(25));
    assert_eq!(runs.median_score(), Some(62.5));
    runs.add(&report(evaluate(
        &e,
        &reply("a b c d"),
        &JudgeVerdicts::default(),
    )));
    assert_eq!(runs.median_score(), Some(75.0));
    // 100, 75, 100 reach the default threshold (70).
    assert_eq!(runs.pass_rate(), Some(0.6));
}

#[test]
fn results_without_paths_still_read_and_compare_by_name() {
    let check: Check = serde_json::from_str(
        r#"{"kind":"shouldContain","name":"shouldContain: \"a\"","weight":1,"passed":true,"message":"ok"}"#,
    )
    .expect("a check written before paths existed");
    assert!(check.path.is_empty());
    // And a check without a path serializes as before.
    assert!(
        !serde_json::to_string(&check)
            .expect("serializes")
            .contains("path")
    );
    let mut runs = RepeatSummary::default();
    runs.add(&report(vec![check.clone()]));
    runs.add(&report(vec![Check {
        passed: false,
        ..check
    }]));
    assert_eq!(runs.flipping()[0].path, "shouldContain: \"a\"");
}
