//! `cargo xtask screenshot [--html FILE] [--png FILE]`: renders the HTML report of a fixture run
//! in headless Chromium (Debian's `chromium`) to a PNG, and fails when the render is empty or
//! blank (a tiny file, or every pixel one colour), so a broken report cannot slip into the README.
//!
//! Without `--html` the report is first built from `fixtures/runs/pipeline-before.jsonl` with the
//! `scenario-engine report` binary (built by `cargo run`), and the viewer's pages are captured
//! too, beside the report's PNG: `scenario-engine view` (the debug binary) over
//! `fixtures/runs/pipeline-after.jsonl` and `fixtures/runs/suite-after.json`, its overview
//! (`viewer-overview.png`), the records table filtered to the rejected records
//! (`viewer-records.png`), a record page (`viewer-record.png`) and the suite page
//! (`viewer-suite.png`), each at `--viewer-window-size`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};

/// Flags of `cargo xtask screenshot`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The HTML report to render (default: the report of `fixtures/runs/pipeline-before.jsonl`).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Where to write the PNG.
    #[arg(long, default_value = "docs/img/report.png")]
    pub png: PathBuf,
    /// Browser window size, `WIDTH,HEIGHT`.
    #[arg(long, default_value = "1280,2400")]
    pub window_size: String,
    /// Browser window size of the viewer's pages, `WIDTH,HEIGHT`.
    #[arg(long, default_value = "1280,900")]
    pub viewer_window_size: String,
    /// The Chromium binary.
    #[arg(long, default_value = "chromium")]
    pub chromium: String,
}

/// A PNG smaller than this cannot hold a real page at 1280 px wide.
const MIN_PNG_BYTES: u64 = 10 * 1024;

/// Runs the command.
///
/// # Errors
/// When the report cannot be built, Chromium fails or is missing, or the render is blank.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let tmp = std::env::temp_dir().join(format!("xtask-screenshot-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let result = render(&args, &root, &tmp);
    // The profile directory is Chromium's scratch space; remove it whatever happened.
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn render(args: &Args, root: &Path, tmp: &Path) -> anyhow::Result<()> {
    let html = match &args.html {
        Some(p) => p.clone(),
        None => build_fixture_report(root, tmp)?,
    };
    let html = std::fs::canonicalize(&html).with_context(|| format!("{}", html.display()))?;
    let png = if args.png.is_absolute() {
        args.png.clone()
    } else {
        root.join(&args.png)
    };
    let url = format!("file://{}", html.display());
    capture(args, tmp, &url, &png, &args.window_size)?;
    if args.html.is_none() {
        let dir = png.parent().unwrap_or(root);
        capture_viewer(args, root, tmp, dir)?;
    }
    Ok(())
}

/// The viewer's pages, each to `dir/viewer-NAME.png`.
fn capture_viewer(args: &Args, root: &Path, tmp: &Path, dir: &Path) -> anyhow::Result<()> {
    let runs = root.join("fixtures/runs");
    let run = runs.join("pipeline-after.jsonl");
    // A rejected record: its page shows the judges' feedback on what went wrong.
    let text = std::fs::read_to_string(&run).with_context(|| format!("{}", run.display()))?;
    let mut offset = 0;
    for line in text.lines() {
        if line.contains("\"accepted\":false") {
            break;
        }
        offset += line.len() + 1;
    }
    let mut command = Command::new(crate::export_check::debug_binary(root)?);
    command
        .arg("view")
        .arg(&run)
        .arg(runs.join("suite-after.json"))
        // No index is built for a fixture run; the cache stays out of the user's.
        .env("XDG_CACHE_HOME", tmp.join("cache"));
    let (_viewer, url) = crate::browser::spawn_viewer(command)?;
    for (name, page) in [
        ("overview", "/run/0".to_owned()),
        (
            "records",
            "/run/0/records?status=rejected&sort=score".to_owned(),
        ),
        ("record", format!("/run/0/record/{offset}")),
        ("suite", "/suite/1".to_owned()),
    ] {
        let png = dir.join(format!("viewer-{name}.png"));
        capture(
            args,
            tmp,
            &format!("{url}{page}"),
            &png,
            &args.viewer_window_size,
        )?;
    }
    Ok(())
}

/// Chromium's screenshot of `url` at `window_size` to `png`; fails on a blank render.
fn capture(
    args: &Args,
    tmp: &Path,
    url: &str,
    png: &Path,
    window_size: &str,
) -> anyhow::Result<()> {
    if let Some(dir) = png.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let _ = std::fs::remove_file(png);
    let status = Command::new(&args.chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", tmp.join("profile").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={window_size}"))
        .arg(url)
        .status()
        .with_context(|| {
            format!(
                "starting `{}` (Debian: apt-get install -y chromium)",
                args.chromium
            )
        })?;
    ensure!(status.success(), "chromium exited with {status}");
    check_not_blank(png)?;
    println!("{}", png.display());
    Ok(())
}

fn build_fixture_report(root: &Path, tmp: &Path) -> anyhow::Result<PathBuf> {
    let html = tmp.join("report.html");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .current_dir(root)
        .args(["run", "--quiet", "-p", "scenario-engine", "--", "report"])
        .arg(root.join("fixtures/runs/pipeline-before.jsonl"))
        .arg("--html")
        .arg(&html)
        .stdout(std::process::Stdio::null())
        .status()
        .context("running `scenario-engine report`")?;
    ensure!(
        status.success(),
        "`scenario-engine report` exited with {status}"
    );
    Ok(html)
}

/// Fails on a missing, tiny or single-colour PNG.
fn check_not_blank(png: &Path) -> anyhow::Result<()> {
    let size = std::fs::metadata(png)
        .with_context(|| format!("chromium wrote no {}", png.display()))?
        .len();
    ensure!(
        size >= MIN_PNG_BYTES,
        "{} is only {size} bytes: an empty render",
        png.display()
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png).with_context(|| format!("opening {}", png.display()))?,
    ));
    let mut reader = decoder.read_info().context("reading the PNG header")?;
    let mut buf = vec![0; reader.output_buffer_size().context("PNG too large")?];
    let info = reader.next_frame(&mut buf).context("decoding the PNG")?;
    let bytes = &buf[..info.buffer_size()];
    let pixel = info.color_type.samples()
        * match info.bit_depth {
            png::BitDepth::Sixteen => 2,
            _ => 1,
        };
    ensure!(pixel > 0 && bytes.len() >= pixel, "the PNG has no pixels");
    let first = &bytes[..pixel];
    let distinct = bytes.chunks_exact(pixel).filter(|p| *p != first).count();
    if distinct == 0 {
        bail!("{} is blank: every pixel is the same colour", png.display());
    }
    Ok(())
}
