//! The optional LLM judge for the askFor/warn/reject checks: renders each
//! [`JudgeQuestion`] with the `judge.j2` prompt, asks the model for `{holds, reason}` as structured
//! output, and collects [`JudgeVerdicts`] for [`scoring::expect::evaluate`]. A question the judge
//! could not answer (the call failed, or the answer was not a verdict) is never silently left to
//! the text rules: it is returned in [`JudgeAnswers::failures`], and the suite runner turns it into
//! a failed critical `judgeError` check; a suite whose judge answered nothing is a run failure.

use std::sync::Arc;

use futures::StreamExt;
use llm_client::{ChatModel, ChatRequest, Message, OutputSchema};
use minijinja::{Environment, UndefinedBehavior};
use serde_json::Value;

use scoring::expect::{JudgeQuestion, JudgeVerdict, JudgeVerdicts};

const PROMPT: &str = include_str!("judge.j2");

/// What the judge made of a list of questions.
#[derive(Debug, Clone, Default)]
pub struct JudgeAnswers {
    /// The verdicts obtained, by question id.
    pub verdicts: JudgeVerdicts,
    /// The questions that got no verdict, with why: `(question id, reason)`, in question order.
    pub failures: Vec<(String, String)>,
}

/// A chat model used as judge.
#[derive(Clone)]
pub struct LlmJudge {
    /// The model.
    pub model: Arc<dyn ChatModel>,
    /// Model name sent with each request.
    pub model_name: String,
}

impl std::fmt::Debug for LlmJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmJudge")
            .field("model_name", &self.model_name)
            .finish_non_exhaustive()
    }
}

impl LlmJudge {
    /// The prompt for one question.
    ///
    /// # Errors
    /// A template error message (the template ships with the crate, so only a bug causes one).
    pub fn prompt(question: &JudgeQuestion) -> Result<String, String> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let ctx = minijinja::context! {
            kind => question.kind.as_str(),
            subject => question.subject.clone().unwrap_or_default(),
            user_message => question.user_message.clone(),
            reply => question.reply.clone(),
        };
        env.render_str(PROMPT, ctx).map_err(|e| e.to_string())
    }

    /// Asks every question (a few at a time): the verdicts obtained and the questions that got
    /// none.
    pub async fn answer(&self, questions: &[JudgeQuestion]) -> JudgeAnswers {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"holds": {"type": "boolean"}, "reason": {"type": "string"}},
            "required": ["holds", "reason"],
            "additionalProperties": false
        });
        let answers = futures::stream::iter(questions)
            .map(|q| {
                let schema = schema.clone();
                async move {
                    let prompt = match Self::prompt(q) {
                        Ok(p) => p,
                        Err(e) => {
                            tracing::warn!(id = %q.id, error = %e, "judge prompt failed to render");
                            return (
                                q.id.clone(),
                                Err(format!("the judge prompt did not render: {e}")),
                            );
                        }
                    };
                    let mut req =
                        ChatRequest::new(self.model_name.clone(), vec![Message::user(prompt)]);
                    req.output_schema = Some(OutputSchema {
                        name: "verdict".to_owned(),
                        schema: std::sync::Arc::new(schema),
                        strict: true,
                    });
                    req.temperature = Some(0.0);
                    let answer = match self.model.chat(req).await {
                        Ok(resp) => verdict_of(&resp),
                        Err(e) => {
                            tracing::warn!(id = %q.id, error = %e, "judge call failed");
                            Err(e.to_string())
                        }
                    };
                    (q.id.clone(), answer)
                }
            })
            .buffered(4)
            .collect::<Vec<_>>()
            .await;
        let mut out = JudgeAnswers::default();
        for (id, answer) in answers {
            match answer {
                Ok(verdict) => {
                    out.verdicts.0.insert(id, verdict);
                }
                Err(reason) => out.failures.push((id, reason)),
            }
        }
        out
    }
}

/// The verdict in a judge's reply. `holds` must be a JSON boolean as the model sent it: a value
/// the client coerced to one (`"true"`, `"yes"`) is not a verdict.
fn verdict_of(resp: &llm_client::ChatResponse) -> Result<JudgeVerdict, String> {
    if let Some(c) = resp.coercions.iter().find(|c| c.path == "/holds") {
        return Err(format!(
            "the judge's `holds` is not a boolean ({})",
            c.reason
        ));
    }
    parse_verdict(resp.json.as_ref())
        .ok_or_else(|| "the judge's answer is not a verdict {holds, reason}".to_owned())
}

fn parse_verdict(json: Option<&Value>) -> Option<JudgeVerdict> {
    let json = json?;
    let holds = json.get("holds")?.as_bool()?;
    let reason = json
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("no reason given");
    Some(JudgeVerdict {
        holds,
        reason: reason.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use scoring::CheckKind;

    #[test]
    fn prompt_names_the_subject_and_reply() {
        let q = JudgeQuestion {
            id: "shouldAskFor:amount@1".to_owned(),
            kind: CheckKind::ShouldAskFor,
            subject: Some("amount".to_owned()),
            turn: 1,
            user_message: "Send money to Bob".to_owned(),
            reply: "How much would you like to send?".to_owned(),
        };
        let prompt = LlmJudge::prompt(&q).expect("template renders");
        assert!(prompt.contains("provide \"amount\""));
        assert!(prompt.contains("How much would you like to send?"));
    }

    #[test]
    fn verdicts_need_a_boolean() {
        let ok = parse_verdict(Some(
            &serde_json::json!({"holds": true, "reason": " asks "}),
        ));
        assert_eq!(
            ok,
            Some(JudgeVerdict {
                holds: true,
                reason: "asks".to_owned()
            })
        );
        assert_eq!(
            parse_verdict(Some(&serde_json::json!({"holds": "yes"}))),
            None
        );
        assert_eq!(parse_verdict(None), None);
    }

    #[test]
    fn a_coerced_holds_is_not_a_verdict() {
        let resp = llm_client::ChatResponse {
            json: Some(serde_json::json!({"holds": true, "reason": "r"})),
            coercions: vec![llm_client::Coercion {
                path: "/holds".to_owned(),
                reason: "\"true\" read as true".to_owned(),
            }],
            ..llm_client::ChatResponse::default()
        };
        let err = verdict_of(&resp).expect_err("a coerced boolean is refused");
        assert!(err.contains("not a boolean"), "{err}");
        let clean = llm_client::ChatResponse {
            coercions: Vec::new(),
            ..resp
        };
        assert!(verdict_of(&clean).expect("a boolean is a verdict").holds);
    }
}
