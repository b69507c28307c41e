//! `toolseal capture`: list a stdio MCP server's tools over rmcp and write the
//! registry (sorted, pretty, with per-tool digests), or compare with one.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{json, Value};
use toolseal::mcp::{diff_listing, Change, ServerSpec};
use toolseal::runtime::canonical::canonical_json;
use toolseal::runtime::json::Json;
use toolseal::runtime::registry::{read_registry, Registry, ToolDef};

use crate::Failure;

/// What `initialize` and `tools/list` returned.
pub struct Listing {
    /// `serverInfo` of the `initialize` result.
    pub server_info: Value,
    protocol_version: Value,
    /// The tools, sorted by name.
    pub tools: Vec<Value>,
}

impl Listing {
    /// A listing from its parts.
    pub fn new(server_info: Value, protocol_version: Value, tools: Vec<Value>) -> Listing {
        Listing { server_info, protocol_version, tools }
    }
}

/// A connected client whose notifications `H` handles.
pub type Client<H = ()> = rmcp::service::RunningService<rmcp::RoleClient, H>;

async fn list(server: &[String], timeout: Duration) -> Result<Listing, Failure> {
    let (client, listing) = connect(server, None, timeout, ()).await?;
    let _ = client.cancel().await;
    Ok(listing)
}

/// Starts `server` (in `cwd`, if given) with `handler` for its notifications,
/// completes `initialize` and lists every tool.
pub async fn connect<H: ClientHandler>(server: &[String], cwd: Option<&Path>, timeout: Duration, handler: H) -> Result<(Client<H>, Listing), Failure> {
    let mut command = tokio::process::Command::new(&server[0]);
    command.args(&server[1..]);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    // The server's stderr is its own log; it must not hold this process's stderr open.
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| Failure::new(3, format!("cannot start {:?}: {e}", server[0])))?;
    let client = tokio::time::timeout(timeout, handler.serve(transport))
        .await
        .map_err(|_| Failure::new(5, format!("{:?} did not complete `initialize` within {} s", server[0], timeout.as_secs())))?
        .map_err(|e| Failure::new(4, format!("{:?} did not complete `initialize`: {e}", server[0])))?;
    let info = client.peer_info().map(|i| serde_json::to_value(&*i).unwrap_or(Value::Null)).unwrap_or(Value::Null);
    let tools = list_tools(&client, &server[0], timeout).await?;
    Ok((client, Listing { server_info: info.get("serverInfo").cloned().unwrap_or(Value::Null), protocol_version: info.get("protocolVersion").cloned().unwrap_or(Value::Null), tools }))
}

/// Every tool `client`'s server lists (following `nextCursor`), sorted by name.
pub async fn list_tools<H: ClientHandler>(client: &Client<H>, server: &str, timeout: Duration) -> Result<Vec<Value>, Failure> {
    let tools = tokio::time::timeout(timeout, client.list_all_tools())
        .await
        .map_err(|_| Failure::new(5, format!("{server:?} did not answer `tools/list` within {} s", timeout.as_secs())))?
        .map_err(|e| Failure::new(4, format!("{server:?} failed `tools/list`: {e}")))?;
    let mut tools: Vec<Value> = tools.iter().map(|t| serde_json::to_value(t).unwrap_or(Value::Null)).collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Ok(tools)
}

/// The registry of a `tools/list` result.
pub fn listed_registry(tools: &[Value]) -> Result<Registry, Failure> {
    read_registry(json!({ "tools": tools }).to_string().as_bytes()).map_err(|e| Failure::new(4, format!("the server's listing is not a valid registry: {e}")))
}

/// The registry file for a listing: deterministic, with a digest per tool.
pub fn registry_file(listing: &Listing) -> Result<(String, Registry), Failure> {
    let registry = listed_registry(&listing.tools)?;
    let body = json!({ "serverInfo": listing.server_info, "protocolVersion": listing.protocol_version, "tools": listing.tools });
    let digests: BTreeMap<&str, String> = registry.tools.iter().map(|t| (t.name.as_str(), t.digest())).collect();
    let mut file = body;
    file["digests"] = json!(digests);
    Ok((format!("{}\n", serde_json::to_string_pretty(&file).unwrap_or_default()), registry))
}

/// The parts of two definitions of one tool that differ.
fn differences(old: &ToolDef, new: &ToolDef) -> Vec<&'static str> {
    let canon = |j: Option<&Json<'static>>| j.map(canonical_json);
    let mut parts = Vec::new();
    if old.description != new.description {
        parts.push("description");
    }
    if old.title != new.title {
        parts.push("title");
    }
    if canonical_json(&old.input_schema) != canonical_json(&new.input_schema) {
        parts.push("inputSchema");
    }
    if canon(old.output_schema.as_ref()) != canon(new.output_schema.as_ref()) {
        parts.push("outputSchema");
    }
    if canon(old.annotations.as_ref()) != canon(new.annotations.as_ref()) {
        parts.push("annotations");
    }
    parts
}

/// A single-threaded async runtime for one command.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Failure::new(2, format!("cannot start the async runtime: {e}")))
}

/// Runs `capture`.
pub fn run(server: &[String], out: Option<&Path>, check: Option<&Path>, timeout: Duration) -> Result<u8, Failure> {
    let runtime = runtime()?;
    let listing = runtime.block_on(async {
        let listing = list(server, timeout).await;
        if listing.is_err() {
            // A dropped transport kills its server from a spawned task: let it run.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        listing
    })?;
    let (text, live) = registry_file(&listing)?;
    let Some(check) = check else {
        match out {
            Some(path) => {
                std::fs::write(path, &text).map_err(|e| Failure::new(2, format!("cannot write {}: {e}", path.display())))?;
                eprintln!("toolseal: captured {} tools into {}", live.tools.len(), path.display());
            }
            None => print!("{text}"),
        }
        return Ok(0);
    };
    let bytes = std::fs::read(check).map_err(|e| Failure::new(2, format!("cannot read {}: {e}", check.display())))?;
    let recorded = read_registry(&bytes).map_err(|e| Failure::new(2, format!("{} is not a registry: {e}", check.display())))?;
    let mut drift = Vec::new();
    let definition = |registry: &Registry, name: &str| registry.tools.iter().find(|t| t.name == name).cloned();
    for (name, change) in diff_listing(&ServerSpec::listing("", 0, "", &recorded).tools, &live) {
        match (change, definition(&recorded, &name), definition(&live, &name)) {
            (Change::Removed, ..) => drift.push(format!("removed: {name}")),
            (Change::Changed { .. }, Some(old), Some(new)) => drift.push(format!("changed: {name} ({})", differences(&old, &new).join(", "))),
            (Change::Added, ..) => drift.push(format!("added: {name}")),
            _ => {}
        }
    }
    if drift.is_empty() {
        println!("unchanged: {} tools match {}", live.tools.len(), check.display());
        return Ok(0);
    }
    println!("drift against {}:", check.display());
    for line in &drift {
        println!("  {line}");
    }
    println!("re-capture with `toolseal capture --out {} -- {}` and rebuild", check.display(), server.join(" "));
    Ok(1)
}
