//! Evaluation of an expectation tree against a transcript: one [`Check`] per leaf, named and
//! worded as in the seed's Check Details. Pure: the same inputs always give the same checks.
//!
//! How each check decides is part of its message: askFor/warn/reject say `(signal)` when the bot
//! gave structured signals, `(llm judge)` when a judge verdict was supplied, and `(rule)` when the
//! keyword rules of [`super::rules`] decided. A turn whose adapter failed fails every check aimed at
//! it, and an extra critical `botError` check records each failed turn, so an error is never a pass.

use serde_json::Value;

use super::rules;
use super::{
    CheckSet, CheckSpec, Expect, Expectations, JudgeQuestion, JudgeVerdicts, Matcher, Predicate,
    Topic, TurnSel, excerpt,
};
use crate::check::{Check, CheckKind};
use crate::transcript::{BotTurn, PlanStep, ResponseType, Transcript};

/// Evaluates `exp` against the transcript, with judge verdicts for the askFor/warn/reject
/// checks that have one (pass [`JudgeVerdicts::default`] for none).
#[must_use]
pub fn evaluate(exp: &Expectations, t: &Transcript, verdicts: &JudgeVerdicts) -> Vec<Check> {
    let ctx = Ctx { exp, t, verdicts };
    let mut checks = ctx.node(&exp.root);
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
                .critical(),
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
            .critical(),
        );
    }
    tracing::debug!(checks = checks.len(), "evaluated expectations");
    checks
}

/// The questions an LLM judge should answer for this transcript: one per askFor/warn/reject
/// item and targeted turn (every turn for `turn: any`). Ids match what [`evaluate`] looks up.
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
            items
                .iter()
                .for_each(|n| collect_questions(n, turn, t, out));
        }
        Expect::Not(inner) => collect_questions(inner, turn, t, out),
        Expect::Checks(set) => {
            let sel = set.turn.or(turn).unwrap_or(TurnSel::Last);
            for spec in &set.checks {
                let items: Vec<(CheckKind, Option<&str>)> = match spec {
                    CheckSpec::ShouldAskFor(v) => v
                        .iter()
                        .map(|s| (CheckKind::ShouldAskFor, Some(s.as_str())))
                        .collect(),
                    CheckSpec::ShouldWarn(v) => v
                        .iter()
                        .map(|s| (CheckKind::ShouldWarn, Some(s.as_str())))
                        .collect(),
                    CheckSpec::ShouldReject(_) => vec![(CheckKind::ShouldReject, None)],
                    _ => continue,
                };
                for index in targeted(sel, t.turns.len()) {
                    let Some((user, bot)) = t.turns.get(index) else {
                        continue;
                    };
                    for (kind, subject) in &items {
                        let id = question_id(*kind, *subject, index + 1);
                        if out.iter().any(|q| q.id == id) {
                            continue;
                        }
                        out.push(JudgeQuestion {
                            id,
                            kind: *kind,
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

fn question_id(kind: CheckKind, subject: Option<&str>, turn: usize) -> String {
    match subject {
        Some(s) => format!("{kind}:{}@{turn}", s.trim().to_lowercase()),
        None => format!("{kind}@{turn}"),
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

struct Ctx<'a> {
    exp: &'a Expectations,
    t: &'a Transcript,
    verdicts: &'a JudgeVerdicts,
}

/// One leaf check before it is aimed at a turn.
enum Leaf<'a> {
    Function {
        name: &'a str,
        agent: Option<&'a str>,
    },
    Type(ResponseType),
    Agent(&'a str),
    Params {
        params: &'a [(String, Matcher)],
        function: Option<&'a str>,
        agent: Option<&'a str>,
    },
    AskFor(&'a str),
    Warn(&'a str),
    Reject(bool),
    Validator(&'a Predicate),
    Contain(&'a str),
    NotContain(&'a str),
    Mention(&'a Topic),
}

impl Leaf<'_> {
    fn kind(&self) -> CheckKind {
        match self {
            Self::Function { .. } => CheckKind::ExpectedFunction,
            Self::Type(_) => CheckKind::ResponseType,
            Self::Agent(_) => CheckKind::ExpectedAgent,
            Self::Params { .. } => CheckKind::ExpectedParams,
            Self::AskFor(_) => CheckKind::ShouldAskFor,
            Self::Warn(_) => CheckKind::ShouldWarn,
            Self::Reject(_) => CheckKind::ShouldReject,
            Self::Validator(_) => CheckKind::CustomValidator,
            Self::Contain(_) => CheckKind::ShouldContain,
            Self::NotContain(_) => CheckKind::ShouldNotContain,
            Self::Mention(_) => CheckKind::ShouldMention,
        }
    }

    /// The seed's display name: `expectedFunction`, `shouldContain: "fee"`, …
    fn name(&self) -> String {
        let kind = self.kind();
        match self {
            Self::AskFor(s) | Self::Warn(s) | Self::Contain(s) | Self::NotContain(s) => {
                format!("{kind}: {s:?}")
            }
            Self::Mention(topic) => format!("{kind}: {:?}", topic.topic),
            Self::Validator(p) => format!("{kind}: {:?}", p.label()),
            _ => kind.to_string(),
        }
    }
}

fn leaves(set: &CheckSet) -> Vec<Leaf<'_>> {
    let mut out = Vec::new();
    for spec in &set.checks {
        match spec {
            CheckSpec::ExpectedFunction(f) => out.push(Leaf::Function {
                name: f,
                agent: set.agent(),
            }),
            CheckSpec::ResponseType(r) => out.push(Leaf::Type(*r)),
            CheckSpec::ExpectedAgent(a) => out.push(Leaf::Agent(a)),
            CheckSpec::ExpectedParams(p) => out.push(Leaf::Params {
                params: p,
                function: set.function(),
                agent: set.agent(),
            }),
            CheckSpec::ShouldAskFor(v) => out.extend(v.iter().map(|s| Leaf::AskFor(s))),
            CheckSpec::ShouldWarn(v) => out.extend(v.iter().map(|s| Leaf::Warn(s))),
            CheckSpec::ShouldReject(b) => out.push(Leaf::Reject(*b)),
            CheckSpec::CustomValidator(v) => out.extend(v.iter().map(Leaf::Validator)),
            CheckSpec::ShouldContain(v) => out.extend(v.iter().map(|s| Leaf::Contain(s))),
            CheckSpec::ShouldNotContain(v) => out.extend(v.iter().map(|s| Leaf::NotContain(s))),
            CheckSpec::ShouldMention(v) => out.extend(v.iter().map(Leaf::Mention)),
        }
    }
    out
}

impl Ctx<'_> {
    fn node(&self, node: &Expect) -> Vec<Check> {
        match node {
            Expect::Checks(set) => self.set(set),
            Expect::All(items) => items.iter().flat_map(|n| self.node(n)).collect(),
            Expect::Any(items) => self.any(items),
            Expect::Not(inner) => self.not(inner),
        }
    }

    /// `any` is scored as its best branch (highest weighted score, then most checks passed, then
    /// first written), so a satisfied `any` contributes only passing checks.
    fn any(&self, items: &[Expect]) -> Vec<Check> {
        let branches: Vec<Vec<Check>> = items.iter().map(|n| self.node(n)).collect();
        let rank = |checks: &Vec<Check>| {
            let total: u64 = checks.iter().map(|c| u64::from(c.weight)).sum();
            let got: u64 = checks
                .iter()
                .filter(|c| c.passed)
                .map(|c| u64::from(c.weight))
                .sum();
            let all_passed = checks.iter().all(|c| c.passed);
            // Compare got/total as fractions without floats: got * 1_000_000 / total.
            let score = (got * 1_000_000)
                .checked_div(total)
                .unwrap_or(u64::from(all_passed) * 1_000_000);
            (
                all_passed,
                score,
                checks.iter().filter(|c| c.passed).count(),
            )
        };
        let mut best = 0;
        for (i, b) in branches.iter().enumerate().skip(1) {
            if rank(b) > rank(&branches[best]) {
                best = i;
            }
        }
        let n = branches.len();
        branches
            .into_iter()
            .nth(best)
            .unwrap_or_default()
            .into_iter()
            .map(|mut c| {
                c.message = format!("{} [any: branch {} of {n}, the best]", c.message, best + 1);
                c
            })
            .collect()
    }

    fn not(&self, inner: &Expect) -> Vec<Check> {
        let checks = self.node(inner);
        match checks.as_slice() {
            [] => Vec::new(),
            [one] => vec![Check {
                name: format!("not {}", one.name),
                passed: !one.passed,
                message: if one.passed {
                    format!("expected it not to hold, but it does: {}", one.message)
                } else {
                    format!("does not hold, as required: {}", one.message)
                },
                ..one.clone()
            }],
            many => {
                // The inverse of a conjunction is one check: it passes when any inner check fails.
                let heaviest = many.iter().max_by_key(|c| c.weight).unwrap_or(&many[0]);
                let names: Vec<&str> = many.iter().map(|c| c.name.as_str()).collect();
                let held: Vec<&str> = many
                    .iter()
                    .filter(|c| c.passed)
                    .map(|c| c.name.as_str())
                    .collect();
                vec![Check {
                    kind: heaviest.kind,
                    name: format!("not ({})", names.join(", ")),
                    weight: heaviest.weight,
                    passed: held.len() < many.len(),
                    message: format!(
                        "expected not all of [{}] to hold; held: [{}]",
                        names.join(", "),
                        held.join(", ")
                    ),
                    critical: many.iter().any(|c| c.critical),
                }]
            }
        }
    }

    fn set(&self, set: &CheckSet) -> Vec<Check> {
        let sel = set.turn.unwrap_or(TurnSel::Last);
        leaves(set)
            .into_iter()
            .map(|leaf| {
                let kind = leaf.kind();
                let mut name = leaf.name();
                if let Some(explicit) = set.turn.filter(|s| *s != TurnSel::Last) {
                    name = format!("{name} @{explicit}");
                }
                let (passed, message) = self.aim(&leaf, sel);
                let weight = set
                    .weight
                    .or_else(|| self.exp.defaults.weights.get(&kind).copied())
                    .unwrap_or_else(|| kind.default_weight());
                let critical = set
                    .critical
                    .unwrap_or_else(|| self.exp.defaults.critical.contains(&kind));
                Check {
                    kind,
                    name,
                    weight,
                    passed,
                    message,
                    critical,
                }
            })
            .collect()
    }

    /// Evaluates a leaf on the selected turn(s).
    fn aim(&self, leaf: &Leaf<'_>, sel: TurnSel) -> (bool, String) {
        let turns = &self.t.turns;
        match sel {
            TurnSel::Any => {
                let mut last_failure = None;
                for (i, (_, turn)) in turns.iter().enumerate() {
                    let (ok, msg) = self.on_turn(leaf, turn, i + 1);
                    if ok {
                        return (true, format!("turn {}: {msg}", i + 1));
                    }
                    last_failure = Some(msg);
                }
                match last_failure {
                    Some(msg) => (false, format!("no turn satisfies it; last turn: {msg}")),
                    None => (false, "the conversation has no turns".to_owned()),
                }
            }
            TurnSel::Index(n) => match turns.get(n.saturating_sub(1)) {
                Some((_, turn)) => {
                    let (ok, msg) = self.on_turn(leaf, turn, n);
                    (ok, format!("turn {n}: {msg}"))
                }
                None => (
                    false,
                    format!(
                        "turn {n} was not reached (the conversation has {} turns)",
                        turns.len()
                    ),
                ),
            },
            TurnSel::Last => match turns.last() {
                Some((_, turn)) => self.on_turn(leaf, turn, turns.len()),
                None => (false, "the conversation has no turns".to_owned()),
            },
        }
    }

    fn on_turn(&self, leaf: &Leaf<'_>, turn: &BotTurn, turn_no: usize) -> (bool, String) {
        if let Some(reason) = &turn.error {
            return (false, format!("the bot gave no reply: {reason}"));
        }
        match leaf {
            Leaf::Function { name, agent } => function_check(turn, name, *agent),
            Leaf::Agent(agent) => {
                let ok = turn.plan.iter().any(|s| eq_fold(&s.agent, agent));
                let msg = if ok {
                    format!("plan uses agent {agent:?}")
                } else {
                    format!(
                        "expected agent {agent:?}, {}",
                        describe_plan(&turn.plan, &turn.text)
                    )
                };
                (ok, msg)
            }
            Leaf::Type(expected) => {
                let (actual, how) = response_type(turn);
                let ok = actual == *expected;
                let msg = if ok {
                    format!("response type {actual} ({how})")
                } else {
                    format!("expected {expected}, got {actual} ({how})")
                };
                (ok, msg)
            }
            Leaf::Params {
                params,
                function,
                agent,
            } => params_check(turn, params, *function, *agent),
            Leaf::AskFor(item) => self.ask_check(turn, turn_no, item),
            Leaf::Warn(item) => self.warn_check(turn, turn_no, item),
            Leaf::Reject(expected) => self.reject_check(turn, turn_no, *expected),
            Leaf::Validator(pred) => validator_check(turn, pred),
            Leaf::Contain(needle) => {
                let ok = turn.text.to_lowercase().contains(&needle.to_lowercase());
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
            Leaf::NotContain(needle) => {
                let found = turn.text.to_lowercase().contains(&needle.to_lowercase());
                let msg = if found {
                    format!(
                        "expected the reply not to contain {needle:?}; reply: {}",
                        excerpt(&turn.text)
                    )
                } else {
                    format!("reply does not contain {needle:?}")
                };
                (!found, msg)
            }
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

    fn ask_check(&self, turn: &BotTurn, turn_no: usize, item: &str) -> (bool, String) {
        if let Some(v) = self.verdict(CheckKind::ShouldAskFor, Some(item), turn_no) {
            return judged(v.holds, &format!("asks for {item:?}"), &v.reason);
        }
        if turn.signals.is_declared() {
            let ok = turn.signals.asks_for.iter().any(|s| same_topic(s, item));
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
        match rules::asks_for(&turn.text, item, &[]) {
            Some(sentence) => (true, format!("bot asks for {item:?} (rule: {sentence:?})")),
            None => (
                false,
                format!(
                    "expected the bot to ask for {item:?} (rule: no question about it); reply: {}",
                    excerpt(&turn.text)
                ),
            ),
        }
    }

    fn warn_check(&self, turn: &BotTurn, turn_no: usize, item: &str) -> (bool, String) {
        if let Some(v) = self.verdict(CheckKind::ShouldWarn, Some(item), turn_no) {
            return judged(v.holds, &format!("warns about {item:?}"), &v.reason);
        }
        if turn.signals.is_declared() {
            let ok = turn.signals.warnings.iter().any(|s| same_topic(s, item));
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
        match rules::warns(&turn.text, item, &[]) {
            Some(sentence) => (
                true,
                format!("bot warns about {item:?} (rule: {sentence:?})"),
            ),
            None => (
                false,
                format!(
                    "expected a warning about {item:?} (rule: none found); reply: {}",
                    excerpt(&turn.text)
                ),
            ),
        }
    }

    fn reject_check(&self, turn: &BotTurn, turn_no: usize, expected: bool) -> (bool, String) {
        let want = if expected { "a refusal" } else { "no refusal" };
        let (refused, how) = if let Some(v) = self.verdict(CheckKind::ShouldReject, None, turn_no) {
            (v.holds, format!("llm judge: {}", v.reason))
        } else if let Some(rejected) = turn.signals.rejected {
            (rejected, format!("signal: rejected = {rejected}"))
        } else if turn.response_type == Some(ResponseType::Rejection) {
            (true, "declared response type rejection".to_owned())
        } else {
            match rules::refuses(&turn.text) {
                Some(sentence) => (true, format!("rule: {sentence:?}")),
                None => (false, "rule: no refusal found".to_owned()),
            }
        };
        let seen = if refused {
            "the bot refused"
        } else {
            "the bot did not refuse"
        };
        let ok = refused == expected;
        if ok {
            (true, format!("{seen} ({how})"))
        } else {
            (
                false,
                format!(
                    "expected {want}, but {seen} ({how}); reply: {}",
                    excerpt(&turn.text)
                ),
            )
        }
    }
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

fn eq_fold(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// Signal names match topics case-insensitively, with `_`/`-` read as spaces.
fn same_topic(signal: &str, item: &str) -> bool {
    let norm = |s: &str| s.trim().to_lowercase().replace(['_', '-'], " ");
    norm(signal) == norm(item)
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
        .find(|s| eq_fold(&s.function, name) && agent.is_none_or(|a| eq_fold(&s.agent, a)));
    match hit {
        Some(step) => (true, format!("plan calls {}", call_name(step))),
        None => {
            let target = agent.map_or_else(|| name.to_owned(), |a| format!("{a}.{name}"));
            (
                false,
                format!(
                    "expected a call of {target}, {}",
                    describe_plan(&turn.plan, &turn.text)
                ),
            )
        }
    }
}

/// The declared response type, else one inferred from the plan and the keyword rules.
fn response_type(turn: &BotTurn) -> (ResponseType, String) {
    if let Some(declared) = turn.response_type {
        return (declared, "declared by the bot".to_owned());
    }
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
    if turn.signals.rejected.is_none()
        && let Some(s) = rules::refuses(&turn.text)
    {
        return (ResponseType::Rejection, format!("inferred by rule: {s:?}"));
    }
    if let Some(s) = rules::asks_question(&turn.text) {
        return (
            ResponseType::Clarification,
            format!("inferred by rule: {s:?}"),
        );
    }
    (
        ResponseType::Text,
        "inferred: no plan, no question, no refusal".to_owned(),
    )
}

/// All keys must hold on the same call; calls are limited to the set's function/agent when given.
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
    let candidates: Vec<&PlanStep> = turn
        .plan
        .iter()
        .filter(|s| function.is_none_or(|f| eq_fold(&s.function, f)))
        .filter(|s| agent.is_none_or(|a| eq_fold(&s.agent, a)))
        .collect();
    if candidates.is_empty() {
        let scope = function.map(|f| format!(" of {f}")).unwrap_or_default();
        return (
            false,
            format!(
                "expected a call{scope} with {wanted}; {}",
                describe_plan(&turn.plan, &turn.text)
            ),
        );
    }
    let mut best: Option<(&PlanStep, Vec<String>)> = None;
    for step in candidates {
        let misses: Vec<String> = params
            .iter()
            .filter(|(k, m)| !m.test(step.params.get(k)))
            .map(|(k, m)| match step.params.get(k) {
                Some(v) => format!("{k} is {v}, expected {m}"),
                None => format!("{k} is missing, expected {m}"),
            })
            .collect();
        if misses.is_empty() {
            return (true, format!("{} has {wanted}", call_name(step)));
        }
        if best.as_ref().is_none_or(|(_, b)| misses.len() < b.len()) {
            best = Some((step, misses));
        }
    }
    let (step, misses) = best.map(|(s, m)| (call_name(s), m)).unwrap_or_default();
    (
        false,
        format!(
            "expected one call with {wanted}; closest {step}: {}",
            misses.join("; ")
        ),
    )
}

fn validator_check(turn: &BotTurn, pred: &Predicate) -> (bool, String) {
    let doc = match serde_json::to_value(turn) {
        Ok(v) => v,
        Err(e) => return (false, format!("turn could not be read as JSON: {e}")),
    };
    let found = resolve(&doc, &pred.path);
    let label = pred.label();
    let ok = if found.is_empty() {
        pred.matcher.test(None)
    } else {
        found.iter().any(|v| pred.matcher.test(Some(v)))
    };
    let seen = match found.as_slice() {
        [] => "missing".to_owned(),
        [one] => one.to_string(),
        many => format!(
            "[{}]",
            many.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if ok {
        (
            true,
            format!("{} {} holds (value: {seen})", pred.path, pred.matcher),
        )
    } else {
        (false, format!("expected {label}; {} is {seen}", pred.path))
    }
}

/// Values at a JSON pointer whose `*` segments stand for every element or member.
fn resolve<'v>(doc: &'v Value, path: &str) -> Vec<&'v Value> {
    let mut current = vec![doc];
    if path.is_empty() {
        return current;
    }
    for raw in path.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        let mut next = Vec::new();
        for v in current {
            match (v, seg.as_str()) {
                (Value::Array(items), "*") => next.extend(items.iter()),
                (Value::Object(map), "*") => next.extend(map.values()),
                (Value::Array(items), idx) => {
                    if let Some(item) = idx.parse::<usize>().ok().and_then(|i| items.get(i)) {
                        next.push(item);
                    }
                }
                (Value::Object(map), key) => {
                    if let Some(item) = map.get(key) {
                        next.push(item);
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}
