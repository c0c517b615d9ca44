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

use super::romanized::{self, DECISIVE_RANK_RATIO, Evidence, OVERWHELMING_RANK_RATIO};
use super::wordlists::{self, PairEvidence};
use super::words::is_format_character;
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
    /// token, a Latin token longer than [`MAX_LINGUA_CHARS`] that no word list knows, mixed
    /// scripts, or Han in a Chinese–Japanese pair.
    Ambiguous,
    /// Letters in a script (or a language) belonging to neither language of the pair, e.g.
    /// Cyrillic in an Arabic–English batch.
    OtherLanguage,
    /// Not a word: punctuation, emoji and other symbol runs. Counted for visibility only and
    /// never part of [`super::Measurement::words`].
    Symbol,
}

/// Latin words longer than this are not given to lingua: they are tagged ambiguous (the
/// longest dictionary words of the supported languages are about 45 letters).
pub const MAX_LINGUA_CHARS: usize = 64;

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
    /// The tag was inferred rather than read off the word: a romanized word both word lists
    /// know, settled by its neighbours or by frequency. Such a tag counts in the figures but is
    /// not evidence on its own that a language is present (see the gate).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inferred: bool,
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

    /// Splits `text` into tokens (UAX#29 word boundaries, whitespace dropped; a word whose
    /// letters change between Latin and another script is split there) and tags each.
    ///
    /// Han and Hiragana come out of UAX#29 as one token per character (there is no dictionary),
    /// so each such character is one word unit; Katakana runs and Hangul words stay whole.
    ///
    /// Unicode format characters (category Cf: zero-width space and joiners, soft hyphen,
    /// bidirectional marks, the byte-order mark) are dropped first, so "import\u{200b}ante" is
    /// read as the one word "importante", not as two. Unusual space-like characters
    /// ([`is_unusual_separator`]: the hair, thin and other typographic spaces, the braille blank,
    /// the Hangul fillers) between two letters or digits are dropped too, joining the word again
    /// ("sold\u{2800}ado" is "soldado", not the English "sold"); elsewhere they are a space.
    #[must_use]
    pub fn tag(self, text: &str) -> Vec<TaggedWord> {
        let cleaned;
        let text = if text.chars().any(|c| {
            is_format_character(c) || is_unusual_separator(c) || is_word_cutter(c) || c == '/'
        }) {
            cleaned = without_invisible_characters(text);
            cleaned.as_str()
        } else {
            text
        };
        let names_apply = self.first != Language::German && self.second != Language::German;
        let mut out = Vec::new();
        // A sentence starts at the beginning of the text and after terminal punctuation, a
        // colon (dialogue "A: ...") or a line break (one turn per line); a capitalised word
        // there is not evidence of a name.
        let mut at_sentence_start = true;
        // A text with no letter of the partner's own script is romanized: its Latin words go to
        // the word lists. With native-script words present, Latin words are English by script.
        let romanized_text = self.reads_romanized(text);
        // Romanized words both word lists know, settled once their neighbours are known.
        let mut contested: Vec<(usize, Evidence)> = Vec::new();
        // Latin words both languages' frequency lists know, settled the same way.
        let mut look_alikes: Vec<usize> = Vec::new();
        let cut = self.cut_syllable_spans(text);
        let links = no_word_spans(text);
        // Indices into `out` of the words that start a sentence.
        let mut sentence_starts: Vec<usize> = Vec::new();
        for (at, segment) in text.split_word_bound_indices() {
            // A URL or an e-mail address is no word of either language ("example", "news").
            if links
                .iter()
                .any(|(start, end)| (*start..*end).contains(&at))
            {
                if !segment.chars().all(char::is_whitespace) {
                    out.push(TaggedWord {
                        text: segment.to_owned(),
                        tag: WordTag::Untagged(UntaggedReason::Symbol),
                        inferred: false,
                    });
                }
                continue;
            }
            if segment.chars().all(char::is_whitespace) {
                if segment.contains('\n') {
                    at_sentence_start = true;
                }
                continue;
            }
            if !segment.chars().any(char::is_alphanumeric) {
                if segment.chars().any(is_sentence_break) || opens_clause(segment) {
                    at_sentence_start = true;
                }
                out.push(TaggedWord {
                    text: segment.to_owned(),
                    tag: WordTag::Untagged(UntaggedReason::Symbol),
                    inferred: false,
                });
                continue;
            }
            // "presentation은", "الـmanager": a word of one script with a particle or an
            // article of another attached is two words, one of each language.
            for part in latin_script_runs(segment) {
                let verdict = if glued_letter(text, at, segment, part) {
                    Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous))
                } else {
                    self.tag_word(part, at_sentence_start, names_apply, romanized_text)
                };
                let tag = match verdict {
                    Verdict::Tag(tag) => tag,
                    Verdict::Contested(evidence) => {
                        contested.push((out.len(), evidence));
                        WordTag::Untagged(UntaggedReason::Ambiguous)
                    }
                    Verdict::LookAlike(tag) => {
                        look_alikes.push(out.len());
                        tag
                    }
                };
                if at_sentence_start {
                    sentence_starts.push(out.len());
                }
                at_sentence_start = false;
                let in_cut = cut.iter().any(|(start, end)| (*start..*end).contains(&at));
                out.push(TaggedWord {
                    text: part.to_owned(),
                    tag,
                    inferred: in_cut && matches!(tag, WordTag::Lang(_)),
                });
            }
        }
        if let Some(partner) = self.romanized_partner() {
            self.settle_contested(partner, &mut out, &contested);
        }
        settle_look_alikes(&mut out, &look_alikes);
        self.settle_in_context(&mut out, &sentence_starts, romanized_text);
        out
    }

    /// The passes that read each word beside the others once every word has its own tag:
    /// names and titles (in Latin letters and in the other language's script), transliterated runs (not in romanized text), loans, a lone "I".
    fn settle_in_context(
        self,
        out: &mut [TaggedWord],
        sentence_starts: &[usize],
        romanized_text: bool,
    ) {
        self.untag_name_spans(out, sentence_starts);
        self.untag_english_titles(out, sentence_starts);
        super::script_names::untag_script_names(self.first, self.second, out);
        if !romanized_text {
            super::transliterated::untag_transliterated_runs(self.first, self.second, out);
        }
        super::loans::settle(self.first, self.second, out);
        self.settle_lone_i(out);
        let script_partner = [self.first, self.second]
            .iter()
            .any(|l| *l != Language::English && !l.is_latin());
        let english_pair = self.first == Language::English || self.second == Language::English;
        if english_pair && script_partner {
            untag_element_symbols(out, sentence_starts);
        }
        if english_pair {
            untag_made_in_marks(out);
        }
        super::mentions::untag_mentions(out);
    }

    /// A lone "I": in German–English it may be Bavarian "ich" (`unfirm_dialect_look_alikes`);
    /// in the other pairs with English, with no English beside it, the Roman numeral
    /// (`untag_roman_numeral_i`).
    fn settle_lone_i(self, out: &mut [TaggedWord]) {
        if self.is(Language::German, Language::English) {
            unfirm_dialect_look_alikes(out);
        } else if self.first == Language::English || self.second == Language::English {
            untag_roman_numeral_i(out);
        }
    }

    /// The byte spans of `text` where a word is cut into syllables by hyphens: letters joined by
    /// `-` with no space ("Ten-go", "pro-ble-ma", "bus-car"), a piece of at most three letters,
    /// and the pieces together a word of one of the pair's frequency or function-word lists
    /// ("tengo", "problema", "buscar"). Each piece keeps its tag but is not firm (it is marked
    /// [`TaggedWord::inferred`]): "go" and "for" in "Ten-go", "for-mar" are syllables of Spanish
    /// words, no evidence of English. Latin-script pairs with word lists only.
    fn cut_syllable_spans(self, text: &str) -> Vec<(usize, usize)> {
        if !text.contains('-') || !wordlists::has_lists(self.first, self.second) {
            return Vec::new();
        }
        let mut spans = Vec::new();
        let bytes: Vec<(usize, char)> = text.char_indices().collect();
        let mut i = 0;
        while i < bytes.len() {
            let starts_word = bytes[i].1.is_alphabetic()
                && (i == 0 || !(bytes[i - 1].1.is_alphanumeric() || bytes[i - 1].1 == '-'));
            if !starts_word {
                i += 1;
                continue;
            }
            let (mut j, mut pieces) = (i, Vec::new());
            loop {
                let start = j;
                while j < bytes.len() && bytes[j].1.is_alphabetic() {
                    j += 1;
                }
                pieces.push(j - start);
                let hyphen_then_letter =
                    j + 1 < bytes.len() && bytes[j].1 == '-' && bytes[j + 1].1.is_alphabetic();
                if !hyphen_then_letter {
                    break;
                }
                j += 1;
            }
            let end = bytes.get(j).map_or(text.len(), |(at, _)| *at);
            let joined: String = text[bytes[i].0..end]
                .chars()
                .filter(|c| *c != '-')
                .flat_map(char::to_lowercase)
                .collect();
            if pieces.len() > 1 && pieces.iter().any(|&n| n <= 3) && self.knows_word(&joined) {
                spans.push((bytes[i].0, end));
            }
            i = j.max(i + 1);
        }
        spans
    }

    /// Whether one of the pair's frequency lists or function-word lists holds `word`
    /// (lower-cased).
    fn knows_word(self, word: &str) -> bool {
        lexicon::is_function_word(self.first, word)
            || lexicon::is_function_word(self.second, word)
            || wordlists::pair_evidence(self.first, self.second, word) != PairEvidence::Neither
    }

    /// Whether the pair is these two languages, in either order.
    fn is(self, a: Language, b: Language) -> bool {
        (self.first, self.second) == (a, b) || (self.first, self.second) == (b, a)
    }

    /// Multi-word names and titles: a run of capitalised words joined by lower-case joiners
    /// ([`NAME_JOINERS`]: "Pirates of the Caribbean", "Ursula von der Leyen", "Nurul binti
    /// Osman", "Tom and Jerry", "Rio de Janeiro") whose joiners are tagged with a language that
    /// no tagged word beside the run has is a name: every word of it becomes
    /// [`UntaggedReason::Name`], so "of the" in a Spanish sentence is no evidence of English, at
    /// sentence start too. A run whose joiners are of the surrounding language is left alone
    /// ("Hunger und Durst" in German, "Tom and Jerry" in English); so are lower-case switches
    /// ("Vamos al mall and then we eat"), since a run starts and ends with a capitalised word.
    /// A sentence's first word does not start a run when it is a function word ("The", "El").
    /// Capitalised function words count as joiners do ("Let It Be", "Catch Me If You Can":
    /// title case makes them words of the title), and a word cut with an apostrophe goes on
    /// into the joiners after it ("Singin' in the Rain").
    fn untag_name_spans(self, out: &mut [TaggedWord], sentence_starts: &[usize]) {
        let capitalised: Vec<bool> = (0..out.len())
            .map(|i| {
                let word = &out[i].text;
                let all_latin = word
                    .chars()
                    .filter(|c| c.is_alphabetic())
                    .all(|c| c.script() == Script::Latin);
                all_latin
                    && (looks_like_name(word) || looks_like_acronym(word))
                    && !(sentence_starts.contains(&i) && self.is_function_word(word))
            })
            .collect();
        let capitalised = |i: usize| capitalised[i];
        let joiners_at: Vec<bool> = out
            .iter()
            .map(|w| NAME_JOINERS.contains(&w.text.as_str()))
            .collect();
        let joiner = |i: usize| joiners_at[i];
        let mut start = 0;
        while start < out.len() {
            if !capitalised(start) {
                start += 1;
                continue;
            }
            // Extend the run over (up to three joiners, a capitalised word) as long as it goes.
            let mut end = start;
            let mut joiners = Vec::new();
            loop {
                let mut next = end + 1;
                // A word cut with an apostrophe ("Singin' in the Rain", "Guns N' Roses") goes
                // on into the joiners after it.
                if next < out.len() && matches!(out[next].text.as_str(), "'" | "\u{2019}") {
                    next += 1;
                }
                let mut between = Vec::new();
                while next < out.len() && between.len() < 3 && joiner(next) {
                    between.push(next);
                    next += 1;
                }
                if next < out.len() && capitalised(next) {
                    joiners.extend(between);
                    end = next;
                } else {
                    break;
                }
            }
            if end > start {
                let language_of = |w: &TaggedWord| match w.tag {
                    WordTag::Lang(l) => Some(l),
                    WordTag::Untagged(_) => None,
                };
                let left = out[..start].iter().rev().find_map(language_of);
                let right = out[end + 1..].iter().find_map(language_of);
                let beside: Vec<Language> = [left, right].into_iter().flatten().collect();
                let foreign_word =
                    |j: usize| language_of(&out[j]).is_some_and(|l| beside.iter().all(|b| *b != l));
                // A capitalised function word inside the run ("Let It Be", "Catch Me If You
                // Can", "What a Wonderful World") is a word of the title, as a joiner is.
                let mut title_words = (start..=end)
                    .filter(|&i| capitalised(i) && self.is_function_word(&out[i].text));
                let foreign = !beside.is_empty()
                    && (joiners.iter().any(|&j| foreign_word(j)) || title_words.any(foreign_word));
                if foreign {
                    for word in &mut out[start..=end] {
                        word.tag = WordTag::Untagged(UntaggedReason::Name);
                        word.inferred = false;
                    }
                }
            }
            start = end + 1;
        }
    }

    /// English titles in the other language's text: inside a sentence English capitalises only
    /// names, titles and "I", so a run of English words (with the names, the untagged words and
    /// the other language's words that are not firm among them, commas included, up to a firm
    /// word of the other language or the sentence's end) that starts with a capitalised English
    /// word other than "I" after the sentence's first word, or whose first two words are both
    /// capitalised (the first may be "I"), is a title or a name, not a switch: "J'ai relu The
    /// catcher in the rye pendant les vacances", "Mi canción preferida es All you need is love",
    /// "Crazy, Stupid, Love passe ce soir", "la chanson I Can't Get No Satisfaction". Every word
    /// of the run becomes
    /// [`UntaggedReason::Name`]. A capitalised word counts as English when English tags it, or
    /// when it was taken for a name and only the English list holds it ("Gone", "Honey"). In a
    /// German pair, where every noun is capitalised, the run needs two capitalised English words
    /// ("Smells Like Teen Spirit", "Good Night"). Latin-script pairs with English only;
    /// lower-case titles ("vimos the office anoche") stay switches.
    fn untag_english_titles(self, out: &mut [TaggedWord], sentence_starts: &[usize]) {
        let other = match (self.first, self.second) {
            (Language::English, other) | (other, Language::English) if other.is_latin() => other,
            _ => return,
        };
        if !wordlists::has_lists(self.first, self.second) {
            return;
        }
        let german = other == Language::German;
        let english = WordTag::Lang(Language::English);
        let lower: Vec<String> = out.iter().map(|w| normalise(&w.text)).collect();
        let capitalised = |i: usize| {
            looks_like_name(&out[i].text) && lower[i] != "i" && !lower[i].starts_with("i'")
        };
        let english_like = |i: usize| {
            out[i].tag == english
                || (out[i].tag == WordTag::Untagged(UntaggedReason::Name)
                    && wordlists::pair_evidence(self.first, self.second, &lower[i])
                        == if self.first == Language::English {
                            PairEvidence::First
                        } else {
                            PairEvidence::Second
                        })
        };
        let firm_other = |i: usize| {
            out[i].tag == WordTag::Lang(other)
                && super::uncertainty::is_firm(self.first, self.second, &out[i])
        };
        let symbol = |i: usize| out[i].tag == WordTag::Untagged(UntaggedReason::Symbol);
        let breaks = |i: usize| symbol(i) && out[i].text.chars().any(is_sentence_break);
        let mut titles = Vec::new();
        let mut i = 0;
        while i < out.len() {
            // The run starts at an English-like word (after the other language's unfirm words).
            if !english_like(i) {
                i += 1;
                continue;
            }
            let start = i;
            let mut end = i;
            let mut j = i + 1;
            while j < out.len() && !breaks(j) && !sentence_starts.contains(&j) && !firm_other(j) {
                if !symbol(j) {
                    end = j;
                }
                j += 1;
            }
            let words: Vec<usize> = (start..=end).filter(|&k| !symbol(k)).collect();
            let caps = words
                .iter()
                .filter(|&&k| capitalised(k) && english_like(k))
                .count();
            let title_case = (capitalised(start) || lower[start] == "i")
                && words
                    .get(1)
                    .is_some_and(|&k| capitalised(k) && english_like(k));
            let mid_sentence =
                !sentence_starts.contains(&start) && capitalised(start) && (!german || caps >= 2);
            let title = title_case || mid_sentence;
            if title && words.iter().any(|&k| out[k].tag == english) {
                titles.extend(words);
            }
            i = j.max(i + 1);
        }
        for k in titles {
            out[k].tag = WordTag::Untagged(UntaggedReason::Name);
            out[k].inferred = false;
        }
    }

    /// Whether `text` is read with the romanized word lists: the pair is a language with a
    /// romanized detector and English, and the text holds no letter of that language's own
    /// script.
    #[must_use]
    pub fn reads_romanized(self, text: &str) -> bool {
        self.romanized_partner().is_some_and(|partner| {
            !text
                .chars()
                .any(|c| c.is_alphabetic() && partner.uses_script(c.script()))
        })
    }

    /// The pair's language whose romanized words [`romanized`] tells from English, if the pair
    /// is that language and English.
    fn romanized_partner(self) -> Option<Language> {
        match (self.first, self.second) {
            (Language::English, other) | (other, Language::English)
                if romanized::has_detector(other) =>
            {
                Some(other)
            }
            _ => None,
        }
    }

    /// Settles each contested word: by frequency when it is overwhelming
    /// ([`OVERWHELMING_RANK_RATIO`]); else, when every firmly tagged word of the text is one
    /// language, by that language (a contested word in a monolingual text is no evidence of a
    /// switch: "He is in the main hall" stays English although "he" and "main" are frequent
    /// Hindi spellings); else by its nearest firmly tagged neighbours on both sides when they
    /// agree, else by frequency when decisive ([`DECISIVE_RANK_RATIO`]), else by its one
    /// neighbour; otherwise it stays ambiguous. Only words tagged without contest count as
    /// neighbours, so the order in which contested words are settled does not matter. Every
    /// settled word is marked [`TaggedWord::inferred`].
    fn settle_contested(
        self,
        partner: Language,
        out: &mut [TaggedWord],
        contested: &[(usize, Evidence)],
    ) {
        let firm: Vec<Option<Language>> = out
            .iter()
            .enumerate()
            .map(|(i, w)| match w.tag {
                WordTag::Lang(l) if !contested.iter().any(|(c, _)| *c == i) => Some(l),
                _ => None,
            })
            .collect();
        let mut firm_languages = firm.iter().flatten();
        let only_language = firm_languages
            .next()
            .copied()
            .filter(|first| firm_languages.all(|l| l == first));
        for &(i, evidence) in contested {
            let left = firm[..i].iter().rev().flatten().next().copied();
            let right = firm[i + 1..].iter().flatten().next().copied();
            let side = |romanized: bool| {
                if romanized {
                    partner
                } else {
                    Language::English
                }
            };
            let by_frequency = evidence.decisive(DECISIVE_RANK_RATIO).map(side);
            let overwhelming = evidence.decisive(OVERWHELMING_RANK_RATIO).map(side);
            let language = match (left, right) {
                _ if overwhelming.is_some() => overwhelming,
                _ if only_language.is_some() => only_language,
                (Some(l), Some(r)) if l == r => Some(l),
                (Some(one), None) | (None, Some(one)) => by_frequency.or(Some(one)),
                _ => by_frequency,
            };
            if let Some(language) = language.filter(|l| *l == self.first || *l == self.second) {
                out[i].tag = WordTag::Lang(language);
                out[i].inferred = true;
            }
        }
    }

    fn tag_word(
        self,
        word: &str,
        sentence_start: bool,
        names_apply: bool,
        romanized_text: bool,
    ) -> Verdict {
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
        // "mаrkеt" with Cyrillic а and е, "мoлoкo" with Latin o: letters of look-alike scripts
        // mixed in one word are no evidence of either language.
        if mixes_look_alike_scripts(word) {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous));
        }
        let all_latin = word
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(|c| c.script() == Script::Latin);
        // Arabizi writes Arabic sounds with digits ("3ala", "7abibi", "ma3ak"): in a pair with
        // Arabic such a word is not English, and not a number either.
        let arabic_pair = self.first == Language::Arabic || self.second == Language::Arabic;
        if arabic_pair && has_letter && all_latin && looks_arabizi(word) {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous));
        }
        // "3rd", "10am", "4G": a leading digit makes the token a number with a unit or suffix,
        // not a word of either language.
        if !has_letter || word.chars().next().is_some_and(char::is_numeric) {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Number));
        }
        if all_latin && lexicon::is_language_neutral(&normalise(word)) {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous));
        }
        // "isLoggedIn", "iPhone", "user_settings": an identifier or a brand, in any pair.
        if all_latin && looks_like_identifier(word) {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Name));
        }
        if all_latin
            && names_apply
            && !sentence_start
            && looks_like_name(word)
            && !self.is_function_word(word)
        {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Name));
        }
        if all_latin
            && romanized_text
            && let Some(partner) = self.romanized_partner()
        {
            return match Evidence::of(partner, &normalise(word)) {
                Evidence::Romanized => Verdict::Tag(WordTag::Lang(partner)),
                Evidence::English => Verdict::Tag(WordTag::Lang(Language::English)),
                Evidence::Neither => Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous)),
                contested @ Evidence::Both { .. } => Verdict::Contested(contested),
            };
        }
        // An acronym beside a language in another script ("NASA", "IBM") is a name, not
        // evidence of English.
        if all_latin && self.latin_is_english_only() && looks_like_acronym(word) {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Name));
        }
        // English beside a language in another script: Latin letters alone do not make a word
        // English ("xqzv", French, pinyin or Arabizi without digits); the English word list
        // does. A Latin word it does not know is ambiguous, which lowers the coverage.
        if all_latin
            && self.latin_is_english_only()
            && !romanized::is_english_word(&normalise(word))
        {
            return Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous));
        }
        Verdict::Tag(match (first_only, second_only, shared_script, foreign) {
            (true, true, _, _) => WordTag::Untagged(UntaggedReason::Ambiguous),
            (true, false, _, _) => WordTag::Lang(self.first),
            (false, true, _, _) => WordTag::Lang(self.second),
            (false, false, Some(Script::Latin), false) => return self.tag_latin(word),
            (false, false, Some(_), false) => WordTag::Untagged(UntaggedReason::Ambiguous),
            (false, false, _, _) => WordTag::Untagged(UntaggedReason::OtherLanguage),
        })
    }

    /// Whether Latin letters can only be English in this pair: one language is English and the
    /// other is not written in Latin script (Arabic, Hindi, Chinese, Japanese, Korean, Russian).
    fn latin_is_english_only(self) -> bool {
        match (self.first, self.second) {
            (Language::English, other) | (other, Language::English) => {
                !other.uses_script(Script::Latin)
            }
            _ => false,
        }
    }

    /// Whether either language of the pair lists `word` as a function word ("I'm" is not a name).
    fn is_function_word(self, word: &str) -> bool {
        let normalised = normalise(word);
        lexicon::is_function_word(self.first, &normalised)
            || lexicon::is_function_word(self.second, &normalised)
    }

    /// Tags a word both languages could claim because both are Latin-script: a function word
    /// listed for both is ambiguous; a look-alike of the frequency lists
    /// ([`wordlists::PairEvidence::LookAlike`]) gets a provisional tag (function word, else
    /// lingua) that its neighbours may overrule and that is never firm; else a function word
    /// listed for one language, then a word only one frequency list holds, is that language;
    /// else lingua.
    fn tag_latin(self, word: &str) -> Verdict {
        let normalised = normalise(word);
        let in_first = lexicon::is_function_word(self.first, &normalised);
        let in_second = lexicon::is_function_word(self.second, &normalised);
        let function_word = match (in_first, in_second) {
            (true, true) => return Verdict::Tag(WordTag::Untagged(UntaggedReason::Ambiguous)),
            (true, false) => Some(WordTag::Lang(self.first)),
            (false, true) => Some(WordTag::Lang(self.second)),
            (false, false) => None,
        };
        // "I'm", "don't", "let's": English clitics, whatever the other list borrowed.
        if (self.first == Language::English || self.second == Language::English)
            && lexicon::is_english_contraction(&normalised)
        {
            return Verdict::Tag(WordTag::Lang(Language::English));
        }
        let evidence = wordlists::pair_evidence(self.first, self.second, &normalised);
        if evidence == PairEvidence::LookAlike {
            return Verdict::LookAlike(
                function_word.unwrap_or_else(|| self.by_lingua(&normalised)),
            );
        }
        if let Some(tag) = function_word {
            return Verdict::Tag(tag);
        }
        Verdict::Tag(match evidence {
            PairEvidence::First => WordTag::Lang(self.first),
            PairEvidence::Second => WordTag::Lang(self.second),
            PairEvidence::LookAlike | PairEvidence::Neither => self.by_lingua(&normalised),
        })
    }

    /// lingua's tag for a lower-cased Latin word of a Latin–Latin pair.
    fn by_lingua(self, normalised: &str) -> WordTag {
        // One letter carries no n-gram evidence worth trusting; a "word" longer than any word
        // of a language (a run of one letter, glued text) is no evidence either, and lingua's
        // n-gram slicing costs the square of its length (20,000 letters: seconds).
        let letters = normalised.chars().count();
        if !(2..=MAX_LINGUA_CHARS).contains(&letters) {
            return WordTag::Untagged(UntaggedReason::Ambiguous);
        }
        let Some(detector) = self.detector() else {
            return WordTag::Untagged(UntaggedReason::Ambiguous);
        };
        let best = detector
            .compute_language_confidence_values(normalised)
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

/// Settles each look-alike (indices into `out`, provisionally tagged by a function-word list or
/// lingua): a provisional language tag stands (an established loan such as "meeting" in an
/// Italian sentence is most often the switch the writer meant, and the ratio counts it); an
/// unsure one is settled by its nearest firm neighbours on both sides when they agree. Either
/// way a tagged look-alike is marked [`TaggedWord::inferred`], so it is never firm evidence:
/// the gate does not take "also" in a German text as a switch.
fn settle_look_alikes(out: &mut [TaggedWord], look_alikes: &[usize]) {
    if look_alikes.is_empty() {
        return;
    }
    let firm: Vec<Option<Language>> = out
        .iter()
        .enumerate()
        .map(|(i, w)| match w.tag {
            WordTag::Lang(l) if !w.inferred && !look_alikes.contains(&i) => Some(l),
            _ => None,
        })
        .collect();
    for &i in look_alikes {
        if !matches!(out[i].tag, WordTag::Lang(_)) {
            let left = firm[..i].iter().rev().flatten().next().copied();
            let right = firm[i + 1..].iter().flatten().next().copied();
            if let (Some(l), Some(r)) = (left, right)
                && l == r
            {
                out[i].tag = WordTag::Lang(l);
            }
        }
        out[i].inferred = matches!(out[i].tag, WordTag::Lang(_));
    }
}

/// Splits a UAX#29 word where its letters change between Latin and another script
/// ("presentation은" → "presentation", "은"; "الـmanager" → "الـ", "manager"). Letters of no
/// script (Common, Inherited: the tatweel, marks) and digits stay with the run before them, so
/// "الـ" keeps its tatweel. A word of one script is returned whole, without allocating.
fn latin_script_runs(segment: &str) -> impl Iterator<Item = &str> {
    // A homoglyph word ("mаrkеt") stays whole: it is one word, of neither language.
    let mut rest = segment;
    let mut whole = mixes_look_alike_scripts(segment);
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if whole {
            whole = false;
            return Some(std::mem::take(&mut rest));
        }
        let mut current: Option<bool> = None;
        let mut cut = rest.len();
        for (at, c) in rest.char_indices() {
            if !c.is_alphabetic() || matches!(c.script(), Script::Common | Script::Inherited) {
                continue;
            }
            let latin = c.script() == Script::Latin;
            match current {
                None => current = Some(latin),
                Some(previous) if previous != latin => {
                    cut = at;
                    break;
                }
                Some(_) => {}
            }
        }
        let (part, tail) = rest.split_at(cut);
        rest = tail;
        Some(part)
    })
}

/// Whether `word` mixes Latin letters with Cyrillic or Greek ones, scripts whose letters look
/// alike ("mаrkеt" with Cyrillic а and е, "мoлoкo" with Latin o): no real word of either
/// language is written so, and a homoglyph word must not count as a switch.
pub(crate) fn mixes_look_alike_scripts(word: &str) -> bool {
    let (mut latin, mut other) = (false, false);
    for c in word.chars().filter(|c| c.is_alphabetic()) {
        match c.script() {
            Script::Latin => latin = true,
            Script::Cyrillic | Script::Greek => other = true,
            _ => {}
        }
    }
    latin && other
}

/// The nearest word on either side of `out[i]` in its sentence: `None` on a side where a
/// sentence break, or the text's edge, comes first. Punctuation and symbols are skipped.
fn sentence_neighbours(out: &[TaggedWord], i: usize) -> [Option<&TaggedWord>; 2] {
    let is_break = |w: &&TaggedWord| {
        w.tag == WordTag::Untagged(UntaggedReason::Symbol) && w.text.chars().any(is_sentence_break)
    };
    let left = out[..i].iter().rev().find(|w| is_word(w) || is_break(w));
    let right = out[i + 1..].iter().find(|w| is_word(w) || is_break(w));
    [left.filter(|w| is_word(w)), right.filter(|w| is_word(w))]
}

/// A word, not punctuation or a symbol run.
fn is_word(w: &TaggedWord) -> bool {
    w.tag != WordTag::Untagged(UntaggedReason::Symbol)
}

/// An upper-case "I" tagged English with no English word beside it in its sentence (the
/// nearest word on either side, not across a sentence break) is the Roman numeral one, not
/// the pronoun: "Isabel I y Carlos I", "diabetes tipo I", "fase I", "Петра I", "I типа". The
/// pronoun always stands beside English ("pero I think", "and I") or opens a sentence before a
/// word either language may have ("I mean, …"); the numeral is tagged a number, no word of
/// either language.
fn untag_roman_numeral_i(out: &mut [TaggedWord]) {
    let english = WordTag::Lang(Language::English);
    let numerals: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].text == "I" && out[i].tag == english)
        .filter(|&i| {
            let [left, right] = sentence_neighbours(out, i);
            // "I mean, …" opening a sentence before a word of either language is the pronoun
            // (review 26s): a numeral follows what it numbers.
            let opens = left.is_none()
                && right.is_some_and(|w| {
                    w.tag == WordTag::Untagged(UntaggedReason::Ambiguous)
                        && w.text.starts_with(|c: char| c.is_ascii_lowercase())
                });
            !opens
                && ![left, right]
                    .into_iter()
                    .flatten()
                    .any(|w| w.tag == english)
        })
        .collect();
    for i in numerals {
        out[i].tag = WordTag::Untagged(UntaggedReason::Number);
    }
}

/// Chemical element symbols spelled like English words ("He", "In", "As", "Be", "No", "At",
/// "Am"), written as a symbol is: a capital and a small letter.
const ELEMENT_SYMBOL_WORDS: &[&str] = &["He", "In", "As", "Be", "No", "At", "Am"];

/// Beside another script (review 26s: "عنصر الهيليوم رمزه He", "соединения In и As",
/// "BeとHeの原子番号"), a word of [`ELEMENT_SYMBOL_WORDS`] with no English word beside it is an
/// element's symbol, no English: English writes these words in small letters inside a sentence.
/// So it is untagged (`symbol`) where it stands inside a sentence, and at a sentence's start too
/// in Chinese and Japanese text, which has no capitals of its own to start with (a Russian or
/// Arabic sentence opening with "No," keeps its switch).
fn untag_element_symbols(out: &mut [TaggedWord], sentence_starts: &[usize]) {
    let english = WordTag::Lang(Language::English);
    let cjk = out.iter().any(|w| {
        w.text.chars().any(|c| {
            matches!(
                c.script(),
                Script::Han | Script::Hiragana | Script::Katakana
            )
        })
    });
    let symbols: Vec<usize> = (0..out.len())
        .filter(|&i| ELEMENT_SYMBOL_WORDS.contains(&out[i].text.as_str()) && out[i].tag == english)
        .filter(|&i| cjk || !sentence_starts.contains(&i))
        .filter(|&i| {
            !sentence_neighbours(out, i)
                .into_iter()
                .flatten()
                .any(|w| w.tag == english && !ELEMENT_SYMBOL_WORDS.contains(&w.text.as_str()))
        })
        .collect();
    for i in symbols {
        out[i].tag = WordTag::Untagged(UntaggedReason::Symbol);
    }
}

/// "made in France", "le made in Italy", "Werkzeug made in Germany": the origin mark names a
/// label, and French, Italian, German or Spanish writers use it as a noun phrase of their own
/// language. "made" and "in" before a capitalised word, with no English word beside the phrase in
/// its sentence (the nearest word before "made" and after the place), are read as that name
/// (`name`), not as a switch (review 26s). "It's made in China, you know" keeps its English.
fn untag_made_in_marks(out: &mut [TaggedWord]) {
    let english = WordTag::Lang(Language::English);
    let marks: Vec<usize> = (0..out.len().saturating_sub(2))
        .filter(|&i| {
            let [made, inn, place] = [&out[i], &out[i + 1], &out[i + 2]];
            [made, inn, place].into_iter().all(is_word)
                && made.text.eq_ignore_ascii_case("made")
                && inn.text.eq_ignore_ascii_case("in")
                && place.text.chars().next().is_some_and(char::is_uppercase)
                && place.text.chars().all(char::is_alphabetic)
        })
        .filter(|&i| {
            let [before, _] = sentence_neighbours(out, i);
            let [_, after] = sentence_neighbours(out, i + 2);
            ![before, after]
                .into_iter()
                .flatten()
                .any(|n| n.tag == english)
        })
        .collect();
    for i in marks {
        out[i].tag = WordTag::Untagged(UntaggedReason::Name);
        out[i + 1].tag = WordTag::Untagged(UntaggedReason::Name);
    }
}

/// English function words that are also common spellings of Bavarian and Austrian German:
/// "I" (ich), "is" (ist), "a" (ein, auch), "no" (noch), "mia" (wir, mir), "ned" (nicht).
/// "Mia ham no a bissl Zeit, is ned so schlimm" has no English word.
const GERMAN_DIALECT_LOOK_ALIKES: &[&str] = &["i", "is", "a", "no", "mia", "ned"];

/// In a German–English text, a word of [`GERMAN_DIALECT_LOOK_ALIKES`] tagged English is firm
/// evidence of English only beside a firm English word that is not one of them (its nearest
/// tagged word on either side: "I think", "das is so nice"); otherwise it keeps its tag for the
/// ratio but is marked [`TaggedWord::inferred`], like a look-alike, so a Bavarian batch is not
/// taken for German–English switching.
fn unfirm_dialect_look_alikes(out: &mut [TaggedWord]) {
    let english = WordTag::Lang(Language::English);
    let dialect =
        |w: &TaggedWord| GERMAN_DIALECT_LOOK_ALIKES.contains(&normalise(&w.text).as_str());
    let firm_english: Vec<bool> = out
        .iter()
        .map(|w| w.tag == english && !w.inferred && !dialect(w))
        .collect();
    let tagged = |w: &TaggedWord| matches!(w.tag, WordTag::Lang(_));
    for i in 0..out.len() {
        if out[i].tag != english || out[i].inferred || !dialect(&out[i]) {
            continue;
        }
        let left = out[..i].iter().rposition(tagged);
        let right = out[i + 1..].iter().position(tagged).map(|j| i + 1 + j);
        if ![left, right].into_iter().flatten().any(|j| firm_english[j]) {
            out[i].inferred = true;
        }
    }
}

/// Lower-case words that join the capitalised words of a multi-word name or title: English
/// articles, conjunctions and prepositions ("Pirates of the Caribbean", "Fly Me to the Moon",
/// "Gone with the Wind"), and the particles of Spanish, Portuguese, French, Italian, German,
/// Dutch, Malay and Arabic names ("Rio de Janeiro", "Puerta del Sol", "Duque de Alba y
/// Berwick", "Place de la Concorde", "Piero della Francesca", "Ursula von der Leyen", "Halle an
/// der Saale", "Ludwig van Beethoven", "Nurul binti Osman"). See
/// [`LanguagePair::untag_name_spans`].
const NAME_JOINERS: &[&str] = &[
    "of", "the", "and", "a", "an", "to", "by", "in", "on", "at", "with", "from", "for", "de",
    "del", "la", "las", "los", "el", "y", "e", "da", "das", "do", "dos", "du", "des", "le",
    "della", "delle", "degli", "dei", "di", "von", "van", "der", "den", "zu", "zum", "zur", "am",
    "im", "und", "bin", "binti", "bt", "ibn", "al",
];

/// Whether `c` is a space-like character no ordinary text puts inside a word: the typographic
/// spaces of category Zs other than the space, the no-break spaces (U+00A0, U+202F, used between
/// words and before French punctuation) and the ideographic space (U+3000, CJK text), and the
/// blanks of other categories that render as nothing (U+2800 braille pattern blank, the Hangul
/// fillers U+115F, U+1160, U+3164, U+FFA0). Inside a word one splits it into pieces that may
/// look like words of another language ("in\u{200A}for\u{200A}me" → "in", "for", "me").
fn is_unusual_separator(c: char) -> bool {
    matches!(
        c as u32,
        0x1680 | 0x2000..=0x200A | 0x205F | 0x2800 | 0x115F | 0x1160 | 0x3164 | 0xFFA0
    )
}

/// A symbol after which chat starts a new clause as after a full stop: an emoji ("Ya llegué 😅
/// Where are you guys?") or a dash on its own ("me escribió – Can you send it?"). A capitalised
/// word after it is no title or name for being capitalised.
fn opens_clause(segment: &str) -> bool {
    matches!(segment, "–" | "—")
        || segment
            .chars()
            .any(|c| matches!(c as u32, 0x2600..=0x27BF | 0x1F000..=0x1FAFF))
}

/// Visible characters that cut a word into pieces when put inside it, and are no word break
/// there: the katakana middle dot (U+30FB), the non-breaking hyphen (U+2011, read as `-`) and
/// emoji ("Ten🔥go"). Between two letters the middle dot and emoji are dropped, joining the
/// word again ("Ten・go" is "Tengo", not "Ten" and the English "go"); elsewhere they stay.
fn is_word_cutter(c: char) -> bool {
    matches!(c as u32, 0x30FB | 0x2011 | 0x2600..=0x27BF | 0x1F000..=0x1FAFF)
}

/// Whether the `/` at `i` of `chars` cuts a word: a letter on either side, and the shorter of
/// the two letter runs it separates is at most three letters ("Ten/go", "bus/car", "for/mar"
/// are syllables of one word); "comida/food" and "amigos/friends" stay two words.
fn slash_cuts_word(chars: &[char], i: usize) -> bool {
    let before = chars[..i]
        .iter()
        .rev()
        .take_while(|c| c.is_alphabetic())
        .count();
    let after = chars[i + 1..]
        .iter()
        .take_while(|c| c.is_alphabetic())
        .count();
    before > 0 && after > 0 && before.min(after) <= 3
}

/// `text` without format characters, and with each unusual separator dropped between two
/// letters or digits (the word is joined again) and read as a space elsewhere; word cutters
/// ([`is_word_cutter`], a syllable-cutting `/`: [`slash_cuts_word`]) between two letters are
/// dropped too.
fn without_invisible_characters(text: &str) -> String {
    let filtered: String = text
        .chars()
        .filter(|c| !is_format_character(*c))
        .map(|c| if c == '\u{2011}' { '-' } else { c })
        .collect();
    // A file path's slashes part folders, not syllables ("C:/Users/Rahul/My Pictures").
    let paths = path_spans(&filtered);
    let in_path = |at: usize| {
        paths
            .iter()
            .any(|(start, end)| (*start..*end).contains(&at))
    };
    let offsets: Vec<usize> = filtered.char_indices().map(|(at, _)| at).collect();
    let chars: Vec<char> = filtered.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '/' && !in_path(offsets[i]) && slash_cuts_word(&chars, i) {
            continue;
        }
        if is_word_cutter(c) {
            let before = chars[..i].iter().rev().find(|c| !is_word_cutter(**c));
            let after = chars[i + 1..].iter().find(|c| !is_word_cutter(**c));
            if !(before.is_some_and(|c| c.is_alphabetic())
                && after.is_some_and(|c| c.is_alphabetic()))
            {
                out.push(c);
            }
            continue;
        }
        if !is_unusual_separator(c) {
            out.push(c);
            continue;
        }
        let before = chars[..i].iter().rev().find(|c| !is_unusual_separator(**c));
        let after = chars[i + 1..].iter().find(|c| !is_unusual_separator(**c));
        let inside_word = before.is_some_and(|c| c.is_alphanumeric())
            && after.is_some_and(|c| c.is_alphanumeric());
        if !inside_word {
            out.push(' ');
        }
    }
    out
}

/// What [`LanguagePair::tag`] makes of one word before context is considered.
enum Verdict {
    /// Settled.
    Tag(WordTag),
    /// A romanized word both word lists know; its neighbours decide.
    Contested(Evidence),
    /// A common word of both Latin-script languages, provisionally tagged: its neighbours may
    /// overrule the tag, and it is never firm ([`TaggedWord::inferred`]).
    LookAlike(WordTag),
}

/// A Latin word with Arabizi digits (2 ء, 3 ع, 5 خ, 6 ط, 7 ح, 8 ق, 9 ص) next to letters,
/// other than a number with an English suffix ("2nd", "5th", "7pm", "3d", "9am", "6k").
fn looks_arabizi(word: &str) -> bool {
    let lower = word.to_lowercase();
    if !lower
        .chars()
        .any(|c| matches!(c, '2' | '3' | '5' | '6' | '7' | '8' | '9'))
    {
        return false;
    }
    let suffix = lower.trim_start_matches(|c: char| c.is_ascii_digit());
    let number_with_suffix = suffix.len() < lower.len()
        && !suffix.chars().any(|c| c.is_ascii_digit())
        && matches!(
            suffix,
            "st" | "nd"
                | "rd"
                | "th"
                | "am"
                | "pm"
                | "s"
                | "k"
                | "m"
                | "d"
                | "g"
                | "h"
                | "x"
                | "gb"
                | "mb"
                | "kg"
                | "km"
                | "cm"
                | "mm"
                | "min"
                | "hr"
                | "hrs"
        );
    !number_with_suffix
}

/// Two or more letters, all upper case ("NASA", "IBM", "CEO").
fn looks_like_acronym(word: &str) -> bool {
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase())
}

/// Byte ranges of the whitespace-delimited tokens of `text` that are links, handles or code,
/// no words of a language: starting with `http://`, `https://` or `www.`; shaped like an
/// e-mail address (`a@b.c`); a hashtag or a handle (`#nofilter`, `@thebestcoffeeshop`); a path
/// (`/api/v1/users`); or a domain or a file name, a dot between two letters with no space
/// (`tienda.example.com/best-deals`, `config.yaml`, `user_settings_backup.json`).
fn link_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    let check = |from: usize, to: usize, spans: &mut Vec<(usize, usize)>| {
        let token = text[from..to].to_lowercase();
        let email = token
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && host.contains('.'));
        if token.starts_with("http://")
            || token.starts_with("https://")
            || token.starts_with("www.")
            || email
            || is_handle_path_or_file(&token)
        {
            spans.push((from, to));
        }
    };
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(from)) => {
                check(from, i, &mut spans);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(from) = start {
        check(from, text.len(), &mut spans);
    }
    spans.extend(path_spans(text));
    spans
}

/// Byte ranges of `text` that are file paths written with a drive letter (`C:/Users/…`,
/// `D:\Fotos\…`), and with the pieces that go on after a space while each holds a `/` or a `\`
/// (folder names with spaces: `C:/Users/Rahul/My Pictures/Goa Trip` covers all but "Trip",
/// which a name or a word of the text can be).
fn path_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut in_path = false;
    let mut at = 0;
    for token in text.split_inclusive(char::is_whitespace) {
        let word = token.trim_end();
        let trimmed = word.trim_start_matches(['(', '[', '"', '\'', '\u{201c}', '`']);
        let mut chars = trimmed.chars();
        let drive = matches!(
            (chars.next(), chars.next(), chars.next()),
            (Some(letter), Some(':'), Some('/' | '\\')) if letter.is_ascii_alphabetic()
        );
        in_path = drive || (in_path && word.contains(['/', '\\']));
        if in_path && !word.is_empty() {
            match spans.last_mut() {
                Some((_, end)) if !drive && *end + 1 >= at => *end = at + word.len(),
                _ => spans.push((at, at + word.len())),
            }
        }
        at += token.len();
    }
    spans
}

/// Whether a whitespace-delimited token (lower-cased) is a hashtag or handle (`#`, `@` and a
/// letter), a path (`/` and a letter), or holds a dot between two letters (a domain or a file
/// name: "example.com", "config.yaml"; its trailing punctuation aside).
fn is_handle_path_or_file(token: &str) -> bool {
    let token = token.trim_start_matches(['(', '[', '"', '\'', '¿', '¡', '\u{201c}', '\u{2018}']);
    let mut chars = token.chars();
    let (first, second) = (chars.next(), chars.next());
    if matches!(first, Some('#' | '@' | '/')) && second.is_some_and(char::is_alphabetic) {
        return true;
    }
    let letters: Vec<char> = token.chars().collect();
    letters
        .windows(3)
        .any(|w| w[0].is_alphabetic() && w[1] == '.' && w[2].is_alphabetic())
}

/// A word written with an upper-case letter right after a lower-case one ("isLoggedIn",
/// "iPhone", "YouTube") or with an underscore between letters ("user_settings"): an
/// identifier, a brand or a name, no word of a language.
fn looks_like_identifier(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase())
        || chars
            .windows(3)
            .any(|w| w[0].is_alphabetic() && w[1] == '_' && w[2].is_alphabetic())
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

/// The byte spans of `text` that hold no word of either language: links, e-mail boilerplate
/// ("Subject:", "Sent from my iPhone"), shell commands, the text around the writer's words and a
/// page's or an app's text.
fn no_word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = link_spans(text);
    spans.extend(super::boilerplate::spans(text));
    spans.extend(super::commands::spans(text));
    spans.extend(super::scaffolding::spans(text));
    spans.extend(super::page_text::spans(text));
    spans
}

/// A single Latin letter written against a character of a script without spaces (Han, kana,
/// Hangul) or against a kaomoji's brackets: a letter of a word of that language ("i人", "B超",
/// "T恤", "K歌", "U盘" in Chinese) or of a face ("(^_^)v", "m(_ _)m"), not an English word
/// (review 26r). `part` is a piece of the word segment `segment`, which starts at byte `at`.
fn glued_letter(text: &str, at: usize, segment: &str, part: &str) -> bool {
    let mut letters = part.chars();
    let (Some(letter), None) = (letters.next(), letters.next()) else {
        return false;
    };
    if !letter.is_alphabetic() || letter.script() != Script::Latin {
        return false;
    }
    let glues = |c: char| {
        matches!(
            c.script(),
            Script::Han | Script::Hiragana | Script::Katakana | Script::Hangul
        ) || matches!(c, '(' | ')' | '^' | '_')
    };
    let before = text[..at].chars().next_back();
    let after = text[at + segment.len()..].chars().next();
    segment != part || before.is_some_and(glues) || after.is_some_and(glues)
}

fn is_sentence_break(c: char) -> bool {
    super::words::ends_sentence(c) || matches!(c, ':' | '：' | '\n')
}
