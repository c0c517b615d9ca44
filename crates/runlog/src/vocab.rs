//! The vocabulary of records: the words a run writes that every reader must read the same way.
//! Each has one spelling (`name()`/serde), parsed back by `FromStr` where settings take it.

use std::fmt;
use std::str::FromStr;

use scoring::Judge;
use serde::{Deserialize, Serialize};

/// One role in the pipeline graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// Writes the batch of code-switched texts.
    Generator,
    /// Grammar and Poplack's constraints.
    Fluency,
    /// Would real bilinguals say it (Auer's typology).
    Naturalness,
    /// Embedded-language share against the target.
    CsRatio,
    /// Borrowings, politeness, nothing offensive.
    SocioCultural,
    /// Rewrites the whole batch from the judges' feedback.
    Refiner,
}

impl AgentKind {
    /// Every agent, generator first.
    pub const ALL: [AgentKind; 6] = [
        AgentKind::Generator,
        AgentKind::Fluency,
        AgentKind::Naturalness,
        AgentKind::CsRatio,
        AgentKind::SocioCultural,
        AgentKind::Refiner,
    ];

    /// The four judges as agents, in the order of [`Judge::ALL`] (derived from it, so the
    /// judge list exists once).
    pub const JUDGES: [AgentKind; Judge::ALL.len()] = {
        let mut out = [AgentKind::Fluency; Judge::ALL.len()];
        let mut i = 0;
        while i < Judge::ALL.len() {
            out[i] = AgentKind::of_judge(Judge::ALL[i]);
            i += 1;
        }
        out
    };

    /// The agent that plays `judge`.
    #[must_use]
    pub const fn of_judge(judge: Judge) -> Self {
        match judge {
            Judge::Fluency => AgentKind::Fluency,
            Judge::Naturalness => AgentKind::Naturalness,
            Judge::CsRatio => AgentKind::CsRatio,
            Judge::SocioCultural => AgentKind::SocioCultural,
        }
    }

    /// The judge this agent plays, `None` for the generator and the refiner.
    #[must_use]
    pub const fn judge(self) -> Option<Judge> {
        match self {
            AgentKind::Fluency => Some(Judge::Fluency),
            AgentKind::Naturalness => Some(Judge::Naturalness),
            AgentKind::CsRatio => Some(Judge::CsRatio),
            AgentKind::SocioCultural => Some(Judge::SocioCultural),
            AgentKind::Generator | AgentKind::Refiner => None,
        }
    }

    /// The snake-case name used in keys, records, settings and template file names.
    #[must_use]
    pub fn name(self) -> &'static str {
        // A judge's name is its `Judge` name, so weights, scores and agents never disagree.
        match (self, self.judge()) {
            (_, Some(judge)) => judge.name(),
            (AgentKind::Refiner, None) => "refiner",
            (_, None) => "generator",
        }
    }

    /// Parses [`AgentKind::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The judge's name in [`scoring::JudgeWeights`] (the same as [`AgentKind::name`]).
    #[must_use]
    pub fn weight_name(self) -> &'static str {
        self.name()
    }

    /// True for the four judges.
    #[must_use]
    pub fn is_judge(self) -> bool {
        self.judge().is_some()
    }
}

impl From<Judge> for AgentKind {
    fn from(judge: Judge) -> Self {
        Self::of_judge(judge)
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the cs-ratio judge's score is obtained.
///
/// - `measured`: no LLM call; `ratio_score = codeswitch::ratio_score(measured, target)`
///   from the deterministic measurement. Falls back to the LLM judge for a scenario whose pair
///   cannot be measured or whose target cannot be read.
/// - `llm`: the LLM judge decides, given the measurement in its prompt.
/// - `hybrid` (default): the LLM judge is called with the measurement, and the final
///   `ratio_score` is the mean of its score and the measured score (the LLM's alone when there is
///   no measurement). `computed_ratio` is then the measured share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RatioJudgeMode {
    /// Deterministic, no call.
    Measured,
    /// LLM judge only.
    Llm,
    /// Mean of both.
    #[default]
    Hybrid,
}

impl RatioJudgeMode {
    /// The setting's spelling.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Measured => "measured",
            Self::Llm => "llm",
            Self::Hybrid => "hybrid",
        }
    }
}

impl FromStr for RatioJudgeMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "measured" => Ok(Self::Measured),
            "llm" => Ok(Self::Llm),
            "hybrid" => Ok(Self::Hybrid),
            other => Err(format!(
                "unknown ratio judge `{other}` (expected measured, llm or hybrid)"
            )),
        }
    }
}

/// Which attempt a record keeps as its final texts and scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Keep {
    /// The last attempt (the accepted one, or the last refinement).
    #[default]
    Last,
    /// The best attempt: an acceptable one (score ≥ threshold, gate not refusing) before any
    /// other, then the highest score, then the latest.
    Best,
}

/// The gate's settings (the config's `run: gate:` section).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct GateSettings {
    /// Off: the judges alone decide (the record says `gate: off`).
    pub enabled: bool,
    /// Switch points required (per text for intra-sentential types, per batch otherwise).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub min_switch_points: u32,
    /// What an undecided gate means: `auto` by default; a record that does not name it was
    /// written under `judges`.
    pub undecided: GateUndecided,
}

impl Default for GateSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            min_switch_points: 1,
            undecided: GateUndecided::Auto,
        }
    }
}

impl std::fmt::Display for GateSettings {
    /// As a config writes it: `{enabled: true, min_switch_points: 1, undecided: judges}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{{enabled: {}, min_switch_points: {}, undecided: {}}}",
            self.enabled,
            self.min_switch_points,
            self.undecided.name()
        )
    }
}

/// What happens to a batch the gate cannot decide on (a language pair the measurement cannot
/// separate, romanized text without a detector, low coverage, too few firm words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum GateUndecided {
    /// The default: `reject` where the batch was measured (a pair and script the gate measures,
    /// whose batch it still cannot decide: low coverage, too few firm words, a wide ratio
    /// range), `judges` where it could not be (no measurement for the pair or the script,
    /// which `plan` and `run` name before the run).
    #[default]
    Auto,
    /// The judges decide alone, and the record says the gate was undecided.
    Judges,
    /// The batch is not accepted: an undecided gate refuses it, with the reason.
    Reject,
}

impl GateUndecided {
    /// The config's spelling: `auto`, `judges` or `reject`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Judges => "judges",
            Self::Reject => "reject",
        }
    }
}

/// The gate's decision on one attempt, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateVerdict {
    /// `true` passed, `false` failed (the batch is not accepted), `null` undecided or off.
    pub passed: Option<bool>,
    /// Why, in words.
    pub reason: String,
}

impl GateVerdict {
    /// Whether the gate stops the batch from being accepted.
    #[must_use]
    pub fn blocks(&self) -> bool {
        self.passed == Some(false)
    }
}
