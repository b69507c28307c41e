//! `FromJson` (and `Deserialize` through it) of objects, unions and tuples: the
//! closed-world key checks, every field converted, and the first rejection kept
//! by class (an H2 anywhere before an H3).

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens as _, format_ident, quote};
use toolseal_runtime::schema::UnionMode;

use super::model::{DefaultValue, Kind, Literal as Lit, Object, Presence, Ty, TypeEntry};
use super::{Emit, opt_u64, rt};

/// `FromJson` and `Deserialize` of the object, union or tuple `x`.
pub(super) fn impl_for(e: &Emit, x: &TypeEntry) -> TokenStream {
    let rt = rt();
    let body = match &x.kind {
        Kind::Object(o) => object(o),
        Kind::Union { mode, variants, expected } => {
            let keyword = match mode {
                UnionMode::AnyOf => quote!(AnyOf),
                UnionMode::OneOf => quote!(OneOf),
            };
            let variants = variants.iter().map(|(v, _)| v);
            quote! {
                #rt::union(v, at, cx, #rt::Keyword::#keyword, #expected, &[#(|v, at, cx| #rt::FromJson::from_json(v, at, cx).map(Self::#variants)),*])
            }
        }
        Kind::Tuple { prefix, rest, min_items, max_items, unique, .. } => tuple(prefix, rest.as_ref(), *min_items, *max_items, *unique),
        Kind::Alias(_) | Kind::Value(_) | Kind::StringEnum { .. } => return TokenStream::new(),
    };
    let (id, deserialize) = (&x.id, e.macro_path("__deserialize_via_from_json"));
    quote! {
        impl #rt::FromJson for #id {
            fn from_json(v: &#rt::Json<'_>, at: &#rt::Path<'_>, cx: &mut #rt::Cx) -> Result<Self, #rt::Rejection> {
                #body
            }
        }
        #deserialize!(#id);
    }
}

/// A closed object with declared properties, in one facade macro call: each field
/// with its index, value type, key and presence; `FromJson`, `Deserialize` and
/// `JsonSchema` come from the macro. `None` for other objects.
pub(super) fn closed_object(e: &Emit, x: &TypeEntry) -> Option<TokenStream> {
    let Kind::Object(o) = &x.kind else { return None };
    if o.fields.is_empty() || o.extra.is_some() {
        return None;
    }
    let rt = rt();
    let fields = o.fields.iter().enumerate().map(|(i, f)| {
        let (i, fid, ty, key) = (Literal::usize_unsuffixed(i), &f.rust, f.ty.tokens(&rt), &f.key);
        let presence = match &f.presence {
            Presence::Required => quote!(required),
            Presence::Optional => quote!(optional),
            Presence::Default(d) => {
                let d = default_expr(d, &f.ty);
                quote!(default(|| #d))
            }
        };
        quote!(#i #fid: #ty = #key [#presence])
    });
    let required: Vec<_> = o.fields.iter().enumerate().filter(|(_, f)| matches!(f.presence, Presence::Required)).collect();
    let (required_idx, required_keys) = (required.iter().map(|(i, _)| Literal::usize_unsuffixed(*i)), required.iter().map(|(_, f)| &f.key));
    let (id, n, object) = (&x.id, Literal::usize_unsuffixed(o.fields.len()), e.macro_path("__object"));
    let (minp, maxp, description) = (opt_u64(o.min_properties), opt_u64(o.max_properties), super::opt_str(x.description.as_deref()));
    Some(quote! {
        #object!(#id, #n {
            #(#fields,)*
        } required [#(#required_idx),*] [#(#required_keys),*], properties #minp, #maxp, #description);
    })
}

fn tuple(prefix: &[Ty], rest: Option<&Ty>, min: Option<u64>, max: Option<u64>, unique: bool) -> TokenStream {
    let rt = rt();
    let idx = (0..prefix.len()).map(Literal::usize_unsuffixed);
    let n = prefix.len();
    let rest = rest.iter().map(|_| quote!(#rt::elements_from(items, #n, at, cx)?));
    let (min, max) = (opt_u64(min), opt_u64(max));
    quote! {
        let items = #rt::check::array(v, at)?;
        #rt::check::items(items, at, #min, #max, #unique)?;
        Ok(Self(
            #(match items.get(#idx) {
                Some(x) => Some(#rt::FromJson::from_json(x, &at.index(#idx), cx)?),
                None => None,
            },)*
            #(#rest)*
        ))
    }
}

/// A property's default, as an expression of the field's type `ty`.
fn default_expr(d: &DefaultValue, ty: &Ty) -> TokenStream {
    let rt = rt();
    let ty = ty.tokens(&rt);
    match d {
        DefaultValue::Literal { value, wrapped } => {
            let lit = match value {
                Lit::Bool(b) => quote!(#b),
                Lit::I64(x) => Literal::i64_suffixed(*x).into_token_stream(),
                Lit::U64(x) => Literal::u64_suffixed(*x).into_token_stream(),
                Lit::F64(x) => Literal::f64_unsuffixed(x.0).into_token_stream(),
                Lit::String(s) => quote!(::std::string::String::from(#s)),
            };
            if *wrapped { quote!(#ty { 0: #lit }) } else { lit }
        }
        DefaultValue::Variant(v) => quote!(#ty::#v),
        DefaultValue::Json(text) => quote! {{
            static DEFAULT: ::std::sync::OnceLock<#ty> = ::std::sync::OnceLock::new();
            #rt::default_value(&DEFAULT, #text)
        }},
    }
}

/// An object that keeps extra keys or declares none ([`closed_object`] writes the others).
fn object(o: &Object) -> TokenStream {
    let rt = rt();
    let n = o.fields.len();
    let keys: Vec<&str> = o.fields.iter().map(|f| f.key.as_str()).collect();
    let idx: Vec<Literal> = (0..n).map(Literal::usize_unsuffixed).collect();
    let slot_arms = quote!(#(#keys => #idx,)*);
    let head = open_object_head(o, &keys, &slot_arms);
    let locals: Vec<_> = (0..n).map(|i| format_ident!("f{i}")).collect();
    let reads = o.fields.iter().zip(&idx).zip(&locals).map(|((f, i), local)| {
        let key = &f.key;
        match &f.presence {
            Presence::Required => quote!(let #local = #rt::required(slots[#i], at, #key, cx, &mut first)?;),
            Presence::Optional => quote!(let #local = #rt::optional(slots[#i], at, #key, cx, &mut first)?;),
            Presence::Default(d) => {
                let d = default_expr(d, &f.ty);
                quote!(let #local = #rt::defaulted(slots[#i], at, #key, cx, &mut first, || #d)?;)
            }
        }
    });
    let extra_read = o.extra.iter().map(|x| {
        let (fid, ty) = (&x.rust, x.ty.tokens(&rt));
        quote! {
            #fid: extras.iter().map(|(k, x)| Ok(((*k).to_owned(), <#ty as #rt::FromJson>::from_json(x, &at.key(k), cx)?))).collect::<Result<_, #rt::Rejection>>()?,
        }
    });
    // Every field is converted: an H2 anywhere returns at once, the first H3 waits
    // until no field below holds a key problem (a signature error wherever it sits).
    let build = if n == 0 {
        let unused = o.extra.is_none().then(|| quote!(let _ = cx;));
        quote!(#unused Ok(Self { #(#extra_read)* }))
    } else {
        let fids = o.fields.iter().map(|f| &f.rust);
        quote! {
            let mut first = None;
            #(#reads)*
            match (#(#locals,)*) {
                (#(Some(#locals),)*) => Ok(Self { #(#fids: #locals,)* #(#extra_read)* }),
                _ => Err(#rt::first_rejection(first, at, v)),
            }
        }
    };
    quote!(#head #build)
}

/// The key checks of an object that keeps extra keys (or declares none): each
/// member goes to its declared slot or to `extras`.
fn open_object_head(o: &Object, keys: &[&str], slot_arms: &TokenStream) -> TokenStream {
    let rt = rt();
    let n = keys.len();
    let (minp, maxp) = (opt_u64(o.min_properties), opt_u64(o.max_properties));
    let undeclared = match &o.extra {
        None => quote!(return Err(#rt::Rejection::undeclared_key(at, k, #rt::Names::Static(DECLARED)))),
        Some(_) => quote!({
            extras.push((k.as_ref(), x));
            continue;
        }),
    };
    let key_loop = match (n, &o.extra) {
        (0, None) => quote! {
            if let Some((k, _)) = members.first() {
                #undeclared;
            }
        },
        (0, Some(_)) => quote! {
            for (k, x) in members {
                #undeclared
            }
        },
        _ => quote! {
            let mut slots: [Option<&#rt::Json<'_>>; #n] = [None; #n];
            for (k, x) in members {
                let i = match k.as_ref() {
                    #slot_arms
                    _ => #undeclared,
                };
                if slots[i].replace(x).is_some() {
                    return Err(#rt::Rejection::duplicate_key(at, k));
                }
            }
        },
    };
    let extras = o.extra.iter().map(|_| {
        (
            quote!(let mut extras: ::std::vec::Vec<(&str, &#rt::Json<'_>)> = ::std::vec::Vec::new();),
            quote! {
                if !extras.is_empty() {
                    #rt::check::distinct_keys(&extras.iter().map(|(k, _)| *k).collect::<::std::vec::Vec<_>>(), at)?;
                }
            },
        )
    });
    let (extra_prep, extra_dupes): (Vec<_>, Vec<_>) = extras.unzip();
    let required = o.fields.iter().enumerate().filter(|(_, f)| matches!(f.presence, Presence::Required)).map(|(i, f)| {
        let (i, key) = (Literal::usize_unsuffixed(i), &f.key);
        quote! {
            if slots[#i].is_none() {
                return Err(#rt::Rejection::missing_key(at, #key, #rt::Names::Static(DECLARED)));
            }
        }
    });
    let required_extra = o.required_extra.iter().map(|r| {
        quote! {
            if !extras.iter().any(|(k, _)| *k == #r) {
                return Err(#rt::Rejection::missing_key(at, #r, #rt::Names::Static(DECLARED)));
            }
        }
    });
    quote! {
        #[allow(dead_code)]
        const DECLARED: &[&str] = &[#(#keys),*];
        let members = #rt::check::object(v, at)?;
        #(#extra_prep)*
        #key_loop
        #(#extra_dupes)*
        #(#required)*
        #(#required_extra)*
        #rt::check::property_count(members.len(), at, #minp, #maxp)?;
    }
}
