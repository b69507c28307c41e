//! Every wire format, single and parallel, honest and hallucinated: each call
//! of a reply is resolved on its own, and its answer goes back in the vendor's
//! shape with the id preserved. Fixtures: `tests/wire/*.json`.

mod support;

use serde_json::{Value, json};
use toolseal::Options;
use toolseal::pipeline::{Authorized, FrontierGate, MemorySink, Pipeline};
use toolseal::wire::{ItemKind, WireFormat, answer, parse_reply, reply};
use toolseal_fixtures::bank::ToolCall;
use toolseal_fixtures::synthetic;
use toolseal_runtime::json::Json;

struct Fixture {
    name: String,
    /// The reply's bytes, duplicate keys kept.
    reply: String,
    expect: Vec<(Option<String>, String, Option<String>)>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = support::root().join("tests/wire");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("tests/wire").map(|e| e.expect("entry").path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read(&path).expect("readable");
            let tree = Json::parse(&text).expect("fixture is JSON");
            let expect: Value = tree.get("expect").expect("expect").to_value();
            let expect = expect
                .as_array()
                .expect("an array")
                .iter()
                .map(|e| (e[0].as_str().map(str::to_owned), e[1].as_str().expect("verdict").to_owned(), e.get(2).and_then(Value::as_str).map(str::to_owned)))
                .collect();
            Fixture { name: path.file_stem().expect("name").to_string_lossy().into_owned(), reply: tree.get("reply").expect("reply").to_json_string(), expect }
        })
        .collect()
}

#[test]
fn every_call_of_every_reply_gets_its_own_verdict() {
    let fixtures = fixtures();
    assert_eq!(fixtures.len(), 9);
    let mut formats = std::collections::BTreeSet::new();
    let mut calls = 0;
    for f in &fixtures {
        let parsed = parse_reply(f.reply.as_bytes(), &Options::strict()).unwrap_or_else(|r| panic!("{}: {r}", f.name));
        assert_eq!(parsed.len(), f.expect.len(), "{}: number of calls", f.name);
        for (call, (id, verdict, pointer)) in parsed.iter().zip(&f.expect) {
            formats.insert(call.format.as_str());
            calls += 1;
            assert_eq!(&call.id, id, "{}: call {} keeps its id", f.name, call.index);
            match (call.resolve::<ToolCall>(&Options::strict()), verdict.as_str()) {
                (Ok(_), "accept") => {}
                (Err(r), class) if class != "accept" => {
                    assert_eq!(r.class().as_str(), class, "{} {id:?}: {r}", f.name);
                    assert_eq!(Some(r.pointer()), pointer.as_deref(), "{} {id:?}: {r}", f.name);
                }
                (got, want) => panic!("{} {id:?}: expected {want}, got {got:?}", f.name),
            }
        }
    }
    assert_eq!(formats.len(), 6, "every vendor format is covered: {formats:?}");
    assert_eq!(calls, 27);
}

/// Runs a whole reply through the pipeline and renders the answers.
fn answers_for(reply_bytes: &str) -> (WireFormat, Vec<Value>, Value) {
    let pipeline: Pipeline<ToolCall, ()> = Pipeline::new(FrontierGate::new().allow((), ["get_balance", "list_transactions", "freeze_account", "transfer_funds"])).audit(MemorySink::new());
    let exec = |a: Authorized<ToolCall>| -> Result<Value, String> { Ok(json!({ "ran": a.call().name() })) };
    let calls = parse_reply(reply_bytes.as_bytes(), &Options::strict()).expect("a reply");
    let format = calls[0].format;
    let answers: Vec<Value> = calls.iter().map(|c| answer(c, &pipeline.run_wire(c, &(), &exec).outcome.answer())).collect();
    let message = reply(format, answers.clone());
    (format, answers, message)
}

#[test]
fn answers_carry_ids_back_in_the_vendor_shape() {
    for f in fixtures() {
        let (format, answers, message) = answers_for(&f.reply);
        for (a, (id, verdict, _)) in answers.iter().zip(&f.expect) {
            let ok = verdict == "accept";
            let id = id.clone().map_or(Value::Null, Value::String);
            match format {
                WireFormat::OpenAiChat => {
                    assert_eq!(a["role"], "tool");
                    assert_eq!(a["tool_call_id"], id);
                    let content = a["content"].as_str().expect("text");
                    assert_eq!(content.contains("\"ran\""), ok, "{}: {content}", f.name);
                }
                WireFormat::OpenAiResponses => {
                    let key = if a["type"] == "mcp_call" { "id" } else { "call_id" };
                    assert_eq!(a[key], id);
                    if a["type"] == "mcp_call" {
                        assert_eq!(a.get("error").is_some(), !ok);
                    } else {
                        assert_eq!(a["type"], "function_call_output");
                    }
                }
                WireFormat::Anthropic => {
                    assert_eq!(a["tool_use_id"], id);
                    assert_eq!(a.get("is_error").and_then(Value::as_bool).unwrap_or(false), !ok, "{}: {a}", f.name);
                }
                WireFormat::Bedrock => {
                    assert_eq!(a["toolResult"]["toolUseId"], id);
                    assert_eq!(a["toolResult"]["status"], if ok { "success" } else { "error" });
                }
                WireFormat::Gemini => {
                    assert_eq!(a["functionResponse"].get("id").cloned().unwrap_or(Value::Null), id);
                    assert_eq!(a["functionResponse"]["response"].get("error").is_some(), !ok);
                }
                WireFormat::Mcp => {
                    assert_eq!(a["jsonrpc"], "2.0");
                    let numeric = id.as_str().and_then(|s| s.parse::<i64>().ok());
                    assert_eq!(a["id"], numeric.map_or(id.clone(), Value::from), "JSON-RPC ids keep their type");
                    if verdict == "H1" {
                        assert_eq!(a["error"]["code"], -32602, "unknown tools are a protocol error");
                        assert_eq!(a["error"]["data"]["class"], "H1", "with the feedback as data");
                    } else {
                        assert_eq!(a["result"]["isError"], !ok, "argument errors are a tool result with isError");
                        if !ok {
                            let feedback: Value = serde_json::from_str(a["result"]["content"][1]["text"].as_str().expect("text")).expect("the feedback as JSON");
                            assert_eq!(feedback["class"], verdict.as_str(), "with the feedback");
                        }
                    }
                }
                other => panic!("unexpected format {other:?}"),
            }
        }
        match format {
            WireFormat::Anthropic | WireFormat::Bedrock => assert_eq!(message["role"], "user"),
            WireFormat::Gemini => assert_eq!(message["parts"].as_array().map(Vec::len), Some(answers.len())),
            _ => {}
        }
    }
}

#[test]
fn a_bad_reply_is_one_malformed_rejection() {
    for bad in [&b"not json"[..], b"{\"choices\": 3}", b"{\"unrelated\": true}", b"[]", b"42"] {
        let r = parse_reply(bad, &Options::strict()).expect_err("rejected");
        assert_eq!(r.class().as_str(), "Malformed", "{}", String::from_utf8_lossy(bad));
    }
    let huge = format!("{{\"name\":\"get_balance\",\"arguments\":{{\"account_id\":\"{}\"}}}}", "a".repeat(2 << 20));
    let r = parse_reply(huge.as_bytes(), &Options::strict()).expect_err("over the limit");
    assert!(r.to_string().contains("limit"), "{r}");
}

#[test]
fn canonical_calls_keep_their_envelope_rules() {
    let calls = parse_reply(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"},"arguments2":{}}"#, &Options::strict()).expect("a call object");
    let r = calls[0].resolve::<ToolCall>(&Options::strict()).expect_err("stray envelope key");
    assert_eq!((r.class().as_str(), r.pointer()), ("Malformed", "/arguments2"));
}

#[test]
fn feedback_is_bounded_and_classified() {
    use toolseal::feedback::{Feedback, MAX_TEXT, RetryBudget, mcp_tool_result, mcp_unknown_tool};
    let key = "k".repeat(100_000);
    let call = format!(r#"{{"name":"get_balance","arguments":{{"account_id":"acct-1","{key}":1}}}}"#);
    let r = ToolCall::from_json(call.as_bytes()).expect_err("undeclared key");
    let f = Feedback::from(&r);
    assert_eq!(f.class, "H2");
    assert_eq!(f.suggestions, ["account_id"]);
    assert!(f.text.chars().count() <= MAX_TEXT && f.pointer.chars().count() <= 129, "{} / {}", f.text.len(), f.pointer.len());
    assert_eq!(mcp_tool_result(&r)["isError"], true);
    assert_eq!(mcp_tool_result(&r)["content"][1]["text"], serde_json::to_value(&f).expect("feedback is JSON").to_string());
    let h1 = ToolCall::from_json(br#"{"name":"get_balanse","arguments":{}}"#).expect_err("unknown");
    let e = mcp_unknown_tool(json!(7), &h1);
    assert_eq!((e["id"].clone(), e["error"]["code"].clone()), (json!(7), json!(-32602)));
    assert_eq!(e["error"]["data"]["suggestions"], json!(["get_balance"]));
    let h3 = ToolCall::from_json(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-1","amount":"12"}}"#).expect_err("numeric string");
    let f = Feedback::from(&h3);
    assert_eq!((f.class, f.found), ("H3", Some("string")));
    let mut budget = RetryBudget::max_attempts(2);
    assert_eq!((budget.attempt(), budget.attempt(), budget.remaining()), (Ok(1), Ok(2), 0));
    assert!(budget.attempt().is_err(), "a spent budget stops the loop");
}

#[test]
fn a_bare_responses_or_anthropic_item_is_one_call() {
    let strict = Options::strict();
    let item = br#"{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_balance","arguments":"{\"account_id\":\"acct-1\"}","status":"completed"}"#;
    let calls = parse_reply(item, &strict).expect("a Responses output item");
    assert_eq!((calls.len(), calls[0].format, calls[0].kind, calls[0].id.as_deref()), (1, WireFormat::OpenAiResponses, ItemKind::Function, Some("call_1")));
    assert_eq!(calls[0].resolve::<ToolCall>(&strict).expect("resolves").call.name(), "get_balance");
    let a = answer(&calls[0], &toolseal::wire::Answer::Output(&json!("ok")));
    assert_eq!((a["type"].as_str(), a["call_id"].as_str()), (Some("function_call_output"), Some("call_1")));

    // An `mcp_call` pins its server (its `output` is the result slot, not a list of items).
    let pinned = |server: &str| format!(r#"{{"type":"mcp_call","id":"mcp_1","server_label":"{server}","name":"read_file","arguments":"{{\"path\":\"/b\"}}","output":null,"error":null}}"#);
    let calls = parse_reply(pinned("files").as_bytes(), &strict).expect("an mcp_call item");
    assert_eq!((calls.len(), calls[0].kind, calls[0].server.as_deref(), calls[0].id.as_deref()), (1, ItemKind::McpServer, Some("files"), Some("mcp_1")));
    let routed = calls[0].resolve::<synthetic::McpCall>(&strict).expect("pinned to files").call;
    assert_eq!((routed.server(), routed.tool()), ("files", "read_file"));
    let calls = parse_reply(pinned("storage").as_bytes(), &strict).expect("an mcp_call item");
    let r = calls[0].resolve::<synthetic::McpCall>(&strict).expect_err("storage's read_file wants s3:// and an encoding");
    assert_eq!((r.class().as_str(), r.server()), ("M5", Some("storage")), "{r}");
    // Flat and unpinned, the same name is ambiguous under the manifest's strict policy.
    let flat = parse_reply(br#"{"type":"function_call","call_id":"call_2","name":"read_file","arguments":"{\"path\":\"/b\"}"}"#, &strict).expect("an item");
    assert_eq!(flat[0].resolve::<synthetic::McpCall>(&strict).expect_err("ambiguous").class().as_str(), "M2");

    let block = br#"{"type":"tool_use","id":"toolu_1","name":"get_balance","input":{"account_id":"acct-1"}}"#;
    let calls = parse_reply(block, &strict).expect("an Anthropic content block");
    assert_eq!((calls.len(), calls[0].format, calls[0].id.as_deref()), (1, WireFormat::Anthropic, Some("toolu_1")));
    assert!(calls[0].resolve::<ToolCall>(&strict).is_ok());
    let block = br#"{"type":"mcp_tool_use","id":"mcptoolu_1","server_name":"files","name":"read_file","input":{"path":"/b"}}"#;
    let calls = parse_reply(block, &strict).expect("an Anthropic MCP block");
    assert_eq!(calls[0].resolve::<synthetic::McpCall>(&strict).expect("pinned").call.server(), "files");
    // Full replies are read as before.
    let reply_bytes = br#"{"output":[{"type":"message","content":[]},{"type":"function_call","call_id":"call_1","name":"get_balance","arguments":"{\"account_id\":\"acct-1\"}"}]}"#;
    assert_eq!(parse_reply(reply_bytes, &strict).expect("a reply").len(), 1);
}

#[test]
fn a_call_object_may_pin_its_server() {
    let strict = Options::strict();
    let calls = parse_reply(br#"{"server":"files","name":"read_file","arguments":{"path":"/b"}}"#, &strict).expect("a pinned call object");
    assert_eq!((calls.len(), calls[0].format, calls[0].server.as_deref(), calls[0].name.as_deref()), (1, WireFormat::Canonical, Some("files"), Some("read_file")));
    let routed = calls[0].resolve::<synthetic::McpCall>(&strict).expect("pinned to files").call;
    assert_eq!((routed.server(), routed.tool()), ("files", "read_file"));
    let calls = parse_reply(br#"{"name":"read_file","arguments":{"path":"/b"}}"#, &strict).expect("a call object");
    assert_eq!(calls[0].resolve::<synthetic::McpCall>(&strict).expect_err("flat").class().as_str(), "M2");
    // One registry is one server: the pin is not routed on.
    let calls = parse_reply(br#"{"server":"bank","name":"get_balance","arguments":{"account_id":"acct-1"}}"#, &strict).expect("a pinned call object");
    assert!(calls[0].resolve::<ToolCall>(&strict).is_ok());
    // The envelope rules stand beside the pin.
    for (bad, pointer) in [
        (&br#"{"server":"files","name":"read_file","arguments":{"path":"/b"},"id":"x"}"#[..], "/id"),
        (br#"{"server":"files","server":"storage","name":"read_file","arguments":{}}"#, "/server"),
        (br#"{"server":7,"name":"read_file","arguments":{}}"#, "/server"),
        (br#"{"server":null,"name":"read_file","arguments":{}}"#, "/server"),
        (br#"{"server":"files","name":"read_file","name":"write_file"}"#, "/name"),
    ] {
        let calls = parse_reply(bad, &strict).expect("a call object");
        let r = calls[0].resolve::<synthetic::McpCall>(&strict).expect_err("malformed");
        assert_eq!((r.class().as_str(), r.pointer()), ("Malformed", pointer), "{}: {r}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn a_call_with_no_name_is_malformed_in_every_format() {
    let strict = Options::strict();
    let nameless: [&[u8]; 13] = [
        br#"{"arguments":{}}"#,
        br#"{"server":"files","arguments":{}}"#,
        br#"{"choices":[{"message":{"tool_calls":[{"id":"call_1","type":"function","function":{"arguments":"{}"}}]}}]}"#,
        br#"{"tool_calls":[{"id":"call_1","type":"function"}]}"#,
        br#"{"output":[{"type":"function_call","call_id":"call_1","arguments":"{}"}]}"#,
        br#"{"output":[{"type":"mcp_call","id":"mcp_1","server_label":"files","arguments":"{}"}]}"#,
        br#"{"type":"function_call","call_id":"call_1","arguments":"{}"}"#,
        br#"{"type":"mcp_call","id":"mcp_1","server_label":"files","arguments":"{}"}"#,
        br#"{"type":"message","content":[{"type":"tool_use","id":"toolu_1","input":{}}]}"#,
        br#"{"type":"mcp_tool_use","id":"mcptoolu_1","server_name":"files","input":{}}"#,
        br#"{"output":{"message":{"content":[{"toolUse":{"toolUseId":"t1","input":{}}}]}}}"#,
        br#"{"candidates":[{"content":{"parts":[{"functionCall":{"args":{}}}]}}]}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
    ];
    for reply_bytes in nameless {
        let calls = parse_reply(reply_bytes, &strict).unwrap_or_else(|r| panic!("{}: {r}", String::from_utf8_lossy(reply_bytes)));
        assert_eq!(calls.len(), 1, "{}", String::from_utf8_lossy(reply_bytes));
        for r in [calls[0].resolve::<ToolCall>(&strict).map(|_| ()), calls[0].resolve::<synthetic::McpCall>(&strict).map(|_| ())] {
            let r = r.expect_err("no name");
            assert_eq!((r.class().as_str(), r.pointer(), r.reason()), ("Malformed", "/name", &toolseal::Reason::MissingName), "{}", String::from_utf8_lossy(reply_bytes));
        }
    }
}
