//! Weighted average of named judge scores: the data pipeline's accept score. This module owns the
//! judge weights (defaults, validation) and the formula Σ w·s / Σ w over the judges that carry a
//! weight; it knows nothing about what a judge is or how it is asked.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One built-in judge of the code-switching pipeline. Its [`Judge::name`] is the weight name in
/// [`JudgeWeights`], the key in a record's `scores` and the agent name; [`Judge::result_field`]
/// is the record field holding its result. This is the one list of the built-in judges in the
/// workspace; a judge a config declares beside them is known by its [`JudgeName`] alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judge {
    /// Grammar and Poplack's constraints.
    Fluency,
    /// Would real bilinguals say it (Auer's typology).
    Naturalness,
    /// Embedded-language share against the target.
    CsRatio,
    /// Borrowings, politeness, nothing offensive.
    SocioCultural,
}

impl Judge {
    /// Every judge, in the order of the spec's table (and of a record's result fields).
    pub const ALL: [Judge; 4] = [
        Judge::Fluency,
        Judge::Naturalness,
        Judge::CsRatio,
        Judge::SocioCultural,
    ];

    /// The snake-case name: weight name, `scores` key and agent name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Judge::Fluency => "fluency",
            Judge::Naturalness => "naturalness",
            Judge::CsRatio => "cs_ratio",
            Judge::SocioCultural => "socio_cultural",
        }
    }

    /// The record field holding this judge's final result (the seed's names, hence
    /// `social_cultural_result` for [`Judge::SocioCultural`]).
    #[must_use]
    pub const fn result_field(self) -> &'static str {
        match self {
            Judge::Fluency => "fluency_result",
            Judge::Naturalness => "naturalness_result",
            Judge::CsRatio => "cs_ratio_result",
            Judge::SocioCultural => "social_cultural_result",
        }
    }

    /// The spec's default weight: 0.30, 0.25, 0.20, 0.25.
    #[must_use]
    pub const fn default_weight(self) -> f64 {
        match self {
            Judge::Fluency => 0.30,
            Judge::Naturalness | Judge::SocioCultural => 0.25,
            Judge::CsRatio => 0.20,
        }
    }

    /// Parses [`Judge::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|j| j.name() == name)
    }
}

impl std::fmt::Display for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The name of a judge as records key its score: one of the built-in four ([`Judge::name`]) or,
/// for judges a user defines, their own name. Serialized as the plain string, so records keep
/// their shape; ordered, hashed and borrowed as that string, so a map keyed by it is read with
/// `scores["fluency"]` or `scores.get(Judge::Fluency.name())`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JudgeName(String);

impl JudgeName {
    /// The name as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The built-in judge of this name, if it is one.
    #[must_use]
    pub fn builtin(&self) -> Option<Judge> {
        Judge::from_name(&self.0)
    }
}

impl From<Judge> for JudgeName {
    fn from(judge: Judge) -> Self {
        Self(judge.name().to_owned())
    }
}

impl From<&str> for JudgeName {
    fn from(name: &str) -> Self {
        Self(name.to_owned())
    }
}

impl From<String> for JudgeName {
    fn from(name: String) -> Self {
        Self(name)
    }
}

impl std::borrow::Borrow<str> for JudgeName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for JudgeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Scores by judge: what a record keeps of its judges' verdicts.
pub type JudgeScores = BTreeMap<JudgeName, f64>;

/// A name that is not one of [`Judge::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown judge `{0}` (judges: fluency, naturalness, cs_ratio, socio_cultural)")]
pub struct UnknownJudge(pub String);

impl std::str::FromStr for Judge {
    type Err = UnknownJudge;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s).ok_or_else(|| UnknownJudge(s.to_owned()))
    }
}

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
            Judge::ALL
                .iter()
                .map(|j| (j.name().to_owned(), j.default_weight()))
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
    /// use scoring::{JudgeScores, JudgeWeights};
    /// let scores: JudgeScores = [("fluency", 9.0), ("naturalness", 8.5), ("cs_ratio", 7.0), ("socio_cultural", 9.0)]
    ///     .into_iter().map(|(k, v)| (k.into(), v)).collect();
    /// let score = JudgeWeights::default().weighted_score(&scores)?;
    /// assert!((score - 8.475).abs() < 1e-9);
    /// # Ok::<(), scoring::WeightError>(())
    /// ```
    ///
    /// # Errors
    /// The validation errors of [`JudgeWeights::new`] (the field is public), [`WeightError::Missing`]
    /// when a weighted judge has no score, [`WeightError::InvalidScore`] when its score is not finite.
    pub fn weighted_score(&self, scores: &JudgeScores) -> Result<f64, WeightError> {
        validate(&self.0)?;
        let mut weighted_sum = 0.0;
        let mut weight_sum = 0.0;
        for (judge, &weight) in self.0.iter().filter(|(_, w)| **w > 0.0) {
            let score = *scores
                .get(judge.as_str())
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

    /// Weights (`String` keys) or scores (`JudgeName` keys) from pairs.
    fn map<K: for<'a> From<&'a str> + Ord>(pairs: &[(&str, f64)]) -> BTreeMap<K, f64> {
        pairs.iter().map(|(k, v)| (K::from(k), *v)).collect()
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
        assert_eq!(weights.0.len(), Judge::ALL.len());
    }

    #[test]
    fn judge_names_round_trip_through_serde_display_and_from_str() {
        for judge in Judge::ALL {
            let json = serde_json::to_string(&judge).expect("serializes");
            assert_eq!(json, format!("\"{}\"", judge.name()));
            assert_eq!(judge.to_string().parse::<Judge>(), Ok(judge));
        }
        assert_eq!(
            Judge::SocioCultural.result_field(),
            "social_cultural_result"
        );
        assert!("judge".parse::<Judge>().is_err());
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
