//! Endpoint health end to end through `scenario-engine run` against the fake server: the
//! preflight, the circuit breaker across scenarios (an endpoint dying mid-run, one flapping) and
//! the terminal output against a flaky server. No timing is asserted: exit codes, the output
//! and errors files, and line counts.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use fixtures::{FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/configs/example.yaml")
}

/// `run` with a clean settings environment, fast retries and a fast breaker: an endpoint is
/// checked every 50 ms and given up `probe_for` after every endpoint went out.
async fn run(out: &Path, base_url: &str, probe_for: &str, extra: &[&str]) -> Output {
    run_env(out, base_url, probe_for, extra, &[]).await
}

/// [`run`] with more environment.
async fn run_env(
    out: &Path,
    base_url: &str,
    probe_for: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") || key == "RUST_LOG" {
            cmd.env_remove(key);
        }
    }
    cmd.arg("run")
        .arg(example())
        .arg("--out")
        .arg(out)
        .args(["--base-url", base_url, "--model", "fake-model"])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .args(extra)
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .env("SCENARIO_ENGINE__BREAKER__PROBE_EVERY", "50")
        .env("SCENARIO_ENGINE__BREAKER__PROBE_FOR", probe_for)
        .envs(env.iter().copied())
        .kill_on_drop(true)
        .output()
        .await
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON lines of a file; none when it does not exist.
fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

fn errors_file(out: &Path) -> PathBuf {
    PathBuf::from(format!("{}.errors.jsonl", out.display()))
}

fn ids(records: &[Value]) -> HashSet<String> {
    records
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect()
}

/// A closed port: nothing listens there.
fn dead_url(credentials: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    format!(
        "http://{credentials}{}/v1",
        listener.local_addr().expect("addr")
    )
}

/// A dead endpoint retried every scenario five times, printed 1,474 lines and ended "240
/// failed … stop: Completed". The preflight now stops the run before any scenario, with exit 3,
/// the endpoint named (its credentials redacted), and nothing marked failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_endpoint_fails_the_preflight_with_exit_3_and_nothing_failed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("dead.jsonl");
    let url = dead_url("alice:S3CRET@");
    let o = run(&out, &url, "25s", &["--limit", "20"]).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("error: preflight: no endpoint answers"),
        "{err}"
    );
    let host = url.rsplit('@').next().expect("host");
    assert!(
        err.contains(&format!("no endpoint answers: http://[redacted]@{host}")),
        "{err}"
    );
    assert!(!err.contains("S3CRET"), "{err}");
    assert!(err.contains("--no-preflight"), "{err}");
    assert!(
        !err.contains("Completed") && !err.contains("completed"),
        "{err}"
    );
    assert!(err.lines().count() < 10, "{err}");
    assert!(lines(&out).is_empty(), "nothing written");
    assert!(
        lines(&errors_file(&out)).is_empty(),
        "nothing marked failed"
    );
}

/// A refused key stops the run at the preflight as well, naming the variable, not the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_fails_the_preflight_with_exit_3() {
    let server = FakeServer::start(FakeConfig::default().with_api_key("sk-right"))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("auth.jsonl");
    let o = run(&out, &server.base_url(), "25s", &["--limit", "5"]).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("error: preflight: authentication failed (401)"),
        "{err}"
    );
    assert!(err.contains("$SCENARIO_ENGINE_TEST_NO_KEY"), "{err}");
    assert!(
        !err.contains("server is up") && !err.contains("--no-preflight"),
        "{err}"
    );
    assert_eq!(server.stats().completions, 0, "no paid call");
    assert!(lines(&errors_file(&out)).is_empty());
}

/// The endpoint goes down for good after some calls: the breaker takes it out, the run waits
/// `probe_for`, then stops with exit 3 naming it; the scenarios not written are not in the
/// errors file, and a rerun against a working endpoint does them without redoing the others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_dying_mid_run_stops_it_with_pending_scenarios_left_pending() {
    let dying = FakeServer::start(FakeConfig::default().with_outage(60, None))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("dying.jsonl");
    let args = ["--limit", "30", "--concurrency", "4"];
    let o = run(&out, &dying.base_url(), "500ms", &args).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("no endpoint answers: {}", dying.base_url())),
        "{err}"
    );
    assert!(err.contains("still to do: run again to resume"), "{err}");
    assert!(!err.contains("Unavailable"), "no debug formatting: {err}");
    assert!(!err.contains("stop: completed"), "{err}");
    let written = lines(&out);
    assert!(
        !written.is_empty() && written.len() < 30,
        "{} written",
        written.len()
    );
    assert!(
        lines(&errors_file(&out)).is_empty(),
        "no scenario was marked failed: {err}"
    );
    let before = std::fs::read_to_string(&out).expect("output");

    let healthy = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let o = run(&out, &healthy.base_url(), "500ms", &args).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let after = std::fs::read_to_string(&out).expect("output");
    assert!(after.starts_with(&before), "finished records were kept");
    let all = lines(&out);
    assert_eq!((all.len(), ids(&all).len()), (30, 30));
    assert!(
        err.contains(&format!("resuming: {} scenario(s)", written.len())),
        "{err}"
    );
}

/// The endpoint is down for a while, then answers again: the run waits and completes with
/// every scenario written once and none failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flapping_endpoint_loses_nothing_and_the_run_completes() {
    let flapping =
        FakeServer::start(FakeConfig::default().with_outage(60, Some(Duration::from_millis(1500))))
            .await
            .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("flap.jsonl");
    let args = ["--limit", "30", "--concurrency", "4"];
    let o = run(&out, &flapping.base_url(), "20s", &args).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        flapping.stats().status_count(503) > 0,
        "the outage happened"
    );
    let all = lines(&out);
    assert_eq!((all.len(), ids(&all).len()), (30, 30), "{err}");
    assert!(lines(&errors_file(&out)).is_empty(), "{err}");
    assert!(
        err.contains("paused 1×"),
        "the summary counts the pause: {err}"
    );
}

/// The endpoint hangs after some calls (a stopped server: it accepts connections and never
/// answers, completions and model list alike): a call waiting past `liveness_after` gets a
/// liveness probe, the silent probe takes the endpoint out, its calls are given up as
/// connection failures and the run stops with exit 3 naming it — long before `read_timeout`
/// (120 s here), with the scenarios not written still to do, none failed (issue 27: 265 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_endpoint_stops_the_run_with_pending_scenarios_left_pending() {
    let hung = FakeServer::start(FakeConfig::default().with_hang_after(40))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("hung.jsonl");
    let args = ["--limit", "30", "--concurrency", "4"];
    let o = tokio::time::timeout(
        Duration::from_secs(100),
        run_env(
            &out,
            &hung.base_url(),
            "500ms",
            &args,
            &[("SCENARIO_ENGINE__BREAKER__LIVENESS_AFTER", "300")],
        ),
    )
    .await
    .expect("the run stops well before the 120 s read timeout");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("no endpoint answers: {}", hung.base_url())),
        "{err}"
    );
    assert!(err.contains("is not answering"), "{err}");
    assert!(err.contains("still to do: run again to resume"), "{err}");
    let written = lines(&out);
    assert!(written.len() < 30, "{} written", written.len());
    assert!(
        lines(&errors_file(&out)).is_empty(),
        "no scenario was marked failed: {err}"
    );
}

/// A slow model that still answers its model list: every call waits longer than
/// `liveness_after`, the probes answer, and the run completes with nothing given up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_but_alive_endpoint_is_never_cut_off() {
    let slow = FakeServer::start(FakeConfig::default().with_latency(Duration::from_millis(700)))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("slow.jsonl");
    let args = ["--limit", "4", "--concurrency", "4"];
    let o = run_env(
        &out,
        &slow.base_url(),
        "500ms",
        &args,
        &[("SCENARIO_ENGINE__BREAKER__LIVENESS_AFTER", "100")],
    )
    .await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("not answering"), "{err}");
    let all = lines(&out);
    assert_eq!((all.len(), ids(&all).len()), (4, 4), "{err}");
    assert!(lines(&errors_file(&out)).is_empty(), "{err}");
    let models = slow
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/models"))
        .count();
    assert!(
        models >= 2,
        "the liveness probes ran after the preflight's check"
    );
}

/// SIGTERM to a run paused by the breaker (no endpoint answers) stops it at once with exit 3,
/// the scenarios in flight dropped and left to do, instead of waiting out `probe_for` (here
/// 10 minutes; issue 27: 17.6 s with the default).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_while_paused_by_the_breaker_stops_at_once() {
    use tokio::io::AsyncBufReadExt;
    let dying = FakeServer::start(FakeConfig::default().with_outage(20, None))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("paused.jsonl");
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") || key == "RUST_LOG" {
            cmd.env_remove(key);
        }
    }
    let mut child = cmd
        .arg("run")
        .arg(example())
        .arg("--out")
        .arg(&out)
        .args(["--base-url", &dying.base_url(), "--model", "fake-model"])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY"])
        .args(["--limit", "30", "--concurrency", "4"])
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .env("SCENARIO_ENGINE__BREAKER__PROBE_EVERY", "50")
        .env("SCENARIO_ENGINE__BREAKER__PROBE_FOR", "10m")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary runs");
    let mut err = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = String::new();
    while let Some(line) = err.next_line().await.expect("stderr reads") {
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("the run waits") {
            break;
        }
    }
    assert!(seen.contains("the run waits"), "{seen}");
    let pid = child.id().expect("running").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = err.next_line().await.expect("stderr reads") {
            seen.push_str(&line);
            seen.push('\n');
        }
        child.wait().await.expect("waited")
    })
    .await
    .expect("the stop does not wait out probe_for (10 minutes)");
    assert_eq!(status.code(), Some(3), "{seen}");
    let written = lines(&out);
    assert!(written.len() < 30, "{} written", written.len());
    assert!(
        lines(&errors_file(&out)).is_empty(),
        "no scenario was marked failed: {seen}"
    );
}

/// Half of all calls fail (429 or 500) at random: the run is never stopped (with the default
/// retries a few scenarios fail and go to the errors file, none is left undone), and the
/// terminal output stays short — retries, rate limits and failed scenarios are counted, not
/// logged one by one (812 WARN lines buried the progress before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_the_calls_failing_never_stops_the_run_and_stays_quiet() {
    let cfg = FakeConfig {
        retry_after_secs: 0,
        ..FakeConfig::default().with_fail_rate(0.5)
    };
    let flaky = FakeServer::start(cfg).await.expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("flaky.jsonl");
    let args = ["--limit", "240", "--concurrency", "16"];
    let mut extra = args.to_vec();
    extra.extend(["--no-cache"]);
    let o = run(&out, &flaky.base_url(), "25s", &extra).await;
    let err = stderr(&o);
    let written = lines(&out).len();
    let failed = lines(&errors_file(&out)).len();
    assert_eq!(written + failed, 240, "{err}");
    assert!(
        o.status.code() == Some(0) || (o.status.code() == Some(3) && failed > 0),
        "{err}"
    );
    assert!(!err.contains("stopped early"), "{err}");
    // With the default retries (8: one call in 512 fails all its tries), few scenarios are
    // lost; with 4 (one in 32), about a fifth were (issue 27).
    assert!(failed <= 24, "{failed} of 240 scenarios failed: {err}");
    // What the run says while it runs, apart from the progress line: everything before its
    // closing summary (whose tables are `reports::terminal::run_end`'s).
    let during: Vec<&str> = err
        .lines()
        .take_while(|l| !l.starts_with("run: "))
        .filter(|l| !l.starts_with("progress: ") && !l.trim().is_empty())
        .collect();
    assert!(during.len() <= 2, "{during:#?}");
    assert!(!err.contains("WARN"), "{err}");
    // The whole terminal output apart from the progress line, closing summary included, stays
    // under 40 lines (issue 27): the summary folds the judges, the scores and the failures.
    let out = String::from_utf8_lossy(&o.stdout);
    let total = err
        .lines()
        .chain(out.lines())
        .filter(|l| !l.starts_with("progress: "))
        .count();
    assert!(total < 40, "{total} lines:\n{err}{out}");
    let summary = err
        .lines()
        .find(|l| l.starts_with("transport: retries"))
        .unwrap_or_else(|| panic!("the summary counts the retries: {err}"));
    assert!(summary.contains("rate limits"), "{summary}");
}
