//! The `scripted` adapter: canned replies per scenario and turn, declared in the suite (a
//! scenario's `script:`) or in a side file. It makes the whole path suite → checks → report
//! testable without a model, and lets a suite check itself: each script may declare the outcome
//! the scenario should have (`expect_outcome: pass|fail`), so bad bot behaviour is part of the
//! fixture and its detection is asserted.
//!
//! A scripted reply is read by the same strict protocol as a `command` or `http` reply
//! ([`super::reply`]: unknown fields named, `text` required unless a plan is given), when the suite
//! loads; the one addition is `{error: "..."}` alone, which stands for a turn the bot failed.

use serde::{Deserialize, Serialize};

use scoring::Expected;
use scoring::transcript::BotTurn;

use super::{Bot, BotError, History, TurnFuture};

/// Canned replies of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// What the scenario's verdict should be with these replies.
    #[serde(default)]
    #[schemars(with = "Option<ExpectedOutcome>")]
    pub expect_outcome: Option<Expected>,
    /// One reply per user turn, in order.
    #[serde(deserialize_with = "script_turns")]
    #[schemars(schema_with = "turns_schema")]
    pub turns: Vec<BotTurn>,
}

/// [`Expected`] as the schema names it (`scoring` derives no schemas).
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // only its schema is used
enum ExpectedOutcome {
    Pass,
    Fail,
}

/// The schema of `turns`: each a reply of the reply protocol, or `{error: "..."}` alone.
fn turns_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let reply = super::reply::reply_schema();
    schemars::json_schema!({
        "type": "array",
        "items": {"anyOf": [
            reply,
            {"type": "object", "properties": {"error": {"type": "string"}},
             "required": ["error"], "additionalProperties": false}
        ]}
    })
}

/// Reads each scripted reply with the strict reply protocol; `{error: "..."}` alone is a failed
/// turn.
fn script_turns<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<BotTurn>, D::Error> {
    use serde::de::Error as _;
    let values: Vec<serde_json::Value> = Vec::deserialize(deserializer)?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            script_turn(value).map_err(|e| D::Error::custom(format!("turns[{i}]: {e}")))
        })
        .collect()
}

fn script_turn(value: serde_json::Value) -> Result<BotTurn, String> {
    if let serde_json::Value::Object(map) = &value
        && let Some(error) = map.get("error")
    {
        return match (error, map.len()) {
            (serde_json::Value::String(reason), 1) => Ok(BotTurn::failed(reason.clone())),
            (serde_json::Value::String(_), _) => Err(
                "a scripted `error` turn stands alone (`{error: \"...\"}`), with no reply \
                 fields beside it"
                    .to_owned(),
            ),
            (other, _) => Err(format!("`error` must be a string, got {other}")),
        };
    }
    super::turn_from_json(value).map_err(|e| match e {
        BotError::Protocol(msg) => format!("the scripted reply breaks the reply protocol: {msg}"),
        other => other.to_string(),
    })
}

/// Replays a [`Script`].
pub struct ScriptedBot {
    script: Script,
    next: usize,
}

impl ScriptedBot {
    /// A bot replaying `script` from its first turn.
    #[must_use]
    pub fn new(script: Script) -> Self {
        Self { script, next: 0 }
    }
}

impl Bot for ScriptedBot {
    fn turn<'a>(&'a mut self, _history: &'a History, _message: &'a str) -> TurnFuture<'a> {
        let reply = self.script.turns.get(self.next).cloned().ok_or_else(|| {
            BotError::Script(format!(
                "no scripted reply for turn {} (the script has {})",
                self.next + 1,
                self.script.turns.len()
            ))
        });
        self.next += 1;
        Box::pin(async move { reply })
    }
}

/// The scripted bot of a suite scenario: its `script`, or an error naming the scenario.
///
/// # Errors
/// [`BotError::Script`] when the scenario has no script.
pub fn scripted_bot(scenario: &crate::suite::SuiteScenario) -> Result<Box<dyn Bot>, BotError> {
    let script = scenario.script.clone().ok_or_else(|| {
        BotError::Script(format!(
            "scenario `{}` has no scripted replies",
            scenario.id
        ))
    })?;
    Ok(Box::new(ScriptedBot::new(script)))
}
