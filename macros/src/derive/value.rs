//! A newtype: a value checked by the runtime's table for its inner type, or over
//! `serde_json::Value` by a table its attributes name (`values`, `never`,
//! `quarantined`, `spec`).

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::{DeriveInput, Type};

use syn::spanned::Spanned;
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::describe_values;

use super::attrs::{self, Container, ValueTable};
use super::{serde_and_schema, table_of, table_static};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize`, `JsonSchema`, `TryFrom<Inner>`, `get` and `into_inner` of the newtype `input` over `inner`.
pub(super) fn expand(input: &DeriveInput, c: &Container, field: &syn::Field, errors: &mut Errors) -> Option<TokenStream> {
    let (ident, inner) = (&input.ident, &field.ty);
    let shown = inner.to_token_stream().to_string().replace(' ', "");
    if let Some(a) = field.attrs.iter().find(|a| a.path().is_ident("toolseal")) {
        errors.at(a.span(), "a newtype's constraints go on the type: `#[toolseal(max_length = 3)] struct Name(String);`");
    }
    if let Some(table) = &c.value_table {
        let on = "a newtype with `values`, `never`, `quarantined` or `spec` (it takes `description`, `undescribed`, `crate` and, with `values`, `const`)";
        attrs::only(&c.keys, &["crate", "description", "undescribed", "values", "const", "never", "quarantined", "tool", "spec", "pointer", "schema"], false, on, errors);
        let is_value = matches!(inner, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Value"));
        if !is_value {
            errors.at(inner.span(), format!("a newtype with `values`, `never`, `quarantined` or `spec` holds a `serde_json::Value`, not `{shown}`"));
            return None;
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
    attrs::only(&c.keys, &["crate", "description", "undescribed"], true, "a newtype over a string, number or array", errors);
    let description = c.description.text(&input.attrs);
    let rule = table_static(&format_ident!("__RULE"), &table, &c.rule, description.as_deref());
    Some(newtype(ident, inner, &rule))
}

/// The `static __RULE` of a table no constraint says.
fn value_table(table: &ValueTable, is_const: bool, description: Option<&str>, errors: &mut Errors) -> Option<TokenStream> {
    if is_const && !matches!(table, ValueTable::Values(_)) {
        errors.at(proc_macro2::Span::call_site(), "`const` goes with `values`");
        return None;
    }
    let rule = match table {
        ValueTable::Values(texts) if texts.is_empty() || (is_const && texts.len() != 1) => {
            errors.at(proc_macro2::Span::call_site(), if is_const { "a `const` has exactly one of `values`" } else { "`values` lists at least one" });
            return None;
        }
        ValueTable::Values(texts) => {
            let values: Vec<Json<'_>> = texts.iter().filter_map(|t| Json::parse(t.value().as_bytes()).ok().map(Json::into_owned)).collect();
            let expected = describe_values(&values, is_const);
            let keyword = if is_const { quote!(Const) } else { quote!(Enum) };
            let description = description.map(|d| quote!(.description(#d)));
            quote!(static __RULE: __toolseal::ValueSet = __toolseal::ValueSet::new(__toolseal::Keyword::#keyword, &[#(#texts),*], #expected) #description;)
        }
        ValueTable::Never => quote!(
            static __RULE: __toolseal::Refusal = __toolseal::Refusal::Never;
        ),
        ValueTable::Quarantined { problem, tool: Some(tool) } => quote!(static __RULE: __toolseal::Refusal = __toolseal::Refusal::Quarantined { tool: #tool, problem: #problem };),
        ValueTable::Spec { spec, pointer: Some(pointer), schema: Some(schema) } => {
            quote!(static __RULE: __toolseal::SpecType = __toolseal::SpecType { spec: &#spec, pointer: #pointer, schema: #schema };)
        }
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

/// A newtype over `inner` checked by its `static __RULE`.
fn newtype(ident: &syn::Ident, inner: &Type, rule: &TokenStream) -> TokenStream {
    let schema = serde_and_schema(ident, quote!(__toolseal::Describe::describe(&__RULE, g)));
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
            type Error = __toolseal::Rejection;
            fn try_from(value: #inner) -> ::core::result::Result<Self, __toolseal::Rejection> {
                __toolseal::try_from_serialize(&value)
            }
        }
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, cx: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                __toolseal::ValueRule::check(&__RULE, v, at, cx).map(#ident)
            }
            fn read(r: &mut __toolseal::Reader<'_>) -> ::core::option::Option<Self> {
                __toolseal::ValueRule::read(&__RULE, r).map(#ident)
            }
        }
        impl __toolseal::serde::Serialize for #ident {
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                __toolseal::serde::Serialize::serialize(&self.0, serializer)
            }
        }
        #schema
    }
}
