//! Unknown-flag errors of a clap command line that point at the right flag (feature `clap`).
//! clap's own tip for an unknown flag is often "to pass '--threshold' as a value, use '--
//! --threshold'", and it reads `-html` as the short flags `-h -t -m -l`, printing help with exit
//! 0. Here the command line is read for where the flag was typed (among the command's
//! arguments, before the command, after `--`, with one dash, with no command) and the tip comes
//! from [`flag_hint`], which names the right flag of that command or the command that has it.
//! The error keeps clap's layout and usage line (and exits 2).

use crate::flag_hint::{CommandFlags, FlagPlace, flag_hint, flags_after_command, single_dash_word};
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The short flags clap defines (help, version); every other flag is long.
const SHORTS: [char; 2] = ['h', 'V'];

/// Replaces the tip of an unknown-argument error by `stdx::flag_hint`; any other error is
/// returned as is.
#[must_use]
pub fn improve(error: clap::Error, root: &clap::Command, argv: &[String]) -> clap::Error {
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let Some(ContextValue::String(invalid)) = error.get(ContextKind::InvalidArg) else {
        return error;
    };
    let Some((at, sub)) = subcommand(root, argv) else {
        let word = invalid.trim_start_matches('-');
        let word = word.split('=').next().unwrap_or(word);
        return unknown_flag(root, root, invalid, word, FlagPlace::NoCommand);
    };
    if let Some(tip) = special_tip(root, sub, argv, invalid) {
        return with_tip(root, sub, invalid, tip);
    }
    // A single-dash word after `--` (`test S -- -o`), which the scan before parsing leaves.
    if let Some(word) = single_dash_word(invalid, &SHORTS) {
        return unknown_flag(root, sub, invalid, word, FlagPlace::SingleDash);
    }
    let Some(name) = invalid.strip_prefix("--") else {
        return error;
    };
    let flag = name.split('=').next().unwrap_or(name).to_owned();
    let typed = |a: &String| a == invalid || a.starts_with(&format!("{invalid}="));
    // clap stops at the first problem: a flag before the command is its first occurrence, one
    // after `--` its last.
    let first = argv.iter().position(typed);
    let last = argv.iter().rposition(typed);
    let double_dash = argv.iter().position(|a| a == "--");
    let fixed;
    let place = match (first, last, double_dash) {
        (Some(i), _, _) if i < at => {
            fixed = flags_after_command(argv, at);
            FlagPlace::BeforeCommand { fixed: &fixed }
        }
        (_, Some(i), Some(d)) if i > d => FlagPlace::AfterDoubleDash,
        _ => FlagPlace::InPlace,
    };
    unknown_flag(root, sub, invalid, &flag, place)
}

/// Tips clap gets wrong ("to pass '-1' as a value, use '-- -1'"): a negative value read as a
/// flag, the top-level `-V` on a command, and a flag of `run` given to a command that passes
/// `run`'s flags on after `--` (`launch`).
fn special_tip(
    root: &clap::Command,
    sub: &clap::Command,
    argv: &[String],
    invalid: &str,
) -> Option<String> {
    if invalid.len() > 1 && invalid[1..].parse::<f64>().is_ok() {
        let at = argv.iter().position(|a| a == invalid)?;
        let flag = argv.get(at.checked_sub(1)?)?;
        return Some(format!(
            "{invalid} is read as a flag, not as the value of {flag}: a negative number is out \
             of its range (write {flag}={invalid} to have the value itself checked)"
        ));
    }
    if invalid == "-V" || invalid == "--version" {
        return Some(format!(
            "--version (-V) is a flag of the top-level command: `{} --version`",
            root.get_name()
        ));
    }
    let flag = invalid.strip_prefix("--")?.split('=').next()?;
    let double_dash = argv.iter().position(|a| a == "--");
    let passes_on = sub.get_positionals().any(clap::Arg::is_last_set);
    let run = root.find_subcommand("run")?;
    let run_has = run.get_arguments().any(|a| a.get_long() == Some(flag));
    let typed_before = argv
        .iter()
        .position(|a| a == invalid)
        .is_some_and(|i| double_dash.is_none_or(|d| i < d));
    (passes_on && run_has && typed_before).then(|| {
        format!(
            "--{flag} is a flag of `run`: flags for every task's `run` go after `--` (`{} {} … \
             -- --{flag} …`)",
            root.get_name(),
            sub.get_name()
        )
    })
}

/// An unknown-flag error for a single-dash word (`-html`, `-o`) of `argv`, before clap reads it
/// as a cluster of short flags (`-h` among them: help, exit 0).
#[must_use]
pub fn single_dash(root: &clap::Command, argv: &[String]) -> Option<clap::Error> {
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let (arg, word) = argv
        .get(1..end)?
        .iter()
        .find_map(|a| single_dash_word(a, &SHORTS).map(|w| (a, w)))?;
    Some(match subcommand(root, argv) {
        Some((_, sub)) => unknown_flag(root, sub, arg, word, FlagPlace::SingleDash),
        None => unknown_flag(root, root, arg, word, FlagPlace::NoCommand),
    })
}

/// Checks a command line that another command passes on (`words`: what follows the program
/// name, the subcommand first), as clap would parse it, before it is written anywhere.
///
/// # Errors
/// clap's error for the first bad flag or value, with the tip of [`improve`].
pub fn check_command_line(
    root: &clap::Command,
    words: &[String],
) -> Result<clap::ArgMatches, clap::Error> {
    let argv: Vec<String> = std::iter::once(root.get_name().to_owned())
        .chain(words.iter().cloned())
        .collect();
    if let Some(e) = single_dash(root, &argv) {
        return Err(e);
    }
    root.clone()
        .try_get_matches_from(&argv)
        .map_err(|e| improve(e, root, &argv))
}

/// The subcommand named in `argv`, with its index.
fn subcommand<'c>(root: &'c clap::Command, argv: &[String]) -> Option<(usize, &'c clap::Command)> {
    argv.iter().enumerate().skip(1).find_map(|(i, a)| {
        root.get_subcommands()
            .find(|s| s.get_name() == a)
            .map(|s| (i, s))
    })
}

/// What a tip needs of `sub`: its name, visible long flags (with the root's global ones) and
/// usage with its arguments.
fn flags_of<'c>(root: &'c clap::Command, sub: &'c clap::Command) -> CommandFlags<'c> {
    let longs = sub
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(clap::Arg::get_long)
        .chain(root.get_arguments().filter_map(clap::Arg::get_long))
        .collect();
    let mut usage = if std::ptr::eq(root, sub) {
        root.get_name().to_owned()
    } else {
        format!("{} {}", root.get_name(), sub.get_name())
    };
    for arg in sub.get_positionals().filter(|a| !a.is_last_set()) {
        let name = arg
            .get_value_names()
            .and_then(|n| n.first())
            .map_or_else(|| arg.get_id().as_str().to_uppercase(), ToString::to_string);
        if arg.is_required_set() {
            usage.push_str(&format!(" <{name}>"));
        } else {
            usage.push_str(&format!(" [{name}]"));
        }
    }
    if std::ptr::eq(root, sub) {
        usage.push_str(" <COMMAND>");
    }
    CommandFlags {
        name: sub.get_name(),
        longs,
        usage,
    }
}

/// clap's unknown-argument error for `invalid` on `sub`, with the tip for `flag` at `place`.
fn unknown_flag(
    root: &clap::Command,
    sub: &clap::Command,
    invalid: &str,
    flag: &str,
    place: FlagPlace<'_>,
) -> clap::Error {
    let others: Vec<CommandFlags<'_>> = root
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| flags_of(root, s))
        .collect();
    let tip = flag_hint(&flags_of(root, sub), flag, place, &others);
    with_tip(root, sub, invalid, tip)
}

/// clap's unknown-argument error for `invalid` on `sub`, with `tip`.
fn with_tip(root: &clap::Command, sub: &clap::Command, invalid: &str, tip: String) -> clap::Error {
    let mut shown = sub.clone();
    if !std::ptr::eq(root, sub) {
        shown = shown.bin_name(format!("{} {}", root.get_name(), sub.get_name()));
    }
    let usage = shown.render_usage();
    let mut better = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(&shown);
    better.insert(
        ContextKind::InvalidArg,
        ContextValue::String(invalid.to_owned()),
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
    use clap::{Arg, ArgAction, Command};

    use super::*;

    fn root() -> Command {
        Command::new("prog")
            .subcommand(
                Command::new("test")
                    .arg(Arg::new("suite").required(true).value_name("SUITE"))
                    .arg(Arg::new("json").long("json").action(ArgAction::Set)),
            )
            .subcommand(Command::new("run").arg(Arg::new("out").long("out")))
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn negative_values_version_and_passed_on_flags_get_the_right_tip() {
        let root = root()
            .subcommand(
                Command::new("launch")
                    .arg(Arg::new("workers").long("workers"))
                    .arg(Arg::new("rest").last(true).num_args(0..)),
            )
            .mut_subcommand("test", |t| t.arg(Arg::new("score").long("pass-score")));
        let tip = |words: &[&str]| {
            let line = argv(words);
            let e = root
                .clone()
                .try_get_matches_from(&line)
                .expect_err("refused");
            improve(e, &root, &line).to_string()
        };
        let e = tip(&["prog", "test", "s", "--pass-score", "-1"]);
        assert!(e.contains("write --pass-score=-1"), "{e}");
        assert!(!e.contains("'-- -1'"), "{e}");
        let e = tip(&["prog", "test", "s", "-V"]);
        assert!(
            e.contains("flag of the top-level command: `prog --version`"),
            "{e}"
        );
        let e = tip(&["prog", "launch", "--out", "x"]);
        assert!(e.contains("go after `--`"), "{e}");
    }

    #[test]
    fn a_single_dash_word_is_an_unknown_flag_not_help() {
        let e = single_dash(&root(), &argv(&["prog", "test", "s", "-json", "x"])).expect("caught");
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
        assert!(e.to_string().contains("two dashes: --json"), "{e}");
        assert!(single_dash(&root(), &argv(&["prog", "test", "-h"])).is_none());
        // After `--` the words are another program's.
        assert!(single_dash(&root(), &argv(&["prog", "test", "s", "--", "-x"])).is_none());
    }

    #[test]
    fn the_place_of_the_flag_picks_the_tip() {
        let root = root();
        let line = argv(&["prog", "--json", "x", "test", "s"]);
        let e = improve(
            root.clone().try_get_matches_from(&line).expect_err("bad"),
            &root,
            &line,
        );
        assert!(e.to_string().contains("`prog test s --json x`"), "{e}");
        let line = argv(&["prog", "test", "s", "--out", "x"]);
        let e = improve(
            root.clone().try_get_matches_from(&line).expect_err("bad"),
            &root,
            &line,
        );
        assert!(e.to_string().contains("--out is a flag of `run`"), "{e}");
        assert!(e.to_string().contains("--json"), "{e}");
        let e = check_command_line(&root, &argv(&["run", "--bogus"])).expect_err("bad");
        assert!(e.to_string().contains("`run` has no --bogus"), "{e}");
        assert!(check_command_line(&root, &argv(&["run", "--out", "x"])).is_ok());
    }
}
