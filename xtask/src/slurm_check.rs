//! `cargo xtask slurm-check`: the task-run protocol on a real Slurm. Installs Debian's
//! `slurmctld`, `slurmd`, `slurm-client` and `munge` (as root, through apt-get) when missing,
//! starts munged, slurmctld and slurmd on this host with a one-node config under
//! `target/slurm-check/`, and runs a 4-task job array of `fixtures/configs/example.yaml`
//! (`--sample 40`) against the fake server: one task is cancelled mid-way, one is submitted
//! twice. It then resubmits what `status` lists, merges, and checks every planned scenario is in
//! the merged file exactly once and the markers' totals equal the merged records'.
//!
//! When the daemons cannot start here (not root, no apt-get, a container without the needed
//! privileges), it says why and skips: `crates/cli/tests/task_runs.rs` tests the same protocol
//! with plain processes in every `cargo test`. CI runs it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// How long the whole array may take.
const JOB_TIMEOUT: Duration = Duration::from_secs(300);

pub(crate) fn run() -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dir = crate::target_dir(&root).join("slurm-check");
    if let Err(why) = install() {
        eprintln!("    slurm-check: skipped: Slurm could not be installed: {why:#}");
        eprintln!(
            "    (the protocol is tested with plain processes: crates/cli/tests/task_runs.rs)"
        );
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let daemons = match Daemons::start(&dir) {
        Ok(d) => d,
        Err(why) => {
            eprintln!("    slurm-check: skipped: the Slurm daemons did not start: {why:#}");
            eprintln!(
                "    (the protocol is tested with plain processes: crates/cli/tests/task_runs.rs)"
            );
            return Ok(());
        }
    };
    let bin = crate::export_check::debug_binary(&root)?;
    let runtime = tokio::runtime::Runtime::new()?;
    let server = runtime.block_on(fixtures::FakeServer::start(
        fixtures::FakeConfig::default().with_latency(Duration::from_millis(60)),
    ))?;
    let result = check(&root, &dir, &bin, &server.base_url(), &daemons);
    runtime.block_on(server.shutdown());
    drop(daemons);
    result
}

/// The Slurm and munge packages, installed quietly in the background of CI's first steps (after
/// Chromium: apt takes one install at a time), output in `log`; nothing when they are there or
/// this is not root. The step installs again, loudly, whatever this did not.
pub(crate) fn prefetch(log: &std::path::Path) -> anyhow::Result<()> {
    if installed() || !crate::demo::is_root() {
        return Ok(());
    }
    crate::venv::apt_quiet(&PACKAGES, log)
}

/// The Debian packages of a one-node Slurm.
const PACKAGES: [&str; 4] = ["slurmctld", "slurmd", "slurm-client", "munge"];

fn installed() -> bool {
    which("slurmctld") && which("slurmd") && which("sbatch") && which("munged")
}

/// apt-get installs the Slurm and munge packages when `slurmctld` is missing.
fn install() -> anyhow::Result<()> {
    if installed() {
        return Ok(());
    }
    if !crate::demo::is_root() {
        bail!("not root, and slurmctld is not installed");
    }
    eprintln!("    installing slurmctld, slurmd, slurm-client and munge (apt-get)");
    crate::venv::apt_install(&PACKAGES)
}

fn which(program: &str) -> bool {
    ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        .iter()
        .any(|d| Path::new(d).join(program).is_file())
}

/// munged, slurmctld and slurmd on this host, stopped on drop.
struct Daemons {
    conf: PathBuf,
    pids: Vec<PathBuf>,
}

impl Daemons {
    fn start(dir: &Path) -> anyhow::Result<Self> {
        let host = String::from_utf8(Command::new("hostname").arg("-s").output()?.stdout)?
            .trim()
            .to_owned();
        let cpus = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        let d = dir.display();
        let conf = dir.join("slurm.conf");
        std::fs::create_dir_all(dir.join("state"))?;
        std::fs::create_dir_all(dir.join("spool"))?;
        std::fs::write(
            &conf,
            format!(
                "ClusterName=secheck\nSlurmctldHost={host}\nSlurmUser=root\nSlurmdUser=root\n\
                 AuthType=auth/munge\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
                 SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
                 SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
                 SchedulerType=sched/backfill\nSelectType=select/cons_tres\n\
                 SelectTypeParameters=CR_Core\nReturnToService=2\nMpiDefault=none\n\
                 JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
                 NodeName={host} CPUs={cpus} State=UNKNOWN\n\
                 PartitionName=check Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8\n"
            ),
        )?;
        // munge: a key, its directories owned by the munge user, and the daemon.
        let key = Path::new("/etc/munge/munge.key");
        if !key.is_file() {
            crate::venv::run(Command::new("sh").args([
                "-c",
                "mkdir -p /etc/munge && dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null && chmod 400 /etc/munge/munge.key",
            ]))?;
        }
        let _ = Command::new("sh")
            .args([
                "-c",
                "mkdir -p /run/munge /var/lib/munge /var/log/munge && chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge",
            ])
            .status();
        if !Command::new("sh")
            .args(["-c", "munge -n | unmunge >/dev/null 2>&1"])
            .status()?
            .success()
        {
            crate::venv::run(Command::new("munged").arg("--force"))
                .context("munged did not start")?;
        }
        let daemons = Self {
            conf: conf.clone(),
            pids: vec![dir.join("slurmctld.pid"), dir.join("slurmd.pid")],
        };
        crate::venv::run(Command::new("slurmctld").arg("-f").arg(&conf))
            .context("slurmctld did not start")?;
        crate::venv::run(Command::new("slurmd").arg("-f").arg(&conf))
            .context("slurmd did not start")?;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let out = daemons.slurm("sinfo", &["-h", "-o", "%T"]).output()?;
            let state = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            if state == "idle" || state == "mixed" {
                break;
            }
            if Instant::now() > deadline {
                bail!(
                    "the node is `{state}` after 30 s; see {}/slurmctld.log and slurmd.log",
                    dir.display()
                );
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        eprintln!("    slurm: slurmctld and slurmd up on {host} ({cpus} CPUs)");
        Ok(daemons)
    }

    /// A Slurm client command against this cluster's config.
    fn slurm(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args).env("SLURM_CONF", &self.conf);
        cmd
    }

    /// Submits the script (optionally a sub-array); returns the job id.
    fn sbatch(&self, script: &Path, array: Option<&str>) -> anyhow::Result<String> {
        let mut args = vec!["--parsable".to_owned()];
        if let Some(a) = array {
            args.push(format!("--array={a}"));
        }
        args.push(script.display().to_string());
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.slurm("sbatch", &words).output()?;
        if !out.status.success() {
            bail!("sbatch failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8(out.stdout)?.trim().to_owned())
    }

    /// Waits until no job of this cluster is pending or running.
    fn wait_idle(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + JOB_TIMEOUT;
        loop {
            let out = self.slurm("squeue", &["-h", "-o", "%i"]).output()?;
            if out.status.success() && out.stdout.iter().all(u8::is_ascii_whitespace) {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("jobs still queued after {JOB_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Daemons {
    fn drop(&mut self) {
        for pid in &self.pids {
            if let Ok(text) = std::fs::read_to_string(pid) {
                let _ = Command::new("kill").arg(text.trim()).status();
            }
        }
    }
}

fn se(bin: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args);
    cmd
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |s| s.matches('\n').count())
}

fn check(root: &Path, dir: &Path, bin: &Path, url: &str, slurm: &Daemons) -> anyhow::Result<()> {
    let run_dir = dir.join("run");
    let rd = run_dir.to_str().context("utf-8 path")?;
    let config = root.join("fixtures/configs/example.yaml");
    let cfg = config.to_str().context("utf-8 path")?;
    crate::venv::run(&mut se(
        bin,
        &["plan", cfg, "--sample", "40", "--tasks", "4", "--into", rd],
    ))?;
    let binary = bin.to_str().context("utf-8 path")?;
    crate::venv::run(
        se(
            bin,
            &[
                "launch",
                "slurm",
                rd,
                "--workers",
                "4",
                "--set",
                "time=00:10:00",
                "--set",
                "cpus=1",
                "--set",
                &format!("binary={binary}"),
                "--",
                "--base-url",
                url,
                "--model",
                "fake-model",
                "--api-key-env",
                "SCENARIO_ENGINE_NO_KEY",
                "--concurrency",
                "2",
            ],
        )
        .stdout(Stdio::null()),
    )?;
    let script = run_dir.join("launch/slurm.sbatch");
    let job = slurm.sbatch(&script, None)?;
    // The same task twice: a scheduler retry, a second user.
    slurm.sbatch(&script, Some("2"))?;
    eprintln!("    slurm: job array {job} (0-3) and task 2 again submitted");
    // Cancel task 1 once it has written some records (counting lines, never timing).
    let part1 = run_dir.join("parts/1.jsonl");
    let deadline = Instant::now() + JOB_TIMEOUT;
    while lines(&part1) < 2 {
        if Instant::now() > deadline {
            bail!("task 1 wrote no records; see {}/logs", run_dir.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    crate::venv::run(&mut slurm.slurm("scancel", &[&format!("{job}_1")]))?;
    eprintln!(
        "    slurm: task 1 cancelled after {} record(s)",
        lines(&part1)
    );
    slurm.wait_idle()?;
    let status = se(bin, &["status", rd, "--json"]).output()?;
    let json: serde_json::Value = serde_json::from_slice(&status.stdout)
        .with_context(|| format!("status --json: {}", String::from_utf8_lossy(&status.stderr)))?;
    let resubmit = json["resubmit"].as_str().unwrap_or_default().to_owned();
    eprintln!(
        "    status: {} done, {} stale, {} missing; resubmit `{resubmit}`",
        json["done"], json["stale"], json["missing"]
    );
    if !resubmit.split(',').any(|t| t == "1") {
        bail!("status does not list the cancelled task 1 for resubmission: {json}");
    }
    slurm.sbatch(&script, Some(&resubmit))?;
    slurm.wait_idle()?;
    let status = se(bin, &["status", rd]).output()?;
    if !status.status.success() {
        bail!(
            "not every task is done after the resubmission:\n{}\nlogs: {}/logs",
            String::from_utf8_lossy(&status.stdout),
            run_dir.display()
        );
    }
    let merged = dir.join("merged.jsonl");
    crate::venv::run(&mut se(
        bin,
        &["merge", rd, "--into", merged.to_str().context("utf-8")?],
    ))?;
    merged_once_each(bin, cfg, &merged)?;
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
        dir.join("merged.jsonl.manifest.json"),
    )?)?;
    let mut records = 0;
    for t in 0..4 {
        let marker: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(
            run_dir.join(format!("done/{t}.json")),
        )?)?;
        records += marker["records"].as_u64().unwrap_or(0);
    }
    if manifest["records"].as_u64() != Some(records) || records != 40 {
        bail!(
            "the markers count {records} record(s), the merge {}",
            manifest["records"]
        );
    }
    eprintln!("    slurm-check: 40 scenarios once each after a cancelled and a duplicated task");
    Ok(())
}

/// Checks the merged file `merged` holds the 40 scenarios `scenarios CFG --sample 40` plans,
/// each exactly once (shared with `s3-check`).
pub(crate) fn merged_once_each(bin: &Path, cfg: &str, merged: &Path) -> anyhow::Result<()> {
    // Every line, read as the record it must be: an unreadable one counts (as an empty id).
    let ids: Vec<String> = runlog::record::RecordReader::<_, runlog::ScenarioRecord>::open(merged)?
        .map(|r| r.map(|located| located.record.id).unwrap_or_default())
        .collect();
    let unique: HashSet<&String> = ids.iter().collect();
    let planned = se(bin, &["scenarios", cfg, "--sample", "40"]).output()?;
    let planned: HashSet<String> = String::from_utf8(planned.stdout)?
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .and_then(|v| v["id"].as_str().map(str::to_owned))
        })
        .collect();
    if ids.len() != 40 || unique.len() != 40 || unique.iter().any(|id| !planned.contains(*id)) {
        bail!(
            "the merged file has {} record(s), {} distinct, not the 40 planned scenarios once each",
            ids.len(),
            unique.len()
        );
    }
    Ok(())
}
