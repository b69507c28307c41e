//! MCP client configurations — Claude Desktop (`claude_desktop_config.json`), Claude
//! Code (`.mcp.json`), Cursor (`mcp.json`) and VS Code (`.vscode/mcp.json`, with
//! `inputs`) — read into the servers a manifest names, and the entry that starts the
//! gateway in their place.
//!
//! A reference (`${VAR}`, `${VAR:-default}`, VS Code's `${env:VAR}`) stays a reference in
//! the manifest; a literal in `env` or `headers` (a token written into the config) goes
//! to the manifest's `secrets` file (mode 600), and a VS Code variable (`${input:id}`,
//! `${workspaceFolder}`) into the gateway entry's `env`, where VS Code expands it — each
//! under a generated name that the manifest references. No value is printed or pinned.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The client whose configuration a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ClientFormat {
    /// Claude Desktop: `{"mcpServers": {NAME: {"command", "args", "env"}}}`.
    ClaudeDesktop,
    /// Claude Code: `{"mcpServers": {NAME: {"type": "stdio"|"http", ...}}}`, with `${VAR}` expansion.
    ClaudeCode,
    /// Cursor: `{"mcpServers": {NAME: {"command", "args", "env"} | {"url", "headers"}}}`.
    Cursor,
    /// VS Code: `{"servers": {NAME: {"type", ...}}, "inputs": [...]}` (JSON with comments).
    Vscode,
}

impl ClientFormat {
    /// The top-level key holding the servers.
    pub(crate) fn servers_key(self) -> &'static str {
        match self {
            ClientFormat::Vscode => "servers",
            _ => "mcpServers",
        }
    }

    /// Whether an entry names its transport with `"type"`.
    fn typed_entries(self) -> bool {
        matches!(self, ClientFormat::ClaudeCode | ClientFormat::Vscode)
    }
}

/// How the manifest reaches one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// A command started over stdio, in `cwd` if given.
    Stdio { command: Vec<String>, cwd: Option<String> },
    /// A Streamable HTTP endpoint.
    Http { url: String },
}

/// One server of a client configuration, as the manifest will name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImportedServer {
    /// The key in the client's configuration.
    pub(crate) key: String,
    /// The manifest's name for it: the key made a valid server name, unique.
    pub(crate) name: String,
    /// How it is reached.
    pub(crate) reach: Reach,
    /// Its environment as the manifest writes it: references only.
    pub(crate) env: BTreeMap<String, String>,
    /// Its HTTP headers as the manifest writes them: references only.
    pub(crate) headers: BTreeMap<String, String>,
}

/// A server the configuration names that cannot be imported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    /// The key in the client's configuration.
    pub(crate) key: String,
    /// Why it is left out.
    pub(crate) why: String,
}

/// What a client configuration holds for the gateway.
#[derive(Debug, Default)]
pub(crate) struct Imported {
    /// The servers the manifest will name, in the configuration's order.
    pub(crate) servers: Vec<ImportedServer>,
    /// The servers left out (left in the client's configuration as they are).
    pub(crate) skipped: Vec<Skipped>,
    /// What the gateway entry's `env` must carry: generated name → a client variable
    /// (`${input:id}`) that the client expands when it starts the gateway.
    pub(crate) gateway_env: BTreeMap<String, String>,
    /// Literal values of `env` and `headers`, for the manifest's `secrets` file: generated name → value.
    pub(crate) secrets: BTreeMap<String, String>,
}

/// Where the generated names of one configuration's values go.
#[derive(Default)]
struct Moved {
    gateway_env: BTreeMap<String, String>,
    secrets: BTreeMap<String, String>,
}

/// Why a configuration cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ConfigError(pub(crate) String);

/// Reads JSON with comments and trailing commas (VS Code's `mcp.json` is JSONC).
pub(crate) fn parse_jsonc(text: &str) -> Result<Value, ConfigError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            (',', _) => {
                // A trailing comma: the next significant character closes the container.
                let rest: String = chars.clone().collect();
                let next = strip_leading_comments(&rest);
                if !(next.starts_with('}') || next.starts_with(']')) {
                    out.push(',');
                }
            }
            _ => out.push(c),
        }
    }
    serde_json::from_str(&out).map_err(|e| ConfigError(format!("not JSON: {e}")))
}

/// `text` without its leading whitespace and comments.
fn strip_leading_comments(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        if let Some(rest) = text.strip_prefix("//") {
            text = rest.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(rest) = text.strip_prefix("/*") {
            text = rest.split_once("*/").map_or("", |(_, r)| r);
        } else {
            return text;
        }
    }
}

/// The format of a configuration: VS Code's has `servers`, the others `mcpServers`
/// (Claude Code's entries say their `"type"`; Claude Desktop's and Cursor's read alike).
pub(crate) fn detect(config: &Value) -> Result<ClientFormat, ConfigError> {
    match (config.get("servers"), config.get("mcpServers")) {
        (Some(Value::Object(_)), None) => Ok(ClientFormat::Vscode),
        (None, Some(Value::Object(servers))) => Ok(if servers.values().any(|s| s.get("type").is_some()) { ClientFormat::ClaudeCode } else { ClientFormat::ClaudeDesktop }),
        (Some(_), Some(_)) => Err(ConfigError("both `servers` and `mcpServers`: say which with --from".into())),
        _ => Err(ConfigError("no `mcpServers` (Claude Desktop, Claude Code, Cursor) or `servers` (VS Code) object".into())),
    }
}

/// `key` made a manifest server name (`[a-zA-Z0-9-]{1,32}`), unique among `taken`.
fn server_name(key: &str, taken: &[String]) -> String {
    let mut base: String = key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
    base = base.trim_matches('-').to_owned();
    if base.is_empty() {
        base = "server".to_owned();
    }
    base.truncate(28);
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

/// An environment variable name from pieces: upper case, `_` for anything else.
fn env_name(pieces: &[&str]) -> String {
    pieces.iter().map(|p| p.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect::<String>()).collect::<Vec<_>>().join("_")
}

/// One value of `env` or `headers` as the manifest writes it, and what the gateway entry
/// must carry for it. `what` names the value (server, key) for a generated variable.
fn reference(format: ClientFormat, value: &str, what: &[&str], moved: &mut Moved) -> String {
    let mut out = String::new();
    let mut rest = value;
    let mut literal = String::new();
    let flush = |literal: &mut String, out: &mut String, secrets: &mut BTreeMap<String, String>, whole: bool| {
        if literal.is_empty() {
            return;
        }
        if whole {
            // A literal value (a token written into the config): to the secrets file.
            let var = format!("TOOLSEAL_{}", env_name(what));
            secrets.insert(var.clone(), std::mem::take(literal));
            out.push_str(&format!("${{{var}}}"));
        } else {
            // Beside a reference, a literal part is kept as written (a `$` not followed by `{` is literal).
            out.push_str(&std::mem::take(literal));
        }
    };
    let has_reference = value.contains("${");
    while let Some(start) = rest.find("${") {
        literal.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else { break };
        let inner = &rest[start + 2..start + len];
        flush(&mut literal, &mut out, &mut moved.secrets, false);
        match format {
            ClientFormat::Vscode => match inner.strip_prefix("env:") {
                Some(var) => out.push_str(&format!("${{{var}}}")),
                None => {
                    // `${input:id}`, `${workspaceFolder}`, ...: the client expands them in the gateway entry's env.
                    let var = format!("TOOLSEAL_{}", env_name(&[&inner.replace(':', "_")]));
                    moved.gateway_env.insert(var.clone(), format!("${{{inner}}}"));
                    out.push_str(&format!("${{{var}}}"));
                }
            },
            _ => out.push_str(&format!("${{{inner}}}")),
        }
        rest = &rest[start + len + 1..];
    }
    literal.push_str(rest);
    flush(&mut literal, &mut out, &mut moved.secrets, !has_reference);
    out
}

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(|v| v.as_str().map(str::to_owned).ok_or_else(|| format!("`{what}` must hold strings"))).collect(),
        Some(_) => Err(format!("`{what}` must be an array of strings")),
    }
}

fn string_map(value: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())).ok_or_else(|| format!("`{what}.{k}` must be a string"))).collect(),
        Some(_) => Err(format!("`{what}` must be an object of strings")),
    }
}

/// One entry, or why it cannot be imported.
fn entry(format: ClientFormat, key: &str, name: &str, e: &Map<String, Value>, moved: &mut Moved) -> Result<ImportedServer, String> {
    let kind = e.get("type").and_then(Value::as_str);
    if e.get("disabled").and_then(Value::as_bool) == Some(true) {
        return Err("disabled in the client's configuration".into());
    }
    let mut env = BTreeMap::new();
    let mut headers = BTreeMap::new();
    let reach = match (kind, e.get("command"), e.get("url")) {
        (Some("sse"), ..) => return Err("an SSE server (the gateway reaches stdio and Streamable HTTP servers)".into()),
        (Some("stdio") | None, Some(Value::String(command)), None) => {
            let mut argv = vec![command.clone()];
            argv.extend(strings(e.get("args"), "args")?);
            for (k, v) in string_map(e.get("env"), "env")? {
                env.insert(k.clone(), reference(format, &v, &[name, &k], moved));
            }
            if e.contains_key("envFile") {
                return Err("`envFile` is not imported: give the variables in `env`".into());
            }
            let cwd = e.get("cwd").and_then(Value::as_str).map(str::to_owned);
            Reach::Stdio { command: argv, cwd }
        }
        (Some("http" | "streamable-http") | None, None, Some(Value::String(url))) => {
            for (k, v) in string_map(e.get("headers"), "headers")? {
                headers.insert(k.clone(), reference(format, &v, &[name, &k], moved));
            }
            Reach::Http { url: url.clone() }
        }
        (Some(other), ..) if !matches!(other, "stdio" | "http" | "streamable-http") => return Err(format!("transport type {other:?} is not one the gateway reaches")),
        _ => return Err(if format.typed_entries() { "needs `command` (stdio) or `url` (http)".into() } else { "needs `command` or `url`".into() }),
    };
    Ok(ImportedServer { key: key.to_owned(), name: name.to_owned(), reach, env, headers })
}

/// The servers of `config` (read as `format`), leaving out `skip_key` (the gateway's own entry).
pub(crate) fn read_servers(config: &Value, format: ClientFormat, skip_key: &str) -> Result<Imported, ConfigError> {
    let key = format.servers_key();
    let Some(Value::Object(servers)) = config.get(key) else { return Err(ConfigError(format!("no `{key}` object"))) };
    let mut imported = Imported::default();
    let mut taken: Vec<String> = Vec::new();
    for (k, v) in servers {
        if k == skip_key {
            continue;
        }
        let Value::Object(e) = v else {
            imported.skipped.push(Skipped { key: k.clone(), why: "not an object".into() });
            continue;
        };
        let name = server_name(k, &taken);
        let mut moved = Moved::default();
        match entry(format, k, &name, e, &mut moved) {
            Ok(server) => {
                taken.push(name);
                imported.gateway_env.extend(moved.gateway_env);
                imported.secrets.extend(moved.secrets);
                imported.servers.push(server);
            }
            Err(why) => imported.skipped.push(Skipped { key: k.clone(), why }),
        }
    }
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jsonc_reads_comments_and_trailing_commas_but_not_inside_strings() {
        let v = parse_jsonc("{ // a comment\n \"a\": \"x // y /* z */\", /* b */ \"b\": [1, 2,], }").unwrap();
        assert_eq!(v, json!({"a": "x // y /* z */", "b": [1, 2]}));
        assert!(parse_jsonc("{\"a\": }").is_err());
    }

    #[test]
    fn formats_are_detected() {
        assert_eq!(detect(&json!({"servers": {}})).unwrap(), ClientFormat::Vscode);
        assert_eq!(detect(&json!({"mcpServers": {"a": {"command": "x"}}})).unwrap(), ClientFormat::ClaudeDesktop);
        assert_eq!(detect(&json!({"mcpServers": {"a": {"type": "stdio", "command": "x"}}})).unwrap(), ClientFormat::ClaudeCode);
        assert!(detect(&json!({"other": 1})).is_err());
    }

    #[test]
    fn literals_go_to_the_secrets_file_and_references_stay_references() {
        let config = json!({"mcpServers": {
            "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"}},
            "linear api": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${LINEAR_TOKEN}", "X-Team": "${TEAM:-core}"}},
            "old": {"type": "sse", "url": "https://x/sse"},
            "toolseal": {"command": "toolseal", "args": ["gateway"]},
        }});
        let imported = read_servers(&config, ClientFormat::ClaudeCode, "toolseal").unwrap();
        let [github, linear] = imported.servers.as_slice() else { panic!("{imported:?}") };
        assert_eq!(github.name, "github");
        assert_eq!(github.reach, Reach::Stdio { command: vec!["npx".into(), "-y".into(), "@modelcontextprotocol/server-github".into()], cwd: None });
        assert_eq!(github.env["GITHUB_PERSONAL_ACCESS_TOKEN"], "${TOOLSEAL_GITHUB_GITHUB_PERSONAL_ACCESS_TOKEN}");
        assert_eq!(imported.secrets["TOOLSEAL_GITHUB_GITHUB_PERSONAL_ACCESS_TOKEN"], "ghp_secret");
        assert_eq!(linear.name, "linear-api");
        assert_eq!(linear.headers["Authorization"], "Bearer ${LINEAR_TOKEN}");
        assert_eq!(linear.headers["X-Team"], "${TEAM:-core}");
        assert_eq!(imported.skipped, [Skipped { key: "old".into(), why: "an SSE server (the gateway reaches stdio and Streamable HTTP servers)".into() }]);
        assert_eq!(imported.secrets.len(), 1, "references are not copied");
        assert!(imported.gateway_env.is_empty());
    }

    #[test]
    fn vscode_variables_are_expanded_by_the_client_in_the_gateway_entry() {
        let config = json!({"inputs": [{"id": "api-key", "type": "promptString", "password": true}], "servers": {
            "brave": {"type": "stdio", "command": "npx", "args": ["@brave/brave-search-mcp-server"], "env": {"BRAVE_API_KEY": "${input:api-key}", "HOME_DIR": "${env:HOME}/x"}},
        }});
        let imported = read_servers(&config, ClientFormat::Vscode, "toolseal").unwrap();
        let brave = &imported.servers[0];
        assert_eq!(brave.env["BRAVE_API_KEY"], "${TOOLSEAL_INPUT_API_KEY}");
        assert_eq!(brave.env["HOME_DIR"], "${HOME}/x");
        assert_eq!(imported.gateway_env["TOOLSEAL_INPUT_API_KEY"], "${input:api-key}");
    }

    #[test]
    fn names_are_valid_and_unique() {
        assert_eq!(server_name("my server!", &[]), "my-server");
        assert_eq!(server_name("a", &["a".into()]), "a-2");
        assert_eq!(server_name("???", &[]), "server");
        assert!(server_name(&"x".repeat(60), &[]).len() <= 32);
    }

    #[test]
    fn a_literal_beside_a_reference_is_kept_as_written() {
        let mut moved = Moved::default();
        assert_eq!(reference(ClientFormat::ClaudeCode, "a$b ${X}", &["s", "k"], &mut moved), "a$b ${X}");
        assert!(moved.secrets.is_empty() && moved.gateway_env.is_empty());
    }
}
