//! `pattern` support: ECMA-262 regular expressions run on the `regex` crate.
//!
//! ECMA-262's `\d`, `\w` and `\b` are ASCII-only while the `regex` crate's are
//! Unicode-aware; outside character classes they are rewritten to their ASCII
//! meaning. Look-around and back-references do not exist in `regex` and fail to
//! compile, which makes the registry a build error (never a silently dropped
//! constraint). The README lists the remaining differences.

use std::sync::OnceLock;

use regex::Regex;

/// A compiled `pattern` with its source as written in the schema.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern as written.
    pub source: String,
    /// The compiled, ECMA-adjusted regex.
    pub regex: Regex,
}

impl Pattern {
    /// Compiles an ECMA-262 pattern; the error is the regex parser's first line.
    pub fn new(source: &str) -> Result<Pattern, String> {
        let translated = translate(source);
        let regex = Regex::new(&translated).map_err(|e| e.to_string().lines().last().unwrap_or("").trim().to_owned())?;
        Ok(Pattern { source: source.to_owned(), regex })
    }
}

/// Rewrites ECMA-only escapes to their `regex` crate equivalents.
pub fn translate(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 8);
    let mut chars = source.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match (e, in_class) {
                    ('d', false) => out.push_str("[0-9]"),
                    ('d', true) => out.push_str("0-9"),
                    ('D', false) => out.push_str("[^0-9]"),
                    ('w', false) => out.push_str("[0-9A-Za-z_]"),
                    ('w', true) => out.push_str("0-9A-Za-z_"),
                    ('W', false) => out.push_str("[^0-9A-Za-z_]"),
                    ('b', false) => out.push_str("(?-u:\\b)"),
                    ('B', false) => out.push_str("(?-u:\\B)"),
                    ('/', _) => out.push('/'),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A leading `]` or `^]` is literal in the regex crate but ends an empty class in ECMA.
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_classes_and_unanchored_search() {
        let p = Pattern::new(r"^\d{3}$").unwrap();
        assert!(p.regex.is_match("123"));
        assert!(!p.regex.is_match("١٢٣"), "Arabic-Indic digits are not ECMA \\d");
        assert!(Pattern::new(r"[\w-]+").unwrap().regex.is_match("a-b"));
        assert!(Pattern::new("b").unwrap().regex.is_match("abc"));
        assert!(Pattern::new(r"a\/b").unwrap().regex.is_match("a/b"));
    }

    #[test]
    fn lookaround_is_an_error() {
        assert!(Pattern::new("(?=a)b").is_err());
        assert!(Pattern::new(r"(a)\1").is_err());
    }
}

/// A `pattern` compiled on first use: `const`-constructible, so that generated
/// code keeps one in a `static` without a closure of its own.
#[derive(Debug)]
pub struct LazyPattern {
    source: &'static str,
    compiled: OnceLock<Result<Pattern, String>>,
}

impl LazyPattern {
    /// The pattern `source`, not compiled yet.
    pub const fn new(source: &'static str) -> LazyPattern {
        LazyPattern { source, compiled: OnceLock::new() }
    }

    /// The pattern as written.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// The compiled pattern (compiled on the first call), or why it does not compile.
    pub fn get(&self) -> &Result<Pattern, String> {
        self.compiled.get_or_init(|| Pattern::new(self.source))
    }
}
