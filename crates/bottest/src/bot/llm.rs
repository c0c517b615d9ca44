//! The `llm` adapter: the bot under test is a chat model given the suite's system prompt and the
//! agents' functions as tools. Each tool is named `agent__function`, so a tool call maps back to a
//! plan step `{agent, function, params}`. The adapter keeps the full message list (with tool calls
//! and a `planned` tool result for each) so the conversation carries across turns.

use std::sync::Arc;

use llm_client::{ChatModel, ChatRequest, Message, Role, ToolCall, ToolDef};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use scoring::transcript::{BotTurn, PlanStep};

use super::{AgentSpec, Bot, History, TurnFuture};

/// Separator between agent and function in tool names (OpenAI allows `[a-zA-Z0-9_-]`).
const SEPARATOR: &str = "__";

/// Settings of the `llm` adapter in a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LlmSpec {
    /// Model name sent to the endpoint (the CLI's `--model` overrides it).
    #[serde(default)]
    pub model: Option<String>,
    /// Sampling temperature.
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Upper bound on reply tokens.
    #[serde(default)]
    pub max_tokens: Option<u32>,
}

/// The tool name of `agent`'s `function`.
#[must_use]
pub fn tool_name(agent: &str, function: &str) -> String {
    format!("{agent}{SEPARATOR}{function}")
}

/// One tool per agent function, described as `[agent] description`.
#[must_use]
pub fn tool_defs(agents: &[AgentSpec]) -> Vec<ToolDef> {
    agents
        .iter()
        .flat_map(|agent| {
            agent.functions.iter().map(move |f| ToolDef {
                name: tool_name(&agent.name, &f.name),
                description: if agent.description.is_empty() {
                    f.description.clone()
                } else {
                    format!("[{}: {}] {}", agent.name, agent.description, f.description)
                },
                parameters: f.parameters.clone(),
            })
        })
        .collect()
}

/// A bot that is a chat model with tools.
pub struct LlmBot {
    model: Arc<dyn ChatModel>,
    model_name: String,
    spec: LlmSpec,
    tools: Vec<ToolDef>,
    messages: Vec<Message>,
}

impl LlmBot {
    /// A fresh conversation with `system_prompt` and the agents' functions as tools.
    #[must_use]
    pub fn new(
        model: Arc<dyn ChatModel>,
        model_name: impl Into<String>,
        spec: LlmSpec,
        system_prompt: &str,
        agents: &[AgentSpec],
    ) -> Self {
        let mut messages = Vec::new();
        if !system_prompt.trim().is_empty() {
            messages.push(Message::system(system_prompt));
        }
        Self {
            model,
            model_name: model_name.into(),
            spec,
            tools: tool_defs(agents),
            messages,
        }
    }

    fn plan_step(call: &ToolCall) -> PlanStep {
        let (agent, function) = match call.name.split_once(SEPARATOR) {
            Some((a, f)) => (a.to_owned(), f.to_owned()),
            None => (String::new(), call.name.clone()),
        };
        let params = match &call.arguments {
            Value::Object(map) => map.clone(),
            // Unparseable arguments are kept visible instead of dropped, so params checks fail
            // with the raw text in their message.
            other => Map::from_iter([("_raw".to_owned(), other.clone())]),
        };
        PlanStep {
            agent,
            function,
            params,
        }
    }
}

impl Bot for LlmBot {
    fn turn<'a>(&'a mut self, _history: &'a History, message: &'a str) -> TurnFuture<'a> {
        Box::pin(async move {
            self.messages.push(Message::user(message));
            let mut req = ChatRequest::new(self.model_name.clone(), self.messages.clone());
            req.tools = self.tools.clone();
            req.temperature = self.spec.temperature;
            req.max_tokens = self.spec.max_tokens;
            let resp = self.model.chat(req).await?;
            let plan: Vec<PlanStep> = resp.tool_calls.iter().map(Self::plan_step).collect();
            tracing::debug!(calls = plan.len(), "llm bot replied");
            let mut assistant = Message::assistant(resp.content.clone());
            assistant.tool_calls.clone_from(&resp.tool_calls);
            self.messages.push(assistant);
            // Every tool call needs an answer before the next user message; the engine does not
            // execute plans, so the answer says the call was planned.
            for call in &resp.tool_calls {
                let mut tool = Message::new(Role::Tool, r#"{"status":"planned"}"#);
                tool.tool_call_id = Some(call.id.clone());
                self.messages.push(tool);
            }
            Ok(BotTurn {
                text: resp.content,
                plan,
                latency_ms: resp.latency_ms,
                ..BotTurn::default()
            })
        })
    }
}
