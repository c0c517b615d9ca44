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
    let text = serde_json::to_string(schema).map_err(|e| LocalError::Grammar(e.to_string()))?;
    let grammar = llama_cpp_2::json_schema_to_grammar(&text)
        .map_err(|e| LocalError::Grammar(e.to_string()))?;
    Ok(tighten_space(&grammar))
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
    fn only_the_space_rule_changes() {
        let g = "root ::= \"{\" space \"}\"\nspace ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\nx ::= space\n";
        assert_eq!(
            tighten_space(g),
            "root ::= \"{\" space \"}\"\nspace ::= \" \"?\nx ::= space\n"
        );
    }
}
