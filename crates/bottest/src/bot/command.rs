//! The `command` adapter: one process per conversation, speaking JSON lines. For each user turn
//! the adapter writes `{"message": …, "history": [{"user": …, "bot": …}, …]}` and one line to
//! stdin, and reads one line from stdout: a reply object (`text`, `plan`, `response_type`,
//! `signals`, `outcome`), validated strictly (see [`super::reply`]). A reply line longer than
//! `max_reply_bytes` is a bot error, found without holding more than the cap in memory. The
//! process is killed when the bot is dropped.
//!
//! One turn, one line: output beyond the reply line would be read as the next turn's reply and
//! shift every later one, so extra output is a bot error. It is caught when it is already there
//! as the reply line is read (the same write or read), and again before the next message is sent;
//! a line the bot prints later still, while the engine waits for the next reply, cannot be told
//! apart from that reply (docs/suites.md, "Bot replies").

use std::process::Stdio;

use futures::FutureExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::reply::default_max_reply_bytes;
use super::{Bot, BotError, History, TurnFuture, parse_reply, read_line_capped, turn_from_json};

/// Settings of the `command` adapter in a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Largest reply line accepted, in bytes (default 1 MiB); a longer one is a bot error.
    #[serde(default = "default_max_reply_bytes")]
    pub max_reply_bytes: usize,
}

/// A bot that is a child process.
pub struct CommandBot {
    // Held so the process lives (and is killed on drop) with the bot.
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    max_reply_bytes: usize,
}

impl CommandBot {
    /// Starts the process.
    ///
    /// # Errors
    /// [`BotError::Command`] when it cannot be spawned.
    pub fn spawn(spec: &CommandSpec) -> Result<Self, BotError> {
        let mut child = Command::new(&spec.program)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                let why = format!("cannot start `{}`: {e}", spec.program);
                // No such program (or not executable): the bot does not exist here.
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
                ) {
                    BotError::Unreachable(why)
                } else {
                    BotError::Command(why)
                }
            })?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| BotError::Command("no stdin".to_owned()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BotError::Command("no stdout".to_owned()))?;
        Ok(Self {
            _child: child,
            stdin,
            stdout: BufReader::new(stdout),
            max_reply_bytes: spec.max_reply_bytes,
        })
    }
}

impl CommandBot {
    /// Output already waiting before a message is sent (none is expected): what is buffered, or
    /// what one read finds ready after letting the runtime poll the pipe once.
    async fn pending_output(&mut self) -> Option<Vec<u8>> {
        if !self.stdout.buffer().is_empty() {
            return Some(self.stdout.buffer().to_vec());
        }
        tokio::task::yield_now().await;
        match self.stdout.fill_buf().now_or_never() {
            Some(Ok(buf)) if !buf.is_empty() => Some(buf.to_vec()),
            _ => None,
        }
    }
}

/// The start of unexpected output, for the error message.
fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]);
    format!("{:?}", text.trim_end())
}

impl Bot for CommandBot {
    fn turn<'a>(&'a mut self, history: &'a History, message: &'a str) -> TurnFuture<'a> {
        Box::pin(async move {
            if let Some(extra) = self.pending_output().await {
                return Err(BotError::Protocol(format!(
                    "the bot printed more than one line for turn {}: extra output {}",
                    history.len(),
                    preview(&extra)
                )));
            }
            let history: Vec<serde_json::Value> = history
                .iter()
                .map(|(user, bot)| serde_json::json!({"user": user, "bot": bot.text}))
                .collect();
            let mut line = serde_json::json!({"message": message, "history": history}).to_string();
            line.push('\n');
            self.stdin
                .write_all(line.as_bytes())
                .await
                .map_err(|e| BotError::Command(format!("write to stdin: {e}")))?;
            self.stdin
                .flush()
                .await
                .map_err(|e| BotError::Command(format!("flush: {e}")))?;
            let reply = read_line_capped(&mut self.stdout, self.max_reply_bytes)
                .await?
                .ok_or_else(|| BotError::Command("the process closed stdout".to_owned()))?;
            if !self.stdout.buffer().is_empty() {
                return Err(BotError::Protocol(format!(
                    "the bot printed more than one line for this turn: extra output {}",
                    preview(self.stdout.buffer())
                )));
            }
            turn_from_json(parse_reply(&reply)?)
        })
    }
}
