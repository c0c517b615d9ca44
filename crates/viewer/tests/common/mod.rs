//! What the viewer's HTTP tests share: the fixture runs, a viewer started on a free port, and
//! GET requests.
#![allow(dead_code, reason = "each test file uses the helpers it needs")]

use std::path::{Path, PathBuf};

use viewer::{ViewArgs, bind};

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/runs")
        .join(name)
}

/// Starts a viewer over `paths` (indexes in `index_dir`); returns its base URL (no slash).
pub(crate) async fn start_with(
    paths: Vec<PathBuf>,
    host: &str,
    index_dir: Option<PathBuf>,
) -> String {
    let args = ViewArgs {
        paths,
        host: host.to_owned(),
        port: 0,
        open: false,
        compare: false,
        index_dir,
    };
    let bound = bind(&args).await.expect("bind");
    let url = bound.url().trim_end_matches('/').to_owned();
    tokio::spawn(bound.serve(std::future::pending()));
    url
}

/// Starts a viewer over `paths` on loopback; returns its base URL (no trailing slash).
pub(crate) async fn start(paths: Vec<PathBuf>) -> String {
    start_with(paths, "127.0.0.1", None).await
}

pub(crate) async fn get(url: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let response = reqwest::get(url).await.expect("request");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.expect("body"))
}

/// The body of a GET that must answer 200.
pub(crate) async fn body(url: &str) -> String {
    let (status, _, body) = get(url).await;
    assert_eq!(status, 200, "{url}: {body}");
    body
}
