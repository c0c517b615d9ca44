//! `ToolClient`: one MCP tool server started as a child process speaking MCP on its stdio (the
//! `rmcp` SDK's client), its tool checked to exist at connect, and calls to it that give
//! [`Article`]s. Every step is bounded by the configured timeout; the child is killed when the
//! client is dropped.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService, ServiceError, ServiceExt};
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Notify;

use crate::article::{ArticleLimits, ArticleProblem, article_from_result};
use crate::error::brief;
use crate::{Article, GroundingError};

/// A tool server started as a command (its program and arguments) speaking MCP on stdio.
///
/// The server does not inherit the engine's environment (which holds API keys): it starts
/// with the variables of [`INHERITED_ENV`] (and `LC_*`) the engine has, plus `env`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerCommand {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Variables set for the server, over the inherited ones.
    pub env: BTreeMap<String, String>,
}

/// The variables a tool server inherits from the engine's environment (and every `LC_*`):
/// what a program needs to run, never a secret.
pub const INHERITED_ENV: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
    "TERM",
];

impl ServerCommand {
    /// The command as one line, for messages: each word with control characters escaped.
    #[must_use]
    pub fn display(&self) -> String {
        self.argv
            .iter()
            .map(|w| w.escape_debug().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The environment the server starts with: [`INHERITED_ENV`] and `LC_*` from `inherited`,
    /// then `env`.
    #[must_use]
    pub fn environment(
        &self,
        inherited: impl IntoIterator<Item = (String, String)>,
    ) -> BTreeMap<String, String> {
        let mut vars: BTreeMap<String, String> = inherited
            .into_iter()
            .filter(|(k, _)| INHERITED_ENV.contains(&k.as_str()) || k.starts_with("LC_"))
            .collect();
        vars.extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        vars
    }
}

/// The longest message a server may send (one line of JSON-RPC): the SDK's own default, 16 MiB.
/// A longer one is discarded, and the call it answered fails at once with the reason.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// A connected tool server and the tool that grounds scenarios.
#[derive(Debug)]
pub struct ToolClient {
    service: RunningService<RoleClient, ()>,
    tool: String,
    timeout: Duration,
    limits: ArticleLimits,
    /// Told when the server sends a message the transport drops (over [`MAX_MESSAGE_BYTES`],
    /// or not UTF-8), with the reason.
    dropped: Arc<Dropped>,
    /// The server's process, killed when the client is dropped.
    _child: tokio::process::Child,
}

impl ToolClient {
    /// Starts `server`, completes the MCP handshake, lists its tools and checks that `tool` is
    /// one of them — each step within `timeout`.
    ///
    /// # Errors
    /// [`GroundingError::Spawn`], [`GroundingError::Handshake`], [`GroundingError::Timeout`],
    /// [`GroundingError::Closed`], [`GroundingError::ToolMissing`].
    pub async fn connect(
        server: &ServerCommand,
        tool: &str,
        timeout: Duration,
        limits: ArticleLimits,
    ) -> Result<Self, GroundingError> {
        let command = server.display();
        let Some((program, args)) = server.argv.split_first() else {
            return Err(GroundingError::Spawn {
                command,
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
            });
        };
        let env = server.environment(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
        );
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .env_clear()
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| GroundingError::Spawn {
                command: command.clone(),
                source,
            })?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(GroundingError::Spawn {
                command,
                source: std::io::Error::other("no pipe to the server"),
            });
        };
        let dropped = Arc::new(Dropped::default());
        let watched = LineWatch {
            inner: stdout,
            line: 0,
            told: false,
            carry: Vec::new(),
            dropped: Arc::clone(&dropped),
        };
        let transport = AsyncRwTransport::<RoleClient, _, _>::new_client(watched, stdin)
            .with_max_line_length(MAX_MESSAGE_BYTES);
        tracing::debug!(%command, "tool server started");
        let service = tokio::time::timeout(timeout, ().serve(transport))
            .await
            .map_err(|_| GroundingError::Timeout {
                what: "the handshake".into(),
                timeout,
            })?
            .map_err(|e| GroundingError::Handshake {
                command: command.clone(),
                reason: brief(&e.to_string(), 300),
            })?;
        let client = Self {
            service,
            tool: tool.to_owned(),
            timeout,
            limits,
            dropped,
            _child: child,
        };
        let tools = tokio::time::timeout(timeout, client.service.list_all_tools())
            .await
            .map_err(|_| GroundingError::Timeout {
                what: "tools/list".into(),
                timeout,
            })?
            .map_err(|e| service_error(e, tool))?;
        if !tools.iter().any(|t| t.name == tool) {
            let offered: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            return Err(GroundingError::ToolMissing {
                tool: tool.to_owned(),
                offered: if offered.is_empty() {
                    "none".into()
                } else {
                    offered.join(", ")
                },
            });
        }
        tracing::info!(%command, tool, tools = tools.len(), "tool server ready");
        Ok(client)
    }

    /// The tool that grounds scenarios.
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Calls the tool with `arguments` and reads the article it returns.
    ///
    /// # Errors
    /// [`GroundingError::Timeout`], [`GroundingError::Closed`], [`GroundingError::ToolFailed`],
    /// [`GroundingError::BadArticle`].
    pub async fn fetch(&self, arguments: Map<String, Value>) -> Result<Article, GroundingError> {
        if self.service.is_closed() {
            return Err(GroundingError::Closed {
                reason: "the server exited".into(),
            });
        }
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let call = tokio::time::timeout(self.timeout, self.service.call_tool(params));
        // A reply the transport drops (over its line limit, or not UTF-8) would leave the call
        // waiting for the timeout, and then read as a hung server. One call at a time, so the
        // message is its.
        let result = tokio::select! {
            result = call => result,
            () = self.dropped.notify.notified() => {
                let reason = self
                    .dropped
                    .reason
                    .lock()
                    .ok()
                    .and_then(|r| r.clone())
                    .unwrap_or_else(|| "the reply was discarded".into());
                return Err(GroundingError::BadArticle {
                    tool: self.tool.clone(),
                    reason,
                });
            }
        }
        .map_err(|_| GroundingError::Timeout {
            what: format!("tools/call {}", self.tool),
            timeout: self.timeout,
        })?
        .map_err(|e| service_error(e, &self.tool))?;
        let json = serde_json::to_value(&result).map_err(|e| GroundingError::BadArticle {
            tool: self.tool.clone(),
            reason: format!("the result cannot be read: {e}"),
        })?;
        let article = article_from_result(&json, &self.tool, self.limits).map_err(|p| match p {
            ArticleProblem::ToolError(message) => GroundingError::ToolFailed {
                tool: self.tool.clone(),
                message,
            },
            ArticleProblem::Unusable(reason) => GroundingError::BadArticle {
                tool: self.tool.clone(),
                reason,
            },
        })?;
        tracing::debug!(tool = %self.tool, title = %article.title, chars = article.text.len(),
                        truncated = article.truncated, "article fetched");
        Ok(article)
    }

    /// Ends the session and stops the server.
    pub async fn close(self) {
        if let Err(e) = self.service.cancel().await {
            tracing::debug!(error = %e, "tool server did not stop cleanly");
        }
    }
}

/// Why the transport dropped a message, and the call waiting for it told.
#[derive(Debug, Default)]
struct Dropped {
    notify: Notify,
    reason: std::sync::Mutex<Option<String>>,
}

impl Dropped {
    fn tell(&self, reason: String) {
        tracing::warn!(%reason, "tool server sent a message that was dropped");
        if let Ok(mut r) = self.reason.lock() {
            *r = Some(reason);
        }
        // Wakes the call waiting now; no permit is stored for a later one.
        self.notify.notify_waiters();
    }
}

/// The server's stdout, watched for a line (a message) the transport discards — longer than
/// [`MAX_MESSAGE_BYTES`], or not UTF-8 —: the call waiting for it is told at once.
struct LineWatch<R> {
    inner: R,
    /// Bytes of the current line so far.
    line: usize,
    /// Whether the current line was told about already.
    told: bool,
    /// The end of the last read that may begin a UTF-8 character (at most 3 bytes).
    carry: Vec<u8>,
    dropped: Arc<Dropped>,
}

impl<R> LineWatch<R> {
    /// Looks at one piece of a line (`chunk`, ending at a newline or at the read's end).
    fn watch(&mut self, chunk: &[u8]) {
        self.line += chunk.len();
        if self.line > MAX_MESSAGE_BYTES && !self.told {
            self.told = true;
            self.dropped.tell(format!(
                "the reply is over {} MiB and was discarded",
                MAX_MESSAGE_BYTES / (1024 * 1024)
            ));
        }
        if !self.told {
            let mut bytes = std::mem::take(&mut self.carry);
            bytes.extend_from_slice(chunk);
            match std::str::from_utf8(&bytes) {
                Ok(_) => {}
                // A character cut by the read's end: its first bytes wait for the next read.
                Err(e) if e.error_len().is_none() && !chunk.ends_with(b"\n") => {
                    self.carry = bytes[e.valid_up_to()..].to_vec();
                }
                Err(e) => {
                    self.told = true;
                    self.dropped.tell(format!(
                        "the reply is not UTF-8 (byte {} of its line) and was discarded",
                        self.line - chunk.len() + e.valid_up_to() + 1
                    ));
                }
            }
        }
        if chunk.ends_with(b"\n") {
            self.line = 0;
            self.told = false;
            self.carry.clear();
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineWatch<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if polled.is_ready() {
            let fresh = buf.filled()[before..].to_vec();
            for chunk in fresh.split_inclusive(|b| *b == b'\n') {
                self.watch(chunk);
            }
        }
        polled
    }
}

/// A service error in the crate's words: a JSON-RPC error from the server is the tool's
/// failure; a closed transport is [`GroundingError::Closed`].
fn service_error(error: ServiceError, tool: &str) -> GroundingError {
    match error {
        ServiceError::McpError(e) => GroundingError::ToolFailed {
            tool: tool.to_owned(),
            message: brief(&e.message, 300),
        },
        ServiceError::Timeout { timeout } => GroundingError::Timeout {
            what: format!("tools/call {tool}"),
            timeout,
        },
        ServiceError::TransportClosed => GroundingError::Closed {
            reason: "the server exited or closed its output".into(),
        },
        // The server answered, with something that is no `tools/call` result (`result: null`,
        // `content` not a list …): that call's failure, not a dead server.
        ServiceError::UnexpectedResponse => GroundingError::BadArticle {
            tool: tool.to_owned(),
            reason: "the reply is not a tools/call result (no `content` list)".into(),
        },
        other => GroundingError::Closed {
            reason: brief(&other.to_string(), 300),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect(argv: &[&str], timeout_ms: u64) -> Result<ToolClient, GroundingError> {
        let server = ServerCommand {
            argv: argv.iter().map(|s| (*s).to_owned()).collect(),
            ..ServerCommand::default()
        };
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(ToolClient::connect(
                &server,
                "news",
                Duration::from_millis(timeout_ms),
                ArticleLimits::default(),
            ))
    }

    #[test]
    fn a_server_that_cannot_start_exits_prints_garbage_or_hangs_is_a_server_down_error() {
        let missing = connect(&["/nonexistent/news-server"], 5000).expect_err("no program");
        assert!(matches!(missing, GroundingError::Spawn { .. }), "{missing}");
        assert!(missing.server_down());
        let exits = connect(&["true"], 5000).expect_err("exits");
        assert!(matches!(exits, GroundingError::Handshake { .. }), "{exits}");
        let garbage =
            connect(&["sh", "-c", "echo garbage; echo '{}'; sleep 30"], 1000).expect_err("garbage");
        assert!(garbage.server_down(), "{garbage}");
        let hangs = connect(&["sleep", "30"], 300).expect_err("hangs");
        assert!(matches!(hangs, GroundingError::Timeout { .. }), "{hangs}");
        assert!(hangs.to_string().contains("within 300ms"), "{hangs}");
    }

    /// Review 31c, F2: the server inherited the engine's environment, API keys included.
    #[test]
    fn the_server_starts_with_a_cleared_environment_and_the_variables_named() {
        let server = ServerCommand {
            argv: vec!["news".into()],
            env: BTreeMap::from([("NEWS_KEY".to_owned(), "n1".to_owned())]),
        };
        let inherited = [
            ("OPENAI_API_KEY", "sk-secret"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("SCENARIO_ENGINE_API_KEY", "k"),
            ("MY_TOKEN", "t"),
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let env = server.environment(inherited);
        assert_eq!(
            env.keys().map(String::as_str).collect::<Vec<_>>(),
            ["LC_ALL", "NEWS_KEY", "PATH"]
        );
        // And a real child sees no more than that: this test's own environment (CARGO_* …)
        // does not reach it.
        let dir = std::env::temp_dir().join(format!("grounding-env-{}", std::process::id()));
        let file = dir.with_extension("txt");
        let file_arg = file.to_string_lossy().into_owned();
        let server = ServerCommand {
            argv: vec!["sh".into(), "-c".into(), "env > \"$0\"".into(), file_arg],
            env: BTreeMap::from([("NEWS_KEY".to_owned(), "n1".to_owned())]),
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let exits = runtime
            .block_on(ToolClient::connect(
                &server,
                "news",
                Duration::from_secs(10),
                ArticleLimits::default(),
            ))
            .expect_err("the command exits");
        assert!(exits.server_down(), "{exits}");
        let seen = std::fs::read_to_string(&file).expect("the child wrote its environment");
        let _ = std::fs::remove_file(&file);
        let names: Vec<&str> = seen
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|p| p.0)
            .collect();
        assert!(names.contains(&"NEWS_KEY"), "{names:?}");
        assert!(
            names.iter().all(|n| INHERITED_ENV.contains(n)
                || n.starts_with("LC_")
                || ["NEWS_KEY", "PWD", "OLDPWD", "SHLVL", "_"].contains(n)),
            "{names:?}"
        );
        assert!(
            std::env::vars().any(|(k, _)| k.starts_with("CARGO")),
            "cargo sets CARGO_*"
        );
    }

    /// Review 31c, F7: a reply line that is not UTF-8 was dropped by the transport silently,
    /// and the call waited out the timeout; F6: `result: null` read as a closed connection.
    #[test]
    fn a_reply_not_utf8_is_told_at_once_and_an_odd_result_is_the_call_s_failure() {
        let dropped = Arc::new(Dropped::default());
        let mut watch = LineWatch {
            inner: (),
            line: 0,
            told: false,
            carry: Vec::new(),
            dropped: Arc::clone(&dropped),
        };
        let e_acute = "é".as_bytes();
        watch.watch(&[b"{\"a\": \"caf".as_slice(), &e_acute[..1]].concat());
        watch.watch(&[&e_acute[1..], b"\"}\n".as_slice()].concat());
        assert_eq!(
            *dropped.reason.lock().expect("lock"),
            None,
            "a split character is fine"
        );
        watch.watch(b"{\"text\": \"\xff\xfe\"}\n");
        let reason = dropped.reason.lock().expect("lock").clone().expect("told");
        assert!(reason.contains("not UTF-8 (byte 11"), "{reason}");
        let odd = service_error(ServiceError::UnexpectedResponse, "news");
        assert!(matches!(odd, GroundingError::BadArticle { .. }), "{odd}");
        assert!(!odd.server_down());
    }
}
