//! Opening result files: detects whether a file is a data-pipeline output (JSONL, one
//! `ScenarioRecord` per line) or a bot-suite result (the `--json` output of `test`). A suite
//! result is small and parsed whole; a pipeline output is never held: [`PipelineRun`] streams its
//! records through `runlog`'s [`RecordReader`] as often as a command needs to read them. Every
//! error names the file and, where there is one, the line.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use runlog::record::{Located, RecordError, RecordReader, ScenarioRecord};
use scoring::SuiteResult;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// Why a results file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read at all.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file has no result in it.
    #[error("{}: empty results file", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// Not a regular file (a pipe, a device): a results file is read twice, once to tell its
    /// kind and once to stream it, which a stream cannot be.
    #[error(
        "{}: not a regular file; results are read twice (kind, then records): save the stream \
         to a file first",
        path.display()
    )]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A line (or the whole document) is not valid JSON, or lacks a required field.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl LoadError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        |source| Self::Io {
            path: path.to_owned(),
            source,
        }
    }

    fn record(path: &Path, e: &RecordError) -> Self {
        Self::Invalid {
            path: path.to_owned(),
            line: e.line(),
            message: e.reason(),
        }
    }
}

/// What kind of results a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultsKind {
    /// Data-pipeline JSONL.
    Pipeline,
    /// Bot-suite JSON.
    Suite,
    /// A run's errors file (`<out>.errors.jsonl`): its failed scenarios.
    Failures,
}

impl ResultsKind {
    /// A short human name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Pipeline => "pipeline run",
            Self::Suite => "bot suite",
            Self::Failures => "errors file",
        }
    }
}

/// An opened results file.
#[derive(Debug, Clone)]
pub enum Results {
    /// A data-pipeline output, read on demand.
    Pipeline(PipelineRun),
    /// A bot-suite result.
    Suite(SuiteResult),
    /// A run's errors file: its failed scenarios, without the run's records.
    Failures(PathBuf),
}

impl Results {
    /// The kind of results.
    #[must_use]
    pub fn kind(&self) -> ResultsKind {
        match self {
            Self::Pipeline(_) => ResultsKind::Pipeline,
            Self::Suite(_) => ResultsKind::Suite,
            Self::Failures(_) => ResultsKind::Failures,
        }
    }
}

/// A data-pipeline output file whose records are streamed, never loaded whole.
#[derive(Debug, Clone)]
pub struct PipelineRun {
    path: PathBuf,
}

impl PipelineRun {
    /// The pipeline output at `path`, taken as one without looking (an empty file of a run
    /// that has not written a record yet: the viewer compares it as a run of nothing).
    #[must_use]
    pub fn at(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
        }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads every record in file order, stopping at the first line that is not one.
    ///
    /// # Errors
    /// The file cannot be read, or a line is not a record (located).
    pub fn for_each(&self, mut f: impl FnMut(Located<ScenarioRecord>)) -> Result<u64, LoadError> {
        let mut n = 0u64;
        for item in RecordReader::open(&self.path).map_err(LoadError::io(&self.path))? {
            f(item.map_err(|e| LoadError::record(&self.path, &e))?);
            n += 1;
        }
        Ok(n)
    }
}

/// The first line of a file, read only to tell a one-line suite result from a JSONL record.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    scenarios: Option<IgnoredAny>,
    #[serde(default)]
    reason: Option<IgnoredAny>,
    #[serde(default)]
    score: Option<IgnoredAny>,
}

impl Probe {
    /// An errors-file line: a failure's reason, and no score.
    fn is_failure(&self) -> bool {
        self.reason.is_some() && self.score.is_none() && self.scenarios.is_none()
    }
}

/// Opens a results file, detecting its kind from its first line: a line that is a whole JSON
/// value starts a pipeline output (unless it has a `scenarios` field: a one-line suite result;
/// or a `reason` and no `score`: a run's errors file);
/// anything else must be a (usually pretty-printed) suite document, parsed whole. A pipeline
/// output's records are checked when they are read ([`PipelineRun::for_each`]).
///
/// # Errors
/// See [`LoadError`].
pub fn load(path: &Path) -> Result<Results, LoadError> {
    let file = std::fs::File::open(path).map_err(LoadError::io(path))?;
    // A pipe read once for its kind would stream as an empty run (and `diff` pass in CI).
    if !file.metadata().map_err(LoadError::io(path))?.is_file() {
        return Err(LoadError::NotAFile {
            path: path.to_owned(),
        });
    }
    let mut first: RecordReader<_, Probe> = RecordReader::new(BufReader::new(file));
    let results = match first.next() {
        // An empty output whose run failed every scenario is a run with no records: its
        // errors file has the failures, which every report counts.
        None if has_failures(path) => Results::Pipeline(PipelineRun {
            path: path.to_owned(),
        }),
        None => {
            return Err(LoadError::Empty {
                path: path.to_owned(),
            });
        }
        Some(Ok(probe)) if probe.record.is_failure() => Results::Failures(path.to_owned()),
        Some(Ok(probe)) if probe.record.scenarios.is_none() => Results::Pipeline(PipelineRun {
            path: path.to_owned(),
        }),
        Some(Err(RecordError::Io { source, .. })) => return Err(LoadError::io(path)(source)),
        Some(Ok(_) | Err(_)) => Results::Suite(suite(path)?),
    };
    tracing::debug!(path = %path.display(), kind = results.kind().name(), "results opened");
    Ok(results)
}

/// Whether a non-empty errors file lies beside `out`.
fn has_failures(out: &Path) -> bool {
    std::fs::metadata(runlog::record::errors_path(out)).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// A suite document, read whole (suite results are small: one entry per scenario of a suite).
fn suite(path: &Path) -> Result<SuiteResult, LoadError> {
    let text = std::fs::read_to_string(path).map_err(LoadError::io(path))?;
    serde_json::from_str::<SuiteResult>(&text).map_err(|e| LoadError::Invalid {
        path: path.to_owned(),
        line: e.line(),
        message: if e.is_data() {
            format!("not a suite result: {e}")
        } else {
            e.to_string()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    fn records(path: &Path) -> Result<Vec<Located<ScenarioRecord>>, LoadError> {
        let Results::Pipeline(run) = load(path)? else {
            panic!("expected a pipeline run");
        };
        let mut out = Vec::new();
        run.for_each(|r| out.push(r))?;
        Ok(out)
    }

    #[test]
    fn jsonl_records_keep_params_and_tolerate_missing_fields() {
        let text = format!(
            "{}\n\n{}\n",
            json!({"id": "a", "score": 8.5, "accepted": true, "topic": "travel", "index": 3,
                   "measurement": {"embedded_ratio": 0.4, "tagged": {"first": 6, "second": 4}}}),
            json!({"id": "b", "score": 2.0, "accepted": false, "measurement": {"embedded_ratio": 0.0, "tagged": {"first": 0, "second": 0}}})
        );
        let (_dir, path) = file(&text);
        let rs = records(&path).expect("valid");
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].record.params.get("topic"), Some(&json!("travel")));
        assert_eq!(rs[0].record.params.len(), 1);
        assert_eq!(rs[0].record.measured_ratio(), Some(0.4));
        assert_eq!(rs[1].line, 3);
        assert_eq!(rs[1].record.measured_ratio(), None);
    }

    #[test]
    fn bad_lines_are_located() {
        let (_dir, path) =
            file("{\"id\":\"a\",\"score\":1,\"accepted\":true}\n{\"id\":\"b\",\"score\":2}\n");
        let err = records(&path).expect_err("missing accepted");
        let text = err.to_string();
        assert!(
            text.contains("r.jsonl:2: not a record: missing field `accepted`"),
            "{text}"
        );
        let (_dir, path) = file("{\"id\":\"a\",\"score\":1,\"accepted\":true}\n{oops\n");
        let err = records(&path).expect_err("broken JSON");
        assert!(err.to_string().contains("r.jsonl:2: invalid JSON"), "{err}");
        let (_dir, path) = file(" \n");
        assert!(matches!(load(&path), Err(LoadError::Empty { .. })));
    }

    #[test]
    fn suite_documents_are_detected_and_their_errors_located() {
        let doc = json!({"suite": "s", "repeat": 1, "scenarios": []});
        let (_dir, path) = file(&serde_json::to_string_pretty(&doc).expect("serializes"));
        assert!(matches!(load(&path), Ok(Results::Suite(s)) if s.suite == "s"));
        let (_dir, path) = file(&serde_json::to_string(&doc).expect("serializes"));
        assert!(
            matches!(load(&path), Ok(Results::Suite(_))),
            "one-line suite"
        );
        let (_dir, path) = file("{\n  \"suite\": \"s\",\n  oops\n}\n");
        let err = load(&path).expect_err("broken");
        assert!(err.to_string().contains("r.jsonl:3:"), "{err}");
    }
}
