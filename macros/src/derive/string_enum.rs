//! An enum of unit variants: a string `enum` (or, with `#[toolseal(const)]`, a `const`).

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::{DataEnum, DeriveInput, Fields};
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::describe_values;

use super::attrs::{self, Container};
use super::{opt_str, serde_and_schema};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize`, `JsonSchema` and `as_str` of the string enum `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, data: &DataEnum, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    if !c.rule.is_empty() || c.min_properties.is_some() || c.max_properties.is_some() {
        errors.at(ident.span(), "an enum of strings takes no constraints: its values are its variants");
    }
    let mut variants = Vec::new();
    let mut values = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, Fields::Unit) {
            errors.at(v.ident.span(), "`toolseal::Args` derives for an enum of unit variants (a string `enum`); one variant per value");
            continue;
        }
        let value = attrs::variant(&v.attrs, errors).rename.map_or_else(|| v.ident.to_string(), |r| r.value());
        if values.contains(&value) {
            errors.at(v.ident.span(), format!("the value {value:?} is given twice"));
        }
        variants.push(&v.ident);
        values.push(value);
    }
    if values.is_empty() {
        errors.at(ident.span(), "an enum of strings needs at least one variant");
        return None;
    }
    if c.is_const && values.len() != 1 {
        errors.at(ident.span(), "a `const` has exactly one variant");
    }
    let expected = describe_values(&values.iter().map(|v| Json::String(v.as_str().into())).collect::<Vec<_>>(), c.is_const);
    let keyword = if c.is_const { quote!(Const) } else { quote!(Enum) };
    let description = opt_str(c.description.text(&input.attrs).as_deref());
    let index: Vec<_> = (0..values.len()).map(Literal::usize_unsuffixed).collect();
    let index32 = (0..values.len()).map(|i| Literal::u32_unsuffixed(i as u32));
    let schema = serde_and_schema(ident, quote!(rt::Describe::describe(&RULE, g)));
    Some(quote! {
        static RULE: rt::StringEnum = rt::StringEnum {
            values: &[#(#values),*],
            keyword: rt::Keyword::#keyword,
            expected: #expected,
            description: #description,
        };
        fn variant(i: usize) -> ::core::option::Option<#ident> {
            match i {
                #(#index => ::core::option::Option::Some(#ident::#variants),)*
                _ => ::core::option::Option::None,
            }
        }
        #[allow(dead_code)]
        impl #ident {
            /// The value as written in the registry.
            pub fn as_str(&self) -> &'static str {
                match self {
                    #(#ident::#variants => #values,)*
                }
            }
        }
        impl rt::FromJson for #ident {
            fn from_json(v: &rt::Json<'_>, at: &rt::Path<'_>, _: &mut rt::Cx) -> ::core::result::Result<Self, rt::Rejection> {
                let i = RULE.index(v, at)?;
                variant(i).ok_or_else(|| rt::Rejection::violation(at, RULE.keyword, RULE.expected, v.kind()))
            }
            fn read(r: &mut rt::Reader<'_>) -> ::core::option::Option<Self> {
                RULE.read(r).and_then(variant)
            }
        }
        impl rt::serde::Serialize for #ident {
            fn serialize<S: rt::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                let i: u32 = match self {
                    #(#ident::#variants => #index32,)*
                };
                serializer.serialize_unit_variant(::core::stringify!(#ident), i, self.as_str())
            }
        }
        #schema
    })
}
