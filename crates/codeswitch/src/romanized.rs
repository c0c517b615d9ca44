//! Romanized Hindi (Hinglish) against English: word-frequency evidence from two shipped lists.
//!
//! `data/lexicon/en.txt` holds English words, most frequent first; `data/lexicon/hi-latn.txt`
//! holds Latin-script chat spellings of frequent Hindi words with their Hindi frequency rank.
//! Both are built by `cargo xtask lexicon` from the PyPI wheel `wordfreq==3.1.1` (CC BY-SA 4.0;
//! see `data/README.md`) and verified by CI. A word found in only one list is that language;
//! a word in both ("main", "the", "to", "me") is *contested* and settled by its neighbours, then
//! by how much more frequent it is in one language ([`DECISIVE_RANK_RATIO`]); a word in
//! neither is left ambiguous.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::Language;

/// A contested word whose rank in one language is this many times better (smaller) than in the
/// other is that language when its neighbours do not agree on one.
pub const DECISIVE_RANK_RATIO: u32 = 4;

/// A contested word whose rank in one language is this many times better than in the other is
/// that language whatever its neighbours say ("time" is a Hindi loanword, but rare in Hindi
/// text next to its English use).
pub const OVERWHELMING_RANK_RATIO: u32 = 16;

/// Word → frequency rank (0 = most frequent).
type Ranks = HashMap<&'static str, u32>;

fn parse(text: &'static str, ranked: bool) -> Ranks {
    let mut ranks = HashMap::new();
    let data = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    for (line_rank, line) in (0_u32..).zip(data) {
        let (word, rank) = if ranked {
            let (word, rank) = line.split_once('\t').unwrap_or((line, ""));
            (word, rank.parse().unwrap_or(u32::MAX))
        } else {
            (line, line_rank)
        };
        ranks.entry(word).or_insert(rank);
    }
    ranks
}

static ENGLISH: LazyLock<Ranks> = LazyLock::new(|| {
    let ranks = parse(include_str!("../data/lexicon/en.txt"), false);
    tracing::debug!(words = ranks.len(), "loaded the English word list");
    ranks
});

static HINDI_LATIN: LazyLock<Ranks> = LazyLock::new(|| {
    let ranks = parse(include_str!("../data/lexicon/hi-latn.txt"), true);
    tracing::debug!(
        spellings = ranks.len(),
        "loaded the romanized Hindi word list"
    );
    ranks
});

/// Whether `word` (lower-cased, apostrophes normalised) is in the English word list.
#[must_use]
pub(crate) fn is_english_word(word: &str) -> bool {
    ENGLISH.contains_key(word)
}

/// Whether Latin-script words of `language` can be told from English by this module.
#[must_use]
pub fn has_detector(language: Language) -> bool {
    matches!(language, Language::Hindi)
}

/// What the word lists say about one lower-cased Latin word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evidence {
    /// Found only in the romanized list of the non-English language.
    Romanized,
    /// Found only in the English list.
    English,
    /// Found in both, with both ranks.
    Both {
        /// Rank among the romanized spellings' source words.
        romanized: u32,
        /// Rank among English words.
        english: u32,
    },
    /// Found in neither.
    Neither,
}

impl Evidence {
    /// The lists' verdict on `word` (lower-cased) for `language` (one with [`has_detector`]).
    pub(crate) fn of(language: Language, word: &str) -> Self {
        let romanized = match language {
            Language::Hindi => HINDI_LATIN.get(word).copied(),
            _ => None,
        };
        match (romanized, ENGLISH.get(word).copied()) {
            (Some(_), None) => Self::Romanized,
            (None, Some(_)) => Self::English,
            (Some(romanized), Some(english)) => Self::Both { romanized, english },
            (None, None) => Self::Neither,
        }
    }

    /// For a contested word: which side frequency alone settles it for at this rank ratio, if
    /// any (`true` = the romanized language).
    pub(crate) fn decisive(self, ratio: u32) -> Option<bool> {
        let Self::Both { romanized, english } = self else {
            return None;
        };
        // Ranks start at 0; shift by one so the ratio is defined.
        let (r, e) = (u64::from(romanized) + 1, u64::from(english) + 1);
        let k = u64::from(ratio);
        if r * k < e {
            Some(true)
        } else if e * k < r {
            Some(false)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_load_and_know_common_words() {
        assert_eq!(Evidence::of(Language::Hindi, "kya"), Evidence::Romanized);
        assert_eq!(Evidence::of(Language::Hindi, "because"), Evidence::English);
        assert!(matches!(
            Evidence::of(Language::Hindi, "main"),
            Evidence::Both { .. }
        ));
        assert_eq!(Evidence::of(Language::Hindi, "zzqx"), Evidence::Neither);
        // "hai" is far more frequent in Hindi than "hai" in English web text.
        let decisive = |w: &str| Evidence::of(Language::Hindi, w).decisive(DECISIVE_RANK_RATIO);
        assert_eq!(decisive("hai"), Some(true));
        assert_eq!(decisive("the"), Some(false));
        assert_eq!(
            Evidence::of(Language::Hindi, "time").decisive(OVERWHELMING_RANK_RATIO),
            Some(false)
        );
    }
}
