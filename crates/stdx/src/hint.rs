//! Did-you-mean hints: the one rule for every "did you mean `x`?" in the workspace (config keys
//! and values, suite checks and operators, CLI values).

/// "did you mean `x`?" when one candidate is [`closest`] to `name`, otherwise the list of
/// candidates; `None` when there are none.
#[must_use]
pub fn did_you_mean(name: &str, candidates: &[&str]) -> Option<String> {
    if candidates.is_empty() {
        return None;
    }
    match closest(name, candidates.iter().copied()) {
        Some(candidate) => Some(format!("did you mean `{candidate}`?")),
        None => {
            let list: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
            Some(format!("expected one of {}", list.join(", ")))
        }
    }
}

/// The candidate nearest to `word`, ignoring case, when it is near enough to be a typo: an edit
/// distance of at most a third of `word`'s length, and at least 2. The one rule for every
/// did-you-mean hint in the workspace (config keys and values here, suite checks and operators
/// in `scoring`).
#[must_use]
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let budget = (word.chars().count() / 3).max(2);
    let word = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters (two-row dynamic programming).
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitution.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_names_list_the_candidates() {
        assert_eq!(
            did_you_mean("zzzzzz", &["alpha", "beta"]).as_deref(),
            Some("expected one of `alpha`, `beta`")
        );
    }

    #[test]
    fn distance_basics() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}

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
pub fn flag_hint(command: &str, flag: &str, longs: &[&str], positional: bool) -> String {
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
    match closest(flag, longs.iter().copied()) {
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

#[cfg(test)]
mod flag_hint_tests {
    use super::flag_hint as hint;

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
