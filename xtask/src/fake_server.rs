//! `cargo xtask fake-server`: the fake OpenAI-compatible server in the foreground.
//!
//! Wires command-line flags into a `fixtures::FakeConfig`, starts `fixtures::FakeServer`, prints
//! the base URL on stdout once it is listening (so scripts can read the first line), and serves
//! until Ctrl-C. Stats stay available at `GET <root>/_stats` while it runs.

use std::time::Duration;

use anyhow::Context as _;
use fixtures::{FakeConfig, FakeServer, RejectStyle};

/// Flags of `cargo xtask fake-server`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Port to listen on (0 picks a free port).
    #[arg(long, default_value_t = 8089)]
    pub port: u16,
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Milliseconds of latency added before each completion.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
    /// Share of requests that fail, split evenly between 429 and 500.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    pub fail_rate: f64,
    /// Seed of every reply and fault decision.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Share of replies whose JSON content is truncated.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    pub broken_json_rate: f64,
    /// Share of replies whose JSON violates the requested schema.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    pub schema_violation_rate: f64,
    /// `Retry-After` seconds sent with 429s.
    #[arg(long, default_value_t = 1)]
    pub retry_after_secs: u64,
    /// Answer 400 to `response_format: json_schema` like some llama.cpp servers.
    #[arg(long)]
    pub reject_json_schema: bool,
    /// Answer 400 to `response_format: json_object` as well.
    #[arg(long)]
    pub reject_json_object: bool,
    /// How refused modes are answered: `bad-request` (400), `server-error` (500 naming
    /// `response_format`, like llama-cpp-python), `opaque` (500 naming nothing).
    #[arg(long, default_value = "bad-request", value_parser = parse_reject_style)]
    pub reject_style: RejectStyle,
    /// Require this API key (Bearer, `api-key` or `x-api-key`).
    #[arg(long, env = "FAKE_SERVER_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Leave `usage` out of replies.
    #[arg(long)]
    pub omit_usage: bool,
    /// Go down (503 to completions and the model list) after this many completion requests.
    #[arg(long, value_name = "N")]
    pub outage_after: Option<u64>,
    /// With `--outage-after`: come back after this many seconds (default: stay down).
    #[arg(long, value_name = "SECS", requires = "outage_after")]
    pub outage_secs: Option<u64>,
    /// Hang after this many completion requests: accept every completion and model list and
    /// never answer (a stopped server).
    #[arg(long, value_name = "N")]
    pub hang_after: Option<u64>,
}

fn parse_reject_style(s: &str) -> Result<RejectStyle, String> {
    match s {
        "bad-request" => Ok(RejectStyle::BadRequest),
        "server-error" => Ok(RejectStyle::ServerError),
        "opaque" => Ok(RejectStyle::OpaqueServerError),
        other => Err(format!(
            "unknown reject style {other:?}: bad-request, server-error or opaque"
        )),
    }
}

fn parse_rate(s: &str) -> Result<f64, String> {
    let rate: f64 = s.parse().map_err(|e| format!("not a number: {e}"))?;
    if (0.0..=1.0).contains(&rate) {
        Ok(rate)
    } else {
        Err(format!("{rate} is not a rate between 0 and 1"))
    }
}

impl Args {
    fn config(&self) -> FakeConfig {
        FakeConfig {
            seed: self.seed,
            latency: Duration::from_millis(self.latency_ms),
            rate_broken_json: self.broken_json_rate,
            rate_schema_violation: self.schema_violation_rate,
            reject_json_schema: self.reject_json_schema,
            reject_json_object: self.reject_json_object,
            reject_style: self.reject_style,
            api_key: self.api_key.clone(),
            omit_usage: self.omit_usage,
            outage_after: self.outage_after,
            outage_for: self.outage_secs.map(Duration::from_secs),
            hang_after: self.hang_after,
            ..FakeConfig::default()
        }
        .with_fail_rate(self.fail_rate)
        .with_rate_limit(self.fail_rate / 2.0, self.retry_after_secs)
    }
}

/// Runs the server until Ctrl-C.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("building the tokio runtime")?;
    runtime.block_on(async {
        let cfg = args.config();
        let server = FakeServer::start_on((args.host.as_str(), args.port), cfg)
            .await
            .with_context(|| format!("binding {}:{}", args.host, args.port))?;
        println!("{}", server.base_url());
        eprintln!(
            "fake server listening (stats at {}/_stats); Ctrl-C to stop",
            server.root_url()
        );
        tokio::signal::ctrl_c()
            .await
            .context("waiting for Ctrl-C")?;
        let stats = server.stats();
        eprintln!(
            "stopping after {} requests ({} completions)",
            stats.total_requests, stats.completions
        );
        server.shutdown().await;
        anyhow::Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn fail_rate_is_split_between_429_and_500() {
        let cli = Cli::parse_from([
            "x",
            "--fail-rate",
            "0.2",
            "--latency-ms",
            "50",
            "--seed",
            "3",
        ]);
        let cfg = cli.args.config();
        assert!((cfg.rate_429 - 0.1).abs() < 1e-12);
        assert!((cfg.rate_500 - 0.1).abs() < 1e-12);
        assert_eq!(cfg.latency, Duration::from_millis(50));
        assert_eq!(cfg.seed, 3);
        assert_eq!(cfg.outage_after, None);
        let cli = Cli::parse_from(["x", "--outage-after", "100", "--outage-secs", "20"]);
        let cfg = cli.args.config();
        assert_eq!(cfg.outage_after, Some(100));
        assert_eq!(cfg.outage_for, Some(Duration::from_secs(20)));
        let cfg = Cli::parse_from(["x", "--hang-after", "7"]).args.config();
        assert_eq!(cfg.hang_after, Some(7));
    }

    #[test]
    fn rates_outside_zero_to_one_are_refused() {
        assert!(Cli::try_parse_from(["x", "--fail-rate", "1.5"]).is_err());
        assert!(Cli::try_parse_from(["x", "--broken-json-rate", "-0.1"]).is_err());
    }
}
