//! Tidy tests: the architecture invariants of ARCHITECTURE.md, checked on every
//! `cargo test --workspace` (in the spirit of rust-analyzer's `tidy.rs`).
//!
//! Each check reads the repository as text (Cargo manifests, sources, ARCHITECTURE.md) and fails
//! with a list of every violation, so one run tells the whole story. The one check that builds
//! (`each_library_builds_alone`) uses its own target directory, so it never waits on the lock of
//! the `cargo test` that runs it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use crate::LIBRARIES;

/// The workspace crates each crate may depend on (normal dependencies). Anything else is a back
/// edge or a new edge that ARCHITECTURE.md must first describe. Read top to bottom, every edge
/// points up this list: no crate depends on one below it.
pub(crate) const ALLOWED_EDGES: &[(&str, &[&str])] = &[
    ("stdx", &[]),
    ("codeswitch", &[]),
    ("grounding", &[]),
    ("scenarios", &["stdx"]),
    ("scoring", &["stdx"]),
    ("llm-client", &["stdx"]),
    ("runlog", &["stdx", "scoring"]),
    (
        "agents",
        &[
            "stdx",
            "scenarios",
            "scoring",
            "codeswitch",
            "llm-client",
            "runlog",
            "grounding",
        ],
    ),
    ("bottest", &["stdx", "scenarios", "scoring", "llm-client"]),
    ("reports", &["scoring", "codeswitch", "runlog"]),
    ("dataset", &["codeswitch", "runlog"]),
    ("taskrun", &["stdx", "scenarios", "runlog"]),
    ("viewer", &["scoring", "runlog", "reports"]),
    (
        "scenario-engine",
        &[
            "stdx",
            "scenarios",
            "scoring",
            "codeswitch",
            "llm-client",
            "runlog",
            "agents",
            "bottest",
            "reports",
            "dataset",
            "taskrun",
            "viewer",
        ],
    ),
    ("fixtures", &[]),
    ("xtask", &["fixtures", "runlog", "scoring"]),
];

/// Heavy third-party dependencies and the only crates that may name them in `[dependencies]`,
/// with whether there they must be optional (behind a feature). A library user who does not
/// need an idea never pays for its dependencies.
pub(crate) const HEAVY_DEPENDENCIES: &[(&str, &[(&str, bool)])] = &[
    // Six language models: code-switching measurement only.
    ("lingua", &[("codeswitch", false)]),
    // llama.cpp, built from source: the embedded model only.
    ("llama-cpp-2", &[("llm-client", true)]),
    // arrow-rs: Parquet export only.
    ("parquet", &[("dataset", true)]),
    ("arrow-array", &[("dataset", true)]),
    ("arrow-schema", &[("dataset", true)]),
    // Cloud SDKs: task runs on object stores only.
    ("object_store", &[("taskrun", true)]),
    // HTTP: the transport, the HTTP bot and the CLI.
    ("reqwest", &[("llm-client", false), ("bottest", false)]),
    // MCP: the grounding client, and the fixtures' article server.
    ("rmcp", &[("grounding", false), ("fixtures", false)]),
    // An async runtime: never in the crates that only compute or read files.
    (
        "tokio",
        &[
            ("llm-client", false),
            ("grounding", false),
            ("agents", false),
            ("bottest", false),
            ("taskrun", true),
            ("viewer", false),
            ("scenario-engine", false),
            ("fixtures", false),
            ("xtask", false),
        ],
    ),
];

/// No crate's sources (tests excluded) hold more than this share of all the libraries' and the
/// CLI's lines: one idea per crate, none a catch-all.
pub(crate) const MAX_CRATE_SHARE: f64 = 0.25;

/// Library functions over [`LONG_FUNCTION_LINES`] lines (tests excluded), as `file:function`:
/// the ones that existed when the limit came. A ratchet: a new long function fails, and a listed
/// one that got shorter must leave the list.
pub(crate) const LONG_FUNCTIONS: &[&str] = &[
    "crates/agents/src/driver.rs:drive",
    "crates/agents/src/estimate.rs:estimate",
    "crates/agents/src/machine.rs:rehearse_prompts",
    "crates/bottest/src/suite/load.rs:build_scenario",
    "crates/codeswitch/src/metrics.rs:from_words",
    "crates/dataset/src/lib.rs:write_splits",
    "crates/llm-client/src/client.rs:send",
    "crates/llm-client/src/client.rs:structured",
    "crates/reports/src/render.rs:new",
    "crates/reports/src/suite.rs:build",
    "crates/reports/src/terminal.rs:pipeline",
    "crates/reports/src/terminal.rs:run_end",
    "crates/scenarios/src/config.rs:into_config",
    "crates/scoring/src/expect/de.rs:visit_map",
    "crates/scoring/src/expect/eval.rs:not",
    "crates/scoring/src/expect/scope.rs:walk",
    "crates/taskrun/src/merge.rs:merge_run",
];

/// A library function longer than this is split (see [`LONG_FUNCTIONS`]).
pub(crate) const LONG_FUNCTION_LINES: usize = 100;

/// The reusable crates and the example of each, built by `cargo test` (which builds every
/// example) and so by CI: each shows the crate used alone.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
    ("scenarios", "expand.rs"),
    ("scoring", "score_transcript.rs"),
    ("codeswitch", "measure.rs"),
    ("llm-client", "chat.rs"),
    ("runlog", "read_run.rs"),
    ("grounding", "fetch.rs"),
    ("viewer", "serve.rs"),
];

/// The CLI is thin: its sources (tests excluded) stay under this many lines (report rendering,
/// the plan, the merge, the run sequence and the run settings live in the libraries). A ratchet:
/// lower it when the CLI shrinks, never raise it; new domain logic goes in a library.
pub(crate) const CLI_MAX_LINES: usize = 3000;

/// Macros and calls that print; only the CLI (and xtask) may use them.
const PRINTING: &[&str] = &[
    "println!",
    "eprintln!",
    "print!",
    "eprint!",
    "dbg!",
    "std::io::stdout",
    "std::io::stderr",
    "io::stdout()",
    "io::stderr()",
];

/// Every `.rs` file below `dir`, sorted.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The lines of a source file before its first `#[cfg(test)]` item (unit-test modules sit at
/// the end of a file in this workspace), with their 1-based numbers.
pub(crate) fn non_test_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// Normalised source line for duplicate detection: `None` for lines that carry no logic of
/// their own (blank, comments, lone punctuation, `use` lines, attributes).
fn significant(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty()
        || t.starts_with("//")
        || t.starts_with("#[")
        || t.starts_with("use ")
        || t.chars().all(|c| "{}()[];,".contains(c))
    {
        return None;
    }
    Some(t.to_string())
}

/// Runs of `window` significant lines that stand in more than one of `files` (by file and line).
pub(crate) fn repeated_blocks(files: &[(String, String)], window: usize) -> Vec<String> {
    let mut seen: HashMap<Vec<String>, (usize, usize)> = HashMap::new();
    // One report per pair of files (the first shared run), however long the run.
    let mut pairs: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for (fi, (_, text)) in files.iter().enumerate() {
        let lines: Vec<(usize, String)> = non_test_lines(text)
            .into_iter()
            .filter_map(|(n, l)| significant(l).map(|s| (n, s)))
            .collect();
        for w in lines.windows(window) {
            let key: Vec<String> = w.iter().map(|(_, s)| s.clone()).collect();
            match seen.get(&key) {
                Some(&(other, line)) if other != fi => {
                    pairs.entry((other, fi)).or_insert_with(|| {
                        format!("{}:{} ~ {}:{}", files[other].0, line, files[fi].0, w[0].0)
                    });
                }
                Some(_) => {}
                None => {
                    seen.insert(key, (fi, w[0].0));
                }
            }
        }
    }
    pairs.into_values().collect()
}

/// The `[dependencies]` (normal, not dev or build) workspace crates a manifest names.
pub(crate) fn workspace_dependencies(
    manifest: &str,
    workspace_crates: &[&str],
) -> BTreeSet<String> {
    let Ok(doc) = manifest.parse::<toml::Table>() else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::new();
    let mut tables: Vec<&toml::Table> = Vec::new();
    if let Some(deps) = doc.get("dependencies").and_then(|d| d.as_table()) {
        tables.push(deps);
    }
    // `[target.'cfg(..)'.dependencies]` count too.
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table()) {
        for t in targets.values() {
            if let Some(deps) = t.get("dependencies").and_then(|d| d.as_table()) {
                tables.push(deps);
            }
        }
    }
    for deps in tables {
        for name in deps.keys() {
            if workspace_crates.contains(&name.as_str()) {
                out.insert(name.clone());
            }
        }
    }
    out
}

/// The `### \`path\`` section of ARCHITECTURE.md for one crate folder, up to the next heading.
pub(crate) fn architecture_section<'a>(architecture: &'a str, folder: &str) -> Option<&'a str> {
    let heading = format!("### `{folder}`");
    let start = architecture.find(&heading)?;
    let rest = &architecture[start + heading.len()..];
    let end = rest.find("\n##").unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The functions of a source file (tests excluded) with their length in lines, from their
/// signature to the closing brace at their indentation (the workspace is `rustfmt`ed).
pub(crate) fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = non_test_lines(text).into_iter().map(|(_, l)| l).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some(name) = fn_name(trimmed) else {
            continue;
        };
        // A declaration without a body (trait method) ends with `;` before any `{`.
        let Some(open) = lines[i..]
            .iter()
            .position(|l| l.trim_end().ends_with('{') || l.trim_end().ends_with(';'))
        else {
            continue;
        };
        if lines[i + open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + open..].iter().position(|l| *l == close) {
            out.push((name, open + end + 1));
        }
    }
    out
}

/// The name of the function a (trimmed) line starts, if it starts one.
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line;
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The files of one crate's `src/` that each file names through `crate::…` or `super::…` (its
/// own module tree), resolved to the longest module path that is a file.
pub(crate) fn module_imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files = rust_files(src);
    let module_of = |file: &Path| -> Vec<String> {
        let inner = file.strip_prefix(src).unwrap_or(file);
        let mut parts: Vec<String> = inner
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if let Some(last) = parts.last_mut() {
            *last = last.trim_end_matches(".rs").to_owned();
        }
        if matches!(
            parts.last().map(String::as_str),
            Some("lib" | "main" | "mod")
        ) {
            parts.pop();
        }
        parts
    };
    let by_module: HashMap<Vec<String>, PathBuf> =
        files.iter().map(|f| (module_of(f), f.clone())).collect();
    let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in &files {
        let here = module_of(file);
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        for (_, line) in non_test_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            for (start, _) in code
                .match_indices("crate::")
                .chain(code.match_indices("super::"))
            {
                let path: Vec<&str> = code[start..]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .collect();
                let mut module: Vec<String> = match path.first() {
                    Some(&"crate") => Vec::new(),
                    _ => here[..here.len().saturating_sub(1)].to_vec(),
                };
                let mut rest = &path[1..];
                while rest.first() == Some(&"super") {
                    module.pop();
                    rest = &rest[1..];
                }
                let mut best = by_module.get(&module);
                for seg in rest {
                    module.push((*seg).to_owned());
                    if let Some(f) = by_module.get(&module) {
                        best = Some(f);
                    }
                }
                if let Some(target) = best.filter(|t| *t != file) {
                    out.entry(file.clone()).or_default().insert(target.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        crate::workspace_root()
    }

    fn rel(path: &Path) -> String {
        path.strip_prefix(root())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn read(path: &Path) -> String {
        fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Folders holding a crate, with the package name.
    fn crate_folders() -> Vec<(PathBuf, String)> {
        let mut out: Vec<(PathBuf, String)> = LIBRARIES
            .iter()
            .map(|(folder, name)| (root().join("crates").join(folder), (*name).to_string()))
            .collect();
        out.push((root().join("crates/cli"), "scenario-engine".into()));
        out.push((root().join("fixtures"), "fixtures".into()));
        out.push((root().join("xtask"), "xtask".into()));
        out
    }

    #[test]
    fn library_crates_never_print() {
        let mut offences = Vec::new();
        for (folder, _) in LIBRARIES {
            for file in rust_files(&root().join("crates").join(folder).join("src")) {
                let text = read(&file);
                for (n, line) in non_test_lines(&text) {
                    let code = line.split("//").next().unwrap_or("");
                    if PRINTING.iter().any(|p| code.contains(p)) {
                        offences.push(format!("{}:{n}: {}", rel(&file), line.trim()));
                    }
                }
            }
        }
        assert!(
            offences.is_empty(),
            "library crates return values and emit `tracing` events; only the CLI prints:\n{}",
            offences.join("\n")
        );
    }

    /// `print!`/`println!` (and `eprint!`/`eprintln!` for stderr) panic when the stream is a
    /// closed pipe (`… | head -1`, `… 2>&1 | head -1`: exit 101); the CLI writes stdout through
    /// `output.rs` (`out!`, `outln!`, `output::Stdout`), which ends quietly with the command's own
    /// exit code, and stderr through `errln!`. `commands/scenarios.rs` streams to a locked
    /// stdout and ends on `BrokenPipe` itself.
    #[test]
    fn cli_writes_stdout_only_through_its_output_guard() {
        const ALLOWED: &[&str] = &["output.rs", "scenarios.rs"];
        let mut offences = Vec::new();
        for file in rust_files(&root().join("crates/cli/src")) {
            if file
                .file_name()
                .is_some_and(|n| ALLOWED.contains(&n.to_string_lossy().as_ref()))
            {
                continue;
            }
            let text = read(&file);
            for (n, line) in non_test_lines(&text) {
                let code = line.split("//").next().unwrap_or("");
                let prints = ["print!", "println!", "eprint!", "eprintln!"]
                    .iter()
                    .any(|m| code.contains(m));
                if prints || code.contains("io::stdout()") {
                    offences.push(format!("{}:{n}: {}", rel(&file), line.trim()));
                }
            }
        }
        assert!(
            offences.is_empty(),
            "the CLI prints through `out!`/`outln!` (crates/cli/src/output.rs), which a closed \
             stdout cannot crash:\n{}",
            offences.join("\n")
        );
    }

    #[test]
    fn crate_graph_has_no_back_edges_and_fixtures_is_dev_only() {
        let names: Vec<&str> = ALLOWED_EDGES.iter().map(|(n, _)| *n).collect();
        let allowed: BTreeMap<&str, &[&str]> = ALLOWED_EDGES.iter().copied().collect();
        let mut offences = Vec::new();
        for (folder, name) in crate_folders() {
            let manifest = read(&folder.join("Cargo.toml"));
            let deps = workspace_dependencies(&manifest, &names);
            let ok = allowed.get(name.as_str()).copied().unwrap_or(&[]);
            for dep in deps {
                if !ok.contains(&dep.as_str()) {
                    offences.push(format!(
                        "{name} depends on {dep}: not an edge of ARCHITECTURE.md's crate graph{}",
                        if dep == "fixtures" {
                            " (fixtures is a dev-dependency only)"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
    }

    #[test]
    fn architecture_code_map_names_every_module() {
        let architecture = read(&root().join("ARCHITECTURE.md"));
        let mut missing = Vec::new();
        for (folder, _) in crate_folders() {
            let folder_name = rel(&folder);
            let Some(section) = architecture_section(&architecture, &folder_name) else {
                missing.push(format!(
                    "no section `### \\`{folder_name}\\`` in ARCHITECTURE.md"
                ));
                continue;
            };
            let src = folder.join("src");
            for file in rust_files(&src) {
                let inner = file.strip_prefix(&src).unwrap_or(&file);
                let stem = inner.file_name().and_then(|f| f.to_str()).unwrap_or("");
                if matches!(stem, "lib.rs" | "main.rs") {
                    continue;
                }
                // `a/mod.rs` is named as `a/`; `a/b.rs` as `b.rs`.
                let name = if stem == "mod.rs" {
                    match inner.parent().and_then(|p| p.file_name()) {
                        Some(dir) => format!("{}/", dir.to_string_lossy()),
                        None => continue,
                    }
                } else {
                    stem.to_string()
                };
                if !section.contains(&format!("`{name}")) && !section.contains(&format!("{name}`"))
                {
                    missing.push(format!(
                        "{}: not in the code map of `{folder_name}`",
                        rel(&file)
                    ));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "ARCHITECTURE.md's code map must name every module:\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn cli_crate_stays_thin() {
        let total: usize = rust_files(&root().join("crates/cli/src"))
            .iter()
            .map(|f| non_test_lines(&read(f)).len())
            .sum();
        assert!(
            total < CLI_MAX_LINES,
            "crates/cli/src has {total} lines (tests excluded), over the limit of {CLI_MAX_LINES}: \
             the CLI only parses, calls a library and renders; put domain logic (figures, \
             layouts, settings, rules) in a library crate"
        );
    }

    #[test]
    fn no_block_repeats_between_source_files() {
        let mut files = Vec::new();
        for (folder, _) in crate_folders() {
            for file in rust_files(&folder.join("src")) {
                files.push((rel(&file), read(&file)));
            }
        }
        let repeats = repeated_blocks(&files, 6);
        assert!(
            repeats.is_empty(),
            "blocks of six or more lines repeated between source files (make one piece of code \
             serve both):\n{}",
            repeats.join("\n")
        );
    }

    #[test]
    fn ci_has_one_definition() {
        let text = read(&root().join(".ci/run"));
        let script: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        // `cargo xtask ci`, or the xtask binary built with the workspace's features and run
        // with `ci`.
        assert!(
            script.contains("cargo xtask ci")
                || (script.contains("--workspace --bin xtask") && script.contains("/xtask\" ci")),
            ".ci/run must call `cargo xtask ci`, the one definition of CI (xtask/src/ci.rs)"
        );
        for step in [
            "clippy --workspace",
            "clippy --release",
            "cargo test",
            "fetch-model",
        ] {
            assert!(
                !script.contains(step),
                ".ci/run runs `{step}` itself: CI steps belong in xtask/src/ci.rs"
            );
        }
    }

    #[test]
    fn repeated_blocks_are_found_across_files_only() {
        let block = "let a = 1;\nlet b = 2;\nlet c = 3;\nlet d = 4;\nlet e = 5;\nlet f = 6;\n";
        let files = vec![
            ("x.rs".to_string(), format!("fn x() {{\n{block}}}\n")),
            ("y.rs".to_string(), format!("fn y() {{\n{block}}}\n")),
            (
                "z.rs".to_string(),
                format!("fn z() {{\n{block}}}\nfn w() {{\n{block}}}\n"),
            ),
        ];
        let found = repeated_blocks(&files, 6);
        assert_eq!(found, vec!["x.rs:2 ~ y.rs:2", "x.rs:2 ~ z.rs:2"]);
        // A block repeated inside one file, or only in a test module, is not reported.
        let files = vec![
            (
                "z.rs".to_string(),
                format!("fn z() {{\n{block}}}\nfn w() {{\n{block}}}\n"),
            ),
            (
                "t.rs".to_string(),
                format!("fn t() {{}}\n#[cfg(test)]\nmod tests {{\n{block}}}\n"),
            ),
        ];
        assert!(repeated_blocks(&files, 6).is_empty());
    }

    #[test]
    fn graph_parser_reads_normal_dependencies_only() {
        let manifest = r#"
[dependencies]
scoring.workspace = true
serde = "1"
[dev-dependencies]
fixtures.workspace = true
[target.'cfg(unix)'.dependencies]
agents = { path = "../agents" }
"#;
        let deps = workspace_dependencies(manifest, &["scoring", "fixtures", "agents"]);
        assert_eq!(
            deps.into_iter().collect::<Vec<_>>(),
            vec!["agents".to_string(), "scoring".to_string()]
        );
    }

    /// Each library crate builds on its own with its default features (no feature borrowed from
    /// a sibling through workspace feature unification). Uses `target/tidy` so it does not wait
    /// for the lock held by the `cargo test` running it; `cargo check` only.
    #[test]
    fn each_library_builds_alone() {
        if std::env::var_os(crate::ci::LIBRARIES_CHECKED_ALONE).is_some() {
            // `cargo xtask ci` ran clippy on each library alone just before, in the shared target
            // directory: checking them again here would build the dependency tree a second time.
            return;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let target = root().join("target").join("tidy");
        let mut failures = Vec::new();
        for (_, name) in LIBRARIES {
            let out = std::process::Command::new(&cargo)
                .args(["check", "--quiet", "--locked", "--lib", "-p", name])
                .env("CARGO_TARGET_DIR", &target)
                .current_dir(root())
                .output()
                .expect("cargo can be started");
            if !out.status.success() {
                failures.push(format!(
                    "`cargo check -p {name}` alone failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The library crates' folders and the CLI's: the code the crate checks measure.
    fn code_folders() -> Vec<PathBuf> {
        let mut folders: Vec<PathBuf> = LIBRARIES
            .iter()
            .map(|(folder, _)| root().join("crates").join(folder))
            .collect();
        folders.push(root().join("crates/cli"));
        folders
    }

    #[test]
    fn no_crate_holds_more_than_a_quarter_of_the_lines() {
        let lines: Vec<(String, usize)> = code_folders()
            .iter()
            .map(|folder| {
                let n = rust_files(&folder.join("src"))
                    .iter()
                    .map(|f| non_test_lines(&read(f)).len())
                    .sum();
                (rel(folder), n)
            })
            .collect();
        let total: usize = lines.iter().map(|(_, n)| n).sum();
        let over: Vec<String> = lines
            .iter()
            .filter(|(_, n)| *n as f64 > MAX_CRATE_SHARE * total as f64)
            .map(|(name, n)| {
                format!(
                    "{name}: {n} of {total} lines ({:.0}%)",
                    100.0 * *n as f64 / total as f64
                )
            })
            .collect();
        assert!(
            over.is_empty(),
            "a crate holds more than {:.0}% of the code: split it by idea\n{}",
            MAX_CRATE_SHARE * 100.0,
            over.join("\n")
        );
    }

    /// Two files that import each other are one idea in two places, or two ideas tangled: move
    /// the shared names to where both can take them. The embedded engine's two halves
    /// (`llm-client/src/local/`: llama.cpp calls and the scheduler that owns the context) are
    /// the one pair allowed.
    #[test]
    fn no_two_file_import_circles() {
        let mut circles = Vec::new();
        for folder in code_folders() {
            let imports = module_imports(&folder.join("src"));
            for (a, targets) in &imports {
                for b in targets {
                    let back = imports.get(b).is_some_and(|t| t.contains(a));
                    let allowed = rel(a).starts_with("crates/llm-client/src/local/")
                        && rel(b).starts_with("crates/llm-client/src/local/");
                    if back && a < b && !allowed {
                        circles.push(format!("{} <-> {}", rel(a), rel(b)));
                    }
                }
            }
        }
        assert!(
            circles.is_empty(),
            "files that import each other:\n{}",
            circles.join("\n")
        );
    }

    #[test]
    fn no_new_long_library_functions() {
        let mut long = BTreeSet::new();
        for (folder, _) in LIBRARIES {
            for file in rust_files(&root().join("crates").join(folder).join("src")) {
                for (name, n) in function_lengths(&read(&file)) {
                    if n > LONG_FUNCTION_LINES {
                        long.insert(format!("{}:{name}", rel(&file)));
                    }
                }
            }
        }
        let listed: BTreeSet<String> = LONG_FUNCTIONS.iter().map(|s| (*s).to_owned()).collect();
        let new: Vec<&String> = long.difference(&listed).collect();
        let gone: Vec<&String> = listed.difference(&long).collect();
        assert!(
            new.is_empty(),
            "library functions over {LONG_FUNCTION_LINES} lines: split them\n{}",
            new.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert!(
            gone.is_empty(),
            "no longer over {LONG_FUNCTION_LINES} lines (or gone): remove from LONG_FUNCTIONS\n{}",
            gone.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    #[test]
    fn heavy_dependencies_only_where_declared() {
        let mut offences = Vec::new();
        for (folder, name) in crate_folders() {
            let manifest = read(&folder.join("Cargo.toml"));
            let Ok(doc) = manifest.parse::<toml::Table>() else {
                offences.push(format!("{name}: Cargo.toml does not parse"));
                continue;
            };
            let Some(deps) = doc.get("dependencies").and_then(|d| d.as_table()) else {
                continue;
            };
            for (heavy, allowed) in HEAVY_DEPENDENCIES {
                let Some(dep) = deps.get(*heavy) else {
                    continue;
                };
                let optional = dep
                    .get("optional")
                    .and_then(toml::Value::as_bool)
                    .unwrap_or(false);
                match allowed.iter().find(|(c, _)| *c == name) {
                    None => offences.push(format!("{name} depends on {heavy}")),
                    Some((_, true)) if !optional => {
                        offences.push(format!("{name} depends on {heavy} without a feature"));
                    }
                    Some(_) => {}
                }
            }
        }
        assert!(
            offences.is_empty(),
            "heavy dependencies outside the crates that own their idea (tidy.rs, \
             HEAVY_DEPENDENCIES):\n{}",
            offences.join("\n")
        );
    }

    /// Each crate's integration tests are modules of one test binary, `tests/it.rs`
    /// (`autotests = false`): one link per crate instead of one per file. A file under `tests/`
    /// that is neither a module of `it.rs` nor a target of its own would never be compiled.
    #[test]
    fn integration_tests_are_one_binary_per_crate() {
        let mut offences = Vec::new();
        for (folder, _) in crate_folders() {
            let tests = folder.join("tests");
            let Ok(entries) = fs::read_dir(&tests) else {
                continue;
            };
            let manifest = read(&folder.join("Cargo.toml"));
            if !manifest.contains("autotests = false") {
                offences.push(format!("{}: no `autotests = false`", rel(&folder)));
            }
            let it = fs::read_to_string(tests.join("it.rs")).unwrap_or_default();
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(stem) = name.strip_suffix(".rs") else {
                    continue;
                };
                let declared = stem == "it"
                    || it.lines().any(|l| l.trim() == format!("mod {stem};"))
                    || manifest.contains(&format!("path = \"tests/{name}\""));
                if !declared {
                    offences.push(format!(
                        "{}: neither `mod {stem};` in tests/it.rs nor a [[test]] target",
                        rel(&entry.path())
                    ));
                }
            }
        }
        assert!(offences.is_empty(), "{}", offences.join("\n"));
    }

    #[test]
    fn each_reusable_crate_has_an_example() {
        let missing: Vec<String> = EXAMPLES
            .iter()
            .filter(|(folder, file)| {
                !root()
                    .join("crates")
                    .join(folder)
                    .join("examples")
                    .join(file)
                    .exists()
            })
            .map(|(folder, file)| format!("crates/{folder}/examples/{file}"))
            .collect();
        assert!(
            missing.is_empty(),
            "missing examples: {}",
            missing.join(", ")
        );
    }

    #[test]
    fn function_lengths_and_imports_are_read_from_the_text() {
        let text = "fn a() {\n    1;\n}\n\npub(crate) async fn b(\n    x: u8,\n) {\n}\ntrait T {\n    fn c(&self);\n}\n#[cfg(test)]\nfn d() {\n}\n";
        assert_eq!(
            function_lengths(text),
            vec![("a".to_owned(), 3), ("b".to_owned(), 4)]
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let src = dir.path();
        fs::create_dir_all(src.join("m")).expect("dir");
        fs::write(src.join("lib.rs"), "mod a;\nmod m;\n").expect("write");
        fs::write(src.join("a.rs"), "use crate::m::b::Thing;\n").expect("write");
        fs::write(src.join("m/mod.rs"), "pub mod b;\n").expect("write");
        fs::write(src.join("m/b.rs"), "use super::super::a::X;\n").expect("write");
        let imports = module_imports(src);
        assert!(imports[&src.join("a.rs")].contains(&src.join("m/b.rs")));
        assert!(imports[&src.join("m/b.rs")].contains(&src.join("a.rs")));
    }
}
