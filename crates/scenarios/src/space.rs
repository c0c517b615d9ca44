//! The scenario space: named axes of values, fixed fields and exclude rules, expanded lazily.
//!
//! A space never lists its scenarios. Scenario `i` is computed from `i` by mixed-radix decoding
//! (the first axis is the most significant digit, the last varies fastest), and the number of
//! scenarios left after exclusions is counted combinatorially (see [`ScenarioSpace::count`]).
//! Everything here is pure: no I/O, no locations. Loaders map a [`SpaceError`] back to the file.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::scenario::Scenario;

/// One named axis of the space.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The parameter name (for a merge axis, a label used in plans and exclude rules).
    pub name: String,
    /// The values, in file order; at least one, all distinct.
    pub values: Vec<Value>,
    /// When true every value is an object whose keys become parameters themselves (e.g. a
    /// language pair contributes `first_language` and `second_language`) instead of one
    /// parameter named after the axis.
    pub merge: bool,
}

impl Axis {
    /// A plain axis: each value becomes the parameter `name`.
    #[must_use]
    pub fn new(name: impl Into<String>, values: Vec<Value>) -> Self {
        Self {
            name: name.into(),
            values,
            merge: false,
        }
    }

    /// A merge axis: each value is an object whose keys become parameters.
    #[must_use]
    pub fn merged(name: impl Into<String>, values: Vec<Value>) -> Self {
        Self {
            name: name.into(),
            values,
            merge: true,
        }
    }

    /// The parameter names this axis sets: its own name, or the union of its objects' keys.
    #[must_use]
    pub fn param_names(&self) -> BTreeSet<String> {
        if self.merge {
            self.values
                .iter()
                .filter_map(Value::as_object)
                .flat_map(|o| o.keys().cloned())
                .collect()
        } else {
            BTreeSet::from([self.name.clone()])
        }
    }
}

/// One exclude rule: a scenario is excluded when, for **every** entry, its value for that key is
/// one of the listed values. Keys are axis names, or a key of a merge axis's objects (so
/// `first_language: Arabic` works on a `language_pair` axis).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExcludeRule(pub BTreeMap<String, Vec<Value>>);

/// Why a space cannot be built. Indexes are 0-based positions in the constructor's inputs, so a
/// loader can point at the offending line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    /// An axis with no values would make the whole space empty.
    #[error("axis `{name}` has no values")]
    EmptyAxis {
        /// Position of the axis.
        axis: usize,
        /// Its name.
        name: String,
    },
    /// Two axes with the same name.
    #[error("axis `{name}` is defined twice")]
    DuplicateAxis {
        /// Position of the second definition.
        axis: usize,
        /// The name.
        name: String,
    },
    /// The same value twice in one axis (it would produce identical scenarios).
    #[error("duplicate value {value} in axis `{name}` (first at position {first})")]
    DuplicateValue {
        /// Position of the axis.
        axis: usize,
        /// Its name.
        name: String,
        /// Position of the repeated value.
        index: usize,
        /// Position of its first occurrence.
        first: usize,
        /// The value as compact JSON.
        value: String,
    },
    /// A merge axis value that is not an object.
    #[error("value {value} of merge axis `{name}` is not an object")]
    NotAnObject {
        /// Position of the axis.
        axis: usize,
        /// Its name.
        name: String,
        /// Position of the value.
        index: usize,
        /// The value as compact JSON.
        value: String,
    },
    /// A parameter set by two sources (two axes, or an axis and a fixed field).
    #[error("parameter `{param}` is set by both {first} and {second}")]
    ParamCollision {
        /// The parameter name.
        param: String,
        /// The first source, e.g. "axis `topic`" or "fixed field `topic`".
        first: String,
        /// The second source.
        second: String,
        /// Position of the axis that introduced the collision.
        axis: usize,
    },
    /// A rule with no entries would exclude every scenario.
    #[error("exclude rule {rule} is empty (it would exclude everything)")]
    EmptyExcludeRule {
        /// Position of the rule.
        rule: usize,
    },
    /// An exclude key that is neither an axis nor a key of a merge axis.
    #[error("exclude rule {rule} names unknown axis `{key}`")]
    UnknownExcludeKey {
        /// Position of the rule.
        rule: usize,
        /// The key.
        key: String,
        /// Keys that would be accepted, for a hint.
        known: Vec<String>,
        /// True when `key` is a fixed field (excluding on it is meaningless).
        is_fixed: bool,
    },
    /// An exclude entry with no values.
    #[error("exclude rule {rule}: `{key}` lists no values")]
    EmptyExcludeValues {
        /// Position of the rule.
        rule: usize,
        /// The key.
        key: String,
    },
    /// An exclude value the axis does not have (the rule could never match).
    #[error("exclude rule {rule}: `{key}` has no value {value}")]
    UnknownExcludeValue {
        /// Position of the rule.
        rule: usize,
        /// The key.
        key: String,
        /// Position of the value in the entry's list.
        position: usize,
        /// The value as compact JSON.
        value: String,
        /// The axis's values as text, for a hint.
        known: Vec<String>,
    },
    /// The product of the axis sizes does not fit in a `u64`.
    #[error("the space has more than 2^64 scenarios")]
    TooLarge,
}

impl SpaceError {
    /// A suggestion for fixing the error, when there is one.
    #[must_use]
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::UnknownExcludeKey { is_fixed: true, .. } => {
                Some("fixed fields have one value; exclude on an axis instead".to_string())
            }
            Self::UnknownExcludeKey { key, known, .. } => {
                let names: Vec<&str> = known.iter().map(String::as_str).collect();
                stdx::did_you_mean(key, &names)
            }
            Self::UnknownExcludeValue { value, known, .. } => {
                let names: Vec<&str> = known.iter().map(String::as_str).collect();
                stdx::did_you_mean(value.trim_matches('"'), &names)
            }
            Self::DuplicateValue { .. } => Some("remove the repeated value".to_string()),
            Self::EmptyAxis { .. } => {
                Some("give the axis at least one value, or remove it".to_string())
            }
            Self::ParamCollision { .. } => Some("rename one of them".to_string()),
            _ => None,
        }
    }
}

/// A rule compiled to value-index sets: for each restricted axis, which of its values match.
#[derive(Debug, Clone)]
struct CompiledRule {
    /// (axis position, membership per value index), sorted by axis.
    sets: Vec<(usize, Vec<bool>)>,
}

impl CompiledRule {
    fn matches(&self, digits: &[usize]) -> bool {
        self.sets
            .iter()
            .all(|(axis, members)| members[digits[*axis]])
    }

    fn allows(&self, axis: usize, value: usize) -> bool {
        self.sets
            .iter()
            .find(|(a, _)| *a == axis)
            .is_none_or(|(_, members)| members[value])
    }
}

/// A lazily expanded scenario space; see the module docs.
#[derive(Debug, Clone)]
pub struct ScenarioSpace {
    axes: Vec<Axis>,
    fixed: BTreeMap<String, Value>,
    excludes: Vec<ExcludeRule>,
    rules: Vec<CompiledRule>,
    total: u64,
    count: u64,
}

impl ScenarioSpace {
    /// Builds and validates a space, counting its scenarios.
    ///
    /// With no axes the space has exactly one scenario (the fixed fields).
    ///
    /// # Errors
    /// A [`SpaceError`] for an empty axis, a duplicate axis or value, a non-object value on a
    /// merge axis, a parameter set twice, or an exclude rule that is empty or names an unknown
    /// axis or value.
    pub fn new(
        axes: Vec<Axis>,
        fixed: BTreeMap<String, Value>,
        excludes: Vec<ExcludeRule>,
    ) -> Result<Self, SpaceError> {
        validate_axes(&axes, &fixed)?;
        let total = axes
            .iter()
            .try_fold(1u64, |acc, axis| acc.checked_mul(axis.values.len() as u64))
            .ok_or(SpaceError::TooLarge)?;
        let rules = excludes
            .iter()
            .enumerate()
            .map(|(i, rule)| compile_rule(i, rule, &axes, &fixed))
            .collect::<Result<Vec<_>, _>>()?;
        let mut space = Self {
            axes,
            fixed,
            excludes,
            rules,
            total,
            count: 0,
        };
        space.count = total - space.count_excluded();
        tracing::debug!(
            total,
            count = space.count,
            axes = space.axes.len(),
            "scenario space built"
        );
        Ok(space)
    }

    /// The axes, in mixed-radix order (first = most significant).
    #[must_use]
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// The fixed fields, present in every scenario.
    #[must_use]
    pub fn fixed(&self) -> &BTreeMap<String, Value> {
        &self.fixed
    }

    /// The exclude rules as given.
    #[must_use]
    pub fn excludes(&self) -> &[ExcludeRule] {
        &self.excludes
    }

    /// The product of the axis sizes, before exclusions.
    #[must_use]
    pub fn len_unfiltered(&self) -> u64 {
        self.total
    }

    /// The number of scenarios after exclusions. Computed once at construction by counting
    /// (never by listing): see `count_excluded`.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// How many scenarios the exclude rules remove.
    #[must_use]
    pub fn excluded(&self) -> u64 {
        self.total - self.count
    }

    /// Scenario `i` of the unfiltered space, or `None` when `i` is out of range or excluded.
    #[must_use]
    pub fn get(&self, i: u64) -> Option<Scenario> {
        let digits = self.digits(i)?;
        if self.is_excluded_digits(&digits) {
            return None;
        }
        Some(self.build(i, &digits))
    }

    /// Whether index `i` is in range and not excluded.
    #[must_use]
    pub fn contains(&self, i: u64) -> bool {
        self.digits(i).is_some_and(|d| !self.is_excluded_digits(&d))
    }

    /// All scenarios after exclusions, in index order.
    pub fn iter(&self) -> impl Iterator<Item = Scenario> + '_ {
        let mut next = 0u64;
        std::iter::from_fn(move || {
            let i = self.next_included(next)?;
            next = i + 1;
            self.get(i)
        })
    }

    /// The smallest index `>= i` that is in range and not excluded. An excluded index jumps
    /// past the whole block its rule excludes (every index that differs from it only on axes
    /// after the rule's last axis), so a rule on the first axis skips its share of the space in
    /// one step instead of one index at a time.
    #[must_use]
    pub fn next_included(&self, mut i: u64) -> Option<u64> {
        loop {
            let digits = self.digits(i)?;
            let mut skip_to = None::<u64>;
            for rule in self.rules.iter().filter(|r| r.matches(&digits)) {
                // Axes after the rule's last one vary fastest: a block of `stride` indices.
                let last = rule.sets.iter().map(|(axis, _)| *axis).max().unwrap_or(0);
                let stride = self.axes[last + 1..]
                    .iter()
                    .fold(1u64, |acc, a| acc.saturating_mul(a.values.len() as u64));
                let end = (i / stride).saturating_add(1).saturating_mul(stride);
                skip_to = Some(skip_to.map_or(end, |s| s.max(end)));
            }
            match skip_to {
                None => return Some(i),
                Some(end) => i = end,
            }
        }
    }

    /// The per-axis value positions of index `i` (mixed radix, last axis fastest).
    #[must_use]
    pub fn digits(&self, i: u64) -> Option<Vec<usize>> {
        if i >= self.total {
            return None;
        }
        let mut rest = i;
        let mut digits = vec![0; self.axes.len()];
        for (slot, axis) in digits.iter_mut().zip(&self.axes).rev() {
            let size = axis.values.len() as u64;
            // Each digit is < size, which came from a usize, so the cast is lossless.
            *slot = (rest % size) as usize;
            rest /= size;
        }
        Some(digits)
    }

    /// The scenario at these per-axis value positions, **whether or not an exclude rule removes
    /// it** (a planner asking what values a grid can combine); `None` when a position is out
    /// of range.
    #[must_use]
    pub fn unfiltered_at(&self, digits: &[usize]) -> Option<Scenario> {
        let index = self.index_of(digits)?;
        Some(self.build(index, digits))
    }

    /// The inverse of [`digits`](Self::digits).
    #[must_use]
    pub fn index_of(&self, digits: &[usize]) -> Option<u64> {
        if digits.len() != self.axes.len() {
            return None;
        }
        let mut index = 0u64;
        for (digit, axis) in digits.iter().zip(&self.axes) {
            if *digit >= axis.values.len() {
                return None;
            }
            index = index * axis.values.len() as u64 + *digit as u64;
        }
        Some(index)
    }

    fn is_excluded_digits(&self, digits: &[usize]) -> bool {
        self.rules.iter().any(|rule| rule.matches(digits))
    }

    fn build(&self, index: u64, digits: &[usize]) -> Scenario {
        let mut params = self.fixed.clone();
        for (axis, digit) in self.axes.iter().zip(digits) {
            let value = &axis.values[*digit];
            match (axis.merge, value) {
                (true, Value::Object(object)) => {
                    params.extend(object.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                _ => {
                    params.insert(axis.name.clone(), value.clone());
                }
            }
        }
        Scenario::new(index, params)
    }

    /// Counts the excluded scenarios without listing them.
    ///
    /// Only axes named by some rule matter; the others multiply the result. On each named axis,
    /// values that every rule treats alike form one class (weighted by its size). A depth-first
    /// walk over classes tracks which rules can still match (a bitset): a branch where none can
    /// is skipped (nothing below is excluded), and a branch where some alive rule has no axis
    /// left to check is excluded whole. This is exact, and for realistic configs visits a few
    /// hundred nodes, where 2^rules inclusion-exclusion would not scale.
    fn count_excluded(&self) -> u64 {
        if self.rules.is_empty() {
            return 0;
        }
        let mentioned: Vec<usize> = self
            .rules
            .iter()
            .flat_map(|r| r.sets.iter().map(|(a, _)| *a))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let free: u64 = self
            .axes
            .iter()
            .enumerate()
            .filter(|(i, _)| !mentioned.contains(i))
            .map(|(_, a)| a.values.len() as u64)
            .product();
        let levels: Vec<Level> = mentioned
            .iter()
            .map(|&axis| {
                let mut classes: BTreeMap<Bits, u64> = BTreeMap::new();
                for value in 0..self.axes[axis].values.len() {
                    let sig =
                        Bits::from_fn(self.rules.len(), |r| self.rules[r].allows(axis, value));
                    *classes.entry(sig).or_default() += 1;
                }
                Level {
                    size: self.axes[axis].values.len() as u64,
                    classes: classes.into_iter().collect(),
                }
            })
            .collect();
        // last_level[r] = the deepest level rule r restricts; once past it, r matches everything.
        let last_level: Vec<usize> = self
            .rules
            .iter()
            .map(|r| {
                r.sets
                    .iter()
                    .filter_map(|(a, _)| mentioned.iter().position(|m| m == a))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let remaining: Vec<u64> = (0..=levels.len())
            .map(|l| levels[l..].iter().map(|lv| lv.size).product())
            .collect();
        let alive = Bits::from_fn(self.rules.len(), |_| true);
        free * excluded_below(&levels, &last_level, &remaining, 0, &alive)
    }
}

struct Level {
    size: u64,
    classes: Vec<(Bits, u64)>,
}

fn excluded_below(
    levels: &[Level],
    last_level: &[usize],
    remaining: &[u64],
    depth: usize,
    alive: &Bits,
) -> u64 {
    if alive.is_empty() {
        return 0;
    }
    // A rule whose every restricted axis has been fixed (and matched) excludes all that is below.
    if alive.ones().any(|r| last_level[r] < depth) || depth == levels.len() {
        return remaining[depth];
    }
    levels[depth]
        .classes
        .iter()
        .map(|(sig, weight)| {
            weight * excluded_below(levels, last_level, remaining, depth + 1, &alive.and(sig))
        })
        .sum()
}

/// A fixed-size bitset over rules.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Bits(Vec<u64>);

impl Bits {
    fn from_fn(len: usize, f: impl Fn(usize) -> bool) -> Self {
        let mut words = vec![0u64; len.div_ceil(64)];
        for i in (0..len).filter(|i| f(*i)) {
            words[i / 64] |= 1 << (i % 64);
        }
        Self(words)
    }

    fn and(&self, other: &Self) -> Self {
        Self(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect())
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }
}

fn compact(v: &Value) -> String {
    v.to_string()
}

fn validate_axes(axes: &[Axis], fixed: &BTreeMap<String, Value>) -> Result<(), SpaceError> {
    let mut owners: BTreeMap<String, String> = fixed
        .keys()
        .map(|k| (k.clone(), format!("fixed field `{k}`")))
        .collect();
    for (i, axis) in axes.iter().enumerate() {
        if axes[..i].iter().any(|a| a.name == axis.name) {
            return Err(SpaceError::DuplicateAxis {
                axis: i,
                name: axis.name.clone(),
            });
        }
        if axis.values.is_empty() {
            return Err(SpaceError::EmptyAxis {
                axis: i,
                name: axis.name.clone(),
            });
        }
        for (j, value) in axis.values.iter().enumerate() {
            if let Some(first) = axis.values[..j].iter().position(|v| v == value) {
                return Err(SpaceError::DuplicateValue {
                    axis: i,
                    name: axis.name.clone(),
                    index: j,
                    first,
                    value: compact(value),
                });
            }
            if axis.merge && !value.is_object() {
                return Err(SpaceError::NotAnObject {
                    axis: i,
                    name: axis.name.clone(),
                    index: j,
                    value: compact(value),
                });
            }
        }
        for param in axis.param_names() {
            let source = format!("axis `{}`", axis.name);
            if let Some(first) = owners.get(&param) {
                return Err(SpaceError::ParamCollision {
                    param,
                    first: first.clone(),
                    second: source,
                    axis: i,
                });
            }
            owners.insert(param, source);
        }
    }
    Ok(())
}

fn compile_rule(
    index: usize,
    rule: &ExcludeRule,
    axes: &[Axis],
    fixed: &BTreeMap<String, Value>,
) -> Result<CompiledRule, SpaceError> {
    if rule.0.is_empty() {
        return Err(SpaceError::EmptyExcludeRule { rule: index });
    }
    let mut sets: BTreeMap<usize, Vec<bool>> = BTreeMap::new();
    for (key, wanted) in &rule.0 {
        if wanted.is_empty() {
            return Err(SpaceError::EmptyExcludeValues {
                rule: index,
                key: key.clone(),
            });
        }
        // Either a whole axis (compare values), or a key inside a merge axis's objects.
        let target = axes
            .iter()
            .position(|a| &a.name == key)
            .map(|a| (a, None))
            .or_else(|| {
                axes.iter()
                    .position(|a| a.merge && a.param_names().contains(key))
                    .map(|a| (a, Some(key.as_str())))
            });
        let Some((axis, inner)) = target else {
            let mut known: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
            known.extend(axes.iter().filter(|a| a.merge).flat_map(Axis::param_names));
            return Err(SpaceError::UnknownExcludeKey {
                rule: index,
                key: key.clone(),
                known,
                is_fixed: fixed.contains_key(key),
            });
        };
        let project = |v: &Value| -> Option<Value> {
            match inner {
                Some(k) => v.get(k).cloned(),
                None => Some(v.clone()),
            }
        };
        let values: Vec<Option<Value>> = axes[axis].values.iter().map(project).collect();
        for (position, w) in wanted.iter().enumerate() {
            if !values.iter().any(|v| v.as_ref() == Some(w)) {
                let mut seen = BTreeSet::new();
                let known: Vec<String> = values
                    .iter()
                    .flatten()
                    .map(|v| v.as_str().map_or_else(|| compact(v), str::to_string))
                    .filter(|v| seen.insert(v.clone()))
                    .collect();
                return Err(SpaceError::UnknownExcludeValue {
                    rule: index,
                    key: key.clone(),
                    position,
                    value: compact(w),
                    known,
                });
            }
        }
        let members: Vec<bool> = values
            .iter()
            .map(|v| v.as_ref().is_some_and(|v| wanted.contains(v)))
            .collect();
        // Two entries on the same axis (e.g. first_language and second_language) must both hold.
        let slot = sets
            .entry(axis)
            .or_insert_with(|| vec![true; members.len()]);
        for (s, m) in slot.iter_mut().zip(members) {
            *s = *s && m;
        }
    }
    Ok(CompiledRule {
        sets: sets.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn axis(name: &str, n: usize) -> Axis {
        Axis::new(name, (0..n).map(|i| json!(format!("{name}{i}"))).collect())
    }

    fn rule(entries: &[(&str, &[Value])]) -> ExcludeRule {
        ExcludeRule(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.to_vec()))
                .collect(),
        )
    }

    #[test]
    fn count_with_overlapping_rules() {
        let axes = vec![axis("a", 3), axis("b", 4), axis("c", 2)];
        let excludes = vec![
            rule(&[("a", &[json!("a0")])]),
            rule(&[("a", &[json!("a0"), json!("a1")]), ("c", &[json!("c1")])]),
        ];
        let space = ScenarioSpace::new(axes, BTreeMap::new(), excludes).unwrap();
        assert_eq!(space.len_unfiltered(), 24);
        assert_eq!(space.count(), space.iter().count() as u64);
        // a0: 8 excluded; a1 & c1: 4 more.
        assert_eq!(space.excluded(), 12);
    }

    #[test]
    fn merge_axis_keys_become_params_and_can_be_excluded() {
        let pairs = Axis::merged(
            "language_pair",
            vec![
                json!({"first_language": "Arabic", "second_language": "English"}),
                json!({"first_language": "Spanish", "second_language": "English"}),
            ],
        );
        let excludes = vec![rule(&[
            ("first_language", &[json!("Arabic")]),
            ("topic", &[json!("topic1")]),
        ])];
        let space =
            ScenarioSpace::new(vec![pairs, axis("topic", 2)], BTreeMap::new(), excludes).unwrap();
        assert_eq!(space.count(), 3);
        let first = space.get(0).unwrap();
        assert_eq!(first.params["first_language"], json!("Arabic"));
        assert_eq!(first.params["topic"], json!("topic0"));
        assert!(!first.params.contains_key("language_pair"));
        assert!(space.get(1).is_none());
    }

    #[test]
    fn construction_errors() {
        let err = ScenarioSpace::new(vec![axis("a", 0)], BTreeMap::new(), vec![]).unwrap_err();
        assert_eq!(err.to_string(), "axis `a` has no values");
        let dup = Axis::new("a", vec![json!(1), json!(2), json!(1)]);
        let err = ScenarioSpace::new(vec![dup], BTreeMap::new(), vec![]).unwrap_err();
        assert!(
            matches!(
                err,
                SpaceError::DuplicateValue {
                    index: 2,
                    first: 0,
                    ..
                }
            ),
            "{err:?}"
        );
        let fixed = BTreeMap::from([("a".to_string(), json!(true))]);
        let err = ScenarioSpace::new(vec![axis("a", 1)], fixed, vec![]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter `a` is set by both fixed field `a` and axis `a`"
        );
        let err = ScenarioSpace::new(
            vec![axis("topic", 2)],
            BTreeMap::new(),
            vec![rule(&[("topc", &[json!("topic0")])])],
        )
        .unwrap_err();
        assert_eq!(err.hint().as_deref(), Some("did you mean `topic`?"));
        let err = ScenarioSpace::new(
            vec![axis("topic", 2)],
            BTreeMap::new(),
            vec![rule(&[("topic", &[json!("topic9")])])],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "exclude rule 0: `topic` has no value \"topic9\""
        );
        assert_eq!(err.hint().as_deref(), Some("did you mean `topic0`?"));
        let err = ScenarioSpace::new(
            vec![axis("topic", 2)],
            BTreeMap::new(),
            vec![ExcludeRule::default()],
        )
        .unwrap_err();
        assert_eq!(err, SpaceError::EmptyExcludeRule { rule: 0 });
    }

    #[test]
    fn excluded_blocks_are_skipped_whole() {
        // 9 axes of 100 values: 10^18 indices; the first value of the first axis excluded.
        let axes: Vec<Axis> = (0..9).map(|k| axis(&format!("a{k}"), 100)).collect();
        let space = ScenarioSpace::new(
            axes,
            BTreeMap::new(),
            vec![rule(&[("a0", &[json!("a00")])])],
        )
        .expect("space");
        let first = space.next_included(0).expect("some scenario");
        assert_eq!(first, 100u64.pow(8));
        let listed: Vec<u64> = space.iter().take(2).map(|s| s.index).collect();
        assert_eq!(listed, [first, first + 1]);
        // A rule on a middle axis: skipping lands on the next allowed value of that axis.
        let space = ScenarioSpace::new(
            vec![axis("x", 3), axis("y", 3), axis("z", 3)],
            BTreeMap::new(),
            vec![rule(&[("y", &[json!("y0"), json!("y1")])])],
        )
        .expect("space");
        let all: Vec<u64> = space.iter().map(|s| s.index).collect();
        let brute: Vec<u64> = (0..27).filter(|i| space.contains(*i)).collect();
        assert_eq!(all, brute);
    }

    #[test]
    fn no_axes_means_one_scenario() {
        let fixed = BTreeMap::from([("x".to_string(), json!(1))]);
        let space = ScenarioSpace::new(vec![], fixed, vec![]).unwrap();
        assert_eq!(space.count(), 1);
        assert_eq!(space.get(0).unwrap().params.len(), 1);
    }
}
