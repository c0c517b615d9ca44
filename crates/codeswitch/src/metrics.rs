//! The measurement of a tagged batch: counts, embedded ratio, switch points and the standard
//! code-mixing metrics (CMI, M-index, I-index, burstiness), per batch and per sentence.
//!
//! Everything here is pure arithmetic over [`WordTag`] sequences, so the formulas can be checked
//! on hand-built tag sequences independently of the tagger (see [`Measurement::from_tags`]).
//! The formulas and their sources are documented in [`crate::codeswitch`].

use serde::{Deserialize, Serialize};

use super::{Language, RatioRange, TaggedWord, UntaggedReason, WordTag};

/// Word counts for the two languages of the pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageCounts {
    /// Words tagged with the first (matrix) language.
    pub first: usize,
    /// Words tagged with the second (embedded) language.
    pub second: usize,
}

impl LanguageCounts {
    /// All tagged words.
    #[must_use]
    pub fn total(&self) -> usize {
        self.first + self.second
    }

    /// Whether both counts are zero.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.total() == 0
    }
}

/// Tokens left out of the language counts, by reason (see [`UntaggedReason`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntaggedCounts {
    /// Digit-only words.
    pub number: usize,
    /// Likely proper names.
    pub name: usize,
    /// Words neither language could be given with confidence.
    pub ambiguous: usize,
    /// Words in a script or language outside the pair.
    pub other_language: usize,
    /// Punctuation, emoji and symbol tokens (not words; not part of any ratio).
    pub symbol: usize,
}

impl UntaggedCounts {
    /// Untagged tokens that are words (everything but `symbol`).
    #[must_use]
    pub fn words(&self) -> usize {
        self.number + self.name + self.ambiguous + self.other_language
    }

    fn add(&mut self, reason: UntaggedReason) {
        match reason {
            UntaggedReason::Number => self.number += 1,
            UntaggedReason::Name => self.name += 1,
            UntaggedReason::Ambiguous => self.ambiguous += 1,
            UntaggedReason::OtherLanguage => self.other_language += 1,
            UntaggedReason::Symbol => self.symbol += 1,
        }
    }
}

/// The measurement of one sentence (one batch item).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentenceMeasurement {
    /// Word units in the sentence (tagged plus untagged words; symbols excluded).
    pub words: usize,
    /// Tagged words per language.
    pub tagged: LanguageCounts,
    /// Second-language share of the tagged words; 0 when none are tagged.
    pub embedded_ratio: f64,
    /// Language changes between consecutive tagged words.
    pub switch_points: usize,
    /// Utterance code-mixing index, 0–100 (at most 50 for two languages).
    pub cmi: f64,
    /// Of the tagged words, those whose tag was inferred (romanized words both word lists know,
    /// settled by context or frequency): `tagged − inferred` is the firm evidence of each
    /// language.
    #[serde(default, skip_serializing_if = "LanguageCounts::is_zero")]
    pub inferred: LanguageCounts,
    /// Of the tagged words, those whose language is uncertain (the inferred ones, and for two
    /// Latin-script languages the words lingua alone placed; see [`RatioRange`]): `tagged −
    /// uncertain` is the firm evidence of each language. Zero in records written before it
    /// was kept (read `inferred` then).
    #[serde(default, skip_serializing_if = "LanguageCounts::is_zero")]
    pub uncertain: LanguageCounts,
    /// The range the sentence's embedded share could take over every language its uncertain
    /// words could have; absent when no word is uncertain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_range: Option<RatioRange>,
    /// The language of the first tagged word (where a switch from the previous turn would be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_in: Option<Language>,
    /// The language of the last tagged word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_in: Option<Language>,
    /// The sentence was read with the romanized word lists (Hinglish): a word found in one
    /// list only is weaker evidence than a script ("pass" is English, and a chat spelling of
    /// Hindi पास).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub romanized: bool,
    /// The sentence's tokens with their tags, in text order (symbols included): the per-word
    /// data behind the figures, LinCE-style. Empty when the measurement was computed from tags
    /// alone ([`Measurement::from_tags`]) and in records written before tokens were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TaggedWord>,
}

/// Share of the language-bearing words (words that are not numbers or names) that must be
/// tagged for a measurement to be [`MeasurementStatus::Ok`]; below it, `LowCoverage`.
pub const MIN_COVERAGE: f64 = 0.7;

/// How far a measurement can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasurementStatus {
    /// At least [`MIN_COVERAGE`] of the language-bearing words were tagged.
    Ok,
    /// Fewer were: the figures describe only the words that could be tagged.
    LowCoverage,
    /// The text cannot be measured for this pair (the tagger cannot tell the languages apart,
    /// the script asked for has no detector, or no word could be tagged). Every figure that
    /// would be a guess is serialized as `null`; read none of them.
    Unavailable,
}

/// The measurement of a batch of sentences for one language pair.
///
/// Invariant: `words == tagged.total() + untagged.words()`. Serialized with these snake_case
/// field names; they are part of the output record and stay stable. When `status` is
/// [`MeasurementStatus::Unavailable`] the figures (`embedded_ratio`, `matrix_language`,
/// `switch_points`, `cmi`, `m_index`, `i_index`, `burstiness`, `sentences`) are serialized as
/// `null` (an empty list for `sentences`) and must not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "wire::Measurement", from = "wire::Measurement")]
pub struct Measurement {
    /// How far the figures can be trusted.
    pub status: MeasurementStatus,
    /// Why the status is not `ok`, in words; `None` when it is.
    pub status_reason: Option<String>,
    /// Share of the language-bearing words (not numbers, not names) tagged with a language of
    /// the pair, in [0, 1]; `None` when there are none.
    pub coverage: Option<f64>,
    /// The first (matrix per config) language.
    pub first_language: Language,
    /// The second (embedded per config) language.
    pub second_language: Language,
    /// Word units in the batch (UAX#29 words; each Han/Hiragana character is one unit).
    pub words: usize,
    /// Tagged words per language.
    pub tagged: LanguageCounts,
    /// Tokens left out, by reason.
    pub untagged: UntaggedCounts,
    /// Second-language share of the tagged words, in [0, 1]; 0 when nothing is tagged.
    pub embedded_ratio: f64,
    /// The language with more tagged words (the first on a tie); `None` when nothing is tagged.
    pub matrix_language: Option<Language>,
    /// Language changes between consecutive tagged words within a sentence, summed.
    pub switch_points: usize,
    /// Mean utterance CMI (Das & Gambäck 2014) over all sentences, 0–100.
    pub cmi: f64,
    /// M-index (Barnett et al. 2000) over the batch, in [0, 1].
    pub m_index: f64,
    /// I-index (Guzmán et al. 2017): switch points per possible switch position, in [0, 1].
    pub i_index: f64,
    /// Burstiness (Goh & Barabási 2008) of language-span lengths, in [-1, 1]; `None` when there
    /// is no switch point (spans of one language say nothing about switching) or fewer than
    /// two spans.
    pub burstiness: Option<f64>,
    /// One entry per batch item, in order.
    pub sentences: Vec<SentenceMeasurement>,
    /// The language a large share of the batch's words look like when it is neither of the
    /// pair (Portuguese in a Spanish–English batch; see `wordlists.rs`), or `"unknown"` when
    /// most of those words are in no word list the tool has (Galician, Esperanto …): the status
    /// is then `low_coverage` and `status_reason` says how many words. `None` otherwise.
    pub third_language: Option<String>,
    /// The range the embedded share could take over every language the batch's uncertain
    /// words could have (look-alikes, words lingua alone placed, ambiguous words); `None` when
    /// no word is uncertain or the measurement was computed from tags alone. A measurement
    /// whose share could be more than [`crate::RATIO_UNCERTAINTY_TOLERANCE`] off is
    /// `low_coverage`, and `status_reason` says how many words could be either language.
    pub ratio_range: Option<RatioRange>,
}

impl Measurement {
    /// Computes the measurement from already-tagged sentences (one tag sequence per batch item,
    /// in text order). A [`WordTag::Lang`] outside the pair counts as
    /// [`UntaggedReason::OtherLanguage`].
    #[must_use]
    pub fn from_tags(first: Language, second: Language, sentences: &[Vec<WordTag>]) -> Self {
        Self::from_words(
            first,
            second,
            sentences.iter().map(|s| s.iter().map(|t| (*t, false))),
        )
    }

    /// [`from_tags`](Self::from_tags) from the tagger's words, keeping which tags were
    /// inferred ([`TaggedWord::inferred`]).
    #[must_use]
    pub fn from_tagged(first: Language, second: Language, sentences: &[Vec<TaggedWord>]) -> Self {
        let mut measurement = Self::from_words(
            first,
            second,
            sentences
                .iter()
                .map(|s| s.iter().map(|w| (w.tag, w.inferred))),
        );
        for (sentence, words) in measurement.sentences.iter_mut().zip(sentences) {
            sentence.tokens.clone_from(words);
        }
        measurement
    }

    fn from_words<S, W>(first: Language, second: Language, sentences: S) -> Self
    where
        S: IntoIterator<Item = W>,
        W: IntoIterator<Item = (WordTag, bool)>,
    {
        let mut tagged = LanguageCounts::default();
        let mut untagged = UntaggedCounts::default();
        let mut span_lengths = Vec::new();
        let mut switch_positions = 0usize;
        let mut per_sentence = Vec::new();

        for tags in sentences {
            let mut counts = LanguageCounts::default();
            let mut inferred = LanguageCounts::default();
            let mut words = 0usize;
            let mut switches = 0usize;
            let mut starts_in = None;
            // (language of the current span, its length so far)
            let mut span: Option<(Language, usize)> = None;
            for (tag, was_inferred) in tags {
                let language = match tag {
                    WordTag::Lang(l) if l == first || l == second => l,
                    WordTag::Lang(_) => {
                        untagged.add(UntaggedReason::OtherLanguage);
                        words += 1;
                        continue;
                    }
                    WordTag::Untagged(reason) => {
                        untagged.add(reason);
                        if reason != UntaggedReason::Symbol {
                            words += 1;
                        }
                        continue;
                    }
                };
                words += 1;
                starts_in.get_or_insert(language);
                let (count, inferred_count) = if language == first {
                    (&mut counts.first, &mut inferred.first)
                } else {
                    (&mut counts.second, &mut inferred.second)
                };
                *count += 1;
                if was_inferred {
                    *inferred_count += 1;
                }
                span = match span {
                    Some((current, len)) if current == language => Some((current, len + 1)),
                    Some((_, len)) => {
                        switches += 1;
                        span_lengths.push(len);
                        Some((language, 1))
                    }
                    None => Some((language, 1)),
                };
            }
            let ends_in = span.map(|(language, _)| language);
            if let Some((_, len)) = span {
                span_lengths.push(len);
            }
            switch_positions += counts.total().saturating_sub(1);
            tagged.first += counts.first;
            tagged.second += counts.second;
            per_sentence.push(SentenceMeasurement {
                words,
                tagged: counts,
                embedded_ratio: share(counts.second, counts.total()),
                switch_points: switches,
                cmi: utterance_cmi(counts),
                inferred,
                uncertain: LanguageCounts::default(),
                ratio_range: None,
                starts_in,
                ends_in,
                romanized: false,
                tokens: Vec::new(),
            });
        }

        let switch_points = per_sentence.iter().map(|s| s.switch_points).sum();
        let cmi = if per_sentence.is_empty() {
            0.0
        } else {
            per_sentence.iter().map(|s| s.cmi).sum::<f64>() / per_sentence.len() as f64
        };
        let matrix_language = match tagged.total() {
            0 => None,
            _ if tagged.second > tagged.first => Some(second),
            _ => Some(first),
        };
        let language_words = tagged.total() + untagged.ambiguous + untagged.other_language;
        let coverage = (language_words > 0).then(|| share(tagged.total(), language_words));
        let (status, status_reason) = match coverage {
            _ if tagged.total() == 0 => (
                MeasurementStatus::Unavailable,
                Some(format!("no word could be tagged as {first} or {second}")),
            ),
            Some(c) if c < MIN_COVERAGE => (
                MeasurementStatus::LowCoverage,
                Some(format!(
                    "only {:.0}% of the words could be tagged as {first} or {second} (below {:.0}%)",
                    c * 100.0,
                    MIN_COVERAGE * 100.0
                )),
            ),
            _ => (MeasurementStatus::Ok, None),
        };
        Self {
            status,
            status_reason,
            coverage,
            first_language: first,
            second_language: second,
            words: tagged.total() + untagged.words(),
            tagged,
            untagged,
            embedded_ratio: share(tagged.second, tagged.total()),
            matrix_language,
            switch_points,
            cmi,
            m_index: m_index(tagged),
            i_index: share(switch_points, switch_positions),
            burstiness: if switch_points == 0 {
                None
            } else {
                burstiness(&span_lengths)
            },
            sentences: per_sentence,
            third_language: None,
            ratio_range: None,
        }
    }
}

impl Measurement {
    /// A measurement that could not be made for `first` and `second`, with the reason. Counts
    /// are zero and figures are not to be read (they serialize as `null`).
    #[must_use]
    pub fn unavailable(first: Language, second: Language, reason: impl Into<String>) -> Self {
        let mut m = Self::from_tags(first, second, &[]);
        m.status = MeasurementStatus::Unavailable;
        m.status_reason = Some(reason.into());
        m
    }

    /// Whether the figures may be read (the status is not `unavailable`).
    #[must_use]
    pub fn is_available(&self) -> bool {
        self.status != MeasurementStatus::Unavailable
    }
}

/// The serialized form: figures become `null` when the measurement is unavailable.
mod wire {
    use serde::{Deserialize, Serialize};

    use super::{
        Language, LanguageCounts, MeasurementStatus, RatioRange, SentenceMeasurement,
        UntaggedCounts,
    };

    #[derive(Serialize, Deserialize)]
    pub(super) struct Measurement {
        #[serde(default = "ok")]
        status: MeasurementStatus,
        #[serde(default)]
        status_reason: Option<String>,
        #[serde(default)]
        coverage: Option<f64>,
        first_language: Language,
        second_language: Language,
        words: usize,
        tagged: LanguageCounts,
        untagged: UntaggedCounts,
        embedded_ratio: Option<f64>,
        matrix_language: Option<Language>,
        switch_points: Option<usize>,
        cmi: Option<f64>,
        m_index: Option<f64>,
        i_index: Option<f64>,
        burstiness: Option<f64>,
        #[serde(default)]
        sentences: Vec<SentenceMeasurement>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        third_language: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratio_range: Option<RatioRange>,
    }

    fn ok() -> MeasurementStatus {
        MeasurementStatus::Ok
    }

    impl From<super::Measurement> for Measurement {
        fn from(m: super::Measurement) -> Self {
            let shown = m.is_available();
            let some = |v: f64| shown.then_some(v);
            Self {
                status: m.status,
                status_reason: m.status_reason,
                coverage: m.coverage,
                first_language: m.first_language,
                second_language: m.second_language,
                words: m.words,
                tagged: m.tagged,
                untagged: m.untagged,
                embedded_ratio: some(m.embedded_ratio),
                matrix_language: m.matrix_language.filter(|_| shown),
                switch_points: shown.then_some(m.switch_points),
                cmi: some(m.cmi),
                m_index: some(m.m_index),
                i_index: some(m.i_index),
                burstiness: m.burstiness.filter(|_| shown),
                sentences: if shown { m.sentences } else { Vec::new() },
                third_language: m.third_language,
                ratio_range: m.ratio_range.filter(|_| shown),
            }
        }
    }

    impl From<Measurement> for super::Measurement {
        fn from(w: Measurement) -> Self {
            Self {
                status: w.status,
                status_reason: w.status_reason,
                coverage: w.coverage,
                first_language: w.first_language,
                second_language: w.second_language,
                words: w.words,
                tagged: w.tagged,
                untagged: w.untagged,
                embedded_ratio: w.embedded_ratio.unwrap_or(0.0),
                matrix_language: w.matrix_language,
                switch_points: w.switch_points.unwrap_or(0),
                cmi: w.cmi.unwrap_or(0.0),
                m_index: w.m_index.unwrap_or(0.0),
                i_index: w.i_index.unwrap_or(0.0),
                burstiness: w.burstiness,
                sentences: w.sentences,
                third_language: w.third_language,
                ratio_range: w.ratio_range,
            }
        }
    }
}

/// `part / whole`, or 0 when `whole` is 0.
fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Das & Gambäck (2014): 100 · (1 − max(w_i) / (n − u)); 0 when no word is language-tagged.
fn utterance_cmi(counts: LanguageCounts) -> f64 {
    let n = counts.total();
    if n == 0 {
        return 0.0;
    }
    100.0 * (1.0 - counts.first.max(counts.second) as f64 / n as f64)
}

/// Barnett et al. (2000): (1 − Σ p_j²) / ((k − 1) · Σ p_j²), with k = 2 languages.
fn m_index(counts: LanguageCounts) -> f64 {
    let n = counts.total();
    if n == 0 {
        return 0.0;
    }
    let p1 = counts.first as f64 / n as f64;
    let p2 = counts.second as f64 / n as f64;
    let sum_sq = p1 * p1 + p2 * p2;
    // sum_sq ≥ 0.5 for two languages, so no division by zero; clamp only absorbs rounding.
    ((1.0 - sum_sq) / sum_sq).clamp(0.0, 1.0)
}

/// Goh & Barabási (2008): (σ − m) / (σ + m) over span lengths (population σ).
fn burstiness(spans: &[usize]) -> Option<f64> {
    if spans.len() < 2 {
        return None;
    }
    let count = spans.len() as f64;
    let mean = spans.iter().sum::<usize>() as f64 / count;
    let variance = spans
        .iter()
        .map(|&s| (s as f64 - mean).powi(2))
        .sum::<f64>()
        / count;
    let sigma = variance.sqrt();
    // Every span has length ≥ 1, so mean > 0 and the denominator is positive.
    Some(((sigma - mean) / (sigma + mean)).clamp(-1.0, 1.0))
}
