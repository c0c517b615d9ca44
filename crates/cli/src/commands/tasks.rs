//! Task runs over a shared run directory (`taskrun`): `plan --tasks T --into DIR`,
//! `run DIR --task N|auto`, `status DIR`, `launch slurm|k8s DIR` and `merge DIR --into FILE`.
//! The protocol, its checks and its texts are the library's; this module maps flags and errors.

use std::path::{Path, PathBuf};

use taskrun::{
    LaunchOptions, RunDir, RunStatus, TaskRunError, finish_task, k8s_job, merge_run, plan_config,
    slurm_script, task_from_flag,
};

use super::run::{self as run_cmd, run_to, watch_ctrl_c};
use super::scenarios::{SelectionArgs, load_selected};
use crate::error::{CliError, CommandResult, Outcome};
use crate::settings::RunSettings;

/// A task-run error as the exit code it deserves: the user's input 2, the machine's 3.
fn cli(e: TaskRunError) -> CliError {
    if e.is_input() {
        CliError::invalid(e)
    } else {
        CliError::run(e)
    }
}

/// `plan CONFIG --tasks T --into DIR`: writes the run directory's plan (create-only).
pub(crate) fn plan_tasks(
    config: &Path,
    selection: &SelectionArgs,
    tasks: u32,
    into: &Path,
) -> CommandResult {
    let loaded = load_selected(config, selection)?;
    let (run, planned) = plan_config(config, &loaded, tasks, into).map_err(cli)?;
    outln!("{}", run.plan_summary(planned));
    Ok(Outcome::Success)
}

/// `run DIR --task N|auto`, as a command.
///
/// # Errors
/// Invalid input (exit 2), or a task that did not complete (exit 3).
pub(crate) fn execute_task(args: run_cmd::Args) -> CommandResult {
    super::block_on(run_task(args))
}

/// What `run DIR --task N|auto` checks before it picks its task, and `launch` before it writes a
/// script: the flags a task may take, the run directory's config and the settings the flags
/// layer over it (ranges, repeats).
fn task_setup(
    args: &run_cmd::Args,
) -> Result<(RunDir, scenarios::ScenarioConfig, RunSettings), CliError> {
    if args.batch && taskrun::url_scheme(&args.config).is_some() {
        return Err(CliError::invalid(
            "--batch with an object-store run directory: the batch state would live in the task's temporary folder, so a stopped task would pay its batches again; use a shared directory",
        ));
    }
    let s = &args.selection;
    if args.out.is_some()
        || s.shard.is_some()
        || s.sample.is_some()
        || s.seed.is_some()
        || s.limit.is_some()
    {
        return Err(CliError::invalid(
            "a task runs its share of the plan into its own part: drop --out, --shard, --sample, --seed and --limit",
        ));
    }
    let run = RunDir::open(&args.config).map_err(cli)?;
    let config = agents::settings::load_config(&run.config_path().map_err(cli)?)?;
    let settings = RunSettings::layered(config.run.as_ref(), None, &run_cmd::flags(args))?;
    Ok((run, config, settings))
}

/// `run DIR --task N|auto`: runs one task into its part, then writes its completion marker.
async fn run_task(args: run_cmd::Args) -> CommandResult {
    let (run, mut config, mut settings) = task_setup(&args)?;
    let task =
        task_from_flag(&run, args.task.as_deref(), |k| std::env::var(k).ok()).map_err(cli)?;
    if let Some(marker) = run.done_marker(task).map_err(cli)? {
        errln!(
            "task {task} is already done ({} record(s)): nothing to do",
            marker.records
        );
        return Ok(Outcome::Success);
    }
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    config.selection = run
        .manifest()
        .task_selection(u64::from(task))
        .map_err(cli)?;
    let part = run.part_path(task);
    settings.share_limits(args.workers.unwrap_or(1));
    settings.cache.journal = run.response_journal(task);
    if let Some(budget) = settings.budget {
        let status = RunStatus::read(&run).map_err(cli)?;
        let (share, said) = status.budget_share(budget, args.workers.unwrap_or(1), task);
        settings.budget = Some(share.map_err(cli)?);
        errln!("{said}");
    }
    // Listening first: a standby stopped while it waits exits 3, not by the signal's default.
    let control = agents::RunControl::default();
    let signals = watch_ctrl_c(control.stop.clone(), control.abort.clone());
    let (every, ttl) = (settings.checkpoint_every, settings.lease_ttl);
    let stopped = || control.stop.is_cancelled();
    let start = tokio::task::block_in_place(|| run.begin_task_until(task, every, ttl, &stopped));
    if start.map_err(cli)? == taskrun::TaskStart::DoneByAnother {
        errln!("task {task} was done by another copy while this one waited: nothing to do");
        return Ok(Outcome::Success);
    }
    let scenarios = run.manifest().task_scenarios(task);
    errln!(
        "task {task}: {scenarios} scenario(s) into {}",
        part.display()
    );
    let stats = std::sync::Arc::new(agents::RunStats::default());
    let spent = stats.clone();
    let ledger = run.keep_spend_ledger(task, every, move || spent.spent());
    let ledger = ledger.map_err(cli)?;
    let outcome = run_to(&config, &settings, &part, args.batch, control, stats).await;
    signals.abort();
    tokio::task::block_in_place(|| ledger.finish());
    let outcome = outcome?;
    let (_, created) = finish_task(&run, task, started).map_err(cli)?;
    errln!("{}", run.finished_words(task, created));
    Ok(outcome)
}

/// Flags of `status`.
#[derive(Debug, clap::Args)]
pub(crate) struct StatusArgs {
    /// The run directory (`plan --tasks T --into DIR`).
    pub run_dir: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `status DIR`: exit 0 when every task is done, 1 while tasks are left.
pub(crate) fn status(args: StatusArgs) -> CommandResult {
    let status = RunStatus::read(&RunDir::open(&args.run_dir).map_err(cli)?).map_err(cli)?;
    if args.json {
        outln!("{}", status.to_json());
    } else {
        out!("{}", status.render_text(&args.run_dir));
    }
    Ok(if status.is_complete() {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// `launch`'s scheduler.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum Scheduler {
    /// An sbatch script: a Slurm job array.
    Slurm,
    /// A Kubernetes Indexed Job manifest.
    K8s,
}

/// Flags of `launch` (see docs/scale-out.md).
#[derive(Debug, clap::Args)]
pub(crate) struct LaunchArgs {
    /// slurm or k8s.
    #[arg(value_enum)]
    pub scheduler: Scheduler,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Tasks at once; each task gets 1/N of rpm and tpm.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub workers: u32,
    /// KEY=VALUE, repeatable: name, binary, time, cpus (Slurm), image, claim, secret (Kubernetes),
    /// grace_secs.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Flags for every task's `run`, after `--`.
    #[arg(last = true)]
    pub run_args: Vec<String>,
}

impl LaunchArgs {
    /// What every task runs (`run DIR --task auto …`, as `taskrun::launch` writes it), for
    /// checking the flags given after `--` against `run`'s.
    pub(crate) fn task_run_words(&self) -> Vec<String> {
        [
            "run".to_owned(),
            self.run_dir.display().to_string(),
            "--task".to_owned(),
            "auto".to_owned(),
            "--workers".to_owned(),
            self.workers.to_string(),
        ]
        .into_iter()
        .chain(self.run_args.iter().cloned())
        .collect()
    }
}

/// `launch slurm|k8s DIR`: writes `DIR/launch/slurm.sbatch` or `DIR/launch/job.yaml`, prints it,
/// never submits.
/// `task`: what every task runs, as parsed, checked here as `run DIR --task auto` checks it.
pub(crate) fn launch(a: LaunchArgs, task: &run_cmd::Args) -> CommandResult {
    let (run, _, _) = task_setup(task)?;
    let mut o = LaunchOptions {
        workers: a.workers,
        run_args: a.run_args,
        ..LaunchOptions::default()
    };
    for assignment in &a.set {
        o.set(assignment).map_err(CliError::invalid)?;
    }
    let (text, file, submit) = match a.scheduler {
        Scheduler::Slurm => (slurm_script(&run, &o), "slurm.sbatch", "sbatch"),
        Scheduler::K8s => (k8s_job(&run, &o), "job.yaml", "kubectl apply -f"),
    };
    // Slurm opens `--output` before the script runs: its folder must exist at submission.
    for dir in [run.launch_dir(), run.logs_dir()] {
        std::fs::create_dir_all(&dir).map_err(|e| CliError::write(&dir, e))?;
    }
    let path = run.launch_dir().join(file);
    std::fs::write(&path, &text).map_err(|e| CliError::write(&path, e))?;
    out!("{text}");
    errln!(
        "wrote {}; submit with: {submit} {}",
        path.display(),
        path.display()
    );
    Ok(Outcome::Success)
}

/// `merge DIR --into FILE`: the marked parts, checked and streamed into one file.
pub(crate) fn merge_dir(run_dir: &Path, into: &Path) -> CommandResult {
    let report = merge_run(&RunDir::open(run_dir).map_err(cli)?, into).map_err(|e| match e {
        TaskRunError::Io { path, source } if path == into => CliError::write(path, source),
        e => cli(e),
    })?;
    outln!("{}", report.summary(into));
    Ok(Outcome::Success)
}
