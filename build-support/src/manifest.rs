//! Deployment manifests: several MCP servers, each with a trust tier and a
//! registry, merged into one module holding a sealed `ToolCall` per server
//! and an `McpCall` enum whose every value names exactly one `(server, tool)`.
//!
//! ```toml
//! tiers = ["first-party", "vetted", "community"]   # most trusted first
//! policy = "strict"                                # or "pin-assisted"
//! shadowing = "warn"                               # or "error"
//!
//! [[servers]]
//! name = "filesystem"                              # the host's key: [a-zA-Z0-9-]{1,32}
//! tier = "first-party"
//! registry = "registries/server-filesystem.json"   # relative to this file
//!
//! command = ["npx", "@modelcontextprotocol/server-filesystem", "/srv"]  # optional: for `toolseal host` and `gateway`
//! # url = "http://127.0.0.1:3001/mcp"            # or a Streamable HTTP server (for `toolseal gateway`)
//!
//! [pins]                                           # settles same-tier collisions under pin-assisted
//! read_file = "filesystem"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use serde::Deserialize;
use toolseal_runtime::dynamic::DynamicDeployment;
use toolseal_runtime::mcp::{Catalog, Policy, ServerSpec};
use toolseal_runtime::registry::{read_registry, Registry};
use toolseal_runtime::schema::CompileOptions;

use crate::naming::{field_name, ident, type_name};
use crate::docs::count;
use crate::facade::Facade;
use crate::{format_file, registry_tokens, Error, Generated};

/// What to do when a lower-tier server declares a higher-tier server's tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
enum Shadowing {
    /// Report it as a build warning (flat calls to the name are rejected as M3 either way).
    #[default]
    Warn,
    /// Fail the build.
    Error,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    tiers: Vec<String>,
    #[serde(default)]
    policy: Policy,
    #[serde(default)]
    shadowing: Shadowing,
    servers: Vec<ServerEntry>,
    #[serde(default)]
    pins: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerEntry {
    name: String,
    tier: String,
    registry: PathBuf,
    /// How a host starts it over stdio (used by `toolseal host --manifest`, not by the build).
    #[serde(default)]
    command: Option<Vec<String>>,
    /// Where a gateway reaches it over Streamable HTTP instead (used by `toolseal gateway`, not by the build).
    #[serde(default)]
    url: Option<String>,
}

fn manifest_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Manifest { path: path.to_owned(), message: message.into() }
}

/// A deployment manifest, read and checked, with every server's registry.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// The manifest's policy.
    pub policy: Policy,
    /// The servers, in manifest order.
    pub servers: Vec<DeploymentServer>,
    /// `(tool, server)` pins.
    pub pins: Vec<(String, String)>,
    /// Whether shadowing fails the build.
    shadowing: Shadowing,
}

/// One server of a [`Deployment`].
#[derive(Debug, Clone)]
pub struct DeploymentServer {
    /// The host's key for it.
    pub name: String,
    /// Its tier's index (0 is the most trusted).
    pub tier: usize,
    /// Its tier's name.
    pub tier_name: String,
    /// Its registry file, resolved against the manifest's directory.
    pub registry_path: PathBuf,
    /// The registry file's bytes.
    pub registry_bytes: Vec<u8>,
    /// The command that starts it over stdio, if the manifest gives one (run in the manifest's directory).
    pub command: Option<Vec<String>>,
    /// The Streamable HTTP endpoint that serves it, if the manifest gives one instead of `command`.
    pub url: Option<String>,
}

impl Deployment {
    /// The merged namespace (validates names, pins and qualified-name uniqueness).
    pub fn catalog(&self, path: &Path) -> Result<Catalog, Error> {
        let specs = self.registries()?.iter().map(|(name, tier, tier_name, registry)| ServerSpec::listing(name, *tier, tier_name, registry)).collect();
        Catalog::new(specs, &self.pins, self.policy).map_err(|e| manifest_error(path, e.to_string()))
    }

    /// Each server's registry, read: `(name, tier, tier name, registry)` in
    /// manifest order, as `DynamicDeployment::new` takes them.
    pub fn registries(&self) -> Result<Vec<(String, usize, String, Registry)>, Error> {
        self.servers
            .iter()
            .map(|server| {
                let registry = read_registry(&server.registry_bytes).map_err(|source| Error::Registry { path: server.registry_path.clone(), source })?;
                Ok((server.name.clone(), server.tier, server.tier_name.clone(), registry))
            })
            .collect()
    }

    /// The deployment compiled at run time (the same rules as the generated `McpCall`).
    pub fn compile_dynamic(&self, path: &Path, options: &CompileOptions) -> Result<DynamicDeployment, Error> {
        DynamicDeployment::new(&self.registries()?, &self.pins, self.policy, options).map_err(|e| manifest_error(path, e.to_string()))
    }
}

/// Reads the manifest at `path` and every registry it names.
pub fn read_manifest(path: &Path) -> Result<Deployment, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_owned(), source })?;
    let manifest: ManifestFile = toml::from_str(&text).map_err(|e| manifest_error(path, e.to_string().trim_end().replace('\n', " ")))?;
    if manifest.tiers.is_empty() {
        return Err(manifest_error(path, "`tiers` lists no tier; name them most trusted first, e.g. [\"first-party\", \"community\"]"));
    }
    for (i, tier) in manifest.tiers.iter().enumerate() {
        if manifest.tiers[..i].contains(tier) {
            return Err(manifest_error(path, format!("tier {tier:?} is listed twice")));
        }
    }
    if manifest.servers.is_empty() {
        return Err(manifest_error(path, "no `[[servers]]`"));
    }
    let base = path.parent().unwrap_or(Path::new(""));
    let mut servers = Vec::new();
    for server in &manifest.servers {
        let Some(tier) = manifest.tiers.iter().position(|t| *t == server.tier) else {
            return Err(manifest_error(path, format!("server {:?}: tier {:?} is not one of `tiers` {:?}", server.name, server.tier, manifest.tiers)));
        };
        let registry_path = base.join(&server.registry);
        let registry_bytes = std::fs::read(&registry_path).map_err(|source| Error::Io { path: registry_path.clone(), source })?;
        if server.command.as_ref().is_some_and(Vec::is_empty) {
            return Err(manifest_error(path, format!("server {:?}: `command` is empty", server.name)));
        }
        if server.command.is_some() && server.url.is_some() {
            return Err(manifest_error(path, format!("server {:?}: give `command` (stdio) or `url` (Streamable HTTP), not both", server.name)));
        }
        if let Some(url) = &server.url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(manifest_error(path, format!("server {:?}: `url` {url:?} is not an http:// or https:// address", server.name)));
        }
        servers.push(DeploymentServer {
            name: server.name.clone(),
            tier,
            tier_name: server.tier.clone(),
            registry_path,
            registry_bytes,
            command: server.command.clone(),
            url: server.url.clone(),
        });
    }
    let pins = manifest.pins.iter().map(|(t, s)| (t.clone(), s.clone())).collect();
    Ok(Deployment { policy: manifest.policy, servers, pins, shadowing: manifest.shadowing })
}

/// Generates the deployment module for the manifest at `path`.
pub(crate) fn generate(path: &Path, module: &str, options: &CompileOptions, facade: &Facade) -> Result<Generated, Error> {
    let deployment = read_manifest(path)?;
    let mut inputs = vec![path.to_owned()];
    let mut modules = Vec::new();
    let mut contracts = Vec::new();
    let mut quarantined = Vec::new();
    for server in &deployment.servers {
        let contract_name = format!("{module}.{}", server.name);
        let compiled = registry_tokens(&server.registry_bytes, &server.registry_path, &contract_name, options, facade)?;
        modules.push(compiled.tokens);
        quarantined.extend(compiled.quarantined);
        contracts.push((contract_name, compiled.contract));
        inputs.push(server.registry_path.clone());
    }
    let catalog = deployment.catalog(path)?;
    let pins = &deployment.pins;
    let mut warnings = Vec::new();
    for s in catalog.shadowing() {
        let line = format!(
            "{}: tool {:?} of {} is shadowed by lower-tier {}; flat calls to it are rejected (M3), qualified calls are not",
            crate::shown(path),
            s.name,
            s.higher.join(", "),
            s.lower.join(", ")
        );
        if deployment.shadowing == Shadowing::Error {
            return Err(manifest_error(path, format!("{line} (shadowing = \"error\")")));
        }
        warnings.push(line);
    }
    let mut qualified: Vec<String> = catalog.routes().map(|r| catalog.qualified(r).to_owned()).collect();
    qualified.sort_unstable();
    let counts: Vec<usize> = catalog.servers().iter().map(|s| s.tools.len()).collect();
    let tables = Tables { registry: crate::shown(path), qualified, counts };
    let tokens = deployment_tokens(&deployment.servers, modules, pins, deployment.policy, &tables, &facade.private());
    let source = format_file(tokens, path, &format!("deployment of {}, {}", count(deployment.servers.len() as u64, "server"), count(catalog.routes().count() as u64, "tool")))?;
    Ok(Generated { module: module.to_owned(), source, contracts, warnings, inputs, quarantined })
}

/// What the `ToolSet` impl of `McpCall` lists.
struct Tables {
    registry: String,
    qualified: Vec<String>,
    counts: Vec<usize>,
}

/// The deployment module; `rt` is the facade's `__private` support module.
fn deployment_tokens(servers: &[DeploymentServer], modules: Vec<TokenStream>, pins: &[(String, String)], policy: Policy, tables: &Tables, rt: &TokenStream) -> TokenStream {
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
    let tool_refs: Vec<TokenStream> = mods
        .iter()
        .zip(&tables.counts)
        .flat_map(|(m, n)| (0..*n).map(move |i| (m, Literal::usize_unsuffixed(i))))
        .map(|(m, i)| quote!(<#m::ToolCall as #rt::ToolSet>::TOOLS[#i]))
        .collect();
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
                    <Self as #rt::ToolSet>::resolve_with(bytes, &#rt::Options::strict()).map(|r| r.call)
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
