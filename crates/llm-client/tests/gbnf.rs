//! `gbnf::json_schema_to_gbnf`: the grammars are read back by a small GBNF recogniser (below,
//! written for these tests from llama.cpp's grammar documentation) and must accept the JSON
//! texts their schema allows and refuse the texts it forbids. The embedded model's smoke tests
//! (`local_smoke`, feature `local-llm`) check that llama.cpp parses and samples under them.

use std::collections::{BTreeSet, HashMap};

use llm_client::gbnf::{GbnfError, json_schema_to_gbnf};
use proptest::prelude::*;
use serde_json::{Value, json};

// ---- a GBNF recogniser ----

#[derive(Debug, Clone)]
enum Expr {
    Literal(Vec<char>),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Rule(String),
    Seq(Vec<Expr>),
    Alt(Vec<Expr>),
    Repeat(Box<Expr>, usize, Option<usize>),
}

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }
    fn skip_space(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.at += 1;
        }
    }
    fn fail(&self, what: &str) -> ! {
        panic!("GBNF parse error at {}: {what}\n{}", self.at, self.text)
    }
    fn escape(&mut self) -> char {
        self.at += 1;
        let c = self.peek().unwrap_or_else(|| self.fail("escape at end"));
        self.at += 1;
        match c {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'x' => {
                let hex: String = self.chars[self.at..self.at + 2].iter().collect();
                self.at += 2;
                char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap()
            }
            '\\' | '"' | '[' | ']' | '-' => c,
            other => self.fail(&format!("unknown escape \\{other}")),
        }
    }
    fn alternatives(&mut self) -> Expr {
        let mut alts = vec![self.sequence()];
        while self.peek() == Some('|') {
            self.at += 1;
            alts.push(self.sequence());
        }
        if alts.len() == 1 {
            alts.pop().unwrap()
        } else {
            Expr::Alt(alts)
        }
    }
    fn sequence(&mut self) -> Expr {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            let item = match self.peek() {
                None | Some('|' | ')' | '\n') => break,
                Some('"') => {
                    self.at += 1;
                    let mut s = Vec::new();
                    loop {
                        match self.peek() {
                            Some('"') => break,
                            Some('\\') => s.push(self.escape()),
                            Some(c) => {
                                s.push(c);
                                self.at += 1;
                            }
                            None => self.fail("unterminated literal"),
                        }
                    }
                    self.at += 1;
                    Expr::Literal(s)
                }
                Some('[') => {
                    self.at += 1;
                    let negated = self.peek() == Some('^');
                    if negated {
                        self.at += 1;
                    }
                    let mut ranges = Vec::new();
                    while self.peek() != Some(']') {
                        let lo = match self.peek() {
                            Some('\\') => self.escape(),
                            Some(c) => {
                                self.at += 1;
                                c
                            }
                            None => self.fail("unterminated class"),
                        };
                        let hi = if self.peek() == Some('-')
                            && self.chars.get(self.at + 1) != Some(&']')
                        {
                            self.at += 1;
                            match self.peek() {
                                Some('\\') => self.escape(),
                                Some(c) => {
                                    self.at += 1;
                                    c
                                }
                                None => self.fail("unterminated range"),
                            }
                        } else {
                            lo
                        };
                        ranges.push((lo, hi));
                    }
                    self.at += 1;
                    Expr::Class { negated, ranges }
                }
                Some('(') => {
                    self.at += 1;
                    let inner = self.alternatives();
                    self.skip_space();
                    if self.peek() != Some(')') {
                        self.fail("missing )");
                    }
                    self.at += 1;
                    inner
                }
                Some(c) if c.is_ascii_alphanumeric() || c == '-' => {
                    let start = self.at;
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        self.at += 1;
                    }
                    Expr::Rule(self.chars[start..self.at].iter().collect())
                }
                Some(c) => self.fail(&format!("unexpected {c:?}")),
            };
            let item = match self.peek() {
                Some('?') => {
                    self.at += 1;
                    Expr::Repeat(Box::new(item), 0, Some(1))
                }
                Some('*') => {
                    self.at += 1;
                    Expr::Repeat(Box::new(item), 0, None)
                }
                Some('+') => {
                    self.at += 1;
                    Expr::Repeat(Box::new(item), 1, None)
                }
                Some('{') => {
                    let close = self.chars[self.at..]
                        .iter()
                        .position(|&c| c == '}')
                        .unwrap()
                        + self.at;
                    let inside: String = self.chars[self.at + 1..close].iter().collect();
                    self.at = close + 1;
                    let (min, max) = match inside.split_once(',') {
                        None => {
                            let n = inside.trim().parse().unwrap();
                            (n, Some(n))
                        }
                        Some((m, "")) => (m.trim().parse().unwrap(), None),
                        Some((m, n)) => {
                            (m.trim().parse().unwrap(), Some(n.trim().parse().unwrap()))
                        }
                    };
                    Expr::Repeat(Box::new(item), min, max)
                }
                _ => item,
            };
            items.push(item);
        }
        if items.len() == 1 {
            items.pop().unwrap()
        } else {
            Expr::Seq(items)
        }
    }
}

struct Grammar(HashMap<String, Expr>);

impl Grammar {
    fn parse(text: &str) -> Self {
        let mut rules = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line
                .split_once(" ::= ")
                .unwrap_or_else(|| panic!("no ::= in {line:?}"));
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "rule name {name:?}"
            );
            let mut p = Parser {
                chars: body.chars().collect(),
                at: 0,
                text,
            };
            let expr = p.alternatives();
            assert_eq!(p.at, p.chars.len(), "trailing text in {line:?}");
            assert!(
                rules.insert(name.to_owned(), expr).is_none(),
                "{name} defined twice"
            );
        }
        let g = Grammar(rules);
        for expr in g.0.values() {
            g.check_refs(expr, text);
        }
        g
    }
    fn check_refs(&self, e: &Expr, text: &str) {
        match e {
            Expr::Rule(r) => assert!(self.0.contains_key(r), "{r} undefined in\n{text}"),
            Expr::Seq(v) | Expr::Alt(v) => v.iter().for_each(|x| self.check_refs(x, text)),
            Expr::Repeat(x, _, _) => self.check_refs(x, text),
            _ => {}
        }
    }
    fn accepts(&self, input: &str) -> bool {
        let chars: Vec<char> = input.chars().collect();
        self.ends(&Expr::Rule("root".into()), &chars, 0, 0)
            .contains(&chars.len())
    }
    /// Every position where `e`, started at `at`, can end.
    fn ends(&self, e: &Expr, s: &[char], at: usize, depth: usize) -> BTreeSet<usize> {
        assert!(depth < 400, "grammar recursion too deep");
        let mut out = BTreeSet::new();
        match e {
            Expr::Literal(l) => {
                if s[at..].starts_with(l) {
                    out.insert(at + l.len());
                }
            }
            Expr::Class { negated, ranges } => {
                if let Some(&c) = s.get(at) {
                    let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                    if inside != *negated {
                        out.insert(at + 1);
                    }
                }
            }
            Expr::Rule(r) => return self.ends(&self.0[r], s, at, depth + 1),
            Expr::Seq(items) => {
                let mut here = BTreeSet::from([at]);
                for item in items {
                    here = here
                        .iter()
                        .flat_map(|&p| self.ends(item, s, p, depth + 1))
                        .collect();
                }
                return here;
            }
            Expr::Alt(alts) => {
                for a in alts {
                    out.extend(self.ends(a, s, at, depth + 1));
                }
            }
            Expr::Repeat(x, min, max) => {
                if *min == 0 {
                    out.insert(at);
                }
                let mut frontier = BTreeSet::from([at]);
                let mut n = 0;
                while max.is_none_or(|m| n < m) && !frontier.is_empty() {
                    let next: BTreeSet<usize> = frontier
                        .iter()
                        .flat_map(|&p| self.ends(x, s, p, depth + 1))
                        .collect();
                    n += 1;
                    frontier = if n < *min {
                        next
                    } else if max.is_none() {
                        // Unbounded: only positions not reached before can lead anywhere new.
                        let new = next.difference(&out).copied().collect();
                        out.extend(next);
                        new
                    } else {
                        out.extend(next.iter().copied());
                        next
                    };
                }
            }
        }
        out
    }
}

fn grammar(schema: &Value) -> Grammar {
    let text = json_schema_to_gbnf(schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
    Grammar::parse(&text)
}

#[track_caller]
fn check(schema: Value, accepted: &[&str], refused: &[&str]) {
    let g = grammar(&schema);
    let text = json_schema_to_gbnf(&schema).unwrap();
    for a in accepted {
        assert!(g.accepts(a), "refused {a}\nschema {schema}\n{text}");
    }
    for r in refused {
        assert!(!g.accepts(r), "accepted {r}\nschema {schema}\n{text}");
    }
}

// ---- the conversion ----

#[test]
fn a_judge_schema_is_an_object_of_its_properties_with_tight_whitespace() {
    let schema = json!({
        "type": "object",
        "properties": {
            "fluency_score": {"type": "number", "minimum": 0, "maximum": 10},
            "verdict": {"enum": ["pass", "fail"]},
            "summary": {"type": "string"}
        },
        "required": ["fluency_score", "verdict", "summary"],
        "additionalProperties": false
    });
    check(
        schema.clone(),
        &[
            r#"{"fluency_score":7.5,"summary":"ok","verdict":"pass"}"#,
            r#"{ "fluency_score": 10, "summary": "a \"q\" \u00e9 é", "verdict": "fail" }"#,
        ],
        &[
            // Two spaces, a newline: small models would fill the token cap with them.
            r#"{  "fluency_score":7,"summary":"ok","verdict":"pass"}"#,
            "{\n\"fluency_score\":7,\"summary\":\"ok\",\"verdict\":\"pass\"}",
            // A missing or extra property, a value outside the enum, a negative score.
            r#"{"fluency_score":7,"summary":"ok"}"#,
            r#"{"fluency_score":7,"summary":"ok","verdict":"pass","x":1}"#,
            r#"{"fluency_score":7,"summary":"ok","verdict":"maybe"}"#,
            r#"{"fluency_score":-1,"summary":"ok","verdict":"pass"}"#,
            r#"{"fluency_score":7,"summary":"a	tab","verdict":"pass"}"#,
        ],
    );
    let text = json_schema_to_gbnf(&schema).unwrap();
    assert!(text.lines().any(|l| l == r#"space ::= " "?"#), "{text}");
}

#[test]
fn integer_ranges_are_listed_and_wide_ones_keep_their_sign() {
    check(
        json!({"type": "integer", "minimum": 0, "maximum": 10}),
        &["0", "7", "10"],
        &["11", "-1", "01", "5.0", "100"],
    );
    check(
        json!({"type": "integer", "exclusiveMinimum": -3, "exclusiveMaximum": 2}),
        &["-2", "0", "1"],
        &["-3", "2"],
    );
    check(
        json!({"type": "integer", "minimum": 0, "maximum": 100000}),
        &["0", "99999", "123456"],
        &["-5", "1.5"],
    );
    check(
        json!({"type": "integer"}),
        &["-12", "0", "40"],
        &["1.5", "--1", "+3"],
    );
}

#[test]
fn numbers_follow_json_and_a_non_negative_bound_drops_the_sign() {
    check(
        json!({"type": "number"}),
        &["0", "-1.25", "3e10", "2.5E-3"],
        &["01", ".5", "1.", "+1", "NaN"],
    );
    check(
        json!({"type": "number", "minimum": 0}),
        &["0.5", "12"],
        &["-0.5"],
    );
}

#[test]
fn strings_escape_and_bound_their_length_in_characters() {
    check(
        json!({"type": "string", "minLength": 2, "maxLength": 3}),
        &[r#""ab""#, r#""abc""#, r#""é🙂""#, r#""\n\u0041""#],
        &[r#""a""#, r#""abcd""#, "\"a\nb\""],
    );
}

#[test]
fn optional_properties_appear_at_most_once_in_order() {
    check(
        json!({"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "boolean"}, "c": {"type": "null"}}}),
        &[
            "{}",
            r#"{"a":1}"#,
            r#"{"b":true}"#,
            r#"{"a":1,"c":null}"#,
            r#"{"a":1,"b":false,"c":null}"#,
        ],
        &[
            r#"{"a":1,"a":2}"#,
            r#"{,"a":1}"#,
            r#"{"a":1,}"#,
            r#"{"d":1}"#,
        ],
    );
    check(
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
               "required": ["b"]}),
        &[r#"{"b":1}"#, r#"{"b":1,"a":2}"#],
        &[r#"{"a":2}"#, "{}"],
    );
}

#[test]
fn additional_properties_follow_the_schema() {
    check(
        json!({"type": "object"}),
        &["{}", r#"{"x":[1,{"y":null}]}"#],
        &["[]"],
    );
    check(
        json!({"type": "object", "additionalProperties": {"type": "integer"}}),
        &["{}", r#"{"x":1,"y":2}"#],
        &[r#"{"x":"1"}"#],
    );
    check(
        json!({"type": "object", "properties": {"a": {"type": "integer"}},
               "additionalProperties": true}),
        &[r#"{"a":1,"z":"q"}"#, r#"{"z":"q"}"#, "{}"],
        &[r#"{"a":"1"}"#],
    );
    // Required names with no schema of their own: any value, each one required.
    check(
        json!({"type": "object", "required": ["x", "y"]}),
        &[r#"{"x":1,"y":[2]}"#, r#"{"x":1,"y":2,"z":3}"#],
        &[r#"{"x":1}"#, "{}"],
    );
}

#[test]
fn arrays_bound_their_items_and_tuples_are_exact() {
    check(
        json!({"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 5}),
        &[r#"["a","b","c"]"#, r#"[ "a", "b", "c", "d", "e" ]"#],
        &[
            r#"["a","b"]"#,
            r#"["a","b","c","d","e","f"]"#,
            "[]",
            r#"["a","b",3]"#,
        ],
    );
    check(
        json!({"type": "array", "items": {"type": "integer"}}),
        &["[]", "[1]", "[1,2,3]"],
        &["[1,]", "[,]"],
    );
    check(json!({"type": "array", "maxItems": 0}), &["[]"], &["[1]"]);
    check(
        json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}),
        &[r#"[1,"a"]"#],
        &[r#"["a",1]"#, "[1]"],
    );
}

#[test]
fn refs_any_of_type_lists_and_const() {
    check(
        json!({
            "$defs": {"node": {"type": "object", "properties": {
                "v": {"type": "integer"},
                "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}},
                "required": ["v", "next"]}},
            "$ref": "#/$defs/node"
        }),
        &[
            r#"{"next":null,"v":1}"#,
            r#"{"next":{"next":null,"v":2},"v":1}"#,
        ],
        &[r#"{"next":{"v":2},"v":1}"#],
    );
    check(
        json!({"type": ["string", "null"]}),
        &[r#""x""#, "null"],
        &["1"],
    );
    check(
        json!({"const": {"k": "a\"b\\c"}}),
        &[r#"{"k":"a\"b\\c"}"#],
        &[r#"{"k":"ab"}"#],
    );
    check(
        json!({"enum": ["déjà", 3, null, true]}),
        &[r#""déjà""#, "3", "null", "true"],
        &["false", r#""deja""#],
    );
}

#[test]
fn all_of_objects_are_merged() {
    check(
        json!({
            "definitions": {"named": {"type": "object", "properties": {"name": {"type": "string"}},
                                      "required": ["name"]}},
            "allOf": [{"$ref": "#/definitions/named"},
                      {"properties": {"age": {"type": "integer"}}, "required": ["age"]}]
        }),
        &[r#"{"age":3,"name":"x"}"#],
        &[r#"{"name":"x"}"#, r#"{"age":3}"#],
    );
}

#[test]
fn the_tool_call_reply_schema_converts() {
    // The shape `local::tools` asks of a model acting as a bot.
    let call = |name: &str, args: Value| {
        json!({"type": "object", "properties": {"name": {"const": name}, "arguments": args},
               "required": ["name", "arguments"], "additionalProperties": false})
    };
    let schema = json!({"type": "object", "properties": {
        "content": {"type": "string"},
        "tool_calls": {"type": "array", "minItems": 1, "items": {"anyOf": [
            call("book_flight", json!({"type": "object", "properties": {
                "to": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "seats": {"type": "integer", "minimum": 1, "maximum": 9}},
                "required": ["to"]})),
            call("get_weather", json!({"type": "object"}))]}}},
        "required": ["tool_calls"]});
    check(
        schema,
        &[
            r#"{"tool_calls":[{"arguments":{"to":"OSL","seats":2},"name":"book_flight"}]}"#,
            r#"{"tool_calls":[{"arguments":{},"name":"get_weather"}],"content":"ok"}"#,
        ],
        &[
            r#"{"tool_calls":[]}"#,
            r#"{"tool_calls":[{"arguments":{"seats":2},"name":"book_flight"}]}"#,
            r#"{"tool_calls":[{"arguments":{},"name":"cancel"}]}"#,
        ],
    );
}

#[test]
fn schemas_without_a_grammar_are_errors_with_their_place() {
    let err = |schema: Value| json_schema_to_gbnf(&schema).expect_err("no grammar");
    assert!(matches!(
        err(json!({"$ref": "#/definitions/missing"})),
        GbnfError::Ref { .. }
    ));
    assert!(matches!(
        err(json!({"$ref": "https://example.com/s.json"})),
        GbnfError::Ref { .. }
    ));
    let e = err(json!({"type": "object", "properties": {"a": {"enum": []}}, "required": ["a"]}));
    assert!(
        matches!(&e, GbnfError::Unsatisfiable { at, .. } if at == "#/properties/a"),
        "{e}"
    );
    assert!(matches!(
        err(json!({"type": "array", "minItems": 3, "maxItems": 2})),
        GbnfError::Unsatisfiable { .. }
    ));
    assert!(matches!(
        err(json!({"type": "integer", "minimum": 3, "maximum": 2.5})),
        GbnfError::Unsatisfiable { .. }
    ));
    assert!(matches!(err(json!({"type": 5})), GbnfError::Invalid { .. }));
    assert!(matches!(
        err(json!({"type": "strnig"})),
        GbnfError::Invalid { .. }
    ));
    assert!(matches!(err(json!(false)), GbnfError::Unsatisfiable { .. }));
    // Deep nesting is refused, not a stack overflow.
    let mut deep = json!({"type": "string"});
    for _ in 0..200 {
        deep = json!({"type": "array", "items": deep});
    }
    assert!(matches!(err(deep), GbnfError::TooLarge(_)));
}

/// The break-it review of the local grammars (through `scenario-engine test --provider local`).
#[test]
fn satisfiable_schemas_the_review_found_refused_convert() {
    // An optional property no value satisfies is left out; a union keeps its other branches.
    check(
        json!({"type": "object", "properties": {
            "a": {"enum": []}, "b": false, "c": {"type": "array", "minItems": 3, "maxItems": 1},
            "u": {"anyOf": [{"enum": []}, {"const": 1}]}}}),
        &["{}", r#"{"u":1}"#],
        &[r#"{"a":1}"#, r#"{"u":2}"#],
    );
    // A required name with no schema of its own, `additionalProperties` absent (so allowed).
    check(
        json!({"properties": {"a": {"const": 1}}, "required": ["a", "zz"]}),
        &[r#"{"a":1,"zz":[true]}"#],
        &[r#"{"a":1}"#],
    );
    // `patternProperties` may declare it: left to validation.
    json_schema_to_gbnf(&json!({"patternProperties": {"^x_": {"const": 1}},
        "additionalProperties": false, "required": ["x_a"]}))
    .expect("a grammar");
}

#[test]
fn integer_bounds_beyond_what_f64_holds_exactly_are_left_to_validation() {
    check(
        json!({"type": "integer", "minimum": 9_007_199_254_740_993_u64, "maximum": 9_007_199_254_740_993_u64}),
        &["9007199254740993"],
        &["1.5"],
    );
    check(
        json!({"type": "integer", "minimum": 1e300, "maximum": 1e300}),
        &["1000000000000000000000000000000"],
        &[],
    );
    // At least 17 digits where the lower bound asks for them.
    check(
        json!({"type": "integer", "minimum": 100_000_000_000_000_000_u64}),
        &["100000000000000000", "123456789012345678901"],
        &[],
    );
}

#[test]
fn many_optional_properties_grow_the_grammar_linearly() {
    let schema = |n: usize| {
        json!({"type": "object", "additionalProperties": false, "properties":
            (0..n).map(|i| (format!("p{i}"), json!({"type": "integer", "minimum": 0, "maximum": 1})))
                .collect::<serde_json::Map<_, _>>()})
    };
    let size = |n| json_schema_to_gbnf(&schema(n)).expect("converts").len();
    assert!(size(200) < 12 * size(20), "{} vs {}", size(200), size(20));
    // The alphabetical key order: p0, p1, p10, p100 …
    check(
        schema(150),
        &["{}", r#"{"p0":1,"p1":0,"p99":1}"#],
        &[r#"{"p1":0,"p0":1}"#],
    );
}

#[test]
fn keywords_left_to_validation_do_not_narrow_the_grammar() {
    // `pattern`, `format` and `multipleOf` are checked on the reply, not in the grammar.
    check(
        json!({"type": "string", "pattern": "^[a-z]+$", "format": "date"}),
        &[r#""ABC""#, r#""2026-01-01""#],
        &["1"],
    );
    check(
        json!({"type": "integer", "multipleOf": 5}),
        &["3"],
        &[r#""3""#],
    );
}

#[test]
fn property_names_need_no_care() {
    check(
        json!({"type": "object", "properties": {
            "a b/c~\"é": {"type": "integer"}, "-": {"type": "integer"}, "root": {"type": "integer"}},
            "required": ["-", "a b/c~\"é", "root"]}),
        &[r#"{"-":1,"a b/c~\"é":2,"root":3}"#],
        &[r#"{"-":1,"a b/c~é":2,"root":3}"#],
    );
}

proptest! {
    /// An added property may be any key but the named ones (whose values have their own
    /// schema), whatever characters the names hold.
    #[test]
    fn added_keys_are_any_but_the_named_ones(
        names in prop::collection::btree_set("[ab\\]\\[^ -]{0,3}", 1..5),
        key in "[ab\\]\\[^ -]{0,3}",
    ) {
        let schema = json!({
            "type": "object",
            "properties": names.iter().map(|n| (n.clone(), json!({"type": "integer"}))).collect::<serde_json::Map<_, _>>(),
            "additionalProperties": {"type": "string"}});
        let g = grammar(&schema);
        let text = json!({ key.clone(): "v" }).to_string();
        prop_assert_eq!(g.accepts(&text), !names.contains(&key), "{} under {}", text, schema);
    }

    /// Any value of a schema built from the generated shape is accepted as serde_json writes it.
    #[test]
    fn values_of_generated_schemas_are_accepted(value in arb_value()) {
        let schema = schema_of(&value);
        let g = grammar(&schema);
        let text = value.to_string();
        prop_assert!(g.accepts(&text), "{} refused by {}", text, schema);
    }
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|x| json!(x)),
        "[ -~éß😀\"\\\\\n]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_ -]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// The tightest schema this converter handles for `value`'s shape (every property required).
fn schema_of(value: &Value) -> Value {
    match value {
        Value::Null => json!({"type": "null"}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Number(n) if n.is_i64() => json!({"type": "integer"}),
        Value::Number(_) => json!({"type": "number"}),
        Value::String(s) => json!({"type": "string", "maxLength": s.chars().count()}),
        Value::Array(items) => json!({
            "type": "array",
            "items": items.first().map_or(json!({}), |_| json!({"anyOf": items.iter().map(schema_of).collect::<Vec<_>>()})),
            "minItems": items.len(), "maxItems": items.len()}),
        Value::Object(m) => json!({
            "type": "object",
            "properties": m.iter().map(|(k, v)| (k.clone(), schema_of(v))).collect::<serde_json::Map<_, _>>(),
            "required": m.keys().collect::<Vec<_>>(),
            "additionalProperties": false}),
    }
}
