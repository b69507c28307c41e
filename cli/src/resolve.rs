//! `toolseal resolve`: one model reply per line on stdin, one verdict per call
//! on stdout. Lines are read in bounded memory: a line over the size limit is
//! rejected without being kept.

use std::collections::HashMap;
use std::io::{BufRead, BufWriter, Write};
use std::path::Path;

use serde_json::{Value, json};
use toolseal::wire::{WireCall, parse_reply};
use toolseal::{Options, Reason, Rejection};
use toolseal_runtime::path::Path as JsonPath;
use toolseal_runtime::schema::CompileOptions;

use crate::Failure;
use crate::route::{Destination, Resolver, read_registry_file, report_quarantined};

fn load(registry: Option<&Path>, manifest: Option<&Path>, strict: bool) -> Result<Resolver, Failure> {
    if let Some(path) = registry {
        return Resolver::single(&read_registry_file(path)?, HashMap::new(), strict).map_err(|e| Failure::new(2, format!("{}: {e}", path.display())));
    }
    let path = manifest.ok_or_else(|| Failure::new(2, "give --registry or --manifest"))?;
    let deployment = toolseal_runtime::mcp::manifest::read_manifest(path).map_err(|e| Failure::new(2, e.to_string()))?;
    let compiled = deployment.compile_dynamic(path, &CompileOptions::default()).map_err(|e| Failure::new(2, e.to_string()))?;
    let resolver = Resolver::Merged { deployment: Box::new(compiled), stale: HashMap::new() };
    let quarantined = resolver.quarantined();
    if strict && let Some((server, tool, e)) = quarantined.first() {
        let server = server.map(|s| format!("server {s:?}, ")).unwrap_or_default();
        return Err(Failure::new(2, format!("{}: {server}tool {tool:?}: {e} (--strict refuses the deployment; without it the tool is quarantined)", path.display())));
    }
    report_quarantined(quarantined.into_iter());
    Ok(resolver)
}

fn verdict(line: usize, call: Option<&WireCall>, outcome: Result<Destination, Rejection>) -> Value {
    let mut v = json!({ "line": line });
    if let Some(call) = call {
        if let Some(id) = &call.id {
            v["id"] = json!(id);
        }
        if call.index > 0 {
            v["index"] = json!(call.index);
        }
    }
    match outcome {
        Ok(Destination { tool, server_name, coercions, .. }) => {
            v["verdict"] = json!("accept");
            v["tool"] = json!(tool);
            if let Some(server) = server_name {
                v["server"] = json!(server);
            }
            if !coercions.is_empty() {
                // What lenient mode read out of strings: `{"pointer", "text"}` each.
                v["coercions"] = json!(coercions);
            }
        }
        Err(r) => {
            v["verdict"] = json!("reject");
            v["class"] = json!(r.class().as_str());
            v["pointer"] = json!(r.pointer());
            v["message"] = json!(r.to_string());
            if let Some(server) = r.server() {
                v["server"] = json!(server);
            }
        }
    }
    v
}

/// The rejection of a line of `size` bytes, over the limit.
pub(crate) fn too_large(size: usize, options: &Options) -> Rejection {
    Rejection::malformed(Reason::TooLarge { size, limit: options.max_bytes }, &JsonPath::root())
}

/// Reads one line into `buf`, keeping at most `limit + 1` bytes; returns the
/// line's full length, or `None` at the end of input.
pub(crate) fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, limit: usize) -> std::io::Result<Option<usize>> {
    buf.clear();
    let mut total = 0;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok((total > 0).then_some(total));
        }
        let (used, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let content = if done { &chunk[..used - 1] } else { chunk };
        let room = (limit + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&content[..content.len().min(room)]);
        total += content.len();
        input.consume(used);
        if done {
            return Ok(Some(total));
        }
    }
}

/// Runs `resolve`.
pub(crate) fn run(registry: Option<&Path>, manifest: Option<&Path>, lenient: bool, strict: bool) -> Result<u8, Failure> {
    let resolver = load(registry, manifest, strict)?;
    let options = if lenient { Options::lenient() } else { Options::strict() };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut buf = Vec::new();
    let mut number = 0;
    let write_err = |e: std::io::Error| Failure::new(2, format!("cannot write: {e}"));
    while let Some(length) = read_line(&mut input, &mut buf, options.max_bytes).map_err(|e| Failure::new(2, format!("cannot read stdin: {e}")))? {
        number += 1;
        if buf.iter().all(u8::is_ascii_whitespace) && length == buf.len() {
            continue;
        }
        let verdicts: Vec<Value> = if length > options.max_bytes {
            // Over the limit: rejected from its length alone; the bytes were not kept.
            vec![verdict(number, None, Err(too_large(length, &options)))]
        } else {
            match parse_reply(&buf, &options) {
                Err(r) => vec![verdict(number, None, Err(r))],
                Ok(calls) if calls.is_empty() => vec![json!({ "line": number, "verdict": "no_calls" })],
                Ok(calls) => calls.iter().map(|c| verdict(number, Some(c), resolver.resolve(c, &options))).collect(),
            }
        };
        for v in verdicts {
            serde_json::to_writer(&mut out, &v).map_err(|e| write_err(e.into()))?;
            out.write_all(b"\n").map_err(write_err)?;
        }
    }
    out.flush().map_err(write_err)?;
    Ok(0)
}
