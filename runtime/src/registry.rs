//! Reading tool registries in the formats users already have: MCP
//! `tools/list` results (or bare Tool arrays), OpenAI `tools`, Anthropic tools,
//! and Amazon Bedrock `toolConfig`. The format is detected from the shape.

use std::borrow::Cow;
use std::fmt;

use crate::canonical::{canonical_json, sha256_hex};
use crate::check;
use crate::json::Json;
use crate::path::Path;

/// The shape a registry file was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// An MCP `tools/list` result: `{"tools": [Tool, ...]}` (a `toolseal capture` lockfile too).
    McpToolsList,
    /// A bare array of MCP Tool objects.
    McpTools,
    /// OpenAI Chat Completions `tools`: `[{"type": "function", "function": {...}}]`.
    OpenAi,
    /// OpenAI Responses `tools`: `[{"type": "function", "name": ..., "parameters": ...}]`.
    OpenAiResponses,
    /// Anthropic tools: `[{"name", "description", "input_schema"}]`.
    Anthropic,
    /// Amazon Bedrock `toolConfig.tools`: `[{"toolSpec": {"name", "inputSchema": {"json": ...}}}]`.
    Bedrock,
}

impl SourceFormat {
    /// A short name for messages and generated docs.
    pub fn name(self) -> &'static str {
        match self {
            SourceFormat::McpToolsList => "MCP tools/list result",
            SourceFormat::McpTools => "MCP Tool array",
            SourceFormat::OpenAi => "OpenAI Chat Completions tools",
            SourceFormat::OpenAiResponses => "OpenAI Responses tools",
            SourceFormat::Anthropic => "Anthropic tools",
            SourceFormat::Bedrock => "Amazon Bedrock toolConfig",
        }
    }
}

/// One tool definition, normalised to the MCP Tool shape.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The tool's name, exactly as declared.
    pub name: String,
    /// MCP `title`.
    pub title: Option<String>,
    /// The description the model reads.
    pub description: Option<String>,
    /// The arguments schema (`inputSchema`, `parameters`, `input_schema`, `inputSchema.json`).
    pub input_schema: Json<'static>,
    /// MCP `outputSchema`.
    pub output_schema: Option<Json<'static>>,
    /// MCP `annotations` (`readOnlyHint`, `destructiveHint`, ...).
    pub annotations: Option<Json<'static>>,
    /// JSON pointer of the definition in its file.
    pub pointer: String,
    /// JSON pointer of the arguments schema in its file.
    pub input_pointer: String,
}

impl ToolDef {
    /// The definition whose digest identifies this tool: `name`, `description`,
    /// `inputSchema`, `outputSchema` and `annotations` (descriptions included,
    /// since tool poisoning lives there), in RFC 8785 canonical JSON.
    pub fn canonical(&self) -> String {
        let mut members: Vec<(Cow<'static, str>, Json<'static>)> = vec![("name".into(), Json::String(self.name.clone().into()))];
        if let Some(d) = &self.description {
            members.push(("description".into(), Json::String(d.clone().into())));
        }
        members.push(("inputSchema".into(), self.input_schema.clone()));
        if let Some(o) = &self.output_schema {
            members.push(("outputSchema".into(), o.clone()));
        }
        if let Some(a) = &self.annotations {
            members.push(("annotations".into(), a.clone()));
        }
        canonical_json(&Json::Object(members))
    }

    /// SHA-256 (hex) of [`ToolDef::canonical`].
    pub fn digest(&self) -> String {
        sha256_hex(self.canonical().as_bytes())
    }
}

/// The tools of one registry file.
#[derive(Debug, Clone)]
pub struct Registry {
    /// The format detected.
    pub format: SourceFormat,
    /// The tools, in file order.
    pub tools: Vec<ToolDef>,
}

/// A registry file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    /// JSON pointer in the file.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `#{}`: {}", self.pointer, self.message)
    }
}

impl std::error::Error for RegistryError {}

fn fail<T>(pointer: impl Into<String>, message: impl Into<String>) -> Result<T, RegistryError> {
    Err(RegistryError { pointer: pointer.into(), message: message.into() })
}

/// Reads a registry from JSON text, detecting its format.
pub fn read_registry(bytes: &[u8]) -> Result<Registry, RegistryError> {
    let json = match Json::parse(bytes) {
        Ok(j) => j.into_owned(),
        Err(e) => return fail("", format!("not valid JSON: {e}")),
    };
    read_tree(&json)
}

impl Registry {
    /// The registry of the tools a server lists (a `tools/list` result's
    /// `tools`, as `serde_json` values): what [`read_registry`] reads from the
    /// text of `{"tools": tools}`, with the same checks, errors and pointers
    /// (`/tools/3/inputSchema`), read from the values without writing them out.
    pub fn from_listed(tools: &[serde_json::Value]) -> Result<Registry, RegistryError> {
        let tools = Json::Array(tools.iter().map(|tool| Json::from_value(tool).into_owned()).collect());
        read_tree(&Json::Object(vec![("tools".into(), tools)]))
    }
}

/// Reads a registry from its JSON tree, detecting its format.
fn read_tree(json: &Json<'static>) -> Result<Registry, RegistryError> {
    if let Err(r) = check::no_duplicates_deep(json, &Path::root()) {
        return fail(r.pointer(), "a key is given twice; the definition would be ambiguous");
    }
    let (format, list, base) = detect(json)?;
    let mut tools: Vec<ToolDef> = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        let pointer = format!("{base}/{i}");
        let tool = read_tool(format, entry, &pointer)?;
        if let Some(first) = tools.iter().find(|t| t.name == tool.name) {
            return fail(pointer, format!("tool {:?} is declared twice (first at `#{}`)", tool.name, first.pointer));
        }
        tools.push(tool);
    }
    Ok(Registry { format, tools })
}

fn detect(json: &Json<'static>) -> Result<(SourceFormat, Vec<Json<'static>>, &'static str), RegistryError> {
    let from_array = |items: &Vec<Json<'static>>, base: &'static str| -> Result<_, RegistryError> {
        let Some(first) = items.first() else { return Ok((SourceFormat::McpTools, Vec::new(), base)) };
        let format = if first.get("toolSpec").is_some() {
            SourceFormat::Bedrock
        } else if first.get("function").is_some() {
            SourceFormat::OpenAi
        } else if first.get("parameters").is_some() || first.get("type").and_then(Json::as_str) == Some("function") {
            SourceFormat::OpenAiResponses
        } else if first.get("input_schema").is_some() {
            SourceFormat::Anthropic
        } else if first.get("inputSchema").is_some() {
            SourceFormat::McpTools
        } else {
            return fail(format!("{base}/0"), "cannot tell the registry format: expected `inputSchema` (MCP), `function` or `parameters` (OpenAI), `input_schema` (Anthropic) or `toolSpec` (Bedrock)");
        };
        Ok((format, items.clone(), base))
    };
    match json {
        Json::Array(items) => from_array(items, ""),
        Json::Object(_) => {
            if let Some(Json::Object(_)) = json.get("toolConfig") {
                return match json.get("toolConfig").and_then(|c| c.get("tools")) {
                    Some(Json::Array(items)) => from_array(items, "/toolConfig/tools").map(|(_, l, b)| (SourceFormat::Bedrock, l, b)),
                    _ => fail("/toolConfig", "`toolConfig.tools` must be an array"),
                };
            }
            match json.get("tools") {
                Some(Json::Array(items)) => {
                    let (format, list, base) = from_array(items, "/tools")?;
                    let format = if format == SourceFormat::McpTools { SourceFormat::McpToolsList } else { format };
                    Ok((format, list, base))
                }
                Some(_) => fail("/tools", "`tools` must be an array"),
                None => fail("", "expected a `tools` array, a `toolConfig`, or an array of tool definitions"),
            }
        }
        _ => fail("", "a registry is a JSON object or array"),
    }
}

fn string_field(entry: &Json<'static>, key: &str, pointer: &str, required: bool) -> Result<Option<String>, RegistryError> {
    match entry.get(key) {
        Some(Json::String(s)) => Ok(Some(s.to_string())),
        // Real servers write `"description": null` for "none" (pydantic, some SDKs).
        None | Some(Json::Null) if !required => Ok(None),
        None => fail(pointer, format!("missing `{key}`")),
        Some(_) => fail(format!("{pointer}/{key}"), format!("`{key}` must be a string")),
    }
}

fn only_keys(entry: &Json<'static>, allowed: &[&str], pointer: &str, what: &str) -> Result<(), RegistryError> {
    let Json::Object(members) = entry else { return fail(pointer, format!("{what} must be an object")) };
    for (k, _) in members {
        if !allowed.contains(&k.as_ref()) {
            return fail(format!("{pointer}/{k}"), format!("unknown key `{k}` in {what} (known: {})", allowed.join(", ")));
        }
    }
    Ok(())
}

fn read_tool(format: SourceFormat, entry: &Json<'static>, pointer: &str) -> Result<ToolDef, RegistryError> {
    let empty_object = || Json::Object(vec![("type".into(), Json::String("object".into()))]);
    match format {
        SourceFormat::McpToolsList | SourceFormat::McpTools => {
            // An MCP Tool may carry keys of a later revision or of a vendor (`icons`,
            // `execution`, `_meta`, `x-…`): none of them is a constraint or part of the
            // definition the digest identifies, so they are read past, and a server is
            // never refused for one. `null` for an optional key means absent.
            // A known key in another spelling (`inputschema`, `input_schema`) is a mistake that
            // would change the definition, and is refused.
            let Json::Object(members) = entry else { return fail(pointer, "an MCP Tool must be an object") };
            const KNOWN: [&str; 5] = ["name", "title", "description", "inputSchema", "outputSchema"];
            let fold = |k: &str| k.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect::<String>();
            for (k, _) in members {
                if let Some(known) = KNOWN.iter().find(|known| **known != k.as_ref() && fold(known) == fold(k)) {
                    return fail(format!("{pointer}/{k}"), format!("unknown key `{k}` in an MCP Tool: did you mean `{known}`?"));
                }
            }
            let Some(input) = entry.get("inputSchema").cloned() else { return fail(pointer, "missing `inputSchema`") };
            Ok(ToolDef {
                name: string_field(entry, "name", pointer, true)?.unwrap_or_default(),
                title: string_field(entry, "title", pointer, false)?,
                description: string_field(entry, "description", pointer, false)?,
                input_schema: input,
                output_schema: entry.get("outputSchema").filter(|v| !matches!(v, Json::Null)).cloned(),
                annotations: entry.get("annotations").filter(|v| !matches!(v, Json::Null)).cloned(),
                pointer: pointer.to_owned(),
                input_pointer: format!("{pointer}/inputSchema"),
            })
        }
        SourceFormat::OpenAi => {
            only_keys(entry, &["type", "function"], pointer, "an OpenAI tool")?;
            match entry.get("type").and_then(Json::as_str) {
                Some("function") => {}
                _ => return fail(format!("{pointer}/type"), "only `\"type\": \"function\"` tools have a schema to resolve against"),
            }
            let Some(f) = entry.get("function") else { return fail(pointer, "missing `function`") };
            let fp = format!("{pointer}/function");
            only_keys(f, &["name", "description", "parameters", "strict"], &fp, "an OpenAI function")?;
            openai_like(f, &fp, empty_object)
        }
        SourceFormat::OpenAiResponses => {
            only_keys(entry, &["type", "name", "description", "parameters", "strict"], pointer, "an OpenAI Responses tool")?;
            match entry.get("type").and_then(Json::as_str) {
                Some("function") => openai_like(entry, pointer, empty_object),
                _ => fail(format!("{pointer}/type"), "only `\"type\": \"function\"` tools have a schema to resolve against"),
            }
        }
        SourceFormat::Anthropic => {
            only_keys(entry, &["name", "description", "input_schema", "cache_control", "type"], pointer, "an Anthropic tool")?;
            let Some(input) = entry.get("input_schema").cloned() else {
                return fail(pointer, "missing `input_schema` (Anthropic server tools have no schema to resolve against)");
            };
            Ok(ToolDef {
                name: string_field(entry, "name", pointer, true)?.unwrap_or_default(),
                title: None,
                description: string_field(entry, "description", pointer, false)?,
                input_schema: input,
                output_schema: None,
                annotations: None,
                pointer: pointer.to_owned(),
                input_pointer: format!("{pointer}/input_schema"),
            })
        }
        SourceFormat::Bedrock => {
            only_keys(entry, &["toolSpec"], pointer, "a Bedrock tool")?;
            let sp = format!("{pointer}/toolSpec");
            let Some(spec) = entry.get("toolSpec") else { return fail(pointer, "missing `toolSpec`") };
            only_keys(spec, &["name", "description", "inputSchema"], &sp, "a Bedrock toolSpec")?;
            let input = match spec.get("inputSchema") {
                Some(s) => {
                    only_keys(s, &["json"], &format!("{sp}/inputSchema"), "a Bedrock inputSchema")?;
                    match s.get("json") {
                        Some(j) => j.clone(),
                        None => return fail(format!("{sp}/inputSchema"), "missing `json`"),
                    }
                }
                None => return fail(&sp, "missing `inputSchema`"),
            };
            Ok(ToolDef {
                name: string_field(spec, "name", &sp, true)?.unwrap_or_default(),
                title: None,
                description: string_field(spec, "description", &sp, false)?,
                input_schema: input,
                output_schema: None,
                annotations: None,
                input_pointer: format!("{sp}/inputSchema/json"),
                pointer: sp,
            })
        }
    }
}

fn openai_like(f: &Json<'static>, pointer: &str, empty_object: impl Fn() -> Json<'static>) -> Result<ToolDef, RegistryError> {
    Ok(ToolDef {
        name: string_field(f, "name", pointer, true)?.unwrap_or_default(),
        title: None,
        description: string_field(f, "description", pointer, false)?,
        input_schema: f.get("parameters").cloned().unwrap_or_else(empty_object),
        output_schema: None,
        annotations: None,
        pointer: pointer.to_owned(),
        input_pointer: format!("{pointer}/parameters"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_every_format() {
        let cases: &[(&str, SourceFormat)] = &[
            (r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#, SourceFormat::McpToolsList),
            (r#"[{"name":"a","inputSchema":{"type":"object"}}]"#, SourceFormat::McpTools),
            (r#"[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]"#, SourceFormat::OpenAi),
            (r#"[{"type":"function","name":"a","parameters":{"type":"object"}}]"#, SourceFormat::OpenAiResponses),
            (r#"[{"name":"a","input_schema":{"type":"object"}}]"#, SourceFormat::Anthropic),
            (r#"{"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{"type":"object"}}}}]}}"#, SourceFormat::Bedrock),
        ];
        for (text, want) in cases {
            let r = read_registry(text.as_bytes()).unwrap();
            assert_eq!(r.format, *want, "{text}");
            assert_eq!(r.tools[0].name, "a");
        }
    }

    #[test]
    fn rejects_duplicates_and_unknown_keys() {
        let dup = read_registry(br#"{"tools":[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}"#).unwrap_err();
        assert_eq!(dup.pointer, "/tools/1");
        let key = read_registry(br#"{"tools":[{"name":"a","inputSchema":{},"inputschema":{}}]}"#).unwrap_err();
        assert_eq!(key.pointer, "/tools/0/inputschema");
        let twice = read_registry(br#"{"tools":[{"name":"a","inputSchema":{"type":"object","type":"string"}}]}"#).unwrap_err();
        assert_eq!(twice.pointer, "/tools/0/inputSchema/type");
    }

    /// What identifies a registry: its format and, per tool, name, digest, title and pointers.
    type Summary = (SourceFormat, Vec<(String, String, Option<String>, String, String)>);

    fn summary(r: &Registry) -> Summary {
        (r.format, r.tools.iter().map(|t| (t.name.clone(), t.digest(), t.title.clone(), t.pointer.clone(), t.input_pointer.clone())).collect())
    }

    /// What reading `{"tools": tools}` as text gives.
    fn from_text(tools: &[serde_json::Value]) -> Result<Summary, RegistryError> {
        read_registry(serde_json::json!({ "tools": tools }).to_string().as_bytes()).map(|r| summary(&r))
    }

    #[test]
    fn listed_tools_read_as_their_text_does() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/registries/mcp"));
        let mut read = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let file: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let tools = file["tools"].as_array().unwrap();
            let listed = Registry::from_listed(tools).unwrap();
            assert!(!listed.tools.is_empty(), "{}", path.display());
            assert_eq!(Ok(summary(&listed)), from_text(tools), "{}", path.display());
            assert_eq!(summary(&listed), summary(&read_registry(&bytes).unwrap()), "{}: the capture itself", path.display());
            read += 1;
        }
        assert!(read >= 9, "{read} captures read");
    }

    #[test]
    fn odd_listings_read_and_fail_as_their_text_does() {
        use serde_json::json;
        let listings = [
            json!([]),
            json!([{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]),
            json!([{"name": "a", "inputSchema": {}, "inputschema": {}}]),
            json!([{"name": "a"}]),
            json!([{"name": 3, "inputSchema": {}}]),
            json!([{"inputSchema": {}}]),
            json!([{"name": "a", "inputSchema": {}}, 7]),
            json!([7]),
            json!([{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}]),
            json!([{"name": "a", "title": "A", "description": "é\u{1F600}\u{7}\"q\"", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0.5, "maximum": 1e300, "multipleOf": 5.0}, "i": {"minimum": -9007199254740993_i64, "maximum": 18446744073709551615_u64}}}}]),
        ];
        for tools in listings {
            let tools = tools.as_array().unwrap();
            let listed = Registry::from_listed(tools).map(|r| summary(&r));
            assert_eq!(listed, from_text(tools), "{tools:?}");
        }
        let twice = Registry::from_listed(json!([{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]).as_array().unwrap()).unwrap_err();
        assert_eq!(twice.pointer, "/tools/1");
    }

    #[test]
    fn real_servers_metadata_loads() {
        // `null` for an optional key, and keys of a later revision or a vendor: the tool loads,
        // with the same definition (and digest) as without them.
        let plain = read_registry(br#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#).unwrap();
        let odd = read_registry(
            br#"{"tools":[{"name":"a","description":null,"title":null,"outputSchema":null,"annotations":null,"inputSchema":{"type":"object"},"x-vendor":{"k":1},"icons":[],"_meta":{}}]}"#,
        )
        .unwrap();
        assert_eq!(odd.tools[0].description, None);
        assert_eq!(odd.tools[0].digest(), plain.tools[0].digest());
        // What is still refused: a tool that is not an object, a description that is neither a string nor null.
        assert!(read_registry(br#"{"tools":[7]}"#).is_err());
        let e = read_registry(br#"{"tools":[{"name":"a","description":7,"inputSchema":{"type":"object"}}]}"#).unwrap_err();
        assert_eq!(e.pointer, "/tools/0/description");
    }

    #[test]
    fn digest_covers_description() {
        let a = read_registry(br#"[{"name":"a","description":"x","inputSchema":{"type":"object"}}]"#).unwrap();
        let b = read_registry(br#"[{"name":"a","description":"y","inputSchema":{"type":"object"}}]"#).unwrap();
        assert_ne!(a.tools[0].digest(), b.tools[0].digest());
        let c = read_registry(br#"[{"inputSchema":{"type":"object"},"description":"x","name":"a"}]"#).unwrap();
        assert_eq!(a.tools[0].digest(), c.tools[0].digest());
    }
}
