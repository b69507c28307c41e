//! JSON names → Rust identifiers: snake_case fields and PascalCase types,
//! raw identifiers for keywords, and deterministic suffixes on collisions.

use std::collections::HashSet;

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
    "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Type names generated code relies on, never given to a generated type.
const RESERVED_TYPES: &[&str] = &[
    "String",
    "Option",
    "Vec",
    "Box",
    "Result",
    "Ok",
    "Err",
    "Some",
    "None",
    "BTreeMap",
    "ToolCall",
    "Default",
    "Clone",
    "Debug",
    "PartialEq",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "From",
    "Into",
    "TryFrom",
    "Iterator",
    "Self",
];

/// ASCII letters, digits and `_` only; everything else becomes a word break.
fn ascii_words(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// A snake_case identifier for a JSON key (raw when it is a keyword).
pub(crate) fn field_name(json: &str) -> String {
    let mut s = ascii_words(json).to_snake_case();
    if s.is_empty() {
        s = "field".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// A PascalCase name for a JSON name or value.
pub(crate) fn type_name(json: &str) -> String {
    let mut s = ascii_words(json).to_upper_camel_case();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'N');
    }
    s
}

/// An identifier token: raw (`r#type`) for keywords that allow it.
pub(crate) fn ident(name: &str) -> Ident {
    if KEYWORDS.contains(&name) && !NOT_RAW.contains(&name) { Ident::new_raw(name, Span::call_site()) } else { Ident::new(name, Span::call_site()) }
}

/// Hands out names unique within one scope, suffixing `2`, `3`, … in call order.
#[derive(Default)]
pub(crate) struct Scope {
    taken: HashSet<String>,
}

impl Scope {
    /// A scope where the reserved type names are already taken.
    pub(crate) fn types() -> Scope {
        Scope { taken: RESERVED_TYPES.iter().map(|s| s.to_string()).collect() }
    }

    /// `base`, or `base2`, `base3`, … when taken. Empty bases become `fallback`.
    pub(crate) fn claim(&mut self, base: &str, fallback: &str) -> String {
        let base = if base.is_empty() || NOT_RAW.contains(&base) { fallback } else { base };
        let sep = if base.ends_with(|c: char| c.is_ascii_digit()) { "_" } else { "" };
        let mut name = base.to_owned();
        let mut n = 2;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}{sep}{n}");
            n += 1;
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        assert_eq!(field_name("recipientId"), "recipient_id");
        assert_eq!(field_name("get-sum"), "get_sum");
        assert_eq!(field_name("math.hypot"), "math_hypot");
        assert_eq!(field_name("type"), "type");
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("2fa"), "_2fa");
        assert_eq!(field_name("ключ"), "field");
    }

    #[test]
    fn collisions_get_suffixes() {
        let mut s = Scope::default();
        assert_eq!(s.claim(&field_name("a_b"), "field"), "a_b");
        assert_eq!(s.claim(&field_name("aB"), "field"), "a_b2");
        let mut t = Scope::types();
        assert_eq!(t.claim(&type_name("string"), "T"), "String2");
        assert_eq!(t.claim(&type_name("v1"), "T"), "V1");
        assert_eq!(t.claim(&type_name("v1"), "T"), "V1_2");
    }
}
