//! `cargo xtask dist`: builds the release binary and writes what a package ships beside it,
//! generated from the CLI's clap definitions (so they cannot drift from `--help`): the man page
//! `target/dist/man/scenario-engine.1` and the shell completions under
//! `target/dist/completions/` (bash, zsh, fish, PowerShell, elvish). The binary produces them
//! itself with its hidden `generate` command.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// Flags of `dist`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Output directory, relative to the workspace root.
    #[arg(long, default_value = "target/dist")]
    pub out: PathBuf,
}

/// What `scenario-engine generate WHAT` writes, and the file it goes to under the output dir.
const GENERATED: [(&str, &str); 6] = [
    ("man", "man/scenario-engine.1"),
    ("complete-bash", "completions/scenario-engine.bash"),
    ("complete-zsh", "completions/_scenario-engine"),
    ("complete-fish", "completions/scenario-engine.fish"),
    ("complete-powershell", "completions/_scenario-engine.ps1"),
    ("complete-elvish", "completions/scenario-engine.elv"),
];

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let bin = crate::build_release_binary()?;
    let out = root.join(&args.out);
    for (what, file) in GENERATED {
        write_generated(&bin, what, &out.join(file))?;
    }
    println!("wrote the man page and completions under {}", out.display());
    Ok(())
}

fn write_generated(bin: &Path, what: &str, dest: &Path) -> anyhow::Result<()> {
    let output = Command::new(bin)
        .args(["generate", what])
        .output()
        .with_context(|| format!("running {} generate {what}", bin.display()))?;
    if !output.status.success() || output.stdout.is_empty() {
        bail!(
            "{} generate {what} failed: {}",
            bin.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(dest, &output.stdout).with_context(|| format!("writing {}", dest.display()))?;
    println!("  {}", dest.display());
    Ok(())
}
