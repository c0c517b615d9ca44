//! The agents' prompt templates: built-in `prompts/*.j2` files, optionally replaced per agent by
//! a file from the settings, compiled once and rendered with strict undefined variables.
//!
//! Strict rendering means a template that names a variable the context lacks fails loudly
//! (the scenario fails with the reason) instead of sending a prompt with a hole in it. Optional
//! scenario parameters are reached through `params` with `is defined` tests.

use std::path::Path;

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use super::agent::{AgentKind, AgentSet};

/// The built-in template of an agent, embedded at compile time.
#[must_use]
pub fn builtin_template(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::Generator => include_str!("../../prompts/generator.j2"),
        AgentKind::Fluency => include_str!("../../prompts/fluency.j2"),
        AgentKind::Naturalness => include_str!("../../prompts/naturalness.j2"),
        AgentKind::CsRatio => include_str!("../../prompts/cs_ratio.j2"),
        AgentKind::SocioCultural => include_str!("../../prompts/socio_cultural.j2"),
        AgentKind::Refiner => include_str!("../../prompts/refiner.j2"),
    }
}

/// A prompt that could not be loaded, compiled or rendered.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// The override file could not be read.
    #[error("cannot read prompt file {path} for {agent}: {source}")]
    Read {
        /// The agent whose prompt it is.
        agent: AgentKind,
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The template does not compile.
    #[error("prompt template of {agent} is invalid: {source:#}")]
    Compile {
        /// The agent whose prompt it is.
        agent: AgentKind,
        /// The template error (with line).
        source: minijinja::Error,
    },
    /// Rendering failed, typically an undefined variable.
    #[error("rendering the {agent} prompt failed: {source:#}")]
    Render {
        /// The agent whose prompt it is.
        agent: AgentKind,
        /// The template error (with line).
        source: minijinja::Error,
    },
}

/// The compiled templates of all six agents.
#[derive(Debug)]
pub struct Prompts {
    env: Environment<'static>,
}

impl Prompts {
    /// The built-in templates only.
    pub fn builtin() -> Result<Self, PromptError> {
        Self::build(|agent| Ok(builtin_template(agent).to_string()))
    }

    /// The built-in templates, each replaced by the agent's `prompt` file when one is set.
    pub fn from_settings(agents: &AgentSet) -> Result<Self, PromptError> {
        Self::build(|agent| match &agents.get(agent).prompt {
            Some(path) => read(agent, path),
            None => Ok(builtin_template(agent).to_string()),
        })
    }

    fn build(
        source: impl Fn(AgentKind) -> Result<String, PromptError>,
    ) -> Result<Self, PromptError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        for agent in AgentKind::ALL {
            env.add_template_owned(agent.name().to_string(), source(agent)?)
                .map_err(|source| PromptError::Compile { agent, source })?;
        }
        Ok(Self { env })
    }

    /// Renders an agent's prompt with `ctx` (any serialisable value; see `ScenarioRun` for the
    /// variables the pipeline provides).
    pub fn render(&self, agent: AgentKind, ctx: &impl Serialize) -> Result<String, PromptError> {
        let template = self
            .env
            .get_template(agent.name())
            .map_err(|source| PromptError::Render { agent, source })?;
        template
            .render(minijinja::value::Serde(ctx))
            .map_err(|source| PromptError::Render { agent, source })
    }
}

fn read(agent: AgentKind, path: &Path) -> Result<String, PromptError> {
    std::fs::read_to_string(path).map_err(|source| PromptError::Read {
        agent,
        path: path.display().to_string(),
        source,
    })
}
