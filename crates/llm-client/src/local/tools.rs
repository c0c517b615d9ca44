//! Tool calling for the local model, which has no native tool protocol.
//!
//! A request with tools is turned into a structured one: the tools are described in a system
//! instruction (`tools_prompt.txt`) and the reply is constrained to
//! `{"reply": string, "tool_calls": [{"name": <one of the tools>, "arguments": <its schema>}]}` by
//! the same grammar machinery as any output schema. The parsed reply is then mapped back to
//! `content` plus `tool_calls`, so callers see what an OpenAI-compatible server would return.
//! The tool choice shapes the schema: `required` demands at least one call, a named function
//! allows only that one, `none` leaves the request as plain chat.

use serde_json::{Map, Value, json};

use crate::{
    ChatRequest, FinishReason, Message, OutputSchema, Role, ToolCall, ToolChoice, ToolDef,
};

const TOOLS_PROMPT: &str = include_str!("tools_prompt.txt");

/// Name of the synthetic output schema (visible in grammar errors).
const SCHEMA_NAME: &str = "local_tool_reply";

/// Rewrites a request with tools into a structured request; returns `false` (and leaves the
/// request alone) when tools do not apply: none declared, `tool_choice: none`, or the caller
/// already asks for its own output schema, which takes precedence.
pub(super) fn rewrite(req: &mut ChatRequest) -> bool {
    if req.tools.is_empty()
        || req.output_schema.is_some()
        || req.tool_choice == Some(ToolChoice::None)
    {
        return false;
    }
    let offered: Vec<&ToolDef> = match &req.tool_choice {
        Some(ToolChoice::Function(name)) => req.tools.iter().filter(|t| &t.name == name).collect(),
        _ => req.tools.iter().collect(),
    };
    if offered.is_empty() {
        // A forced function that is not declared: offer all of them rather than none.
        tracing::warn!(choice = ?req.tool_choice, "local model: forced tool is not declared; offering all tools");
        return rewrite_with(req, &req.tools.clone(), false);
    }
    let must_call = matches!(
        req.tool_choice,
        Some(ToolChoice::Required | ToolChoice::Function(_))
    );
    let offered: Vec<ToolDef> = offered.into_iter().cloned().collect();
    rewrite_with(req, &offered, must_call)
}

fn rewrite_with(req: &mut ChatRequest, tools: &[ToolDef], must_call: bool) -> bool {
    let instruction = TOOLS_PROMPT.replace("{tools}", &describe(tools));
    match req.messages.first_mut() {
        Some(first) if first.role == Role::System => {
            first.content.push_str("\n\n");
            first.content.push_str(instruction.trim_end());
        }
        _ => req
            .messages
            .insert(0, Message::system(instruction.trim_end())),
    }
    req.output_schema = Some(OutputSchema {
        name: SCHEMA_NAME.into(),
        schema: std::sync::Arc::new(reply_schema(tools, must_call)),
        strict: true,
    });
    true
}

/// One line per tool: name, description and argument schema.
fn describe(tools: &[ToolDef]) -> String {
    tools
        .iter()
        .map(|t| {
            let description = if t.description.is_empty() {
                String::new()
            } else {
                format!(": {}", t.description.trim())
            };
            format!(
                "- {}{description}. Arguments: {}",
                t.name,
                arguments_schema(t)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `schema` is the reply schema this module asks of a model acting as a bot.
pub(super) fn is_tool_reply(schema: &OutputSchema) -> bool {
    schema.name == SCHEMA_NAME
}

/// The tool's parameter schema, or "any object" when it declares none.
fn arguments_schema(tool: &ToolDef) -> Value {
    match &tool.parameters {
        Value::Object(o) if !o.is_empty() => tool.parameters.clone(),
        _ => json!({"type": "object"}),
    }
}

/// `schema` with its local `$ref`s (`#`, `#/$defs/…`, `#/properties/…`) pointing into it where
/// it sits in the reply schema (`at`, a JSON pointer): written for the tool's own schema, they
/// would otherwise resolve against the reply's wrapper.
///
/// The reply schema is read as draft 2020-12 (its `$schema` says nothing), so the draft 4–7
/// forms a tool may use are written the 2020-12 way: a boolean `exclusiveMinimum` or
/// `exclusiveMaximum` (draft 4) becomes the bound itself, a list `items` becomes
/// `prefixItems` (with `additionalItems` as `items`), and a `$schema` is dropped.
fn rebased(schema: &Value, at: &str) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| k.as_str() != "$schema")
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("$ref", Value::String(r)) if r.starts_with('#') => {
                            Value::String(format!("#{at}{}", &r[1..]))
                        }
                        // Keyword values that are not schemas hold no `$ref` to rewrite.
                        ("enum" | "const" | "default" | "examples", _) => v.clone(),
                        _ => rebased(v, at),
                    };
                    (k.clone(), v)
                })
                .collect();
            for (exclusive, bound) in [
                ("exclusiveMinimum", "minimum"),
                ("exclusiveMaximum", "maximum"),
            ] {
                if let Some(Value::Bool(on)) = out.get(exclusive).cloned() {
                    out.remove(exclusive);
                    if on && let Some(b) = out.remove(bound) {
                        out.insert(exclusive.into(), b);
                    }
                }
            }
            if matches!(out.get("items"), Some(Value::Array(_))) {
                if let Some(tuple) = out.remove("items") {
                    out.insert("prefixItems".into(), tuple);
                }
                if let Some(rest) = out.remove("additionalItems") {
                    out.insert("items".into(), rest);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| rebased(v, at)).collect()),
        other => other.clone(),
    }
}

/// The schema the reply must follow.
fn reply_schema(tools: &[ToolDef], must_call: bool) -> Value {
    let single = tools.len() == 1;
    let calls: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let at = if single {
                "/properties/tool_calls/items/properties/arguments".to_owned()
            } else {
                format!("/properties/tool_calls/items/anyOf/{i}/properties/arguments")
            };
            json!({
                "type": "object",
                "properties": {"name": {"const": t.name}, "arguments": rebased(&arguments_schema(t), &at)},
                "required": ["name", "arguments"],
                "additionalProperties": false
            })
        })
        .collect();
    let mut array = Map::new();
    array.insert("type".into(), "array".into());
    array.insert(
        "items".into(),
        if single {
            calls[0].clone()
        } else {
            json!({"anyOf": calls})
        },
    );
    if must_call {
        array.insert("minItems".into(), 1.into());
    }
    json!({
        "type": "object",
        "properties": {"reply": {"type": "string"}, "tool_calls": Value::Object(array)},
        "required": ["reply", "tool_calls"],
        "additionalProperties": false
    })
}

/// Splits a validated reply into the text and the calls (ids `call_0`, `call_1`, … in order).
pub(super) fn split_reply(json: &Value) -> (String, Vec<ToolCall>, FinishReason) {
    let reply = json
        .get("reply")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let calls: Vec<ToolCall> = json
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, call)| {
            Some(ToolCall {
                id: format!("call_{i}"),
                name: call.get("name")?.as_str()?.to_owned(),
                arguments: call.get("arguments").cloned().unwrap_or_else(|| json!({})),
            })
        })
        .collect();
    let finish = if calls.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    };
    (reply, calls, finish)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> ToolDef {
        ToolDef {
            name: name.into(),
            description: format!("does {name}"),
            parameters: json!({"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]}),
        }
    }

    fn request(choice: Option<ToolChoice>) -> ChatRequest {
        let mut req = ChatRequest::new("local", vec![Message::user("send 5")]);
        req.tools = vec![tool("wallet__send"), tool("wallet__balance")];
        req.tool_choice = choice;
        req
    }

    /// Break-it review of the local grammars: a tool's own `$ref`s resolved against the reply's
    /// wrapper (`#` was the whole reply, `#/$defs/n` did not resolve).
    #[test]
    fn a_tools_refs_point_into_its_own_schema_in_the_reply() {
        let node = json!({
            "type": "object",
            "$defs": {"n": {"type": "integer", "minimum": 0, "maximum": 3}},
            "properties": {"v": {"$ref": "#/$defs/n"}, "child": {"$ref": "#"}},
            "required": ["v"],
            "additionalProperties": false
        });
        for tools in [1, 2] {
            let defs: Vec<ToolDef> = (0..tools)
                .map(|i| ToolDef {
                    name: format!("t{i}"),
                    description: String::new(),
                    parameters: node.clone(),
                })
                .collect();
            let schema = reply_schema(&defs, true);
            let good = json!({"reply": "", "tool_calls": [
                {"name": "t0", "arguments": {"v": 1, "child": {"v": 2, "child": {"v": 0}}}}]});
            let bad = json!({"reply": "", "tool_calls": [
                {"name": "t0", "arguments": {"v": 1, "child": {"reply": "#", "tool_calls": []}}}]});
            let validator = jsonschema::validator_for(&schema).expect("the refs resolve");
            assert!(validator.is_valid(&good), "{schema}");
            assert!(!validator.is_valid(&bad), "{schema}");
            crate::gbnf::json_schema_to_gbnf(&schema).expect("a grammar");
        }
    }

    /// Break-it review: draft-04 and draft-07 parameter schemas failed the reply's validation
    /// ("the output schema itself is invalid") after the model had written its reply.
    #[test]
    fn draft_4_and_7_forms_are_written_the_2020_way() {
        let old = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 3},
                "m": {"type": "integer", "maximum": 9, "exclusiveMaximum": false},
                "t": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                      "additionalItems": false}
            }
        });
        let new = rebased(&old, "");
        assert!(new.get("$schema").is_none());
        let p = &new["properties"];
        assert_eq!(
            p["n"],
            json!({"type": "integer", "exclusiveMinimum": 1, "maximum": 3})
        );
        assert_eq!(p["m"], json!({"type": "integer", "maximum": 9}));
        assert_eq!(p["t"]["prefixItems"][1], json!({"type": "integer"}));
        assert_eq!(p["t"]["items"], json!(false));
        let schema = reply_schema(
            &[ToolDef {
                name: "f".into(),
                description: String::new(),
                parameters: old,
            }],
            true,
        );
        let validator = crate::structured::compile(&schema).expect("a valid schema");
        let call =
            |args: Value| json!({"reply": "", "tool_calls": [{"name": "f", "arguments": args}]});
        assert!(validator.is_valid(&call(json!({"n": 2, "t": ["a", 1]}))));
        assert!(!validator.is_valid(&call(json!({"n": 1}))));
        assert!(!validator.is_valid(&call(json!({"t": ["a", 1, 2]}))));
    }

    #[test]
    fn auto_choice_offers_every_tool_and_allows_no_call() {
        let mut req = request(None);
        assert!(rewrite(&mut req));
        assert_eq!(req.messages[0].role, Role::System);
        assert!(
            req.messages[0]
                .content
                .contains("- wallet__send: does wallet__send. Arguments: {")
        );
        assert!(req.messages[0].content.contains("- wallet__balance"));
        let schema = &req.output_schema.as_ref().expect("schema set").schema;
        assert_eq!(
            schema["properties"]["tool_calls"]["items"]["anyOf"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
        assert!(schema["properties"]["tool_calls"].get("minItems").is_none());
    }

    #[test]
    fn a_forced_function_is_the_only_one_offered_and_must_be_called() {
        let mut req = request(Some(ToolChoice::Function("wallet__balance".into())));
        req.messages.insert(0, Message::system("Be brief."));
        assert!(rewrite(&mut req));
        assert_eq!(
            req.messages.len(),
            2,
            "the instruction joins the existing system message"
        );
        assert!(req.messages[0].content.starts_with("Be brief.\n\n"));
        assert!(!req.messages[0].content.contains("wallet__send"));
        let calls =
            &req.output_schema.as_ref().expect("schema set").schema["properties"]["tool_calls"];
        assert_eq!(
            calls["items"]["properties"]["name"]["const"],
            "wallet__balance"
        );
        assert_eq!(calls["minItems"], 1);
    }

    #[test]
    fn no_tools_none_choice_or_an_own_schema_leave_the_request_alone() {
        let mut none = request(Some(ToolChoice::None));
        let mut own = request(None);
        own.output_schema = Some(OutputSchema {
            name: "x".into(),
            schema: std::sync::Arc::new(json!({"type": "object"})),
            strict: true,
        });
        let mut plain = ChatRequest::new("local", vec![Message::user("hi")]);
        for req in [&mut none, &mut own, &mut plain] {
            let before = req.clone();
            assert!(!rewrite(req));
            assert_eq!(*req, before);
        }
    }

    #[test]
    fn a_reply_maps_back_to_content_and_numbered_calls() {
        let (text, calls, finish) = split_reply(&json!({
            "reply": "Sending now.",
            "tool_calls": [{"name": "wallet__send", "arguments": {"amount": 5}}]
        }));
        assert_eq!(text, "Sending now.");
        assert_eq!(
            calls,
            vec![ToolCall {
                id: "call_0".into(),
                name: "wallet__send".into(),
                arguments: json!({"amount": 5})
            }]
        );
        assert_eq!(finish, FinishReason::ToolCalls);
        let (_, calls, finish) = split_reply(&json!({"reply": "Hi.", "tool_calls": []}));
        assert!(calls.is_empty());
        assert_eq!(finish, FinishReason::Stop);
    }
}
