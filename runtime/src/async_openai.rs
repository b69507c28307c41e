//! The tool calls of an [async-openai](https://docs.rs/async-openai) response,
//! resolved (feature `async-openai`; its types only, no HTTP client).
//!
//! A Chat Completions response's `tool_calls` and a Responses API response's
//! `function_call` items are resolved one by one, each in one call
//! ([`resolve_chat`], [`resolve_response`]); a rejected call is answered with
//! the message async-openai sends back ([`tool_message`],
//! [`function_call_output`]), its text the [`Feedback`] the model retries from.
//! The arguments are read from the string the model wrote: the same verdicts,
//! classes and pointers as [`wire::parse_reply`](crate::wire::parse_reply) on
//! the response's JSON.
//!
//! ```ignore
//! let calls = toolseal::async_openai::resolve_chat::<bank::ToolCall>(&response, &Options::strict());
//! for call in &calls {
//!     match &call.outcome {
//!         Ok(resolved) => run(&resolved.call),
//!         Err(rejection) => messages.push(toolseal::async_openai::tool_message(&call.id, rejection).into()),
//!     }
//! }
//! ```

use ::async_openai::types::chat::{ChatCompletionMessageToolCalls, ChatCompletionRequestToolMessage, ChatCompletionResponseMessage, CreateChatCompletionResponse};
use ::async_openai::types::responses::{FunctionCallOutputItemParam, InputItem, Item, MCPApprovalResponse, OutputItem, Response};

use crate::call::{Options, ToolSet};
use crate::feedback::Feedback;
use crate::rejection::Rejection;
use crate::wire::{ResolvedCall, resolve_text};

/// Every tool call of every choice of a Chat Completions response, resolved
/// against `C`, in order.
pub fn resolve_chat<C: ToolSet>(response: &CreateChatCompletionResponse, options: &Options) -> Vec<ResolvedCall<C>> {
    response.choices.iter().flat_map(|choice| resolve_message(&choice.message, options)).collect()
}

/// The tool calls of one assistant message, resolved against `C`, in order. A
/// custom tool's free-form `input` is read as its arguments.
pub fn resolve_message<C: ToolSet>(message: &ChatCompletionResponseMessage, options: &Options) -> Vec<ResolvedCall<C>> {
    let calls = message.tool_calls.as_deref().unwrap_or_default();
    calls
        .iter()
        .map(|call| {
            let (id, name, arguments) = match call {
                ChatCompletionMessageToolCalls::Function(f) => (&f.id, &f.function.name, &f.function.arguments),
                ChatCompletionMessageToolCalls::Custom(c) => (&c.id, &c.custom_tool.name, &c.custom_tool.input),
            };
            ResolvedCall { id: id.clone(), name: name.clone(), outcome: resolve_text(None, name, arguments, options) }
        })
        .collect()
}

/// The `tool` message answering the call `call_id` with `rejection`'s feedback.
pub fn tool_message(call_id: &str, rejection: &Rejection) -> ChatCompletionRequestToolMessage {
    ChatCompletionRequestToolMessage { content: Feedback::from(rejection).text.into(), tool_call_id: call_id.to_owned() }
}

/// Every `function_call` item and every MCP approval request of a Responses API
/// response, resolved against `C`, in order: a function call by its `call_id`,
/// an approval request (an MCP tool call OpenAI will run once approved) by its
/// `id`, pinned to its `server_label`. `mcp_call` items have run already at
/// OpenAI and are not resolved here; configure the MCP tool to require approval
/// to have each call resolved first.
pub fn resolve_response<C: ToolSet>(response: &Response, options: &Options) -> Vec<ResolvedCall<C>> {
    response
        .output
        .iter()
        .filter_map(|item| match item {
            OutputItem::FunctionCall(f) => Some(ResolvedCall { id: f.call_id.clone(), name: f.name.clone(), outcome: resolve_text(None, &f.name, &f.arguments, options) }),
            OutputItem::McpApprovalRequest(r) => Some(ResolvedCall { id: r.id.clone(), name: r.name.clone(), outcome: resolve_text(Some(&r.server_label), &r.name, &r.arguments, options) }),
            _ => None,
        })
        .collect()
}

/// The `function_call_output` input item answering the call `call_id` with `rejection`'s feedback.
pub fn function_call_output(call_id: &str, rejection: &Rejection) -> InputItem {
    InputItem::from(Item::FunctionCallOutput(FunctionCallOutputItemParam {
        call_id: Some(call_id.to_owned()),
        output: Feedback::from(rejection).text.into(),
        id: None,
        status: None,
        name: None,
        namespace: None,
        caller: None,
    }))
}

/// The `mcp_approval_response` input item declining the approval request
/// `request_id`, `rejection`'s feedback as the reason.
pub fn decline_approval(request_id: &str, rejection: &Rejection) -> InputItem {
    InputItem::from(Item::McpApprovalResponse(MCPApprovalResponse { approval_request_id: request_id.to_owned(), approve: false, id: None, reason: Some(Feedback::from(rejection).text) }))
}
