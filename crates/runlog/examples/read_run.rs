//! Reads a run's output with this crate alone (no model transport, no async runtime): every
//! record through the tolerant streaming reader, the acceptance and mean score, and the lines
//! that are not records, with their line numbers.
//!
//! `cargo run -p runlog --example read_run [-- RUN.jsonl]` (default: the fixture
//! `fixtures/runs/pipeline-before.jsonl`). An example may print.

use std::path::PathBuf;

use runlog::ScenarioRecord;
use runlog::record::RecordReader;

fn main() {
    let path = std::env::args().nth(1).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/runs/pipeline-before.jsonl")
        },
        PathBuf::from,
    );
    let reader = match RecordReader::<_, ScenarioRecord>::open(&path) {
        Ok(reader) => reader,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            std::process::exit(2);
        }
    };
    let (mut records, mut accepted, mut score) = (0u64, 0u64, 0.0);
    for item in reader {
        match item {
            Ok(located) => {
                records += 1;
                accepted += u64::from(located.record.accepted);
                score += located.record.score;
            }
            Err(e) => eprintln!("skipped: {e}"),
        }
    }
    let mean = if records == 0 {
        0.0
    } else {
        score / records as f64
    };
    println!(
        "{}: {records} record(s), {accepted} accepted, mean score {mean:.2}",
        path.display()
    );
}
