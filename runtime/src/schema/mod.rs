//! The schema IR: what a tool's JSON Schema means once compiled, with every
//! constraint kept. Shared by the code generator (`toolseal-build`), the
//! interpreter in [`validate`] and the probe generator in `crate::probe` (feature `testing`).

mod closed;
mod compile;
mod describe;
mod error;
pub mod keywords;
mod merge;
mod place;
mod read;
pub mod spec;
pub mod validate;

pub use closed::closed_world;
pub use closed::closed_world_implied_types;
pub use compile::{CompileOptions, compile_tool_schema};
pub use describe::{describe, describe_values};
pub use error::SchemaError;

use crate::check::{Format, NumberBounds};
use crate::json::Json;
use crate::pattern::Pattern;

/// A compiled tool schema: the arguments object and every `$ref` target.
#[derive(Debug, Clone)]
pub struct SchemaDoc {
    /// The schema of the `arguments` object.
    pub root: Schema,
    /// Every schema a `$ref` points at, in the order first referenced.
    pub defs: Vec<Def>,
    /// What `lint` reports without refusing the schema: unknown keywords, defaults never applied.
    pub notes: Vec<SchemaError>,
}

/// A schema checked by the specification validator: its compiled document and node.
#[derive(Debug, Clone)]
pub struct SpecRef {
    /// The tool's closed-world schema, compiled.
    pub doc: std::sync::Arc<spec::SpecDoc>,
    /// The node of this schema in it.
    pub node: usize,
}

/// A schema reached through `$ref`.
#[derive(Debug, Clone)]
pub struct Def {
    /// The last segment of its pointer (`Address` for `#/$defs/Address`).
    pub name: String,
    /// The reference as written (`#/$defs/Address`).
    pub reference: String,
    /// The compiled schema.
    pub schema: Schema,
    /// Whether the def can reach itself through `$ref` (needs boxing in Rust).
    pub recursive: bool,
}

/// A compiled schema with its annotations.
#[derive(Debug, Clone)]
pub struct Schema {
    /// What values are allowed.
    pub node: Node,
    /// `title`, kept for docs.
    pub title: Option<String>,
    /// `description`, kept for docs.
    pub description: Option<String>,
    /// `default`, applied when an optional property is absent (validated at compile time).
    pub default: Option<Json<'static>>,
    /// JSON pointer of this schema in the tool's `inputSchema`.
    pub pointer: String,
}

/// What values a schema allows.
#[derive(Debug, Clone)]
pub enum Node {
    /// Any JSON value (`true`, `{}`).
    Any,
    /// `null` only.
    Null,
    /// `true` or `false`.
    Boolean,
    /// An integer within bounds, represented as `repr`.
    Integer {
        /// `minimum`, `maximum`, exclusives and `multipleOf`.
        bounds: NumberBounds,
        /// The Rust integer type that holds it.
        repr: IntRepr,
    },
    /// A number within bounds.
    Number(NumberBounds),
    /// A string.
    String(StringRule),
    /// An array.
    Array(ArrayRule),
    /// An object.
    Object(ObjectRule),
    /// One of a fixed set of values (`enum`), each already valid for the sibling keywords.
    Enum(Vec<Json<'static>>),
    /// Exactly one value (`const`).
    Const(Json<'static>),
    /// `null` or the inner schema (`type: [T, "null"]`, `anyOf: [T, {type: null}]`).
    Nullable(Box<Schema>),
    /// `anyOf` / `oneOf` of several options.
    Union {
        /// `anyOf` (first match) or `oneOf` (exactly one match).
        mode: UnionMode,
        /// The options, in order.
        options: Vec<Schema>,
    },
    /// A `$ref`: index into [`SchemaDoc::defs`].
    Ref(usize),
    /// No value (`false`, or keywords no value satisfies).
    Never,
    /// Keywords of one type without `type` (`{"required": [..]}`): values of that type must
    /// meet them, values of other types pass. Only `allOf` merging sees this node: merged
    /// with a part of that type it is exact; anywhere else the specification validator applies.
    IfType(Box<Schema>),
    /// A schema no Rust type expresses, checked with the specification's semantics.
    Spec(SpecRef),
}

/// Which Rust integer type holds an `integer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntRepr {
    /// `i64`: the lower bound may be negative.
    I64,
    /// `u64`: the lower bound is at least 0.
    U64,
}

/// `anyOf` or `oneOf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnionMode {
    /// At least one option matches; the first match is taken.
    AnyOf,
    /// Exactly one option matches.
    OneOf,
}

/// String keywords.
#[derive(Debug, Clone, Default)]
pub struct StringRule {
    /// `minLength`, in Unicode code points.
    pub min_length: Option<u64>,
    /// `maxLength`, in Unicode code points.
    pub max_length: Option<u64>,
    /// `pattern`s (several after `allOf`).
    pub patterns: Vec<Pattern>,
    /// `format`, when enforced.
    pub format: Option<Format>,
}

/// Array keywords.
#[derive(Debug, Clone)]
pub struct ArrayRule {
    /// `prefixItems` (or draft-07 tuple `items`).
    pub prefix: Vec<Schema>,
    /// What follows the prefix.
    pub items: Items,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `uniqueItems: true`.
    pub unique: bool,
}

/// The schema of array elements after the prefix.
#[derive(Debug, Clone)]
pub enum Items {
    /// Any value (no `items`).
    Any,
    /// Each element matches this schema.
    Schema(Box<Schema>),
    /// No element beyond the prefix (`items: false`).
    None,
}

/// Object keywords. Closed world: undeclared keys are rejected unless
/// `additionalProperties` explicitly allows them.
#[derive(Debug, Clone)]
pub struct ObjectRule {
    /// Declared properties, in schema order.
    pub properties: Vec<Property>,
    /// What keys beyond the declared ones may hold.
    pub additional: Additional,
    /// Required keys not declared in `properties` (allowed only when `additional` is open).
    pub required_extra: Vec<String>,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// Whether `additionalProperties` was written (rather than implied by the closed-world rule).
    pub explicit_additional: bool,
}

/// A declared property.
#[derive(Debug, Clone)]
pub struct Property {
    /// The key as written in JSON.
    pub name: String,
    /// Its schema.
    pub schema: Schema,
    /// Whether `required` lists it.
    pub required: bool,
}

/// `additionalProperties` after the closed-world rule.
#[derive(Debug, Clone)]
pub enum Additional {
    /// No undeclared key (the default for tool arguments and objects with `properties`).
    Closed,
    /// Any undeclared key with any value (`true`, or a free-form nested object).
    Any,
    /// Undeclared keys whose values match this schema.
    Schema(Box<Schema>),
}

impl Schema {
    /// A schema with no annotations.
    pub fn bare(node: Node, pointer: impl Into<String>) -> Schema {
        Schema { node, title: None, description: None, default: None, pointer: pointer.into() }
    }

    /// The documentation text: title and description, joined.
    pub fn doc(&self) -> Option<String> {
        match (&self.title, &self.description) {
            (Some(t), Some(d)) if t != d => Some(format!("{t}\n\n{d}")),
            (Some(t), _) => Some(t.clone()),
            (None, Some(d)) => Some(d.clone()),
            (None, None) => None,
        }
    }
}

impl SchemaDoc {
    /// Follows `Ref`s to the schema they name.
    pub fn resolve<'s>(&'s self, mut schema: &'s Schema) -> &'s Schema {
        // Refs to refs are compiled into chains no longer than the number of defs.
        for _ in 0..=self.defs.len() {
            match schema.node {
                Node::Ref(i) => schema = &self.defs[i].schema,
                _ => return schema,
            }
        }
        schema
    }
}

/// `u64` when the bounds exclude negatives, `i64` otherwise.
pub(crate) fn int_repr(b: &NumberBounds) -> IntRepr {
    let non_negative = b.minimum.is_some_and(|m| m >= 0.0) || b.exclusive_minimum.is_some_and(|m| m > -1.0);
    if non_negative { IntRepr::U64 } else { IntRepr::I64 }
}

/// Whether `s` holds a `$ref` (not following it).
pub(crate) fn contains_ref(s: &Schema) -> bool {
    let mut found = false;
    visit_refs(s, &mut |_| found = true);
    found
}

/// Calls `f` with every def index referenced inside `s` (not following refs).
pub(crate) fn visit_refs(s: &Schema, f: &mut dyn FnMut(usize)) {
    match &s.node {
        Node::Ref(i) => f(*i),
        Node::Nullable(inner) | Node::IfType(inner) => visit_refs(inner, f),
        Node::Union { options, .. } => options.iter().for_each(|o| visit_refs(o, f)),
        Node::Array(a) => {
            a.prefix.iter().for_each(|p| visit_refs(p, f));
            if let Items::Schema(i) = &a.items {
                visit_refs(i, f);
            }
        }
        Node::Object(o) => {
            o.properties.iter().for_each(|p| visit_refs(&p.schema, f));
            if let Additional::Schema(a) = &o.additional {
                visit_refs(a, f);
            }
        }
        Node::Any | Node::Null | Node::Boolean | Node::Integer { .. } | Node::Number(_) | Node::String(_) | Node::Enum(_) | Node::Const(_) | Node::Never | Node::Spec(_) => {}
    }
}
