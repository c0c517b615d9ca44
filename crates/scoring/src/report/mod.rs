//! Reports of one scored scenario in three formats: plain text (the seed's `[SCORE]`/`[RESULT]` +
//! Check Details layout), Markdown (a table) and JSON (serde, stable snake_case field names).
//!
//! The text and Markdown layouts are minijinja templates in `report/templates/*.j2`, embedded at
//! compile time so the crate needs no files at run time; this module only builds the values they
//! show and the escaping filters. Layout decisions (one line per check, markers for critical and
//! zero-weight checks, the PASS/FAIL line with its reasons) live in the templates.

pub mod junit;

use crate::card::ScoreCard;
use minijinja::{Environment, UndefinedBehavior, syntax::SyntaxConfig};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

const TEXT_TEMPLATE: &str = "text.txt.j2";
const MARKDOWN_TEMPLATE: &str = "markdown.md.j2";

/// Errors while rendering a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A report template failed to render (a bug in a template, never in the input).
    #[error("report template `{template}` failed: {source}")]
    Template {
        /// The template's file name.
        template: &'static str,
        /// What minijinja reported.
        #[source]
        source: minijinja::Error,
    },
    /// A report template failed to parse when the templates were first loaded (a template bug).
    #[error("report template `{template}` failed to load: {message}")]
    TemplateLoad {
        /// The template's file name.
        template: &'static str,
        /// What minijinja reported.
        message: String,
    },
    /// The JSON report could not be serialized.
    #[error("JSON report failed: {0}")]
    Json(#[from] serde_json::Error),
}

/// An unknown report format name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown report format `{0}` (expected text, markdown or json)")]
pub struct UnknownFormat(pub String);

/// The output formats of a scenario report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportFormat {
    /// The seed's plain-text layout.
    #[default]
    Text,
    /// A Markdown section with a table of checks.
    Markdown,
    /// Pretty-printed JSON of [`ScenarioReport`].
    Json,
}

impl ReportFormat {
    /// Renders `report` in this format.
    ///
    /// # Errors
    /// See [`ReportError`].
    pub fn render(self, report: &ScenarioReport) -> Result<String, ReportError> {
        match self {
            Self::Text => render_text(report),
            Self::Markdown => render_markdown(report),
            Self::Json => render_json(report),
        }
    }

    /// The conventional file extension of this format, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Self::Text => "txt",
            Self::Markdown => "md",
            Self::Json => "json",
        }
    }
}

impl fmt::Display for ReportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Text => "text",
            Self::Markdown => "markdown",
            Self::Json => "json",
        })
    }
}

impl FromStr for ReportFormat {
    type Err = UnknownFormat;

    /// `text`/`txt`, `markdown`/`md`, `json`, case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(Self::Text),
            "markdown" | "md" => Ok(Self::Markdown),
            "json" => Ok(Self::Json),
            _ => Err(UnknownFormat(s.to_owned())),
        }
    }
}

/// One scenario's report: who it is, and its score card. Serializes flat:
/// `id`, `name`, `category`, then the card's fields (`checks`, `score`, `counted_checks`,
/// `show_score`, `passed`, `threshold`, `strict`, `failed_critical`, `reasons`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    /// The scenario's stable id.
    pub id: String,
    /// The scenario's human name.
    pub name: String,
    /// The scenario's category (`happy-path`, `adversarial`, …).
    pub category: String,
    /// The verdict.
    #[serde(flatten)]
    pub card: ScoreCard,
}

impl ScenarioReport {
    /// A report of the scenario `id`/`name`/`category` with its card.
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        category: impl Into<String>,
        card: ScoreCard,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            category: category.into(),
            card,
        }
    }
}

/// What the templates see: the report plus values derived from the card, so templates stay free
/// of logic. Reasons are pre-rendered with their `Display` text.
#[derive(Serialize)]
struct View<'a> {
    id: &'a str,
    name: &'a str,
    category: &'a str,
    score: u32,
    counted_checks: usize,
    show_score: bool,
    all_checks_passed: bool,
    passed: bool,
    threshold: u32,
    strict: bool,
    reasons: Vec<String>,
    checks: &'a [crate::check::Check],
}

impl<'a> View<'a> {
    fn new(report: &'a ScenarioReport) -> Self {
        let card = &report.card;
        Self {
            id: &report.id,
            name: &report.name,
            category: &report.category,
            score: card.score(),
            counted_checks: card.counted_checks(),
            show_score: card.show_score(),
            all_checks_passed: card.all_checks_passed(),
            passed: card.passed(),
            threshold: card.threshold(),
            strict: card.strict(),
            reasons: card.reasons().iter().map(ToString::to_string).collect(),
            checks: card.checks(),
        }
    }
}

/// The templates, parsed once. Loading can only fail on a template bug; the error (as text, since
/// `minijinja::Error` cannot be cloned) is kept and returned by every render instead of panicking.
static TEMPLATES: LazyLock<Result<Environment<'static>, (&'static str, String)>> =
    LazyLock::new(|| build_environment().map_err(|(name, e)| (name, format!("{e:#}"))));

/// The template environment every report of the workspace renders with: block tags on their own
/// lines stay out of the output, undefined variables are errors, and the filters `oneline`,
/// `md` (the one Markdown escape, [`markdown_escape`]) and `code` are defined. Callers add their
/// templates.
///
/// # Errors
/// Only if the syntax configuration is rejected by minijinja.
pub fn template_environment() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    // Block tags sit on their own lines in the templates; these options keep them out of the output.
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()?;
    env.set_syntax(syntax);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_filter("oneline", oneline);
    env.add_filter("md", markdown_escape);
    env.add_filter("code", code_span);
    Ok(env)
}

fn build_environment() -> Result<Environment<'static>, (&'static str, minijinja::Error)> {
    let mut env = template_environment().map_err(|e| ("syntax", e))?;
    env.add_template(TEXT_TEMPLATE, include_str!("templates/text.txt.j2"))
        .map_err(|e| (TEXT_TEMPLATE, e))?;
    env.add_template(MARKDOWN_TEMPLATE, include_str!("templates/markdown.md.j2"))
        .map_err(|e| (MARKDOWN_TEMPLATE, e))?;
    Ok(env)
}

fn render_template(template: &'static str, report: &ScenarioReport) -> Result<String, ReportError> {
    let env = TEMPLATES
        .as_ref()
        .map_err(|(name, message)| ReportError::TemplateLoad {
            template: name,
            message: message.clone(),
        })?;
    let rendered = env
        .get_template(template)
        .and_then(|t| t.render(minijinja::value::Serde(View::new(report))))
        .map_err(|source| ReportError::Template { template, source })?;
    tracing::trace!(template, id = %report.id, "rendered report");
    Ok(rendered)
}

/// The seed's plain-text report: `[SCORE] 83/100 (3 checks)` (or a `[RESULT]` line below 3
/// counted checks), a `[PASS]`/`[FAIL]` line with every reason, then `Check Details:` with one
/// `  ✓ name: message` line per check (`[critical]` and `[not scored]` markers after the name).
///
/// # Errors
/// [`ReportError::Template`] or [`ReportError::TemplateLoad`] on a template bug.
pub fn render_text(report: &ScenarioReport) -> Result<String, ReportError> {
    render_template(TEXT_TEMPLATE, report)
}

/// A Markdown section: heading with name and id, a summary line, the failure reasons as a list,
/// and a table of checks (mark, name, weight, message).
///
/// # Errors
/// [`ReportError::Template`] or [`ReportError::TemplateLoad`] on a template bug.
pub fn render_markdown(report: &ScenarioReport) -> Result<String, ReportError> {
    render_template(MARKDOWN_TEMPLATE, report)
}

/// Pretty-printed JSON of the report (see [`ScenarioReport`] for the fields), ending in a newline.
///
/// # Errors
/// [`ReportError::Json`] if serialization fails.
pub fn render_json(report: &ScenarioReport) -> Result<String, ReportError> {
    let mut json = serde_json::to_string_pretty(report)?;
    json.push('\n');
    Ok(json)
}

/// Keeps a model's multi-line message on its one report line.
fn oneline(value: &str) -> String {
    value
        .split(['\r', '\n'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Escapes text for a Markdown table cell or paragraph: characters with Markdown meaning get a
/// backslash, `|` would end the cell, and newlines become `<br>` so a row stays one line. The
/// workspace's one Markdown filter (`md` in every template environment that renders Markdown).
#[must_use]
pub fn markdown_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' => out.push_str("<br>"),
            '\r' => {}
            _ => out.push(ch),
        }
    }
    out
}

/// Text for inside a single-backtick code span, where escapes do not work: drop what would end it.
fn code_span(value: &str) -> String {
    value
        .chars()
        .filter(|c| !matches!(c, '`' | '\n' | '\r'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for format in [
            ReportFormat::Text,
            ReportFormat::Markdown,
            ReportFormat::Json,
        ] {
            assert_eq!(format.to_string().parse::<ReportFormat>(), Ok(format));
        }
        assert_eq!("MD".parse::<ReportFormat>(), Ok(ReportFormat::Markdown));
        assert_eq!(
            "html".parse::<ReportFormat>(),
            Err(UnknownFormat("html".into()))
        );
    }

    #[test]
    fn escaping_filters() {
        assert_eq!(oneline("a\nb\r\nc"), "a b c");
        assert_eq!(markdown_escape("a|b*c_d\ne"), r"a\|b\*c\_d<br>e");
        assert_eq!(code_span("x`y\nz"), "xyz");
    }

    #[test]
    fn templates_load() {
        assert!(TEMPLATES.is_ok(), "{:?}", TEMPLATES.as_ref().err());
    }
}
