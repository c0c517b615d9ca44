//! The agents' prompt templates: built-in `prompts/*.j2` files, optionally replaced per agent by
//! a file from the settings, compiled once and rendered with strict undefined variables.
//!
//! Strict rendering means a template that names a variable the context lacks fails loudly
//! (the scenario fails with the reason) instead of sending a prompt with a hole in it. Optional
//! scenario parameters are reached through `params` with `is defined` tests.
//!
//! The variables are one typed struct, [`PromptContext`], built per agent by
//! [`PromptContext::generator`], [`PromptContext::judge`] and [`PromptContext::refiner`]. Every
//! agent sees every variable (`null`, `0` or `[]` where it does not apply): an override template
//! may test any of them, and strict rendering would fail on one that is missing.

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;
use serde_json::Value;

use crate::agent::AgentSet;
use crate::key::Agent;
use crate::measure::BatchMeasurement;
use crate::outputs::{FluencyResult, NaturalnessResult, RatioVerdict, SocioCulturalResult};
use runlog::AgentKind;

/// The variables every prompt is given ([`PromptContext`]'s fields, flattened): what a declared
/// judge's template may name (checked at load; a unit test keeps the list in step).
pub const PLACEHOLDERS: &[&str] = &[
    "params",
    "first_language",
    "second_language",
    "ratio_unit",
    "cs_ratio",
    "target_ratio",
    "min_instances",
    "max_instances",
    "retry",
    "retry_reason",
    "instances",
    "measurement",
    "measured_ratio",
    "feedback",
    "article",
];

/// The template of a judge the config declares, as [`Prompts::from_settings`] compiles it.
#[derive(Debug, Clone)]
pub struct DeclaredTemplate<'a> {
    /// The judge's name (its template is registered as `judge:<name>`).
    pub name: &'a str,
    /// The template text.
    pub text: &'a str,
    /// Where it came from, for errors: its file, or its key in the config.
    pub file: String,
}

/// A declared judge's verdict, as the refiner is told it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeVerdict {
    /// Its score, 0–10.
    pub score: f64,
    /// Its reason, when it has a reason field.
    pub reason: Option<String>,
}

/// What every prompt of one scenario is told about it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ScenarioFacts<'a> {
    /// Every scenario parameter.
    pub params: &'a BTreeMap<String, Value>,
    /// The matrix language.
    pub first_language: &'a str,
    /// The embedded language.
    pub second_language: &'a str,
    /// What `cs_ratio` is a share of: "words", or for a Chinese or Japanese pair e.g. "Chinese
    /// characters and English words" (`codeswitch::LanguagePair::ratio_unit`).
    pub ratio_unit: &'a str,
    /// The `cs_ratio` parameter as written (e.g. `30%`).
    pub cs_ratio: Option<&'a str>,
    /// The embedded share it asks for, 0–1, when it can be read.
    pub target_ratio: Option<f64>,
    /// Fewest usable texts in a batch.
    pub min_instances: u32,
    /// Most texts asked for.
    pub max_instances: u32,
}

/// The `ratio_unit` variable for a scenario's languages: what its `cs_ratio` is a share of
/// ([`codeswitch::LanguagePair::ratio_unit`]), `"words"` for a pair the measurement does not know.
#[must_use]
pub fn ratio_unit(first_language: &str, second_language: &str) -> String {
    codeswitch::LanguagePair::parse(first_language, second_language)
        .map_or_else(|_| "words".to_owned(), codeswitch::LanguagePair::ratio_unit)
}

/// The judges' verdicts on the last attempt, for the refiner (`feedback` in its template). The
/// naturalness observations keep the list shape the judge answered with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feedback {
    /// The fluency judge's answer.
    pub fluency: FluencyResult,
    /// The naturalness judge's answer.
    pub naturalness: NaturalnessResult,
    /// The ratio verdict.
    pub cs_ratio: RatioVerdict,
    /// The socio-cultural judge's answer.
    pub socio_cultural: SocioCulturalResult,
    /// The verdicts of the judges the config declares, by name (empty when it declares none).
    pub judges: BTreeMap<String, JudgeVerdict>,
    /// The attempt's weighted score.
    pub score: f64,
    /// The accept threshold.
    pub threshold: f64,
    /// Why the accept gate refused the batch, when it did (no code switching measured).
    pub gate: Option<String>,
}

/// The variables of every agent's template (see the module docs and the crate README).
#[derive(Debug, Clone, Serialize)]
pub struct PromptContext<'a> {
    /// The scenario, flattened: `params`, `first_language`, `second_language`, `ratio_unit`,
    /// `cs_ratio`, `target_ratio`, `min_instances`, `max_instances`.
    #[serde(flatten)]
    pub scenario: ScenarioFacts<'a>,
    /// 0, or the number of the try for a write or a judge asked again.
    pub retry: u32,
    /// Why the previous reply was rejected (at most 300 characters).
    pub retry_reason: Option<&'a str>,
    /// The texts judged (judges) or to rewrite (refiner).
    pub instances: &'a [String],
    /// The deterministic measurement of `instances`, as recorded.
    pub measurement: Option<&'a Value>,
    /// Its embedded share, 0–1.
    pub measured_ratio: Option<f64>,
    /// The judges' verdicts (refiner only).
    pub feedback: Option<&'a Feedback>,
    /// The article the scenario is grounded in (`use_tools: true` with a tool server): `title`,
    /// `source`, `url`, `published`, `text` (bounded), `truncated`, `original_chars`.
    pub article: Option<&'a grounding::Article>,
}

impl<'a> PromptContext<'a> {
    /// The generator's context: try `retry` (0 for the first), with the previous rejection.
    #[must_use]
    pub fn generator(
        scenario: ScenarioFacts<'a>,
        retry: u32,
        retry_reason: Option<&'a str>,
    ) -> Self {
        Self {
            scenario,
            retry,
            retry_reason,
            instances: &[],
            measurement: None,
            measured_ratio: None,
            feedback: None,
            article: None,
        }
    }

    /// A judge's context: the batch and its measurement.
    #[must_use]
    pub fn judge(
        scenario: ScenarioFacts<'a>,
        instances: &'a [String],
        measurement: Option<&'a BatchMeasurement>,
    ) -> Self {
        Self {
            instances,
            measurement: measurement.map(|m| &m.prompt_json),
            measured_ratio: measurement.and_then(|m| m.embedded_ratio),
            ..Self::generator(scenario, 0, None)
        }
    }

    /// The refiner's context: the last judged batch, its measurement and the judges' feedback.
    #[must_use]
    pub fn refiner(
        scenario: ScenarioFacts<'a>,
        retry: u32,
        retry_reason: Option<&'a str>,
        instances: &'a [String],
        measurement: Option<&'a BatchMeasurement>,
        feedback: Option<&'a Feedback>,
    ) -> Self {
        Self {
            retry,
            retry_reason,
            feedback,
            ..Self::judge(scenario, instances, measurement)
        }
    }
}

/// The built-in template of an agent, embedded at compile time.
#[must_use]
pub fn builtin_template(agent: AgentKind) -> &'static str {
    match agent {
        AgentKind::Generator => include_str!("../prompts/generator.j2"),
        AgentKind::Fluency => include_str!("../prompts/fluency.j2"),
        AgentKind::Naturalness => include_str!("../prompts/naturalness.j2"),
        AgentKind::CsRatio => include_str!("../prompts/cs_ratio.j2"),
        AgentKind::SocioCultural => include_str!("../prompts/socio_cultural.j2"),
        AgentKind::Refiner => include_str!("../prompts/refiner.j2"),
    }
}

/// A prompt that could not be loaded, compiled or rendered.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// The override file could not be read.
    #[error("cannot read prompt file {path} for {agent}: {source}")]
    Read {
        /// The agent whose prompt it is.
        agent: Agent,
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The template does not compile.
    #[error("prompt template of {agent} ({file}) is invalid: {source:#}")]
    Compile {
        /// The agent whose prompt it is.
        agent: Agent,
        /// The template's file, or `built-in`.
        file: String,
        /// The template error (with line).
        source: minijinja::Error,
    },
    /// The template rendered to nothing but whitespace: the model would get an empty prompt.
    #[error("the {agent} prompt ({file}) rendered empty")]
    Blank {
        /// The agent whose prompt it is.
        agent: Agent,
        /// The template's file, or `built-in`.
        file: String,
    },
    /// A prompt failed in one of the cases `run` renders before any call.
    #[error("before the run, for {case}: {source}")]
    Rehearsal {
        /// The case: e.g. `texts that could not be measured, refused by the gate`.
        case: String,
        /// The failure.
        source: Box<PromptError>,
    },
    /// Rendering failed: an undefined variable, a missing or recursive include.
    #[error("rendering the {agent} prompt ({file}) failed: {source:#}")]
    Render {
        /// The agent whose prompt it is.
        agent: Agent,
        /// The template's file, or `built-in`.
        file: String,
        /// The template error (with line).
        source: minijinja::Error,
    },
}

/// The name of the template the generator and refiner include: the switching types and
/// functions with examples, and the structural constraints.
pub const CS_GUIDE: &str = "cs_guide";

/// The name of the template the generator includes when its scenario is grounded in an article
/// (`article` is set): the article, quoted as source material, never as instructions.
pub const ARTICLE: &str = "article";

/// The name of the template the four judges begin with: their role and the languages. It
/// depends on the language pair only, so every judge prompt of a run begins with the same text.
///
/// Every built-in prompt puts what is the same for every scenario of a run first, then what a
/// grid dimension decides, then what is unique to the attempt (the texts last), so the prompts
/// share long prefixes that a server with a prefix cache (llama.cpp, vLLM, the embedded model,
/// OpenAI's prompt caching) reads once.
pub const JUDGE_INTRO: &str = "judge_intro";

/// The name of the template the four judges end with: the numbered texts under judgement.
pub const JUDGE_TEXTS: &str = "judge_texts";

/// The name of the template that is [`JUDGE_INTRO`] then [`JUDGE_TEXTS`], kept for prompt files
/// that include it.
pub const JUDGE_CONTEXT: &str = "judge_context";

/// The templates the agents' templates include, by name.
const SHARED: [(&str, &str); 5] = [
    (CS_GUIDE, include_str!("../prompts/cs_guide.j2")),
    (ARTICLE, include_str!("../prompts/article.j2")),
    (JUDGE_INTRO, include_str!("../prompts/judge_intro.j2")),
    (JUDGE_TEXTS, include_str!("../prompts/judge_texts.j2")),
    (JUDGE_CONTEXT, include_str!("../prompts/judge_context.j2")),
];

/// Every template name the built-in prompts register: the shared parts and the six agents'
/// templates. A declared judge may not take one of these names (it would read as that part
/// wherever a prompt includes it); [`crate::judges::check_spec`] refuses them from this list, so
/// the rule follows the templates.
pub fn builtin_template_names() -> impl Iterator<Item = &'static str> {
    SHARED
        .iter()
        .map(|(name, _)| *name)
        .chain(AgentKind::ALL.iter().map(|a| a.name()))
}

/// The name a declared judge's template is registered under: `judge:<name>`. A `:` is in no
/// judge name and in no built-in template's, so a declared template can never take the place of
/// a shared part (`{% include "judge_texts" %}` always finds the built-in one).
fn declared_template_name(judge: &str) -> String {
    format!("judge:{judge}")
}

/// The template an agent's prompt renders.
fn template_name(agent: &Agent) -> String {
    match agent {
        Agent::Role(kind) => kind.name().to_owned(),
        Agent::Judge(name) => declared_template_name(name.as_str()),
    }
}

/// An environment holding the shared parts only, undefined values chainable: what a declared
/// judge's template is rendered in at load, to find a missing include before any run.
pub(crate) fn shared_parts_env() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Chainable);
    for (name, text) in SHARED {
        // The shared parts are built in and compile (a test renders every prompt).
        if env.add_template(name, text).is_err() {
            tracing::error!(
                template = name,
                "a built-in shared template does not compile"
            );
        }
    }
    env
}

/// The largest prompt file read (256 KiB): a prompt is instructions, and a bigger file (or
/// `/dev/zero`) would be sent with every call.
pub const MAX_PROMPT_FILE_BYTES: u64 = 256 * 1024;

/// Reads a prompt file: a regular file (not a device or a FIFO, which could be read forever) of at
/// most [`MAX_PROMPT_FILE_BYTES`], in UTF-8. The read itself is bounded, so a file that grows
/// while it is read cannot exceed it either.
///
/// # Errors
/// The file cannot be read, is not a regular file, is too large or is not UTF-8.
pub fn read_prompt_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let invalid = |msg: String| std::io::Error::new(std::io::ErrorKind::InvalidData, msg);
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(invalid(
            "it is not a regular file (a device, a FIFO or a directory cannot hold a prompt)"
                .to_owned(),
        ));
    }
    let too_big = || {
        invalid(format!(
            "it is larger than {} KiB, the most a prompt file may hold",
            MAX_PROMPT_FILE_BYTES / 1024
        ))
    };
    if meta.len() > MAX_PROMPT_FILE_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_PROMPT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_PROMPT_FILE_BYTES {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|_| invalid("it is not UTF-8 text".to_owned()))
}

/// The compiled templates of all six agents and of the judges the config declares.
#[derive(Debug)]
pub struct Prompts {
    env: Environment<'static>,
    /// blake3 (16 hex digits) of each agent's template text.
    hashes: BTreeMap<String, String>,
    /// The file of each agent's template that is not the built-in one, by agent name.
    files: BTreeMap<String, String>,
}

/// What a built-in template is called in errors.
const BUILT_IN: &str = "built-in";

impl Prompts {
    /// The built-in templates only.
    pub fn builtin() -> Result<Self, PromptError> {
        Self::build(
            |agent| Ok(builtin_template(agent).to_string()),
            BTreeMap::new(),
            &[],
        )
    }

    /// The built-in templates, each replaced by the agent's `prompt` file when one is set, and
    /// the templates of the judges the config declares.
    pub fn from_settings(
        agents: &AgentSet,
        judges: &[DeclaredTemplate<'_>],
    ) -> Result<Self, PromptError> {
        let mut files: BTreeMap<String, String> = AgentKind::ALL
            .into_iter()
            .filter_map(|a| {
                let path = agents.get(a).prompt.as_ref()?;
                Some((a.name().to_owned(), path.display().to_string()))
            })
            .collect();
        for judge in judges {
            files.insert(judge.name.to_owned(), judge.file.clone());
        }
        Self::build(
            |agent| match &agents.get(agent).prompt {
                Some(path) => read(agent, path),
                None => Ok(builtin_template(agent).to_string()),
            },
            files,
            judges,
        )
    }

    fn build(
        source: impl Fn(AgentKind) -> Result<String, PromptError>,
        files: BTreeMap<String, String>,
        judges: &[DeclaredTemplate<'_>],
    ) -> Result<Self, PromptError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let mut hashes = BTreeMap::new();
        // The shared parts (`{% include "cs_guide" %}`, `{% include "judge_intro" %}`, …).
        for (name, text) in SHARED {
            env.add_template(name, text)
                .map_err(|source| PromptError::Compile {
                    agent: AgentKind::Generator.into(),
                    file: BUILT_IN.to_owned(),
                    source,
                })?;
            hashes.insert(
                name.to_owned(),
                blake3::hash(text.as_bytes()).to_hex()[..16].to_string(),
            );
        }
        for agent in AgentKind::ALL {
            let text = source(agent)?;
            let hash = blake3::hash(text.as_bytes()).to_hex();
            hashes.insert(agent.name().to_string(), hash[..16].to_string());
            env.add_template_owned(agent.name().to_string(), text)
                .map_err(|source| PromptError::Compile {
                    agent: agent.into(),
                    file: file_of(&files, agent.name()),
                    source,
                })?;
        }
        for judge in judges {
            let name = judge.name.to_owned();
            let hash = blake3::hash(judge.text.as_bytes()).to_hex();
            hashes.insert(name.clone(), hash[..16].to_string());
            env.add_template_owned(declared_template_name(&name), judge.text.to_owned())
                .map_err(|source| PromptError::Compile {
                    agent: Agent::Judge(judge.name.into()),
                    file: file_of(&files, &name),
                    source,
                })?;
        }
        Ok(Self { env, hashes, files })
    }

    fn file(&self, agent: &Agent) -> String {
        file_of(&self.files, agent.name())
    }

    /// blake3 (first 16 hex digits) of each agent's template text, by agent name: which prompts
    /// made a record.
    #[must_use]
    pub fn hashes(&self) -> &BTreeMap<String, String> {
        &self.hashes
    }

    /// Renders an agent's prompt with `ctx` (any serialisable value; the pipeline passes a
    /// [`PromptContext`]).
    pub fn render(
        &self,
        agent: impl Into<Agent>,
        ctx: &impl Serialize,
    ) -> Result<String, PromptError> {
        let agent = agent.into();
        let failed = |source| PromptError::Render {
            agent: agent.clone(),
            file: self.file(&agent),
            source,
        };
        let template = self
            .env
            .get_template(&template_name(&agent))
            .map_err(failed)?;
        let text = template
            .render(minijinja::value::Serde(ctx))
            .map_err(failed)?;
        if text.trim().is_empty() {
            return Err(PromptError::Blank {
                file: self.file(&agent),
                agent,
            });
        }
        Ok(text)
    }
}

/// The file an agent's template came from, or `built-in`.
fn file_of(files: &BTreeMap<String, String>, agent: &str) -> String {
    files.get(agent).map_or(BUILT_IN, String::as_str).to_owned()
}

fn read(agent: AgentKind, path: &Path) -> Result<String, PromptError> {
    read_prompt_file(path).map_err(|source| PromptError::Read {
        agent: agent.into(),
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A declared template is registered under `judge:<name>`: even one named after a shared
    /// part leaves that part as built (a judge named `judge_texts` had replaced the texts in
    /// every built-in judge prompt).
    #[test]
    fn a_declared_template_never_shadows_a_shared_part() {
        let declared: Vec<DeclaredTemplate<'_>> = builtin_template_names()
            .map(|name| DeclaredTemplate {
                name,
                text: "SHADOW",
                file: "f".to_owned(),
            })
            .collect();
        let prompts = Prompts::from_settings(&AgentSet::uniform("m"), &declared).expect("builds");
        for (name, text) in SHARED {
            let t = prompts.env.get_template(name).expect("shared part");
            assert_eq!(t.source(), text, "{name}");
        }
        for agent in AgentKind::ALL {
            let t = prompts.env.get_template(agent.name()).expect("agent");
            assert_eq!(t.source(), builtin_template(agent), "{}", agent.name());
        }
        let own = prompts
            .env
            .get_template("judge:judge_texts")
            .expect("declared");
        assert_eq!(own.source(), "SHADOW");
    }

    /// A declared judge's template is checked against `PLACEHOLDERS`: it must be every
    /// variable a prompt is given, no more.
    #[test]
    fn the_placeholders_are_the_context_s_variables() {
        let params = BTreeMap::new();
        let facts = ScenarioFacts {
            params: &params,
            first_language: "Spanish",
            second_language: "English",
            ratio_unit: "words",
            cs_ratio: None,
            target_ratio: None,
            min_instances: 1,
            max_instances: 2,
        };
        let json = serde_json::to_value(PromptContext::generator(facts, 0, None)).expect("json");
        let mut keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut placeholders = PLACEHOLDERS.to_vec();
        keys.sort_unstable();
        placeholders.sort_unstable();
        assert_eq!(keys, placeholders);
    }
}
