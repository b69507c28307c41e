//! The plain API clients: the recorded vendor replies of `tests/wire`,
//! deserialized into async-openai's and genai's own response types and
//! resolved through `toolseal::async_openai` / `toolseal::genai`. Each call gets
//! the verdict, class and pointer the fixture expects — the ones
//! `wire::parse_reply` gives the same JSON — and a rejected call's answer,
//! built in the vendor crate's type, serializes to the shape `wire::answer`
//! writes for it.

mod support;

use serde_json::{Value, json};
use toolseal::Options;
use toolseal::wire::{Answer, Resolved, WireCall, answer, parse_reply};
use toolseal_fixtures::bank::ToolCall;
use toolseal_runtime::{async_openai as openai, genai};

/// A fixture of `tests/wire`: the reply and, per call id, the expected verdict.
fn fixture(name: &str) -> (Value, Vec<(String, String, Option<String>)>) {
    let text = std::fs::read_to_string(support::root().join("tests/wire").join(name)).expect("a fixture");
    let file: Value = serde_json::from_str(&text).expect("JSON");
    let expect = file["expect"]
        .as_array()
        .expect("expect")
        .iter()
        .map(|e| (e[0].as_str().expect("an id").to_owned(), e[1].as_str().expect("a verdict").to_owned(), e.get(2).and_then(Value::as_str).map(str::to_owned)))
        .collect();
    (file["reply"].clone(), expect)
}

/// `(id, verdict, pointer)` as the fixtures write them.
fn verdict<C>(call: &Resolved<C>) -> (String, String, Option<String>) {
    match &call.outcome {
        Ok(_) => (call.id.clone(), "accept".to_owned(), None),
        Err(r) => (call.id.clone(), r.class().as_str().to_owned(), Some(r.pointer().to_owned())),
    }
}

/// What `wire` makes of the same reply: each call and its verdict.
fn by_wire(reply: &Value) -> Vec<(WireCall, (String, String, Option<String>))> {
    let calls = parse_reply(reply.to_string().as_bytes(), &Options::strict()).expect("a reply");
    calls
        .into_iter()
        .map(|c| {
            let id = c.id.clone().expect("an id");
            let v = match c.resolve::<ToolCall>(&Options::strict()) {
                Ok(_) => (id, "accept".to_owned(), None),
                Err(r) => (id, r.class().as_str().to_owned(), Some(r.pointer().to_owned())),
            };
            (c, v)
        })
        .collect()
}

#[test]
fn async_openai_chat_responses_resolve_call_by_call() {
    let mut checked = 0;
    for name in ["openai_chat_single.json", "openai_chat_parallel.json"] {
        let (mut reply, mut expect) = fixture(name);
        // A call whose `arguments` is not a string is no Chat Completions response
        // async-openai reads: it refuses the whole response. Without it, the rest.
        let unread = serde_json::from_value::<async_openai::types::chat::CreateChatCompletionResponse>(reply.clone());
        let calls = reply["choices"][0]["message"]["tool_calls"].as_array_mut().expect("tool calls");
        let before = calls.len();
        calls.retain(|c| c["function"]["arguments"].is_string());
        assert_eq!(unread.is_err(), calls.len() < before, "{name}: async-openai reads a reply exactly when every arguments is a string");
        expect.retain(|(id, ..)| calls.iter().any(|c| c["id"] == id.as_str()));

        let response: async_openai::types::chat::CreateChatCompletionResponse = serde_json::from_value(reply.clone()).expect("async-openai reads the reply");
        let resolved = openai::resolve_chat::<ToolCall>(&response, &Options::strict());
        let wire = by_wire(&reply);
        assert_eq!(resolved.iter().map(verdict).collect::<Vec<_>>(), expect, "{name}");
        assert_eq!(resolved.iter().map(verdict).collect::<Vec<_>>(), wire.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(), "{name}: as wire resolves it");
        for (call, (wire_call, _)) in resolved.iter().zip(&wire) {
            if let Err(rejection) = &call.outcome {
                let message = async_openai::types::chat::ChatCompletionRequestMessage::from(openai::tool_message(&call.id, rejection));
                assert_eq!(serde_json::to_value(&message).expect("serializes"), answer(wire_call, &Answer::Rejected(rejection)), "{name} {}", call.id);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4, "H2, H1, H3 and the malformed string answered");
}

#[test]
fn async_openai_responses_resolve_function_calls_and_approval_requests() {
    let (mut reply, expect) = fixture("openai_responses_parallel.json");
    // An MCP call OpenAI asks to approve first, with an undeclared key.
    reply["output"]
        .as_array_mut()
        .expect("output")
        .push(json!({ "type": "mcp_approval_request", "id": "mcpr_1", "server_label": "bank", "name": "freeze_account", "arguments": "{\"account_id\":\"acct-2\",\"why\":\"fraud\"}" }));
    let response: async_openai::types::responses::Response = serde_json::from_value(reply.clone()).expect("async-openai reads the reply");
    let resolved = openai::resolve_response::<ToolCall>(&response, &Options::strict());
    let got: Vec<_> = resolved.iter().map(verdict).collect();
    // The function calls as the fixture expects them (its `mcp_call`s ran at OpenAI already: not resolved), then the approval request.
    let mut want: Vec<_> = expect.into_iter().filter(|(id, ..)| id.starts_with("call_")).collect();
    assert_eq!(want.len(), 2);
    want.push(("mcpr_1".to_owned(), "H2".to_owned(), Some("/arguments/why".to_owned())));
    assert_eq!(got, want);

    let wire = by_wire(&reply);
    let rejected = resolved.iter().find(|c| c.id == "call_67890abc").expect("the call over the limit");
    let rejection = rejected.outcome.as_ref().expect_err("rejected");
    let (wire_call, _) = wire.iter().find(|(c, _)| c.id.as_deref() == Some("call_67890abc")).expect("wire has it");
    assert_eq!(serde_json::to_value(openai::function_call_output(&rejected.id, rejection)).expect("serializes"), answer(wire_call, &Answer::Rejected(rejection)));
    let approval = resolved.last().expect("the approval request");
    let declined = serde_json::to_value(openai::decline_approval(&approval.id, approval.outcome.as_ref().expect_err("rejected"))).expect("serializes");
    assert_eq!((declined["type"].as_str(), declined["approval_request_id"].as_str(), declined["approve"].as_bool()), (Some("mcp_approval_response"), Some("mcpr_1"), Some(false)));
    assert!(declined["reason"].as_str().is_some_and(|r| r.contains("why")), "{declined}");
}

/// genai's `ChatResponse` for a recorded reply's tool calls, as genai's OpenAI
/// adapter builds it (its `fn_arguments` parsed; a reply whose arguments do not
/// parse is an error of the whole `exec_chat`, so those calls are left out).
fn genai_response(calls: &[Value]) -> ::genai::chat::ChatResponse {
    use ::genai::chat::{ChatResponse, MessageContent, StopReason, ToolCall as GenaiCall, Usage};
    let calls: Vec<GenaiCall> = calls
        .iter()
        .filter_map(|c| {
            let arguments = serde_json::from_str(c["function"]["arguments"].as_str()?).ok()?;
            Some(GenaiCall { call_id: c["id"].as_str()?.to_owned(), fn_name: c["function"]["name"].as_str()?.to_owned(), fn_arguments: arguments, thought_signatures: None })
        })
        .collect();
    let model = ::genai::ModelIden::new(::genai::adapter::AdapterKind::OpenAI, "gpt-4o");
    ChatResponse {
        content: MessageContent::from(calls),
        reasoning_content: None,
        model_iden: model.clone(),
        provider_model_iden: model,
        stop_reason: Some(StopReason::from("tool_calls".to_owned())),
        usage: Usage::default(),
        captured_raw_body: None,
        response_id: None,
    }
}

#[test]
fn genai_responses_resolve_call_by_call() {
    let (reply, expect) = fixture("openai_chat_parallel.json");
    let calls = reply["choices"][0]["message"]["tool_calls"].as_array().expect("tool calls");
    let response = genai_response(calls);
    let resolved = genai::resolve::<ToolCall>(&response, &Options::strict());
    let want: Vec<_> = expect.into_iter().filter(|(id, ..)| response.tool_calls().iter().any(|c| c.call_id == *id)).collect();
    assert_eq!(want.len(), 4, "the calls genai parses");
    assert_eq!(resolved.iter().map(verdict).collect::<Vec<_>>(), want);

    // A streamed call cut short keeps its text: read as the model wrote it.
    let cut = ::genai::chat::ToolCall { call_id: "call_9".into(), fn_name: "get_balance".into(), fn_arguments: json!("{\"account_id\": \"acct-7\""), thought_signatures: None };
    let cut = genai::resolve_call::<ToolCall>(&cut, &Options::strict());
    assert_eq!(verdict(&cut), ("call_9".to_owned(), "Malformed".to_owned(), Some("/arguments".to_owned())));

    let rejected = resolved.iter().find(|c| c.outcome.is_err()).expect("a rejected call");
    let response = genai::tool_response(rejected, rejected.outcome.as_ref().expect_err("rejected"));
    assert_eq!((response.call_id.as_str(), response.fn_name.as_deref()), (rejected.id.as_str(), Some(rejected.name.as_str())));
    assert!(response.content.contains("Send only the declared keys"), "{}", response.content);
}
