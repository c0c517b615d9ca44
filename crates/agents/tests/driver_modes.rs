//! The one driver and its back ends: online, batch and replay count replies the same way, and a
//! fatal outcome stops every mode the same way.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agents::{
    AuditItem, AuditOptions, Backend, BatchOptions, Dispatch, ExecutorOptions, OnlineBackend,
    Pipeline, PipelineSettings, Policy, Progress, ReplayBackend, Reply, RunControl, RunOutcome,
    RunStats, SinkConfig, StopReason, drive, open_checkpoint, run_batch, run_online,
};
use fixtures::{FakeConfig, FakeServer};
use futures::future::BoxFuture;
use llm_client::{
    BatchClient, BatchConfig, ChatModel, ChatRequest, ChatResponse, Client, ClientConfig, LlmError,
    Usage,
};
use runlog::RatioJudgeMode;
use scenarios::Scenario;
use serde_json::{Value, json};

fn scenario(i: u64) -> Scenario {
    let params: BTreeMap<String, Value> = [
        ("first_language".to_string(), json!("Spanish")),
        ("second_language".to_string(), json!("English")),
        ("cs_ratio".to_string(), json!("30%")),
        ("n".to_string(), json!(i)),
    ]
    .into_iter()
    .collect();
    Scenario::new(i, params)
}

fn pipeline() -> Arc<Pipeline> {
    let settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Llm,
        ..PipelineSettings::default()
    };
    Arc::new(Pipeline::new(settings).expect("settings"))
}

fn client_config(server: &FakeServer) -> ClientConfig {
    let mut cfg = ClientConfig::openai_compatible(server.base_url());
    cfg.retry.base_delay = Duration::from_millis(1);
    cfg.retry.max_delay = Duration::from_millis(5);
    cfg
}

fn batch_client(server: &FakeServer) -> BatchClient {
    let batch = BatchConfig {
        poll_interval: Duration::from_millis(10),
        ..BatchConfig::default()
    };
    BatchClient::with_api_key(client_config(server), batch, "").expect("batch client")
}

/// What the counters say, and what the records say, about the calls.
#[derive(Debug, PartialEq)]
struct Counted {
    calls: u64,
    call_errors: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
}

fn counted(stats: &RunStats) -> Counted {
    Counted {
        calls: stats.calls.load(Ordering::Relaxed),
        call_errors: stats.call_errors.load(Ordering::Relaxed),
        prompt_tokens: stats.prompt_tokens.load(Ordering::Relaxed),
        completion_tokens: stats.completion_tokens.load(Ordering::Relaxed),
    }
}

/// Σ `calls` over the records of `out`.
fn record_calls(out: &std::path::Path) -> u64 {
    std::fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("JSON line")["calls"]
                .as_u64()
                .expect("calls")
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_and_batch_count_the_same_replies_as_the_server_and_the_records() {
    let server = FakeServer::start(
        FakeConfig::default()
            .with_seed(5)
            .with_batch_delay(Duration::from_millis(20)),
    )
    .await
    .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");

    let online_out = dir.path().join("online.jsonl");
    let online_stats = Arc::new(RunStats::default());
    let model: Arc<dyn ChatModel> =
        Arc::new(Client::with_api_key(client_config(&server), "").expect("client"));
    let report = run_online(
        model,
        pipeline(),
        (0..6).map(scenario),
        open_checkpoint(&online_out).expect("checkpoint"),
        ExecutorOptions {
            grounder: None,
            scenarios_in_flight: 3,
            budget_usd: None,
            sink: SinkConfig::new(&online_out),
        },
        RunControl::default(),
        online_stats.clone(),
    )
    .await
    .expect("online run");
    assert_eq!(report.stop, StopReason::Completed);
    let online_completions = server.stats().completions;

    let batch_out = dir.path().join("batch.jsonl");
    let batch_stats = Arc::new(RunStats::default());
    let report = run_batch(
        &batch_client(&server),
        pipeline(),
        (0..6).map(scenario),
        open_checkpoint(&batch_out).expect("checkpoint"),
        BatchOptions::new(&batch_out),
        RunControl::default(),
        batch_stats.clone(),
    )
    .await
    .expect("batch run");
    assert_eq!(report.stop, StopReason::Completed);
    let batch_completions = server.stats().completions - online_completions;

    let online = counted(&online_stats);
    let batch = counted(&batch_stats);
    assert_eq!(online, batch, "the same replies, counted the same way");
    assert_eq!(
        online.calls, online_completions,
        "one count per server answer"
    );
    assert_eq!(batch.calls, batch_completions);
    assert_eq!(online.calls, record_calls(&online_out), "the records agree");
    assert_eq!(batch.calls, record_calls(&batch_out));
    for stats in [&online_stats, &batch_stats] {
        assert_eq!(stats.started.load(Ordering::Relaxed), 6);
        assert_eq!(stats.finished.load(Ordering::Relaxed), 6);
    }
}

/// Answers every judge with fixed scores; counts calls; fails every call with 401 when asked.
struct Judges {
    calls: AtomicU64,
    auth_fails: bool,
}

impl Judges {
    fn new(auth_fails: bool) -> Arc<Self> {
        Arc::new(Self {
            calls: AtomicU64::new(0),
            auth_fails,
        })
    }
}

impl ChatModel for Judges {
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
                    endpoint: "judges".into(),
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

#[tokio::test]
async fn replay_counts_only_the_judges_it_asks() {
    let model = Judges::new(false);
    let texts = vec![
        "Hola amigo, let's go.".to_string(),
        "Vamos al parque today.".to_string(),
        "Me gusta the weather.".to_string(),
    ];
    let items: Vec<AuditItem> = (0..3)
        .map(|i| AuditItem {
            scenario: scenario(i),
            texts: texts.clone(),
            original_score: 9.0,
            settings: None,
        })
        .collect();
    let options = AuditOptions {
        repeats: 2,
        vary_seed: false,
        in_flight: 2,
    };
    let mut backend = ReplayBackend::new(model.clone(), &items, options, None);
    let jobs = items
        .iter()
        .enumerate()
        .flat_map(|(i, item)| (0..2u32).map(move |r| (item.scenario.clone(), (i, r))));
    let stats = RunStats::default();
    let mut outcomes = Vec::new();
    let stop = drive(
        &mut backend,
        &pipeline(),
        jobs,
        &Policy::default(),
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    .expect("replay");
    assert_eq!(stop, StopReason::Completed);
    assert_eq!(outcomes.len(), 6);
    let asked = model.calls.load(Ordering::Relaxed);
    assert_eq!(
        asked,
        6 * 4,
        "four judges per repeat, the generator never asked"
    );
    assert_eq!(
        counted(&stats),
        Counted {
            calls: asked,
            call_errors: 0,
            prompt_tokens: 10 * asked,
            completion_tokens: 5 * asked,
        },
        "the recorded batch is absorbed, not counted as a call"
    );
}

/// A back end that answers in waves, as the batch back end does: calls are only sent when the
/// driver waits and dispatching is on, all at once.
struct Waves {
    model: Arc<dyn ChatModel>,
    queued: Vec<Dispatch>,
    waves: u32,
}

impl Backend<()> for Waves {
    type Error = std::convert::Infallible;

    fn capacity(&self) -> usize {
        usize::MAX
    }

    fn submit(&mut self, calls: Vec<Dispatch>) -> Result<(), Self::Error> {
        self.queued.extend(calls);
        Ok(())
    }

    async fn next(&mut self, dispatching: bool) -> Result<Progress, Self::Error> {
        if !dispatching || self.queued.is_empty() {
            return Ok(Progress::Idle);
        }
        self.waves += 1;
        let mut replies = Vec::new();
        for Dispatch { slot, call } in std::mem::take(&mut self.queued) {
            replies.push(Reply {
                slot,
                key: call.key,
                result: self.model.chat(call.request).await,
                replayed: false,
            });
        }
        Ok(Progress::Replies(replies))
    }
}

#[tokio::test]
async fn a_fatal_outcome_stops_wave_and_online_back_ends_alike() {
    // Online: two scenarios in flight fail with 401; none of the other eight starts.
    let model = Judges::new(true);
    let mut online = OnlineBackend::new(model.clone(), 2);
    let stats = RunStats::default();
    let mut outcomes: Vec<((), RunOutcome)> = Vec::new();
    let stop = drive(
        &mut online,
        &pipeline(),
        (0..10).map(|i| (scenario(i), ())),
        &Policy::default(),
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    .expect("online");
    assert!(
        matches!(stop, StopReason::Fatal(ref r) if r.contains("401")),
        "{stop:?}"
    );
    assert_eq!(stats.started.load(Ordering::Relaxed), 2);
    assert_eq!(model.calls.load(Ordering::Relaxed), 2);
    assert!(
        outcomes
            .iter()
            .all(|((), o)| matches!(o, RunOutcome::Failed(f) if f.fatal))
    );

    // Waves: every scenario is live at once, the first wave fails with 401 and no second wave
    // is sent.
    let model = Judges::new(true);
    let mut waves = Waves {
        model: model.clone() as Arc<dyn ChatModel>,
        queued: Vec::new(),
        waves: 0,
    };
    let stats = RunStats::default();
    let mut outcomes: Vec<((), RunOutcome)> = Vec::new();
    let stop = drive(
        &mut waves,
        &pipeline(),
        (0..10).map(|i| (scenario(i), ())),
        &Policy::default(),
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    .expect("waves");
    assert!(
        matches!(stop, StopReason::Fatal(ref r) if r.contains("401")),
        "{stop:?}"
    );
    assert_eq!(waves.waves, 1);
    assert_eq!(model.calls.load(Ordering::Relaxed), 10);
    assert_eq!(outcomes.len(), 10);
    assert_eq!(stats.call_errors.load(Ordering::Relaxed), 10);
}

#[tokio::test]
async fn the_budget_stops_wave_and_online_back_ends_alike() {
    // Every reply costs $1; a $3 budget: each mode stops once three replies are paid for.
    struct Priced(Arc<Judges>);
    impl ChatModel for Priced {
        fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
            Box::pin(async move {
                let mut resp = self.0.chat(req).await?;
                resp.cost_usd = Some(1.0);
                Ok(resp)
            })
        }
    }
    let policy = Policy {
        grounder: None,
        budget_usd: Some(3.0),
    };

    let model = Judges::new(false);
    let mut online = OnlineBackend::new(Arc::new(Priced(model.clone())), 1);
    let stats = RunStats::default();
    let mut outcomes: Vec<((), RunOutcome)> = Vec::new();
    let stop = drive(
        &mut online,
        &pipeline(),
        (0..10).map(|i| (scenario(i), ())),
        &policy,
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    .expect("online");
    assert_eq!(stop, StopReason::Budget);
    // One scenario at a time: the first one's generator and judges (5 calls) finish it.
    assert_eq!(stats.started.load(Ordering::Relaxed), 1);
    assert_eq!(
        outcomes.len(),
        1,
        "the scenario in flight finishes and is written"
    );
    assert!(stats.cost_usd() >= 3.0);

    // The same budget reached by the only scenario: nothing was left unstarted, so nothing was
    // stopped — the run completed, over budget by the calls in flight.
    let model = Judges::new(false);
    let mut online = OnlineBackend::new(Arc::new(Priced(model.clone())), 1);
    let stats = RunStats::default();
    let mut outcomes: Vec<((), RunOutcome)> = Vec::new();
    let stop = drive(
        &mut online,
        &pipeline(),
        (0..1).map(|i| (scenario(i), ())),
        &policy,
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    .expect("online");
    assert_eq!(
        stop,
        StopReason::Completed,
        "no scenario was left unfinished"
    );
    assert_eq!(outcomes.len(), 1);
    assert!(stats.cost_usd() > 3.0, "the overspend is in the stats");

    let model = Judges::new(false);
    let mut waves = Waves {
        model: Arc::new(Priced(model.clone())),
        queued: Vec::new(),
        waves: 0,
    };
    let stats = RunStats::default();
    let mut outcomes: Vec<((), RunOutcome)> = Vec::new();
    let stop = drive(
        &mut waves,
        &pipeline(),
        (0..10).map(|i| (scenario(i), ())),
        &policy,
        &RunControl::default(),
        &stats,
        &mut outcomes,
    )
    .await
    .expect("waves");
    assert_eq!(stop, StopReason::Budget);
    // Wave 1 holds the ten generations ($10 ≥ $3): no second wave is sent, and the scenarios
    // stay unwritten (the batch back end keeps them in its state for a later run).
    assert_eq!(waves.waves, 1);
    assert_eq!(model.calls.load(Ordering::Relaxed), 10);
    assert!(outcomes.is_empty());
}
