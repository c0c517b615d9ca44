//! What a bot under test said, turn by turn: the [`Transcript`] that expectations are evaluated
//! against. A [`BotTurn`] is the adapter-neutral shape of one reply — its text, the execution plan
//! (`{agent, function, params}` calls), optional structured signals and outcome, and the adapter
//! error (timeout, transport failure) when the bot could not answer. This module owns the data only;
//! judging it belongs to [`crate::expect`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The category of a reply, as the `responseType` check compares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseType {
    /// The bot planned at least one call.
    Action,
    /// The bot asked the user for missing information.
    Clarification,
    /// The bot refused the request.
    Rejection,
    /// A plain answer without a plan.
    Text,
    /// The bot reported an error of its own.
    Error,
}

impl ResponseType {
    /// Every response type.
    pub const ALL: [Self; 5] = [
        Self::Action,
        Self::Clarification,
        Self::Rejection,
        Self::Text,
        Self::Error,
    ];

    /// The name used in suites and reports (`action`, `clarification`, …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Action => "action",
            Self::Clarification => "clarification",
            Self::Rejection => "rejection",
            Self::Text => "text",
            Self::Error => "error",
        }
    }

    /// Parses a name case-insensitively; `None` for anything else.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_lowercase().as_str() {
            "action" => Some(Self::Action),
            "clarification" => Some(Self::Clarification),
            "rejection" => Some(Self::Rejection),
            "text" => Some(Self::Text),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

impl std::fmt::Display for ResponseType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One call of the bot's execution plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PlanStep {
    /// The agent the call goes to (e.g. `transfers`); empty when the bot has a single agent.
    #[serde(default)]
    pub agent: String,
    /// The function called (e.g. `send_money`).
    pub function: String,
    /// The call's arguments.
    #[serde(default)]
    pub params: Map<String, Value>,
}

/// Structured signals a bot may return beside its text. When a bot gives a `signals` object
/// (even an empty one), the askFor/warn/reject checks trust it instead of keyword rules (see
/// [`Signals::is_declared`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(from = "SignalsRepr")]
pub struct Signals {
    /// Pieces of information the bot asks the user for (`amount`, `recipient`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asks_for: Vec<String>,
    /// Topics the bot warns about (`fee`, `irreversible`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Whether the bot refused the request, when it says so explicitly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<bool>,
    /// Whether the bot sent a `signals` object at all (set when one is read; an empty object
    /// declares "asks for nothing, warns about nothing").
    #[serde(skip)]
    pub present: bool,
}

/// The wire form of [`Signals`]: reading one means the bot declared its signals.
#[derive(Deserialize)]
struct SignalsRepr {
    #[serde(default)]
    asks_for: Vec<String>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    rejected: Option<bool>,
}

impl From<SignalsRepr> for Signals {
    fn from(r: SignalsRepr) -> Self {
        Self {
            asks_for: r.asks_for,
            warnings: r.warnings,
            rejected: r.rejected,
            present: true,
        }
    }
}

impl Signals {
    /// True when the bot declared its signals: it sent a `signals` object (even `{}` or
    /// `{asks_for: []}`) or any signal. A bot that declares one is taken to declare all: an
    /// empty `asks_for` means "asks for nothing", not "unknown".
    #[must_use]
    pub fn is_declared(&self) -> bool {
        self.present
            || !self.asks_for.is_empty()
            || !self.warnings.is_empty()
            || self.rejected.is_some()
    }
}

/// The bot's answer to one user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct BotTurn {
    /// The reply text shown to the user.
    #[serde(default)]
    pub text: String,
    /// The calls the bot planned, in order (possibly none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<PlanStep>,
    /// The category the bot declared, if it declares one; otherwise it is inferred.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_type: Option<ResponseType>,
    /// Structured signals, when the bot gives them.
    #[serde(default, skip_serializing_if = "signals_absent")]
    pub signals: Signals,
    /// The execution outcome the bot reported (any JSON), for `customValidator` paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Value>,
    /// Why the adapter got no reply (timeout, transport error, bad output). A turn with an error
    /// fails every check aimed at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Wall time of the turn in milliseconds (informative; never used by checks).
    #[serde(default)]
    pub latency_ms: u64,
}

fn signals_absent(signals: &Signals) -> bool {
    !signals.is_declared()
}

impl BotTurn {
    /// A turn with only a reply text.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A turn that failed in the adapter: no reply, only the reason.
    #[must_use]
    pub fn failed(reason: impl Into<String>) -> Self {
        Self {
            error: Some(reason.into()),
            ..Self::default()
        }
    }
}

/// A whole conversation: each user message with the bot's answer, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Transcript {
    /// `(user message, bot turn)` pairs.
    pub turns: Vec<(String, BotTurn)>,
}

impl Transcript {
    /// Appends one exchange.
    pub fn push(&mut self, message: impl Into<String>, turn: BotTurn) {
        self.turns.push((message.into(), turn));
    }
}
