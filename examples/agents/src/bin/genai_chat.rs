//! The tool calls of a genai chat response resolved one by one against the
//! bank registry: each resolved call runs, each rejected one is answered with a
//! genai `ToolResponse` whose content is the feedback the model retries from.
//! The response is built here as genai's OpenAI adapter builds it from a reply
//! (no network).
//!
//! ```sh
//! cargo run -p agents --bin genai_chat
//! ```

use agents::bank;
use genai::chat::{ChatMessage, ChatResponse, MessageContent, ToolCall, ToolResponse, Usage};
use serde_json::json;
use toolseal::Options;

fn main() {
    let calls = vec![
        ToolCall { call_id: "call_1".into(), fn_name: "transfer_funds".into(), fn_arguments: json!({ "recipient_id": "acct-7", "amount": "all of it" }), thought_signatures: None },
        ToolCall { call_id: "call_2".into(), fn_name: "get_balance".into(), fn_arguments: json!({ "account_id": "acct-7" }), thought_signatures: None },
        ToolCall { call_id: "call_3".into(), fn_name: "get_balanse".into(), fn_arguments: json!({ "account_id": "acct-7" }), thought_signatures: None },
    ];
    let model = genai::ModelIden::new(genai::adapter::AdapterKind::OpenAI, "gpt-4o");
    let response = ChatResponse {
        content: MessageContent::from(calls),
        reasoning_content: None,
        model_iden: model.clone(),
        provider_model_iden: model,
        stop_reason: None,
        usage: Usage::default(),
        captured_raw_body: None,
        response_id: None,
    };

    let mut answers: Vec<ToolResponse> = Vec::new();
    for call in toolseal::genai::resolve::<bank::ToolCall>(&response, &Options::strict()) {
        match &call.outcome {
            Ok(resolved) => {
                let output = agents::run(&resolved.call);
                println!("{} {}: ran: {output}", call.id, call.name);
                answers.push(ToolResponse::new(call.id.clone(), output));
            }
            Err(rejection) => {
                println!("{} {}: {} at {}", call.id, call.name, rejection.class(), rejection.pointer());
                answers.extend(toolseal::genai::tool_response(&call));
            }
        }
    }
    for answer in answers {
        let message = ChatMessage::from(answer);
        println!("{}", serde_json::to_string(&message).unwrap_or_default());
    }
}
