//! A local, read-only web viewer of run outputs and bot-suite results (`scenario-engine view`).
//!
//! - [`source`]: the files it was given, each addressed by its position (never by a path from
//!   the request): pipeline runs (with their errors files), task-run directories' parts,
//!   suite results.
//! - [`query`]: a records table's filters and sort, read from the query string.
//! - [`table`]: one page of a run's records, streamed (one page plus counts in memory, or
//!   24 bytes per matching record when sorted), or from the run's [`index`] (cached outside the
//!   run's folder, keyed by path, size and modification time); [`record`]: one record read at
//!   its offset.
//! - [`suite`]: a suite's scenarios filtered (failures, passes, errors, flaky, low confidence).
//! - [`pages`]: the HTML (minijinja, autoescaped; templates in `templates/`); [`server`]: the
//!   axum routes and the security headers (Content-Security-Policy, nosniff, no referrer).
//!
//! The overview, the failures table and the comparison are `reports`' own figures. Nothing is
//! ever written next to a run: the viewer reads runs, and writes only indexes, in the cache
//! directory it is given.

pub mod index;
pub mod overview;
pub mod pages;
pub mod query;
pub mod record;
pub mod server;
pub mod source;
pub mod suite;
pub mod table;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

pub use server::router;
pub use source::{Source, SourceKind, Sources};

/// Why the viewer could not start.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// A path given is not a results file the viewer reads.
    #[error("{}: {message}", path.display())]
    Source {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No path given.
    #[error(
        "no results to view: give a run output (JSONL), a task-run directory or a suite result"
    )]
    Nothing,
    /// `--compare` needs two runs (or two suites).
    #[error("--compare takes exactly two results files of one kind (two runs or two suites)")]
    Compare,
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// `--host` is neither an IP address nor `localhost`.
    #[error("--host {0}: give an IP address (127.0.0.1, ::1, 0.0.0.0) or `localhost`")]
    Host(String),
    /// The server stopped with an error.
    #[error("the viewer's server stopped: {0}")]
    Serve(#[source] std::io::Error),
}

/// What `view` is asked to show and where.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct ViewArgs {
    /// Run outputs (JSONL; their errors files are read beside them), task-run directories
    /// (their `parts/*.jsonl`) or suite results (`test --json`).
    #[cfg_attr(feature = "clap", arg(required = true))]
    pub paths: Vec<PathBuf>,
    /// Address to listen on (an IP address or `localhost`); anything but loopback shows the
    /// runs to the network (a warning).
    #[cfg_attr(feature = "clap", arg(long, default_value = "127.0.0.1"))]
    pub host: String,
    /// Port to listen on; 0 picks a free one.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub port: u16,
    /// Open the viewer in the default browser (best effort).
    #[cfg_attr(feature = "clap", arg(long))]
    pub open: bool,
    /// Start on the comparison of the two paths given (the `diff` figures, then the
    /// scenarios whose verdict changed).
    #[cfg_attr(feature = "clap", arg(long))]
    pub compare: bool,
    /// Where run indexes are cached (outside the runs' folders; the application's cache
    /// directory). `None`: no index, every filter reads the run.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub index_dir: Option<PathBuf>,
}

/// A listening viewer, not serving yet.
#[derive(Debug)]
pub struct Bound {
    listener: tokio::net::TcpListener,
    sources: Sources,
    index_dir: Option<PathBuf>,
    hosts: server::Hosts,
    url: String,
    warning: Option<String>,
}

impl Bound {
    /// The URL to open (the comparison page with `--compare`).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A warning for the user: the address is not loopback.
    #[must_use]
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    /// Serves until `shutdown` completes.
    ///
    /// # Errors
    /// [`ViewError::Serve`] when the server fails.
    pub async fn serve(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ViewError> {
        axum::serve(
            self.listener,
            router(self.sources, self.index_dir, self.hosts),
        )
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(ViewError::Serve)
    }
}

/// Opens the sources of `args` and binds the address: nothing is served until
/// [`Bound::serve`].
///
/// # Errors
/// [`ViewError`]: an unreadable or unknown path, a bad `--compare`, an address in use.
pub async fn bind(args: &ViewArgs) -> Result<Bound, ViewError> {
    let sources = Sources::open(&args.paths)?;
    if args.compare && !sources.comparable(0, 1) {
        return Err(ViewError::Compare);
    }
    let ip: IpAddr = if args.host.eq_ignore_ascii_case("localhost") {
        IpAddr::from([127, 0, 0, 1])
    } else {
        args.host
            .parse()
            .map_err(|_| ViewError::Host(args.host.clone()))?
    };
    let addr = SocketAddr::new(ip, args.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ViewError::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| ViewError::Bind { addr, source })?;
    let page = if args.compare { "compare/0/1" } else { "" };
    let url = format!("http://{local}/{page}");
    let hosts = server::Hosts::new(local, &args.host);
    let warning = (!ip.is_loopback()).then(|| {
        format!(
            "listening on {}, not loopback: anyone who can reach this address can read these \
             runs (there is no login)",
            args.host
        )
    });
    tracing::info!(%url, sources = sources.len(), "viewer listening");
    Ok(Bound {
        listener,
        sources,
        index_dir: args.index_dir.clone(),
        hosts,
        url,
        warning,
    })
}

/// Opens `url` in the default browser (best effort: `xdg-open`, `open` or `start`, whichever
/// this system has), without waiting for it.
///
/// # Errors
/// The launcher could not be started.
pub fn open_browser(url: &str) -> std::io::Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}
