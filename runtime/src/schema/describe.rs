//! Short words for what a schema expects, used in rejection messages. The code
//! generator bakes the same words into generated code, so both resolvers say
//! the same thing.

use super::{Node, Schema, SchemaDoc};
use crate::json::Json;

/// What `schema` expects, in a few words (`one of "eur", "usd"`, `string or null`).
pub fn describe(doc: &SchemaDoc, schema: &Schema) -> String {
    describe_node(doc, &schema.node, 0)
}

fn describe_node(doc: &SchemaDoc, node: &Node, depth: usize) -> String {
    match node {
        Node::Any => "any value".into(),
        Node::Never => "no value".into(),
        Node::IfType(inner) => format!("any value; if {}, one that meets its keywords", describe_node(doc, &inner.node, depth + 1)),
        Node::Spec(_) => "a value its schema allows".into(),
        Node::Null => "null".into(),
        Node::Boolean => "boolean".into(),
        Node::Integer { .. } => "integer".into(),
        Node::Number(_) => "number".into(),
        Node::String(_) => "string".into(),
        Node::Array(_) => "array".into(),
        Node::Object(_) => "object".into(),
        Node::Enum(values) => format!("one of {}", list_values(values)),
        Node::Const(v) => format!("the value {}", show_value(v)),
        Node::Nullable(inner) => format!("{} or null", describe_node(doc, &inner.node, depth + 1)),
        Node::Union { options, .. } => {
            let mut parts: Vec<String> = Vec::new();
            for o in options {
                let d = describe_node(doc, &o.node, depth + 1);
                if !parts.contains(&d) {
                    parts.push(d);
                }
            }
            format!("one of: {}", parts.join(" | "))
        }
        Node::Ref(i) if depth < 4 => describe_node(doc, &doc.defs[*i].schema.node, depth + 1),
        Node::Ref(i) => doc.defs[*i].name.clone(),
    }
}

/// What an `enum` (or, with `is_const`, a `const`) of `values` expects: the words
/// [`describe`] gives its schema.
pub fn describe_values(values: &[Json<'_>], is_const: bool) -> String {
    match (is_const, values.first()) {
        (true, Some(v)) => format!("the value {}", show_value(v)),
        _ => format!("one of {}", list_values(values)),
    }
}

fn show_value(v: &Json<'_>) -> String {
    let text = v.to_json_string();
    match text.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// The values of an `enum`, at most eight shown.
pub(crate) fn list_values(values: &[Json<'_>]) -> String {
    let mut parts: Vec<String> = values.iter().take(8).map(show_value).collect();
    if values.len() > 8 {
        parts.push(format!("… ({} more)", values.len() - 8));
    }
    parts.join(", ")
}
