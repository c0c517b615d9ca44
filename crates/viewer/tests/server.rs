//! The viewer over HTTP, against fixtures: filters narrow the table to exactly the records an
//! independent reading of the file picks, pages and sorts hold, a record page shows its texts
//! and judges, a hostile record renders inert under a restrictive CSP, nothing but the given
//! files is served, failures come from the errors file, suites filter, runs compare, and a run
//! being written shows its new records.

use std::path::Path;

use serde_json::{Value, json};

use crate::common;

use common::{body, fixture, get, start};

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("fixture")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// The scenario ids of a records table, in order.
fn ids(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("/record/") {
        rest = &rest[i..];
        let Some(start) = rest.find("<code>") else {
            break;
        };
        let end = rest[start..].find("</code>").expect("closed") + start;
        out.push(rest[start + 6..end].to_owned());
        rest = &rest[end..];
    }
    out
}

fn expected(records: &[Value], keep: impl Fn(&Value) -> bool) -> Vec<String> {
    records
        .iter()
        .filter(|r| keep(r))
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

/// minijinja's HTML escaping, for texts the pages must show.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
        .replace('/', "&#x2f;")
}

/// Every tag of `html` is one the viewer writes, no attribute is an event handler, and every
/// link and source is the viewer's own (a path or a query, never a scheme). Text never holds a
/// raw `<`: escaped text cannot open a tag, so each `<` starts one of the page's own.
fn own_markup_only(html: &str) -> Result<(), String> {
    const TAGS: &[&str] = &[
        "!doctype", "html", "head", "meta", "title", "link", "script", "noscript", "body", "nav",
        "a", "main", "h1", "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code",
        "form", "label", "select", "option", "fieldset", "legend", "input", "button", "ol", "ul",
        "li", "span", "details", "summary", "pre", "small", "strong", "b", "div",
    ];
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        let end = rest[i..].find('>').ok_or("an unclosed tag")? + i;
        let tag = &rest[i + 1..end];
        let name = tag
            .trim_start_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or("");
        if !TAGS.contains(&name.to_lowercase().as_str()) {
            return Err(format!("a tag the viewer does not write: <{tag}>"));
        }
        for (attr_name, value) in attributes(tag.get(name.len() + 1..).unwrap_or(""))? {
            if attr_name.starts_with("on") {
                return Err(format!("an event handler: <{tag}>"));
            }
            if matches!(attr_name.as_str(), "href" | "src" | "action" | "style")
                && (attr_name == "style" || !(value.starts_with('/') || value.starts_with('?')))
            {
                return Err(format!("a link that is not the viewer's: <{tag}>"));
            }
        }
        rest = &rest[end + 1..];
    }
    Ok(())
}

/// A tag's attributes (`name`, `value`), values in double quotes (escaped text holds none).
fn attributes(mut text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    loop {
        text = text.trim_start();
        if text.is_empty() {
            return Ok(out);
        }
        let end = text
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(text.len());
        let name = text[..end].to_lowercase();
        text = &text[end..];
        let value = if let Some(after) = text.strip_prefix('=') {
            let after = after
                .strip_prefix('"')
                .ok_or_else(|| format!("unquoted value of {name}"))?;
            let close = after
                .find('"')
                .ok_or_else(|| format!("unclosed value of {name}"))?;
            text = &after[close + 1..];
            after[..close].to_owned()
        } else {
            String::new()
        };
        out.push((name, value));
    }
}

#[tokio::test]
async fn filters_narrow_the_table_to_exactly_the_matching_records() {
    let path = fixture("pipeline-after.jsonl");
    let all = records(&path);
    let base = start(vec![path]).await;
    let table = |q: &str| format!("{base}/run/0/records?{q}");

    let unfiltered = body(&table("")).await;
    assert_eq!(ids(&unfiltered), expected(&all, |_| true));
    // The form offers each varying parameter's values.
    assert!(unfiltered.contains(r#"<select name="p.topic"><option value="">any</option>"#));
    assert!(unfiltered.contains(r#"<option value="health">health</option>"#));
    let accepted = ids(&body(&table("status=accepted")).await);
    assert_eq!(accepted, expected(&all, |r| r["accepted"] == true));
    assert!(!accepted.is_empty() && accepted.len() < all.len());
    assert_eq!(
        ids(&body(&table("status=rejected")).await),
        expected(&all, |r| r["accepted"] == false)
    );
    assert_eq!(
        ids(&body(&table("p.topic=health")).await),
        expected(&all, |r| r["topic"] == "health")
    );
    assert_eq!(
        ids(&body(&table("p.topic=health&status=accepted")).await),
        expected(&all, |r| r["topic"] == "health" && r["accepted"] == true)
    );
    let fluent = ids(&body(&table("min.fluency=8&max.fluency=9")).await);
    let want = expected(&all, |r| {
        let f = r["scores"]["fluency"].as_f64().expect("fluency");
        (8.0..=9.0).contains(&f)
    });
    assert_eq!(fluent, want);
    assert!(!fluent.is_empty() && fluent.len() < all.len());
    assert_eq!(
        ids(&body(&table("q=DEADLINE")).await),
        expected(&all, |r| r["data_generation_result"]
            .as_array()
            .expect("texts")
            .iter()
            .any(|t| t
                .as_str()
                .expect("text")
                .to_lowercase()
                .contains("deadline")))
    );
    assert_eq!(
        ids(&body(&table("measurement=measured")).await),
        expected(&all, |r| r.get("measurement").is_some_and(|m| !m.is_null()))
    );
    assert!(ids(&body(&table("gate=failed")).await).is_empty());
    assert_eq!(ids(&body(&table("gate=none")).await).len(), all.len());

    // Sorted by score, highest first: the records' own order of scores.
    let by_score = ids(&body(&table("sort=-score")).await);
    let mut want: Vec<(f64, String)> = all
        .iter()
        .map(|r| {
            (
                r["score"].as_f64().expect("score"),
                r["id"].as_str().expect("id").to_owned(),
            )
        })
        .collect();
    want.sort_by(|a, b| b.0.total_cmp(&a.0));
    assert_eq!(
        by_score,
        want.into_iter().map(|(_, id)| id).collect::<Vec<_>>()
    );

    // A page past the end is an empty page, however far.
    for far in ["page=99", "page=18446744073709551615&sort=score"] {
        let page = body(&table(far)).await;
        assert!(
            ids(&page).is_empty()
                && page.contains(&format!("{} of {} record(s) match", all.len(), all.len()))
        );
    }
    // A value the table cannot read is named, not guessed.
    let page = body(&table("status=maybe&min.fluency=high")).await;
    assert!(
        page.contains("is not a filter value this table can read"),
        "{page}"
    );
    assert_eq!(ids(&page).len(), all.len());
}

#[tokio::test]
async fn pages_hold_fifty_rows_in_file_order_and_newest_first() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("big.jsonl");
    let template = records(&fixture("pipeline-after.jsonl")).remove(0);
    let mut text = String::new();
    for n in 0..120 {
        let mut r = template.clone();
        r["id"] = json!(format!("r{n:03}"));
        text.push_str(&format!("{r}\n"));
    }
    std::fs::write(&path, text).expect("write");
    let base = start(vec![path]).await;
    let first = ids(&body(&format!("{base}/run/0/records")).await);
    assert_eq!(first.len(), 50);
    assert_eq!((first[0].as_str(), first[49].as_str()), ("r000", "r049"));
    let last = body(&format!("{base}/run/0/records?page=3")).await;
    assert!(last.contains("Page 3 of 3"), "{last}");
    let last = ids(&last);
    assert_eq!((last.len(), last[0].as_str()), (20, "r100"));
    let newest = ids(&body(&format!("{base}/run/0/records?sort=newest&page=1")).await);
    assert_eq!((newest[0].as_str(), newest[49].as_str()), ("r119", "r070"));
}

#[tokio::test]
async fn a_record_page_shows_its_texts_judges_and_tagged_words() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("run.jsonl");
    let mut r = records(&fixture("pipeline-after.jsonl")).remove(0);
    r["measurement"]["sentences"][0]["tokens"] = json!([
        {"text": "update", "tag": {"lang": "english"}},
        {"text": "كتير", "tag": {"lang": "arabic"}, "inferred": true},
        {"text": "،", "tag": "symbol"}
    ]);
    r["gate"] = json!({"passed": false, "reason": "too few embedded words"});
    std::fs::write(&path, format!("{r}\n")).expect("write");
    let base = start(vec![path]).await;
    let page = body(&format!("{base}/run/0/record/0")).await;
    for text in r["data_generation_result"]
        .as_array()
        .expect("texts")
        .iter()
        .skip(1)
    {
        assert!(
            page.contains(&escaped(text.as_str().expect("text"))),
            "{text} missing"
        );
    }
    assert!(
        page.contains(r#"<span class="w l2" title="english">update</span>"#),
        "{page}"
    );
    assert!(page.contains(r#"<span class="w l1 inferred" title="arabic">كتير</span>"#));
    for judge in ["fluency", "naturalness", "cs_ratio", "socio_cultural"] {
        assert!(
            page.contains(&format!("<summary>{judge}: ")),
            "{judge} missing"
        );
    }
    assert!(page.contains("Several sentences break off mid-clause after the switch."));
    assert!(page.contains("failed: too few embedded words"));
    assert!(page.contains("Attempts and refinements"));
}

#[tokio::test]
async fn a_hostile_record_renders_inert_under_a_restrictive_csp() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("hostile.jsonl");
    let mut r = records(&fixture("pipeline-after.jsonl")).remove(0);
    let big = "x".repeat(1024 * 1024);
    r["id"] = json!("\"><script>alert('id')</script>");
    r["topic"] = json!("<script>alert('param')</script>");
    r["data_generation_result"] = json!([
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(2)>",
        "<a href=\"javascript:alert(3)\">click</a>",
        big,
    ]);
    r["fluency_result"]["summary"] = json!("<svg onload=alert(4)>");
    r["measurement"]["sentences"][0]["tokens"] = json!([{"text": "<script>alert(5)</script>", "tag": {"lang": "\" onmouseover=\"alert(6)"}}]);
    std::fs::write(&path, format!("{r}\n")).expect("write");
    let base = start(vec![path]).await;
    for url in [
        format!("{base}/run/0"),
        format!("{base}/run/0/records"),
        format!(
            "{base}/run/0/records?q=%3Cscript%3E&p.topic=%3Cscript%3Ealert('param')%3C%2Fscript%3E"
        ),
        format!("{base}/run/0/record/0"),
    ] {
        let (status, headers, page) = get(&url).await;
        assert_eq!(status, 200, "{url}");
        let csp = headers["content-security-policy"].to_str().expect("ascii");
        assert!(csp.starts_with("default-src 'none'"), "{csp}");
        assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["referrer-policy"], "no-referrer");
        // No markup from the record: every tag the page holds is the viewer's own.
        if let Err(e) = own_markup_only(&page) {
            panic!("{url}: {e}");
        }
    }
    let page = body(&format!("{base}/run/0/record/0")).await;
    // The first text is shown as its tagged words (the measurement kept them), the table
    // shows the text itself.
    assert!(page.contains("&lt;script&gt;alert(5)&lt;&#x2f;script&gt;"));
    let table = body(&format!("{base}/run/0/records")).await;
    assert!(table.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
    assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(page.contains("&lt;a href=&quot;javascript:alert(3)&quot;&gt;click&lt;&#x2f;a&gt;"));
    // The 1 MB text is shown up to the page's cap, with the cut stated.
    assert!(page.contains(&big[..viewer::record::SHOWN_CHARS]));
    assert!(!page.contains(&big[..=viewer::record::SHOWN_CHARS]));
    assert!(page.contains("the first 100,000 of 1048576 characters are shown"));
    // The table shows a cut of it, not a megabyte per row.
    let table = body(&format!("{base}/run/0/records?q=xxxx")).await;
    assert!(table.len() < 100_000, "{} bytes", table.len());
}

#[tokio::test]
async fn only_the_given_files_are_served() {
    let base = start(vec![fixture("pipeline-after.jsonl")]).await;
    for path in [
        "/run/1",
        "/run/-1",
        "/run/..%2F..%2FCargo.toml",
        "/run/0%2F..%2F..%2FCargo.toml/records",
        "/run/0/record/..%2F..%2FCargo.toml",
        "/run/0/record/5",
        "/run/0/record/99999999999",
        "/suite/0",
        "/static/..%2F..%2FCargo.toml",
        "/static/viewer.css%00.html",
        "/etc/passwd",
        "/compare/0/0",
    ] {
        let (status, headers, _) = get(&format!("{base}{path}")).await;
        assert_eq!(status, 404, "{path}");
        assert!(headers.contains_key("content-security-policy"), "{path}");
    }
    let (status, headers, css) = get(&format!("{base}/static/viewer.css")).await;
    assert_eq!(
        (status, &headers["content-type"]),
        (200, &"text/css; charset=utf-8".parse().expect("header"))
    );
    assert!(css.contains("body"));
}

#[tokio::test]
async fn failed_scenarios_come_from_the_errors_file_less_those_with_a_record() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("run.jsonl");
    let source = fixture("pipeline-after.jsonl");
    std::fs::copy(&source, &path).expect("copy");
    let recorded = records(&source)[0]["id"].as_str().expect("id").to_owned();
    let errors = [
        fixtures::runs::failure_line("gone1", Some("generator"), "HTTP 429 Too Many Requests"),
        fixtures::runs::failure_line(&recorded, Some("generator"), "timed out"),
        fixtures::runs::failure_line("gone2", Some("fluency"), "invalid JSON <script>x</script>"),
    ]
    .concat();
    std::fs::write(dir.path().join("run.jsonl.errors.jsonl"), errors).expect("write");
    let base = start(vec![path]).await;
    let page = body(&format!("{base}/run/0/records?status=failed")).await;
    assert!(page.contains("<code>gone1</code>") && page.contains("<code>gone2</code>"));
    assert!(
        !page.contains(&format!("<code>{recorded}</code>")),
        "a scenario with a record is not failed"
    );
    assert!(!page.contains("<script>x"));
    let overview = body(&format!("{base}/run/0")).await;
    assert!(overview.contains("2 failed scenario(s)"), "{overview}");
}

#[tokio::test]
async fn suite_filters_and_a_scenario_page() {
    let path = fixture("suite-after.json");
    let suite: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let scenarios = suite["scenarios"].as_array().expect("scenarios");
    let passed = |s: &Value| {
        s["runs"]
            .as_array()
            .is_some_and(|r| !r.is_empty() && r.iter().all(|r| r["report"]["passed"] == true))
    };
    let base = start(vec![path]).await;
    let count = |html: &str| html.matches("/suite/0/scenario/").count();
    let all = body(&format!("{base}/suite/0")).await;
    assert_eq!(count(&all), scenarios.len());
    let failures = body(&format!("{base}/suite/0?filter=failures")).await;
    let want_failed = scenarios.iter().filter(|s| !passed(s)).count();
    assert_eq!(count(&failures), want_failed);
    assert!(want_failed > 0 && want_failed < scenarios.len());
    let passes = body(&format!("{base}/suite/0?filter=passes")).await;
    assert_eq!(count(&passes), scenarios.len() - want_failed);
    let low = body(&format!("{base}/suite/0?filter=low-confidence")).await;
    let want_low = scenarios
        .iter()
        .filter(|s| s.to_string().contains("\"low_confidence\":true"))
        .count();
    assert_eq!(count(&low), want_low);

    let first = &scenarios[0];
    let page = body(&format!("{base}/suite/0/scenario/0")).await;
    let turn = &first["runs"][0]["transcript"]["turns"][0];
    assert!(page.contains(&escaped(turn[0].as_str().expect("user"))));
    assert!(page.contains(&escaped(turn[1]["text"].as_str().expect("bot"))));
    let call = &turn[1]["plan"][0];
    assert!(page.contains(&format!(
        "tool call <code>{}.{}</code>",
        call["agent"].as_str().expect("agent"),
        call["function"].as_str().expect("function")
    )));
    let check = &first["runs"][0]["report"]["checks"][0];
    assert!(page.contains(&escaped(check["message"].as_str().expect("message"))));
}

#[tokio::test]
async fn compare_shows_the_diff_figures_and_the_changed_verdicts() {
    let (before, after) = (
        fixture("pipeline-before.jsonl"),
        fixture("pipeline-after.jsonl"),
    );
    let accepted = |path: &Path| -> std::collections::BTreeMap<String, bool> {
        records(path)
            .iter()
            .map(|r| {
                (
                    r["id"].as_str().expect("id").to_owned(),
                    r["accepted"] == true,
                )
            })
            .collect()
    };
    let (a, b) = (accepted(&before), accepted(&after));
    let changed: Vec<&String> = a
        .iter()
        .filter(|(id, ok)| b.get(*id).is_some_and(|o| o != *ok))
        .map(|(id, _)| id)
        .collect();
    assert!(!changed.is_empty(), "the fixtures differ in verdicts");
    let base = start(vec![before, after]).await;
    let page = body(&format!("{base}/compare/0/1")).await;
    assert!(page.contains("pipeline-before.jsonl → pipeline-after.jsonl"));
    assert!(page.contains("mean score"));
    let section = &page[page.find("Verdict changed").expect("section")..];
    let section = &section[..section.find("</table>").expect("table")];
    for id in &changed {
        assert!(
            section.contains(&format!("<code>{id}</code>")),
            "{id} changed verdict"
        );
    }
    assert_eq!(section.matches("<code>").count(), changed.len());
}

#[tokio::test]
async fn a_run_being_written_shows_its_new_records() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, "").expect("create");
    let base = start(vec![path.clone()]).await;
    let page = body(&format!("{base}/run/0/records?sort=newest&live=1")).await;
    assert!(page.contains("0 of 0 record(s)"), "{page}");
    assert!(page.contains(r#"<script src="/static/viewer.js" defer></script>"#));
    assert!(page.contains(r#"<noscript><meta http-equiv="refresh" content="5"></noscript>"#));
    let stamp = body(&format!("{base}/run/0/stamp")).await;
    let lines = std::fs::read_to_string(fixture("pipeline-after.jsonl")).expect("read");
    let mut lines = lines.lines();
    for _ in 0..2 {
        let mut text = std::fs::read_to_string(&path).expect("read");
        text.push_str(lines.next().expect("line"));
        text.push('\n');
        std::fs::write(&path, text).expect("append");
    }
    assert_ne!(body(&format!("{base}/run/0/stamp")).await, stamp);
    let page = body(&format!("{base}/run/0/records?sort=newest&live=1")).await;
    assert!(page.contains("2 of 2 record(s)"), "{page}");
    let all = records(&fixture("pipeline-after.jsonl"));
    assert_eq!(
        ids(&page),
        vec![
            all[1]["id"].as_str().expect("id"),
            all[0]["id"].as_str().expect("id")
        ]
    );
    let overview = body(&format!("{base}/run/0")).await;
    assert!(
        overview.contains("<tr><th>records</th><td>2</td></tr>"),
        "{overview}"
    );
}
