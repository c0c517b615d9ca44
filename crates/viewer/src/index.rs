//! A compact index of a run's records, so that filters on status, scores, parameters, the gate
//! and the measurement read a small file instead of the run: per record its offset, line,
//! decision, scores, gate and measurement words and parameter values (as numbers into a
//! dictionary), about 100 bytes a record. It is written OUTSIDE the run's folder, in a cache
//! directory the application gives, under a name made of the run's path, size and modification
//! time: a run that changes (a live run growing) gets a new index, and a stale one is never
//! read. Reading it streams the entries; memory holds the dictionaries only.
//!
//! Text search still reads the run (the texts are not in the index).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use runlog::record::{Located, RecordReader, ScenarioRecord, unflatten_key};
use serde::{Deserialize, Serialize};

use crate::query::{RecordQuery, Status, gate_word, measurement_word};
use crate::record::Line;

/// More distinct values than this in one parameter, or more judges or parameters than
/// [`MAX_NAMES`], and the run is not indexed (its filters stream the file, as without one).
const MAX_VALUES: usize = 65_535;
/// See [`MAX_VALUES`].
const MAX_NAMES: usize = 255;

/// Bytes read at each end of a run's version to tell it from another file of the same length.
const SAMPLE: u64 = 64 * 1024;

/// Which version of a run file an index belongs to: its length up to its last whole line, a
/// hash of its first and last 64 KiB, and its modification time. A file replaced by another of
/// the same length (even with the same time, as `cp -p` or `rsync -t` leave it) differs in its
/// ends; one edited in place in the middle differs in its time. A file that only grew still
/// begins with the version indexed (same length, ends), whose index then serves its beginning.
/// A last line without its newline (being written) is not part of a version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndexKey {
    /// The run, canonical.
    pub path: PathBuf,
    /// The version's length: up to and with its last newline.
    pub len: u64,
    /// FNV-1a of its first 64 KiB.
    pub head: u64,
    /// FNV-1a of its last 64 KiB (before `len`).
    pub tail: u64,
    /// The file's modification time (seconds and nanoseconds since 1970), when the key was
    /// taken of the file as it is (`None` for a key of its beginning).
    pub modified: Option<(u64, u32)>,
}

impl IndexKey {
    /// The key of `path` as it is now.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        let mut file = std::fs::File::open(path)?;
        let whole = line_start_before(&mut file, meta.len())?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| (d.as_secs(), d.subsec_nanos()));
        Ok(Self {
            modified,
            ..Self::at(path, whole)?
        })
    }

    /// The key of the first `len` bytes of `path` as they are now.
    ///
    /// # Errors
    /// The file cannot be read, or is shorter than `len`.
    pub fn at(path: &Path, len: u64) -> std::io::Result<Self> {
        let mut file = std::fs::File::open(path)?;
        let sample = |file: &mut std::fs::File, from: u64, n: u64| -> std::io::Result<u64> {
            file.seek(SeekFrom::Start(from))?;
            let mut buf = vec![0u8; usize::try_from(n).unwrap_or(0)];
            file.read_exact(&mut buf)?;
            let mut h = Fnv::new();
            h.add(&buf);
            Ok(h.0)
        };
        let head = sample(&mut file, 0, len.min(SAMPLE))?;
        let tail = sample(&mut file, len.saturating_sub(SAMPLE), len.min(SAMPLE))?;
        Ok(Self {
            path: std::fs::canonicalize(path)?,
            len,
            head,
            tail,
            modified: None,
        })
    }

    /// Whether the file still begins with this version (it is this version, or grew from it:
    /// same bytes at both ends of its length).
    #[must_use]
    pub fn still_begins(&self) -> bool {
        Self::at(&self.path, self.len)
            .is_ok_and(|now| (now.len, now.head, now.tail) == (self.len, self.head, self.tail))
    }

    /// The prefix of every index file of this run (any version): its name and path hash.
    fn run_prefix(&self) -> String {
        let mut h = std::hash::DefaultHasher::new();
        self.path.hash(&mut h);
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        format!("{safe}-{:016x}-", h.finish())
    }

    /// The index file's name in the cache directory: the run's prefix and this version's hash.
    fn stem(&self) -> String {
        let mut h = std::hash::DefaultHasher::new();
        self.hash(&mut h);
        format!("{}{:016x}", self.run_prefix(), h.finish())
    }
}

/// The dictionaries of an index (its `.json` file, written last: its presence marks the
/// entries file complete).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Meta {
    /// Judges, by number.
    judges: Vec<String>,
    /// Parameters, by number, each with its values by number.
    params: Vec<(String, Vec<String>)>,
    /// Records indexed.
    records: u64,
    /// Lines that are not records.
    unreadable: u64,
    /// The entries file's length in bytes (checked when the index is opened).
    #[serde(default)]
    entries_bytes: u64,
    /// The version indexed: length and the hashes of its ends ([`IndexKey`]).
    #[serde(default)]
    len: u64,
    #[serde(default)]
    head: u64,
    #[serde(default)]
    tail: u64,
    /// The last line number of the version indexed (a run's lines after it are numbered on).
    #[serde(default)]
    lines: u64,
    /// The file's modification time when indexed.
    #[serde(default)]
    modified: Option<(u64, u32)>,
    /// FNV-1a of this meta serialized with `meta_hash` 0 (checked when the index is opened: a
    /// changed dictionary would give wrong answers with whole counts).
    #[serde(default)]
    meta_hash: u64,
    /// The entries file's FNV-1a hash (checked when the index is opened).
    #[serde(default)]
    checksum: u64,
}

impl Meta {
    /// The hash `meta_hash` holds: of this meta serialized with `meta_hash` 0.
    fn hash(&self) -> u64 {
        let mut plain = self.clone();
        plain.meta_hash = 0;
        let mut h = Fnv::new();
        h.add(&serde_json::to_vec(&plain).unwrap_or_default());
        h.0
    }

    /// The version of `path` this index covers.
    fn key(&self, path: &Path) -> IndexKey {
        IndexKey {
            path: path.to_owned(),
            len: self.len,
            head: self.head,
            tail: self.tail,
            modified: self.modified,
        }
    }
}

/// The start of the line that holds byte `pos - 1` of `file` (`pos` itself when that byte
/// ends a line, 0 when no newline comes before `pos`): where a version that ended inside a line
/// (being written then) ends, and where reading on from it starts.
///
/// # Errors
/// The file cannot be read.
pub fn line_start_before(file: &mut std::fs::File, pos: u64) -> std::io::Result<u64> {
    const CHUNK: u64 = 64 * 1024;
    let mut end = pos;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let from = end.saturating_sub(CHUNK);
        let n = usize::try_from(end - from).unwrap_or(0);
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut buf[..n])?;
        if let Some(at) = buf[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(from + at as u64 + 1);
        }
        end = from;
    }
    Ok(0)
}

/// FNV-1a, 64 bits: the entries file's checksum (damage, not tampering).
#[derive(Debug, Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    const fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A writer that counts and hashes what it writes.
struct Summing<W> {
    inner: W,
    bytes: u64,
    hash: Fnv,
}

impl<W: Write> Write for Summing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        self.hash.add(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Whether the entries file at `path` has the length and checksum its meta names.
fn intact(path: &Path, meta: &Meta) -> bool {
    let Ok(mut input) = std::fs::File::open(path) else {
        return false;
    };
    let mut hash = Fnv::new();
    let mut bytes = 0u64;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hash.add(&buf[..n]);
                bytes += n as u64;
            }
            Err(_) => return false,
        }
    }
    bytes == meta.entries_bytes && hash.0 == meta.checksum
}

/// One record in the index.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Byte offset of its line.
    pub offset: u64,
    /// Its line number.
    pub line: u32,
    /// Final score.
    pub score: f64,
    /// Accepted.
    pub accepted: bool,
    /// Gate word: 0 none, 1 passed, 2 failed, 3 undecided.
    pub gate: u8,
    /// Measurement word: 0 none, 1 measured, 2 unavailable.
    pub measurement: u8,
    /// Judge scores (judge number, score).
    pub scores: Vec<(u8, f64)>,
    /// Parameter values (parameter number, value number).
    pub params: Vec<(u8, u16)>,
}

const GATES: [&str; 4] = ["none", "passed", "failed", "undecided"];
const MEASUREMENTS: [&str; 3] = ["none", "measured", "unavailable"];

/// A finished index of one version of a run.
#[derive(Debug, Clone)]
pub struct Index {
    entries: PathBuf,
    meta: Meta,
}

/// A query in the index's numbers; `None` when it can match nothing (a value no record has).
struct Compiled {
    status: Status,
    params: Vec<(u8, u16)>,
    scores: Vec<(Option<u8>, Option<f64>, Option<f64>)>,
    gate: Option<u8>,
    measurement: Option<u8>,
}

impl Index {
    /// The index of `key`'s run in `dir` that serves it best: of the version `key` names, or
    /// of an earlier version the file still begins with (a run that grew: the index serves its
    /// beginning, the rest is read from the run), when one was built and is whole — its
    /// dictionaries hash to the hash they hold, its entries file has the length and checksum
    /// they name. A damaged one (truncated, changed) is removed, to be built again.
    #[must_use]
    pub fn find(dir: &Path, key: &IndexKey) -> Option<Self> {
        let prefix = key.run_prefix();
        let mut best: Option<Self> = None;
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let name = e.file_name();
            let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            let version = stem.strip_prefix(&prefix).unwrap_or_default();
            if version.len() != 16 || !version.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let Some(index) = Self::open_stem(dir, stem) else {
                continue;
            };
            let of = index.meta.key(&key.path);
            let fits = of == *key || (of.len < key.len && of.still_begins());
            if fits && best.as_ref().is_none_or(|b| b.meta.len < of.len) {
                best = Some(index);
            }
        }
        best
    }

    /// The index files named `stem` in `dir`, when whole; removed when damaged.
    fn open_stem(dir: &Path, stem: &str) -> Option<Self> {
        let meta_path = dir.join(format!("{stem}.json"));
        let entries = dir.join(format!("{stem}.idx"));
        let meta = std::fs::read(&meta_path).ok();
        let meta: Option<Meta> = meta.and_then(|m| serde_json::from_slice(&m).ok());
        match meta {
            Some(meta) if meta.meta_hash == meta.hash() && intact(&entries, &meta) => {
                Some(Self { entries, meta })
            }
            None if !entries.exists() => None,
            _ => {
                tracing::warn!(index = %entries.display(), "a damaged run index: removed, to be built again");
                let _ = std::fs::remove_file(&entries);
                let _ = std::fs::remove_file(&meta_path);
                None
            }
        }
    }

    /// The version of the run this index covers (its first [`IndexKey::len`] bytes).
    #[must_use]
    pub fn key(&self, path: &Path) -> IndexKey {
        self.meta.key(path)
    }

    /// The last line number the index covers.
    #[must_use]
    pub const fn lines(&self) -> u64 {
        self.meta.lines
    }

    /// Removes this index's files (it was found damaged while read).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.entries);
        let _ = std::fs::remove_file(self.entries.with_extension("json"));
    }

    /// Removes the index files of the other versions of `key`'s run from `dir` (a run that
    /// grew or changed leaves its old indexes behind otherwise).
    fn remove_stale(dir: &Path, key: &IndexKey) {
        let (prefix, stem) = (key.run_prefix(), key.stem());
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let finished = name.ends_with(".idx") || name.ends_with(".json");
            if finished && name.starts_with(&prefix) && !name.starts_with(&stem) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// Builds the index of the run `key` names into `dir` (created when missing); `None` when
    /// the run has too many judges, parameters or values to index. The run is read once.
    ///
    /// # Errors
    /// The run cannot be read, or the index cannot be written.
    pub fn build(dir: &Path, key: &IndexKey) -> std::io::Result<Option<Self>> {
        let mut builder = IndexBuilder::new(dir, key.clone())?;
        for item in RecordReader::<_, ScenarioRecord>::open(&key.path)? {
            match crate::record::line(item)? {
                // The file may have grown since its key was read: index only that version.
                Line::Record(located) if located.offset >= key.len => break,
                Line::Record(located) => builder.add(&located)?,
                // A last line still being written: not a record yet, and not unreadable.
                Line::Pending => {}
                Line::Unreadable(e) => builder.unreadable(e.line()),
            }
        }
        builder.finish()
    }

    /// Records indexed.
    #[must_use]
    pub fn records(&self) -> u64 {
        self.meta.records
    }

    /// Lines of the run that are not records.
    #[must_use]
    pub fn unreadable(&self) -> u64 {
        self.meta.unreadable
    }

    /// The parameters, each with every value a record has.
    #[must_use]
    pub fn params(&self) -> &[(String, Vec<String>)] {
        &self.meta.params
    }

    /// The judges' names.
    #[must_use]
    pub fn judges(&self) -> &[String] {
        &self.meta.judges
    }

    /// Streams every entry that `query` keeps (its text search aside: a query with words is
    /// answered by reading the run), in file order.
    ///
    /// # Errors
    /// The index cannot be read.
    pub fn matching(&self, query: &RecordQuery, mut f: impl FnMut(&Entry)) -> std::io::Result<()> {
        let Some(q) = self.compile(query) else {
            return Ok(());
        };
        let file = std::fs::File::open(&self.entries)?;
        let mut input = BufReader::with_capacity(256 * 1024, file.take(self.meta.entries_bytes));
        while let Some(e) = read_entry(&mut input)? {
            if q.matches(&e) {
                f(&e);
            }
        }
        Ok(())
    }

    fn compile(&self, query: &RecordQuery) -> Option<Compiled> {
        let mut params = Vec::new();
        for (name, value) in &query.params {
            let (i, (_, values)) = self
                .meta
                .params
                .iter()
                .enumerate()
                .find(|(_, (n, _))| n == name)?;
            let v = values.iter().position(|x| x == value)?;
            params.push((u8::try_from(i).ok()?, u16::try_from(v).ok()?));
        }
        let mut scores = Vec::new();
        for range in &query.scores {
            let judge = if range.judge == "score" {
                None
            } else {
                let i = self.meta.judges.iter().position(|j| *j == range.judge)?;
                Some(u8::try_from(i).ok()?)
            };
            scores.push((judge, range.min, range.max));
        }
        let word = |words: &[&str], w: &Option<String>| -> Option<Option<u8>> {
            match w {
                None => Some(None),
                Some(w) => words
                    .iter()
                    .position(|x| x == w)
                    .map(|i| u8::try_from(i).ok()),
            }
        };
        Some(Compiled {
            status: query.status,
            params,
            scores,
            gate: word(&GATES, &query.gate)?,
            measurement: word(&MEASUREMENTS, &query.measurement)?,
        })
    }
}

impl Compiled {
    fn matches(&self, e: &Entry) -> bool {
        let status = match self.status {
            Status::All => true,
            Status::Accepted => e.accepted,
            Status::Rejected => !e.accepted,
            Status::Failed => false,
        };
        status
            && self.params.iter().all(|p| e.params.contains(p))
            && self.scores.iter().all(|&(judge, min, max)| {
                let score = match judge {
                    None => Some(e.score),
                    Some(j) => e.scores.iter().find(|(x, _)| *x == j).map(|(_, s)| *s),
                };
                score.is_some_and(|s| min.is_none_or(|m| s >= m) && max.is_none_or(|m| s <= m))
            })
            && self.gate.is_none_or(|g| e.gate == g)
            && self.measurement.is_none_or(|m| e.measurement == m)
    }
}

/// An index being written, record by record, by whoever reads the run (the viewer's one
/// background pass feeds it and the overview together). Its entries go to a temporary file
/// that [`IndexBuilder::finish`] renames; dropped unfinished, the file is removed.
pub struct IndexBuilder {
    dir: PathBuf,
    key: IndexKey,
    tmp: PathBuf,
    /// `None` once the run proved unindexable (too many names or values).
    out: Option<Summing<BufWriter<std::fs::File>>>,
    meta: Meta,
    values: Vec<BTreeMap<String, u16>>,
}

impl IndexBuilder {
    /// An index of the run `key` names, to be written into `dir` (created when missing).
    ///
    /// # Errors
    /// The directory or the temporary file cannot be created.
    pub fn new(dir: &Path, key: IndexKey) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        remove_orphans(dir, &key.run_prefix());
        let tmp = dir.join(format!("{}.{}.tmp", key.stem(), std::process::id()));
        let out = Summing {
            inner: BufWriter::new(std::fs::File::create(&tmp)?),
            bytes: 0,
            hash: Fnv::new(),
        };
        Ok(Self {
            dir: dir.to_owned(),
            key,
            tmp,
            out: Some(out),
            meta: Meta::default(),
            values: Vec::new(),
        })
    }

    /// Adds a record of the run (in file order). Records past the length the key was taken
    /// at (the file grew since) are not of this version and are left out.
    ///
    /// # Errors
    /// The index cannot be written.
    pub fn add(&mut self, located: &Located<ScenarioRecord>) -> std::io::Result<()> {
        if located.offset >= self.key.len {
            return Ok(());
        }
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        if let Some(e) = entry(
            &located.record,
            located.offset,
            located.line,
            &mut self.meta,
            &mut self.values,
        ) {
            write_entry(out, &e)?;
            self.meta.records += 1;
            self.meta.lines = located.line as u64;
        } else {
            tracing::info!(path = %self.key.path.display(), "run not indexed: too many judges, parameters or values");
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
        Ok(())
    }

    /// Counts line `line` of the run, not a record.
    pub const fn unreadable(&mut self, line: usize) {
        self.meta.unreadable += 1;
        self.meta.lines = line as u64;
    }

    /// Writes the index (entries, then the dictionaries that mark it whole) and removes the
    /// run's older indexes; `None` when the run proved unindexable.
    ///
    /// # Errors
    /// The index cannot be written.
    pub fn finish(mut self) -> std::io::Result<Option<Index>> {
        let Some(mut out) = self.out.take() else {
            return Ok(None);
        };
        out.flush()?;
        // The file changed under the reading (replaced, rewritten): this is no index of it.
        if !self.key.still_begins() {
            tracing::info!(path = %self.key.path.display(), "the run changed while it was indexed; not kept");
            drop(out);
            let _ = std::fs::remove_file(&self.tmp);
            return Ok(None);
        }
        let mut meta = std::mem::take(&mut self.meta);
        meta.entries_bytes = out.bytes;
        meta.checksum = out.hash.0;
        meta.len = self.key.len;
        meta.head = self.key.head;
        meta.tail = self.key.tail;
        meta.modified = self.key.modified;
        meta.meta_hash = meta.hash();
        drop(out);
        let stem = self.key.stem();
        let entries = self.dir.join(format!("{stem}.idx"));
        std::fs::rename(&self.tmp, &entries)?;
        let meta_tmp = self
            .dir
            .join(format!("{stem}.{}.json.tmp", std::process::id()));
        std::fs::write(
            &meta_tmp,
            serde_json::to_vec(&meta).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(&meta_tmp, self.dir.join(format!("{stem}.json")))?;
        Index::remove_stale(&self.dir, &self.key);
        tracing::info!(path = %self.key.path.display(), records = meta.records, "run indexed");
        Ok(Some(Index { entries, meta }))
    }
}

/// Removes the run's temporary index files (`STEM.PID.tmp`, `STEM.PID.json.tmp`) whose writer
/// is gone (a viewer stopped while indexing; no process `PID` is running): a viewer beside it
/// that is still writing keeps its own.
fn remove_orphans(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        let Some(rest) = rest.strip_suffix(".tmp") else {
            continue;
        };
        let rest = rest.strip_suffix(".json").unwrap_or(rest);
        let Some(pid) = rest.rsplit('.').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let alive =
            Path::new(&format!("/proc/{pid}")).exists() || !Path::new("/proc/self").exists();
        if !alive {
            tracing::info!(file = %e.path().display(), "removed a partial index left by a stopped viewer");
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl Drop for IndexBuilder {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Numbers a name in `names`, adding it; `None` past `max`.
fn number(names: &mut Vec<String>, name: &str, max: usize) -> Option<usize> {
    if let Some(i) = names.iter().position(|n| n == name) {
        return Some(i);
    }
    (names.len() < max).then(|| {
        names.push(name.to_owned());
        names.len() - 1
    })
}

fn entry(
    r: &ScenarioRecord,
    offset: u64,
    line: usize,
    meta: &mut Meta,
    values: &mut Vec<BTreeMap<String, u16>>,
) -> Option<Entry> {
    let mut scores = Vec::with_capacity(r.scores.len());
    for (judge, score) in &r.scores {
        let i = number(&mut meta.judges, judge.as_str(), MAX_NAMES)?;
        scores.push((u8::try_from(i).ok()?, *score));
    }
    let mut params = Vec::with_capacity(r.params.len());
    for (key, value) in &r.params {
        let name = unflatten_key(key);
        let i = match meta.params.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None if meta.params.len() < MAX_NAMES => {
                meta.params.push((name.to_owned(), Vec::new()));
                values.push(BTreeMap::new());
                meta.params.len() - 1
            }
            None => return None,
        };
        let text = reports::figures::value_text(value);
        let v = match values[i].get(&text) {
            Some(&v) => v,
            None if values[i].len() < MAX_VALUES => {
                let v = u16::try_from(values[i].len()).ok()?;
                values[i].insert(text.clone(), v);
                meta.params[i].1.push(text);
                v
            }
            None => return None,
        };
        params.push((u8::try_from(i).ok()?, v));
    }
    Some(Entry {
        offset,
        line: u32::try_from(line).unwrap_or(u32::MAX),
        score: r.score,
        accepted: r.accepted,
        gate: u8::try_from(GATES.iter().position(|g| *g == gate_word(r)).unwrap_or(0)).unwrap_or(0),
        measurement: u8::try_from(
            MEASUREMENTS
                .iter()
                .position(|m| *m == measurement_word(r))
                .unwrap_or(0),
        )
        .unwrap_or(0),
        scores,
        params,
    })
}

fn write_entry(out: &mut impl Write, e: &Entry) -> std::io::Result<()> {
    out.write_all(&e.offset.to_le_bytes())?;
    out.write_all(&e.line.to_le_bytes())?;
    out.write_all(&e.score.to_le_bytes())?;
    out.write_all(&[u8::from(e.accepted), e.gate, e.measurement])?;
    out.write_all(&[u8::try_from(e.scores.len()).unwrap_or(u8::MAX)])?;
    for (j, s) in &e.scores {
        out.write_all(&[*j])?;
        out.write_all(&s.to_le_bytes())?;
    }
    out.write_all(&[u8::try_from(e.params.len()).unwrap_or(u8::MAX)])?;
    for (p, v) in &e.params {
        out.write_all(&[*p])?;
        out.write_all(&v.to_le_bytes())?;
    }
    Ok(())
}

fn read_entry(input: &mut impl Read) -> std::io::Result<Option<Entry>> {
    let mut head = [0u8; 8];
    match input.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut fixed = [0u8; 4 + 8 + 3 + 1];
    input.read_exact(&mut fixed)?;
    let mut scores = Vec::with_capacity(usize::from(fixed[15]));
    for _ in 0..fixed[15] {
        let mut b = [0u8; 9];
        input.read_exact(&mut b)?;
        scores.push((
            b[0],
            f64::from_le_bytes(b[1..].try_into().unwrap_or_default()),
        ));
    }
    let mut n = [0u8; 1];
    input.read_exact(&mut n)?;
    let mut params = Vec::with_capacity(usize::from(n[0]));
    for _ in 0..n[0] {
        let mut b = [0u8; 3];
        input.read_exact(&mut b)?;
        params.push((b[0], u16::from_le_bytes([b[1], b[2]])));
    }
    Ok(Some(Entry {
        offset: u64::from_le_bytes(head),
        line: u32::from_le_bytes(fixed[..4].try_into().unwrap_or_default()),
        score: f64::from_le_bytes(fixed[4..12].try_into().unwrap_or_default()),
        accepted: fixed[12] == 1,
        gate: fixed[13],
        measurement: fixed[14],
        scores,
        params,
    }))
}
