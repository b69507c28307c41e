//! A rig 0.44 agent loop over the bank registry, driven by rig's own scripted
//! completion model (no network): the model calls a tool that does not exist
//! (H1), sends an undeclared key (H2), a value out of its schema (H3), arguments
//! that are not JSON, then an honest call. The loop goes on after each refusal,
//! the model's next turn reads toolseal's feedback as that call's failed tool
//! result, and the tools run only for the resolved call. What rig advertises is
//! the registry's definitions. The same with the registry loaded at run time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rig_agent::AgentBuilder;
use rig_core::completion::AssistantContent;
use rig_core::message::{Message, ToolCall, ToolFunction, ToolName, UserContent};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use rig_core::tool::ToolOutput;
use serde_json::{Value, json};
use toolseal::Options;
use toolseal_fixtures::bank;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::rig::{InvalidCalls, dynamic, sealed, tool_server};
use toolseal_runtime::schema::CompileOptions;

const BANK: &str = include_str!("../examples/transfer_funds/registry/bank.json");

/// A turn calling `name` with `arguments` exactly as the model wrote them.
fn call(id: &str, name: &str, arguments: &str) -> MockTurn {
    MockTurn::from_contents([AssistantContent::ToolCall(ToolCall::from_wire(id, ToolFunction::parse(ToolName::new(name).expect("a name"), arguments)))])
}

fn script() -> Vec<MockTurn> {
    vec![
        call("c1", "transfer_fund", r#"{"recipient_id":"acct-7","amount":10}"#),
        call("c2", "transfer_funds", r#"{"recipient_id":"acct-7","amount":10,"override":true}"#),
        call("c3", "transfer_funds", r#"{"recipient_id":"acct-7","amount":"all of it"}"#),
        call("c4", "get_balance", r#"{"account_id": "acct-7""#),
        call("c5", "get_balance", r#"{"account_id":"acct-7"}"#),
        MockTurn::text("done"),
    ]
}

/// The tool results the model read on its `k`-th call: `(call id, is_error, text)`.
fn results(model: &MockCompletionModel, k: usize) -> Vec<(String, bool, String)> {
    let request = &model.requests()[k];
    let Some(Message::User { content }) = request.chat_history.last() else { return Vec::new() };
    content
        .iter()
        .filter_map(|c| match c {
            UserContent::ToolResult(r) => Some((r.call.to_string(), r.is_error, r.content.iter().filter_map(|c| c.as_text()).collect::<String>())),
            _ => None,
        })
        .collect()
}

/// Each turn's refusal as the model read it, and the honest call's output.
fn check_run(model: &MockCompletionModel, ran: &AtomicUsize) {
    assert_eq!(model.request_count(), 6, "the loop went on after every refusal");
    let expect: [(&str, bool, &[&str]); 5] = [
        ("c1", true, &["H1 at /name", "did you mean: transfer_funds"]),
        ("c2", true, &["H2 at /arguments/override", "Send only the declared keys"]),
        ("c3", true, &["H3 at /arguments/amount", "number"]),
        ("c4", true, &["Malformed at /arguments", "not valid JSON"]),
        ("c5", false, &["acct-7: 100.00"]),
    ];
    for (k, (id, is_error, needles)) in expect.into_iter().enumerate() {
        let seen = results(model, k + 1);
        let [(got_id, got_error, text)] = seen.as_slice() else { panic!("turn {}: one tool result, got {seen:?}", k + 1) };
        assert!(got_id.contains(id) && *got_error == is_error, "turn {}: {seen:?}", k + 1);
        for needle in needles {
            assert!(text.contains(needle), "turn {}: {needle:?} in {text:?}", k + 1);
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 1, "only the resolved call ran");

    // What rig advertised: the registry's own definitions.
    let registry: Value = serde_json::from_str(BANK).expect("JSON");
    let want: Vec<(String, String, Value)> = registry["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| (t["name"].as_str().unwrap_or_default().to_owned(), t["description"].as_str().unwrap_or_default().to_owned(), t["inputSchema"].clone()))
        .collect();
    let mut got: Vec<(String, String, Value)> = model.requests()[0].tools.iter().map(|t| (t.name.to_string(), t.description.clone(), t.parameters.clone())).collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want = want;
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(got, want);
}

#[tokio::test]
async fn a_rig_agent_runs_only_resolved_calls_and_the_model_reads_the_feedback() {
    let model = MockCompletionModel::from_turns(script());
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    let tools = sealed::<bank::ToolCall, _, _>(Options::strict(), move |call| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move {
            match call {
                bank::ToolCall::GetBalance(args) => Ok(ToolOutput::text(format!("{}: 100.00", args.account_id.get()))),
                other => Ok(ToolOutput::json(json!({ "ran": other.name() }))),
            }
        }
    })
    .expect("rig takes the tools");
    let agent = AgentBuilder::new(model.clone()).tool_server_handle(tool_server(tools)).add_hook(InvalidCalls::of::<bank::ToolCall>()).build();
    let response = agent.prompt("move money").max_turns(6).await.expect("the run ends");
    assert_eq!(response.output(), "done");
    check_run(&model, &ran);
}

#[tokio::test]
async fn a_registry_loaded_at_run_time_works_the_same_way() {
    let registry = Arc::new(DynamicRegistry::new(&read_registry(BANK.as_bytes()).expect("a registry"), &CompileOptions::default()));
    let model = MockCompletionModel::from_turns(script());
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    let tools = dynamic(registry.clone(), Options::strict(), move |call| {
        counter.fetch_add(1, Ordering::SeqCst);
        let account = call.arguments_value()["account_id"].as_str().unwrap_or_default().to_owned();
        async move { Ok(ToolOutput::text(format!("{account}: 100.00"))) }
    })
    .expect("rig takes the tools");
    let agent = AgentBuilder::new(model.clone()).tool_server_handle(tool_server(tools)).add_hook(InvalidCalls::dynamic(registry)).build();
    let response = agent.prompt("move money").max_turns(6).await.expect("the run ends");
    assert_eq!(response.output(), "done");
    check_run(&model, &ran);
}
