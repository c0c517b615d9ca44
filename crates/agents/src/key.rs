//! [`CallKey`]: the name of one model call of one scenario, `scenario_id:attempt:agent[~try]`.
//!
//! The key is on the wire: batch custom ids are `key#submission` and the batch state file is
//! keyed by it, so its text form is fixed. [`CallKey`]'s `Display` writes exactly the form the
//! machine has always written and `FromStr` reads it back, so state files written before the
//! key was typed still load. Scenario ids may contain `:`: the attempt and the agent are read
//! from the right.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use runlog::AgentKind;
use scoring::JudgeName;

/// Who a call asks: one of the six roles, or a judge the run's config declares beside the four
/// (`run.judges`, see the `judges` module). Its text form is the role's or the judge's name; the
/// names cannot clash (a declared judge may not take a role's name).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    /// A built-in role.
    Role(AgentKind),
    /// A judge the config declares.
    Judge(JudgeName),
}

impl Agent {
    /// The name: the role's, or the declared judge's.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Agent::Role(kind) => kind.name(),
            Agent::Judge(name) => name.as_str(),
        }
    }

    /// The role, for one of the six.
    #[must_use]
    pub fn role(&self) -> Option<AgentKind> {
        match self {
            Agent::Role(kind) => Some(*kind),
            Agent::Judge(_) => None,
        }
    }

    /// True for the four built-in judges and every declared one.
    #[must_use]
    pub fn is_judge(&self) -> bool {
        self.role().is_none_or(AgentKind::is_judge)
    }
}

impl From<AgentKind> for Agent {
    fn from(kind: AgentKind) -> Self {
        Agent::Role(kind)
    }
}

impl PartialEq<AgentKind> for Agent {
    fn eq(&self, other: &AgentKind) -> bool {
        self.role() == Some(*other)
    }
}

impl PartialEq<Agent> for AgentKind {
    fn eq(&self, other: &Agent) -> bool {
        other == self
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Agent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The longest judge name: it is a record key, a column and part of every call key.
const MAX_NAME_LEN: usize = 64;

/// Whether `name` can name a declared judge: lowercase ASCII letters, digits and `_`,
/// beginning with a letter, at most 64 characters (it is a call key's last part, a record key
/// and an export column).
#[must_use]
pub fn is_judge_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= MAX_NAME_LEN
}

/// One call of one scenario: which scenario, which attempt, which agent, which try.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallKey {
    /// The scenario's id.
    pub scenario: String,
    /// 0 for the generator's batch and its judges, n for the n-th refinement.
    pub attempt: u32,
    /// The agent called.
    pub agent: Agent,
    /// 1 for the first try; a call asked again (empty write, invalid judge reply) counts up.
    pub try_number: u32,
}

impl CallKey {
    /// The first try of `agent` in `attempt` of `scenario`.
    #[must_use]
    pub fn new(scenario: impl Into<String>, attempt: u32, agent: impl Into<Agent>) -> Self {
        Self {
            scenario: scenario.into(),
            attempt,
            agent: agent.into(),
            try_number: 1,
        }
    }

    /// The same call, try `try_number` (1-based).
    #[must_use]
    pub fn with_try(mut self, try_number: u32) -> Self {
        self.try_number = try_number.max(1);
        self
    }
}

impl fmt::Display for CallKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.scenario, self.attempt, self.agent)?;
        if self.try_number > 1 {
            write!(f, "~{}", self.try_number)?;
        }
        Ok(())
    }
}

/// A string that is not a call key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a call key (scenario_id:attempt:agent[~try]): {reason}")]
pub struct CallKeyError {
    /// The text read.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl FromStr for CallKey {
    type Err = CallKeyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |reason| CallKeyError {
            text: text.to_owned(),
            reason,
        };
        let mut parts = text.rsplitn(3, ':');
        let (Some(agent_try), Some(attempt), Some(scenario)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(err("fewer than three `:`-separated parts"));
        };
        let (agent, try_number) = match agent_try.split_once('~') {
            Some((agent, n)) => match n.parse::<u32>() {
                Ok(n) if n >= 2 => (agent, n),
                _ => return Err(err("the try after `~` must be a number ≥ 2")),
            },
            None => (agent_try, 1),
        };
        Ok(Self {
            scenario: scenario.to_owned(),
            attempt: attempt
                .parse()
                .map_err(|_| err("the attempt is not a number"))?,
            agent: match AgentKind::from_name(agent) {
                Some(kind) => Agent::Role(kind),
                None if is_judge_name(agent) => Agent::Judge(JudgeName::from(agent)),
                None => return Err(err("unknown agent")),
            },
            try_number,
        })
    }
}

impl Serialize for CallKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CallKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_form_is_the_one_state_files_hold() {
        let key = CallKey::new("abc", 1, AgentKind::Fluency);
        assert_eq!(key.to_string(), "abc:1:fluency");
        assert_eq!(key.clone().with_try(2).to_string(), "abc:1:fluency~2");
        assert_eq!(
            "abc:0:generator".parse(),
            Ok(CallKey::new("abc", 0, AgentKind::Generator))
        );
        assert_eq!(
            "a:b:2:cs_ratio~3".parse(),
            Ok(CallKey::new("a:b", 2, AgentKind::CsRatio).with_try(3)),
            "ids with colons"
        );
    }

    #[test]
    fn malformed_keys_are_refused() {
        for bad in [
            "",
            "abc",
            "abc:1",
            "abc:x:fluency",
            "abc:1:Judge",
            "abc:1:a-b",
            "abc:1:fluency~1",
            "abc:1:fluency~",
        ] {
            assert!(bad.parse::<CallKey>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_declared_judge_is_keyed_by_its_name() {
        let key = CallKey::new("abc", 1, Agent::Judge("toxicity".into())).with_try(2);
        assert_eq!(key.to_string(), "abc:1:toxicity~2");
        assert_eq!("abc:1:toxicity~2".parse(), Ok(key));
    }

    #[test]
    fn serde_uses_the_text_form() {
        let key = CallKey::new("s", 0, AgentKind::SocioCultural).with_try(2);
        let json = serde_json::to_string(&key).expect("serialises");
        assert_eq!(json, "\"s:0:socio_cultural~2\"");
        assert_eq!(serde_json::from_str::<CallKey>(&json).expect("parses"), key);
    }

    proptest::proptest! {
        #[test]
        fn display_and_from_str_round_trip(
            scenario in "[a-z0-9:~#_-]{0,12}",
            attempt in 0u32..1000,
            agent in 0usize..6,
            try_number in 1u32..20,
        ) {
            let key = CallKey::new(scenario, attempt, AgentKind::ALL[agent]).with_try(try_number);
            proptest::prop_assert_eq!(key.to_string().parse::<CallKey>(), Ok(key));
        }
    }
}
