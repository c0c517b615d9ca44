//! The response journal a task carries beside its checkpoint on an object store (feature
//! `object-store`), so a rerun or a standby that takes over does not pay again for the answered
//! calls of the scenarios the checkpoint does not hold yet.
//!
//! The model client appends one JSON line per cached response of a scenario to a journal file
//! beside the local part (`{"scenario": id, …}`; the rest is the client's and is kept as it is,
//! checksum included). [`Carried`] follows three files by their offsets — the journal, the part
//! up to what the store's checkpoint holds, and the errors file — and keeps the lines of the
//! scenarios that are neither recorded in the uploaded checkpoint nor failed: memory is bounded
//! by the scenarios in flight and those written since the last upload, not by the task's size.
//! A scenario's calls are journaled before its record or failure is written, so following the
//! journal first never keeps a finished scenario's lines for good.

use std::collections::HashMap;
use std::io::{BufRead as _, Read as _, Seek as _};
use std::path::{Path, PathBuf};

/// A file followed line by line: what has been read of it.
#[derive(Debug)]
struct Followed {
    path: PathBuf,
    at: u64,
}

impl Followed {
    fn new(path: PathBuf) -> Self {
        Self { path, at: 0 }
    }

    /// Calls `line` on each whole line after the last read, up to `limit` bytes of the file
    /// (a torn last line waits for the next round). A file that shrank (rewritten at a run's
    /// end) is read again from its start.
    fn read_new(&mut self, limit: Option<u64>, mut line: impl FnMut(&str)) {
        let Ok(mut file) = std::fs::File::open(&self.path) else {
            return;
        };
        let len = file.metadata().map_or(0, |m| m.len());
        if len < self.at {
            self.at = 0;
        }
        let end = limit.map_or(len, |l| l.min(len));
        if end <= self.at || file.seek(std::io::SeekFrom::Start(self.at)).is_err() {
            return;
        }
        let mut reader = std::io::BufReader::new(file.take(end - self.at));
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) if buf.last() != Some(&b'\n') => return,
                Ok(n) => {
                    self.at += n as u64;
                    if let Ok(text) = std::str::from_utf8(&buf) {
                        line(text.trim_end());
                    }
                }
            }
        }
    }
}

/// The `field` string of a JSON line, if it has one.
fn field(line: &str, field: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(v.get(field)?.as_str()?.to_owned())
}

/// The journal lines of the scenarios still to do, followed round by round.
#[derive(Debug)]
pub(crate) struct Carried {
    journal: Followed,
    part: Followed,
    errors: Followed,
    live: HashMap<String, Vec<String>>,
    changed: bool,
}

impl Carried {
    /// Follows `journal`, the part `part` and its errors file from their starts.
    pub(crate) fn new(journal: PathBuf, part: &Path) -> Self {
        Self {
            journal: Followed::new(journal),
            part: Followed::new(part.to_path_buf()),
            errors: Followed::new(stdx::beside(part, ".errors.jsonl")),
            live: HashMap::new(),
            changed: false,
        }
    }

    /// Reads what is new: journal lines first, then the records up to `checkpointed` bytes of
    /// the part (what the store's checkpoint holds) and the failures, which drop their
    /// scenarios' lines. Returns whether the carried lines changed since the last call.
    pub(crate) fn advance(&mut self, checkpointed: u64) -> bool {
        let live = &mut self.live;
        let changed = &mut self.changed;
        self.journal.read_new(None, |line| {
            if let Some(id) = field(line, "scenario") {
                live.entry(id).or_default().push(line.to_owned());
                *changed = true;
            }
        });
        let mut drop_done = |line: &str| {
            if let Some(id) = field(line, "id")
                && live.remove(&id).is_some()
            {
                *changed = true;
            }
        };
        self.part.read_new(Some(checkpointed), &mut drop_done);
        self.errors.read_new(None, &mut drop_done);
        std::mem::take(&mut self.changed)
    }

    /// The carried lines, one per line, for the upload.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        for line in self.live.values().flatten() {
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// Journal lines carried now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.live.values().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn append(path: &Path, text: &str) {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open")
            .write_all(text.as_bytes())
            .expect("append");
    }

    #[test]
    fn lines_of_recorded_or_failed_scenarios_are_dropped_once_checkpointed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (journal, part) = (dir.path().join("j"), dir.path().join("p.jsonl"));
        let mut carried = Carried::new(journal.clone(), &part);
        assert!(!carried.advance(0), "nothing yet");
        append(
            &journal,
            "{\"scenario\":\"a\",\"k\":1}\n{\"scenario\":\"b\",\"k\":2}\n",
        );
        append(
            &journal,
            "{\"scenario\":\"c\",\"k\":3}\n{\"scenario\":\"a\",\"k\":4}\n{\"sce",
        );
        assert!(carried.advance(0));
        assert_eq!(carried.len(), 4, "the torn line waits");
        // a is recorded, but the store's checkpoint does not hold it yet: kept.
        let record = "{\"id\":\"a\",\"x\":1}\n";
        append(&part, record);
        assert!(!carried.advance(0));
        assert_eq!(carried.len(), 4);
        // Uploaded: a's two lines go; b failed: its line goes.
        append(&stdx::beside(&part, ".errors.jsonl"), "{\"id\":\"b\"}\n");
        assert!(carried.advance(record.len() as u64));
        assert_eq!(carried.text(), "{\"scenario\":\"c\",\"k\":3}\n");
        // The torn line completes.
        append(&journal, "nario\":\"d\"}\n");
        assert!(carried.advance(record.len() as u64));
        assert_eq!(carried.len(), 2);
    }
}
