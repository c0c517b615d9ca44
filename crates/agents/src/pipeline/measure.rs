//! The bridge to `scoring::codeswitch`: measures a batch, reads the target ratio of a scenario,
//! and scores |measured − target|.
//!
//! The measurement is kept as JSON (it goes into prompts and records unchanged); only the
//! embedded-language share is read out of it.

use serde_json::Value;

/// The key of the embedded-language share (0–1) in `scoring::codeswitch::Measurement`.
const EMBEDDED_RATIO_KEY: &str = "embedded_ratio";

/// A batch's measurement as JSON plus the embedded-language share read from it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchMeasurement {
    /// The full measurement, as recorded.
    pub json: Value,
    /// Embedded (second) language share of the tagged words, 0–1; `None` when nothing was tagged.
    pub embedded_ratio: Option<f64>,
}

/// Measures a batch for the pair; `None` (logged) when the pair is not supported or the
/// measurement cannot be made, since a missing measurement only means the LLM judge decides alone.
#[must_use]
pub fn measure_batch(instances: &[String], first: &str, second: &str) -> Option<BatchMeasurement> {
    let measurement = match scoring::codeswitch::measure(instances, first, second) {
        Ok(m) => m,
        Err(e) => {
            tracing::debug!(first, second, error = %e, "no code-switching measurement");
            return None;
        }
    };
    let json = match serde_json::to_value(&measurement) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(error = %e, "measurement did not serialise");
            return None;
        }
    };
    // `embedded_ratio` is 0 when no word could be tagged; that is "unknown", not "no switching".
    let tagged = json
        .pointer("/tagged/first")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        + json
            .pointer("/tagged/second")
            .and_then(Value::as_u64)
            .unwrap_or(0);
    let embedded_ratio = json
        .get(EMBEDDED_RATIO_KEY)
        .and_then(Value::as_f64)
        .filter(|r| r.is_finite() && tagged > 0);
    Some(BatchMeasurement {
        json,
        embedded_ratio,
    })
}

/// The target embedded share of a `cs_ratio` parameter ("30%", "0.3", "Low" …).
#[must_use]
pub fn target_ratio(cs_ratio: &str) -> Option<f64> {
    scoring::codeswitch::parse_target_ratio(cs_ratio)
}

/// 0–10 score of a measured share against the target (`scoring::codeswitch::ratio_score`).
#[must_use]
pub fn ratio_score(measured: f64, target: f64) -> f64 {
    scoring::codeswitch::ratio_score(measured, target)
}
