//! Evaluation of an expectation tree against a transcript: one [`Check`] per leaf, named and
//! worded as in the seed's Check Details. Pure: the same inputs always give the same checks.
//!
//! How each check decides is part of its message: askFor/warn/reject say `(signal)` when the bot
//! gave structured signals, `(llm judge)` when a judge verdict was supplied, `(rule)` when the
//! text rules of [`super::rules`] decided, and `(rule unsure: …)` when a rule could not tell and
//! its guess decided (the check is then marked [`Check::low_confidence`]). A turn whose adapter failed fails every check aimed at
//! it, and an extra critical `botError` check records each failed turn, so an error is never a pass.
//!
//! Internally every check carries a three-way [`Verdict`]: it holds, it fails, or it could not be
//! evaluated (its turn failed, timed out or was not reached; its scope is undecidable). Only the
//! last distinction matters to `not`, which never turns "could not be evaluated" into a pass.

use serde_json::Value;

use super::classifier;
use super::matcher::{self, fold, same_function};
use super::rules::{self, RuleOutcome, RuleVerdict};
use super::scope::{Binding, Expected, bind, bind_agent, expected_functions, names_function};
use super::{
    CallCount, CallOrder, CallSpec, CheckSet, CheckSpec, CustomCheck, CustomOutcome,
    CustomVerdicts, Expect, Expectations, FunctionSchemas, JudgeQuestion, JudgeVerdicts, Matcher,
    Predicate, Quantifier, Topic, TurnSel, excerpt, excerpt_around,
};
use super::{skeleton, view};
use crate::check::{Check, CheckKind};
use crate::transcript::{BotTurn, PlanStep, ResponseType, Transcript};

/// Evaluates `exp` against the transcript, with judge verdicts for the askFor/warn/reject
/// checks that have one (pass [`JudgeVerdicts::default`] for none). The user's own checks
/// (`command`, `llmRubric`, `similar`) need answers this crate cannot get: here they fail as not
/// evaluated; see [`evaluate_with`].
#[must_use]
pub fn evaluate(exp: &Expectations, t: &Transcript, verdicts: &JudgeVerdicts) -> Vec<Check> {
    evaluate_with(exp, t, verdicts, &CustomVerdicts::default())
}

/// [`evaluate`] with the answers to the user's own checks (from
/// [`super::custom_requests`]); a check with no answer or an error fails, never passes.
#[must_use]
pub fn evaluate_with(
    exp: &Expectations,
    t: &Transcript,
    verdicts: &JudgeVerdicts,
    custom: &CustomVerdicts,
) -> Vec<Check> {
    let ctx = Ctx {
        exp,
        t,
        verdicts,
        custom,
        named_anywhere: names_function(&exp.root),
    };
    let judged = match (&exp.root, exp.separate_parts) {
        // A scenario's `expect` and its steps' `expect`s: each part is its own scope (its path
        // is still that of the combined tree: `expect.all[k]` is part k).
        (Expect::All(parts), true) => parts
            .iter()
            .enumerate()
            .flat_map(|(k, part)| ctx.node(part, &mut Vec::new(), &format!("{ROOT}.all[{k}]")))
            .collect(),
        (root, _) => ctx.node(root, &mut Vec::new(), ROOT),
    };
    let mut checks: Vec<Check> = judged.into_iter().map(|j| j.check).collect();
    for (i, (_, turn)) in t.turns.iter().enumerate() {
        if let Some(reason) = &turn.error {
            // Kind: responseType is the closest existing kind (the turn produced no valid reply);
            // critical, so no score can hide that the bot failed to answer.
            checks.push(
                Check::fail(
                    CheckKind::ResponseType,
                    format!("botError @turn {}", i + 1),
                    format!("turn {}: the bot gave no reply: {reason}", i + 1),
                )
                .critical()
                .at(format!("bot.turn[{}]", i + 1)),
            );
        }
    }
    if t.turns.is_empty() {
        checks.push(
            Check::fail(
                CheckKind::ResponseType,
                "botError",
                "the conversation has no turns",
            )
            .critical()
            .at("bot"),
        );
    }
    tracing::debug!(checks = checks.len(), "evaluated expectations");
    checks
}

/// The questions an LLM judge should answer for this transcript: one per askFor/warn/reject
/// item and targeted turn (every turn for `turn: any`) that the text rule would decide and is
/// unsure about. Ids match what [`evaluate`] looks up.
#[must_use]
pub fn judge_questions(exp: &Expectations, t: &Transcript) -> Vec<JudgeQuestion> {
    let mut out: Vec<JudgeQuestion> = Vec::new();
    collect_questions(&exp.root, None, t, &mut out);
    out
}

fn collect_questions(
    node: &Expect,
    turn: Option<TurnSel>,
    t: &Transcript,
    out: &mut Vec<JudgeQuestion>,
) {
    match node {
        Expect::All(items) | Expect::Any(items) => {
            for n in items {
                collect_questions(n, turn, t, out);
            }
        }
        Expect::Not(inner) => collect_questions(inner, turn, t, out),
        Expect::Checks(set) => {
            let sel = set.turn.or(turn).unwrap_or(TurnSel::Last);
            for spec in &set.checks {
                let items: Vec<(CheckKind, Option<&Topic>)> = match spec {
                    CheckSpec::ShouldAskFor(v) => v
                        .iter()
                        .map(|t| (CheckKind::ShouldAskFor, Some(t)))
                        .collect(),
                    CheckSpec::ShouldWarn(v) => {
                        v.iter().map(|t| (CheckKind::ShouldWarn, Some(t))).collect()
                    }
                    CheckSpec::ShouldReject(_) => vec![(CheckKind::ShouldReject, None)],
                    _ => continue,
                };
                for index in targeted(sel, t.turns.len()) {
                    let Some((user, bot)) = t.turns.get(index) else {
                        continue;
                    };
                    for &(kind, topic) in &items {
                        let subject = topic.map(|t| t.topic.as_str());
                        let id = question_id(kind, subject, index + 1);
                        if !needs_judge(kind, topic, bot) || out.iter().any(|q| q.id == id) {
                            continue;
                        }
                        out.push(JudgeQuestion {
                            id,
                            kind,
                            subject: subject.map(str::to_owned),
                            turn: index + 1,
                            user_message: user.clone(),
                            reply: bot.text.clone(),
                        });
                    }
                }
            }
        }
    }
}

/// Whether a judge is asked about this check on this turn: only when the text rule would decide
/// it and is unsure (a bot's signals or declared rejection decide without a judge; a sure rule
/// is measured, see `fixtures/labelled/`).
fn needs_judge(kind: CheckKind, topic: Option<&Topic>, turn: &BotTurn) -> bool {
    if turn.error.is_some() {
        return false;
    }
    let (topic, synonyms) = topic.map_or(("", &[][..]), |t| (t.topic.as_str(), &t.synonyms[..]));
    match kind {
        CheckKind::ShouldReject => {
            !turn.signals.is_declared()
                && !declared_rejection(turn)
                && turn.plan.is_empty()
                && classifier::refuses(&turn.text).is_unsure()
        }
        CheckKind::ShouldAskFor => {
            !turn.signals.is_declared() && classifier::asks(&turn.text, topic, synonyms).is_unsure()
        }
        _ => {
            !turn.signals.is_declared()
                && classifier::warns(&turn.text, topic, synonyms).is_unsure()
        }
    }
}

fn question_id(kind: CheckKind, subject: Option<&str>, turn: usize) -> String {
    match subject {
        Some(s) => format!("{kind}:{}@{turn}", s.trim().to_lowercase()),
        None => format!("{kind}@{turn}"),
    }
}

/// Names each leaf of one mapping by its kind under the mapping's `path`, with the item's index
/// when the mapping holds several items of that kind (`shouldContain: [a, b]` gives
/// `.shouldContain[0]` and `.shouldContain[1]`).
fn set_leaf_paths(judged: &mut [Judged], path: &str) {
    // (kind, how many of it, how many numbered so far): counted once, so a mapping of 300,000
    // needles is numbered in linear time (review 25j: counting per leaf took minutes).
    let mut kinds: Vec<(CheckKind, usize, usize)> = Vec::new();
    for j in judged.iter() {
        match kinds.iter_mut().find(|(k, _, _)| *k == j.check.kind) {
            Some((_, total, _)) => *total += 1,
            None => kinds.push((j.check.kind, 1, 0)),
        }
    }
    for j in judged.iter_mut() {
        let kind = j.check.kind;
        let Some((_, total, next)) = kinds.iter_mut().find(|(k, _, _)| *k == kind) else {
            continue;
        };
        j.check.path = if *total > 1 {
            format!("{path}.{kind}[{next}]")
        } else {
            format!("{path}.{kind}")
        };
        *next += 1;
    }
}

/// Indexes (0-based) a selector looks at; an out-of-range index is kept so it can fail loudly.
fn targeted(sel: TurnSel, len: usize) -> Vec<usize> {
    match sel {
        TurnSel::Index(n) => vec![n.saturating_sub(1)],
        TurnSel::Last => len.checked_sub(1).into_iter().collect(),
        TurnSel::Any => (0..len).collect(),
    }
}

/// The path of the root of an expectation tree (see [`Check::path`]): `expect`, then one step
/// per node, `.all[i]`, `.any[i]`, `.not`, and for a leaf its check kind, with the item's index
/// when a mapping holds several items of that kind (`.shouldContain[1]`).
const ROOT: &str = "expect";

struct Ctx<'a> {
    exp: &'a Expectations,
    t: &'a Transcript,
    verdicts: &'a JudgeVerdicts,
    custom: &'a CustomVerdicts,
    /// Whether a function is named outside every `not` (decides [`Binding::Free`]).
    named_anywhere: bool,
}

/// Whether a check holds, fails, or could not be evaluated at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Holds,
    Fails,
    /// Its turn failed, timed out or was not reached, or its scope is undecidable.
    Unknown,
}

impl Verdict {
    fn from_bool(ok: bool) -> Self {
        if ok { Self::Holds } else { Self::Fails }
    }
}

/// A check with its three-way verdict (`check.passed` is `verdict == Holds`).
struct Judged {
    check: Check,
    verdict: Verdict,
}

/// One leaf check before it is aimed at a turn.
enum Leaf<'a> {
    Function {
        name: &'a str,
        agent: Option<&'a str>,
    },
    Type(ResponseType),
    Agent {
        agent: &'a str,
        binding: Binding<'a>,
    },
    Params {
        params: &'a [(String, Matcher)],
        binding: Binding<'a>,
        /// The `expectedAgent` in scope; `Err` lists several.
        agent: Result<Option<&'a str>, Vec<&'a str>>,
    },
    AskFor(&'a Topic),
    Warn(&'a Topic),
    Reject(bool),
    Validator(&'a Predicate),
    Contain(&'a str),
    NotContain(&'a str),
    Mention(&'a Topic),
    OnlyExpected(Vec<Expected<'a>>),
    Calls(&'a [CallSpec], CallOrder),
    Count(&'a CallCount),
    ValidParams,
    Latency(u64),
    Custom(&'a CustomCheck),
}

impl Leaf<'_> {
    fn kind(&self) -> CheckKind {
        match self {
            Self::Function { .. } => CheckKind::ExpectedFunction,
            Self::Type(_) => CheckKind::ResponseType,
            Self::Agent { .. } => CheckKind::ExpectedAgent,
            Self::Params { .. } => CheckKind::ExpectedParams,
            Self::AskFor(_) => CheckKind::ShouldAskFor,
            Self::Warn(_) => CheckKind::ShouldWarn,
            Self::Reject(_) => CheckKind::ShouldReject,
            Self::Validator(_) => CheckKind::CustomValidator,
            Self::Contain(_) => CheckKind::ShouldContain,
            Self::NotContain(_) => CheckKind::ShouldNotContain,
            Self::Mention(_) => CheckKind::ShouldMention,
            Self::OnlyExpected(_) => CheckKind::OnlyExpectedCalls,
            Self::Calls(..) => CheckKind::ExpectedCalls,
            Self::Count(_) => CheckKind::CallCount,
            Self::ValidParams => CheckKind::ValidParams,
            Self::Latency(_) => CheckKind::MaxLatencyMs,
            Self::Custom(c) => c.kind(),
        }
    }

    /// The seed's display name: `expectedFunction`, `shouldContain: "fee"`, …
    fn name(&self) -> String {
        let kind = self.kind();
        match self {
            Self::Contain(s) | Self::NotContain(s) => format!("{kind}: {s:?}"),
            Self::AskFor(topic) | Self::Warn(topic) | Self::Mention(topic) => {
                format!("{kind}: {:?}", topic.topic)
            }
            Self::Validator(p) => format!("{kind}: {:?}", p.label()),
            Self::Count(c) => format!("{kind}: {:?}", c.label()),
            Self::Latency(ms) => format!("{kind}: {ms}"),
            Self::Custom(c) => c.name(),
            _ => kind.to_string(),
        }
    }
}

/// What the scoped and call checks of one mapping need from the rest of the tree.
struct Scope<'a> {
    binding: Binding<'a>,
    agent: Result<Option<&'a str>, Vec<&'a str>>,
    /// Functions (on their agents, when named) expected at the mapping's turn (for
    /// `onlyExpectedCalls`).
    expected: Vec<Expected<'a>>,
}

fn leaves<'a>(set: &'a CheckSet, scope: &Scope<'a>) -> Vec<Leaf<'a>> {
    let binding = &scope.binding;
    let mut out = Vec::new();
    for spec in &set.checks {
        match spec {
            CheckSpec::ExpectedFunction(f) => out.push(Leaf::Function {
                name: f,
                agent: set.agent(),
            }),
            CheckSpec::ResponseType(r) => out.push(Leaf::Type(*r)),
            CheckSpec::ExpectedAgent(a) => out.push(Leaf::Agent {
                agent: a,
                binding: binding.clone(),
            }),
            CheckSpec::ExpectedParams(p) => out.push(Leaf::Params {
                params: p,
                binding: binding.clone(),
                agent: scope.agent.clone(),
            }),
            CheckSpec::ShouldAskFor(v) => out.extend(v.iter().map(Leaf::AskFor)),
            CheckSpec::ShouldWarn(v) => out.extend(v.iter().map(Leaf::Warn)),
            CheckSpec::ShouldReject(b) => out.push(Leaf::Reject(*b)),
            CheckSpec::CustomValidator(v) => out.extend(v.iter().map(Leaf::Validator)),
            CheckSpec::ShouldContain(v) => out.extend(v.iter().map(|s| Leaf::Contain(s))),
            CheckSpec::ShouldNotContain(v) => out.extend(v.iter().map(|s| Leaf::NotContain(s))),
            CheckSpec::ShouldMention(v) => out.extend(v.iter().map(Leaf::Mention)),
            CheckSpec::OnlyExpectedCalls => out.push(Leaf::OnlyExpected(scope.expected.clone())),
            CheckSpec::ExpectedCalls { calls, order } => out.push(Leaf::Calls(calls, *order)),
            CheckSpec::CallCount(v) => out.extend(v.iter().map(Leaf::Count)),
            CheckSpec::ValidParams => out.push(Leaf::ValidParams),
            CheckSpec::MaxLatencyMs(ms) => out.push(Leaf::Latency(*ms)),
            CheckSpec::Custom(c) => out.push(Leaf::Custom(c)),
        }
    }
    out
}

impl<'a> Ctx<'a> {
    /// Evaluates a node at `path`; `enclosing` holds the enclosing `all`s, nearest last (for
    /// scope).
    fn node(&self, node: &'a Expect, enclosing: &mut Vec<&'a [Expect]>, path: &str) -> Vec<Judged> {
        match node {
            Expect::Checks(set) => self.set(set, enclosing, path),
            Expect::All(items) => {
                enclosing.push(items);
                let out = items
                    .iter()
                    .enumerate()
                    .flat_map(|(i, n)| self.node(n, enclosing, &format!("{path}.all[{i}]")))
                    .collect();
                enclosing.pop();
                out
            }
            Expect::Any(items) => self.any(items, enclosing, path),
            Expect::Not(inner) => self.not(inner, enclosing, &format!("{path}.not")),
        }
    }

    /// `any` holds when one branch holds entirely: that branch's checks are reported (the one with
    /// most checks, then the first written). When none holds it is one failed check, weighted as
    /// the closest branch (highest share of its weight passed, then most checks passed, then first
    /// written), critical when a critical check of that branch failed, and naming its failures.
    fn any(
        &self,
        items: &'a [Expect],
        enclosing: &mut Vec<&'a [Expect]>,
        path: &str,
    ) -> Vec<Judged> {
        let branches: Vec<Vec<Judged>> = items
            .iter()
            .enumerate()
            .map(|(i, n)| self.node(n, enclosing, &format!("{path}.any[{i}]")))
            .collect();
        let n = branches.len();
        let holds = |b: &Vec<Judged>| b.iter().all(|j| j.verdict == Verdict::Holds);
        let holding = branches
            .iter()
            .enumerate()
            .filter(|(_, b)| holds(b))
            .max_by_key(|(i, b)| (b.len(), std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        if let Some(k) = holding {
            return branches
                .into_iter()
                .nth(k)
                .unwrap_or_default()
                .into_iter()
                .map(|mut j| {
                    j.check.message =
                        format!("{} [any: branch {} of {n} holds]", j.check.message, k + 1);
                    j
                })
                .collect();
        }
        let rank = |checks: &Vec<Judged>| {
            let total: u64 = checks.iter().map(|j| u64::from(j.check.weight)).sum();
            let got: u64 = checks
                .iter()
                .filter(|j| j.check.passed)
                .map(|j| u64::from(j.check.weight))
                .sum();
            // got/total compared without floats.
            let share = (got * 1_000_000).checked_div(total).unwrap_or(0);
            (share, checks.iter().filter(|j| j.check.passed).count())
        };
        let mut closest = 0;
        for (i, b) in branches.iter().enumerate().skip(1) {
            if rank(b) > rank(&branches[closest]) {
                closest = i;
            }
        }
        // A branch is definitely false when one of its checks definitely fails; when some branch
        // is not, the `any` could not be evaluated (its failures are all "unknown").
        let undecided = branches
            .iter()
            .any(|b| !b.iter().any(|j| j.verdict == Verdict::Fails));
        // The `any` fails for sure only when every branch has a failure that is sure: a branch
        // whose every failure is a guess could hold, so the verdict is a guess too, whichever
        // branch is reported as the closest (review 25h: `not: {any: [...]}` passed unmarked
        // when the unsure check sat in another branch).
        let could_hold = branches.iter().any(|b| {
            let mut failures = b.iter().filter(|j| !j.check.passed).peekable();
            failures.peek().is_some() && failures.all(|j| j.check.low_confidence)
        });
        let branch = &branches[closest];
        let failed: Vec<&Judged> = branch.iter().filter(|j| !j.check.passed).collect();
        let kind = failed
            .iter()
            .max_by_key(|j| j.check.weight)
            .map_or(CheckKind::ResponseType, |j| j.check.kind);
        let reasons: Vec<String> = failed
            .iter()
            .map(|j| format!("{}: {}", j.check.name, j.check.message))
            .collect();
        vec![Judged {
            check: Check {
                kind,
                name: format!("any ({n} branches)"),
                weight: branch.iter().map(|j| j.check.weight).sum(),
                passed: false,
                message: format!(
                    "no branch holds; closest is branch {} of {n}: {}",
                    closest + 1,
                    reasons.join("; ")
                ),
                critical: failed.iter().any(|j| j.check.critical),
                low_confidence: could_hold || failed.iter().any(|j| j.check.low_confidence),
                path: format!("{path}.any"),
            },
            verdict: if undecided {
                Verdict::Unknown
            } else {
                Verdict::Fails
            },
        }]
    }

    /// `not` passes only when its inner checks definitely fail (for several: when one does). A
    /// check that could not be evaluated (its turn failed, timed out or was not reached) makes
    /// the negation fail too, never pass.
    fn not(&self, inner: &'a Expect, enclosing: &mut Vec<&'a [Expect]>, path: &str) -> Vec<Judged> {
        let checks = self.node(inner, enclosing, path);
        match checks.as_slice() {
            [] => Vec::new(),
            [one] => {
                // `not: {not: …}` says what the innermost check found, not two stacked prefixes.
                let double = one.check.name.starts_with("not ");
                let inner = |prefix: &str| {
                    let message = one.check.message.as_str();
                    message.strip_prefix(prefix).unwrap_or(message).to_owned()
                };
                let (verdict, message) = match one.verdict {
                    Verdict::Holds if double => (
                        Verdict::Fails,
                        format!(
                            "does not hold (double negation): {}",
                            inner(NOT_HOLDS_PREFIX)
                        ),
                    ),
                    Verdict::Holds => (
                        Verdict::Fails,
                        format!("{HOLDS_PREFIX}{}", one.check.message),
                    ),
                    Verdict::Fails if double => (
                        Verdict::Holds,
                        format!("holds (double negation): {}", inner(HOLDS_PREFIX)),
                    ),
                    Verdict::Fails => (
                        Verdict::Holds,
                        format!("{NOT_HOLDS_PREFIX}{}", one.check.message),
                    ),
                    Verdict::Unknown => (
                        Verdict::Unknown,
                        format!(
                            "could not be evaluated, so its negation fails: {}",
                            one.check.message
                        ),
                    ),
                };
                vec![Judged {
                    check: Check {
                        name: format!("not {}", one.check.name),
                        passed: verdict == Verdict::Holds,
                        message,
                        path: path.to_owned(),
                        ..one.check.clone()
                    },
                    verdict,
                }]
            }
            many => {
                // The inverse of a conjunction is one check: it passes when an inner check fails.
                let heaviest = many
                    .iter()
                    .max_by_key(|j| j.check.weight)
                    .map_or(&many[0].check, |j| &j.check);
                let names: Vec<&str> = many.iter().map(|j| j.check.name.as_str()).collect();
                let held: Vec<&str> = many
                    .iter()
                    .filter(|j| j.check.passed)
                    .map(|j| j.check.name.as_str())
                    .collect();
                let unknown: Vec<&str> = many
                    .iter()
                    .filter(|j| j.verdict == Verdict::Unknown)
                    .map(|j| j.check.name.as_str())
                    .collect();
                let verdict = if many.iter().any(|j| j.verdict == Verdict::Fails) {
                    Verdict::Holds
                } else if unknown.is_empty() {
                    Verdict::Fails
                } else {
                    Verdict::Unknown
                };
                let mut message = format!(
                    "expected not all of [{}] to hold; held: [{}]",
                    names.join(", "),
                    held.join(", ")
                );
                if verdict == Verdict::Unknown {
                    message.push_str(&format!(
                        "; could not be evaluated: [{}], so the negation fails",
                        unknown.join(", ")
                    ));
                }
                vec![Judged {
                    check: Check {
                        kind: heaviest.kind,
                        name: format!("not ({})", names.join(", ")),
                        weight: heaviest.weight,
                        passed: verdict == Verdict::Holds,
                        message,
                        critical: many.iter().any(|j| j.check.critical),
                        low_confidence: many.iter().any(|j| j.check.low_confidence),
                        path: path.to_owned(),
                    },
                    verdict,
                }]
            }
        }
    }

    fn set(&self, set: &'a CheckSet, enclosing: &[&'a [Expect]], path: &str) -> Vec<Judged> {
        let sel = set.turn.unwrap_or(TurnSel::Last);
        let scope = Scope {
            binding: bind(set, enclosing, self.named_anywhere, self.exp.steps),
            agent: bind_agent(set, enclosing, self.exp.steps),
            expected: expected_functions(&self.exp.root, set.turn, self.exp.steps),
        };
        let mut judged: Vec<Judged> = leaves(set, &scope)
            .into_iter()
            .map(|leaf| {
                let kind = leaf.kind();
                let mut name = leaf.name();
                if let Some(explicit) = set.turn.filter(|s| *s != TurnSel::Last) {
                    name = format!("{name} @{explicit}");
                }
                let (verdict, message) = self.aim(&leaf, sel);
                let (message, low_confidence) = match message.strip_suffix(LOW_CONFIDENCE) {
                    Some(m) => (m.to_owned(), true),
                    None => (message, false),
                };
                let weight = set
                    .weight
                    .or_else(|| self.exp.defaults.weights.get(&kind).copied())
                    .unwrap_or_else(|| kind.default_weight());
                let critical = set
                    .critical
                    .unwrap_or_else(|| self.exp.defaults.critical.contains(&kind));
                // `Check::new` shows the message's marks as written; the name's likewise
                // (review 25p).
                let name = crate::check::readable(name);
                Judged {
                    check: Check {
                        weight,
                        critical,
                        low_confidence,
                        ..Check::new(kind, name, verdict == Verdict::Holds, message)
                    },
                    verdict,
                }
            })
            .collect();
        set_leaf_paths(&mut judged, path);
        judged
    }

    /// Evaluates a leaf on the selected turn(s).
    fn aim(&self, leaf: &Leaf<'_>, sel: TurnSel) -> (Verdict, String) {
        let turns = &self.t.turns;
        match sel {
            TurnSel::Any => {
                let mut last_failure = None;
                let mut unknown = false;
                for (i, (_, turn)) in turns.iter().enumerate() {
                    let (verdict, msg) = self.on_turn(leaf, turn, i + 1);
                    match verdict {
                        Verdict::Holds => {
                            return (Verdict::Holds, format!("turn {}: {msg}", i + 1));
                        }
                        Verdict::Unknown => unknown = true,
                        Verdict::Fails => {}
                    }
                    last_failure = Some(msg);
                }
                match last_failure {
                    // A failed turn might have satisfied it: not known to fail.
                    Some(msg) if unknown => (
                        Verdict::Unknown,
                        format!(
                            "no answered turn satisfies it and a turn failed; last turn: {msg}"
                        ),
                    ),
                    Some(msg) => (
                        Verdict::Fails,
                        format!("no turn satisfies it; last turn: {msg}"),
                    ),
                    None => (Verdict::Unknown, "the conversation has no turns".to_owned()),
                }
            }
            TurnSel::Index(n) => match turns.get(n.saturating_sub(1)) {
                Some((_, turn)) => {
                    let (verdict, msg) = self.on_turn(leaf, turn, n);
                    (verdict, format!("turn {n}: {msg}"))
                }
                None => (
                    Verdict::Unknown,
                    format!(
                        "turn {n} was not reached (the conversation has {} turns)",
                        turns.len()
                    ),
                ),
            },
            TurnSel::Last => match turns.last() {
                Some((_, turn)) => self.on_turn(leaf, turn, turns.len()),
                None => (Verdict::Unknown, "the conversation has no turns".to_owned()),
            },
        }
    }

    fn on_turn(&self, leaf: &Leaf<'_>, turn: &BotTurn, turn_no: usize) -> (Verdict, String) {
        if let Some(reason) = &turn.error {
            return (Verdict::Unknown, format!("the bot gave no reply: {reason}"));
        }
        if let Leaf::Params { binding, .. } | Leaf::Agent { binding, .. } = leaf
            && let Some(reason) = undecided_scope(binding)
        {
            return (Verdict::Unknown, reason);
        }
        if let Leaf::Params {
            agent: Err(agents), ..
        } = leaf
        {
            return (
                Verdict::Unknown,
                format!(
                    "several agents in scope ({}): it is unclear which call to judge",
                    agents.join(", ")
                ),
            );
        }
        if let Leaf::Custom(check) = leaf {
            return custom_verdict(self.custom.0.get(&check.id(turn_no)));
        }
        let (ok, message) = self.judge_leaf(leaf, turn, turn_no);
        (Verdict::from_bool(ok), message)
    }

    fn judge_leaf(&self, leaf: &Leaf<'_>, turn: &BotTurn, turn_no: usize) -> (bool, String) {
        match leaf {
            Leaf::Function { name, agent } => function_check(turn, name, *agent),
            Leaf::Agent { agent, binding } => agent_check(turn, agent, binding),
            Leaf::Type(expected) => {
                let (actual, how) = response_type(turn);
                let (how, unsure) = match how.strip_suffix(LOW_CONFIDENCE) {
                    Some(h) => (h.to_owned(), true),
                    None => (how, false),
                };
                let ok = actual == *expected;
                let msg = if ok {
                    format!("response type {actual} ({how})")
                } else {
                    format!("expected {expected}, got {actual} ({how})")
                };
                (ok, mark(msg, unsure))
            }
            Leaf::Params {
                params,
                binding,
                agent,
            } => params_check(
                turn,
                params,
                bound_function(binding),
                agent.as_ref().ok().copied().flatten(),
            ),
            Leaf::OnlyExpected(allowed) => only_expected_check(turn, allowed),
            Leaf::Calls(calls, order) => calls_check(turn, calls, *order),
            Leaf::Count(count) => count_check(turn, count),
            Leaf::ValidParams => valid_params_check(turn, self.exp.functions.as_ref()),
            // Answered by the caller (see `on_turn`); never decided here.
            Leaf::Custom(_) => (false, NOT_EVALUATED.to_owned()),
            Leaf::Latency(max) => {
                let took = turn.latency_ms;
                if took <= *max {
                    (true, format!("the reply took {took} ms (limit {max} ms)"))
                } else {
                    (
                        false,
                        format!(
                            "the reply to turn {turn_no} took {took} ms, over the limit of \
                             {max} ms (wall clock)"
                        ),
                    )
                }
            }
            Leaf::AskFor(item) => self.ask_check(turn, turn_no, item),
            Leaf::Warn(item) => self.warn_check(turn, turn_no, item),
            Leaf::Reject(expected) => self.reject_check(turn, turn_no, *expected),
            Leaf::Validator(pred) => validator_check(turn, pred),
            Leaf::Contain(needle) => contain_check(turn, needle),
            Leaf::NotContain(needle) => not_contain_check(turn, needle),
            Leaf::Mention(topic) => {
                let phrases = rules::phrases_for(&topic.topic, &topic.synonyms);
                match rules::mentions(&turn.text, &phrases) {
                    Some(p) => (true, format!("reply mentions {:?} (as {p:?})", topic.topic)),
                    None => (
                        false,
                        format!(
                            "expected a mention of {:?} (or {}); reply: {}",
                            topic.topic,
                            phrases
                                .iter()
                                .skip(1)
                                .map(|p| format!("{p:?}"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            excerpt(&turn.text)
                        ),
                    ),
                }
            }
        }
    }

    fn verdict(
        &self,
        kind: CheckKind,
        subject: Option<&str>,
        turn_no: usize,
    ) -> Option<&super::JudgeVerdict> {
        self.verdicts.0.get(&question_id(kind, subject, turn_no))
    }

    fn ask_check(&self, turn: &BotTurn, turn_no: usize, topic: &Topic) -> (bool, String) {
        let item = topic.topic.as_str();
        if let Some(v) = self.verdict(CheckKind::ShouldAskFor, Some(item), turn_no) {
            return judged(v.holds, &format!("asks for {item:?}"), &v.reason);
        }
        if turn.signals.is_declared() {
            let ok = turn.signals.asks_for.iter().any(|s| same_topic(s, topic));
            let seen = format!("{:?}", turn.signals.asks_for);
            return if ok {
                (
                    true,
                    format!("bot asks for {item:?} (signal: asks_for {seen})"),
                )
            } else {
                (
                    false,
                    format!("expected the bot to ask for {item:?} (signal: asks_for {seen})"),
                )
            };
        }
        let rule = classifier::asks(&turn.text, item, &topic.synonyms);
        let ok = rule.decision();
        let message = match (&rule.verdict, ok) {
            (RuleVerdict::Yes, _) => format!("bot asks for {item:?} (rule: {:?})", rule.evidence),
            (RuleVerdict::Unsure, true) => format!("bot asks for {item:?} ({})", unsure(&rule)),
            (RuleVerdict::Unsure, false) => format!(
                "expected the bot to ask for {item:?} ({}); reply: {}",
                unsure(&rule),
                excerpt(&turn.text)
            ),
            (RuleVerdict::No, _) => format!(
                "expected the bot to ask for {item:?} (rule: no question about it); reply: {}",
                excerpt(&turn.text)
            ),
        };
        (ok, mark(message, rule.is_unsure()))
    }

    fn warn_check(&self, turn: &BotTurn, turn_no: usize, topic: &Topic) -> (bool, String) {
        let item = topic.topic.as_str();
        if let Some(v) = self.verdict(CheckKind::ShouldWarn, Some(item), turn_no) {
            return judged(v.holds, &format!("warns about {item:?}"), &v.reason);
        }
        if turn.signals.is_declared() {
            let ok = turn.signals.warnings.iter().any(|s| same_topic(s, topic));
            let seen = format!("{:?}", turn.signals.warnings);
            return if ok {
                (
                    true,
                    format!("bot warns about {item:?} (signal: warnings {seen})"),
                )
            } else {
                (
                    false,
                    format!("expected a warning about {item:?} (signal: warnings {seen})"),
                )
            };
        }
        let rule = classifier::warns(&turn.text, item, &topic.synonyms);
        let ok = rule.decision();
        let message = match (&rule.verdict, ok) {
            (RuleVerdict::Yes, _) => {
                format!("bot warns about {item:?} (rule: {:?})", rule.evidence)
            }
            (RuleVerdict::Unsure, true) => format!("bot warns about {item:?} ({})", unsure(&rule)),
            (RuleVerdict::Unsure, false) => format!(
                "expected a warning about {item:?} ({}); reply: {}",
                unsure(&rule),
                excerpt(&turn.text)
            ),
            (RuleVerdict::No, _) => format!(
                "expected a warning about {item:?} (rule: none found); reply: {}",
                excerpt(&turn.text)
            ),
        };
        (ok, mark(message, rule.is_unsure()))
    }

    fn reject_check(&self, turn: &BotTurn, turn_no: usize, expected: bool) -> (bool, String) {
        let want = if expected { "a refusal" } else { "no refusal" };
        let mut rule = None;
        let (refused, how) = if let Some(v) = self.verdict(CheckKind::ShouldReject, None, turn_no) {
            (v.holds, format!("llm judge: {}", v.reason))
        } else if !turn.plan.is_empty() {
            // Calls are evidence: a plan that acts is no refusal, whatever type, signal or text
            // it declares.
            (
                false,
                format!(
                    "the plan calls {}: acting is no refusal",
                    plan_names(&turn.plan)
                ),
            )
        } else if let Some(rejected) = turn.signals.rejected {
            (rejected, format!("signal: rejected = {rejected}"))
        } else if declared_rejection(turn) {
            (true, "declared response type rejection".to_owned())
        } else if turn.signals.is_declared() {
            // A bot that sends signals declares them all: no `rejected` means it did not refuse.
            (
                false,
                "signal: rejected absent from the declared signals".to_owned(),
            )
        } else {
            let outcome = classifier::refuses(&turn.text);
            let how = match outcome.verdict {
                RuleVerdict::Yes => format!("rule: {:?}", outcome.evidence),
                RuleVerdict::No => "rule: no refusal found".to_owned(),
                RuleVerdict::Unsure => unsure(&outcome),
            };
            let decided = outcome.decision();
            rule = Some(outcome);
            (decided, how)
        };
        let seen = if refused {
            "the bot refused"
        } else {
            "the bot did not refuse"
        };
        let ok = refused == expected;
        let message = if ok {
            format!("{seen} ({how})")
        } else {
            format!(
                "expected {want}, but {seen} ({how}); reply: {}",
                excerpt(&turn.text)
            )
        };
        (ok, mark(message, rule.is_some_and(|r| r.is_unsure())))
    }
}

/// Appended to a check's message when an unsure text rule decided it; [`Ctx::set`] moves it
/// into [`Check::low_confidence`]. A NUL never occurs in a message otherwise (replies are quoted
/// with escapes).
const LOW_CONFIDENCE: &str = "\u{0}low confidence";

const NOT_EVALUATED: &str = "not evaluated: this check runs a program or asks a model, which \
     the bot-test runner does (scoring alone cannot)";

/// The verdict of a user's own check from its answer: an error or no answer is "could not be
/// evaluated" (a failed check that `not` does not turn into a pass).
fn custom_verdict(outcome: Option<&CustomOutcome>) -> (Verdict, String) {
    match outcome {
        Some(CustomOutcome::Verdict {
            passed,
            score,
            reason,
        }) => {
            let head = if *passed { "passed" } else { "failed" };
            let score = score
                .map(|s| format!(" (score {s:.3})"))
                .unwrap_or_default();
            (
                Verdict::from_bool(*passed),
                format!("{head}{score}: {reason}"),
            )
        }
        Some(CustomOutcome::Error(reason)) => (
            Verdict::Unknown,
            format!("could not be evaluated: {reason}"),
        ),
        None => (Verdict::Unknown, NOT_EVALUATED.to_owned()),
    }
}

fn mark(message: String, unsure: bool) -> String {
    if unsure {
        message + LOW_CONFIDENCE
    } else {
        message
    }
}

/// How an unsure rule decided, for the message.
fn unsure(rule: &RuleOutcome) -> String {
    format!(
        "rule unsure: {}; decided {}",
        rule.evidence,
        if rule.fallback { "yes" } else { "no" }
    )
}

fn judged(holds: bool, what: &str, reason: &str) -> (bool, String) {
    if holds {
        (true, format!("bot {what} (llm judge: {reason})"))
    } else {
        (
            false,
            format!(
                "expected the bot to {} (llm judge: {reason})",
                what.replacen("s ", " ", 1)
            ),
        )
    }
}

pub(crate) fn eq_fold(a: &str, b: &str) -> bool {
    fold(a) == fold(b)
}

/// Whether a signal names the topic: the topic itself or one of the suite's synonyms for it,
/// caselessly, with `_`/`-` read as spaces.
fn same_topic(signal: &str, topic: &Topic) -> bool {
    let norm = |s: &str| fold(s).replace(['_', '-'], " ");
    let signal = norm(signal);
    std::iter::once(&topic.topic)
        .chain(&topic.synonyms)
        .any(|name| norm(name) == signal)
}

fn call_name(step: &PlanStep) -> String {
    if step.agent.is_empty() {
        step.function.clone()
    } else {
        format!("{}.{}", step.agent, step.function)
    }
}

fn describe_plan(plan: &[PlanStep], text: &str) -> String {
    if plan.is_empty() {
        format!("plan is empty; reply: {}", excerpt(text))
    } else {
        format!(
            "plan calls {}",
            plan.iter().map(call_name).collect::<Vec<_>>().join(", ")
        )
    }
}

fn function_check(turn: &BotTurn, name: &str, agent: Option<&str>) -> (bool, String) {
    let hit = turn
        .plan
        .iter()
        .find(|s| same_function(&s.function, name) && agent.is_none_or(|a| eq_fold(&s.agent, a)));
    match hit {
        Some(step) => (true, format!("plan calls {}", call_name(step))),
        None => {
            let target = agent.map_or_else(|| name.to_owned(), |a| format!("{a}.{name}"));
            let msg = format!(
                "expected a call of {target}, {}",
                describe_plan(&turn.plan, &turn.text)
            );
            let maybe = turn
                .plan
                .iter()
                .position(|s| same_function(&s.function, name) && agentless(s));
            match (agent, maybe) {
                (Some(agent), Some(i)) => (false, agentless_doubt(msg, i, agent)),
                _ => (false, msg),
            }
        }
    }
}

/// A call that names no agent: it may be on any agent, so it matches an expected agent only
/// possibly (review 25i: `not: {expectedFunction: f, expectedAgent: a}`,
/// `not: {expectedCalls: [{function: f, agent: a}]}` and `not: {expectedParams: …}` scoped to an
/// agent passed surely where an agent-less call of `f` may be `a`'s).
fn agentless(step: &PlanStep) -> bool {
    step.agent.trim().is_empty()
}

/// A failure that an agent-less call (plan index `i`) may undo: said, and marked low-confidence.
fn agentless_doubt(msg: String, i: usize, agent: &str) -> String {
    mark(
        format!(
            "{msg}; call {} names no agent, so it may be on {agent:?}",
            i + 1
        ),
        true,
    )
}

/// Whether the bot declared its reply a rejection.
fn declared_rejection(turn: &BotTurn) -> bool {
    turn.response_type == Some(ResponseType::Rejection)
}

/// The plan's calls by name, for messages.
fn plan_names(plan: &[PlanStep]) -> String {
    plan.iter().map(call_name).collect::<Vec<_>>().join(", ")
}

/// The declared response type, else one inferred from the plan and the text rules (how it was
/// decided is marked low-confidence when the refusal rule was unsure). The plan is evidence and
/// a declaration never overrides it (review 25l): a plan with calls is an action whatever type
/// is declared, and a declared action with an empty plan is inferred like an undeclared reply.
fn response_type(turn: &BotTurn) -> (ResponseType, String) {
    let mut declared_action = false;
    if let Some(declared) = turn.response_type {
        if declared != ResponseType::Action && !turn.plan.is_empty() {
            return (
                ResponseType::Action,
                format!(
                    "declared {}, but the plan calls {}: read as an action",
                    declared.as_str(),
                    plan_names(&turn.plan)
                ),
            );
        }
        if declared != ResponseType::Action || !turn.plan.is_empty() {
            return (declared, "declared by the bot".to_owned());
        }
        declared_action = true;
    }
    let (inferred, how) = inferred_response_type(turn);
    if declared_action {
        return (
            inferred,
            format!("declared action, but the plan has no call: {how}"),
        );
    }
    (inferred, how)
}

/// The response type inferred from the plan, the signals and the text rules.
fn inferred_response_type(turn: &BotTurn) -> (ResponseType, String) {
    if !turn.plan.is_empty() {
        return (
            ResponseType::Action,
            "inferred: the plan has calls".to_owned(),
        );
    }
    if turn.signals.rejected == Some(true) {
        return (
            ResponseType::Rejection,
            "inferred from signal: rejected".to_owned(),
        );
    }
    if !turn.signals.asks_for.is_empty() {
        return (
            ResponseType::Clarification,
            "inferred from signal: asks_for".to_owned(),
        );
    }
    if turn.signals.is_declared() {
        // A bot that sends `signals` declares them all: neither rule reads its text.
        return (
            ResponseType::Text,
            "inferred from the declared signals: no rejected, no asks_for".to_owned(),
        );
    }
    let refusal = classifier::refuses(&turn.text);
    if refusal.decision() {
        let how = match refusal.verdict {
            RuleVerdict::Unsure => format!("inferred by {}", unsure(&refusal)),
            _ => format!("inferred by rule: {:?}", refusal.evidence),
        };
        return (ResponseType::Rejection, mark(how, refusal.is_unsure()));
    }
    let doubt = refusal.is_unsure();
    if let Some(s) = rules::asks_question(&turn.text) {
        return (
            ResponseType::Clarification,
            mark(format!("inferred by rule: {s:?}"), doubt),
        );
    }
    (
        ResponseType::Text,
        mark(
            "inferred: no plan, no question, no refusal".to_owned(),
            doubt,
        ),
    )
}

/// Why a scoped check cannot be judged, when its binding is undecidable.
fn undecided_scope(binding: &Binding<'_>) -> Option<String> {
    match binding {
        Binding::Free | Binding::Function(_) => None,
        Binding::Unbound => Some(
            "no function in scope (an expectedFunction, expectedCalls or callCount in this mapping \
             or the nearest enclosing `all`), though the scenario names one elsewhere: it is \
             unclear which call to judge"
                .to_owned(),
        ),
        Binding::Ambiguous(fs) => Some(format!(
            "several functions in scope ({}): it is unclear which call to judge",
            fs.join(", ")
        )),
    }
}

fn bound_function<'a>(binding: &Binding<'a>) -> Option<&'a str> {
    match binding {
        Binding::Function(f) => Some(f),
        _ => None,
    }
}

/// The calls of the function in scope (any call when none is named) use this agent.
fn agent_check(turn: &BotTurn, agent: &str, binding: &Binding<'_>) -> (bool, String) {
    let function = bound_function(binding);
    let calls: Vec<(usize, &PlanStep)> = turn
        .plan
        .iter()
        .enumerate()
        .filter(|(_, s)| function.is_none_or(|f| same_function(&s.function, f)))
        .collect();
    if let Some((i, step)) = calls.iter().find(|(_, s)| eq_fold(&s.agent, agent)) {
        return (
            true,
            format!("call {} {} uses agent {agent:?}", i + 1, call_name(step)),
        );
    }
    let msg = match (function, calls.is_empty()) {
        (Some(f), true) => format!(
            "expected a call of {f} on agent {agent:?}; {}",
            describe_plan(&turn.plan, &turn.text)
        ),
        (Some(f), false) => format!(
            "expected the call of {f} on agent {agent:?}; judged {}",
            calls
                .iter()
                .map(|(i, s)| format!("call {} {}", i + 1, call_name(s)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, _) => format!(
            "expected agent {agent:?}, {}",
            describe_plan(&turn.plan, &turn.text)
        ),
    };
    // A call that names no agent may be on it (review 25i: `not: {expectedAgent: payouts}`
    // passed surely on an agent-less call): the failure is low-confidence.
    match calls.iter().find(|(_, s)| agentless(s)) {
        Some((i, _)) => (false, agentless_doubt(msg, *i, agent)),
        None => (false, msg),
    }
}

/// All keys must hold on the same call; calls are limited to the function in scope and the
/// mapping's agent when given. The message names the call that was judged.
fn params_check(
    turn: &BotTurn,
    params: &[(String, Matcher)],
    function: Option<&str>,
    agent: Option<&str>,
) -> (bool, String) {
    let wanted = params
        .iter()
        .map(|(k, m)| format!("{k} {m}"))
        .collect::<Vec<_>>()
        .join(", ");
    let candidates: Vec<(usize, &PlanStep)> = turn
        .plan
        .iter()
        .enumerate()
        .filter(|(_, s)| function.is_none_or(|f| same_function(&s.function, f)))
        .filter(|(_, s)| agent.is_none_or(|a| eq_fold(&s.agent, a)))
        .collect();
    // An agent-less call of the function that meets every condition may be the agent's.
    let doubt = |msg: String| {
        let maybe = agent.and_then(|a| {
            let i = turn.plan.iter().position(|s| {
                agentless(s)
                    && function.is_none_or(|f| same_function(&s.function, f))
                    && params.iter().all(|(k, m)| m.test(s.params.get(k)))
            })?;
            Some((i, a))
        });
        match maybe {
            Some((i, a)) => agentless_doubt(msg, i, a),
            None => msg,
        }
    };
    if candidates.is_empty() {
        let scope = function.map(|f| format!(" of {f}")).unwrap_or_default();
        return (
            false,
            doubt(format!(
                "expected a call{scope} with {wanted}; {}",
                describe_plan(&turn.plan, &turn.text)
            )),
        );
    }
    let mut best: Option<(usize, &PlanStep, Vec<String>)> = None;
    for (i, step) in candidates {
        let misses: Vec<String> = params
            .iter()
            .filter(|(k, m)| !m.test(step.params.get(k)))
            .map(|(k, m)| match step.params.get(k) {
                Some(v) => match m.unreadable(Some(v)) {
                    Some(why) => format!("{k} is {v}, expected {m}: {why}"),
                    None => format!("{k} is {v}, expected {m}"),
                },
                None => format!("{k} is missing, expected {m}"),
            })
            .collect();
        if misses.is_empty() {
            let message = format!("call {} {} has {wanted}", i + 1, call_name(step));
            let look_alike = params.iter().find_map(|(k, m)| {
                let v = step.params.get(k)?;
                look_alike_of(m, v).map(|e| format!("; {k} is {v}, which looks like {e}"))
            });
            return match look_alike {
                Some(why) => (true, mark(message + &why, true)),
                None => (true, message),
            };
        }
        if best.as_ref().is_none_or(|(_, _, b)| misses.len() < b.len()) {
            best = Some((i, step, misses));
        }
    }
    let (step, misses) = best
        .map(|(i, s, m)| (format!("call {} {}", i + 1, call_name(s)), m))
        .unwrap_or_default();
    let scope = function.map(|f| format!(" of {f}")).unwrap_or_default();
    (
        false,
        doubt(format!(
            "expected one call{scope} with {wanted}; judged {step}: {}",
            misses.join("; ")
        )),
    )
}

/// For `ne` and `notIn`: the excluded value that `actual` (text) looks like without being it
/// ("mаllory" with a Cyrillic `а` for `notIn: [mallory]`, review 25j), by the look-alike
/// skeleton absence checks use ([`super::skeleton::skeleton`]). Such a pass is not sure.
fn look_alike_of<'m>(m: &'m Matcher, actual: &Value) -> Option<&'m Value> {
    let Value::String(text) = actual else {
        return None;
    };
    let excluded: &[Value] = match m {
        Matcher::Ne(value) => std::slice::from_ref(value),
        Matcher::NotIn(values) => values,
        _ => return None,
    };
    let seen = super::skeleton::skeleton(text);
    excluded.iter().find(|e| {
        matches!(e, Value::String(t) if !seen.is_empty() && super::skeleton::skeleton(t) == seen)
    })
}

/// A predicate over the turn as JSON. Without `*` it tests the one value (or its absence); with
/// `*` it tests each selected value (a value missing under a selected element counts as absent)
/// for every one or some one, and an empty selection fails with its reason.
fn validator_check(turn: &BotTurn, pred: &Predicate) -> (bool, String) {
    let doc = match serde_json::to_value(turn) {
        Ok(v) => v,
        Err(e) => return (false, format!("turn could not be read as JSON: {e}")),
    };
    let label = pred.label();
    // A call's function name compares as every call check compares it: exactly.
    let function_name = {
        let segs: Vec<&str> = pred.path.split('/').collect();
        matches!(segs.as_slice(), ["", "plan", _, "function"])
    };
    let test = |v: Option<&Value>| {
        if function_name {
            pred.matcher.test_identifier(v)
        } else {
            pred.matcher.test(v)
        }
    };
    let Some(selected) = resolve(&doc, &pred.path) else {
        // No `*`: one value, possibly missing.
        let found = pointer(&doc, &pred.path);
        let seen = found.map_or_else(|| "missing".to_owned(), ToString::to_string);
        return if test(found) {
            (
                true,
                format!("{} {} holds (value: {seen})", pred.path, pred.matcher),
            )
        } else {
            (false, format!("expected {label}; {} is {seen}", pred.path))
        };
    };
    if selected.is_empty() {
        return (
            false,
            format!(
                "expected {label}; {} selects no value (an empty selection never passes)",
                pred.path
            ),
        );
    }
    let show = |(path, v): &(String, Option<&Value>)| {
        format!(
            "{path} = {}",
            v.map_or_else(|| "missing".to_owned(), ToString::to_string)
        )
    };
    match pred.quantifier {
        Quantifier::Every => {
            let failing: Vec<String> = selected
                .iter()
                .filter(|(_, v)| !test(*v))
                .map(show)
                .collect();
            if failing.is_empty() {
                (
                    true,
                    format!(
                        "every {} {} holds ({} values)",
                        pred.path,
                        pred.matcher,
                        selected.len()
                    ),
                )
            } else {
                (
                    false,
                    format!(
                        "expected {label} for every value; fails for {} of {}: {}",
                        failing.len(),
                        selected.len(),
                        failing.join(", ")
                    ),
                )
            }
        }
        Quantifier::Some => match selected.iter().find(|(_, v)| test(*v)) {
            Some(hit) => (
                true,
                format!("some {} {} holds: {}", pred.path, pred.matcher, show(hit)),
            ),
            None => (
                false,
                format!(
                    "expected {label} for some value; none of {} does: {}",
                    selected.len(),
                    selected.iter().map(show).collect::<Vec<_>>().join(", ")
                ),
            ),
        },
    }
}

fn unescape(raw: &str) -> String {
    raw.replace("~1", "/").replace("~0", "~")
}

/// `shouldContain`: the needle where a reader sees it ([`matcher::contains_at_word_start`]) in
/// the text a reader sees ([`view::visible`]), every run of whitespace as one space on both sides.
fn contain_check(turn: &BotTurn, needle: &str) -> (bool, String) {
    let seen = view::one_space(&fold(&view::visible(&turn.text)));
    let ok = matcher::contains_at_word_start(&seen, &view::one_space(&fold(needle)));
    let msg = if ok {
        format!("reply contains {needle:?}")
    } else {
        format!(
            "expected the reply to contain {needle:?}; reply: {}",
            excerpt(&turn.text)
        )
    };
    (ok, msg)
}

/// `shouldNotContain`: a leak counts as found as [`skeleton::leaks`] says.
fn not_contain_check(turn: &BotTurn, needle: &str) -> (bool, String) {
    let found = skeleton::leaks(&turn.text, needle);
    let msg = if found {
        format!(
            "expected the reply not to contain {needle:?}; reply: {}",
            excerpt_around(&turn.text, needle)
        )
    } else {
        format!("reply does not contain {needle:?}")
    };
    (!found, msg)
}

fn step_into<'v>(v: &'v Value, seg: &str) -> Option<&'v Value> {
    match v {
        // RFC 6901: an array index is `0` or digits without a leading zero or sign, so
        // `/plan/01` and `/plan/+1` select nothing (`usize`'s parser takes both as 1).
        Value::Array(items) => {
            let index =
                seg.bytes().all(|b| b.is_ascii_digit()) && (seg == "0" || !seg.starts_with('0'));
            index
                .then(|| seg.parse::<usize>().ok())
                .flatten()
                .and_then(|i| items.get(i))
        }
        Value::Object(map) => map.get(seg),
        _ => None,
    }
}

/// The value at a pointer without `*` segments.
fn pointer<'v>(doc: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('/')
        .skip(1)
        .try_fold(doc, |v, raw| step_into(v, &unescape(raw)))
}

/// For a pointer with `*` segments, each selected element's concrete path and the value under
/// it (`None` when it lacks the rest of the path); `None` for a pointer without `*`.
fn resolve<'v>(doc: &'v Value, path: &str) -> Option<Vec<(String, Option<&'v Value>)>> {
    let segs: Vec<String> = path.split('/').skip(1).map(unescape).collect();
    if !segs.iter().any(|s| s == "*") {
        return None;
    }
    let mut current: Vec<(String, Option<&Value>)> = vec![(String::new(), Some(doc))];
    for seg in &segs {
        let mut next = Vec::new();
        for (at, v) in current {
            if seg == "*" {
                // A `*` ranges over what is there; a missing container selects nothing.
                match v {
                    Some(Value::Array(items)) => next.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| (format!("{at}/{i}"), Some(item))),
                    ),
                    Some(Value::Object(map)) => next.extend(
                        map.iter()
                            .map(|(k, item)| (format!("{at}/{k}"), Some(item))),
                    ),
                    _ => {}
                }
            } else {
                next.push((format!("{at}/{seg}"), v.and_then(|v| step_into(v, seg))));
            }
        }
        current = next;
    }
    Some(current)
}

/// Whether `step` is the call `spec` describes; `lenient` lets a call that names no agent stand
/// for any agent ([`agentless`]).
fn call_matches(spec: &CallSpec, step: &PlanStep, lenient: bool) -> bool {
    same_function(&step.function, &spec.function)
        && spec
            .agent
            .as_deref()
            .is_none_or(|a| eq_fold(&step.agent, a) || (lenient && agentless(step)))
        && spec.params.iter().all(|(k, m)| m.test(step.params.get(k)))
}

fn numbered(plan: &[PlanStep], indexes: &[usize]) -> String {
    indexes
        .iter()
        .map(|i| format!("call {} {}", i + 1, call_name(&plan[*i])))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every call of the plan is of a function expected at this turn.
fn only_expected_check(turn: &BotTurn, allowed: &[Expected<'_>]) -> (bool, String) {
    let extra: Vec<usize> = (0..turn.plan.len())
        .filter(|i| {
            let call = &turn.plan[*i];
            !allowed
                .iter()
                .any(|e| e.allows(&call.function, &call.agent))
        })
        .collect();
    let expected = if allowed.is_empty() {
        "none".to_owned()
    } else {
        allowed
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if extra.is_empty() {
        (
            true,
            format!(
                "no call beyond the expected ones ({expected}); {}",
                describe_plan(&turn.plan, &turn.text)
            ),
        )
    } else {
        // An extra call that names no agent, of a function expected on some agent, may be that
        // agent's: the failure is low-confidence.
        let maybe = extra.iter().all(|i| {
            let call = &turn.plan[*i];
            agentless(call)
                && allowed
                    .iter()
                    .any(|e| same_function(e.function, &call.function))
        });
        let msg = format!(
            "unexpected {} (expected only: {expected})",
            numbered(&turn.plan, &extra)
        );
        let msg = if maybe {
            mark(
                format!("{msg}; the calls name no agent, so they may be the expected ones"),
                true,
            )
        } else {
            msg
        };
        (false, msg)
    }
}

/// Each listed call is matched to its own plan call ([`assign_calls`]): in order or in any order
/// (a maximum bipartite matching). A failure that calls naming no agent may undo is low-confidence.
fn calls_check(turn: &BotTurn, calls: &[CallSpec], order: CallOrder) -> (bool, String) {
    let plan = &turn.plan;
    let assigned = assign_calls(calls, plan, order, false);
    let wanted = calls
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let how = match order {
        CallOrder::Strict => "in this order",
        CallOrder::Any => "in any order",
    };
    let missing: Vec<String> = calls
        .iter()
        .zip(&assigned)
        .filter(|(_, a)| a.is_none())
        .map(|(spec, _)| {
            let elsewhere = plan.iter().any(|s| call_matches(spec, s, false));
            if elsewhere && order == CallOrder::Strict {
                format!("{spec} (present, but out of order)")
            } else {
                spec.to_string()
            }
        })
        .collect();
    if missing.is_empty() {
        let found: Vec<usize> = assigned.into_iter().flatten().collect();
        (
            true,
            format!("plan has [{wanted}] {how}: {}", numbered(plan, &found)),
        )
    } else {
        let msg = format!(
            "expected calls [{wanted}] {how}; missing: {}; {}",
            missing.join(", "),
            describe_plan(plan, &turn.text)
        );
        // With agent-less calls standing for any agent, the expected calls may all be there.
        let maybe = assign_calls(calls, plan, order, true)
            .iter()
            .all(Option::is_some);
        let msg = if maybe {
            mark(
                format!("{msg}; calls that name no agent may be the missing ones"),
                true,
            )
        } else {
            msg
        };
        (false, msg)
    }
}

/// The plan call each expected call is matched to, if any: in order (greedy earliest match, which
/// finds an ordered match whenever one exists) or in any order ([`match_any_order`]).
fn assign_calls(
    calls: &[CallSpec],
    plan: &[PlanStep],
    order: CallOrder,
    lenient: bool,
) -> Vec<Option<usize>> {
    match order {
        CallOrder::Strict => {
            let mut next = 0;
            calls
                .iter()
                .map(|spec| {
                    let hit = (next..plan.len()).find(|i| call_matches(spec, &plan[*i], lenient));
                    if let Some(i) = hit {
                        next = i + 1;
                    }
                    hit
                })
                .collect()
        }
        CallOrder::Any => match_any_order(calls, plan, lenient),
    }
}

/// Kuhn's augmenting paths: each expected call gets a distinct plan call when possible.
fn match_any_order(calls: &[CallSpec], plan: &[PlanStep], lenient: bool) -> Vec<Option<usize>> {
    fn augment(
        c: usize,
        fits: &[Vec<usize>],
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for &p in &fits[c] {
            if seen[p] {
                continue;
            }
            seen[p] = true;
            if owner[p].is_none_or(|other| augment(other, fits, owner, seen)) {
                owner[p] = Some(c);
                return true;
            }
        }
        false
    }
    let fits: Vec<Vec<usize>> = calls
        .iter()
        .map(|spec| {
            (0..plan.len())
                .filter(|i| call_matches(spec, &plan[*i], lenient))
                .collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; plan.len()];
    for c in 0..calls.len() {
        augment(c, &fits, &mut owner, &mut vec![false; plan.len()]);
    }
    let mut assigned = vec![None; calls.len()];
    for (p, c) in owner.iter().enumerate() {
        if let Some(c) = c {
            assigned[*c] = Some(p);
        }
    }
    assigned
}

/// The count of `count`'s calls. A call that names no agent may be the named agent's (review
/// 25h: `{function: send_money, agent: transfers, max: 0}` passed on an agent-less
/// `send_money`): `min` holds only on the calls that name the agent, `max` only with the
/// agent-less ones counted too, and a verdict those two counts disagree on is low-confidence.
fn count_check(turn: &BotTurn, count: &CallCount) -> (bool, String) {
    let of_function = |s: &&PlanStep| {
        count
            .function
            .as_deref()
            .is_none_or(|f| same_function(&s.function, f))
    };
    let n = turn
        .plan
        .iter()
        .filter(of_function)
        .filter(|s| count.agent.as_deref().is_none_or(|a| eq_fold(&s.agent, a)))
        .count() as u64;
    let agentless = match count.agent {
        Some(_) => turn
            .plan
            .iter()
            .filter(of_function)
            .filter(|s| s.agent.trim().is_empty())
            .count() as u64,
        None => 0,
    };
    let min_ok = |k: u64| count.min.is_none_or(|lo| k >= lo);
    let max_ok = |k: u64| count.max.is_none_or(|hi| k <= hi);
    let ok = min_ok(n) && max_ok(n + agentless);
    let unsure = ok != (min_ok(n + agentless) && max_ok(n));
    let verb = if ok { "holds" } else { "fails" };
    let counted = if agentless == 0 {
        format!("counted {n}")
    } else {
        format!(
            "counted {n}, and {agentless} call(s) that name no agent, which may be {:?}'s",
            count.agent.as_deref().unwrap_or_default()
        )
    };
    let message = format!(
        "{} {verb}: {counted}; {}",
        count.label(),
        describe_plan(&turn.plan, &turn.text)
    );
    (ok, mark(message, unsure))
}

/// Every call names a declared function and its parameters are valid for its schema; a plan
/// without calls has nothing valid to show and fails.
fn valid_params_check(turn: &BotTurn, functions: Option<&FunctionSchemas>) -> (bool, String) {
    let Some(functions) = functions.filter(|f| !f.is_empty()) else {
        return (
            false,
            "the suite declares no functions (bot.agents) to validate the calls against".to_owned(),
        );
    };
    if turn.plan.is_empty() {
        return (
            false,
            format!(
                "no call to validate (an empty plan never passes); reply: {}",
                excerpt(&turn.text)
            ),
        );
    }
    let problems: Vec<String> = turn
        .plan
        .iter()
        .enumerate()
        .filter_map(|(i, step)| {
            functions
                .check_call(step)
                .err()
                .map(|errs| format!("call {} {}: {}", i + 1, call_name(step), errs.join("; ")))
        })
        .collect();
    if problems.is_empty() {
        (
            true,
            format!(
                "the parameters of {} call(s) match their declared schemas",
                turn.plan.len()
            ),
        )
    } else {
        (false, problems.join(" | "))
    }
}

/// How a `not` over one check that holds words its failure.
const HOLDS_PREFIX: &str = "expected it not to hold, but it does: ";
/// How a `not` over one check that fails words its pass.
const NOT_HOLDS_PREFIX: &str = "does not hold, as required: ";
