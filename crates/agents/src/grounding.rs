//! Grounding: a scenario that asks for it (the `use_tools` parameter SwitchLingua's configs set)
//! has its generator grounded in an article an MCP tool returns for it, when the config names a
//! tool server (`run.tools`, [`ToolsSettings`]); the MCP client is the `grounding` crate's.
//!
//! - No server configured: the scenario is generated ungrounded and says so — `plan` and `run`
//!   print [`notice`] once before anything else, and each record carries
//!   `grounding: "none: …"` ([`UNGROUNDED`]). Never silently.
//! - A server configured: a run connects to it before the first model call (the handshake, its
//!   tool list, the named tool present — [`Grounder::connect`]), so a dead or wrong server stops
//!   the run before anything is spent. Each scenario that asks is grounded when it is admitted
//!   ([`Grounder::ground`]): a scenario already in the output is never admitted again, so a
//!   resumed run does not fetch its article again. The article's title and (bounded) text go
//!   into the generator's prompt, so the response cache, keyed by the whole request, never
//!   answers a scenario with a reply written for another article; the record carries
//!   `grounding: {tool, title, source, …, text_hash}`.
//! - A failure is the scenario's (`grounding failed: …` in the errors file), never an
//!   ungrounded pass. A server that is down — it exited, closed its output, or did not answer
//!   within `timeout` — is a fatal failure: the run stops admitting scenarios (those in flight
//!   finish), rather than fail every scenario left.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use grounding::{Article, ArticleLimits, GroundingError, ServerCommand, ToolClient};
use scenarios::ScenarioSpace;

/// The scenario parameter that asks for grounding.
pub const USE_TOOLS: &str = "use_tools";

/// A record's `grounding` when its scenario asked for grounding and got none.
pub const UNGROUNDED: &str = "none: no tool server configured";

/// The prefix of the reason of a scenario whose grounding failed (`runlog`'s failure cause
/// `grounding` is read from it).
pub const FAILED: &str = "grounding failed";

/// The tool server that grounds scenarios (`run.tools`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolsSettings {
    /// How to start the server: `{command: [program, args…]}` (or one line, split at spaces,
    /// no shell), speaking MCP on its stdin and stdout.
    pub server: ServerSettings,
    /// The tool that returns an article (e.g. `news`).
    pub tool: String,
    /// The tool's arguments; in a text, `{name}` is the scenario's parameter `name`, and a
    /// value that is exactly `{name}` takes the parameter with its type (default
    /// `{query: "{topic}"}`).
    #[serde(default = "default_arguments")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "arguments_schema"))]
    pub arguments: Map<String, Value>,
    /// How long the server may take to start, list its tools, or answer one call (default
    /// 30s); a server that does not answer in time is taken as down and stops the run.
    #[serde(default = "default_timeout", with = "stdx::duration_serde")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "llm_client::duration_schema")
    )]
    pub timeout: Duration,
    /// Most characters of an article's text put in the prompt (default 4,000; at least 200);
    /// a longer text is cut at a word boundary, and the record says `truncated: true`.
    #[serde(default = "default_max_article_chars")]
    #[cfg_attr(feature = "schema", schemars(range(min = 200)))]
    pub max_article_chars: usize,
}

/// How a tool server is started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ServerSettings {
    /// The program and its arguments, as a list, or one line split at white space (no shell).
    /// A relative program with a `/` is found from the current directory; one without, on
    /// `PATH`.
    pub command: CommandLine,
    /// Variables set for the server. It does not inherit the engine's environment (which holds
    /// API keys), only `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `LANG`, `LANGUAGE`, `LC_*`,
    /// `TZ`, `TMPDIR`, `TEMP`, `TMP` and `TERM`; a value's `${NAME}` is the engine's variable
    /// `NAME` (which must be set).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

impl ServerSettings {
    /// The `env` values with their `${NAME}` read from the environment (`lookup`); `Err` with
    /// the variable and the name that is not set.
    ///
    /// # Errors
    /// The variable of `env` and the `${NAME}` `lookup` does not know.
    pub fn environment(
        &self,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<BTreeMap<String, String>, (String, String)> {
        self.env
            .iter()
            .map(|(key, value)| {
                let mut out = String::new();
                let mut rest = value.as_str();
                while let Some(i) = rest.find("${") {
                    out.push_str(&rest[..i]);
                    let tail = &rest[i + 2..];
                    let Some(end) = tail.find('}') else {
                        out.push_str(&rest[i..]);
                        rest = "";
                        break;
                    };
                    let name = &tail[..end];
                    out.push_str(&lookup(name).ok_or_else(|| (key.clone(), name.to_owned()))?);
                    rest = &tail[end + 1..];
                }
                out.push_str(rest);
                Ok((key.clone(), out))
            })
            .collect()
    }
}

/// A command: a list of words, or one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum CommandLine {
    /// `[program, arg, …]`.
    Argv(Vec<String>),
    /// `program arg …`, split at white space.
    Line(String),
}

impl CommandLine {
    /// The program and its arguments.
    #[must_use]
    pub fn argv(&self) -> Vec<String> {
        match self {
            Self::Argv(argv) => argv.clone(),
            Self::Line(line) => line.split_whitespace().map(str::to_owned).collect(),
        }
    }
}

/// Each word a text: `[python3, 5]` or `[true]` is refused in words, not as an untagged enum.
impl<'de> Deserialize<'de> for CommandLine {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Word(String);
        impl<'de> Deserialize<'de> for Word {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = Word;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(
                            "a text (each word of `server.command` is a text: quote a number \
                             or a boolean, \"5\")",
                        )
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Word, E> {
                        Ok(Word(v.to_owned()))
                    }
                }
                d.deserialize_any(V)
            }
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = CommandLine;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a command: a list of texts `[program, arg, …]`, or one line `program arg …`",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<CommandLine, E> {
                Ok(CommandLine::Line(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<CommandLine, A::Error> {
                let mut argv = Vec::new();
                while let Some(Word(word)) = seq.next_element()? {
                    argv.push(word);
                }
                Ok(CommandLine::Argv(argv))
            }
        }
        deserializer.deserialize_any(V)
    }
}

fn default_arguments() -> Map<String, Value> {
    Map::from_iter([("query".to_owned(), Value::String("{topic}".into()))])
}

const fn default_timeout() -> Duration {
    Duration::from_secs(30)
}

const fn default_max_article_chars() -> usize {
    4000
}

#[cfg(feature = "schema")]
fn arguments_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The tool's arguments; `{name}` in a text is the scenario's parameter.",
        "type": "object",
        "default": {"query": "{topic}"}
    })
}

impl ToolsSettings {
    /// The first problem of these settings: its key under `tools`, the reason and a hint.
    #[must_use]
    pub fn problem(&self) -> Option<(String, String, &'static str)> {
        let argv = self.server.command.argv();
        let command_hint = "`server.command` is the server's program and its arguments, \
                            e.g. `[npx, -y, my-news-mcp-server]` (no shell)";
        match argv.first() {
            None => {
                return Some((
                    "server.command".into(),
                    "is empty: name the server's program".into(),
                    command_hint,
                ));
            }
            Some(program) if program.trim().is_empty() => {
                return Some((
                    "server.command".into(),
                    "names an empty program".into(),
                    command_hint,
                ));
            }
            Some(_) => {}
        }
        if let Some(key) = self
            .server
            .env
            .keys()
            .find(|k| k.is_empty() || k.contains(['=', '\0']))
        {
            return Some((
                "server.env".into(),
                format!(
                    "has the variable name `{}`, which no variable can have",
                    key.escape_debug()
                ),
                "a variable name is a word without `=`, e.g. `NEWS_API_KEY: ${NEWS_API_KEY}`",
            ));
        }
        if let Err((key, name)) = self.server.environment(|n| std::env::var(n).ok()) {
            return Some((
                format!("server.env.{key}"),
                format!("names `${{{name}}}`, which is not set in the environment"),
                "set the variable before the run, or write the value itself",
            ));
        }
        if self.tool.trim().is_empty() {
            return Some((
                "tool".into(),
                "is empty: name the tool that returns an article".into(),
                "the tool is one the server lists, e.g. `news`",
            ));
        }
        if self.arguments.is_empty() {
            return Some((
                "arguments".into(),
                "is empty: every scenario would get the same article".into(),
                "leave `arguments` out for the default `{query: \"{topic}\"}`, or name \
                 the tool's arguments with scenario parameters, e.g. `{query: \"{topic}\"}`",
            ));
        }
        if let Some((argument, reason)) = grounding::arguments::template_problem(&self.arguments) {
            return Some((
                format!("arguments.{argument}"),
                reason,
                "`{name}` in a tool argument is a scenario parameter; write `{{` and `}}` for \
                 literal braces",
            ));
        }
        if self.timeout.is_zero() {
            return Some((
                "timeout".into(),
                "must be more than 0".into(),
                "a duration such as `30s` or `2m`",
            ));
        }
        if self.max_article_chars < 200 {
            return Some((
                "max_article_chars".into(),
                "must be at least 200 (a title and a few sentences)".into(),
                "the default is 4000",
            ));
        }
        None
    }

    /// The first argument naming a parameter no scenario of `space` has: the argument and the
    /// parameter.
    #[must_use]
    pub fn unknown_parameter(&self, space: &ScenarioSpace) -> Option<(String, String)> {
        let known = parameter_names(space);
        self.arguments.iter().find_map(|(argument, value)| {
            let one = Map::from_iter([(argument.clone(), value.clone())]);
            grounding::referenced_parameters(&one)
                .into_iter()
                .find(|p| !known.contains(p))
                .map(|p| (argument.clone(), p))
        })
    }
}

/// Every parameter name a scenario of `space` can have: fixed values, axes, and the keys of
/// merge axes' objects.
fn parameter_names(space: &ScenarioSpace) -> Vec<String> {
    let mut names: Vec<String> = space.fixed().keys().cloned().collect();
    for axis in space.axes() {
        if axis.merge {
            for value in &axis.values {
                if let Some(map) = value.as_object() {
                    names.extend(map.keys().cloned());
                }
            }
        } else {
            names.push(axis.name.clone());
        }
    }
    names
}

/// Whether a `use_tools` value asks for grounding: `true`, or a text reading true/yes/on/1.
fn asks(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => matches!(
            s.trim().to_lowercase().as_str(),
            "true" | "yes" | "on" | "1"
        ),
        _ => false,
    }
}

/// Whether a scenario's parameters ask for grounding (`use_tools: true`).
#[must_use]
pub fn asks_for_tools(params: &BTreeMap<String, Value>) -> bool {
    params.get(USE_TOOLS).is_some_and(asks)
}

/// Whether any scenario of `space` may ask for grounding: `use_tools` true as a fixed value,
/// as a value of its own axis, or in a merge axis's objects (exclusions are not looked at: a
/// notice about a scenario that is excluded costs nothing, one missed would be silence).
#[must_use]
pub fn space_asks_for_tools(space: &ScenarioSpace) -> bool {
    space.fixed().get(USE_TOOLS).is_some_and(asks)
        || space.axes().iter().any(|axis| {
            axis.values.iter().any(|v| {
                if axis.merge {
                    v.get(USE_TOOLS).is_some_and(asks)
                } else {
                    axis.name == USE_TOOLS && asks(v)
                }
            })
        })
}

/// The line `plan` and `run` say before anything else when scenarios of `space` ask for
/// grounding, `None` when none does: that they are not grounded (no server configured), or in
/// what they are.
#[must_use]
pub fn notice(space: &ScenarioSpace, tools: Option<&ToolsSettings>) -> Option<String> {
    if !space_asks_for_tools(space) {
        return None;
    }
    Some(match tools {
        None => format!(
            "note: the config sets `{USE_TOOLS}: true`, but no tool server is configured: \
             generation is NOT grounded in a source article; each record says \
             `grounding: \"{UNGROUNDED}\"` (configure one under `run.tools`, docs/config.md)"
        ),
        Some(t) => format!(
            "note: scenarios with `{USE_TOOLS}: true` are grounded in an article from the tool \
             `{}` of `{}` (checked before the first model call)",
            t.tool.escape_debug(),
            ServerCommand {
                argv: t.server.command.argv(),
                ..ServerCommand::default()
            }
            .display()
        ),
    })
}

/// What grounding gave a scenario.
#[derive(Debug, Clone)]
pub enum Grounded {
    /// The article its generator is grounded in, and the tool that returned it.
    Article {
        /// The article, as prompted.
        article: Arc<Article>,
        /// The tool.
        tool: String,
    },
    /// No article: the scenario fails with `reason`; `server_down` makes the failure fatal
    /// (the run admits no more scenarios).
    Failed {
        /// `grounding failed: …`.
        reason: String,
        /// The server is gone or not answering.
        server_down: bool,
    },
}

/// A connected tool server that grounds a run's scenarios.
#[derive(Debug)]
pub struct Grounder {
    client: ToolClient,
    arguments: Map<String, Value>,
    /// Why the server is down, once it is: later scenarios fail at once with it.
    down: Mutex<Option<String>>,
}

impl Grounder {
    /// Starts the server and checks its tool ([`ToolClient::connect`]).
    ///
    /// # Errors
    /// The server cannot start, does not speak MCP, does not answer in time, or lacks the tool.
    pub async fn connect(tools: &ToolsSettings) -> Result<Self, GroundingError> {
        let env = tools
            .server
            .environment(|n| std::env::var(n).ok())
            .map_err(|(key, name)| GroundingError::Spawn {
                command: tools.server.command.argv().join(" "),
                source: std::io::Error::other(format!(
                    "`server.env.{key}` names `${{{name}}}`, which is not set"
                )),
            })?;
        let server = ServerCommand {
            argv: tools.server.command.argv(),
            env,
        };
        let limits = ArticleLimits {
            max_chars: tools.max_article_chars,
        };
        let client = ToolClient::connect(&server, &tools.tool, tools.timeout, limits).await?;
        Ok(Self {
            client,
            arguments: tools.arguments.clone(),
            down: Mutex::new(None),
        })
    }

    /// The article for a scenario with `params`.
    pub async fn ground(&self, params: &BTreeMap<String, Value>) -> Grounded {
        let down = self.down.lock().ok().and_then(|d| d.clone());
        if let Some(why) = down {
            return Grounded::Failed {
                reason: format!("{FAILED}: the tool server is down ({why})"),
                server_down: true,
            };
        }
        let fetched = match grounding::render_arguments(&self.arguments, params) {
            Ok(arguments) => self.client.fetch(arguments).await,
            Err(e) => Err(e),
        };
        match fetched {
            Ok(article) => Grounded::Article {
                article: Arc::new(article),
                tool: self.client.tool().to_owned(),
            },
            Err(e) => {
                let server_down = e.server_down();
                if server_down && let Ok(mut down) = self.down.lock() {
                    down.get_or_insert_with(|| e.to_string());
                }
                tracing::warn!(error = %e, server_down, "grounding failed");
                Grounded::Failed {
                    reason: format!("{FAILED}: {e}"),
                    server_down,
                }
            }
        }
    }

    /// Ends the session and stops the server.
    pub async fn close(self) {
        self.client.close().await;
    }
}

/// The record's `grounding` for an article from `tool`.
#[must_use]
pub fn record_of(article: &Article, tool: &str) -> runlog::Grounding {
    runlog::Grounding::Article(runlog::GroundingArticle {
        tool: tool.to_owned(),
        title: article.title.clone(),
        source: article.source.clone(),
        url: article.url.clone(),
        published: article.published.clone(),
        chars: article.text.chars().count(),
        original_chars: article.original_chars,
        truncated: article.truncated,
        text_hash: article.text_hash(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenarios::Axis;
    use serde_json::json;

    #[test]
    fn use_tools_true_fixed_or_on_an_axis_asks_and_false_does_not() {
        let fixed = |v: Value| {
            ScenarioSpace::new(
                vec![Axis::new("topic", vec![json!("a")])],
                BTreeMap::from([(USE_TOOLS.to_owned(), v)]),
                Vec::new(),
            )
            .expect("space")
        };
        assert!(notice(&fixed(json!(true)), None).is_some());
        assert!(notice(&fixed(json!("yes")), None).is_some());
        assert!(notice(&fixed(json!(false)), None).is_none());
        let axis = ScenarioSpace::new(
            vec![Axis::new(USE_TOOLS, vec![json!(false), json!(true)])],
            BTreeMap::new(),
            Vec::new(),
        )
        .expect("space");
        assert!(space_asks_for_tools(&axis));
        assert!(asks_for_tools(&BTreeMap::from([(
            USE_TOOLS.to_owned(),
            json!(true)
        )])));
        assert!(!asks_for_tools(&BTreeMap::new()));
    }

    #[test]
    fn tools_settings_read_with_defaults_and_name_their_problems() {
        let tools: ToolsSettings = serde_json::from_value(json!({
            "server": {"command": "news-server --port 0"}, "tool": "news"}))
        .expect("settings");
        assert_eq!(tools.server.command.argv(), ["news-server", "--port", "0"]);
        assert_eq!(tools.arguments, default_arguments());
        assert_eq!(tools.timeout, Duration::from_secs(30));
        assert_eq!(tools.problem(), None);
        let space = ScenarioSpace::new(
            vec![Axis::new("topic", vec![json!("a")])],
            BTreeMap::from([(USE_TOOLS.to_owned(), json!(true))]),
            Vec::new(),
        )
        .expect("space");
        assert_eq!(tools.unknown_parameter(&space), None);
        let city = ToolsSettings {
            arguments: Map::from_iter([("q".to_owned(), json!("{city} news"))]),
            ..tools.clone()
        };
        assert_eq!(
            city.unknown_parameter(&space),
            Some(("q".into(), "city".into()))
        );
        let empty = ToolsSettings {
            server: ServerSettings {
                command: CommandLine::Argv(Vec::new()),
                env: BTreeMap::new(),
            },
            ..tools
        };
        assert_eq!(
            empty.problem().map(|p| p.0).as_deref(),
            Some("server.command")
        );
        let server = ServerSettings {
            command: CommandLine::Line("news".into()),
            env: BTreeMap::from([("K".to_owned(), "a-${X}-b".to_owned())]),
        };
        let known = |n: &str| (n == "X").then(|| "x".to_owned());
        assert_eq!(
            server.environment(known),
            Ok(BTreeMap::from([("K".to_owned(), "a-x-b".to_owned())]))
        );
        assert_eq!(
            server.environment(|_| None),
            Err(("K".to_owned(), "X".to_owned()))
        );
        assert!(notice(&space, Some(&city)).is_some_and(|n| n.contains("tool `news`")));
    }
}
