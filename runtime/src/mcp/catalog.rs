//! The merged namespace of a deployment: which server provides which tool, in
//! which trust tier, under which qualified name, and how a call is routed to
//! exactly one `(server, tool)` — or rejected as M1, M2 or M3.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::naming::{qualified_name, valid_server_name};
use crate::canonical::sha256_hex;
use crate::registry::Registry;
use crate::rejection::{Class, Reason, Rejection};

/// How a flat call on a name several same-tier servers provide is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Every flat call with more than one provider is rejected (M2/M3).
    #[default]
    Strict,
    /// A same-tier collision resolves to the server the deployment pinned for
    /// that name; cross-tier shadowing is still rejected (M3).
    PinAssisted,
}

/// One tool a server declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    /// Its name on the server.
    pub name: String,
    /// SHA-256 of its canonical definition (see `registry::ToolDef::digest`).
    pub digest: String,
}

/// One connected server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    /// The host's key for it (not `serverInfo.name`, which servers do not keep unique).
    pub name: String,
    /// Its trust tier: 0 is the most trusted.
    pub tier: usize,
    /// The tier's name (`first-party`, `vetted`, `community`).
    pub tier_name: String,
    /// Its tools, in listing order.
    pub tools: Vec<ToolSpec>,
}

impl ServerSpec {
    /// A server that lists `registry`'s tools (their names and digests).
    pub fn listing(name: &str, tier: usize, tier_name: &str, registry: &Registry) -> ServerSpec {
        let tools = registry.tools.iter().map(|t| ToolSpec { name: t.name.clone(), digest: t.digest() }).collect();
        ServerSpec { name: name.to_owned(), tier, tier_name: tier_name.to_owned(), tools }
    }
}

/// Where a call goes: indices of the server and of its tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Route {
    /// Index of the server in the catalog.
    pub server: usize,
    /// Index of the tool in that server's list.
    pub tool: usize,
}

/// A name declared by servers of different tiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadowing {
    /// The tool name.
    pub name: String,
    /// Qualified names of its providers in the highest tier.
    pub higher: Vec<String>,
    /// Qualified names of the lower-tier providers that shadow them.
    pub lower: Vec<String>,
}

/// Why a deployment cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// A server name outside `[a-zA-Z0-9-]{1,32}`.
    #[error("server name {0:?} must be 1 to 32 ASCII letters, digits or `-`")]
    BadServerName(String),
    /// Two servers with one name.
    #[error("two servers are named {0:?}")]
    DuplicateServer(String),
    /// One server declaring a tool twice.
    #[error("server {server:?} declares tool {tool:?} twice")]
    DuplicateTool {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// Two `(server, tool)` pairs with one qualified name, or a qualified name equal to another tool's flat name.
    #[error("qualified name {name:?} is not unique ({first} and {second})")]
    QualifiedCollision {
        /// The name.
        name: String,
        /// One owner.
        first: String,
        /// The other.
        second: String,
    },
    /// A pin naming a server that is not in the deployment, or one that does not provide the tool.
    #[error("pin {tool:?} -> {server:?}: {why}")]
    BadPin {
        /// The pinned tool.
        tool: String,
        /// The server it is pinned to.
        server: String,
        /// What is wrong.
        why: &'static str,
    },
}

/// The merged namespace of a deployment.
#[derive(Debug, Clone)]
pub struct Catalog {
    servers: Vec<ServerSpec>,
    qualified: Vec<Vec<String>>,
    /// Flat name → providers, most trusted tier first, then by server name.
    by_name: HashMap<String, Vec<Route>>,
    by_qualified: HashMap<String, Route>,
    pins: HashMap<String, usize>,
    policy: Policy,
}

impl Catalog {
    /// Builds and checks a deployment. `pins` maps tool names to the server
    /// that settles a same-tier collision under [`Policy::PinAssisted`].
    pub fn new(servers: Vec<ServerSpec>, pins: &[(String, String)], policy: Policy) -> Result<Catalog, CatalogError> {
        let mut by_name: HashMap<String, Vec<Route>> = HashMap::new();
        let mut by_qualified: HashMap<String, Route> = HashMap::new();
        let mut qualified = Vec::with_capacity(servers.len());
        for (s, server) in servers.iter().enumerate() {
            if !valid_server_name(&server.name) {
                return Err(CatalogError::BadServerName(server.name.clone()));
            }
            if servers[..s].iter().any(|o| o.name == server.name) {
                return Err(CatalogError::DuplicateServer(server.name.clone()));
            }
            let mut names = Vec::with_capacity(server.tools.len());
            for (t, tool) in server.tools.iter().enumerate() {
                if server.tools[..t].iter().any(|o| o.name == tool.name) {
                    return Err(CatalogError::DuplicateTool { server: server.name.clone(), tool: tool.name.clone() });
                }
                let q = qualified_name(&server.name, &tool.name);
                let route = Route { server: s, tool: t };
                if let Some(other) = by_qualified.insert(q.clone(), route) {
                    let first = format!("{}/{}", servers[other.server].name, servers[other.server].tools[other.tool].name);
                    return Err(CatalogError::QualifiedCollision { name: q, first, second: format!("{}/{}", server.name, tool.name) });
                }
                by_name.entry(tool.name.clone()).or_default().push(route);
                names.push(q);
            }
            qualified.push(names);
        }
        for (name, routes) in &by_name {
            if let Some(route) = by_qualified.get(name)
                && !routes.contains(route)
            {
                let owner = &servers[route.server];
                return Err(CatalogError::QualifiedCollision { name: name.clone(), first: format!("{}/{}", owner.name, owner.tools[route.tool].name), second: format!("a tool named {name:?}") });
            }
        }
        for routes in by_name.values_mut() {
            routes.sort_by(|a, b| (servers[a.server].tier, &servers[a.server].name).cmp(&(servers[b.server].tier, &servers[b.server].name)));
        }
        let mut pinned = HashMap::new();
        for (tool, server) in pins {
            let Some(s) = servers.iter().position(|x| x.name == *server) else {
                return Err(CatalogError::BadPin { tool: tool.clone(), server: server.clone(), why: "no such server" });
            };
            if !servers[s].tools.iter().any(|t| t.name == *tool) {
                return Err(CatalogError::BadPin { tool: tool.clone(), server: server.clone(), why: "the server does not provide the tool" });
            }
            pinned.insert(tool.clone(), s);
        }
        Ok(Catalog { servers, qualified, by_name, by_qualified, pins: pinned, policy })
    }

    /// The same deployment under another policy.
    pub fn with_policy(mut self, policy: Policy) -> Catalog {
        self.policy = policy;
        self
    }

    /// The policy in force.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The servers, in manifest order.
    pub fn servers(&self) -> &[ServerSpec] {
        &self.servers
    }

    /// The server of `route`.
    pub fn server(&self, route: Route) -> &ServerSpec {
        &self.servers[route.server]
    }

    /// The tool of `route`.
    pub fn tool(&self, route: Route) -> &ToolSpec {
        &self.servers[route.server].tools[route.tool]
    }

    /// The qualified name of `route`.
    pub fn qualified(&self, route: Route) -> &str {
        &self.qualified[route.server][route.tool]
    }

    /// The server pinned for the flat name `tool`, if any.
    pub fn pin(&self, tool: &str) -> Option<usize> {
        self.pins.get(tool).copied()
    }

    /// The route of `tool` on the server at index `server`.
    pub fn route_to(&self, server: usize, tool: &str) -> Option<Route> {
        let t = self.servers.get(server)?.tools.iter().position(|x| x.name == tool)?;
        Some(Route { server, tool: t })
    }

    /// The route a qualified name stands for.
    pub fn unqualify(&self, qualified: &str) -> Option<Route> {
        self.by_qualified.get(qualified).copied()
    }

    /// Every server providing the flat name `tool`, most trusted first.
    pub fn providers(&self, tool: &str) -> &[Route] {
        self.by_name.get(tool).map_or(&[], Vec::as_slice)
    }

    /// Every `(server, tool)`, in manifest and listing order.
    pub fn routes(&self) -> impl Iterator<Item = Route> + '_ {
        self.servers.iter().enumerate().flat_map(|(s, server)| (0..server.tools.len()).map(move |t| Route { server: s, tool: t }))
    }

    /// Every name that servers of different tiers declare (reported at build time).
    pub fn shadowing(&self) -> Vec<Shadowing> {
        let mut out: Vec<Shadowing> = self
            .by_name
            .iter()
            .filter(|(_, routes)| routes.iter().any(|r| self.servers[r.server].tier != self.servers[routes[0].server].tier))
            .map(|(name, routes)| {
                let top = self.servers[routes[0].server].tier;
                let (higher, lower): (Vec<Route>, Vec<Route>) = routes.iter().partition(|r| self.servers[r.server].tier == top);
                Shadowing { name: name.clone(), higher: higher.iter().map(|r| self.qualified(*r).to_owned()).collect(), lower: lower.iter().map(|r| self.qualified(*r).to_owned()).collect() }
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Routes a call to one `(server, tool)`: `name` is flat (`read_file`) or
    /// qualified (`filesystem__read_file`); `server` pins it explicitly (as
    /// OpenAI `mcp_call` and Anthropic `mcp_tool_use` do). Never by load order.
    pub fn route(&self, name: &str, server: Option<&str>) -> Result<Route, Rejection> {
        if let Some(server) = server {
            let Some(s) = self.servers.iter().position(|x| x.name == server) else {
                return Err(Rejection::routing(Class::M1, Reason::NoProvider { server: Some(server.to_owned()) }, name).with_server(server));
            };
            // A pinned call may name the tool flat or by its qualified name.
            let tool = self.servers[s].tools.iter().position(|t| t.name == name).or_else(|| self.unqualify(name).filter(|r| r.server == s).map(|r| r.tool));
            return match tool {
                Some(t) => Ok(Route { server: s, tool: t }),
                None => Err(Rejection::routing(Class::M1, Reason::NoProvider { server: Some(server.to_owned()) }, name).with_server(server)),
            };
        }
        if let Some(route) = self.unqualify(name) {
            return Ok(route);
        }
        let providers = self.providers(name);
        let Some(first) = providers.first() else {
            return Err(Rejection::routing(Class::M1, Reason::NoProvider { server: None }, name));
        };
        if providers.len() == 1 {
            return Ok(*first);
        }
        let names = || providers.iter().map(|r| self.qualified(*r).to_owned()).collect::<Vec<_>>();
        let top = self.servers[first.server].tier;
        if providers.iter().any(|r| self.servers[r.server].tier != top) {
            return Err(Rejection::routing(Class::M3, Reason::Shadowed { providers: names() }, name));
        }
        if self.policy == Policy::PinAssisted
            && let Some(&pinned) = self.pins.get(name)
            && let Some(route) = providers.iter().find(|r| r.server == pinned)
        {
            return Ok(*route);
        }
        Err(Rejection::routing(Class::M2, Reason::Ambiguous { candidates: names() }, name))
    }

    /// A digest of the whole listing (every qualified name with its tool's
    /// digest): the stamp a host records for the listing it shows the model.
    pub fn stamp(&self) -> String {
        let mut entries: Vec<String> = self.routes().map(|r| format!("{}={}", self.qualified(r), self.tool(r).digest)).collect();
        entries.sort_unstable();
        sha256_hex(entries.join("\n").as_bytes())
    }
}
