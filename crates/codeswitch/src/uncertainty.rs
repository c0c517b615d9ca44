//! How far a measured embedded share can be off because some words' language is not firm: the
//! range of the share over every language those words could have, and the `low_coverage`
//! verdict when the measured share could be more than [`RATIO_UNCERTAINTY_TOLERANCE`] from the
//! true one.
//!
//! A word's language is **firm** when it was read off the word: by script, by one frequency
//! list or one function-word list, or (romanized Hindi) by an overwhelming frequency ratio. It is
//! **open** when it was not:
//! - a tagged look-alike or contested romanized word ([`TaggedWord::inferred`]: "also" in
//!   German–English, "log" in Hinglish), whose tag came from lingua, its neighbours or
//!   frequency;
//! - for two Latin-script languages, a word neither frequency list nor the function-word lists
//!   hold, tagged by lingua alone (a guess from letter n-grams);
//! - a word left untagged as ambiguous (both languages could claim it), except chat tokens
//!   written alike in every language ("ok", "haha"), which are no language's word.
//!
//! A tagged open word is **supported** when the nearest firm word before or after it in its
//! sentence has the language it was tagged with; it then counts for that language. An open word
//! with no support is **uncertain**, and so is every word left untagged as ambiguous: the
//! measured share leaves untagged words out, so counting one for its neighbours' language
//! could put the measured share outside its own range (the review of issue 26 found 0.417
//! measured with a range of 0.346–0.385). So the measured share always lies in its range.
//! "Will" and "also" read as English between German words are uncertain, and so is a switch that rests on look-alikes alone. The assumption that a supported word is right
//! is where the bound can fail: a one-word switch to a look-alike that its neighbours' language
//! also has ("den link schicken") is read as the matrix language and supported (BENCHMARKS.md).
//!
//! With `k₁`, `k₂` the firm and supported words of each language, `K = k₁ + k₂` and `u` the
//! uncertain words, the true share lies in `[k₂ / (K + u), (k₂ + u) / (K + u)]` whatever
//! language the uncertain words have (giving one to neither language only moves the share
//! towards `k₂ / K`, inside the range), and the measured share can be off by at most its
//! distance to the farther end ([`RatioRange::max_error`]).

use serde::{Deserialize, Serialize};
use unicode_script::{Script, UnicodeScript};

use super::{
    Language, LanguageCounts, Measurement, MeasurementStatus, TaggedWord, UntaggedReason, WordTag,
    lexicon, romanized, wordlists,
};

/// A measurement is `ok` only if its embedded share cannot be off by more than this, whatever
/// language its uncertain words have ([`RatioRange::max_error`]); else it is `low_coverage` with
/// the reason. 0.15 is the error issue 26 calls confidently wrong, so an `ok` share is within it
/// unless a firm or supported tag is wrong. Chosen on `tests/data/tuning_sentences.txt` (72 sentences written
/// for it, never the held-out sets): see BENCHMARKS.md ("after uncertainty bounds") for the
/// trade-off against the share of sentences left `not ok`.
pub const RATIO_UNCERTAINTY_TOLERANCE: f64 = 0.15;

/// The range the embedded share can take over every language the uncertain words could have.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioRange {
    /// The share if every uncertain word were the first language's.
    pub low: f64,
    /// The share if every uncertain word were the second language's.
    pub high: f64,
    /// Words that could be either language: open words no firm neighbour supports.
    pub uncertain_words: usize,
    /// Words that are or could be the pair's: firm, supported and uncertain ones.
    pub language_words: usize,
}

impl RatioRange {
    /// The range from the words of each language (firm or supported) and the uncertain ones;
    /// `None` when no word is uncertain (the share is then exact as far as the tags go) or
    /// there are no words at all.
    #[must_use]
    pub fn of(firm: LanguageCounts, uncertain_words: usize) -> Option<Self> {
        let language_words = firm.total() + uncertain_words;
        if uncertain_words == 0 || language_words == 0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
        let share = |n: usize| n as f64 / language_words as f64;
        Some(Self {
            low: share(firm.second),
            high: share(firm.second + uncertain_words),
            uncertain_words,
            language_words,
        })
    }

    /// How far `measured` can be from the true share: its distance to the farther end.
    #[must_use]
    pub fn max_error(&self, measured: f64) -> f64 {
        (measured - self.low).max(self.high - measured).max(0.0)
    }
}

/// What the range makes of one token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Its language was read off the word (script, one list, a function word, overwhelming
    /// frequency).
    Firm(Language),
    /// Its language is not firm: the tag it was given (`None`: left untagged as ambiguous).
    Open(Option<Language>),
    /// No word of either language (a number, a name, a symbol, a chat token, a third language).
    Outside,
}

/// Each token's [`Reading`], and per language the tagged words whose language is not firm
/// (the gate's `uncertain`).
fn readings(
    first: Language,
    second: Language,
    romanized: bool,
    words: &[TaggedWord],
) -> (Vec<Reading>, LanguageCounts) {
    let mut unfirm = LanguageCounts::default();
    let readings = words
        .iter()
        .map(|word| match word.tag {
            WordTag::Lang(l) if l == first || l == second => {
                if is_firm(first, second, word) {
                    return Reading::Firm(l);
                }
                if l == first {
                    unfirm.first += 1;
                } else {
                    unfirm.second += 1;
                }
                if romanized && overwhelming(first, second, word) == Some(l) {
                    Reading::Firm(l)
                } else {
                    Reading::Open(Some(l))
                }
            }
            WordTag::Untagged(UntaggedReason::Ambiguous)
                if !lexicon::is_language_neutral(&normalise(&word.text)) =>
            {
                Reading::Open(None)
            }
            _ => Reading::Outside,
        })
        .collect();
    (readings, unfirm)
}

/// The language a romanized word both word lists know is settled to by its frequency alone,
/// when that is overwhelming ([`crate::OVERWHELMING_RANK_RATIO`]): read off the word.
fn overwhelming(first: Language, second: Language, word: &TaggedWord) -> Option<Language> {
    let partner = [first, second]
        .into_iter()
        .find(|l| romanized::has_detector(*l))?;
    let romanized = romanized::Evidence::of(partner, &normalise(&word.text))
        .decisive(crate::OVERWHELMING_RANK_RATIO)?;
    Some(if romanized {
        partner
    } else {
        Language::English
    })
}

/// The sentence's counts for its range: words of each language (firm, or open but supported
/// by a firm neighbour, see [`bound`]) and the open words no neighbour supports or that are
/// untagged.
fn supported_counts(first: Language, readings: &[Reading]) -> (LanguageCounts, usize) {
    let firm_at = |i: usize| match readings[i] {
        Reading::Firm(l) => Some(l),
        _ => None,
    };
    let mut known = LanguageCounts::default();
    let mut open = 0;
    for (i, reading) in readings.iter().enumerate() {
        let language = match *reading {
            Reading::Outside => continue,
            Reading::Firm(l) => Some(l),
            Reading::Open(tag) => {
                let left = (0..i).rev().find_map(firm_at);
                let right = (i + 1..readings.len()).find_map(firm_at);
                match (tag, left, right) {
                    (Some(t), l, r) if l == Some(t) || r == Some(t) => Some(t),
                    // Untagged: the measured share leaves it out, so it cannot count for its
                    // neighbours' language in the range (that could put the measured share
                    // outside its own range); it could be either language.
                    _ => None,
                }
            }
        };
        match language {
            Some(l) if l == first => known.first += 1,
            Some(_) => known.second += 1,
            None => open += 1,
        }
    }
    (known, open)
}

/// Whether a tagged word's language was read off the word: not inferred, and for a Latin–Latin
/// pair held by a frequency list or a function-word list (not lingua's guess alone). The words
/// a sentence's `tagged − uncertain` counts, one by one: the gate reads where they stand.
#[must_use]
pub fn is_firm(first: Language, second: Language, word: &TaggedWord) -> bool {
    if word.inferred {
        return false;
    }
    let latin = word
        .text
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(|c| c.script() == Script::Latin);
    if !latin || !first.is_latin() || !second.is_latin() || !wordlists::has_lists(first, second) {
        return true;
    }
    let normalised = normalise(&word.text);
    (word.tag == WordTag::Lang(Language::English) && lexicon::is_english_contraction(&normalised))
        || lexicon::is_function_word(first, &normalised)
        || lexicon::is_function_word(second, &normalised)
        || wordlists::pair_evidence(first, second, &normalised) != wordlists::PairEvidence::Neither
}

fn normalise(word: &str) -> String {
    word.to_lowercase().replace('\u{2019}', "'")
}

/// Records each sentence's tagged words that are not firm (`uncertain`, which the gate reads)
/// and each sentence's and the batch's ratio range from the tokens (`sentences`, one list per
/// item), and makes an `ok` measurement `low_coverage` when its share could be more than
/// `tolerance` off, saying how many words could be either language.
pub(crate) fn bound(m: &mut Measurement, sentences: &[Vec<TaggedWord>], tolerance: f64) {
    let (first, second) = (m.first_language, m.second_language);
    let mut firm_total = LanguageCounts::default();
    let mut uncertain_total = 0;
    for (s, words) in m.sentences.iter_mut().zip(sentences) {
        let (readings, unfirm) = readings(first, second, s.romanized, words);
        s.uncertain = unfirm;
        let (known, open) = supported_counts(first, &readings);
        s.ratio_range = RatioRange::of(known, open);
        firm_total.first += known.first;
        firm_total.second += known.second;
        uncertain_total += open;
    }
    m.ratio_range = RatioRange::of(firm_total, uncertain_total);
    let Some(range) = m.ratio_range else { return };
    let error = range.max_error(m.embedded_ratio);
    if m.status == MeasurementStatus::Ok && error > tolerance + 1e-9 {
        m.status = MeasurementStatus::LowCoverage;
        m.status_reason = Some(format!(
            "{} of {} words could be either language (look-alikes, words only the detector \
             placed, or untagged): the {second} share could be anywhere from {:.2} to {:.2}, up \
             to {error:.2} from the {:.2} measured (more than {tolerance:.2})",
            range.uncertain_words, range.language_words, range.low, range.high, m.embedded_ratio
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LanguagePair;

    #[test]
    fn the_range_spans_every_language_of_the_uncertain_words() {
        let firm = LanguageCounts {
            first: 4,
            second: 1,
        };
        let range = RatioRange::of(firm, 2).expect("a range");
        assert!((range.low - 1.0 / 7.0).abs() < 1e-12);
        assert!((range.high - 3.0 / 7.0).abs() < 1e-12);
        assert!((range.max_error(1.0 / 7.0) - 2.0 / 7.0).abs() < 1e-12);
        assert_eq!(RatioRange::of(firm, 0), None);
    }

    /// Issue 26: "Ich will also heute früher gehen" was measured `ok` at 0.33 (German *will* and
    /// *also* read as English by lingua, gold 0). Its two look-alikes have no English neighbour,
    /// so the share could be anywhere in 0–0.33: `low_coverage`, saying why.
    #[test]
    fn look_alikes_with_no_support_make_a_sentence_low_coverage() {
        let pair = LanguagePair::parse("German", "English").expect("a pair");
        let m = pair.measure(&["Ich will also heute früher gehen".to_owned()]);
        assert_eq!(m.status, MeasurementStatus::LowCoverage, "{m:?}");
        let reason = m.status_reason.clone().unwrap_or_default();
        assert!(
            reason.starts_with("2 of 6 words could be either language"),
            "{reason}"
        );
        let range = m.ratio_range.expect("a range");
        assert_eq!((range.uncertain_words, range.language_words), (2, 6));
        assert_eq!(m.sentences[0].uncertain.second, 2);
        // A tolerance of 1 never degrades.
        let lax = pair.measure_with_tolerance(
            &["Ich will also heute früher gehen".to_owned()],
            None,
            1.0,
        );
        assert_eq!(lax.status, MeasurementStatus::Ok);
        // The same words inside a real switch are supported by a firm English neighbour.
        let m = pair.measure(&["Ich bin so müde, I will also need a break".to_owned()]);
        assert_eq!(m.status, MeasurementStatus::Ok, "{m:?}");
    }
}
