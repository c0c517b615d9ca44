//! The pair's own language written in Latin letters beside its script ("Сегодня весь день
//! сидел дома. No on skazal, chto most zakryt", "今天下雨了。women ye you ban fa"): romanized
//! Russian, pinyin, romaji or romanized Korean whose syllables land on English words ("on",
//! "most", "my", "women", "he", "man"). Beside a language in another script a Latin word is
//! English when the English list holds it; in a run of Latin words that the list mostly does
//! not hold, those it holds are such syllables, not a switch ([`untag_transliterated_runs`]).

use std::sync::LazyLock;

use regex::Regex;
use unicode_script::{Script, UnicodeScript};

use super::romanized::Evidence;
use super::{Language, TaggedWord, UntaggedReason, WordTag};

/// A run of Latin words is transliterated when at least this many of its words are no English
/// word (untagged as ambiguous: pinyin "shuo", romaji "sono", Russian "skazal") …
const MIN_FOREIGN: usize = 2;

/// … and English words are less than this share of its words (names and numbers aside). Real
/// English stretches beside Chinese, Russian or Hindi are nearly all words of the English list,
/// with a chat word or two ("yaar, let's go": 2 of 3).
const MAX_ENGLISH_SHARE: f64 = 0.7;

/// A run of at least this many Latin words, every one shaped as syllables of the pair's other
/// language ([`syllable_shaped`]) and one of them no English word (for pinyin, whose syllables
/// are fewer, also a longer run whatever its words), is transliterated too:
/// pinyin, romaji and romanized Korean are mostly syllables the English list holds ("women
/// ye you ban fa, bu yong dan xin": only "xin" is not English).
const MIN_SHAPED_RUN: usize = 3;

/// Pinyin syllables without tones, one or more to a word ("wanshang", "women"): each initial
/// with the finals it takes (so "so", "we", "ve" and "me" are not syllables, and "so we have
/// more time" is English, review 26q).
static PINYIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[bpm](?:a|o|ai|ei|ao|an|en|ang|eng|u|i|ie|iao|ian|in|ing|ou)|f(?:a|o|ei|an|en|ang|eng|u|ou)|[dt](?:a|e|ai|ei|ao|ou|an|ang|eng|ong|i|ie|iao|iu|ian|ing|u|uo|ui|uan|un)|[nl](?:a|e|ai|ei|ao|ou|an|en|ang|eng|ong|i|ie|iao|iu|ian|in|iang|ing|u|uo|uan|un|v|ve|ue|ia|o)|[gkh](?:a|e|ai|ei|ao|ou|an|en|ang|eng|ong|u|ua|uo|uai|ui|uan|un|uang)|[jqx](?:i|ia|ie|iao|iu|ian|in|iang|ing|iong|u|ue|uan|un)|(?:zh|ch|sh|r|z|c|s)(?:a|e|i|ai|ei|ao|ou|an|en|ang|eng|ong|u|ua|uo|uai|ui|uan|un|uang)|y(?:a|o|e|i|ao|ou|an|in|ang|ing|ong|u|ue|uan|un)|w(?:a|o|u|ai|ei|an|en|ang|eng)|a|o|e|ai|ei|ao|ou|an|en|ang|eng|er)+$",
    )
    .expect("a valid regex")
});

/// Hepburn romaji morae ("sore", "aruite", "issho", "gidaimasu").
static ROMAJI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:kk|ss|tt|pp|tch|cch|ky|gy|sh|ch|ny|hy|my|ry|by|py|ts|[kgsztdnhbpmyrwfj])?[aeiou]|n)+$",
    )
    .expect("a valid regex")
});

/// Revised Romanization of Korean syllables ("jogeum", "gidaryeo", "isseumyeon").
static KOREAN_RR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:kk|tt|pp|ss|jj|ch|[gkndtrlmbpsjh])?(?:yae|yeo|wae|ae|eo|eu|oe|wi|ya|yo|yu|ye|wa|wo|we|ui|[aeiou])(?:ng|[gkndtlmbp])?)+$",
    )
    .expect("a valid regex")
});

/// Whether a run of Latin words beside Devanagari is romanized Hindi: at least two of its
/// words are in the romanized Hindi list alone, and more than are in the English list alone
/// ("hum to kab se baithe the, tum hi der se aaye ho": "kab", "baithe", "aaye" are Hindi only,
/// the others are in both lists). A run of English words has few words only Hindi spells so.
fn romanized_hindi(other: Language, run: &[TaggedWord]) -> bool {
    if other != Language::Hindi {
        return false;
    }
    let (mut hindi, mut english) = (0, 0);
    for w in run {
        match Evidence::of(Language::Hindi, &w.text.to_lowercase()) {
            Evidence::Romanized => hindi += 1,
            Evidence::English => english += 1,
            Evidence::Both { .. } | Evidence::Neither => {}
        }
    }
    hindi >= MIN_FOREIGN && hindi > english
}

/// Whether `word` (lower case) is shaped as syllables of `language` written in Latin letters:
/// pinyin for Chinese, romaji for Japanese, Revised Romanization for Korean. Other languages
/// have no such test here (their transliterations hold more words no English list has).
fn syllable_shaped(language: Language, word: &str) -> bool {
    match language {
        Language::Chinese => PINYIN.is_match(word),
        Language::Japanese => ROMAJI.is_match(word),
        Language::Korean => KOREAN_RR.is_match(word),
        _ => false,
    }
}

/// In a pair of English and a language not written in Latin script, a run of Latin words (up
/// to a word of another script or a sentence's end; commas do not end it) with at least
/// [`MIN_FOREIGN`] words the English list does not hold and under [`MAX_ENGLISH_SHARE`] of
/// English words, or a run of [`MIN_SHAPED_RUN`] syllable-shaped words, or a run of romanized
/// Hindi beside Devanagari ([`romanized_hindi`]), is the other language
/// transliterated: its English-tagged words become ambiguous, no evidence of English (the
/// measurement's coverage says that words could not be placed). Only in a text that holds the
/// other language's script: a text written wholly in Latin letters is read as romanized text.
pub(crate) fn untag_transliterated_runs(first: Language, second: Language, out: &mut [TaggedWord]) {
    let ((Language::English, other) | (other, Language::English)) = (first, second) else {
        return;
    };
    if other.uses_script(Script::Latin) {
        return;
    }
    // Only beside the other language's script: a text in Latin letters alone is read as
    // romanized text, or left ambiguous word by word.
    let own_script = |w: &TaggedWord| {
        w.text
            .chars()
            .any(|c| c.is_alphabetic() && c.script() != Script::Latin)
    };
    if !out.iter().any(own_script) {
        return;
    }
    let english = WordTag::Lang(Language::English);
    let ambiguous = WordTag::Untagged(UntaggedReason::Ambiguous);
    let latin = |w: &TaggedWord| {
        let mut letters = w.text.chars().filter(|c| c.is_alphabetic()).peekable();
        letters.peek().is_some() && letters.all(|c| c.script() == Script::Latin)
    };
    let mut start = 0;
    while start < out.len() {
        let mut end = start;
        let (mut english_words, mut foreign) = (0, 0);
        while end < out.len() {
            let w = &out[end];
            if w.tag == english && latin(w) {
                english_words += 1;
            } else if w.tag == ambiguous && latin(w) {
                foreign += 1;
            } else if ends_run(w) {
                break;
            }
            end += 1;
        }
        let words = english_words + foreign;
        #[allow(clippy::cast_precision_loss)]
        let share = english_words as f64 / words.max(1) as f64;
        let shaped = || {
            out[start..end]
                .iter()
                .filter(|w| (w.tag == english || w.tag == ambiguous) && latin(w))
                .all(|w| syllable_shaped(other, &w.text.to_lowercase()))
        };
        if (foreign >= MIN_FOREIGN && share < MAX_ENGLISH_SHARE)
            || (words >= MIN_SHAPED_RUN
                && (foreign >= 1 || (other == Language::Chinese && words > MIN_SHAPED_RUN))
                && shaped())
            || romanized_hindi(other, &out[start..end])
        {
            for w in &mut out[start..end] {
                if w.tag == english && latin(w) {
                    w.tag = ambiguous;
                    w.inferred = false;
                }
            }
        }
        start = end + 1;
    }
}

/// A word in another script than Latin, or a sentence's end, ends a run of Latin words.
fn ends_run(w: &TaggedWord) -> bool {
    let letters = w.text.chars().any(char::is_alphabetic);
    if letters {
        return w
            .text
            .chars()
            .filter(|c| c.is_alphabetic())
            .any(|c| c.script() != Script::Latin);
    }
    w.text
        .chars()
        .any(|c| super::words::ends_sentence(c) || c == '\n')
}

#[cfg(test)]
mod tests {
    use crate::{Language, LanguagePair, WordTag};

    fn english_words(first: Language, text: &str) -> Vec<String> {
        LanguagePair::new(first, Language::English)
            .expect("a pair")
            .tag(text)
            .into_iter()
            .filter(|w| w.tag == WordTag::Lang(Language::English))
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn transliterated_runs_are_no_english_and_real_switches_are() {
        assert!(
            english_words(
                Language::Russian,
                "Сегодня весь день сидел дома. No on skazal, chto most zakryt, a my ne znali."
            )
            .is_empty()
        );
        assert!(
            english_words(
                Language::Chinese,
                "老师说明天的考试推迟了。women ye you ban fa, bu yong dan xin."
            )
            .is_empty()
        );
        assert_eq!(
            english_words(
                Language::Chinese,
                "我今天很累，but the meeting is at three, 没办法。"
            ),
            ["but", "the", "meeting", "is", "at", "three"]
        );
        assert_eq!(
            english_words(Language::Russian, "Я устал, so tired, честно."),
            ["so", "tired"]
        );
    }
}
