//! The type definitions a user reads: structs, enums and aliases with their
//! docs, deriving `toolseal::Args` with their keys, defaults and constraints as
//! attributes (the derive, in `toolseal-macros`, writes their impls).

use std::borrow::Cow;

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens as _, quote};
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::UnionMode;

use super::Emit;
use super::model::{DefaultValue, Kind, Literal as Lit, Presence, Table, Ty, TypeEntry};
use crate::docs::{code, doc_attr, doc_lines};
use toolseal_runtime::check::Format;
use toolseal_runtime::generated::description_from_docs;

/// The definition of `x`, its docs first.
pub(super) fn item(e: &Emit, x: &TypeEntry) -> TokenStream {
    // Every generated item carries docs (a crate that denies `missing_docs` builds it):
    // the registry's words, or where it gives none, what the item is.
    let fallback = || Some(format!("`{id}`: the registry declares this without a description.", id = x.id));
    let shown = x.docs.clone().or_else(fallback);
    match &x.kind {
        Kind::Alias(t) => {
            let (id, docs, t) = (&x.id, doc_attr(shown), t.tokens(&e.private));
            quote!(#docs pub type #id = #t;)
        }
        _ => derived(e, x, shown.as_deref()),
    }
}

/// The definition of `x` (not an alias), deriving `toolseal::Args`, its docs `shown`.
fn derived(e: &Emit, x: &TypeEntry, shown: Option<&str>) -> TokenStream {
    let (id, private) = (&x.id, &e.private);
    let args = e.facade.root("Args");
    // The derive reads the description from the docs; where they would not give
    // the schema's exactly, an attribute says it.
    let lines = doc_lines(shown);
    let description = match (description_from_docs(lines.iter().map(String::as_str)), &x.description) {
        (read, given) if read == *given => None,
        (_, Some(d)) => Some(quote!(description = #d)),
        (_, None) => Some(quote!(undescribed)),
    };
    let krate = e.facade.custom().map(|path| quote!(crate = #path));
    let mut container: Vec<TokenStream> = krate.into_iter().chain(description).collect();
    let docs = quote!(#(#[doc = #lines])*);
    // `#[toolseal(a, b = 1)]`: one attribute with every argument, none without any.
    let attribute = |args: &[TokenStream]| (!args.is_empty()).then(|| quote!(#[toolseal(#(#args),*)]));
    match &x.kind {
        Kind::Value(table) => {
            container.extend(constraints(table));
            let container = attribute(&container);
            let inner = table.inner().tokens(private);
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #args)]
                #container
                pub struct #id(#inner);
            }
        }
        Kind::StringEnum { values, variants, is_const, .. } => {
            if *is_const {
                container.push(quote!(const));
            }
            let container = attribute(&container);
            let variants = values.iter().zip(variants).map(|(v, variant)| {
                let doc = format!(" {}", code(&Json::String(Cow::Borrowed(v)).to_json_string()));
                let rename = (variant != v).then(|| quote!(#[toolseal(rename = #v)]));
                quote!(#[doc = #doc] #rename #variant)
            });
            quote! {
                #docs
                #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #args)]
                #container
                pub enum #id {
                    #(#variants,)*
                }
            }
        }
        Kind::Union { mode, variants, expected } => {
            if *mode == UnionMode::OneOf {
                container.push(quote!(one_of));
            }
            container.push(quote!(expected = #expected));
            let container = attribute(&container);
            let (names, tys): (Vec<_>, Vec<_>) = variants.iter().map(|(v, t)| (v, t.tokens(private))).unzip();
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #args)]
                #container
                pub enum #id {
                    #(#[doc = " One branch of the union (`anyOf`/`oneOf`/`type` list)."] #names(#tys),)*
                }
            }
        }
        Kind::Tuple { prefix, rest, typed, min_items, max_items, unique } => {
            container.push(quote!(tuple));
            container.extend(constraints(&Table::Array { item: Ty::Value, typed: *typed || rest.is_none(), min_items: *min_items, max_items: *max_items, unique: *unique }));
            let container = attribute(&container);
            let prefix = prefix.iter().map(|t| t.tokens(private));
            let rest = rest.iter().map(|t| {
                let t = t.tokens(private);
                quote!(#[toolseal(rest)] pub ::std::vec::Vec<#t>)
            });
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #args)]
                #container
                pub struct #id(#(pub ::core::option::Option<#prefix>,)* #(#rest)*);
            }
        }
        Kind::Object(o) => {
            container.extend(o.min_properties.map(Literal::u64_unsuffixed).map(|n| quote!(min_properties = #n)));
            container.extend(o.max_properties.map(Literal::u64_unsuffixed).map(|n| quote!(max_properties = #n)));
            let container = attribute(&container);
            let fields = o.fields.iter().map(|f| {
                let docs = doc_attr(f.docs.clone().or_else(|| Some(format!("The `{}` key.", f.key))));
                let (fid, key, ty) = (&f.rust, &f.key, f.field_ty().tokens(private));
                let mut attrs: Vec<TokenStream> = Vec::new();
                if fid.to_string().trim_start_matches("r#") != key {
                    attrs.push(quote!(rename = #key));
                }
                match &f.presence {
                    Presence::Required if matches!(f.ty, Ty::Option(_)) => attrs.push(quote!(required)),
                    Presence::Default(d) => {
                        let d = default_expr(d, &f.ty, private);
                        attrs.push(quote!(default = #d));
                    }
                    _ => {}
                }
                let attrs = attribute(&attrs);
                quote!(#docs #attrs pub #fid: #ty,)
            });
            let extra = o.extra.iter().map(|x| {
                let (fid, ty) = (&x.rust, x.ty.tokens(private));
                let mut attrs = vec![quote!(flatten)];
                attrs.extend(o.required_extra.iter().map(|r| quote!(require = #r)));
                if !x.declared {
                    attrs.push(quote!(any));
                }
                quote! {
                    /// Keys beyond the declared ones, as `additionalProperties` allows.
                    #[toolseal(#(#attrs),*)]
                    pub #fid: ::std::collections::BTreeMap<::std::string::String, #ty>,
                }
            });
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #args)]
                #container
                pub struct #id {
                    #(#fields)*
                    #(#extra)*
                }
            }
        }
        Kind::Alias(_) => TokenStream::new(),
    }
}

/// A table's constraints as `#[toolseal(..)]` arguments.
fn constraints(table: &Table) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let count = |name: &str, n: Option<u64>| {
        let name = quote::format_ident!("{name}");
        n.map(|n| {
            let n = Literal::u64_unsuffixed(n);
            quote!(#name = #n)
        })
    };
    match table {
        Table::String { min_length, max_length, patterns, format } => {
            out.extend(count("min_length", *min_length));
            out.extend(count("max_length", *max_length));
            out.extend(patterns.iter().map(|p| quote!(pattern = #p)));
            if let Some(name) = format.and_then(|f| Format::ALL.iter().find(|(_, g)| *g == f)).map(|(n, _)| *n) {
                out.push(quote!(format = #name));
            }
        }
        Table::Number { bounds, .. } => {
            let pairs = [
                ("minimum", bounds.minimum),
                ("maximum", bounds.maximum),
                ("exclusive_minimum", bounds.exclusive_minimum),
                ("exclusive_maximum", bounds.exclusive_maximum),
                ("multiple_of", bounds.multiple_of),
            ];
            for (name, x) in pairs {
                if let Some(x) = x {
                    let (name, x) = (quote::format_ident!("{name}"), Literal::f64_unsuffixed(x.0));
                    out.push(quote!(#name = #x));
                }
            }
        }
        Table::Array { typed, min_items, max_items, unique, .. } => {
            out.extend(count("min_items", *min_items));
            out.extend(count("max_items", *max_items));
            if *unique {
                out.push(quote!(unique_items));
            }
            if !typed {
                out.push(quote!(untyped));
            }
        }
        Table::ValueSet { is_const, texts, .. } => {
            if *is_const {
                out.push(quote!(const));
            }
            out.push(quote!(values = [#(#texts),*]));
        }
        Table::Spec { spec, pointer, schema } => out.push(quote!(spec = #spec, pointer = #pointer, schema = #schema)),
        Table::Never => out.push(quote!(never)),
        Table::Quarantined { tool, problem } => out.push(quote!(quarantined = #problem, tool = #tool)),
    }
    out
}

/// A property's default, as an expression of the field's type `ty`.
fn default_expr(d: &DefaultValue, ty: &Ty, private: &TokenStream) -> TokenStream {
    let ty = ty.tokens(private);
    match d {
        DefaultValue::Literal { value, wrapped } => {
            let lit = match value {
                Lit::Bool(b) => quote!(#b),
                Lit::I64(x) => Literal::i64_suffixed(*x).into_token_stream(),
                Lit::U64(x) => Literal::u64_suffixed(*x).into_token_stream(),
                Lit::F64(x) => Literal::f64_unsuffixed(x.0).into_token_stream(),
                Lit::String(s) => quote!(::std::string::String::from(#s)),
            };
            if *wrapped { quote!(#ty { 0: #lit }) } else { lit }
        }
        DefaultValue::Variant(v) => quote!(#ty::#v),
        DefaultValue::Json(text) => quote! {{
            static DEFAULT: ::std::sync::OnceLock<#ty> = ::std::sync::OnceLock::new();
            #private::default_value(&DEFAULT, #text)
        }},
    }
}
