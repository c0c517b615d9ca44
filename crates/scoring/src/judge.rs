//! Weighted average of named judge scores: the data pipeline's accept score. This module owns the
//! judge weights (defaults, validation) and the formula Σ w·s / Σ w over the judges that carry a
//! weight; it knows nothing about what a judge is or how it is asked.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The four judges of the code-switching pipeline, in the order of the spec's table.
pub const JUDGES: [&str; 4] = ["fluency", "naturalness", "cs_ratio", "socio_cultural"];

/// Default weight of each of [`JUDGES`], in the same order.
const DEFAULT_WEIGHTS: [f64; 4] = [0.30, 0.25, 0.20, 0.25];

/// Weights per judge name, e.g. fluency 0.30, naturalness 0.25, cs_ratio 0.20, socio_cultural 0.25.
///
/// Deserializing validates like [`JudgeWeights::new`], so a config file cannot smuggle in a negative
/// weight. The field is public for reading; [`JudgeWeights::weighted_score`] re-validates, so a map
/// edited by hand still cannot produce a meaningless score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "BTreeMap<String, f64>")]
pub struct JudgeWeights(pub BTreeMap<String, f64>);

/// Invalid judge weights, or judge scores that cannot be weighted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WeightError {
    /// A weight is negative, NaN or infinite.
    #[error("weight of `{0}` is negative or not a finite number")]
    Negative(String),
    /// No judge has a positive weight, so the average is undefined.
    #[error("all weights are zero")]
    AllZero,
    /// A judge with a positive weight has no score.
    #[error("no score for judge `{0}`, which has a weight")]
    Missing(String),
    /// A weighted judge's score is NaN or infinite.
    #[error("score of judge `{0}` is not a finite number")]
    InvalidScore(String),
    /// The weights are so large that their sums overflow to infinity.
    #[error("the weights are too large: their weighted sum is not a finite number")]
    Overflow,
}

impl Default for JudgeWeights {
    /// fluency 0.30, naturalness 0.25, cs_ratio 0.20, socio_cultural 0.25.
    fn default() -> Self {
        Self(
            JUDGES
                .iter()
                .zip(DEFAULT_WEIGHTS)
                .map(|(name, weight)| ((*name).to_owned(), weight))
                .collect(),
        )
    }
}

impl TryFrom<BTreeMap<String, f64>> for JudgeWeights {
    type Error = WeightError;

    fn try_from(weights: BTreeMap<String, f64>) -> Result<Self, Self::Error> {
        Self::new(weights)
    }
}

impl JudgeWeights {
    /// Validated weights: every weight finite and ≥ 0, at least one > 0. Weights need not sum to 1;
    /// the average divides by their sum. A judge with weight 0 is ignored by the average.
    ///
    /// # Errors
    /// [`WeightError::Negative`] for a negative or non-finite weight, [`WeightError::AllZero`] when
    /// no weight is positive (including an empty map).
    pub fn new(weights: BTreeMap<String, f64>) -> Result<Self, WeightError> {
        validate(&weights)?;
        Ok(Self(weights))
    }

    /// The weight of `judge`, if it has one.
    #[must_use]
    pub fn get(&self, judge: &str) -> Option<f64> {
        self.0.get(judge).copied()
    }

    /// Σ w·s / Σ w over the judges with a positive weight. Scores of judges without a weight are
    /// ignored (a judge may be run for information only).
    ///
    /// ```
    /// use scoring::JudgeWeights;
    /// use std::collections::BTreeMap;
    /// let scores: BTreeMap<String, f64> = [("fluency", 9.0), ("naturalness", 8.5), ("cs_ratio", 7.0), ("socio_cultural", 9.0)]
    ///     .into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    /// let score = JudgeWeights::default().weighted_score(&scores)?;
    /// assert!((score - 8.475).abs() < 1e-9);
    /// # Ok::<(), scoring::WeightError>(())
    /// ```
    ///
    /// # Errors
    /// The validation errors of [`JudgeWeights::new`] (the field is public), [`WeightError::Missing`]
    /// when a weighted judge has no score, [`WeightError::InvalidScore`] when its score is not finite.
    pub fn weighted_score(&self, scores: &BTreeMap<String, f64>) -> Result<f64, WeightError> {
        validate(&self.0)?;
        let mut weighted_sum = 0.0;
        let mut weight_sum = 0.0;
        for (judge, &weight) in self.0.iter().filter(|(_, w)| **w > 0.0) {
            let score = *scores
                .get(judge)
                .ok_or_else(|| WeightError::Missing(judge.clone()))?;
            if !score.is_finite() {
                return Err(WeightError::InvalidScore(judge.clone()));
            }
            weighted_sum += weight * score;
            weight_sum += weight;
        }
        // validate() guarantees a positive weight, so weight_sum > 0 here; sums of huge finite
        // weights can still overflow to infinity, which would make the score NaN.
        if !weighted_sum.is_finite() || !weight_sum.is_finite() {
            return Err(WeightError::Overflow);
        }
        let score = weighted_sum / weight_sum;
        tracing::trace!(score, judges = self.0.len(), "weighted judge score");
        Ok(score)
    }
}

fn validate(weights: &BTreeMap<String, f64>) -> Result<(), WeightError> {
    if let Some((name, _)) = weights.iter().find(|(_, w)| !w.is_finite() || **w < 0.0) {
        return Err(WeightError::Negative(name.clone()));
    }
    if !weights.values().any(|w| *w > 0.0) {
        return Err(WeightError::AllZero);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    }

    #[test]
    fn weights_whose_sums_overflow_are_an_error_not_a_nan_score() {
        let weights =
            JudgeWeights::new(map(&[("a", 1e308), ("b", 1e308)])).expect("finite weights");
        let scores = map(&[("a", 9.0), ("b", 8.0)]);
        assert_eq!(weights.weighted_score(&scores), Err(WeightError::Overflow));
    }

    #[test]
    fn defaults_are_the_spec_weights() {
        let weights = JudgeWeights::default();
        assert_eq!(weights.get("fluency"), Some(0.30));
        assert_eq!(weights.get("naturalness"), Some(0.25));
        assert_eq!(weights.get("cs_ratio"), Some(0.20));
        assert_eq!(weights.get("socio_cultural"), Some(0.25));
        assert_eq!(weights.0.len(), JUDGES.len());
    }

    #[test]
    fn spec_example_is_8_475() {
        let scores = map(&[
            ("fluency", 9.0),
            ("naturalness", 8.5),
            ("cs_ratio", 7.0),
            ("socio_cultural", 9.0),
        ]);
        let score = JudgeWeights::default()
            .weighted_score(&scores)
            .expect("all judges scored");
        assert!((score - 8.475).abs() < 1e-9, "got {score}");
    }

    #[test]
    fn weights_need_not_sum_to_one() {
        let weights = JudgeWeights::new(map(&[("a", 3.0), ("b", 1.0)])).expect("valid");
        let score = weights
            .weighted_score(&map(&[("a", 10.0), ("b", 2.0)]))
            .expect("scored");
        assert!((score - 8.0).abs() < 1e-9, "got {score}");
    }

    #[test]
    fn rejects_negative_nan_infinite_and_all_zero() {
        assert_eq!(
            JudgeWeights::new(map(&[("a", -0.1), ("b", 1.0)])),
            Err(WeightError::Negative("a".into()))
        );
        assert_eq!(
            JudgeWeights::new(map(&[("a", f64::NAN)])),
            Err(WeightError::Negative("a".into()))
        );
        assert_eq!(
            JudgeWeights::new(map(&[("a", f64::INFINITY)])),
            Err(WeightError::Negative("a".into()))
        );
        assert_eq!(
            JudgeWeights::new(map(&[("a", 0.0), ("b", 0.0)])),
            Err(WeightError::AllZero)
        );
        assert_eq!(
            JudgeWeights::new(BTreeMap::new()),
            Err(WeightError::AllZero)
        );
    }

    #[test]
    fn missing_and_invalid_scores_are_errors_but_unweighted_judges_are_ignored() {
        let weights = JudgeWeights::new(map(&[("a", 1.0), ("b", 0.0)])).expect("valid");
        // `b` has weight 0: its score is neither needed nor counted.
        let score = weights
            .weighted_score(&map(&[("a", 4.0), ("c", 10.0)]))
            .expect("a is scored");
        assert!((score - 4.0).abs() < 1e-9);
        assert_eq!(
            weights.weighted_score(&map(&[("b", 4.0)])),
            Err(WeightError::Missing("a".into()))
        );
        assert_eq!(
            weights.weighted_score(&map(&[("a", f64::NAN)])),
            Err(WeightError::InvalidScore("a".into()))
        );
    }

    #[test]
    fn deserializing_validates() {
        let ok: JudgeWeights = serde_json::from_str(r#"{"fluency": 1.0}"#).expect("valid weights");
        assert_eq!(ok.get("fluency"), Some(1.0));
        let err = serde_json::from_str::<JudgeWeights>(r#"{"fluency": -1.0}"#)
            .expect_err("negative weight");
        assert!(
            err.to_string().contains("weight of `fluency` is negative"),
            "{err}"
        );
    }

    #[test]
    fn a_hand_edited_map_is_revalidated() {
        let weights = JudgeWeights(map(&[("a", -1.0)]));
        assert_eq!(
            weights.weighted_score(&map(&[("a", 1.0)])),
            Err(WeightError::Negative("a".into()))
        );
    }
}
