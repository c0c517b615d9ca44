//! Located configuration errors: the one error type every loader returns, and the
//! "did you mean" machinery that turns serde's `unknown field` errors into friendly hints.
//!
//! A [`ConfigError`] always names the file and, when the parser or the [`SourceMap`](crate::SourceMap)
//! knows it, the 1-based line and column (0 when unknown). Its `Display` is the compiler-style
//! `FILE:LINE:COL: error: MESSAGE`, followed by `  hint: HINT` on a second line when there is one.

use std::fmt;
use std::path::{Path, PathBuf};

/// An error in a configuration or suite file, with its location and an optional hint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// The file the error is in (as given by the caller, not canonicalised).
    pub file: PathBuf,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column (in characters), 0 when unknown.
    pub column: usize,
    /// What is wrong, without location (e.g. "unknown key `topis`").
    pub message: String,
    /// How to fix it, when we can tell (e.g. "did you mean `topics`?").
    pub hint: Option<String>,
}

impl ConfigError {
    /// An error at a known position (`line`/`column` 1-based; pass 0 when unknown).
    #[must_use]
    pub fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
            hint: None,
        }
    }

    /// An error that concerns the whole file (line and column 0).
    #[must_use]
    pub fn whole_file(file: &Path, message: impl Into<String>) -> Self {
        Self::new(file, 0, 0, message)
    }

    /// Adds (or replaces) the hint.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Rewrites serde's `unknown field `x`, expected one of `a`, `b`` (and the `unknown variant`
    /// twin) into "unknown key `x`" with a did-you-mean hint. Other messages pass unchanged.
    pub(crate) fn from_serde_message(
        file: &Path,
        line: usize,
        column: usize,
        message: &str,
    ) -> Self {
        match UnknownName::parse(message) {
            Some(unknown) => {
                let err = Self::new(file, line, column, unknown.message());
                match unknown.hint() {
                    Some(hint) => err.with_hint(hint),
                    None => err,
                }
            }
            None => {
                let (message, hint) = users_words(message);
                let err = Self::new(file, line, column, message);
                match hint {
                    Some(hint) => err.with_hint(hint),
                    None => err,
                }
            }
        }
    }
}

/// A parser's message in a config author's words: no Rust type names (`u64`, `Option<String>`)
/// and no parser options (`DuplicateKeyPolicy`); with a hint where one helps.
pub(crate) fn users_words(message: &str) -> (String, Option<&'static str>) {
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        let key = rest
            .split(", set DuplicateKeyPolicy")
            .next()
            .unwrap_or(rest);
        return (
            format!("duplicate key `{key}`"),
            Some("write each key once"),
        );
    }
    if let Some(rest) = message.strip_prefix("cannot deserialize null into ") {
        let ty = rest.split(';').next().unwrap_or(rest).trim();
        return (
            format!("null is not allowed here: expected {}", describe_scalar(ty)),
            Some("write a value, or leave the key out for its default"),
        );
    }
    let mut out = message.to_owned();
    for ty in SCALARS {
        let rust = format!("expected {ty}");
        if let Some(at) = out.find(&rust)
            && !out[at + rust.len()..].starts_with(|c: char| c.is_alphanumeric())
        {
            out.replace_range(
                at..at + rust.len(),
                &format!("expected {}", describe_scalar(ty)),
            );
        }
    }
    // A suite's `threshold` is a passing score: its range is 0–100, not the type's (review
    // 25j: `threshold: 1e999`, `.nan`, `70.5` and `-1` said "from 0 to 4294967295", no hint).
    let whole = "a whole number from 0 to 4294967295";
    if out.starts_with("`threshold`:") && out.contains(whole) {
        return (
            out.replace(whole, "a passing score, a whole number from 0 to 100"),
            Some("a score is a percentage of the checks' weight: e.g. `threshold: 70`"),
        );
    }
    // Every other whole number (a weight, a count, a timeout): the range alone left `-1`, `.nan`
    // and `2.5` without a next step (review 25j).
    if out.contains("invalid value: expected a whole number from 0 to ") {
        return (
            out,
            Some("write it without a sign, a fraction or an exponent, e.g. `2`"),
        );
    }
    (out, None)
}

/// The Rust scalar type names a parser's message may hold.
const SCALARS: [&str; 16] = [
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "string",
];

/// A Rust scalar type name as a config author knows it (a whole number's range included: a
/// number too large is as wrong as a negative one).
pub(crate) fn describe_scalar(ty: &str) -> String {
    let whole = |max: u128| format!("a whole number from 0 to {max}");
    match ty {
        "u8" => whole(u8::MAX.into()),
        "u16" => whole(u16::MAX.into()),
        "u32" => whole(u32::MAX.into()),
        "u64" | "usize" => whole(u64::MAX.into()),
        "u128" => whole(u128::MAX),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number".to_owned(),
        "f32" | "f64" | "floating point" => "a number".to_owned(),
        "bool" | "boolean" => "true or false".to_owned(),
        "char" => "a single character".to_owned(),
        "string" | "String" | "str" => "text".to_owned(),
        other => format!("a value of type {other}"),
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file.display(),
            self.line,
            self.column,
            shown(&self.message)
        )?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {}", shown(hint))?;
        }
        Ok(())
    }
}

/// `text` with the characters that show nothing or reorder what follows written as `\u{XXXX}`:
/// an unknown key `shouldRe\u{200B}ject` must not print exactly like the `shouldReject` its hint
/// suggests, nor a key behind a right-to-left mark like another (review 25h).
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(hides) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if hides(c) {
                    format!("\\u{{{:04X}}}", u32::from(c))
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// Control and format characters (zero-width spaces and joiners, bidirectional marks and
/// overrides, the soft hyphen, tag characters), variation selectors and the blank fillers.
fn hides(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            u32::from(c),
            0x00AD
                | 0x034F
                | 0x061C
                | 0x115F
                | 0x1160
                | 0x180E
                | 0x200B..=0x200F
                | 0x202A..=0x202E
                | 0x2060..=0x206F
                | 0x2800
                | 0x3164
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFA0
                | 0xFFF9..=0xFFFB
                | 0xE0000..=0xE007F
        )
}

/// A parsed serde "unknown field/variant" message.
struct UnknownName {
    /// "key" for fields, "value" for enum variants.
    what: &'static str,
    name: String,
    expected: Vec<String>,
}

impl UnknownName {
    /// Parses the wording serde's derive uses for every format (`serde::de::Error::unknown_field`
    /// and `unknown_variant`), and serde-saphyr's variant of it (expected names without backticks).
    fn parse(message: &str) -> Option<Self> {
        let (what, rest) = if let Some(rest) = message.strip_prefix("unknown field `") {
            ("key", rest)
        } else if let Some(rest) = message.strip_prefix("unknown variant `") {
            ("value", rest)
        } else {
            return None;
        };
        let (name, tail) = rest.split_once('`')?;
        let tail = tail.trim_start_matches(',').trim();
        let expected = if let Some(list) = tail.strip_prefix("expected one of ") {
            split_names(list)
        } else if let Some(list) = tail.strip_prefix("expected ") {
            split_names(list)
        } else {
            Vec::new()
        };
        Some(Self {
            what,
            name: name.to_string(),
            expected,
        })
    }

    fn message(&self) -> String {
        format!("unknown {} `{}`", self.what, self.name)
    }

    fn hint(&self) -> Option<String> {
        let names: Vec<&str> = self.expected.iter().map(String::as_str).collect();
        stdx::did_you_mean(&self.name, &names)
    }
}

/// Splits "`a`, `b`, `c`" (or "a, b, c") into names; toml adds "or" before the last one, and
/// serde writes two names as "`a` or `b`".
fn split_names(list: &str) -> Vec<String> {
    list.replace("` or `", "`, `")
        .split(',')
        .map(|s| {
            s.trim()
                .trim_start_matches("or ")
                .trim()
                .trim_matches('`')
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_field_becomes_unknown_key_with_suggestion() {
        let err = ConfigError::from_serde_message(
            Path::new("c.yaml"),
            3,
            1,
            "unknown field `topis`, expected one of `topics`, `tense`",
        );
        assert_eq!(err.message, "unknown key `topis`");
        assert_eq!(err.hint.as_deref(), Some("did you mean `topics`?"));
        assert_eq!(
            err.to_string(),
            "c.yaml:3:1: error: unknown key `topis`\n  hint: did you mean `topics`?"
        );
    }

    /// Review 25h: an unknown key holding a zero-width space printed exactly like the key its
    /// hint suggests; one behind a right-to-left override showed as another.
    #[test]
    fn invisible_characters_of_a_key_are_shown_as_escapes() {
        let err = ConfigError::from_serde_message(
            Path::new("s.yaml"),
            7,
            14,
            "unknown field `shouldRe\u{200b}ject`, expected one of `shouldReject`, `shouldWarn`",
        );
        let shown = err.to_string();
        assert!(
            shown.contains("unknown key `shouldRe\\u{200B}ject`"),
            "{shown}"
        );
        assert!(shown.contains("did you mean `shouldReject`?"), "{shown}");
        let err = ConfigError::new(
            Path::new("s.yaml"),
            1,
            1,
            "unknown key `\u{202e}tcejeRdluohs`",
        );
        assert!(err.to_string().contains("`\\u{202E}tcejeRdluohs`"), "{err}");
    }

    #[test]
    fn toml_style_lists_parse() {
        assert_eq!(split_names("`a`, `b`, or `c`"), vec!["a", "b", "c"]);
        // Two names (a TOML `prices` entry's keys): a hint, not "expected one of `a` or `b`".
        assert_eq!(split_names("`a` or `b`"), vec!["a", "b"]);
    }
}
