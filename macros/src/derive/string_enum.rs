//! An enum of unit variants: a string `enum` (or, with `#[toolseal(const)]`, a `const`).

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::{DataEnum, DeriveInput, Fields};
use toolseal_runtime::json::Json;
use toolseal_runtime::schema::describe_values;

use super::attrs::{self, Container};
use super::{opt_str, serde_and_schema};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize`, `JsonSchema` and `as_str` of the string enum `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, data: &DataEnum, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    attrs::only(&c.keys, &["crate", "description", "undescribed", "const"], false, "an enum of strings (its values are its variants)", errors);
    let mut variants = Vec::new();
    let mut values = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, Fields::Unit) {
            errors.at(v.ident.span(), "`toolseal::Args` derives for an enum of unit variants (a string `enum`); one variant per value");
            continue;
        }
        let value = attrs::variant(&v.attrs, errors).rename.map_or_else(|| v.ident.unraw().to_string(), |r| r.value());
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
    let schema = serde_and_schema(ident, quote!(__toolseal::Describe::describe(&__RULE, g)));
    Some(quote! {
        static __RULE: __toolseal::StringEnum = __toolseal::StringEnum {
            values: &[#(#values),*],
            keyword: __toolseal::Keyword::#keyword,
            expected: #expected,
            description: #description,
        };
        fn __variant(i: usize) -> ::core::option::Option<#ident> {
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
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, _: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                let i = __RULE.index(v, at)?;
                __variant(i).ok_or_else(|| __toolseal::Rejection::violation(at, __RULE.keyword, __RULE.expected, v.kind()))
            }
            fn read(r: &mut __toolseal::Reader<'_>) -> ::core::option::Option<Self> {
                __RULE.read(r).and_then(__variant)
            }
        }
        impl __toolseal::serde::Serialize for #ident {
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                let i: u32 = match self {
                    #(#ident::#variants => #index32,)*
                };
                serializer.serialize_unit_variant(::core::stringify!(#ident), i, self.as_str())
            }
        }
        #schema
    })
}
