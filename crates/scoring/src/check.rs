//! One weighted check and its kinds (the contract; score cards and renderers build on it).

use serde::{Deserialize, Serialize};

/// The kinds of check of a bot scenario, with their default weights (from the seed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckKind {
    ExpectedFunction,
    ResponseType,
    ExpectedAgent,
    ExpectedParams,
    ShouldAskFor,
    ShouldWarn,
    ShouldReject,
    CustomValidator,
    ShouldContain,
    ShouldNotContain,
    ShouldMention,
}

impl CheckKind {
    /// Default weight: expectedFunction 3; responseType, expectedAgent, expectedParams,
    /// shouldAskFor, shouldWarn, shouldReject, customValidator 2; shouldContain,
    /// shouldNotContain, shouldMention 1.
    #[must_use]
    pub fn default_weight(self) -> u32 {
        match self {
            Self::ExpectedFunction => 3,
            Self::ResponseType
            | Self::ExpectedAgent
            | Self::ExpectedParams
            | Self::ShouldAskFor
            | Self::ShouldWarn
            | Self::ShouldReject
            | Self::CustomValidator => 2,
            Self::ShouldContain | Self::ShouldNotContain | Self::ShouldMention => 1,
        }
    }
}

/// One evaluated check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub kind: CheckKind,
    /// Display name as in the seed's Check Details: `expectedFunction`, `shouldContain: "X"`, …
    pub name: String,
    pub weight: u32,
    pub passed: bool,
    /// What was expected and what was seen.
    pub message: String,
    /// A failed critical check fails the scenario whatever its score.
    #[serde(default)]
    pub critical: bool,
}
