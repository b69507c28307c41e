//! The `toolseal` command: capture and drift check against a real stdio MCP
//! server (`tests/servers/tiny_mcp.py`, Python standard library only), bulk
//! resolution, lint, and the exit codes.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use toolseal_runtime::schema::CompileOptions;

fn toolseal(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolseal"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(support::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the toolseal binary runs");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("it exits");
    writer.join().expect("stdin written");
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const SERVER: [&str; 2] = ["python3", "tests/servers/tiny_mcp.py"];

#[test]
fn capture_writes_a_registry_the_build_compiles_and_check_reports_drift() {
    let out_file = std::env::temp_dir().join(format!("toolseal-capture-{}.json", std::process::id()));
    let out_arg = out_file.to_string_lossy().into_owned();
    let run = toolseal(&["capture", "--out", &out_arg, "--", SERVER[0], SERVER[1]], &[], b"");
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let captured = std::fs::read(&out_file).expect("written");
    let listing: serde_json::Value = serde_json::from_slice(&captured).expect("JSON");
    let names: Vec<&str> = listing["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["add", "echo", "now", "sleep", "upper"], "every page of tools/list, sorted");
    assert_eq!(listing["serverInfo"]["name"], "tiny");
    assert_eq!(listing["digests"].as_object().map(|d| d.len()), Some(5));
    // The lockfile compiles, and capturing twice gives the same bytes.
    toolseal_build::generate_source(&captured, &out_file, "tiny", &CompileOptions::default()).expect("toolseal-build compiles the capture");
    let again = toolseal(&["capture", "--", SERVER[0], SERVER[1]], &[], b"");
    assert_eq!(again.stdout, captured, "deterministic");

    let unchanged = toolseal(&["capture", "--check", &out_arg, "--", SERVER[0], SERVER[1]], &[], b"");
    assert_eq!(unchanged.status.code(), Some(0), "{}", text(&unchanged.stdout));
    assert!(text(&unchanged.stdout).contains("unchanged: 5 tools"));

    let drift = toolseal(&["capture", "--check", &out_arg, "--", SERVER[0], SERVER[1]], &[("TINY_VARIANT", "changed")], b"");
    assert_eq!(drift.status.code(), Some(1));
    let report = text(&drift.stdout);
    for line in ["changed: add (inputSchema)", "changed: echo (description)", "removed: sleep", "added: zap"] {
        assert!(report.contains(line), "{line} in {report}");
    }
    std::fs::remove_file(&out_file).ok();
}

#[test]
fn servers_that_do_not_start_or_answer_are_clear_errors() {
    let missing = toolseal(&["capture", "--", "/nonexistent/mcp-server"], &[], b"");
    assert_eq!(missing.status.code(), Some(3));
    assert!(text(&missing.stderr).contains("cannot start"), "{}", text(&missing.stderr));
    let started = std::time::Instant::now();
    let silent = toolseal(&["capture", "--timeout", "2", "--", SERVER[0], SERVER[1]], &[("TINY_VARIANT", "silent")], b"");
    assert_eq!(silent.status.code(), Some(5), "{}", text(&silent.stderr));
    assert!(text(&silent.stderr).contains("initialize"));
    assert!(started.elapsed().as_secs() < 30, "bounded by the timeout");
    let exits = toolseal(&["capture", "--", "true"], &[], b"");
    assert_eq!(exits.status.code(), Some(4), "a process that exits at once: {}", text(&exits.stderr));
    let usage = toolseal(&["capture"], &[], b"");
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn capture_reaches_an_http_server_with_headers_from_the_environment_and_prints_no_value() {
    let dir = two_tier_deployment("toolseal-capture-url", "");
    let token = format!("capture-url-canary-{}", std::process::id());
    let (mut gateway, url) = support::http_gateway(&dir.join("toolseal.toml"), &token, &[]);
    let header = "Authorization: Bearer ${TOK}";
    let mut outputs = Vec::new();

    let run = toolseal(&["capture", "--url", &url, "--header", header], &[("TOK", &token)], b"");
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let listing: serde_json::Value = serde_json::from_slice(&run.stdout).expect("a registry on stdout");
    let names: Vec<&str> = listing["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    for name in ["alpha__add", "alpha__upper", "beta__echo", "beta__sleep"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(names.len() == 10 && names.iter().all(|n| n.starts_with("alpha__") || n.starts_with("beta__")), "the gateway's qualified tools: {names:?}");
    assert_eq!(listing["digests"].as_object().map(|d| d.len()), Some(10));
    outputs.push(run);

    // Written and checked against, with the header given as `Name:value` too.
    let pin = dir.join("gateway.json");
    let pin_arg = pin.to_string_lossy().into_owned();
    let written = toolseal(&["capture", "--out", &pin_arg, "--url", &url, "--header", "Authorization:Bearer ${TOK}", "--header", "X-Client: ${UNSET_CLIENT:-test}"], &[("TOK", &token)], b"");
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    let checked = toolseal(&["capture", "--check", &pin_arg, "--url", &url, "--header", header], &[("TOK", &token)], b"");
    assert_eq!(checked.status.code(), Some(0), "{}{}", text(&checked.stdout), text(&checked.stderr));
    assert!(text(&checked.stdout).contains("unchanged: 10 tools"), "{}", text(&checked.stdout));
    outputs.extend([written, checked]);

    // No header, a wrong token, a variable not set: clear failures, no value shown.
    let refused = toolseal(&["capture", "--timeout", "20", "--url", &url], &[], b"");
    assert_eq!(refused.status.code(), Some(4), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains(&url) && text(&refused.stderr).contains("initialize"), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("the server wants credentials: pass them with --header"), "{}", text(&refused.stderr));
    let wrong = toolseal(&["capture", "--timeout", "20", "--url", &url, "--header", header], &[("TOK", "not-the-token")], b"");
    assert_eq!(wrong.status.code(), Some(4), "{}", text(&wrong.stderr));
    assert!(!text(&wrong.stderr).contains("not-the-token"), "{}", text(&wrong.stderr));
    let unset = toolseal(&["capture", "--url", &url, "--header", header], &[], b"");
    assert_eq!(unset.status.code(), Some(2), "{}", text(&unset.stderr));
    assert!(text(&unset.stderr).contains("\"Authorization\"") && text(&unset.stderr).contains("${TOK} is not set"), "{}", text(&unset.stderr));
    let literal = format!("Authorization {token}");
    let malformed = toolseal(&["capture", "--url", &url, "--header", &literal], &[], b"");
    assert_eq!(malformed.status.code(), Some(2), "{}", text(&malformed.stderr));
    assert!(text(&malformed.stderr).contains("not `Name: value`"), "{}", text(&malformed.stderr));
    outputs.extend([refused, wrong, unset, malformed]);
    for out in &outputs {
        assert!(!text(&out.stdout).contains(&token) && !text(&out.stderr).contains(&token), "the token in an output: {}{}", text(&out.stdout), text(&out.stderr));
    }
    assert!(!std::fs::read_to_string(&pin).expect("pin").contains(&token));

    // Exactly one of --url and a command; --header only with --url.
    let both = toolseal(&["capture", "--url", &url, "--", SERVER[0], SERVER[1]], &[], b"");
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stderr));
    let stray = toolseal(&["capture", "--header", "X: y", "--", SERVER[0], SERVER[1]], &[], b"");
    assert_eq!(stray.status.code(), Some(2), "{}", text(&stray.stderr));
    let bad_url = toolseal(&["capture", "--url", "ftp://127.0.0.1/mcp"], &[], b"");
    assert_eq!(bad_url.status.code(), Some(2), "{}", text(&bad_url.stderr));

    let _ = gateway.kill();
    let _ = gateway.wait();
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn resolve_writes_one_verdict_per_call() {
    let input = concat!(
        r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"all of it","override":true}}"#,
        "\n",
        r#"{"choices":[{"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_balance","arguments":"{\"account_id\":\"acct-1\"}"}},{"id":"call_2","type":"function","function":{"name":"wipe","arguments":"{}"}}]}}]}"#,
        "\n\nnot json\n",
        r#"{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"get_balance","input":{"account_id":"x"}}]}"#,
        "\n"
    );
    let run = toolseal(&["resolve", "--registry", "examples/transfer_funds/registry/bank.json"], &[], input.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let verdicts: Vec<serde_json::Value> = text(&run.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let summary: Vec<(u64, &str, &str)> =
        verdicts.iter().map(|v| (v["line"].as_u64().unwrap_or(0), v["verdict"].as_str().unwrap_or(""), v["class"].as_str().or(v["tool"].as_str()).unwrap_or(""))).collect();
    assert_eq!(summary, [(1, "reject", "H2"), (2, "accept", "get_balance"), (2, "reject", "H1"), (4, "reject", "Malformed"), (5, "reject", "H3")]);
    assert_eq!(verdicts[0]["pointer"], "/arguments/override");
    assert_eq!(verdicts[2]["id"], "call_2");

    let merged = toolseal(
        &["resolve", "--manifest", "tests/deployments/synthetic.toml"],
        &[],
        b"{\"name\":\"search\",\"arguments\":{\"query\":\"x\"}}\n{\"name\":\"files__search\",\"arguments\":{\"query\":\"x\"}}\n",
    );
    let lines: Vec<serde_json::Value> = text(&merged.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!((lines[0]["class"].as_str(), lines[1]["server"].as_str()), (Some("M2"), Some("files")));
}

/// The verdict lines of a `resolve` run with `args` on `input`.
fn resolve_lines(args: &[&str], input: &str) -> Vec<serde_json::Value> {
    let run = toolseal(args, &[], input.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    json_lines(&run)
}

#[test]
fn resolve_reads_bare_output_items_and_pinned_call_objects() {
    let input = [
        r#"{"type":"mcp_call","id":"mcp_1","server_label":"storage","name":"search","arguments":"{\"prefix\":\"a/\"}","output":null,"error":null}"#,
        r#"{"type":"function_call","id":"fc_1","call_id":"call_1","name":"files__search","arguments":"{\"query\":\"x\"}","status":"completed"}"#,
        r#"{"type":"function_call","call_id":"call_2","name":"search","arguments":"{\"query\":\"x\"}"}"#,
        r#"{"server":"files","name":"search","arguments":{"query":"x"}}"#,
        r#"{"server":"storage","name":"search","arguments":{"query":"x"}}"#,
        r#"{"server":"gamma","name":"search","arguments":{"query":"x"}}"#,
        r#"{"server":7,"name":"search","arguments":{"query":"x"}}"#,
        r#"{"server":"files","name":"search","arguments":{"query":"x"},"id":"call_3"}"#,
    ]
    .join("\n");
    let lines = resolve_lines(&["resolve", "--manifest", "tests/deployments/synthetic.toml"], &input);
    let got: Vec<_> = lines.iter().map(|l| (l["id"].as_str(), l["class"].as_str().or(l["verdict"].as_str()), l["server"].as_str(), l["pointer"].as_str())).collect();
    assert_eq!(
        got,
        [
            (Some("mcp_1"), Some("accept"), Some("storage"), None),
            (Some("call_1"), Some("accept"), Some("files"), None),
            (Some("call_2"), Some("M2"), None, Some("/name")),
            (None, Some("accept"), Some("files"), None),
            (None, Some("M5"), Some("storage"), Some("/arguments/query")),
            (None, Some("M1"), Some("gamma"), Some("/name")),
            (None, Some("Malformed"), None, Some("/server")),
            (None, Some("Malformed"), None, Some("/id")),
        ],
        "{lines:#?}"
    );
    assert!(lines[4]["message"].as_str().is_some_and(|m| m.contains("files__search")), "M5 names the tool they fit: {}", lines[4]);

    // One registry: the same shapes resolve (a pin names the one server).
    let input = [
        r#"{"type":"function_call","call_id":"call_1","name":"get_balance","arguments":"{\"account_id\":\"acct-1\"}"}"#,
        r#"{"type":"mcp_call","id":"mcp_1","server_label":"bank","name":"get_balance","arguments":"{\"account_id\":\"acct-1\"}"}"#,
        r#"{"server":"bank","name":"get_balance","arguments":{"account_id":"acct-1"}}"#,
    ]
    .join("\n");
    let lines = resolve_lines(&["resolve", "--registry", "examples/transfer_funds/registry/bank.json"], &input);
    assert!(lines.len() == 3 && lines.iter().all(|l| l["verdict"] == "accept" && l["tool"] == "get_balance"), "{lines:#?}");
}

#[test]
fn lenient_accept_verdicts_report_each_coercion() {
    let input = [
        r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"42"}}"#,
        r#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#,
        r#"{"choices":[{"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_transactions","arguments":"{\"account_id\":\"acct-1\",\"limit\":\"5\"}"}}]}}]}"#,
    ]
    .join("\n");
    let bank = ["resolve", "--registry", "examples/transfer_funds/registry/bank.json"];
    let strict = resolve_lines(&bank, &input);
    assert_eq!(strict.iter().map(|l| l["class"].as_str().unwrap_or("accept")).collect::<Vec<_>>(), ["H3", "accept", "H3"]);
    assert!(strict.iter().all(|l| l.get("coercions").is_none()));
    let lenient = resolve_lines(&[&bank[..], &["--lenient"]].concat(), &input);
    assert!(lenient.iter().all(|l| l["verdict"] == "accept"), "{lenient:#?}");
    assert_eq!(lenient[0]["coercions"], serde_json::json!([{ "pointer": "/arguments/amount", "text": "42" }]));
    assert!(lenient[1].get("coercions").is_none(), "no coercion, nothing said: {}", lenient[1]);
    assert_eq!(lenient[2]["coercions"], serde_json::json!([{ "pointer": "/arguments/limit", "text": "5" }]));

    // Routed across a deployment too, and only the routed tool's coercions.
    let input = r#"{"name":"files__search","arguments":{"query":"x","limit":"5"}}"#;
    let lines = resolve_lines(&["resolve", "--manifest", "tests/deployments/synthetic.toml", "--lenient"], input);
    assert_eq!((lines[0]["verdict"].as_str(), lines[0]["server"].as_str()), (Some("accept"), Some("files")));
    assert_eq!(lines[0]["coercions"], serde_json::json!([{ "pointer": "/arguments/limit", "text": "5" }]));
}

#[test]
fn resolve_rejects_a_call_with_no_name_as_malformed() {
    let input = [
        r#"{"arguments":{}}"#,
        r#"{"choices":[{"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"arguments":"{}"}}]}}]}"#,
        r#"{"output":[{"type":"function_call","call_id":"call_1","arguments":"{}"}]}"#,
        r#"{"output":[{"type":"mcp_call","id":"mcp_1","server_label":"files","arguments":"{}"}]}"#,
        r#"{"type":"function_call","call_id":"call_1","arguments":"{}"}"#,
        r#"{"server":"files","arguments":{}}"#,
        r#"{"type":"message","content":[{"type":"tool_use","id":"toolu_1","input":{}}]}"#,
        r#"{"content":[{"type":"mcp_tool_use","id":"mcptoolu_1","server_name":"files","input":{}}]}"#,
        r#"{"output":{"message":{"content":[{"toolUse":{"toolUseId":"t1","input":{}}}]}}}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"args":{}}}]}}]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
    ]
    .join("\n");
    for args in [
        &["resolve", "--registry", "examples/transfer_funds/registry/bank.json"][..],
        &["resolve", "--manifest", "tests/deployments/synthetic.toml"],
        &["resolve", "--registry", "examples/transfer_funds/registry/bank.json", "--lenient"],
    ] {
        let lines = resolve_lines(args, &input);
        assert_eq!(lines.len(), 11, "{args:?}: {lines:#?}");
        for l in &lines {
            assert_eq!((l["class"].as_str(), l["pointer"].as_str()), (Some("Malformed"), Some("/name")), "{args:?}: {l}");
            assert!(l["message"].as_str().is_some_and(|m| m.contains("no \"name\"")), "{args:?}: {l}");
        }
    }
}

#[test]
fn resolve_streams_many_lines_and_rejects_oversized_ones() {
    let mut input = Vec::new();
    for i in 0..100_000 {
        writeln!(input, r#"{{"name":"get_balance","arguments":{{"account_id":"acct-{i}"}}}}"#).expect("write");
    }
    input.extend_from_slice(format!("{{\"name\":\"get_balance\",\"arguments\":{{\"account_id\":\"{}\"}}}}\n", "9".repeat(2 << 20)).as_bytes());
    let run = toolseal(&["resolve", "--registry", "examples/transfer_funds/registry/bank.json"], &[], &input);
    assert_eq!(run.status.code(), Some(0));
    let out = text(&run.stdout);
    assert_eq!(out.lines().count(), 100_001);
    assert_eq!(out.lines().filter(|l| l.contains("\"accept\"")).count(), 100_000);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().expect("a line")).expect("JSON");
    assert_eq!((last["class"].as_str(), last["line"].as_u64()), (Some("Malformed"), Some(100_001)));
    assert!(last["message"].as_str().is_some_and(|m| m.contains("limit") && m.len() < 200));
}

#[test]
fn lint_reports_what_weakens_resolution() {
    let run = toolseal(&["lint", "tests/registries/mcp/server-filesystem.json", "tests/registries/mcp/server-filesystem-2025.8.21.json", "tests/deployments/community-tools.json"], &[], b"");
    assert_eq!(run.status.code(), Some(0), "warnings only");
    let report = text(&run.stdout);
    assert!(report.contains("read_file: warning: declared by 3 servers"), "{report}");
    assert!(report.contains("descriptions differ"));
    assert!(report.contains("3 files, 0 errors"));
    let bad = std::env::temp_dir().join(format!("toolseal-lint-{}.json", std::process::id()));
    std::fs::write(&bad, r#"{"tools":[{"name":"x y","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"(?=a)"}}}}]}"#).expect("write");
    let run = toolseal(&["lint", &bad.to_string_lossy()], &[], b"");
    assert_eq!(run.status.code(), Some(1));
    let report = text(&run.stdout);
    assert!(report.contains("x y: error: quarantined") && report.contains("cannot be enforced") && report.contains("keyword `pattern`"), "{report}");
    assert!(report.contains("has no `additionalProperties`") && report.contains("outside [a-zA-Z0-9_-]"), "{report}");
    std::fs::remove_file(&bad).ok();
}

#[test]
fn host_forwards_only_resolved_calls_and_answers_rejections_as_is_error() {
    let log = std::env::temp_dir().join(format!("toolseal-host-{}.log", std::process::id()));
    let log_arg = log.to_string_lossy().into_owned();
    let replies = concat!(
        r#"{"name":"add","arguments":{"a":2,"b":3}}"#,
        "\n",
        r#"{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"echo","input":{"text":"hi"}},{"type":"tool_use","id":"toolu_2","name":"add","input":{"a":"2","b":3}},{"type":"tool_use","id":"toolu_3","name":"delete_everything","input":{}},{"type":"tool_use","id":"toolu_4","name":"echo","input":{"text":"hi","cc":"x"}}]}"#,
        "\n"
    );
    let run = toolseal(&["host", "--", SERVER[0], SERVER[1]], &[("TINY_LOG", &log_arg)], replies.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let lines: Vec<serde_json::Value> = text(&run.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let summary: Vec<(bool, Option<&str>, bool)> = lines.iter().map(|l| (l["forwarded"].as_bool().unwrap_or(false), l["class"].as_str(), l["result"]["isError"].as_bool().unwrap_or(false))).collect();
    assert_eq!(summary, [(true, None, false), (true, None, false), (false, Some("H3"), true), (false, Some("H1"), true), (false, Some("H2"), true)]);
    assert_eq!(lines[0]["result"]["content"][0]["text"], "5", "the real result came back");
    // The server saw exactly the two resolved calls.
    let seen: Vec<String> =
        std::fs::read_to_string(&log).expect("the server's log").lines().map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["name"].as_str().unwrap_or("").to_owned()).collect();
    assert_eq!(seen, ["add", "echo"]);
    std::fs::remove_file(&log).ok();

    // Against a capture, a tool the server changed since is stale (M4) and not sent.
    let capture = std::env::temp_dir().join(format!("toolseal-host-capture-{}.json", std::process::id()));
    let capture_arg = capture.to_string_lossy().into_owned();
    assert_eq!(toolseal(&["capture", "--out", &capture_arg, "--", SERVER[0], SERVER[1]], &[], b"").status.code(), Some(0));
    let run = toolseal(
        &["host", "--registry", &capture_arg, "--", SERVER[0], SERVER[1]],
        &[("TINY_VARIANT", "changed"), ("TINY_LOG", &log_arg)],
        b"{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}\n{\"name\":\"upper\",\"arguments\":{\"text\":\"hi\"}}\n",
    );
    let lines: Vec<serde_json::Value> = text(&run.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!((lines[0]["class"].as_str(), lines[1]["forwarded"].as_bool()), (Some("M4"), Some(true)), "{lines:?}");
    assert_eq!(lines[1]["result"]["content"][0]["text"], "HI");
    std::fs::remove_file(&capture).ok();
    std::fs::remove_file(&log).ok();
}

/// A directory with captures of two tiny servers, `alpha` (first-party) and
/// `beta` (community), and a `toolseal.toml` that starts them; `beta`'s
/// command starts with `beta_prefix` (TOML array items, e.g. an `env` call).
fn two_tier_deployment(name: &str, beta_prefix: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let server = support::root().join("tests/servers/tiny_mcp.py").to_string_lossy().into_owned();
    for name in ["alpha", "beta"] {
        let out = dir.join(format!("{name}.json")).to_string_lossy().into_owned();
        assert_eq!(toolseal(&["capture", "--out", &out, "--", "python3", &server, name], &[], b"").status.code(), Some(0));
    }
    let manifest = format!(
        "tiers = [\"first-party\", \"community\"]\n\n[[servers]]\nname = \"alpha\"\ntier = \"first-party\"\nregistry = \"alpha.json\"\ncommand = [\"python3\", {server:?}, \"alpha\"]\n\n[[servers]]\nname = \"beta\"\ntier = \"community\"\nregistry = \"beta.json\"\ncommand = [{beta_prefix}\"python3\", {server:?}, \"beta\"]\n"
    );
    std::fs::write(dir.join("toolseal.toml"), manifest).expect("manifest");
    dir
}

#[test]
fn a_merged_host_session_routes_every_call_to_one_server_or_rejects_it() {
    let dir = two_tier_deployment("toolseal-merged", "");
    let log = dir.join("calls.log").to_string_lossy().into_owned();
    let replies = concat!(
        r#"{"name":"add","arguments":{"a":1,"b":2}}"#,
        "\n",
        r#"{"name":"alpha__add","arguments":{"a":1,"b":2}}"#,
        "\n",
        r#"{"type":"message","content":[{"type":"mcp_tool_use","id":"mcptoolu_1","name":"echo","server_name":"beta","input":{"text":"to beta"}},{"type":"mcp_tool_use","id":"mcptoolu_2","name":"echo","server_name":"gamma","input":{"text":"?"}}]}"#,
        "\n",
        r#"{"name":"alpha__add","arguments":{"a":"one","b":2}}"#,
        "\n"
    );
    let manifest_arg = dir.join("toolseal.toml").to_string_lossy().into_owned();
    let run = toolseal(&["host", "--manifest", &manifest_arg], &[("TINY_LOG", &log)], replies.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let lines: Vec<serde_json::Value> = text(&run.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let summary: Vec<(bool, Option<&str>, Option<&str>)> = lines.iter().map(|l| (l["forwarded"].as_bool().unwrap_or(false), l["class"].as_str(), l["server"].as_str())).collect();
    assert_eq!(summary, [(false, Some("M3"), None), (true, None, Some("alpha")), (true, None, Some("beta")), (false, Some("M1"), Some("gamma")), (false, Some("H3"), Some("alpha"))]);
    assert!(lines.iter().filter(|l| l["forwarded"] == false).all(|l| l["result"]["isError"] == true));
    let seen: Vec<(String, String)> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            (v["server"].as_str().unwrap_or("").to_owned(), v["name"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    assert_eq!(seen, [("alpha".to_owned(), "add".to_owned()), ("beta".to_owned(), "echo".to_owned())], "only resolved calls reached a server, each the routed one");
    std::fs::remove_dir_all(&dir).ok();
}

/// Lines of a host run, as JSON.
fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    text(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect()
}

/// The `(server, name)` of every call the tiny servers logged.
fn logged(log: &std::path::Path) -> Vec<(String, String)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            (v["server"].as_str().unwrap_or("").to_owned(), v["name"].as_str().unwrap_or("").to_owned())
        })
        .collect()
}

#[test]
fn a_listing_changed_mid_session_holds_changed_tools_as_m4_until_accepted() {
    let log = std::env::temp_dir().join(format!("toolseal-host-change-{}.log", std::process::id()));
    let log_arg = log.to_string_lossy().into_owned();
    let replies = concat!(
        r#"{"name":"add","arguments":{"a":2,"b":3}}"#,
        "\n",
        r#"{"name":"add","arguments":{"a":2,"b":3}}"#,
        "\n",
        r#"{"name":"zap","arguments":{}}"#,
        "\n",
        r#"{"name":"sleep","arguments":{}}"#,
        "\n",
        r#"{"toolseal":"accept","server":"nobody"}"#,
        "\n",
        r#"{"toolseal":"accept","server":"tiny"}"#,
        "\n",
        r#"{"name":"add","arguments":{"a":2,"b":3.5}}"#,
        "\n",
        r#"{"name":"zap","arguments":{}}"#,
        "\n",
        r#"{"name":"sleep","arguments":{}}"#,
        "\n",
    );
    // The server changes `add` (b becomes a number), drops `sleep` and adds `zap` after the first call.
    let run = toolseal(&["host", "--", SERVER[0], SERVER[1]], &[("TINY_LOG", &log_arg), ("TINY_CHANGE_AFTER", "1")], replies.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let lines = json_lines(&run);
    let outcome = |l: &serde_json::Value| match l["event"].as_str() {
        Some(event) => format!("{event}:{}", l["accepted"]),
        None => format!("{}:{}", l["line"], l["class"].as_str().unwrap_or(if l["forwarded"] == true { "forwarded" } else { "?" })),
    };
    let got: Vec<String> = lines.iter().map(outcome).collect();
    assert_eq!(got, ["1:forwarded", "tools_list_changed:false", "2:M4", "3:H1", "4:M4", "accept:false", "accept:true", "7:forwarded", "8:forwarded", "9:H1"], "{lines:#?}");
    assert_eq!((lines[1]["changed"].clone(), lines[1]["removed"].clone(), lines[1]["added"].clone()), (serde_json::json!(["add", "echo"]), serde_json::json!(["sleep"]), serde_json::json!(["zap"])));
    assert!(lines[2]["result"]["content"][0]["text"].as_str().unwrap_or("").contains("\"tiny\" changed \"add\" since the session started"), "{}", lines[2]);
    assert!(lines[5]["error"].as_str().unwrap_or("").contains("tiny"), "the error names the servers: {}", lines[5]);
    assert_eq!(lines[7]["result"]["content"][0]["text"], "5.5", "resolved against the accepted schema, answered by the changed server");
    let seen: Vec<String> = logged(&log).into_iter().map(|(_, name)| name).collect();
    assert_eq!(seen, ["add", "add", "zap"], "held calls never reached the server");
    std::fs::remove_file(&log).ok();
}

#[test]
fn a_merged_host_accepting_changes_resolves_the_changed_server_against_its_new_listing() {
    // Only beta changes, after its first call. Afterwards a fractional `b` fits
    // beta's `add` but not alpha's: sent to alpha it is M5, not a guess.
    let dir = two_tier_deployment("toolseal-merged-change", "\"env\", \"TINY_CHANGE_AFTER=1\", ");
    let log = dir.join("calls.log");
    let replies = concat!(
        r#"{"name":"beta__echo","arguments":{"text":"x"}}"#,
        "\n",
        r#"{"name":"beta__add","arguments":{"a":1,"b":2.5}}"#,
        "\n",
        r#"{"name":"alpha__add","arguments":{"a":1,"b":2.5}}"#,
        "\n",
        r#"{"name":"beta__sleep","arguments":{}}"#,
        "\n",
        r#"{"name":"beta__zap","arguments":{}}"#,
        "\n",
    );
    let manifest_arg = dir.join("toolseal.toml").to_string_lossy().into_owned();
    let log_arg = log.to_string_lossy().into_owned();
    let run = toolseal(&["host", "--manifest", &manifest_arg, "--on-change", "accept"], &[("TINY_LOG", &log_arg)], replies.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let lines = json_lines(&run);
    let got: Vec<(Option<&str>, bool, Option<&str>)> =
        lines.iter().map(|l| (l["event"].as_str().or(l["class"].as_str()), l["forwarded"] == true || l["accepted"] == true, l["server"].as_str())).collect();
    assert_eq!(
        got,
        [
            (None, true, Some("beta")),
            (Some("tools_list_changed"), true, Some("beta")),
            (None, true, Some("beta")),
            (Some("M5"), false, Some("alpha")),
            (Some("M1"), false, None),
            (None, true, Some("beta"))
        ],
        "{lines:#?}"
    );
    assert_eq!(logged(&log), [("beta".to_owned(), "echo".to_owned()), ("beta".to_owned(), "add".to_owned()), ("beta".to_owned(), "zap".to_owned())]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn host_rejects_an_oversized_line_from_its_length_and_goes_on() {
    let mut replies = format!("{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}\n", "x".repeat(1 << 20));
    replies.push_str("{\"name\":\"upper\",\"arguments\":{\"text\":\"hi\"}}\n");
    let run = toolseal(&["host", "--", SERVER[0], SERVER[1]], &[], replies.as_bytes());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let lines = json_lines(&run);
    assert_eq!((lines[0]["class"].as_str(), lines[0]["forwarded"].as_bool()), (Some("Malformed"), Some(false)), "{}", lines[0]);
    assert!(lines[0]["result"]["content"][0]["text"].as_str().unwrap_or("").contains("over the 1048576-byte limit"));
    assert_eq!(lines[1]["result"]["content"][0]["text"], "HI", "the next line is still served");
}
