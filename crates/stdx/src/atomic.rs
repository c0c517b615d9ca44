//! Atomic file replacement, the one implementation in the workspace (the response cache of `llm-client`,
//! the batch state file, the merged outputs of `merge`): write a uniquely named
//! sibling temp file, sync it, rename it over the target. A reader, or a crash, sees the old file
//! or the new one, never a torn one; concurrent writers of one path never share a temp file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes the temp files of one process.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Where a write of `path` goes: written in place (a device, a pipe: renaming over it would
/// replace it with a plain file), or through a temp file in this directory (created). A
/// directory is an error.
enum Target {
    InPlace,
    Dir(PathBuf),
}

fn target(path: &Path) -> std::io::Result<Target> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            format!("{} is a directory", path.display()),
        )),
        Ok(meta) if !meta.is_file() => Ok(Target::InPlace),
        _ => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            Ok(Target::Dir(dir.to_owned()))
        }
    }
}

/// A unique temp-file name for `path` in `dir`, with `kind` (`tmp`, `probe`).
fn sibling(dir: &Path, path: &Path, kind: &str) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    dir.join(format!(
        ".{name}.{}.{}.{kind}",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Checks now that [`write_atomic`] could write `path` later: not a directory, its directory
/// creatable and writable (a probe file is created there and removed), an existing file or
/// device writable. Run it before work whose result goes to `path`, so an unwritable path is
/// found before the work is paid for, not after.
///
/// # Errors
/// Why `path` could not be written.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let path = &resolve_links(path)?;
    match target(path)? {
        // A device or pipe is written in place: it must open for writing.
        Target::InPlace => std::fs::OpenOptions::new().write(true).open(path).map(drop),
        Target::Dir(dir) => {
            let probe = sibling(&dir, path, "probe");
            File::create(&probe)?;
            std::fs::remove_file(&probe)
        }
    }
}

/// Replaces `path` with what `write` writes, atomically; creates the parent directory. No temp
/// file is left behind, whether it succeeds or fails.
///
/// A symbolic link is followed: its target is replaced and the link stays. A path that exists
/// and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written in place, since
/// renaming over it would replace the device or pipe with a plain file; a directory is an error.
///
/// # Errors
/// Any I/O error, or the error `write` returns.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let path = &resolve_links(path)?;
    let dir = match target(path)? {
        Target::InPlace => {
            let mut out = BufWriter::new(
                std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(path)?,
            );
            write(&mut out)?;
            return out.flush();
        }
        Target::Dir(dir) => dir,
    };
    let tmp = sibling(&dir, path, "tmp");
    let result = fill(&tmp, write).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `path` with every symbolic link in its last component followed (the target need not exist).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

fn fill(
    tmp: &PathBuf,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut out = BufWriter::new(File::create(tmp)?);
    write(&mut out)?;
    out.flush()?;
    let file = out
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::write_atomic;

    fn entries(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("readable")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sub/state.json");
        write_atomic(&path, |w| w.write_all(b"one")).expect("written");
        write_atomic(&path, |w| w.write_all(b"two")).expect("replaced");
        assert_eq!(std::fs::read_to_string(&path).expect("readable"), "two");
        assert_eq!(entries(&dir.path().join("sub")), ["state.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_followed_and_a_device_is_written_in_place() {
        let dir = tempfile::tempdir().expect("temp dir");
        let real = dir.path().join("real/target.json");
        let link = dir.path().join("link.json");
        std::fs::create_dir_all(real.parent().expect("parent")).expect("dir");
        std::os::unix::fs::symlink("real/target.json", &link).expect("symlink");
        write_atomic(&link, |w| w.write_all(b"through the link")).expect("written");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink(),
            "the link stays a link"
        );
        assert_eq!(
            std::fs::read_to_string(&real).expect("target"),
            "through the link"
        );
        // A character device is written, never renamed over.
        write_atomic(std::path::Path::new("/dev/null"), |w| w.write_all(b"x")).expect("written");
        assert!(!std::fs::metadata("/dev/null").expect("dev null").is_file());
        if std::path::Path::new("/dev/full").exists() {
            write_atomic(std::path::Path::new("/dev/full"), |w| w.write_all(b"x"))
                .expect_err("a full device is an error");
            assert!(!std::fs::metadata("/dev/full").expect("dev full").is_file());
        }
        let err = write_atomic(dir.path(), |w| w.write_all(b"x")).expect_err("a directory");
        assert!(err.to_string().contains("is a directory"), "{err}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("state.json");
        write_atomic(&path, |w| w.write_all(b"old")).expect("written");
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .expect_err("fails");
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read_to_string(&path).expect("readable"), "old");
        assert_eq!(entries(dir.path()), ["state.json"]);
    }
}
