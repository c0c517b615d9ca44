//! Diversity figures of a run's texts, in fixed memory: distinct-1 and distinct-2 (distinct
//! lower-cased words and word bigrams ÷ all, over every text) and the embedded-language
//! vocabulary per language pair (distinct words tagged with the pair's second language by
//! the tagger of this crate).
//!
//! Distinct counts are HyperLogLog estimates (2^14 registers, 16 KiB each, standard error about
//! 0.8%; exact in practice below a few thousand items thanks to linear counting), so `report`
//! stays bounded on a million records. Tagging for the embedded vocabulary costs up to ~0.4 ms
//! a text for Latin-script pairs (lingua), so it stops after [`VOCABULARY_RECORDS`] records and
//! says so.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::words::{fnv, words};

/// Records tagged for the embedded vocabulary (the rest are counted in distinct-1/2 only).
pub const VOCABULARY_RECORDS: u64 = 20_000;

const REGISTER_BITS: u32 = 14;
const REGISTERS: usize = 1 << REGISTER_BITS;

/// A HyperLogLog distinct counter over 64-bit hashes.
#[derive(Clone)]
pub struct Distinct {
    registers: Box<[u8; REGISTERS]>,
}

impl std::fmt::Debug for Distinct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Distinct(≈{:.0})", self.estimate())
    }
}

impl Default for Distinct {
    fn default() -> Self {
        Self {
            registers: Box::new([0; REGISTERS]),
        }
    }
}

impl Distinct {
    /// Counts a hash (spread it first: FNV alone is not uniform enough in its top bits).
    pub fn add(&mut self, hash: u64) {
        let h = spread(hash);
        let index = (h >> (64 - REGISTER_BITS)) as usize;
        let rest = (h << REGISTER_BITS) | (1 << (REGISTER_BITS - 1));
        let rank = u8::try_from(rest.leading_zeros() + 1).unwrap_or(u8::MAX);
        if self.registers[index] < rank {
            self.registers[index] = rank;
        }
    }

    /// The estimated number of distinct hashes added.
    #[must_use]
    pub fn estimate(&self) -> f64 {
        let m = REGISTERS as f64;
        let mut sum = 0.0;
        let mut zeros = 0_u32;
        for &r in self.registers.iter() {
            sum += 2f64.powi(-i32::from(r));
            zeros += u32::from(r == 0);
        }
        let raw = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
        if raw <= 2.5 * m && zeros > 0 {
            m * (m / f64::from(zeros)).ln()
        } else {
            raw
        }
    }
}

fn spread(mut x: u64) -> u64 {
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The diversity of a run, as reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Diversity {
    /// Words over all texts.
    pub words: u64,
    /// Distinct words ÷ words (estimated); `None` without words.
    pub distinct_1: Option<f64>,
    /// Distinct word bigrams ÷ bigrams (estimated); `None` without bigrams.
    pub distinct_2: Option<f64>,
    /// Distinct embedded-language words per language pair (`First–Second`), estimated.
    pub embedded_vocabulary: BTreeMap<String, u64>,
    /// Records tagged for the vocabulary (all, or the first [`VOCABULARY_RECORDS`]).
    pub vocabulary_records: u64,
    /// Records seen.
    pub records: u64,
}

/// The language pair whose embedded vocabulary a record may add to: its `first_language` and
/// `second_language`, unless its measurement was `unavailable` (the tagger cannot read its texts,
/// so counting their "embedded" words would be a guess).
#[must_use]
pub fn vocabulary_pair<'a>(
    first: Option<&'a str>,
    second: Option<&'a str>,
    measurement_unavailable: bool,
) -> (Option<&'a str>, Option<&'a str>) {
    if measurement_unavailable {
        (None, None)
    } else {
        (first, second)
    }
}

/// Folds texts into [`Diversity`], one record at a time.
#[derive(Debug, Default)]
pub struct DiversityBuilder {
    words: u64,
    bigrams: u64,
    unigram_set: Distinct,
    bigram_set: Distinct,
    embedded: BTreeMap<String, Distinct>,
    records: u64,
    vocabulary_records: u64,
}

impl DiversityBuilder {
    /// Adds one record's texts, for the pair `first`/`second` (its parameters). Pass the pair
    /// only when the record's measurement could tag its texts ([`vocabulary_pair`]): words of an
    /// `unavailable` measurement (romanized Chinese, a same-script pair) are not counted.
    pub fn add<S: AsRef<str>>(&mut self, texts: &[S], first: Option<&str>, second: Option<&str>) {
        self.records += 1;
        let pair = match (first, second) {
            (Some(a), Some(b)) if self.vocabulary_records < VOCABULARY_RECORDS => {
                crate::LanguagePair::parse(a, b)
                    .ok()
                    .map(|p| (format!("{a}–{b}"), p))
            }
            _ => None,
        };
        if pair.is_some() {
            self.vocabulary_records += 1;
        }
        for text in texts {
            let text = text.as_ref();
            let hashes: Vec<u64> = words(text).map(|w| fnv(w.as_bytes())).collect();
            self.words += hashes.len() as u64;
            for &h in &hashes {
                self.unigram_set.add(h);
            }
            for w in hashes.windows(2) {
                self.bigrams += 1;
                self.bigram_set.add(w[0].rotate_left(17) ^ w[1]);
            }
            if let Some((name, pair)) = &pair {
                let set = self.embedded.entry(name.clone()).or_default();
                // A speaker label ("Mom:") names a speaker: no word of the embedded language.
                let spoken = crate::speaker::without_speaker_label(text);
                for word in pair.tag(spoken) {
                    if word.tag == crate::WordTag::Lang(pair.second()) {
                        set.add(fnv(word.text.to_lowercase().as_bytes()));
                    }
                }
            }
        }
    }

    /// The figures.
    #[must_use]
    pub fn finish(self) -> Diversity {
        let ratio =
            |set: &Distinct, n: u64| (n > 0).then(|| (set.estimate().round() / n as f64).min(1.0));
        Diversity {
            words: self.words,
            distinct_1: ratio(&self.unigram_set, self.words),
            distinct_2: ratio(&self.bigram_set, self.bigrams),
            embedded_vocabulary: self
                .embedded
                .iter()
                .map(|(k, v)| (k.clone(), v.estimate().round() as u64))
                .collect(),
            vocabulary_records: self.vocabulary_records,
            records: self.records,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_run_counts_exactly() {
        let mut b = DiversityBuilder::default();
        // Words: a b a | b c → 5 words, 3 distinct; bigrams: (a b) (b a) | (b c) → 3, 3 distinct.
        b.add(&["a b a", "b, C"], Some("Spanish"), Some("English"));
        let d = b.finish();
        assert_eq!(d.words, 5);
        assert_eq!(d.distinct_1, Some(0.6));
        assert_eq!(d.distinct_2, Some(1.0));
    }

    #[test]
    fn embedded_vocabulary_counts_distinct_embedded_words() {
        let mut b = DiversityBuilder::default();
        b.add(
            &["أنا رايح الـ meeting بكرة", "الـ Meeting كان boring جدا"],
            Some("Arabic"),
            Some("English"),
        );
        let d = b.finish();
        assert_eq!(
            d.embedded_vocabulary["Arabic–English"], 2,
            "meeting, boring"
        );
    }

    /// Break-it finding: pinyin of an `unavailable` romanized-Chinese record was counted as
    /// English vocabulary.
    #[test]
    fn unavailable_measurements_add_no_vocabulary() {
        let (c, e) = (Some("Chinese"), Some("English"));
        assert_eq!(vocabulary_pair(c, e, true), (None, None));
        assert_eq!(vocabulary_pair(c, e, false), (c, e));
        let mut b = DiversityBuilder::default();
        let (first, second) = vocabulary_pair(c, e, true);
        b.add(&["wo jintian hen busy"], first, second);
        assert!(b.finish().embedded_vocabulary.is_empty());
    }

    #[test]
    fn large_counts_are_estimated_within_two_percent() {
        let mut set = Distinct::default();
        for i in 0..200_000_u64 {
            set.add(fnv(&i.to_le_bytes()));
            set.add(fnv(&i.to_le_bytes()));
        }
        let e = set.estimate();
        assert!((e - 200_000.0).abs() / 200_000.0 < 0.02, "{e}");
    }
}
