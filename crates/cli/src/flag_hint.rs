//! Unknown-flag errors that point at the right flag of the command typed (issue 29): clap's own
//! tip for an unknown flag is often "to pass '--threshold' as a value, use '-- --threshold'",
//! which leads nowhere. Here the tip names the closest real flag of *that* subcommand — first
//! from a small table of flags users bring from other commands and peer tools, then by
//! spelling (`stdx::closest`) — or says that a flag given after `--` belongs before it. The
//! error keeps clap's layout and usage line and exits 2.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use stdx::flag_hint as hint;

/// Replaces the tip of an unknown-argument error by `stdx::flag_hint`; any other error is returned as is.
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
