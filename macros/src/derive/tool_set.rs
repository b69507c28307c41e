//! `#[derive(toolseal::ToolSet)]`: the sealed call enum of a registry, one
//! variant per tool, each carrying its tool's canonical definition.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Type};
use toolseal_runtime::json::Json;
use toolseal_runtime::registry::{ToolDef, read_registry};

use crate::attr::Errors;

/// `#[toolseal(..)]` on the enum.
#[derive(Default)]
struct Container {
    krate: Option<syn::Path>,
    registry: Option<LitStr>,
}

/// `#[toolseal(..)]` on a variant: the tool it is.
#[derive(Default)]
struct Tool {
    definition: Option<LitStr>,
    title: Option<LitStr>,
    quarantined: Option<LitStr>,
}

fn parse<T: Default>(attrs: &[Attribute], errors: &mut Errors, mut each: impl FnMut(&mut T, &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()>) -> T {
    let mut out = T::default();
    crate::derive::attrs::each_meta(attrs, errors, |meta| each(&mut out, meta));
    out
}

/// One variant, read.
struct Variant<'a> {
    ident: &'a Ident,
    args: &'a Type,
    def: ToolDef,
    definition: String,
    title: Option<LitStr>,
    quarantined: Option<LitStr>,
}

/// Expands `#[derive(toolseal::ToolSet)]` on `input`.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let c: Container = parse(&input.attrs, &mut errors, |c: &mut Container, meta| {
        if meta.path.is_ident("crate") {
            c.krate = Some(meta.value()?.parse::<LitStr>()?.parse()?);
        } else if meta.path.is_ident("registry") {
            c.registry = Some(meta.value()?.parse()?);
        } else {
            return Err(meta.error("unknown `#[toolseal]` argument on a tool set; expected `registry = \"…\"` or `crate = \"…\"`"));
        }
        Ok(())
    });
    let Data::Enum(data) = &input.data else {
        errors.at(input.ident.span(), "`toolseal::ToolSet` derives for an enum, one variant per tool");
        return errors.to_tokens();
    };
    if !input.generics.params.is_empty() {
        errors.at(input.generics.span(), "`toolseal::ToolSet` derives for an enum without generic parameters");
    }
    let mut variants = Vec::new();
    for v in &data.variants {
        let tool: Tool = parse(&v.attrs, &mut errors, |t: &mut Tool, meta| {
            if meta.path.is_ident("definition") {
                t.definition = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("title") {
                t.title = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("quarantined") {
                t.quarantined = Some(meta.value()?.parse()?);
            } else {
                return Err(meta.error("unknown `#[toolseal]` argument on a tool; expected `definition`, `title` or `quarantined`"));
            }
            Ok(())
        });
        let args = match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => &f.unnamed[0].ty,
            _ => {
                errors.at(v.ident.span(), "a tool's variant holds its arguments: `GetSum(GetSumArgs)`");
                continue;
            }
        };
        let Some(definition) = tool.definition else {
            errors.at(v.ident.span(), "a tool's variant names its definition: `#[toolseal(definition = r#\"{\"name\": …, \"inputSchema\": …}\"#)]`");
            continue;
        };
        let text = definition.value();
        let def = match read_registry(format!("{{\"tools\":[{text}]}}").as_bytes()).map(|r| r.tools.into_iter().next()) {
            Ok(Some(def)) => def,
            Ok(None) => {
                errors.at(definition.span(), "the definition names no tool");
                continue;
            }
            Err(e) => {
                errors.at(definition.span(), format!("the definition is not a tool definition: {e}"));
                continue;
            }
        };
        // The digest is of the canonical form: the definition must be in it.
        let canonical = def.canonical();
        if canonical != text {
            errors.at(definition.span(), format!("the definition is not in canonical form (RFC 8785); it is {canonical}"));
            continue;
        }
        variants.push(Variant { ident: &v.ident, args, def, definition: text, title: tool.title, quarantined: tool.quarantined });
    }
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.def.name == v.def.name) {
            errors.at(v.ident.span(), format!("tool `{}` is declared twice", v.def.name));
        }
    }
    if !errors.is_empty() {
        return errors.to_tokens();
    }
    let krate = c.krate.map_or_else(|| quote!(::toolseal), |p| p.to_token_stream());
    let registry = c.registry.map_or_else(String::new, |r| r.value());
    let body = impls(&input.ident, &registry, &variants);
    quote! {
        #[allow(unused_imports, clippy::all)]
        const _: () = {
            use #krate::__private as __toolseal;
            #body
        };
    }
}

/// The `ToolSet` impl, the inherent methods and `Serialize` of the call enum `id`.
fn impls(id: &Ident, registry: &str, variants: &[Variant<'_>]) -> TokenStream {
    let mut sorted: Vec<&str> = variants.iter().map(|v| v.def.name.as_str()).collect();
    sorted.sort_unstable();
    let names: Vec<&str> = variants.iter().map(|v| v.def.name.as_str()).collect();
    let sorted_idx: Vec<Literal> = names.iter().map(|n| Literal::usize_unsuffixed(sorted.binary_search(n).unwrap_or_default())).collect();
    let idents: Vec<&Ident> = variants.iter().map(|v| v.ident).collect();
    let args: Vec<&Type> = variants.iter().map(|v| v.args).collect();
    let infos = variants.iter().map(tool_info);
    quote! {
        static __NAME_TABLE: __toolseal::NameTable = __toolseal::NameTable::new(<#id as __toolseal::ToolSet>::NAMES);
        impl __toolseal::ToolSet for #id {
            const REGISTRY: &'static str = #registry;
            const TOOLS: &'static [__toolseal::ToolInfo] = &[#(#infos),*];
            const NAMES: &'static [&'static str] = &[#(#sorted),*];
            fn tool_names() -> __toolseal::Names {
                __NAME_TABLE.names()
            }
            fn static_name(name: &str) -> ::core::option::Option<&'static str> {
                __NAME_TABLE.get(name).map(|i| Self::NAMES[i])
            }
            fn resolve_parts(name: &str, arguments: ::core::option::Option<&__toolseal::Json<'_>>, cx: &mut __toolseal::Cx) -> ::core::result::Result<Self, __toolseal::Rejection> {
                let args = arguments.unwrap_or(&__toolseal::EMPTY_ARGUMENTS);
                let root = __toolseal::Path::root();
                let at = root.key("arguments");
                let resolved = match __NAME_TABLE.get(name) {
                    #(::core::option::Option::Some(#sorted_idx) => <#args as __toolseal::FromJson>::from_json(args, &at, cx).map(Self::#idents),)*
                    _ => return ::core::result::Result::Err(__toolseal::Rejection::unknown_tool(name, Self::tool_names())),
                };
                resolved.map_err(|r| r.with_tool(name))
            }
            fn read_parts(name: &str, r: &mut __toolseal::Reader<'_>) -> ::core::option::Option<Self> {
                let ::core::option::Option::Some(tool) = __NAME_TABLE.get(name) else { return r.stop_unknown_name() };
                match tool {
                    #(#sorted_idx => <#args as __toolseal::FromJson>::read(r).map(Self::#idents),)*
                    _ => ::core::option::Option::None,
                }
            }
            fn name(&self) -> &'static str {
                match self { #(Self::#idents(_) => #names,)* }
            }
        }
        #[allow(dead_code)]
        impl #id {
            /// The registry's tools, in registry order.
            pub const TOOLS: &'static [__toolseal::ToolInfo] = <Self as __toolseal::ToolSet>::TOOLS;
            /// Resolves a call object `{"name": ..., "arguments": {...}}` (strict mode, 1 MiB limit).
            pub fn from_json(bytes: &[u8]) -> ::core::result::Result<Self, __toolseal::Rejection> {
                <Self as __toolseal::ToolSet>::resolve_strict(bytes)
            }
            /// Resolves a call object with `options`; the result records any lenient coercion.
            pub fn from_json_with(bytes: &[u8], options: &__toolseal::Options) -> ::core::result::Result<__toolseal::Resolution<Self>, __toolseal::Rejection> {
                <Self as __toolseal::ToolSet>::resolve_with(bytes, options)
            }
            /// Resolves a call object already parsed by `serde_json` (its duplicate keys are already lost).
            pub fn from_value(value: &__toolseal::serde_json::Value) -> ::core::result::Result<Self, __toolseal::Rejection> {
                <Self as __toolseal::ToolSet>::resolve_tree_with(&__toolseal::Json::from_value(value), &__toolseal::Options::strict()).map(|r| r.call)
            }
            /// The tool this call names, as declared in the registry.
            pub fn name(&self) -> &'static str {
                <Self as __toolseal::ToolSet>::name(self)
            }
            /// Registry metadata of the tool: description, annotations, canonical definition, digest.
            pub fn info(&self) -> &'static __toolseal::ToolInfo {
                <Self as __toolseal::ToolSet>::info(self)
            }
            /// Each tool's arguments schema as derived from the generated types
            /// (`schemars`), in registry order: the closed-world schema to show a model.
            pub fn argument_schemas() -> ::std::vec::Vec<(&'static str, __toolseal::schemars::Schema)> {
                ::std::vec![#((#names, __toolseal::root_schema(<#args as __toolseal::schemars::JsonSchema>::schema_name, <#args as __toolseal::schemars::JsonSchema>::json_schema)),)*]
            }
            /// The tools a model may call, as `format`'s request lists them (its `tools`
            /// field), in registry order; quarantined tools are not offered.
            pub fn definitions(format: __toolseal::WireFormat) -> __toolseal::serde_json::Value {
                __toolseal::definitions::of_set::<Self>(format, |_| true)
            }
            /// [`Self::definitions`] of the tools whose names `visible` keeps (a gate's visible set).
            pub fn definitions_for(format: __toolseal::WireFormat, visible: impl FnMut(&str) -> bool) -> __toolseal::serde_json::Value {
                __toolseal::definitions::of_set::<Self>(format, visible)
            }
            /// The arguments as JSON (defaults applied).
            pub fn arguments(&self) -> __toolseal::serde_json::Value {
                // Argument types have string keys and JSON values only: they always serialize.
                match self { #(Self::#idents(a) => __toolseal::serde_json::to_value(a).expect("toolseal: arguments serialize to JSON"),)* }
            }
        }
        impl __toolseal::serde::Serialize for #id {
            /// The canonical call object `{"name": ..., "arguments": {...}}`.
            fn serialize<S: __toolseal::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use __toolseal::serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(::core::option::Option::Some(2))?;
                map.serialize_entry("name", self.name())?;
                match self { #(Self::#idents(a) => map.serialize_entry("arguments", a)?,)* }
                map.end()
            }
        }
    }
}

/// The `ToolInfo` of `v`: what its definition declares, each part only when present.
fn tool_info(v: &Variant<'_>) -> TokenStream {
    let d = &v.def;
    let (name, definition, digest) = (&d.name, &v.definition, d.digest());
    let mut info = quote!(__toolseal::ToolInfo::new(#name, #definition, #digest));
    if let Some(title) = &v.title {
        info.extend(quote!(.title(#title)));
    }
    if let Some(description) = &d.description {
        info.extend(quote!(.description(#description)));
    }
    let ann = d.annotations.as_ref();
    let hints = [("title", "title"), ("read_only_hint", "readOnlyHint"), ("destructive_hint", "destructiveHint"), ("idempotent_hint", "idempotentHint"), ("open_world_hint", "openWorldHint")];
    let present: Vec<TokenStream> = hints
        .iter()
        .filter_map(|(field, key)| {
            let field = quote::format_ident!("{field}");
            match ann.and_then(|a| a.get(key))? {
                Json::Bool(b) if *key != "title" => Some(quote!(#field: ::core::option::Option::Some(#b))),
                Json::String(t) if *key == "title" => {
                    let t = t.as_ref();
                    Some(quote!(#field: ::core::option::Option::Some(#t)))
                }
                _ => None,
            }
        })
        .collect();
    if !present.is_empty() {
        info.extend(quote!(.annotations(__toolseal::Annotations { #(#present,)* ..__toolseal::Annotations::NONE })));
    }
    if let Some(why) = &v.quarantined {
        info.extend(quote!(.quarantined(#why)));
    }
    info
}
