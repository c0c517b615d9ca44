//! Judges the config declares beside the four built-in ones (`run.judges`): how they are
//! written in a config ([`JudgeSpec`]), checked at load ([`check_spec`]), and what a run holds
//! of them ([`UserJudge`]): a prompt template rendered with the built-in judges' variables, a
//! strict output schema with the score field bounded 0–10 (and a reason field), a weight in the
//! weighted score.
//!
//! A declared judge follows the built-in judges' path through the machine: it is asked with the
//! others, its reply is checked locally (score within 0–10) and asked again with the reason on
//! an invalid reply, its score goes into the record's `scores` under its name and into the
//! weighted score, and every refinement is judged by it again.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use llm_client::OutputSchema;

use crate::agent::AgentSettings;
use crate::key::{Agent, is_judge_name};
use crate::outputs::{OutputError, check_score, score_schema};
use crate::prompts::{
    DeclaredTemplate, JUDGE_CONTEXT, JUDGE_TEXTS, PLACEHOLDERS, builtin_template_names,
    read_prompt_file, shared_parts_env,
};
use runlog::AgentKind;
use scoring::JudgeName;

/// The functions minijinja offers every template, which are no placeholders.
const TEMPLATE_GLOBALS: [&str; 4] = ["range", "dict", "namespace", "debug"];

/// A judge as a config declares it under `run.judges.<name>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct JudgeSpec {
    /// The prompt template (minijinja), with the built-in judges' variables (`instances`,
    /// `first_language`, `params`, … see docs/config.md) and their shared parts
    /// (`{% include "judge_intro" %}`, `{% include "judge_texts" %}`). Give this or `prompt_file`.
    pub prompt: Option<String>,
    /// A file holding the prompt template, instead of `prompt`.
    pub prompt_file: Option<PathBuf>,
    /// The JSON field of the reply that holds the judge's score, 0–10 (required).
    pub score_field: Option<String>,
    /// The JSON field of the reply that holds its reason, a text (optional).
    pub reason_field: Option<String>,
    /// Its weight in the weighted score (default 1; 0 runs it for information only).
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub weight: Option<f64>,
    /// Model for this judge (default: the run's `model`).
    pub model: Option<String>,
    /// Sampling temperature, within 0–2 (default 0, as the built-in judges).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 2)))]
    pub temperature: Option<f32>,
    /// Cap on the reply's tokens (default 512, as the built-in judges).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_tokens: Option<u32>,
}

/// A declared judge as a run holds it: its template read, its settings resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserJudge {
    /// Its name: the `scores` key, the weight name, the agent name in call keys and `models`.
    pub name: JudgeName,
    /// The template text.
    pub template: String,
    /// The file the template came from (`None`: written in the config).
    pub file: Option<PathBuf>,
    /// The reply's score field.
    pub score_field: String,
    /// The reply's reason field, when it has one.
    pub reason_field: Option<String>,
    /// Model, temperature and reply cap.
    pub settings: AgentSettings,
}

/// A declared judge that cannot run: the settings key at fault (below `judges.<name>`), why,
/// and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecProblem {
    /// The key, e.g. `judges.toxicity.score_field`.
    pub key: String,
    /// Why, in words.
    pub reason: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl SpecProblem {
    fn at(name: &str, field: Option<&str>, reason: impl Into<String>, hint: &str) -> Self {
        Self {
            key: match field {
                Some(f) => format!("judges.{name}.{f}"),
                None => format!("judges.{name}"),
            },
            reason: reason.into(),
            hint: (!hint.is_empty()).then(|| hint.to_owned()),
        }
    }
}

/// Checks one declared judge, reading its prompt file: the name, the prompt (given once, not
/// empty, compiling, naming only the judges' variables), the score and reason fields, the weight.
///
/// # Errors
/// The first problem found.
pub fn check_spec(name: &str, spec: &JudgeSpec) -> Result<String, SpecProblem> {
    if !is_judge_name(name) {
        return Err(SpecProblem::at(
            name,
            None,
            "is not a judge name",
            "a judge name is lowercase letters, digits and `_`, beginning with a letter \
             (at most 64 characters), e.g. `toxicity`",
        ));
    }
    if let Some(kind) = AgentKind::from_name(name) {
        let hint = if kind.is_judge() {
            format!(
                "the built-in judges keep their names; replace `{name}`'s prompt with \
                 `agents.{name}.prompt`, or give this judge another name"
            )
        } else {
            "give this judge another name".to_owned()
        };
        return Err(SpecProblem::at(
            name,
            None,
            format!("clashes with the built-in agent `{name}`"),
            &hint,
        ));
    }
    if builtin_template_names().any(|t| t == name) {
        return Err(SpecProblem::at(
            name,
            None,
            format!("is the name of the built-in prompt part `{name}`"),
            &format!(
                "the built-in prompts include `{name}` by that name; give this judge another \
                 name (the reserved names: {})",
                builtin_template_names().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let template = template_text(name, spec)?;
    check_template(name, spec, &template)?;
    check_settings(name, spec)?;
    let score = spec.score_field.as_deref().map_or("", str::trim);
    if score.is_empty() {
        return Err(SpecProblem::at(
            name,
            Some("score_field"),
            "is missing: a judge needs the JSON field that holds its 0–10 score",
            "add e.g. `score_field: toxicity_score`, and ask for that field in the prompt",
        ));
    }
    if let Some(reason) = &spec.reason_field {
        if reason.trim().is_empty() {
            return Err(SpecProblem::at(
                name,
                Some("reason_field"),
                "is empty",
                "name the reply's reason field, or leave `reason_field` out",
            ));
        }
        if reason.trim() == score {
            return Err(SpecProblem::at(
                name,
                Some("reason_field"),
                format!("is `{score}`, the score field too"),
                "the reason is a text and the score a number: give them two names",
            ));
        }
    }
    Ok(template)
}

/// The highest sampling temperature the providers take (OpenAI refuses more than 2).
pub const MAX_TEMPERATURE: f32 = 2.0;

/// The weight, the temperature and the reply cap are within their ranges.
fn check_settings(name: &str, spec: &JudgeSpec) -> Result<(), SpecProblem> {
    if let Some(w) = spec.weight
        && !(w.is_finite() && w >= 0.0)
    {
        return Err(SpecProblem::at(
            name,
            Some("weight"),
            if w.is_finite() {
                "must be ≥ 0"
            } else {
                "must be a finite number (≥ 0)"
            },
            "0 runs the judge for information only",
        ));
    }
    if let Some(t) = spec.temperature
        && !(t.is_finite() && (0.0..=MAX_TEMPERATURE).contains(&t))
    {
        return Err(SpecProblem::at(
            name,
            Some("temperature"),
            format!("is {t}: it must be within 0–{MAX_TEMPERATURE}"),
            "0 (the default) gives the most repeatable scores",
        ));
    }
    if spec.max_tokens == Some(0) {
        return Err(SpecProblem::at(
            name,
            Some("max_tokens"),
            "is 0: the judge could not reply",
            "leave it out for 512, as the built-in judges",
        ));
    }
    Ok(())
}

/// The template text: `prompt`, or the file `prompt_file` names; exactly one, not blank.
fn template_text(name: &str, spec: &JudgeSpec) -> Result<String, SpecProblem> {
    let one = "give the prompt once: `prompt` (the template) or `prompt_file` (a file holding it)";
    let text = match (&spec.prompt, &spec.prompt_file) {
        (Some(_), Some(_)) => {
            return Err(SpecProblem::at(
                name,
                Some("prompt_file"),
                "is given beside `prompt`",
                one,
            ));
        }
        (None, None) => {
            return Err(SpecProblem::at(
                name,
                Some("prompt"),
                "is missing: a judge needs a prompt",
                one,
            ));
        }
        (Some(text), None) => text.clone(),
        (None, Some(path)) => read_prompt_file(path).map_err(|e| {
            SpecProblem::at(
                name,
                Some("prompt_file"),
                format!("names {}, which cannot be read ({e})", path.display()),
                "a path is taken from the directory the command runs in",
            )
        })?,
    };
    if text.trim().is_empty() {
        let field = if spec.prompt.is_some() {
            "prompt"
        } else {
            "prompt_file"
        };
        return Err(SpecProblem::at(
            name,
            Some(field),
            "is empty: the model would be asked nothing",
            "write the judge's instructions and ask for its score field",
        ));
    }
    Ok(text)
}

/// The template compiles and names no variable the judges are not given.
fn check_template(name: &str, spec: &JudgeSpec, text: &str) -> Result<(), SpecProblem> {
    let field = if spec.prompt.is_some() {
        "prompt"
    } else {
        "prompt_file"
    };
    let env = minijinja::Environment::new();
    let template = env.template_from_str(text).map_err(|e| {
        SpecProblem::at(
            name,
            Some(field),
            format!("does not compile: {e:#}"),
            "the prompt is a minijinja template: `{{ variable }}`, `{% if … %}`, `{% for … %}`",
        )
    })?;
    let mut unknown: Vec<String> = template
        .undeclared_variables(false)
        .into_iter()
        .filter(|v| !PLACEHOLDERS.contains(&v.as_str()) && !TEMPLATE_GLOBALS.contains(&v.as_str()))
        .collect();
    unknown.sort();
    if let Some(first) = unknown.first() {
        let near = stdx::closest(first, PLACEHOLDERS.iter().copied())
            .map(|c| format!("did you mean `{c}`? "))
            .unwrap_or_default();
        return Err(SpecProblem::at(
            name,
            Some(field),
            format!(
                "names the unknown placeholder{} {}",
                if unknown.len() > 1 { "s" } else { "" },
                unknown
                    .iter()
                    .map(|u| format!("`{u}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            &format!(
                "{near}a judge's prompt has the built-in judges' variables: {}; a scenario \
                 parameter is `params.<name>`",
                PLACEHOLDERS.join(", ")
            ),
        ));
    }
    // A missing include is found only when rendering: render once with the shared parts and
    // no values (undefined values chain), so `plan` refuses it as `run` would.
    let env = shared_parts_env();
    if let Err(e) = env.render_str(text, ())
        && matches!(
            e.kind(),
            minijinja::ErrorKind::TemplateNotFound | minijinja::ErrorKind::BadInclude
        )
    {
        return Err(SpecProblem::at(
            name,
            Some(field),
            format!("includes a template that does not exist: {e}"),
            &format!(
                "a judge's prompt may include the shared parts: {}",
                [crate::prompts::JUDGE_INTRO, JUDGE_TEXTS, JUDGE_CONTEXT].join(", ")
            ),
        ));
    }
    let shows_texts = template.undeclared_variables(false).contains("instances")
        || [JUDGE_TEXTS, JUDGE_CONTEXT].iter().any(|part| {
            text.contains(&format!("\"{part}\"")) || text.contains(&format!("'{part}'"))
        });
    if !shows_texts {
        return Err(SpecProblem::at(
            name,
            Some(field),
            "never shows the texts: the judge would score texts it cannot see",
            "add `{% include \"judge_texts\" %}` (the numbered texts), or loop over `instances`",
        ));
    }
    Ok(())
}

impl UserJudge {
    /// The JSON schema of its reply, strict as the built-in judges': the score field a number
    /// within 0–10, the reason field a text, both required, nothing else.
    #[must_use]
    pub fn schema(&self) -> Value {
        let mut properties = serde_json::Map::new();
        properties.insert(self.score_field.clone(), score_schema());
        let mut required = vec![self.score_field.clone()];
        if let Some(reason) = &self.reason_field {
            properties.insert(reason.clone(), json!({"type": "string"}));
            required.push(reason.clone());
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// A declared judge's template, as the prompts compile it.
impl UserJudge {
    /// Its template under its name, with where it came from for errors.
    #[must_use]
    pub fn declared_template(&self) -> DeclaredTemplate<'_> {
        DeclaredTemplate {
            name: self.name.as_str(),
            text: &self.template,
            file: self.file.as_ref().map_or_else(
                || format!("run.judges.{}.prompt", self.name),
                |f| f.display().to_string(),
            ),
        }
    }
}

/// The [`OutputSchema`] sent with a declared judge's request (name `<judge>_output`, strict).
#[must_use]
pub fn output_schema(judge: &UserJudge) -> OutputSchema {
    OutputSchema {
        name: format!("{}_output", judge.name),
        schema: std::sync::Arc::new(judge.schema()),
        strict: true,
    }
}

/// Parses and checks a declared judge's reply: an object whose score field is a number within
/// 0–10 and whose reason field, when it has one, is a text. Returns the score and the reply
/// (the record keeps it as answered).
pub fn parse_reply(judge: &UserJudge, json: &Value) -> Result<(f64, Value), OutputError> {
    let agent = || Agent::Judge(judge.name.clone());
    let shape = |reason: String| OutputError::Shape {
        agent: agent(),
        reason,
    };
    let object = json
        .as_object()
        .ok_or_else(|| shape("the reply is not a JSON object".to_owned()))?;
    let score = object
        .get(&judge.score_field)
        .ok_or_else(|| shape(format!("missing field `{}`", judge.score_field)))?
        .as_f64()
        .ok_or_else(|| shape(format!("`{}` is not a number", judge.score_field)))?;
    check_score(agent(), &judge.score_field, score)?;
    if let Some(reason) = &judge.reason_field {
        match object.get(reason) {
            Some(Value::String(_)) => {}
            Some(_) => return Err(shape(format!("`{reason}` is not a text"))),
            None => return Err(shape(format!("missing field `{reason}`"))),
        }
    }
    Ok((score, json.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(prompt: &str, score: Option<&str>) -> JudgeSpec {
        JudgeSpec {
            prompt: Some(prompt.to_owned()),
            score_field: score.map(str::to_owned),
            ..JudgeSpec::default()
        }
    }

    /// The key and the start of the reason of `check_spec`'s refusal.
    fn refused(name: &str, spec: &JudgeSpec) -> (String, String) {
        let p = check_spec(name, spec).expect_err("refused");
        assert!(p.hint.is_some(), "every refusal says what to do: {p:?}");
        (p.key, p.reason)
    }

    #[test]
    fn a_good_judge_passes_with_its_template() {
        let text = "{% include \"judge_intro\" %}{{ first_language }} {{ params.topic }}\n\
                    {% for t in instances %}{{ loop.index }} {{ t }}{% endfor %}{{ range(3) }}";
        let good = spec(text, Some("toxicity_score"));
        assert_eq!(check_spec("toxicity", &good).as_deref(), Ok(text));
        // Each shared part renders at load (the include check) and shows the texts.
        for text in [
            "{% include \"judge_context\" %}",
            "{% include 'judge_intro' %}{% include 'judge_texts' %}",
            "{% if retry %}{{ retry_reason }}{% endif %}{% include \"judge_texts\" %}",
        ] {
            let good = spec(text, Some("s"));
            assert_eq!(check_spec("toxicity", &good).as_deref(), Ok(text));
        }
    }

    #[test]
    fn each_mistake_is_refused_at_its_key() {
        let ok = "{{ instances }}";
        let cases = [
            (
                "Toxic",
                spec(ok, Some("s")),
                "judges.Toxic",
                "is not a judge name",
            ),
            (
                "a:b",
                spec(ok, Some("s")),
                "judges.a:b",
                "is not a judge name",
            ),
            ("fluency", spec(ok, Some("s")), "judges.fluency", "clashes"),
            ("refiner", spec(ok, Some("s")), "judges.refiner", "clashes"),
            (
                "tox",
                spec("{% include 'nope' %}{{ instances }}", Some("s")),
                "judges.tox.prompt",
                "includes a template that does not exist",
            ),
            (
                "tox",
                spec("rate it", Some("s")),
                "judges.tox.prompt",
                "never shows the texts",
            ),
            (
                "tox",
                JudgeSpec {
                    temperature: Some(9.0),
                    ..spec(ok, Some("s"))
                },
                "judges.tox.temperature",
                "is 9: it must be within 0–2",
            ),
            (
                "tox",
                JudgeSpec {
                    max_tokens: Some(0),
                    ..spec(ok, Some("s"))
                },
                "judges.tox.max_tokens",
                "is 0",
            ),
            (
                "tox",
                JudgeSpec {
                    weight: Some(f64::INFINITY),
                    ..spec(ok, Some("s"))
                },
                "judges.tox.weight",
                "must be a finite number",
            ),
            (
                "tox",
                spec(" \n", Some("s")),
                "judges.tox.prompt",
                "is empty",
            ),
            (
                "tox",
                spec(ok, None),
                "judges.tox.score_field",
                "is missing",
            ),
            (
                "tox",
                spec(ok, Some("  ")),
                "judges.tox.score_field",
                "is missing",
            ),
            (
                "tox",
                spec("{{ first_lang }} {{ instance }}", Some("s")),
                "judges.tox.prompt",
                "names the unknown placeholders `first_lang`, `instance`",
            ),
            (
                "tox",
                spec("{% if %}", Some("s")),
                "judges.tox.prompt",
                "does not compile",
            ),
            (
                "tox",
                JudgeSpec {
                    reason_field: Some("s".into()),
                    ..spec(ok, Some("s"))
                },
                "judges.tox.reason_field",
                "is `s`, the score field too",
            ),
            (
                "tox",
                JudgeSpec {
                    weight: Some(-1.0),
                    ..spec(ok, Some("s"))
                },
                "judges.tox.weight",
                "must be ≥ 0",
            ),
            (
                "tox",
                JudgeSpec {
                    prompt_file: Some("p.j2".into()),
                    ..spec(ok, Some("s"))
                },
                "judges.tox.prompt_file",
                "is given beside `prompt`",
            ),
            (
                "tox",
                JudgeSpec {
                    score_field: Some("s".into()),
                    ..JudgeSpec::default()
                },
                "judges.tox.prompt",
                "is missing",
            ),
        ];
        for (name, spec, key, reason) in cases {
            let (k, r) = refused(name, &spec);
            assert_eq!(k, key, "{name}: {r}");
            assert!(r.starts_with(reason), "{name}: {r}");
        }
    }

    /// A judge named after a shared part (`judge_texts`, …) replaced that part in every
    /// built-in prompt: each name the prompts register is refused, from the prompts' own list.
    #[test]
    fn every_built_in_template_name_is_refused() {
        let names: Vec<&str> = builtin_template_names().collect();
        for part in ["judge_texts", "judge_intro", "judge_context", "cs_guide"] {
            assert!(names.contains(&part), "{part} is a built-in template");
        }
        for name in names {
            let (key, reason) = refused(name, &spec("{{ instances }}", Some("s")));
            assert_eq!(key, format!("judges.{name}"));
            assert!(
                reason.starts_with("clashes") || reason.starts_with("is the name of the built-in"),
                "{name}: {reason}"
            );
        }
    }

    /// `/dev/zero` was read until memory ran out, a FIFO waited forever: only a regular file of
    /// at most 256 KiB is read.
    #[test]
    fn a_prompt_file_is_a_bounded_regular_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big = dir.path().join("big.j2");
        let mut text = "{{ instances }}".to_owned();
        text.push_str(&"x".repeat(256 * 1024));
        std::fs::write(&big, text).expect("written");
        let fifo = dir.path().join("fifo.j2");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        let mut cases = vec![
            (PathBuf::from("/dev/zero"), "not a regular file"),
            (dir.path().to_path_buf(), "not a regular file"),
            (big, "larger than 256 KiB"),
        ];
        if made {
            cases.push((fifo, "not a regular file"));
        }
        for (path, why) in cases {
            let spec = JudgeSpec {
                prompt_file: Some(path.clone()),
                score_field: Some("s".into()),
                ..JudgeSpec::default()
            };
            let (key, reason) = refused("tox", &spec);
            assert_eq!(key, "judges.tox.prompt_file");
            assert!(reason.contains(why), "{}: {reason}", path.display());
        }
    }

    #[test]
    fn an_unreadable_prompt_file_is_named() {
        let spec = JudgeSpec {
            prompt_file: Some("/no/such/judge.j2".into()),
            score_field: Some("s".into()),
            ..JudgeSpec::default()
        };
        let (key, reason) = refused("tox", &spec);
        assert_eq!(key, "judges.tox.prompt_file");
        assert!(reason.contains("/no/such/judge.j2"), "{reason}");
    }
    #[test]
    fn a_declared_judge_s_reply_is_checked_as_the_built_in_ones() {
        let judge = UserJudge {
            name: "toxicity".into(),
            template: "{% include \"judge_texts\" %}".into(),
            file: None,
            score_field: "toxicity_score".into(),
            reason_field: Some("reason".into()),
            settings: crate::AgentSettings::with_model("m"),
        };
        let schema = judge.schema();
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(schema["required"], json!(["toxicity_score", "reason"]));
        assert_eq!(
            schema["properties"]["toxicity_score"]["maximum"],
            json!(10.0)
        );
        let ok = parse_reply(&judge, &json!({"toxicity_score": 9, "reason": "clean"}));
        assert_eq!(ok.map(|(s, _)| s), Ok(9.0));
        for (bad, why) in [
            (json!({"toxicity_score": 11, "reason": "r"}), "outside 0–10"),
            (
                json!({"toxicity_score": "9", "reason": "r"}),
                "is not a number",
            ),
            (json!({"reason": "r"}), "missing field `toxicity_score`"),
            (json!({"toxicity_score": 9}), "missing field `reason`"),
            (
                json!({"toxicity_score": 9, "reason": 3}),
                "`reason` is not a text",
            ),
            (json!([9]), "not a JSON object"),
        ] {
            let err = parse_reply(&judge, &bad).expect_err(why);
            assert!(err.to_string().contains(why), "{bad}: {err}");
            assert!(err.to_string().starts_with("toxicity "), "{err}");
        }
    }
}
