//! `toolseal host`: a guarded MCP client session. Model replies arrive on
//! stdin (any wire format, one per line); each call is resolved before it is
//! sent — against one server's registry, or routed across a manifest's
//! servers (M1–M5) — only resolved calls are forwarded over rmcp, and each
//! rejection comes back as an `isError` result with its class: the server
//! never sees it.
//!
//! A server's `notifications/tools/list_changed` makes the host list its tools
//! again: tools whose definition changed (or vanished) are M4 and new tools
//! are unknown until the new listing is accepted — by the policy
//! `--on-change accept`, or by the control line
//! `{"toolseal":"accept","server":"NAME"}` on stdin. Accepting recompiles the
//! deployment (its tier rules apply to the new listing) and swaps it in
//! between two calls, so each call is resolved and sent against one listing.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolseal::Options;
use toolseal::feedback::mcp_tool_result;
use toolseal::mcp::{Change, Policy};
use toolseal::wire::{WireCall, parse_reply};
use toolseal_gateway::downstream::{Connection, Transport, list_tools};
use toolseal_gateway::{Listing, ServerListing};
use toolseal_runtime::dynamic::DynamicDeployment;
use toolseal_runtime::schema::CompileOptions;

use crate::Failure;
use crate::capture::{failure, not_a_registry, open, runtime};
use crate::resolve::{read_line, too_large};
use crate::route::{Resolver, read_listing_file};

/// What the host does when a server's listing changes mid-session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnChange {
    /// Changed and removed tools are M4, added ones unknown, until a control line accepts the listing.
    Hold,
    /// Accept the new listing at once (if the deployment still compiles with it).
    Accept,
}

/// Tells the session which server announced `notifications/tools/list_changed`.
#[derive(Clone)]
struct Watch {
    server: usize,
    changes: mpsc::UnboundedSender<usize>,
}

impl ClientHandler for Watch {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(self.server);
    }
}

/// The servers, their clients, and the resolver compiled from their accepted listings.
struct Session {
    servers: Vec<ServerListing>,
    clients: Vec<Connection<Watch>>,
    /// `None` for one server; the manifest's pins and policy for several.
    manifest: Option<(Vec<(String, String)>, Policy)>,
    resolver: Resolver,
    /// Each server's wait (its manifest `timeout`, or `--timeout`).
    timeouts: Vec<Duration>,
}

/// The resolver for the servers' accepted listings, their stale tools M4.
fn compile(servers: &[ServerListing], manifest: Option<&(Vec<(String, String)>, Policy)>) -> Result<Resolver, String> {
    let Some((pins, policy)) = manifest else {
        return Resolver::single(servers[0].accepted(), servers[0].stale().clone(), false);
    };
    let registries: Vec<_> = servers.iter().map(|s| (s.name.clone(), s.tier, s.tier_name.clone(), s.accepted().clone())).collect();
    let deployment = DynamicDeployment::new(&registries, pins, *policy, &CompileOptions::default()).map_err(|e| e.to_string())?;
    let mut stale = HashMap::new();
    for (s, server) in servers.iter().enumerate() {
        for (tool, why) in server.stale() {
            if let Some(route) = deployment.catalog().route_to(s, tool) {
                stale.insert(route, why.clone());
            }
        }
    }
    Ok(Resolver::Merged { deployment: Box::new(deployment), stale })
}

impl Session {
    /// Recompiles the resolver from the accepted listings and their stale tools.
    fn recompile(&mut self) -> Result<(), String> {
        self.resolver = compile(&self.servers, self.manifest.as_ref())?;
        Ok(())
    }

    /// Lists server `s`'s tools again after its `list_changed`; the event line to print.
    async fn relist(&mut self, s: usize, on_change: OnChange) -> Value {
        let name = self.servers[s].name.clone();
        let what = format!("{name:?}");
        let listed = list_tools(self.clients[s].peer(), &what, self.timeouts[s]).await.map_err(|e| failure(e, &what));
        let live = match listed.and_then(|tools| Listing::from_tools(tools).map_err(not_a_registry)) {
            Ok(live) => live,
            Err(f) => return json!({ "event": "tools_list_changed", "server": name, "error": f.message }),
        };
        let changes = self.servers[s].observe(live);
        let names = |kind: fn(&Change) -> bool| changes.iter().filter(|(_, c)| kind(c)).map(|(t, _)| t.as_str()).collect::<Vec<_>>();
        let event = json!({
            "event": "tools_list_changed",
            "server": name,
            "changed": names(|c| matches!(c, Change::Changed { .. })),
            "removed": names(|c| *c == Change::Removed),
            "added": names(|c| *c == Change::Added),
        });
        let outcome = match on_change {
            OnChange::Accept => self.accept(s),
            OnChange::Hold => self.recompile().map(|()| self.servers[s].pending().is_none()),
        };
        with_outcome(event, outcome)
    }

    /// Accepts server `s`'s pending listing: whether the listing in force is now the live one.
    fn accept(&mut self, s: usize) -> Result<bool, String> {
        let Some(previous) = self.servers[s].accept("the host accepted it") else {
            return Ok(true);
        };
        match self.recompile() {
            Ok(()) => Ok(true),
            Err(e) => {
                // The deployment does not compile with it: keep the old listing (its changed tools stay M4).
                self.servers[s] = previous;
                self.recompile()?;
                Err(format!("the new listing was not accepted: {e}"))
            }
        }
    }

    /// Handles a control line `{"toolseal":"accept","server":NAME}`; the event line to print.
    fn control(&mut self, line: &Value) -> Value {
        let server = line.get("server").and_then(Value::as_str);
        let found = match (server, self.servers.len()) {
            (Some(name), _) => self.servers.iter().position(|s| s.name == name),
            (None, 1) => Some(0),
            (None, _) => None,
        };
        let event = json!({ "event": "accept", "server": server.or_else(|| found.map(|s| self.servers[s].name.as_str())) });
        let outcome = match (line.get("toolseal").and_then(Value::as_str), found) {
            (Some("accept"), Some(s)) => self.accept(s),
            (Some("accept"), None) => Err(format!("name one of the servers: {:?}", self.servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>())),
            _ => Err("the only control line is {\"toolseal\":\"accept\",\"server\":NAME}".to_owned()),
        };
        with_outcome(event, outcome)
    }
}

/// `event` with whether the live listing is in force, or why not.
fn with_outcome(mut event: Value, outcome: Result<bool, String>) -> Value {
    match outcome {
        Ok(accepted) => event["accepted"] = json!(accepted),
        Err(e) => {
            event["accepted"] = json!(false);
            event["error"] = json!(e);
        }
    }
    event
}

/// Starts server number `s`: its client, the listing it lists now, and its `serverInfo`.
async fn start(s: usize, transport: &Transport, timeout: Duration, changes: &mpsc::UnboundedSender<usize>) -> Result<(Connection<Watch>, Listing, Option<Value>), Failure> {
    let (client, listing) = open(transport, timeout, Watch { server: s, changes: changes.clone() }).await?;
    let live = Listing::from_tools(listing.tools).map_err(not_a_registry)?;
    Ok((client, live, Some(listing.server_info).filter(Value::is_object)))
}

/// A server whose calls resolve against `accepted` (taken from `since`), compared with `live`.
fn server(name: String, tier: usize, tier_name: String, accepted: Listing, since: &str, live: Listing) -> ServerListing {
    let mut server = ServerListing::new(name, tier, tier_name, accepted, since);
    server.observe(live);
    server
}

async fn single(command: &[String], registry: Option<&Path>, timeout: Duration, changes: &mpsc::UnboundedSender<usize>) -> Result<Session, Failure> {
    let (client, live, info) = start(0, &Transport::command(command.to_vec(), None), timeout, changes).await?;
    let name = info.as_ref().and_then(|i| i.get("name")?.as_str()).unwrap_or(&command[0]).to_owned();
    let (accepted, since) = match registry {
        Some(path) => (read_listing_file(path)?, "its capture"),
        None => (live.clone(), "the session started"),
    };
    let servers = vec![server(name, 0, String::new(), accepted, since, live)];
    let resolver = compile(&servers, None).map_err(|e| Failure::new(2, e))?;
    Ok(Session { servers, clients: vec![client], manifest: None, resolver, timeouts: vec![timeout] })
}

async fn merged(path: &Path, timeout: Duration, changes: &mpsc::UnboundedSender<usize>) -> Result<Session, Failure> {
    let deployment = toolseal_runtime::mcp::manifest::read_manifest_expanded(path).map_err(|e| Failure::new(2, e.to_string()))?;
    let captures = deployment.servers.iter().map(Listing::pinned).collect::<Result<Vec<_>, _>>().map_err(|e| Failure::new(2, e.to_string()))?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let (mut clients, mut servers, mut timeouts) = (Vec::new(), Vec::new(), Vec::new());
    for (s, (pinned, spec)) in captures.into_iter().zip(&deployment.servers).enumerate() {
        let Some(transport) = Transport::of(spec, dir) else {
            return Err(Failure::new(2, format!("{}: server {:?} has no `command` or `url` to reach it by", path.display(), spec.name)));
        };
        let timeout = spec.timeout.unwrap_or(timeout);
        let (client, live, _) = start(s, &transport, timeout, changes).await?;
        clients.push(client);
        servers.push(server(spec.name.clone(), spec.tier, spec.tier_name.clone(), pinned, "its capture", live));
        timeouts.push(timeout);
    }
    let manifest = Some((deployment.pins, deployment.policy));
    let resolver = compile(&servers, manifest.as_ref()).map_err(|e| Failure::new(2, format!("{}: {e}", path.display())))?;
    Ok(Session { servers, clients, manifest, resolver, timeouts })
}

/// Reads stdin on a thread of its own, so that notifications are handled while
/// the host waits for input; each line with its full length, at most `limit + 1` bytes kept.
fn stdin_lines(limit: usize) -> mpsc::Receiver<std::io::Result<(usize, Vec<u8>)>> {
    let (tx, rx) = mpsc::channel(16);
    std::thread::spawn(move || {
        let mut input = std::io::stdin().lock();
        loop {
            let mut buf = Vec::new();
            let line = match read_line(&mut input, &mut buf, limit) {
                Ok(None) => break,
                Ok(Some(length)) => Ok((length, buf)),
                Err(e) => Err(e),
            };
            if tx.blocking_send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The host's own instruction, if `line` is one (an object with a `"toolseal"` key) rather than a model reply.
fn control_line(line: &str) -> Option<Value> {
    if !line.contains("\"toolseal\"") {
        return None;
    }
    serde_json::from_str::<Value>(line).ok().filter(|v| v.get("toolseal").is_some())
}

/// Resolves and forwards one call; the line to print.
async fn call(session: &Session, call: &WireCall, options: &Options, line: usize, counts: &mut (usize, usize)) -> Value {
    let mut out = json!({ "line": line });
    if let Some(id) = &call.id {
        out["id"] = json!(id);
    }
    match session.resolver.resolve(call, options) {
        Ok(to) => {
            let mut params = CallToolRequestParams::new(to.tool.clone());
            params.arguments = match call.arguments.as_ref().map(|a| a.to_value()) {
                Ok(Value::Object(arguments)) => Some(arguments),
                _ => None,
            };
            let result = tokio::time::timeout(session.timeouts[to.server], session.clients[to.server].call_tool(params)).await;
            counts.0 += 1;
            out["forwarded"] = json!(true);
            out["tool"] = json!(to.tool);
            if let Some(server) = to.server_name {
                out["server"] = json!(server);
            }
            out["result"] = match result {
                Ok(Ok(r)) => serde_json::to_value(r).unwrap_or(Value::Null),
                Ok(Err(e)) => json!({ "isError": true, "content": [{ "type": "text", "text": format!("the server failed: {e}") }] }),
                Err(_) => json!({ "isError": true, "content": [{ "type": "text", "text": "the server did not answer in time" }] }),
            };
        }
        Err(r) => {
            counts.1 += 1;
            out["forwarded"] = json!(false);
            out["class"] = json!(r.class().as_str());
            if let Some(server) = r.server() {
                out["server"] = json!(server);
            }
            out["result"] = mcp_tool_result(&r);
        }
    }
    out
}

/// Runs `host` with one server (`server`, optionally checked against `registry`) or a manifest's servers.
pub(crate) fn run(server: &[String], registry: Option<&Path>, manifest: Option<&Path>, timeout: Duration, on_change: OnChange) -> Result<u8, Failure> {
    let runtime = runtime()?;
    runtime.block_on(async {
        let (changes, mut changed) = mpsc::unbounded_channel();
        let mut session = match manifest {
            Some(manifest) => merged(manifest, timeout, &changes).await?,
            None if server.is_empty() => return Err(Failure::new(2, "give the server command after `--`, or --manifest")),
            None => single(server, registry, timeout, &changes).await?,
        };
        let options = Options::strict();
        let mut counts = (0usize, 0usize);
        let print = |value: Value| writeln!(std::io::stdout().lock(), "{value}").ok();
        let mut lines = stdin_lines(options.max_bytes);
        let mut number = 0;
        loop {
            // A listing change is taken in before the next line is resolved.
            let line = tokio::select! {
                biased;
                Some(s) = changed.recv() => {
                    // Several notifications in a row need one listing per server.
                    let mut servers = std::collections::BTreeSet::from([s]);
                    while let Ok(s) = changed.try_recv() {
                        servers.insert(s);
                    }
                    for s in servers {
                        print(session.relist(s, on_change).await);
                    }
                    continue;
                }
                line = lines.recv() => line,
            };
            let Some(line) = line else { break };
            let (length, line) = line.map_err(|e| Failure::new(2, format!("cannot read stdin: {e}")))?;
            number += 1;
            if length > options.max_bytes {
                // Over the limit: rejected from its length alone; the bytes were not kept.
                counts.1 += 1;
                let r = too_large(length, &options);
                print(json!({ "line": number, "forwarded": false, "class": r.class().as_str(), "result": mcp_tool_result(&r) }));
                continue;
            }
            let Ok(line) = String::from_utf8(line) else {
                return Err(Failure::new(2, format!("line {number} of stdin is not UTF-8")));
            };
            if line.trim().is_empty() {
                continue;
            }
            if let Some(control) = control_line(&line) {
                print(session.control(&control));
                continue;
            }
            match parse_reply(line.as_bytes(), &options) {
                Ok(calls) => {
                    for c in &calls {
                        print(call(&session, c, &options, number, &mut counts).await);
                    }
                }
                Err(r) => {
                    counts.1 += 1;
                    print(json!({ "line": number, "forwarded": false, "class": r.class().as_str(), "result": mcp_tool_result(&r) }));
                }
            }
        }
        for client in session.clients {
            let _ = client.cancel().await;
        }
        eprintln!("toolseal: {} calls forwarded, {} rejected before any server", counts.0, counts.1);
        Ok(0)
    })
}
