//! Streaming, tolerant reading of run output: one JSONL line at a time, each line numbered and
//! located (byte offset), with a bounded line length so a corrupt file cannot make a reader hold
//! an unbounded line in memory. Every reader of run output goes through [`RecordReader`]: the
//! report, diff, merge, the checkpoint of a resumed run and the judge audit.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::ScenarioRecord;

/// The longest line a [`RecordReader`] accepts by default (16 MiB; a record is a few KiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Why one line of run output could not be read. Each error names its 1-based line; the reader
/// goes on with the next line after any error but [`RecordError::Io`].
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The underlying reader failed; the reader stops.
    #[error("line {line}: cannot read: {source}")]
    Io {
        /// 1-based line being read.
        line: usize,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The line is not a record (invalid JSON, or `id`, `score` or `accepted` missing or mistyped).
    #[error("line {line}: {}", invalid(source))]
    Invalid {
        /// 1-based line.
        line: usize,
        /// What serde found.
        #[source]
        source: serde_json::Error,
    },
    /// The line is longer than the reader's limit; it was skipped without being held.
    #[error("line {line}: longer than {max} bytes")]
    TooLong {
        /// 1-based line.
        line: usize,
        /// The limit.
        max: usize,
    },
    /// The file ends in a line cut short (an interrupted write).
    #[error("line {line}: the last line is cut short (an interrupted write?): {source}")]
    Torn {
        /// 1-based line.
        line: usize,
        /// What serde found.
        #[source]
        source: serde_json::Error,
    },
}

fn invalid(e: &serde_json::Error) -> String {
    if e.is_data() {
        format!("not a record: {e}")
    } else {
        format!("invalid JSON: {e}")
    }
}

impl RecordError {
    /// What is wrong, without the line number (for messages that put `file:line:` first).
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            Self::Io { source, .. } => format!("cannot read: {source}"),
            Self::Invalid { source, .. } => invalid(source),
            Self::TooLong { max, .. } => format!("longer than {max} bytes"),
            Self::Torn { source, .. } => {
                format!("the last line is cut short (an interrupted write?): {source}")
            }
        }
    }

    /// The 1-based line of the problem.
    #[must_use]
    pub fn line(&self) -> usize {
        match self {
            Self::Io { line, .. }
            | Self::Invalid { line, .. }
            | Self::TooLong { line, .. }
            | Self::Torn { line, .. } => *line,
        }
    }
}

/// A value read from one line, with where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line's start in the input.
    pub offset: u64,
    /// The value.
    pub record: T,
}

/// The id-only view of a record (or of a failure line of the errors file): what a checkpoint
/// needs, without parsing the rest.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RecordId {
    /// The scenario id.
    pub id: String,
}

/// Reads JSONL run output line by line as `T` ([`ScenarioRecord`] unless a narrower view such
/// as [`RecordId`] is enough). Blank lines are skipped; memory is one line (at most
/// the limit, [`DEFAULT_MAX_LINE_BYTES`] unless set) plus the value.
///
/// ```
/// use runlog::record::{RecordReader, ScenarioRecord};
/// let text = "{\"id\":\"a\",\"score\":8.5,\"accepted\":true,\"topic\":\"food\"}\n\n{\"id\":\"b\"";
/// let mut reader: RecordReader<_, ScenarioRecord> = RecordReader::new(text.as_bytes());
/// let first = reader.next().expect("a line")?;
/// assert_eq!((first.line, first.record.id.as_str()), (1, "a"));
/// assert_eq!(first.record.schema_version, 1); // written before versions existed
/// let torn = reader.next().expect("a line").expect_err("cut short");
/// assert_eq!(torn.line(), 3);
/// assert!(reader.next().is_none());
/// # Ok::<(), runlog::record::RecordError>(())
/// ```
#[derive(Debug)]
pub struct RecordReader<R, T = ScenarioRecord> {
    reader: R,
    buf: Vec<u8>,
    line: usize,
    offset: u64,
    max_line_bytes: usize,
    stopped: bool,
    view: PhantomData<fn() -> T>,
}

impl<T> RecordReader<BufReader<File>, T> {
    /// Opens a file for reading.
    ///
    /// # Errors
    /// The error of opening the file.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        Ok(Self::new(BufReader::with_capacity(
            256 * 1024,
            File::open(path)?,
        )))
    }
}

impl<R, T> RecordReader<R, T> {
    /// A reader over `reader` with the default line limit.
    #[must_use]
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            buf: Vec::new(),
            line: 0,
            offset: 0,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            stopped: false,
            view: PhantomData,
        }
    }

    /// Sets the longest line accepted; a longer line is a [`RecordError::TooLong`].
    #[must_use]
    pub fn with_max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max.max(1);
        self
    }
}

impl<R: BufRead, T> RecordReader<R, T> {
    /// Discards the rest of an over-long line; returns the bytes skipped.
    fn skip_line(&mut self) -> std::io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(skipped);
            }
            let (used, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            self.reader.consume(used);
            skipped += used as u64;
            if done {
                return Ok(skipped);
            }
        }
    }
}

impl<R: BufRead, T: DeserializeOwned> Iterator for RecordReader<R, T> {
    type Item = Result<Located<T>, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::Read as _;
        while !self.stopped {
            self.buf.clear();
            self.line += 1;
            let line = self.line;
            let start = self.offset;
            let limit = self.max_line_bytes as u64 + 1;
            let read = (&mut self.reader)
                .take(limit)
                .read_until(b'\n', &mut self.buf);
            let n = match read {
                Ok(0) => return None,
                Ok(n) => n,
                Err(source) => {
                    self.stopped = true;
                    return Some(Err(RecordError::Io { line, source }));
                }
            };
            self.offset += n as u64;
            let ended = self.buf.last() == Some(&b'\n');
            if !ended && self.buf.len() > self.max_line_bytes {
                match self.skip_line() {
                    Ok(skipped) => self.offset += skipped,
                    Err(source) => {
                        self.stopped = true;
                        return Some(Err(RecordError::Io { line, source }));
                    }
                }
                tracing::warn!(line, max = self.max_line_bytes, "over-long line skipped");
                return Some(Err(RecordError::TooLong {
                    line,
                    max: self.max_line_bytes,
                }));
            }
            let mut text = self.buf.trim_ascii();
            // A UTF-8 byte order mark at the start of the file (a Windows editor's) is no text.
            if start == 0 {
                text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            }
            if text.is_empty() {
                continue;
            }
            return Some(match serde_json::from_slice::<T>(text) {
                Ok(record) => Ok(Located {
                    line,
                    offset: start,
                    record,
                }),
                Err(source) if !ended && source.is_eof() => Err(RecordError::Torn { line, source }),
                Err(source) => Err(RecordError::Invalid { line, source }),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: DeserializeOwned>(text: &str) -> Vec<Result<Located<T>, RecordError>> {
        RecordReader::new(text.as_bytes()).collect()
    }

    #[test]
    fn lines_are_numbered_and_located_and_blank_lines_skipped() {
        let text = "{\"id\":\"a\",\"score\":1,\"accepted\":true}\n\n\r\n{\"id\":\"b\",\"score\":2.5,\"accepted\":false}\r\n";
        let records: Vec<Located<ScenarioRecord>> = read(text)
            .into_iter()
            .collect::<Result<_, _>>()
            .expect("valid");
        assert_eq!(records.len(), 2);
        let second = text.find("{\"id\":\"b").expect("second record");
        assert_eq!((records[1].line, records[1].offset), (4, second as u64));
        assert!((records[1].record.score - 2.5).abs() < 1e-12);
    }

    #[test]
    fn missing_required_fields_are_located_errors_and_reading_goes_on() {
        let text =
            "{\"id\":\"a\",\"score\":1}\n{oops\n{\"id\":\"c\",\"score\":1,\"accepted\":true}\n";
        let items = read::<ScenarioRecord>(text);
        assert_eq!(items.len(), 3);
        let err = items[0].as_ref().expect_err("no accepted");
        assert!(err.to_string().contains("accepted"), "{err}");
        assert!(matches!(
            items[1],
            Err(RecordError::Invalid { line: 2, .. })
        ));
        assert!(items[2].is_ok());
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_skipped() {
        let items = read::<RecordId>("\u{feff}{\"id\":\"a\"}\n\u{feff}{\"id\":\"b\"}\n");
        assert_eq!(items[0].as_ref().expect("first").record.id, "a");
        assert!(items[1].is_err(), "only the file's first bytes");
    }

    #[test]
    fn a_torn_last_line_is_reported_as_torn() {
        let items = read::<RecordId>("{\"id\":\"a\"}\n{\"id\":\"b\",\"da");
        assert!(items[0].is_ok());
        assert!(matches!(items[1], Err(RecordError::Torn { line: 2, .. })));
        // A complete last line without its newline is a record.
        let items = read::<RecordId>("{\"id\":\"a\"}");
        assert_eq!(items.len(), 1);
        assert!(items[0].is_ok());
    }

    #[test]
    fn an_over_long_line_is_an_error_and_skipped_without_being_held() {
        let long = format!("{{\"id\":\"{}\"}}", "x".repeat(100));
        let text = format!("{{\"id\":\"a\"}}\n{long}\n{{\"id\":\"c\"}}\n");
        let items: Vec<_> = RecordReader::<_, RecordId>::new(text.as_bytes())
            .with_max_line_bytes(32)
            .collect();
        assert_eq!(items.len(), 3);
        assert!(matches!(
            items[1],
            Err(RecordError::TooLong { line: 2, max: 32 })
        ));
        let last = items[2].as_ref().expect("the next line reads");
        assert_eq!((last.line, last.record.id.as_str()), (3, "c"));
        assert_eq!(last.offset as usize, text.rfind('{').expect("brace"));
    }

    #[test]
    fn unknown_fields_are_kept_as_params_and_missing_optional_fields_default() {
        let items = read::<ScenarioRecord>(
            "{\"id\":\"a\",\"score\":9,\"accepted\":true,\"topic\":\"food\",\"future_field\":[1]}\n",
        );
        let record = &items[0].as_ref().expect("valid").record;
        assert_eq!(record.schema_version, 1);
        assert!(record.run_settings.is_none());
        assert!(record.attempts.is_empty());
        assert_eq!(record.calls, 0);
        assert_eq!(
            record.params.keys().collect::<Vec<_>>(),
            ["future_field", "topic"]
        );
    }
}
