//! `export`: a run's records as a dataset a researcher can publish — a Hugging Face
//! datasets-compatible folder with one file per split (JSONL, or Parquet with the `parquet`
//! feature) and a dataset card (`README.md` with YAML metadata).
//!
//! Two streaming passes over the run file, so memory is bounded by a few dozen bytes per record
//! (the record's id, its scenario key and pair, its MinHash signature: see [`dedup`]), never by
//! the texts:
//! 1. **Scan**: which records are exported (`accepted_only`), what each duplicates
//!    ([`dedup::DedupIndex`]), and each scenario's key: the hash of its parameters without
//!    `sample`, so every sample of one scenario lands in the same split.
//! 2. **Write**: each record to its split's file.
//!
//! **Splits** are disjoint by duplicate cluster and by scenario: scenario keys joined by an
//! exact or near duplicate form one group, groups are ordered by language pair and a seeded
//! hash, and each goes to the split furthest below its share of the rows (stratified by pair,
//! each split within about one group of its share; see `assign_splits`). A split left empty
//! takes a group from the fullest while there are groups enough; one that would still be empty
//! is not written and the card says so.
//!
//! The card states every column's type (`dataset_info.features`), so `datasets.load_dataset`
//! reads every split with one schema, JSONL included.
//!
//! The folder is written under a temporary name beside `out` and renamed into place at the end,
//! so a killed export leaves no half dataset under `out`.

pub mod dedup;
mod language;
#[cfg(feature = "parquet")]
mod parquet;
pub mod row;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use dedup::{DedupIndex, Duplicate};
use language::iso_code;
use row::param_str;
pub use row::{Feature, IncludedAs, ParamColumns, ParamKind, Row};
use runlog::ScenarioRecord;
use runlog::record::{RecordError, RecordReader, RecordSettings, unflatten_params};

/// The split names, in order, for one, two or three shares.
pub const SPLIT_NAMES: [&str; 3] = ["train", "validation", "test"];

/// The dataset card template (minijinja).
const CARD_TEMPLATE: &str = include_str!("card.md.j2");

/// File format of the split files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// Apache Parquet (needs the `parquet` feature).
    Parquet,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Parquet => "parquet",
        }
    }
}

/// What to do with duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DedupPolicy {
    /// Keep them, unmarked (they are still counted in the card).
    Off,
    /// Keep them with `duplicate_of` naming the original's id.
    #[default]
    Mark,
    /// Leave them out.
    Drop,
}

/// The split shares, e.g. `0.8,0.1,0.1`: one to three positive numbers summing to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Splits(Vec<f64>);

impl std::str::FromStr for Splits {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let shares: Vec<f64> = s
            .split(',')
            .map(|p| {
                p.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("{p:?} is not a number"))
            })
            .collect::<Result<_, _>>()?;
        if shares.is_empty() || shares.len() > SPLIT_NAMES.len() {
            return Err(format!(
                "give 1 to 3 shares (train, validation, test), not {}",
                shares.len()
            ));
        }
        if let Some(bad) = shares.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
            return Err(format!("every share must be a positive number, not {bad}"));
        }
        let sum: f64 = shares.iter().sum();
        if (sum - 1.0).abs() > 1e-6 {
            return Err(format!("the shares must sum to 1, not {sum}"));
        }
        Ok(Self(shares))
    }
}

impl Splits {
    /// The shares.
    #[must_use]
    pub fn shares(&self) -> &[f64] {
        &self.0
    }
}

/// How to export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// File format.
    pub format: Format,
    /// Split shares.
    pub splits: Splits,
    /// Only accepted records.
    pub accepted_only: bool,
    /// Duplicate policy.
    pub dedup: DedupPolicy,
    /// Seed of the split assignment.
    pub seed: u64,
    /// Replace an existing non-empty `out`.
    pub force: bool,
    /// Export a run file that a run still holds (its output lock): the card says the dataset
    /// is partial. Without it such a run is refused ([`ExportError::Locked`]).
    pub allow_partial: bool,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run file could not be opened.
    #[error("{}: {source}", path.display())]
    Open {
        /// The run file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A line of the run file is not a record (or could not be read).
    #[error("{}:{source}", path.display())]
    Record {
        /// The run file.
        path: PathBuf,
        /// The located error.
        #[source]
        source: RecordError,
    },
    /// The output folder exists and is not empty.
    #[error("{} exists and is not empty; pass --force to replace it", path.display())]
    Exists {
        /// The folder.
        path: PathBuf,
    },
    /// `--force` was given for a folder that is not an earlier export: it is never deleted.
    #[error(
        "{} is not a folder written by `export` (an export holds {EXPORT_MARKER}, README.md and \
         data/ only); --force replaces only earlier exports, unchanged: choose another --out, or \
         remove it yourself",
        path.display()
    )]
    NotAnExport {
        /// The folder.
        path: PathBuf,
    },
    /// The output folder is the run file, holds it, or is the current directory or one above it.
    #[error("--out {} {why}; choose a new folder for the dataset", path.display())]
    UnsafeOut {
        /// The folder.
        path: PathBuf,
        /// Why it cannot be the output.
        why: &'static str,
    },
    /// Writing the dataset failed.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Parquet was asked for in a build without it.
    #[error("this build has no Parquet support (feature `parquet`); use --format jsonl")]
    NoParquet,
    /// A run still holds the run file (its output lock): the export would be partial.
    #[error(
        "{} is still being written by a run ({holder}); wait for it to finish, or pass \
         --allow-partial to export the records written so far (the card says partial)",
        path.display()
    )]
    Locked {
        /// The run file.
        path: PathBuf,
        /// The lock's holder line (pid, host, start).
        holder: String,
    },
    /// Nothing to export: the run has no records, or none is left after the defaults.
    #[error("{}: {why}", path.display())]
    Empty {
        /// The run file.
        path: PathBuf,
        /// What is empty, and which flag would export something.
        why: String,
    },
    /// The dataset card could not be rendered.
    #[error("rendering the dataset card: {0}")]
    Card(String),
}

/// What an export wrote, for the card and the command's summary.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExportSummary {
    /// Records read.
    pub read: u64,
    /// A run held the run file when it was read (`--allow-partial`): more records may follow.
    pub partial: bool,
    /// Rows that are here as `rejected` (`--include rejected`).
    pub rejected_rows: u64,
    /// Rows that are here as `duplicate` (`--include duplicates`).
    pub duplicate_rows: u64,
    /// Records the run rejected, left out (the default).
    pub rejected_left_out: u64,
    /// The typed parameter columns (`param_<name>`) and their types.
    pub param_columns: Vec<(String, ParamKind)>,
    /// Rows written per split, in split order.
    pub splits: Vec<(String, u64)>,
    /// Requested splits that received no row and were not written (too few scenario groups).
    pub folded: Vec<String>,
    /// Rows written per language pair ("Hindi–English").
    pub pairs: BTreeMap<String, u64>,
    /// Exact duplicates found (among exported records).
    pub exact_duplicates: u64,
    /// Near duplicates found.
    pub near_duplicates: u64,
    /// Duplicates left out (`--dedup drop`).
    pub dropped: u64,
    /// Rows written.
    pub rows: u64,
    /// Rows accepted by the run.
    pub accepted: u64,
    /// Mean judge score per judge.
    pub judge_means: BTreeMap<String, f64>,
    /// The judges that scored the rows, in words for the card (`fluency, naturalness,
    /// code-switching ratio, socio-cultural fit, toxicity`): the four and every declared one.
    pub judges: Vec<String>,
    /// Rows that asked for grounding (`use_tools`) and were generated without it (`grounding`
    /// is `none: …`).
    pub ungrounded: u64,
    /// Rows whose `grounding` says what they were grounded in.
    pub grounded: u64,
    /// Mean weighted score.
    pub mean_score: Option<f64>,
    /// Measurement figures over rows whose measurement status is `ok`.
    pub measured: u64,
    /// Rows whose measurement is `low_coverage`.
    pub low_coverage: u64,
    /// Rows whose measurement is `unavailable` or absent.
    pub unmeasured: u64,
    /// Mean embedded share (status `ok`).
    pub mean_embedded_ratio: Option<f64>,
    /// Mean CMI (status `ok`).
    pub mean_cmi: Option<f64>,
    /// Mean switch points per record (status `ok`).
    pub mean_switch_points: Option<f64>,
    /// Distinct words ÷ words, over every utterance written.
    pub distinct_1: Option<f64>,
    /// Distinct word bigrams ÷ bigrams.
    pub distinct_2: Option<f64>,
    /// Distinct embedded-language words per pair (tagged by `codeswitch`).
    pub embedded_vocabulary: BTreeMap<String, u64>,
    /// Models per agent (every model seen).
    pub models: BTreeMap<String, BTreeSet<String>>,
    /// The run settings of the records (the first seen), and whether others differ.
    pub run_settings: Option<RecordSettings>,
    /// Records carried settings other than `run_settings`.
    pub mixed_settings: bool,
    /// ISO 639 codes of the languages.
    pub languages: BTreeSet<String>,
    /// Language names with no known ISO 639 code (named on the card, not in `language:`).
    pub unmapped_languages: BTreeSet<String>,
}

/// Per record, what the scan learnt (about 40 bytes, plus its id).
struct Scanned {
    id: Box<str>,
    pair: u32,
    key: u64,
    duplicate: Option<Duplicate>,
    /// Every earlier record found near this one (the splits keep them together).
    links: Vec<u32>,
    accepted: bool,
}

/// Exports the run file `input` into the folder `out`.
///
/// # Errors
/// See [`ExportError`]: an unreadable or invalid run file (with its line), an existing folder,
/// a write failure, Parquet without the feature.
pub fn export(
    input: &Path,
    out: &Path,
    options: &ExportOptions,
) -> Result<ExportSummary, ExportError> {
    if options.format == Format::Parquet && !cfg!(feature = "parquet") {
        return Err(ExportError::NoParquet);
    }
    let out = &check_out(input, out, options.force)?;
    let partial = check_unlocked(input, options.allow_partial)?;
    let scan = scan(input, options)?;
    check_not_empty(input, &scan, options)?;
    let Scan {
        scanned,
        read,
        params,
        ..
    } = scan;
    let split_of = assign_splits(&scanned, options);
    let tmp = temp_dir_for(out);
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Write { path, source }
    };
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("data")).map_err(write_err(&tmp))?;
    let result = write_splits(input, &tmp, options, &scanned, &split_of, read, &params);
    let mut summary = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    summary.read = read;
    summary.partial = partial;
    summary.param_columns = params.columns().collect();
    let card = match render_card(&summary, options, input, &params) {
        Ok(card) => card,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let finished = std::fs::write(tmp.join("README.md"), card)
        .and_then(|()| std::fs::write(tmp.join(EXPORT_MARKER), marker_text(input)))
        .map_err(write_err(&tmp));
    if let Err(e) = finished {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    replace_dir(&tmp, out).map_err(write_err(out))?;
    tracing::info!(out = %out.display(), rows = summary.rows, "exported the dataset");
    Ok(summary)
}

/// Whether a run holds `input`'s output lock (see [`runlog::lock::holder`]: a live holder, not
/// a stale lock file a killed run left): refused unless `allow_partial`, which returns `true`.
fn check_unlocked(input: &Path, allow_partial: bool) -> Result<bool, ExportError> {
    match runlog::lock::holder(input) {
        Ok(None) => Ok(false),
        Ok(Some(_)) if allow_partial => {
            tracing::warn!(run = %input.display(), "exporting a run that is still being written");
            Ok(true)
        }
        Ok(Some(holder)) => Err(ExportError::Locked {
            path: input.to_path_buf(),
            holder: if holder.is_empty() {
                "holder unknown".to_owned()
            } else {
                holder
            },
        }),
        // A lock file that cannot be probed says nothing of a live run: the export goes on.
        Err(e) => {
            tracing::warn!(error = %e, "could not probe the run's lock");
            Ok(false)
        }
    }
}

/// An export with no row is refused, with the flag that would give it rows.
fn check_not_empty(input: &Path, scan: &Scan, options: &ExportOptions) -> Result<(), ExportError> {
    let empty = |why: String| {
        Err(ExportError::Empty {
            path: input.to_path_buf(),
            why,
        })
    };
    if scan.read == 0 {
        return empty(
            "the run has no records; nothing to export (run it first, or check the file)"
                .to_owned(),
        );
    }
    if scan.scanned.iter().any(|s| exported(s, options)) {
        return Ok(());
    }
    let mut hint = Vec::new();
    if scan.rejected > 0 {
        hint.push("rejected");
    }
    if scan.scanned.iter().any(|s| s.duplicate.is_some()) {
        hint.push("duplicates");
    }
    empty(format!(
        "no row to export out of {} record(s) ({} rejected by the run); pass --include {} to \
         export them",
        scan.read,
        scan.rejected,
        if hint.is_empty() {
            "rejected".to_owned()
        } else {
            hint.join(",")
        }
    ))
}

/// The file every export folder holds, so that `--force` can tell an earlier export (which it
/// may replace) from any other folder (which it never deletes).
pub const EXPORT_MARKER: &str = ".scenario-engine-export";

fn marker_text(input: &Path) -> String {
    format!(
        "written by scenario-engine export from {}\n",
        input.display()
    )
}

/// The output folder as an absolute path, checked before anything is read or written: it must
/// not be the run file, hold it, or be the current directory or one of its parents; an existing
/// non-empty folder needs `force` and must be an earlier export.
fn check_out(input: &Path, out: &Path, force: bool) -> Result<PathBuf, ExportError> {
    let absolute = absolute(out);
    let unsafe_out = |why| ExportError::UnsafeOut {
        path: out.to_path_buf(),
        why,
    };
    if absolute.file_name().is_none() {
        return Err(unsafe_out("has no folder name of its own"));
    }
    let input = std::fs::canonicalize(input).unwrap_or_else(|_| absolute_of(input));
    if input == absolute {
        return Err(unsafe_out("is the run file itself"));
    }
    if input.starts_with(&absolute) {
        return Err(unsafe_out("holds the run file"));
    }
    if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize)
        && cwd.starts_with(&absolute)
    {
        return Err(unsafe_out("is the current directory or one above it"));
    }
    match std::fs::symlink_metadata(&absolute) {
        Err(_) => Ok(absolute),
        Ok(meta) if !meta.is_dir() => Err(unsafe_out("exists and is not a folder")),
        Ok(_) if std::fs::read_dir(&absolute).is_ok_and(|mut d| d.next().is_none()) => Ok(absolute),
        Ok(_) if !force => Err(ExportError::Exists {
            path: out.to_path_buf(),
        }),
        Ok(_) if !is_export_folder(&absolute) => Err(ExportError::NotAnExport {
            path: out.to_path_buf(),
        }),
        Ok(_) => Ok(absolute),
    }
}

/// Whether `dir` holds exactly what an export writes and nothing else: the marker (a plain
/// file, not a link), `README.md`, and `data/` with split files only. A folder with anything
/// more — a planted marker beside the user's files, notes added to an earlier export — is not
/// replaced: `--force` deletes only what `export` wrote.
fn is_export_folder(dir: &Path) -> bool {
    let plain_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    let plain_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if !plain_file(&dir.join(EXPORT_MARKER)) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let path = entry.path();
        let ok = match entry.file_name().to_str() {
            Some(EXPORT_MARKER | "README.md") => plain_file(&path),
            Some("data") => plain_dir(&path) && holds_only_split_files(&path),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Whether `data` holds only split files an export names (`train-00000-of-00001.parquet` …).
fn holds_only_split_files(data: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(data) else {
        return false;
    };
    entries.into_iter().all(|entry| {
        entry.is_ok_and(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_split = SPLIT_NAMES.iter().any(|split| {
                ["parquet", "jsonl"]
                    .iter()
                    .any(|ext| name == format!("{split}-00000-of-00001.{ext}"))
            });
            is_split && std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_file())
        })
    })
}

/// `path` made absolute with links resolved as far as it exists (its last component kept as
/// given when it does not exist yet).
fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let joined = absolute_of(path);
    match (joined.parent(), joined.file_name()) {
        (Some(dir), Some(name)) => {
            std::fs::canonicalize(dir).map_or(joined.clone(), |d| d.join(name))
        }
        _ => joined,
    }
}

/// `path` joined to the current directory when relative, with `.` and `..` folded lexically.
fn absolute_of(path: &Path) -> PathBuf {
    let joined = std::env::current_dir().map_or_else(|_| path.to_path_buf(), |cwd| cwd.join(path));
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Puts the finished folder `tmp` at `out`: an earlier `out` is first moved aside and removed
/// only once the new one is in place (moved back if that fails).
fn replace_dir(tmp: &Path, out: &Path) -> std::io::Result<()> {
    if !out.exists() {
        return std::fs::rename(tmp, out);
    }
    let name = out
        .file_name()
        .map_or_else(|| "dataset".into(), |n| n.to_string_lossy().into_owned());
    let old = out.with_file_name(format!(".{name}.old-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&old);
    std::fs::rename(out, &old)?;
    if let Err(e) = std::fs::rename(tmp, out) {
        let _ = std::fs::rename(&old, out);
        let _ = std::fs::remove_dir_all(tmp);
        return Err(e);
    }
    std::fs::remove_dir_all(&old)
}

fn temp_dir_for(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "dataset".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// The run file's records. With `partial` (`--allow-partial`), a last line cut short is left
/// out: a file a live run writes normally ends in one.
fn records(
    input: &Path,
    partial: bool,
) -> Result<impl Iterator<Item = Result<ScenarioRecord, ExportError>>, ExportError> {
    let reader: RecordReader<_, ScenarioRecord> =
        RecordReader::open(input).map_err(|source| ExportError::Open {
            path: input.to_path_buf(),
            source,
        })?;
    let path = input.to_path_buf();
    Ok(reader
        .filter(move |r| !(partial && matches!(r, Err(RecordError::Torn { .. }))))
        .map(move |r| {
            r.map(|l| l.record).map_err(|source| ExportError::Record {
                path: path.clone(),
                source,
            })
        }))
}

/// All utterances of a record, one per element.
fn utterances(record: &ScenarioRecord) -> &[String] {
    &record.data_generation_result
}

fn pair_name(record: &ScenarioRecord) -> String {
    format!(
        "{}–{}",
        param_str(record, "first_language").unwrap_or("?"),
        param_str(record, "second_language").unwrap_or("?")
    )
}

/// What the scan learnt.
struct Scan {
    scanned: Vec<Scanned>,
    read: u64,
    rejected: u64,
    params: ParamColumns,
}

/// Pass 1: the exported records' ids, pairs, scenario keys, duplicates and parameter types.
fn scan(input: &Path, options: &ExportOptions) -> Result<Scan, ExportError> {
    let mut scanned = Vec::new();
    let mut pairs: Vec<String> = Vec::new();
    let mut pair_index: HashMap<String, u32> = HashMap::new();
    let mut index = DedupIndex::new();
    let mut params = ParamColumns::default();
    let mut read = 0;
    let mut rejected = 0;
    for record in records(input, options.allow_partial)? {
        let record = record?;
        read += 1;
        if options.accepted_only && !record.accepted {
            rejected += 1;
            continue;
        }
        params.observe(&unflatten_params(&record.params));
        let name = pair_name(&record);
        let next = u32::try_from(pairs.len()).unwrap_or(u32::MAX);
        let pair = *pair_index.entry(name.clone()).or_insert_with(|| {
            pairs.push(name);
            next
        });
        // The scenario's identity: its parameters without the sample number.
        let identity: BTreeMap<&String, &Value> = record
            .params
            .iter()
            .filter(|(k, _)| *k != "sample")
            .collect();
        let key = dedup::fnv(
            serde_json::to_string(&identity)
                .unwrap_or_default()
                .as_bytes(),
        );
        let (duplicate, links) = index.add_linked(utterances(&record));
        scanned.push(Scanned {
            id: record.id.into_boxed_str(),
            pair,
            key,
            duplicate,
            links,
            accepted: record.accepted,
        });
    }
    Ok(Scan {
        scanned,
        read,
        rejected,
        params,
    })
}

/// The split of each scenario key. Scenario keys joined by a duplicate (exact or near, kept or
/// dropped) form one group (union-find), so no duplicate cluster straddles splits. Groups are
/// ordered by language pair, then by a seeded hash. A pair with two groups or more sends its
/// first to the split with the largest share (so such a pair is in train, unless
/// [`fill_empty_splits`] has no other group to move); every other
/// group goes to the split furthest below its share of the rows so far: the splits are
/// stratified by pair and hold their share of the rows to within about one group per pair.
/// A pair with a single group is not forced anywhere, so many pairs of one scenario each
/// still fill every split. Last, a split left empty while there are groups enough takes one
/// from the split most above its share ([`fill_empty_splits`]); a split that still receives
/// no row (fewer groups than splits) is not written (see [`write_splits`]).
fn assign_splits(scanned: &[Scanned], options: &ExportOptions) -> HashMap<u64, u8> {
    let mut groups = Groups::default();
    for s in scanned {
        groups.find(s.key);
        if let Some(original) = s.duplicate.and_then(|d| scanned.get(d.original() as usize)) {
            groups.union(s.key, original.key);
        }
        for linked in s.links.iter().filter_map(|&i| scanned.get(i as usize)) {
            groups.union(s.key, linked.key);
        }
    }
    // Per group: its pair (that of its first record), seeded order and exported rows.
    let mut weight: HashMap<u64, (u32, u64, u64)> = HashMap::new();
    for s in scanned {
        let root = groups.find(s.key);
        let order = dedup::fnv(&[root.to_le_bytes(), options.seed.to_le_bytes()].concat());
        let entry = weight.entry(root).or_insert((s.pair, order, 0));
        entry.2 += u64::from(exported(s, options));
    }
    let mut ordered: Vec<Group> = weight
        .into_iter()
        .map(|(root, (pair, order, rows))| Group {
            pair,
            order,
            root,
            rows,
            anchor: false,
        })
        .collect();
    ordered.sort_unstable_by_key(|g| (g.pair, g.order, g.root));
    let mut groups_of_pair: HashMap<u32, usize> = HashMap::new();
    for g in ordered.iter().filter(|g| g.rows > 0) {
        *groups_of_pair.entry(g.pair).or_default() += 1;
    }
    let shares = options.splits.shares();
    let mut rows = vec![0_u64; shares.len()];
    let mut total = 0_u64;
    let mut split_of_root = HashMap::new();
    // The split with the largest share (the first such), where each pair's first group goes.
    let largest = (0..shares.len())
        .max_by(|&a, &b| shares[a].total_cmp(&shares[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut last_pair = None;
    for g in &mut ordered {
        total += g.rows;
        let first_of_pair = last_pair != Some(g.pair);
        last_pair = Some(g.pair);
        g.anchor = first_of_pair && groups_of_pair.get(&g.pair).copied().unwrap_or(0) >= 2;
        let split = if g.anchor {
            largest
        } else {
            let deficit = |i: usize| shares[i] * total as f64 - rows[i] as f64;
            (0..shares.len())
                .max_by(|&a, &b| deficit(a).total_cmp(&deficit(b)).then(b.cmp(&a)))
                .unwrap_or(0)
        };
        rows[split] += g.rows;
        split_of_root.insert(g.root, split);
    }
    fill_empty_splits(&ordered, shares, &mut rows, &mut split_of_root);
    scanned
        .iter()
        .map(|s| {
            let split = split_of_root[&groups.find(s.key)];
            (s.key, u8::try_from(split).unwrap_or(0))
        })
        .collect()
}

/// A group of scenario keys for the split assignment.
struct Group {
    pair: u32,
    order: u64,
    root: u64,
    /// Rows it exports.
    rows: u64,
    /// Its pair's first group, sent to the largest split (its pair has two groups or more).
    anchor: bool,
}

/// While a split has no row and another holds two groups or more, moves one group into it:
/// from the split most above its share, a group that is not its pair's anchor where there is
/// one, the smallest, then the first in seeded order. Every group exports a row, so a donor
/// is never emptied and each move fills one split: at most one move per split.
fn fill_empty_splits(
    ordered: &[Group],
    shares: &[f64],
    rows: &mut [u64],
    split_of_root: &mut HashMap<u64, usize>,
) {
    let total: u64 = rows.iter().sum();
    while let Some(empty) = (0..rows.len()).find(|&i| rows[i] == 0) {
        let mut count = vec![0_usize; rows.len()];
        for g in ordered.iter().filter(|g| g.rows > 0) {
            count[split_of_root[&g.root]] += 1;
        }
        let surplus = |i: usize| rows[i] as f64 - shares[i] * total as f64;
        let donor = ordered
            .iter()
            .filter(|g| g.rows > 0 && count[split_of_root[&g.root]] >= 2)
            .min_by(|a, b| {
                let (sa, sb) = (split_of_root[&a.root], split_of_root[&b.root]);
                a.anchor
                    .cmp(&b.anchor)
                    .then(surplus(sb).total_cmp(&surplus(sa)))
                    .then(a.rows.cmp(&b.rows))
            });
        let Some(g) = donor else { break };
        let from = split_of_root[&g.root];
        rows[from] -= g.rows;
        rows[empty] += g.rows;
        split_of_root.insert(g.root, empty);
    }
}

/// Whether a scanned record becomes a row (duplicates are left out under `--dedup drop`).
fn exported(s: &Scanned, options: &ExportOptions) -> bool {
    s.duplicate.is_none() || options.dedup != DedupPolicy::Drop
}

/// Union-find over scenario keys.
#[derive(Default)]
struct Groups(HashMap<u64, u64>);

impl Groups {
    fn find(&mut self, key: u64) -> u64 {
        let mut root = *self.0.entry(key).or_insert(key);
        while self.0[&root] != root {
            root = self.0[&root];
        }
        let mut at = key;
        while at != root {
            let up = self.0[&at];
            self.0.insert(at, root);
            at = up;
        }
        root
    }

    fn union(&mut self, a: u64, b: u64) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller key becomes the root, so the grouping does not depend on file order.
            self.0.insert(ra.max(rb), ra.min(rb));
        }
    }
}

/// A split's file being written.
enum SplitFile {
    Jsonl(BufWriter<std::fs::File>),
    #[cfg(feature = "parquet")]
    Parquet(Box<parquet::ParquetSplit>),
}

impl SplitFile {
    fn create(path: &Path, format: Format, params: &ParamColumns) -> std::io::Result<Self> {
        #[cfg(not(feature = "parquet"))]
        let _ = params;
        let file = std::fs::File::create(path)?;
        match format {
            Format::Jsonl => Ok(Self::Jsonl(BufWriter::new(file))),
            #[cfg(feature = "parquet")]
            Format::Parquet => Ok(Self::Parquet(Box::new(parquet::ParquetSplit::new(
                file, params,
            )?))),
            #[cfg(not(feature = "parquet"))]
            Format::Parquet => Err(std::io::Error::other("no Parquet support")),
        }
    }

    fn write(&mut self, row: &Row<'_>) -> std::io::Result<()> {
        match self {
            Self::Jsonl(w) => {
                serde_json::to_writer(&mut *w, row)?;
                w.write_all(b"\n")
            }
            #[cfg(feature = "parquet")]
            Self::Parquet(p) => p.push(row),
        }
    }

    fn finish(self) -> std::io::Result<()> {
        match self {
            Self::Jsonl(mut w) => {
                w.flush()?;
                w.get_ref().sync_all()
            }
            #[cfg(feature = "parquet")]
            Self::Parquet(p) => p.finish(),
        }
    }
}

/// The judges in words for the card: the built-in ones described, a declared one by its name;
/// the four built-in ones when no row had a score.
fn judge_words<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let describe = |n: &str| match n {
        "cs_ratio" => "code-switching ratio".to_owned(),
        "socio_cultural" => "socio-cultural fit".to_owned(),
        other => other.to_owned(),
    };
    const BUILT_IN: [&str; 4] = ["fluency", "naturalness", "cs_ratio", "socio_cultural"];
    let names: Vec<&str> = names.collect();
    let mut ordered: Vec<&str> = BUILT_IN
        .into_iter()
        .filter(|b| names.is_empty() || names.contains(b))
        .collect();
    ordered.extend(names.iter().filter(|n| !BUILT_IN.contains(n)));
    ordered.into_iter().map(describe).collect()
}

/// Running figures of the rows written.
#[derive(Default)]
struct Figures {
    summary: ExportSummary,
    score_sum: f64,
    judge_sums: BTreeMap<String, (f64, u64)>,
    ratio_sum: f64,
    cmi_sum: f64,
    switch_sum: f64,
    diversity: codeswitch::diversity::DiversityBuilder,
}

impl Figures {
    fn add(&mut self, record: &ScenarioRecord, row: &Row<'_>) {
        let s = &mut self.summary;
        s.rows += 1;
        s.accepted += u64::from(record.accepted);
        match row.included_as {
            IncludedAs::Rejected => s.rejected_rows += 1,
            IncludedAs::Duplicate => s.duplicate_rows += 1,
            IncludedAs::Accepted => {}
        }
        *s.pairs.entry(pair_name(record)).or_default() += 1;
        match &record.grounding {
            Some(g) if g.is_grounded() => s.grounded += 1,
            Some(_) => s.ungrounded += 1,
            None => {}
        }
        self.score_sum += record.score;
        for (judge, score) in &record.scores {
            let e = self.judge_sums.entry(judge.to_string()).or_default();
            e.0 += score;
            e.1 += 1;
        }
        match row.measurement_status {
            Some("ok") => {
                s.measured += 1;
                self.ratio_sum += row.embedded_ratio.unwrap_or(0.0);
                self.cmi_sum += row.cmi.unwrap_or(0.0);
                self.switch_sum += row.switch_points.unwrap_or(0) as f64;
            }
            Some("low_coverage") => s.low_coverage += 1,
            _ => s.unmeasured += 1,
        }
        for (agent, model) in &record.models {
            s.models
                .entry(agent.clone())
                .or_default()
                .insert(model.clone());
        }
        match (&s.run_settings, &record.run_settings) {
            (None, Some(rs)) => s.run_settings = Some(rs.clone()),
            (Some(a), Some(b)) if a != b => s.mixed_settings = true,
            _ => {}
        }
        for name in [row.first_language, row.second_language]
            .into_iter()
            .flatten()
        {
            match iso_code(name) {
                Some(code) => s.languages.insert(code.to_owned()),
                None => s.unmapped_languages.insert(name.to_owned()),
            };
        }
        let (first, second) = codeswitch::diversity::vocabulary_pair(
            row.first_language,
            row.second_language,
            record.measurement_unavailable(),
        );
        self.diversity.add(utterances(record), first, second);
    }

    fn finish(mut self) -> ExportSummary {
        let s = &mut self.summary;
        let mean = |sum: f64, n: u64| (n > 0).then(|| sum / n as f64);
        s.mean_score = mean(self.score_sum, s.rows);
        s.judge_means = self
            .judge_sums
            .into_iter()
            .map(|(k, (sum, n))| (k, sum / n as f64))
            .collect();
        s.judges = judge_words(s.judge_means.keys().map(String::as_str));
        s.mean_embedded_ratio = mean(self.ratio_sum, s.measured);
        s.mean_cmi = mean(self.cmi_sum, s.measured);
        s.mean_switch_points = mean(self.switch_sum, s.measured);
        let d = self.diversity.finish();
        s.distinct_1 = d.distinct_1;
        s.distinct_2 = d.distinct_2;
        s.embedded_vocabulary = d.embedded_vocabulary;
        self.summary
    }
}

/// Pass 2: every exported record into its split's file.
fn write_splits(
    input: &Path,
    dir: &Path,
    options: &ExportOptions,
    scanned: &[Scanned],
    split_of: &HashMap<u64, u8>,
    read: u64,
    params: &ParamColumns,
) -> Result<ExportSummary, ExportError> {
    // Only the splits that receive a row are written; an empty one is folded away (named on
    // the card), so `datasets.load_dataset` never meets a split with no data.
    let mut used = vec![false; options.splits.shares().len()];
    for s in scanned.iter().filter(|s| exported(s, options)) {
        used[usize::from(split_of.get(&s.key).copied().unwrap_or(0))] = true;
    }
    let all = &SPLIT_NAMES[..used.len()];
    let names: Vec<&str> = all
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(n, _)| *n)
        .collect();
    let folded: Vec<String> = all
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(n, _)| (*n).to_owned())
        .collect();
    // Split index → index among the written files.
    let slot: Vec<usize> = used
        .iter()
        .scan(0, |next, u| {
            let at = *next;
            *next += usize::from(*u);
            Some(at)
        })
        .collect();
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| {
            dir.join("data")
                .join(format!("{n}-00000-of-00001.{}", options.format.extension()))
        })
        .collect();
    let mut files = Vec::new();
    for path in &paths {
        files.push(
            SplitFile::create(path, options.format, params).map_err(|source| {
                ExportError::Write {
                    path: path.clone(),
                    source,
                }
            })?,
        );
    }
    let mut counts = vec![0_u64; names.len()];
    let mut figures = Figures::default();
    let mut next = scanned.iter();
    let mut seen = 0;
    for record in records(input, options.allow_partial)? {
        let record = record?;
        seen += 1;
        if seen > read {
            break; // Lines appended after the scan are not part of this export.
        }
        if options.accepted_only && !record.accepted {
            figures.summary.rejected_left_out += 1;
            continue;
        }
        let Some(meta) = next.next() else { break };
        match meta.duplicate {
            Some(Duplicate::Exact(_)) => figures.summary.exact_duplicates += 1,
            Some(Duplicate::Near(_)) => figures.summary.near_duplicates += 1,
            None => {}
        }
        if meta.duplicate.is_some() && options.dedup == DedupPolicy::Drop {
            figures.summary.dropped += 1;
            continue;
        }
        let duplicate_of = meta
            .duplicate
            .filter(|_| options.dedup == DedupPolicy::Mark)
            .and_then(|d| scanned.get(d.original() as usize))
            .map(|o| &*o.id);
        let split = slot[usize::from(split_of.get(&meta.key).copied().unwrap_or(0))];
        let included_as = match (meta.duplicate, meta.accepted) {
            (Some(_), _) if options.dedup != DedupPolicy::Off => IncludedAs::Duplicate,
            (_, false) => IncludedAs::Rejected,
            (_, true) => IncludedAs::Accepted,
        };
        let row = Row::new(&record, included_as, duplicate_of, params);
        files[split]
            .write(&row)
            .map_err(|source| ExportError::Write {
                path: paths[split].clone(),
                source,
            })?;
        counts[split] += 1;
        figures.add(&record, &row);
    }
    for (file, path) in files.into_iter().zip(&paths) {
        file.finish().map_err(|source| ExportError::Write {
            path: path.clone(),
            source,
        })?;
    }
    let mut summary = figures.finish();
    summary.folded = folded;
    summary.splits = names
        .iter()
        .zip(counts)
        .map(|(n, c)| ((*n).to_owned(), c))
        .collect();
    Ok(summary)
}

/// The Hugging Face size category of `n` rows.
fn size_category(n: u64) -> &'static str {
    match n {
        0..1_000 => "n<1K",
        1_000..10_000 => "1K<n<10K",
        10_000..100_000 => "10K<n<100K",
        100_000..1_000_000 => "100K<n<1M",
        _ => "1M<n<10M",
    }
}

fn render_card(
    summary: &ExportSummary,
    options: &ExportOptions,
    input: &Path,
    params: &ParamColumns,
) -> Result<String, ExportError> {
    // Names as JSON strings: a valid YAML scalar whatever the parameter's name holds.
    let features: Vec<Value> = params
        .features()
        .into_iter()
        .map(|(name, feature)| {
            let mut f = serde_json::to_value(feature).unwrap_or_default();
            f["name"] = Value::from(Value::from(name).to_string());
            f
        })
        .collect();
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template("card", CARD_TEMPLATE)
        .map_err(|e| ExportError::Card(e.to_string()))?;
    let ctx = serde_json::json!({
        "s": summary,
        "size_category": size_category(summary.rows),
        "format": options.format.extension(),
        "accepted_only": options.accepted_only,
        "dedup": format!("{:?}", options.dedup).to_lowercase(),
        "seed": options.seed,
        "shares": options.splits.shares(),
        "source": input.file_name().map(|n| n.to_string_lossy().into_owned()),
        "version": env!("CARGO_PKG_VERSION"),
        "near_jaccard": dedup::NEAR_DUPLICATE_JACCARD,
        "features": features,
    });
    env.get_template("card")
        .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(&ctx))))
        .map_err(|e| ExportError::Card(e.to_string()))
}
