//! The run directory and its plan (`manifest.json`), created once.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{TaskRunError, create_only, io_err, unix_now};

/// The manifest's file name in the run directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The manifest format this version writes and reads.
pub const MANIFEST_FORMAT: u32 = 1;

/// The most tasks a plan may have (a scheduler array of more is unusual, and `status` reads
/// every marker).
pub const MAX_TASKS: u32 = 100_000;

/// The plan of a task run: which config, which selection, how many tasks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: u32,
    /// The config copy's file name in the run directory (`config-<hash>.<ext>`).
    pub config_file: String,
    /// blake3 of the config's bytes (hex).
    pub config_hash: String,
    /// Scenarios the run selects in all.
    pub scenarios: u64,
    /// Tasks, numbered 0 to `tasks − 1`; task `n` runs shard `n+1/tasks`.
    pub tasks: u32,
    /// `sample` of the selection, when the run is a sample.
    pub sample: Option<u64>,
    /// The selection's seed.
    pub seed: u64,
    /// The version of scenario-engine that planned it.
    pub engine_version: String,
    /// When it was planned (Unix seconds).
    pub planned_unix: u64,
}

impl Manifest {
    /// A new plan (the caller fills `scenarios` from the config).
    #[must_use]
    pub fn new(
        config_hash: String,
        extension: &str,
        scenarios: u64,
        tasks: u32,
        sample: Option<u64>,
        seed: u64,
    ) -> Self {
        let short = &config_hash[..config_hash.len().min(16)];
        Self {
            format: MANIFEST_FORMAT,
            config_file: format!("config-{short}.{extension}"),
            config_hash,
            scenarios,
            tasks,
            sample,
            seed,
            engine_version: env!("CARGO_PKG_VERSION").to_owned(),
            planned_unix: unix_now(),
        }
    }

    /// The selection of task `task`: shard `task+1` of `tasks` of the planned selection.
    ///
    /// # Errors
    /// [`TaskRunError::TaskOutOfRange`].
    pub fn task_selection(&self, task: u64) -> Result<scenarios::Selection, TaskRunError> {
        let shard = u32::try_from(task)
            .ok()
            .filter(|t| *t < self.tasks)
            .and_then(|t| scenarios::Shard::new(u64::from(t) + 1, u64::from(self.tasks)).ok())
            .ok_or(TaskRunError::TaskOutOfRange {
                task,
                tasks: self.tasks,
                last: self.tasks.saturating_sub(1),
            })?;
        Ok(scenarios::Selection {
            shard: Some(shard),
            sample: self.sample,
            seed: self.seed,
            limit: None,
        })
    }

    /// Scenarios of task `task` (0 for an index out of range).
    #[must_use]
    pub fn task_scenarios(&self, task: u32) -> u64 {
        scenarios::Shard::new(u64::from(task) + 1, u64::from(self.tasks))
            .map_or(0, |s| s.share_of(self.scenarios))
    }

    /// A manifest's bytes (read from `path`), checked to be one this version reads.
    pub(crate) fn parse(bytes: &[u8], path: &Path) -> Result<Self, TaskRunError> {
        let manifest: Manifest =
            serde_json::from_slice(bytes).map_err(|e| TaskRunError::Invalid {
                path: path.to_path_buf(),
                what: "manifest",
                reason: e.to_string(),
            })?;
        if manifest.format != MANIFEST_FORMAT || manifest.tasks == 0 {
            return Err(TaskRunError::Invalid {
                path: path.to_path_buf(),
                what: "manifest",
                reason: format!(
                    "format {} with {} task(s) (this version reads format {MANIFEST_FORMAT})",
                    manifest.format, manifest.tasks
                ),
            });
        }
        Ok(manifest)
    }

    /// How this plan differs from `other` in what matters (config, selection, layout), if it does.
    pub(crate) fn difference(&self, other: &Manifest) -> Option<String> {
        if self.config_hash != other.config_hash {
            return Some(format!(
                "config (hash {} vs {})",
                &self.config_hash[..12.min(self.config_hash.len())],
                &other.config_hash[..12.min(other.config_hash.len())]
            ));
        }
        if self.tasks != other.tasks {
            return Some(format!("task count ({} vs {})", self.tasks, other.tasks));
        }
        if (self.sample, self.seed) != (other.sample, other.seed) {
            let sample = |s: Option<u64>| s.map_or("all".to_owned(), |n| n.to_string());
            return Some(format!(
                "selection (sample {} seed {} vs sample {} seed {})",
                sample(self.sample),
                self.seed,
                sample(other.sample),
                other.seed
            ));
        }
        None
    }
}

/// What [`RunDir::plan`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planned {
    /// The directory was planned by this call.
    Created,
    /// It already held this same plan (nothing was changed).
    AlreadyPlanned,
}

/// A planned run directory: a local or shared folder, or an object store mirrored in a local
/// working directory (`root`) where a task runs.
#[derive(Debug, Clone)]
pub struct RunDir {
    root: PathBuf,
    manifest: Manifest,
    /// This process's attempt: the name of its spend ledger (`spend.rs`).
    attempt: String,
    #[cfg(feature = "object-store")]
    remote: Option<std::sync::Arc<super::remote::Remote>>,
}

impl RunDir {
    pub(crate) fn from_parts(
        root: PathBuf,
        manifest: Manifest,
        #[cfg(feature = "object-store")] remote: Option<std::sync::Arc<super::remote::Remote>>,
    ) -> Self {
        let seed = format!(
            "{} {} {:?} {}",
            runlog::lock::host_name(),
            std::process::id(),
            std::time::SystemTime::now(),
            root.display()
        );
        Self {
            root,
            manifest,
            attempt: blake3::hash(seed.as_bytes()).to_hex()[..16].to_owned(),
            #[cfg(feature = "object-store")]
            remote,
        }
    }

    /// This process's attempt id (16 hex digits), unique per opening of the run directory.
    #[must_use]
    pub fn attempt(&self) -> &str {
        &self.attempt
    }

    /// The object store, when the run directory is on one.
    #[cfg(feature = "object-store")]
    pub(crate) fn remote_store(&self) -> Option<&super::remote::Remote> {
        self.remote.as_deref()
    }

    /// Plans the folder `root` with `manifest` and the config's bytes: creates the folders,
    /// writes the config copy, then the manifest — create-only, so two racing plans leave one. A
    /// directory already planned the same way is left as it is; one planned otherwise is refused.
    pub(crate) fn plan_local(
        root: &Path,
        manifest: &Manifest,
        config: &[u8],
    ) -> Result<(Self, Planned), TaskRunError> {
        let has_entries = |d: PathBuf| std::fs::read_dir(d).is_ok_and(|mut e| e.next().is_some());
        if !root.join(MANIFEST_FILE).exists()
            && (has_entries(root.join("parts")) || has_entries(root.join("done")))
        {
            return Err(TaskRunError::Refused(format!(
                "{} holds parts or markers but no plan: they belong to another plan; plan into a \
                 new directory",
                root.display()
            )));
        }
        for dir in [root.to_path_buf(), root.join("parts"), root.join("done")] {
            std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        }
        let config_path = root.join(&manifest.config_file);
        if !config_path.is_file() {
            // Same name, same bytes: a racing plan of the same config writes the same file.
            let tmp = root.join(format!(
                ".{}.tmp-{}",
                manifest.config_file,
                std::process::id()
            ));
            std::fs::write(&tmp, config).map_err(io_err(&tmp))?;
            std::fs::rename(&tmp, &config_path).map_err(io_err(&config_path))?;
        }
        let text = serde_json::to_vec_pretty(manifest).map_err(|e| TaskRunError::Invalid {
            path: root.join(MANIFEST_FILE),
            what: "manifest",
            reason: e.to_string(),
        })?;
        if create_only(&root.join(MANIFEST_FILE), &text)? {
            tracing::info!(dir = %root.display(), tasks = manifest.tasks, "run planned");
            let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
            #[cfg(feature = "object-store")]
            return Ok((
                Self::from_parts(root, manifest.clone(), None),
                Planned::Created,
            ));
            #[cfg(not(feature = "object-store"))]
            return Ok((Self::from_parts(root, manifest.clone()), Planned::Created));
        }
        let existing = Self::open_local(root)?;
        match existing.manifest.difference(manifest) {
            None => Ok((existing, Planned::AlreadyPlanned)),
            Some(difference) => Err(TaskRunError::PlannedOtherwise {
                dir: root.to_path_buf(),
                difference,
            }),
        }
    }

    /// Opens the planned folder `root`.
    pub(crate) fn open_local(root: &Path) -> Result<Self, TaskRunError> {
        let path = root.join(MANIFEST_FILE);
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(TaskRunError::Invalid {
                    path: root.to_path_buf(),
                    what: "run directory",
                    reason: format!(
                        "it has no {MANIFEST_FILE}; plan one with `scenario-engine plan CONFIG \
                         --tasks T --into DIR`"
                    ),
                });
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        let manifest = Manifest::parse(&text, &path)?;
        // Absolute, so the launch files and messages name it from anywhere.
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        #[cfg(feature = "object-store")]
        return Ok(Self::from_parts(root, manifest, None));
        #[cfg(not(feature = "object-store"))]
        Ok(Self::from_parts(root, manifest))
    }

    /// The plan.
    #[must_use]
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The run directory on disk (for a run on an object store, the local working directory
    /// that mirrors it; [`location`](Self::location) names the store).
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The config copy, checked against the manifest's hash.
    ///
    /// # Errors
    /// [`TaskRunError::ConfigChanged`], or an I/O error.
    pub fn config_path(&self) -> Result<PathBuf, TaskRunError> {
        let path = self.root.join(&self.manifest.config_file);
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        let found = config_hash(&bytes);
        if found != self.manifest.config_hash {
            return Err(TaskRunError::ConfigChanged {
                path,
                found,
                planned: self.manifest.config_hash.clone(),
            });
        }
        Ok(path)
    }

    /// Task `task`'s part file (its records and checkpoint).
    #[must_use]
    pub fn part_path(&self, task: u32) -> PathBuf {
        self.root.join("parts").join(format!("{task}.jsonl"))
    }

    /// Task `task`'s completion marker.
    #[must_use]
    pub fn marker_path(&self, task: u32) -> PathBuf {
        self.root.join("done").join(format!("{task}.json"))
    }

    /// Checks `task` is one of the plan's.
    ///
    /// # Errors
    /// [`TaskRunError::TaskOutOfRange`].
    pub fn task(&self, task: u64) -> Result<u32, TaskRunError> {
        self.manifest.task_selection(task)?;
        u32::try_from(task).map_err(|_| TaskRunError::TaskOutOfRange {
            task,
            tasks: self.manifest.tasks,
            last: self.manifest.tasks - 1,
        })
    }
}

/// Plans `into` for the config at `config_path` (loaded as `config`, with the selection flags
/// applied): `tasks` shards of its selection. Refused when the selection has a `shard` or a
/// `limit` (the tasks are the shards; use `sample`).
///
/// # Errors
/// [`TaskRunError::Refused`], [`TaskRunError::PlannedOtherwise`], or an I/O error.
pub fn plan_config(
    config_path: &Path,
    config: &scenarios::ScenarioConfig,
    tasks: u32,
    into: &Path,
) -> Result<(RunDir, Planned), TaskRunError> {
    if config.selection.shard.is_some() || config.selection.limit.is_some() {
        return Err(TaskRunError::Refused(format!(
            "{}: a task run splits the whole selection into tasks itself: drop `shard` and \
             `limit` (flags or config), or use `sample`",
            config_path.display()
        )));
    }
    let scenarios = config.space.selected_count(&config.selection);
    if u64::from(tasks) > scenarios.max(1) || tasks > MAX_TASKS {
        return Err(TaskRunError::Refused(format!(
            "--tasks {tasks} for {scenarios} scenario(s): at most one task per scenario and \
             {MAX_TASKS} tasks"
        )));
    }
    let bytes = std::fs::read(config_path).map_err(io_err(config_path))?;
    let extension = config_path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("yaml");
    let manifest = Manifest::new(
        config_hash(&bytes),
        extension,
        scenarios,
        tasks,
        config.selection.sample,
        config.selection.seed,
    );
    RunDir::plan(into, &manifest, &bytes)
}

impl RunDir {
    /// What was planned, and the commands that come next, for the terminal.
    #[must_use]
    pub fn plan_summary(&self, planned: Planned) -> String {
        let m = &self.manifest;
        let verb = match planned {
            Planned::Created => "planned",
            Planned::AlreadyPlanned => "already planned (unchanged)",
        };
        format!(
            "{verb}: {} scenario(s) in {} task(s) (0–{}, {}–{} scenario(s) each) in {dir}\n\
             run one task:  scenario-engine run {dir} --task N   (or --task auto under a scheduler)\n\
             on Slurm:      scenario-engine launch slurm {dir} --workers W\n\
             on Kubernetes: scenario-engine launch k8s {dir} --workers W --set image=IMAGE\n\
             progress:      scenario-engine status {dir}",
            m.scenarios,
            m.tasks,
            m.tasks - 1,
            m.task_scenarios(m.tasks - 1),
            m.task_scenarios(0),
            dir = self.location()
        )
    }
}

/// The hash the manifest records for a config's bytes.
#[must_use]
pub fn config_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(config: &[u8], tasks: u32) -> Manifest {
        Manifest::new(config_hash(config), "yaml", 10, tasks, None, 0)
    }

    #[test]
    fn a_plan_is_created_once_and_a_different_one_refused() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("run");
        let (run, planned) = RunDir::plan(&root, &manifest(b"a: 1", 4), b"a: 1").expect("plan");
        assert_eq!(planned, Planned::Created);
        assert!(run.config_path().expect("config").is_file());
        let (_, again) = RunDir::plan(&root, &manifest(b"a: 1", 4), b"a: 1").expect("again");
        assert_eq!(again, Planned::AlreadyPlanned);
        let err = RunDir::plan(&root, &manifest(b"a: 2", 4), b"a: 2").expect_err("other config");
        assert!(err.to_string().contains("different config"), "{err}");
        let err = RunDir::plan(&root, &manifest(b"a: 1", 5), b"a: 1").expect_err("other tasks");
        assert!(err.to_string().contains("task count (4 vs 5)"), "{err}");
        // An edited config copy is refused when a task reads it.
        std::fs::write(run.config_path().expect("path"), "a: 3").expect("edit");
        assert!(matches!(
            run.config_path(),
            Err(TaskRunError::ConfigChanged { .. })
        ));
    }

    #[test]
    fn tasks_split_the_selection_into_disjoint_shards() {
        let m = manifest(b"x", 4);
        let total: u64 = (0..4).map(|t| m.task_scenarios(t)).sum();
        assert_eq!(total, 10);
        assert_eq!(m.task_scenarios(0), 3);
        assert_eq!(m.task_scenarios(3), 2);
        assert!(m.task_selection(4).is_err());
        let s = m.task_selection(2).expect("task 2");
        assert_eq!(s.shard.map(|s| s.to_string()), Some("3/4".to_owned()));
    }
}
