//! Measurement accuracy on hand-tagged sentences (`tests/data/gold_sentences.txt`): the mean
//! absolute error of the embedded-language share per sentence, per group. Romanized Hindi is
//! measured with the word lists of `data/lexicon/`; script-distinct pairs by script.
//!
//! Bounds: romanized Hindi–English ≤ 0.10 (issue 14's target), every script-distinct group
//! ≤ 0.05. The figures are printed (`cargo test -p scoring --test codeswitch_accuracy --
//! --nocapture`) and quoted in BENCHMARKS.md.

use crate::common;

use std::collections::BTreeMap;

use codeswitch::{LanguagePair, MeasurementStatus, ScriptHint, measure};

struct Gold {
    group: String,
    first: String,
    second: String,
    text: String,
    share: f64,
}

fn gold() -> Vec<Gold> {
    common::parse(include_str!("data/gold_sentences.txt"))
        .into_iter()
        .map(|t| {
            let romanized = t.first == "Hindi" && !t.devanagari;
            Gold {
                group: if romanized {
                    format!("{} (romanized)", t.pair)
                } else {
                    t.pair
                },
                first: t.first,
                second: t.second,
                text: t.text,
                share: t.share,
            }
        })
        .collect()
}

#[test]
fn embedded_share_error_per_sentence_is_within_bounds() {
    let mut errors: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for g in gold() {
        let m =
            measure(std::slice::from_ref(&g.text), &g.first, &g.second).expect("a supported pair");
        let error = if m.is_available() {
            (m.embedded_ratio - g.share).abs()
        } else {
            1.0
        };
        if error > 0.2 {
            eprintln!(
                "{:.2} off: {} (gold {:.2}, measured {:.2})",
                error, g.text, g.share, m.embedded_ratio
            );
        }
        errors.entry(g.group).or_default().push(error);
    }
    let mut report = Vec::new();
    for (group, e) in &errors {
        let mae = e.iter().sum::<f64>() / e.len() as f64;
        report.push(format!("{group}: {} sentences, MAE {mae:.3}", e.len()));
        let bound = if group.contains("romanized") {
            0.10
        } else {
            0.05
        };
        assert!(
            mae <= bound,
            "{group}: MAE {mae:.3} > {bound}\n{}",
            report.join("\n")
        );
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        errors
            .get("Hindi-English (romanized)")
            .is_some_and(|e| e.len() >= 25)
    );
    assert_eq!(errors.len(), 6, "{report:?}");
}

#[test]
fn the_reference_example_is_no_longer_all_english() {
    let m = measure(
        &["Maine kal tumhe phone kiya tha".to_owned()],
        "Hindi",
        "English",
    )
    .expect("pair");
    assert_eq!(m.status, MeasurementStatus::Ok);
    assert_eq!((m.tagged.first, m.tagged.second), (5, 1), "{m:?}");
    assert_eq!(m.switch_points, 2);
}

#[test]
fn pairs_the_tagger_cannot_separate_or_scripts_it_cannot_read_are_unavailable() {
    // Mandarin and Cantonese are both Chinese to the tagger: an error here; the pipeline's bridge
    // turns it into an `unavailable` record (agents' measure_batch).
    assert!(measure(&["我哋去食饭".to_owned()], "Mandarin", "Cantonese").is_err());
    // Pinyin Chinese asked for: Latin letters would all count as English.
    let pair = LanguagePair::parse("Chinese", "English").expect("pair");
    let m = pair.measure_with(
        &["wo jintian hen busy".to_owned()],
        Some(ScriptHint::Romanized),
    );
    assert_eq!(m.status, MeasurementStatus::Unavailable);
    let json = serde_json::to_value(&m).expect("json");
    for figure in [
        "embedded_ratio",
        "switch_points",
        "cmi",
        "m_index",
        "i_index",
        "burstiness",
    ] {
        assert!(json[figure].is_null(), "{figure} must be null: {json}");
    }
    assert!(
        json["status_reason"]
            .as_str()
            .is_some_and(|r| r.contains("romanized Chinese")),
        "{json}"
    );
    // Romanized Hindi has a detector: measured.
    let pair = LanguagePair::parse("Hindi", "English").expect("pair");
    let m = pair.measure_with(
        &["Mujhe yeh movie bahut boring lagi".to_owned()],
        Some(ScriptHint::Romanized),
    );
    assert_eq!(m.status, MeasurementStatus::Ok, "{m:?}");
    assert_eq!((m.tagged.first, m.tagged.second), (4, 2), "{m:?}");
    // Arabizi (no detector): digits-for-letters words are neither English nor numbers.
    let m = measure(
        &["ana 3ayez aroo7 el meeting bokra".to_owned()],
        "Arabic",
        "English",
    )
    .expect("pair");
    assert!(m.untagged.ambiguous >= 2, "{m:?}");
}

#[test]
fn low_coverage_and_no_switch_are_said_not_guessed() {
    // Nothing taggable: unavailable, not "0% embedded".
    let m = measure(&["zzqx vvbn".to_owned()], "Hindi", "English").expect("pair");
    assert_eq!(m.status, MeasurementStatus::Unavailable);
    // One language only: burstiness has nothing to describe.
    let m = measure(
        &[
            "I went to the market today".to_owned(),
            "It was very busy".to_owned(),
        ],
        "Arabic",
        "English",
    )
    .expect("pair");
    assert_eq!(m.switch_points, 0);
    assert_eq!(m.burstiness, None);
    assert_eq!(m.status, MeasurementStatus::Ok);
    assert_eq!(m.coverage, Some(1.0));
}

/// Break-it findings: monolingual text must measure as monolingual. English sentences whose
/// words are also frequent Hindi chat spellings ("he", "main", "has") and Hindi sentences whose
/// words are also English ("to", "us", "hi") gave switch points, and the gate accepted them.
#[test]
fn monolingual_romanized_text_has_no_switch_points() {
    let pair = LanguagePair::parse("Hindi", "English").expect("pair");
    for english in [
        "He is in the main hall.",
        "The main reason is simple.",
        "He has a car.",
        "I will do it in the main office.",
        "To do is to be.",
        "I am so happy to see us here.",
    ] {
        let m = pair.measure_with(&[english.to_owned()], Some(ScriptHint::Romanized));
        assert_eq!(m.tagged.first, 0, "{english}: {m:?}");
        assert_eq!(m.switch_points, 0, "{english}: {m:?}");
    }
    let m = pair.measure_with(
        &["Main to us din ghar par hi tha.".to_owned()],
        Some(ScriptHint::Romanized),
    );
    assert_eq!(m.tagged.second, 0, "{m:?}");
    assert_eq!(m.switch_points, 0, "{m:?}");
    // Real switching keeps its switch points, and the contested words are marked inferred.
    let words = pair.tag("Main kal office gaya tha");
    assert!(
        words.iter().any(|w| w.text == "Main" && w.inferred),
        "{words:?}"
    );
    let m = pair.measure(&["Main kal office gaya tha".to_owned()]);
    assert_eq!(m.switch_points, 2, "{m:?}");
    // "Main", "kal" and "tha" are in both lists (settled Hindi); "gaya" and "office" are firm.
    assert_eq!(m.sentences[0].inferred.first, 3, "{m:?}");
    assert_eq!(m.sentences[0].inferred.second, 0, "{m:?}");
}

/// Break-it finding: in a pair of English with a non-Latin language, every Latin word counted
/// as English with coverage 1.0 — gibberish, French, Arabizi without digits, pinyin.
#[test]
fn latin_words_beside_a_non_latin_language_must_be_english_words() {
    let m = measure(&["xqzv blorf ptang zorp".to_owned()], "Arabic", "English").expect("pair");
    assert_eq!(m.status, MeasurementStatus::Unavailable, "{m:?}");
    for foreign in [
        "je suis très content aujourd hui",
        "ich bin sehr müde heute",
    ] {
        let m = measure(&[foreign.to_owned()], "Arabic", "English").expect("pair");
        assert_ne!(m.status, MeasurementStatus::Ok, "{foreign}: {m:?}");
    }
    let m = measure(
        &[
            "أنا رايح el souk bokra".to_owned(),
            "حبيبي enta fein".to_owned(),
            "يلا nrouh el beit".to_owned(),
        ],
        "Arabic",
        "English",
    )
    .expect("pair");
    // Only "el" is an English word (of the list): the rest is left ambiguous, so the coverage
    // is low and the gate cannot decide on it.
    assert!(m.tagged.second <= 2, "{m:?}");
    assert_ne!(m.status, MeasurementStatus::Ok, "{m:?}");
    let m = measure(&["ni hao wo hen xiang ni".to_owned()], "Chinese", "English").expect("pair");
    assert_ne!(m.status, MeasurementStatus::Ok, "{m:?}");
    // English words keep their tag.
    let m = measure(
        &["أنا رايح الـ meeting بكرة".to_owned()],
        "Arabic",
        "English",
    )
    .expect("pair");
    assert_eq!((m.tagged.first, m.tagged.second), (4, 1), "{m:?}");
}

/// Probe set 26i: a bare domain with a path, a file name, a path, a hashtag, a handle and code
/// identifiers (camelCase, snake_case) are no words of a language, in a Latin pair too.
#[test]
fn domains_paths_hashtags_handles_and_identifiers_are_not_words() {
    for (first, text) in [
        (
            "Spanish",
            "Más información en tienda.example.com/best-deals-for-you",
        ),
        ("Spanish", "Feliz lunes a todos #MondayMotivation #nofilter"),
        (
            "Spanish",
            "Síguenos en @thebestcoffeeshop para ver las ofertas",
        ),
        ("Portuguese", "O endpoint /api/v1/users/delete-account caiu"),
        ("Portuguese", "A variável isLoggedIn volta falsa"),
        (
            "French",
            "Le fichier s'appelle user_settings_backup.json, dans le dossier.",
        ),
        ("Italian", "Nel file config.yaml cambia il valore."),
    ] {
        let m = measure(&[text.to_owned()], first, "English").expect("pair");
        let english: Vec<&str> = m.sentences[0]
            .tokens
            .iter()
            .filter(|t| t.tag == codeswitch::WordTag::Lang(codeswitch::Language::English))
            .filter(|t| codeswitch::is_firm_word(m.first_language, m.second_language, t))
            .map(|t| t.text.as_str())
            .collect();
        assert!(english.is_empty(), "{text}: firm English {english:?}");
    }
    // A sentence cut by a slash stays two words ("comida/snacks"); a dot ends a sentence.
    let m = measure(
        &["Compramos comida/snacks. Then we left.".to_owned()],
        "Spanish",
        "English",
    )
    .expect("pair");
    assert!(m.tagged.second >= 3, "{m:?}");
}

/// Probe set 26i: an English title written with capitals inside the other language's text is a
/// name, not a switch; a lower-case English clause, or one that starts with "I", stays English.
#[test]
fn capitalised_english_titles_are_names() {
    for (first, text) in [
        (
            "Spanish",
            "Ayer pusieron The good, the bad and the ugly en la filmoteca.",
        ),
        (
            "Spanish",
            "Mi canción preferida de los Beatles es All you need is love.",
        ),
        (
            "French",
            "J'ai relu The catcher in the rye pendant les vacances.",
        ),
        ("French", "Crazy, Stupid, Love passe ce soir à la télé."),
        (
            "French",
            "Tu connais la chanson I Can't Get No Satisfaction ?",
        ),
        (
            "German",
            "Mein Lieblingslied ist immer noch Smells Like Teen Spirit.",
        ),
        (
            "Portuguese",
            "Minha série favorita ainda é How I Met Your Mother.",
        ),
    ] {
        let m = measure(&[text.to_owned()], first, "English").expect("pair");
        assert_eq!(m.tagged.second, 0, "{text}: {m:?}");
    }
    for (first, text) in [
        ("Spanish", "Ayer fuimos al cine, but the movie was boring."),
        (
            "French",
            "Ma fille écoute en boucle, I will always love you.",
        ),
        ("German", "Wir haben ein Meeting, aber I think it's fine."),
    ] {
        let m = measure(&[text.to_owned()], first, "English").expect("pair");
        assert!(m.tagged.second >= 3, "{text}: {m:?}");
    }
}

/// Second break-it round: a URL's words and acronyms were English evidence in a monolingual
/// Russian, Chinese or Arabic text.
#[test]
fn links_and_acronyms_are_not_english_words() {
    for (first, text) in [
        ("Russian", "Посмотри тут: https://example.com/news/today"),
        ("Russian", "Он работает в NASA и в IBM."),
        ("Chinese", "我今天很忙，请看 https://example.com/news/today"),
        ("Chinese", "他在NASA工作，以前在IBM。"),
        (
            "Arabic",
            "أنا مشغول اليوم، شوف https://example.com/news/today",
        ),
        ("Arabic", "راسلني على ali@example.com"),
    ] {
        let m = measure(&[text.to_owned()], first, "English").expect("pair");
        assert_eq!(m.tagged.second, 0, "{text}: {m:?}");
        assert_eq!(m.switch_points, 0, "{text}: {m:?}");
    }
    // Romanized sentences say so; native-script ones do not.
    let pair = LanguagePair::parse("Hindi", "English").expect("pair");
    let m = pair.measure(&[
        "Mere pass paise nahi hai".to_owned(),
        "मैं घर जा रहा हूँ".to_owned(),
    ]);
    assert!(
        m.sentences[0].romanized && !m.sentences[1].romanized,
        "{m:?}"
    );
}
