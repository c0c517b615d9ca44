//! `GroundingError`: every way grounding a scenario can fail, with the words a failure record
//! carries. [`GroundingError::server_down`] tells a server that is gone (it cannot start, its
//! connection closed, it stopped answering) from a problem with one call (the tool's own error,
//! an unusable article, a scenario without the parameter an argument names).

use std::time::Duration;

/// Why a tool server could not ground a scenario.
#[derive(Debug, thiserror::Error)]
pub enum GroundingError {
    /// The server's command could not be started.
    #[error("tool server `{command}` could not be started: {source}")]
    Spawn {
        /// The command, as configured.
        command: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The server started but did not complete the MCP handshake (it exited, or wrote
    /// something that is not MCP on its stdout).
    #[error("tool server `{command}` did not complete the MCP handshake: {reason}")]
    Handshake {
        /// The command, as configured.
        command: String,
        /// What went wrong.
        reason: String,
    },
    /// The server did not answer in time.
    #[error("tool server did not answer {what} within {}", seconds(*timeout))]
    Timeout {
        /// What it was asked (`the handshake`, `tools/list`, `tools/call news`).
        what: String,
        /// The configured timeout.
        timeout: Duration,
    },
    /// The server's connection is gone (it exited or closed its stdout).
    #[error("tool server connection closed ({reason})")]
    Closed {
        /// What the transport said.
        reason: String,
    },
    /// The server offers no tool of the configured name.
    #[error("tool server has no tool `{tool}` (it offers: {offered})")]
    ToolMissing {
        /// The configured tool.
        tool: String,
        /// The tools it offers, comma-separated (`none` when it offers none).
        offered: String,
    },
    /// The tool answered, with an error (`isError: true`, or a JSON-RPC error).
    #[error("tool `{tool}` answered with an error: {message}")]
    ToolFailed {
        /// The tool.
        tool: String,
        /// Its message (at most 300 characters).
        message: String,
    },
    /// The tool answered with no usable article.
    #[error("tool `{tool}` returned no usable article: {reason}")]
    BadArticle {
        /// The tool.
        tool: String,
        /// Why it is not usable.
        reason: String,
    },
    /// An argument template names a parameter the scenario does not have.
    #[error(
        "tool argument `{argument}` names `{{{parameter}}}`, which is not a parameter of the scenario"
    )]
    MissingParameter {
        /// The argument.
        argument: String,
        /// The parameter it names.
        parameter: String,
    },
}

impl GroundingError {
    /// Whether the server itself is gone or not answering (not one call's problem): a run stops
    /// admitting scenarios on such an error rather than fail every one that follows.
    #[must_use]
    pub const fn server_down(&self) -> bool {
        matches!(
            self,
            Self::Spawn { .. }
                | Self::Handshake { .. }
                | Self::Timeout { .. }
                | Self::Closed { .. }
        )
    }
}

fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// `text` cut to at most `max` characters, with `…` when cut.
pub(crate) fn brief(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
