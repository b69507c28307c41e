//! The tool calls of a [genai](https://docs.rs/genai) chat response, resolved
//! (feature `genai`).
//!
//! genai hands the arguments over parsed (`fn_arguments`, a JSON value); ones it
//! could not parse (a streamed call cut short, a custom tool's free-form input)
//! it keeps as a string, read here as the text the model wrote. A rejected call
//! is answered with a [`ToolResponse`] whose content is the [`Feedback`] the
//! model retries from.
//!
//! ```ignore
//! let calls = toolseal::genai::resolve::<bank::ToolCall>(&response, &Options::strict());
//! let answers: Vec<ToolResponse> = calls.iter().filter_map(toolseal::genai::tool_response).collect();
//! ```
//!
//! What genai parsed is what is resolved, so two answers differ from
//! [`wire::parse_reply`](crate::wire::parse_reply) on the same reply: arguments
//! written `"null"` are `{}` here (genai reads them as `null`), and arguments
//! that are a JSON string holding an object are that object here (genai keeps
//! the string, read as its text). Without streaming, genai refuses a whole
//! response whose arguments are not JSON (`exec_chat` returns an error): no call
//! of it reaches toolseal.
//!
//! The module shares its name with the crate: in code that imports it, name the
//! crate `::genai`.

use ::genai::chat::{ChatResponse, ToolCall, ToolResponse};
use serde_json::Value;

use crate::call::{Options, Resolution, ToolSet};
use crate::feedback::Feedback;
use crate::json::Json;
use crate::rejection::Rejection;
use crate::wire::{ItemKind, ResolvedCall, resolve_parts, resolve_text};

/// Every tool call of `response`, resolved against `C`, in order.
pub fn resolve<C: ToolSet>(response: &ChatResponse, options: &Options) -> Vec<ResolvedCall<C>> {
    response.tool_calls().into_iter().map(|call| resolve_call(call, options)).collect()
}

/// One tool call, resolved against `C`.
pub fn resolve_call<C: ToolSet>(call: &ToolCall, options: &Options) -> ResolvedCall<C> {
    ResolvedCall { id: call.call_id.clone(), kind: ItemKind::Function, server: None, name: call.fn_name.clone(), outcome: resolve_arguments(&call.fn_name, &call.fn_arguments, options) }
}

/// The arguments as genai holds them: `null` means `{}`; a string is text genai could not parse.
fn resolve_arguments<C: ToolSet>(name: &str, arguments: &Value, options: &Options) -> Result<Resolution<C>, Rejection> {
    match arguments {
        Value::String(text) => resolve_text(None, name, text, options),
        Value::Null => resolve_parts(None, name, &Json::Object(Vec::new()), options),
        other => resolve_parts(None, name, &Json::from_value(other), options),
    }
}

/// The tool response answering a rejected call with its feedback, the tool's
/// name included (Gemini needs it); `None` for a call that resolved.
pub fn tool_response<C>(call: &ResolvedCall<C>) -> Option<ToolResponse> {
    let feedback = Feedback::from(call.rejection()?);
    Some(ToolResponse::new(call.id.clone(), feedback.text).with_fn_name(call.name.clone()))
}
