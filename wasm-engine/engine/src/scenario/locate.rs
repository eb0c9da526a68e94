//! Maps a key path (`tasks[1].affinity[0]`) to a byte offset in the scenario text, so that
//! semantic errors point at the offending value.
//!
//! Both formats are turned into the same small tree of spans: TOML through
//! `toml::de::DeTable` (which keeps the span of every key and value), JSON through a tiny
//! span-recording parser of our own (run only on text `serde_json` already accepted, but it
//! never panics on anything else either).

use std::fmt;
use std::ops::Range;

/// One step of a key path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// A table / object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A path from the document root to a value, e.g. `tasks[1].affinity[0]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    /// The root path.
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }

    /// This path extended by a key.
    pub fn key(&self, k: &str) -> Self {
        let mut v = self.0.clone();
        v.push(Seg::Key(k.to_string()));
        KeyPath(v)
    }

    /// This path extended by an index.
    pub fn index(&self, i: usize) -> Self {
        let mut v = self.0.clone();
        v.push(Seg::Index(i));
        KeyPath(v)
    }
}

fn is_bare_key(k: &str) -> bool {
    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(document)");
        }
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    if is_bare_key(k) {
                        f.write_str(k)?;
                    } else {
                        write!(f, "{k:?}")?;
                    }
                }
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A value with its span and, for containers, its children.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub span: Range<usize>,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Scalar,
    Array(Vec<Node>),
    /// (key, key span, value)
    Table(Vec<(String, Range<usize>, Node)>),
}

impl Node {
    /// Byte offset of the value at `path` (or of its key when `at_key`). When the path does
    /// not exist in the text (e.g. a default or a CLI override), the deepest existing
    /// ancestor is used; `None` only when not even the first step exists.
    pub fn locate(&self, path: &KeyPath, at_key: bool) -> Option<usize> {
        let mut node = self;
        let mut best: Option<usize> = None;
        let last = path.0.len().saturating_sub(1);
        for (i, seg) in path.0.iter().enumerate() {
            let next = match (seg, &node.kind) {
                (Seg::Key(k), Kind::Table(entries)) => match entries.iter().find(|(name, _, _)| name == k) {
                    Some((_, kspan, v)) => {
                        if i == last && at_key {
                            return Some(kspan.start);
                        }
                        Some(v)
                    }
                    None => None,
                },
                (Seg::Index(n), Kind::Array(items)) => items.get(*n),
                _ => None,
            };
            match next {
                Some(v) => {
                    best = Some(v.span.start);
                    node = v;
                }
                None => return best,
            }
        }
        best
    }
}

// ---------------------------------------------------------------------------------------
// TOML

/// Builds the span tree of a TOML document; `None` if it does not parse.
pub(crate) fn toml_tree(text: &str) -> Option<Node> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let span = doc.span();
    Some(Node { span, kind: toml_table(doc.get_ref()) })
}

fn toml_table(t: &toml::de::DeTable<'_>) -> Kind {
    Kind::Table(t.iter().map(|(k, v)| (k.get_ref().to_string(), k.span(), toml_value(v))).collect())
}

fn toml_value(v: &toml::Spanned<toml::de::DeValue<'_>>) -> Node {
    let kind = match v.get_ref() {
        toml::de::DeValue::Array(a) => Kind::Array(a.iter().map(toml_value).collect()),
        toml::de::DeValue::Table(t) => toml_table(t),
        _ => Kind::Scalar,
    };
    Node { span: v.span(), kind }
}

// ---------------------------------------------------------------------------------------
// JSON

/// Deeper documents are not located (serde_json itself stops at 128).
const MAX_JSON_DEPTH: usize = 256;

/// Builds the span tree of a JSON document; `None` if it is not well-formed enough.
pub(crate) fn json_tree(text: &str) -> Option<Node> {
    let mut p = JsonParser { b: text.as_bytes(), text, pos: 0 };
    p.ws();
    p.value(0)
}

struct JsonParser<'a> {
    b: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.pos) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Parses a string starting at `"`; returns its decoded content and span.
    fn string(&mut self) -> Option<(String, Range<usize>)> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return None;
        }
        self.pos += 1;
        let mut escaped = false;
        loop {
            let c = self.peek()?;
            self.pos += 1;
            match c {
                b'\\' => {
                    escaped = true;
                    self.pos += 1;
                }
                b'"' => break,
                _ => {}
            }
        }
        let raw = self.text.get(start..self.pos)?;
        let content =
            if escaped { serde_json::from_str::<String>(raw).ok()? } else { raw.get(1..raw.len() - 1)?.to_string() };
        Some((content, start..self.pos))
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_JSON_DEPTH {
            return None;
        }
        let start = self.pos;
        match self.peek()? {
            b'{' => {
                self.pos += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let (k, kspan) = self.string()?;
                        self.ws();
                        if self.peek()? != b':' {
                            return None;
                        }
                        self.pos += 1;
                        self.ws();
                        let v = self.value(depth + 1)?;
                        entries.push((k, kspan, v));
                        self.ws();
                        match self.peek()? {
                            b',' => self.pos += 1,
                            b'}' => {
                                self.pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Some(Node { span: start..self.pos, kind: Kind::Table(entries) })
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.peek()? {
                            b',' => self.pos += 1,
                            b']' => {
                                self.pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Some(Node { span: start..self.pos, kind: Kind::Array(items) })
            }
            b'"' => {
                let (_, span) = self.string()?;
                Some(Node { span, kind: Kind::Scalar })
            }
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
                if self.pos == start {
                    return None;
                }
                Some(Node { span: start..self.pos, kind: Kind::Scalar })
            }
        }
    }
}

impl Node {
    /// Start of the key or value whose text ends with the byte at `last` (serde_json reports
    /// data errors there); the innermost one wins.
    pub fn start_of_token_ending_at(&self, last: usize) -> Option<usize> {
        if let Kind::Table(entries) = &self.kind {
            for (_, kspan, v) in entries {
                if kspan.end == last + 1 {
                    return Some(kspan.start);
                }
                if v.span.start <= last && last < v.span.end {
                    return v.start_of_token_ending_at(last);
                }
            }
        }
        if let Kind::Array(items) = &self.kind {
            for v in items {
                if v.span.start <= last && last < v.span.end {
                    return v.start_of_token_ending_at(last);
                }
            }
        }
        (self.span.end == last + 1).then_some(self.span.start)
    }
}

/// Byte offset of a 1-based (line, byte column) position, clamped to the text.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let mut off = (start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    off
}

/// 1-based (line, column) of a byte offset; columns count characters.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 1;
    for (i, c) in text.char_indices() {
        if i >= offset {
            break;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_display() {
        let p = KeyPath::root().key("tasks").index(1).key("affinity").index(0);
        assert_eq!(p.to_string(), "tasks[1].affinity[0]");
        assert_eq!(KeyPath::root().key("kernel").key("features").key("a b").to_string(), "kernel.features.\"a b\"");
    }

    #[test]
    fn json_locates() {
        let text = "{\n  \"a\": [1, {\"b\\u0063\": \"x\"}]\n}";
        let t = json_tree(text).unwrap();
        let p = KeyPath::root().key("a").index(1).key("bc");
        assert_eq!(line_col(text, t.locate(&p, false).unwrap()), (2, 24));
        assert_eq!(line_col(text, t.locate(&p, true).unwrap()), (2, 13));
        // Missing tail: falls back to the deepest ancestor.
        let q = KeyPath::root().key("a").index(7);
        assert_eq!(line_col(text, t.locate(&q, false).unwrap()), (2, 8));
    }

    #[test]
    fn json_never_panics_on_garbage() {
        for s in ["", "{", "{\"a", "{\"a\":", "[1,", "\"\\", "{\"a\" 1}", "[[[[", "}", "\"é"] {
            let _ = json_tree(s);
        }
    }

    #[test]
    fn toml_locates() {
        let text = "a = 1\n[[t]]\nx = [1, 2]\n[[t]]\nx = [3]\n";
        let t = toml_tree(text).unwrap();
        let p = KeyPath::root().key("t").index(1).key("x").index(0);
        assert_eq!(line_col(text, t.locate(&p, false).unwrap()), (5, 6));
    }
}
