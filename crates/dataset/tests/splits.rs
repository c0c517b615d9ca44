//! Split properties over synthetic runs of 1 to 500 scenarios over 1 to 20 language pairs, with
//! planted exact and near duplicates and several samples per scenario: no split is empty, no
//! scenario or planted duplicate cluster straddles splits, and the card's counts are the files'.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use dataset::{DedupPolicy, ExportOptions, Format, Splits, export};
use serde_json::Value;

const LANGUAGES: [&str; 7] = [
    "Hindi", "Arabic", "Spanish", "French", "German", "Malay", "Korean",
];

fn template() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/record-v1.jsonl");
    let text = std::fs::read_to_string(path).expect("fixture");
    serde_json::from_str(text.lines().next().expect("a record")).expect("json")
}

/// A text of 40 words unique to `seed`.
fn text(seed: u64) -> Vec<String> {
    let words: Vec<String> = (0..40).map(|i| format!("w{seed}x{i}")).collect();
    vec![words.join(" ")]
}

/// A run of `scenarios` scenarios over `pairs` pairs; every third scenario has two samples,
/// every seventh record is followed by an exact copy (another scenario), every eleventh by a
/// near copy (one word changed). Returns the run and the planted clusters (ids).
fn run(dir: &Path, scenarios: u64, pairs: u64) -> (std::path::PathBuf, Vec<Vec<String>>) {
    let base = template();
    let mut lines = Vec::new();
    let mut clusters = Vec::new();
    let mut n = 0_u64;
    let mut push =
        |topic: u64, pair: u64, sample: u64, texts: Vec<String>, lines: &mut Vec<String>| {
            n += 1;
            let mut r = base.clone();
            let first = LANGUAGES[(pair % 7) as usize];
            r["id"] = Value::from(format!("r{n}"));
            r["topic"] = Value::from(format!("topic{topic}"));
            r["first_language"] = Value::from(first);
            r["second_language"] = Value::from(format!("English{}", pair / 7));
            r["sample"] = Value::from(sample);
            r["data_generation_result"] = serde_json::to_value(&texts).expect("texts");
            lines.push(serde_json::to_string(&r).expect("json"));
            format!("r{n}")
        };
    let mut extra = 1_000_000;
    for s in 0..scenarios {
        let pair = s % pairs;
        let samples = if s % 3 == 0 { 2 } else { 1 };
        for k in 0..samples {
            let t = text(s * 10 + k);
            let id = push(s, pair, k, t.clone(), &mut lines);
            if (s + k) % 7 == 0 {
                extra += 1;
                let copy = push(extra, (pair + 1) % pairs, 0, t.clone(), &mut lines);
                clusters.push(vec![id.clone(), copy]);
            }
            if (s + k) % 11 == 0 {
                extra += 1;
                let mut near = t[0].clone();
                near.push_str(" tail");
                let copy = push(extra, pair, 0, vec![near], &mut lines);
                clusters.push(vec![id, copy]);
            }
        }
    }
    let path = dir.join(format!("run-{scenarios}-{pairs}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").expect("write run");
    (path, clusters)
}

fn check(run: &Path, clusters: &[Vec<String>], out: &Path, options: &ExportOptions) {
    let summary = export(run, out, options).expect("export");
    let mut split_of: BTreeMap<String, String> = BTreeMap::new();
    let mut topic_split: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = BTreeSet::new();
    let mut pair_of: BTreeMap<String, String> = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("data")).expect("data") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let split = name.split('-').next().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).expect("split");
        assert!(!text.trim().is_empty(), "{name} is empty ({run:?})");
        files.insert(split.clone());
        let rows = text.lines().count() as u64;
        let (_, card_rows) = summary
            .splits
            .iter()
            .find(|(n, _)| *n == split)
            .expect("split on the card");
        assert_eq!(rows, *card_rows, "{split} of {run:?}");
        for line in text.lines() {
            let row: Value = serde_json::from_str(line).expect("row");
            let id = row["id"].as_str().unwrap().to_owned();
            let params: Value = serde_json::from_str(row["params"].as_str().unwrap()).unwrap();
            let topic = params["topic"].as_str().unwrap().to_owned();
            topic_split.entry(topic).or_default().insert(split.clone());
            pair_of.insert(
                id.clone(),
                row["first_language"].to_string() + &row["second_language"].to_string(),
            );
            split_of.insert(id, split.clone());
        }
    }
    let listed: BTreeSet<String> = summary.splits.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(files, listed, "files written = splits on the card");
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    for (name, n) in &summary.splits {
        assert!(
            card.contains(&format!("| {name} | {n} |")),
            "{name} on the card"
        );
        assert!(
            card.contains(&format!("- split: {name}\n")),
            "{name} in configs"
        );
    }
    for name in &summary.folded {
        assert!(
            !card.contains(&format!("- split: {name}\n")),
            "{name} folded"
        );
    }
    let pairs_in = |split: &str| -> BTreeSet<String> {
        split_of
            .iter()
            .filter(|(_, s)| *s == split)
            .map(|(id, _)| pair_of[id].clone())
            .collect()
    };
    if options.splits.shares()[0] >= 0.5 {
        let all: BTreeSet<String> = pair_of.values().cloned().collect();
        assert_eq!(pairs_in("train"), all, "every pair in train ({run:?})");
    }
    for (topic, splits) in &topic_split {
        assert_eq!(splits.len(), 1, "scenario {topic} in {splits:?}");
    }
    for cluster in clusters {
        let splits: BTreeSet<_> = cluster.iter().filter_map(|id| split_of.get(id)).collect();
        assert!(
            splits.len() <= 1,
            "cluster {cluster:?} straddles {splits:?}"
        );
    }
    let total: u64 = summary.splits.iter().map(|(_, n)| n).sum();
    assert_eq!(total, split_of.len() as u64);
    assert_eq!(total, summary.rows);
}

/// JSONL, 80/10/10 splits, duplicates kept and marked, the given seed.
fn marked(seed: u64) -> ExportOptions {
    ExportOptions {
        format: Format::Jsonl,
        splits: "0.8,0.1,0.1".parse().expect("splits"),
        accepted_only: false,
        dedup: DedupPolicy::Mark,
        seed,
        force: true,
        allow_partial: false,
    }
}

#[test]
fn no_split_is_empty_and_no_cluster_straddles_splits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sizes = [
        (1, 1),
        (2, 1),
        (3, 2),
        (5, 5),
        (18, 13),
        (71, 4),
        (120, 20),
        (500, 20),
    ];
    let shares = ["0.8,0.1,0.1", "0.5,0.25,0.25", "0.9,0.1", "1"];
    let mut n = 0;
    for (scenarios, pairs) in sizes {
        let (path, clusters) = run(dir.path(), scenarios, pairs);
        for (i, splits) in shares.iter().enumerate() {
            for seed in 0..2 {
                for dedup in [DedupPolicy::Mark, DedupPolicy::Drop] {
                    n += 1;
                    let options = ExportOptions {
                        format: Format::Jsonl,
                        splits: splits.parse::<Splits>().expect("splits"),
                        accepted_only: false,
                        dedup,
                        seed: seed + i as u64,
                        force: true,
                        allow_partial: false,
                    };
                    check(
                        &path,
                        &clusters,
                        &dir.path().join(format!("out{n}")),
                        &options,
                    );
                }
            }
        }
    }
}

#[test]
fn eighteen_scenarios_over_thirteen_pairs_fill_every_split_for_every_seed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, clusters) = run(dir.path(), 18, 13);
    for seed in 0..8 {
        let options = marked(seed);
        check(
            &path,
            &clusters,
            &dir.path().join(format!("o{seed}")),
            &options,
        );
        let summary =
            export(&path, &dir.path().join(format!("o{seed}")), &options).expect("export");
        assert!(
            summary.folded.is_empty(),
            "seed {seed}: {:?}",
            summary.folded
        );
        assert_eq!(summary.splits.len(), 3);
    }
}

/// Break-it (issue 30): a chain of near duplicates (each text drops two words at its start and
/// adds two at its end: Jaccard about 0.90 to its neighbour, about 0.81 two steps apart) was
/// split, because each record was grouped with the one original it was marked against only.
/// Every near link now joins the group.
#[test]
fn a_chain_of_near_duplicates_stays_in_one_split() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = template();
    let mut lines = Vec::new();
    let mut chain = Vec::new();
    let push = |id: String, topic: String, words: &[String], lines: &mut Vec<String>| {
        let mut r = base.clone();
        r["id"] = Value::from(id);
        r["topic"] = Value::from(topic);
        r["data_generation_result"] = serde_json::to_value(vec![words.join(" ")]).expect("texts");
        lines.push(serde_json::to_string(&r).expect("json"));
    };
    for link in 0..10_usize {
        let words: Vec<String> = (2 * link..2 * link + 40).map(|i| format!("c{i}")).collect();
        let id = format!("ch{link}");
        push(id.clone(), format!("chain{link}"), &words, &mut lines);
        chain.push(id);
    }
    for other in 0..9_u64 {
        let words = text(500 + other);
        push(
            format!("u{other}"),
            format!("other{other}"),
            &words,
            &mut lines,
        );
    }
    let path = dir.path().join("chain.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("run");
    for seed in 0..8 {
        let options = marked(seed);
        check(
            &path,
            std::slice::from_ref(&chain),
            &dir.path().join(format!("c{seed}")),
            &options,
        );
    }
}
