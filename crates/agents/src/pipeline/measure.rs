//! The bridge to `scoring::codeswitch`: measures a batch, reads the target ratio of a scenario,
//! and scores |measured − target|.
//!
//! The measurement is kept as JSON (it goes into prompts and records unchanged), with its status
//! and the embedded-language share (read only when the status is `ok`) beside it.

use serde_json::Value;

use scoring::codeswitch::{
    CodeSwitchError, LanguagePair, Measurement, MeasurementStatus, ScriptHint,
};

/// A batch's measurement as JSON plus what the pipeline reads from it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchMeasurement {
    /// The full measurement, as recorded.
    pub json: Value,
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
        Err(CodeSwitchError::SameLanguage { language }) => Measurement::unavailable(
            language,
            language,
            format!(
                "{first} and {second} are both {language} to the tagger, which cannot tell them apart"
            ),
        ),
        Err(e) => return Err(e),
    };
    let json = serde_json::to_value(&measurement).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "measurement did not serialise");
        Value::Null
    });
    let embedded_ratio = (measurement.status == MeasurementStatus::Ok
        && measurement.embedded_ratio.is_finite())
    .then_some(measurement.embedded_ratio);
    Ok(BatchMeasurement {
        json,
        embedded_ratio,
        status: measurement.status,
        status_reason: measurement.status_reason,
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

/// A conversation turn without its speaker label ("Ana: Hola" → "Hola", also `**Ana**:`,
/// `[Ana]:`, `Ana (tired):`, `User 1:`): at most 48 bytes of letters, digits and
/// `. - ' _ * [ ] ( ) ,` (three words at most), with at least one letter, before a colon and a space at the start of
/// the turn. A label names a speaker; it is no word of either language.
#[must_use]
pub fn without_speaker_label(turn: &str) -> &str {
    let trimmed = turn.trim_start();
    let Some((label, rest)) = trimmed.split_once([':', '：']) else {
        return turn;
    };
    let is_label = label.chars().any(char::is_alphabetic)
        && label.len() <= 48
        && label.split_whitespace().count() <= 3
        && label.chars().all(|c| {
            c.is_alphanumeric()
                || c.is_whitespace()
                || matches!(
                    c,
                    '.' | '-' | '\'' | '_' | '*' | '[' | ']' | '(' | ')' | ','
                )
        })
        && (rest.is_empty() || rest.starts_with(char::is_whitespace));
    if is_label { rest.trim_start() } else { turn }
}

#[cfg(test)]
mod tests {
    use super::without_speaker_label;

    #[test]
    fn speaker_labels_are_left_out_and_other_colons_kept() {
        assert_eq!(
            without_speaker_label("Ana: Hola, ¿qué tal?"),
            "Hola, ¿qué tal?"
        );
        assert_eq!(without_speaker_label("  Dr. Khan: I am fine"), "I am fine");
        assert_eq!(without_speaker_label("A: ok"), "ok");
        assert_eq!(without_speaker_label("نور: مرحبا"), "مرحبا");
        for labelled in [
            "**Mom**: Я дома.",
            "[Mom]: Я дома.",
            "Mom (tired): Я дома.",
            "User 1: Я дома.",
        ] {
            assert_eq!(without_speaker_label(labelled), "Я дома.", "{labelled}");
        }
        // Not labels: a time, a URL, a sentence with a colon later on, no space after.
        assert_eq!(without_speaker_label("10:30 is late"), "10:30 is late");
        assert_eq!(without_speaker_label("http://x.y"), "http://x.y");
        assert_eq!(
            without_speaker_label("I told him this morning: no"),
            "I told him this morning: no"
        );
        assert_eq!(without_speaker_label("Note:this"), "Note:this");
    }
}
