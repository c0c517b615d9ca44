//! One writer per output: a run holds an exclusive lock on `<output>.lock` for as long as it
//! may write the output, its errors file or its batch state.
//!
//! The lock is the operating system's (`flock` on Unix, `LockFileEx` on Windows, through
//! [`std::fs::File::try_lock`]), so it dies with its process: a run killed by `kill -9` or a
//! crash leaves no stale lock to clean up, and the next run takes it at once. The file itself
//! stays (deleting it would let a run that opened the old file and a run that creates a new
//! one both hold "the" lock); its text says who holds it — `pid`, `host`, start time — for the
//! message a second run prints. A lock on a network file system is only as good as that file
//! system's `flock` (NFSv4 and Lustre honour it; some FUSE mounts do not).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why the output could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error(
        "{output} is being written by another run ({holder}); two runs on one output would \
         duplicate its records"
    )]
    Held {
        /// The output file.
        output: PathBuf,
        /// What the lock file says of its holder (`pid 123 on host-a since …`).
        holder: String,
    },
    /// The lock file could not be created or locked.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// An exclusive lock on an output, released when dropped (or when the process ends).
#[derive(Debug)]
pub struct OutputLock {
    file: File,
    path: PathBuf,
}

impl OutputLock {
    /// Locks `output` for this process, or says who holds it.
    ///
    /// # Errors
    /// [`LockError::Held`] when another process holds it; [`LockError::Io`] when the lock file
    /// cannot be opened or locked.
    pub fn acquire(output: &Path) -> Result<Self, LockError> {
        // Keyed by the file, not the name: `--out alias.jsonl` (a link to `real.jsonl`) and
        // `--out ./real.jsonl` take the same lock.
        let path = lock_path(&canonical(output));
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        // A lock file that is a symbolic link would make this run write its holder line into
        // whatever the link points at.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(io(std::io::Error::other(
                "the lock file is a symbolic link; remove it",
            )));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        // A few short retries: `status` probes the lock with a shared lock for an instant, and
        // a task starting in that instant must not be refused for it.
        let mut attempt = 0;
        let locked = loop {
            match file.try_lock() {
                Err(TryLockError::WouldBlock) if attempt < PROBE_RETRIES => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other,
            }
        };
        match locked {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(LockError::Held {
                    output: output.to_path_buf(),
                    holder: if holder.is_empty() {
                        "holder unknown".to_owned()
                    } else {
                        holder.to_owned()
                    },
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let text = format!(
            "pid {} on {} since unix time {since}\n",
            std::process::id(),
            host_name()
        );
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(text.as_bytes()))
            .map_err(io)?;
        tracing::debug!(lock = %path.display(), "output locked");
        Ok(Self { file, path })
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first says so explicitly.
        let _ = self.file.unlock();
    }
}

/// Retries of a lock found held before a run gives up (20 ms apart).
const PROBE_RETRIES: u32 = 5;

/// Who holds the lock on `output` (the holder line: pid, host, start), or `None` when no run
/// does. Probes with a shared lock held for an instant.
///
/// # Errors
/// [`LockError::Io`] when the lock file exists but cannot be opened or probed.
pub fn holder(output: &Path) -> Result<Option<String>, LockError> {
    let path = lock_path(&canonical(output));
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(LockError::Io { path, source }),
    };
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            Ok(None)
        }
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = (&file).read_to_string(&mut text);
            Ok(Some(text.trim().to_owned()))
        }
        Err(TryLockError::Error(source)) => Err(LockError::Io { path, source }),
    }
}

/// The output with its links followed and its directory made absolute (the file itself need not
/// exist yet); the path as given when even its directory cannot be resolved.
pub fn canonical(output: &Path) -> PathBuf {
    if let Ok(path) = std::fs::canonicalize(output) {
        return path;
    }
    let dir = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (std::fs::canonicalize(dir), output.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => output.to_path_buf(),
    }
}

/// `<output>.lock`, beside the output.
#[must_use]
pub fn lock_path(output: &Path) -> PathBuf {
    stdx::beside(output, ".lock")
}

/// This machine's name, for the holder line (`HOSTNAME`, else the kernel's, else "this host").
pub fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or_else(|| "this host".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_freed_on_drop() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("run.jsonl");
        let first = OutputLock::acquire(&out).expect("first lock");
        assert_eq!(first.path(), dir.path().join("run.jsonl.lock"));
        // Another open file description of the same file: refused, as another process is.
        let err = OutputLock::acquire(&out).expect_err("held");
        let text = err.to_string();
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        assert!(text.contains("run.jsonl"), "{text}");
        drop(first);
        OutputLock::acquire(&out).expect("free again after drop");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_the_output_takes_the_same_lock_and_a_linked_lock_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let real = dir.path().join("real.jsonl");
        std::fs::write(&real, "").expect("output");
        let alias = dir.path().join("alias.jsonl");
        std::os::unix::fs::symlink(&real, &alias).expect("link");
        let _held = OutputLock::acquire(&real).expect("first lock");
        assert!(matches!(
            OutputLock::acquire(&alias),
            Err(LockError::Held { .. })
        ));

        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep me").expect("victim");
        let other = dir.path().join("v.jsonl");
        std::os::unix::fs::symlink(&victim, dir.path().join("v.jsonl.lock")).expect("link");
        let err = OutputLock::acquire(&other).expect_err("a linked lock file");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep me");
    }
}
