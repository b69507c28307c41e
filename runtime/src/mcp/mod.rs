//! Merged MCP servers: every call resolves to exactly one qualified
//! `(server, tool)` or is rejected with its class — M1 no provider, M2
//! ambiguous within a tier, M3 shadowed across tiers, M4 stale definition,
//! M5 arguments shaped for another server's tool of that name — and then the
//! H1–H3 checks of the routed tool. Nothing is routed by connection order.
//!
//! `toolseal-build` generates an `McpCall` enum from a deployment manifest
//! (`toolseal.toml`) that implements [`McpSet`]; [`McpResolver`] applies the
//! rules, tracks live listings ([`McpResolver::verify_listing`]) and the
//! listing stamp the model saw.

mod catalog;
#[cfg(feature = "manifest")]
pub mod manifest;
mod naming;
#[cfg(feature = "testing")]
pub mod trials;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::RwLock;

use serde::Serialize;

pub use catalog::{Catalog, CatalogError, Policy, Route, ServerSpec, Shadowing, ToolSpec};
pub use naming::{MAX_LEN, MIN_LEN, qualified_name, qualified_name_within, valid_server_name};

use crate::call::{Options, ToolInfo, parse_call};
use crate::check::{Coercion, Cx};
use crate::json::Json;
use crate::path::Path;
use crate::registry::{Registry, RegistryError, read_registry};
use crate::rejection::{Class, Reason, Rejection};
use crate::wire::WireCall;

/// A sealed set of calls over a merged deployment: one variant per server,
/// each holding that server's sealed `ToolCall`. Generated from a manifest.
pub trait McpSet: Sized {
    /// The deployment the set was generated for.
    fn catalog() -> &'static Catalog;
    /// Resolves `arguments` for the tool at `route` (H2/H3 of that signature).
    fn resolve_on(route: Route, arguments: Option<&Json<'_>>, cx: &mut Cx) -> Result<Self, Rejection>;
    /// The `(server, tool)` this call is bound to.
    fn route(&self) -> Route;
    /// The compiled registry metadata of the tool at `route`.
    fn tool_info(route: Route) -> Option<&'static ToolInfo>;
}

/// A call before routing: a name (flat or qualified), an optional server pin, and arguments.
#[derive(Debug, Clone)]
pub struct McpRequest<'a> {
    /// `read_file` or `filesystem__read_file`.
    pub name: Cow<'a, str>,
    /// The server the call pins explicitly (`mcp_call.server_label`, `mcp_tool_use.server_name`).
    pub server: Option<Cow<'a, str>>,
    /// The arguments (absent means `{}`).
    pub arguments: Option<Json<'a>>,
}

impl<'a> McpRequest<'a> {
    /// Reads `{"name": ..., "arguments": {...}}` with an optional `"server"`
    /// pin; any other key, or one twice, is `Malformed`.
    pub fn parse(bytes: &'a [u8], options: &Options) -> Result<McpRequest<'a>, Rejection> {
        let tree = parse_call(bytes, options)?;
        let Json::Object(members) = tree else {
            return Err(Rejection::malformed(Reason::CallNotObject, &Path::root()).with_found(tree.kind()));
        };
        let (mut name, mut server, mut arguments) = (None, None, None);
        for (k, v) in members {
            let bad = || Rejection::malformed(Reason::BadEnvelopeKey { key: k.chars().take(64).collect() }, &Path::root().key(&k));
            let slot = match k.as_ref() {
                "name" => &mut name,
                "server" => &mut server,
                "arguments" => &mut arguments,
                _ => return Err(bad()),
            };
            if slot.is_some() {
                return Err(bad());
            }
            *slot = Some(v);
        }
        let text = |v: Option<Json<'a>>, key: &str, missing: Reason| match v {
            Some(Json::String(s)) => Ok(Some(s)),
            Some(other) if key == "name" => Err(Rejection::malformed(Reason::NameNotString, &Path::root().key(key)).with_found(other.kind())),
            Some(other) => Err(Rejection::malformed(Reason::WireShape { message: format!("\"{key}\" must be a string").into() }, &Path::root().key(key)).with_found(other.kind())),
            None => missing_or_none(missing, key),
        };
        let name = text(name, "name", Reason::MissingName)?.unwrap_or_default();
        let server = text(server, "server", Reason::CallNotObject)?;
        Ok(McpRequest { name, server, arguments: arguments.filter(|a| !matches!(a, Json::Null)) })
    }

    /// The request a vendor's call item makes (its server pin included).
    pub fn from_wire(call: &'a WireCall) -> Result<McpRequest<'a>, Rejection> {
        let arguments = call.arguments.as_ref().map_err(Clone::clone)?;
        let Some(name) = &call.name else {
            return Err(Rejection::malformed(Reason::MissingName, &Path::root().key("name")));
        };
        Ok(McpRequest { name: Cow::Borrowed(name), server: call.server.as_deref().map(Cow::Borrowed), arguments: Some(arguments.clone()) })
    }
}

/// `name` is required; `server` is optional.
fn missing_or_none<T>(missing: Reason, key: &str) -> Result<Option<T>, Rejection> {
    match missing {
        Reason::MissingName => Err(Rejection::malformed(Reason::MissingName, &Path::root().key(key))),
        _ => Ok(None),
    }
}

/// Resolves the arguments of the tool at a route (H2/H3 of its signature).
pub type ResolveOn<'f, T> = dyn Fn(Route, Option<&Json<'_>>, &mut Cx) -> Result<T, Rejection> + 'f;

/// The merged-server rules in one place, for [`McpResolver`], for generated
/// code resolving through the [`ToolSet`](crate::ToolSet) interface, and for
/// deployments compiled at run time: route (M1–M3), freshness (M4, `stale`
/// routes), then the routed tool's signature through `resolve_on` (H2/H3, or
/// M5 when the arguments fit another provider of the name instead).
pub fn resolve_routed<T>(
    catalog: &Catalog,
    stale: &HashMap<Route, String>,
    server: Option<&str>,
    name: &str,
    arguments: Option<&Json<'_>>,
    cx: &mut Cx,
    resolve_on: &ResolveOn<'_, T>,
) -> Result<(T, Route), Rejection> {
    let route = catalog.route(name, server)?;
    let server = &catalog.server(route).name;
    let tool = &catalog.tool(route).name;
    if let Some(change) = stale.get(&route) {
        return Err(Rejection::routing(Class::M4, Reason::Stale { change: change.clone() }, tool).with_server(server));
    }
    match resolve_on(route, arguments, cx) {
        Ok(call) => Ok((call, route)),
        Err(rejection) => {
            let rejection = rejection.with_server(server);
            if !matches!(rejection.class(), Class::H2 | Class::H3) {
                return Err(rejection);
            }
            let fits: Vec<String> = catalog
                .providers(tool)
                .iter()
                .filter(|other| **other != route && resolve_on(**other, arguments, &mut Cx::strict()).is_ok())
                .map(|other| catalog.qualified(*other).to_owned())
                .collect();
            Err(if fits.is_empty() { rejection } else { rejection.other_signature(fits) })
        }
    }
}

/// [`resolve_routed`] for a generated set `M`.
pub fn resolve_in<M: McpSet>(catalog: &Catalog, stale: &HashMap<Route, String>, server: Option<&str>, name: &str, arguments: Option<&Json<'_>>, cx: &mut Cx) -> Result<(M, Route), Rejection> {
    resolve_routed(catalog, stale, server, name, arguments, cx, &M::resolve_on)
}

/// A call routed to one `(server, tool)` and resolved against its signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed<M> {
    /// The call, a member of the sealed merged set.
    pub call: M,
    /// Where it goes.
    pub route: Route,
    /// The server's name.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// Its qualified name.
    pub qualified: String,
    /// Numbers lenient mode read out of strings.
    pub coercions: Vec<Coercion>,
}

/// How one tool of a live listing compares with the compiled definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// Same digest.
    Unchanged,
    /// The definition changed (description, schema, annotations…): calls are M4 until regenerated.
    Changed {
        /// The compiled digest.
        compiled: String,
        /// The live digest.
        live: String,
    },
    /// The server lists a tool the build did not see (not callable until regenerated).
    Added,
    /// The server no longer lists a compiled tool: calls are M4.
    Removed,
}

/// The comparison of a server's live `tools/list` with the compiled definitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListingReport {
    /// The server.
    pub server: String,
    /// Per tool, compiled tools first in listing order, then added ones.
    pub tools: Vec<(String, Change)>,
}

impl ListingReport {
    /// Whether every tool is unchanged.
    pub fn is_clean(&self) -> bool {
        self.tools.iter().all(|(_, c)| *c == Change::Unchanged)
    }
}

/// Why a live listing cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum ListingError {
    /// No server of that name in the deployment.
    #[error("no server {0:?} in the deployment")]
    UnknownServer(String),
    /// The listing is not a `tools/list` result.
    #[error("the listing is not a tools/list result: {0}")]
    Registry(#[from] RegistryError),
}

/// Applies the merged-server rules for the generated set `M`; `Send + Sync`.
pub struct McpResolver<M> {
    catalog: Catalog,
    stale: RwLock<HashMap<Route, String>>,
    options: Options,
    set: PhantomData<fn() -> M>,
}

impl<M: McpSet> Default for McpResolver<M> {
    fn default() -> Self {
        McpResolver::new()
    }
}

impl<M: McpSet> McpResolver<M> {
    /// A resolver with the manifest's policy and strict resolution.
    pub fn new() -> McpResolver<M> {
        McpResolver { catalog: M::catalog().clone(), stale: RwLock::new(HashMap::new()), options: Options::strict(), set: PhantomData }
    }

    /// The same resolver under `policy`.
    pub fn with_policy(mut self, policy: Policy) -> McpResolver<M> {
        self.catalog = self.catalog.with_policy(policy);
        self
    }

    /// Resolution options (size limit, lenient mode).
    pub fn with_options(mut self, options: Options) -> McpResolver<M> {
        self.options = options;
        self
    }

    /// The deployment.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The stamp of the listing this resolver enforces; a host shows the
    /// model this listing and passes the stamp back with its calls.
    pub fn stamp(&self) -> String {
        self.catalog.stamp()
    }

    /// Resolves `{"name", "arguments"[, "server"]}`.
    pub fn resolve(&self, bytes: &[u8]) -> Result<Routed<M>, Rejection> {
        self.resolve_request(&McpRequest::parse(bytes, &self.options)?)
    }

    /// Resolves one call of a vendor reply (its server pin included).
    pub fn resolve_wire(&self, call: &WireCall) -> Result<Routed<M>, Rejection> {
        self.resolve_request(&McpRequest::from_wire(call)?)
    }

    /// Resolves a call the model made from the listing stamped `stamp`: a
    /// listing other than the one enforced makes every call M4.
    pub fn resolve_stamped(&self, request: &McpRequest<'_>, stamp: &str) -> Result<Routed<M>, Rejection> {
        let current = self.stamp();
        if stamp != current {
            let change = format!("the model saw listing {}…, the deployment enforces {}…", &stamp[..12.min(stamp.len())], &current[..12]);
            return Err(Rejection::routing(Class::M4, Reason::Stale { change }, &request.name));
        }
        self.resolve_request(request)
    }

    /// Routes (M1–M3), checks freshness (M4), then the routed tool's
    /// signature (H2/H3, or M5 when the arguments fit another server's tool).
    pub fn resolve_request(&self, request: &McpRequest<'_>) -> Result<Routed<M>, Rejection> {
        let mut cx = if self.options.lenient { Cx::lenient() } else { Cx::strict() };
        let stale = self.stale.read().unwrap_or_else(|p| p.into_inner());
        let (call, route) = resolve_in::<M>(&self.catalog, &stale, request.server.as_deref(), &request.name, request.arguments.as_ref(), &mut cx)?;
        Ok(Routed {
            call,
            route,
            server: self.catalog.server(route).name.clone(),
            tool: self.catalog.tool(route).name.clone(),
            qualified: self.catalog.qualified(route).to_owned(),
            coercions: cx.into_coercions(),
        })
    }

    /// Compares `server`'s live `tools/list` result with the compiled
    /// definitions. Changed and removed tools resolve to M4 from now on (until
    /// a later listing shows them unchanged again); added tools are reported.
    pub fn verify_listing(&self, server: &str, tools_list: &[u8]) -> Result<ListingReport, ListingError> {
        let s = self.catalog.servers().iter().position(|x| x.name == server).ok_or_else(|| ListingError::UnknownServer(server.to_owned()))?;
        let live = read_registry(tools_list)?;
        let report = ListingReport { server: server.to_owned(), tools: diff_listing(&self.catalog.servers()[s].tools, &live) };
        let mut stale = self.stale.write().unwrap_or_else(|p| p.into_inner());
        for (t, (tool, change)) in report.tools.iter().enumerate() {
            let route = Route { server: s, tool: t };
            match change.stale_reason(server, tool, "the build") {
                Some(reason) => stale.insert(route, reason),
                None if *change == Change::Unchanged => stale.remove(&route),
                None => None,
            };
        }
        Ok(report)
    }
}

/// How each tool of `compiled` fares in the `live` listing: the compiled
/// tools first, in their order, then the tools only `live` lists (`Added`).
pub fn diff_listing(compiled: &[ToolSpec], live: &Registry) -> Vec<(String, Change)> {
    let digests: HashMap<&str, String> = live.tools.iter().map(|t| (t.name.as_str(), t.digest())).collect();
    let mut changes: Vec<(String, Change)> = compiled
        .iter()
        .map(|tool| {
            let change = match digests.get(tool.name.as_str()) {
                None => Change::Removed,
                Some(live) if *live != tool.digest => Change::Changed { compiled: tool.digest.clone(), live: live.clone() },
                Some(_) => Change::Unchanged,
            };
            (tool.name.clone(), change)
        })
        .collect();
    let known: HashSet<&str> = compiled.iter().map(|c| c.name.as_str()).collect();
    changes.extend(live.tools.iter().filter(|t| !known.contains(t.name.as_str())).map(|t| (t.name.clone(), Change::Added)));
    changes
}

impl Change {
    /// Why calls to `tool` of `server` are M4 after this change, if they are
    /// (`since` names the listing the definitions were taken from).
    pub fn stale_reason(&self, server: &str, tool: &str, since: &str) -> Option<String> {
        match self {
            Change::Removed => Some(format!("{server:?} no longer lists {tool:?}")),
            Change::Changed { .. } => Some(format!("{server:?} changed {tool:?} since {since}")),
            Change::Unchanged | Change::Added => None,
        }
    }
}
