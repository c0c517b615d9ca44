//! `ScenarioRun` driven with canned replies: no network, no executor.

use crate::support;

use std::collections::BTreeMap;
use std::sync::Arc;

use agents::{CallKey, Pipeline, PipelineSettings, RunOutcome, ScenarioRun};
use llm_client::{LlmError, Usage};
use runlog::{AgentKind, RatioJudgeMode};
use scenarios::Scenario;
use serde_json::{Value, json};
use support::{judge_reply, ok};

fn scenario() -> Scenario {
    let params: BTreeMap<String, Value> = [
        ("first_language", json!("Spanish")),
        ("second_language", json!("English")),
        ("cs_ratio", json!("30%")),
        ("topic", json!("sports")),
        ("tense", json!("Present")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Scenario::new(7, params)
}

fn pipeline(mode: RatioJudgeMode, max_refinements: u32) -> Arc<Pipeline> {
    let settings = PipelineSettings {
        ratio_judge: mode,
        max_refinements,
        ..PipelineSettings::default()
    };
    Arc::new(Pipeline::new(settings).expect("valid settings"))
}

fn batch(tag: &str) -> Value {
    json!({"instances": [
        format!("{tag} Hoy el equipo played really well en el partido."),
        format!("{tag} Mi hermano dice que the coach is amazing."),
        format!("{tag} Vamos al estadio, it is going to be great."),
    ]})
}

/// Answers every pending judge call with the given scores; returns the keys answered.
fn judge(run: &mut ScenarioRun, scores: [f64; 4]) -> Vec<String> {
    judge_with_prompts(run, scores)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

/// Answers every pending judge call with `scores` (in `AgentKind::JUDGES` order); the keys and
/// prompts of the calls, sorted by key.
fn judge_with_prompts(run: &mut ScenarioRun, scores: [f64; 4]) -> Vec<(String, String)> {
    let calls = run.pending();
    let mut answered = Vec::new();
    for call in calls {
        let i = AgentKind::JUDGES
            .iter()
            .position(|j| *j == call.agent)
            .expect("a judge call");
        run.absorb(&call.key, ok(judge_reply(call.agent, scores[i])))
            .expect("known key");
        answered.push((
            call.key.to_string(),
            call.request.messages[0].content.clone(),
        ));
    }
    answered.sort();
    answered
}

fn write(run: &mut ScenarioRun, expected: AgentKind, reply: Value) -> String {
    let calls = run.pending();
    assert_eq!(calls.len(), 1, "one writer call at a time");
    assert_eq!(calls[0].agent, expected);
    run.absorb(&calls[0].key, ok(reply)).expect("known key");
    calls[0].key.to_string()
}

fn finished(run: ScenarioRun) -> runlog::ScenarioRecord {
    match run.finish() {
        RunOutcome::Finished(r) => *r,
        RunOutcome::Failed(f) => panic!("failed: {}", f.reason),
    }
}

#[test]
fn accept_path_scores_with_the_weighted_formula() {
    let s = scenario();
    let id = s.id.clone();
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), s);
    assert_eq!(
        write(&mut run, AgentKind::Generator, batch("a")),
        format!("{id}:0:generator")
    );
    let keys = judge(&mut run, [9.0, 8.5, 7.0, 9.0]);
    assert_eq!(
        keys,
        ["cs_ratio", "fluency", "naturalness", "socio_cultural"]
            .map(|j| format!("{id}:0:{j}"))
            .to_vec()
    );
    assert!(run.is_done());
    let r = finished(run);
    assert!((r.score - 8.475).abs() < 1e-9, "score {}", r.score);
    assert!(r.accepted);
    assert_eq!(r.refine_count, 0);
    assert_eq!(r.attempts.len(), 1);
    assert_eq!(r.calls, 5);
    assert_eq!(r.usage.prompt_tokens, 500);
    assert_eq!(r.fluency_result["fluency_score"], json!(9.0));
    assert_eq!(
        r.naturalness_result["observations"],
        json!({"sentence_1": "ok"})
    );
    assert_eq!(r.cs_ratio_result["method"], json!("llm"));
    assert_eq!(r.params["topic"], json!("sports"));
    assert_eq!(r.models["generator"], "canned");
}

#[test]
fn refine_replaces_the_batch_and_all_four_judges_run_again() {
    let s = scenario();
    let id = s.id.clone();
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), s);
    write(&mut run, AgentKind::Generator, batch("first"));
    judge(&mut run, [5.0, 5.0, 5.0, 5.0]);
    let refine_calls = run.pending();
    assert_eq!(refine_calls.len(), 1);
    let prompt = &refine_calls[0].request.messages[0].content;
    assert!(
        prompt.contains("first Hoy"),
        "the refiner sees the current batch"
    );
    assert!(prompt.contains("EMBEDDED"), "every prompt defines cs_ratio");
    assert_eq!(refine_calls[0].key.to_string(), format!("{id}:1:refiner"));
    run.absorb(&refine_calls[0].key, ok(batch("second")))
        .expect("known key");
    let keys = judge(&mut run, [9.0, 9.0, 9.0, 9.0]);
    assert_eq!(keys.len(), 4, "all four judges re-run");
    assert!(keys.iter().all(|k| k.starts_with(&format!("{id}:1:"))));
    let r = finished(run);
    assert!(r.accepted);
    assert_eq!(r.refine_count, 1);
    assert_eq!(r.attempts.len(), 2);
    assert!(
        r.data_generation_result[0].starts_with("second"),
        "the refined text replaced the batch"
    );
    assert!(r.attempts[0].data_generation_result[0].starts_with("first"));
    assert_eq!(r.attempts[1].produced_by, AgentKind::Refiner);
    assert!((r.attempts[0].score - 5.0).abs() < 1e-9);
    assert!((r.score - 9.0).abs() < 1e-9);
}

#[test]
fn spent_refinement_budget_keeps_the_last_attempt_not_accepted() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    judge(&mut run, [4.0, 4.0, 4.0, 4.0]);
    write(&mut run, AgentKind::Refiner, batch("r1"));
    judge(&mut run, [5.0, 5.0, 5.0, 5.0]);
    write(&mut run, AgentKind::Refiner, batch("r2"));
    judge(&mut run, [6.0, 6.0, 6.0, 6.0]);
    assert!(run.is_done(), "no third refinement");
    assert!(run.pending().is_empty());
    let r = finished(run);
    assert!(!r.accepted);
    assert_eq!(r.refine_count, 2);
    assert_eq!(r.attempts.len(), 3);
    assert!(r.data_generation_result[0].starts_with("r2"));
    assert!((r.score - 6.0).abs() < 1e-9);
}

#[test]
fn empty_generations_are_retried_then_succeed() {
    let s = scenario();
    let id = s.id.clone();
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 0), s);
    write(&mut run, AgentKind::Generator, json!({"instances": []}));
    let key = write(
        &mut run,
        AgentKind::Generator,
        json!({"instances": ["  ", "", "one"]}),
    );
    assert_eq!(key, format!("{id}:0:generator~2"));
    let calls = run.pending();
    assert!(
        calls[0].request.messages[0].content.contains("retry 2"),
        "the retry says why"
    );
    run.absorb(&calls[0].key, ok(batch("g")))
        .expect("known key");
    judge(&mut run, [9.0, 9.0, 9.0, 9.0]);
    let r = finished(run);
    assert!(r.accepted);
    assert_eq!(
        r.notes.len(),
        2,
        "both rejected tries are noted: {:?}",
        r.notes
    );
}

#[test]
fn empty_generations_beyond_the_bound_fail_the_scenario() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), scenario());
    for _ in 0..3 {
        write(&mut run, AgentKind::Generator, json!({"instances": [""]}));
    }
    assert!(run.is_done());
    match run.finish() {
        RunOutcome::Failed(f) => {
            assert!(
                f.reason
                    .contains("generator gave no usable batch in 3 tries"),
                "{}",
                f.reason
            );
            assert_eq!(f.agent, Some(AgentKind::Generator));
            assert!(!f.fatal);
            assert_eq!(f.totals.calls, 3);
        }
        RunOutcome::Finished(_) => panic!("must fail"),
    }
}

#[test]
fn a_judge_error_fails_the_scenario_and_auth_is_fatal() {
    for (err, fatal) in [
        (
            LlmError::Server {
                status: 500,
                attempts: 4,
                message: "boom".into(),
            },
            false,
        ),
        (
            LlmError::Auth {
                status: 401,
                endpoint: "x".into(),
                env_var: "KEY".into(),
            },
            true,
        ),
    ] {
        let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), scenario());
        write(&mut run, AgentKind::Generator, batch("g"));
        let calls = run.pending();
        for call in calls {
            let reply = if call.agent == AgentKind::Fluency {
                Err(err.clone())
            } else {
                ok(judge_reply(call.agent, 9.0))
            };
            run.absorb(&call.key, reply).expect("known key");
        }
        assert!(run.is_done());
        match run.finish() {
            RunOutcome::Failed(f) => {
                assert_eq!(f.agent, Some(AgentKind::Fluency));
                assert_eq!(f.fatal, fatal);
                assert!(f.reason.starts_with("fluency: "), "{}", f.reason);
            }
            RunOutcome::Finished(_) => panic!("must fail"),
        }
    }
}

#[test]
fn an_invalid_judge_reply_is_asked_again_then_fails_the_scenario() {
    let s = scenario();
    let id = s.id.clone();
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), s);
    write(&mut run, AgentKind::Generator, batch("g"));
    let first = judge_with_prompts(&mut run, [12.0, 9.0, 9.0, 9.0]);
    let fluency = |calls: &[(String, String)]| {
        calls
            .iter()
            .find(|(key, _)| key.contains(":fluency"))
            .map(|(_, prompt)| prompt.clone())
            .expect("a fluency call")
    };
    let first_prompt = fluency(&first);
    assert!(!first_prompt.contains("retry"), "{first_prompt}");
    // Only the fluency judge is asked again. Its prompt keeps the first one as its prefix (for
    // prefix caches) and ends with the reason: a deterministic server (the embedded model at
    // temperature 0) would answer the same request with the same invalid reply.
    let again = judge_with_prompts(&mut run, [11.0, 9.0, 9.0, 9.0]);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].0, format!("{id}:0:fluency~2"));
    let second_prompt = fluency(&again);
    assert!(second_prompt.starts_with(&first_prompt), "{second_prompt}");
    let tail = &second_prompt[first_prompt.len()..];
    assert!(tail.contains("This is retry 1:"), "{tail}");
    assert!(tail.contains("outside 0–10"), "the reason is given: {tail}");
    let last = judge_with_prompts(&mut run, [10.5, 9.0, 9.0, 9.0]);
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].0, format!("{id}:0:fluency~3"));
    assert!(fluency(&last).contains("This is retry 2:"));
    assert!(run.is_done());
    match run.finish() {
        RunOutcome::Failed(f) => assert!(f.reason.contains("outside 0–10"), "{}", f.reason),
        RunOutcome::Finished(_) => panic!("must fail"),
    }
}

#[test]
fn a_judge_recovering_on_retry_completes_the_scenario() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    let calls = run.pending();
    for call in calls {
        let reply = if call.agent == AgentKind::Naturalness {
            Err(LlmError::InvalidOutput {
                reason: "truncated".into(),
                repairs: 1,
                raw: "{".into(),
                usage: Usage {
                    prompt_tokens: 1_000,
                    completion_tokens: 300,
                    estimated: false,
                },
                cost_usd: Some(0.25),
            })
        } else {
            ok(judge_reply(call.agent, 9.0))
        };
        run.absorb(&call.key, reply).expect("known key");
    }
    judge(&mut run, [9.0, 9.0, 9.0, 9.0]);
    let r = finished(run);
    assert!(r.accepted);
    assert_eq!(
        r.calls, 5,
        "the failed call returned no response to account"
    );
    // But its replies were generated and paid for: the record counts their tokens, cost and
    // repair on top of the five answers'.
    let answers = 5.0 * ok(json!({})).expect("ok").cost_usd.unwrap_or(0.0);
    assert!(r.usage.prompt_tokens >= 1_000, "{:?}", r.usage);
    assert!(r.usage.completion_tokens >= 300, "{:?}", r.usage);
    assert!((r.cost_usd - 0.25 - answers).abs() < 1e-9, "{}", r.cost_usd);
    assert_eq!(r.repairs, 1);
}

#[test]
fn a_judge_failing_on_paid_invalid_output_names_its_model_in_the_failure() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 0), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    let invalid = || LlmError::InvalidOutput {
        reason: "reply is not JSON".into(),
        repairs: 1,
        raw: "{".into(),
        usage: Usage {
            prompt_tokens: 100,
            completion_tokens: 10,
            estimated: false,
        },
        cost_usd: None,
    };
    // Every fluency try is paid and invalid; the other judges answer.
    while !run.is_done() {
        let calls = run.pending();
        assert!(
            !calls.is_empty(),
            "a call is pending until the scenario ends"
        );
        for call in calls {
            let reply = if call.agent == AgentKind::Fluency {
                Err(invalid())
            } else {
                ok(judge_reply(call.agent, 9.0))
            };
            run.absorb(&call.key, reply).expect("known key");
        }
    }
    match run.finish() {
        RunOutcome::Failed(f) => {
            assert_eq!(f.agent, Some(AgentKind::Fluency));
            // The paid, unusable replies are accounted, and their model named: a user reading
            // the errors file can price it.
            assert!(f.totals.usage.prompt_tokens >= 300, "{:?}", f.totals.usage);
            assert_eq!(
                f.totals.models.get("fluency").map(String::as_str),
                Some("gpt-4o-mini"),
                "{:?}",
                f.totals.models
            );
        }
        RunOutcome::Finished(_) => panic!("must fail"),
    }
}

#[test]
fn measured_mode_scores_the_ratio_without_a_call() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Measured, 0), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    let keys = judge(&mut run, [9.0, 9.0, 0.0, 9.0]);
    assert_eq!(keys.len(), 3, "no cs_ratio call: {keys:?}");
    let r = finished(run);
    assert_eq!(r.cs_ratio_result["method"], json!("measured"));
    let measured = r
        .measurement
        .as_ref()
        .and_then(|m| m["embedded_ratio"].as_f64())
        .expect("a measurement");
    let expected = codeswitch::ratio_score(measured, 0.3);
    assert!((r.scores["cs_ratio"] - expected).abs() < 1e-9);
    assert_eq!(r.calls, 4);
}

#[test]
fn hybrid_mode_averages_the_llm_and_measured_scores() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Hybrid, 0), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    judge(&mut run, [9.0, 9.0, 6.0, 9.0]);
    let r = finished(run);
    let measured = r.cs_ratio_result["measured_ratio_score"]
        .as_f64()
        .expect("measured score");
    assert_eq!(r.cs_ratio_result["method"], json!("hybrid"));
    assert!((r.scores["cs_ratio"] - (6.0 + measured) / 2.0).abs() < 1e-9);
}

#[test]
fn a_scenario_without_languages_fails_at_once() {
    let s = Scenario::new(0, BTreeMap::from([("topic".to_string(), json!("x"))]));
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), s);
    assert!(run.pending().is_empty());
    assert!(run.is_done());
    assert!(matches!(run.finish(), RunOutcome::Failed(f) if f.reason.contains("first_language")));
}

#[test]
fn unknown_keys_are_refused() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 2), scenario());
    assert!(
        run.absorb(
            &CallKey::new("nope", 0, AgentKind::Generator),
            ok(batch("x"))
        )
        .is_err()
    );
}

/// A batch with no Spanish word at all: monolingual English.
fn monolingual_batch() -> Value {
    json!({"instances": [
        "The team played really well in the match today.",
        "My brother says that the coach is amazing.",
        "We are going to the stadium, it will be great.",
    ]})
}

#[test]
fn a_monolingual_batch_is_never_accepted_even_with_every_judge_at_ten() {
    for mode in [RatioJudgeMode::Llm, RatioJudgeMode::Hybrid] {
        let mut run = ScenarioRun::new(pipeline(mode, 1), scenario());
        write(&mut run, AgentKind::Generator, monolingual_batch());
        judge(&mut run, [10.0; 4]);
        // The gate refused it: the refiner is asked, and told why.
        let calls = run.pending();
        assert_eq!(calls.len(), 1, "{mode:?}: a refinement, not acceptance");
        assert_eq!(calls[0].agent, AgentKind::Refiner);
        let prompt = serde_json::to_string(&calls[0].request.messages).expect("json");
        assert!(prompt.contains("monolingual"), "{prompt}");
        run.absorb(&calls[0].key, ok(monolingual_batch()))
            .expect("known key");
        judge(&mut run, [10.0; 4]);
        let r = finished(run);
        assert!(!r.accepted, "{mode:?}: accepted a monolingual batch");
        assert!(r.score >= 8.0, "{:?}", r.scores);
        let gate = r.gate.as_ref().expect("the gate's verdict is recorded");
        assert_eq!(gate.passed, Some(false));
        assert!(gate.reason.contains("no Spanish word"), "{}", gate.reason);
        assert!(
            r.attempts
                .iter()
                .all(|a| a.gate.as_ref().is_some_and(|g| g.passed == Some(false)))
        );
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("not accepted by the gate")),
            "{:?}",
            r.notes
        );
    }
}

#[test]
fn the_gate_passes_a_mixed_batch_and_can_be_turned_off() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 0), scenario());
    write(&mut run, AgentKind::Generator, batch("a"));
    judge(&mut run, [10.0; 4]);
    let r = finished(run);
    assert!(r.accepted);
    assert_eq!(r.gate.as_ref().and_then(|g| g.passed), Some(true));

    let settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Llm,
        max_refinements: 0,
        gate: runlog::GateSettings {
            enabled: false,
            ..runlog::GateSettings::default()
        },
        ..PipelineSettings::default()
    };
    let mut run = ScenarioRun::new(
        Arc::new(Pipeline::new(settings).expect("valid")),
        scenario(),
    );
    write(&mut run, AgentKind::Generator, monolingual_batch());
    judge(&mut run, [10.0; 4]);
    let r = finished(run);
    assert!(r.accepted, "gate off: the judges decide");
    assert_eq!(r.gate.as_ref().map(|g| g.reason.as_str()), Some("gate off"));
}

#[test]
fn an_unmeasurable_pair_leaves_the_gate_undecided_and_says_why() {
    let params: BTreeMap<String, Value> = [
        ("first_language", json!("Mandarin")),
        ("second_language", json!("Cantonese")),
        ("cs_ratio", json!("30%")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut run = ScenarioRun::new(
        pipeline(RatioJudgeMode::Measured, 0),
        Scenario::new(1, params),
    );
    write(
        &mut run,
        AgentKind::Generator,
        json!({"instances": ["我哋去食饭", "你食咗饭未", "今日好热"]}),
    );
    // Measured mode cannot measure: the LLM ratio judge is asked (four judges).
    assert_eq!(judge(&mut run, [9.0; 4]).len(), 4);
    let r = finished(run);
    assert!(r.accepted);
    let m = r
        .measurement
        .as_ref()
        .expect("an unavailable measurement is recorded");
    assert_eq!(m["status"], "unavailable");
    assert!(m["embedded_ratio"].is_null(), "{m}");
    assert_eq!(r.gate.as_ref().and_then(|g| g.passed), None);
    assert!(
        r.notes.iter().any(|n| n.contains("cannot tell them apart")),
        "{:?}",
        r.notes
    );
}

/// Issue 26: a batch the gate measured but cannot decide (romanized Hindi with one firm English
/// word a text) is refused and refined under `gate.undecided: auto`, the default, and the judges'
/// 10 accepts it only under `judges`.
#[test]
fn a_measured_batch_the_gate_cannot_decide_is_refined_under_auto() {
    let params: BTreeMap<String, Value> = [
        ("first_language", json!("Hindi")),
        ("second_language", json!("English")),
        ("script", json!("romanized")),
        ("cs_type", json!("Intrasentential")),
        ("cs_ratio", json!("30%")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let cricket = json!({"instances": [
        "Rohit ko kaptaan ne seedha slip mein khada kar diya.",
        "Naye ladke ko fine leg pe bhej do, uske haath bahut pakke hain.",
        "Silly point pe khade hokar usne ek zabardast gend lapak li.",
    ]});
    let switched = json!({"instances": [
        "Yaar main kal office nahi aa paunga because I have a doctor's appointment.",
        "Usne bola ki she will call me later, par abhi tak koi phone nahi aaya.",
        "Mujhe samajh nahi aa raha what I should wear for the party tonight.",
    ]});
    for undecided in [runlog::GateUndecided::Auto, runlog::GateUndecided::Judges] {
        let settings = PipelineSettings {
            ratio_judge: RatioJudgeMode::Llm,
            max_refinements: 1,
            gate: runlog::GateSettings {
                undecided,
                ..runlog::GateSettings::default()
            },
            ..PipelineSettings::default()
        };
        let mut run = ScenarioRun::new(
            Arc::new(Pipeline::new(settings).expect("valid")),
            Scenario::new(3, params.clone()),
        );
        write(&mut run, AgentKind::Generator, cricket.clone());
        judge(&mut run, [10.0; 4]);
        if undecided == runlog::GateUndecided::Judges {
            let r = finished(run);
            assert!(r.accepted, "judges: the judges' 10 decides");
            assert_eq!(r.gate.as_ref().and_then(|g| g.passed), None);
            continue;
        }
        // Refused as undecided, so refined; the rewrite switches and is accepted.
        write(&mut run, AgentKind::Refiner, switched.clone());
        judge(&mut run, [10.0; 4]);
        let r = finished(run);
        assert!(r.accepted);
        assert_eq!(r.attempts.len(), 2);
        let first = r.attempts[0].gate.as_ref().expect("gated");
        assert_eq!(first.passed, Some(false));
        assert!(
            first.reason.contains("gate.undecided is auto"),
            "{}",
            first.reason
        );
        assert_eq!(r.gate.as_ref().and_then(|g| g.passed), Some(true));
    }
}

#[test]
fn keep_best_keeps_the_highest_scoring_attempt_and_decides_by_it() {
    let settings = |keep| PipelineSettings {
        ratio_judge: RatioJudgeMode::Llm,
        max_refinements: 1,
        keep,
        ..PipelineSettings::default()
    };
    for (keep, kept, score) in [(runlog::Keep::Last, 1, 5.0), (runlog::Keep::Best, 0, 7.0)] {
        let mut run = ScenarioRun::new(
            Arc::new(Pipeline::new(settings(keep)).expect("valid")),
            scenario(),
        );
        write(&mut run, AgentKind::Generator, batch("first"));
        judge(&mut run, [7.0; 4]);
        write(&mut run, AgentKind::Refiner, batch("second"));
        judge(&mut run, [5.0; 4]);
        let r = finished(run);
        assert_eq!(r.kept_attempt, Some(kept), "{keep:?}");
        assert!((r.score - score).abs() < 1e-9, "{keep:?}: {}", r.score);
        assert!(r.data_generation_result[0].starts_with(if kept == 0 {
            "first"
        } else {
            "second"
        }));
        assert!(!r.accepted);
        assert_eq!(r.attempts.len(), 2);
        assert!(r.summary.starts_with("not accepted"), "{}", r.summary);
    }
}

#[test]
fn records_carry_a_summary_and_the_prompt_hashes() {
    let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 0), scenario());
    write(&mut run, AgentKind::Generator, batch("a"));
    judge(&mut run, [9.0; 4]);
    let r = finished(run);
    assert!(r.summary.contains("fluency 9/10: fluent"), "{}", r.summary);
    assert!(
        r.summary.starts_with("accepted (score 9.00, threshold 8)"),
        "{}",
        r.summary
    );
    assert_eq!(
        r.prompt_hashes.len(),
        11,
        "six agents, the shared cs_guide, article, judge_intro, judge_texts and judge_context: {:?}",
        r.prompt_hashes
    );
    assert!(r.prompt_hashes.values().all(|h| h.len() == 16));
    assert_ne!(r.prompt_hashes["generator"], r.prompt_hashes["refiner"]);
}

#[test]
fn the_generator_is_told_what_each_switching_type_and_function_means_with_an_example() {
    let cases = [
        (
            "Hindi",
            "Intrasentential",
            "Directive",
            "Main office ja raha hoon",
        ),
        (
            "Arabic",
            "Extra-sentential / Tag switching",
            "Poetic",
            "you know?",
        ),
        (
            "Chinese",
            "Intersentential",
            "Metalinguistic",
            "这个周末我们去爬山",
        ),
        ("Tagalog", "Intrasentential", "Phatic", "Voy a la tienda"),
    ];
    for (first, cs_type, function, example) in cases {
        let params: BTreeMap<String, Value> = [
            ("first_language", json!(first)),
            ("second_language", json!("English")),
            ("cs_type", json!(cs_type)),
            ("cs_function", json!(function)),
            ("script", json!("romanized")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut run = ScenarioRun::new(pipeline(RatioJudgeMode::Llm, 0), Scenario::new(3, params));
        let calls = run.pending();
        let prompt = serde_json::to_string(&calls[0].request.messages).expect("json");
        assert!(prompt.contains(example), "{first}: {prompt}");
        assert!(
            prompt.contains(&format!("Function of the switches: {function} — ")),
            "{prompt}"
        );
        assert!(prompt.contains("Equivalence Constraint"), "{prompt}");
        assert!(
            prompt.contains("Latin letters"),
            "script: romanized: {prompt}"
        );
    }
}

/// A pipeline with a fifth judge, `toxicity` (weight `weight`), beside the four.
fn with_toxicity(weight: f64, max_refinements: u32) -> Arc<Pipeline> {
    let mut settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Llm,
        max_refinements,
        ..PipelineSettings::default()
    };
    settings.weights.0.insert("toxicity".into(), weight);
    settings.judges.push(agents::judges::UserJudge {
        name: "toxicity".into(),
        template: "{% include \"judge_intro\" %}\nToxicity of {{ first_language }} texts.\n\
                   {% include \"judge_texts\" %}"
            .into(),
        file: None,
        score_field: "toxicity_score".into(),
        reason_field: Some("reason".into()),
        settings: agents::AgentSettings::with_model("judge-model"),
    });
    Arc::new(Pipeline::new(settings).expect("valid settings"))
}

/// Answers every pending judge call: the four with `score`, toxicity with `toxicity`.
fn judge_five(run: &mut ScenarioRun, score: f64, toxicity: Value) -> Vec<String> {
    let mut keys = Vec::new();
    for call in run.pending() {
        let reply = match &call.agent {
            agents::Agent::Judge(_) => toxicity.clone(),
            agent => judge_reply(agent.clone(), score),
        };
        keys.push(call.key.to_string());
        run.absorb(&call.key, ok(reply)).expect("known key");
    }
    keys.sort();
    keys
}

#[test]
fn a_declared_judge_is_asked_with_the_four_weighted_and_asked_again_on_each_refinement() {
    let mut run = ScenarioRun::new(with_toxicity(1.0, 1), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    let calls = run.pending();
    let toxicity = calls
        .iter()
        .find(|c| c.agent.name() == "toxicity")
        .expect("toxicity is asked with the four");
    assert_eq!(calls.len(), 5);
    assert_eq!(toxicity.request.model, "judge-model");
    let schema = toxicity.request.output_schema.as_ref().expect("a schema");
    assert_eq!(
        schema.schema["required"],
        json!(["toxicity_score", "reason"])
    );
    assert!(
        toxicity.request.messages[0]
            .content
            .contains("Toxicity of Spanish texts."),
        "rendered with the judges' variables"
    );
    // Put the calls back: answer them all (the four 9, toxicity 0 — refined for it).
    for call in calls {
        let reply = match &call.agent {
            agents::Agent::Judge(_) => {
                json!({"toxicity_score": 0, "reason": "an insult in text 2"})
            }
            agent => judge_reply(agent.clone(), 9.0),
        };
        run.absorb(&call.key, ok(reply)).expect("known key");
    }
    // (0.3+0.25+0.2+0.25)·9 + 1·0 over 2 = 4.5 < 8: refined, and the refiner is told why.
    let refine = run.pending();
    assert_eq!(refine.len(), 1);
    assert!(
        refine[0].request.messages[0]
            .content
            .contains("- toxicity 0.0/10: an insult in text 2"),
        "{}",
        refine[0].request.messages[0].content
    );
    run.absorb(&refine[0].key, ok(batch("r")))
        .expect("known key");
    let keys = judge_five(
        &mut run,
        9.0,
        json!({"toxicity_score": 10, "reason": "clean"}),
    );
    assert!(
        keys.iter().any(|k| k.ends_with(":1:toxicity")),
        "the refinement is judged by toxicity again: {keys:?}"
    );
    let RunOutcome::Finished(record) = run.finish() else {
        panic!("finished")
    };
    assert_eq!(record.attempts.len(), 2);
    assert_eq!(record.attempts[0].scores.get("toxicity"), Some(&0.0));
    assert!((record.attempts[0].score - 4.5).abs() < 1e-9);
    assert_eq!(record.scores.get("toxicity"), Some(&10.0));
    assert!((record.score - 9.5).abs() < 1e-9, "{}", record.score);
    assert!(record.accepted);
    assert_eq!(record.judge_results["toxicity"]["reason"], json!("clean"));
    assert_eq!(
        record.models["toxicity"], "canned",
        "the model that answered it"
    );
    assert!(record.prompt_hashes.contains_key("toxicity"));
    assert!(
        record.summary.contains("toxicity 10/10: clean"),
        "{}",
        record.summary
    );
}

#[test]
fn a_declared_judge_s_invalid_reply_is_asked_again_then_fails_the_scenario_naming_it() {
    let mut run = ScenarioRun::new(with_toxicity(1.0, 0), scenario());
    write(&mut run, AgentKind::Generator, batch("g"));
    // Out of range, then a missing field, then out of range again: three tries, then failure.
    judge_five(&mut run, 9.0, json!({"toxicity_score": 42, "reason": "r"}));
    let retry = run.pending();
    assert_eq!(retry.len(), 1, "only toxicity is asked again");
    assert_eq!(
        retry[0].key.to_string(),
        format!("{}:0:toxicity~2", scenario().id)
    );
    assert!(
        retry[0].request.messages[0].content.contains("Toxicity"),
        "the same template, asked again"
    );
    run.absorb(&retry[0].key, ok(json!({"reason": "r"})))
        .expect("known key");
    let third = run.pending();
    run.absorb(
        &third[0].key,
        ok(json!({"toxicity_score": 11, "reason": "r"})),
    )
    .expect("known key");
    assert!(run.is_done());
    let RunOutcome::Failed(failure) = run.finish() else {
        panic!("an invalid judge never passes")
    };
    assert_eq!(failure.agent, None);
    assert_eq!(
        failure.judge.as_ref().map(scoring::JudgeName::as_str),
        Some("toxicity")
    );
    assert!(
        failure.reason.starts_with("toxicity: "),
        "{}",
        failure.reason
    );
    assert!(
        failure.reason.contains("outside 0–10"),
        "{}",
        failure.reason
    );
}

#[test]
fn a_weight_for_a_judge_the_run_does_not_have_is_refused() {
    let mut settings = PipelineSettings::default();
    settings.weights.0.insert("toxicity".into(), 1.0);
    let err = Pipeline::new(settings).expect_err("no toxicity judge");
    assert!(err.to_string().contains("`toxicity` has a weight"), "{err}");
}
