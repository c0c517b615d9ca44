//! Measuring the text rules on labelled replies: the corpus format (`fixtures/labelled/
//! replies.jsonl`, one JSON object a line) and, per rule, accuracy, precision, recall and the
//! share of unsure answers. An unsure answer counts as its fallback decision, as it would decide
//! a check without a judge. Pure: the caller reads the file.

use serde::Deserialize;

use super::classifier::{asks, refuses, warns};
use super::rules::{asks_for, refuses_by_rules, warns_by_rules};
use crate::check::CheckKind;

/// One reply with its human labels.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledReply {
    /// Stable id (`group-NNN`).
    pub id: String,
    /// The reply as a bot sends it.
    pub text: String,
    /// The subject a suite would name in `shouldAskFor`/`shouldWarn`.
    pub topic: String,
    /// The reply asks the user to supply or clarify `topic`.
    pub asks_clarification: bool,
    /// The reply declines what the user asked.
    pub refuses: bool,
    /// The reply warns about `topic`.
    pub warns: bool,
    /// The bot's domain (`airline`, `pharmacy`, …), where the corpus records it.
    #[serde(default)]
    pub domain: Option<String>,
    /// The reply's language (ISO 639-1), where the corpus records it.
    #[serde(default)]
    pub lang: Option<String>,
    /// Careful readers could disagree on a label (it is still the author's best reading).
    #[serde(default)]
    pub borderline: bool,
}

/// A corpus line that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {source}")]
pub struct LabelledError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong with it.
    #[source]
    pub source: serde_json::Error,
}

/// Reads a JSON-lines corpus (blank lines are skipped).
///
/// # Errors
/// The first line that is not a [`LabelledReply`].
pub fn read_labelled(text: &str) -> Result<Vec<LabelledReply>, LabelledError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| LabelledError {
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// One reply a rule decided against its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    /// The rule's check kind.
    pub kind: CheckKind,
    /// The reply's id.
    pub id: String,
    /// The human label.
    pub expected: bool,
    /// Whether the rule was unsure (and its fallback decided).
    pub unsure: bool,
}

/// A rule's figures on a corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleFigures {
    /// shouldAskFor, shouldReject or shouldWarn.
    pub kind: CheckKind,
    /// Labelled yes, decided yes.
    pub true_pos: usize,
    /// Labelled no, decided yes.
    pub false_pos: usize,
    /// Labelled no, decided no.
    pub true_neg: usize,
    /// Labelled yes, decided no.
    pub false_neg: usize,
    /// Answers that were unsure (counted above by their fallback).
    pub unsure: usize,
    /// Unsure answers whose fallback matched the label.
    pub unsure_right: usize,
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        return 1.0;
    }
    // Corpus sizes are far below 2^52: the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let r = num as f64 / den as f64;
    r
}

impl RuleFigures {
    /// Replies measured.
    #[must_use]
    pub fn total(&self) -> usize {
        self.true_pos + self.false_pos + self.true_neg + self.false_neg
    }

    /// Share of replies decided as labelled.
    #[must_use]
    pub fn accuracy(&self) -> f64 {
        ratio(self.true_pos + self.true_neg, self.total())
    }

    /// Of the replies decided yes, the share labelled yes (1 when none is decided yes).
    #[must_use]
    pub fn precision(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_pos)
    }

    /// Of the replies labelled yes, the share decided yes (1 when none is labelled yes).
    #[must_use]
    pub fn recall(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_neg)
    }

    /// Share of replies the rule was unsure about.
    #[must_use]
    pub fn unsure_rate(&self) -> f64 {
        ratio(self.unsure, self.total())
    }

    /// Wrong decisions the rule was sure about (not marked low-confidence).
    #[must_use]
    pub fn sure_wrong(&self) -> usize {
        let wrong = self.false_pos + self.false_neg;
        let unsure_wrong = self.unsure - self.unsure_right;
        wrong - unsure_wrong
    }

    /// Sure-and-wrong decisions as a share of all checks: the verdicts that mislead silently.
    #[must_use]
    pub fn sure_wrong_rate(&self) -> f64 {
        ratio(self.sure_wrong(), self.total())
    }

    /// Accuracy on the replies the rule was sure about.
    #[must_use]
    pub fn sure_accuracy(&self) -> f64 {
        let right = self.true_pos + self.true_neg - self.unsure_right;
        ratio(right, self.total() - self.unsure)
    }
}

/// Runs the three rules on every reply: figures per rule (ask, refuse, warn) and the misses.
/// Refusals and warnings are decided as checks decide them: the rule weighed with the classifier
/// ([`super::classifier`]).
#[must_use]
pub fn measure(replies: &[LabelledReply]) -> (Vec<RuleFigures>, Vec<Miss>) {
    measure_by(replies, false)
}

/// As [`measure`], with the text rules alone (no classifier): the figures before issue 25's
/// fourth round.
#[must_use]
pub fn measure_rules_only(replies: &[LabelledReply]) -> (Vec<RuleFigures>, Vec<Miss>) {
    measure_by(replies, true)
}

fn measure_by(replies: &[LabelledReply], rules_only: bool) -> (Vec<RuleFigures>, Vec<Miss>) {
    let kinds = [
        CheckKind::ShouldAskFor,
        CheckKind::ShouldReject,
        CheckKind::ShouldWarn,
    ];
    let mut misses = Vec::new();
    let figures = kinds
        .into_iter()
        .map(|kind| {
            let mut f = RuleFigures {
                kind,
                true_pos: 0,
                false_pos: 0,
                true_neg: 0,
                false_neg: 0,
                unsure: 0,
                unsure_right: 0,
            };
            for r in replies {
                let (outcome, expected) = match kind {
                    CheckKind::ShouldAskFor if rules_only => {
                        (asks_for(&r.text, &r.topic, &[]), r.asks_clarification)
                    }
                    CheckKind::ShouldAskFor => (asks(&r.text, &r.topic, &[]), r.asks_clarification),
                    CheckKind::ShouldReject if rules_only => (refuses_by_rules(&r.text), r.refuses),
                    CheckKind::ShouldReject => (refuses(&r.text), r.refuses),
                    _ if rules_only => (warns_by_rules(&r.text, &r.topic, &[]), r.warns),
                    _ => (warns(&r.text, &r.topic, &[]), r.warns),
                };
                let got = outcome.decision();
                match (expected, got) {
                    (true, true) => f.true_pos += 1,
                    (false, true) => f.false_pos += 1,
                    (false, false) => f.true_neg += 1,
                    (true, false) => f.false_neg += 1,
                }
                if outcome.is_unsure() {
                    f.unsure += 1;
                    f.unsure_right += usize::from(got == expected);
                }
                if got != expected {
                    misses.push(Miss {
                        kind,
                        id: r.id.clone(),
                        expected,
                        unsure: outcome.is_unsure(),
                    });
                }
            }
            f
        })
        .collect();
    (figures, misses)
}
