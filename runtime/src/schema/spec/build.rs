//! Compiling a document: index its resources (`$id`), anchors and dialects,
//! then compile schema objects on demand, every reference resolved to a node.

use std::collections::HashMap;

use super::uri::{percent_decode, resolve, split_fragment};
use super::{Dialect, Rules, SpecDoc, SpecNode, TYPES};
use crate::check::Format;
use crate::json::Json;
use crate::path::push_escaped;
use crate::pattern::Pattern;
use crate::schema::error::{SchemaError, err};
use crate::schema::read;

/// How a document is compiled.
#[derive(Debug, Clone, Default)]
pub struct SpecOptions {
    /// Enforce `format` for the formats toolseal knows (unknown formats are annotations).
    pub assert_formats: bool,
    /// Other documents `$ref` may point into, by their absolute URI (schemas bundled with a
    /// registry). A reference to a document that is neither here nor embedded cannot be compiled.
    pub documents: Vec<(String, Json<'static>)>,
}

/// The base URI of a document that has no `$id`.
const DEFAULT_BASE: &str = "toolseal:///schema.json";

/// Where a schema object sits: which document (0 the main one, then
/// [`SpecOptions::documents`]) and its JSON pointer there.
type Location = (usize, String);

struct Scan {
    /// Resources: absolute URI (no fragment) → location and dialect.
    resources: HashMap<String, (Location, Dialect)>,
    /// Anchors (`$anchor`, `$dynamicAnchor`, draft ≤ 7 `$id: "#name"`): `uri#name` → location.
    anchors: HashMap<String, Location>,
    /// Dynamic anchors: `uri#name` → location.
    dynamic: HashMap<String, Location>,
    /// Every indexed schema object: its base URI and dialect.
    bases: HashMap<Location, (String, Dialect)>,
}

fn child(ptr: &str, token: &str) -> String {
    let mut s = String::with_capacity(ptr.len() + token.len() + 1);
    s.push_str(ptr);
    s.push('/');
    push_escaped(&mut s, token);
    s
}

fn dialect_of(v: &Json<'static>, inherited: Dialect) -> Dialect {
    match v.get("$schema").and_then(Json::as_str) {
        Some(s) if s.contains("draft-07") || s.contains("draft-06") || s.contains("draft-04") || s.contains("draft-03") => Dialect::Legacy,
        Some(s) if s.contains("2020-12") => Dialect::Modern,
        Some(s) if s.contains("2019-09") => Dialect::Draft2019,
        _ => inherited,
    }
}

/// Calls `f` with every subschema of the schema object `v` at `ptr` (keyword positions only).
fn subschemas<'j>(v: &'j Json<'static>, ptr: &str, f: &mut dyn FnMut(&'j Json<'static>, String)) {
    let Json::Object(members) = v else { return };
    for (k, x) in members {
        let here = child(ptr, k);
        match (k.as_ref(), x) {
            ("additionalProperties" | "propertyNames" | "contains" | "not" | "if" | "then" | "else" | "unevaluatedItems" | "unevaluatedProperties" | "additionalItems", _)
            | ("items", Json::Object(_) | Json::Bool(_)) => f(x, here),
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Json::Array(xs)) => {
                xs.iter().enumerate().for_each(|(i, s)| f(s, child(&here, &i.to_string())));
            }
            ("properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas", Json::Object(m)) => {
                m.iter().for_each(|(name, s)| f(s, child(&here, name)));
            }
            ("dependencies", Json::Object(m)) => {
                m.iter().filter(|(_, s)| !matches!(s, Json::Array(_))).for_each(|(name, s)| f(s, child(&here, name)));
            }
            _ => {}
        }
    }
}

impl Scan {
    fn walk(&mut self, doc: usize, v: &Json<'static>, ptr: String, base: &str, dialect: Dialect) {
        if !matches!(v, Json::Object(_) | Json::Bool(_)) {
            return;
        }
        let dialect = dialect_of(v, dialect);
        let mut base = base.to_owned();
        // Draft ≤ 7: `$ref` overrides its siblings, a sibling `$id` included.
        let ignored = dialect == Dialect::Legacy && v.get("$ref").is_some();
        if let Some(id) = v.get("$id").and_then(Json::as_str).filter(|_| !ignored) {
            match (dialect, id.strip_prefix('#')) {
                (Dialect::Legacy, Some(name)) if !name.is_empty() && !name.starts_with('/') => {
                    self.anchors.insert(format!("{base}#{name}"), (doc, ptr.clone()));
                }
                _ => {
                    let resolved = resolve(&base, id);
                    base = split_fragment(&resolved).0.to_owned();
                    self.resources.insert(base.clone(), ((doc, ptr.clone()), dialect));
                }
            }
        }
        if let Some(a) = v.get("$anchor").and_then(Json::as_str) {
            self.anchors.insert(format!("{base}#{a}"), (doc, ptr.clone()));
        }
        if let Some(a) = v.get("$dynamicAnchor").and_then(Json::as_str) {
            self.anchors.entry(format!("{base}#{a}")).or_insert((doc, ptr.clone()));
            self.dynamic.insert(format!("{base}#{a}"), (doc, ptr.clone()));
        }
        self.bases.insert((doc, ptr.clone()), (base.clone(), dialect));
        let mut children = Vec::new();
        subschemas(v, &ptr, &mut |s, p| children.push((s, p)));
        for (s, p) in children {
            self.walk(doc, s, p, &base, dialect);
        }
    }
}

struct Builder<'o> {
    docs: Vec<&'o Json<'static>>,
    scan: Scan,
    options: &'o SpecOptions,
    nodes: Vec<Option<SpecNode>>,
    by_location: HashMap<Location, usize>,
}

impl SpecDoc {
    /// Compiles `schema` (and the documents it may reference, from `options`).
    pub fn compile(schema: &Json<'static>, options: &SpecOptions) -> Result<SpecDoc, SchemaError> {
        let mut scan = Scan { resources: HashMap::new(), anchors: HashMap::new(), dynamic: HashMap::new(), bases: HashMap::new() };
        let mut docs = vec![schema];
        // Bundled documents that name no dialect follow the main document's.
        let main = dialect_of(schema, Dialect::Modern);
        scan.resources.insert(DEFAULT_BASE.to_owned(), ((0, String::new()), main));
        scan.walk(0, schema, String::new(), DEFAULT_BASE, main);
        for (i, (uri, d)) in options.documents.iter().enumerate() {
            let uri = split_fragment(uri).0;
            scan.resources.entry(uri.to_owned()).or_insert(((i + 1, String::new()), dialect_of(d, main)));
            scan.walk(i + 1, d, String::new(), uri, main);
            docs.push(d);
        }
        let mut b = Builder { docs, scan, options, nodes: Vec::new(), by_location: HashMap::new() };
        b.node((0, String::new()))?;
        // The dynamic anchors of every resource evaluation can enter (compiled ones), to a fixpoint.
        let mut dynamic = HashMap::new();
        loop {
            let entered: Vec<std::sync::Arc<str>> = b
                .nodes
                .iter()
                .flatten()
                .filter_map(|n| match n {
                    SpecNode::Rules(r) => Some(r.resource.clone()),
                    SpecNode::Bool(_) => None,
                })
                .collect();
            let due: Vec<(String, Location)> =
                b.scan.dynamic.iter().filter(|(k, _)| !dynamic.contains_key(*k) && entered.iter().any(|uri| split_fragment(k).0 == &**uri)).map(|(k, l)| (k.clone(), l.clone())).collect();
            if due.is_empty() {
                break;
            }
            for (key, loc) in due {
                let node = b.node(loc)?;
                dynamic.insert(key, node);
            }
        }
        let by_pointer = b.by_location.iter().filter(|((d, _), _)| *d == 0).map(|((_, p), i)| (p.clone(), *i)).collect();
        let nodes: Vec<SpecNode> = b.nodes.into_iter().map(|n| n.expect("every reserved node is compiled")).collect();
        let annotations = nodes.iter().any(|n| matches!(n, SpecNode::Rules(r) if r.unevaluated_items.is_some() || r.unevaluated_properties.is_some()));
        Ok(SpecDoc { nodes, by_pointer, dynamic, source: schema.to_json_string(), assert_formats: options.assert_formats, annotations })
    }
}

impl Builder<'_> {
    /// The base URI and dialect in force at `loc` (the nearest indexed ancestor's).
    fn base_at(&self, loc: &Location) -> (String, Dialect) {
        let mut p = loc.1.as_str();
        loop {
            if let Some(b) = self.scan.bases.get(&(loc.0, p.to_owned())) {
                return b.clone();
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return (DEFAULT_BASE.to_owned(), Dialect::Modern),
            }
        }
    }

    /// The node for the schema at `loc`, compiled once.
    fn node(&mut self, loc: Location) -> Result<usize, SchemaError> {
        if let Some(&i) = self.by_location.get(&loc) {
            return Ok(i);
        }
        let Some(v) = self.docs[loc.0].pointer(&loc.1) else { return err(&loc.1, "$ref", "points at nothing") };
        let i = self.nodes.len();
        self.nodes.push(None);
        self.by_location.insert(loc.clone(), i);
        let node = match v {
            Json::Bool(b) => SpecNode::Bool(*b),
            Json::Object(_) => SpecNode::Rules(Box::new(self.rules(v, &loc)?)),
            other => return err(&loc.1, "type", format!("a schema must be an object or a boolean, found {}", other.kind())),
        };
        self.nodes[i] = Some(node);
        Ok(i)
    }

    fn sub(&mut self, loc: &Location, word: &str) -> Result<usize, SchemaError> {
        self.node((loc.0, child(&loc.1, word)))
    }

    fn list(&mut self, v: &Json<'static>, loc: &Location, word: &str) -> Result<Vec<usize>, SchemaError> {
        match v.get(word) {
            None => Ok(Vec::new()),
            Some(Json::Array(xs)) if !xs.is_empty() || word == "prefixItems" => (0..xs.len()).map(|i| self.node((loc.0, child(&child(&loc.1, word), &i.to_string())))).collect(),
            Some(_) => err(&loc.1, word, format!("`{word}` must be a non-empty array of schemas")),
        }
    }

    fn map(&mut self, v: &Json<'static>, loc: &Location, word: &str) -> Result<Vec<(String, usize)>, SchemaError> {
        match v.get(word) {
            None => Ok(Vec::new()),
            Some(Json::Object(m)) => m.iter().map(|(k, _)| Ok((k.to_string(), self.node((loc.0, child(&child(&loc.1, word), k)))?))).collect(),
            Some(_) => err(&loc.1, word, format!("`{word}` must be an object")),
        }
    }

    fn optional(&mut self, v: &Json<'static>, loc: &Location, word: &str) -> Result<Option<usize>, SchemaError> {
        match v.get(word) {
            None => Ok(None),
            Some(_) => self.sub(loc, word).map(Some),
        }
    }

    /// Resolves a `$ref` / `$dynamicRef` value to the location it names.
    fn target(&self, reference: &str, base: &str, ptr: &str, word: &str) -> Result<Location, SchemaError> {
        let absolute = resolve(base, reference);
        let (resource, fragment) = split_fragment(&absolute);
        let fragment = percent_decode(fragment);
        if fragment.is_empty() || fragment.starts_with('/') {
            let Some(((doc, root), _)) = self.scan.resources.get(resource) else {
                return err(ptr, word, format!("{reference:?} names a document that is neither embedded nor bundled ({resource}); toolseal never fetches a schema"));
            };
            let loc = (*doc, format!("{root}{fragment}"));
            if self.docs[loc.0].pointer(&loc.1).is_none() {
                return err(ptr, word, format!("{reference:?} points at nothing in this schema"));
            }
            return Ok(loc);
        }
        match self.scan.anchors.get(&format!("{resource}#{fragment}")) {
            Some(loc) => Ok(loc.clone()),
            None if self.scan.resources.contains_key(resource) => err(ptr, word, format!("{reference:?}: no anchor {fragment:?} in {resource}")),
            None => err(ptr, word, format!("{reference:?} names a document that is neither embedded nor bundled ({resource}); toolseal never fetches a schema")),
        }
    }

    fn rules(&mut self, v: &Json<'static>, loc: &Location) -> Result<Rules, SchemaError> {
        let ptr = loc.1.as_str();
        let (base, dialect) = self.base_at(loc);
        let mut r = Rules::new(ptr, base.as_str().into());
        if let Some(reference) = v.get("$ref") {
            let Some(reference) = reference.as_str() else { return err(ptr, "$ref", "`$ref` must be a string") };
            let target = self.target(reference, &base, ptr, "$ref")?;
            r.reference = Some(self.node(target)?);
            if dialect == Dialect::Legacy {
                r.ref_only = true;
                return Ok(r);
            }
        }
        if dialect == Dialect::Modern
            && let Some(reference) = v.get("$dynamicRef")
        {
            let Some(reference) = reference.as_str() else { return err(ptr, "$dynamicRef", "`$dynamicRef` must be a string") };
            let target = self.target(reference, &base, ptr, "$dynamicRef")?;
            let (_, fragment) = split_fragment(reference);
            let dynamic = self.docs[target.0].pointer(&target.1).and_then(|t| t.get("$dynamicAnchor")).and_then(Json::as_str).filter(|a| *a == fragment).map(str::to_owned);
            r.dynamic_ref = Some((self.node(target)?, dynamic));
        }
        r.types = types(v, ptr)?;
        if let Some(e) = v.get("enum") {
            let Json::Array(values) = e else { return err(ptr, "enum", "`enum` must be an array") };
            r.enumeration = Some(values.clone());
        }
        r.constant = v.get("const").cloned();
        r.bounds = read::bounds(|k| v.get(k), ptr)?;
        r.min_length = read::count(|k| v.get(k), "minLength", ptr)?;
        r.max_length = read::count(|k| v.get(k), "maxLength", ptr)?;
        r.pattern = match v.get("pattern") {
            None => None,
            Some(Json::String(p)) => Some(pattern(p, ptr, "pattern")?),
            Some(_) => return err(ptr, "pattern", "`pattern` must be a string"),
        };
        r.format = match v.get("format") {
            Some(Json::String(f)) if self.options.assert_formats => Format::from_name(f),
            Some(Json::String(_)) | None => None,
            Some(_) => return err(ptr, "format", "`format` must be a string"),
        };
        // Arrays: tuple `items` (draft ≤ 2019-09) is `prefixItems` + `additionalItems`.
        match v.get("items") {
            Some(Json::Array(_)) => {
                r.prefix_items = self.list(v, loc, "items")?;
                r.items = self.optional(v, loc, "additionalItems")?;
            }
            Some(_) if dialect != Dialect::Modern => {
                r.items = self.optional(v, loc, "items")?;
            }
            Some(_) => {
                r.prefix_items = self.list(v, loc, "prefixItems")?;
                r.items = self.optional(v, loc, "items")?;
            }
            None if dialect == Dialect::Modern => r.prefix_items = self.list(v, loc, "prefixItems")?,
            None => {}
        }
        r.contains = self.optional(v, loc, "contains")?;
        r.min_contains = read::count(|k| v.get(k), "minContains", ptr)?;
        r.max_contains = read::count(|k| v.get(k), "maxContains", ptr)?;
        r.min_items = read::count(|k| v.get(k), "minItems", ptr)?;
        r.max_items = read::count(|k| v.get(k), "maxItems", ptr)?;
        r.unique_items = match v.get("uniqueItems") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => return err(ptr, "uniqueItems", "`uniqueItems` must be a boolean"),
        };
        r.unevaluated_items = self.optional(v, loc, "unevaluatedItems")?;
        r.properties = self.map(v, loc, "properties")?;
        for (p, _) in self.map(v, loc, "patternProperties")? {
            let node = self.node((loc.0, child(&child(ptr, "patternProperties"), &p)))?;
            r.pattern_properties.push((pattern(&p, ptr, "patternProperties")?, node));
        }
        r.additional_properties = self.optional(v, loc, "additionalProperties")?;
        r.property_names = self.optional(v, loc, "propertyNames")?;
        r.required = names(v.get("required"), ptr, "required")?;
        if let Some(deps) = v.get("dependentRequired") {
            let Json::Object(m) = deps else { return err(ptr, "dependentRequired", "`dependentRequired` must be an object") };
            for (k, list) in m {
                r.dependent_required.push((k.to_string(), names(Some(list), ptr, "dependentRequired")?));
            }
        }
        r.dependent_schemas = self.map(v, loc, "dependentSchemas")?;
        if let Some(deps) = v.get("dependencies") {
            let Json::Object(m) = deps else { return err(ptr, "dependencies", "`dependencies` must be an object") };
            for (k, d) in m {
                match d {
                    Json::Array(_) => r.dependent_required.push((k.to_string(), names(Some(d), ptr, "dependencies")?)),
                    _ => {
                        let node = self.node((loc.0, child(&child(ptr, "dependencies"), k)))?;
                        r.dependent_schemas.push((k.to_string(), node));
                    }
                }
            }
        }
        r.min_properties = read::count(|k| v.get(k), "minProperties", ptr)?;
        r.max_properties = read::count(|k| v.get(k), "maxProperties", ptr)?;
        r.unevaluated_properties = self.optional(v, loc, "unevaluatedProperties")?;
        r.all_of = self.list(v, loc, "allOf")?;
        r.any_of = self.list(v, loc, "anyOf")?;
        r.one_of = self.list(v, loc, "oneOf")?;
        r.not = self.optional(v, loc, "not")?;
        if v.get("if").is_some() {
            let condition = self.sub(loc, "if")?;
            let then = self.optional(v, loc, "then")?;
            let otherwise = self.optional(v, loc, "else")?;
            r.condition = Some((condition, then, otherwise));
        }
        Ok(r)
    }
}

fn types(v: &Json<'static>, ptr: &str) -> Result<Option<u8>, SchemaError> {
    let bit = |t: &str| TYPES.iter().find(|(n, _)| *n == t).map(|(_, b)| *b);
    match v.get("type") {
        None => Ok(None),
        Some(Json::String(t)) => match bit(t) {
            Some(b) => Ok(Some(b)),
            None => err(ptr, "type", format!("unknown type {t:?}")),
        },
        Some(Json::Array(ts)) => {
            let mut bits = 0;
            for t in ts {
                match t.as_str().and_then(bit) {
                    Some(b) => bits |= b,
                    None => return err(ptr, "type", "`type` must list known type names"),
                }
            }
            Ok(Some(bits))
        }
        Some(_) => err(ptr, "type", "`type` must be a string or an array of strings"),
    }
}

fn pattern(source: &str, ptr: &str, word: &str) -> Result<Pattern, SchemaError> {
    Pattern::new(source).map_err(|e| SchemaError { pointer: ptr.to_owned(), keyword: word.to_owned(), message: e.to_string() })
}

fn names(v: Option<&Json<'static>>, ptr: &str, word: &str) -> Result<Vec<String>, SchemaError> {
    match v {
        None => Ok(Vec::new()),
        Some(Json::Array(xs)) => xs.iter().map(|x| x.as_str().map(str::to_owned).ok_or(())).collect::<Result<_, _>>().or_else(|()| err(ptr, word, format!("`{word}` must list strings"))),
        Some(_) => err(ptr, word, format!("`{word}` must be an array of strings")),
    }
}
