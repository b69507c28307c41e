//! `pattern` support: ECMA-262 regular expressions run on the `regex` crate.
//!
//! ECMA-262's `\d`, `\w` and `\b` are ASCII-only while the `regex` crate's are
//! Unicode-aware, and ECMA-262's `\s` is its own set (WhiteSpace and
//! LineTerminator: it has U+FEFF, the `regex` crate's has U+0085 instead); they
//! and their negations are rewritten to the ECMA sets, inside and outside
//! character classes. `\cX` becomes the control character and `[\b]` a
//! backspace. Look-around and back-references do not exist in `regex` and fail to
//! compile, which makes the registry a build error (never a silently dropped
//! constraint). The README lists the remaining differences.

use regex::Regex;

/// A compiled `pattern` with its source as written in the schema.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern as written.
    pub source: String,
    /// The compiled, ECMA-adjusted regex.
    pub regex: Regex,
}

/// Why a `pattern` cannot be enforced: the `regex` crate refuses it (most often
/// look-around or a back-reference, which it does not have).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern as written.
    pub pattern: String,
    /// The regex parser's last line (what it could not read).
    pub reason: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pattern {:?} cannot be enforced: {}", self.pattern, self.reason)?;
        // The two ECMA-262 features the `regex` crate lacks, named where they are the cause.
        if self.reason.contains("look-around") || self.reason.contains("backreference") {
            f.write_str(" (look-around and back-references are not supported)")?;
        }
        Ok(())
    }
}

impl std::error::Error for PatternError {}

impl Pattern {
    /// Compiles an ECMA-262 pattern.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        let translated = translate(source);
        match Regex::new(&translated) {
            Ok(regex) => Ok(Pattern { source: source.to_owned(), regex }),
            Err(e) => Err(PatternError { pattern: source.to_owned(), reason: e.to_string().lines().last().unwrap_or("").trim().to_owned() }),
        }
    }
}

/// ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, Zs) and
/// LineTerminator (LF, CR, LS, PS), as the body of a character class.
const ECMA_SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// ECMA-262 `\d`.
const ECMA_DIGIT: &str = "0-9";
/// ECMA-262 `\w`.
const ECMA_WORD: &str = "0-9A-Za-z_";

/// Rewrites ECMA-only escapes to their `regex` crate equivalents.
pub fn translate(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 8);
    let mut chars = source.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let set = match e {
                    'd' | 'D' => Some(ECMA_DIGIT),
                    'w' | 'W' => Some(ECMA_WORD),
                    's' | 'S' => Some(ECMA_SPACE),
                    _ => None,
                };
                match (e, set, in_class) {
                    // A positive set is a class, or joins the enclosing one.
                    ('d' | 'w' | 's', Some(set), false) => {
                        out.push('[');
                        out.push_str(set);
                        out.push(']');
                    }
                    ('d' | 'w' | 's', Some(set), true) => out.push_str(set),
                    // A negated set is a negated class, nested inside a class.
                    (_, Some(set), _) => {
                        out.push_str("[^");
                        out.push_str(set);
                        out.push(']');
                    }
                    ('b', _, false) => out.push_str("(?-u:\\b)"),
                    ('B', _, false) => out.push_str("(?-u:\\B)"),
                    ('b', _, true) => out.push_str("\\x08"),
                    ('c', _, _) if chars.peek().is_some_and(char::is_ascii_alphabetic) => {
                        let letter = chars.next().unwrap_or('@');
                        out.push_str(&format!("\\x{{{:02X}}}", letter as u32 % 32));
                    }
                    ('/', _, _) => out.push('/'),
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

    /// JSON-Schema-Test-Suite 44401e0c, optional/ecmascript-regex.json: ECMA-262
    /// `\s` is WhiteSpace and LineTerminator, `\d` and `\w` are ASCII.
    #[test]
    fn suite_ecma_classes() {
        let matches = |p: &str, s: &str| Pattern::new(p).unwrap().regex.is_match(s);
        let spaces = [" ", "\t", "\u{b}", "\u{c}", "\u{a0}", "\u{feff}", "\n", "\u{2029}", "\u{2003}"];
        for s in spaces.iter().chain(&["\r", "\u{1680}", "\u{200a}", "\u{2028}", "\u{202f}", "\u{205f}", "\u{3000}"]) {
            for (p, want) in [(r"^\s$", true), (r"^\S$", false), (r"^[\s]$", true), (r"^[^\s]$", false), (r"^[\S]$", false), (r"^[a\S]$", false)] {
                assert_eq!(matches(p, s), want, "{p} on {s:?}");
            }
        }
        for s in ["\u{1}", "\u{2013}", "\u{85}", "\u{200b}", "a"] {
            for (p, want) in [(r"^\s$", false), (r"^\S$", true), (r"^[\s]$", false), (r"^[^\s]$", true), (r"^[\S]$", true)] {
                assert_eq!(matches(p, s), want, "{p} on {s:?}");
            }
        }
        assert!(matches(r"^\d$", "0") && !matches(r"^\d$", "\u{7c0}") && !matches(r"^\D$", "0") && matches(r"^\D$", "\u{7c0}"));
        assert!(matches(r"^[\D]$", "\u{7c0}") && !matches(r"^[x\D]$", "5") && !matches(r"^\d+$", "\u{9ea}\u{9e8}"));
        assert!(matches(r"^\w$", "a") && !matches(r"^\w$", "\u{e9}") && !matches(r"^\W$", "a") && matches(r"^\W$", "\u{e9}"));
        assert!(matches(r"^[\W]$", "\u{e9}") && !matches(r"^[\W]$", "_") && !matches(r"\wcole", "l'\u{e9}cole"));
        assert!(matches(r"\p{Letter}cole", "l'\u{e9}cole") && matches(r"^\p{digit}+$", "\u{9ea}\u{9e8}"));
        assert!(matches(r"^\cC$", "\u{3}") && matches(r"^\cc$", "\u{3}") && !matches(r"^\cC$", "\\cC"));
        assert!(matches(r"^\t$", "\t") && !matches("^abc$", "abc\n") && matches(r"^[\b]$", "\u{8}"));
        assert!(matches("^\u{1f432}*$", "\u{1f432}\u{1f432}") && !matches("^\u{1f432}*$", "\u{1f409}"));
    }

    #[test]
    fn lookaround_is_an_error() {
        let e = Pattern::new("(?=a)b").expect_err("look-around");
        assert_eq!(e.pattern, "(?=a)b");
        assert!(e.to_string().starts_with(r#"pattern "(?=a)b" cannot be enforced: error: look-around"#), "{e}");
        assert!(e.to_string().ends_with("(look-around and back-references are not supported)"), "{e}");
        let e = Pattern::new("(a").expect_err("unclosed group");
        assert!(!e.to_string().contains("look-around"), "the hint only where it is the cause: {e}");
        assert!(Pattern::new(r"(a)\1").is_err());
    }
}
