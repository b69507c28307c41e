//! What the gateway serves: each server's accepted listing (its pin, or a live
//! listing approved since), what the server lists now, the tools that are M4
//! because of the difference, and — compiled from all of that — the merged
//! deployment calls resolve against and the tool list a client sees.

use std::collections::{HashMap, HashSet};

use rmcp::model::Tool;
use serde_json::{Value, json};
use toolseal_runtime::canonical::sha256_hex;
use toolseal_runtime::dynamic::DynamicDeployment;
use toolseal_runtime::mcp::manifest::{DeploymentServer, ManifestError};
use toolseal_runtime::mcp::{CatalogError, Change, Policy, Route, ServerSpec, diff_listing, qualified_name_within};
use toolseal_runtime::registry::{Registry, RegistryError, read_registry};
use toolseal_runtime::schema::CompileOptions;

/// One listing of a server's tools: the registry calls are checked against and
/// the tool objects as the server (or the pin) wrote them, served unchanged.
#[derive(Debug, Clone)]
pub struct Listing {
    registry: Registry,
    tools: Vec<Value>,
}

impl Listing {
    /// A `tools/list` result's tools.
    pub fn from_tools(tools: Vec<Value>) -> Result<Listing, RegistryError> {
        let registry = Registry::from_listed(&tools)?;
        Ok(Listing { registry, tools })
    }

    /// A registry file's bytes (a `toolseal capture`).
    pub fn from_file(bytes: &[u8]) -> Result<Listing, RegistryError> {
        let registry = read_registry(bytes)?;
        let tools = serde_json::from_slice::<Value>(bytes).ok().and_then(|v| v.get("tools")?.as_array().cloned()).unwrap_or_default();
        Ok(Listing { registry, tools })
    }

    /// The pin of a manifest's server: its registry file.
    pub fn pinned(server: &DeploymentServer) -> Result<Listing, ManifestError> {
        Listing::from_file(&server.registry_bytes).map_err(|source| ManifestError::Registry { path: server.registry_path.clone(), source })
    }

    fn raw(&self, name: &str) -> Option<&Value> {
        self.tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }
}

/// Where a pin came from, in M4 reasons.
const PIN: &str = "its pin";

/// One server's listings: the one calls resolve against (accepted), the
/// newest live one while it differs (pending), and the accepted tools that
/// are M4 because of the difference (stale). The gateway and `toolseal host`
/// keep each server's state in one.
#[derive(Debug, Clone)]
pub struct ServerListing {
    /// The manifest's key for it.
    pub name: String,
    /// Its tier (0 is the most trusted).
    pub tier: usize,
    /// Its tier's name.
    pub tier_name: String,
    accepted: Listing,
    /// Where `accepted` came from, for M4 reasons.
    since: String,
    /// The newest live listing, while it differs from `accepted`.
    pending: Option<Listing>,
    /// How the newest live listing differs from `accepted` (`None` before one was seen).
    changes: Option<Vec<(String, Change)>>,
    /// Tools of `accepted` that are M4, with why.
    stale: HashMap<String, String>,
    /// Why the newest live listing could not be read (every tool is M4 while it stands).
    unreadable: Option<String>,
}

impl ServerListing {
    /// A server whose calls resolve against `accepted` until a live listing is
    /// seen; `since` says where it came from, in M4 reasons ("its capture").
    pub fn new(name: String, tier: usize, tier_name: String, accepted: Listing, since: &str) -> ServerListing {
        ServerListing { name, tier, tier_name, accepted, since: since.to_owned(), pending: None, changes: None, stale: HashMap::new(), unreadable: None }
    }

    /// A manifest's server whose calls resolve against its pin until a live listing is seen.
    pub fn pinned(server: &DeploymentServer) -> Result<ServerListing, ManifestError> {
        Ok(ServerListing::new(server.name.clone(), server.tier, server.tier_name.clone(), Listing::pinned(server)?, PIN))
    }

    /// The registry calls resolve against.
    pub fn accepted(&self) -> &Registry {
        &self.accepted.registry
    }

    /// The accepted tools that are M4, with why.
    pub fn stale(&self) -> &HashMap<String, String> {
        &self.stale
    }

    /// The newest live listing, while it differs from the accepted one.
    pub fn pending(&self) -> Option<&Listing> {
        self.pending.as_ref()
    }

    /// Compares `live` with the accepted listing: changed and removed tools
    /// become M4, added ones stay unknown; returns the differences.
    pub fn observe(&mut self, live: Listing) -> &[(String, Change)] {
        let spec = ServerSpec::listing(&self.name, self.tier, &self.tier_name, &self.accepted.registry);
        let changes = diff_listing(&spec.tools, &live.registry);
        self.stale = changes.iter().filter_map(|(tool, change)| Some((tool.clone(), change.stale_reason(&self.name, tool, &self.since)?))).collect();
        self.pending = changes.iter().any(|(_, c)| *c != Change::Unchanged).then_some(live);
        self.unreadable = None;
        self.changes.insert(changes)
    }

    /// Marks every accepted tool M4 because the live listing could not be read,
    /// until a listing that can be is observed.
    pub fn unreadable(&mut self, why: &str) {
        self.unreadable = Some(why.to_owned());
        self.mark_unreadable();
    }

    fn mark_unreadable(&mut self) {
        if let Some(why) = &self.unreadable {
            self.stale = self.accepted.registry.tools.iter().map(|t| (t.name.clone(), format!("{:?} lists tools that are not a registry: {why}", self.name))).collect();
        }
    }

    /// Takes the pending live listing as accepted; the previous state, to put back if the deployment refuses it.
    pub fn accept(&mut self, since: &str) -> Option<ServerListing> {
        let live = self.pending.take()?;
        let previous = ServerListing { pending: Some(live.clone()), ..self.clone() };
        self.accepted = live;
        self.since = since.to_owned();
        self.stale.clear();
        self.changes = Some(self.accepted.registry.tools.iter().map(|t| (t.name.clone(), Change::Unchanged)).collect());
        Some(previous)
    }

    /// Replaces the accepted listing by a new pin (after `toolseal approve`), then compares the newest live listing with it.
    pub fn repin(&mut self, pin: Listing) {
        let live = self.pending.take().or_else(|| self.changes.is_some().then(|| self.accepted.clone()));
        self.accepted = pin;
        self.since = PIN.to_owned();
        self.stale.clear();
        self.changes = None;
        let unreadable = self.unreadable.take();
        if let Some(live) = live {
            self.observe(live);
        }
        // A live listing that could not be read still stands: the new pin does not make it readable.
        self.unreadable = unreadable;
        self.mark_unreadable();
    }

    /// How the newest live listing differs from the accepted one (`None` before one was seen).
    pub fn changes(&self) -> Option<&[(String, Change)]> {
        self.changes.as_deref()
    }
}

/// Why the accepted listings cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The names, pins or qualified names do not form a deployment.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// A tool object that rmcp cannot read as an MCP tool.
    #[error("server {server:?}, tool {tool:?}: not an MCP tool definition: {source}")]
    NotATool {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// What rmcp's model refused.
        #[source]
        source: serde_json::Error,
    },
    /// The policies do not type-check against the deployment (feature `policy`).
    #[error("the policies do not hold for this deployment:\n{message}")]
    Policy {
        /// Every problem, each with its file, line and column.
        message: String,
    },
    /// Two tools shortened to one served name.
    #[error("two tools are served as {name:?}; raise --name-budget")]
    NameClash {
        /// The name.
        name: String,
    },
}

/// The deployment compiled from the accepted listings, and what clients see.
pub(crate) struct State {
    /// The merged namespace and every tool's compiled schema.
    pub deployment: DynamicDeployment,
    /// Tools that are M4, by route, with why.
    pub stale: HashMap<Route, String>,
    /// The tools a client lists: qualified names, definitions as accepted, quarantined tools left out.
    pub tools: Vec<Tool>,
    /// Served name → route.
    pub served: HashMap<String, Route>,
    /// Route → served name.
    pub names: HashMap<Route, String>,
    /// Routes whose tool declares an `outputSchema` (their rejections carry no `structuredContent`).
    pub typed_output: HashSet<Route>,
    /// SHA-256 of the served tool list: a client is told of a change only when it changes.
    pub digest: String,
    /// The policy gate checked against this deployment (feature `policy`; `None` without policies).
    #[cfg(feature = "policy")]
    pub gate: Option<std::sync::Arc<toolseal_policy::PolicyGate>>,
}

/// How the served listing is named and compiled.
#[derive(Debug, Clone)]
pub(crate) struct Naming {
    /// The manifest's `(tool, server)` pins.
    pub pins: Vec<(String, String)>,
    /// The manifest's policy for flat names.
    pub policy: Policy,
    /// The longest served name.
    pub budget: usize,
}

impl State {
    /// Compiles `servers`' accepted listings.
    pub(crate) fn compile(servers: &[ServerListing], naming: &Naming) -> Result<State, CompileError> {
        let registries: Vec<_> = servers.iter().map(|s| (s.name.clone(), s.tier, s.tier_name.clone(), s.accepted.registry.clone())).collect();
        let deployment = DynamicDeployment::new(&registries, &naming.pins, naming.policy, &CompileOptions::default())?;
        let quarantined: HashSet<(&str, &str)> = deployment.quarantined().map(|(s, t, _)| (s, t)).collect();
        let mut stale = HashMap::new();
        let (mut tools, mut served, mut names, mut typed_output) = (Vec::new(), HashMap::new(), HashMap::new(), HashSet::new());
        for (s, server) in servers.iter().enumerate() {
            for (tool, why) in &server.stale {
                if let Some(route) = deployment.catalog().route_to(s, tool) {
                    stale.insert(route, why.clone());
                }
            }
            for definition in &server.accepted.registry.tools {
                let Some(route) = deployment.catalog().route_to(s, &definition.name) else { continue };
                if quarantined.contains(&(server.name.as_str(), definition.name.as_str())) {
                    continue;
                }
                let name = qualified_name_within(&server.name, &definition.name, naming.budget);
                let mut raw = server.accepted.raw(&definition.name).cloned().unwrap_or_else(|| json!({ "name": definition.name, "inputSchema": { "type": "object" } }));
                raw["name"] = json!(name);
                let tool: Tool = serde_json::from_value(raw).map_err(|source| CompileError::NotATool { server: server.name.clone(), tool: definition.name.clone(), source })?;
                if served.insert(name.clone(), route).is_some() {
                    return Err(CompileError::NameClash { name });
                }
                names.insert(route, name);
                if definition.output_schema.is_some() {
                    typed_output.insert(route);
                }
                tools.push(tool);
            }
        }
        let digest = sha256_hex(serde_json::to_string(&tools).unwrap_or_default().as_bytes());
        Ok(State {
            deployment,
            stale,
            tools,
            served,
            names,
            typed_output,
            digest,
            #[cfg(feature = "policy")]
            gate: None,
        })
    }

    /// Every tool of the deployment as the policy schema sees it: `(qualified name, server, tier, inputSchema)`.
    #[cfg(feature = "policy")]
    pub(crate) fn policy_tools(&self, servers: &[ServerListing]) -> Vec<(String, String, String, Value)> {
        let catalog = self.deployment.catalog();
        catalog
            .routes()
            .map(|route| {
                let (server, tool) = (&servers[route.server], &catalog.tool(route).name);
                let input = server.accepted.registry.tools.iter().find(|t| t.name == *tool).map_or_else(|| json!({ "type": "object" }), |t| t.input_schema.to_value());
                (catalog.qualified(route).to_owned(), server.name.clone(), server.tier_name.clone(), input)
            })
            .collect()
    }
}
