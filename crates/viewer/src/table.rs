//! One page of a run's records table, streamed: the file is read record by record and only the
//! page's rows and the counts are kept (file order), or, when sorted, 24 bytes per matching
//! record (its sort key, offset and line), after which the page's records are read again at their
//! offsets. A run's failed scenarios (its errors file, less those with a record) are paged the
//! same way, keeping one small entry per failure.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Seek;
use std::path::Path;

use runlog::record::{FailureRecord, RecordId, RecordReader, ScenarioRecord, errors_path};
use serde::Serialize;

use crate::index::Index;
use crate::query::{RecordQuery, Sort, Status, gate_word, measurement_word};
use crate::record::{Line, read_at};

/// Rows on a page.
pub const PAGE_ROWS: usize = 50;

/// Characters of a record's first text shown in the table.
const PREVIEW_CHARS: usize = 160;

/// Judges shown as columns, at most (a run rarely has more than a handful).
const MAX_JUDGE_COLUMNS: usize = 16;

/// One row of the records table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Byte offset of the record's line: its address on the record page.
    pub offset: u64,
    /// Line number.
    pub line: usize,
    /// Scenario id.
    pub id: String,
    /// Accepted.
    pub accepted: bool,
    /// Final score, formatted.
    pub score: String,
    /// Each judge column's score, formatted (`–` when the record has none).
    pub scores: Vec<String>,
    /// Gate decision word.
    pub gate: &'static str,
    /// Measurement word.
    pub measurement: &'static str,
    /// The first text, cut.
    pub preview: String,
}

/// A failed scenario (status `failed`).
#[derive(Debug, Clone, Serialize)]
pub struct FailedRow {
    /// Scenario id.
    pub id: String,
    /// The role or judge that failed.
    pub role: String,
    /// The reason written.
    pub reason: String,
}

/// A page of the table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Page {
    /// The rows.
    pub rows: Vec<Row>,
    /// Failed scenarios (status `failed` only).
    pub failed: Vec<FailedRow>,
    /// Judge columns.
    pub judges: Vec<String>,
    /// Records read.
    pub records: u64,
    /// Rows that match the filters.
    pub matched: u64,
    /// Of those, accepted.
    pub matched_accepted: u64,
    /// Lines that are not records (invalid, too long), skipped.
    pub unreadable: u64,
    /// The last line is still being written (no newline, not whole yet): left out, not counted.
    pub pending: bool,
    /// Why the errors file could not be read (status `failed`: its failures are missing).
    pub errors_problem: Option<String>,
    /// Filters naming a judge or parameter the run does not have (they match nothing).
    pub unknown: Vec<String>,
    /// This page (from 1).
    pub page: usize,
    /// The filters were answered from the run's index (not by reading the run).
    pub indexed: bool,
    /// Pages (partial: this one, and one more when a match lies beyond it).
    pub pages: usize,
    /// The run was read only as far as this page needed (a large run without its index, or a
    /// text search of one): `records`, `matched` and `matched_accepted` count what was read.
    pub partial: bool,
    /// The sort asked for waits for the run's index (being built): this page is in file order.
    pub sort_waits: bool,
    /// The run's index is being built (a partial page's counts will be whole once it is).
    pub index_coming: bool,
}

/// How much of a run a page may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// All of it: the counts are whole (a small run, or a large one that cannot be indexed).
    Whole,
    /// In file order, only as far as the page's rows and one match beyond (to know whether a
    /// next page exists): a large run's first page answers at once. A sorted query reads the
    /// whole run still.
    Page,
}

/// Reads the page of `path`'s records that `query` asks for: from `index` (the run's, for
/// the file as it is now) when there is one and the query searches no text, else by reading
/// the run, as far as `reach` allows.
///
/// # Errors
/// The file cannot be opened or read.
pub fn page(
    path: &Path,
    query: &RecordQuery,
    index: Option<&Index>,
    reach: Reach,
) -> std::io::Result<Page> {
    if query.status == Status::Failed {
        return failed_page(path, query);
    }
    if let Some(index) = index.filter(|_| query.text.is_empty()) {
        return indexed_page(path, query, index);
    }
    read_page(path, query, reach, None)
}

/// A page sent while it is read (a text search of a large run): each row is handed to `on_row`
/// as soon as it is found, with the judge columns given (the page's are not known before the
/// end). `on_row` answers `false` when nobody listens any more: the reading stops.
pub struct Streamed<'a> {
    /// The judge columns of every row.
    pub columns: Vec<String>,
    /// Takes each row of the page, in file order.
    pub on_row: &'a mut dyn FnMut(&Row) -> bool,
}

/// [`page`] in file order with its rows handed out as they are found (`query` sorted by file).
///
/// # Errors
/// The file cannot be opened or read.
pub fn streamed_page(
    path: &Path,
    query: &RecordQuery,
    reach: Reach,
    stream: Streamed<'_>,
) -> std::io::Result<Page> {
    read_page(path, query, reach, Some(stream))
}

/// [`page`] by reading the run, handing rows to `stream` as they are found when there is one.
fn read_page(
    path: &Path,
    query: &RecordQuery,
    reach: Reach,
    mut stream: Option<Streamed<'_>>,
) -> std::io::Result<Page> {
    let first = (query.page - 1).saturating_mul(PAGE_ROWS);
    let mut out = Page {
        page: query.page,
        ..Page::default()
    };
    let mut judges = BTreeSet::new();
    let (mut all_judges, mut all_params) = (BTreeSet::new(), BTreeSet::new());
    // Sorted: the key and offset of every match; file order: the page's records only.
    let mut keys: Vec<(f64, u64, usize)> = Vec::new();
    let mut records: Vec<(usize, u64, ScenarioRecord)> = Vec::new();
    for item in RecordReader::<_, ScenarioRecord>::open(path)? {
        let Some(located) = out.take(item)? else {
            continue;
        };
        let record = &located.record;
        if judges.len() < MAX_JUDGE_COLUMNS {
            judges.extend(record.scores.keys().map(|j| j.as_str().to_owned()));
        }
        if !query.scores.is_empty() || !query.params.is_empty() {
            names(record, &mut all_judges, &mut all_params);
        }
        if !query.matches(record) {
            continue;
        }
        let index = out.matched;
        out.matched += 1;
        out.matched_accepted += u64::from(record.accepted);
        match query.sort.key(located.offset, record.score) {
            Some(key) => keys.push((key, located.offset, located.line)),
            None => {
                if index as usize >= first && records.len() < PAGE_ROWS {
                    if let Some(st) = stream.as_mut()
                        && !(st.on_row)(&row(located.line, located.offset, record, &st.columns))
                    {
                        out.partial = true;
                        break;
                    }
                    records.push((located.line, located.offset, located.record));
                } else if reach == Reach::Page && records.len() == PAGE_ROWS {
                    // A match beyond the page: there is a next one, and reading stops.
                    out.partial = true;
                    break;
                }
            }
        }
    }
    if query.sort != Sort::File {
        keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, offset, line) in keys.iter().skip(first).take(PAGE_ROWS) {
            if let Some((_, record)) = read_at(path, offset)? {
                records.push((line, offset, record));
            }
        }
    }
    // Names are known unknown only once every record was read.
    if !out.partial {
        out.unknown = query.unknown_names(
            all_judges.iter().map(String::as_str),
            all_params.iter().map(String::as_str),
        );
    }
    out.judges = match stream {
        Some(st) => st.columns,
        None => judges.into_iter().collect(),
    };
    out.rows = records
        .into_iter()
        .map(|(line, offset, r)| row(line, offset, &r, &out.judges))
        .collect();
    out.pages = if out.partial {
        query.page.saturating_add(1)
    } else {
        pages(out.matched)
    };
    Ok(out)
}

/// [`page`] from the run's index: the entries are streamed, the page's records read at their
/// offsets.
fn indexed_page(path: &Path, query: &RecordQuery, index: &Index) -> std::io::Result<Page> {
    let first = (query.page - 1).saturating_mul(PAGE_ROWS);
    let mut out = Page {
        page: query.page,
        records: index.records(),
        unreadable: index.unreadable(),
        indexed: true,
        judges: index
            .judges()
            .iter()
            .take(MAX_JUDGE_COLUMNS)
            .cloned()
            .collect(),
        ..Page::default()
    };
    out.judges.sort();
    out.unknown = query.unknown_names(
        index.judges().iter().map(String::as_str),
        index.params().iter().map(|(n, _)| n.as_str()),
    );
    let mut keys: Vec<(f64, u64, usize)> = Vec::new();
    let mut add = |out: &mut Page, offset: u64, line: usize, score: f64, accepted: bool| {
        let n = out.matched;
        out.matched += 1;
        out.matched_accepted += u64::from(accepted);
        match query.sort.key(offset, score) {
            Some(key) => keys.push((key, offset, line)),
            None if n as usize >= first && keys.len() < PAGE_ROWS => keys.push((0.0, offset, line)),
            None => {}
        }
    };
    index.matching(query, |e| {
        add(&mut out, e.offset, e.line as usize, e.score, e.accepted);
    })?;
    // The run grew since the version indexed: the rest is read from the run.
    let (mut tail_judges, mut tail_params) = (BTreeSet::new(), BTreeSet::new());
    let covered = index.key(path).len;
    let mut file = std::fs::File::open(path)?;
    let start = crate::index::line_start_before(&mut file, covered)?;
    file.seek(std::io::SeekFrom::Start(start))?;
    let lines = usize::try_from(index.lines()).unwrap_or(usize::MAX);
    for item in RecordReader::<_, ScenarioRecord>::new(std::io::BufReader::new(file)) {
        let Some(located) = out.take(item)? else {
            continue;
        };
        let r = &located.record;
        names(r, &mut tail_judges, &mut tail_params);
        if query.matches(r) {
            add(
                &mut out,
                start + located.offset,
                lines + located.line,
                r.score,
                r.accepted,
            );
        }
    }
    if !tail_judges.is_empty() || !tail_params.is_empty() {
        out.unknown = query.unknown_names(
            index
                .judges()
                .iter()
                .chain(&tail_judges)
                .map(String::as_str),
            index
                .params()
                .iter()
                .map(|(n, _)| n)
                .chain(&tail_params)
                .map(String::as_str),
        );
    }
    let skip = if query.sort == Sort::File {
        0
    } else {
        keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        first
    };
    for &(_, offset, line) in keys.iter().skip(skip).take(PAGE_ROWS) {
        if let Some((_, record)) = read_at(path, offset)? {
            out.rows.push(row(line, offset, &record, &out.judges));
        }
    }
    out.pages = pages(out.matched);
    Ok(out)
}

impl Page {
    /// The record of `item`, counted; `None` for a line skipped (counted as unreadable, or
    /// as the last line still being written); an I/O error stops.
    fn take<T>(
        &mut self,
        item: Result<runlog::record::Located<T>, runlog::record::RecordError>,
    ) -> std::io::Result<Option<runlog::record::Located<T>>> {
        Ok(match crate::record::line(item)? {
            Line::Record(located) => {
                self.records += 1;
                Some(located)
            }
            Line::Pending => {
                self.pending = true;
                None
            }
            Line::Unreadable(_) => {
                self.unreadable += 1;
                None
            }
        })
    }
}

/// Adds the names of `r`'s judges and parameters to `judges` and `params`.
fn names(r: &ScenarioRecord, judges: &mut BTreeSet<String>, params: &mut BTreeSet<String>) {
    for j in r.scores.keys() {
        if !judges.contains(j.as_str()) {
            judges.insert(j.as_str().to_owned());
        }
    }
    for p in r.params.keys() {
        let name = runlog::record::unflatten_key(p);
        if !params.contains(name) {
            params.insert(name.to_owned());
        }
    }
}

fn pages(matched: u64) -> usize {
    usize::try_from(matched)
        .unwrap_or(usize::MAX)
        .div_ceil(PAGE_ROWS)
        .max(1)
}

fn row(line: usize, offset: u64, r: &ScenarioRecord, judges: &[String]) -> Row {
    let scores = judges
        .iter()
        .map(|j| {
            r.scores
                .iter()
                .find(|(name, _)| name.as_str() == j)
                .map_or_else(|| "–".to_owned(), |(_, s)| format!("{s:.2}"))
        })
        .collect();
    Row {
        offset,
        line,
        id: r.id.clone(),
        accepted: r.accepted,
        score: format!("{:.2}", r.score),
        scores,
        gate: gate_word(r),
        measurement: measurement_word(r),
        preview: cut(r.data_generation_result.first().map_or("", String::as_str)),
    }
}

/// The first [`PREVIEW_CHARS`] characters of `text`, with `…` when cut.
#[must_use]
pub fn cut(text: &str) -> String {
    let mut out: String = text.chars().take(PREVIEW_CHARS).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The failed scenarios of the run at `path`: its errors file's last line per scenario, less
/// the scenarios with a record, in errors-file order. The parameter and text filters apply to
/// the failure's parameters and reason.
fn failed_page(path: &Path, query: &RecordQuery) -> std::io::Result<Page> {
    let mut current: BTreeMap<String, (u64, FailedRow)> = BTreeMap::new();
    let mut unreadable = 0;
    let mut errors_problem = None;
    match RecordReader::<_, FailureRecord>::open(&errors_path(path)) {
        Ok(reader) => {
            for item in reader {
                let located = match item {
                    Ok(located) => located,
                    Err(runlog::record::RecordError::Io { source, .. }) => {
                        errors_problem = Some(format!(
                            "the errors file could not be read ({source}); failed scenarios are missing"
                        ));
                        break;
                    }
                    Err(_) => {
                        unreadable += 1;
                        continue;
                    }
                };
                let f = located.record;
                let keep = query.params.iter().all(|(name, value)| {
                    f.params
                        .get(name)
                        .is_some_and(|v| reports::figures::value_text(v) == *value)
                }) && query.text_matches(std::iter::once(f.reason.as_str()));
                if !keep {
                    current.remove(&f.id);
                    continue;
                }
                let role = f.judge.as_ref().map_or_else(
                    || {
                        f.agent
                            .map_or_else(|| "–".to_owned(), |a| a.name().to_owned())
                    },
                    |j| j.as_str().to_owned(),
                );
                let row = FailedRow {
                    id: f.id.clone(),
                    role,
                    reason: cut(&f.reason),
                };
                current.insert(f.id, (located.offset, row));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            errors_problem = Some(format!(
                "the errors file could not be opened ({e}); failed scenarios are missing"
            ));
        }
    }
    // Every record is counted (the page says "N of M"), and removes its scenario's failure.
    let mut records = 0;
    for r in RecordReader::<_, RecordId>::open(path)?.flatten() {
        records += 1;
        current.remove(&r.record.id);
    }
    let mut rows: Vec<(u64, FailedRow)> = current.into_values().collect();
    rows.sort_by_key(|(offset, _)| *offset);
    let matched = rows.len() as u64;
    Ok(Page {
        failed: rows
            .into_iter()
            .skip((query.page - 1).saturating_mul(PAGE_ROWS))
            .take(PAGE_ROWS)
            .map(|(_, r)| r)
            .collect(),
        records,
        matched,
        unreadable,
        errors_problem,
        page: query.page,
        pages: pages(matched),
        ..Page::default()
    })
}
