//! `scenario-engine report` on the fixture runs: terminal tables, the Markdown report, and the
//! HTML page's structure (stable element ids and section headings, pinned by snapshots; the page
//! must be self-contained: no script, no external resource).

use std::path::PathBuf;
use std::process::{Command, Output};

use fixtures::runs::failure_line;

fn runs(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/runs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .arg("report")
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The page's skeleton: every `id="…"` and every `<h1>`–`<h3>` text, in document order.
fn structure(html: &str) -> String {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(['<']) {
        rest = &rest[i..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        if let Some(start) = tag.find(" id=\"") {
            let id = &tag[start + 5..];
            out.push(format!("id {}", &id[..id.find('"').unwrap_or(id.len())]));
        }
        for h in ["<h1>", "<h2>", "<h3>"] {
            if rest.starts_with(h) {
                let close = rest.find("</h").unwrap_or(rest.len());
                let text: String = strip_tags(&rest[4..close]);
                out.push(format!("{} {}", &h[1..3], text));
            }
        }
        rest = &rest[1..];
    }
    out.join("\n")
}

fn strip_tags(s: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

fn assert_self_contained(html: &str) {
    for forbidden in ["<script", "http://", "https://", "<link", "src="] {
        assert!(!html.contains(forbidden), "the page contains {forbidden}");
    }
}

#[test]
fn pipeline_report_renders_tables_markdown_and_html() {
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("r.html");
    let md = dir.path().join("r.md");
    let out = report(&[
        &runs("pipeline-before.jsonl"),
        "--html",
        &html.to_string_lossy(),
        "--markdown",
        &md.to_string_lossy(),
        "--axes",
        "topic,cs_ratio",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("pipeline-before.jsonl: 17/20 accepted (85%) at threshold 8"),
        "{stdout}"
    );
    insta::assert_snapshot!("pipeline_report_terminal", stdout);
    let page = std::fs::read_to_string(&html).expect("html written");
    assert_self_contained(&page);
    insta::assert_snapshot!("pipeline_report_html_structure", structure(&page));
    insta::assert_snapshot!(
        "pipeline_report_markdown",
        std::fs::read_to_string(&md).expect("md written")
    );
}

#[test]
fn suite_report_renders_failed_scenarios_with_check_details() {
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("s.html");
    let md = dir.path().join("s.md");
    let out = report(&[
        &runs("suite-before.json"),
        "--html",
        &html.to_string_lossy(),
        "--markdown",
        &md.to_string_lossy(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).expect("html written");
    assert_self_contained(&page);
    // Ten scenarios fail in the fixture; each gets its own Check Details block.
    assert_eq!(page.matches("id=\"failure-").count(), 10);
    insta::assert_snapshot!("suite_report_html_structure", structure(&page));
    insta::assert_snapshot!(
        "suite_report_markdown",
        std::fs::read_to_string(&md).expect("md written")
    );
    insta::assert_snapshot!(
        "suite_report_terminal",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_flags_and_input_exit_2() {
    let out = report(&[&runs("pipeline-before.jsonl"), "--axes", "topic,nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown axis `nope`"));
    let out = report(&[&runs("pipeline-before.jsonl"), "--axes", "topic"]);
    assert_eq!(out.status.code(), Some(2));
    let out = report(&["does-not-exist.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Errors are printed once, `error: …`, with the exit code of their kind; an HTML file that
/// cannot be written is a run failure (3) after the tables were printed.
#[test]
fn errors_are_printed_once_with_their_exit_code() {
    let out = report(&[&runs("pipeline-before.jsonl"), "--axes", "topic"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --axes takes exactly two parameter names, e.g. topic,cs_ratio\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("missing-dir").join("r.html");
    let out = report(&[
        &runs("pipeline-before.jsonl"),
        "--html",
        &html.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error: cannot write "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.stdout.is_empty(), "the tables come first");
}

/// A low-confidence check is visible in every suite report form, of passed scenarios too: the
/// check is marked in a failed scenario's table, and a "Low-confidence verdicts" list names both.
#[test]
fn low_confidence_verdicts_are_listed_for_passed_and_failed_scenarios() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = dir.path().join("s.yaml");
    std::fs::write(
        &suite,
        "bot: {kind: scripted}\nscenarios:\n  - id: unsure-pass\n    category: edge-case\n    steps: [\"x\"]\n    expect: {shouldWarn: [fee]}\n    script: {turns: [{text: \"There is a 1% fee.\"}]}\n  - id: unsure-fail\n    category: edge-case\n    steps: [\"x\"]\n    expect: {shouldWarn: [fee], shouldContain: [nowhere]}\n    script: {turns: [{text: \"There is a 1% fee.\"}]}\n",
    )
    .expect("write suite");
    let json = dir.path().join("r.json");
    let ran = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args([
            "test",
            &suite.to_string_lossy(),
            "--json",
            &json.to_string_lossy(),
        ])
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs");
    assert_eq!(
        ran.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&ran.stdout)
    );
    let html = dir.path().join("s.html");
    let md = dir.path().join("s.md");
    let out = report(&[
        &json.to_string_lossy(),
        "--html",
        &html.to_string_lossy(),
        "--markdown",
        &md.to_string_lossy(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(&md).expect("md written");
    assert!(md.contains("## Low-confidence verdicts"), "{md}");
    assert!(
        md.contains(
            "| `unsure-pass` | PASS | ✓ | `shouldWarn: \"fee\"` *(low confidence: rule unsure)*"
        ),
        "{md}"
    );
    assert!(md.contains("| `unsure-fail` | FAIL |"), "{md}");
    assert!(
        md.contains("| ✓ | `shouldWarn: \"fee\"` *(low confidence: rule unsure)* | 2 |"),
        "{md}"
    );
    let page = std::fs::read_to_string(&html).expect("html written");
    assert!(page.contains("id=\"low-confidence\""), "{page}");
    assert!(page.contains("<code>unsure-pass</code>"), "{page}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Low-confidence verdicts"), "{stdout}");
    assert!(stdout.contains("unsure-pass"), "{stdout}");
}

/// Issue 27: a run with "20 written, 4 failed" reported "19/20 accepted"; the yield over the
/// scenarios tried, and why they failed, were nowhere. The errors file's stale line (a scenario
/// that failed, then was done by a resume) and a scenario's older line do not count.
#[test]
fn a_run_with_failures_reports_the_yield_over_the_scenarios_tried_and_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run.jsonl");
    std::fs::copy(runs("pipeline-before.jsonl"), &out).expect("copy");
    let errors = [
        failure_line(
            "f1",
            Some("fluency"),
            "fluency: rate limited after 5 attempts",
        ),
        failure_line(
            "f2",
            Some("generator"),
            "generator: timed out after 5 attempts",
        ),
        // f2 failed again later: its last line is current.
        failure_line(
            "f2",
            Some("generator"),
            "generator: server error 503 after 5 attempts: rate limited after 3 tries",
        ),
        failure_line("f3", None, "the run stopped before this scenario was done"),
        // Done by a later resume: it has a record, so it is not failed.
        failure_line(
            "135dd798613952b9",
            Some("fluency"),
            "fluency: rate limited after 5 attempts",
        ),
    ]
    .concat();
    let errors_file = dir.path().join("run.jsonl.errors.jsonl");
    std::fs::write(&errors_file, errors).expect("write");
    let md = dir.path().join("r.md");
    let html = dir.path().join("r.html");
    let o = report(&[
        out.to_str().expect("utf-8"),
        "--markdown",
        md.to_str().expect("utf-8"),
        "--html",
        html.to_str().expect("utf-8"),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // pipeline-before: 20 records, 17 accepted; 3 failed now → 17 of 23 tried.
    assert!(
        text.contains("yield 17/23 (74%) of the scenarios tried: 20 written, 3 failed"),
        "{text}"
    );
    assert!(
        text.contains("Why scenarios failed (3 of 23 tried"),
        "{text}"
    );
    for row in [
        "fluency        ┆ rate limited (429)",
        "generator      ┆ server error (5xx)",
        "–              ┆ run stopped first",
    ] {
        let row = row.split_whitespace().collect::<Vec<_>>().join(" ");
        let squeezed = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>();
        assert!(squeezed.iter().any(|l| l.contains(&row)), "{row} in {text}");
    }
    assert!(
        !text.contains("timed out"),
        "f2's older line is not current: {text}"
    );
    let md = std::fs::read_to_string(&md).expect("markdown");
    assert!(md.contains("Yield: 17/23 (74%)"), "{md}");
    assert!(md.contains("## Why scenarios failed"), "{md}");
    let html = std::fs::read_to_string(&html).expect("html");
    assert!(html.contains("<section id=\"failures\">"), "{html}");
    assert!(html.contains("yield over tried (3 failed)"), "{html}");

    // The errors file alone is read as what it is, not refused as "not a record".
    let o = report(&[errors_file.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("an errors file: 4 failed scenario(s)"),
        "{text}"
    );
}

/// A break-it finding (issue 27): a run where every scenario failed left an empty output, and
/// `report`/`diff` refused it as "empty results file" (exit 2), saying nothing of the failures.
#[test]
fn a_run_whose_every_scenario_failed_reports_its_failures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("x.jsonl");
    std::fs::write(&out, "").expect("empty output");
    let errors = [
        failure_line(
            "f1",
            Some("generator"),
            "generator: connection failed after 5 attempts: refused",
        ),
        failure_line(
            "f2",
            Some("generator"),
            "generator: connection failed after 5 attempts: refused",
        ),
    ]
    .concat();
    std::fs::write(dir.path().join("x.jsonl.errors.jsonl"), errors).expect("errors");
    let o = report(&[out.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("yield 0/2 (0%) of the scenarios tried: 0 written, 2 failed"),
        "{text}"
    );
    assert!(text.contains("connection failed"), "{text}");
    // Without failures beside it, an empty file is still an empty results file.
    let lone = dir.path().join("lone.jsonl");
    std::fs::write(&lone, "").expect("empty");
    assert_eq!(
        report(&[lone.to_str().expect("utf-8")]).status.code(),
        Some(2)
    );
}
