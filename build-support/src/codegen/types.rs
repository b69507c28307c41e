//! The type definitions a user reads: structs, enums and aliases with their
//! docs, and `Serialize` back to the JSON they were read from.

use std::borrow::Cow;

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use toolseal_runtime::json::Json;

use super::model::{Kind, Presence, TypeEntry};
use super::{Emit, rt};
use crate::docs::{code, doc_attr};

/// The definition of `x`, its docs first.
pub(super) fn item(e: &Emit, x: &TypeEntry) -> TokenStream {
    // Every generated item carries docs (a crate that denies `missing_docs` builds it):
    // the registry's words, or where it gives none, what the item is.
    let fallback = || Some(format!("`{id}`: the registry declares this without a description.", id = x.id));
    let (id, docs, private, serde) = (&x.id, doc_attr(x.docs.clone().or_else(fallback)), &e.private, &e.serde);
    match &x.kind {
        Kind::Alias(t) => {
            let t = t.tokens(private);
            quote!(#docs pub type #id = #t;)
        }
        Kind::Value(table) => {
            let inner = table.inner().tokens(private);
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #private::serde::Serialize)]
                #[serde(crate = #serde, transparent)]
                pub struct #id(#inner);
            }
        }
        Kind::StringEnum { values, variants, .. } => {
            let variant_docs = values.iter().map(|v| format!(" {}", code(&Json::String(Cow::Borrowed(v)).to_json_string())));
            quote! {
                #docs
                #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
                #[derive(#private::serde::Serialize)]
                #[serde(crate = #serde)]
                pub enum #id {
                    #(#[doc = #variant_docs] #[serde(rename = #values)] #variants,)*
                }
            }
        }
        Kind::Union { variants, .. } => {
            let (names, tys): (Vec<_>, Vec<_>) = variants.iter().map(|(v, t)| (v, t.tokens(private))).unzip();
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #private::serde::Serialize)]
                #[serde(crate = #serde, untagged)]
                pub enum #id {
                    #(#[doc = " One branch of the union (`anyOf`/`oneOf`/`type` list)."] #names(#tys),)*
                }
            }
        }
        Kind::Tuple { prefix, rest, .. } => {
            let prefix = prefix.iter().map(|t| t.tokens(private));
            let rest = rest.iter().map(|t| {
                let t = t.tokens(private);
                quote!(pub ::std::vec::Vec<#t>)
            });
            let gap = (!docs.is_empty()).then(|| quote!(#[doc = ""]));
            quote! {
                #docs
                #gap
                /// Elements of the prefix are optional: an array may be shorter than its prefix.
                #[derive(Debug, Clone, PartialEq)]
                pub struct #id(#(pub ::core::option::Option<#prefix>,)* #(#rest)*);
            }
        }
        Kind::Object(o) => {
            let fields = o.fields.iter().map(|f| {
                let docs = doc_attr(f.docs.clone().or_else(|| Some(format!("The `{}` key.", f.key))));
                let (fid, key, ty) = (&f.rust, &f.key, f.field_ty().tokens(private));
                let rename = (fid.to_string().trim_start_matches("r#") != key).then(|| quote!(#[serde(rename = #key)]));
                let skip = matches!(f.presence, Presence::Optional).then(|| quote!(#[serde(skip_serializing_if = "::core::option::Option::is_none")]));
                quote!(#docs #rename #skip pub #fid: #ty,)
            });
            let extra = o.extra.iter().map(|x| {
                let (fid, ty) = (&x.rust, x.ty.tokens(private));
                quote! {
                    /// Keys beyond the declared ones, as `additionalProperties` allows.
                    #[serde(flatten)]
                    pub #fid: ::std::collections::BTreeMap<::std::string::String, #ty>,
                }
            });
            quote! {
                #docs
                #[derive(Debug, Clone, PartialEq, #private::serde::Serialize)]
                #[serde(crate = #serde)]
                pub struct #id {
                    #(#fields)*
                    #(#extra)*
                }
            }
        }
    }
}

/// `Serialize` for a type that cannot derive it (a tuple writes its present elements).
pub(super) fn serialize_impl(x: &TypeEntry) -> TokenStream {
    let Kind::Tuple { prefix, rest, .. } = &x.kind else {
        return TokenStream::new();
    };
    let (id, rt) = (&x.id, rt());
    let idx = (0..prefix.len()).map(Literal::usize_unsuffixed);
    let rest = rest.iter().map(|_| {
        let last = Literal::usize_unsuffixed(prefix.len());
        quote!(for x in &self.#last { seq.serialize_element(x)?; })
    });
    quote! {
        impl #rt::serde::Serialize for #id {
            fn serialize<S: #rt::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use #rt::serde::ser::SerializeSeq;
                let mut seq = serializer.serialize_seq(None)?;
                #(if let Some(x) = &self.#idx { seq.serialize_element(x)?; })*
                #(#rest)*
                seq.end()
            }
        }
    }
}
