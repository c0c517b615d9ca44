//! The serialized shape of run and suite summaries, snapshotted: the CLI's tables and the HTML
//! report read these field names, so a change to them must show up in review.

use scoring::summary::{RecordFacts, RunSummary, SuiteSummary};
use scoring::{Check, CheckKind, ScenarioReport, ScoreCard, ScorePolicy};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One record's data, owned so `RecordFacts` can borrow it.
struct Record {
    params: BTreeMap<String, Value>,
    judges: scoring::JudgeScores,
    score: Option<f64>,
    failed: bool,
    refine_count: u32,
}

fn record(
    topic: &str,
    level: Value,
    score: Option<f64>,
    failed: bool,
    refine_count: u32,
) -> Record {
    let params = BTreeMap::from([
        ("topic".to_owned(), json!(topic)),
        ("cs_level".to_owned(), level),
    ]);
    let judges = score
        .map(|s| BTreeMap::from([("fluency".into(), s + 0.5), ("naturalness".into(), s - 0.5)]))
        .unwrap_or_default();
    Record {
        params,
        judges,
        score,
        failed,
        refine_count,
    }
}

#[test]
fn run_summary_shape() {
    let records = [
        record(
            "travel",
            json!({"ratio": 0.3, "kind": "intra"}),
            Some(8.5),
            false,
            0,
        ),
        record(
            "travel",
            json!({"kind": "intra", "ratio": 0.3}),
            Some(7.0),
            false,
            2,
        ),
        record("food", json!("low"), Some(9.25), false, 1),
        record("food", json!("low"), None, true, 0),
    ];
    let mut summary = RunSummary::default();
    for r in &records {
        summary.add(&RecordFacts {
            params: &r.params,
            score: r.score,
            accepted: r.score.is_some_and(|s| s >= 8.0),
            failed: r.failed,
            judge_scores: &r.judges,
            refine_count: r.refine_count,
        });
    }
    // Both orderings of the object value land on one key.
    assert_eq!(summary.params["cs_level"].len(), 2);
    insta::assert_json_snapshot!("run_summary", summary);
    insta::assert_json_snapshot!("run_summary_lowest_2", summary.lowest(2));
}

#[test]
fn suite_summary_shape() {
    let policy = ScorePolicy::default();
    let reports = [
        ScenarioReport::new(
            "a",
            "A",
            "happy-path",
            ScoreCard::new(
                vec![
                    Check::pass(CheckKind::ExpectedFunction, "expectedFunction", "ok"),
                    Check::pass(CheckKind::ResponseType, "responseType", "ok"),
                    Check::fail(CheckKind::ShouldContain, "shouldContain: \"fee\"", "absent"),
                ],
                &policy,
            ),
        ),
        ScenarioReport::new(
            "b",
            "B",
            "adversarial",
            ScoreCard::new(
                vec![
                    Check {
                        low_confidence: true,
                        ..Check::fail(CheckKind::ShouldReject, "shouldReject", "complied")
                    },
                    Check::fail(CheckKind::ShouldContain, "shouldContain: \"fee\"", "absent"),
                ],
                &policy,
            ),
        ),
    ];
    let mut suite = SuiteSummary::default();
    for report in &reports {
        suite.add(report);
    }
    // The suite's unsure verdicts: what `--judge llm` would decide instead (issue 25).
    assert_eq!((suite.checks, suite.low_confidence), (5, 1));
    assert_eq!(suite.unsure_rate(), Some(0.2));
    insta::assert_json_snapshot!("suite_summary", suite);
    insta::assert_json_snapshot!("suite_most_failed", suite.most_failed(1));
}
