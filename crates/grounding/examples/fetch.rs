//! Grounding used alone: start an MCP tool server, fetch the article of a topic, show it.
//!
//! `cargo run -p grounding --example fetch -- news sports -- cargo xtask mcp-fixture`
//! (the tool, the query, then the server's command).

use std::time::Duration;

use grounding::{ArticleLimits, ServerCommand, ToolClient};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (tool, query, argv) = match args.as_slice() {
        [tool, query, sep, argv @ ..] if sep == "--" && !argv.is_empty() => {
            (tool.clone(), query.clone(), argv.to_vec())
        }
        _ => return Err("usage: fetch TOOL QUERY -- SERVER COMMAND…".into()),
    };
    let server = ServerCommand {
        argv,
        ..ServerCommand::default()
    };
    let client = ToolClient::connect(
        &server,
        &tool,
        Duration::from_secs(30),
        ArticleLimits::default(),
    )
    .await?;
    let arguments = serde_json::json!({ "query": query });
    let article = client
        .fetch(arguments.as_object().cloned().unwrap_or_default())
        .await?;
    println!("{} — {}\n\n{}", article.title, article.source, article.text);
    client.close().await;
    Ok(())
}
