//! Canned model replies the pipeline tests share.

use llm_client::{ChatResponse, LlmError, Usage};
use runlog::AgentKind;
use serde_json::{Value, json};

/// A paid reply whose JSON content is `json`.
pub(crate) fn ok(json: Value) -> Result<ChatResponse, LlmError> {
    Ok(ChatResponse {
        model: "canned".into(),
        content: json.to_string(),
        json: Some(json),
        usage: Usage {
            prompt_tokens: 100,
            completion_tokens: 20,
            estimated: false,
        },
        cost_usd: Some(0.001),
        ..ChatResponse::default()
    })
}

/// A judge's reply with this score (a declared judge `x` answers `x_score` and `reason`, the
/// fields the tests declare it with).
pub(crate) fn judge_reply(agent: impl Into<agents::Agent>, score: f64) -> Value {
    let agent = match agent.into() {
        agents::Agent::Role(kind) => kind,
        agents::Agent::Judge(name) => {
            return json!({format!("{name}_score"): score, "reason": "clean"});
        }
    };
    match agent {
        AgentKind::Fluency => json!({"fluency_score": score, "errors": [], "summary": "fluent"}),
        AgentKind::Naturalness => {
            json!({"naturalness_score": score, "observations": [{"sentence": 1, "note": "ok"}], "summary": "natural"})
        }
        AgentKind::CsRatio => {
            json!({"ratio_score": score, "computed_ratio": 0.3, "notes": "close"})
        }
        AgentKind::SocioCultural => {
            json!({"socio_cultural_score": score, "issues": [], "summary": "fine"})
        }
        other => panic!("{other} is not a judge"),
    }
}
