//! Loading a suite: parse with `scenarios::parse_document` (so serde errors, including the
//! expectation validation inside `Deserialize`, come out as `file:line:col`), then check what
//! serde cannot see (duplicate ids, steps without expectations, scripts that do not fit) and
//! report those at their key via a `SourceMap`. Templates are expanded here, once, through
//! `scenarios::ScenarioSpace`, so a template that fails to render fails the load.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use minijinja::{Environment, UndefinedBehavior};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

use scenarios::{Axis, ConfigError, KeySeg, ScenarioSpace, SourceMap};
use scoring::expect::{CheckDefaults, Expect, Expectations, FunctionSchemas, PathStep, TurnSel};

use super::{Category, Defaults, Suite, SuiteScenario};
use crate::bot::{BotSpec, Script};

/// The top-level keys of a suite, as [`SuiteFile`] reads them (the schema is built from these
/// lists; a test holds each to its reader).
pub(super) const SUITE_KEYS: [&str; 5] = ["name", "description", "bot", "defaults", "scenarios"];
/// The keys of a scenario entry, as [`Entry`] reads them.
pub(super) const ENTRY_KEYS: [&str; 10] = [
    "id",
    "name",
    "category",
    "tags",
    "steps",
    "expect",
    "timeout_ms",
    "script",
    "template",
    "grid",
];
/// The keys of a template: a scenario's, less `template` and `grid` (templates do not nest).
pub(super) const TEMPLATE_KEYS: [&str; 8] = [
    "id",
    "name",
    "category",
    "tags",
    "steps",
    "expect",
    "timeout_ms",
    "script",
];
/// The keys of a step written as a mapping.
pub(super) const STEP_KEYS: [&str; 2] = ["say", "expect"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    bot: BotSpec,
    #[serde(default)]
    defaults: Defaults,
    scenarios: Vec<Entry>,
}

/// A scenario as written, or a template with its grid.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct Entry {
    id: Option<String>,
    name: Option<String>,
    category: Option<Category>,
    // Options, not defaults, so that a template entry can tell `tags: []` written beside it.
    tags: Option<Vec<String>>,
    steps: Option<Vec<Step>>,
    expect: Option<Expect>,
    timeout_ms: Option<u64>,
    script: Option<Script>,
    template: Option<Value>,
    grid: Option<BTreeMap<String, Vec<Value>>>,
}

impl Entry {
    /// The first key written beside `template`/`grid`, which a template entry may not have.
    fn beside_template(&self) -> Option<&'static str> {
        [
            ("id", self.id.is_some()),
            ("name", self.name.is_some()),
            ("category", self.category.is_some()),
            ("tags", self.tags.is_some()),
            ("steps", self.steps.is_some()),
            ("expect", self.expect.is_some()),
            ("timeout_ms", self.timeout_ms.is_some()),
            ("script", self.script.is_some()),
        ]
        .into_iter()
        .find_map(|(key, written)| written.then_some(key))
    }
}

/// A user turn: a string, or `{say: ..., expect: {...}}`.
struct Step {
    say: String,
    expect: Option<Expect>,
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StepVisitor;
        impl<'de> Visitor<'de> for StepVisitor {
            type Value = Step;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a user message, or {say: <message>, expect: {...}}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Step, E> {
                Ok(Step {
                    say: v.to_owned(),
                    expect: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Step, A::Error> {
                let (mut say, mut expect) = (None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "say" => say = Some(map.next_value::<String>()?),
                        "expect" => expect = Some(map.next_value::<Expect>()?),
                        other => {
                            return Err(de::Error::unknown_field(other, &STEP_KEYS));
                        }
                    }
                }
                let say = say.ok_or_else(|| de::Error::missing_field("say"))?;
                Ok(Step { say, expect })
            }
        }
        deserializer.deserialize_any(StepVisitor)
    }
}

/// Reads and loads the suite at `path`.
///
/// # Errors
/// A located [`ConfigError`] for unreadable files, syntax and type errors, invalid expectations,
/// and semantic problems (duplicate ids, missing fields, templates that do not render).
pub fn load_suite(path: &Path) -> Result<Suite, ConfigError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ConfigError::whole_file(path, format!("cannot read the suite: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        // Point at the first byte that is not UTF-8, not at the whole file.
        let bytes = e.as_bytes();
        let valid = e.utf8_error().valid_up_to();
        let before = &bytes[..valid];
        let line = 1 + before.iter().filter(|b| **b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        let column = 1 + String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count();
        ConfigError::new(
            path,
            line,
            column,
            format!(
                "the suite is not UTF-8 text: byte 0x{:02X} is not valid here; save it as UTF-8",
                bytes[valid]
            ),
        )
    })?;
    parse_suite(path, &text)
}

/// Loads a suite from its text (`path` names it in errors and anchors side files).
///
/// # Errors
/// As [`load_suite`].
pub fn parse_suite(path: &Path, text: &str) -> Result<Suite, ConfigError> {
    let file: SuiteFile = scenarios::parse_document(path, text)?;
    inexact_numbers(path, text)?;
    let here = |segs: &[KeySeg], msg: String| SourceMap::build(path, text).error(segs, msg);
    let defaults = file.defaults;
    defaults_in_range(&defaults).map_err(|(segs, msg, hint)| here(&segs, msg).with_hint(hint))?;
    let check_defaults = CheckDefaults {
        weights: defaults.weights.clone(),
        critical: defaults.critical.iter().copied().collect(),
    };
    let side_scripts = load_side_scripts(path, text, &file.bot)?;
    let functions = function_schemas(&file.bot).map_err(|(segs, msg)| here(&segs, msg))?;

    let mut scenarios: Vec<SuiteScenario> = Vec::new();
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, entry) in file.scenarios.into_iter().enumerate() {
        let at = |key: &str| {
            vec![
                KeySeg::from("scenarios"),
                KeySeg::from(i),
                KeySeg::from(key),
            ]
        };
        let from_template = entry.template.is_some();
        let room = MAX_SCENARIOS.saturating_sub(scenarios.len());
        let expanded = expand_entry(entry, room, &at).map_err(|(segs, msg, hint)| {
            let err = here(&segs, msg);
            match hint {
                Some(hint) => err.with_hint(hint),
                None => err,
            }
        })?;
        for (entry, params) in expanded {
            let context = Context {
                defaults: &defaults,
                check_defaults: &check_defaults,
                side_scripts: &side_scripts,
                functions: functions.as_ref(),
            };
            let scenario = build_scenario(entry, params, &context).map_err(|problem| {
                let mut segs = vec![KeySeg::from("scenarios"), KeySeg::from(i)];
                if from_template {
                    segs.push(KeySeg::from("template"));
                }
                segs.extend(problem.path);
                let err = here(&segs, problem.message);
                match problem.hint {
                    Some(hint) => err.with_hint(hint),
                    None => err,
                }
            })?;
            if let Some((message, hint)) = id_unfit(&scenario.id) {
                return Err(here(&at("id"), message).with_hint(hint));
            }
            if !ids.insert(scenario.id.clone()) {
                return Err(here(
                    &at("id"),
                    format!("duplicate scenario id `{}`", scenario.id),
                ));
            }
            scenarios.push(scenario);
        }
    }
    if scenarios.is_empty() {
        return Err(here(
            &[KeySeg::from("scenarios")],
            "the suite has no scenarios".to_owned(),
        ));
    }
    let name = file.name.unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(|| "suite".to_owned(), |s| s.to_string_lossy().into_owned())
    });
    tracing::debug!(suite = %name, scenarios = scenarios.len(), "suite loaded");
    Ok(Suite {
        name,
        description: file.description,
        path: path.to_path_buf(),
        bot: file.bot,
        defaults,
        scenarios,
    })
}

/// Why a scenario id cannot name a row of the reports, if it cannot: a line break or another
/// control character would split the terminal table and the JUnit file's lines, so a crafted id
/// could print a row of its own ("s1\n[PASS] fake", review 25i).
fn id_unfit(id: &str) -> Option<(String, &'static str)> {
    // Invisible and direction characters too: "s\u{200B}1" printed as a second row "s1", and
    // "a\u{202E}b" reversed the rest of the line (review 25j).
    let invisible = |c: char| {
        matches!(
            c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}'
        )
    };
    let bad = id.chars().find(|&c| c.is_control() || invisible(c))?;
    Some((
        format!(
            "scenario id `{}` holds a control or invisible character (U+{:04X})",
            id.escape_debug(),
            u32::from(bad)
        ),
        "an id names one row of the report: write it on one line, with visible characters only",
    ))
}

/// The ranges of `defaults` that its types do not hold (as the schema states them): the key, the
/// message and a hint for the first value out of range.
fn defaults_in_range(defaults: &Defaults) -> Result<(), (Vec<KeySeg>, String, &'static str)> {
    if defaults.threshold > 100 {
        return Err((
            vec![KeySeg::from("defaults"), KeySeg::from("threshold")],
            format!(
                "`defaults.threshold` is a passing score from 0 to 100, got {}",
                defaults.threshold
            ),
            "a score is a percentage of the checks' weight: e.g. `threshold: 70`",
        ));
    }
    Ok(())
}

/// The parameter schemas of the functions `bot.agents` declares, compiled once (`None` when it
/// declares none); a schema that does not compile is an error at its key.
fn function_schemas(bot: &BotSpec) -> Result<Option<FunctionSchemas>, (Vec<KeySeg>, String)> {
    let declared: Vec<(usize, usize, String, String, Value)> = bot
        .agents
        .iter()
        .enumerate()
        .flat_map(|(i, agent)| {
            agent.functions.iter().enumerate().map(move |(j, f)| {
                (
                    i,
                    j,
                    agent.name.clone(),
                    f.name.clone(),
                    f.parameters.clone(),
                )
            })
        })
        .collect();
    if declared.is_empty() {
        return Ok(None);
    }
    let at: Vec<(usize, usize)> = declared.iter().map(|d| (d.0, d.1)).collect();
    FunctionSchemas::compile(declared.into_iter().map(|(_, _, a, f, s)| (a, f, s)))
        .map(Some)
        .map_err(|(k, msg)| {
            let (i, j) = at.get(k).copied().unwrap_or_default();
            let segs = ["bot", "agents"]
                .into_iter()
                .map(KeySeg::from)
                .chain([KeySeg::from(i), KeySeg::from("functions"), KeySeg::from(j)])
                .chain([KeySeg::from("parameters")])
                .collect();
            (segs, msg)
        })
}

/// What every scenario of a suite is built with.
struct Context<'a> {
    defaults: &'a Defaults,
    check_defaults: &'a CheckDefaults,
    side_scripts: &'a BTreeMap<String, Script>,
    functions: Option<&'a FunctionSchemas>,
}

/// The scripts of `bot.scripts_file`: a file that cannot be opened is named at that key of the
/// suite (`path`, `text`), a mistake inside it where it is in that file.
fn load_side_scripts(
    path: &Path,
    text: &str,
    bot: &BotSpec,
) -> Result<BTreeMap<String, Script>, ConfigError> {
    let Some(file) = &bot.scripts_file else {
        return Ok(BTreeMap::new());
    };
    let side = super::suite_folder(path).join(file);
    if let Err(e) = std::fs::File::open(&side) {
        let at = [KeySeg::from("bot"), KeySeg::from("scripts_file")];
        let message = format!("cannot read the scripts file {}: {e}", side.display());
        return Err(SourceMap::build(path, text)
            .error(&at, message)
            .with_hint("`scripts_file` is a path from the suite's folder"));
    }
    scenarios::read_document(&side)
}

/// What is wrong with one scenario entry, at a key path relative to the entry.
struct EntryProblem {
    path: Vec<KeySeg>,
    message: String,
    hint: Option<String>,
}

impl From<(&'static str, String)> for EntryProblem {
    fn from((key, message): (&'static str, String)) -> Self {
        Self {
            path: vec![KeySeg::from(key)],
            message,
            hint: None,
        }
    }
}

fn build_scenario(
    entry: Entry,
    params: BTreeMap<String, Value>,
    context: &Context<'_>,
) -> Result<SuiteScenario, EntryProblem> {
    let Context {
        defaults,
        check_defaults,
        side_scripts,
        functions,
    } = context;
    let id = entry
        .id
        .filter(|s| !s.trim().is_empty())
        .ok_or(("id", "a scenario needs an `id`".to_owned()))?;
    let category = entry.category.ok_or((
        "category",
        format!(
            "scenario `{id}` needs a `category`: one of {}, or a name of your own",
            Category::KNOWN.join(", ")
        ),
    ))?;
    let entry_steps = entry.steps.unwrap_or_default();
    if entry_steps.is_empty() {
        return Err(("steps", format!("scenario `{id}` needs at least one step")).into());
    }
    // Where each part of the combined tree was written, for located problems.
    let mut prefixes: Vec<Vec<KeySeg>> = Vec::new();
    let mut parts: Vec<Expect> = Vec::new();
    if let Some(exp) = entry.expect {
        parts.push(exp);
        prefixes.push(vec![KeySeg::from("expect")]);
    }
    let mut steps = Vec::with_capacity(entry_steps.len());
    for (n, step) in entry_steps.into_iter().enumerate() {
        if let Some(exp) = step.expect {
            let own = TurnSel::Index(n + 1);
            if let Some(other) = exp.turn_other_than(own) {
                return Err(EntryProblem {
                    path: vec![
                        KeySeg::from("steps"),
                        KeySeg::from(n),
                        KeySeg::from("expect"),
                    ],
                    message: format!(
                        "step {}'s own `expect` names `turn` ({other}): a step's own `expect` \
                         always looks at that step's turn",
                        n + 1
                    ),
                    hint: Some(
                        "drop `turn` here, or move the check to the scenario's `expect` to look \
                         at another turn"
                            .into(),
                    ),
                });
            }
            parts.push(exp.at_turn(own));
            prefixes.push(vec![
                KeySeg::from("steps"),
                KeySeg::from(n),
                KeySeg::from("expect"),
            ]);
        }
        steps.push(step.say);
    }
    if parts.is_empty() {
        return Err(("expect", format!("scenario `{id}` declares no expectation")).into());
    }
    let combined = parts.len() > 1;
    let root = if combined {
        Expect::All(parts)
    } else {
        parts.remove(0)
    };
    let expectations = Expectations {
        root,
        defaults: (*check_defaults).clone(),
        steps: Some(steps.len()),
        separate_parts: combined,
        functions: functions.cloned(),
    };
    if !weighs_something(&expectations.root, &expectations.defaults) {
        return Err((
            "expect",
            format!(
                "scenario `{id}`: every check has weight 0, so its score is 0 whatever the bot \
                 does; give a check a weight above 0"
            ),
        )
            .into());
    }
    if let Some(problem) = expectations.problems().into_iter().next() {
        let mut tree_path = problem.path.into_iter();
        let prefix = if combined {
            // The synthesized `all` over the parts: its index says which part.
            let _all = tree_path.next();
            match tree_path.next() {
                Some(PathStep::Index(p)) => prefixes.get(p).cloned().unwrap_or_default(),
                _ => Vec::new(),
            }
        } else {
            prefixes.first().cloned().unwrap_or_default()
        };
        let mut path = prefix;
        path.extend(tree_path.map(|step| match step {
            PathStep::Key(k) => KeySeg::from(k),
            PathStep::Index(i) => KeySeg::from(i),
        }));
        return Err(EntryProblem {
            path,
            message: format!("scenario `{id}`: {}", problem.message),
            hint: problem.hint,
        });
    }
    let script = entry.script.or_else(|| side_scripts.get(&id).cloned());
    if let Some(script) = &script
        && script.turns.len() != steps.len()
    {
        return Err((
            "script",
            format!(
                "scenario `{id}`: the script has {} turns for {} steps",
                script.turns.len(),
                steps.len()
            ),
        )
            .into());
    }
    Ok(SuiteScenario {
        name: entry.name.unwrap_or_else(|| id.clone()),
        id,
        category,
        tags: entry.tags.unwrap_or_default(),
        steps,
        expectations,
        turn_timeout: Duration::from_millis(entry.timeout_ms.unwrap_or(defaults.turn_timeout_ms)),
        script,
        params,
    })
}

/// The grid values one expanded scenario was built with.
type GridPoint = BTreeMap<String, Value>;

/// Where and why an entry failed to expand: the key path, the message and a hint.
type EntryError = (Vec<KeySeg>, String, Option<String>);

/// An entry as the scenarios it stands for: itself, or its template's grid points (at most
/// `room` of them). `at` gives the path of one of the entry's keys.
fn expand_entry(
    entry: Entry,
    room: usize,
    at: &dyn Fn(&str) -> Vec<KeySeg>,
) -> Result<Vec<(Entry, GridPoint)>, EntryError> {
    match (entry.template.clone(), entry.grid.clone()) {
        (Some(template), Some(grid)) => {
            if let Some(key) = entry.beside_template() {
                return Err((
                    at(key),
                    format!(
                        "`{key}` beside `template`: a template entry has only `template` and `grid`; move `{key}` into the template"
                    ),
                    None,
                ));
            }
            expand_template(&template, &grid, room).map_err(|(k, m)| match k {
                Some(k) if k == GRID_TOO_LARGE => (
                    at("grid"),
                    m,
                    Some(
                        "split the suite into several files, or give the grid fewer values"
                            .to_owned(),
                    ),
                ),
                k => (
                    [at("template"), k.into_iter().map(KeySeg::from).collect()].concat(),
                    m,
                    None,
                ),
            })
        }
        (Some(_), None) => Err((
            at("template"),
            "a `template` needs a `grid` of values".to_owned(),
            None,
        )),
        (None, Some(_)) => Err((at("grid"), "a `grid` needs a `template`".to_owned(), None)),
        (None, None) => Ok(vec![(entry, BTreeMap::new())]),
    }
}

/// Why a template failed: the template's key it is about (where one is), and the message.
type TemplateError = (Option<String>, String);

/// The most scenarios a suite holds, its templates' grid points included: about what the
/// reader's limit of 2,000,000 values allows written out (review 25i: a 7-line file whose grid
/// of seven 10-value axes made 10,000,000 scenarios ran for minutes and took 17 GB before this).
const MAX_SCENARIOS: usize = 300_000;

/// The key a [`TemplateError`] names when the grid is over [`MAX_SCENARIOS`].
const GRID_TOO_LARGE: &str = "\u{0}grid";

/// Expands a template over its grid (via `ScenarioSpace`), rendering every string with the grid
/// point's values and reading the result as a scenario entry. An error names the template's key
/// it is about, where one key alone fails to read.
fn expand_template(
    template: &Value,
    grid: &BTreeMap<String, Vec<Value>>,
    room: usize,
) -> Result<Vec<(Entry, GridPoint)>, TemplateError> {
    let axes = grid
        .iter()
        .map(|(name, values)| Axis::new(name.clone(), values.clone()))
        .collect();
    let space = ScenarioSpace::new(axes, BTreeMap::new(), Vec::new())
        .map_err(|e| (None, format!("grid: {e}")))?;
    if usize::try_from(space.count()).map_or(true, |n| n > room) {
        let sizes: Vec<String> = grid.values().map(|v| v.len().to_string()).collect();
        let before = match MAX_SCENARIOS - room {
            0 => String::new(),
            n => format!(" with the {n} scenarios before it"),
        };
        return Err((
            Some(GRID_TOO_LARGE.to_owned()),
            format!(
                "the grid makes {} scenarios ({}){before}, over the {MAX_SCENARIOS} a suite holds",
                space.count(),
                sizes.join(" × "),
            ),
        ));
    }
    let template_id = template
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| (None, "a template needs an `id`".to_owned()))?
        .to_owned();
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let mut out = Vec::new();
    for point in space.iter() {
        let mut rendered = render_value(&env, template, &point.params)
            .map_err(|e| (None, format!("template `{template_id}`: {e}")))?;
        if let Value::Object(map) = &mut rendered {
            map.insert(
                "id".to_owned(),
                Value::String(format!("{template_id}-{}", point.id)),
            );
        }
        let entry: Entry = serde_json::from_value(rendered.clone()).map_err(|e| {
            (
                failing_key(&rendered),
                format!(
                    "template `{template_id}` with {}: {e}",
                    Value::Object(point.params.clone().into_iter().collect())
                ),
            )
        })?;
        if entry.template.is_some() || entry.grid.is_some() {
            return Err((
                None,
                format!("template `{template_id}` may not nest templates"),
            ));
        }
        out.push((entry, point.params));
    }
    Ok(out)
}

/// The first key of a rendered template that fails to read on its own (every key of an entry is
/// optional), so that an error can point at it.
fn failing_key(rendered: &Value) -> Option<String> {
    let map = rendered.as_object()?;
    map.iter()
        .find(|(k, v)| {
            let alone = Value::Object([((*k).clone(), (*v).clone())].into_iter().collect());
            serde_json::from_value::<Entry>(alone).is_err()
        })
        .map(|(k, _)| k.clone())
}

fn render_value(
    env: &Environment<'_>,
    value: &Value,
    params: &BTreeMap<String, Value>,
) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => {
            // A string that is exactly `{{ name }}` takes the value itself, keeping its type.
            let trimmed = s.trim();
            if let Some(inner) = trimmed
                .strip_prefix("{{")
                .and_then(|r| r.strip_suffix("}}"))
            {
                let name = inner.trim();
                if let Some(v) = params.get(name) {
                    return Ok(v.clone());
                }
            }
            if s.contains("{{") || s.contains("{%") {
                Value::String(
                    env.render_str(s, minijinja::Value::from(minijinja::value::Serde(params)))
                        .map_err(|e| e.to_string())?,
                )
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| render_value(env, v, params))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), render_value(env, v, params)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

/// Whether some check of the tree has a weight above 0 (a scenario weighing nothing has no score).
fn weighs_something(node: &Expect, defaults: &CheckDefaults) -> bool {
    match node {
        Expect::All(items) | Expect::Any(items) => {
            items.iter().any(|n| weighs_something(n, defaults))
        }
        Expect::Not(inner) => weighs_something(inner, defaults),
        Expect::Checks(set) => set.checks.iter().any(|spec| {
            let kind = spec.kind();
            set.weight
                .or_else(|| defaults.weights.get(&kind).copied())
                .unwrap_or_else(|| kind.default_weight())
                > 0
        }),
    }
}

/// Most significant digits a plain (unquoted) number may have: an `f64` keeps 15 exactly, and a
/// longer literal would silently become a nearby value (`0.1000000000000000055511151231257827`
/// is read as 0.1).
const MAX_PLAIN_DIGITS: usize = 15;

/// Refuses a plain number the reader turned into a float when its **source text** has more
/// significant digits than a float keeps: counting them on the parsed value would see the
/// rounded number's short form. The error is at the number, with the fix (quote it).
fn inexact_numbers(path: &Path, text: &str) -> Result<(), ConfigError> {
    // TOML keeps its own number syntax.
    if !matches!(
        scenarios::Format::from_path(path),
        Ok(scenarios::Format::Yaml | scenarios::Format::Json)
    ) {
        return Ok(());
    }
    let Ok(tree) = serde_saphyr::from_str::<Spanned<Scan>>(text) else {
        // The document parsed as a suite; a reader that cannot re-read it checks nothing here.
        return Ok(());
    };
    let mut stack = vec![&tree];
    while let Some(node) = stack.pop() {
        match &node.value {
            Scan::Nodes(children) => stack.extend(children.iter().rev()),
            Scan::Other => {}
            Scan::Float => {
                let at = &node.referenced;
                let span = at.span();
                let literal = span
                    .byte_offset()
                    .zip(span.byte_len())
                    .and_then(|(start, len)| {
                        let start = usize::try_from(start).ok()?;
                        text.get(start..start.checked_add(usize::try_from(len).ok()?)?)
                    });
                let Some(literal) = literal else { continue };
                if significant_digits(literal) > MAX_PLAIN_DIGITS {
                    let line = usize::try_from(at.line()).unwrap_or(usize::MAX);
                    let column = usize::try_from(at.column()).unwrap_or(usize::MAX);
                    return Err(ConfigError::new(
                        path,
                        line,
                        column,
                        format!(
                            "the number {} has more than {MAX_PLAIN_DIGITS} significant digits, \
                             more than a YAML or JSON reader keeps exactly; quote it: as text \
                             (`\"N\"`), or as an exact decimal with a numeric operator \
                             (`{{lte: \"N\"}}`)",
                            literal.trim()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Significant digits of a number's text: the mantissa's digits without leading zeros, and
/// without trailing zeros after a decimal point.
fn significant_digits(literal: &str) -> usize {
    let mantissa = literal.trim().split(['e', 'E']).next().unwrap_or_default();
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if mantissa.contains('.') {
        digits.truncate(digits.trim_end_matches('0').len());
    }
    digits.trim_start_matches('0').len()
}

/// The shape of a document, keeping only where its plain floats are.
enum Scan {
    Nodes(Vec<Spanned<Scan>>),
    Float,
    Other,
}

impl<'de> Deserialize<'de> for Scan {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScanVisitor;
        impl<'de> Visitor<'de> for ScanVisitor {
            type Value = Scan;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Scan, E> {
                Ok(Scan::Float)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_i128<E: de::Error>(self, _: i128) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_u128<E: de::Error>(self, _: u128) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Scan, E> {
                Ok(Scan::Other)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scan, D::Error> {
                Scan::deserialize(d)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scan, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(Scan::Nodes(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scan, A::Error> {
                let mut out = Vec::new();
                while let Some((_, value)) = map.next_entry::<de::IgnoredAny, Spanned<Scan>>()? {
                    out.push(value);
                }
                Ok(Scan::Nodes(out))
            }
        }
        deserializer.deserialize_any(ScanVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    /// The keys a reader names when it refuses an unknown one.
    fn keys_named<T: for<'de> Deserialize<'de>>() -> Vec<String> {
        stdx::keys_refusing_others::<T>().expect("an unknown key is refused")
    }

    /// The key lists the schema is built from are the readers' own, both ways.
    #[test]
    fn the_schema_key_lists_are_the_readers() {
        assert_eq!(keys_named::<SuiteFile>(), SUITE_KEYS);
        assert_eq!(keys_named::<Entry>(), ENTRY_KEYS);
        assert_eq!(
            ENTRY_KEYS
                .iter()
                .filter(|k| !["template", "grid"].contains(k))
                .collect::<Vec<_>>(),
            TEMPLATE_KEYS.iter().collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_passing_score_above_100_is_refused_where_it_is_written() {
        let text = "defaults:\n  threshold: 101\nscenarios:\n  - {id: a, category: custom, steps: [hi], expect: {shouldContain: x}}\n";
        let err = parse_suite(Path::new("s.yaml"), text).expect_err("101 is no score");
        let shown = err.to_string();
        assert!(shown.contains("s.yaml:2:"), "{shown}");
        assert!(shown.contains("0 to 100"), "{shown}");
        let ok = text.replace("101", "100");
        assert!(parse_suite(Path::new("s.yaml"), &ok).is_ok());
    }

    #[test]
    fn a_template_error_points_at_the_template_s_key() {
        let text = "scenarios:\n  - template:\n      id: t\n      category: custom\n      steps: [hi]\n      expect: {expectedCall: [{function: f}]}\n    grid: {a: [1]}\n";
        let err = parse_suite(Path::new("s.yaml"), text).expect_err("a check typo");
        let shown = err.to_string();
        assert!(shown.starts_with("s.yaml:6:7:"), "{shown}");
        assert!(shown.contains("expectedCalls"), "{shown}");
    }

    #[test]
    fn nothing_may_stand_beside_a_template() {
        for extra in ["category: custom", "tags: []", "name: x", "timeout_ms: 5"] {
            let text = format!(
                "scenarios:\n  - {extra}\n    template: {{id: t, category: custom, steps: [hi], expect: {{shouldContain: x}}}}\n    grid: {{a: [1]}}\n"
            );
            let err = parse_suite(Path::new("s.yaml"), &text).expect_err(extra);
            assert!(
                err.to_string().contains("beside `template`"),
                "{extra}: {err}"
            );
        }
    }

    /// Review 25i: a 7-line file whose grid makes 10,000,000 scenarios ran for minutes and took
    /// 17 GB; it is an error at the grid, before anything is expanded.
    #[test]
    fn a_grid_over_the_suite_limit_is_an_error_at_the_grid() {
        let axis = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";
        let text = format!(
            "scenarios:\n  - template: {{id: \"t-{{{{ a }}}}{{{{ b }}}}{{{{ c }}}}{{{{ d }}}}{{{{ e }}}}{{{{ f }}}}{{{{ g }}}}\", category: custom, steps: [x], expect: {{shouldContain: [x]}}}}\n    grid: {{a: {axis}, b: {axis}, c: {axis}, d: {axis}, e: {axis}, f: {axis}, g: {axis}}}\n"
        );
        let Err(err) = parse_suite(Path::new("s.yaml"), &text) else {
            panic!("a grid of 10,000,000 loaded");
        };
        let shown = err.to_string();
        assert!(shown.starts_with("s.yaml:3:"), "{shown}");
        assert!(
            shown.contains("10000000 scenarios (10 × 10 × 10 × 10 × 10 × 10 × 10)"),
            "{shown}"
        );
        assert!(shown.contains("hint: split the suite"), "{shown}");
        // The scenarios written before a grid count too.
        let text = format!(
            "scenarios:\n  - {{id: s, category: custom, steps: [x], expect: {{shouldContain: [x]}}}}\n  - template: {{id: \"t-{{{{ a }}}}{{{{ b }}}}{{{{ c }}}}{{{{ d }}}}{{{{ e }}}}{{{{ f }}}}\", category: custom, steps: [x], expect: {{shouldContain: [x]}}}}\n    grid: {{a: {axis}, b: {axis}, c: {axis}, d: {axis}, e: {axis}, f: {axis}}}\n"
        );
        let Err(err) = parse_suite(Path::new("s.yaml"), &text) else {
            panic!("a grid of 1,000,000 after one scenario loaded");
        };
        assert!(
            err.to_string().contains("with the 1 scenarios before it"),
            "{err}"
        );
    }
}
