//! The plain API clients: the recorded vendor replies of `tests/wire`,
//! deserialized into async-openai's types and read by genai's own client (from
//! a local stand-in for the API), and
//! resolved through `toolseal::async_openai` / `toolseal::genai`. Each call gets
//! the verdict, class and pointer the fixture expects — the ones
//! `wire::parse_reply` gives the same JSON — and a rejected call's answer,
//! built in the vendor crate's type, serializes to the shape `wire::answer`
//! writes for it.

mod support;

use serde_json::{Value, json};
use toolseal::Options;
use toolseal::wire::{Answer, ResolvedCall, WireCall, answer, parse_reply};
use toolseal_fixtures::bank::ToolCall;
use toolseal_runtime::{async_openai as openai, genai};

/// A fixture of `tests/wire`: the reply and, per call id, the expected verdict.
fn fixture(name: &str) -> (Value, Vec<Verdict>) {
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
type Verdict = (String, String, Option<String>);

/// A call's [`Verdict`].
fn verdict<C>(call: &ResolvedCall<C>) -> Verdict {
    match &call.outcome {
        Ok(_) => (call.id.clone(), "accept".to_owned(), None),
        Err(r) => (call.id.clone(), r.class().as_str().to_owned(), Some(r.pointer().to_owned())),
    }
}

/// What `wire` makes of the same reply: each call and its verdict.
fn by_wire(reply: &Value) -> Vec<(WireCall, Verdict)> {
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
                let message = async_openai::types::chat::ChatCompletionRequestMessage::from(openai::tool_message(call).expect("a rejected call's answer"));
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
    assert_eq!(serde_json::to_value(openai::answer_item(rejected)).expect("serializes"), answer(wire_call, &Answer::Rejected(rejection)));
    let approval = resolved.last().expect("the approval request");
    let declined = serde_json::to_value(openai::answer_item(approval)).expect("serializes");
    assert!(openai::approve(approval).is_none() && openai::answer_item(&resolved[0]).is_none(), "no approval for a refused request, no answer item for a resolved call");
    assert_eq!((declined["type"].as_str(), declined["approval_request_id"].as_str(), declined["approve"].as_bool()), (Some("mcp_approval_response"), Some("mcpr_1"), Some(false)));
    assert!(declined["reason"].as_str().is_some_and(|r| r.contains("why")), "{declined}");
}

/// genai's own `ChatResponse` for a recorded reply: its OpenAI adapter reads the reply from
/// a local stand-in for the API (one HTTP/1.1 exchange, the reply as the body).
async fn genai_exchange(reply: &Value) -> Result<::genai::chat::ChatResponse, ::genai::Error> {
    use ::genai::resolver::{AuthData, Endpoint, ServiceTargetResolver};
    use ::genai::{Client, ModelIden, ServiceTarget};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    // The workspace's build unifies reqwest's features (the gateway's OAuth client asks for rustls
    // without a crypto provider): genai's client then needs one installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let endpoint = format!("http://{}/v1/", listener.local_addr().expect("an address"));
    let body = reply.to_string();
    let api = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("genai connects");
        // The request: headers, then as many bytes as Content-Length says.
        let mut request = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            let n = socket.read(&mut chunk).await.expect("reads");
            if n == 0 {
                break;
            }
            request.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&request);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end].lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0))).unwrap_or(0);
                if request.len() >= end + 4 + length {
                    break;
                }
            }
        }
        let head = String::from_utf8_lossy(&request).lines().next().unwrap_or_default().to_owned();
        let answer = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        socket.write_all(answer.as_bytes()).await.expect("writes");
        head
    });
    let target = ServiceTargetResolver::from_resolver_fn(move |t: ServiceTarget| -> Result<ServiceTarget, ::genai::resolver::Error> {
        Ok(ServiceTarget { endpoint: Endpoint::from_owned(endpoint.clone()), auth: AuthData::from_single("test"), model: ModelIden::new(::genai::adapter::AdapterKind::OpenAI, t.model.model_name) })
    });
    let client = Client::builder().with_service_target_resolver(target).build().expect("a client");
    let response =
        tokio::time::timeout(std::time::Duration::from_secs(60), client.exec_chat("gpt-4o", ::genai::chat::ChatRequest::from_user("move money"), None)).await.expect("genai answers in time");
    let head = tokio::time::timeout(std::time::Duration::from_secs(60), api).await.expect("the stand-in answered in time").expect("the stand-in answered");
    assert!(head.starts_with("POST /v1/chat/completions"), "{head}");
    response
}

#[tokio::test]
async fn genai_responses_resolve_call_by_call() {
    let (mut reply, mut expect) = fixture("openai_chat_parallel.json");
    // genai refuses a whole reply in which a call's arguments are not JSON text.
    assert!(genai_exchange(&reply).await.is_err(), "genai refuses the reply with unparsable arguments");
    let calls = reply["choices"][0]["message"]["tool_calls"].as_array_mut().expect("tool calls");
    calls.retain(|c| c["function"]["arguments"].as_str().is_some_and(|a| serde_json::from_str::<Value>(a).is_ok()));
    expect.retain(|(id, ..)| calls.iter().any(|c| c["id"] == id.as_str()));
    assert_eq!(expect.len(), 4, "the calls genai reads");

    let response = genai_exchange(&reply).await.expect("genai reads the reply");
    let resolved = genai::resolve::<ToolCall>(&response, &Options::strict());
    assert_eq!(resolved.iter().map(verdict).collect::<Vec<_>>(), expect);
    assert_eq!(resolved.iter().map(verdict).collect::<Vec<_>>(), by_wire(&reply).into_iter().map(|(_, v)| v).collect::<Vec<_>>(), "as wire resolves it");

    // A streamed call cut short keeps its text: read as the model wrote it.
    let cut = ::genai::chat::ToolCall { call_id: "call_9".into(), fn_name: "get_balance".into(), fn_arguments: json!("{\"account_id\": \"acct-7\""), thought_signatures: None };
    let cut = genai::resolve_call::<ToolCall>(&cut, &Options::strict());
    assert_eq!(verdict(&cut), ("call_9".to_owned(), "Malformed".to_owned(), Some("/arguments".to_owned())));

    let rejected = resolved.iter().find(|c| c.outcome.is_err()).expect("a rejected call");
    let answer = genai::tool_response(rejected).expect("a rejected call's answer");
    assert_eq!((answer.call_id.as_str(), answer.fn_name.as_deref()), (rejected.id.as_str(), Some(rejected.name.as_str())));
    assert!(answer.content.contains("Send only the declared keys"), "{}", answer.content);
}
