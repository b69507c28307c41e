//! How the command resolves one call of a model reply — against one
//! registry, or routed across a deployment's servers (M1–M5) — shared by
//! `resolve` and `host`.

use std::collections::HashMap;
use std::path::Path;

use toolseal::mcp::{Catalog, McpRequest, Route};
use toolseal::wire::WireCall;
use toolseal::{Class, Coercion, Options, Reason, Rejection};
use toolseal_gateway::Listing;
use toolseal_runtime::dynamic::{DynamicDeployment, DynamicRegistry};
use toolseal_runtime::registry::{Registry, read_registry};
use toolseal_runtime::schema::{CompileOptions, SchemaError};

use crate::Failure;

/// A compiled registry or deployment, and the tools that are M4 in it (with why).
pub(crate) enum Resolver {
    /// One server: its registry, stale tools by name.
    Single { registry: DynamicRegistry, stale: HashMap<String, String> },
    /// A manifest's servers, stale tools by route.
    Merged { deployment: Box<DynamicDeployment>, stale: HashMap<Route, String> },
}

/// Says on stderr which tools are quarantined (server, tool, why): their calls are refused, the others resolve.
pub(crate) fn report_quarantined<'a>(tools: impl Iterator<Item = (Option<&'a str>, &'a str, &'a SchemaError)>) {
    for (server, tool, e) in tools {
        let server = server.map(|s| format!("server {s:?}, ")).unwrap_or_default();
        eprintln!("toolseal: {server}tool {tool:?} is quarantined, every call to it is refused: {e}");
    }
}

/// Where a resolved call goes.
pub(crate) struct Destination {
    /// The server's index (0 for one registry).
    pub server: usize,
    /// The server's name, for a deployment.
    pub server_name: Option<String>,
    /// The tool's name on that server.
    pub tool: String,
    /// Numbers lenient mode read out of strings to resolve it (empty in strict mode).
    pub coercions: Vec<Coercion>,
}

impl Resolver {
    /// One registry, compiled; `stale` tools are M4. A tool whose schema cannot be
    /// enforced is quarantined (reported on stderr), or with `strict` refuses the registry.
    pub(crate) fn single(registry: &Registry, stale: HashMap<String, String>, strict: bool) -> Result<Resolver, String> {
        let registry = if strict {
            DynamicRegistry::strict(registry, &CompileOptions::default()).map_err(|refused| format!("{refused} (--strict refuses the registry; without it the tool is quarantined)"))?
        } else {
            DynamicRegistry::new(registry, &CompileOptions::default())
        };
        report_quarantined(registry.quarantined().map(|(t, e)| (None, t, e)));
        Ok(Resolver::Single { registry, stale })
    }

    /// The quarantined tools: server (for a deployment), tool and why.
    pub(crate) fn quarantined(&self) -> Vec<(Option<&str>, &str, &SchemaError)> {
        match self {
            Resolver::Single { registry, .. } => registry.quarantined().map(|(t, e)| (None, t, e)).collect(),
            Resolver::Merged { deployment, .. } => deployment.quarantined().map(|(s, t, e)| (Some(s), t, e)).collect(),
        }
    }

    /// The server and tool `call` resolves to, or its rejection. A call with no
    /// name is `Malformed` (never an unknown tool named "").
    pub(crate) fn resolve(&self, call: &WireCall, options: &Options) -> Result<Destination, Rejection> {
        let request = McpRequest::from_wire(call)?;
        match self {
            Resolver::Single { registry, stale } => {
                // One registry is one server: a pin (`mcp_call`, `"server"`) is not routed on.
                let name = request.name.as_ref();
                if let Some(why) = stale.get(name) {
                    return Err(Rejection::routing(Class::M4, Reason::Stale { change: why.clone() }, name));
                }
                let mut cx = options.cx();
                registry.resolve_parts(name, request.arguments.as_ref(), &mut cx)?;
                Ok(Destination { server: 0, server_name: None, tool: name.to_owned(), coercions: cx.into_coercions() })
            }
            Resolver::Merged { deployment, stale } => {
                let mut cx = options.cx();
                let route = deployment.resolve_request_in(&request, &mut cx, stale)?;
                Ok(destination(deployment.catalog(), route, cx.into_coercions()))
            }
        }
    }
}

fn destination(catalog: &Catalog, route: Route, coercions: Vec<Coercion>) -> Destination {
    Destination { server: route.server, server_name: Some(catalog.server(route).name.clone()), tool: catalog.tool(route).name.clone(), coercions }
}

/// Reads the file at `path`.
fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::new(2, format!("cannot read {}: {e}", path.display())))
}

/// Reads the registry file at `path`.
pub(crate) fn read_registry_file(path: &Path) -> Result<Registry, Failure> {
    read_registry(&read_file(path)?).map_err(|e| Failure::new(2, format!("{}: {e}", path.display())))
}

/// Reads the registry file at `path` as a server's listing (a capture).
pub(crate) fn read_listing_file(path: &Path) -> Result<Listing, Failure> {
    Listing::from_file(&read_file(path)?).map_err(|e| Failure::new(2, format!("{}: {e}", path.display())))
}
