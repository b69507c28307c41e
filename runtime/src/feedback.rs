//! What goes back to the model after a rejection, so that it can retry:
//! short, bounded, classified, and never an echo of huge input. Plus a retry
//! budget so that an agent loop stops instead of looping.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Value, json};

pub use crate::rejection::Suggestions;
use crate::rejection::{Class, Rejection, bounded, clip_to};

/// The longest feedback text, in characters.
pub const MAX_TEXT: usize = 512;

/// The most suggestions (closest names, declared keys) sent back.
pub const MAX_SUGGESTIONS: usize = 8;

/// A rejection as the model reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feedback {
    /// `Malformed`, `H1`, `H2` or `H3`.
    pub class: &'static str,
    /// Where in the call object (`/arguments/amount`); a pointer that is always
    /// the same (`/name`) is borrowed, not copied.
    pub pointer: Cow<'static, str>,
    /// One line: what is wrong and what would be right (at most [`MAX_TEXT`] characters).
    pub text: String,
    /// What the schema expected, for value errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The JSON kind found, for value errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<&'static str>,
    /// Closest tool names (H1) or the declared keys (H2); never applied for the model.
    /// Names compiled into the binary (a generated enum's) are borrowed, not copied.
    #[serde(skip_serializing_if = "Suggestions::is_empty")]
    pub suggestions: Suggestions<'static>,
}

impl From<&Rejection> for Feedback {
    fn from(r: &Rejection) -> Feedback {
        let hint = match r.class() {
            Class::H1 => " Call one of the registry's tools.",
            Class::H2 => " Send only the declared keys, each once, and every required one.",
            Class::H3 => " Send a value of the declared type and range.",
            Class::M1 => " Call a tool that a connected server provides.",
            Class::M2 | Class::M3 => " Call the tool by one of the qualified names listed.",
            Class::M4 => " The tool changed since it was listed: list the tools again.",
            Class::M5 => " Send the arguments the routed server's tool declares.",
            Class::Quarantined => " This tool cannot be called until its registry is fixed; use another tool.",
            _ => " Send one call object with \"name\" and \"arguments\".",
        };
        let (mut text, suggestions) = r.line_and_suggestions(1 + hint.len());
        text.push('.');
        text.push_str(hint);
        Feedback {
            class: r.class().as_str(),
            pointer: r.pointer_clipped(128),
            text: bounded(text.into(), MAX_TEXT).into_owned(),
            expected: r.expected().map(|e| clip_to(e, 128).into_owned()),
            found: r.found().map(|k| k.as_str()),
            suggestions: suggestions.bounded(MAX_SUGGESTIONS, 64),
        }
    }
}

// The MCP shapes of a rejection, one for every MCP answer toolseal writes (wire
// answers, `toolseal host`, the guard, the gateway): an unknown tool is the
// protocol error `-32602` with the `Feedback` as `data`; every other rejection is
// a tool result with `isError: true`, the text, and the `Feedback` itself.

/// Whether MCP answers `r` with the JSON-RPC error the specification gives for an
/// unknown tool ([`mcp_unknown_tool`]): the tool does not exist (H1), or no connected
/// server provides it (M1). Every other rejection is a tool result ([`mcp_tool_result_for`]).
pub fn is_unknown_tool(r: &Rejection) -> bool {
    matches!(r.class(), Class::H1 | Class::M1)
}

/// The MCP `CallToolResult` for a rejected call: `isError: true` (the spec's way to
/// report argument errors, so that the model sees them and retries), the feedback's
/// text, and the [`Feedback`] as `structuredContent`, or, when the tool declares an
/// `outputSchema` (`typed_output`: clients check `structuredContent` against it, even
/// on errors), as a second text block holding its JSON.
pub fn mcp_tool_result_for(r: &Rejection, typed_output: bool) -> Value {
    let feedback = Feedback::from(r);
    let text = json!({ "type": "text", "text": feedback.text });
    if typed_output {
        let data = json!({ "type": "text", "text": json!(feedback).to_string() });
        return json!({ "content": [text, data], "isError": true });
    }
    json!({ "content": [text], "isError": true, "structuredContent": feedback })
}

/// [`mcp_tool_result_for`] where the tool's `outputSchema` is not known: the
/// [`Feedback`] as a text block, valid whatever the tool declares.
pub fn mcp_tool_result(r: &Rejection) -> Value {
    mcp_tool_result_for(r, true)
}

/// The MCP JSON-RPC error for an unknown tool (`-32602`, invalid params), with
/// the feedback as `data`.
pub fn mcp_unknown_tool(id: Value, r: &Rejection) -> Value {
    let feedback = Feedback::from(r);
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32602, "message": feedback.text, "data": feedback } })
}

/// The JSON-RPC response to a rejected `tools/call` with `id`: [`mcp_unknown_tool`]
/// when [`is_unknown_tool`], else a result holding [`mcp_tool_result_for`].
pub fn mcp_rejection(id: Value, r: &Rejection, typed_output: bool) -> Value {
    if is_unknown_tool(r) {
        return mcp_unknown_tool(id, r);
    }
    json!({ "jsonrpc": "2.0", "id": id, "result": mcp_tool_result_for(r, typed_output) })
}

/// A retry budget for one tool call of an agent loop.
///
/// ```
/// use toolseal_runtime::feedback::RetryBudget;
/// let mut budget = RetryBudget::max_attempts(3);
/// let mut tries = 0;
/// while budget.attempt().is_ok() {
///     tries += 1; // ask the model, resolve, break on success
/// }
/// assert_eq!(tries, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryBudget {
    max: u32,
    used: u32,
}

/// The budget is spent: stop asking the model and report the last rejection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("retry budget of {max} attempts is spent")]
pub struct BudgetSpent {
    /// The budget.
    pub max: u32,
}

impl RetryBudget {
    /// At most `max` attempts in all (the first one included).
    pub fn max_attempts(max: u32) -> RetryBudget {
        RetryBudget { max, used: 0 }
    }

    /// Takes one attempt: its number (1-based), or `BudgetSpent`.
    pub fn attempt(&mut self) -> Result<u32, BudgetSpent> {
        if self.used >= self.max {
            return Err(BudgetSpent { max: self.max });
        }
        self.used += 1;
        Ok(self.used)
    }

    /// Attempts left.
    pub fn remaining(&self) -> u32 {
        self.max - self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::Path;
    use crate::rejection::Reason;

    #[test]
    fn an_unknown_tool_is_a_protocol_error_and_every_other_rejection_a_result() {
        let m1 = Rejection::routing(Class::M1, Reason::NoProvider { server: None }, "zap");
        let e = mcp_rejection(json!(1), &m1, false);
        assert_eq!((&e["id"], &e["error"]["code"], &e["error"]["data"]["class"]), (&json!(1), &json!(-32602), &json!("M1")));
        assert!(e.get("result").is_none());
        let malformed = Rejection::malformed(Reason::MissingName, &Path::root().key("name"));
        let feedback = json!(Feedback::from(&malformed));
        let r = mcp_rejection(json!("a"), &malformed, false);
        assert_eq!((&r["id"], &r["result"]["isError"], &r["result"]["structuredContent"]), (&json!("a"), &json!(true), &feedback));
        assert_eq!(r["result"]["content"], json!([{ "type": "text", "text": feedback["text"] }]));
        // A tool with an outputSchema: the feedback as JSON text, no structuredContent to fail it.
        let typed = mcp_tool_result_for(&malformed, true);
        assert!(typed.get("structuredContent").is_none());
        let data: Value = serde_json::from_str(typed["content"][1]["text"].as_str().expect("text")).expect("JSON");
        assert_eq!((&typed["content"][0]["text"], &data), (&feedback["text"], &feedback));
        assert_eq!(mcp_tool_result(&malformed), typed);
    }
}
