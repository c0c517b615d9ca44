//! The deterministic accept gate: a batch is accepted only if its measurement shows code
//! switching, whatever the judges scored.
//!
//! - Intra-sentential `cs_type`s (the value contains "intra"): every text needs at least
//!   `min_switch_points` switch points, and firm words of its less used language that are at
//!   least [`MIN_LANGUAGE_SHARE`] (5%) of its words (one "honestly" at the end of a
//!   50-word Spanish text is a token presence).
//! - Every other type (inter-sentential, extra-sentential/tag, or none given): the batch as a
//!   whole needs words of both languages and at least `min_switch_points` switch points, and
//!   its less used language must be more than a token presence: at least [`MIN_FIRM_BATCH`]
//!   (2) firm words (a batch of one text: 1) **and** firm words that are at least
//!   [`MIN_LANGUAGE_SHARE`] (5%) of the batch's words. One English "really" at the end
//!   of three long Spanish sentences, or "really" and "anyway" in three texts of 50 words (2 of
//!   150, 1.3%), is a monolingual batch and is refused, however many look-alikes are tagged
//!   English (they are no evidence); a whole English sentence among Spanish ones, or one
//!   English word in a short one-text batch (1 of 7), passes.
//!
//! For multi-turn conversations a change of language from one turn to the next is a switch
//! point too (inter-sentential switching between speakers); asked for intra-sentential
//! switching, a conversation is judged on its turns that switch inside when they are at least
//! half of them (a turn may stay in one language).
//!
//! English text whose other-language words are only islands of borrowed nouns (dish names,
//! titles, fixed phrases: "We had arroz con pollo", "a selfie at the mandir") is refused unless
//! some text joins the two languages as a speaker who switches does (`joins_languages`);
//! English is the matrix by its firm words or its function words, however many words the
//! islands hold; on a `low_coverage` measurement only when no untagged word could make such a
//! join. Every language has function words to join with: listed by spelling for the
//! Latin-script languages and romanized Hindi, by script for the others
//! ([`codeswitch::is_script_function_word`]: tajweed rule names or herb names in English text
//! are islands too).
//!
//! Asked for switching between sentences or for tags (a `cs_type` containing "inter", "extra"
//! or "tag"), a batch that would pass is undecided when its less used language may be
//! insertions only: no text holds a function word of it, a clause of it, or punctuation parting
//! it from the other language (`insertions_only`: a trade's terms inside German or Korean
//! sentences). Intra-sentential switching may be insertions, and is not doubted so.
//!
//! A language whose firm words are all quoted, in parentheses or in backticks (a sign, a slogan,
//! a gloss, code) is mentioned, not switched to (`quoted_only`), and texts that alternate
//! languages every word or two are a word-by-word rendering (`word_by_word`): both are refused
//! whatever the `cs_type`.
//!
//! A pass needs *firm* evidence of both languages (per text for intra-sentential types): words
//! tagged by script, by one word list alone or by a function word of one language — not words
//! whose language is uncertain (the measurement's `uncertain` per sentence): look-alikes, whose
//! tag is inferred from context (a word both Latin languages' frequency lists hold at
//! comparable frequency: "red" in Spanish and English, "also" and "will" in German and English,
//! "chat" and "but" in French and English), romanized words both the Hindi and the English list
//! know ("log", "chai", "main"), and words lingua alone placed. Romanized text needs
//! [`MIN_FIRM_ROMANIZED`] firm words of each language. A batch with **no** firm word of one
//! language (whatever its coverage), or on an `ok` or `low_coverage` measurement an
//! intra-sentential text with none, is **refused as undecided** whatever `gate.undecided` says, and the reason says the
//! gate *could not tell*: a plain German batch with "Brot" and "also"
//! is not code switching and the judges' 10 must not accept it, while a real switch that rests
//! on look-alikes alone looks the same, so "monolingual" would be a guess. Romanized text with
//! one firm word of a language but not two is `undecided`, unless that language is a token
//! presence in the batch (refused whatever those words are).
//!
//! A measurement whose words look like a **third language** (`third_language` set: Portuguese
//! in a Spanish–English batch, Tagalog in Malay–English, or `"unknown"` for words in no list
//! the tool has, such as Galician or Swahili; its status is `low_coverage`) fails too, with the
//! measurement's reason ("14 of 20 words look Portuguese …"): text in another language is not
//! code switching between the pair. For `"unknown"` the reason says the gate *could not tell*
//! whether the batch is in the pair's languages (rare words of the pair's own, such as dish
//! names, look the same), and the batch is refused whatever `gate.undecided` says.
//!
//! Otherwise the gate decides only on evidence it can trust. An `unavailable` measurement (or
//! none) makes it `undecided`: the judges decide alone, and the record says so. So does a
//! `low_coverage` measurement with firm words of both languages, either way: the untagged words
//! may hold the switches (so it cannot fail), and the few tagged ones may be loanwords or
//! look-alikes ("el" is in the English word list), so it cannot pass either.
//!
//! What an undecided gate means is the config's `gate.undecided`: `auto` (the default) refuses
//! a batch the gate measured but cannot decide (low coverage, too few firm words, a wide ratio
//! range: the batch is refined like any refused one) and lets the judges decide alone where
//! there was no measurement to weigh (a pair or a script the measurement cannot separate);
//! `judges` lets the judges decide alone in both cases; `reject` refuses in both, saying the
//! gate was undecided and why ([`decide`]). [`GateCoverage`] names, before a run, the language pairs of a selection whose
//! batches can never be decided (no measurement for the pair), for `plan` and `run` to warn.

use codeswitch::{
    Language, Measurement, MeasurementStatus, SentenceMeasurement, TaggedWord, UNKNOWN_LANGUAGE,
    UntaggedReason, WordTag, has_romanized_detector,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

use runlog::{GateSettings, GateUndecided, GateVerdict};
use scenarios::{Scenario, ScenarioSpace, Selection};
use serde::Serialize;

use crate::measure::unmeasurable_reason;

/// Decides the gate for one attempt from its measurement, the scenario's `cs_type` and the
/// settings, `undecided` included: with `gate.undecided: reject` a gate that cannot decide
/// refuses the batch, saying it was undecided and why.
#[must_use]
pub fn decide(
    settings: GateSettings,
    measurement: Option<&Measurement>,
    cs_type: Option<&str>,
    multi_turn: bool,
) -> GateVerdict {
    if !settings.enabled {
        return GateVerdict {
            passed: None,
            reason: "gate off".into(),
        };
    }
    let mut evidence = evidence_verdict(settings, measurement, cs_type, multi_turn);
    // Asked for switching between sentences or for tags, a pass whose switches may be
    // insertions only is undecided.
    if matches!(
        evidence,
        Ok(GateVerdict {
            passed: Some(true),
            ..
        })
    ) && between_clauses(cs_type)
        && let Some(why) = measurement.and_then(insertions_only)
    {
        evidence = Err(why);
    }
    match evidence {
        Ok(verdict) => verdict,
        Err(why) => match settings.undecided {
            GateUndecided::Judges => GateVerdict {
                passed: None,
                reason: format!("undecided: {why}; the judges decide"),
            },
            GateUndecided::Auto if !measured(measurement) => GateVerdict {
                passed: None,
                reason: format!(
                    "undecided: {why}; the judges decide (gate.undecided: auto, and the gate \
                     cannot measure these texts)"
                ),
            },
            GateUndecided::Auto => GateVerdict {
                passed: Some(false),
                reason: format!(
                    "undecided ({why}), and gate.undecided is auto: a batch the gate measured \
                     but cannot decide is refused"
                ),
            },
            GateUndecided::Reject => GateVerdict {
                passed: Some(false),
                reason: format!("undecided ({why}), and gate.undecided is reject"),
            },
        },
    }
}

/// Whether `cs_type` asks for switching between sentences or clauses (inter-sentential) or
/// for tags (extra-sentential): switching that a clause or a tag of each language shows, not a
/// word inserted into the other language's sentence. Intra-sentential switching (and a batch
/// with no `cs_type`) may be insertions: "Voy al meeting mañana" is what a `Low` ratio asks for.
fn between_clauses(cs_type: Option<&str>) -> bool {
    cs_type.is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        t.contains("inter") || t.contains("extra") || t.contains("tag")
    })
}

/// Why a batch that shows switching could still be insertions only: no text holds a function
/// word of its less used language (by firm words; [`joining_word`]: listed by spelling for the
/// Latin-script languages and romanized Hindi, by script for the others), nor a clause of it
/// ([`CLAUSE_WORDS`] of its words in a row, a hyphened compound counting once; never for
/// languages counted by character), nor punctuation that parts a clause or a tag of it from the
/// other language's words ([`punctuation_joins`]: "Je pars lundi, finally!"). Terms of a trade,
/// a product line or a label set ("Due Diligence", "lane keep assist", "city pop",
/// "overdrive") read that way, and so does a speaker who inserts nouns: the gate cannot tell
/// insertion from borrowing, so it is undecided (under `auto` the batch is refined, the reason
/// naming what is missing). `None` when some text joins the languages, or the measurement kept
/// no words (made from tags alone).
fn insertions_only(m: &Measurement) -> Option<String> {
    let pair = (m.first_language, m.second_language);
    let [first, second] = batch_firm(m);
    let (less, more) = if second <= first {
        (pair.1, pair.0)
    } else {
        (pair.0, pair.1)
    };
    if !words_kept(m) {
        return None;
    }
    // A function word hyphened to another word is part of a compound ("Earn-out", "Check-in",
    // "Know-how"), not grammar of its language.
    let hyphen = |t: Option<&TaggedWord>| {
        t.is_some_and(|t| matches!(t.text.as_str(), "-" | "\u{2010}" | "\u{2011}"))
    };
    // A clause: CLAUSE_WORDS words of `less` in a row, a hyphened compound counting once
    // ("lo-fi hip hop" is three words).
    let clause = |tokens: &[TaggedWord]| {
        let mut run = 0;
        !counts_characters(less)
            && (0..tokens.len())
                .filter(|&i| matches!(tokens[i].tag, WordTag::Lang(_)))
                .any(|i| {
                    run = match tokens[i].tag {
                        WordTag::Lang(l) if l != less => 0,
                        _ if hyphen(i.checked_sub(1).and_then(|j| tokens.get(j))) => run,
                        _ => run + 1,
                    };
                    run >= CLAUSE_WORDS
                })
    };
    let joined = m.sentences.iter().any(|s| {
        let tokens = &s.tokens;
        let grammar = grammar_words(tokens, less, pair);
        (0..tokens.len()).any(|i| {
            grammar[i]
                && !hyphen(i.checked_sub(1).and_then(|j| tokens.get(j)))
                && !hyphen(tokens.get(i + 1))
        }) || clause(&s.tokens)
            || punctuation_joins(&s.tokens, less, more, pair)
    });
    (!joined).then(|| {
        format!(
            "the {less} words may be insertions only: no {less} function word in any text and no \
             clause of {less} (terms of a trade, product or label names inserted into {more} \
             text read the same), so the gate cannot tell switching from borrowing"
        )
    })
}

/// Whether the measurement kept its words: one made from tags alone
/// ([`Measurement::from_tags`], records written before tokens were kept) has none to read
/// function words in, so the rules that read them do not apply.
fn words_kept(m: &Measurement) -> bool {
    m.sentences.iter().any(|s| !s.tokens.is_empty())
}

/// Whether the gate had a measurement to weigh: one that is not `unavailable` (a pair, or a
/// script, the measurement cannot separate is never measured; `plan` and `run` name the pairs).
fn measured(measurement: Option<&Measurement>) -> bool {
    measurement.is_some_and(|m| m.status != MeasurementStatus::Unavailable)
}

/// What the evidence says: a verdict, or (`Err`) why it cannot decide; [`decide`] words an
/// undecided gate by the `gate.undecided` policy.
type Evidence = Result<GateVerdict, String>;

/// The gate's verdict from the evidence alone (the gate being on).
fn evidence_verdict(
    settings: GateSettings,
    measurement: Option<&Measurement>,
    cs_type: Option<&str>,
    multi_turn: bool,
) -> Evidence {
    let Some(m) = measurement else {
        return Err("no measurement for this language pair".into());
    };
    let why = |fallback: &str| {
        m.status_reason
            .clone()
            .unwrap_or_else(|| fallback.to_owned())
    };
    // Texts were measured and not one word is, or could be, either language (numbers, emoji,
    // links, names only): no language evidence at all is never code switching.
    if m.status == MeasurementStatus::Unavailable && no_language_word(m) {
        return Ok(GateVerdict {
            passed: Some(false),
            reason: format!(
                "no word of {} or {} was found (only numbers, symbols, links or names): the \
                 batch holds no language evidence, so it is not code switching",
                m.first_language, m.second_language
            ),
        });
    }
    if m.status == MeasurementStatus::Unavailable {
        return Err(why("the measurement is unavailable"));
    }
    // A language read by its script alone (Arabic, Chinese, Japanese, Korean, Russian: no
    // romanized detector) is certainly absent when none of its script's words was found,
    // however low the coverage: the untagged words are Latin look-alikes, not that language.
    if let Some(absent) = absent_script_language(m) {
        return Ok(GateVerdict {
            passed: Some(false),
            reason: format!(
                "no {absent} word (in {absent} script) was found: the batch is monolingual"
            ),
        });
    }
    // Words that look like a third language (Portuguese in a Spanish–English batch) are not
    // code switching between the pair, however the judges score them.
    if let Some(refusal) = third_language_refusal(m) {
        return Ok(refusal);
    }
    // However low the coverage, a language whose only evidence is words of uncertain language
    // (look-alikes, words only the detector placed, ambiguous words) is refused: a monolingual
    // batch shows the same, and the judges' 10 must not accept it.
    if let Some(refusal) = no_firm_evidence(m) {
        return Ok(refusal);
    }
    // A language whose firm words are all quoted, in parentheses or in backticks (a sign, a
    // slogan, a line of a song, a gloss, code) is mentioned, not switched to.
    if let Some(refusal) = quoted_only(m) {
        return Ok(refusal);
    }
    // Languages that alternate every word or two in most texts are a word-by-word rendering,
    // not a speaker's switching.
    if let Some(refusal) = word_by_word(m) {
        return Ok(refusal);
    }
    let need = usize::try_from(settings.min_switch_points.max(1)).unwrap_or(usize::MAX);
    let intra = cs_type.is_some_and(|t| t.to_ascii_lowercase().contains("intra"));
    // A conversation is one discourse: asked for intra-sentential switching, it is judged on
    // the turns that switch when at least half of them do; a turn may stay in one language
    // ("¿Vas a ir a la fiesta?" answered "I don't know, estoy muy cansado").
    match switching_turns(m, need) {
        Some(turns) if intra && multi_turn => {
            let mut verdict = switching_verdict(&turns, need, intra, multi_turn);
            if let Ok(GateVerdict {
                passed: Some(true),
                reason,
            }) = &mut verdict
            {
                *reason = format!(
                    "{} of the conversation's {} turns have at least {need} switch point(s), at \
                     least half",
                    turns.sentences.len(),
                    m.sentences.len()
                );
            }
            verdict
        }
        _ => {
            let verdict = switching_verdict(m, need, intra, multi_turn);
            let inter = cs_type.is_some_and(|t| t.to_ascii_lowercase().contains("inter"));
            // A conversation's turns are its sentences: a one-word turn is one of them.
            let tags_only = (inter && !multi_turn).then(|| edge_tags_only(m)).flatten();
            match (&verdict, tags_only) {
                (
                    Ok(GateVerdict {
                        passed: Some(true), ..
                    }),
                    Some(refusal),
                ) => Ok(refusal),
                _ => verdict,
            }
        }
    }
}

/// The refusal of a batch where one language's firm words all stand between quotation marks
/// (`"…"`, `“…”`, `„…“`, `«…»`, `「…」`), in parentheses or brackets, or in backticks, and the
/// other language's firm words outside them: a sign, a slogan, a tattoo, a line of a song or a
/// film quoted ("un panneau indique « Sorry, we're closed »"), a gloss ("cuscuz (a kind of corn
/// couscous)") or code (`` `git pull` ``) is a mention of the language, not a switch to it.
/// `None` when a firm word of each language stands outside them, or no firm word inside.
fn quoted_only(m: &Measurement) -> Option<GateVerdict> {
    let pair = (m.first_language, m.second_language);
    let languages = [m.first_language, m.second_language];
    // Firm words of each language, [outside, inside].
    let mut firm_words = [[0_usize; 2]; 2];
    for s in &m.sentences {
        let brackets = bracketed(&s.tokens);
        let (mut quoted, mut backticks) = (false, false);
        for (t, bracket) in s.tokens.iter().zip(brackets) {
            if t.tag == WordTag::Untagged(UntaggedReason::Symbol) {
                for c in t.text.chars() {
                    match c {
                        '„' | '«' | '‹' | '「' | '『' => quoted = true,
                        '”' | '»' | '›' | '」' | '』' => quoted = false,
                        '"' | '“' => quoted = !quoted,
                        '`' => backticks = !backticks,
                        _ => {}
                    }
                }
                continue;
            }
            let WordTag::Lang(language) = t.tag else {
                continue;
            };
            if codeswitch::is_firm_word(pair.0, pair.1, t) {
                // An aside in parentheses ("(don't ask me how)", "(his mum is such a good
                // cook)") is the writer's own clause, not a gloss: outside (review 26q).
                let inside = quoted || backticks || bracket == Some(false);
                firm_words[usize::from(language == m.second_language)][usize::from(inside)] += 1;
            }
        }
    }
    let mentioned = (0..2)
        .find(|&l| firm_words[l][0] == 0 && firm_words[l][1] > 0 && firm_words[1 - l][0] > 0)?;
    Some(GateVerdict {
        passed: Some(false),
        reason: format!(
            "every firm {} word of the batch is quoted, in parentheses or in backticks (a sign, \
             a slogan, a lyric, a gloss, code) among {} text: a mention of {}, not code \
             switching",
            languages[mentioned],
            languages[1 - mentioned],
            languages[mentioned]
        ),
    })
}

/// Words that make a bracketed stretch the writer's own aside rather than a gloss for the
/// reader: a person, a finite verb, a comment ("(don't ask me how)", "(as usual, obviously)",
/// "(his mum is such a good cook)" against "(a sweet rice pudding)").
const ASIDE_WORDS: &[&str] = &[
    "i",
    "me",
    "my",
    "he",
    "him",
    "his",
    "she",
    "her",
    "we",
    "us",
    "our",
    "they",
    "them",
    "their",
    "is",
    "are",
    "was",
    "were",
    "am",
    "do",
    "does",
    "did",
    "don't",
    "can't",
    "won't",
    "didn't",
    "isn't",
    "it's",
    "i'm",
    "obviously",
    "usual",
    "lol",
    "seriously",
    "honestly",
    "literally",
];

/// For each token, whether it stands in parentheses or brackets, and if so whether its
/// bracketed stretch is an aside ([`ASIDE_WORDS`]): `None` outside, `Some(false)` in a gloss,
/// `Some(true)` in an aside.
fn bracketed(tokens: &[codeswitch::TaggedWord]) -> Vec<Option<bool>> {
    // Each token's group (0: none) at its place, then which groups are asides.
    let mut groups = Vec::with_capacity(tokens.len());
    let mut asides = vec![false];
    let mut depth = 0_usize;
    for t in tokens {
        if t.tag == WordTag::Untagged(UntaggedReason::Symbol) {
            for c in t.text.chars() {
                match c {
                    '(' | '[' => {
                        if depth == 0 {
                            asides.push(false);
                        }
                        depth += 1;
                    }
                    ')' | ']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        } else if depth > 0
            && ASIDE_WORDS.contains(&t.text.to_lowercase().replace('’', "'").as_str())
            && let Some(last) = asides.last_mut()
        {
            *last = true;
        }
        groups.push((depth > 0).then(|| asides.len() - 1));
    }
    groups
        .into_iter()
        .map(|group| group.map(|g| asides[g]))
        .collect()
}

/// A text with at least this many tagged words can be judged for word-by-word alternation.
const WORD_BY_WORD_MIN_WORDS: usize = 10;

/// The share of a text's places between two tagged words that must be switch points for the
/// text to alternate word by word. Real code switching changes language far less often: the
/// hand-tagged code-switched sentences of 10 tagged words or more switch at 0.56 of them at
/// most ("Ayer fuimos al mall y compramos unos sneakers bien cute").
const WORD_BY_WORD_SHARE: f64 = 0.6;

/// The refusal of a batch most of whose texts (at least 2) alternate languages word by word: at
/// least [`WORD_BY_WORD_MIN_WORDS`] tagged words with switch points at [`WORD_BY_WORD_SHARE`]
/// or more of the places between them ("Yo want ir a the tienda para buy algunos eggs y the
/// leche"). A bilingual switches at phrases and clauses, not at every other word; such text is a
/// word-for-word rendering or word salad. `None` otherwise.
fn word_by_word(m: &Measurement) -> Option<GateVerdict> {
    let alternating: Vec<usize> = m
        .sentences
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            let words = s.tagged.total();
            #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
            let share = s.switch_points as f64 / words.saturating_sub(1).max(1) as f64;
            words >= WORD_BY_WORD_MIN_WORDS && share >= WORD_BY_WORD_SHARE
        })
        .map(|(i, _)| i + 1)
        .collect();
    (alternating.len() >= 2 && 2 * alternating.len() > m.sentences.len()).then(|| {
        let texts: Vec<String> = alternating.iter().map(ToString::to_string).collect();
        GateVerdict {
            passed: Some(false),
            reason: format!(
                "texts {} of {} switch language at {:.0}% or more of the places between their \
                 words: alternation every word or two is a word-by-word rendering, not code \
                 switching",
                texts.join(", "),
                m.sentences.len(),
                100.0 * WORD_BY_WORD_SHARE
            ),
        }
    })
}

/// Words of the other language at most this many at a text's start or end are a tag.
const EDGE_TAG_WORDS: usize = 2;

/// Inter-sentential types: the refusal of an English-built batch whose other-language words
/// are all tags at the edge of its texts — at most [`EDGE_TAG_WORDS`] words in a text, at its
/// start or end ("Selamat pagi! The meeting starts at nine.", "Mamma mia, that was close!"): a
/// greeting, an interjection or a set phrase is tag (extra-sentential) switching, not the
/// switching between sentences asked for. `None` otherwise.
fn edge_tags_only(m: &Measurement) -> Option<GateVerdict> {
    let ((Language::English, other) | (other, Language::English)) =
        (m.first_language, m.second_language)
    else {
        return None;
    };
    if !english_matrix(m, other) {
        return None;
    }
    let mut any = false;
    for s in &m.sentences {
        let words: Vec<&TaggedWord> = s
            .tokens
            .iter()
            .filter(|t| t.tag != WordTag::Untagged(UntaggedReason::Symbol))
            .collect();
        let mut count = 0;
        for (i, t) in words.iter().enumerate() {
            if t.tag == WordTag::Lang(other) {
                count += 1;
                if count > EDGE_TAG_WORDS
                    || (i >= EDGE_TAG_WORDS && i + EDGE_TAG_WORDS < words.len())
                {
                    return None;
                }
            }
        }
        any |= count > 0;
    }
    any.then(|| GateVerdict {
        passed: Some(false),
        reason: format!(
            "the {other} words are only tags at the edge of {} sentences (at most \
             {EDGE_TAG_WORDS} words at a text's start or end: greetings, interjections, set \
             phrases): tag switching, not the inter-sentential switching asked for",
            Language::English
        ),
    })
}

/// The turns of a conversation that switch inside themselves (at least `need` switch points
/// and a firm word of each language), as a measurement of their own, when they are at least
/// half the turns and not all of them; `None` else.
fn switching_turns(m: &Measurement, need: usize) -> Option<Measurement> {
    let switches = |s: &SentenceMeasurement| {
        let f = firm(s);
        s.switch_points >= need && f[0] > 0 && f[1] > 0
    };
    let switching = m.sentences.iter().filter(|s| switches(s)).count();
    if switching == m.sentences.len() || 2 * switching < m.sentences.len() {
        return None;
    }
    let mut turns = m.clone();
    turns.sentences.retain(switches);
    Some(turns)
}

/// The verdict on switching itself, once the batch is known to be in the pair's languages with
/// firm words of both: per text for intra-sentential types, per batch else; a token presence,
/// borrowed islands and, on a `low_coverage` measurement, an undecided gate.
fn switching_verdict(m: &Measurement, need: usize, intra: bool, multi_turn: bool) -> Evidence {
    if m.status == MeasurementStatus::LowCoverage {
        // An intra-sentential text with no firm word of one language is refused as on an `ok`
        // measurement: its uncertain words are no evidence of a switch ("I read the final idea
        // in the hotel once" in a Spanish–English batch).
        if intra && let Some(Ok(refusal)) = unfirm_failure(m, true) {
            return Ok(refusal);
        }
        // Islands of borrowings are islands whatever the untagged words are.
        if let Some(refusal) = borrowed_islands(m, true) {
            return Ok(refusal);
        }
        return Err(m
            .status_reason
            .clone()
            .unwrap_or_else(|| "the measurement has low coverage".to_owned()));
    }
    let failure = if intra {
        intra_failure(&m.sentences, need)
    } else {
        batch_failure(m, need, multi_turn)
    };
    if failure.is_none() {
        // Too few firm words of a language for romanized text leaves the gate undecided, but a
        // batch whose less used language is a token presence even counting those few (one
        // English "series" in three Hinglish texts) is not switching whatever they are.
        let presence = presence_refusal(m, intra);
        match (unfirm_failure(m, intra), presence) {
            (Some(Ok(refusal)), _) | (None | Some(Err(_)), Some(refusal)) => return Ok(refusal),
            (Some(Err(why)), None) => return Err(why),
            (None, None) => {}
        }
    }
    Ok(match failure {
        None => GateVerdict {
            passed: Some(true),
            reason: if intra {
                format!("every text has at least {need} switch point(s)")
            } else {
                "both languages are present with switch points".into()
            },
        },
        Some(why) => GateVerdict {
            passed: Some(false),
            reason: why,
        },
    })
}

/// The refusal of a batch whose words look like a third language (`third_language` set), with
/// the measurement's reason. Words no list holds (`"unknown"`) may be a language the tool has
/// no list for or rare words of the pair's own (dish names): the gate could not tell, and
/// refuses as for a language with no firm word, whatever `gate.undecided` says.
fn third_language_refusal(m: &Measurement) -> Option<GateVerdict> {
    let third = m.third_language.as_ref()?;
    let why = m
        .status_reason
        .clone()
        .unwrap_or_else(|| format!("the words look {third}"));
    let reason = if third == UNKNOWN_LANGUAGE {
        format!(
            "undecided, refused: could not tell whether the batch is in {} and {}: {why}",
            m.first_language, m.second_language
        )
    } else {
        format!("the batch is not in the pair's languages: {why}")
    };
    Some(GateVerdict {
        passed: Some(false),
        reason,
    })
}

/// Intra-sentential switching: every text needs `need` switch points.
fn intra_failure(sentences: &[SentenceMeasurement], need: usize) -> Option<String> {
    let short: Vec<usize> = sentences
        .iter()
        .enumerate()
        .filter(|(_, s)| s.switch_points < need)
        .map(|(i, _)| i + 1)
        .collect();
    match (sentences.len(), short.as_slice()) {
        (0, _) => Some("no text was measured".to_owned()),
        (_, []) => None,
        (_, [one]) => Some(format!(
            "text {one} has fewer than {need} switch point(s) (intra-sentential switching asked for)"
        )),
        (_, many) => Some(format!(
            "texts {} have fewer than {need} switch point(s) each (intra-sentential switching asked for)",
            many.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Every other type: the batch needs words of both languages and `need` switch points (turn
/// boundaries count in a conversation).
fn batch_failure(m: &Measurement, need: usize, multi_turn: bool) -> Option<String> {
    let boundaries = if multi_turn {
        turn_boundary_switches(&m.sentences)
    } else {
        0
    };
    let switches = m.switch_points + boundaries;
    if m.tagged.first == 0 || m.tagged.second == 0 {
        let missing = if m.tagged.first == 0 {
            m.first_language
        } else {
            m.second_language
        };
        Some(format!(
            "no {missing} word was found: the batch is monolingual"
        ))
    } else if switches < need {
        Some(format!(
            "{switches} switch point(s) in the batch, fewer than {need}"
        ))
    } else {
        None
    }
}

/// Firm evidence of both languages, needed for a pass: per text for intra-sentential types,
/// in the batch else. With none of one language the gate fails; with some but fewer than
/// romanized text needs, it is undecided. A firm word is tagged by script, by one word list alone, by a function
/// word of one language or by the detector — not a look-alike of both Latin languages' lists
/// nor a romanized word both word lists know, whose tag is inferred. Romanized text needs two
/// firm words of each language, since one word of one list can be a spelling of the other
/// language ("pass" for Hindi paas, a name such as "Priya"). The evidence when it lacks.
fn unfirm_failure(m: &Measurement, intra: bool) -> Option<Evidence> {
    let needed = |romanized: bool| if romanized { MIN_FIRM_ROMANIZED } else { 1 };
    // (texts, firm words of each language, firm words needed): per text or for the batch.
    let groups: Vec<(String, [usize; 2], usize)> = if intra {
        m.sentences
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("text {}", i + 1), firm(s), needed(s.romanized)))
            .collect()
    } else {
        let total = batch_firm(m);
        let n = needed(m.sentences.iter().any(|s| s.romanized));
        vec![("the batch".to_owned(), total, n)]
    };
    let languages = [m.first_language, m.second_language];
    let mut few = Vec::new();
    for (what, found, n) in &groups {
        for (language, &count) in languages.iter().zip(found) {
            if count == 0 {
                return Some(Ok(could_not_tell(*language, what, "")));
            }
            if count < *n && !few.contains(what) {
                few.push(what.clone());
            }
        }
    }
    if few.is_empty() {
        return None;
    }
    Some(Err(format!(
        "too few words that only one language has (in {}; romanized text needs \
         {MIN_FIRM_ROMANIZED} of each)",
        few.join(", ")
    )))
}

/// Whether texts were measured and none of their words is, or could be, a word of the pair:
/// nothing tagged, nothing ambiguous, nothing of another language.
fn no_language_word(m: &Measurement) -> bool {
    !m.sentences.is_empty()
        && m.tagged.total() == 0
        && m.untagged.ambiguous == 0
        && m.untagged.other_language == 0
}

/// The refusal of a batch with no firm word of one language in the whole batch, whatever its
/// coverage: the words that might be that language are look-alikes, words only the detector
/// placed or ambiguous ones ("could not tell"), or there is no word at all that might be it
/// ("monolingual"). `None` when both languages have a firm word.
fn no_firm_evidence(m: &Measurement) -> Option<GateVerdict> {
    let firm_total = batch_firm(m);
    let tagged = [m.tagged.first, m.tagged.second];
    let open = m.untagged.ambiguous;
    let languages = [m.first_language, m.second_language];
    (0..2).find(|&i| firm_total[i] == 0).map(|i| {
        if tagged[i] == 0 && open == 0 {
            return GateVerdict {
                passed: Some(false),
                reason: format!(
                    "no {} word was found: the batch is monolingual",
                    languages[i]
                ),
            };
        }
        {
            let detail = match (tagged[i], open) {
                (0, n) => format!(" ({n} word(s) could be either language)"),
                (t, 0) => format!(" ({t} word(s) tagged {} are not firm)", languages[i]),
                (t, n) => format!(
                    " ({t} word(s) tagged {} are not firm, {n} more could be either language)",
                    languages[i]
                ),
            };
            could_not_tell(languages[i], "the batch", &detail)
        }
    })
}

/// The refusal when the only evidence of `language` in `what` is words whose language is not
/// firm: undecided, worded so ("could not tell", not "monolingual": a real switch that rests on
/// look-alikes alone looks the same), and refused whatever `gate.undecided` says, since the
/// judges would accept a monolingual batch.
fn could_not_tell(language: Language, what: &str, detail: &str) -> GateVerdict {
    GateVerdict {
        passed: Some(false),
        reason: format!(
            "undecided, refused: could not tell whether {what} has any {language} — no \
             {language} word is firm, only look-alikes or words whose language is uncertain{detail}, \
             which a monolingual batch shows too"
        ),
    }
}

/// The language of the pair that is written in its own script, has no romanized detector, and
/// has no tagged word in the measurement, if any.
fn absent_script_language(m: &Measurement) -> Option<Language> {
    [
        (m.first_language, m.tagged.first),
        (m.second_language, m.tagged.second),
    ]
    .into_iter()
    .find_map(|(language, count)| {
        let script_only = !language.is_latin() && !has_romanized_detector(language);
        (script_only && count == 0).then_some(language)
    })
}

/// Firm words of each language a romanized text (or batch) needs for a pass.
pub const MIN_FIRM_ROMANIZED: usize = 2;

/// A batch-level pass (every `cs_type` but intra-sentential) needs the less used language to
/// be more than a token presence: at least this many firm words in the batch. One English word
/// at the end of three long Spanish sentences, or "honestly" after three short ones full of
/// look-alikes ("plan", "hotel", "red", "bar"), is a monolingual batch, not switching.
pub const MIN_FIRM_BATCH: usize = 2;

/// A batch-level pass also needs the less used language's firm words to be at least this share
/// of the batch's words ([`share_words`]: every word, names, numbers and emoji included, so a
/// list of names or numbers does not thin the denominator): 5% (a batch of one text: one firm
/// word is enough when it is).
/// Two English discourse words ("really", "anyway") in three long Spanish texts are 2 firm words
/// but 1.3% of the batch: a token presence, not switching. One English word in a short text (1
/// of 7) is a real switch; every code-switched sentence of the hand-tagged sets has 8% or more of
/// its less used language, and the reviews' real code-switched batches 8% or more firm.
pub const MIN_LANGUAGE_SHARE: f64 = 0.05;

/// The refusal of a batch whose less used language (by firm words) is a token presence: fewer
/// than [`MIN_FIRM_BATCH`] firm words (a batch of one text: fewer than one), or firm words under
/// [`MIN_LANGUAGE_SHARE`] of the words. Words tagged with the language that are not firm
/// (look-alikes, words of uncertain language) are named but, being no evidence, do not save it.
/// `None` when the language is more than that.
fn token_presence(m: &Measurement) -> Option<GateVerdict> {
    let total: usize = m.sentences.iter().map(share_words).sum();
    let firm_total = batch_firm(m);
    let (language, tagged, firm_words) = if firm_total[1] <= firm_total[0] {
        (m.second_language, m.tagged.second, firm_total[1])
    } else {
        (m.first_language, m.tagged.first, firm_total[0])
    };
    #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
    let share = firm_words as f64 / total.max(1) as f64;
    let one_text = m.sentences.len() == 1;
    let needed = if one_text { 1 } else { MIN_FIRM_BATCH };
    if total == 0 || (firm_words >= needed && share >= MIN_LANGUAGE_SHARE) {
        return None;
    }
    let texts = if one_text {
        "the text's".to_owned()
    } else {
        format!("the batch's {} texts'", m.sentences.len())
    };
    let what = if firm_words < needed {
        format!(
            "{language} has {firm_words} firm word(s) among {texts} {total} words, \
             fewer than {needed}"
        )
    } else {
        format!(
            "{language} has {firm_words} firm word(s) among {texts} {total} words \
             ({:.1}%, under {:.0}%)",
            100.0 * share,
            100.0 * MIN_LANGUAGE_SHARE
        )
    };
    let unfirm = tagged.saturating_sub(firm_words);
    let uncertain = if unfirm > 0 {
        format!(
            " (and {unfirm} tagged {language} that are look-alikes or of uncertain language, \
             no evidence of a switch)"
        )
    } else {
        String::new()
    };
    Some(GateVerdict {
        passed: Some(false),
        reason: format!(
            "{what}{uncertain}: a token presence of one language in a monolingual batch is not \
             code switching"
        ),
    })
}

/// The refusal of a batch with switch points whose less used language is no more than a token
/// presence (per text for intra-sentential types, [`thin_text`]; per batch otherwise,
/// [`token_presence`]) or only borrowed islands in English text ([`borrowed_islands`]).
fn presence_refusal(m: &Measurement, intra: bool) -> Option<GateVerdict> {
    if intra {
        thin_text(m)
    } else {
        token_presence(m)
    }
    .or_else(|| borrowed_islands(m, false))
}

/// English text whose other-language words are all islands of borrowed nouns: the pair is
/// English and a language written in Latin letters (romanized Hindi too), English is the batch's matrix ([`english_matrix`]),
/// and no text joins the other language to the English as a speaker who switches joins them
/// ([`joins_languages`]: a clause of it, a function word of it beside a firm English word or at
/// the text's edge, "I told her que no", or punctuation between, "I'm so tired, ¿sabes?"). "We
/// had arroz con pollo", "the coq au vin", "nasi goreng and es teh manis", "Kaffee und Kuchen":
/// dish names, titles and fixed phrases are borrowings, and their function words sit inside
/// them; so are "a selfie at the mandir before the shaadi" and "the best aloo paratha".
///
/// With `open_as_other` (a `low_coverage` measurement), every word left untagged as ambiguous is
/// taken to be a word of the other language, so a join it could make is never missed — but a
/// function word both languages list ("a" in English and Spanish, "at" in English and Tagalog)
/// reads as either whatever the coverage, as on an `ok` measurement, and is never taken so.
fn borrowed_islands(m: &Measurement, open_as_other: bool) -> Option<GateVerdict> {
    let ((Language::English, other) | (other, Language::English)) =
        (m.first_language, m.second_language)
    else {
        return None;
    };
    // Every language of the tool has function words listed: by spelling for the Latin-script
    // ones and romanized Hindi, by script for the others ([`joining_word`]).
    if !words_kept(m) || !english_matrix(m, other) {
        return None;
    }
    let pair = (m.first_language, m.second_language);
    let ambiguous = WordTag::Untagged(UntaggedReason::Ambiguous);
    // A function word both languages list ("a" in English and Spanish) reads as either
    // whatever the coverage: it is never opened as the other language's.
    let shared = |t: &TaggedWord| {
        let word = t.text.to_lowercase().replace('\u{2019}', "'");
        codeswitch::is_function_word(pair.0, &word) && codeswitch::is_function_word(pair.1, &word)
    };
    let open = |t: &TaggedWord| t.tag == ambiguous && !shared(t);
    let joins = |s: &SentenceMeasurement| {
        if open_as_other && s.tokens.iter().any(open) {
            let tokens: Vec<TaggedWord> = s
                .tokens
                .iter()
                .map(|t| TaggedWord {
                    tag: if open(t) { WordTag::Lang(other) } else { t.tag },
                    ..t.clone()
                })
                .collect();
            joins_languages(&tokens, other, pair)
        } else {
            joins_languages(&s.tokens, other, pair)
        }
    };
    if m.sentences.iter().any(joins) {
        return None;
    }
    let english = Language::English;
    Some(GateVerdict {
        passed: Some(false),
        reason: format!(
            "the {other} words are islands in {english} text, none a clause of {other} or joined \
             to a firm {english} word by a function word of {other} or by punctuation (dish names, \
             titles, fixed phrases: \"arroz con pollo\", \"coq au vin\"): borrowings, not code \
             switching"
        ),
    })
}

/// Whether English is the batch's matrix beside `other`: more firm English words than firm
/// words of `other` (as many when `other` is the second language), or more firm English
/// function words than firm function words of `other` (the grammar the sentences are built
/// in), or as many and no more firm words of `other`. Counting words alone, three two-word dish
/// names ("nasi goreng", "gado gado", "nasi putih") outnumber the English around them. Chinese
/// and Japanese function characters are too few to weigh against English function words (terse
/// Japanese, "明日午前十時 team meeting 開始", holds almost none): their firm characters decide.
fn english_matrix(m: &Measurement, other: Language) -> bool {
    let pair = (m.first_language, m.second_language);
    let mut function_words = [0_usize; 2];
    for t in m.sentences.iter().flat_map(|s| &s.tokens) {
        let WordTag::Lang(language) = t.tag else {
            continue;
        };
        if joining_word(t, language, pair) {
            function_words[usize::from(language == other)] += 1;
        }
    }
    let firm_total = batch_firm(m);
    let other_firm = firm_total[usize::from(other == m.second_language)];
    let english_firm = firm_total[usize::from(other != m.second_language)];
    english_firm > other_firm
        || (english_firm == other_firm && other == m.second_language)
        || (function_words[0] > function_words[1] && !counts_characters(other))
        || (function_words[0] == function_words[1] && other_firm <= english_firm)
}

/// Whether `t` is a function word of `language` that shows where it joins the other language:
/// tagged with it, listed ([`codeswitch::is_romanized_function_word`], or for a language read
/// by its script [`codeswitch::is_script_function_word`]) and firm — or, for
/// romanized Hindi, whose function words are spelled like English words ("the", "to", "me",
/// "hai") and so are settled by their neighbours, never firm, tagged with it.
fn joining_word(t: &TaggedWord, language: Language, pair: (Language, Language)) -> bool {
    let word: String = t
        .text
        .to_lowercase()
        .replace('\u{2019}', "'")
        .chars()
        .filter(|&c| !is_mark(c))
        .collect();
    t.tag == WordTag::Lang(language)
        && (codeswitch::is_romanized_function_word(language, &word)
            || codeswitch::is_script_function_word(language, &word))
        && (!language.is_latin() || codeswitch::is_firm_word(pair.0, pair.1, t))
}

/// Whether a text shows `less` joined to English as a speaker who switches joins them: a run of
/// [`CLAUSE_WORDS`] tagged words of `less`; a firm function word of `less` beside a firm
/// English word or at the text's edge ("I told her que no"); or punctuation that parts the
/// two ("No puedo hoy, I have a deadline"). A look-alike read as English ("chocolate" in "churros con chocolate", "vin" in "coq au
/// vin") is no English for a function word to join: it may be the borrowed phrase's own word.
fn joins_languages(tokens: &[TaggedWord], less: Language, pair: (Language, Language)) -> bool {
    let is = |t: &TaggedWord, language: Language| t.tag == WordTag::Lang(language);
    let firm = |t: &TaggedWord| codeswitch::is_firm_word(pair.0, pair.1, t);
    let mut run = 0;
    for t in tokens.iter().filter(|t| matches!(t.tag, WordTag::Lang(_))) {
        run = if is(t, less) { run + 1 } else { 0 };
        if run >= CLAUSE_WORDS && !counts_characters(less) {
            return true;
        }
    }
    let words: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].tag != WordTag::Untagged(UntaggedReason::Symbol))
        .collect();
    let grammar = grammar_words(tokens, less, pair);
    let function_word_joins = (0..words.len()).any(|k| {
        let function_word = grammar[words[k]];
        let beside = [k.checked_sub(1), Some(k + 1).filter(|&o| o < words.len())];
        function_word
            && beside.into_iter().any(|other| {
                other.is_none_or(|o| {
                    is(&tokens[words[o]], Language::English) && firm(&tokens[words[o]])
                })
            })
    });
    function_word_joins || punctuation_joins(tokens, less, Language::English, pair)
}

/// Whether punctuation inside a text parts a word of `less` from an English word: the nearest
/// words on its two sides (any word, untagged ones included) are one of each, and the words of
/// `less` reach from the punctuation to the sentence's edge (its start or end, or a `.`, `!`,
/// `?`) with no firm English word between: a clause or a tag of its own ("No puedo hoy, I have
/// a deadline", "I'm so tired, ¿sabes?"), not an island inside English ("we ordered more
/// empanadas, so we …", "with dhal, nothing beats it", "the menu: gazpacho, tortilla"). Skipping
/// words to the nearest firm ones would join the commas of a list of dishes ("We ate
/// bruschetta, prosciutto and mozzarella") and a toast after a dish ("a shot of tequila, salud").
/// A colon never joins: what follows it explains or lists what precedes it ("Mee goreng mamak:
/// my go-to at midnight").
fn punctuation_joins(
    tokens: &[TaggedWord],
    less: Language,
    more: Language,
    pair: (Language, Language),
) -> bool {
    let word = |t: &&TaggedWord| t.tag != WordTag::Untagged(UntaggedReason::Symbol);
    let firm_more = |t: &TaggedWord| {
        t.tag == WordTag::Lang(more) && codeswitch::is_firm_word(pair.0, pair.1, t)
    };
    let ends_sentence = |t: &TaggedWord| {
        !word(&t)
            && t.text
                .contains(['.', '!', '?', '…', '。', '！', '？', '؟', '\n'])
    };
    // Whether the words from `from` on, in the direction given, reach the sentence's edge
    // before a firm English word.
    let reaches_edge = |from: usize, forward: bool| {
        let mut k = from;
        loop {
            let t = &tokens[k];
            if ends_sentence(t) {
                return true;
            }
            if firm_more(t) || (k != from && t.tag == WordTag::Lang(more)) {
                return false;
            }
            if forward && k + 1 < tokens.len() {
                k += 1;
            } else if !forward && k > 0 {
                k -= 1;
            } else {
                return true;
            }
        }
    };
    (0..tokens.len()).any(|i| {
        let t = &tokens[i];
        if word(&t)
            || !(t.text.contains([
                ',', ';', '.', '!', '?', '¿', '¡', '…', '，', '；', '。', '！', '？', '،', '؛',
                '؟', '、', '､', '〜', '～',
            ]) || t.text.chars().any(is_pictograph))
        {
            return false;
        }
        let before = tokens[..i].iter().rposition(|t| word(&t));
        let after = tokens[i + 1..]
            .iter()
            .position(|t| word(&t))
            .map(|j| i + 1 + j);
        let (Some(before), Some(after)) = (before, after) else {
            return false;
        };
        let more = WordTag::Lang(more);
        let other = WordTag::Lang(less);
        match (tokens[before].tag, tokens[after].tag) {
            (b, a) if b == other && a == more => reaches_edge(before, false),
            (b, a) if b == more && a == other => reaches_edge(after, true),
            _ => false,
        }
    })
}

/// For each token, whether it is a function word of `language` that shows its grammar
/// ([`joining_word`]). For a language counted by character (Chinese, Japanese) one function
/// character alone is no evidence: it is as often a syllable of a noun ("と" in "とんかつ", "吧"
/// in "网吧", "和" in "和牛"), so it counts only where its run of `language`'s characters holds
/// another ("真的很抱歉") or one that is grammar alone
/// ([`codeswitch::is_standalone_function_character`]: "我觉得"), and, for Japanese,
/// holds more than hiragana (a dish name spelled in kana has particle-shaped syllables:
/// "とんかつ", "やきとり").
fn grammar_words(
    tokens: &[TaggedWord],
    language: Language,
    pair: (Language, Language),
) -> Vec<bool> {
    let mut grammar: Vec<bool> = tokens
        .iter()
        .map(|t| joining_word(t, language, pair))
        .collect();
    if counts_characters(language) {
        let mut start = 0;
        while start < tokens.len() {
            let run = tokens[start..]
                .iter()
                .take_while(|t| t.tag == WordTag::Lang(language))
                .count()
                .max(1);
            let end = start + run;
            let standalone = tokens[start..end]
                .iter()
                .any(|t| codeswitch::is_standalone_function_character(&t.text));
            // A run of hiragana alone is as likely a word spelled in kana ("とんかつ", "やきとり").
            let kana_word = language == Language::Japanese
                && tokens[start..end].iter().all(|t| {
                    t.text
                        .chars()
                        .all(|c| ('\u{3040}'..='\u{309F}').contains(&c))
                });
            if !standalone && (kana_word || grammar[start..end].iter().filter(|&&g| g).count() < 2)
            {
                grammar[start..end].fill(false);
            }
            start = end;
        }
    }
    grammar
}

/// Whether `c` only marks the letter before it and is no letter of its own: combining
/// accents (Russian stress marks "я́"), Arabic vowel signs (harakat, "لَا") and the tatweel
/// that stretches a word ("لـا"). A function word written with them is still that word.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x064B..=0x065F | 0x0670 | 0x0640)
}

/// Whether `language`'s words are counted by character (Chinese, and Japanese kanji and
/// kana): four of them in a row are a name ("六味地黄丸", "振り飛車"), not a clause, which
/// shows only by its function characters.
fn counts_characters(language: Language) -> bool {
    matches!(language, Language::Chinese | Language::Japanese)
}

/// Words of one language in a row that make a clause of it, not a borrowed name: "este finde,
/// ¿qué dices?", "devo fare la spesa". Dish names and fixed phrases are shorter ("arroz con
/// pollo", "coq au vin", "pão de queijo").
const CLAUSE_WORDS: usize = 4;

/// The words a language's share is counted over: every word of the text (tagged, names,
/// numbers, ambiguous words) and every emoji token. Counting tagged words only let padding hide
/// a token presence: "seriously" and "honestly" after lists of numbers or first names were 2 of
/// 15 tagged words but 2 of 40 words.
fn share_words(s: &SentenceMeasurement) -> usize {
    let emoji = s
        .tokens
        .iter()
        .filter(|t| t.tag == WordTag::Untagged(UntaggedReason::Symbol))
        .filter(|t| t.text.chars().any(is_pictograph))
        .count();
    s.words + emoji
}

/// Emoji and other pictographs (the Unicode blocks emoji come from).
fn is_pictograph(c: char) -> bool {
    matches!(c as u32, 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x1F000..=0x1FAFF)
}

/// Intra-sentential types: the refusal of a batch with a text whose less used language (by firm
/// words) is under [`MIN_LANGUAGE_SHARE`] of the text's words: one "honestly" at the end
/// of a 50-word Spanish text is a token presence, not a switch inside it. `None` when every text
/// has more.
fn thin_text(m: &Measurement) -> Option<GateVerdict> {
    let languages = [m.first_language, m.second_language];
    m.sentences.iter().enumerate().find_map(|(i, s)| {
        let f = firm(s);
        let less = usize::from(f[1] <= f[0]);
        let total = share_words(s);
        #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
        let share = f[less] as f64 / total.max(1) as f64;
        (total > 0 && share < MIN_LANGUAGE_SHARE).then(|| GateVerdict {
            passed: Some(false),
            reason: format!(
                "text {} has {} firm {} word(s) among its {total} words ({:.1}%, under \
                 {:.0}%): a token presence of one language in a monolingual text is not code \
                 switching",
                i + 1,
                f[less],
                languages[less],
                100.0 * share,
                100.0 * MIN_LANGUAGE_SHARE
            ),
        })
    })
}

/// Words of each language (first, second) tagged firmly in the batch.
fn batch_firm(m: &Measurement) -> [usize; 2] {
    m.sentences.iter().fold([0, 0], |acc, s| {
        let f = firm(s);
        [acc[0] + f[0], acc[1] + f[1]]
    })
}

/// Words of each language (first, second) tagged firmly in one measured sentence: tagged minus
/// those whose language is not firm (`uncertain`: look-alikes, contested romanized words, words
/// only the detector placed; in records written before it was kept, `inferred`).
fn firm(s: &SentenceMeasurement) -> [usize; 2] {
    [
        s.tagged
            .first
            .saturating_sub(s.inferred.first.max(s.uncertain.first)),
        s.tagged
            .second
            .saturating_sub(s.inferred.second.max(s.uncertain.second)),
    ]
}

/// Turns whose first tagged word is in another language than the previous turn's last.
fn turn_boundary_switches(sentences: &[SentenceMeasurement]) -> usize {
    let mut previous_end: Option<Language> = None;
    let mut switches = 0;
    for s in sentences {
        if let (Some(end), Some(start)) = (previous_end, s.starts_in)
            && end != start
        {
            switches += 1;
        }
        if let Some(end) = s.ends_in {
            previous_end = Some(end);
        }
    }
    switches
}

/// The language pairs of a selection on which the gate cannot decide, known before the run
/// (see [`crate::measure::unmeasurable_reason`]): `plan` shows them and `run` warns before the
/// first call. Batches of the other pairs can still be undecided at run time (low coverage,
/// too few firm words); the record says so.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GateCoverage {
    /// Scenarios looked at (those with both languages named).
    pub scenarios: u64,
    /// Each pair (and script) the gate cannot decide, most scenarios first.
    pub undecidable: Vec<UndecidablePair>,
    /// The counts are estimated from a sample of [`COVERAGE_SAMPLE`] scenarios (a selection
    /// larger than [`COVERAGE_EXACT`]), scaled to the selection.
    pub estimated: bool,
}

/// A selection up to this size is counted scenario by scenario …
pub const COVERAGE_EXACT: u64 = 200_000;
/// … a larger one from a sample of this many.
pub const COVERAGE_SAMPLE: u64 = 20_000;

/// At most this many combinations of the values of the axes that set `first_language`,
/// `second_language` or `script` are enumerated to list a huge grid's pairs exactly.
pub const GRID_PAIRS_MAX: u64 = 100_000;

/// (first, second, script) as the scenarios write them.
type PairKey = (String, String, Option<String>);

/// Every (first, second, script) the grid can give, from the axis values alone (never the
/// scenarios): the fixed values, then each axis that sets one of the three keys in the space's
/// order (a merge axis's object sets its keys, a later axis overrides an earlier one, as the
/// space builds a scenario). Exclusions and sampling are not applied, so a pair listed may have
/// no selected scenario. `None` past [`GRID_PAIRS_MAX`] combinations.
fn grid_pairs(space: &ScenarioSpace) -> Option<Vec<PairKey>> {
    const KEYS: [&str; 3] = ["first_language", "second_language", "script"];
    let setting: Vec<usize> = (0..space.axes().len())
        .filter(|&i| {
            let names = space.axes()[i].param_names();
            KEYS.iter().any(|k| names.contains(*k))
        })
        .collect();
    let combinations = setting
        .iter()
        .try_fold(1_u64, |n, &i| {
            n.checked_mul(space.axes()[i].values.len() as u64)
        })
        .filter(|n| *n <= GRID_PAIRS_MAX)?;
    let mut pairs = std::collections::BTreeSet::new();
    let mut digits = vec![0_usize; space.axes().len()];
    for combination in 0..combinations {
        let mut rest = combination;
        for &i in setting.iter().rev() {
            let size = space.axes()[i].values.len() as u64;
            // rest % size < size, which came from a usize: the cast is lossless.
            digits[i] = (rest % size) as usize;
            rest /= size;
        }
        let Some(scenario) = space.unfiltered_at(&digits) else {
            continue;
        };
        if let (Some(first), Some(second)) =
            (scenario.param_str(KEYS[0]), scenario.param_str(KEYS[1]))
        {
            pairs.insert((first, second, scenario.param_str(KEYS[2])));
        }
    }
    Some(pairs.into_iter().collect())
}

/// One language pair the gate cannot decide on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UndecidablePair {
    /// `first_language`, as the scenarios write it.
    pub first: String,
    /// `second_language`, as the scenarios write it.
    pub second: String,
    /// The scenarios' `script`, when they name one.
    pub script: Option<String>,
    /// Selected scenarios of this pair; 0 for a pair of an estimated coverage that the sample
    /// missed (listed from the axis values, too rare to count).
    pub scenarios: u64,
    /// Why no batch of the pair can be measured.
    pub reason: String,
}

impl GateCoverage {
    /// The coverage of `selection` in `space`: exact up to [`COVERAGE_EXACT`] scenarios, else
    /// counted on a seeded sample, with every undecidable pair the grid's axis values can give
    /// listed (one the sample missed with 0 scenarios); immediate when no scenario can name a
    /// language (no axis, merged value or fixed field gives `first_language`).
    #[must_use]
    pub fn of_selection(space: &ScenarioSpace, selection: &Selection) -> Self {
        let key = "first_language";
        let named = space.fixed().contains_key(key)
            || space.axes().iter().any(|a| {
                a.name == key || (a.merge && a.values.iter().any(|v| v.get(key).is_some()))
            });
        if !named {
            return Self::default();
        }
        let selected = space.selected_count(selection);
        if selected <= COVERAGE_EXACT {
            return Self::of(space.select(selection));
        }
        let probe = Selection {
            sample: Some(COVERAGE_SAMPLE),
            limit: None,
            ..*selection
        };
        let mut coverage = Self::of(space.select(&probe));
        let scale = |n: u64| {
            let n = n as f64 * selected as f64 / COVERAGE_SAMPLE as f64;
            n.round() as u64
        };
        coverage.scenarios = scale(coverage.scenarios);
        for pair in &mut coverage.undecidable {
            pair.scenarios = scale(pair.scenarios);
        }
        coverage.estimated = true;
        // The sample can miss a rare pair; the pairs themselves are known exactly from the
        // axis values, without walking the selection.
        for (first, second, script) in grid_pairs(space).unwrap_or_default() {
            let listed = coverage
                .undecidable
                .iter()
                .any(|p| (&p.first, &p.second, &p.script) == (&first, &second, &script));
            let hint = script.as_deref().and_then(|s| s.parse().ok());
            if let (false, Some(reason)) = (listed, unmeasurable_reason(&first, &second, hint)) {
                coverage.undecidable.push(UndecidablePair {
                    first,
                    second,
                    script,
                    scenarios: 0,
                    reason,
                });
            }
        }
        coverage
    }

    /// Reads the pairs of `scenarios` (a selection): cheap, no text is measured.
    pub fn of(scenarios: impl IntoIterator<Item = Scenario>) -> Self {
        let mut seen = 0_u64;
        // (first, second, script) → (scenarios, why the gate cannot decide).
        type Pair = (String, String, Option<String>);
        let mut pairs: BTreeMap<Pair, (u64, Option<String>)> = BTreeMap::new();
        for scenario in scenarios {
            let (Some(first), Some(second)) = (
                scenario.param_str("first_language"),
                scenario.param_str("second_language"),
            ) else {
                continue;
            };
            seen += 1;
            let script = scenario.param_str("script");
            let entry = pairs.entry((first, second, script)).or_insert_with_key(
                |(first, second, script)| {
                    let hint = script.as_deref().and_then(|s| s.parse().ok());
                    (0, unmeasurable_reason(first, second, hint))
                },
            );
            entry.0 += 1;
        }
        let mut undecidable: Vec<UndecidablePair> = pairs
            .into_iter()
            .filter_map(|((first, second, script), (scenarios, reason))| {
                Some(UndecidablePair {
                    first,
                    second,
                    script,
                    scenarios,
                    reason: reason?,
                })
            })
            .collect();
        undecidable.sort_by_key(|p| std::cmp::Reverse(p.scenarios));
        Self {
            scenarios: seen,
            undecidable,
            estimated: false,
        }
    }

    /// Selected scenarios whose pair the gate cannot decide.
    #[must_use]
    pub fn undecidable_scenarios(&self) -> u64 {
        self.undecidable.iter().map(|p| p.scenarios).sum()
    }

    /// What the gate will do with the selection, in words, for `settings`: `None` when the gate
    /// is off or can decide every pair (up to run-time coverage).
    #[must_use]
    pub fn warning(&self, settings: GateSettings) -> Option<String> {
        if !settings.enabled || self.undecidable.is_empty() {
            return None;
        }
        let n = self.undecidable_scenarios();
        let share = 100.0 * n as f64 / self.scenarios.max(1) as f64;
        let pairs = self.undecidable.len();
        let about = if self.estimated { "about " } else { "" };
        let mut out = format!(
            "the gate cannot decide {pairs} language pair{} of this selection: {about}{n} of \
             {about}{} scenarios ({share:.0}%{})",
            if pairs == 1 { "" } else { "s" },
            self.scenarios,
            if self.estimated {
                format!(", estimated from a sample of {COVERAGE_SAMPLE}")
            } else {
                String::new()
            }
        );
        for p in &self.undecidable {
            let script = p
                .script
                .as_deref()
                .map_or_else(String::new, |s| format!(" ({s})"));
            let count = if self.estimated && p.scenarios == 0 {
                "too rare for the sample to count".to_owned()
            } else {
                format!(
                    "{about}{} scenario{}",
                    p.scenarios,
                    if p.scenarios == 1 { "" } else { "s" }
                )
            };
            let _ = write!(
                out,
                "\n  {}–{}{script}: {count}: {}",
                p.first, p.second, p.reason
            );
        }
        out.push_str(match settings.undecided {
            GateUndecided::Judges => {
                "\n  their batches are accepted on the judges' scores alone (gate.undecided: \
                 judges); set `run: {gate: {undecided: reject}}` to refuse them"
            }
            GateUndecided::Auto => {
                "\n  their batches are accepted on the judges' scores alone (gate.undecided: \
                 auto leaves what the gate cannot measure to the judges); set \
                 `run: {gate: {undecided: reject}}` to refuse them"
            }
            GateUndecided::Reject => {
                "\n  every batch of these pairs will be refused (gate.undecided: reject) and paid \
                 for: leave them out of the grid, or set `gate: {undecided: judges}`"
            }
        });
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use codeswitch::{LanguageCounts, UntaggedCounts};
    use serde_json::{Value, json};

    use super::*;

    /// A measurement from the fields a test names, as a record holds them (absent counts are 0,
    /// the pair defaults to Hindi–English).
    fn typed(v: &Value) -> Measurement {
        let n = |v: Option<&Value>, k: &str| {
            v.and_then(|v| v.get(k))
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
        };
        let counts = |v: Option<&Value>| LanguageCounts {
            first: n(v, "first"),
            second: n(v, "second"),
        };
        let language = |v: &Value, k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .and_then(|s| s.parse::<Language>().ok())
        };
        let sentences = v
            .get("sentences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|s| SentenceMeasurement {
                words: 0,
                tagged: counts(s.get("tagged")),
                embedded_ratio: 0.0,
                switch_points: n(Some(s), "switch_points"),
                cmi: 0.0,
                inferred: counts(s.get("inferred")),
                uncertain: counts(s.get("uncertain")),
                ratio_range: None,
                starts_in: language(s, "starts_in"),
                ends_in: language(s, "ends_in"),
                romanized: s.get("romanized").and_then(Value::as_bool) == Some(true),
                tokens: Vec::new(),
            })
            .collect();
        Measurement {
            status: serde_json::from_value(v["status"].clone()).expect("a status"),
            status_reason: v
                .get("status_reason")
                .and_then(Value::as_str)
                .map(str::to_owned),
            coverage: None,
            first_language: language(v, "first_language").unwrap_or(Language::Hindi),
            second_language: language(v, "second_language").unwrap_or(Language::English),
            words: 0,
            tagged: counts(v.get("tagged")),
            untagged: UntaggedCounts {
                ambiguous: n(v.get("untagged"), "ambiguous"),
                ..UntaggedCounts::default()
            },
            embedded_ratio: 0.0,
            matrix_language: None,
            switch_points: n(Some(v), "switch_points"),
            cmi: 0.0,
            m_index: 0.0,
            i_index: 0.0,
            burstiness: None,
            sentences,
            third_language: v
                .get("third_language")
                .and_then(Value::as_str)
                .map(str::to_owned),
            ratio_range: None,
        }
    }

    fn m(status: &str, first: u64, second: u64, per_text: &[u64]) -> Measurement {
        typed(&json!({
            "status": status,
            "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": first, "second": second},
            "switch_points": per_text.iter().sum::<u64>(),
            "sentences": per_text.iter().map(|&s| json!({
                "switch_points": s,
                // One embedded word per switch point of the text, as "… one **two** …" has.
                "tagged": {"first": u64::from(first > 0), "second": if second > 0 { s } else { 0 }},
            })).collect::<Vec<_>>(),
        }))
    }

    #[test]
    fn a_monolingual_batch_fails_for_every_type() {
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = decide(
                GateSettings::default(),
                Some(&m("ok", 12, 0, &[0, 0, 0])),
                cs_type,
                false,
            );
            assert_eq!(v.passed, Some(false), "{cs_type:?}: {v:?}");
        }
    }

    #[test]
    fn intra_sentential_needs_a_switch_in_every_text() {
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 0, 1])),
            Some("intra-sentential"),
            false,
        );
        assert_eq!(v.passed, Some(false));
        assert!(v.reason.contains("text 2"), "{}", v.reason);
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 1, 1])),
            Some("Intrasentential"),
            false,
        );
        assert_eq!(v.passed, Some(true));
        // Other types: the batch as a whole.
        let v = decide(
            GateSettings::default(),
            Some(&m("ok", 10, 6, &[2, 0, 0])),
            Some("Intersentential"),
            false,
        );
        assert_eq!(v.passed, Some(true));
    }

    #[test]
    fn untrusted_measurements_never_fail_the_gate() {
        let unavailable =
            typed(&json!({"status": "unavailable", "status_reason": "romanized Chinese"}));
        let v = decide(GateSettings::default(), Some(&unavailable), None, false);
        assert_eq!(v.passed, None);
        assert!(v.reason.contains("romanized Chinese"));
        // Low coverage with no word that is or could be English (nothing tagged English,
        // nothing ambiguous) is monolingual whatever the coverage (review of issue 26).
        let v = decide(
            GateSettings::default(),
            Some(&m("low_coverage", 5, 0, &[0])),
            None,
            false,
        );
        assert_eq!(v.passed, Some(false));
        assert!(v.reason.contains("monolingual"), "{}", v.reason);
        // Nor pass it: the few tagged words may be look-alikes (Arabizi "el" is English to
        // the word list).
        // Undecided: the judges decide under `judges`; `auto` (the default) refuses a batch
        // it measured but cannot decide.
        let judges = GateSettings {
            undecided: GateUndecided::Judges,
            ..GateSettings::default()
        };
        let low = m("low_coverage", 5, 3, &[2]);
        assert_eq!(decide(judges, Some(&low), None, false).passed, None);
        let v = decide(GateSettings::default(), Some(&low), None, false);
        assert_eq!(v.passed, Some(false));
        assert!(v.reason.contains("gate.undecided is auto"), "{}", v.reason);
        // With nothing measured, `auto` leaves it to the judges too.
        assert_eq!(
            decide(GateSettings::default(), None, None, false).passed,
            None
        );
        let off = GateSettings {
            enabled: false,
            ..GateSettings::default()
        };
        assert_eq!(
            decide(off, Some(&m("ok", 5, 0, &[0])), None, false).passed,
            None
        );
    }

    /// Break-it findings: switches that rest only on inferred tags never pass; a language
    /// change between turns is a switch; `min_switch_points: 0` still needs a switch.
    #[test]
    fn inferred_evidence_turn_boundaries_and_a_zero_minimum() {
        let inferred_only = typed(&json!({
            "status": "ok", "tagged": {"first": 4, "second": 2}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 4, "second": 2},
                           "inferred": {"second": 2}}],
        }));
        for cs_type in [Some("Intrasentential"), None] {
            let v = decide(
                GateSettings::default(),
                Some(&inferred_only),
                cs_type,
                false,
            );
            // Issue 26: look-alikes ("red" in Spanish, "also" in German) are inferred; a batch
            // whose one language rests on them alone is refused: the gate could not tell.
            assert_eq!(v.passed, Some(false), "{v:?}");
            assert!(v.reason.contains("could not tell"), "{}", v.reason);
            assert!(v.reason.contains("look-alikes"), "{}", v.reason);
        }
        let turns = typed(&json!({
            "status": "ok", "tagged": {"first": 17, "second": 10}, "switch_points": 0,
            "sentences": [
                {"switch_points": 0, "tagged": {"first": 9}, "starts_in": "Spanish", "ends_in": "Spanish"},
                {"switch_points": 0, "tagged": {"second": 5}, "starts_in": "English", "ends_in": "English"},
                {"switch_points": 0, "tagged": {"first": 8}, "starts_in": "Spanish", "ends_in": "Spanish"},
                {"switch_points": 0, "tagged": {"second": 5}, "starts_in": "English", "ends_in": "English"},
            ],
        }));
        let v = decide(
            GateSettings::default(),
            Some(&turns),
            Some("Intersentential"),
            true,
        );
        assert_eq!(v.passed, Some(true), "{v:?}");
        // Separate items of a single-turn batch are not one discourse.
        let v = decide(
            GateSettings::default(),
            Some(&turns),
            Some("Intersentential"),
            false,
        );
        assert_eq!(v.passed, Some(false), "{v:?}");
        let zero = GateSettings {
            min_switch_points: 0,
            ..GateSettings::default()
        };
        let v = decide(
            zero,
            Some(&m("ok", 12, 0, &[0, 0, 0])),
            Some("Intrasentential"),
            false,
        );
        assert_eq!(v.passed, Some(false), "{v:?}");
    }

    /// Break-it finding: Latin gibberish in an Arabic–English scenario had low coverage and was
    /// accepted by the judges; with no Arabic-script word, Arabic is certainly absent.
    #[test]
    fn a_script_language_with_no_word_fails_even_on_low_coverage() {
        let latin_only = typed(&json!({
            "status": "low_coverage", "first_language": "Arabic", "second_language": "English",
            "tagged": {"first": 0, "second": 5}, "switch_points": 0,
            "sentences": [{"switch_points": 0, "tagged": {"second": 5}}],
        }));
        let v = decide(GateSettings::default(), Some(&latin_only), None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert!(v.reason.contains("no Arabic word"), "{}", v.reason);
        // Romanized Hindi has a detector: its untagged words may be Hindi, so the script rule
        // does not apply; with no firm Hindi word the gate could not tell, and refuses.
        let hindi = typed(&json!({
            "status": "low_coverage", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 0, "second": 5}, "untagged": {"ambiguous": 3}, "switch_points": 0,
            "sentences": [{"switch_points": 0, "tagged": {"second": 5}}],
        }));
        let v = decide(GateSettings::default(), Some(&hindi), None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert!(v.reason.contains("could not tell"), "{}", v.reason);
    }

    /// `gate.undecided: reject` turns every undecided verdict into a refusal that says it was
    /// undecided and why; a decided verdict and a gate that is off are unchanged.
    #[test]
    fn reject_policy_refuses_what_the_gate_cannot_decide() {
        let reject = GateSettings {
            undecided: GateUndecided::Reject,
            ..GateSettings::default()
        };
        let unavailable =
            typed(&json!({"status": "unavailable", "status_reason": "romanized Chinese"}));
        let v = decide(reject, Some(&unavailable), None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert_eq!(
            v.reason,
            "undecided (romanized Chinese), and gate.undecided is reject"
        );
        let v = decide(reject, None, None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert!(
            v.reason.starts_with("undecided (no measurement"),
            "{}",
            v.reason
        );
        let low = m("low_coverage", 5, 3, &[2]);
        assert_eq!(decide(reject, Some(&low), None, false).passed, Some(false));
        // Decided verdicts are the same under both policies.
        for measurement in [m("ok", 10, 6, &[2, 1, 1]), m("ok", 12, 0, &[0, 0, 0])] {
            assert_eq!(
                decide(reject, Some(&measurement), None, false),
                decide(GateSettings::default(), Some(&measurement), None, false)
            );
        }
        let off = GateSettings {
            enabled: false,
            ..reject
        };
        assert_eq!(decide(off, Some(&unavailable), None, false).passed, None);
    }

    fn scenario(index: u64, params: &Value) -> Scenario {
        let params = params
            .as_object()
            .expect("an object")
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Scenario {
            id: format!("s{index}"),
            index,
            params,
        }
    }

    /// The pairs the gate cannot decide are known from the parameters alone: an unknown
    /// language, two names of one language, romanized text without a detector.
    #[test]
    fn coverage_names_the_pairs_the_gate_cannot_decide() {
        let grid = [
            json!({"first_language": "Hindi", "second_language": "English", "script": "romanized"}),
            json!({"first_language": "Chinese", "second_language": "English", "script": "romanized"}),
            json!({"first_language": "Chinese", "second_language": "English", "script": "romanized"}),
            json!({"first_language": "Chinese", "second_language": "English"}),
            json!({"first_language": "Cantonese", "second_language": "Mandarin"}),
            json!({"first_language": "Swahili", "second_language": "English"}),
            json!({"topic": "no languages"}),
        ];
        let coverage =
            GateCoverage::of(grid.iter().enumerate().map(|(i, p)| scenario(i as u64, p)));
        assert_eq!(coverage.scenarios, 6);
        assert_eq!(coverage.undecidable_scenarios(), 4);
        let first = &coverage.undecidable[0];
        assert_eq!(
            (
                first.first.as_str(),
                first.script.as_deref(),
                first.scenarios
            ),
            ("Chinese", Some("romanized"), 2)
        );
        let warning = coverage
            .warning(GateSettings::default())
            .expect("a warning");
        assert!(
            warning.starts_with(
                "the gate cannot decide 3 language pairs of this selection: 4 of 6 scenarios (67%)"
            ),
            "{warning}"
        );
        assert!(warning.contains("Swahili–English: 1 scenario: the measurement does not know the language \"Swahili\""), "{warning}");
        assert!(
            warning.contains(
                "Cantonese–Mandarin: 1 scenario: Cantonese and Mandarin are both Chinese"
            ),
            "{warning}"
        );
        assert!(warning.contains("undecided: reject"), "{warning}");
        let reject = GateSettings {
            undecided: GateUndecided::Reject,
            ..GateSettings::default()
        };
        assert!(
            coverage
                .warning(reject)
                .expect("a warning")
                .contains("will be refused")
        );
        let off = GateSettings {
            enabled: false,
            ..GateSettings::default()
        };
        assert_eq!(coverage.warning(off), None);
        let decidable = GateCoverage::of([scenario(0, &grid[0]), scenario(1, &grid[3])]);
        assert_eq!(decidable.warning(GateSettings::default()), None);
    }

    fn huge_config(language_pairs: &str) -> scenarios::ScenarioConfig {
        let mut yaml = String::from(language_pairs);
        yaml.push_str("axes:\n");
        for axis in 0..4 {
            let values: Vec<String> = (0..100).map(|v| format!("v{v}")).collect();
            yaml.push_str(&format!("  a{axis}: [{}]\n", values.join(", ")));
        }
        scenarios::parse_config(std::path::Path::new("huge.yaml"), &yaml).expect("config")
    }

    /// A selection of hundreds of millions is estimated from a sample (plan stays instant), and
    /// a grid that names no language is not walked at all.
    #[test]
    fn coverage_of_a_huge_selection_is_estimated_from_a_sample() {
        let cfg = huge_config(
            "language_pairs:\n  - {first_language: Spanish, second_language: English}\n  \
             - {first_language: Swahili, second_language: English}\n",
        );
        let coverage = GateCoverage::of_selection(&cfg.space, &cfg.selection);
        assert!(coverage.estimated);
        assert_eq!(coverage.scenarios, 200_000_000);
        let tagalog = coverage.undecidable_scenarios();
        assert!((90_000_000..=110_000_000).contains(&tagalog), "{tagalog}");
        let warning = coverage.warning(GateSettings::default()).expect("warning");
        assert!(
            warning.contains("of about 200000000 scenarios"),
            "{warning}"
        );
        assert!(
            warning.contains("estimated from a sample of 20000"),
            "{warning}"
        );
        let unnamed = huge_config("");
        assert_eq!(
            GateCoverage::of_selection(&unnamed.space, &unnamed.selection),
            GateCoverage::default()
        );
    }

    /// A pair too rare for the sample of a huge selection is still listed: the pairs come from
    /// the axis values, never from walking the selection; its count says it was not counted.
    #[test]
    fn coverage_of_a_huge_selection_lists_a_pair_the_sample_misses() {
        // Swahili survives only where a0, a1 and a2 are all v0: 100 of 200,000,000 scenarios.
        let rest: Vec<String> = (1..100).map(|v| format!("v{v}")).collect();
        let mut yaml = String::from(
            "language_pairs:\n  - {first_language: Spanish, second_language: English}\n  \
             - {first_language: Swahili, second_language: English}\nexclude:\n",
        );
        for axis in 0..3 {
            yaml.push_str(&format!(
                "  - {{first_language: Swahili, a{axis}: [{}]}}\n",
                rest.join(", ")
            ));
        }
        yaml.push_str("axes:\n");
        for axis in 0..4 {
            let values: Vec<String> = (0..100).map(|v| format!("v{v}")).collect();
            yaml.push_str(&format!("  a{axis}: [{}]\n", values.join(", ")));
        }
        let cfg =
            scenarios::parse_config(std::path::Path::new("rare.yaml"), &yaml).expect("config");
        let coverage = GateCoverage::of_selection(&cfg.space, &cfg.selection);
        assert!(coverage.estimated);
        let warning = coverage
            .warning(GateSettings::default())
            .expect("a warning");
        assert!(
            warning.contains("Swahili–English: too rare for the sample to count: the measurement"),
            "{warning}"
        );
        assert_eq!(coverage.undecidable.len(), 1, "{coverage:?}");
    }

    /// Issue 26: a batch whose words look like a third language (Portuguese in Spanish–English)
    /// fails, even though its status is only `low_coverage`.
    #[test]
    fn a_third_language_fails_the_gate() {
        let portuguese = typed(&json!({
            "status": "low_coverage", "first_language": "Spanish", "second_language": "English",
            "status_reason": "14 of 20 words look Portuguese (or another third language), not Spanish or English",
            "third_language": "Portuguese",
            "tagged": {"first": 10, "second": 3}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 10, "second": 3}}],
        }));
        let v = decide(GateSettings::default(), Some(&portuguese), None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert!(
            v.reason.contains("14 of 20 words look Portuguese"),
            "{}",
            v.reason
        );
    }

    /// Issue 26: a batch whose only evidence of a language is words of uncertain language is
    /// refused whatever the coverage and the `gate.undecided` policy, and the reason says the
    /// gate could not tell (not that the batch is monolingual: a real switch resting on
    /// look-alikes alone looks the same). Before, a `low_coverage` one was left to the judges.
    #[test]
    fn only_uncertain_evidence_of_a_language_is_refused_as_could_not_tell() {
        let mut low = typed(&json!({
            "status": "low_coverage", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 0, "second": 5}, "switch_points": 0,
            "sentences": [{"switch_points": 0, "tagged": {"second": 5}, "romanized": true}],
        }));
        low.untagged.ambiguous = 4;
        let only_look_alikes = typed(&json!({
            "status": "ok", "first_language": "German", "second_language": "English",
            "tagged": {"first": 6, "second": 2}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 6, "second": 2},
                           "inferred": {"second": 1}, "uncertain": {"second": 2}}],
        }));
        for m in [&low, &only_look_alikes] {
            for settings in [
                GateSettings::default(),
                GateSettings {
                    undecided: GateUndecided::Reject,
                    ..GateSettings::default()
                },
            ] {
                for cs_type in [None, Some("Intrasentential")] {
                    let v = decide(settings, Some(m), cs_type, false);
                    assert_eq!(v.passed, Some(false), "{v:?}");
                    assert!(v.reason.contains("could not tell"), "{}", v.reason);
                    assert!(!v.reason.contains("monolingual:"), "{}", v.reason);
                }
            }
        }
        let v = decide(GateSettings::default(), Some(&low), None, false);
        assert!(v.reason.contains("any Hindi"), "{}", v.reason);
        let v = decide(
            GateSettings::default(),
            Some(&only_look_alikes),
            None,
            false,
        );
        assert!(v.reason.contains("any English"), "{}", v.reason);
    }

    /// Second break-it round: one single-list word of romanized text ("pass" in "Mere pass paise
    /// nahi hai", the name "Priya") is not enough for a pass.
    #[test]
    fn romanized_text_needs_two_firm_words_of_each_language() {
        let one_english = typed(&json!({
            "status": "ok", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 4, "second": 1}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 4, "second": 1}, "romanized": true}],
        }));
        let judges = GateSettings {
            undecided: GateUndecided::Judges,
            ..GateSettings::default()
        };
        for cs_type in [Some("Intrasentential"), None] {
            let v = decide(judges, Some(&one_english), cs_type, false);
            assert_eq!(v.passed, None, "{v:?}");
            // `auto` (the default) refuses what it measured but cannot decide.
            let v = decide(GateSettings::default(), Some(&one_english), cs_type, false);
            assert_eq!(v.passed, Some(false), "{v:?}");
        }
        let two = typed(&json!({
            "status": "ok", "first_language": "Hindi", "second_language": "English",
            "tagged": {"first": 4, "second": 2}, "switch_points": 2,
            "sentences": [{"switch_points": 2, "tagged": {"first": 4, "second": 2}, "romanized": true}],
        }));
        let v = decide(
            GateSettings::default(),
            Some(&two),
            Some("Intrasentential"),
            false,
        );
        assert_eq!(v.passed, Some(true), "{v:?}");
    }
}
