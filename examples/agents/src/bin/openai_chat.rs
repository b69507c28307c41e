//! The tool calls of an async-openai Chat Completions response (a recorded
//! reply, no network) resolved one by one against the bank registry: each
//! resolved call runs, each rejected one is answered with the `tool` message
//! async-openai sends back, its content the feedback the model retries from.
//!
//! ```sh
//! cargo run -p agents --bin openai_chat
//! ```

use agents::bank;
use async_openai::types::chat::{ChatCompletionRequestMessage, ChatCompletionRequestToolMessage, CreateChatCompletionResponse};
use toolseal::Options;

/// A reply as the API sends it: an undeclared key, an honest call, a tool that does not exist.
const REPLY: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1699896917,"model":"gpt-4o",
  "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
    {"id":"call_1","type":"function","function":{"name":"transfer_funds","arguments":"{\"recipient_id\":\"acct-7\",\"amount\":25,\"override\":true}"}},
    {"id":"call_2","type":"function","function":{"name":"get_balance","arguments":"{\"account_id\":\"acct-7\"}"}},
    {"id":"call_3","type":"function","function":{"name":"wipe_disk","arguments":"{}"}}]}}]}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let response: CreateChatCompletionResponse = serde_json::from_str(REPLY)?;
    let mut next: Vec<ChatCompletionRequestMessage> = Vec::new();
    for call in toolseal::async_openai::resolve_chat::<bank::ToolCall>(&response, &Options::strict()) {
        match &call.outcome {
            Ok(resolved) => {
                let output = agents::run(&resolved.call);
                println!("{} {}: ran: {output}", call.id, call.name);
                next.push(ChatCompletionRequestToolMessage { content: output.into(), tool_call_id: call.id.clone() }.into());
            }
            Err(rejection) => {
                println!("{} {}: {} at {}", call.id, call.name, rejection.class(), rejection.pointer());
                next.extend(toolseal::async_openai::tool_message(&call).map(Into::into));
            }
        }
    }
    println!("{}", serde_json::to_string_pretty(&next)?);
    Ok(())
}
