//! `cargo xtask mcp-fixture`: the MCP article server of `fixtures::mcp` on stdio, for trying
//! grounding (`run.tools.server.command: [cargo, xtask, mcp-fixture]`) and for the `grounding`
//! crate's example. Flags (faults for tests): `--garbage`, `--hang-on QUERY`, `--exit-after N`,
//! `--huge-on QUERY`, `--script-on QUERY`, `--calls-log FILE`. Cargo's own lines go to stderr,
//! so stdout carries MCP alone.

/// Flags of `cargo xtask mcp-fixture`, passed to `fixtures::mcp::McpFixtureOptions`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// `--garbage`, `--hang-on QUERY`, `--exit-after N`, `--huge-on QUERY`, `--script-on QUERY`,
    /// `--calls-log FILE`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub flags: Vec<String>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let options =
        fixtures::mcp::McpFixtureOptions::from_args(args.flags).map_err(anyhow::Error::msg)?;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(fixtures::mcp::serve_stdio(options))
        .map_err(anyhow::Error::msg)
}
