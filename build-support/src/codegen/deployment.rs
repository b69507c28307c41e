//! A deployment's module: one module per server (its registry's code) and the
//! `McpCall` enum whose every value names exactly one `(server, tool)`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use toolseal_runtime::mcp::Policy;

use crate::naming::{field_name, ident, type_name};
use toolseal_runtime::mcp::manifest::DeploymentServer;

/// What the `ToolSet` impl of `McpCall` lists.
pub(crate) struct Tables {
    /// The manifest, as generated code names it.
    pub(crate) registry: String,
    /// Every qualified tool name, sorted.
    pub(crate) qualified: Vec<String>,
    /// Each server's number of tools.
    pub(crate) counts: Vec<usize>,
}

/// The deployment module; `rt` is the facade's `__private` support module.
pub(crate) fn tokens(servers: &[DeploymentServer], modules: Vec<TokenStream>, pins: &[(String, String)], policy: Policy, tables: &Tables, rt: &TokenStream) -> TokenStream {
    let mods: Vec<_> = servers.iter().map(|s| ident(&field_name(&s.name))).collect();
    let variants: Vec<_> = servers.iter().map(|s| ident(&type_name(&s.name))).collect();
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    let tiers: Vec<Literal> = servers.iter().map(|s| Literal::usize_unsuffixed(s.tier)).collect();
    let tier_names: Vec<&str> = servers.iter().map(|s| s.tier_name.as_str()).collect();
    let indices: Vec<Literal> = (0..servers.len()).map(Literal::usize_unsuffixed).collect();
    let docs = servers.iter().map(|s| format!(" A call on server `{}` (tier `{}`).", s.name, s.tier_name));
    let (pin_tools, pin_servers): (Vec<&str>, Vec<&str>) = pins.iter().map(|(t, s)| (t.as_str(), s.as_str())).unzip();
    let policy = match policy {
        Policy::Strict => quote!(#rt::mcp::Policy::Strict),
        Policy::PinAssisted => quote!(#rt::mcp::Policy::PinAssisted),
    };
    let registry = &tables.registry;
    let sorted = &tables.qualified;
    let tool_refs: Vec<TokenStream> =
        mods.iter().zip(&tables.counts).flat_map(|(m, n)| (0..*n).map(move |i| (m, Literal::usize_unsuffixed(i)))).map(|(m, i)| quote!(<#m::ToolCall as #rt::ToolSet>::TOOLS[#i])).collect();
    quote! {
        #(
            #[doc = concat!(" The tools of server `", #names, "`.")]
            pub mod #mods { #modules }
        )*
        /// A call on the merged deployment: every value names exactly one
        /// `(server, tool)`. Resolve with [`McpCall::resolver`].
        #[derive(Debug, Clone, PartialEq)]
        #[allow(clippy::all)]
        pub enum McpCall {
            #(#[doc = #docs] #variants(#mods::ToolCall),)*
        }
        #[allow(clippy::all)]
        const _: () = {
            impl #rt::mcp::McpSet for McpCall {
                fn catalog() -> &'static #rt::mcp::Catalog {
                    static CATALOG: ::std::sync::OnceLock<#rt::mcp::Catalog> = ::std::sync::OnceLock::new();
                    CATALOG.get_or_init(|| #rt::catalog(
                        &[#((#names, #tiers, #tier_names, <#mods::ToolCall as #rt::ToolSet>::TOOLS)),*],
                        &[#((#pin_tools, #pin_servers)),*],
                        #policy,
                    ))
                }
                fn resolve_on(route: #rt::mcp::Route, arguments: ::core::option::Option<&#rt::Json<'_>>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let tool = Self::catalog().tool(route).name.as_str();
                    match route.server {
                        #(#indices => <#mods::ToolCall as #rt::ToolSet>::resolve_parts(tool, arguments, cx).map(Self::#variants),)*
                        _ => ::core::result::Result::Err(#rt::Rejection::routing(#rt::Class::M1, #rt::Reason::NoProvider { server: ::core::option::Option::None }, tool)),
                    }
                }
                fn tool_info(route: #rt::mcp::Route) -> ::core::option::Option<&'static #rt::ToolInfo> {
                    match route.server {
                        #(#indices => <#mods::ToolCall as #rt::ToolSet>::TOOLS.get(route.tool),)*
                        _ => ::core::option::Option::None,
                    }
                }
                fn route(&self) -> #rt::mcp::Route {
                    let (server, tool) = match self { #(Self::#variants(c) => (#indices, #rt::ToolSet::name(c)),)* };
                    #rt::route_of(Self::catalog(), server, tool)
                }
            }
            /// The deployment as one sealed set: names are qualified (`server__tool`),
            /// flat names are routed by the manifest's policy, pinned calls go to their server.
            impl #rt::ToolSet for McpCall {
                const REGISTRY: &'static str = #registry;
                const TOOLS: &'static [#rt::ToolInfo] = &[#(#tool_refs),*];
                const NAMES: &'static [&'static str] = &[#(#sorted),*];
                fn resolve_parts(name: &str, arguments: ::core::option::Option<&#rt::Json<'_>>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let catalog = <Self as #rt::mcp::McpSet>::catalog();
                    #rt::mcp::resolve_in::<Self>(catalog, &::std::collections::HashMap::new(), ::core::option::Option::None, name, arguments, cx).map(|(call, _)| call)
                }
                fn resolve_pinned(server: &str, name: &str, arguments: ::core::option::Option<&#rt::Json<'_>>, cx: &mut #rt::Cx) -> ::core::result::Result<Self, #rt::Rejection> {
                    let catalog = <Self as #rt::mcp::McpSet>::catalog();
                    #rt::mcp::resolve_in::<Self>(catalog, &::std::collections::HashMap::new(), ::core::option::Option::Some(server), name, arguments, cx).map(|(call, _)| call)
                }
                fn name(&self) -> &'static str {
                    self.qualified_name()
                }
                fn info(&self) -> &'static #rt::ToolInfo {
                    match self { #(Self::#variants(c) => #rt::ToolSet::info(c),)* }
                }
            }
            #[allow(dead_code)]
            impl McpCall {
                /// Resolves `{"name", "arguments"}` by the manifest's policy (for live
                /// listings and stamps, use [`McpCall::resolver`]).
                pub fn from_json(bytes: &[u8]) -> ::core::result::Result<Self, #rt::Rejection> {
                    <Self as #rt::ToolSet>::resolve_strict(bytes)
                }
                /// A resolver for this deployment (the manifest's policy, strict resolution).
                pub fn resolver() -> #rt::mcp::McpResolver<Self> {
                    #rt::mcp::McpResolver::new()
                }
                /// The server this call is routed to.
                pub fn server(&self) -> &'static str {
                    match self { #(Self::#variants(_) => #names,)* }
                }
                /// The tool's name on that server.
                pub fn tool(&self) -> &'static str {
                    match self { #(Self::#variants(c) => #rt::ToolSet::name(c),)* }
                }
                /// The qualified name the model sees (`server__tool`, ≤ 64 characters).
                pub fn qualified_name(&self) -> &'static str {
                    let catalog = <Self as #rt::mcp::McpSet>::catalog();
                    catalog.qualified(<Self as #rt::mcp::McpSet>::route(self))
                }
                /// The tool's registry metadata (digest, annotations).
                pub fn info(&self) -> &'static #rt::ToolInfo {
                    match self { #(Self::#variants(c) => #rt::ToolSet::info(c),)* }
                }
                /// The arguments as JSON.
                pub fn arguments(&self) -> #rt::serde_json::Value {
                    match self { #(Self::#variants(c) => c.arguments(),)* }
                }
                /// Every tool a model may call, under its qualified name (what it must send
                /// back), as `format`'s request lists them; quarantined tools are not offered.
                pub fn definitions(format: #rt::WireFormat) -> #rt::serde_json::Value {
                    #rt::definitions::of_deployment::<Self>(format, |_| true)
                }
                /// [`McpCall::definitions`] of the tools whose qualified names `visible` keeps (a gate's visible set).
                pub fn definitions_for(format: #rt::WireFormat, visible: impl FnMut(&str) -> bool) -> #rt::serde_json::Value {
                    #rt::definitions::of_deployment::<Self>(format, visible)
                }
            }
        };
    }
}
