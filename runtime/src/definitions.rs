//! Tool definitions out: exactly the tools a registry resolves, in the shape a
//! vendor's request lists them, under the names the model must send back.
//!
//! Every format [`parse_reply`](crate::wire::parse_reply) reads calls in has its
//! definitions here; each function returns the value of that request's `tools`
//! field:
//!
//! | [`WireFormat`] | one tool |
//! |---|---|
//! | `OpenAiChat` | `{"type": "function", "function": {"name", "description", "parameters", "strict": false}}` |
//! | `OpenAiResponses` | `{"type": "function", "name", "description", "parameters", "strict": false}` |
//! | `Anthropic` | `{"name", "description", "input_schema"}` |
//! | `Bedrock` | `{"toolSpec": {"name", "description", "inputSchema": {"json"}}}` (for `toolConfig.tools`) |
//! | `Gemini` | `{"name", "description", "parametersJsonSchema"}`, all in one `[{"functionDeclarations": [...]}]` |
//! | `Mcp`, `Canonical` | the MCP Tool of a `tools/list` result: `{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}` |
//!
//! `description`, `title`, `outputSchema` and `annotations` appear when the registry
//! declares them. Quarantined tools (a schema toolseal cannot enforce) are never
//! offered: every call to them is refused.
//!
//! **Schemas go out as the registry wrote them**, never rewritten. Where a vendor
//! restricts schemas, toolseal keeps the registry's meaning rather than guess a
//! translation it cannot prove exact: OpenAI's strict mode requires every property
//! to be required and every object closed (an optional key would have to become a
//! required nullable one: another signature), so both OpenAI formats say
//! `"strict": false` (the Responses API's default is `true`); Gemini gets the JSON
//! Schema in `parametersJsonSchema` rather than a translation into the OpenAPI
//! subset of `parameters`. A vendor that refuses a keyword refuses the request,
//! which says so; it never silently widens what the model is told. Resolution
//! enforces the whole schema either way. What goes out is the definition the
//! digests cover (`ToolInfo::definition`, RFC 8785): object keys sorted and numbers
//! in their shortest form (`1.0` is `1`), which JSON Schema reads alike. Names are not checked against vendors'
//! limits (`toolseal lint` reports names over 64 characters or outside
//! `[a-zA-Z0-9_-]`; qualified deployment names always fit).

use serde_json::{Map, Value, json};

use crate::call::{ToolInfo, ToolSet};
use crate::mcp::McpSet;
use crate::registry::ToolDef;
use crate::wire::WireFormat;

/// One tool as offered: the name the model must send back and what it is shown.
pub(crate) struct Offer<'a> {
    name: &'a str,
    title: Option<&'a str>,
    input_schema: Value,
    /// The rest of the canonical definition: `description`, `outputSchema`, `annotations`.
    definition: Map<String, Value>,
}

impl<'a> Offer<'a> {
    /// A tool offered as `name`, from the canonical definition its digest covers
    /// (`ToolDef::canonical`, `ToolInfo::definition`).
    fn new(name: &'a str, title: Option<&'a str>, canonical: &str) -> Offer<'a> {
        let parsed = match serde_json::from_str(canonical) {
            Ok(Value::Object(members)) => Some(members),
            _ => None,
        };
        // toolseal wrote this text from a definition it had read: a bug, never a registry problem.
        let Some((input_schema, definition)) = parsed.and_then(|mut d| Some((d.remove("inputSchema")?, d))) else {
            panic!("a canonical tool definition without an inputSchema: {canonical:.200}");
        };
        Offer { name, title, input_schema, definition }
    }

    /// A tool of generated code, offered as `name`, from its compiled metadata.
    fn compiled(name: &'a str, info: &'a ToolInfo) -> Offer<'a> {
        Offer::new(name, info.title, info.definition)
    }

    /// A tool read at run time, offered as `name`.
    pub(crate) fn read(name: &'a str, def: &'a ToolDef) -> Offer<'a> {
        Offer::new(name, def.title.as_deref(), &def.canonical())
    }

    /// The definition in `format`'s shape (Gemini's declaration, unwrapped).
    fn to_format(&self, format: WireFormat) -> Value {
        let member = |key: &str| self.definition.get(key).cloned();
        let mut tool = Map::new();
        tool.insert("name".into(), self.name.into());
        if matches!(format, WireFormat::Mcp | WireFormat::Canonical)
            && let Some(title) = self.title
        {
            tool.insert("title".into(), title.into());
        }
        if let Some(description) = member("description") {
            tool.insert("description".into(), description);
        }
        let schema = self.input_schema.clone();
        match format {
            WireFormat::OpenAiChat => {
                tool.insert("parameters".into(), schema);
                tool.insert("strict".into(), false.into());
                return json!({ "type": "function", "function": tool });
            }
            WireFormat::OpenAiResponses => {
                tool.insert("type".into(), "function".into());
                tool.insert("parameters".into(), schema);
                tool.insert("strict".into(), false.into());
            }
            WireFormat::Anthropic => {
                tool.insert("input_schema".into(), schema);
            }
            WireFormat::Bedrock => {
                tool.insert("inputSchema".into(), json!({ "json": schema }));
                return json!({ "toolSpec": tool });
            }
            WireFormat::Gemini => {
                tool.insert("parametersJsonSchema".into(), schema);
            }
            WireFormat::Mcp | WireFormat::Canonical => {
                tool.insert("inputSchema".into(), schema);
                for key in ["outputSchema", "annotations"] {
                    if let Some(value) = member(key) {
                        tool.insert(key.into(), value);
                    }
                }
            }
        }
        Value::Object(tool)
    }
}

/// The value of `format`'s `tools` field for `offers`, in their order.
pub(crate) fn render<'a>(format: WireFormat, offers: impl Iterator<Item = Offer<'a>>) -> Value {
    let tools: Vec<Value> = offers.map(|o| o.to_format(format)).collect();
    match format {
        // One Gemini Tool holds every declaration; none offered is no Tool at all.
        WireFormat::Gemini if tools.is_empty() => Value::Array(tools),
        WireFormat::Gemini => json!([{ "functionDeclarations": tools }]),
        _ => Value::Array(tools),
    }
}

/// The definitions of a generated `ToolCall`'s tools, in registry order, that
/// `visible` keeps (it sees each tool's name); quarantined tools are left out.
/// `ToolCall::definitions` and `ToolCall::definitions_for` call it. For a
/// generated deployment (`McpCall`, qualified names) use [`of_deployment`].
pub fn of_set<T: ToolSet>(format: WireFormat, mut visible: impl FnMut(&str) -> bool) -> Value {
    let offered = T::TOOLS.iter().filter(|t| t.quarantined.is_none() && visible(t.name));
    render(format, offered.map(|t| Offer::compiled(t.name, t)))
}

/// The definitions of a generated deployment's tools under their qualified names
/// (`server__tool`, what the model must send back), in manifest and listing order,
/// that `visible` keeps (it sees each qualified name); quarantined tools are left
/// out. `McpCall::definitions` and `McpCall::definitions_for` call it.
pub fn of_deployment<M: McpSet>(format: WireFormat, mut visible: impl FnMut(&str) -> bool) -> Value {
    let catalog = M::catalog();
    let offered = catalog.routes().filter_map(|route| {
        let info = M::tool_info(route)?;
        let name = catalog.qualified(route);
        (info.quarantined.is_none() && visible(name)).then(|| Offer::compiled(name, info))
    });
    render(format, offered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Json;

    fn offer(def: &ToolDef) -> Offer<'_> {
        Offer::read(&def.name, def)
    }

    #[test]
    fn every_format_has_its_vendor_shape() {
        let text = br#"[{"name":"get","title":"Get","description":"Reads.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]"#;
        let registry = crate::registry::read_registry(text).expect("registry");
        let def = &registry.tools[0];
        let schema = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        let want = [
            (WireFormat::OpenAiChat, json!([{"type": "function", "function": {"name": "get", "description": "Reads.", "parameters": schema, "strict": false}}])),
            (WireFormat::OpenAiResponses, json!([{"type": "function", "name": "get", "description": "Reads.", "parameters": schema, "strict": false}])),
            (WireFormat::Anthropic, json!([{"name": "get", "description": "Reads.", "input_schema": schema}])),
            (WireFormat::Bedrock, json!([{"toolSpec": {"name": "get", "description": "Reads.", "inputSchema": {"json": schema}}}])),
            (WireFormat::Gemini, json!([{"functionDeclarations": [{"name": "get", "description": "Reads.", "parametersJsonSchema": schema}]}])),
            (WireFormat::Mcp, json!([{"name": "get", "title": "Get", "description": "Reads.", "inputSchema": schema, "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}])),
        ];
        for (format, want) in want {
            assert_eq!(render(format, std::iter::once(offer(def))), want, "{format:?}");
        }
        assert_eq!(render(WireFormat::Canonical, std::iter::once(offer(def))), render(WireFormat::Mcp, std::iter::once(offer(def))));
    }

    #[test]
    fn nothing_offered_is_an_empty_list_in_every_format() {
        for format in [WireFormat::OpenAiChat, WireFormat::OpenAiResponses, WireFormat::Anthropic, WireFormat::Bedrock, WireFormat::Gemini, WireFormat::Mcp] {
            assert_eq!(render(format, std::iter::empty()), json!([]), "{format:?}");
        }
    }

    #[test]
    fn a_compiled_definition_offers_what_the_registry_declared() {
        let text =
            br#"[{"name":"get","description":"Reads.","inputSchema":{"type":"object","required":["id"],"properties":{"id":{"type":"string","maxLength":3}}},"annotations":{"destructiveHint":false}}]"#;
        let def = &crate::registry::read_registry(text).expect("registry").tools[0];
        let canonical: &'static str = Box::leak(def.canonical().into_boxed_str());
        let info = ToolInfo { name: "get", title: None, description: Some("Reads."), annotations: Default::default(), definition: canonical, digest: "", quarantined: None };
        for format in [WireFormat::OpenAiChat, WireFormat::Gemini, WireFormat::Mcp] {
            assert_eq!(render(format, std::iter::once(Offer::compiled("get", &info))), render(format, std::iter::once(offer(def))), "{format:?}");
        }
        // The schema is the registry's, key for key.
        let offered = render(WireFormat::Anthropic, std::iter::once(Offer::compiled("get", &info)));
        assert_eq!(offered[0]["input_schema"], Json::parse(br#"{"type":"object","required":["id"],"properties":{"id":{"type":"string","maxLength":3}}}"#).expect("json").to_value());
    }
}
