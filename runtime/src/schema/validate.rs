//! The IR interpreter: validates a JSON tree against a compiled schema with
//! exactly the checks, order and rejections of generated code. It checks
//! defaults and `enum` values at build time and is the core of the dynamic resolver.

use std::borrow::Cow;
use std::sync::Arc;

use super::{Additional, IntRepr, Items, Node, ObjectRule, Schema, SchemaDoc, UnionMode, describe};
use crate::check::{self, Cx};
use crate::json::Json;
use crate::path::Path;
use crate::rejection::{Keyword, Names, Rejection};

/// Validates `v` (a whole document) against `schema` in strict mode.
pub fn validate(doc: &SchemaDoc, schema: &Schema, v: &Json<'_>) -> Result<(), Rejection> {
    validate_at(doc, schema, v, &Path::root(), &mut Cx::strict())
}

/// Validates `v`, found at `at`, against `schema`.
pub fn validate_at(doc: &SchemaDoc, schema: &Schema, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<(), Rejection> {
    match &schema.node {
        Node::Any => check::no_duplicates_deep(v, at),
        Node::IfType(inner) if same_kind(&inner.node, v) => validate_at(doc, inner, v, at, cx),
        Node::IfType(_) => check::no_duplicates_deep(v, at),
        Node::Never => Err(Rejection::violation(at, Keyword::False, "no value (the schema here admits none)", v.kind())),
        Node::Spec(s) => s.doc.validate_at(s.node, v, at, cx),
        Node::Null => check::null(v, at),
        Node::Boolean => check::boolean(v, at).map(drop),
        Node::Integer { bounds, repr: IntRepr::I64 } => check::integer_i64(v, at, cx, bounds).map(drop),
        Node::Integer { bounds, repr: IntRepr::U64 } => check::integer_u64(v, at, cx, bounds).map(drop),
        Node::Number(bounds) => check::number_f64(v, at, cx, bounds).map(drop),
        Node::String(rule) => {
            let s = check::string(v, at)?;
            check::length(s, at, rule.min_length, rule.max_length)?;
            for p in &rule.patterns {
                check::pattern(s, at, &p.regex, &p.source)?;
            }
            match rule.format {
                Some(f) => check::format(s, at, f),
                None => Ok(()),
            }
        }
        Node::Array(rule) => {
            let items = check::array(v, at)?;
            check::items(items, at, rule.min_items, rule.max_items, rule.unique)?;
            let mut first = None;
            for (i, item) in items.iter().enumerate() {
                let here = at.index(i);
                let checked = match (rule.prefix.get(i), &rule.items) {
                    (Some(p), _) => validate_at(doc, p, item, &here, cx),
                    (None, Items::Schema(s)) => validate_at(doc, s, item, &here, cx),
                    (None, Items::Any) => check::no_duplicates_deep(item, &here),
                    // `items: false` already capped the count.
                    (None, Items::None) => Ok(()),
                };
                signature_first(&mut first, checked)?;
            }
            first.map_or(Ok(()), Err)
        }
        Node::Object(rule) => object(doc, rule, v, at, cx),
        Node::Enum(values) => check::one_of_values(v, at, values, || Cow::Owned(describe(doc, schema))),
        Node::Const(c) => {
            if c == v {
                Ok(())
            } else {
                Err(Rejection::violation(at, Keyword::Const, describe(doc, schema), v.kind()))
            }
        }
        Node::Nullable(inner) => match v {
            Json::Null => Ok(()),
            _ => validate_at(doc, inner, v, at, cx),
        },
        Node::Union { mode, options } => union(doc, schema, *mode, options, v, at, cx),
        Node::Ref(i) => validate_at(doc, &doc.defs[*i].schema, v, at, cx),
    }
}

fn union(doc: &SchemaDoc, schema: &Schema, mode: UnionMode, options: &[Schema], v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<(), Rejection> {
    let mut errors = Vec::new();
    let mut matched: Option<Cx> = None;
    for option in options {
        let mut trial = cx.child();
        match validate_at(doc, option, v, at, &mut trial) {
            Ok(()) if mode == UnionMode::AnyOf => {
                cx.absorb(trial);
                return Ok(());
            }
            Ok(()) if matched.is_some() => return Err(check::one_of_ambiguous(at, v, Cow::Owned(format!("exactly {}", describe(doc, schema))))),
            Ok(()) => matched = Some(trial),
            Err(e) => errors.push(e),
        }
    }
    match matched {
        Some(trial) => {
            cx.absorb(trial);
            Ok(())
        }
        None => {
            let keyword = if mode == UnionMode::AnyOf { Keyword::AnyOf } else { Keyword::OneOf };
            Err(check::union_error(at, v, keyword, Cow::Owned(describe(doc, schema)), errors))
        }
    }
}

/// Whether `v` is of the type a conditional node's keywords belong to.
fn same_kind(node: &Node, v: &Json<'_>) -> bool {
    matches!((node, v), (Node::Object(_), Json::Object(_)) | (Node::Array(_), Json::Array(_)) | (Node::String(_), Json::String(_)) | (Node::Number(_) | Node::Integer { .. }, Json::Number(_)))
}

fn declared(rule: &ObjectRule) -> Names {
    let names: Arc<[Box<str>]> = rule.properties.iter().map(|p| p.name.clone().into_boxed_str()).collect();
    Names::Shared(names)
}

/// Objects: keys first (undeclared, duplicated, missing: H2), then counts, then values.
fn object(doc: &SchemaDoc, rule: &ObjectRule, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<(), Rejection> {
    let members = check::object(v, at)?;
    let mut slots: Vec<Option<&Json<'_>>> = vec![None; rule.properties.len()];
    let mut extra_refs: Vec<(&str, &Json<'_>)> = Vec::new();
    for (k, val) in members {
        match rule.properties.iter().position(|p| p.name == *k) {
            Some(i) => {
                if slots[i].replace(val).is_some() {
                    return Err(Rejection::duplicate_key(at, k));
                }
            }
            None if matches!(rule.additional, Additional::Closed) => return Err(Rejection::undeclared_key(at, k, declared(rule))),
            None => extra_refs.push((k, val)),
        }
    }
    if !extra_refs.is_empty() {
        check::distinct_keys(&extra_refs.iter().map(|(k, _)| *k).collect::<Vec<_>>(), at)?;
    }
    for (p, slot) in rule.properties.iter().zip(&slots) {
        if p.required && slot.is_none() {
            return Err(Rejection::missing_key(at, p.name.clone(), declared(rule)));
        }
    }
    for r in &rule.required_extra {
        if !extra_refs.iter().any(|(k, _)| k == r) {
            return Err(Rejection::missing_key(at, r.clone(), declared(rule)));
        }
    }
    check::property_count(members.len(), at, rule.min_properties, rule.max_properties)?;
    let mut first = None;
    for (p, slot) in rule.properties.iter().zip(&slots) {
        if let Some(val) = slot {
            signature_first(&mut first, validate_at(doc, &p.schema, val, &at.key(&p.name), cx))?;
        }
    }
    for (k, val) in extra_refs {
        let here = at.key(k);
        let checked = match &rule.additional {
            Additional::Schema(s) => validate_at(doc, s, val, &here, cx),
            _ => check::no_duplicates_deep(val, &here),
        };
        signature_first(&mut first, checked)?;
    }
    first.map_or(Ok(()), Err)
}

/// Class order: a key problem (H2) is a signature error wherever it sits, so it
/// returns at once; the first value problem waits in `first` until every sibling
/// after it was checked for one.
pub fn signature_first(first: &mut Option<Rejection>, checked: Result<(), Rejection>) -> Result<(), Rejection> {
    match checked {
        Err(e) if e.class() == crate::Class::H2 => Err(e),
        Err(e) => {
            first.get_or_insert(e);
            Ok(())
        }
        Ok(()) => Ok(()),
    }
}
