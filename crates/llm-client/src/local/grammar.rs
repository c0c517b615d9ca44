//! JSON schema → llama.cpp GBNF grammar, tuned for tiny models.
//!
//! llama.cpp's converter allows up to two newlines and twenty spaces or tabs between JSON tokens.
//! Small models (135M–270M parameters) take that licence and emit whitespace until the token cap,
//! so the `space` rule is narrowed to at most one space. Everything else is llama.cpp's own
//! conversion; keywords it cannot express (numeric bounds, for one) are checked afterwards by
//! schema validation.

use serde_json::Value;

use super::LocalError;

/// The whitespace allowed between JSON tokens: none or one space.
const TIGHT_SPACE_RULE: &str = r#"space ::= " "?"#;

/// Converts a JSON schema into a GBNF grammar whose start rule is `root`, with the whitespace
/// rule tightened for small models.
///
/// # Errors
/// [`LocalError::Grammar`] when llama.cpp cannot convert the schema.
pub fn grammar_for_schema(schema: &Value) -> Result<String, LocalError> {
    let mut schema = schema.clone();
    strip_unanchored_patterns(&mut schema);
    let text = serde_json::to_string(&schema).map_err(|e| LocalError::Grammar(e.to_string()))?;
    let grammar = llama_cpp_2::json_schema_to_grammar(&text)
        .map_err(|e| LocalError::Grammar(e.to_string()))?;
    Ok(tighten_space(&grammar))
}

/// Removes `pattern`s that llama.cpp's converter cannot express (it only takes patterns anchored
/// with `^…$`, and otherwise prints a warning on stderr and accepts any string). Dropping them
/// here changes nothing the grammar enforces, and the reply is still validated against the
/// original schema, patterns included.
fn strip_unanchored_patterns(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let unanchored = map
                .get("pattern")
                .and_then(Value::as_str)
                .is_some_and(|p| !(p.starts_with('^') && p.ends_with('$')));
            if unanchored {
                map.remove("pattern");
            }
            map.values_mut().for_each(strip_unanchored_patterns);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_unanchored_patterns),
        _ => {}
    }
}

/// Replaces the definition of the `space` rule, keeping every other line as it is.
fn tighten_space(grammar: &str) -> String {
    let mut out = String::with_capacity(grammar.len());
    for line in grammar.lines() {
        if line.trim_start().starts_with("space ::=") {
            out.push_str(TIGHT_SPACE_RULE);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unanchored_patterns_are_dropped_anchored_ones_kept() {
        let mut schema = serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "\\S"},
                "b": {"type": "array", "items": {"type": "string", "pattern": "\\S"}},
                "c": {"type": "string", "pattern": "^[a-z]+$"}
            }
        });
        strip_unanchored_patterns(&mut schema);
        assert_eq!(
            schema["properties"]["a"],
            serde_json::json!({"type": "string"})
        );
        assert_eq!(
            schema["properties"]["b"]["items"],
            serde_json::json!({"type": "string"})
        );
        assert_eq!(schema["properties"]["c"]["pattern"], "^[a-z]+$");
    }

    #[test]
    fn only_the_space_rule_changes() {
        let g = "root ::= \"{\" space \"}\"\nspace ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\nx ::= space\n";
        assert_eq!(
            tighten_space(g),
            "root ::= \"{\" space \"}\"\nspace ::= \" \"?\nx ::= space\n"
        );
    }
}
