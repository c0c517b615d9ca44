//! The bots of a suite run: [`SuiteBots`] makes a fresh bot of the chosen adapter for each run of
//! each scenario, configured by the suite's `bot:` section (and the model, for the `llm`
//! adapter). An adapter whose section is missing is refused before anything runs.

use std::sync::Arc;

use llm_client::ChatModel;

use super::{BotFactory, SuiteScenario};
use crate::bot::{Bot, BotError, BotKind, BotSpec, CommandBot, HttpBot, LlmBot, scripted_bot};

/// Makes the bots of one suite run.
pub struct SuiteBots {
    kind: BotKind,
    spec: BotSpec,
    /// The model and the model name to ask for (the `llm` adapter).
    model: Option<(Arc<dyn ChatModel>, String)>,
}

impl SuiteBots {
    /// Bots of adapter `kind` as `spec` configures them.
    ///
    /// # Errors
    /// [`BotError::Config`] when `spec` has no section for `kind` (`bot.http`, `bot.command`), or
    /// `kind` is `llm` without a model.
    pub fn new(
        kind: BotKind,
        spec: BotSpec,
        model: Option<(Arc<dyn ChatModel>, String)>,
    ) -> Result<Self, BotError> {
        let missing = match kind {
            BotKind::Http if spec.http.is_none() => Some("a `bot.http` section in the suite"),
            BotKind::Command if spec.command.is_none() => {
                Some("a `bot.command` section in the suite")
            }
            BotKind::Llm if model.is_none() => Some("a model"),
            _ => None,
        };
        if let Some(what) = missing {
            let kind = format!("{kind:?}").to_lowercase();
            return Err(BotError::Config(format!("the {kind} bot needs {what}")));
        }
        Ok(Self { kind, spec, model })
    }
}

impl BotFactory for SuiteBots {
    fn create(&self, scenario: &SuiteScenario) -> Result<Box<dyn Bot>, BotError> {
        let missing = |what: &str| BotError::Config(format!("no {what}"));
        let spec = &self.spec;
        Ok(match self.kind {
            BotKind::Scripted => return scripted_bot(scenario),
            BotKind::Llm => {
                let (model, name) = self.model.clone().ok_or_else(|| missing("model"))?;
                Box::new(LlmBot::new(
                    model,
                    name,
                    spec.llm.clone(),
                    &spec.system_prompt,
                    &spec.agents,
                ))
            }
            BotKind::Http => Box::new(HttpBot::new(
                spec.http.clone().ok_or_else(|| missing("bot.http"))?,
            )?),
            BotKind::Command => Box::new(CommandBot::spawn(
                spec.command
                    .as_ref()
                    .ok_or_else(|| missing("bot.command"))?,
            )?),
        })
    }
}
