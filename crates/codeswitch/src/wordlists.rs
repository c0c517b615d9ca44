//! Word-frequency evidence for the Latin-script languages: look-alike words of a pair and a
//! third language a batch may be written in.
//!
//! `data/lexicon/latin/<code>.tsv` hold, per language, the words of wordfreq's `small_<code>`
//! list (PyPI wheel `wordfreq==3.1.1`, CC BY-SA 4.0; see `data/README.md`) with a Zipf
//! frequency of at least 3.3 (about the 20,000 most frequent words), each with its Zipf × 100.
//! They cover the pair languages written in Latin script (English, Spanish, French, German,
//! Italian, Malay, Portuguese, Filipino/Tagalog, Indonesian) and the likely third languages of
//! a batch in one of their pairs (Dutch, Catalan, Romanian, and each other).
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

/// A batch is not in the pair's languages when at least this share of its Latin words look
/// like a third language or are in no list the pair knows (and at least
/// [`THIRD_LANGUAGE_MIN_WORDS`] are), or twice this share of a single item's look like a known
/// third language: 0.2.
/// Chosen on the hand-tagged sets and batches written for it (BENCHMARKS.md, "languages no
/// list knows"): pooled per pair, real code-switched sentences of the held-out and tuning sets
/// have at most 3.6% such words (romanized Hindi), rich real batches at most 12%
/// ("scricchiolante", "sawdust"); a Portuguese batch has 70%, a Tagalog one 78%, the review's
/// batches in Galician, Asturian, Esperanto, Afrikaans, Luxembourgish, Haitian Creole and
/// Sicilian with English 20–46% (Asturian, spelled much like Spanish, at the edge: 5 of 25).
pub(crate) const THIRD_LANGUAGE_SHARE: f64 = 0.2;

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
    ("pt", include_str!("../data/lexicon/latin/overlap/pt.tsv")),
    ("fil", include_str!("../data/lexicon/latin/overlap/fil.tsv")),
    ("id", include_str!("../data/lexicon/latin/overlap/id.tsv")),
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
        Language::Portuguese => "pt",
        Language::Tagalog => "fil",
        Language::Indonesian => "id",
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

/// English discourse words and tags that no Malay, Indonesian or Tagalog word is spelled like
/// (not the courtesies of a bilingual notice: "Sila beratur. Please queue here." translates).
/// wordfreq's lists of those three languages hold them (their corpora switch to English), at
/// frequencies that make them look-alikes by [`ENGLISH_FIRM_GAP`]; beside those languages they
/// are English (review 26v: "Ang ganda ng tanawin dito, right?", "Oh my gosh, nakalimutan
/// ko…", "seriously", "whatever" were no evidence, and real tag switching was refused).
const ENGLISH_TAGS: &[&str] = &[
    "right",
    "seriously",
    "whatever",
    "anyway",
    "anyways",
    "honestly",
    "literally",
    "basically",
    "actually",
    "obviously",
    "definitely",
    "gosh",
    "btw",
    "omg",
];

/// The lists whose corpora switch to English so often that they hold its tags ([`ENGLISH_TAGS`]).
const SWITCHING_CORPORA: &[&str] = &["ms", "id", "fil"];

/// [`pair_evidence`] for English and another Latin-script language (lists `a`, `b`): the other
/// language's frequency is read from its full vocabulary, and English is firm only
/// [`ENGLISH_FIRM_GAP`] above it (function words: [`LOOK_ALIKE_MARGIN`]; beside Malay,
/// Indonesian and Tagalog, [`ENGLISH_TAGS`] whatever their frequency there).
fn english_pair_evidence(english_first: bool, a: usize, b: usize, word: &str) -> PairEvidence {
    let (en, other) = if english_first { (a, b) } else { (b, a) };
    let (english, native) = if english_first {
        (PairEvidence::First, PairEvidence::Second)
    } else {
        (PairEvidence::Second, PairEvidence::First)
    };
    if ENGLISH_TAGS.contains(&word)
        && LISTS
            .get(other)
            .is_some_and(|(code, _, _)| SWITCHING_CORPORA.contains(code))
    {
        return english;
    }
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
/// the pair's lists lacking it). Indonesian is never a third language beside Malay, nor Malay
/// beside Indonesian ([`sibling_code`]).
pub(crate) fn third_language_of(
    first: Language,
    second: Language,
    word: &str,
) -> Option<&'static str> {
    let (a, b) = (list_of(first)?, list_of(second)?);
    let pair = zipf(a, word).max(zipf(b, word));
    let sibling = sibling_code(first, second);
    let mut best: Option<(usize, u16)> = None;
    for (i, (code, _, _)) in LISTS.iter().enumerate() {
        if i == a || i == b || sibling == Some(*code) {
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

/// The list of the language too close to one of the pair's to be a third language beside it:
/// Indonesian beside Malay, Malay beside Indonesian (most words are shared; the two are told
/// apart by vocabulary choices a word list cannot weigh one word at a time).
fn sibling_code(first: Language, second: Language) -> Option<&'static str> {
    [first, second].into_iter().find_map(|l| match l {
        Language::Malay => Some("id"),
        Language::Indonesian => Some("ms"),
        _ => None,
    })
}

/// Whether the pair's word lists know `word` (lower-cased): a function word of either language,
/// a word either frequency list holds (beside English, the other language's full vocabulary),
/// an elided form whose part is known ("m'a", "dell'anno"), a German compound ending in a
/// German word of four letters or more after three or more ("Geburtstags|feier"), and beside
/// Malay an Indonesian word, beside Indonesian a Malay one ([`sibling_code`]). What the lists
/// do not know is the word of a language the tool does not know ([`third_language`]).
pub(crate) fn pair_knows(first: Language, second: Language, word: &str) -> bool {
    if super::lexicon::is_function_word(first, word)
        || super::lexicon::is_function_word(second, word)
        || pair_evidence(first, second, word) != PairEvidence::Neither
    {
        return true;
    }
    if word.contains('\'') {
        return word
            .split('\'')
            .filter(|part| !part.is_empty())
            .any(|part| pair_knows(first, second, part));
    }
    if let Some(sibling) = sibling_code(first, second)
        && LISTS
            .iter()
            .position(|(c, _, _)| *c == sibling)
            .is_some_and(|i| zipf(i, word).is_some())
    {
        return true;
    }
    let german = [first, second]
        .into_iter()
        .find(|l| *l == Language::German)
        .and_then(list_of);
    german.is_some_and(|list| is_compound_of(list, word))
}

/// Whether `word` ends in a word of `list` of at least [`COMPOUND_MIN_TAIL`] letters after a
/// head of at least [`COMPOUND_MIN_HEAD`]: German writes compounds as one word, and most are
/// too rare for the list ("Nebenkostenabrechnung", "Laternenumzug").
fn is_compound_of(list: usize, word: &str) -> bool {
    let letters = word.chars().count();
    word.char_indices()
        .enumerate()
        .filter(|(k, _)| *k >= COMPOUND_MIN_HEAD && letters - k >= COMPOUND_MIN_TAIL)
        .any(|(_, (at, _))| zipf(list, &word[at..]).is_some())
}

/// The shortest head of a German compound [`is_compound_of`] accepts.
const COMPOUND_MIN_HEAD: usize = 3;

/// The shortest German tail word [`is_compound_of`] accepts.
const COMPOUND_MIN_TAIL: usize = 4;

/// What the word lists make of one Latin word of a batch that is not the pair's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Foreign {
    /// It looks like this third language ([`third_language_of`]).
    Third(&'static str),
    /// Neither pair language's lists know it ([`pair_knows`]), nor does any third language's.
    Unknown,
}

/// Whether `word` (lower-cased) is a third language's, or in no list the pair knows.
pub(crate) fn foreign_word(first: Language, second: Language, word: &str) -> Option<Foreign> {
    if let Some(third) = third_language_of(first, second, word) {
        return Some(Foreign::Third(third));
    }
    (!pair_knows(first, second, word)).then_some(Foreign::Unknown)
}

/// The name [`Measurement::third_language`](super::Measurement::third_language) holds when most
/// of a batch's foreign words are in no shipped list: a language the tool does not know
/// (Galician, Esperanto, Luxembourgish …).
pub const UNKNOWN_LANGUAGE: &str = "unknown";

/// Counts of a batch's (or an item's) Latin words that look like a third language or are in no
/// list the pair knows.
#[derive(Debug, Default)]
pub(crate) struct ThirdLanguageCount {
    /// Latin words of two letters or more that could be a language's.
    pub words: usize,
    /// Per third language, its words.
    pub by_language: Vec<(&'static str, usize)>,
    /// Words no list knows ([`Foreign::Unknown`]).
    pub unknown: usize,
}

impl ThirdLanguageCount {
    /// Adds one word; `foreign` is [`foreign_word`]'s verdict.
    pub(crate) fn add(&mut self, foreign: Option<Foreign>) {
        self.words += 1;
        match foreign {
            Some(Foreign::Third(name)) => {
                match self.by_language.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, count)) => *count += 1,
                    None => self.by_language.push((name, 1)),
                }
            }
            Some(Foreign::Unknown) => self.unknown += 1,
            None => {}
        }
    }

    /// The third languages' words in total and the most frequent one's name.
    fn leader(&self) -> (usize, Option<&'static str>) {
        let total = self.by_language.iter().map(|(_, n)| n).sum();
        let leader = self
            .by_language
            .iter()
            .max_by_key(|(_, n)| *n)
            .map(|(name, _)| *name);
        (total, leader)
    }

    /// The language (a third language's name, or [`UNKNOWN_LANGUAGE`]) and the reason the
    /// batch (`share` = [`THIRD_LANGUAGE_SHARE`]) or an item (twice that) is not in the pair's
    /// languages, if it is not: at least that share of its words, and at least
    /// [`THIRD_LANGUAGE_MIN_WORDS`], look like a third language or are in no list.
    pub(crate) fn verdict(
        &self,
        share: f64,
        first: Language,
        second: Language,
    ) -> Option<(&'static str, String)> {
        let (third, leader) = self.leader();
        let total = third + self.unknown;
        #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
        let enough = total >= THIRD_LANGUAGE_MIN_WORDS && total as f64 >= share * self.words as f64;
        if !enough {
            return None;
        }
        let words = self.words;
        Some(match leader {
            Some(leader) if self.unknown == 0 => (
                leader,
                format!(
                    "{total} of {words} words look {leader} (or another third language), not \
                     {first} or {second}"
                ),
            ),
            Some(leader) if third >= self.unknown => (
                leader,
                format!(
                    "{total} of {words} words are not {first} or {second}: {third} look \
                     {leader} (or another third language), {} are in no word list the tool has",
                    self.unknown
                ),
            ),
            _ => (
                UNKNOWN_LANGUAGE,
                format!(
                    "{total} of {words} words are not {first} or {second}: {} are in no word \
                     list the tool has{} — a language it has no list for (Galician, Basque, \
                     Swedish …)?",
                    self.unknown,
                    if third > 0 {
                        format!(", {third} look like another language")
                    } else {
                        String::new()
                    }
                ),
            ),
        })
    }
}

/// The third language a batch of tagged items is written in, with the reason in words, if
/// any: at least [`THIRD_LANGUAGE_SHARE`] of the batch's Latin words (two letters or more,
/// names and numbers left out) are not the pair's, or twice that share of one item's look like
/// a known third language, and at least [`THIRD_LANGUAGE_MIN_WORDS`] of them. For a Latin–Latin pair a word is not the pair's
/// when it looks like a third language ([`third_language_of`]) or is in no list the pair knows
/// ([`pair_knows`]: a language the tool has no list for, such as Galician, Esperanto or
/// Luxembourgish; then the language is [`UNKNOWN_LANGUAGE`]). In romanized text (`romanized`,
/// per item) of a pair with a romanized detector (Hindi–English), a word neither the romanized
/// list nor the English one holds is unknown (Swahili or Malay written beside English).
pub(crate) fn third_language(
    first: Language,
    second: Language,
    sentences: &[Vec<TaggedWord>],
    romanized: &[bool],
) -> Option<(&'static str, String)> {
    let latin_pair = has_lists(first, second);
    let partner = [first, second]
        .into_iter()
        .find(|l| super::romanized::has_detector(*l));
    if !latin_pair && partner.is_none() {
        return None;
    }
    let mut batch = ThirdLanguageCount::default();
    let mut per_item = None;
    for (n, words) in sentences.iter().enumerate() {
        let romanized_item = romanized.get(n).copied().unwrap_or(false);
        let foreign_in_item = |lower: &str| match partner {
            _ if latin_pair => Some(foreign_word(first, second, lower)),
            Some(partner) if romanized_item => Some(
                (super::romanized::Evidence::of(partner, lower)
                    == super::romanized::Evidence::Neither)
                    .then_some(Foreign::Unknown),
            ),
            _ => None,
        };
        let mut item = ThirdLanguageCount::default();
        for word in words.iter().filter(|w| counts_for_third_language(w)) {
            let lower = word.text.to_lowercase().replace('\u{2019}', "'");
            if let Some(foreign) = foreign_in_item(&lower) {
                // One text is judged on words of a known third language alone: a text that
                // lists dishes ("tamales, chilaquiles, pozole") is full of words no list holds.
                item.add(foreign.filter(|f| *f != Foreign::Unknown));
                batch.add(foreign);
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

/// Whether a tagged word is one [`third_language`] weighs: a Latin word of two letters or more
/// that is, or could be, a language's (not a name, a number or a symbol).
fn counts_for_third_language(word: &TaggedWord) -> bool {
    let counted = matches!(
        word.tag,
        WordTag::Lang(_)
            | WordTag::Untagged(UntaggedReason::Ambiguous | UntaggedReason::OtherLanguage)
    );
    let letters: Vec<char> = word.text.chars().filter(|c| c.is_alphabetic()).collect();
    counted && letters.len() >= 2 && letters.iter().all(|c| c.script() == Script::Latin)
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

    #[test]
    fn words_no_list_holds_are_unknown_but_elisions_and_compounds_are_known() {
        use Language::{English, German, Italian, Malay, Spanish};
        // Galician and Esperanto words beside Spanish–English.
        for w in ["teño", "hodiaŭ", "kunvenon"] {
            assert_eq!(
                foreign_word(Spanish, English, w),
                Some(Foreign::Unknown),
                "{w}"
            );
        }
        assert_eq!(
            foreign_word(Spanish, English, "não"),
            Some(Foreign::Third("Portuguese"))
        );
        for w in ["mañana", "the", "de"] {
            assert_eq!(foreign_word(Spanish, English, w), None, "{w}");
        }
        // An elided form whose part is known; a German compound of a known tail.
        assert!(pair_knows(Italian, English, "quell'albero"));
        assert!(pair_knows(German, English, "nebenkostenabrechnung"));
        assert!(!pair_knows(Spanish, English, "nebenkostenabrechnung"));
        // Indonesian beside Malay is known.
        assert!(pair_knows(Malay, English, "nggak"));
    }
}
