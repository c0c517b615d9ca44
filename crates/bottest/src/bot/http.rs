//! The `http` adapter: POSTs each user message to an endpoint. The request body is a minijinja
//! template rendered with `message`, `history` (a list of `{user, bot}` texts) and `turn`; header
//! values may name environment variables (`Bearer ${BOT_TOKEN}`), resolved when the bot is built so
//! a missing variable fails fast. JSON pointers map the reply to the turn's text, plan, response
//! type, signals and outcome. With the default pointers the body is a reply object of the strict
//! protocol of [`super::reply`] (unknown fields are errors); with custom pointers only the values
//! they select are validated. A body over `max_reply_bytes` is a bot error, read no further.

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use scoring::transcript::BotTurn;

use super::reply::{default_max_reply_bytes, too_large};
use super::{Bot, BotError, History, TurnFuture, parse_reply, resolved_headers, turn_from_json};

/// Settings of the `http` adapter in a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpSpec {
    /// Endpoint URL.
    pub url: String,
    /// Extra headers; values may contain `${VAR}`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Body template (minijinja, must render JSON). Default: `{"message": …, "history": …}`.
    #[serde(default)]
    pub body: Option<String>,
    /// Where the reply's fields are.
    #[serde(default)]
    pub reply: ReplyPointers,
    /// Largest reply body accepted, in bytes (default 1 MiB); a longer one is a bot error.
    #[serde(default = "default_max_reply_bytes")]
    pub max_reply_bytes: usize,
}

/// JSON pointers into the endpoint's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ReplyPointers {
    /// The reply text (a string).
    pub text: String,
    /// The plan (a list of `{agent, function, params|parameters|arguments}`).
    pub plan: Option<String>,
    /// The response type (a string).
    pub response_type: Option<String>,
    /// Structured signals (`{asks_for, warnings, rejected}`).
    pub signals: Option<String>,
    /// The execution outcome (any JSON).
    pub outcome: Option<String>,
}

impl Default for ReplyPointers {
    fn default() -> Self {
        Self {
            text: "/text".to_owned(),
            plan: Some("/plan".to_owned()),
            response_type: Some("/response_type".to_owned()),
            signals: Some("/signals".to_owned()),
            outcome: Some("/outcome".to_owned()),
        }
    }
}

const DEFAULT_BODY: &str =
    r#"{"message": {{ message | tojson }}, "history": {{ history | tojson }}}"#;

/// A bot behind an HTTP endpoint.
pub struct HttpBot {
    client: reqwest::Client,
    spec: HttpSpec,
    headers: Vec<(String, String)>,
}

impl HttpBot {
    /// Builds the adapter, resolving `${VAR}` headers now.
    ///
    /// # Errors
    /// [`BotError::Config`] for an unset variable or an unusable HTTP client.
    pub fn new(spec: HttpSpec) -> Result<Self, BotError> {
        let headers = resolved_headers(&spec.headers)?;
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| BotError::Config(format!("http client: {e}")))?;
        Ok(Self {
            client,
            spec,
            headers,
        })
    }

    fn body(&self, history: &History, message: &str) -> Result<Value, BotError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let template = self.spec.body.as_deref().unwrap_or(DEFAULT_BODY);
        let history: Vec<Value> = history
            .iter()
            .map(|(user, bot)| serde_json::json!({"user": user, "bot": bot.text}))
            .collect();
        let ctx = minijinja::context! { message => message, history => minijinja::Value::from(minijinja::value::Serde(&history)), turn => history.len() + 1 };
        let text = env
            .render_str(template, ctx)
            .map_err(|e| BotError::Config(format!("http body template: {e}")))?;
        serde_json::from_str(&text)
            .map_err(|e| BotError::Config(format!("http body template did not render JSON: {e}")))
    }

    fn turn_from_reply(&self, reply: Value) -> Result<BotTurn, BotError> {
        let p = &self.spec.reply;
        if *p == ReplyPointers::default() {
            return turn_from_json(reply);
        }
        let mut obj = Map::new();
        let fields = [
            ("text", &Some(p.text.clone())),
            ("plan", &p.plan),
            ("response_type", &p.response_type),
            ("signals", &p.signals),
            ("outcome", &p.outcome),
        ];
        for (field, pointer) in fields {
            if let Some(v) = pointer.as_deref().and_then(|ptr| reply.pointer(ptr))
                && !v.is_null()
            {
                obj.insert(field.to_owned(), v.clone());
            }
        }
        turn_from_json(Value::Object(obj))
    }
}

impl HttpBot {
    /// Replaces every resolved header value (tokens read from `${VAR}`s) in `text`: a bot that
    /// echoes its request headers in an error body must not put a secret into a report.
    fn redact_header_values(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (_, value) in &self.headers {
            for secret in value.split_whitespace().filter(|part| part.len() >= 8) {
                out = out.replace(secret, "[redacted]");
            }
        }
        out
    }
}

impl Bot for HttpBot {
    fn turn<'a>(&'a mut self, history: &'a History, message: &'a str) -> TurnFuture<'a> {
        Box::pin(async move {
            let body = self.body(history, message)?;
            let mut req = self.client.post(&self.spec.url).json(&body);
            for (k, v) in &self.headers {
                req = req.header(k, v);
            }
            let resp = req.send().await.map_err(|e| {
                // Nothing listening, or no such host: the bot was never reached.
                if e.is_connect() {
                    BotError::Unreachable(stdx::redact_urls_in(&e.to_string()))
                } else {
                    BotError::Http(e.to_string())
                }
            })?;
            let status = resp.status();
            let max = self.spec.max_reply_bytes;
            if resp
                .content_length()
                .is_some_and(|len| usize::try_from(len).map_or(true, |len| len > max))
            {
                return Err(too_large(max));
            }
            let mut resp = resp;
            let mut bytes: Vec<u8> = Vec::new();
            while let Some(chunk) = resp
                .chunk()
                .await
                .map_err(|e| BotError::Http(e.to_string()))?
            {
                if bytes.len() + chunk.len() > max {
                    return Err(too_large(max));
                }
                bytes.extend_from_slice(&chunk);
            }
            if !status.is_success() {
                let snippet: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
                let snippet = self.redact_header_values(&snippet);
                return Err(BotError::Http(format!("status {status}: {snippet}")));
            }
            let text = String::from_utf8(bytes)
                .map_err(|_| BotError::Protocol("the reply is not UTF-8".to_owned()))?;
            let reply = parse_reply(&text)?;
            self.turn_from_reply(reply)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::DEFAULT_MAX_REPLY_BYTES;

    #[test]
    fn error_bodies_echoing_a_header_token_are_redacted() {
        let spec = HttpSpec {
            url: "http://127.0.0.1:9/".into(),
            headers: [(
                "authorization".to_owned(),
                "Bearer sk-test-0123456789".to_owned(),
            )]
            .into(),
            body: None,
            reply: ReplyPointers::default(),
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
        };
        let bot = HttpBot::new(spec).expect("http bot");
        let text = bot.redact_header_values(r#"{"error":"bad token sk-test-0123456789"}"#);
        assert_eq!(text, r#"{"error":"bad token [redacted]"}"#);
    }
}
