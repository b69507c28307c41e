//! A tuple struct marked `#[toolseal(tuple)]`: an array's `prefixItems`, each
//! element an `Option` (an array may be shorter than its prefix), then the
//! elements after them in a last field marked `#[toolseal(rest)]`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, FieldsUnnamed};

use super::attrs::{self, Container};
use super::{opt_str, opt_u64, option_inner, serde_and_schema};
use crate::attr::Errors;

/// `FromJson`, `Deserialize`, `Serialize` (the elements present) and `JsonSchema` of the tuple `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, fields: &FieldsUnnamed, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    let mut prefix = Vec::new();
    let mut rest = None;
    let last = fields.unnamed.len().saturating_sub(1);
    attrs::only(&c.keys, &["crate", "description", "undescribed", "tuple", "min_items", "max_items", "unique_items", "untyped"], false, "a tuple", errors);
    for (i, f) in fields.unnamed.iter().enumerate() {
        let a = attrs::field(&f.attrs, errors);
        attrs::only(&a.keys, &["rest"], false, "a tuple's element (its last, a `Vec`, may be `rest`)", errors);
        if a.rest {
            match super::type_argument(&f.ty, &["Vec"], 1) {
                Some(item) if i == last => rest = Some(item),
                _ => errors.at(f.ty.span(), "`rest` is the last field, a `Vec` of the elements after the prefix"),
            }
        } else {
            match option_inner(&f.ty) {
                Some(inner) => prefix.push(inner),
                None => errors.at(f.ty.span(), "a tuple's prefix elements are `Option`s: an array may be shorter than its prefix"),
            }
        }
    }
    let rule = &c.rule;
    if !errors.is_empty() {
        return None;
    }
    let (min, max, unique) = (opt_u64(rule.count("min_items")), opt_u64(rule.count("max_items")), rule.has("unique_items"));
    let n = prefix.len();
    let idx: Vec<Literal> = (0..n).map(Literal::usize_unsuffixed).collect();
    let read_rest = rest.iter().map(|_| quote!(__toolseal::elements_from(items, #n, at, cx)?));
    let items_schema = match rest {
        Some(_) if rule.has("untyped") => quote!(__toolseal::AdditionalSchema::Open),
        Some(t) => quote!(__toolseal::AdditionalSchema::Schema(__toolseal::subschema::<#t>)),
        None => quote!(__toolseal::AdditionalSchema::Closed),
    };
    let serialize_rest = rest.iter().map(|_| {
        let last = Literal::usize_unsuffixed(n);
        quote!(for x in &self.#last { seq.serialize_element(x)?; })
    });
    let description = opt_str(c.description.text(&input.attrs).as_deref());
    let schema = serde_and_schema(
        ident,
        quote! {
            __toolseal::tuple_schema(g, &__toolseal::TupleSchema {
                prefix: &[#(__toolseal::subschema::<#prefix>),*],
                items: #items_schema,
                min_items: #min,
                max_items: #max,
                unique: #unique,
                description: #description,
            })
        },
    );
    Some(quote! {
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, cx: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                let items = __toolseal::check::array(v, at)?;
                __toolseal::check::items(items, at, #min, #max, #unique)?;
                ::core::result::Result::Ok(Self(
                    #(match items.get(#idx) {
                        ::core::option::Option::Some(x) => ::core::option::Option::Some(__toolseal::FromJson::from_json(x, &at.index(#idx), cx)?),
                        ::core::option::Option::None => ::core::option::Option::None,
                    },)*
                    #(#read_rest)*
                ))
            }
        }
        impl __toolseal::serde::Serialize for #ident {
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use __toolseal::serde::ser::SerializeSeq;
                let mut seq = serializer.serialize_seq(::core::option::Option::None)?;
                #(if let ::core::option::Option::Some(x) = &self.#idx { seq.serialize_element(x)?; })*
                #(#serialize_rest)*
                seq.end()
            }
        }
        #schema
    })
}
