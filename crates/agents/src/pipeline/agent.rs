//! The six agents of the code-switching pipeline and their per-agent model settings.
//!
//! An [`AgentKind`] names one role (generator, the four judges, refiner); [`AgentSettings`] says
//! which model answers it, how, and from which prompt file. [`AgentSet`] holds one of each so a
//! cheap judge model and a strong generator can be mixed in one run.

use std::fmt;
use std::path::PathBuf;

use scoring::Judge;
use serde::{Deserialize, Serialize};

/// One role in the pipeline graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// Writes the batch of code-switched texts.
    Generator,
    /// Grammar and Poplack's constraints.
    Fluency,
    /// Would real bilinguals say it (Auer's typology).
    Naturalness,
    /// Embedded-language share against the target.
    CsRatio,
    /// Borrowings, politeness, nothing offensive.
    SocioCultural,
    /// Rewrites the whole batch from the judges' feedback.
    Refiner,
}

impl AgentKind {
    /// Every agent, generator first.
    pub const ALL: [AgentKind; 6] = [
        AgentKind::Generator,
        AgentKind::Fluency,
        AgentKind::Naturalness,
        AgentKind::CsRatio,
        AgentKind::SocioCultural,
        AgentKind::Refiner,
    ];

    /// The four judges as agents, in the order of [`Judge::ALL`] (derived from it, so the
    /// judge list exists once).
    pub const JUDGES: [AgentKind; Judge::ALL.len()] = {
        let mut out = [AgentKind::Fluency; Judge::ALL.len()];
        let mut i = 0;
        while i < Judge::ALL.len() {
            out[i] = AgentKind::of_judge(Judge::ALL[i]);
            i += 1;
        }
        out
    };

    /// The agent that plays `judge`.
    #[must_use]
    pub const fn of_judge(judge: Judge) -> Self {
        match judge {
            Judge::Fluency => AgentKind::Fluency,
            Judge::Naturalness => AgentKind::Naturalness,
            Judge::CsRatio => AgentKind::CsRatio,
            Judge::SocioCultural => AgentKind::SocioCultural,
        }
    }

    /// The judge this agent plays, `None` for the generator and the refiner.
    #[must_use]
    pub const fn judge(self) -> Option<Judge> {
        match self {
            AgentKind::Fluency => Some(Judge::Fluency),
            AgentKind::Naturalness => Some(Judge::Naturalness),
            AgentKind::CsRatio => Some(Judge::CsRatio),
            AgentKind::SocioCultural => Some(Judge::SocioCultural),
            AgentKind::Generator | AgentKind::Refiner => None,
        }
    }

    /// The snake-case name used in keys, records, settings and template file names.
    #[must_use]
    pub fn name(self) -> &'static str {
        // A judge's name is its `Judge` name, so weights, scores and agents never disagree.
        match (self, self.judge()) {
            (_, Some(judge)) => judge.name(),
            (AgentKind::Refiner, None) => "refiner",
            (_, None) => "generator",
        }
    }

    /// Parses [`AgentKind::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The judge's name in [`scoring::JudgeWeights`] (the same as [`AgentKind::name`]).
    #[must_use]
    pub fn weight_name(self) -> &'static str {
        self.name()
    }

    /// True for the four judges.
    #[must_use]
    pub fn is_judge(self) -> bool {
        self.judge().is_some()
    }
}

impl From<Judge> for AgentKind {
    fn from(judge: Judge) -> Self {
        Self::of_judge(judge)
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
