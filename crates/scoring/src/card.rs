//! Score cards: the verdict on one scenario from its evaluated checks. This module owns the score
//! formula and its rounding, the seed's visibility rule (a score is shown only with 3 or more
//! counted checks), the pass rule (threshold, critical checks, strict mode) and the reasons a card
//! fails. It is pure: no I/O, no clock, the same checks and policy always give the same card.
//!
//! # Rules
//! - **Effective weight**: a policy override for the check's kind replaces the check's own weight;
//!   the card stores the checks with their effective weights, so a report shows what was counted.
//! - **Score** = round(Σ weight·(passed ? 100 : 0) / Σ weight), computed exactly in integers and
//!   rounded **half up** (500/6 = 83.33 → 83, 87.5 → 88, 12.5 → 13). The threshold is compared
//!   with this rounded score, so a printed 70 always passes a threshold of 70.
//! - **Weight 0**: the check is kept and shown but not counted in the score nor in the number of
//!   checks of the visibility rule. Weights change the score only: a failed critical check, or any
//!   failed check in strict mode, fails the card even at weight 0.
//! - **Nothing to score**: with zero checks, or when every weight is 0, the score is 0 and the card
//!   fails with [`FailReason::NoChecks`] or [`FailReason::NothingWeighted`] whatever the threshold,
//!   because a scenario that verifies nothing must not pass silently.
//! - **Passed** = score ≥ threshold, no failed critical check, and in strict mode no failed check.
//!   Every rule that is broken is listed in [`ScoreCard::reasons`], not only the first.

use crate::check::{Check, CheckKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Default pass threshold of a scenario score (out of 100).
pub const DEFAULT_THRESHOLD: u32 = 70;

/// The fewest counted checks for which a score is shown (the seed's rule); below it reports say
/// only whether all checks passed.
pub const MIN_CHECKS_FOR_SCORE: usize = 3;

/// How checks become a verdict: pass threshold, strict mode and per-kind weight overrides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScorePolicy {
    /// Lowest score (0–100) that passes; default 70. Above 100 nothing passes.
    pub threshold: u32,
    /// When set, any failed check fails the scenario, whatever its weight and the score.
    pub strict: bool,
    /// Weight that replaces the weight of every check of a kind (0: shown, not counted).
    pub weight_overrides: BTreeMap<CheckKind, u32>,
}

impl Default for ScorePolicy {
    fn default() -> Self {
        Self {
            threshold: DEFAULT_THRESHOLD,
            strict: false,
            weight_overrides: BTreeMap::new(),
        }
    }
}

impl ScorePolicy {
    /// The weight a check of `kind` carrying `weight` counts with under this policy.
    #[must_use]
    pub fn effective_weight(&self, kind: CheckKind, weight: u32) -> u32 {
        self.weight_overrides.get(&kind).copied().unwrap_or(weight)
    }
}

/// Why a score card failed. A card lists every reason that applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum FailReason {
    /// The scenario produced no checks at all.
    NoChecks,
    /// Every check has weight 0, so there is no score to compare with the threshold.
    NothingWeighted {
        /// How many (zero-weight) checks there were.
        checks: usize,
    },
    /// The score is below the threshold.
    BelowThreshold {
        /// The rounded score.
        score: u32,
        /// The policy's threshold.
        threshold: u32,
    },
    /// At least one critical check failed.
    CriticalFailed {
        /// Names of the failed critical checks, in check order.
        checks: Vec<String>,
    },
    /// Strict mode, and at least one check failed.
    StrictFailed {
        /// Names of all failed checks, in check order.
        checks: Vec<String>,
    },
}

impl fmt::Display for FailReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoChecks => f.write_str("no checks to score"),
            Self::NothingWeighted { checks } => {
                write!(f, "all {checks} checks have weight 0, nothing to score")
            }
            Self::BelowThreshold { score, threshold } => {
                write!(f, "score {score} is below the threshold {threshold}")
            }
            Self::CriticalFailed { checks } => {
                let noun = if checks.len() == 1 { "check" } else { "checks" };
                write!(f, "critical {noun} failed: {}", checks.join(", "))
            }
            Self::StrictFailed { checks } => {
                let noun = if checks.len() == 1 { "check" } else { "checks" };
                write!(f, "strict mode, failed {noun}: {}", checks.join(", "))
            }
        }
    }
}

/// The verdict on one scenario: its checks (with effective weights), score, visibility and pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreCard {
    checks: Vec<Check>,
    score: u32,
    counted_checks: usize,
    show_score: bool,
    passed: bool,
    threshold: u32,
    strict: bool,
    failed_critical: Vec<String>,
    reasons: Vec<FailReason>,
}

impl ScoreCard {
    /// Scores `checks` under `policy` (see the module docs for every rule).
    ///
    /// ```
    /// use scoring::{Check, CheckKind, ScoreCard, ScorePolicy};
    /// let card = ScoreCard::new(
    ///     vec![
    ///         Check::pass(CheckKind::ExpectedFunction, "expectedFunction", "called transfer"),
    ///         Check::pass(CheckKind::ResponseType, "responseType", "action"),
    ///         Check::fail(CheckKind::ShouldContain, "shouldContain: \"fee\"", "no \"fee\" in reply"),
    ///     ],
    ///     &ScorePolicy::default(),
    /// );
    /// assert_eq!(card.score(), 83);
    /// assert!(card.show_score());
    /// assert!(card.passed());
    /// ```
    #[must_use]
    pub fn new(checks: Vec<Check>, policy: &ScorePolicy) -> Self {
        let checks: Vec<Check> = checks
            .into_iter()
            .map(|mut check| {
                check.weight = policy.effective_weight(check.kind, check.weight);
                check
            })
            .collect();

        // u128 so that no number or size of weights can overflow: Σ weight ≤ usize::MAX · u32::MAX.
        let (total, earned) = checks.iter().fold((0u128, 0u128), |(total, earned), c| {
            let weight = u128::from(c.weight);
            (
                total + weight,
                if c.passed { earned + weight } else { earned },
            )
        });
        let score = rounded_percent(earned, total);
        let counted_checks = checks.iter().filter(|c| c.weight > 0).count();

        let failed_critical: Vec<String> = checks
            .iter()
            .filter(|c| c.critical && !c.passed)
            .map(|c| c.name.clone())
            .collect();

        let mut reasons = Vec::new();
        if checks.is_empty() {
            reasons.push(FailReason::NoChecks);
        } else if total == 0 {
            reasons.push(FailReason::NothingWeighted {
                checks: checks.len(),
            });
        } else if score < policy.threshold {
            reasons.push(FailReason::BelowThreshold {
                score,
                threshold: policy.threshold,
            });
        }
        if !failed_critical.is_empty() {
            reasons.push(FailReason::CriticalFailed {
                checks: failed_critical.clone(),
            });
        }
        if policy.strict {
            let failed: Vec<String> = checks
                .iter()
                .filter(|c| !c.passed)
                .map(|c| c.name.clone())
                .collect();
            if !failed.is_empty() {
                reasons.push(FailReason::StrictFailed { checks: failed });
            }
        }
        let passed = reasons.is_empty();
        tracing::debug!(
            score,
            checks = checks.len(),
            counted_checks,
            passed,
            "scored checks"
        );
        Self {
            checks,
            score,
            counted_checks,
            show_score: counted_checks >= MIN_CHECKS_FOR_SCORE,
            passed,
            threshold: policy.threshold,
            strict: policy.strict,
            failed_critical,
            reasons,
        }
    }

    /// The checks, in the order given, each with its effective weight.
    #[must_use]
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// Weighted score 0–100, rounded half up; 0 when nothing is weighted.
    #[must_use]
    pub fn score(&self) -> u32 {
        self.score
    }

    /// Checks with a positive weight: those the score and the visibility rule count.
    #[must_use]
    pub fn counted_checks(&self) -> usize {
        self.counted_checks
    }

    /// Whether reports show the score: at least [`MIN_CHECKS_FOR_SCORE`] counted checks.
    #[must_use]
    pub fn show_score(&self) -> bool {
        self.show_score
    }

    /// Whether the scenario passed (no [`reasons`](Self::reasons) to fail).
    #[must_use]
    pub fn passed(&self) -> bool {
        self.passed
    }

    /// Whether every check passed (the seed's `[RESULT]` line), regardless of weights.
    #[must_use]
    pub fn all_checks_passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The threshold the score was compared with.
    #[must_use]
    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// Whether the card was scored in strict mode.
    #[must_use]
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Names of the failed critical checks, in check order.
    #[must_use]
    pub fn failed_critical(&self) -> &[String] {
        &self.failed_critical
    }

    /// Every reason the card failed; empty when it passed.
    #[must_use]
    pub fn reasons(&self) -> &[FailReason] {
        &self.reasons
    }
}

/// round(100 · earned / total) half up, in exact integer arithmetic (floats would turn 87.5 into
/// 87.4999… for some weight sums); 0 when `total` is 0.
fn rounded_percent(earned: u128, total: u128) -> u32 {
    if total == 0 {
        return 0;
    }
    // floor((200·earned + total) / (2·total)) = floor(100·earned/total + 1/2).
    let percent = (200 * earned + total) / (2 * total);
    // earned ≤ total, so percent ≤ 100; the fallback only guards the type conversion.
    u32::try_from(percent).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weighted(pass: &[(u32, bool)]) -> Vec<Check> {
        pass.iter()
            .enumerate()
            .map(|(i, &(weight, passed))| {
                Check::new(CheckKind::CustomValidator, format!("c{i}"), passed, "m")
                    .with_weight(weight)
            })
            .collect()
    }

    #[test]
    fn seed_example_scores_83() {
        let card = ScoreCard::new(
            weighted(&[(3, true), (2, true), (1, false)]),
            &ScorePolicy::default(),
        );
        assert_eq!(card.score(), 83);
        assert!(card.show_score());
        assert!(card.passed());
        assert!(!card.all_checks_passed());
        assert!(card.reasons().is_empty());
    }

    #[test]
    fn rounds_half_up() {
        assert_eq!(rounded_percent(1, 8), 13); // 12.5
        assert_eq!(rounded_percent(7, 8), 88); // 87.5
        assert_eq!(rounded_percent(1, 3), 33); // 33.33
        assert_eq!(rounded_percent(2, 3), 67); // 66.67
        assert_eq!(rounded_percent(5, 6), 83); // 83.33
        assert_eq!(rounded_percent(1, 200), 1); // 0.5
        assert_eq!(rounded_percent(1, 201), 0); // 0.497…
        assert_eq!(rounded_percent(0, 5), 0);
        assert_eq!(rounded_percent(5, 5), 100);
        assert_eq!(rounded_percent(0, 0), 0);
    }

    #[test]
    fn threshold_compares_the_rounded_score() {
        // 69.5 rounds to 70, which passes a threshold of 70.
        let card = ScoreCard::new(
            weighted(&[(139, true), (61, false)]),
            &ScorePolicy::default(),
        );
        assert_eq!(card.score(), 70);
        assert!(card.passed());
        let card = ScoreCard::new(
            weighted(&[(138, true), (62, false)]),
            &ScorePolicy::default(),
        );
        assert_eq!(card.score(), 69);
        assert_eq!(
            card.reasons(),
            [FailReason::BelowThreshold {
                score: 69,
                threshold: 70
            }]
        );
    }

    #[test]
    fn critical_failure_fails_a_high_score() {
        let mut checks = weighted(&[(3, true), (2, true), (2, true), (2, true)]);
        checks.push(
            Check::fail(
                CheckKind::ExpectedParams,
                "expectedParams",
                "to: bob, expected alice",
            )
            .critical(),
        );
        let card = ScoreCard::new(checks, &ScorePolicy::default());
        assert_eq!(card.score(), 82);
        assert!(!card.passed());
        assert_eq!(card.failed_critical(), ["expectedParams"]);
        assert_eq!(
            card.reasons(),
            [FailReason::CriticalFailed {
                checks: vec!["expectedParams".into()]
            }]
        );
    }

    #[test]
    fn strict_mode_fails_on_any_failed_check() {
        let checks = weighted(&[(3, true), (2, true), (1, false)]);
        let policy = ScorePolicy {
            strict: true,
            ..ScorePolicy::default()
        };
        let card = ScoreCard::new(checks, &policy);
        assert_eq!(card.score(), 83);
        assert!(!card.passed());
        assert_eq!(
            card.reasons(),
            [FailReason::StrictFailed {
                checks: vec!["c2".into()]
            }]
        );
    }

    #[test]
    fn every_broken_rule_is_reported() {
        let mut checks = weighted(&[(1, true)]);
        checks
            .push(Check::fail(CheckKind::ExpectedFunction, "expectedFunction", "none").critical());
        let policy = ScorePolicy {
            strict: true,
            ..ScorePolicy::default()
        };
        let card = ScoreCard::new(checks, &policy);
        assert_eq!(card.score(), 25);
        assert_eq!(card.reasons().len(), 3);
        assert!(matches!(
            card.reasons()[0],
            FailReason::BelowThreshold { .. }
        ));
        assert!(matches!(
            card.reasons()[1],
            FailReason::CriticalFailed { .. }
        ));
        assert!(matches!(card.reasons()[2], FailReason::StrictFailed { .. }));
    }

    #[test]
    fn zero_checks_fail_with_score_zero() {
        let card = ScoreCard::new(Vec::new(), &ScorePolicy::default());
        assert_eq!(card.score(), 0);
        assert!(!card.show_score());
        assert!(!card.passed());
        assert_eq!(card.reasons(), [FailReason::NoChecks]);
        // Even a threshold of 0 does not let an empty scenario pass.
        let lenient = ScorePolicy {
            threshold: 0,
            ..ScorePolicy::default()
        };
        assert!(!ScoreCard::new(Vec::new(), &lenient).passed());
    }

    #[test]
    fn weight_zero_override_shows_but_does_not_count() {
        let checks = weighted(&[(3, true), (2, true), (2, true)]);
        let mut contains =
            Check::fail(CheckKind::ShouldContain, "shouldContain: \"fee\"", "absent");
        contains.weight = 1;
        let mut all = checks;
        all.push(contains);
        let policy = ScorePolicy {
            weight_overrides: BTreeMap::from([(CheckKind::ShouldContain, 0)]),
            ..ScorePolicy::default()
        };
        let card = ScoreCard::new(all, &policy);
        assert_eq!(card.checks().len(), 4);
        assert_eq!(card.checks()[3].weight, 0);
        assert_eq!(card.counted_checks(), 3);
        assert_eq!(card.score(), 100);
        assert!(card.passed());
    }

    #[test]
    fn overrides_replace_the_checks_weight() {
        let checks = vec![
            Check::pass(CheckKind::ExpectedFunction, "expectedFunction", "ok"),
            Check::fail(CheckKind::ShouldContain, "shouldContain: \"x\"", "absent"),
        ];
        let policy = ScorePolicy {
            weight_overrides: BTreeMap::from([(CheckKind::ShouldContain, 3)]),
            ..ScorePolicy::default()
        };
        let card = ScoreCard::new(checks, &policy);
        assert_eq!(card.score(), 50);
        assert!(!card.show_score());
    }

    #[test]
    fn all_zero_weights_fail_as_nothing_weighted() {
        let card = ScoreCard::new(
            weighted(&[(0, true), (0, true), (0, true)]),
            &ScorePolicy::default(),
        );
        assert_eq!(card.score(), 0);
        assert!(!card.show_score());
        assert_eq!(card.reasons(), [FailReason::NothingWeighted { checks: 3 }]);
    }

    #[test]
    fn policy_deserializes_with_defaults_and_camel_case_kinds() {
        let policy: ScorePolicy =
            serde_json::from_str(r#"{"strict": true, "weight_overrides": {"shouldContain": 0}}"#)
                .expect("valid policy");
        assert_eq!(policy.threshold, DEFAULT_THRESHOLD);
        assert!(policy.strict);
        assert_eq!(policy.effective_weight(CheckKind::ShouldContain, 1), 0);
        assert_eq!(policy.effective_weight(CheckKind::ShouldMention, 1), 1);
        assert!(serde_json::from_str::<ScorePolicy>(r#"{"treshold": 80}"#).is_err());
    }
}
