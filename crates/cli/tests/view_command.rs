//! `view`: prints the URL of a loopback server that serves the files given, warns when asked to
//! listen beyond loopback, and refuses a path that is not a results file (exit 2). The pages
//! themselves are tested in `crates/viewer/tests/server.rs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/runs")
        .join(path)
}

/// A started `view`, stopped (by its own handle) when dropped.
struct Viewer(Child);

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `view ARGS` and reads the URL it prints.
fn start(args: &[&str]) -> (Viewer, String, String) {
    let mut child = Command::new(BIN)
        .arg("view")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).expect("a line");
    let stderr = child.stderr.take().expect("stderr");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    // The warning, when there is one, is printed before the URL.
    let mut warning = String::new();
    if !url.contains("127.0.0.1") {
        BufReader::new(stderr)
            .read_line(&mut warning)
            .expect("a line");
    }
    (Viewer(child), url, warning)
}

/// `GET path` on `url`'s server: the status line and the body.
fn get(url: &str, path: &str) -> (String, String) {
    let host = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host");
    let mut stream = TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let status = response.lines().next().unwrap_or("").to_owned();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn view_prints_a_loopback_url_and_serves_the_files_given() {
    let run = fixture("pipeline-after.jsonl");
    let suite = fixture("suite-after.json");
    let (_viewer, url, _) = start(&[run.to_str().expect("utf-8"), suite.to_str().expect("utf-8")]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let (status, body) = get(&url, "/");
    assert!(status.contains("200"), "{status}");
    assert!(body.contains("pipeline-after.jsonl") && body.contains("suite-after.json"));
    let (status, _) = get(&url, "/run/0/records?status=accepted");
    assert!(status.contains("200"), "{status}");
    let (status, _) = get(&url, "/run/2");
    assert!(status.contains("404"), "{status}");
}

#[test]
fn compare_starts_on_the_comparison_page() {
    let (a, b) = (
        fixture("pipeline-before.jsonl"),
        fixture("pipeline-after.jsonl"),
    );
    let (_viewer, url, _) = start(&[
        a.to_str().expect("utf-8"),
        b.to_str().expect("utf-8"),
        "--compare",
    ]);
    assert!(url.ends_with("/compare/0/1"), "{url}");
    let (status, body) = get(&url, "/compare/0/1");
    assert!(
        status.contains("200") && body.contains("Verdict changed"),
        "{status}"
    );
}

#[test]
fn a_host_beyond_loopback_is_warned_about() {
    let run = fixture("pipeline-after.jsonl");
    let (_viewer, url, warning) = start(&[run.to_str().expect("utf-8"), "--host", "0.0.0.0"]);
    assert!(url.starts_with("http://0.0.0.0:"), "{url}");
    assert!(warning.contains("not loopback"), "{warning}");
}

#[test]
fn a_path_that_is_not_results_is_invalid_input() {
    let dir = tempfile::tempdir().expect("dir");
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not json\n").expect("write");
    for path in [
        notes,
        dir.path().join("missing.jsonl"),
        dir.path().to_owned(),
    ] {
        let out = Command::new(BIN)
            .arg("view")
            .arg(&path)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    }
}
