//! Run directories on an object store (`s3://`, `gs://`, `az://`; feature `object-store`): the
//! same plan, markers and parts as a shared directory, with the store's conditional create
//! (`If-None-Match: *`) in place of the hard link.
//!
//! ```text
//! URL/
//!   manifest.json            the plan (create-only)
//!   config-<hash>.<ext>      the config copy (create-only)
//!   checkpoints/N.jsonl      task N's part so far, overwritten while it runs (its resume point)
//!   checkpoints/N.cache.jsonl  the cached responses of its scenarios the checkpoint lacks
//!   leases/N.json            task N's lease, renewed while a copy runs it
//!   parts/N/<attempt>.jsonl  task N's finished part, one name per attempt
//!   done/N.json              task N's marker (create-only), naming the part it vouches for
//! ```
//!
//! A task runs in a local working directory (a temporary folder under `TMPDIR`) that mirrors
//! the run directory: the manifest and config are downloaded into it, the checkpoint too when
//! there is one, and the task runs there exactly as on a shared disk. When its part is complete
//! it is uploaded under a name of its own and the marker is created only if absent: of two copies
//! of one task exactly one creates it; the other deletes its own part and exits 0. A create
//! refused because the marker exists is checked first: a marker that names this attempt's own
//! part is this copy's (the store committed it but the reply was lost), and this copy won. The winner
//! deletes every other part of its task (a racer's, or one left by a copy killed between upload
//! and marker: none can win any more) and the checkpoint. Uploads and downloads stream (memory:
//! one buffer, multipart past it). The store's async client runs on a private one-worker runtime,
//! so the protocol's calls stay blocking like the local ones.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use futures::StreamExt as _;
use object_store::buffered::BufWriter;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt as _, PutMode, PutOptions};
use tokio::io::AsyncWriteExt as _;

use super::{TaskRunError, TaskStart};

/// One store request may take this long (an 8 MiB part of an upload included) …
const REQUEST_TIMEOUT: &str = "30s";
/// … and connecting this long.
const CONNECT_TIMEOUT: &str = "5s";

/// Store requests are retried for a minute at most (object_store's default: three minutes):
/// a store that stops answering fails the task (exit 3) instead of holding it past a
/// scheduler's grace period.
fn retry() -> object_store::RetryConfig {
    object_store::RetryConfig {
        max_retries: 4,
        retry_timeout: Duration::from_secs(60),
        ..object_store::RetryConfig::default()
    }
}

/// A store builder with [`retry`] and the request and connect timeouts; `$client` wraps a
/// client setting in the builder's own config key.
macro_rules! bounded {
    ($builder:expr, $client:path) => {
        $builder
            .with_retry(retry())
            .with_config(
                $client(object_store::ClientConfigKey::Timeout),
                REQUEST_TIMEOUT,
            )
            .with_config(
                $client(object_store::ClientConfigKey::ConnectTimeout),
                CONNECT_TIMEOUT,
            )
    };
}

/// The object store's upload buffer: a part smaller than this is one PUT, a larger one a
/// multipart upload of parts this size.
const UPLOAD_BUFFER: usize = 8 * 1024 * 1024;

/// A run directory on an object store, and the local working directory a task runs in.
pub(crate) struct Remote {
    io: Io,
    stage: tempfile::TempDir,
    attempt: String,
    uploader: Mutex<Option<Uploader>>,
    timing: Mutex<LeaseTiming>,
}

/// How often a running task renews its lease, and how old a lease may be and still stand for
/// a live task. [`LEASE_TTL`] misses a few renewals before it expires (a slow store, a paused
/// process) and is far below any scheduler's requeue delay.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeaseTiming {
    /// Between renewals.
    pub renew: Duration,
    /// A lease younger than this (by the store's clock of its last write) is live.
    pub ttl: Duration,
}

/// A lease is live until this old by default (`lease_ttl`); it is renewed four times as often.
pub(crate) const LEASE_TTL: Duration = Duration::from_secs(90);

impl LeaseTiming {
    /// Renewed every quarter of `ttl` (at least every 250 ms).
    pub(crate) fn from_ttl(ttl: Duration) -> Self {
        Self {
            renew: (ttl / 4).max(Duration::from_millis(250)),
            ttl,
        }
    }
}

impl Default for LeaseTiming {
    fn default() -> Self {
        Self::from_ttl(LEASE_TTL)
    }
}

/// What a live lease says of the copy that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeaseHolder {
    /// `attempt 1a2b… on host pid 42`.
    pub holder: String,
    /// Seconds since its last renewal.
    pub age_secs: u64,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.io.url)
            .field("stage", &self.stage.path())
            .finish_non_exhaustive()
    }
}

/// The store, the run's prefix in it and the runtime its client runs on (cloned into the
/// checkpoint uploader's thread).
#[derive(Clone)]
struct Io {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    url: String,
    rt: Arc<Rt>,
}

/// The private runtime, shut down in the background when the last user goes (dropping a runtime
/// inside the CLI's async code would panic).
struct Rt(Option<tokio::runtime::Runtime>);

impl Drop for Rt {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// The checkpoint uploader's thread and the channel that stops it, and the lease's renewer.
struct Uploader {
    task: u32,
    stop: mpsc::Sender<bool>,
    thread: std::thread::JoinHandle<()>,
    lease: Renewer,
}

/// The lease renewer's thread and the channel that stops it.
struct Renewer {
    stop: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

/// Whether an object-store error is the user's (no such bucket or object, credentials refused,
/// a bad option) rather than the network's or the service's.
fn is_input(e: &object_store::Error) -> bool {
    matches!(
        e,
        object_store::Error::NotFound { .. }
            | object_store::Error::Unauthenticated { .. }
            | object_store::Error::PermissionDenied { .. }
            | object_store::Error::UnknownConfigurationKey { .. }
            | object_store::Error::InvalidPath { .. }
    )
}

/// Whether the error says the bucket (S3, GCS) or container (Azure) does not exist: a 404 for
/// the run, not for one of its objects.
fn no_bucket(e: &object_store::Error) -> bool {
    let text = e.to_string();
    ["NoSuchBucket", "ContainerNotFound", "bucket does not exist"]
        .iter()
        .any(|m| text.contains(m))
}

/// A 404 for an object of the run (absent), not for its bucket.
fn absent(e: &object_store::Error) -> bool {
    matches!(e, object_store::Error::NotFound { .. }) && !no_bucket(e)
}

impl Io {
    fn key(&self, rel: &str) -> Key {
        if self.prefix.is_empty() {
            Key::from(rel)
        } else {
            Key::from(format!("{}/{rel}", self.prefix))
        }
    }

    /// `URL/rel`, for messages.
    fn label(&self, rel: &str) -> String {
        format!("{}/{rel}", self.url)
    }

    fn err(&self, rel: &str, e: &object_store::Error) -> TaskRunError {
        if no_bucket(e) {
            return TaskRunError::Store {
                location: self.url.clone(),
                reason: "the bucket (or container) does not exist; create it first, or check \
                         the URL and the region"
                    .into(),
                input: true,
            };
        }
        TaskRunError::Store {
            location: self.label(rel),
            reason: stdx::redact_urls_in(&e.to_string()),
            input: is_input(e),
        }
    }

    /// Runs `f` on the private runtime from a thread of its own (the caller may be inside
    /// another runtime, where blocking on this one is not allowed).
    fn block<T: Send>(&self, f: impl Future<Output = T> + Send) -> T {
        let Some(rt) = self.rt.0.as_ref() else {
            unreachable!("the runtime lives until the last Io is dropped")
        };
        std::thread::scope(|s| s.spawn(|| rt.block_on(f)).join())
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }

    /// The object's bytes; `None` when there is none.
    fn get(&self, rel: &str) -> Result<Option<Vec<u8>>, TaskRunError> {
        let key = self.key(rel);
        self.block(async {
            match self.store.get(&key).await {
                Ok(r) => r.bytes().await.map(|b| Some(b.to_vec())),
                Err(e) if absent(&e) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .map_err(|e| self.err(rel, &e))
    }

    /// Writes the object, replacing any of that name.
    fn put(&self, rel: &str, bytes: Vec<u8>) -> Result<(), TaskRunError> {
        let key = self.key(rel);
        self.block(self.store.put(&key, bytes.into()))
            .map(|_| ())
            .map_err(|e| self.err(rel, &e))
    }

    /// Writes the object only if none has that name; returns whether this call created it.
    fn create(&self, rel: &str, bytes: Vec<u8>) -> Result<bool, TaskRunError> {
        let key = self.key(rel);
        let options = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self.block(self.store.put_opts(&key, bytes.into(), options)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(self.err(rel, &e)),
        }
    }

    /// Streams a local file into the object (overwriting it).
    fn upload(&self, rel: &str, file: &Path) -> Result<(), TaskRunError> {
        let key = self.key(rel);
        let local = |e: std::io::Error| TaskRunError::Io {
            path: file.to_path_buf(),
            source: e,
        };
        let store_io = |e: std::io::Error| TaskRunError::Store {
            location: self.label(rel),
            reason: stdx::redact_urls_in(&e.to_string()),
            input: false,
        };
        self.block(async {
            let mut source = tokio::fs::File::open(file).await.map_err(local)?;
            let mut sink = BufWriter::with_capacity(Arc::clone(&self.store), key, UPLOAD_BUFFER);
            if let Err(e) = tokio::io::copy(&mut source, &mut sink).await {
                let _ = sink.abort().await;
                return Err(store_io(e));
            }
            sink.shutdown().await.map_err(store_io)
        })
    }

    /// Streams the object into a local file; `false` (and no file) when there is no object.
    fn download(&self, rel: &str, file: &Path) -> Result<bool, TaskRunError> {
        use std::io::Write as _;
        let key = self.key(rel);
        let local = |e: std::io::Error| TaskRunError::Io {
            path: file.to_path_buf(),
            source: e,
        };
        self.block(async {
            let mut stream = match self.store.get(&key).await {
                Ok(r) => r.into_stream(),
                Err(e) if absent(&e) => return Ok(false),
                Err(e) => return Err(self.err(rel, &e)),
            };
            let mut out = std::fs::File::create(file).map_err(local)?;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| self.err(rel, &e))?;
                out.write_all(&chunk).map_err(local)?;
            }
            out.sync_all().map_err(local)?;
            Ok(true)
        })
    }

    /// Deletes the object (gone already is fine).
    fn delete(&self, rel: &str) -> Result<(), TaskRunError> {
        match self.block(self.store.delete(&self.key(rel))) {
            Ok(()) => Ok(()),
            Err(e) if absent(&e) => Ok(()),
            Err(e) => Err(self.err(rel, &e)),
        }
    }

    /// The objects under `rel/`: each name relative to the run, and its age in seconds.
    fn list(&self, rel: &str) -> Result<Vec<(String, u64)>, TaskRunError> {
        let key = self.key(rel);
        let base = self.key("");
        let now = super::unix_now();
        self.block(async {
            let mut found = Vec::new();
            let mut listing = self.store.list(Some(&key));
            while let Some(meta) = listing.next().await {
                let meta = meta?;
                let name = meta
                    .location
                    .prefix_match(&base)
                    .map(|parts| parts.map(|p| p.as_ref().to_owned()).collect::<Vec<_>>())
                    .map_or_else(|| meta.location.to_string(), |parts| parts.join("/"));
                let modified = u64::try_from(meta.last_modified.timestamp()).unwrap_or(0);
                found.push((name, now.saturating_sub(modified)));
            }
            Ok(found)
        })
        .map_err(|e: object_store::Error| self.err(rel, &e))
    }
}

impl Remote {
    /// Connects to the run directory at `url` (`s3://BUCKET/PREFIX`, `gs://…`, `az://…`), with
    /// credentials, region and endpoint from the provider's standard environment variables.
    ///
    /// # Errors
    /// [`TaskRunError::Refused`] for a URL without a bucket or with another scheme,
    /// [`TaskRunError::Store`] for a store that cannot be configured.
    pub(crate) fn connect(url: &str) -> Result<Self, TaskRunError> {
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        let rest = rest.trim_end_matches('/');
        let url = &format!("{scheme}://{rest}");
        let shown = stdx::redact_url(url);
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(TaskRunError::Refused(format!(
                "{shown}: no bucket: expected {scheme}://BUCKET/PREFIX"
            )));
        }
        let built = match scheme {
            "s3" | "s3a" => bounded!(
                object_store::aws::AmazonS3Builder::from_env().with_url(url),
                object_store::aws::AmazonS3ConfigKey::Client
            )
            .build()
            .map(|s| Arc::new(s) as Arc<dyn ObjectStore>),
            "gs" => bounded!(
                object_store::gcp::GoogleCloudStorageBuilder::from_env().with_url(url),
                object_store::gcp::GoogleConfigKey::Client
            )
            .build()
            .map(|s| Arc::new(s) as Arc<dyn ObjectStore>),
            "az" | "abfs" | "abfss" | "azure" => bounded!(
                object_store::azure::MicrosoftAzureBuilder::from_env().with_url(url),
                object_store::azure::AzureConfigKey::Client
            )
            .build()
            .map(|s| Arc::new(s) as Arc<dyn ObjectStore>),
            other => {
                return Err(TaskRunError::Refused(format!(
                    "{shown}: unknown scheme `{other}://`: a run directory is a path or an \
                     s3://, gs:// or az:// URL"
                )));
            }
        };
        let store = built.map_err(|e| TaskRunError::Store {
            location: shown.clone(),
            reason: stdx::redact_urls_in(&e.to_string()),
            input: true,
        })?;
        Self::with_store(store, prefix, &shown)
    }

    /// A run directory at `prefix` in `store`, shown as `url`.
    ///
    /// # Errors
    /// The runtime or the working directory cannot be made.
    pub(crate) fn with_store(
        store: Arc<dyn ObjectStore>,
        prefix: &str,
        url: &str,
    ) -> Result<Self, TaskRunError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("object-store")
            .enable_all()
            .build()
            .map_err(|e| TaskRunError::Io {
                path: PathBuf::from(url),
                source: e,
            })?;
        let tmp = std::env::temp_dir();
        let stage = tempfile::Builder::new()
            .prefix("scenario-engine-task-")
            .tempdir_in(&tmp)
            .map_err(super::io_err(&tmp))?;
        for dir in ["parts", "done"] {
            let path = stage.path().join(dir);
            std::fs::create_dir_all(&path).map_err(super::io_err(&path))?;
        }
        let seed = format!(
            "{} {} {:?} {}",
            runlog::lock::host_name(),
            std::process::id(),
            std::time::SystemTime::now(),
            stage.path().display()
        );
        Ok(Self {
            io: Io {
                store,
                prefix: prefix.trim_matches('/').to_owned(),
                url: url.to_owned(),
                rt: Arc::new(Rt(Some(rt))),
            },
            stage,
            attempt: blake3::hash(seed.as_bytes()).to_hex()[..16].to_owned(),
            uploader: Mutex::new(None),
            timing: Mutex::new(LeaseTiming::default()),
        })
    }

    /// The URL, for messages and launch files.
    pub(crate) fn url(&self) -> &str {
        &self.io.url
    }

    /// `URL/rel`.
    pub(crate) fn label(&self, rel: &str) -> String {
        self.io.label(rel)
    }

    /// The local working directory that mirrors the run directory.
    pub(crate) fn stage(&self) -> &Path {
        self.stage.path()
    }

    /// Writes the object, replacing any of that name.
    pub(crate) fn put(&self, rel: &str, bytes: Vec<u8>) -> Result<(), TaskRunError> {
        self.io.put(rel, bytes)
    }

    /// The object's bytes; `None` when there is none.
    pub(crate) fn get(&self, rel: &str) -> Result<Option<Vec<u8>>, TaskRunError> {
        self.io.get(rel)
    }

    /// Creates the object only if absent; whether this call created it.
    pub(crate) fn create(&self, rel: &str, bytes: Vec<u8>) -> Result<bool, TaskRunError> {
        self.io.create(rel, bytes)
    }

    /// Streams the object into `file`; `false` when there is none.
    pub(crate) fn download(&self, rel: &str, file: &Path) -> Result<bool, TaskRunError> {
        self.io.download(rel, file)
    }

    /// The names of the objects under `rel/`, relative to the run.
    pub(crate) fn list_names(&self, rel: &str) -> Result<Vec<String>, TaskRunError> {
        Ok(self
            .io
            .list(rel)?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// Streams a local file into the object (overwriting it).
    #[cfg(test)]
    pub(crate) fn upload(&self, rel: &str, file: &Path) -> Result<(), TaskRunError> {
        self.io.upload(rel, file)
    }

    /// Whether anything lies under `rel/`.
    pub(crate) fn has_objects_under(&self, rel: &str) -> Result<bool, TaskRunError> {
        Ok(!self.io.list(rel)?.is_empty())
    }

    /// The object's age in seconds; `None` when there is no object.
    pub(crate) fn age(&self, rel: &str) -> Result<Option<u64>, TaskRunError> {
        match self.io.block(self.io.store.head(&self.io.key(rel))) {
            Ok(meta) => Ok(Some(super::unix_now().saturating_sub(
                u64::try_from(meta.last_modified.timestamp()).unwrap_or(0),
            ))),
            Err(e) if absent(&e) => Ok(None),
            Err(e) => Err(self.io.err(rel, &e)),
        }
    }

    /// The checkpoint's name for `task`.
    pub(crate) fn checkpoint(task: u32) -> String {
        format!("checkpoints/{task}.jsonl")
    }

    /// The name of `task`'s carried response journal (`carry.rs`).
    pub(crate) fn carried(task: u32) -> String {
        format!("checkpoints/{task}.cache.jsonl")
    }

    /// Where the model client of the task whose part is `part` keeps its response journal.
    pub(crate) fn journal_of(part: &Path) -> PathBuf {
        stdx::beside(part, ".cache.jsonl")
    }

    /// Task `task` starts here: its checkpoint, if the store has one, becomes the local part,
    /// and a thread uploads the part as the new checkpoint every `every` while it grows (and
    /// once more when the task stops).
    /// `(every, lease_ttl)`: the checkpoint interval and the lease's TTL; `stopped` ends a
    /// standby's wait ([`TaskRunError::Stopped`]).
    pub(crate) fn begin(
        &self,
        task: u32,
        part: &Path,
        (every, lease_ttl): (Duration, Duration),
        stopped: &(dyn Fn() -> bool + Sync),
    ) -> Result<TaskStart, TaskRunError> {
        *self
            .timing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = LeaseTiming::from_ttl(lease_ttl);
        if self.acquire_lease(task, stopped)? == TaskStart::DoneByAnother {
            return Ok(TaskStart::DoneByAnother);
        }
        if self.io.download(&Self::checkpoint(task), part)? {
            tracing::info!(task, url = %self.io.url, "resuming from the store's checkpoint");
        }
        let journal = Self::journal_of(part);
        if self.io.download(&Self::carried(task), &journal)? {
            tracing::info!(task, url = %self.io.url, "the responses of unfinished scenarios come back from the store");
        }
        let mut carried = super::carry::Carried::new(journal, part);
        let (stop, stopped) = mpsc::channel::<bool>();
        let io = self.io.clone();
        let part = part.to_path_buf();
        let lease = self.renew_in_background(task)?;
        // What the store has already (the downloaded checkpoint), measured before the task writes.
        let mut uploaded = std::fs::metadata(&part).map_or(0, |m| m.len());
        let thread = std::thread::Builder::new()
            .name(format!("checkpoint-{task}"))
            .spawn(move || {
                let (rel, cache_rel) = (Self::checkpoint(task), Self::carried(task));
                let mut cache_due = false;
                let mut upload = || {
                    let size = std::fs::metadata(&part).map_or(0, |m| m.len());
                    if size > uploaded {
                        match io.upload(&rel, &part) {
                            Ok(()) => uploaded = size,
                            // Kept going: the next round tries again, and the part is local.
                            Err(e) => tracing::warn!(task, error = %e, "checkpoint upload failed"),
                        }
                    }
                    // After the checkpoint: the journal never drops a scenario the store's
                    // checkpoint lacks.
                    cache_due |= carried.advance(uploaded);
                    if cache_due {
                        match io.put(&cache_rel, carried.text().into_bytes()) {
                            Ok(()) => cache_due = false,
                            Err(e) => {
                                tracing::warn!(task, error = %e, "response journal upload failed");
                            }
                        }
                    }
                };
                loop {
                    match stopped.recv_timeout(every) {
                        Err(mpsc::RecvTimeoutError::Timeout) => upload(),
                        Ok(last) => {
                            if last {
                                upload();
                            }
                            return;
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                }
            })
            .map_err(super::io_err(self.stage.path()))?;
        *self
            .uploader
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Uploader {
            task,
            stop,
            thread,
            lease,
        });
        Ok(TaskStart::Started)
    }

    /// Renews `task`'s lease every quarter of its TTL on a thread of its own, so a slow
    /// checkpoint upload never holds a renewal back; stopped with the uploader.
    fn renew_in_background(&self, task: u32) -> Result<Renewer, TaskRunError> {
        let (stop, stopped) = mpsc::channel::<()>();
        let io = self.io.clone();
        let (rel, body, renew) = (Self::lease(task), self.lease_body(), self.timing().renew);
        let thread = std::thread::Builder::new()
            .name(format!("lease-{task}"))
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(renew) {
                    if let Err(e) = io.put(&rel, body.clone()) {
                        tracing::warn!(task, error = %e, "lease renewal failed");
                    }
                }
            })
            .map_err(super::io_err(self.stage.path()))?;
        Ok(Renewer { stop, thread })
    }

    /// The lease's name for `task`.
    pub(crate) fn lease(task: u32) -> String {
        format!("leases/{task}.json")
    }

    fn timing(&self) -> LeaseTiming {
        *self
            .timing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// This copy's lease: who holds the task.
    fn lease_body(&self) -> Vec<u8> {
        serde_json::json!({
            "attempt": self.attempt,
            "host": runlog::lock::host_name(),
            "pid": std::process::id(),
            "ttl_secs": self.timing().ttl.as_secs(),
        })
        .to_string()
        .into_bytes()
    }

    /// The live lease of `task`, if another copy holds one (renewed within the TTL).
    ///
    /// # Errors
    /// A store error.
    pub(crate) fn live_lease(&self, task: u32) -> Result<Option<LeaseHolder>, TaskRunError> {
        let rel = Self::lease(task);
        let Some(age_secs) = self.age(&rel)? else {
            return Ok(None);
        };
        let v = self.read_lease(task)?;
        // The holder's own TTL (a reader does not know the holder's settings).
        let ttl = v
            .get("ttl_secs")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(self.timing().ttl.as_secs());
        if age_secs >= ttl {
            return Ok(None);
        }
        let field = |k: &str| {
            v.get(k).map_or_else(
                || "?".to_owned(),
                |x| x.to_string().trim_matches('"').to_owned(),
            )
        };
        Ok(Some(LeaseHolder {
            holder: format!(
                "attempt {} on {} pid {}",
                field("attempt"),
                field("host"),
                field("pid")
            ),
            age_secs,
        }))
    }

    /// Takes `task`'s lease, created only if absent, so of two copies started at once one runs.
    /// While another copy holds a live lease (a duplicate submission, or a requeue racing a copy
    /// that was just killed, whose lease then expires) it waits as a standby: it starts when
    /// the lease is released or expires (an expired lease is replaced), and ends in
    /// [`TaskStart::DoneByAnother`] when the holder finished meanwhile.
    fn acquire_lease(
        &self,
        task: u32,
        stopped: &(dyn Fn() -> bool + Sync),
    ) -> Result<TaskStart, TaskRunError> {
        let rel = Self::lease(task);
        let mut announced = false;
        loop {
            if stopped() {
                return Err(TaskRunError::Stopped(task));
            }
            if self.io.get(&format!("done/{task}.json"))?.is_some() {
                return Ok(TaskStart::DoneByAnother);
            }
            if self.io.create(&rel, self.lease_body())? || self.lease_is_ours(task) {
                // Created, or created with its reply lost (a 5xx, then a retried create that
                // met this copy's own lease).
                return Ok(TaskStart::Started);
            }
            let Some(held) = self.live_lease(task)? else {
                // Expired (its holder was killed) or released meanwhile: replace it. Two copies
                // replacing one expired lease at once can both run; the marker keeps the
                // records exactly once.
                tracing::info!(task, "the task's lease expired: taking it over");
                self.io.delete(&rel)?;
                continue;
            };
            if !announced {
                tracing::warn!(task, holder = %held.holder, age_secs = held.age_secs, "another copy holds the task's lease: waiting for it to finish or expire");
                announced = true;
            }
            let until = std::time::Instant::now() + self.timing().renew.min(Duration::from_secs(5));
            while std::time::Instant::now() < until && !stopped() {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// Stops the checkpoint uploader, with a last upload when `last` (a task that stops short).
    pub(crate) fn stop_checkpoints(&self, last: bool) {
        let uploader = self
            .uploader
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(u) = uploader {
            let _ = u.stop.send(last);
            let _ = u.thread.join();
            let _ = u.lease.stop.send(());
            let _ = u.lease.thread.join();
            if last {
                // The task stops short with its checkpoint up: another copy may take it now.
                self.release_lease(u.task);
            }
        }
    }

    /// Whether `task`'s lease names this copy's attempt.
    fn lease_is_ours(&self, task: u32) -> bool {
        self.read_lease(task)
            .is_ok_and(|v| v.get("attempt").and_then(|a| a.as_str()) == Some(&self.attempt))
    }

    /// `task`'s lease as JSON (`null` when there is none or it is not JSON).
    fn read_lease(&self, task: u32) -> Result<serde_json::Value, TaskRunError> {
        let body = self.io.get(&Self::lease(task))?.unwrap_or_default();
        Ok(serde_json::from_slice(&body).unwrap_or_default())
    }

    /// Deletes `task`'s lease if it is still this copy's (a copy that outlived its lease must
    /// not end another's hold). Best effort: an unreleased lease expires.
    fn release_lease(&self, task: u32) {
        let rel = Self::lease(task);
        if self.lease_is_ours(task)
            && let Err(e) = self.io.delete(&rel)
        {
            tracing::warn!(task, error = %e, "lease release failed");
        }
    }

    /// Publishes task `task`'s finished part: uploads it under this attempt's name, then creates
    /// the marker (`marker` is called with that name). Returns whether this copy created it; a
    /// copy that lost deletes its own part and the checkpoint, the winner every other part and the
    /// checkpoint.
    pub(crate) fn publish(
        &self,
        task: u32,
        part: &Path,
        marker: impl FnOnce(&str) -> Result<Vec<u8>, TaskRunError>,
    ) -> Result<bool, TaskRunError> {
        self.stop_checkpoints(false);
        let name = format!("parts/{task}/{}.jsonl", self.attempt);
        self.io.upload(&name, part)?;
        let done = format!("done/{task}.json");
        let created = self.io.create(&done, marker(&name)?)? || self.marker_names(&done, &name)?;
        if created {
            for (other, _) in self.io.list(&format!("parts/{task}"))? {
                if other != name {
                    self.io.delete(&other)?;
                }
            }
        } else {
            self.io.delete(&name)?;
        }
        // The loser's last checkpoint may have landed after the winner cleared them; the task
        // is done, so no checkpoint of it, nor its responses, is of use.
        self.io.delete(&Self::checkpoint(task))?;
        self.io.delete(&Self::carried(task))?;
        self.release_lease(task);
        Ok(created)
    }
}

impl Remote {
    /// Whether the marker at `done` vouches for `part`, this attempt's own part: the create's
    /// reply was lost after the store committed it (a 5xx, then a retried create-only PUT that
    /// met its own marker), so this copy is the winner. The part's name holds the attempt id,
    /// which no other copy shares.
    fn marker_names(&self, done: &str, part: &str) -> Result<bool, TaskRunError> {
        let Some(bytes) = self.io.get(done)? else {
            return Ok(false);
        };
        let ours = super::Marker::parse(&bytes, Path::new(&self.io.label(done)))
            .is_ok_and(|m| m.part.as_deref() == Some(part));
        if ours {
            tracing::info!(url = %self.io.url, marker = done, "the marker is this attempt's own (its reply was lost)");
        }
        Ok(ours)
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // A task that ends without publishing (stopped, failed) leaves its progress behind.
        self.stop_checkpoints(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> (Arc<dyn ObjectStore>, Remote) {
        let store: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let remote =
            Remote::with_store(Arc::clone(&store), "runs/a", "memory://b/runs/a").expect("remote");
        (store, remote)
    }

    #[test]
    fn create_is_create_only_and_objects_round_trip() {
        let (_, remote) = memory();
        assert!(
            remote
                .create("done/0.json", b"first".to_vec())
                .expect("create")
        );
        assert!(
            !remote
                .create("done/0.json", b"second".to_vec())
                .expect("again")
        );
        assert_eq!(
            remote.get("done/0.json").expect("get"),
            Some(b"first".to_vec())
        );
        assert_eq!(remote.get("done/1.json").expect("get"), None);
        let file = remote.stage().join("x");
        std::fs::write(&file, b"line\n").expect("write");
        remote.io.upload("parts/0/a.jsonl", &file).expect("upload");
        let names = remote.list_names("parts").expect("list");
        assert_eq!(names, ["parts/0/a.jsonl"]);
        let back = remote.stage().join("y");
        assert!(remote.download("parts/0/a.jsonl", &back).expect("download"));
        assert_eq!(std::fs::read(&back).expect("read"), b"line\n");
        assert!(
            !remote
                .download("parts/0/none.jsonl", &back)
                .expect("absent")
        );
        assert!(remote.age("parts/0/a.jsonl").expect("head").is_some());
    }

    /// Issue 27: the store committed `done/0.json` but the reply was lost, so the retried
    /// create-only PUT met this attempt's own marker. The task is done: its part stays.
    #[test]
    fn a_marker_committed_with_its_reply_lost_keeps_its_own_part() {
        let (_, remote) = memory();
        let part = remote.stage().join("part");
        std::fs::write(&part, b"{}\n").expect("write");
        let own = format!("parts/0/{}.jsonl", remote.attempt);
        let full = |name: &str| -> Vec<u8> {
            let manifest = super::super::Manifest::new("h".repeat(64), "yaml", 1, 1, None, 0);
            let mut m = super::super::Marker::new(
                &manifest,
                0,
                &super::super::PartTotals::default(),
                1,
                "t".into(),
            );
            m.part = Some(name.to_owned());
            serde_json::to_vec(&m).expect("json")
        };
        // What the store holds after the lost reply: the marker this attempt would write.
        assert!(remote.create("done/0.json", full(&own)).expect("commit"));
        let created = remote
            .publish(0, &part, |name| Ok(full(name)))
            .expect("publish");
        assert!(created, "its own marker: this attempt won");
        assert_eq!(remote.list_names("parts").expect("list"), [own]);

        // Another attempt's marker: this copy lost, and deletes only its own part.
        let (_, other) = memory();
        std::fs::write(other.stage().join("part"), b"{}\n").expect("write");
        assert!(
            other
                .create("done/0.json", full("parts/0/someone.jsonl"))
                .expect("c")
        );
        let created = other
            .publish(0, &other.stage().join("part"), |name| Ok(full(name)))
            .expect("publish");
        assert!(!created);
        assert!(other.list_names("parts").expect("list").is_empty());
    }

    #[test]
    fn a_url_without_bucket_or_with_another_scheme_is_refused() {
        let err = Remote::connect("s3://").expect_err("no bucket");
        assert!(err.to_string().contains("no bucket"), "{err}");
        assert!(err.is_input());
        let err = Remote::connect("ftp://host/run").expect_err("scheme");
        assert!(err.to_string().contains("unknown scheme `ftp://`"), "{err}");
    }
}
