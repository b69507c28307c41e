//! `toolseal host`: a guarded MCP client session. Model replies arrive on
//! stdin (any wire format, one per line); each call is resolved before it is
//! sent — against one server's registry, or routed across a manifest's
//! servers (M1–M5) — only resolved calls are forwarded over rmcp, and each
//! rejection comes back as an `isError` result with its class: the server
//! never sees it.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use toolseal::feedback::mcp_tool_result;
use toolseal::mcp::{McpRequest, Route};
use toolseal::runtime::dynamic::{DynamicDeployment, DynamicRegistry};
use toolseal::runtime::registry::{read_registry, Registry};
use toolseal::runtime::schema::CompileOptions;
use toolseal::wire::{parse_reply, WireCall};
use toolseal::{Class, Options, Reason, Rejection};

use crate::capture::{connect, registry_file, runtime, Client};
use crate::Failure;

/// How calls are resolved and where they go.
enum Router {
    /// One server: its registry, and its tools that changed since it was captured.
    Single { resolver: DynamicRegistry, stale: HashMap<String, String> },
    /// A manifest's servers.
    Merged { deployment: DynamicDeployment, stale: HashMap<Route, String> },
}

/// Where a resolved call goes.
struct Destination {
    client: usize,
    server: Option<String>,
    tool: String,
    arguments: Value,
}

impl Router {
    fn route(&self, call: &WireCall, options: &Options) -> Result<Destination, Rejection> {
        let arguments = call.arguments.as_ref().map_err(Clone::clone)?;
        match self {
            Router::Single { resolver, stale } => {
                let name = call.name.clone().unwrap_or_default();
                if let Some(change) = stale.get(&name) {
                    return Err(Rejection::routing(Class::M4, Reason::Stale { change: change.clone() }, &name));
                }
                resolver.resolve_parts(&name, Some(arguments), &mut options.cx())?;
                Ok(Destination { client: 0, server: None, tool: name, arguments: arguments.to_value() })
            }
            Router::Merged { deployment, stale } => {
                let request = McpRequest::from_wire(call)?;
                let route = deployment.resolve_request_with(&request, options, stale)?;
                let catalog = deployment.catalog();
                Ok(Destination { client: route.server, server: Some(catalog.server(route).name.clone()), tool: catalog.tool(route).name.clone(), arguments: arguments.to_value() })
            }
        }
    }
}

/// Tools of `pinned` whose live definition differs from it, or that the server no longer lists.
fn stale_tools(pinned: &Registry, live: &Registry, what: &str) -> HashMap<String, String> {
    let live: HashMap<&str, String> = live.tools.iter().map(|t| (t.name.as_str(), t.digest())).collect();
    pinned
        .tools
        .iter()
        .filter_map(|t| match live.get(t.name.as_str()) {
            None => Some((t.name.clone(), "the server no longer lists it".to_owned())),
            Some(d) if *d != t.digest() => Some((t.name.clone(), format!("the server changed it since {what} was captured"))),
            Some(_) => None,
        })
        .collect()
}

fn read(path: &Path) -> Result<Registry, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::new(2, format!("cannot read {}: {e}", path.display())))?;
    read_registry(&bytes).map_err(|e| Failure::new(2, format!("{}: {e}", path.display())))
}

async fn single(server: &[String], registry: Option<&Path>, timeout: Duration) -> Result<(Vec<Client>, Router), Failure> {
    let (client, listing) = connect(server, None, timeout).await?;
    let (_, live) = registry_file(&listing)?;
    let (registry, stale) = match registry {
        Some(path) => {
            let pinned = read(path)?;
            let stale = stale_tools(&pinned, &live, &path.display().to_string());
            (pinned, stale)
        }
        None => (live, HashMap::new()),
    };
    let resolver = DynamicRegistry::new(&registry, &CompileOptions::default()).map_err(|(tool, e)| Failure::new(2, format!("tool {tool:?}: {e}")))?;
    Ok((vec![client], Router::Single { resolver, stale }))
}

async fn merged(manifest: &Path, timeout: Duration) -> Result<(Vec<Client>, Router), Failure> {
    let deployment = toolseal_build::read_manifest(manifest).map_err(|e| Failure::new(2, e.to_string()))?;
    let dir = manifest.parent().filter(|d| !d.as_os_str().is_empty());
    let mut clients = Vec::new();
    let mut servers = Vec::new();
    let mut stale = HashMap::new();
    for (s, server) in deployment.servers.iter().enumerate() {
        let Some(command) = &server.command else {
            return Err(Failure::new(2, format!("{}: server {:?} has no `command` to start it with", manifest.display(), server.name)));
        };
        let (client, listing) = connect(command, dir, timeout).await?;
        let (_, live) = registry_file(&listing)?;
        let pinned = read_registry(&server.registry_bytes).map_err(|e| Failure::new(2, format!("{}: {e}", server.registry_path.display())))?;
        for (tool, change) in stale_tools(&pinned, &live, &server.registry_path.display().to_string()) {
            if let Some(t) = pinned.tools.iter().position(|x| x.name == tool) {
                stale.insert(Route { server: s, tool: t }, change);
            }
        }
        clients.push(client);
        servers.push((server.name.clone(), server.tier, server.tier_name.clone(), pinned));
    }
    let deployment = DynamicDeployment::new(&servers, &deployment.pins, deployment.policy, &CompileOptions::default()).map_err(|e| Failure::new(2, format!("{}: {e}", manifest.display())))?;
    Ok((clients, Router::Merged { deployment, stale }))
}

/// Runs `host` with one server (`server`, optionally checked against `registry`) or a manifest's servers.
pub fn run(server: &[String], registry: Option<&Path>, manifest: Option<&Path>, timeout: Duration) -> Result<u8, Failure> {
    let runtime = runtime()?;
    runtime.block_on(async {
        let (clients, router) = match manifest {
            Some(manifest) => merged(manifest, timeout).await?,
            None if server.is_empty() => return Err(Failure::new(2, "give the server command after `--`, or --manifest")),
            None => single(server, registry, timeout).await?,
        };
        let options = Options::strict();
        let (mut forwarded, mut rejected) = (0usize, 0usize);
        let stdout = std::io::stdout();
        for (number, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line.map_err(|e| Failure::new(2, format!("cannot read stdin: {e}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let calls = match parse_reply(line.as_bytes(), &options) {
                Ok(calls) => calls,
                Err(r) => {
                    rejected += 1;
                    writeln!(stdout.lock(), "{}", json!({ "line": number + 1, "forwarded": false, "class": r.class().as_str(), "result": mcp_tool_result(&r) })).ok();
                    continue;
                }
            };
            for call in &calls {
                let mut out = json!({ "line": number + 1 });
                if let Some(id) = &call.id {
                    out["id"] = json!(id);
                }
                match router.route(call, &options) {
                    Ok(to) => {
                        let mut params = CallToolRequestParams::new(to.tool.clone());
                        params.arguments = to.arguments.as_object().cloned();
                        let result = tokio::time::timeout(timeout, clients[to.client].call_tool(params)).await;
                        forwarded += 1;
                        out["forwarded"] = json!(true);
                        out["tool"] = json!(to.tool);
                        if let Some(server) = to.server {
                            out["server"] = json!(server);
                        }
                        out["result"] = match result {
                            Ok(Ok(r)) => serde_json::to_value(r).unwrap_or(Value::Null),
                            Ok(Err(e)) => json!({ "isError": true, "content": [{ "type": "text", "text": format!("the server failed: {e}") }] }),
                            Err(_) => json!({ "isError": true, "content": [{ "type": "text", "text": "the server did not answer in time" }] }),
                        };
                    }
                    Err(r) => {
                        rejected += 1;
                        out["forwarded"] = json!(false);
                        out["class"] = json!(r.class().as_str());
                        if let Some(server) = r.server() {
                            out["server"] = json!(server);
                        }
                        out["result"] = mcp_tool_result(&r);
                    }
                }
                writeln!(stdout.lock(), "{out}").ok();
            }
        }
        for client in clients {
            let _ = client.cancel().await;
        }
        eprintln!("toolseal: {forwarded} calls forwarded, {rejected} rejected before any server");
        Ok(0)
    })
}
