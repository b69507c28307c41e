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
async fn call<H: ClientHandler>(client: &RunningService<RoleClient, H>, name: &str, arguments: Value) -> Result<CallToolResult, (i32, Value)> {
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
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "s3cret", &["--audit", audit.to_str().unwrap()]);
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

// Issue 36, "no door left open": Origin on every HTTP request, no `initialize` on a live session, a body that is not
// JSON answered -32700, a connection that never finishes its headers closed.

/// A bare `initialize` request.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// One HTTP/1.1 exchange with the gateway at `url` (`Connection: close`, a 30 s bound): the status code, the
/// response headers (names in lower case) and the body as sent.
fn exchange(url: &str, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, Vec<(String, String)>, String) {
    let authority = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let mut stream = std::net::TcpStream::connect(&authority).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("a read timeout");
    let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += "\r\n";
    request += body;
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|c| c.parse().ok()).unwrap_or(0);
    let headers = lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned())).collect();
    (status, headers, body.to_owned())
}

fn header_of<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// A JSON-RPC error answered over HTTP: 400, `application/json`, the error object.
fn jsonrpc_error_of(answer: &(u16, Vec<(String, String)>, String)) -> Value {
    let (status, headers, body) = answer;
    assert_eq!(*status, 400, "{answer:?}");
    assert!(header_of(headers, "content-type").is_some_and(|t| t.starts_with("application/json")), "{answer:?}");
    let message: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("a JSON body ({e}): {answer:?}"));
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    message
}

#[test]
fn http_answers_403_to_an_origin_it_does_not_allow() {
    let deployment = Deployment::new("origin", &[Tiny::new("a", "first-party")]);
    for bad in ["null", "http://app.example/path", "ftp://app.example", "http://user@app.example"] {
        let (code, out) = deployment.run(&["gateway", "--http", "127.0.0.1:0", "--allowed-origin", bad]);
        assert_eq!(code, 2, "--allowed-origin {bad}: {out}");
        assert!(out.contains("--allowed-origin"), "{out}");
    }
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "s3cret", &["--allowed-origin", "https://App.Example:8443", "--allowed-origin", "http://tool.example"]);
    let port: u16 = url.trim_start_matches("http://127.0.0.1:").split('/').next().unwrap().parse().expect("a port");
    let other = port.checked_add(1).unwrap_or(port - 1);
    let post = |origin: Option<&str>, token: Option<&str>| {
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(origin.map(|o| ("Origin", o)));
        let bearer = token.map(|t| format!("Bearer {t}"));
        headers.extend(bearer.as_deref().map(|b| ("Authorization", b)));
        exchange(&url, "POST", &headers, INITIALIZE)
    };
    let allowed = [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
        format!("http://LocalHost:{port}"),
        "https://app.example:8443".to_owned(),
        "http://tool.example".to_owned(),
        "http://tool.example:80".to_owned(),
    ];
    assert_eq!(post(None, Some("s3cret")).0, 200, "no Origin: not from a browser");
    for origin in &allowed {
        let (status, _, body) = post(Some(origin), Some("s3cret"));
        assert_eq!(status, 200, "{origin}: {body}");
    }
    let refused = [
        "http://evil.example".to_owned(),
        "null".to_owned(),
        String::new(),
        format!("http://127.0.0.1.evil.example:{port}"),
        format!("http://localhost:{port}.evil"),
        format!("http://127.0.0.1:{other}"),
        format!("https://127.0.0.1:{port}"),
        format!("https://localhost:{port}"),
        "http://127.0.0.1".to_owned(),
        format!("http://user@127.0.0.1:{port}"),
        format!("http://127.0.0.1:{port}/"),
        "https://app.example".to_owned(),
        "http://app.example:8443".to_owned(),
        "https://tool.example".to_owned(),
        "http://tool.example:8080".to_owned(),
    ];
    for origin in &refused {
        let (status, _, body) = post(Some(origin), Some("s3cret"));
        assert_eq!(status, 403, "{origin:?}: {body}");
        assert!(body.contains("Origin") && body.len() < 100, "a short plain body: {body}");
    }
    // Before the token, and on every method.
    assert_eq!(post(Some("http://evil.example"), None).0, 403, "Origin is checked first");
    assert_eq!(post(Some(&allowed[0]), None).0, 401, "an allowed Origin still needs the token");
    for method in ["GET", "DELETE", "PUT"] {
        let (status, _, body) = exchange(&url, method, &[("Origin", "http://evil.example"), ("Authorization", "Bearer s3cret")], "");
        assert_eq!(status, 403, "{method}: {body}");
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn http_refuses_initialize_on_a_live_session_and_answers_what_is_not_json_rpc_in_json_rpc() {
    let deployment = Deployment::new("reinitialize", &[Tiny::new("a", "first-party")]);
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "", &[]);
    let json = ("Content-Type", "application/json");
    let (status, headers, body) = exchange(&url, "POST", &[json], INITIALIZE);
    assert_eq!(status, 200, "{body}");
    let session = header_of(&headers, "mcp-session-id").expect("a session").to_owned();
    let on_session = [json, ("Mcp-Session-Id", session.as_str())];
    let (status, _, body) = exchange(&url, "POST", &on_session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(status, 202, "{body}");
    let add = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__add","arguments":{"a":1,"b":2}}}"#;
    let (status, _, body) = exchange(&url, "POST", &on_session, add);
    assert!(status == 200 && body.contains(r#""text":"3""#), "{status}: {body}");

    // An initialize on the live session: refused, and the session goes on as it was.
    let again = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"sampling":{}},"clientInfo":{"name":"intruder","version":"9"}}}"#;
    let refused = jsonrpc_error_of(&exchange(&url, "POST", &on_session, again));
    assert_eq!(refused["id"], 2, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("already initialized"), "{refused}");
    let (status, _, body) = exchange(&url, "POST", &on_session, add);
    assert!(status == 200 && body.contains(r#""text":"3""#), "the session goes on: {status}: {body}");
    // An unknown session stays rmcp's 404 (the client starts over), and a fresh initialize is served.
    assert_eq!(exchange(&url, "POST", &[json, ("Mcp-Session-Id", "no-such-session")], INITIALIZE).0, 404);
    assert_eq!(exchange(&url, "POST", &[json], INITIALIZE).0, 200);

    // A body that is not JSON: -32700, with or without a session; JSON that is not one message: -32600.
    for body in ["this is not JSON", r#"{"jsonrpc":"2.0","id":1,"#, "", r#"{"jsonrpc":"2.0","id":1} trailing"#, r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#] {
        for headers in [&on_session[..], &[json][..]] {
            let error = jsonrpc_error_of(&exchange(&url, "POST", headers, body));
            assert_eq!(error["id"], Value::Null, "{error}");
            assert_eq!(error["error"]["code"], -32700, "{body:?}: {error}");
            assert!(error["error"]["message"].as_str().unwrap_or_default().starts_with("Parse error"), "{error}");
        }
    }
    for (body, id) in [(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Value::Null), (r#"{"jsonrpc":"2.0","id":7,"hello":"world"}"#, json!(7)), ("42", Value::Null)] {
        let error = jsonrpc_error_of(&exchange(&url, "POST", &on_session, body));
        assert_eq!(error["error"]["code"], -32600, "{body}: {error}");
        assert_eq!(error["id"], id, "{body}: {error}");
    }
    // A body that is not declared JSON keeps its 415.
    let (status, _, body) = exchange(&url, "POST", &[("Content-Type", "text/plain"), ("Mcp-Session-Id", session.as_str())], add);
    assert_eq!(status, 415, "{body}");
    let (status, _, body) = exchange(&url, "POST", &on_session, add);
    assert!(status == 200 && body.contains(r#""text":"3""#), "the session still goes on: {status}: {body}");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(deployment.received("a").len(), 3, "only the three calls reached the server: {:?}", deployment.received("a"));
}

#[test]
fn http_closes_a_connection_that_never_finishes_its_headers() {
    let deployment = Deployment::new("slow-headers", &[Tiny::new("a", "first-party")]);
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "", &[]);
    let authority = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let mut slow = std::net::TcpStream::connect(&authority).expect("connect");
    slow.set_read_timeout(Some(Duration::from_secs(40))).expect("a read timeout");
    let started = std::time::Instant::now();
    write!(slow, "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: appl").expect("write");
    let silent = std::net::TcpStream::connect(&authority).expect("connect");
    // Others are served meanwhile.
    assert_eq!(exchange(&url, "POST", &[("Content-Type", "application/json")], INITIALIZE).0, 200);
    let mut rest = Vec::new();
    let read = slow.read_to_end(&mut rest);
    let waited = started.elapsed();
    assert!(
        read.is_ok() || matches!(read.as_ref().map_err(std::io::Error::kind), Err(std::io::ErrorKind::ConnectionReset)),
        "the gateway closed the connection (not our read timeout): {read:?} after {waited:?}"
    );
    assert!(waited >= Duration::from_secs(5) && waited < Duration::from_secs(30), "closed after {waited:?}");
    // A connection that sends nothing at all is closed too.
    let mut silent = silent;
    silent.set_read_timeout(Some(Duration::from_secs(30))).expect("a read timeout");
    let read = silent.read_to_end(&mut rest);
    assert!(read.is_ok() || matches!(read.as_ref().map_err(std::io::Error::kind), Err(std::io::ErrorKind::ConnectionReset)), "{read:?}");
    assert!(started.elapsed() < Duration::from_secs(40), "closed after {:?}", started.elapsed());
    let _ = child.kill();
    let _ = child.wait();
}

/// A value unique to this run, standing for a secret: no output may hold it.
fn canary(test: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("canary-{test}-{}-{nanos:x}", std::process::id())
}

/// `toolseal ARGS` with `env` set, `CANARY` and the gateway token unset unless given, and `stdin`:
/// exit code, stdout and stderr.
fn toolseal_env(args: &[&std::ffi::OsStr], env: &[(&str, &str)], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("CANARY")
        .env_remove("TOOLSEAL_GATEWAY_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolseal runs");
    child.stdin.take().expect("stdin").write_all(stdin).expect("stdin written");
    let out = child.wait_with_output().expect("toolseal ends");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Every output must lack `secret`.
fn assert_unseen(secret: &str, outputs: &[(String, String)]) {
    assert!(!outputs.is_empty());
    for (what, text) in outputs {
        assert!(!text.contains(secret), "{what} holds the secret:\n{text}");
    }
}

#[test]
fn a_servers_env_reaches_it_from_the_manifest_and_its_value_appears_in_no_output() {
    let secret = canary("env");
    let require = [("TINY_REQUIRE_TOKEN", "TINY_TOKEN")];
    let deployment = Deployment::new("env", &[Tiny::new("b", "first-party"), Tiny { env: &require, ..Tiny::new("a", "community") }]);
    let manifest = deployment.manifest();
    let m = manifest.as_os_str();
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let with_canary = [("CANARY", secret.as_str()), ("RUST_LOG", "debug")];
    let mut outputs = Vec::new();

    // Without `env`, the server refuses to start.
    let (code, out, err) = toolseal_env(&[os("gateway"), os("--check"), os("--manifest"), m], &with_canary, b"");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("a: down") && out.contains("b: matches its pin"), "{out}");

    // With `env` from the manifest: an unset variable is a clear error before any server starts.
    let mut text = std::fs::read_to_string(&manifest).expect("manifest");
    text += "env = { TINY_TOKEN = \"${CANARY}\", TINY_MODE = \"${TINY_MODE_UNSET:-plain}\" }\n";
    std::fs::write(&manifest, text).expect("manifest written");
    for command in [&[os("gateway"), os("--check"), os("--manifest"), m][..], &[os("approve"), os("a"), os("--manifest"), m], &[os("host"), os("--manifest"), m]] {
        let (code, out, err) = toolseal_env(command, &[], b"");
        assert_eq!(code, 2, "{command:?}: {out}{err}");
        assert!(err.contains("server \"a\"") && err.contains("`env.TINY_TOKEN`") && err.contains("${CANARY} is not set"), "{command:?}: {err}");
    }

    // Set in the command's environment, it reaches the server: `--check`, `approve` and `host` start it.
    let (code, out, err) = toolseal_env(&[os("gateway"), os("--check"), os("--manifest"), m], &with_canary, b"");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("a: matches its pin"), "{out}");
    outputs.push(("--check stdout".to_owned(), out));
    outputs.push(("--check stderr".to_owned(), err));
    let (code, out, err) = toolseal_env(&[os("approve"), os("a"), os("--manifest"), m], &with_canary, b"");
    assert_eq!(code, 0, "{out}{err}");
    outputs.push(("approve stdout".to_owned(), out));
    outputs.push(("approve stderr".to_owned(), err));
    let (code, out, err) = toolseal_env(&[os("host"), os("--manifest"), m], &with_canary, b"{\"name\":\"a__echo\",\"arguments\":{\"text\":\"via host\"}}\n");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"forwarded\":true") && out.contains("via host"), "{out}");
    outputs.push(("host stdout".to_owned(), out));
    outputs.push(("host stderr".to_owned(), err));

    // The gateway serves its tools; its log (at debug) and audit stay clean.
    let audit = deployment.dir.join("audit.jsonl");
    let log = deployment.dir.join("gateway.stderr");
    runtime().block_on(async {
        let mut command = tokio::process::Command::new(BIN);
        command.arg("gateway").arg("--manifest").arg(&manifest).arg("--audit").arg(&audit).env("CANARY", &secret).env("RUST_LOG", "debug");
        let stderr = std::fs::File::create(&log).expect("log file");
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::from(stderr)).spawn().expect("the gateway starts");
        let (tx, _rx) = mpsc::unbounded_channel();
        let client = tokio::time::timeout(Duration::from_secs(60), Listener(tx).serve(transport)).await.expect("initialize in time").expect("initialize");
        let echo = call(&client, "a__echo", json!({ "text": "hi" })).await.expect("a result");
        assert_eq!(text_of(&echo), "hi");
        let add = call(&client, "b__add", json!({ "a": 1, "b": 2 })).await.expect("a result");
        assert_eq!(text_of(&add), "3");
        let _ = client.cancel().await;
    });
    assert_eq!(deployment.received("a").len(), 2, "the host's call and the gateway's reached the server");
    std::thread::sleep(Duration::from_millis(300));
    let read = |path: &std::path::Path| std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let audited = read(&audit);
    assert!(audited.contains("a__echo"), "{audited}");
    outputs.push(("the audit".to_owned(), audited));
    outputs.push(("the gateway's stderr".to_owned(), read(&log)));
    outputs.push(("a's pin".to_owned(), read(&deployment.dir.join("a.json"))));
    outputs.push(("b's pin".to_owned(), read(&deployment.dir.join("b.json"))));
    assert_unseen(&secret, &outputs);
}

#[test]
fn a_url_servers_headers_carry_its_token_and_the_token_appears_in_no_output() {
    let secret = canary("headers");
    // The server behind a URL: a gateway over HTTP that wants `secret` as its bearer token.
    let upstream = Deployment::new("headers-up", &[Tiny::new("a", "first-party")]);
    let (mut child, url) = support::http_gateway(&upstream.manifest(), &secret, &[]);
    let dir = std::env::temp_dir().join(format!("toolseal-gateway-headers-down-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    std::fs::write(dir.join("up.json"), "{\"tools\":[]}\n").expect("an empty pin");
    let manifest = dir.join("toolseal.toml");
    std::fs::write(
        &manifest,
        format!("tiers = [\"t\"]\n\n[[servers]]\nname = \"up\"\ntier = \"t\"\nregistry = \"up.json\"\nurl = {url:?}\nheaders = {{ Authorization = \"Bearer ${{CANARY}}\", X-Client = \"${{CLIENT_UNSET:-toolseal-test}}\" }}\ntimeout = 30\n"),
    )
    .expect("manifest written");
    let m = manifest.as_os_str();
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let mut outputs = Vec::new();

    let (code, out, err) = toolseal_env(&[os("approve"), os("up"), os("--manifest"), m], &[], b"");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("server \"up\"") && err.contains("`headers.Authorization`") && err.contains("${CANARY} is not set"), "{err}");

    // A wrong token is refused by the server, and is not shown either.
    let wrong = canary("wrong-token");
    let (code, out, err) = toolseal_env(&[os("approve"), os("up"), os("--manifest"), m], &[("CANARY", &wrong), ("RUST_LOG", "debug")], b"");
    assert_ne!(code, 0, "{out}{err}");
    assert_unseen(&wrong, &[("approve with a wrong token".to_owned(), out + &err)]);

    // The right one: `approve` pins the listing through the headers, `--check` compares it.
    let with_canary = [("CANARY", secret.as_str()), ("RUST_LOG", "debug")];
    let (code, out, err) = toolseal_env(&[os("approve"), os("up"), os("--manifest"), m], &with_canary, b"");
    assert_eq!(code, 0, "{out}{err}");
    outputs.push(("approve".to_owned(), out + &err));
    let pin = std::fs::read_to_string(dir.join("up.json")).expect("the pin");
    assert!(pin.contains("a__add"), "{pin}");
    outputs.push(("the pin".to_owned(), pin));
    let (code, out, err) = toolseal_env(&[os("gateway"), os("--check"), os("--manifest"), m], &with_canary, b"");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("up: matches its pin"), "{out}");
    outputs.push(("--check".to_owned(), out + &err));
    assert_unseen(&secret, &outputs);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_servers_own_timeout_and_working_directory_are_used() {
    let dir = std::env::temp_dir().join(format!("toolseal-gateway-timeout-cwd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("work")).expect("scratch directory");
    // The server's script is only in `work/`: it starts only if it runs there.
    std::fs::copy(support::root().join("tests/servers/tiny_mcp.py"), dir.join("work/tiny.py")).expect("script copied");
    let out = Command::new(BIN).args(["capture", "--out"]).arg(dir.join("s.json")).args(["--", "python3"]).arg(dir.join("work/tiny.py")).arg("s").output().expect("capture runs");
    assert!(out.status.success(), "capture: {}", String::from_utf8_lossy(&out.stderr));
    let server = |name: &str, tier: &str, extra: &str| format!("\n[[servers]]\nname = {name:?}\ntier = {tier:?}\nregistry = \"s.json\"\ncwd = \"work\"\n{extra}\n");
    let manifest = format!(
        "tiers = [\"first\", \"second\"]\n{}{}",
        server("s", "first", "command = [\"python3\", \"tiny.py\", \"s\"]"),
        server("slow", "second", "command = [\"env\", \"TINY_VARIANT=silent\", \"python3\", \"tiny.py\", \"slow\"]\ntimeout = 1"),
    );
    std::fs::write(dir.join("toolseal.toml"), manifest).expect("manifest written");
    let started = std::time::Instant::now();
    let (code, out, err) = toolseal_env(&[std::ffi::OsStr::new("gateway"), std::ffi::OsStr::new("--check"), std::ffi::OsStr::new("--manifest"), dir.join("toolseal.toml").as_os_str()], &[], b"");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("s: matches its pin"), "started in its `cwd`: {out}");
    assert!(out.contains("slow: down") && out.contains("within 1 s"), "its own timeout, not the default 60 s: {out}");
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `toolseal import` on a configuration of each client: a literal token (Claude Desktop),
/// a `${VAR}` reference (Claude Code), a VS Code `${input:…}` in JSON with comments, and a
/// Cursor server that cannot start. Each server is pinned, the manifest and the rewritten
/// configurations hold no secret, a dry run changes nothing, and the imported gateway —
/// started as the rewritten configuration says, with its `env` — serves every pinned tool.
#[test]
fn import_turns_each_clients_configuration_into_a_working_gateway_without_copying_a_secret() {
    let secret = canary("import");
    let dir = std::env::temp_dir().join(format!("toolseal-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".vscode")).expect("scratch directory");
    let script = support::root().join("tests/servers/tiny_mcp.py").to_string_lossy().into_owned();
    let stdio = |name: &str, token: &str| json!({"command": "python3", "args": [script, name], "env": {"TINY_REQUIRE_TOKEN": "TINY_TOKEN", "TINY_TOKEN": token}});
    let desktop = dir.join("claude_desktop_config.json");
    let code = dir.join(".mcp.json");
    let vscode = dir.join(".vscode/mcp.json");
    let cursor = dir.join("mcp.json");
    let write = |path: &PathBuf, text: String| std::fs::write(path, text).expect("config written");
    write(&desktop, json!({"mcpServers": {"tiny a": stdio("a", &secret)}, "globalShortcut": "Ctrl+Space"}).to_string());
    let mut b = stdio("b", "${CANARY}");
    b["type"] = json!("stdio");
    write(&code, json!({"mcpServers": {"b": b, "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}).to_string());
    let mut c = stdio("c", "${input:tiny-token}");
    c["type"] = json!("stdio");
    write(&vscode, format!("// VS Code's mcp.json takes comments\n{{\"inputs\": [{{\"id\": \"tiny-token\", \"type\": \"promptString\", \"password\": true}}], \"servers\": {{\"c\": {c},}}}}\n"));
    write(&cursor, json!({"mcpServers": {"d": {"command": "python3", "args": [script, "d"]}, "gone": {"command": "/nonexistent/toolseal-test-server"}}}).to_string());
    let originals: Vec<String> = [&desktop, &code, &vscode, &cursor].iter().map(|p| std::fs::read_to_string(p).expect("config")).collect();
    let out_dir = dir.join("gateway");
    let os = |p: &PathBuf| p.as_os_str().to_owned();
    let args = |dry: bool| {
        let mut a: Vec<std::ffi::OsString> = vec!["import".into(), os(&desktop), os(&code), os(&vscode), os(&cursor), "--out".into(), os(&out_dir), "--timeout".into(), "20".into()];
        if dry {
            a.push("--dry-run".into());
        }
        a
    };
    let run = |a: &[std::ffi::OsString], env: &[(&str, &str)]| toolseal_env(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>(), env, b"");
    let env = [("CANARY", secret.as_str()), ("TOOLSEAL_INPUT_TINY_TOKEN", secret.as_str())];
    let mut outputs = Vec::new();

    // A dry run prints what it would write, redacted, and changes nothing.
    let (status, out, err) = run(&args(true), &env);
    assert_eq!(status, 0, "{out}{err}");
    assert!(out.contains("[[servers]]") && out.contains("\"<redacted>\""), "{out}");
    assert!(!out_dir.exists(), "a dry run writes nothing");
    outputs.push(("dry-run stdout".to_owned(), out));
    outputs.push(("dry-run stderr".to_owned(), err));

    let (status, out, err) = run(&args(false), &env);
    assert_eq!(status, 0, "{out}{err}");
    for key in ["\"tiny a\"", "\"b\"", "\"c\"", "\"d\""] {
        assert!(err.contains(&format!("pinned 5 tools of {key}")), "{key}: {err}");
    }
    assert!(err.contains("\"old\" left out: an SSE server") && err.contains("\"gone\" left out"), "{err}");
    outputs.push(("import stdout".to_owned(), out));
    outputs.push(("import stderr".to_owned(), err));
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let manifest = out_dir.join("toolseal.toml");
    let text = read(&manifest);
    assert!(text.contains("name = \"tiny-a\"") && text.contains("\"TINY_TOKEN\" = \"${TOOLSEAL_TINY_A_TINY_TOKEN}\""), "{text}");
    assert!(text.contains("\"TINY_TOKEN\" = \"${CANARY}\"") && text.contains("\"TINY_TOKEN\" = \"${TOOLSEAL_INPUT_TINY_TOKEN}\""), "{text}");
    outputs.push(("the manifest".to_owned(), text));
    for name in ["tiny-a", "b", "c", "d"] {
        outputs.push((format!("{name}'s pin"), read(&out_dir.join(format!("pins/{name}.json")))));
    }
    // Each configuration starts the gateway now, its original kept beside it; what could not be imported stays.
    for (path, original) in [&desktop, &code, &vscode, &cursor].iter().zip(&originals) {
        assert_eq!(&read(&PathBuf::from(format!("{}.toolseal-backup", path.display()))), original);
    }
    let rewritten = |p: &PathBuf| -> Value { serde_json::from_str(&read(p)).expect("JSON") };
    let desktop_now = rewritten(&desktop);
    assert_eq!(desktop_now["globalShortcut"], "Ctrl+Space");
    let entry = &desktop_now["mcpServers"]["toolseal"];
    assert_eq!(entry["args"], json!(["gateway", "--manifest", manifest.display().to_string()]));
    assert!(entry.get("env").is_none(), "{entry}");
    assert!(desktop_now["mcpServers"].get("tiny a").is_none());
    // The token written into Claude Desktop's configuration is in the secrets file, for its owner only.
    let secrets = out_dir.join("secrets.env");
    assert!(read(&secrets).contains(&format!("TOOLSEAL_TINY_A_TINY_TOKEN='{secret}'")));
    #[cfg(unix)]
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&secrets).expect("secrets").permissions()) & 0o777, 0o600);
    outputs.push(("the rewritten Claude Desktop config".to_owned(), read(&desktop)));
    assert!(rewritten(&code)["mcpServers"]["old"].is_object(), "a server left out stays in its configuration");
    assert_eq!(rewritten(&vscode)["servers"]["toolseal"]["env"]["TOOLSEAL_INPUT_TINY_TOKEN"], "${input:tiny-token}");
    assert!(rewritten(&cursor)["mcpServers"]["gone"].is_object());
    outputs.push(("the rewritten Claude Code config".to_owned(), read(&code)));
    outputs.push(("the rewritten VS Code config".to_owned(), read(&vscode)));

    // The gateway as a client starts it: the literal from the secrets file, the references from its environment.
    runtime().block_on(async {
        let mut command = tokio::process::Command::new(BIN);
        command.args(["gateway", "--manifest"]).arg(&manifest).env("CANARY", &secret).env("TOOLSEAL_INPUT_TINY_TOKEN", &secret);
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("the gateway starts");
        let (tx, _rx) = mpsc::unbounded_channel();
        let client = tokio::time::timeout(Duration::from_secs(60), Listener(tx).serve(transport)).await.expect("initialize in time").expect("initialize");
        let tools = client.list_all_tools().await.expect("tools/list");
        let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        for server in ["tiny-a", "b", "c", "d"] {
            assert!(names.contains(&format!("{server}__echo")), "{names:?}");
            let echo = call(&client, &format!("{server}__echo"), json!({ "text": server })).await.expect("a result");
            assert_eq!(text_of(&echo), server);
        }
        let _ = client.cancel().await;
    });
    assert_unseen(&secret, &outputs);
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 36, the remaining doors: an answer over the limit on one message, calls in flight at shutdown, a cap on
// HTTP connections.

/// `toolseal gateway --manifest M EXTRA...` spoken to in raw JSON lines over stdio (answers of any size; rmcp's own
/// client stops at 16 MiB), its answers read on a thread.
struct RawStdio {
    child: Child,
    input: std::process::ChildStdin,
    answers: std::sync::mpsc::Receiver<Value>,
}

impl RawStdio {
    /// Starts the gateway and completes `initialize`.
    fn start(deployment: &Deployment, extra: &[&str]) -> RawStdio {
        let mut child = Command::new(BIN)
            .args(["gateway", "--manifest"])
            .arg(deployment.manifest())
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the gateway starts");
        let input = child.stdin.take().expect("stdin");
        let mut output = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            while output.read_line(&mut line).is_ok_and(|n| n > 0) {
                if let Ok(message) = serde_json::from_str::<Value>(&line)
                    && tx.send(message).is_err()
                {
                    return;
                }
                line.clear();
            }
        });
        let mut gateway = RawStdio { child, input, answers };
        gateway.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } }));
        gateway.answer(1, Duration::from_secs(60));
        gateway.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        gateway
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").expect("write to the gateway");
    }

    /// Sends `tools/call` `name` with `arguments` as request `id`.
    fn call(&mut self, id: i64, name: &str, arguments: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } }));
    }

    /// The answer to request `id` (other messages are skipped), within `bound`.
    fn answer(&mut self, id: i64, bound: Duration) -> Value {
        let deadline = std::time::Instant::now() + bound;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(message) if message["id"] == id => return message,
                Ok(_) => {}
                Err(e) => panic!("no answer to request {id} within {bound:?}: {e}"),
            }
        }
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a `tools/call` answer's result.
fn result_text(answer: &Value) -> String {
    answer["result"]["content"].as_array().into_iter().flatten().filter_map(|c| c["text"].as_str()).collect()
}

/// The audit records in `path`.
fn audit_records(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(|l| serde_json::from_str(l).expect("an audit record")).collect()
}

/// Sends SIGTERM to `child` (the `kill` command: no libc here).
fn terminate(child: &Child) {
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success(), "kill -TERM {}", child.id());
}

/// How long `child` took to exit, if it did within `bound` (it is killed otherwise).
fn exit_within(child: &mut Child, bound: Duration) -> Option<Duration> {
    let started = std::time::Instant::now();
    while started.elapsed() < bound {
        if let Ok(Some(_)) = child.try_wait() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Waits (20 s at most) until server `name` logged a call of `tool`.
fn wait_for_call(deployment: &Deployment, name: &str, tool: &str) {
    for _ in 0..200 {
        if deployment.received(name).iter().any(|c| c["name"] == tool) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{tool} never reached {name}: {:?}", deployment.received(name));
}

#[test]
fn an_answer_over_the_message_limit_is_an_error_at_once_and_the_server_goes_on() {
    // 24 MiB is 25,165,824 bytes: a's answer is over it, b's is under it but over rmcp's own 16 MiB.
    let over = [("TINY_BIG", "26000000")];
    let under = [("TINY_BIG", "20000000")];
    let deployment = Deployment::new("big", &[Tiny { env: &over, ..Tiny::new("a", "first-party") }, Tiny { env: &under, ..Tiny::new("b", "community") }]);
    let audit = deployment.dir.join("audit.jsonl");
    let mut gateway = RawStdio::start(&deployment, &["--timeout", "60", "--max-message-mib", "24", "--audit", audit.to_str().unwrap()]);
    let started = std::time::Instant::now();
    gateway.call(2, "a__now", json!({}));
    let answer = gateway.answer(2, Duration::from_secs(50));
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(20), "answered after {waited:?}, not at once (--timeout 60)");
    assert_eq!(answer["result"]["isError"], true, "{}", &answer.to_string()[..answer.to_string().len().min(500)]);
    let text = result_text(&answer);
    assert!(text.contains("24 MiB") && text.contains("limit") && text.contains("\"now\""), "{text}");
    // The server goes on serving on the same connection.
    gateway.call(3, "a__add", json!({ "a": 1, "b": 2 }));
    assert_eq!(result_text(&gateway.answer(3, Duration::from_secs(30))), "3");
    // An answer over rmcp's 16 MiB but within the limit comes through whole.
    gateway.call(4, "b__now", json!({}));
    let big = gateway.answer(4, Duration::from_secs(50));
    assert_eq!(big["result"]["isError"], false);
    assert_eq!(result_text(&big).len(), 20_000_000);
    drop(gateway);
    let records = audit_records(&audit);
    assert_eq!(records.len(), 3, "{records:?}");
    assert_eq!((records[0]["ending"].as_str(), records[0]["executed"].as_bool()), (Some("failed"), Some(true)));
    assert!(records[0]["error"].as_str().unwrap_or_default().contains("24 MiB"), "{}", records[0]);
    assert_eq!(records[1]["ending"], "executed");
    assert_eq!(records[2]["ending"], "executed");
}

#[test]
fn sigterm_answers_a_call_in_flight_over_stdio_and_audits_it_as_cut_by_the_shutdown() {
    let deployment = Deployment::new("sigterm-stdio", &[Tiny::new("a", "first-party")]);
    let audit = deployment.dir.join("audit.jsonl");
    let mut gateway = RawStdio::start(&deployment, &["--audit", audit.to_str().unwrap()]);
    gateway.call(2, "a__sleep", json!({ "seconds": 8 }));
    wait_for_call(&deployment, "a", "sleep");
    let started = std::time::Instant::now();
    terminate(&gateway.child);
    // stdin stays open: the gateway must not wait for it.
    let answer = gateway.answer(2, Duration::from_secs(6));
    assert!(started.elapsed() < Duration::from_secs(4), "answered after {:?}", started.elapsed());
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(result_text(&answer).contains("the gateway is shutting down"), "{answer}");
    let exited = exit_within(&mut gateway.child, Duration::from_secs(20));
    assert!(exited.is_some(), "the gateway did not exit within 20 s of SIGTERM");
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!((records[0]["ending"].as_str(), records[0]["executed"].as_bool()), (Some("shutdown"), Some(true)), "{}", records[0]);
    assert!(records[0]["error"].as_str().unwrap_or_default().contains("shutting down"), "{}", records[0]);
}

#[test]
fn sigterm_answers_a_call_in_flight_over_http_before_its_stream_ends() {
    let deployment = Deployment::new("sigterm-http", &[Tiny::new("a", "first-party")]);
    let audit = deployment.dir.join("audit.jsonl");
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "", &["--audit", audit.to_str().unwrap()]);
    let json = ("Content-Type", "application/json");
    let (status, headers, body) = exchange(&url, "POST", &[json], INITIALIZE);
    assert_eq!(status, 200, "{body}");
    let session = header_of(&headers, "mcp-session-id").expect("a session").to_owned();
    let (status, _, body) = exchange(&url, "POST", &[json, ("Mcp-Session-Id", session.as_str())], r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(status, 202, "{body}");
    let (tx, rx) = std::sync::mpsc::channel();
    let call_url = url.clone();
    std::thread::spawn(move || {
        let sleep = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a__sleep","arguments":{"seconds":8}}}"#;
        let _ = tx.send(exchange(&call_url, "POST", &[json, ("Mcp-Session-Id", session.as_str())], sleep));
    });
    wait_for_call(&deployment, "a", "sleep");
    let started = std::time::Instant::now();
    terminate(&child);
    let (status, _, body) = rx.recv_timeout(Duration::from_secs(6)).expect("the call's stream ended in time");
    assert!(started.elapsed() < Duration::from_secs(4), "answered after {:?}", started.elapsed());
    assert_eq!(status, 200, "{body}");
    let answer: Value = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no answer in the stream: {body:?}"));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(result_text(&answer).contains("the gateway is shutting down"), "{answer}");
    assert!(exit_within(&mut child, Duration::from_secs(20)).is_some(), "the gateway did not exit within 20 s of SIGTERM");
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["ending"], "shutdown", "{}", records[0]);
}

#[test]
fn http_refuses_connections_over_its_cap_at_once_and_serves_again_once_some_close() {
    let deployment = Deployment::new("cap", &[Tiny::new("a", "first-party")]);
    let (code, out) = deployment.run(&["gateway", "--http", "127.0.0.1:0", "--max-connections", "0"]);
    assert_eq!(code, 2, "--max-connections 0: {out}");
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "", &["--max-connections", "8"]);
    let authority = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    // Twelve connections that send nothing: eight are held (until the header timeout), four answered 503 and closed.
    let opened = std::time::Instant::now();
    let idle: Vec<std::net::TcpStream> = (0..12).map(|_| std::net::TcpStream::connect(&authority).expect("connect")).collect();
    let mut answers: Vec<Option<String>> = vec![None; idle.len()];
    let mut received: Vec<Vec<u8>> = vec![Vec::new(); idle.len()];
    // Read what each has been sent so far, without waiting: the four refused ones are answered and closed at once
    // (an answer read before its connection closed is kept until the close is seen).
    let poll = |answers: &mut [Option<String>], received: &mut [Vec<u8>]| {
        for (i, stream) in idle.iter().enumerate() {
            if answers[i].is_some() {
                continue;
            }
            stream.set_nonblocking(true).expect("non-blocking");
            match (&*stream).read_to_end(&mut received[i]) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                read => {
                    assert!(read.is_ok(), "connection {i} closed after its answer, not reset: {read:?}");
                    answers[i] = Some(String::from_utf8_lossy(&received[i]).into_owned());
                }
            }
        }
    };
    while answers.iter().flatten().count() < 4 && opened.elapsed() < Duration::from_secs(5) {
        poll(&mut answers, &mut received);
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    poll(&mut answers, &mut received);
    assert!(opened.elapsed() < Duration::from_secs(8), "checked before the header timeout could close the eight");
    let refused: Vec<usize> = (0..idle.len()).filter(|&i| answers[i].is_some()).collect();
    assert_eq!(refused, [8, 9, 10, 11], "the connections over the cap: {answers:?}");
    for answer in answers.iter().flatten() {
        assert!(answer.starts_with("HTTP/1.1 503 ") && answer.contains("Retry-After: 1"), "{answer:?}");
    }
    // While the eight are held, one more is refused too…
    let (status, _, _) = exchange(&url, "POST", &[("Content-Type", "application/json")], INITIALIZE);
    assert!(status == 503 || status == 0, "over the cap: {status}");
    // …and once they close, requests are served again.
    drop(idle);
    let mut served = 0;
    for _ in 0..50 {
        served = exchange(&url, "POST", &[("Content-Type", "application/json")], INITIALIZE).0;
        if served == 200 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(served, 200, "served once the idle connections closed");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_url_servers_answer_has_the_same_limit_on_one_message() {
    // The server behind a URL: a gateway over HTTP in front of a tiny server whose `now` answers 20 MB.
    let big = [("TINY_BIG", "20000000")];
    let upstream = Deployment::new("big-up", &[Tiny { env: &big, ..Tiny::new("a", "first-party") }]);
    let (mut child, url) = support::http_gateway(&upstream.manifest(), "", &[]);
    let deployment = Deployment { dir: std::env::temp_dir().join(format!("toolseal-gateway-big-down-{}", std::process::id())) };
    let _ = std::fs::remove_dir_all(&deployment.dir);
    std::fs::create_dir_all(&deployment.dir).expect("scratch directory");
    std::fs::write(deployment.dir.join("up.json"), "{\"tools\":[]}\n").expect("an empty pin");
    std::fs::write(deployment.manifest(), format!("tiers = [\"t\"]\n\n[[servers]]\nname = \"up\"\ntier = \"t\"\nregistry = \"up.json\"\nurl = {url:?}\n")).expect("manifest written");
    let (code, out) = deployment.run(&["approve", "up"]);
    assert_eq!(code, 0, "{out}");
    // Over rmcp's own 16 MiB, within the gateway's 64 MiB: through whole.
    let mut gateway = RawStdio::start(&deployment, &["--timeout", "60"]);
    gateway.call(2, "up__a__now", json!({}));
    let answer = gateway.answer(2, Duration::from_secs(50));
    assert_eq!(answer["result"]["isError"], false, "{}", &answer.to_string()[..answer.to_string().len().min(500)]);
    assert_eq!(result_text(&answer).len(), 20_000_000);
    drop(gateway);
    // Over the limit: rmcp's HTTP client refuses the event and closes its transport, so the call is an error well
    // before the timeout and the server is reconnected as after a crash.
    let mut gateway = RawStdio::start(&deployment, &["--timeout", "60", "--max-message-mib", "16"]);
    let started = std::time::Instant::now();
    gateway.call(2, "up__a__now", json!({}));
    let answer = gateway.answer(2, Duration::from_secs(50));
    assert_eq!(answer["result"]["isError"], true, "{}", &answer.to_string()[..answer.to_string().len().min(500)]);
    assert!(started.elapsed() < Duration::from_secs(20), "answered after {:?}", started.elapsed());
    let mut served = String::new();
    for id in 3..100 {
        gateway.call(id, "up__a__add", json!({ "a": 1, "b": 2 }));
        served = result_text(&gateway.answer(id, Duration::from_secs(30)));
        if served == "3" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(served, "3", "the server serves again");
    drop(gateway);
    let _ = child.kill();
    let _ = child.wait();
}

/// Writes `policies/test.cedar` and appends `extra` (principals, `policies`, `secrets`) to the manifest, before its servers.
fn with_policies(deployment: &Deployment, top: &str, extra: &str, policy: &str) {
    std::fs::create_dir_all(deployment.dir.join("policies")).expect("policies directory");
    std::fs::write(deployment.dir.join("policies/test.cedar"), policy).expect("policy written");
    let manifest = std::fs::read_to_string(deployment.manifest()).expect("manifest");
    std::fs::write(deployment.manifest(), format!("{top}{manifest}\n{extra}")).expect("manifest written");
}

const POLICY: &str = r#"@id("everyone")
permit(principal, action, resource);

@id("no-shouting") @reason("the operator asked for quiet output")
forbid(principal, action == Action::"a__upper", resource) when { context.input.text like "*!*" };

@id("community-read-only")
forbid(principal, action, resource) when { resource.tier == "community" } unless { action == Action::"b__now" };

@id("big-sums") @confirm("add numbers over a million?")
permit(principal, action == Action::"a__add", resource) when { context.input.a > 1000000 };
"#;

#[test]
fn policies_decide_every_resolved_call_and_the_model_reads_why() {
    let deployment = Deployment::new("policy", &[Tiny::new("a", "first-party"), Tiny::new("b", "community")]);
    with_policies(&deployment, "policies = [\"policies/*.cedar\"]\n", "[principals.alice]\nlocal = true\ngroups = [\"operators\"]\n", POLICY);
    let audit = deployment.dir.join("audit.jsonl");
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &["--audit", audit.to_str().unwrap()]).await;
        let quiet = call(&client, "a__upper", json!({ "text": "ok" })).await.expect("a result");
        assert_eq!(text_of(&quiet), "OK");
        let loud = call(&client, "a__upper", json!({ "text": "hey!" })).await.expect("a result");
        assert_eq!(loud.is_error, Some(true));
        assert_eq!(text_of(&loud), "H4: a/upper is not allowed now: denied by policy `no-shouting`: the operator asked for quiet output");
        let community = call(&client, "b__echo", json!({ "text": "x" })).await.expect("a result");
        assert_eq!(text_of(&community), "H4: b/echo is not allowed now: denied by policy `community-read-only`");
        let now = call(&client, "b__now", json!({})).await.expect("a result");
        assert_eq!(now.is_error, Some(false), "{now:?}");
        let big = call(&client, "a__add", json!({ "a": 2_000_000, "b": 1 })).await.expect("a result");
        assert_eq!(text_of(&big), "H4: a/add needs a person to confirm it first, and this client cannot ask (no elicitation capability): add numbers over a million?");
        // Resolution comes first: an unresolved call never reaches the policies.
        let wrong = call(&client, "a__add", json!({ "a": 1, "b": "x" })).await.expect("a result");
        assert_eq!(class_of(&wrong).as_deref(), Some("H3"));
        let _ = client.cancel().await;
    });
    let a: Vec<Value> = deployment.received("a").iter().map(|c| c["arguments"].clone()).collect();
    assert_eq!(a, [json!({ "text": "ok" })], "only the allowed call reached a");
    assert_eq!(deployment.received("b").len(), 1, "only b__now reached b");
    let records = audit_records(&audit);
    let seen: Vec<(&str, &str, Vec<&str>)> = records
        .iter()
        .map(|r| (r["ending"].as_str().unwrap(), r["principal"].as_str().unwrap_or("-"), r["policies"].as_array().map(|p| p.iter().filter_map(Value::as_str).collect()).unwrap_or_default()))
        .collect();
    assert_eq!(
        seen,
        [
            ("executed", "alice", vec!["everyone"]),
            ("denied", "alice", vec!["no-shouting"]),
            ("denied", "alice", vec!["community-read-only"]),
            ("executed", "alice", vec!["everyone"]),
            ("pending", "alice", vec!["big-sums", "everyone"]),
            ("rejected", "-", vec![]),
        ]
    );
    assert_eq!(records[1]["decision"], json!({ "decision": "deny", "reason": "denied by policy `no-shouting`: the operator asked for quiet output" }));
}

#[test]
fn a_policy_that_does_not_hold_is_refused_with_its_place_before_any_server_starts() {
    let deployment = Deployment::new("policy-check", &[Tiny::new("a", "first-party")]);
    with_policies(&deployment, "", "", "permit(principal, action, resource);\nforbid(principal, action == Action::\"a__upper\", resource)\n  when { context.input.txt like \"*!*\" };\n");
    let policy = deployment.dir.join("policies/test.cedar");
    let (code, out) = deployment.run(&["policy", "check", "--policy", policy.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("policies/test.cedar:3:10: tool `a__upper` declares no argument `txt`; did you mean `text`?"), "{out}");
    let (code, out) = deployment.run(&["gateway", "--check", "--policy", policy.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("declares no argument `txt`"), "{out}");
    assert!(deployment.received("a").is_empty());
    // A number (no exact Cedar type) cannot be read; a misspelled tool is named with the nearest one.
    std::fs::write(&policy, "forbid(principal, action == Action::\"a__sleep\", resource) when { context.input has seconds };\nforbid(principal, action == Action::\"a__uper\", resource);\n")
        .expect("written");
    let (code, out) = deployment.run(&["policy", "check", "--policy", policy.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(":1:") && out.contains("argument `seconds` of `a__sleep` is a number: floats have no exact Cedar type"), "{out}");
    assert!(out.contains(":2:") && out.contains("`a__uper` is not a tool of this deployment; did you mean `a__upper`?"), "{out}");
    std::fs::write(&policy, POLICY.replace("b__now", "a__now").replace("\"community\"", "\"vetted\"")).expect("written");
    let (code, out) = deployment.run(&["policy", "check", "--policy", policy.to_str().unwrap()]);
    assert_eq!((code, out.trim()), (0, format!("4 policies in {} hold for {}", policy.display(), deployment.manifest().display()).as_str()));
    let (code, schema) = deployment.run(&["policy", "schema"]);
    assert_eq!(code, 0);
    assert!(schema.contains("action \"a__add\" appliesTo") && schema.contains("\"a\": Long,") && schema.contains("// \"seconds\": a number"), "{schema}");
    // The same schema in Cedar's JSON form.
    let (code, json) = deployment.run(&["policy", "schema", "--json"]);
    assert_eq!(code, 0, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let input = &json[""]["actions"]["a__add"]["appliesTo"]["context"]["attributes"]["input"]["attributes"];
    assert_eq!(input["a"]["name"], "Long", "{json}");
    assert!(input.get("seconds").is_none(), "{json}");
}

#[test]
fn over_http_the_bearer_token_names_the_principal_policies_decide_for() {
    let deployment = Deployment::new("policy-http", &[Tiny::new("a", "first-party")]);
    std::fs::write(deployment.dir.join("secrets.env"), "ALICE_TOKEN=alice-t0ken\nCI_TOKEN=ci-t0ken\n").expect("secrets");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(deployment.dir.join("secrets.env"), std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let principals = "[principals.alice]\ntoken = \"${ALICE_TOKEN}\"\ngroups = [\"admins\"]\n\n[principals.ci]\ntoken = \"${CI_TOKEN}\"\ngroups = [\"readers\"]\n";
    // A forbid without conditions also takes the tools out of `ci`'s listing; one with conditions would not.
    let policy = "permit(principal, action, resource);\n@id(\"readers-read\") @reason(\"the CI token reads only\")\nforbid(principal == User::\"ci\", action in [Action::\"a__add\", Action::\"a__echo\", Action::\"a__sleep\", Action::\"a__upper\"], resource);\n@id(\"no-readers-upper\")\nforbid(principal, action == Action::\"a__upper\", resource) when { principal.groups.contains(\"readers\") };\n";
    with_policies(&deployment, "policies = [\"policies/test.cedar\"]\nsecrets = \"secrets.env\"\n", principals, policy);
    let audit = deployment.dir.join("audit.jsonl");
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "", &["--audit", audit.to_str().unwrap()]);
    assert!(status(&url, None, None).contains(" 401 "), "a token is required once principals have tokens");
    assert!(status(&url, None, Some("wrong")).contains(" 401 "));
    let answers = runtime().block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut answers = Vec::new();
        for token in ["alice-t0ken", "ci-t0ken"] {
            let transport = StreamableHttpClientTransport::from_config(StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(token));
            let client = Listener(mpsc::unbounded_channel().0).serve(transport).await.expect("initialize over HTTP");
            let listed: Vec<String> = client.list_all_tools().await.expect("tools/list").iter().map(|t| t.name.to_string()).collect();
            answers.push((token, "listed", false, listed.join(" ")));
            for (tool, arguments) in [("a__add", json!({ "a": 1, "b": 2 })), ("a__now", json!({}))] {
                let result = call(&client, tool, arguments).await.expect("a result");
                answers.push((token, tool, result.is_error == Some(true), text_of(&result)));
            }
            let _ = client.cancel().await;
        }
        answers
    });
    let _ = child.kill();
    let _ = child.wait();
    let listings: Vec<(&str, &str)> = answers.iter().filter(|a| a.1 == "listed").map(|a| (a.0, a.3.as_str())).collect();
    assert_eq!(listings, [("alice-t0ken", "a__add a__echo a__now a__sleep a__upper"), ("ci-t0ken", "a__now")]);
    let outcomes: Vec<(&str, &str, bool)> = answers.iter().filter(|a| a.1 != "listed").map(|(token, tool, error, _)| (*token, *tool, *error)).collect();
    assert_eq!(outcomes, [("alice-t0ken", "a__add", false), ("alice-t0ken", "a__now", false), ("ci-t0ken", "a__add", true), ("ci-t0ken", "a__now", false)]);
    assert_eq!(answers[4].3, "H4: a/add is not allowed now: denied by policy `readers-read`: the CI token reads only", "a tool not listed is still refused by the policy");
    let principals: Vec<String> = audit_records(&audit).iter().map(|r| r["principal"].as_str().unwrap_or("-").to_owned()).collect();
    assert_eq!(principals, ["alice", "alice", "ci", "ci"]);
    let written = std::fs::read_to_string(&audit).expect("audit");
    assert!(!written.contains("t0ken"), "no token in the audit");
}

/// A client with a person behind it who answers every confirmation `yes` or not.
#[derive(Clone)]
struct Person {
    yes: bool,
    asked: mpsc::UnboundedSender<String>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default().with_protocol_version(rmcp::model::ProtocolVersion::V_2025_11_25);
        info.capabilities.elicitation = Some(rmcp::model::ElicitationCapability::default());
        info
    }

    async fn create_elicitation(&self, request: rmcp::model::ElicitRequestParams, _: rmcp::service::RequestContext<RoleClient>) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        if let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = request {
            let _ = self.asked.send(message);
        }
        let action = if self.yes { rmcp::model::ElicitationAction::Accept } else { rmcp::model::ElicitationAction::Decline };
        let answer = rmcp::model::ElicitResult::new(action);
        Ok(if self.yes { answer.with_content(json!({})) } else { answer })
    }
}

/// A deployment whose policy asks a person before `a__add` adds numbers over a million, and its audit file.
fn confirming(name: &str) -> (Deployment, PathBuf) {
    let deployment = Deployment::new(name, &[Tiny::new("a", "first-party")]);
    with_policies(
        &deployment,
        "policies = [\"policies/test.cedar\"]\n",
        "",
        "@id(\"ask\") @confirm(\"add numbers over a million?\")\npermit(principal, action == Action::\"a__add\", resource) when { context.input.a > 1000000 };\npermit(principal, action, resource) unless { action == Action::\"a__add\" && context.input.a > 1000000 };\n",
    );
    let audit = deployment.dir.join("audit.jsonl");
    (deployment, audit)
}

/// What a person who accepted, then one who declined, `confirming`'s big sum was answered
/// (the call ran once); the audit's endings and `confirmed`, in order.
fn accepted_then_declined(answers: &[(bool, Option<String>, Option<bool>, String)], deployment: &Deployment, audit: &std::path::Path) -> Vec<(String, Option<bool>)> {
    let asked = Some("Allow a/add? add numbers over a million?".to_owned());
    assert_eq!(answers[0], (true, asked.clone(), Some(false), "2000001".to_owned()));
    assert_eq!(answers[1], (false, asked, Some(true), "H4: a/add was not confirmed: the person declined (add numbers over a million?)".to_owned()));
    assert_eq!(deployment.received("a").len(), 1, "only the confirmed call reached the server");
    audit_records(audit).iter().map(|r| (r["ending"].as_str().unwrap_or_default().to_owned(), r["confirmed"].as_bool())).collect()
}

/// `toolseal gateway` of `deployment` over stdio, auditing to `audit`.
fn audited_gateway(deployment: &Deployment, audit: &std::path::Path) -> TokioChildProcess {
    let mut command = tokio::process::Command::new(BIN);
    command.arg("gateway").arg("--manifest").arg(deployment.manifest()).args(["--audit", audit.to_str().unwrap()]);
    TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("the gateway starts").0
}

#[test]
fn a_call_to_confirm_is_put_to_the_person_and_goes_on_only_if_they_accept() {
    let (deployment, audit) = confirming("policy-confirm");
    let answers = runtime().block_on(async {
        let mut answers = Vec::new();
        for yes in [true, false] {
            let transport = audited_gateway(&deployment, &audit);
            let (asked, mut questions) = mpsc::unbounded_channel();
            let client = Person { yes, asked }.serve(transport).await.expect("initialize");
            let result = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(params("a__add", json!({ "a": 2_000_000, "b": 1 })))).await.expect("in time").expect("a result");
            let rmcp::model::CallToolResponse::Complete(result) = result else { panic!("a complete result") };
            answers.push((yes, questions.try_recv().ok(), result.is_error, text_of(&result)));
            let _ = client.cancel().await;
        }
        answers
    });
    let seen = accepted_then_declined(&answers, &deployment, &audit);
    assert_eq!(seen, [("executed".to_owned(), Some(true)), ("denied".to_owned(), Some(false))]);
}

#[test]
fn a_2026_07_28_client_confirms_in_an_input_round_bound_to_the_call() {
    use rmcp::model::{CallToolResponse, InputRequest, ProtocolVersion};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let (deployment, audit) = confirming("policy-rounds");
    let answers = runtime().block_on(async {
        let mut answers = Vec::new();
        for yes in [true, false] {
            let transport = audited_gateway(&deployment, &audit);
            let (asked, mut questions) = mpsc::unbounded_channel();
            let modern = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
            let client = Person { yes, asked }.serve_with_lifecycle(transport, modern).await.expect("server/discover");
            let call = |a: i64| params("a__add", json!({ "a": a, "b": 1 }));
            // The round as the wire has it: the question, and a state to send back.
            let round = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(call(2_000_000))).await.expect("in time").expect("an answer");
            let CallToolResponse::InputRequired(round) = round else { panic!("an input round, got {round:?}") };
            let requests = round.input_requests.expect("the question");
            assert!(matches!(requests.values().next(), Some(InputRequest::Elicitation(_))) && requests.len() == 1, "{requests:?}");
            let state = round.request_state.expect("a request state");
            // An answer sent back with other arguments confirms nothing: the person is asked again.
            let accept = std::collections::BTreeMap::from([(requests.keys().next().unwrap().clone(), json!({"action": "accept", "content": {}}))]);
            let swapped = client.call_tool_once(call(3_000_000).with_input_responses(accept.clone()).with_request_state(state.clone())).await.expect("an answer");
            assert!(matches!(swapped, CallToolResponse::InputRequired(_)), "{swapped:?}");
            // The state was used up: sent again with the right arguments, it is asked again too.
            let reused = client.call_tool_once(call(2_000_000).with_input_responses(accept).with_request_state(state)).await.expect("an answer");
            assert!(matches!(reused, CallToolResponse::InputRequired(_)), "{reused:?}");
            // rmcp's own loop: the person answers, the call is retried, resolved and decided again.
            let result = tokio::time::timeout(Duration::from_secs(60), client.call_tool(call(2_000_000))).await.expect("in time").expect("a result");
            answers.push((yes, questions.try_recv().ok(), result.is_error, text_of(&result)));
            let _ = client.cancel().await;
        }
        answers
    });
    let seen = accepted_then_declined(&answers, &deployment, &audit);
    // Per person: the round, the swapped arguments, the used state, rmcp's first try (all asked), then the answer.
    let pending = || ("pending".to_owned(), None);
    assert_eq!(seen, [pending(), pending(), pending(), pending(), ("executed".to_owned(), Some(true)), pending(), pending(), pending(), pending(), ("denied".to_owned(), Some(false))]);
}

#[test]
fn sighup_rereads_the_policies_and_a_bad_file_keeps_the_set_in_force() {
    rereads_the_policies(false);
}

#[test]
fn with_watch_a_changed_policy_file_is_reread_and_a_bad_one_keeps_the_set_in_force() {
    rereads_the_policies(true);
}

/// A policy file changed to one that does not hold, then to one that does, followed by
/// SIGHUP or (`watch`) by nothing but `--watch`.
fn rereads_the_policies(watch: bool) {
    let deployment = Deployment::new(if watch { "policy-watch" } else { "policy-reload" }, &[Tiny::new("a", "first-party")]);
    let deny_add = "permit(principal, action, resource);\n@id(\"no-add\") forbid(principal, action == Action::\"a__add\", resource);\n";
    with_policies(&deployment, "policies = [\"policies/test.cedar\"]\n", "", deny_add);
    let mut child = Command::new(BIN)
        .args(["gateway", "--http", "127.0.0.1:0", "--manifest"])
        .arg(deployment.manifest())
        .args(if watch { &["--watch"][..] } else { &[] })
        .env_remove("TOOLSEAL_GATEWAY_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gateway starts");
    let (lines, heard) = std::sync::mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().expect("stderr"));
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let wait_for = |needle: &str| loop {
        let line = heard.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("no line with {needle:?}"));
        if line.contains(needle) {
            break line;
        }
    };
    let url = wait_for("http://");
    let url = url[url.find("http://").unwrap()..].trim().to_owned();
    let hangup = |child: &Child| {
        if !watch {
            assert!(Command::new("kill").args(["-HUP", &child.id().to_string()]).status().expect("kill runs").success());
        }
    };
    let add = |url: &str| {
        runtime().block_on(async {
            let _ = rustls::crypto::ring::default_provider().install_default();
            let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
            let client = Listener(mpsc::unbounded_channel().0).serve(transport).await.expect("initialize over HTTP");
            let result = call(&client, "a__add", json!({ "a": 1, "b": 2 })).await.expect("a result");
            let _ = client.cancel().await;
            text_of(&result)
        })
    };
    assert_eq!(add(&url), "H4: a/add is not allowed now: denied by policy `no-add`");
    std::fs::write(deployment.dir.join("policies/test.cedar"), "permit(principal, action == Action::\"a__ad\", resource);\n").expect("written");
    hangup(&child);
    let refused = wait_for("not re-read");
    assert!(refused.contains("`a__ad` is not a tool of this deployment; did you mean `a__add`?") || refused.contains("policies do not hold"), "{refused}");
    assert_eq!(add(&url), "H4: a/add is not allowed now: denied by policy `no-add`", "the set in force stays");
    std::fs::write(deployment.dir.join("policies/test.cedar"), "permit(principal, action, resource);\n").expect("written");
    hangup(&child);
    wait_for("pins and policies re-read");
    assert_eq!(add(&url), "3");
    let _ = child.kill();
    let _ = child.wait();
}

/// The JSON-RPC error code and `data` of a refused request (any answer is a failure of the test).
fn refused<T: std::fmt::Debug>(answer: Result<T, ServiceError>) -> (i32, Value) {
    match answer {
        Err(ServiceError::McpError(e)) => (e.code.0, e.data.unwrap_or_default()),
        other => panic!("not a refusal: {other:?}"),
    }
}

#[test]
fn prompts_resources_and_completions_are_relayed_and_each_request_resolved_before_its_server() {
    use rmcp::model::{ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams, Reference};
    let offers = [("TINY_OFFERS", "1")];
    let deployment = Deployment::new("offered", &[Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("a", "first-party") }, Tiny::new("b", "first-party")]);
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &[]).await;
        let capabilities = serde_json::to_value(&client.peer_info().expect("initialized").capabilities).unwrap();
        assert!(capabilities.get("prompts").is_some() && capabilities.get("resources").is_some() && capabilities.get("completions").is_some(), "{capabilities}");
        assert_eq!(capabilities["resources"]["subscribe"], true, "a's subscriptions are relayed: {capabilities}");
        assert!(capabilities.get("logging").is_some(), "a's logs are relayed: {capabilities}");

        let prompts = serde_json::to_value(client.list_all_prompts().await.expect("prompts/list")).unwrap();
        assert_eq!(prompts, json!([{"name": "a__greet", "description": "A greeting.", "arguments": [{"name": "name", "required": true}, {"name": "style", "required": false}]}]));
        let get = |name: &str, arguments: Value| GetPromptRequestParams::new(name).with_arguments(arguments.as_object().cloned().unwrap());
        let greeting = client.get_prompt(get("a__greet", json!({"name": "ann", "style": "warm"}))).await.expect("prompts/get");
        assert_eq!(serde_json::to_value(&greeting.messages).unwrap()[0]["content"]["text"], "Hello, ann (warm)");
        let (code, data) = refused(client.get_prompt(get("a__greeet", json!({"name": "ann"}))).await);
        assert_eq!((code, data["class"].as_str(), data["suggestions"].clone()), (-32602, Some("M1"), json!(["a__greet"])), "a misspelled prompt");
        let (_, data) = refused(client.get_prompt(get("b__greet", json!({"name": "ann"}))).await);
        assert_eq!(data["class"], "M1", "b offers no prompt");
        let (_, data) = refused(client.get_prompt(get("a__greet", json!({"name": "ann", "tone": "dry"}))).await);
        assert_eq!((data["class"].as_str(), data["pointer"].as_str()), (Some("H2"), Some("/params/arguments/tone")));
        let (_, data) = refused(client.get_prompt(get("a__greet", json!({"style": "warm"}))).await);
        assert_eq!(data["class"], "H2", "a required argument missing");
        let (_, data) = refused(client.get_prompt(get("a__greet", json!({"name": 7}))).await);
        assert_eq!(data["class"], "H3", "prompt arguments are strings");

        let resources = serde_json::to_value(client.list_all_resources().await.expect("resources/list")).unwrap();
        assert_eq!(resources, json!([{"uri": "tiny://readme", "name": "readme", "mimeType": "text/plain"}]));
        let templates = serde_json::to_value(client.list_all_resource_templates().await.expect("resources/templates/list")).unwrap();
        assert_eq!(templates, json!([{"uriTemplate": "tiny://notes/{id}", "name": "note"}]));
        for uri in ["tiny://readme", "tiny://notes/7"] {
            let read = client.read_resource(ReadResourceRequestParams::new(uri)).await.expect("resources/read");
            assert_eq!(serde_json::to_value(&read.contents).unwrap()[0]["text"], format!("a says: {uri}"));
        }
        for uri in ["tiny://secrets", "tiny://notes/", "tiny://notes/7/8", "file:///etc/passwd"] {
            let (code, data) = refused(client.read_resource(ReadResourceRequestParams::new(uri)).await);
            assert_eq!((code, data["class"].as_str()), (-32002, Some("M1")), "{uri}");
        }

        let complete = |reference: Reference, argument: &str| CompleteRequestParams::new(reference, ArgumentInfo::new(argument, "an"));
        let completed = client.complete(complete(Reference::for_prompt("a__greet"), "name")).await.expect("completion/complete");
        assert_eq!(completed.completion.values, ["ann", "anna"]);
        let completed = client.complete(complete(Reference::for_resource("tiny://notes/{id}"), "id")).await.expect("completion/complete");
        assert_eq!(completed.completion.values, ["ann", "anna"]);
        let (_, data) = refused(client.complete(complete(Reference::for_prompt("a__greet"), "tone")).await);
        assert_eq!(data["class"], "H2");
        let (_, data) = refused(client.complete(complete(Reference::for_resource("tiny://notes/{id}"), "user")).await);
        assert_eq!(data["class"], "H2");
        let (_, data) = refused(client.complete(complete(Reference::for_prompt("a__farewell"), "name")).await);
        assert_eq!(data["class"], "M1");
        let _ = client.cancel().await;

        // A deployment whose servers offer none of it advertises none of it.
        let plain = Deployment::new("offered-none", &[Tiny::new("b", "first-party")]);
        let (client, _) = stdio_client(&plain, &[]).await;
        let capabilities = serde_json::to_value(&client.peer_info().expect("initialized").capabilities).unwrap();
        assert!(
            capabilities.get("prompts").is_none() && capabilities.get("resources").is_none() && capabilities.get("completions").is_none() && capabilities.get("logging").is_none(),
            "{capabilities}"
        );
        let _ = client.cancel().await;
    });
    // Only the resolved requests reached the server, under its own names.
    let received: Vec<(String, Value)> = deployment.received("a").into_iter().map(|r| (r["method"].as_str().unwrap_or_default().to_owned(), r["params"].clone())).collect();
    let methods: Vec<&str> = received.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(methods, ["prompts/get", "resources/read", "resources/read", "completion/complete", "completion/complete"], "{received:?}");
    assert_eq!(received[0].1["name"], "greet");
    assert_eq!(received[3].1["ref"]["name"], "greet");
    assert!(deployment.received("b").is_empty());
}

/// A client that logs, subscribes and samples: what it hears, in order.
#[derive(Clone)]
struct Observer(mpsc::UnboundedSender<Value>);

#[allow(deprecated)] // logging and sampling: clients before 2026-07-28 use them
impl ClientHandler for Observer {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default().with_protocol_version(rmcp::model::ProtocolVersion::V_2025_11_25);
        info.capabilities.sampling = Some(Default::default());
        info
    }

    async fn create_message(&self, request: rmcp::model::CreateMessageRequestParams, _: rmcp::service::RequestContext<RoleClient>) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let _ = self.0.send(json!({"sampling": serde_json::to_value(&request.messages).unwrap()}));
        Ok(rmcp::model::CreateMessageResult::new(rmcp::model::SamplingMessage::assistant_text("forty-two"), "test-model".to_owned()))
    }

    async fn on_logging_message(&self, params: rmcp::model::LoggingMessageNotificationParam, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(json!({"log": serde_json::to_value(&params).unwrap()}));
    }

    async fn on_resource_updated(&self, params: rmcp::model::ResourceUpdatedNotificationParam, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(json!({"updated": params.uri}));
    }
}

#[test]
#[allow(deprecated)] // logging/setLevel and resources/subscribe: clients before 2026-07-28 use them
fn logs_updates_and_sampling_go_to_the_clients_that_asked_and_a_uri_two_servers_offer_is_qualified() {
    use rmcp::model::{LoggingLevel, ReadResourceRequestParams, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams};
    let offers = [("TINY_OFFERS", "1")];
    let deployment =
        Deployment::new("relays", &[Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("a", "first-party") }, Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("b", "first-party") }]);
    let heard = runtime().block_on(async {
        let mut command = tokio::process::Command::new(BIN);
        command.arg("gateway").arg("--manifest").arg(deployment.manifest());
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("the gateway starts");
        let (tx, mut rx) = mpsc::unbounded_channel();
        let client = tokio::time::timeout(Duration::from_secs(60), Observer(tx).serve(transport)).await.expect("in time").expect("initialize");
        let mut next = async || tokio::time::timeout(Duration::from_secs(30), rx.recv()).await.expect("heard in time").expect("a message");

        // Both servers list tiny://readme and the template tiny://notes/{id}: each is served qualified.
        let uris: Vec<String> = client.list_all_resources().await.expect("resources/list").into_iter().map(|r| r.uri.clone()).collect();
        assert_eq!(uris, ["a+tiny://readme", "b+tiny://readme"]);
        let templates: Vec<String> = client.list_all_resource_templates().await.expect("templates").into_iter().map(|t| t.uri_template.clone()).collect();
        assert_eq!(templates, ["a+tiny://notes/{id}", "b+tiny://notes/{id}"]);
        let read = client.read_resource(ReadResourceRequestParams::new("b+tiny://readme")).await.expect("a qualified read");
        assert_eq!(serde_json::to_value(&read.contents).unwrap()[0], json!({"uri": "b+tiny://readme", "mimeType": "text/plain", "text": "b says: tiny://readme"}));
        let read = client.read_resource(ReadResourceRequestParams::new("a+tiny://notes/7")).await.expect("a qualified read through a template");
        assert_eq!(serde_json::to_value(&read.contents).unwrap()[0]["text"], "a says: tiny://notes/7");
        for uri in ["tiny://readme", "tiny://notes/7"] {
            let (code, data) = refused(client.read_resource(ReadResourceRequestParams::new(uri)).await);
            assert_eq!((code, data["class"].as_str()), (-32002, Some("M2")), "{uri}");
            assert_eq!(data["suggestions"], json!([format!("a+{uri}"), format!("b+{uri}")]));
        }
        let (_, data) = refused(client.read_resource(ReadResourceRequestParams::new("c+tiny://readme")).await);
        assert_eq!(data["class"], "M1", "no server c");

        // Subscriptions: resolved like a read, sent to the one server, its update back under the client's URI.
        let (_, data) = refused(client.subscribe(SubscribeRequestParams::new("tiny://nowhere")).await);
        assert_eq!(data["class"], "M1");
        client.subscribe(SubscribeRequestParams::new("a+tiny://readme")).await.expect("subscribed");
        assert_eq!(next().await, json!({"updated": "a+tiny://readme"}));
        client.unsubscribe(UnsubscribeRequestParams::new("a+tiny://readme")).await.expect("unsubscribed");

        // Logs: both servers asked the level, each message at or above it relayed with its server in `logger`.
        client.set_level(SetLevelRequestParams::new(LoggingLevel::Info)).await.expect("setLevel");
        let mut logs = vec![next().await, next().await];
        logs.sort_by_key(Value::to_string);
        assert_eq!(
            logs,
            [json!({"log": {"level": "warning", "logger": "a__core", "data": "a: a warning message"}}), json!({"log": {"level": "warning", "logger": "b__core", "data": "b: a warning message"}})]
        );

        // Sampling mid-call goes to the client of the call, its answer back to the server.
        let result = call(&client, "a__think", json!({"prompt": "six times seven?"})).await.expect("a result");
        assert_eq!(next().await, json!({"sampling": [{"role": "user", "content": {"type": "text", "text": "six times seven?"}}]}));
        let answer: Value = serde_json::from_str(&text_of(&result)).expect("the server's JSON");
        assert_eq!((answer["model"].as_str(), answer["content"]["text"].as_str()), (Some("test-model"), Some("forty-two")), "{answer}");
        let _ = client.cancel().await;
        rx.try_recv().ok()
    });
    assert_eq!(heard, None, "no debug message, nothing else");
    let methods = |server: &str| -> Vec<(String, Value)> {
        deployment.received(server).into_iter().filter_map(|r| Some((r["method"].as_str()?.to_owned(), r["params"].get("uri").or(r["params"].get("level")).cloned().unwrap_or_default()))).collect()
    };
    let a = methods("a");
    assert_eq!(
        a,
        [
            ("resources/read".to_owned(), json!("tiny://notes/7")),
            ("resources/subscribe".to_owned(), json!("tiny://readme")),
            ("resources/unsubscribe".to_owned(), json!("tiny://readme")),
            ("logging/setLevel".to_owned(), json!("info")),
        ]
    );
    assert_eq!(methods("b"), [("resources/read".to_owned(), json!("tiny://readme")), ("logging/setLevel".to_owned(), json!("info"))]);
}

#[test]
#[allow(deprecated)] // resources/subscribe: clients before 2026-07-28 use it
fn over_http_a_subscription_is_held_while_any_client_holds_it_and_let_go_of_when_the_last_session_ends() {
    use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
    let offers = [("TINY_OFFERS", "1")];
    let deployment = Deployment::new("subscriptions", &[Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("a", "first-party") }]);
    let (mut child, url) = support::http_gateway(&deployment.manifest(), "", &[]);
    let subscriptions = || -> Vec<String> { deployment.received("a").into_iter().filter_map(|r| Some(r["method"].as_str()?.trim_start_matches("resources/").to_owned())).collect() };
    runtime().block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let connect = || async { Listener(mpsc::unbounded_channel().0).serve(StreamableHttpClientTransport::from_uri(url.clone())).await.expect("initialize over HTTP") };
        let (first, second) = (connect().await, connect().await);
        first.subscribe(SubscribeRequestParams::new("tiny://readme")).await.expect("subscribed");
        second.subscribe(SubscribeRequestParams::new("tiny://readme")).await.expect("subscribed");
        assert_eq!(subscriptions(), ["subscribe"], "the server is asked once for both clients");
        second.unsubscribe(UnsubscribeRequestParams::new("tiny://readme")).await.expect("unsubscribed");
        assert_eq!(subscriptions(), ["subscribe"], "the first client still holds it");
        second.unsubscribe(UnsubscribeRequestParams::new("tiny://readme")).await.expect("a second unsubscribe is nothing");
        // The first client goes away without unsubscribing: its session ends, and the server is let go.
        let _ = first.cancel().await;
        let _ = second.cancel().await;
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while subscriptions().len() < 2 && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    assert_eq!(subscriptions(), ["subscribe", "unsubscribe"]);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_servers_elicitation_mid_call_goes_to_the_client_of_that_call_only() {
    let offers = [("TINY_OFFERS", "1")];
    let deployment = Deployment::new("elicit", &[Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("a", "first-party") }]);
    runtime().block_on(async {
        let mut command = tokio::process::Command::new(BIN);
        command.arg("gateway").arg("--manifest").arg(deployment.manifest());
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("the gateway starts");
        let (asked, mut questions) = mpsc::unbounded_channel();
        let client = Person { yes: true, asked }.serve(transport).await.expect("initialize");
        let result = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(params("a__ask", json!({ "question": "delete it?" })))).await.expect("in time").expect("a result");
        let rmcp::model::CallToolResponse::Complete(result) = result else { panic!("not complete: {result:?}") };
        assert_eq!(questions.try_recv().ok().as_deref(), Some("delete it?"), "the server's question reached the client of the call");
        let heard: Value = serde_json::from_str(&text_of(&result)).expect("the server's JSON");
        assert_eq!(heard["action"], "accept", "the client's answer reached the server: {heard}");
        let _ = client.cancel().await;

        // A client without elicitation: the server hears an error, the call still ends.
        let (client, _) = stdio_client(&deployment, &[]).await;
        let result = call(&client, "a__ask", json!({ "question": "delete it?" })).await.expect("a result");
        let heard: Value = serde_json::from_str(&text_of(&result)).expect("the server's JSON");
        assert!(heard["message"].as_str().is_some_and(|m| m.contains("cannot be asked")), "{heard}");
        let _ = client.cancel().await;
    });
}

#[test]
fn a_servers_question_to_a_2026_07_28_client_is_an_input_round_and_the_held_call_goes_on() {
    use rmcp::model::{CallToolResponse, InputRequest, ProtocolVersion};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let offers = [("TINY_OFFERS", "1")];
    let deployment =
        Deployment::new("elicit-rounds", &[Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("a", "first-party") }, Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("b", "first-party") }]);
    let audit = deployment.dir.join("audit.jsonl");
    runtime().block_on(async {
        let transport = audited_gateway(&deployment, &audit);
        let (asked, mut questions) = mpsc::unbounded_channel();
        let modern = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let client = Person { yes: true, asked }.serve_with_lifecycle(transport, modern).await.expect("server/discover");
        let ask = |tool: &str, question: &str| params(tool, json!({ "question": question }));
        // rmcp's own loop: the person is asked the server's question, and the call finishes.
        let result = tokio::time::timeout(Duration::from_secs(60), client.call_tool(ask("a__ask", "archive it?"))).await.expect("in time").expect("a result");
        let heard: Value = serde_json::from_str(&text_of(&result)).expect("the server's JSON");
        assert_eq!(heard["action"], "accept", "{heard}");
        assert_eq!(questions.try_recv().ok().as_deref(), Some("archive it?"), "the server's question reached the person");
        // The round as the wire has it: the server's own question, and a state to send back.
        let round = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(ask("a__ask", "delete it?"))).await.expect("in time").expect("an answer");
        let CallToolResponse::InputRequired(round) = round else { panic!("an input round, got {round:?}") };
        let requests = round.input_requests.expect("the server's question");
        let Some((key, InputRequest::Elicitation(request))) = requests.iter().next() else { panic!("an elicitation: {requests:?}") };
        let message = serde_json::to_value(&request.params).expect("JSON")["message"].clone();
        assert_eq!((requests.len(), message), (1, json!("delete it?")), "the server's question, once");
        let state = round.request_state.expect("a request state");
        let answer = std::collections::BTreeMap::from([(key.clone(), json!({"action": "accept", "content": {"answer": "yes"}}))]);
        // The answer sent with another call answers nothing held: that call is new, and asked anew.
        let other = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(ask("b__ask", "delete it?").with_input_responses(answer.clone()).with_request_state(state.clone())))
            .await
            .expect("in time")
            .expect("an answer");
        assert!(matches!(other, CallToolResponse::InputRequired(_)), "{other:?}");
        // The held call with its answer: the server hears it and finishes the call.
        let done = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(ask("a__ask", "delete it?").with_input_responses(answer.clone()).with_request_state(state.clone())))
            .await
            .expect("in time")
            .expect("an answer");
        let CallToolResponse::Complete(done) = done else { panic!("the held call's result: {done:?}") };
        let heard: Value = serde_json::from_str(&text_of(&done)).expect("the server's JSON");
        assert_eq!((heard["action"].as_str(), heard["content"]["answer"].as_str()), (Some("accept"), Some("yes")), "{heard}");
        // The state is used up: the same call again is a new call, asked anew.
        let reused = tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(ask("a__ask", "delete it?").with_input_responses(answer).with_request_state(state)))
            .await
            .expect("in time")
            .expect("an answer");
        assert!(matches!(reused, CallToolResponse::InputRequired(_)), "{reused:?}");
        let _ = client.cancel().await;
    });
    // The calls each server received (its log also holds the cancellations the gateway sent at shutdown).
    let questions = |server: &str| -> Vec<String> { deployment.received(server).iter().filter_map(|c| Some(c.get("arguments")?["question"].as_str()?.to_owned())).collect() };
    assert_eq!(questions("a"), ["archive it?", "delete it?", "delete it?"], "the held call was sent once, and finished with its answer");
    assert_eq!(questions("b"), ["delete it?"]);
    let endings: Vec<String> = audit_records(&audit).iter().map(|r| r["ending"].as_str().unwrap_or_default().to_owned()).collect();
    // The two calls still held when the client left end with the gateway, audited so.
    assert_eq!(endings, ["pending", "executed", "pending", "pending", "executed", "pending", "shutdown", "shutdown"]);
}

#[test]
fn a_held_call_whose_client_never_comes_back_ends_at_the_servers_timeout() {
    use rmcp::model::{CallToolResponse, InputRequest, ProtocolVersion};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let offers = [("TINY_OFFERS", "1")];
    let deployment = Deployment::new("held-expiry", &[Tiny { env: &offers, pinned_env: &offers, ..Tiny::new("a", "first-party") }]);
    let audit = deployment.dir.join("audit.jsonl");
    runtime().block_on(async {
        let mut command = tokio::process::Command::new(BIN);
        command.arg("gateway").arg("--manifest").arg(deployment.manifest()).args(["--timeout", "3", "--audit", audit.to_str().unwrap()]);
        let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().expect("the gateway starts");
        let (asked, _) = mpsc::unbounded_channel();
        let modern = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let client = Person { yes: true, asked }.serve_with_lifecycle(transport, modern).await.expect("server/discover");
        let ask = |question: &str| params("a__ask", json!({ "question": question }));
        let first = client.call_tool_once(ask("first?")).await.expect("an answer");
        assert!(matches!(first, CallToolResponse::InputRequired(_)), "{first:?}");
        // The client never comes back; past the server's timeout the call is let go of, and the
        // next call's question is relayed (the first no longer counts as in flight).
        tokio::time::sleep(Duration::from_millis(4500)).await;
        let second = tokio::time::timeout(Duration::from_secs(30), client.call_tool_once(ask("second?"))).await.expect("in time").expect("an answer");
        let CallToolResponse::InputRequired(round) = second else { panic!("the second call's round: {second:?}") };
        let requests = round.input_requests.expect("the question");
        let Some(InputRequest::Elicitation(request)) = requests.values().next() else { panic!("{requests:?}") };
        assert_eq!(serde_json::to_value(&request.params).expect("JSON")["message"], "second?");
        let _ = client.cancel().await;
    });
    let records = audit_records(&audit);
    let first: Vec<(String, bool, String)> = records
        .iter()
        .filter(|r| r["seq"] == records[0]["seq"])
        .map(|r| (r["ending"].as_str().unwrap_or_default().to_owned(), r["executed"].as_bool().unwrap_or_default(), r["error"].as_str().unwrap_or_default().to_owned()))
        .collect();
    assert_eq!(first.len(), 2, "the round's record and the end's: {records:?}");
    assert_eq!((first[0].0.as_str(), first[1].0.as_str(), first[1].1), ("pending", "failed", true), "{first:?}");
    assert!(first[1].2.contains("timeout"), "{first:?}");
}

#[test]
fn a_2026_07_28_listen_stream_hears_what_the_servers_change() {
    use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let env = [("TINY_OFFERS", "1"), ("TINY_ANNOUNCE", "1")];
    let deployment = Deployment::new("listen", &[Tiny { env: &env, pinned_env: &env, ..Tiny::new("a", "first-party") }]);
    let audit = deployment.dir.join("audit.jsonl");
    runtime().block_on(async {
        let transport = audited_gateway(&deployment, &audit);
        let (asked, _) = mpsc::unbounded_channel();
        let modern = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let client = Person { yes: true, asked }.serve_with_lifecycle(transport, modern).await.expect("server/discover");
        let wanted = SubscriptionFilter::builder().tools_list_changed().prompts_list_changed().resources_list_changed().build();
        let mut stream = tokio::time::timeout(Duration::from_secs(60), client.listen(wanted.clone())).await.expect("in time").expect("subscriptions/listen");
        assert_eq!(stream.acknowledged(), &wanted, "the lists a connected server offers are taken");
        // The server announces that its prompts and resources changed during a call.
        let result = call(&client, "a__echo", json!({ "text": "hello" })).await.expect("a result");
        assert_eq!(text_of(&result), "hello");
        let mut heard = std::collections::BTreeSet::new();
        while heard.len() < 2 {
            let next = tokio::time::timeout(Duration::from_secs(30), stream.next()).await.expect("a notification in time").expect("the stream").expect("open");
            match next {
                ServerNotification::PromptListChangedNotification(_) => heard.insert("prompts"),
                ServerNotification::ResourceListChangedNotification(_) => heard.insert("resources"),
                other => panic!("only what changed: {other:?}"),
            };
        }
        let _ = client.cancel().await;
    });
}

#[test]
fn prompts_are_pinned_and_one_changed_since_is_m4_until_approved() {
    use rmcp::model::GetPromptRequestParams;
    let pinned = [("TINY_OFFERS", "1")];
    let changed = [("TINY_OFFERS", "1"), ("TINY_VARIANT", "changed")];
    let deployment = Deployment::new("prompt-pin", &[Tiny { env: &changed, pinned_env: &pinned, ..Tiny::new("a", "first-party") }]);
    let pin: Value = serde_json::from_slice(&std::fs::read(deployment.dir.join("a.json")).unwrap()).unwrap();
    assert_eq!(pin["prompts"][0]["name"], "greet", "the capture pins the prompts: {pin}");
    let get = |name: &str| GetPromptRequestParams::new(name).with_arguments(json!({"name": "ann"}).as_object().cloned().unwrap());
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &[]).await;
        let prompts = client.list_all_prompts().await.expect("prompts/list");
        let listed: Vec<(&str, Option<&str>)> = prompts.iter().map(|p| (p.name.as_str(), p.description.as_deref())).collect();
        assert_eq!(listed, [("a__greet", Some("A greeting."))], "the pinned definition, not the changed one, and not the added prompt");
        let (_, data) = refused(client.get_prompt(get("a__greet")).await);
        assert_eq!(data["class"], "M4", "changed since the pin");
        let (_, data) = refused(client.get_prompt(get("a__farewell")).await);
        assert_eq!(data["class"], "M1", "added since the pin: unknown until approved");
        let _ = client.cancel().await;
    });
    assert!(deployment.received("a").is_empty(), "no prompt request reached the server");
    // `--check` reports the prompts' drift beside the tools'.
    let (code, out) = deployment.run(&["gateway", "--check"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("a: differs from its pin:") && out.contains("added prompt farewell") && out.contains("changed prompt greet"), "{out}");
    let (code, out) = deployment.run(&["approve", "a"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = deployment.run(&["gateway", "--check"]);
    assert_eq!((code, out.contains("a: matches its pin")), (0, true), "approved: {out}");
    runtime().block_on(async {
        let (client, _) = stdio_client(&deployment, &[]).await;
        let names: Vec<String> = client.list_all_prompts().await.expect("prompts/list").into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["a__farewell", "a__greet"]);
        let greeting = client.get_prompt(get("a__greet")).await.expect("approved: served");
        assert_eq!(serde_json::to_value(&greeting.messages).unwrap()[0]["content"]["text"], "Hello, ann");
        let _ = client.cancel().await;
    });
}
