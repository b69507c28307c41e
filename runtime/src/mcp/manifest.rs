//! Deployment manifests (`toolseal.toml`, feature `manifest`): several MCP servers,
//! each with a trust tier, a pinned registry and how to reach it. `toolseal-build`
//! compiles one into a module holding a sealed `ToolCall` per server and an `McpCall`
//! enum; the gateway and the command read it here.
//!
//! ```toml
//! tiers = ["first-party", "vetted", "community"]   # most trusted first
//! policy = "strict"                                # or "pin-assisted"
//! shadowing = "warn"                               # or "error"
//! secrets = "secrets.env"                         # optional: KEY=VALUE lines `${KEY}` reads first (mode 600)
//! oauth_store = "tokens.json"                      # optional: where `toolseal login` keeps OAuth tokens (mode 600)
//!
//! [[servers]]
//! name = "filesystem"                              # the host's key: [a-zA-Z0-9-]{1,32}
//! tier = "first-party"
//! registry = "registries/server-filesystem.json"   # relative to this file
//!
//! command = ["npx", "@modelcontextprotocol/server-filesystem", "/srv"]  # optional: for `toolseal host` and `gateway`
//! # url = "http://127.0.0.1:3001/mcp"            # or a Streamable HTTP server (for `toolseal gateway`)
//! env = { API_KEY = "${FS_API_KEY}", MODE = "${FS_MODE:-ro}" }  # stdio: added to the server's environment
//! env_file = ".env.filesystem"                    # stdio: KEY=VALUE lines, relative to this file (`env` wins)
//! cwd = "servers/filesystem"                       # stdio: where it runs (default: this file's directory)
//! # headers = { Authorization = "Bearer ${TOKEN}" } # url: sent with every request
//! # oauth = { client_id = "toolseal", scopes = ["read"] }  # url: OAuth 2.1 (`toolseal login` first), or
//! # oauth = { grant = "client_credentials", client_id = "ci", client_secret = "${CI_SECRET}" }
//! timeout = 120                                    # seconds: this server's start, listing and calls
//!
//! [pins]                                           # settles same-tier collisions under pin-assisted
//! read_file = "filesystem"
//!
//! # Cedar policies the gateway decides every resolved call by (`toolseal policy check`):
//! # files relative to this file, `*` in a file name matching any run of characters.
//! # policies = ["policies/*.cedar"]
//!
//! [principals.alice]                               # `User::"alice"` in policies
//! groups = ["admins"]                              # `principal.groups`
//! local = true                                     # the caller over stdio (default: $USER, no groups)
//!
//! [principals.ci]
//! token = "${CI_TOKEN}"                            # HTTP: `Authorization: Bearer <token>` calls as `ci`
//! groups = ["readers"]
//! ```
//!
//! `env` and `headers` values are expanded from the environment of the process
//! that starts the servers ([`read_manifest_expanded`], [`Deployment::expand`]),
//! as in Claude Code's `.mcp.json`: `${VAR}`, or `${VAR:-default}` when `VAR` is
//! unset or empty; a `$` not followed by `{` is kept as is, `$$` is an error. An
//! unset `${VAR}` without a default is an error naming the server, the key and
//! the variable. The values are secrets: [`Secrets`] shows only their names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::dynamic::DynamicDeployment;
use crate::mcp::{Catalog, Policy, ServerSpec};
use crate::registry::{Registry, RegistryError, read_registry};
use crate::schema::CompileOptions;

/// Why a manifest cannot be used; each names the file at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The manifest or a registry it names cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A registry the manifest names is not a registry.
    #[error("{}: {source}", path.display())]
    Registry {
        /// The registry file.
        path: PathBuf,
        /// What is wrong, with the JSON pointer.
        source: RegistryError,
    },
    /// The manifest is malformed or inconsistent.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// What to do when a lower-tier server declares a higher-tier server's tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum OnShadowing {
    /// Report it as a build warning (flat calls to the name are rejected as M3 either way).
    #[default]
    Warn,
    /// Fail the build.
    Error,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    tiers: Vec<String>,
    #[serde(default)]
    policy: Policy,
    #[serde(default)]
    shadowing: OnShadowing,
    servers: Vec<ServerEntry>,
    #[serde(default)]
    pins: BTreeMap<String, String>,
    /// A file of `KEY=VALUE` lines that `${KEY}` in `env` and `headers` read before the environment.
    #[serde(default)]
    secrets: Option<PathBuf>,
    /// Cedar policy files (relative paths; `*` in a file name).
    #[serde(default)]
    policies: Vec<String>,
    /// Who may call, by the name policies give them.
    #[serde(default)]
    principals: BTreeMap<String, PrincipalEntry>,
    /// The file OAuth tokens are kept in (relative to the manifest).
    #[serde(default)]
    oauth_store: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuthEntry {
    #[serde(default)]
    grant: Grant,
    #[serde(default)]
    client_id: Option<String>,
    /// A template (`${VAR}`).
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    callback_port: Option<u16>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrincipalEntry {
    #[serde(default)]
    groups: Vec<String>,
    /// The caller over stdio.
    #[serde(default)]
    local: bool,
    /// A template (`${VAR}`) of the bearer token an HTTP caller presents.
    #[serde(default)]
    token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerEntry {
    name: String,
    tier: String,
    registry: PathBuf,
    /// How a host starts it over stdio (used by `toolseal host --manifest`, not by the build).
    #[serde(default)]
    command: Option<Vec<String>>,
    /// Where a gateway reaches it over Streamable HTTP instead (used by `toolseal gateway`, not by the build).
    #[serde(default)]
    url: Option<String>,
    /// Environment variables of a stdio server (templates, expanded when it is started).
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// A dotenv-style file of environment variables of a stdio server, relative to the manifest.
    #[serde(default)]
    env_file: Option<PathBuf>,
    /// The working directory of a stdio server, relative to the manifest.
    #[serde(default)]
    cwd: Option<PathBuf>,
    /// HTTP headers sent to a `url` server (templates, expanded when it is reached).
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// Seconds this server may take to start, list its tools or answer a call.
    #[serde(default)]
    timeout: Option<u64>,
    /// How the gateway is authorized at a `url` server that requires OAuth.
    #[serde(default)]
    oauth: Option<OAuthEntry>,
}

fn manifest_error(path: &Path, message: impl Into<String>) -> ManifestError {
    ManifestError::Invalid { path: path.to_owned(), message: message.into() }
}

/// A deployment manifest, read and checked, with every server's registry.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// The manifest's policy.
    pub policy: Policy,
    /// The servers, in manifest order.
    pub servers: Vec<DeploymentServer>,
    /// `(tool, server)` pins.
    pub pins: Vec<(String, String)>,
    /// What a lower-tier server declaring a higher-tier server's name does to a build.
    pub shadowing: OnShadowing,
    /// The manifest's `secrets` file, resolved against its directory: `${VAR}` in `env` and
    /// `headers` reads it before the environment ([`read_manifest_expanded`]).
    pub secrets: Option<PathBuf>,
    /// The Cedar policy files `policies` names, resolved against the manifest's directory
    /// (each pattern's matches in name order).
    pub policies: Vec<PathBuf>,
    /// The principals, in name order.
    pub principals: Vec<DeploymentPrincipal>,
}

/// How an access token is obtained for a server that requires OAuth (its `oauth.grant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Grant {
    /// A person authorizes once (`toolseal login`: authorization code with PKCE); the
    /// tokens are stored and refreshed.
    #[default]
    AuthorizationCode,
    /// The deployment authorizes itself with its client id and secret (unattended).
    ClientCredentials,
}

/// A server's `oauth` table: the gateway is an OAuth 2.1 client of a `url` server
/// that requires it (authorization server found through the server's metadata).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuth {
    /// How the token is obtained.
    pub grant: Grant,
    /// A client registered beforehand; `None` registers one dynamically (authorization code only).
    pub client_id: Option<String>,
    /// That client's secret, expanded. Empty until [`Deployment::expand`]; `None` when it has none.
    pub client_secret: Option<Secret>,
    /// The scopes asked for; empty: what the server's metadata suggests.
    pub scopes: Vec<String>,
    /// The loopback port `toolseal login` listens on for the redirect (`None`: any free port;
    /// a client registered beforehand with a fixed redirect URI needs it).
    pub callback_port: Option<u16>,
    /// The manifest's `oauth_store`, resolved against its directory: the file the server's
    /// tokens are kept in. `None`: the user's default.
    pub store: Option<PathBuf>,
    /// The command that authorizes the gateway at this server, for messages
    /// (`toolseal login --manifest <the manifest> <server>`).
    pub login_command: String,
    /// The secret's template, until expanded.
    pending: Option<String>,
}

/// Who calls through a gateway: `User::"<name>"` in its policies.
#[derive(Debug, Clone)]
pub struct DeploymentPrincipal {
    /// The entity id.
    pub name: String,
    /// `principal.groups`.
    pub groups: Vec<String>,
    /// Whether it is the caller over stdio.
    pub local: bool,
    /// The bearer token an HTTP caller presents to call as it, expanded. Empty until
    /// [`Deployment::expand`]; `None` when it has none.
    pub token: Option<Secret>,
    /// The token's template, until expanded.
    pending: Option<String>,
}

/// A value that must not be shown (a bearer token). `Debug` prints `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The value.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// One server of a [`Deployment`].
#[derive(Debug, Clone)]
pub struct DeploymentServer {
    /// The host's key for it.
    pub name: String,
    /// Its tier's index (0 is the most trusted).
    pub tier: usize,
    /// Its tier's name.
    pub tier_name: String,
    /// Its registry file, resolved against the manifest's directory.
    pub registry_path: PathBuf,
    /// The registry file's bytes.
    pub registry_bytes: Vec<u8>,
    /// The command that starts it over stdio, if the manifest gives one (run in the manifest's directory).
    pub command: Option<Vec<String>>,
    /// The Streamable HTTP endpoint that serves it, if the manifest gives one instead of `command`.
    pub url: Option<String>,
    /// The stdio server's working directory (`cwd`, resolved against the manifest's
    /// directory); `None` runs it in the manifest's directory.
    pub cwd: Option<PathBuf>,
    /// What the stdio server's environment gets on top of the starting process's own:
    /// `env_file`, then `env` over it, expanded. Empty until [`Deployment::expand`].
    pub env: Secrets,
    /// The HTTP headers sent with every request to the `url` server, expanded.
    /// Empty until [`Deployment::expand`].
    pub headers: Secrets,
    /// The server's own wait (`timeout`) to start, list its tools and answer a call,
    /// in place of the command's `--timeout`.
    pub timeout: Option<Duration>,
    /// How the gateway is authorized at the `url` server, if it requires OAuth.
    pub oauth: Option<OAuth>,
    /// `env`, `env_file` and `headers` as the manifest writes them, until expanded.
    pending: Option<Pending>,
}

/// A server's `env`, `env_file` and `headers` before expansion.
#[derive(Debug, Clone)]
struct Pending {
    env: Secrets,
    env_file: Option<PathBuf>,
    headers: Secrets,
}

/// Named values that must not be shown — a server's environment variables or
/// HTTP headers, in name order. `Debug` prints the names only:
/// `{"API_KEY": <redacted>}`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(BTreeMap<String, String>);

impl Secrets {
    /// No values.
    pub fn new() -> Secrets {
        Secrets::default()
    }

    /// Sets `name` to `value` (replacing a previous value).
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every `(name, value)`, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Redacted;
        impl std::fmt::Debug for Redacted {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("<redacted>")
            }
        }
        f.debug_map().entries(self.0.keys().map(|k| (k, Redacted))).finish()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Secrets {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Secrets {
        Secrets(iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl Deployment {
    /// The merged namespace (validates names, pins and qualified-name uniqueness).
    pub fn catalog(&self, path: &Path) -> Result<Catalog, ManifestError> {
        let specs = self.registries()?.iter().map(|(name, tier, tier_name, registry)| ServerSpec::listing(name, *tier, tier_name, registry)).collect();
        Catalog::new(specs, &self.pins, self.policy).map_err(|e| manifest_error(path, e.to_string()))
    }

    /// Each server's registry, read: `(name, tier, tier name, registry)` in
    /// manifest order, as `DynamicDeployment::new` takes them.
    pub fn registries(&self) -> Result<Vec<(String, usize, String, Registry)>, ManifestError> {
        self.servers
            .iter()
            .map(|server| {
                let registry = read_registry(&server.registry_bytes).map_err(|source| ManifestError::Registry { path: server.registry_path.clone(), source })?;
                Ok((server.name.clone(), server.tier, server.tier_name.clone(), registry))
            })
            .collect()
    }

    /// The deployment compiled at run time (the same rules as the generated `McpCall`).
    pub fn compile_dynamic(&self, path: &Path, options: &CompileOptions) -> Result<DynamicDeployment, ManifestError> {
        DynamicDeployment::new(&self.registries()?, &self.pins, self.policy, options).map_err(|e| manifest_error(path, e.to_string()))
    }
}

/// Header names a manifest may not set: the transport's own.
const RESERVED_HEADERS: &[&str] = &["accept", "connection", "content-length", "content-type", "host", "last-event-id", "mcp-protocol-version", "mcp-session-id", "transfer-encoding"];

/// One piece of a template value.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    /// Kept as written.
    Text(&'a str),
    /// `${name}` or `${name:-default}`.
    Var { name: &'a str, default: Option<&'a str> },
}

/// Whether `name` can be a variable in `${…}`: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_variable(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The pieces of a template value, or why it is not one (never quoting the value: it may be a secret).
fn parse_template(value: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut pieces = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        if after.starts_with('$') {
            return Err("`$$` is not supported: a `$` not followed by `{` is kept as is; expand with `${VAR}` or `${VAR:-default}`".to_owned());
        }
        let Some(inner) = after.strip_prefix('{') else {
            // A lone `$` is literal: keep it with the text before it.
            pieces.push(Piece::Text(&rest[..=at]));
            rest = after;
            continue;
        };
        let Some(end) = inner.find('}') else {
            return Err("a `${` is not closed by `}`".to_owned());
        };
        let (name, default) = match inner[..end].split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (&inner[..end], None),
        };
        if !is_variable(name) {
            return Err("`${…}` takes a variable name ([A-Za-z_][A-Za-z0-9_]*), optionally followed by `:-default`; no other form is supported".to_owned());
        }
        if default.is_some_and(|d| d.contains("${")) {
            return Err(format!("the default of `${{{name}:-…}}` cannot hold another `${{…}}`"));
        }
        if at > 0 {
            pieces.push(Piece::Text(&rest[..at]));
        }
        pieces.push(Piece::Var { name, default });
        rest = &inner[end + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    Ok(pieces)
}

/// Expands a template with `lookup`: `${VAR}` is VAR's value (an error when it is unset),
/// `${VAR:-default}` the default when VAR is unset or empty. What `env` and `headers`
/// values go through; the error names the variable, never a value.
pub fn expand_template(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    for piece in parse_template(value)? {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Var { name, default } => match (lookup(name), default) {
                (Some(value), None) => out.push_str(&value),
                (Some(value), Some(_)) if !value.is_empty() => out.push_str(&value),
                (_, Some(default)) => out.push_str(default),
                (None, None) => return Err(format!("${{{name}}} is not set (set it in the environment that starts the server, or give a default: ${{{name}:-…}})")),
            },
        }
    }
    Ok(out)
}

/// The variables of a dotenv-style file, in order: `KEY=VALUE` lines (an optional
/// `export ` before), blank lines and `#` comment lines; a value may be quoted —
/// `'…'` as is, `"…"` with `\"`, `\\` and `\n` escapes — and is trimmed otherwise
/// (a `#` inside an unquoted value is part of it). Values are not expanded.
/// An error names the line, never its text.
fn parse_env_file(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut vars = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!("line {n} is not KEY=VALUE"));
        };
        let key = key.trim_end();
        if !is_variable(key) {
            return Err(format!("line {n}: the name is not [A-Za-z_][A-Za-z0-9_]*"));
        }
        let value = value.trim_start();
        let (value, after) = match value.chars().next() {
            Some('\'') => match value[1..].find('\'') {
                Some(end) => (value[1..=end].to_owned(), &value[end + 2..]),
                None => return Err(format!("line {n}: the quote is not closed")),
            },
            Some('"') => {
                let mut out = String::new();
                let mut chars = value[1..].char_indices();
                let mut end = None;
                while let Some((at, c)) = chars.next() {
                    match c {
                        '"' => {
                            end = Some(at + 2);
                            break;
                        }
                        '\\' => match chars.next() {
                            Some((_, 'n')) => out.push('\n'),
                            Some((_, c @ ('"' | '\\'))) => out.push(c),
                            Some((_, c)) => {
                                out.push('\\');
                                out.push(c);
                            }
                            None => out.push('\\'),
                        },
                        c => out.push(c),
                    }
                }
                let Some(end) = end else {
                    return Err(format!("line {n}: the quote is not closed"));
                };
                (out, &value[end..])
            }
            _ => (value.trim_end().to_owned(), ""),
        };
        let after = after.trim_start();
        if !(after.is_empty() || after.starts_with('#')) {
            return Err(format!("line {n}: text after the closing quote"));
        }
        vars.push((key.to_owned(), value));
    }
    Ok(vars)
}

/// Whether `name` is an HTTP header name (an RFC 9110 token).
fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Checks a server's `env`, `env_file`, `cwd`, `headers` and `timeout` (without looking anything up).
fn check_launch(path: &Path, server: &ServerEntry) -> Result<(), ManifestError> {
    let name = &server.name;
    let stdio_keys = [(!server.env.is_empty(), "env"), (server.env_file.is_some(), "env_file"), (server.cwd.is_some(), "cwd")];
    for (given, key) in stdio_keys {
        if given && server.command.is_none() {
            let why = if server.url.is_some() { "not to a `url` server (give it `headers`)" } else { "give the server its `command`" };
            return Err(manifest_error(path, format!("server {name:?}: `{key}` applies to a stdio server (`command`), {why}")));
        }
    }
    for (given, key) in [(!server.headers.is_empty(), "headers"), (server.oauth.is_some(), "oauth")] {
        if given && server.url.is_none() {
            let why = if server.command.is_some() { "not to a stdio server (give it `env`)" } else { "give the server its `url`" };
            return Err(manifest_error(path, format!("server {name:?}: `{key}` applies to a Streamable HTTP server (`url`), {why}")));
        }
    }
    if let Some(oauth) = &server.oauth {
        check_oauth(path, name, oauth)?;
        if server.headers.keys().any(|k| k.eq_ignore_ascii_case("authorization")) {
            return Err(manifest_error(path, format!("server {name:?}: `headers.Authorization` and `oauth` both give the server's credentials; keep one")));
        }
    }
    for (key, value) in &server.env {
        if key.is_empty() || key.contains(['=', '\0']) {
            return Err(manifest_error(path, format!("server {name:?}: `env` holds a name that is empty or holds `=`")));
        }
        parse_template(value).map_err(|why| manifest_error(path, format!("server {name:?}: `env.{key}`: {why}")))?;
    }
    let mut seen: Vec<String> = Vec::new();
    for (key, value) in &server.headers {
        if !is_header_name(key) {
            return Err(manifest_error(path, format!("server {name:?}: `headers` holds {key:?}, which is not an HTTP header name")));
        }
        let lower = key.to_ascii_lowercase();
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            return Err(manifest_error(path, format!("server {name:?}: `headers.{key}` is set by the transport itself")));
        }
        if seen.contains(&lower) {
            return Err(manifest_error(path, format!("server {name:?}: `headers.{key}` is given twice (header names ignore case)")));
        }
        seen.push(lower);
        parse_template(value).map_err(|why| manifest_error(path, format!("server {name:?}: `headers.{key}`: {why}")))?;
    }
    if server.timeout == Some(0) {
        return Err(manifest_error(path, format!("server {name:?}: `timeout` is in seconds and at least 1")));
    }
    Ok(())
}

/// A server's `oauth` table, as far as it can be checked without the network.
fn check_oauth(path: &Path, name: &str, oauth: &OAuthEntry) -> Result<(), ManifestError> {
    let fail = |message: &str| Err(manifest_error(path, format!("server {name:?}: `oauth`: {message}")));
    if oauth.client_id.as_deref().is_some_and(|id| id.is_empty() || id.chars().any(char::is_control)) {
        return fail("`client_id` is empty or holds a control character");
    }
    if let Some(template) = &oauth.client_secret {
        parse_template(template).map_err(|why| manifest_error(path, format!("server {name:?}: `oauth.client_secret`: {why}")))?;
        if !template.contains("${") {
            return fail("`client_secret` is written in the manifest; write `${VAR}` and keep the secret in the environment or the `secrets` file");
        }
        if oauth.client_id.is_none() {
            return fail("`client_secret` belongs to a client registered beforehand: give its `client_id`");
        }
    }
    if oauth.scopes.iter().any(|s| s.is_empty() || s.contains(char::is_whitespace)) {
        return fail("a scope is empty or holds a space (list each scope on its own)");
    }
    match oauth.grant {
        Grant::ClientCredentials if oauth.client_id.is_none() || oauth.client_secret.is_none() => fail("`grant = \"client_credentials\"` needs `client_id` and `client_secret`"),
        Grant::ClientCredentials if oauth.callback_port.is_some() => fail("`callback_port` is for `toolseal login` (the authorization code grant)"),
        _ => Ok(()),
    }
}

impl Deployment {
    /// Expands every server's `env` (over its `env_file`) and `headers` with
    /// `lookup` (the environment of the process that starts the servers), and
    /// checks that each `cwd` is a directory. `path` is the manifest, for errors.
    /// An unset `${VAR}` without a default is an error naming the server, the key
    /// and the variable; no error quotes a value. A second call does nothing.
    pub fn expand(&mut self, path: &Path, lookup: impl Fn(&str) -> Option<String>) -> Result<(), ManifestError> {
        for server in &mut self.servers {
            let name = server.name.clone();
            let fail = |message: String| manifest_error(path, format!("server {name:?}: {message}"));
            if let Some(cwd) = &server.cwd
                && !cwd.is_dir()
            {
                return Err(fail(format!("`cwd` {} is not a directory", cwd.display())));
            }
            let Some(pending) = server.pending.take() else { continue };
            let mut env = Secrets::new();
            if let Some(file) = &pending.env_file {
                let text = std::fs::read_to_string(file).map_err(|e| fail(format!("`env_file` {} cannot be read: {e}", file.display())))?;
                let vars = parse_env_file(&text).map_err(|why| fail(format!("`env_file` {}: {why}", file.display())))?;
                for (key, value) in vars {
                    env.insert(key, value);
                }
            }
            for (key, template) in pending.env.iter() {
                env.insert(key, expand_template(template, &lookup).map_err(|why| fail(format!("`env.{key}`: {why}")))?);
            }
            if let Some(key) = env.iter().find(|(_, v)| v.contains('\0')).map(|(k, _)| k) {
                return Err(fail(format!("the value of environment variable {key} holds a NUL character")));
            }
            let mut headers = Secrets::new();
            for (key, template) in pending.headers.iter() {
                let value = expand_template(template, &lookup).map_err(|why| fail(format!("`headers.{key}`: {why}")))?;
                if value.chars().any(|c| c.is_control() && c != '\t') {
                    return Err(fail(format!("`headers.{key}`: the value holds a line break or another control character")));
                }
                headers.insert(key, value);
            }
            server.env = env;
            server.headers = headers;
            if let Some(oauth) = &mut server.oauth
                && let Some(template) = oauth.pending.take()
            {
                let secret = expand_template(&template, &lookup).map_err(|why| fail(format!("`oauth.client_secret`: {why}")))?;
                if secret.is_empty() || secret.chars().any(char::is_control) {
                    return Err(fail("`oauth.client_secret` is empty or holds a control character".to_owned()));
                }
                oauth.client_secret = Some(Secret(secret));
            }
        }
        for principal in &mut self.principals {
            let Some(template) = principal.pending.take() else { continue };
            let name = principal.name.clone();
            let token = expand_template(&template, &lookup).map_err(|why| manifest_error(path, format!("principal {name:?}: `token`: {why}")))?;
            if token.is_empty() || token.chars().any(|c| c.is_control() || c == ' ') {
                return Err(manifest_error(path, format!("principal {name:?}: `token` is empty or holds a space or a control character")));
            }
            principal.token = Some(Secret(token));
        }
        let tokens: Vec<&str> = self.principals.iter().filter_map(|p| p.token.as_ref().map(Secret::expose)).collect();
        if let Some((i, _)) = tokens.iter().enumerate().find(|(i, t)| tokens[..*i].contains(t)) {
            let names: Vec<&str> = self.principals.iter().filter(|p| p.token.as_ref().map(Secret::expose) == Some(tokens[i])).map(|p| p.name.as_str()).collect();
            return Err(manifest_error(path, format!("principals {} have the same `token`: each token names one principal", names.join(" and "))));
        }
        Ok(())
    }
}

/// [`read_manifest`], then [`Deployment::expand`] with the manifest's `secrets` file
/// (if it names one) over this process's environment: for what starts or reaches the
/// servers (the gateway, the command). The secrets file must be readable by its owner
/// only (as `ssh` wants of a key): it holds what `toolseal import` found written into a
/// client's configuration.
pub fn read_manifest_expanded(path: &Path) -> Result<Deployment, ManifestError> {
    expanded(read_manifest(path)?, path)
}

/// [`read_manifest_expanded`] for the commands that reach a server to make its pin
/// (`toolseal capture --manifest`, `toolseal login`): a registry file that does not
/// exist yet reads as empty bytes.
pub fn read_manifest_unpinned(path: &Path) -> Result<Deployment, ManifestError> {
    expanded(read(path, true)?, path)
}

/// `deployment` expanded with the `secrets` file it names over this process's environment.
fn expanded(mut deployment: Deployment, path: &Path) -> Result<Deployment, ManifestError> {
    let mut secrets = BTreeMap::new();
    if let Some(file) = &deployment.secrets {
        let fail = |message: String| manifest_error(path, format!("`secrets` {}: {message}", file.display()));
        let text = std::fs::read_to_string(file).map_err(|e| fail(format!("cannot be read: {e}")))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file).map_err(|e| fail(format!("cannot be read: {e}")))?.permissions().mode();
            if mode & 0o077 != 0 {
                return Err(fail(format!("is readable by others (mode {:o}); `chmod 600` it", mode & 0o777)));
            }
        }
        secrets.extend(parse_env_file(&text).map_err(fail)?);
    }
    deployment.expand(path, |name| secrets.get(name).cloned().or_else(|| std::env::var(name).ok()))?;
    Ok(deployment)
}

/// The files `pattern` (relative to `base`) names: the file itself, or when its file
/// name holds `*`, every file of its directory whose name matches, in name order.
/// A pattern that names no file is an error: a policy file left out by a typo would
/// change what the gateway allows.
fn policy_files(base: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let path = base.join(pattern);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if !name.contains('*') {
        return if path.is_file() { Ok(vec![path]) } else { Err(format!("{} is not a file", path.display())) };
    }
    let dir = path.parent().unwrap_or(base);
    if dir.to_string_lossy().contains('*') {
        return Err("`*` is allowed in the file name only".to_owned());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut found: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file() && p.file_name().is_some_and(|n| wildcard(&name, &n.to_string_lossy()))).collect();
    found.sort();
    if found.is_empty() {
        return Err(format!("no file in {} matches", dir.display()));
    }
    Ok(found)
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
fn wildcard(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == name;
    }
    if name.len() < first.len() + last.len() || !name.starts_with(first) || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// A deserialization message without the string it quotes (`invalid type: string "…"`):
/// a string where `env` or `headers` wants a table may be a secret.
fn unquoted(message: &str) -> String {
    const QUOTED: &str = "invalid type: string \"";
    if let Some(rest) = message.strip_prefix(QUOTED)
        && let Some(end) = rest.rfind("\", expected")
    {
        return format!("invalid type: a string{}", &rest[end + 1..]);
    }
    message.to_owned()
}

/// Reads the manifest at `path` and every registry it names. Each server's
/// `env`, `env_file` and `headers` are checked but not looked up: its `env` and
/// `headers` stay empty until [`Deployment::expand`] (see [`read_manifest_expanded`]).
pub fn read_manifest(path: &Path) -> Result<Deployment, ManifestError> {
    read(path, false)
}

/// [`read_manifest`]; with `unpinned`, a registry file that does not exist reads as empty.
fn read(path: &Path, unpinned: bool) -> Result<Deployment, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Io { path: path.to_owned(), source })?;
    // The message and where, without toml's quote of the line: it may hold a secret of `env` or `headers`.
    let manifest: ManifestFile = toml::from_str(&text).map_err(|e| {
        let at = e.span().map(|span| {
            let before = &text[..span.start.min(text.len())];
            format!(" (line {}, column {})", before.matches('\n').count() + 1, before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1)
        });
        manifest_error(path, format!("{}{}", unquoted(e.message().trim_end()).replace('\n', " "), at.unwrap_or_default()))
    })?;
    if manifest.tiers.is_empty() {
        return Err(manifest_error(path, "`tiers` lists no tier; name them most trusted first, e.g. [\"first-party\", \"community\"]"));
    }
    for (i, tier) in manifest.tiers.iter().enumerate() {
        if manifest.tiers[..i].contains(tier) {
            return Err(manifest_error(path, format!("tier {tier:?} is listed twice")));
        }
    }
    if manifest.servers.is_empty() {
        return Err(manifest_error(path, "no `[[servers]]`"));
    }
    let base = path.parent().unwrap_or(Path::new(""));
    let mut servers = Vec::new();
    for server in &manifest.servers {
        let Some(tier) = manifest.tiers.iter().position(|t| *t == server.tier) else {
            return Err(manifest_error(path, format!("server {:?}: tier {:?} is not one of `tiers` {:?}", server.name, server.tier, manifest.tiers)));
        };
        let registry_path = base.join(&server.registry);
        let registry_bytes = match std::fs::read(&registry_path) {
            Ok(bytes) => bytes,
            Err(e) if unpinned && e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(ManifestError::Io { path: registry_path.clone(), source }),
        };
        if server.command.as_ref().is_some_and(Vec::is_empty) {
            return Err(manifest_error(path, format!("server {:?}: `command` is empty", server.name)));
        }
        if server.command.is_some() && server.url.is_some() {
            return Err(manifest_error(path, format!("server {:?}: give `command` (stdio) or `url` (Streamable HTTP), not both", server.name)));
        }
        if let Some(url) = &server.url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(manifest_error(path, format!("server {:?}: `url` {url:?} is not an http:// or https:// address", server.name)));
        }
        check_launch(path, server)?;
        let pending = Pending {
            env: server.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
            env_file: server.env_file.as_ref().map(|f| base.join(f)),
            headers: server.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        };
        servers.push(DeploymentServer {
            name: server.name.clone(),
            tier,
            tier_name: server.tier.clone(),
            registry_path,
            registry_bytes,
            command: server.command.clone(),
            url: server.url.clone(),
            cwd: server.cwd.as_ref().map(|c| base.join(c)),
            env: Secrets::new(),
            headers: Secrets::new(),
            timeout: server.timeout.map(Duration::from_secs),
            oauth: server.oauth.as_ref().map(|o| OAuth {
                grant: o.grant,
                client_id: o.client_id.clone(),
                client_secret: None,
                scopes: o.scopes.clone(),
                callback_port: o.callback_port,
                store: manifest.oauth_store.as_ref().map(|file| base.join(file)),
                login_command: format!("toolseal login --manifest {} {}", path.display(), server.name),
                pending: o.client_secret.clone(),
            }),
            pending: Some(pending),
        });
    }
    let pins = manifest.pins.iter().map(|(t, s)| (t.clone(), s.clone())).collect();
    let secrets = manifest.secrets.map(|file| base.join(file));
    let mut policies = Vec::new();
    for pattern in &manifest.policies {
        policies.extend(policy_files(base, pattern).map_err(|why| manifest_error(path, format!("`policies` {pattern:?}: {why}")))?);
    }
    let mut principals = Vec::new();
    for (name, entry) in &manifest.principals {
        if name.is_empty() || name.chars().any(char::is_control) {
            return Err(manifest_error(path, format!("principal {name:?}: a name is not empty and holds no control character")));
        }
        if let Some(template) = &entry.token {
            parse_template(template).map_err(|why| manifest_error(path, format!("principal {name:?}: `token`: {why}")))?;
            if !template.contains("${") {
                return Err(manifest_error(path, format!("principal {name:?}: `token` is written in the manifest; write `${{VAR}}` and keep the token in the environment or the `secrets` file")));
            }
        }
        principals.push(DeploymentPrincipal { name: name.clone(), groups: entry.groups.clone(), local: entry.local, token: None, pending: entry.token.clone() });
    }
    let locals: Vec<&str> = principals.iter().filter(|p| p.local).map(|p| p.name.as_str()).collect();
    if locals.len() > 1 {
        return Err(manifest_error(path, format!("principals {} are all `local`: one caller uses stdio", locals.join(" and "))));
    }
    Ok(Deployment { policy: manifest.policy, servers, pins, shadowing: manifest.shadowing, secrets, policies, principals })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<String> {
        match name {
            "A" => Some("alpha".to_owned()),
            "EMPTY" => Some(String::new()),
            "B_2" => Some("beta".to_owned()),
            _ => None,
        }
    }

    fn expand(value: &str) -> Result<String, String> {
        expand_template(value, &lookup)
    }

    #[test]
    fn variables_expand_with_defaults() {
        assert_eq!(expand("${A}").unwrap(), "alpha");
        assert_eq!(expand("x-${A}-${B_2}-y").unwrap(), "x-alpha-beta-y");
        assert_eq!(expand("Bearer ${A}").unwrap(), "Bearer alpha");
        assert_eq!(expand("${A:-d}").unwrap(), "alpha", "a set variable wins over its default");
        assert_eq!(expand("${UNSET:-d}").unwrap(), "d");
        assert_eq!(expand("${UNSET:-}").unwrap(), "", "an empty default is a value");
        assert_eq!(expand("${UNSET:-a b:c/$x}").unwrap(), "a b:c/$x", "a default is taken as written");
        assert_eq!(expand("${EMPTY:-d}").unwrap(), "d", "`:-` takes the default for an empty variable too");
        assert_eq!(expand("${EMPTY}").unwrap(), "", "a variable set empty is empty, not unset");
        assert_eq!(expand("plain").unwrap(), "plain");
        assert_eq!(expand("").unwrap(), "");
    }

    #[test]
    fn an_unset_variable_without_default_is_an_error_naming_it() {
        let e = expand("x${UNSET}y").unwrap_err();
        assert!(e.contains("${UNSET} is not set"), "{e}");
        assert!(expand("${A}${UNSET}").is_err());
    }

    #[test]
    fn a_dollar_not_followed_by_a_brace_is_literal() {
        for value in ["$", "a$b", "5$", "$A", "p$ss{word}", "$ {A}", "${A}$"] {
            let want = value.replace("${A}", "alpha");
            assert_eq!(expand(value).unwrap(), want, "{value}");
        }
    }

    #[test]
    fn double_dollars_and_unknown_forms_are_errors_that_do_not_quote_the_value() {
        for value in ["s3cr3t$$", "$${A}", "${}", "${A-x}", "${A:=s3cr3t}", "${1A}", "${A B}", "${A", "s3cr3t${A:-${B_2}}", "${A:?s3cr3t}"] {
            let e = expand(value).expect_err(value);
            assert!(!e.contains("s3cr3t"), "{value}: {e}");
            assert!(parse_template(value).is_err(), "{value}: checked without a lookup too");
        }
        assert!(expand("$$").unwrap_err().contains("`$$`"));
    }

    #[test]
    fn env_files_are_parsed() {
        let text = "# a comment\n\nPLAIN=value\n  SPACED = some value  \nexport EXPORTED=1\nSINGLE='a $b \"c\"'\nDOUBLE=\"x\\\"y\\\\z\\nw\" # trailing comment\nHASH=a#b # c\nEMPTY=\nEQUALS=a=b\r\n";
        let vars = parse_env_file(text).unwrap();
        let want = [("PLAIN", "value"), ("SPACED", "some value"), ("EXPORTED", "1"), ("SINGLE", "a $b \"c\""), ("DOUBLE", "x\"y\\z\nw"), ("HASH", "a#b # c"), ("EMPTY", ""), ("EQUALS", "a=b")];
        assert_eq!(vars, want.map(|(k, v)| (k.to_owned(), v.to_owned())));
    }

    #[test]
    fn env_file_errors_name_the_line_not_its_text() {
        for (text, line) in [("OK=1\ns3cr3t\n", 2), ("A='s3cr3t\n", 1), ("A=\"s3cr3t\n", 1), ("A='x' s3cr3t\n", 1), ("\n\n1A=s3cr3t\n", 3), ("=s3cr3t\n", 1)] {
            let e = parse_env_file(text).expect_err(text);
            assert!(e.contains(&format!("line {line}")) && !e.contains("s3cr3t"), "{text:?}: {e}");
        }
    }

    #[test]
    fn secrets_debug_shows_names_only() {
        let secrets: Secrets = [("API_KEY", "s3cr3t"), ("MODE", "ro")].into_iter().collect();
        assert_eq!(format!("{secrets:?}"), r#"{"API_KEY": <redacted>, "MODE": <redacted>}"#);
        assert_eq!(secrets.get("API_KEY"), Some("s3cr3t"));
        assert_eq!(secrets.names().collect::<Vec<_>>(), ["API_KEY", "MODE"]);
        assert_eq!((secrets.len(), secrets.is_empty(), Secrets::new().is_empty()), (2, false, true));
    }

    /// A scratch directory holding `toolseal.toml` (with `servers` after one tier) and a registry `r.json`.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str, servers: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("toolseal-runtime-manifest-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("r.json"), r#"{"tools":[]}"#).unwrap();
            std::fs::write(dir.join("toolseal.toml"), format!("tiers = [\"t\"]\n\n[[servers]]\nname = \"s\"\ntier = \"t\"\nregistry = \"r.json\"\n{servers}")).unwrap();
            Scratch(dir)
        }

        fn manifest(&self) -> PathBuf {
            self.0.join("toolseal.toml")
        }

        fn read(&self) -> Result<Deployment, String> {
            read_manifest(&self.manifest()).map_err(|e| e.to_string())
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn wildcards_match_runs_of_characters() {
        for (pattern, name, matches) in
            [("*.cedar", "a.cedar", true), ("*.cedar", "a.cedar.bak", false), ("p-*-x*.cedar", "p-1-x2.cedar", true), ("a*b", "ab", true), ("a*a", "a", false), ("x", "x", true)]
        {
            assert_eq!(wildcard(pattern, name), matches, "{pattern} {name}");
        }
    }

    #[test]
    fn policies_and_principals_are_read_and_tokens_expanded() {
        let scratch = Scratch::new("policies", "command = [\"x\"]\n");
        std::fs::create_dir_all(scratch.0.join("policies")).unwrap();
        for file in ["b.cedar", "a.cedar", "notes.txt"] {
            std::fs::write(scratch.0.join("policies").join(file), "").unwrap();
        }
        let text = std::fs::read_to_string(scratch.manifest()).unwrap();
        let principals = "\n[principals.alice]\ngroups = [\"admins\"]\nlocal = true\n\n[principals.ci]\ntoken = \"${CI_TOKEN}\"\n";
        std::fs::write(scratch.manifest(), format!("policies = [\"policies/*.cedar\"]\n{text}{principals}")).unwrap();
        let mut deployment = scratch.read().unwrap();
        let names: Vec<String> = deployment.policies.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.cedar", "b.cedar"]);
        assert_eq!(deployment.principals.len(), 2);
        assert!(deployment.principals[0].local && deployment.principals[0].groups == ["admins"]);
        assert!(deployment.principals[1].token.is_none());
        deployment.expand(&scratch.manifest(), |v| (v == "CI_TOKEN").then(|| "s3cr3t".to_owned())).unwrap();
        assert_eq!(deployment.principals[1].token.as_ref().map(Secret::expose), Some("s3cr3t"));
        assert!(!format!("{deployment:?}").contains("s3cr3t"));
        // A pattern that names nothing, a token written down, two locals.
        for (name, extra, want) in [
            ("none", "policies = [\"*.rego\"]\n", "no file in"),
            ("literal", "[principals.x]\ntoken = \"s3cr3t\"\n", "`token` is written in the manifest"),
            ("locals", "[principals.x]\nlocal = true\n[principals.y]\nlocal = true\n", "are all `local`"),
        ] {
            let case = Scratch::new(name, "command = [\"x\"]\n");
            let text = std::fs::read_to_string(case.manifest()).unwrap();
            let text = if extra.starts_with("policies") { format!("{extra}{text}") } else { format!("{text}\n{extra}") };
            std::fs::write(case.manifest(), text).unwrap();
            let e = case.read().expect_err(name);
            assert!(e.contains(want) && !e.contains("s3cr3t"), "{name}: {e}");
        }
    }

    #[test]
    fn keys_are_checked_where_they_apply() {
        let cases = [
            ("headers-stdio", "command = [\"x\"]\nheaders = { A = \"b\" }\n", "`headers` applies to a Streamable HTTP server"),
            ("env-url", "url = \"http://h/mcp\"\nenv = { A = \"b\" }\n", "`env` applies to a stdio server"),
            ("env-file-url", "url = \"http://h/mcp\"\nenv_file = \".env\"\n", "`env_file` applies to a stdio server"),
            ("cwd-url", "url = \"http://h/mcp\"\ncwd = \"d\"\n", "`cwd` applies to a stdio server"),
            ("env-nowhere", "env = { A = \"b\" }\n", "give the server its `command`"),
            ("headers-nowhere", "headers = { A = \"b\" }\n", "give the server its `url`"),
            ("reserved", "url = \"http://h/mcp\"\nheaders = { Accept = \"b\" }\n", "`headers.Accept` is set by the transport"),
            ("header-name", "url = \"http://h/mcp\"\nheaders = { \"A B\" = \"b\" }\n", "not an HTTP header name"),
            ("header-twice", "url = \"http://h/mcp\"\nheaders = { X-Key = \"a\", x-key = \"b\" }\n", "given twice"),
            ("env-name", "command = [\"x\"]\nenv = { \"A=B\" = \"b\" }\n", "holds `=`"),
            ("timeout", "command = [\"x\"]\ntimeout = 0\n", "`timeout`"),
            ("unknown", "command = [\"x\"]\nenviron = { A = \"b\" }\n", "unknown field `environ`"),
            ("dollars", "command = [\"x\"]\nenv = { TOKEN = \"s3cr3t$$\" }\n", "server \"s\": `env.TOKEN`: `$$`"),
            ("form", "url = \"http://h/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN:?s3cr3t}\" }\n", "server \"s\": `headers.Authorization`"),
            ("type", "command = [\"x\"]\nenv = \"TOKEN=s3cr3t\"\n", "invalid type: a string, expected"),
            ("syntax", "command = [\"x\"]\nenv = { TOKEN = \"s3cr3t\" \n", "(line 8, column"),
        ];
        for (name, servers, want) in cases {
            let e = Scratch::new(name, servers).read().expect_err(name);
            assert!(e.contains("toolseal.toml") && e.contains(want), "{name}: {e}");
            assert!(!e.contains("s3cr3t"), "{name}: the value is not quoted: {e}");
        }
    }

    #[test]
    fn expansion_resolves_env_file_env_cwd_headers_and_timeout() {
        let stdio = Scratch::new("stdio", "command = [\"x\"]\nenv = { TOKEN = \"${A}\", MODE = \"${UNSET:-ro}\", LITERAL = \"p$ss\" }\nenv_file = \"conf/.env\"\ncwd = \"work\"\ntimeout = 7\n");
        std::fs::create_dir_all(stdio.0.join("conf")).unwrap();
        std::fs::create_dir_all(stdio.0.join("work")).unwrap();
        std::fs::write(stdio.0.join("conf/.env"), "FROM_FILE=f1\nMODE=from-file\n").unwrap();
        let mut deployment = stdio.read().unwrap();
        assert!(deployment.servers[0].env.is_empty(), "nothing is looked up before expansion");
        deployment.expand(&stdio.manifest(), lookup).unwrap();
        let server = &deployment.servers[0];
        let env: Vec<(&str, &str)> = server.env.iter().collect();
        assert_eq!(env, [("FROM_FILE", "f1"), ("LITERAL", "p$ss"), ("MODE", "ro"), ("TOKEN", "alpha")], "`env` wins over `env_file`");
        assert_eq!(server.cwd.as_deref(), Some(stdio.0.join("work").as_path()));
        assert_eq!(server.timeout, Some(Duration::from_secs(7)));
        let shown = format!("{deployment:?}");
        assert!(shown.contains("TOKEN") && !shown.contains("alpha") && !shown.contains("f1") && !shown.contains("p$ss"), "{shown}");

        let http = Scratch::new("http", "url = \"http://h/mcp\"\nheaders = { Authorization = \"Bearer ${A}\", X-Mode = \"${UNSET:-x}\" }\n");
        let mut deployment = http.read().unwrap();
        assert!(!format!("{deployment:?}").contains("Bearer"), "templates are not shown either");
        deployment.expand(&http.manifest(), lookup).unwrap();
        let headers: Vec<(&str, &str)> = deployment.servers[0].headers.iter().collect();
        assert_eq!(headers, [("Authorization", "Bearer alpha"), ("X-Mode", "x")]);
        assert_eq!(deployment.servers[0].timeout, None);
        assert!(!format!("{deployment:?}").contains("alpha"));
    }

    #[test]
    fn oauth_is_read_checked_and_its_secret_expanded_unseen() {
        let code = Scratch::new("oauth-code", "url = \"http://h/mcp\"\noauth = { client_id = \"toolseal\", scopes = [\"read\", \"write\"], callback_port = 8765 }\n");
        let deployment = code.read().unwrap();
        let oauth = deployment.servers[0].oauth.as_ref().unwrap();
        assert_eq!(
            (oauth.grant, oauth.client_id.as_deref(), oauth.scopes.as_slice(), oauth.callback_port),
            (Grant::AuthorizationCode, Some("toolseal"), ["read".to_owned(), "write".to_owned()].as_slice(), Some(8765))
        );
        assert_eq!(oauth.store, None, "no `oauth_store`: the user's default");
        assert!(oauth.login_command.starts_with("toolseal login --manifest ") && oauth.login_command.ends_with("toolseal.toml s"), "{}", oauth.login_command);

        let robot = Scratch::new("oauth-cc", "url = \"http://h/mcp\"\noauth = { grant = \"client_credentials\", client_id = \"ci\", client_secret = \"${A}\" }\n");
        let text = std::fs::read_to_string(robot.manifest()).unwrap().replacen("tiers", "oauth_store = \"state/tokens.json\"\ntiers", 1);
        std::fs::write(robot.manifest(), text).unwrap();
        let mut deployment = robot.read().unwrap();
        assert_eq!(deployment.servers[0].oauth.as_ref().unwrap().store.as_deref(), Some(robot.0.join("state/tokens.json").as_path()));
        deployment.expand(&robot.manifest(), lookup).unwrap();
        let oauth = deployment.servers[0].oauth.as_ref().unwrap();
        assert_eq!(oauth.client_secret.as_ref().map(Secret::expose), Some("alpha"));
        assert!(!format!("{deployment:?}").contains("alpha"), "the secret is not shown");

        for (entry, why) in [
            ("command = [\"x\"]\noauth = {}\n", "`oauth` applies to a Streamable HTTP server (`url`)"),
            ("url = \"http://h/mcp\"\noauth = { client_id = \"c\", client_secret = \"s3cr3t\" }\n", "`client_secret` is written in the manifest"),
            ("url = \"http://h/mcp\"\noauth = { client_secret = \"${A}\" }\n", "give its `client_id`"),
            ("url = \"http://h/mcp\"\noauth = { grant = \"client_credentials\", client_id = \"c\" }\n", "needs `client_id` and `client_secret`"),
            ("url = \"http://h/mcp\"\noauth = { scopes = [\"a b\"] }\n", "a scope is empty or holds a space"),
            ("url = \"http://h/mcp\"\noauth = { grant = \"implicit\" }\n", "unknown variant `implicit`"),
            ("url = \"http://h/mcp\"\nheaders = { authorization = \"Bearer ${A}\" }\noauth = {}\n", "`headers.Authorization` and `oauth` both"),
        ] {
            let scratch = Scratch::new("oauth-bad", entry);
            let e = scratch.read().unwrap_err();
            assert!(e.contains(why) && !e.contains("s3cr3t"), "{entry}: {e}");
        }
    }

    #[test]
    fn a_missing_pin_reads_as_empty_only_for_the_commands_that_make_it() {
        let scratch = Scratch::new("unpinned", "command = [\"x\"]\n");
        std::fs::remove_file(scratch.0.join("r.json")).unwrap();
        assert!(scratch.read().unwrap_err().contains("r.json"));
        assert!(read_manifest_unpinned(&scratch.manifest()).unwrap().servers[0].registry_bytes.is_empty());
    }

    #[test]
    fn expansion_errors_name_the_server_the_key_and_the_variable() {
        let unset = Scratch::new("unset", "command = [\"x\"]\nenv = { TOKEN = \"s3cr3t-${NOT_SET_ANYWHERE}\" }\n");
        let e = unset.read().unwrap().expand(&unset.manifest(), lookup).unwrap_err().to_string();
        assert!(e.contains("server \"s\"") && e.contains("`env.TOKEN`") && e.contains("${NOT_SET_ANYWHERE} is not set") && !e.contains("s3cr3t"), "{e}");

        let header = Scratch::new("unset-header", "url = \"http://h/mcp\"\nheaders = { Authorization = \"Bearer ${NOPE}\" }\n");
        let e = header.read().unwrap().expand(&header.manifest(), lookup).unwrap_err().to_string();
        assert!(e.contains("server \"s\"") && e.contains("`headers.Authorization`") && e.contains("${NOPE}"), "{e}");

        let control = Scratch::new("control", "url = \"http://h/mcp\"\nheaders = { X-Key = \"${A}\\r\\nX-Evil: 1\" }\n");
        let e = control.read().unwrap().expand(&control.manifest(), lookup).unwrap_err().to_string();
        assert!(e.contains("`headers.X-Key`") && e.contains("line break") && !e.contains("alpha"), "{e}");

        let missing = Scratch::new("missing-file", "command = [\"x\"]\nenv_file = \"nope.env\"\n");
        let e = missing.read().unwrap().expand(&missing.manifest(), lookup).unwrap_err().to_string();
        assert!(e.contains("`env_file`") && e.contains("nope.env"), "{e}");

        let bad = Scratch::new("bad-file", "command = [\"x\"]\nenv_file = \".env\"\n");
        std::fs::write(bad.0.join(".env"), "OK=1\nTOKEN s3cr3t\n").unwrap();
        let e = bad.read().unwrap().expand(&bad.manifest(), lookup).unwrap_err().to_string();
        assert!(e.contains("line 2") && !e.contains("s3cr3t"), "{e}");

        let cwd = Scratch::new("cwd", "command = [\"x\"]\ncwd = \"nowhere\"\n");
        let e = cwd.read().unwrap().expand(&cwd.manifest(), lookup).unwrap_err().to_string();
        assert!(e.contains("`cwd`") && e.contains("not a directory"), "{e}");
    }

    #[test]
    fn the_secrets_file_is_read_before_the_environment_and_only_if_private() {
        let scratch = Scratch::new("secrets", "");
        let text = "tiers = [\"t\"]\nsecrets = \"s.env\"\n\n[[servers]]\nname = \"s\"\ntier = \"t\"\nregistry = \"r.json\"\ncommand = [\"x\"]\nenv = { TOKEN = \"${TOOLSEAL_S_TOKEN}\", HOME_AGAIN = \"${HOME:-none}\" }\n";
        std::fs::write(scratch.manifest(), text).unwrap();
        let secrets = scratch.0.join("s.env");
        std::fs::write(&secrets, "TOOLSEAL_S_TOKEN='t0k3n'\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o644)).unwrap();
            let e = read_manifest_expanded(&scratch.manifest()).unwrap_err().to_string();
            assert!(e.contains("readable by others") && e.contains("chmod 600") && !e.contains("t0k3n"), "{e}");
            std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let deployment = read_manifest_expanded(&scratch.manifest()).unwrap();
        assert_eq!(deployment.servers[0].env.get("TOKEN"), Some("t0k3n"));
        assert_eq!(deployment.servers[0].env.get("HOME_AGAIN").map(str::to_owned), Some(std::env::var("HOME").unwrap_or_else(|_| "none".into())));
        assert!(!format!("{deployment:?}").contains("t0k3n"));
        // The plain read names the file and looks nothing up.
        assert_eq!(read_manifest(&scratch.manifest()).unwrap().secrets, Some(secrets));
    }
}
