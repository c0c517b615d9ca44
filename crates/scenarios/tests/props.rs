//! Property tests of expansion and selection on small random spaces.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use scenarios::{Axis, ExcludeRule, ScenarioSpace, Selection, Shard};
use serde_json::{Value, json};

/// An exclude rule as (axis, value indexes) entries.
type Rule = Vec<(usize, Vec<usize>)>;

/// Axis `i` has values `v0..v{n-1}`.
fn build(sizes: &[usize], rules: &[Rule]) -> ScenarioSpace {
    let axes = sizes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            Axis::new(
                format!("a{i}"),
                (0..*n).map(|v| json!(format!("v{v}"))).collect(),
            )
        })
        .collect();
    let excludes = rules
        .iter()
        .map(|rule| {
            ExcludeRule(
                rule.iter()
                    .map(|(axis, values)| {
                        (
                            format!("a{axis}"),
                            values
                                .iter()
                                .map(|v| json!(format!("v{v}")))
                                .collect::<Vec<Value>>(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    ScenarioSpace::new(axes, BTreeMap::new(), excludes).expect("valid space")
}

/// Random sizes, and rules whose entries name existing axes and values.
fn space_strategy() -> impl Strategy<Value = (Vec<usize>, Vec<Rule>)> {
    prop::collection::vec(1usize..5, 1..5).prop_flat_map(|sizes| {
        let n_axes = sizes.len();
        let sizes2 = sizes.clone();
        let entry = (0..n_axes).prop_flat_map(move |axis| {
            let n = sizes2[axis];
            (
                Just(axis),
                prop::collection::btree_set(0..n, 1..=n)
                    .prop_map(|s| s.into_iter().collect::<Vec<_>>()),
            )
        });
        let rule = prop::collection::vec(entry, 1..3).prop_map(|entries| {
            // One entry per axis (an ExcludeRule is a map keyed by axis).
            let mut by_axis: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for (axis, values) in entries {
                by_axis.insert(axis, values);
            }
            by_axis.into_iter().collect::<Vec<_>>()
        });
        (Just(sizes), prop::collection::vec(rule, 0..5))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn mixed_radix_is_a_bijection(sizes in prop::collection::vec(1usize..6, 0..5)) {
        let space = build(&sizes, &[]);
        let mut seen = BTreeSet::new();
        for i in 0..space.len_unfiltered() {
            let digits = space.digits(i).expect("in range");
            prop_assert_eq!(space.index_of(&digits), Some(i));
            prop_assert!(seen.insert(digits));
        }
        prop_assert_eq!(seen.len() as u64, sizes.iter().map(|n| *n as u64).product::<u64>());
        prop_assert!(space.digits(space.len_unfiltered()).is_none());
        // Distinct parameter maps give distinct ids.
        let ids: BTreeSet<String> = space.iter().map(|s| s.id).collect();
        prop_assert_eq!(ids.len() as u64, space.len_unfiltered());
    }

    #[test]
    fn count_equals_brute_force((sizes, rules) in space_strategy()) {
        let space = build(&sizes, &rules);
        let brute = (0..space.len_unfiltered())
            .filter(|i| {
                let digits = space.digits(*i).expect("in range");
                !rules.iter().any(|rule| rule.iter().all(|(axis, values)| values.contains(&digits[*axis])))
            })
            .count() as u64;
        prop_assert_eq!(space.count(), brute);
        prop_assert_eq!(space.iter().count() as u64, brute);
    }

    #[test]
    fn shards_are_disjoint_and_complete(
        (sizes, rules) in space_strategy(),
        n in 1u64..6,
        sample in prop::option::of(1u64..40),
        seed in any::<u64>(),
    ) {
        let space = build(&sizes, &rules);
        let base = Selection { sample, seed, ..Selection::default() };
        let all: Vec<u64> = space.select(&base).map(|s| s.index).collect();
        let mut union = Vec::new();
        for k in 1..=n {
            let sel = Selection { shard: Some(Shard::new(k, n).expect("valid shard")), ..base };
            let part: Vec<u64> = space.select(&sel).map(|s| s.index).collect();
            prop_assert_eq!(part.len() as u64, space.selected_count(&sel));
            union.extend(part);
        }
        prop_assert_eq!(union.len(), all.len());
        let union: BTreeSet<u64> = union.into_iter().collect();
        let all_set: BTreeSet<u64> = all.iter().copied().collect();
        prop_assert_eq!(union, all_set);
    }

    #[test]
    fn sample_is_distinct_deterministic_and_sized(
        (sizes, rules) in space_strategy(),
        n in 1u64..50,
        seed in any::<u64>(),
        limit in prop::option::of(1u64..10),
    ) {
        let space = build(&sizes, &rules);
        let sel = Selection { sample: Some(n), seed, limit, shard: None };
        let first: Vec<String> = space.select(&sel).map(|s| s.id).collect();
        let again: Vec<String> = space.select(&sel).map(|s| s.id).collect();
        prop_assert_eq!(&first, &again);
        let distinct: BTreeSet<&String> = first.iter().collect();
        prop_assert_eq!(distinct.len(), first.len());
        let expected = n.min(space.count()).min(limit.unwrap_or(u64::MAX));
        prop_assert_eq!(first.len() as u64, expected);
        prop_assert_eq!(space.selected_count(&sel), expected);
        // Every sampled scenario is a member of the filtered space.
        for s in space.select(&sel) {
            prop_assert!(space.contains(s.index));
        }
    }
}

#[test]
fn different_seeds_give_different_samples() {
    let space = build(&[10, 10, 10], &[]);
    let pick = |seed| {
        space
            .select(&Selection {
                sample: Some(20),
                seed,
                ..Selection::default()
            })
            .map(|s| s.index)
            .collect::<Vec<_>>()
    };
    assert_ne!(pick(1), pick(2));
}

#[test]
fn limit_caps_a_shard() {
    let space = build(&[4, 5], &[]);
    let sel = Selection {
        shard: Some(Shard::new(2, 3).unwrap()),
        limit: Some(2),
        ..Selection::default()
    };
    let got: Vec<u64> = space.select(&sel).map(|s| s.index).collect();
    assert_eq!(got, vec![1, 4]);
}
