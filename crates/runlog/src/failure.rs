//! Why scenarios failed, as a reader of the errors file needs it: each [`FailureRecord`]'s
//! reason sorted into a [`FailureCause`], and [`FailureTally`], the failures of a run counted by
//! agent and cause while the errors file streams past.
//!
//! The cause is read from the reason's words. The reasons are written by the pipeline from the
//! transport's typed errors (`llm_client::LlmError`'s messages, prefixed by the agent) and the
//! output checks; the `agents` crate's tests pin that every one of those messages lands in its
//! cause, so a reason this module does not know is `other`, never a wrong cause.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use crate::record::{FailureRecord, RecordError, RecordReader};
use crate::vocab::AgentKind;

/// What a failed scenario ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCause {
    /// 429 after every retry.
    RateLimited,
    /// 5xx after every retry.
    ServerError,
    /// The server did not answer in time, after every retry.
    Timeout,
    /// No connection could be made, after every retry.
    Connection,
    /// The model's reply could not be made valid (broken JSON, out-of-range score, too few texts).
    InvalidOutput,
    /// The provider refused the request (400, 404, 422: a wrong model name, a too-long prompt).
    Rejected,
    /// The provider's reply was not its API's format.
    Protocol,
    /// Bad credentials.
    Auth,
    /// The spending budget was reached.
    Budget,
    /// The run stopped (Ctrl-C, a fatal error elsewhere) before the scenario was done.
    Stopped,
    /// Its article could not be fetched (`use_tools: true`): the tool server is down, or its
    /// tool failed or returned no usable article.
    Grounding,
    /// Anything else (the reason says what).
    Other,
}

impl FailureCause {
    /// Every cause, in the order reports list them.
    pub const ALL: [Self; 12] = [
        Self::RateLimited,
        Self::ServerError,
        Self::Timeout,
        Self::Connection,
        Self::InvalidOutput,
        Self::Rejected,
        Self::Protocol,
        Self::Auth,
        Self::Budget,
        Self::Stopped,
        Self::Grounding,
        Self::Other,
    ];

    /// The cause of a failure reason as the pipeline writes it (`"fluency: rate limited after 5
    /// attempts"`).
    #[must_use]
    pub fn of_reason(reason: &str) -> Self {
        // Each phrase starts a message the pipeline writes (after an optional `agent: ` prefix)
        // or is one only that message contains. The phrase found first in the reason wins: a
        // server's own words come after the pipeline's (`server error 503 …: rate limited`).
        const PHRASES: [(&str, FailureCause); 19] = [
            ("grounding failed", FailureCause::Grounding),
            ("authentication failed", FailureCause::Auth),
            ("rate limited after", FailureCause::RateLimited),
            ("server error", FailureCause::ServerError),
            ("timed out after", FailureCause::Timeout),
            ("connection failed after", FailureCause::Connection),
            ("invalid model output", FailureCause::InvalidOutput),
            ("invalid output", FailureCause::InvalidOutput),
            ("does not match its schema", FailureCause::InvalidOutput),
            ("outside 0–10", FailureCause::InvalidOutput),
            ("usable text(s)", FailureCause::InvalidOutput),
            ("reply carried no json", FailureCause::InvalidOutput),
            ("gave no usable batch", FailureCause::InvalidOutput),
            ("no attempt was judged", FailureCause::InvalidOutput),
            ("request rejected", FailureCause::Rejected),
            ("malformed provider response", FailureCause::Protocol),
            ("budget of", FailureCause::Budget),
            ("the run stopped before", FailureCause::Stopped),
            ("cancelled", FailureCause::Stopped),
        ];
        let lower = reason.to_lowercase();
        PHRASES
            .iter()
            .filter_map(|&(phrase, cause)| lower.find(phrase).map(|at| (at, cause)))
            .min_by_key(|&(at, _)| at)
            .map_or(Self::Other, |(_, cause)| cause)
    }

    /// The words a report shows.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::RateLimited => "rate limited (429)",
            Self::ServerError => "server error (5xx)",
            Self::Timeout => "timed out",
            Self::Connection => "connection failed",
            Self::InvalidOutput => "invalid model output",
            Self::Rejected => "request rejected (4xx)",
            Self::Protocol => "malformed provider reply",
            Self::Auth => "authentication failed",
            Self::Budget => "budget reached",
            Self::Stopped => "run stopped first",
            Self::Grounding => "grounding failed (tool server)",
            Self::Other => "other",
        }
    }
}

impl std::fmt::Display for FailureCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// One row of a failure table: failures of one agent (or none: the scenario failed outside a
/// call) from one cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureRow {
    /// The agent whose call failed, if one of the six roles did.
    pub agent: Option<AgentKind>,
    /// The judge the config declared whose call failed, if one did.
    pub judge: Option<String>,
    /// The cause.
    pub cause: FailureCause,
    /// Scenarios.
    pub scenarios: u64,
    /// One of their reasons, as written (the first seen).
    pub example: String,
}

/// The current failures of a run: the last line of each scenario in its errors file (a
/// scenario that failed twice before a run rewrote the file has two lines; the last is current),
/// less those the output file has a record of ([`FailureTally::succeeded`]: resumed and done).
///
/// It holds one small entry per failed scenario (its id, agent and cause), so its memory grows
/// with the failures, never with the records.
#[derive(Debug, Clone, Default)]
pub struct FailureTally {
    current: HashMap<Box<str>, Entry>,
    /// Distinct reasons, in first-seen order, indexed by the entries above.
    reasons: Vec<String>,
    /// Distinct declared judges that failed, in first-seen order, indexed by the entries.
    judges: Vec<String>,
    /// Lines that were not failure records.
    unreadable: u64,
}

/// One current failure: the role or the declared judge (an index into the tally's names) whose
/// call failed, the cause, and the index of its reason.
type Entry = (Option<AgentKind>, Option<u16>, FailureCause, u32);

/// What a failure row groups by: the role, the declared judge, the cause.
type RowKey = (Option<AgentKind>, Option<u16>, FailureCause);

/// Why an errors file could not be tallied.
#[derive(Debug, thiserror::Error)]
pub enum TallyError {
    /// The file exists but cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The errors file.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Distinct reasons kept as examples; past this many, new reasons share the last example slot.
const MAX_REASONS: usize = 1_000;

impl FailureTally {
    /// Reads an errors file; a missing file is a run with no failures. Lines that are not
    /// failure records are counted ([`FailureTally::unreadable`]), not fatal: the errors file is
    /// a log of what went wrong and a report must still show the rest.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn read(path: &Path) -> Result<Self, TallyError> {
        let mut tally = Self::default();
        let reader = match RecordReader::<_, FailureRecord>::open(path) {
            Ok(reader) => reader,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(tally),
            Err(source) => {
                return Err(TallyError::Io {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        for item in reader {
            match item {
                Ok(located) => tally.add(&located.record),
                Err(RecordError::Io { source, .. }) => {
                    return Err(TallyError::Io {
                        path: path.to_owned(),
                        source,
                    });
                }
                Err(_) => tally.unreadable += 1,
            }
        }
        tracing::debug!(path = %path.display(), failed = tally.failed(), "errors file read");
        Ok(tally)
    }

    /// Counts one failure line (a later line of the same scenario replaces an earlier one).
    pub fn add(&mut self, failure: &FailureRecord) {
        let reason = match self.reasons.iter().position(|r| *r == failure.reason) {
            Some(i) => i,
            None if self.reasons.len() < MAX_REASONS => {
                self.reasons.push(failure.reason.clone());
                self.reasons.len() - 1
            }
            None => MAX_REASONS - 1,
        };
        let judge = failure.judge.as_ref().map(|name| {
            match self.judges.iter().position(|j| j == name.as_str()) {
                Some(i) => i,
                None if self.judges.len() < MAX_REASONS => {
                    self.judges.push(name.to_string());
                    self.judges.len() - 1
                }
                None => MAX_REASONS - 1,
            }
        });
        let entry = (
            failure.agent,
            judge.map(|i| u16::try_from(i).unwrap_or(u16::MAX)),
            FailureCause::of_reason(&failure.reason),
            u32::try_from(reason).unwrap_or(u32::MAX),
        );
        self.current.insert(failure.id.as_str().into(), entry);
    }

    /// The scenario `id` has a record: it no longer counts as failed.
    pub fn succeeded(&mut self, id: &str) {
        self.current.remove(id);
    }

    /// Scenarios that are failed now.
    #[must_use]
    pub fn failed(&self) -> u64 {
        self.current.len() as u64
    }

    /// Lines of the errors file that were not failure records.
    #[must_use]
    pub fn unreadable(&self) -> u64 {
        self.unreadable
    }

    /// The failures by agent and cause, most frequent first (then by agent and cause).
    #[must_use]
    pub fn rows(&self) -> Vec<FailureRow> {
        // By (role, declared judge, cause): scenarios and the earliest reason.
        let mut counts: BTreeMap<RowKey, (u64, u32)> = BTreeMap::new();
        for &(agent, judge, cause, reason) in self.current.values() {
            let entry = counts.entry((agent, judge, cause)).or_insert((0, reason));
            entry.0 += 1;
            // The example is the earliest-seen reason of the group, whatever the map's order.
            entry.1 = entry.1.min(reason);
        }
        let mut rows: Vec<FailureRow> = counts
            .into_iter()
            .map(|((agent, judge, cause), (scenarios, reason))| FailureRow {
                agent,
                judge: judge.and_then(|j| self.judges.get(usize::from(j)).cloned()),
                cause,
                scenarios,
                example: self
                    .reasons
                    .get(reason as usize)
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.scenarios));
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::CallTotals;

    fn failure(id: &str, agent: Option<AgentKind>, reason: &str) -> FailureRecord {
        FailureRecord {
            id: id.into(),
            index: 0,
            params: BTreeMap::new(),
            reason: reason.into(),
            agent,
            judge: None,
            fatal: false,
            totals: CallTotals::default(),
        }
    }

    #[test]
    fn reasons_sort_into_their_causes() {
        for (reason, cause) in [
            (
                "generator: rate limited after 5 attempts",
                FailureCause::RateLimited,
            ),
            (
                "fluency: server error (503) after 5 attempts: overloaded",
                FailureCause::ServerError,
            ),
            (
                "generator: connection failed after 5 attempts: tcp connect error",
                FailureCause::Connection,
            ),
            (
                "naturalness gave score = 42, outside 0–10",
                FailureCause::InvalidOutput,
            ),
            (
                "generator gave no usable batch in 3 tries: 1 usable text(s)",
                FailureCause::InvalidOutput,
            ),
            (
                "the run stopped before this scenario was done",
                FailureCause::Stopped,
            ),
            ("budget of $1.00 reached", FailureCause::Budget),
            ("something new", FailureCause::Other),
        ] {
            assert_eq!(FailureCause::of_reason(reason), cause, "{reason}");
        }
    }

    #[test]
    fn the_last_line_of_a_scenario_counts_and_a_record_clears_it() {
        let mut t = FailureTally::default();
        let g = Some(AgentKind::Generator);
        t.add(&failure("a", g, "generator: rate limited after 5 attempts"));
        t.add(&failure("b", g, "generator: rate limited after 5 attempts"));
        t.add(&failure("a", g, "generator: timed out after 5 attempts"));
        t.add(&failure("c", None, "no attempt was judged"));
        t.succeeded("c");
        t.succeeded("zzz");
        assert_eq!(t.failed(), 2);
        let rows = t.rows();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows.iter().all(|r| r.scenarios == 1 && r.agent == g));
        assert_eq!(
            rows.iter().map(|r| r.cause).collect::<Vec<_>>(),
            [FailureCause::RateLimited, FailureCause::Timeout]
        );
    }

    /// A failure of a judge the config declared is tallied under its name, not as a failure
    /// outside any call.
    #[test]
    fn a_declared_judge_s_failures_are_a_row_of_their_own() {
        let mut t = FailureTally::default();
        let mut toxic = failure(
            "a",
            None,
            "toxicity: toxicity gave toxicity_score = 42, outside 0–10",
        );
        toxic.judge = Some("toxicity".into());
        t.add(&toxic);
        toxic.id = "b".into();
        t.add(&toxic);
        t.add(&failure("c", None, "no attempt was judged"));
        let rows = t.rows();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].judge.as_deref(), Some("toxicity"));
        assert_eq!((rows[0].agent, rows[0].scenarios), (None, 2));
        assert_eq!(rows[0].cause, FailureCause::InvalidOutput);
        assert_eq!(rows[1].judge, None);
    }
}
