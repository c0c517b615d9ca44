//! Which calls an `expectedParams` or `expectedAgent` judges, and the load-time problems of an
//! expectation tree.
//!
//! The rule (docs/suites.md, "Scope"): they judge the calls of the `expectedFunction` declared in
//! the same mapping, else the one declared by a mapping of the nearest enclosing `all` aimed at the
//! same turn (nested `all`s count as one; `any` branches and `not`s do not name functions for their
//! siblings). Only when no function is named anywhere (outside a `not`) may they match any call.
//! A binding that cannot be decided (no function in scope although one is named elsewhere, or
//! several) is a load error, and, should such a tree be evaluated anyway, a check that fails.

use super::{CheckSet, Expect, Expectations, TurnSel};

/// The calls a scoped check judges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Binding<'a> {
    /// No function is named anywhere: any call.
    Free,
    /// The calls of this function.
    Function(&'a str),
    /// A function is named elsewhere, but none is in scope.
    Unbound,
    /// Several functions are in scope.
    Ambiguous(Vec<&'a str>),
}

/// The enclosing `all`s of a node, nearest last.
pub(crate) type Enclosing<'a> = Vec<&'a [Expect]>;

/// Whether a function is named outside every `not`.
pub(crate) fn names_function(node: &Expect) -> bool {
    match node {
        Expect::Checks(set) => set.function().is_some(),
        Expect::All(items) | Expect::Any(items) => items.iter().any(names_function),
        Expect::Not(_) => false,
    }
}

/// Resolves the binding of the scoped checks of `set`.
pub(crate) fn bind<'a>(
    set: &'a CheckSet,
    enclosing: &[&'a [Expect]],
    named_anywhere: bool,
    steps: Option<usize>,
) -> Binding<'a> {
    if let Some(f) = set.function() {
        return Binding::Function(f);
    }
    let turn = effective(set.turn, steps);
    for items in enclosing.iter().rev() {
        let mut found: Vec<&'a str> = Vec::new();
        for m in mappings(items) {
            if effective(m.turn, steps) != turn {
                continue;
            }
            if let Some(f) = m.function()
                && !found.iter().any(|g| g.eq_ignore_ascii_case(f))
            {
                found.push(f);
            }
        }
        match found.len() {
            0 => {}
            1 => return Binding::Function(found[0]),
            _ => return Binding::Ambiguous(found),
        }
    }
    if named_anywhere {
        Binding::Unbound
    } else {
        Binding::Free
    }
}

fn effective(turn: Option<TurnSel>, steps: Option<usize>) -> TurnSel {
    match (turn.unwrap_or(TurnSel::Last), steps) {
        (TurnSel::Last, Some(n)) => TurnSel::Index(n),
        (sel, _) => sel,
    }
}

/// The check mappings of an `all`, nested `all`s flattened.
fn mappings(items: &[Expect]) -> Vec<&CheckSet> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Expect::Checks(set) => out.push(set),
            Expect::All(inner) => out.extend(mappings(inner)),
            Expect::Any(_) | Expect::Not(_) => {}
        }
    }
    out
}

/// One step of a path into the expectation tree as written (`all`, `1`, `expectedParams`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    /// A mapping key.
    Key(String),
    /// A list element, 0-based.
    Index(usize),
}

/// Something in an expectation tree that cannot be evaluated as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where it is, from the root of the tree.
    pub path: Vec<PathStep>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

pub(crate) fn problems(exp: &Expectations) -> Vec<Problem> {
    let mut out = Vec::new();
    let named = names_function(&exp.root);
    walk(
        &exp.root,
        &mut Vec::new(),
        &mut Vec::new(),
        named,
        exp.steps,
        &mut out,
    );
    out
}

fn walk<'a>(
    node: &'a Expect,
    path: &mut Vec<PathStep>,
    enclosing: &mut Enclosing<'a>,
    named: bool,
    steps: Option<usize>,
    out: &mut Vec<Problem>,
) {
    match node {
        Expect::All(items) | Expect::Any(items) => {
            let is_all = matches!(node, Expect::All(_));
            if is_all {
                enclosing.push(items);
            }
            for (i, item) in items.iter().enumerate() {
                path.push(PathStep::Key(if is_all { "all" } else { "any" }.to_owned()));
                path.push(PathStep::Index(i));
                walk(item, path, enclosing, named, steps, out);
                path.truncate(path.len() - 2);
            }
            if is_all {
                enclosing.pop();
            }
        }
        Expect::Not(inner) => {
            path.push(PathStep::Key("not".to_owned()));
            walk(inner, path, enclosing, named, steps, out);
            path.pop();
        }
        Expect::Checks(set) => {
            if let (Some(TurnSel::Index(n)), Some(total)) = (set.turn, steps)
                && n > total
            {
                out.push(at(
                    path,
                    "turn",
                    format!("`turn: {n}` is beyond the scenario's {total} step(s)"),
                    format!("use a turn number from 1 to {total}, `last` or `any`"),
                ));
            }
            let scoped = set.checks.iter().find_map(|c| match c {
                super::CheckSpec::ExpectedParams(_) => Some("expectedParams"),
                super::CheckSpec::ExpectedAgent(_) => Some("expectedAgent"),
                _ => None,
            });
            let Some(key) = scoped else { return };
            match bind(set, enclosing, named, steps) {
                Binding::Free | Binding::Function(_) => {}
                Binding::Unbound => out.push(at(
                    path,
                    key,
                    format!(
                        "`{key}` has no `expectedFunction` in scope (this mapping or the nearest \
                         enclosing `all`, at the same turn), but the scenario names a function \
                         elsewhere, so it is unclear which call it judges"
                    ),
                    "add `expectedFunction: <name>` to this mapping".to_owned(),
                )),
                Binding::Ambiguous(fs) => out.push(at(
                    path,
                    key,
                    format!(
                        "`{key}` could judge the calls of several functions in scope: {}",
                        fs.join(", ")
                    ),
                    "move it into the mapping of the `expectedFunction` it concerns".to_owned(),
                )),
            }
        }
    }
}

fn at(path: &[PathStep], key: &str, message: String, hint: String) -> Problem {
    let mut path = path.to_vec();
    path.push(PathStep::Key(key.to_owned()));
    Problem {
        path,
        message,
        hint: Some(hint),
    }
}
