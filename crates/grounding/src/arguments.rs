//! A tool call's arguments, templated from a scenario's parameters: in a text value,
//! `{name}` is the parameter `name` (a text as written, any other value as JSON), `{{` and `}}`
//! are braces; a value that is exactly `{name}` takes the parameter's value with its type.
//! Other values (numbers, booleans, lists, objects: templated inside) pass through.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::GroundingError;

/// The arguments of a call for a scenario with `params`.
///
/// # Errors
/// [`GroundingError::MissingParameter`] for a `{name}` the scenario does not have.
pub fn render_arguments(
    template: &Map<String, Value>,
    params: &BTreeMap<String, Value>,
) -> Result<Map<String, Value>, GroundingError> {
    template
        .iter()
        .map(|(key, value)| Ok((key.clone(), render_value(key, value, params)?)))
        .collect()
}

fn render_value(
    argument: &str,
    value: &Value,
    params: &BTreeMap<String, Value>,
) -> Result<Value, GroundingError> {
    match value {
        Value::String(text) => render_text(argument, text, params),
        Value::Array(items) => items
            .iter()
            .map(|v| render_value(argument, v, params))
            .collect::<Result<_, _>>()
            .map(Value::Array),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), render_value(argument, v, params)?)))
            .collect::<Result<_, _>>()
            .map(Value::Object),
        other => Ok(other.clone()),
    }
}

fn render_text(
    argument: &str,
    text: &str,
    params: &BTreeMap<String, Value>,
) -> Result<Value, GroundingError> {
    let lookup = |name: &str| {
        params
            .get(name)
            .ok_or_else(|| GroundingError::MissingParameter {
                argument: argument.to_owned(),
                parameter: name.to_owned(),
            })
    };
    if let Some(name) = whole_placeholder(text) {
        return lookup(name).cloned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
        } else if let Some(end) = tail.starts_with('{').then(|| tail.find('}')).flatten() {
            match lookup(&tail[1..end])? {
                Value::String(s) => out.push_str(s),
                other => out.push_str(&other.to_string()),
            }
            rest = &tail[end + 1..];
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

/// `name` when `text` is exactly `{name}`.
fn whole_placeholder(text: &str) -> Option<&str> {
    let name = text.strip_prefix('{')?.strip_suffix('}')?;
    (!name.is_empty() && !name.contains(['{', '}'])).then_some(name)
}

/// The first argument of `template` whose text is no template — an unbalanced `{` or `}`, an
/// empty `{}` —: the argument and why (checked at load, so no call sends a brace literally).
#[must_use]
pub fn template_problem(template: &Map<String, Value>) -> Option<(String, String)> {
    fn text_problem(text: &str) -> Option<String> {
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            let tail = &rest[i..];
            if tail.starts_with("{{") || tail.starts_with("}}") {
                rest = &tail[2..];
            } else if tail.starts_with('}') {
                return Some(format!(
                    "`{}` has a `}}` that closes no `{{`",
                    text.escape_debug()
                ));
            } else {
                match tail[1..].find(['{', '}']) {
                    Some(0) if tail.as_bytes()[1] == b'}' => {
                        return Some(format!("`{}` has an empty `{{}}`", text.escape_debug()));
                    }
                    Some(end) if tail.as_bytes()[1 + end] == b'}' => {
                        rest = &tail[end + 2..];
                    }
                    _ => {
                        return Some(format!(
                            "`{}` has a `{{` that no `}}` closes",
                            text.escape_debug()
                        ));
                    }
                }
            }
        }
        None
    }
    fn walk(value: &Value) -> Option<String> {
        match value {
            Value::String(s) => text_problem(s),
            Value::Array(items) => items.iter().find_map(walk),
            Value::Object(map) => map.values().find_map(walk),
            _ => None,
        }
    }
    template
        .iter()
        .find_map(|(argument, value)| walk(value).map(|why| (argument.clone(), why)))
}

/// The parameter names the templates of `template` refer to, for checking them at load.
#[must_use]
pub fn referenced_parameters(template: &Map<String, Value>) -> Vec<String> {
    let mut names = Vec::new();
    let mut visit = |text: &str| {
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            let tail = &rest[i..];
            if tail.starts_with("{{") || tail.starts_with("}}") {
                rest = &tail[2..];
            } else if let Some(end) = tail.starts_with('{').then(|| tail.find('}')).flatten() {
                names.push(tail[1..end].to_owned());
                rest = &tail[end + 1..];
            } else {
                rest = &tail[1..];
            }
        }
    };
    fn walk(value: &Value, visit: &mut dyn FnMut(&str)) {
        match value {
            Value::String(s) => visit(s),
            Value::Array(items) => items.iter().for_each(|v| walk(v, visit)),
            Value::Object(map) => map.values().for_each(|v| walk(v, visit)),
            _ => {}
        }
    }
    for value in template.values() {
        walk(value, &mut visit);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_take_the_scenario_s_parameters() {
        let params = BTreeMap::from([
            ("topic".to_owned(), json!("sports")),
            ("year".to_owned(), json!(2024)),
        ]);
        let template = json!({"query": "{topic} news in {year} {{x}}", "year": "{year}",
                              "limit": 1, "tags": ["{topic}"]});
        let args = render_arguments(template.as_object().expect("map"), &params).expect("ok");
        assert_eq!(
            Value::Object(args),
            json!({"query": "sports news in 2024 {x}", "year": 2024, "limit": 1,
                   "tags": ["sports"]})
        );
        let missing = json!({"query": "{city}"});
        let err = render_arguments(missing.as_object().expect("map"), &params).expect_err("no");
        assert!(err.to_string().contains("`{city}`"), "{err}");
        assert_eq!(
            referenced_parameters(template.as_object().expect("map")),
            ["topic", "year", "topic", "year"]
        );
        assert_eq!(template_problem(template.as_object().expect("map")), None);
    }

    /// Review 31c, F5: `{topic` was sent literally, every scenario getting the same article.
    #[test]
    fn an_unbalanced_brace_is_a_problem_named_with_its_argument() {
        for (text, why) in [
            ("{topic", "no `}` closes"),
            ("{topic}}", "closes no `{`"),
            ("a } b", "closes no `{`"),
            ("{to{pic}", "no `}` closes"),
            ("{}", "empty"),
        ] {
            let template = json!({"q": "ok {topic}", "query": [text]});
            let problem = template_problem(template.as_object().expect("map"));
            assert!(
                problem
                    .as_ref()
                    .is_some_and(|(arg, r)| arg == "query" && r.contains(why)),
                "{text}: {problem:?}"
            );
        }
    }
}
