//! The reply protocol of the `command` and `http` adapters (docs/suites.md, "Bot replies"): what a
//! reply object may hold, validated strictly so that a malformed reply is a bot error and never a
//! pass, and the size cap with a bounded line reader so that a huge reply cannot take unbounded
//! memory.
//!
//! A reply is a JSON object with `text` (a string; required unless a non-empty `plan` is given),
//! `plan` (a list of `{agent?, function, params | parameters | arguments}`), `response_type` (one
//! of action, clarification, rejection, text, error; any case), `signals` (`{asks_for, warnings,
//! rejected}`), `outcome` (any JSON) and `latency_ms` (accepted, ignored). `null` counts as absent.
//! Any other field, at any level, is an error naming it.

use serde_json::{Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use scoring::expect::Decimal;
use scoring::transcript::{BotTurn, PlanStep, ResponseType, Signals};

use super::BotError;

/// Default cap on one reply: 1 MiB.
pub const DEFAULT_MAX_REPLY_BYTES: usize = 1 << 20;

/// The fields a reply object may have.
pub const REPLY_FIELDS: [&str; 6] = [
    "text",
    "plan",
    "response_type",
    "signals",
    "outcome",
    "latency_ms",
];

const STEP_FIELDS: [&str; 5] = ["agent", "function", "params", "parameters", "arguments"];
const SIGNAL_FIELDS: [&str; 3] = ["asks_for", "warnings", "rejected"];

pub(crate) fn default_max_reply_bytes() -> usize {
    DEFAULT_MAX_REPLY_BYTES
}

/// The JSON Schema of one reply (a suite's scripted turns), built from the field lists above
/// (`null` counts as absent, as for the reader).
pub(crate) fn reply_schema() -> Value {
    let closed = |keys: &[&str], kind: &dyn Fn(&str) -> Value| {
        let props: Map<String, Value> = keys.iter().map(|k| ((*k).to_owned(), kind(k))).collect();
        serde_json::json!({"type": "object", "properties": props, "additionalProperties": false})
    };
    let nullable = |t: &str| serde_json::json!({"type": [t, "null"]});
    let mut step = closed(&STEP_FIELDS, &|k| match k {
        "function" => serde_json::json!({"type": "string", "pattern": "\\S"}),
        "agent" => nullable("string"),
        _ => nullable("object"),
    });
    step["required"] = serde_json::json!(["function"]);
    let signals = closed(&SIGNAL_FIELDS, &|k| match k {
        "rejected" => nullable("boolean"),
        _ => serde_json::json!({"type": ["array", "null"], "items": {"type": "string"}}),
    });
    let mut reply = closed(&REPLY_FIELDS, &|k| match k {
        "text" | "response_type" => nullable("string"),
        "plan" => serde_json::json!({"type": ["array", "null"], "items": step}),
        "signals" => serde_json::json!({"anyOf": [signals, {"type": "null"}]}),
        _ => serde_json::json!({}),
    });
    // `text` is required unless a plan is given.
    reply["anyOf"] = serde_json::json!([
        {"required": ["text"], "properties": {"text": {"type": "string"}}},
        {"required": ["plan"], "properties": {"plan": {"type": "array", "minItems": 1}}}
    ]);
    reply
}

fn protocol(msg: impl Into<String>) -> BotError {
    BotError::Protocol(msg.into())
}

fn unknown_fields(map: &Map<String, Value>, known: &[&str], what: &str) -> Result<(), BotError> {
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .map(|k| format!("`{k}`"))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(protocol(format!(
            "unknown field{} {} in {what} (allowed: {})",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", "),
            known.join(", ")
        )))
    }
}

/// `None` for an absent or `null` field.
fn field<'v>(map: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    map.get(key).filter(|v| !v.is_null())
}

fn string_list(value: &Value, what: &str) -> Result<Vec<String>, BotError> {
    let Value::Array(items) = value else {
        return Err(protocol(format!(
            "{what} must be a list of strings, got {value}"
        )));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| protocol(format!("{what} must be a list of strings, got {item}")))
        })
        .collect()
}

fn plan_step(i: usize, value: &Value) -> Result<PlanStep, BotError> {
    let Value::Object(map) = value else {
        return Err(protocol(format!(
            "plan[{i}] must be an object, got {value}"
        )));
    };
    unknown_fields(map, &STEP_FIELDS, &format!("plan[{i}]"))?;
    let function = match field(map, "function") {
        Some(Value::String(f)) if !f.trim().is_empty() => f.clone(),
        Some(other) => {
            return Err(protocol(format!(
                "plan[{i}].function must be a non-empty string, got {other}"
            )));
        }
        None => return Err(protocol(format!("plan[{i}] has no `function`"))),
    };
    let agent = match field(map, "agent") {
        Some(Value::String(a)) => a.clone(),
        Some(other) => {
            return Err(protocol(format!(
                "plan[{i}].agent must be a string, got {other}"
            )));
        }
        None => String::new(),
    };
    let given: Vec<&str> = ["params", "parameters", "arguments"]
        .into_iter()
        .filter(|k| field(map, k).is_some())
        .collect();
    let params = match given.as_slice() {
        [] => Map::new(),
        [key] => match field(map, key) {
            Some(Value::Object(p)) => p.clone(),
            Some(other) => {
                return Err(protocol(format!(
                    "plan[{i}].{key} must be an object, got {other}"
                )));
            }
            None => Map::new(),
        },
        several => {
            return Err(protocol(format!(
                "plan[{i}] gives its arguments twice ({}); use one of params, parameters, arguments",
                several.join(", ")
            )));
        }
    };
    Ok(PlanStep {
        agent,
        function,
        params,
    })
}

fn signals(value: &Value) -> Result<Signals, BotError> {
    let Value::Object(map) = value else {
        return Err(protocol(format!("signals must be an object, got {value}")));
    };
    unknown_fields(map, &SIGNAL_FIELDS, "signals")?;
    let list = |key: &str| {
        field(map, key).map_or(Ok(Vec::new()), |v| {
            string_list(v, &format!("signals.{key}"))
        })
    };
    let rejected = match field(map, "rejected") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            return Err(protocol(format!(
                "signals.rejected must be true or false, got {other}"
            )));
        }
    };
    Ok(Signals {
        asks_for: list("asks_for")?,
        warnings: list("warnings")?,
        rejected,
        present: true,
    })
}

/// Parses reply text as JSON, refusing numbers a float would round (integers beyond 64 bits,
/// more than 17 significant digits): they would otherwise compare as a different number.
///
/// # Errors
/// [`BotError::Protocol`] for text that is not JSON or holds such a number.
pub fn parse_reply(text: &str) -> Result<Value, BotError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| protocol(format!("the reply is not JSON: {e}")))?;
    // serde_json keeps the last of repeated keys; a reply saying two things is ambiguous.
    serde_json::from_str::<NoRepeatedKeys>(text)
        .map_err(|e| protocol(format!("the reply is ambiguous: {e}")))?;
    if let Some(token) = inexact_number(text) {
        return Err(protocol(format!(
            "the reply's number {token} cannot be read exactly; send it as a string"
        )));
    }
    Ok(value)
}

/// A JSON document walked only to refuse an object that names one key twice.
struct NoRepeatedKeys;

impl<'de> serde::Deserialize<'de> for NoRepeatedKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NoRepeatedKeysVisitor)
    }
}

struct NoRepeatedKeysVisitor;

impl<'de> serde::de::Visitor<'de> for NoRepeatedKeysVisitor {
    type Value = NoRepeatedKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(NoRepeatedKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(NoRepeatedKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(NoRepeatedKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(NoRepeatedKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(NoRepeatedKeys)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoRepeatedKeys)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<NoRepeatedKeys>()?.is_some() {}
        Ok(NoRepeatedKeys)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key `{key}` appears twice in one object"
                )));
            }
            map.next_value::<NoRepeatedKeys>()?;
        }
        Ok(NoRepeatedKeys)
    }
}

/// The first number token of valid JSON `text` that does not survive reading through `f64`.
fn inexact_number(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            {
                i += 1;
            }
            let token = &text[start..i];
            // An integer beyond 64 bits is read as a float, which rounds it (10^30).
            let integer = !token.contains(['.', 'e', 'E']);
            let exact = token.parse::<i64>().is_ok()
                || token.parse::<u64>().is_ok()
                || !integer
                    && token.parse::<f64>().ok().is_some_and(|f| {
                        Decimal::parse(&f.to_string()).is_some()
                            && Decimal::parse(&f.to_string()) == Decimal::parse(token)
                    });
            if !exact {
                return Some(token);
            }
            continue;
        }
        i += 1;
    }
    None
}

/// Reads a reply object strictly (see the module docs).
///
/// # Errors
/// [`BotError::Protocol`] naming what is wrong: not an object, unknown fields, a field of the
/// wrong type, an unknown response type, or neither `text` nor a plan.
pub fn turn_from_json(value: Value) -> Result<BotTurn, BotError> {
    let Value::Object(map) = value else {
        return Err(protocol(format!("expected a JSON object, got {value}")));
    };
    unknown_fields(&map, &REPLY_FIELDS, "the reply")?;
    let text = match field(&map, "text") {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => return Err(protocol(format!("`text` must be a string, got {other}"))),
    };
    let plan = match field(&map, "plan") {
        None => Vec::new(),
        Some(Value::Array(steps)) => steps
            .iter()
            .enumerate()
            .map(|(i, s)| plan_step(i, s))
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(protocol(format!("`plan` must be a list, got {other}"))),
    };
    if text.is_none() && plan.is_empty() {
        return Err(protocol(
            "the reply has no `text` (a string) and no plan; one of them is required",
        ));
    }
    let response_type = match field(&map, "response_type") {
        None => None,
        Some(Value::String(name)) => Some(ResponseType::parse(name).ok_or_else(|| {
            protocol(format!(
                "unknown response_type {name:?} (action, clarification, rejection, text, error)"
            ))
        })?),
        Some(other) => {
            return Err(protocol(format!(
                "`response_type` must be a string, got {other}"
            )));
        }
    };
    let signals = field(&map, "signals").map_or(Ok(Signals::default()), signals)?;
    Ok(BotTurn {
        text: text.unwrap_or_default(),
        plan,
        response_type,
        signals,
        outcome: field(&map, "outcome").cloned(),
        ..BotTurn::default()
    })
}

/// Reads one `\n`-terminated line of at most `max` bytes (the newline not counted), holding no
/// more than `max` bytes plus the reader's buffer: a longer line is an error as soon as the cap
/// is passed, without reading the rest. `Ok(None)` at end of input.
///
/// # Errors
/// [`BotError::Protocol`] for a line over the cap or not UTF-8, [`BotError::Command`] for a read
/// error.
pub async fn read_line_capped<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> Result<Option<String>, BotError> {
    let mut line: Vec<u8> = Vec::new();
    loop {
        let buf = reader
            .fill_buf()
            .await
            .map_err(|e| BotError::Command(format!("read stdout: {e}")))?;
        if buf.is_empty() {
            if line.is_empty() {
                return Ok(None);
            }
            break;
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if line.len() + chunk.len() > max {
            return Err(too_large(max));
        }
        line.extend_from_slice(chunk);
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| protocol("the reply line is not UTF-8"))
}

/// The error for a reply over the cap.
pub(crate) fn too_large(max: usize) -> BotError {
    protocol(format!(
        "the reply is larger than the cap of {max} bytes (`max_reply_bytes`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Review 25c, #11: an integer beyond 64 bits is read as a float, which rounds it.
    #[test]
    fn integers_beyond_64_bits_cannot_be_read_exactly() {
        for text in [
            r#"{"text": "ok", "outcome": {"n": 1000000000000000000000000000000}}"#,
            r#"{"text": "ok", "outcome": {"n": -18446744073709551617}}"#,
        ] {
            let err = parse_reply(text).expect_err("inexact");
            assert!(err.to_string().contains("cannot be read exactly"), "{err}");
        }
        for text in [
            r#"{"text": "ok", "outcome": {"n": 18446744073709551615}}"#,
            r#"{"text": "ok", "outcome": {"n": 1e30, "m": 0.5}}"#,
        ] {
            parse_reply(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    #[test]
    fn a_reply_without_text_or_plan_is_an_error() {
        let err = turn_from_json(json!({"reply": "Your password is hunter2"})).expect_err("strict");
        assert!(err.to_string().contains("unknown field `reply`"), "{err}");
        let err = turn_from_json(json!({"outcome": {"ok": true}})).expect_err("no text");
        assert!(err.to_string().contains("no `text`"), "{err}");
        assert!(turn_from_json(json!({"text": null, "plan": []})).is_err());
        assert!(turn_from_json(json!({"text": 5})).is_err());
        // A plan alone is a reply.
        let turn = turn_from_json(json!({"plan": [{"function": "get_balance"}]})).expect("plan");
        assert_eq!(turn.plan[0].function, "get_balance");
        assert_eq!(turn.text, "");
    }

    #[test]
    fn unknown_fields_are_named_at_every_level() {
        let err = turn_from_json(json!({"text": "ok", "plan": [{"function": "f", "args": {}}]}))
            .expect_err("unknown step field");
        assert!(err.to_string().contains("`args` in plan[0]"), "{err}");
        let err = turn_from_json(json!({"text": "ok", "signals": {"refused": true}}))
            .expect_err("unknown signal");
        assert!(err.to_string().contains("`refused` in signals"), "{err}");
        let err = turn_from_json(
            json!({"text": "ok", "plan": [{"function": "f", "params": {}, "arguments": {}}]}),
        )
        .expect_err("arguments twice");
        assert!(err.to_string().contains("twice"), "{err}");
    }

    #[test]
    fn numbers_a_float_would_round_are_refused() {
        assert!(parse_reply(r#"{"text": "a", "outcome": {"n": 18446744073709551616}}"#).is_err());
        assert!(
            parse_reply(
                r#"{"text": "0.1 \"1e999999\"", "outcome": [0.1, -5, 1e3, 18446744073709551615]}"#
            )
            .is_ok()
        );
        assert!(parse_reply(r#"{"outcome": 0.30000000000000000001}"#).is_err());
        assert!(parse_reply("not json").is_err());
    }

    #[test]
    fn response_type_is_case_insensitive_and_checked() {
        let turn = turn_from_json(json!({"text": "ok", "response_type": "Rejection"})).expect("ok");
        assert_eq!(turn.response_type, Some(ResponseType::Rejection));
        assert!(turn_from_json(json!({"text": "ok", "response_type": "refusal"})).is_err());
    }

    #[tokio::test]
    async fn lines_over_the_cap_fail_without_reading_the_rest() {
        // 64 KiB of one line behind a 1 KiB cap: fails, and the reader stopped early.
        let big = vec![b'x'; 64 * 1024];
        let mut reader = tokio::io::BufReader::with_capacity(4096, big.as_slice());
        let err = read_line_capped(&mut reader, 1024)
            .await
            .expect_err("over the cap");
        assert!(err.to_string().contains("cap of 1024 bytes"), "{err}");
        assert!(
            reader.get_ref().len() >= 64 * 1024 - 4096,
            "no more than one buffer was read"
        );

        let mut ok = tokio::io::BufReader::new(&b"{\"text\":\"a\"}\r\nnext\n"[..]);
        let line = read_line_capped(&mut ok, 64).await.expect("fits");
        assert_eq!(line.as_deref(), Some("{\"text\":\"a\"}"));
        let line = read_line_capped(&mut ok, 64).await.expect("fits");
        assert_eq!(line.as_deref(), Some("next"));
        assert_eq!(read_line_capped(&mut ok, 64).await.expect("eof"), None);
    }
}
