//! What `toolseal gateway` does with each MCP method at each protocol version it
//! speaks to clients — printed as a matrix (`cargo test -p toolseal-cli --test
//! matrix -- --nocapture`) and held to it. A raw JSON-RPC client over stdio (so each
//! version is exactly what is sent), one gateway per version in front of the
//! standard-library test server with its prompts, resources, logging and
//! subscriptions (`tests/servers/tiny_mcp.py`, `TINY_OFFERS=1`), whose own log
//! shows what reached it. Each method is sent honest and, where a client can get
//! it wrong, hallucinated (a name, argument or URI that does not exist); a cell is
//! `resolved` (checked, then forwarded: the server saw it), `answered` (by the
//! gateway from what it holds), `relayed` (a server's request or notification, to
//! the client that caused it), `refused CLASS` (a hallucination, stopped before
//! the server), or `not offered` with the reason.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_toolseal");
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// One gateway over stdio and a raw client of it.
struct Gateway {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    version: &'static str,
    next: u64,
    /// Notifications heard while waiting for answers.
    heard: Vec<Value>,
}

impl Gateway {
    fn start(manifest: &Path, version: &'static str) -> Gateway {
        let mut child = Command::new(BIN).args(["gateway", "--manifest"]).arg(manifest).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("the gateway starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout: ChildStdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(message) = serde_json::from_str(&line)
                    && tx.send(message).is_err()
                {
                    return;
                }
            }
        });
        let mut gateway = Gateway { child, stdin, lines, version, next: 0, heard: Vec::new() };
        if version != "2026-07-28" {
            let capabilities = json!({"sampling": {}, "elicitation": {}});
            let answer = gateway.request("initialize", json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "matrix", "version": "1"}}));
            assert!(answer.get("result").is_some(), "initialize at {version}: {answer}");
            gateway.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        gateway
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("written");
        self.stdin.flush().expect("flushed");
    }

    /// One request and its answer; what the gateway asks meanwhile (sampling, elicitation: requests on
    /// a session, input rounds at 2026-07-28 — the request is sent again with the answers and the
    /// round's `requestState`) is answered as a person and a model would.
    fn request(&mut self, method: &str, mut params: Value) -> Value {
        for _ in 0..4 {
            let answer = self.exchange(method, params.clone());
            let Some(requests) = answer.pointer("/result/inputRequests").and_then(Value::as_object).cloned() else { return answer };
            let mut responses = serde_json::Map::new();
            for (key, request) in requests {
                let response = match request["method"].as_str() {
                    Some("sampling/createMessage") => json!({"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "matrix-model"}),
                    Some("elicitation/create") => json!({"action": "accept", "content": {"answer": "yes"}}),
                    _ => json!({}),
                };
                self.heard.push(json!({"method": request["method"], "round": true}));
                responses.insert(key, response);
            }
            params["inputResponses"] = Value::Object(responses);
            params["requestState"] = answer["result"]["requestState"].clone();
        }
        panic!("{method} at {}: still asking after four input rounds", self.version)
    }

    /// One request (with 2026-07-28's per-request `_meta` at that version) and its answer; the gateway's
    /// requests meanwhile (sampling, elicitation) are answered as a person and a model would.
    fn exchange(&mut self, method: &str, mut params: Value) -> Value {
        if self.version == "2026-07-28" {
            let meta = params.as_object_mut().expect("params").entry("_meta").or_insert_with(|| json!({}));
            meta["io.modelcontextprotocol/protocolVersion"] = json!(self.version);
            meta["io.modelcontextprotocol/clientInfo"] = json!({"name": "matrix", "version": "1"});
            meta["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}, "elicitation": {}});
        }
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.lines.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("{method} at {}: no answer in 30 s", self.version));
            match (message.get("id"), message.get("method").and_then(Value::as_str)) {
                (Some(got), None) if *got == json!(id) => return message,
                (Some(asked), Some("sampling/createMessage")) => {
                    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "matrix-model"});
                    self.send(&json!({"jsonrpc": "2.0", "id": asked, "result": answer}));
                    self.heard.push(message);
                }
                (Some(asked), Some("elicitation/create")) => {
                    self.send(&json!({"jsonrpc": "2.0", "id": asked, "result": {"action": "accept", "content": {"answer": "yes"}}}));
                    self.heard.push(message);
                }
                (Some(asked), Some(_)) => {
                    self.send(&json!({"jsonrpc": "2.0", "id": asked, "error": {"code": -32601, "message": "not here"}}));
                    self.heard.push(message);
                }
                _ => self.heard.push(message),
            }
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A row: the method, its honest params, and a hallucinated form (if a client can name something that is not there).
struct Row {
    label: &'static str,
    method: &'static str,
    honest: Value,
    hallucinated: Option<Value>,
}

fn rows() -> Vec<Row> {
    let row = |label, method, honest, hallucinated| Row { label, method, honest, hallucinated };
    vec![
        row("ping", "ping", json!({}), None),
        row("tools/list", "tools/list", json!({}), None),
        row("tools/call", "tools/call", json!({"name": "a__echo", "arguments": {"text": "hi"}}), Some(json!({"name": "a__echo", "arguments": {"txt": "hi"}}))),
        row("prompts/list", "prompts/list", json!({}), None),
        row("prompts/get", "prompts/get", json!({"name": "a__greet", "arguments": {"name": "ann"}}), Some(json!({"name": "a__greeting", "arguments": {"name": "ann"}}))),
        row("resources/list", "resources/list", json!({}), None),
        row("resources/templates/list", "resources/templates/list", json!({}), None),
        row("resources/read", "resources/read", json!({"uri": "tiny://notes/7"}), Some(json!({"uri": "tiny://secrets"}))),
        row(
            "completion/complete",
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "a__greet"}, "argument": {"name": "name", "value": "an"}}),
            Some(json!({"ref": {"type": "ref/prompt", "name": "a__greet"}, "argument": {"name": "tone", "value": "an"}})),
        ),
        row("logging/setLevel", "logging/setLevel", json!({"level": "info"}), None),
        row("resources/subscribe", "resources/subscribe", json!({"uri": "tiny://readme"}), Some(json!({"uri": "tiny://nowhere"}))),
        row("resources/unsubscribe", "resources/unsubscribe", json!({"uri": "tiny://readme"}), None),
        row("server/discover", "server/discover", json!({}), None),
        row("sampling (server → client)", "tools/call", json!({"name": "a__think", "arguments": {"prompt": "six times seven?"}}), None),
        row("elicitation (server → client)", "tools/call", json!({"name": "a__ask", "arguments": {"question": "go on?"}}), None),
        row("progress (server → client)", "tools/call", json!({"name": "a__sleep", "arguments": {"seconds": 0.3}, "_meta": {"progressToken": "p1"}}), None),
    ]
}

/// The scratch deployment: one tiny server `a` with its offers, pinned by `toolseal approve`.
fn deployment() -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("toolseal-matrix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let log = dir.join("a.log");
    let server = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/servers/tiny_mcp.py"));
    let manifest = dir.join("toolseal.toml");
    let text = format!(
        "tiers = [\"local\"]\n\n[[servers]]\nname = \"a\"\ntier = \"local\"\nregistry = \"a.json\"\ncommand = [\"python3\", {:?}, \"a\"]\nenv = {{ TINY_OFFERS = \"1\", TINY_LOG = {:?} }}\n",
        server.display().to_string(),
        log.display().to_string()
    );
    std::fs::write(&manifest, text).expect("manifest written");
    let approved = Command::new(BIN).args(["approve", "a", "--manifest"]).arg(&manifest).output().expect("approve runs");
    assert!(approved.status.success(), "approve: {}", String::from_utf8_lossy(&approved.stderr));
    (manifest, log)
}

/// What reached the server: one line per request it logged.
fn reached(log: &Path) -> usize {
    std::fs::read_to_string(log).unwrap_or_default().lines().count()
}

#[test]
fn each_method_at_each_protocol_version() {
    let (manifest, log) = deployment();
    let mut cells: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for (v, version) in VERSIONS.into_iter().enumerate() {
        let mut gateway = Gateway::start(&manifest, version);
        for (r, row) in rows().iter().enumerate() {
            let before = (reached(&log), gateway.heard.len());
            let answer = gateway.request(row.method, row.honest.clone());
            let (after, heard) = (reached(&log), gateway.heard[before.1..].to_vec());
            let honest = if let Some(error) = answer.get("error") {
                let why = error["message"].as_str().unwrap_or_default();
                let why = if why.contains("_meta is missing") {
                    "a 2026-07-28 method"
                } else if why.contains("not part of 2026-07-28") || why == row.method {
                    "removed in 2026-07-28"
                } else {
                    why
                };
                format!("not offered ({why})")
            } else if row.label.contains("server → client") {
                let wanted = match row.label {
                    l if l.starts_with("sampling") => "sampling/createMessage",
                    l if l.starts_with("elicitation") => "elicitation/create",
                    _ => "notifications/progress",
                };
                let relayed = heard.iter().any(|m| m["method"] == wanted);
                let text = answer.pointer("/result/content/0/text").and_then(Value::as_str).unwrap_or_default();
                let understood = match wanted {
                    "sampling/createMessage" => text.contains("forty-two"),
                    "elicitation/create" => text.contains("accept"),
                    _ => text == "slept",
                };
                let in_round = heard.iter().any(|m| m["method"] == wanted && m["round"] == true);
                if relayed && understood {
                    // 2026-07-28 asks the client through input rounds (InputRequired results), not requests.
                    if in_round { "relayed in an input round".to_owned() } else { "relayed".to_owned() }
                } else {
                    format!("not relayed: {}", answer["result"])
                }
            } else if after > before.0 {
                "resolved".to_owned()
            } else {
                "answered".to_owned()
            };
            let refused = row.hallucinated.as_ref().filter(|_| !honest.starts_with("not ")).map(|params| {
                let before = reached(&log);
                let answer = gateway.request(row.method, params.clone());
                let class = answer.pointer("/error/data/class").or_else(|| answer.pointer("/result/structuredContent/class")).and_then(Value::as_str).unwrap_or("?").to_owned();
                let stopped = reached(&log) == before;
                match (answer.get("error").is_some() || answer.pointer("/result/isError") == Some(&json!(true)), stopped) {
                    (true, true) => format!("refused {class}"),
                    (true, false) => format!("refused {class} AFTER the server saw it"),
                    (false, _) => "ACCEPTED".to_owned(),
                }
            });
            let cell = match refused {
                Some(refused) => format!("{honest}; {refused}"),
                None => honest,
            };
            cells.insert((r, v), cell);
        }
    }
    let rows = rows();
    let width = rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
    println!("\n{:<width$} | {}", "method", VERSIONS.join(" | "));
    for (r, row) in rows.iter().enumerate() {
        let line: Vec<&str> = (0..VERSIONS.len()).map(|v| cells[&(r, v)].as_str()).collect();
        println!("{:<width$} | {}", row.label, line.join(" | "));
    }
    // Held: every hallucination refused before the server at every version; at the session versions every
    // method is served; at 2026-07-28 only what that version removed is not offered.
    for (r, row) in rows.iter().enumerate() {
        for (v, version) in VERSIONS.iter().enumerate() {
            let cell = &cells[&(r, v)];
            assert!(!cell.contains("ACCEPTED") && !cell.contains("AFTER"), "{} at {version}: {cell}", row.label);
            if row.hallucinated.is_some() && !cell.starts_with("not ") {
                assert!(cell.contains("; refused "), "{} at {version}: {cell}", row.label);
            }
            let expected = match (row.label, *version) {
                ("logging/setLevel" | "resources/subscribe" | "resources/unsubscribe", "2026-07-28") => "not offered (removed in 2026-07-28)",
                ("server/discover", "2025-06-18" | "2025-11-25") => "not offered (a 2026-07-28 method)",
                ("sampling (server → client)" | "elicitation (server → client)", "2026-07-28") => "relayed in an input round",
                _ => "",
            };
            if expected.is_empty() {
                assert!(!cell.starts_with("not "), "{} at {version}: {cell}", row.label);
            } else {
                assert_eq!(cell, expected, "{} at {version}", row.label);
            }
        }
    }
    let _ = std::fs::remove_dir_all(manifest.parent().expect("the scratch directory"));
}
