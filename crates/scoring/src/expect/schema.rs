//! The JSON schemas of the functions a suite declares, compiled once when the suite loads, and the
//! `validParams` judgement of one plan call against them: which declared function the call names,
//! and which fields of its parameters break that function's schema.
//!
//! Validation needs the `schema` feature (the `jsonschema` crate, ~80 crates of dependencies; on
//! in the suite runner and the CLI). Built without it, a call to a declared function is never
//! passed on its parameters: `validParams` fails with the reason, it does not guess.

use std::fmt;
#[cfg(feature = "schema")]
use std::sync::Arc;

use serde_json::Value;

use super::matcher::fold;
use crate::transcript::PlanStep;

/// Declared functions with their compiled parameter schemas (cheap to clone).
#[derive(Clone, Default)]
pub struct FunctionSchemas {
    functions: Vec<Declared>,
}

#[derive(Clone)]
struct Declared {
    agent: String,
    function: String,
    schema: Value,
    #[cfg(feature = "schema")]
    validator: Arc<jsonschema::Validator>,
}

impl FunctionSchemas {
    /// Compiles the parameter schema of each `(agent, function, schema)`.
    ///
    /// # Errors
    /// The index of the first declaration whose schema does not compile, with the reason.
    pub fn compile(
        declared: impl IntoIterator<Item = (String, String, Value)>,
    ) -> Result<Self, (usize, String)> {
        let mut functions = Vec::new();
        for (i, (agent, function, schema)) in declared.into_iter().enumerate() {
            // `format` is an annotation by default in draft 2020-12; a suite that says
            // `format: date` means it, so formats are asserted.
            #[cfg(feature = "schema")]
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .map_err(|e| {
                    (
                        i,
                        format!("the parameter schema of `{function}` is invalid: {e}"),
                    )
                })?;
            #[cfg(not(feature = "schema"))]
            let _ = i;
            functions.push(Declared {
                agent,
                function,
                schema,
                #[cfg(feature = "schema")]
                validator: Arc::new(validator),
            });
        }
        Ok(Self { functions })
    }

    /// Whether no function is declared.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// Checks one call: `Ok` when it names a declared function (on its agent, when the call names
    /// one) and its parameters are valid; otherwise every problem, each naming its field.
    ///
    /// # Errors
    /// What is wrong with the call, in words.
    pub fn check_call(&self, call: &PlanStep) -> Result<(), Vec<String>> {
        let same = |a: &str, b: &str| fold(a) == fold(b);
        let named: Vec<&Declared> = self
            .functions
            .iter()
            .filter(|d| super::matcher::same_function(&d.function, &call.function))
            .collect();
        let declared = named
            .iter()
            .find(|d| call.agent.is_empty() || same(&d.agent, &call.agent));
        let Some(declared) = declared else {
            return Err(vec![if named.is_empty() {
                format!("`{}` is not a declared function", call.function)
            } else {
                format!(
                    "`{}` is not declared on agent `{}` (declared on: {})",
                    call.function,
                    call.agent,
                    named
                        .iter()
                        .map(|d| d.agent.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }]);
        };
        declared.check_params(&call.params)
    }
}

impl Declared {
    /// Every field of `params` that breaks the schema (the first five).
    #[cfg(feature = "schema")]
    fn check_params(&self, params: &serde_json::Map<String, Value>) -> Result<(), Vec<String>> {
        let params = Value::Object(params.clone());
        let problems: Vec<String> = self
            .validator
            .iter_errors(&params)
            .take(5)
            .map(|e| match e.instance_path().to_string() {
                at if at.is_empty() => e.to_string(),
                at => format!("field {at}: {e}"),
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// Without a validator the parameters cannot be judged: a failure that says so, never a pass.
    #[cfg(not(feature = "schema"))]
    #[allow(clippy::unused_self, clippy::unnecessary_wraps)]
    fn check_params(&self, _params: &serde_json::Map<String, Value>) -> Result<(), Vec<String>> {
        Err(vec![format!(
            "the parameters of `{}` were not validated: this build of `scoring` has no JSON \
             schema support (feature `schema`)",
            self.function
        )])
    }
}

impl fmt::Debug for FunctionSchemas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.functions
                    .iter()
                    .map(|d| (&d.agent, &d.function, &d.schema)),
            )
            .finish()
    }
}

impl PartialEq for FunctionSchemas {
    fn eq(&self, other: &Self) -> bool {
        self.functions.len() == other.functions.len()
            && self.functions.iter().zip(&other.functions).all(|(a, b)| {
                a.agent == b.agent && a.function == b.function && a.schema == b.schema
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(agent: &str, function: &str, params: Value) -> PlanStep {
        PlanStep {
            agent: agent.into(),
            function: function.into(),
            params: params.as_object().cloned().unwrap_or_default(),
        }
    }

    #[cfg(feature = "schema")]
    #[test]
    fn calls_are_checked_against_their_functions_schema() {
        let schemas = FunctionSchemas::compile([(
            "transfers".to_owned(),
            "send_money".to_owned(),
            json!({"type": "object", "properties": {"amount": {"type": "number", "minimum": 0}},
                   "required": ["amount"]}),
        )])
        .expect("compiles");
        assert!(
            schemas
                .check_call(&call("transfers", "send_money", json!({"amount": 5})))
                .is_ok()
        );
        let err = schemas
            .check_call(&call("", "send_money", json!({"amount": -5})))
            .expect_err("below the minimum");
        assert!(err[0].contains("field /amount"), "{err:?}");
        let err = schemas
            .check_call(&call("", "send_money", json!({})))
            .expect_err("missing");
        assert!(err[0].contains("amount"), "{err:?}");
        let err = schemas
            .check_call(&call("", "delete_account", json!({})))
            .expect_err("undeclared");
        assert!(err[0].contains("not a declared function"), "{err:?}");
        let err = schemas
            .check_call(&call("contacts", "send_money", json!({"amount": 5})))
            .expect_err("wrong agent");
        assert!(err[0].contains("declared on: transfers"), "{err:?}");
        let bad = FunctionSchemas::compile([("a".into(), "f".into(), json!({"type": 5}))]);
        assert_eq!(bad.expect_err("invalid schema").0, 0);
    }

    #[cfg(feature = "schema")]
    #[test]
    fn formats_are_asserted_not_just_annotations() {
        let schemas = FunctionSchemas::compile([(
            "transfers".to_owned(),
            "send_money".to_owned(),
            json!({"type": "object", "properties": {
                "date": {"type": "string", "format": "date"},
                "at": {"type": "string", "format": "date-time"},
                "email": {"type": "string", "format": "email"}}}),
        )])
        .expect("compiles");
        let check = |params: Value| schemas.check_call(&call("transfers", "send_money", params));
        assert!(
            check(json!({"date": "2026-12-01", "at": "2026-12-01T10:00:00Z",
                             "email": "a@example.com"}))
            .is_ok()
        );
        for bad in [
            json!({"date": "2026-13-45"}),
            json!({"at": "2026-12-01 yesterday"}),
            json!({"email": "not an email"}),
        ] {
            let err = check(bad.clone()).expect_err("a bad format is invalid");
            assert!(err[0].contains("field /"), "{bad}: {err:?}");
        }
    }

    /// Built without the `schema` feature (`cargo test -p scoring` alone), a call to a declared
    /// function is never passed on its parameters: it fails, saying they were not validated.
    #[cfg(not(feature = "schema"))]
    #[test]
    fn without_the_feature_parameters_fail_with_the_reason_never_pass() {
        let schemas = FunctionSchemas::compile([(
            "transfers".to_owned(),
            "send_money".to_owned(),
            json!({"type": "object"}),
        )])
        .expect("compiles");
        let err = schemas
            .check_call(&call("transfers", "send_money", json!({"amount": 5})))
            .expect_err("not validated");
        assert!(err[0].contains("were not validated"), "{err:?}");
        let err = schemas
            .check_call(&call("", "delete_account", json!({})))
            .expect_err("undeclared");
        assert!(err[0].contains("not a declared function"), "{err:?}");
    }
}
