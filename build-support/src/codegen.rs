//! IR → Rust: one sealed `ToolCall` enum per registry, one argument struct per
//! tool, and a named type for every constrained value, each with a validating
//! `FromJson`, `Deserialize` and `JsonSchema` and a `Serialize` back to JSON.

use std::borrow::Cow;
use std::collections::HashMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use toolseal_runtime::call::lookup;
use toolseal_runtime::check::NumberBounds;
use toolseal_runtime::json::Json;
use toolseal_runtime::registry::ToolDef;
use toolseal_runtime::schema::{describe, Additional, ArrayRule, IntRepr, Items, Node, ObjectRule, Schema, SchemaDoc, SpecRef, StringRule, UnionMode};

use crate::contract::{Contract, ContractField, ContractOutput, ContractTool};
use crate::docs::{code, doc_attr, schema_docs};
use crate::facade::Facade;
use crate::naming::{field_name, ident, type_name, Scope};

/// One tool with its compiled arguments and output schemas.
pub struct ToolInput<'a> {
    /// The registry definition.
    pub def: &'a ToolDef,
    /// Its compiled `inputSchema`, or why it cannot be enforced (the tool is quarantined).
    pub schema: Result<SchemaDoc, String>,
    /// Its compiled `outputSchema`, if it declares one.
    pub output: Option<SchemaDoc>,
}

/// A struct field as the contract sees it.
struct FieldShape {
    key: String,
    rust: String,
    ty: TokenStream,
    optional: bool,
    required: bool,
}

fn f64_lit(x: f64) -> Literal {
    Literal::f64_unsuffixed(x)
}

fn opt_f64(x: Option<f64>) -> TokenStream {
    match x {
        Some(x) => {
            let l = f64_lit(x);
            quote!(::core::option::Option::Some(#l))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn opt_u64(x: Option<u64>) -> TokenStream {
    match x {
        Some(x) => {
            let l = Literal::u64_unsuffixed(x);
            quote!(::core::option::Option::Some(#l))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn bounds_tokens(rt: &TokenStream, b: &NumberBounds) -> TokenStream {
    let (min, max, xmin, xmax, mul) = (opt_f64(b.minimum), opt_f64(b.maximum), opt_f64(b.exclusive_minimum), opt_f64(b.exclusive_maximum), opt_f64(b.multiple_of));
    quote!(#rt::NumberBounds { minimum: #min, maximum: #max, exclusive_minimum: #xmin, exclusive_maximum: #xmax, multiple_of: #mul })
}

/// A `serde_json::Value` expression for a JSON literal.
fn json_lit(rt: &TokenStream, v: &Json<'_>) -> TokenStream {
    let text = v.to_json_string();
    quote!(#rt::json_literal(#text))
}

/// Generates the Rust source for one registry.
pub struct Generator {
    types: Scope,
    items: Vec<TokenStream>,
    impls: Vec<TokenStream>,
    /// The fields of the object generated last (`None` when it keeps extra keys).
    last_fields: Option<Vec<FieldShape>>,
    /// Self-contained value types generated so far, by shape: a later type of
    /// the same shape is an alias of the first (one set of impls for both).
    shapes: HashMap<String, Ident>,
    /// The `static` holding each specification document (one per tool schema), by document.
    specs: HashMap<usize, Ident>,
    /// How generated code names the toolseal facade.
    facade: Facade,
    /// The facade's `__private` support module.
    rt: TokenStream,
}

/// Per-tool state: its schema and the types made for its `$ref` targets.
struct ToolScope<'d> {
    doc: &'d SchemaDoc,
    prefix: String,
    defs: Vec<Option<Ident>>,
}

impl<'d> ToolScope<'d> {
    /// A scope for `doc`'s types, and its root schema, documented with `fallback` when it has no text.
    fn new(doc: &'d SchemaDoc, prefix: String, fallback: String) -> (ToolScope<'d>, Schema) {
        let mut root = doc.root.clone();
        if root.description.is_none() && root.title.is_none() {
            root.description = Some(fallback);
        }
        (ToolScope { doc, prefix, defs: vec![None; doc.defs.len()] }, root)
    }
}

impl Generator {
    /// Generates the module source (unformatted tokens) for `tools` and the
    /// contract `#[toolseal::tool]` checks against; `registry` names the file,
    /// `facade` how the code names the toolseal crate.
    pub fn registry(tools: &[ToolInput<'_>], registry: &str, module: &str, facade: &Facade) -> (TokenStream, Contract) {
        let rt = facade.private();
        let private = facade.private_prefix();
        let mut g = Generator { types: Scope::types(), items: Vec::new(), impls: Vec::new(), last_fields: None, shapes: HashMap::new(), specs: HashMap::new(), facade: facade.clone(), rt };
        let mut variants = Scope::default();
        let mut arms = Vec::new();
        let mut contract = Contract { registry: registry.to_owned(), module: module.to_owned(), tools: Vec::new() };
        let mut checks = Vec::new();
        for tool in tools {
            let name = &tool.def.name;
            let variant_name = variants.claim(&type_name(name), "Tool");
            let variant = ident(&variant_name);
            let args = g.types.claim(&format!("{variant_name}Args"), "Args");
            g.last_fields = None;
            let (ty, shapes) = match &tool.schema {
                Ok(doc) => {
                    let (mut scope, root) = ToolScope::new(doc, variant_name.clone(), format!("Arguments of the `{name}` tool."));
                    let ty = g.named(&mut scope, &root, &args);
                    (ty, if matches!(root.node, Node::Object(_)) { g.last_fields.take() } else { None })
                }
                Err(problem) => (g.quarantined(&args, name, problem), None),
            };
            let args_check = format!("{variant_name}__args");
            checks.push(check_trait(
                &args_check,
                &quote!(#ty),
                &format!("`{{Self}}` is not the argument type of tool `{}`", escape(name)),
                &format!("expected `{args}`"),
                &format!("`{}` generates `{args}` for the arguments of `{}`", escape(registry), escape(name)),
            ));
            let fields = shapes.map(|shapes| {
                shapes
                    .into_iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let check = format!("{variant_name}__f{i}");
                        let shown = display_type(&f.ty, &private);
                        let presence = match (f.required, f.optional) {
                            (true, _) => "a required argument",
                            (false, true) => "an optional argument, so the field is an `Option`",
                            (false, false) => "an optional argument with a default, so the field is never absent",
                        };
                        checks.push(check_trait(
                            &check,
                            &f.ty,
                            &format!("`{{Self}}` is not the type of argument `{}` of tool `{}`", escape(&f.key), escape(name)),
                            &format!("expected `{}`", escape(&shown)),
                            &format!(
                                "`{}` declares `{}` as {presence}: take `{}: {}` (or the whole `{args}`)",
                                escape(registry),
                                escape(&f.key),
                                f.rust,
                                escape(&shown)
                            ),
                        ));
                        ContractField { key: f.key, rust: f.rust, ty: shown, optional: f.optional, required: f.required, check }
                    })
                    .collect()
            });
            let output = tool.output.as_ref().map(|doc| {
                let out = g.types.claim(&format!("{variant_name}Output"), "Output");
                let (mut scope, root) = ToolScope::new(doc, format!("{variant_name}Output"), format!("Structured output of the `{name}` tool."));
                let out_ty = g.named(&mut scope, &root, &out);
                let check = format!("{variant_name}__output");
                checks.push(check_trait(
                    &check,
                    &quote!(#out_ty),
                    &format!("`{{Self}}` is not the output type of tool `{}`", escape(name)),
                    &format!("expected `{out}`"),
                    &format!("`{}` declares an `outputSchema` for `{}`: return `{out}` or `Result<{out}, E>`", escape(registry), escape(name)),
                ));
                ContractOutput { ty: out, check }
            });
            contract.tools.push(ContractTool { name: name.clone(), variant: variant_name.clone(), args: args.clone(), args_check, fields, output });
            arms.push((tool.def, tool.schema.as_ref().err().map(String::as_str), variant, ty));
        }
        g.tool_call(&arms, registry);
        let (items, impls) = (g.items, g.impls);
        // Generated code lands in the user's crate, under the user's lints: `-D warnings`
        // must not fail on names and shapes that come from the registry (a key `foo` bound
        // as a local is `clippy::disallowed_names`, variants sharing a word are
        // `clippy::enum_variant_names`). Every item carries `clippy::all` (the lints
        // `cargo clippy` warns about by default), as generated code conventionally does.
        // Rustc's naming lints cannot fire: `naming` makes every type UpperCamelCase and
        // every field snake_case.
        let tokens = quote! {
            #(#[allow(dead_code, clippy::all)] #items)*
            #[allow(clippy::all)]
            const _: () = {
                #(#impls)*
            };
            /// Checks behind `#[toolseal::tool]`: one trait per argument, argument
            /// type and output type, implemented by exactly the generated type.
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code, unused_imports, clippy::all)]
            pub mod __contract {
                use super::*;
                #(#checks)*
            }
        };
        (tokens, contract)
    }

    /// The type for `s`, generating a named type when it carries constraints.
    fn ty(&mut self, t: &mut ToolScope<'_>, s: &Schema, hint: &str) -> TokenStream {
        let rt = self.rt.clone();
        match &s.node {
            Node::Any => quote!(#rt::serde_json::Value),
            Node::Null => quote!(()),
            Node::Boolean => quote!(bool),
            Node::Integer { bounds, repr } if bounds.is_empty() => int_ty(*repr),
            Node::Number(b) if b.is_empty() => quote!(f64),
            Node::String(r) if r.min_length.is_none() && r.max_length.is_none() && r.patterns.is_empty() && r.format.is_none() => quote!(String),
            Node::Array(a) if a.prefix.is_empty() && a.min_items.is_none() && a.max_items.is_none() && !a.unique => {
                let item = match &a.items {
                    Items::Schema(i) => self.ty(t, i, &format!("{hint}Item")),
                    _ => quote!(#rt::serde_json::Value),
                };
                quote!(::std::vec::Vec<#item>)
            }
            Node::Object(o) if o.properties.is_empty() && o.required_extra.is_empty() && o.min_properties.is_none() && o.max_properties.is_none() && !matches!(o.additional, Additional::Closed) => {
                let value = match &o.additional {
                    Additional::Schema(v) => self.ty(t, v, &format!("{hint}Value")),
                    _ => quote!(#rt::serde_json::Value),
                };
                quote!(::std::collections::BTreeMap<::std::string::String, #value>)
            }
            Node::Nullable(inner) => {
                let inner = self.ty(t, inner, hint);
                quote!(::core::option::Option<#inner>)
            }
            // Never reaches the generator (`allOf` merging consumes it, elsewhere the
            // specification validator applies); were it to, the stricter reading is kept.
            Node::IfType(inner) => self.ty(t, inner, hint),
            Node::Ref(i) => {
                let name = self.def_type(t, *i);
                if t.doc.defs[*i].recursive {
                    quote!(::std::boxed::Box<#name>)
                } else {
                    quote!(#name)
                }
            }
            _ => {
                let name = self.types.claim(hint, "Value");
                let name = self.named(t, s, &name);
                quote!(#name)
            }
        }
    }

    fn def_type(&mut self, t: &mut ToolScope<'_>, i: usize) -> Ident {
        if let Some(name) = &t.defs[i] {
            return name.clone();
        }
        let def = &t.doc.defs[i];
        let name = self.types.claim(&format!("{}{}", t.prefix, type_name(&def.name)), "Def");
        let id = ident(&name);
        t.defs[i] = Some(id.clone());
        let schema = def.schema.clone();
        match &schema.node {
            // A def that is itself a plain type still gets a named type, so every def has one.
            Node::Ref(_) | Node::Nullable(_) | Node::Any | Node::Null | Node::Boolean => {
                let inner = self.ty(t, &schema, &format!("{name}Inner"));
                let docs = schema_docs(&schema, schema.default.as_ref());
                self.items.push(quote!(#docs pub type #id = #inner;));
            }
            _ => {
                self.named(t, &schema, &name);
            }
        }
        id
    }

    /// Generates the named type `name` for `s`; returns its identifier.
    fn named(&mut self, t: &mut ToolScope<'_>, s: &Schema, name: &str) -> Ident {
        let id = ident(name);
        let docs = schema_docs(s, s.default.as_ref());
        if let Some(key) = shape_key(s) {
            if let Some(first) = self.shapes.get(&key) {
                self.items.push(quote!(#docs pub type #id = #first;));
                return id;
            }
            self.shapes.insert(key, id.clone());
        }
        let described = describe(t.doc, s);
        match &s.node {
            Node::Object(o) => self.object(t, &id, docs, o, s),
            Node::String(r) => self.newtype(&id, docs, quote!(String), string_body(&self.rt, r), string_schema(&self.rt, r, s)),
            Node::Integer { bounds, repr } => {
                let b = bounds_tokens(&self.rt, bounds);
                let rt = self.rt.clone();
                let f = match repr {
                    IntRepr::I64 => quote!(integer_i64),
                    IntRepr::U64 => quote!(integer_u64),
                };
                let body = quote!(#rt::check::#f(v, at, cx, &#b).map(Self));
                self.newtype(&id, docs, int_ty(*repr), body, number_schema(&self.rt, "integer", bounds, s))
            }
            Node::Number(bounds) => {
                let b = bounds_tokens(&self.rt, bounds);
                let rt = self.rt.clone();
                let body = quote!(#rt::check::number_f64(v, at, cx, &#b).map(Self));
                self.newtype(&id, docs, quote!(f64), body, number_schema(&self.rt, "number", bounds, s))
            }
            Node::Array(a) if a.prefix.is_empty() => {
                let rt = self.rt.clone();
                let item = match &a.items {
                    Items::Schema(i) => self.ty(t, i, &format!("{name}Item")),
                    _ => quote!(#rt::serde_json::Value),
                };
                let (min, max, unique) = (opt_u64(a.min_items), opt_u64(a.max_items), a.unique);
                let body = quote! {
                    let items = #rt::check::array(v, at)?;
                    #rt::check::items(items, at, #min, #max, #unique)?;
                    #rt::elements(items, at, cx).map(Self)
                };
                let schema = array_schema(&self.rt, a, &item, s);
                self.newtype(&id, docs, quote!(::std::vec::Vec<#item>), body, schema)
            }
            Node::Array(a) => self.tuple(t, &id, docs, a, s),
            Node::Enum(values) if values.iter().all(|v| v.as_str().is_some()) => self.string_enum(&id, docs, values, false, &described, s),
            Node::Const(v) if v.as_str().is_some() => self.string_enum(&id, docs, std::slice::from_ref(v), true, &described, s),
            Node::Enum(values) => self.value_set(&id, docs, values, false, &described, s),
            Node::Const(v) => self.value_set(&id, docs, std::slice::from_ref(v), true, &described, s),
            Node::Union { mode, options } => self.union(t, &id, docs, *mode, options, &described, s),
            Node::Spec(r) => {
                let rt = self.rt.clone();
                let spec = self.spec_static(r);
                let pointer = &s.pointer;
                let body = quote! {
                    #spec.check(#pointer, v, at, cx)?;
                    ::core::result::Result::Ok(Self(v.to_value()))
                };
                let schema = spec_schema(&self.rt, r, s);
                self.newtype(&id, docs, quote!(#rt::serde_json::Value), body, schema);
            }
            Node::Never => {
                let rt = self.rt.clone();
                let body = quote!(::core::result::Result::Err(#rt::Rejection::violation(at, #rt::Keyword::False, "no value (the schema here admits none)", v.kind())));
                self.newtype(&id, docs, quote!(#rt::serde_json::Value), body, quote!(s.insert("not".into(), #rt::serde_json::json!({}));));
            }
            // Plain types reach here only as the arguments root or a def: alias them.
            _ => {
                let inner = self.ty(t, s, &format!("{name}Inner"));
                self.items.push(quote!(#docs pub type #id = #inner;));
            }
        }
        id
    }

    /// The argument type of a quarantined tool: no value converts to it, every call
    /// is refused with `problem`.
    fn quarantined(&mut self, name: &str, tool: &str, problem: &str) -> Ident {
        let rt = self.rt.clone();
        let id = ident(name);
        let docs = doc_attr(Some(format!("Arguments of the `{tool}` tool, which is quarantined: its schema cannot be enforced ({problem}). No call resolves to it.")));
        let body = quote! {
            let _ = (v, at);
            ::core::result::Result::Err(#rt::Rejection::quarantined(#tool, #problem))
        };
        self.newtype(&id, docs, quote!(#rt::serde_json::Value), body, quote!(s.insert("not".into(), #rt::serde_json::json!({}));));
        id
    }

    /// The `static` compiling `r`'s document at run time (one per document).
    fn spec_static(&mut self, r: &SpecRef) -> Ident {
        let key = std::sync::Arc::as_ptr(&r.doc) as usize;
        if let Some(id) = self.specs.get(&key) {
            return id.clone();
        }
        let id = format_ident!("__SPEC_{}", self.specs.len());
        let (source, formats) = (r.doc.source(), r.doc.asserts_formats());
        let rt = self.rt.clone();
        self.impls.push(quote!(static #id: #rt::LazySpec = #rt::LazySpec::new(#source, #formats);));
        self.specs.insert(key, id.clone());
        id
    }

    /// `Deserialize` and `JsonSchema` for `id`; `schema_body` fills the schema map `s`.
    fn common_impls(&mut self, id: &Ident, schema_body: TokenStream) {
        let rt = self.rt.clone();
        self.schema_impls(id, quote! {
            let mut s = #rt::serde_json::Map::new();
            #schema_body
            #rt::schemars::Schema::from(s)
        });
    }

    /// `Deserialize` and `JsonSchema` for `id`; `json_schema` is the body of `JsonSchema::json_schema(g)`.
    fn schema_impls(&mut self, id: &Ident, json_schema: TokenStream) {
        let rt = self.rt.clone();
        let deserialize = self.facade.root("__deserialize_via_from_json");
        let name = id.to_string();
        self.impls.push(quote! {
            #deserialize!(#id);
            impl #rt::schemars::JsonSchema for #id {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#name)
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
                }
                fn json_schema(g: &mut #rt::schemars::SchemaGenerator) -> #rt::schemars::Schema {
                    let _ = &g;
                    #json_schema
                }
            }
        });
    }

    fn newtype(&mut self, id: &Ident, docs: TokenStream, inner: TokenStream, body: TokenStream, schema: TokenStream) {
        let rt = self.rt.clone();
        let (serde, access) = (self.facade.serde(), self.facade.root("__newtype_access"));
        self.items.push(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, #rt::serde::Serialize)]
            #[serde(crate = #serde, transparent)]
            pub struct #id(#inner);
        });
        self.impls.push(quote! {
            #access!(#id, #inner);
            impl #rt::FromJson for #id {
                fn from_json(v: &#rt::Json<'_>, at: &#rt::Path<'_>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let _ = &cx;
                    #body
                }
            }
        });
        self.common_impls(id, schema);
    }

    fn string_enum(&mut self, id: &Ident, docs: TokenStream, values: &[Json<'static>], is_const: bool, described: &str, s: &Schema) {
        let (rt, serde) = (self.rt.clone(), self.facade.serde());
        let strings: Vec<&str> = values.iter().filter_map(Json::as_str).collect();
        let variants = enum_variants(&strings);
        let keyword = if is_const { quote!(Const) } else { quote!(Enum) };
        let enum_values = values.iter().map(|v| json_lit(&rt, v));
        let word = if is_const { "const" } else { "enum" };
        let desc = s.description.iter();
        let variant_docs = strings.iter().map(|s| format!(" {}", code(&Json::String(Cow::Borrowed(s)).to_json_string())));
        self.items.push(quote! {
            #docs
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #rt::serde::Serialize)]
            #[serde(crate = #serde)]
            pub enum #id {
                #(#[doc = #variant_docs] #[serde(rename = #strings)] #variants,)*
            }
        });
        let list = if is_const { quote!(#(#enum_values)*) } else { quote!(#rt::serde_json::Value::Array(::std::vec![#(#enum_values),*])) };
        self.impls.push(quote! {
            #[allow(dead_code)]
            impl #id {
                /// The value as written in the registry.
                pub fn as_str(&self) -> &'static str {
                    match self { #(Self::#variants => #strings,)* }
                }
            }
            impl #rt::FromJson for #id {
                fn from_json(v: &#rt::Json<'_>, at: &#rt::Path<'_>, _: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    if let #rt::Json::String(s) = v {
                        match s.as_ref() {
                            #(#strings => return ::core::result::Result::Ok(Self::#variants),)*
                            _ => {}
                        }
                    }
                    ::core::result::Result::Err(#rt::Rejection::violation(at, #rt::Keyword::#keyword, #described, v.kind()))
                }
            }
        });
        self.common_impls(id, quote! {
            s.insert(#word.into(), #list);
            #(s.insert("description".into(), #desc.into());)*
        });
    }

    fn value_set(&mut self, id: &Ident, docs: TokenStream, values: &[Json<'static>], is_const: bool, described: &str, s: &Schema) {
        let rt = self.rt.clone();
        let texts: Vec<String> = values.iter().map(Json::to_json_string).collect();
        let body = if is_const {
            let text = &texts[0];
            quote! {
                static VALUE: ::std::sync::LazyLock<#rt::Json<'static>> = ::std::sync::LazyLock::new(|| #rt::json_tree(#text));
                if *v == *VALUE { ::core::result::Result::Ok(Self(v.to_value())) }
                else { ::core::result::Result::Err(#rt::Rejection::violation(at, #rt::Keyword::Const, #described, v.kind())) }
            }
        } else {
            quote! {
                static VALUES: ::std::sync::LazyLock<::std::vec::Vec<#rt::Json<'static>>> = ::std::sync::LazyLock::new(|| ::std::vec![#(#rt::json_tree(#texts)),*]);
                #rt::check::one_of_values(v, at, &VALUES, || ::std::borrow::Cow::Borrowed(#described))?;
                ::core::result::Result::Ok(Self(v.to_value()))
            }
        };
        let word = if is_const { "const" } else { "enum" };
        let list = if is_const { json_lit(&rt, &values[0]) } else { json_lit(&rt, &Json::Array(values.to_vec())) };
        let desc = s.description.iter();
        self.newtype(id, docs, quote!(#rt::serde_json::Value), body, quote! {
            s.insert(#word.into(), #list);
            #(s.insert("description".into(), #desc.into());)*
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn union(&mut self, t: &mut ToolScope<'_>, id: &Ident, docs: TokenStream, mode: UnionMode, options: &[Schema], described: &str, s: &Schema) {
        let (rt, serde) = (self.rt.clone(), self.facade.serde());
        let mut scope = Scope::default();
        let mut variants = Vec::new();
        let mut tys = Vec::new();
        for (i, o) in options.iter().enumerate() {
            let kind = option_kind(t.doc, o).unwrap_or_else(|| format!("Option{i}"));
            let v = scope.claim(&kind, "Option");
            tys.push(self.ty(t, o, &format!("{id}{v}")));
            variants.push(ident(&v));
        }
        self.items.push(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, #rt::serde::Serialize)]
            #[serde(crate = #serde, untagged)]
            pub enum #id {
                #(#variants(#tys),)*
            }
        });
        let (keyword, word) = match mode {
            UnionMode::AnyOf => (quote!(AnyOf), "anyOf"),
            UnionMode::OneOf => (quote!(OneOf), "oneOf"),
        };
        let body = match mode {
            UnionMode::AnyOf => quote! {
                let mut errors = ::std::vec::Vec::new();
                #(
                    let mut trial = cx.child();
                    match <#tys as #rt::FromJson>::from_json(v, at, &mut trial) {
                        ::core::result::Result::Ok(x) => { cx.absorb(trial); return ::core::result::Result::Ok(Self::#variants(x)); }
                        ::core::result::Result::Err(e) => errors.push(e),
                    }
                )*
                ::core::result::Result::Err(#rt::check::union_error(at, v, #rt::Keyword::#keyword, ::std::borrow::Cow::Borrowed(#described), errors))
            },
            UnionMode::OneOf => {
                let exactly = format!("exactly {described}");
                quote! {
                    let mut errors = ::std::vec::Vec::new();
                    let mut found: ::core::option::Option<(Self, #rt::Cx)> = ::core::option::Option::None;
                    #(
                        let mut trial = cx.child();
                        match <#tys as #rt::FromJson>::from_json(v, at, &mut trial) {
                            ::core::result::Result::Ok(x) => {
                                if found.is_some() {
                                    return ::core::result::Result::Err(#rt::check::one_of_ambiguous(at, v, ::std::borrow::Cow::Borrowed(#exactly)));
                                }
                                found = ::core::option::Option::Some((Self::#variants(x), trial));
                            }
                            ::core::result::Result::Err(e) => errors.push(e),
                        }
                    )*
                    match found {
                        ::core::option::Option::Some((x, trial)) => { cx.absorb(trial); ::core::result::Result::Ok(x) }
                        ::core::option::Option::None => ::core::result::Result::Err(#rt::check::union_error(at, v, #rt::Keyword::#keyword, ::std::borrow::Cow::Borrowed(#described), errors)),
                    }
                }
            }
        };
        self.impls.push(quote! {
            impl #rt::FromJson for #id {
                fn from_json(v: &#rt::Json<'_>, at: &#rt::Path<'_>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    #body
                }
            }
        });
        let desc = s.description.iter();
        self.common_impls(id, quote! {
            s.insert(#word.into(), #rt::serde_json::Value::Array(::std::vec![#(#rt::subschema::<#tys>(g)),*]));
            #(s.insert("description".into(), #desc.into());)*
        });
    }

    fn tuple(&mut self, t: &mut ToolScope<'_>, id: &Ident, docs: TokenStream, a: &ArrayRule, s: &Schema) {
        let rt = self.rt.clone();
        let prefix: Vec<TokenStream> = a.prefix.iter().enumerate().map(|(i, p)| self.ty(t, p, &format!("{id}{i}"))).collect();
        let rest = match &a.items {
            Items::Schema(i) => Some(self.ty(t, i, &format!("{id}Item"))),
            Items::Any => Some(quote!(#rt::serde_json::Value)),
            Items::None => None,
        };
        let idx: Vec<Literal> = (0..prefix.len()).map(Literal::usize_unsuffixed).collect();
        let n = prefix.len();
        let rest_field = rest.iter().map(|r| quote!(pub ::std::vec::Vec<#r>));
        let gap = (!docs.is_empty()).then(|| quote!(#[doc = ""]));
        self.items.push(quote! {
            #docs
            #gap
            /// Elements of the prefix are optional: an array may be shorter than its prefix.
            #[derive(Debug, Clone, PartialEq)]
            pub struct #id(#(pub ::core::option::Option<#prefix>,)* #(#rest_field)*);
        });
        let (min, max, unique) = (opt_u64(a.min_items), opt_u64(a.max_items), a.unique);
        let rest_read = rest.iter().map(|_| quote!(#rt::elements_from(items, #n, at, cx)?));
        let rest_ser = rest.iter().map(|_| {
            let last = Literal::usize_unsuffixed(n);
            quote!(for x in &self.#last { seq.serialize_element(x)?; })
        });
        self.impls.push(quote! {
            impl #rt::FromJson for #id {
                fn from_json(v: &#rt::Json<'_>, at: &#rt::Path<'_>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let items = #rt::check::array(v, at)?;
                    #rt::check::items(items, at, #min, #max, #unique)?;
                    ::core::result::Result::Ok(Self(
                        #(match items.get(#idx) {
                            ::core::option::Option::Some(x) => ::core::option::Option::Some(<#prefix as #rt::FromJson>::from_json(x, &at.index(#idx), cx)?),
                            ::core::option::Option::None => ::core::option::Option::None,
                        },)*
                        #(#rest_read)*
                    ))
                }
            }
            impl #rt::serde::Serialize for #id {
                fn serialize<S: #rt::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    use #rt::serde::ser::SerializeSeq;
                    let mut seq = serializer.serialize_seq(::core::option::Option::None)?;
                    #(if let ::core::option::Option::Some(x) = &self.#idx { seq.serialize_element(x)?; })*
                    #(#rest_ser)*
                    seq.end()
                }
            }
        });
        let items_schema = match &rest {
            Some(r) if matches!(a.items, Items::Schema(_)) => quote!(#rt::subschema::<#r>(g)),
            Some(_) => quote!(#rt::serde_json::Value::Bool(true)),
            None => quote!(#rt::serde_json::Value::Bool(false)),
        };
        let counts = counts_schema(a.min_items, a.max_items, a.unique);
        let desc = s.description.iter();
        self.common_impls(id, quote! {
            s.insert("type".into(), "array".into());
            s.insert("prefixItems".into(), #rt::serde_json::Value::Array(::std::vec![#(#rt::subschema::<#prefix>(g)),*]));
            s.insert("items".into(), #items_schema);
            #counts
            #(s.insert("description".into(), #desc.into());)*
        });
    }

    fn object(&mut self, t: &mut ToolScope<'_>, id: &Ident, docs: TokenStream, o: &ObjectRule, s: &Schema) {
        let (rt, serde, signature_first) = (self.rt.clone(), self.facade.serde(), self.facade.root("__signature_first"));
        let mut fields = Scope::default();
        let mut field_defs = Vec::new();
        let mut slot_arms = Vec::new();
        let mut required_checks = Vec::new();
        let mut required_idx = Vec::new();
        let mut reads = Vec::new();
        let mut names = Vec::new();
        let mut schema_props = Vec::new();
        let mut required_names = Vec::new();
        let mut fids = Vec::new();
        let type_base = id.to_string().strip_suffix("Args").map(str::to_owned).unwrap_or_else(|| id.to_string());
        let mut shapes = Vec::new();
        for (i, p) in o.properties.iter().enumerate() {
            let fname = fields.claim(&field_name(&p.name), "field");
            let fid = ident(&fname);
            let key = &p.name;
            // `default: null` on a property that cannot be null means "absent" (a pydantic idiom).
            let applies = |d: &&Json<'static>| !matches!(d, Json::Null) || accepts_null(t.doc, &p.schema);
            let default = p.schema.default.as_ref().filter(|d| !p.required && applies(d));
            // The property's type documents the default only where it is applied.
            let schema = match (&p.schema.default, default) {
                (Some(_), None) => Cow::Owned(Schema { default: None, ..p.schema.clone() }),
                _ => Cow::Borrowed(&p.schema),
            };
            let ty = self.ty(t, &schema, &format!("{type_base}{}", type_name(key)));
            let fdocs = schema_docs(&p.schema, default);
            let rename = if fname != *key { quote!(#[serde(rename = #key)]) } else { TokenStream::new() };
            let idx = Literal::usize_unsuffixed(i);
            let (field_ty, read) = if p.required {
                required_checks.push(quote! {
                    if slots[#idx].is_none() {
                        return ::core::result::Result::Err(#rt::Rejection::missing_key(at, #key, #rt::Names::Static(DECLARED)));
                    }
                });
                required_idx.push(idx.clone());
                (ty.clone(), quote!(<#ty as #rt::FromJson>::from_json(slots[#idx].unwrap_or(&#rt::EMPTY_ARGUMENTS), &at.key(#key), cx)))
            } else if let Some(d) = default {
                let value = default_expr(&p.schema, &ty, d).unwrap_or_else(|| {
                    let text = d.to_json_string();
                    quote! {{
                        static DEFAULT: ::std::sync::OnceLock<#ty> = ::std::sync::OnceLock::new();
                        #rt::default_value(&DEFAULT, #text)
                    }}
                });
                (ty.clone(), quote! {
                    match slots[#idx] {
                        ::core::option::Option::Some(x) => <#ty as #rt::FromJson>::from_json(x, &at.key(#key), cx),
                        ::core::option::Option::None => ::core::result::Result::Ok(#value),
                    }
                })
            } else {
                (quote!(::core::option::Option<#ty>), quote! {
                    match slots[#idx] {
                        ::core::option::Option::Some(x) => <#ty as #rt::FromJson>::from_json(x, &at.key(#key), cx).map(::core::option::Option::Some),
                        ::core::option::Option::None => ::core::result::Result::Ok(::core::option::Option::None),
                    }
                })
            };
            let optional = !p.required && default.is_none();
            shapes.push(FieldShape { key: key.clone(), rust: fid.to_string(), ty: field_ty.clone(), optional, required: p.required });
            let skip = if optional { quote!(#[serde(skip_serializing_if = "::core::option::Option::is_none")]) } else { TokenStream::new() };
            field_defs.push(quote!(#fdocs #rename #skip pub #fid: #field_ty,));
            slot_arms.push(quote!(#key => #idx,));
            reads.push(quote!(let #fid = #signature_first!(first, #read);));
            fids.push(fid.clone());
            names.push(key.clone());
            schema_props.push(quote!((#key, #rt::subschema::<#ty> as #rt::SchemaFn)));
            if p.required {
                required_names.push(key.clone());
            }
        }
        let n = o.properties.len();
        let extra = match &o.additional {
            Additional::Closed => None,
            Additional::Any => Some(quote!(#rt::serde_json::Value)),
            Additional::Schema(v) => Some(self.ty(t, v, &format!("{type_base}Value"))),
        };
        let extra_field = extra.as_ref().map(|ty| {
            let fid = ident(&fields.claim("additional_properties", "additional_properties"));
            (fid, ty.clone())
        });
        let undeclared = match &extra_field {
            None => quote!(return ::core::result::Result::Err(#rt::Rejection::undeclared_key(at, k, #rt::Names::Static(DECLARED)))),
            Some(_) => quote!({ extras.push((k.as_ref(), x)); continue }),
        };
        let extra_def = extra_field.iter().map(|(fid, ty)| {
            quote! {
                /// Keys beyond the declared ones, as `additionalProperties` allows.
                #[serde(flatten)]
                pub #fid: ::std::collections::BTreeMap<::std::string::String, #ty>,
            }
        });
        let extra_prep = extra_field.iter().map(|_| quote!(let mut extras: ::std::vec::Vec<(&str, &#rt::Json<'_>)> = ::std::vec::Vec::new();));
        let extra_dupes = extra_field.iter().map(|_| {
            quote! {
                if !extras.is_empty() {
                    #rt::check::distinct_keys(&extras.iter().map(|(k, _)| *k).collect::<::std::vec::Vec<_>>(), at)?;
                }
            }
        });
        let extra_required = o.required_extra.iter().map(|r| {
            quote! {
                if !extras.iter().any(|(k, _)| *k == #r) {
                    return ::core::result::Result::Err(#rt::Rejection::missing_key(at, #r, #rt::Names::Static(DECLARED)));
                }
            }
        });
        let extra_read = extra_field.iter().map(|(fid, ty)| {
            quote! {
                #fid: extras.iter().map(|(k, x)| ::core::result::Result::Ok(((*k).to_owned(), <#ty as #rt::FromJson>::from_json(x, &at.key(k), cx)?))).collect::<::core::result::Result<_, #rt::Rejection>>()?,
            }
        });
        let (minp, maxp) = (opt_u64(o.min_properties), opt_u64(o.max_properties));
        self.last_fields = if extra_field.is_none() { Some(shapes) } else { None };
        self.items.push(quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, #rt::serde::Serialize)]
            #[serde(crate = #serde)]
            pub struct #id {
                #(#field_defs)*
                #(#extra_def)*
            }
        });
        let key_loop = match (n, &extra_field) {
            (0, None) => quote! {
                if let ::core::option::Option::Some((k, _)) = members.first() {
                    #undeclared;
                }
            },
            (0, Some(_)) => quote! {
                for (k, x) in members {
                    #undeclared
                }
            },
            _ => quote! {
                let mut slots: [::core::option::Option<&#rt::Json<'_>>; #n] = [::core::option::Option::None; #n];
                for (k, x) in members {
                    let i = match k.as_ref() {
                        #(#slot_arms)*
                        _ => #undeclared,
                    };
                    if slots[i].replace(x).is_some() {
                        return ::core::result::Result::Err(#rt::Rejection::duplicate_key(at, k));
                    }
                }
            },
        };
        let body = if n > 0 && extra_field.is_none() {
            // The common case, in one shared call: declared keys, duplicates, required keys, member count.
            quote! {
                static KEYS: #rt::check::ObjectKeys = #rt::check::ObjectKeys {
                    declared: &[#(#names),*],
                    index: |k| ::core::option::Option::Some(match k {
                        #(#slot_arms)*
                        _ => return ::core::option::Option::None,
                    }),
                    required: &[#(#required_idx),*],
                    min_properties: #minp,
                    max_properties: #maxp,
                };
                let slots = #rt::check::slots::<#n>(v, at, &KEYS)?;
            }
        } else {
            quote! {
                #[allow(dead_code)]
                const DECLARED: &[&str] = &[#(#names),*];
                let members = #rt::check::object(v, at)?;
                #(#extra_prep)*
                #key_loop
                #(#extra_dupes)*
                #(#required_checks)*
                #(#extra_required)*
                #rt::check::property_count(members.len(), at, #minp, #maxp)?;
            }
        };
        // Every field is converted: an H2 anywhere returns at once, the first H3 waits
        // until no field below holds a key problem (a signature error wherever it sits).
        let build = if fids.is_empty() {
            quote!(::core::result::Result::Ok(Self { #(#extra_read)* }))
        } else {
            quote! {
                let mut first: ::core::option::Option<#rt::Rejection> = ::core::option::Option::None;
                #(#reads)*
                match (#(#fids,)*) {
                    (#(::core::option::Option::Some(#fids),)*) => ::core::result::Result::Ok(Self { #(#fids,)* #(#extra_read)* }),
                    _ => ::core::result::Result::Err(#rt::first_rejection(first, at, v)),
                }
            }
        };
        self.impls.push(quote! {
            impl #rt::FromJson for #id {
                fn from_json(v: &#rt::Json<'_>, at: &#rt::Path<'_>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let _ = &cx;
                    #body
                    #build
                }
            }
        });
        let additional = match &extra {
            None => quote!(#rt::AdditionalSchema::Closed),
            Some(ty) if matches!(o.additional, Additional::Schema(_)) => quote!(#rt::AdditionalSchema::Schema(#rt::subschema::<#ty> as #rt::SchemaFn)),
            Some(_) => quote!(#rt::AdditionalSchema::Open),
        };
        let description = match &s.description {
            Some(d) => quote!(::core::option::Option::Some(#d)),
            None => quote!(::core::option::Option::None),
        };
        let required_extra = &o.required_extra;
        // One shared builder; per property only a pointer to its subschema function.
        self.schema_impls(id, quote! {
            #rt::object_schema(g, &#rt::ObjectSchema {
                properties: &[#(#schema_props),*],
                required: &[#(#required_names,)* #(#required_extra),*],
                additional: #additional,
                min_properties: #minp,
                max_properties: #maxp,
                description: #description,
            })
        });
    }

    /// The sealed `ToolCall` over `tools`: each definition, why it is quarantined (if it is), its variant and argument type.
    fn tool_call(&mut self, tools: &[(&ToolDef, Option<&str>, Ident, Ident)], registry: &str) {
        let rt = self.rt.clone();
        let mut sorted: Vec<&str> = tools.iter().map(|(d, ..)| d.name.as_str()).collect();
        sorted.sort_unstable();
        let variants: Vec<&Ident> = tools.iter().map(|(_, _, v, _)| v).collect();
        let args: Vec<&Ident> = tools.iter().map(|(.., a)| a).collect();
        let names: Vec<&str> = tools.iter().map(|(d, ..)| d.name.as_str()).collect();
        let sorted_idx: Vec<Literal> = names.iter().map(|n| Literal::usize_unsuffixed(lookup(&sorted, n).expect("name is in the sorted list"))).collect();
        let docs = tools.iter().map(|(d, ..)| doc_attr(d.description.clone().or_else(|| Some(format!("The `{}` tool.", d.name)))));
        let infos = tools.iter().map(|(d, quarantined, ..)| tool_info(&rt, d, *quarantined));
        self.items.push(quote! {
            /// The sealed set of calls to this registry's tools: one variant per tool, nothing else.
            /// Build one with [`ToolCall::from_json`]; whatever the registry does not declare is rejected.
            #[derive(Debug, Clone, PartialEq)]
            pub enum ToolCall {
                #(#docs #variants(#args),)*
            }
        });
        self.impls.push(quote! {
            impl #rt::ToolSet for ToolCall {
                const REGISTRY: &'static str = #registry;
                const TOOLS: &'static [#rt::ToolInfo] = &[#(#infos),*];
                const NAMES: &'static [&'static str] = &[#(#sorted),*];
                fn resolve_parts(name: &str, arguments: ::core::option::Option<&#rt::Json<'_>>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let args = arguments.unwrap_or(&#rt::EMPTY_ARGUMENTS);
                    let root = #rt::Path::root();
                    let at = root.key("arguments");
                    let resolved = match #rt::lookup(Self::NAMES, name) {
                        #(::core::option::Option::Some(#sorted_idx) => <#args as #rt::FromJson>::from_json(args, &at, cx).map(Self::#variants),)*
                        _ => return ::core::result::Result::Err(#rt::Rejection::unknown_tool(name, #rt::Names::Static(Self::NAMES))),
                    };
                    resolved.map_err(|r| r.with_tool(name))
                }
                fn name(&self) -> &'static str {
                    match self { #(Self::#variants(_) => #names,)* }
                }
            }
            #[allow(dead_code)]
            impl ToolCall {
                /// The registry's tools, in registry order.
                pub const TOOLS: &'static [#rt::ToolInfo] = <Self as #rt::ToolSet>::TOOLS;
                /// Resolves a call object `{"name": ..., "arguments": {...}}` (strict mode, 1 MiB limit).
                pub fn from_json(bytes: &[u8]) -> ::core::result::Result<Self, #rt::Rejection> {
                    <Self as #rt::ToolSet>::resolve_with(bytes, &#rt::Options::strict()).map(|r| r.call)
                }
                /// Resolves a call object with `options`; the result records any lenient coercion.
                pub fn from_json_with(bytes: &[u8], options: &#rt::Options) -> ::core::result::Result<#rt::Resolution<Self>, #rt::Rejection> {
                    <Self as #rt::ToolSet>::resolve_with(bytes, options)
                }
                /// Resolves a call object already parsed by `serde_json` (its duplicate keys are already lost).
                pub fn from_value(value: &#rt::serde_json::Value) -> ::core::result::Result<Self, #rt::Rejection> {
                    <Self as #rt::ToolSet>::resolve_tree_with(&#rt::Json::from_value(value), &#rt::Options::strict()).map(|r| r.call)
                }
                /// The tool this call names, as declared in the registry.
                pub fn name(&self) -> &'static str {
                    <Self as #rt::ToolSet>::name(self)
                }
                /// Registry metadata of the tool: description, annotations, canonical definition, digest.
                pub fn info(&self) -> &'static #rt::ToolInfo {
                    <Self as #rt::ToolSet>::info(self)
                }
                /// Each tool's arguments schema as derived from the generated types
                /// (`schemars`), in registry order: the closed-world schema to show a model.
                pub fn argument_schemas() -> ::std::vec::Vec<(&'static str, #rt::schemars::Schema)> {
                    ::std::vec![#((#names, #rt::root_schema(<#args as #rt::schemars::JsonSchema>::schema_name, <#args as #rt::schemars::JsonSchema>::json_schema)),)*]
                }
                /// The tools a model may call, as `format`'s request lists them (its `tools`
                /// field), in registry order; quarantined tools are not offered.
                pub fn definitions(format: #rt::WireFormat) -> #rt::serde_json::Value {
                    #rt::definitions::of_set::<Self>(format, |_| true)
                }
                /// [`ToolCall::definitions`] of the tools whose names `visible` keeps (a gate's visible set).
                pub fn definitions_for(format: #rt::WireFormat, visible: impl FnMut(&str) -> bool) -> #rt::serde_json::Value {
                    #rt::definitions::of_set::<Self>(format, visible)
                }
                /// The arguments as JSON (defaults applied).
                pub fn arguments(&self) -> #rt::serde_json::Value {
                    // Generated argument types have string keys and JSON values only: they always serialize.
                    match self { #(Self::#variants(a) => #rt::serde_json::to_value(a).expect("toolseal-build: generated arguments serialize to JSON"),)* }
                }
            }
            impl #rt::serde::Serialize for ToolCall {
                /// The canonical call object `{"name": ..., "arguments": {...}}`.
                fn serialize<S: #rt::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    use #rt::serde::ser::SerializeMap;
                    let mut map = serializer.serialize_map(::core::option::Option::Some(2))?;
                    map.serialize_entry("name", self.name())?;
                    match self { #(Self::#variants(a) => map.serialize_entry("arguments", a)?,)* }
                    map.end()
                }
            }
        });
    }
}

/// A `__contract` trait implemented by exactly `ty`, reporting any other type
/// with the registry's words.
fn check_trait(name: &str, ty: &TokenStream, message: &str, label: &str, note: &str) -> TokenStream {
    let id = ident(name);
    quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #id {
            fn __value(value: #ty) -> Self;
        }
        impl #id for #ty {
            fn __value(value: #ty) -> Self {
                value
            }
        }
    }
}

/// Braces are placeholders in diagnostic messages; JSON names may contain them.
fn escape(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}

/// A generated type as a person writes it: `Option<Vec<String>>`, not `:: core :: option :: Option < …`;
/// `private` is the facade's support module (`::toolseal::__private::`).
fn display_type(ty: &TokenStream, private: &str) -> String {
    let mut s = ty.to_string().replace(' ', "");
    for prefix in ["::core::option::", "::std::vec::", "::std::boxed::", "::std::collections::", "::std::string::", private] {
        s = s.replace(prefix, "");
    }
    s.replace(',', ", ")
}

fn int_ty(repr: IntRepr) -> TokenStream {
    match repr {
        IntRepr::I64 => quote!(i64),
        IntRepr::U64 => quote!(u64),
    }
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

fn string_body(rt: &TokenStream, r: &StringRule) -> TokenStream {
    let length = (r.min_length.is_some() || r.max_length.is_some()).then(|| {
        let (min, max) = (opt_u64(r.min_length), opt_u64(r.max_length));
        quote!(#rt::check::length(s, at, #min, #max)?;)
    });
    let patterns = r.patterns.iter().enumerate().map(|(i, p)| {
        let src = &p.source;
        let re = format_ident!("PATTERN_{}", i);
        quote! {
            static #re: #rt::LazyPattern = #rt::LazyPattern::new(#src);
            #rt::check::lazy_pattern(s, at, &#re)?;
        }
    });
    let format = r.format.iter().map(|f| {
        let variant = format_ident!("{}", format!("{f:?}"));
        quote!(#rt::check::format(s, at, #rt::Format::#variant)?;)
    });
    quote! {
        let s = #rt::check::string(v, at)?;
        #length
        #(#patterns)*
        #(#format)*
        ::core::result::Result::Ok(Self(s.to_owned()))
    }
}

/// The shape of a value type that depends on nothing outside its schema
/// (no `$ref`, no nested generated object): two schemas of one shape — same
/// constraints, same docs — generate the same code, so the second is an alias.
fn shape_key(s: &Schema) -> Option<String> {
    let leaf = |s: &Schema| matches!(s.node, Node::Any | Node::Null | Node::Boolean | Node::Integer { .. } | Node::Number(_) | Node::String(_) | Node::Enum(_) | Node::Const(_));
    let self_contained = match &s.node {
        Node::Array(a) => a.prefix.is_empty() && match &a.items {
            Items::Schema(i) => leaf(i),
            Items::Any | Items::None => true,
        },
        _ => leaf(s),
    };
    self_contained.then(|| format!("{:?}|{:?}|{:?}", s.node, s.title, s.description))
}

/// The variant names of a string enum, in value order.
fn enum_variants(strings: &[&str]) -> Vec<Ident> {
    let mut scope = Scope::default();
    strings.iter().map(|v| ident(&scope.claim(&type_name(v), "Empty"))).collect()
}

/// An expression for the `default` of a property of type `ty` (schema `s`),
/// when it can be written directly; toolseal-build has checked it against `s`.
/// Newtypes are built with `{ 0: .. }`, which also works through an alias.
fn default_expr(s: &Schema, ty: &TokenStream, d: &Json<'static>) -> Option<TokenStream> {
    Some(match (&s.node, d) {
        (Node::Boolean, Json::Bool(b)) => quote!(#b),
        (Node::Integer { bounds, repr }, Json::Number(n)) => {
            let lit = match repr {
                IntRepr::I64 => Literal::i64_suffixed(n.as_i64()?),
                IntRepr::U64 => Literal::u64_suffixed(n.as_u64()?),
            };
            if bounds.is_empty() { quote!(#lit) } else { quote!(#ty { 0: #lit }) }
        }
        (Node::Number(bounds), Json::Number(n)) => {
            let lit = f64_lit(n.as_f64());
            if bounds.is_empty() { quote!(#lit) } else { quote!(#ty { 0: #lit }) }
        }
        (Node::String(r), Json::String(text)) => {
            let text = text.as_ref();
            let plain = r.min_length.is_none() && r.max_length.is_none() && r.patterns.is_empty() && r.format.is_none();
            if plain { quote!(::std::string::String::from(#text)) } else { quote!(#ty { 0: ::std::string::String::from(#text) }) }
        }
        (Node::Enum(values), Json::String(text)) if values.iter().all(|v| v.as_str().is_some()) => {
            let strings: Vec<&str> = values.iter().filter_map(Json::as_str).collect();
            let variant = &enum_variants(&strings)[strings.iter().position(|v| *v == text.as_ref())?];
            quote!(#ty::#variant)
        }
        _ => return None,
    })
}

/// The `JsonSchema` of a [`Node::Spec`] type: its closed-world subschema as written,
/// with the document's `$defs` / `definitions` beside it so that its references resolve.
fn spec_schema(rt: &TokenStream, r: &SpecRef, s: &Schema) -> TokenStream {
    let tree = Json::parse(r.doc.source().as_bytes()).map(Json::into_owned).expect("the specification validator's source is JSON it wrote");
    let mut sub = tree.pointer(&s.pointer).cloned().unwrap_or(Json::Bool(true));
    if let Json::Object(members) = &mut sub {
        for word in ["$defs", "definitions"] {
            if !s.pointer.is_empty() && !members.iter().any(|(k, _)| k == word)
                && let Some(defs) = tree.get(word) {
                    members.push((word.into(), defs.clone()));
                }
        }
    }
    let sub = match sub {
        Json::Bool(b) => Json::Object(if b { Vec::new() } else { vec![("not".into(), Json::Object(Vec::new()))] }),
        other => other,
    };
    let text = sub.to_json_string();
    quote! {
        if let #rt::serde_json::Value::Object(m) = #rt::json_literal(#text) {
            s.extend(m);
        }
    }
}

fn string_schema(rt: &TokenStream, r: &StringRule, s: &Schema) -> TokenStream {
    let min = r.min_length.map(Literal::u64_suffixed).into_iter();
    let max = r.max_length.map(Literal::u64_suffixed).into_iter();
    let format = r.format.iter().map(|f| f.name());
    let desc = s.description.iter();
    let first = r.patterns.first().map(|p| p.source.clone());
    let first = first.iter();
    let more: Vec<String> = r.patterns.iter().skip(1).map(|p| p.source.clone()).collect();
    let more_tokens = if more.is_empty() {
        TokenStream::new()
    } else {
        quote!(s.insert("allOf".into(), #rt::serde_json::Value::Array(::std::vec![#(#rt::serde_json::json!({"pattern": #more})),*]));)
    };
    quote! {
        s.insert("type".into(), "string".into());
        #(s.insert("minLength".into(), #min.into());)*
        #(s.insert("maxLength".into(), #max.into());)*
        #(s.insert("pattern".into(), #first.into());)*
        #more_tokens
        #(s.insert("format".into(), #format.into());)*
        #(s.insert("description".into(), #desc.into());)*
    }
}

fn number_schema(rt: &TokenStream, kind: &str, b: &NumberBounds, s: &Schema) -> TokenStream {
    let entries = [("minimum", b.minimum), ("maximum", b.maximum), ("exclusiveMinimum", b.exclusive_minimum), ("exclusiveMaximum", b.exclusive_maximum), ("multipleOf", b.multiple_of)];
    let sets = entries.iter().filter_map(|(k, v)| {
        v.map(|x| {
            let l = f64_lit(x);
            quote!(s.insert(#k.into(), #rt::number_value(#l));)
        })
    });
    let desc = s.description.iter();
    quote! {
        s.insert("type".into(), #kind.into());
        #(#sets)*
        #(s.insert("description".into(), #desc.into());)*
    }
}

fn counts_schema(min: Option<u64>, max: Option<u64>, unique: bool) -> TokenStream {
    let min = min.map(Literal::u64_suffixed).into_iter();
    let max = max.map(Literal::u64_suffixed).into_iter();
    let unique = unique.then_some(()).into_iter().map(|_| quote!(s.insert("uniqueItems".into(), true.into());));
    quote! {
        #(s.insert("minItems".into(), #min.into());)*
        #(s.insert("maxItems".into(), #max.into());)*
        #(#unique)*
    }
}

fn array_schema(rt: &TokenStream, a: &ArrayRule, item: &TokenStream, s: &Schema) -> TokenStream {
    let counts = counts_schema(a.min_items, a.max_items, a.unique);
    let desc = s.description.iter();
    let items = match a.items {
        Items::Schema(_) => quote!(s.insert("items".into(), #rt::subschema::<#item>(g));),
        _ => TokenStream::new(),
    };
    quote! {
        s.insert("type".into(), "array".into());
        #items
        #counts
        #(s.insert("description".into(), #desc.into());)*
    }
}

fn tool_info(rt: &TokenStream, d: &ToolDef, quarantined: Option<&str>) -> TokenStream {
    let name = &d.name;
    let opt_str = |s: Option<&str>| match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let title = opt_str(d.title.as_deref());
    let description = opt_str(d.description.as_deref());
    let ann = d.annotations.as_ref();
    let hint = |key: &str| match ann.and_then(|a| a.get(key)) {
        Some(Json::Bool(b)) => quote!(::core::option::Option::Some(#b)),
        _ => quote!(::core::option::Option::None),
    };
    let ann_title = opt_str(ann.and_then(|a| a.get("title")).and_then(Json::as_str));
    let (ro, de, id, ow) = (hint("readOnlyHint"), hint("destructiveHint"), hint("idempotentHint"), hint("openWorldHint"));
    let definition = d.canonical();
    let digest = d.digest();
    let quarantined = opt_str(quarantined);
    quote! {
        #rt::ToolInfo {
            name: #name,
            title: #title,
            description: #description,
            annotations: #rt::Annotations { title: #ann_title, read_only_hint: #ro, destructive_hint: #de, idempotent_hint: #id, open_world_hint: #ow },
            definition: #definition,
            digest: #digest,
            quarantined: #quarantined,
        }
    }
}
