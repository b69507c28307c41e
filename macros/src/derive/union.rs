//! An enum of one-field variants: a union (`anyOf`, or `oneOf` with
//! `#[toolseal(one_of)]`), its options tried in variant order.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{DataEnum, DeriveInput, Fields};

use syn::spanned::Spanned;

use super::attrs::{self, Container};
use super::{opt_str, serde_and_schema};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize` (the option's value) and `JsonSchema` of the union `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, data: &DataEnum, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    attrs::only(&c.keys, &["crate", "description", "undescribed", "one_of", "expected"], false, "a union (constraints go on its options' types)", errors);
    let mut variants = Vec::new();
    let mut types = Vec::new();
    for v in &data.variants {
        if let Some(a) = v.attrs.iter().find(|a| a.path().is_ident("toolseal")) {
            errors.at(a.span(), "a union's variant takes no `#[toolseal]` attribute: its option is its type");
        }
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
    let schema = serde_and_schema(ident, quote!(__toolseal::union_schema(g, #word, &[#(__toolseal::subschema::<#types>),*], #description)));
    Some(quote! {
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, cx: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                __toolseal::union(v, at, cx, __toolseal::Keyword::#keyword, #expected, &[#(|v, at, cx| <#types as __toolseal::FromJson>::from_json(v, at, cx).map(Self::#variants)),*])
            }
        }
        impl __toolseal::serde::Serialize for #ident {
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                match self {
                    #(Self::#variants(x) => __toolseal::serde::Serialize::serialize(x, serializer),)*
                }
            }
        }
        #schema
    })
}
