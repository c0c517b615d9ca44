//! Bot test suites: the YAML file that names a bot, suite defaults and scenarios, its loading with
//! located errors ([`load_suite`]), and the runner that plays every scenario against a fresh bot
//! and scores it ([`run_suite`]).
//!
//! A suite looks like this (see `fixtures/suites/wallet-assistant.yaml` for a full one):
//!
//! ```yaml
//! name: wallet-assistant
//! bot: { kind: scripted, system_prompt: "...", agents: [...], llm: {...} }
//! defaults: { threshold: 70, strict: false, critical: [expectedFunction], turn_timeout_ms: 30000 }
//! scenarios:
//!   - id: send-basic
//!     name: Send money to a contact
//!     category: happy-path
//!     steps: ["Send 50 USD to Alice"]
//!     expect: { expectedFunction: send_money, expectedParams: { amount: 50 } }
//!     script: { expect_outcome: pass, turns: [ { text: "...", plan: [...] } ] }
//!   - template:                     # parametrized: one scenario per grid point
//!       id: send-amount
//!       steps: ["Send {{ amount }} USD to Bob"]
//!       expect: { expectedParams: { amount: "{{ amount }}" } }
//!     grid: { amount: [1, 20, 300] }
//! ```
//!
//! Steps are user turns; a step may carry its own `expect` (`{say: ..., expect: {...}}`), which
//! then targets that turn. Template strings are minijinja; a string that is exactly one
//! `{{ name }}` takes the grid value with its type (so `amount: "{{ amount }}"` stays a number).

mod bots;
mod load;
mod run;
mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use scoring::CheckKind;
use scoring::expect::Expectations;

use crate::bot::{BotSpec, Script};

pub use bots::SuiteBots;
pub use load::{load_suite, parse_suite};
pub use run::{
    BotFactory, RunOptions, Selection, SuiteProgress, run_scenario, run_scenario_with, run_suite,
};
pub use schema::suite_schema;

/// The folder of a suite file, where its `command` checks run and its side files resolve:
/// `.` for a bare file name (`Path::parent` gives an empty path there, which no process can be
/// started in).
#[must_use]
pub fn suite_folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A loaded, validated suite.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Suite name (defaults to the file stem).
    pub name: String,
    /// Free text.
    pub description: String,
    /// The file it was loaded from (scripts side files resolve against it).
    pub path: PathBuf,
    /// The bot section.
    pub bot: BotSpec,
    /// Suite-wide defaults.
    pub defaults: Defaults,
    /// Scenarios, templates expanded, in file order.
    pub scenarios: Vec<SuiteScenario>,
}

/// The suite's `defaults:` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Defaults {
    /// Lowest passing score (0–100).
    pub threshold: u32,
    /// Any failed check fails the scenario.
    pub strict: bool,
    /// Check kinds that are critical unless a check says otherwise.
    pub critical: Vec<CheckKind>,
    /// Weight per kind replacing the seed's defaults.
    pub weights: std::collections::BTreeMap<CheckKind, u32>,
    /// Timeout of one bot turn, in milliseconds.
    pub turn_timeout_ms: u64,
    /// The embedding model `similar` checks ask for (default `text-embedding-3-small`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<String>,
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            threshold: scoring::card::DEFAULT_THRESHOLD,
            strict: false,
            critical: Vec::new(),
            weights: std::collections::BTreeMap::new(),
            turn_timeout_ms: 30_000,
            embedding_model: None,
        }
    }
}

/// A scenario's category: free-form text, of which the spec's ten are the known ones
/// ([`Category::KNOWN`]). A name one or two edits from a known one (`happy_path`, `edge-cases`) is
/// refused with a did-you-mean, so a typo never becomes a category of its own in the report.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Category(String);

impl Category {
    /// The spec's categories: happy-path (clear, allowed requests), adversarial (prompt injection
    /// and other hostile input), jailbreak, ambiguity (missing or unclear information), edge-case
    /// (boundaries, invalid input), stress, context-awareness (uses earlier turns), knowledge,
    /// multi-step, custom.
    pub const KNOWN: [&'static str; 10] = [
        "happy-path",
        "adversarial",
        "jailbreak",
        "ambiguity",
        "edge-case",
        "stress",
        "context-awareness",
        "knowledge",
        "multi-step",
        "custom",
    ];

    /// Reads a category name: trimmed, non-blank, and not a near miss of a known one.
    ///
    /// # Errors
    /// A message for a blank name or a near miss (with the known name it is near).
    pub fn parse(name: &str) -> Result<Self, String> {
        let name = name.trim();
        if name.is_empty() {
            return Err("`category` must not be blank".to_owned());
        }
        if Self::KNOWN.contains(&name) {
            return Ok(Self(name.to_owned()));
        }
        if let Some(near) = stdx::closest(name, Self::KNOWN.iter().copied()) {
            return Err(format!(
                "unknown category `{name}`; did you mean `{near}`? (a name this close to a known \
                 category is taken for a typo; known: {})",
                Self::KNOWN.join(", ")
            ));
        }
        Ok(Self(name.to_owned()))
    }

    /// The name as written in the suite (`happy-path`, `billing`, …).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it is one of the spec's categories.
    #[must_use]
    pub fn is_known(&self) -> bool {
        Self::KNOWN.contains(&self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// One runnable scenario of a suite.
#[derive(Debug, Clone)]
pub struct SuiteScenario {
    /// Unique id (a template's scenarios: template id + `-` + the grid point's scenario id).
    pub id: String,
    /// Human name.
    pub name: String,
    /// Category.
    pub category: Category,
    /// Tags for filtering.
    pub tags: Vec<String>,
    /// User turns, in order.
    pub steps: Vec<String>,
    /// Everything expected of the conversation (scenario and per-step expectations combined).
    pub expectations: Expectations,
    /// Per-turn timeout for this scenario.
    pub turn_timeout: Duration,
    /// Canned replies for the scripted bot.
    pub script: Option<Script>,
    /// The grid values a template scenario was expanded with (empty otherwise).
    pub params: std::collections::BTreeMap<String, serde_json::Value>,
}

impl SuiteScenario {
    /// Whether `pattern` selects this scenario, matched case-insensitively against its id, name,
    /// category and each of its tags: a pattern with `*` or `?` is a glob that must match a whole
    /// field (`send-*`, `*eur*`, `refund?`); any other pattern is a substring of a field.
    #[must_use]
    pub fn matches(&self, pattern: &str) -> bool {
        let p = pattern.to_lowercase();
        let is_glob = p.contains(['*', '?']);
        [self.id.as_str(), self.name.as_str(), self.category.as_str()]
            .into_iter()
            .chain(self.tags.iter().map(String::as_str))
            .any(|field| {
                let field = field.to_lowercase();
                if is_glob {
                    glob_matches(&p, &field)
                } else {
                    field.contains(&p)
                }
            })
    }
}

/// Whether `text` matches the glob `pattern` as a whole (`*` any run of characters, `?` one
/// character; no other special character). Linear in practice: the classic two-pointer match
/// with one backtrack point.
fn glob_matches(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_matches;

    #[test]
    fn globs_match_whole_fields() {
        for (pattern, text, want) in [
            ("send-*", "send-basic", true),
            ("send-*", "resend-basic", false),
            ("*eur*", "fee-question-eur", true),
            ("refund?", "refunds", true),
            ("refund?", "refund", false),
            ("*", "", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("**x", "x", true),
        ] {
            assert_eq!(glob_matches(pattern, text), want, "{pattern} vs {text}");
        }
    }
}
