//! Reading expectations from suite files, with validation done while deserializing so the YAML
//! loader can point at the offending line: unknown check names (with a did-you-mean), fields
//! beside a logical operator, duplicate checks, empty `all`/`any`, malformed operators, blank
//! items, unknown response types and bad turn selectors are all errors here, never ignored.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::Error as _};
use serde_json::Value;

use super::{
    CHECK_NAMES, CallCount, CallOrder, CallSpec, CheckSet, CheckSpec, CommandCheck, CustomCheck,
    DEFAULT_COMMAND_TIMEOUT_MS, Expect, Expectations, Matcher, Predicate, Quantifier, RubricCheck,
    SimilarCheck, Topic, TurnSel,
};
use crate::transcript::ResponseType;

/// Keys of an expectation mapping that modify its checks rather than being checks.
pub(super) const MODIFIERS: [&str; 4] = ["turn", "critical", "weight", "order"];
/// The logical operators, each alone in its mapping.
pub(super) const LOGICAL: [&str; 3] = ["all", "any", "not"];

/// The keys of each check argument written as a mapping, as its reader below takes them (the
/// JSON Schema is built from these; a test holds each to its reader's own list).
pub(super) const CALL_KEYS: [&str; 3] = ["function", "agent", "params"];
/// `callCount` items.
pub(super) const CALL_COUNT_KEYS: [&str; 5] = ["function", "agent", "eq", "min", "max"];
/// `shouldMention`, `shouldWarn` and `shouldAskFor` items in their long form.
pub(super) const TOPIC_KEYS: [&str; 2] = ["topic", "synonyms"];
/// `customValidator` predicates.
pub(super) const PREDICATE_KEYS: [&str; 6] = [
    "path",
    "op",
    "value",
    "description",
    "quantifier",
    "tolerance",
];
/// `command` checks.
pub(super) const COMMAND_KEYS: [&str; 3] = ["run", "timeoutMs", "name"];
/// `llmRubric` in its long form.
pub(super) const RUBRIC_KEYS: [&str; 2] = ["rubric", "name"];
/// `similar` checks.
pub(super) const SIMILAR_KEYS: [&str; 3] = ["to", "threshold", "name"];

impl<'de> Deserialize<'de> for Expectations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Expect::deserialize(deserializer).map(Expectations::new)
    }
}

impl<'de> Deserialize<'de> for Expect {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ExpectVisitor)
    }
}

struct ExpectVisitor;

impl<'de> Visitor<'de> for ExpectVisitor {
    type Value = Expect;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a mapping of checks (expectedFunction, shouldContain, …) or one of all/any/not",
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expect, A::Error> {
        let mut set = CheckSet::default();
        let mut logical: Option<(String, Expect)> = None;
        let mut seen: Vec<String> = Vec::new();
        let mut order: Option<CallOrder> = None;
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(A::Error::custom(format!("`{key}` is declared twice")));
            }
            // A logical operator must stand alone: anything beside it could not be evaluated
            // meaningfully, and silently dropping it is the bug this engine exists to avoid.
            if let Some((op, _)) = &logical {
                return Err(A::Error::custom(format!(
                    "`{key}` beside `{op}`: a logical operator must be the only key of its mapping \
                     (move `{key}` into one of its branches)"
                )));
            }
            if LOGICAL.contains(&key.as_str()) && !seen.is_empty() {
                return Err(A::Error::custom(format!(
                    "`{key}` beside `{}`: a logical operator must be the only key of its mapping",
                    seen.join("`, `")
                )));
            }
            seen.push(key.clone());
            match key.as_str() {
                "all" | "any" => {
                    let items: Vec<Expect> = map.next_value()?;
                    if items.is_empty() {
                        return Err(A::Error::custom(format!(
                            "`{key}` needs at least one branch"
                        )));
                    }
                    let node = if key == "all" {
                        Expect::All(items)
                    } else {
                        Expect::Any(items)
                    };
                    logical = Some((key, node));
                }
                "not" => {
                    let inner: Expect = map.next_value()?;
                    logical = Some((key, Expect::Not(Box::new(inner))));
                }
                "turn" => set.turn = Some(map.next_value::<TurnSelDe>()?.0),
                "critical" => set.critical = Some(map.next_value::<StrictBool>()?.0),
                "weight" => set.weight = Some(map.next_value()?),
                "expectedFunction" => {
                    set.checks.push(CheckSpec::ExpectedFunction(nonblank(
                        &key,
                        map.next_value()?,
                    )?));
                }
                "expectedAgent" => {
                    set.checks
                        .push(CheckSpec::ExpectedAgent(nonblank(&key, map.next_value()?)?));
                }
                "responseType" => {
                    let name: String = map.next_value()?;
                    let kind = ResponseType::parse(&name).ok_or_else(|| {
                        A::Error::custom(format!(
                            "unknown response type `{name}`; expected one of action, \
                             clarification, rejection, text, error"
                        ))
                    })?;
                    set.checks.push(CheckSpec::ResponseType(kind));
                }
                "expectedParams" => {
                    let raw: serde_json::Map<String, Value> = map.next_value()?;
                    if raw.is_empty() {
                        return Err(A::Error::custom(
                            "`expectedParams` needs at least one parameter",
                        ));
                    }
                    let params =
                        param_conditions(raw, "expectedParams").map_err(A::Error::custom)?;
                    set.checks.push(CheckSpec::ExpectedParams(params));
                }
                "shouldAskFor" => set
                    .checks
                    .push(CheckSpec::ShouldAskFor(topics(&key, &mut map)?)),
                "shouldWarn" => set
                    .checks
                    .push(CheckSpec::ShouldWarn(topics(&key, &mut map)?)),
                "shouldContain" => set
                    .checks
                    .push(CheckSpec::ShouldContain(list(&key, &mut map)?)),
                "shouldNotContain" => {
                    set.checks
                        .push(CheckSpec::ShouldNotContain(list(&key, &mut map)?));
                }
                "shouldReject" => set
                    .checks
                    .push(CheckSpec::ShouldReject(map.next_value::<StrictBool>()?.0)),
                "shouldMention" => set
                    .checks
                    .push(CheckSpec::ShouldMention(topics(&key, &mut map)?)),
                "customValidator" => {
                    let preds: OneOrMany<Predicate> = map.next_value()?;
                    if preds.0.is_empty() {
                        return Err(A::Error::custom(
                            "`customValidator` needs at least one predicate",
                        ));
                    }
                    set.checks.push(CheckSpec::CustomValidator(preds.0));
                }
                "onlyExpectedCalls" => {
                    if !map.next_value::<StrictBool>()?.0 {
                        return Err(A::Error::custom(
                            "`onlyExpectedCalls: false` checks nothing; remove it",
                        ));
                    }
                    set.checks.push(CheckSpec::OnlyExpectedCalls);
                }
                "validParams" => {
                    if !map.next_value::<StrictBool>()?.0 {
                        return Err(A::Error::custom(
                            "`validParams: false` checks nothing; remove it",
                        ));
                    }
                    set.checks.push(CheckSpec::ValidParams);
                }
                "expectedCalls" => {
                    let calls: Vec<CallSpecDe> = map.next_value()?;
                    if calls.is_empty() {
                        return Err(A::Error::custom("`expectedCalls` needs at least one call"));
                    }
                    set.checks.push(CheckSpec::ExpectedCalls {
                        calls: calls.into_iter().map(|c| c.0).collect(),
                        order: CallOrder::Any,
                    });
                }
                "order" => {
                    let name: String = map.next_value()?;
                    order = Some(match name.trim() {
                        "strict" => CallOrder::Strict,
                        "any" => CallOrder::Any,
                        other => {
                            return Err(A::Error::custom(format!(
                                "`order` is `strict` or `any`, got `{other}`"
                            )));
                        }
                    });
                }
                "callCount" => {
                    let counts: OneOrMany<CallCountDe> = map.next_value()?;
                    if counts.0.is_empty() {
                        return Err(A::Error::custom("`callCount` needs at least one condition"));
                    }
                    set.checks.push(CheckSpec::CallCount(
                        counts.0.into_iter().map(|c| c.0).collect(),
                    ));
                }
                "maxLatencyMs" => {
                    let ms: u64 = map.next_value()?;
                    if ms == 0 {
                        return Err(A::Error::custom("`maxLatencyMs` must be at least 1"));
                    }
                    set.checks.push(CheckSpec::MaxLatencyMs(ms));
                }
                "command" => {
                    let c: CommandDe = map.next_value()?;
                    set.checks
                        .push(CheckSpec::Custom(CustomCheck::Command(c.0)));
                }
                "llmRubric" => {
                    let r: RubricDe = map.next_value()?;
                    set.checks
                        .push(CheckSpec::Custom(CustomCheck::LlmRubric(r.0)));
                }
                "similar" => {
                    let c: SimilarDe = map.next_value()?;
                    set.checks
                        .push(CheckSpec::Custom(CustomCheck::Similar(c.0)));
                }
                unknown => {
                    let all = CHECK_NAMES
                        .iter()
                        .chain(&MODIFIERS)
                        .chain(&LOGICAL)
                        .copied();
                    let hint = stdx::closest(unknown, all)
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                    return Err(A::Error::custom(format!(
                        "unknown check `{unknown}`{hint} (checks: {})",
                        CHECK_NAMES.join(", ")
                    )));
                }
            }
        }
        if let Some((_, node)) = logical {
            return Ok(node);
        }
        if let Some(order) = order {
            let calls = set.checks.iter_mut().find_map(|c| match c {
                CheckSpec::ExpectedCalls { order, .. } => Some(order),
                _ => None,
            });
            match calls {
                Some(slot) => *slot = order,
                None => {
                    return Err(A::Error::custom(
                        "`order` applies to `expectedCalls`; this mapping has none",
                    ));
                }
            }
        }
        if set.checks.is_empty() {
            return Err(A::Error::custom(format!(
                "no check declared (only {}); add one of: {}",
                if seen.is_empty() {
                    "an empty mapping".to_owned()
                } else {
                    seen.join(", ")
                },
                CHECK_NAMES.join(", ")
            )));
        }
        if set.turn == Some(TurnSel::Any) {
            absence_at_any_turn(&set.checks).map_err(A::Error::custom)?;
        }
        Ok(Expect::Checks(set))
    }
}

/// `turn: any` holds when one turn passes, so a check that something is absent (no other call, at
/// most N calls, no such text, no refusal) would pass on any quiet turn: refused, with what to
/// write instead.
fn absence_at_any_turn(checks: &[CheckSpec]) -> Result<(), String> {
    let absence = checks.iter().find_map(|c| match c {
        CheckSpec::OnlyExpectedCalls => Some("`onlyExpectedCalls`"),
        CheckSpec::CallCount(counts) if counts.iter().any(|c| c.max.is_some()) => {
            Some("`callCount` with `max` or `eq`")
        }
        CheckSpec::ShouldNotContain(_) => Some("`shouldNotContain`"),
        CheckSpec::CustomValidator(preds) if preds.iter().any(forbids) => Some(
            "a `customValidator` that forbids a value (`absent`, `eq: null`, `ne`, `notIn`, or \
             `every` over a `*` path)",
        ),
        CheckSpec::ValidParams => Some("`validParams` (every call valid)"),
        CheckSpec::ShouldReject(false) => Some("`shouldReject: false`"),
        _ => None,
    });
    match absence {
        Some(what) => Err(format!(
            "{what} with `turn: any` passes when any one turn is clean, so it cannot catch \
             what another turn does; use a turn number, or put the check in each step's own \
             `expect`"
        )),
        None => Ok(()),
    }
}

/// Whether a predicate forbids something, so that a quiet turn meets it: a value absent or
/// null, present but not one value (`ne`, `notIn`), or every selected value within a bound
/// (review 25c: "every call ≤ 100" at turn 1 hid a 5000 USD call at turn 2).
fn forbids(p: &Predicate) -> bool {
    matches!(
        p.matcher,
        Matcher::Absent | Matcher::Ne(_) | Matcher::NotIn(_) | Matcher::Eq(Value::Null)
    ) || (p.quantifier == Quantifier::Every && p.path.split('/').any(|seg| seg == "*"))
}

/// Parameter conditions keyed by name (`expectedParams`, an `expectedCalls` entry's `params`).
fn param_conditions(
    raw: serde_json::Map<String, Value>,
    what: &str,
) -> Result<Vec<(String, Matcher)>, String> {
    raw.into_iter()
        .map(|(name, value)| {
            Matcher::from_param_value(value)
                .map(|m| (name.clone(), m))
                .map_err(|e| format!("{what}.{name}: {e}"))
        })
        .collect()
}

/// A boolean as the suite wrote it: a YAML 1.2 core-schema or JSON boolean (`true`, `True`,
/// `TRUE`, `false`, …), never text such as `"true"`, `yes` or `on`, which a lenient reader would
/// turn into one.
struct StrictBool(bool);

impl<'de> Deserialize<'de> for StrictBool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = StrictBool;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a boolean, true or false (unquoted)")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<StrictBool, E> {
                Ok(StrictBool(v))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// `{function: send_money, agent: transfers, params: {amount: 5}}`.
struct CallSpecDe(CallSpec);

impl<'de> Deserialize<'de> for CallSpecDe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            function: String,
            #[serde(default)]
            agent: Option<String>,
            #[serde(default)]
            params: serde_json::Map<String, Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let function = nonblank("expectedCalls.function", raw.function)?;
        let agent = raw
            .agent
            .map(|a| nonblank("expectedCalls.agent", a))
            .transpose()?;
        let params =
            param_conditions(raw.params, "expectedCalls.params").map_err(D::Error::custom)?;
        Ok(Self(CallSpec {
            function,
            agent,
            params,
        }))
    }
}

/// `{function: send_money, eq: 1}`, `{min: 1, max: 3}` (every call).
struct CallCountDe(CallCount);

impl<'de> Deserialize<'de> for CallCountDe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            #[serde(default)]
            function: Option<String>,
            #[serde(default)]
            agent: Option<String>,
            #[serde(default)]
            eq: Option<u64>,
            #[serde(default)]
            min: Option<u64>,
            #[serde(default)]
            max: Option<u64>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let (min, max) = match (raw.eq, raw.min, raw.max) {
            (Some(n), None, None) => (Some(n), Some(n)),
            (Some(_), _, _) => {
                return Err(D::Error::custom(
                    "`callCount` takes `eq`, or `min` and/or `max`, not both",
                ));
            }
            (None, None, None) => {
                return Err(D::Error::custom(
                    "`callCount` needs `eq`, `min` or `max` (e.g. {function: send_money, eq: 1})",
                ));
            }
            (None, Some(lo), Some(hi)) if lo > hi => {
                return Err(D::Error::custom(format!(
                    "`callCount` range is reversed: min {lo} > max {hi}"
                )));
            }
            (None, lo, hi) => (lo, hi),
        };
        let function = raw
            .function
            .map(|f| nonblank("callCount.function", f))
            .transpose()?;
        let agent = raw
            .agent
            .map(|a| nonblank("callCount.agent", a))
            .transpose()?;
        Ok(Self(CallCount {
            function,
            agent,
            min,
            max,
        }))
    }
}

fn nonblank<E: de::Error>(key: &str, value: String) -> Result<String, E> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(E::custom(format!("`{key}` must not be blank")));
    }
    // Blank once read as every check reads text (format characters such as U+200B dropped,
    // NFKC): it would match every reply, or none (review 25e).
    // Characters that show as nothing but are not format characters (U+2800 braille blank,
    // the Hangul fillers) count as blank too (review 25f).
    let blank = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\u{2800}' | '\u{3164}' | '\u{115F}' | '\u{1160}' | '\u{FFA0}'
            )
            // Combining marks alone (U+0301 …) show nothing either (review 25g).
            || matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
    };
    if super::matcher::fold(trimmed).chars().all(blank) {
        return Err(E::custom(format!(
            "`{key}` is blank once invisible characters are dropped ({trimmed:?}): write the text to match"
        )));
    }
    Ok(trimmed.to_owned())
}

fn list<'de, A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<Vec<String>, A::Error> {
    let items: OneOrMany<String> = map.next_value()?;
    if items.0.is_empty() {
        return Err(A::Error::custom(format!("`{key}` needs at least one item")));
    }
    let items: Vec<String> = items
        .0
        .into_iter()
        .map(|s| nonblank(key, s))
        .collect::<Result<_, _>>()?;
    no_twice(key, items.iter().map(String::as_str))?;
    Ok(items)
}

/// Two items of one list that every check reads as the same text are one check written twice:
/// a load error like a key declared twice (review 25j: 300,000 copies of one needle loaded).
fn no_twice<'s, E: de::Error>(key: &str, items: impl Iterator<Item = &'s str>) -> Result<(), E> {
    let mut seen = std::collections::HashSet::new();
    for item in items {
        if !seen.insert(super::view::one_space(&super::matcher::fold(item))) {
            return Err(E::custom(format!(
                "`{key}` lists {item:?} twice (as every check reads text): each item is one \
                 check, so write it once"
            )));
        }
    }
    Ok(())
}

/// The topics of `key` (`shouldMention`, `shouldWarn`, `shouldAskFor`): one or a list, each a
/// string or `{topic, synonyms}`, the topic and every synonym not blank.
fn topics<'de, A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<Vec<Topic>, A::Error> {
    let items: OneOrMany<Topic> = map.next_value()?;
    if items.0.is_empty() {
        return Err(A::Error::custom(format!(
            "`{key}` needs at least one topic"
        )));
    }
    items
        .0
        .into_iter()
        .map(|Topic { topic, synonyms }| {
            let synonyms = synonyms
                .into_iter()
                .map(|s| nonblank(&format!("{key}` synonym of `{topic}"), s))
                .collect::<Result<_, _>>()?;
            Ok(Topic {
                topic: nonblank(key, topic)?,
                synonyms,
            })
        })
        .collect::<Result<Vec<Topic>, A::Error>>()
        .and_then(|topics| {
            no_twice(key, topics.iter().map(|t| t.topic.as_str()))?;
            Ok(topics)
        })
}

/// A single item or a list of them (`shouldContain: fee` or `shouldContain: [fee, total]`).
struct OneOrMany<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Through a Value rather than an untagged enum, whose error would hide the item's own.
        let value = Value::deserialize(deserializer)?;
        let items = match value {
            Value::Array(items) => items,
            one => vec![one],
        };
        let parsed: Result<Vec<T>, _> = items
            .into_iter()
            .map(|v| T::deserialize(v).map_err(|e| D::Error::custom(e.to_string())))
            .collect();
        parsed.map(OneOrMany)
    }
}

impl<'de> Deserialize<'de> for Topic {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Long {
            topic: String,
            synonyms: Option<Vec<String>>,
        }
        let value = Value::deserialize(deserializer)?;
        let (topic, synonyms) = match value {
            Value::String(s) => (s, Vec::new()),
            other => {
                // `synonyms: null` (or `synonyms:` with nothing after it) names no synonym
                // either (review 25f).
                if let Some(topic) = other
                    .get("synonyms")
                    .filter(|v| v.is_null())
                    .and(other.get("topic"))
                {
                    return Err(D::Error::custom(format!(
                        "`synonyms` of {topic} is null: list at least one synonym, or drop the key"
                    )));
                }
                let found = match &other {
                    Value::Null => "found null (an empty item): write the topic, or drop the item",
                    Value::Bool(_) | Value::Number(_) => {
                        "found a number or true/false: quote it to make it a topic (\"12\")"
                    }
                    Value::Array(_) => "found a list: one topic is one string",
                    Value::String(_) | Value::Object(_) => "",
                };
                let long: Long = serde_json::from_value(other).map_err(|e| {
                    // The reader's words name an internal type for a scalar ("expected
                    // struct Long", review 25g): say what was found instead.
                    let why = if found.is_empty() {
                        e.to_string()
                    } else {
                        found.to_owned()
                    };
                    D::Error::custom(format!(
                        "a topic is a string or {{topic: ..., synonyms: [...]}}: {why}"
                    ))
                })?;
                // `synonyms: []` names no synonym: a slip (review 25e), not a choice.
                let synonyms = match long.synonyms {
                    Some(list) if list.is_empty() => {
                        return Err(D::Error::custom(format!(
                            "`synonyms` of `{}` is an empty list: list at least one synonym, or drop the key",
                            long.topic
                        )));
                    }
                    list => list.unwrap_or_default(),
                };
                (long.topic, synonyms)
            }
        };
        // Blank topics and synonyms are refused by `topics`, which knows the check's name.
        Ok(Topic { topic, synonyms })
    }
}

impl<'de> Deserialize<'de> for Predicate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            path: String,
            op: String,
            // `None` when the key is left out; `Some(Null)` for an explicit `value: null`.
            #[serde(default, deserialize_with = "present")]
            value: Option<Value>,
            #[serde(default)]
            description: Option<String>,
            #[serde(default)]
            quantifier: Option<String>,
            #[serde(default)]
            tolerance: Option<Value>,
        }
        let raw: Raw = Raw::deserialize(deserializer)?;
        let wildcard = raw.path.split('/').any(|seg| seg == "*");
        let quantifier = match raw.quantifier.as_deref().map(str::trim) {
            None => Quantifier::Every,
            Some(_) if !wildcard => {
                return Err(D::Error::custom(format!(
                    "customValidator `quantifier` applies to paths with a `*` segment; `{}` \
                     selects one value",
                    raw.path
                )));
            }
            Some("every") => Quantifier::Every,
            Some("some") => Quantifier::Some,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "customValidator `quantifier` is `every` or `some`, got `{other}`"
                )));
            }
        };
        if !(raw.path.is_empty() || raw.path.starts_with('/')) {
            return Err(D::Error::custom(format!(
                "customValidator path `{}` must be a JSON pointer starting with `/` \
                 (e.g. /plan/0/params/amount)",
                raw.path
            )));
        }
        // RFC 6901: `~` escapes only `~0` (a `~`) and `~1` (a `/`); any other is no pointer.
        let bad_escape = raw
            .path
            .match_indices('~')
            .any(|(at, _)| !matches!(raw.path.as_bytes().get(at + 1), Some(b'0' | b'1')));
        if bad_escape {
            return Err(D::Error::custom(format!(
                "customValidator path `{}` is not a JSON pointer: `~` must be followed by `0` \
                 (a `~`) or `1` (a `/`)",
                raw.path
            )));
        }
        let operand_needed = !matches!(raw.op.as_str(), "exists" | "absent");
        // `eq`/`ne` may compare with an explicit `value: null`; no operator may leave it out,
        // or a forgotten value would silently mean "= null".
        let explicit_null_allowed = raw.op == "eq" || raw.op == "ne";
        let missing = match &raw.value {
            None => true,
            Some(Value::Null) => !explicit_null_allowed,
            Some(_) => false,
        };
        if operand_needed && missing {
            return Err(D::Error::custom(format!(
                "customValidator op `{}` needs a `value` (to test for a missing value, use \
                 `op: absent`)",
                raw.op
            )));
        }
        let value = raw.value.unwrap_or(Value::Null);
        let matcher = match (raw.op.as_str(), &raw.tolerance) {
            ("approx", Some(tolerance)) => Matcher::approx(&value, tolerance),
            (op, Some(_)) => Err(format!("`tolerance` applies to `op: approx`, not `{op}`")),
            (op, None) => Matcher::from_op(op, value),
        }
        .map_err(|e| D::Error::custom(format!("customValidator: {e}")))?;
        Ok(Predicate {
            path: raw.path,
            matcher,
            quantifier,
            description: raw.description,
        })
    }
}

/// `turn: 2`, `turn: last`, `turn: any`.
struct TurnSelDe(TurnSel);

impl<'de> Deserialize<'de> for TurnSelDe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let parsed = match &value {
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(TurnSel::Index),
            Value::String(s) => match s.trim() {
                "last" => Some(TurnSel::Last),
                "any" => Some(TurnSel::Any),
                _ => None,
            },
            _ => None,
        };
        match parsed {
            Some(TurnSel::Index(0)) | None => Err(D::Error::custom(format!(
                "`turn` must be a turn number from 1, `last` or `any`, got {value}"
            ))),
            Some(sel) => Ok(TurnSelDe(sel)),
        }
    }
}

/// Deserializes a field that was present (even as `null`) into `Some`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// `command: {run: [python3, check.py], timeoutMs: 5000, name: polite}`; `run` may be one string,
/// split at white space (no shell).
struct CommandDe(CommandCheck);

/// `run`: one string (split at white space) or a list (each element one argument, as written).
enum Run {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for Run {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Run::One(s)),
            Value::Array(items) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    other => Err(D::Error::custom(format!(
                        "each element of `run` is a string, got {other}"
                    ))),
                })
                .collect::<Result<_, _>>()
                .map(Run::Many),
            other => Err(D::Error::custom(format!(
                "`run` is a string or a list of strings, got {other}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for CommandDe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        struct Raw {
            run: Run,
            #[serde(default)]
            timeout_ms: Option<u64>,
            #[serde(default)]
            name: Option<String>,
        }
        let raw = Raw::deserialize(deserializer).map_err(|e| {
            D::Error::custom(format!(
                "`command` is {{run: [program, args...], timeoutMs: N, name: ...}}: {e}"
            ))
        })?;
        // The string form is split at white space; the list form is taken as written, so its
        // first element is the program's path exactly (spaces included).
        let argv: Vec<String> = match raw.run {
            Run::One(one) => one.split_whitespace().map(str::to_owned).collect(),
            Run::Many(many) => many,
        };
        if argv.is_empty() || argv.iter().any(|a| a.trim().is_empty()) {
            return Err(D::Error::custom(
                "`command`'s `run` needs a program (and no blank argument)",
            ));
        }
        let timeout_ms = raw.timeout_ms.unwrap_or(DEFAULT_COMMAND_TIMEOUT_MS);
        if timeout_ms == 0 {
            return Err(D::Error::custom(
                "`command`'s `timeoutMs` must be at least 1",
            ));
        }
        Ok(CommandDe(CommandCheck {
            argv,
            timeout_ms,
            label: raw.name,
        }))
    }
}

/// `llmRubric: "what the reply must do"` or `{rubric: ..., name: ...}`.
struct RubricDe(RubricCheck);

impl<'de> Deserialize<'de> for RubricDe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Long {
            rubric: String,
            #[serde(default)]
            name: Option<String>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RubricCheck;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a rubric (a string) or {rubric: ..., name: ...}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RubricCheck, E> {
                Ok(RubricCheck {
                    rubric: nonblank("llmRubric", v.to_owned())?,
                    label: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RubricCheck, A::Error> {
                let long = Long::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(RubricCheck {
                    rubric: nonblank("llmRubric", long.rubric)?,
                    label: long.name,
                })
            }
        }
        deserializer.deserialize_any(V).map(RubricDe)
    }
}

/// `similar: {to: ["reference", ...], threshold: 0.8, name: ...}`.
struct SimilarDe(SimilarCheck);

impl<'de> Deserialize<'de> for SimilarDe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            to: OneOrMany<String>,
            threshold: f64,
            #[serde(default)]
            name: Option<String>,
        }
        let raw = Raw::deserialize(deserializer).map_err(|e| {
            D::Error::custom(format!(
                "`similar` is {{to: [reference, ...], threshold: 0.8, name: ...}}: {e}"
            ))
        })?;
        if raw.to.0.is_empty() || raw.to.0.iter().any(|r| r.trim().is_empty()) {
            return Err(D::Error::custom(
                "`similar` needs at least one reference in `to`, none blank",
            ));
        }
        if !(raw.threshold > 0.0 && raw.threshold <= 1.0) {
            return Err(D::Error::custom(format!(
                "`similar`'s `threshold` is a cosine similarity in (0, 1], got {}",
                raw.threshold
            )));
        }
        Ok(SimilarDe(SimilarCheck {
            references: raw.to.0,
            threshold: raw.threshold,
            label: raw.name,
        }))
    }
}

#[cfg(test)]
mod key_list_tests {
    use serde::Deserialize;

    use super::*;

    /// The keys a reader names when it refuses an unknown one.
    fn keys_named<T: for<'de> Deserialize<'de>>() -> Vec<String> {
        stdx::keys_refusing_others::<T>().expect("an unknown key is refused")
    }

    /// Each key list the schema is built from is exactly its reader's: no drift either way.
    #[test]
    fn the_schema_key_lists_are_the_readers() {
        assert_eq!(keys_named::<CallSpecDe>(), CALL_KEYS);
        assert_eq!(keys_named::<CallCountDe>(), CALL_COUNT_KEYS);
        assert_eq!(keys_named::<Topic>(), TOPIC_KEYS);
        assert_eq!(keys_named::<Predicate>(), PREDICATE_KEYS);
        assert_eq!(keys_named::<CommandDe>(), COMMAND_KEYS);
        assert_eq!(keys_named::<RubricDe>(), RUBRIC_KEYS);
        assert_eq!(keys_named::<SimilarDe>(), SIMILAR_KEYS);
    }
}
