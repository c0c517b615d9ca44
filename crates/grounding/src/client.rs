//! `ToolClient`: one MCP tool server started as a child process speaking MCP on its stdio (the
//! `rmcp` SDK's client), its tool checked to exist at connect, and calls to it that give
//! [`Article`]s. Every step is bounded by the configured timeout; the child is killed when the
//! client is dropped.

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerCommand {
    /// The program and its arguments.
    pub argv: Vec<String>,
}

impl ServerCommand {
    /// The command as one line, for messages.
    #[must_use]
    pub fn display(&self) -> String {
        self.argv.join(" ")
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
    /// Told when the server sends a message over [`MAX_MESSAGE_BYTES`].
    oversized: Arc<Notify>,
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
        let mut child = tokio::process::Command::new(program)
            .args(args)
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
        let oversized = Arc::new(Notify::new());
        let watched = LineWatch {
            inner: stdout,
            line: 0,
            told: false,
            oversized: Arc::clone(&oversized),
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
            oversized,
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
        // A reply over the transport's line limit is discarded: the call would wait for the
        // timeout, and then read as a hung server. One call at a time, so the message is its.
        let result = tokio::select! {
            result = call => result,
            () = self.oversized.notified() => {
                return Err(GroundingError::BadArticle {
                    tool: self.tool.clone(),
                    reason: format!(
                        "the reply is over {} MiB and was discarded",
                        MAX_MESSAGE_BYTES / (1024 * 1024)
                    ),
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

/// The server's stdout, watched for a line (a message) longer than [`MAX_MESSAGE_BYTES`], which
/// the transport discards: the call waiting for it is told at once.
struct LineWatch<R> {
    inner: R,
    line: usize,
    told: bool,
    oversized: Arc<Notify>,
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
            let fresh = &buf.filled()[before..];
            for chunk in fresh.split_inclusive(|b| *b == b'\n') {
                self.line += chunk.len();
                if self.line > MAX_MESSAGE_BYTES && !self.told {
                    self.told = true;
                    tracing::warn!(
                        limit = MAX_MESSAGE_BYTES,
                        "tool server sent an oversized message"
                    );
                    // Wakes the call waiting now; no permit is stored for a later one.
                    self.oversized.notify_waiters();
                }
                if chunk.ends_with(b"\n") {
                    self.line = 0;
                    self.told = false;
                }
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
}
