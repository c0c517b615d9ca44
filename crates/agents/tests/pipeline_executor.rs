//! The online executor with a canned `ChatModel` (no network): records, resume, fatal stop.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agents::{
    ExecutorOptions, Pipeline, PipelineSettings, RunControl, RunStats, SinkConfig, StopReason,
    open_checkpoint, run_online,
};
use futures::future::BoxFuture;
use llm_client::{ChatModel, ChatRequest, ChatResponse, LlmError, Usage};
use runlog::RatioJudgeMode;
use scenarios::Scenario;
use serde_json::{Value, json};

/// Answers by the schema name; counts calls; optionally fails every call with `Auth`.
struct Canned {
    calls: AtomicU64,
    auth_fails: bool,
}

impl ChatModel for Canned {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let name = req
            .output_schema
            .as_ref()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let json = match name.as_str() {
            "generator_output" | "refiner_output" => {
                json!({"instances": ["Hola amigo, let's go.", "Vamos al parque today.", "Me gusta the weather."]})
            }
            "fluency_output" => json!({"fluency_score": 9, "errors": [], "summary": "ok"}),
            "naturalness_output" => {
                json!({"naturalness_score": 9, "observations": [], "summary": "ok"})
            }
            "cs_ratio_output" => json!({"ratio_score": 9, "computed_ratio": 0.3, "notes": "ok"}),
            _ => json!({"socio_cultural_score": 9, "issues": [], "summary": "ok"}),
        };
        let auth_fails = self.auth_fails;
        Box::pin(async move {
            if auth_fails {
                return Err(LlmError::Auth {
                    status: 401,
                    endpoint: "canned".into(),
                    env_var: "KEY".into(),
                });
            }
            Ok(ChatResponse {
                model: req.model,
                json: Some(json),
                usage: Usage {
                    prompt_tokens: 10,
                    completion_tokens: 5,
                    estimated: false,
                },
                ..ChatResponse::default()
            })
        })
    }
}

fn scenarios(n: u64) -> impl Iterator<Item = Scenario> {
    (0..n).map(|i| {
        let params: BTreeMap<String, Value> = [
            ("first_language".to_string(), json!("Spanish")),
            ("second_language".to_string(), json!("English")),
            ("cs_ratio".to_string(), json!("30%")),
            ("n".to_string(), json!(i)),
        ]
        .into_iter()
        .collect();
        Scenario::new(i, params)
    })
}

fn pipeline() -> Arc<Pipeline> {
    let settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Llm,
        ..PipelineSettings::default()
    };
    Arc::new(Pipeline::new(settings).expect("settings"))
}

#[tokio::test]
async fn runs_every_scenario_once_and_resume_skips_finished_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let model = Arc::new(Canned {
        calls: AtomicU64::new(0),
        auth_fails: false,
    });
    let options = ExecutorOptions {
        grounder: None,
        scenarios_in_flight: 4,
        budget_usd: None,
        sink: SinkConfig::new(&out),
    };
    let stats = Arc::new(RunStats::default());
    let report = run_online(
        model.clone(),
        pipeline(),
        scenarios(20),
        open_checkpoint(&out).expect("checkpoint"),
        options.clone(),
        RunControl::default(),
        stats.clone(),
    )
    .await
    .expect("run");
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!(report.sink.records, 20);
    assert_eq!(
        model.calls.load(Ordering::Relaxed),
        100,
        "5 calls per accepted scenario"
    );
    assert_eq!(stats.accepted.load(Ordering::Relaxed), 20);
    let text = std::fs::read_to_string(&out).expect("read");
    assert_eq!(text.lines().count(), 20);

    // A second run over 25 scenarios only runs the 5 new ones.
    let report = run_online(
        model.clone(),
        pipeline(),
        scenarios(25),
        open_checkpoint(&out).expect("checkpoint"),
        options,
        RunControl::default(),
        Arc::new(RunStats::default()),
    )
    .await
    .expect("run");
    assert_eq!((report.skipped, report.sink.records), (20, 5));
    assert_eq!(model.calls.load(Ordering::Relaxed), 125);
}

#[tokio::test]
async fn a_fatal_error_stops_dispatch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let model = Arc::new(Canned {
        calls: AtomicU64::new(0),
        auth_fails: true,
    });
    let options = ExecutorOptions {
        grounder: None,
        scenarios_in_flight: 2,
        budget_usd: None,
        sink: SinkConfig::new(&out),
    };
    let report = run_online(
        model.clone(),
        pipeline(),
        scenarios(1000),
        open_checkpoint(&out).expect("checkpoint"),
        options,
        RunControl::default(),
        Arc::new(RunStats::default()),
    )
    .await
    .expect("run");
    assert!(
        matches!(report.stop, StopReason::Fatal(ref r) if r.contains("authentication")),
        "{:?}",
        report.stop
    );
    assert!(
        report.sink.failures <= 2,
        "only the scenarios in flight ran: {}",
        report.sink.failures
    );
    assert!(model.calls.load(Ordering::Relaxed) <= 2);
}

#[tokio::test]
async fn a_stop_request_dispatches_nothing_new() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let model = Arc::new(Canned {
        calls: AtomicU64::new(0),
        auth_fails: false,
    });
    let control = RunControl::default();
    control.stop.cancel();
    let options = ExecutorOptions {
        grounder: None,
        scenarios_in_flight: 2,
        budget_usd: None,
        sink: SinkConfig::new(&out),
    };
    let report = run_online(
        model.clone(),
        pipeline(),
        scenarios(10),
        open_checkpoint(&out).expect("checkpoint"),
        options,
        control,
        Arc::new(RunStats::default()),
    )
    .await
    .expect("run");
    assert_eq!(report.stop, StopReason::Interrupted);
    assert_eq!(model.calls.load(Ordering::Relaxed), 0);
}

/// Asks the run to stop (as Ctrl-C does) from inside its first call, then answers as `Canned`.
struct StopsOnFirstCall {
    canned: Canned,
    stop: tokio_util::sync::CancellationToken,
}

impl ChatModel for StopsOnFirstCall {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        self.stop.cancel();
        self.canned.chat(req)
    }
}

/// Two scenarios, `in_flight` at once, with a stop asked for from inside the first call.
async fn two_scenarios_stopped_at_the_first_call(in_flight: usize) -> agents::RunReport {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let control = RunControl::default();
    let model = Arc::new(StopsOnFirstCall {
        canned: Canned {
            calls: AtomicU64::new(0),
            auth_fails: false,
        },
        stop: control.stop.clone(),
    });
    let options = ExecutorOptions {
        grounder: None,
        scenarios_in_flight: in_flight,
        budget_usd: None,
        sink: SinkConfig::new(&out),
    };
    run_online(
        model,
        pipeline(),
        scenarios(2),
        open_checkpoint(&out).expect("checkpoint"),
        options,
        control,
        Arc::new(RunStats::default()),
    )
    .await
    .expect("run")
}

#[tokio::test]
async fn a_stop_asked_for_after_the_last_scenario_started_completes_the_run() {
    // Both scenarios start at once; the stop arrives with the first call, when none is left to
    // start: both are finished and written, and the run used to say "stopped early" (exit 3).
    let report = two_scenarios_stopped_at_the_first_call(2).await;
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!(report.sink.records, 2, "{report:?}");
    // With a scenario left unstarted, the same stop still stops the run early.
    let report = two_scenarios_stopped_at_the_first_call(1).await;
    assert_eq!(report.stop, StopReason::Interrupted);
    assert_eq!(report.sink.records, 1, "{report:?}");
}

/// A server's absurd usage wrapped the run's token totals (the summary showed small numbers
/// while records saturated), and the spend was capped near $1.8e10 while records summed more.
#[test]
fn run_totals_saturate_and_sum_the_spend_as_records_do() {
    let stats = RunStats::default();
    let huge = || {
        Ok(ChatResponse {
            usage: Usage {
                prompt_tokens: u64::MAX,
                completion_tokens: u64::MAX,
                estimated: false,
            },
            cost_usd: Some(6.9e13),
            ..ChatResponse::default()
        })
    };
    stats.count_reply(&huge());
    stats.count_reply(&huge());
    assert_eq!(stats.prompt_tokens.load(Ordering::Relaxed), u64::MAX);
    assert_eq!(stats.completion_tokens.load(Ordering::Relaxed), u64::MAX);
    assert!(
        (stats.cost_usd() - 1.38e14).abs() < 1.0,
        "{}",
        stats.cost_usd()
    );
    // A reply with no price counts as unknown, not as free.
    stats.count_reply(&Ok(ChatResponse::default()));
    assert_eq!(stats.unpriced.load(Ordering::Relaxed), 1);
}

/// Answers as `Canned` for the first `answered` calls, then `Unavailable` (the transport's
/// circuit breaker gave up: no endpoint answers).
struct GoesDown {
    canned: Canned,
    answered: u64,
}

impl ChatModel for GoesDown {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        if self.canned.calls.load(Ordering::Relaxed) < self.answered {
            return self.canned.chat(req);
        }
        Box::pin(async {
            Err(LlmError::Unavailable {
                endpoints: "http://gpu-1:8000/v1".into(),
                reason: "connection refused".into(),
            })
        })
    }
}

/// No endpoint answering is not a scenario's failure: the scenarios that met it are left
/// unwritten (not in the errors file), the run stops saying why in words, and a resume does them.
#[tokio::test]
async fn an_unavailable_endpoint_stops_the_run_leaving_its_scenarios_to_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let options = || ExecutorOptions {
        grounder: None,
        scenarios_in_flight: 1,
        budget_usd: None,
        sink: SinkConfig::new(&out),
    };
    let model = Arc::new(GoesDown {
        canned: Canned {
            calls: AtomicU64::new(0),
            auth_fails: false,
        },
        // Two scenarios' calls (a generator and four judges each, all accepted at 9).
        answered: 10,
    });
    let report = run_online(
        model,
        pipeline(),
        scenarios(5),
        open_checkpoint(&out).expect("checkpoint"),
        options(),
        RunControl::default(),
        Arc::new(RunStats::default()),
    )
    .await
    .expect("run");
    let StopReason::Unavailable(reason) = &report.stop else {
        panic!("{report:?}");
    };
    assert!(
        reason.contains("no endpoint answers: http://gpu-1:8000/v1"),
        "{reason}"
    );
    assert_eq!(
        (report.sink.records, report.sink.failures),
        (2, 0),
        "{report:?}"
    );
    let words = report.stop_words();
    assert!(
        words.contains("still to do") && !words.contains("completed"),
        "{words}"
    );
    let errors = std::fs::read_to_string(runlog::record::errors_path(&out)).unwrap_or_default();
    assert_eq!(errors.trim(), "", "nothing marked failed");

    let checkpoint = open_checkpoint(&out).expect("checkpoint");
    assert_eq!(checkpoint.done.len(), 2);
    let report = run_online(
        Arc::new(Canned {
            calls: AtomicU64::new(0),
            auth_fails: false,
        }),
        pipeline(),
        scenarios(5),
        checkpoint,
        options(),
        RunControl::default(),
        Arc::new(RunStats::default()),
    )
    .await
    .expect("resume");
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!((report.sink.records, report.skipped), (3, 2));
    assert_eq!(report.stop_words(), "completed");
}
