//! Repository chores, run as `cargo xtask <command>`.

mod bench;
mod ci;
mod demo;
mod fake_server;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "ScenarioEngine repository chores")]
struct Xtask {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run what CI runs: fmt check, clippy, tests, doctests, snapshot check.
    Ci(ci::Args),
    /// Start the fake OpenAI-compatible server in the foreground.
    FakeServer(fake_server::Args),
    /// Run the benchmarks against the fake server and update BENCHMARKS.md.
    Bench(bench::Args),
    /// Run the pipeline and the example suite end to end with no API key.
    Demo(demo::Args),
}

fn main() -> anyhow::Result<()> {
    match Xtask::parse().command {
        Command::Ci(args) => ci::run(args),
        Command::FakeServer(args) => fake_server::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Demo(args) => demo::run(args),
    }
}
