//! A struct with named fields: a closed object, one declared key per field.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DeriveInput, Expr, FieldsNamed, Ident, Type};

use super::attrs::{self, Container};
use super::{opt_str, opt_u64, table_of, table_static};
use crate::attr::Errors;

/// How a key is present.
enum Presence {
    /// It must be.
    Required,
    /// An `Option` field: `None` when absent.
    Optional,
    /// Absent means this value.
    Default(Expr),
}

/// One field as the object reads it.
struct Field<'a> {
    rust: &'a Ident,
    key: String,
    /// The type a present value converts to (`T` of an optional `Option<T>`).
    value: &'a Type,
    presence: Presence,
    /// The field's own table, when it carries constraints.
    rule: Option<TokenStream>,
}

/// The map field holding the keys beyond the declared ones (`#[toolseal(flatten)]`).
struct Extra<'a> {
    rust: &'a Ident,
    /// The type of each of their values.
    value: &'a Type,
    /// Keys the object must have among them.
    require: Vec<String>,
    /// Whether the schema shows any value for them (`additionalProperties: true`).
    any: bool,
}

/// `FromJson` (tree and reader), `Deserialize`, `Serialize` and `JsonSchema` of the struct `input`.
pub(super) fn expand(input: &DeriveInput, c: &Container, named: &FieldsNamed, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    attrs::only(&c.keys, &["crate", "description", "undescribed", "min_properties", "max_properties"], false, "a struct (constraints go on its fields)", errors);
    let mut fields = Vec::new();
    let mut statics = Vec::new();
    let mut extra: Option<Extra<'_>> = None;
    for (i, f) in named.named.iter().enumerate() {
        let rust = f.ident.as_ref()?;
        let a = attrs::field(&f.attrs, errors);
        if a.flatten {
            attrs::only(&a.keys, &["flatten", "require", "any"], false, "a `flatten` field", errors);
            match super::type_argument(&f.ty, &["BTreeMap", "HashMap"], 2) {
                Some(value) if extra.is_none() => extra = Some(Extra { rust, value, require: a.require.iter().map(syn::LitStr::value).collect(), any: a.any }),
                Some(_) => errors.at(rust.span(), "one `flatten` field holds the keys beyond the declared ones"),
                None => errors.at(f.ty.span(), "a `flatten` field is a `BTreeMap<String, V>` (or `HashMap`) of the keys beyond the declared ones"),
            }
            continue;
        }
        attrs::only(&a.keys, &["rename", "default", "required", "description", "undescribed"], true, "a field (`require` and `any` go on the `flatten` field)", errors);
        let key = a.rename.as_ref().map_or_else(|| rust.unraw().to_string(), syn::LitStr::value);
        if fields.iter().any(|g: &Field<'_>| g.key == key) {
            errors.at(rust.span(), format!("the key {key:?} is declared twice"));
        }
        let inner = super::option_inner(&f.ty);
        let (presence, value) = match (a.default, a.required, inner) {
            (Some(d), false, _) => (Presence::Default(d), &f.ty),
            (None, _, None) | (None, true, Some(_)) => (Presence::Required, &f.ty),
            (None, false, Some(inner)) => (Presence::Optional, inner),
            (Some(_), true, _) => {
                errors.at(rust.span(), "a key is `required` or has a `default`, not both");
                continue;
            }
        };
        let rule = if a.rule.is_empty() && matches!(a.description, attrs::Description::FromDocs) {
            None
        } else {
            let shown = value.to_token_stream().to_string().replace(' ', "");
            let table = table_of(value);
            a.rule.check_kind(table.as_ref().map(|t| t.kind), &shown, errors);
            let Some(table) = table else {
                if a.rule.is_empty() {
                    errors.at(rust.span(), format!("a description on a field is for a `String`, `i64`, `u64`, `f64` or `Vec<T>` one; `{shown}` is described by its own type"));
                }
                continue;
            };
            let name = format_ident!("__FIELD_{i}");
            statics.push(table_static(&name, &table, &a.rule, a.description.text(&f.attrs).as_deref()));
            Some(name.into_token_stream())
        };
        fields.push(Field { rust, key, value, presence, rule });
    }
    if !errors.is_empty() {
        return None;
    }
    let schema = schema(ident, c, &fields, extra.as_ref(), &input.attrs);
    let serialize = match &extra {
        Some(extra) => serialize_map(ident, &fields, extra),
        None => serialize(ident, &fields),
    };
    let from_json = match &extra {
        Some(extra) => open(ident, c, &fields, extra),
        None if fields.is_empty() => empty(ident, c),
        None => members(ident, c, &fields),
    };
    Some(quote! {
        #(#statics)*
        #from_json
        #serialize
        #schema
    })
}

/// A struct without fields: an object with no key.
fn empty(ident: &Ident, c: &Container) -> TokenStream {
    let (minp, maxp) = (opt_u64(c.min_properties), opt_u64(c.max_properties));
    quote! {
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, _: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                let members = __toolseal::check::object(v, at)?;
                if let ::core::option::Option::Some((k, _)) = members.first() {
                    return ::core::result::Result::Err(__toolseal::Rejection::undeclared_key(at, k, __toolseal::Names::Static(&[])));
                }
                __toolseal::check::property_count(members.len(), at, #minp, #maxp)?;
                ::core::result::Result::Ok(Self {})
            }
        }
    }
}

/// The member loops of the runtime (`convert_members`, `read_members`) with the
/// field each key fills: the type's own code is only that.
fn members(ident: &Ident, c: &Container, fields: &[Field<'_>]) -> TokenStream {
    let n = Literal::usize_unsuffixed(fields.len());
    let keys: Vec<&str> = fields.iter().map(|f| f.key.as_str()).collect();
    let idx: Vec<Literal> = (0..fields.len()).map(Literal::usize_unsuffixed).collect();
    let required = fields.iter().enumerate().filter(|(_, f)| matches!(f.presence, Presence::Required)).map(|(i, _)| Literal::usize_unsuffixed(i));
    let (minp, maxp) = (opt_u64(c.min_properties), opt_u64(c.max_properties));
    let locals: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("f{i}")).collect();
    let values: Vec<&Type> = fields.iter().map(|f| f.value).collect();
    let convert = fields.iter().map(|f| match &f.rule {
        Some(rule) => quote!(__toolseal::ValueRule::check(&#rule, x, at, cx)?),
        None => {
            let t = f.value;
            quote!(<#t as __toolseal::FromJson>::from_json(x, at, cx)?)
        }
    });
    let read = fields.iter().map(|f| match &f.rule {
        Some(rule) => quote!(__toolseal::ValueRule::read(&#rule, r)),
        None => {
            let t = f.value;
            quote!(<#t as __toolseal::FromJson>::read(r))
        }
    });
    let rust: Vec<&Ident> = fields.iter().map(|f| f.rust).collect();
    let fill = fields.iter().zip(&locals).map(|(f, local)| match &f.presence {
        Presence::Required => quote! {
            match #local {
                ::core::option::Option::Some(x) => x,
                ::core::option::Option::None => return ::core::result::Result::Err(__toolseal::first_rejection(::core::option::Option::None, at, v)),
            }
        },
        Presence::Optional => quote!(#local),
        Presence::Default(d) => quote!(#local.unwrap_or_else(|| #d)),
    });
    let take = fields.iter().zip(&locals).zip(&idx).map(|((f, local), i)| match &f.presence {
        Presence::Required => quote! {
            match #local {
                ::core::option::Option::Some(x) => x,
                ::core::option::Option::None => {
                    r.stop_missing(__KEYS.declared[#i], __KEYS.declared);
                    return ::core::option::Option::None;
                }
            }
        },
        Presence::Optional => quote!(#local),
        Presence::Default(d) => quote!(#local.unwrap_or_else(|| #d)),
    });
    quote! {
        // The index of a declared key (for the tree's conversion and for the
        // reader's keys that do not come in declared order).
        fn __index(k: &str) -> ::core::option::Option<usize> {
            ::core::option::Option::Some(match k {
                #(#keys => #idx,)*
                _ => return ::core::option::Option::None,
            })
        }
        static __KEYS: __toolseal::ObjectKeys = __toolseal::ObjectKeys {
            declared: &[#(#keys),*],
            index: __index,
            plain: __toolseal::plain_keys(&[#(#keys),*]),
            required: &[#(#required),*],
            min_properties: #minp,
            max_properties: #maxp,
        };
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, cx: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                #(let mut #locals: ::core::option::Option<#values> = ::core::option::Option::None;)*
                __toolseal::convert_members::<#n>(v, at, cx, &__KEYS, &mut |i, x, at, cx| {
                    match i {
                        #(#idx => #locals = ::core::option::Option::Some(#convert),)*
                        _ => {}
                    }
                    ::core::result::Result::Ok(())
                })?;
                ::core::result::Result::Ok(Self { #(#rust: #fill),* })
            }

            // Not inlined into its callers (the tool enum's `read_parts`, enclosing
            // objects): a large registry's build would pay for every copy.
            #[inline(never)]
            fn read(r: &mut __toolseal::Reader<'_>) -> ::core::option::Option<Self> {
                #(let mut #locals: ::core::option::Option<#values> = ::core::option::Option::None;)*
                __toolseal::read_members(r, &__KEYS, &mut |i, r| match i {
                    #(#idx if #locals.is_some() => __toolseal::Member::Twice,
                    #idx => match #read {
                        ::core::option::Option::Some(x) => {
                            #locals = ::core::option::Option::Some(x);
                            __toolseal::Member::Read
                        }
                        ::core::option::Option::None => __toolseal::Member::Failed,
                    },)*
                    // `read_members` gives only the declared keys' indices.
                    _ => __toolseal::Member::Failed,
                })?;
                ::core::option::Option::Some(Self { #(#rust: #take),* })
            }
        }
    }
}

/// `Serialize` as the object it was read from: an absent optional key stays absent.
fn serialize(ident: &Ident, fields: &[Field<'_>]) -> TokenStream {
    let len = fields.iter().map(|f| {
        let rust = f.rust;
        match f.presence {
            Presence::Optional => quote!(+ usize::from(self.#rust.is_some())),
            _ => quote!(+ 1),
        }
    });
    let each = fields.iter().map(|f| {
        let (rust, key) = (f.rust, &f.key);
        match f.presence {
            Presence::Optional => quote! {
                match &self.#rust {
                    ::core::option::Option::Some(x) => s.serialize_field(#key, x)?,
                    ::core::option::Option::None => s.skip_field(#key)?,
                }
            },
            _ => quote!(s.serialize_field(#key, &self.#rust)?;),
        }
    });
    quote! {
        impl __toolseal::serde::Serialize for #ident {
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use __toolseal::serde::ser::SerializeStruct;
                let mut s = serializer.serialize_struct(::core::stringify!(#ident), 0 #(#len)*)?;
                #(#each)*
                s.end()
            }
        }
    }
}

/// `JsonSchema`: a closed object of the fields' schemas.
fn schema(ident: &Ident, c: &Container, fields: &[Field<'_>], extra: Option<&Extra<'_>>, attrs: &[syn::Attribute]) -> TokenStream {
    let properties = fields.iter().map(|f| {
        let key = &f.key;
        match &f.rule {
            Some(rule) => quote!((#key, |g| __toolseal::Describe::describe(&#rule, g).to_value())),
            None => {
                let t = f.value;
                quote!((#key, __toolseal::subschema::<#t>))
            }
        }
    });
    let required = fields.iter().filter(|f| matches!(f.presence, Presence::Required)).map(|f| &f.key).chain(extra.iter().flat_map(|x| &x.require));
    let additional = match extra {
        None => quote!(__toolseal::AdditionalSchema::Closed),
        Some(x) if x.any => quote!(__toolseal::AdditionalSchema::Open),
        Some(x) => {
            let t = x.value;
            quote!(__toolseal::AdditionalSchema::Schema(__toolseal::subschema::<#t>))
        }
    };
    let (minp, maxp) = (opt_u64(c.min_properties), opt_u64(c.max_properties));
    let description = opt_str(c.description.text(attrs).as_deref());
    super::serde_and_schema(
        ident,
        quote! {
            __toolseal::object_schema(g, &__toolseal::ObjectSchema {
                properties: &[#(#properties),*],
                required: &[#(#required),*],
                additional: #additional,
                min_properties: #minp,
                max_properties: #maxp,
                description: #description,
            })
        },
    )
}

/// An object with a `flatten` field: each member goes to its declared field or
/// among the extra keys; a key twice, a required key missing (declared, or one
/// the `flatten` field requires) is H2, then the member count and every value.
fn open(ident: &Ident, c: &Container, fields: &[Field<'_>], extra: &Extra<'_>) -> TokenStream {
    let n = fields.len();
    let keys: Vec<&str> = fields.iter().map(|f| f.key.as_str()).collect();
    let idx: Vec<Literal> = (0..n).map(Literal::usize_unsuffixed).collect();
    let (minp, maxp) = (opt_u64(c.min_properties), opt_u64(c.max_properties));
    let required = fields.iter().zip(&idx).filter(|(f, _)| matches!(f.presence, Presence::Required)).map(|(f, i)| {
        let key = &f.key;
        quote! {
            if slots[#i].is_none() {
                return ::core::result::Result::Err(__toolseal::Rejection::missing_key(at, #key, __toolseal::Names::Static(DECLARED)));
            }
        }
    });
    let required_extra = extra.require.iter().map(|r| {
        quote! {
            if !extras.iter().any(|(k, _)| *k == #r) {
                return ::core::result::Result::Err(__toolseal::Rejection::missing_key(at, #r, __toolseal::Names::Static(DECLARED)));
            }
        }
    });
    let locals: Vec<Ident> = (0..n).map(|i| format_ident!("f{i}")).collect();
    let reads = fields.iter().zip(&idx).zip(&locals).map(|((f, i), local)| {
        let (key, t) = (&f.key, f.value);
        let convert = match &f.rule {
            Some(rule) => quote!(|x: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, cx: &mut __toolseal::Cx| __toolseal::ValueRule::check(&#rule, x, at, cx)),
            None => quote!(<#t as __toolseal::FromJson>::from_json),
        };
        match &f.presence {
            Presence::Required => quote!(let #local = __toolseal::required(slots[#i], at, #key, cx, &mut first, #convert)?;),
            Presence::Optional => quote!(let #local = __toolseal::optional(slots[#i], at, #key, cx, &mut first, #convert)?;),
            Presence::Default(d) => quote!(let #local = __toolseal::defaulted(slots[#i], at, #key, cx, &mut first, #convert, || #d)?;),
        }
    });
    let (extra_rust, extra_value) = (extra.rust, extra.value);
    let extra_read = quote! {
        #extra_rust: extras.iter().map(|(k, x)| ::core::result::Result::Ok(((*k).to_owned(), <#extra_value as __toolseal::FromJson>::from_json(x, &at.key(k), cx)?))).collect::<::core::result::Result<_, __toolseal::Rejection>>()?,
    };
    let key_loop = if n == 0 {
        quote! {
            for (k, x) in members {
                extras.push((k.as_ref(), x));
            }
        }
    } else {
        quote! {
            let mut slots: [::core::option::Option<&__toolseal::Json<'_>>; #n] = [::core::option::Option::None; #n];
            for (k, x) in members {
                let i = match k.as_ref() {
                    #(#keys => #idx,)*
                    _ => {
                        extras.push((k.as_ref(), x));
                        continue;
                    }
                };
                if slots[i].replace(x).is_some() {
                    return ::core::result::Result::Err(__toolseal::Rejection::duplicate_key(at, k));
                }
            }
        }
    };
    let rust = fields.iter().map(|f| f.rust);
    let build = if n == 0 {
        quote!(::core::result::Result::Ok(Self { #extra_read }))
    } else {
        quote! {
            let mut first = ::core::option::Option::None;
            #(#reads)*
            match (#(#locals,)*) {
                (#(::core::option::Option::Some(#locals),)*) => ::core::result::Result::Ok(Self { #(#rust: #locals,)* #extra_read }),
                _ => ::core::result::Result::Err(__toolseal::first_rejection(first, at, v)),
            }
        }
    };
    quote! {
        impl __toolseal::FromJson for #ident {
            fn from_json(v: &__toolseal::Json<'_>, at: &__toolseal::Path<'_>, cx: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                const DECLARED: &[&str] = &[#(#keys),*];
                let members = __toolseal::check::object(v, at)?;
                let mut extras: ::std::vec::Vec<(&str, &__toolseal::Json<'_>)> = ::std::vec::Vec::new();
                #key_loop
                if !extras.is_empty() {
                    __toolseal::check::distinct_keys(&extras.iter().map(|(k, _)| *k).collect::<::std::vec::Vec<_>>(), at)?;
                }
                #(#required)*
                #(#required_extra)*
                __toolseal::check::property_count(members.len(), at, #minp, #maxp)?;
                #build
            }
        }
    }
}

/// `Serialize` of an object with a `flatten` field: a map of the fields present, then the extra keys.
fn serialize_map(ident: &Ident, fields: &[Field<'_>], extra: &Extra<'_>) -> TokenStream {
    let each = fields.iter().map(|f| {
        let (rust, key) = (f.rust, &f.key);
        match f.presence {
            Presence::Optional => quote! {
                if let ::core::option::Option::Some(x) = &self.#rust {
                    m.serialize_entry(#key, x)?;
                }
            },
            _ => quote!(m.serialize_entry(#key, &self.#rust)?;),
        }
    });
    let extra_rust = extra.rust;
    quote! {
        impl __toolseal::serde::Serialize for #ident {
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use __toolseal::serde::ser::SerializeMap;
                let mut m = serializer.serialize_map(::core::option::Option::None)?;
                #(#each)*
                for (k, x) in &self.#extra_rust {
                    m.serialize_entry(k, x)?;
                }
                m.end()
            }
        }
    }
}
