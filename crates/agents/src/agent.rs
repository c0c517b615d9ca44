//! The six agents of the code-switching pipeline and their per-agent model settings.
//!
//! An [`AgentKind`] names one role (generator, the four judges, refiner); [`AgentSettings`] says
//! which model answers it, how, and from which prompt file. [`AgentSet`] holds one of each so a
//! cheap judge model and a strong generator can be mixed in one run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use runlog::AgentKind;

/// How one agent is called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// Model name sent to the provider (for Azure: the deployment).
    pub model: String,
    /// Sampling temperature; the provider's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Cap on the reply's tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// A minijinja template file replacing the built-in prompt of this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PathBuf>,
}

impl AgentSettings {
    /// Settings with only a model name.
    #[must_use]
    pub fn with_model(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            temperature: None,
            max_tokens: None,
            prompt: None,
        }
    }
}

/// One value for each of the six agents, addressed by [`AgentKind`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerAgent<T> {
    /// The generator.
    pub generator: T,
    /// The fluency judge.
    pub fluency: T,
    /// The naturalness judge.
    pub naturalness: T,
    /// The cs-ratio judge.
    pub cs_ratio: T,
    /// The socio-cultural judge.
    pub socio_cultural: T,
    /// The refiner.
    pub refiner: T,
}

impl<T> PerAgent<T> {
    /// The value of one agent.
    #[must_use]
    pub fn get(&self, kind: AgentKind) -> &T {
        match kind {
            AgentKind::Generator => &self.generator,
            AgentKind::Fluency => &self.fluency,
            AgentKind::Naturalness => &self.naturalness,
            AgentKind::CsRatio => &self.cs_ratio,
            AgentKind::SocioCultural => &self.socio_cultural,
            AgentKind::Refiner => &self.refiner,
        }
    }

    /// The value of one agent, mutably.
    pub fn get_mut(&mut self, kind: AgentKind) -> &mut T {
        match kind {
            AgentKind::Generator => &mut self.generator,
            AgentKind::Fluency => &mut self.fluency,
            AgentKind::Naturalness => &mut self.naturalness,
            AgentKind::CsRatio => &mut self.cs_ratio,
            AgentKind::SocioCultural => &mut self.socio_cultural,
            AgentKind::Refiner => &mut self.refiner,
        }
    }
}

/// Settings for every agent.
pub type AgentSet = PerAgent<AgentSettings>;

impl PerAgent<AgentSettings> {
    /// The same model for every agent; generator and refiner at temperature 0.9, judges at 0
    /// (judges should be repeatable, writers varied).
    #[must_use]
    pub fn uniform(model: &str) -> Self {
        let writer = AgentSettings {
            temperature: Some(0.9),
            max_tokens: Some(1024),
            ..AgentSettings::with_model(model)
        };
        let judge = AgentSettings {
            temperature: Some(0.0),
            max_tokens: Some(512),
            ..AgentSettings::with_model(model)
        };
        Self {
            generator: writer.clone(),
            fluency: judge.clone(),
            naturalness: judge.clone(),
            cs_ratio: judge.clone(),
            socio_cultural: judge,
            refiner: writer,
        }
    }
}
