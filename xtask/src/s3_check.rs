//! `cargo xtask s3-check`: the task-run protocol on a run directory in an S3-compatible object
//! store. Pip-installs a pinned moto (its S3 and server) into `target/s3-check/venv`, starts its server on a
//! free loopback port, creates a bucket, and runs 4 tasks of `fixtures/configs/example.yaml`
//! (`--sample 40`) planned into `s3://se-check/run` against the fake server, as separate
//! processes: task 2 twice at once (two racers: one marker, one part, the loser exits 0), task 1
//! killed with SIGKILL once its checkpoint is in the store and then run again (it resumes from the
//! checkpoint), task 3 from `JOB_COMPLETION_INDEX`, stopped by SIGTERM (its stop uploads the
//! checkpoint) and run again. `status` must list the unfinished tasks, then
//! report the run complete; `merge` must give every planned scenario once, with the markers'
//! totals equal to the merged records; exactly one part object per task must remain, no lease,
//! and the provider's calls must not exceed the records' plus preflights and the killed task's
//! calls in flight. A missing bucket must be exit 2, named as such. Then a fault proxy
//! (`fixtures/python/fault_proxy.py`) in front of moto loses the reply of a committed marker
//! and stalls a checkpoint upload: the task must keep its part and exit 0. Before task 1's kill
//! a standby copy of it is stopped by SIGTERM (exit 3, nothing run); after it, the rerun must pay
//! exactly the calls its checkpoint and the responses carried beside it lack. Last, a one-task run
//! whose endpoint goes down for 20 s mid-way must pause and complete (issue 27's flapping
//! endpoint, with the default breaker and retries: about 25 s).
//!
//! When moto cannot be installed or started it fails under CI (`CI` set), so a broken install
//! never passes silently, and skips with the reason elsewhere; the protocol is also tested
//! against an in-memory store in `cargo test` (`taskrun::store`).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// moto's S3 and the Flask its server runs on, pinned: moto 5.2.5's S3 honours
/// `If-None-Match: *` on PutObject (conditional create). `moto[server]` would pull every
/// service's dependencies (minutes of pip); S3 needs only these (seconds).
const MOTO: &[&str] = &["moto[s3]==5.2.5", "flask==3.1.3", "flask-cors==6.0.5"];

/// How long any one wait may take.
const TIMEOUT: Duration = Duration::from_secs(120);

const BUCKET: &str = "se-check";

/// The endpoint's outage in [`flap`]: issue 27's "down 20 s", inside the breaker's default
/// 25 s of probing.
const FLAP: Duration = Duration::from_secs(20);

pub(crate) fn run() -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dir = crate::target_dir(&root).join("s3-check");
    let moto = match Moto::start(&dir) {
        Ok(m) => m,
        Err(why) if std::env::var_os("CI").is_none() => {
            eprintln!("    s3-check: skipped: moto could not be installed or started: {why:#}");
            eprintln!(
                "    (CI fails here instead; the protocol is unit-tested on an in-memory store)"
            );
            return Ok(());
        }
        Err(why) => return Err(why.context("s3-check: moto could not be installed or started")),
    };
    let bin = crate::export_check::debug_binary(&root)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let server = runtime.block_on(fixtures::FakeServer::start(
        fixtures::FakeConfig::default().with_latency(Duration::from_millis(200)),
    ))?;
    let flapping = runtime.block_on(fixtures::FakeServer::start(
        fixtures::FakeConfig::default().with_outage(40, Some(FLAP)),
    ))?;
    let result = check(&root, &dir, &bin, &server, &moto)
        .and_then(|()| lost_reply(&root, &dir, &bin, &server, &moto))
        .and_then(|()| flap(&root, &dir, &bin, &flapping, &moto));
    runtime.block_on(server.shutdown());
    runtime.block_on(flapping.shutdown());
    drop(moto);
    result
}

/// moto's environment made in the background (as [`crate::export_check::prefetch`]).
pub(crate) fn prefetch(log: &Path) -> anyhow::Result<()> {
    let dir = crate::target_dir(&crate::workspace_root()).join("s3-check");
    crate::venv::ensure_with(&dir, MOTO, "import moto.server, boto3", &[], Some(log)).map(drop)
}

/// moto's S3 server on a loopback port, killed on drop.
struct Moto {
    python: PathBuf,
    child: Child,
    endpoint: String,
}

impl Moto {
    fn start(dir: &Path) -> anyhow::Result<Self> {
        let python = crate::venv::ensure(dir, MOTO, "import moto.server, boto3", &[])?;
        let port = free_port()?;
        let child = Command::new(&python)
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting moto.server")?;
        let moto = Self {
            python,
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        wait_listening(port, "moto.server")?;
        moto.boto(&format!("s3.create_bucket(Bucket='{BUCKET}')"))?;
        eprintln!("    s3: moto ({}) on {}", MOTO[0], moto.endpoint);
        Ok(moto)
    }

    /// The credentials and endpoint every client here uses (moto accepts any key).
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_DEFAULT_REGION", "us-east-1".into()),
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
        ]
    }

    /// Runs `statement` in Python with `s3`, a boto3 client of this server; its stdout.
    fn boto(&self, statement: &str) -> anyhow::Result<String> {
        let out = Command::new(&self.python)
            .args([
                "-c",
                &format!("import boto3; s3 = boto3.client('s3'); {statement}"),
            ])
            .envs(self.env())
            .output()?;
        if !out.status.success() {
            bail!(
                "boto3 `{statement}`: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(String::from_utf8(out.stdout)?)
    }

    /// The text of object `key`, empty when there is none.
    fn text(&self, key: &str) -> anyhow::Result<String> {
        self.boto(&format!(
            "import sys\ntry: sys.stdout.write(s3.get_object(Bucket='{BUCKET}', Key='{key}')['Body'].read().decode())\nexcept s3.exceptions.NoSuchKey: pass"
        ))
    }

    /// Every key under `run/`.
    fn keys(&self) -> anyhow::Result<Vec<String>> {
        self.keys_under("run/")
    }

    /// Every key under `prefix`.
    fn keys_under(&self, prefix: &str) -> anyhow::Result<Vec<String>> {
        let listed = self.boto(&format!(
            "[print(o['Key']) for p in s3.get_paginator('list_objects_v2').paginate(Bucket='{BUCKET}', Prefix='{prefix}') for o in p.get('Contents', [])]"
        ))?;
        Ok(listed.lines().map(str::to_owned).collect())
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn check(
    root: &Path,
    dir: &Path,
    bin: &Path,
    server: &fixtures::FakeServer,
    moto: &Moto,
) -> anyhow::Result<()> {
    let url = &server.base_url();
    let run = format!("s3://{BUCKET}/run");
    let config = root.join("fixtures/configs/example.yaml");
    let cfg = config.to_str().context("utf-8 path")?;
    let se = |args: &[&str]| {
        let mut cmd = Command::new(bin);
        cmd.args(args)
            .envs(moto.env())
            .env("SCENARIO_ENGINE__CHECKPOINT_EVERY", "1s")
            .env("SCENARIO_ENGINE__LEASE_TTL", "4s");
        cmd
    };
    crate::venv::run(
        se(&[
            "plan", cfg, "--sample", "40", "--tasks", "4", "--into", &run,
        ])
        .stdout(Stdio::null()),
    )?;
    let missing = se(&["status", "s3://se-check-missing/run"]).output()?;
    let said = String::from_utf8_lossy(&missing.stderr);
    if missing.status.code() != Some(2) || !said.contains("bucket (or container) does not exist") {
        bail!(
            "a missing bucket should be exit 2 naming it: {:?} {said}",
            missing.status.code()
        );
    }
    // A batch run keeps its state beside its part, in the task's temporary folder: refused.
    let batch = se(&["run", &run, "--task", "0", "--batch", "--base-url", url]).output()?;
    let said = String::from_utf8_lossy(&batch.stderr);
    if batch.status.code() != Some(2) || !said.contains("--batch with an object-store") {
        bail!(
            "--batch on an object store should be exit 2: {:?} {said}",
            batch.status.code()
        );
    }
    let task = |n: &str, concurrency: &str| {
        let mut args = vec!["run", &run, "--task", n, "--base-url", url];
        args.extend(["--model", "fake-model", "--concurrency", concurrency]);
        let mut cmd = se(&args);
        cmd.env_remove("OPENAI_API_KEY");
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
        cmd
    };
    let status = || -> anyhow::Result<serde_json::Value> {
        let out = se(&["status", &run, "--json"]).output()?;
        serde_json::from_slice(&out.stdout)
            .with_context(|| format!("status --json: {}", String::from_utf8_lossy(&out.stderr)))
    };
    // Task 1 runs one scenario at a time, so it is still running when its checkpoint lands.
    let mut killed = task("1", "1").spawn()?;
    let racers = [task("2", "2").spawn()?, task("2", "2").spawn()?];
    let zero = task("0", "2").spawn()?;
    standby_stopped(&mut || status(), &mut || {
        task("1", "1").spawn().map_err(Into::into)
    })?;
    let deadline = Instant::now() + TIMEOUT;
    let checkpointed = loop {
        let s = status()?;
        let task1 = &s["per_task"][1];
        // Running (its lease is live) with records in its checkpoint.
        if task1["state"] == "running" && task1["records"].as_u64().unwrap_or(0) > 0 {
            break task1["records"].as_u64().unwrap_or(0);
        }
        if task1["state"] == "done" || Instant::now() > deadline {
            bail!("task 1 left no checkpoint to resume from before it finished: {task1}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    killed.kill()?;
    killed.wait()?;
    // Its lease outlives it by at most `lease_ttl`: until then `status` must not propose it.
    let s = status()?;
    if s["per_task"][1]["state"] != "running"
        || s["resubmit"]
            .as_str()
            .is_some_and(|r| r.split(',').any(|t| t == "1"))
    {
        bail!(
            "right after the kill, task 1's live lease should show it running, not resubmittable: {s}"
        );
    }
    // What the store kept of task 1 at its kill: the records of its checkpoint, and the answered
    // calls of its unfinished scenarios (the response journal carried beside it).
    let kept: std::collections::HashSet<String> = ids(&moto.text("run/checkpoints/1.jsonl")?);
    // The checkpoint as the store holds it after the kill: the task may have written another
    // record between the status read above and the kill (a loaded CI machine did), and the
    // resume must start from what was kept, not from what status saw a moment earlier.
    if (kept.len() as u64) < checkpointed {
        bail!(
            "task 1's checkpoint lost records at its kill: status saw {checkpointed}, the store keeps {}",
            kept.len()
        );
    }
    let checkpointed = kept.len() as u64;
    let carried = moto
        .text("run/checkpoints/1.cache.jsonl")?
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["scenario"].as_str().is_some_and(|id| !kept.contains(id)))
        .count() as u64;
    eprintln!(
        "    s3: task 1 killed (SIGKILL) with {checkpointed} record(s) in its checkpoint, {carried} answered call(s) of unfinished scenarios beside it"
    );
    let mut lost = 0;
    for child in racers {
        let (ok, stderr) = finish(child)?;
        if !ok {
            bail!("a copy of task 2 failed:\n{stderr}");
        }
        // The second copy waited on the first's lease, or (had both replaced one expired
        // lease) lost the marker race.
        lost += usize::from(stderr.contains("done by another copy"));
    }
    let (ok, stderr) = finish(zero)?;
    if !ok {
        bail!("task 0 failed:\n{stderr}");
    }
    if lost != 1 {
        bail!("of the two copies of task 2, {lost} reported losing the marker race, not one");
    }
    eprintln!("    s3: task 2 submitted twice at once; one copy ran it, the other exited 0");
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let s = status()?;
        if s["resubmit"] == "1,3" {
            break;
        }
        if Instant::now() > deadline {
            bail!("status should list tasks 1 and 3 to resubmit once task 1's lease expired: {s}");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!("    s3: task 1's lease expired: status lists it to resubmit");
    let before = server.stats().completions;
    let (ok, stderr) = finish(task("1", "2").spawn()?)?;
    if !ok || !stderr.contains(&format!("resuming: {checkpointed} scenario(s)")) {
        bail!("task 1 did not resume from its checkpoint of {checkpointed} record(s):\n{stderr}");
    }
    // The rerun paid for the unfinished work only: the calls of the records its checkpoint
    // lacked, less those carried beside it (its preflight lists the models: no completion).
    let resumed = server.stats().completions - before;
    let part = moto.keys_under("run/parts/1/")?;
    let unfinished: u64 = part
        .iter()
        .map(|k| moto.text(k))
        .collect::<anyhow::Result<Vec<_>>>()?
        .iter()
        .flat_map(|t| t.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["id"].as_str().is_some_and(|id| !kept.contains(id)))
        .map(|r| r["calls"].as_u64().unwrap_or(0))
        .sum();
    if resumed != unfinished - carried {
        bail!(
            "task 1's rerun paid {resumed} call(s); its unfinished work needed {unfinished}, {carried} of them answered before the kill"
        );
    }
    eprintln!(
        "    s3: task 1 resumed: {resumed} call(s) paid = {unfinished} unfinished - {carried} carried"
    );
    // Task 3 uploads a checkpoint only when it stops (an hour's interval): SIGTERM once it has
    // called the model; it finishes the scenario in flight, and its stop uploads the checkpoint.
    let before = server.stats().total_requests;
    let mut stopped = task("auto", "1")
        .env("JOB_COMPLETION_INDEX", "3")
        .env("SCENARIO_ENGINE__CHECKPOINT_EVERY", "1h")
        .spawn()?;
    let deadline = Instant::now() + TIMEOUT;
    while server.stats().total_requests == before {
        if Instant::now() > deadline || stopped.try_wait()?.is_some() {
            bail!("task 3 made no request to the model");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    crate::venv::run(Command::new("kill").args(["-TERM", &stopped.id().to_string()]))?;
    let (ok, stderr) = finish(stopped)?;
    let task3 = status()?["per_task"][3].clone();
    let saved = task3["records"].as_u64().unwrap_or(0);
    if ok || task3["state"] != "checkpointed" || saved == 0 {
        bail!(
            "task 3 stopped by SIGTERM should exit 3 and leave its checkpoint: {task3}\n{stderr}"
        );
    }
    let (ok, stderr) = finish(task("auto", "2").env("JOB_COMPLETION_INDEX", "3").spawn()?)?;
    if !ok || !stderr.contains(&format!("resuming: {saved} scenario(s)")) {
        bail!("task 3 (JOB_COMPLETION_INDEX) did not resume from its {saved} record(s):\n{stderr}");
    }
    eprintln!(
        "    s3: task 3 stopped by SIGTERM with {saved} record(s) checkpointed, then resumed"
    );
    let done = se(&["status", &run]).output()?;
    if !done.status.success() {
        bail!("not complete: {}", String::from_utf8_lossy(&done.stdout));
    }
    let s = status()?;
    let marked: u64 = (0..4)
        .map(|t| s["per_task"][t]["records"].as_u64().unwrap_or(0))
        .sum();
    let merged = dir.join("merged.jsonl");
    crate::venv::run(
        se(&["merge", &run, "--into", merged.to_str().context("utf-8")?]).stdout(Stdio::null()),
    )?;
    crate::slurm_check::merged_once_each(bin, cfg, &merged)?;
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        dir.join("merged.jsonl.manifest.json"),
    )?)?;
    if manifest["records"].as_u64() != Some(marked) || marked != 40 {
        bail!(
            "the markers count {marked} record(s), the merge {}",
            manifest["records"]
        );
    }
    let keys = moto.keys()?;
    for t in 0..4 {
        let parts = keys
            .iter()
            .filter(|k| k.starts_with(&format!("run/parts/{t}/")))
            .count();
        if parts != 1 {
            bail!("task {t} has {parts} part object(s), not one: {keys:?}");
        }
    }
    if keys.iter().any(|k| k.starts_with("run/leases/")) {
        bail!("leases left after every task finished: {keys:?}");
    }
    if keys.iter().any(|k| k.starts_with("run/checkpoints/")) {
        bail!("checkpoints left after every task finished: {keys:?}");
    }
    // Paid once: the provider answered at most the records' calls, plus one preflight per
    // task process that ran and the calls task 1 lost at its kill (at most what its rerun paid
    // again: the unfinished work not carried beside its checkpoint, a second's worth). Two copies
    // of task 2 running side by side would pay its ten scenarios twice.
    let recorded: u64 = std::fs::read_to_string(&merged)?
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|r| r["calls"].as_u64().unwrap_or(0))
        .sum();
    let paid = server.stats().completions;
    let allowance = 6 + (unfinished - carried);
    if paid > recorded + allowance {
        bail!("the provider answered {paid} calls for {recorded} recorded (+{allowance} allowed)");
    }
    eprintln!("    s3: {paid} provider calls for {recorded} recorded calls");
    eprintln!("    s3-check: 40 scenarios once each after a killed and a duplicated task");
    Ok(())
}

/// Issue 27: a second copy of task 1, started while task 1 runs, waits as a standby for its
/// lease; SIGTERM then must stop it like any run (exit 3, "nothing was run"), not kill it (143).
fn standby_stopped(
    status: &mut dyn FnMut() -> anyhow::Result<serde_json::Value>,
    spawn: &mut dyn FnMut() -> anyhow::Result<Child>,
) -> anyhow::Result<()> {
    use std::io::BufRead as _;
    let deadline = Instant::now() + TIMEOUT;
    while status()?["per_task"][1]["state"] != "running" {
        if Instant::now() > deadline {
            bail!("task 1 never showed as running");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut standby = spawn()?;
    let stderr = standby.stderr.take().context("piped stderr")?;
    let (said, waiting) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("holds the task's lease") {
                let _ = said.send(None);
            }
            text.push_str(&line);
            text.push('\n');
        }
        let _ = said.send(Some(text));
    });
    match waiting.recv_timeout(TIMEOUT) {
        Ok(None) => {}
        Ok(Some(text)) => bail!("the standby copy of task 1 ended without waiting:\n{text}"),
        Err(_) => bail!("the standby copy of task 1 never said it waits"),
    }
    crate::venv::run(Command::new("kill").args(["-TERM", &standby.id().to_string()]))?;
    let code = standby.wait()?.code();
    let text = waiting
        .recv_timeout(TIMEOUT)
        .ok()
        .flatten()
        .unwrap_or_default();
    if code != Some(3) || !text.contains("nothing was run") {
        bail!(
            "a standby stopped by SIGTERM should exit 3 saying nothing was run: {code:?}\n{text}"
        );
    }
    eprintln!("    s3: a standby copy of task 1 stopped by SIGTERM while it waited: exit 3");
    Ok(())
}

/// Issue 27: the endpoint goes down for 20 s after 40 completions, mid-way through a one-task
/// run on the store with the default retries and breaker: the task must pause, go on when the
/// endpoint is back, and complete with every scenario once and none failed (nothing is timed:
/// the outage either fits the breaker's probing or the task exits 3).
fn flap(
    root: &Path,
    dir: &Path,
    bin: &Path,
    server: &fixtures::FakeServer,
    moto: &Moto,
) -> anyhow::Result<()> {
    let run = format!("s3://{BUCKET}/flap");
    let se = |args: &[&str]| {
        let mut cmd = Command::new(bin);
        cmd.args(args)
            .envs(moto.env())
            .env("SCENARIO_ENGINE__CHECKPOINT_EVERY", "1s")
            .env_remove("OPENAI_API_KEY");
        cmd
    };
    let out = plan_and_run_one_task(root, &se, &run, "12", &server.base_url())?;
    let said = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || server.stats().status_count(503) == 0 || !said.contains("paused 1×")
    {
        bail!(
            "a task whose endpoint went down for {} s should pause once and complete: {:?}\n{said}",
            FLAP.as_secs(),
            out.status.code()
        );
    }
    let merged = dir.join("flap.jsonl");
    crate::venv::run(
        se(&["merge", &run, "--into", merged.to_str().context("utf-8")?]).stdout(Stdio::null()),
    )?;
    let text = std::fs::read_to_string(&merged)?;
    let (records, distinct) = (text.lines().count(), ids(&text).len());
    if (records, distinct) != (12, 12) {
        bail!("the flapping run merged {records} record(s), {distinct} distinct, not 12 once each");
    }
    eprintln!(
        "    s3: the endpoint went down for {} s mid-task: the task paused, went on and completed 12 of 12",
        FLAP.as_secs()
    );
    Ok(())
}

/// The `id`s of a part's records.
fn ids(part: &str) -> std::collections::HashSet<String> {
    part.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect()
}

/// Issue 27: the store commits a task's marker but its reply is lost (a fault proxy in front of
/// moto answers 500 after forwarding), and the checkpoint upload stalls: the task must read the
/// marker, find its own part named there, keep it and exit 0 — one marker, one part, every
/// scenario once.
fn lost_reply(
    root: &Path,
    dir: &Path,
    bin: &Path,
    server: &fixtures::FakeServer,
    moto: &Moto,
) -> anyhow::Result<()> {
    let port = free_port()?;
    let log = dir.join("fault-proxy.log");
    let _ = std::fs::remove_file(&log);
    let mut proxy = Command::new(&moto.python)
        .arg(root.join("fixtures/python/fault_proxy.py"))
        .args(["--listen", &port.to_string(), "--upstream", &moto.endpoint])
        .args(["--lose-reply", &format!("PUT /{BUCKET}/lost/done/0.json")])
        .args(["--stall", &format!("PUT /{BUCKET}/lost/checkpoints/:2")])
        .arg("--log")
        .arg(&log)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting the fault proxy")?;
    let result = (|| {
        wait_listening(port, "the fault proxy")?;
        let run = format!("s3://{BUCKET}/lost");
        let se = |args: &[&str]| {
            let mut cmd = Command::new(bin);
            cmd.args(args)
                .envs(moto.env())
                .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}"))
                .env("SCENARIO_ENGINE__CHECKPOINT_EVERY", "1s")
                .env_remove("OPENAI_API_KEY");
            cmd
        };
        let out = plan_and_run_one_task(root, &se, &run, "6", &server.base_url())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let fired = std::fs::read_to_string(&log).unwrap_or_default();
        if !fired.contains("lose PUT") {
            bail!("the proxy lost no marker reply (faults fired: {fired:?}):\n{stderr}");
        }
        if !out.status.success() || !stderr.contains("task 0 done") {
            bail!(
                "with its marker's reply lost the task should keep its part and exit 0:\n{stderr}"
            );
        }
        let status = se(&["status", &run]).output()?;
        if !status.status.success() {
            bail!(
                "status after a lost marker reply: {}",
                String::from_utf8_lossy(&status.stdout)
            );
        }
        let keys = moto.keys_under("lost/")?;
        let parts = keys
            .iter()
            .filter(|k| k.starts_with("lost/parts/0/"))
            .count();
        let markers = keys.iter().filter(|k| k.starts_with("lost/done/")).count();
        if parts != 1 || markers != 1 || keys.iter().any(|k| k.starts_with("lost/leases/")) {
            bail!("one part and one marker should remain, and no lease: {keys:?}");
        }
        let merged = dir.join("lost.jsonl");
        crate::venv::run(
            se(&["merge", &run, "--into", merged.to_str().context("utf-8")?]).stdout(Stdio::null()),
        )?;
        let lines = std::fs::read_to_string(&merged)?.lines().count();
        if lines != 6 {
            bail!("the merge of the lost-reply run holds {lines} records, not 6");
        }
        eprintln!(
            "    s3: a marker committed with its reply lost (500) and a stalled checkpoint: the task kept its part, 6 scenarios once"
        );
        Ok(())
    })();
    let _ = proxy.kill();
    let _ = proxy.wait();
    result
}

/// Plans `fixtures/configs/example.yaml` as one task of `sample` scenarios into `run` and runs
/// task 0 against `url`, with `se` the phase's command (its store and settings in the
/// environment): the shape of the `flap` and `lost_reply` phases. The run's stdout is dropped;
/// its exit status and stderr are returned.
fn plan_and_run_one_task(
    root: &Path,
    se: &dyn Fn(&[&str]) -> Command,
    run: &str,
    sample: &str,
    url: &str,
) -> anyhow::Result<std::process::Output> {
    let cfg = root.join("fixtures/configs/example.yaml");
    let cfg = cfg.to_str().context("utf-8 path")?;
    crate::venv::run(
        se(&[
            "plan", cfg, "--sample", sample, "--tasks", "1", "--into", run,
        ])
        .stdout(Stdio::null()),
    )?;
    let args = [
        "run",
        run,
        "--task",
        "0",
        "--base-url",
        url,
        "--model",
        "fake-model",
    ];
    Ok(se(&args).stdout(Stdio::null()).output()?)
}

/// A free loopback port.
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Waits up to 30 s for `what` to listen on `port`.
fn wait_listening(port: u16, what: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            bail!("{what} did not listen on port {port} within 30 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// Waits for a task; whether it exited 0, and its stderr.
fn finish(mut child: Child) -> anyhow::Result<(bool, String)> {
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        pipe.read_to_string(&mut stderr)?;
    }
    Ok((child.wait()?.success(), stderr))
}
