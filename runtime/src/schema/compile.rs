//! JSON Schema (draft-07 and 2020-12) → [`SchemaDoc`]. Every keyword is either
//! compiled into the IR, known to be an annotation, or an error naming the
//! JSON pointer and the keyword: nothing is silently dropped.

use std::collections::HashMap;
use std::sync::Arc;

use super::closed::{closed_world, closed_world_implied_types};
use super::error::{SchemaError, err};
use super::keywords::{Role, role};
use super::merge::merge;
use super::place::{Place, implied_types, inferred_type};
use super::read;
use super::spec::uri::percent_decode;
use super::spec::{SpecDoc, SpecOptions};
use super::validate;
use super::{Additional, ArrayRule, Def, Items, Node, ObjectRule, Property, Schema, SchemaDoc, SpecRef, StringRule, UnionMode, contains_ref, int_repr, visit_refs};
use crate::check::Format;
use crate::json::Json;
use crate::path::push_escaped;
use crate::pattern::Pattern;

/// How schemas are compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileOptions {
    /// Enforce `format` (default `true`) for the formats toolseal knows; unknown
    /// formats are annotations either way (`lint` notes them).
    pub assert_formats: bool,
    /// Opt-in strictness (default `false`): a schema without `type` whose keywords
    /// all belong to one type (`minLength` → string) admits only that type.
    /// By default such a schema follows the specification (other types pass).
    pub implied_types: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { assert_formats: true, implied_types: false }
    }
}

/// Marks the implied type of an `allOf` member as conditional ([`Node::IfType`]).
const CONDITIONAL: &str = "if-type";

/// Compiles a tool's `inputSchema` (or `outputSchema`). The root is closed: it
/// admits no undeclared key unless `additionalProperties` says otherwise.
///
/// Every part of the schema that a Rust type expresses compiles to the typed IR;
/// every other part (at the nearest value position) to a [`Node::Spec`] checked by
/// the specification validator on the closed-world schema. The error is for a
/// schema that cannot be enforced at all (a reference that cannot be resolved, a
/// pattern that cannot compile, a malformed keyword, a required key that admits no value).
pub fn compile_tool_schema(schema: &Json<'static>, options: &CompileOptions) -> Result<SchemaDoc, SchemaError> {
    let closed = if options.implied_types { closed_world_implied_types(schema) } else { closed_world(schema) };
    let spec = Arc::new(SpecDoc::compile(&closed, &SpecOptions { assert_formats: options.assert_formats, documents: Vec::new() })?);
    let mut c = Compiler { doc: schema, options: *options, defs: Vec::new(), by_ref: HashMap::new(), spec, notes: Vec::new(), fatal: None };
    let root = c.compile(schema, "", Place::Root)?;
    if let Some(e) = c.fatal {
        return Err(e);
    }
    let mut defs: Vec<Def> = c.defs.into_iter().map(|d| d.expect("every reserved def is filled")).collect();
    mark_recursive(&mut defs);
    let mut doc = SchemaDoc { root, defs, notes: c.notes };
    check_root_is_object(&doc, &doc.root)?;
    check_required_satisfiable(&doc.root)?;
    doc.defs.iter().try_for_each(|d| check_required_satisfiable(&d.schema))?;
    drop_invalid_defaults(&mut doc);
    Ok(doc)
}

fn check_root_is_object(doc: &SchemaDoc, schema: &Schema) -> Result<(), SchemaError> {
    match &doc.resolve(schema).node {
        Node::Object(_) | Node::Spec(_) => Ok(()),
        Node::Union { options, .. } => options.iter().try_for_each(|o| check_root_is_object(doc, o)),
        _ => err(&schema.pointer, "type", "tool arguments must be an object schema (`\"type\": \"object\"`)"),
    }
}

/// A required key whose schema admits no value makes every call invalid: the tool cannot be used.
fn check_required_satisfiable(s: &Schema) -> Result<(), SchemaError> {
    let mut result = Ok(());
    visit_properties(s, &mut |p| {
        if p.required && matches!(p.schema.node, Node::Never) && result.is_ok() {
            result = err(&p.schema.pointer, "required", format!("{:?} is required but its schema admits no value, so no call could be valid", p.name));
        }
    });
    result
}

/// A `default` is what the resolver hands the tool when an optional key is absent, so
/// one that breaks its own schema is never applied: the key stays absent (`lint` says so).
/// `"default": null` on a schema that does not admit null (pydantic's `x: T = None`)
/// means "absent" and is dropped without a note.
fn drop_invalid_defaults(doc: &mut SchemaDoc) {
    let mut invalid: Vec<(String, bool)> = Vec::new();
    let mut check = |p: &Property| {
        if let Some(d) = &p.schema.default
            && validate::validate(doc, &p.schema, d).is_err()
        {
            invalid.push((p.schema.pointer.clone(), matches!(d, Json::Null)));
        }
    };
    visit_properties(&doc.root, &mut check);
    doc.defs.iter().for_each(|d| visit_properties(&d.schema, &mut check));
    for (pointer, is_null) in &invalid {
        if !is_null {
            doc.notes.push(SchemaError {
                pointer: pointer.clone(),
                keyword: "default".into(),
                message: "the default is not valid for its own schema, so it is never applied (the key stays absent)".into(),
            });
        }
    }
    let mut drop = |p: &mut Property| {
        if invalid.iter().any(|(ptr, _)| *ptr == p.schema.pointer) {
            p.schema.default = None;
        }
    };
    visit_properties_mut(&mut doc.root, &mut drop);
    doc.defs.iter_mut().for_each(|d| visit_properties_mut(&mut d.schema, &mut drop));
}

/// Calls `f` with every property declared inside `s`, mutably (not following refs).
fn visit_properties_mut(s: &mut Schema, f: &mut dyn FnMut(&mut Property)) {
    match &mut s.node {
        Node::Nullable(inner) => visit_properties_mut(inner, f),
        Node::Union { options, .. } => options.iter_mut().for_each(|o| visit_properties_mut(o, f)),
        Node::Array(a) => {
            a.prefix.iter_mut().for_each(|p| visit_properties_mut(p, f));
            if let Items::Schema(i) = &mut a.items {
                visit_properties_mut(i, f);
            }
        }
        Node::Object(o) => {
            for p in &mut o.properties {
                f(p);
                visit_properties_mut(&mut p.schema, f);
            }
            if let Additional::Schema(a) = &mut o.additional {
                visit_properties_mut(a, f);
            }
        }
        _ => {}
    }
}

/// Calls `f` with every property declared inside `s` (not following refs).
fn visit_properties(s: &Schema, f: &mut dyn FnMut(&Property)) {
    match &s.node {
        Node::Nullable(inner) => visit_properties(inner, f),
        Node::Union { options, .. } => options.iter().for_each(|o| visit_properties(o, f)),
        Node::Array(a) => {
            a.prefix.iter().for_each(|p| visit_properties(p, f));
            if let Items::Schema(i) = &a.items {
                visit_properties(i, f);
            }
        }
        Node::Object(o) => {
            for p in &o.properties {
                f(p);
                visit_properties(&p.schema, f);
            }
            if let Additional::Schema(a) = &o.additional {
                visit_properties(a, f);
            }
        }
        _ => {}
    }
}

struct Compiler<'d> {
    doc: &'d Json<'static>,
    options: CompileOptions,
    defs: Vec<Option<Def>>,
    by_ref: HashMap<String, usize>,
    /// The closed-world schema compiled for the specification validator.
    spec: Arc<SpecDoc>,
    /// What `lint` should say: unknown keywords, defaults never applied.
    notes: Vec<SchemaError>,
    /// A finding that makes every call invalid (a required key a closed object cannot hold):
    /// the schema is refused even where the specification validator could take it.
    fatal: Option<SchemaError>,
}

/// The keywords of one schema object, checked for duplicates and support.
struct Words<'j> {
    members: Vec<(&'j str, &'j Json<'static>)>,
}

impl<'j> Words<'j> {
    /// The keywords of a schema object. Unknown keywords are annotations (noted for
    /// `lint`); keywords only the specification validator enforces are an error, so
    /// that the schema falls back to it.
    fn collect(members: &'j [(std::borrow::Cow<'static, str>, Json<'static>)], ptr: &str, notes: &mut Vec<SchemaError>) -> Result<Words<'j>, SchemaError> {
        let mut out: Vec<(&str, &Json<'static>)> = Vec::with_capacity(members.len());
        for (k, v) in members {
            if out.iter().any(|(seen, _)| seen == k) {
                return err(ptr, k, "keyword given twice");
            }
            let role = role(k);
            if role == Some(Role::SpecOnly) && !(k == "$id" && ptr.is_empty()) {
                return err(ptr, k, "no Rust type expresses this keyword");
            }
            if role.is_none() {
                if !k.starts_with("x-") && !notes.iter().any(|n| n.pointer == ptr && n.keyword == k.as_ref()) {
                    notes.push(SchemaError { pointer: ptr.to_owned(), keyword: k.to_string(), message: "unknown keyword: an annotation, it constrains nothing (check its spelling)".into() });
                }
                continue;
            }
            out.push((k.as_ref(), v));
        }
        Ok(Words { members: out })
    }

    fn get(&self, k: &str) -> Option<&'j Json<'static>> {
        self.members.iter().find(|(n, _)| *n == k).map(|(_, v)| *v)
    }

    /// Typed keywords ([`Role::Typed`]) other than `except`.
    fn assertions_except(&self, except: &[&str]) -> Vec<&'j str> {
        self.members.iter().map(|(k, _)| *k).filter(|k| role(k) == Some(Role::Typed) && !except.contains(k)).collect()
    }
}

fn child(ptr: &str, token: &str) -> String {
    let mut s = String::with_capacity(ptr.len() + token.len() + 1);
    s.push_str(ptr);
    s.push('/');
    push_escaped(&mut s, token);
    s
}

impl Compiler<'_> {
    /// The schema at `ptr`: typed where a Rust type expresses it, else a [`Node::Spec`].
    /// Members of `allOf` do not fall back alone: the `allOf` around them does.
    fn compile(&mut self, v: &Json<'static>, ptr: &str, place: Place) -> Result<Schema, SchemaError> {
        let typed = match self.compile_typed(v, ptr, place) {
            Ok(s) if matches!(s.node, Node::IfType(_)) && !matches!(place, Place::Applicator | Place::MemberProperty) => err(ptr, "type", "keywords of one type without `type`"),
            other => other,
        };
        match typed {
            Ok(s) => Ok(s),
            Err(e) if place == Place::Applicator => Err(e),
            Err(e) => {
                let Some(node) = self.spec.node_at(ptr) else { return Err(e) };
                let words = match v {
                    Json::Object(m) => Words { members: m.iter().map(|(k, x)| (k.as_ref(), x)).collect() },
                    _ => Words { members: Vec::new() },
                };
                Ok(Schema {
                    node: Node::Spec(SpecRef { doc: self.spec.clone(), node }),
                    title: text(&words, "title"),
                    description: text(&words, "description"),
                    default: words.get("default").cloned(),
                    pointer: ptr.to_owned(),
                })
            }
        }
    }

    fn compile_typed(&mut self, v: &Json<'static>, ptr: &str, place: Place) -> Result<Schema, SchemaError> {
        match v {
            Json::Bool(true) => Ok(Schema::bare(Node::Any, ptr)),
            Json::Bool(false) => Ok(Schema::bare(Node::Never, ptr)),
            Json::Object(members) => {
                let words = Words::collect(members, ptr, &mut self.notes)?;
                let mut schema = self.compile_words(&words, ptr, place)?;
                schema.title = text(&words, "title");
                schema.description = text(&words, "description");
                schema.default = words.get("default").cloned();
                Ok(schema)
            }
            _ => err(ptr, "type", format!("a schema must be an object or a boolean, found {}", v.kind())),
        }
    }

    fn compile_words(&mut self, w: &Words<'_>, ptr: &str, place: Place) -> Result<Schema, SchemaError> {
        if let Some(r) = w.get("$ref") {
            if let Some(k) = w.assertions_except(&["$ref"]).first() {
                return err(ptr, k, "`$ref` with sibling assertion keywords is not supported; move them into the referenced schema or use `allOf`");
            }
            let idx = self.reference(r, ptr)?;
            return Ok(Schema::bare(Node::Ref(idx), ptr));
        }
        if let Some(all) = w.get("allOf") {
            let parts = schema_array(all, &child(ptr, "allOf"), "allOf")?;
            let mut acc = self.compile_plain(w, ptr, place, &["allOf"])?;
            for (i, part) in parts.iter().enumerate() {
                let p = child(&child(ptr, "allOf"), &i.to_string());
                let s = self.compile(part, &p, Place::Applicator)?;
                acc = merge(&self.partial_defs()?, acc, s, ptr)?;
            }
            if place == Place::Root {
                close_root(&mut acc);
            }
            if place != Place::Applicator {
                self.settle_conditionals(&mut acc)?;
            }
            return Ok(acc);
        }
        self.compile_plain(w, ptr, place, &[])
    }

    /// A schema without `$ref`/`allOf` (or the siblings of `allOf`).
    fn compile_plain(&mut self, w: &Words<'_>, ptr: &str, place: Place, skip: &[&str]) -> Result<Schema, SchemaError> {
        for union in ["anyOf", "oneOf"] {
            if let Some(opts) = w.get(union) {
                let mut except = vec![union];
                except.extend_from_slice(skip);
                if let Some(k) = w.assertions_except(&except).first() {
                    return err(ptr, k, format!("`{union}` with sibling assertion keywords is not supported; move `{k}` into each option"));
                }
                let mode = if union == "anyOf" { UnionMode::AnyOf } else { UnionMode::OneOf };
                return self.compile_union(opts, mode, &child(ptr, union));
            }
        }
        for word in ["enum", "const"] {
            if let Some(values) = w.get(word) {
                return self.compile_values(w, word, values, ptr, place, skip);
            }
        }
        let mut types = self.types(w, ptr, place)?;
        let conditional = types.last() == Some(&CONDITIONAL);
        if conditional {
            types.pop();
        }
        let mut options = Vec::new();
        let mut nullable = false;
        for t in &types {
            let node = match *t {
                "null" => {
                    nullable = true;
                    continue;
                }
                "boolean" => Node::Boolean,
                "integer" if types.contains(&"number") => continue,
                "integer" => {
                    let bounds = read::bounds(|k| w.get(k), ptr)?;
                    Node::Integer { repr: int_repr(&bounds), bounds }
                }
                "number" => Node::Number(read::bounds(|k| w.get(k), ptr)?),
                "string" => Node::String(self.string(w, ptr)?),
                "array" => Node::Array(self.array(w, ptr)?),
                "object" => Node::Object(self.object(w, ptr, place)?),
                other => return err(ptr, "type", format!("unknown type {other:?}")),
            };
            options.push(Schema::bare(node, ptr));
        }
        let node = match (options.len(), nullable) {
            (0, true) => Node::Null,
            (0, false) => Node::Any,
            (1, false) => options.pop().map(|s| s.node).unwrap_or(Node::Any),
            (1, true) => Node::Nullable(Box::new(options.pop().expect("one option"))),
            (_, false) => Node::Union { mode: UnionMode::AnyOf, options },
            (_, true) => Node::Nullable(Box::new(Schema::bare(Node::Union { mode: UnionMode::AnyOf, options }, ptr))),
        };
        let node = if conditional { Node::IfType(Box::new(Schema::bare(node, ptr))) } else { node };
        Ok(Schema::bare(node, ptr))
    }

    /// The `type` list, or the type implied by the keywords present.
    fn types(&mut self, w: &Words<'_>, ptr: &str, place: Place) -> Result<Vec<&'static str>, SchemaError> {
        const ALL: [&str; 7] = ["null", "boolean", "integer", "number", "string", "array", "object"];
        let canonical = |t: &str| ALL.iter().copied().find(|a| *a == t);
        match w.get("type") {
            Some(Json::String(t)) => match canonical(t) {
                Some(t) => Ok(vec![t]),
                None => err(ptr, "type", format!("unknown type {t:?}")),
            },
            Some(Json::Array(ts)) if !ts.is_empty() => {
                let mut out = Vec::new();
                for t in ts {
                    match t.as_str().and_then(canonical) {
                        Some(t) if !out.contains(&t) => out.push(t),
                        _ => return err(ptr, "type", "`type` must list distinct known type names"),
                    }
                }
                Ok(out)
            }
            Some(_) => err(ptr, "type", "`type` must be a string or a non-empty array of strings"),
            None => {
                let present = implied_types(w.members.iter().map(|(k, _)| *k));
                if let Some(t) = inferred_type(&present, place, self.options.implied_types) {
                    return Ok(vec![t]);
                }
                match present.as_slice() {
                    [] => Ok(vec![]),
                    [one] if matches!(place, Place::Applicator | Place::MemberProperty) => Ok(vec![*one, CONDITIONAL]),
                    _ => {
                        self.note(
                            ptr,
                            "type",
                            format!("no `type` beside keywords of {}: values of any other type pass, as the specification says (add `type`, or compile with `implied_types`)", present.join(", ")),
                        );
                        err(ptr, "type", "no `type`: the specification validator applies")
                    }
                }
            }
        }
    }

    fn compile_union(&mut self, opts: &Json<'static>, mode: UnionMode, ptr: &str) -> Result<Schema, SchemaError> {
        let keyword = if mode == UnionMode::AnyOf { "anyOf" } else { "oneOf" };
        let parts = schema_array(opts, ptr, keyword)?;
        let mut options = Vec::with_capacity(parts.len());
        let mut nullable = false;
        for (i, part) in parts.iter().enumerate() {
            let s = self.compile(part, &child(ptr, &i.to_string()), Place::Nested)?;
            match s.node {
                // `anyOf: [X, null]` is X or null. Under `oneOf` a null that X also
                // accepts matches twice and is invalid, so null stays an option there.
                Node::Null if !nullable && mode == UnionMode::AnyOf => nullable = true,
                _ => options.push(s),
            }
        }
        let parent = ptr.rsplit_once('/').map_or("", |(p, _)| p);
        let inner = match options.len() {
            0 => return Ok(Schema::bare(Node::Null, parent)),
            1 => options.pop().expect("one option"),
            _ => Schema::bare(Node::Union { mode, options }, parent),
        };
        Ok(if nullable { Schema::bare(Node::Nullable(Box::new(inner)), parent) } else { inner })
    }

    /// `enum` / `const`: the listed values that the sibling keywords allow.
    fn compile_values(&mut self, w: &Words<'_>, word: &str, values: &Json<'static>, ptr: &str, place: Place, skip: &[&str]) -> Result<Schema, SchemaError> {
        let listed: Vec<Json<'static>> = match (word, values) {
            ("enum", Json::Array(vs)) if !vs.is_empty() => vs.clone(),
            ("enum", _) => return err(ptr, "enum", "`enum` must be a non-empty array"),
            (_, v) => vec![v.clone()],
        };
        if word == "enum" && w.get("const").is_some() {
            return err(ptr, "const", "`enum` and `const` together are not supported; keep one");
        }
        let mut except = vec!["enum", "const"];
        except.extend_from_slice(skip);
        let mut kept = listed.clone();
        if !w.assertions_except(&except).is_empty() {
            let rest = self.compile_plain_without(w, ptr, place, &except)?;
            let doc = SchemaDoc { root: rest, defs: Vec::new(), notes: Vec::new() };
            if contains_ref(&doc.root) {
                return err(ptr, word, format!("`{word}` beside a `$ref` is not supported"));
            }
            kept.retain(|v| validate::validate(&doc, &doc.root, v).is_ok());
        }
        if kept.is_empty() {
            return Ok(Schema::bare(Node::Never, ptr));
        }
        // Repeated values (`1` and `1.0` included) allow nothing more; keep the first.
        let mut unique: Vec<Json<'static>> = Vec::with_capacity(kept.len());
        for v in kept {
            if !unique.contains(&v) {
                unique.push(v);
            }
        }
        let mut kept = unique;
        let node = if word == "enum" { Node::Enum(kept) } else { Node::Const(kept.remove(0)) };
        Ok(Schema::bare(node, ptr))
    }

    fn compile_plain_without(&mut self, w: &Words<'_>, ptr: &str, place: Place, except: &[&str]) -> Result<Schema, SchemaError> {
        let rest = Words { members: w.members.iter().copied().filter(|(k, _)| !except.contains(k)).collect() };
        let rest_place = if place == Place::Root { Place::Nested } else { place };
        self.compile_plain(&rest, ptr, rest_place, &[])
    }

    fn string(&mut self, w: &Words<'_>, ptr: &str) -> Result<StringRule, SchemaError> {
        let mut rule = StringRule { min_length: read::count(|k| w.get(k), "minLength", ptr)?, max_length: read::count(|k| w.get(k), "maxLength", ptr)?, ..StringRule::default() };
        if let Some(p) = w.get("pattern") {
            let Some(src) = p.as_str() else { return err(ptr, "pattern", "`pattern` must be a string") };
            match Pattern::new(src) {
                Ok(p) => rule.patterns.push(p),
                Err(e) => return err(ptr, "pattern", e.to_string()),
            }
        }
        if let Some(f) = w.get("format") {
            let Some(name) = f.as_str() else { return err(ptr, "format", "`format` must be a string") };
            if self.options.assert_formats {
                match Format::from_name(name) {
                    Some(f) => rule.format = Some(f),
                    None => {
                        let known: Vec<&str> = Format::ALL.iter().map(|(n, _)| *n).collect();
                        self.note(ptr, "format", format!("format {name:?} is not one toolseal asserts ({}): an annotation, it constrains nothing", known.join(", ")));
                    }
                }
            }
        }
        Ok(rule)
    }

    fn array(&mut self, w: &Words<'_>, ptr: &str) -> Result<ArrayRule, SchemaError> {
        let mut rule = ArrayRule {
            prefix: Vec::new(),
            items: Items::Any,
            min_items: read::count(|k| w.get(k), "minItems", ptr)?,
            max_items: read::count(|k| w.get(k), "maxItems", ptr)?,
            unique: match w.get("uniqueItems") {
                None => false,
                Some(Json::Bool(b)) => *b,
                Some(_) => return err(ptr, "uniqueItems", "`uniqueItems` must be a boolean"),
            },
        };
        let (prefix, rest, rest_word) = match (w.get("items"), w.get("prefixItems")) {
            (Some(Json::Array(tuple)), None) => (Some((tuple.as_slice(), "items")), w.get("additionalItems"), "additionalItems"),
            (Some(Json::Array(_)), Some(_)) => return err(ptr, "items", "tuple `items` and `prefixItems` together"),
            (items, Some(prefix)) => match prefix {
                Json::Array(p) => (Some((p.as_slice(), "prefixItems")), items, "items"),
                _ => return err(ptr, "prefixItems", "`prefixItems` must be an array of schemas"),
            },
            (items, None) => (None, items, "items"),
        };
        if prefix.is_none() && w.get("additionalItems").is_some() {
            return err(ptr, "additionalItems", "`additionalItems` without tuple `items` has no effect; remove it");
        }
        if let Some((schemas, word)) = prefix {
            for (i, s) in schemas.iter().enumerate() {
                let p = child(&child(ptr, word), &i.to_string());
                rule.prefix.push(self.compile(s, &p, Place::Nested)?);
            }
        }
        rule.items = match rest {
            None | Some(Json::Bool(true)) => Items::Any,
            Some(Json::Bool(false)) => {
                let n = rule.prefix.len() as u64;
                rule.max_items = Some(rule.max_items.map_or(n, |m| m.min(n)));
                Items::None
            }
            Some(s) => Items::Schema(Box::new(self.compile(s, &child(ptr, rest_word), Place::Nested)?)),
        };
        Ok(rule)
    }

    fn object(&mut self, w: &Words<'_>, ptr: &str, place: Place) -> Result<ObjectRule, SchemaError> {
        let mut properties = Vec::new();
        let mut forbidden = Vec::new();
        match w.get("properties") {
            None => {}
            Some(Json::Object(props)) => {
                for (name, s) in props {
                    if properties.iter().any(|p: &Property| p.name == *name) || forbidden.contains(&name.as_ref()) {
                        return err(ptr, "properties", format!("property {name:?} is declared twice"));
                    }
                    if let Json::Bool(false) = s {
                        forbidden.push(name.as_ref());
                        continue;
                    }
                    let p = child(&child(ptr, "properties"), name);
                    let at = if place == Place::Applicator { Place::MemberProperty } else { Place::Nested };
                    properties.push(Property { name: name.to_string(), schema: self.compile(s, &p, at)?, required: false });
                }
            }
            Some(_) => return err(ptr, "properties", "`properties` must be an object"),
        }
        let explicit_additional = w.get("additionalProperties").is_some();
        let additional = match w.get("additionalProperties") {
            Some(Json::Bool(false)) if place == Place::Applicator => {
                return err(ptr, "additionalProperties", "`additionalProperties: false` inside `allOf` rejects the keys other members declare; drop it (toolseal closes objects by default)");
            }
            Some(Json::Bool(false)) => Additional::Closed,
            Some(Json::Bool(true)) => Additional::Any,
            Some(s) => Additional::Schema(Box::new(self.compile(s, &child(ptr, "additionalProperties"), Place::Nested)?)),
            None if place == Place::Root || !properties.is_empty() || !forbidden.is_empty() => Additional::Closed,
            None => Additional::Any,
        };
        if !forbidden.is_empty() && !matches!(additional, Additional::Closed) {
            return err(ptr, "properties", "a `false` property beside open `additionalProperties` is not supported");
        }
        let mut required_extra = Vec::new();
        match w.get("required") {
            None => {}
            Some(Json::Array(names)) => {
                for n in names {
                    let Some(name) = n.as_str() else { return err(ptr, "required", "`required` must list strings") };
                    if let Some(p) = properties.iter_mut().find(|p| p.name == name) {
                        if p.required {
                            return err(ptr, "required", format!("{name:?} is listed twice"));
                        }
                        p.required = true;
                    } else if matches!(additional, Additional::Closed) {
                        let e = SchemaError {
                            pointer: ptr.to_owned(),
                            keyword: "required".into(),
                            message: format!("{name:?} is required but not declared in `properties` of a closed object, so no call could be valid; declare it"),
                        };
                        if place != Place::Applicator {
                            self.fatal.get_or_insert(e.clone());
                        }
                        return Err(e);
                    } else if !required_extra.iter().any(|r| r == name) {
                        required_extra.push(name.to_owned());
                    }
                }
            }
            Some(_) => return err(ptr, "required", "`required` must be an array of strings"),
        }
        Ok(ObjectRule {
            properties,
            additional,
            required_extra,
            min_properties: read::count(|k| w.get(k), "minProperties", ptr)?,
            max_properties: read::count(|k| w.get(k), "maxProperties", ptr)?,
            explicit_additional,
        })
    }

    /// Compiles (once) the schema a local `$ref` points at; returns its def index.
    fn reference(&mut self, r: &Json<'static>, ptr: &str) -> Result<usize, SchemaError> {
        let Some(reference) = r.as_str() else { return err(ptr, "$ref", "`$ref` must be a string") };
        if let Some(&i) = self.by_ref.get(reference) {
            return Ok(i);
        }
        let Some(fragment) = reference.strip_prefix('#').filter(|f| f.is_empty() || f.starts_with('/')) else {
            return err(ptr, "$ref", format!("a reference other than a local JSON pointer ({reference:?}) is resolved by the specification validator"));
        };
        let pointer = percent_decode(fragment);
        let Some(target) = self.doc.pointer(&pointer) else {
            return err(ptr, "$ref", format!("{reference:?} points at nothing in this schema"));
        };
        let idx = self.defs.len();
        self.defs.push(None);
        self.by_ref.insert(reference.to_owned(), idx);
        let schema = self.compile(target, &pointer, Place::Nested)?;
        let name = pointer.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or("Root").replace("~1", "/").replace("~0", "~");
        self.defs[idx] = Some(Def { name, reference: reference.to_owned(), schema, recursive: false });
        Ok(idx)
    }

    /// The defs compiled so far, for `allOf` merging (which needs them complete).
    fn partial_defs(&self) -> Result<Vec<Def>, SchemaError> {
        self.defs.iter().map(|d| d.clone().ok_or_else(|| SchemaError { pointer: String::new(), keyword: "allOf".into(), message: "`allOf` over a recursive `$ref` is not supported".into() })).collect()
    }
}

/// After `allOf` at the root: the arguments object stays closed unless a member opened it.
fn close_root(s: &mut Schema) {
    if let Node::Object(o) = &mut s.node
        && !o.explicit_additional
    {
        o.additional = Additional::Closed;
    }
}

impl Compiler<'_> {
    /// After an `allOf` merge: a property that stayed conditional (no other part gave
    /// it a type) is checked by the specification validator at its own schema.
    fn settle_conditionals(&mut self, s: &mut Schema) -> Result<(), SchemaError> {
        let Node::Object(o) = &mut s.node else { return Ok(()) };
        for p in &mut o.properties {
            if let Node::IfType(inner) = &p.schema.node {
                let Some(node) = self.spec.node_at(&inner.pointer) else {
                    return err(&inner.pointer, "type", "keywords of one type without `type`");
                };
                p.schema.node = Node::Spec(SpecRef { doc: self.spec.clone(), node });
            }
        }
        Ok(())
    }

    /// Records a finding for `lint` (once per pointer and keyword).
    fn note(&mut self, ptr: &str, keyword: &str, message: String) {
        if !self.notes.iter().any(|n| n.pointer == ptr && n.keyword == keyword) {
            self.notes.push(SchemaError { pointer: ptr.to_owned(), keyword: keyword.to_owned(), message });
        }
    }
}

/// An annotation's text; `null` or a non-string is no text (annotations never refuse a schema).
fn text(w: &Words<'_>, word: &str) -> Option<String> {
    match w.get(word) {
        Some(Json::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn schema_array<'j>(v: &'j Json<'static>, ptr: &str, word: &str) -> Result<&'j [Json<'static>], SchemaError> {
    match v {
        Json::Array(a) if !a.is_empty() => Ok(a),
        _ => err(ptr, word, format!("`{word}` must be a non-empty array of schemas")),
    }
}

fn mark_recursive(defs: &mut [Def]) {
    let edges: Vec<Vec<usize>> = defs
        .iter()
        .map(|d| {
            let mut out = Vec::new();
            visit_refs(&d.schema, &mut |i| out.push(i));
            out
        })
        .collect();
    for start in 0..defs.len() {
        let mut stack = edges[start].clone();
        let mut seen = vec![false; defs.len()];
        while let Some(i) = stack.pop() {
            if i == start {
                defs[start].recursive = true;
                break;
            }
            if !std::mem::replace(&mut seen[i], true) {
                stack.extend(&edges[i]);
            }
        }
    }
}
