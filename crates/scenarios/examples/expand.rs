//! Expands a config into scenarios with this crate alone: the count, and the first few with their
//! ids and parameters.
//!
//! `cargo run -p scenarios --example expand [-- CONFIG [N]]` (default: the embedded
//! `fixtures/configs/example.yaml`, 3 scenarios). An example may print.

use std::path::Path;

use scenarios::{Selection, load_config, parse_config};

const EXAMPLE: &str = include_str!("../../../fixtures/configs/example.yaml");

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next();
    let shown: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(3);
    let loaded = match &path {
        Some(path) => load_config(Path::new(path)),
        None => parse_config(Path::new("example.yaml"), EXAMPLE),
    };
    let config = match loaded {
        Ok(config) => config,
        Err(e) => {
            // A located error: `file:line:col: error: …` and a hint.
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let selection = Selection::default();
    println!(
        "{} scenario(s) ({} before exclusions)",
        config.space.selected_count(&selection),
        config.space.len_unfiltered()
    );
    for scenario in config.space.select(&selection).take(shown) {
        println!(
            "{}  {}",
            scenario.id,
            serde_json::Value::Object(scenario.params.clone().into_iter().collect())
        );
    }
}
