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
//! let answers: Vec<ToolResponse> = calls.iter().filter_map(|c| c.outcome.as_ref().err().map(|r| toolseal::genai::tool_response(c, r))).collect();
//! ```
//!
//! Without streaming, genai refuses a whole response whose arguments are not
//! JSON (`exec_chat` returns an error): no call of it reaches toolseal.

use ::genai::chat::{ChatResponse, ToolCall, ToolResponse};

use crate::call::{Options, ToolSet};
use crate::feedback::Feedback;
use crate::rejection::Rejection;
use crate::wire::{ResolvedCall, resolve_value};

/// Every tool call of `response`, resolved against `C`, in order.
pub fn resolve<C: ToolSet>(response: &ChatResponse, options: &Options) -> Vec<ResolvedCall<C>> {
    response.tool_calls().into_iter().map(|call| resolve_call(call, options)).collect()
}

/// One tool call, resolved against `C`.
pub fn resolve_call<C: ToolSet>(call: &ToolCall, options: &Options) -> ResolvedCall<C> {
    ResolvedCall { id: call.call_id.clone(), name: call.fn_name.clone(), outcome: resolve_value(None, &call.fn_name, &call.fn_arguments, options) }
}

/// The tool response answering `call` with `rejection`'s feedback (the tool's
/// name included, as Gemini needs it).
pub fn tool_response<C>(call: &ResolvedCall<C>, rejection: &Rejection) -> ToolResponse {
    ToolResponse::new(call.id.clone(), Feedback::from(rejection).text).with_fn_name(call.name.clone())
}
