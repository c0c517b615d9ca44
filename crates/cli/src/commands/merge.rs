//! `scenario-engine merge OUT... --into FILE [--config CONFIG]`: joins the outputs of a sharded
//! run (`run --shard k/n` on n machines) into one file.
//!
//! The inputs must be disjoint (no id in two files, or twice in one); with `--config` they must
//! also be complete for the config's selection (every selected id present, none foreign). The
//! merged file holds every record once, sorted by id, written atomically (temp file + rename),
//! and a summary goes to stdout. Exit codes: 0 merged, 2 unreadable input, overlap or
//! incompleteness (with the ids named), 3 the merged file could not be written.

use std::collections::BTreeSet;
use std::io::{BufRead as _, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use agents::pipeline::record::{RecordReader, RunIndex, ScenarioRecord};
use comfy_table::Table;

use crate::exit;

/// Ids shown per problem before the rest is only counted.
const SHOWN_IDS: usize = 20;

/// Flags of `merge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shard outputs (JSONL files written by `run`).
    #[arg(required = true)]
    pub outputs: Vec<PathBuf>,
    /// The merged file to write.
    #[arg(long)]
    pub into: PathBuf,
    /// The scenario config the shards ran: check the outputs cover its selection exactly.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// What the summary needs, summed while the inputs are read.
#[derive(Default)]
struct Totals {
    accepted: u64,
    scores: u64,
    score_sum: f64,
}

/// Runs the command; returns the exit code.
pub fn execute(args: Args) -> u8 {
    let mut index = RunIndex::default();
    let mut totals = Totals::default();
    let mut per_file = vec![0u64; args.outputs.len()];
    for (file, path) in args.outputs.iter().enumerate() {
        let reader: RecordReader<_, ScenarioRecord> = match RecordReader::open(path) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return exit::INVALID_INPUT;
            }
        };
        for item in reader {
            let located = match item {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {}:{}: {}", path.display(), e.line(), e.reason());
                    return exit::INVALID_INPUT;
                }
            };
            per_file[file] += 1;
            let r = &located.record;
            totals.accepted += u64::from(r.accepted);
            if r.score.is_finite() {
                totals.scores += 1;
                totals.score_sum += r.score;
            }
            if let Err(e) = index.push(&r.id, file, located.offset) {
                eprintln!("error: {}:{}: {e}", path.display(), located.line);
                return exit::INVALID_INPUT;
            }
        }
    }
    index.sort();
    let overlaps = index.duplicates();
    if !overlaps.is_empty() {
        eprintln!(
            "error: the outputs are not disjoint: {} id(s) appear more than once",
            overlaps.len()
        );
        for (id, files) in overlaps.iter().take(SHOWN_IDS) {
            let names: Vec<String> = files
                .iter()
                .map(|f| args.outputs[*f].display().to_string())
                .collect();
            eprintln!("  {id}: {}", names.join(", "));
        }
        more(overlaps.len());
        return exit::INVALID_INPUT;
    }
    if let Some(config) = &args.config
        && let Some(code) = check_complete(config, &index)
    {
        return code;
    }
    if let Err(e) = write_merged(&args.into, &args.outputs, &index) {
        eprintln!("error: cannot write {}: {e}", args.into.display());
        return exit::RUN_FAILURE;
    }
    print_summary(&args, index.len(), &totals, &per_file);
    exit::OK
}

/// Copies every indexed line, in id order, from its input into `into` (atomically).
fn write_merged(into: &Path, inputs: &[PathBuf], index: &RunIndex) -> std::io::Result<()> {
    let mut files = inputs
        .iter()
        .map(std::fs::File::open)
        .collect::<std::io::Result<Vec<_>>>()?;
    write_atomically(into, |out| {
        let mut line = Vec::new();
        for entry in index.entries() {
            let file = &mut files[entry.file];
            file.seek(SeekFrom::Start(entry.offset))?;
            line.clear();
            // The reader bounded every line, so this read is bounded too.
            std::io::BufReader::with_capacity(16 * 1024, &mut *file)
                .take(agents::pipeline::record::DEFAULT_MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)?;
            out.write_all(line.trim_ascii())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// `Some(exit code)` when the records do not cover the config's selection exactly.
fn check_complete(config: &Path, index: &RunIndex) -> Option<u8> {
    let config = match scenarios::load_config(config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return Some(exit::INVALID_INPUT);
        }
    };
    let mut hit = vec![false; index.len()];
    let mut expected = 0usize;
    let mut missing = BTreeSet::new();
    let mut missing_count = 0usize;
    for s in config.space.select(&config.selection) {
        expected += 1;
        match index.position(&s.id) {
            Some(i) => hit[i] = true,
            None => {
                missing_count += 1;
                // Keep only the first ids by name: the count is exact, the list is a sample.
                missing.insert(s.id);
                if missing.len() > SHOWN_IDS {
                    missing.pop_last();
                }
            }
        }
    }
    let foreign: Vec<String> = index
        .entries()
        .zip(&hit)
        .filter(|(_, hit)| !**hit)
        .map(|(e, _)| e.id)
        .collect();
    if missing_count == 0 && foreign.is_empty() {
        return None;
    }
    if missing_count > 0 {
        eprintln!(
            "error: the outputs are incomplete: {missing_count} of {expected} selected scenario id(s) missing"
        );
        for id in &missing {
            eprintln!("  missing {id}");
        }
        more(missing_count);
    }
    if !foreign.is_empty() {
        eprintln!(
            "error: {} id(s) are not in the config's selection",
            foreign.len()
        );
        for id in foreign.iter().take(SHOWN_IDS) {
            eprintln!("  foreign {id}");
        }
        more(foreign.len());
    }
    Some(exit::INVALID_INPUT)
}

fn more(n: usize) {
    if n > SHOWN_IDS {
        eprintln!("  … and {} more", n - SHOWN_IDS);
    }
}

/// Writes through `write` to a sibling temp file, syncs it, then renames it over `path`, so a
/// reader never sees a half-merged file and an input named as `--into` is only replaced at the end.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".merge-tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    write(&mut file)?;
    let file = file
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    file.sync_data()?;
    std::fs::rename(&tmp, path)
}

fn print_summary(args: &Args, records: usize, totals: &Totals, per_file: &[u64]) {
    #[allow(clippy::cast_precision_loss)] // record counts far below 2^53
    let mean = if totals.scores == 0 {
        "-".to_owned()
    } else {
        format!("{:.3}", totals.score_sum / totals.scores as f64)
    };
    let mut table = Table::new();
    table.set_header(vec!["input", "records"]);
    for (path, n) in args.outputs.iter().zip(per_file) {
        table.add_row(vec![path.display().to_string(), n.to_string()]);
    }
    outln!("{table}");
    outln!(
        "merged {records} record(s) from {} file(s) into {}: {} accepted, mean score {mean}{}",
        args.outputs.len(),
        args.into.display(),
        totals.accepted,
        if args.config.is_some() {
            " (complete for the config)"
        } else {
            ""
        }
    );
}
