//! The tool calls of an [async-openai](https://docs.rs/async-openai) response,
//! resolved (feature `async-openai`; its types only, no HTTP client).
//!
//! A Chat Completions response's `tool_calls` and a Responses API response's
//! `function_call` items and MCP approval requests are resolved one by one, in
//! one call ([`resolve_chat`], [`resolve_response`]); a rejected call is
//! answered with what async-openai sends back ([`tool_message`], [`answer_item`]),
//! its text the [`Feedback`] the model retries from. The arguments are read from
//! the string the model wrote: the verdicts, classes and pointers
//! [`wire::parse_reply`](crate::wire::parse_reply) gives the response's JSON.
//!
//! ```ignore
//! for call in toolseal::async_openai::resolve_chat::<bank::ToolCall>(&response, &Options::strict()) {
//!     match &call.outcome {
//!         Ok(resolved) => messages.push(run(&call.id, &resolved.call)),
//!         Err(_) => messages.extend(toolseal::async_openai::tool_message(&call).map(Into::into)),
//!     }
//! }
//! ```
//!
//! The module shares its name with the crate: in code that imports it, name the
//! crate `::async_openai`.

use ::async_openai::types::chat::{ChatChoice, ChatCompletionMessageToolCalls, ChatCompletionRequestToolMessage, ChatCompletionResponseMessage, CreateChatCompletionResponse};
use ::async_openai::types::responses::{FunctionCallOutputItemParam, InputItem, Item, MCPApprovalResponse, OutputItem, Response};

use crate::call::{Options, ToolSet};
use crate::feedback::Feedback;
use crate::wire::{ItemKind, ResolvedCall, resolve_text};

/// The tool calls of a Chat Completions response's first choice, resolved
/// against `C`, in order (with `n` > 1 the other choices are alternatives to
/// it: [`resolve_message`] resolves any of them).
pub fn resolve_chat<C: ToolSet>(response: &CreateChatCompletionResponse, options: &Options) -> Vec<ResolvedCall<C>> {
    response.choices.first().map(|ChatChoice { message, .. }| resolve_message(message, options)).unwrap_or_default()
}

/// The tool calls of one assistant message, resolved against `C`, in order. A
/// custom tool's free-form `input` is read as its arguments' text (a registry's
/// tools take JSON).
pub fn resolve_message<C: ToolSet>(message: &ChatCompletionResponseMessage, options: &Options) -> Vec<ResolvedCall<C>> {
    let calls = message.tool_calls.as_deref().unwrap_or_default();
    calls
        .iter()
        .map(|call| {
            let (id, name, arguments) = match call {
                ChatCompletionMessageToolCalls::Function(f) => (&f.id, &f.function.name, &f.function.arguments),
                ChatCompletionMessageToolCalls::Custom(c) => (&c.id, &c.custom_tool.name, &c.custom_tool.input),
            };
            ResolvedCall { id: id.clone(), kind: ItemKind::Function, server: None, name: name.clone(), outcome: resolve_text(None, name, arguments, options) }
        })
        .collect()
}

/// The `tool` message answering a rejected Chat Completions call with its feedback
/// (`None` for a call that resolved: its answer is the tool's output).
pub fn tool_message<C>(call: &ResolvedCall<C>) -> Option<ChatCompletionRequestToolMessage> {
    let feedback = Feedback::from(call.rejection()?);
    Some(ChatCompletionRequestToolMessage { content: feedback.text.into(), tool_call_id: call.id.clone() })
}

/// Every `function_call` item and every MCP approval request of a Responses API
/// response, resolved against `C`, in order: a function call by its `call_id`
/// ([`ItemKind::Function`]), an approval request — an MCP tool call OpenAI runs
/// once approved — by its `id`, pinned to its `server_label`
/// ([`ItemKind::McpServer`]). `mcp_call` items have run at OpenAI already and
/// are not resolved here: require approval for the MCP tool to have each call
/// resolved first.
pub fn resolve_response<C: ToolSet>(response: &Response, options: &Options) -> Vec<ResolvedCall<C>> {
    response
        .output
        .iter()
        .filter_map(|item| match item {
            OutputItem::FunctionCall(f) => {
                Some(ResolvedCall { id: f.call_id.clone(), kind: ItemKind::Function, server: None, name: f.name.clone(), outcome: resolve_text(None, &f.name, &f.arguments, options) })
            }
            OutputItem::McpApprovalRequest(r) => Some(ResolvedCall {
                id: r.id.clone(),
                kind: ItemKind::McpServer,
                server: Some(r.server_label.clone()),
                name: r.name.clone(),
                outcome: resolve_text(Some(&r.server_label), &r.name, &r.arguments, options),
            }),
            _ => None,
        })
        .collect()
}

/// The input item answering a Responses API call of [`resolve_response`]: for a
/// rejected function call its `function_call_output` with the feedback, for a
/// rejected approval request its `mcp_approval_response` declining it with the
/// feedback as the reason (`None` for a function call that resolved: its answer
/// is the tool's output; see [`approve`] for an approval request that resolved).
pub fn answer_item<C>(call: &ResolvedCall<C>) -> Option<InputItem> {
    let feedback = Feedback::from(call.rejection()?);
    Some(match call.kind {
        ItemKind::Function => InputItem::from(Item::FunctionCallOutput(FunctionCallOutputItemParam {
            call_id: Some(call.id.clone()),
            output: feedback.text.into(),
            id: None,
            status: None,
            name: None,
            namespace: None,
            caller: None,
        })),
        ItemKind::McpServer => approval(&call.id, false, Some(feedback.text)),
    })
}

/// The `mcp_approval_response` approving an approval request that resolved
/// (`None` for a rejected one, or a function call).
pub fn approve<C>(call: &ResolvedCall<C>) -> Option<InputItem> {
    (call.kind == ItemKind::McpServer && call.outcome.is_ok()).then(|| approval(&call.id, true, None))
}

fn approval(request_id: &str, approve: bool, reason: Option<String>) -> InputItem {
    InputItem::from(Item::McpApprovalResponse(MCPApprovalResponse { approval_request_id: request_id.to_owned(), approve, id: None, reason }))
}
