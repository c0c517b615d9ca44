//! Issue 26, hostile gate review 26f: the lower-case words joining a multi-word name or title
//! are part of the name, not evidence of their language, and a space-like character inside a
//! word does not split it into pieces of another language, and Bavarian "I", "is", "a" are not
//! firm English. The sentences are the review's.

use codeswitch::{Language, LanguagePair, UntaggedReason, WordTag};

const NAME: WordTag = WordTag::Untagged(UntaggedReason::Name);

/// The tags of `text`'s words (symbols left out), as (word, tag).
fn tags(first: &str, second: &str, text: &str) -> Vec<(String, WordTag)> {
    LanguagePair::parse(first, second)
        .expect("a supported pair")
        .tag(text)
        .into_iter()
        .filter(|w| w.tag != WordTag::Untagged(UntaggedReason::Symbol))
        .map(|w| (w.text, w.tag))
        .collect()
}

fn tag_of(tags: &[(String, WordTag)], word: &str) -> WordTag {
    tags.iter()
        .find(|(w, _)| w == word)
        .unwrap_or_else(|| panic!("{word} in {tags:?}"))
        .1
}

#[test]
fn joiners_inside_a_name_or_title_are_part_of_the_name_in_every_pair() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "Spanish",
            "English",
            "Anoche vimos otra vez Pirates of the Caribbean con los niños.",
            &["Pirates", "of", "the", "Caribbean"],
        ),
        (
            "Spanish",
            "English",
            "Mi tío trabaja en el Bank of America de Miami.",
            &["Bank", "of", "America", "de", "Miami"],
        ),
        // At the start of a sentence too.
        (
            "Spanish",
            "English",
            "Beauty and the Beast es mi película favorita.",
            &["Beauty", "and", "the", "Beast"],
        ),
        // German pairs, where capitalised words are not names by themselves.
        (
            "German",
            "English",
            "Gestern haben wir wieder Game of Thrones geschaut.",
            &["Game", "of", "Thrones"],
        ),
        (
            "German",
            "English",
            "The Commission president Ursula von der Leyen spoke in Brussels today.",
            &["Ursula", "von", "der", "Leyen"],
        ),
        (
            "Italian",
            "English",
            "We saw a painting by Piero della Francesca in the gallery.",
            &["Piero", "della", "Francesca"],
        ),
        (
            "Malay",
            "English",
            "The award went to Nurul binti Osman from Penang.",
            &["Nurul", "binti", "Osman"],
        ),
        (
            "Spanish",
            "English",
            "Next I want to read something about the Duque de Alba y Berwick.",
            &["Duque", "de", "Alba", "y", "Berwick"],
        ),
    ];
    for (first, second, text, name) in cases {
        let got = tags(first, second, text);
        for word in *name {
            assert_eq!(tag_of(&got, word), NAME, "{word} in {text:?}: {got:?}");
        }
    }
}

#[test]
fn joiners_of_the_surrounding_language_and_lower_case_switches_keep_their_tags() {
    let en = WordTag::Lang(Language::English);
    // A lower-case switch is no name.
    let got = tags("Spanish", "English", "Vamos al mall and then we eat tacos.");
    assert_eq!(tag_of(&got, "and"), en, "{got:?}");
    assert_eq!(tag_of(&got, "then"), en, "{got:?}");
    // "Tom and Jerry" in English text: "and" is English like the words beside it.
    let got = tags("Spanish", "English", "The kids love Tom and Jerry so much.");
    assert_eq!(tag_of(&got, "and"), en, "{got:?}");
    // German nouns joined by a German article stay German.
    let got = tags(
        "German",
        "English",
        "Ich mag die Farbe der Wand, it looks great.",
    );
    assert_eq!(
        tag_of(&got, "der"),
        WordTag::Lang(Language::German),
        "{got:?}"
    );
}

#[test]
fn a_space_like_character_inside_a_word_does_not_split_it() {
    for separator in ['\u{2800}', '\u{200A}', '\u{3164}', '\u{2009}', '\u{FFA0}'] {
        let text = format!(
            "Mi abuelo fue sold{separator}ado y el in{separator}for{separator}me dice que la \
             can{separator}tante no vino."
        );
        let got = tags("Spanish", "English", &text);
        for word in ["soldado", "informe", "cantante"] {
            assert!(
                got.iter().any(|(w, _)| w == word),
                "{separator:?}: {word} in {got:?}"
            );
        }
        assert!(
            got.iter()
                .all(|(_, t)| *t != WordTag::Lang(Language::English)),
            "{separator:?}: {got:?}"
        );
    }
    // Between words such a character is a space.
    let got = tags("Spanish", "English", "Hola\u{200A} amigo, really\u{2800}.");
    let words: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(words, ["Hola", "amigo", "really"]);
}

#[test]
fn bavarian_words_spelled_like_english_function_words_are_not_firm_english() {
    let pair = LanguagePair::parse("German", "English").expect("a pair");
    for text in [
        "Mia ham no a bissl Zeit, is ned so schlimm.",
        "I hab heit ka Zeit, des is ned so einfach.",
    ] {
        let firm_english: Vec<String> = pair
            .tag(text)
            .into_iter()
            .filter(|w| w.tag == WordTag::Lang(Language::English) && !w.inferred)
            .map(|w| w.text)
            .collect();
        assert!(firm_english.is_empty(), "{text:?}: {firm_english:?}");
    }
    // Beside a firm English word they are English.
    let words = pair.tag("I think the Termin is tomorrow.");
    let i = words.iter().find(|w| w.text == "I").expect("I");
    assert_eq!(i.tag, WordTag::Lang(Language::English));
    assert!(!i.inferred, "{words:?}");
}
