//! Property tests of the score maths: card scores stay in 0..=100, ignore check order, reach 100
//! when everything passes and never drop when a passing check is added; the judge average lies
//! between its smallest and largest input; weight validation accepts exactly the valid maps.

use proptest::prelude::*;
use scoring::{Check, CheckKind, JudgeWeights, ScoreCard, ScorePolicy, WeightError};
use std::collections::BTreeMap;

fn kind() -> impl Strategy<Value = CheckKind> {
    prop::sample::select(CheckKind::ALL.to_vec())
}

fn check() -> impl Strategy<Value = Check> {
    (kind(), 0u32..=10, any::<bool>(), any::<bool>()).prop_map(
        |(kind, weight, passed, critical)| {
            let mut c = Check::new(kind, kind.as_str(), passed, "m").with_weight(weight);
            c.critical = critical;
            c
        },
    )
}

fn checks() -> impl Strategy<Value = Vec<Check>> {
    prop::collection::vec(check(), 0..12)
}

fn policy() -> impl Strategy<Value = ScorePolicy> {
    (
        0u32..=100,
        any::<bool>(),
        prop::collection::btree_map(kind(), 0u32..=5, 0..4),
    )
        .prop_map(|(threshold, strict, weight_overrides)| ScorePolicy {
            threshold,
            strict,
            weight_overrides,
        })
}

proptest! {
    #[test]
    fn score_is_a_percentage(checks in checks(), policy in policy()) {
        let card = ScoreCard::new(checks, &policy);
        prop_assert!(card.score() <= 100);
        prop_assert_eq!(card.passed(), card.reasons().is_empty());
    }

    #[test]
    fn order_does_not_matter(
        (original, shuffled) in checks().prop_flat_map(|c| (Just(c.clone()), Just(c).prop_shuffle())),
        policy in policy(),
    ) {
        let a = ScoreCard::new(original, &policy);
        let b = ScoreCard::new(shuffled, &policy);
        prop_assert_eq!(a.score(), b.score());
        prop_assert_eq!(a.passed(), b.passed());
        prop_assert_eq!(a.show_score(), b.show_score());
        prop_assert_eq!(a.counted_checks(), b.counted_checks());
    }

    #[test]
    fn all_pass_scores_100(mut checks in prop::collection::vec(check(), 1..12)) {
        for c in &mut checks {
            c.passed = true;
            c.weight = c.weight.max(1);
        }
        let card = ScoreCard::new(checks, &ScorePolicy { threshold: 100, strict: true, ..ScorePolicy::default() });
        prop_assert_eq!(card.score(), 100);
        prop_assert!(card.passed());
    }

    #[test]
    fn a_passing_check_never_lowers_the_score(checks in checks(), extra in check(), policy in policy()) {
        let before = ScoreCard::new(checks.clone(), &policy);
        let mut more = checks;
        more.push(Check { passed: true, ..extra });
        let after = ScoreCard::new(more, &policy);
        // An empty or all-zero card has score 0 by definition; from there, any score is higher.
        prop_assert!(after.score() >= before.score(), "{} < {}", after.score(), before.score());
    }

    #[test]
    fn weighted_average_lies_between_min_and_max(
        entries in prop::collection::btree_map("[a-z]{1,8}", (0.0f64..=5.0, 0.0f64..=10.0), 1..8),
    ) {
        prop_assume!(entries.values().any(|(w, _)| *w > 0.0));
        let weights: BTreeMap<String, f64> = entries.iter().map(|(k, (w, _))| (k.clone(), *w)).collect();
        let scores: scoring::JudgeScores = entries.iter().map(|(k, (_, s))| (k.clone().into(), *s)).collect();
        let counted: Vec<f64> = entries.values().filter(|(w, _)| *w > 0.0).map(|(_, s)| *s).collect();
        let min = counted.iter().copied().fold(f64::INFINITY, f64::min);
        let max = counted.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let avg = JudgeWeights::new(weights).expect("valid weights").weighted_score(&scores).expect("all scored");
        // Rounding in Σw·s/Σw can overshoot by a few ulps.
        let eps = 1e-9;
        prop_assert!(avg >= min - eps && avg <= max + eps, "{avg} not in [{min}, {max}]");
    }

    #[test]
    fn weight_validation_accepts_exactly_valid_maps(
        weights in prop::collection::btree_map(
            "[a-z]{1,6}",
            prop_oneof![
                4 => 0.0f64..=2.0,
                1 => -2.0f64..0.0,
                1 => Just(0.0),
                1 => Just(f64::NAN),
                1 => Just(f64::INFINITY),
            ],
            0..6,
        ),
    ) {
        let valid_each = weights.values().all(|w| w.is_finite() && *w >= 0.0);
        let some_positive = weights.values().any(|w| *w > 0.0);
        match JudgeWeights::new(weights.clone()) {
            Ok(w) => {
                prop_assert!(valid_each && some_positive);
                prop_assert_eq!(w.0, weights);
            }
            Err(WeightError::Negative(name)) => {
                let w = weights[&name];
                prop_assert!(!w.is_finite() || w < 0.0);
            }
            Err(WeightError::AllZero) => prop_assert!(valid_each && !some_positive),
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}
