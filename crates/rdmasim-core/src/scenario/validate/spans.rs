//! Where each key of a TOML document is written, for the line numbers of semantic errors.
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::fmt;

/// Where the keys of a TOML document start, by dotted path (`qp.timeout`, `faults[1].link`).
/// Byte offsets, turned into lines only when one is asked for (an error): counting newlines
/// for every key of a long document made indexing it quadratic.
pub struct SpanIndex<'t> {
    text: &'t str,
    offsets: HashMap<String, usize>,
}

impl SpanIndex<'_> {
    /// Indexes a document; `None` when it is not valid TOML.
    pub fn build(text: &str) -> Option<SpanIndex<'_>> {
        let root: toml::Spanned<Node> = toml::from_str(text).ok()?;
        let mut offsets = HashMap::new();
        walk("", root.get_ref(), &mut offsets);
        Some(SpanIndex { text, offsets })
    }

    /// The line of `key`, or of its nearest written ancestor (a key left at its default is
    /// reported at its table's header).
    pub fn line(&self, key: &str) -> Option<usize> {
        let mut k = key.to_string();
        loop {
            if let Some(&offset) = self.offsets.get(&k) {
                return Some(line_of(self.text, offset));
            }
            let cut = k.rfind(['.', '['])?;
            k.truncate(cut);
            if k.is_empty() {
                return None;
            }
        }
    }
}

fn walk(path: &str, node: &Node, out: &mut HashMap<String, usize>) {
    match node {
        Node::Table(entries) => {
            for (k, v) in entries {
                let p = join_key(path, k.get_ref());
                out.entry(p.clone()).or_insert(k.span().start);
                walk(&p, v.get_ref(), out);
            }
        }
        Node::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                out.entry(p.clone()).or_insert(v.span().start);
                walk(&p, v.get_ref(), out);
            }
        }
        Node::Scalar => {}
    }
}

/// A TOML document reduced to its shape, with the span of every key and value.
enum Node {
    Table(Vec<(toml::Spanned<String>, toml::Spanned<Node>)>),
    Array(Vec<toml::Spanned<Node>>),
    Scalar,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any TOML value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Scalar)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = a.next_element()? {
                    items.push(v);
                }
                Ok(Node::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(k) = a.next_key()? {
                    let v = a.next_value()?;
                    entries.push((k, v));
                }
                Ok(Node::Table(entries))
            }
        }
        d.deserialize_any(V)
    }
}

pub(super) fn join_key(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}.{child}")
    }
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    // Offsets from toml are on char boundaries, but be safe with any input.
    let bytes = &text.as_bytes()[..end];
    bytes.iter().filter(|&&b| b == b'\n').count() + 1
}
