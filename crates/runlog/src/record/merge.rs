//! Merging the outputs of a sharded run (`run --shard k/n` on n machines) into one file: the
//! inputs are streamed once into a compact [`RunIndex`] (never held whole), checked disjoint and,
//! against a config's selection, complete; the merged file is written atomically, every record
//! once, sorted by id, its lines copied byte for byte.

use std::collections::BTreeSet;
use std::io::{BufRead as _, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use super::{DEFAULT_MAX_LINE_BYTES, RecordReader, RunIndex, ScenarioRecord};

/// Why the inputs of a merge could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A file could not be opened.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a record, or cannot be indexed.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// The inputs of a merge, indexed, with what the summary needs.
#[derive(Debug)]
pub struct MergeInputs {
    paths: Vec<PathBuf>,
    index: RunIndex,
    /// Records read from each input, in input order.
    pub per_file: Vec<u64>,
    /// Accepted records.
    pub accepted: u64,
    scores: u64,
    score_sum: f64,
}

/// How the merged ids cover a config's selection.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Scenarios the selection holds.
    pub expected: usize,
    /// Selected ids no input holds (exact count).
    pub missing_count: usize,
    /// The first missing ids by id, at most the number asked for.
    pub missing: BTreeSet<String>,
    /// Ids in the inputs that the selection does not hold.
    pub foreign: Vec<String>,
}

impl Coverage {
    /// Every selected id present and none foreign.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.missing_count == 0 && self.foreign.is_empty()
    }
}

impl MergeInputs {
    /// Reads and indexes every record of `paths`, stopping at the first line that is not one.
    ///
    /// # Errors
    /// [`MergeError`], naming the file and line.
    pub fn read(paths: &[PathBuf]) -> Result<Self, MergeError> {
        let mut inputs = Self {
            paths: paths.to_vec(),
            index: RunIndex::default(),
            per_file: vec![0; paths.len()],
            accepted: 0,
            scores: 0,
            score_sum: 0.0,
        };
        for (file, path) in paths.iter().enumerate() {
            let invalid = |line, message| MergeError::Invalid {
                path: path.clone(),
                line,
                message,
            };
            let reader: RecordReader<_, ScenarioRecord> =
                RecordReader::open(path).map_err(|source| MergeError::Io {
                    path: path.clone(),
                    source,
                })?;
            for item in reader {
                let located = item.map_err(|e| invalid(e.line(), e.reason()))?;
                inputs.per_file[file] += 1;
                let r = &located.record;
                inputs.accepted += u64::from(r.accepted);
                if r.score.is_finite() {
                    inputs.scores += 1;
                    inputs.score_sum += r.score;
                }
                inputs
                    .index
                    .push(&r.id, file, located.offset)
                    .map_err(|e| invalid(located.line, e.to_string()))?;
            }
        }
        inputs.index.sort();
        Ok(inputs)
    }

    /// Records read.
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when the inputs hold no record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Mean score of the records with a finite score.
    #[must_use]
    pub fn mean_score(&self) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)] // record counts far below 2^53
        (self.scores > 0).then(|| self.score_sum / self.scores as f64)
    }

    /// Ids in more than one input (or twice in one), with the inputs' paths.
    #[must_use]
    pub fn overlaps(&self) -> Vec<(String, Vec<&Path>)> {
        self.index
            .duplicates()
            .into_iter()
            .map(|(id, files)| (id, files.iter().map(|f| self.paths[*f].as_path()).collect()))
            .collect()
    }

    /// How the inputs cover `selected` (a config's selected ids), listing at most `shown`
    /// missing ids (the first by id; the count stays exact).
    #[must_use]
    pub fn coverage(&self, selected: impl IntoIterator<Item = String>, shown: usize) -> Coverage {
        let mut hit = vec![false; self.index.len()];
        let mut coverage = Coverage::default();
        for id in selected {
            coverage.expected += 1;
            match self.index.position(&id) {
                Some(i) => hit[i] = true,
                None => {
                    coverage.missing_count += 1;
                    coverage.missing.insert(id);
                    if coverage.missing.len() > shown {
                        coverage.missing.pop_last();
                    }
                }
            }
        }
        coverage.foreign = self
            .index
            .entries()
            .zip(&hit)
            .filter(|(_, hit)| !**hit)
            .map(|(e, _)| e.id)
            .collect();
        coverage
    }

    /// Copies every indexed line, in id order, from its input into `into`, atomically, so a
    /// reader never sees a half-merged file and an input named as `into` is replaced only at
    /// the end.
    ///
    /// # Errors
    /// Any I/O error.
    pub fn write(&self, into: &Path) -> std::io::Result<()> {
        let mut files = self
            .paths
            .iter()
            .map(std::fs::File::open)
            .collect::<std::io::Result<Vec<_>>>()?;
        stdx::write_atomic(into, |out| {
            let mut line = Vec::new();
            for entry in self.index.entries() {
                let file = &mut files[entry.file];
                file.seek(SeekFrom::Start(entry.offset))?;
                line.clear();
                // The reader bounded every line, so this read is bounded too.
                std::io::BufReader::with_capacity(16 * 1024, &mut *file)
                    .take(DEFAULT_MAX_LINE_BYTES as u64 + 1)
                    .read_until(b'\n', &mut line)?;
                out.write_all(line.trim_ascii())?;
                out.write_all(b"\n")?;
            }
            Ok(())
        })
    }
}

/// The failures of a merge's inputs that no input holds a record of: scenario id → its last
/// errors-file line.
pub type CurrentFailures = std::collections::BTreeMap<String, String>;

impl MergeInputs {
    /// The inputs' current failures: each input's errors-file lines (`<input>.errors.jsonl`),
    /// the last line per scenario, less the scenarios the merge holds a record of.
    ///
    /// Memory: one line per failed scenario (never the records).
    ///
    /// # Errors
    /// An errors file that exists but cannot be read.
    pub fn failures(&self) -> std::io::Result<CurrentFailures> {
        let mut current = CurrentFailures::new();
        for path in &self.paths {
            let errors = super::errors_path(path);
            let file = match std::fs::File::open(&errors) {
                Ok(file) => file,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            for line in std::io::BufReader::new(file).lines() {
                let line = line?;
                if let Ok(r) = serde_json::from_str::<super::RecordId>(&line)
                    && self.index.position(&r.id).is_none()
                {
                    current.insert(r.id, line);
                }
            }
        }
        Ok(current)
    }

    /// Writes `failures` beside `into` (`<into>.errors.jsonl`, atomically), so the merged run
    /// reports its yield over the scenarios tried; with none, a stale `<into>.errors.jsonl` of an
    /// earlier merge is removed.
    ///
    /// # Errors
    /// Any I/O error.
    pub fn write_failures(into: &Path, failures: &CurrentFailures) -> std::io::Result<()> {
        let target = super::errors_path(into);
        if failures.is_empty() {
            return match std::fs::remove_file(&target) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        stdx::write_atomic(&target, |out| {
            for line in failures.values() {
                out.write_all(line.trim_ascii().as_bytes())?;
                out.write_all(b"\n")?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, ids: &[&str]) -> PathBuf {
        let path = dir.join(name);
        let text: String = ids
            .iter()
            .map(|id| format!("{{\"id\":\"{id}\",\"score\":8,\"accepted\":true}}\n"))
            .collect();
        std::fs::write(&path, text).expect("write");
        path
    }

    #[test]
    fn overlaps_coverage_and_the_merged_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let a = write(dir.path(), "a.jsonl", &["c", "a"]);
        let b = write(dir.path(), "b.jsonl", &["b", "x"]);
        let inputs = MergeInputs::read(&[a.clone(), b]).expect("reads");
        assert_eq!((inputs.len(), inputs.accepted), (4, 4));
        assert_eq!(inputs.mean_score(), Some(8.0));
        assert!(inputs.overlaps().is_empty());
        let coverage = inputs.coverage(["a", "b", "c", "d", "e"].map(String::from), 1);
        assert_eq!((coverage.expected, coverage.missing_count), (5, 2));
        assert_eq!(coverage.missing.iter().collect::<Vec<_>>(), ["d"]);
        assert_eq!(coverage.foreign, ["x"]);
        assert!(!coverage.is_complete());
        let into = dir.path().join("merged.jsonl");
        inputs.write(&into).expect("writes");
        let merged = std::fs::read_to_string(&into).expect("reads");
        let ids: Vec<&str> = merged.lines().map(|l| &l[7..8]).collect();
        assert_eq!(ids, ["a", "b", "c", "x"]);
        let twice = MergeInputs::read(&[a.clone(), a]).expect("reads");
        assert_eq!(twice.overlaps().len(), 2);
    }
}
