//! JSON schema → llama.cpp grammar for the embedded model: [`crate::gbnf`]'s conversion (at most
//! one space between JSON tokens, for tiny models), its errors as [`LocalError::Grammar`].

use serde_json::Value;

use super::LocalError;

/// Converts a JSON schema into a GBNF grammar whose start rule is `root` (see [`crate::gbnf`]
/// for what the grammar enforces and what is left to the reply's validation).
///
/// # Errors
/// [`LocalError::Grammar`] when the schema has no grammar (malformed, unsatisfiable, a `$ref`
/// that does not resolve, too large).
pub fn grammar_for_schema(schema: &Value) -> Result<String, LocalError> {
    crate::gbnf::json_schema_to_gbnf(schema).map_err(|e| LocalError::Grammar(e.to_string()))
}
