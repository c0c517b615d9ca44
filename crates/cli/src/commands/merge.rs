//! `scenario-engine merge OUT... --into FILE [--config CONFIG]`: joins the outputs of a sharded
//! run (`run --shard k/n` on n machines) into one file.
//!
//! The inputs must be disjoint (no id in two files, or twice in one); with `--config` they must
//! also be complete for the config's selection (every selected id present, none foreign). The
//! merged file holds every record once, sorted by id, written atomically (temp file + rename),
//! and a summary goes to stdout; the merge itself is `runlog::record::MergeInputs`.
//! Exit codes: 0 merged, 2 unreadable input, overlap or incompleteness (with the ids named), 3
//! the merged file could not be written.

use std::path::PathBuf;

use runlog::record::{Coverage, MergeInputs};

use crate::error::{CliError, CommandResult, Outcome};

/// Ids shown per problem before the rest is only counted.
const SHOWN_IDS: usize = 20;

/// Flags of `merge`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The shard outputs (JSONL files written by `run`), or one run directory
    /// (`plan --tasks T --into DIR`) whose tasks are all done.
    #[arg(required = true)]
    pub outputs: Vec<PathBuf>,
    /// The merged file to write.
    #[arg(long)]
    pub into: PathBuf,
    /// The scenario config the shards ran: check the outputs cover its selection exactly.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Runs the command.
///
/// # Errors
/// Unreadable input, overlap or incompleteness (exit 2, the ids named), or a merged file that
/// cannot be written (exit 3).
pub(crate) fn execute(args: Args) -> CommandResult {
    taskrun::refuse_url(&args.into, "--into").map_err(CliError::invalid)?;
    if let [dir] = args.outputs.as_slice()
        && taskrun::RunDir::is_run_dir(dir)
    {
        if args.config.is_some() {
            return Err(CliError::invalid(
                "a run directory holds its own config and plan: drop --config",
            ));
        }
        return super::tasks::merge_dir(dir, &args.into);
    }
    let (outputs, skipped) = without_errors_files(&args.outputs);
    for path in &skipped {
        errln!(
            "skipped {}: an errors file (a run's failed scenarios, not records); the failures \
             of the merged outputs go to {}",
            path.display(),
            runlog::record::errors_path(&args.into).display()
        );
    }
    if outputs.is_empty() {
        return Err(CliError::invalid(
            "no output to merge: every input is an errors file",
        ));
    }
    let inputs = MergeInputs::read(&outputs).map_err(CliError::invalid)?;
    let overlaps = inputs.overlaps();
    if !overlaps.is_empty() {
        let mut message = format!(
            "the outputs are not disjoint: {} id(s) appear more than once",
            overlaps.len()
        );
        for (id, files) in overlaps.iter().take(SHOWN_IDS) {
            let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            message.push_str(&format!("\n  {id}: {}", names.join(", ")));
        }
        message.push_str(&more(overlaps.len()));
        return Err(CliError::invalid(message));
    }
    let failures = inputs
        .failures()
        .map_err(|e| CliError::invalid(format!("reading the inputs' errors files: {e}")))?;
    let mut checked_complete = false;
    if let Some(config) = &args.config {
        let mut config = scenarios::load_config(config)?;
        // `limit` caps each process after sharding, so the whole run's selection is not defined
        // by the config alone: the ids are checked against the selection without it (none may
        // be foreign), and completeness cannot be checked.
        let per_process_limit = config.selection.limit.take();
        // A selected scenario that failed (in an input's errors file) is accounted for: it is
        // neither missing nor merged, and its failure goes beside the merged file.
        let mut failed_selected = 0usize;
        let selected = config
            .space
            .select(&config.selection)
            .map(|s| s.id)
            .filter(|id| {
                let failed = failures.contains_key(id);
                failed_selected += usize::from(failed);
                !failed
            });
        let mut coverage = inputs.coverage(selected, SHOWN_IDS);
        // Counted as selected (the denominators of the messages), not as missing.
        coverage.expected += failed_selected;
        if per_process_limit.is_some() && coverage.foreign.is_empty() {
            errln!(
                "note: the config's `limit` applies to each shard's process, so completeness is \
                 not checked: {} of the {} selected scenario(s) are present",
                coverage.expected - coverage.missing_count,
                coverage.expected
            );
            coverage.missing_count = 0;
            coverage.missing.clear();
        }
        if !coverage.is_complete() {
            return Err(CliError::invalid(incomplete(&coverage)));
        }
        checked_complete = per_process_limit.is_none();
    }
    inputs
        .write(&args.into)
        .map_err(|e| CliError::write(&args.into, e))?;
    MergeInputs::write_failures(&args.into, &failures)
        .map_err(|e| CliError::write(runlog::record::errors_path(&args.into), e))?;
    print_summary(
        &outputs,
        &args.into,
        &inputs,
        checked_complete.then_some(failures.len()),
    );
    if !failures.is_empty() {
        outln!(
            "{} failed scenario(s) of the inputs written to {} (`report {}` counts them; run \
             the shards again to retry them, then merge again)",
            failures.len(),
            runlog::record::errors_path(&args.into).display(),
            args.into.display()
        );
    }
    Ok(Outcome::Success)
}

/// The inputs that are outputs, and those that are errors files (`*.errors.jsonl`, or a file
/// whose first line is a failure): a shell glob such as `out/shard*.jsonl` picks up both.
fn without_errors_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    paths.iter().cloned().partition(|path| {
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".errors.jsonl"));
        let kind = || reports::load::load(path).map(|r| r.kind()).ok();
        !named && kind() != Some(reports::load::ResultsKind::Failures)
    })
}

/// What is missing and what is foreign, one `error:` paragraph each (`main` adds the first
/// `error: `).
fn incomplete(c: &Coverage) -> String {
    let mut parts = Vec::new();
    if c.missing_count > 0 {
        let mut part = format!(
            "the outputs are incomplete: {} of {} selected scenario id(s) missing",
            c.missing_count, c.expected
        );
        for id in &c.missing {
            part.push_str(&format!("\n  missing {id}"));
        }
        part.push_str(&more(c.missing_count));
        parts.push(part);
    }
    if !c.foreign.is_empty() {
        let mut part = format!(
            "{} id(s) are not in the config's selection",
            c.foreign.len()
        );
        for id in c.foreign.iter().take(SHOWN_IDS) {
            part.push_str(&format!("\n  foreign {id}"));
        }
        part.push_str(&more(c.foreign.len()));
        parts.push(part);
    }
    parts.join("\nerror: ")
}

fn more(n: usize) -> String {
    if n > SHOWN_IDS {
        format!("\n  … and {} more", n - SHOWN_IDS)
    } else {
        String::new()
    }
}

fn print_summary(
    outputs: &[PathBuf],
    into: &std::path::Path,
    inputs: &MergeInputs,
    complete_with_failed: Option<usize>,
) {
    let mean = inputs
        .mean_score()
        .map_or_else(|| "-".to_owned(), |m| format!("{m:.3}"));
    let mut table = reports::terminal::table(&["input", "records"]);
    for (path, n) in outputs.iter().zip(&inputs.per_file) {
        table.add_row(vec![path.display().to_string(), n.to_string()]);
    }
    outln!("{table}");
    outln!(
        "merged {} record(s) from {} file(s) into {}: {} accepted, mean score {mean}{}",
        inputs.len(),
        outputs.len(),
        into.display(),
        inputs.accepted,
        match complete_with_failed {
            Some(0) => " (complete for the config)".to_owned(),
            Some(n) => format!(" (complete for the config with the {n} failed scenario(s))"),
            None => String::new(),
        }
    );
}
