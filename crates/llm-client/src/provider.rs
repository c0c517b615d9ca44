//! Wire formats: building provider requests from a [`ChatRequest`] and reading replies back.
//!
//! Pure translation, no I/O and no credentials (the client adds the auth header, so nothing built
//! here can leak a key). Parsing is deliberately lenient because "OpenAI-compatible" servers
//! differ: `usage` or `id` may be missing, `content` may be `null` next to tool calls or an array
//! of parts, tool-call `arguments` may be a string or an object, and unknown fields are ignored.

use serde_json::{Map, Value, json};

use crate::structured::{StructuredMode, strict_schema};
use crate::{
    ChatRequest, FinishReason, LlmError, Message, ProviderConfig, ProviderKind, Role, ToolCall,
    ToolChoice, Usage,
};

const SCHEMA_PROMPT: &str = include_str!("../prompts/schema_in_prompt.txt");
const TOOL_DESCRIPTION: &str = include_str!("../prompts/tool_description.txt");
const DEFAULT_AZURE_API_VERSION: &str = "2024-10-21";
const DEFAULT_ANTHROPIC_VERSION: &str = "2023-06-01";
/// Anthropic requires `max_tokens`; used when the request leaves it open.
const DEFAULT_ANTHROPIC_MAX_TOKENS: u32 = 4096;

/// The path of OpenAI chat completions below the base URL.
pub(crate) const OPENAI_CHAT_PATH: &str = "chat/completions";

/// A request ready to send (minus credentials).
#[derive(Debug, Clone)]
pub(crate) struct WireRequest {
    pub url: String,
    /// Non-secret protocol headers (the version header for Anthropic).
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

/// A provider reply in neutral form, before structured-output handling.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parsed {
    pub model: Option<String>,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: FinishReason,
    pub usage: Option<Usage>,
}

/// The first structured mode worth trying on this provider.
pub(crate) fn initial_mode(kind: ProviderKind) -> StructuredMode {
    match kind {
        ProviderKind::OpenAi | ProviderKind::Azure => StructuredMode::JsonSchema,
        // The Messages API has no response_format; a forced tool call is its native way.
        ProviderKind::Anthropic => StructuredMode::ToolCall,
    }
}

/// Builds the wire request for `req`, asking for structured output in `mode` when the request
/// has an output schema.
pub(crate) fn build(
    cfg: &ProviderConfig,
    req: &ChatRequest,
    mode: Option<StructuredMode>,
) -> WireRequest {
    let mode = req.output_schema.as_ref().and(mode);
    match cfg.kind {
        ProviderKind::OpenAi => WireRequest {
            url: endpoint_url(&cfg.base_url, OPENAI_CHAT_PATH, None),
            headers: Vec::new(),
            body: openai_body(req, mode),
        },
        ProviderKind::Azure => {
            let deployment = cfg.deployment.as_deref().unwrap_or(&req.model);
            let version = cfg
                .api_version
                .as_deref()
                .unwrap_or(DEFAULT_AZURE_API_VERSION);
            WireRequest {
                url: endpoint_url(
                    &cfg.base_url,
                    &format!("openai/deployments/{deployment}/chat/completions"),
                    Some(&format!("api-version={version}")),
                ),
                headers: Vec::new(),
                body: openai_body(req, mode),
            }
        }
        ProviderKind::Anthropic => WireRequest {
            url: endpoint_url(&cfg.base_url, "messages", None),
            headers: vec![(
                "anthropic-version",
                cfg.api_version
                    .clone()
                    .unwrap_or_else(|| DEFAULT_ANTHROPIC_VERSION.to_owned()),
            )],
            body: anthropic_body(req, mode),
        },
    }
}

/// `path` appended to the base URL's path, keeping the base URL's query (`/v1?api-key=…` stays
/// `/v1/chat/completions?api-key=…`, not `/v1?api-key=…/chat/completions`), plus `extra` query
/// parameters.
pub(crate) fn endpoint_url(base_url: &str, path: &str, extra: Option<&str>) -> String {
    let (base, query) = match base_url.split_once('?') {
        Some((base, query)) => (base, Some(query).filter(|q| !q.is_empty())),
        None => (base_url, None),
    };
    let base = base.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    match (query, extra) {
        (Some(q), Some(e)) => format!("{base}/{path}?{q}&{e}"),
        (Some(q), None) | (None, Some(q)) => format!("{base}/{path}?{q}"),
        (None, None) => format!("{base}/{path}"),
    }
}

/// Messages with the schema instruction added to the system prompt (for modes where the server
/// does not carry the schema itself).
fn with_schema_instruction(req: &ChatRequest, mode: Option<StructuredMode>) -> Vec<Message> {
    let mut messages = req.messages.clone();
    let Some(schema) = &req.output_schema else {
        return messages;
    };
    if !matches!(
        mode,
        Some(StructuredMode::JsonObject | StructuredMode::Prompt)
    ) {
        return messages;
    }
    let pretty =
        serde_json::to_string_pretty(&schema.schema).unwrap_or_else(|_| schema.schema.to_string());
    let instruction = SCHEMA_PROMPT.replace("{schema}", &pretty);
    match messages.first_mut() {
        Some(first) if first.role == Role::System => {
            first.content = format!("{}\n\n{}", first.content, instruction.trim_end());
        }
        _ => messages.insert(0, Message::system(instruction.trim_end())),
    }
    messages
}

/// OpenAI reasoning models take `max_completion_tokens` and reject `max_tokens`.
fn uses_max_completion_tokens(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model);
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|p| name.starts_with(p))
}

fn openai_body(req: &ChatRequest, mode: Option<StructuredMode>) -> Value {
    let messages: Vec<Value> = with_schema_instruction(req, mode)
        .iter()
        .map(openai_message)
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), req.model.clone().into());
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(m) = req.max_tokens {
        let field = if uses_max_completion_tokens(&req.model) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(field.into(), json!(m));
    }
    if let Some(s) = req.seed {
        body.insert("seed".into(), json!(s));
    }
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
        .collect();
    let mut tool_choice = req.tool_choice.as_ref().map(|c| match c {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Function(name) => json!({"type": "function", "function": {"name": name}}),
    });
    if let (Some(schema), Some(mode)) = (&req.output_schema, mode) {
        match mode {
            StructuredMode::JsonSchema => {
                let wire_schema = if schema.strict {
                    strict_schema(&schema.schema)
                } else {
                    schema.schema.as_ref().clone()
                };
                body.insert(
                    "response_format".into(),
                    json!({"type": "json_schema", "json_schema": {"name": schema.name, "schema": wire_schema, "strict": schema.strict}}),
                );
            }
            StructuredMode::JsonObject => {
                body.insert(
                    "response_format".into(),
                    json!({"type": "json_object", "schema": schema.schema}),
                );
            }
            StructuredMode::ToolCall => {
                tools.push(json!({"type": "function", "function": {
                    "name": schema.name, "description": TOOL_DESCRIPTION.trim(), "parameters": schema.schema}}));
                tool_choice = Some(json!({"type": "function", "function": {"name": schema.name}}));
            }
            StructuredMode::Prompt => {}
        }
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = tool_choice {
        body.insert("tool_choice".into(), choice);
    }
    for (k, v) in &req.extra {
        body.insert(k.clone(), v.clone());
    }
    Value::Object(body)
}

fn openai_message(m: &Message) -> Value {
    let mut out = Map::new();
    out.insert("role".into(), json!(role_name(m.role)));
    if m.content.is_empty() && !m.tool_calls.is_empty() {
        out.insert("content".into(), Value::Null);
    } else {
        out.insert("content".into(), m.content.clone().into());
    }
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| {
                let args = match &c.arguments {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args}})
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(id) = &m.tool_call_id {
        out.insert("tool_call_id".into(), id.clone().into());
    }
    Value::Object(out)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn anthropic_body(req: &ChatRequest, mode: Option<StructuredMode>) -> Value {
    // json_schema / json_object do not exist here; anything but Prompt becomes the tool.
    let mode = mode.map(|m| {
        if m == StructuredMode::Prompt {
            m
        } else {
            StructuredMode::ToolCall
        }
    });
    let messages = with_schema_instruction(req, mode);
    let system: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let turns: Vec<Value> = messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(anthropic_message)
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), req.model.clone().into());
    if !system.is_empty() {
        body.insert("system".into(), system.join("\n\n").into());
    }
    body.insert("messages".into(), Value::Array(turns));
    body.insert(
        "max_tokens".into(),
        json!(req.max_tokens.unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS)),
    );
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    let mut tool_choice = req.tool_choice.as_ref().map(|c| match c {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Function(name) => json!({"type": "tool", "name": name}),
    });
    if let (Some(schema), Some(StructuredMode::ToolCall)) = (&req.output_schema, mode) {
        tools.push(json!({"name": schema.name, "description": TOOL_DESCRIPTION.trim(), "input_schema": schema.schema}));
        tool_choice = Some(json!({"type": "tool", "name": schema.name}));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = tool_choice {
        body.insert("tool_choice".into(), choice);
    }
    for (k, v) in &req.extra {
        body.insert(k.clone(), v.clone());
    }
    Value::Object(body)
}

fn anthropic_message(m: &Message) -> Value {
    match m.role {
        Role::Tool => json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": m.tool_call_id.clone().unwrap_or_default(), "content": m.content}]}),
        Role::Assistant if !m.tool_calls.is_empty() => {
            let mut blocks = Vec::new();
            if !m.content.is_empty() {
                blocks.push(json!({"type": "text", "text": m.content}));
            }
            for c in &m.tool_calls {
                let input = match &c.arguments {
                    Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| json!({})),
                    other => other.clone(),
                };
                blocks
                    .push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
            }
            json!({"role": "assistant", "content": blocks})
        }
        role => json!({"role": role_name(role), "content": m.content}),
    }
}

/// Reads a successful reply body.
///
/// # Errors
/// [`LlmError::Protocol`] when the body has none of the expected shape.
pub(crate) fn parse(kind: ProviderKind, body: &Value) -> Result<Parsed, LlmError> {
    match kind {
        ProviderKind::OpenAi | ProviderKind::Azure => parse_openai(body),
        ProviderKind::Anthropic => parse_anthropic(body),
    }
}

fn snippet(body: &Value) -> String {
    let text = body.to_string();
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

fn parse_openai(body: &Value) -> Result<Parsed, LlmError> {
    let choice = body
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| LlmError::Protocol(format!("no choices in reply: {}", snippet(body))))?;
    let message = choice.get("message").unwrap_or(&Value::Null);
    let content = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Content-part arrays (some proxies) are joined; `null` next to tool calls is normal.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .filter_map(|(i, call)| {
                    let function = call.get("function")?;
                    let name = function.get("name")?.as_str()?.to_owned();
                    let id = call
                        .get("id")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("call_{i}"), str::to_owned);
                    Some(ToolCall {
                        id,
                        name,
                        arguments: tool_arguments(function.get("arguments")),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let finish_reason = match choice.get("finish_reason").and_then(Value::as_str) {
        None | Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    };
    let usage = body.get("usage").and_then(|u| {
        Some(Usage {
            prompt_tokens: u.get("prompt_tokens")?.as_u64()?,
            completion_tokens: u
                .get("completion_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            estimated: false,
        })
    });
    let model = body.get("model").and_then(Value::as_str).map(str::to_owned);
    Ok(Parsed {
        model,
        content,
        tool_calls,
        finish_reason,
        usage,
    })
}

/// Arguments arrive as a JSON string (OpenAI) or an object (Ollama, some proxies); a string
/// that does not parse is kept as a string so the structured layer can repair it.
fn tool_arguments(raw: Option<&Value>) -> Value {
    match raw {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => json!({}),
    }
}

fn parse_anthropic(body: &Value) -> Result<Parsed, LlmError> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            LlmError::Protocol(format!("no content blocks in reply: {}", snippet(body)))
        })?;
    let mut content = String::new();
    let mut tool_calls = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => content.push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("toolu_{i}"), str::to_owned),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                arguments: tool_arguments(block.get("input")),
            }),
            _ => {}
        }
    }
    let finish_reason = match body.get("stop_reason").and_then(Value::as_str) {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("refusal") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    };
    let usage = body.get("usage").and_then(|u| {
        Some(Usage {
            prompt_tokens: u.get("input_tokens")?.as_u64()?,
            completion_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
            estimated: false,
        })
    });
    let model = body.get("model").and_then(Value::as_str).map(str::to_owned);
    Ok(Parsed {
        model,
        content,
        tool_calls,
        finish_reason,
        usage,
    })
}

/// The human message of an error body (`{"error": {"message": …}}`, `{"message": …}`, `{"detail": …}`
/// or the raw text), shortened.
pub(crate) fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let msg = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"))?;
        Some(msg.as_str().map_or_else(|| msg.to_string(), str::to_owned))
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_owned());
    match text.char_indices().nth(500) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// Whether a 400/422 on a structured request means "this structured mode is unsupported".
pub(crate) fn rejects_structured_mode(status: u16, message: &str) -> bool {
    match status {
        422 => true,
        // Wrong URL, credentials, timeouts and rate limits say nothing about the mode.
        401 | 403 | 404 | 408 | 429 => false,
        400..=599 => names_structured_feature(message),
        _ => false,
    }
}

/// Whether a server's error message names a structured-output feature (`response_format`,
/// `json_schema`, `json_object`, `grammar`, `tools`/`tool_choice`, a schema).
pub(crate) fn names_structured_feature(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "response_format",
        "json_schema",
        "schema",
        "json_object",
        "grammar",
        "tool",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OutputSchema;

    fn structured_request() -> ChatRequest {
        let mut req = ChatRequest::new(
            "gpt-4o-mini",
            vec![Message::system("Judge."), Message::user("Rate it.")],
        );
        req.temperature = Some(0.0);
        req.max_tokens = Some(200);
        req.seed = Some(7);
        req.output_schema = Some(OutputSchema {
            name: "verdict".into(),
            schema: std::sync::Arc::new(
                json!({"type": "object", "properties": {"score": {"type": "number", "maximum": 10}}, "required": ["score"]}),
            ),
            strict: true,
        });
        req
    }

    #[test]
    fn openai_bodies_per_mode() {
        let cfg = ProviderConfig {
            base_url: "http://h/v1/".into(),
            ..ProviderConfig::default()
        };
        let req = structured_request();
        let modes = [
            StructuredMode::JsonSchema,
            StructuredMode::JsonObject,
            StructuredMode::ToolCall,
            StructuredMode::Prompt,
        ];
        let bodies: Vec<Value> = modes
            .iter()
            .map(|m| build(&cfg, &req, Some(*m)).body)
            .collect();
        assert_eq!(build(&cfg, &req, None).url, "http://h/v1/chat/completions");
        // A base URL carrying a query keeps its path and its query.
        assert_eq!(
            endpoint_url("http://h/v1/?api-key=k", "chat/completions", None),
            "http://h/v1/chat/completions?api-key=k"
        );
        assert_eq!(
            endpoint_url("http://h?x=1", "/d/chat", Some("api-version=2")),
            "http://h/d/chat?x=1&api-version=2"
        );
        insta::assert_json_snapshot!(bodies);
    }

    #[test]
    fn azure_url_and_anthropic_body() {
        let azure = ProviderConfig {
            kind: ProviderKind::Azure,
            base_url: "https://r.openai.azure.com".into(),
            deployment: Some("prod-4o".into()),
            ..ProviderConfig::default()
        };
        let req = structured_request();
        assert_eq!(
            build(&azure, &req, None).url,
            "https://r.openai.azure.com/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21"
        );
        let anthropic = ProviderConfig {
            kind: ProviderKind::Anthropic,
            base_url: "https://api.anthropic.com/v1".into(),
            ..ProviderConfig::default()
        };
        let mut req = structured_request();
        req.messages.push(Message {
            role: Role::Assistant,
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "t1".into(),
                name: "lookup".into(),
                arguments: json!("{\"q\": 1}"),
            }],
            tool_call_id: None,
        });
        req.messages.push(Message {
            tool_call_id: Some("t1".into()),
            ..Message::new(Role::Tool, "found")
        });
        let wire = build(
            &anthropic,
            &req,
            Some(initial_mode(ProviderKind::Anthropic)),
        );
        assert_eq!(wire.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            wire.headers,
            vec![("anthropic-version", "2023-06-01".to_owned())]
        );
        insta::assert_json_snapshot!(wire.body);
    }

    #[test]
    fn lenient_openai_parsing() {
        // No id, no usage, null content with tool calls, arguments as an object, extra fields.
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null, "reasoning": "x",
            "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                           {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{\"b\": 2}"}},
                           {"id": "c3", "function": {"name": "h", "arguments": "{broken"}}]},
            "finish_reason": "tool_calls"}], "system_fingerprint": "fp"});
        let p = parse(ProviderKind::OpenAi, &body).expect("parses");
        assert_eq!(p.content, "");
        assert!(p.usage.is_none());
        assert_eq!(p.finish_reason, FinishReason::ToolCalls);
        assert_eq!(
            p.tool_calls[0],
            ToolCall {
                id: "call_0".into(),
                name: "f".into(),
                arguments: json!({"a": 1})
            }
        );
        assert_eq!(p.tool_calls[1].arguments, json!({"b": 2}));
        assert_eq!(p.tool_calls[2].arguments, json!("{broken"));

        let body = json!({"model": "llama", "choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "finish_reason": null}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}});
        let p = parse(ProviderKind::OpenAi, &body).expect("parses");
        assert_eq!(
            (p.content.as_str(), p.model.as_deref()),
            ("ab", Some("llama"))
        );
        assert_eq!(
            p.usage,
            Some(Usage {
                prompt_tokens: 5,
                completion_tokens: 2,
                estimated: false
            })
        );
        assert!(matches!(
            parse(ProviderKind::OpenAi, &json!({"object": "error"})),
            Err(LlmError::Protocol(_))
        ));
    }

    #[test]
    fn anthropic_parsing() {
        let body = json!({"id": "msg_1", "model": "claude-sonnet-4", "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "tu1", "name": "verdict", "input": {"score": 8}}],
            "usage": {"input_tokens": 11, "output_tokens": 4}});
        let p = parse(ProviderKind::Anthropic, &body).expect("parses");
        assert_eq!(p.content, "ok");
        assert_eq!(p.tool_calls[0].arguments, json!({"score": 8}));
        assert_eq!(p.finish_reason, FinishReason::ToolCalls);
        assert_eq!(p.usage.map(|u| u.total()), Some(15));
    }

    #[test]
    fn error_messages_and_mode_rejections() {
        assert_eq!(
            error_message(r#"{"error": {"message": "bad response_format", "type": "x"}}"#),
            "bad response_format"
        );
        assert_eq!(error_message(r#"{"detail": "nope"}"#), "nope");
        assert_eq!(error_message("plain text\n"), "plain text");
        assert!(rejects_structured_mode(
            400,
            "'response_format.type' must be 'json_object'"
        ));
        assert!(rejects_structured_mode(422, "whatever"));
        assert!(!rejects_structured_mode(400, "context length exceeded"));
        assert!(!rejects_structured_mode(404, "json_schema"));
        // llama-cpp-python answers a json_schema request it cannot serve with a 500.
        assert!(rejects_structured_mode(
            500,
            "Internal error: response_format json_schema is not supported"
        ));
        assert!(rejects_structured_mode(400, "grammar failed to parse"));
        assert!(!rejects_structured_mode(500, "CUDA out of memory"));
        assert!(!rejects_structured_mode(429, "tool calls rate limited"));
    }
}
