//! `scenario-engine scenarios`: streams a config's selected scenarios as JSONL on stdout.
//!
//! Each line is a [`scenarios::Scenario`] exactly as it serialises: `{"id", "index", "params"}`,
//! with the parameters **nested** under `params` (not flattened), so a line deserialises back
//! into a `Scenario` and a parameter named `id` or `index` cannot collide with the envelope.
//! Output goes through a `BufWriter`; a closed pipe (`| head`) ends the command quietly.
//! This module also owns the selection flags shared with `plan` and `run`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use scenarios::{ScenarioConfig, Selection, SelectionError, Shard};

use crate::error::{CliError, CommandResult, Outcome};

/// Selection flags; each overrides the config file's value.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct SelectionArgs {
    /// Take only shard K of N (1-based, e.g. `2/4`). The N shards of one selection are disjoint
    /// and together cover it, so N processes can split a run.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Pick N distinct scenarios pseudo-randomly from the filtered space (overrides `sample:`).
    #[arg(long, value_name = "N")]
    pub sample: Option<u64>,
    /// Seed of the sample; the same seed and config give the same scenarios (overrides `seed:`).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Take at most N scenarios in this process, after sharding (overrides `limit:`).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
}

impl SelectionArgs {
    /// The file's selection with these flags applied on top.
    ///
    /// # Errors
    /// Invalid input, with its hint, when the result is invalid, e.g. `--sample 0`.
    pub(crate) fn apply(&self, file: Selection) -> Result<Selection, CliError> {
        let selection = Selection {
            shard: self.shard.or(file.shard),
            sample: self.sample.or(file.sample),
            seed: self.seed.unwrap_or(file.seed),
            limit: self.limit.or(file.limit),
        };
        selection.validate().map_err(|err| {
            CliError::Invalid(match err.hint {
                Some(hint) => format!("{}\n  hint: {hint}", err.message),
                None => err.message,
            })
        })?;
        Ok(selection)
    }
}

/// clap value parser for `--shard`, keeping the hint in the message.
fn parse_shard(spec: &str) -> Result<Shard, String> {
    Shard::parse(spec).map_err(|err: SelectionError| match err.hint {
        Some(hint) => format!("{} (hint: {hint})", err.message),
        None => err.message,
    })
}

/// A config with the selection flags applied.
///
/// # Errors
/// The located error of the file, or an invalid selection.
pub(crate) fn load_selected(
    path: &std::path::Path,
    flags: &SelectionArgs,
) -> Result<ScenarioConfig, CliError> {
    let mut config = agents::settings::load_config(path)?;
    config.selection = flags.apply(config.selection)?;
    Ok(config)
}

/// Stream a config's scenarios as JSONL (`{"id","index","params":{...}}` per line).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The config file (native YAML/TOML/JSON, or the SwitchLingua YAML).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    #[command(flatten)]
    pub selection: SelectionArgs,
}

/// Runs the command.
///
/// # Errors
/// Invalid input, or stdout cannot be written (a closed pipe is a normal end).
pub(crate) fn execute(args: Args) -> CommandResult {
    let config = load_selected(&args.config, &args.selection)?;
    let stdout = io::stdout();
    match write_jsonl(&config, &config.selection, stdout.lock()) {
        Ok(written) => tracing::debug!(written, "scenarios streamed"),
        // The reader went away (`| head`): that is how pipelines end, not a failure.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {}
        Err(err) => return Err(CliError::write("stdout", err)),
    }
    Ok(Outcome::Success)
}

/// Writes the selected scenarios as JSONL to `out`; returns how many were written.
///
/// # Errors
/// Any write error, including `BrokenPipe`, which the caller treats as a normal end.
pub(crate) fn write_jsonl(
    config: &ScenarioConfig,
    selection: &Selection,
    out: impl Write,
) -> io::Result<u64> {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    let mut written = 0;
    for scenario in config.space.select(selection) {
        serde_json::to_writer(&mut out, &scenario)?;
        out.write_all(b"\n")?;
        written += 1;
    }
    out.flush()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use scenarios::{Scenario, parse_config};

    use super::*;

    const EXAMPLE: &str = include_str!("../../../../fixtures/configs/example.yaml");

    fn example() -> ScenarioConfig {
        parse_config(Path::new("fixtures/configs/example.yaml"), EXAMPLE)
            .expect("example config loads")
    }

    #[test]
    fn lines_round_trip_into_scenarios() {
        let config = example();
        let selection = Selection {
            limit: Some(3),
            ..Selection::default()
        };
        let mut buf = Vec::new();
        assert_eq!(write_jsonl(&config, &selection, &mut buf).unwrap(), 3);
        let text = String::from_utf8(buf).unwrap();
        let parsed: Vec<Scenario> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let expected: Vec<Scenario> = config.space.select(&selection).collect();
        assert_eq!(parsed, expected);
        assert_eq!(parsed[0].params["first_language"], "Arabic");
    }

    #[test]
    fn flags_override_the_file() {
        let file = Selection {
            sample: Some(10),
            seed: 7,
            limit: Some(5),
            shard: None,
        };
        let flags = SelectionArgs {
            seed: Some(1),
            limit: Some(2),
            ..SelectionArgs::default()
        };
        let got = flags.apply(file).unwrap();
        assert_eq!(
            got,
            Selection {
                sample: Some(10),
                seed: 1,
                limit: Some(2),
                shard: None
            }
        );
        let bad = SelectionArgs {
            sample: Some(0),
            ..SelectionArgs::default()
        };
        assert_eq!(
            bad.apply(file).unwrap_err().message(),
            "error: sample must be at least 1\n  hint: remove `sample` to take every scenario"
        );
    }

    #[test]
    fn shard_flag_errors_carry_the_hint() {
        let err = parse_shard("0/3").unwrap_err();
        assert!(err.starts_with("shard 0/3 is out of range"), "{err}");
        assert!(err.contains("hint: shards are numbered from 1"), "{err}");
    }

    /// A writer that fails like a closed pipe after some bytes.
    struct ClosedPipe(usize);

    impl Write for ClosedPipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::from(io::ErrorKind::BrokenPipe));
            }
            let n = buf.len().min(self.0);
            self.0 -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_surfaces_as_broken_pipe() {
        let err = write_jsonl(&example(), &Selection::default(), ClosedPipe(100)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
