//! The `command` check: a program in any language judges the conversation. It is started in the
//! suite file's folder (no shell), gets one JSON document on stdin — the scenario, the turn the
//! check looks at, the transcript and the plan's calls — and must print one JSON object
//! `{"pass": bool, "score": number?, "reason": string}` on stdout and exit 0 (docs/suites.md,
//! "Your own checks"). Anything else is an error with where it went wrong, never a pass: a
//! program that cannot start, exits non-zero (with the end of its stderr), runs past its timeout
//! (it is killed, with its whole process group), prints more than [`MAX_OUTPUT_BYTES`] (read no further), or prints something
//! that is not that object (the parser's line and column, unknown fields named).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use scoring::expect::{CommandCheck, CustomOutcome};
use scoring::transcript::Transcript;

use crate::suite::SuiteScenario;

/// Largest answer read from a check's stdout (and kept of its stderr).
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// How long the pipes are still read once the program has exited, when something it started
/// keeps them open.
const PIPE_GRACE: Duration = Duration::from_millis(250);

/// The document a `command` check reads on stdin.
#[must_use]
pub fn input(scenario: &SuiteScenario, t: &Transcript, turn: usize) -> Value {
    let transcript: Vec<Value> = t
        .turns
        .iter()
        .map(|(user, bot)| json!({"user": user, "bot": bot}))
        .collect();
    let calls: Vec<Value> = t
        .turns
        .iter()
        .enumerate()
        .flat_map(|(i, (_, bot))| {
            bot.plan.iter().map(move |step| {
                json!({"turn": i + 1, "agent": step.agent, "function": step.function, "params": step.params})
            })
        })
        .collect();
    json!({
        "scenario": {
            "id": scenario.id,
            "name": scenario.name,
            "category": scenario.category.as_str(),
            "tags": scenario.tags,
            "params": scenario.params,
        },
        "turn": turn,
        "transcript": transcript,
        "calls": calls,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    pass: bool,
    #[serde(default)]
    score: Option<f64>,
    reason: String,
}

/// Runs the check with `input` on stdin; its verdict, or an error saying what went wrong.
pub async fn run(check: &CommandCheck, dir: &Path, input: &Value) -> CustomOutcome {
    let Some((program, args)) = check.argv.split_first() else {
        return CustomOutcome::Error("the command is empty".to_owned());
    };
    // A relative program path with a folder in it is the suite's, like the arguments.
    let program = if program.contains('/') && Path::new(program).is_relative() {
        dir.join(program).into_os_string()
    } else {
        program.into()
    };
    let mut cmd = Command::new(&program);
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group, so that what it starts can be killed with it.
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return CustomOutcome::Error(format!(
                "cannot start `{}` (in {}): {e}",
                check.argv.join(" "),
                dir.display()
            ));
        }
    };
    let group = child.id();
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        kill_group(group);
        return CustomOutcome::Error("the command's pipes could not be opened".to_owned());
    };
    let body = input.to_string();
    let (mut out, mut out_truncated) = (Vec::new(), false);
    let (mut err, mut err_truncated) = (Vec::new(), false);
    let work = async {
        // A check that never reads its stdin must not block the write: it gets what it reads.
        let write = async {
            let _ = stdin.write_all(body.as_bytes()).await;
            drop(stdin);
        };
        let pipes = async {
            tokio::join!(
                write,
                read_capped(stdout, &mut out, &mut out_truncated),
                read_capped(stderr, &mut err, &mut err_truncated)
            );
        };
        tokio::pin!(pipes);
        let exited = child.wait();
        tokio::pin!(exited);
        tokio::select! {
            () = &mut pipes => exited.await,
            status = &mut exited => {
                // It exited, but something it started may hold its pipes open: what they hold
                // is read for a short, bounded grace, not until the timeout.
                let _ = tokio::time::timeout(PIPE_GRACE, &mut pipes).await;
                status
            }
        }
    };
    let waited = tokio::time::timeout(Duration::from_millis(check.timeout_ms), work).await;
    // Whatever the program left behind (background children) goes with it.
    kill_group(group);
    let Ok(status) = waited else {
        return CustomOutcome::Error(format!(
            "timed out after {} ms (the process and its process group were killed)",
            check.timeout_ms
        ));
    };
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            return CustomOutcome::Error(format!(
                "the command exited with {s}{}",
                stderr_tail(&err)
            ));
        }
        Err(e) => return CustomOutcome::Error(format!("waiting for the command: {e}")),
    }
    if out_truncated {
        return CustomOutcome::Error(format!(
            "the command printed more than {MAX_OUTPUT_BYTES} bytes; an answer is one JSON \
             object {{pass, score?, reason}}"
        ));
    }
    parse_answer(&out)
}

/// The verdict in a check's stdout, or where it is not one.
fn parse_answer(out: &[u8]) -> CustomOutcome {
    let Ok(text) = std::str::from_utf8(out) else {
        return CustomOutcome::Error(format!(
            "the command's answer is not UTF-8 JSON (stdout: {})",
            preview(&String::from_utf8_lossy(out))
        ));
    };
    match serde_json::from_str::<Answer>(text.trim()) {
        Ok(a) => match a.score {
            Some(s) if !(s.is_finite() && (0.0..=1.0).contains(&s)) => CustomOutcome::Error(
                format!("the command's `score` must be a number from 0 to 1, got {s}"),
            ),
            score => CustomOutcome::Verdict {
                passed: a.pass,
                score,
                reason: a.reason.trim().to_owned(),
            },
        },
        Err(e) => CustomOutcome::Error(format!(
            "the command's answer is not {{\"pass\": bool, \"score\": number?, \"reason\": \
             string}}: {e} (stdout: {})",
            preview(text)
        )),
    }
}

/// Reads at most [`MAX_OUTPUT_BYTES`] into `kept`, then drains the rest (so the process is not
/// blocked on a full pipe) without keeping it; `truncated` says whether anything was cut. What
/// was read stays in `kept` if the read is abandoned.
async fn read_capped<R: AsyncRead + Unpin>(mut r: R, kept: &mut Vec<u8>, truncated: &mut bool) {
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = MAX_OUTPUT_BYTES.saturating_sub(kept.len());
                if n > room {
                    *truncated = true;
                }
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

/// Kills the check's process group (the program and everything it started that stayed in
/// it). A group already gone is no error.
#[cfg(unix)]
fn kill_group(group: Option<u32>) {
    // Never group 0 (the caller's own group) or 1: only a real child's group is signalled.
    let Some(pgid) = group
        .and_then(|g| libc::pid_t::try_from(g).ok())
        .filter(|g| *g > 1)
    else {
        return;
    };
    // SAFETY: `killpg` only sends a signal; its arguments are plain integers. The group is
    // the one the program was started as the leader of (`process_group(0)`).
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_group: Option<u32>) {}

fn stderr_tail(err: &[u8]) -> String {
    let text = String::from_utf8_lossy(err);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let tail: String = text
        .chars()
        .rev()
        .take(300)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("; stderr: {tail}")
}

fn preview(text: &str) -> String {
    let flat = text.trim();
    if flat.chars().count() <= 80 {
        format!("{flat:?}")
    } else {
        let cut: String = flat.chars().take(77).collect();
        format!("\"{cut}...\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_strict() {
        assert!(matches!(
            parse_answer(br#"{"pass": true, "score": 0.5, "reason": "ok"}"#),
            CustomOutcome::Verdict {
                passed: true,
                score: Some(_),
                ..
            }
        ));
        for bad in [
            &br#"{"pass": "true", "reason": "ok"}"#[..],
            br#"{"pass": true}"#,
            br#"{"pass": true, "reason": "ok", "extra": 1}"#,
            br#"{"pass": true, "score": 2, "reason": "ok"}"#,
            b"PASS",
            b"",
            b"{\"pass\": true, \"reason\": \"ok \xff\"}",
        ] {
            match parse_answer(bad) {
                CustomOutcome::Error(e) => assert!(!e.is_empty()),
                v @ CustomOutcome::Verdict { .. } => panic!("{v:?} from {bad:?}"),
            }
        }
        match parse_answer(b"{\"pass\": true,\n \"reasn\": \"x\"}") {
            CustomOutcome::Error(e) => assert!(e.contains("line 2"), "{e}"),
            v @ CustomOutcome::Verdict { .. } => panic!("{v:?}"),
        }
    }
}
