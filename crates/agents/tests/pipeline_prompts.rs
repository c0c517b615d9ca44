//! Every agent's prompt as the pipeline renders it, snapshot-tested, plus override and
//! strict-undefined behaviour.

use std::collections::BTreeMap;
use std::sync::Arc;

use agents::prompts::Prompts;
use agents::{AgentSettings, Pipeline, PipelineSettings, ScenarioRun};
use llm_client::ChatResponse;
use runlog::{AgentKind, RatioJudgeMode};
use scenarios::Scenario;
use serde_json::{Value, json};

fn scenario() -> Scenario {
    let params: BTreeMap<String, Value> = [
        ("first_language", json!("Arabic")),
        ("second_language", json!("English")),
        ("cs_ratio", json!("30%")),
        ("topic", json!("sports")),
        ("tense", json!("Past")),
        ("perspective", json!("First Person")),
        ("cs_function", json!("Expressive")),
        ("cs_type", json!("Intrasentential")),
        ("age", json!("18-25")),
        ("gender", json!("Female")),
        ("education_level", json!("College")),
        ("conversation_type", json!("multi-turn")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Scenario::new(0, params)
}

fn reply(v: Value) -> Result<ChatResponse, llm_client::LlmError> {
    Ok(ChatResponse {
        json: Some(v),
        model: "m".into(),
        ..ChatResponse::default()
    })
}

fn judge_reply(agent: AgentKind) -> Value {
    match agent {
        AgentKind::Fluency => {
            json!({"fluency_score": 6, "errors": ["text 2: wrong article after the switch"], "summary": "mostly fluent"})
        }
        AgentKind::Naturalness => {
            json!({"naturalness_score": 6, "observations": [{"sentence": 1, "note": "natural tag switch"}, {"sentence": 2, "note": "forced insertion"}], "summary": "uneven"})
        }
        AgentKind::CsRatio => {
            json!({"ratio_score": 5, "computed_ratio": 0.45, "notes": "too much English"})
        }
        AgentKind::SocioCultural => {
            json!({"socio_cultural_score": 7, "issues": [], "summary": "appropriate"})
        }
        _ => Value::Null,
    }
}

/// Renders every prompt through the state machine, in order: generator, four judges, refiner.
fn rendered() -> Vec<(String, String)> {
    let settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Hybrid,
        ..PipelineSettings::default()
    };
    let mut run = ScenarioRun::new(
        Arc::new(Pipeline::new(settings).expect("settings")),
        scenario(),
    );
    let mut out = Vec::new();
    let gen_call = run.pending().remove(0);
    out.push((
        "generator".to_string(),
        gen_call.request.messages[0].content.clone(),
    ));
    run.absorb(
        &gen_call.key,
        reply(json!({"instances": [
            "امبارح الماتش كان intense جداً، and I screamed the whole time.",
            "أنا وصاحبتي روحنا الملعب, it was honestly the best day.",
            "الحكم ظلمنا بصراحة, but we still won في الآخر."
        ]})),
    )
    .expect("known");
    let mut judges = run.pending();
    judges.sort_by_key(|c| c.agent.clone());
    for call in judges {
        out.push((
            call.agent.to_string(),
            call.request.messages[0].content.clone(),
        ));
        run.absorb(
            &call.key,
            reply(judge_reply(call.agent.role().expect("a judge"))),
        )
        .expect("known");
    }
    let refine = run.pending().remove(0);
    assert_eq!(refine.agent, AgentKind::Refiner);
    out.push((
        "refiner".to_string(),
        refine.request.messages[0].content.clone(),
    ));
    out
}

#[test]
fn every_prompt_render_matches_its_snapshot() {
    let prompts = rendered();
    assert_eq!(prompts.len(), 6);
    for (agent, prompt) in &prompts {
        assert!(
            prompt.contains("EMBEDDED"),
            "{agent}: every prompt says cs_ratio is the embedded share"
        );
        insta::assert_snapshot!(format!("prompt_{agent}"), prompt);
    }
}

#[test]
fn a_retried_generation_says_why() {
    let mut run = ScenarioRun::new(
        Arc::new(Pipeline::new(PipelineSettings::default()).expect("settings")),
        scenario(),
    );
    let call = run.pending().remove(0);
    run.absorb(&call.key, reply(json!({"instances": []})))
        .expect("known");
    let retry = run.pending().remove(0);
    insta::assert_snapshot!("prompt_generator_retry", retry.request.messages[0].content);
}

#[test]
fn an_override_file_replaces_the_builtin_prompt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("gen.j2");
    std::fs::write(&path, "Write {{ min_instances }} {{ first_language }}/{{ second_language }} texts about {{ params.topic }}.").expect("write");
    let mut settings = PipelineSettings::default();
    settings.agents.generator = AgentSettings {
        prompt: Some(path),
        ..settings.agents.generator.clone()
    };
    let mut run = ScenarioRun::new(
        Arc::new(Pipeline::new(settings).expect("settings")),
        scenario(),
    );
    let call = run.pending().remove(0);
    assert_eq!(
        call.request.messages[0].content,
        "Write 3 Arabic/English texts about sports."
    );
}

#[test]
fn undefined_variables_fail_loudly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("judge.j2");
    std::fs::write(&path, "Judge {{ no_such_variable }}").expect("write");
    let mut settings = PipelineSettings::default();
    settings.agents.fluency.prompt = Some(path);
    let prompts = Prompts::from_settings(&settings.agents, &[]).expect("compiles");
    let err = prompts
        .render(AgentKind::Fluency, &json!({"instances": []}))
        .expect_err("strict");
    assert!(err.to_string().contains("fluency"), "{err}");
    let missing = Prompts::from_settings(
        &{
            let mut a = settings.agents.clone();
            a.refiner.prompt = Some(dir.path().join("missing.j2"));
            a
        },
        &[],
    );
    assert!(missing.is_err_and(|e| e.to_string().contains("missing.j2")));
}

/// A pipeline whose `agent` prompt is `text`, in a file of `dir`.
fn with_prompt(dir: &std::path::Path, agent: AgentKind, text: &str) -> Arc<Pipeline> {
    let path = dir.join(format!("{agent}.j2"));
    std::fs::write(&path, text).expect("write");
    let mut settings = PipelineSettings::default();
    let mut set = settings.agents.get(agent).clone();
    set.prompt = Some(path);
    match agent {
        AgentKind::Generator => settings.agents.generator = set,
        AgentKind::Fluency => settings.agents.fluency = set,
        AgentKind::Naturalness => settings.agents.naturalness = set,
        AgentKind::CsRatio => settings.agents.cs_ratio = set,
        AgentKind::SocioCultural => settings.agents.socio_cultural = set,
        AgentKind::Refiner => settings.agents.refiner = set,
    }
    Arc::new(Pipeline::new(settings).expect("the template compiles"))
}

#[test]
fn the_builtin_prompts_and_a_sound_override_rehearse_cleanly() {
    let builtin = Arc::new(Pipeline::new(PipelineSettings::default()).expect("settings"));
    builtin
        .rehearse_prompts(&scenario())
        .expect("built-in prompts");
    let dir = tempfile::tempdir().expect("tempdir");
    // Every variable a refiner may read, the feedback's fields included.
    let refiner = with_prompt(
        dir.path(),
        AgentKind::Refiner,
        "{% include \"cs_guide\" %}{{ params.topic }} {{ retry }} {{ retry_reason }} \
         {{ instances | length }} {{ measured_ratio }} {{ measurement }} \
         {{ feedback.fluency.fluency_score }} {{ feedback.naturalness.observations[0].note }} \
         {{ feedback.cs_ratio.ratio_score }} {{ feedback.socio_cultural.issues }} \
         {{ feedback.score }} {{ feedback.threshold }} {{ feedback.gate }}",
    );
    refiner
        .rehearse_prompts(&scenario())
        .expect("a sound refiner prompt");
    // The verdict the run's ratio mode gives (hybrid by default: the LLM judge's score too).
    let hybrid = with_prompt(
        dir.path(),
        AgentKind::Refiner,
        "{{ feedback.cs_ratio.llm_ratio_score }} {{ feedback.cs_ratio.method }} \
         {% if measured_ratio is not none %}{{ measured_ratio * 100 }}{% endif %} \
         {% if feedback.gate %}{{ feedback.gate }}{% endif %}",
    );
    hybrid
        .rehearse_prompts(&scenario())
        .expect("the LLM judge's score is in a hybrid verdict");
}

#[test]
fn a_prompt_that_cannot_render_is_refused_before_any_call_naming_its_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (agent, text, why) in [
        (
            AgentKind::Generator,
            "Write {{ no_such_variable }}",
            "undefined",
        ),
        (
            AgentKind::Fluency,
            "{% include \"no_such_part\" %}",
            "no_such_part",
        ),
        (
            AgentKind::SocioCultural,
            "again {% include \"socio_cultural\" %}",
            "include",
        ),
        (
            AgentKind::Refiner,
            "{{ feedback.fluency.no_such_field }}",
            "undefined",
        ),
        (
            AgentKind::Naturalness,
            "{{ params.no_such_axis }}",
            "undefined",
        ),
        // Cases a run meets only now and then: each is rendered before the run.
        (
            AgentKind::Fluency,
            "{{ measured_ratio * 100 }}",
            "could not be measured",
        ),
        (
            AgentKind::Refiner,
            "Rewrite. {% if feedback.gate %}{{ feedback.gate.reason }}{% endif %}",
            "refused by the gate",
        ),
        (
            AgentKind::Generator,
            "Write. {% if retry %}{{ retry_reson }}{% endif %}",
            "asked again",
        ),
        (AgentKind::CsRatio, "  \n{# nothing #}\n", "rendered empty"),
    ] {
        let pipeline = with_prompt(dir.path(), agent, text);
        let err = pipeline
            .rehearse_prompts(&scenario())
            .expect_err("does not render");
        let message = err.to_string();
        let file = dir.path().join(format!("{agent}.j2"));
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert!(message.contains(agent.name()), "{message}");
        assert!(message.to_lowercase().contains(why), "{why}: {message}");
    }
}

#[test]
fn chinese_and_japanese_prompts_count_characters_like_the_measurement() {
    // Issue 26: the measurement counts each Han or Hiragana character as one unit, so the
    // generator's and the ratio judge's prompts must not speak of words for these pairs.
    for (first, unit) in [
        ("Chinese", "Chinese characters and English words"),
        ("Japanese", "Japanese characters"),
        ("Hindi", "words"),
    ] {
        let mut params = scenario().params.clone();
        params.insert("first_language".into(), json!(first));
        let mut run = ScenarioRun::new(
            Arc::new(Pipeline::new(PipelineSettings::default()).expect("settings")),
            Scenario::new(0, params),
        );
        let prompt = run.pending().remove(0).request.messages[0].content.clone();
        assert!(
            prompt.contains(&format!("among all {unit}"))
                && prompt.contains(&format!("counted in {unit}")),
            "{first}: {prompt}"
        );
    }
    assert_eq!(
        agents::prompts::ratio_unit("Klingon", "English"),
        "words",
        "an unknown pair keeps the word unit"
    );
}
