//! The routes. Every source is addressed by its number and every record by its byte offset;
//! anything else is a 404. Each response carries a restrictive Content-Security-Policy (no
//! inline script or style, nothing from elsewhere), `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: no-referrer`, and a request whose `Host` is not the viewer's own is refused
//! ([`Hosts`], against DNS rebinding). File reading runs on tokio's blocking threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use minijinja::context;
use minijinja::value::Serde;
use reports::load::load;

use crate::index::{Index, IndexBuilder, IndexKey};
use crate::overview::{Overview, OverviewBuilder};
use crate::pages::{self, PageError};
use crate::query::RecordQuery;
use crate::record::{Line, RecordView, read_at};
use crate::source::{Source, SourceKind, Sources};

/// The Content-Security-Policy of every response: the viewer's own stylesheet and script
/// only, no inline code, no frames, forms only to itself.
pub const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; \
                       connect-src 'self'; img-src 'self'; form-action 'self'; \
                       base-uri 'none'; frame-ancestors 'none'";

/// A run's overview, kept for the version of its file it was read from.
type Cached = (IndexKey, Arc<Overview>);

/// Blocking readings of runs at once (pages, searches, comparisons; the background passes
/// aside): each holds at most one line of a run, so this bounds the memory a burst of requests
/// can take (a run with a 50 MB line held 45 MB per concurrent search).
const READERS: usize = 4;

#[derive(Clone)]
struct AppState {
    sources: Sources,
    overviews: Arc<Mutex<HashMap<usize, Cached>>>,
    /// One lock per source: concurrent first requests for an overview share one reading.
    reading: Arc<Vec<Mutex<()>>>,
    index_dir: Option<PathBuf>,
    /// Each large run's latest whole index (of its version now, or of a version it grew from).
    indexes: Arc<Mutex<HashMap<usize, Index>>>,
    /// Versions of runs found not indexable (too many names or values, no cache directory).
    unindexable: Arc<Mutex<HashMap<usize, IndexKey>>>,
    /// The background passes over large runs under way (one per run at a time).
    scans: Arc<Mutex<HashMap<usize, Arc<Progress>>>>,
    /// When each run's last pass ended and how long it took: a growing run is read again no
    /// sooner than twice that after (a pass never takes more than a third of a core's time).
    finished: Arc<Mutex<HashMap<usize, (Instant, Duration)>>>,
    readers: Arc<tokio::sync::Semaphore>,
}

/// How far a background pass over a large run has gone (the run page shows it).
#[derive(Debug)]
struct Progress {
    /// The run's length when the pass began (it reads no further).
    total: u64,
    /// The offset of the last record read.
    read: AtomicU64,
}

impl Progress {
    /// The page's view: percent read and size.
    fn view(&self) -> serde_json::Value {
        let read = self.read.load(Ordering::Relaxed).min(self.total);
        #[allow(clippy::cast_precision_loss)] // a percentage to show
        let percent = if self.total == 0 {
            100.0
        } else {
            read as f64 * 100.0 / self.total as f64
        };
        serde_json::json!({
            "percent": format!("{percent:.0}"),
            "total": size_text(self.total),
        })
    }
}

/// A size for people: `3.4 GB`, `12.0 MB`, `900 bytes`.
fn size_text(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // a size to show
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{bytes} bytes")
    }
}

/// A run smaller than this is read for each page (a second or less); a larger one gets an
/// index, built in the background, that its filters read once it is ready.
pub const INDEX_MIN_BYTES: u64 = 8 * 1024 * 1024;

/// The `Host` values a request may name (a defence against DNS rebinding: a page of another
/// site whose name was pointed at this machine sends its own name): `localhost`, `127.0.0.1`,
/// `[::1]`, the address listened on and the `--host` given, each with the port listened on
/// (or none for port 80). Listening on every address (`0.0.0.0`, `::`), any IP address is
/// accepted too (a rebound name is a name, never an address). Anything else, or no `Host`,
/// is answered 421.
#[derive(Debug, Clone)]
pub struct Hosts {
    port: u16,
    names: Vec<String>,
    any_ip: bool,
}

impl Hosts {
    /// The hosts of a server listening on `bound`, started with `--host given`.
    #[must_use]
    pub fn new(bound: std::net::SocketAddr, given: &str) -> Self {
        let bracket = |ip: std::net::IpAddr| match ip {
            std::net::IpAddr::V6(v6) => format!("[{v6}]"),
            std::net::IpAddr::V4(v4) => v4.to_string(),
        };
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        names.push(bracket(bound.ip()));
        names.push(
            given
                .parse::<std::net::IpAddr>()
                .map_or_else(|_| given.to_ascii_lowercase(), bracket),
        );
        Self {
            port: bound.port(),
            names,
            any_ip: bound.ip().is_unspecified(),
        }
    }

    /// Whether a request naming `host` (a `Host` header's value) is served.
    #[must_use]
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = if host.starts_with('[') {
            match host.find(']') {
                Some(end) => (&host[..=end], host[end + 1..].strip_prefix(':')),
                None => return false,
            }
        } else {
            match host.rsplit_once(':') {
                Some((name, port)) => (name, Some(port)),
                None => (host.as_str(), None),
            }
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>() == Ok(self.port),
            None => self.port == 80,
        };
        let ip = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok();
        port_ok && (self.names.iter().any(|n| n == name) || (self.any_ip && ip))
    }
}

/// Refuses a request whose `Host` (or, without one, URI authority) is not one of `hosts`.
async fn check_host(
    hosts: Hosts,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
    if host.as_deref().is_some_and(|h| hosts.allows(h)) {
        return next.run(request).await;
    }
    tracing::warn!(host = ?host, "request for another host refused (DNS rebinding?)");
    (
        StatusCode::MISDIRECTED_REQUEST,
        "this viewer answers only to the address it listens on (localhost, 127.0.0.1, [::1])",
    )
        .into_response()
}

/// The viewer's routes over `sources`, caching run indexes in `index_dir` (none: no index),
/// answering only requests that name one of `hosts`. The security headers are added outermost:
/// every response the routes, the host check or a rejection give carries them.
pub fn router(sources: Sources, index_dir: Option<PathBuf>, hosts: Hosts) -> Router {
    let state = AppState {
        reading: Arc::new((0..sources.len()).map(|_| Mutex::new(())).collect()),
        sources,
        overviews: Arc::default(),
        index_dir,
        indexes: Arc::default(),
        unindexable: Arc::default(),
        scans: Arc::default(),
        finished: Arc::default(),
        readers: Arc::new(tokio::sync::Semaphore::new(READERS)),
    };
    Router::new()
        .route("/", get(index))
        .route("/static/viewer.css", get(css))
        .route("/static/viewer.js", get(js))
        .route("/run/{i}", get(run))
        .route("/run/{i}/records", get(records))
        .route("/run/{i}/record/{offset}", get(record))
        .route("/run/{i}/stamp", get(stamp))
        .route("/suite/{i}", get(suite))
        .route("/suite/{i}/scenario/{n}", get(scenario))
        .route("/compare", get(compare_chosen))
        .route("/compare/{a}/{b}", get(compare))
        .fallback(|| async { not_found() })
        .with_state(state)
        .layer(axum::middleware::from_fn(move |request, next| {
            check_host(hosts.clone(), request, next)
        }))
        .layer(axum::middleware::map_response(secure))
}

async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

fn page(result: Result<String, PageError>) -> Response {
    match result {
        Ok(html) => Html(html).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "viewer page failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "viewer template `{}` failed (a bug; the log has the details)",
                    e.template
                ),
            )
                .into_response()
        }
    }
}

fn failure(message: impl std::fmt::Display) -> Response {
    tracing::warn!(%message, "viewer request failed");
    (StatusCode::INTERNAL_SERVER_ERROR, message.to_string()).into_response()
}

/// The source numbered `text` of kind `kind`, or `None` (a 404).
fn source<'a>(
    state: &'a AppState,
    text: &str,
    kinds: &[SourceKind],
) -> Option<(usize, &'a Source)> {
    let i = text.parse::<usize>().ok()?;
    let s = state.sources.get(i)?;
    kinds.contains(&s.kind).then_some((i, s))
}

/// Runs `f` on a blocking thread, once one of the [`READERS`] permits is free.
async fn blocking<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let _permit = state.readers.clone().acquire_owned().await.ok()?;
    tokio::task::spawn_blocking(f).await.ok()
}

async fn index(State(state): State<AppState>) -> Response {
    let sources: Vec<_> = state
        .sources
        .all()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let kind = match s.kind {
                SourceKind::Run => "run",
                SourceKind::Suite => "suite",
                SourceKind::Errors => "errors",
            };
            (i, s.name.clone(), kind)
        })
        .collect();
    // Neighbours only (never every pair: n²/2 links); any two are chosen in the form.
    let pairs: Vec<(usize, usize)> = (1..state.sources.len())
        .map(|b| (b - 1, b))
        .filter(|&(a, b)| state.sources.comparable(a, b))
        .take(20)
        .collect();
    let skipped = state.sources.skipped().to_vec();
    page(pages::render(
        "index.html",
        context! { sources, pairs, skipped },
    ))
}

/// The comparison form's answer (`?a=N&b=M`): redirects to `/compare/N/M`.
async fn compare_chosen(Query(pairs): Query<Vec<(String, String)>>) -> Response {
    let pick = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .and_then(|(_, v)| v.parse::<usize>().ok())
    };
    match (pick("a"), pick("b")) {
        (Some(a), Some(b)) => {
            axum::response::Redirect::to(&format!("/compare/{a}/{b}")).into_response()
        }
        _ => not_found(),
    }
}

async fn css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        pages::CSS,
    )
        .into_response()
}

async fn js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        pages::JS,
    )
        .into_response()
}

/// The overview cached for run `i` when it is of the version `key` names; with `key` `None`,
/// whatever version is cached.
fn cached_overview(state: &AppState, i: usize, key: Option<&IndexKey>) -> Option<Arc<Overview>> {
    let cache = state.overviews.lock().ok()?;
    let (of, report) = cache.get(&i)?;
    key.is_none_or(|key| of == key).then(|| report.clone())
}

fn key_now(s: &Source) -> Result<IndexKey, String> {
    IndexKey::of(&s.path).map_err(|e| format!("{}: {e}", s.name))
}

/// A run's overview: the report's figures (cached while the file is unchanged; one reading
/// at a time per run, the others wait for it and take its result). Read at once: for a run
/// under [`INDEX_MIN_BYTES`] (a large one is read by [`start_scan`]).
fn overview(state: &AppState, i: usize, s: &Source) -> Result<Arc<Overview>, String> {
    if let Some(report) = cached_overview(state, i, Some(&key_now(s)?)) {
        return Ok(report);
    }
    let _one = state.reading.get(i).and_then(|m| m.lock().ok());
    let key = key_now(s)?;
    if let Some(report) = cached_overview(state, i, Some(&key)) {
        return Ok(report);
    }
    let report =
        Arc::new(crate::overview::read(&s.path, &s.name).map_err(|e| format!("{}: {e}", s.name))?);
    // The file changed under the reading: shown, not kept for the other version.
    if key.still_begins()
        && IndexKey::of(&s.path).is_ok_and(|now| now == key)
        && let Ok(mut cache) = state.overviews.lock()
    {
        cache.insert(i, (key, report.clone()));
    }
    Ok(report)
}

/// What the run page can show of a run's overview now.
enum OverviewNow {
    /// The overview of the file as it is now.
    Ready(Arc<Overview>),
    /// A large run being read in the background (or, when `None`, waiting for its next pass:
    /// it grew since its last), with an earlier version's overview if one was read.
    Reading(Option<Arc<Progress>>, Option<Arc<Overview>>),
}

fn overview_now(state: &AppState, i: usize, s: &Source) -> Result<OverviewNow, String> {
    let key = key_now(s)?;
    if let Some(report) = cached_overview(state, i, Some(&key)) {
        return Ok(OverviewNow::Ready(report));
    }
    if key.len < INDEX_MIN_BYTES {
        return overview(state, i, s).map(OverviewNow::Ready);
    }
    let progress = maybe_scan(state, i, s, &key)?;
    Ok(OverviewNow::Reading(
        progress,
        cached_overview(state, i, None),
    ))
}

/// The pass over large run `i` under way, or a new one started for version `key` — unless the
/// last pass ended less than twice its duration ago (`None`: the run grows; it is read again
/// then). One reading of the file feeds both the run's index (unless a whole one of this
/// version is cached already) and its overview. Pages answer meanwhile: the records table reads
/// only as far as its page (or from an index of the version the run grew from, reading the
/// rest), the run page shows the progress.
fn maybe_scan(
    state: &AppState,
    i: usize,
    s: &Source,
    key: &IndexKey,
) -> Result<Option<Arc<Progress>>, String> {
    let mut scans = state
        .scans
        .lock()
        .map_err(|_| "a viewer lock broke".to_owned())?;
    if let Some(progress) = scans.get(&i) {
        return Ok(Some(progress.clone()));
    }
    if let Ok(finished) = state.finished.lock()
        && let Some((when, took)) = finished.get(&i)
        && when.elapsed() < *took * 2
    {
        return Ok(None);
    }
    let progress = Arc::new(Progress {
        total: key.len,
        read: AtomicU64::new(0),
    });
    scans.insert(i, progress.clone());
    let (st, path, name, p, key) = (
        state.clone(),
        s.path.clone(),
        s.name.clone(),
        progress.clone(),
        key.clone(),
    );
    std::thread::spawn(move || {
        let started = Instant::now();
        scan(&st, i, &path, &name, &key, &p);
        if let Ok(mut finished) = st.finished.lock() {
            finished.insert(i, (Instant::now(), started.elapsed()));
        }
        if let Ok(mut scans) = st.scans.lock() {
            scans.remove(&i);
        }
    });
    Ok(Some(progress))
}

/// The background pass of [`maybe_scan`].
fn scan(state: &AppState, i: usize, path: &Path, name: &str, key: &IndexKey, progress: &Progress) {
    let ready = state
        .index_dir
        .as_deref()
        .and_then(|dir| Index::find(dir, key))
        .filter(|index| index.key(&key.path) == *key);
    let mut builder = match (&state.index_dir, &ready) {
        (Some(dir), None) => IndexBuilder::new(dir, key.clone())
            .map_err(|e| tracing::warn!(error = %e, "the run's index cannot be written; its filters read the run"))
            .ok(),
        _ => None,
    };
    let mut overview = OverviewBuilder::new(path);
    // A last line without its newline is no part of the version read (`IndexKey`).
    if std::fs::metadata(path).is_ok_and(|m| m.len() > key.len) && key.len == file_end(path) {
        overview.last_line_pending();
    }
    let read = (|| -> std::io::Result<()> {
        for item in runlog::record::RecordReader::<_, runlog::record::ScenarioRecord>::open(path)? {
            match crate::record::line(item)? {
                // The file grew since the pass began: this version ends here.
                Line::Record(located) if located.offset >= key.len => break,
                Line::Record(located) => {
                    progress.read.store(located.offset, Ordering::Relaxed);
                    if let Some(b) = builder.as_mut()
                        && let Err(e) = b.add(&located)
                    {
                        tracing::warn!(error = %e, "the run's index could not be written; its filters read the run");
                        builder = None;
                    }
                    overview.add(&located.record);
                }
                Line::Pending => overview.last_line_pending(),
                Line::Unreadable(e) => {
                    if let Some(b) = builder.as_mut() {
                        b.unreadable(e.line());
                    }
                    overview.skip(&e);
                }
            }
        }
        Ok(())
    })();
    let index = match (read.is_ok(), ready, builder) {
        (_, Some(index), _) => Some(index),
        (true, None, Some(b)) => b.finish().unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the run's index could not be written; its filters read the run");
            None
        }),
        _ => None,
    };
    match index {
        Some(index) => {
            if let Ok(mut indexes) = state.indexes.lock() {
                indexes.insert(i, index);
            }
        }
        None => {
            if let Ok(mut unindexable) = state.unindexable.lock() {
                unindexable.insert(i, key.clone());
            }
        }
    }
    if let Err(e) = read {
        tracing::warn!(error = %e, run = %path.display(), "the run could not be read");
        return;
    }
    // Kept only for the version read: a file replaced under the pass is read again.
    if key.still_begins()
        && let Ok(mut cache) = state.overviews.lock()
    {
        cache.insert(i, (key.clone(), Arc::new(overview.finish(name))));
    }
}

async fn run(State(state): State<AppState>, UrlPath(i): UrlPath<String>) -> Response {
    let Some((i, s)) = source(&state, &i, &[SourceKind::Run, SourceKind::Errors]) else {
        return not_found();
    };
    let (name, kind, path) = (s.name.clone(), s.kind, s.path.clone());
    if kind == SourceKind::Errors {
        let tally = match blocking(&state, move || runlog::FailureTally::read(&path)).await {
            Some(Ok(t)) => t,
            Some(Err(e)) => return failure(e),
            None => return failure("reading the errors file stopped"),
        };
        let failures = reports::failures::FailuresView::alone(&tally, &name);
        return page(pages::render(
            "run.html",
            context! { i, name, r => None::<()>, failures => Serde(failures) },
        ));
    }
    let st = state.clone();
    let now = {
        let s = s.clone();
        match blocking(&state, move || {
            let now = overview_now(&st, i, &s)?;
            let indexed = matches!(index_for(&st, i, &s), IndexNow::Ready(_));
            Ok::<_, String>((now, indexed))
        })
        .await
        {
            Some(Ok(now)) => now,
            Some(Err(e)) => return failure(e),
            None => return failure("reading the run stopped"),
        }
    };
    let (report, reading, waiting) = match now.0 {
        OverviewNow::Ready(report) => (Some(report), None, false),
        OverviewNow::Reading(Some(progress), earlier) => (earlier, Some(progress.view()), false),
        OverviewNow::Reading(None, earlier) => (earlier, None, true),
    };
    page(pages::render(
        "run.html",
        context! {
            i, name, reading => reading.map(Serde), waiting, indexed => now.1,
            r => report.as_ref().map(|o| Serde(&o.report)),
            failures => report.as_ref().map(|o| Serde(&o.report.failures)),
            o => report.as_ref().map(|o| Serde(&**o)),
        },
    ))
}

/// Reads the records page `query` asks for: from the index when there is one (of the run's
/// version now, or of one it grew from, the rest read from the run); else a large run only as
/// far as the page (its sort waiting for the index while one is built), a small one whole.
fn records_page(
    state: &AppState,
    i: usize,
    s: &Source,
    mut query: RecordQuery,
) -> std::io::Result<crate::table::Page> {
    use crate::table::{Reach, page};
    let big = file_size(&s.path) >= INDEX_MIN_BYTES;
    let reach = if big { Reach::Page } else { Reach::Whole };
    let (index, waits, coming) = match index_for(state, i, s) {
        IndexNow::Ready(index) => (Some(index), false, false),
        IndexNow::Building => (None, query.sort != crate::query::Sort::File, true),
        IndexNow::None => (None, false, false),
    };
    if waits {
        query.sort = crate::query::Sort::File;
    }
    let mut table = match (page(&s.path, &query, index.as_ref(), reach), index) {
        // The index broke while being read (damaged since it was opened): it is removed,
        // built again on a later page, and this page reads the run.
        (Err(e), Some(index)) => {
            tracing::warn!(error = %e, "the run's index could not be read; removed");
            index.remove();
            if let Ok(mut indexes) = state.indexes.lock() {
                indexes.remove(&i);
            }
            page(&s.path, &query, None, reach)
        }
        (result, _) => result,
    }?;
    table.sort_waits = waits;
    table.index_coming = coming;
    Ok(table)
}

async fn records(
    State(state): State<AppState>,
    UrlPath(i): UrlPath<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Response {
    let Some((i, s)) = source(&state, &i, &[SourceKind::Run]) else {
        return not_found();
    };
    let live = pairs.iter().any(|(k, v)| k == "live" && v == "1");
    let pairs: Vec<(String, String)> = pairs.into_iter().filter(|(k, _)| k != "live").collect();
    let query = RecordQuery::parse(&pairs);
    let searching = !query.text.is_empty()
        && query.sort == crate::query::Sort::File
        && query.status != crate::query::Status::Failed;
    if searching && file_size(&s.path) >= INDEX_MIN_BYTES {
        let s = s.clone();
        return stream_search(state, i, s, query, live).await;
    }
    let (q, st, src) = (query.clone(), state.clone(), s.clone());
    let table = match blocking(&state, move || records_page(&st, i, &src, q)).await {
        Some(Ok(t)) => t,
        Some(Err(e)) => return failure(format!("{}: {e}", s.name)),
        None => return failure("reading the run stopped"),
    };
    // The filter form's choices: the parameters that vary, with their values.
    let st = state.clone();
    let src = s.clone();
    let params = blocking(&state, move || choices(&st, i, &src))
        .await
        .unwrap_or_default();
    page(records_html(
        &RecordsPage {
            i,
            name: &s.name,
            live,
            query: &query,
            params: &params,
        },
        &table,
        false,
    ))
}

/// What a records page shows besides its table.
struct RecordsPage<'a> {
    i: usize,
    name: &'a str,
    live: bool,
    query: &'a RecordQuery,
    /// The filter form's choices ([`choices`]).
    params: &'a serde_json::Value,
}

/// The records page of `t`; `streaming`: the counts below the table, and a `<!--rows-->` mark
/// after the rows for [`stream_search`] to cut the page at.
fn records_html(
    p: &RecordsPage<'_>,
    t: &crate::table::Page,
    streaming: bool,
) -> Result<String, PageError> {
    let links = (
        (t.page > 1).then(|| p.query.to_query_string(t.page - 1)),
        (t.page < t.pages).then(|| p.query.to_query_string(t.page + 1)),
    );
    pages::render(
        "records.html",
        context! {
            i => p.i, name => p.name, live => p.live, q => Serde(p.query), t => Serde(t),
            params => Serde(p.params), prev => links.0, next => links.1,
            this => p.query.to_query_string(t.page), streaming,
        },
    )
}

/// A text search of a large run, sent as it is read: the page down to the table's first row at
/// once, then each matching row as soon as it is found, then the counts and the pager (the
/// counts stand below the table on such a page). A reader that goes away stops the reading.
async fn stream_search(
    state: AppState,
    i: usize,
    s: Source,
    query: RecordQuery,
    live: bool,
) -> Response {
    let (st, src) = (state.clone(), s.clone());
    let params = blocking(&state, move || choices(&st, i, &src))
        .await
        .unwrap_or_default();
    let Ok(permit) = state.readers.clone().acquire_owned().await else {
        return failure("the viewer is stopping");
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(64);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let columns = columns_of(&state, i, &s);
        let shown = RecordsPage {
            i,
            name: &s.name,
            live,
            query: &query,
            params: &params,
        };
        let render = |t: &crate::table::Page| {
            records_html(&shown, t, true).unwrap_or_else(|e| {
                tracing::error!(error = %e, "viewer page failed");
                format!("<p>{}</p>", e.template)
            })
        };
        let start = crate::table::Page {
            judges: columns.clone(),
            page: query.page,
            ..crate::table::Page::default()
        };
        let head = render(&start);
        let (head, _) = head.split_once("<!--rows-->").unwrap_or((&head, ""));
        if tx.blocking_send(head.to_owned()).is_err() {
            return;
        }
        let mut on_row = |row: &crate::table::Row| {
            let html =
                pages::render("row.html", context! { i, row => Serde(row) }).unwrap_or_default();
            tx.blocking_send(html + "\n").is_ok()
        };
        let stream = crate::table::Streamed {
            columns,
            on_row: &mut on_row,
        };
        let end = match crate::table::streamed_page(
            &s.path,
            &query,
            crate::table::Reach::Page,
            stream,
        ) {
            Ok(mut t) => {
                t.rows.clear();
                let whole = render(&t);
                whole
                    .split_once("<!--rows-->")
                    .map(|(_, tail)| tail.to_owned())
                    .unwrap_or_default()
            }
            Err(e) => {
                tracing::warn!(error = %e, "a search stopped");
                format!(
                    "</tbody></table><p class=\"problem\">Reading the run stopped: {}</p></main></body></html>",
                    minijinja::HtmlEscape(&e.to_string())
                )
            }
        };
        let _ = tx.blocking_send(end);
    });
    let body = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|chunk| (Ok::<_, std::convert::Infallible>(chunk), rx))
    });
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

/// The judge columns of a streamed page: the index's, else those of the run's first record.
fn columns_of(state: &AppState, i: usize, s: &Source) -> Vec<String> {
    let mut columns: Vec<String> =
        match state.indexes.lock().ok().and_then(|ix| ix.get(&i).cloned()) {
            Some(index) => index.judges().to_vec(),
            None => read_at(&s.path, 0)
                .ok()
                .flatten()
                .map(|(_, r)| r.scores.keys().map(|j| j.as_str().to_owned()).collect())
                .unwrap_or_default(),
        };
    columns.sort();
    columns.truncate(16);
    columns
}

async fn record(
    State(state): State<AppState>,
    UrlPath((i, offset)): UrlPath<(String, String)>,
) -> Response {
    let Some((i, s)) = source(&state, &i, &[SourceKind::Run]) else {
        return not_found();
    };
    let Ok(offset) = offset.parse::<u64>() else {
        return not_found();
    };
    let path = s.path.clone();
    let found = match blocking(&state, move || read_at(&path, offset)).await {
        Some(Ok(found)) => found,
        Some(Err(e)) => return failure(format!("{}: {e}", s.name)),
        None => return failure("reading the run stopped"),
    };
    let Some((_, r)) = found else {
        return not_found();
    };
    page(pages::render(
        "record.html",
        context! { i, name => s.name.clone(), r => Serde(RecordView::new(&r)) },
    ))
}

/// A run's index as a page can use it now.
enum IndexNow {
    /// Ready: of the file as it is now, or of a version it grew from.
    Ready(Index),
    /// Being built by the background pass.
    Building,
    /// None: a small run, no cache directory, or a run that cannot be indexed.
    None,
}

/// The index of run `i` for its file as it is now (or for a version it grew from: then a new
/// pass is started, when the last one allows); otherwise starts the background pass that
/// builds it (one per run at a time) for a run of at least [`INDEX_MIN_BYTES`], and the caller
/// reads the run meanwhile.
fn index_for(state: &AppState, i: usize, s: &Source) -> IndexNow {
    let Some(dir) = state.index_dir.clone() else {
        return IndexNow::None;
    };
    let Ok(key) = IndexKey::of(&s.path) else {
        return IndexNow::None;
    };
    if key.len < INDEX_MIN_BYTES {
        return IndexNow::None;
    }
    if state
        .unindexable
        .lock()
        .is_ok_and(|u| u.get(&i) == Some(&key))
    {
        return IndexNow::None;
    }
    let known = state.indexes.lock().ok().and_then(|ix| ix.get(&i).cloned());
    let fits = |index: &Index| {
        let of = index.key(&key.path);
        of == key || (of.len < key.len && of.still_begins())
    };
    let index = match known.filter(fits) {
        Some(index) => Some(index),
        None => {
            let found = Index::find(&dir, &key);
            if let Ok(mut indexes) = state.indexes.lock() {
                match &found {
                    Some(index) => indexes.insert(i, index.clone()),
                    None => indexes.remove(&i),
                };
            }
            found
        }
    };
    let exact = index.as_ref().is_some_and(|ix| ix.key(&key.path) == key);
    let pass = if exact {
        None
    } else {
        maybe_scan(state, i, s, &key).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the run's index cannot be built");
            None
        })
    };
    match (index, pass) {
        (Some(index), _) => IndexNow::Ready(index),
        (None, Some(_)) => IndexNow::Building,
        (None, None) => IndexNow::None,
    }
}

/// A parameter with more values than this gets a text field in the filter form, not a list.
pub const MAX_CHOICES: usize = 200;

/// The parameters that vary in run `i`, with their values (`[{name, values: [{value}]}]`):
/// the overview's when it is computed or the run is small, else the index's dictionary once
/// it is built; a large run's first page does not wait for either (no choices yet).
fn choices(state: &AppState, i: usize, s: &Source) -> serde_json::Value {
    let view = |params: Vec<(String, Vec<String>)>| {
        serde_json::Value::Array(
            params
                .into_iter()
                .filter(|(_, values)| values.len() > 1)
                .map(|(name, values)| {
                    // Past MAX_CHOICES values the form asks for one typed (a page of
                    // thousands of options helps nobody).
                    let count = values.len();
                    let more = count > MAX_CHOICES;
                    let values: Vec<_> = values
                        .into_iter()
                        .take(if more { 0 } else { MAX_CHOICES })
                        .map(|v| serde_json::json!({ "value": v }))
                        .collect();
                    serde_json::json!({ "name": name, "values": values, "more": more, "count": count })
                })
                .collect(),
        )
    };
    let from_report = |o: &Overview| {
        view(
            o.report
                .params
                .iter()
                .map(|p| {
                    (
                        p.name.clone(),
                        p.values.iter().map(|v| v.value.clone()).collect(),
                    )
                })
                .collect(),
        )
    };
    let key = key_now(s).ok();
    if let Some(report) = key
        .as_ref()
        .and_then(|key| cached_overview(state, i, Some(key)))
    {
        return from_report(&report);
    }
    if key.is_some_and(|key| key.len < INDEX_MIN_BYTES) {
        return overview(state, i, s).map_or(serde_json::Value::Null, |r| from_report(&r));
    }
    match index_for(state, i, s) {
        IndexNow::Ready(index) => view(index.params().to_vec()),
        IndexNow::Building | IndexNow::None => serde_json::Value::Null,
    }
}

/// The run file's size: the live page reloads when it changes.
async fn stamp(State(state): State<AppState>, UrlPath(i): UrlPath<String>) -> Response {
    let Some((_, s)) = source(&state, &i, &[SourceKind::Run]) else {
        return not_found();
    };
    let size = file_size(&s.path);
    ([(header::CONTENT_TYPE, "text/plain")], size.to_string()).into_response()
}

/// Where the whole lines of `path` end now (its length without a last line being written).
fn file_end(path: &Path) -> u64 {
    std::fs::File::open(path)
        .and_then(|mut f| {
            let len = f.metadata()?.len();
            crate::index::line_start_before(&mut f, len)
        })
        .unwrap_or(0)
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

async fn suite(
    State(state): State<AppState>,
    UrlPath(i): UrlPath<String>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Response {
    let Some((i, s)) = source(&state, &i, &[SourceKind::Suite]) else {
        return not_found();
    };
    let Some(result) = s.suite.as_ref() else {
        return not_found();
    };
    let filter = pairs
        .iter()
        .find(|(k, _)| k == "filter")
        .map(|(_, v)| v.as_str())
        .filter(|v| crate::suite::FILTERS.contains(v))
        .unwrap_or("all");
    let rows = crate::suite::rows(result, filter);
    let report = reports::suite::build(&s.name, result);
    page(pages::render(
        "suite.html",
        context! {
            i, name => s.name.clone(), filter, filters => crate::suite::FILTERS,
            rows => Serde(&rows), total => result.scenarios.len(), s => Serde(&report),
        },
    ))
}

async fn scenario(
    State(state): State<AppState>,
    UrlPath((i, n)): UrlPath<(String, String)>,
) -> Response {
    let Some((i, s)) = source(&state, &i, &[SourceKind::Suite]) else {
        return not_found();
    };
    let Some(sc) = s
        .suite
        .as_ref()
        .zip(n.parse::<usize>().ok())
        .and_then(|(r, n)| r.scenarios.get(n))
    else {
        return not_found();
    };
    page(pages::render(
        "scenario.html",
        context! {
            i, name => s.name.clone(), sc => Serde(sc), passed => sc.passed(),
            history => Serde(crate::suite::history(sc)),
        },
    ))
}

async fn compare(
    State(state): State<AppState>,
    UrlPath((a, b)): UrlPath<(String, String)>,
) -> Response {
    let kinds = [SourceKind::Run, SourceKind::Suite];
    let (Some((a, sa)), Some((b, sb))) = (source(&state, &a, &kinds), source(&state, &b, &kinds))
    else {
        return not_found();
    };
    if !state.sources.comparable(a, b) {
        return not_found();
    }
    let (pa, pb) = (sa.path.clone(), sb.path.clone());
    let (na, nb) = (sa.name.clone(), sb.name.clone());
    let view = blocking(&state, move || {
        // An empty run (not written yet) compares as a run of nothing.
        let open = |p: &Path| match load(p) {
            Err(reports::load::LoadError::Empty { .. }) => Ok(reports::load::Results::Pipeline(
                reports::load::PipelineRun::at(p),
            )),
            other => other.map_err(|e| e.to_string()),
        };
        let (before, after) = (open(&pa)?, open(&pb)?);
        let diff = reports::diff::diff(&before, &after, None).map_err(|e| e.to_string())?;
        Ok::<_, String>(reports::render::DiffView::new(&diff, &na, &nb, None))
    })
    .await;
    match view {
        Some(Ok(d)) => page(pages::render(
            "compare.html",
            context! { a, b, d => Serde(&d) },
        )),
        Some(Err(e)) => failure(e),
        None => failure("the comparison stopped"),
    }
}
