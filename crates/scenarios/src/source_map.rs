//! Positions of keys and values in a parsed document, for errors found after deserialising.
//!
//! Semantic checks (an empty axis, a duplicate value, an exclude naming an unknown axis) run on
//! plain deserialised data, which has no positions. Rather than threading span wrappers through
//! every type, a loader that finds such an error builds a [`SourceMap`] of the same text (only on
//! the error path, so the happy path pays nothing) and asks it where a key path such as
//! `exclude[1].topic` is. YAML and JSON are mapped with serde-saphyr's `Spanned` (JSON is valid
//! YAML for this purpose), TOML with toml's spanned `DeTable`.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::document::{Format, line_col};
use crate::error::ConfigError;

/// One step of a key path: a mapping key or a sequence index (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySeg {
    /// A mapping key.
    Key(String),
    /// A sequence element, 0-based.
    Index(usize),
}

impl From<&str> for KeySeg {
    fn from(key: &str) -> Self {
        Self::Key(key.to_string())
    }
}

impl From<String> for KeySeg {
    fn from(key: String) -> Self {
        Self::Key(key)
    }
}

impl From<usize> for KeySeg {
    fn from(index: usize) -> Self {
        Self::Index(index)
    }
}

impl fmt::Display for KeySeg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Key(k) => write!(f, ".{k}"),
            Self::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// 1-based line (0 = unknown).
    pub line: usize,
    /// 1-based column in characters (0 = unknown).
    pub column: usize,
}

#[derive(Debug, Default)]
struct Node {
    pos: Position,
    kind: Kind,
}

#[derive(Debug, Default)]
enum Kind {
    /// Entries in document order: key, the key's position, the value.
    Map(Vec<(String, Position, Node)>),
    Seq(Vec<Node>),
    #[default]
    Leaf,
}

/// Where each key and value of one document is; see the module docs.
#[derive(Debug)]
pub struct SourceMap {
    file: std::path::PathBuf,
    root: Node,
}

impl SourceMap {
    /// Maps `text`, the contents of `path` (format from the extension). A document that does
    /// not parse gives an empty map, whose lookups all answer line 0, column 0.
    #[must_use]
    pub fn build(path: &Path, text: &str) -> Self {
        let root = match Format::from_path(path) {
            Ok(Format::Yaml | Format::Json) => serde_saphyr::from_str::<Spanned<YamlNode>>(text)
                .map(|s| s.value.into_node(position_of(&s.referenced)))
                .unwrap_or_default(),
            Ok(Format::Toml) => toml::de::DeTable::parse(text)
                .map(|t| toml_table(text, t.span().start, t.get_ref()))
                .unwrap_or_default(),
            Err(_) => Node::default(),
        };
        Self {
            file: path.to_path_buf(),
            root,
        }
    }

    /// The position of the last segment of `path`: of the key itself for a `Key`, of the element
    /// for an `Index`. When the path leaves the document, the deepest position found.
    #[must_use]
    pub fn locate(&self, path: &[KeySeg]) -> Position {
        let mut node = &self.root;
        let mut pos = self.root.pos;
        for seg in path {
            let next = match (seg, &node.kind) {
                (KeySeg::Key(k), Kind::Map(entries)) => entries
                    .iter()
                    .find(|(key, _, _)| key == k)
                    .map(|(_, key_pos, value)| (*key_pos, value)),
                (KeySeg::Index(i), Kind::Seq(items)) => items.get(*i).map(|item| (item.pos, item)),
                _ => None,
            };
            match next {
                Some((p, child)) => {
                    pos = p;
                    node = child;
                }
                None => break,
            }
        }
        pos
    }

    /// The position of the *value* at `path` (for a key, where its value starts).
    #[must_use]
    pub fn locate_value(&self, path: &[KeySeg]) -> Position {
        let mut node = &self.root;
        for seg in path {
            let next = match (seg, &node.kind) {
                (KeySeg::Key(k), Kind::Map(entries)) => entries
                    .iter()
                    .find(|(key, _, _)| key == k)
                    .map(|(_, _, value)| value),
                (KeySeg::Index(i), Kind::Seq(items)) => items.get(*i),
                _ => None,
            };
            match next {
                Some(child) => node = child,
                None => break,
            }
        }
        node.pos
    }

    /// A [`ConfigError`] located at [`locate`](Self::locate)`(path)`.
    #[must_use]
    pub fn error(&self, path: &[KeySeg], message: impl Into<String>) -> ConfigError {
        let pos = self.locate(path);
        ConfigError::new(&self.file, pos.line, pos.column, message)
    }
}

fn position_of(loc: &serde_saphyr::Location) -> Position {
    Position {
        line: usize::try_from(loc.line()).unwrap_or(0),
        column: usize::try_from(loc.column()).unwrap_or(0),
    }
}

fn toml_position(text: &str, offset: usize) -> Position {
    let (line, column) = line_col(text, offset);
    Position { line, column }
}

fn toml_table(text: &str, start: usize, table: &toml::de::DeTable<'_>) -> Node {
    let entries = table
        .iter()
        .map(|(key, value)| {
            let key_pos = toml_position(text, key.span().start);
            (key.get_ref().to_string(), key_pos, toml_value(text, value))
        })
        .collect();
    Node {
        pos: toml_position(text, start),
        kind: Kind::Map(entries),
    }
}

fn toml_value(text: &str, value: &toml::Spanned<toml::de::DeValue<'_>>) -> Node {
    let start = value.span().start;
    match value.get_ref() {
        toml::de::DeValue::Table(t) => toml_table(text, start, t),
        toml::de::DeValue::Array(items) => Node {
            pos: toml_position(text, start),
            kind: Kind::Seq(items.iter().map(|item| toml_value(text, item)).collect()),
        },
        _ => Node {
            pos: toml_position(text, start),
            kind: Kind::Leaf,
        },
    }
}

/// A YAML node whose children carry serde-saphyr spans; deserialised with `deserialize_any` so
/// any document shape is accepted.
enum YamlNode {
    Map(Vec<(Spanned<KeyText>, Spanned<YamlNode>)>),
    Seq(Vec<Spanned<YamlNode>>),
    Leaf,
}

impl YamlNode {
    fn into_node(self, pos: Position) -> Node {
        let kind = match self {
            Self::Map(entries) => Kind::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| {
                        let value_pos = position_of(&v.referenced);
                        (
                            k.value.0,
                            position_of(&k.referenced),
                            v.value.into_node(value_pos),
                        )
                    })
                    .collect(),
            ),
            Self::Seq(items) => Kind::Seq(
                items
                    .into_iter()
                    .map(|item| {
                        let item_pos = position_of(&item.referenced);
                        item.value.into_node(item_pos)
                    })
                    .collect(),
            ),
            Self::Leaf => Kind::Leaf,
        };
        Node { pos, kind }
    }
}

impl<'de> Deserialize<'de> for YamlNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(YamlNodeVisitor)
    }
}

struct YamlNodeVisitor;

macro_rules! leaf {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $ty) -> Result<YamlNode, E> { Ok(YamlNode::Leaf) })*
    };
}

impl<'de> Visitor<'de> for YamlNodeVisitor {
    type Value = YamlNode;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }

    leaf!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128, visit_u128: u128,
          visit_f64: f64, visit_str: &str, visit_bytes: &[u8]);

    fn visit_unit<E: de::Error>(self) -> Result<YamlNode, E> {
        Ok(YamlNode::Leaf)
    }

    fn visit_none<E: de::Error>(self) -> Result<YamlNode, E> {
        Ok(YamlNode::Leaf)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<YamlNode, D::Error> {
        d.deserialize_any(YamlNodeVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<YamlNode, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<YamlNode>>()? {
            items.push(item);
        }
        Ok(YamlNode::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<YamlNode, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<KeyText>>()? {
            let value = map.next_value::<Spanned<YamlNode>>()?;
            entries.push((key, value));
        }
        Ok(YamlNode::Map(entries))
    }
}

/// A mapping key as text, whatever scalar it was written as.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeyText, E> {
                Ok(KeyText(String::new()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn path(segs: &[KeySeg]) -> Vec<KeySeg> {
        segs.to_vec()
    }

    #[test]
    fn yaml_keys_and_items_are_located() {
        let text = "a: 1\nb:\n  c: [x, y]\n  d:\n    - p\n    - q\n";
        let map = SourceMap::build(&PathBuf::from("f.yaml"), text);
        assert_eq!(
            map.locate(&path(&["b".into(), "c".into()])),
            Position { line: 3, column: 3 }
        );
        assert_eq!(
            map.locate(&path(&["b".into(), "d".into(), 1.into()])),
            Position { line: 6, column: 7 }
        );
        assert_eq!(
            map.locate(&path(&["b".into(), "c".into(), 1.into()])).line,
            3
        );
        // A path that leaves the document answers the deepest position found.
        assert_eq!(
            map.locate(&path(&["b".into(), "zz".into()])),
            Position { line: 2, column: 1 }
        );
    }

    #[test]
    fn toml_keys_and_items_are_located() {
        let text = "a = 1\n[b]\nc = [\"x\", \"y\"]\n[[e]]\nf = 1\n[[e]]\ng = 2\n";
        let map = SourceMap::build(&PathBuf::from("f.toml"), text);
        assert_eq!(
            map.locate(&path(&["b".into(), "c".into()])),
            Position { line: 3, column: 1 }
        );
        assert_eq!(
            map.locate(&path(&["b".into(), "c".into(), 1.into()])),
            Position {
                line: 3,
                column: 11
            }
        );
        assert_eq!(
            map.locate(&path(&["e".into(), 1.into(), "g".into()])),
            Position { line: 7, column: 1 }
        );
    }

    #[test]
    fn json_is_mapped_as_yaml() {
        let map = SourceMap::build(&PathBuf::from("f.json"), "{\"a\": {\n  \"b\": [1, 2]}}");
        assert_eq!(map.locate(&path(&["a".into(), "b".into()])).line, 2);
    }
}
