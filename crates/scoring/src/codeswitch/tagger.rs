//! Word-level language tagging for one language pair: segmentation, script tagging, the
//! name heuristic, the function-word lexicons and the cached lingua detector per Latin pair.
//!
//! The tagger never guesses: a word it cannot attribute to exactly one language of the pair is
//! returned untagged with the reason, so the metrics can leave it out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use lingua::{LanguageDetector, LanguageDetectorBuilder};
use serde::{Deserialize, Serialize};
use unicode_script::{Script, UnicodeScript};
use unicode_segmentation::UnicodeSegmentation;

use super::{CodeSwitchError, Language, lexicon};

/// Minimum lingua confidence (the two confidences of a pair sum to 1) for a Latin word to be
/// tagged; below it the word is [`UntaggedReason::Ambiguous`]. Chosen from single-word
/// confidences measured on pair-restricted detectors: the wrong calls we saw ("fun", "mom",
/// "go" → Spanish in en/es; "boss" → German in de/en; loanwords such as "hotel", "normal")
/// all sat at 0.50–0.61, while correct short words such as "hola" (0.66), "nice" (0.69) and
/// "fun" in en/fr (0.68) sit just above 0.65.
pub const LATIN_CONFIDENCE_THRESHOLD: f64 = 0.65;

/// One lingua detector per unordered Latin pair, shared by every [`LanguagePair`] and thread.
type DetectorCache = HashMap<(lingua::Language, lingua::Language), Arc<LanguageDetector>>;

/// Why a token was left out of the language counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UntaggedReason {
    /// Digits only, or starting with a digit: "2024", "٣", "१०", "3rd", "10am".
    Number,
    /// A likely proper name: a capitalised Latin-script word that does not start a sentence
    /// (the heuristic is off when German is in the pair, since German capitalises every noun).
    Name,
    /// Letters both languages of the pair could claim and nothing decided between them: a
    /// lingua confidence below [`LATIN_CONFIDENCE_THRESHOLD`], a function word listed for both
    /// languages, a language-neutral chat token ("ok", "haha", "lol"), a one-letter Latin
    /// token, mixed scripts, or Han in a Chinese–Japanese pair.
    Ambiguous,
    /// Letters in a script (or a language) belonging to neither language of the pair, e.g.
    /// Cyrillic in an Arabic–English batch.
    OtherLanguage,
    /// Not a word: punctuation, emoji and other symbol runs. Counted for visibility only and
    /// never part of [`super::Measurement::words`].
    Symbol,
}

/// The tag of one token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WordTag {
    /// The word is in this language.
    Lang(Language),
    /// The token is left out of the language counts, for this reason.
    Untagged(UntaggedReason),
}

/// One token of a sentence with its tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaggedWord {
    /// The token as it appears in the text.
    pub text: String,
    /// Its tag.
    pub tag: WordTag,
}

/// An ordered (matrix, embedded) pair of different languages, ready to tag text.
///
/// Construction is cheap; the lingua detector for a Latin–Latin pair is built on first use and
/// shared process-wide, so creating many `LanguagePair`s for the same languages costs nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LanguagePair {
    first: Language,
    second: Language,
}

impl LanguagePair {
    /// Pairs `first` (matrix) with `second` (embedded).
    ///
    /// # Errors
    /// [`CodeSwitchError::SameLanguage`] when both are the same language (including
    /// "Mandarin"/"Cantonese", which are both [`Language::Chinese`]).
    pub fn new(first: Language, second: Language) -> Result<Self, CodeSwitchError> {
        if first == second {
            return Err(CodeSwitchError::SameLanguage { language: first });
        }
        Ok(Self { first, second })
    }

    /// Parses both names (see [`Language`]'s `FromStr`) and pairs them.
    ///
    /// # Errors
    /// [`CodeSwitchError::UnknownLanguage`] or [`CodeSwitchError::SameLanguage`].
    pub fn parse(first: &str, second: &str) -> Result<Self, CodeSwitchError> {
        Self::new(first.parse()?, second.parse()?)
    }

    /// The matrix (first) language.
    #[must_use]
    pub fn first(self) -> Language {
        self.first
    }

    /// The embedded (second) language.
    #[must_use]
    pub fn second(self) -> Language {
        self.second
    }

    /// Splits `text` into tokens (UAX#29 word boundaries, whitespace dropped) and tags each.
    ///
    /// Han and Hiragana come out of UAX#29 as one token per character (there is no dictionary),
    /// so each such character is one word unit; Katakana runs and Hangul words stay whole.
    #[must_use]
    pub fn tag(self, text: &str) -> Vec<TaggedWord> {
        let names_apply = self.first != Language::German && self.second != Language::German;
        let mut out = Vec::new();
        // A sentence starts at the beginning of the text and after terminal punctuation, a
        // colon (dialogue "A: ...") or a line break (one turn per line); a capitalised word
        // there is not evidence of a name.
        let mut at_sentence_start = true;
        for segment in text.split_word_bounds() {
            if segment.chars().all(char::is_whitespace) {
                if segment.contains('\n') {
                    at_sentence_start = true;
                }
                continue;
            }
            if !segment.chars().any(char::is_alphanumeric) {
                if segment.chars().any(is_sentence_break) {
                    at_sentence_start = true;
                }
                out.push(TaggedWord {
                    text: segment.to_owned(),
                    tag: WordTag::Untagged(UntaggedReason::Symbol),
                });
                continue;
            }
            let tag = self.tag_word(segment, at_sentence_start, names_apply);
            at_sentence_start = false;
            out.push(TaggedWord {
                text: segment.to_owned(),
                tag,
            });
        }
        out
    }

    fn tag_word(self, word: &str, sentence_start: bool, names_apply: bool) -> WordTag {
        let mut first_only = false;
        let mut second_only = false;
        let mut shared_script = None;
        let mut foreign = false;
        let mut has_letter = false;
        for c in word.chars().filter(|c| c.is_alphabetic()) {
            let script = c.script();
            // Common/Inherited letters (rare: some marks and symbols-as-letters) carry no
            // language evidence.
            if matches!(script, Script::Common | Script::Inherited) {
                continue;
            }
            has_letter = true;
            match (
                self.first.uses_script(script),
                self.second.uses_script(script),
            ) {
                (true, true) => shared_script = Some(script),
                (true, false) => first_only = true,
                (false, true) => second_only = true,
                (false, false) => foreign = true,
            }
        }
        // "3rd", "10am", "4G": a leading digit makes the token a number with a unit or suffix,
        // not a word of either language.
        if !has_letter || word.chars().next().is_some_and(char::is_numeric) {
            return WordTag::Untagged(UntaggedReason::Number);
        }
        let all_latin = word
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(|c| c.script() == Script::Latin);
        if all_latin && lexicon::is_language_neutral(&normalise(word)) {
            return WordTag::Untagged(UntaggedReason::Ambiguous);
        }
        if all_latin
            && names_apply
            && !sentence_start
            && looks_like_name(word)
            && !self.is_function_word(word)
        {
            return WordTag::Untagged(UntaggedReason::Name);
        }
        match (first_only, second_only, shared_script, foreign) {
            (true, true, _, _) => WordTag::Untagged(UntaggedReason::Ambiguous),
            (true, false, _, _) => WordTag::Lang(self.first),
            (false, true, _, _) => WordTag::Lang(self.second),
            (false, false, Some(Script::Latin), false) => self.tag_latin(word),
            (false, false, Some(_), false) => WordTag::Untagged(UntaggedReason::Ambiguous),
            (false, false, _, _) => WordTag::Untagged(UntaggedReason::OtherLanguage),
        }
    }

    /// Whether either language of the pair lists `word` as a function word ("I'm" is not a name).
    fn is_function_word(self, word: &str) -> bool {
        let normalised = normalise(word);
        lexicon::is_function_word(self.first, &normalised)
            || lexicon::is_function_word(self.second, &normalised)
    }

    /// Tags a word both languages could claim because both are Latin-script.
    fn tag_latin(self, word: &str) -> WordTag {
        let normalised = normalise(word);
        let in_first = lexicon::is_function_word(self.first, &normalised);
        let in_second = lexicon::is_function_word(self.second, &normalised);
        match (in_first, in_second) {
            (true, true) => return WordTag::Untagged(UntaggedReason::Ambiguous),
            (true, false) => return WordTag::Lang(self.first),
            (false, true) => return WordTag::Lang(self.second),
            (false, false) => {}
        }
        // One letter carries no n-gram evidence worth trusting.
        if normalised.chars().count() < 2 {
            return WordTag::Untagged(UntaggedReason::Ambiguous);
        }
        let Some(detector) = self.detector() else {
            return WordTag::Untagged(UntaggedReason::Ambiguous);
        };
        let best = detector
            .compute_language_confidence_values(normalised.as_str())
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((language, confidence)) if confidence >= LATIN_CONFIDENCE_THRESHOLD => {
                if Some(language) == self.first.lingua() {
                    WordTag::Lang(self.first)
                } else if Some(language) == self.second.lingua() {
                    WordTag::Lang(self.second)
                } else {
                    WordTag::Untagged(UntaggedReason::Ambiguous)
                }
            }
            _ => WordTag::Untagged(UntaggedReason::Ambiguous),
        }
    }

    /// The shared detector restricted to exactly this pair; `None` unless both are Latin.
    fn detector(self) -> Option<Arc<LanguageDetector>> {
        let a = self.first.lingua()?;
        let b = self.second.lingua()?;
        let key = if a <= b { (a, b) } else { (b, a) };
        static DETECTORS: OnceLock<Mutex<DetectorCache>> = OnceLock::new();
        let cache = DETECTORS.get_or_init(|| Mutex::new(HashMap::new()));
        // A poisoned lock only means another thread panicked while inserting; the map itself
        // is still a valid cache.
        let mut cache = cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let detector = cache.entry(key).or_insert_with(|| {
            tracing::debug!(first = ?key.0, second = ?key.1, "building lingua detector for pair");
            Arc::new(
                LanguageDetectorBuilder::from_languages(&[key.0, key.1])
                    .with_preloaded_language_models()
                    .build(),
            )
        });
        Some(Arc::clone(detector))
    }
}

/// Capitalised with at least one lower-case letter after the first ("Dubai", "McDonald"), so
/// all-caps acronyms ("CEO", "AI") and the pronoun "I" are not names.
fn looks_like_name(word: &str) -> bool {
    let mut letters = word.chars().filter(|c| c.is_alphabetic());
    let Some(initial) = letters.next() else {
        return false;
    };
    initial.is_uppercase() && letters.any(char::is_lowercase)
}

/// Lower-cases and folds the typographic apostrophe into `'` for lexicon lookups.
fn normalise(word: &str) -> String {
    word.to_lowercase().replace('\u{2019}', "'")
}

fn is_sentence_break(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | ':' | '…' | '。' | '！' | '？' | '：' | '؟' | '।' | '\n'
    )
}
