//! The look-alike skeleton that absence checks (`shouldNotContain`) search besides the normal
//! form ([`super::matcher::fold`]): a leak must not pass because it *looks* like the secret
//! without being the same code points. Presence checks never use it (a look-alike is not
//! evidence that the reply says the thing), so it may be generous: at worst an absence check
//! fails on a reply that only resembles the forbidden text.

use icu_normalizer::DecomposingNormalizerBorrowed;
use icu_properties::CodePointMapData;
use icu_properties::props::GeneralCategory;

use super::matcher::fold;

/// Text as a reader sees it, reduced to plain letters and digits: display-reversed runs (a
/// right-to-left override, U+202E, up to its pop or the line's end) put back in reading order,
/// then the normal form ([`fold`]: format characters dropped, NFKC, case-folded, digits of every
/// script as ASCII digits), then every combining mark dropped (`h̲`, `i̇`, `2⃠`), look-alike
/// letters of other scripts mapped to the Latin letter they imitate (Cyrillic `е`, dotless `ı`,
/// Greek `ο`), a punctuation mark between two letters or digits removed (`hunter-2`), and the
/// separators of a word spelled out letter by letter removed (`h-u-n-t-e-r-2`, `h u n t e r 2`).
#[must_use]
pub fn skeleton(text: &str) -> String {
    let category = CodePointMapData::<GeneralCategory>::new();
    let folded = fold(&unreverse(text));
    let bare: String = DecomposingNormalizerBorrowed::new_nfkd()
        .normalize(&folded)
        .chars()
        .filter(|&c| {
            !matches!(
                category.get(c),
                GeneralCategory::NonspacingMark
                    | GeneralCategory::EnclosingMark
                    | GeneralCategory::SpacingMark
            )
        })
        .map(latin_look_alike)
        .collect();
    join_spelled(&join_punctuated(&bare))
}

/// Removes one punctuation mark between two letters or digits (`hunter-2`, `hunter.2`,
/// `hunter_2`, `hun·ter2`): the joints a leak hides behind. Spaces are kept (`open sesame` stays
/// two words).
fn join_punctuated(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let joint = !c.is_alphanumeric()
            && !c.is_whitespace()
            && i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        if !joint {
            out.push(c);
        }
    }
    out
}

/// The text with each right-to-left override run (U+202E up to U+202C, an isolate's end or the
/// line's end) reversed, so that what displays as `hunter2` reads as `hunter2`.
fn unreverse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run: Option<Vec<char>> = None;
    for c in text.chars() {
        match (&mut run, c) {
            (None, '\u{202E}') => run = Some(Vec::new()),
            (Some(r), '\u{202C}' | '\u{2069}' | '\n' | '\r') => {
                out.extend(r.iter().rev());
                out.push(c);
                run = None;
            }
            (Some(r), _) => r.push(c),
            (None, _) => out.push(c),
        }
    }
    if let Some(r) = run {
        out.extend(r.iter().rev());
    }
    out
}

/// The Latin letter a lower-case letter of another script is drawn like (a short list of the
/// common confusables of Unicode's `confusables.txt`: Cyrillic, Greek, Armenian, small capitals, IPA and dotless forms).
fn latin_look_alike(c: char) -> char {
    match c {
        'а' | 'α' | 'ɑ' | 'ᴀ' => 'a',
        'в' | 'ь' | 'ʙ' => 'b',
        'с' | 'ϲ' | 'ᴄ' => 'c',
        'ԁ' | 'ᴅ' => 'd',
        'е' | 'ё' | 'ε' | 'ᴇ' => 'e',
        'ɡ' | 'ɢ' | 'ց' => 'g',
        'һ' | 'ʜ' | 'հ' => 'h',
        'і' | 'ı' | 'ι' | 'ї' | 'ɩ' | 'ɪ' => 'i',
        'ј' | 'ϳ' | 'ᴊ' => 'j',
        'κ' | 'к' | 'ᴋ' => 'k',
        'ӏ' | 'ʟ' => 'l',
        'м' | 'ᴍ' => 'm',
        'η' | 'п' | 'ɴ' | 'ո' | 'ռ' => 'n',
        'о' | 'ο' | 'σ' | 'օ' | 'ᴏ' => 'o',
        'р' | 'ρ' | 'ᴘ' => 'p',
        'ԛ' | 'զ' => 'q',
        'г' | 'ʀ' => 'r',
        'ѕ' | 'ꜱ' => 's',
        'т' | 'τ' | 'ᴛ' => 't',
        'υ' | 'μ' | 'ᴜ' | 'ս' => 'u',
        'ν' | 'ѵ' | 'ᴠ' => 'v',
        'ԝ' | 'ω' | 'ᴡ' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' | 'ʏ' => 'y',
        'ᴢ' => 'z',
        'ꜰ' => 'f',
        other => other,
    }
}

/// Removes the separators of a word spelled out one character at a time: a separator run (spaces
/// and punctuation, at most three characters) between two single letters or digits goes, so
/// `h-u-n-t-e-r-2` and `h u n t e r 2` read `hunter2`; words of two or more letters keep theirs.
fn join_spelled(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let single_at = |i: usize| -> bool {
        chars.get(i).is_some_and(|c| c.is_alphanumeric())
            && (i == 0 || !chars[i - 1].is_alphanumeric())
            && chars.get(i + 1).is_none_or(|c| !c.is_alphanumeric())
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        out.push(chars[i]);
        if single_at(i) {
            let mut j = i + 1;
            while j < chars.len() && j - i <= 3 && !chars[j].is_alphanumeric() {
                j += 1;
            }
            if j > i + 1 && j - i <= 4 && single_at(j) {
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_marks_reversal_and_spelling_reduce_to_the_plain_word() {
        for leak in [
            "huntеr2",                 // Cyrillic е
            "\u{202E}2retnuh\u{202C}", // displayed reversed
            "h\u{332}unter2",          // combining low line
            "hunter\u{20E0}2",         // enclosing mark
            "h-u-n-t-e-r-2",           // spelled out
            "h u n t e r 2",           // spelled out with spaces
            "HUNTER\u{0662}",          // Arabic-Indic two
        ] {
            assert!(
                skeleton(leak).contains("hunter2"),
                "{leak:?} -> {:?}",
                skeleton(leak)
            );
        }
        assert!(skeleton("KİLİMANJARO").contains("kilimanjaro"));
        assert!(skeleton("admın").contains("admin"));
    }

    #[test]
    fn ordinary_words_keep_their_spaces() {
        assert_eq!(skeleton("a big cat"), "a big cat");
        assert_eq!(skeleton("is it ok"), "is it ok");
    }
}
