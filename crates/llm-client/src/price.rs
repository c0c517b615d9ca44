//! Per-model prices and the cost of one call.
//!
//! Prices are USD per one million tokens, input and output separately. The default table holds
//! list prices of common hosted models as published when this was written; a settings file can
//! override or add entries (they are merged onto the defaults, not replacing them). Local models
//! have no entry and therefore no cost.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::Usage;

/// USD per one million tokens for one model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
// A typo (`input_per_mtoks`) is an error, not a price silently left out.
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Price of prompt (input) tokens.
    pub input_per_mtok: f64,
    /// Price of completion (output) tokens.
    pub output_per_mtok: f64,
}

/// Model name (or name prefix) to price.
///
/// Lookup tries the exact name, then the longest entry that is a prefix of the name (so dated
/// snapshots like `gpt-4o-2024-08-06` find `gpt-4o`, while `gpt-4o-mini-…` finds `gpt-4o-mini`),
/// after dropping a router prefix such as `openai/`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct PriceTable {
    models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// A table with no prices at all (every call costs nothing).
    #[must_use]
    pub fn empty() -> Self {
        Self {
            models: BTreeMap::new(),
        }
    }

    /// Adds or replaces the price of `model`.
    pub fn insert(&mut self, model: impl Into<String>, price: ModelPrice) {
        self.models.insert(model.into(), price);
    }

    /// The price that applies to `model`, if any.
    #[must_use]
    pub fn price_of(&self, model: &str) -> Option<ModelPrice> {
        let name = model.rsplit('/').next().unwrap_or(model);
        if let Some(p) = self.models.get(name) {
            return Some(*p);
        }
        self.models
            .iter()
            .filter(|(prefix, _)| name.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, p)| *p)
    }

    /// Cost of `usage` on `model` in USD, `None` when the model has no price.
    #[must_use]
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.price_of(model).map(|p| {
            (usage.prompt_tokens as f64 * p.input_per_mtok
                + usage.completion_tokens as f64 * p.output_per_mtok)
                / 1_000_000.0
        })
    }
}

impl Default for PriceTable {
    fn default() -> Self {
        const DEFAULTS: &[(&str, f64, f64)] = &[
            ("gpt-4o", 2.50, 10.00),
            ("gpt-4o-mini", 0.15, 0.60),
            ("gpt-4.1", 2.00, 8.00),
            ("gpt-4.1-mini", 0.40, 1.60),
            ("gpt-4.1-nano", 0.10, 0.40),
            ("gpt-5", 1.25, 10.00),
            ("gpt-5-mini", 0.25, 2.00),
            ("gpt-5-nano", 0.05, 0.40),
            ("o3", 2.00, 8.00),
            ("o3-mini", 1.10, 4.40),
            ("o4-mini", 1.10, 4.40),
            ("claude-3-haiku", 0.25, 1.25),
            ("claude-3-5-haiku", 0.80, 4.00),
            ("claude-3-5-sonnet", 3.00, 15.00),
            ("claude-3-7-sonnet", 3.00, 15.00),
            ("claude-haiku-4-5", 1.00, 5.00),
            ("claude-sonnet-4", 3.00, 15.00),
            ("claude-opus-4", 15.00, 75.00),
        ];
        let models = DEFAULTS
            .iter()
            .map(|&(name, input, output)| {
                (
                    name.to_owned(),
                    ModelPrice {
                        input_per_mtok: input,
                        output_per_mtok: output,
                    },
                )
            })
            .collect();
        Self { models }
    }
}

impl<'de> Deserialize<'de> for PriceTable {
    /// Entries from the settings file are merged onto the defaults, so adding one local price does
    /// not silently drop every hosted model's price.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let overrides = BTreeMap::<String, ModelPrice>::deserialize(d)?;
        let mut table = Self::default();
        table.models.extend(overrides);
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins_and_router_prefix_is_dropped() {
        let t = PriceTable::default();
        assert_eq!(
            t.price_of("gpt-4o-mini-2024-07-18")
                .map(|p| p.input_per_mtok),
            Some(0.15)
        );
        assert_eq!(
            t.price_of("gpt-4o-2024-08-06").map(|p| p.input_per_mtok),
            Some(2.50)
        );
        assert_eq!(
            t.price_of("openai/gpt-4.1-mini").map(|p| p.output_per_mtok),
            Some(1.60)
        );
        assert_eq!(t.price_of("llama3.1:8b"), None);
    }

    #[test]
    fn cost_is_per_million_tokens() {
        let t = PriceTable::default();
        let usage = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 500_000,
            estimated: false,
        };
        let cost = t.cost("gpt-4o-mini", &usage).expect("priced");
        assert!((cost - 0.45).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn settings_merge_onto_defaults() {
        let t: PriceTable =
            serde_json::from_str(r#"{"my-local": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}, "gpt-4o": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}"#)
                .expect("valid");
        assert!(t.price_of("my-local").is_some());
        assert_eq!(t.price_of("gpt-4o").map(|p| p.input_per_mtok), Some(1.0));
        assert!(t.price_of("claude-sonnet-4-20250514").is_some());
    }
}
