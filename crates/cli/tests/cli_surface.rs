//! The command-line surface itself: one meaning per flag name, typed values, exit codes from
//! `main`, credentials never shown, and the generated man page and completions.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(path)
}

/// The binary with no settings or OpenAI variables from this machine's environment.
fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") || key.starts_with("OPENAI_") {
            cmd.env_remove(key);
        }
    }
    cmd.args(args);
    cmd
}

fn run(cmd: &mut Command) -> (Option<i32>, String) {
    let out: Output = cmd.output().expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn credentials_in_the_base_url_never_reach_the_terminal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out.jsonl");
    let config = fixture("configs/example.yaml");
    // At every log level: the debug line announcing the client once quoted the URL whole.
    for level in ["warn", "debug", "trace"] {
        // Nothing listens on port 9: every call fails fast, without retries.
        let mut cmd = command(&[
            "--log",
            level,
            "run",
            config.to_str().expect("utf-8 path"),
            "--limit",
            "1",
            "--out",
            out.to_str().expect("utf-8 path"),
            "--base-url",
            "http://alice:hunter2@127.0.0.1:9/v1?api-key=sk-secret",
            "--api-key-env",
            "SCENARIO_ENGINE_TEST_NO_KEY",
        ]);
        cmd.env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "0");
        let (code, stderr) = run(&mut cmd);
        assert_eq!(code, Some(3), "{level}: {stderr}");
        assert!(stderr.contains("127.0.0.1:9/v1"), "{level}: {stderr}");
        assert!(!stderr.contains("hunter2"), "{level}: {stderr}");
        assert!(!stderr.contains("sk-secret"), "{level}: {stderr}");
    }
}

#[test]
fn the_accept_threshold_is_0_to_10_and_the_pass_score_0_to_100() {
    let config = fixture("configs/example.yaml");
    let (code, stderr) = run(&mut command(&[
        "plan",
        config.to_str().expect("utf-8 path"),
    ]));
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = run(&mut command(&[
        "run",
        config.to_str().expect("utf-8 path"),
        "--threshold",
        "70",
    ]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("0–10"), "{stderr}");
    let suite = fixture("suites/wallet-assistant.yaml");
    let (code, stderr) = run(&mut command(&[
        "test",
        suite.to_str().expect("utf-8 path"),
        "--threshold",
        "70",
    ]));
    assert_eq!(code, Some(2), "`test` has no --threshold: {stderr}");
    assert!(
        stderr.contains("`test` has no --threshold") && stderr.contains("--pass-score SCORE"),
        "the error points at the flag `test` has: {stderr}"
    );
    let (code, stderr) = run(&mut command(&[
        "test",
        suite.to_str().expect("utf-8 path"),
        "--pass-score",
        "101",
    ]));
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn enum_flags_list_their_values() {
    let config = fixture("configs/example.yaml");
    let (code, stderr) = run(&mut command(&[
        "run",
        config.to_str().expect("utf-8 path"),
        "--ratio-judge",
        "measure",
    ]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("measured, llm, hybrid"), "{stderr}");
}

#[test]
fn the_man_page_and_completions_generate() {
    for what in [
        "man",
        "complete-bash",
        "complete-zsh",
        "complete-fish",
        "complete-powershell",
        "complete-elvish",
    ] {
        let out = command(&["generate", what]).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{what}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("scenario-engine"), "{what}: {text}");
        assert!(
            text.contains("audit-judges") || text.contains("audit\\-judges"),
            "{what}: {text}"
        );
    }
}

/// A huge space whose first block is excluded lists and plans at once: the sequential walk jumps
/// over an excluded block instead of testing 10^16 excluded indices one by one (it hung).
#[test]
fn an_excluded_first_block_of_a_huge_space_is_skipped_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut yaml = String::from("axes:\n");
    for axis in 0..9 {
        let values: Vec<String> = (0..100).map(|v| format!("v{v}")).collect();
        yaml.push_str(&format!("  a{axis}: [{}]\n", values.join(", ")));
    }
    yaml.push_str("exclude:\n  - {a0: v0}\n");
    let config = dir.path().join("big.yaml");
    std::fs::write(&config, yaml).expect("config");
    let config = config.to_str().expect("utf-8 path");
    let out = command(&["scenarios", config, "--limit", "2"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 2);
    assert!(text.contains("\"index\":10000000000000000"), "{text}");
    let plan = command(&["plan", config]).output().expect("runs");
    assert_eq!(plan.status.code(), Some(0));
    // Token counts past u64 say so instead of printing the saturated ceiling as a count.
    let text = String::from_utf8_lossy(&plan.stdout);
    assert!(!text.contains(&u64::MAX.to_string()), "{text}");
    assert!(text.contains("too many to count"), "{text}");
}

/// A mistake in a config's `run:` section is located like any other config mistake: file, line,
/// column, a did-you-mean or the allowed values, exit 2 (it was an unlocated message naming an
/// internal type).
#[test]
fn run_section_mistakes_are_located_with_a_hint() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (text, at, hint) in [
        (
            "axes:\n  topic: [a, b]\nrun:\n  model: m\n  concurency: 3\n",
            ":5:3: error: unknown key `concurency`",
            "did you mean `concurrency`?",
        ),
        (
            "axes:\n  topic: [a, b]\nrun:\n  model: m\n  threshold: 42\n",
            ":5:3: error: `threshold` must be within 0–10",
            "",
        ),
        (
            "axes:\n  topic: [a, b]\nrun:\n  structured_mode: bogus\n",
            ":4:20: error: unknown value `bogus`",
            "`json_schema`",
        ),
        // Break-it findings: a gate that needs no switch, and configs with no parameters.
        (
            "axes:\n  topic: [a, b]\nrun:\n  gate:\n    min_switch_points: 0\n",
            ":5:5: error: `gate.min_switch_points` must be at least 1",
            "gate: {enabled: false}",
        ),
        (
            "name: x\n",
            ":1:1: error: the config defines no scenario parameters",
            "at least one axis",
        ),
        (
            "run:\n  threshold: 8\n",
            ":1:1: error: the config defines no scenario parameters",
            "at least one axis",
        ),
        (
            "name: x\naxes: {}\n",
            ":2:1: error: the config defines no scenario parameters",
            "at least one axis",
        ),
    ] {
        let config = dir.path().join("c.yaml");
        std::fs::write(&config, text).expect("config");
        let config = config.to_str().expect("utf-8");
        for args in [
            &["plan", config][..],
            &["run", config, "--out", "unused.jsonl"][..],
        ] {
            let sub = args[0];
            let out = command(args).output().expect("runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{sub}: {stderr}");
            assert!(
                stderr.contains(at) && stderr.contains(hint),
                "{sub}: {stderr}"
            );
        }
    }
}

/// Issue 27: `plan` printed "cost $293.88" without naming the model whose prices it used, and
/// had no `--model`. Now each model is named with the agents it plays, its prices and its cost;
/// an unknown price is said to be unknown, with how to give one.
#[test]
fn plan_names_the_models_and_prices_behind_its_cost() {
    let config = fixture("configs/example.yaml");
    let config = config.to_str().expect("utf-8");
    let stdout = |args: &[&str]| {
        let o = command(args).output().expect("the binary runs");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{text}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        text
    };
    let text = stdout(&["plan", config, "--model", "gpt-4o"]);
    assert!(
        text.contains(
            "gpt-4o (generator, fluency, naturalness, cs_ratio, socio_cultural, refiner): \
             $2.50/$10.00 per million prompt/completion tokens → $"
        ),
        "{text}"
    );
    let text = stdout(&["plan", config, "--model", "my-own-model"]);
    assert!(
        text.contains("cost unknown (no price for my-own-model)"),
        "{text}"
    );
    assert!(
        text.contains("my-own-model (generator, fluency, naturalness, cs_ratio, socio_cultural, refiner): no price known"),
        "{text}"
    );
}
