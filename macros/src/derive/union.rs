//! An enum of one-field variants: a union (`anyOf`, or `oneOf` with
//! `#[toolseal(one_of)]`), its options tried in variant order.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{DataEnum, DeriveInput, Fields};

use super::attrs::Container;
use super::{opt_str, serde_and_schema};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize` (the option's value) and `JsonSchema` of the union `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, data: &DataEnum, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    if !c.rule.is_empty() || c.min_properties.is_some() || c.max_properties.is_some() || c.is_const {
        errors.at(ident.span(), "a union takes `one_of` and `expected`: constraints go on its options' types");
    }
    let mut variants = Vec::new();
    let mut types = Vec::new();
    for v in &data.variants {
        match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                variants.push(&v.ident);
                types.push(&f.unnamed[0].ty);
            }
            _ => errors.at(v.ident.span(), "a union's variants each hold one value (`Text(String)`); a string `enum` has unit variants only"),
        }
    }
    let expected =
        c.expected.as_ref().map_or_else(|| format!("one of: {}", types.iter().map(|t| t.to_token_stream().to_string().replace(' ', "")).collect::<Vec<_>>().join(" | ")), syn::LitStr::value);
    let (keyword, word) = if c.one_of { (quote!(OneOf), "oneOf") } else { (quote!(AnyOf), "anyOf") };
    let description = opt_str(c.description.text(&input.attrs).as_deref());
    let schema = serde_and_schema(ident, quote!(rt::union_schema(g, #word, &[#(rt::subschema::<#types>),*], #description)));
    Some(quote! {
        impl rt::FromJson for #ident {
            fn from_json(v: &rt::Json<'_>, at: &rt::Path<'_>, cx: &mut rt::Cx) -> ::core::result::Result<Self, rt::Rejection> {
                rt::union(v, at, cx, rt::Keyword::#keyword, #expected, &[#(|v, at, cx| <#types as rt::FromJson>::from_json(v, at, cx).map(Self::#variants)),*])
            }
        }
        impl rt::serde::Serialize for #ident {
            fn serialize<S: rt::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                match self {
                    #(Self::#variants(x) => rt::serde::Serialize::serialize(x, serializer),)*
                }
            }
        }
        #schema
    })
}
