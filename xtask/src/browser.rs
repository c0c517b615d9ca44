//! `cargo xtask browser`: the viewer (`scenario-engine view`) in a real headless Chromium,
//! driven over WebDriver (Debian's `chromium` and `chromium-driver`, installed with apt-get
//! when missing and running as root; the `fantoccini` crate). It checks what only a browser
//! can: a record holding a script tag, an event handler and a `javascript:` link runs none of
//! them (the page title they would change stays the viewer's), nor does a record of 1 MB of
//! such markup (its page loads and shows it as text); a record page shows the record's texts
//! and each judge's score and whole result; a filter chosen in the form narrows the table to
//! exactly the matching records; and a run being written shows its new record without a reload
//! by hand (the live script). Every wait is bounded; nothing is timed.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use fantoccini::{Client, ClientBuilder, Locator};
use runlog::record::ScenarioRecord;
use serde_json::{Value, json};

/// The longest any one wait lasts (a page load, the live reload): generous for a loaded
/// 2-core machine; reaching it fails the check with what was awaited.
const WAIT: Duration = Duration::from_secs(60);

/// A child process (the viewer, chromedriver) stopped when dropped.
pub(crate) struct Stopped(pub(crate) Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the check.
///
/// # Errors
/// Chromium cannot be installed or started, the viewer cannot start, or a check fails.
pub(crate) fn run() -> anyhow::Result<()> {
    install()?;
    let root = crate::workspace_root();
    let dir = root.join("target/browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let result = check(&root, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Installs Chromium and its WebDriver in the background of CI's first steps (a download of
/// about 100 MB that otherwise made the browser step take 3 minutes), its output in `log`;
/// quietly nothing when they are there or this is not root. The browser step installs again,
/// loudly, whatever this did not.
pub(crate) fn prefetch(log: &Path) -> anyhow::Result<()> {
    if installed() || !crate::demo::is_root() {
        return Ok(());
    }
    crate::venv::apt_quiet(PACKAGES, log)
}

/// Chromium and its WebDriver, without recommended packages (both installs use this).
const PACKAGES: &[&str] = &["--no-install-recommends", "chromium", "chromium-driver"];

fn installed() -> bool {
    Path::new("/usr/bin/chromium").is_file() && Path::new("/usr/bin/chromedriver").is_file()
}

/// apt-get installs Chromium and its WebDriver when either is missing.
fn install() -> anyhow::Result<()> {
    if installed() {
        return Ok(());
    }
    if !crate::demo::is_root() {
        bail!(
            "chromium and chromedriver are missing: sudo apt-get install -y chromium chromium-driver"
        );
    }
    eprintln!("    installing chromium and chromium-driver (apt-get)");
    crate::venv::apt_install(PACKAGES)
}

/// The hostile run's second record: 1 MB of text, markup that would change the title if it
/// ran, repeated.
const HUGE_TEXT_PIECE: &str = "<script>document.title='pwned by 1 MB'</script><b onmouseover=\"document.title='pwned'\">1 MB</b> ";

/// The fixture runs: a hostile run (the markup record, then one with 1 MB of text), the
/// 20-record fixture run, and a live run of 2 records (the 3rd line is what the check
/// appends). Returns them and the fixture's records.
fn write_runs(root: &Path, dir: &Path) -> anyhow::Result<(Vec<PathBuf>, Vec<Value>)> {
    let fixture = root.join("fixtures/runs/pipeline-after.jsonl");
    let text =
        std::fs::read_to_string(&fixture).with_context(|| format!("{}", fixture.display()))?;
    let records: Vec<Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .context("the fixture run's lines")?;
    let mut hostile = records[0].clone();
    hostile["data_generation_result"] = json!([
        "<script>document.title='pwned by a script tag'</script>",
        "<img src=x onerror=\"document.title='pwned by onerror'\">",
        "<a href=\"javascript:document.title='pwned by a link'\">click me</a>",
    ]);
    hostile["topic"] = json!("<script>document.title='pwned by a parameter'</script>");
    let paths = [
        dir.join("hostile.jsonl"),
        dir.join("run.jsonl"),
        dir.join("live.jsonl"),
    ];
    let mut huge = records[1].clone();
    huge["data_generation_result"] = json!([huge_text()]);
    std::fs::write(&paths[0], format!("{hostile}\n{huge}\n"))?;
    std::fs::write(&paths[1], &text)?;
    std::fs::write(&paths[2], format!("{}\n{}\n", records[0], records[1]))?;
    Ok((paths.to_vec(), records))
}

/// The 1 MB text of the hostile run's second record.
fn huge_text() -> String {
    HUGE_TEXT_PIECE.repeat((1 << 20) / HUGE_TEXT_PIECE.len() + 1)
}

/// Builds the binary and starts `view` over `paths`; returns it and its URL. The binary is built
/// as `cargo test --workspace` builds it ([`crate::export_check::debug_binary`]): `cargo build -p
/// scenario-engine` resolved the dependencies' features for that package alone and so, on a
/// fresh clone in CI, compiled 71 of them again (about five minutes of the browser step), and
/// the next step compiled them back.
fn start_viewer(root: &Path, paths: &[PathBuf]) -> anyhow::Result<(Stopped, String)> {
    let mut command = Command::new(crate::export_check::debug_binary(root)?);
    command.arg("view").args(paths);
    spawn_viewer(command)
}

/// Spawns `command` (a `scenario-engine view …`), reads the URL it prints first; returns the
/// process and the URL (no trailing slash).
pub(crate) fn spawn_viewer(mut command: Command) -> anyhow::Result<(Stopped, String)> {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .context("starting `scenario-engine view`")?;
    let stdout = child.stdout.take().context("the viewer's stdout")?;
    let viewer = Stopped(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .with_context(|| format!("no URL in the viewer's first line: {line:?}"))?
        .trim_end_matches('/')
        .to_owned();
    Ok((viewer, url))
}

/// Starts chromedriver on a free port; returns it and its URL once it answers.
fn start_driver() -> anyhow::Result<(Stopped, String)> {
    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = Command::new("/usr/bin/chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting chromedriver")?;
    let driver = Stopped(child);
    let addr = format!("127.0.0.1:{port}");
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(&addr).is_err() {
        ensure!(
            started.elapsed() < WAIT,
            "chromedriver did not listen on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok((driver, format!("http://{addr}")))
}

fn check(root: &Path, dir: &Path) -> anyhow::Result<()> {
    let (paths, records) = write_runs(root, dir)?;
    let (_viewer, url) = start_viewer(root, &paths)?;
    let (_driver, driver_url) = start_driver()?;
    let profile = dir.join("profile");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run",
                    format!("--user-data-dir={}", profile.display()),
                ],
            }),
        );
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&driver_url)
            .await
            .context("a WebDriver session in headless Chromium")?;
        let result = checks(&client, &url, &paths, &records).await;
        let _ = client.close().await;
        result
    })
}

async fn checks(
    client: &Client,
    url: &str,
    paths: &[PathBuf],
    records: &[Value],
) -> anyhow::Result<()> {
    hostile_record_runs_nothing(client, url).await?;
    eprintln!("    a record's script tag, event handler and javascript: link ran nothing");
    huge_text_renders_inert(client, url, &paths[0]).await?;
    eprintln!("    a record of 1 MB of markup showed it as text and ran nothing");
    record_page_shows_texts_and_judges(client, url, &paths[1]).await?;
    eprintln!("    a record page showed its texts and each judge's score and result");
    filters_narrow_the_table(client, url, records).await?;
    eprintln!("    the status and parameter filters narrowed the table to the matching records");
    live_run_shows_new_records(client, url, &paths[2], records).await?;
    eprintln!("    a record appended to a live run appeared by itself");
    Ok(())
}

async fn hostile_record_runs_nothing(client: &Client, url: &str) -> anyhow::Result<()> {
    for page in ["/run/0", "/run/0/records", "/run/0/record/0"] {
        client.goto(&format!("{url}{page}")).await?;
        let title = client.title().await?;
        ensure!(
            !title.contains("pwned"),
            "{page}: a record's markup ran: title {title:?}"
        );
        let links = client.find_all(Locator::Css("a")).await?;
        for link in links {
            let href = link.attr("href").await?.unwrap_or_default();
            ensure!(
                !href.starts_with("javascript:"),
                "{page}: a javascript: link: {href}"
            );
        }
    }
    let texts = client.find(Locator::Css("ol.texts")).await?.text().await?;
    ensure!(
        texts.contains("<script>document.title='pwned by a script tag'</script>")
            && texts.contains("<img src=x onerror="),
        "the record page does not show the hostile texts as text: {texts:?}"
    );
    Ok(())
}

/// Chooses `value` in the filter form's `<select name=NAME>`, submits the form and waits for the
/// records table of the page it leads to.
///
/// The page being left has a records table too, so waiting for `#records` alone can read the old
/// page (CI did, once: 17 rows shown where 5 matched). The wait ends only when the old table is
/// gone (its element is stale), the new one is there and the document has finished loading.
async fn choose_and_submit(client: &Client, name: &str, value: &str) -> anyhow::Result<()> {
    let old_table = client.find(Locator::Css("#records")).await?;
    client
        .find(Locator::Css(&format!("select[name='{name}']")))
        .await?
        .select_by_value(value)
        .await?;
    client
        .find(Locator::Css("#filters button[type='submit']"))
        .await?
        .click()
        .await?;
    let started = std::time::Instant::now();
    loop {
        let left = old_table.tag_name().await.is_err();
        let loaded = client
            .execute("return document.readyState", vec![])
            .await
            .is_ok_and(|state| state == "complete");
        if left && loaded && client.find(Locator::Css("#records")).await.is_ok() {
            return Ok(());
        }
        ensure!(
            started.elapsed() < WAIT,
            "choosing {name}={value} did not lead to a new records page"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn rows(client: &Client) -> anyhow::Result<usize> {
    Ok(client
        .find_all(Locator::Css("#records tbody tr"))
        .await?
        .len())
}

async fn filters_narrow_the_table(
    client: &Client,
    url: &str,
    records: &[Value],
) -> anyhow::Result<()> {
    client.goto(&format!("{url}/run/1/records")).await?;
    ensure!(rows(client).await? == records.len(), "the unfiltered table");
    let accepted = records.iter().filter(|r| r["accepted"] == true).count();
    let health = records
        .iter()
        .filter(|r| r["accepted"] == true && r["topic"] == "health")
        .count();
    ensure!(
        accepted < records.len() && health < accepted,
        "the fixture cannot show narrowing"
    );
    choose_and_submit(client, "status", "accepted").await?;
    ensure!(
        client
            .current_url()
            .await?
            .as_str()
            .contains("status=accepted"),
        "the form did not submit the status"
    );
    let shown = rows(client).await?;
    ensure!(
        shown == accepted,
        "status=accepted shows {shown} rows, {accepted} records are accepted"
    );
    choose_and_submit(client, "p.topic", "health").await?;
    let shown = rows(client).await?;
    ensure!(
        shown == health,
        "accepted health records: {shown} shown, {health} in the file"
    );
    Ok(())
}

async fn live_run_shows_new_records(
    client: &Client,
    url: &str,
    live: &Path,
    records: &[Value],
) -> anyhow::Result<()> {
    client
        .goto(&format!("{url}/run/2/records?sort=newest&live=1"))
        .await?;
    ensure!(rows(client).await? == 2, "the live run's two records");
    // Let the script read the file's size before it grows.
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("script[src='/static/viewer.js']"))
        .await?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut text = std::fs::read_to_string(live)?;
    text.push_str(&format!("{}\n", records[2]));
    std::fs::write(live, text)?;
    let newest = records[2]["id"].as_str().context("an id")?.to_owned();
    let started = std::time::Instant::now();
    loop {
        let first = match client.find(Locator::Css("#records tbody tr td code")).await {
            Ok(cell) => cell.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if first == newest && rows(client).await? == 3 {
            return Ok(());
        }
        ensure!(
            started.elapsed() < WAIT,
            "the appended record did not appear"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The hostile run's second record (1 MB of markup in one text) loads, its text is shown as
/// text (a prefix of it at least: the page cuts long texts, and then says so), and nothing ran.
async fn huge_text_renders_inert(client: &Client, url: &str, run: &Path) -> anyhow::Result<()> {
    let hostile = std::fs::read_to_string(run)?;
    let offset = hostile.find('\n').context("the hostile run's first line")? + 1;
    client.goto(&format!("{url}/run/0/record/{offset}")).await?;
    let title = client.title().await?;
    ensure!(
        !title.contains("pwned"),
        "the 1 MB record's markup ran: title {title:?}"
    );
    let shown = client
        .find(Locator::Css("ol.texts.stored li span.text"))
        .await?
        .text()
        .await?;
    let (shown_words, full_words) = (words(&shown), words(&huge_text()));
    ensure!(
        shown.len() > 10 * HUGE_TEXT_PIECE.len() && full_words.starts_with(&shown_words),
        "the 1 MB text is not shown as its own text ({} characters shown)",
        shown.len()
    );
    if shown_words.len() < full_words.len() {
        let list = client
            .find(Locator::Css("ol.texts.stored"))
            .await?
            .text()
            .await?;
        ensure!(
            list.contains("cut"),
            "the 1 MB text is cut without a notice"
        );
    }
    Ok(())
}

/// A record page of the fixture run shows the record's texts and, for each judge, its score
/// and its whole result (the page's `<pre>` read back as JSON equals the record's).
async fn record_page_shows_texts_and_judges(
    client: &Client,
    url: &str,
    run: &Path,
) -> anyhow::Result<()> {
    // The 4th record: any would do; not the first, so the offset is not 0.
    const K: usize = 3;
    let text = std::fs::read_to_string(run)?;
    let line = text.lines().nth(K).context("the fixture's 4th record")?;
    let record: ScenarioRecord = serde_json::from_str(line)?;
    let offset = text.lines().take(K).map(|l| l.len() + 1).sum::<usize>();
    client.goto(&format!("{url}/run/1/record/{offset}")).await?;
    let heading = client.find(Locator::Css("h1")).await?.text().await?;
    ensure!(
        heading.contains(&record.id),
        "record page {offset}: {heading:?}"
    );
    let mut texts = Vec::new();
    for text in client
        .find_all(Locator::Css("ol.texts.stored li span.text"))
        .await?
    {
        texts.push(words(&text.text().await?));
    }
    let stored: Vec<String> = record
        .data_generation_result
        .iter()
        .map(|t| words(t))
        .collect();
    ensure!(
        texts == stored,
        "the record's texts: {texts:?}, stored {stored:?}"
    );
    let mut shown = std::collections::BTreeMap::new();
    for details in client.find_all(Locator::Css("details")).await? {
        let summary = details.find(Locator::Css("summary")).await?.text().await?;
        let result = match details.find(Locator::Css("pre")).await {
            Ok(pre) => pre.text().await?,
            Err(_) => String::new(),
        };
        shown.insert(summary, result);
    }
    for judge in scoring::Judge::ALL {
        let score = record
            .scores
            .iter()
            .find(|(name, _)| name.as_str() == judge.name())
            .map(|(_, s)| *s)
            .with_context(|| format!("the fixture record has no {judge} score"))?;
        let summary = format!("{}: {score:.2}", judge.name());
        let result = shown
            .get(&summary)
            .with_context(|| format!("no judge `{summary}` on the page: {:?}", shown.keys()))?;
        let result: Value = serde_json::from_str(result)
            .with_context(|| format!("{judge}'s result on the page is not its JSON: {result}"))?;
        ensure!(
            same(&result, record.judge_result(judge)),
            "{judge}'s result on the page: {result}, in the record: {}",
            record.judge_result(judge)
        );
    }
    Ok(())
}

/// `text`'s words, joined by single spaces (the browser's text of an element collapses spaces).
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// JSON values equal, numbers to 1e-9 (a number printed and read back may move by one ulp).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}
