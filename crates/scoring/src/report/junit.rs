//! JUnit XML of a suite result, for CI: one `testsuite` for the suite, one `testcase` per
//! scenario. A scenario whose bot failed to answer (a failed `botError` check) or whose LLM judge
//! did (`judgeError`) is an `<error>`, any other failed scenario a `<failure>`; both carry the verdict run's reasons as the message
//! and its Check Details as the body. Every testcase carries its transcript in `<system-out>`,
//! escaped and cut at [`SYSTEM_OUT_MAX_BYTES`]. Characters XML 1.0 cannot carry are dropped.

use std::fmt::Write as _;

use crate::report::{ReportError, render_text};
use crate::suite_result::{ScenarioResult, SuiteResult};
use crate::transcript::Transcript;

/// The most transcript text one testcase's `<system-out>` carries, in bytes (before escaping).
pub const SYSTEM_OUT_MAX_BYTES: usize = 16 * 1024;

/// The JUnit XML of `result`.
///
/// # Errors
/// A [`ReportError`] when a Check Details template fails to render (a bug, not bad input).
pub fn junit_xml(result: &SuiteResult) -> Result<String, ReportError> {
    let not_run: &[String] = result
        .interrupted
        .as_ref()
        .map_or(&[], |i| i.not_run.as_slice());
    let skipped = not_run.len();
    let total = result.scenarios.len() + skipped;
    let errors = result
        .scenarios
        .iter()
        .filter(|s| !s.passed() && error_type(s).is_some())
        .count();
    let failures = result.scenarios.iter().filter(|s| !s.passed()).count() - errors;
    let suite = escape(&result.suite);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"scenario-engine\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\">"
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{suite}\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">"
    );
    if let Some(i) = &result.interrupted {
        // A partial result says so where CI tools look: a property, and the scenarios that
        // did not run as skipped testcases.
        let _ = writeln!(
            xml,
            "    <properties>\n      <property name=\"partial\" value=\"interrupted: {} of {} runs done\"/>\n    </properties>",
            i.runs_done, i.runs_planned
        );
    }
    for s in &result.scenarios {
        testcase(&mut xml, &suite, result.repeat, s)?;
    }
    for id in not_run {
        let id = escape(id);
        let _ = writeln!(
            xml,
            "    <testcase classname=\"{suite}.not-run\" name=\"{id}\" time=\"0.000\">\n      <skipped message=\"not run: the run was interrupted\"/>\n    </testcase>"
        );
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    Ok(xml)
}

fn testcase(
    xml: &mut String,
    suite: &str,
    repeat: u32,
    s: &ScenarioResult,
) -> Result<(), ReportError> {
    let millis: u64 = s
        .runs
        .iter()
        .flat_map(|r| r.transcript.turns.iter().map(|(_, t)| t.latency_ms))
        .sum();
    #[allow(clippy::cast_precision_loss)] // milliseconds far below 2^53
    let seconds = millis as f64 / 1000.0;
    let _ = writeln!(
        xml,
        "    <testcase classname=\"{suite}.{}\" name=\"{}\" time=\"{seconds:.3}\">",
        escape(&s.category),
        escape(&format!("{}: {}", s.id, s.name)),
    );
    if !s.passed()
        && let Some(run) = s.verdict_run()
    {
        let reasons: Vec<String> = run
            .report
            .card
            .reasons()
            .iter()
            .map(ToString::to_string)
            .collect();
        let mut message = reasons.join("; ");
        if repeat > 1 {
            let _ = write!(
                message,
                " ({}/{} runs passed)",
                s.passed_runs(),
                s.runs.len()
            );
        }
        let (element, kind) = match error_type(s) {
            Some(kind) => ("error", kind),
            None => ("failure", "ScenarioFailed"),
        };
        let _ = writeln!(
            xml,
            "      <{element} message=\"{}\" type=\"{kind}\">{}</{element}>",
            escape(&message),
            escape(&render_text(&run.report)?)
        );
    }
    let _ = writeln!(
        xml,
        "      <system-out>{}</system-out>\n    </testcase>",
        escape(&system_out(s))
    );
    Ok(())
}

/// The `type` of a scenario's `<error>`: its bot or its judge failed to answer.
fn error_type(s: &ScenarioResult) -> Option<&'static str> {
    if s.bot_error().is_some() {
        Some("BotError")
    } else {
        s.judge_error().map(|_| "JudgeError")
    }
}

/// The transcripts of a scenario's runs as plain text, cut at [`SYSTEM_OUT_MAX_BYTES`].
fn system_out(s: &ScenarioResult) -> String {
    let mut out = String::new();
    for (i, run) in s.runs.iter().enumerate() {
        if s.runs.len() > 1 {
            let _ = writeln!(out, "--- run {} of {}", i + 1, s.runs.len());
        }
        transcript_text(&mut out, &run.transcript);
        if out.len() > SYSTEM_OUT_MAX_BYTES {
            break;
        }
    }
    if out.len() > SYSTEM_OUT_MAX_BYTES {
        let total = out.len();
        let mut cut = SYSTEM_OUT_MAX_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        let _ = writeln!(out, "\n[transcript cut at {cut} of {total}+ bytes]");
    }
    out
}

fn transcript_text(out: &mut String, transcript: &Transcript) {
    for (n, (user, turn)) in transcript.turns.iter().enumerate() {
        let _ = writeln!(out, "[turn {}] user: {user}", n + 1);
        if let Some(error) = &turn.error {
            let _ = writeln!(out, "[turn {}] bot error: {error}", n + 1);
            continue;
        }
        let _ = writeln!(out, "[turn {}] bot: {}", n + 1, turn.text);
        for call in &turn.plan {
            let params = serde_json::Value::Object(call.params.clone());
            let _ = writeln!(
                out,
                "[turn {}] call: {}{}{} {params}",
                n + 1,
                call.agent,
                if call.agent.is_empty() { "" } else { "." },
                call.function
            );
        }
        if let Some(kind) = turn.response_type {
            let _ = writeln!(out, "[turn {}] response type: {kind}", n + 1);
        }
    }
}

/// Escapes text for XML attributes and content, dropping characters XML 1.0 cannot carry.
#[must_use]
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite_result::RunResult;
    use crate::transcript::BotTurn;
    use crate::{Check, CheckKind, ScenarioReport, ScoreCard, ScorePolicy};

    #[test]
    fn escape_covers_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("bell\u{7}line\n"), "bellline\n");
    }

    #[test]
    fn system_out_is_cut_on_a_character_boundary() {
        let mut transcript = Transcript::default();
        transcript.push(
            "hi",
            BotTurn {
                text: "é".repeat(SYSTEM_OUT_MAX_BYTES),
                ..BotTurn::default()
            },
        );
        let check = Check::pass(CheckKind::ShouldContain, "shouldContain", "ok");
        let report = ScenarioReport::new(
            "s",
            "S",
            "custom",
            ScoreCard::new(vec![check], &ScorePolicy::default()),
        );
        let s = ScenarioResult {
            id: "s".to_owned(),
            name: "S".to_owned(),
            category: "custom".to_owned(),
            tags: Vec::new(),
            expected_outcome: None,
            runs: vec![RunResult {
                transcript,
                report,
                judge: crate::suite_result::JudgeTally::default(),
                unreachable: None,
                checks: crate::suite_result::CheckSpend::default(),
            }],
        };
        let out = system_out(&s);
        assert!(out.len() < SYSTEM_OUT_MAX_BYTES + 100, "{}", out.len());
        assert!(out.ends_with("bytes]\n"), "{}", &out[out.len() - 40..]);
    }
}
