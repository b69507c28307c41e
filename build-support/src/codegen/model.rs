//! The type space: every generated type decided — name, kind, docs, shared
//! structure, contract fields — from the schema IR before any token is written.
//!
//! Names are claimed depth first in schema order, so a registry always gets
//! the same names. Two types of one structure (same kind, same docs, same
//! member types) are one type: the later is an alias of the first, and aliases
//! nothing names are dropped.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use proc_macro2::Ident;
use toolseal_runtime::check::{Format, NumberBounds};
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::{Additional, ArrayRule, IntRepr, Items, Node, ObjectRule, Schema, SchemaDoc, SpecRef, StringRule, UnionMode, describe};

use crate::docs::schema_text;
use crate::naming::{Scope, field_name, ident, type_name};

/// A Rust type as generated code writes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Ty {
    /// A generated type.
    Named(Ident),
    /// `bool`
    Bool,
    /// `i64` or `u64`
    Int(IntRepr),
    /// `f64`
    F64,
    /// `String`
    String,
    /// `()` (`null`)
    Unit,
    /// `serde_json::Value` (any value)
    Value,
    /// `Vec<T>`
    Vec(Box<Ty>),
    /// `BTreeMap<String, T>`
    Map(Box<Ty>),
    /// `Option<T>`
    Option(Box<Ty>),
    /// `Box<T>` (a recursive definition)
    Boxed(Box<Ty>),
}

/// An `f64` compared and hashed by its bits (schema numbers are never NaN).
#[derive(Clone, Copy, Debug)]
pub(super) struct Num(pub f64);

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Num {}

impl Hash for Num {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.to_bits().hash(h);
    }
}

/// Numeric bounds, in `NumberBounds` order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Bounds {
    pub minimum: Option<Num>,
    pub maximum: Option<Num>,
    pub exclusive_minimum: Option<Num>,
    pub exclusive_maximum: Option<Num>,
    pub multiple_of: Option<Num>,
}

impl From<&NumberBounds> for Bounds {
    fn from(b: &NumberBounds) -> Bounds {
        Bounds {
            minimum: b.minimum.map(Num),
            maximum: b.maximum.map(Num),
            exclusive_minimum: b.exclusive_minimum.map(Num),
            exclusive_maximum: b.exclusive_maximum.map(Num),
            multiple_of: b.multiple_of.map(Num),
        }
    }
}

/// The table a validated newtype is checked by (one of the runtime's `generated` tables).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Table {
    /// `StringType`
    String { min_length: Option<u64>, max_length: Option<u64>, patterns: Vec<String>, format: Option<Format> },
    /// `NumberType<i64 | u64 | f64>`
    Number { repr: Option<IntRepr>, bounds: Bounds },
    /// `ArrayType<item>`; `typed` when the schema declares `items`.
    Array { item: Ty, typed: bool, min_items: Option<u64>, max_items: Option<u64>, unique: bool },
    /// `ValueSet`: JSON texts of an `enum` (or a `const`) not all strings.
    ValueSet { is_const: bool, texts: Vec<String>, expected: String },
    /// `SpecType`: the specification validator `spec` at `pointer`, shown as `schema`.
    Spec { spec: Ident, pointer: String, schema: String },
    /// `Refusal::Never`
    Never,
    /// `Refusal::Quarantined`
    Quarantined { tool: String, problem: String },
}

impl Table {
    /// The Rust type of the table's value (the newtype's inner type).
    pub(super) fn inner(&self) -> Ty {
        match self {
            Table::String { .. } => Ty::String,
            Table::Number { repr: Some(r), .. } => Ty::Int(*r),
            Table::Number { repr: None, .. } => Ty::F64,
            Table::Array { item, .. } => Ty::Vec(Box::new(item.clone())),
            Table::ValueSet { .. } | Table::Spec { .. } | Table::Never | Table::Quarantined { .. } => Ty::Value,
        }
    }
}

/// How a property is present in the argument struct.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Presence {
    /// Listed in `required`: the field is `T`.
    Required,
    /// Optional without a default: the field is `Option<T>`.
    Optional,
    /// Optional with a default applied when absent: the field is `T`.
    Default(DefaultValue),
}

/// A property's `default`, as generated code builds it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum DefaultValue {
    /// A literal of the field's type, wrapped in its newtype when `wrapped`.
    Literal { value: Literal, wrapped: bool },
    /// A variant of the field's string enum.
    Variant(Ident),
    /// JSON text converted once at run time (values no literal can write).
    Json(String),
}

/// A literal a default is written as.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Literal {
    /// `true`, `false`
    Bool(bool),
    /// `5i64`
    I64(i64),
    /// `5u64`
    U64(u64),
    /// `2.5`
    F64(Num),
    /// `String::from("...")`
    String(String),
}

/// One declared property of an object type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Field {
    /// The key as written in JSON.
    pub key: String,
    /// The Rust field.
    pub rust: Ident,
    /// The type of its value (`T` of `Option<T>` when optional).
    pub ty: Ty,
    /// How it is present.
    pub presence: Presence,
    /// The field's docs.
    pub docs: Option<String>,
}

impl Field {
    /// The field's Rust type.
    pub(super) fn field_ty(&self) -> Ty {
        match self.presence {
            Presence::Optional => Ty::Option(Box::new(self.ty.clone())),
            _ => self.ty.clone(),
        }
    }
}

/// Keys beyond the declared properties (`additionalProperties` not `false`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Extra {
    /// The map field holding them.
    pub rust: Ident,
    /// The type of their values.
    pub ty: Ty,
    /// Whether `additionalProperties` is a schema (rather than `true`).
    pub declared: bool,
}

/// An object type: a struct with one field per declared property.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Object {
    pub fields: Vec<Field>,
    pub extra: Option<Extra>,
    /// Required keys not among `fields` (allowed when `extra` is open).
    pub required_extra: Vec<String>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
}

/// What a generated type is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    /// `pub type Name = Ty;`
    Alias(Ty),
    /// A newtype over the table's value, checked by the table.
    Value(Table),
    /// A Rust enum of string values (an `enum`, or a `const` when `is_const`).
    StringEnum { values: Vec<String>, variants: Vec<Ident>, is_const: bool, expected: String },
    /// An untagged Rust enum, one variant per option, tried in order.
    Union { mode: UnionMode, variants: Vec<(Ident, Ty)>, expected: String },
    /// A tuple struct for `prefixItems`: each prefix element optional, then `rest`
    /// (`None` for `items: false`; `typed` when the schema declares `items`).
    Tuple { prefix: Vec<Ty>, rest: Option<Ty>, typed: bool, min_items: Option<u64>, max_items: Option<u64>, unique: bool },
    /// A struct.
    Object(Object),
}

/// One generated type.
#[derive(Clone, Debug)]
pub(super) struct TypeEntry {
    pub id: Ident,
    /// The item's docs: the schema's title and description, its constraints and default.
    pub docs: Option<String>,
    /// The schema's `description`, which the type's JSON Schema shows.
    pub description: Option<String>,
    pub kind: Kind,
}

/// The type space key: what makes two types one (everything but the name).
#[derive(PartialEq, Eq, Hash)]
struct Shape {
    docs: Option<String>,
    description: Option<String>,
    kind: Kind,
}

/// One tool as the model sees it.
pub(super) struct ToolEntry<'a> {
    pub def: &'a toolseal_runtime::registry::ToolDef,
    /// The `ToolCall` variant.
    pub variant: Ident,
    /// The argument type.
    pub args: Ident,
    /// The argument struct's fields, when the arguments are a closed object.
    pub fields: Option<Vec<Field>>,
    /// The output type, when the tool declares an `outputSchema`.
    pub output: Option<Ident>,
    /// Why the tool is quarantined, if it is.
    pub quarantined: Option<&'a str>,
}

/// Every type generated for one registry, in the order they are written.
pub(super) struct TypeSpace {
    names: Scope,
    pub entries: Vec<TypeEntry>,
    /// The first type of each shape.
    shapes: HashMap<Shape, Ident>,
    /// Entries made as aliases of an earlier type of the same shape (dropped if nothing names them).
    shared: HashSet<Ident>,
    /// Each object type's fields, by name (aliases resolve to their target's).
    objects: HashMap<Ident, usize>,
    /// The specification documents, one `static` each: (document identity, static, source, asserts formats).
    pub specs: Vec<(usize, Ident, String, bool)>,
}

/// Per-schema-document state: its `$defs` and the names given to them.
struct DocScope<'d> {
    doc: &'d SchemaDoc,
    prefix: String,
    defs: Vec<Option<Ident>>,
}

impl TypeSpace {
    /// The type space of `tools` (each with its compiled schemas, or why it is quarantined).
    pub(super) fn build<'a>(tools: &'a [super::ToolInput<'a>]) -> (TypeSpace, Vec<ToolEntry<'a>>) {
        let mut space = TypeSpace { names: Scope::types(), entries: Vec::new(), shapes: HashMap::new(), shared: HashSet::new(), objects: HashMap::new(), specs: Vec::new() };
        let mut variants = Scope::default();
        let mut entries = Vec::with_capacity(tools.len());
        let mut roots = Vec::new();
        for tool in tools {
            let name = &tool.def.name;
            let variant = variants.claim(&type_name(name), "Tool");
            let args = ident(&space.names.claim(&format!("{variant}Args"), "Args"));
            let (fields, quarantined) = match &tool.schema {
                Ok(doc) => {
                    let (mut scope, root) = DocScope::new(doc, variant.clone(), format!("Arguments of the `{name}` tool."));
                    let id = space.named(&mut scope, &root, args.clone());
                    (space.fields_of(&id), None)
                }
                Err(problem) => {
                    let docs =
                        Some(format!("Arguments of the `{name}` tool, which is quarantined: its schema cannot be enforced ({}). No call resolves to it.", crate::docs::prose(&problem.to_string())));
                    space.entries.push(TypeEntry { id: args.clone(), docs, description: None, kind: Kind::Value(Table::Quarantined { tool: name.clone(), problem: problem.clone() }) });
                    (None, Some(problem.as_str()))
                }
            };
            let output = tool.output.as_ref().map(|doc| {
                let out = ident(&space.names.claim(&format!("{variant}Output"), "Output"));
                let (mut scope, root) = DocScope::new(doc, format!("{variant}Output"), format!("Structured output of the `{name}` tool."));
                space.named(&mut scope, &root, out)
            });
            roots.push(args.clone());
            roots.extend(output.clone());
            entries.push(ToolEntry { def: tool.def, variant: ident(&variant), args, fields, output, quarantined });
        }
        space.drop_unnamed_aliases(&roots);
        (space, entries)
    }

    /// The fields of the object type `id` (through aliases), when it keeps no extra keys.
    fn fields_of(&self, id: &Ident) -> Option<Vec<Field>> {
        let o = self.objects.get(id).map(|&i| &self.entries[i].kind)?;
        match o {
            Kind::Object(o) if o.extra.is_none() => Some(o.fields.clone()),
            _ => None,
        }
    }

    /// Adds `entry`, or an alias of an earlier type of the same shape; returns its name.
    fn push(&mut self, id: Ident, docs: Option<String>, description: Option<String>, kind: Kind) -> Ident {
        let shape = Shape { docs, description, kind };
        if let Some(first) = self.shapes.get(&shape) {
            let first = first.clone();
            if let Some(&i) = self.objects.get(&first) {
                self.objects.insert(id.clone(), i);
            }
            self.shared.insert(id.clone());
            // Its docs are the first type's, by construction: point there instead of repeating them.
            let docs = Some(format!("The same type as [`{first}`] (same schema, same docs)."));
            self.entries.push(TypeEntry { id: id.clone(), docs, description: None, kind: Kind::Alias(Ty::Named(first)) });
            return id;
        }
        if matches!(shape.kind, Kind::Object(_)) {
            self.objects.insert(id.clone(), self.entries.len());
        }
        self.shapes.insert(Shape { docs: shape.docs.clone(), description: shape.description.clone(), kind: shape.kind.clone() }, id.clone());
        self.entries.push(TypeEntry { id: id.clone(), docs: shape.docs, description: shape.description, kind: shape.kind });
        id
    }

    /// Drops the aliases made for a shared shape that no type, root or definition names
    /// (the members of a type that is itself an alias).
    fn drop_unnamed_aliases(&mut self, roots: &[Ident]) {
        let mut named: HashSet<Ident> = roots.iter().cloned().collect();
        let mut keep = vec![true; self.entries.len()];
        for (i, e) in self.entries.iter().enumerate().rev() {
            if self.shared.contains(&e.id) && !named.contains(&e.id) {
                keep[i] = false;
                continue;
            }
            e.kind.each_name(&mut |id| {
                named.insert(id.clone());
            });
        }
        let mut keep = keep.into_iter();
        self.entries.retain(|_| keep.next().unwrap_or(true));
    }

    /// The type for `s`, generating a named type (called `hint`) when it carries constraints.
    fn ty(&mut self, t: &mut DocScope<'_>, s: &Schema, hint: &str) -> Ty {
        match &s.node {
            Node::Any => Ty::Value,
            Node::Null => Ty::Unit,
            Node::Boolean => Ty::Bool,
            Node::Integer { bounds, repr } if bounds.is_empty() => Ty::Int(*repr),
            Node::Number(b) if b.is_empty() => Ty::F64,
            Node::String(r) if plain_string(r) => Ty::String,
            Node::Array(a) if a.prefix.is_empty() && a.min_items.is_none() && a.max_items.is_none() && !a.unique => {
                let item = match &a.items {
                    Items::Schema(i) => self.ty(t, i, &format!("{hint}Item")),
                    _ => Ty::Value,
                };
                Ty::Vec(Box::new(item))
            }
            Node::Object(o) if o.properties.is_empty() && o.required_extra.is_empty() && o.min_properties.is_none() && o.max_properties.is_none() && !matches!(o.additional, Additional::Closed) => {
                let value = match &o.additional {
                    Additional::Schema(v) => self.ty(t, v, &format!("{hint}Value")),
                    _ => Ty::Value,
                };
                Ty::Map(Box::new(value))
            }
            Node::Nullable(inner) => Ty::Option(Box::new(self.ty(t, inner, hint))),
            // Never reaches the generator (`allOf` merging consumes it, elsewhere the
            // specification validator applies); were it to, the stricter reading is kept.
            Node::IfType(inner) => self.ty(t, inner, hint),
            Node::Ref(i) => {
                let name = Ty::Named(self.def_type(t, *i));
                if t.doc.defs[*i].recursive { Ty::Boxed(Box::new(name)) } else { name }
            }
            _ => {
                let name = ident(&self.names.claim(hint, "Value"));
                Ty::Named(self.named(t, s, name))
            }
        }
    }

    /// The named type of definition `i`, generated on first use.
    fn def_type(&mut self, t: &mut DocScope<'_>, i: usize) -> Ident {
        if let Some(name) = &t.defs[i] {
            return name.clone();
        }
        let def = &t.doc.defs[i];
        let name = self.names.claim(&format!("{}{}", t.prefix, type_name(&def.name)), "Def");
        let id = ident(&name);
        t.defs[i] = Some(id.clone());
        let schema = def.schema.clone();
        match &schema.node {
            // A def that is itself a plain type still gets a named type, so every def has one.
            Node::Ref(_) | Node::Nullable(_) | Node::Any | Node::Null | Node::Boolean => {
                let inner = self.ty(t, &schema, &format!("{name}Inner"));
                self.entries.push(TypeEntry { id: id.clone(), docs: schema_text(&schema, schema.default.as_ref()), description: None, kind: Kind::Alias(inner) });
                id
            }
            _ => self.named(t, &schema, id),
        }
    }

    /// The named type `id` for `s`; returns the name (`id`).
    fn named(&mut self, t: &mut DocScope<'_>, s: &Schema, id: Ident) -> Ident {
        let docs = schema_text(s, s.default.as_ref());
        let description = s.description.clone();
        let name = id.to_string();
        let doc = t.doc;
        let expected = || describe(doc, s);
        let kind = match &s.node {
            Node::Object(o) => Kind::Object(self.object(t, o, &name)),
            Node::String(r) => Kind::Value(Table::String { min_length: r.min_length, max_length: r.max_length, patterns: r.patterns.iter().map(|p| p.source.clone()).collect(), format: r.format }),
            Node::Integer { bounds, repr } => Kind::Value(Table::Number { repr: Some(*repr), bounds: bounds.into() }),
            Node::Number(bounds) => Kind::Value(Table::Number { repr: None, bounds: bounds.into() }),
            Node::Array(a) if a.prefix.is_empty() => {
                let item = match &a.items {
                    Items::Schema(i) => self.ty(t, i, &format!("{name}Item")),
                    _ => Ty::Value,
                };
                Kind::Value(Table::Array { item, typed: matches!(a.items, Items::Schema(_)), min_items: a.min_items, max_items: a.max_items, unique: a.unique })
            }
            Node::Array(a) => self.tuple(t, a, &name),
            Node::Enum(values) if values.iter().all(|v| v.as_str().is_some()) => string_enum(values, false, expected()),
            Node::Const(v) if v.as_str().is_some() => string_enum(std::slice::from_ref(v), true, expected()),
            Node::Enum(values) => Kind::Value(Table::ValueSet { is_const: false, texts: values.iter().map(Json::to_json_string).collect(), expected: expected() }),
            Node::Const(v) => Kind::Value(Table::ValueSet { is_const: true, texts: vec![v.to_json_string()], expected: expected() }),
            Node::Union { mode, options } => {
                let expected = expected();
                let mut scope = Scope::default();
                let variants = options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| {
                        let v = scope.claim(&option_kind(t.doc, o).unwrap_or_else(|| format!("Option{i}")), "Option");
                        let ty = self.ty(t, o, &format!("{name}{v}"));
                        (ident(&v), ty)
                    })
                    .collect();
                Kind::Union { mode: *mode, variants, expected }
            }
            Node::Spec(r) => {
                let spec = self.spec_static(r);
                Kind::Value(Table::Spec { spec, pointer: s.pointer.clone(), schema: spec_schema(r, s) })
            }
            Node::Never => Kind::Value(Table::Never),
            // Plain types reach here only as the arguments root or a def: alias them.
            _ => Kind::Alias(self.ty(t, s, &format!("{name}Inner"))),
        };
        match kind {
            Kind::Alias(_) => {
                self.entries.push(TypeEntry { id: id.clone(), docs, description: None, kind });
                id
            }
            // Only a table's own `description` is in its JSON Schema; a struct's and a
            // union's are too.
            kind => self.push(id, docs, description, kind),
        }
    }

    /// The `static` compiling `r`'s document at run time (one per document).
    fn spec_static(&mut self, r: &SpecRef) -> Ident {
        let key = std::sync::Arc::as_ptr(&r.doc) as usize;
        if let Some((_, id, ..)) = self.specs.iter().find(|(k, ..)| *k == key) {
            return id.clone();
        }
        let id = quote::format_ident!("__SPEC_{}", self.specs.len());
        self.specs.push((key, id.clone(), r.doc.source().to_owned(), r.doc.asserts_formats()));
        id
    }

    fn tuple(&mut self, t: &mut DocScope<'_>, a: &ArrayRule, name: &str) -> Kind {
        let prefix = a.prefix.iter().enumerate().map(|(i, p)| self.ty(t, p, &format!("{name}{i}"))).collect();
        let rest = match &a.items {
            Items::Schema(i) => Some(self.ty(t, i, &format!("{name}Item"))),
            Items::Any => Some(Ty::Value),
            Items::None => None,
        };
        Kind::Tuple { prefix, rest, typed: matches!(a.items, Items::Schema(_)), min_items: a.min_items, max_items: a.max_items, unique: a.unique }
    }

    fn object(&mut self, t: &mut DocScope<'_>, o: &ObjectRule, name: &str) -> Object {
        let mut rust = Scope::default();
        let base = name.strip_suffix("Args").unwrap_or(name).to_owned();
        let fields = o
            .properties
            .iter()
            .map(|p| {
                let field = ident(&rust.claim(&field_name(&p.name), "field"));
                // `default: null` on a property that cannot be null means "absent" (a pydantic idiom).
                let applies = |d: &&Json<'static>| !matches!(d, Json::Null) || accepts_null(t.doc, &p.schema);
                let default = p.schema.default.as_ref().filter(|d| !p.required && applies(d));
                // The property's type documents the default only where it is applied.
                let ty = match (&p.schema.default, default) {
                    (Some(_), None) => self.ty(t, &Schema { default: None, ..p.schema.clone() }, &format!("{base}{}", type_name(&p.name))),
                    _ => self.ty(t, &p.schema, &format!("{base}{}", type_name(&p.name))),
                };
                let presence = match default {
                    _ if p.required => Presence::Required,
                    Some(d) => Presence::Default(default_value(&p.schema, d)),
                    None => Presence::Optional,
                };
                Field { key: p.name.clone(), rust: field, ty, presence, docs: schema_text(&p.schema, default) }
            })
            .collect();
        let extra = match &o.additional {
            Additional::Closed => None,
            Additional::Any => Some((Ty::Value, false)),
            Additional::Schema(v) => Some((self.ty(t, v, &format!("{base}Value")), true)),
        };
        let extra = extra.map(|(ty, declared)| Extra { rust: ident(&rust.claim("additional_properties", "additional_properties")), ty, declared });
        Object { fields, extra, required_extra: o.required_extra.clone(), min_properties: o.min_properties, max_properties: o.max_properties }
    }
}

impl<'d> DocScope<'d> {
    /// A scope for `doc`'s types, and its root schema, documented with `fallback` when it has no text.
    fn new(doc: &'d SchemaDoc, prefix: String, fallback: String) -> (DocScope<'d>, Schema) {
        let mut root = doc.root.clone();
        if root.description.is_none() && root.title.is_none() {
            root.description = Some(fallback);
        }
        (DocScope { doc, prefix, defs: vec![None; doc.defs.len()] }, root)
    }
}

impl Ty {
    /// Calls `f` with every generated type this type names.
    fn each_name(&self, f: &mut impl FnMut(&Ident)) {
        match self {
            Ty::Named(id) => f(id),
            Ty::Vec(t) | Ty::Map(t) | Ty::Option(t) | Ty::Boxed(t) => t.each_name(f),
            Ty::Bool | Ty::Int(_) | Ty::F64 | Ty::String | Ty::Unit | Ty::Value => {}
        }
    }
}

impl Kind {
    /// Calls `f` with every generated type this kind names.
    fn each_name(&self, f: &mut impl FnMut(&Ident)) {
        match self {
            Kind::Alias(t) | Kind::Value(Table::Array { item: t, .. }) => t.each_name(f),
            Kind::Value(_) | Kind::StringEnum { .. } => {}
            Kind::Union { variants, .. } => variants.iter().for_each(|(_, t)| t.each_name(f)),
            Kind::Tuple { prefix, rest, .. } => prefix.iter().chain(rest).for_each(|t| t.each_name(f)),
            Kind::Object(o) => o.fields.iter().map(|x| &x.ty).chain(o.extra.as_ref().map(|e| &e.ty)).for_each(|t| t.each_name(f)),
        }
    }
}

/// Whether a string rule constrains nothing (the value is a plain `String`).
pub(super) fn plain_string(r: &StringRule) -> bool {
    r.min_length.is_none() && r.max_length.is_none() && r.patterns.is_empty() && r.format.is_none()
}

fn string_enum(values: &[Json<'static>], is_const: bool, expected: String) -> Kind {
    let values: Vec<String> = values.iter().filter_map(Json::as_str).map(str::to_owned).collect();
    let variants = enum_variants(&values);
    Kind::StringEnum { values, variants, is_const, expected }
}

/// The variant names of a string enum, in value order.
fn enum_variants(strings: &[String]) -> Vec<Ident> {
    let mut scope = Scope::default();
    strings.iter().map(|v| ident(&scope.claim(&type_name(v), "Empty"))).collect()
}

/// Whether `s` admits `null` (so a `default: null` can be applied).
fn accepts_null(doc: &SchemaDoc, s: &Schema) -> bool {
    matches!(doc.resolve(s).node, Node::Null | Node::Nullable(_) | Node::Any)
}

/// A variant name for a union option, from what it accepts.
fn option_kind(doc: &SchemaDoc, s: &Schema) -> Option<String> {
    let kind = match &doc.resolve(s).node {
        Node::Boolean => "Boolean",
        Node::Integer { .. } => "Integer",
        Node::Number(_) => "Number",
        Node::String(_) => "String",
        Node::Array(_) => "Array",
        Node::Object(_) => "Object",
        Node::Null => "Null",
        Node::Any => "Any",
        Node::Enum(_) => "Enum",
        Node::Const(_) => "Const",
        _ => return None,
    };
    Some(match &s.node {
        Node::Ref(i) => type_name(&doc.defs[*i].name),
        _ => kind.to_owned(),
    })
}

/// How generated code writes the `default` `d` of a property with schema `s`;
/// toolseal-build has checked it against `s`. Newtypes are built with `{ 0: .. }`,
/// which also works through an alias.
fn default_value(s: &Schema, d: &Json<'static>) -> DefaultValue {
    let literal = match (&s.node, d) {
        (Node::Boolean, Json::Bool(b)) => Some((Literal::Bool(*b), false)),
        (Node::Integer { bounds, repr: IntRepr::I64 }, Json::Number(n)) => n.as_i64().map(|x| (Literal::I64(x), !bounds.is_empty())),
        (Node::Integer { bounds, repr: IntRepr::U64 }, Json::Number(n)) => n.as_u64().map(|x| (Literal::U64(x), !bounds.is_empty())),
        (Node::Number(bounds), Json::Number(n)) => Some((Literal::F64(Num(n.as_f64())), !bounds.is_empty())),
        (Node::String(r), Json::String(text)) => Some((Literal::String(text.to_string()), !plain_string(r))),
        (Node::Enum(values), Json::String(text)) if values.iter().all(|v| v.as_str().is_some()) => {
            let strings: Vec<String> = values.iter().filter_map(Json::as_str).map(str::to_owned).collect();
            if let Some(i) = strings.iter().position(|v| v == text.as_ref()) {
                return DefaultValue::Variant(enum_variants(&strings).swap_remove(i));
            }
            None
        }
        _ => None,
    };
    match literal {
        Some((value, wrapped)) => DefaultValue::Literal { value, wrapped },
        None => DefaultValue::Json(d.to_json_string()),
    }
}

/// The JSON Schema of a [`Node::Spec`] type: its closed-world subschema as written,
/// with the document's `$defs` / `definitions` beside it so that its references resolve.
fn spec_schema(r: &SpecRef, s: &Schema) -> String {
    let tree = Json::parse(r.doc.source().as_bytes()).map(Json::into_owned).expect("the specification validator's source is JSON it wrote");
    let mut sub = tree.pointer(&s.pointer).cloned().unwrap_or(Json::Bool(true));
    if let Json::Object(members) = &mut sub {
        for word in ["$defs", "definitions"] {
            if !s.pointer.is_empty()
                && !members.iter().any(|(k, _)| k == word)
                && let Some(defs) = tree.get(word)
            {
                members.push((word.into(), defs.clone()));
            }
        }
    }
    let sub = match sub {
        Json::Bool(b) => Json::Object(if b { Vec::new() } else { vec![("not".into(), Json::Object(Vec::new()))] }),
        other => other,
    };
    sub.to_json_string()
}
