//! Bots under test: the [`Bot`] trait a suite runner drives turn by turn, the adapters that reach
//! a real bot (an LLM with tools, an HTTP endpoint, a JSON-lines command) or fake one (scripted
//! replies), and the suite's `bot:` section that configures them ([`BotSpec`]).
//!
//! Adapters only translate: they turn one user message (plus history) into a
//! [`scoring::transcript::BotTurn`]. Timeouts, error capture and scoring belong to the suite runner,
//! so an adapter that fails returns a [`BotError`] and the runner records it as a failed turn.

mod command;
mod http;
pub mod judge;
mod llm;
mod reply;
mod scripted;

use std::collections::BTreeMap;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use command::{CommandBot, CommandSpec};
pub use http::{HttpBot, HttpSpec, ReplyPointers};
pub use llm::{LlmBot, LlmSpec, tool_defs, tool_name};
pub use reply::{
    DEFAULT_MAX_REPLY_BYTES, REPLY_FIELDS, parse_reply, read_line_capped, turn_from_json,
};
pub use scripted::{Script, ScriptedBot, scripted_bot};

use scoring::transcript::BotTurn;

/// The exchanges before the current message: `(user message, bot turn)` pairs, oldest first.
pub type History = [(String, BotTurn)];

/// What [`Bot::turn`] returns: the bot's reply, once it comes.
pub type TurnFuture<'a> = BoxFuture<'a, Result<BotTurn, BotError>>;

/// A bot under test. One instance serves one conversation; the runner creates a fresh one per
/// scenario run, so adapters may keep conversation state (the LLM adapter keeps tool messages).
pub trait Bot: Send {
    /// Answers `message`, given the conversation so far.
    ///
    /// # Errors
    /// A [`BotError`] when no reply could be obtained; the runner records it as a failed turn.
    fn turn<'a>(&'a mut self, history: &'a History, message: &'a str) -> TurnFuture<'a>;
}

/// Why a bot gave no usable reply.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The model call failed.
    #[error("model call failed: {0}")]
    Llm(#[from] llm_client::LlmError),
    /// The HTTP request failed or the endpoint answered with an error status.
    #[error("http: {0}")]
    Http(String),
    /// The command could not be run or stopped answering.
    #[error("command: {0}")]
    Command(String),
    /// The reply did not have the expected shape.
    #[error("unexpected reply: {0}")]
    Protocol(String),
    /// The scripted bot has no reply for this scenario or turn.
    #[error("script: {0}")]
    Script(String),
    /// The bot's settings are incomplete or invalid.
    #[error("bot configuration: {0}")]
    Config(String),
    /// The bot cannot be reached at all: connection refused, a name that does not resolve, a
    /// program that does not exist, a model endpoint that does not answer. Not a bot that
    /// answers badly: a run where this happens cannot say anything about the bot (exit 3).
    #[error("bot unreachable: {0}")]
    Unreachable(String),
}

impl BotError {
    /// Why the bot could not be reached, when that is what happened.
    #[must_use]
    pub fn unreachable(&self) -> Option<&str> {
        match self {
            Self::Unreachable(why) => Some(why),
            Self::Llm(llm_client::LlmError::Connect { message, .. }) => Some(message),
            _ => None,
        }
    }
}

/// Which adapter runs the bot.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum BotKind {
    /// Canned replies from the suite.
    #[default]
    Scripted,
    /// An LLM with the suite's agents as tools.
    Llm,
    /// An HTTP endpoint.
    Http,
    /// A process speaking JSON lines.
    Command,
}

impl BotKind {
    /// The kind as the suite writes it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Scripted => "scripted",
            Self::Llm => "llm",
            Self::Http => "http",
            Self::Command => "command",
        }
    }
}

impl std::str::FromStr for BotKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_lowercase().as_str() {
            "scripted" => Ok(Self::Scripted),
            "llm" => Ok(Self::Llm),
            "http" => Ok(Self::Http),
            "command" => Ok(Self::Command),
            other => Err(format!(
                "unknown bot kind `{other}` (scripted, llm, http, command)"
            )),
        }
    }
}

/// The suite's `bot:` section: the default adapter and the settings of each adapter, so one suite
/// can run against any of them (`--bot` picks another).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BotSpec {
    /// The adapter used unless the caller picks another.
    #[serde(default)]
    pub kind: BotKind,
    /// System prompt of the `llm` adapter.
    #[serde(default)]
    pub system_prompt: String,
    /// The bot's agents and their functions (tools of the `llm` adapter).
    #[serde(default)]
    pub agents: Vec<AgentSpec>,
    /// Settings of the `llm` adapter.
    #[serde(default)]
    pub llm: LlmSpec,
    /// Settings of the `http` adapter.
    #[serde(default)]
    pub http: Option<HttpSpec>,
    /// Settings of the `command` adapter.
    #[serde(default)]
    pub command: Option<CommandSpec>,
    /// A side file of scripted replies (`scenario id → script`), relative to the suite.
    #[serde(default)]
    pub scripts_file: Option<String>,
}

/// One agent of the bot under test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// Agent name (`transfers`); plan steps name it.
    pub name: String,
    /// What the agent does.
    #[serde(default)]
    pub description: String,
    /// The functions it offers.
    pub functions: Vec<FunctionSpec>,
}

/// One function of an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FunctionSpec {
    /// Function name (`send_money`).
    pub name: String,
    /// What it does (the model reads this).
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its parameters object.
    #[serde(default = "empty_object_schema")]
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub parameters: Value,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// Expands `${VAR}` references in a header value from the environment.
///
/// # Errors
/// [`BotError::Config`] naming a variable that is not set (never its value).
pub fn expand_env(value: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, BotError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(BotError::Config(format!("unterminated `${{` in {value:?}")));
        };
        let name = &after[..end];
        let resolved = env(name)
            .ok_or_else(|| BotError::Config(format!("environment variable `{name}` is not set")))?;
        out.push_str(&resolved);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Headers after `${VAR}` expansion.
pub(crate) fn resolved_headers(
    headers: &BTreeMap<String, String>,
) -> Result<Vec<(String, String)>, BotError> {
    let env = |name: &str| std::env::var(name).ok();
    headers
        .iter()
        .map(|(k, v)| Ok((k.clone(), expand_env(v, &env)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_references_expand_and_missing_ones_are_named() {
        let env = |name: &str| (name == "TOKEN").then(|| "abc".to_owned());
        assert_eq!(
            expand_env("Bearer ${TOKEN}", &env).expect("set"),
            "Bearer abc"
        );
        assert_eq!(expand_env("plain", &env).expect("no refs"), "plain");
        let err = expand_env("${MISSING}", &env).expect_err("unset");
        assert!(err.to_string().contains("`MISSING` is not set"));
    }

    #[test]
    fn reply_objects_accept_parameters_or_arguments() {
        let turn = turn_from_json(serde_json::json!({
            "text": "ok",
            "plan": [{"agent": "transfers", "function": "send_money", "arguments": {"amount": 5}}]
        }))
        .expect("valid reply");
        assert_eq!(turn.plan[0].params["amount"], 5);
        assert!(turn_from_json(serde_json::json!("text")).is_err());
        let turn = turn_from_json(serde_json::json!({
            "text": "ok",
            "plan": [{"function": "f", "parameters": {"a": 1}}]
        }))
        .expect("valid reply");
        assert_eq!(turn.plan[0].params["a"], 1);
    }
}
