//! `scenario-engine diff` on the fixture runs in `fixtures/runs/`: it must list exactly the
//! planted regressions (see `fixtures/runs/README.md`), exit 1 on them with `--fail-on
//! regression`, 0 without, and 2 on invalid or mismatched input.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Output};

fn runs(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/runs")
        .join(name)
}

fn diff(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("diff")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn path(name: &str) -> String {
    runs(name).to_string_lossy().into_owned()
}

/// The `(scenario, why)` rows of the Markdown regressions table.
fn regressions(markdown: &str) -> BTreeSet<(String, String)> {
    markdown
        .split("### Regressions")
        .nth(1)
        .unwrap_or("")
        .split("\n\n")
        .nth(1)
        .unwrap_or("")
        .lines()
        .skip(2)
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            Some((
                cells.get(1)?.trim_matches('`').to_owned(),
                (*cells.get(5)?).to_owned(),
            ))
        })
        .collect()
}

fn set(items: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn pipeline_diff_lists_exactly_the_planted_regressions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let md = dir.path().join("diff.md");
    let md_arg = md.to_string_lossy().into_owned();
    let before = path("pipeline-before.jsonl");
    let after = path("pipeline-after.jsonl");
    let out = diff(&[
        &before,
        &after,
        "--fail-on",
        "regression",
        "--min-score-delta",
        "1.0",
        "--markdown",
        &md_arg,
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let markdown = std::fs::read_to_string(&md).expect("markdown written");
    assert_eq!(
        regressions(&markdown),
        set(&[
            ("135dd798613952b9", "accepted → rejected, score drop"),
            ("48dd334a5ab1a535", "accepted → rejected"),
            ("d9bcde648ca0f919", "score drop"),
        ])
    );
    insta::assert_snapshot!("pipeline_diff_markdown", markdown);
    insta::assert_snapshot!(
        "pipeline_diff_terminal",
        String::from_utf8_lossy(&out.stdout)
    );

    // Without a minimum delta only decisions regress; without --fail-on the exit code is 0.
    let out = diff(&[&before, &after, "--markdown", &md_arg]);
    assert_eq!(out.status.code(), Some(0));
    let markdown = std::fs::read_to_string(&md).expect("markdown written");
    assert_eq!(
        regressions(&markdown),
        set(&[
            ("135dd798613952b9", "accepted → rejected"),
            ("48dd334a5ab1a535", "accepted → rejected"),
        ])
    );
}

#[test]
fn suite_diff_lists_exactly_the_planted_regressions_and_flips() {
    let dir = tempfile::tempdir().expect("temp dir");
    let md = dir.path().join("diff.md");
    let md_arg = md.to_string_lossy().into_owned();
    let out = diff(&[
        &path("suite-before.json"),
        &path("suite-after.json"),
        "--fail-on",
        "regression",
        "--markdown",
        &md_arg,
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let markdown = std::fs::read_to_string(&md).expect("markdown written");
    assert_eq!(
        regressions(&markdown),
        set(&[
            ("balance-check", "passed → failed"),
            ("send-basic", "passed → failed")
        ])
    );
    assert!(
        markdown.contains("New scenarios: `fee-question-eur`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("Missing scenarios: `correction-ignored`"),
        "{markdown}"
    );
    insta::assert_snapshot!("suite_diff_markdown", markdown);
}

#[test]
fn identical_runs_have_no_regressions() {
    let before = path("pipeline-before.jsonl");
    let out = diff(&[
        &before,
        &before,
        "--fail-on",
        "regression",
        "--min-score-delta",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no regressions"));
}

#[test]
fn invalid_or_mismatched_input_exits_2_with_file_and_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.jsonl");
    let good = std::fs::read_to_string(runs("pipeline-before.jsonl")).expect("fixture");
    let first = good.lines().next().expect("a record");
    std::fs::write(&bad, format!("{first}\n{{\"id\": \"x\", \"score\": \n")).expect("write");
    let out = diff(&[&path("pipeline-before.jsonl"), &bad.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.jsonl:2: invalid JSON"), "{stderr}");

    let out = diff(&[&path("pipeline-before.jsonl"), &path("suite-after.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot compare a pipeline run with a bot suite")
    );

    let out = diff(&[&path("pipeline-before.jsonl"), "no-such-file.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_pipe_is_refused_not_read_as_an_empty_run() {
    // `diff before <(cat after)` once read the pipe for its kind, then streamed nothing from it:
    // "0 matched, all missing, no regressions", exit 0 under --fail-on regression.
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args([
            "diff",
            &path("pipeline-before.jsonl"),
            "/dev/stdin",
            "--fail-on",
            "regression",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let after = std::fs::read(runs("pipeline-after.jsonl")).expect("fixture");
    if let Some(mut stdin) = child.stdin.take() {
        // The binary may refuse before reading everything; a broken pipe is fine here.
        let _ = stdin.write_all(&after);
    }
    let out = child.wait_with_output().expect("the binary ends");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

#[test]
fn section_counts_stay_exact_past_the_listed_rows() {
    // Lists are capped (1,000 rows each); the counts in the headings once were too.
    let dir = tempfile::tempdir().expect("temp dir");
    let (before, after, md) = (
        dir.path().join("before.jsonl"),
        dir.path().join("after.jsonl"),
        dir.path().join("diff.md"),
    );
    let lines = |score: f64, accepted: bool| -> String {
        (0..1200)
            .map(|i| format!("{{\"id\":\"s{i}\",\"score\":{score},\"accepted\":{accepted}}}\n"))
            .collect()
    };
    std::fs::write(&before, lines(9.0, true)).expect("write");
    std::fs::write(&after, lines(5.0, false)).expect("write");
    let out = diff(&[
        before.to_str().expect("utf-8"),
        after.to_str().expect("utf-8"),
        "--markdown",
        md.to_str().expect("utf-8"),
        "--fail-on",
        "regression",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Regressions (1200)"), "{stdout}");
    let markdown = std::fs::read_to_string(&md).expect("markdown written");
    assert!(markdown.contains("**1200 regression(s)**"), "{markdown}");
}

/// Issue 27: `diff`'s headline mean is over the matched scenarios (it says so), and failed
/// scenarios — in either run's errors file, less those a resume did — show as a yield over the
/// scenarios tried instead of vanishing.
#[test]
fn failed_scenarios_show_in_the_diff_as_a_yield_over_the_scenarios_tried() {
    let dir = tempfile::tempdir().expect("tempdir");
    let before = dir.path().join("before.jsonl");
    let after = dir.path().join("after.jsonl");
    std::fs::copy(runs("pipeline-before.jsonl"), &before).expect("copy");
    std::fs::copy(runs("pipeline-after.jsonl"), &after).expect("copy");
    let line = |id: &str| {
        fixtures::runs::failure_line(
            id,
            Some("generator"),
            "generator: rate limited after 5 attempts",
        )
    };
    // Two failed now; a third has a record in the after run (done by a resume).
    let errors = [line("x1"), line("x2"), line("135dd798613952b9")].concat();
    std::fs::write(dir.path().join("after.jsonl.errors.jsonl"), errors).expect("write");
    let o = diff(&[
        before.to_str().expect("utf-8"),
        after.to_str().expect("utf-8"),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("over the 19 matched scenario(s)"), "{text}");
    assert!(
        text.contains("yield over the scenarios tried 17/20 → 17/22 (0 → 2 failed)"),
        "{text}"
    );
}
