//! Scenario configs: the native format (YAML, TOML or JSON) and the public SwitchLingua format,
//! both loaded into one [`ScenarioConfig`]. The full reference is `docs/config.md`.
//!
//! Loading happens in two steps: serde deserialises the file into plain structs (syntax, type
//! and unknown-key errors come out located from the parser), then the structs become a
//! [`ScenarioSpace`] and a [`Selection`]; errors found there (empty axis, duplicate value,
//! exclude naming an unknown axis or value, zero sample) are located afterwards with a
//! [`SourceMap`] of the same text. The `run:` section is returned untouched for the CLI to layer.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::document::{Format, parse_document, read_text};
use crate::error::ConfigError;
use crate::selection::Selection;
use crate::source_map::{KeySeg, SourceMap};
use crate::space::{Axis, ExcludeRule, ScenarioSpace, SpaceError};

/// The name of the merge axis built from `language_pairs:`.
pub const LANGUAGE_PAIR_AXIS: &str = "language_pair";

/// Which format a config was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKind {
    /// Our own format (see `docs/config.md`).
    Native,
    /// The public SwitchLingua config (top-level `pre_execute`).
    SwitchLingua,
}

/// A loaded config: the space, what to select from it, and the uninterpreted run settings.
#[derive(Debug, Clone)]
pub struct ScenarioConfig {
    /// `name:` of the config, if any.
    pub name: Option<String>,
    /// `description:` of the config, if any.
    pub description: Option<String>,
    /// The scenario space.
    pub space: ScenarioSpace,
    /// `sample`/`seed`/`limit` from the file (the CLI may override them and add a shard).
    pub selection: Selection,
    /// The `run:` section as written, for the CLI to layer with defaults, env and flags.
    pub run: Option<Value>,
    /// The file it came from.
    pub source: PathBuf,
    /// The file's format.
    pub format: Format,
    /// Native or SwitchLingua.
    pub kind: ConfigKind,
    /// Keys kept but not interpreted (SwitchLingua's `output_format` and `on_execute`).
    pub metadata: BTreeMap<String, Value>,
}

/// Reads and loads a config, detecting YAML/TOML/JSON by extension and SwitchLingua by its
/// top-level `pre_execute` key.
///
/// # Errors
/// A located [`ConfigError`] for anything wrong in the file, or for I/O failures.
pub fn load_config(path: &Path) -> Result<ScenarioConfig, ConfigError> {
    let text = read_text(path)?;
    parse_config(path, &text)
}

/// Loads a config from text already in memory (`path` gives the format and names the errors),
/// e.g. a config embedded in a binary.
///
/// # Errors
/// As [`load_config`].
pub fn parse_config(path: &Path, text: &str) -> Result<ScenarioConfig, ConfigError> {
    let format = Format::from_path(path)?;
    // A cheap first look at the top-level keys decides the format; when it fails (a syntax
    // error), the typed parse below reports it with its location.
    let top = parse_document::<Option<BTreeMap<String, IgnoredAny>>>(path, text);
    if matches!(&top, Ok(None)) || matches!(&top, Ok(Some(keys)) if keys.is_empty()) {
        // Serde would fill every default and run one scenario with no parameters.
        return Err(
            ConfigError::new(path, 1, 1, "the config is empty").with_hint(
                "a config needs at least one axis (`axes:`), `language_pairs:`, `fixed:` \
             parameters or a SwitchLingua `pre_execute:` section; see docs/config.md",
            ),
        );
    }
    let is_switchlingua = matches!(&top, Ok(Some(keys)) if keys.contains_key("pre_execute"));
    let config = if is_switchlingua {
        let file: SwitchLinguaFile = parse_document(path, text)?;
        file.into_config(path, text, format)?
    } else {
        let file: NativeFile = parse_document(path, text)?;
        file.into_config(path, text, format)?
    };
    tracing::info!(
        file = %path.display(),
        kind = ?config.kind,
        total = config.space.len_unfiltered(),
        count = config.space.count(),
        "config loaded"
    );
    Ok(config)
}

// ---------------------------------------------------------------------------------------------
// Native format

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct NativeFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    language_pairs: Option<Vec<LanguagePair>>,
    #[serde(default)]
    axes: OrderedMap<AxisSpec>,
    #[serde(default)]
    fixed: BTreeMap<String, Value>,
    #[serde(default)]
    exclude: Vec<OrderedMap<OneOrMany>>,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    sample: Option<u64>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    limit: Option<u64>,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = MAX_SAMPLES_PER_SCENARIO)))]
    samples_per_scenario: Option<u64>,
    #[serde(default)]
    run: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct LanguagePair {
    first_language: String,
    second_language: String,
}

/// Where an axis came from in a native file, to point errors at it.
enum NativeOrigin {
    LanguagePairs,
    Axes { name: String, shorthand: bool },
    Samples,
}

impl NativeOrigin {
    fn axis_path(&self) -> Vec<KeySeg> {
        match self {
            Self::LanguagePairs => vec!["language_pairs".into()],
            Self::Samples => vec!["samples_per_scenario".into()],
            Self::Axes { name, .. } => vec!["axes".into(), name.clone().into()],
        }
    }

    fn value_path(&self, index: usize) -> Vec<KeySeg> {
        let mut path = self.axis_path();
        if let Self::Axes {
            shorthand: false, ..
        } = self
        {
            path.push("values".into());
        }
        path.push(index.into());
        path
    }
}

impl NativeFile {
    fn into_config(
        self,
        path: &Path,
        text: &str,
        format: Format,
    ) -> Result<ScenarioConfig, ConfigError> {
        let mut axes = Vec::new();
        let mut origins = Vec::new();
        if let Some(pairs) = self.language_pairs {
            let values = pairs
                .into_iter()
                .map(|p| {
                    let mut object = Map::new();
                    object.insert("first_language".into(), Value::String(p.first_language));
                    object.insert("second_language".into(), Value::String(p.second_language));
                    Value::Object(object)
                })
                .collect();
            axes.push(Axis::merged(LANGUAGE_PAIR_AXIS, values));
            origins.push(NativeOrigin::LanguagePairs);
        }
        for (name, spec) in self.axes.0 {
            origins.push(NativeOrigin::Axes {
                name: name.clone(),
                shorthand: spec.shorthand,
            });
            axes.push(Axis {
                name,
                values: spec.values,
                merge: spec.merge,
            });
        }
        if axes.is_empty() && self.fixed.is_empty() {
            // Serde filled every default: the file would run one scenario with no parameters.
            let map = SourceMap::build(path, text);
            // At `axes:` when the file has one (empty), else at the root.
            return Err(map
                .error(
                    &["axes".into()],
                    "the config defines no scenario parameters",
                )
                .with_hint(
                    "a config needs at least one axis (`axes:` with values), `language_pairs:`, \
                     `fixed:` parameters or a SwitchLingua `pre_execute:` section; see \
                     docs/config.md",
                ));
        }
        if let Some(axis) = samples_axis(
            self.samples_per_scenario,
            path,
            text,
            &["samples_per_scenario"],
        )? {
            origins.push(NativeOrigin::Samples);
            axes.push(axis);
        }
        let single: Vec<Vec<(String, bool)>> = self
            .exclude
            .iter()
            .map(|rule| rule.0.iter().map(|(k, v)| (k.clone(), v.single)).collect())
            .collect();
        let excludes = self
            .exclude
            .into_iter()
            .map(|rule| ExcludeRule(rule.0.into_iter().map(|(k, v)| (k, v.values)).collect()))
            .collect();

        let space = ScenarioSpace::new(axes, self.fixed, excludes).map_err(|err| {
            let map = SourceMap::build(path, text);
            let located = match &err {
                SpaceError::EmptyAxis { axis, .. } | SpaceError::DuplicateAxis { axis, .. } => {
                    map.error(&origins[*axis].axis_path(), err.to_string())
                }
                SpaceError::DuplicateValue { axis, index, .. }
                | SpaceError::NotAnObject { axis, index, .. } => {
                    map.error(&origins[*axis].value_path(*index), err.to_string())
                }
                SpaceError::ParamCollision {
                    param, axis, first, ..
                } if first.starts_with("fixed") => {
                    let _ = axis;
                    map.error(&["fixed".into(), param.clone().into()], err.to_string())
                }
                SpaceError::ParamCollision { axis, .. } => {
                    map.error(&origins[*axis].axis_path(), err.to_string())
                }
                SpaceError::EmptyExcludeRule { rule } => {
                    map.error(&["exclude".into(), (*rule).into()], err.to_string())
                }
                SpaceError::UnknownExcludeKey { rule, key, .. }
                | SpaceError::EmptyExcludeValues { rule, key } => map.error(
                    &["exclude".into(), (*rule).into(), key.clone().into()],
                    err.to_string(),
                ),
                SpaceError::UnknownExcludeValue {
                    rule,
                    key,
                    position,
                    ..
                } => {
                    let mut p: Vec<KeySeg> =
                        vec!["exclude".into(), (*rule).into(), key.clone().into()];
                    let is_single = single
                        .get(*rule)
                        .and_then(|entries| entries.iter().find(|(k, _)| k == key))
                        .is_some_and(|(_, s)| *s);
                    if !is_single {
                        p.push((*position).into());
                    }
                    map.error(&p, err.to_string())
                }
                SpaceError::TooLarge => map.error(&["axes".into()], err.to_string()),
            };
            match err.hint() {
                Some(hint) => located.with_hint(hint),
                None => located,
            }
        })?;

        let selection = Selection {
            shard: None,
            sample: self.sample,
            seed: self.seed.unwrap_or(0),
            limit: self.limit,
        };
        if let Err(err) = selection.validate() {
            let key = if selection.sample == Some(0) {
                "sample"
            } else {
                "limit"
            };
            let pos = SourceMap::build(path, text).locate(&[key.into()]);
            return Err(err.located(path, pos.line, pos.column));
        }
        Ok(ScenarioConfig {
            name: self.name,
            description: self.description,
            space,
            selection,
            run: self.run,
            source: path.to_path_buf(),
            format,
            kind: ConfigKind::Native,
            metadata: BTreeMap::new(),
        })
    }
}

/// A mapping deserialised in document order (axes keep the order they are written in, which
/// is the mixed-radix order and the order plans show).
#[derive(Debug)]
struct OrderedMap<V>(Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

#[cfg(feature = "schema")]
impl<V: schemars::JsonSchema> schemars::JsonSchema for OrderedMap<V> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Map_of_{}", V::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>()
        })
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(String, V)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    // YAML and TOML reject duplicate keys themselves; JSON does not.
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format!("duplicate key `{key}`")));
                    }
                    let value = map.next_value()?;
                    entries.push((key, value));
                }
                Ok(OrderedMap(entries))
            }
        }
        d.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

/// An axis as written: a list of values (shorthand) or `{values: [...], merge: bool}`.
#[derive(Debug)]
struct AxisSpec {
    values: Vec<Value>,
    merge: bool,
    shorthand: bool,
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for AxisSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AxisSpec".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // As the visitor below: a list, or `{values, merge}` and nothing else.
        schemars::json_schema!({
            "anyOf": [
                {"type": "array"},
                {
                    "type": "object",
                    "properties": {"values": {"type": "array"}, "merge": {"type": "boolean"}},
                    "required": ["values"],
                    "additionalProperties": false
                }
            ]
        })
    }
}

impl<'de> Deserialize<'de> for AxisSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct AxisVisitor;
        impl<'de> Visitor<'de> for AxisVisitor {
            type Value = AxisSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of values, or a mapping with `values` (and optionally `merge`)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AxisSpec, A::Error> {
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<Value>()? {
                    values.push(v);
                }
                Ok(AxisSpec {
                    values,
                    merge: false,
                    shorthand: true,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AxisSpec, A::Error> {
                const FIELDS: &[&str] = &["values", "merge"];
                let (mut values, mut merge) = (None, false);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "values" => values = Some(map.next_value::<Vec<Value>>()?),
                        "merge" => merge = map.next_value::<bool>()?,
                        other => return Err(de::Error::unknown_field(other, FIELDS)),
                    }
                }
                let values = values.ok_or_else(|| de::Error::missing_field("values"))?;
                Ok(AxisSpec {
                    values,
                    merge,
                    shorthand: false,
                })
            }
        }
        d.deserialize_any(AxisVisitor)
    }
}

/// An exclude entry: one value or a list of values (axis values are never lists, so a list
/// always means "any of these").
#[derive(Debug)]
struct OneOrMany {
    values: Vec<Value>,
    single: bool,
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for OneOrMany {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OneOrMany".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"description": "One axis value, or a list meaning any of them."})
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(values) => Self {
                values,
                single: false,
            },
            value => Self {
                values: vec![value],
                single: true,
            },
        })
    }
}

/// The most samples per scenario a config may ask for.
pub const MAX_SAMPLES_PER_SCENARIO: u64 = 1_000;

/// The hidden axis of `samples_per_scenario: N` (SwitchLingua: `on_execute.round`): a `sample`
/// parameter 0..N-1, so each sample is a scenario of its own (its own id, record, shard and cache
/// key). `None` for N = 1 (or unset), so ids stay those of a config without it.
fn samples_axis(
    n: Option<u64>,
    path: &Path,
    text: &str,
    key: &[&str],
) -> Result<Option<Axis>, ConfigError> {
    match n {
        None | Some(1) => Ok(None),
        Some(n) if (2..=MAX_SAMPLES_PER_SCENARIO).contains(&n) => Ok(Some(Axis::new(
            SAMPLE_PARAM,
            (0..n).map(Value::from).collect(),
        ))),
        Some(n) => {
            let at: Vec<KeySeg> = key.iter().map(|s| KeySeg::from(*s)).collect();
            Err(SourceMap::build(path, text)
                .error(
                    &at,
                    format!(
                        "samples per scenario must be 1 to {MAX_SAMPLES_PER_SCENARIO}, not {n}"
                    ),
                )
                .with_hint("1 runs each scenario once; 3 gives three samples of each"))
        }
    }
}

/// The parameter naming a scenario's sample (`samples_per_scenario` > 1).
pub const SAMPLE_PARAM: &str = "sample";

// ---------------------------------------------------------------------------------------------
// SwitchLingua format

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct SwitchLinguaFile {
    pre_execute: PreExecute,
    #[serde(default)]
    on_execute: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct PreExecute {
    cs_ratio: Vec<Value>,
    use_tools: Value,
    topics: Vec<Value>,
    tense: Vec<Value>,
    perspective: Vec<Value>,
    cs_function: Vec<Value>,
    cs_type: Vec<Value>,
    character_setting: CharacterSetting,
    conversation_type: Vec<Value>,
    #[serde(default)]
    output_format: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct CharacterSetting {
    nationality: LanguagePair,
    age: Vec<Value>,
    gender: Vec<Value>,
    education_level: Vec<Value>,
}

impl SwitchLinguaFile {
    fn into_config(
        self,
        path: &Path,
        text: &str,
        format: Format,
    ) -> Result<ScenarioConfig, ConfigError> {
        let p = self.pre_execute;
        let c = p.character_setting;
        // (parameter name, values, key path in the file), in the documented axis order.
        let axes: Vec<(&str, Vec<Value>, &[&str])> = vec![
            ("topic", p.topics, &["pre_execute", "topics"]),
            ("tense", p.tense, &["pre_execute", "tense"]),
            (
                "perspective",
                p.perspective,
                &["pre_execute", "perspective"],
            ),
            (
                "gender",
                c.gender,
                &["pre_execute", "character_setting", "gender"],
            ),
            ("age", c.age, &["pre_execute", "character_setting", "age"]),
            (
                "education_level",
                c.education_level,
                &["pre_execute", "character_setting", "education_level"],
            ),
            ("cs_ratio", p.cs_ratio, &["pre_execute", "cs_ratio"]),
            (
                "conversation_type",
                p.conversation_type,
                &["pre_execute", "conversation_type"],
            ),
            (
                "cs_function",
                p.cs_function,
                &["pre_execute", "cs_function"],
            ),
            ("cs_type", p.cs_type, &["pre_execute", "cs_type"]),
        ];
        let paths: Vec<Vec<KeySeg>> = axes
            .iter()
            .map(|(_, _, path)| path.iter().map(|s| KeySeg::from(*s)).collect())
            .collect();
        let fixed = BTreeMap::from([
            (
                "first_language".to_string(),
                Value::String(c.nationality.first_language),
            ),
            (
                "second_language".to_string(),
                Value::String(c.nationality.second_language),
            ),
            ("use_tools".to_string(), p.use_tools),
        ]);
        let round = self
            .on_execute
            .as_ref()
            .and_then(|v| v.get("round"))
            .map(|r| {
                r.as_u64().ok_or_else(|| {
                    SourceMap::build(path, text)
                        .error(
                            &["on_execute".into(), "round".into()],
                            format!(
                                "`round` must be a whole number of samples per scenario, not {r}"
                            ),
                        )
                        .with_hint(
                            "round: 1 runs each scenario once; round: 3 samples each three times",
                        )
                })
            })
            .transpose()?;
        let mut axes: Vec<Axis> = axes
            .into_iter()
            .map(|(name, values, _)| Axis::new(name, values))
            .collect();
        axes.extend(samples_axis(round, path, text, &["on_execute", "round"])?);
        let space = ScenarioSpace::new(axes, fixed, Vec::new()).map_err(|err| {
            let map = SourceMap::build(path, text);
            let located = match &err {
                SpaceError::EmptyAxis { axis, .. } => map.error(&paths[*axis], err.to_string()),
                SpaceError::DuplicateValue { axis, index, .. } => {
                    let mut at = paths[*axis].clone();
                    at.push((*index).into());
                    map.error(&at, err.to_string())
                }
                _ => map.error(&["pre_execute".into()], err.to_string()),
            };
            match err.hint() {
                Some(hint) => located.with_hint(hint),
                None => located,
            }
        })?;
        let mut metadata = BTreeMap::new();
        if let Some(v) = p.output_format {
            metadata.insert("output_format".to_string(), v);
        }
        if let Some(v) = self.on_execute {
            metadata.insert("on_execute".to_string(), v);
        }
        Ok(ScenarioConfig {
            name: None,
            description: None,
            space,
            selection: Selection::default(),
            run: None,
            source: path.to_path_buf(),
            format,
            kind: ConfigKind::SwitchLingua,
            metadata,
        })
    }
}

/// The JSON Schema (draft 2020-12) of a config file: the native format or SwitchLingua's,
/// generated from the structs the loader deserialises (unknown keys rejected as the loader
/// rejects them). `run` is the schema of the `run:` section, which this crate leaves
/// uninterpreted (the `agents` crate owns its settings); its `$defs` join the root's.
#[cfg(feature = "schema")]
#[must_use]
pub fn config_schema(run: &Value) -> Value {
    /// The two formats, told apart by `pre_execute` (the native format has no such key).
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)] // only its schema is used
    #[serde(untagged)]
    enum ConfigFile {
        Native(NativeFile),
        SwitchLingua(SwitchLinguaFile),
    }
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut root = generator.into_root_schema_for::<ConfigFile>().to_value();
    let mut run = run.clone();
    let run_defs = run.as_object_mut().and_then(|o| o.remove("$defs"));
    if let Some(o) = run.as_object_mut() {
        o.remove("$schema");
    }
    if let Some(defs) = root.get_mut("$defs").and_then(Value::as_object_mut) {
        if let Some(Value::Object(run_defs)) = run_defs {
            defs.extend(run_defs);
        }
        if let Some(native) = defs.get_mut("NativeFile").and_then(Value::as_object_mut) {
            // The loader refuses an empty config.
            native.insert("minProperties".into(), 1.into());
            if let Some(props) = native.get_mut("properties").and_then(Value::as_object_mut) {
                // `run:` left empty is no section, as for the loader.
                props.insert(
                    "run".into(),
                    serde_json::json!({"anyOf": [run, {"type": "null"}]}),
                );
            }
        }
    }
    if let Some(o) = root.as_object_mut() {
        o.insert("title".into(), "ScenarioEngine config".into());
    }
    root
}
