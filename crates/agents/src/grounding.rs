//! Grounding: whether a scenario asks for its generator to be grounded in a source (the
//! `use_tools` parameter SwitchLingua's configs set, which grounds its generator in a news
//! article fetched through a tool), and what the run says when it cannot be. No tool server can
//! be configured yet, so a scenario that asks is generated ungrounded — and says so: `plan`
//! and `run` print [`notice`] once before anything else, and each record carries
//! `grounding: "none: …"` ([`UNGROUNDED`]). Never silently.

use std::collections::BTreeMap;

use serde_json::Value;

use scenarios::ScenarioSpace;

/// The scenario parameter that asks for grounding.
pub const USE_TOOLS: &str = "use_tools";

/// A record's `grounding` when its scenario asked for grounding and got none.
pub const UNGROUNDED: &str = "none: no tool server configured";

/// Whether a `use_tools` value asks for grounding: `true`, or a text reading true/yes/on/1.
fn asks(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => matches!(
            s.trim().to_lowercase().as_str(),
            "true" | "yes" | "on" | "1"
        ),
        _ => false,
    }
}

/// Whether a scenario's parameters ask for grounding (`use_tools: true`).
#[must_use]
pub fn asks_for_tools(params: &BTreeMap<String, Value>) -> bool {
    params.get(USE_TOOLS).is_some_and(asks)
}

/// Whether any scenario of `space` may ask for grounding: `use_tools` true as a fixed value,
/// as a value of its own axis, or in a merge axis's objects (exclusions are not looked at: a
/// notice about a scenario that is excluded costs nothing, one missed would be silence).
#[must_use]
pub fn space_asks_for_tools(space: &ScenarioSpace) -> bool {
    space.fixed().get(USE_TOOLS).is_some_and(asks)
        || space.axes().iter().any(|axis| {
            axis.values.iter().any(|v| {
                if axis.merge {
                    v.get(USE_TOOLS).is_some_and(asks)
                } else {
                    axis.name == USE_TOOLS && asks(v)
                }
            })
        })
}

/// The line `plan` and `run` say before anything else when scenarios of `space` ask for
/// grounding, `None` when none does.
#[must_use]
pub fn notice(space: &ScenarioSpace) -> Option<String> {
    space_asks_for_tools(space).then(|| {
        format!(
            "note: the config sets `{USE_TOOLS}: true`, but no tool server is configured: \
             generation is NOT grounded in a source article; each record says \
             `grounding: \"{UNGROUNDED}\"`"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenarios::Axis;
    use serde_json::json;

    #[test]
    fn use_tools_true_fixed_or_on_an_axis_asks_and_false_does_not() {
        let fixed = |v: Value| {
            ScenarioSpace::new(
                vec![Axis::new("topic", vec![json!("a")])],
                BTreeMap::from([(USE_TOOLS.to_owned(), v)]),
                Vec::new(),
            )
            .expect("space")
        };
        assert!(notice(&fixed(json!(true))).is_some());
        assert!(notice(&fixed(json!("yes"))).is_some());
        assert!(notice(&fixed(json!(false))).is_none());
        let axis = ScenarioSpace::new(
            vec![Axis::new(USE_TOOLS, vec![json!(false), json!(true)])],
            BTreeMap::new(),
            Vec::new(),
        )
        .expect("space");
        assert!(space_asks_for_tools(&axis));
        assert!(asks_for_tools(&BTreeMap::from([(
            USE_TOOLS.to_owned(),
            json!(true)
        )])));
        assert!(!asks_for_tools(&BTreeMap::new()));
    }
}
