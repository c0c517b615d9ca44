//! Writes a synthetic pipeline run of N records (the real record shape, taken from
//! `fixtures/runs/record-v1.jsonl`, with varied ids, parameters, scores and decisions), for
//! measuring `report`, `diff` and `merge` on large files (see BENCHMARKS.md).
//!
//! ```text
//! cargo run --release -p agents --example synth_run -- N OUT [--variant after] [--shards K]
//! ```
//!
//! `--variant after` writes the same ids with moved scores (some decisions flip), for `diff`;
//! `--shards K` writes `OUT.0` … `OUT.{K-1}` round robin, for `merge`. Deterministic.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use agents::PipelineSettings;
use runlog::record::{RecordSettings, SCHEMA_VERSION, ScenarioRecord};
use serde_json::json;

const TOPICS: [&str; 12] = [
    "travel",
    "food",
    "technology",
    "sports",
    "music",
    "family",
    "work",
    "health",
    "school",
    "shopping",
    "weather",
    "movies",
];
const RATIOS: [&str; 4] = ["10%", "25%", "50%", "75%"];
const LANGUAGES: [&str; 6] = ["Arabic", "Spanish", "Hindi", "French", "Malay", "German"];

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A pseudo-random score in [3, 10) with two decimals.
#[allow(clippy::cast_precision_loss)]
fn score(seed: u64) -> f64 {
    (300 + splitmix64(seed) % 700) as f64 / 100.0
}

fn usage() -> ! {
    eprintln!("usage: synth_run N OUT [--variant after] [--shards K]");
    std::process::exit(2)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), Some(out)) = (args.first(), args.get(1)) else {
        usage()
    };
    let n: u64 = n.parse().unwrap_or_else(|_| usage());
    let out = PathBuf::from(out);
    let after = args
        .windows(2)
        .any(|w| w[0] == "--variant" && w[1] == "after");
    let shards: usize = args
        .windows(2)
        .find(|w| w[0] == "--shards")
        .map_or(Ok(1), |w| w[1].parse())
        .unwrap_or_else(|_| usage());
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/record-v1.jsonl");
    let text = std::fs::read_to_string(fixture)?;
    let mut template: ScenarioRecord =
        serde_json::from_str(text.lines().next().ok_or("empty fixture")?)?;
    // Without the attempts list (about half a real record), so a 1,000,000-record file stays
    // near 4 GB; every field a report, diff or merge reads is present.
    template.attempts.clear();
    template.schema_version = SCHEMA_VERSION;
    template.run_settings = Some(RecordSettings::from(&PipelineSettings::default()));
    let mut files = (0..shards.max(1))
        .map(|k| {
            let path = if shards > 1 {
                PathBuf::from(format!("{}.{k}", out.display()))
            } else {
                out.clone()
            };
            std::fs::File::create(path).map(|f| BufWriter::with_capacity(1 << 20, f))
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut r = template;
    for i in 0..n {
        let h = splitmix64(i);
        r.id = format!("{h:016x}");
        r.index = i;
        r.params
            .insert("topic".into(), json!(TOPICS[(h % 12) as usize]));
        r.params
            .insert("cs_ratio".into(), json!(RATIOS[((h >> 8) % 4) as usize]));
        r.params.insert(
            "first_language".into(),
            json!(LANGUAGES[((h >> 16) % 6) as usize]),
        );
        let mut s = score(h);
        if after {
            // Move a third of the scores by up to ±1.5 points.
            if splitmix64(h ^ 1).is_multiple_of(3) {
                #[allow(clippy::cast_precision_loss)]
                let delta = (splitmix64(h ^ 2) % 301) as f64 / 100.0 - 1.5;
                s = ((s + delta).clamp(0.0, 10.0) * 100.0).round() / 100.0;
            }
        }
        r.score = s;
        r.accepted = s >= 8.0;
        r.refine_count = u32::try_from(h % 3).unwrap_or(0);
        for (k, judge) in scoring::Judge::ALL.iter().enumerate() {
            r.scores.insert((*judge).into(), score(h ^ (k as u64 + 7)));
        }
        let file = &mut files[(i % shards.max(1) as u64) as usize];
        serde_json::to_writer(&mut *file, &r)?;
        file.write_all(b"\n")?;
    }
    for mut f in files {
        f.flush()?;
    }
    Ok(())
}
