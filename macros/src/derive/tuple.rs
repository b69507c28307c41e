//! A tuple struct marked `#[toolseal(tuple)]`: an array's `prefixItems`, each
//! element an `Option` (an array may be shorter than its prefix), then the
//! elements after them in a last field marked `#[toolseal(rest)]`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, FieldsUnnamed, GenericArgument, PathArguments, Type};

use super::attrs::{self, Container};
use super::{opt_str, opt_u64, option_inner, serde_and_schema};
use crate::attr::Errors;

/// `T` of `Vec<T>`.
fn vec_item(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    match &last.arguments {
        PathArguments::AngleBracketed(args) if last.ident == "Vec" && args.args.len() == 1 => match args.args.first() {
            Some(GenericArgument::Type(item)) => Some(item),
            _ => None,
        },
        _ => None,
    }
}

/// `FromJson`, `Deserialize`, `Serialize` (the elements present) and `JsonSchema` of the tuple `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, fields: &FieldsUnnamed, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    let mut prefix = Vec::new();
    let mut rest = None;
    let last = fields.unnamed.len().saturating_sub(1);
    for (i, f) in fields.unnamed.iter().enumerate() {
        let a = attrs::field(&f.attrs, errors);
        if a.rest {
            match vec_item(&f.ty) {
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
    for (key, _) in &rule.given {
        if !["min_items", "max_items", "unique_items", "untyped"].contains(&key.as_str()) {
            errors.at(ident.span(), format!("a tuple takes `min_items`, `max_items`, `unique_items` and `untyped`, not `{key}`"));
        }
    }
    if !errors.is_empty() {
        return None;
    }
    let (min, max, unique) = (opt_u64(rule.count("min_items")), opt_u64(rule.count("max_items")), rule.has("unique_items"));
    let n = prefix.len();
    let idx: Vec<Literal> = (0..n).map(Literal::usize_unsuffixed).collect();
    let read_rest = rest.iter().map(|_| quote!(rt::elements_from(items, #n, at, cx)?));
    let items_schema = match rest {
        Some(_) if rule.has("untyped") => quote!(rt::AdditionalSchema::Open),
        Some(t) => quote!(rt::AdditionalSchema::Schema(rt::subschema::<#t>)),
        None => quote!(rt::AdditionalSchema::Closed),
    };
    let serialize_rest = rest.iter().map(|_| {
        let last = Literal::usize_unsuffixed(n);
        quote!(for x in &self.#last { seq.serialize_element(x)?; })
    });
    let description = opt_str(c.description.text(&input.attrs).as_deref());
    let schema = serde_and_schema(
        ident,
        quote! {
            rt::tuple_schema(g, &rt::TupleSchema {
                prefix: &[#(rt::subschema::<#prefix>),*],
                items: #items_schema,
                min_items: #min,
                max_items: #max,
                unique: #unique,
                description: #description,
            })
        },
    );
    Some(quote! {
        impl rt::FromJson for #ident {
            fn from_json(v: &rt::Json<'_>, at: &rt::Path<'_>, cx: &mut rt::Cx) -> ::core::result::Result<Self, rt::Rejection> {
                let items = rt::check::array(v, at)?;
                rt::check::items(items, at, #min, #max, #unique)?;
                ::core::result::Result::Ok(Self(
                    #(match items.get(#idx) {
                        ::core::option::Option::Some(x) => ::core::option::Option::Some(rt::FromJson::from_json(x, &at.index(#idx), cx)?),
                        ::core::option::Option::None => ::core::option::Option::None,
                    },)*
                    #(#read_rest)*
                ))
            }
        }
        impl rt::serde::Serialize for #ident {
            fn serialize<S: rt::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use rt::serde::ser::SerializeSeq;
                let mut seq = serializer.serialize_seq(::core::option::Option::None)?;
                #(if let ::core::option::Option::Some(x) = &self.#idx { seq.serialize_element(x)?; })*
                #(#serialize_rest)*
                seq.end()
            }
        }
        #schema
    })
}
