//! Task runs end to end with plain processes against the fake server (the real-Slurm version is
//! `cargo xtask slurm-check`): plan, tasks killed, duplicated and resubmitted, status, merge.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use fixtures::{FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

fn config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/configs/example.yaml")
}

/// The binary with no settings from this machine's environment and fast retries.
fn command(args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE")
            || key.starts_with("OPENAI_")
            || taskrun::TASK_INDEX_VARS.contains(&key.as_str())
        {
            cmd.env_remove(key);
        }
    }
    cmd.args(args)
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .kill_on_drop(true);
    cmd
}

/// `run DIR --task …` against the server.
fn task(dir: &Path, url: &str, task: &str) -> tokio::process::Command {
    let dir = dir.to_str().expect("utf-8");
    command(&[
        "run",
        dir,
        "--task",
        task,
        "--base-url",
        url,
        "--model",
        "fake-model",
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--concurrency",
        "2",
    ])
}

async fn output(mut cmd: tokio::process::Command) -> Output {
    cmd.output().await.expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn status_json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("status --json prints JSON")
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |s| s.matches('\n').count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_killed_duplicated_and_resubmitted_merge_to_every_scenario_once() {
    let server = FakeServer::start(FakeConfig::default().with_latency(Duration::from_millis(15)))
        .await
        .expect("server");
    let url = server.base_url();
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("run");
    let d = dir.to_str().expect("utf-8");
    let cfg = config();
    let cfg = cfg.to_str().expect("utf-8");

    // Plan: created once; the same plan again is a no-op; another plan is refused.
    let plan = |extra: &'static [&'static str]| {
        let mut args = vec!["plan", cfg, "--tasks", "4", "--into", d, "--sample", "40"];
        args.extend_from_slice(extra);
        output(command(&args))
    };
    let o = plan(&[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("40 scenario(s) in 4 task(s)"));
    let o = plan(&[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("already planned"));
    let o = output(command(&[
        "plan", cfg, "--tasks", "5", "--into", d, "--sample", "40",
    ]))
    .await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("different task count (4 vs 5)"),
        "{}",
        stderr(&o)
    );

    // Bad task indices.
    let o = output(task(&dir, &url, "4")).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("numbered 0 to 3"), "{}", stderr(&o));
    let o = output(task(&dir, &url, "auto")).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("JOB_COMPLETION_INDEX"),
        "{}",
        stderr(&o)
    );

    // Task 0 is killed mid-way (after some records, never timed).
    let part0 = dir.join("parts/0.jsonl");
    let mut child = task(&dir, &url, "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("task 0");
    while lines(&part0) < 3 {
        if let Some(status) = child.try_wait().expect("wait") {
            panic!("task 0 ended before it could be killed: {status}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().await.expect("kill");
    let _ = child.wait().await;

    // Task 1 is submitted twice at once: one copy runs it, the other is refused or finds it done.
    let (a, b) = tokio::join!(output(task(&dir, &url, "1")), output(task(&dir, &url, "1")));
    let codes = [a.status.code(), b.status.code()];
    assert!(codes.contains(&Some(0)), "{}\n{}", stderr(&a), stderr(&b));
    assert!(
        codes.iter().all(|c| *c == Some(0) || *c == Some(2)),
        "{}\n{}",
        stderr(&a),
        stderr(&b)
    );
    // Task 2 from the scheduler's variable, as in a Slurm array.
    let mut slurm = task(&dir, &url, "auto");
    slurm.env("SLURM_ARRAY_TASK_ID", "2");
    let o = output(slurm).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Task 3 never ran.

    let o = output(command(&["status", d, "--json"])).await;
    assert_eq!(o.status.code(), Some(1), "incomplete: {}", stderr(&o));
    let s = status_json(&o);
    assert_eq!(
        (
            s["done"].as_u64(),
            s["stale"].as_u64(),
            s["missing"].as_u64()
        ),
        (Some(2), Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(s["resubmit"], "0,3", "{s}");
    // `launch` was never run: the text names no sbatch script that does not exist (issue 27).
    let o = output(command(&["status", d])).await;
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("resubmit: 0,3   (scenario-engine run ") && !text.contains("sbatch"),
        "{text}"
    );
    // Merge refuses an incomplete run, naming what is missing.
    let merged = tmp.path().join("merged.jsonl");
    let m = merged.to_str().expect("utf-8");
    let o = output(command(&["merge", d, "--into", m])).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("0,3"), "{}", stderr(&o));
    assert!(!merged.exists());

    // A finished task submitted again exits at once without a call.
    let calls = server.stats().total_requests;
    let o = output(task(&dir, &url, "2")).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("already done"), "{}", stderr(&o));
    assert_eq!(server.stats().total_requests, calls);

    // Resubmit what status listed.
    for t in ["0", "3"] {
        let o = output(task(&dir, &url, t)).await;
        assert_eq!(o.status.code(), Some(0), "task {t}: {}", stderr(&o));
    }
    let o = output(command(&["status", d, "--json"])).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = status_json(&o);
    assert_eq!(s["done"], 4, "{s}");

    let o = output(command(&["merge", d, "--into", m])).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&merged).expect("merged");
    let ids: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("record");
            v["id"].as_str().expect("id").to_owned()
        })
        .collect();
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(
        (ids.len(), unique.len()),
        (40, 40),
        "every scenario exactly once"
    );
    // The same ids as the planned selection.
    let o = output(command(&["scenarios", cfg, "--sample", "40"])).await;
    let planned: HashSet<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("scenario");
            v["id"].as_str().expect("id").to_owned()
        })
        .collect();
    assert_eq!(unique.into_iter().cloned().collect::<HashSet<_>>(), planned);
    // The markers' totals are the merged records' totals.
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("merged.jsonl.manifest.json")).expect("manifest"),
    )
    .expect("json");
    let mut marker_records = 0;
    let mut marker_cost = 0.0;
    for t in 0..4 {
        let marker: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("done/{t}.json"))).expect("marker"),
        )
        .expect("json");
        marker_records += marker["records"].as_u64().expect("records");
        marker_cost += marker["cost_usd"].as_f64().expect("cost");
    }
    assert_eq!(manifest["records"].as_u64(), Some(marker_records));
    assert!((manifest["cost_usd"].as_f64().expect("cost") - marker_cost).abs() < 1e-9);

    // A part edited after its marker is caught by the merge.
    let part = dir.join("parts/1.jsonl");
    let kept = std::fs::read_to_string(&part).expect("part");
    let first_line = kept.lines().next().expect("a line").to_owned();
    std::fs::write(&part, format!("{kept}{first_line}\n")).expect("append a duplicate");
    let o = output(command(&["merge", d, "--into", m])).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("does not match its marker"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(&merged).expect("kept"),
        text,
        "untouched"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_renders_both_schedulers_into_the_run_directory() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("run");
    let d = dir.to_str().expect("utf-8");
    let cfg = config();
    let o = output(command(&[
        "plan",
        cfg.to_str().expect("utf-8"),
        "--tasks",
        "8",
        "--into",
        d,
    ]))
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = output(command(&[
        "launch",
        "slurm",
        d,
        "--workers",
        "3",
        "--",
        "--model",
        "m",
    ]))
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = std::fs::read_to_string(dir.join("launch/slurm.sbatch")).expect("script");
    assert!(script.contains("#SBATCH --array=0-7%3"), "{script}");
    assert!(
        script.contains("--task auto --workers 3 --model m"),
        "{script}"
    );
    // Flags for `run` are checked against `run`'s before anything is written (issue 29).
    for bad in [
        ["--bogus", "1"],
        ["--json", "x"],
        ["-o", "x"],
        ["--threshold", "70"],
    ] {
        let mut args = vec!["launch", "slurm", d, "--"];
        args.extend(bad);
        let o = output(command(&args)).await;
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(bad[0]), "{bad:?}: {}", stderr(&o));
        let unchanged = std::fs::read_to_string(dir.join("launch/slurm.sbatch")).expect("script");
        assert_eq!(unchanged, script, "{bad:?} reached the script");
    }
    // Flags `run` parses but a task refuses: `run DIR --task auto`'s own checks and words,
    // nothing written (issue 29 review).
    for bad in [
        &["--sample", "0"][..],
        &["--out", "x"],
        &["--seed", "3"],
        &["--limit", "5"],
        &["--shard", "1/2"],
        &["--rpm", "0"],
        &["--base-url", "http://a", "--base-url", "http://a"],
    ] {
        let mut args = vec!["launch", "slurm", d, "--"];
        args.extend(bad);
        let o = output(command(&args)).await;
        let mut run = vec!["run", d, "--task", "0"];
        run.extend(bad);
        let by_run = output(command(&run)).await;
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        assert_eq!(
            by_run.status.code(),
            Some(2),
            "{bad:?}: {}",
            stderr(&by_run)
        );
        assert_eq!(stderr(&o), stderr(&by_run), "{bad:?}");
        let unchanged = std::fs::read_to_string(dir.join("launch/slurm.sbatch")).expect("script");
        assert_eq!(unchanged, script, "{bad:?} reached the script");
    }
    let o = output(command(&[
        "launch",
        "k8s",
        d,
        "--set",
        "image=ghcr.io/x/se:1",
    ]))
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let job = std::fs::read_to_string(dir.join("launch/job.yaml")).expect("job");
    assert!(
        job.contains("completionMode: Indexed") && job.contains("completions: 8"),
        "{job}"
    );
    let o = output(command(&["launch", "k8s", d, "--set", "colour=blue"])).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the keys are name, binary"),
        "{}",
        stderr(&o)
    );
    // Not a run directory: a clear error.
    let o = output(command(&["status", tmp.path().to_str().expect("utf-8")])).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Break-it findings on task runs: every way the run directory could be made to merge wrong
/// data with exit 0, or to destroy itself, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_or_foreign_run_directories_never_merge_wrong_data() {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let url = server.base_url();
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("run");
    let d = dir.to_str().expect("utf-8");
    let cfg = config();
    let cfg = cfg.to_str().expect("utf-8");
    let plan = |tasks: &'static str, into: String| {
        output(command(&[
            "plan", cfg, "--tasks", tasks, "--into", &into, "--sample", "12",
        ]))
    };
    assert_eq!(plan("3", d.to_owned()).await.status.code(), Some(0));
    for t in ["0", "1", "2"] {
        let o = output(task(&dir, &url, t)).await;
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let merged = tmp.path().join("m.jsonl");
    let m = merged.to_str().expect("utf-8");
    assert_eq!(
        output(command(&["merge", d, "--into", m]))
            .await
            .status
            .code(),
        Some(0)
    );
    let good = std::fs::read_to_string(&merged).expect("merged");

    // merge --into a file of the run directory: refused, nothing overwritten.
    let part0 = dir.join("parts/0.jsonl");
    let before = std::fs::read_to_string(&part0).expect("part");
    for into in [
        part0.clone(),
        dir.join("done/1.json"),
        dir.join("manifest.json"),
    ] {
        let o = output(command(&[
            "merge",
            d,
            "--into",
            into.to_str().expect("utf-8"),
        ]))
        .await;
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("inside the run directory"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read_to_string(&part0).expect("part"), before);

    // A record edited after its marker (not its id): caught.
    let edited = before.replacen("\"accepted\":true", "\"accepted\":false", 1);
    if edited != before {
        std::fs::write(&part0, &edited).expect("edit");
        let o = output(command(&["merge", d, "--into", m])).await;
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("changed after the marker"),
            "{}",
            stderr(&o)
        );
        std::fs::write(&part0, &before).expect("restore");
    }
    // One task's marker copied over another's: refused, not task 0's records twice.
    let marker1 = std::fs::read_to_string(dir.join("done/1.json")).expect("marker");
    std::fs::copy(dir.join("done/0.json"), dir.join("done/1.json")).expect("copy");
    let o = output(command(&["merge", d, "--into", m])).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("names task 0 in the file of task 1"),
        "{}",
        stderr(&o)
    );
    let o = output(command(&["status", d])).await;
    assert_eq!(o.status.code(), Some(1), "not complete: {}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("broken"));
    std::fs::write(dir.join("done/1.json"), &marker1).expect("restore");
    assert_eq!(
        std::fs::read_to_string(&merged).expect("kept"),
        good,
        "untouched"
    );

    // A part deleted under its marker: broken, the task refuses to call itself done.
    let part2 = dir.join("parts/2.jsonl");
    let kept2 = std::fs::read(&part2).expect("part");
    std::fs::remove_file(&part2).expect("rm");
    let o = output(command(&["status", d])).await;
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = output(task(&dir, &url, "2")).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("its part is gone"), "{}", stderr(&o));
    std::fs::write(&part2, kept2).expect("restore");

    // Planning again over another plan's parts and markers (manifest removed): refused.
    std::fs::remove_file(dir.join("manifest.json")).expect("rm");
    let o = plan("2", d.to_owned()).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no plan"), "{}", stderr(&o));

    // More tasks than scenarios, and a newline smuggled into the sbatch script: refused.
    let other = tmp.path().join("other").to_str().expect("utf-8").to_owned();
    let o = plan("4294967295", other.clone()).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(plan("2", other.clone()).await.status.code(), Some(0));
    let o = output(command(&[
        "launch",
        "slurm",
        &other,
        "--set",
        "name=x\n/usr/bin/touch /tmp/pwned #",
    ]))
    .await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("control character"), "{}", stderr(&o));
}

/// Object-store locations that cannot be a run directory are refused before any request, with
/// exit 2 (`cargo xtask s3-check` runs the protocol on a real S3-compatible server).
#[cfg(feature = "object-store")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn object_store_urls_without_bucket_or_with_another_scheme_exit_2() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("m.jsonl");
    let out = out.to_str().expect("utf-8");
    let cfg = config();
    let cfg = cfg.to_str().expect("utf-8");
    for (args, expected) in [
        (
            vec!["status", "s3://"],
            "s3://: no bucket: expected s3://BUCKET/PREFIX",
        ),
        (vec!["merge", "gs:///run", "--into", out], "no bucket"),
        (
            vec!["run", "ftp://host/run", "--task", "0"],
            "unknown scheme `ftp://`",
        ),
        (
            vec!["plan", cfg, "--tasks", "2", "--into", "ftp://host/run"],
            "unknown scheme `ftp://`",
        ),
        (vec!["launch", "slurm", "s3:///run"], "no bucket"),
        // Outputs are local files: a URL there would be written under a folder named `s3:`.
        (
            vec!["run", cfg, "--out", "s3://bkt/run.jsonl", "--limit", "1"],
            "looks like a URL",
        ),
        (
            vec!["merge", out, "--into", "s3://bkt/merged.jsonl"],
            "looks like a URL",
        ),
        // A mistyped URL is not a local run directory named `s3:`.
        (
            vec!["plan", cfg, "--tasks", "2", "--into", "s3:/bkt/run"],
            "looks like a URL",
        ),
        (
            vec!["plan", cfg, "--tasks", "2", "--into", "gs:bkt/run"],
            "looks like a URL",
        ),
    ] {
        let o = output(command(&args)).await;
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
    }
}

/// Issue 27: `status` counted the spend of the records only; a task whose scenarios failed
/// after paid calls spent more than its records say. Each attempt's ledger now counts it, per
/// task and in the total (and a task's budget share is taken from that truer total).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_counts_the_spend_of_attempts_that_left_no_records() {
    let cfg = FakeConfig {
        retry_after_secs: 0,
        ..FakeConfig::default().with_fail_rate(0.5).with_seed(27)
    };
    let server = FakeServer::start(cfg).await.expect("server");
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("run");
    let d = dir.to_str().expect("utf-8");
    let example = config();
    let o = output(command(&[
        "plan",
        example.to_str().expect("utf-8"),
        "--tasks",
        "1",
        "--into",
        d,
        "--sample",
        "20",
    ]))
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A priced model, no retries and no cache: failures come after paid calls.
    let mut run = command(&[
        "run",
        d,
        "--task",
        "0",
        "--base-url",
        &server.base_url(),
        "--model",
        "gpt-4o-mini",
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
        "--no-cache",
        "--no-preflight",
    ]);
    run.env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "0")
        .env("SCENARIO_ENGINE__BREAKER__TRIP_AFTER", "0");
    let o = output(run).await;
    assert_eq!(o.status.code(), Some(3), "scenarios failed: {}", stderr(&o));
    let o = output(command(&["status", d, "--json"])).await;
    let s = status_json(&o);
    let task = &s["per_task"][0];
    let unrecorded = s["unrecorded_usd"].as_f64().expect("unrecorded_usd");
    assert!(unrecorded > 0.0, "failed scenarios paid calls: {s}");
    assert!((task["unrecorded_usd"].as_f64().expect("per task") - unrecorded).abs() < 1e-12);
    // The total is the records' cost plus what left none.
    let part = std::fs::read_to_string(dir.join("parts/0.jsonl")).unwrap_or_default();
    let recorded: f64 = part
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|r| r["cost_usd"].as_f64().unwrap_or(0.0))
        .sum();
    let spend = s["spend_usd"].as_f64().expect("spend");
    assert!((spend - (recorded + unrecorded)).abs() < 1e-9, "{s}");
    let o = output(command(&["status", d])).await;
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("of it by attempts that left no records")
            && text.contains("task 0: $")
            && text.contains("paid by attempts that left no records"),
        "{text}"
    );
}
