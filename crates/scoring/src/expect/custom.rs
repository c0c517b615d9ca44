//! The user's own checks: `command` (a program in any language judges the conversation),
//! `llmRubric` (an LLM judge grades the reply against a rubric) and `similar` (the reply's
//! embedding is close to a reference's). This module owns their vocabulary and how their answers
//! become checks; it runs nothing. Like the LLM judge's questions, the caller gets the work to do
//! from [`custom_requests`], does it (a process, a model call, an embedding), and hands the
//! answers back as [`CustomVerdicts`] to [`super::evaluate_with`]. A check with no answer, or
//! whose answer is an error, fails and is reported as "could not be evaluated", never a pass.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{CheckSpec, Expect, Expectations, TurnSel};
use crate::check::CheckKind;
use crate::transcript::Transcript;

/// Default time a `command` check may run.
pub const DEFAULT_COMMAND_TIMEOUT_MS: u64 = 10_000;

/// One of the user's own checks, as declared in a suite.
#[derive(Debug, Clone, PartialEq)]
pub enum CustomCheck {
    /// A program that reads the conversation as JSON on stdin and answers
    /// `{pass, score?, reason}` on stdout.
    Command(CommandCheck),
    /// A rubric an LLM judge grades the reply against.
    LlmRubric(RubricCheck),
    /// Embedding similarity of the reply to references.
    Similar(SimilarCheck),
}

impl CustomCheck {
    /// The check kind it produces.
    #[must_use]
    pub fn kind(&self) -> CheckKind {
        match self {
            Self::Command(_) => CheckKind::Command,
            Self::LlmRubric(_) => CheckKind::LlmRubric,
            Self::Similar(_) => CheckKind::Similar,
        }
    }

    /// How the report names it: `command: "python3 checks/polite.py"`, `llmRubric: "…"`,
    /// `similar: "…"`.
    #[must_use]
    pub fn name(&self) -> String {
        let what = match self {
            Self::Command(c) => c.label.clone().unwrap_or_else(|| c.argv.join(" ")),
            Self::LlmRubric(r) => r.label.clone().unwrap_or_else(|| short(&r.rubric)),
            Self::Similar(s) => s.label.clone().unwrap_or_else(|| {
                let first = s.references.first().map_or("", String::as_str);
                short(first)
            }),
        };
        format!("{}: {what:?}", self.kind())
    }

    /// The key its answer is filed under for `turn` (1-based): stable across runs, the same
    /// for two identical checks (which get the same answer).
    #[must_use]
    pub fn id(&self, turn: usize) -> String {
        let body = match self {
            Self::Command(c) => format!("{}|{}", c.argv.join("\u{1f}"), c.timeout_ms),
            Self::LlmRubric(r) => r.rubric.clone(),
            Self::Similar(s) => format!("{}|{}", s.references.join("\u{1f}"), s.threshold),
        };
        format!("{}:{body}@{turn}", self.kind())
    }
}

/// `command: {run: [python3, checks/polite.py], timeoutMs: 5000}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandCheck {
    /// The program and its arguments (no shell); run in the suite file's folder.
    pub argv: Vec<String>,
    /// Killed and failed after this many milliseconds.
    pub timeout_ms: u64,
    /// How the report names it (default: the command line).
    pub label: Option<String>,
}

/// `llmRubric: "The reply confirms the amount and the recipient"` (or `{rubric, name}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RubricCheck {
    /// What the reply must satisfy, in plain words.
    pub rubric: String,
    /// How the report names it (default: the rubric's start).
    pub label: Option<String>,
}

/// `similar: {to: ["…"], threshold: 0.8}`.
#[derive(Debug, Clone, PartialEq)]
pub struct SimilarCheck {
    /// Reference texts; the reply passes when close enough to one of them.
    pub references: Vec<String>,
    /// Least cosine similarity that passes, in (0, 1].
    pub threshold: f64,
    /// How the report names it (default: the first reference's start).
    pub label: Option<String>,
}

/// One custom check to evaluate on one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomRequest {
    /// Key of its answer in [`CustomVerdicts`] (see [`CustomCheck::id`]).
    pub id: String,
    /// 1-based turn it looks at.
    pub turn: usize,
    /// The check.
    pub check: CustomCheck,
}

/// The answer to one [`CustomRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CustomOutcome {
    /// The check decided.
    Verdict {
        /// Whether it holds.
        passed: bool,
        /// A score the check gave (a command's `score`, a similarity), shown in the message.
        score: Option<f64>,
        /// Why, in the check's words (a command's reason, the judge's reasoning).
        reason: String,
    },
    /// It could not decide (the process failed, timed out or printed no verdict; the model
    /// could not be reached or answered no verdict): a failed check, never a pass.
    Error(String),
}

/// Answers by request id; empty when nothing was evaluated.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CustomVerdicts(pub BTreeMap<String, CustomOutcome>);

/// The custom checks to evaluate for this transcript: one per check and targeted turn (every
/// turn for `turn: any`) that the conversation reached, each once.
#[must_use]
pub fn custom_requests(exp: &Expectations, t: &Transcript) -> Vec<CustomRequest> {
    let mut out = Vec::new();
    collect(&exp.root, None, t, &mut out);
    out
}

fn collect(node: &Expect, turn: Option<TurnSel>, t: &Transcript, out: &mut Vec<CustomRequest>) {
    match node {
        Expect::All(items) | Expect::Any(items) => {
            for n in items {
                collect(n, turn, t, out);
            }
        }
        Expect::Not(inner) => collect(inner, turn, t, out),
        Expect::Checks(set) => {
            let sel = set.turn.or(turn).unwrap_or(TurnSel::Last);
            let len = t.turns.len();
            let turns: Vec<usize> = match sel {
                // Turn 0 is refused when a suite loads; a tree built by hand may still hold it.
                TurnSel::Index(n) if (1..=len).contains(&n) => vec![n],
                TurnSel::Index(_) => Vec::new(),
                TurnSel::Last => (len > 0).then_some(len).into_iter().collect(),
                TurnSel::Any => (1..=len).collect(),
            };
            for spec in &set.checks {
                let CheckSpec::Custom(check) = spec else {
                    continue;
                };
                for &n in &turns {
                    // A failed turn has no reply to judge: its checks are "not evaluated".
                    if t.turns[n - 1].1.error.is_some() {
                        continue;
                    }
                    let id = check.id(n);
                    if !out.iter().any(|r| r.id == id) {
                        out.push(CustomRequest {
                            id,
                            turn: n,
                            check: check.clone(),
                        });
                    }
                }
            }
        }
    }
}

/// Whether the tree declares any custom check (so a runner knows it needs a model or may run
/// processes before it starts).
#[must_use]
pub fn declares(exp: &Expectations, kind: CheckKind) -> bool {
    fn walk(node: &Expect, kind: CheckKind) -> bool {
        match node {
            Expect::All(items) | Expect::Any(items) => items.iter().any(|n| walk(n, kind)),
            Expect::Not(inner) => walk(inner, kind),
            Expect::Checks(set) => set
                .checks
                .iter()
                .any(|c| matches!(c, CheckSpec::Custom(c) if c.kind() == kind)),
        }
    }
    walk(&exp.root, kind)
}

/// Cosine similarity of two vectors; `None` when their lengths differ or one is all zeros (no
/// direction to compare, so no similarity to claim).
///
/// ```
/// use scoring::expect::cosine;
/// assert_eq!(cosine(&[1.0, 0.0], &[2.0, 0.0]), Some(1.0));
/// assert_eq!(cosine(&[1.0, 0.0], &[0.0, 3.0]), Some(0.0));
/// assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), None);
/// ```
#[must_use]
pub fn cosine(a: &[f32], b: &[f32]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 || !dot.is_finite() {
        return None;
    }
    Some((dot / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0))
}

fn short(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 60 {
        flat
    } else {
        let cut: String = flat.chars().take(57).collect();
        format!("{cut}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_tell_checks_and_turns_apart() {
        let a = CustomCheck::LlmRubric(RubricCheck {
            rubric: "polite".to_owned(),
            label: None,
        });
        let b = CustomCheck::LlmRubric(RubricCheck {
            rubric: "brief".to_owned(),
            label: None,
        });
        assert_ne!(a.id(1), a.id(2));
        assert_ne!(a.id(1), b.id(1));
        assert_eq!(a.name(), "llmRubric: \"polite\"");
    }

    #[test]
    fn requests_skip_turns_not_reached_and_turn_zero() {
        use crate::transcript::BotTurn;
        let rubric = CustomCheck::LlmRubric(RubricCheck {
            rubric: "polite".to_owned(),
            label: None,
        });
        let mut t = Transcript::default();
        t.push("hi", BotTurn::text("hello"));
        t.push("again", BotTurn::failed("down"));
        for (turn, wanted) in [
            (TurnSel::Index(0), vec![]),
            (TurnSel::Index(3), vec![]),
            (TurnSel::Index(1), vec![1]),
            (TurnSel::Last, vec![]),
            (TurnSel::Any, vec![1]),
        ] {
            let exp = Expectations::new(Expect::Checks(super::super::CheckSet {
                checks: vec![CheckSpec::Custom(rubric.clone())],
                turn: Some(turn),
                ..Default::default()
            }));
            let turns: Vec<usize> = custom_requests(&exp, &t).iter().map(|r| r.turn).collect();
            assert_eq!(turns, wanted, "{turn:?}");
        }
    }

    #[test]
    fn cosine_refuses_mismatched_vectors() {
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(cosine(&[], &[]), None);
        let c = cosine(&[1.0, 1.0], &[1.0, 0.0]).expect("defined");
        assert!((c - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9);
    }
}
