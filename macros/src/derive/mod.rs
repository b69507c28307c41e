//! `#[derive(toolseal::Args)]`: a Rust type resolved in the closed world, with the
//! same rejections and feedback as generated code (generated code is this derive).
//!
//! A struct with named fields is a closed object (each field a declared key; an
//! `Option` field an optional one), a newtype a value checked by the runtime's
//! table for its inner type (`String`, `i64`/`u64`/`f64`, `Vec<T>`) with the
//! constraints its `#[toolseal(..)]` names, an enum of unit variants a string
//! `enum`. Each gets `FromJson` (the tree conversion and the fused reader),
//! `Deserialize` through it, `Serialize` and `schemars::JsonSchema`, all in one
//! `const _: () = { .. };`. Parse → check → expand as in `#[tool]`: errors are
//! gathered and spanned on the user's tokens.

mod attrs;
mod object;
mod string_enum;
mod tool_set;
mod tuple;
mod union;
mod value;

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, GenericArgument, PathArguments, Type};

use crate::attr::Errors;
use attrs::{Rule, RuleKind};
pub(crate) use tool_set::expand as tool_set;

/// Expands `#[derive(toolseal::Args)]` on `input`.
pub(crate) fn args(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    if !input.generics.params.is_empty() {
        errors.at(input.generics.span(), "`toolseal::Args` derives for types without generic parameters");
    }
    let container = attrs::container(&input.attrs, &mut errors);
    let body = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(fields) => object::expand(&input, &container, fields, &mut errors),
            Fields::Unnamed(fields) if container.tuple => tuple::expand(&input, &container, fields, &mut errors),
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => value::expand(&input, &container, &fields.unnamed[0], &mut errors),
            _ => {
                errors.at(input.ident.span(), "`toolseal::Args` derives for a struct with named fields (an object), a newtype (a value), a tuple struct marked `#[toolseal(tuple)]` (`prefixItems`), an enum of unit variants (a string `enum`) or of one-value variants (a union)");
                None
            }
        },
        Data::Enum(e) if e.variants.iter().any(|v| !matches!(v.fields, Fields::Unit)) => union::expand(&input, &container, e, &mut errors),
        Data::Enum(e) => string_enum::expand(&input, &container, e, &mut errors),
        Data::Union(_) => {
            errors.at(input.ident.span(), "`toolseal::Args` does not derive for a `union`");
            None
        }
    };
    if body.is_none() && errors.is_empty() {
        errors.at(input.ident.span(), "`toolseal::Args` cannot derive for this type");
    }
    match body {
        Some(body) if errors.is_empty() => {
            let krate = container.krate.map_or_else(|| quote!(::toolseal), |p| p.to_token_stream());
            quote! {
                #[allow(unused_imports, clippy::all)]
                const _: () = {
                    use #krate::__private as __toolseal;
                    #body
                };
            }
        }
        _ => errors.to_tokens(),
    }
}

/// The runtime table that checks a value of some type.
struct Table {
    /// Which constraints it takes.
    kind: RuleKind,
    /// Its type (`__toolseal::NumberType<f64>`).
    ty: TokenStream,
}

/// The table that checks a value of type `ty`, when one applies.
fn table_of(ty: &Type) -> Option<Table> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let (kind, ty) = match (name.as_str(), &last.arguments) {
        ("String", PathArguments::None) => (RuleKind::String, quote!(__toolseal::StringType)),
        ("i64" | "u64" | "f64", PathArguments::None) => (RuleKind::Number, quote!(__toolseal::NumberType<#ty>)),
        ("Vec", PathArguments::AngleBracketed(args)) => match args.args.first() {
            Some(GenericArgument::Type(item)) if args.args.len() == 1 => (RuleKind::Array, quote!(__toolseal::ArrayType<#item>)),
            _ => return None,
        },
        _ => return None,
    };
    Some(Table { kind, ty })
}

/// The last type argument of `ty` when it is `name<.., T>` with `count` arguments
/// (`T` of `Option<T>`, `V` of `BTreeMap<String, V>`).
fn type_argument<'a>(ty: &'a Type, names: &[&str], count: usize) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    match &last.arguments {
        PathArguments::AngleBracketed(args) if names.iter().any(|n| last.ident == n) && args.args.len() == count => match args.args.last() {
            Some(GenericArgument::Type(inner)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    type_argument(ty, &["Option"], 1)
}

/// The `static`s of a table `name` for `rule`: its patterns, then the table built
/// from its constraints and `description`.
fn table_static(name: &syn::Ident, table: &Table, rule: &Rule, description: Option<&str>) -> TokenStream {
    let setters = &rule.setters;
    let (patterns, use_patterns) = if rule.patterns.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else {
        let n = rule.patterns.len();
        let sources = &rule.patterns;
        let patterns = quote::format_ident!("{name}_PATTERNS");
        (quote!(static #patterns: [__toolseal::LazyPattern; #n] = [#(__toolseal::LazyPattern::new(#sources)),*];), quote!(.patterns(&#patterns)))
    };
    let description = description.map(|d| quote!(.description(#d)));
    let builder = match table.kind {
        RuleKind::String => quote!(__toolseal::StringType::new()),
        RuleKind::Number => quote!(__toolseal::NumberType::new()),
        RuleKind::Array => quote!(__toolseal::ArrayType::new()),
    };
    let ty = &table.ty;
    quote! {
        #patterns
        static #name: #ty = #builder #(#setters)* #use_patterns #description;
    }
}

/// `Option<&'static str>` as code.
fn opt_str(x: Option<&str>) -> TokenStream {
    match x {
        Some(x) => quote!(::core::option::Option::Some(#x)),
        None => quote!(::core::option::Option::None),
    }
}

/// `Option<u64>` as code.
fn opt_u64(x: Option<u64>) -> TokenStream {
    match x {
        Some(x) => {
            let x = Literal::u64_unsuffixed(x);
            quote!(::core::option::Option::Some(#x))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// `Deserialize` through `FromJson`, and `JsonSchema` named after `ident` with `schema` as its body (`g` the generator).
fn serde_and_schema(ident: &syn::Ident, schema: TokenStream) -> TokenStream {
    quote! {
        impl<'de> __toolseal::serde::Deserialize<'de> for #ident {
            fn deserialize<D: __toolseal::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                __toolseal::deserialize_via(deserializer)
            }
        }
        impl __toolseal::schemars::JsonSchema for #ident {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::stringify!(#ident))
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", ::core::stringify!(#ident)))
            }
            fn json_schema(g: &mut __toolseal::schemars::SchemaGenerator) -> __toolseal::schemars::Schema {
                #schema
            }
        }
    }
}
