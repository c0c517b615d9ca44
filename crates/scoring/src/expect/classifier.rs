//! A small text classifier beside each text rule (warnings and refusals since issue 25's fourth
//! round, questions since its fifth): logistic regression over a reply's words, word pairs,
//! character 4-grams, the words of the sentences that name the topic and the rules' own cues,
//! trained on the labelled replies of `fixtures/labelled/` by `cargo xtask rules-model`, which
//! writes its weights and decision bands to `crates/scoring/data/rules_model.txt` (compiled in;
//! no file is read at run time). The hand-written word lists of [`super::rules`] do not carry
//! over to new domains well; the classifier is evidence that is not a hand list. This module owns
//! the features, the model file's format and how a rule's answer and the classifier's score make
//! one verdict ([`combine`]); the training and the choice of bands live in the trainer.
//!
//! A sure rule stays sure unless the classifier takes the other side (then it is unsure, and
//! its guess is the side that was right more often there in leave-one-domain-out
//! cross-validation). An unsure rule is settled as sure only by a score beyond a strong band,
//! chosen so that out of fold the classifier was right on at least 97% of the replies it
//! settled there; never where the rule has a reasoned doubt, and never as a "yes" for a warning
//! or a question whose topic the reply does not name (docs/suites.md, "Text rules").

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::LazyLock;

use super::rules::{
    self, RuleOutcome, RuleVerdict, asks_for, mentions, phrases_for, refusal_undone,
    refuses_by_rules, warns_by_rules,
};

/// The classifier weighs in only on replies where at least this share of the words have a
/// weight: on others (a language it has few examples of) it knows too little, and the rule
/// decides alone.
pub const MIN_COVERAGE: f64 = 0.3;

/// The behaviour a classifier judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// The reply warns about its topic (`shouldWarn`).
    Warns,
    /// The reply declines what the user asked (`shouldReject`).
    Refuses,
    /// The reply asks the user to supply or clarify its topic (`shouldAskFor`).
    Asks,
}

impl Behaviour {
    /// The model file's section name.
    #[must_use]
    pub fn section(self) -> &'static str {
        match self {
            Self::Warns => "warn",
            Self::Refuses => "refuse",
            Self::Asks => "ask",
        }
    }
}

/// Where a score stops being weak evidence, and what an unsure verdict guesses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bands {
    /// Scores in `lo..hi` are the middle band: the classifier does not take a side.
    pub lo: f64,
    /// See [`Bands::lo`]; at or above it the classifier says yes, below `lo` no.
    pub hi: f64,
    /// Below this, the classifier settles an unsure rule (without a reasoned doubt) as a sure
    /// "no".
    pub strong_lo: f64,
    /// At or above this, the classifier settles an unsure rule (without a reasoned doubt) as a
    /// sure "yes" (see [`may_promote_yes`]).
    pub strong_hi: f64,
    /// The guess when the rule says a sure "yes" and the classifier "no".
    pub guess_rule_yes_classifier_no: bool,
    /// The guess when the rule says a sure "no" and the classifier "yes".
    pub guess_rule_no_classifier_yes: bool,
    /// When the rule is unsure and the classifier takes the other side of its fallback: whether
    /// the guess follows the classifier (else the rule's fallback).
    pub unsure_follows_classifier: bool,
}

impl Bands {
    /// The classifier's side for a score: `Some(yes)` outside the middle band, `None` inside.
    #[must_use]
    pub fn side(&self, score: f64) -> Option<bool> {
        if score >= self.hi {
            Some(true)
        } else if score < self.lo {
            Some(false)
        } else {
            None
        }
    }
}

/// One behaviour's logistic regression weights and bands.
#[derive(Debug, Clone, PartialEq)]
pub struct Classifier {
    /// The intercept.
    pub bias: f64,
    /// Each feature's weight (features not listed weigh nothing).
    pub weights: HashMap<String, f64>,
    /// The decision bands.
    pub bands: Bands,
}

impl Classifier {
    /// The share of a reply's words (`w:` features) that have a weight (1 when it has none).
    #[must_use]
    pub fn coverage(&self, features: &[String]) -> f64 {
        let words: Vec<&String> = features.iter().filter(|f| f.starts_with("w:")).collect();
        let known = words
            .iter()
            .filter(|f| self.weights.contains_key(**f))
            .count();
        // Word counts are far below 2^52: exact.
        #[allow(clippy::cast_precision_loss)]
        let share = if words.is_empty() {
            1.0
        } else {
            known as f64 / words.len() as f64
        };
        share
    }

    /// The log-odds score of a reply's features (from [`features`]): each present feature
    /// counts `1/√k` for a reply with `k` features, so long replies do not outvote short ones.
    #[must_use]
    pub fn score(&self, features: &[String]) -> f64 {
        // Feature counts are far below 2^52: exact.
        #[allow(clippy::cast_precision_loss)]
        let k = features.len().max(1) as f64;
        let sum: f64 = features.iter().filter_map(|f| self.weights.get(f)).sum();
        self.bias + sum / k.sqrt()
    }
}

/// The classifiers of both behaviours, as the model file holds them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    /// `shouldWarn`'s classifier, when trained.
    pub warn: Option<Classifier>,
    /// `shouldReject`'s classifier, when trained.
    pub refuse: Option<Classifier>,
    /// `shouldAskFor`'s classifier, when trained.
    pub ask: Option<Classifier>,
}

/// A model file that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("rules model, line {line}: {message}")]
pub struct ModelError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

/// How many decimals the model file keeps: enough that rounding moves no score by more than a
/// few hundredths, few enough to keep the file small.
const DECIMALS: usize = 3;

impl Model {
    /// The classifier of `behaviour`, when trained.
    #[must_use]
    pub fn classifier(&self, behaviour: Behaviour) -> Option<&Classifier> {
        match behaviour {
            Behaviour::Warns => self.warn.as_ref(),
            Behaviour::Refuses => self.refuse.as_ref(),
            Behaviour::Asks => self.ask.as_ref(),
        }
    }

    /// The model file's text: a header, then per behaviour `[section]`, `bias`, `bands` and one
    /// `weight<TAB>feature` line per feature, sorted by feature; numbers with [`DECIMALS`]
    /// decimals, so the same weights always print the same bytes.
    #[must_use]
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        for (name, c) in [
            ("warn", &self.warn),
            ("refuse", &self.refuse),
            ("ask", &self.ask),
        ] {
            let Some(c) = c else { continue };
            let b = &c.bands;
            let _ = writeln!(out, "[{name}]");
            let _ = writeln!(out, "bias {}", num(c.bias));
            let _ = writeln!(
                out,
                "bands {} {} {} {}",
                num(b.lo),
                num(b.hi),
                num(b.strong_lo),
                num(b.strong_hi)
            );
            let _ = writeln!(
                out,
                "guesses {} {} {}",
                u8::from(b.guess_rule_yes_classifier_no),
                u8::from(b.guess_rule_no_classifier_yes),
                u8::from(b.unsure_follows_classifier)
            );
            let mut weights: Vec<(&String, &f64)> = c.weights.iter().collect();
            weights.sort_by(|a, b| a.0.cmp(b.0));
            for (feature, w) in weights {
                let w = num(*w);
                if w.trim_start_matches('-')
                    .trim_start_matches(['0', '.'])
                    .is_empty()
                {
                    continue;
                }
                let _ = writeln!(out, "{w}\t{feature}");
            }
        }
        out
    }

    /// Reads a model file written by [`Model::to_text`].
    ///
    /// # Errors
    /// The first line that is not part of the format.
    pub fn parse(text: &str) -> Result<Self, ModelError> {
        let mut model = Self::default();
        let mut current: Option<(Behaviour, Classifier)> = None;
        let finish = |model: &mut Self, current: Option<(Behaviour, Classifier)>| {
            if let Some((b, c)) = current {
                match b {
                    Behaviour::Warns => model.warn = Some(c),
                    Behaviour::Refuses => model.refuse = Some(c),
                    Behaviour::Asks => model.ask = Some(c),
                }
            }
        };
        for (i, line) in text.lines().enumerate() {
            let bad = |message: &str| ModelError {
                line: i + 1,
                message: format!("{message}: {line:?}"),
            };
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                finish(&mut model, current.take());
                let behaviour = match name {
                    "warn" => Behaviour::Warns,
                    "refuse" => Behaviour::Refuses,
                    "ask" => Behaviour::Asks,
                    _ => return Err(bad("unknown section")),
                };
                current = Some((behaviour, Classifier::empty()));
                continue;
            }
            let Some((_, c)) = current.as_mut() else {
                return Err(bad("a line before any section"));
            };
            let numbers = |rest: &str| -> Result<Vec<f64>, ModelError> {
                rest.split(' ')
                    .map(|n| n.parse::<f64>().map_err(|_| bad("not a number")))
                    .collect()
            };
            if let Some(rest) = line.strip_prefix("bias ") {
                c.bias = numbers(rest)?.first().copied().unwrap_or(0.0);
            } else if let Some(rest) = line.strip_prefix("bands ") {
                let [lo, hi, strong_lo, strong_hi] = numbers(rest)?[..] else {
                    return Err(bad("bands needs four numbers"));
                };
                (c.bands.lo, c.bands.hi) = (lo, hi);
                (c.bands.strong_lo, c.bands.strong_hi) = (strong_lo, strong_hi);
            } else if let Some(rest) = line.strip_prefix("guesses ") {
                let flags: Vec<bool> = rest.split(' ').map(|f| f == "1").collect();
                let [yes_no, no_yes, follow] = flags[..] else {
                    return Err(bad("guesses needs three flags"));
                };
                c.bands.guess_rule_yes_classifier_no = yes_no;
                c.bands.guess_rule_no_classifier_yes = no_yes;
                c.bands.unsure_follows_classifier = follow;
            } else if let Some((w, feature)) = line.split_once('\t') {
                let w = w.parse::<f64>().map_err(|_| bad("not a weight"))?;
                c.weights.insert(feature.to_owned(), w);
            } else {
                return Err(bad("not a model line"));
            }
        }
        finish(&mut model, current);
        Ok(model)
    }
}

impl Classifier {
    fn empty() -> Self {
        Self {
            bias: 0.0,
            weights: HashMap::new(),
            bands: Bands {
                lo: 0.0,
                hi: 0.0,
                strong_lo: f64::NEG_INFINITY,
                strong_hi: f64::INFINITY,
                guess_rule_yes_classifier_no: true,
                guess_rule_no_classifier_yes: false,
                unsure_follows_classifier: false,
            },
        }
    }
}

/// A number as the model file writes it.
fn num(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let s = format!("{x:.DECIMALS$}");
    // "-0.000" and "0.000" are one number: one spelling.
    if s.trim_start_matches('-')
        .trim_matches(['0', '.'])
        .is_empty()
    {
        return format!("{:.DECIMALS$}", 0.0);
    }
    s
}

/// The shipped model (generated by `cargo xtask rules-model`).
static MODEL: LazyLock<Model> = LazyLock::new(|| {
    Model::parse(include_str!("../../data/rules_model.txt"))
        .expect("the shipped rules model parses (cargo xtask rules-model --check)")
});

/// The shipped model.
#[must_use]
pub fn shipped_model() -> &'static Model {
    &MODEL
}

/// A reply's features for `behaviour`, sorted and unique: lower-cased words (digits as `0`),
/// word pairs, character 4-grams of each word padded with spaces, the rule's cues by name and,
/// for warnings, whether the topic is named.
#[must_use]
pub fn features(behaviour: Behaviour, text: &str, topic: &str, extra: &[String]) -> Vec<String> {
    let plain: String = rules::plain_text(text)
        .chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect();
    let words: Vec<&str> = plain
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = BTreeSet::new();
    for w in &words {
        out.insert(format!("w:{w}"));
        let padded: Vec<char> = format!(" {w} ").chars().collect();
        for gram in padded.windows(4) {
            out.insert(format!("c:{}", gram.iter().collect::<String>()));
        }
    }
    for pair in words.windows(2) {
        out.insert(format!("b:{} {}", pair[0], pair[1]));
    }
    if behaviour != Behaviour::Refuses {
        // The words of the sentences that name the topic: what the reply says about it.
        for sentence in rules::topic_sentences(text, &phrases_for(topic, extra)) {
            for w in sentence.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
                let w = w.trim_matches('\'');
                if !w.is_empty() {
                    out.insert(format!("s:{w}"));
                }
            }
        }
    }
    let cues = match behaviour {
        Behaviour::Warns => {
            let named = mentions(text, &phrases_for(topic, extra)).is_some();
            out.insert(if named { "t:named" } else { "t:unnamed" }.to_owned());
            // A suite that names the topic's synonyms has said which words name it: a part of
            // the topic is then no name of it (review 25d: the documented remedy for a shared
            // word must work).
            if !named && extra.is_empty() && rules::warns_partly_naming(text, topic) {
                out.insert("t:partly".to_owned());
            }
            rules::warning_cues(text)
        }
        Behaviour::Refuses => rules::refusal_cues(text),
        Behaviour::Asks => {
            let named = mentions(text, &phrases_for(topic, extra)).is_some();
            out.insert(if named { "t:named" } else { "t:unnamed" }.to_owned());
            rules::asking_cues(text)
        }
    };
    // Each cue, and each cue with whether the topic is named (a warning cue beside the topic
    // weighs otherwise than one elsewhere).
    let named = if out.contains("t:named") {
        "named"
    } else {
        "unnamed"
    };
    for c in cues {
        out.insert(format!("r:{c}"));
        if behaviour != Behaviour::Refuses {
            out.insert(format!("r:{c}+{named}"));
        }
    }
    out.into_iter().collect()
}

/// Where a rule's answer and the classifier's side fall among [`combine`]'s cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// A sure verdict: the rule is sure and the classifier agrees or takes no side, or the rule
    /// is unsure and the classifier's score is beyond a strong band.
    Sure(bool),
    /// The rule says a sure "yes", the classifier "no": unsure.
    RuleYesClassifierNo,
    /// The rule says a sure "no", the classifier "yes": unsure.
    RuleNoClassifierYes,
    /// The rule is unsure and the classifier takes the other side of its fallback.
    UnsureDisagree,
    /// The rule is unsure and the classifier agrees with its fallback or is undecided: unsure,
    /// guess the fallback.
    UnsureRest,
}

/// The case of a rule's verdict, fallback and whether its doubt is reasoned
/// ([`RuleOutcome::reasoned`]), given the classifier's side (`None` in the middle band) and its
/// strong side (`None` between the strong bands).
#[must_use]
pub fn case(
    verdict: RuleVerdict,
    fallback: bool,
    reasoned: bool,
    side: Option<bool>,
    strong: Option<bool>,
) -> Case {
    match (verdict, side) {
        (RuleVerdict::Yes | RuleVerdict::No, Some(c)) if c == fallback => Case::Sure(fallback),
        // The middle band: the classifier does not take a side, the sure rule stands.
        (RuleVerdict::Yes | RuleVerdict::No, None) => Case::Sure(fallback),
        (RuleVerdict::Yes, Some(_)) => Case::RuleYesClassifierNo,
        (RuleVerdict::No, Some(_)) => Case::RuleNoClassifierYes,
        // A reasoned doubt stays unsure, with the rule's guess.
        (RuleVerdict::Unsure, _) if reasoned => Case::UnsureRest,
        (RuleVerdict::Unsure, _) if strong.is_some() => Case::Sure(strong == Some(true)),
        (RuleVerdict::Unsure, Some(c)) if c != fallback => Case::UnsureDisagree,
        (RuleVerdict::Unsure, _) => Case::UnsureRest,
    }
}

/// One verdict from the rule's answer and the classifier's score (see the module docs).
/// `promote_yes`: whether a score beyond the strong "yes" band may settle an unsure rule as a
/// sure "yes" ([`may_promote_yes`]).
#[must_use]
pub fn combine(rule: RuleOutcome, score: f64, bands: &Bands, promote_yes: bool) -> RuleOutcome {
    let p = 1.0 / (1.0 + (-score).exp());
    let said = |yes: bool| if yes { "yes" } else { "no" };
    let strong = if score >= bands.strong_hi && promote_yes {
        Some(true)
    } else if score < bands.strong_lo {
        Some(false)
    } else {
        None
    };
    let unsure = |fallback: bool, why: String| RuleOutcome {
        verdict: RuleVerdict::Unsure,
        fallback,
        evidence: why,
        reasoned: rule.reasoned,
    };
    let rule_said = || format!("the rule says {} ({})", said(rule.fallback), reason(&rule));
    match case(
        rule.verdict,
        rule.fallback,
        rule.reasoned,
        bands.side(score),
        strong,
    ) {
        Case::Sure(_) if rule.verdict != RuleVerdict::Unsure => rule,
        // An unsure rule (without a reasoned doubt) settled by a score beyond a strong band,
        // where the classifier was right on at least 97% of the replies in leave-one-domain-out
        // cross-validation (round 5; docs/suites.md, "Text rules").
        Case::Sure(yes) => RuleOutcome {
            verdict: if yes {
                RuleVerdict::Yes
            } else {
                RuleVerdict::No
            },
            fallback: yes,
            evidence: format!(
                "the classifier says {} beyond its strong band (p = {p:.2}); the rule was unsure: {}",
                said(yes),
                reason(&rule)
            ),
            reasoned: false,
        },
        Case::RuleYesClassifierNo => unsure(
            bands.guess_rule_yes_classifier_no,
            format!("{} but the classifier says no (p = {p:.2})", rule_said()),
        ),
        Case::RuleNoClassifierYes => unsure(
            bands.guess_rule_no_classifier_yes,
            format!("{} but the classifier says yes (p = {p:.2})", rule_said()),
        ),
        Case::UnsureDisagree => unsure(
            bands.unsure_follows_classifier != rule.fallback,
            format!(
                "{}; the classifier leans {} (p = {p:.2})",
                rule.evidence,
                said(!rule.fallback)
            ),
        ),
        Case::UnsureRest => unsure(
            rule.fallback,
            format!(
                "{}; the classifier agrees or is undecided (p = {p:.2})",
                rule.evidence
            ),
        ),
    }
}

fn reason(rule: &RuleOutcome) -> &str {
    if rule.evidence.is_empty() {
        "nothing hints at it"
    } else {
        &rule.evidence
    }
}

/// Applies the shipped classifier of `behaviour` to a rule's answer (the answer unchanged when
/// no classifier is shipped, or when it knows under [`MIN_COVERAGE`] of the reply's words).
fn settle(
    behaviour: Behaviour,
    rule: RuleOutcome,
    features: impl FnOnce() -> Vec<String>,
) -> RuleOutcome {
    let Some(c) = shipped_model().classifier(behaviour) else {
        return rule;
    };
    let features = features();
    if c.coverage(&features) < MIN_COVERAGE {
        return rule;
    }
    let promote_yes = may_promote_yes(behaviour, &features);
    combine(rule, c.score(&features), &c.bands, promote_yes)
}

/// Whether a strong "yes" of the classifier may settle an unsure rule (see [`combine`]): for
/// warnings and questions only when the reply names the topic. The classifier's words say that
/// a reply warns or asks, not about what: "Attention: transfers here are fully reversible." for
/// `irreversible`, "Which one do you mean?" for `amount`. (Without this guard for questions,
/// cross-validation left 7.6% of question checks unsure instead of 16.3%, and was right on 99
/// of the 101 it settled; the two it was wrong on are exactly such sure false passes.)
#[must_use]
pub fn may_promote_yes(behaviour: Behaviour, features: &[String]) -> bool {
    match behaviour {
        Behaviour::Refuses => true,
        Behaviour::Warns => features.iter().any(|f| f == "t:named" || f == "t:partly"),
        Behaviour::Asks => features.iter().any(|f| f == "t:named"),
    }
}

/// Whether the bot warns about `topic` (or one of its synonyms, built-in or `extra`): the
/// warning rule ([`warns_by_rules`]) weighed with the classifier.
#[must_use]
pub fn warns(text: &str, topic: &str, extra: &[String]) -> RuleOutcome {
    if let Some(part) = beginning(text) {
        return read_in_part(text, warns(part, topic, extra));
    }
    settle(Behaviour::Warns, warns_by_rules(text, topic, extra), || {
        features(Behaviour::Warns, text, topic, extra)
    })
}

/// The most of a reply, in bytes, that the text rules read: a longer reply is decided on its
/// beginning, and the verdict is unsure (review 25o: a 200 KB reply held `test` for minutes).
pub const RULES_READ_BYTES: usize = 32 * 1024;

/// The first [`RULES_READ_BYTES`] of `text`, cut at a line break or space where there is one
/// in its last quarter, when `text` is longer.
fn beginning(text: &str) -> Option<&str> {
    if text.len() <= RULES_READ_BYTES {
        return None;
    }
    let mut end = RULES_READ_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let cut = head
        .rfind(char::is_whitespace)
        .filter(|&at| at >= RULES_READ_BYTES * 3 / 4)
        .unwrap_or(end);
    Some(&text[..cut])
}

/// What a rule decided on the beginning of a reply too long to read whole: a reasoned doubt
/// with its guess, never a sure verdict.
fn read_in_part(text: &str, outcome: RuleOutcome) -> RuleOutcome {
    tracing::debug!(bytes = text.len(), "reply longer than the text rules read");
    RuleOutcome::doubt(
        outcome.decision(),
        format!(
            "the reply is {} KiB, longer than the {} KiB the text rules read; on its beginning: {}",
            text.len().div_ceil(1024),
            RULES_READ_BYTES / 1024,
            if outcome.evidence.is_empty() {
                "nothing found"
            } else {
                outcome.evidence.as_str()
            }
        ),
    )
}

/// Whether the bot asks for `topic` (or one of its synonyms, built-in or `extra`): the question
/// rule ([`asks_for`]) weighed with the classifier.
#[must_use]
pub fn asks(text: &str, topic: &str, extra: &[String]) -> RuleOutcome {
    if let Some(part) = beginning(text) {
        return read_in_part(text, asks(part, topic, extra));
    }
    settle(Behaviour::Asks, asks_for(text, topic, extra), || {
        features(Behaviour::Asks, text, topic, extra)
    })
}

/// Whether the bot refuses: the refusal rule ([`refuses_by_rules`]) weighed with the
/// classifier.
#[must_use]
pub fn refuses(text: &str) -> RuleOutcome {
    if let Some(part) = beginning(text) {
        return read_in_part(text, refuses(part));
    }
    let combined = settle(Behaviour::Refuses, refuses_by_rules(text), || {
        features(Behaviour::Refuses, text, "", &[])
    });
    // A refusal taken back or followed by compliance stays what the rule made of it, whatever
    // the words weigh.
    match refusal_undone(text) {
        Some(undone) if combined.verdict != RuleVerdict::No => undone,
        _ => combined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bands() -> Bands {
        Bands {
            lo: -1.0,
            hi: 1.0,
            strong_lo: -3.0,
            strong_hi: 3.0,
            guess_rule_yes_classifier_no: true,
            guess_rule_no_classifier_yes: true,
            unsure_follows_classifier: false,
        }
    }

    fn rule(verdict: RuleVerdict, fallback: bool, reasoned: bool) -> RuleOutcome {
        RuleOutcome {
            verdict,
            fallback,
            evidence: "e".into(),
            reasoned,
        }
    }

    #[test]
    fn a_sure_verdict_needs_agreement_or_strong_evidence() {
        let b = bands();
        let yes = rule(RuleVerdict::Yes, true, false);
        let no = rule(RuleVerdict::No, false, false);
        // Agreement: sure.
        assert_eq!(
            combine(yes.clone(), 2.0, &b, true).verdict,
            RuleVerdict::Yes
        );
        assert_eq!(combine(no.clone(), -2.0, &b, true).verdict, RuleVerdict::No);
        // The middle band: the classifier takes no side, the sure rule stands.
        assert_eq!(
            combine(yes.clone(), 0.0, &b, true).verdict,
            RuleVerdict::Yes
        );
        // Disagreement: unsure, the learned guess.
        let against = combine(no, 2.0, &b, true);
        assert!(against.is_unsure() && against.decision(), "{against:?}");
        assert!(against.evidence.contains("the classifier says yes"));
        let against = combine(yes, -2.0, &b, true);
        assert!(against.is_unsure() && against.decision(), "{against:?}");
        // An unsure rule is settled by a score beyond a strong band (where cross-validation
        // found the classifier right at least 97% of the time); weaker leaves it unsure.
        let unsure = rule(RuleVerdict::Unsure, false, false);
        let strong_yes = combine(unsure.clone(), 4.0, &b, true);
        assert_eq!(strong_yes.verdict, RuleVerdict::Yes, "{strong_yes:?}");
        assert!(strong_yes.evidence.contains("beyond its strong band"));
        let strong_no = combine(rule(RuleVerdict::Unsure, true, false), -4.0, &b, true);
        assert_eq!(strong_no.verdict, RuleVerdict::No, "{strong_no:?}");
        let lean = combine(unsure.clone(), 2.0, &b, true);
        assert!(lean.is_unsure() && !lean.decision(), "{lean:?}");
        // Where a strong "yes" may not settle it (a warning whose topic is not named), it
        // stays unsure, guessing the classifier's side.
        let guarded = combine(unsure, 4.0, &b, false);
        assert!(guarded.is_unsure() && !guarded.decision(), "{guarded:?}");
        // A reasoned doubt stays unsure with the rule's guess, however strong the score.
        let doubt = combine(rule(RuleVerdict::Unsure, false, true), 9.0, &b, true);
        assert!(doubt.is_unsure() && !doubt.decision(), "{doubt:?}");
    }

    #[test]
    fn a_warning_whose_topic_is_not_named_is_never_made_sure_by_the_classifier() {
        // Round 4's probe w25: the rule is unsure (a cue without the topic) and the classifier
        // scores a warning; a sure warning would be a false pass of
        // `shouldWarn: [irreversible]`.
        let w25 = warns(
            "Attention: transfers here are fully reversible.",
            "irreversible",
            &[],
        );
        assert_ne!(w25.verdict, RuleVerdict::Yes, "{w25:?}");
        let f = features(
            Behaviour::Warns,
            "Attention: transfers here are fully reversible.",
            "irreversible",
            &[],
        );
        assert!(!may_promote_yes(Behaviour::Warns, &f), "{f:?}");
        assert!(may_promote_yes(Behaviour::Refuses, &f));
        // Probe w39: the fee named only in a question ("And the fee? Zero.") is a reasoned
        // doubt of the rule, which the classifier (p = 0.89) never settles.
        let w39 = warns("Warning signs? None. And the fee? Zero.", "fee", &[]);
        assert!(w39.is_unsure(), "{w39:?}");
        // Not finding an order is no refusal to act.
        let lookup = refuses("Sorry, I am unable to locate that order right now.");
        assert_ne!(lookup.verdict, RuleVerdict::Yes, "{lookup:?}");
    }

    #[test]
    fn the_question_classifier_never_says_a_sure_yes_for_a_topic_not_named() {
        // The rule finds a question that names neither the topic nor another known one: unsure
        // alone. The classifier's words say the reply asks, not what: it stays unsure (a sure
        // "yes" would pass `shouldAskFor: [amount]` for "Which one do you mean?").
        for (text, topic) in [
            (
                "Which Bob do you mean: Bob Smith or Bob Jones?",
                "recipient",
            ),
            ("Sorry, which one do you mean?", "amount"),
        ] {
            assert!(asks_for(text, topic, &[]).is_unsure());
            let both = asks(text, topic, &[]);
            assert!(both.is_unsure() && both.decision(), "{text}: {both:?}");
        }
        // A question in a reply that reports the task done is a reasoned doubt: the classifier
        // (which scores these as questions, p = 0.5 to 0.9) never settles it (probes q02, q10,
        // q17, q20 of fixtures/probes/issue25-round1/ask.yaml became sure passes without it).
        for (text, topic) in [
            (
                "Who could have guessed the amount would be so small? Done.",
                "amount",
            ),
            ("I sent 50 USD to Bob — who else would it be?", "recipient"),
            (
                "Why send the amount twice? I already sent 50 USD to Bob once.",
                "amount",
            ),
        ] {
            let both = asks(text, topic, &[]);
            assert!(both.is_unsure() && !both.decision(), "{text}: {both:?}");
        }
        // A reply that asks nothing stays a sure "no".
        let none = asks(
            "Your booking is confirmed. Have a good trip!",
            "destination",
            &[],
        );
        assert_eq!(none.verdict, RuleVerdict::No, "{none:?}");
    }

    #[test]
    fn the_model_file_reads_back_what_it_writes() {
        let mut weights = HashMap::new();
        weights.insert("w:fee".to_owned(), 1.25);
        weights.insert("b:a fee".to_owned(), -0.5);
        weights.insert("c:zero".to_owned(), 0.000_1);
        let model = Model {
            warn: Some(Classifier {
                bias: -0.75,
                weights,
                bands: bands(),
            }),
            refuse: None,
            ask: None,
        };
        let text = model.to_text("header");
        assert!(
            text.starts_with("# header\n[warn]\nbias -0.750\n"),
            "{text}"
        );
        // A weight that rounds to zero is not written.
        assert!(!text.contains("c:zero"), "{text}");
        let back = Model::parse(&text).expect("it parses");
        let warn = back.warn.clone().expect("a warning classifier");
        assert_eq!(warn.weights.len(), 2);
        assert_eq!(warn.bands, bands());
        assert!(back.refuse.is_none());
        assert_eq!(
            back.classifier(Behaviour::Warns).map(|c| c.bias),
            Some(-0.75)
        );
        assert_eq!(num(-0.0), "0.000");
        assert_eq!(num(f64::NEG_INFINITY), "-inf");
        assert!(Model::parse("[ask]\nbias 1\n").is_ok_and(|m| m.ask.is_some()));
        for bad in ["bias 1", "[other]", "[warn]\nbands 1 2", "[warn]\nnonsense"] {
            assert!(Model::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_shipped_model_is_trained_and_its_bands_are_ordered() {
        for behaviour in [Behaviour::Warns, Behaviour::Refuses, Behaviour::Asks] {
            let c = shipped_model()
                .classifier(behaviour)
                .expect("cargo xtask rules-model trained all three");
            let b = c.bands;
            assert!(
                b.strong_lo <= b.lo && b.lo <= b.hi && b.hi <= b.strong_hi,
                "{b:?}"
            );
            assert!(c.weights.len() > 1000, "{} weights", c.weights.len());
        }
    }

    #[test]
    fn features_are_words_pairs_grams_and_cues() {
        let f = features(Behaviour::Warns, "Note: a 2% fee applies.", "fee", &[]);
        for expected in ["w:fee", "w:0", "b:a 0", "c: fee", "t:named", "r:evidence"] {
            assert!(f.iter().any(|x| x == expected), "{expected}: {f:?}");
        }
        let mut sorted = f.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(f, sorted, "sorted and unique");
        // Quoted words are not the bot's own.
        let quoted = features(Behaviour::Refuses, "You said \"I refuse\".", "", &[]);
        assert!(!quoted.iter().any(|x| x == "w:refuse"), "{quoted:?}");
    }

    #[test]
    fn the_classifier_abstains_where_it_knows_few_words() {
        let c = shipped_model()
            .classifier(Behaviour::Refuses)
            .expect("trained");
        // Swahili is in no training file (Hindi was this example until heldout15 taught the
        // classifier 60% of its words).
        let swahili = features(Behaviour::Refuses, "Siwezi kukusaidia na hilo leo", "", &[]);
        assert!(
            c.coverage(&swahili) < MIN_COVERAGE,
            "{}",
            c.coverage(&swahili)
        );
        // A sure refusal the rule reads stays sure beside the classifier.
        assert_eq!(refuses("मैं यह नहीं कर सकता").verdict, RuleVerdict::Yes);
        let english = features(Behaviour::Refuses, "I can't help with that.", "", &[]);
        assert!(c.coverage(&english) >= MIN_COVERAGE);
    }
}
