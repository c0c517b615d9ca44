//! The text rules measured on the labelled replies of `fixtures/labelled/`: at least 90%
//! accuracy per rule (an unsure answer counts as its fallback decision), on the corpus the rules
//! were improved on and on the held-out replies written afterwards. The figures are in
//! BENCHMARKS.md (`cargo run -p scoring --example rules_eval`).

use scoring::CheckKind;
use scoring::expect::{LabelledReply, RuleFigures, measure, read_labelled};

fn corpus(text: &str) -> Vec<LabelledReply> {
    read_labelled(text).expect("the labelled corpus reads")
}

fn replies() -> Vec<LabelledReply> {
    corpus(include_str!("../../../fixtures/labelled/replies.jsonl"))
}

fn heldout() -> Vec<LabelledReply> {
    corpus(include_str!("../../../fixtures/labelled/heldout.jsonl"))
}

fn assert_at_least_90(name: &str, figures: &[RuleFigures]) {
    assert_eq!(
        figures.iter().map(|f| f.kind).collect::<Vec<_>>(),
        [
            CheckKind::ShouldAskFor,
            CheckKind::ShouldReject,
            CheckKind::ShouldWarn
        ]
    );
    for f in figures {
        assert!(
            f.accuracy() >= 0.90,
            "{name}: {} accuracy {:.3} < 0.90 ({f:?})",
            f.kind,
            f.accuracy()
        );
    }
}

#[test]
fn the_corpus_is_large_and_labels_every_kind_both_ways() {
    let all = replies();
    assert!(all.len() >= 150, "{} replies", all.len());
    let mut ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "ids are unique");
    for (kind, label) in [
        ("asks", all.iter().filter(|r| r.asks_clarification).count()),
        ("refuses", all.iter().filter(|r| r.refuses).count()),
        ("warns", all.iter().filter(|r| r.warns).count()),
    ] {
        assert!(
            label >= 40 && all.len() - label >= 40,
            "{kind}: {label} yes of {}",
            all.len()
        );
    }
}

#[test]
fn each_rule_is_at_least_90_percent_accurate_on_the_corpus() {
    let (figures, _) = measure(&replies());
    assert_at_least_90("replies.jsonl", &figures);
}

#[test]
fn each_rule_is_at_least_90_percent_accurate_on_held_out_replies() {
    let (figures, _) = measure(&heldout());
    assert_at_least_90("heldout.jsonl", &figures);
}

#[test]
fn the_issues_misjudged_replies_are_decided_right() {
    let (figures, misses) = measure(&replies());
    let total = figures[0].total();
    assert_eq!(total, replies().len());
    for id in [
        "ask-015",
        "refuse-001",
        "negative-004",
        "negative-001",
        "negative-002",
    ] {
        assert!(
            misses.iter().all(|m| m.id != id),
            "{id} is misjudged: {misses:?}"
        );
    }
}

#[test]
fn figures_are_consistent() {
    let (figures, misses) = measure(&replies());
    for f in &figures {
        let wrong = f.false_pos + f.false_neg;
        assert_eq!(misses.iter().filter(|m| m.kind == f.kind).count(), wrong);
        assert!(f.unsure_right <= f.unsure);
        assert!((0.0..=1.0).contains(&f.precision()) && (0.0..=1.0).contains(&f.recall()));
        assert!(
            f.unsure_rate() <= 0.15,
            "{}: unsure rate {}",
            f.kind,
            f.unsure_rate()
        );
    }
}
