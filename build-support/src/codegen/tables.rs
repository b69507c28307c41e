//! Validated newtypes and string enums as data: each is one facade macro call
//! with a table of the runtime's `generated` module, which both checks values
//! (`FromJson`, `Deserialize`, `TryFrom`) and writes the type's JSON Schema.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use toolseal_runtime::schema::IntRepr;

use super::model::{Bounds, Num, Table, TypeEntry};
use super::{Emit, opt_str, rt};

/// `.name(x)` for each `Some`.
fn setters<T>(pairs: impl IntoIterator<Item = (&'static str, Option<T>)>, lit: impl Fn(T) -> Literal) -> TokenStream {
    pairs
        .into_iter()
        .filter_map(|(name, x)| {
            let name = quote::format_ident!("{name}");
            x.map(|x| {
                let x = lit(x);
                quote!(.#name(#x))
            })
        })
        .collect()
}

fn bounds(b: &Bounds) -> TokenStream {
    let pairs = [("minimum", b.minimum), ("maximum", b.maximum), ("exclusive_minimum", b.exclusive_minimum), ("exclusive_maximum", b.exclusive_maximum), ("multiple_of", b.multiple_of)];
    setters(pairs, |x: Num| Literal::f64_unsuffixed(x.0))
}

fn counts(min: Option<u64>, max: Option<u64>, names: (&'static str, &'static str)) -> TokenStream {
    setters([(names.0, min), (names.1, max)], Literal::u64_unsuffixed)
}

/// `.description("...")` when the schema has one.
fn description(x: &TypeEntry) -> TokenStream {
    x.description.iter().map(|d| quote!(.description(#d))).collect()
}

/// The newtype `x` over `table`'s value: its table and everything derived from it.
pub(super) fn value_type(e: &Emit, x: &TypeEntry, table: &Table) -> TokenStream {
    let (id, rt) = (&x.id, rt());
    let inner = table.inner().tokens(&rt);
    let (ty, rule) = match table {
        Table::String { min_length, max_length, patterns, format } => {
            let mut rule = counts(*min_length, *max_length, ("min_length", "max_length"));
            if !patterns.is_empty() {
                rule.extend(quote!(.patterns(&PATTERNS)));
            }
            if let Some(f) = format {
                let variant = quote::format_ident!("{}", format!("{f:?}"));
                rule.extend(quote!(.format(#rt::Format::#variant)));
            }
            rule.extend(description(x));
            (quote!(#rt::StringType), quote!(#rt::StringType::new() #rule))
        }
        Table::Number { repr, bounds: b } => {
            let n = match repr {
                Some(IntRepr::I64) => quote!(i64),
                Some(IntRepr::U64) => quote!(u64),
                None => quote!(f64),
            };
            let (b, d) = (bounds(b), description(x));
            (quote!(#rt::NumberType<#n>), quote!(#rt::NumberType::new() #b #d))
        }
        Table::Array { item, typed, min_items, max_items, unique } => {
            let item = item.tokens(&rt);
            let mut rule = counts(*min_items, *max_items, ("min_items", "max_items"));
            if *unique {
                rule.extend(quote!(.unique()));
            }
            if !typed {
                rule.extend(quote!(.untyped()));
            }
            rule.extend(description(x));
            (quote!(#rt::ArrayType<#item>), quote!(#rt::ArrayType::new() #rule))
        }
        Table::ValueSet { is_const, texts, expected } => {
            let keyword = if *is_const { quote!(Const) } else { quote!(Enum) };
            let d = description(x);
            (quote!(#rt::ValueSet), quote!(#rt::ValueSet::new(#rt::Keyword::#keyword, &[#(#texts),*], #expected) #d))
        }
        Table::Spec { spec, pointer, schema } => (quote!(#rt::SpecType), quote!(#rt::SpecType { spec: &#spec, pointer: #pointer, schema: #schema })),
        Table::Never => (quote!(#rt::Refusal), quote!(#rt::Refusal::Never)),
        Table::Quarantined { tool, problem } => (quote!(#rt::Refusal), quote!(#rt::Refusal::Quarantined { tool: #tool, problem: #problem })),
    };
    let value_type = e.macro_path("__value_type");
    match table {
        // The patterns in a `static` of their own (compiled on first use), so that the
        // table stays immutable.
        Table::String { patterns, .. } if !patterns.is_empty() => {
            let n = patterns.len();
            quote! {
                const _: () = {
                    static PATTERNS: [#rt::LazyPattern; #n] = [#(#rt::LazyPattern::new(#patterns)),*];
                    #value_type!(#id(#inner), #ty = #rule);
                };
            }
        }
        _ => quote!(#value_type!(#id(#inner), #ty = #rule);),
    }
}

/// The string enum `x`: its values, in variant order, and everything derived from them.
pub(super) fn string_enum(e: &Emit, x: &TypeEntry, values: &[String], variants: &[Ident], is_const: bool, expected: &str) -> TokenStream {
    let (id, rt) = (&x.id, rt());
    let keyword = if is_const { quote!(Const) } else { quote!(Enum) };
    let description = opt_str(x.description.as_deref());
    let string_enum = e.macro_path("__string_enum");
    quote! {
        #string_enum!(#id [#(#variants),*] = #rt::StringEnum {
            values: &[#(#values),*],
            keyword: #rt::Keyword::#keyword,
            expected: #expected,
            description: #description,
        });
    }
}
