//! A newtype: a value checked by the runtime's table for its inner type, or over
//! `serde_json::Value` by a table its attributes name (`values`, `never`,
//! `quarantined`, `spec`).

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::{DeriveInput, Type};

use syn::spanned::Spanned;
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::describe_values;

use super::attrs::{Container, ValueTable};
use super::{serde_and_schema, table_of, table_static};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize`, `JsonSchema`, `TryFrom<Inner>`, `get` and `into_inner` of the newtype `input` over `inner`.
pub(super) fn expand(input: &DeriveInput, c: &Container, inner: &Type, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    let shown = inner.to_token_stream().to_string().replace(' ', "");
    if let Some(table) = &c.value_table {
        if !c.rule.is_empty() {
            errors.at(ident.span(), "a newtype with `values`, `never`, `quarantined` or `spec` takes no other constraint");
        }
        let description = c.description.text(&input.attrs);
        let rule = value_table(table, c.is_const, description.as_deref(), errors)?;
        return Some(newtype(ident, inner, &rule));
    }
    let Some(table) = table_of(inner) else {
        c.rule.check_kind(None, &shown, errors);
        errors.at(ident.span(), format!("a `toolseal::Args` newtype holds a `String`, `i64`, `u64`, `f64` or `Vec<T>`, not `{shown}`"));
        return None;
    };
    c.rule.check_kind(Some(table.kind), &shown, errors);
    for (key, given) in [("min_properties", c.min_properties.is_some()), ("max_properties", c.max_properties.is_some()), ("const", c.is_const)] {
        if given {
            errors.at(ident.span(), format!("`{key}` is for a struct with named fields or an enum, not a newtype"));
        }
    }
    let description = c.description.text(&input.attrs);
    let rule = table_static(&format_ident!("RULE"), &table, &c.rule, description.as_deref());
    Some(newtype(ident, inner, &rule))
}

/// The `static RULE` of a table no constraint says.
fn value_table(table: &ValueTable, is_const: bool, description: Option<&str>, errors: &mut Errors) -> Option<TokenStream> {
    let rule = match table {
        ValueTable::Values(texts) => {
            let values: Vec<Json<'_>> = texts.iter().filter_map(|t| Json::parse(t.value().as_bytes()).ok().map(Json::into_owned)).collect();
            let expected = describe_values(&values, is_const);
            let keyword = if is_const { quote!(Const) } else { quote!(Enum) };
            let description = description.map(|d| quote!(.description(#d)));
            quote!(static RULE: rt::ValueSet = rt::ValueSet::new(rt::Keyword::#keyword, &[#(#texts),*], #expected) #description;)
        }
        ValueTable::Never => quote!(
            static RULE: rt::Refusal = rt::Refusal::Never;
        ),
        ValueTable::Quarantined { problem, tool: Some(tool) } => quote!(static RULE: rt::Refusal = rt::Refusal::Quarantined { tool: #tool, problem: #problem };),
        ValueTable::Spec { spec, pointer: Some(pointer), schema: Some(schema) } => quote!(static RULE: rt::SpecType = rt::SpecType { spec: &#spec, pointer: #pointer, schema: #schema };),
        ValueTable::Quarantined { problem, .. } => {
            errors.at(problem.span(), "`quarantined` names the tool too: `quarantined = \"…\", tool = \"name\"`");
            return None;
        }
        ValueTable::Spec { spec, .. } => {
            errors.at(spec.span(), "`spec` takes `pointer = \"…\"` and `schema = \"…\"` too");
            return None;
        }
    };
    Some(rule)
}

/// A newtype over `inner` checked by its `static RULE`.
fn newtype(ident: &syn::Ident, inner: &Type, rule: &TokenStream) -> TokenStream {
    let schema = serde_and_schema(ident, quote!(rt::Describe::describe(&RULE, g)));
    quote! {
        #rule
        #[allow(dead_code)]
        impl #ident {
            /// The validated value.
            pub fn get(&self) -> &#inner {
                &self.0
            }
            /// The validated value, by value.
            pub fn into_inner(self) -> #inner {
                self.0
            }
        }
        impl ::core::convert::TryFrom<#inner> for #ident {
            type Error = rt::Rejection;
            fn try_from(value: #inner) -> ::core::result::Result<Self, rt::Rejection> {
                rt::try_from_serialize(&value)
            }
        }
        impl rt::FromJson for #ident {
            fn from_json(v: &rt::Json<'_>, at: &rt::Path<'_>, cx: &mut rt::Cx) -> ::core::result::Result<Self, rt::Rejection> {
                rt::ValueRule::check(&RULE, v, at, cx).map(#ident)
            }
            fn read(r: &mut rt::Reader<'_>) -> ::core::option::Option<Self> {
                rt::ValueRule::read(&RULE, r).map(#ident)
            }
        }
        impl rt::serde::Serialize for #ident {
            fn serialize<S: rt::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                rt::serde::Serialize::serialize(&self.0, serializer)
            }
        }
        #schema
    }
}
