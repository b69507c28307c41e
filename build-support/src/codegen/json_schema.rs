//! `JsonSchema` of objects, unions and tuples: the schema a model is shown,
//! built by shared functions from a table of the type's members.

use proc_macro2::TokenStream;
use quote::quote;
use toolseal_runtime::schema::UnionMode;

use super::model::{Kind, Presence, TypeEntry};
use super::{Emit, opt_str, opt_u64, rt};

/// `JsonSchema` of the object, union or tuple `x`.
pub(super) fn impl_for(e: &Emit, x: &TypeEntry) -> TokenStream {
    let rt = rt();
    let description = opt_str(x.description.as_deref());
    let body = match &x.kind {
        Kind::Object(o) => {
            let properties = o.fields.iter().map(|f| {
                let (key, ty) = (&f.key, f.ty.tokens(&rt));
                quote!((#key, #rt::subschema::<#ty>))
            });
            let required = o.fields.iter().filter(|f| matches!(f.presence, Presence::Required)).map(|f| &f.key).chain(&o.required_extra);
            let additional = match &o.extra {
                None => quote!(#rt::AdditionalSchema::Closed),
                Some(x) if x.declared => {
                    let ty = x.ty.tokens(&rt);
                    quote!(#rt::AdditionalSchema::Schema(#rt::subschema::<#ty>))
                }
                Some(_) => quote!(#rt::AdditionalSchema::Open),
            };
            let (minp, maxp) = (opt_u64(o.min_properties), opt_u64(o.max_properties));
            quote! {
                #rt::object_schema(g, &#rt::ObjectSchema {
                    properties: &[#(#properties),*],
                    required: &[#(#required),*],
                    additional: #additional,
                    min_properties: #minp,
                    max_properties: #maxp,
                    description: #description,
                })
            }
        }
        Kind::Union { mode, variants, .. } => {
            let word = match mode {
                UnionMode::AnyOf => "anyOf",
                UnionMode::OneOf => "oneOf",
            };
            let tys = variants.iter().map(|(_, t)| t.tokens(&rt));
            quote!(#rt::union_schema(g, #word, &[#(#rt::subschema::<#tys>),*], #description))
        }
        Kind::Tuple { prefix, rest, typed, min_items, max_items, unique } => {
            let prefix = prefix.iter().map(|t| t.tokens(&rt));
            let items = match rest {
                Some(t) if *typed => {
                    let t = t.tokens(&rt);
                    quote!(#rt::AdditionalSchema::Schema(#rt::subschema::<#t>))
                }
                Some(_) => quote!(#rt::AdditionalSchema::Open),
                None => quote!(#rt::AdditionalSchema::Closed),
            };
            let (min, max) = (opt_u64(*min_items), opt_u64(*max_items));
            quote! {
                #rt::tuple_schema(g, &#rt::TupleSchema {
                    prefix: &[#(#rt::subschema::<#prefix>),*],
                    items: #items,
                    min_items: #min,
                    max_items: #max,
                    unique: #unique,
                    description: #description,
                })
            }
        }
        Kind::Alias(_) | Kind::Value(_) | Kind::StringEnum { .. } => return TokenStream::new(),
    };
    let (id, json_schema) = (&x.id, e.macro_path("__json_schema"));
    quote!(#json_schema!(#id, g => #body);)
}
