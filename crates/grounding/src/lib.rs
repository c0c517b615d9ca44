//! Grounding a generator in a source article through an MCP tool server.
//!
//! SwitchLingua grounds each scenario's generator in a news article a tool fetches for its
//! topic. This crate is that tool's client, usable alone (`examples/fetch.rs`):
//!
//! - [`client`]: [`ToolClient`] starts a server command speaking MCP on stdio (the official
//!   `rmcp` SDK), checks at connect that the named tool exists, and calls it, every step within
//!   a timeout.
//! - [`article`]: the [`Article`] read out of a call's result — title and text required,
//!   markup removed, binary or mis-decoded text refused, the text cut at a stated cap.
//! - [`arguments`]: a call's arguments templated from a scenario's parameters (`{topic}`).
//! - [`error`]: [`GroundingError`], and which errors mean the server is down.
//!
//! ```no_run
//! # async fn demo() -> Result<(), grounding::GroundingError> {
//! use grounding::{ArticleLimits, ServerCommand, ToolClient};
//! let server = ServerCommand { argv: vec!["my-news-server".into()], ..Default::default() };
//! let client = ToolClient::connect(&server, "news", std::time::Duration::from_secs(30),
//!                                  ArticleLimits::default()).await?;
//! let args = serde_json::json!({"query": "sports"});
//! let article = client.fetch(args.as_object().cloned().unwrap_or_default()).await?;
//! assert!(!article.title.is_empty());
//! # Ok(()) }
//! ```

pub mod arguments;
pub mod article;
pub mod client;
pub mod error;

pub use arguments::{referenced_parameters, render_arguments, template_problem};
pub use article::{Article, ArticleLimits};
pub use client::{INHERITED_ENV, ServerCommand, ToolClient};
pub use error::GroundingError;
