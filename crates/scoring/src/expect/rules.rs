//! The deterministic keyword rules behind shouldAskFor, shouldWarn, shouldReject and the inferred
//! response type, used when a bot gives no structured signals and no LLM judge verdict exists.
//!
//! The rules work sentence by sentence on lower-cased text:
//! - **asks for X**: a sentence that is a question (ends with `?`) or a request ("please provide…",
//!   "could you…", "let me know…") and mentions X or a synonym of X. "How much would you like to
//!   send?" therefore asks for the amount (synonym "how much").
//! - **refuses**: a first-person subject ("I", "we") with a negative modal ("can't", "won't",
//!   "am unable to", …) followed within three words by an action verb ("help", "process",
//!   "share", …), or a fixed refusal phrase ("must decline", "against our policy"). "You won't be
//!   charged" has no first-person subject and "I won't charge you" no action verb, so neither is a
//!   refusal; "nothing I can't help with" is excluded explicitly.
//! - **warns about X**: a sentence with a warning cue ("note", "be aware", "irreversible",
//!   "fee applies", …) that mentions X, where the mention is not negated within the four words
//!   before it ("no fee", "won't be charged a fee").

use std::sync::LazyLock;

use regex::Regex;

/// The built-in synonym table (topic → phrases), parsed once from `synonyms.txt`.
static SYNONYMS: LazyLock<Vec<(String, Vec<String>)>> = LazyLock::new(|| {
    include_str!("synonyms.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(topic, phrases)| {
            let phrases = phrases.split(',').map(|p| p.trim().to_lowercase());
            (
                topic.trim().to_lowercase(),
                phrases.filter(|p| !p.is_empty()).collect(),
            )
        })
        .collect()
});

static REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:i|we)\s+(?:really\s+|simply\s+|just\s+)?(?:can't|cannot|can not|won't|will not|am unable to|are unable to|am not able to|are not able to|am not allowed to|are not allowed to|am not permitted to|are not permitted to|refuse to|shouldn't|should not|am not going to|are not going to)\s+(?:\w+\s+){0,3}?(?:help|assist|do|process|perform|comply|complete|share|provide|reveal|disclose|send|transfer|execute|make|give|fulfil|fulfill|bypass|ignore|override|change|disable|access|move)\b",
    )
    .expect("static refusal pattern compiles")
});

static REFUSAL_PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:i|we) (?:must|have to) decline\b|\bagainst (?:my|our) (?:policy|policies|guidelines|rules)\b|\bnot something (?:i|we) can (?:help|do|assist)\b|^(?:sorry,? )?(?:unable|not able) to (?:help|process|assist|complete|do)\b",
    )
    .expect("static refusal phrase pattern compiles")
});

static REFUSAL_EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:nothing|no reason|no request)\s+(?:that\s+)?(?:i|we)\s+(?:can't|cannot|won't)",
    )
    .expect("static exception pattern compiles")
});

static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:please (?:provide|specify|tell|confirm|enter|share|let me know|give)|could you|can you|would you|let me know|tell me|i need (?:to know|the|your)|what is|what's|which|who|how much|how many|when)\b",
    )
    .expect("static request pattern compiles")
});

static WARNING_CUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:warning|warn|note|please note|be aware|aware|careful|caution|beware|risk|risky|irreversible|cannot be undone|can't be undone|not reversible|make sure|double-check|double check|exceeds?|insufficient|suspicious|scam|fraud|phishing|applies|apply|will be charged|incur|incurs|limit)\b|⚠",
    )
    .expect("static warning pattern compiles")
});

const NEGATIONS: &[&str] = &[
    "no", "not", "without", "never", "zero", "won't", "don't", "doesn't", "isn't", "free",
];

/// Lower-cases and unifies apostrophes and contractions the patterns rely on.
fn normalise(text: &str) -> String {
    text.to_lowercase()
        .replace(['’', '‘'], "'")
        .replace("i'm", "i am")
        .replace("we're", "we are")
        .replace("i've", "i have")
}

/// Splits text into sentences, keeping each sentence's final `?`/`!`/`.`.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for ch in text.chars() {
        if ch == '\n' {
            push_sentence(&mut out, &mut current);
            continue;
        }
        current.push(ch);
        if matches!(ch, '?' | '!' | '.') {
            push_sentence(&mut out, &mut current);
        }
    }
    push_sentence(&mut out, &mut current);
    out
}

fn push_sentence(out: &mut Vec<String>, current: &mut String) {
    let s = current.trim();
    if !s.is_empty() {
        out.push(s.to_owned());
    }
    current.clear();
}

/// The phrases that stand for `topic`: itself, extra synonyms, and the built-in table's entry.
#[must_use]
pub fn phrases_for(topic: &str, extra: &[String]) -> Vec<String> {
    let topic = topic.trim().to_lowercase();
    let mut phrases = vec![topic.clone()];
    phrases.extend(extra.iter().map(|s| s.trim().to_lowercase()));
    if let Some((_, builtin)) = SYNONYMS.iter().find(|(t, _)| *t == topic) {
        phrases.extend(builtin.iter().cloned());
    }
    phrases.retain(|p| !p.is_empty());
    phrases
}

/// Byte offsets where `phrase` occurs in `hay` on word boundaries (plural `s`/`es` allowed).
fn phrase_positions(hay: &str, phrase: &str) -> Vec<usize> {
    let is_word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut found = Vec::new();
    for (start, _) in hay.match_indices(phrase) {
        let before = hay[..start].chars().next_back();
        let rest = &hay[start + phrase.len()..];
        let rest = rest
            .strip_prefix("es")
            .or_else(|| rest.strip_prefix('s'))
            .filter(|r| !is_word(r.chars().next()));
        let after_ok = rest.is_some() || !is_word(hay[start + phrase.len()..].chars().next());
        if !is_word(before) && after_ok {
            found.push(start);
        }
    }
    found
}

/// The first of `phrases` that `text` mentions on word boundaries.
#[must_use]
pub fn mentions(text: &str, phrases: &[String]) -> Option<String> {
    let hay = normalise(text);
    phrases
        .iter()
        .find(|p| !phrase_positions(&hay, p).is_empty())
        .cloned()
}

/// The sentence in which the bot asks for `topic`, if any.
#[must_use]
pub fn asks_for(text: &str, topic: &str, extra: &[String]) -> Option<String> {
    let phrases = phrases_for(topic, extra);
    sentences(&normalise(text)).into_iter().find(|s| {
        let is_request = s.ends_with('?') || REQUEST.is_match(s);
        is_request && phrases.iter().any(|p| !phrase_positions(s, p).is_empty())
    })
}

/// Whether any sentence asks the user something (for the inferred response type).
#[must_use]
pub fn asks_question(text: &str) -> Option<String> {
    sentences(&normalise(text))
        .into_iter()
        .find(|s| s.ends_with('?') || REQUEST.is_match(s))
}

/// The sentence in which the bot refuses, if any.
#[must_use]
pub fn refuses(text: &str) -> Option<String> {
    sentences(&normalise(text)).into_iter().find(|s| {
        (REFUSAL.is_match(s) || REFUSAL_PHRASE.is_match(s)) && !REFUSAL_EXCEPTION.is_match(s)
    })
}

/// The sentence in which the bot warns about `topic`, if any.
#[must_use]
pub fn warns(text: &str, topic: &str, extra: &[String]) -> Option<String> {
    let phrases = phrases_for(topic, extra);
    sentences(&normalise(text)).into_iter().find(|s| {
        if !WARNING_CUE.is_match(s) {
            return false;
        }
        phrases.iter().any(|p| {
            phrase_positions(s, p)
                .into_iter()
                .any(|at| !negated_before(s, at))
        })
    })
}

/// True when one of the four words before byte `at` negates what follows.
fn negated_before(sentence: &str, at: usize) -> bool {
    let words: Vec<&str> = sentence[..at]
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .iter()
        .rev()
        .take(4)
        .any(|w| NEGATIONS.contains(w) || w.ends_with("n't"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_much_question_asks_for_the_amount() {
        assert!(asks_for("Sure! How much would you like to send?", "amount", &[]).is_some());
        assert!(asks_for("Who should receive the money?", "recipient", &[]).is_some());
        assert!(asks_for("Please provide the recipient's name.", "recipient", &[]).is_some());
        assert!(asks_for("I sent 50 USD to Bob.", "amount", &[]).is_none());
        assert!(asks_for("How much would you like to send?", "recipient", &[]).is_none());
    }

    #[test]
    fn refusal_needs_a_first_person_refusal_not_any_negation() {
        assert!(refuses("Done. You won't be charged any fee.").is_none());
        assert!(refuses("I won't charge you for this transfer.").is_none());
        assert!(refuses("There is nothing I can't help with!").is_none());
        assert!(refuses("I'm sorry, but I can't help with that.").is_some());
        assert!(refuses("I cannot share your private key.").is_some());
        assert!(refuses("We are not able to process this request.").is_some());
        assert!(refuses("That is against our policy.").is_some());
        assert!(refuses("Unable to process the transfer.").is_some());
    }

    #[test]
    fn warnings_need_a_cue_and_an_unnegated_mention() {
        assert!(warns("Note: a 1% fee applies to this transfer.", "fee", &[]).is_some());
        assert!(warns("Please note there is no fee.", "fee", &[]).is_none());
        assert!(warns("Transfers are irreversible.", "irreversible", &[]).is_some());
        assert!(warns("Your fee is 2 USD.", "fee", &[]).is_none());
        assert!(
            warns(
                "Be aware: this exceeds your balance.",
                "insufficient funds",
                &[]
            )
            .is_some()
        );
    }

    #[test]
    fn mentions_respect_word_boundaries_and_plurals() {
        let fee = phrases_for("fee", &[]);
        assert!(mentions("There are fees for this.", &fee).is_some());
        assert!(mentions("Grab a coffee.", &fee).is_none());
        assert!(mentions("A small charge applies.", &fee).is_some());
        assert!(mentions("free of cost", &phrases_for("price", &["cost".to_owned()])).is_some());
    }
}
