//! `toolseal host`: a guarded MCP client session. Model replies arrive on
//! stdin (any wire format, one per line); each call is resolved against the
//! server's signature before it is sent, only resolved calls are forwarded
//! over rmcp, and each rejection comes back as an `isError` result with its
//! class — the server never sees it.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use toolseal::feedback::mcp_tool_result;
use toolseal::runtime::dynamic::DynamicRegistry;
use toolseal::runtime::registry::read_registry;
use toolseal::runtime::schema::CompileOptions;
use toolseal::wire::parse_reply;
use toolseal::{Class, Options, Reason, Rejection};

use crate::capture::{connect, registry_file, runtime};
use crate::Failure;

/// Runs `host`.
pub fn run(server: &[String], registry: Option<&Path>, timeout: Duration) -> Result<u8, Failure> {
    let runtime = runtime()?;
    runtime.block_on(async {
        let (client, listing) = connect(server, timeout).await?;
        let (_, live) = registry_file(&listing)?;
        // The registry the calls are resolved against: the checked-in one when
        // given (tools whose live definition differs are stale, M4), else the live listing.
        let (registry, stale) = match registry {
            Some(path) => {
                let bytes = std::fs::read(path).map_err(|e| Failure::new(2, format!("cannot read {}: {e}", path.display())))?;
                let pinned = read_registry(&bytes).map_err(|e| Failure::new(2, format!("{}: {e}", path.display())))?;
                let live_digests: HashMap<&str, String> = live.tools.iter().map(|t| (t.name.as_str(), t.digest())).collect();
                let stale: HashMap<String, String> = pinned
                    .tools
                    .iter()
                    .filter_map(|t| match live_digests.get(t.name.as_str()) {
                        None => Some((t.name.clone(), "the server no longer lists it".to_owned())),
                        Some(d) if *d != t.digest() => Some((t.name.clone(), format!("the server changed it since {} was captured", path.display()))),
                        Some(_) => None,
                    })
                    .collect();
                (pinned, stale)
            }
            None => (live, HashMap::new()),
        };
        let resolver = DynamicRegistry::new(&registry, &CompileOptions::default()).map_err(|(tool, e)| Failure::new(2, format!("tool {tool:?}: {e}")))?;
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
                let name = call.name.clone().unwrap_or_default();
                let verdict = call.arguments.as_ref().map_err(Clone::clone).and_then(|args| {
                    if let Some(change) = stale.get(&name) {
                        return Err(Rejection::routing(Class::M4, Reason::Stale { change: change.clone() }, &name));
                    }
                    resolver.resolve_parts(&name, Some(args), &mut options.cx()).map(|()| args.to_value())
                });
                let mut out = json!({ "line": number + 1 });
                if let Some(id) = &call.id {
                    out["id"] = json!(id);
                }
                match verdict {
                    Ok(arguments) => {
                        let mut params = CallToolRequestParams::new(name.clone());
                        params.arguments = arguments.as_object().cloned();
                        let result = tokio::time::timeout(timeout, client.call_tool(params)).await;
                        forwarded += 1;
                        out["forwarded"] = json!(true);
                        out["tool"] = json!(name);
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
                        out["result"] = mcp_tool_result(&r);
                    }
                }
                writeln!(stdout.lock(), "{out}").ok();
            }
        }
        let _ = client.cancel().await;
        eprintln!("toolseal: {forwarded} calls forwarded, {rejected} rejected before the server");
        Ok(0)
    })
}
