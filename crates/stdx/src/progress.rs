//! The progress of a long job (a pipeline run, a bot suite), laid out one way for every front
//! end: a [`Reading`] is a snapshot of plain numbers that a library fills and a front end shows,
//! as a progress bar's message ([`Reading::message`]) or as a periodic line ([`Reading::line`]);
//! [`TransportTally::summary`] is the closing line of what the transport absorbed.
//!
//! Retries, rate limits, cooldowns and circuit-breaker pauses are counted here rather than
//! logged one by one: they are the transport doing its job, and a warning per retry buried the
//! progress of a run against a flaky server. Only a pause (no endpoint answers) is shown as a
//! state, because a person may have to act on it.

use std::fmt::Write as _;
use std::time::Duration;

/// What the transport went through so far: the retries, rate limits, cooldowns and
/// circuit-breaker trips a job absorbs without a word, and whether requests wait for an
/// endpoint now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransportTally {
    /// Retries of failed requests (429, 5xx, timeouts, connection errors).
    pub retries: u64,
    /// 429 answers (rate limits).
    pub rate_limited: u64,
    /// Cooldowns of an endpoint of a fleet.
    pub cooldowns: u64,
    /// Times an endpoint left the rotation after failures in a row (the circuit breaker).
    pub trips: u64,
    /// Times every endpoint was out at once, so requests waited for a health check.
    pub pauses: u64,
    /// Requests are waiting for an endpoint to come back now.
    pub paused: bool,
}

impl TransportTally {
    /// `retries 12 (rate limits 4), cooldowns 1, out of rotation 2×`: only what happened;
    /// empty when nothing did.
    #[must_use]
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if self.retries > 0 || self.rate_limited > 0 {
            parts.push(format!(
                "retries {} (rate limits {})",
                self.retries, self.rate_limited
            ));
        }
        if self.cooldowns > 0 {
            parts.push(format!("cooldowns {}", self.cooldowns));
        }
        if self.trips > 0 {
            parts.push(format!("out of rotation {}×", self.trips));
        }
        if self.pauses > 0 {
            parts.push(format!("paused {}×", self.pauses));
        }
        parts.join(", ")
    }

    /// The closing line of a job: `transport: …` with every count, or `None` when the
    /// transport had nothing to absorb.
    #[must_use]
    pub fn summary(&self) -> Option<String> {
        let words = self.words();
        (!words.is_empty()).then(|| format!("transport: {words}"))
    }
}

/// One reading of a job's progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// Items this process finished (written or failed).
    pub done: u64,
    /// Items this process has to do, `done` included.
    pub total: u64,
    /// Named counts shown after the position, in order (`accepted 12`, `failed 1`).
    pub counts: Vec<(&'static str, u64)>,
    /// Tokens so far.
    pub tokens: u64,
    /// Generated tokens per second since the start.
    pub tok_per_s: f64,
    /// The spend, formatted by the caller (the money format is not this crate's).
    pub cost: String,
    /// What the transport absorbed.
    pub transport: TransportTally,
}

impl Reading {
    /// The message beside a progress bar (which shows the position, rate and ETA itself).
    #[must_use]
    pub fn message(&self) -> String {
        let mut out = self.counts_text();
        let _ = write!(
            out,
            " tokens {} ({:.1} tok/s) {}",
            self.tokens, self.tok_per_s, self.cost
        );
        self.push_transport(&mut out);
        out
    }

    /// A line for a log or CI output, `elapsed` since the start (for the rate and the ETA).
    #[must_use]
    pub fn line(&self, elapsed: Duration) -> String {
        let secs = elapsed.as_secs_f64().max(1e-3);
        let rate = self.done as f64 / secs;
        let remaining = self.total.saturating_sub(self.done);
        let eta = if rate > 0.0 {
            format!("{:.0}s", remaining as f64 / rate)
        } else {
            "?".into()
        };
        let counts: Vec<String> = self
            .counts
            .iter()
            .map(|(name, n)| format!("{n} {name}"))
            .collect();
        let mut out = format!("progress: {}/{} done", self.done, self.total);
        for c in counts {
            let _ = write!(out, ", {c}");
        }
        let _ = write!(
            out,
            ", {rate:.1}/s, ETA {eta}, {} tokens ({:.1} generated tok/s), {}",
            self.tokens, self.tok_per_s, self.cost
        );
        self.push_transport(&mut out);
        out
    }

    fn counts_text(&self) -> String {
        self.counts
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn push_transport(&self, out: &mut String) {
        let words = self.transport.words();
        if !words.is_empty() {
            let _ = write!(out, "; {words}");
        }
        if self.transport.paused {
            out.push_str("; PAUSED: no endpoint answers, waiting for a health check");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_transport_says_nothing_and_a_busy_one_counts_everything() {
        assert_eq!(TransportTally::default().summary(), None);
        let busy = TransportTally {
            retries: 12,
            rate_limited: 4,
            cooldowns: 1,
            trips: 2,
            pauses: 1,
            paused: false,
        };
        assert_eq!(
            busy.summary().as_deref(),
            Some(
                "transport: retries 12 (rate limits 4), cooldowns 1, out of rotation 2×, paused 1×"
            )
        );
    }

    #[test]
    fn the_line_and_the_message_carry_counts_transport_and_a_pause() {
        let reading = Reading {
            done: 10,
            total: 40,
            counts: vec![("accepted", 7), ("failed", 1)],
            tokens: 1200,
            tok_per_s: 30.0,
            cost: "$0.01".into(),
            transport: TransportTally {
                retries: 3,
                paused: true,
                ..TransportTally::default()
            },
        };
        let line = reading.line(Duration::from_secs(10));
        assert!(
            line.starts_with("progress: 10/40 done, 7 accepted, 1 failed, 1.0/s, ETA 30s"),
            "{line}"
        );
        assert!(line.contains("retries 3 (rate limits 0)"), "{line}");
        assert!(line.ends_with("waiting for a health check"), "{line}");
        let message = reading.message();
        assert!(
            message.starts_with("accepted 7 failed 1 tokens 1200"),
            "{message}"
        );
        assert!(message.contains("PAUSED"), "{message}");
    }
}
