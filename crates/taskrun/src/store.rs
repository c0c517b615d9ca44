//! Where a run directory lives — a local or shared path, or an object store ([`super::remote`],
//! feature `object-store`) — and the operations of the protocol that differ between the two:
//! planning and opening, reading markers, fetching the part a marker names, a task's start and
//! the progress of an unfinished task. `status`, `merge` and `run` go through these, so both
//! locations share one code path for the checks.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::TaskRunError;
use super::manifest::{MANIFEST_FILE, Manifest, Planned, RunDir};
use super::marker::{Marker, partial_totals};
use super::status::TaskState;

/// The scheme of a run location given as a URL (`s3` for `s3://b/run`); `None` for a path.
#[must_use]
pub fn url_scheme(location: &Path) -> Option<&str> {
    let (scheme, _) = location.to_str()?.split_once("://")?;
    // Two letters at least, so a Windows drive (`C:`) is never a scheme.
    (scheme.len() >= 2 && scheme.chars().all(|c| c.is_ascii_alphanumeric())).then_some(scheme)
}

/// Store schemes, and ones a URL-like argument most likely meant.
const URL_SCHEMES: &[&str] = &[
    "s3", "s3a", "gs", "az", "abfs", "abfss", "adl", "azure", "http", "https", "file",
];

/// Refuses a path that is a URL or looks like a mistyped one (`s3:/bucket/x`, `gs:bucket`):
/// `what` (an output file, a run directory) is a local path here, and writing it under a folder
/// named `s3:` would look like success.
///
/// # Errors
/// [`TaskRunError::Refused`] naming the path and what to do instead.
pub fn refuse_url(path: &Path, what: &str) -> Result<(), TaskRunError> {
    let text = path.to_string_lossy();
    // `s3:/bucket`, `gs:bucket/x`: a store scheme and a colon before any separator.
    let looks_like_url = url_scheme(path).is_some()
        || text.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.contains(['/', '\\'])
                && URL_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str())
        });
    if looks_like_url {
        return Err(TaskRunError::Refused(format!(
            "{}: {what} is a local path here, and this looks like a URL; write it locally and \
             copy it to the store (e.g. `aws s3 cp`), or fix the URL (`s3://bucket/prefix`)",
            stdx::redact_url(&text)
        )));
    }
    Ok(())
}

/// A part as a local file: the shared directory's own, or a download from the store that is
/// removed when this is dropped.
#[derive(Debug)]
pub(crate) enum LocalPart {
    /// The part in a local or shared run directory.
    Shared(PathBuf),
    /// A downloaded copy.
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    Fetched(tempfile::TempPath),
}

impl LocalPart {
    pub(crate) fn path(&self) -> &Path {
        match self {
            Self::Shared(p) => p,
            Self::Fetched(p) => p,
        }
    }
}

#[cfg(not(feature = "object-store"))]
fn no_object_store(location: &Path) -> TaskRunError {
    TaskRunError::Refused(format!(
        "{}: this build of scenario-engine has no object-store support (cargo feature \
         `object-store`); use a local or shared directory",
        stdx::redact_url(&location.to_string_lossy())
    ))
}

impl RunDir {
    /// Whether `location` is a run directory: a folder holding a manifest, or any URL (an
    /// object store is asked only when it is opened).
    #[must_use]
    pub fn is_run_dir(location: &Path) -> bool {
        url_scheme(location).is_some() || location.join(MANIFEST_FILE).is_file()
    }

    /// Plans `location` (a path or an object-store URL) with `manifest` and the config's bytes:
    /// the config copy, then the manifest, both create-only, so two racing plans leave one. A
    /// location already planned the same way is left as it is; one planned otherwise is refused.
    ///
    /// # Errors
    /// [`TaskRunError::PlannedOtherwise`], a location that holds parts or markers but no plan,
    /// a bad URL, or an I/O or store error.
    pub fn plan(
        location: &Path,
        manifest: &Manifest,
        config: &[u8],
    ) -> Result<(Self, Planned), TaskRunError> {
        if url_scheme(location).is_none() {
            refuse_url(location, "a run directory")?;
            return Self::plan_local(location, manifest, config);
        }
        #[cfg(not(feature = "object-store"))]
        return Err(no_object_store(location));
        #[cfg(feature = "object-store")]
        Self::plan_on(
            super::remote::Remote::connect(&location.to_string_lossy())?,
            manifest,
            config,
        )
    }

    /// [`plan`](Self::plan) on an object store.
    #[cfg(feature = "object-store")]
    pub(crate) fn plan_on(
        remote: super::remote::Remote,
        manifest: &Manifest,
        config: &[u8],
    ) -> Result<(Self, Planned), TaskRunError> {
        let text = serde_json::to_vec_pretty(manifest).map_err(|e| TaskRunError::Invalid {
            path: PathBuf::from(remote.label(MANIFEST_FILE)),
            what: "manifest",
            reason: e.to_string(),
        })?;
        if remote.get(MANIFEST_FILE)?.is_none()
            && (remote.has_objects_under("parts")? || remote.has_objects_under("done")?)
        {
            return Err(TaskRunError::Refused(format!(
                "{} holds parts or markers but no plan: they belong to another plan; plan \
                 into a new prefix",
                remote.url()
            )));
        }
        // Same name, same bytes: a racing plan of the same config writes the same object.
        remote.create(&manifest.config_file, config.to_vec())?;
        if remote.create(MANIFEST_FILE, text)? {
            tracing::info!(url = remote.url(), tasks = manifest.tasks, "run planned");
            return Ok((Self::remote(manifest.clone(), remote)?, Planned::Created));
        }
        let existing = Self::open_on(remote)?;
        match existing.manifest().difference(manifest) {
            None => Ok((existing, Planned::AlreadyPlanned)),
            Some(difference) => Err(TaskRunError::PlannedOtherwise {
                dir: PathBuf::from(existing.location()),
                difference,
            }),
        }
    }

    /// Opens a planned run directory: a path, or an object-store URL (its manifest and config
    /// are downloaded into a local working directory, where a task runs).
    ///
    /// # Errors
    /// An unreadable or invalid manifest, a bad URL, or a store error.
    pub fn open(location: &Path) -> Result<Self, TaskRunError> {
        if url_scheme(location).is_none() {
            return Self::open_local(location);
        }
        #[cfg(not(feature = "object-store"))]
        return Err(no_object_store(location));
        #[cfg(feature = "object-store")]
        Self::open_on(super::remote::Remote::connect(&location.to_string_lossy())?)
    }

    /// [`open`](Self::open) on an object store.
    #[cfg(feature = "object-store")]
    pub(crate) fn open_on(remote: super::remote::Remote) -> Result<Self, TaskRunError> {
        let bytes = remote
            .get(MANIFEST_FILE)?
            .ok_or_else(|| TaskRunError::Invalid {
                path: PathBuf::from(remote.url()),
                what: "run directory",
                reason: format!(
                    "it has no {MANIFEST_FILE}; plan one with `scenario-engine plan CONFIG \
                 --tasks T --into URL`"
                ),
            })?;
        let manifest = Manifest::parse(&bytes, &PathBuf::from(remote.label(MANIFEST_FILE)))?;
        Self::remote(manifest, remote)
    }

    /// A run directory on a store, its manifest and config copy mirrored in the working
    /// directory.
    #[cfg(feature = "object-store")]
    fn remote(manifest: Manifest, remote: super::remote::Remote) -> Result<Self, TaskRunError> {
        let stage = remote.stage().to_path_buf();
        let text = serde_json::to_vec_pretty(&manifest).map_err(|e| TaskRunError::Invalid {
            path: stage.join(MANIFEST_FILE),
            what: "manifest",
            reason: e.to_string(),
        })?;
        std::fs::write(stage.join(MANIFEST_FILE), text).map_err(super::io_err(&stage))?;
        let config = stage.join(&manifest.config_file);
        if !remote.download(&manifest.config_file, &config)? {
            return Err(TaskRunError::Invalid {
                path: PathBuf::from(remote.label(&manifest.config_file)),
                what: "run directory",
                reason: "the plan's config copy is missing".into(),
            });
        }
        Ok(Self::from_parts(
            stage,
            manifest,
            Some(std::sync::Arc::new(remote)),
        ))
    }

    /// The run directory as the user named it: its path, or its URL.
    #[must_use]
    pub fn location(&self) -> String {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            return remote.url().to_owned();
        }
        self.root().display().to_string()
    }

    /// Whether the run directory is on an object store.
    #[must_use]
    pub fn is_remote(&self) -> bool {
        #[cfg(feature = "object-store")]
        return self.remote_store().is_some();
        #[cfg(not(feature = "object-store"))]
        false
    }

    /// Where `launch` writes its files: `launch/` in a shared run directory; for a run on an
    /// object store, `launch/` in the current directory.
    #[must_use]
    pub fn launch_dir(&self) -> PathBuf {
        self.beside("launch")
    }

    /// Where Slurm writes the tasks' logs: `logs/` beside [`launch_dir`](Self::launch_dir).
    #[must_use]
    pub fn logs_dir(&self) -> PathBuf {
        self.beside("logs")
    }

    fn beside(&self, name: &str) -> PathBuf {
        if self.is_remote() {
            std::env::current_dir().unwrap_or_default().join(name)
        } else {
            self.root().join(name)
        }
    }

    /// Where task `task`'s marker is (a path or a URL), for messages.
    #[must_use]
    pub fn marker_label(&self, task: u32) -> String {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            return remote.label(&format!("done/{task}.json"));
        }
        self.marker_path(task).display().to_string()
    }

    /// The line that says task `task` ended: done by this copy (`created`, the marker is its),
    /// or by another copy meanwhile.
    #[must_use]
    pub fn finished_words(&self, task: u32, created: bool) -> String {
        let verb = if created {
            "done"
        } else {
            "was marked done by another copy meanwhile"
        };
        format!("task {task} {verb}: {}", self.marker_label(task))
    }

    /// Where the part `marker` vouches for is (a path or a URL), for messages.
    #[must_use]
    pub fn part_label(&self, marker: &Marker) -> String {
        #[cfg(feature = "object-store")]
        if let (Some(remote), Some(part)) = (self.remote_store(), &marker.part) {
            return remote.label(part);
        }
        self.part_path(marker.task).display().to_string()
    }

    /// Task `task`'s marker; `None` when there is none.
    ///
    /// # Errors
    /// An unreadable or invalid marker.
    pub fn read_marker(&self, task: u32) -> Result<Option<Marker>, TaskRunError> {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            let rel = format!("done/{task}.json");
            return remote.get(&rel)?.map_or(Ok(None), |bytes| {
                Marker::parse(&bytes, &PathBuf::from(remote.label(&rel))).map(Some)
            });
        }
        Marker::read(&self.marker_path(task))
    }

    /// Whether the part `marker` names is still there.
    ///
    /// # Errors
    /// A store error.
    pub(crate) fn marked_part_exists(&self, marker: &Marker) -> Result<bool, TaskRunError> {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            let Some(part) = &marker.part else {
                return Ok(false);
            };
            return Ok(remote.age(part)?.is_some());
        }
        Ok(self.part_path(marker.task).is_file())
    }

    /// The part `marker` vouches for, as a local file (downloaded from a store).
    ///
    /// # Errors
    /// A part that is gone, or an I/O or store error.
    pub(crate) fn fetch_part(&self, marker: &Marker) -> Result<LocalPart, TaskRunError> {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            let gone = || TaskRunError::Invalid {
                path: PathBuf::from(self.marker_label(marker.task)),
                what: "marker",
                reason: "the part it names is gone".into(),
            };
            let part = marker.part.as_deref().ok_or_else(gone)?;
            let tmp = tempfile::NamedTempFile::new_in(remote.stage())
                .map_err(super::io_err(remote.stage()))?
                .into_temp_path();
            if !remote.download(part, &tmp)? {
                return Err(gone());
            }
            return Ok(LocalPart::Fetched(tmp));
        }
        Ok(LocalPart::Shared(self.part_path(marker.task)))
    }

    /// Task `task`'s marker when it is done (the task has nothing to do); `None` when it is to
    /// run. A marker that cannot be trusted (unreadable, another plan's, its part gone) is an
    /// error that says to remove it.
    ///
    /// # Errors
    /// [`TaskRunError::StaleMarker`], or a store error.
    pub fn done_marker(&self, task: u32) -> Result<Option<Marker>, TaskRunError> {
        let stale = |reason: String| TaskRunError::StaleMarker {
            marker: self.marker_label(task),
            task,
            reason,
        };
        let marker = match self.read_marker(task) {
            Ok(m) => m,
            Err(e @ TaskRunError::Store { .. }) => return Err(e),
            Err(e) => return Err(stale(e.to_string())),
        };
        let Some(marker) = marker else {
            return Ok(None);
        };
        if let Some(why) = marker.foreign_to(self.manifest(), task) {
            return Err(stale(why));
        }
        if !self.marked_part_exists(&marker)? {
            return Err(stale("its part is gone".into()));
        }
        Ok(Some(marker))
    }

    /// Gets task `task` ready to run in [`part_path`](Self::part_path): on a store, its
    /// checkpoint (if any) becomes the local part, and the part is uploaded as the checkpoint
    /// every `checkpoint_every` while it grows and once more if the task stops short. Nothing to
    /// do for a shared directory (the part is its own checkpoint).
    ///
    /// # Errors
    /// A store or I/O error.
    pub fn begin_task(
        &self,
        task: u32,
        checkpoint_every: Duration,
        lease_ttl: Duration,
    ) -> Result<super::TaskStart, TaskRunError> {
        self.begin_task_until(task, checkpoint_every, lease_ttl, &|| false)
    }

    /// [`RunDir::begin_task`], where a standby's wait for another copy's lease ends once
    /// `stopped` says so (a signal), checked every 100 ms.
    ///
    /// # Errors
    /// A store or I/O error; [`TaskRunError::Stopped`] when `stopped` ended the wait.
    pub fn begin_task_until(
        &self,
        task: u32,
        checkpoint_every: Duration,
        lease_ttl: Duration,
        stopped: &(dyn Fn() -> bool + Sync),
    ) -> Result<super::TaskStart, TaskRunError> {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            return remote.begin(
                task,
                &self.part_path(task),
                (checkpoint_every, lease_ttl),
                stopped,
            );
        }
        let _ = (task, checkpoint_every, lease_ttl, stopped);
        Ok(super::TaskStart::Started)
    }

    /// Where task `task`'s model client journals its cached responses, when the run directory
    /// is on an object store: the journal travels beside the checkpoint, so the answered calls
    /// of unfinished scenarios are not paid again by a rerun (`carry.rs`). `None` for a shared
    /// directory, whose response cache (beside the parts) outlives every task already.
    #[must_use]
    pub fn response_journal(&self, task: u32) -> Option<PathBuf> {
        #[cfg(feature = "object-store")]
        if self.remote_store().is_some() {
            return Some(super::remote::Remote::journal_of(&self.part_path(task)));
        }
        let _ = task;
        None
    }

    /// The state of task `task`, which has no marker: running, stale or missing (a shared
    /// directory: the part's lock and records); checkpointed or missing (a store).
    ///
    /// # Errors
    /// An unreadable part or lock, or a store error.
    pub(crate) fn unfinished(&self, task: u32) -> Result<TaskState, TaskRunError> {
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            let rel = super::remote::Remote::checkpoint(task);
            let lease = remote.live_lease(task)?;
            let age = remote.age(&rel)?;
            let totals = if age.is_some() {
                let tmp = tempfile::NamedTempFile::new_in(remote.stage())
                    .map_err(super::io_err(remote.stage()))?
                    .into_temp_path();
                remote.download(&rel, &tmp)?;
                partial_totals(&tmp)?
            } else {
                super::PartTotals::default()
            };
            // A live lease: the task is running (its checkpoint, if any, is its progress).
            return Ok(match (lease, age) {
                (Some(held), _) => TaskState::Running {
                    holder: format!("{}, lease renewed {} s ago", held.holder, held.age_secs),
                    records: totals.records,
                    cost_usd: totals.cost_usd,
                },
                (None, Some(age_secs)) => TaskState::Checkpointed {
                    records: totals.records,
                    cost_usd: totals.cost_usd,
                    age_secs,
                },
                (None, None) => TaskState::Missing,
            });
        }
        let part = self.part_path(task);
        let holder = runlog::lock::holder(&part).map_err(|e| TaskRunError::Io {
            path: part.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let totals = if part.is_file() {
            Some(partial_totals(&part)?)
        } else {
            None
        };
        Ok(match (holder, totals) {
            (Some(holder), totals) => {
                let totals = totals.unwrap_or_default();
                TaskState::Running {
                    holder,
                    records: totals.records,
                    cost_usd: totals.cost_usd,
                }
            }
            (None, Some(totals)) => TaskState::Stale {
                records: totals.records,
                cost_usd: totals.cost_usd,
            },
            (None, None) => TaskState::Missing,
        })
    }
}

#[cfg(all(test, feature = "object-store"))]
mod tests {
    use std::sync::{Arc, Barrier};

    use object_store::ObjectStore;

    use super::super::marker::finish_task;
    use super::super::remote::Remote;
    use super::super::{RunStatus, TaskStart, merge_run};
    use super::*;

    const CONFIG: &[u8] = b"axes: {t: [a, b, c, d]}";
    /// Leases of tests live 2 s (renewed every 500 ms).
    const TTL: Duration = Duration::from_secs(2);

    fn manifest() -> Manifest {
        // 4 scenarios in 2 tasks of 2.
        Manifest::new(
            super::super::manifest::config_hash(CONFIG),
            "yaml",
            4,
            2,
            None,
            0,
        )
    }

    fn open(store: &Arc<dyn ObjectStore>) -> RunDir {
        let remote =
            Remote::with_store(Arc::clone(store), "runs/r", "s3://b/runs/r").expect("remote");
        RunDir::open_on(remote).expect("open")
    }

    fn planned(store: &Arc<dyn ObjectStore>) -> RunDir {
        let remote =
            Remote::with_store(Arc::clone(store), "runs/r", "s3://b/runs/r").expect("remote");
        RunDir::plan_on(remote, &manifest(), CONFIG)
            .expect("plan")
            .0
    }

    /// Issue 27: a running task holds a lease, so `status` shows it running and never lists it
    /// for resubmission, and a second copy does not run it alongside: it waits as a standby and
    /// starts (from the checkpoint) once the holder stops short and releases the lease.
    #[test]
    fn a_running_task_holds_a_lease_that_status_and_a_second_copy_respect() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let run = planned(&store);
        let first = open(&store);
        assert_eq!(
            first
                .begin_task(0, Duration::from_secs(3600), TTL)
                .expect("begin"),
            TaskStart::Started
        );
        let status = RunStatus::read(&run).expect("status");
        assert!(
            matches!(&status.tasks[0].state, TaskState::Running { holder, .. } if holder.contains("lease renewed")),
            "{:?}",
            status.tasks[0].state
        );
        assert_eq!(status.resubmit_spec(), "1");
        write_part(&first, 0, &["a"]);
        let second = open(&store);
        let started = std::thread::scope(|s| {
            let waiting = s.spawn(|| second.begin_task(0, Duration::from_secs(3600), TTL));
            // Several TTLs: the holder renews, so the standby keeps waiting.
            std::thread::sleep(3 * TTL);
            assert!(
                !waiting.is_finished(),
                "the second copy started beside a live holder"
            );
            // Stopping short uploads the checkpoint and releases the lease.
            drop(first);
            waiting.join().expect("standby")
        });
        assert_eq!(started.expect("begin"), TaskStart::Started);
        assert_eq!(
            std::fs::read_to_string(second.part_path(0))
                .expect("resumed from the checkpoint")
                .lines()
                .count(),
            1
        );
    }

    /// A copy killed with its lease still up holds the task until the lease expires, then the
    /// next copy takes it; a copy that waits while the holder finishes has nothing to do.
    #[test]
    fn an_expired_lease_is_taken_over_and_a_finished_holder_ends_the_wait() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let run = planned(&store);
        // A copy killed with SIGKILL: its last lease stays, never renewed nor released.
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        let lease = remote.stage().join("lease.json");
        std::fs::write(&lease, r#"{"attempt":"dead","host":"h","pid":1}"#).expect("write");
        remote.upload("leases/1.json", &lease).expect("upload");
        assert!(matches!(
            RunStatus::read(&run).expect("status").tasks[1].state,
            TaskState::Running { .. }
        ));
        let next = open(&store);
        assert_eq!(
            next.begin_task(1, Duration::from_secs(3600), TTL)
                .expect("taken over"),
            TaskStart::Started
        );
        drop(next);
        let holder = open(&store);
        holder
            .begin_task(0, Duration::from_secs(3600), TTL)
            .expect("begin");
        write_part(&holder, 0, &["a", "b"]);
        let waiter = open(&store);
        let start = std::thread::scope(|s| {
            let waiting = s.spawn(|| waiter.begin_task(0, Duration::from_secs(3600), TTL));
            std::thread::sleep(Duration::from_millis(500));
            assert!(finish_task(&holder, 0, 1).expect("finish").1);
            waiting.join().expect("waiter")
        });
        assert_eq!(start.expect("no error"), TaskStart::DoneByAnother);
        assert!(run.done_marker(0).expect("read").is_some());
    }

    #[test]
    fn a_standby_told_to_stop_while_it_waits_ends_stopped_having_run_nothing() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        RunDir::plan_on(remote, &manifest(), CONFIG).expect("plan");
        let holder = open(&store);
        holder
            .begin_task(0, Duration::from_secs(3600), TTL)
            .expect("begin");
        // The stop comes once the standby has met the live lease (its second check).
        let checks = std::sync::atomic::AtomicU32::new(0);
        let stopped = || checks.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 1;
        let standby = open(&store);
        let err = standby
            .begin_task_until(0, Duration::from_secs(3600), TTL, &stopped)
            .expect_err("stopped");
        assert!(matches!(err, TaskRunError::Stopped(0)), "{err}");
        assert!(!err.is_input(), "a stopped run is exit 3");
        assert!(!standby.part_path(0).exists(), "no checkpoint was taken");
        assert!(holder.done_marker(0).expect("read").is_none());
    }

    fn write_part(run: &RunDir, task: u32, ids: &[&str]) {
        let lines: String = ids
            .iter()
            .map(|id| format!("{{\"id\":\"{id}\",\"accepted\":true,\"cost_usd\":0.25}}\n"))
            .collect();
        std::fs::write(run.part_path(task), lines).expect("part");
    }

    fn names(store: &Arc<dyn ObjectStore>, under: &str) -> Vec<String> {
        let remote =
            Remote::with_store(Arc::clone(store), "runs/r", "s3://b/runs/r").expect("remote");
        remote.list_names(under).expect("list")
    }

    #[test]
    fn plan_is_create_only_and_a_different_plan_is_refused() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let remote =
            || Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        let (run, planned) = RunDir::plan_on(remote(), &manifest(), CONFIG).expect("plan");
        assert_eq!(planned, Planned::Created);
        assert!(run.is_remote());
        assert_eq!(run.location(), "s3://b/runs/r");
        // The task reads the config from the working directory, checked against the plan.
        assert!(run.config_path().expect("config copy").is_file());
        let (_, again) = RunDir::plan_on(remote(), &manifest(), CONFIG).expect("again");
        assert_eq!(again, Planned::AlreadyPlanned);
        let other = Manifest::new(
            super::super::manifest::config_hash(b"x"),
            "yaml",
            4,
            2,
            None,
            0,
        );
        let err = RunDir::plan_on(remote(), &other, b"x").expect_err("other config");
        assert!(err.to_string().contains("different config"), "{err}");
        assert!(
            err.to_string().starts_with("s3://b/runs/r was planned"),
            "{err}"
        );
    }

    #[test]
    fn two_racers_for_one_task_leave_one_marker_and_one_part() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        RunDir::plan_on(remote, &manifest(), CONFIG).expect("plan");
        // Leases that are never live (a zero TTL): as for copies that replaced one expired
        // lease at once, both run and the marker decides.
        let racers: Vec<RunDir> = (0..2).map(|_| open(&store)).collect();
        for run in &racers {
            assert!(run.done_marker(0).expect("read").is_none());
            run.begin_task(0, std::time::Duration::from_secs(3600), Duration::ZERO)
                .expect("begin");
            write_part(run, 0, &["a", "b"]);
        }
        let barrier = Barrier::new(2);
        let created: Vec<bool> = std::thread::scope(|s| {
            let handles: Vec<_> = racers
                .iter()
                .map(|run| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        barrier.wait();
                        finish_task(run, 0, 1).expect("finish").1
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("racer"))
                .collect()
        });
        assert_eq!(created.iter().filter(|c| **c).count(), 1, "{created:?}");
        assert_eq!(names(&store, "done"), ["done/0.json"]);
        let parts = names(&store, "parts");
        assert_eq!(parts.len(), 1, "{parts:?}");
        assert!(names(&store, "checkpoints").is_empty());
        let marker = racers[0].done_marker(0).expect("read").expect("done");
        assert_eq!(marker.part.as_deref(), Some(parts[0].as_str()));
        assert_eq!(marker.records, 2);
    }

    #[test]
    fn the_responses_of_unfinished_scenarios_travel_beside_the_checkpoint() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        let (_run, _) = RunDir::plan_on(remote, &manifest(), CONFIG).expect("plan");
        let (c, d) = (
            "{\"scenario\":\"c\",\"key\":\"k1\"}",
            "{\"scenario\":\"d\",\"key\":\"k2\"}",
        );
        {
            // Scenario c is recorded, d had an answered call when the task stopped.
            let first = open(&store);
            first
                .begin_task(1, Duration::from_secs(3600), TTL)
                .expect("begin");
            let journal = first.response_journal(1).expect("a store's task journals");
            std::fs::write(&journal, format!("{c}\n{d}\n")).expect("journal");
            write_part(&first, 1, &["c"]);
        }
        assert_eq!(
            names(&store, "checkpoints"),
            ["checkpoints/1.cache.jsonl", "checkpoints/1.jsonl"]
        );
        // The next copy gets back the responses of d only.
        let second = open(&store);
        second
            .begin_task(1, Duration::from_secs(3600), TTL)
            .expect("begin");
        let journal = second.response_journal(1).expect("journal");
        assert_eq!(
            std::fs::read_to_string(&journal).expect("restored"),
            format!("{d}\n")
        );
        write_part(&second, 1, &["c", "d"]);
        assert!(finish_task(&second, 1, 1).expect("finish").1);
        assert!(
            names(&store, "checkpoints").is_empty(),
            "a done task leaves no journal"
        );
        // A shared directory's cache outlives its tasks: no journal there.
        let dir = tempfile::tempdir().expect("tmp");
        let (local, _) = RunDir::plan(dir.path(), &manifest(), CONFIG).expect("plan");
        assert_eq!(local.response_journal(0), None);
    }

    #[test]
    fn a_stopped_task_resumes_from_its_checkpoint_and_status_and_merge_read_the_store() {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        let (run, _) = RunDir::plan_on(remote, &manifest(), CONFIG).expect("plan");
        let status = RunStatus::read(&run).expect("status");
        assert_eq!(
            (status.missing(), status.resubmit_spec().as_str()),
            (2, "0-1")
        );
        // Task 1 writes one record and stops: dropping its run directory uploads the checkpoint.
        {
            let first = open(&store);
            first
                .begin_task(1, std::time::Duration::from_secs(3600), TTL)
                .expect("begin");
            write_part(&first, 1, &["c"]);
            let err = finish_task(&first, 1, 1).expect_err("short");
            assert!(
                matches!(err, TaskRunError::Unfinished { records: 1, .. }),
                "{err}"
            );
        }
        assert_eq!(names(&store, "checkpoints"), ["checkpoints/1.jsonl"]);
        let status = RunStatus::read(&run).expect("status");
        assert!(matches!(
            status.tasks[1].state,
            TaskState::Checkpointed { records: 1, .. }
        ));
        assert_eq!(status.resubmit_spec(), "0-1");
        assert!(
            status
                .render_text(Path::new("s3://b/runs/r"))
                .contains("task 1: checkpointed (1/2")
        );
        // The next copy starts from the checkpoint.
        let second = open(&store);
        second
            .begin_task(1, std::time::Duration::from_secs(3600), TTL)
            .expect("begin");
        assert_eq!(
            std::fs::read_to_string(second.part_path(1))
                .expect("resumed")
                .lines()
                .count(),
            1
        );
        write_part(&second, 1, &["c", "d"]);
        assert!(finish_task(&second, 1, 1).expect("finish").1);
        let zero = open(&store);
        zero.begin_task(0, std::time::Duration::from_secs(3600), TTL)
            .expect("begin");
        write_part(&zero, 0, &["a", "b"]);
        assert!(finish_task(&zero, 0, 1).expect("finish").1);
        let status = RunStatus::read(&run).expect("status");
        assert!(status.is_complete());
        assert!((status.spend_usd() - 1.0).abs() < 1e-9);
        let out = tempfile::tempdir().expect("tmp");
        let into = out.path().join("merged.jsonl");
        let report = merge_run(&run, &into).expect("merge");
        assert_eq!(report.records, 4);
        assert_eq!(report.run_dir, PathBuf::from("s3://b/runs/r"));
        let merged = std::fs::read_to_string(&into).expect("merged");
        let ids: Vec<&str> = merged.lines().map(|l| &l[7..8]).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        // A part changed after its marker fails the merge.
        let marker = run.read_marker(1).expect("read").expect("marker");
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/r", "s3://b/runs/r").expect("remote");
        let edited = remote.stage().join("edited.jsonl");
        std::fs::write(&edited, "{\"id\":\"c\"}\n{\"id\":\"x\"}\n").expect("write");
        remote
            .upload(marker.part.as_deref().expect("named"), &edited)
            .expect("upload");
        let err = merge_run(&run, &into).expect_err("edited part");
        assert!(matches!(err, TaskRunError::PartMismatch { .. }), "{err}");
        assert!(err.to_string().contains("s3://b/runs/r/parts/1/"), "{err}");
    }
}
