//! `toolseal capture`: list an MCP server's tools over rmcp (a command over stdio,
//! or a Streamable HTTP URL with its headers) and write the registry (sorted,
//! pretty, with per-tool digests), or compare with one.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rmcp::ClientHandler;
use serde_json::json;
use toolseal::mcp::{Change, ServerSpec, diff_listing};
use toolseal_gateway::downstream::{Capture, Connection, DownstreamError, Step, Transport, connect};
use toolseal_runtime::canonical::canonical_json;
use toolseal_runtime::json::Json;
use toolseal_runtime::mcp::manifest::{Secrets, expand_template};
use toolseal_runtime::registry::{Registry, RegistryError, ToolDef, read_registry};

use crate::Failure;

/// The command's exit code and message for `e`, naming the server `what`:
/// 3 it did not start, 4 it did not complete a step, 5 it did not answer in time.
pub(crate) fn failure(e: DownstreamError, what: &str) -> Failure {
    match e {
        DownstreamError::Start { source, .. } => Failure::new(3, format!("cannot start {what}: {source}")),
        DownstreamError::Timeout { step, secs, .. } => Failure::new(5, format!("{what} did not {step} within {secs} s")),
        DownstreamError::Protocol { step: Step::Initialize, message, .. } => Failure::new(4, format!("{what} did not complete `initialize`: {message}")),
        DownstreamError::Protocol { step: Step::ListTools, message, .. } => Failure::new(4, format!("{what} failed `tools/list`: {message}")),
        DownstreamError::Protocol { step: Step::ListPrompts, message, .. } => Failure::new(4, format!("{what} failed `prompts/list`: {message}")),
    }
}

/// The server `capture` lists.
pub(crate) enum Target {
    /// A command started over stdio, its program first.
    Command(Vec<String>),
    /// A Streamable HTTP endpoint and the `--header` arguments, `Name: value` (templates, unexpanded).
    Http {
        /// The URL.
        url: String,
        /// The headers as given.
        headers: Vec<String>,
    },
}

impl Target {
    /// How to reach it: each header's value expanded from this process's environment.
    /// An error names the header, never a value.
    fn transport(&self) -> Result<Transport, Failure> {
        match self {
            Target::Command(argv) => Ok(Transport::command(argv.clone(), None)),
            Target::Http { url, headers } => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(Failure::new(2, format!("--url takes an http:// or https:// URL, not {url:?}")));
                }
                let lookup = |var: &str| std::env::var(var).ok();
                let mut expanded = Secrets::new();
                for (i, header) in headers.iter().enumerate() {
                    let Some((name, value)) = header.split_once(':').map(|(n, v)| (n.trim(), v.trim())).filter(|(n, _)| !n.is_empty() && !n.contains(char::is_whitespace)) else {
                        return Err(Failure::new(2, format!("--header number {} is not `Name: value` (its text is not shown: it may hold a secret)", i + 1)));
                    };
                    let value = expand_template(value, &lookup).map_err(|e| Failure::new(2, format!("--header {name:?}: {e}")))?;
                    expanded.insert(name, value);
                }
                Ok(Transport::Http { url: url.clone(), headers: expanded, oauth: None })
            }
        }
    }

    /// The command line that captures it again into `file`, headers shown by name only.
    fn again(&self, file: &Path) -> String {
        match self {
            Target::Command(argv) => format!("toolseal capture --out {} -- {}", file.display(), argv.join(" ")),
            Target::Http { url, headers } => {
                let names: String = headers.iter().filter_map(|h| h.split_once(':')).map(|(n, _)| format!(" --header '{}: …'", n.trim())).collect();
                format!("toolseal capture --out {} --url {url}{names}", file.display())
            }
        }
    }
}

async fn list(transport: &Transport, timeout: Duration) -> Result<Capture, Failure> {
    let (client, listing) = open(transport, timeout, ()).await?;
    let _ = client.cancel().await;
    Ok(listing)
}

/// Starts or reaches the server at `transport` with `handler` for its
/// notifications, completes `initialize` and lists every tool. Errors name its
/// program or URL, never its environment or headers.
pub(crate) async fn open<H: ClientHandler>(transport: &Transport, timeout: Duration, handler: H) -> Result<(Connection<H>, Capture), Failure> {
    let what = match transport {
        Transport::Command { argv, .. } => format!("{:?}", argv.first().map_or("", String::as_str)),
        other => other.describe(),
    };
    let client = connect(transport, handler, timeout).await.map_err(|e| failure(e, &what))?;
    let listing = Capture::list(&client, &what, timeout).await.map_err(|e| failure(e, &what))?;
    Ok((client, listing))
}

/// The failure of a server whose tools are not a registry.
pub(crate) fn not_a_registry(e: RegistryError) -> Failure {
    Failure::new(4, format!("the server's listing is not a valid registry: {e}"))
}

/// The registry file for a listing: deterministic, with a digest per tool.
pub(crate) fn registry_file(listing: &Capture) -> Result<(String, Registry), Failure> {
    let registry = Registry::from_listed(&listing.tools).map_err(not_a_registry)?;
    let body = json!({ "serverInfo": listing.server_info, "protocolVersion": listing.protocol_version, "tools": listing.tools });
    let digests: BTreeMap<&str, String> = registry.tools.iter().map(|t| (t.name.as_str(), t.digest())).collect();
    let mut file = body;
    file["digests"] = json!(digests);
    // Prompts are pinned too: the gateway serves these definitions and refuses one the server has changed since (M4).
    if let Some(prompts) = listing.prompts.as_ref().filter(|p| !p.is_empty()) {
        file["prompts"] = json!(prompts);
    }
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
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Failure::new(2, format!("cannot start the async runtime: {e}")))
}

/// Runs `capture`.
pub(crate) fn run(target: &Target, out: Option<&Path>, check: Option<&Path>, timeout: Duration) -> Result<u8, Failure> {
    let transport = target.transport()?;
    let runtime = runtime()?;
    let listing = runtime.block_on(async {
        let listing = list(&transport, timeout).await;
        if listing.is_err() {
            // A dropped transport kills its server from a spawned task: let it run.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        listing
    });
    let listing = listing.map_err(|mut f| {
        if matches!(target, Target::Http { .. }) && f.message.contains("Auth required") {
            f.message.push_str(" (the server wants credentials: pass them with --header, e.g. 'Authorization: Bearer ${TOKEN}' with TOKEN set)");
        }
        f
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
    println!("re-capture with `{}` and rebuild", target.again(check));
    Ok(1)
}
