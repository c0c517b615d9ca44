//! `scenario-engine export RUN --out DIR`: a run's records as a dataset folder a researcher can
//! publish (`dataset`: splits, duplicates, the dataset card). Exit codes: 0 written,
//! 2 bad flags, an unreadable or invalid run file, a run still writing it (without
//! --allow-partial), nothing to export, or an existing folder, 3 a write failure.

use std::path::PathBuf;

use dataset::{DedupPolicy, ExportError, ExportOptions, Format, Splits, export};

use crate::error::{CliError, CommandResult, Outcome};

/// Flags of `export`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The run's JSONL output.
    pub run: PathBuf,
    /// The dataset folder to write (refused if it exists and is not empty, unless --force).
    #[arg(long)]
    pub out: PathBuf,
    /// File format of the split files.
    #[arg(long, value_enum, default_value_t = FormatArg::Parquet)]
    pub format: FormatArg,
    /// Split shares (train[,validation[,test]]), summing to 1.
    #[arg(long, default_value = "0.8,0.1,0.1")]
    pub splits: Splits,
    /// Add rows the default leaves out: `rejected` (records the run rejected), `duplicates`
    /// (exact and near duplicates, marked with `duplicate_of`), or both; `included_as` says why
    /// each row is there.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub include: Vec<IncludeArg>,
    /// Export only the records the run accepted (the default; refused with --include rejected).
    #[arg(long)]
    pub accepted_only: bool,
    /// Duplicates (exact, and near by MinHash): drop (the default), or, with them included,
    /// mark with `duplicate_of` (the default under --include duplicates) or keep unmarked.
    #[arg(long, value_enum)]
    pub dedup: Option<DedupArg>,
    /// Export a run that a run is still writing (its output lock is held): the card says the
    /// dataset is partial.
    #[arg(long)]
    pub allow_partial: bool,
    /// Seed of the split assignment.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Replace an existing folder.
    #[arg(long)]
    pub force: bool,
}

/// `--format`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum FormatArg {
    /// Apache Parquet (Hugging Face datasets' format).
    Parquet,
    /// JSON lines.
    Jsonl,
}

/// `--include`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum IncludeArg {
    /// Records the run rejected.
    Rejected,
    /// Exact and near duplicates.
    Duplicates,
}

/// `--dedup`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum DedupArg {
    /// Keep duplicates unmarked (still counted in the card).
    Off,
    /// Keep them with `duplicate_of`.
    Mark,
    /// Leave them out.
    Drop,
}

/// Runs the command.
///
/// # Errors
/// Exit 2 for bad input or an existing folder, 3 for a failed write.
pub(crate) fn execute(args: Args) -> CommandResult {
    let rejected = args.include.contains(&IncludeArg::Rejected);
    let duplicates = args.include.contains(&IncludeArg::Duplicates);
    if rejected && args.accepted_only {
        return Err(CliError::invalid(
            "--accepted-only contradicts --include rejected; give one of them",
        ));
    }
    let dedup = match (args.dedup, duplicates) {
        (Some(DedupArg::Drop), true) => {
            return Err(CliError::invalid(
                "--dedup drop contradicts --include duplicates; give one of them",
            ));
        }
        (Some(DedupArg::Off), _) => DedupPolicy::Off,
        (Some(DedupArg::Mark), _) | (None, true) => DedupPolicy::Mark,
        (Some(DedupArg::Drop) | None, false) => DedupPolicy::Drop,
    };
    let options = ExportOptions {
        format: match args.format {
            FormatArg::Parquet => Format::Parquet,
            FormatArg::Jsonl => Format::Jsonl,
        },
        splits: args.splits,
        accepted_only: !rejected,
        dedup,
        seed: args.seed,
        force: args.force,
        allow_partial: args.allow_partial,
    };
    let summary = export(&args.run, &args.out, &options).map_err(|e| match e {
        ExportError::Write { path, source } => CliError::write(path, source),
        other => CliError::invalid(other),
    })?;
    let splits: Vec<String> = summary
        .splits
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    outln!(
        "exported {} row(s) of {} record(s) to {}: {}",
        summary.rows,
        summary.read,
        args.out.display(),
        splits.join(", ")
    );
    if summary.partial {
        outln!("partial: a run is still writing this run file; more records may follow");
    }
    outln!(
        "duplicates: {} exact, {} near{}; card: {}",
        summary.exact_duplicates,
        summary.near_duplicates,
        if summary.dropped > 0 {
            format!(" ({} left out)", summary.dropped)
        } else {
            String::new()
        },
        args.out.join("README.md").display()
    );
    Ok(Outcome::Success)
}
