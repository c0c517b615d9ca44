//! Word-level tagging on hand-tagged code-switched sentences, one block per language pair, plus
//! the fallbacks (numbers, names, symbols, other scripts) and language-name parsing.
//!
//! Every expected tag below was written by hand from what the word is, not copied from the
//! tagger's output. Where the expectation is `AMB` the word really is shared by both languages
//! of the pair ("a" in English and Spanish, "fin" in English and French) or is a chat token.

use codeswitch::{CodeSwitchError, Language, LanguagePair, UntaggedReason, WordTag, measure};

const AR: WordTag = WordTag::Lang(Language::Arabic);
const EN: WordTag = WordTag::Lang(Language::English);
const HI: WordTag = WordTag::Lang(Language::Hindi);
const ZH: WordTag = WordTag::Lang(Language::Chinese);
const ES: WordTag = WordTag::Lang(Language::Spanish);
const FR: WordTag = WordTag::Lang(Language::French);
const DE: WordTag = WordTag::Lang(Language::German);
const IT: WordTag = WordTag::Lang(Language::Italian);
const MS: WordTag = WordTag::Lang(Language::Malay);
const JA: WordTag = WordTag::Lang(Language::Japanese);
const KO: WordTag = WordTag::Lang(Language::Korean);
const RU: WordTag = WordTag::Lang(Language::Russian);
const AMB: WordTag = WordTag::Untagged(UntaggedReason::Ambiguous);
const NAME: WordTag = WordTag::Untagged(UntaggedReason::Name);
const NUM: WordTag = WordTag::Untagged(UntaggedReason::Number);
const SYM: WordTag = WordTag::Untagged(UntaggedReason::Symbol);
const OTHER: WordTag = WordTag::Untagged(UntaggedReason::OtherLanguage);

fn assert_tagged(first: &str, second: &str, text: &str, expected: &[(&str, WordTag)]) {
    let pair = LanguagePair::parse(first, second).expect("a supported pair");
    let got: Vec<(String, WordTag)> = pair
        .tag(text)
        .into_iter()
        .map(|w| (w.text, w.tag))
        .collect();
    let want: Vec<(String, WordTag)> = expected
        .iter()
        .map(|(word, tag)| ((*word).to_owned(), *tag))
        .collect();
    assert_eq!(got, want, "tags of {text:?}");
}

#[test]
fn arabic_english_by_script_with_names_and_numbers() {
    assert_tagged(
        "Arabic",
        "English",
        "أنا رايح الـ meeting بكرة مع Ahmed في Dubai الساعة 3!",
        &[
            ("أنا", AR),
            ("رايح", AR),
            ("الـ", AR),
            ("meeting", EN),
            ("بكرة", AR),
            ("مع", AR),
            ("Ahmed", NAME),
            ("في", AR),
            ("Dubai", NAME),
            ("الساعة", AR),
            ("3", NUM),
            ("!", SYM),
        ],
    );
    // Sentence-initial capitals are not names.
    assert_tagged(
        "Arabic",
        "English",
        "Honestly, الشغل كان too much اليوم.",
        &[
            ("Honestly", EN),
            (",", SYM),
            ("الشغل", AR),
            ("كان", AR),
            ("too", EN),
            ("much", EN),
            ("اليوم", AR),
            (".", SYM),
        ],
    );
}

#[test]
fn hindi_english_devanagari() {
    assert_tagged(
        "Hindi",
        "English",
        "मैं आज office जा रहा हूँ, but traffic बहुत है 😅",
        &[
            ("मैं", HI),
            ("आज", HI),
            ("office", EN),
            ("जा", HI),
            ("रहा", HI),
            ("हूँ", HI),
            (",", SYM),
            ("but", EN),
            ("traffic", EN),
            ("बहुत", HI),
            ("है", HI),
            ("😅", SYM),
        ],
    );
    assert_tagged(
        "Hindi",
        "English",
        "Meeting के बाद हम coffee पीने चलेंगे।",
        &[
            ("Meeting", EN),
            ("के", HI),
            ("बाद", HI),
            ("हम", HI),
            ("coffee", EN),
            ("पीने", HI),
            ("चलेंगे", HI),
            ("।", SYM),
        ],
    );
}

#[test]
fn chinese_english_counts_each_han_character() {
    assert_tagged(
        "Chinese",
        "English",
        "我今天很 busy，没有 time 吃饭。",
        &[
            ("我", ZH),
            ("今", ZH),
            ("天", ZH),
            ("很", ZH),
            ("busy", EN),
            ("，", SYM),
            ("没", ZH),
            ("有", ZH),
            ("time", EN),
            ("吃", ZH),
            ("饭", ZH),
            ("。", SYM),
        ],
    );
    assert_tagged(
        "Mandarin",
        "English",
        "这个 project 的 deadline 是明天。",
        &[
            ("这", ZH),
            ("个", ZH),
            ("project", EN),
            ("的", ZH),
            ("deadline", EN),
            ("是", ZH),
            ("明", ZH),
            ("天", ZH),
            ("。", SYM),
        ],
    );
}

#[test]
fn spanish_english_with_lingua_restricted_to_the_pair() {
    assert_tagged(
        "Spanish",
        "English",
        "I told my mother que no quiero ir al dentista mañana.",
        &[
            ("I", EN),
            ("told", EN),
            ("my", EN),
            ("mother", EN),
            ("que", ES),
            ("no", ES),
            ("quiero", ES),
            ("ir", ES),
            ("al", ES),
            ("dentista", ES),
            ("mañana", ES),
            (".", SYM),
        ],
    );
    assert_tagged(
        "Spanish",
        "English",
        "We went to the party anoche y bailamos hasta las tres.",
        &[
            ("We", EN),
            ("went", EN),
            ("to", EN),
            ("the", EN),
            ("party", EN),
            ("anoche", ES),
            ("y", ES),
            ("bailamos", ES),
            ("hasta", ES),
            ("las", ES),
            ("tres", ES),
            (".", SYM),
        ],
    );
    // "a" is a function word of both languages: left out rather than guessed.
    assert_tagged(
        "English",
        "Spanish",
        "Vamos a la playa this weekend.",
        &[
            ("Vamos", ES),
            ("a", AMB),
            ("la", ES),
            ("playa", ES),
            ("this", EN),
            ("weekend", EN),
            (".", SYM),
        ],
    );
}

#[test]
fn french_english_with_elisions_and_contractions() {
    assert_tagged(
        "French",
        "English",
        "Je suis tellement tired aujourd'hui, I need coffee.",
        &[
            ("Je", FR),
            ("suis", FR),
            ("tellement", FR),
            ("tired", EN),
            ("aujourd'hui", FR),
            (",", SYM),
            ("I", EN),
            ("need", EN),
            ("coffee", EN),
            (".", SYM),
        ],
    );
    // "fin" is a look-alike of both languages' frequency lists: its French neighbours on both
    // sides settle it (an inferred tag, never firm evidence); "C'est" and "let's" come from
    // the lexicons.
    assert_tagged(
        "French",
        "English",
        "C'est cool, let's go! The movie was amazing, mais la fin était triste.",
        &[
            ("C'est", FR),
            ("cool", EN),
            (",", SYM),
            ("let's", EN),
            ("go", EN),
            ("!", SYM),
            ("The", EN),
            ("movie", EN),
            ("was", EN),
            ("amazing", EN),
            (",", SYM),
            ("mais", FR),
            ("la", FR),
            ("fin", FR),
            ("était", FR),
            ("triste", FR),
            (".", SYM),
        ],
    );
}

#[test]
fn other_latin_pairs() {
    assert_tagged(
        "Malay",
        "English",
        "Saya tak boleh datang lah, I’m very busy with work.",
        &[
            ("Saya", MS),
            ("tak", MS),
            ("boleh", MS),
            ("datang", MS),
            ("lah", MS),
            (",", SYM),
            ("I’m", EN),
            ("very", EN),
            ("busy", EN),
            ("with", EN),
            ("work", EN),
            (".", SYM),
        ],
    );
    // German capitalises nouns, so the name heuristic is off: "Zeit" is German, not a name.
    assert_tagged(
        "German",
        "English",
        "Ich habe heute keine Zeit, but I have to finish my homework.",
        &[
            ("Ich", DE),
            ("habe", DE),
            ("heute", DE),
            ("keine", DE),
            ("Zeit", DE),
            (",", SYM),
            ("but", EN),
            ("I", EN),
            ("have", EN),
            ("to", EN),
            ("finish", EN),
            ("my", EN),
            ("homework", EN),
            (".", SYM),
        ],
    );
    assert_tagged(
        "Italian",
        "English",
        "Andiamo al ristorante tonight, because I'm really hungry.",
        &[
            ("Andiamo", IT),
            ("al", IT),
            ("ristorante", IT),
            ("tonight", EN),
            (",", SYM),
            ("because", EN),
            ("I'm", EN),
            ("really", EN),
            ("hungry", EN),
            (".", SYM),
        ],
    );
}

#[test]
fn other_scripts_japanese_korean_russian() {
    assert_tagged(
        "Japanese",
        "English",
        "今日は tired です。",
        &[
            ("今", JA),
            ("日", JA),
            ("は", JA),
            ("tired", EN),
            ("で", JA),
            ("す", JA),
            ("。", SYM),
        ],
    );
    assert_tagged(
        "Korean",
        "English",
        "오늘 meeting 있어요.",
        &[("오늘", KO), ("meeting", EN), ("있어요", KO), (".", SYM)],
    );
    assert_tagged(
        "Russian",
        "English",
        "Я сегодня очень busy, извини.",
        &[
            ("Я", RU),
            ("сегодня", RU),
            ("очень", RU),
            ("busy", EN),
            (",", SYM),
            ("извини", RU),
            (".", SYM),
        ],
    );
}

#[test]
fn fallbacks_numbers_symbols_chat_tokens_and_foreign_scripts() {
    assert_tagged(
        "Arabic",
        "English",
        "ok 👍🏽 … 2024 ١٢٣ 3rd Москва haha",
        &[
            ("ok", AMB),
            ("👍🏽", SYM),
            ("…", SYM),
            ("2024", NUM),
            ("١٢٣", NUM),
            ("3rd", NUM),
            ("Москва", OTHER),
            ("haha", AMB),
        ],
    );
    // In a pair without a Latin-script language, Latin words belong to neither side.
    assert_tagged(
        "Hindi",
        "Arabic",
        "मैं yalla कहूँ",
        &[("मैं", HI), ("yalla", OTHER), ("कहूँ", HI)],
    );
    // Han is shared by Chinese and Japanese; only Kana decides.
    assert_tagged("Chinese", "Japanese", "我は", &[("我", AMB), ("は", JA)]);
}

/// Capitalised words mid-sentence are names; acronyms beside a non-Latin language ("CEO",
/// "NASA", "IBM") are names too: an acronym is no evidence of a switch to English.
#[test]
fn names_follow_sentence_boundaries_and_acronyms_are_names() {
    assert_tagged(
        "Arabic",
        "English",
        "قابلت Sara. Then رحنا CEO\nMaybe",
        &[
            ("قابلت", AR),
            ("Sara", NAME),
            (".", SYM),
            ("Then", EN),
            ("رحنا", AR),
            ("CEO", NAME),
            ("Maybe", EN),
        ],
    );
}

#[test]
fn language_names_parse_case_insensitively_with_aliases() {
    assert_eq!("arabic".parse::<Language>(), Ok(Language::Arabic));
    assert_eq!(" ENGLISH ".parse::<Language>(), Ok(Language::English));
    assert_eq!("Cantonese".parse::<Language>(), Ok(Language::Chinese));
    assert_eq!("ms".parse::<Language>(), Ok(Language::Malay));
    assert_eq!(
        "Klingon".parse::<Language>(),
        Err(CodeSwitchError::UnknownLanguage {
            name: "Klingon".to_owned()
        })
    );
}

#[test]
fn measure_rejects_unknown_and_identical_languages() {
    let batch = vec!["hola".to_owned()];
    assert_eq!(
        measure(&batch, "Spanish", "Elvish"),
        Err(CodeSwitchError::UnknownLanguage {
            name: "Elvish".to_owned()
        })
    );
    assert_eq!(
        measure(&batch, "Mandarin", "Cantonese"),
        Err(CodeSwitchError::SameLanguage {
            language: Language::Chinese
        })
    );
}

#[test]
fn no_hand_tagged_latin_word_gets_the_wrong_language() {
    // A wider hand-tagged sample for the lingua path: every tagged word must carry the right
    // language (precision), and most words must be tagged at all (coverage).
    // (first, second, words with their true language)
    type Sample<'a> = (&'a str, &'a str, &'a [(&'a str, Language)]);
    let samples: &[Sample<'_>] = &[
        (
            "Spanish",
            "English",
            &[
                ("trabajo", Language::Spanish),
                ("ahora", Language::Spanish),
                ("después", Language::Spanish),
                ("comida", Language::Spanish),
                ("gracias", Language::Spanish),
                ("hermana", Language::Spanish),
                ("weekend", Language::English),
                ("meeting", Language::English),
                ("tired", Language::English),
                ("happy", Language::English),
                ("party", Language::English),
                ("boss", Language::English),
                ("mom", Language::English),
                ("fun", Language::English),
            ],
        ),
        (
            "French",
            "English",
            &[
                ("travail", Language::French),
                ("soir", Language::French),
                ("vraiment", Language::French),
                ("cinéma", Language::French),
                ("weekend", Language::English),
                ("tired", Language::English),
                ("sister", Language::English),
                ("celebrate", Language::English),
            ],
        ),
        (
            "Malay",
            "English",
            &[
                ("makan", Language::Malay),
                ("kerja", Language::Malay),
                ("sedap", Language::Malay),
                ("cantik", Language::Malay),
                ("busy", Language::English),
                ("work", Language::English),
            ],
        ),
    ];
    let mut total = 0usize;
    let mut tagged = 0usize;
    for (first, second, words) in samples {
        let pair = LanguagePair::parse(first, second).expect("a supported pair");
        for (word, truth) in *words {
            total += 1;
            let got = pair.tag(word);
            assert_eq!(got.len(), 1, "{word:?} is one token");
            match got[0].tag {
                WordTag::Lang(language) => {
                    assert_eq!(language, *truth, "{word:?} in {first}/{second}");
                    tagged += 1;
                }
                WordTag::Untagged(reason) => {
                    assert_eq!(reason, UntaggedReason::Ambiguous, "{word:?}");
                }
            }
        }
    }
    // Short English words lingua scores near 0.5 ("mom", "fun") may be left ambiguous; the
    // rest must be tagged.
    assert!(tagged * 10 >= total * 8, "tagged {tagged} of {total}");
}

/// Issue 26: an English word with a Korean particle or an Arabic article attached was one
/// token of mixed script and was dropped as ambiguous; it is two words, one of each language.
#[test]
fn mixed_script_tokens_are_split_into_their_languages() {
    assert_tagged(
        "Korean",
        "English",
        "그 presentation은 좋았어",
        &[("그", KO), ("presentation", EN), ("은", KO), ("좋았어", KO)],
    );
    assert_tagged(
        "Arabic",
        "English",
        "أرسل الـmanager الملف",
        &[("أرسل", AR), ("الـ", AR), ("manager", EN), ("الملف", AR)],
    );
}

/// A Latin token far longer than any word (a model's run of one letter, text glued without
/// spaces) is no evidence of either language: ambiguous, and tagged without lingua, whose
/// n-gram slicing costs the square of the length (a 20,000-letter token took seconds a record,
/// which made the viewer's overview of such a run take minutes).
#[test]
fn a_token_longer_than_any_word_is_ambiguous_and_not_given_to_lingua() {
    for (first, second) in [("es", "en"), ("ar", "en"), ("fr", "en")] {
        let pair = LanguagePair::parse(first, second).expect("pair");
        let long = "x".repeat(200_000);
        let tags = pair.tag(&format!("hola {long} adios"));
        let tag = tags
            .iter()
            .find(|w| w.text.len() == long.len())
            .map(|w| w.tag);
        assert_eq!(
            tag,
            Some(WordTag::Untagged(UntaggedReason::Ambiguous)),
            "{first}-{second}"
        );
    }
    // At the limit, lingua still decides.
    let pair = LanguagePair::parse("es", "en").expect("pair");
    let word = "anticonstitucionalmente";
    assert!(word.chars().count() <= codeswitch::MAX_LINGUA_CHARS);
    let tags = pair.tag(&format!("es {word}"));
    assert_eq!(tags[1].tag, WordTag::Lang(Language::Spanish));
}

/// Round G of issue 26: a file path with a drive letter goes on over folder names with spaces
/// while each piece holds a slash (its slashes are not syllable cuts), and an English clitic is
/// English beside a language whose web word list borrowed it.
#[test]
fn drive_paths_with_spaces_are_symbols_and_english_clitics_are_english() {
    let pair = LanguagePair::parse("Spanish", "English").expect("a supported pair");
    let words = pair.tag("Están en C:/Users/Ana/My Pictures/Beach Trip ahora");
    let language_words: Vec<&str> = words
        .iter()
        .filter(|w| w.tag != SYM)
        .map(|w| w.text.as_str())
        .collect();
    assert_eq!(language_words, ["Están", "en", "Trip", "ahora"]);
    let pair = LanguagePair::parse("Tagalog", "English").expect("a supported pair");
    for word in ["I'm", "let's", "don't", "we've"] {
        let words = pair.tag(&format!("Sige, {word} kain na tayo"));
        let tag = words.iter().find(|w| w.text == word).map(|w| w.tag);
        assert_eq!(tag, Some(EN), "{word}");
    }
}

/// Review 26r: a single Latin letter written against Han characters is a letter of a Chinese
/// word ("i人", "B超", "T恤"), and one against a kaomoji's brackets a letter of the face; with a
/// space around it, "I" is still English.
#[test]
fn latin_letters_glued_to_han_or_a_face_are_no_english() {
    assert_tagged(
        "Chinese",
        "English",
        "我是i人，买了件T恤",
        &[
            ("我", ZH),
            ("是", ZH),
            ("i", AMB),
            ("人", ZH),
            ("，", SYM),
            ("买", ZH),
            ("了", ZH),
            ("件", ZH),
            ("T", AMB),
            ("恤", ZH),
        ],
    );
    assert_tagged(
        "Chinese",
        "English",
        "今天 I really 很累",
        &[
            ("今", ZH),
            ("天", ZH),
            ("I", EN),
            ("really", EN),
            ("很", ZH),
            ("累", ZH),
        ],
    );
}

/// Review 26s: an element symbol spelled like an English word ("He", "In", "As") alone among
/// another script's words is a symbol; in small letters, beside English, or opening a Russian
/// sentence ("No, …") it stays English.
#[test]
fn element_symbols_beside_another_script_are_no_english() {
    let tag = |first: &str, text: &str, word: &str| {
        LanguagePair::parse(first, "English")
            .expect("a supported pair")
            .tag(text)
            .into_iter()
            .find(|w| w.text == word)
            .map(|w| w.tag)
    };
    assert_eq!(
        tag("Russian", "Соединения In и As дороги.", "In"),
        Some(SYM)
    );
    assert_eq!(
        tag("Russian", "Соединения In и As дороги.", "As"),
        Some(SYM)
    );
    assert_eq!(
        tag("Arabic", "عنصر الهيليوم رمزه He وهو غاز", "He"),
        Some(SYM)
    );
    assert_eq!(tag("Japanese", "InとAsを組み合わせる", "In"), Some(SYM));
    assert_eq!(tag("Russian", "No, я не пойду.", "No"), Some(EN));
    assert_eq!(tag("Russian", "Он сказал, что he is busy.", "he"), Some(EN));
    assert_eq!(
        tag("Russian", "Встреча At the office завтра.", "At"),
        Some(EN)
    );
    assert_eq!(tag("Arabic", "رمزه He وهو", "وهو"), Some(AR));
    assert_eq!(tag("Russian", "и", "и"), Some(RU));
    // "I mean, …" opening a sentence is the pronoun, not the Roman numeral.
    assert_eq!(
        tag(
            "Tagalog",
            "I mean, hindi ko naman sinasabing mali siya.",
            "I"
        ),
        Some(EN)
    );
    assert_eq!(
        tag("Spanish", "Isabel I y Carlos I reinaron.", "I"),
        Some(NUM)
    );
}

/// Review 26s: "made in France" used as a noun phrase of another language ("le made in
/// France", "Werkzeug made in Germany") names the origin mark; beside English ("made in China,
/// you know") it is English.
#[test]
fn made_in_marks_inside_another_language_are_names() {
    let tag = |first: &str, text: &str, at: usize| {
        LanguagePair::parse(first, "English")
            .expect("a supported pair")
            .tag(text)
            .into_iter()
            .filter(|w| w.text == "made" || w.text == "in")
            .nth(at)
            .map(|w| w.tag)
    };
    let name = codeswitch::WordTag::Untagged(codeswitch::UntaggedReason::Name);
    let text = "Ma tante n'achète que du made in France ou du made in Italy.";
    for at in 0..4 {
        assert_eq!(tag("French", text, at), Some(name), "{at}");
    }
    assert_eq!(
        tag("Spanish", "Defienden el made in Spain en las ferias.", 0),
        Some(name)
    );
    let english = "Ce sac est made in China, you know, mais il est solide.";
    assert_eq!(tag("French", english, 0), Some(EN));
    assert_eq!(tag("French", english, 1), Some(EN));
    assert_eq!(
        tag("Spanish", "It was made in Mexico y lo compré allá.", 0),
        Some(EN)
    );
}
