//! The files that run a planned directory's tasks on a scheduler users already have: an sbatch
//! script (a Slurm job array) and a Kubernetes Indexed Job. They are rendered, never submitted.

use super::manifest::RunDir;

/// What the rendered job needs beyond the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOptions {
    /// Tasks running at once (Slurm `%N`, Kubernetes `parallelism`); also passed as
    /// `--workers` so each task takes its share of the rate limits.
    pub workers: u32,
    /// Job name.
    pub name: String,
    /// The `scenario-engine` command as the nodes run it (a path, or the name on `PATH`).
    pub binary: String,
    /// Extra flags for `run` (endpoint, model, budget …), already split into words.
    pub run_args: Vec<String>,
    /// Slurm: the time limit of one task (`--time`).
    pub time: String,
    /// Slurm: CPUs per task.
    pub cpus: u32,
    /// Kubernetes: the container image holding `scenario-engine`.
    pub image: String,
    /// Kubernetes: the PersistentVolumeClaim mounted at the run directory's path.
    pub claim: String,
    /// Kubernetes: the Secret whose keys become the container's environment (API keys).
    pub secret: String,
    /// Grace seconds between the stop signal and the kill (Slurm `--signal`, Kubernetes
    /// `terminationGracePeriodSeconds`): a task finishes its scenarios in flight and exits.
    pub grace_secs: u32,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            workers: 4,
            name: "scenario-engine".into(),
            binary: "scenario-engine".into(),
            run_args: Vec::new(),
            time: "04:00:00".into(),
            cpus: 2,
            image: "scenario-engine:latest".into(),
            claim: "scenario-engine-runs".into(),
            secret: "scenario-engine-keys".into(),
            grace_secs: 120,
        }
    }
}

impl LaunchOptions {
    /// The keys [`set`](Self::set) takes.
    pub const KEYS: &'static [&'static str] = &[
        "name",
        "binary",
        "time",
        "cpus",
        "image",
        "claim",
        "secret",
        "grace_secs",
    ];

    /// Sets one option from `key=value` (`launch --set`).
    ///
    /// # Errors
    /// An unknown key (the message lists [`KEYS`](Self::KEYS)), or a number that is not one.
    pub fn set(&mut self, assignment: &str) -> Result<(), String> {
        let (key, value) = assignment
            .split_once('=')
            .ok_or_else(|| format!("--set {assignment:?}: expected KEY=VALUE"))?;
        if value.chars().any(char::is_control) {
            // A newline would end an `#SBATCH` line and start a shell command.
            return Err(format!(
                "--set {key}: the value holds a control character (newline, tab …)"
            ));
        }
        let value = value.to_owned();
        let number = |v: &str| {
            v.parse::<u32>()
                .map_err(|_| format!("--set {key}: {v:?} is not a whole number"))
        };
        match key.trim() {
            "name" => self.name = value,
            "binary" => self.binary = value,
            "time" => self.time = value,
            "cpus" => self.cpus = number(&value)?,
            "image" => self.image = value,
            "claim" => self.claim = value,
            "secret" => self.secret = value,
            "grace_secs" => self.grace_secs = number(&value)?,
            other => {
                return Err(format!(
                    "--set: unknown key {other:?}; the keys are {}",
                    Self::KEYS.join(", ")
                ));
            }
        }
        Ok(())
    }
}

/// Quotes a word for a POSIX shell (single quotes, `'` as `'\''`) unless it is plainly safe.
fn shell_word(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The `run` command of one task, as words.
fn run_words(run: &RunDir, options: &LaunchOptions) -> Vec<String> {
    let mut words = vec![
        options.binary.clone(),
        "run".into(),
        run.location(),
        "--task".into(),
        "auto".into(),
        "--workers".into(),
        options.workers.to_string(),
    ];
    words.extend(options.run_args.iter().cloned());
    words
}

/// An sbatch script: a job array of the plan's tasks (`--array=0-(T-1)%workers`), requeued on
/// node failure or preemption, with a SIGINT `grace_secs` before the time limit so a task stops
/// cleanly (it finishes its scenarios in flight; the next submission resumes its part).
#[must_use]
pub fn slurm_script(run: &RunDir, options: &LaunchOptions) -> String {
    let m = run.manifest();
    let dir = run.location();
    let logs = run.logs_dir().display().to_string();
    let command: Vec<String> = run_words(run, options)
        .iter()
        .map(|w| shell_word(w))
        .collect();
    format!(
        "#!/bin/bash\n\
         # Runs the {tasks} task(s) of {dir} ({scenarios} scenarios) as a Slurm job array.\n\
         # Submit:   sbatch {script}\n\
         # Resubmit what `scenario-engine status {dir}` lists:\n\
         #           sbatch --array=<its spec> {script}\n\
         #SBATCH --job-name={name}\n\
         #SBATCH --array=0-{last}%{workers}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --time={time}\n\
         #SBATCH --requeue\n\
         #SBATCH --signal=B:INT@{grace}\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output={logs_quoted}/%A_%a.log\n\
         set -euo pipefail\n\
         mkdir -p {logs_quoted}\n\
         # The task index comes from SLURM_ARRAY_TASK_ID (`--task auto`). `exec` makes\n\
         # scenario-engine the batch shell, so it receives the SIGINT itself.\n\
         exec {command}\n",
        tasks = m.tasks,
        scenarios = m.scenarios,
        script = shell_word(&run.launch_dir().join("slurm.sbatch").display().to_string()),
        name = shell_word(&options.name),
        last = m.tasks - 1,
        workers = options.workers.max(1),
        cpus = options.cpus.max(1),
        time = shell_word(&options.time),
        grace = options.grace_secs,
        logs_quoted = shell_word(&logs),
        command = command.join(" "),
    )
}

/// A JSON string (YAML accepts JSON scalars), for names and paths in the manifest.
fn yaml_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// A Kubernetes Indexed Job: `completions` = tasks, `parallelism` = workers, the index in
/// `JOB_COMPLETION_INDEX`; `backoffLimitPerIndex` retries each index on its own, and a pod
/// failure policy ignores preemption (a disruption does not count against the index) and fails
/// an index at once on exit code 2 (bad input: retrying cannot help).
#[must_use]
pub fn k8s_job(run: &RunDir, options: &LaunchOptions) -> String {
    let m = run.manifest();
    let dir = run.location();
    let command: Vec<String> = run_words(run, options)
        .iter()
        .map(|w| yaml_str(w))
        .collect();
    // A shared directory is mounted from a claim at its path; a store is reached over the
    // network (its credentials come from the secret, like the API key).
    let volumes = if run.is_remote() {
        String::new()
    } else {
        format!(
            "\x20         volumeMounts:\n\
             \x20           - name: runs\n\
             \x20             mountPath: {dir_yaml}\n\
             \x20     volumes:\n\
             \x20       - name: runs\n\
             \x20         persistentVolumeClaim:\n\
             \x20           claimName: {claim}\n",
            dir_yaml = yaml_str(&dir),
            claim = yaml_str(&options.claim),
        )
    };
    format!(
        "# Runs the {tasks} task(s) of {dir} ({scenarios} scenarios) as a Kubernetes Indexed Job.\n\
         # Needs Kubernetes 1.33+ (backoffLimitPerIndex and podFailurePolicy are GA there).\n\
         # Submit:   kubectl apply -f {job_file}\n\
         # Progress: scenario-engine status {dir}\n\
         apiVersion: batch/v1\n\
         kind: Job\n\
         metadata:\n\
         \x20 name: {name}\n\
         spec:\n\
         \x20 completionMode: Indexed\n\
         \x20 completions: {tasks}\n\
         \x20 parallelism: {workers}\n\
         \x20 backoffLimitPerIndex: 3\n\
         \x20 maxFailedIndexes: {tasks}\n\
         \x20 podFailurePolicy:\n\
         \x20   rules:\n\
         \x20     - action: Ignore\n\
         \x20       onPodConditions:\n\
         \x20         - type: DisruptionTarget\n\
         \x20           status: \"True\"\n\
         \x20     - action: FailIndex\n\
         \x20       onExitCodes:\n\
         \x20         containerName: scenario-engine\n\
         \x20         operator: In\n\
         \x20         values: [2]\n\
         \x20 template:\n\
         \x20   spec:\n\
         \x20     restartPolicy: Never\n\
         \x20     terminationGracePeriodSeconds: {grace}\n\
         \x20     containers:\n\
         \x20       - name: scenario-engine\n\
         \x20         image: {image}\n\
         \x20         command: [{command}]\n\
         \x20         envFrom:\n\
         \x20           - secretRef:\n\
         \x20               name: {secret}\n\
         {volumes}",
        tasks = m.tasks,
        scenarios = m.scenarios,
        name = yaml_str(&k8s_name(&options.name, m.tasks)),
        workers = options.workers.max(1),
        grace = options.grace_secs,
        image = yaml_str(&options.image),
        command = command.join(", "),
        secret = yaml_str(&options.secret),
        job_file = run.launch_dir().join("job.yaml").display(),
    )
}

/// The Job's name from `name`: a DNS-1123 label (lower case, `-` for anything else) short
/// enough that each pod's hostname, `<name>-<index>` for indices below `tasks`, is one too (at
/// most 63 characters), which the API server checks when it creates the pods.
fn k8s_name(name: &str, tasks: u32) -> String {
    let index_digits = tasks.saturating_sub(1).to_string().len();
    let max = 63 - 1 - index_digits;
    let mut out: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    out.truncate(max);
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "scenario-engine".into()
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{Manifest, config_hash};

    fn run_dir(dir: &std::path::Path) -> RunDir {
        let m = Manifest::new(config_hash(b"axes: {t: [a]}"), "yaml", 1000, 8, None, 0);
        RunDir::plan(&dir.join("run"), &m, b"axes: {t: [a]}")
            .expect("plan")
            .0
    }

    #[test]
    fn the_sbatch_script_and_the_job_manifest_render() {
        let dir = tempfile::tempdir().expect("tmp");
        let run = run_dir(dir.path());
        let options = LaunchOptions {
            run_args: vec![
                "--base-url".into(),
                "http://vllm:8000/v1".into(),
                "--model".into(),
                "it's-a-model".into(),
            ],
            ..LaunchOptions::default()
        };
        let root = run.root().display().to_string();
        let script = slurm_script(&run, &options).replace(&root, "RUN_DIR");
        insta::assert_snapshot!("sbatch", script);
        let job = k8s_job(&run, &options).replace(&root, "RUN_DIR");
        insta::assert_snapshot!("k8s_job", job);
        assert_eq!(k8s_name("My Run_1", 4), "my-run-1");
    }

    /// Issue 27: a long name was cut to 63 characters, but an Indexed Job's pods are named
    /// `<name>-<index>` as hostnames, which must be DNS labels too: the API server refused them.
    #[test]
    fn a_long_job_name_leaves_room_for_every_pod_index() {
        let long = "A".repeat(100);
        for tasks in [1, 10, 11, 1000, 1001, u32::MAX] {
            let name = k8s_name(&long, tasks);
            let last = format!("{name}-{}", tasks - 1);
            assert!(last.len() <= 63, "{last}");
            assert!(!name.ends_with('-') && !name.is_empty(), "{name}");
        }
        assert_eq!(k8s_name(&long, 10).len(), 61);
        assert_eq!(
            k8s_name(&format!("{}--x", "a".repeat(59)), 10),
            "a".repeat(59)
        );
    }
}
