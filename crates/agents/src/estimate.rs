//! Before spending: how many calls, tokens and dollars a run will take.
//!
//! Prompt tokens are counted with tiktoken (`o200k_base`) on real renders of the prompts for a
//! few sampled scenarios; what the model will write cannot be rendered, so output sizes and the
//! refine rate are the documented [`Assumptions`]. Judges and the refiner are rendered over a
//! synthetic batch of `max_instances` texts of `assumed_words_per_text` words.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use llm_client::Usage;
use scenarios::Scenario;

use crate::key::Agent;
use crate::machine::Pipeline;
use runlog::AgentKind;
use runlog::RatioJudgeMode;

/// Counts tokens like OpenAI's current models (o200k), or chars/4 if the tokenizer is missing:
/// the transport's counter, so estimates and TPM reservations agree.
pub use llm_client::count_tokens;

/// What the estimate assumes about things it cannot measure before the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Assumptions {
    /// Completion tokens per generated text (default 45: one or two sentences).
    pub tokens_per_text: u64,
    /// Words per text in the synthetic batch the judge prompts are rendered with (default 25).
    pub assumed_words_per_text: u64,
    /// Completion tokens of one judge reply (default 180).
    pub judge_output_tokens: u64,
    /// Share of attempts that score below the threshold and are refined (default 0.3). Expected
    /// refinements per scenario = Σ_{k=1..max_refinements} rate^k.
    pub refine_rate: f64,
    /// Scenarios whose prompts are rendered and counted (default 5).
    pub sampled_scenarios: usize,
}

impl Default for Assumptions {
    fn default() -> Self {
        Self {
            tokens_per_text: 45,
            assumed_words_per_text: 25,
            judge_output_tokens: 180,
            refine_rate: 0.3,
            sampled_scenarios: 5,
        }
    }
}

/// Expected calls, tokens and cost of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Scenarios to run.
    pub scenarios: u64,
    /// Expected refinements per scenario.
    pub refinements_per_scenario: f64,
    /// Expected model calls in all.
    pub calls: u64,
    /// Expected prompt tokens in all.
    pub prompt_tokens: u64,
    /// Expected completion tokens in all.
    pub completion_tokens: u64,
    /// Expected cost in USD; `None` when a model has no price.
    pub cost_usd: Option<f64>,
    /// Models without a price in the table.
    pub unpriced_models: Vec<String>,
    /// Each model the run calls: the agents it plays, its prices and its share of the cost.
    pub models: Vec<ModelCost>,
    /// Scenarios whose prompts were rendered.
    pub sampled: usize,
    /// The assumptions used.
    pub assumptions: Assumptions,
}

/// A price per million tokens: cents as cents (`0.60`), finer prices as given (`0.075`).
fn per_mtok(usd: f64) -> String {
    let cents = usd * 100.0;
    if (cents - cents.round()).abs() < 1e-9 {
        format!("{usd:.2}")
    } else {
        format!("{usd}")
    }
}

/// One model of an estimate: what it costs and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCost {
    /// The model name as configured.
    pub model: String,
    /// The agents it plays.
    pub agents: Vec<Agent>,
    /// USD per million prompt tokens, `None` when the price table has no price for it.
    pub input_per_mtok: Option<f64>,
    /// USD per million completion tokens, `None` when unknown.
    pub output_per_mtok: Option<f64>,
    /// Its expected cost, `None` when its price is unknown.
    pub cost_usd: Option<f64>,
}

#[derive(Debug, Default, Clone, Copy)]
struct PerScenario {
    calls: f64,
    prompt: f64,
    completion: f64,
}

/// Estimates a run of `total` scenarios from renders of `sample` (the first few scenarios of the
/// selection). `price(model, usage)` prices a model's tokens (the transport's price table).
pub fn estimate(
    sample: &[Scenario],
    total: u64,
    pipeline: &Arc<Pipeline>,
    assumptions: Assumptions,
    price: impl Fn(&str, &Usage) -> Option<f64>,
) -> Estimate {
    let s = pipeline.settings();
    let rate = assumptions.refine_rate.clamp(0.0, 1.0);
    // `+ 0.0`: an empty sum of floats is -0.0, printed "-0.00".
    let refinements = (1..=s.max_refinements)
        .map(|k| rate.powi(k as i32))
        .sum::<f64>()
        + 0.0;
    // Every judge asked on an attempt: the four built-in ones and the config's own.
    let judges: Vec<Agent> = pipeline
        .judge_agents()
        .filter(|j| !(*j == AgentKind::CsRatio && s.ratio_judge == RatioJudgeMode::Measured))
        .collect();
    let writer_out = assumptions.tokens_per_text * u64::from(s.max_instances) + 10;
    let batch: Vec<String> = (0..s.max_instances)
        .map(|i| {
            (0..assumptions.assumed_words_per_text)
                .map(|w| {
                    if (w + u64::from(i)) % 3 == 0 {
                        "palabra"
                    } else {
                        "word"
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();

    let sampled: Vec<&Scenario> = sample
        .iter()
        .take(assumptions.sampled_scenarios.max(1))
        .collect();
    // Per agent: mean prompt tokens over the sample.
    let mut per_agent: Vec<(Agent, f64)> = Vec::new();
    let agents = AgentKind::ALL
        .into_iter()
        .map(Agent::Role)
        .chain(s.judges.iter().map(|j| Agent::Judge(j.name.clone())));
    for agent in agents {
        let mut sum = 0u64;
        let mut n = 0u64;
        for scenario in &sampled {
            if let Some(tokens) = prompt_tokens(pipeline, &agent, scenario, &batch) {
                sum += tokens;
                n += 1;
            }
        }
        per_agent.push((agent, if n == 0 { 0.0 } else { sum as f64 / n as f64 }));
    }
    let prompt_of = |agent: &Agent| {
        per_agent
            .iter()
            .find(|(a, _)| a == agent)
            .map_or(0.0, |(_, t)| *t)
    };

    // Cost per agent, accumulated as expected calls × tokens.
    let mut totals = PerScenario::default();
    let mut cost = Some(0.0);
    let mut unpriced = Vec::new();
    let mut models: Vec<ModelCost> = Vec::new();
    let mut add = |agent: Agent, calls: f64, out_tokens: f64| {
        let p = prompt_of(&agent);
        totals.calls += calls;
        totals.prompt += calls * p;
        totals.completion += calls * out_tokens;
        let Some(settings) = pipeline.agent_settings(&agent) else {
            return;
        };
        let model = &settings.model;
        let usage = Usage {
            prompt_tokens: (calls * p * total as f64).round() as u64,
            completion_tokens: (calls * out_tokens * total as f64).round() as u64,
            estimated: true,
        };
        let agent_cost = price(model, &usage);
        let line = match models.iter().position(|m| m.model == *model) {
            Some(i) => &mut models[i],
            None => {
                // The table's prices per million tokens, read back through `price`.
                let per_mtok = |prompt_tokens, completion_tokens| {
                    let one = Usage {
                        prompt_tokens,
                        completion_tokens,
                        estimated: true,
                    };
                    price(model, &one)
                };
                models.push(ModelCost {
                    model: model.clone(),
                    agents: Vec::new(),
                    input_per_mtok: per_mtok(1_000_000, 0),
                    output_per_mtok: per_mtok(0, 1_000_000),
                    cost_usd: Some(0.0),
                });
                models.last_mut().expect("just pushed")
            }
        };
        line.agents.push(agent);
        line.cost_usd = match (line.cost_usd, agent_cost) {
            (Some(a), Some(c)) => Some(a + c),
            _ => None,
        };
        match (agent_cost, cost.as_mut()) {
            (Some(c), Some(acc)) => *acc += c,
            (None, _) => {
                if !unpriced.contains(model) {
                    unpriced.push(model.clone());
                }
                cost = None;
            }
            _ => {}
        }
    };
    add(AgentKind::Generator.into(), 1.0, writer_out as f64);
    for judge in judges {
        add(
            judge,
            1.0 + refinements,
            assumptions.judge_output_tokens as f64,
        );
    }
    add(AgentKind::Refiner.into(), refinements, writer_out as f64);

    Estimate {
        scenarios: total,
        refinements_per_scenario: refinements,
        calls: (totals.calls * total as f64).round() as u64,
        prompt_tokens: (totals.prompt * total as f64).round() as u64,
        completion_tokens: (totals.completion * total as f64).round() as u64,
        cost_usd: cost,
        unpriced_models: unpriced,
        models,
        sampled: sampled.len(),
        assumptions,
    }
}

fn prompt_tokens(
    pipeline: &Pipeline,
    agent: &Agent,
    scenario: &Scenario,
    batch: &[String],
) -> Option<u64> {
    let s = pipeline.settings();
    let feedback = json!({
        "fluency": {"fluency_score": 7.0, "errors": ["text 2: agreement error"], "summary": "mostly fluent"},
        "naturalness": {"naturalness_score": 7.0, "observations": [{"sentence": 1, "note": "natural switch"}], "summary": "fairly natural"},
        "cs_ratio": {"ratio_score": 6.0, "computed_ratio": 0.4, "notes": "a little high"},
        "socio_cultural": {"socio_cultural_score": 8.0, "issues": [], "summary": "appropriate"},
        "judges": s.judges.iter().map(|j| (j.name.to_string(), json!({"score": 7.0, "reason": "fair"}))).collect::<serde_json::Map<_, _>>(),
        "score": 7.0,
        "threshold": s.threshold,
    });
    let first = scenario.param_str("first_language").unwrap_or_default();
    let second = scenario.param_str("second_language").unwrap_or_default();
    let ctx = json!({
        "params": scenario.params,
        "ratio_unit": crate::prompts::ratio_unit(&first, &second),
        "first_language": first,
        "second_language": second,
        "cs_ratio": scenario.param_str("cs_ratio"),
        "target_ratio": Value::Null,
        "min_instances": s.min_instances,
        "max_instances": s.max_instances,
        "retry": 0,
        "retry_reason": Value::Null,
        "instances": if *agent == AgentKind::Generator { json!([]) } else { json!(batch) },
        "measurement": Value::Null,
        "measured_ratio": Value::Null,
        "feedback": feedback,
    });
    match pipeline.prompts().render(agent.clone(), &ctx) {
        Ok(prompt) => {
            let schema = pipeline
                .schema(agent.clone())
                .map(|o| o.schema.to_string())
                .unwrap_or_default();
            // Chat framing (role markers) costs a few tokens per message.
            Some(count_tokens(&prompt) + count_tokens(&schema) + 7)
        }
        Err(e) => {
            tracing::debug!(%agent, error = %e, "prompt not rendered for the estimate");
            None
        }
    }
}

/// The estimate as a few lines of text, for `plan` and `run --budget`.
#[must_use]
pub fn render_estimate(e: &Estimate) -> String {
    // A count past u64 saturates: say so rather than print the ceiling as if it were counted.
    let tokens = |n: u64| {
        if n == u64::MAX {
            "more than 1.8e19 (too many to count)".to_owned()
        } else {
            n.to_string()
        }
    };
    let cost = match e.cost_usd {
        // Cents, or the significant digits below a cent (a tiny estimate is not $0.00).
        Some(c) => runlog::money::usd(c),
        None => {
            // What the priced models cost is known: say it, and what is not.
            let priced: Vec<f64> = e.models.iter().filter_map(|m| m.cost_usd).collect();
            if priced.is_empty() {
                format!("unknown (no price for {})", e.unpriced_models.join(", "))
            } else {
                format!(
                    "{} + ? (no price for {})",
                    runlog::money::usd(priced.iter().sum()),
                    e.unpriced_models.join(", ")
                )
            }
        }
    };
    let mut models = String::new();
    for m in &e.models {
        let agents: Vec<String> = m.agents.iter().map(ToString::to_string).collect();
        let line = match (m.input_per_mtok, m.output_per_mtok, m.cost_usd) {
            (Some(input), Some(output), Some(cost)) => format!(
                "\n{} ({}): ${}/${} per million prompt/completion tokens → {}",
                m.model,
                agents.join(", "),
                per_mtok(input),
                per_mtok(output),
                runlog::money::usd(cost)
            ),
            _ => format!(
                "\n{} ({}): no price known — set `run.prices` in the config for its cost",
                m.model,
                agents.join(", ")
            ),
        };
        models.push_str(&line);
    }
    format!(
        "estimate for {scenarios} scenarios: {calls} calls, {prompt} prompt + {completion} completion tokens, cost {cost}{models}\n\
         (prompts counted with tiktoken o200k on {sampled} sampled scenario(s); assumed {tpt} tokens per generated text, \
         {jot} tokens per judge reply, refine rate {rate:.0}% → {refs:.2} refinements per scenario)",
        scenarios = e.scenarios,
        calls = e.calls,
        prompt = tokens(e.prompt_tokens),
        completion = tokens(e.completion_tokens),
        sampled = e.sampled,
        tpt = e.assumptions.tokens_per_text,
        jot = e.assumptions.judge_output_tokens,
        rate = e.assumptions.refine_rate * 100.0,
        refs = e.refinements_per_scenario,
    )
}
