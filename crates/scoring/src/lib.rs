//! Weighted checks, score cards and their reports; judge weighting; code-switching measurements.

pub mod check;
#[cfg(feature = "codeswitch")]
pub mod codeswitch;
pub mod expect;
pub mod judge;
pub mod transcript;

pub use check::{Check, CheckKind};
pub use judge::{JudgeWeights, WeightError};
