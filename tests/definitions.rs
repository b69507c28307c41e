//! Tool definitions out: what a registry offers a model, in every vendor format
//! toolseal reads calls in, comes back as calls that resolve to the same tool.
//! For every fixture registry and both deployments: each definition that goes
//! out, called back in the same format with arguments built from the schema
//! that went out, resolves to the tool offered; a name not offered does not;
//! generated and dynamic registries offer the same definitions; quarantined
//! tools and tools outside a gate's visible set are not offered.

mod support;

use serde_json::{Value, json};
use toolseal::pipeline::{Authorized, FrontierGate, Outcome, Pipeline};
use toolseal::wire::{WireCall, WireFormat, parse_reply};
use toolseal::{Class, Options, Rejection, ToolInfo};
use toolseal_fixtures::{FIXTURES, bank, real_servers, suite_plain, synthetic};
use toolseal_runtime::dynamic::{DynamicDeployment, DynamicRegistry};
use toolseal_runtime::json::Json;
use toolseal_runtime::probe::{Expect, probes};
use toolseal_runtime::registry::{Registry, read_registry};
use toolseal_runtime::schema::{CompileOptions, compile_tool_schema};

const FORMATS: [WireFormat; 7] = [WireFormat::OpenAiChat, WireFormat::OpenAiResponses, WireFormat::Anthropic, WireFormat::Bedrock, WireFormat::Gemini, WireFormat::Mcp, WireFormat::Canonical];

/// `(name, arguments schema)` of each definition in a `tools` value of `format`,
/// read by the vendor's own field names.
fn offered(format: WireFormat, tools: &Value) -> Vec<(String, Value)> {
    let list = match (format, tools.as_array().map(Vec::as_slice)) {
        (WireFormat::Gemini, Some([one])) => one["functionDeclarations"].clone(),
        _ => tools.clone(),
    };
    let list = list.as_array().unwrap_or_else(|| panic!("{format:?}: a list of definitions: {tools}")).clone();
    list.iter()
        .map(|t| {
            let (name, schema) = match format {
                WireFormat::OpenAiChat => {
                    assert_eq!((&t["type"], &t["function"]["strict"]), (&json!("function"), &json!(false)), "{t}");
                    (&t["function"]["name"], &t["function"]["parameters"])
                }
                WireFormat::OpenAiResponses => {
                    assert_eq!((&t["type"], &t["strict"]), (&json!("function"), &json!(false)), "{t}");
                    (&t["name"], &t["parameters"])
                }
                WireFormat::Anthropic => (&t["name"], &t["input_schema"]),
                WireFormat::Bedrock => (&t["toolSpec"]["name"], &t["toolSpec"]["inputSchema"]["json"]),
                WireFormat::Gemini => (&t["name"], &t["parametersJsonSchema"]),
                _ => (&t["name"], &t["inputSchema"]),
            };
            let name = name.as_str().unwrap_or_else(|| panic!("{format:?}: a name in {t}")).to_owned();
            assert!(schema.is_object() || schema.is_boolean(), "{format:?}: a schema in {t}");
            (name, schema.clone())
        })
        .collect()
}

/// A model reply in `format` with one call of `name`, `arguments` given as JSON text.
fn reply(format: WireFormat, name: &str, arguments: &str) -> String {
    let name = serde_json::to_string(name).expect("a string");
    let string = serde_json::to_string(arguments).expect("a string");
    match format {
        WireFormat::OpenAiChat => {
            format!(r#"{{"choices":[{{"message":{{"role":"assistant","tool_calls":[{{"id":"call_1","type":"function","function":{{"name":{name},"arguments":{string}}}}}]}}}}]}}"#)
        }
        WireFormat::OpenAiResponses => format!(r#"{{"output":[{{"type":"function_call","call_id":"call_1","name":{name},"arguments":{string}}}]}}"#),
        WireFormat::Anthropic => format!(r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_1","name":{name},"input":{arguments}}}]}}"#),
        WireFormat::Bedrock => format!(r#"{{"output":{{"message":{{"role":"assistant","content":[{{"toolUse":{{"toolUseId":"t1","name":{name},"input":{arguments}}}}}]}}}}}}"#),
        WireFormat::Gemini => format!(r#"{{"candidates":[{{"content":{{"role":"model","parts":[{{"functionCall":{{"name":{name},"args":{arguments}}}}}]}}}}]}}"#),
        WireFormat::Mcp => format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":{name},"arguments":{arguments}}}}}"#),
        _ => format!(r#"{{"name":{name},"arguments":{arguments}}}"#),
    }
}

/// The one call of a reply in `format`.
fn call(format: WireFormat, name: &str, arguments: &str) -> WireCall {
    let text = reply(format, name, arguments);
    let calls = parse_reply(text.as_bytes(), &Options::strict()).unwrap_or_else(|r| panic!("{format:?}: {r}: {text}"));
    let [one] = <[WireCall; 1]>::try_from(calls).unwrap_or_else(|c| panic!("{format:?}: one call, got {}", c.len()));
    assert_eq!(one.format, format, "{text}");
    one
}

/// Honest arguments (JSON text) for a schema as it went out: toolseal's probes,
/// built from that schema compiled anew.
fn honest(schema: &Value) -> Vec<String> {
    let tree = Json::from_value(schema).into_owned();
    let doc = compile_tool_schema(&tree, &CompileOptions::default()).unwrap_or_else(|e| panic!("an offered schema compiles: {e:?}"));
    probes(&[], "tool", &doc)
        .into_iter()
        .filter(|p| p.expect == Expect::Accept)
        .map(|p| Json::parse(p.call.as_bytes()).expect("probe calls are JSON").get("arguments").expect("probe calls have arguments").to_json_string())
        .collect()
}

/// Honest arguments of tools whose schemas no probe can satisfy (keywords only the
/// specification validator checks): `(module, tool, arguments)`.
const KNOWN_HONEST: &[(&str, &str, &str)] = &[("spec", "connect", r#"{"host":"10.0.0.1","port":53}"#)];

/// Offers `tools` in `format`, calls each back with honest arguments (probes, and
/// `known` ones by tool name) and checks that `resolve` names the tool offered; a
/// name not offered is rejected with `unknown`. Returns how many calls came back,
/// and the offered tools nothing could call.
fn round_trip(format: WireFormat, tools: &Value, known: &[(&str, &str)], resolve: &dyn Fn(&WireCall) -> Result<String, Rejection>, unknown: Class) -> (usize, Vec<String>) {
    let offered = offered(format, tools);
    let (mut calls, mut uncalled) = (0, Vec::new());
    for (name, schema) in &offered {
        let mut arguments = honest(schema);
        arguments.extend(known.iter().filter(|(tool, _)| tool == name).map(|(_, a)| (*a).to_owned()));
        if arguments.is_empty() {
            uncalled.push(name.clone());
        }
        for a in &arguments {
            assert_eq!(resolve(&call(format, name, a)).map_err(|r| r.to_string()), Ok(name.clone()), "{format:?}: {name}({a})");
            calls += 1;
        }
        let stranger = format!("{name}_not_offered");
        assert!(!offered.iter().any(|(n, _)| *n == stranger));
        let a = arguments.first().map_or("{}", String::as_str);
        let refused = resolve(&call(format, &stranger, a)).expect_err("a name not offered does not resolve");
        assert_eq!(refused.class(), unknown, "{format:?}: {stranger}: {refused}");
    }
    (calls, uncalled)
}

fn registry_at(path: &str) -> Registry {
    read_registry(&std::fs::read(support::root().join(path)).expect("readable")).expect("a registry")
}

#[test]
fn every_definition_of_every_fixture_comes_back_as_a_call_to_its_tool() {
    let (mut calls, mut tools, mut uncalled) = (0, 0, Vec::new());
    for fixture in FIXTURES {
        let registry = registry_at(fixture.path);
        let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
        for format in FORMATS {
            let tools_out = (fixture.definitions)(format, &mut |_| true);
            // The registry compiled at run time offers the same definitions, in the same order.
            assert_eq!(dynamic.definitions(format), tools_out, "{}: {format:?}", fixture.module);
            let names: Vec<String> = offered(format, &tools_out).into_iter().map(|(n, _)| n).collect();
            let resolving: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).filter(|n| dynamic.quarantined().all(|(q, _)| q != *n)).collect();
            assert_eq!(names, resolving, "{}: {format:?}: the tools that resolve, in registry order", fixture.module);
            let resolve = |c: &WireCall| (fixture.resolve_wire)(c).map(str::to_owned);
            let known: Vec<(&str, &str)> = KNOWN_HONEST.iter().filter(|(m, ..)| *m == fixture.module).map(|(_, t, a)| (*t, *a)).collect();
            let (n, missed) = round_trip(format, &tools_out, &known, &resolve, Class::H1);
            calls += n;
            tools += names.len();
            uncalled.extend(missed.into_iter().map(|t| format!("{}::{t} ({format:?})", fixture.module)));
        }
    }
    eprintln!("{calls} calls of {tools} offered tools came back; nothing could call {uncalled:?}");
    assert!(uncalled.is_empty(), "every offered tool is called back: {uncalled:?}");
    assert!(tools > 1000 && calls > tools, "{calls} calls for {tools} tools");
}

#[test]
fn definitions_read_back_as_the_registry_they_came_from() {
    // The formats toolseal also reads registries in: the same tools, the same schemas;
    // MCP keeps the whole definition, so even the digests are the compiled ones.
    let registry = registry_at("tests/registries/mcp/server-github.json");
    for fixture in FIXTURES.iter().filter(|f| f.module == "server_github") {
        for (format, wrap) in
            [(WireFormat::OpenAiChat, None), (WireFormat::OpenAiResponses, None), (WireFormat::Anthropic, None), (WireFormat::Bedrock, Some("toolConfig")), (WireFormat::Mcp, Some("tools"))]
        {
            let tools_out = (fixture.definitions)(format, &mut |_| true);
            let text = match wrap {
                Some("toolConfig") => json!({ "toolConfig": { "tools": tools_out } }),
                Some(key) => json!({ key: tools_out }),
                None => tools_out,
            };
            let back = read_registry(text.to_string().as_bytes()).unwrap_or_else(|e| panic!("{format:?}: {e}"));
            assert_eq!(back.tools.len(), registry.tools.len());
            for (b, r) in back.tools.iter().zip(&registry.tools) {
                assert_eq!((&b.name, &b.description, b.input_schema.to_value()), (&r.name, &r.description, r.input_schema.to_value()), "{format:?}");
                if format == WireFormat::Mcp {
                    assert_eq!((&b.title, b.digest()), (&r.title, r.digest()), "{}", r.name);
                }
            }
        }
    }
    assert!(FIXTURES.iter().any(|f| f.module == "server_github"));
}

#[test]
fn deployments_offer_qualified_names_that_route_back_to_their_server() {
    for (manifest, definitions, resolve) in [
        (
            "tests/deployments/synthetic.toml",
            synthetic::McpCall::definitions as fn(WireFormat) -> Value,
            (|c: &WireCall| synthetic::McpCall::resolver().resolve_wire(c).map(|r| r.qualified)) as fn(&WireCall) -> Result<String, Rejection>,
        ),
        ("tests/deployments/real.toml", real_servers::McpCall::definitions, |c: &WireCall| real_servers::McpCall::resolver().resolve_wire(c).map(|r| r.qualified)),
    ] {
        let deployment = toolseal_runtime::mcp::manifest::read_manifest(&support::root().join(manifest)).expect("manifest");
        let servers: Vec<(String, usize, String, Registry)> =
            deployment.servers.iter().map(|s| (s.name.clone(), s.tier, s.tier_name.clone(), read_registry(&s.registry_bytes).expect("registry"))).collect();
        let dynamic = DynamicDeployment::new(&servers, &deployment.pins, deployment.policy, &CompileOptions::default()).expect("compiles");
        let qualified: Vec<&str> = dynamic.catalog().routes().map(|r| dynamic.catalog().qualified(r)).collect();
        for format in FORMATS {
            let tools_out = definitions(format);
            assert_eq!(dynamic.definitions(format), tools_out, "{manifest}: {format:?}");
            let names: Vec<String> = offered(format, &tools_out).into_iter().map(|(n, _)| n).collect();
            assert_eq!(names, qualified, "{manifest}: {format:?}: every (server, tool), qualified");
            let (calls, uncalled) = round_trip(format, &tools_out, &[], &resolve, Class::M1);
            assert!(uncalled.is_empty() && calls >= 2 * names.len(), "{manifest}: {format:?}: {calls} calls; uncalled {uncalled:?}");
        }
    }
}

#[test]
fn a_gate_s_visible_set_is_what_is_offered_and_what_runs() {
    let gate = FrontierGate::new().allow("browsing", ["get_balance", "list_transactions"]).allow("authenticated", ["get_balance", "list_transactions", "transfer_funds"]);
    let pipeline: Pipeline<bank::ToolCall, &str> = Pipeline::new(gate.clone());
    let exec = |a: Authorized<bank::ToolCall>| -> Result<Value, String> { Ok(json!(a.call().name())) };
    for state in ["browsing", "authenticated", "locked"] {
        let visible = gate.visible(&state);
        for format in FORMATS {
            let tools_out = bank::ToolCall::definitions_for(format, |name| visible.contains(&name));
            let names: Vec<String> = offered(format, &tools_out).into_iter().map(|(n, _)| n).collect();
            let mut sorted = names.clone();
            sorted.sort();
            assert_eq!(sorted, visible, "{state}: {format:?}");
            // Every tool of the registry, called in this state: exactly the offered ones run.
            for (name, schema) in offered(format, &bank::ToolCall::definitions(format)) {
                let arguments = honest(&schema);
                let run = pipeline.run_wire(&call(format, &name, &arguments[0]), &state, &exec);
                let ran = matches!(run.outcome, Outcome::Executed { .. });
                assert_eq!(ran, names.contains(&name), "{state}: {format:?}: {name}: {:?}", run.outcome);
            }
        }
    }
}

#[test]
fn quarantined_tools_are_never_offered() {
    // Generated: the JSON-Schema-Test-Suite's groups with remote references are quarantined.
    let (quarantined, resolving): (Vec<&ToolInfo>, Vec<&ToolInfo>) = suite_plain::ToolCall::TOOLS.iter().partition(|t| t.quarantined.is_some());
    assert!(!quarantined.is_empty() && !resolving.is_empty());
    for format in FORMATS {
        let names: Vec<String> = offered(format, &suite_plain::ToolCall::definitions(format)).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, resolving.iter().map(|t| t.name).collect::<Vec<_>>(), "{format:?}");
    }
    let refused = suite_plain::ToolCall::from_json(format!(r#"{{"name":"{}","arguments":{{}}}}"#, quarantined[0].name).as_bytes()).expect_err("quarantined");
    assert_eq!(refused.class(), Class::Quarantined);
    // Dynamic: a look-around pattern cannot be enforced exactly.
    let registry =
        read_registry(br#"[{"name":"bad","inputSchema":{"type":"object","properties":{"x":{"type":"string","pattern":"(?=a)"}}}},{"name":"ok","inputSchema":{"type":"object"}}]"#).expect("registry");
    let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
    assert_eq!(dynamic.quarantined().map(|(t, _)| t).collect::<Vec<_>>(), ["bad"]);
    for format in FORMATS {
        let names: Vec<String> = offered(format, &dynamic.definitions(format)).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["ok"], "{format:?}");
    }
}
