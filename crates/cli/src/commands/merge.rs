//! `scenario-engine merge OUT... --into FILE [--config CONFIG]`: joins the outputs of a sharded
//! run (`run --shard k/n` on n machines) into one file.
//!
//! The inputs must be disjoint (no id in two files, or twice in one); with `--config` they must
//! also be complete for the config's selection (every selected id present, none foreign). The
//! merged file holds every record once, sorted by id, written atomically (temp file + rename),
//! and a summary goes to stdout. Exit codes: 0 merged, 2 unreadable input, overlap or
//! incompleteness (with the ids named), 3 the merged file could not be written.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use comfy_table::Table;
use serde_json::Value;

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

/// One record line and where it came from.
struct Line {
    file: usize,
    text: String,
    accepted: bool,
    score: Option<f64>,
}

/// Runs the command; returns the exit code.
pub fn execute(args: Args) -> u8 {
    let mut records: BTreeMap<String, Line> = BTreeMap::new();
    let mut overlaps: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut per_file = vec![0u64; args.outputs.len()];
    for (file, path) in args.outputs.iter().enumerate() {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return exit::INVALID_INPUT;
            }
        };
        for (n, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str(raw) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!(
                        "error: {}:{}: not a JSON record: {e}",
                        path.display(),
                        n + 1
                    );
                    return exit::INVALID_INPUT;
                }
            };
            let Some(id) = value.get("id").and_then(Value::as_str) else {
                eprintln!("error: {}:{}: the record has no id", path.display(), n + 1);
                return exit::INVALID_INPUT;
            };
            per_file[file] += 1;
            if let Some(first) = records.get(id) {
                overlaps
                    .entry(id.to_owned())
                    .or_insert_with(|| BTreeSet::from([first.file]))
                    .insert(file);
                continue;
            }
            records.insert(
                id.to_owned(),
                Line {
                    file,
                    text: raw.to_owned(),
                    accepted: value.get("accepted").and_then(Value::as_bool) == Some(true),
                    score: value.get("score").and_then(Value::as_f64),
                },
            );
        }
    }
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
        && let Some(code) = check_complete(config, &records)
    {
        return code;
    }
    if let Err(e) = write_atomically(&args.into, records.values().map(|l| l.text.as_str())) {
        eprintln!("error: cannot write {}: {e}", args.into.display());
        return exit::RUN_FAILURE;
    }
    print_summary(&args, &records, &per_file);
    exit::OK
}

/// `Some(exit code)` when the records do not cover the config's selection exactly.
fn check_complete(config: &Path, records: &BTreeMap<String, Line>) -> Option<u8> {
    let config = match scenarios::load_config(config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return Some(exit::INVALID_INPUT);
        }
    };
    let expected: BTreeSet<String> = config
        .space
        .select(&config.selection)
        .map(|s| s.id)
        .collect();
    let missing: Vec<&String> = expected
        .iter()
        .filter(|id| !records.contains_key(*id))
        .collect();
    let foreign: Vec<&String> = records
        .keys()
        .filter(|id| !expected.contains(*id))
        .collect();
    if missing.is_empty() && foreign.is_empty() {
        return None;
    }
    if !missing.is_empty() {
        eprintln!(
            "error: the outputs are incomplete: {} of {} selected scenario id(s) missing",
            missing.len(),
            expected.len()
        );
        for id in missing.iter().take(SHOWN_IDS) {
            eprintln!("  missing {id}");
        }
        more(missing.len());
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

/// Writes the lines to a sibling temp file, syncs it, then renames it over `path`, so a reader
/// never sees a half-merged file and an input named as `--into` is only replaced at the end.
fn write_atomically<'a>(path: &Path, lines: impl Iterator<Item = &'a str>) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".merge-tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    for line in lines {
        file.write_all(line.as_bytes())?;
        file.write_all(b"\n")?;
    }
    let file = file
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    file.sync_data()?;
    std::fs::rename(&tmp, path)
}

fn print_summary(args: &Args, records: &BTreeMap<String, Line>, per_file: &[u64]) {
    let accepted = records.values().filter(|l| l.accepted).count();
    let scores: Vec<f64> = records.values().filter_map(|l| l.score).collect();
    let mean = if scores.is_empty() {
        "-".to_owned()
    } else {
        format!("{:.3}", scores.iter().sum::<f64>() / scores.len() as f64)
    };
    let mut table = Table::new();
    table.set_header(vec!["input", "records"]);
    for (path, n) in args.outputs.iter().zip(per_file) {
        table.add_row(vec![path.display().to_string(), n.to_string()]);
    }
    println!("{table}");
    println!(
        "merged {} record(s) from {} file(s) into {}: {} accepted, mean score {mean}{}",
        records.len(),
        args.outputs.len(),
        args.into.display(),
        accepted,
        if args.config.is_some() {
            " (complete for the config)"
        } else {
            ""
        }
    );
}
