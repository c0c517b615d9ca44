//! Regressions of the hostile review of the viewer (issue 32): a run being written or with
//! unreadable lines still has its overview, requests naming another host are refused (DNS
//! rebinding), every response carries the security headers, a damaged index is rebuilt, filter
//! values that cannot be read are named, task-run directories serve only their runs, text
//! search matches words, and the record page shows the stored texts.

use std::path::{Path, PathBuf};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common;

use common::{body, fixture, get, start, start_with};
use viewer::{ViewArgs, bind};

fn fixture_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name))
        .expect("fixture")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Sends `request` as it is to the server at `url`; returns the whole response.
async fn raw(url: &str, request: &str) -> String {
    let addr = url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut out = Vec::new();
    stream.read_to_end(&mut out).await.expect("read");
    String::from_utf8_lossy(&out).into_owned()
}

fn status_of(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}

fn assert_secure(response: &str) {
    let lower = response.to_ascii_lowercase();
    for h in [
        "content-security-policy: default-src 'none'",
        "x-content-type-options: nosniff",
        "referrer-policy: no-referrer",
    ] {
        assert!(lower.contains(h), "missing {h}: {response}");
    }
}

fn counts(html: &str) -> &str {
    let start = html.find("id=\"counts\"").expect("counts");
    let end = html[start..].find("</p>").expect("end") + start;
    &html[start..end]
}

#[tokio::test]
async fn the_overview_of_a_run_with_unreadable_and_half_written_lines_is_shown() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("live.jsonl");
    let lines = fixture_lines("pipeline-before.jsonl");
    let half = &lines[2][..lines[2].len() / 2];
    // A broken line, a line that is not a record, a non-UTF-8 line, then a half-written last one.
    let text = format!(
        "{}\n{{\"id\": broken\n[1,2]\n\u{fffd}\n{}\n{half}",
        lines[0], lines[1]
    );
    let mut bytes = text.into_bytes();
    let bad = bytes.iter().position(|&b| b == 0xef).expect("marker");
    bytes.splice(bad..bad + 3, [0xff]);
    std::fs::write(&path, bytes).expect("write");
    let url = start(vec![path.clone()]).await;
    let page = body(&format!("{url}/run/0")).await;
    assert!(page.contains("3 unreadable line(s) skipped"), "{page}");
    assert!(
        page.contains("id=\"pending\""),
        "the torn last line is named"
    );
    // The two whole records are counted.
    assert!(
        page.contains("<tr><th>records</th><td>2</td></tr>"),
        "{page}"
    );
    // The records table counts the same: the half line is still being written, not unreadable.
    let table = body(&format!("{url}/run/0/records")).await;
    assert!(
        counts(&table).contains("2 of 2 record(s)"),
        "{}",
        counts(&table)
    );
    assert!(
        counts(&table).contains("3 unreadable line(s) skipped"),
        "{}",
        counts(&table)
    );
}

#[tokio::test]
async fn an_unreadable_errors_file_is_named_on_the_overview_and_the_failed_table() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("r.jsonl");
    std::fs::copy(fixture("pipeline-before.jsonl"), &path).expect("copy");
    std::fs::create_dir(runlog::record::errors_path(&path)).expect("errors dir");
    let url = start(vec![path]).await;
    let page = body(&format!("{url}/run/0")).await;
    assert!(page.contains("id=\"errors-problem\""), "{page}");
    let failed = body(&format!("{url}/run/0/records?status=failed")).await;
    assert!(
        failed.contains("the errors file could not be read"),
        "{failed}"
    );
    let n = fixture_lines("pipeline-before.jsonl").len();
    assert!(
        counts(&failed).contains(&format!("0 of {n} ")),
        "{}",
        counts(&failed)
    );
}

#[tokio::test]
async fn requests_naming_another_host_are_refused_with_the_security_headers() {
    let url = start(vec![fixture("pipeline-before.jsonl")]).await;
    let port = url.rsplit(':').next().expect("port");
    for host in [
        format!("evil.example.com:{port}"),
        "evil.example.com".to_owned(),
        format!("localhost.evil.example:{port}"),
        format!(
            "127.0.0.1:{}",
            port.parse::<u16>().expect("port").wrapping_add(1)
        ),
    ] {
        let response = raw(
            &url,
            &format!("GET /run/0/records HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_eq!(status_of(&response), "421", "{host}: {response}");
        assert!(!response.contains("record(s) match"));
        assert_secure(&response);
    }
    // No Host at all (HTTP/1.0).
    let response = raw(&url, "GET /run/0 HTTP/1.0\r\n\r\n").await;
    assert_eq!(status_of(&response), "421", "{response}");
    for host in [
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let response = raw(
            &url,
            &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_eq!(status_of(&response), "200", "{host}: {response}");
    }
}

#[tokio::test]
async fn host_localhost_is_accepted_and_named_hosts_are_refused() {
    let url = start_with(vec![fixture("pipeline-before.jsonl")], "localhost", None).await;
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    body(&format!("{url}/")).await;
    let args = ViewArgs {
        paths: vec![fixture("pipeline-before.jsonl")],
        host: "example.com".into(),
        port: 0,
        open: false,
        compare: false,
        index_dir: None,
    };
    assert!(matches!(bind(&args).await, Err(viewer::ViewError::Host(_))));
}

#[tokio::test]
async fn every_response_the_application_gives_carries_the_security_headers() {
    let url = start(vec![fixture("pipeline-before.jsonl")]).await;
    let host = url.trim_start_matches("http://");
    for (request, status) in [
        (
            format!("GET /nothing HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            "404",
        ),
        (
            format!(
                "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            ),
            "405",
        ),
        (
            format!("GET /run/0/record/1 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            "404",
        ),
        (
            "GET / HTTP/1.1\r\nHost: elsewhere:1\r\nConnection: close\r\n\r\n".to_owned(),
            "421",
        ),
    ] {
        let response = raw(&url, &request).await;
        assert_eq!(status_of(&response), status, "{response}");
        assert_secure(&response);
    }
}

/// A run of at least the size the server indexes, made of the fixture's records.
fn write_big_run(path: &Path) {
    let base: Vec<serde_json::Value> = fixture_lines("pipeline-after.jsonl")
        .iter()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let pad = 20_000;
    let n = usize::try_from(viewer::server::INDEX_MIN_BYTES).expect("size") / pad + 20;
    let mut text = String::new();
    for i in 0..n {
        let mut r = base[i % base.len()].clone();
        r["id"] = json!(format!("s{i:05}"));
        r["data_generation_result"][0] = json!("x".repeat(pad));
        text.push_str(&format!("{r}\n"));
    }
    std::fs::write(path, text).expect("write");
}

fn cache_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("cache")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect()
}

#[tokio::test]
async fn a_damaged_index_is_discarded_and_the_run_read_instead() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    write_big_run(&path);
    let key = viewer::index::IndexKey::of(&path).expect("key");
    viewer::index::Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    let idx = cache_files(cache.path(), "idx").pop().expect("an index");
    let bytes = std::fs::read(&idx).expect("index");
    // A flipped byte (bit rot): not opened, removed.
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x55;
    std::fs::write(&idx, &flipped).expect("flip");
    assert!(
        viewer::index::Index::find(cache.path(), &key).is_none(),
        "a changed index is not opened"
    );
    assert!(!idx.exists(), "the damaged index is removed");
    // Cut by a few bytes (a crash, a full disk): the server reads the run, never a 500.
    viewer::index::Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    std::fs::write(&idx, &bytes[..bytes.len() - 7]).expect("truncate");
    let url = start_with(
        vec![path.clone()],
        "127.0.0.1",
        Some(cache.path().to_owned()),
    )
    .await;
    let page = body(&format!("{url}/run/0/records?status=accepted&sort=-score")).await;
    assert!(
        !page.contains("from the run's index"),
        "the damaged index was used"
    );
    assert!(
        counts(&page).contains(" record(s) match"),
        "{}",
        counts(&page)
    );
}

#[test]
fn a_new_index_of_a_grown_run_removes_the_old_ones() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("r.jsonl");
    let lines = fixture_lines("pipeline-after.jsonl");
    std::fs::write(&path, format!("{}\n", lines[0])).expect("write");
    let first = viewer::index::IndexKey::of(&path).expect("key");
    viewer::index::Index::build(cache.path(), &first).expect("build");
    std::fs::write(&path, format!("{}\n{}\n", lines[0], lines[1])).expect("write");
    let second = viewer::index::IndexKey::of(&path).expect("key");
    let index = viewer::index::Index::build(cache.path(), &second)
        .expect("build")
        .expect("indexable");
    assert_eq!(index.records(), 2);
    assert_eq!(
        cache_files(cache.path(), "idx").len(),
        1,
        "one index per run"
    );
    assert_eq!(cache_files(cache.path(), "json").len(), 1);
    assert!(viewer::index::Index::find(cache.path(), &first).is_none());
}

#[tokio::test]
async fn filter_values_that_cannot_be_read_are_named_and_ignored() {
    let url = start(vec![fixture("pipeline-before.jsonl")]).await;
    let n = fixture_lines("pipeline-before.jsonl").len();
    let all = format!("{n} of {n} record(s)");
    for q in [
        "min.score=NaN",
        "min.score=inf",
        "max.score=-infinity",
        "min.score=1e400",
        "page=0",
        "q=%FF",
    ] {
        let page = body(&format!("{url}/run/0/records?{q}")).await;
        assert!(counts(&page).contains(&all), "{q}: {}", counts(&page));
        assert!(page.contains("class=\"problem\""), "{q} is not named");
    }
    let page = body(&format!("{url}/run/0/records?page=0")).await;
    assert!(
        page.contains("is not a page number"),
        "page=0 is named as such"
    );
    // A judge or parameter the run does not have: named, not a silent "0 match".
    for (q, name) in [
        ("min.nonexist=5", "judge `nonexist`"),
        ("p.nonexist=1", "parameter `nonexist`"),
    ] {
        let page = body(&format!("{url}/run/0/records?{q}")).await;
        assert!(page.contains(name), "{q}: {page}");
    }
    // Repeated keys: the last value is used and the earlier one named.
    let page = body(&format!("{url}/run/0/records?status=rejected&status=all")).await;
    assert!(counts(&page).contains(&all), "{}", counts(&page));
    assert!(page.contains("given more than once"));
    // Past the last page.
    let page = body(&format!("{url}/run/0/records?page=99")).await;
    assert!(page.contains("id=\"past-end\""));
}

#[tokio::test]
async fn failed_scenarios_with_score_filters_say_the_filters_do_not_apply() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("r.jsonl");
    std::fs::copy(fixture("pipeline-before.jsonl"), &path).expect("copy");
    std::fs::write(
        runlog::record::errors_path(&path),
        fixtures::runs::failure_line("gone1", Some("generator"), "timed out"),
    )
    .expect("errors");
    let url = start(vec![path]).await;
    let page = body(&format!(
        "{url}/run/0/records?status=failed&min.score=0&gate=passed"
    ))
    .await;
    assert!(page.contains("do not apply to failed scenarios"), "{page}");
    assert!(
        counts(&page).starts_with("id=\"counts\" data-stamp=\"/run/0/stamp\">1 of "),
        "{}",
        counts(&page)
    );
}

#[tokio::test]
async fn text_search_keeps_records_with_every_word() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("r.jsonl");
    let mut r: serde_json::Value =
        serde_json::from_str(&fixture_lines("pipeline-before.jsonl")[0]).expect("json");
    r["id"] = json!("both");
    r["data_generation_result"] = json!(["The İstanbul trip was FUN"]);
    let mut other = r.clone();
    other["id"] = json!("one");
    other["data_generation_result"] = json!(["a trip alone"]);
    std::fs::write(&path, format!("{r}\n{other}\n")).expect("write");
    let url = start(vec![path]).await;
    for q in ["trip+fun", "fun++trip", "%20TRIP%09was%20"] {
        let page = body(&format!("{url}/run/0/records?q={q}")).await;
        assert!(counts(&page).contains(">1 of 2 "), "{q}: {}", counts(&page));
        assert!(page.contains("<code>both</code>"));
    }
}

#[tokio::test]
async fn task_run_parts_are_only_the_runs_inside_the_directory() {
    let outside = tempfile::tempdir().expect("dir");
    let secret = outside.path().join("secret.jsonl");
    std::fs::copy(fixture("pipeline-after.jsonl"), &secret).expect("copy");
    let dir = tempfile::tempdir().expect("dir");
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).expect("parts");
    std::fs::copy(fixture("pipeline-before.jsonl"), parts.join("0.jsonl")).expect("copy");
    std::fs::copy(fixture("pipeline-after.jsonl"), parts.join("1.jsonl")).expect("copy");
    std::os::unix::fs::symlink(&secret, parts.join("3.jsonl")).expect("link");
    std::os::unix::fs::symlink("/etc/passwd", parts.join("4.jsonl")).expect("link");
    std::fs::create_dir(parts.join("5.jsonl")).expect("dir");
    std::fs::write(parts.join("6.jsonl"), "not json at all\n").expect("write");
    let url = start(vec![dir.path().to_owned()]).await;
    let index = body(&format!("{url}/")).await;
    for n in ["3.jsonl", "4.jsonl", "5.jsonl", "6.jsonl"] {
        assert!(
            index.contains(&format!("parts&#x2f;{n}: ")),
            "{n} is named as skipped: {index}"
        );
    }
    assert!(index.contains("a link leading outside parts"));
    // Only the two runs are served.
    assert_eq!(get(&format!("{url}/run/1")).await.0, 200);
    assert_eq!(get(&format!("{url}/run/2")).await.0, 404);
    // Any two are compared through the form.
    let page = body(&format!("{url}/compare?a=0&b=1")).await;
    assert!(
        page.contains("regression") || page.contains("Regression"),
        "{page}"
    );
}

#[tokio::test]
async fn a_run_is_compared_with_an_empty_one() {
    let dir = tempfile::tempdir().expect("dir");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let url = start(vec![fixture("pipeline-before.jsonl"), empty]).await;
    body(&format!("{url}/compare/0/1")).await;
    body(&format!("{url}/compare/1/0")).await;
}

#[tokio::test]
async fn a_parameter_with_very_many_values_gets_a_text_field() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("r.jsonl");
    let base: serde_json::Value =
        serde_json::from_str(&fixture_lines("pipeline-before.jsonl")[0]).expect("json");
    let mut text = String::new();
    for i in 0..(viewer::server::MAX_CHOICES + 5) {
        let mut r = base.clone();
        r["id"] = json!(format!("s{i}"));
        r["seed"] = json!(i);
        text.push_str(&format!("{r}\n"));
    }
    std::fs::write(&path, text).expect("write");
    let url = start(vec![path]).await;
    let page = body(&format!("{url}/run/0/records?p.seed=7")).await;
    assert!(
        page.contains("<input type=\"text\" name=\"p.seed\" value=\"7\""),
        "{page}"
    );
    assert!(page.matches("<option").count() < 50, "no option per value");
    assert!(counts(&page).contains(">1 of "), "{}", counts(&page));
}

#[tokio::test]
async fn the_record_page_shows_the_stored_texts_with_invisible_characters_visible() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("r.jsonl");
    let lines = fixture_lines("pipeline-before.jsonl");
    // A record whose measurement kept its words (the language view), with its text changed.
    let mut r: serde_json::Value = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .find(|r| r["measurement"]["sentences"][0]["tokens"].is_array())
        .unwrap_or_else(|| serde_json::from_str(&lines[0]).expect("json"));
    r["data_generation_result"][0] = json!("CHANGED TEXT ZZZ\u{200b}end");
    let mut huge = r.clone();
    huge["id"] = json!("huge");
    huge["data_generation_result"][0] = json!("w ".repeat(150_000));
    let first = format!("{r}\n");
    std::fs::write(&path, format!("{first}{huge}\n")).expect("write");
    let url = start(vec![path]).await;
    let page = body(&format!("{url}/run/0/record/0")).await;
    assert!(page.contains("CHANGED TEXT ZZZ⟨U+200B⟩end"), "{page}");
    let page = body(&format!("{url}/run/0/record/{}", first.len())).await;
    assert!(
        page.contains("the first 100,000 of 300000 characters"),
        "the cut is stated"
    );
    assert!(page.len() < 300_000, "the huge text is cut: {}", page.len());
}

#[tokio::test]
async fn a_run_starting_with_a_byte_order_mark_opens() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("bom.jsonl");
    let lines = fixture_lines("pipeline-before.jsonl");
    std::fs::write(&path, format!("\u{feff}{}\n{}\n", lines[0], lines[1])).expect("write");
    let url = start(vec![path]).await;
    let table = body(&format!("{url}/run/0/records")).await;
    assert!(counts(&table).contains(">2 of 2 "), "{}", counts(&table));
    assert!(!counts(&table).contains("unreadable"));
}

#[tokio::test]
async fn the_comparison_lists_at_most_a_thousand_new_ids() {
    let dir = tempfile::tempdir().expect("dir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let base: serde_json::Value =
        serde_json::from_str(&fixture_lines("pipeline-before.jsonl")[0]).expect("json");
    let run = |prefix: &str| {
        let mut text = String::new();
        for i in 0..1_200 {
            let mut r = base.clone();
            r["id"] = json!(format!("{prefix}{i}"));
            text.push_str(&format!("{r}\n"));
        }
        text
    };
    std::fs::write(&a, run("a")).expect("write");
    std::fs::write(&b, run("b")).expect("write");
    let url = start(vec![a, b]).await;
    let page = body(&format!("{url}/compare/0/1")).await;
    assert_eq!(
        page.matches("<code>b").count(),
        1_000,
        "capped as `diff` caps"
    );
    assert_eq!(
        page.matches("<code>a").count(),
        1_000,
        "capped as `diff` caps"
    );
    assert!(
        page.contains("400 more row(s) not shown"),
        "the rest is counted"
    );
}
