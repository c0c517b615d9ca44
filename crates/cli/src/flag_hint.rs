//! Unknown-flag errors that point at the right flag of the command typed (issue 29): clap's own
//! tip for an unknown flag is often "to pass '--threshold' as a value, use '-- --threshold'",
//! which leads nowhere. Here the tip names the closest real flag of *that* subcommand — first
//! from a small table of flags users bring from other commands and peer tools, then by
//! spelling (`stdx::closest`) — or says that a flag given after `--` belongs before it. The
//! error keeps clap's layout and usage line and exits 2.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// Flags typed from habit, with what they may mean here, in order of preference: the first
/// that the command has is named. `None` in the command slot: any command.
const SYNONYMS: &[(Option<&str>, &str, &[&str])] = &[
    (Some("test"), "threshold", &["pass-score"]),
    (
        None,
        "threshold",
        &["pass-score", "threshold", "min-score-delta"],
    ),
    (
        None,
        "min-score",
        &["pass-score", "threshold", "min-score-delta"],
    ),
    (None, "pass-threshold", &["pass-score", "threshold"]),
    (None, "output", &["out", "json", "into", "html"]),
    (None, "output-file", &["out", "json", "into"]),
    (None, "jobs", &["concurrency", "workers"]),
    (None, "parallel", &["concurrency", "workers"]),
    (None, "concurrency", &["workers"]),
    (None, "workers", &["concurrency"]),
    (None, "max-concurrency", &["concurrency", "workers"]),
    (None, "retries", &["repeat"]),
    (None, "runs", &["repeat"]),
    (None, "suite", &[]),
    (None, "input", &[]),
    (None, "file", &[]),
    (None, "config", &["config"]),
    (None, "validate", &["dry-run"]),
    (None, "check", &["dry-run", "self-check"]),
    (None, "temperature", &[]),
];

/// Notes that explain a synonym beyond naming the flag.
fn note(command: &str, flag: &str) -> Option<&'static str> {
    match (command, flag) {
        ("test", "threshold") => Some(
            "`test` has no --threshold (that is the pipeline's accept threshold, 0–10); a \
             suite's passing score is --pass-score SCORE (0–100)",
        ),
        _ => None,
    }
}

/// The tip for `flag` (without dashes or `=value`) on `command`, whose long flags are `longs`
/// and which takes positional arguments when `positional`.
#[must_use]
pub(crate) fn hint(command: &str, flag: &str, longs: &[&str], positional: bool) -> String {
    if longs.contains(&flag) {
        return format!("--{flag} is a flag of `{command}`: put it before `--`, not after");
    }
    if let Some(note) = note(command, flag) {
        return note.to_owned();
    }
    for (only, typed, meant) in SYNONYMS {
        if *typed != flag || only.is_some_and(|c| c != command) {
            continue;
        }
        if let Some(real) = meant.iter().find(|m| longs.contains(m)) {
            return format!("`{command}` has no --{flag}; did you mean --{real}?");
        }
        if positional && ["suite", "input", "file", "config"].contains(&flag) {
            return format!(
                "`{command}` takes the file as an argument, not --{flag}: `scenario-engine {command} FILE`"
            );
        }
    }
    match stdx::closest(flag, longs.iter().copied()) {
        Some(near) => format!("`{command}` has no --{flag}; did you mean --{near}?"),
        None => format!(
            "`{command}` has no --{flag}; its flags: {}",
            longs
                .iter()
                .map(|l| format!("--{l}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Replaces the tip of an unknown-argument error by [`hint`]; any other error is returned as is.
#[must_use]
pub(crate) fn improve(error: clap::Error, root: &clap::Command, argv: &[String]) -> clap::Error {
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let Some(ContextValue::String(invalid)) = error.get(ContextKind::InvalidArg) else {
        return error;
    };
    let Some(name) = invalid.strip_prefix("--") else {
        return error;
    };
    let name = name.split('=').next().unwrap_or(name).to_owned();
    let Some(sub) = argv
        .iter()
        .skip(1)
        .find_map(|a| root.get_subcommands().find(|s| s.get_name() == a))
    else {
        return error;
    };
    let longs: Vec<&str> = sub
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(clap::Arg::get_long)
        .chain(root.get_arguments().filter_map(clap::Arg::get_long))
        .collect();
    let positional = sub.get_positionals().next().is_some();
    let tip = hint(sub.get_name(), &name, &longs, positional);
    let mut sub = sub
        .clone()
        .bin_name(format!("scenario-engine {}", sub.get_name()));
    let usage = sub.render_usage();
    let mut better = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(&sub);
    better.insert(
        ContextKind::InvalidArg,
        ContextValue::String(invalid.clone()),
    );
    better.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
    better.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
    better
}

#[cfg(test)]
mod tests {
    use super::hint;

    #[test]
    fn hints_name_a_flag_the_command_has() {
        let test = ["pass-score", "concurrency", "json", "junit", "dry-run"];
        assert!(hint("test", "threshold", &test, true).contains("--pass-score SCORE"));
        assert!(hint("test", "jobs", &test, true).contains("--concurrency"));
        assert!(hint("test", "pass-scor", &test, true).contains("--pass-score"));
        assert!(hint("test", "pass-score", &test, true).contains("before `--`"));
        let export = ["out", "format"];
        assert!(hint("export", "output", &export, true).contains("--out?"));
        assert!(hint("run", "suite", &["out"], true).contains("as an argument"));
        // Nothing close: the command's flags are listed.
        assert!(hint("schema", "xyzzy", &["out"], true).contains("its flags: --out"));
    }
}
