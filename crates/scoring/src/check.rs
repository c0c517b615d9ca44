//! One weighted check and its kinds: the unit every score card, report and suite summary is built
//! from. A [`Check`] is already evaluated (it knows whether it passed); deciding *how* to evaluate an
//! expectation against a transcript belongs to the `expect` module, and turning checks into a score
//! belongs to [`crate::card`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// The kinds of check of a bot scenario, with their default weights (from the seed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckKind {
    /// The plan calls this function (weight 3).
    ExpectedFunction,
    /// The reply's category matches: action, clarification, rejection, text, error (weight 2).
    ResponseType,
    /// The plan uses this agent (weight 2).
    ExpectedAgent,
    /// One plan call has all these parameters (weight 2).
    ExpectedParams,
    /// The bot asks the user for this piece of information (weight 2).
    ShouldAskFor,
    /// The bot warns about this (weight 2).
    ShouldWarn,
    /// The bot refuses, or does not refuse (weight 2).
    ShouldReject,
    /// A declared predicate over the reply holds (weight 2).
    CustomValidator,
    /// The reply contains this text, case-insensitively (weight 1).
    ShouldContain,
    /// The reply does not contain this text (weight 1).
    ShouldNotContain,
    /// The reply mentions this topic, synonyms allowed (weight 1).
    ShouldMention,
    /// The plan calls no function beyond the expected ones (weight 2).
    OnlyExpectedCalls,
    /// The plan has these calls, in order when asked (weight 3).
    ExpectedCalls,
    /// The plan has this many calls of a function (weight 2).
    CallCount,
    /// Every call's parameters are valid for its function's declared JSON schema (weight 2).
    ValidParams,
    /// The turn's reply came within this many milliseconds, wall clock (weight 1).
    MaxLatencyMs,
    /// The user's own program judged the conversation (weight 2).
    Command,
    /// An LLM judge found the reply meets the suite's rubric (weight 2).
    LlmRubric,
    /// The reply's embedding is close enough to a reference's (weight 2).
    Similar,
}

impl CheckKind {
    /// Every kind, in declaration order (the order of the seed's weight table).
    pub const ALL: [CheckKind; 19] = [
        Self::ExpectedFunction,
        Self::ResponseType,
        Self::ExpectedAgent,
        Self::ExpectedParams,
        Self::ShouldAskFor,
        Self::ShouldWarn,
        Self::ShouldReject,
        Self::CustomValidator,
        Self::ShouldContain,
        Self::ShouldNotContain,
        Self::ShouldMention,
        Self::OnlyExpectedCalls,
        Self::ExpectedCalls,
        Self::CallCount,
        Self::ValidParams,
        Self::MaxLatencyMs,
        Self::Command,
        Self::LlmRubric,
        Self::Similar,
    ];

    /// Default weight: expectedFunction 3; responseType, expectedAgent, expectedParams,
    /// shouldAskFor, shouldWarn, shouldReject, customValidator 2; shouldContain,
    /// shouldNotContain, shouldMention 1; the call checks: expectedCalls 3, onlyExpectedCalls,
    /// callCount, validParams 2; maxLatencyMs 1; the user's own checks: command, llmRubric,
    /// similar 2.
    #[must_use]
    pub fn default_weight(self) -> u32 {
        match self {
            Self::ExpectedFunction | Self::ExpectedCalls => 3,
            Self::ResponseType
            | Self::ExpectedAgent
            | Self::ExpectedParams
            | Self::ShouldAskFor
            | Self::ShouldWarn
            | Self::ShouldReject
            | Self::CustomValidator
            | Self::OnlyExpectedCalls
            | Self::CallCount
            | Self::ValidParams
            | Self::Command
            | Self::LlmRubric
            | Self::Similar => 2,
            Self::ShouldContain
            | Self::ShouldNotContain
            | Self::ShouldMention
            | Self::MaxLatencyMs => 1,
        }
    }

    /// The kind's name as written in scenario files and reports (`expectedFunction`, …); the same
    /// spelling serde uses.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ExpectedFunction => "expectedFunction",
            Self::ResponseType => "responseType",
            Self::ExpectedAgent => "expectedAgent",
            Self::ExpectedParams => "expectedParams",
            Self::ShouldAskFor => "shouldAskFor",
            Self::ShouldWarn => "shouldWarn",
            Self::ShouldReject => "shouldReject",
            Self::CustomValidator => "customValidator",
            Self::ShouldContain => "shouldContain",
            Self::ShouldNotContain => "shouldNotContain",
            Self::ShouldMention => "shouldMention",
            Self::OnlyExpectedCalls => "onlyExpectedCalls",
            Self::ExpectedCalls => "expectedCalls",
            Self::CallCount => "callCount",
            Self::ValidParams => "validParams",
            Self::MaxLatencyMs => "maxLatencyMs",
            Self::Command => "command",
            Self::LlmRubric => "llmRubric",
            Self::Similar => "similar",
        }
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One evaluated check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What kind of expectation this check evaluated; decides the default weight.
    pub kind: CheckKind,
    /// Display name as in the seed's Check Details: `expectedFunction`, `shouldContain: "X"`, …
    pub name: String,
    /// Weight in the score; 0 means the check is shown but not counted.
    pub weight: u32,
    /// Whether the expectation held.
    pub passed: bool,
    /// What was expected and what was seen.
    pub message: String,
    /// A failed critical check fails the scenario whatever its score.
    #[serde(default)]
    pub critical: bool,
    /// Decided by a text rule that was unsure, with no judge verdict: the rule's best guess
    /// (docs/suites.md, "Text rules"). Serialized only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub low_confidence: bool,
    /// Where the check sits in the expectation tree (`expect.all[1].shouldContain[0]`): the
    /// stable identity of a check across runs of one scenario, which its display name is not
    /// (two checks may share a name). Empty for checks built outside an expectation tree and in
    /// results written before paths existed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

impl Check {
    /// A check of `kind` with the kind's default weight, not critical.
    ///
    /// ```
    /// use scoring::{Check, CheckKind};
    /// let check = Check::new(CheckKind::ShouldContain, "shouldContain: \"fee\"", false, "no fee mentioned");
    /// assert_eq!(check.weight, 1);
    /// assert!(!check.critical);
    /// ```
    #[must_use]
    pub fn new(
        kind: CheckKind,
        name: impl Into<String>,
        passed: bool,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            name: name.into(),
            weight: kind.default_weight(),
            passed,
            message: message.into(),
            critical: false,
            low_confidence: false,
            path: String::new(),
        }
    }

    /// A passed check of `kind` with its default weight (see [`Check::new`]).
    #[must_use]
    pub fn pass(kind: CheckKind, name: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(kind, name, true, message)
    }

    /// A failed check of `kind` with its default weight (see [`Check::new`]).
    #[must_use]
    pub fn fail(kind: CheckKind, name: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(kind, name, false, message)
    }

    /// The same check with another weight.
    #[must_use]
    pub fn with_weight(mut self, weight: u32) -> Self {
        self.weight = weight;
        self
    }

    /// The same check, marked critical: its failure fails the scenario whatever the score.
    #[must_use]
    pub fn critical(mut self) -> Self {
        self.critical = true;
        self
    }

    /// The same check at `path` in its expectation tree (see [`Check::path`]).
    #[must_use]
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_matches_serde_spelling() {
        for kind in CheckKind::ALL {
            let json = serde_json::to_value(kind).expect("a unit variant serializes");
            assert_eq!(json, serde_json::Value::String(kind.as_str().to_owned()));
        }
    }

    #[test]
    fn builders_set_weight_and_criticality() {
        let check = Check::fail(
            CheckKind::ExpectedParams,
            "expectedParams",
            "to: bob, wanted alice",
        )
        .critical()
        .with_weight(5);
        assert_eq!(check.weight, 5);
        assert!(check.critical);
        assert!(!check.passed);
        assert_eq!(Check::pass(CheckKind::ExpectedFunction, "f", "m").weight, 3);
    }

    #[test]
    fn critical_defaults_to_false_when_absent() {
        let check: Check = serde_json::from_str(
            r#"{"kind":"shouldMention","name":"shouldMention: fees","weight":1,"passed":true,"message":"ok"}"#,
        )
        .expect("valid check JSON");
        assert!(!check.critical);
        assert_eq!(check.kind, CheckKind::ShouldMention);
    }
}
