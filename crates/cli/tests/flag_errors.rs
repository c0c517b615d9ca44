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
fn a_file_flag_where_the_command_takes_a_file_points_at_the_argument() {
    let (code, stderr) = run(&["run", "--suite", "x.yaml"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("takes the file as an argument"), "{stderr}");
}
