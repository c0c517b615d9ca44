//! The tip of an unknown-flag error (issue 29), for any command line: it names the right flag
//! of the command typed, says when a flag belongs to another command, when it was typed with
//! one dash (`-html`), before the command or after `--`, and shows the command's real usage
//! when a file was given as a flag. It knows nothing of clap: the CLI hands it each command's
//! name, long flags and usage.

use crate::hint::{closest_within, edit_distance};

/// What a tip needs to know of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandFlags<'a> {
    /// The command's name (`test`).
    pub name: &'a str,
    /// Its long flags, without dashes (global ones included).
    pub longs: Vec<&'a str>,
    /// Its usage with its arguments, e.g. `scenario-engine launch <SCHEDULER> <RUN_DIR>`.
    pub usage: String,
}

/// Where the unknown flag was typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagPlace<'a> {
    /// Among the command's arguments.
    InPlace,
    /// After `--`.
    AfterDoubleDash,
    /// Before the command; `fixed` is the command line with the flags moved after it.
    BeforeCommand {
        /// The corrected command line.
        fixed: &'a str,
    },
    /// With one dash (`-html`, `-o`); the flag is the word after it.
    SingleDash,
    /// With no command at all (`scenario-engine --json`); `command` is the program.
    NoCommand,
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
    (None, "pass-score", &["threshold", "min-score-delta"]),
    (None, "output", &["out", "json", "junit", "into", "html"]),
    (None, "output-file", &["out", "json", "junit", "into"]),
    (None, "out", &["into", "json", "junit", "html"]),
    (None, "into", &["out", "json", "junit"]),
    (None, "jobs", &["concurrency", "workers"]),
    (None, "parallel", &["concurrency", "workers"]),
    (None, "concurrency", &["workers"]),
    (None, "workers", &["concurrency"]),
    (None, "max-concurrency", &["concurrency", "workers"]),
    (None, "retries", &["repeat"]),
    (None, "runs", &["repeat"]),
    (None, "validate", &["dry-run"]),
    (None, "check", &["dry-run", "self-check"]),
];

/// Flags that name an input file, which every command takes as an argument instead.
const FILE_FLAGS: [&str; 5] = ["suite", "input", "file", "config", "run"];

/// What a one-letter flag usually stands for in other tools.
const LETTERS: &[(char, &str)] = &[
    ('o', "output"),
    ('j', "jobs"),
    ('p', "parallel"),
    ('c', "config"),
    ('f', "file"),
    ('i', "input"),
    ('t', "threshold"),
    ('n', "runs"),
    ('r', "retries"),
];

/// Notes that explain a flag beyond naming another.
fn note(command: &str, flag: &str) -> Option<&'static str> {
    match (command, flag) {
        ("test", "threshold") => Some(
            "`test` has no --threshold (that is the pipeline's accept threshold, 0–10); a \
             suite's passing score is --pass-score SCORE (0–100)",
        ),
        _ => None,
    }
}

/// The tip for `flag` (without dashes or `=value`) typed at `place` on `command`; `others` are
/// the other commands, so that a flag of another command is named as such.
#[must_use]
pub fn flag_hint(
    command: &CommandFlags<'_>,
    flag: &str,
    place: FlagPlace<'_>,
    others: &[CommandFlags<'_>],
) -> String {
    let known = command.longs.contains(&flag);
    let name = command.name;
    match place {
        FlagPlace::BeforeCommand { fixed } if known => {
            format!("flags go after the command: `{fixed}`")
        }
        FlagPlace::AfterDoubleDash if known => {
            format!("--{flag} is a flag of `{name}`: put it before `--`, not after")
        }
        FlagPlace::SingleDash if known => {
            format!("a long flag takes two dashes: --{flag}")
        }
        FlagPlace::NoCommand => {
            let owners: Vec<String> = others
                .iter()
                .filter(|c| c.longs.contains(&flag))
                .map(|c| format!("`{}`", c.name))
                .collect();
            if owners.is_empty() {
                format!("a command comes first: `{}`; see --help", command.usage)
            } else {
                format!(
                    "a command comes first, then its flags: --{flag} is a flag of {}",
                    owners.join("/")
                )
            }
        }
        FlagPlace::SingleDash => {
            let word = match flag.chars().collect::<Vec<_>>().as_slice() {
                [letter] => LETTERS
                    .iter()
                    .find(|(l, _)| l == letter)
                    .map_or(flag, |(_, word)| word),
                _ => flag,
            };
            format!(
                "`-{flag}` is not a flag of `{name}` (its flags are long, with two dashes; -h is \
                 help); {}",
                in_place(command, word, others)
            )
        }
        _ => in_place(command, flag, others),
    }
}

/// The tip for a flag `command` does not have, typed among its arguments.
fn in_place(command: &CommandFlags<'_>, flag: &str, others: &[CommandFlags<'_>]) -> String {
    let name = command.name;
    if let Some(note) = note(name, flag) {
        return note.to_owned();
    }
    let here = |meant: &[&str]| -> Vec<String> {
        meant
            .iter()
            .filter(|m| command.longs.contains(m) && **m != flag)
            .map(|m| format!("--{m}"))
            .collect()
    };
    let synonyms: Vec<&str> = SYNONYMS
        .iter()
        .filter(|(only, typed, _)| *typed == flag && only.is_none_or(|c| c == name))
        .flat_map(|(_, _, meant)| meant.iter().copied())
        .collect();
    // The opposite flag is not a spelling fix: `--preflight` is not `--no-preflight`.
    let negated = format!("no-{flag}");
    if command.longs.contains(&negated.as_str()) {
        return format!(
            "`{name}` does {flag} by default and has no --{flag}; --{negated} turns it off"
        );
    }
    let owners: Vec<String> = others
        .iter()
        .filter(|c| c.name != name && c.longs.contains(&flag))
        .map(|c| format!("`{}`", c.name))
        .collect();
    // A file given as a flag: the command's real usage says how it takes its input.
    if FILE_FLAGS.contains(&flag) {
        let elsewhere = if owners.is_empty() {
            String::new()
        } else {
            format!(" (it is a flag of {})", owners.join("/"))
        };
        return format!(
            "`{name}` has no --{flag}{elsewhere}; its usage: `{}`",
            command.usage
        );
    }
    if !owners.is_empty() {
        let alternatives = here(&synonyms);
        let tail = if alternatives.is_empty() {
            format!("its flags: {}", list(&command.longs))
        } else {
            format!("`{name}` has {}", alternatives.join(" / "))
        };
        return format!(
            "--{flag} is a flag of {}, not of `{name}`; {tail}",
            owners.join("/")
        );
    }
    if let Some(real) = here(&synonyms).first() {
        return format!("`{name}` has no --{flag}; did you mean {real}?");
    }
    // Flags are short words: one edit per three letters, at least one.
    let budget = (flag.chars().count() / 3).max(1);
    let candidates = command
        .longs
        .iter()
        .copied()
        .filter(|c| !is_opposite(flag, c));
    match closest_within(flag, candidates, budget) {
        Some(near) => format!("`{name}` has no --{flag}; did you mean --{near}?"),
        None => format!(
            "`{name}` has no --{flag}; its flags: {}",
            list(&command.longs)
        ),
    }
}

/// `no-x` against `x`, either way (or a near spelling of it).
fn is_opposite(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.strip_prefix("no-").map(str::to_owned);
    match (strip(a), strip(b)) {
        (Some(x), None) => edit_distance(&x, b) <= 1,
        (None, Some(y)) => edit_distance(a, &y) <= 1,
        _ => false,
    }
}

fn list(longs: &[&str]) -> String {
    longs
        .iter()
        .map(|l| format!("--{l}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The word of a single-dash argument that is no short flag (`-html` → `html`, `-o` → `o`):
/// `None` for `--…`, a lone `-`, a number (`-5`) and the short flags `shorts` (`h`, `V`).
#[must_use]
pub fn single_dash_word<'a>(arg: &'a str, shorts: &[char]) -> Option<&'a str> {
    let word = arg.strip_prefix('-')?;
    if word.is_empty() || word.starts_with('-') || word.parse::<f64>().is_ok() {
        return None;
    }
    let mut chars = word.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && shorts.contains(&c)
    {
        return None;
    }
    Some(word.split('=').next().unwrap_or(word))
}

/// `argv` (program first) with the arguments typed between the program and the command (at
/// `command_at`) moved after the command's own arguments, before any `--`; quoted for a shell.
#[must_use]
pub fn flags_after_command(argv: &[String], command_at: usize) -> String {
    let Some(program) = argv.first() else {
        return String::new();
    };
    let program = std::path::Path::new(program)
        .file_name()
        .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
    let before = argv.get(1..command_at).unwrap_or_default();
    let after = argv.get(command_at..).unwrap_or_default();
    let split = after.iter().position(|a| a == "--").unwrap_or(after.len());
    let words = std::iter::once(&program)
        .chain(&after[..split])
        .chain(before)
        .chain(&after[split..]);
    words.map(|w| quoted(w)).collect::<Vec<_>>().join(" ")
}

fn quoted(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command<'a>(name: &'a str, longs: &[&'a str], usage: &str) -> CommandFlags<'a> {
        CommandFlags {
            name,
            longs: longs.to_vec(),
            usage: usage.to_owned(),
        }
    }

    fn all() -> Vec<CommandFlags<'static>> {
        vec![
            command(
                "test",
                &[
                    "pass-score",
                    "concurrency",
                    "json",
                    "junit",
                    "dry-run",
                    "bot",
                ],
                "scenario-engine test <SUITE>",
            ),
            command(
                "run",
                &["out", "concurrency", "threshold", "no-preflight"],
                "scenario-engine run <CONFIG>",
            ),
            command("export", &["out", "format"], "scenario-engine export <RUN>"),
            command(
                "launch",
                &["workers", "set"],
                "scenario-engine launch <SCHEDULER> <RUN_DIR>",
            ),
            command("schema", &["out"], "scenario-engine schema <WHAT>"),
        ]
    }

    fn tip(name: &str, flag: &str, place: FlagPlace<'_>) -> String {
        let all = all();
        let cmd = all.iter().find(|c| c.name == name).expect("a command");
        flag_hint(cmd, flag, place, &all)
    }

    #[test]
    fn hints_name_a_flag_the_command_has() {
        let p = FlagPlace::InPlace;
        assert!(tip("test", "threshold", p).contains("--pass-score SCORE"));
        assert!(tip("test", "jobs", p).contains("--concurrency"));
        assert!(tip("test", "pass-scor", p).contains("--pass-score"));
        assert!(tip("export", "output", p).contains("--out?"));
        assert!(tip("launch", "jobs", p).contains("--workers"));
        // Nothing close: the command's flags are listed.
        assert!(tip("schema", "xyzzy", p).contains("its flags: --out"));
    }

    #[test]
    fn a_flag_of_another_command_is_named_as_such() {
        let t = tip("test", "out", FlagPlace::InPlace);
        assert!(
            t.contains("--out is a flag of `run`/`export`/`schema`"),
            "{t}"
        );
        assert!(t.contains("--json / --junit"), "{t}");
        assert!(!t.contains("--bot"), "{t}");
        let t = tip("run", "pass-score", FlagPlace::InPlace);
        assert!(
            t.contains("flag of `test`") && t.contains("--threshold"),
            "{t}"
        );
    }

    #[test]
    fn the_opposite_flag_is_no_spelling_fix() {
        let t = tip("run", "preflight", FlagPlace::InPlace);
        assert!(t.contains("does preflight by default"), "{t}");
        assert!(!t.contains("did you mean"), "{t}");
        assert!(is_opposite("no-preflight", "preflight"));
        assert!(!is_opposite("json", "junit"));
    }

    #[test]
    fn a_file_flag_shows_the_command_s_real_usage() {
        for (name, usage) in [
            ("launch", "scenario-engine launch <SCHEDULER> <RUN_DIR>"),
            ("schema", "scenario-engine schema <WHAT>"),
            ("run", "scenario-engine run <CONFIG>"),
        ] {
            let t = tip(name, "config", FlagPlace::InPlace);
            assert!(t.contains(usage), "{t}");
        }
    }

    #[test]
    fn places_get_their_own_tips() {
        let t = tip("test", "pass-score", FlagPlace::AfterDoubleDash);
        assert!(t.contains("before `--`"), "{t}");
        let t = tip(
            "test",
            "json",
            FlagPlace::BeforeCommand {
                fixed: "scenario-engine test S --json",
            },
        );
        assert_eq!(
            t,
            "flags go after the command: `scenario-engine test S --json`"
        );
        let t = tip("test", "json", FlagPlace::SingleDash);
        assert_eq!(t, "a long flag takes two dashes: --json");
        let t = tip("run", "o", FlagPlace::SingleDash);
        assert!(t.contains("did you mean --out?"), "{t}");
        let t = tip("test", "j", FlagPlace::SingleDash);
        assert!(t.contains("--concurrency"), "{t}");
        let t = tip("test", "json", FlagPlace::NoCommand);
        assert!(t.contains("--json is a flag of `test`"), "{t}");
    }

    #[test]
    fn single_dash_words_and_moved_flags() {
        assert_eq!(single_dash_word("-html", &['h', 'V']), Some("html"));
        assert_eq!(single_dash_word("-o", &['h', 'V']), Some("o"));
        assert_eq!(single_dash_word("-h", &['h', 'V']), None);
        assert_eq!(single_dash_word("--json", &['h']), None);
        assert_eq!(single_dash_word("-", &['h']), None);
        assert_eq!(single_dash_word("-5", &['h']), None);
        assert_eq!(single_dash_word("-0.5", &['h']), None);
        let argv: Vec<String> = ["/x/scenario-engine", "--json", "test", "my suite.yaml"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(
            flags_after_command(&argv, 2),
            "scenario-engine test 'my suite.yaml' --json"
        );
        let argv: Vec<String> = ["se", "--workers", "2", "launch", "slurm", "D", "--", "--x"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(
            flags_after_command(&argv, 3),
            "se launch slurm D --workers 2 -- --x"
        );
    }
}
