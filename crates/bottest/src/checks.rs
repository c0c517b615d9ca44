//! Evaluating the user's own checks, the ones `scoring` declares but cannot run: `command` (a
//! process, [`command`]), `llmRubric` (a judge model through `llm-client`: its cache, retries and
//! structured-output negotiation; prompt `checks/rubric.j2`) and `similar` (embeddings through
//! the same client's `/embeddings`). Each [`CustomRequest`] gets a [`CustomOutcome`]: a verdict
//! with its reason, or an error — a process that fails, times out or prints no verdict, a model
//! that cannot be reached or answers no verdict — which `scoring` turns into a failed check,
//! never a pass. The model calls are counted, with their cost, in a [`CheckSpend`].

pub mod command;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use llm_client::{ChatModel, ChatRequest, EmbeddingRequest, LlmError, Message, OutputSchema};
use minijinja::{Environment, UndefinedBehavior};
use serde_json::Value;
use tokio::sync::OnceCell;

use scoring::CheckSpend;
use scoring::expect::{
    CustomCheck, CustomOutcome, CustomRequest, CustomVerdicts, RubricCheck, SimilarCheck, cosine,
};
use scoring::transcript::Transcript;

use crate::suite::SuiteScenario;

const RUBRIC_PROMPT: &str = include_str!("checks/rubric.j2");

/// Custom checks evaluated at once within one run.
const IN_FLIGHT: usize = 4;

/// The embedding model asked when the suite names none.
pub const DEFAULT_EMBEDDING_MODEL: &str = "text-embedding-3-small";

/// What the user's own checks need: the judge model (for `llmRubric`, and whose client serves
/// the embeddings of `similar`) and the folder `command` checks run in.
#[derive(Clone)]
pub struct CheckRunner {
    /// The model client; `None` fails every model-backed check with the reason.
    pub model: Option<Arc<dyn ChatModel>>,
    /// The judge model's name (`llmRubric`).
    pub model_name: String,
    /// The embedding model's name (`similar`).
    pub embedding_model: String,
    /// Where `command` checks run (the suite file's folder).
    pub dir: PathBuf,
    /// Model calls in flight, shared by every clone: identical requests wait for one answer.
    pub in_flight: InFlight,
}

/// Identical model requests in flight (`--repeat`, the same reply in several scenarios) are
/// made once: the first caller asks, the others wait for its answer and reuse it (counted as
/// cached). An entry lives while its call does; a failed call leaves its cell empty, so the
/// next waiter asks again (each failure is its own).
#[derive(Clone, Default)]
pub struct InFlight {
    chats: Calls<llm_client::ChatResponse>,
    embeddings: Calls<llm_client::EmbeddingResponse>,
}

type Calls<T> = Arc<Mutex<HashMap<String, Arc<OnceCell<T>>>>>;

/// Answers `key` once among concurrent callers: the answer, and whether this caller asked.
async fn once<T: Clone, F>(calls: &Calls<T>, key: String, ask: F) -> (Result<T, LlmError>, bool)
where
    F: std::future::Future<Output = Result<T, LlmError>>,
{
    let cell = {
        let mut map = calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(map.entry(key.clone()).or_default())
    };
    let mut asked = false;
    let answer = cell
        .get_or_try_init(|| {
            asked = true;
            ask
        })
        .await
        .cloned();
    if asked {
        // Done: later identical requests go to the client (and its response cache).
        let mut map = calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.get(&key).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            map.remove(&key);
        }
    }
    (answer, asked)
}

impl std::fmt::Debug for CheckRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckRunner")
            .field("model_name", &self.model_name)
            .field("embedding_model", &self.embedding_model)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl CheckRunner {
    /// A runner with no model: `command` checks run in `dir`; model-backed checks fail with
    /// the reason.
    #[must_use]
    pub fn without_model(dir: PathBuf) -> Self {
        Self {
            model: None,
            model_name: String::new(),
            embedding_model: DEFAULT_EMBEDDING_MODEL.to_owned(),
            dir,
            in_flight: InFlight::default(),
        }
    }

    /// Answers every request of one run: the outcomes by id and what the model calls cost.
    pub async fn answer(
        &self,
        scenario: &SuiteScenario,
        t: &Transcript,
        requests: &[CustomRequest],
    ) -> (CustomVerdicts, CheckSpend) {
        let answers: Vec<(String, CustomOutcome, CheckSpend)> = futures::stream::iter(requests)
            .map(|r| async move {
                let mut spend = CheckSpend::default();
                let outcome = match &r.check {
                    CustomCheck::Command(c) => {
                        command::run(c, &self.dir, &command::input(scenario, t, r.turn)).await
                    }
                    CustomCheck::LlmRubric(rubric) => {
                        self.rubric(rubric, t, r.turn, &mut spend).await
                    }
                    CustomCheck::Similar(s) => self.similar(s, t, r.turn, &mut spend).await,
                };
                if let CustomOutcome::Error(e) = &outcome {
                    tracing::warn!(scenario = %scenario.id, check = %r.check.name(), error = %e, "check could not be evaluated");
                }
                (r.id.clone(), outcome, spend)
            })
            .buffered(IN_FLIGHT)
            .collect()
            .await;
        let mut verdicts = CustomVerdicts::default();
        let mut total = CheckSpend::default();
        for (id, outcome, spend) in answers {
            verdicts.0.insert(id, outcome);
            total.add(&spend);
        }
        (verdicts, total)
    }

    fn model(&self, check: &str) -> Result<&Arc<dyn ChatModel>, CustomOutcome> {
        self.model.as_ref().ok_or_else(|| {
            CustomOutcome::Error(format!(
                "`{check}` needs a model and none is configured (give `test` a model: --model \
                 or the suite's bot.llm.model, and an endpoint)"
            ))
        })
    }

    /// Renders the rubric prompt for one turn.
    ///
    /// # Errors
    /// A template error message (the template ships with the crate, so only a bug causes one).
    pub fn rubric_prompt(rubric: &str, t: &Transcript, turn: usize) -> Result<String, String> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let history: Vec<minijinja::Value> = t
            .turns
            .iter()
            .take(turn.saturating_sub(1))
            .map(|(user, bot)| minijinja::context! {user => user, bot => bot.text.clone()})
            .collect();
        let (user, bot) = t
            .turns
            .get(turn.saturating_sub(1))
            .ok_or_else(|| format!("turn {turn} was not reached"))?;
        let ctx = minijinja::context! {
            rubric => rubric,
            history => history,
            user_message => user,
            reply => bot.text.clone(),
        };
        env.render_str(RUBRIC_PROMPT, ctx)
            .map_err(|e| e.to_string())
    }

    async fn rubric(
        &self,
        rubric: &RubricCheck,
        t: &Transcript,
        turn: usize,
        spend: &mut CheckSpend,
    ) -> CustomOutcome {
        let model = match self.model("llmRubric") {
            Ok(m) => m,
            Err(e) => return e,
        };
        let prompt = match Self::rubric_prompt(&rubric.rubric, t, turn) {
            Ok(p) => p,
            Err(e) => {
                return CustomOutcome::Error(format!("the rubric prompt did not render: {e}"));
            }
        };
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"reasoning": {"type": "string"}, "pass": {"type": "boolean"}},
            "required": ["reasoning", "pass"],
            "additionalProperties": false
        });
        let mut req = ChatRequest::new(self.model_name.clone(), vec![Message::user(prompt)]);
        req.output_schema = Some(OutputSchema {
            name: "rubric_verdict".to_owned(),
            schema: Arc::new(schema),
            strict: true,
        });
        req.temperature = Some(0.0);
        let key = format!("{}\u{1f}{}", self.model_name, prompt_text(&req));
        let (answer, asked) = once(&self.in_flight.chats, key, model.chat(req)).await;
        match answer {
            Ok(resp) if asked => {
                spend.record(resp.cached, resp.cost_usd);
                rubric_verdict(&resp)
            }
            // Another run's call answered it: nothing more was asked or paid.
            Ok(resp) => {
                spend.record(true, None);
                rubric_verdict(&resp)
            }
            Err(e) => {
                let reason = format!("the rubric judge could not answer: {e}");
                record_error(spend, &e, &reason);
                CustomOutcome::Error(reason)
            }
        }
    }

    async fn similar(
        &self,
        check: &SimilarCheck,
        t: &Transcript,
        turn: usize,
        spend: &mut CheckSpend,
    ) -> CustomOutcome {
        let model = match self.model("similar") {
            Ok(m) => m,
            Err(e) => return e,
        };
        let Some((_, bot)) = t.turns.get(turn.saturating_sub(1)) else {
            return CustomOutcome::Error(format!("turn {turn} was not reached"));
        };
        let mut input = vec![bot.text.clone()];
        input.extend(check.references.iter().cloned());
        let req = EmbeddingRequest {
            model: self.embedding_model.clone(),
            input,
        };
        let key = format!("{}\u{1f}{}", req.model, req.input.join("\u{1e}"));
        let (answer, asked) = once(&self.in_flight.embeddings, key, model.embed(req)).await;
        let resp = match answer {
            Ok(mut resp) => {
                if !asked {
                    resp.cached = true;
                    resp.cost_usd = None;
                }
                resp
            }
            Err(e) => {
                let reason = format!("no embeddings: {e}");
                record_error(spend, &e, &reason);
                return CustomOutcome::Error(reason);
            }
        };
        spend.record(resp.cached, resp.cost_usd);
        similarity_verdict(check, &resp.embeddings)
    }
}

/// The request's prompt, as a key part.
fn prompt_text(req: &ChatRequest) -> String {
    req.messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\u{1e}")
}

/// Counts a model call that ended in an error: one the model answered, though invalidly
/// ([`LlmError::InvalidOutput`]), was made and paid for, so it counts as a call with its cost
/// (its check still fails as not evaluated); any other got no answer.
fn record_error(spend: &mut CheckSpend, e: &LlmError, reason: &str) {
    match e {
        LlmError::InvalidOutput { cost_usd, .. } => spend.record(false, *cost_usd),
        _ => spend.record_failure(reason),
    }
}

/// A rubric judge's verdict, read strictly: both fields, nothing else, each once.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RubricAnswer {
    reasoning: String,
    pass: bool,
}

/// The verdict in a rubric judge's reply: `pass` must be a boolean the model sent (one the
/// client coerced is not a verdict), and the reasoning is kept for every report.
///
/// The reply's final text is parsed again here, strictly, whatever the client accepted: a
/// duplicate field (`"pass": false, "pass": true`), text after the object or a field of the
/// wrong type is an ambiguous verdict, so the check could not be evaluated — never a pass.
/// Only one Markdown code fence around the object is tolerated.
fn rubric_verdict(resp: &llm_client::ChatResponse) -> CustomOutcome {
    if let Some(c) = resp.coercions.iter().find(|c| c.path == "/pass") {
        return CustomOutcome::Error(format!(
            "the rubric judge's `pass` is not a boolean ({})",
            c.reason
        ));
    }
    let text = unfence(&resp.content);
    let answer = match serde_json::from_str::<RubricAnswer>(text) {
        Ok(a) => a,
        Err(e) => {
            return CustomOutcome::Error(format!(
                "the rubric judge's answer is not one verdict {{reasoning, pass}}: {e} \
                 (answer: {})",
                short(text)
            ));
        }
    };
    // The client's reading must agree with ours (it may have repaired the reply).
    if resp
        .json
        .as_ref()
        .and_then(|j| j.get("pass"))
        .and_then(Value::as_bool)
        != Some(answer.pass)
    {
        return CustomOutcome::Error(
            "the rubric judge's answer is ambiguous (the client read another verdict)".to_owned(),
        );
    }
    match answer.reasoning.trim() {
        "" => CustomOutcome::Error("the rubric judge gave no reasoning".to_owned()),
        reason => CustomOutcome::Verdict {
            passed: answer.pass,
            score: None,
            reason: format!("judge: {reason}"),
        },
    }
}

/// The text inside one Markdown code fence (```` ```json … ``` ````), else the trimmed text.
fn unfence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```").and_then(|r| r.strip_suffix("```")) else {
        return t;
    };
    // The fence's first line may name a language.
    match rest.split_once('\n') {
        Some((lang, body)) if !lang.contains('{') => body.trim(),
        _ => rest.trim(),
    }
}

/// The best cosine similarity of the reply (`vectors[0]`) to a reference (the rest) against
/// the threshold.
fn similarity_verdict(check: &SimilarCheck, vectors: &[Vec<f32>]) -> CustomOutcome {
    let Some((reply, refs)) = vectors.split_first() else {
        return CustomOutcome::Error("the embeddings reply is empty".to_owned());
    };
    if refs.len() != check.references.len() {
        return CustomOutcome::Error(format!(
            "expected {} embeddings, got {}",
            check.references.len() + 1,
            vectors.len()
        ));
    }
    let best = refs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| cosine(reply, r).map(|c| (i, c)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((i, sim)) => {
            let passed = sim >= check.threshold;
            let cmp = if passed { "≥" } else { "<" };
            CustomOutcome::Verdict {
                passed,
                score: Some(sim),
                reason: format!(
                    "cosine similarity {sim:.3} {cmp} threshold {} to reference {} ({})",
                    check.threshold,
                    i + 1,
                    short(&check.references[i])
                ),
            }
        }
        // An empty reply (or reference) has no direction: no similarity can be claimed.
        None => CustomOutcome::Error(
            "no similarity can be computed (an empty text or a zero vector)".to_owned(),
        ),
    }
}

fn short(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 40 {
        format!("{flat:?}")
    } else {
        let cut: String = flat.chars().take(37).collect();
        format!("\"{cut}...\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(threshold: f64) -> SimilarCheck {
        SimilarCheck {
            references: vec!["a".to_owned(), "b".to_owned()],
            threshold,
            label: None,
        }
    }

    #[test]
    fn the_closest_reference_decides() {
        let v = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 0.1]];
        match similarity_verdict(&check(0.9), &v) {
            CustomOutcome::Verdict { passed, score, .. } => {
                assert!(passed);
                assert!(score.expect("a score") > 0.99);
            }
            CustomOutcome::Error(e) => panic!("{e}"),
        }
        assert!(matches!(
            similarity_verdict(&check(0.9), &v[..2]),
            CustomOutcome::Error(_)
        ));
        let zero = vec![vec![0.0, 0.0], vec![0.0, 1.0], vec![1.0, 0.1]];
        assert!(matches!(
            similarity_verdict(&check(0.1), &zero),
            CustomOutcome::Error(_)
        ));
    }

    #[test]
    fn a_rubric_answer_needs_pass_and_reasoning() {
        let resp = |json: Value| llm_client::ChatResponse {
            content: json.to_string(),
            json: Some(json),
            ..llm_client::ChatResponse::default()
        };
        assert!(matches!(
            rubric_verdict(&resp(serde_json::json!({"pass": true, "reasoning": "ok"}))),
            CustomOutcome::Verdict { passed: true, .. }
        ));
        assert!(matches!(
            rubric_verdict(&resp(serde_json::json!({"pass": "yes", "reasoning": "ok"}))),
            CustomOutcome::Error(_)
        ));
        assert!(matches!(
            rubric_verdict(&resp(serde_json::json!({"pass": false}))),
            CustomOutcome::Error(_)
        ));
    }

    /// A reply as the client hands it over: the raw text, and the client's lenient reading of
    /// it (serde_json's `Value` keeps the last of duplicate keys).
    fn raw_reply(content: &str, json: Value) -> llm_client::ChatResponse {
        llm_client::ChatResponse {
            content: content.to_owned(),
            json: Some(json),
            ..llm_client::ChatResponse::default()
        }
    }

    #[test]
    fn an_ambiguous_rubric_verdict_is_no_pass() {
        let yes = serde_json::json!({"reasoning": "ok", "pass": true});
        for bad in [
            r#"{"reasoning": "ok", "pass": false, "pass": true}"#,
            r#"{"reasoning": "ok", "pass": true} trailing"#,
            r#"{"reasoning": "ok", "pass": true}{"pass": false}"#,
            r#"{"reasoning": "ok", "pass": true, "extra": 1}"#,
            r#"{"reasoning": "ok", "pass": 1}"#,
        ] {
            match rubric_verdict(&raw_reply(bad, yes.clone())) {
                CustomOutcome::Error(e) => assert!(e.contains("not one verdict"), "{e}"),
                v @ CustomOutcome::Verdict { .. } => panic!("{v:?} from {bad}"),
            }
        }
        // The same verdict, clean or in one code fence, is read.
        for good in [
            r#"{"reasoning": "ok", "pass": true}"#,
            "```json\n{\"reasoning\": \"ok\", \"pass\": true}\n```",
        ] {
            assert!(
                matches!(
                    rubric_verdict(&raw_reply(good, yes.clone())),
                    CustomOutcome::Verdict { passed: true, .. }
                ),
                "{good}"
            );
        }
    }
}
