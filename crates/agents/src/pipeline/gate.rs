//! The deterministic accept gate: a batch is accepted only if its measurement shows code
//! switching, whatever the judges scored.
//!
//! - Intra-sentential `cs_type`s (the value contains "intra"): every text needs at least
//!   `min_switch_points` switch points.
//! - Every other type (inter-sentential, extra-sentential/tag, or none given): the batch as a
//!   whole needs words of both languages and at least `min_switch_points` switch points.
//!
//! The gate decides only on evidence it can trust. An `unavailable` measurement (or none) makes
//! it `undecided`: the judges decide alone, and the record says so. A `low_coverage`
//! measurement can pass the gate (switch points between tagged words are real) but not fail it
//! (the untagged words may hold the switches): a failure there is also `undecided`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The gate's settings (the config's `run: gate:` section).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateSettings {
    /// Off: the judges alone decide (the record says `gate: off`).
    pub enabled: bool,
    /// Switch points required (per text for intra-sentential types, per batch otherwise).
    pub min_switch_points: u32,
}

impl Default for GateSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            min_switch_points: 1,
        }
    }
}

/// The gate's decision on one attempt, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateVerdict {
    /// `true` passed, `false` failed (the batch is not accepted), `null` undecided or off.
    pub passed: Option<bool>,
    /// Why, in words.
    pub reason: String,
}

impl GateVerdict {
    /// Whether the gate stops the batch from being accepted.
    #[must_use]
    pub fn blocks(&self) -> bool {
        self.passed == Some(false)
    }
}

/// Decides the gate for one attempt from its measurement JSON (`scoring::codeswitch::Measurement`
/// as recorded), the scenario's `cs_type` and the settings.
#[must_use]
pub fn decide(
    settings: GateSettings,
    measurement: Option<&Value>,
    cs_type: Option<&str>,
) -> GateVerdict {
    let undecided = |reason: String| GateVerdict {
        passed: None,
        reason,
    };
    if !settings.enabled {
        return undecided("gate off".into());
    }
    let Some(m) = measurement else {
        return undecided(
            "undecided: no measurement for this language pair; the judges decide".into(),
        );
    };
    let status = m.get("status").and_then(Value::as_str).unwrap_or("ok");
    if status == "unavailable" {
        let why = m
            .get("status_reason")
            .and_then(Value::as_str)
            .unwrap_or("the measurement is unavailable");
        return undecided(format!("undecided: {why}; the judges decide"));
    }
    let low_coverage = status == "low_coverage";
    let need = u64::from(settings.min_switch_points);
    let intra = cs_type.is_some_and(|t| t.to_ascii_lowercase().contains("intra"));
    let failure = if intra {
        let sentences = m.get("sentences").and_then(Value::as_array);
        let short: Vec<usize> = sentences
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, s)| s.get("switch_points").and_then(Value::as_u64).unwrap_or(0) < need)
            .map(|(i, _)| i + 1)
            .collect();
        match (sentences.map_or(0, Vec::len), short.as_slice()) {
            (0, _) => Some("no text was measured".to_owned()),
            (_, []) => None,
            (_, [one]) => Some(format!(
                "text {one} has fewer than {need} switch point(s) (intra-sentential switching asked for)"
            )),
            (_, many) => Some(format!(
                "texts {} have fewer than {need} switch point(s) each (intra-sentential switching asked for)",
                many.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    } else {
        let count = |k: &str| m.pointer(k).and_then(Value::as_u64).unwrap_or(0);
        let (first, second) = (count("/tagged/first"), count("/tagged/second"));
        let switches = count("/switch_points");
        if first == 0 || second == 0 {
            let language = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
            let missing = if first == 0 {
                language("first_language")
            } else {
                language("second_language")
            };
            Some(format!(
                "no {missing} word was found: the batch is monolingual"
            ))
        } else if switches < need {
            Some(format!(
                "{switches} switch point(s) in the batch, fewer than {need}"
            ))
        } else {
            None
        }
    };
    match failure {
        None => GateVerdict {
            passed: Some(true),
            reason: if intra {
                format!("every text has at least {need} switch point(s)")
            } else {
                "both languages are present with switch points".into()
            },
        },
        Some(why) if low_coverage => undecided(format!(
            "undecided: {why}, but the measurement has low coverage; the judges decide"
        )),
        Some(why) => GateVerdict {
            passed: Some(false),
            reason: why,
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn m(status: &str, first: u64, second: u64, per_text: &[u64]) -> Value {
        json!({
            "status": status,
            "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": first, "second": second},
            "switch_points": per_text.iter().sum::<u64>(),
            "sentences": per_text.iter().map(|s| json!({"switch_points": s})).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn a_monolingual_batch_fails_for_every_type() {
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = decide(
                GateSettings::default(),
                Some(&m("ok", 12, 0, &[0, 0, 0])),
                cs_type,
            );
            assert_eq!(v.passed, Some(false), "{cs_type:?}: {v:?}");
        }
    }

    #[test]
    fn intra_sentential_needs_a_switch_in_every_text() {
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 0, 1])),
            Some("intra-sentential"),
        );
        assert_eq!(v.passed, Some(false));
        assert!(v.reason.contains("text 2"), "{}", v.reason);
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 1, 1])),
            Some("Intrasentential"),
        );
        assert_eq!(v.passed, Some(true));
        // Other types: the batch as a whole.
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 0, 0])),
            Some("Intersentential"),
        );
        assert_eq!(v.passed, Some(true));
    }

    #[test]
    fn untrusted_measurements_never_fail_the_gate() {
        let unavailable = json!({"status": "unavailable", "status_reason": "romanized Chinese"});
        let v = decide(GateSettings::default(), Some(&unavailable), None);
        assert_eq!(v.passed, None);
        assert!(v.reason.contains("romanized Chinese"));
        let v = decide(
            GateSettings::default(),
            Some(&m("low_coverage", 5, 0, &[0])),
            None,
        );
        assert_eq!(v.passed, None);
        // A pass on low coverage stands: the switches seen are real.
        let v = decide(
            GateSettings::default(),
            Some(&m("low_coverage", 5, 3, &[2])),
            None,
        );
        assert_eq!(v.passed, Some(true));
        assert_eq!(decide(GateSettings::default(), None, None).passed, None);
        let off = GateSettings {
            enabled: false,
            ..GateSettings::default()
        };
        assert_eq!(decide(off, Some(&m("ok", 5, 0, &[0])), None).passed, None);
    }
}
