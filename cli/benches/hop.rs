//! The gateway's hop: the latency one request adds, straight to a server against
//! through `toolseal gateway` (stdio and Streamable HTTP) and through any HTTP peers
//! named on the command line, in one run, side by side.
//!
//! ```text
//! cargo bench -p toolseal-cli --bench hop -- [--calls N] [--rounds R]
//!     [--server 'COMMAND'] [--peer 'NAME=SHELL COMMAND serving {server} on {port} at /mcp']...
//! ```
//!
//! The driver is raw JSON-RPC (no SDK on the client side): over stdio, one line
//! written and the answer's line read; over HTTP, one keep-alive HTTP/1.1
//! connection with one POST per request (the answer read as JSON or as an event
//! stream, whichever the server sends). The server is the standard-library
//! Python server of the command's tests (`tests/servers/tiny_mcp.py`, with its
//! prompt and resource), unless `--server` names another; each request is
//! `tools/call` of `echo`, `prompts/get` of `greet` and `resources/read` of
//! `tiny://readme`. Rounds interleave the targets, so a noisy moment hurts all alike.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The command's test support: the repository root, and `toolseal gateway --http` started and its URL read.
#[path = "../tests/support/mod.rs"]
mod support;

const BIN: &str = env!("CARGO_BIN_EXE_toolseal");
/// The version sessions are initialized with (answers come as event streams).
const VERSION: &str = "2025-06-18";
/// The sessionless version (each request alone; a single answer comes as one JSON body).
const MODERN: &str = "2026-07-28";

/// The requests measured, each a method and its params, as this target names the
/// tool and the prompt (the gateway qualifies them: `tiny__echo`).
fn requests(link: &mut Link) -> Vec<(&'static str, Value)> {
    let tool = link.listed("tools/list", "tools", "echo");
    let prompt = link.listed("prompts/list", "prompts", "greet");
    vec![
        ("tools/call", json!({"name": tool, "arguments": {"text": "hello"}})),
        ("prompts/get", json!({"name": prompt, "arguments": {"name": "Ada"}})),
        ("resources/read", json!({"uri": "tiny://readme"})),
    ]
}

const METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

fn main() {
    let mut calls = 2_000usize;
    let mut rounds = 3usize;
    let mut server = format!("python3 {}", support::root().join("tests/servers/tiny_mcp.py").display());
    let mut peers: Vec<(String, String)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--calls" => calls = args.next().and_then(|n| n.parse().ok()).expect("--calls N"),
            "--rounds" => rounds = args.next().and_then(|n| n.parse().ok()).expect("--rounds R"),
            "--server" => server = args.next().expect("--server COMMAND"),
            "--peer" => {
                let spec = args.next().expect("--peer NAME=COMMAND");
                let (name, command) = spec.split_once('=').expect("--peer NAME=COMMAND");
                peers.push((name.to_owned(), command.to_owned()));
            }
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let work = tempdir();
    let manifest = work.join("hop.toml");
    let words: Vec<String> = server.split_whitespace().map(str::to_owned).collect();
    std::fs::write(
        &manifest,
        format!("tiers = [\"local\"]\n\n[[servers]]\nname = \"tiny\"\ntier = \"local\"\nregistry = \"tiny.json\"\ncommand = {}\nenv = {{ TINY_OFFERS = \"1\" }}\n", json!(words)),
    )
    .expect("manifest written");
    let approved = Command::new(BIN).args(["approve", "tiny", "--manifest"]).arg(&manifest).output().expect("toolseal approve runs");
    assert!(approved.status.success(), "approve: {}", String::from_utf8_lossy(&approved.stderr));

    let server_env = [("TINY_OFFERS", "1")];
    let mut targets: Vec<Target> = vec![
        Target::stdio("straight (stdio)", &words, &server_env),
        Target::stdio("gateway (stdio)", &[BIN.to_owned(), "gateway".into(), "--manifest".into(), manifest.display().to_string()], &[]),
        Target::gateway_http(&manifest, false),
        Target::gateway_http(&manifest, true),
    ];
    for (name, command) in &peers {
        targets.push(Target::peer(name, command, &server, &server_env));
    }

    let requests: Vec<_> = targets.iter_mut().map(|target| requests(&mut target.link)).collect();
    // samples[target][request] in microseconds
    let mut samples: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); METHODS.len()]; targets.len()];
    for (target, requests) in targets.iter_mut().zip(&requests) {
        for (method, params) in requests {
            for _ in 0..50 {
                target.link.request(method, params.clone()); // warm up
            }
        }
    }
    for _ in 0..rounds {
        for (t, target) in targets.iter_mut().enumerate() {
            for (r, (method, params)) in requests[t].iter().enumerate() {
                for _ in 0..calls {
                    let started = Instant::now();
                    target.link.request(method, params.clone());
                    samples[t][r].push(started.elapsed().as_secs_f64() * 1e6);
                }
            }
        }
    }

    println!("hop: latency per request (µs; {rounds} rounds × {calls} requests each, raw JSON-RPC client; server: {})", words.last().map_or("", String::as_str).rsplit('/').next().unwrap_or(""));
    println!("{:<28} {:<15} {:>9} {:>9} {:>12} {:>12}", "target", "request", "p50", "p99", "added p50", "added p99");
    let mut rows = BTreeMap::new();
    for (t, target) in targets.iter().enumerate() {
        for (r, label) in METHODS.iter().enumerate() {
            let (p50, p99) = percentiles(&mut samples[t][r]);
            rows.insert((t, r), (p50, p99));
            let added = if t == 0 { String::from("—") } else { format!("{:>12.1} {:>12.1}", p50 - rows[&(0, r)].0, p99 - rows[&(0, r)].1) };
            if t == 0 {
                println!("{:<28} {:<15} {:>9.1} {:>9.1} {:>12} {:>12}", target.name, label, p50, p99, "—", "—");
            } else {
                println!("{:<28} {:<15} {:>9.1} {:>9.1} {added}", target.name, label, p50, p99);
            }
        }
    }
    drop(targets);
    let _ = std::fs::remove_dir_all(work);
}

fn percentiles(samples: &mut [f64]) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.50), at(0.99))
}

struct Target {
    name: String,
    child: Child,
    link: Link,
}

impl Target {
    fn stdio(name: &str, command: &[String], env: &[(&str, &str)]) -> Target {
        let mut child = Command::new(&command[0]).args(&command[1..]).envs(env.iter().copied()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("the target starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut link = Link::Stdio { stdin, stdout, next: 0 };
        link.initialize();
        Target { name: name.to_owned(), child, link }
    }

    fn gateway_http(manifest: &Path, modern: bool) -> Target {
        let (child, url) = support::http_gateway(manifest, "", &[]);
        let name = if modern { format!("gateway (HTTP, {MODERN})") } else { format!("gateway (HTTP, {VERSION})") };
        Target { name, child, link: Link::http(&url, modern) }
    }

    fn peer(name: &str, command: &str, server: &str, env: &[(&str, &str)]) -> Target {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port();
        let command = command.replace("{port}", &port.to_string()).replace("{server}", server);
        let child =
            Command::new("sh").arg("-c").arg(format!("exec {command}")).envs(env.iter().copied()).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("the peer starts");
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "{name} did not listen on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        Target { name: format!("{name} (HTTP)"), child, link: Link::http(&format!("http://127.0.0.1:{port}/mcp"), false) }
    }
}

/// A target's process ends with it, on a panic too.
impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

enum Link {
    Stdio { stdin: ChildStdin, stdout: BufReader<ChildStdout>, next: u64 },
    Http { stream: BufReader<TcpStream>, host: String, path: String, session: Option<String>, modern: bool, next: u64 },
}

impl Link {
    fn http(url: &str, modern: bool) -> Link {
        let rest = url.strip_prefix("http://").expect("an http:// URL");
        let (host, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
        let stream = TcpStream::connect(host).expect("connects");
        stream.set_nodelay(true).expect("nodelay");
        let mut link = Link::Http { stream: BufReader::new(stream), host: host.to_owned(), path, session: None, modern, next: 0 };
        if !modern {
            link.initialize();
        }
        link
    }

    fn initialize(&mut self) {
        let answer = self.request("initialize", json!({"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "hop", "version": "1"}}));
        assert!(answer.get("result").is_some(), "initialize: {answer}");
        self.notify("notifications/initialized");
    }

    fn notify(&mut self, method: &str) {
        let message = json!({"jsonrpc": "2.0", "method": method}).to_string();
        match self {
            Link::Stdio { stdin, .. } => {
                stdin.write_all(format!("{message}\n").as_bytes()).expect("written");
            }
            Link::Http { .. } => {
                let _ = self.post(method, &Value::Null, &message);
            }
        }
    }

    /// The name in a `list` method's pages (following `nextCursor`) that is `wanted` or ends with `__wanted`.
    fn listed(&mut self, method: &str, key: &str, wanted: &str) -> String {
        let mut cursor = Value::Null;
        loop {
            let params = if cursor.is_null() { json!({}) } else { json!({"cursor": cursor}) };
            let page = self.request(method, params);
            let found = page["result"][key].as_array().into_iter().flatten().filter_map(|item| item["name"].as_str()).find(|name| *name == wanted || name.ends_with(&format!("__{wanted}")));
            if let Some(name) = found {
                return name.to_owned();
            }
            cursor = page["result"]["nextCursor"].clone();
            assert!(!cursor.is_null(), "no {key} named {wanted}");
        }
    }

    /// One request and its answer (the response with its id; notifications skipped).
    fn request(&mut self, method: &str, mut params: Value) -> Value {
        if let Link::Http { modern: true, .. } = self {
            params["_meta"] =
                json!({"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": {"name": "hop", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}});
        }
        let id = match self {
            Link::Stdio { next, .. } | Link::Http { next, .. } => {
                *next += 1;
                *next
            }
        };
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let answer = match self {
            Link::Stdio { stdin, stdout, .. } => {
                stdin.write_all(format!("{message}\n").as_bytes()).expect("written");
                stdin.flush().expect("flushed");
                let mut line = String::new();
                loop {
                    line.clear();
                    assert!(stdout.read_line(&mut line).expect("read") > 0, "the target closed its output");
                    let value: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
                    if value.get("id") == Some(&json!(id)) {
                        break value;
                    }
                }
            }
            Link::Http { .. } => self.post(method, &params, &message).into_iter().find(|v| v.get("id") == Some(&json!(id))).expect("an answer to the request"),
        };
        if method != "initialize" {
            let failed = answer.get("error").is_some() || answer.pointer("/result/isError") == Some(&json!(true));
            assert!(!failed, "{method} failed: {answer}");
        }
        answer
    }

    /// One POST on the kept-alive connection; the JSON-RPC messages of its answer.
    fn post(&mut self, method: &str, params: &Value, body: &str) -> Vec<Value> {
        let Link::Http { stream, host, path, session, modern, .. } = self else { unreachable!("an HTTP link") };
        let mut head = format!("POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n", body.len());
        if let Some(id) = session {
            head += &format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: {VERSION}\r\n");
        }
        if *modern {
            head += &format!("MCP-Protocol-Version: {MODERN}\r\nMcp-Method: {method}\r\n");
            if let Some(name) = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str) {
                head += &format!("Mcp-Name: {name}\r\n");
            }
        }
        head += "\r\n";
        let request = format!("{head}{body}");
        let mut line = String::new();
        // A server may close a connection left idle (uvicorn after 5 s, while other targets run): then it is
        // opened again, as any keep-alive client does (the request was not taken: no status line came).
        let written = stream.get_mut().write_all(request.as_bytes()).is_ok();
        if !written || stream.read_line(&mut line).unwrap_or(0) == 0 {
            let socket = TcpStream::connect(host.as_str()).expect("connects again");
            socket.set_nodelay(true).expect("nodelay");
            *stream = BufReader::new(socket);
            stream.get_mut().write_all(request.as_bytes()).expect("request written");
            line.clear();
            stream.read_line(&mut line).expect("status line");
        }
        let status: u16 = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("an HTTP status");
        let mut length = None;
        let mut chunked = false;
        let mut event_stream = false;
        loop {
            line.clear();
            stream.read_line(&mut line).expect("header");
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').expect("a header");
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "content-type" => event_stream = value.starts_with("text/event-stream"),
                "mcp-session-id" => *session = Some(value.to_owned()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                stream.read_line(&mut line).expect("chunk size");
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16).expect("a chunk size");
                let mut chunk = vec![0; size + 2];
                stream.read_exact(&mut chunk).expect("chunk");
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else if let Some(length) = length {
            body.resize(length, 0);
            stream.read_exact(&mut body).expect("body");
        }
        assert!(status < 300, "HTTP {status}: {}", String::from_utf8_lossy(&body));
        let text = String::from_utf8(body).expect("UTF-8");
        if event_stream {
            text.lines().filter_map(|l| l.strip_prefix("data:")).filter_map(|d| serde_json::from_str(d.trim()).ok()).collect()
        } else if text.trim().is_empty() {
            Vec::new()
        } else {
            vec![serde_json::from_str(&text).expect("a JSON body")]
        }
    }
}

fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolseal-hop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}
