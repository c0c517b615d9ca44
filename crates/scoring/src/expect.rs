//! Bot-test expectations: what a suite declares about a conversation, and the pure evaluation
//! that turns them into weighted [`Check`]s.
//!
//! This module owns the expectation language (the seed's eleven checks, the logical operators
//! `all`/`any`/`not`, turn targeting, `critical` and per-check weights), its validation — done
//! inside `Deserialize`, so a YAML loader reports bad expectations with file, line and column —
//! and [`evaluate`]. It does no I/O: the optional LLM judge is asked by the caller, which gets the
//! questions from [`judge_questions`] and hands the answers back as [`JudgeVerdicts`].
//!
//! A suite writes expectations as a mapping:
//!
//! ```yaml
//! expectedFunction: send_money
//! expectedAgent: transfers
//! expectedParams: { amount: 50, recipient: alice, memo: { contains: rent } }
//! shouldWarn: [fee]
//! critical: true          # every check of this mapping fails the scenario when it fails
//! turn: 2                 # 1-based; or `last` (default) or `any`
//! ```
//!
//! or as one logical operator alone: `{any: [{…}, {…}]}`, `{all: [...]}`, `{not: {…}}`.
//!
//! ```
//! use scoring::expect::{evaluate, Expectations, JudgeVerdicts};
//! use scoring::transcript::{BotTurn, PlanStep, Transcript};
//!
//! let exp: Expectations =
//!     serde_json::from_str(r#"{"expectedFunction": "send_money", "shouldContain": ["fee"]}"#).unwrap();
//! let mut t = Transcript::default();
//! t.push("Send 5 to Bob", BotTurn {
//!     text: "Sending 5 USD to Bob.".into(),
//!     plan: vec![PlanStep { agent: "transfers".into(), function: "send_money".into(), ..Default::default() }],
//!     ..Default::default()
//! });
//! let checks = evaluate(&exp, &t, &JudgeVerdicts::default());
//! assert!(checks[0].passed);
//! assert_eq!(checks[1].name, "shouldContain: \"fee\"");
//! assert!(!checks[1].passed);
//! ```

mod classifier;
mod custom;
mod de;
mod decimal;
mod eval;
mod json_schema;
mod labelled;
mod matcher;
mod reading;
mod rules;
mod schema;
mod scope;
mod skeleton;
mod view;

use std::collections::{BTreeMap, BTreeSet};

pub use classifier::{
    Bands, Behaviour, Case, Classifier, MIN_COVERAGE, Model, ModelError, RULES_READ_BYTES, asks,
    case, combine, features, may_promote_yes, refuses, shipped_model, warns,
};
pub use custom::{
    CommandCheck, CustomCheck, CustomOutcome, CustomRequest, CustomVerdicts,
    DEFAULT_COMMAND_TIMEOUT_MS, RubricCheck, SimilarCheck, cosine, custom_requests, declares,
};
pub use decimal::Decimal;
pub use eval::{evaluate, evaluate_with, judge_questions};
pub use json_schema::{closed_mapping_schema, expect_json_schema};
pub use labelled::{
    LabelledError, LabelledReply, Miss, RuleFigures, measure, measure_rules_only, read_labelled,
};
pub use matcher::{Matcher, OPERATORS, fold, values_equal};
pub use rules::{
    RuleOutcome, RuleVerdict, asks_for, asks_question, mentions, phrases_for, refusal_undone,
    refuses_by_rules, warns_by_rules,
};
pub use schema::FunctionSchemas;
pub use scope::{PathStep, Problem};
use serde::{Deserialize, Serialize};
pub use skeleton::skeleton;

use crate::check::CheckKind;
use crate::transcript::ResponseType;

/// The expectations of one scenario: a tree of checks plus suite-wide defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectations {
    /// The declared expectations.
    pub root: Expect,
    /// Suite defaults applied where a check does not say otherwise (not part of the YAML mapping;
    /// the suite loader sets it).
    pub defaults: CheckDefaults,
    /// How many user turns the scenario has, when known (the suite loader sets it): `turn: last`
    /// then means that turn when deciding which `expectedFunction` is in scope.
    pub steps: Option<usize>,
    /// The root is an `all` of independent parts (a scenario's `expect` and its steps' own
    /// `expect`s, combined by the suite loader): no part scopes another's
    /// `expectedParams`/`expectedAgent`.
    pub separate_parts: bool,
    /// The JSON schemas of the functions the suite declares, for `validParams` (the suite loader
    /// sets it; `None` when the suite declares none).
    pub functions: Option<FunctionSchemas>,
}

impl Expectations {
    /// Wraps a tree with default settings.
    #[must_use]
    pub fn new(root: Expect) -> Self {
        Self {
            root,
            defaults: CheckDefaults::default(),
            steps: None,
            separate_parts: false,
            functions: None,
        }
    }

    /// Combines several expectation trees (e.g. a scenario's and its steps') into one `all`.
    #[must_use]
    pub fn all_of(parts: Vec<Expect>) -> Self {
        Self::new(Expect::All(parts))
    }

    /// Number of leaf checks declared (an `any` counts its largest branch, as it scores one).
    #[must_use]
    pub fn declared_checks(&self) -> usize {
        self.root.leaf_count()
    }

    /// What cannot be evaluated as written, for a located load error: turns beyond the
    /// scenario's steps (when [`Self::steps`] is known), `expectedParams`/`expectedAgent` with no
    /// `expectedFunction` in scope while a function is named elsewhere, and ones with several in
    /// scope. Empty when the tree is sound.
    #[must_use]
    pub fn problems(&self) -> Vec<Problem> {
        scope::problems(self)
    }
}

/// Defaults a suite applies to every check: weight overrides per kind, kinds that are critical.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CheckDefaults {
    /// Weight per kind replacing the seed's default.
    #[serde(default)]
    pub weights: BTreeMap<CheckKind, u32>,
    /// Kinds whose failure fails the scenario whatever the score.
    #[serde(default)]
    pub critical: BTreeSet<CheckKind>,
}

/// A node of the expectation tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// A mapping of checks sharing turn, criticality and weight.
    Checks(CheckSet),
    /// Every branch's checks count.
    All(Vec<Expect>),
    /// Holds when one branch holds entirely (its checks are reported); otherwise one failed check
    /// reporting the closest branch.
    Any(Vec<Expect>),
    /// Inverts its inner expectation.
    Not(Box<Expect>),
}

impl Expect {
    /// Sets `turn` on every check mapping that does not name one (for per-step expectations).
    #[must_use]
    pub fn at_turn(self, turn: TurnSel) -> Self {
        match self {
            Self::Checks(mut set) => {
                set.turn.get_or_insert(turn);
                Self::Checks(set)
            }
            Self::All(items) => Self::All(items.into_iter().map(|e| e.at_turn(turn)).collect()),
            Self::Any(items) => Self::Any(items.into_iter().map(|e| e.at_turn(turn)).collect()),
            Self::Not(inner) => Self::Not(Box::new(inner.at_turn(turn))),
        }
    }

    /// The first `turn` a mapping names that is not `turn`: a step's own expectation looks at
    /// its step's turn only, so any other (`last`, `any`, another number) is a load error there.
    #[must_use]
    pub fn turn_other_than(&self, turn: TurnSel) -> Option<TurnSel> {
        match self {
            Self::Checks(set) => set.turn.filter(|t| *t != turn),
            Self::All(items) | Self::Any(items) => {
                items.iter().find_map(|e| e.turn_other_than(turn))
            }
            Self::Not(inner) => inner.turn_other_than(turn),
        }
    }

    fn leaf_count(&self) -> usize {
        match self {
            Self::Checks(set) => set.checks.iter().map(CheckSpec::leaf_count).sum(),
            Self::All(items) => items.iter().map(Self::leaf_count).sum(),
            Self::Any(items) => items.iter().map(Self::leaf_count).max().unwrap_or(0),
            Self::Not(inner) => inner.leaf_count().min(1),
        }
    }
}

/// Checks declared together in one mapping, with the modifiers written beside them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckSet {
    /// The checks, in the order written.
    pub checks: Vec<CheckSpec>,
    /// Which turn the checks look at (`None` = inherited, finally the last turn).
    pub turn: Option<TurnSel>,
    /// `Some(true)`: every check here is critical.
    pub critical: Option<bool>,
    /// Weight override for every check here.
    pub weight: Option<u32>,
}

impl CheckSet {
    /// The `expectedFunction` declared beside other checks, if any (expectedParams looks only at
    /// calls of that function).
    #[must_use]
    pub fn function(&self) -> Option<&str> {
        self.checks.iter().find_map(|c| match c {
            CheckSpec::ExpectedFunction(f) => Some(f.as_str()),
            _ => None,
        })
    }

    /// The functions this mapping names for scoping `expectedParams` and `expectedAgent`: its
    /// `expectedFunction` when it has one, else every function named by its `expectedCalls`
    /// entries and `callCount` conditions (distinct, caselessly, in the order written).
    #[must_use]
    pub fn scoping_functions(&self) -> Vec<&str> {
        if let Some(f) = self.function() {
            return vec![f];
        }
        let mut out: Vec<&str> = Vec::new();
        let named = self.checks.iter().flat_map(|c| match c {
            CheckSpec::ExpectedCalls { calls, .. } => {
                calls.iter().map(|c| c.function.as_str()).collect()
            }
            CheckSpec::CallCount(counts) => counts
                .iter()
                .filter_map(|c| c.function.as_deref())
                .collect(),
            _ => Vec::new(),
        });
        for name in named {
            if !out
                .iter()
                .any(|known| matcher::fold(known) == matcher::fold(name))
            {
                out.push(name);
            }
        }
        out
    }

    /// The agents this mapping names for scoping `expectedParams`: its `expectedAgent` when it
    /// has one; else, in a mapping without `expectedFunction`, the agents its `expectedCalls`
    /// entries and `callCount` conditions give their functions (distinct, caselessly).
    #[must_use]
    pub fn scoping_agents(&self) -> Vec<&str> {
        if let Some(a) = self.agent() {
            return vec![a];
        }
        if self.function().is_some() {
            return Vec::new();
        }
        let mut out: Vec<&str> = Vec::new();
        let named = self.checks.iter().flat_map(|c| match c {
            CheckSpec::ExpectedCalls { calls, .. } => {
                calls.iter().filter_map(|c| c.agent.as_deref()).collect()
            }
            CheckSpec::CallCount(counts) => counts
                .iter()
                .filter(|c| c.function.is_some())
                .filter_map(|c| c.agent.as_deref())
                .collect(),
            _ => Vec::new(),
        });
        for name in named {
            if !out
                .iter()
                .any(|known| matcher::fold(known) == matcher::fold(name))
            {
                out.push(name);
            }
        }
        out
    }

    /// The `expectedAgent` declared beside other checks, if any.
    #[must_use]
    pub fn agent(&self) -> Option<&str> {
        self.checks.iter().find_map(|c| match c {
            CheckSpec::ExpectedAgent(a) => Some(a.as_str()),
            _ => None,
        })
    }
}

/// One declared check (list-valued checks expand to one [`crate::Check`] per item).
#[derive(Debug, Clone, PartialEq)]
pub enum CheckSpec {
    /// The plan calls this function.
    ExpectedFunction(String),
    /// The reply's category.
    ResponseType(ResponseType),
    /// The plan uses this agent.
    ExpectedAgent(String),
    /// One plan call satisfies every condition, keyed by parameter name.
    ExpectedParams(Vec<(String, Matcher)>),
    /// The bot asks for each of these (synonyms allowed).
    ShouldAskFor(Vec<Topic>),
    /// The bot warns about each of these (synonyms allowed).
    ShouldWarn(Vec<Topic>),
    /// The bot refuses (`true`) or does not (`false`).
    ShouldReject(bool),
    /// Declarative predicates over the turn.
    CustomValidator(Vec<Predicate>),
    /// The reply contains each text (case-insensitive).
    ShouldContain(Vec<String>),
    /// The reply contains none of these texts.
    ShouldNotContain(Vec<String>),
    /// The reply mentions each topic (synonyms allowed).
    ShouldMention(Vec<Topic>),
    /// Every call of the plan is of a function the scenario expects at that turn.
    OnlyExpectedCalls,
    /// These calls, each matched to its own call of the plan, in this order when strict.
    ExpectedCalls {
        /// The calls, as written.
        calls: Vec<CallSpec>,
        /// Whether their order matters.
        order: CallOrder,
    },
    /// How many calls (of a function, or all) the plan has.
    CallCount(Vec<CallCount>),
    /// Every call's parameters are valid for the declared function's JSON schema.
    ValidParams,
    /// The turn took at most this many milliseconds (wall clock).
    MaxLatencyMs(u64),
    /// The user's own check (a command, an LLM rubric, a similarity), evaluated by the caller.
    Custom(CustomCheck),
}

/// One call of an `expectedCalls` list: a function, optionally its agent and parameter conditions.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSpec {
    /// The function called.
    pub function: String,
    /// The agent it must be on, when given.
    pub agent: Option<String>,
    /// Conditions on its parameters (as `expectedParams`), all on this one call.
    pub params: Vec<(String, Matcher)>,
}

impl std::fmt::Display for CallSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(agent) = &self.agent {
            write!(f, "{agent}.")?;
        }
        f.write_str(&self.function)?;
        if !self.params.is_empty() {
            let params: Vec<String> = self
                .params
                .iter()
                .map(|(k, m)| format!("{k} {m}"))
                .collect();
            write!(f, "({})", params.join(", "))?;
        }
        Ok(())
    }
}

/// Whether an `expectedCalls` list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallOrder {
    /// The calls appear in the plan in the order written (other calls may come between them).
    Strict,
    /// Each call appears, in any order (the default).
    #[default]
    Any,
}

/// A `callCount` condition: how many calls of a function (or of any function) the plan has.
#[derive(Debug, Clone, PartialEq)]
pub struct CallCount {
    /// The function counted; `None` counts every call.
    pub function: Option<String>,
    /// The agent the counted calls must be on, when given.
    pub agent: Option<String>,
    /// At least this many.
    pub min: Option<u64>,
    /// At most this many.
    pub max: Option<u64>,
}

impl CallCount {
    /// What is counted and the bound, for names and messages: `calls of send_money = 1`.
    #[must_use]
    pub fn label(&self) -> String {
        let what = match (&self.agent, &self.function) {
            (Some(a), Some(f)) => format!("calls of {a}.{f}"),
            (None, Some(f)) => format!("calls of {f}"),
            (Some(a), None) => format!("calls on {a}"),
            (None, None) => "calls".to_owned(),
        };
        match (self.min, self.max) {
            (Some(lo), Some(hi)) if lo == hi => format!("{what} = {lo}"),
            (Some(lo), Some(hi)) => format!("{what} between {lo} and {hi}"),
            (Some(lo), None) => format!("{what} ≥ {lo}"),
            (None, Some(hi)) => format!("{what} ≤ {hi}"),
            (None, None) => what,
        }
    }
}

impl CheckSpec {
    /// The kind of check this produces.
    #[must_use]
    pub fn kind(&self) -> CheckKind {
        match self {
            Self::ExpectedFunction(_) => CheckKind::ExpectedFunction,
            Self::ResponseType(_) => CheckKind::ResponseType,
            Self::ExpectedAgent(_) => CheckKind::ExpectedAgent,
            Self::ExpectedParams(_) => CheckKind::ExpectedParams,
            Self::ShouldAskFor(_) => CheckKind::ShouldAskFor,
            Self::ShouldWarn(_) => CheckKind::ShouldWarn,
            Self::ShouldReject(_) => CheckKind::ShouldReject,
            Self::CustomValidator(_) => CheckKind::CustomValidator,
            Self::ShouldContain(_) => CheckKind::ShouldContain,
            Self::ShouldNotContain(_) => CheckKind::ShouldNotContain,
            Self::ShouldMention(_) => CheckKind::ShouldMention,
            Self::OnlyExpectedCalls => CheckKind::OnlyExpectedCalls,
            Self::ExpectedCalls { .. } => CheckKind::ExpectedCalls,
            Self::CallCount(_) => CheckKind::CallCount,
            Self::ValidParams => CheckKind::ValidParams,
            Self::MaxLatencyMs(_) => CheckKind::MaxLatencyMs,
            Self::Custom(c) => c.kind(),
        }
    }

    fn leaf_count(&self) -> usize {
        match self {
            Self::ShouldAskFor(v) | Self::ShouldWarn(v) | Self::ShouldMention(v) => v.len(),
            Self::ShouldContain(v) | Self::ShouldNotContain(v) => v.len(),
            Self::CustomValidator(v) => v.len(),
            Self::CallCount(v) => v.len(),
            _ => 1,
        }
    }
}

/// Which turn of the conversation a check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnSel {
    /// The N-th turn, counting from 1.
    Index(usize),
    /// The last turn (the default).
    Last,
    /// Passes when any turn satisfies the check.
    Any,
}

impl std::fmt::Display for TurnSel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Index(n) => write!(f, "turn {n}"),
            Self::Last => f.write_str("last turn"),
            Self::Any => f.write_str("any turn"),
        }
    }
}

/// A topic for `shouldMention`, `shouldWarn` or `shouldAskFor`, with extra synonyms beside the
/// built-in ones: a synonym in the reply names the topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// The topic as named in the report.
    pub topic: String,
    /// Extra phrases that count as naming it.
    pub synonyms: Vec<String>,
}

/// A declarative `customValidator`: a JSON pointer into the turn and a condition on its value.
///
/// The pointer addresses the turn as serialized (`/text`, `/plan/0/params/amount`,
/// `/response_type`, `/outcome/status`, `/signals/rejected`); a `*` segment selects every element
/// (`/plan/*/function`), and the [`Quantifier`] says whether the condition must hold for every
/// selected value (the default) or for some. An empty selection fails. Nothing is executed: the
/// condition is one of the [`Matcher`] operators.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    /// JSON pointer, possibly with `*` segments.
    pub path: String,
    /// The condition the value must meet.
    pub matcher: Matcher,
    /// For `*` paths: every selected value, or some (ignored without `*`).
    pub quantifier: Quantifier,
    /// How the report names it (defaults to `path op value`, prefixed by `some` when asked).
    pub description: Option<String>,
}

impl Predicate {
    /// The predicate's name in the report.
    #[must_use]
    pub fn label(&self) -> String {
        self.description
            .clone()
            .unwrap_or_else(|| match self.quantifier {
                Quantifier::Some if self.has_wildcard() => {
                    format!("some {} {}", self.path, self.matcher)
                }
                _ => format!("{} {}", self.path, self.matcher),
            })
    }

    /// Whether the path has a `*` segment (selects several values).
    #[must_use]
    pub fn has_wildcard(&self) -> bool {
        self.path.split('/').any(|seg| seg == "*")
    }
}

/// How a `customValidator` path with `*` segments is quantified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Quantifier {
    /// The condition holds for every selected value (the default).
    #[default]
    Every,
    /// The condition holds for at least one selected value.
    Some,
}

/// A question for an LLM judge about one askFor/warn/reject check on one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeQuestion {
    /// Stable key the verdict is filed under, e.g. `shouldAskFor:amount@1`.
    pub id: String,
    /// shouldAskFor, shouldWarn or shouldReject.
    pub kind: CheckKind,
    /// What is asked for / warned about (`None` for shouldReject).
    pub subject: Option<String>,
    /// 1-based turn.
    pub turn: usize,
    /// The user's message of that turn.
    pub user_message: String,
    /// The bot's reply of that turn.
    pub reply: String,
}

/// A judge's answer to one [`JudgeQuestion`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeVerdict {
    /// Whether the behaviour asked about is present (asks / warns / refuses).
    pub holds: bool,
    /// The judge's one-line reason, quoted in the check's message.
    pub reason: String,
}

/// Judge answers by question id; empty when no judge is used.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JudgeVerdicts(pub BTreeMap<String, JudgeVerdict>);

/// The check names a suite may use: the seed's, then the call and latency checks, then the
/// user's own.
pub const CHECK_NAMES: [&str; 19] = [
    "expectedFunction",
    "responseType",
    "expectedAgent",
    "expectedParams",
    "shouldAskFor",
    "shouldWarn",
    "shouldReject",
    "customValidator",
    "shouldContain",
    "shouldNotContain",
    "shouldMention",
    "onlyExpectedCalls",
    "expectedCalls",
    "callCount",
    "validParams",
    "maxLatencyMs",
    "command",
    "llmRubric",
    "similar",
];

/// A reply's words around the first place `needle` appears in it (case folded, whitespace as
/// one space), for a message about a match: a long reply's opening words may not hold it. The
/// reply's opening words ([`excerpt`]) when the needle is not found as written (a leak found
/// only through its hidden characters or spacing).
pub(crate) fn excerpt_around(text: &str, needle: &str) -> String {
    let flat: Vec<char> = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    if flat.len() <= 80 {
        return excerpt(text);
    }
    let fold = |c: &char| c.to_lowercase().next().unwrap_or(*c);
    let hay: Vec<char> = flat.iter().map(fold).collect();
    let pin: Vec<char> = needle
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| fold(&c))
        .collect();
    let Some(at) = (!pin.is_empty())
        .then(|| hay.windows(pin.len()).position(|w| w == pin.as_slice()))
        .flatten()
    else {
        return excerpt(text);
    };
    let start = at.saturating_sub(30);
    let end = (at + pin.len() + 30).min(flat.len());
    let mut cut: String = flat[start..end].iter().collect();
    if start > 0 {
        cut.insert_str(0, "...");
    }
    if end < flat.len() {
        cut.push_str("...");
    }
    format!("{cut:?}")
}

/// Shortens a reply for messages.
pub(crate) fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 80 {
        format!("{flat:?}")
    } else {
        // Escaped as a short one is: a long reply showed its hidden characters raw (review 25p).
        let cut: String = flat.chars().take(77).collect();
        format!("{:?}", cut + "...")
    }
}
