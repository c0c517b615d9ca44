//! The routes. Every source is addressed by its number and every record by its byte offset;
//! anything else is a 404. Each response carries a restrictive Content-Security-Policy (no
//! inline script or style, nothing from elsewhere), `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: no-referrer`, and a request whose `Host` is not the viewer's own is refused
//! ([`Hosts`], against DNS rebinding). File reading runs on tokio's blocking threads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use minijinja::context;
use minijinja::value::Serde;
use reports::load::load;

use crate::index::{Index, IndexKey};
use crate::overview::Overview;
use crate::pages::{self, PageError};
use crate::query::RecordQuery;
use crate::record::{RecordView, read_at};
use crate::source::{Source, SourceKind, Sources};

/// The Content-Security-Policy of every response: the viewer's own stylesheet and script
/// only, no inline code, no frames, forms only to itself.
pub const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; \
                       connect-src 'self'; img-src 'self'; form-action 'self'; \
                       base-uri 'none'; frame-ancestors 'none'";

/// A run's overview, kept while its file is unchanged (size and modification time).
type Cached = (u64, Option<SystemTime>, Arc<Overview>);

/// A run's index: being built for a version of the file, built, or not to be built.
#[derive(Debug, Clone)]
enum IndexState {
    Building,
    Ready(IndexKey, Index),
    Unindexed(IndexKey),
}

#[derive(Clone)]
struct AppState {
    sources: Sources,
    overviews: Arc<Mutex<HashMap<usize, Cached>>>,
    /// One lock per source: concurrent first requests for an overview share one reading.
    reading: Arc<Vec<Mutex<()>>>,
    index_dir: Option<PathBuf>,
    indexes: Arc<Mutex<HashMap<usize, IndexState>>>,
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

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
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

/// A run's overview: the report's figures (cached while the file is unchanged; one reading
/// at a time per run, the others wait for it and take its result).
fn overview(state: &AppState, i: usize, s: &Source) -> Result<Arc<Overview>, String> {
    let key = || {
        std::fs::metadata(&s.path)
            .map(|meta| (meta.len(), meta.modified().ok()))
            .map_err(|e| format!("{}: {e}", s.name))
    };
    let cached = |key: (u64, Option<SystemTime>)| {
        let cache = state.overviews.lock().ok()?;
        let (len, modified, report) = cache.get(&i)?;
        ((*len, *modified) == key).then(|| report.clone())
    };
    if let Some(report) = cached(key()?) {
        return Ok(report);
    }
    let _one = state.reading.get(i).and_then(|m| m.lock().ok());
    let key = key()?;
    if let Some(report) = cached(key) {
        return Ok(report);
    }
    let report =
        Arc::new(crate::overview::read(&s.path, &s.name).map_err(|e| format!("{}: {e}", s.name))?);
    if let Ok(mut cache) = state.overviews.lock() {
        cache.insert(i, (key.0, key.1, report.clone()));
    }
    Ok(report)
}

async fn run(State(state): State<AppState>, UrlPath(i): UrlPath<String>) -> Response {
    let Some((i, s)) = source(&state, &i, &[SourceKind::Run, SourceKind::Errors]) else {
        return not_found();
    };
    let (name, kind, path) = (s.name.clone(), s.kind, s.path.clone());
    if kind == SourceKind::Errors {
        let tally = match blocking(move || runlog::FailureTally::read(&path)).await {
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
    let report = {
        let s = s.clone();
        match blocking(move || overview(&st, i, &s)).await {
            Some(Ok(r)) => r,
            Some(Err(e)) => return failure(e),
            None => return failure("reading the run stopped"),
        }
    };
    page(pages::render(
        "run.html",
        context! {
            i, name, r => Serde(&report.report), failures => Serde(&report.report.failures),
            o => Serde(&*report),
        },
    ))
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
    let (path, q, st) = (s.path.clone(), query.clone(), state.clone());
    let table = match blocking(move || {
        let index = index_for(&st, i, &path);
        match (crate::table::page(&path, &q, index.as_ref()), index) {
            // The index broke while being read (damaged since it was opened): it is removed,
            // built again on a later page, and this page reads the run.
            (Err(e), Some(index)) => {
                tracing::warn!(error = %e, "the run's index could not be read; removed");
                index.remove();
                if let Ok(mut indexes) = st.indexes.lock() {
                    indexes.remove(&i);
                }
                crate::table::page(&path, &q, None)
            }
            (result, _) => result,
        }
    })
    .await
    {
        Some(Ok(t)) => t,
        Some(Err(e)) => return failure(format!("{}: {e}", s.name)),
        None => return failure("reading the run stopped"),
    };
    // The filter form's choices: the parameters that vary, with their values.
    let st = state.clone();
    let src = s.clone();
    let params = blocking(move || choices(&st, i, &src))
        .await
        .unwrap_or_default();
    let links = (
        (table.page > 1).then(|| query.to_query_string(table.page - 1)),
        (table.page < table.pages).then(|| query.to_query_string(table.page + 1)),
    );
    page(pages::render(
        "records.html",
        context! {
            i, name => s.name.clone(), live, q => Serde(&query), t => Serde(&table),
            params => Serde(&params), prev => links.0, next => links.1,
            this => query.to_query_string(table.page),
        },
    ))
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
    let found = match blocking(move || read_at(&path, offset)).await {
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

/// The index of run `i` for its file as it is now, when one is ready; otherwise starts
/// building it in the background (one build per run at a time) for a run of at least
/// [`INDEX_MIN_BYTES`], and the caller reads the run meanwhile.
fn index_for(state: &AppState, i: usize, path: &Path) -> Option<Index> {
    let dir = state.index_dir.clone()?;
    let key = IndexKey::of(path).ok()?;
    if key.len < INDEX_MIN_BYTES {
        return None;
    }
    let mut indexes = state.indexes.lock().ok()?;
    match indexes.get(&i) {
        Some(IndexState::Ready(k, index)) if *k == key => return Some(index.clone()),
        Some(IndexState::Unindexed(k)) if *k == key => return None,
        Some(IndexState::Building) => return None,
        _ => {}
    }
    if let Some(index) = Index::open(&dir, &key) {
        indexes.insert(i, IndexState::Ready(key, index.clone()));
        return Some(index);
    }
    indexes.insert(i, IndexState::Building);
    let shared = state.indexes.clone();
    std::thread::spawn(move || {
        let built = Index::build(&dir, &key);
        let next = match built {
            Ok(Some(index)) => IndexState::Ready(key, index),
            Ok(None) => IndexState::Unindexed(key),
            Err(e) => {
                tracing::warn!(error = %e, "the run's index could not be built; its filters read the run");
                IndexState::Unindexed(key)
            }
        };
        if let Ok(mut indexes) = shared.lock() {
            indexes.insert(i, next);
        }
    });
    None
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
    let meta = std::fs::metadata(&s.path).ok();
    let key = meta.as_ref().map(|m| (m.len(), m.modified().ok()));
    if let Ok(cache) = state.overviews.lock()
        && let Some((len, modified, report)) = cache.get(&i)
        && Some((*len, *modified)) == key
    {
        return from_report(report);
    }
    if key.is_some_and(|(len, _)| len < INDEX_MIN_BYTES) {
        return overview(state, i, s).map_or(serde_json::Value::Null, |r| from_report(&r));
    }
    match index_for(state, i, &s.path) {
        Some(index) => view(index.params().to_vec()),
        None => serde_json::Value::Null,
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
    let view = blocking(move || {
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
