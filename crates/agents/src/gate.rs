//! The deterministic accept gate: a batch is accepted only if its measurement shows code
//! switching, whatever the judges scored.
//!
//! - Intra-sentential `cs_type`s (the value contains "intra"): every text needs at least
//!   `min_switch_points` switch points.
//! - Every other type (inter-sentential, extra-sentential/tag, or none given): the batch as a
//!   whole needs words of both languages and at least `min_switch_points` switch points.
//!
//! For multi-turn conversations a change of language from one turn to the next is a switch
//! point too (inter-sentential switching between speakers).
//!
//! A pass needs *firm* evidence of both languages (per text for intra-sentential types): words
//! tagged by script, by one word list alone or by the detector, not only romanized words both
//! word lists know, whose tag is inferred from context. Switches that rest on inferred tags
//! alone leave the gate `undecided`.
//!
//! The gate decides only on evidence it can trust. An `unavailable` measurement (or none) makes
//! it `undecided`: the judges decide alone, and the record says so. So does a `low_coverage`
//! measurement, either way: the untagged words may hold the switches (so it cannot fail), and
//! the few tagged ones may be loanwords or look-alikes ("el" is in the English word list), so it
//! cannot pass either.

use codeswitch::{
    Language, Measurement, MeasurementStatus, SentenceMeasurement, has_romanized_detector,
};
use runlog::{GateSettings, GateVerdict};

/// Decides the gate for one attempt from its measurement, the scenario's `cs_type` and the
/// settings.
#[must_use]
pub fn decide(
    settings: GateSettings,
    measurement: Option<&Measurement>,
    cs_type: Option<&str>,
    multi_turn: bool,
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
    let why = |fallback: &str| {
        m.status_reason
            .clone()
            .unwrap_or_else(|| fallback.to_owned())
    };
    if m.status == MeasurementStatus::Unavailable {
        let why = why("the measurement is unavailable");
        return undecided(format!("undecided: {why}; the judges decide"));
    }
    // A language read by its script alone (Arabic, Chinese, Japanese, Korean, Russian: no
    // romanized detector) is certainly absent when none of its script's words was found,
    // however low the coverage: the untagged words are Latin look-alikes, not that language.
    if let Some(absent) = absent_script_language(m) {
        return GateVerdict {
            passed: Some(false),
            reason: format!(
                "no {absent} word (in {absent} script) was found: the batch is monolingual"
            ),
        };
    }
    if m.status == MeasurementStatus::LowCoverage {
        let why = why("the measurement has low coverage");
        return undecided(format!("undecided: {why}; the judges decide"));
    }
    let need = usize::try_from(settings.min_switch_points.max(1)).unwrap_or(usize::MAX);
    let intra = cs_type.is_some_and(|t| t.to_ascii_lowercase().contains("intra"));
    let failure = if intra {
        intra_failure(&m.sentences, need)
    } else {
        batch_failure(m, need, multi_turn)
    };
    let unfirm = unfirm_texts(&m.sentences, intra);
    match failure {
        None if !unfirm.is_empty() => undecided(format!(
            "undecided: too few words that only one language has ({}; romanized text needs \
             {MIN_FIRM_ROMANIZED} of each); the judges decide",
            if intra {
                format!(
                    "in text(s) {}",
                    unfirm
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                "in the batch".to_owned()
            }
        )),
        None => GateVerdict {
            passed: Some(true),
            reason: if intra {
                format!("every text has at least {need} switch point(s)")
            } else {
                "both languages are present with switch points".into()
            },
        },
        Some(why) => GateVerdict {
            passed: Some(false),
            reason: why,
        },
    }
}

/// Intra-sentential switching: every text needs `need` switch points.
fn intra_failure(sentences: &[SentenceMeasurement], need: usize) -> Option<String> {
    let short: Vec<usize> = sentences
        .iter()
        .enumerate()
        .filter(|(_, s)| s.switch_points < need)
        .map(|(i, _)| i + 1)
        .collect();
    match (sentences.len(), short.as_slice()) {
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
}

/// Every other type: the batch needs words of both languages and `need` switch points (turn
/// boundaries count in a conversation).
fn batch_failure(m: &Measurement, need: usize, multi_turn: bool) -> Option<String> {
    let boundaries = if multi_turn {
        turn_boundary_switches(&m.sentences)
    } else {
        0
    };
    let switches = m.switch_points + boundaries;
    if m.tagged.first == 0 || m.tagged.second == 0 {
        let missing = if m.tagged.first == 0 {
            m.first_language
        } else {
            m.second_language
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
}

/// Firm evidence of both languages: per text for intra-sentential types, in the batch else;
/// romanized text needs two words of each language, since one word of one list can be a
/// spelling of the other language ("pass" for Hindi paas, a name such as "Priya"). The texts
/// (1-based; `[0]` for the batch) without it.
fn unfirm_texts(sentences: &[SentenceMeasurement], intra: bool) -> Vec<usize> {
    let needed = |romanized: bool| if romanized { MIN_FIRM_ROMANIZED } else { 1 };
    if intra {
        sentences
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                let n = needed(s.romanized);
                !firm(s).iter().all(|&f| f >= n)
            })
            .map(|(i, _)| i + 1)
            .collect()
    } else {
        let total = sentences.iter().fold([0, 0], |acc, s| {
            let f = firm(s);
            [acc[0] + f[0], acc[1] + f[1]]
        });
        let n = needed(sentences.iter().any(|s| s.romanized));
        if total.iter().all(|&f| f >= n) {
            Vec::new()
        } else {
            vec![0]
        }
    }
}

/// The language of the pair that is written in its own script, has no romanized detector, and
/// has no tagged word in the measurement, if any.
fn absent_script_language(m: &Measurement) -> Option<Language> {
    [
        (m.first_language, m.tagged.first),
        (m.second_language, m.tagged.second),
    ]
    .into_iter()
    .find_map(|(language, count)| {
        let script_only = !language.is_latin() && !has_romanized_detector(language);
        (script_only && count == 0).then_some(language)
    })
}

/// Firm words of each language a romanized text (or batch) needs for a pass.
pub const MIN_FIRM_ROMANIZED: usize = 2;

/// Words of each language (first, second) tagged firmly in one measured sentence: tagged minus
/// inferred.
fn firm(s: &SentenceMeasurement) -> [usize; 2] {
    [
        s.tagged.first.saturating_sub(s.inferred.first),
        s.tagged.second.saturating_sub(s.inferred.second),
    ]
}

/// Turns whose first tagged word is in another language than the previous turn's last.
fn turn_boundary_switches(sentences: &[SentenceMeasurement]) -> usize {
    let mut previous_end: Option<Language> = None;
    let mut switches = 0;
    for s in sentences {
        if let (Some(end), Some(start)) = (previous_end, s.starts_in)
            && end != start
        {
            switches += 1;
        }
        if let Some(end) = s.ends_in {
            previous_end = Some(end);
        }
    }
    switches
}

#[cfg(test)]
mod tests {
    use codeswitch::{LanguageCounts, UntaggedCounts};
    use serde_json::{Value, json};

    use super::*;

    /// A measurement from the fields a test names, as a record holds them (absent counts are 0,
    /// the pair defaults to Hindi–English).
    fn typed(v: &Value) -> Measurement {
        let n = |v: Option<&Value>, k: &str| {
            v.and_then(|v| v.get(k))
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
        };
        let counts = |v: Option<&Value>| LanguageCounts {
            first: n(v, "first"),
            second: n(v, "second"),
        };
        let language = |v: &Value, k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .and_then(|s| s.parse::<Language>().ok())
        };
        let sentences = v
            .get("sentences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|s| SentenceMeasurement {
                words: 0,
                tagged: counts(s.get("tagged")),
                embedded_ratio: 0.0,
                switch_points: n(Some(s), "switch_points"),
                cmi: 0.0,
                inferred: counts(s.get("inferred")),
                starts_in: language(s, "starts_in"),
                ends_in: language(s, "ends_in"),
                romanized: s.get("romanized").and_then(Value::as_bool) == Some(true),
                tokens: Vec::new(),
            })
            .collect();
        Measurement {
            status: serde_json::from_value(v["status"].clone()).expect("a status"),
            status_reason: v
                .get("status_reason")
                .and_then(Value::as_str)
                .map(str::to_owned),
            coverage: None,
            first_language: language(v, "first_language").unwrap_or(Language::Hindi),
            second_language: language(v, "second_language").unwrap_or(Language::English),
            words: 0,
            tagged: counts(v.get("tagged")),
            untagged: UntaggedCounts::default(),
            embedded_ratio: 0.0,
            matrix_language: None,
            switch_points: n(Some(v), "switch_points"),
            cmi: 0.0,
            m_index: 0.0,
            i_index: 0.0,
            burstiness: None,
            sentences,
        }
    }

    fn m(status: &str, first: u64, second: u64, per_text: &[u64]) -> Measurement {
        typed(&json!({
            "status": status,
            "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": first, "second": second},
            "switch_points": per_text.iter().sum::<u64>(),
            "sentences": per_text.iter().map(|&s| json!({
                "switch_points": s,
                "tagged": {"first": u64::from(first > 0), "second": u64::from(second > 0 && s > 0)},
            })).collect::<Vec<_>>(),
        }))
    }

    #[test]
    fn a_monolingual_batch_fails_for_every_type() {
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = decide(
                GateSettings::default(),
                Some(&m("ok", 12, 0, &[0, 0, 0])),
                cs_type,
                false,
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
            false,
        );
        assert_eq!(v.passed, Some(false));
        assert!(v.reason.contains("text 2"), "{}", v.reason);
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 1, 1])),
            Some("Intrasentential"),
            false,
        );
        assert_eq!(v.passed, Some(true));
        // Other types: the batch as a whole.
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 0, 0])),
            Some("Intersentential"),
            false,
        );
        assert_eq!(v.passed, Some(true));
    }

    #[test]
    fn untrusted_measurements_never_fail_the_gate() {
        let unavailable =
            typed(&json!({"status": "unavailable", "status_reason": "romanized Chinese"}));
        let v = decide(GateSettings::default(), Some(&unavailable), None, false);
        assert_eq!(v.passed, None);
        assert!(v.reason.contains("romanized Chinese"));
        let v = decide(
            GateSettings::default(),
            Some(&m("low_coverage", 5, 0, &[0])),
            None,
            false,
        );
        assert_eq!(v.passed, None);
        // Nor pass it: the few tagged words may be look-alikes (Arabizi "el" is English to
        // the word list).
        let v = decide(
            GateSettings::default(),
            Some(&m("low_coverage", 5, 3, &[2])),
            None,
            false,
        );
        assert_eq!(v.passed, None);
        assert_eq!(
            decide(GateSettings::default(), None, None, false).passed,
            None
        );
        let off = GateSettings {
            enabled: false,
            ..GateSettings::default()
        };
        assert_eq!(
            decide(off, Some(&m("ok", 5, 0, &[0])), None, false).passed,
            None
        );
    }

    /// Break-it findings: switches that rest only on inferred tags never pass; a language
    /// change between turns is a switch; `min_switch_points: 0` still needs a switch.
    #[test]
    fn inferred_evidence_turn_boundaries_and_a_zero_minimum() {
        let inferred_only = typed(&json!({
            "status": "ok", "tagged": {"first": 4, "second": 2}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 4, "second": 2},
                           "inferred": {"second": 2}}],
        }));
        for cs_type in [Some("Intrasentential"), None] {
            let v = decide(
                GateSettings::default(),
                Some(&inferred_only),
                cs_type,
                false,
            );
            assert_eq!(v.passed, None, "{v:?}");
            assert!(
                v.reason
                    .contains("too few words that only one language has"),
                "{}",
                v.reason
            );
        }
        let turns = typed(&json!({
            "status": "ok", "tagged": {"first": 17, "second": 10}, "switch_points": 0,
            "sentences": [
                {"switch_points": 0, "tagged": {"first": 9}, "starts_in": "Spanish", "ends_in": "Spanish"},
                {"switch_points": 0, "tagged": {"second": 5}, "starts_in": "English", "ends_in": "English"},
                {"switch_points": 0, "tagged": {"first": 8}, "starts_in": "Spanish", "ends_in": "Spanish"},
                {"switch_points": 0, "tagged": {"second": 5}, "starts_in": "English", "ends_in": "English"},
            ],
        }));
        let v = decide(
            GateSettings::default(),
            Some(&turns),
            Some("Intersentential"),
            true,
        );
        assert_eq!(v.passed, Some(true), "{v:?}");
        // Separate items of a single-turn batch are not one discourse.
        let v = decide(
            GateSettings::default(),
            Some(&turns),
            Some("Intersentential"),
            false,
        );
        assert_eq!(v.passed, Some(false), "{v:?}");
        let zero = GateSettings {
            min_switch_points: 0,
            ..GateSettings::default()
        };
        let v = decide(
            zero,
            Some(&m("ok", 12, 0, &[0, 0, 0])),
            Some("Intrasentential"),
            false,
        );
        assert_eq!(v.passed, Some(false), "{v:?}");
    }

    /// Break-it finding: Latin gibberish in an Arabic–English scenario had low coverage and was
    /// accepted by the judges; with no Arabic-script word, Arabic is certainly absent.
    #[test]
    fn a_script_language_with_no_word_fails_even_on_low_coverage() {
        let latin_only = typed(&json!({
            "status": "low_coverage", "first_language": "Arabic", "second_language": "English",
            "tagged": {"first": 0, "second": 5}, "switch_points": 0,
            "sentences": [{"switch_points": 0, "tagged": {"second": 5}}],
        }));
        let v = decide(GateSettings::default(), Some(&latin_only), None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert!(v.reason.contains("no Arabic word"), "{}", v.reason);
        // Romanized Hindi has a detector: its untagged words may be Hindi, so still undecided.
        let hindi = typed(&json!({
            "status": "low_coverage", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 0, "second": 5}, "switch_points": 0,
            "sentences": [{"switch_points": 0, "tagged": {"second": 5}}],
        }));
        let v = decide(GateSettings::default(), Some(&hindi), None, false);
        assert_eq!(v.passed, None, "{v:?}");
    }

    /// Second break-it round: one single-list word of romanized text ("pass" in "Mere pass paise
    /// nahi hai", the name "Priya") is not enough for a pass.
    #[test]
    fn romanized_text_needs_two_firm_words_of_each_language() {
        let one_english = typed(&json!({
            "status": "ok", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 4, "second": 1}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 4, "second": 1}, "romanized": true}],
        }));
        for cs_type in [Some("Intrasentential"), None] {
            let v = decide(GateSettings::default(), Some(&one_english), cs_type, false);
            assert_eq!(v.passed, None, "{v:?}");
        }
        let two = typed(&json!({
            "status": "ok", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 4, "second": 2}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 4, "second": 2}, "romanized": true}],
        }));
        let v = decide(
            GateSettings::default(),
            Some(&two),
            Some("Intrasentential"),
            false,
        );
        assert_eq!(v.passed, Some(true), "{v:?}");
    }
}
