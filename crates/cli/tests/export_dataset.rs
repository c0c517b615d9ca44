//! `scenario-engine export` end to end: the folder, its splits, duplicates, the card, and every
//! way it refuses bad input without leaving a half-written dataset. Parquet is read back with the
//! parquet crate (CI also loads it with pyarrow and Hugging Face datasets: `cargo xtask
//! export-check`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

fn fixture_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/pipeline-after.jsonl")
}

fn export(run: &Path, out: &Path, extra: &[&str]) -> Output {
    std::process::Command::new(BIN)
        .arg("export")
        .arg(run)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every JSONL row of every split: split name → rows.
fn jsonl_rows(out: &Path) -> BTreeMap<String, Vec<Value>> {
    let mut rows = BTreeMap::new();
    for entry in std::fs::read_dir(out.join("data")).expect("data folder") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let split = name.split('-').next().unwrap_or_default().to_owned();
        let text = std::fs::read_to_string(&path).expect("split file");
        let parsed: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON row"))
            .collect();
        rows.insert(split, parsed);
    }
    rows
}

fn records(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run)
        .expect("run")
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect()
}

fn write_run(path: &Path, records: &[Value]) {
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).expect("write run");
}

#[test]
fn jsonl_export_has_every_record_once_in_disjoint_splits_and_a_card() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("ds");
    let o = export(
        &fixture_run(),
        &out,
        &[
            "--format",
            "jsonl",
            "--include",
            "rejected,duplicates",
            "--dedup",
            "off",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = jsonl_rows(&out);
    assert_eq!(
        rows.keys().collect::<Vec<_>>(),
        ["test", "train", "validation"]
    );
    let ids: Vec<&str> = rows
        .values()
        .flatten()
        .filter_map(|r| r["id"].as_str())
        .collect();
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique.len(), "an id in two splits");
    let expected: BTreeSet<String> = records(&fixture_run())
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(unique.len(), expected.len());
    assert!(rows["train"].len() >= rows["test"].len());
    let row = &rows["train"][0];
    assert!(
        row["texts"].as_array().is_some_and(|t| !t.is_empty()),
        "{row}"
    );
    assert!(serde_json::from_str::<Value>(row["params"].as_str().expect("params")).is_ok());
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    assert!(card.starts_with("---\n"), "{card}");
    for needle in [
        "- \"ar\"\n",
        "- \"en\"\n",
        "- \"es\"\n",
        "path: data/train-*",
        "20 rows",
        "Arabic–English",
    ] {
        assert!(
            card.contains(needle),
            "{needle} missing from the card:\n{card}"
        );
    }
}

#[test]
fn parquet_export_reads_back_with_every_column() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("ds");
    let o = export(
        &fixture_run(),
        &out,
        &["--splits", "0.5,0.5", "--include", "rejected,duplicates"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut total = 0;
    for split in ["train", "validation"] {
        let path = out.join(format!("data/{split}-00000-of-00001.parquet"));
        let reader = SerializedFileReader::new(std::fs::File::open(&path).expect("parquet"))
            .expect("a Parquet file");
        let meta = reader.metadata().file_metadata();
        total += meta.num_rows();
        let columns: Vec<&str> = meta
            .schema_descr()
            .root_schema()
            .get_fields()
            .iter()
            .map(|f| f.name())
            .collect();
        for column in [
            "id",
            "texts",
            "score",
            "accepted",
            "embedded_ratio",
            "gate_passed",
            "duplicate_of",
            "params",
            "included_as",
            "tokens",
            "tags",
            "sentence_status",
            "sentence_coverage",
            "sentences_recomputed",
            "m_index",
            "i_index",
            "burstiness",
            "judge_feedback",
            "attempts",
            "attempt_scores",
            "gate_reason",
            "param_first_language",
        ] {
            assert!(columns.contains(&column), "{column} missing: {columns:?}");
        }
    }
    assert_eq!(total, 20);
    assert!(!out.join("data/test-00000-of-00001.parquet").exists());
}

#[test]
fn samples_of_one_scenario_share_a_split_and_pairs_are_stratified() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = dir.path().join("run.jsonl");
    let base = records(&fixture_run());
    let mut many = Vec::new();
    for (i, record) in base.iter().enumerate() {
        for sample in 0..3 {
            let mut r = record.clone();
            r["id"] = Value::from(format!("{i:04}-{sample}"));
            r["sample"] = Value::from(sample);
            r["data_generation_result"] =
                Value::from(vec![format!("text {i} {sample} unique words here")]);
            many.push(r);
        }
    }
    write_run(&run, &many);
    let out = dir.path().join("ds");
    let o = export(
        &run,
        &out,
        &[
            "--format",
            "jsonl",
            "--splits",
            "0.6,0.2,0.2",
            "--seed",
            "7",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut split_of_scenario: BTreeMap<String, String> = BTreeMap::new();
    let mut pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (split, rows) in jsonl_rows(&out) {
        for row in rows {
            let scenario = row["id"].as_str().expect("id")[..4].to_owned();
            let before = split_of_scenario.insert(scenario.clone(), split.clone());
            assert!(
                before.is_none_or(|b| b == split),
                "scenario {scenario} in two splits"
            );
            *pairs
                .entry((
                    split.clone(),
                    row["first_language"].as_str().unwrap_or("").to_owned(),
                ))
                .or_default() += 1;
        }
    }
    // 9 Arabic and 11 Spanish scenarios, 3 samples each: 60/20/20 within each pair, ±1 scenario.
    for (pair, scenarios) in [("Arabic", 9_usize), ("Spanish", 11)] {
        let train = pairs
            .get(&("train".into(), pair.into()))
            .copied()
            .unwrap_or(0)
            / 3;
        assert!(
            train.abs_diff(scenarios * 6 / 10) <= 1,
            "{pair}: {train} of {scenarios} in train"
        );
        assert!(
            pairs.contains_key(&("test".into(), pair.into())),
            "{pair} missing from test"
        );
    }
}

#[test]
fn duplicates_are_marked_or_dropped_and_distinct_texts_never_are() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = dir.path().join("run.jsonl");
    let mut rs = records(&fixture_run());
    let long = "Mujhe lagta hai ki project deadline tak complete nahi hoga kyunki team ke paas abhi \
                bhi bahut saara kaam pending hai aur client har din naye changes maang raha hai jo \
                humne plan mein kabhi socha hi nahi tha aur ab sab log weekend pe bhi kaam kar rahe hain";
    rs[0]["data_generation_result"] = Value::from(vec![long]);
    let mut exact = rs[1].clone();
    exact["id"] = Value::from("exact-copy");
    exact["data_generation_result"] = Value::from(vec![long.to_uppercase()]);
    let mut near = rs[2].clone();
    near["id"] = Value::from("near-copy");
    near["data_generation_result"] = Value::from(vec![long.replace("client", "customer")]);
    rs.push(exact);
    rs.push(near);
    write_run(&run, &rs);
    let first = rs[0]["id"].as_str().expect("id").to_owned();

    let marked = dir.path().join("marked");
    let o = export(
        &run,
        &marked,
        &[
            "--format",
            "jsonl",
            "--include",
            "rejected,duplicates",
            "--dedup",
            "mark",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = jsonl_rows(&marked).into_values().flatten().collect();
    let of = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .map(|r| r["duplicate_of"].clone())
    };
    assert_eq!(of("exact-copy"), Some(Value::from(first.clone())));
    assert_eq!(of("near-copy"), Some(Value::from(first.clone())));
    assert_eq!(of(&first), Some(Value::Null));
    let marked_dups = rows.iter().filter(|r| !r["duplicate_of"].is_null()).count();
    let included_as = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .map(|r| r["included_as"].clone())
    };
    assert_eq!(included_as("exact-copy"), Some(Value::from("duplicate")));
    let original = if rs[0]["accepted"] == true {
        "accepted"
    } else {
        "rejected"
    };
    assert_eq!(included_as(&first), Some(Value::from(original)));
    assert!(rows.iter().any(|r| r["included_as"] == "rejected"));
    assert!(
        rows.iter()
            .filter(|r| r["included_as"] == "duplicate")
            .count()
            == marked_dups
    );

    let dropped = dir.path().join("dropped");
    let o = export(
        &run,
        &dropped,
        &[
            "--format",
            "jsonl",
            "--include",
            "rejected",
            "--dedup",
            "drop",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let kept: Vec<Value> = jsonl_rows(&dropped).into_values().flatten().collect();
    assert_eq!(kept.len(), rows.len() - marked_dups);
    assert!(
        kept.iter().any(|r| r["id"] == first.as_str()),
        "the original stays"
    );
    let card = std::fs::read_to_string(dropped.join("README.md")).expect("card");
    assert!(card.contains("near duplicates 1"), "{card}");
}

#[test]
fn bad_input_is_refused_and_leaves_no_dataset_behind() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().join("ds");
    for bad in [
        "0.8,0.1",
        "0.9,-0.1,0.2",
        "0.25,0.25,0.25,0.25",
        "NaN",
        "a,b",
        "",
    ] {
        let o = export(&fixture_run(), &out, &["--splits", bad]);
        assert_eq!(o.status.code(), Some(2), "--splits {bad:?}: {}", stderr(&o));
        assert!(!out.exists());
    }
    // A corrupt line: the error names the file and line; nothing is left.
    let run = dir.path().join("corrupt.jsonl");
    let mut text = std::fs::read_to_string(fixture_run()).expect("run");
    text.push_str("{not json\n");
    text.push_str(&std::fs::read_to_string(fixture_run()).expect("run"));
    std::fs::write(&run, text).expect("write");
    let o = export(&run, &out, &["--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("corrupt.jsonl:line 21"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // An existing folder is replaced only with --force.
    let o = export(&fixture_run(), &out, &["--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = export(&fixture_run(), &out, &["--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    let o = export(
        &fixture_run(),
        &out,
        &["--format", "jsonl", "--force", "--accepted-only"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = jsonl_rows(&out).into_values().flatten().collect();
    // 17 accepted, one of them a duplicate: dropped by default.
    assert_eq!(rows.len(), 16);
    assert!(rows.iter().all(|r| r["accepted"] == true));
}

/// Break-it finding: `--force` with `--out .` (or the run's own folder, or a folder above it)
/// deleted the run and everything beside it. `--force` now replaces only an earlier export, and
/// never a folder holding the run file or the current directory; a refused export deletes
/// nothing.
#[test]
fn force_never_deletes_the_run_or_a_folder_that_is_not_an_export() {
    let dir = tempfile::tempdir().expect("tmp");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join("sub")).expect("dirs");
    let run = project.join("run.jsonl");
    std::fs::copy(fixture_run(), &run).expect("copy");
    std::fs::write(project.join("sub/notes.txt"), "keep me").expect("notes");
    let kept = |why: &str| {
        assert!(run.is_file(), "{why}: the run file was deleted");
        assert_eq!(
            std::fs::read_to_string(project.join("sub/notes.txt")).expect("notes"),
            "keep me",
            "{why}"
        );
    };
    let in_project = |args: &[&str]| {
        std::process::Command::new(BIN)
            .current_dir(&project)
            .arg("export")
            .args(args)
            .output()
            .expect("the binary runs")
    };
    for out in [".", "./", "..", "sub/.."] {
        let o = in_project(&["run.jsonl", "--out", out, "--format", "jsonl", "--force"]);
        assert_eq!(o.status.code(), Some(2), "--out {out}: {}", stderr(&o));
        kept(out);
    }
    // The run's own folder, named from elsewhere, and a folder above it.
    for out in [project.clone(), dir.path().to_path_buf()] {
        let o = export(&run, &out, &["--format", "jsonl", "--force"]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}: {}",
            out.display(),
            stderr(&o)
        );
        assert!(stderr(&o).contains("holds the run file"), "{}", stderr(&o));
        kept("the run's folder");
    }
    // The run file itself.
    let o = export(&run, &run, &["--format", "jsonl", "--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is the run file itself"),
        "{}",
        stderr(&o)
    );
    kept("the run file");
    // A folder that is not an export is never replaced, even with --force.
    let o = export(
        &run,
        &project.join("sub"),
        &["--format", "jsonl", "--force"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not a folder written by `export`"),
        "{}",
        stderr(&o)
    );
    kept("a folder that is not an export");
    // Second break-it round: a planted marker beside the user's files, a linked marker, and an
    // earlier export the user added a file to are not replaced either.
    let planted = dir.path().join("planted");
    std::fs::create_dir_all(planted.join("sub")).expect("dirs");
    std::fs::write(planted.join("mydata.csv"), "a,b").expect("data");
    std::fs::write(planted.join(".scenario-engine-export"), "").expect("marker");
    let o = export(&run, &planted, &["--format", "jsonl", "--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(planted.join("mydata.csv").is_file() && planted.join("sub").is_dir());
    let earlier = dir.path().join("earlier");
    assert!(
        export(&run, &earlier, &["--format", "jsonl"])
            .status
            .success()
    );
    std::fs::write(earlier.join("notes.txt"), "mine").expect("notes");
    let o = export(&run, &earlier, &["--format", "jsonl", "--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(earlier.join("notes.txt").is_file());
    #[cfg(unix)]
    {
        let linked = dir.path().join("linked");
        std::fs::create_dir_all(&linked).expect("dir");
        std::fs::write(linked.join("mydata.csv"), "a,b").expect("data");
        std::os::unix::fs::symlink(
            earlier.join(".scenario-engine-export"),
            linked.join(".scenario-engine-export"),
        )
        .expect("link");
        let o = export(&run, &linked, &["--format", "jsonl", "--force"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(linked.join("mydata.csv").is_file());
    }
    // An earlier export is replaced, and nothing is left beside it.
    let ds = dir.path().join("ds");
    assert!(export(&run, &ds, &["--format", "jsonl"]).status.success());
    let o = export(
        &run,
        &ds,
        &["--format", "jsonl", "--force", "--accepted-only"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(ds.join("README.md").is_file());
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    kept("after a good export");
}

/// Break-it finding: records written before measurement statuses existed were exported as
/// `measurement_status: "ok"` and averaged as trusted; they were never trust-checked.
#[test]
fn records_without_a_status_are_not_exported_as_ok() {
    let dir = tempfile::tempdir().expect("tmp");
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/record-v1.jsonl");
    let out = dir.path().join("ds");
    let o = export(&v1, &out, &["--format", "jsonl", "--splits", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = jsonl_rows(&out).into_values().flatten().collect();
    assert!(!rows.is_empty());
    for row in &rows {
        assert!(row["measurement_status"].is_null(), "{row}");
    }
}

/// Issue 30: a newcomer's export holds the accepted, de-duplicated rows (it held rejected ones
/// and duplicates unless two flags were given); `--include` adds them back, saying why, and the
/// card's figures match the rows.
#[test]
fn defaults_export_accepted_unique_rows_and_include_adds_the_rest() {
    let dir = tempfile::tempdir().expect("tmp");
    let all = records(&fixture_run());
    let accepted = all.iter().filter(|r| r["accepted"] == true).count();
    let out = dir.path().join("default");
    let o = export(&fixture_run(), &out, &["--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = jsonl_rows(&out).into_values().flatten().collect();
    assert!(
        rows.iter()
            .all(|r| r["accepted"] == true && r["included_as"] == "accepted")
    );
    assert!(rows.iter().all(|r| r["duplicate_of"].is_null()));
    assert!(rows.len() < accepted, "the fixture's duplicate is dropped");
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    assert!(card.contains(&format!("{} rows", rows.len())), "{card}");
    assert!(card.contains("`--include rejected` adds them"), "{card}");
    // The redundant flags give the same rows.
    let same = dir.path().join("same");
    let o = export(
        &fixture_run(),
        &same,
        &["--format", "jsonl", "--accepted-only", "--dedup", "drop"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(jsonl_rows(&same), jsonl_rows(&out));
    // --include adds the rest, and says why each row is there.
    let everything = dir.path().join("all");
    let o = export(
        &fixture_run(),
        &everything,
        &["--format", "jsonl", "--include", "rejected,duplicates"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = jsonl_rows(&everything).into_values().flatten().collect();
    assert_eq!(rows.len(), all.len());
    for r in &rows {
        let why = r["included_as"].as_str().expect("included_as");
        match why {
            "duplicate" => assert!(!r["duplicate_of"].is_null(), "{r}"),
            "rejected" => assert_eq!(r["accepted"], false, "{r}"),
            "accepted" => assert_eq!(r["accepted"], true, "{r}"),
            other => panic!("included_as {other}"),
        }
    }
    // Contradictory flags are refused.
    for flags in [
        ["--include", "rejected", "--accepted-only"].as_slice(),
        ["--include", "duplicates", "--dedup", "drop"].as_slice(),
    ] {
        let o = export(&fixture_run(), &dir.path().join("x"), flags);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
    }
}

/// Issue 30: exporting a run file that a run still holds exported a partial dataset with
/// exit 0; it is refused unless `--allow-partial` (then the card says partial). A stale lock
/// file (its run killed) does not block.
#[test]
fn a_run_still_writing_is_refused_unless_allow_partial() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = dir.path().join("run.jsonl");
    std::fs::copy(fixture_run(), &run).expect("copy");
    let lock = runlog::OutputLock::acquire(&run).expect("lock");
    let out = dir.path().join("ds");
    let o = export(&run, &out, &["--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--allow-partial"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = export(&run, &out, &["--format", "jsonl", "--allow-partial"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    assert!(card.contains("**Partial**"), "{card}");
    // Break-it: a file a live run writes may end in a line cut short; --allow-partial leaves
    // it out instead of refusing the export.
    let text = std::fs::read_to_string(&run).expect("run");
    let rows = text.lines().count();
    std::fs::write(&run, format!("{text}{{\"id\": \"torn")).expect("torn");
    let torn = dir.path().join("torn");
    let o = export(
        &run,
        &torn,
        &[
            "--format",
            "jsonl",
            "--allow-partial",
            "--include",
            "rejected,duplicates",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let written: usize = ["train", "validation", "test"]
        .iter()
        .filter_map(|s| {
            std::fs::read_to_string(torn.join(format!("data/{s}-00000-of-00001.jsonl"))).ok()
        })
        .map(|t| t.lines().count())
        .sum();
    assert_eq!(written, rows);
    std::fs::write(&run, text).expect("restore");
    drop(lock);
    // The lock file stays behind (as after kill -9): no live holder, so no refusal.
    assert!(dir.path().join("run.jsonl.lock").exists());
    let o = export(&run, &dir.path().join("ds2"), &["--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let card = std::fs::read_to_string(dir.path().join("ds2/README.md")).expect("card");
    assert!(!card.contains("**Partial**"), "{card}");
}

/// Issue 30: an empty run exported a 0-row dataset that cannot be loaded (exit 0). No record,
/// or no row left after the defaults, is bad input (exit 2) with the flag that helps.
#[test]
fn an_empty_run_or_export_is_an_error_with_a_hint() {
    let dir = tempfile::tempdir().expect("tmp");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let out = dir.path().join("ds");
    let o = export(&empty, &out, &["--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no records"), "{}", stderr(&o));
    assert!(!out.exists());
    let rejected: Vec<Value> = records(&fixture_run())
        .into_iter()
        .map(|mut r| {
            r["accepted"] = Value::from(false);
            r
        })
        .collect();
    let run = dir.path().join("rejected.jsonl");
    write_run(&run, &rejected);
    let o = export(&run, &out, &["--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--include rejected"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = export(&run, &out, &["--format", "jsonl", "--include", "rejected"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 30: the per-word tags the measurement computed were thrown away. The Parquet `tags`
/// column holds them, one list per sentence parallel to `tokens`, equal to the measurement's.
#[test]
fn parquet_tags_equal_the_measurements_tags_for_every_sentence() {
    let dir = tempfile::tempdir().expect("tmp");
    let texts = vec![
        "मैं कल office जाऊँगा, meeting 3 बजे है!".to_owned(),
        "यह project बहुत important है।".to_owned(),
    ];
    let m = codeswitch::measure(&texts, "Hindi", "English").expect("measure");
    let mut r = records(&fixture_run())[0].clone();
    r["first_language"] = Value::from("Hindi");
    r["second_language"] = Value::from("English");
    r["accepted"] = Value::from(true);
    r["data_generation_result"] = serde_json::to_value(&texts).expect("texts");
    r["measurement"] = serde_json::to_value(&m).expect("measurement");
    let run = dir.path().join("run.jsonl");
    write_run(&run, &[r]);
    let out = dir.path().join("ds");
    let o = export(&run, &out, &["--splits", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = out.join("data/train-00000-of-00001.parquet");
    let reader =
        SerializedFileReader::new(std::fs::File::open(&path).expect("parquet")).expect("file");
    let rows: Vec<Value> = reader
        .get_row_iter(None)
        .expect("rows")
        .map(|r| {
            let row = r.expect("row");
            let fields: serde_json::Map<String, Value> = row
                .get_column_iter()
                .map(|(name, field)| (name.clone(), strings(field)))
                .collect();
            Value::Object(fields)
        })
        .collect();
    assert_eq!(rows.len(), 1);
    let want: Vec<Vec<String>> = m
        .sentences
        .iter()
        .map(|s| {
            s.tokens
                .iter()
                .map(|t| match t.tag {
                    codeswitch::WordTag::Lang(l) if l.name() == "Hindi" => "hi".to_owned(),
                    codeswitch::WordTag::Lang(l) if l.name() == "English" => "en".to_owned(),
                    codeswitch::WordTag::Lang(l) => panic!("{l}"),
                    codeswitch::WordTag::Untagged(r) => serde_json::to_value(r)
                        .expect("reason")
                        .as_str()
                        .expect("str")
                        .to_owned(),
                })
                .collect()
        })
        .collect();
    let tags: Vec<Vec<String>> = serde_json::from_value(rows[0]["tags"].clone()).expect("tags");
    let tokens: Vec<Vec<String>> =
        serde_json::from_value(rows[0]["tokens"].clone()).expect("tokens");
    assert_eq!(tags, want);
    assert!(want.iter().flatten().any(|t| t == "hi") && want.iter().flatten().any(|t| t == "en"));
    for (s, t) in m.sentences.iter().zip(&tokens) {
        let texts: Vec<&str> = s.tokens.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(t, &texts);
    }
}

/// A Parquet field's strings and lists of strings as JSON (other values as null).
fn strings(field: &parquet::record::Field) -> Value {
    match field {
        parquet::record::Field::Str(s) => Value::from(s.as_str()),
        parquet::record::Field::ListInternal(list) => {
            Value::Array(list.elements().iter().map(strings).collect())
        }
        _ => Value::Null,
    }
}
