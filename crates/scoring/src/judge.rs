//! Weighted average of named judge scores (the data pipeline's accept score).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Weights per judge name, e.g. fluency 0.30, naturalness 0.25, cs_ratio 0.20, socio_cultural 0.25.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeWeights(pub BTreeMap<String, f64>);

/// Invalid judge weights.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WeightError {
    #[error("weight of `{0}` is negative or not a number")]
    Negative(String),
    #[error("all weights are zero")]
    AllZero,
    #[error("no weight for judge `{0}`")]
    Missing(String),
}
