//! `toolseal gateway` end to end: the real command between an rmcp client and
//! stdio MCP servers (`tests/servers/tiny_mcp.py`, Python standard library
//! only) — routing and rejections in their MCP shapes, what reaches the
//! servers (their own logs), drift held until approved, list changes, a crash,
//! a server that never starts, a timeout, HTTP with a bearer token, and
//! concurrent clients. The real npm/PyPI servers and the Python SDK client run
//! in `scripts/check_gateway.sh`.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const BIN: &str = env!("CARGO_BIN_EXE_toolseal");

/// A scratch directory with a manifest of tiny servers, each pinned by `toolseal capture`.
struct Deployment {
    dir: PathBuf,
}

/// One tiny server: its name, tier, the environment it runs with, and the environment it was pinned with.
struct Tiny<'a> {
    name: &'a str,
    tier: &'a str,
    env: &'a [(&'a str, &'a str)],
    pinned_env: &'a [(&'a str, &'a str)],
}

impl<'a> Tiny<'a> {
    fn new(name: &'a str, tier: &'a str) -> Tiny<'a> {
        Tiny { name, tier, env: &[], pinned_env: &[] }
    }
}

impl Deployment {
    fn new(test: &str, servers: &[Tiny<'_>]) -> Deployment {
        let dir = std::env::temp_dir().join(format!("toolseal-gateway-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let script = support::root().join("tests/servers/tiny_mcp.py").to_string_lossy().into_owned();
        let mut manifest = String::from("tiers = [\"first-party\", \"community\"]\n");
        for server in servers {
            let log = dir.join(format!("{}.log", server.name));
            let pin = dir.join(format!("{}.json", server.name));
            let out = Command::new(BIN).args(["capture", "--out"]).arg(&pin).args(["--", "python3", &script, server.name]).envs(server.pinned_env.iter().copied()).output().expect("capture runs");
            assert!(out.status.success(), "capture: {}", String::from_utf8_lossy(&out.stderr));
            let mut command = vec!["env".to_owned(), format!("TINY_LOG={}", log.display())];
            command.extend(server.env.iter().map(|(k, v)| format!("{k}={v}")));
            command.extend(["python3".to_owned(), script.clone(), server.name.to_owned()]);
            manifest += &format!("\n[[servers]]\nname = {:?}\ntier = {:?}\nregistry = {:?}\ncommand = {}\n", server.name, server.tier, format!("{}.json", server.name), json!(command));
        }
        std::fs::write(dir.join("toolseal.toml"), manifest).expect("manifest written");
        Deployment { dir }
    }

    fn manifest(&self) -> PathBuf {
        self.dir.join("toolseal.toml")
    }

    /// The calls server `name` received, as it logged them.
    fn received(&self, name: &str) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default().lines().map(|l| serde_json::from_str(l).expect("a log line")).collect()
    }

    /// `toolseal ARGS --manifest M`: exit code and stdout.
    fn run(&self, args: &[&str]) -> (i32, String) {
        let out = Command::new(BIN).args(args).arg("--manifest").arg(self.manifest()).env_remove("TOOLSEAL_GATEWAY_TOKEN").output().expect("toolseal runs");
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Hears `notifications/tools/list_changed`.
#[derive(Clone)]
struct Listener(mpsc::UnboundedSender<()>);

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

type Client = RunningService<RoleClient, Listener>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// A client of `toolseal gateway --manifest M EXTRA...` over stdio, and its list_changed notifications.
async fn stdio_client(deployment: &Deployment, extra: &[&str]) -> (Client, mpsc::UnboundedReceiver<()>) {
    let mut command = tokio::process::Command::new(BIN);
    command.arg("gateway").arg("--manifest").arg(deployment.manifest()).args(extra);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("the gateway starts");
    let (tx, rx) = mpsc::unbounded_channel();
    let client = tokio::time::timeout(Duration::from_secs(60), Listener(tx).serve(transport)).await.expect("initialize in time").expect("initialize");
    (client, rx)
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    params
}

/// A tool result, or the JSON-RPC error code and data.
async fn call(client: &Client, name: &str, arguments: Value) -> Result<CallToolResult, (i32, Value)> {
    match tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(params(name, arguments))).await.expect("an answer in time") {
        Ok(rmcp::model::CallToolResponse::Complete(result)) => Ok(result),
        Ok(other) => panic!("not a complete result: {other:?}"),
        Err(ServiceError::McpError(e)) => Err((e.code.0, e.data.unwrap_or_default())),
        Err(e) => panic!("transport failure: {e}"),
    }
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("")
}

/// The class a rejection result carries in `structuredContent`.
fn class_of(result: &CallToolResult) -> Option<String> {
    assert_eq!(result.is_error, Some(true), "a rejection is an isError result: {result:?}");
    result.structured_content.as_ref()?.get("class")?.as_str().map(str::to_owned)
}

#[test]
fn resolved_calls_are_forwarded_and_rejections_answered_in_their_mcp_shapes() {
    let deployment = Deployment::new("shapes", &[Tiny::new("a", "first-party"), Tiny::new("b", "first-party")]);
    let audit = deployment.dir.join("audit.jsonl");
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &["--audit", audit.to_str().unwrap()]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["a__add", "a__echo", "a__now", "a__sleep", "a__upper", "b__add", "b__echo", "b__now", "b__sleep", "b__upper"]);
        assert_eq!(tools[1].description.as_deref(), Some("Echo a text."), "definitions as pinned");

        let honest = call(&client, "a__add", json!({ "a": 2, "b": 3 })).await.expect("a result");
        assert_eq!((honest.is_error, text_of(&honest).as_str()), (Some(false), "5"));
        let flat = call(&client, "add", json!({ "a": 2, "b": 3 })).await.expect("a result");
        assert_eq!(class_of(&flat).as_deref(), Some("M2"), "two same-tier providers");
        assert!(text_of(&flat).contains("a__add, b__add"), "{}", text_of(&flat));
        let undeclared = call(&client, "a__add", json!({ "a": 2, "b": 3, "force": true })).await.expect("a result");
        assert_eq!(class_of(&undeclared).as_deref(), Some("H2"));
        assert_eq!(undeclared.structured_content.as_ref().unwrap()["pointer"], "/arguments/force");
        let long = call(&client, "b__echo", json!({ "text": "x".repeat(101) })).await.expect("a result");
        assert_eq!(class_of(&long).as_deref(), Some("H3"), "maxLength 100");
        let missing = call(&client, "b__upper", json!({})).await.expect("a result");
        assert_eq!(class_of(&missing).as_deref(), Some("H2"), "a required key missing");
        let (code, data) = call(&client, "wipe_disk", json!({})).await.expect_err("unknown tool is a protocol error");
        assert_eq!((code, data["class"].as_str()), (-32602, Some("M1")));
        let (code, data) = call(&client, "c__add", json!({ "a": 1, "b": 1 })).await.expect_err("unknown server");
        assert_eq!((code, data["class"].as_str()), (-32602, Some("M1")));
        let upper = call(&client, "b__upper", json!({ "text": "ok" })).await.expect("a result");
        assert_eq!(text_of(&upper), "OK");
        let _ = client.cancel().await;
    });
    // Only resolved calls reached a server, with the arguments the client sent.
    let a = deployment.received("a");
    let b = deployment.received("b");
    assert_eq!(a.len() + b.len(), 2, "a: {a:?}, b: {b:?}");
    assert_eq!((a[0]["name"].as_str(), &a[0]["arguments"]), (Some("add"), &json!({ "a": 2, "b": 3 })));
    assert_eq!(b[0]["name"], "upper");
    // One audit record per call, in order, with how it ended.
    let records: Vec<Value> = std::fs::read_to_string(&audit).expect("audit file").lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let endings: Vec<(&str, Option<&str>)> = records.iter().map(|r| (r["ending"].as_str().unwrap(), r["rejection"]["class"].as_str())).collect();
    assert_eq!(
        endings,
        [
            ("executed", None),
            ("rejected", Some("M2")),
            ("rejected", Some("H2")),
            ("rejected", Some("H3")),
            ("rejected", Some("H2")),
            ("rejected", Some("M1")),
            ("rejected", Some("M1")),
            ("executed", None)
        ]
    );
    assert_eq!(records[0]["tool"], "a__add");
}

#[test]
fn a_listing_that_differs_from_its_pin_is_held_until_approved() {
    let changed = [("TINY_VARIANT", "changed")];
    let deployment = Deployment::new("drift", &[Tiny { env: &changed, ..Tiny::new("a", "first-party") }, Tiny::new("b", "community")]);
    let (code, report) = deployment.run(&["gateway", "--check"]);
    assert_eq!(code, 1, "{report}");
    assert!(report.contains("a: differs from its pin: changed add, changed echo, removed sleep, added zap"), "{report}");
    assert!(report.contains("b: matches its pin"), "{report}");
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &[]).await;
        let names: Vec<String> = client.list_all_tools().await.expect("tools/list").iter().map(|t| t.name.to_string()).collect();
        assert!(names.contains(&"a__sleep".to_owned()) && !names.contains(&"a__zap".to_owned()), "the pin is served: {names:?}");
        let add = call(&client, "a__add", json!({ "a": 1, "b": 2 })).await.expect("a result");
        assert_eq!(class_of(&add).as_deref(), Some("M4"), "the definition changed since the pin");
        let zap = call(&client, "a__zap", json!({})).await.expect_err("not served until approved");
        assert_eq!(zap.0, -32602);
        let upper = call(&client, "a__upper", json!({ "text": "x" })).await.expect("a result");
        assert_eq!(text_of(&upper), "X", "unchanged tools keep serving");
        let _ = client.cancel().await;
    });
    assert_eq!(deployment.received("a").len(), 1, "only the unchanged tool's call reached the server");
    let (code, out) = deployment.run(&["approve", "a"]);
    assert_eq!(code, 0, "{out}");
    let (code, report) = deployment.run(&["gateway", "--check"]);
    assert_eq!(code, 0, "approved: {report}");
}

#[test]
fn a_list_change_mid_session_is_held_or_accepted() {
    let change = [("TINY_CHANGE_AFTER", "1")];
    let deployment = Deployment::new("list-changed", &[Tiny { env: &change, ..Tiny::new("a", "first-party") }]);
    runtime().block_on(async {
        // Held: the served listing stays the pin, changed tools are M4, and the client is not told of a change.
        let (client, mut changes) = stdio_client(&deployment, &[]).await;
        assert_eq!(text_of(&call(&client, "a__echo", json!({ "text": "hi" })).await.expect("a result")), "hi");
        let mut echo = None;
        for _ in 0..100 {
            let result = call(&client, "a__echo", json!({ "text": "hi" })).await.expect("a result");
            if result.is_error == Some(true) {
                echo = Some(result);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(class_of(&echo.expect("echo becomes M4 after the change")).as_deref(), Some("M4"));
        let told = tokio::time::timeout(Duration::from_millis(500), changes.recv()).await;
        assert!(told.is_err(), "what the gateway serves did not change, so the client is not told");
        let _ = client.cancel().await;

        // Accepted: the new listing is served at once and the client is told.
        let (client, mut changes) = stdio_client(&deployment, &["--on-change", "accept"]).await;
        call(&client, "a__echo", json!({ "text": "hi" })).await.expect("a result");
        tokio::time::timeout(Duration::from_secs(30), changes.recv()).await.expect("list_changed in time").expect("list_changed");
        let names: Vec<String> = client.list_all_tools().await.expect("tools/list").iter().map(|t| t.name.to_string()).collect();
        assert!(names.contains(&"a__zap".to_owned()) && !names.contains(&"a__sleep".to_owned()), "{names:?}");
        let echo = call(&client, "a__echo", json!({ "text": "again" })).await.expect("a result");
        assert_eq!(text_of(&echo), "again");
        let _ = client.cancel().await;
    });
}

#[test]
fn a_crash_is_restarted_and_a_silent_or_slow_server_does_not_hold_the_others() {
    let die = [("TINY_DIE_ON", "2")];
    let silent = [("TINY_VARIANT", "silent")];
    let deployment = Deployment::new(
        "faults",
        &[Tiny { env: &die, ..Tiny::new("a", "first-party") }, Tiny { env: &silent, ..Tiny::new("s", "community") }, Tiny::new("b", "community"), Tiny::new("c", "community")],
    );
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &["--timeout", "2"]).await;
        let down = call(&client, "s__add", json!({ "a": 1, "b": 1 })).await.expect("a result");
        assert_eq!(down.is_error, Some(true));
        assert!(text_of(&down).contains("\"s\" is unavailable") || text_of(&down).contains("\"s\" is starting"), "{}", text_of(&down));
        assert_eq!(text_of(&call(&client, "a__add", json!({ "a": 1, "b": 1 })).await.expect("a result")), "2");
        let crashed = call(&client, "a__add", json!({ "a": 1, "b": 2 })).await.expect("a result");
        assert_eq!(crashed.is_error, Some(true), "the call the server died on is answered: {crashed:?}");
        let mut restarted = false;
        for _ in 0..100 {
            let result = call(&client, "a__add", json!({ "a": 2, "b": 2 })).await.expect("a result");
            if result.is_error == Some(false) {
                assert_eq!(text_of(&result), "4");
                restarted = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(restarted, "the server was restarted and serves again");
        // A call the server does not answer in time is answered (and cancelled downstream); other servers keep serving.
        let slow = call(&client, "b__sleep", json!({ "seconds": 4 })).await.expect("a result");
        assert!(text_of(&slow).contains("did not answer") && slow.is_error == Some(true), "{}", text_of(&slow));
        assert_eq!(text_of(&call(&client, "c__upper", json!({ "text": "still" })).await.expect("a result")), "STILL");
        // The server reads the cancellation once its sleep is over.
        let mut cancelled = false;
        for _ in 0..80 {
            if deployment.received("b").iter().any(|l| l.get("cancelled").is_some()) {
                cancelled = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(cancelled, "the timed-out call was cancelled downstream: {:?}", deployment.received("b"));
        let _ = client.cancel().await;
    });
}

/// Starts `toolseal gateway --http 127.0.0.1:0` with `token`; the child and its URL.
fn http_gateway(deployment: &Deployment, token: &str, extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(["gateway", "--http", "127.0.0.1:0", "--manifest"])
        .arg(deployment.manifest())
        .args(extra)
        .env("TOOLSEAL_GATEWAY_TOKEN", token)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gateway starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "the gateway exited before serving");
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, url)
}

/// The status line of a bare `initialize` POST to `url` with `host` as `Host` and `token` as bearer, if any.
fn status(url: &str, host: Option<&str>, token: Option<&str>) -> String {
    let authority = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let mut stream = std::net::TcpStream::connect(&authority).expect("connect");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let host = host.unwrap_or(&authority);
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn http_needs_its_bearer_token_and_serves_concurrent_clients_exactly() {
    let deployment = Deployment::new("http", &[Tiny::new("a", "first-party"), Tiny::new("b", "community")]);
    let (code, out) = deployment.run(&["gateway", "--http", "0.0.0.0:0"]);
    assert_eq!(code, 2, "off loopback without a token: {out}");
    assert!(out.contains("TOOLSEAL_GATEWAY_TOKEN"), "{out}");
    let out = Command::new(BIN).args(["gateway", "--http", "0.0.0.0:0", "--manifest"]).arg(deployment.manifest()).env("TOOLSEAL_GATEWAY_TOKEN", "t").output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "every interface without --allowed-host");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allowed-host"), "{}", String::from_utf8_lossy(&out.stderr));
    let audit = deployment.dir.join("audit.jsonl");
    let (mut child, url) = http_gateway(&deployment, "s3cret", &["--audit", audit.to_str().unwrap()]);
    assert!(status(&url, None, None).contains(" 401 "), "no token: {}", status(&url, None, None));
    assert!(status(&url, None, Some("wrong")).contains(" 401 "), "a wrong token: {}", status(&url, None, Some("wrong")));
    assert!(status(&url, Some("evil.example"), Some("s3cret")).contains(" 403 "), "a Host that is not allowed: {}", status(&url, Some("evil.example"), Some("s3cret")));
    assert!(status(&url, None, Some("s3cret")).contains(" 200 "), "the token and a loopback Host: {}", status(&url, None, Some("s3cret")));
    const CLIENTS: usize = 4;
    const CALLS: usize = 40;
    let answered = runtime().block_on(async {
        let mut tasks = Vec::new();
        for c in 0..CLIENTS {
            let url = url.clone();
            tasks.push(tokio::spawn(async move {
                let _ = rustls::crypto::ring::default_provider().install_default();
                let transport = StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(url).auth_header("s3cret"));
                let client = Listener(mpsc::unbounded_channel().0).serve(transport).await.expect("initialize over HTTP");
                let mut verdicts = Vec::new();
                for i in 0..CALLS {
                    let n = (c * CALLS + i) as i64;
                    let answer = match i % 4 {
                        0 => call(&client, "a__add", json!({ "a": n, "b": 0 })).await.map(|r| text_of(&r)),
                        1 => call(&client, "b__add", json!({ "a": n, "b": "0" })).await.map(|r| class_of(&r).unwrap_or_default()),
                        2 => call(&client, "b__upper", json!({ "text": format!("t{n}"), "shout": true })).await.map(|r| class_of(&r).unwrap_or_default()),
                        _ => call(&client, "a__rm_rf", json!({})).await.map(|r| text_of(&r)),
                    };
                    verdicts.push((n, answer.map_err(|(code, data)| (code, data["class"].as_str().map(str::to_owned)))));
                }
                let _ = client.cancel().await;
                verdicts
            }));
        }
        let mut all = Vec::new();
        for task in tasks {
            all.extend(task.await.expect("client task"));
        }
        all
    });
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(answered.len(), CLIENTS * CALLS, "every call answered once");
    for (n, verdict) in &answered {
        let expected = match n % CALLS as i64 % 4 {
            0 => Ok(n.to_string()),
            1 => Ok("H3".to_owned()),
            2 => Ok("H2".to_owned()),
            _ => Err((-32602, Some("M1".to_owned()))),
        };
        assert_eq!(verdict, &expected, "call {n}");
    }
    // The servers saw exactly the honest calls; one audit record per call.
    let mut received: Vec<i64> = deployment.received("a").iter().map(|c| c["arguments"]["a"].as_i64().expect("a number")).collect();
    received.sort_unstable();
    let mut honest: Vec<i64> = answered.iter().filter(|(n, _)| n % CALLS as i64 % 4 == 0).map(|(n, _)| *n).collect();
    honest.sort_unstable();
    assert_eq!(received, honest);
    assert!(deployment.received("b").is_empty(), "no hallucinated call reached b");
    assert_eq!(std::fs::read_to_string(&audit).expect("audit").lines().count(), CLIENTS * CALLS);
}

#[test]
fn a_name_budget_leaves_room_for_the_clients_prefix() {
    let server = "a-server-with-a-long-name";
    let deployment = Deployment::new("budget", &[Tiny::new(server, "first-party")]);
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &["--name-budget", "24"]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(names.iter().all(|n| n.len() <= 24 && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')), "{names:?}");
        assert!(names.iter().all(|n| n.starts_with("a-server-with")), "readable prefixes: {names:?}");
        // Every served name routes back to its own tool.
        for tool in &tools {
            let arguments = match tool.description.as_deref() {
                Some("Add two integers.") => json!({ "a": 1, "b": 2 }),
                Some("Echo a text." | "Upper-case a text.") => json!({ "text": "t" }),
                Some("Sleep a while.") => json!({ "seconds": 0 }),
                _ => json!({}),
            };
            let result = call(&client, &tool.name, arguments).await.expect("a result");
            assert_eq!(result.is_error, Some(false), "{}: {result:?}", tool.name);
        }
        let _ = client.cancel().await;
    });
    let received: Vec<Value> = deployment.received(server).iter().map(|c| c["name"].clone()).collect();
    assert_eq!(received, [json!("add"), json!("echo"), json!("now"), json!("sleep"), json!("upper")]);
}

#[test]
fn malformed_requests_are_answered_or_dropped_and_the_session_goes_on() {
    let deployment = Deployment::new("malformed", &[Tiny::new("a", "first-party")]);
    let mut child =
        Command::new(BIN).args(["gateway", "--manifest"]).arg(deployment.manifest()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("the gateway starts");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let big = "x".repeat(1 << 20);
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        "this is not JSON".to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a__add","arguments":"not an object"}}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"a__echo","arguments":{{"text":"{big}"}}}}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a__add","arguments":{"a":1,"b":2}}}"#.to_owned(),
    ];
    for line in &lines {
        writeln!(input, "{line}").expect("write");
    }
    let mut answers = std::collections::HashMap::new();
    let mut line = String::new();
    while answers.len() < 4 {
        line.clear();
        assert!(output.read_line(&mut line).expect("read") > 0, "the gateway closed the session; answers so far: {answers:?}");
        let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
        if let Some(id) = message["id"].as_i64() {
            answers.insert(id, message);
        }
    }
    drop(input);
    let _ = child.wait();
    assert!(answers[&2]["error"]["code"].is_i64(), "arguments that are not an object: a JSON-RPC error: {}", answers[&2]);
    assert_eq!(answers[&3]["result"]["isError"], true, "over 1 MiB: {}", answers[&3]);
    assert_eq!(answers[&3]["result"]["structuredContent"]["class"], "Malformed");
    assert_eq!(answers[&4]["result"]["content"][0]["text"], "3", "the session goes on");
    assert_eq!(deployment.received("a").len(), 1, "only the honest call reached the server");
}
