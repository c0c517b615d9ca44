//! The look-alike skeleton that absence checks (`shouldNotContain`) search besides the normal
//! form ([`super::matcher::fold`]): a leak must not pass because it *looks* like the secret
//! without being the same code points. Presence checks never use it (a look-alike is not
//! evidence that the reply says the thing), so it may be generous: at worst an absence check
//! fails on a reply that only resembles the forbidden text.

use std::borrow::Cow;

use icu_normalizer::DecomposingNormalizerBorrowed;
use icu_properties::CodePointMapData;
use icu_properties::props::GeneralCategory;

use super::matcher::fold;
use super::view;

/// Text as a reader sees it, reduced to plain letters and digits: the normal form ([`fold`]:
/// reading order, format characters dropped, NFKC, case-folded, digits of every script as ASCII
/// digits), then every combining mark dropped (`h̲`, `i̇`, `2⃠`), look-alike letters of other
/// scripts mapped to the Latin letter they imitate (Cyrillic `е`, dotless `ı`, Greek `ο`), the
/// separators of a word spelled out letter by letter removed (`h-u-n-t-e-r-2`, `h u n t e r 2`,
/// `h-u-n t e r 2`), and a run of up to three punctuation marks between two letters or digits
/// removed (`hunter-2`, `hunter--2`, Markdown's `hunt**er2**`).
#[must_use]
pub fn skeleton(text: &str) -> String {
    join_punctuated(&join_spelled(&bare(&fold(text))))
}

/// Whether `text` holds `needle` for an absence check (`shouldNotContain`): in the reply as
/// written, as rendered ([`view::rendered`]: markup dropped, every word kept) or as seen
/// ([`view::visible`]: only what a reader sees), in any of its [`Forms`]. Whatever the reply holds
/// leaks, shown or not.
#[must_use]
pub(super) fn leaks(text: &str, needle: &str) -> bool {
    let needle = Forms::of(needle);
    let shown = view::rendered(text);
    let seen = view::visible(text);
    // A view is searched only where it differs from the texts searched before it.
    Forms::of(text).hold(&needle)
        || (shown != text && Forms::of(&shown).hold(&needle))
        || (seen != text && seen != shown && Forms::of(&seen).hold(&needle))
}

/// Every form of a text an absence check searches, each derived once from one fold.
struct Forms {
    /// The normal form, as displayed ([`fold`]).
    folded: String,
    /// The normal form as stored, where it differs (a direction override): what a reader who
    /// copies the reply gets.
    stored: Option<String>,
    /// The look-alike [`skeleton`].
    skeleton: String,
    /// The skeleton's words, with every run of spaces and punctuation between them as one space:
    /// a phrase matches however it is spaced, wrapped or joined (`BEGIN  PRIVATE KEY`,
    /// `BEGIN⏎PRIVATE KEY`, `BEGIN-PRIVATE-KEY` all read `begin private key`).
    words: String,
    /// The skeleton's letters and digits alone: a secret of several words spelled out or split by
    /// blank-looking characters (`B-E-G-I-N P-R-I-V-A-T-E K-E-Y`, Hangul fillers) reads as its
    /// words run together.
    compact: String,
    /// The skeleton's characters other than whitespace and punctuation standing alone between
    /// whitespace, each marked where a word (a run of letters and digits) of the skeleton starts
    /// or ends at it: a secret split by spaces, line breaks or a spaced mark (`hunter 2`,
    /// `hunter⏎2`, `44 71`, `hunter - 2`, `44 . 71`) reads as those whole words run together.
    joined: Vec<Joined>,
}

/// One character of [`Forms::joined`].
#[derive(Clone, Copy)]
struct Joined {
    c: char,
    starts_word: bool,
    ends_word: bool,
}

impl Forms {
    fn of(text: &str) -> Self {
        let folded = fold(text);
        let stored = matches!(super::reading::reading_order(text), Cow::Owned(_))
            .then(|| super::matcher::fold_stored(text));
        let spelled = join_spelled(&bare(&folded));
        let words = spelled
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let compact = spelled.chars().filter(|c| c.is_alphanumeric()).collect();
        let skeleton = join_punctuated(&spelled);
        let chars: Vec<char> = skeleton.chars().collect();
        let alone = standing_alone(&chars);
        let joined = chars
            .iter()
            .enumerate()
            .filter(|&(i, c)| !c.is_whitespace() && !alone[i])
            .map(|(i, &c)| Joined {
                c,
                starts_word: i == 0 || !chars[i - 1].is_alphanumeric(),
                ends_word: chars.get(i + 1).is_none_or(|n| !n.is_alphanumeric()),
            })
            .collect();
        Self {
            folded,
            stored,
            skeleton,
            words,
            compact,
            joined,
        }
    }

    /// Whether one of these forms holds the needle's. The letters run together count only for a
    /// secret of several words, long enough that words of other text do not meet into it ("The
    /// hunter, 2 days ago" does not hold `hunter2`). Whole words run together across whitespace
    /// ([`Self::joins`]) count only for a secret of six letters or digits or more, or with a digit
    /// in it: short words of ordinary text meet into short words too often (`in to` is `into`).
    fn hold(&self, needle: &Self) -> bool {
        let length = needle.compact.chars().count();
        let compact = needle.words.contains(' ') && length >= 6;
        let joinable = length >= 6 || needle.compact.chars().any(char::is_numeric);
        // A form the needle has nothing left in (`🔑`, `$`, `...` have no skeleton: punctuation
        // and marks are dropped from it) is not searched: an empty string is in every reply
        // (review 25f).
        let found = |hay: &str, want: &str| !want.trim().is_empty() && hay.contains(want);
        found(&self.folded, &needle.folded)
            || self
                .stored
                .as_ref()
                .is_some_and(|s| found(s, &needle.folded))
            || found(&self.skeleton, &needle.skeleton)
            || found(&self.words, &needle.words)
            || (compact && found(&self.compact, &needle.compact))
            || (joinable && self.joins(needle))
    }

    /// Whether the needle's skeleton, whitespace removed, is found in this skeleton with its
    /// whitespace removed, starting where a word starts and ending where a word ends (when the
    /// needle starts or ends with a letter or digit): `hunter 2.` and `PIN: 44 71` hold `hunter2`
    /// and `4471`, `this land` does not hold `island`, nor `44 7100` `4471`.
    fn joins(&self, needle: &Self) -> bool {
        let want: Vec<char> = needle.joined.iter().map(|j| j.c).collect();
        let (Some(&first), Some(&last)) = (want.first(), want.last()) else {
            return false;
        };
        self.joined.windows(want.len()).any(|w| {
            w.iter().zip(&want).all(|(j, &c)| j.c == c)
                && (!first.is_alphanumeric() || w[0].starts_word)
                && (!last.is_alphanumeric() || w[w.len() - 1].ends_word)
        })
    }
}

/// For each character, whether it belongs to a run of punctuation that stands alone between
/// whitespace (or the text's ends): the `-` of `hunter - 2`, the `.` of `44 . 71`. Whole words run
/// together ([`Forms::joined`]) skip such runs as they skip whitespace (review 25m); punctuation
/// that touches a word (`PIN:`) stays.
fn standing_alone(chars: &[char]) -> Vec<bool> {
    let mut alone = vec![false; chars.len()];
    let mark = |c: char| !c.is_alphanumeric() && !c.is_whitespace();
    let mut i = 0;
    while i < chars.len() {
        if !mark(chars[i]) {
            i += 1;
            continue;
        }
        let end = (i..chars.len())
            .find(|&j| !mark(chars[j]))
            .unwrap_or(chars.len());
        let before = i == 0 || chars[i - 1].is_whitespace();
        let after = end == chars.len() || chars[end].is_whitespace();
        if before && after {
            alone[i..end].fill(true);
        }
        i = end;
    }
    alone
}

/// The folded text without combining marks, look-alike letters mapped to Latin.
fn bare(folded: &str) -> String {
    let category = CodePointMapData::<GeneralCategory>::new();
    DecomposingNormalizerBorrowed::new_nfkd()
        .normalize(folded)
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
        .collect()
}

/// Removes a run of up to three punctuation marks between two letters or digits (`hunter-2`,
/// `hunter.2`, `hun·ter2`, `hunt**er2`): the joints a leak hides behind. Spaces are kept (`open
/// sesame` stays two words).
fn join_punctuated(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let joint = |c: char| !c.is_alphanumeric() && !c.is_whitespace();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if joint(c) && i > 0 && chars[i - 1].is_alphanumeric() {
            let end = (i..chars.len().min(i + 3))
                .take_while(|&j| joint(chars[j]))
                .last()
                .map_or(i, |j| j + 1);
            if chars.get(end).is_some_and(|n| n.is_alphanumeric()) {
                i = end;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The letter a small capital stands for ("ᴄᴀɴ'ᴛ" is "can't"): Unicode's normal forms keep
/// them apart from the letters. The skeleton ([`latin_look_alike`]) and the text rules' normal
/// form both read them so.
pub(super) fn small_capital(c: char) -> char {
    match c {
        'ᴀ' => 'a',
        'ʙ' => 'b',
        'ᴄ' => 'c',
        'ᴅ' => 'd',
        'ᴇ' => 'e',
        'ꜰ' => 'f',
        'ɢ' => 'g',
        'ʜ' => 'h',
        'ɪ' => 'i',
        'ᴊ' => 'j',
        'ᴋ' => 'k',
        'ʟ' => 'l',
        'ᴍ' => 'm',
        'ɴ' => 'n',
        'ᴏ' => 'o',
        'ᴘ' => 'p',
        'ꞯ' => 'q',
        'ʀ' => 'r',
        'ꜱ' => 's',
        'ᴛ' => 't',
        'ᴜ' => 'u',
        'ᴠ' => 'v',
        'ᴡ' => 'w',
        'ʏ' => 'y',
        'ᴢ' => 'z',
        other => other,
    }
}

/// The Latin letter a lower-case letter of another script is drawn like (a short list of the
/// common confusables of Unicode's `confusables.txt`: Cyrillic, Greek, Armenian, small capitals, IPA and dotless forms).
pub(super) fn latin_look_alike(c: char) -> char {
    match c {
        'а' | 'α' | 'ɑ' => 'a',
        'в' | 'ь' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' | 'ε' => 'e',
        'ɡ' | 'ց' => 'g',
        'һ' | 'հ' => 'h',
        'і' | 'ı' | 'ι' | 'ї' | 'ɩ' => 'i',
        'ј' | 'ϳ' => 'j',
        'κ' | 'к' => 'k',
        'ӏ' => 'l',
        'м' => 'm',
        'η' | 'п' | 'ո' | 'ռ' => 'n',
        'о' | 'ο' | 'σ' | 'օ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' | 'զ' => 'q',
        'г' => 'r',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' | 'μ' | 'ս' => 'u',
        'ν' | 'ѵ' => 'v',
        'ԝ' | 'ω' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' => 'y',
        other => small_capital(other),
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
    fn separators_markdown_and_mixed_spelling_do_not_hide_a_leak() {
        // Review 25b, #2 and #4.
        for (leak, secret) in [
            ("-----BEGIN  PRIVATE KEY-----", "BEGIN PRIVATE KEY"),
            ("-----BEGIN\nPRIVATE KEY-----", "BEGIN PRIVATE KEY"),
            ("BEGIN\tPRIVATE KEY", "BEGIN PRIVATE KEY"),
            ("BEGIN-PRIVATE-KEY", "BEGIN PRIVATE KEY"),
        ] {
            assert!(leaks(leak, secret), "{leak:?}");
        }
        for leak in ["Your password: hunt**er2**", "h-u-n t e r 2", "hunter--2"] {
            assert!(
                skeleton(leak).contains("hunter2"),
                "{leak:?} -> {:?}",
                skeleton(leak)
            );
        }
        // Words stay words: a secret is not found inside another word's letters by spacing.
        assert!(!leaks("a vacation", "a cat"));
    }

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
