//! The batch executor against the fake Batch API: records like online ones, resume after a stop
//! between waves without resubmitting, failed and expired items resubmitted, splitting.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agents::{
    BatchOptions, ExecutorOptions, Pipeline, PipelineSettings, RunControl, RunStats, SinkConfig,
    StopReason, batch_state_path, errors_path, open_checkpoint, run_batch, run_online,
};
use fixtures::{BatchItemFault, FakeConfig, FakeServer};
use llm_client::{BatchClient, BatchConfig, ChatModel, Client, ClientConfig};
use runlog::RatioJudgeMode;
use scenarios::Scenario;
use serde_json::{Value, json};

fn scenarios(n: u64) -> Vec<Scenario> {
    (0..n)
        .map(|i| {
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
        .collect()
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

fn batch_client(server: &FakeServer, max_requests: usize) -> BatchClient {
    let batch = BatchConfig {
        poll_interval: Duration::from_millis(10),
        max_requests,
        ..BatchConfig::default()
    };
    BatchClient::with_api_key(client_config(server), batch, "").expect("batch client")
}

async fn server(cfg: FakeConfig) -> FakeServer {
    FakeServer::start(cfg.with_batch_delay(Duration::from_millis(30)))
        .await
        .expect("server")
}

fn records(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

async fn batch_run(
    client: &BatchClient,
    out: &Path,
    n: u64,
    options: BatchOptions,
) -> agents::RunReport {
    run_batch(
        client,
        pipeline(),
        scenarios(n),
        open_checkpoint(out).expect("checkpoint"),
        options,
        RunControl::default(),
        Arc::new(RunStats::default()),
    )
    .await
    .expect("batch run")
}

/// The call key of a custom id (`key#submission`).
fn key_of(custom_id: &str) -> &str {
    custom_id.rsplit_once('#').map_or(custom_id, |(k, _)| k)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_run_writes_the_records_an_online_run_writes() {
    let server = server(FakeConfig::default().with_seed(3)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let batch_out = dir.path().join("batch.jsonl");
    let client = batch_client(&server, 5);
    let report = batch_run(&client, &batch_out, 12, BatchOptions::new(&batch_out)).await;
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!((report.sink.records, report.sink.failures), (12, 0));
    assert!(
        !batch_state_path(&batch_out).exists(),
        "a finished run leaves no state"
    );

    // Wave 1 holds the 12 generations, split 5 + 5 + 2 by the request limit.
    let inputs = server.batch_inputs();
    let mut first_wave: BTreeMap<&str, usize> = BTreeMap::new();
    for input in inputs
        .iter()
        .filter(|i| i.custom_id.ends_with(":0:generator#1"))
    {
        *first_wave.entry(input.batch_id.as_str()).or_default() += 1;
    }
    assert_eq!(
        first_wave.values().copied().collect::<Vec<_>>(),
        [5, 5, 2],
        "{first_wave:?}"
    );

    let online_out = dir.path().join("online.jsonl");
    let model: Arc<dyn ChatModel> =
        Arc::new(Client::with_api_key(client_config(&server), "").expect("client"));
    let online = run_online(
        model,
        pipeline(),
        scenarios(12),
        open_checkpoint(&online_out).expect("checkpoint"),
        ExecutorOptions {
            grounder: None,
            scenarios_in_flight: 4,
            budget_usd: None,
            sink: SinkConfig::new(&online_out),
        },
        RunControl::default(),
        Arc::new(RunStats::default()),
    )
    .await
    .expect("online run");
    assert_eq!(online.sink.records, 12);

    let by_id = |recs: Vec<Value>| -> BTreeMap<String, Value> {
        recs.into_iter()
            .map(|r| (r["id"].as_str().expect("id").to_owned(), r))
            .collect()
    };
    let batch = by_id(records(&batch_out));
    let online = by_id(records(&online_out));
    assert_eq!(
        batch.keys().collect::<Vec<_>>(),
        online.keys().collect::<Vec<_>>()
    );
    for (id, b) in &batch {
        let o = &online[id];
        let fields = |v: &Value| -> BTreeSet<String> {
            v.as_object().expect("object").keys().cloned().collect()
        };
        assert_eq!(fields(b), fields(o), "record {id}");
        // Same request bodies, same fake replies: the same texts, scores and decisions.
        for field in [
            "data_generation_result",
            "score",
            "scores",
            "refine_count",
            "accepted",
            "usage",
        ] {
            assert_eq!(b[field], o[field], "{field} of {id}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopped_between_waves_and_resumed_it_submits_no_call_twice() {
    let server = server(FakeConfig::default().with_seed(11)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let stop_after = |waves| BatchOptions {
        stop_after_waves: Some(waves),
        ..BatchOptions::new(&out)
    };

    // Process 1 submits the generations and "dies" with the batch in flight.
    let first = batch_run(&client, &out, 8, stop_after(1)).await;
    assert_eq!(first.stop, StopReason::Interrupted);
    assert_eq!(first.sink.records, 0);
    let state_file = batch_state_path(&out);
    assert!(state_file.exists());
    let state: Value =
        serde_json::from_slice(&std::fs::read(&state_file).expect("state")).expect("json");
    assert_eq!(
        state["batches"].as_object().map(serde_json::Map::len),
        Some(1)
    );
    assert_eq!(server.batch_inputs().len(), 8);

    // Process 2 collects wave 1, submits the judges and stops again.
    let second = batch_run(&client, &out, 8, stop_after(1)).await;
    assert_eq!(second.stop, StopReason::Interrupted);
    assert_eq!(server.batch_inputs().len(), 8 + 8 * 4);

    // Process 3 runs to the end.
    let third = batch_run(&client, &out, 8, BatchOptions::new(&out)).await;
    assert_eq!(third.stop, StopReason::Completed);
    assert!(!state_file.exists());

    let ids: Vec<String> = records(&out)
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(
        (ids.len(), unique.len()),
        (8, 8),
        "every scenario exactly once"
    );

    let inputs = server.batch_inputs();
    let mut per_key: BTreeMap<&str, u32> = BTreeMap::new();
    for input in &inputs {
        *per_key.entry(key_of(&input.custom_id)).or_default() += 1;
    }
    let repeated: Vec<_> = per_key.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "submitted twice: {repeated:?}");
    // The fake answered each line once: no body was answered twice either.
    assert_eq!(server.stats().repeated_prompts(), 0);
    assert_eq!(server.stats().completions, inputs.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_and_expired_items_are_resubmitted_within_the_bound() {
    let cfg = FakeConfig::default().with_seed(5).with_batch_script([
        BatchItemFault::Failed,
        BatchItemFault::Expired,
        BatchItemFault::Failed,
    ]);
    let server = server(cfg).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let report = batch_run(&client, &out, 6, BatchOptions::new(&out)).await;
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!((report.sink.records, report.sink.failures), (6, 0));

    let inputs = server.batch_inputs();
    let resubmitted: Vec<&str> = inputs
        .iter()
        .filter(|i| i.custom_id.ends_with("#2"))
        .map(|i| key_of(&i.custom_id))
        .collect();
    // The first three lines of wave 1 (three generations) were faulted and sent again, once.
    let faulted: Vec<&str> = inputs[..3].iter().map(|i| key_of(&i.custom_id)).collect();
    assert_eq!(resubmitted, faulted);
    assert!(inputs.iter().all(|i| !i.custom_id.ends_with("#3")));
    let resent_batch = &inputs
        .iter()
        .find(|i| i.custom_id.ends_with("#2"))
        .expect("a resubmission")
        .batch_id;
    assert_ne!(
        resent_batch, &inputs[0].batch_id,
        "resubmitted in a later wave"
    );
    // A resubmission is a retry in the record, as a transport retry is online.
    let retries: u64 = records(&out)
        .iter()
        .map(|r| r["retries"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(retries, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_item_failing_past_the_bound_fails_its_scenario() {
    let cfg = FakeConfig::default()
        .with_seed(9)
        .with_batch_script([BatchItemFault::Failed, BatchItemFault::Failed]);
    let server = server(cfg).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let options = BatchOptions {
        max_item_submissions: 1,
        ..BatchOptions::new(&out)
    };
    let report = batch_run(&client, &out, 3, options).await;
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!((report.sink.records, report.sink.failures), (1, 2));
    let errors = std::fs::read_to_string(errors_path(&out)).expect("errors file");
    assert_eq!(errors.lines().count(), 2);
    assert!(
        errors.contains("server_error") || errors.contains("500"),
        "{errors}"
    );
}

/// Options that stop after `waves` waves (a process "killed" with batches in flight).
fn stopping_after(out: &Path, waves: Option<u32>) -> BatchOptions {
    BatchOptions {
        stop_after_waves: waves,
        ..BatchOptions::new(out)
    }
}

/// Every call key submitted at most once over the server's whole life.
fn assert_no_key_twice(server: &FakeServer) {
    let inputs = server.batch_inputs();
    let mut per_key: BTreeMap<&str, u32> = BTreeMap::new();
    for input in &inputs {
        *per_key.entry(key_of(&input.custom_id)).or_default() += 1;
    }
    let repeated: Vec<_> = per_key.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "submitted twice: {repeated:?}");
}

fn read_state(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(batch_state_path(out)).expect("state")).expect("json")
}

fn record_ids(out: &Path) -> BTreeSet<String> {
    records(out)
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_bounds_live_scenarios_and_written_ones_leave_the_state() {
    let server = server(FakeConfig::default().with_seed(21)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let windowed = |stop_after_waves| BatchOptions {
        window: 5,
        stop_after_waves,
        sink: SinkConfig {
            sync_every_records: 1,
            ..SinkConfig::new(&out)
        },
        ..BatchOptions::new(&out)
    };

    // Four waves: the first five scenarios are written (or under way), the rest wait.
    let first = batch_run(&client, &out, 17, windowed(Some(4))).await;
    assert_eq!(first.stop, StopReason::Interrupted);
    let written = record_ids(&out);
    assert!(!written.is_empty(), "some scenarios finished in four waves");
    let state = read_state(&out);
    let calls = state["calls"].as_object().expect("calls");
    let live: BTreeSet<&str> = calls
        .values()
        .map(|c| c["scenario"].as_str().expect("scenario"))
        .collect();
    assert!(
        live.iter().all(|id| !written.contains(*id)),
        "written scenarios left the state: {live:?} vs {written:?}"
    );
    assert!(live.len() <= 5, "at most the window is live: {live:?}");

    // Wave 1 held exactly the window's generations.
    let inputs = server.batch_inputs();
    let first_batch = &inputs[0].batch_id;
    let first_wave = inputs.iter().filter(|i| &i.batch_id == first_batch).count();
    assert_eq!(first_wave, 5);

    let rest = batch_run(&client, &out, 17, windowed(None)).await;
    assert_eq!(rest.stop, StopReason::Completed);
    assert_eq!(record_ids(&out).len(), 17);
    assert!(!batch_state_path(&out).exists());
    assert_no_key_twice(&server);
}

/// Rewrites the state as a process killed after the provider created its only batch, but
/// before it recorded it, left it: an intent naming the batch's calls, the batch unrecorded.
fn unrecord_the_batch(out: &Path, wave_override: Option<u64>) {
    let mut state = read_state(out);
    let batches = state["batches"].as_object().expect("batches").clone();
    assert_eq!(batches.len(), 1, "{batches:?}");
    let (_, batch) = batches.into_iter().next().expect("one batch");
    state["intent"] = serde_json::json!({
        "wave": wave_override.unwrap_or(batch["wave"].as_u64().expect("wave")),
        "file": 0,
        "custom_ids": batch["custom_ids"],
    });
    state["batches"] = serde_json::json!({});
    // Calls enter the state when their batch is recorded.
    state["calls"] = serde_json::json!({});
    std::fs::write(batch_state_path(out), state.to_string()).expect("write state");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_between_creating_a_batch_and_recording_it_it_submits_nothing_twice() {
    let server = server(FakeConfig::default().with_seed(23)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let stop_after = |waves| stopping_after(&out, waves);
    let first = batch_run(&client, &out, 6, stop_after(Some(1))).await;
    assert_eq!(first.stop, StopReason::Interrupted);
    unrecord_the_batch(&out, None);

    // The resumed run finds the batch by its metadata and polls it instead of creating another.
    let second = batch_run(&client, &out, 6, stop_after(None)).await;
    assert_eq!(second.stop, StopReason::Completed);
    assert_eq!(record_ids(&out).len(), 6);
    assert_no_key_twice(&server);
    let listed = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.route == "/v1/batches")
        .count();
    assert_eq!(listed, 1, "one lookup");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_intent_whose_batch_was_never_created_submits_its_calls_once() {
    let server = server(FakeConfig::default().with_seed(25)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let stop_after = |waves| stopping_after(&out, waves);
    let first = batch_run(&client, &out, 4, stop_after(Some(1))).await;
    assert_eq!(first.stop, StopReason::Interrupted);
    // The intent names a wave no batch was created for: the process died before the create.
    unrecord_the_batch(&out, Some(77));
    let inputs_before = server.batch_inputs().len();

    let second = batch_run(&client, &out, 4, stop_after(None)).await;
    assert_eq!(second.stop, StopReason::Completed);
    assert_eq!(record_ids(&out).len(), 4);
    // The generations went out again (the provider never had them under this run's tag) —
    // and the first batch, which this rewritten state no longer knows, was never polled.
    let inputs = server.batch_inputs();
    assert!(inputs.len() > inputs_before);
    let regenerated = inputs[inputs_before..]
        .iter()
        .filter(|i| i.custom_id.ends_with(":0:generator#1"))
        .count();
    assert_eq!(regenerated, 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_of_scenarios_a_resumed_run_did_not_select_wait_in_the_state() {
    let server = server(FakeConfig::default().with_seed(27)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let stop_after = |waves| stopping_after(&out, waves);
    // Ten generations in flight; the next run selects six of them, the last all ten.
    let first = batch_run(&client, &out, 10, stop_after(Some(1))).await;
    assert_eq!(first.stop, StopReason::Interrupted);
    let second = batch_run(&client, &out, 6, stop_after(None)).await;
    assert_eq!(second.stop, StopReason::Completed);
    assert_eq!(record_ids(&out).len(), 6);
    let state = read_state(&out);
    let unread = state["calls"]
        .as_object()
        .expect("calls")
        .values()
        .filter(|c| c["status"] == "unread")
        .count();
    assert_eq!(unread, 4, "{state}");

    let third = batch_run(&client, &out, 10, stop_after(None)).await;
    assert_eq!(third.stop, StopReason::Completed);
    assert_eq!(record_ids(&out).len(), 10);
    assert!(!batch_state_path(&out).exists());
    assert_no_key_twice(&server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_creation_reply_is_looked_up_not_retried_into_a_second_batch() {
    // The provider creates the first two batches but the replies are lost (500): a plain retry
    // would create each batch twice.
    let server = server(
        FakeConfig::default()
            .with_seed(29)
            .losing_batch_creations(2),
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let report = batch_run(&client, &out, 5, BatchOptions::new(&out)).await;
    assert_eq!(report.stop, StopReason::Completed);
    assert_eq!(record_ids(&out).len(), 5);
    assert_no_key_twice(&server);
    let lookups = server
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.route == "/v1/batches")
        .count();
    assert_eq!(lookups, 2, "one lookup per lost reply");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_with_another_model_asks_again_instead_of_replaying() {
    let server = server(FakeConfig::default().with_seed(31)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let with_model = |model: &str| {
        Arc::new(
            Pipeline::new(PipelineSettings {
                ratio_judge: RatioJudgeMode::Llm,
                agents: agents::AgentSet::uniform(model),
                ..PipelineSettings::default()
            })
            .expect("settings"),
        )
    };
    let run_with = |model: &str, waves: Option<u32>| {
        run_batch(
            &client,
            with_model(model),
            scenarios(5),
            open_checkpoint(&out).expect("checkpoint"),
            stopping_after(&out, waves),
            RunControl::default(),
            Arc::new(RunStats::default()),
        )
    };
    // Generations answered and judges in flight for `model-a`; then the run is resumed with
    // `model-b`: nothing of model-a's may reach a record.
    let first = run_with("model-a", Some(2)).await.expect("first run");
    assert_eq!(first.stop, StopReason::Interrupted);
    let second = run_with("model-b", None).await.expect("second run");
    assert_eq!(second.stop, StopReason::Completed);
    let records = records(&out);
    assert_eq!(records.len(), 5);
    for r in &records {
        let models: BTreeSet<&str> = r["models"]
            .as_object()
            .expect("models")
            .values()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(models, BTreeSet::from(["model-b"]), "{r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_tagged_by_another_run_is_not_taken_for_ours() {
    // As a provider that reused a batch id after a restart would make it look: the batch the
    // state names carries another run's tag.
    let server = server(FakeConfig::default().with_seed(33)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.jsonl");
    let client = batch_client(&server, 50_000);
    let first = batch_run(&client, &out, 3, stopping_after(&out, Some(1))).await;
    assert_eq!(first.stop, StopReason::Interrupted);
    let mut state = read_state(&out);
    state["run_id"] = "0123456789abcdef".into();
    std::fs::write(batch_state_path(&out), state.to_string()).expect("write state");
    let second = batch_run(&client, &out, 3, stopping_after(&out, None)).await;
    match &second.stop {
        StopReason::Fatal(why) => assert!(why.contains("belongs to another run"), "{why}"),
        other => panic!("expected a fatal stop, got {other:?}"),
    }
    assert!(
        records(&out).is_empty(),
        "nothing of the other run's replies is written"
    );
}
