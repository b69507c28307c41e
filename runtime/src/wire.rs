//! Tool calls as vendors send them, and answers as vendors expect them back.
//!
//! [`parse_reply`] takes one model reply — OpenAI Chat Completions
//! `tool_calls`, OpenAI Responses `function_call` / `mcp_call`, Anthropic
//! `tool_use` / `mcp_tool_use`, Bedrock Converse `toolUse`, Gemini
//! `functionCall`, MCP `tools/call` JSON-RPC, a bare output item or content
//! block of Responses or Anthropic (`{"type": "mcp_call", ...}`), or a bare
//! `{"name", "arguments"}` (with an optional `"server"` pin) — and returns every call in it, each with its id, to be resolved on its
//! own: one bad call rejects that call, the others go on. [`answer`] renders
//! a result or a rejection for one call in its vendor's shape, id preserved;
//! [`reply`] wraps a batch of answers as the next message of the conversation.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::call::{Options, Resolution, ToolSet, parse_call};
use crate::canonical::sha256_hex;
use crate::feedback::{Feedback, mcp_rejection};
use crate::json::Json;
use crate::path::Path;
use crate::rejection::{Reason, Rejection};

/// The wire formats toolseal reads tool calls from.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WireFormat {
    /// The canonical call object `{"name": ..., "arguments": {...}}`, optionally
    /// pinned to a server: `{"server": ..., "name": ..., "arguments": {...}}`.
    Canonical,
    /// OpenAI Chat Completions: `choices[].message.tool_calls[]`, arguments a JSON string.
    OpenAiChat,
    /// OpenAI Responses: `output[]` items `function_call` and `mcp_call` (or one such item
    /// on its own), arguments a JSON string.
    OpenAiResponses,
    /// Anthropic Messages: `content[]` blocks `tool_use` and `mcp_tool_use` (or one such
    /// block on its own), `input` an object.
    Anthropic,
    /// Amazon Bedrock Converse: `output.message.content[].toolUse`, `input` an object.
    Bedrock,
    /// Google Gemini: `candidates[].content.parts[].functionCall`, `args` an object.
    Gemini,
    /// MCP `tools/call` JSON-RPC requests (one, or a batch array).
    Mcp,
}

impl WireFormat {
    /// The format's name in audit records.
    pub fn as_str(self) -> &'static str {
        match self {
            WireFormat::Canonical => "canonical",
            WireFormat::OpenAiChat => "openai_chat",
            WireFormat::OpenAiResponses => "openai_responses",
            WireFormat::Anthropic => "anthropic",
            WireFormat::Bedrock => "bedrock",
            WireFormat::Gemini => "gemini",
            WireFormat::Mcp => "mcp",
        }
    }
}

/// The kind of item a call arrived as; answers take the matching shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A plain function/tool call.
    Function,
    /// A call on a named MCP server (`mcp_call`, `mcp_tool_use`).
    McpServer,
}

/// One tool call taken from a reply.
#[derive(Debug, Clone)]
pub struct WireCall {
    /// The reply's format.
    pub format: WireFormat,
    /// What kind of item it was.
    pub kind: ItemKind,
    /// Its position among the reply's calls.
    pub index: usize,
    /// The call id, as the vendor gave it (`call_…`, `toolu_…`, a JSON-RPC id).
    pub id: Option<String>,
    /// The MCP server the call names (`server_label`, `server_name`, the canonical `server`).
    pub server: Option<String>,
    /// The tool name as given (absent when the item had none).
    pub name: Option<String>,
    /// SHA-256 (hex) of the call item as received, re-serialized compactly.
    pub digest: String,
    /// The arguments, or why the item cannot be a call.
    pub arguments: Result<Json<'static>, Rejection>,
    /// The JSON-RPC id as it was (a number or a string), for MCP answers.
    rpc_id: Value,
}

impl WireCall {
    /// Resolves this call against the sealed set `C`: the same checks, classes
    /// and pointers as the canonical call object `{"name", "arguments"}`.
    pub fn resolve<C: ToolSet>(&self, options: &Options) -> Result<Resolution<C>, Rejection> {
        let arguments = self.arguments.as_ref().map_err(Clone::clone)?;
        let Some(name) = &self.name else {
            return Err(Rejection::malformed(Reason::MissingName, &Path::root().key("name")));
        };
        if self.format == WireFormat::Canonical && self.server.is_none() {
            // The canonical object is resolved whole, envelope rules included
            // (a pinned one had them checked when it was parsed).
            let members = vec![(Cow::Borrowed("name"), Json::String(Cow::Borrowed(name.as_str()))), (Cow::Borrowed("arguments"), arguments.clone())];
            return C::resolve_tree_with(&Json::Object(members), options);
        }
        resolve_parts(self.server.as_deref(), name, arguments, options)
    }
}

/// One call of a vendor SDK's typed response, resolved on its own (what the
/// framework adapters return, one per call, in the response's order).
#[derive(Debug, Clone)]
pub struct ResolvedCall<C> {
    /// The call id its answer must carry back (`call_…`, `toolu_…`, an approval request's `mcpr_…`).
    pub id: String,
    /// What kind of item the call came as: a function call, or a call on a named MCP server.
    pub kind: ItemKind,
    /// The MCP server the call names (`server_label`), for [`ItemKind::McpServer`].
    pub server: Option<String>,
    /// The tool name as the model wrote it.
    pub name: String,
    /// The call, or why it is refused.
    pub outcome: Result<Resolution<C>, Rejection>,
}

impl<C> ResolvedCall<C> {
    /// Why the call is refused, if it is.
    pub fn rejection(&self) -> Option<&Rejection> {
        self.outcome.as_ref().err()
    }
}

/// Resolves one call whose arguments are a JSON-encoded string (OpenAI's
/// `arguments`), pinned to `server` when one is given: the verdict, class and
/// pointer [`WireCall::resolve`] gives the same call in a reply, for a call
/// that a vendor SDK has already taken out of its response (the text is held to
/// `options.max_bytes`).
pub fn resolve_text<C: ToolSet>(server: Option<&str>, name: &str, arguments: &str, options: &Options) -> Result<Resolution<C>, Rejection> {
    resolve_parts(server, name, &parse_arguments(name, arguments, options)?, options)
}

/// The arguments of a call to `name`, given as JSON text: over `options.max_bytes`
/// or not JSON is `Malformed` at `/arguments`.
pub(crate) fn parse_arguments<'a>(name: &str, arguments: &'a str, options: &Options) -> Result<Json<'a>, Rejection> {
    let at = Path::root();
    let at = at.key("arguments");
    if arguments.len() > options.max_bytes {
        return Err(Rejection::malformed(Reason::TooLarge { size: arguments.len(), limit: options.max_bytes }, &at).with_tool(name));
    }
    Json::parse(arguments.as_bytes()).map_err(|e| Rejection::malformed(Reason::InvalidJson { message: e.message }, &at).with_tool(name))
}

/// Resolves `name` with `arguments` (pinned to `server` when given), the rejection naming the tool.
pub(crate) fn resolve_parts<C: ToolSet>(server: Option<&str>, name: &str, arguments: &Json<'_>, options: &Options) -> Result<Resolution<C>, Rejection> {
    let mut cx = options.cx();
    let call = match server {
        Some(server) => C::resolve_pinned(server, name, Some(arguments), &mut cx),
        None => C::resolve_parts(name, Some(arguments), &mut cx),
    }
    .map_err(|r| if r.tool().is_none() { r.with_tool(name) } else { r })?;
    Ok(Resolution { call, coercions: cx.into_coercions() })
}

/// Takes every tool call out of one model reply, detecting its format.
/// A reply that is not JSON or of no known shape is one `Malformed` rejection;
/// a bad call inside a good reply is that call's rejection alone.
pub fn parse_reply(bytes: &[u8], options: &Options) -> Result<Vec<WireCall>, Rejection> {
    let tree = parse_call(bytes, options)?;
    let format = detect(&tree).ok_or_else(|| shape("a model reply in a known format (OpenAI, Anthropic, Bedrock, Gemini, MCP) or a call object"))?;
    calls_of(format, &tree)
}

/// Takes every tool call out of a reply known to be in `format`.
pub fn parse_reply_as(format: WireFormat, bytes: &[u8], options: &Options) -> Result<Vec<WireCall>, Rejection> {
    let tree = parse_call(bytes, options)?;
    calls_of(format, &tree)
}

fn shape(message: &'static str) -> Rejection {
    Rejection::malformed(Reason::WireShape { message: Cow::Borrowed(message) }, &Path::root())
}

fn str_at<'j>(v: &'j Json<'_>, key: &str) -> Option<&'j str> {
    v.get(key).and_then(Json::as_str)
}

fn array<'j, 'a>(v: Option<&'j Json<'a>>) -> &'j [Json<'a>] {
    match v {
        Some(Json::Array(items)) => items,
        _ => &[],
    }
}

fn has_item(items: &[Json<'_>], pred: impl Fn(&Json<'_>) -> bool) -> bool {
    items.iter().any(pred)
}

/// The format of a bare output item or content block (`{"type": "mcp_call", ...}`), if `tree` is one.
fn bare_item(tree: &Json<'_>) -> Option<WireFormat> {
    match str_at(tree, "type")? {
        "function_call" | "mcp_call" => Some(WireFormat::OpenAiResponses),
        "tool_use" | "mcp_tool_use" => Some(WireFormat::Anthropic),
        _ => None,
    }
}

/// The items of a reply's list under `key`, or the reply itself when it is one bare item of `format`.
fn items_or_bare<'j, 'a>(tree: &'j Json<'a>, key: &str, format: WireFormat) -> &'j [Json<'a>] {
    if bare_item(tree) == Some(format) {
        return std::slice::from_ref(tree);
    }
    array(tree.get(key))
}

fn detect(tree: &Json<'_>) -> Option<WireFormat> {
    if let Json::Array(items) = tree {
        return (!items.is_empty() && items.iter().all(|i| i.get("jsonrpc").is_some())).then_some(WireFormat::Mcp);
    }
    if let Some(format) = bare_item(tree) {
        return Some(format);
    }
    if tree.get("jsonrpc").is_some() {
        return Some(WireFormat::Mcp);
    }
    if tree.get("choices").is_some() || tree.get("tool_calls").is_some() {
        return Some(WireFormat::OpenAiChat);
    }
    if tree.get("candidates").is_some() || tree.get("parts").is_some() {
        return Some(WireFormat::Gemini);
    }
    if let Some(Json::Object(_)) = tree.get("output") {
        return Some(WireFormat::Bedrock);
    }
    if let Some(Json::Array(items)) = tree.get("output") {
        let responses = items.is_empty() || has_item(items, |i| i.get("type").is_some());
        return responses.then_some(WireFormat::OpenAiResponses);
    }
    if let Some(Json::Array(blocks)) = tree.get("content") {
        if has_item(blocks, |b| b.get("toolUse").is_some()) {
            return Some(WireFormat::Bedrock);
        }
        return Some(WireFormat::Anthropic);
    }
    // A call object; without its `name` it is still one (and `Malformed` for that).
    if tree.get("name").is_some() || tree.get("arguments").is_some() {
        return Some(WireFormat::Canonical);
    }
    None
}

/// How a format carries arguments.
#[derive(Clone, Copy)]
enum Encoding {
    /// A JSON-encoded string (OpenAI).
    String,
    /// An object (everyone else).
    Object,
}

struct Item<'j, 'a> {
    kind: ItemKind,
    raw: &'j Json<'a>,
    id: Option<&'j str>,
    server: Option<&'j str>,
    name: Option<&'j Json<'a>>,
    arguments: Option<&'j Json<'a>>,
    encoding: Encoding,
}

fn calls_of(format: WireFormat, tree: &Json<'_>) -> Result<Vec<WireCall>, Rejection> {
    let mut items: Vec<Item<'_, '_>> = Vec::new();
    let function = |raw, id, name, arguments, encoding| Item { kind: ItemKind::Function, raw, id, server: None, name, arguments, encoding };
    match format {
        WireFormat::Canonical => {
            // The canonical object is resolved whole (its envelope rules included).
            let (server, arguments) = canonical_call(tree);
            return Ok(vec![WireCall {
                format,
                kind: ItemKind::Function,
                index: 0,
                id: None,
                server,
                name: str_at(tree, "name").map(str::to_owned),
                digest: sha256_hex(tree.to_json_string().as_bytes()),
                arguments,
                rpc_id: Value::Null,
            }]);
        }
        WireFormat::OpenAiChat => {
            let messages: Vec<&Json<'_>> = match tree.get("choices") {
                Some(Json::Array(choices)) => choices.iter().filter_map(|c| c.get("message")).collect(),
                Some(_) => return Err(shape("`choices` must be an array of choices with a `message`")),
                None => vec![tree],
            };
            for message in messages {
                for call in array(message.get("tool_calls")) {
                    let f = call.get("function");
                    items.push(function(call, str_at(call, "id"), f.and_then(|f| f.get("name")), f.and_then(|f| f.get("arguments")), Encoding::String));
                }
            }
        }
        WireFormat::OpenAiResponses => {
            for item in items_or_bare(tree, "output", format) {
                match str_at(item, "type") {
                    Some("function_call") => items.push(function(item, str_at(item, "call_id"), item.get("name"), item.get("arguments"), Encoding::String)),
                    Some("mcp_call") => items.push(mcp_item(item, "server_label", "arguments", Encoding::String)),
                    _ => {}
                }
            }
        }
        WireFormat::Anthropic => {
            for block in items_or_bare(tree, "content", format) {
                match str_at(block, "type") {
                    Some("tool_use") => items.push(function(block, str_at(block, "id"), block.get("name"), block.get("input"), Encoding::Object)),
                    Some("mcp_tool_use") => items.push(mcp_item(block, "server_name", "input", Encoding::Object)),
                    _ => {}
                }
            }
        }
        WireFormat::Bedrock => {
            let message = tree.get("output").and_then(|o| o.get("message")).unwrap_or(tree);
            for block in array(message.get("content")) {
                if let Some(tool_use) = block.get("toolUse") {
                    items.push(function(tool_use, str_at(tool_use, "toolUseId"), tool_use.get("name"), tool_use.get("input"), Encoding::Object));
                }
            }
        }
        WireFormat::Gemini => {
            let contents: Vec<&Json<'_>> = match tree.get("candidates") {
                Some(Json::Array(candidates)) => candidates.iter().filter_map(|c| c.get("content")).collect(),
                Some(_) => return Err(shape("`candidates` must be an array of candidates with a `content`")),
                None => vec![tree],
            };
            for content in contents {
                for part in array(content.get("parts")) {
                    if let Some(call) = part.get("functionCall") {
                        items.push(function(call, str_at(call, "id"), call.get("name"), call.get("args"), Encoding::Object));
                    }
                }
            }
        }
        WireFormat::Mcp => {
            let requests: Vec<&Json<'_>> = match tree {
                Json::Array(batch) => batch.iter().collect(),
                one => vec![one],
            };
            for request in requests {
                if str_at(request, "method") != Some("tools/call") {
                    continue;
                }
                let params = request.get("params");
                items.push(Item {
                    kind: ItemKind::Function,
                    raw: request,
                    id: None,
                    server: None,
                    name: params.and_then(|p| p.get("name")),
                    arguments: params.and_then(|p| p.get("arguments")),
                    encoding: Encoding::Object,
                });
            }
            // JSON-RPC ids may be numbers: `id` shows them as text, answers send them back as they were.
            return Ok(items
                .into_iter()
                .enumerate()
                .map(|(index, item)| {
                    let rpc_id = item.raw.get("id").map_or(Value::Null, Json::to_value);
                    let id = item.raw.get("id").map(|id| id.as_str().map_or_else(|| id.to_json_string(), str::to_owned));
                    let mut call = wire_call(format, index, item, id);
                    call.rpc_id = rpc_id;
                    call
                })
                .collect());
        }
    }
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            let id = item.id.map(str::to_owned);
            wire_call(format, index, item, id)
        })
        .collect())
}

/// A call on a named MCP server: `id`, `name`, the server under `server_key`, the arguments under `arguments_key`.
fn mcp_item<'j, 'a>(raw: &'j Json<'a>, server_key: &str, arguments_key: &str, encoding: Encoding) -> Item<'j, 'a> {
    Item { kind: ItemKind::McpServer, raw, id: str_at(raw, "id"), server: str_at(raw, server_key), name: raw.get("name"), arguments: raw.get(arguments_key), encoding }
}

fn canonical_arguments(tree: &Json<'_>) -> Result<Json<'static>, Rejection> {
    crate::call::split_call(tree).map(|(_, a)| a.cloned().unwrap_or(Json::Object(Vec::new())).into_owned())
}

/// The server a canonical call pins (`"server"`, a string, at most once) and its
/// arguments; the rest of the object keeps the envelope rules of `{"name", "arguments"}`.
fn canonical_call(tree: &Json<'_>) -> (Option<String>, Result<Json<'static>, Rejection>) {
    let Json::Object(members) = tree else {
        return (None, canonical_arguments(tree));
    };
    let pins: Vec<&Json<'_>> = members.iter().filter(|(k, _)| k == "server").map(|(_, v)| v).collect();
    let at = Path::root();
    let at = at.key("server");
    match pins.as_slice() {
        [] => (None, canonical_arguments(tree)),
        [Json::String(server)] => {
            let rest = Json::Object(members.iter().filter(|(k, _)| k != "server").cloned().collect());
            (Some(server.to_string()), canonical_arguments(&rest))
        }
        [other] => {
            let message = Cow::Borrowed("\"server\" must be a string: the name of the server the call pins");
            (None, Err(Rejection::malformed(Reason::WireShape { message }, &at).with_found(other.kind())))
        }
        _ => (None, Err(Rejection::malformed(Reason::BadEnvelopeKey { key: "server".to_owned() }, &at))),
    }
}

fn wire_call(format: WireFormat, index: usize, item: Item<'_, '_>, id: Option<String>) -> WireCall {
    let name = match item.name {
        Some(Json::String(s)) => Ok(Some(s.to_string())),
        Some(other) => Err(Rejection::malformed(Reason::NameNotString, &Path::root().key("name")).with_found(other.kind())),
        None => Ok(None),
    };
    let arguments = name.as_ref().map_err(Clone::clone).and_then(|_| arguments_of(item.arguments, item.encoding));
    WireCall {
        format,
        kind: item.kind,
        index,
        id,
        server: item.server.map(str::to_owned),
        name: name.ok().flatten(),
        digest: sha256_hex(item.raw.to_json_string().as_bytes()),
        arguments,
        rpc_id: Value::Null,
    }
}

fn arguments_of(given: Option<&Json<'_>>, encoding: Encoding) -> Result<Json<'static>, Rejection> {
    let at = Path::root();
    let at = at.key("arguments");
    match (encoding, given) {
        (_, None | Some(Json::Null)) => Ok(Json::Object(Vec::new())),
        (Encoding::String, Some(Json::String(text))) => match Json::parse(text.as_bytes()) {
            Ok(tree) => Ok(tree.into_owned()),
            Err(e) => Err(Rejection::malformed(Reason::InvalidJson { message: e.message }, &at)),
        },
        (Encoding::String, Some(other)) => Err(Rejection::malformed(Reason::ArgumentsEncoding { expected: "a JSON-encoded string" }, &at).with_found(other.kind())),
        (Encoding::Object, Some(Json::String(_))) => Err(Rejection::malformed(Reason::ArgumentsEncoding { expected: "an object" }, &at).with_found(crate::json::JsonKind::String)),
        (Encoding::Object, Some(other)) => Ok(other.clone().into_owned()),
    }
}

/// What became of one call, to be sent back to the model.
#[derive(Debug, Clone)]
pub enum Answer<'a> {
    /// The tool ran; its output.
    Output(&'a Value),
    /// The call was rejected before the gate (Malformed, H1–H3).
    Rejected(&'a Rejection),
    /// The call resolved but was not run (the gate denied it, H4, or a hook
    /// stopped it), or the tool failed; the text says why.
    Refused(&'a str),
}

impl Answer<'_> {
    fn is_error(&self) -> bool {
        !matches!(self, Answer::Output(_))
    }

    /// The text the model reads.
    fn text(&self) -> String {
        match self {
            Answer::Output(Value::String(s)) => s.clone(),
            Answer::Output(v) => v.to_string(),
            Answer::Rejected(r) => Feedback::from(*r).text,
            Answer::Refused(why) => (*why).to_owned(),
        }
    }
}

/// The answer to `call` in its vendor's shape, carrying its id back.
pub fn answer(call: &WireCall, answer: &Answer<'_>) -> Value {
    let id = call.id.clone().map_or(Value::Null, Value::String);
    let text = answer.text();
    let error = answer.is_error();
    match (call.format, call.kind) {
        (WireFormat::Canonical, _) => match answer {
            Answer::Output(v) => json!({ "name": call.name, "output": v }),
            _ => json!({ "name": call.name, "error": text }),
        },
        (WireFormat::OpenAiChat, _) => json!({ "role": "tool", "tool_call_id": id, "content": text }),
        (WireFormat::OpenAiResponses, ItemKind::Function) => json!({ "type": "function_call_output", "call_id": id, "output": text }),
        (WireFormat::OpenAiResponses, ItemKind::McpServer) => {
            let arguments = call.arguments.as_ref().map(|a| a.to_json_string()).unwrap_or_default();
            let mut item = json!({ "type": "mcp_call", "id": id, "server_label": call.server, "name": call.name, "arguments": arguments });
            item[if error { "error" } else { "output" }] = Value::String(text);
            item
        }
        (WireFormat::Anthropic, ItemKind::Function) => {
            let mut block = json!({ "type": "tool_result", "tool_use_id": id, "content": text });
            if error {
                block["is_error"] = Value::Bool(true);
            }
            block
        }
        (WireFormat::Anthropic, ItemKind::McpServer) => {
            json!({ "type": "mcp_tool_result", "tool_use_id": id, "is_error": error, "content": [{ "type": "text", "text": text }] })
        }
        (WireFormat::Bedrock, _) => {
            let content = match answer {
                Answer::Output(v @ Value::Object(_)) => json!([{ "json": v }]),
                _ => json!([{ "text": text }]),
            };
            json!({ "toolResult": { "toolUseId": id, "content": content, "status": if error { "error" } else { "success" } } })
        }
        (WireFormat::Gemini, _) => {
            let response = match answer {
                Answer::Output(v) => json!({ "result": v }),
                _ => json!({ "error": text }),
            };
            let mut part = json!({ "functionResponse": { "name": call.name, "response": response } });
            if !id.is_null() {
                part["functionResponse"]["id"] = id;
            }
            part
        }
        (WireFormat::Mcp, _) => {
            let id = call.rpc_id.clone();
            match answer {
                // The one MCP shape for rejections: -32602 for an unknown tool, else `isError`.
                // Whether the tool declares an `outputSchema` is not known here: the text-block form.
                Answer::Rejected(r) => mcp_rejection(id, r, true),
                _ => {
                    let mut result = json!({ "content": [{ "type": "text", "text": text }], "isError": error });
                    if let Answer::Output(v @ Value::Object(_)) = answer {
                        result["structuredContent"] = (*v).clone();
                    }
                    json!({ "jsonrpc": "2.0", "id": id, "result": result })
                }
            }
        }
    }
}

/// A batch of answers (from [`answer`]) as what goes back to the model:
/// the next message (OpenAI Chat: the list of `tool` messages; Responses: the
/// list of input items; Anthropic, Bedrock: one `user` message; Gemini: one
/// `user` content; MCP: one response, or a batch array).
pub fn reply(format: WireFormat, answers: Vec<Value>) -> Value {
    match format {
        WireFormat::Canonical | WireFormat::OpenAiChat | WireFormat::OpenAiResponses => Value::Array(answers),
        WireFormat::Anthropic | WireFormat::Bedrock => json!({ "role": "user", "content": answers }),
        WireFormat::Gemini => json!({ "role": "user", "parts": answers }),
        WireFormat::Mcp => match <[Value; 1]>::try_from(answers) {
            Ok([one]) => one,
            Err(many) => Value::Array(many),
        },
    }
}
