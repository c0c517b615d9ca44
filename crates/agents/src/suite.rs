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
mod figures;
mod junit;
mod load;
mod run;
mod self_check;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use scoring::CheckKind;
use scoring::expect::Expectations;

use crate::bot::{BotSpec, Script};

pub use bots::SuiteBots;
pub use figures::{CategoryFigures, ScenarioFigures, SuiteFigures};
pub use junit::{SYSTEM_OUT_MAX_BYTES, junit_xml};
pub use load::{load_suite, parse_suite};
pub use run::{
    BotFactory, JudgeTally, RunOptions, RunResult, ScenarioResult, SuiteResult, run_scenario,
    run_suite,
};
pub use self_check::OutcomeMismatch;

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
}

impl Default for Defaults {
    fn default() -> Self {
        Self {
            threshold: scoring::card::DEFAULT_THRESHOLD,
            strict: false,
            critical: Vec::new(),
            weights: std::collections::BTreeMap::new(),
            turn_timeout_ms: 30_000,
        }
    }
}

/// The scenario categories of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// The request is clear and allowed.
    HappyPath,
    /// Prompt injection and other hostile input.
    Adversarial,
    /// Attempts to make the bot break its rules.
    Jailbreak,
    /// Missing or unclear information.
    Ambiguity,
    /// Boundary values and invalid input.
    EdgeCase,
    /// Load or long conversations.
    Stress,
    /// Uses earlier turns.
    ContextAwareness,
    /// Questions answered from knowledge.
    Knowledge,
    /// Several actions in one conversation.
    MultiStep,
    /// Anything else.
    Custom,
}

impl Category {
    /// The name as written in suites (`happy-path`, …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HappyPath => "happy-path",
            Self::Adversarial => "adversarial",
            Self::Jailbreak => "jailbreak",
            Self::Ambiguity => "ambiguity",
            Self::EdgeCase => "edge-case",
            Self::Stress => "stress",
            Self::ContextAwareness => "context-awareness",
            Self::Knowledge => "knowledge",
            Self::MultiStep => "multi-step",
            Self::Custom => "custom",
        }
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
    /// Whether `pattern` selects this scenario: a case-insensitive substring of its id, name,
    /// category or one of its tags.
    #[must_use]
    pub fn matches(&self, pattern: &str) -> bool {
        let p = pattern.to_lowercase();
        [self.id.as_str(), self.name.as_str(), self.category.as_str()]
            .into_iter()
            .chain(self.tags.iter().map(String::as_str))
            .any(|field| field.to_lowercase().contains(&p))
    }
}
