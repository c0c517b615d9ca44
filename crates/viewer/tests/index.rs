//! The run index: every filter answered from it gives exactly the page reading the run gives,
//! it is written only in the cache directory (never beside the run), a changed run never reads
//! a stale index, and the server switches to it once it is built for a large run.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;

use common::{body, start_with};
use viewer::index::{Index, IndexKey};
use viewer::query::RecordQuery;
use viewer::table::{Page, Reach, page};

fn fixture_records() -> Vec<Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/pipeline-after.jsonl");
    std::fs::read_to_string(path)
        .expect("fixture")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// A run of `n` records made from the fixture's, with gates, an unavailable measurement and a
/// torn line among them; `pad` bytes of text each.
fn write_run(path: &Path, n: usize, pad: usize) {
    let base = fixture_records();
    let mut text = String::new();
    for i in 0..n {
        let mut r = base[i % base.len()].clone();
        r["id"] = json!(format!("s{i:05}"));
        match i % 5 {
            0 => r["gate"] = json!({"passed": false, "reason": "too few embedded words"}),
            1 => r["gate"] = json!({"passed": true, "reason": "ok"}),
            2 => r["gate"] = json!({"passed": null, "reason": "cannot tell"}),
            _ => {}
        }
        if i % 7 == 0 {
            r["measurement"] = json!({"status": "unavailable"});
        }
        if pad > 0 {
            r["data_generation_result"][0] = json!("x".repeat(pad));
        }
        text.push_str(&format!("{r}\n"));
        if i == 3 {
            text.push_str("{\"id\": \"torn\", \"score\": 3\n");
        }
    }
    std::fs::write(path, text).expect("write");
}

/// A run just past the size from which the server indexes it (records of 20 KB); its records.
fn write_large_run(path: &Path) -> usize {
    let pad = 20_000;
    let n = usize::try_from(viewer::server::INDEX_MIN_BYTES).expect("size") / pad + 50;
    write_run(path, n, pad);
    n
}

/// The scenario ids of a records page's rows, in order.
fn row_ids(html: &str) -> Vec<&str> {
    html.split("<code>")
        .skip(1)
        .filter_map(|c| c.split_once("</code>").map(|(id, _)| id))
        .collect()
}

fn query(q: &str) -> RecordQuery {
    let pairs: Vec<(String, String)> = q
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').expect("pair");
            (k.to_owned(), v.to_owned())
        })
        .collect();
    RecordQuery::parse(&pairs)
}

/// Everything a page shows, as text to compare.
fn summary(p: &Page) -> String {
    let rows: Vec<_> = p
        .rows
        .iter()
        .map(|r| {
            (
                r.id.as_str(),
                r.line,
                r.offset,
                r.score.as_str(),
                &r.scores,
                r.gate,
                r.measurement,
            )
        })
        .collect();
    format!(
        "{rows:?} records={} matched={} accepted={} unreadable={} pages={} judges={:?}",
        p.records, p.matched, p.matched_accepted, p.unreadable, p.pages, p.judges
    )
}

const QUERIES: &[&str] = &[
    "",
    "page=2",
    "page=9",
    "page=18446744073709551615",
    "status=accepted",
    "status=rejected&sort=score",
    "p.topic=health",
    "p.topic=health&p.cs_ratio=50%25",
    "p.topic=no-such-topic",
    "p.no_such_param=1",
    "min.fluency=8&max.fluency=9",
    "min.score=8.5&sort=-score&page=2",
    "min.no_such_judge=1",
    "gate=failed",
    "gate=undecided&status=rejected",
    "gate=none&sort=newest&page=3",
    "measurement=unavailable",
    "measurement=measured&min.naturalness=8.9",
];

#[test]
fn every_filter_from_the_index_gives_the_page_reading_the_run_gives() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("run.jsonl");
    write_run(&path, 437, 0);
    let key = IndexKey::of(&path).expect("key");
    assert!(Index::find(cache.path(), &key).is_none());
    let index = Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    assert_eq!((index.records(), index.unreadable()), (437, 1));
    for q in QUERIES {
        let q = q.replace("%25", "%");
        let query = query(&q);
        let streamed = page(&path, &query, None, Reach::Whole).expect("streamed");
        let indexed = page(&path, &query, Some(&index), Reach::Whole).expect("indexed");
        assert!(!streamed.indexed && indexed.indexed);
        assert_eq!(summary(&indexed), summary(&streamed), "{q}");
    }
    // Some filters keep some records and drop others: the comparison is not of empty pages.
    let health = page(&path, &query("p.topic=health"), Some(&index), Reach::Whole).expect("page");
    assert!(health.matched > 0 && health.matched < 437);
    // A text search is answered by reading the run (the texts are not in the index).
    assert!(
        !page(&path, &query("q=deadline"), Some(&index), Reach::Whole)
            .expect("page")
            .indexed
    );
    // Reopened from the cache, the same index.
    let reopened = Index::find(cache.path(), &key).expect("cached");
    assert_eq!(reopened.records(), 437);
}

#[test]
fn the_index_lives_in_the_cache_and_a_changed_run_never_reads_a_stale_one() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("run.jsonl");
    write_run(&path, 30, 0);
    let key = IndexKey::of(&path).expect("key");
    Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    let names = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names(run_dir.path()),
        vec![path.clone()],
        "nothing beside the run"
    );
    assert_eq!(
        names(cache.path()).len(),
        2,
        "the entries and their dictionaries"
    );
    // The run grows: its new version has no index until one is built for it.
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str(
        &text
            .lines()
            .next()
            .expect("line")
            .replace("s00000", "s99999"),
    );
    text.push('\n');
    std::fs::write(&path, text).expect("write");
    let grown = IndexKey::of(&path).expect("key");
    assert_ne!(grown, key);
    // The index of the version it grew from serves its beginning; the rest is read from the
    // run: every page is the page a whole reading gives.
    let old = Index::find(cache.path(), &grown).expect("the index it grew from");
    assert_eq!(old.key(&path).len, key.len);
    for q in QUERIES {
        let q = q.replace("%25", "%");
        let from_index = page(&path, &query(&q), Some(&old), Reach::Whole).expect("page");
        let read = page(&path, &query(&q), None, Reach::Whole).expect("page");
        assert_eq!(summary(&from_index), summary(&read), "{q}");
    }
    let index = Index::build(cache.path(), &grown)
        .expect("build")
        .expect("indexable");
    assert_eq!(index.records(), 31);
    // Replaced by a file of the same length (as `cp -p` leaves it, modification time and all):
    // another version, whose index is not found.
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replacen("s00001", "t00001", 1)).expect("write");
    let replaced = IndexKey::of(&path).expect("key");
    assert_eq!(replaced.len, grown.len);
    assert!(Index::find(cache.path(), &replaced).is_none());
}

#[test]
fn a_changed_dictionary_is_never_trusted() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("run.jsonl");
    write_run(&path, 40, 0);
    let key = IndexKey::of(&path).expect("key");
    Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    let json = std::fs::read_dir(cache.path())
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("the dictionaries");
    let text = std::fs::read_to_string(&json).expect("read");
    // Two values swapped: the entries would name the wrong topic with whole counts.
    let swapped = text
        .replace("\"health\"", "\"@@\"")
        .replace("\"technology\"", "\"health\"")
        .replace("\"@@\"", "\"technology\"");
    assert_ne!(swapped, text, "the fixture has both topics");
    std::fs::write(&json, swapped).expect("write");
    assert!(Index::find(cache.path(), &key).is_none());
    assert!(
        !json.exists(),
        "the changed index is removed, to be built again"
    );
}

#[tokio::test]
async fn the_server_reads_a_large_runs_index_once_it_is_built() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    // Past the size from which the server indexes a run.
    write_large_run(&path);
    let base = serve(&path, cache.path()).await;
    let filters = "status=rejected&gate=failed&sort=-score";
    let url = format!("{base}run/0/records?{filters}");
    // The first page starts the background pass: its sort waits for the index.
    let first = body(&url).await;
    assert!(
        first.contains(r#"id="sort-waits""#),
        "a sorted page of a large run did not say its sort waits for the index: {first}"
    );
    // The index is built in the background; wait for it (bounded by its own completion).
    let indexed = until(&url, "from the run's index").await;
    // The indexed page is the page a whole reading of the run gives.
    let whole = page(&path, &query(filters), None, Reach::Whole).expect("page");
    let ids = row_ids(&indexed);
    let expected: Vec<&str> = whole.rows.iter().map(|r| r.id.as_str()).collect();
    assert!(!expected.is_empty());
    assert_eq!(ids, expected);
    assert!(indexed.contains(&format!(
        "{} of {} record(s) match ({} accepted)",
        whole.matched, whole.records, whole.matched_accepted
    )));
    // Once indexed, the form offers the parameters' values from the index.
    assert!(indexed.contains(r#"<option value="health">health</option>"#));
    let beside: Vec<_> = std::fs::read_dir(run_dir.path()).expect("dir").collect();
    assert_eq!(beside.len(), 1, "nothing written beside the run");
}

#[test]
fn a_page_read_only_as_far_as_it_needs_shows_the_rows_a_whole_reading_shows() {
    let run_dir = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("run.jsonl");
    write_run(&path, 437, 0);
    let mut partial = 0;
    for q in QUERIES {
        let q = q.replace("%25", "%");
        let whole = page(&path, &query(&q), None, Reach::Whole).expect("whole");
        let part = page(&path, &query(&q), None, Reach::Page).expect("part");
        let rows = |p: &Page| -> Vec<(String, u64)> {
            p.rows.iter().map(|r| (r.id.clone(), r.offset)).collect()
        };
        assert_eq!(rows(&part), rows(&whole), "{q}");
        if part.partial {
            partial += 1;
            let shown = (part.page - 1) * 50 + 50;
            assert_eq!(
                part.matched,
                shown as u64 + 1,
                "{q}: one match past the page"
            );
            assert!(part.records < whole.records, "{q}");
            assert!(whole.matched > shown as u64, "{q}: a next page exists");
            assert_eq!(part.pages, part.page + 1, "{q}");
            assert!(part.unknown.is_empty(), "{q}");
        } else {
            assert_eq!(summary(&part), summary(&whole), "{q}");
        }
    }
    assert!(
        partial >= 3,
        "the queries must include pages that stop early"
    );
}

/// Starts a viewer over `path` with its index cache in `cache`; its base URL, with a slash.
async fn serve(path: &Path, cache: &Path) -> String {
    let base = start_with(vec![path.to_owned()], "127.0.0.1", Some(cache.to_owned())).await;
    format!("{base}/")
}

#[tokio::test]
async fn a_large_runs_pages_answer_while_it_is_read_and_its_overview_follows() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    let n = write_large_run(&path);
    let base = serve(&path, cache.path()).await;
    // The overview page answers at once: the pass has only begun.
    let run = body(&format!("{base}run/0")).await;
    assert!(run.contains(r#"id="reading""#), "{run}");
    assert!(run.contains(r#"<meta http-equiv="refresh""#));
    assert!(run.contains(r#"href="/run/0/records""#));
    // The first records page reads only as far as itself, and says so.
    let records = body(&format!("{base}run/0/records")).await;
    if !records.contains("from the run's index") {
        assert!(
            records.contains("At least 51 record(s) match, in the first 51 read"),
            "{records}"
        );
        assert!(records.contains(r#"rel="next""#));
        let second = body(&format!("{base}run/0/records?page=2")).await;
        assert!(second.contains("<code>s00050</code>"), "{second}");
    }
    // The overview appears when the pass ends, with every record counted.
    let run = until(
        &format!("{base}run/0"),
        &format!("<tr><th>records</th><td>{n}</td></tr>"),
    )
    .await;
    assert!(!run.contains(r#"id="reading""#), "{run}");
    let direct = viewer::overview::read(&path, "big.jsonl").expect("overview");
    assert_eq!(direct.report.totals.records, n as u64);
    assert_eq!(direct.unreadable, 1);
    assert!(run.contains(r#"id="unreadable""#));
    // Then the records table counts from the index.
    let records = body(&format!("{base}run/0/records")).await;
    assert!(records.contains("from the run's index"), "{records}");
    assert!(records.contains(&format!("{n} of {n} record(s) match")));
}

/// Polls `url` until its body contains `needle` (bounded by the server's own progress). The
/// bound is generous (6000 polls, at least 10 minutes): a loaded 2-core CI machine running the
/// whole suite took over a minute for the growing run's overview, so a tight bound timed a pass
/// rather than checked what it shows.
async fn until(url: &str, needle: &str) -> String {
    let mut last = String::new();
    for _ in 0..6000 {
        last = body(url).await;
        if last.contains(needle) {
            return last;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{url} never showed {needle:?}: {last}");
}

#[tokio::test]
async fn a_large_run_that_grows_keeps_its_index_and_its_overview_catches_up() {
    // The review found a growing large run never indexed: each append restarted the pass.
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    let n = write_large_run(&path);
    let base = serve(&path, cache.path()).await;
    until(&format!("{base}run/0/records"), "from the run's index").await;
    // Three records are appended, the last one half-written.
    let first = fixture_records()[0].clone();
    let mut tail = String::new();
    for id in ["new-1", "new-2", "new-3"] {
        let mut r = first.clone();
        r["id"] = json!(id);
        tail.push_str(&format!("{r}\n"));
    }
    let half = tail.len() - 40;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    std::io::Write::write_all(&mut file, &tail.as_bytes()[..half]).expect("append");
    // At once, from the index of the version it grew from plus what was appended.
    let page = body(&format!("{base}run/0/records?sort=newest")).await;
    assert!(page.contains("from the run's index"), "{page}");
    assert!(!page.contains(r#"id="sort-waits""#));
    assert!(
        page.contains("the last line is still being written"),
        "{page}"
    );
    assert!(
        page.contains(&format!("{} of {} record(s) match", n + 2, n + 2)),
        "{page}"
    );
    assert_eq!(row_ids(&page)[0], "new-2");
    // The last line ends; the pages and, in a while, the overview count all of them.
    std::io::Write::write_all(&mut file, &tail.as_bytes()[half..]).expect("append");
    drop(file);
    let page = body(&format!("{base}run/0/records?sort=newest")).await;
    assert!(
        page.contains(&format!("{} of {} record(s) match", n + 3, n + 3)),
        "{page}"
    );
    assert_eq!(row_ids(&page)[0], "new-3");
    let run = until(
        &format!("{base}run/0"),
        &format!("<tr><th>records</th><td>{}</td></tr>", n + 3),
    )
    .await;
    assert!(!run.contains(r#"id="reading""#), "{run}");
}

#[tokio::test]
async fn a_large_run_that_cannot_be_indexed_promises_no_index() {
    let run_dir = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    let n = write_large_run(&path);
    // The cache "directory" is a file: no index can be written.
    let not_a_dir = run_dir.path().join("cache");
    std::fs::write(&not_a_dir, "x").expect("write");
    let base = serve(&path, &not_a_dir).await;
    let run = until(
        &format!("{base}run/0"),
        &format!("<tr><th>records</th><td>{n}</td></tr>"),
    )
    .await;
    assert!(!run.contains(r#"id="reading""#));
    let page = body(&format!("{base}run/0/records")).await;
    assert!(page.contains("At least 51 record(s) match"), "{page}");
    assert!(!page.contains("until its index is ready"), "{page}");
    assert!(!page.contains("from the run's index"));
}

#[tokio::test]
async fn a_text_search_of_a_large_run_is_sent_as_it_is_read() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    write_large_run(&path);
    let base = serve(&path, cache.path()).await;
    for q in [
        "q=deadline",
        "q=the",
        "q=the&page=3",
        "q=no-such-word-anywhere",
    ] {
        let response = reqwest::get(format!("{base}run/0/records?{q}"))
            .await
            .expect("get");
        // Sent in pieces as rows are found, not as one body of known length.
        assert!(response.headers().get("content-length").is_none(), "{q}");
        assert!(response.headers().get("content-security-policy").is_some());
        let body = response.text().await.expect("body");
        let expected = page(&path, &query(q), None, Reach::Page).expect("page");
        let ids = row_ids(&body);
        let want: Vec<&str> = expected.rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, want, "{q}");
        assert_eq!(want.is_empty(), q.contains("no-such-word"), "{q}");
        // The counts stand below the table, and say what was read.
        let table_end = body.find("</table>").expect("table");
        let counts = body.find(r#"<p id="counts""#).expect("counts");
        assert!(counts > table_end, "{q}");
        let said = if expected.partial {
            format!("At least {} record(s) match", expected.matched)
        } else {
            format!(
                "{} of {} record(s) match",
                expected.matched, expected.records
            )
        };
        assert!(body.contains(&said), "{q}: {said}");
        assert!(body.trim_end().ends_with("</html>"), "{q}");
    }
}

#[test]
fn an_edit_in_place_of_the_same_length_is_another_version() {
    // The second review: an edit outside the hashed ends kept the old index for good.
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("run.jsonl");
    write_run(&path, 300, 400);
    let key = IndexKey::of(&path).expect("key");
    Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    assert!(Index::find(cache.path(), &key).is_some());
    let text = std::fs::read_to_string(&path).expect("read");
    let middle = text.len() / 2;
    let at = middle
        + text[middle..]
            .find("\"health\"")
            .expect("a topic in the middle");
    let edited = format!("{}\"sports\"{}", &text[..at], &text[at + 8..]);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&path, edited).expect("write");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_modified(later)
        .expect("mtime");
    let now = IndexKey::of(&path).expect("key");
    assert_eq!((now.len, now.head, now.tail), (key.len, key.head, key.tail));
    assert!(Index::find(cache.path(), &now).is_none());
}

#[test]
fn a_partial_index_left_by_a_stopped_viewer_is_removed() {
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("run.jsonl");
    write_run(&path, 20, 0);
    let key = IndexKey::of(&path).expect("key");
    Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    let idx = std::fs::read_dir(cache.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .find(|n| n.ends_with(".idx"))
        .expect("an index");
    let prefix = &idx[..idx.len() - ".idx".len() - 16];
    // No process has this number (Linux's largest is 4194304).
    let orphan = cache
        .path()
        .join(format!("{prefix}0123456789abcdef.4999999.tmp"));
    let mine = cache.path().join(format!(
        "{prefix}0123456789abcdef.{}.tmp",
        std::process::id()
    ));
    std::fs::write(&orphan, "partial").expect("write");
    std::fs::write(&mine, "being written").expect("write");
    Index::build(cache.path(), &key)
        .expect("build")
        .expect("indexable");
    assert!(
        !orphan.exists(),
        "the stopped viewer's partial index is removed"
    );
    assert!(mine.exists(), "a running writer's file is kept");
}

#[tokio::test]
async fn a_last_record_without_its_newline_is_counted_once() {
    // The second review: the last record of a large run, its newline not yet written, was
    // in the index and read again after it.
    let run_dir = tempfile::tempdir().expect("dir");
    let cache = tempfile::tempdir().expect("dir");
    let path = run_dir.path().join("big.jsonl");
    let n = write_large_run(&path);
    let whole = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, whole.trim_end_matches('\n')).expect("write");
    let base = serve(&path, cache.path()).await;
    let url = format!("{base}run/0/records?sort=newest");
    let page = until(&url, "from the run's index").await;
    assert!(
        page.contains(&format!("{n} of {n} record(s) match")),
        "{page}"
    );
    let ids = row_ids(&page);
    let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "a record shown twice: {ids:?}");
    assert_eq!(ids[0], format!("s{:05}", n - 1));
    // The newline comes: still once, and on its own line number.
    std::fs::write(&path, &whole).expect("write");
    let page = body(&url).await;
    assert!(
        page.contains(&format!("{n} of {n} record(s) match")),
        "{page}"
    );
    assert!(
        page.contains(&format!(">{}</td><td><a", n + 1)),
        "the last record's line"
    );
}
