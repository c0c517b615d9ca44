//! The viewer used alone: serves the results files named on the command line on a free
//! loopback port until the process is stopped.
//!
//! ```text
//! cargo run -p viewer --example serve -- fixtures/runs/pipeline-after.jsonl
//! ```

use viewer::{ViewArgs, bind};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = ViewArgs {
        paths: std::env::args_os().skip(1).map(Into::into).collect(),
        host: "127.0.0.1".into(),
        port: 0,
        open: false,
        compare: false,
        index_dir: None,
    };
    let bound = bind(&args).await?;
    println!("viewer at {}", bound.url());
    bound.serve(std::future::pending()).await?;
    Ok(())
}
