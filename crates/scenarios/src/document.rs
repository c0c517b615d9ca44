//! Format-aware, located parsing of one document (YAML, TOML or JSON) into any `Deserialize` type.
//!
//! This module owns the translation of each parser's error into a [`ConfigError`] with file, line,
//! column and hint, so every loader in the workspace (scenario configs, bot suites) reports the
//! same way.
//!
//! # Where custom errors are located
//! A `Deserialize` impl elsewhere (for example a suite's expectation type) may fail with
//! `serde::de::Error::custom("...")`. Those errors come out located as follows:
//! - **YAML** (serde-saphyr): `custom` itself creates a location-less error, and the deserializer
//!   attaches the position of the node being deserialised when the error propagates out of it, so
//!   the location is the start of the value whose `Deserialize` failed (for a mapping, its first
//!   key). A test in this module pins this behaviour.
//! - **TOML** (toml 1.x): the error carries the byte span of the value being deserialised; we
//!   convert its start into a line and column.
//! - **JSON** (serde_json): line and column of the parser position when the error was raised,
//!   which is just after the failing value.

use std::borrow::Cow;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde_saphyr::MessageFormatter as _;

use crate::KeySeg;
use crate::error::ConfigError;

/// The document formats we read, chosen by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.yaml` / `.yml`, parsed with serde-saphyr.
    Yaml,
    /// `.toml`, parsed with toml.
    Toml,
    /// `.json`, parsed with serde_json.
    Json,
}

impl Format {
    /// Detects the format from `path`'s extension (case-insensitive).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the file when the extension is missing or unknown.
    pub fn from_path(path: &Path) -> Result<Self, ConfigError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("yaml" | "yml") => Ok(Self::Yaml),
            Some("toml") => Ok(Self::Toml),
            Some("json") => Ok(Self::Json),
            other => Err(ConfigError::whole_file(
                path,
                match other {
                    Some(ext) => format!("unsupported file extension `.{ext}`"),
                    None => "the file has no extension, so its format is unknown".to_string(),
                },
            )
            .with_hint("use .yaml, .yml, .toml or .json")),
        }
    }
}

/// Parses `text` (the contents of `path`) into `T`, choosing the format from `path`'s extension.
///
/// Unknown keys (from `#[serde(deny_unknown_fields)]`) become "unknown key `x`" with a
/// "did you mean" hint; every other error keeps the parser's message and gets its location.
///
/// # Errors
/// A located [`ConfigError`] for syntax errors, type errors, unknown keys and custom errors.
pub fn parse_document<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    match Format::from_path(path)? {
        Format::Yaml => {
            yaml_tags_known(path, text)?;
            let value = serde_saphyr::from_str_with_options(text, yaml_options())
                .map_err(|e| yaml_error(path, text, &e))?;
            types_as_written::<T>(path, text)?;
            yaml_floats_kept(path, text)?;
            Ok(value)
        }
        Format::Toml => toml::from_str(text).map_err(|e| toml_error(path, text, &e)),
        Format::Json => {
            let value = serde_json::from_str(text).map_err(|e| json_error(path, text, &e))?;
            json_floats_kept(path, text)?;
            Ok(value)
        }
    }
}

/// Refuses a YAML number that a 64-bit float does not keep because it is too small
/// ([`underflows`]): the typed reading has already turned `1e-400` into 0, so `{gte: 1e-400}`
/// would pass on 0. A number is a plain scalar without a tag, or any scalar tagged `!!float`
/// (`!!float "1e-400"` is read as a float too, review 25l); quoted scalars and other tags
/// (`!!str 1e-400`) are text and never refused.
fn yaml_floats_kept(path: &Path, text: &str) -> Result<(), ConfigError> {
    let mut parser = granit_parser::Parser::new_from_str(text);
    while let Some(Ok((event, span))) = parser.next_event() {
        if let granit_parser::Event::Scalar(value, style, _, tag) = &event
            && match tag.as_deref() {
                None => *style == granit_parser::ScalarStyle::Plain,
                Some(tag) => tag.is_yaml_core_schema_tag("float"),
            }
            && underflows(value)
        {
            return Err(too_small(
                path,
                span.start.line(),
                span.start.col() + 1,
                value,
            ));
        }
    }
    Ok(())
}

/// A `%YAML` directive for another version than 1.2: YAML 1.1 reads `yes`, `on` and `070` as a
/// boolean and an octal number where this reader (1.2's core schema) reads text and 70, so the
/// file would not mean what its author declared (review 25i). Located at the directive.
fn other_yaml_version(
    path: &Path,
    text: &str,
    version: &granit_parser::YamlVersion,
) -> ConfigError {
    let line = text
        .lines()
        .position(|l| l.starts_with("%YAML"))
        .map_or(1, |i| i + 1);
    ConfigError::new(
        path,
        line,
        1,
        format!(
            "this file declares YAML {}.{}; it is read as YAML 1.2, where `yes` and `no` are text, \
             not booleans",
            version.major, version.minor
        ),
    )
    .with_hint("remove the `%YAML` line and write booleans as `true` / `false`")
}

/// Refuses a YAML tag outside YAML's core schema (`!custom [a]`, `!!python/object …`): the
/// reader would drop it silently and read the value as if untagged, so a tag that meant
/// something to its author would change nothing (review 25f). The core tags (`!!str`, `!!int`,
/// …) and the non-specific `!` are read as YAML says. A `%YAML` directive other than 1.2 is refused
/// too ([`other_yaml_version`]), and so is a second merge key in one mapping ([`MergeKeys`]).
fn yaml_tags_known(path: &Path, text: &str) -> Result<(), ConfigError> {
    let mut parser = granit_parser::Parser::new_from_str(text);
    let mut merges = MergeKeys::default();
    while let Some(Ok((event, span))) = parser.next_event() {
        if merges.second_merge_key(&event) {
            return Err(ConfigError::new(
                path,
                span.start.line(),
                span.start.col() + 1,
                "duplicate key `<<`",
            )
            .with_hint(
                "write each key once: merge several mappings with one `<<` and a list, \
                 `<<: [*a, *b]`",
            ));
        }
        if let granit_parser::Event::DocumentStart(_, Some(version)) = &event
            && (version.major, version.minor) != (1, 2)
        {
            return Err(other_yaml_version(path, text, version));
        }
        let tag = match &event {
            granit_parser::Event::Scalar(_, _, _, tag)
            | granit_parser::Event::SequenceStart(_, _, tag)
            | granit_parser::Event::MappingStart(_, _, tag) => tag.as_deref(),
            _ => None,
        };
        let Some(tag) = tag else { continue };
        if tag.is_yaml_core_schema() || tag.to_string() == "!" {
            continue;
        }
        return Err(ConfigError::new(
            path,
            span.start.line(),
            span.start.col() + 1,
            format!("unknown YAML tag `{tag}`"),
        )
        .with_hint(
            "this file is plain YAML: remove the tag (quote the value to keep it as text)",
        ));
    }
    Ok(())
}

/// Follows a YAML event stream to find a mapping with two merge keys (`<<`, plain and untagged,
/// or tagged `!!merge`): the reader takes them without a word and one merge's keys are lost
/// (review 25l), where any other key written twice is a "duplicate key" error.
#[derive(Default)]
struct MergeKeys {
    /// One entry per open collection: for a mapping, whether its next node is a key and whether
    /// it has had a merge key; `None` for a sequence.
    open: Vec<Option<MappingState>>,
}

#[derive(Clone, Copy)]
struct MappingState {
    at_key: bool,
    merged: bool,
}

impl MergeKeys {
    /// Takes the next event; true when it is a mapping's second merge key.
    fn second_merge_key(&mut self, event: &granit_parser::Event<'_>) -> bool {
        use granit_parser::Event;
        match event {
            Event::MappingStart(..) => self.open.push(Some(MappingState {
                at_key: true,
                merged: false,
            })),
            Event::SequenceStart(..) => self.open.push(None),
            Event::MappingEnd | Event::SequenceEnd => {
                self.open.pop();
                self.node_done();
            }
            Event::Alias(_) => self.node_done(),
            Event::Scalar(value, style, _, tag) => {
                let merge_key = value.as_ref() == "<<"
                    && match tag.as_deref() {
                        None => *style == granit_parser::ScalarStyle::Plain,
                        Some(tag) => tag.suffix() == "merge",
                    };
                if merge_key
                    && let Some(Some(mapping)) = self.open.last_mut()
                    && mapping.at_key
                {
                    if mapping.merged {
                        return true;
                    }
                    mapping.merged = true;
                }
                self.node_done();
            }
            _ => {}
        }
        false
    }

    /// A node ended: in a mapping, a key is followed by its value and a value by the next key.
    fn node_done(&mut self) {
        if let Some(Some(mapping)) = self.open.last_mut() {
            mapping.at_key = !mapping.at_key;
        }
    }
}

/// [`yaml_floats_kept`] for JSON: every number token outside strings.
fn json_floats_kept(path: &Path, text: &str) -> Result<(), ConfigError> {
    let mut in_string = false;
    let mut escaped = false;
    let mut token_start: Option<usize> = None;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        let numeric = c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E');
        match (token_start, numeric) {
            (None, true) => token_start = Some(at),
            (Some(start), false) => {
                token_start = None;
                let token = &text[start..at];
                if underflows(token) {
                    let (line, column) = line_col(text, start);
                    return Err(too_small(path, line, column, token));
                }
            }
            _ => {}
        }
        in_string = c == '"';
    }
    Ok(())
}

/// Whether `text`, read as a number, is too small for a 64-bit float: not zero as written but
/// zero once read (`1e-400`), or subnormal, which keeps fewer digits than a float promises
/// (`1e-310`).
fn underflows(text: &str) -> bool {
    let t = text.trim();
    let numeric = t
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if !numeric {
        return false;
    }
    let Ok(value) = t.parse::<f64>() else {
        return false;
    };
    let mantissa = t.split(['e', 'E']).next().unwrap_or(t);
    (value == 0.0 && mantissa.contains(|c: char| ('1'..='9').contains(&c))) || value.is_subnormal()
}

/// A number the reader refused as infinite or not a number (`1e400`, `-1e309`, `.inf`, `.nan`;
/// tagged `!!float` or not), in the author's words with a hint, as [`too_small`] (review 25l).
fn non_finite(value: &str) -> (String, &'static str) {
    let unsigned = value.trim().trim_start_matches(['-', '+']);
    let numeral = unsigned.starts_with(|c: char| c.is_ascii_digit())
        || unsigned.starts_with('.') && unsigned[1..].starts_with(|c: char| c.is_ascii_digit());
    if numeral {
        (
            format!(
                "the number {} is too large for a 64-bit float: a YAML or JSON reader would read \
                 it as infinity",
                value.trim()
            ),
            "quote it to compare it as an exact decimal with a numeric operator \
             ({lte: \"1e400\"}), or write a smaller number",
        )
    } else {
        (
            format!(
                "`{}` is infinity or not a number, which no check compares",
                value.trim()
            ),
            "write a finite number, or quote it (`\".inf\"`) to compare it as text",
        )
    }
}

fn too_small(path: &Path, line: usize, column: usize, number: &str) -> ConfigError {
    ConfigError::new(
        path,
        line,
        column,
        format!(
            "the number {number} is too small for a 64-bit float: a YAML or JSON reader would \
             read it as 0 or round it"
        ),
    )
    .with_hint(
        "quote it to compare it as an exact decimal with a numeric operator ({gte: \"1e-400\"}), \
         or write 0",
    )
}

/// The YAML reader turns a quoted `"7"` into a number and a plain `5` into text where the
/// target asks for one; TOML, JSON and the schemas do not. So the document is read again as
/// written (quoted scalars stay text, plain numbers numbers) and a scalar of the wrong kind is
/// refused at its key: YAML, TOML and the schema agree. Other differences are left to the typed
/// reading, which has already accepted the document.
fn types_as_written<T: DeserializeOwned>(path: &Path, text: &str) -> Result<(), ConfigError> {
    let Ok(tree) = serde_saphyr::from_str_with_options::<serde_json::Value>(text, yaml_options())
    else {
        return Ok(());
    };
    let Err(e) = serde_path_to_error::deserialize::<_, T>(tree) else {
        return Ok(());
    };
    let message = e.inner().to_string();
    let hint = if message.starts_with("invalid type: string") {
        "a number or true/false is written without quotes"
    } else if message.starts_with("invalid type: ")
        && (message.contains("expected a string") || message.contains("expected path string"))
    {
        "text that looks like a number or true/false is quoted: \"5\""
    } else {
        return Ok(());
    };
    let at: Vec<KeySeg> = e
        .path()
        .iter()
        .filter_map(|seg| match seg {
            serde_path_to_error::Segment::Seq { index } => Some(KeySeg::from(*index)),
            serde_path_to_error::Segment::Map { key } => Some(KeySeg::from(key.as_str())),
            _ => None,
        })
        .collect();
    let (message, _) = crate::error::users_words(&message);
    let message = match at.last() {
        Some(KeySeg::Key(key)) => format!("`{key}`: {message}"),
        _ => message,
    };
    let err = crate::SourceMap::build(path, text).error(&at, message);
    Err(err.with_hint(hint))
}

/// YAML 1.2 core-schema scalars: only `true`/`false` are booleans, so `yes`, `no`, `on`, `off`
/// stay strings (an expected parameter `confirm: yes` is the text "yes", and `shouldReject: yes`
/// is an error); and `1_000` is the text "1_000", not the number 1000 (digit separators are YAML
/// 1.1) wherever a value is read untyped (expected parameters, grid values).
fn yaml_options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    budget.max_events = 4 * MAX_NODES;
    options.budget = Some(budget);
    options.strict_booleans = true;
    options.underscored_numbers_as_strings = true;
    options
}

/// Reads `path` and parses it with [`parse_document`].
///
/// # Errors
/// I/O failures become a [`ConfigError`] on the whole file; parse errors as in [`parse_document`].
pub fn read_document<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = read_text(path)?;
    parse_document(path, &text)
}

/// Reads a file as UTF-8 text, mapping I/O errors to a [`ConfigError`].
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|e| ConfigError::whole_file(path, format!("cannot read the file: {e}")))
}

/// serde-saphyr wraps errors in snippet and alias layers; the message and location we want are on
/// the innermost one.
fn innermost(mut err: &serde_saphyr::Error) -> &serde_saphyr::Error {
    loop {
        match err {
            serde_saphyr::Error::WithSnippet { error, .. }
            | serde_saphyr::Error::AliasError { error, .. } => {
                err = error;
            }
            _ => return err,
        }
    }
}

fn yaml_error(path: &Path, text: &str, err: &serde_saphyr::Error) -> ConfigError {
    let inner = innermost(err);
    // Prefer the outermost location: for alias errors it is the use site, which is where the
    // author has to look first.
    let (line, column) = err
        .location()
        .or_else(|| inner.location())
        .map_or((0, 0), |loc| (to_usize(loc.line()), to_usize(loc.column())));
    if let Some((message, hint)) = reader_words(inner, text, line, column) {
        return ConfigError::new(path, line, column, message).with_hint(hint);
    }
    let message: Cow<'_, str> = match inner {
        // Built from the structured variant so the expected names survive exactly.
        serde_saphyr::Error::SerdeUnknownField {
            field, expected, ..
        } => {
            let list: Vec<String> = expected.iter().map(|e| format!("`{e}`")).collect();
            Cow::Owned(format!(
                "unknown field `{field}`, expected one of {}",
                list.join(", ")
            ))
        }
        // serde-saphyr's own text is a terse "invalid u64"; say what was expected instead.
        serde_saphyr::Error::InvalidScalar { ty, .. } => {
            match leading_zero(written_at(text, line, column).as_ref()) {
                Some(written) => {
                    return ConfigError::new(
                        path,
                        line,
                        column,
                        format!(
                            "`{written}` is a number with a leading zero: YAML 1.2 reads it as \
                             decimal, YAML 1.1 as octal"
                        ),
                    )
                    .with_hint("write it without the leading zero (or `0o…` for an octal number)");
                }
                None => {
                    if let Some((message, hint)) =
                        tagged_not_a_number(written_at(text, line, column).as_ref(), ty)
                    {
                        return ConfigError::new(path, line, column, message).with_hint(hint);
                    }
                    Cow::Owned(format!(
                        "invalid value: expected {}",
                        crate::error::describe_scalar(ty)
                    ))
                }
            }
        }
        other => serde_saphyr::DefaultMessageFormatter.format_message(other),
    };
    // The formatter may return control characters from the document; keep the message one line.
    let mut message = message.replace(['\n', '\r'], " ");
    // An anchor that holds an alias to itself: the reader's words name its own internals.
    if message.contains("recursive references") {
        return ConfigError::new(
            path,
            line,
            column,
            "this alias refers to the node that holds it (a recursive anchor)",
        )
        .with_hint(
            "an anchor (`&name`) cannot contain an alias to itself (`*name`): copy the value",
        );
    }
    // A value of the wrong type ("invalid value", "invalid boolean", "invalid type"): name its
    // key, which the parser's message leaves out.
    if message.starts_with("invalid ")
        && let Some(key) = key_before(text, line, column)
    {
        message = format!("`{key}`: {message}");
    }
    ConfigError::from_serde_message(path, line, column, &message)
}

/// A scalar as written at `line`:`column` (1-based), where the reader located an error.
struct Written<'a> {
    /// The core tag right before it (`!!int`, `!!float`), if any.
    tag: Option<&'a str>,
    /// As written, quotes included: `"0050"`.
    raw: &'a str,
    /// Its text, without quotes: `0050`.
    content: &'a str,
}

/// The scalar at `line`:`column` (1-based), with the tag written before it.
fn written_at(text: &str, line: usize, column: usize) -> Option<Written<'_>> {
    let row = text.lines().nth(line.checked_sub(1)?)?;
    let at = column.checked_sub(1)?;
    let (before, rest) = (row.get(..at)?, row.get(at..)?);
    let tag = before
        .trim_end()
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '{' | '[' | ','))
        .next()
        .filter(|t| t.starts_with("!!"));
    let (raw, content) = match rest.chars().next()? {
        quote @ ('"' | '\'') => {
            let end = rest[1..].find(quote)? + 1;
            (&rest[..=end], &rest[1..end])
        }
        _ => {
            let plain = rest
                .split(|c: char| c.is_whitespace() || matches!(c, ',' | '}' | ']' | '#'))
                .next()?;
            (plain, plain)
        }
    };
    Some(Written { tag, raw, content })
}

/// The scalar at `line`:`column` (1-based) when it is a whole number written with a leading
/// zero (`070`, `-007`, and `!!int "0050"`, which YAML 1.1 reads as octal too): the reader
/// refuses those because YAML's versions disagree on them. A quoted scalar without the tag is
/// text, not a number.
fn leading_zero<'a>(written: Option<&Written<'a>>) -> Option<&'a str> {
    let written = written?;
    if written.raw != written.content && written.tag != Some("!!int") {
        return None;
    }
    let digits = written.content.trim_start_matches(['+', '-']);
    let zeroed = digits.len() > 1
        && digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    zeroed.then_some(written.content)
}

/// A scalar tagged `!!int` or `!!float` that is no such number (`!!int "fifty"`) where any value
/// may stand (an expected parameter: the reader tries it as a `u64`, `i64` or float), said in
/// terms that fit any value, not a weight's or a limit's range (review 25l). A typed target
/// (`weight: !!int "-1"`) keeps its own range message.
fn tagged_not_a_number(written: Option<&Written<'_>>, ty: &str) -> Option<(String, String)> {
    let written = written?;
    let kind = match (written.tag?, ty) {
        ("!!int", "u64" | "i64") => "a whole number",
        ("!!float", "floating point") => "a number",
        _ => return None,
    };
    Some((
        format!(
            "`{} {}` cannot be read as {kind} here",
            written.tag?, written.raw
        ),
        format!(
            "write the number without the tag, e.g. `50`; or, for text, quote it without the \
             tag (`\"{}\"`)",
            written.content
        ),
    ))
}

/// Nesting deeper than [`MAX_DEPTH`], in the author's words.
fn too_deep() -> (String, &'static str) {
    (
        format!("the document nests deeper than {MAX_DEPTH} lists and mappings"),
        "flatten it: `not: {not: CHECK}` is CHECK itself, and an `all` (or `any`) inside another \
         is one list of checks",
    )
}

/// The reader's own errors that its words leave a suite's author without a next step (review
/// 25g: "budget breached: Nodes { nodes: 250001 }", "use from_str_multiple"), said in the
/// author's terms with a hint. `None` for every other error.
fn reader_words(
    inner: &serde_saphyr::Error,
    text: &str,
    line: usize,
    column: usize,
) -> Option<(String, &'static str)> {
    use serde_saphyr::budget::BudgetBreach;
    Some(match inner {
        // The scanner's own depth guard fires before the budget's for flow collections nested
        // thousands deep (`[[[[…`); it is the same breach (review 25j).
        serde_saphyr::Error::ExternalMessage { msg, .. } if msg == "recursion limit exceeded" => {
            too_deep()
        }
        serde_saphyr::Error::Budget { breach, .. } => match breach {
            BudgetBreach::Depth { .. } => too_deep(),
            BudgetBreach::Aliases { .. }
            | BudgetBreach::AliasAnchorRatio { .. }
            | BudgetBreach::Anchors { .. } => (
                "the document repeats anchors through aliases (`*name`) more than a file of \
                 this size should (a guard against alias bombs)"
                    .to_owned(),
                "write the repeated values out, or split the file",
            ),
            BudgetBreach::Documents { .. } => multiple_documents(),
            _ => (
                format!(
                    "the document is larger than this reader's limit ({MAX_NODES} YAML values, \
                     aliases expanded)"
                ),
                "split it into several files, or check that no alias (`*name`) repeats a large \
                 value",
            ),
        },
        serde_saphyr::Error::MultipleDocuments { .. } => multiple_documents(),
        serde_saphyr::Error::NonFiniteFloat { value, .. } => non_finite(value),
        serde_saphyr::Error::Eof { .. }
            if text
                .lines()
                .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) =>
        {
            (
                "the file is empty: it has no YAML content (only blank lines or comments)"
                    .to_owned(),
                "write the document's keys into it (docs/suites.md and docs/config.md show \
                 complete examples)",
            )
        }
        serde_saphyr::Error::UnknownAnchor { .. } => {
            let row = text.lines().nth(line.checked_sub(1)?)?;
            let at: String = row.chars().skip(column.saturating_sub(1)).collect();
            let name: String = at
                .trim_start_matches('*')
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ']' | '}'))
                .collect();
            (
                format!("the alias `*{name}` names no anchor defined before it"),
                "define the anchor (`&name value`) earlier in the file than its first alias, or \
                 quote the text if `*` was meant literally",
            )
        }
        serde_saphyr::Error::Unexpected { expected, .. } if expected.contains("scalar") => (
            format!("expected {expected} here, found a list or a mapping"),
            "this key or value is one piece of text: a list (`[a, b]`), a mapping (`{a: b}`) or \
             a complex key (`? …`) cannot stand here",
        ),
        _ => return None,
    })
}

fn multiple_documents() -> (String, &'static str) {
    (
        "the file holds more than one YAML document (a `---` or `...` line starts another)"
            .to_owned(),
        "one file is one document: remove the separator line, or move the second document into \
         a file of its own",
    )
}

/// The reader's limits: a nesting depth and a number of values (aliases expanded) that no
/// real suite or config reaches (a 46 MB suite of about 300,000 scenarios is under them), and
/// that keep a hostile file from taking the memory or the stack.
const MAX_DEPTH: usize = 64;
const MAX_NODES: usize = 2_000_000;

/// The key whose value starts at `line`:`column` (1-based), read from the text before it on that
/// line: `slots` in `local: {slots: "x"}`. `None` when the value is not on its key's line.
fn key_before(text: &str, line: usize, column: usize) -> Option<String> {
    let row = text.lines().nth(line.checked_sub(1)?)?;
    let before: String = row.chars().take(column.checked_sub(1)?).collect();
    let before = before.trim_end().strip_suffix(':')?;
    let key = before
        .rsplit(|c: char| c == '{' || c == ',' || c == '-' || c.is_whitespace())
        .next()?
        .trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty()).then(|| key.to_owned())
}

fn toml_error(path: &Path, text: &str, err: &toml::de::Error) -> ConfigError {
    let (line, column) = err.span().map_or((0, 0), |span| line_col(text, span.start));
    let message = err.message().trim().replace('\n', " ");
    let mut error = ConfigError::from_serde_message(path, line, column, &message);
    // `weight = "2"`: TOML keeps a quoted number text, as YAML's reading as written does
    // (`types_as_written`); give the same hint.
    if error.hint.is_none() && quoted_scalar(&message) {
        error.hint = Some("a number or true/false is written without quotes".to_owned());
    }
    error
}

/// A text where a number or a boolean was expected.
fn quoted_scalar(message: &str) -> bool {
    message.starts_with("invalid type: string")
        && [
            "a number",
            "integer",
            "float",
            "f64",
            "u32",
            "u64",
            "a boolean",
            "bool",
        ]
        .iter()
        .any(|t| message.contains(&format!("expected {t}")))
}

fn json_error(path: &Path, text: &str, err: &serde_json::Error) -> ConfigError {
    let (line, column) = (err.line(), err.column());
    // serde_json appends " at line L column C" to its Display; we carry those as fields.
    let full = err.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    // A number too large for a float (`1e400`): located at its start and said as YAML's is.
    if message == "number out of range"
        && let Some((start, number)) = number_ending_at(text, line, column)
    {
        let (message, hint) = non_finite(number);
        return ConfigError::new(path, line, start, message).with_hint(hint);
    }
    ConfigError::from_serde_message(path, line, column, message)
}

/// The number token whose last character is at `line`:`column` (1-based), with the column it
/// starts at: serde_json locates an out-of-range number at its end.
fn number_ending_at(text: &str, line: usize, column: usize) -> Option<(usize, &str)> {
    let row = text.lines().nth(line.checked_sub(1)?)?;
    let end = row.char_indices().nth(column.checked_sub(1)?)?;
    let upto = &row[..end.0 + end.1.len_utf8()];
    let start = upto
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
        .last()?
        .0;
    let number = &upto[start..];
    Some((upto[..start].chars().count() + 1, number))
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// 1-based line and column (in characters) of byte offset `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    // Step back to a char boundary so slicing cannot panic on a span inside a multi-byte char.
    let offset = (0..=offset)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // fields exist to be deserialised
    struct Doc {
        name: String,
        count: u32,
        #[serde(default)]
        inner: Option<Inner>,
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key() {
        let path = PathBuf::from("d.yaml");
        let err = parse_document::<Doc>(&path, "name: x\ncount: \"many\"\n").expect_err("bad");
        assert!(err.to_string().contains("`count`: invalid value"), "{err}");
        assert_eq!((err.line, err.column), (2, 8), "{err}");
        assert_eq!(
            key_before("run:\n  local: {slots: \"x\"}\n", 2, 18).as_deref(),
            Some("slots")
        );
        assert_eq!(key_before("a:\n  - 1\n", 2, 5), None);
    }

    #[test]
    fn yaml_reads_scalars_as_yaml_1_2() {
        let path = PathBuf::from("s.yaml");
        let v: serde_json::Value = parse_document(
            &path,
            "a: yes\nb: on\nc: true\nd: \"0012\"\ne: 0012\nf: 1_000\ng: 1000\n",
        )
        .expect("parses");
        assert_eq!(v["f"], "1_000");
        assert_eq!(v["g"], 1000);
        assert_eq!(v["a"], "yes");
        assert_eq!(v["b"], "on");
        assert_eq!(v["c"], true);
        assert_eq!(v["d"], "0012");
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)] // the field exists to be deserialised
        struct Flag {
            flag: bool,
        }
        assert!(parse_document::<Flag>(&path, "flag: yes\n").is_err());
    }

    /// Review 25f: a tag outside YAML's core schema was dropped silently; a recursive anchor
    /// failed in the reader's own words.
    #[test]
    fn unknown_tags_and_recursive_anchors_are_located_with_a_hint() {
        let path = PathBuf::from("s.yaml");
        let err = parse_document::<serde_json::Value>(&path, "a: 1\nb: !custom [x]\n")
            .expect_err("an unknown tag");
        let shown = err.to_string();
        assert!(shown.starts_with("s.yaml:2:"), "{shown}");
        assert!(shown.contains("unknown YAML tag `!custom`"), "{shown}");
        assert!(shown.contains("hint: this file is plain YAML"), "{shown}");
        let v: serde_json::Value =
            parse_document(&path, "a: !!str 5\nb: ! 6\n").expect("core tags read as YAML says");
        assert_eq!(v["a"], "5");
        let err = parse_document::<serde_json::Value>(&path, "a: &x\n  b: *x\n")
            .expect_err("a recursive anchor");
        let shown = err.to_string();
        assert!(shown.contains("recursive anchor"), "{shown}");
        assert!(shown.contains("hint: an anchor"), "{shown}");
    }

    /// Review 25g: the reader's own limits and errors reached the author in its words ("budget
    /// breached: Nodes { nodes: 250001 }", "use from_str_multiple"), without a hint; and a valid
    /// suite of 40,000 scenarios (5.7 MB) was refused.
    #[test]
    fn the_readers_limits_and_errors_are_said_in_the_authors_terms_with_a_hint() {
        /// A document with keys, as every suite and config is.
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Doc {
            a: serde_json::Value,
        }
        let path = PathBuf::from("s.yaml");
        let shown = |text: &str| {
            parse_document::<Doc>(&path, text)
                .expect_err(text)
                .to_string()
        };
        let cases = [
            (
                format!("a: {}1{}\n", "[".repeat(70), "]".repeat(70)),
                "nests deeper than 64",
                "hint: flatten it",
            ),
            // Review 25j: 100,000 levels reached the scanner's own guard first, with no hint.
            (
                format!("a: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
                "nests deeper than 64",
                "hint: flatten it",
            ),
            (
                "a: 1\n---\nb: 2\n".to_owned(),
                "more than one YAML document",
                "hint: one file is one document",
            ),
            (
                "a: 1\n...\nb: 2\n".to_owned(),
                "more than one YAML document",
                "hint: one file is one document",
            ),
            (String::new(), "the file is empty", "hint: write"),
            (
                "# only a comment\n\n".to_owned(),
                "the file is empty",
                "hint: write",
            ),
            (
                "a: [x, *nope]\n".to_owned(),
                "the alias `*nope` names no anchor",
                "hint: define the anchor",
            ),
        ];
        for (text, message, hint) in &cases {
            let shown = shown(text);
            assert!(shown.starts_with("s.yaml:"), "{shown}");
            assert!(shown.contains(message), "{text:?}: {shown}");
            assert!(shown.contains(hint), "{text:?}: {shown}");
            assert!(
                !shown.contains("budget") && !shown.contains("from_str"),
                "{shown}"
            );
        }
        // 300,000 values (over the reader's default of 250,000) load.
        let big = format!("a: [{}]\n", vec!["1"; 300_000].join(", "));
        let v: serde_json::Value = parse_document(&path, &big).expect("a large document loads");
        assert_eq!(v["a"].as_array().map(Vec::len), Some(300_000));
        // An alias bomb is refused in the author's terms.
        let mut bomb = String::from("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let prev = i - 1;
            bomb.push_str(&format!(
                "l{i}: &l{i} [*l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}, *l{prev}]\n"
            ));
        }
        let shown = shown(&bomb);
        assert!(shown.contains("hint:"), "{shown}");
        assert!(!shown.contains("budget breached"), "{shown}");
    }

    /// A type whose `Deserialize` fails with a custom message, like a colleague's impl would.
    #[derive(Debug)]
    struct Inner;

    impl<'de> Deserialize<'de> for Inner {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let value = serde_json::Value::deserialize(d)?;
            if value.get("ok").is_some() {
                Ok(Inner)
            } else {
                Err(serde::de::Error::custom("inner needs `ok`"))
            }
        }
    }

    fn yaml(text: &str) -> ConfigError {
        parse_document::<Doc>(&PathBuf::from("doc.yaml"), text).unwrap_err()
    }

    #[test]
    fn yaml_unknown_key_is_located_with_suggestion() {
        let err = yaml("name: a\ncont: 3\n");
        assert_eq!((err.line, err.column), (2, 1));
        assert_eq!(err.message, "unknown key `cont`");
        assert_eq!(err.hint.as_deref(), Some("did you mean `count`?"));
    }

    #[test]
    fn yaml_wrong_type_is_located() {
        let err = yaml("name: a\ncount: many\n");
        assert_eq!((err.line, err.column), (2, 8));
        assert!(err.message.contains("invalid"), "{}", err.message);
    }

    #[test]
    fn yaml_custom_error_is_located_at_the_failing_value() {
        let err = yaml("name: a\ncount: 1\ninner:\n  nope: 1\n");
        assert_eq!(err.message, "inner needs `ok`");
        assert_eq!(err.line, 4, "{err}");
    }

    #[test]
    fn yaml_syntax_error_is_located() {
        let err = yaml("name: [a\ncount: 1\n");
        assert!(err.line > 0, "{err}");
        assert!(err.to_string().starts_with("doc.yaml:"), "{err}");
    }

    #[test]
    fn toml_errors_are_located() {
        let path = PathBuf::from("doc.toml");
        let err = parse_document::<Doc>(&path, "name = \"a\"\ncout = 3\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 1));
        assert_eq!(err.message, "unknown key `cout`");
        assert_eq!(err.hint.as_deref(), Some("did you mean `count`?"));

        let err = parse_document::<Doc>(&path, "name = \"a\"\ncount = 1\n[inner]\nnope = 1\n")
            .unwrap_err();
        assert_eq!(err.message, "inner needs `ok`");
        assert_eq!(err.line, 3, "{err}");

        let err = parse_document::<Doc>(&path, "name = \"a\"\ncount = = 1\n").unwrap_err();
        assert_eq!(err.line, 2, "{err}");

        // A quoted number gets YAML's hint (TOML gave none).
        let err = parse_document::<Doc>(&path, "name = \"a\"\ncount = \"2\"\n").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
        assert_eq!(
            err.hint.as_deref(),
            Some("a number or true/false is written without quotes"),
            "{err}"
        );
    }

    #[test]
    fn json_errors_are_located() {
        let path = PathBuf::from("doc.json");
        let err = parse_document::<Doc>(&path, "{\"name\": \"a\",\n \"cuont\": 1}").unwrap_err();
        assert_eq!(err.line, 2);
        assert_eq!(err.message, "unknown key `cuont`");
        assert_eq!(err.hint.as_deref(), Some("did you mean `count`?"));
    }

    #[test]
    fn unknown_extension_and_missing_file() {
        let err = parse_document::<Doc>(&PathBuf::from("doc.ini"), "").unwrap_err();
        assert_eq!(err.message, "unsupported file extension `.ini`");
        assert_eq!(err.hint.as_deref(), Some("use .yaml, .yml, .toml or .json"));
        let err = read_document::<Doc>(&PathBuf::from("/nonexistent/x.yaml")).unwrap_err();
        assert!(
            err.message.starts_with("cannot read the file"),
            "{}",
            err.message
        );
        assert_eq!((err.line, err.column), (0, 0));
    }

    /// Review 25b, #17: `1e-400` was read as 0, so `{gte: 1e-400}` passed on 0.
    #[test]
    fn numbers_too_small_for_a_float_are_located() {
        let value = |text: &str, name: &str| {
            parse_document::<serde_json::Value>(&PathBuf::from(name), text)
        };
        let err = value("a: 1\nb: {gte: 1e-400}\n", "s.yaml").unwrap_err();
        assert_eq!((err.line, err.column), (2, 10), "{err}");
        assert!(err.to_string().contains("1e-400 is too small"), "{err}");
        assert!(value("b: [1, -1e-320]\n", "s.yaml").is_err());
        let err = value("{\"b\": {\"gte\": 1e-400}}", "s.json").unwrap_err();
        assert_eq!((err.line, err.column), (1, 15), "{err}");
        // Zero, ordinary numbers, quoted text and words are kept as they are.
        for ok in [
            "a: 0.0e-400\nb: 1e-300\nc: \"1e-400\"\nd: '1e-400'\ne: 1e-400x\nf: -0\n",
            "t: |\n  1e-400 in a block is text\n",
        ] {
            value(ok, "s.yaml").unwrap_or_else(|e| panic!("{ok:?}: {e}"));
        }
        value(
            "{\"a\": \"1e-400\", \"b\": 0e5, \"c\": \"x\\\" 1e-400\"}",
            "s.json",
        )
        .expect("kept");
    }

    /// Review 25l, #9: `!!float "1e-400"` (a quoted scalar with the float tag) was read as 0
    /// without the load error an untagged `1e-400` gets; `!!str 1e-400` is text and loads.
    #[test]
    fn a_tagged_float_too_small_is_refused_as_an_untagged_one() {
        let value =
            |text: &str| parse_document::<serde_json::Value>(&PathBuf::from("s.yaml"), text);
        for (text, at) in [
            ("a: 1\nb: {gte: !!float \"1e-400\"}\n", (2, 18)),
            ("a: 1\nb: !!float '-1e-320'\n", (2, 12)),
            ("a: 1\nb: !!float 1e-400\n", (2, 12)),
        ] {
            let err = value(text).expect_err(text);
            assert_eq!((err.line, err.column), at, "{text:?}: {err}");
            assert!(
                err.message.contains("is too small for a 64-bit float"),
                "{err}"
            );
            assert!(
                err.hint.as_deref().is_some_and(|h| h.contains("quote it")),
                "{err}"
            );
        }
        let v = value("a: !!str 1e-400\nb: ! 1e-400\n").expect("tagged text is text");
        assert_eq!(v["a"], "1e-400");
    }

    /// Review 25l, #13: a number too large for a float (`1e400`, tagged or not) was refused in
    /// the reader's words ("rejected by the configured policy"), without a hint.
    #[test]
    fn a_float_too_large_is_located_with_a_hint() {
        let value =
            |text: &str| parse_document::<serde_json::Value>(&PathBuf::from("s.yaml"), text);
        for (text, number, at) in [
            ("a: 1\nb: {lte: 1e400}\n", "1e400", (2, 10)),
            ("a: 1\nb: {lte: !!float \"1e400\"}\n", "1e400", (2, 18)),
            ("a: 1\nb: -1e309\n", "-1e309", (2, 4)),
        ] {
            let err = value(text).expect_err(text);
            assert_eq!((err.line, err.column), at, "{text:?}: {err}");
            assert_eq!(
                err.message,
                format!(
                    "the number {number} is too large for a 64-bit float: a YAML or JSON reader \
                     would read it as infinity"
                ),
                "{text:?}"
            );
            assert!(
                err.hint.as_deref().is_some_and(|h| h.contains("quote it")),
                "{text:?}: {err}"
            );
        }
        let err = parse_document::<serde_json::Value>(
            &PathBuf::from("s.json"),
            "{\"a\": 1,\n \"b\": {\"lte\": -1e400}}",
        )
        .expect_err("JSON");
        assert_eq!((err.line, err.column), (2, 15), "{err}");
        assert!(
            err.message.starts_with("the number -1e400 is too large"),
            "{err}"
        );
        assert!(err.hint.is_some(), "{err}");
        let err = value("a: .inf\n").expect_err("infinity");
        assert!(err.message.contains("`.inf`"), "{err}");
        assert!(err.hint.is_some(), "{err}");
    }

    /// Review 25l, #10: two `<<` merge keys in one mapping loaded, and the first merge was lost.
    /// They are a duplicate key like any other, at the second one.
    #[test]
    fn two_merge_keys_in_one_mapping_are_a_duplicate_key() {
        let value =
            |text: &str| parse_document::<serde_json::Value>(&PathBuf::from("s.yaml"), text);
        for (text, at) in [
            ("a: 1\nb:\n  <<: {x: [1]}\n  <<: {x: [2]}\n", (4, 3)),
            ("a: 1\nb: {<<: {x: 1}, <<: {y: 2}}\n", (2, 17)),
            (
                "base: &b {x: 1}\nc:\n  - <<: *b\n    y: 2\n    <<: *b\n",
                (5, 5),
            ),
        ] {
            let err = value(text).expect_err(text);
            assert_eq!((err.line, err.column), at, "{text:?}: {err}");
            assert_eq!(err.message, "duplicate key `<<`", "{text:?}");
            assert!(
                err.hint
                    .as_deref()
                    .is_some_and(|h| h.contains("<<: [*a, *b]")),
                "{err}"
            );
        }
        // One merge key per mapping, a list of merges, and `<<` in nested mappings load.
        let v =
            value("b: &b {x: 1}\nc: {<<: *b, y: 2}\nd: {<<: [*b, {z: 3}], e: {<<: *b}}\nf: '<<'\n")
                .expect("one merge key per mapping");
        assert_eq!(v["c"]["x"], 1);
        assert_eq!(v["d"]["z"], 3);
        assert_eq!(v["d"]["e"]["x"], 1);
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncdé f", 8), (2, 5));
        assert_eq!(line_col("", 5), (1, 1));
    }
}
