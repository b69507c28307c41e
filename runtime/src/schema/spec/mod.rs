//! JSON Schema with the specification's semantics, for every schema no Rust
//! type expresses: `not`, `if`/`then`/`else`, `contains`, `unevaluated*`,
//! `dependentSchemas`, `patternProperties`, `propertyNames`, `$anchor`,
//! `$dynamicRef`, keywords beside `$ref` or `anyOf`, and so on.
//!
//! A document is compiled once ([`SpecDoc::compile`]) into a table of nodes,
//! one per schema object, with every `$ref` resolved to a node (`$id`,
//! `$anchor`, `$dynamicAnchor`, JSON pointers, embedded resources and their
//! dialects). Evaluation ([`SpecDoc::validate_at`]) follows draft 2020-12
//! (annotations for `unevaluated*`, the dynamic scope for `$dynamicRef`) and
//! the draft-07 forms real servers emit (`$ref` overriding its siblings,
//! tuple `items` with `additionalItems`, `dependencies`, `definitions`,
//! boolean exclusive bounds of draft-04).
//!
//! toolseal's closed world is not built in: [`crate::schema::closed_world`]
//! writes it into the document first, so that what this module enforces is
//! exactly the rewritten schema under the specification.

mod build;
mod eval;
pub(in crate::schema) mod uri;

use std::collections::HashMap;

use crate::check::{Format, NumberBounds};
use crate::json::Json;
use crate::pattern::Pattern;

pub use build::SpecOptions;

/// A compiled document: one node per schema object reached from its root.
#[derive(Debug)]
pub struct SpecDoc {
    nodes: Vec<SpecNode>,
    /// Node of each compiled schema, by its JSON pointer in the document.
    by_pointer: HashMap<String, usize>,
    /// `$dynamicAnchor`s: `resource-uri#name` → node.
    dynamic: HashMap<String, usize>,
    /// The document as compiled (JSON text), for generated code to compile again at run time.
    source: String,
    /// Whether `format` is asserted.
    assert_formats: bool,
    /// Whether any schema reads annotations (`unevaluated*`): only then does
    /// evaluation track which members and items were evaluated.
    annotations: bool,
}

/// Which draft's rules a schema object follows (from the nearest `$schema`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Draft 2020-12 (the default, as MCP says).
    Modern,
    /// Draft 2019-09: no `prefixItems` or `$dynamicRef`; tuple `items`.
    Draft2019,
    /// Draft-07, -06 and -04: `$ref` overrides its siblings, `$id` fragments are anchors.
    Legacy,
}

#[derive(Debug)]
enum SpecNode {
    /// `true` or `false`.
    Bool(bool),
    /// A schema object.
    Rules(Box<Rules>),
}

/// The keywords of one schema object that constrain values.
#[derive(Debug)]
struct Rules {
    pointer: String,
    /// The base URI of the resource this schema belongs to (for the dynamic scope).
    resource: std::sync::Arc<str>,
    /// Draft ≤ 7: `$ref` present, so every sibling is ignored.
    ref_only: bool,
    reference: Option<usize>,
    /// `$dynamicRef`: the statically resolved node, and the anchor name when the reference is dynamic.
    dynamic_ref: Option<(usize, Option<String>)>,
    types: Option<u8>,
    enumeration: Option<Vec<Json<'static>>>,
    constant: Option<Json<'static>>,
    bounds: NumberBounds,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<Pattern>,
    format: Option<Format>,
    prefix_items: Vec<usize>,
    items: Option<usize>,
    contains: Option<usize>,
    min_contains: Option<u64>,
    max_contains: Option<u64>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: bool,
    unevaluated_items: Option<usize>,
    properties: Vec<(String, usize)>,
    pattern_properties: Vec<(Pattern, usize)>,
    additional_properties: Option<usize>,
    property_names: Option<usize>,
    required: Vec<String>,
    dependent_required: Vec<(String, Vec<String>)>,
    dependent_schemas: Vec<(String, usize)>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    unevaluated_properties: Option<usize>,
    all_of: Vec<usize>,
    any_of: Vec<usize>,
    one_of: Vec<usize>,
    not: Option<usize>,
    condition: Option<(usize, Option<usize>, Option<usize>)>,
}

impl Rules {
    fn new(pointer: &str, resource: std::sync::Arc<str>) -> Rules {
        Rules {
            pointer: pointer.to_owned(),
            resource,
            ref_only: false,
            reference: None,
            dynamic_ref: None,
            types: None,
            enumeration: None,
            constant: None,
            bounds: NumberBounds::default(),
            min_length: None,
            max_length: None,
            pattern: None,
            format: None,
            prefix_items: Vec::new(),
            items: None,
            contains: None,
            min_contains: None,
            max_contains: None,
            min_items: None,
            max_items: None,
            unique_items: false,
            unevaluated_items: None,
            properties: Vec::new(),
            pattern_properties: Vec::new(),
            additional_properties: None,
            property_names: None,
            required: Vec::new(),
            dependent_required: Vec::new(),
            dependent_schemas: Vec::new(),
            min_properties: None,
            max_properties: None,
            unevaluated_properties: None,
            all_of: Vec::new(),
            any_of: Vec::new(),
            one_of: Vec::new(),
            not: None,
            condition: None,
        }
    }
}

/// JSON Schema type names as bits of [`Rules::types`].
const TYPES: [(&str, u8); 7] = [("null", 1), ("boolean", 2), ("object", 4), ("array", 8), ("number", 16), ("string", 32), ("integer", 64)];

impl SpecDoc {
    /// The node compiled for the schema at `pointer`, if the document has one there.
    pub fn node_at(&self, pointer: &str) -> Option<usize> {
        self.by_pointer.get(pointer).copied()
    }

    /// The root schema's node.
    pub fn root(&self) -> usize {
        0
    }

    /// The document as compiled, as JSON text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether `format` is asserted.
    pub fn asserts_formats(&self) -> bool {
        self.assert_formats
    }
}

/// A document compiled on first use, for generated code: `const`-constructible,
/// so that a generated type keeps one in a `static`. The build compiled the same
/// text already; should it fail here, every value is rejected (fail closed).
#[derive(Debug)]
pub struct LazySpec {
    source: &'static str,
    assert_formats: bool,
    compiled: std::sync::OnceLock<Option<SpecDoc>>,
}

impl LazySpec {
    /// The document `source` (JSON text), not compiled yet.
    pub const fn new(source: &'static str, assert_formats: bool) -> LazySpec {
        LazySpec { source, assert_formats, compiled: std::sync::OnceLock::new() }
    }

    /// Validates `v`, found at `at`, against the schema at `pointer` in the document.
    pub fn check(&self, pointer: &str, v: &Json<'_>, at: &crate::path::Path<'_>, cx: &mut crate::check::Cx) -> Result<(), crate::rejection::Rejection> {
        let doc = self.compiled.get_or_init(|| {
            let tree = Json::parse(self.source.as_bytes()).ok()?.into_owned();
            SpecDoc::compile(&tree, &SpecOptions { assert_formats: self.assert_formats, documents: Vec::new() }).ok()
        });
        match doc.as_ref().and_then(|d| Some((d, d.node_at(pointer)?))) {
            Some((d, node)) => d.validate_at(node, v, at, cx),
            None => Err(crate::rejection::Rejection::violation(at, crate::rejection::Keyword::Ref, format!("a value for the schema at `#{pointer}`, which did not compile"), v.kind())),
        }
    }
}
