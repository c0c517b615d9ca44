//! `scenario-engine merge` end to end: four online shards against the fake server merge into
//! the ids of an unsharded run; overlapping or incomplete inputs exit 2 naming the ids.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use fixtures::{FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

/// A 12-scenario grid: small enough for four shards and a full run in a few seconds.
const CONFIG: &str = "name: merge-test
language_pairs:
  - {first_language: Spanish, second_language: English}
  - {first_language: French, second_language: English}
axes:
  topic: [business, health, sports]
  cs_ratio: [\"30%\", \"50%\"]
seed: 7
";

fn clean(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") {
            cmd.env_remove(key);
        }
    }
    cmd.env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_DELAY", "5")
        .kill_on_drop(true)
}

async fn run(config: &Path, out: &Path, base_url: &str, extra: &[&str]) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    clean(&mut cmd)
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--base-url", base_url, "--model", "fake-model"])
        .args(["--api-key-env", "SCENARIO_ENGINE_TEST_NO_KEY", "--no-cache"])
        .args(extra)
        .output()
        .await
        .expect("the binary runs")
}

async fn merge(args: &[&Path]) -> Output {
    let mut cmd = tokio::process::Command::new(BIN);
    clean(&mut cmd)
        .arg("merge")
        .args(args)
        .output()
        .await
        .expect("the binary runs")
}

fn ids(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("output exists")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON line");
            v["id"].as_str().expect("id").to_owned()
        })
        .collect()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_shards_merge_into_the_ids_of_an_unsharded_run() {
    let server = FakeServer::start(FakeConfig::default().with_seed(2))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, CONFIG).expect("config");

    let mut shards: Vec<PathBuf> = Vec::new();
    for k in 1..=4 {
        let out = dir.path().join(format!("shard{k}.jsonl"));
        let o = run(
            &config,
            &out,
            &server.base_url(),
            &["--shard", &format!("{k}/4")],
        )
        .await;
        assert_eq!(o.status.code(), Some(0), "shard {k}: {}", text(&o));
        shards.push(out);
    }
    let whole = dir.path().join("whole.jsonl");
    let o = run(&config, &whole, &server.base_url(), &[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let merged = dir.path().join("merged.jsonl");
    let mut args: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    args.extend([Path::new("--into"), &merged, Path::new("--config"), &config]);
    let o = merge(&args).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("merged 12 record(s) from 4 file(s)"),
        "{}",
        text(&o)
    );

    let merged_ids = ids(&merged);
    let mut sorted = merged_ids.clone();
    sorted.sort();
    assert_eq!(merged_ids, sorted, "the merged file is sorted by id");
    let whole_ids: BTreeSet<String> = ids(&whole).into_iter().collect();
    assert_eq!(whole_ids.len(), 12);
    assert_eq!(merged_ids.into_iter().collect::<BTreeSet<_>>(), whole_ids);

    // Overlap: shard 1 twice is refused, naming a duplicated id.
    let o = merge(&[&shards[0], &shards[0], Path::new("--into"), &merged]).await;
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let first_id = ids(&shards[0])
        .into_iter()
        .next()
        .expect("shard 1 has a record");
    assert!(text(&o).contains("not disjoint"), "{}", text(&o));
    assert!(text(&o).contains(&first_id), "{}", text(&o));

    // Incomplete: three shards of four against the config, the missing ids named.
    let args: Vec<&Path> = vec![
        &shards[0],
        &shards[1],
        &shards[2],
        Path::new("--into"),
        &merged,
        Path::new("--config"),
        &config,
    ];
    let o = merge(&args).await;
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    for id in ids(&shards[3]) {
        assert!(text(&o).contains(&format!("missing {id}")), "{}", text(&o));
    }
    // The refused merges left the good merged file alone.
    assert_eq!(ids(&merged).len(), 12);
}

fn record(id: &str) -> String {
    format!("{{\"id\":\"{id}\",\"score\":8.0,\"accepted\":true}}\n")
}

/// Every problem is printed once on stderr, each paragraph starting `error:`, and the exit codes
/// are those of the other commands: 2 for bad input, 3 for an output that cannot be written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_problems_are_reported_once_with_their_exit_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, CONFIG).expect("config");
    let foreign = dir.path().join("foreign.jsonl");
    std::fs::write(&foreign, record("ffffffffffffffff")).expect("shard");
    let into = dir.path().join("merged.jsonl");

    let o = merge(&[
        &foreign,
        Path::new("--into"),
        &into,
        Path::new("--config"),
        &config,
    ])
    .await;
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [
            "error: the outputs are incomplete: 12 of 12 selected scenario id(s) missing",
            "error: 1 id(s) are not in the config's selection",
        ],
        "{stderr}"
    );
    assert_eq!(stderr.matches("\n  missing ").count(), 12, "{stderr}");
    assert!(stderr.ends_with("  foreign ffffffffffffffff\n"), "{stderr}");
    assert!(!into.exists(), "nothing is written for refused inputs");

    let broken = dir.path().join("broken.jsonl");
    std::fs::write(&broken, format!("{}{{oops\n", record("a"))).expect("shard");
    let o = merge(&[&broken, Path::new("--into"), &into]).await;
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("broken.jsonl:2: "), "{stderr}");

    // The target is a directory: the merge cannot be written (exit 3).
    let o = merge(&[&foreign, Path::new("--into"), dir.path()]).await;
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).starts_with("error: cannot write "),
        "{}",
        text(&o)
    );
}

/// A config with `limit` (per process, after sharding): shards that each ran their limit merge
/// with `--config` (no foreign id; completeness is not defined by the config alone, and a note
/// says so) instead of being refused as foreign.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_of_a_limited_config_merge_against_it() {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("limited.yaml");
    std::fs::write(&config, format!("{CONFIG}limit: 2\n")).expect("config");
    let mut parts = Vec::new();
    for k in 1..=3 {
        let out = dir.path().join(format!("part{k}.jsonl"));
        let o = run(
            &config,
            &out,
            &server.base_url(),
            &["--shard", &format!("{k}/3")],
        )
        .await;
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(ids(&out).len(), 2);
        parts.push(out);
    }
    let into = dir.path().join("merged.jsonl");
    let mut args: Vec<&Path> = parts.iter().map(PathBuf::as_path).collect();
    args.extend([
        Path::new("--into"),
        into.as_path(),
        Path::new("--config"),
        config.as_path(),
    ]);
    let o = merge(&args).await;
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("completeness is not checked: 6 of the 12"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("complete for the config"), "{stdout}");
    assert_eq!(ids(&into).len(), 6);
}

/// Issue 27: the README's `merge out/shard*.jsonl` glob picks up `shardN.jsonl.errors.jsonl`,
/// which the merge refused as "not a record". Errors files are skipped with a note, and the
/// shards' current failures (not those a resume did) go beside the merged file, where `report`
/// counts them in the yield.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_glob_with_errors_files_merges_and_keeps_the_failures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("shard1.jsonl");
    let b = dir.path().join("shard2.jsonl");
    std::fs::write(&a, [record("a1"), record("a2")].concat()).expect("shard");
    std::fs::write(&b, record("b1")).expect("shard");
    let failure = |id: &str| {
        fixtures::runs::failure_line(
            id,
            Some("fluency"),
            "fluency: server error 500 after 5 attempts: boom",
        )
    };
    let a_errors = dir.path().join("shard1.jsonl.errors.jsonl");
    // a2 failed once, then a resume wrote its record: only x1 is failed now.
    std::fs::write(&a_errors, [failure("x1"), failure("a2")].concat()).expect("errors");
    let b_errors = dir.path().join("shard2.jsonl.errors.jsonl");
    std::fs::write(&b_errors, failure("x2")).expect("errors");
    let into = dir.path().join("merged.jsonl");
    // What `out/shard*.jsonl` expands to, in the shell's order.
    let o = merge(&[&a, &a_errors, &b, &b_errors, Path::new("--into"), &into]).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(stderr.matches("skipped ").count(), 2, "{stderr}");
    assert!(
        stderr.contains("shard1.jsonl.errors.jsonl: an errors file"),
        "{stderr}"
    );
    assert_eq!(ids(&into), ["a1", "a2", "b1"]);
    let merged_errors = dir.path().join("merged.jsonl.errors.jsonl");
    let failed: Vec<String> = std::fs::read_to_string(&merged_errors)
        .expect("the merged failures")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json")["id"].to_string())
        .collect();
    assert_eq!(failed, ["\"x1\"", "\"x2\""]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("2 failed scenario(s)"),
        "{}",
        text(&o)
    );

    let report = tokio::process::Command::new(BIN)
        .arg("report")
        .arg(&into)
        .output()
        .await
        .expect("report");
    let out = String::from_utf8_lossy(&report.stdout);
    assert!(
        out.contains("yield 3/5 (60%) of the scenarios tried: 3 written, 2 failed"),
        "{out}"
    );

    // Only errors files: nothing to merge (exit 2), nothing written.
    let lone = dir.path().join("lone.jsonl");
    let o = merge(&[&a_errors, Path::new("--into"), &lone]).await;
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!lone.exists());
}

/// The README's recipe with a failure: shards run, one scenario failed (it is in its shard's
/// errors file, not its output). `merge out/shard*.jsonl --into … --config …` merges, counting
/// the failed scenario as accounted for (not "missing"), and `report` shows the yield over the
/// scenarios tried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_recipe_merges_shards_with_a_failure_against_the_config() {
    let server = FakeServer::start(FakeConfig::default().with_seed(2))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("grid.yaml");
    std::fs::write(&config, CONFIG).expect("config");
    for k in 1..=2 {
        let out = dir.path().join(format!("shard{k}.jsonl"));
        let o = run(
            &config,
            &out,
            &server.base_url(),
            &["--shard", &format!("{k}/2")],
        )
        .await;
        assert_eq!(o.status.code(), Some(0), "shard {k}: {}", text(&o));
    }
    // Shard 1's last scenario failed instead: its record becomes an errors-file line.
    let shard1 = dir.path().join("shard1.jsonl");
    let text1 = std::fs::read_to_string(&shard1).expect("shard 1");
    let (kept, last) = text1.trim_end().rsplit_once('\n').expect("several records");
    std::fs::write(&shard1, format!("{kept}\n")).expect("rewrite");
    let record: Value = serde_json::from_str(last).expect("record");
    let failure = fixtures::runs::failure_line(
        record["id"].as_str().expect("id"),
        Some("generator"),
        "generator: rate limited after 5 attempts",
    );
    std::fs::write(dir.path().join("shard1.jsonl.errors.jsonl"), failure).expect("errors");
    // `out/shard*.jsonl`, as the shell expands it.
    let mut glob: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("shard") && name.ends_with(".jsonl")
        })
        .collect();
    glob.sort();
    // Every run leaves an errors file (empty when nothing failed): the glob takes both.
    assert_eq!(glob.len(), 4, "{glob:?}");
    let into = dir.path().join("all.jsonl");
    let mut args: Vec<&Path> = glob.iter().map(PathBuf::as_path).collect();
    args.extend([Path::new("--into"), &into, Path::new("--config"), &config]);
    let o = merge(&args).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("merged 11 record(s) from 2 file(s)")
            && stdout.contains("complete for the config with the 1 failed scenario(s)"),
        "{stdout}"
    );
    let report = tokio::process::Command::new(BIN)
        .arg("report")
        .arg(&into)
        .output()
        .await
        .expect("report");
    let out = String::from_utf8_lossy(&report.stdout);
    assert!(
        out.contains("of the scenarios tried: 11 written, 1 failed"),
        "{out}"
    );
}
