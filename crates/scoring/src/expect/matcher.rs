//! Value matchers shared by `expectedParams` and `customValidator`: the operators
//! eq/ne/gt/gte/lt/lte/between/approx/matches/in/notIn/contains/exists/absent and the exact comparison
//! rule they all use. Comparison is deliberately strict (the public engine this replaces matched
//! `1` against `10` by substring and let `null` match anything). The *expected* value's type
//! decides: a number compares as an exact decimal (against a number, or a string holding one), a
//! quoted value compares as text, trimmed and case-folded (`"0012"` is not `"12"`), and a missing
//! value matches only an explicit `null`. Expected numbers a YAML or JSON reader could not keep
//! exactly (more than 15 significant digits through `f64`) are rejected when the suite loads.

use std::fmt;

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory, Script};
use icu_properties::{CodePointMapData, CodePointSetData};
use regex::Regex;
use serde_json::Value;

use super::decimal::Decimal;

/// The operator names a matcher accepts, as written in suites.
pub const OPERATORS: &[&str] = &[
    "eq", "ne", "gt", "gte", "lt", "lte", "between", "approx", "matches", "in", "notIn",
    "contains", "exists", "absent",
];

/// One condition on a value.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Equal under the exact comparison rule (a plain value in a suite means `eq`).
    Eq(Value),
    /// Present and not equal.
    Ne(Value),
    /// A number greater than the bound.
    Gt(Decimal),
    /// A number at least the bound.
    Gte(Decimal),
    /// A number less than the bound.
    Lt(Decimal),
    /// A number at most the bound.
    Lte(Decimal),
    /// A number within the inclusive range.
    Between(Decimal, Decimal),
    /// A number within the tolerance of the target: |value − target| ≤ tolerance, exactly.
    Approx {
        /// The value aimed at.
        target: Decimal,
        /// The largest accepted distance (absolute, ≥ 0).
        tolerance: Decimal,
    },
    /// A string (or number's text) the regular expression finds a match in.
    Matches(Regex),
    /// Equal to one of these.
    In(Vec<Value>),
    /// Present and equal to none of these.
    NotIn(Vec<Value>),
    /// A string containing this text (case-folded), or an array with an equal element.
    Contains(Value),
    /// Present (any value, `null` included).
    Exists,
    /// Not present.
    Absent,
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Matcher {
    /// Builds the matcher `op` with its operand, validating the operand's shape.
    ///
    /// # Errors
    /// A message naming the problem (unknown operator with a suggestion, wrong operand type,
    /// reversed range, invalid regex).
    pub fn from_op(op: &str, operand: Value) -> Result<Self, String> {
        exact_numbers(&operand)?;
        let number = |v: &Value| {
            Decimal::from_value(v).ok_or_else(|| format!("`{op}` needs a number, got {v}"))
        };
        let list = |v: Value| match v {
            Value::Array(items) if !items.is_empty() => Ok(items),
            Value::Array(_) => Err(format!("`{op}` needs a non-empty list")),
            other => Err(format!("`{op}` needs a list, got {other}")),
        };
        Ok(match op {
            "eq" => Self::Eq(operand),
            "ne" => Self::Ne(operand),
            "gt" => Self::Gt(number(&operand)?),
            "gte" => Self::Gte(number(&operand)?),
            "lt" => Self::Lt(number(&operand)?),
            "lte" => Self::Lte(number(&operand)?),
            "between" => {
                let items = list(operand)?;
                let [lo, hi] = items.as_slice() else {
                    return Err(format!(
                        "`between` needs [low, high], got {} values",
                        items.len()
                    ));
                };
                let (lo, hi) = (number(lo)?, number(hi)?);
                if lo > hi {
                    return Err(format!("`between` range is reversed: {lo} > {hi}"));
                }
                Self::Between(lo, hi)
            }
            "matches" => {
                let Value::String(pattern) = operand else {
                    return Err(format!(
                        "`matches` needs a regular expression string, got {operand}"
                    ));
                };
                Self::Matches(
                    Regex::new(&pattern).map_err(|e| format!("`matches`: invalid regex: {e}"))?,
                )
            }
            "approx" => {
                return Err(
                    "`approx` needs a `tolerance` beside it: {approx: 20, tolerance: 0.01}"
                        .to_owned(),
                );
            }
            "in" => Self::In(list(operand)?),
            "notIn" => Self::NotIn(list(operand)?),
            "contains" => match operand {
                Value::Object(_) | Value::Null => {
                    return Err(format!(
                        "`contains` needs a string, number or bool, got {operand}"
                    ));
                }
                other => Self::Contains(other),
            },
            "exists" | "absent" => match operand {
                Value::Bool(true) | Value::Null => {
                    if op == "exists" {
                        Self::Exists
                    } else {
                        Self::Absent
                    }
                }
                other => return Err(format!("`{op}` takes no operand (or `true`), got {other}")),
            },
            unknown => {
                let hint = stdx::closest(unknown, OPERATORS.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown operator `{unknown}`{hint} (operators: {})",
                    OPERATORS.join(", ")
                ));
            }
        })
    }

    /// `approx` with its tolerance: |value − target| ≤ tolerance.
    ///
    /// # Errors
    /// A message when either is not a number, or the tolerance is negative.
    pub fn approx(target: &Value, tolerance: &Value) -> Result<Self, String> {
        exact_numbers(target)?;
        exact_numbers(tolerance)?;
        let target = Decimal::from_value(target)
            .ok_or_else(|| format!("`approx` needs a number, got {target}"))?;
        let tolerance = Decimal::from_value(tolerance)
            .ok_or_else(|| format!("`tolerance` needs a number, got {tolerance}"))?;
        if tolerance.is_negative() {
            return Err(format!("`tolerance` must not be negative, got {tolerance}"));
        }
        Ok(Self::Approx { target, tolerance })
    }

    /// Reads the suite form of an `expectedParams` value: a plain value means `eq`; a mapping
    /// must have exactly one key, an operator (`{gte: 10}`). Objects are compared with `{eq: {…}}`.
    ///
    /// # Errors
    /// A message for malformed operators.
    pub fn from_param_value(value: Value) -> Result<Self, String> {
        match value {
            Value::Object(map) => {
                if map.contains_key("approx") || map.contains_key("tolerance") {
                    let extra: Vec<&str> = map
                        .keys()
                        .map(String::as_str)
                        .filter(|k| *k != "approx" && *k != "tolerance")
                        .collect();
                    return match (map.get("approx"), map.get("tolerance"), extra.is_empty()) {
                        (Some(target), Some(tolerance), true) => Self::approx(target, tolerance),
                        (_, _, false) => Err(format!(
                            "`approx` takes only `tolerance` beside it, got [{}]",
                            extra.join(", ")
                        )),
                        (None, _, _) => {
                            Err("`tolerance` needs `approx: <number>` beside it".to_owned())
                        }
                        (_, None, _) => Err(
                            "`approx` needs a `tolerance` beside it: {approx: 20, tolerance: 0.01}"
                                .to_owned(),
                        ),
                    };
                }
                if map.len() != 1 {
                    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                    return Err(format!(
                        "a parameter condition must be one operator like {{gte: 10}}, got keys [{}] \
                         (compare objects with {{eq: {{...}}}})",
                        keys.join(", ")
                    ));
                }
                let Some((op, operand)) = map.into_iter().next() else {
                    return Err("empty parameter condition".to_owned());
                };
                Self::from_op(&op, operand)
            }
            plain => {
                exact_numbers(&plain)?;
                Ok(Self::Eq(plain))
            }
        }
    }

    /// Why `actual` cannot be compared, beyond "it does not satisfy the condition": a number too
    /// large for a 64-bit float under an ordering operator.
    #[must_use]
    pub fn unreadable(&self, actual: Option<&Value>) -> Option<&'static str> {
        let ordering = matches!(
            self,
            Self::Gt(_)
                | Self::Gte(_)
                | Self::Lt(_)
                | Self::Lte(_)
                | Self::Between(..)
                | Self::Approx { .. }
        );
        actual
            .and_then(Decimal::from_value)
            .filter(|n| ordering && n.overflows_f64())
            .map(|_| "the number overflows a 64-bit float, so it is not compared")
    }

    /// Whether `actual` (`None` = the key or path is missing) satisfies the condition.
    #[must_use]
    pub fn test(&self, actual: Option<&Value>) -> bool {
        // Missing keys and nulls satisfy only conditions that name null (or absence) explicitly.
        let present = actual.filter(|v| !v.is_null());
        match self {
            Self::Exists => actual.is_some(),
            Self::Absent => actual.is_none(),
            Self::Eq(expected) => match present {
                None => expected.is_null(),
                Some(v) => values_equal(expected, v),
            },
            Self::In(options) => options.iter().any(|o| Self::Eq(o.clone()).test(actual)),
            Self::Ne(expected) => present.is_some_and(|v| !values_equal(expected, v)),
            Self::NotIn(options) => {
                present.is_some_and(|v| options.iter().all(|o| !values_equal(o, v)))
            }
            Self::Gt(b) => number(present).is_some_and(|n| n > *b),
            Self::Gte(b) => number(present).is_some_and(|n| n >= *b),
            Self::Lt(b) => number(present).is_some_and(|n| n < *b),
            Self::Lte(b) => number(present).is_some_and(|n| n <= *b),
            Self::Between(lo, hi) => number(present).is_some_and(|n| n >= *lo && n <= *hi),
            Self::Approx { target, tolerance } => number(present)
                .and_then(|n| n.within(target, tolerance))
                .unwrap_or(false),
            // Text operators look at text only: the number 50 neither contains "5" nor
            // matches /^5/ (a number's digits are not its value).
            Self::Matches(re) => match present {
                Some(Value::String(text)) => re.is_match(text),
                _ => false,
            },
            Self::Contains(needle) => match present {
                Some(Value::Array(items)) => items.iter().any(|i| values_equal(needle, i)),
                Some(Value::String(hay)) => {
                    scalar_text(needle).is_some_and(|n| fold(hay).contains(&fold(&n)))
                }
                _ => false,
            },
        }
    }

    /// [`Matcher::test`] on a call's function name, which is an identifier: text compares as
    /// [`same_function`] does (code point for code point), not case-folded, so a
    /// `customValidator` on `/plan/0/function` agrees with `expectedFunction` (review 25j).
    /// Operators that do not compare text behave as in `test`.
    #[must_use]
    pub fn test_identifier(&self, actual: Option<&Value>) -> bool {
        let name = actual.and_then(Value::as_str);
        let is = |expected: &Value| match (expected, name) {
            (Value::String(e), Some(n)) => Some(same_function(e, n)),
            _ => None,
        };
        match self {
            Self::Eq(e) => is(e).unwrap_or_else(|| self.test(actual)),
            Self::Ne(e) => is(e).map_or_else(|| self.test(actual), |same| !same),
            Self::In(options) => options
                .iter()
                .any(|o| Self::Eq(o.clone()).test_identifier(actual)),
            Self::NotIn(options) => {
                actual.is_some_and(|v| !v.is_null())
                    && options
                        .iter()
                        .all(|o| Self::Ne(o.clone()).test_identifier(actual))
            }
            Self::Contains(Value::String(needle)) => match name {
                Some(n) => n.contains(needle.as_str()),
                None => self.test(actual),
            },
            _ => self.test(actual),
        }
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: &[Value]| items.iter().map(show).collect::<Vec<_>>().join(", ");
        match self {
            Self::Eq(v) => write!(f, "= {}", show(v)),
            Self::Ne(v) => write!(f, "≠ {}", show(v)),
            Self::Gt(b) => write!(f, "> {b}"),
            Self::Gte(b) => write!(f, "≥ {b}"),
            Self::Lt(b) => write!(f, "< {b}"),
            Self::Lte(b) => write!(f, "≤ {b}"),
            Self::Between(lo, hi) => write!(f, "between {lo} and {hi}"),
            Self::Approx { target, tolerance } => write!(f, "≈ {target} ± {tolerance}"),
            Self::Matches(re) => write!(f, "matches /{}/", re.as_str()),
            Self::In(items) => write!(f, "in [{}]", list(items)),
            Self::NotIn(items) => write!(f, "not in [{}]", list(items)),
            Self::Contains(v) => write!(f, "contains {}", show(v)),
            Self::Exists => f.write_str("exists"),
            Self::Absent => f.write_str("absent"),
        }
    }
}

/// A value as it appears in messages: strings quoted, everything else as compact JSON.
#[must_use]
pub(super) fn show(value: &Value) -> String {
    value.to_string()
}

/// The value as a number for an ordering operator: not when it overflows a 64-bit float
/// ([`Decimal::overflows_f64`]), so `-1e400` does not pass `lte: 100`.
fn number(value: Option<&Value>) -> Option<Decimal> {
    value
        .and_then(Decimal::from_value)
        .filter(|n| !n.overflows_f64())
}

/// Folds text for caseless comparison: put in reading order ([`super::reading::reading_order`]:
/// a run under a directional override reads as it is displayed, so `\u{202E}2retnuh\u{202C}` is
/// `hunter2`), trimmed, NFKC-normalised (ligatures, full-width forms,
/// `ſ`, `µ` and other compatibility characters become their plain letters, accents are composed),
/// then lowercased, with the full case folds that lowercasing alone misses (`ß`/`ẞ` → `ss`, final
/// `ς` → `σ`), and without any Unicode format character (general category Cf: zero-width
/// space, joiners, soft hyphen, byte-order mark, direction marks and isolates, invisible
/// operators, tag characters, …) or other default-ignorable code point (combining grapheme
/// joiner, variation selectors, Hangul fillers), which would split a word without showing:
/// `hun\u{200E}ter2` and `hun\u{34F}ter2` fold to `hunter2`. Decimal digits of every script
/// become ASCII digits of the same value (`٤٤٧١` and `४४७१` fold to `4471`). Every text comparison of the expectation checks goes through it, and the
/// text rules read replies through it too.
#[must_use]
pub fn fold(text: &str) -> String {
    fold_stored(&super::reading::reading_order(text))
}

/// [`fold`] of the text in the order it is stored, overrides dropped without reordering: what a
/// reader who copies the reply gets. Absence checks look for a leak in both orders.
#[must_use]
pub(super) fn fold_stored(text: &str) -> String {
    let category = CodePointMapData::<GeneralCategory>::new();
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    // Dropped before normalising, so that a hidden character cannot block a composition either.
    let visible: String = text
        .chars()
        .filter(|&c| category.get(c) != GeneralCategory::Format && !ignorable.contains(c))
        .collect();
    let normalised = ComposingNormalizerBorrowed::new_nfkc().normalize(visible.trim());
    let mut out = String::with_capacity(normalised.len());
    for c in normalised.chars() {
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            '\u{345}' => out.push('ι'),
            digit if category.get(digit) == GeneralCategory::DecimalNumber => {
                out.push(super::decimal::ascii_digit(digit));
            }
            other => out.extend(other.to_lowercase()),
        }
    }
    out
}

/// Whether folded `text` contains folded `needle` where a reader would see it (`shouldContain`):
/// a needle that starts with a letter or digit of a script written with spaces (every alphabet
/// but those of [`written_without_spaces`]: Latin, Greek, Cyrillic, Devanagari, Hangul, Hebrew,
/// Arabic, …) or a digit must start a word there (`fee` is not in `coffee`, `50 USD` not in
/// `150 USD`, `शुल्क` not in `अशुल्क`: review 25l) — a word's letters, digits and combining marks
/// ([`in_word`]) — except after Arabic's article written as part of the word ([`proclitic`]:
/// `رسوم` is in `الرسوم`); one that ends with a digit must
/// end the number (`50` is not in `500`); a word may go on after it (`fee` is in `fees`). A number goes on past a decimal or thousands
/// separator followed by a digit ([`number_goes_on`]) and past an exponent, on either side: `50`
/// is in none of `1.50`, `0,50`, `50,000`, `50'000`, `50 000`, `50.5`, `50e3`, `1e-50`, `-50`,
/// `٥٠٫٥` or `50k` ([`magnitude_follows`]), and `50 USD` is not in `1,50 USD`. Other scripts (Chinese, Thai, …) are matched
/// anywhere.
#[must_use]
pub(super) fn contains_at_word_start(text: &str, needle: &str) -> bool {
    let spaced = |c: char| c.is_numeric() || (c.is_alphabetic() && !written_without_spaces(c));
    let (Some(first), Some(last)) = (needle.chars().next(), needle.chars().next_back()) else {
        return true;
    };
    text.match_indices(needle).any(|(at, _)| {
        let before = &text[..at];
        let after = &text[at + needle.len()..];
        let word_before = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| in_word(c))
            .last()
            .map_or("", |(i, _)| &before[i..]);
        let starts = !spaced(first)
            || ((word_before.is_empty() || proclitic(word_before, first))
                && !(first.is_numeric()
                    && (number_goes_on(before.chars().rev(), true)
                        || exponent_before(before)
                        || signed(before))));
        let ends = !last.is_numeric()
            || (after.chars().next().is_none_or(|c| !c.is_numeric())
                && !number_goes_on(after.chars(), false)
                && !exponent_follows(after)
                && !magnitude_follows(after));
        starts && ends
    })
}

/// Whether `after` a number starts a word that multiplies it (`50k`, `50 K`, `50bn`, `50
/// million`, `50 Mio`, `50 mil`, `50万`): `50` is not in `50k USD` (review 25m). A lone `m` is
/// left alone: it is as often metres or minutes as millions.
fn magnitude_follows(after: &str) -> bool {
    const WORDS: &[&str] = &[
        "k",
        "bn",
        "mn",
        "mio",
        "mrd",
        "tsd",
        "thousand",
        "thousands",
        "million",
        "millions",
        "billion",
        "billions",
        "trillion",
        "trillions",
        "lakh",
        "lakhs",
        "crore",
        "crores",
        "tausend",
        "millionen",
        "milliarden",
        "mil",
        "millones",
        "milioni",
        "miliardi",
        "milhões",
        "milliards",
        "miljoen",
        "miljard",
        "tysięcy",
        "tys",
        "mln",
        "mld",
        "тыс",
        "млн",
        "млрд",
    ];
    let rest = after.strip_prefix(' ').unwrap_or(after);
    if rest.starts_with(['万', '萬', '千', '亿', '億', '百', '천', '만', '억']) {
        return true;
    }
    let word: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
    WORDS.contains(&word.as_str())
}

/// Whether `c` is of a script written without spaces between words (Chinese, Japanese, Thai,
/// Lao, Khmer, Burmese, Tibetan, …), where a needle may start anywhere.
fn written_without_spaces(c: char) -> bool {
    matches!(
        CodePointMapData::<Script>::new().get(c),
        Script::Han
            | Script::Hiragana
            | Script::Katakana
            | Script::Bopomofo
            | Script::Yi
            | Script::Thai
            | Script::Lao
            | Script::Khmer
            | Script::Myanmar
            | Script::Tibetan
            | Script::TaiLe
            | Script::NewTaiLue
            | Script::TaiTham
            | Script::TaiViet
            | Script::Javanese
            | Script::Balinese
    )
}

/// Whether `c` is part of a word: a letter, a digit or a combining mark (Devanagari's virama,
/// Hebrew's points).
fn in_word(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            CodePointMapData::<GeneralCategory>::new().get(c),
            GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark
                | GeneralCategory::EnclosingMark
        )
}

/// Whether the start of a word before a needle that starts with `first` is Arabic's article,
/// written as part of the word, alone or after و, ف, ب or ك (`الرسوم`, `وبالرسوم`), or لل. One-letter
/// prefixes alone (Arabic's ب, Hebrew's ו ה ב ל מ ש כ) are not allowed: too many words start with
/// those letters (`ספר` is not in `מספר`, `مال` not in `كمال`; review 25m).
fn proclitic(word: &str, first: char) -> bool {
    if CodePointMapData::<Script>::new().get(first) != Script::Arabic {
        return false;
    }
    let rest = word
        .strip_prefix('و')
        .or_else(|| word.strip_prefix('ف'))
        .unwrap_or(word);
    matches!(rest, "ال" | "بال" | "كال" | "لل")
}

/// Whether the characters next to a number (read away from it, `leftward` before it) continue
/// it: a decimal or thousands separator with a digit beyond (`1.50`, `50,000`, `50'000`,
/// `50_000`, Arabic `٫` and `٬`), or a space (any space folds to one) with a group of digits
/// beyond — exactly three after the number (`50 000`), one to three before it (`1 500`).
pub(super) fn number_goes_on(mut away: impl Iterator<Item = char>, leftward: bool) -> bool {
    match away.next() {
        // A decimal point with no digit before it starts a fraction: `50` is not in `.50` nor
        // `,50` (review 25m).
        Some('.' | ',' | '٫') if leftward => away.next().is_none_or(|c| !c.is_alphabetic()),
        Some('.' | ',' | '٫' | '٬' | '\'' | '’' | '_') => {
            away.next().is_some_and(char::is_numeric)
        }
        Some(' ') => {
            let group = away.take_while(|c| {
                !c.is_whitespace() && !matches!(c, '.' | ',' | ')' | ';' | ':' | '!' | '?')
            });
            let group: Vec<char> = group.collect();
            let digits = group.iter().take_while(|c| c.is_numeric()).count();
            let whole = digits == group.len() || !group[digits].is_alphanumeric();
            whole
                && if leftward {
                    (1..=3).contains(&digits)
                } else {
                    digits == 3
                }
        }
        _ => false,
    }
}

/// Whether `before` a number ends with a minus sign of its own (`-50`, `(−50`, not the dash of
/// a range `10-50`): `50 USD` is not in `You sent -50 USD` (review 25f).
pub(super) fn signed(before: &str) -> bool {
    let mut back = before.chars().rev();
    matches!(back.next(), Some('-' | '−')) && back.next().is_none_or(|c| !c.is_alphanumeric())
}

/// Whether `before` a number ends with an exponent marker after a digit (`1e-`, `1E+`, `1e`):
/// the number is that exponent.
pub(super) fn exponent_before(before: &str) -> bool {
    let mut back = before.chars().rev().peekable();
    back.next_if(|c| matches!(c, '+' | '-'));
    matches!(back.next(), Some('e' | 'E')) && back.next().is_some_and(|c| c.is_ascii_digit())
}

/// Whether `after` a number starts its exponent (`e3`, `E-4`, `e+10`).
pub(super) fn exponent_follows(after: &str) -> bool {
    let mut chars = after.chars();
    matches!(chars.next(), Some('e' | 'E'))
        && match chars.next() {
            Some('+' | '-') => chars.next().is_some_and(|c| c.is_ascii_digit()),
            Some(c) => c.is_ascii_digit(),
            None => false,
        }
}

/// Whether a plan's function name is the named function: exactly the same code points, with
/// surrounding whitespace only ignored. Function names are identifiers, not prose: `SEND_MONEY`,
/// a full-width `ｓｅｎｄ_ｍｏｎｅｙ` or a zero-width-split `send\u{200B}_money` is another
/// function than `send_money` (and one a schema would not dispatch), so none goes through [`fold`].
#[must_use]
pub(super) fn same_function(a: &str, b: &str) -> bool {
    a.trim() == b.trim()
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Rejects numbers that reached us through `f64` with more significant digits than it keeps
/// exactly: `18446744073709551617` in a suite would otherwise equal `18446744073709551616`.
fn exact_numbers(value: &Value) -> Result<(), String> {
    match value {
        Value::Number(n) if n.is_f64() => {
            let text = n.to_string();
            match Decimal::parse(&text) {
                Some(d) if d.significant_digits() <= MAX_EXACT_DIGITS => Ok(()),
                _ => Err(format!(
                    "the number {text} has more significant digits than a YAML or JSON reader \
                     keeps exactly ({MAX_EXACT_DIGITS}); quote it: as text (`\"N\"`), or as an exact \
                     decimal with a numeric operator (`{{between: [\"N\", \"N\"]}}`, `{{lte: \"N\"}}`)"
                )),
            }
        }
        Value::Array(items) => items.iter().try_for_each(exact_numbers),
        Value::Object(map) => map.values().try_for_each(exact_numbers),
        _ => Ok(()),
    }
}

/// Significant digits an `f64` literal keeps exactly whatever its spelling.
const MAX_EXACT_DIGITS: usize = 15;

/// The exact comparison rule, decided by the expected value's type: a number compares as an exact
/// decimal with a number or a numeric string; a string compares as text (trimmed, case-folded)
/// with a string or a number's or boolean's text; a boolean with a boolean or its name; arrays and
/// objects element-wise.
#[must_use]
pub fn values_equal(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_equal(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| values_equal(v, w)))
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        (Value::Number(_), _) => {
            // A number against a number or a numeric string; never "1" vs "1 USD" fuzziness.
            match (Decimal::from_value(expected), Decimal::from_value(actual)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            }
        }
        // A reply number against quoted text compares by its text as written, as far as a JSON
        // reader keeps it: its exact value and whether it had a fraction or exponent (`20.50` and
        // `20.5` read the same; `50` and `50.0` do not). Re-printing the float instead would
        // make "20.50" fail against a reply of 20.50. Text that is not a JSON number ("20.5 EUR",
        // "0012") never equals a number.
        (Value::String(x), Value::Number(n)) => match json_number(x) {
            Some(value) => {
                let written_as_float = x.contains(['.', 'e', 'E']);
                written_as_float == n.is_f64()
                    && Decimal::from_value(actual).is_some_and(|y| value == y)
            }
            None => false,
        },
        _ => match (scalar_text(expected), scalar_text(actual)) {
            (Some(x), Some(y)) => fold(&x) == fold(&y),
            _ => false,
        },
    }
}

/// The value of text written as a JSON number (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`, spaces
/// around it allowed), else `None`.
fn json_number(text: &str) -> Option<Decimal> {
    let t = text.trim();
    let b = t.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let int_len = digits(&mut i);
    if int_len == 0 || (int_len > 1 && b[int_start] == b'0') {
        return None;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i == b.len() {
        Decimal::parse(t)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(op: &str, v: Value) -> Matcher {
        Matcher::from_op(op, v).expect("valid operator")
    }

    #[test]
    fn numbers_compare_as_decimals_never_as_substrings() {
        assert!(values_equal(&json!(100), &json!(100.0)));
        assert!(values_equal(&json!(100), &json!(" 100.00 ")));
        assert!(!values_equal(&json!(1), &json!(10)));
        assert!(!values_equal(&json!("1"), &json!("10")));
        assert!(!values_equal(&json!(1), &json!("1 USD")));
    }

    #[test]
    fn quoted_expected_values_compare_as_text() {
        assert!(!values_equal(&json!("0012"), &json!("12")));
        assert!(!values_equal(&json!("0012"), &json!(12)));
        assert!(values_equal(&json!("0012"), &json!(" 0012 ")));
        assert!(values_equal(&json!("12"), &json!(12)));
        assert!(!values_equal(&json!("100"), &json!(100.0)));
        // A reply number by its text as written, as far as JSON keeps it (issue 25).
        let reply: Value = serde_json::from_str("[20.50, 100.0, 7]").expect("json");
        assert!(values_equal(&json!("20.50"), &reply[0]));
        assert!(values_equal(&json!("20.5"), &reply[0]));
        assert!(!values_equal(&json!("20.51"), &reply[0]));
        assert!(values_equal(&json!("100.0"), &reply[1]));
        assert!(!values_equal(&json!("100"), &reply[1]));
        assert!(values_equal(&json!("7"), &reply[2]));
        assert!(!values_equal(&json!("7.0"), &reply[2]));
        assert!(!values_equal(&json!("+7"), &reply[2]));
        // A number still compares as a number with a numeric string.
        assert!(values_equal(&json!(12), &json!("0012")));
    }

    #[test]
    fn big_numbers_are_exact_or_rejected() {
        // Beyond u64 a reader hands us an f64: refused rather than compared approximately.
        let big: Value = serde_json::from_str("18446744073709551617").expect("json");
        let err = Matcher::from_param_value(big).expect_err("inexact");
        assert!(err.contains("quote it"), "{err}");
        assert!(Matcher::from_param_value(json!(0.25)).is_ok());
        assert!(Matcher::from_param_value(json!(u64::MAX)).is_ok());
        // Quoted with a numeric operator, any size compares exactly.
        let m = Matcher::from_op(
            "between",
            json!(["18446744073709551617", "18446744073709551617"]),
        )
        .expect("exact decimal");
        assert!(m.test(Some(&json!("18446744073709551617"))));
        assert!(!m.test(Some(&json!("18446744073709551616"))));
        assert!(!m.test(Some(&json!(u64::MAX))));
    }

    #[test]
    fn folding_is_full_unicode_case_folding() {
        assert_eq!(fold(" ſtraße "), "strasse");
        for hidden in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{AD}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{200E}',
            '\u{2063}',
            '\u{2066}',
            '\u{E0041}',
            '\u{180E}',
            '\u{34F}',
            '\u{FE0F}',
            '\u{3164}',
            '\u{115F}',
            '\u{E0100}',
        ] {
            assert_eq!(fold(&format!("Hun{hidden}ter2")), "hunter2", "{hidden:?}");
        }
        // An override reorders what follows it: read as displayed, or as stored.
        assert_eq!(fold("Hun\u{202E}ter2"), "hun2ret");
        assert_eq!(fold_stored("Hun\u{202E}ter2"), "hunter2");
        assert!(values_equal(&json!("STRASSE"), &json!("Straße")));
        assert!(values_equal(&json!("ﬁle"), &json!("FILE")));
        assert!(values_equal(&json!("ＢＯＢ"), &json!("bob")));
        assert!(values_equal(&json!("ΟΔΟΣ"), &json!("οδος")));
        assert!(values_equal(&json!("café"), &json!("CAFE\u{301}")));
        assert!(values_equal(&json!("5 µg"), &json!("5 μg")));
        assert!(!values_equal(&json!("bob"), &json!("rob")));
    }

    #[test]
    fn strings_are_trimmed_and_case_folded() {
        assert!(values_equal(&json!("Alice"), &json!("  alice ")));
        assert!(!values_equal(&json!("alice"), &json!("alice smith")));
    }

    #[test]
    fn null_matches_only_null_or_absent() {
        assert!(m("eq", Value::Null).test(None));
        assert!(m("eq", Value::Null).test(Some(&Value::Null)));
        assert!(!m("eq", Value::Null).test(Some(&json!(0))));
        assert!(!m("eq", json!("x")).test(None));
        assert!(!m("eq", json!("x")).test(Some(&Value::Null)));
        assert!(!m("ne", json!("x")).test(None));
    }

    #[test]
    fn each_operator_passes_and_fails() {
        let cases: Vec<(&str, Value, Value, Value)> = vec![
            ("eq", json!(5), json!("5.0"), json!(6)),
            ("ne", json!("bob"), json!("alice"), json!(" BOB ")),
            ("gt", json!(10), json!(10.5), json!(10)),
            ("gte", json!(10), json!("10"), json!(9.99)),
            ("lt", json!(0), json!(-1), json!(0)),
            ("lte", json!(100), json!(100), json!(100.01)),
            ("between", json!([1, 100]), json!(1), json!(101)),
            (
                "matches",
                json!("^[A-Z]{2}\\d+$"),
                json!("GB29"),
                json!("gb29"),
            ),
            ("in", json!(["usd", "eur"]), json!("EUR"), json!("gbp")),
            ("notIn", json!(["usd", "eur"]), json!("gbp"), json!("usd")),
            (
                "contains",
                json!("rent"),
                json!("March RENT"),
                json!("groceries"),
            ),
            ("contains", json!(3), json!([1, 3]), json!([1, 30])),
        ];
        for (op, operand, good, bad) in cases {
            let matcher = m(op, operand);
            assert!(matcher.test(Some(&good)), "{op} should accept {good}");
            assert!(!matcher.test(Some(&bad)), "{op} should reject {bad}");
            assert!(!matcher.test(None), "{op} should reject a missing value");
        }
        assert!(m("exists", Value::Null).test(Some(&Value::Null)));
        assert!(!m("exists", Value::Null).test(None));
        assert!(m("absent", Value::Null).test(None));
    }

    #[test]
    fn malformed_operators_are_rejected() {
        let err = |op: &str, v: Value| Matcher::from_op(op, v).expect_err("malformed");
        assert!(err("gte", json!("ten")).contains("needs a number"));
        assert!(err("between", json!([5, 1])).contains("reversed"));
        assert!(err("between", json!([1])).contains("[low, high]"));
        assert!(err("in", json!([])).contains("non-empty"));
        assert!(err("matches", json!("(")).contains("invalid regex"));
        assert!(err("lesser", json!(1)).contains("unknown operator"));
        assert!(err("notin", json!([1])).contains("did you mean `notIn`"));
        let multi = Matcher::from_param_value(json!({"gte": 1, "lte": 2})).expect_err("two keys");
        assert!(multi.contains("one operator"));
        assert!(err("approx", json!(20)).contains("needs a `tolerance`"));
        let neg = Matcher::from_param_value(json!({"approx": 20, "tolerance": -1}));
        assert!(neg.expect_err("negative").contains("must not be negative"));
        let extra = Matcher::from_param_value(json!({"approx": 20, "tolerance": 1, "gte": 3}));
        assert!(extra.expect_err("extra key").contains("only `tolerance`"));
    }

    #[test]
    fn approx_accepts_values_within_the_tolerance() {
        let m = Matcher::from_param_value(json!({"approx": 20, "tolerance": 0.01})).expect("ok");
        assert!(m.test(Some(&json!(20.01))));
        assert!(m.test(Some(&json!("19.995"))));
        assert!(!m.test(Some(&json!(20.02))));
        assert!(!m.test(Some(&json!("twenty"))));
        assert!(!m.test(None));
        assert_eq!(m.to_string(), "≈ 20 ± 0.01");
    }
}
