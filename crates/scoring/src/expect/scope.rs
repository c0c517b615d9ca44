//! Which calls an `expectedParams` or `expectedAgent` judges, and the load-time problems of an
//! expectation tree.
//!
//! The rule (docs/suites.md, "Scope"): they judge the calls of the function named in the same
//! mapping (its `expectedFunction`, else the functions of its `expectedCalls` and `callCount`),
//! else the one named by a mapping of the nearest enclosing `all` aimed at the same turn (directly nested `all`s count as one; `any` branches and `not`s do not name functions
//! for their siblings). The `expectedAgent` in scope, found the same way, narrows the calls judged
//! by `expectedParams` further. Only when no function is named anywhere (outside a `not`) may they
//! match any call. A scenario's `expect` and its steps' own `expect`s are separate scopes: one
//! never scopes the other. A binding that cannot be decided (no function in scope although one is
//! named elsewhere, several functions or agents in scope) is a load error, and, should such a tree
//! be evaluated anyway, a check that fails.

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
        Expect::Checks(set) => !set.scoping_functions().is_empty(),
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
    match set.scoping_functions().as_slice() {
        [] => {}
        [f] => return Binding::Function(f),
        several => return Binding::Ambiguous(several.to_vec()),
    }
    match nearest(set, enclosing, steps, CheckSet::scoping_functions) {
        Some(found) if found.len() == 1 => Binding::Function(found[0]),
        Some(found) => Binding::Ambiguous(found),
        None if named_anywhere => Binding::Unbound,
        None => Binding::Free,
    }
}

/// The `expectedAgent` in scope of `set`: its own, else the one of the nearest enclosing `all`
/// at the same turn. `Err` lists several.
pub(crate) fn bind_agent<'a>(
    set: &'a CheckSet,
    enclosing: &[&'a [Expect]],
    steps: Option<usize>,
) -> Result<Option<&'a str>, Vec<&'a str>> {
    match set.scoping_agents().as_slice() {
        [] => {}
        [a] => return Ok(Some(a)),
        several => return Err(several.to_vec()),
    }
    match nearest(set, enclosing, steps, CheckSet::scoping_agents) {
        Some(found) if found.len() == 1 => Ok(Some(found[0])),
        Some(found) => Err(found),
        None => Ok(None),
    }
}

/// The distinct names `pick` finds in the mappings of the nearest enclosing `all` (with the
/// `all`s directly nested in or around it: one group) aimed at the same turn as `set`; `None`
/// when no group names one.
fn nearest<'a>(
    set: &CheckSet,
    enclosing: &[&'a [Expect]],
    steps: Option<usize>,
    pick: impl Fn(&'a CheckSet) -> Vec<&'a str>,
) -> Option<Vec<&'a str>> {
    let turn = effective(set.turn, steps);
    let mut level = enclosing.len();
    while level > 0 {
        // Climb to the top of the chain of directly nested `all`s: one group.
        let mut top = level - 1;
        while top > 0 && directly_nested(enclosing[top - 1], enclosing[top]) {
            top -= 1;
        }
        let mut found: Vec<&'a str> = Vec::new();
        for m in mappings(enclosing[top]) {
            if effective(m.turn, steps) != turn {
                continue;
            }
            for name in pick(m) {
                if !found.iter().any(|g| super::matcher::same_function(g, name)) {
                    found.push(name);
                }
            }
        }
        if !found.is_empty() {
            return Some(found);
        }
        level = top;
    }
    None
}

/// Whether `inner` is the item list of an `all` written directly in `outer`.
fn directly_nested(outer: &[Expect], inner: &[Expect]) -> bool {
    outer
        .iter()
        .any(|e| matches!(e, Expect::All(items) if std::ptr::eq(items.as_slice(), inner)))
}

/// The functions the tree expects at `turn` (the effective turn of the asking mapping): those of
/// `expectedFunction` and `expectedCalls` in mappings aimed at the same turn, outside every `not`.
pub(crate) fn expected_functions(
    node: &Expect,
    turn: Option<TurnSel>,
    steps: Option<usize>,
) -> Vec<Expected<'_>> {
    let want = effective(turn, steps);
    let mut out = Vec::new();
    collect_functions(node, want, steps, &mut out);
    out
}

/// A function expected at a turn, on the agent the expectation names (`None`: any agent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Expected<'a> {
    pub(crate) function: &'a str,
    pub(crate) agent: Option<&'a str>,
}

impl Expected<'_> {
    /// Whether a call of `function` on `agent` is this expected one.
    pub(crate) fn allows(&self, function: &str, agent: &str) -> bool {
        let fold = super::matcher::fold;
        super::matcher::same_function(self.function, function)
            && self.agent.is_none_or(|a| fold(a) == fold(agent))
    }
}

impl std::fmt::Display for Expected<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.agent {
            Some(agent) => write!(f, "{agent}.{}", self.function),
            None => f.write_str(self.function),
        }
    }
}

fn collect_functions<'a>(
    node: &'a Expect,
    want: TurnSel,
    steps: Option<usize>,
    out: &mut Vec<Expected<'a>>,
) {
    match node {
        Expect::All(items) | Expect::Any(items) => items
            .iter()
            .for_each(|n| collect_functions(n, want, steps, out)),
        Expect::Not(_) => {}
        Expect::Checks(set) if effective(set.turn, steps) == want => {
            for spec in &set.checks {
                let names: Vec<Expected<'a>> = match spec {
                    super::CheckSpec::ExpectedFunction(f) => vec![Expected {
                        function: f.as_str(),
                        agent: set.agent(),
                    }],
                    super::CheckSpec::ExpectedCalls { calls, .. } => calls
                        .iter()
                        .map(|c| Expected {
                            function: c.function.as_str(),
                            agent: c.agent.as_deref(),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                for name in names {
                    let fold = super::matcher::fold;
                    let same = |known: &Expected<'_>| {
                        super::matcher::same_function(known.function, name.function)
                            && known.agent.map(fold) == name.agent.map(fold)
                    };
                    if !out.iter().any(same) {
                        out.push(name);
                    }
                }
            }
        }
        Expect::Checks(_) => {}
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
    let tree = Tree {
        named: names_function(&exp.root),
        steps: exp.steps,
        has_functions: exp.functions.as_ref().is_some_and(|f| !f.is_empty()),
    };
    match (&exp.root, exp.separate_parts) {
        // A scenario's `expect` and its steps' `expect`s: each part is its own scope.
        (Expect::All(parts), true) => {
            for (i, part) in parts.iter().enumerate() {
                let mut path = vec![PathStep::Key("all".to_owned()), PathStep::Index(i)];
                walk(part, &mut path, &mut Vec::new(), tree, &mut out);
            }
        }
        (root, _) => walk(root, &mut Vec::new(), &mut Vec::new(), tree, &mut out),
    }
    out
}

/// What the walk needs to know about the whole tree.
#[derive(Clone, Copy)]
struct Tree {
    /// A function is named outside every `not`.
    named: bool,
    steps: Option<usize>,
    /// The suite declares function schemas (for `validParams`).
    has_functions: bool,
}

fn walk<'a>(
    node: &'a Expect,
    path: &mut Vec<PathStep>,
    enclosing: &mut Enclosing<'a>,
    tree: Tree,
    out: &mut Vec<Problem>,
) {
    let (named, steps) = (tree.named, tree.steps);
    match node {
        Expect::All(items) | Expect::Any(items) => {
            let is_all = matches!(node, Expect::All(_));
            if is_all {
                enclosing.push(items);
            }
            for (i, item) in items.iter().enumerate() {
                path.push(PathStep::Key(if is_all { "all" } else { "any" }.to_owned()));
                path.push(PathStep::Index(i));
                walk(item, path, enclosing, tree, out);
                path.truncate(path.len() - 2);
            }
            if is_all {
                enclosing.pop();
            }
        }
        Expect::Not(inner) => {
            path.push(PathStep::Key("not".to_owned()));
            walk(inner, path, enclosing, tree, out);
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
            if !tree.has_functions
                && set
                    .checks
                    .iter()
                    .any(|c| matches!(c, super::CheckSpec::ValidParams))
            {
                out.push(at(
                    path,
                    "validParams",
                    "`validParams` checks calls against the functions the suite declares, and it \
                     declares none"
                        .to_owned(),
                    "declare the bot's functions and their parameter schemas under \
                     `bot.agents[].functions[]`"
                        .to_owned(),
                ));
            }
            let scoped = set.checks.iter().find_map(|c| match c {
                super::CheckSpec::ExpectedParams(_) => Some("expectedParams"),
                super::CheckSpec::ExpectedAgent(_) => Some("expectedAgent"),
                _ => None,
            });
            let Some(key) = scoped else { return };
            if let Err(agents) = bind_agent(set, enclosing, steps) {
                out.push(at(
                    path,
                    key,
                    format!(
                        "`{key}` could judge the calls of several agents in scope: {}",
                        agents.join(", ")
                    ),
                    "move it into the mapping of the `expectedAgent` it concerns".to_owned(),
                ));
                return;
            }
            match bind(set, enclosing, named, steps) {
                Binding::Free | Binding::Function(_) => {}
                Binding::Unbound => out.push(at(
                    path,
                    key,
                    format!(
                        "`{key}` has no function in scope (an `expectedFunction`, `expectedCalls` \
                         or `callCount` of this mapping or the nearest enclosing `all`, at the \
                         same turn), but the scenario names a function elsewhere, so it is \
                         unclear which call it judges"
                    ),
                    "add `expectedFunction: <name>` to this mapping (a step's own `expect` and \
                     the scenario's `expect` do not scope each other)"
                        .to_owned(),
                )),
                Binding::Ambiguous(fs) => out.push(at(
                    path,
                    key,
                    format!(
                        "`{key}` could judge the calls of several functions in scope: {}",
                        fs.join(", ")
                    ),
                    "move it into the mapping of the `expectedFunction` it concerns, or add one \
                     there (an `expectedFunction` scopes before the `expectedCalls` and \
                     `callCount` of its mapping; nested `all`s are one scope)"
                        .to_owned(),
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
