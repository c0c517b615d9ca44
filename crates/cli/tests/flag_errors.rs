//! Issue 29: an unknown flag names the closest real flag of the command typed (not clap's
//! "to pass '--threshold' as a value, use '-- --threshold'"), shows that command's usage line
//! and exits 2 — for every subcommand.

use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_subcommand_points_an_unknown_flag_at_its_own_flag() {
    // (command, flag typed, flag the tip must name)
    let cases = [
        ("plan", "--sampel", "--sample"),
        ("scenarios", "--limt", "--limit"),
        ("run", "--jobs", "--concurrency"),
        ("run", "--output", "--out"),
        ("test", "--threshold", "--pass-score"),
        ("test", "--jobs", "--concurrency"),
        ("test", "--validate", "--dry-run"),
        ("report", "--htm", "--html"),
        ("diff", "--fail-of", "--fail-on"),
        ("merge", "--output", "--into"),
        ("status", "--jsn", "--json"),
        ("launch", "--jobs", "--workers"),
        ("export", "--output", "--out"),
        ("audit-judges", "--repeats", "--repeat"),
        ("schema", "--output", "--out"),
    ];
    for (command, typed, meant) in cases {
        let (code, stderr) = run(&[command, typed, "1"]);
        assert_eq!(code, Some(2), "{command} {typed}: {stderr}");
        assert!(
            stderr.contains(meant),
            "{command} {typed} names {meant}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("Usage: scenario-engine {command}")),
            "{command} {typed} shows its usage: {stderr}"
        );
        assert!(!stderr.contains("use '-- "), "{command} {typed}: {stderr}");
    }
}

#[test]
fn a_real_flag_after_double_dash_is_told_to_come_before_it() {
    let (code, stderr) = run(&["test", "suite.yaml", "--", "--pass-score"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--pass-score is a flag of `test`: put it before `--`"),
        "{stderr}"
    );
}

#[test]
fn a_file_flag_shows_the_command_s_own_usage() {
    let (code, stderr) = run(&["run", "--suite", "x.yaml"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("`scenario-engine run <CONFIG>`"),
        "{stderr}"
    );
    // Each command's tip shows that command's arguments, not a `COMMAND FILE` shape.
    for (command, usage) in [
        ("schema", "`scenario-engine schema <WHAT>`"),
        ("launch", "`scenario-engine launch <SCHEDULER> <RUN_DIR>`"),
        ("diff", "`scenario-engine diff <BEFORE> <AFTER>`"),
        ("status", "`scenario-engine status <RUN_DIR>`"),
        ("export", "`scenario-engine export <RUN>`"),
    ] {
        let (code, stderr) = run(&[command, "--config", "x.yaml"]);
        assert_eq!(code, Some(2), "{command}: {stderr}");
        assert!(stderr.contains(usage), "{command}: {stderr}");
        assert!(!stderr.contains("FILE`"), "{command}: {stderr}");
    }
}

/// clap read `-html` as `-h -t -m -l` and printed help with exit 0: a single-dash word is an
/// unknown flag, exit 2, with a tip naming the real flag.
#[test]
fn a_single_dash_word_is_an_unknown_flag_with_the_real_one_named() {
    let cases: [(&[&str], &str); 7] = [
        (&["report", "r.jsonl", "-html"], "--html"),
        (&["report", "r.jsonl", "-json", "x"], "--json"),
        (&["test", "s.yaml", "-json", "x"], "--json"),
        (&["test", "s.yaml", "-hello"], "--pass-score"),
        (&["run", "c.yaml", "-o", "x"], "--out"),
        (&["test", "s.yaml", "-j", "4"], "--concurrency"),
        (&["test", "s.yaml", "-o", "x"], "--json"),
    ];
    for (args, meant) in cases {
        let (code, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(meant), "{args:?} names {meant}: {stderr}");
        assert!(!stderr.contains("use '-- "), "{args:?}: {stderr}");
        assert!(
            stderr.contains("Usage: scenario-engine"),
            "{args:?}: {stderr}"
        );
    }
    // Help stays help.
    for args in [
        &["test", "-h"][..],
        &["test", "--help"],
        &["-h"],
        &["report", "x", "-h"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
            .args(args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Usage:"),
            "{args:?}"
        );
    }
}

#[test]
fn a_flag_before_the_command_is_told_to_go_after_it() {
    let (code, stderr) = run(&["--json", "test", "s.yaml"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("flags go after the command: `scenario-engine test s.yaml --json`"),
        "{stderr}"
    );
    assert!(!stderr.contains("before `--`"), "{stderr}");
}

/// A spelling hint only when it is close and not the opposite of what was asked; a flag of
/// another command is named as such.
#[test]
fn no_misleading_spelling_hints() {
    let (code, stderr) = run(&["run", "c.yaml", "--preflight"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains("did you mean --no-preflight"), "{stderr}");
    assert!(stderr.contains("by default"), "{stderr}");
    let (code, stderr) = run(&["test", "s.yaml", "--out", "x"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains("--bot"), "{stderr}");
    assert!(
        stderr.contains("--out is a flag of `run`/`export`"),
        "{stderr}"
    );
    assert!(stderr.contains("--json / --junit"), "{stderr}");
}

/// Tips clap gets wrong (issue 29 review): a negative value, `-V` on a command, a flag of `run`
/// given to `launch` before `--`, and a log filter tracing cannot read (was ignored, exit 0).
#[test]
fn negative_values_version_passed_on_flags_and_bad_log_filters() {
    for (args, tip) in [
        (
            &["test", "s.yaml", "--pass-score", "-1"][..],
            "--pass-score=-1",
        ),
        (&["run", "c.yaml", "--budget", "-1"], "--budget=-1"),
        (
            &["launch", "slurm", "rd", "--workers", "-1"],
            "--workers=-1",
        ),
        (&["test", "s.yaml", "-V"], "`scenario-engine --version`"),
        (
            &["launch", "slurm", "rd", "--concurrency", "4"],
            "go after `--`",
        ),
        (&["schema", "config", "--log=bad[[["], "not a log filter"),
    ] {
        let (code, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(tip), "{args:?}: {stderr}");
        assert!(!stderr.contains("use '--"), "{args:?}: {stderr}");
    }
}
