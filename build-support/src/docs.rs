//! Doc comments of generated items: the schema's title and description, then
//! what it constrains and its default, as a reader of the crate's docs sees them.
//! Docs only: what is enforced is decided elsewhere and never depends on this text.

use proc_macro2::TokenStream;
use quote::quote;
use toolseal_runtime::check::{NumberBounds, show_number};
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::{ArrayRule, Node, ObjectRule, Schema, StringRule, UnionMode};

/// `#[doc]` attributes for `text`, one per line, each after a space (`/// text`).
pub(crate) fn doc_attr(text: Option<String>) -> TokenStream {
    let lines = doc_lines(text.as_deref());
    quote!(#(#[doc = #lines])*)
}

/// The strings of the `#[doc]` attributes [`doc_attr`] writes for `text`, as the
/// formatted file holds them (prettyplease writes `///` lines without trailing spaces):
/// what `#[derive(toolseal::Args)]` reads a description from.
pub(crate) fn doc_lines(text: Option<&str>) -> Vec<String> {
    text.map(|t| t.lines().map(|l| format!(" {}", doc_safe(l)).trim_end_matches(' ').to_owned()).collect()).unwrap_or_default()
}

/// The docs of an item generated for `s`: its title and description, then a
/// paragraph with its constraints and `default`, the one applied when absent.
pub(crate) fn schema_text(s: &Schema, default: Option<&Json<'_>>) -> Option<String> {
    let facts = facts(&s.node, default);
    match (s.doc().map(|d| prose(&d)), facts) {
        (Some(text), Some(facts)) => Some(format!("{text}\n\n{facts}")),
        (text, facts) => text.or(facts),
    }
}

/// A value written as code in a doc comment (`` `"EUR"` ``), fenced so that
/// backticks inside it cannot end the span.
pub(crate) fn code(text: &str) -> String {
    let text = doc_safe(text);
    let mut run = 0;
    let mut longest = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if longest > 0 { format!("{fence} {text} {fence}") } else { format!("{fence}{text}{fence}") }
}

/// `n` and `noun`, plural unless `n` is 1 (`1 tool`, `3 tools`).
pub(crate) fn count(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// `text` as a doc comment can hold it: control characters other than tab (a lone
/// CR that rustc refuses in doc comments, among them) written as escapes.
pub(crate) fn doc_safe(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\t') {
        return text.to_owned();
    }
    text.chars().map(|c| if c.is_control() && c != '\t' { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// A registry's own words (a description, a title) as rustdoc shows them literally:
/// `[x]` is no intra-doc link, `<x>` no HTML tag, and a bare URL an autolink, so a
/// crate documented with `RUSTDOCFLAGS="-D warnings"` builds whatever the registry says.
/// Code spans (`` `…` ``) are kept as they are.
pub(crate) fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !in_code && (rest.starts_with("https://") || rest.starts_with("http://")) {
            let end = rest.find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`' | ')' | ']')).unwrap_or(rest.len());
            let url = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', '\'']);
            out.push('<');
            out.push_str(url);
            out.push('>');
            rest = &rest[url.len()..];
            continue;
        }
        match c {
            '`' => in_code = !in_code,
            '[' | ']' | '<' | '>' if !in_code => out.push('\\'),
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `Constraints: …. Default: ….`, or `None` when the schema states neither.
fn facts(node: &Node, default: Option<&Json<'_>>) -> Option<String> {
    let mut parts = Vec::new();
    let constraints = constraints(node);
    if !constraints.is_empty() {
        parts.push(format!("Constraints: {}.", constraints.join("; ")));
    }
    if let Some(d) = default {
        parts.push(format!("Default: {}.", code(&d.to_json_string())));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// What `node` requires beyond what its Rust type says, one phrase per keyword.
fn constraints(node: &Node) -> Vec<String> {
    match node {
        Node::Integer { bounds, .. } | Node::Number(bounds) => number(bounds),
        Node::String(r) => string(r),
        Node::Array(a) => array(a),
        Node::Object(o) => object(o),
        Node::Enum(values) => vec![format!("one of {}", values.iter().map(|v| code(&v.to_json_string())).collect::<Vec<_>>().join(", "))],
        Node::Const(v) => vec![format!("exactly {}", code(&v.to_json_string()))],
        Node::Nullable(inner) => constraints(&inner.node),
        Node::Union { mode: UnionMode::OneOf, .. } => vec!["exactly one option matches (`oneOf`)".into()],
        Node::Spec(_) => vec!["the value is checked against its JSON Schema as written".into()],
        Node::Never => vec!["no value is valid".into()],
        // The untagged enum of an `anyOf` says all there is: the first option that matches is kept.
        Node::Union { mode: UnionMode::AnyOf, .. } | Node::Any | Node::Null | Node::Boolean | Node::Ref(_) | Node::IfType(_) => Vec::new(),
    }
}

/// `1 <= value <= 999999`, `value > 0`, `a multiple of 0.5`.
fn number(b: &NumberBounds) -> Vec<String> {
    // (bound, as the left of a chain, as a comparison with the value on the left)
    let lower: Vec<(f64, &str, &str)> = [(b.minimum, "<=", ">="), (b.exclusive_minimum, "<", ">")].into_iter().filter_map(|(x, l, r)| x.map(|x| (x, l, r))).collect();
    let upper: Vec<(f64, &str)> = [(b.maximum, "<="), (b.exclusive_maximum, "<")].into_iter().filter_map(|(x, op)| x.map(|x| (x, op))).collect();
    let mut out = match (lower.as_slice(), upper.as_slice()) {
        ([(lo, l, _)], [(hi, op)]) => vec![format!("`{} {l} value {op} {}`", show_number(*lo), show_number(*hi))],
        _ => lower.iter().map(|(lo, _, r)| format!("`value {r} {}`", show_number(*lo))).chain(upper.iter().map(|(hi, op)| format!("`value {op} {}`", show_number(*hi)))).collect(),
    };
    if let Some(m) = b.multiple_of {
        out.push(format!("a multiple of `{}`", show_number(m)));
    }
    out
}

/// A count of `noun`s between `min` and `max` (`1 to 5 items`, `at least 1 item`).
fn range(min: Option<u64>, max: Option<u64>, noun: &str) -> Option<String> {
    match (min, max) {
        (Some(a), Some(b)) if a == b => Some(format!("exactly {}", count(a, noun))),
        (Some(a), Some(b)) => Some(format!("{a} to {}", count(b, noun))),
        (Some(a), None) => Some(format!("at least {}", count(a, noun))),
        (None, Some(b)) => Some(format!("at most {}", count(b, noun))),
        (None, None) => None,
    }
}

/// Length in characters (Unicode code points), every pattern, the format.
fn string(r: &StringRule) -> Vec<String> {
    let mut out: Vec<String> = range(r.min_length, r.max_length, "character").into_iter().collect();
    out.extend(r.patterns.iter().map(|p| format!("matches the pattern {}", code(&p.source))));
    out.extend(r.format.map(|f| format!("format `{}`", f.name())));
    out
}

fn array(a: &ArrayRule) -> Vec<String> {
    let mut out: Vec<String> = range(a.min_items, a.max_items, "item").into_iter().collect();
    if a.unique {
        out.push("items are unique".into());
    }
    out
}

fn object(o: &ObjectRule) -> Vec<String> {
    let mut out: Vec<String> = range(o.min_properties, o.max_properties, "key").into_iter().collect();
    if !o.required_extra.is_empty() {
        out.push(format!("requires the undeclared keys {}", o.required_extra.iter().map(|k| code(k)).collect::<Vec<_>>().join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_prose_is_shown_literally() {
        assert_eq!(prose("with [FILE] and [DIR] prefixes"), r"with \[FILE\] and \[DIR\] prefixes");
        assert_eq!(prose("read <path>, see https://example.com/x."), r"read \<path\>, see <https://example.com/x>.");
        assert_eq!(prose("a `[code]` span and http://a.b"), "a `[code]` span and <http://a.b>");
        assert_eq!(prose("plain text"), "plain text");
    }

    #[test]
    fn code_spans_hold_backticks_and_control_characters() {
        assert_eq!(code("\"EUR\""), "`\"EUR\"`");
        assert_eq!(code("a`b``c"), "``` a`b``c ```");
        assert_eq!(code("a\nb"), "`a\\nb`");
    }

    #[test]
    fn bounds_read_as_a_chain_or_one_comparison_each() {
        let b = |minimum, maximum, exclusive_minimum, exclusive_maximum| NumberBounds { minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of: None };
        assert_eq!(number(&b(Some(1.0), Some(999999.0), None, None)), ["`1 <= value <= 999999`"]);
        assert_eq!(number(&b(None, None, Some(0.0), None)), ["`value > 0`"]);
        assert_eq!(number(&b(Some(1.0), None, Some(0.0), Some(2.5))), ["`value >= 1`", "`value > 0`", "`value < 2.5`"]);
        assert_eq!(number(&NumberBounds { multiple_of: Some(0.5), ..NumberBounds::default() }), ["a multiple of `0.5`"]);
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!((count(1, "tool"), count(0, "tool"), count(2, "tool")), ("1 tool".into(), "0 tools".into(), "2 tools".into()));
        assert_eq!(range(Some(2), Some(2), "item").as_deref(), Some("exactly 2 items"));
        assert_eq!(range(Some(1), None, "character").as_deref(), Some("at least 1 character"));
    }
}
