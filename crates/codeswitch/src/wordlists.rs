//! Word-frequency evidence for the Latin-script languages: look-alike words of a pair and a
//! third language a batch may be written in.
//!
//! `data/lexicon/latin/<code>.tsv` hold, per language, the words of wordfreq's `small_<code>`
//! list (PyPI wheel `wordfreq==3.1.1`, CC BY-SA 4.0; see `data/README.md`) with a Zipf
//! frequency of at least 3.3 (about the 20,000 most frequent words), each with its Zipf × 100.
//! They cover the pair languages written in Latin script (English, Spanish, French, German,
//! Italian, Malay) and the likely third languages of a batch in one of their pairs
//! (Portuguese, Filipino/Tagalog, Indonesian, Dutch, Catalan, Romanian).
//!
//! For a Latin–Latin pair a word is:
//! - a **look-alike** when both languages' lists hold it and its two Zipf frequencies are
//!   within [`LOOK_ALIKE_MARGIN`] of each other ("red" es 5.10 / en 5.32, "also" de 6.00 /
//!   en 6.19, "chat", "bank", "total", "but" fr 5.28 / en 6.63): it can be either language, so
//!   it is never firm evidence of one;
//! - **one language's** when only that list holds it, or its frequency there is more than
//!   [`LOOK_ALIKE_MARGIN`] higher ("Brot" is German, "the" at en 7.73 / es 5.42 is English);
//! - **neither's** when neither list holds it: lingua decides, and the word may be a third
//!   language's ([`third_language`]).
//!
//! Beside English, the other language's frequency is read from its **full** vocabulary:
//! `data/lexicon/latin/overlap/<code>.tsv` holds the English list's words that the language's
//! fullest wordfreq list has below the 3.3 floor (Spanish "tuna", French "pond", Italian
//! "stole"), and an English content word is English only [`ENGLISH_FIRM_GAP`] (2.0 Zipf) above
//! that frequency; closer it is a look-alike.

use std::collections::HashMap;
use std::sync::LazyLock;

use unicode_script::{Script, UnicodeScript};

use super::{Language, TaggedWord, UntaggedReason, WordTag};

/// Two Zipf frequencies (× 100) within this of each other make a word a look-alike of the two
/// languages: 1.5, i.e. about 30 times more frequent in one language than in the other. Chosen
/// from the look-alikes that passed the gate ("but" is 1.35 apart in French/English, "will"
/// 0.49 in German/English) while the glue of a real switch stays one language's ("the" is 2.1
/// or more above its Spanish, French, German and Italian web-text frequency, "is" 2.6).
pub(crate) const LOOK_ALIKE_MARGIN: u16 = 150;

/// A word looks like a third language when its Zipf frequency (× 100) there is at least this
/// much above the higher of the pair's (or the pair's lists lack it): 1.0, ten times more
/// frequent. "o" is Portuguese at pt 7.47 / es 6.51 but "de", "que" and "a" stay Spanish.
pub(crate) const THIRD_LANGUAGE_MARGIN: u16 = 100;

/// A batch is in a third language when at least this share of its Latin words look like one
/// (and at least [`THIRD_LANGUAGE_MIN_WORDS`] do), or a single item is for at least twice
/// this share. Real Spanish–English sentences of the gold set have none; a Portuguese batch has
/// 70%, a Tagalog one 78%.
pub(crate) const THIRD_LANGUAGE_SHARE: f64 = 0.3;

/// The fewest third-language words that make a batch (or an item) a third language's.
pub(crate) const THIRD_LANGUAGE_MIN_WORDS: usize = 3;

/// A content word is firm English beside a Latin-script matrix language only when its English
/// Zipf frequency (× 100) is at least this far above its frequency in the matrix language's
/// full vocabulary (its list, else `latin/overlap/<code>.tsv`): 2.0, a hundred times more
/// frequent. Closer, the word is a look-alike (never firm evidence): Spanish "tuna" (en 3.64 /
/// es 2.91), "rape" (4.48 / 2.81), French "pond", "lime", German "Made" (5.92 / 3.98), Italian
/// "bare", "stole", Malay "had" (6.33 / 4.55), all real words of the matrix language. English
/// function words ([`super::lexicon`]) keep [`LOOK_ALIKE_MARGIN`]. Chosen on the tuning
/// sentences: see BENCHMARKS.md ("native words only the English list held").
pub(crate) const ENGLISH_FIRM_GAP: u16 = 200;

/// Word → Zipf frequency × 100.
type Frequencies = HashMap<&'static str, u16>;

/// Per matrix language, the English words its full wordfreq list holds below its own list's
/// floor, with its Zipf × 100 (`xtask/src/lexicon.rs`).
const OVERLAPS: &[(&str, &str)] = &[
    ("es", include_str!("../data/lexicon/latin/overlap/es.tsv")),
    ("fr", include_str!("../data/lexicon/latin/overlap/fr.tsv")),
    ("de", include_str!("../data/lexicon/latin/overlap/de.tsv")),
    ("it", include_str!("../data/lexicon/latin/overlap/it.tsv")),
    ("ms", include_str!("../data/lexicon/latin/overlap/ms.tsv")),
];

fn parse_frequencies(text: &'static str) -> Frequencies {
    let mut words = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        if let Some((word, zipf)) = line.split_once('\t') {
            words.entry(word).or_insert(zipf.parse().unwrap_or(0));
        }
    }
    words
}

static OVERLAP_FREQUENCIES: LazyLock<Vec<(&'static str, Frequencies)>> = LazyLock::new(|| {
    OVERLAPS
        .iter()
        .map(|(code, text)| (*code, parse_frequencies(text)))
        .collect()
});

/// `word`'s Zipf × 100 in the full vocabulary of list `list`: its list, else its overlap file.
fn full_zipf(list: usize, word: &str) -> Option<u16> {
    zipf(list, word).or_else(|| {
        let code = LISTS.get(list)?.0;
        OVERLAP_FREQUENCIES
            .iter()
            .find(|(c, _)| *c == code)?
            .1
            .get(word)
            .copied()
    })
}

/// wordfreq's code, the language's name and its list, in the order of `xtask/src/lexicon.rs`.
const LISTS: &[(&str, &str, &str)] = &[
    (
        "en",
        "English",
        include_str!("../data/lexicon/latin/en.tsv"),
    ),
    (
        "es",
        "Spanish",
        include_str!("../data/lexicon/latin/es.tsv"),
    ),
    ("fr", "French", include_str!("../data/lexicon/latin/fr.tsv")),
    ("de", "German", include_str!("../data/lexicon/latin/de.tsv")),
    (
        "it",
        "Italian",
        include_str!("../data/lexicon/latin/it.tsv"),
    ),
    ("ms", "Malay", include_str!("../data/lexicon/latin/ms.tsv")),
    (
        "pt",
        "Portuguese",
        include_str!("../data/lexicon/latin/pt.tsv"),
    ),
    (
        "fil",
        "Filipino (Tagalog)",
        include_str!("../data/lexicon/latin/fil.tsv"),
    ),
    (
        "id",
        "Indonesian",
        include_str!("../data/lexicon/latin/id.tsv"),
    ),
    ("nl", "Dutch", include_str!("../data/lexicon/latin/nl.tsv")),
    (
        "ca",
        "Catalan",
        include_str!("../data/lexicon/latin/ca.tsv"),
    ),
    (
        "ro",
        "Romanian",
        include_str!("../data/lexicon/latin/ro.tsv"),
    ),
];

static FREQUENCIES: LazyLock<Vec<Frequencies>> = LazyLock::new(|| {
    LISTS
        .iter()
        .map(|(code, _, text)| {
            let words = parse_frequencies(text);
            tracing::debug!(code, words = words.len(), "loaded a Latin-script word list");
            words
        })
        .collect()
});

/// The index in [`LISTS`] of a pair language written in Latin script.
fn list_of(language: Language) -> Option<usize> {
    let code = match language {
        Language::English => "en",
        Language::Spanish => "es",
        Language::French => "fr",
        Language::German => "de",
        Language::Italian => "it",
        Language::Malay => "ms",
        _ => return None,
    };
    LISTS.iter().position(|(c, _, _)| *c == code)
}

fn zipf(list: usize, word: &str) -> Option<u16> {
    FREQUENCIES.get(list)?.get(word).copied()
}

/// What the lists say about one word (lower-cased) for a Latin–Latin pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PairEvidence {
    /// Only the first language's (see the module docs).
    First,
    /// Only the second language's.
    Second,
    /// A common word of both: never firm evidence of either.
    LookAlike,
    /// In neither list (or the pair has no lists).
    Neither,
}

/// The lists' verdict on `word` (lower-cased, apostrophes normalised) for `first`/`second`.
pub(crate) fn pair_evidence(first: Language, second: Language, word: &str) -> PairEvidence {
    let (Some(a), Some(b)) = (list_of(first), list_of(second)) else {
        return PairEvidence::Neither;
    };
    if first == Language::English || second == Language::English {
        return english_pair_evidence(first == Language::English, a, b, word);
    }
    match (zipf(a, word), zipf(b, word)) {
        (None, None) => PairEvidence::Neither,
        (Some(_), None) => PairEvidence::First,
        (None, Some(_)) => PairEvidence::Second,
        (Some(za), Some(zb)) if za > zb.saturating_add(LOOK_ALIKE_MARGIN) => PairEvidence::First,
        (Some(za), Some(zb)) if zb > za.saturating_add(LOOK_ALIKE_MARGIN) => PairEvidence::Second,
        (Some(_), Some(_)) => PairEvidence::LookAlike,
    }
}

/// [`pair_evidence`] for English and another Latin-script language (lists `a`, `b`): the other
/// language's frequency is read from its full vocabulary, and English is firm only
/// [`ENGLISH_FIRM_GAP`] above it (function words: [`LOOK_ALIKE_MARGIN`]).
fn english_pair_evidence(english_first: bool, a: usize, b: usize, word: &str) -> PairEvidence {
    let (en, other) = if english_first { (a, b) } else { (b, a) };
    let (english, native) = if english_first {
        (PairEvidence::First, PairEvidence::Second)
    } else {
        (PairEvidence::Second, PairEvidence::First)
    };
    let gap = if super::lexicon::is_function_word(Language::English, word) {
        LOOK_ALIKE_MARGIN
    } else {
        ENGLISH_FIRM_GAP
    };
    match (zipf(en, word), full_zipf(other, word)) {
        (None, None) => PairEvidence::Neither,
        (Some(_), None) => english,
        (None, Some(_)) => native,
        (Some(ze), Some(zo)) if ze >= zo.saturating_add(gap) => english,
        (Some(ze), Some(zo)) if zo > ze.saturating_add(LOOK_ALIKE_MARGIN) => native,
        (Some(_), Some(_)) => PairEvidence::LookAlike,
    }
}

/// Whether both languages of the pair have Latin-script lists.
pub(crate) fn has_lists(first: Language, second: Language) -> bool {
    list_of(first).is_some() && list_of(second).is_some()
}

/// The third language `word` (lower-cased) looks like for the pair, if any: the most frequent
/// list outside the pair holding it [`THIRD_LANGUAGE_MARGIN`] above the pair's frequency (or
/// the pair's lists lacking it). Indonesian is never a third language beside Malay: the two
/// are too close to tell apart word by word.
pub(crate) fn third_language_of(
    first: Language,
    second: Language,
    word: &str,
) -> Option<&'static str> {
    let (a, b) = (list_of(first)?, list_of(second)?);
    let pair = zipf(a, word).max(zipf(b, word));
    let malay = first == Language::Malay || second == Language::Malay;
    let mut best: Option<(usize, u16)> = None;
    for (i, (code, _, _)) in LISTS.iter().enumerate() {
        if i == a || i == b || (malay && *code == "id") {
            continue;
        }
        let Some(z) = zipf(i, word) else { continue };
        let above = pair.is_none_or(|p| z >= p.saturating_add(THIRD_LANGUAGE_MARGIN));
        if above && best.is_none_or(|(_, bz)| z > bz) {
            best = Some((i, z));
        }
    }
    best.map(|(i, _)| LISTS[i].1)
}

/// Counts of a batch's (or an item's) Latin words that look like a third language.
#[derive(Debug, Default)]
pub(crate) struct ThirdLanguageCount {
    /// Latin words of two letters or more that could be a language's.
    pub words: usize,
    /// Per third language, its words.
    pub by_language: Vec<(&'static str, usize)>,
}

impl ThirdLanguageCount {
    /// Adds one word; `third` is [`third_language_of`]'s verdict.
    pub(crate) fn add(&mut self, third: Option<&'static str>) {
        self.words += 1;
        if let Some(name) = third {
            match self.by_language.iter_mut().find(|(n, _)| *n == name) {
                Some((_, count)) => *count += 1,
                None => self.by_language.push((name, 1)),
            }
        }
    }

    /// The third language's words in total and the most frequent one's name.
    fn leader(&self) -> (usize, Option<&'static str>) {
        let total = self.by_language.iter().map(|(_, n)| n).sum();
        let leader = self
            .by_language
            .iter()
            .max_by_key(|(_, n)| *n)
            .map(|(name, _)| *name);
        (total, leader)
    }

    /// The reason the batch (`share` = [`THIRD_LANGUAGE_SHARE`]) or an item (twice that) is
    /// in a third language, if it is.
    pub(crate) fn verdict(
        &self,
        share: f64,
        first: Language,
        second: Language,
    ) -> Option<(&'static str, String)> {
        let (total, leader) = self.leader();
        let leader = leader?;
        #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
        let enough = total >= THIRD_LANGUAGE_MIN_WORDS && total as f64 >= share * self.words as f64;
        enough.then(|| {
            (
                leader,
                format!(
                    "{total} of {} words look {leader} (or another third language), not \
                     {first} or {second}",
                    self.words
                ),
            )
        })
    }
}

/// The third language a batch of tagged items of a Latin–Latin pair is written in, with the
/// reason in words, if any: at least [`THIRD_LANGUAGE_SHARE`] of the batch's Latin words (two
/// letters or more, names and numbers left out) look like one ([`third_language_of`]), or twice
/// that share of one item's, and at least [`THIRD_LANGUAGE_MIN_WORDS`] of them.
pub(crate) fn third_language(
    first: Language,
    second: Language,
    sentences: &[Vec<TaggedWord>],
) -> Option<(&'static str, String)> {
    if !has_lists(first, second) {
        return None;
    }
    let mut batch = ThirdLanguageCount::default();
    let mut per_item = None;
    for (n, words) in sentences.iter().enumerate() {
        let mut item = ThirdLanguageCount::default();
        for word in words {
            let counted = matches!(
                word.tag,
                WordTag::Lang(_)
                    | WordTag::Untagged(UntaggedReason::Ambiguous | UntaggedReason::OtherLanguage)
            );
            let latin = word.text.chars().filter(|c| c.is_alphabetic()).count() >= 2
                && word
                    .text
                    .chars()
                    .filter(|c| c.is_alphabetic())
                    .all(|c| c.script() == Script::Latin);
            if counted && latin {
                let lower = word.text.to_lowercase().replace('\u{2019}', "'");
                let third = third_language_of(first, second, &lower);
                item.add(third);
                batch.add(third);
            }
        }
        if per_item.is_none()
            && let Some((name, why)) = item.verdict(2.0 * THIRD_LANGUAGE_SHARE, first, second)
        {
            per_item = Some((name, format!("item {}: {why}", n + 1)));
        }
    }
    batch
        .verdict(THIRD_LANGUAGE_SHARE, first, second)
        .or(per_item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_single_list_words_and_third_languages() {
        use Language::{English, French, German, Malay, Spanish};
        assert_eq!(
            pair_evidence(Spanish, English, "red"),
            PairEvidence::LookAlike
        );
        assert_eq!(
            pair_evidence(French, English, "chat"),
            PairEvidence::LookAlike
        );
        assert_eq!(
            pair_evidence(French, English, "but"),
            PairEvidence::LookAlike
        );
        for w in ["also", "will", "total", "bank"] {
            assert_eq!(
                pair_evidence(German, English, w),
                PairEvidence::LookAlike,
                "{w}"
            );
        }
        assert_eq!(pair_evidence(German, English, "brot"), PairEvidence::First);
        assert_eq!(pair_evidence(Spanish, English, "the"), PairEvidence::Second);
        assert_eq!(
            pair_evidence(Spanish, English, "mañana"),
            PairEvidence::First
        );
        assert_eq!(
            pair_evidence(Spanish, English, "zzqx"),
            PairEvidence::Neither
        );
        assert_eq!(
            third_language_of(Spanish, English, "não"),
            Some("Portuguese")
        );
        assert_eq!(third_language_of(Spanish, English, "de"), None);
        assert_eq!(
            third_language_of(Malay, English, "ang"),
            Some("Filipino (Tagalog)")
        );
        // Indonesian beside Malay is not a third language.
        assert_eq!(third_language_of(Malay, English, "nggak"), None);
    }
}
