//! The bridge to `codeswitch`: measures a batch, reads the target ratio of a scenario,
//! and scores |measured − target|.
//!
//! The measurement is kept as JSON (it goes into prompts and records unchanged), with its status
//! and the embedded-language share (read only when the status is `ok`) beside it.

use serde_json::Value;

use codeswitch::{CodeSwitchError, LanguagePair, Measurement, MeasurementStatus, ScriptHint};

/// A batch's measurement as JSON plus what the pipeline reads from it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchMeasurement {
    /// The measurement, typed (the gate reads it).
    pub measurement: Measurement,
    /// The full measurement as recorded (with each sentence's tokens and tags).
    pub json: Value,
    /// The measurement shown to the ratio judge: `json` without the per-sentence tokens, which
    /// would multiply the prompt's length and tell the judge nothing the counts do not.
    pub prompt_json: Value,
    /// Embedded (second) language share of the tagged words, 0–1; `None` unless the status is
    /// `ok`: a partial or impossible measurement does not score the ratio (the LLM judge does).
    pub embedded_ratio: Option<f64>,
    /// How far the measurement can be trusted.
    pub status: MeasurementStatus,
    /// Why the status is not `ok`.
    pub status_reason: Option<String>,
}

/// Measures a batch for the pair, writing in `script` when the scenario says which.
///
/// A pair the tagger cannot separate ("Mandarin" and "Cantonese" are both Chinese to it) gives
/// an `unavailable` measurement with the reason, so the record says why there are no figures.
///
/// # Errors
/// A language the measurement does not know (the record then has no measurement; the reason is
/// for its notes).
pub fn measure_batch(
    instances: &[String],
    first: &str,
    second: &str,
    script: Option<ScriptHint>,
) -> Result<BatchMeasurement, CodeSwitchError> {
    let measurement = match LanguagePair::parse(first, second) {
        Ok(pair) => pair.measure_with(instances, script),
        Err(CodeSwitchError::SameLanguage { language }) => {
            Measurement::unavailable(language, language, same_language(first, second, language))
        }
        Err(e) => return Err(e),
    };
    let json = serde_json::to_value(&measurement).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "measurement did not serialise");
        Value::Null
    });
    let mut prompt_json = json.clone();
    if let Some(sentences) = prompt_json
        .get_mut("sentences")
        .and_then(Value::as_array_mut)
    {
        for sentence in sentences.iter_mut().filter_map(Value::as_object_mut) {
            sentence.remove("tokens");
        }
    }
    let embedded_ratio = (measurement.status == MeasurementStatus::Ok
        && measurement.embedded_ratio.is_finite())
    .then_some(measurement.embedded_ratio);
    let status = measurement.status;
    let status_reason = measurement.status_reason.clone();
    Ok(BatchMeasurement {
        measurement,
        json,
        prompt_json,
        embedded_ratio,
        status,
        status_reason,
    })
}

fn same_language(first: &str, second: &str, language: codeswitch::Language) -> String {
    format!("{first} and {second} are both {language} to the tagger, which cannot tell them apart")
}

/// Why no batch of this pair (written in `script`) can be measured, known before the run: a
/// language the measurement does not know, two names of one language, or romanized text of a
/// language without a romanized detector. The gate is undecided on every such batch. `None`
/// when the pair can be measured (a batch may still be undecided, e.g. on low coverage).
#[must_use]
pub fn unmeasurable_reason(
    first: &str,
    second: &str,
    script: Option<ScriptHint>,
) -> Option<String> {
    match LanguagePair::parse(first, second) {
        Ok(pair) => pair.unavailable_reason(script),
        Err(CodeSwitchError::SameLanguage { language }) => {
            Some(same_language(first, second, language))
        }
        Err(CodeSwitchError::UnknownLanguage { name }) => Some(format!(
            "the measurement does not know the language {name:?}"
        )),
    }
}

/// The target embedded share of a `cs_ratio` parameter ("30%", "0.3", "Low" …).
#[must_use]
pub fn target_ratio(cs_ratio: &str) -> Option<f64> {
    codeswitch::parse_target_ratio(cs_ratio)
}

/// 0–10 score of a measured share against the target (`codeswitch::ratio_score`).
#[must_use]
pub fn ratio_score(measured: f64, target: f64) -> f64 {
    codeswitch::ratio_score(measured, target)
}
