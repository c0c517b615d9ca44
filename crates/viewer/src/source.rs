//! The results the viewer was given. Each is addressed by its position in the list: a request
//! names a number, never a path, so nothing outside these files can be reached.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use reports::load::{LoadError, Results, load};
use scoring::SuiteResult;

use crate::ViewError;

/// What a source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A pipeline output (JSONL), streamed on each request.
    Run,
    /// A bot-suite result, read once.
    Suite,
    /// A run's errors file alone.
    Errors,
}

/// One results file.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its name as pages show it (the file name, with the task-run directory for a part).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// What it holds.
    pub kind: SourceKind,
    /// The suite result, for [`SourceKind::Suite`].
    pub suite: Option<Arc<SuiteResult>>,
}

/// Every source, in the order given (a task-run directory's parts in task order).
#[derive(Debug, Clone, Default)]
pub struct Sources(Arc<Vec<Source>>, Arc<Vec<String>>);

impl Sources {
    /// Opens `paths`: files are told apart by `reports::load`; a directory is a task-run
    /// directory whose `parts/*.jsonl` are runs; an empty `.jsonl` file is a run that has not
    /// written its first record yet (a live run).
    ///
    /// # Errors
    /// [`ViewError`]: nothing given, or a path that is none of these.
    pub fn open(paths: &[PathBuf]) -> Result<Self, ViewError> {
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        for path in paths {
            if path.is_dir() {
                out.extend(parts(path, &mut skipped)?);
            } else {
                out.push(file(path)?);
            }
        }
        if out.is_empty() {
            return Err(ViewError::Nothing);
        }
        Ok(Self(Arc::new(out), Arc::new(skipped)))
    }

    /// Entries of task-run directories' `parts/` that are not served, each with why (a
    /// directory, a link leading outside the directory, a file that is not a run).
    #[must_use]
    pub fn skipped(&self) -> &[String] {
        &self.1
    }

    /// The source at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&Source> {
        self.0.get(index)
    }

    /// All sources.
    #[must_use]
    pub fn all(&self) -> &[Source] {
        &self.0
    }

    /// How many.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether sources `a` and `b` exist and can be compared (two runs or two suites).
    #[must_use]
    pub fn comparable(&self, a: usize, b: usize) -> bool {
        match (self.get(a), self.get(b)) {
            (Some(x), Some(y)) => a != b && x.kind == y.kind && x.kind != SourceKind::Errors,
            _ => false,
        }
    }
}

fn source_error(path: &Path, message: impl std::fmt::Display) -> ViewError {
    ViewError::Source {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

/// One file, by what `reports::load` finds in it.
fn file(path: &Path) -> Result<Source, ViewError> {
    let name = reports::display_name(path);
    let (kind, suite) = match load(path) {
        Ok(Results::Pipeline(_)) => (SourceKind::Run, None),
        Ok(Results::Failures(_)) => (SourceKind::Errors, None),
        Ok(Results::Suite(result)) => (SourceKind::Suite, Some(Arc::new(result))),
        // A run that has not written its first record yet: shown, and filled in as it goes.
        Err(LoadError::Empty { .. }) if path.extension().is_some_and(|e| e == "jsonl") => {
            (SourceKind::Run, None)
        }
        Err(e) => return Err(source_error(path, e)),
    };
    Ok(Source {
        name,
        path: path.to_owned(),
        kind,
        suite,
    })
}

/// A task-run directory's parts (`parts/N.jsonl`, in task order; their errors files are read
/// beside them, not listed). Only regular files really inside `parts/` (a link is followed
/// only when it stays there) that are runs are served; the others are named in `skipped`.
fn parts(dir: &Path, skipped: &mut Vec<String>) -> Result<Vec<Source>, ViewError> {
    let folder = dir.join("parts");
    let entries = std::fs::read_dir(&folder).map_err(|e| {
        source_error(
            dir,
            format!("a directory, but not a task-run directory (no readable parts/: {e})"),
        )
    })?;
    let inside = std::fs::canonicalize(&folder).map_err(|e| source_error(dir, e))?;
    let mut found: Vec<(u64, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| {
            let stem = p.file_name()?.to_str()?.strip_suffix(".jsonl")?;
            Some((stem.parse::<u64>().ok()?, p))
        })
        .collect();
    found.sort();
    let label = reports::display_name(dir);
    let mut out = Vec::new();
    for (_, path) in found {
        let name = format!("{label}/parts/{}", reports::display_name(&path));
        let real = std::fs::canonicalize(&path);
        let why = match &real {
            Err(e) => Some(format!("cannot be read ({e})")),
            Ok(r) if !r.starts_with(&inside) => Some("a link leading outside parts/".to_owned()),
            Ok(r) if !r.is_file() => Some("not a regular file".to_owned()),
            Ok(r) => match file(r) {
                Ok(s) if s.kind == SourceKind::Run => None,
                Ok(_) => Some("not a run output".to_owned()),
                Err(e) => Some(format!("not a run output ({e})")),
            },
        };
        if let Some(why) = why {
            tracing::warn!(part = %name, %why, "task-run part not served");
            skipped.push(format!("{name}: {why}"));
            continue;
        }
        out.push(Source {
            name,
            path,
            kind: SourceKind::Run,
            suite: None,
        });
    }
    Ok(out)
}
