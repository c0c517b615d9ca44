//! API keys never reach a log line or a file. Its own test binary: tracing caches each event
//! site's interest process-wide, so a capturing subscriber set for one test while other tests
//! run on other threads may miss events; alone in its process, the capture sees them all.

use crate::common;

use std::sync::{Arc, Mutex};

use common::{fast_config, text_request, verdict_request};
use fixtures::{FakeConfig, FakeServer, Fault};
use llm_client::{ChatModel, Client};

/// Collects formatted tracing output in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_key_appears_in_no_log_line_and_no_fixture_file() {
    const KEY: &str = "sk-test-SECRET-4f9c2a7e";
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // Current-thread test runtime: the thread-local default sees the client and every library.
    let _guard = tracing::subscriber::set_default(subscriber);

    let record_dir = tempfile::tempdir().expect("tempdir");
    let cache_dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeServer::start(
        FakeConfig::default()
            .with_api_key(KEY)
            .with_script([Fault::ServerError, Fault::BrokenJson]),
    )
    .await
    .expect("fake");
    let mut cfg = fast_config(&fake.base_url());
    cfg.record_dir = Some(record_dir.path().to_path_buf());
    cfg.cache_dir = Some(cache_dir.path().to_path_buf());
    cfg.provider
        .headers
        .insert("x-custom-token".into(), KEY.into());
    let client = Client::with_api_key(cfg.clone(), KEY).expect("client");
    client
        .chat(verdict_request(1))
        .await
        .expect("retried and repaired");
    client.chat(text_request(2)).await.expect("plain call");
    // A failing call too: wrong key → 401.
    let wrong = Client::with_api_key(cfg, format!("{KEY}-wrong")).expect("client");
    wrong.chat(text_request(3)).await.expect_err("401");

    let logs = String::from_utf8_lossy(
        &captured
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
    .into_owned();
    assert!(
        logs.contains("retrying"),
        "the capture saw the client's events"
    );
    assert!(!logs.contains(KEY), "API key leaked into logs");

    let mut files = 0;
    for dir in [record_dir.path(), cache_dir.path()] {
        for path in walk(dir) {
            let text = std::fs::read_to_string(&path).expect("readable");
            assert!(
                !text.contains(KEY),
                "API key leaked into {}",
                path.display()
            );
            files += 1;
        }
    }
    assert_eq!(files, 4, "two recordings and two cache entries");
    let recording = std::fs::read_dir(record_dir.path())
        .expect("dir")
        .flatten()
        .next()
        .expect("a recording");
    let text = std::fs::read_to_string(recording.path()).expect("read");
    assert!(
        text.contains("[redacted]"),
        "credentials are shown as redacted"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
