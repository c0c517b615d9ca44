//! `scenario-engine view PATH… [--host H] [--port N] [--open] [--compare]`: serves the
//! `viewer` crate's pages until Ctrl-C, printing the URL. Exit codes: 0 stopped by Ctrl-C,
//! 2 a path that is not a results file, 3 the address cannot be bound.

use std::path::PathBuf;

use crate::error::{CliError, CommandResult, Outcome};

/// Runs the command.
///
/// # Errors
/// An unreadable path (exit 2), an address in use or a server failure (exit 3).
pub(crate) fn execute(mut args: viewer::ViewArgs) -> CommandResult {
    // A large run's index is cached in the user's cache, never beside the run.
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    args.index_dir = cache
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|c| c.join("scenario-engine").join("viewer"));
    let args = &args;
    let runtime = tokio::runtime::Runtime::new().map_err(CliError::run)?;
    runtime.block_on(async {
        let bound = viewer::bind(args).await.map_err(|e| match e {
            viewer::ViewError::Bind { .. } => CliError::run(e),
            _ => CliError::invalid(e),
        })?;
        if let Some(warning) = bound.warning() {
            errln!("warning: {warning}");
        }
        outln!("viewer at {} (Ctrl-C stops it)", bound.url());
        if args.open && viewer::open_browser(bound.url()).is_err() {
            errln!("could not open a browser; open {} yourself", bound.url());
        }
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        bound.serve(stop).await.map_err(CliError::run)
    })?;
    Ok(Outcome::Success)
}
