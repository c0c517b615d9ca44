//! Duplicate detection over a run's texts: exact duplicates after normalisation, and near
//! duplicates by MinHash over word 3-shingles with LSH banding.
//!
//! Normalisation: NFKC (full-width letters and ligatures are plain letters), lower-cased, words are runs of letters and digits (each Han, Hiragana or
//! Katakana character is a word of its own, as in `codeswitch`), so punctuation,
//! spacing and case do not make two texts differ. A record is its batch of utterances taken as
//! a multiset of sentences: the exact key is over the sorted normalised sentences
//! ([`exact_key`]) and shingles never span two sentences ([`batch_signature`]), so the same
//! sentences in another order are the same record.
//!
//! Near duplicates: [`SIGNATURE`] min-hashes per record, each kept as its lowest 8 bits (b-bit
//! MinHash: 128 hashes in the 128 bytes 32 full hashes took, so the estimate's spread is half
//! as wide); the first [`BANDS`] × [`ROWS`] of them form the LSH bands. Two records sharing a
//! band are compared, and one whose estimated Jaccard similarity with an earlier record is at
//! least [`NEAR_DUPLICATE_JACCARD`] is its near duplicate. The earlier record (in file order)
//! is the original. Memory: the signature (128 bytes) and [`BANDS`] + 1 index entries per
//! record; texts are never kept.

use std::collections::HashMap;

pub use codeswitch::words::{fnv, words};

/// Min-hashes per record (8 bits each).
pub const SIGNATURE: usize = 128;
/// LSH bands (each of [`ROWS`] min-hashes, over the signature's first `BANDS × ROWS`).
pub const BANDS: usize = 8;
/// Min-hashes per band.
pub const ROWS: usize = 4;
/// The chance that two different min-hashes agree in their lowest 8 bits.
const CHANCE: f64 = 1.0 / 256.0;
/// Estimated Jaccard similarity of word 3-shingle sets from which a record is a near duplicate.
pub const NEAR_DUPLICATE_JACCARD: f64 = 0.8;

/// What a record duplicates, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicate {
    /// The same text as record `0` (an index in insertion order) after normalisation.
    Exact(u32),
    /// Estimated Jaccard ≥ [`NEAR_DUPLICATE_JACCARD`] with record `0`.
    Near(u32),
}

impl Duplicate {
    /// The index of the original record.
    #[must_use]
    pub fn original(self) -> u32 {
        match self {
            Self::Exact(i) | Self::Near(i) => i,
        }
    }
}

/// SplitMix64's finaliser: spreads one hash into independent-looking ones.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `text` in Unicode compatibility form (NFKC): full-width letters, ligatures (`ﬁ`), and other
/// compatibility characters become their plain letters, so a copy written with them is the same
/// text for both duplicate keys.
fn compatible(text: &str) -> std::borrow::Cow<'_, str> {
    icu_normalizer::ComposingNormalizerBorrowed::new_nfkc().normalize(text)
}

/// The word 3-shingles of one sentence (a sentence of fewer than three words is one shingle).
fn shingles(text: &str) -> Vec<u64> {
    let text = compatible(text);
    let words: Vec<u64> = words(&text).map(|w| fnv(w.as_bytes())).collect();
    if words.len() < 3 {
        vec![words.iter().fold(0, |h, w| mix(h ^ w))]
    } else {
        words
            .windows(3)
            .map(|w| mix(mix(mix(w[0]) ^ w[1]) ^ w[2]))
            .collect()
    }
}

/// The MinHash signature of one text's word 3-shingles.
#[must_use]
pub fn signature(text: &str) -> [u8; SIGNATURE] {
    batch_signature(&[text])
}

/// The MinHash signature of a batch: the union of its sentences' word 3-shingles (no shingle
/// spans two sentences), so the order of the sentences does not change it.
#[must_use]
pub fn batch_signature<S: AsRef<str>>(sentences: &[S]) -> [u8; SIGNATURE] {
    // One seed per position.
    let seeds: [u64; SIGNATURE] = std::array::from_fn(|i| mix(i as u64 + 1));
    let mut min = [u64::MAX; SIGNATURE];
    for s in sentences.iter().flat_map(|s| shingles(s.as_ref())) {
        for (slot, seed) in min.iter_mut().zip(&seeds) {
            *slot = (*slot).min(mix(s ^ seed));
        }
    }
    // The lowest 8 bits of each minimum (b-bit MinHash).
    min.map(|m| (m & 0xff) as u8)
}

/// The exact-duplicate key of a batch: its sentences normalised (lower-cased words joined by
/// one space), as a multiset (sorted), hashed. Two batches with the same sentences in another
/// order have the same key; the same words split into sentences differently do not.
#[must_use]
pub fn exact_key<S: AsRef<str>>(sentences: &[S]) -> u64 {
    let mut normal: Vec<String> = sentences
        .iter()
        .map(|s| words(&compatible(s.as_ref())).collect::<Vec<_>>().join(" "))
        .collect();
    normal.sort_unstable();
    fnv(normal.join("\n").as_bytes())
}

/// Estimated Jaccard similarity of two signatures: the share of equal positions, less the
/// share that agree by chance in 8 bits (b-bit MinHash's estimator), at least 0.
#[must_use]
pub fn similarity(a: &[u8; SIGNATURE], b: &[u8; SIGNATURE]) -> f64 {
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / SIGNATURE as f64;
    ((equal - CHANCE) / (1.0 - CHANCE)).max(0.0)
}

/// The running index of texts seen so far.
#[derive(Debug, Default)]
pub struct DedupIndex {
    exact: HashMap<u64, u32>,
    /// Per band key, the texts that have it (the most recent [`BUCKET_SCAN`] are compared).
    bands: HashMap<u64, Vec<u32>>,
    signatures: Vec<[u8; SIGNATURE]>,
}

/// Members of a band bucket a new text is compared with (the most recent), so a large cluster
/// of near duplicates costs bounded work per text.
const BUCKET_SCAN: usize = 64;

impl DedupIndex {
    /// An empty index.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next record's text (one sentence; index = the number added before it) and
    /// says what it duplicates, if anything.
    pub fn add(&mut self, text: &str) -> Option<Duplicate> {
        self.add_linked(&[text]).0
    }

    /// [`add`](Self::add), with every earlier text found near this one (not only the one it is
    /// marked a duplicate of): a chain of near duplicates (A≈B≈C, A and C further apart) is one
    /// cluster for the splits.
    ///
    /// A record is its batch of sentences, compared as a multiset: the same sentences in
    /// another order are an exact duplicate ([`exact_key`]), and the near-duplicate signature
    /// is order-insensitive too ([`batch_signature`]).
    pub fn add_linked<S: AsRef<str>>(&mut self, sentences: &[S]) -> (Option<Duplicate>, Vec<u32>) {
        let index = u32::try_from(self.signatures.len()).unwrap_or(u32::MAX);
        let exact_key = exact_key(sentences);
        let sig = batch_signature(sentences);
        self.signatures.push(sig);
        if let Some(&original) = self.exact.get(&exact_key) {
            return (Some(Duplicate::Exact(original)), vec![original]);
        }
        self.exact.insert(exact_key, index);
        let mut found = None;
        let mut linked: Vec<u32> = Vec::new();
        for band in 0..BANDS {
            let rows = &sig[band * ROWS..(band + 1) * ROWS];
            let mut bytes = Vec::with_capacity(ROWS + 1);
            bytes.push(band as u8);
            bytes.extend_from_slice(rows);
            let key = fnv(&bytes);
            let bucket = self.bands.entry(key).or_default();
            for &other in bucket.iter().rev().take(BUCKET_SCAN) {
                if linked.contains(&other) {
                    continue;
                }
                if similarity(&sig, &self.signatures[other as usize]) >= NEAR_DUPLICATE_JACCARD {
                    linked.push(other);
                }
            }
            if found.is_none() {
                found = bucket
                    .first()
                    .copied()
                    .filter(|first| linked.contains(first))
                    .or_else(|| linked.first().copied())
                    .map(Duplicate::Near);
            }
            bucket.push(index);
        }
        (found, linked)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn exact_duplicates_ignore_case_spacing_and_punctuation() {
        let mut index = DedupIndex::new();
        assert_eq!(index.add("Yaar, aaj ka meeting bahut boring tha!"), None);
        assert_eq!(
            index.add("yaar aaj ka   MEETING bahut boring tha"),
            Some(Duplicate::Exact(0))
        );
        assert_eq!(index.add("Kal subah gym jaana hai"), None);
    }

    #[test]
    fn a_one_word_edit_in_a_long_text_is_a_near_duplicate_and_a_new_text_is_not() {
        let base = "Mujhe lagta hai ki project deadline tak complete nahi hoga kyunki team \
                    ke paas abhi bhi bahut saara kaam pending hai aur client har din naye \
                    changes maang raha hai jo humne plan mein kabhi socha hi nahi tha";
        let edited = base.replace("client", "customer");
        let other = "Chalo coffee peene chalte hain, phir shaam ko movie dekhenge aur dinner \
                     bhi bahar hi karenge kyunki ghar mein kuch bhi nahi hai";
        let mut index = DedupIndex::new();
        assert_eq!(index.add(base), None);
        assert_eq!(index.add(&edited), Some(Duplicate::Near(0)));
        assert_eq!(index.add(other), None);
    }

    /// Break-it (issue 30): a batch with the same sentences in another order was not found at
    /// all (the batch was one text, its shingles spanning sentence boundaries).
    #[test]
    fn a_batch_is_a_multiset_of_sentences_for_exact_and_near_duplicates() {
        let batch = [
            "Yaar aaj ka meeting bahut boring tha, sab log phone dekh rahe the",
            "Kal subah gym jaana hai but alarm set karna bhool gaya",
            "Mummy ne bola ki dinner ke baad hi movie dekhenge tonight",
            "Office mein naya manager aaya hai, bahut strict lagta hai yaar",
        ];
        let reordered = [batch[2], batch[0], batch[3], batch[1]];
        assert_eq!(exact_key(&batch), exact_key(&reordered));
        assert_eq!(batch_signature(&batch), batch_signature(&reordered));
        let mut index = DedupIndex::new();
        assert_eq!(index.add_linked(&batch).0, None);
        assert_eq!(index.add_linked(&reordered).0, Some(Duplicate::Exact(0)));
        // Reordered and one word changed: near, whatever the order.
        let edited = [
            batch[3],
            batch[1],
            "Mummy ne bola ki dinner ke baad hi film dekhenge tonight",
            batch[0],
        ];
        assert_eq!(index.add_linked(&edited).0, Some(Duplicate::Near(0)));
        // A sentence twice is not the same multiset as once.
        let twice = [batch[0], batch[0], batch[1], batch[2], batch[3]];
        assert_ne!(exact_key(&twice), exact_key(&batch));
        // The same words cut into sentences differently are other sentences.
        let joined = [batch.join(" ")];
        assert_ne!(exact_key(&joined), exact_key(&batch));
    }

    /// 200 pairs of 40-word texts of a 20,000-word vocabulary, the second with `changes`
    /// words replaced at distinct positions away from the ends (each change alters three
    /// shingles); how many pairs the index calls near duplicates.
    fn near_rate(changes: usize, seed: u64) -> usize {
        let mut state = seed;
        let mut next = move || {
            state = mix(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            state
        };
        let mut found = 0;
        for _ in 0..200 {
            let words: Vec<String> = (0..40).map(|_| format!("v{}", next() % 20_000)).collect();
            let mut edited = words.clone();
            let mut positions = Vec::new();
            while positions.len() < changes {
                let at = 2 + (next() % 36) as usize;
                if positions.iter().all(|&p: &usize| p.abs_diff(at) >= 3) {
                    positions.push(at);
                }
            }
            for at in positions {
                edited[at] = format!("new{}", next());
            }
            let mut index = DedupIndex::new();
            index.add(&words.join(" "));
            found += usize::from(index.add(&edited.join(" ")).is_some());
        }
        found
    }

    /// Break-it (issue 30): recall near the threshold was 167/200 for one word changed (true
    /// Jaccard 0.85). Recall there, and false positives below it (two words changed, Jaccard
    /// 0.73; three, 0.62), over 1,000 seeded pairs each.
    #[test]
    fn recall_near_the_threshold_and_false_positives_below_it() {
        let one: usize = (0..5).map(|s| near_rate(1, s)).sum();
        let two: usize = (0..5).map(|s| near_rate(2, 100 + s)).sum();
        let three: usize = (0..5).map(|s| near_rate(3, 200 + s)).sum();
        eprintln!(
            "near duplicates found of 1,000 pairs: one word changed {one}, two {two}, three {three}"
        );
        // 32 full 32-bit hashes (before): 809, 193 and 13.
        assert!(one >= 900, "one word changed: {one} of 1000");
        assert!(two <= 100, "two words changed: {two} of 1000");
        assert!(three <= 5, "three words changed: {three} of 1000");
    }

    /// Break-it review (issue 30): full-width letters and ligatures hid copies from both keys.
    #[test]
    fn full_width_letters_and_ligatures_are_the_same_text() {
        let plain = ["The office will finally close at five today, so file it now."];
        let wide = ["Ｔｈｅ ｏｆｆｉｃｅ will ﬁnally close at ｆｉｖｅ today, so ﬁle it now."];
        assert_eq!(exact_key(&plain), exact_key(&wide));
        assert!((similarity(&batch_signature(&plain), &batch_signature(&wide)) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn chinese_characters_are_words() {
        let w: Vec<String> = words("我今天很 Busy,没有time").collect();
        assert_eq!(w, ["我", "今", "天", "很", "busy", "没", "有", "time"]);
    }

    proptest! {
        #[test]
        fn identical_texts_have_similarity_one(text in "[a-z ]{0,80}") {
            prop_assert_eq!(similarity(&signature(&text), &signature(&text)), 1.0);
        }

        #[test]
        fn texts_with_no_shared_word_are_dissimilar(
            a in proptest::collection::vec("[a-m]{3,8}", 6..20),
            b in proptest::collection::vec("[n-z]{3,8}", 6..20),
        ) {
            let s = similarity(&signature(&a.join(" ")), &signature(&b.join(" ")));
            prop_assert!(s < NEAR_DUPLICATE_JACCARD, "similarity {}", s);
        }
    }
}
