//! Deterministic code-switching measurements (pipeline spec §3): this crate owns tagging every
//! word of a generated batch with one language of the configured pair, and the metrics computed
//! from those tags — the embedded-word ratio the ratio judge is scored on, switch points, CMI,
//! M-index, I-index and burstiness — plus parsing the `cs_ratio` target and scoring a measured
//! ratio against it. It does no I/O; an LLM is never asked to count. [`diversity`] folds a run's
//! texts into distinct-n and embedded-vocabulary figures in fixed memory.
//!
//! # Tagging
//!
//! Text is split at UAX#29 word boundaries (`unicode-segmentation`); whitespace is dropped and
//! tokens without a letter or digit are [`UntaggedReason::Symbol`] (punctuation, emoji), which
//! are not words; so are links, bare domains and file names (a dot between two letters),
//! paths, hashtags and handles (`#nofilter`, `@shop`), whole. UAX#29 has no dictionary for Chinese or Japanese, so **each Han or Hiragana
//! character is one word unit** (Katakana runs stay whole). This inflates the Chinese/Japanese
//! side relative to a dictionary segmentation (a two-character word counts twice); it is
//! deterministic and monotone in the amount of Chinese, which is what a ratio target needs, and it
//! is the unit Mandarin–English code-switching research counts in (the SEAME corpus's mixed error
//! rate counts Mandarin characters and English words). The `cs_ratio` target of a Chinese or
//! Japanese pair is therefore a share of characters and words, and the prompts say so
//! ([`LanguagePair::ratio_unit`]).
//!
//! Each word is then tagged, in this order:
//! 1. **No letters, or a leading digit** ("2024", "١٢٣", "3rd", "10am") →
//!    [`UntaggedReason::Number`].
//! 2. **Chat tokens** written alike in every language ("ok", "haha", "lol") → ambiguous: "ok" in
//!    Arabic chat is not evidence of English.
//!    A word with an upper-case letter right after a lower-case one or an underscore between
//!    letters ("isLoggedIn", "iPhone", "user_settings": an identifier or a brand) → name.
//! 3. **Likely name**: an all-Latin word, capitalised with a lower-case letter after the initial,
//!    not sentence-initial (start of item, after `. ! ? : …` or a line break) and not a listed
//!    function word ("I'm") → [`UntaggedReason::Name`]. This applies in every pair, including
//!    Arabic–English where "Dubai" would otherwise count as English. It is disabled when German
//!    is in the pair, since German capitalises every noun. Native-script names (Arabic,
//!    Devanagari, Han) cannot be recognised without a gazetteer and count for their language.
//! 4. **By script** when the letters' scripts point at exactly one language of the pair
//!    (Arabic, Devanagari, Han, Kana, Hangul, Cyrillic, or Latin against a non-Latin partner).
//!    Letters of both languages' exclusive scripts in one token → ambiguous; letters only of
//!    scripts neither language uses → [`UntaggedReason::OtherLanguage`]. Han in a
//!    Chinese–Japanese pair is shared and so ambiguous (Kana still marks Japanese).
//! 5. **Both Latin** (English, Spanish, French, German, Italian, Malay, Portuguese, Tagalog,
//!    Indonesian): a function word listed
//!    for both languages (a tiny closed-class lexicon, see `lexicon.rs`: "a", "no" in en/es) is
//!    ambiguous. Then both languages' frequency lists (wordfreq, `wordlists.rs`): a word both
//!    hold at comparable frequency (Zipf within 1.5: "red" es/en, "chat" and "but" fr/en,
//!    "also", "will", "total", "bank" de/en) is a **look-alike**: it gets a provisional tag (the
//!    function-word lexicon's, else lingua's) that stands for the ratio (an established loan
//!    such as "meeting" in Italian is most often the switch its writer meant); when lingua is
//!    unsure, its two nearest firm neighbours settle it if they agree. Either way it is marked
//!    [`TaggedWord::inferred`], so it never counts as firm evidence of a switch (the gate). Otherwise a function word listed for exactly one language is tagged
//!    with it; a word only one frequency list holds (or holds 1.5 Zipf higher: "Brot", "the")
//!    is that language; a one-letter token is ambiguous; else lingua, restricted to exactly the
//!    pair and built once per pair (cached process-wide), gives confidences summing to 1 and the
//!    word is tagged when the best reaches [`LATIN_CONFIDENCE_THRESHOLD`], else ambiguous.
//!
//! **Third language.** A word is *not the pair's* when it is in neither pair language's list
//! but in a third language's (Dutch, Catalan, Romanian, or a Latin-script pair language
//! outside the pair: English, Spanish, French, German, Italian, Malay, Portuguese,
//! Filipino/Tagalog, Indonesian), or when it is in **no** list the pair knows — a language the tool
//! has no list for (Galician, Asturian, Esperanto, Afrikaans, Luxembourgish, Haitian Creole,
//! Sicilian, Basque, Swedish …). Known are the two languages' frequency lists and function
//! words, an elided form whose part is known ("m'a", "quell'albero"), a German compound that
//! ends in a German word of four letters or more ("Nebenkosten|abrechnung"), and beside Malay an
//! Indonesian word (beside Indonesian a Malay one). For a Latin–Latin pair, a batch where at least 20% of the Latin words (at
//! least 3) are not the pair's, or 40% of one item's look like a known third language, is
//! [`MeasurementStatus::LowCoverage`]
//! with a `status_reason` saying how many and [`Measurement::third_language`] set: the third
//! language most of them look like, or [`UNKNOWN_LANGUAGE`] (`"unknown"`) when most are in no
//! list. A batch dense in words no list holds but of the pair's language (7 dish names in 24
//! words: "tamales", "chilaquiles", "pozole") is taken for one too: the gate refuses it as
//! undecided. Real
//! code-switched text has few such words (at most 3.6% per pair on the hand-tagged sets, 12% in
//! batches with rare vocabulary); the third-language batches of the reviews have 20–78%. In
//! romanized Hindi text, a word neither the Hinglish nor the English list holds counts the same
//! (Swahili or Malay beside English). Indonesian beside Malay (and Malay beside Indonesian) is not a third language.
//!
//! **Names with joiners.** The lower-case joiners of a multi-word name or title ("of", "the",
//! "and", "de", "del", "y", "della", "von", "der", "binti": "Pirates of the Caribbean",
//! "Ursula von der Leyen") are no evidence of their language: when they are tagged with a
//! language no tagged word beside the name has, the whole run of capitalised words and joiners
//! is [`UntaggedReason::Name`], at sentence start and in German pairs too. Capitalised function
//! words inside the run count as joiners ("Let It Be", "Catch Me If You Can"), and a word cut
//! with an apostrophe goes on into the joiners after it ("Singin' in the Rain").
//!
//! **English titles.** In a pair of English and a Latin-script language, a run of English words
//! (names, untagged and unfirm words among them, commas included, up to a firm word of the
//! other language or the sentence's end) that starts with a capitalised English word other
//! than "I" after the sentence's first word, or whose first two words are capitalised, is a
//! title: [`UntaggedReason::Name`] ("J'ai relu The catcher in the rye", "Crazy, Stupid, Love
//! passe ce soir"); in German pairs it needs two capitalised English words.
//!
//! **English clitics.** In every pair with English, a word with an English clitic ("I'm",
//! "you're", "we've", "I'll", "don't", "let's") is English, before the frequency lists, and
//! firm: no other language of the tool ends a word so, though wordfreq's Filipino, Malay and
//! Indonesian lists hold such words from the code-switched web text they were built from. So,
//! beside those three languages, is a closed list of English discourse words and tags
//! ("right", "seriously", "whatever", "anyway", "gosh": `wordlists::ENGLISH_TAGS`).
//!
//! **German dialect look-alikes.** In a German–English text, "I", "is", "a", "no", "mia" and
//! "ned" (also Bavarian and Austrian spellings) tagged English are firm only beside a firm
//! English word; otherwise they are [`TaggedWord::inferred`].
//!
//! **Format characters and homoglyphs.** Unicode format characters (category Cf: zero-width
//! space, joiners, soft hyphen, bidirectional marks) are dropped before tokenising, and so are
//! unusual space-like characters between two letters (hair and thin spaces, the braille blank,
//! Hangul fillers: "sold\u{2800}ado" is "soldado"; elsewhere they are a space), and so are the
//! katakana middle dot, emoji and a `/` with at most three letters on one side between two
//! letters ("Ten・go", "in/for/me": the word is whole again; the non-breaking hyphen is a
//! hyphen). The pieces of a word cut into syllables by hyphens ("Ten-go", "for-mar": a piece of
//! at most three letters, the pieces together a word of the pair's lists) keep their tags but
//! are [`TaggedWord::inferred`], never firm; a word
//! mixing Latin with Cyrillic or Greek letters is ambiguous, and a batch where one word in twenty
//! is such a word is [`MeasurementStatus::LowCoverage`].
//!
//! **Uncertainty.** A word whose language was not read off the word (a look-alike, a contested
//! romanized word, a word lingua alone placed, an ambiguous word) and that no firm neighbour of
//! its language supports is *uncertain*; [`Measurement::ratio_range`] (and each sentence's) is
//! the range the embedded share takes over every language those words could have, and a
//! measurement whose share could be more than [`RATIO_UNCERTAINTY_TOLERANCE`] (0.15) from that
//! range's far end is [`MeasurementStatus::LowCoverage`], saying how many words could be either
//! language (`uncertainty.rs` has the rule and the range's formula).
//!
//! A *sentence* (utterance) is one batch item: the generator's unit. Switch points and spans never
//! cross items. Untagged words are skipped, not span breakers: "I love 2 tacos" has no switch
//! point between "love" and "tacos" caused by "2".
//!
//! # Metrics
//!
//! With `n₁`, `n₂` the tagged words of the first and second language and `N = n₁ + n₂`:
//! - `embedded_ratio = n₂ / N` (0 when N = 0): the share the `cs_ratio` target is about.
//! - `matrix_language`: the language with more tagged words (the first on a tie).
//! - `switch_points`: per sentence, the number of adjacent tagged-word pairs whose languages
//!   differ; summed over sentences.
//! - `cmi`: the Code-Mixing Index of Das & Gambäck (2014), *Identifying languages at the word
//!   level in code-mixed Indian social media text* (ICON), per utterance
//!   `CMI = 100 · (1 − max(wᵢ) / (n − u))` where `n − u` is the utterance's tagged words and
//!   `max(wᵢ)` those of its dominant language, and `CMI = 0` when `n = u`. The batch value is the
//!   mean over **all** utterances, monolingual ones included (the paper's "CMI all" rather than
//!   "CMI mixed"); we use this original variant, not the 2016 switch-point-weighted `C_u` of
//!   Gambäck & Das, because switch points are reported separately. Range 0–50 for two languages.
//! - `m_index`: the Multilingual index of Barnett et al. (2000), *The LIDES Coding Manual*
//!   (International Journal of Bilingualism 4(2)), `M = (1 − Σ pⱼ²) / ((k − 1) · Σ pⱼ²)` with
//!   `k = 2` and `pⱼ = nⱼ / N`, over the whole batch: 0 monolingual, 1 perfectly balanced.
//! - `i_index`: the Integration index of Guzmán et al. (2017), *Metrics for modeling
//!   code-switching across corpora* (Interspeech), `I = switch points / possible switch
//!   positions`. Guzmán's positions are `N − 1` for one text; because we never count a switch
//!   across batch items, we also do not count those boundaries as positions:
//!   positions = `Σ_s max(0, N_s − 1)`. For a one-item batch this is exactly
//!   `switch points / (N − 1)`. 0 when there are no positions.
//! - `burstiness`: Goh & Barabási (2008), *Burstiness and memory in complex systems* (EPL 81),
//!   `B = (σ − m) / (σ + m)` over the lengths of language spans (maximal runs of same-language
//!   tagged words within a sentence), `m` their mean and `σ` their population standard
//!   deviation, as applied to code-switching by Guzmán et al. (2017). −1 periodic, 0 random
//!   (Poisson-like), towards 1 bursty. `None` with fewer than two spans (a single span has no
//!   spread to describe).
//!
//! Per-sentence values (`sentences`) repeat the counts, ratio, switch points and CMI per item.
//!
//! # Ratio target and score
//!
//! [`parse_target_ratio`] reads "30%", "0.3", "30" and Low/Medium/High (0.2/0.35/0.5, see the
//! constants for why), and [`ratio_score`] is `10 · max(0, 1 − |measured − target| / 0.5)`.
//!
//! ```
//! use codeswitch::{measure, parse_target_ratio, ratio_score};
//!
//! let batch = vec!["我今天很 busy, 没有 time 吃饭。".to_owned()];
//! let m = measure(&batch, "Chinese", "English")?;
//! assert_eq!(m.tagged.second, 2); // "busy", "time"
//! let target = parse_target_ratio("30%").unwrap_or_default();
//! let score = ratio_score(m.embedded_ratio, target);
//! assert!((0.0..=10.0).contains(&score));
//! # Ok::<(), codeswitch::CodeSwitchError>(())
//! ```

mod boilerplate;
mod commands;
pub mod diversity;
mod language;
mod lexicon;
mod loans;
mod mentions;
mod metrics;
mod page_text;
mod ratio;
mod romanized;
mod scaffolding;
mod script_languages;
mod script_names;
mod speaker;
mod tagger;
mod transliterated;
mod uncertainty;
mod wordlists;
pub mod words;

pub use language::{ALL_LANGUAGES, Language};
pub use lexicon::{
    is_function_word, is_romanized_function_word, is_script_function_word,
    is_standalone_function_character,
};
pub use metrics::{
    LanguageCounts, MIN_COVERAGE, Measurement, MeasurementStatus, SentenceMeasurement,
    UntaggedCounts,
};
pub use ratio::{
    HIGH_RATIO, LOW_RATIO, MEDIUM_RATIO, RATIO_TOLERANCE, parse_target_ratio, ratio_score,
};
pub use romanized::{
    DECISIVE_RANK_RATIO, OVERWHELMING_RANK_RATIO, has_detector as has_romanized_detector,
};
pub use speaker::without_speaker_label;
pub use tagger::{
    LATIN_CONFIDENCE_THRESHOLD, LanguagePair, MAX_LINGUA_CHARS, TaggedWord, UntaggedReason, WordTag,
};
pub use uncertainty::{RATIO_UNCERTAINTY_TOLERANCE, RatioRange, is_firm as is_firm_word};
pub use wordlists::UNKNOWN_LANGUAGE;

/// Why a measurement could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeSwitchError {
    /// The config named a language this module does not know.
    #[error(
        "unknown language {name:?}: expected one of Arabic, English, Hindi, Chinese (Mandarin, \
         Cantonese), Spanish, French, German, Italian, Malay, Portuguese, Tagalog (Filipino), \
         Indonesian, Japanese, Korean, Russian"
    )]
    UnknownLanguage {
        /// The name as given.
        name: String,
    },
    /// Both languages of the pair are the same, so there is nothing to switch between.
    #[error("first and second language are both {language}: a code-switching pair needs two")]
    SameLanguage {
        /// The language given twice.
        language: Language,
    },
}

/// The script the non-Latin language of a pair was asked to be written in (the scenario's
/// `script` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptHint {
    /// Each language in its own script (Hindi in Devanagari, Arabic in Arabic script).
    Native,
    /// The non-Latin language in Latin letters (Hinglish, Arabizi, pinyin).
    Romanized,
}

impl std::str::FromStr for ScriptHint {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "native" => Ok(Self::Native),
            "romanized" | "romanised" | "latin" => Ok(Self::Romanized),
            other => Err(format!(
                "unknown script {other:?}: expected native or romanized"
            )),
        }
    }
}

impl LanguagePair {
    /// What the embedded share is counted in, as a plural noun phrase for prompts and reports:
    /// `"words"`, or for a pair with Chinese or Japanese the character unit of the tagging
    /// section above, e.g. `"Chinese characters and English words"` (the convention of
    /// Mandarin–English code-switching research, such as the SEAME corpus's mixed error rate).
    ///
    /// ```
    /// use codeswitch::LanguagePair;
    ///
    /// let pair = LanguagePair::parse("Chinese", "English")?;
    /// assert_eq!(pair.ratio_unit(), "Chinese characters and English words");
    /// assert_eq!(LanguagePair::parse("Hindi", "English")?.ratio_unit(), "words");
    /// # Ok::<(), codeswitch::CodeSwitchError>(())
    /// ```
    #[must_use]
    pub fn ratio_unit(self) -> String {
        let unit = |language: Language| match language {
            Language::Chinese => "Chinese characters".to_owned(),
            Language::Japanese => {
                "Japanese characters (each kanji and hiragana; a katakana word counts once)"
                    .to_owned()
            }
            other => format!("{other} words"),
        };
        let counts_characters = |l: Language| matches!(l, Language::Chinese | Language::Japanese);
        let (first, second) = (self.first(), self.second());
        if counts_characters(first) || counts_characters(second) {
            format!("{} and {}", unit(first), unit(second))
        } else {
            "words".to_owned()
        }
    }

    /// Measures `batch` knowing the script it was asked to be written in: romanized text of a
    /// language with no romanized detector is [`MeasurementStatus::Unavailable`] (Latin letters
    /// would otherwise count as the Latin-script language: confidently wrong).
    #[must_use]
    pub fn measure_with(self, batch: &[String], script: Option<ScriptHint>) -> Measurement {
        self.measure_with_tolerance(batch, script, RATIO_UNCERTAINTY_TOLERANCE)
    }

    /// [`measure_with`](Self::measure_with) with another bound on how far the embedded share
    /// of an `ok` measurement may be off because of its uncertain words ([`RatioRange`]); the
    /// default is [`RATIO_UNCERTAINTY_TOLERANCE`]. A tolerance of 1 or more never degrades.
    #[must_use]
    pub fn measure_with_tolerance(
        self,
        batch: &[String],
        script: Option<ScriptHint>,
        tolerance: f64,
    ) -> Measurement {
        if let Some(reason) = self.unavailable_reason(script) {
            tracing::debug!(%reason, "romanized text of a language without a detector");
            return Measurement::unavailable(self.first(), self.second(), reason);
        }
        self.measure_tolerating(batch, tolerance)
    }

    /// Why every measurement of this pair written in `script` is
    /// [`MeasurementStatus::Unavailable`], known before any text exists (romanized text of a
    /// language with no romanized detector); `None` when texts can be measured.
    #[must_use]
    pub fn unavailable_reason(self, script: Option<ScriptHint>) -> Option<String> {
        if script != Some(ScriptHint::Romanized) {
            return None;
        }
        let language = [self.first(), self.second()].into_iter().find(|l| {
            !l.uses_script(unicode_script::Script::Latin) && !has_romanized_detector(*l)
        })?;
        Some(format!(
            "romanized {language} cannot be told from the Latin-script language \
             (a romanized detector exists for Hindi only)"
        ))
    }

    /// Tags every item of `batch` and measures the result (see the module docs).
    #[must_use]
    pub fn measure(self, batch: &[String]) -> Measurement {
        self.measure_tolerating(batch, RATIO_UNCERTAINTY_TOLERANCE)
    }

    fn measure_tolerating(self, batch: &[String], tolerance: f64) -> Measurement {
        let words: Vec<Vec<TaggedWord>> = batch.iter().map(|sentence| self.tag(sentence)).collect();
        let mut measurement = Measurement::from_tagged(self.first(), self.second(), &words);
        for (sentence, text) in measurement.sentences.iter_mut().zip(batch) {
            sentence.romanized = self.reads_romanized(text);
        }
        if measurement.is_available() {
            uncertainty::bound(&mut measurement, &words, tolerance);
        }
        mark_homoglyphs(&mut measurement, &words);
        // Words of a third language are not this pair's, whatever lingua made of them.
        let romanized: Vec<bool> = measurement.sentences.iter().map(|s| s.romanized).collect();
        if measurement.is_available()
            && let Some((language, why)) =
                wordlists::third_language(self.first(), self.second(), &words, &romanized).or_else(
                    || script_languages::third_language(self.first(), self.second(), &words),
                )
        {
            tracing::debug!(language, reason = %why, "a third language");
            measurement.status = MeasurementStatus::LowCoverage;
            measurement.status_reason = Some(why);
            measurement.third_language = Some(language.to_owned());
        }
        tracing::debug!(
            first = %self.first(),
            second = %self.second(),
            sentences = batch.len(),
            words = measurement.words,
            embedded_ratio = measurement.embedded_ratio,
            switch_points = measurement.switch_points,
            "measured code-switching batch"
        );
        measurement
    }
}

/// Makes an available measurement `low_coverage` when at least one word in twenty (and at least
/// one) mixes Latin with Cyrillic or Greek letters ("mаrkеt" with Cyrillic а and е): such
/// homoglyph words are tagged as no language, and a batch built on them is no evidence of
/// code switching. The reason says how many there are.
fn mark_homoglyphs(measurement: &mut Measurement, words: &[Vec<TaggedWord>]) {
    if !measurement.is_available() {
        return;
    }
    let homoglyphs = words
        .iter()
        .flatten()
        .filter(|w| tagger::mixes_look_alike_scripts(&w.text))
        .count();
    if homoglyphs == 0 || homoglyphs * 20 < measurement.words {
        return;
    }
    let why = format!(
        "{homoglyphs} of {} words mix Latin with Cyrillic or Greek letters (look-alike letters, \
         as in a spoofed word), which no word of either language does",
        measurement.words
    );
    measurement.status = MeasurementStatus::LowCoverage;
    measurement.status_reason = Some(match measurement.status_reason.take() {
        Some(earlier) => format!("{why}; {earlier}"),
        None => why,
    });
}

/// Measures a batch: `first_language` is the matrix language per config, `second_language` the
/// embedded one whose share `embedded_ratio` reports.
///
/// # Errors
/// [`CodeSwitchError::UnknownLanguage`] for a name outside the supported set,
/// [`CodeSwitchError::SameLanguage`] when both name the same language.
pub fn measure(
    batch: &[String],
    first_language: &str,
    second_language: &str,
) -> Result<Measurement, CodeSwitchError> {
    Ok(LanguagePair::parse(first_language, second_language)?.measure(batch))
}
