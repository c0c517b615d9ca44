//! The agents' output schemas stay within what grammar-based servers translate faithfully.
//!
//! llama-cpp-python (and llama.cpp's server) turn a JSON schema into a GBNF grammar. Their
//! converters reject or mistranslate `pattern`s that are not anchored (`\S` became the literal
//! characters `\S`), and llama-cpp-python then silently drops the whole schema for free-form JSON:
//! a 135M model answered with keys of its own and every scenario failed. `minLength` and
//! `format` are missing from OpenAI's strict mode. Whatever such a keyword would add is checked
//! locally instead (blank texts are dropped by `parse_instances`, which enforces the minimum).

use agents::outputs::schema_for;
use runlog::AgentKind;
use serde_json::Value;

/// Keywords grammar converters or strict mode cannot honour.
const UNPORTABLE: [&str; 5] = [
    "pattern",
    "minLength",
    "maxLength",
    "format",
    "patternProperties",
];

/// Every keyword used anywhere in `schema`, as a path; the names of `properties` entries are
/// property names, not keywords, and are skipped.
fn keywords(schema: &Value, path: &str, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            let naming_properties = path.ends_with("/properties");
            for (key, value) in map {
                let here = format!("{path}/{key}");
                if !naming_properties {
                    out.push(here.clone());
                }
                keywords(value, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                keywords(item, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn no_agent_schema_uses_keywords_grammar_servers_mistranslate() {
    for agent in AgentKind::ALL {
        let schema = schema_for(agent, 3, 5);
        let mut used = Vec::new();
        keywords(&schema, "", &mut used);
        let unportable: Vec<&String> = used
            .iter()
            .filter(|k| UNPORTABLE.contains(&k.rsplit('/').next().unwrap_or_default()))
            .collect();
        assert!(
            unportable.is_empty(),
            "{agent:?}: {unportable:?} in {schema}"
        );
        // Still a strict-mode schema: every object closed, every property required.
        assert_eq!(schema["additionalProperties"], false, "{agent:?}");
    }
}
