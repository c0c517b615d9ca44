//! Text around the writer's words that nobody switched into (issue 26, round M, shaped by
//! probe set 26p): the generating model's own chatter about its output ("Sure! Here's the text
//! you asked for:", "I hope this helps!", "Output:"), a review site's machine translation
//! beside the original ("(Translated by Google) … (Original) …"), a social network's automatic
//! image description ("May be an image of 2 people and cake"), and the labels of an interview
//! or a post at the start of a line ("Interviewer:", "Edit:", "Pros:", "Step 1:"). They are in
//! English whatever language the writer wrote in, so they are no evidence of a switch; the
//! tagger reads them as it reads a link, as no word of either language ([`spans`]).

use std::sync::LazyLock;

use regex::Regex;
use unicode_script::UnicodeScript;

/// The generating model talking about what it wrote: a lead-in ("Here's the text you asked
/// for:", "Here is another example:"), an offer or a closing ("Would you like me to translate
/// this into English?", "I hope this helps!", "Let me know if you'd like more"), with an
/// interjection before it ("Sure!"), and a bare label of the output at a line's start
/// ("Output:", "Example 2:").
static CHATTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?imx)
        (?:\b(?:sure|certainly|of\ course|absolutely|okay|ok|great)\s*[!,.]\s*)?
        (?:
          \bhere(?:'s|’s|\ is|\ are)\ (?:the|your|another|some|a\ few|more|\d+)\b[^.!?:\n]{0,60}?
            \b(?:texts?|sentences?|examples?|versions?|translations?|paragraphs?|lines|messages?|dialogues?|conversations?|story|stories|output|responses?)\b
            [^.!?:\n]{0,40}?[:.!]
          | \b(?:i\ )?hope\ (?:this|that|these|it)\ helps?\b[^.!?\n]{0,30}[.!]?
          | \bwould\ you\ like\ me\ to\ (?:translate|write|generate|make|create|add|continue|explain|adjust|rewrite)\b[^.!?\n]{0,80}[?.!]?
          | \blet\ me\ know\ if\ you(?:'d|’d|\ would)\ like\b[^.!?\n]{0,80}[.!?]?
          | \blet\ me\ know\ if\ you\ need\ (?:anything|more|any|another|other)\b[^.!?\n]{0,80}[.!?]?
          | ^[\ \t]*(?:output|answer|response|result|example|sentence|text)\s*\d*\s*:
        )",
    )
    .expect("the chatter pattern compiles")
});

/// A review site's marks of a machine translation: the translation runs from its mark to the
/// mark of the original, or to the end of the line.
const TRANSLATION_MARKS: &[&str] = &[
    "(translated by google)",
    "(translated by bing)",
    "（google による翻訳）",
    "(google による翻訳)",
    "（由 google 翻译）",
    "(由 google 翻译)",
    "(traducido por google)",
    "(traduit par google)",
    "(übersetzt von google)",
    "(tradotto da google)",
    "(traduzido pelo google)",
];

/// The marks of the original beside a machine translation.
const ORIGINAL_MARKS: &[&str] = &["(original)", "（原文）", "(原文)", "（原文)", "(原文）"];

/// A social network's automatic description of a photo, to the end of its sentence.
static ALT_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:may be (?:an? )?(?:image|closeup|close-up|graphic|illustration|cartoon|screenshot|meme) of|image may contain)\b[^.!?\n]*[.!?]?",
    )
    .expect("the image-description pattern compiles")
});

/// Labels that open a line of an interview, a transcript or a post, followed by a colon.
const LINE_LABELS: &[&str] = &[
    "interviewer",
    "interviewee",
    "respondent",
    "moderator",
    "host",
    "guest",
    "speaker",
    "participant",
    "caller",
    "agent",
    "customer",
    "q",
    "a",
    "edit",
    "update",
    "pros",
    "cons",
    "tl;dr",
    "tldr",
    "disclaimer",
    "spoiler",
    "step",
    "day",
    "part",
    "ps",
    "p.s",
    "tip",
    "note",
];

/// A line quoted from someone else above the writer's reply: a mail or forum quote ("> Can you
/// send the file tonight?") or a retweet ("RT @dailyquotes: Never give up."), to its end.
static QUOTED_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*(?:>|RT @\w+:)[^\n]*").expect("the quoted-line pattern compiles")
});

/// The names of mathematical functions ("sin x", "cos x = 0,6", "log по основанию 2", "max
/// функции"): notation, when what follows is no Latin word.
static MATH_FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:sin|cos|tan|tg|ctg|cot|sec|csc|log|ln|lg|exp|max|min|lim|arcsin|arccos|arctan|arctg|sinh|cosh|tanh|det|gcd)\b",
    )
    .expect("the function pattern compiles")
});

/// A guitar chord's name ("Am", "F", "Fmaj7", "C#m", "G/B").
static CHORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b[A-G][#♯b♭]?(?:maj7|maj|min|m7|m|dim|aug|sus2|sus4|add9|7|9|6)?(?:/[A-G][#♯b♭]?)?(?:[^\w#♯♭/]|$)",
    )
    .expect("the chord pattern compiles")
});

/// Byte ranges of `text` that are scaffolding, not the writer's words (see the module docs).
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = CHATTER
        .find_iter(text)
        .chain(ALT_TEXT.find_iter(text))
        .chain(QUOTED_LINE.find_iter(text))
        .map(|m| (m.start(), m.end()))
        .collect();
    out.extend(machine_translations(text));
    out.extend(line_labels(text));
    out.extend(notation(text));
    out
}

/// Mathematical functions and guitar chords in a text that holds another script than Latin
/// ("Найдите sin x, если cos x = 0,6", "играется на Am, потом F, C и G"): notation, not English.
/// A function counts when what follows it is no Latin word of two letters or more (its
/// variable, a number, a bracket, a word of the other script); chords when the text names two
/// or more, one of them more than a bare letter.
fn notation(text: &str) -> Vec<(usize, usize)> {
    let other_script = text
        .chars()
        .any(|c| c.is_alphabetic() && !c.is_ascii() && c.script() != unicode_script::Script::Latin);
    if !other_script {
        return Vec::new();
    }
    let mut out: Vec<(usize, usize)> = MATH_FUNCTION
        .find_iter(text)
        .filter(|m| {
            let next: String = text[m.end()..]
                .trim_start()
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            next.chars().count() < 2
        })
        .map(|m| (m.start(), m.end()))
        .collect();
    let chords: Vec<(usize, usize)> = CHORD
        .find_iter(text)
        .map(|m| {
            let name = m
                .as_str()
                .trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '#'));
            (m.start(), m.start() + name.len())
        })
        .collect();
    if chords.len() >= 2 && chords.iter().any(|&(a, b)| b - a > 1) {
        out.extend(chords);
    }
    out
}

/// The machine translations of `text`: from each translation mark to the next mark of the
/// original (its mark included) or the end of the line.
fn machine_translations(text: &str) -> Vec<(usize, usize)> {
    // Lower-casing keeps byte offsets for these marks only when the text is unchanged in length.
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for mark in TRANSLATION_MARKS {
        for (at, _) in lower.match_indices(mark) {
            let rest = &lower[at + mark.len()..];
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let end = ORIGINAL_MARKS
                .iter()
                .filter_map(|o| rest[..line_end].find(o).map(|i| i + o.len()))
                .min()
                .unwrap_or(line_end);
            out.push((at, at + mark.len() + end));
        }
    }
    for mark in ORIGINAL_MARKS {
        out.extend(lower.match_indices(mark).map(|(at, m)| (at, at + m.len())));
    }
    out
}

/// The labels that open a line or follow a sentence's end ([`LINE_LABELS`], with a number after
/// "step", "day", "part" or "speaker": "Edit: Der Zug fährt doch. Update: Jetzt stehen wir …"),
/// their colon included.
fn line_labels(text: &str) -> Vec<(usize, usize)> {
    let mut starts = vec![0];
    let mut previous: Option<char> = None;
    for (at, c) in text.char_indices() {
        if let Some(p) = previous
            && !c.is_whitespace()
            && (p == '\n' || (p.is_whitespace() && ends_sentence_before(text, at)))
        {
            starts.push(at);
        }
        previous = Some(c);
    }
    starts
        .into_iter()
        .filter_map(|from| {
            let body = text[from..].trim_start();
            let from = text.len() - body.len();
            let colon = body.find(':').filter(|&c| c <= 24)?;
            let label = body[..colon].trim().to_lowercase();
            let head = label.trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ');
            let numbered = head.len() < label.len();
            (LINE_LABELS.contains(&label.as_str())
                || (numbered && ["step", "day", "part", "speaker"].contains(&head)))
            .then_some((from, from + colon + 1))
        })
        .collect()
}

/// Whether the last character before the whitespace that ends at `at` ends a sentence.
fn ends_sentence_before(text: &str, at: usize) -> bool {
    text[..at]
        .trim_end()
        .chars()
        .next_back()
        .is_some_and(super::words::ends_sentence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(text: &str) -> Vec<&str> {
        spans(text).into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn chatter_translations_descriptions_and_labels_are_found() {
        assert_eq!(
            covered("Sure! Here's the text you asked for: Mañana vamos a la playa."),
            ["Sure! Here's the text you asked for:"]
        );
        assert_eq!(
            covered("Hoy cociné lentejas. I hope this helps!"),
            ["I hope this helps!"]
        );
        assert_eq!(
            covered("(Translated by Google) Great pizza. (Original) Pizza ottima."),
            [
                "(Translated by Google) Great pizza. (Original)",
                "(Original)"
            ]
        );
        assert_eq!(
            covered("Salamat! May be an image of 2 people and cake."),
            ["May be an image of 2 people and cake."]
        );
        assert_eq!(
            covered("Interviewer: منذ متى؟\nStep 2: ابدأ"),
            ["Interviewer:", "Step 2:"]
        );
        assert_eq!(
            covered("Edit: Der Zug fährt doch. Update: Jetzt stehen wir vor Fulda."),
            ["Edit:", "Update:"]
        );
    }

    #[test]
    fn quotes_of_others_and_notation_are_found() {
        assert_eq!(
            covered("> Can you send it tonight?\nBisa, nanti malam."),
            ["> Can you send it tonight?"]
        );
        assert_eq!(
            covered("RT @daily: Never give up.\nSetuju banget."),
            ["RT @daily: Never give up."]
        );
        assert_eq!(covered("Найдите sin x, если cos x = 0,6."), ["sin", "cos"]);
        assert_eq!(covered("Вступление на Am, потом F и G."), ["Am", "F", "G"]);
    }

    #[test]
    fn the_writers_own_english_is_left() {
        for text in [
            "Te mando el link, let me see if it works.",
            "Here we go, vamos a empezar.",
            "Edited the file y lo subí.",
            "Honestly: no voy a ir.",
            "Mi jefe dijo: we need it by Monday.",
            "Te mando las fotos, let me know if you like them.",
            "Я сделал log in и всё заработало.",
            "A big day: we met at the café.",
        ] {
            assert!(covered(text).is_empty(), "{text}: {:?}", covered(text));
        }
    }
}
