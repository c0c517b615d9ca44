//! Code-switching metrics on tiny constructed tag sequences with hand-computed values, one
//! end-to-end batch, edge cases, the serialized shape, and property tests of the ranges.

use codeswitch::{
    Language, LanguageCounts, LanguagePair, Measurement, UntaggedCounts, UntaggedReason, WordTag,
    measure,
};
use proptest::prelude::*;

const AR: WordTag = WordTag::Lang(Language::Arabic);
const EN: WordTag = WordTag::Lang(Language::English);
const ES: WordTag = WordTag::Lang(Language::Spanish);
const NUM: WordTag = WordTag::Untagged(UntaggedReason::Number);
const SYM: WordTag = WordTag::Untagged(UntaggedReason::Symbol);

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() < 1e-9
}

#[test]
fn one_sentence_three_spans() {
    // E E | S S S | E with first = English, second = Spanish.
    //   ratio = 3/6; switches = 2; CMI = 100·(1 − 3/6) = 50; M = (1 − 0.5)/0.5 = 1;
    //   I = 2/(6 − 1) = 0.4; spans 2,3,1: m = 2, σ = √(2/3), B = (σ − 2)/(σ + 2).
    let m = Measurement::from_tags(
        Language::English,
        Language::Spanish,
        &[vec![EN, EN, ES, ES, ES, EN]],
    );
    assert_eq!(
        m.tagged,
        LanguageCounts {
            first: 3,
            second: 3
        }
    );
    assert_eq!(m.words, 6);
    assert!(close(m.embedded_ratio, 0.5));
    assert_eq!(m.switch_points, 2);
    assert!(close(m.cmi, 50.0));
    assert!(close(m.m_index, 1.0));
    assert!(close(m.i_index, 0.4));
    let sigma = (2.0f64 / 3.0).sqrt();
    let b = m.burstiness.expect("three spans");
    assert!(close(b, (sigma - 2.0) / (sigma + 2.0)), "{b}");
    assert!(close(b, -0.420_204_102_886_728_8), "{b}");
    // A tie goes to the first language.
    assert_eq!(m.matrix_language, Some(Language::English));
}

#[test]
fn two_sentences_untagged_words_are_skipped_not_span_breakers() {
    // s1 = A A A A; s2 = A E 3 A ! E  (first = Arabic, second = English)
    //   s1: 4/0 tagged, 0 switches, CMI 0, span [4]
    //   s2: tagged A E A E → 2/2, 3 switches, CMI 50, spans [1,1,1,1]; words 5 (symbol excluded)
    //   batch: ratio 2/8 = 0.25; CMI (0 + 50)/2 = 25;
    //   M: Σp² = 0.75² + 0.25² = 0.625 → 0.375/0.625 = 0.6;
    //   I: positions (4 − 1) + (4 − 1) = 6 → 3/6 = 0.5;
    //   spans 4,1,1,1,1: m = 1.6, σ² = (2.4² + 4·0.6²)/5 = 1.44 → σ = 1.2, B = −0.4/2.8.
    let m = Measurement::from_tags(
        Language::Arabic,
        Language::English,
        &[vec![AR, AR, AR, AR], vec![AR, EN, NUM, AR, SYM, EN]],
    );
    assert_eq!(
        m.tagged,
        LanguageCounts {
            first: 6,
            second: 2
        }
    );
    assert_eq!(
        m.untagged,
        UntaggedCounts {
            number: 1,
            symbol: 1,
            ..UntaggedCounts::default()
        }
    );
    assert_eq!(m.words, 9);
    assert!(close(m.embedded_ratio, 0.25));
    assert_eq!(m.matrix_language, Some(Language::Arabic));
    assert_eq!(m.switch_points, 3);
    assert!(close(m.cmi, 25.0));
    assert!(close(m.m_index, 0.6));
    assert!(close(m.i_index, 0.5));
    assert!(close(m.burstiness.expect("five spans"), -0.4 / 2.8));

    assert_eq!(m.sentences.len(), 2);
    assert_eq!(m.sentences[0].words, 4);
    assert!(close(m.sentences[0].embedded_ratio, 0.0));
    assert!(close(m.sentences[0].cmi, 0.0));
    assert_eq!(m.sentences[1].words, 5);
    assert_eq!(m.sentences[1].switch_points, 3);
    assert!(close(m.sentences[1].embedded_ratio, 0.5));
    assert!(close(m.sentences[1].cmi, 50.0));
}

#[test]
fn second_language_majority_becomes_matrix_and_foreign_tags_are_other() {
    let m = Measurement::from_tags(Language::Arabic, Language::English, &[vec![EN, EN, AR, ES]]);
    assert_eq!(m.matrix_language, Some(Language::English));
    assert_eq!(m.untagged.other_language, 1);
    assert_eq!(m.words, 4);
    assert!(close(m.embedded_ratio, 2.0 / 3.0));
}

fn ar_en_batch() -> Vec<String> {
    vec![
        "أنا رايح الـ meeting بكرة مع Ahmed في Dubai الساعة 3!".to_owned(),
        "Honestly, الشغل كان too much اليوم.".to_owned(),
    ]
}

#[test]
fn arabic_english_batch_end_to_end() {
    // Hand tags (see codeswitch_tagging.rs):
    //   s1: Ar Ar Ar En Ar Ar Name Ar Name Ar Num Sym → tagged Ar Ar Ar En Ar Ar Ar Ar:
    //       7/1, 2 switches, spans 3,1,4, CMI 100·(1 − 7/8) = 12.5, 11 words
    //   s2: En Sym Ar Ar En En Ar Sym → tagged En Ar Ar En En Ar:
    //       3/3, 3 switches, spans 1,2,2,1, CMI 50, 6 words
    //   batch: 10/4 → ratio 4/14; CMI 31.25; M = (1 − 116/196)/(116/196) = 80/116;
    //   I = 5/(7 + 5); spans 3,1,4,1,2,2,1: m = 2, σ² = 8/7, B = (σ − 2)/(σ + 2).
    let m = measure(&ar_en_batch(), "Arabic", "English").expect("supported pair");
    assert_eq!(m.words, 17);
    assert_eq!(
        m.tagged,
        LanguageCounts {
            first: 10,
            second: 4
        }
    );
    assert_eq!(
        m.untagged,
        UntaggedCounts {
            number: 1,
            name: 2,
            symbol: 3,
            ..UntaggedCounts::default()
        }
    );
    assert!(close(m.embedded_ratio, 4.0 / 14.0));
    assert_eq!(m.switch_points, 5);
    assert!(close(m.cmi, 31.25));
    assert!(close(m.m_index, 80.0 / 116.0));
    assert!(close(m.i_index, 5.0 / 12.0));
    let sigma = (8.0f64 / 7.0).sqrt();
    assert!(close(
        m.burstiness.expect("seven spans"),
        (sigma - 2.0) / (sigma + 2.0)
    ));
    assert_eq!(m.sentences[0].switch_points, 2);
    assert!(close(m.sentences[0].cmi, 12.5));
    assert_eq!(m.sentences[1].switch_points, 3);
}

#[test]
fn serialized_field_names_are_stable() {
    let m = measure(&ar_en_batch(), "Arabic", "English").expect("supported pair");
    insta::assert_json_snapshot!("codeswitch_ar_en_measurement", m);
}

#[test]
fn empty_batch_and_empty_sentences() {
    for batch in [vec![], vec![String::new(), "   ".to_owned()]] {
        let m = measure(&batch, "Spanish", "English").expect("supported pair");
        assert_eq!(m.words, 0);
        assert_eq!(m.tagged.total(), 0);
        assert_eq!(m.embedded_ratio, 0.0);
        assert_eq!(m.matrix_language, None);
        assert_eq!(m.switch_points, 0);
        assert_eq!(m.cmi, 0.0);
        assert_eq!(m.m_index, 0.0);
        assert_eq!(m.i_index, 0.0);
        assert_eq!(m.burstiness, None);
        assert_eq!(m.sentences.len(), batch.len());
    }
}

#[test]
fn all_untagged_batch() {
    let batch = vec!["2024 😀 ok !!! 3rd".to_owned()];
    let m = measure(&batch, "Arabic", "English").expect("supported pair");
    assert_eq!(m.tagged.total(), 0);
    assert_eq!(m.untagged.number, 2);
    assert_eq!(m.untagged.ambiguous, 1);
    // UAX#29 makes each "!" its own segment: emoji + three "!" = 4 symbols.
    assert_eq!(m.untagged.symbol, 4);
    assert_eq!(m.words, 3);
    assert_eq!(m.embedded_ratio, 0.0);
    assert_eq!(m.matrix_language, None);
    assert_eq!(m.burstiness, None);
}

#[test]
fn one_language_only() {
    // Only English (the embedded language) appears: ratio 1, nothing mixed.
    let batch = vec!["We had such a great time at the beach.".to_owned()];
    let m = measure(&batch, "Arabic", "English").expect("supported pair");
    assert_eq!(
        m.tagged,
        LanguageCounts {
            first: 0,
            second: 9
        }
    );
    assert_eq!(m.embedded_ratio, 1.0);
    assert_eq!(m.matrix_language, Some(Language::English));
    assert_eq!(m.switch_points, 0);
    assert_eq!(m.cmi, 0.0);
    assert_eq!(m.m_index, 0.0);
    assert_eq!(m.i_index, 0.0);
    assert_eq!(m.burstiness, None, "one span has no spread");
}

fn any_tag() -> impl Strategy<Value = WordTag> {
    prop_oneof![
        Just(WordTag::Lang(Language::Hindi)),
        Just(WordTag::Lang(Language::English)),
        Just(WordTag::Lang(Language::Russian)),
        Just(WordTag::Untagged(UntaggedReason::Number)),
        Just(WordTag::Untagged(UntaggedReason::Name)),
        Just(WordTag::Untagged(UntaggedReason::Ambiguous)),
        Just(WordTag::Untagged(UntaggedReason::OtherLanguage)),
        Just(WordTag::Untagged(UntaggedReason::Symbol)),
    ]
}

fn assert_in_range(m: &Measurement) -> Result<(), TestCaseError> {
    prop_assert!((0.0..=1.0).contains(&m.embedded_ratio));
    prop_assert!((0.0..=50.0 + 1e-9).contains(&m.cmi));
    prop_assert!((0.0..=1.0).contains(&m.m_index));
    prop_assert!((0.0..=1.0).contains(&m.i_index));
    if let Some(b) = m.burstiness {
        prop_assert!((-1.0..=1.0).contains(&b));
    }
    prop_assert_eq!(m.words, m.tagged.total() + m.untagged.words());
    prop_assert!(m.switch_points <= m.tagged.total().saturating_sub(1));
    for s in &m.sentences {
        prop_assert!((0.0..=1.0).contains(&s.embedded_ratio));
        prop_assert!((0.0..=50.0 + 1e-9).contains(&s.cmi));
    }
    Ok(())
}

proptest! {
    #[test]
    fn metrics_stay_in_range_for_any_tags(
        sentences in prop::collection::vec(prop::collection::vec(any_tag(), 0..12), 0..5)
    ) {
        let m = Measurement::from_tags(Language::Hindi, Language::English, &sentences);
        assert_in_range(&m)?;
        prop_assert_eq!(m.sentences.len(), sentences.len());
    }

    #[test]
    fn measuring_arbitrary_text_never_fails(
        batch in prop::collection::vec("\\PC{0,40}", 0..4)
    ) {
        for (first, second) in [("Arabic", "English"), ("Chinese", "Japanese")] {
            let m = measure(&batch, first, second).expect("supported pair");
            assert_in_range(&m)?;
        }
    }
}

proptest! {
    // The lingua path is slower per word; fewer cases keep the suite fast.
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn measuring_arbitrary_latin_text_never_fails(
        batch in prop::collection::vec("[a-zA-Zñé' ,.!]{0,40}", 0..4)
    ) {
        let pair = LanguagePair::parse("Spanish", "English").expect("supported pair");
        assert_in_range(&pair.measure(&batch))?;
    }
}
