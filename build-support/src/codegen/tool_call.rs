//! The sealed `ToolCall`: one variant per tool, resolved by name, with the
//! registry's metadata and the tool definitions to show a model.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use toolseal_runtime::json::Json;
use toolseal_runtime::registry::ToolDef;

use super::model::ToolEntry;
use super::rt;
use crate::docs::{doc_attr, prose};

/// The `ToolCall` enum (an item) and its impls (inside the impl block).
pub(super) fn emit(tools: &[ToolEntry<'_>], registry: &str) -> (TokenStream, TokenStream) {
    let rt = rt();
    let mut sorted: Vec<&str> = tools.iter().map(|t| t.def.name.as_str()).collect();
    sorted.sort_unstable();
    let variants: Vec<_> = tools.iter().map(|t| &t.variant).collect();
    let args: Vec<_> = tools.iter().map(|t| &t.args).collect();
    let names: Vec<&str> = tools.iter().map(|t| t.def.name.as_str()).collect();
    let sorted_idx: Vec<Literal> = names.iter().map(|n| Literal::usize_unsuffixed(sorted.binary_search(n).expect("name is in the sorted list"))).collect();
    let docs = tools.iter().map(|t| doc_attr(t.def.description.as_deref().map(prose).or_else(|| Some(format!("The `{}` tool.", t.def.name)))));
    let infos = tools.iter().map(|t| tool_info(t.def, t.quarantined));
    let item = quote! {
        /// The sealed set of calls to this registry's tools: one variant per tool, nothing else.
        /// Build one with [`ToolCall::from_json`]; whatever the registry does not declare is rejected.
        #[derive(Debug, Clone, PartialEq)]
        pub enum ToolCall {
            #(#docs #variants(#args),)*
        }
    };
    let impls = quote! {
        static NAME_TABLE: #rt::NameTable = #rt::NameTable::new(<ToolCall as #rt::ToolSet>::NAMES);
        impl #rt::ToolSet for ToolCall {
            const REGISTRY: &'static str = #registry;
            const TOOLS: &'static [#rt::ToolInfo] = &[#(#infos),*];
            const NAMES: &'static [&'static str] = &[#(#sorted),*];
            fn tool_names() -> #rt::Names {
                NAME_TABLE.names()
            }
            fn static_name(name: &str) -> Option<&'static str> {
                NAME_TABLE.get(name).map(|i| Self::NAMES[i])
            }
            fn resolve_parts(name: &str, arguments: Option<&#rt::Json<'_>>, cx: &mut #rt::Cx) -> Result<Self, #rt::Rejection> {
                let args = arguments.unwrap_or(&#rt::EMPTY_ARGUMENTS);
                let root = #rt::Path::root();
                let at = root.key("arguments");
                let resolved = match NAME_TABLE.get(name) {
                    #(Some(#sorted_idx) => <#args as #rt::FromJson>::from_json(args, &at, cx).map(Self::#variants),)*
                    _ => return Err(#rt::Rejection::unknown_tool(name, Self::tool_names())),
                };
                resolved.map_err(|r| r.with_tool(name))
            }
            fn read_parts(name: &str, r: &mut #rt::Reader<'_>) -> Option<Self> {
                let Some(tool) = NAME_TABLE.get(name) else { return r.stop_unknown_name() };
                match tool {
                    #(#sorted_idx => <#args as #rt::FromJson>::read(r).map(Self::#variants),)*
                    _ => None,
                }
            }
            fn name(&self) -> &'static str {
                match self { #(Self::#variants(_) => #names,)* }
            }
        }
        #[allow(dead_code)]
        impl ToolCall {
            /// The registry's tools, in registry order.
            pub const TOOLS: &'static [#rt::ToolInfo] = <Self as #rt::ToolSet>::TOOLS;
            /// Resolves a call object `{"name": ..., "arguments": {...}}` (strict mode, 1 MiB limit).
            pub fn from_json(bytes: &[u8]) -> Result<Self, #rt::Rejection> {
                <Self as #rt::ToolSet>::resolve_strict(bytes)
            }
            /// Resolves a call object with `options`; the result records any lenient coercion.
            pub fn from_json_with(bytes: &[u8], options: &#rt::Options) -> Result<#rt::Resolution<Self>, #rt::Rejection> {
                <Self as #rt::ToolSet>::resolve_with(bytes, options)
            }
            /// Resolves a call object already parsed by `serde_json` (its duplicate keys are already lost).
            pub fn from_value(value: &#rt::serde_json::Value) -> Result<Self, #rt::Rejection> {
                <Self as #rt::ToolSet>::resolve_tree_with(&#rt::Json::from_value(value), &#rt::Options::strict()).map(|r| r.call)
            }
            /// The tool this call names, as declared in the registry.
            pub fn name(&self) -> &'static str {
                <Self as #rt::ToolSet>::name(self)
            }
            /// Registry metadata of the tool: description, annotations, canonical definition, digest.
            pub fn info(&self) -> &'static #rt::ToolInfo {
                <Self as #rt::ToolSet>::info(self)
            }
            /// Each tool's arguments schema as derived from the generated types
            /// (`schemars`), in registry order: the closed-world schema to show a model.
            pub fn argument_schemas() -> ::std::vec::Vec<(&'static str, #rt::schemars::Schema)> {
                ::std::vec![#((#names, #rt::root_schema(<#args as #rt::schemars::JsonSchema>::schema_name, <#args as #rt::schemars::JsonSchema>::json_schema)),)*]
            }
            /// The tools a model may call, as `format`'s request lists them (its `tools`
            /// field), in registry order; quarantined tools are not offered.
            pub fn definitions(format: #rt::WireFormat) -> #rt::serde_json::Value {
                #rt::definitions::of_set::<Self>(format, |_| true)
            }
            /// [`ToolCall::definitions`] of the tools whose names `visible` keeps (a gate's visible set).
            pub fn definitions_for(format: #rt::WireFormat, visible: impl FnMut(&str) -> bool) -> #rt::serde_json::Value {
                #rt::definitions::of_set::<Self>(format, visible)
            }
            /// The arguments as JSON (defaults applied).
            pub fn arguments(&self) -> #rt::serde_json::Value {
                // Generated argument types have string keys and JSON values only: they always serialize.
                match self { #(Self::#variants(a) => #rt::serde_json::to_value(a).expect("toolseal-build: generated arguments serialize to JSON"),)* }
            }
        }
        impl #rt::serde::Serialize for ToolCall {
            /// The canonical call object `{"name": ..., "arguments": {...}}`.
            fn serialize<S: #rt::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use #rt::serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("name", self.name())?;
                match self { #(Self::#variants(a) => map.serialize_entry("arguments", a)?,)* }
                map.end()
            }
        }
    };
    (item, impls)
}

/// The `ToolInfo` of `d`: what the registry declares, each part only when present.
fn tool_info(d: &ToolDef, quarantined: Option<&str>) -> TokenStream {
    let rt = rt();
    let (name, definition, digest) = (&d.name, d.canonical(), d.digest());
    let mut info = quote!(#rt::ToolInfo::new(#name, #definition, #digest));
    if let Some(title) = &d.title {
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
                Json::Bool(b) if *key != "title" => Some(quote!(#field: Some(#b))),
                Json::String(t) if *key == "title" => {
                    let t = t.as_ref();
                    Some(quote!(#field: Some(#t)))
                }
                _ => None,
            }
        })
        .collect();
    if !present.is_empty() {
        info.extend(quote!(.annotations(#rt::Annotations { #(#present,)* ..#rt::Annotations::NONE })));
    }
    if let Some(why) = quarantined {
        info.extend(quote!(.quarantined(#why)));
    }
    info
}
